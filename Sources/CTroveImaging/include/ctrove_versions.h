#ifndef CTROVE_VERSIONS_H
#define CTROVE_VERSIONS_H

/// The libjpeg-turbo version trove was built against (its jconfig.h), e.g. "2.1.5".
const char *ctrove_jpeg_version(void);

/// The libpng version trove runs on (png_get_libpng_ver), e.g. "1.6.39".
const char *ctrove_png_version(void);

#endif
