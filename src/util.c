/* util.c — error messages, whole-file reads, paths, time. */
#include "util.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int xerr(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int read_file(const char *path, char **data, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    *data = NULL;
    *len = 0;
    if (!f)
        return xerr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    for (;;) {
        if (cap - n < 65536 + 1) {
            size_t ncap = cap ? cap * 2 : 65536 * 2;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                xerr(err, errlen, "%s: out of memory reading %zu bytes", path, ncap);
                goto fail;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                xerr(err, errlen, "%s: read error: %s", path, strerror(errno));
                goto fail;
            }
            break;
        }
    }
    fclose(f);
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return 0;
fail:
    fclose(f);
    free(buf);
    return -1;
}

char *path_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p;
    if (name[0] == '/' || a == 0)
        return strdup(name);
    p = malloc(a + b + 2);
    if (!p)
        return NULL;
    memcpy(p, dir, a);
    if (dir[a - 1] != '/')
        p[a++] = '/';
    memcpy(p + a, name, b + 1);
    return p;
}

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
