#include "ctrove_versions.h"

#include <stdio.h>
#include <jpeglib.h>
#include <png.h>

#define CTROVE_STRING(x) #x
#define CTROVE_EXPAND(x) CTROVE_STRING(x)

const char *ctrove_jpeg_version(void) {
#ifdef LIBJPEG_TURBO_VERSION
    // libjpeg-turbo has no run-time version call; the headers it was built with name it.
    return CTROVE_EXPAND(LIBJPEG_TURBO_VERSION);
#else
    return "unknown";
#endif
}

const char *ctrove_png_version(void) {
    return png_get_libpng_ver(NULL);
}
