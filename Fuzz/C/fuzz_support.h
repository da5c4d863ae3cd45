/* Shared by the image fuzz targets. */
#ifndef TROVE_FUZZ_SUPPORT_H
#define TROVE_FUZZ_SUPPORT_H

/*
 * Headers may announce any size; the targets decode only what fits a few megabytes so
 * that libFuzzer's memory limit measures leaks, not legitimately large pictures.
 */
static inline int fuzz_size_ok(int width, int height) {
    return width > 0 && height > 0 && (long long)width * height <= 4LL * 1024 * 1024;
}

#endif
