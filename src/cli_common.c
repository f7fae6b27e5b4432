/* cli_common.c — default model lookup, line reading, checked writing, option numbers. */
#include "cli_common.h"
#include "util.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef XLATE_DATADIR
#define XLATE_DATADIR "/usr/local/share/xlate"
#endif

static int is_model_dir(const char *dir)
{
    struct stat sb;
    char *p = path_join(dir, "config.json");
    int ok = p && stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
    free(p);
    return ok;
}

int find_model_dir(const char *opt, char *out, size_t n, char *err, size_t errlen)
{
    char exe[PATH_MAX], tried[4][PATH_MAX + 64];
    const char *env = getenv("XLATE_MODEL");
    ssize_t len;
    int nt = 0;

    if (opt || (env && env[0])) {
        const char *dir = opt ? opt : env;
        struct stat sb;
        if (stat(dir, &sb) != 0)
            return xerr(err, errlen, "%s: model directory%s: %s", dir,
                        opt ? "" : " (from XLATE_MODEL)", strerror(errno));
        if (!S_ISDIR(sb.st_mode))
            return xerr(err, errlen, "%s: not a directory (a model is a directory with "
                        "config.json)", dir);
        snprintf(out, n, "%s", dir);
        return 0;
    }
    len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        char *slash;
        exe[len] = '\0';
        slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        snprintf(tried[nt++], sizeof tried[0], "%s/models/en-de", exe);
        snprintf(tried[nt++], sizeof tried[0], "%s/../share/xlate/models/en-de", exe);
    }
    snprintf(tried[nt++], sizeof tried[0], "%s/models/en-de", XLATE_DATADIR);
    for (int i = 0; i < nt; i++)
        if (is_model_dir(tried[i])) {
            snprintf(out, n, "%s", tried[i]);
            return 0;
        }
    return xerr(err, errlen, "no model found: pass -m DIR or set XLATE_MODEL (looked in %s%s%s)",
                tried[0], nt > 1 ? ", " : "", nt > 1 ? tried[nt - 1] : "");
}

int reader_open(line_reader *r, const char *path, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!path || strcmp(path, "-") == 0) {
        r->f = stdin;
        r->name = "stdin";
        return 0;
    }
    r->f = fopen(path, "rb");
    if (!r->f)
        return xerr(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    r->name = path;
    r->close = 1;
    return 0;
}

void reader_texts(line_reader *r, char *const *texts, int n)
{
    memset(r, 0, sizeof *r);
    r->texts = texts;
    r->n_texts = n;
    r->name = "argument";
}

int reader_next(line_reader *r, char **line, size_t *len, char *err, size_t errlen)
{
    ssize_t got;
    if (!r->f) {
        size_t n;
        if (r->next_text >= r->n_texts)
            return 0;
        n = strlen(r->texts[r->next_text]);
        if (n + 1 > r->cap) {
            char *b = realloc(r->buf, n + 1);
            if (!b)
                return xerr(err, errlen, "out of memory");
            r->buf = b;
            r->cap = n + 1;
        }
        memcpy(r->buf, r->texts[r->next_text++], n + 1);
        for (size_t i = 0; i < n; i++) /* one argument, one sentence */
            if (r->buf[i] == '\n' || r->buf[i] == '\r')
                r->buf[i] = ' ';
        r->line++;
        *line = r->buf;
        *len = n;
        return 1;
    }
    errno = 0;
    got = getline(&r->buf, &r->cap, r->f);
    if (got < 0) {
        if (ferror(r->f))
            return xerr(err, errlen, "%s: line %ld: read error: %s", r->name, r->line + 1,
                        strerror(errno ? errno : EIO));
        if (errno == ENOMEM)
            return xerr(err, errlen, "%s: line %ld: out of memory", r->name, r->line + 1);
        return 0;
    }
    if (got > 0 && r->buf[got - 1] == '\n')
        got--;
    if (got > 0 && r->buf[got - 1] == '\r')
        got--;
    r->buf[got] = '\0';
    r->line++;
    *line = r->buf;
    *len = (size_t)got;
    return 1;
}

void reader_close(line_reader *r)
{
    if (r->close && r->f)
        fclose(r->f);
    free(r->buf);
    memset(r, 0, sizeof *r);
}

int writer_open(writer *w, const char *path, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    if (!path || strcmp(path, "-") == 0) {
        w->f = stdout;
        w->name = "stdout";
        return 0;
    }
    w->f = fopen(path, "wb");
    if (!w->f)
        return xerr(err, errlen, "%s: cannot open for writing: %s", path, strerror(errno));
    w->name = path;
    w->close = 1;
    return 0;
}

static void writer_fail(writer *w)
{
    if (!w->failed) {
        w->failed = 1;
        w->errno_ = errno ? errno : EIO;
    }
}

void writer_put(writer *w, const char *s, size_t n)
{
    if (w->failed || n == 0)
        return;
    errno = 0;
    if (fwrite(s, 1, n, w->f) != n)
        writer_fail(w);
}

void writer_puts(writer *w, const char *s) { writer_put(w, s, strlen(s)); }

void writer_flush(writer *w)
{
    if (w->failed)
        return;
    errno = 0;
    if (fflush(w->f) != 0)
        writer_fail(w);
}

int writer_close(writer *w)
{
    writer_flush(w);
    if (w->close && w->f) {
        errno = 0;
        if (fclose(w->f) != 0)
            writer_fail(w);
    } else if (w->f == stdout && !w->failed) {
        /* A full disk can show only at close: make it show here. */
        if (fsync(fileno(stdout)) != 0 && errno != EINVAL && errno != EROFS &&
            errno != ENOTSUP && errno != EBADF)
            writer_fail(w);
    }
    w->f = NULL;
    return w->failed ? -1 : 0;
}

int writer_error(const writer *w, int quiet_epipe)
{
    if (!(quiet_epipe && w->errno_ == EPIPE))
        fprintf(stderr, "xlate: cannot write to %s: %s\n", w->name, strerror(w->errno_));
    return 4;
}

int parse_int_opt(const char *opt, const char *s, long lo, long hi, long *out, char *err,
                  size_t errlen)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(s, &end, 10);
    if (!*s || *end || errno)
        return xerr(err, errlen, "%s: expected an integer, got \"%s\"", opt, s);
    if (v < lo || v > hi)
        return xerr(err, errlen, "%s: expected %ld to %ld, got %ld", opt, lo, hi, v);
    *out = v;
    return 0;
}

int parse_float_opt(const char *opt, const char *s, double lo, double hi, double *out,
                    char *err, size_t errlen)
{
    char *end;
    double v;
    errno = 0;
    v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v))
        return xerr(err, errlen, "%s: expected a number, got \"%s\"", opt, s);
    if (v < lo || v > hi)
        return xerr(err, errlen, "%s: expected %g to %g, got %g", opt, lo, hi, v);
    *out = v;
    return 0;
}

void warn_stderr(void *quiet, const char *msg)
{
    if (quiet && *(int *)quiet)
        return;
    fprintf(stderr, "xlate: warning: %s\n", msg);
}
