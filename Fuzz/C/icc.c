/*
 * The ICC paths: the input as a profile split over JPEG APP2 chunks (libjpeg reassembles
 * them) and as a PNG iCCP chunk (libpng inflates and checks it), then written back into
 * a JPEG and a PNG as `trove images` does.
 */
#include "ctrove_imaging.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

static uint8_t *jpeg_base, *png_base;
static size_t jpeg_base_length, png_base_length;

static void make_bases(void) {
    if (jpeg_base != NULL) return;
    uint8_t pixels[8 * 8 * 3];
    for (size_t i = 0; i < sizeof(pixels); i++) pixels[i] = (uint8_t)(i * 7);
    char message[256];
    ctrove_jpeg_encode(pixels, 8, 8, 3, 90, NULL, 0, &jpeg_base, &jpeg_base_length, message,
                       sizeof(message));
    ctrove_png_encode(pixels, 8, 8, 3, 1, NULL, 0, &png_base, &png_base_length, message,
                      sizeof(message));
}

static void put32(uint8_t *at, uint32_t value) {
    at[0] = (uint8_t)(value >> 24);
    at[1] = (uint8_t)(value >> 16);
    at[2] = (uint8_t)(value >> 8);
    at[3] = (uint8_t)value;
}

static void write_back(const ctrove_metadata *metadata) {
    if (metadata->icc == NULL) return;
    uint8_t pixels[4 * 4 * 3] = {0};
    uint8_t *output = NULL;
    size_t length = 0;
    char message[256];
    if (ctrove_png_encode(pixels, 4, 4, 3, 1, metadata->icc, metadata->icc_length, &output,
                          &length, message, sizeof(message)) == 0) {
        ctrove_free(output);
    }
    if (ctrove_jpeg_encode(pixels, 4, 4, 3, 80, metadata->icc, metadata->icc_length, &output,
                           &length, message, sizeof(message)) == 0) {
        ctrove_free(output);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    make_bases();
    if (jpeg_base == NULL || png_base == NULL || size < 1) return 0;
    char message[256];
    ctrove_image_info info;
    ctrove_metadata metadata;

    /* JPEG: the first byte says how many chunks (1-4) and whether to number them wrongly. */
    int chunks = 1 + (data[0] & 3);
    int misnumber = (data[0] & 4) != 0;
    const uint8_t *profile = data + 1;
    size_t profile_length = size - 1;
    size_t part = profile_length / (size_t)chunks + 1;
    uint8_t *jpeg = malloc(jpeg_base_length + profile_length + (size_t)chunks * 20);
    if (jpeg == NULL) return 0;
    size_t at = 0;
    jpeg[at++] = 0xFF;
    jpeg[at++] = 0xD8;
    for (int index = 0; index < chunks; index++) {
        size_t start = (size_t)index * part;
        size_t count = start >= profile_length ? 0 : profile_length - start;
        if (count > part) count = part;
        if (count > 65000) count = 65000;
        size_t segment = 2 + 14 + count;
        jpeg[at++] = 0xFF;
        jpeg[at++] = 0xE2;
        jpeg[at++] = (uint8_t)(segment >> 8);
        jpeg[at++] = (uint8_t)segment;
        memcpy(jpeg + at, "ICC_PROFILE", 12);
        at += 12;
        jpeg[at++] = (uint8_t)(misnumber ? chunks - index : index + 1);
        jpeg[at++] = (uint8_t)chunks;
        memcpy(jpeg + at, profile + start, count);
        at += count;
    }
    memcpy(jpeg + at, jpeg_base + 2, jpeg_base_length - 2);
    at += jpeg_base_length - 2;
    if (ctrove_jpeg_read_header(jpeg, at, &info, &metadata, message, sizeof(message)) == 0) {
        write_back(&metadata);
        ctrove_metadata_free(&metadata);
    }
    free(jpeg);

    /* PNG: the whole input as the profile of an iCCP chunk right after IHDR. */
    uLongf compressed_length = compressBound(size);
    uint8_t *png = malloc(png_base_length + compressed_length + 64);
    if (png == NULL) return 0;
    size_t header = 8 + 25;
    memcpy(png, png_base, header);
    uint8_t *chunk = png + header;
    memcpy(chunk + 4, "iCCPicc", 8); /* type, name "icc", its NUL */
    chunk[12] = 0;                    /* compression method */
    if (compress2(chunk + 13, &compressed_length, data, size, 1) != Z_OK) {
        free(png);
        return 0;
    }
    size_t data_length = 5 + compressed_length;
    put32(chunk, (uint32_t)data_length);
    put32(chunk + 8 + data_length, (uint32_t)crc32(0, chunk + 4, (uInt)(4 + data_length)));
    size_t length = header + 12 + data_length;
    memcpy(png + length, png_base + header, png_base_length - header);
    length += png_base_length - header;
    if (ctrove_png_read_header(png, length, &info, &metadata, message, sizeof(message)) == 0) {
        write_back(&metadata);
        ctrove_metadata_free(&metadata);
    }
    free(png);
    return 0;
}
