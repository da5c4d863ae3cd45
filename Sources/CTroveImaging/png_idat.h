/*
 * The whole-buffer path for plain 8-bit PNGs (png_idat.c), used by png.c's row stream.
 * Not part of the module's public header.
 */
#ifndef TROVE_PNG_IDAT_H
#define TROVE_PNG_IDAT_H

#include <stddef.h>
#include <stdint.h>

struct idat_buffers;

typedef struct trove_idat_rows {
    struct idat_buffers *buffers;
    size_t stride;
    int channels;
    int height;
    int next;
} trove_idat_rows;

/*
 * Inflates the image data of `data` (a whole PNG whose chunk lengths were checked), a
 * non-interlaced 8-bit image of `channels` bytes a pixel, as rows are read directly.
 * Returns 0, or -1 when the file is not one this path takes or anything fails a check:
 * then nothing is held and the caller reads the file through libpng instead.
 */
int trove_idat_open(trove_idat_rows *rows, const uint8_t *data, size_t length, int width,
                    int height, int channels);

/* Unfilters the next row into `target` (`stride` bytes); the caller counts the rows. */
void trove_idat_read_row(trove_idat_rows *rows, uint8_t *target);

/* Gives the buffers back to the thread for its next image. */
void trove_idat_close(trove_idat_rows *rows);

#endif
