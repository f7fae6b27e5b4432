/* cli_doc.c — a document translated whole (--format NAME, or -i FILE's extension): read it all
 * (a document is parsed as one: a paragraph's markup may span any number of lines; a package
 * is mapped and read member by member), translate it with doc_format_translate
 * (src/doc/formats.h: the same call the server's /translate_file makes), write it back, and
 * say what it warned of. */
#include "cli/cli_doc.h"
#include "cli/cli.h"
#include "cli/cli_decode_opts.h"
#include "base/util.h"
#include "doc/doc.h"
#include "doc/formats.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DOC_MAX_BYTES ((size_t)1 << 30) /* a document larger than 1 GiB is refused */

int cli_doc_format(const char *name)
{
    char q[200], list[400];
    const doc_format *f;
    size_t k = 0;
    if (strcmp(name, "text") == 0)
        return XLATE_FORMAT_TEXT;
    if ((f = doc_format_named(name)))
        return f->id;
    list[0] = '\0';
    for (int i = 0; (f = doc_format_at(i)); i++)
        k += (size_t)snprintf(list + k, k < sizeof list ? sizeof list - k : 0, ", %s", f->name);
    fprintf(stderr, "xlate: --format: expected text%s, got \"%s\"\n", list,
            cli_quote(q, sizeof q, name, strlen(name)));
    return -1;
}

int cli_doc_detect(const char *path)
{
    const doc_format *f = doc_format_for_name(path);
    struct stat sb;
    int fd, id = -1;
    if (f)
        return f->id;
    /* a zip says what it is inside: only a regular file is opened to look (a FIFO or a device
     * would block, or lose what is read) */
    if (!path || !strcmp(path, "-") || stat(path, &sb) || !S_ISREG(sb.st_mode) ||
        sb.st_size < 4 || (size_t)sb.st_size > DOC_MAX_BYTES ||
        (fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
        return XLATE_FORMAT_TEXT;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= 4) {
        void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m != MAP_FAILED) {
            if (!memcmp(m, "PK\3\4", 4))
                id = xlate_format_detect(NULL, m, (size_t)sb.st_size);
            munmap(m, (size_t)sb.st_size);
        }
    }
    close(fd);
    return id >= 0 ? id : XLATE_FORMAT_TEXT;
}

/* The rest of fd into *data (malloc'd, NUL-terminated), at most DOC_MAX_BYTES. */
static int read_all(int fd, const char *name, char **data, size_t *len, char *err,
                    size_t errlen)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf)
        return xerr(err, errlen, "out of memory");
    for (;;) {
        if (n == cap) {
            char *b;
            if (cap >= DOC_MAX_BYTES) {
                free(buf);
                return xerr(err, errlen, "%s: a document larger than %zu MiB (the bound of "
                            "--format)", name, DOC_MAX_BYTES >> 20);
            }
            cap = cap * 2 > DOC_MAX_BYTES ? DOC_MAX_BYTES : cap * 2;
            if (!(b = realloc(buf, cap + 1))) {
                free(buf);
                return xerr(err, errlen, "out of memory");
            }
            buf = b;
        }
        ssize_t k = read(fd, buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            free(buf);
            return xerr(err, errlen, "cannot read %s: %s", name, strerror(e));
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return 0;
}

static int put(void *user, const char *s, size_t len)
{
    writer *w = user;
    writer_put(w, s, len);
    return w->failed;
}

/* The progress line, as line mode's (cli_translate.c), its text units for lines: on a terminal
 * only, not when the document goes to the same terminal, at most four times a second. The
 * share is of the units, which differ in length: a guide, as line mode's share of bytes; in a
 * package, of the units of the members read so far. */
typedef struct {
    const doc_report *rep;       /* units (all so far), units_done (members finished) */
    double t0, t_shown;
    long sentences;              /* translated, as the pipeline's progress counts them */
    int shown;                   /* a line is on the screen, not ended by "\n" */
} doc_progress;

static void show_progress(doc_progress *g, long done, int final)
{
    double now = now_seconds(), t = now - g->t0, frac;
    char el[32], eta[32];
    int n_units = g->rep->units;
    if (!final && now - g->t_shown < 0.25)
        return;
    g->t_shown = now;
    frac = n_units > 0 ? (double)done / n_units : 1;
    cli_hms(t, el, sizeof el);
    cli_hms(final || frac <= 0 ? 0 : t * (1 - frac) / frac, eta, sizeof eta);
    fprintf(stderr, "\rxlate: %ld of %d text units, %3.0f%%, %.1f sentences/s, %s elapsed, %s "
            "left\033[K", done, n_units, 100 * frac, t > 0 ? g->sentences / t : 0.0, el, eta);
    g->shown = 1;
    if (final) {
        fputc('\n', stderr);
        g->shown = 0;
    }
}

/* The pipeline's progress: the window's units in proportion to its sentences translated. */
static void on_progress(void *user, const xlate_progress *p)
{
    doc_progress *g = user;
    int m = p->window_sentences > 0 ? p->window_sentences : 1;
    g->sentences = g->rep->sentences + p->window_translated;
    show_progress(g, g->rep->units_done + p->lines_done +
                  (long)((double)p->window_lines * p->window_translated / m), 0);
}

/* The document's bytes: a regular file mapped where it lies (a package is read member by
 * member, not held), else read whole; text formats are read whole with a NUL after them. */
static int load(line_reader *in, int package, char **src, size_t *len, int *mapped, char *err,
                size_t errlen)
{
    struct stat sb;
    *mapped = 0;
    if (package && fstat(in->fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
        void *m;
        if ((size_t)sb.st_size > DOC_MAX_BYTES)
            return xerr(err, errlen, "%s: a document larger than %zu MiB (the bound of "
                        "--format)", in->name, DOC_MAX_BYTES >> 20);
        m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, in->fd, 0);
        if (m != MAP_FAILED) {
            *src = m;
            *len = (size_t)sb.st_size;
            *mapped = 1;
            return 0;
        }
    }
    return read_all(in->fd, in->name, src, len, err, errlen);
}

int cli_doc(xlate_ctx *ctx, const xlate_lines_params *lp, const doc_opts *dopts, int format,
            line_reader *in, writer *out, int quiet, int verbose)
{
    char err[XLATE_ERRLEN], *src = NULL;
    size_t len = 0;
    int status = XLATE_EXIT_OK, rc, mapped = 0;
    const doc_format *f = doc_format_of(format);
    xlate_lines_params q = *lp;
    doc_opts o = *dopts;
    doc_report rep;
    doc_progress g;
    double t0 = now_seconds();

    if (!f || in->fd < 0) {
        fprintf(stderr, "xlate: --format: give the document on stdin or with -i\n");
        return XLATE_EXIT_USAGE;
    }
    if (f->package && out->f == stdout && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "xlate: %s: the translation is a %s package (binary): give -o FILE or "
                "redirect stdout\n", in->name, f->name);
        return XLATE_EXIT_USAGE;
    }
    if (load(in, f->package, &src, &len, &mapped, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        return strstr(err, "out of memory") ? XLATE_EXIT_INTERNAL : XLATE_EXIT_INPUT;
    }
    if (!o.target_lang) {
        xlate_model_info info = xlate_model_get_info(xlate_ctx_model(ctx));
        o.target_lang = lp->target_lang ? lp->target_lang : info.target_lang;
        if (!o.source_lang)
            o.source_lang = lp->source_lang ? lp->source_lang : info.source_lang;
    }
    memset(&g, 0, sizeof g);
    memset(&rep, 0, sizeof rep);
    g.rep = &rep;
    g.t0 = now_seconds();
    if (!quiet && isatty(STDERR_FILENO) && (out->f != stdout || !isatty(STDOUT_FILENO))) {
        q.progress = on_progress;
        q.progress_user = &g;
    }
    rc = doc_format_translate(ctx, &q, &o, f, src, len, in->name, put, out, &rep, err,
                              sizeof err);
    if (g.shown) { /* ended, so that a message starts on a line of its own */
        g.sentences = rep.sentences;
        show_progress(&g, rc ? rep.units_done : rep.units, 1);
    }
    for (int i = 0; !quiet && i < rep.n_warnings && i < 8; i++)
        fprintf(stderr, "xlate: warning: %s\n", rep.warnings[i]);
    if (!quiet && rep.n_warnings > 8)
        fprintf(stderr, "xlate: warning: %s: %d more warnings\n", in->name, rep.n_warnings - 8);
    if (rc == 0 && !quiet && rep.plain_joined)
        fprintf(stderr, "xlate: warning: %s: no %s markup found: translated as %s; for plain "
                "text, leave out --format\n", in->name, format == XLATE_FORMAT_HTML ? "HTML" :
                "Markdown", format == XLATE_FORMAT_HTML ? "one HTML document (its lines joined "
                "as a browser shows them)" : "Markdown (lines without a blank line between "
                "them joined into one paragraph, as a Markdown viewer shows them)");
    if (rc) {
        if (out->failed) {
            status = writer_error(out, 1);
            goto done;
        }
        if (rc == XLATE_ERR_WORKSPACE)
            cli_option_words(err, sizeof err);
        /* the message names the document already */
        fprintf(stderr, "xlate: %s%s%s\n", strncmp(err, in->name, strlen(in->name)) ? in->name
                : "", strncmp(err, in->name, strlen(in->name)) ? ": " : "", err);
        status = rc == XLATE_ERR_LINE || rc == XLATE_ERR_DOC ? XLATE_EXIT_INPUT
                 : rc == XLATE_ERR_WORKSPACE               ? XLATE_EXIT_USAGE
                                                           : XLATE_EXIT_INTERNAL;
        goto done;
    }
    if (!quiet && rep.truncated)
        fprintf(stderr, "xlate: warning: %s: %ld sentence%s longer than the model's input were "
                "cut (--max-input-length)\n", in->name, rep.truncated,
                rep.truncated > 1 ? "s" : "");
    if (verbose)
        fprintf(stderr, "xlate: %s: %zu bytes, %d text units%s, %ld sentences translated; "
                "parse %.3f s, translate %.3f s, total %.3f s\n", in->name, len, rep.units,
                f->package ? " in the package's text members" : "", rep.sentences,
                rep.parse_seconds, rep.translate_seconds, now_seconds() - t0);
done:
    if (mapped)
        munmap(src, len);
    else
        free(src);
    return status;
}
