/*
 * The C JPEG paths: header and metadata (EXIF, XMP, ICC chunks), whole decode at every
 * scale, with and without grey, and the row stream read partly then finished.
 */
#include "ctrove_imaging.h"

#include <stdlib.h>

#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ctrove_image_info info;
    ctrove_metadata metadata;
    char message[256];
    if (ctrove_jpeg_read_header(data, size, &info, &metadata, message, sizeof(message)) != 0) {
        return 0;
    }
    ctrove_metadata_free(&metadata);
    if (!fuzz_size_ok(info.width, info.height)) return 0;
    int scale = size > 0 ? 1 + data[size - 1] % 8 : 8;
    for (int grey = 0; grey < 2; grey++) {
        int channels = ctrove_jpeg_output_channels(&info, grey);
        size_t bytes = ((size_t)info.width * scale + 7) / 8 * (((size_t)info.height * scale + 7) / 8) *
                       (size_t)channels;
        uint8_t *buffer = malloc(bytes);
        if (buffer == NULL) return 0;
        ctrove_pixels pixels;
        ctrove_jpeg_decode(data, size, scale, grey, buffer, bytes, &pixels, message,
                           sizeof(message));
        /* A wrongly sized buffer must be refused, never written past. */
        ctrove_jpeg_decode(data, size, scale, grey, buffer, bytes / 2, &pixels, message,
                           sizeof(message));
        free(buffer);
    }
    ctrove_pixels layout;
    ctrove_jpeg_stream *stream =
        ctrove_jpeg_stream_open(data, size, scale, 0, &layout, message, sizeof(message));
    if (stream != NULL) {
        uint8_t *row = malloc((size_t)layout.width * (size_t)layout.channels);
        if (row != NULL) {
            for (int y = 0; y < layout.height / 2; y++) {
                if (ctrove_jpeg_stream_read_rows(stream, row, 1, message, sizeof(message)) != 0)
                    break;
            }
            ctrove_jpeg_stream_finish(stream, message, sizeof(message));
            free(row);
        }
        ctrove_jpeg_stream_close(stream);
    }
    return 0;
}
