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

/* A growing output buffer for doc_write (the document targets). */
typedef struct {
    char *s;
    size_t len, cap;
} fuzz_buf;

static inline int fuzz_buf_put(void *user, const char *s, size_t len)
{
    fuzz_buf *b = user;
    if (b->len + len > b->cap) {
        size_t c = 2 * (b->len + len) + 64;
        char *n = realloc(b->s, c);
        if (!n)
            return -1;
        b->s = n;
        b->cap = c;
    }
    memcpy(b->s + b->len, s, len);
    b->len += len;
    return 0;
}

/* 1 when s[0..n) is valid UTF-8 (no overlong forms, surrogates or code points > U+10FFFF). */
static inline int fuzz_utf8_ok(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        int l = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (!l || i + (size_t)l > n)
            return 0;
        unsigned v = l == 1 ? c : c & (0x3F >> (l - 1));
        for (int k = 1; k < l; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
            v = (v << 6) | (s[i + k] & 0x3F);
        }
        if ((l == 3 && v < 0x800) || (l == 4 && (v < 0x10000 || v > 0x10FFFF)) ||
            (v >= 0xD800 && v <= 0xDFFF))
            return 0;
        i += (size_t)l;
    }
    return 1;
}


#endif
