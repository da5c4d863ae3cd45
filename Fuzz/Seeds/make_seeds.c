/*
 * Writes the seed corpora of the image fuzz targets: small JPEGs (baseline, grey,
 * progressive, with EXIF/XMP/ICC segments), PNGs (RGB, RGBA, grey, interlaced, with
 * eXIf, iCCP and text chunks), ICC profiles and metadata blocks. Deterministic.
 *   make_seeds DIR   ->   DIR/{jpeg_decode,jpeg_scales,png_decode,icc,metadata}/seed-N
 * Fuzz/run builds and runs it into .build-fuzz/seeds before fuzzing.
 */
#include "ctrove_imaging.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jpeglib.h>
#include <png.h>
#include <zlib.h>

static const char *root;

static void save(const char *target, int index, const uint8_t *bytes, size_t length) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", root, target);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/%s/seed-%d", root, target, index);
    FILE *file = fopen(path, "wb");
    if (file == NULL) {
        perror(path);
        exit(1);
    }
    fwrite(bytes, 1, length, file);
    fclose(file);
}

static void picture(uint8_t *pixels, int width, int height, int channels) {
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) {
            uint8_t *p = pixels + ((size_t)y * width + x) * channels;
            for (int c = 0; c < channels; c++) p[c] = (uint8_t)(x * 9 + y * 5 + c * 60 + (x ^ y));
            if (channels == 4) p[3] = (uint8_t)(x < width / 2 ? 255 : x * 8);
        }
    }
}

static const uint8_t tiff_orientation_6[] = {
    'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0};

static size_t progressive_jpeg(int width, int height, int with_metadata, uint8_t **out) {
    uint8_t *pixels = malloc((size_t)width * height * 3);
    picture(pixels, width, height, 3);
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr error;
    cinfo.err = jpeg_std_error(&error);
    jpeg_create_compress(&cinfo);
    unsigned long length = 0;
    *out = NULL;
    jpeg_mem_dest(&cinfo, out, &length);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, 85, TRUE);
    jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    if (with_metadata) {
        uint8_t exif[6 + sizeof(tiff_orientation_6)] = {'E', 'x', 'i', 'f', 0, 0};
        memcpy(exif + 6, tiff_orientation_6, sizeof(tiff_orientation_6));
        jpeg_write_marker(&cinfo, JPEG_APP0 + 1, exif, sizeof(exif));
        static const char xmp[] = "http://ns.adobe.com/xap/1.0/\0<x:xmpmeta><rdf:Description "
                                  "tiff:Orientation=\"3\"/></x:xmpmeta>";
        jpeg_write_marker(&cinfo, JPEG_APP0 + 1, (const JOCTET *)xmp, sizeof(xmp) - 1);
    }
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = pixels + (size_t)cinfo.next_scanline * width * 3;
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    free(pixels);
    return length;
}

static void append_png_chunk(uint8_t **png, size_t *length, size_t at, const char *type,
                             const uint8_t *data, size_t count) {
    uint8_t *grown = malloc(*length + count + 12);
    memcpy(grown, *png, at);
    uint8_t *chunk = grown + at;
    chunk[0] = (uint8_t)(count >> 24);
    chunk[1] = (uint8_t)(count >> 16);
    chunk[2] = (uint8_t)(count >> 8);
    chunk[3] = (uint8_t)count;
    memcpy(chunk + 4, type, 4);
    memcpy(chunk + 8, data, count);
    uLong crc = crc32(0, chunk + 4, (uInt)(count + 4));
    chunk[8 + count] = (uint8_t)(crc >> 24);
    chunk[9 + count] = (uint8_t)(crc >> 16);
    chunk[10 + count] = (uint8_t)(crc >> 8);
    chunk[11 + count] = (uint8_t)crc;
    memcpy(grown + at + 12 + count, *png + at, *length - at);
    free(*png);
    *png = grown;
    *length += count + 12;
}

typedef struct {
    uint8_t *data;
    size_t length, capacity;
} buffer;

static void write_buffer(png_structp png, png_bytep bytes, size_t count) {
    buffer *target = png_get_io_ptr(png);
    if (target->length + count > target->capacity) {
        target->capacity = (target->length + count) * 2;
        target->data = realloc(target->data, target->capacity);
    }
    memcpy(target->data + target->length, bytes, count);
    target->length += count;
}

static void no_flush(png_structp png) { (void)png; }

static buffer interlaced_png(int width, int height) {
    buffer out = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    png_set_write_fn(png, &out, write_buffer, no_flush);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB_ALPHA,
                 PNG_INTERLACE_ADAM7, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    uint8_t *pixels = malloc((size_t)width * height * 4);
    picture(pixels, width, height, 4);
    png_bytep *rows = malloc(sizeof(png_bytep) * (size_t)height);
    for (int y = 0; y < height; y++) rows[y] = pixels + (size_t)y * width * 4;
    png_write_image(png, rows);
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    free(rows);
    free(pixels);
    return out;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: make_seeds DIR\n");
        return 2;
    }
    root = argv[1];
    mkdir(root, 0755);
    char message[256];
    uint8_t *out = NULL;
    size_t length = 0;
    int n = 0;

    /* JPEG: baseline colour, grey, odd sizes, progressive plain and with metadata. */
    int sizes[][2] = {{16, 16}, {33, 17}, {64, 48}};
    for (int s = 0; s < 3; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        uint8_t *pixels = malloc((size_t)w * h * 3);
        picture(pixels, w, h, 3);
        for (int channels = 1; channels <= 3; channels += 2) {
            ctrove_jpeg_encode(pixels, w, h, channels, 80, NULL, 0, &out, &length, message,
                               sizeof(message));
            save("jpeg_decode", n, out, length);
            save("jpeg_scales", n, out, length);
            n++;
            ctrove_free(out);
        }
        free(pixels);
        for (int meta = 0; meta < 2; meta++) {
            length = progressive_jpeg(w, h, meta, &out);
            save("jpeg_decode", n, out, length);
            save("jpeg_scales", n, out, length);
            n++;
            free(out);
        }
    }

    /* PNG: grey, RGB, RGBA; interlaced; with eXIf (plain and prefixed), XMP and text. */
    n = 0;
    for (int channels = 1; channels <= 4; channels++) {
        if (channels == 2) continue;
        uint8_t pixels[24 * 20 * 4];
        picture(pixels, 24, 20, channels);
        ctrove_png_encode(pixels, 24, 20, channels, 6, NULL, 0, &out, &length, message,
                          sizeof(message));
        uint8_t *png = malloc(length);
        memcpy(png, out, length);
        ctrove_free(out);
        save("png_decode", n++, png, length);
        if (channels == 3) {
            uint8_t prefixed[6 + sizeof(tiff_orientation_6)] = {'E', 'x', 'i', 'f', 0, 0};
            memcpy(prefixed + 6, tiff_orientation_6, sizeof(tiff_orientation_6));
            append_png_chunk(&png, &length, 33, "eXIf", prefixed, sizeof(prefixed));
            static const char xmp[] = "XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta tiff:Orientation=\"8\"/>";
            append_png_chunk(&png, &length, 33, "iTXt", (const uint8_t *)xmp, sizeof(xmp) - 1);
            static const char raw[] = "Raw profile type exif\0\nexif\n      26\n"
                                      "49492a00080000000100120103000100000006000000000000000000\n";
            append_png_chunk(&png, &length, 33, "tEXt", (const uint8_t *)raw, sizeof(raw) - 1);
            save("png_decode", n++, png, length);
            /* The same eXIf after the pixels. */
            append_png_chunk(&png, &length, length - 12, "eXIf", tiff_orientation_6,
                             sizeof(tiff_orientation_6));
            save("png_decode", n++, png, length);
        }
        free(png);
    }
    buffer interlaced = interlaced_png(19, 13);
    save("png_decode", n++, interlaced.data, interlaced.length);
    free(interlaced.data);

    /* ICC: a small well-formed RGB profile with one tag; metadata: EXIF, XMP, raw text. */
    uint8_t profile[300] = {0};
    profile[2] = 300 >> 8;
    profile[3] = 300 & 0xFF;
    memcpy(profile + 4, "trov", 4);
    profile[8] = 2;
    profile[9] = 0x10;
    memcpy(profile + 12, "mntrRGB XYZ ", 12);
    memcpy(profile + 36, "acsp", 4);
    static const uint8_t d50[12] = {0, 0, 0xF6, 0xD6, 0, 1, 0, 0, 0, 0, 0xD3, 0x2D};
    memcpy(profile + 68, d50, 12);
    profile[131] = 1;
    memcpy(profile + 132, "desc\0\0\0\x90\0\0\0\x40", 12);
    memcpy(profile + 144, "desc", 4);
    for (int index = 0; index < 4; index++) {
        uint8_t chunked[301];
        chunked[0] = (uint8_t)index;
        memcpy(chunked + 1, profile, 300);
        save("icc", index, chunked, sizeof(chunked));
    }
    save("metadata", 0, tiff_orientation_6, sizeof(tiff_orientation_6));
    static const char xmp[] = "\x01<rdf:Description tiff:Orientation=\"6\"/>"
                              "<tiff:Orientation>3</tiff:Orientation>";
    save("metadata", 1, (const uint8_t *)xmp, sizeof(xmp) - 1);
    static const char raw[] = "\x02\nexif\n      32\n457869660000"
                              "49492a00080000000100120103000100000006000000000000000000\n";
    save("metadata", 2, (const uint8_t *)raw, sizeof(raw) - 1);
    save("metadata", 3, profile, sizeof(profile));
    return 0;
}
