/* fuzz.h — what the fuzz targets share.
 *
 * Each target fuzz/fuzz_NAME.c defines `int fuzz_NAME(const uint8_t *data, size_t size)` and,
 * unless FUZZ_NO_MAIN is defined, the libFuzzer entry point calling it. tests/test_hardening.c
 * defines FUZZ_NO_MAIN, includes every target and replays the committed seed corpora and crash
 * inputs through the same code (so `make test` and `make sanitize` run them too).
 *
 * A target checks properties, not only "no crash": FUZZ_CHECK aborts (libFuzzer records a crash)
 * with the property that failed. Files the targets read (models) are found relative to the
 * repository root: the current directory, or $XLATE_ROOT. Targets keep a loaded model in a
 * static between inputs (harness state, not library state). */
#ifndef XLATE_FUZZ_H
#define XLATE_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_CHECK(cond, ...)                                                                \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "fuzz: property failed at %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

/* root-relative path into buf (static storage of the caller). */
static inline const char *fuzz_path(char *buf, size_t n, const char *rel)
{
    const char *root = getenv("XLATE_ROOT");
    snprintf(buf, n, "%s%s%s", root && root[0] ? root : "", root && root[0] ? "/" : "", rel);
    return buf;
}

/* A failed call's message: non-empty and NUL-terminated inside err. */
static inline int fuzz_msg_ok(const char *err, size_t errlen)
{
    return err[0] != '\0' && memchr(err, '\0', errlen) != NULL;
}

/* Reads a whole file (exits on failure: a missing model is a setup error, not a finding). */
static inline unsigned char *fuzz_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    long n;
    if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
        !(b = malloc((size_t)n + 1)) || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "fuzz: cannot read %s (run from the repository root or set XLATE_ROOT)\n",
                path);
        exit(2);
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

#endif
