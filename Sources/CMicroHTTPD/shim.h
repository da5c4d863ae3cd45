#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/* MHD_start_daemon, MHD_get_daemon_info and MHD_get_connection_info are variadic,
   which Swift cannot call: these wrap the one use trove has of each. */

/* Where libmicrohttpd's error log goes: each message, formatted, is handed to `line`
   (which counts it) instead of being printed, so a stream of malformed requests cannot
   grow the server's log by a line each. */
struct trove_mhd_log {
    void (*line)(void *context, const char *text);
    void *context;
};

static void trove_mhd_log_line(void *cls, const char *format, va_list arguments) {
    struct trove_mhd_log *log = cls;
    char text[512];
    vsnprintf(text, sizeof text, format, arguments);
    log->line(log->context, text);
}

/* Starts a daemon on `address` with a thread for each connection (so that a slow request,
   a photo being rendered, holds up no other), the limits given and the callbacks of
   trove's server; its error log goes to `log`, which must outlive the daemon. With
   `certificate` and `key` (PEM text, NULL for none) it speaks HTTPS through GnuTLS. */
static inline struct MHD_Daemon *trove_mhd_start(
    const struct sockaddr *address, unsigned int connection_limit,
    unsigned int per_ip_limit, unsigned int idle_timeout_seconds, size_t memory_limit,
    MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, MHD_NotifyConnectionCallback notify,
    void *notify_context, struct trove_mhd_log *log, const char *certificate,
    const char *key) {
    unsigned int flags =
        MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG;
    if (certificate != NULL && key != NULL) {
        return MHD_start_daemon(
            flags | MHD_USE_TLS, 0, NULL, NULL, handler, handler_context,
            MHD_OPTION_SOCK_ADDR, address,
            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
            MHD_OPTION_CONNECTION_TIMEOUT, idle_timeout_seconds,
            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
            MHD_OPTION_NOTIFY_COMPLETED, completed, handler_context,
            MHD_OPTION_NOTIFY_CONNECTION, notify, notify_context,
            MHD_OPTION_EXTERNAL_LOGGER, trove_mhd_log_line, log,
            MHD_OPTION_HTTPS_MEM_CERT, certificate,
            MHD_OPTION_HTTPS_MEM_KEY, key,
            MHD_OPTION_END);
    }
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, handler_context,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, idle_timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
        MHD_OPTION_NOTIFY_COMPLETED, completed, handler_context,
        MHD_OPTION_NOTIFY_CONNECTION, notify, notify_context,
        MHD_OPTION_EXTERNAL_LOGGER, trove_mhd_log_line, log,
        MHD_OPTION_END);
}

/* Whether this libmicrohttpd was built with TLS (GnuTLS). */
static inline int trove_mhd_has_tls(void) {
    return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}

/* The port the daemon listens on (the one the system chose for port 0). */
static inline uint16_t trove_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/* The socket of a connection, or -1. */
static inline int trove_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/* The address of the connection's peer as text (IPv4 or IPv6) into `text`, or "". */
static inline void trove_mhd_connection_peer(
    struct MHD_Connection *connection, char *text, size_t size) {
    text[0] = 0;
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return;
    const struct sockaddr *address = info->client_addr;
    if (address->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, text, size);
    } else if (address->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, text, size);
    }
}
