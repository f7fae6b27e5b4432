/* formats.c — the formats' table and doc_format_translate (formats.h): a text document parsed,
 * translated, finished and written; a package handed to pkg.c. */
#include "doc/formats.h"
#include "base/util.h"
#include "doc/html.h"
#include "doc/markdown.h"
#include "doc/pkg.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int html_build(doc *d, const doc_opts *o, char *err, size_t errlen)
{
    (void)o;
    return html_parse(d, err, errlen);
}

static int markdown_build(doc *d, const doc_opts *o, char *err, size_t errlen)
{
    (void)o;
    return markdown_parse(d, err, errlen);
}

/* <html lang=".."> becomes the target language when it is a plain tag an attribute holds as it
 * is; kept when none is known. The part points into the doc's own copy. */
static int html_finish(doc *d, const doc_opts *o, char *err, size_t errlen)
{
    const char *t = o ? o->target_lang : NULL;
    size_t n = t ? strlen(t) : 0;
    char *c;
    if (d->lang_part < 0 || n == 0 || n >= 16 ||
        strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != n)
        return 0;
    if (!(c = doc_copy(d, t, n)))
        return xerr(err, errlen, "out of memory");
    d->parts[d->lang_part].s = c;
    d->parts[d->lang_part].len = n;
    return 0;
}

static const doc_format formats[] = {
    {XLATE_FORMAT_HTML, "html", ".html .htm .xhtml ", "text/html; charset=utf-8", 0, html_build,
     html_finish, NULL},
    {XLATE_FORMAT_MARKDOWN, "markdown", ".md .markdown ", "text/markdown; charset=utf-8", 0,
     markdown_build, NULL, NULL},
    {XLATE_FORMAT_SRT, "srt", ".srt ", "application/x-subrip", 0, srt_parse, subtitle_finish,
     NULL},
    {XLATE_FORMAT_VTT, "vtt", ".vtt ", "text/vtt; charset=utf-8", 0, vtt_parse, subtitle_finish,
     NULL},
    {XLATE_FORMAT_PO, "po", ".po .pot ", "text/x-gettext-translation; charset=utf-8", 0, po_parse,
     po_finish, NULL},
    {XLATE_FORMAT_DOCX, "docx", ".docx ",
     "application/vnd.openxmlformats-officedocument.wordprocessingml.document", 1, NULL, NULL,
     docx_plan},
    {XLATE_FORMAT_PPTX, "pptx", ".pptx ",
     "application/vnd.openxmlformats-officedocument.presentationml.presentation", 1, NULL, NULL,
     pptx_plan},
    {XLATE_FORMAT_ODT, "odt", ".odt ", "application/vnd.oasis.opendocument.text", 1, NULL, NULL,
     odf_plan},
    {XLATE_FORMAT_ODP, "odp", ".odp ", "application/vnd.oasis.opendocument.presentation", 1, NULL,
     NULL, odf_plan},
    {XLATE_FORMAT_EPUB, "epub", ".epub ", "application/epub+zip", 1, NULL, NULL, epub_plan},
};
#define N_FORMATS (sizeof formats / sizeof formats[0])

const doc_format *doc_format_at(int i)
{
    return i >= 0 && (size_t)i < N_FORMATS ? &formats[i] : NULL;
}

const doc_format *doc_format_named(const char *name)
{
    if (!name)
        return NULL;
    if (!strcmp(name, "md"))
        name = "markdown";
    for (size_t i = 0; i < N_FORMATS; i++)
        if (!strcmp(name, formats[i].name))
            return &formats[i];
    return NULL;
}

const doc_format *doc_format_of(int id)
{
    for (size_t i = 0; i < N_FORMATS; i++)
        if (formats[i].id == id)
            return &formats[i];
    return NULL;
}

const doc_format *doc_format_for_name(const char *filename)
{
    const char *dot = filename ? strrchr(filename, '.') : NULL, *sl;
    char ext[24];
    size_t n;
    if (!dot || ((sl = strrchr(filename, '/')) && sl > dot) || (n = strlen(dot)) >= 20)
        return NULL;
    for (size_t k = 0; k < n; k++)
        ext[k] = (char)(dot[k] >= 'A' && dot[k] <= 'Z' ? dot[k] + 32 : dot[k]);
    ext[n] = ' ';
    ext[n + 1] = '\0';
    for (size_t i = 0; i < N_FORMATS; i++) {
        const char *e = formats[i].exts;
        for (const char *p = strstr(e, ext); p; p = strstr(p + 1, ext))
            if (p == e || p[-1] == ' ')
                return &formats[i];
    }
    return NULL;
}

void doc_report_warn(doc_report *rep, const char *fmt, ...)
{
    va_list ap;
    if (!rep)
        return;
    if (rep->n_warnings < 8) {
        va_start(ap, fmt);
        vsnprintf(rep->warnings[rep->n_warnings], sizeof rep->warnings[0], fmt, ap);
        va_end(ap);
    }
    rep->n_warnings++;
}

/* 1 when the document has no markup at all (nothing kept but whitespace, no inline element)
 * and yet fewer units than non-blank lines: plain text given as HTML or Markdown, its lines
 * joined as the format reads them, likely not what was meant. */
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

typedef struct {
    int (*write)(void *user, const char *s, size_t len);
    void *user;
    int failed;
} sink;

static int sink_put(void *user, const char *s, size_t len)
{
    sink *k = user;
    if (!k->failed && k->write(k->user, s, len))
        k->failed = 1;
    return k->failed;
}

int doc_format_translate(xlate_ctx *ctx, const xlate_lines_params *p, const doc_opts *o,
                         const doc_format *f, const char *src, size_t len, const char *name,
                         int (*write)(void *user, const char *s, size_t len), void *user,
                         doc_report *rep, char *err, size_t errlen)
{
    doc_report own;
    xlate_lines_stats st;
    sink k = {write, user, 0};
    doc d;
    double t0 = now_seconds();
    int rc;
    if (!rep)
        rep = &own;
    memset(rep, 0, sizeof *rep);
    if (!f)
        return xerr(err, errlen, "no document format given"), XLATE_ERR;
    if (f->package)
        return pkg_translate(ctx, p, o, f, src, len, name, write, user, rep, err, errlen);
    doc_init(&d, src, len);
    if ((rc = f->parse(&d, o, err, errlen))) {
        char m[XLATE_ERRLEN];
        snprintf(m, sizeof m, "%s", err);
        xerr(err, errlen, "%s: %s", name, m);
        rc = strstr(m, "out of memory") ? XLATE_ERR : XLATE_ERR_DOC;
        goto done;
    }
    for (int i = 0; i < d.n_warnings && i < 8; i++)
        doc_report_warn(rep, "%s: %s", name, d.warnings[i]);
    rep->n_warnings += d.n_warnings > 8 ? d.n_warnings - 8 : 0;
    rep->units = d.n_units;
    rep->plain_joined = (f->id == XLATE_FORMAT_HTML || f->id == XLATE_FORMAT_MARKDOWN) &&
                        plain_text_joined(&d);
    rep->parse_seconds = now_seconds() - t0;
    memset(&st, 0, sizeof st);
    rc = ctx ? doc_translate(ctx, p, &d, &st, err, errlen) : 0;
    if (rc == 0)
        rep->units_done = d.n_units;
    rep->sentences = st.sentences;
    rep->truncated = st.truncated;
    rep->translate_seconds = st.translate_seconds;
    if (rc)
        goto done;
    if (f->finish && f->finish(&d, o, err, errlen)) {
        rc = XLATE_ERR;
        goto done;
    }
    if (doc_write(&d, sink_put, &k) || k.failed) {
        rc = XLATE_ERR;
        xerr(err, errlen, "cannot write the translation of %s", name);
    }
done:
    doc_free(&d);
    return rc;
}

/* ---- xlate.h's names of the formats ---- */

int xlate_format_named(const char *name)
{
    const doc_format *f;
    if (name && !strcmp(name, "text"))
        return XLATE_FORMAT_TEXT;
    return (f = doc_format_named(name)) ? f->id : -1;
}

int xlate_format_detect(const char *filename, const char *data, size_t len)
{
    const doc_format *f = doc_format_for_name(filename);
    const char *dot = filename ? strrchr(filename, '.') : NULL;
    if (f)
        return f->id;
    if (dot && !strcasecmp(dot, ".txt"))
        return XLATE_FORMAT_TEXT;
    return data ? pkg_sniff(data, len) : -1;
}

const char *xlate_format_name(int format)
{
    const doc_format *f = doc_format_of(format);
    return format == XLATE_FORMAT_TEXT ? "text" : f ? f->name : NULL;
}

const doc_format *doc_format_sniff(const char *s, size_t len)
{
    int id = pkg_sniff(s, len);
    return id >= 0 ? doc_format_of(id) : NULL;
}
