/*
 * JPEG through libjpeg-turbo: header, scaled decode, encode.
 *
 * One file on purpose (past ~400 lines): every entry point runs under the same setjmp
 * error manager below (with its promotion of damaging warnings to errors), and the
 * one-shot decode and the row stream share the same output set-up and CMYK conversion.
 * Split, those static helpers would have to become extern symbols of the library.
 */
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
        /* Kept for the caller (the first one) rather than printed. */
        if (cinfo->err->num_warnings++ == 0) store_message(cinfo);
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

/*
 * Every scale decodes the whole stream: at 1/8 libjpeg's IDCT reads only the DC terms,
 * but the AC scans are still entropy-decoded, so damage anywhere in the file is found
 * whatever the scale (skipping those scans would accept files a full decode refuses).
 */
/*
 * The decode's output set-up, the same for the one-shot decode and the row stream: the
 * colour space the caller gets (CMYK is converted to RGB row by row; the return value
 * says so), the DCT scale, and no block smoothing.
 */
static int set_up_output(j_decompress_ptr cinfo, int scale_eighths, int want_grey) {
    int cmyk = 0;
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
        cinfo->out_color_space = JCS_GRAYSCALE;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        cinfo->out_color_space = JCS_CMYK;
        cmyk = 1;
        break;
    case JCS_YCbCr:
        cinfo->out_color_space = want_grey ? JCS_GRAYSCALE : JCS_RGB;
        break;
    default:
        cinfo->out_color_space = JCS_RGB;
        break;
    }
    cinfo->scale_num = (unsigned int)scale_eighths;
    cinfo->scale_denom = 8;
    cinfo->dct_method = JDCT_ISLOW;
    /* Smoothing guesses AC terms of unfinished progressive files; trove wants the data. */
    cinfo->do_block_smoothing = FALSE;
    return cmyk;
}

static int decode(const uint8_t *data, size_t length, int scale_eighths, int want_grey,
                  uint8_t *buffer, size_t buffer_size, ctrove_pixels *pixels, char *message,
                  size_t capacity) {
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
    uint8_t *volatile row = NULL;
    cinfo.err = &error.pub;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(row);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    int cmyk = set_up_output(&cinfo, scale_eighths, want_grey);
    jpeg_start_decompress(&cinfo);
    int width = (int)cinfo.output_width, height = (int)cinfo.output_height;
    int channels = cmyk ? 3 : cinfo.output_components;
    size_t stride = (size_t)width * (size_t)channels;
    if (buffer == NULL || stride * (size_t)height != buffer_size) {
        fail(message, capacity, "Decoded layout differs from the header");
        longjmp(error.jump, 1);
    }
    uint8_t *output = buffer;
    if (cmyk) {
        row = malloc((size_t)width * 4);
        if (row == NULL) {
            fail(message, capacity, "Not enough memory for the decoded image");
            longjmp(error.jump, 1);
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
    free(row);
    pixels->data = output;
    pixels->width = width;
    pixels->height = height;
    pixels->channels = channels;
    return 0;
}

int ctrove_jpeg_decode(const uint8_t *data, size_t length, int scale_eighths, int want_grey,
                       uint8_t *buffer, size_t buffer_size, ctrove_pixels *pixels,
                       char *message, size_t capacity) {
    return decode(data, length, scale_eighths, want_grey, buffer, buffer_size, pixels, message,
                  capacity);
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

int ctrove_jpeg_output_channels(const ctrove_image_info *info, int want_grey) {
    if (info->color_space == JCS_GRAYSCALE) return 1;
    if (info->color_space == JCS_YCbCr && want_grey) return 1;
    return 3;
}

// MARK: - Row streaming

/*
 * A decode that hands out rows as the caller asks for them, so a resampler can consume
 * a large decode without the whole bitmap in memory. Each call holds its own setjmp.
 */
struct ctrove_jpeg_stream {
    struct jpeg_decompress_struct cinfo;
    trove_jpeg_error error;
    uint8_t *cmyk_row;
    int cmyk;
    int inverted;
    int width;
    int channels;
};

static void stream_release(ctrove_jpeg_stream *stream) {
    jpeg_destroy_decompress(&stream->cinfo);
    free(stream->cmyk_row);
    free(stream);
}

static void stream_bind(ctrove_jpeg_stream *stream, char *message, size_t capacity) {
    stream->error.message = message;
    stream->error.capacity = capacity;
    if (message != NULL && capacity > 0) message[0] = 0;
}

ctrove_jpeg_stream *ctrove_jpeg_stream_open(const uint8_t *data, size_t length,
                                            int scale_eighths, int want_grey,
                                            ctrove_pixels *layout, char *message,
                                            size_t capacity) {
    memset(layout, 0, sizeof(*layout));
    if (length == 0 || scale_eighths < 1 || scale_eighths > 8) {
        fail(message, capacity, length == 0 ? "Empty input file" : "Unsupported scale");
        return NULL;
    }
    ctrove_jpeg_stream *volatile stream = calloc(1, sizeof(ctrove_jpeg_stream));
    if (stream == NULL) return NULL;
    install_error(&stream->error, message, capacity);
    stream->cinfo.err = &stream->error.pub;
    if (setjmp(stream->error.jump)) {
        stream_release(stream);
        return NULL;
    }
    jpeg_create_decompress(&stream->cinfo);
    j_decompress_ptr cinfo = &stream->cinfo;
    jpeg_mem_src(cinfo, data, (unsigned long)length);
    jpeg_read_header(cinfo, TRUE);
    stream->cmyk = set_up_output(cinfo, scale_eighths, want_grey);
    jpeg_start_decompress(cinfo);
    stream->width = (int)cinfo->output_width;
    stream->channels = stream->cmyk ? 3 : cinfo->output_components;
    stream->inverted = cinfo->saw_Adobe_marker ? 1 : 0;
    if (stream->cmyk) {
        stream->cmyk_row = malloc((size_t)stream->width * 4);
        if (stream->cmyk_row == NULL) {
            fail(message, capacity, "Not enough memory for the decoded image");
            longjmp(stream->error.jump, 1);
        }
    }
    layout->width = stream->width;
    layout->height = (int)cinfo->output_height;
    layout->channels = stream->channels;
    return stream;
}

int ctrove_jpeg_stream_read_rows(ctrove_jpeg_stream *stream, uint8_t *rows, int count,
                                 char *message, size_t capacity) {
    stream_bind(stream, message, capacity);
    if (count < 0 ||
        (JDIMENSION)count > stream->cinfo.output_height - stream->cinfo.output_scanline) {
        fail(message, capacity, "No more JPEG rows");
        return -1;
    }
    if (setjmp(stream->error.jump)) return -1;
    size_t stride = (size_t)stream->width * (size_t)stream->channels;
    for (int index = 0; index < count; index++) {
        uint8_t *target = rows + stride * (size_t)index;
        JSAMPROW row[1] = {stream->cmyk ? stream->cmyk_row : target};
        if (jpeg_read_scanlines(&stream->cinfo, row, 1) != 1) {
            fail(message, capacity, "Premature end of JPEG file");
            return -1;
        }
        if (stream->cmyk) cmyk_to_rgb(stream->cmyk_row, target, stream->width, stream->inverted);
    }
    return 0;
}

int ctrove_jpeg_stream_finish(ctrove_jpeg_stream *stream, char *message, size_t capacity) {
    stream_bind(stream, message, capacity);
    /* Rows nobody needed are still decoded: damage there must not pass unnoticed. */
    if (stream->cinfo.output_scanline < stream->cinfo.output_height) {
        uint8_t *scratch = malloc((size_t)stream->width * (size_t)stream->channels);
        if (scratch == NULL) {
            fail(message, capacity, "Not enough memory for the decoded image");
            return -1;
        }
        while (stream->cinfo.output_scanline < stream->cinfo.output_height) {
            if (ctrove_jpeg_stream_read_rows(stream, scratch, 1, message, capacity) != 0) {
                free(scratch);
                return -1;
            }
        }
        free(scratch);
    }
    /* Armed only now: read_rows above used the same jump buffer for its own frame. */
    if (setjmp(stream->error.jump)) return -1;
    jpeg_finish_decompress(&stream->cinfo);
    return 0;
}

void ctrove_jpeg_stream_close(ctrove_jpeg_stream *stream) {
    if (stream != NULL) stream_release(stream);
}
