/* util.c — error messages, whole-file reads, paths, time. */
#include "base/util.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
    return read_file_max(path, READ_MAX_ANY, data, len, err, errlen);
}

int read_file_max(const char *path, size_t max, char **data, size_t *len, char *err,
                  size_t errlen)
{
    struct stat sb;
    char *buf = NULL;
    size_t n = 0;
    /* O_NONBLOCK: a FIFO without a writer must not hang the open; it is refused below */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    *data = NULL;
    *len = 0;
    if (fd < 0)
        return xerr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0) {
        xerr(err, errlen, "%s: cannot stat: %s", path, strerror(errno));
        goto fail;
    }
    if (!S_ISREG(sb.st_mode)) {
        xerr(err, errlen, "%s: not a regular file", path);
        goto fail;
    }
    if ((unsigned long long)sb.st_size > max) {
        xerr(err, errlen, "%s: %lld bytes, more than the %zu MB xlate reads of such a file "
             "(refused from its size, unread)", path, (long long)sb.st_size, max >> 20);
        goto fail;
    }
    if (!(buf = malloc((size_t)sb.st_size + 1))) {
        xerr(err, errlen, "%s: out of memory reading %lld bytes", path, (long long)sb.st_size);
        goto fail;
    }
    while (n < (size_t)sb.st_size) {
        ssize_t got = read(fd, buf + n, (size_t)sb.st_size - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            xerr(err, errlen, "%s: read error: %s", path, strerror(errno));
            goto fail;
        }
        if (got == 0)
            break; /* shrank while being read: take what is there */
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return 0;
fail:
    close(fd);
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

int is_lang_code(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 15)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == '_'))
            return 0;
    return 1;
}

const char *str_quote(char *out, size_t outlen, const char *s, size_t n)
{
    return str_quote_max(out, outlen, s, n, 40);
}

const char *str_quote_max(char *out, size_t outlen, const char *s, size_t n, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < n && i < max && k + 8 < outlen; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            k += (size_t)snprintf(out + k, outlen - k, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            out[k++] = (char)c;
        else
            k += (size_t)snprintf(out + k, outlen - k, "\\x%02x", c);
    }
    snprintf(out + k, outlen - k, "%s", n > max ? "..." : "");
    return out;
}
