/*
 * The floor under PNG thumbnails: libpng decoding the same files to 8-bit rows, as
 * trove's libpng reader sets it up (palette and tRNS expanded, 16 bits scaled, grey with
 * alpha as RGBA, every CRC checked), with nothing done to the rows: no resampling, no
 * encoding, no file written. Each file is read into memory first, as trove reads it.
 * (trove inflates plain 8-bit files with libdeflate instead, png_idat.c; this floor stays
 * libpng's own, the reference the target is set against.)
 *
 *   cc -O2 png_decode_floor.c -lpng -o png-decode-floor
 *   png-decode-floor JOBS REPEAT FILE...   # prints the best images/s over REPEAT runs
 *
 * JOBS processes share the files (file i goes to process i % JOBS), as `trove images
 * --jobs JOBS` shares them among its workers.
 */
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    const uint8_t *data;
    size_t length;
    size_t offset;
} source;

static void read_source(png_structp png, png_bytep target, size_t count) {
    source *from = png_get_io_ptr(png);
    if (count > from->length - from->offset) png_error(png, "truncated");
    memcpy(target, from->data + from->offset, count);
    from->offset += count;
}

static uint8_t *read_file(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    uint8_t *data = malloc(size > 0 ? (size_t)size : 1);
    if (data != NULL && fread(data, 1, (size_t)size, file) != (size_t)size) {
        free(data);
        data = NULL;
    }
    fclose(file);
    *length = (size_t)size;
    return data;
}

/* Decodes one file row by row; returns 0 when every row and the end were read. */
static int decode(const char *path) {
    size_t length = 0;
    uint8_t *data = read_file(path, &length);
    if (data == NULL) return -1;
    source from = {data, length, 0};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    uint8_t *volatile row = NULL;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(row);
        free(data);
        return -1;
    }
    png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
    png_set_read_fn(png, &from, read_source);
    png_read_info(png, info);
    png_uint_32 width = 0, height = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(png, info, &width, &height, &depth, &color, &interlace, NULL, NULL);
    int transparent = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    png_set_expand(png);
    if (depth == 16) png_set_scale_16(png);
    if ((color & PNG_COLOR_MASK_COLOR) == 0 &&
        ((color & PNG_COLOR_MASK_ALPHA) != 0 || transparent)) {
        png_set_gray_to_rgb(png);
    }
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    row = malloc(png_get_rowbytes(png, info));
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < height; y++) png_read_row(png, row, NULL);
    }
    png_read_end(png, info);
    png_destroy_read_struct(&png, &info, NULL);
    free(row);
    free(data);
    return 0;
}

static double now(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec + (double)time.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s JOBS REPEAT FILE...\n", argv[0]);
        return 2;
    }
    int jobs = atoi(argv[1]);
    int repeat = atoi(argv[2]);
    int files = argc - 3;
    if (jobs < 1 || repeat < 1) return 2;
    double best = 0;
    for (int run = 0; run < repeat; run++) {
        double start = now();
        for (int job = 0; job < jobs; job++) {
            pid_t child = fork();
            if (child < 0) return 1;
            if (child == 0) {
                for (int index = job; index < files; index += jobs) {
                    if (decode(argv[3 + index]) != 0) {
                        fprintf(stderr, "cannot decode %s\n", argv[3 + index]);
                        _exit(1);
                    }
                }
                _exit(0);
            }
        }
        int failed = 0, status = 0;
        while (wait(&status) > 0) failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
        if (failed) return 1;
        double rate = files / (now() - start);
        if (rate > best) best = rate;
    }
    printf("%.1f\n", best);
    return 0;
}
