/* doc.c — a document's units translated together and written back with their markup (doc.h).
 * The builders the formats use; doc_translate, which hands the units to xlate_translate_lines
 * as lines and moves each unit's elements onto its translation (transfer.h); doc_write, which
 * walks each unit's elements in document order with a stack (no recursion: 100,000 nested
 * elements cost a stack of 100,000 ints, not the C stack). */
#include "doc/doc.h"
#include "base/util.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int doc_grow(void *p, int *cap, int n, size_t sz)
{
    void **pp = p;
    if (n <= *cap)
        return 0;
    if (n > (1 << 30))
        return -1;
    int c = *cap ? *cap : 16;
    while (c < n)
        c = c > (1 << 29) ? (1 << 30) : 2 * c;
    void *q = realloc(*pp, (size_t)c * sz);
    if (!q)
        return -1;
    *pp = q;
    *cap = c;
    return 0;
}

void doc_init(doc *d, const char *src, size_t len)
{
    memset(d, 0, sizeof *d);
    d->src = src;
    d->src_len = len;
    d->lang_part = -1;
}

void doc_free(doc *d)
{
    for (int i = 0; i < d->n_units; i++) {
        free(d->units[i].text);
        free(d->units[i].ranges);
        free(d->units[i].marks);
        free(d->units[i].out);
        free(d->units[i].spell);
    }
    if (d->format_free)
        d->format_free(d->format_data);
    for (int i = 0; i < d->n_copies; i++)
        free(d->copies[i]);
    free(d->copies);
    free(d->units);
    free(d->parts);
    free(d->mark_parts);
    memset(d, 0, sizeof *d);
}

char *doc_copy(doc *d, const char *s, size_t len)
{
    char *c;
    if (doc_grow(&d->copies, &d->cap_copies, d->n_copies + 1, sizeof *d->copies) ||
        !(c = malloc(len + 1)))
        return NULL;
    if (len)
        memcpy(c, s, len);
    c[len] = '\0';
    d->copies[d->n_copies++] = c;
    return c;
}

int doc_keep(doc *d, const char *s, size_t len, char *err, size_t errlen)
{
    doc_part *last = d->n_parts ? &d->parts[d->n_parts - 1] : NULL;
    if (len == 0)
        return 0;
    if (last && last->unit < 0 && last->s + last->len == s) {
        last->len += len;
        return 0;
    }
    if (doc_grow(&d->parts, &d->cap_parts, d->n_parts + 1, sizeof *d->parts))
        return xerr(err, errlen, "out of memory");
    d->parts[d->n_parts++] = (doc_part){-1, s, len};
    return 0;
}

int doc_new_unit(doc *d, doc_escape esc, long line, int *unit, char *err, size_t errlen)
{
    if (doc_grow(&d->units, &d->cap_units, d->n_units + 1, sizeof *d->units))
        return xerr(err, errlen, "out of memory");
    doc_unit *u = &d->units[d->n_units];
    memset(u, 0, sizeof *u);
    if (!(u->text = malloc(16)))
        return xerr(err, errlen, "out of memory");
    u->text[0] = '\0';
    u->cap_text = 16;
    u->escape = esc;
    u->line = line;
    *unit = d->n_units++;
    return 0;
}

int doc_put_unit(doc *d, int unit, char *err, size_t errlen)
{
    if (doc_grow(&d->parts, &d->cap_parts, d->n_parts + 1, sizeof *d->parts))
        return xerr(err, errlen, "out of memory");
    d->parts[d->n_parts++] = (doc_part){unit, NULL, 0};
    return 0;
}

int doc_unit_text(doc *d, int unit, const char *s, size_t len, char *err, size_t errlen)
{
    doc_unit *u = &d->units[unit];
    if (u->len + len + 1 > (size_t)(1 << 30))
        return xerr(err, errlen, "line %ld: a text unit over 1 GiB", u->line);
    if (doc_grow(&u->text, &u->cap_text, (int)(u->len + len + 1), 1))
        return xerr(err, errlen, "out of memory");
    memcpy(u->text + u->len, s, len);
    u->len += len;
    u->text[u->len] = '\0';
    return 0;
}

int doc_begin_elem(doc *d, int unit, int parent, int *elem, char *err, size_t errlen)
{
    doc_unit *u = &d->units[unit];
    int n = u->n_ranges, cap = u->cap_ranges;
    if (doc_grow(&u->ranges, &cap, n + 1, sizeof *u->ranges) ||
        doc_grow(&u->marks, &u->cap_ranges, n + 1, sizeof *u->marks))
        return xerr(err, errlen, "out of memory");
    u->ranges[n] = (doc_range){u->len, u->len, parent};
    u->marks[n] = (doc_mark){0, 0, 0, 0, 0, 0, 0, 0};
    u->n_ranges = n + 1;
    *elem = n;
    return 0;
}

int doc_unit_spell(doc *d, int unit, size_t start, size_t end, int ref, char *err,
                   size_t errlen)
{
    doc_unit *u = &d->units[unit];
    if (doc_grow(&u->spell, &u->cap_spell, u->n_spell + 1, sizeof *u->spell))
        return xerr(err, errlen, "out of memory");
    u->spell[u->n_spell++] = (doc_spelling){start, end, ref};
    return 0;
}

void doc_end_elem(doc *d, int unit, int elem)
{
    d->units[unit].ranges[elem].end = d->units[unit].len;
}

int doc_mark_part(doc *d, int unit, int elem, int which, int part_unit, const char *s,
                  size_t len, char *err, size_t errlen)
{
    doc_unit *u = &d->units[unit];
    doc_mark *m = which >= DOC_WRAP_OPEN ? NULL : &u->marks[elem];
    int *first = which == DOC_WRAP_OPEN    ? &u->wrap_open
                 : which == DOC_WRAP_CLOSE ? &u->wrap_close
                 : which == DOC_OPEN       ? &m->open
                 : which == DOC_CLOSE      ? &m->close
                                           : &m->keep;
    int *count = which == DOC_WRAP_OPEN    ? &u->n_wrap_open
                 : which == DOC_WRAP_CLOSE ? &u->n_wrap_close
                 : which == DOC_OPEN       ? &m->n_open
                 : which == DOC_CLOSE      ? &m->n_close
                                           : &m->n_keep;
    if (part_unit < 0 && len == 0)
        return 0;
    /* bytes that follow the last part in memory join it */
    if (part_unit < 0 && *count > 0 && *first + *count == d->n_mark_parts) {
        doc_part *last = &d->mark_parts[d->n_mark_parts - 1];
        if (last->unit < 0 && last->s + last->len == s) {
            last->len += len;
            return 0;
        }
    }
    if (doc_grow(&d->mark_parts, &d->cap_mark_parts, d->n_mark_parts + 1, sizeof *d->mark_parts))
        return xerr(err, errlen, "out of memory");
    if (*count == 0)
        *first = d->n_mark_parts;
    d->mark_parts[d->n_mark_parts++] = (doc_part){part_unit, s, len};
    (*count)++;
    return 0;
}

void doc_warn(doc *d, long line, const char *fmt, ...)
{
    if (d->n_warnings < 8) {
        char *w = d->warnings[d->n_warnings];
        int k = snprintf(w, sizeof d->warnings[0], "line %ld: ", line);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w + k, sizeof d->warnings[0] - (size_t)k, fmt, ap);
        va_end(ap);
    }
    d->n_warnings++;
}

/* ---- translation ---- */

typedef struct {
    doc *d;
    const xlate_model *m;
    int next; /* the next unit to hand out */
} doc_run;

static int has_words(const doc_unit *u)
{
    for (size_t i = 0; i < u->len; i++)
        if (u->text[i] != ' ')
            return 1;
    return 0;
}

static int doc_next(void *user, xlate_line *line, char *err, size_t errlen)
{
    doc_run *r = user;
    (void)err;
    (void)errlen;
    while (r->next < r->d->n_units && !has_words(&r->d->units[r->next]))
        r->next++;
    if (r->next >= r->d->n_units)
        return 0;
    doc_unit *u = &r->d->units[r->next];
    *line = (xlate_line){.text = u->text, .len = u->len, .tag = r->next};
    r->next++;
    return 1;
}

/* 1 when [w0, w1) is clear of element i's siblings (looked for among the 64 elements either
 * side, parent p). */
static int md_clear(const doc_unit *u, int i, int p, size_t w0, size_t w1)
{
    if (w1 <= w0)
        return 0;
    for (int j = i - 64 > p + 1 ? i - 64 : p + 1; j < u->n_ranges && j <= i + 64; j++)
        if (j != i && u->ranges[j].parent == p && u->ranges[j].start < w1 &&
            u->ranges[j].end > w0)
            return 0;
    return 1;
}

/* Markdown: an element with content (emphasis, a link; not a void or keep one) that held words
 * in the source and none in the translation (its words aligned to nothing) is given the word
 * after its point, else the one before, inside its parent and clear of its siblings: an empty
 * emphasis cannot be written ("****" is a thematic break). had: [n_ranges]. */
static void md_fill_empty(doc_unit *u, const char *had)
{
    const char *s = u->out;
    size_t len = u->out_len;
    for (int i = 0; i < u->n_ranges; i++) {
        doc_range *r = &u->ranges[i];
        const doc_mark *m = &u->marks[i];
        if (!had[i] || r->start != r->end || m->n_close == 0 || m->n_keep > 0)
            continue;
        int p = r->parent;
        size_t lo = p >= 0 ? u->ranges[p].start : 0, hi = p >= 0 ? u->ranges[p].end : len;
        size_t at = r->start < lo ? lo : r->start > hi ? hi : r->start, a0 = at, a1, b0, b1 = at;
        while (a0 < hi && s[a0] == ' ')
            a0++;
        for (a1 = a0; a1 < hi && s[a1] != ' ';)
            a1++;
        while (b1 > lo && s[b1 - 1] == ' ')
            b1--;
        for (b0 = b1; b0 > lo && s[b0 - 1] != ' ';)
            b0--;
        /* (a sibling inside the word takes its part: the rest of the word will do) */
        for (int j = i - 64 > p + 1 ? i - 64 : p + 1; j < u->n_ranges && j <= i + 64; j++) {
            const doc_range *q = &u->ranges[j];
            if (j == i || q->parent != p)
                continue;
            if (q->start > a0 && q->start < a1)
                a1 = q->start;
            if (q->end > b0 && q->end < b1)
                b0 = q->end;
        }
        if (md_clear(u, i, p, a0, a1)) { /* (its empty descendants are clamped into it) */
            r->start = a0;
            r->end = a1;
        } else if (md_clear(u, i, p, b0, b1)) {
            r->start = b0;
            r->end = b1;
        }
    }
}

/* The unit's elements moved onto its translation text (doc.h): the alignment of each
 * sentence's hypothesis in line hypothesis h, its target tokens' spans found in the joined text
 * (each sentence's text is a piece of it, in order: xlate_translation_text). */
int doc_move_elements(const xlate_model *m, doc *d, int unit, const xlate_translation *t, int h,
                      char *err, size_t errlen)
{
    doc_unit *u = &d->units[unit];
    int n_src = 0, n_tgt = 0, rc = -1;
    char *had = NULL; /* Markdown: [n_ranges] the element held words in the source */
    unsigned char *kept = NULL; /* [n_ranges] a keep element */
    for (int k = 0; k < t->n_segments; k++) {
        const xlate_segment *sg = &t->segments[k];
        int w = t->hyp_of ? t->hyp_of[h * t->n_segments + k] : h;
        n_src += sg->src_tokens;
        if (sg->res && w >= 0 && w < sg->res->n_hyps)
            n_tgt += sg->res->hyps[w].n;
    }
    int *src_spans = malloc(sizeof(int) * (2 * (size_t)n_src + 1));
    int *tgt_spans = malloc(sizeof(int) * (2 * (size_t)n_tgt + 1));
    int *align = malloc(sizeof(int) * ((size_t)n_tgt + 1));
    char *text = NULL;
    int *sp = NULL;
    if (!src_spans || !tgt_spans || !align) {
        xerr(err, errlen, "out of memory");
        goto done;
    }
    int s0 = 0, t0 = 0;
    size_t cursor = 0;
    for (int k = 0; k < t->n_segments; k++) {
        const xlate_segment *sg = &t->segments[k];
        int w = t->hyp_of ? t->hyp_of[h * t->n_segments + k] : h;
        const xlate_hypothesis *hy =
            sg->res && w >= 0 && w < sg->res->n_hyps ? &sg->res->hyps[w] : NULL;
        for (int i = 0; i < sg->src_tokens; i++) {
            src_spans[2 * (s0 + i)] = sg->src_spans ? sg->src_spans[2 * i] : 0;
            src_spans[2 * (s0 + i) + 1] = sg->src_spans ? sg->src_spans[2 * i + 1] : 0;
        }
        if (hy) {
            size_t at = SIZE_MAX, len = 0;
            if (xlate_detokenize_spans(m, hy->ids, hy->n, &text, &sp, err, errlen) == 0) {
                len = strlen(text);
                const char *hit = cursor <= u->out_len
                                      ? memmem(u->out + cursor, u->out_len - cursor, text, len)
                                      : NULL;
                at = hit ? (size_t)(hit - u->out) : SIZE_MAX;
            }
            for (int j = 0; j < hy->n; j++) {
                int a = hy->alignment && sg->src_spans ? hy->alignment[j] : -1;
                align[t0 + j] = a >= 0 && a < sg->src_tokens ? s0 + a : -1;
                if (at != SIZE_MAX && sp) {
                    tgt_spans[2 * (t0 + j)] = (int)(at + (size_t)sp[2 * j]);
                    tgt_spans[2 * (t0 + j) + 1] = (int)(at + (size_t)sp[2 * j + 1]);
                } else { /* (its text not found: the token aligns nowhere) */
                    tgt_spans[2 * (t0 + j)] = tgt_spans[2 * (t0 + j) + 1] = 0;
                    align[t0 + j] = -1;
                }
            }
            if (at != SIZE_MAX)
                cursor = at + len;
            free(text);
            free(sp);
            text = NULL;
            sp = NULL;
            t0 += hy->n;
        }
        s0 += sg->src_tokens;
    }
    doc_alignment al = {src_spans, n_src, tgt_spans, n_tgt, align};
    if (u->escape == DOC_ESC_MARKDOWN && !(had = malloc((size_t)u->n_ranges))) {
        xerr(err, errlen, "out of memory");
        goto done;
    }
    for (int i = 0; had && i < u->n_ranges; i++) {
        had[i] = 0;
        for (size_t k = u->ranges[i].start; k < u->ranges[i].end && !had[i]; k++)
            had[i] = u->text[k] != ' ';
    }
    /* kept elements (inline code, autolinks, URLs): found by their text (transfer.h) */
    if (!(kept = malloc((size_t)u->n_ranges + 1))) {
        xerr(err, errlen, "out of memory");
        goto done;
    }
    for (int i = 0; i < u->n_ranges; i++)
        kept[i] = u->marks[i].n_keep > 0;
    rc = doc_transfer_kept(u->ranges, u->n_ranges, kept, &al, u->text, u->len, u->out,
                           u->out_len, err, errlen);
    if (rc == 0 && had) {
        md_fill_empty(u, had);
        md_place(d, u);
    }
done:
    free(had);
    free(kept);
    free(src_spans);
    free(tgt_spans);
    free(align);
    return rc;
}

/* A space the unit's text begins or ends with, given to its translation too (the ranges
 * moved past a space put in front): an OOXML paragraph cut by a text box keeps the space
 * between its text and the box. Returns 0 or -1 (out of memory). */
static int keep_edges(doc_unit *u)
{
    int head = u->len > 0 && u->text[0] == ' ' && (u->out_len == 0 || u->out[0] != ' ');
    int tail = u->len > 0 && u->text[u->len - 1] == ' ' &&
               (u->out_len == 0 || u->out[u->out_len - 1] != ' ');
    char *o;
    if (!head && !tail)
        return 0;
    if (!(o = malloc(u->out_len + 3)))
        return -1;
    memcpy(o + head, u->out, u->out_len);
    if (head)
        o[0] = ' ';
    if (tail)
        o[head + u->out_len] = ' ';
    o[u->out_len + (size_t)head + (size_t)tail] = '\0';
    free(u->out);
    u->out = o;
    u->out_len += (size_t)head + (size_t)tail;
    for (int i = 0; head && i < u->n_ranges; i++) {
        u->ranges[i].start++;
        u->ranges[i].end++;
    }
    return 0;
}

static int doc_put(void *user, const xlate_translation *t, char *err, size_t errlen)
{
    doc_run *r = user;
    doc_unit *u = &r->d->units[t->tag];
    char *text = NULL;
    if (t->res->n_hyps == 0)
        return 0; /* no tokens: written as it is */
    if (xlate_translation_text(r->m, t, 0, &text, err, errlen))
        return -1;
    free(u->out);
    u->out = text;
    u->out_len = strlen(text);
    if (u->n_ranges > 0 && doc_move_elements(r->m, r->d, (int)t->tag, t, 0, err, errlen))
        return -1;
    if (u->keep_edges && keep_edges(u))
        return xerr(err, errlen, "out of memory");
    return 0;
}

int doc_translate(xlate_ctx *ctx, const xlate_lines_params *p, doc *d, xlate_lines_stats *stats,
                  char *err, size_t errlen)
{
    doc_run r = {d, xlate_ctx_model(ctx), 0};
    xlate_lines_params q = *p;
    for (int i = 0; i < d->n_units; i++)
        if (doc_mark_urls(d, i, err, errlen))
            return XLATE_ERR;
    for (int i = 0; i < d->n_units; i++)
        if (d->units[i].n_ranges > 0)
            q.decode.alignments = 1;
    q.decode.n_best = 1;
    xlate_source in = {doc_next, NULL, &r};
    xlate_sink out = {doc_put, NULL, &r};
    return xlate_translate_lines(ctx, &q, &in, &out, stats, err, errlen);
}

/* ---- writing ---- */

typedef int (*write_fn)(void *user, const char *s, size_t len);

static int escape_html(const char *s, size_t len, int attr, write_fn write, void *user)
{
    size_t from = 0;
    for (size_t i = 0; i < len; i++) {
        const char *rep = NULL;
        size_t skip = 1;
        unsigned char c = (unsigned char)s[i];
        if (c == '&')
            rep = "&amp;";
        else if (c == '<' && !attr)
            rep = "&lt;";
        else if (c == '>' && !attr)
            rep = "&gt;";
        else if (c == '"' && attr)
            rep = "&quot;";
        else if (c == 0xC2 && i + 1 < len && (unsigned char)s[i + 1] == 0xA0) {
            rep = "&nbsp;";
            skip = 2;
        }
        if (!rep)
            continue;
        if ((i > from && write(user, s + from, i - from)) || write(user, rep, strlen(rep)))
            return -1;
        i += skip - 1;
        from = i + 1;
    }
    return len > from ? write(user, s + from, len - from) : 0;
}

/* XML character data (attr 0) or a double-quoted attribute value (attr 1). */
static int escape_xml(const char *s, size_t len, int attr, write_fn write, void *user)
{
    size_t from = 0;
    for (size_t i = 0; i < len; i++) {
        const char *rep = NULL;
        switch (s[i]) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = attr ? NULL : "&gt;"; break;
        case '"': rep = attr ? "&quot;" : NULL; break;
        case '\t': rep = attr ? "&#9;" : NULL; break;
        case '\n': rep = attr ? "&#10;" : NULL; break;
        case '\r': rep = "&#13;"; break; /* (a raw CR is read as LF) */
        default: break;
        }
        if (!rep)
            continue;
        if ((i > from && write(user, s + from, i - from)) || write(user, rep, strlen(rep)))
            return -1;
        from = i + 1;
    }
    return len > from ? write(user, s + from, len - from) : 0;
}

/* The inside of a C-style string literal (PO): backslash escapes. */
static int escape_c(const char *s, size_t len, write_fn write, void *user)
{
    size_t from = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        char rep[8];
        if (c == '\\' || c == '"')
            snprintf(rep, sizeof rep, "\\%c", c);
        else if (c == '\n')
            snprintf(rep, sizeof rep, "\\n");
        else if (c == '\t')
            snprintf(rep, sizeof rep, "\\t");
        else if (c == '\r')
            snprintf(rep, sizeof rep, "\\r");
        else if (c < 0x20 || c == 0x7f)
            snprintf(rep, sizeof rep, "\\%03o", c);
        else
            continue;
        if ((i > from && write(user, s + from, i - from)) || write(user, rep, strlen(rep)))
            return -1;
        from = i + 1;
    }
    return len > from ? write(user, s + from, len - from) : 0;
}

int doc_escape_write(doc_escape esc, const char *s, size_t len,
                     int (*write)(void *user, const char *s, size_t len), void *user)
{
    switch (esc) {
    case DOC_ESC_HTML: return escape_html(s, len, 0, write, user);
    case DOC_ESC_HTML_ATTR: return escape_html(s, len, 1, write, user);
    case DOC_ESC_MARKDOWN: return doc_markdown_escape(s, len, 0, write, user);
    case DOC_ESC_XML: return escape_xml(s, len, 0, write, user);
    case DOC_ESC_XML_ATTR: return escape_xml(s, len, 1, write, user);
    case DOC_ESC_C: return escape_c(s, len, write, user);
    default: return len ? write(user, s, len) : 0;
    }
}

static int write_text(const doc_unit *u, const char *s, size_t len, int at_start, write_fn write,
                      void *user)
{
    if (len == 0)
        return 0;
    switch (u->escape) {
    case DOC_ESC_HTML:
        return escape_html(s, len, 0, write, user);
    case DOC_ESC_HTML_ATTR:
        return escape_html(s, len, 1, write, user);
    case DOC_ESC_MARKDOWN:
        return doc_markdown_escape(s, len, at_start, write, user);
    case DOC_ESC_XML:
        return escape_xml(s, len, 0, write, user);
    case DOC_ESC_XML_ATTR:
        return escape_xml(s, len, 1, write, user);
    case DOC_ESC_C:
        return escape_c(s, len, write, user);
    default:
        return write(user, s, len);
    }
}

static int write_unit(const doc *d, int unit, write_fn write, void *user);

static int write_parts(const doc *d, const doc_part *p, int n, write_fn write, void *user)
{
    if (n <= 0)
        return 0;
    for (int i = 0; i < n; i++)
        if (p[i].unit < 0 ? p[i].len > 0 && write(user, p[i].s, p[i].len)
                          : write_unit(d, p[i].unit, write, user))
            return -1;
    return 0;
}

/* A unit being written: where the output stands, for Markdown. */
typedef struct {
    const doc *d;
    write_fn write;
    void *user;
    int md;               /* DOC_ESC_MARKDOWN */
    int bol;              /* at the start of a line (doc_markdown_escape's at_start) */
    const char *mark_end; /* just after the markup written last; NULL when text came after it */
    int spell;            /* the next of the unit's spellings (untranslated) */
    int last;             /* DOC_OPEN, DOC_CLOSE or DOC_KEEP: the markup written last */
    int inner;            /* the innermost open element, -1: none (the unit's wrap) */
} unit_out;

/* A spelling's text as numeric character references, one per code point (valid UTF-8). */
static int put_refs(unit_out *o, const char *s, size_t len)
{
    const unsigned char *b = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t k = b[i] >= 0xF0 ? 4 : b[i] >= 0xE0 ? 3 : b[i] >= 0xC0 ? 2 : 1;
        unsigned v = k == 1 ? b[i] : b[i] & (0x3Fu >> (k - 1));
        for (size_t j = 1; j < k && i + j < len; j++)
            v = (v << 6) | (b[i + j] & 0x3Fu);
        char ref[16];
        int n = snprintf(ref, sizeof ref, "&#x%X;", v);
        if (o->write(o->user, ref, (size_t)n))
            return -1;
        i += k;
    }
    return 0;
}

static int put_text_in(unit_out *o, const doc_unit *u, const char *s, size_t len);

/* Text, in the unit's wrap where it stands outside every element or directly inside a wrap
 * element (doc_mark.wrap). */
static int put_text(unit_out *o, const doc_unit *u, const char *s, size_t len)
{
    const doc_part *mp = o->d->mark_parts;
    if (len == 0)
        return 0;
    if (u->n_wrap_open + u->n_wrap_close == 0 || (o->inner >= 0 && !u->marks[o->inner].wrap))
        return put_text_in(o, u, s, len);
    if (write_parts(o->d, mp + u->wrap_open, u->n_wrap_open, o->write, o->user) ||
        put_text_in(o, u, s, len) ||
        write_parts(o->d, mp + u->wrap_close, u->n_wrap_close, o->write, o->user))
        return -1;
    return 0;
}

static int put_text_in(unit_out *o, const doc_unit *u, const char *s, size_t len)
{
    if (len == 0)
        return 0;
    o->mark_end = NULL;
    int rc = 0;
    if (!u->out && o->spell < u->n_spell) { /* untranslated: the source's spellings */
        size_t at = (size_t)(s - u->text), end = at + len;
        while (rc == 0 && o->spell < u->n_spell && u->spell[o->spell].start < end) {
            const doc_spelling *p = &u->spell[o->spell++];
            if (p->start < at || p->end > end)
                continue; /* (not inside this piece of text: never so) */
            rc = write_text(u, u->text + at, p->start - at, o->bol, o->write, o->user);
            if (p->start > at)
                o->bol = 0;
            if (rc == 0)
                rc = p->ref ? put_refs(o, u->text + p->start, p->end - p->start)
                            : o->write(o->user, u->text + p->start, p->end - p->start);
            o->bol = 0;
            at = p->end;
        }
        s = u->text + at;
        len = end - at;
    }
    if (rc == 0)
        rc = write_text(u, s, len, o->bol, o->write, o->user);
    o->bol = 0;
    return rc;
}

/* Writes markup parts. In Markdown, a space goes between two pieces of markup that the
 * translation put side by side (they were not so in the source) when they would merge into one
 * delimiter run: "`a`" "`b`" is one code span as "`a``b`", "*a*" "*b*" one emphasis. And the
 * line start is followed through: a part with a line ending leaves the output at a line start
 * when only a block quote's or list's continuation ("> ", blanks) follows it. */
static int put_marks(unit_out *o, int first, int n, int which)
{
    for (int i = 0; i < n; i++) {
        const doc_part *p = &o->d->mark_parts[first + i];
        if (p->unit >= 0) {
            if (write_unit(o->d, p->unit, o->write, o->user))
                return -1;
            o->bol = 0;
            o->mark_end = NULL;
            continue;
        }
        if (p->len == 0)
            continue;
        /* (a closing run then an opening one; two openings or two closings of nested
         * elements may merge, as "***" reads as strong and emphasis) */
        if (o->md && o->mark_end && p->s != o->mark_end && p->s[0] == o->mark_end[-1] &&
            strchr("`*_~", p->s[0]) && (p->s[0] == '`' || (o->last == DOC_CLOSE &&
                                                             which != DOC_CLOSE)) &&
            o->write(o->user, " ", 1))
            return -1;
        if (o->write(o->user, p->s, p->len))
            return -1;
        size_t k = p->len;
        while (k > 0 && p->s[k - 1] != '\n' && p->s[k - 1] != '\r')
            k--;
        if (k > 0)
            o->bol = 1; /* from the last line ending on */
        for (; k < p->len; k++)
            o->bol &= p->s[k] == ' ' || p->s[k] == '\t' || p->s[k] == '>';
        o->mark_end = p->s + p->len;
        o->last = which;
    }
    return 0;
}

/* 1 when a Markdown element's markup is emphasis or strikethrough (* _ ~ only), which cannot
 * be written around nothing: "****" would be a thematic break, "__" text. */
static int md_delims_only(const doc *d, const doc_mark *m)
{
    if (m->n_keep > 0 || m->n_close == 0 || m->n_open == 0)
        return 0;
    for (int i = 0; i < m->n_open; i++) {
        const doc_part *p = &d->mark_parts[m->open + i];
        if (p->unit >= 0 || p->len == 0)
            return 0;
        for (size_t k = 0; k < p->len; k++)
            if (!strchr("*_~", p->s[k]))
                return 0;
    }
    return 1;
}

typedef struct {
    int parent, index;
    size_t start;
} child_key;

static int by_parent_start(const void *a, const void *b)
{
    const child_key *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* order[0..n): the elements in the order the target text meets them: a preorder walk of the
 * tree with each element's children by their target start (siblings do not overlap after
 * doc_transfer, but a translation may swap them: "click the button" -> "den Knopf klicken"),
 * source order between a void and a non-empty sibling at one point. Iterative, O(n log n). */
static int target_order(const doc_unit *u, int *order)
{
    int n = u->n_ranges, k = 0, top = 0, rc = -1;
    child_key *key = malloc(sizeof *key * (size_t)n);
    int *first = malloc(sizeof(int) * ((size_t)n + 2)); /* [n + 2] parent p's children at
                                                          key[first[p + 1] .. first[p + 2]) */
    int *stack = malloc(sizeof(int) * ((size_t)n + 1)), *pos = malloc(sizeof(int) * ((size_t)n + 1));
    if (!key || !first || !stack || !pos)
        goto done;
    for (int i = 0; i < n; i++)
        key[i] = (child_key){u->ranges[i].parent, i, u->ranges[i].start};
    qsort(key, (size_t)n, sizeof *key, by_parent_start);
    memset(first, 0, sizeof(int) * ((size_t)n + 2));
    for (int i = 0; i < n; i++)
        first[key[i].parent + 2]++;
    for (int p = 1; p < n + 2; p++)
        first[p] += first[p - 1];
    stack[0] = -1; /* the unit itself */
    pos[0] = first[0];
    top = 1;
    while (top > 0) {
        int e = stack[top - 1];
        if (pos[top - 1] < first[e + 2]) {
            int c = key[pos[top - 1]++].index;
            order[k++] = c;
            stack[top] = c;
            pos[top++] = first[c + 1];
        } else {
            top--;
        }
    }
    rc = k == n ? 0 : -1;
done:
    free(key);
    free(first);
    free(stack);
    free(pos);
    return rc;
}

/* A byte of a word: not whitespace, not ASCII punctuation (any byte of a non-ASCII letter). */
static int word_byte(char c)
{
    unsigned char b = (unsigned char)c;
    return b >= 0x80 || (b >= '0' && b <= '9') || (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z');
}

/* The unit's text with its elements, in target order (target_order): the open elements on a
 * stack; an element is opened once the walk reaches its start and closed when the next
 * element is not inside it (or at the end). A keep element writes its own content, and the
 * words in its range and its children are skipped. In Markdown, an emphasis the translation
 * left empty is written without its markup (skip). Units inside markup have no elements, so
 * the recursion through write_parts is one level deep. */
static int write_unit(const doc *d, int unit, write_fn write, void *user)
{
    const doc_unit *u = &d->units[unit];
    const char *s = u->out ? u->out : u->text;
    size_t len = u->out ? u->out_len : u->len, at = 0;
    int *stack = NULL, *order = NULL, top = 0, rc = -1;
    int skip_below = -1; /* a keep element open: what is inside it is not written */
    char *skip = NULL;   /* [n_ranges] markup not written */
    unit_out o = {d, write, user, u->escape == DOC_ESC_MARKDOWN, 1, NULL, 0, DOC_OPEN, -1};
    if (u->n_ranges > 0 && (!(stack = malloc(sizeof(int) * (size_t)u->n_ranges)) ||
                            !(order = malloc(sizeof(int) * (size_t)u->n_ranges)) ||
                            !(skip = calloc((size_t)u->n_ranges, 1)) || target_order(u, order)))
        goto done;
    /* an empty emphasis (or an element marked drop_empty: an OOXML run, made only for runs
     * with text) is not written, unless markup is written inside it ("*<a>*": an inline tag,
     * or an emphasis around one): children come after their parent, so from the last element
     * back each is decided before its parent */
    for (int i = u->n_ranges - 1; i >= 0; i--) {
        size_t start = u->ranges[i].start < len ? u->ranges[i].start : len;
        size_t end = u->ranges[i].end < len ? u->ranges[i].end : len;
        skip[i] = (char)(skip[i] == 0 && end <= start &&
                         ((o.md && md_delims_only(d, &u->marks[i])) || u->marks[i].drop_empty));
        int p = u->ranges[i].parent;
        if (!skip[i] && p >= 0)
            skip[p] = 2; /* (2: a child is written) */
    }
    for (int k = 0; k <= u->n_ranges; k++) {
        int i = k < u->n_ranges ? order[k] : -1;
        int parent = i >= 0 ? u->ranges[i].parent : -1;
        /* close what does not hold element i */
        while (top > 0 && stack[top - 1] != parent) {
            int e = stack[--top];
            const doc_mark *m = &u->marks[e];
            o.inner = e; /* (its own text, before its close) */
            size_t end = u->ranges[e].end < len ? u->ranges[e].end : len;
            if (skip_below == e) {
                skip_below = -1;
                at = end > at ? end : at;
                if (!skip[e] && put_marks(&o, m->close, m->n_close, DOC_CLOSE))
                    goto done;
                /* kept content a translation gave no words (a point): it stood apart from the
                 * words around it, so it must not run into the next one ("ls" + "an"); an
                 * untranslated unit has its own spacing */
                o.inner = top > 0 ? stack[top - 1] : -1;
                if (u->out && u->ranges[e].start >= u->ranges[e].end && at < len &&
                    word_byte(s[at]) && put_text(&o, u, " ", 1))
                    goto done;
                continue;
            } else if (skip_below < 0 && end > at) {
                if (put_text(&o, u, s + at, end - at))
                    goto done;
                at = end;
            }
            if (skip_below < 0 && !skip[e] && put_marks(&o, m->close, m->n_close, DOC_CLOSE))
                goto done;
        }
        o.inner = top > 0 ? stack[top - 1] : -1;
        if (i < 0)
            break;
        const doc_mark *m = &u->marks[i];
        size_t start = u->ranges[i].start < len ? u->ranges[i].start : len;
        size_t end = u->ranges[i].end < len ? u->ranges[i].end : len;
        if (skip_below < 0) {
            if (start > at) {
                if (put_text(&o, u, s + at, start - at))
                    goto done;
                at = start;
            }
            if (u->out && m->n_keep > 0 && end <= start && at > 0 &&
                !strchr(" ([{\"'/", s[at - 1]) &&
                put_text(&o, u, " ", 1)) /* the same after a word or punctuation */
                goto done;
            if (!skip[i] && put_marks(&o, m->open, m->n_open, DOC_OPEN))
                goto done;
            if (m->n_keep > 0) {
                if (put_marks(&o, m->keep, m->n_keep, DOC_KEEP))
                    goto done;
                skip_below = i;
            }
        }
        stack[top++] = i;
    }
    rc = len > at ? put_text(&o, u, s + at, len - at) : 0;
done:
    free(stack);
    free(skip);
    free(order);
    return rc;
}

int doc_write(const doc *d, int (*write)(void *user, const char *s, size_t len), void *user)
{
    return d->n_parts > 0 ? write_parts(d, d->parts, d->n_parts, write, user) : 0;
}
