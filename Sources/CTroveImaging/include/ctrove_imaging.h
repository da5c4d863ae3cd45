#ifndef CTROVE_IMAGING_H
#define CTROVE_IMAGING_H
/*
 * Whole-operation JPEG/PNG codecs over libjpeg-turbo and libpng.
 *
 * Every function runs one complete operation, holds the setjmp that the libraries need
 * for error recovery, never prints and never exits. Functions return 0 on success and
 * -1 on failure; on failure `message` (a caller buffer of `capacity` bytes) holds the
 * library's own explanation; on success it may hold the first warning, which the
 * operation survived. Buffers handed back to the caller are allocated with
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
    /*
     * The TIFF stream of EXIF (JPEG APP1 after "Exif\0\0"), or a PNG eXIf chunk as
     * stored (some writers keep the "Exif\0\0" prefix, which libpng itself would drop).
     */
    uint8_t *exif;
    size_t exif_length;
    /* The XMP packet of a JPEG APP1 segment or a PNG "XML:com.adobe.xmp" text chunk. */
    uint8_t *xmp;
    size_t xmp_length;
    /* PNG: the text of ImageMagick's "Raw profile type exif" (or "APP1") chunk, hex. */
    uint8_t *exif_text;
    size_t exif_text_length;
    /* The ICC profile (JPEG APP2 chunks reassembled, or PNG iCCP decompressed). */
    uint8_t *icc;
    size_t icc_length;
} ctrove_metadata;

/* Decoded pixels: rows top to bottom, 8-bit channels, no padding, in the caller's buffer. */
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
 * YCbCr files too. Every scale reads and checks the whole stream, so the verdict on a
 * damaged file never depends on the scale. Pixels are written to `buffer` (the caller sizes it from the header: ceil(width *
 * scale / 8) by ceil(height * scale / 8) by channels); any other size is an error.
 */
int ctrove_jpeg_decode(const uint8_t *data, size_t length, int scale_eighths, int want_grey,
                       uint8_t *buffer, size_t buffer_size, ctrove_pixels *pixels,
                       char *message, size_t capacity);

/*
 * Encodes 1- or 3-channel pixels as baseline JPEG, 4:2:0, optimised Huffman tables,
 * the default JFIF APP0 and, when `icc` is not NULL, the profile as APP2 chunks.
 */
int ctrove_jpeg_encode(const uint8_t *pixels, int width, int height, int channels,
                       int quality, const uint8_t *icc, size_t icc_length, uint8_t **output,
                       size_t *output_length, char *message, size_t capacity);

/*
 * Streaming form of ctrove_jpeg_decode: rows top to bottom, same conversions, same checks.
 * open returns NULL on failure and fills `layout` (no data); read_rows
 * appends `count` rows to `rows`; finish decodes what is left and checks the end of the
 * stream; close releases everything.
 */
typedef struct ctrove_jpeg_stream ctrove_jpeg_stream;
ctrove_jpeg_stream *ctrove_jpeg_stream_open(const uint8_t *data, size_t length,
                                            int scale_eighths, int want_grey,
                                            ctrove_pixels *layout, char *message,
                                            size_t capacity);
int ctrove_jpeg_stream_read_rows(ctrove_jpeg_stream *stream, uint8_t *rows, int count,
                                 char *message, size_t capacity);
int ctrove_jpeg_stream_finish(ctrove_jpeg_stream *stream, char *message, size_t capacity);
void ctrove_jpeg_stream_close(ctrove_jpeg_stream *stream);

/* Reads the PNG header and the chunks before the image data; `metadata` may be NULL. */
int ctrove_png_read_header(const uint8_t *data, size_t length, ctrove_image_info *info,
                           ctrove_metadata *metadata, char *message, size_t capacity);

/*
 * Decodes any PNG to 8-bit pixels: grey without transparency gives one channel, grey
 * with alpha or tRNS and colour with alpha or tRNS give RGBA, the rest RGB. Bad CRCs
 * are errors. Pixels are written to `buffer`, sized by the caller from the header (see
 * ctrove_png_output_channels). `metadata` may be NULL.
 */
int ctrove_png_decode(const uint8_t *data, size_t length, uint8_t *buffer, size_t buffer_size,
                      ctrove_pixels *pixels, ctrove_metadata *metadata, char *message,
                      size_t capacity);

/*
 * Streaming decode of a PNG, rows top to bottom, with the same conversions as
 * ctrove_png_decode. open returns NULL on failure and fills `layout` (no data) on
 * success; read_rows appends `count` rows of `layout->width * layout->channels` bytes to
 * `rows`; finish reads what is left, checks it, and collects metadata; close releases
 * everything. An interlaced (Adam7) file gives the rows of its passes instead, pass after
 * pass, skipping passes without pixels: PNG_PASS_ROWS(height, pass) rows per pass, each
 * holding PNG_PASS_COLS(width, pass) pixels at its start (the rest of the row is scratch).
 */
typedef struct ctrove_png_stream ctrove_png_stream;
ctrove_png_stream *ctrove_png_stream_open(const uint8_t *data, size_t length,
                                          ctrove_pixels *layout, char *message,
                                          size_t capacity);
int ctrove_png_stream_read_rows(ctrove_png_stream *stream, uint8_t *rows, int count,
                                char *message, size_t capacity);
int ctrove_png_stream_finish(ctrove_png_stream *stream, ctrove_metadata *metadata,
                             char *message, size_t capacity);
void ctrove_png_stream_close(ctrove_png_stream *stream);

/*
 * Reads every row of a PNG, interlaced or not, and the chunks after them, keeping no
 * pixels: the checks of ctrove_png_decode (CRCs, zlib stream, truncation) with a few rows
 * of memory.
 */
int ctrove_png_verify(const uint8_t *data, size_t length, char *message, size_t capacity);

/* Channels that ctrove_png_decode produces for a header read by ctrove_png_read_header. */
int ctrove_png_output_channels(const ctrove_image_info *info);

/* Channels that ctrove_jpeg_decode produces for a header read by ctrove_jpeg_read_header. */
int ctrove_jpeg_output_channels(const ctrove_image_info *info, int want_grey);

/* Encodes 1-, 3- or 4-channel pixels as PNG with zlib `level`, optional iCCP. */
int ctrove_png_encode(const uint8_t *pixels, int width, int height, int channels, int level,
                      const uint8_t *icc, size_t icc_length, uint8_t **output,
                      size_t *output_length, char *message, size_t capacity);

// The library versions, for `trove --version`.
#include "ctrove_versions.h"

#endif
