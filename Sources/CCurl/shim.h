#include <curl/curl.h>

/* curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are variadic, which Swift
   cannot call: one typed wrapper for each kind of argument trove passes. */

typedef size_t (*trove_curl_data_function)(char *buffer, size_t size, size_t count, void *user);
typedef int (*trove_curl_seek_function)(void *user, curl_off_t offset, int origin);

static inline CURLcode trove_curl_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode trove_curl_setopt_offset(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}

/* Strings (copied by libcurl), lists and the callbacks' user pointers. */
static inline CURLcode trove_curl_setopt_pointer(CURL *easy, CURLoption option, const void *value) {
    return curl_easy_setopt(easy, option, value);
}

static inline CURLcode trove_curl_setopt_data_function(
    CURL *easy, CURLoption option, trove_curl_data_function function) {
    return curl_easy_setopt(easy, option, function);
}

static inline CURLcode trove_curl_setopt_seek_function(
    CURL *easy, CURLoption option, trove_curl_seek_function function) {
    return curl_easy_setopt(easy, option, function);
}

static inline CURLMcode trove_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLcode trove_curl_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}
