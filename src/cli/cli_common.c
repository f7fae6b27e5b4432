/* cli_common.c — default model lookup, line reading, checked writing, option numbers. */
#include "cli/cli_common.h"
#include "cli/cli.h"
#include "cli/cli_outfile.h"
#include "base/util.h"
#include "hub/hub.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
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

/* -m ORG/NAME[@REVISION] that is no path: the snapshot in the hub's cache, pulled first when
 * it is not there (as transformers and llama.cpp do), unless HF_HUB_OFFLINE. */
static int find_hub_model(const char *name, int quiet, char *out, size_t n, char *err,
                          size_t errlen)
{
    hub_ref ref;
    char cache[4096], endpoint[1024];
    int rc;
    if (hub_ref_parse(name, &ref, err, errlen))
        return -1;
    if ((rc = hub_resolve_cached(&ref, out, n, err, errlen)) <= 0)
        return rc;
    if (hub_cache_dir(cache, sizeof cache, err, errlen))
        return -1;
    if (hub_offline())
        return xerr(err, errlen, "%s is not in the cache (%s) and HF_HUB_OFFLINE is set: get it "
                    "first with `xlate pull %s`", name, cache, name);
    hub_endpoint(endpoint, sizeof endpoint);
    if (!quiet)
        fprintf(stderr, "xlate: %s is not in the cache (%s): downloading it from %s\n", name,
                cache, endpoint);
    return cli_hub_pull(name, quiet, out, n, err, errlen);
}

int find_model_dir(const char *opt, char *out, size_t n, char *err, size_t errlen)
{
    return find_model_dir_quiet(opt, 0, out, n, err, errlen);
}

/* The models/ directories xlate's own models lie in, most local first: models/ beside the
 * executable (a build tree), ../share/xlate/models beside it and the configured share
 * directory (an installed tree). Fills bases[] (at most 3); returns how many. */
int cli_shipped_bases(char bases[][PATH_MAX])
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    int nb = 0;
    if (len > 0) {
        char *slash;
        exe[len] = '\0';
        slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        snprintf(bases[nb++], PATH_MAX, "%.*s/models", PATH_MAX - 8, exe);
        snprintf(bases[nb++], PATH_MAX, "%.*s/../share/xlate/models", PATH_MAX - 24, exe);
    }
    snprintf(bases[nb++], PATH_MAX, "%s/models", XLATE_DATADIR);
    return nb;
}

/* tried[i] = the i-th models/ directory joined with name; returns how many. */
static int bundled_dirs(const char *name, char tried[][PATH_MAX + 64])
{
    char bases[CLI_SHIPPED_BASES][PATH_MAX];
    int nb = cli_shipped_bases(bases);
    for (int i = 0; i < nb; i++)
        snprintf(tried[i], PATH_MAX + 64, "%.4000s/%.127s", bases[i], name);
    return nb;
}

/* A bare NAME (no '/', not a path that exists) is one of the models shipped with xlate:
 * `-m en-de-docs`. */
static int is_bundled_name(const char *s)
{
    return s[0] && s[0] != '.' && !strchr(s, '/') && strlen(s) < 128;
}

int find_model_dir_quiet(const char *opt, int quiet, char *out, size_t n, char *err,
                         size_t errlen)
{
    char tried[4][PATH_MAX + 64];
    const char *env = getenv("XLATE_MODEL");
    int nt = 0;

    if (opt || (env && env[0])) {
        const char *dir = opt ? opt : env;
        char q[CLI_QUOTED_PATH];
        struct stat sb;
        if (stat(dir, &sb) != 0 && errno == ENOENT && hub_is_name(dir))
            return find_hub_model(dir, quiet, out, n, err, errlen);
        if (stat(dir, &sb) != 0 && errno == ENOENT && is_bundled_name(dir)) {
            nt = bundled_dirs(dir, tried);
            for (int i = 0; i < nt; i++)
                if (is_model_dir(tried[i])) {
                    snprintf(out, n, "%s", tried[i]);
                    return 0;
                }
            /* the places by their directories only: the name is the user's bytes, quoted
             * once (cli_quote_path), and the message stays short whatever its length */
            return xerr(err, errlen, "%s: no such model directory, nor a model shipped with "
                        "xlate (looked in models/ beside the executable, ../share/xlate/models "
                        "beside it and %s/models)%s", cli_quote_path(q, dir), XLATE_DATADIR,
                        opt ? "" : " (from XLATE_MODEL)");
        }
        if (stat(dir, &sb) != 0)
            return xerr(err, errlen, "%s: model directory%s: %s", cli_quote_path(q, dir),
                        opt ? "" : " (from XLATE_MODEL)", strerror(errno));
        if (!S_ISDIR(sb.st_mode))
            return xerr(err, errlen, "%s: not a directory (a model is a directory with "
                        "config.json)", cli_quote_path(q, dir));
        snprintf(out, n, "%s", dir);
        return 0;
    }
    nt = bundled_dirs("en-de", tried);
    for (int i = 0; i < nt; i++)
        if (is_model_dir(tried[i])) {
            snprintf(out, n, "%s", tried[i]);
            return 0;
        }
    return xerr(err, errlen, "no model found: pass -m DIR or set XLATE_MODEL (looked in %s%s%s)",
                tried[0], nt > 1 ? ", " : "", nt > 1 ? tried[nt - 1] : "");
}

/* The note of a FIFO's open that waits (reader_open): written by the timer's thread. */
static void fifo_note(union sigval v)
{
    const char *m = v.sival_ptr;
    ssize_t n = write(STDERR_FILENO, m, strlen(m));
    (void)n;
}

/* open(path) for reading; a FIFO's open waits for a writer (open(2), fifo(7)), maybe forever:
 * when it has waited a second a note says so, once, on stderr (issue 37: xlate hung with no
 * word). Opening without blocking instead would read an end of file at once, and the writer
 * that opens a moment later (a co-process's usual start) would be missed. The note comes from
 * a POSIX timer's thread (SIGEV_THREAD): no signal handler, nothing global. */
static int open_input(line_reader *r, const char *path)
{
    struct stat sb;
    struct sigevent sev;
    timer_t tm;
    int fd, timed = 0;
    if (stat(path, &sb) == 0 && S_ISFIFO(sb.st_mode)) {
        struct itimerspec its = {{0, 0}, {1, 0}};
        snprintf(r->note, sizeof r->note, "xlate: %s: a FIFO with no writer yet: waiting for "
                 "one to open it\n", r->name);
        memset(&sev, 0, sizeof sev);
        sev.sigev_notify = SIGEV_THREAD;
        sev.sigev_notify_function = fifo_note;
        sev.sigev_value.sival_ptr = r->note;
        if (timer_create(CLOCK_MONOTONIC, &sev, &tm) == 0) {
            timed = timer_settime(tm, 0, &its, NULL) == 0;
            if (!timed)
                timer_delete(tm);
        }
    }
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (timed)
        timer_delete(tm);
    return fd;
}

int reader_open(line_reader *r, const char *path, char *err, size_t errlen)
{
    struct stat sb;
    memset(r, 0, sizeof *r);
    r->max_line = READER_MAX_LINE;
    if (!path || strcmp(path, "-") == 0) {
        r->fd = STDIN_FILENO;
        r->name = "stdin";
    } else {
        r->name = cli_quote_path(r->name_q, path);
        r->fd = open_input(r, path);
        if (r->fd < 0)
            return xerr(err, errlen, "%s: cannot open: %s", r->name, strerror(errno));
        r->close = 1;
    }
    if (fstat(r->fd, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) {
            reader_close(r);
            return xerr(err, errlen, "%s: cannot read: is a directory", path ? path : "stdin");
        }
        r->regular = S_ISREG(sb.st_mode);
        r->size = r->regular ? (long long)sb.st_size : 0;
    }
    return 0;
}

void reader_texts(line_reader *r, char *const *texts, int n)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->texts = texts;
    r->n_texts = n;
    r->name = "argument";
}

/* Reads more bytes into the buffer (moving the unread ones to its start, growing it up to
 * max_line + 1). Returns 0 (r->eof set at the end), or -1 with a message. */
static int fill(line_reader *r, char *err, size_t errlen)
{
    ssize_t got;
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    if (r->end + 1 >= r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 65536;
        char *b;
        if (cap > r->max_line + 1)
            cap = r->max_line + 1;
        if (cap <= r->end + 1) /* full: the caller cuts the line */
            return 0;
        if (!(b = realloc(r->buf, cap)))
            return xerr(err, errlen, "%s: line %ld: out of memory", r->name, r->line + 1);
        r->buf = b;
        r->cap = cap;
    }
    do
        got = read(r->fd, r->buf + r->end, r->cap - 1 - r->end);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        return xerr(err, errlen, "%s: line %ld: read error: %s", r->name, r->line + 1,
                    strerror(errno));
    if (got == 0)
        r->eof = 1;
    r->end += (size_t)got;
    return 0;
}

/* The first "\n" among the unread bytes, or NULL. */
static char *find_nl(const line_reader *r)
{
    return r->end > r->start ? memchr(r->buf + r->start, '\n', r->end - r->start) : NULL;
}

static int next_text(line_reader *r, char **line, size_t *len, char *err, size_t errlen)
{
    size_t n;
    if (r->next_text >= r->n_texts)
        return 0;
    n = strlen(r->texts[r->next_text]);
    if (n + 1 > r->cap) {
        char *b = realloc(r->buf, n + 1);
        if (!b)
            return xerr(err, errlen, "argument %d: out of memory", r->next_text + 1);
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

int reader_next(line_reader *r, char **line, size_t *len, char *err, size_t errlen)
{
    char *nl;
    size_t n;
    if (r->fd < 0)
        return next_text(r, line, len, err, errlen);
    r->cut = 0;
    while (r->skip) { /* the rest of a cut line */
        nl = find_nl(r);
        if (nl) {
            r->offset += nl + 1 - (r->buf + r->start);
            r->start = (size_t)(nl + 1 - r->buf);
            r->skip = 0;
            break;
        }
        r->offset += r->end - r->start;
        r->start = r->end = 0;
        if (r->eof)
            return 0;
        if (fill(r, err, errlen))
            return -1;
    }
    for (;;) {
        nl = find_nl(r);
        if (nl) {
            n = (size_t)(nl - (r->buf + r->start));
            r->offset += n + 1;
            break;
        }
        if (r->eof) {
            n = r->end - r->start;
            if (n == 0)
                return 0;
            r->offset += n;
            break;
        }
        if (r->end - r->start >= r->max_line) {
            n = r->max_line;
            r->offset += n;
            r->cut = r->skip = 1;
            break;
        }
        if (fill(r, err, errlen))
            return -1;
    }
    *line = r->buf + r->start;
    r->start += n + (r->cut ? 0 : 1);
    if (r->start > r->end) /* the last line, without "\n" */
        r->start = r->end;
    if (!r->cut && n > 0 && (*line)[n - 1] == '\r')
        n--;
    (*line)[n] = '\0'; /* a "\n", or a byte of a cut line's dropped rest, or spare room */
    *len = n;
    r->line++;
    return 1;
}

int reader_ready(line_reader *r)
{
    struct pollfd p;
    if (r->fd < 0 || r->eof || r->regular)
        return 1;
    if (r->end - r->start >= r->max_line || find_nl(r))
        return 1;
    p.fd = r->fd;
    p.events = POLLIN;
    p.revents = 0;
    if (poll(&p, 1, 0) <= 0)
        return 0;
    /* Something came (data, the end, an error): one read cannot block. Ready only if it
     * completes a line, so that half a line never holds back the answers to whole ones. */
    if (fill(r, NULL, 0))
        return 1; /* reader_next will meet the error again and report it */
    return r->eof || r->end - r->start >= r->max_line || find_nl(r) != NULL;
}

/* A blank line: whitespace only, the whitespace of split.h's invariant (split.c is_space:
 * ASCII 9-13 and space, NEL, NBSP, Ogham space, U+2000-U+200A, the line and paragraph
 * separators, narrow NBSP, math space, ideographic space), which is what makes a line empty
 * without --paragraphs: it has no sentence. So a line of U+3000 or U+00A0 is a paragraph
 * break too (issue 37: one rule for both modes). */
static int is_blank(const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    for (size_t i = 0; i < n;) {
        if (s[i] == ' ' || (s[i] >= 9 && s[i] <= 13))
            i++;
        else if (i + 1 < n && s[i] == 0xC2 && (s[i + 1] == 0x85 || s[i + 1] == 0xA0))
            i += 2;
        else if (i + 2 < n && ((s[i] == 0xE1 && s[i + 1] == 0x9A && s[i + 2] == 0x80) ||
                               (s[i] == 0xE2 && s[i + 1] == 0x80 &&
                                (s[i + 2] <= 0x8A || s[i + 2] == 0xA8 || s[i + 2] == 0xA9 ||
                                 s[i + 2] == 0xAF) && s[i + 2] >= 0x80) ||
                               (s[i] == 0xE2 && s[i + 1] == 0x81 && s[i + 2] == 0x9F) ||
                               (s[i] == 0xE3 && s[i + 1] == 0x80 && s[i + 2] == 0x80)))
            i += 3;
        else
            return 0;
    }
    return 1;
}

/* Appends s[0, n) to the paragraph (a space first unless it is empty). */
static int para_add(para_reader *p, const char *s, size_t n, char *err, size_t errlen)
{
    size_t need = p->len + 1 + n + 1;
    if (need > p->cap) {
        size_t cap = p->cap ? p->cap : 4096;
        char *b;
        while (cap < need)
            cap *= 2;
        if (!(b = realloc(p->buf, cap)))
            return xerr(err, errlen, "%s: line %ld: out of memory", p->in->name, p->in->line);
        p->buf = b;
        p->cap = cap;
    }
    if (p->len)
        p->buf[p->len++] = ' ';
    memcpy(p->buf + p->len, s, n);
    p->len += n;
    p->buf[p->len] = '\0';
    return 0;
}

int para_next(para_reader *p, char **text, size_t *len, char *err, size_t errlen)
{
    p->len = 0;
    p->cut = 0;
    p->first_line = 0;
    if (p->blank) {
        p->blank = 0;
        p->first_line = p->in->line;
        *text = p->buf ? p->buf : (char *)"";
        if (p->buf)
            p->buf[0] = '\0';
        *len = 0;
        return 1;
    }
    for (;;) {
        char *s;
        size_t n;
        long line;
        int got;
        got = reader_next(p->in, &s, &n, err, errlen);
        if (got < 0)
            return -1;
        if (got == 0)
            break;
        line = p->in->line;
        if (is_blank(s, n)) {
            if (p->len == 0) { /* a blank line between paragraphs: an empty line */
                p->first_line = line;
                *text = s;
                *len = 0;
                return 1;
            }
            p->blank = 1;
            break;
        }
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
            n--;
        while (n && (*s == ' ' || *s == '\t')) {
            s++;
            n--;
        }
        if (p->cut) /* past max_line: the rest of the paragraph is dropped */
            continue;
        p->cut = p->in->cut;
        if (p->len && p->len + 1 + n > p->in->max_line) { /* too long: kept up to max_line */
            n = p->len + 1 < p->in->max_line ? p->in->max_line - p->len - 1 : 0;
            p->cut = 1;
            if (!n)
                continue;
        }
        if (!p->len)
            p->first_line = line;
        if (para_add(p, s, n, err, errlen))
            return -1;
    }
    if (p->len == 0)
        return 0;
    *text = p->buf;
    *len = p->len;
    return 1;
}

int para_ready(para_reader *p)
{
    return p->blank || reader_ready(p->in);
}

void para_free(para_reader *p)
{
    free(p->buf);
    p->buf = NULL;
}

void reader_where(const line_reader *r, long line, char *out, size_t n)
{
    if (r->fd < 0)
        snprintf(out, n, "argument %ld", line);
    else
        snprintf(out, n, "%s: line %ld", r->name, line);
}

void reader_close(line_reader *r)
{
    if (r->close && r->fd >= 0)
        close(r->fd);
    free(r->buf);
    memset(r, 0, sizeof *r);
    r->fd = -1;
}

int writer_open(writer *w, const char *path, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    if (!path || strcmp(path, "-") == 0) {
        w->f = stdout;
        w->name = "stdout";
        return 0;
    }
    w->name = cli_quote_path(w->name_q, path);
    /* a temporary file beside it, renamed over it by writer_close (cli_outfile.h) */
    if (!(w->f = outfile_open(path, w->name, err, errlen)))
        return -1;
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

int writer_gone(writer *w)
{
    struct stat sb;
    struct pollfd p;
    if (w->failed || !w->f)
        return w->failed && w->errno_ == EPIPE;
    if (fstat(fileno(w->f), &sb) != 0 || !S_ISFIFO(sb.st_mode))
        return 0;
    p.fd = fileno(w->f);
    p.events = POLLOUT;
    p.revents = 0;
    if (poll(&p, 1, 0) > 0 && (p.revents & POLLERR)) { /* Linux: no reader left */
        w->failed = 1;
        w->errno_ = EPIPE;
        return 1;
    }
    return 0;
}

int writer_close(writer *w)
{
    writer_flush(w);
    if (w->close && w->f) {
        errno = 0;
        if (!w->failed && outfile_pending() && fsync(fileno(w->f)) != 0)
            writer_fail(w); /* a full disk may show only here (NFS, quotas) */
        if (fclose(w->f) != 0)
            writer_fail(w);
        if (outfile_finish(!w->failed) != 0) /* the rename, or the removal of a partial file */
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

void writer_discard(writer *w)
{
    if (!w->close) {
        writer_close(w); /* stdout: what was written is out already */
        return;
    }
    if (w->f)
        fclose(w->f);
    w->f = NULL;
    outfile_finish(0);
}

int writer_error(const writer *w, int quiet_epipe)
{
    if (!(quiet_epipe && w->errno_ == EPIPE))
        fprintf(stderr, "xlate: cannot write to %s: %s\n", w->name, strerror(w->errno_));
    return 4;
}

const char *cli_quote(char *out, size_t outlen, const char *s, size_t n)
{
    return str_quote(out, outlen, s, n);
}

const char *cli_quote_path(char *out, const char *path)
{
    return str_quote_max(out, CLI_QUOTED_PATH, path, strlen(path), 200);
}

/* Option numbers are written one way: an optional sign, then decimal digits (for a number: a
 * fraction and an exponent may follow). Nothing else: no blank before or after (strtol and
 * strtod skip leading blanks but stop at trailing ones, so " 5" passed and "5 " did not), no
 * hexadecimal, no inf or nan. */
static int plain_number(const char *s, int fraction)
{
    size_t i = s[0] == '+' || s[0] == '-';
    size_t digits = strspn(s + i, "0123456789");
    if (!fraction)
        return digits > 0 && s[i + digits] == 0;
    i += digits;
    if (s[i] == '.') {
        size_t f = strspn(s + i + 1, "0123456789");
        digits += f;
        i += 1 + f;
    }
    if (!digits)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        i += 1 + (s[i + 1] == '+' || s[i + 1] == '-');
        if (!strspn(s + i, "0123456789"))
            return 0;
        i += strspn(s + i, "0123456789");
    }
    return s[i] == 0;
}

int parse_int_opt(const char *opt, const char *s, long lo, long hi, long *out, char *err,
                  size_t errlen)
{
    char *end, q[200];
    long v;
    if (!plain_number(s, 0))
        return xerr(err, errlen, "%s: expected an integer, got \"%s\"", opt,
                    cli_quote(q, sizeof q, s, strlen(s)));
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || v < lo || v > hi) /* ERANGE: the digits are past what a long holds */
        return xerr(err, errlen, "%s: expected %ld to %ld, got %.64s", opt, lo, hi, s);
    *out = v;
    return 0;
}

int parse_float_opt(const char *opt, const char *s, double lo, double hi, double *out,
                    char *err, size_t errlen)
{
    char *end, q[200];
    double v;
    if (!plain_number(s, 1))
        return xerr(err, errlen, "%s: expected a number, got \"%s\"", opt,
                    cli_quote(q, sizeof q, s, strlen(s)));
    errno = 0;
    v = strtod(s, &end);
    /* ERANGE on underflow (1e-320) is a value in range, the nearest double; on overflow
     * (1e999) it is out of any range */
    if ((errno == ERANGE && fabs(v) > 1.0) || !isfinite(v) || v < lo || v > hi)
        return xerr(err, errlen, "%s: expected %g to %g, got %.64s", opt, lo, hi, s);
    *out = v;
    return 0;
}

/* A library message as one line of stderr: its control bytes (a model directory's name
 * holds what it likes, and the library's messages carry it raw) as \xNN, so a newline in a
 * name cannot forge an xlate: line nor an escape drive the terminal (issue 37). */
static const char *one_line(char *out, size_t size, const char *s)
{
    size_t k = 0;
    for (; *s && k + 5 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            k += (size_t)snprintf(out + k, size - k, "\\x%02x", c);
        else
            out[k++] = (char)c;
    }
    out[k] = '\0';
    return out;
}

/* When msg names a file of the hub's cache (".../models--ORG--NAME/snapshots/..."), the
 * repair to say: "; `xlate pull ORG/NAME` checks its files and fetches a damaged one again"
 * (issue 51 item 8), else "". The id is taken from the folder's name and said only when it is
 * a valid repository id. */
static void hub_repair_hint(const char *msg, char *out, size_t n)
{
    const char *m = strstr(msg, "/models--"), *e;
    char id[256];
    size_t k = 0;
    out[0] = '\0';
    if (!m || !(e = strchr(m + 9, '/')) || strncmp(e, "/snapshots/", 11) != 0)
        return;
    for (const char *c = m + 9; c < e && k + 1 < sizeof id; c++) {
        if (c[0] == '-' && c[1] == '-' && c + 1 < e) { /* "--" is the id's '/' */
            id[k++] = '/';
            c++;
        } else {
            id[k++] = *c;
        }
    }
    id[k] = '\0';
    if (hub_repo_id_valid(id))
        snprintf(out, n, " (a file of the hub's cache: `xlate pull %s` checks every file "
                 "against the hub and fetches a damaged one again)", id);
}

int cli_load_failed(const char *prefix, const char *msg)
{
    char err[2048], hint[400];
    int oom = strstr(msg, "out of memory") || strstr(msg, strerror(ENOMEM));
    struct rlimit rl;
    one_line(err, sizeof err, msg);
    hub_repair_hint(msg, hint, sizeof hint);
    if (!oom && hint[0] && strlen(err) + strlen(hint) < sizeof err)
        memcpy(err + strlen(err), hint, strlen(hint) + 1);
    if (oom && getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        fprintf(stderr, "%s: %s (loading the model; the address-space limit, ulimit -v, is "
                "%llu MB)\n", prefix, err, (unsigned long long)(rl.rlim_cur >> 20));
    else
        fprintf(stderr, "%s: %s\n", prefix, err);
    return oom ? XLATE_EXIT_INTERNAL : XLATE_EXIT_MODEL;
}

void warn_stderr(void *quiet, const char *msg)
{
    if (quiet && *(int *)quiet)
        return;
    fprintf(stderr, "xlate: warning: %s\n", msg);
}

/* The weights are read in place from the mapped file; if another program truncates that file
 * while xlate runs, reading a vanished page raises SIGBUS. Say so and stop, instead of dying of
 * a bus error. The message is composed ahead, since a signal handler may only write(). This is
 * the program's one piece of global state: a signal handler has no other way to its data. */
static char sigbus_msg[4096 + 256] = "xlate: the model's weights file shrank or changed while "
                                     "xlate was reading it (SIGBUS): run again once it is "
                                     "complete\n";

void cli_name_weights(const char *dir, const char *weights)
{
    snprintf(sigbus_msg, sizeof sigbus_msg, "xlate: %s/%s: the weights file shrank or changed "
             "while xlate was reading it (SIGBUS): run again once it is complete\n", dir, weights);
}

static void on_sigbus(int sig)
{
    (void)sig;
    if (write(STDERR_FILENO, sigbus_msg, strlen(sigbus_msg)) < 0) {
        /* nothing more can be said */
    }
    _exit(2); /* XLATE_EXIT_MODEL */
}

void cli_catch_sigbus(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

/* Length of the valid UTF-8 sequence at s[0..n) (RFC 3629: no overlongs, no surrogates, at
 * most U+10FFFF), or 0. */
size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char lo = 0x80, hi = 0xBF;
    size_t len;
    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        len = 2;
    else if (s[0] >= 0xE0 && s[0] <= 0xEF)
        len = 3, lo = s[0] == 0xE0 ? 0xA0 : 0x80, hi = s[0] == 0xED ? 0x9F : 0xBF;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        len = 4, lo = s[0] == 0xF0 ? 0x90 : 0x80, hi = s[0] == 0xF4 ? 0x8F : 0xBF;
    else
        return 0;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if (s[k] < 0x80 || s[k] > 0xBF)
            return 0;
    return len;
}

void cli_hms(double s, char *out, size_t n)
{
    long t = s > 0 && s < 1e9 ? (long)(s + 0.5) : 0;
    if (t >= 3600)
        snprintf(out, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(out, n, "%ld:%02ld", t / 60, t % 60);
}

int cli_flush_stdout(void)
{
    errno = 0;
    if (fflush(stdout) == 0)
        return 0;
    if (errno != EPIPE)
        fprintf(stderr, "xlate: cannot write to stdout: %s\n", strerror(errno));
    return -1;
}
