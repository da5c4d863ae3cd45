/*
 * The C PNG paths: header and metadata (iCCP, eXIf, text chunks), whole decode, the row
 * stream, and the pixel-free verification, whose verdict must equal the decode's.
 */
#include "ctrove_imaging.h"

#include <stdio.h>
#include <stdlib.h>

#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
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
    free(buffer);
    int verified = ctrove_png_verify(data, size, message, sizeof(message));
    if (verified != decoded) {
        fprintf(stderr, "decode %d but verify %d\n", decoded, verified);
        abort();
    }
    ctrove_pixels layout;
    ctrove_png_stream *stream = ctrove_png_stream_open(data, size, &layout, message, sizeof(message));
    if (stream != NULL) {
        uint8_t *row = malloc((size_t)layout.width * (size_t)layout.channels);
        int status = 0;
        if (row != NULL) {
            for (int y = 0; y < layout.height && status == 0; y++) {
                status = ctrove_png_stream_read_rows(stream, row, 1, message, sizeof(message));
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
    return 0;
}
