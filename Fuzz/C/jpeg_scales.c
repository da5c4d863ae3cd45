/*
 * Differential target: every input decoded at 1/8 and at full scale, whole and streamed.
 * The verdict (accepted or refused) must not depend on the scale or on the call: a file
 * accepted by one and refused by another aborts, which libFuzzer reports as a finding.
 */
#include "ctrove_imaging.h"

#include <stdio.h>
#include <stdlib.h>

#include "fuzz_support.h"

static int decode_at(const uint8_t *data, size_t size, int scale, const ctrove_image_info *info) {
    int channels = ctrove_jpeg_output_channels(info, 0);
    size_t width = ((size_t)info->width * scale + 7) / 8;
    size_t height = ((size_t)info->height * scale + 7) / 8;
    size_t bytes = width * height * (size_t)channels;
    uint8_t *buffer = malloc(bytes > 0 ? bytes : 1);
    if (buffer == NULL) return -2;
    ctrove_pixels pixels;
    char message[256];
    int status = ctrove_jpeg_decode(data, size, scale, 0, buffer, bytes, &pixels, message,
                                    sizeof(message));
    free(buffer);
    return status;
}

static int stream_at(const uint8_t *data, size_t size, int scale) {
    ctrove_pixels layout;
    char message[256];
    ctrove_jpeg_stream *stream =
        ctrove_jpeg_stream_open(data, size, scale, 0, &layout, message, sizeof(message));
    if (stream == NULL) return -1;
    int status = ctrove_jpeg_stream_finish(stream, message, sizeof(message));
    ctrove_jpeg_stream_close(stream);
    return status;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ctrove_image_info info;
    char message[256];
    if (ctrove_jpeg_read_header(data, size, &info, NULL, message, sizeof(message)) != 0) {
        return 0;
    }
    if (!fuzz_size_ok(info.width, info.height)) return 0;
    int small = decode_at(data, size, 1, &info);
    int full = decode_at(data, size, 8, &info);
    int streamed = stream_at(data, size, 1);
    if (small == -2 || full == -2) return 0;
    if (small != full || streamed != full) {
        fprintf(stderr, "verdicts differ: 1/8 %d, 8/8 %d, streamed 1/8 %d\n", small, full,
                streamed);
        abort();
    }
    return 0;
}
