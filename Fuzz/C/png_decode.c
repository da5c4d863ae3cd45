/*
 * The C PNG paths: header and metadata (iCCP, eXIf, text chunks), whole decode, the row
 * stream, and the pixel-free verification, whose verdict must equal the decode's; the
 * stream's rows must equal the decode's pixels. Inputs ending in an odd byte have every
 * chunk's CRC rewritten first, so mutations reach the image data (and the whole-buffer
 * path of png_idat.c) instead of stopping at a CRC.
 */
#include "ctrove_imaging.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "fuzz_support.h"

/* A copy of the file with every complete chunk's CRC made right. */
static uint8_t *with_right_crcs(const uint8_t *data, size_t size) {
    uint8_t *copy = malloc(size > 0 ? size : 1);
    if (copy == NULL) return NULL;
    memcpy(copy, data, size);
    size_t offset = 8;
    while (offset + 12 <= size) {
        size_t length = ((size_t)copy[offset] << 24) | ((size_t)copy[offset + 1] << 16) |
                        ((size_t)copy[offset + 2] << 8) | (size_t)copy[offset + 3];
        if (length > size - offset - 12) break;
        uLong crc = crc32(0, copy + offset + 4, (uInt)(length + 4));
        uint8_t *stored = copy + offset + 8 + length;
        stored[0] = (uint8_t)(crc >> 24);
        stored[1] = (uint8_t)(crc >> 16);
        stored[2] = (uint8_t)(crc >> 8);
        stored[3] = (uint8_t)crc;
        offset += 12 + length;
    }
    return copy;
}

static int check(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0 || (data[size - 1] & 1) == 0) return check(data, size);
    uint8_t *repaired = with_right_crcs(data, size);
    if (repaired == NULL) return 0;
    check(repaired, size);
    free(repaired);
    return 0;
}

static int check(const uint8_t *data, size_t size) {
    ctrove_image_info info;
    ctrove_metadata metadata;
    char message[256];
    if (ctrove_png_read_header(data, size, &info, &metadata, message, sizeof(message)) != 0) {
        return 0;
    }
    ctrove_metadata_free(&metadata);
    if (!fuzz_size_ok(info.width, info.height)) return 0;
    int channels = ctrove_png_output_channels(&info);
    size_t bytes = (size_t)info.width * (size_t)info.height * (size_t)channels;
    uint8_t *buffer = malloc(bytes);
    if (buffer == NULL) return 0;
    ctrove_pixels pixels;
    int decoded = ctrove_png_decode(data, size, buffer, bytes, &pixels, &metadata, message,
                                    sizeof(message));
    if (decoded == 0) ctrove_metadata_free(&metadata);
    int verified = ctrove_png_verify(data, size, message, sizeof(message));
    if (verified != decoded) {
        fprintf(stderr, "decode %d but verify %d\n", decoded, verified);
        abort();
    }
    ctrove_pixels layout;
    ctrove_png_stream *stream = ctrove_png_stream_open(data, size, &layout, message, sizeof(message));
    if (stream != NULL) {
        size_t stride = (size_t)layout.width * (size_t)layout.channels;
        uint8_t *row = malloc(stride);
        int status = 0;
        if (row != NULL) {
            for (int y = 0; y < layout.height && status == 0; y++) {
                status = ctrove_png_stream_read_rows(stream, row, 1, message, sizeof(message));
                /* Interlaced files stream their passes' rows, which the decode places. */
                if (status == 0 && decoded == 0 && !info.progressive &&
                    memcmp(row, buffer + stride * (size_t)y, stride) != 0) {
                    fprintf(stderr, "stream row %d differs from the decode\n", y);
                    abort();
                }
            }
            if (status == 0) {
                status = ctrove_png_stream_finish(stream, &metadata, message, sizeof(message));
                if (status == 0) ctrove_metadata_free(&metadata);
            }
            free(row);
        }
        ctrove_png_stream_close(stream);
        if (row != NULL && status != decoded) {
            fprintf(stderr, "decode %d but stream %d\n", decoded, status);
            abort();
        }
    }
    free(buffer);
    return 0;
}
