#ifndef CTROVE_IMAGING_H
#define CTROVE_IMAGING_H
/*
 * Whole-operation JPEG/PNG codecs over libjpeg-turbo and libpng.
 *
 * Every function runs one complete operation, holds the setjmp that the libraries need
 * for error recovery, never prints and never exits. Functions return 0 on success and
 * -1 on failure; on failure `message` (a caller buffer of `capacity` bytes) holds the
 * library's own explanation. Buffers handed back to the caller are allocated with
 * malloc and released with ctrove_free or ctrove_metadata_free.
 */
#include <stddef.h>
#include <stdint.h>

/* Colour spaces of a JPEG file, with the same values as libjpeg's J_COLOR_SPACE. */
enum {
    CTROVE_JPEG_UNKNOWN = 0,
    CTROVE_JPEG_GRAYSCALE = 1,
    CTROVE_JPEG_RGB = 2,
    CTROVE_JPEG_YCBCR = 3,
    CTROVE_JPEG_CMYK = 4,
    CTROVE_JPEG_YCCK = 5
};

/* What a header says, read without decoding pixels. */
typedef struct ctrove_image_info {
    int width;
    int height;
    /* JPEG: components in the file; PNG: channels before any transformation. */
    int components;
    /* JPEG: one of CTROVE_JPEG_*; PNG: the IHDR colour type. */
    int color_space;
    /* JPEG: progressive; PNG: Adam7 interlaced. */
    int progressive;
    int bit_depth;
    /* PNG with an alpha channel or a tRNS chunk. */
    int has_alpha;
} ctrove_image_info;

/* Metadata blocks found in a file; any pointer may be NULL. */
typedef struct ctrove_metadata {
    /* The TIFF stream of EXIF (JPEG APP1 after "Exif\0\0", or PNG eXIf). */
    uint8_t *exif;
    size_t exif_length;
    /* The XMP packet of a JPEG APP1 segment. */
    uint8_t *xmp;
    size_t xmp_length;
    /* The ICC profile (JPEG APP2 chunks reassembled, or PNG iCCP decompressed). */
    uint8_t *icc;
    size_t icc_length;
} ctrove_metadata;

/* Decoded pixels: rows top to bottom, 8-bit channels, no padding. */
typedef struct ctrove_pixels {
    uint8_t *data;
    int width;
    int height;
    int channels;
} ctrove_pixels;

void ctrove_free(void *pointer);
void ctrove_metadata_free(ctrove_metadata *metadata);

/* Reads the JPEG header and markers; `metadata` may be NULL. */
int ctrove_jpeg_read_header(const uint8_t *data, size_t length, ctrove_image_info *info,
                            ctrove_metadata *metadata, char *message, size_t capacity);

/*
 * Decodes a JPEG at scale `scale_eighths`/8 (1...8). Greyscale files give one channel,
 * everything else (YCbCr, RGB, CMYK, YCCK) three; `want_grey` asks for one channel from
 * YCbCr files too. A progressive file decoded at 1/8 reads only its DC scans.
 */
int ctrove_jpeg_decode(const uint8_t *data, size_t length, int scale_eighths, int want_grey,
                       ctrove_pixels *pixels, char *message, size_t capacity);

/*
 * Same as ctrove_jpeg_decode but never takes the DC-scan shortcut; kept so that the
 * shortcut can be checked against the library's own full decode.
 */
int ctrove_jpeg_decode_full(const uint8_t *data, size_t length, int scale_eighths,
                            int want_grey, ctrove_pixels *pixels, char *message,
                            size_t capacity);

/*
 * Encodes 1- or 3-channel pixels as baseline JPEG, 4:2:0, optimised Huffman tables,
 * the default JFIF APP0 and, when `icc` is not NULL, the profile as APP2 chunks.
 */
int ctrove_jpeg_encode(const uint8_t *pixels, int width, int height, int channels,
                       int quality, const uint8_t *icc, size_t icc_length, uint8_t **output,
                       size_t *output_length, char *message, size_t capacity);

/* Reads the PNG header and the chunks before the image data; `metadata` may be NULL. */
int ctrove_png_read_header(const uint8_t *data, size_t length, ctrove_image_info *info,
                           ctrove_metadata *metadata, char *message, size_t capacity);

/*
 * Decodes any PNG to 8-bit pixels: grey without transparency gives one channel, grey
 * with alpha or tRNS and colour with alpha or tRNS give RGBA, the rest RGB. Bad CRCs
 * are errors. `metadata` may be NULL.
 */
int ctrove_png_decode(const uint8_t *data, size_t length, ctrove_pixels *pixels,
                      ctrove_metadata *metadata, char *message, size_t capacity);

/* Encodes 1-, 3- or 4-channel pixels as PNG with zlib `level`, optional iCCP. */
int ctrove_png_encode(const uint8_t *pixels, int width, int height, int channels, int level,
                      const uint8_t *icc, size_t icc_length, uint8_t **output,
                      size_t *output_length, char *message, size_t capacity);

#endif
