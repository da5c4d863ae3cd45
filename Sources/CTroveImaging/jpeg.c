/* JPEG through libjpeg-turbo: header, scaled decode, encode. */
#include "ctrove_imaging.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>

// MARK: - Errors

/*
 * libjpeg reports errors by calling error_exit, which must not return; we jump back to
 * the operation's setjmp. Warnings that mean the pixel data is damaged (truncation, bad
 * Huffman codes) are promoted to errors so that a broken file never yields a grey-filled
 * image; harmless warnings (extraneous bytes) are ignored.
 */
typedef struct trove_jpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char *message;
    size_t capacity;
    /* Encoder output, kept here so that it survives a longjmp. */
    unsigned char *output;
    unsigned long output_length;
} trove_jpeg_error;

static void store_message(j_common_ptr cinfo) {
    trove_jpeg_error *error = (trove_jpeg_error *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    if (error->message != NULL && error->capacity > 0) {
        snprintf(error->message, error->capacity, "%s", text);
    }
}

static void on_error_exit(j_common_ptr cinfo) {
    store_message(cinfo);
    longjmp(((trove_jpeg_error *)cinfo->err)->jump, 1);
}

static void on_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return; /* trace messages */
    switch (cinfo->err->msg_code) {
    case JWRN_JPEG_EOF:
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_MUST_RESYNC:
        on_error_exit(cinfo);
        break;
    default:
        cinfo->err->num_warnings++;
        break;
    }
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void install_error(trove_jpeg_error *error, char *message, size_t capacity) {
    memset(error, 0, sizeof(*error));
    jpeg_std_error(&error->pub);
    error->pub.error_exit = on_error_exit;
    error->pub.emit_message = on_emit_message;
    error->pub.output_message = on_output_message;
    error->message = message;
    error->capacity = capacity;
    if (message != NULL && capacity > 0) message[0] = 0;
}

static void fail(char *message, size_t capacity, const char *text) {
    if (message != NULL && capacity > 0) snprintf(message, capacity, "%s", text);
}

// MARK: - Metadata

static const char exif_signature[6] = {'E', 'x', 'i', 'f', 0, 0};
static const char xmp_signature[] = "http://ns.adobe.com/xap/1.0/";

static uint8_t *copy_bytes(const uint8_t *bytes, size_t length) {
    uint8_t *copy = malloc(length > 0 ? length : 1);
    if (copy != NULL) memcpy(copy, bytes, length);
    return copy;
}

static void collect_metadata(j_decompress_ptr cinfo, ctrove_metadata *metadata) {
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker != NULL;
         marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 1) continue;
        if (metadata->exif == NULL && marker->data_length > sizeof(exif_signature) &&
            memcmp(marker->data, exif_signature, sizeof(exif_signature)) == 0) {
            size_t length = marker->data_length - sizeof(exif_signature);
            metadata->exif = copy_bytes(marker->data + sizeof(exif_signature), length);
            if (metadata->exif != NULL) metadata->exif_length = length;
        } else if (metadata->xmp == NULL && marker->data_length > sizeof(xmp_signature) &&
                   memcmp(marker->data, xmp_signature, sizeof(xmp_signature)) == 0) {
            size_t length = marker->data_length - sizeof(xmp_signature);
            metadata->xmp = copy_bytes(marker->data + sizeof(xmp_signature), length);
            if (metadata->xmp != NULL) metadata->xmp_length = length;
        }
    }
    JOCTET *icc = NULL;
    unsigned int icc_length = 0;
    /* A malformed chunk sequence only loses the profile; libjpeg warns, not fails. */
    if (jpeg_read_icc_profile(cinfo, &icc, &icc_length) && icc != NULL) {
        metadata->icc = icc;
        metadata->icc_length = icc_length;
    }
}

static void fill_info(j_decompress_ptr cinfo, ctrove_image_info *info) {
    info->width = (int)cinfo->image_width;
    info->height = (int)cinfo->image_height;
    info->components = cinfo->num_components;
    info->color_space = (int)cinfo->jpeg_color_space;
    info->progressive = cinfo->progressive_mode ? 1 : 0;
    info->bit_depth = cinfo->data_precision;
    info->has_alpha = 0;
}

int ctrove_jpeg_read_header(const uint8_t *data, size_t length, ctrove_image_info *info,
                            ctrove_metadata *metadata, char *message, size_t capacity) {
    struct jpeg_decompress_struct cinfo;
    trove_jpeg_error error;
    install_error(&error, message, capacity);
    memset(info, 0, sizeof(*info));
    if (metadata != NULL) memset(metadata, 0, sizeof(*metadata));
    if (length == 0) {
        fail(message, capacity, "Empty input file");
        return -1;
    }
    cinfo.err = &error.pub;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        ctrove_metadata_free(metadata);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    if (metadata != NULL) {
        jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
        jpeg_save_markers(&cinfo, JPEG_APP0 + 2, 0xFFFF);
    }
    jpeg_read_header(&cinfo, TRUE);
    fill_info(&cinfo, info);
    if (metadata != NULL) collect_metadata(&cinfo, metadata);
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

// MARK: - DC-only progressive streams

/*
 * At scale 1/8 libjpeg's IDCT reads only the DC coefficient of each block, so the AC
 * scans of a progressive file are entropy-decoded for nothing, and they are most of the
 * file. This copies the stream without the scans whose spectral selection starts above
 * zero; decoding the copy at 1/8 gives the same pixels several times faster. Returns
 * NULL when the stream is not progressive or does not parse cleanly, in which case the
 * caller decodes the original and lets libjpeg report any problem.
 */
static uint8_t *dc_only_stream(const uint8_t *data, size_t length, size_t *out_length) {
    if (length < 4 || data[0] != 0xFF || data[1] != 0xD8) return NULL;
    uint8_t *out = malloc(length);
    if (out == NULL) return NULL;
    size_t written = 0, position = 2;
    int progressive = 0;
    out[written++] = 0xFF;
    out[written++] = 0xD8;
    for (;;) {
        if (position >= length || data[position] != 0xFF) goto reject;
        while (position < length && data[position] == 0xFF) position++;
        if (position >= length) goto reject;
        uint8_t marker = data[position++];
        if (marker == 0xD9) {
            out[written++] = 0xFF;
            out[written++] = 0xD9;
            break;
        }
        if (marker == 0x00 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) {
            goto reject;
        }
        if (position + 2 > length) goto reject;
        size_t segment = ((size_t)data[position] << 8) | data[position + 1];
        if (segment < 2 || position + segment > length) goto reject;
        if (marker == 0xC2 || marker == 0xCA) {
            progressive = 1;
        } else if ((marker >= 0xC0 && marker <= 0xCF) && marker != 0xC4 && marker != 0xC8 &&
                   marker != 0xCC) {
            goto reject; /* a non-progressive frame */
        }
        if (marker != 0xDA) {
            out[written++] = 0xFF;
            out[written++] = marker;
            memcpy(out + written, data + position, segment);
            written += segment;
            position += segment;
            continue;
        }
        if (!progressive || segment < 6) goto reject;
        size_t components = data[position + 2];
        if (segment != 6 + 2 * components) goto reject;
        uint8_t spectral_start = data[position + 3 + 2 * components];
        /* Entropy-coded data runs to the next marker that is neither stuffing nor RSTn. */
        size_t end = position + segment;
        for (;;) {
            if (end + 1 >= length) goto reject;
            if (data[end] == 0xFF) {
                uint8_t next = data[end + 1];
                if (next != 0x00 && !(next >= 0xD0 && next <= 0xD7)) break;
            }
            end++;
        }
        if (spectral_start == 0) {
            out[written++] = 0xFF;
            out[written++] = 0xDA;
            memcpy(out + written, data + position, end - position);
            written += end - position;
        }
        position = end;
    }
    if (!progressive) goto reject;
    *out_length = written;
    return out;
reject:
    free(out);
    return NULL;
}

// MARK: - Decode

static void cmyk_to_rgb(const uint8_t *cmyk, uint8_t *rgb, int width, int inverted) {
    for (int x = 0; x < width; x++) {
        unsigned c = cmyk[0], m = cmyk[1], y = cmyk[2], k = cmyk[3];
        if (!inverted) {
            c = 255 - c;
            m = 255 - m;
            y = 255 - y;
            k = 255 - k;
        }
        /* Adobe files store inverted inks: the stored value is already 255 - ink. */
        rgb[0] = (uint8_t)((c * k + 127) / 255);
        rgb[1] = (uint8_t)((m * k + 127) / 255);
        rgb[2] = (uint8_t)((y * k + 127) / 255);
        cmyk += 4;
        rgb += 3;
    }
}

static int decode(const uint8_t *data, size_t length, int scale_eighths, int want_grey,
                  int allow_dc_only, ctrove_pixels *pixels, char *message, size_t capacity) {
    struct jpeg_decompress_struct cinfo;
    trove_jpeg_error error;
    install_error(&error, message, capacity);
    memset(pixels, 0, sizeof(*pixels));
    if (length == 0) {
        fail(message, capacity, "Empty input file");
        return -1;
    }
    if (scale_eighths < 1 || scale_eighths > 8) {
        fail(message, capacity, "Unsupported scale");
        return -1;
    }
    uint8_t *volatile rewritten = NULL;
    uint8_t *volatile output = NULL;
    uint8_t *volatile row = NULL;
    size_t rewritten_length = 0;
    if (allow_dc_only && scale_eighths == 1) {
        rewritten = dc_only_stream(data, length, &rewritten_length);
    }
    cinfo.err = &error.pub;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(rewritten);
        free(output);
        free(row);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    if (rewritten != NULL) {
        jpeg_mem_src(&cinfo, rewritten, (unsigned long)rewritten_length);
    } else {
        jpeg_mem_src(&cinfo, data, (unsigned long)length);
    }
    jpeg_read_header(&cinfo, TRUE);
    int cmyk = 0;
    switch (cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE:
        cinfo.out_color_space = JCS_GRAYSCALE;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        cinfo.out_color_space = JCS_CMYK;
        cmyk = 1;
        break;
    case JCS_YCbCr:
        cinfo.out_color_space = want_grey ? JCS_GRAYSCALE : JCS_RGB;
        break;
    default:
        cinfo.out_color_space = JCS_RGB;
        break;
    }
    cinfo.scale_num = (unsigned int)scale_eighths;
    cinfo.scale_denom = 8;
    cinfo.dct_method = JDCT_ISLOW;
    /* Smoothing guesses missing AC terms; the DC-only stream must not trigger it. */
    cinfo.do_block_smoothing = FALSE;
    jpeg_start_decompress(&cinfo);
    int width = (int)cinfo.output_width, height = (int)cinfo.output_height;
    int channels = cmyk ? 3 : cinfo.output_components;
    size_t stride = (size_t)width * (size_t)channels;
    output = malloc(stride * (size_t)height);
    if (output == NULL) {
        fail(message, capacity, "Not enough memory for the decoded image");
        jpeg_destroy_decompress(&cinfo);
        free(rewritten);
        return -1;
    }
    if (cmyk) {
        row = malloc((size_t)width * 4);
        if (row == NULL) {
            fail(message, capacity, "Not enough memory for the decoded image");
            jpeg_destroy_decompress(&cinfo);
            free(rewritten);
            free(output);
            return -1;
        }
    }
    int inverted = cinfo.saw_Adobe_marker ? 1 : 0;
    while (cinfo.output_scanline < cinfo.output_height) {
        uint8_t *target = output + stride * cinfo.output_scanline;
        JSAMPROW rows[1] = {cmyk ? row : target};
        if (jpeg_read_scanlines(&cinfo, rows, 1) != 1) {
            fail(message, capacity, "Premature end of JPEG file");
            longjmp(error.jump, 1);
        }
        if (cmyk) cmyk_to_rgb(row, target, width, inverted);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(rewritten);
    free(row);
    pixels->data = output;
    pixels->width = width;
    pixels->height = height;
    pixels->channels = channels;
    return 0;
}

int ctrove_jpeg_decode(const uint8_t *data, size_t length, int scale_eighths, int want_grey,
                       ctrove_pixels *pixels, char *message, size_t capacity) {
    return decode(data, length, scale_eighths, want_grey, 1, pixels, message, capacity);
}

int ctrove_jpeg_decode_full(const uint8_t *data, size_t length, int scale_eighths,
                            int want_grey, ctrove_pixels *pixels, char *message,
                            size_t capacity) {
    return decode(data, length, scale_eighths, want_grey, 0, pixels, message, capacity);
}

// MARK: - Encode

int ctrove_jpeg_encode(const uint8_t *pixels, int width, int height, int channels,
                       int quality, const uint8_t *icc, size_t icc_length, uint8_t **output,
                       size_t *output_length, char *message, size_t capacity) {
    struct jpeg_compress_struct cinfo;
    trove_jpeg_error error;
    install_error(&error, message, capacity);
    *output = NULL;
    *output_length = 0;
    if ((channels != 1 && channels != 3) || width <= 0 || height <= 0) {
        fail(message, capacity, "JPEG output needs 1 or 3 channels and a non-empty image");
        return -1;
    }
    cinfo.err = &error.pub;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(error.output);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &error.output, &error.output_length);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = channels;
    cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality < 1 ? 1 : (quality > 100 ? 100 : quality), TRUE);
    cinfo.optimize_coding = TRUE;
    cinfo.dct_method = JDCT_ISLOW;
    if (channels == 3) {
        cinfo.comp_info[0].h_samp_factor = 2;
        cinfo.comp_info[0].v_samp_factor = 2;
        cinfo.comp_info[1].h_samp_factor = cinfo.comp_info[1].v_samp_factor = 1;
        cinfo.comp_info[2].h_samp_factor = cinfo.comp_info[2].v_samp_factor = 1;
    }
    jpeg_start_compress(&cinfo, TRUE);
    if (icc != NULL && icc_length > 0) {
        jpeg_write_icc_profile(&cinfo, icc, (unsigned int)icc_length);
    }
    size_t stride = (size_t)width * (size_t)channels;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW rows[1] = {(JSAMPROW)(pixels + stride * cinfo.next_scanline)};
        jpeg_write_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *output = error.output;
    *output_length = error.output_length;
    return 0;
}
