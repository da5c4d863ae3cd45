/*
 * The image data of a plain 8-bit PNG, inflated whole by libdeflate and unfiltered row by
 * row as the rows are taken.
 *
 * libpng inflates through zlib, which is most of a PNG decode; libdeflate inflates the
 * same data faster, and a decode here takes about two thirds of libpng's time on grainy
 * artwork (Benchmarks/images). libdeflate takes whole buffers only, so this path is
 * for images whose filtered rows fit in TROVE_IDAT_LIMIT; larger ones stream through
 * libpng. Anything unusual (a bad CRC, data after the stream, a chunk after the image
 * data other than IEND, a bad filter byte) declines the file, and libpng reads it as it
 * always did, with its own checks and messages: this path never reports an error.
 */
#include "png_idat.h"

#include <libdeflate.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* 64 MiB of filtered rows: 4096x4096 RGBA. */
#define TROVE_IDAT_LIMIT ((size_t)64 << 20)

// MARK: - Buffers kept by each thread

/*
 * A worker thumbnails one file after another: its buffers are kept for the next file, so
 * the pages are not faulted in (and zeroed by the kernel) again for every image.
 */
typedef struct idat_buffers {
    uint8_t *rows;
    size_t rows_capacity;
    uint8_t *compressed;
    size_t compressed_capacity;
    struct libdeflate_decompressor *decompressor;
} idat_buffers;

static pthread_key_t buffers_key;
static pthread_once_t buffers_once = PTHREAD_ONCE_INIT;

static void free_buffers(void *pointer) {
    idat_buffers *buffers = pointer;
    if (buffers == NULL) return;
    free(buffers->rows);
    free(buffers->compressed);
    if (buffers->decompressor != NULL) libdeflate_free_decompressor(buffers->decompressor);
    free(buffers);
}

static void make_key(void) { pthread_key_create(&buffers_key, free_buffers); }

/* The calling thread's buffers, taken: a second open on the same thread gets fresh ones. */
static idat_buffers *take_buffers(void) {
    pthread_once(&buffers_once, make_key);
    idat_buffers *buffers = pthread_getspecific(buffers_key);
    if (buffers != NULL) {
        pthread_setspecific(buffers_key, NULL);
        return buffers;
    }
    return calloc(1, sizeof(idat_buffers));
}

static void give_back(idat_buffers *buffers) {
    if (buffers == NULL) return;
    if (pthread_getspecific(buffers_key) == NULL) {
        pthread_setspecific(buffers_key, buffers);
    } else {
        free_buffers(buffers);
    }
}

static int reserve(uint8_t **buffer, size_t *capacity, size_t size) {
    if (*capacity >= size) return 0;
    free(*buffer);
    *buffer = malloc(size);
    *capacity = *buffer != NULL ? size : 0;
    return *buffer != NULL ? 0 : -1;
}

// MARK: - Chunks

static uint32_t big_endian(const uint8_t *bytes) {
    return ((uint32_t)bytes[0] << 24) | ((uint32_t)bytes[1] << 16) | ((uint32_t)bytes[2] << 8) |
           (uint32_t)bytes[3];
}

/* Whether the chunk at `chunk` (length, type, data, CRC; all inside the file) checks out. */
static int crc_matches(const uint8_t *chunk, uint32_t length) {
    uint32_t stored = big_endian(chunk + 8 + length);
    return (uint32_t)libdeflate_crc32(0, chunk + 4, (size_t)length + 4) == stored;
}

// MARK: - Open

int trove_idat_open(trove_idat_rows *rows, const uint8_t *data, size_t length, int width,
                    int height, int channels) {
    memset(rows, 0, sizeof(*rows));
    if (width <= 0 || height <= 0 || channels < 1 || channels > 4) return -1;
    size_t stride = (size_t)width * (size_t)channels;
    if ((size_t)height > TROVE_IDAT_LIMIT / (stride + 1)) return -1;
    size_t filtered = (size_t)height * (stride + 1);

    /* The run of IDAT chunks and what follows it; lengths were checked against the file. */
    size_t offset = 8, first = 0, end = 0, total = 0;
    int chunks = 0;
    while (offset + 12 <= length) {
        const uint8_t *chunk = data + offset;
        uint32_t size = big_endian(chunk);
        if ((size_t)size > length - offset - 12) return -1;
        int is_data = memcmp(chunk + 4, "IDAT", 4) == 0;
        if (is_data) {
            if (chunks > 0 && end != offset) return -1;
            if (!crc_matches(chunk, size)) return -1;
            if (chunks == 0) first = offset;
            chunks++;
            total += size;
            end = offset + 12 + size;
        } else if (chunks > 0) {
            /* Only IEND may follow the image data: later metadata is libpng's to read. */
            if (memcmp(chunk + 4, "IEND", 4) != 0 || size != 0 || !crc_matches(chunk, 0)) {
                return -1;
            }
            break;
        }
        offset += 12 + (size_t)size;
    }
    if (chunks == 0 || offset + 12 > length) return -1;

    idat_buffers *buffers = take_buffers();
    if (buffers == NULL) return -1;
    if (buffers->decompressor == NULL) buffers->decompressor = libdeflate_alloc_decompressor();
    if (buffers->decompressor == NULL ||
        reserve(&buffers->rows, &buffers->rows_capacity, filtered + 8) != 0) {
        give_back(buffers);
        return -1;
    }
    const uint8_t *stream = data + first + 8;
    if (chunks > 1) {
        if (reserve(&buffers->compressed, &buffers->compressed_capacity, total) != 0) {
            give_back(buffers);
            return -1;
        }
        size_t used = 0;
        for (size_t at = first; at < end;) {
            uint32_t size = big_endian(data + at);
            memcpy(buffers->compressed + used, data + at + 8, size);
            used += size;
            at += 12 + (size_t)size;
        }
        stream = buffers->compressed;
    }
    size_t read = 0, written = 0;
    enum libdeflate_result result = libdeflate_zlib_decompress_ex(
        buffers->decompressor, stream, total, buffers->rows, filtered, &read, &written);
    /* Short, long or followed by more data: libpng says which. */
    if (result != LIBDEFLATE_SUCCESS || read != total || written != filtered) {
        give_back(buffers);
        return -1;
    }
    for (size_t y = 0; y < (size_t)height; y++) {
        if (buffers->rows[y * (stride + 1)] > 4) {
            give_back(buffers);
            return -1;
        }
    }
    rows->buffers = buffers;
    rows->stride = stride;
    rows->channels = channels;
    rows->height = height;
    return 0;
}

// MARK: - Rows

static inline uint8_t paeth(int a, int b, int c) {
    int p = b - c, q = a - c;
    int pa = abs(p), pb = abs(q), pc = abs(p + q);
    return (uint8_t)((pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c));
}

/* Undoes one row's filter in place, a byte at a time; `prior` is the row above or NULL. */
static void unfilter_bytes(uint8_t *row, const uint8_t *prior, size_t count, size_t bpp,
                           int type) {
    size_t i;
    switch (type) {
    case 1: /* Sub */
        for (i = bpp; i < count; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]);
        break;
    case 2: /* Up */
        if (prior == NULL) break;
        for (i = 0; i < count; i++) row[i] = (uint8_t)(row[i] + prior[i]);
        break;
    case 3: /* Average */
        if (prior == NULL) {
            for (i = bpp; i < count; i++) row[i] = (uint8_t)(row[i] + (row[i - bpp] >> 1));
            break;
        }
        for (i = 0; i < bpp; i++) row[i] = (uint8_t)(row[i] + (prior[i] >> 1));
        for (; i < count; i++) row[i] = (uint8_t)(row[i] + ((row[i - bpp] + prior[i]) >> 1));
        break;
    case 4: /* Paeth: with no row above, the left byte */
        if (prior == NULL) {
            for (i = bpp; i < count; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]);
            break;
        }
        for (i = 0; i < bpp; i++) row[i] = (uint8_t)(row[i] + prior[i]);
        for (; i < count; i++) {
            row[i] = (uint8_t)(row[i] + paeth(row[i - bpp], prior[i], prior[i - bpp]));
        }
        break;
    default: /* None */
        break;
    }
}

#if defined(__SSE2__)
#include <emmintrin.h>

/*
 * Sub, Average and Paeth of 3- and 4-byte pixels, a pixel at a time in 16-bit lanes:
 * each pixel depends on the one before, so the bytes of one pixel are what runs in
 * parallel. Pixels are loaded as 4 bytes (the buffer has slack after the last row) and
 * stored as `bpp`.
 */
static inline __m128i load_pixel(const uint8_t *at) {
    int32_t word;
    memcpy(&word, at, 4);
    return _mm_unpacklo_epi8(_mm_cvtsi32_si128(word), _mm_setzero_si128());
}

static inline void store_pixel(uint8_t *at, __m128i value, size_t bpp) {
    int32_t word = _mm_cvtsi128_si32(_mm_packus_epi16(value, value));
    memcpy(at, &word, bpp);
}

static inline __m128i absolute(__m128i value) {
    return _mm_max_epi16(value, _mm_sub_epi16(_mm_setzero_si128(), value));
}

static inline __m128i choose(__m128i mask, __m128i yes, __m128i no) {
    return _mm_or_si128(_mm_and_si128(mask, yes), _mm_andnot_si128(mask, no));
}

static void unfilter_pixels(uint8_t *row, const uint8_t *prior, size_t count, size_t bpp,
                            int type) {
    const __m128i bytes = _mm_set1_epi16(0xFF);
    __m128i left = _mm_setzero_si128(), corner = _mm_setzero_si128();
    for (size_t i = 0; i < count; i += bpp) {
        __m128i x = load_pixel(row + i);
        __m128i up = load_pixel(prior + i);
        __m128i predicted;
        if (type == 1) {
            predicted = left;
        } else if (type == 3) {
            predicted = _mm_srli_epi16(_mm_add_epi16(left, up), 1);
        } else {
            __m128i p = _mm_sub_epi16(up, corner), q = _mm_sub_epi16(left, corner);
            __m128i pa = absolute(p), pb = absolute(q), pc = absolute(_mm_add_epi16(p, q));
            __m128i least = _mm_min_epi16(pc, _mm_min_epi16(pa, pb));
            predicted = choose(_mm_cmpeq_epi16(least, pa), left,
                               choose(_mm_cmpeq_epi16(least, pb), up, corner));
        }
        x = _mm_and_si128(_mm_add_epi16(x, predicted), bytes);
        store_pixel(row + i, x, bpp);
        left = x;
        corner = up;
    }
}
#endif

/* Undoes one row's filter in place; `prior` is the row above, unfiltered, or NULL. */
static void unfilter(uint8_t *row, const uint8_t *prior, size_t count, size_t bpp, int type) {
#if defined(__SSE2__)
    if (prior != NULL && (bpp == 3 || bpp == 4) && (type == 1 || type == 3 || type == 4)) {
        unfilter_pixels(row, prior, count, bpp, type);
        return;
    }
#endif
    unfilter_bytes(row, prior, count, bpp, type);
}

void trove_idat_read_row(trove_idat_rows *rows, uint8_t *target) {
    size_t line = rows->stride + 1;
    uint8_t *row = rows->buffers->rows + (size_t)rows->next * line;
    const uint8_t *prior = rows->next > 0 ? row - rows->stride : NULL;
    unfilter(row + 1, prior, rows->stride, (size_t)rows->channels, row[0]);
    memcpy(target, row + 1, rows->stride);
    rows->next++;
}

void trove_idat_close(trove_idat_rows *rows) {
    give_back(rows->buffers);
    memset(rows, 0, sizeof(*rows));
}
