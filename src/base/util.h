/* util.h — small helpers shared by every room: error messages, file reading, time. */
#ifndef XLATE_UTIL_H
#define XLATE_UTIL_H
#include <stddef.h>
#include <stdint.h>

/* Every fallible library function takes (char *err, size_t errlen): on failure it writes one
 * line, without a trailing newline, naming what failed (file, field, tensor, got vs expected),
 * and returns non-zero. Only main() prints it and exits. XLATE_ERRLEN (xlate.h) is enough. */

/* Formats into err (if err and errlen) and returns -1, so that callers can `return xerr(...)`. */
int xerr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reads a whole file into a malloc'd buffer (NUL-terminated for convenience; *len excludes it).
 * Returns 0, or -1 with a message naming the path and the reason. A regular file of more than
 * `max` bytes is refused from its size, before a byte is read or allocated ("PATH: N bytes,
 * more than the M MB ..."; issue 27: a sparse 4 GiB vocab.json was read whole, 4.2 GB and
 * 28-50 s, before its JSON was refused). read_file: max READ_MAX_ANY. */
#define READ_MAX_JSON ((size_t)16 << 20)   /* config.json and the other small JSON files */
#define READ_MAX_VOCAB ((size_t)256 << 20) /* vocab.json */
#define READ_MAX_SPM ((size_t)256 << 20)   /* a SentencePiece model */
#define READ_MAX_ANY ((size_t)1 << 30)
int read_file_max(const char *path, size_t max, char **data, size_t *len, char *err,
                  size_t errlen);
int read_file(const char *path, char **data, size_t *len, char *err, size_t errlen);

/* Joins a directory and a relative name ("dir/name"), or returns name when it is absolute.
 * The result is malloc'd; NULL when out of memory. */
char *path_join(const char *dir, const char *name);

/* 1 when s is a language code as models and users write them ("en", "deu", "pt_BR",
 * "zh-Hant"): 1 to 15 bytes of ASCII letters, digits, '-' and '_'. */
int is_lang_code(const char *s);

/* out = s[0, n) for a message, in double quotes' stead: printable ASCII as it is, '"' and '\\'
 * escaped, every other byte (NUL, VT, FF, DEL, non-ASCII) as \xHH, so a value shows whole on
 * one line and cannot drive the terminal; the first 40 bytes, then "...". Returns out. */
const char *str_quote(char *out, size_t outlen, const char *s, size_t n);
/* The same, cut after max bytes (file names: 200). */
const char *str_quote_max(char *out, size_t outlen, const char *s, size_t n, size_t max);

/* Monotonic seconds. */
double now_seconds(void);

#endif
