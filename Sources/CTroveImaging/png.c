/*
 * PNG through libpng: header, decode to 8-bit, encode.
 *
 * One file on purpose (past ~400 lines): every entry point runs under the same setjmp
 * error handler and memory I/O context below, and the one-shot decode and the row stream
 * share the same read set-up (prepare_read, read_layout, collect_metadata). Split, those
 * static helpers would have to become extern symbols of the library. The row stream
 * hands plain 8-bit files' image data to png_idat.c, which needs none of them.
 */
#include "ctrove_imaging.h"
#include "png_idat.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>
#include <zlib.h>

// MARK: - Errors and I/O

typedef struct trove_png_context {
    char *message;
    size_t capacity;
    const uint8_t *data;
    size_t length;
    size_t offset;
    /* Encoder output. */
    uint8_t *output;
    size_t output_length;
    size_t output_capacity;
} trove_png_context;

static void on_png_error(png_structp png, png_const_charp text) {
    trove_png_context *context = png_get_error_ptr(png);
    if (context->message != NULL && context->capacity > 0) {
        snprintf(context->message, context->capacity, "%s", text);
    }
    png_longjmp(png, 1);
}

/*
 * Warnings (dropped ancillary chunks, odd profiles) never stop a decode and never print;
 * the first one is left in the message buffer for the caller.
 */
static void on_png_warning(png_structp png, png_const_charp text) {
    trove_png_context *context = png_get_error_ptr(png);
    if (context->message != NULL && context->capacity > 0 && context->message[0] == 0) {
        snprintf(context->message, context->capacity, "%s", text);
    }
}

static void read_from_memory(png_structp png, png_bytep target, size_t count) {
    trove_png_context *context = png_get_io_ptr(png);
    if (count > context->length - context->offset) {
        png_error(png, "Unexpected end of PNG data (the file is truncated)");
    }
    memcpy(target, context->data + context->offset, count);
    context->offset += count;
}

static void write_to_memory(png_structp png, png_bytep source, size_t count) {
    trove_png_context *context = png_get_io_ptr(png);
    if (count > context->output_capacity - context->output_length) {
        size_t wanted = context->output_capacity > 0 ? context->output_capacity * 2 : 65536;
        while (wanted - context->output_length < count) wanted *= 2;
        uint8_t *grown = realloc(context->output, wanted);
        if (grown == NULL) png_error(png, "Not enough memory for the encoded image");
        context->output = grown;
        context->output_capacity = wanted;
    }
    memcpy(context->output + context->output_length, source, count);
    context->output_length += count;
}

static void flush_memory(png_structp png) { (void)png; }

static int begin_read(trove_png_context *context, const uint8_t *data, size_t length,
                      char *message, size_t capacity) {
    memset(context, 0, sizeof(*context));
    context->message = message;
    context->capacity = capacity;
    context->data = data;
    context->length = length;
    if (message != NULL && capacity > 0) message[0] = 0;
    if (length < 8 || png_sig_cmp(data, 0, 8) != 0) {
        if (message != NULL && capacity > 0) {
            snprintf(message, capacity, length == 0 ? "Empty input file" : "Not a PNG file");
        }
        return -1;
    }
    /*
     * A chunk that claims more bytes than the file holds can never be read, but libpng
     * allocates (and clears) the claimed size before it reads: a 55-byte file declaring
     * a 2 GB text chunk cost 2 GB. The whole file is in memory, so its chunk lengths
     * are checked against it first.
     */
    size_t offset = 8;
    while (offset <= length && length - offset >= 8) {
        const uint8_t *chunk = data + offset;
        size_t declared = ((size_t)chunk[0] << 24) | ((size_t)chunk[1] << 16) |
                          ((size_t)chunk[2] << 8) | (size_t)chunk[3];
        size_t left = length - offset - 8;
        if (declared > left) {
            if (message != NULL && capacity > 0) {
                char type[5] = {0};
                for (int i = 0; i < 4; i++) {
                    type[i] = (chunk[4 + i] >= 0x20 && chunk[4 + i] < 0x7F) ? (char)chunk[4 + i]
                                                                             : '?';
                }
                snprintf(message, capacity,
                         "Unexpected end of PNG data: a '%s' chunk claims %zu bytes, %zu are "
                         "left (the file is truncated)",
                         type, declared, left);
            }
            return -1;
        }
        offset += 8 + declared + 4;
        if (memcmp(chunk + 4, "IEND", 4) == 0) break;
    }
    return 0;
}

static void prepare_read(png_structp png) {
    /* A damaged CRC in any chunk, critical or ancillary, is an error. */
    png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    /*
     * eXIf is kept as stored: libpng drops one that starts with "Exif\0\0" (the JPEG
     * APP1 prefix some writers copy), whose orientation viewers such as Pillow apply.
     */
    static const png_byte exif_chunk[5] = {'e', 'X', 'I', 'f', 0};
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_ALWAYS, exif_chunk, 1);
    /*
     * iCCP is kept as stored too: libpng discards a profile whose header it dislikes
     * (Photoshop's "Dot Gain 20%" has 0x01000000 in its rendering-intent field), which
     * libvips and Pillow keep and viewers use. iccp_profile inflates it.
     */
    static const png_byte iccp_chunk[5] = {'i', 'C', 'C', 'P', 0};
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_ALWAYS, iccp_chunk, 1);
}

/* A profile larger than this is not one (the largest real ones are a few megabytes). */
#define TROVE_MAX_ICC (16u << 20)

/*
 * The profile of a raw iCCP chunk (a name of 1-79 bytes, NUL, method 0, zlib data), or
 * NULL when the chunk is malformed; *length is set on success.
 */
static uint8_t *iccp_profile(const uint8_t *data, size_t size, size_t *length) {
    size_t name = 0;
    while (name < size && name < 80 && data[name] != 0) name++;
    if (name == 0 || name >= 80 || name + 2 > size || data[name + 1] != 0) return NULL;
    z_stream stream;
    memset(&stream, 0, sizeof(stream));
    if (inflateInit(&stream) != Z_OK) return NULL;
    stream.next_in = (Bytef *)(data + name + 2);
    stream.avail_in = (uInt)(size - name - 2);
    size_t capacity = 4096, used = 0;
    uint8_t *profile = malloc(capacity);
    int status = Z_OK;
    while (profile != NULL && status == Z_OK) {
        if (used == capacity) {
            uint8_t *grown = capacity < TROVE_MAX_ICC ? realloc(profile, capacity * 2) : NULL;
            if (grown == NULL) {
                free(profile);
                profile = NULL;
                break;
            }
            profile = grown;
            capacity *= 2;
        }
        stream.next_out = profile + used;
        stream.avail_out = (uInt)(capacity - used);
        status = inflate(&stream, Z_NO_FLUSH);
        used = capacity - stream.avail_out;
    }
    inflateEnd(&stream);
    /* At least a profile header (128 bytes) and a tag count. */
    if (profile != NULL && (status != Z_STREAM_END || used < 132)) {
        free(profile);
        profile = NULL;
    }
    if (profile != NULL) *length = used;
    return profile;
}

/* zlib data of a profile for an iCCP chunk named "ICC profile"; NULL when out of memory. */
static uint8_t *iccp_chunk_data(const uint8_t *icc, size_t icc_length, size_t *size) {
    static const char name[] = "ICC profile";
    size_t prefix = sizeof(name) + 1; /* the name, its NUL, compression method 0 */
    uLong bound = compressBound((uLong)icc_length);
    uint8_t *data = malloc(prefix + bound);
    if (data == NULL) return NULL;
    memcpy(data, name, sizeof(name));
    data[sizeof(name)] = 0;
    uLongf compressed = bound;
    if (compress2(data + prefix, &compressed, icc, (uLong)icc_length, 9) != Z_OK) {
        free(data);
        return NULL;
    }
    *size = prefix + compressed;
    return data;
}

static uint8_t *copy_block(const void *bytes, size_t length) {
    uint8_t *copy = malloc(length > 0 ? length : 1);
    if (copy != NULL) memcpy(copy, bytes, length);
    return copy;
}

static void collect_metadata(png_structp png, png_infop info, ctrove_metadata *metadata) {
    if (metadata == NULL) return;
    png_unknown_chunkp chunks = NULL;
    int chunk_count = png_get_unknown_chunks(png, info, &chunks);
    for (int index = 0; index < chunk_count; index++) {
        if (metadata->exif == NULL && memcmp(chunks[index].name, "eXIf", 4) == 0 &&
            chunks[index].size > 0) {
            metadata->exif = copy_block(chunks[index].data, chunks[index].size);
            if (metadata->exif != NULL) metadata->exif_length = chunks[index].size;
        } else if (metadata->icc == NULL && memcmp(chunks[index].name, "iCCP", 4) == 0) {
            size_t length = 0;
            metadata->icc = iccp_profile(chunks[index].data, chunks[index].size, &length);
            if (metadata->icc != NULL) metadata->icc_length = length;
        }
    }
    png_textp texts = NULL;
    int text_count = 0;
    png_get_text(png, info, &texts, &text_count);
    for (int index = 0; index < text_count; index++) {
        const png_text *text = &texts[index];
        size_t length = text->compression > 0 ? text->itxt_length : text->text_length;
        if (text->key == NULL || text->text == NULL || length == 0) continue;
        if (metadata->xmp == NULL && strcmp(text->key, "XML:com.adobe.xmp") == 0) {
            metadata->xmp = copy_block(text->text, length);
            if (metadata->xmp != NULL) metadata->xmp_length = length;
        } else if (metadata->exif_text == NULL &&
                   (strcmp(text->key, "Raw profile type exif") == 0 ||
                    strcmp(text->key, "Raw profile type APP1") == 0)) {
            metadata->exif_text = copy_block(text->text, length);
            if (metadata->exif_text != NULL) metadata->exif_text_length = length;
        }
    }
}

static void fill_info(png_structp png, png_infop info, ctrove_image_info *result) {
    png_uint_32 width = 0, height = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(png, info, &width, &height, &depth, &color, &interlace, NULL, NULL);
    result->width = (int)width;
    result->height = (int)height;
    result->components = png_get_channels(png, info);
    result->color_space = color;
    result->progressive = interlace != PNG_INTERLACE_NONE;
    result->bit_depth = depth;
    result->has_alpha =
        (color & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(png, info, PNG_INFO_tRNS) != 0;
}

// MARK: - Read

/*
 * Reads the header and sets up the output both decodes give: 8 bits a channel, palette
 * to RGB, tRNS to an alpha channel, grey with alpha as RGBA. With interlace_handling,
 * libpng assembles Adam7 passes itself (the one-shot decode); without, rows come pass by
 * pass (the stream). Returns the channels; a layout trove cannot take is a png_error.
 */
static int read_layout(png_structp png, png_infop info, int interlace_handling,
                       png_uint_32 *width, png_uint_32 *height, int *interlace,
                       size_t *stride, int *plain) {
    png_read_info(png, info);
    int depth = 0, color = 0;
    png_get_IHDR(png, info, width, height, &depth, &color, interlace, NULL, NULL);
    int transparent = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    /* Rows as stored are rows as given: no transform below changes them. */
    if (plain != NULL) {
        *plain = depth == 8 && !transparent && *interlace == PNG_INTERLACE_NONE &&
                 (color == PNG_COLOR_TYPE_GRAY || color == PNG_COLOR_TYPE_RGB ||
                  color == PNG_COLOR_TYPE_RGB_ALPHA);
    }
    png_set_expand(png);
    if (depth == 16) png_set_scale_16(png);
    if ((color & PNG_COLOR_MASK_COLOR) == 0 &&
        ((color & PNG_COLOR_MASK_ALPHA) != 0 || transparent)) {
        png_set_gray_to_rgb(png);
    }
    if (interlace_handling) png_set_interlace_handling(png);
    png_read_update_info(png, info);
    int channels = png_get_channels(png, info);
    *stride = (size_t)*width * (size_t)channels;
    if (png_get_rowbytes(png, info) != *stride || (channels != 1 && channels != 3 &&
                                                   channels != 4)) {
        png_error(png, "Unsupported PNG pixel layout");
    }
    return channels;
}

int ctrove_png_read_header(const uint8_t *data, size_t length, ctrove_image_info *result,
                           ctrove_metadata *metadata, char *message, size_t capacity) {
    trove_png_context context;
    memset(result, 0, sizeof(*result));
    if (metadata != NULL) memset(metadata, 0, sizeof(*metadata));
    if (begin_read(&context, data, length, message, capacity) != 0) return -1;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context, on_png_error,
                                             on_png_warning);
    if (png == NULL) return -1;
    png_infop info = png_create_info_struct(png);
    if (info == NULL || setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        ctrove_metadata_free(metadata);
        return -1;
    }
    prepare_read(png);
    png_set_read_fn(png, &context, read_from_memory);
    png_read_info(png, info);
    fill_info(png, info, result);
    collect_metadata(png, info, metadata);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

int ctrove_png_decode(const uint8_t *data, size_t length, uint8_t *buffer, size_t buffer_size,
                      ctrove_pixels *pixels, ctrove_metadata *metadata, char *message,
                      size_t capacity) {
    trove_png_context context;
    memset(pixels, 0, sizeof(*pixels));
    if (metadata != NULL) memset(metadata, 0, sizeof(*metadata));
    if (begin_read(&context, data, length, message, capacity) != 0) return -1;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context, on_png_error,
                                             on_png_warning);
    if (png == NULL) return -1;
    png_infop info = png_create_info_struct(png);
    png_bytep *volatile rows = NULL;
    if (info == NULL || setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(rows);
        ctrove_metadata_free(metadata);
        return -1;
    }
    prepare_read(png);
    png_set_read_fn(png, &context, read_from_memory);
    png_uint_32 width = 0, height = 0;
    int interlace = 0;
    size_t stride = 0;
    int channels = read_layout(png, info, 1, &width, &height, &interlace, &stride, NULL);
    if (buffer == NULL || stride * (size_t)height != buffer_size) {
        png_error(png, "Decoded layout differs from the header");
    }
    uint8_t *output = buffer;
    rows = malloc(sizeof(png_bytep) * (size_t)height);
    if (rows == NULL) png_error(png, "Not enough memory for the image");
    for (png_uint_32 y = 0; y < height; y++) rows[y] = output + stride * y;
    png_read_image(png, rows);
    /* Reads (and CRC-checks) the chunks after the image data, such as a late eXIf. */
    png_read_end(png, info);
    collect_metadata(png, info, metadata);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    pixels->data = output;
    pixels->width = (int)width;
    pixels->height = (int)height;
    pixels->channels = channels;
    return 0;
}

// MARK: - Write

int ctrove_png_encode(const uint8_t *pixels, int width, int height, int channels, int level,
                      const uint8_t *icc, size_t icc_length, uint8_t **output,
                      size_t *output_length, char *message, size_t capacity) {
    trove_png_context context;
    memset(&context, 0, sizeof(context));
    context.message = message;
    context.capacity = capacity;
    if (message != NULL && capacity > 0) message[0] = 0;
    *output = NULL;
    *output_length = 0;
    int color;
    switch (channels) {
    case 1: color = PNG_COLOR_TYPE_GRAY; break;
    case 3: color = PNG_COLOR_TYPE_RGB; break;
    case 4: color = PNG_COLOR_TYPE_RGB_ALPHA; break;
    default:
        if (message != NULL && capacity > 0) {
            snprintf(message, capacity, "PNG output needs 1, 3 or 4 channels");
        }
        return -1;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &context, on_png_error,
                                              on_png_warning);
    if (png == NULL) return -1;
    png_infop info = png_create_info_struct(png);
    /* Volatile: set after setjmp, freed on its error path. */
    uint8_t *volatile iccp = NULL;
    if (info == NULL || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(iccp);
        free(context.output);
        return -1;
    }
    png_set_write_fn(png, &context, write_to_memory, flush_memory);
    png_set_compression_level(png, level < 0 ? 0 : (level > 9 ? 9 : level));
    /* Adaptive filtering pays for itself on photographs and costs little at these sizes. */
    png_set_filter(png, PNG_FILTER_TYPE_BASE,
                   PNG_FILTER_SUB | PNG_FILTER_UP | PNG_FILTER_PAETH);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, color,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (icc != NULL && icc_length > 0) {
        /*
         * The profile goes out as a raw iCCP chunk, byte for byte, as libvips writes it:
         * libpng's own checks refuse the HP/Microsoft "sRGB IEC61966-2.1" profile that
         * Photoshop and Windows embed ("known incorrect sRGB profile") and profiles whose
         * rendering-intent field is out of range (Photoshop's "Dot Gain 20%"), which
         * every colour-managed viewer reads. The source's colours stay as they were.
         */
        size_t size = 0;
        iccp = iccp_chunk_data(icc, icc_length, &size);
        if (iccp == NULL) longjmp(png_jmpbuf(png), 1);
        static const png_byte iccp_name[5] = {'i', 'C', 'C', 'P', 0};
        png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_ALWAYS, iccp_name, 1);
        png_unknown_chunk chunk;
        memset(&chunk, 0, sizeof(chunk));
        memcpy(chunk.name, "iCCP", 5);
        chunk.data = iccp;
        chunk.size = size;
        chunk.location = PNG_HAVE_IHDR;
        png_set_unknown_chunks(png, info, &chunk, 1); /* copies the data */
        uint8_t *written = iccp;
        iccp = NULL;
        free(written);
    }
    png_write_info(png, info);
    size_t stride = (size_t)width * (size_t)channels;
    for (int y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)(pixels + stride * (size_t)y));
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    *output = context.output;
    *output_length = context.output_length;
    return 0;
}

int ctrove_png_verify(const uint8_t *data, size_t length, char *message, size_t capacity) {
    trove_png_context context;
    if (begin_read(&context, data, length, message, capacity) != 0) return -1;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context, on_png_error,
                                             on_png_warning);
    if (png == NULL) return -1;
    png_infop info = png_create_info_struct(png);
    uint8_t *volatile row = NULL;
    if (info == NULL || setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(row);
        return -1;
    }
    prepare_read(png);
    png_set_read_fn(png, &context, read_from_memory);
    png_read_info(png, info);
    /* No transformations and no interlace handling: each pass comes as its own rows. */
    int passes = png_set_interlace_handling(png) > 1 ? 7 : 1;
    png_read_update_info(png, info);
    png_uint_32 height = png_get_image_height(png, info);
    row = malloc(png_get_rowbytes(png, info) + 1);
    if (row == NULL) png_error(png, "Not enough memory for a row");
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < height; y++) png_read_row(png, row, NULL);
    }
    png_read_end(png, info);
    png_destroy_read_struct(&png, &info, NULL);
    free(row);
    return 0;
}

int ctrove_png_output_channels(const ctrove_image_info *info) {
    int color = info->color_space;
    if (color == PNG_COLOR_TYPE_GRAY) return info->has_alpha ? 4 : 1;
    if (color == PNG_COLOR_TYPE_GRAY_ALPHA || color == PNG_COLOR_TYPE_RGB_ALPHA) return 4;
    return info->has_alpha ? 4 : 3;
}

// MARK: - Row streaming

/*
 * PNGs are read a few rows at a time, so a resampler can consume them without the whole
 * image in memory. Interlaced files come as their Adam7 passes' own rows, in file order,
 * without libpng's interlace handling (which needs every row of the image in memory until
 * the last pass); the caller places each pass's pixels. Each call holds its own setjmp:
 * libpng may fail in any of them.
 */
struct ctrove_png_stream {
    trove_png_context context;
    png_structp png;
    png_infop info;
    int height;
    int next_row;
    size_t stride;
    /* Plain 8-bit files inflated whole (png_idat.c); libpng then reads no rows. */
    int whole;
    trove_idat_rows idat;
};

ctrove_png_stream *ctrove_png_stream_open(const uint8_t *data, size_t length,
                                          ctrove_pixels *layout, char *message,
                                          size_t capacity) {
    memset(layout, 0, sizeof(*layout));
    ctrove_png_stream *volatile stream = calloc(1, sizeof(ctrove_png_stream));
    if (stream == NULL) return NULL;
    if (begin_read(&stream->context, data, length, message, capacity) != 0) {
        free(stream);
        return NULL;
    }
    stream->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &stream->context,
                                         on_png_error, on_png_warning);
    if (stream->png == NULL) {
        free(stream);
        return NULL;
    }
    stream->info = png_create_info_struct(stream->png);
    if (stream->info == NULL || setjmp(png_jmpbuf(stream->png))) {
        ctrove_png_stream_close(stream);
        return NULL;
    }
    png_structp png = stream->png;
    png_infop info = stream->info;
    prepare_read(png);
    png_set_read_fn(png, &stream->context, read_from_memory);
    png_uint_32 width = 0, height = 0;
    int interlace = 0;
    int plain = 0;
    int channels =
        read_layout(png, info, 0, &width, &height, &interlace, &stream->stride, &plain);
    stream->height = (int)height;
    if (plain) {
        stream->whole =
            trove_idat_open(&stream->idat, data, length, (int)width, (int)height, channels) == 0;
    }
    if (interlace != PNG_INTERLACE_NONE) {
        /* libpng skips the passes that hold no pixel (narrow or short images). */
        png_uint_32 rows = 0;
        for (int pass = 0; pass < 7; pass++) {
            if (PNG_PASS_COLS(width, pass) != 0 && PNG_PASS_ROWS(height, pass) != 0) {
                rows += PNG_PASS_ROWS(height, pass);
            }
        }
        stream->height = (int)rows;
    }
    layout->width = (int)width;
    layout->height = (int)height;
    layout->channels = channels;
    return stream;
}

int ctrove_png_stream_read_rows(ctrove_png_stream *stream, uint8_t *rows, int count,
                                char *message, size_t capacity) {
    stream->context.message = message;
    stream->context.capacity = capacity;
    if (count < 0 || count > stream->height - stream->next_row) {
        if (message != NULL && capacity > 0) snprintf(message, capacity, "No more PNG rows");
        return -1;
    }
    if (stream->whole) {
        for (int index = 0; index < count; index++) {
            trove_idat_read_row(&stream->idat, rows + stream->stride * (size_t)index);
            stream->next_row++;
        }
        return 0;
    }
    if (setjmp(png_jmpbuf(stream->png))) return -1;
    for (int index = 0; index < count; index++) {
        png_read_row(stream->png, rows + stream->stride * (size_t)index, NULL);
        stream->next_row++;
    }
    return 0;
}

int ctrove_png_stream_finish(ctrove_png_stream *stream, ctrove_metadata *metadata,
                             char *message, size_t capacity) {
    stream->context.message = message;
    stream->context.capacity = capacity;
    if (metadata != NULL) memset(metadata, 0, sizeof(*metadata));
    if (stream->whole) {
        /* Every CRC, the zlib checksum and IEND were checked when the data was inflated. */
        if (setjmp(png_jmpbuf(stream->png))) {
            ctrove_metadata_free(metadata);
            return -1;
        }
        collect_metadata(stream->png, stream->info, metadata);
        return 0;
    }
    uint8_t *volatile row = malloc(stream->stride > 0 ? stream->stride : 1);
    if (row == NULL) return -1;
    if (setjmp(png_jmpbuf(stream->png))) {
        free(row);
        ctrove_metadata_free(metadata);
        return -1;
    }
    /* The rows nobody needed still have to be read: their CRC and zlib checks matter. */
    while (stream->next_row < stream->height) {
        png_read_row(stream->png, row, NULL);
        stream->next_row++;
    }
    png_read_end(stream->png, stream->info);
    collect_metadata(stream->png, stream->info, metadata);
    free(row);
    return 0;
}

void ctrove_png_stream_close(ctrove_png_stream *stream) {
    if (stream == NULL) return;
    if (stream->whole) trove_idat_close(&stream->idat);
    png_destroy_read_struct(&stream->png, &stream->info, NULL);
    free(stream);
}
