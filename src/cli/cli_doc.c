/* cli_doc.c — a document translated whole (--format html|markdown): read it all (a document is
 * parsed as one: a paragraph's markup may span any number of lines), parse it into text units
 * (src/doc/html.c, markdown.c), translate every unit in one run (doc_translate: sorted and
 * batched together), write it back. The document is held in memory once, plus its units'
 * texts and translations: linear in its size. */
#include "cli/cli_doc.h"
#include "cli/cli.h"
#include "cli/cli_decode_opts.h"
#include "base/util.h"
#include "doc/doc.h"
#include "doc/html.h"
#include "doc/markdown.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DOC_MAX_BYTES ((size_t)1 << 30) /* a document larger than 1 GiB is refused */

static const struct {
    const char *name;
    int fmt;
    int (*parse)(doc *d, char *err, size_t errlen);
} formats[] = {
    {"html", DOCFMT_HTML, html_parse},
    {"markdown", DOCFMT_MARKDOWN, markdown_parse},
    {"md", DOCFMT_MARKDOWN, markdown_parse},
};

int cli_doc_format(const char *name)
{
    char q[200];
    if (strcmp(name, "text") == 0)
        return DOCFMT_NONE;
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(name, formats[i].name) == 0)
            return formats[i].fmt;
    fprintf(stderr, "xlate: --format: expected text, html or markdown, got \"%s\"\n",
            cli_quote(q, sizeof q, name, strlen(name)));
    return -1;
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

/* 1 when the document has no markup at all (nothing kept but whitespace, no inline element)
 * and yet fewer units than non-blank lines: plain text given with --format, its lines joined
 * as the format reads them, likely not what was meant. */
static int plain_text_joined(const doc *d)
{
    long lines = 0;
    int blank = 1;
    for (int i = 0; i < d->n_parts; i++)
        for (size_t k = 0; d->parts[i].unit < 0 && k < d->parts[i].len; k++)
            if (!strchr(" \t\r\n", d->parts[i].s[k]))
                return 0;
    for (int i = 0; i < d->n_units; i++)
        if (d->units[i].n_ranges > 0)
            return 0;
    for (size_t k = 0; k < d->src_len; k++) {
        if (d->src[k] == '\n') {
            lines += !blank;
            blank = 1;
        } else if (!strchr(" \t\r", d->src[k])) {
            blank = 0;
        }
    }
    lines += !blank;
    return d->n_units > 0 && lines > d->n_units;
}

/* <html lang=".."> becomes the target language: --target-lang's when it is a language code,
 * else the model's (config.json "target_lang"); kept when neither says. buf: [16] for it, the
 * doc's part points there until it is written. */
static void set_lang(doc *d, const xlate_ctx *ctx, const xlate_lines_params *lp, char *buf)
{
    xlate_model_info info = xlate_model_get_info(xlate_ctx_model(ctx));
    const char *t = lp->target_lang ? lp->target_lang : info.target_lang;
    size_t n = t ? strlen(t) : 0;
    if (d->lang_part < 0 || n == 0 || n >= 16 || strspn(t, "abcdefghijklmnopqrstuvwxyz"
                                                      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != n)
        return; /* nothing to set, or not a tag an attribute can hold as it is */
    memcpy(buf, t, n + 1);
    d->parts[d->lang_part].s = buf;
    d->parts[d->lang_part].len = n;
}

/* The progress line, as line mode's (cli_translate.c), its text units for lines: on a terminal
 * only, not when the document goes to the same terminal, at most four times a second. The
 * share is of the units, which differ in length: a guide, as line mode's share of bytes. */
typedef struct {
    int n_units;
    const xlate_lines_stats *st; /* the run's, as the pipeline counts them */
    double t0, t_shown;
    int shown;                   /* a line is on the screen, not ended by "\n" */
} doc_progress;

static void show_progress(doc_progress *g, long done, int final)
{
    double now = now_seconds(), t = now - g->t0, frac;
    char el[32], eta[32];
    if (!final && now - g->t_shown < 0.25)
        return;
    g->t_shown = now;
    frac = g->n_units > 0 ? (double)done / g->n_units : 1;
    cli_hms(t, el, sizeof el);
    cli_hms(final || frac <= 0 ? 0 : t * (1 - frac) / frac, eta, sizeof eta);
    fprintf(stderr, "\rxlate: %ld of %d text units, %3.0f%%, %.1f sentences/s, %s elapsed, %s "
            "left\033[K", done, g->n_units, 100 * frac, t > 0 ? g->st->sentences / t : 0.0, el,
            eta);
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
    show_progress(g, p->lines_done + (long)((double)p->window_lines * p->window_translated / m),
                  0);
}

int cli_doc(xlate_ctx *ctx, const xlate_lines_params *lp, int format, line_reader *in,
            writer *out, int quiet, int verbose)
{
    char err[XLATE_ERRLEN], *src = NULL, lang[16];
    size_t len = 0;
    int status = XLATE_EXIT_OK, rc;
    int (*parse)(doc *, char *, size_t) = NULL;
    xlate_lines_stats st;
    xlate_lines_params q = *lp;
    doc_progress g;
    doc d;
    double t0 = now_seconds(), t_parse;

    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i].fmt == format)
            parse = formats[i].parse;
    doc_init(&d, NULL, 0);
    if (!parse || in->fd < 0) {
        fprintf(stderr, "xlate: --format: give the document on stdin or with -i\n");
        return XLATE_EXIT_USAGE;
    }
    if (read_all(in->fd, in->name, &src, &len, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        return strstr(err, "out of memory") ? XLATE_EXIT_INTERNAL : XLATE_EXIT_INPUT;
    }
    doc_init(&d, src, len);
    if (parse(&d, err, sizeof err)) {
        fprintf(stderr, "xlate: %s: %s\n", in->name, err);
        status = XLATE_EXIT_INTERNAL;
        goto done;
    }
    t_parse = now_seconds() - t0;
    for (int i = 0; !quiet && i < d.n_warnings && i < 8; i++)
        fprintf(stderr, "xlate: warning: %s: %s\n", in->name, d.warnings[i]);
    if (!quiet && d.n_warnings > 8)
        fprintf(stderr, "xlate: warning: %s: %d more warnings\n", in->name, d.n_warnings - 8);
    if (!quiet && plain_text_joined(&d))
        fprintf(stderr, "xlate: warning: %s: no %s markup found: translated as %s; for plain "
                "text, leave out --format\n", in->name, format == DOCFMT_HTML ? "HTML" :
                "Markdown", format == DOCFMT_HTML ? "one HTML document (its lines joined as a "
                "browser shows them)" : "Markdown (lines without a blank line between them "
                "joined into one paragraph, as a Markdown viewer shows them)");
    memset(&st, 0, sizeof st);
    memset(&g, 0, sizeof g);
    g.n_units = d.n_units;
    g.st = &st;
    g.t0 = now_seconds();
    if (!quiet && isatty(STDERR_FILENO) && (out->f != stdout || !isatty(STDOUT_FILENO))) {
        q.progress = on_progress;
        q.progress_user = &g;
    }
    rc = doc_translate(ctx, &q, &d, &st, err, sizeof err);
    if (g.shown) /* ended, so that a message starts on a line of its own */
        show_progress(&g, rc ? (long)st.lines : d.n_units, 1);
    if (rc) {
        if (rc == XLATE_ERR_WORKSPACE)
            cli_option_words(err, sizeof err);
        fprintf(stderr, "xlate: %s: %s\n", in->name, err);
        status = rc == XLATE_ERR_LINE        ? XLATE_EXIT_INPUT
                 : rc == XLATE_ERR_WORKSPACE ? XLATE_EXIT_USAGE /* --workspace too small */
                                             : XLATE_EXIT_INTERNAL;
        goto done;
    }
    if (!quiet && st.truncated)
        fprintf(stderr, "xlate: warning: %s: %ld sentence%s longer than the model's input were "
                "cut (--max-input-length)\n", in->name, st.truncated,
                st.truncated > 1 ? "s" : "");
    set_lang(&d, ctx, lp, lang);
    if (doc_write(&d, put, out)) {
        status = writer_error(out, 1);
        goto done;
    }
    if (verbose)
        fprintf(stderr, "xlate: %s: %zu bytes, %d text units, %ld sentences translated; parse "
                "%.3f s, translate %.3f s, total %.3f s\n", in->name, len, d.n_units,
                st.sentences, t_parse, st.translate_seconds, now_seconds() - t0);
done:
    doc_free(&d);
    free(src);
    return status;
}
