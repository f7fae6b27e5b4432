/* subtitle.c — SubRip (.srt) and WebVTT (.vtt) subtitles into a doc (formats.h): the blocks
 * read line by line, everything but cue text kept byte for byte (cue numbers, timings and cue
 * settings, the WEBVTT header, NOTE / STYLE / REGION blocks, cue identifiers); a cue's lines
 * one text with its styling tags as inline elements; consecutive cues of one sentence one unit,
 * the bytes between two of them a void element (a cue boundary) and a line break inside a cue
 * a void element too, both placed on the translation by subtitle_spread.c (subtitle_finish).
 * docs/DOCUMENTS.md "Subtitles (SRT, WebVTT)" gives the rules.
 *
 * The finisher knows the void elements by their markup alone: a cue boundary's holds a line
 * ending and "-->" (a timing line), a line break's a line ending and no "-->" (blanks, and a
 * dialogue dash that begins the next line); a tag's never holds a line ending. Every markup part points into d->src, so the finisher measures
 * the source's cues there. Nothing recurses; every loop moves forward through the input. */
#include "base/util.h"
#include "doc/formats.h"
#include "doc/html_tok.h"
#include <stdlib.h>
#include <string.h>

enum {
    SUB_MAX_GROUP = 6,    /* cues in one unit at most */
    SUB_GAP_MS = 3000,    /* a pause longer than this between two cues ends a sentence */
    SUB_MAX_JOIN = 1000,  /* no cue joins a unit already this long (bytes) */
    SUB_MAX_DEPTH = 32    /* open tags in a cue; deeper start tags are kept as void elements */
};

typedef struct {
    size_t a, b; /* src[a, b) */
} span;

typedef struct {
    doc *d;
    const char *s;
    size_t n;
    int vtt;
    char *err;
    size_t errlen;
    size_t pos;      /* the next line's start */
    long line;       /* its number, from 1 */
    int unit;        /* the open group's unit, -1: none */
    int group;       /* cues in it */
    int joinable;    /* its last cue ends no sentence, and no block came after it */
    long long last_end; /* that cue's end time, ms */
    size_t kept;     /* src[kept..) is not in the doc yet */
    int stack[SUB_MAX_DEPTH]; /* the cue's open tags (elements), innermost last */
    span names[SUB_MAX_DEPTH];
    int top;
    span *lines;     /* the cue's text lines (trimmed, a dialogue dash left out) */
    int dash;        /* the cue's first line had a dialogue dash: a new speaker */
    int n_lines, cap_lines;
    char *buf;       /* decoded text (VTT) */
    int cap_buf;
} sub;

static int is_blank(const char *s, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++)
        if (s[i] != ' ' && s[i] != '\t')
            return 0;
    return 1;
}

/* The line at p->pos: its bytes [*a, *b) without the line ending; *next after it. 0 at the
 * end of the input. */
static int peek_line(const sub *p, size_t *a, size_t *b, size_t *next)
{
    if (p->pos >= p->n)
        return 0;
    const char *nl = memchr(p->s + p->pos, '\n', p->n - p->pos);
    size_t e = nl ? (size_t)(nl - p->s) : p->n;
    *a = p->pos;
    *next = nl ? e + 1 : p->n;
    *b = e > p->pos && p->s[e - 1] == '\r' ? e - 1 : e;
    return 1;
}

static void advance(sub *p, size_t next)
{
    p->pos = next;
    p->line++;
}

static int has_arrow(const char *s, size_t a, size_t b)
{
    for (size_t i = a; i + 3 <= b; i++)
        if (s[i] == '-' && s[i + 1] == '-' && s[i + 2] == '>')
            return 1;
    return 0;
}

static int digits(const char *s, size_t *i, size_t e, int min, int max, long long *v)
{
    int k = 0;
    *v = 0;
    while (*i < e && s[*i] >= '0' && s[*i] <= '9' && k < max) {
        *v = *v * 10 + (s[*i] - '0');
        (*i)++;
        k++;
    }
    return k >= min && !(*i < e && s[*i] >= '0' && s[*i] <= '9') ? k : -1;
}

/* A timestamp at s[*i..e), in ms: SRT H:MM:SS,mmm (hours any digits up to 9, ',' or '.', 1 to 3
 * digits of ms as the srt package reads them); VTT [H:]MM:SS.mmm (the WebVTT grammar: hours 2
 * or more digits, exactly 3 of ms). 0, or -1. */
static int timestamp(const char *s, size_t *i, size_t e, int vtt, long long *ms)
{
    long long g1, g2, g3 = -1, f;
    int k1 = digits(s, i, e, 1, 9, &g1);
    if (k1 < 0 || *i >= e || s[*i] != ':')
        return -1;
    (*i)++;
    if (digits(s, i, e, 2, 2, &g2) < 0)
        return -1;
    if (*i < e && s[*i] == ':') {
        (*i)++;
        if (digits(s, i, e, 2, 2, &g3) < 0 || (vtt && k1 < 2))
            return -1;
    } else if (!vtt || k1 != 2) {
        return -1;
    }
    long long h = g3 >= 0 ? g1 : 0, m = g3 >= 0 ? g2 : g1, sec = g3 >= 0 ? g3 : g2;
    if (m > 59 || sec > 59 || *i >= e || !(s[*i] == '.' || (!vtt && s[*i] == ',')))
        return -1;
    (*i)++;
    int kf = digits(s, i, e, vtt ? 3 : 1, 3, &f);
    if (kf < 0)
        return -1;
    for (; kf < 3; kf++)
        f *= 10;
    *ms = ((h * 60 + m) * 60 + sec) * 1000 + f;
    return 0;
}

/* "START --> END[ settings]" on s[a, b): the times in ms. 0, or -1. */
static int timing(const sub *p, size_t a, size_t b, long long *t0, long long *t1)
{
    const char *s = p->s;
    size_t i = a;
    while (i < b && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (timestamp(s, &i, b, p->vtt, t0))
        return -1;
    while (i < b && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (i + 3 > b || memcmp(s + i, "-->", 3))
        return -1;
    i += 3;
    while (i < b && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (timestamp(s, &i, b, p->vtt, t1))
        return -1;
    return i == b || s[i] == ' ' || s[i] == '\t' ? 0 : -1;
}

static int fail(sub *p, long line, const char *what, size_t a, size_t b)
{
    char q[128];
    return xerr(p->err, p->errlen, "line %ld: %s: %s", line, what,
                str_quote(q, sizeof q, p->s + a, b - a));
}

/* ---- a cue's text ---- */

static int oom(sub *p)
{
    return xerr(p->err, p->errlen, "out of memory");
}

/* Appends src[a, b) to the unit: runs of blanks one space (none at the unit's start or after a
 * space); in VTT character references decoded (ht_decode), in SRT the bytes as they are. */
static int put_text(sub *p, size_t a, size_t b)
{
    doc_unit *u = &p->d->units[p->unit];
    int space = u->len == 0 || u->text[u->len - 1] == ' ';
    if (b <= a)
        return 0;
    if (p->vtt) {
        if (b - a > (size_t)(1 << 28))
            return xerr(p->err, p->errlen, "line %ld: a cue line over 256 MiB", p->line);
        if (doc_grow(&p->buf, &p->cap_buf, (int)(3 * (b - a) + 16), 1))
            return oom(p);
        size_t n = ht_decode(p->s + a, b - a, 0, &space, p->buf);
        return doc_unit_text(p->d, p->unit, p->buf, n, p->err, p->errlen);
    }
    size_t from = a;
    for (size_t i = a; i <= b; i++) {
        if (i < b && p->s[i] != ' ' && p->s[i] != '\t') {
            space = 0;
            continue;
        }
        /* src[from, i) has no blank; then a blank run (or the end) */
        if (i > from && doc_unit_text(p->d, p->unit, p->s + from, i - from, p->err, p->errlen))
            return -1;
        if (i < b && !space) {
            if (doc_unit_text(p->d, p->unit, " ", 1, p->err, p->errlen))
                return -1;
            space = 1;
        }
        from = i + 1;
    }
    return 0;
}

static int parent_of(const sub *p)
{
    return p->top > 0 ? p->stack[p->top - 1] : -1;
}

/* A void element at the unit's end whose markup is src[a, b). */
static int put_void(sub *p, size_t a, size_t b)
{
    int e;
    if (doc_begin_elem(p->d, p->unit, parent_of(p), &e, p->err, p->errlen) ||
        doc_mark_part(p->d, p->unit, e, DOC_OPEN, -1, p->s + a, b - a, p->err, p->errlen))
        return -1;
    doc_end_elem(p->d, p->unit, e);
    return 0;
}

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_';
}

static int same_name(const char *s, span x, span y)
{
    if (x.b - x.a != y.b - y.a)
        return 0;
    for (size_t k = 0; k < x.b - x.a; k++) {
        char c = s[x.a + k], d = s[y.a + k];
        if ((c | 0x20) != (d | 0x20))
            return 0;
    }
    return 1;
}

/* One text line of a cue, src[a, b) (trimmed), into the unit: text, and tags as elements. A
 * start tag opens an element (closed by its end tag, or empty-handed at the cue's end); an end
 * tag closes the innermost open element of its name and those inside it; an end tag with none
 * open, a VTT timestamp <00:00:01.000>, a VTT <rt>..</rt> (ruby text: not the sentence's
 * words) and an SRT {\an8} are void elements. In SRT only '<' before a letter or "/letter"
 * starts a tag ("<3" is text); in VTT every '<' with a '>' on its line does. */
static int cue_line(sub *p, size_t a, size_t b)
{
    const char *s = p->s;
    size_t i = a, run = a;
    while (i < b) {
        size_t j = 0; /* a tag: src[i, j) */
        if (s[i] == '<') {
            const char *gt = memchr(s + i + 1, '>', b - i - 1);
            size_t na = i + 1 + (i + 1 < b && s[i + 1] == '/');
            int letter = na < b && ((s[na] | 0x20) >= 'a' && (s[na] | 0x20) <= 'z');
            if (gt && (p->vtt || letter))
                j = (size_t)(gt - s) + 1;
        } else if (!p->vtt && s[i] == '{' && i + 1 < b && s[i + 1] == '\\') {
            const char *cb = memchr(s + i + 1, '}', b - i - 1);
            if (cb)
                j = (size_t)(cb - s) + 1;
            if (j && (put_text(p, run, i) || put_void(p, i, j)))
                return -1;
            if (j) {
                i = run = j;
                continue;
            }
        }
        if (!j) {
            i++;
            continue;
        }
        if (put_text(p, run, i))
            return -1;
        int end_tag = s[i + 1] == '/';
        span name = {i + 1 + (size_t)end_tag, i + 1 + (size_t)end_tag};
        while (name.b < j - 1 && name_char(s[name.b]))
            name.b++;
        int alpha = name.b > name.a && ((s[name.a] | 0x20) >= 'a' && (s[name.a] | 0x20) <= 'z');
        if (!end_tag && alpha && name.b - name.a == 2 && (s[name.a] | 0x20) == 'r' &&
            (s[name.a + 1] | 0x20) == 't') {
            /* ruby text: to its end tag (or the line's end), one void element */
            size_t k = j;
            while (k + 5 <= b && memcmp(s + k, "</rt>", 5))
                k++;
            j = k + 5 <= b ? k + 5 : b;
            if (put_void(p, i, j))
                return -1;
        } else if (!end_tag && alpha && p->top < SUB_MAX_DEPTH) {
            int e;
            if (doc_begin_elem(p->d, p->unit, parent_of(p), &e, p->err, p->errlen) ||
                doc_mark_part(p->d, p->unit, e, DOC_OPEN, -1, s + i, j - i, p->err, p->errlen))
                return -1;
            p->stack[p->top] = e;
            p->names[p->top++] = name;
        } else if (end_tag && alpha) {
            int k = p->top - 1;
            while (k >= 0 && !same_name(s, p->names[k], name))
                k--;
            if (k < 0) {
                if (put_void(p, i, j))
                    return -1;
            } else {
                while (p->top > k + 1)
                    doc_end_elem(p->d, p->unit, p->stack[--p->top]);
                int e = p->stack[--p->top];
                if (doc_mark_part(p->d, p->unit, e, DOC_CLOSE, -1, s + i, j - i, p->err,
                                  p->errlen))
                    return -1;
                doc_end_elem(p->d, p->unit, e);
            }
        } else if (put_void(p, i, j)) { /* a timestamp, "<>", too deep */
            return -1;
        }
        i = run = j;
    }
    return put_text(p, run, b);
}

/* Whether the cue has a letter at all (else it is kept as it is: "♪", "...", "<i></i>"). */
static void cue_scan(const sub *p, int *letters)
{
    const char *s = p->s;
    *letters = 0;
    for (int l = 0; l < p->n_lines; l++) {
        size_t a = p->lines[l].a, b = p->lines[l].b;
        for (size_t i = a; i < b;) {
            const char *end = NULL;
            if (s[i] == '<' || (s[i] == '{' && i + 1 < b && s[i + 1] == '\\'))
                end = memchr(s + i, s[i] == '<' ? '>' : '}', b - i);
            else if (s[i] == '&' && p->vtt)
                end = memchr(s + i, ';', b - i < 40 ? b - i : 40);
            if (end) {
                i = (size_t)(end - s) + 1;
                continue;
            }
            size_t k = i + 1;
            while (k < b && ((unsigned char)s[k] & 0xC0) == 0x80)
                k++;
            if (s[i] != ' ' && s[i] != '\t')
                *letters |= ht_has_letter(s + i, k - i);
            i = k;
        }
    }
}

/* 1 when the unit's text ends a sentence: . ! ? … (or 。！？) last, before closing quotes and
 * brackets. */
static int ends_sentence(const doc_unit *u)
{
    size_t n = u->len;
    const char *t = u->text;
    for (int guard = 0; n > 0 && guard < 64; guard++) {
        unsigned char c = (unsigned char)t[n - 1];
        if (c == ' ' || c == '"' || c == '\'' || c == ')' || c == ']') {
            n--;
        } else if (n >= 3 && (!memcmp(t + n - 3, "\xE2\x80\x9D", 3) || /* ” */
                              !memcmp(t + n - 3, "\xE2\x80\x99", 3))) { /* ’ */
            n -= 3;
        } else if (n >= 2 && !memcmp(t + n - 2, "\xC2\xBB", 2)) { /* » */
            n -= 2;
        } else {
            break;
        }
    }
    if (n == 0)
        return 1;
    char c = t[n - 1];
    if (c == '.' || c == '!' || c == '?')
        return 1;
    return n >= 3 && (!memcmp(t + n - 3, "\xE2\x80\xA6", 3) || /* … */
                      !memcmp(t + n - 3, "\xE3\x80\x82", 3) || /* 。 */
                      !memcmp(t + n - 3, "\xEF\xBC\x81", 3) || /* ！ */
                      !memcmp(t + n - 3, "\xEF\xBC\x9F", 3));  /* ？ */
}

/* A cue with times [t0, t1] and its text lines p->lines (trimmed, none blank): joined to the
 * open unit, or the first cue of a new one, or (no letter) left in the kept bytes. */
static int cue(sub *p, long long t0, long long t1, long line)
{
    int letters, dash = p->dash;
    if (p->n_lines == 0) {
        p->unit = -1;
        return 0;
    }
    cue_scan(p, &letters);
    if (!letters) {
        p->unit = -1;
        return 0;
    }
    size_t start = p->lines[0].a;
    int join = p->unit >= 0 && p->joinable && p->group < SUB_MAX_GROUP && !dash &&
               t0 - p->last_end <= SUB_GAP_MS && p->d->units[p->unit].len < SUB_MAX_JOIN;
    if (join) { /* the bytes since the last cue's text: a cue boundary */
        int e;
        if (doc_unit_text(p->d, p->unit, " ", 1, p->err, p->errlen) ||
            doc_begin_elem(p->d, p->unit, -1, &e, p->err, p->errlen) ||
            doc_mark_part(p->d, p->unit, e, DOC_OPEN, -1, p->s + p->kept, start - p->kept,
                          p->err, p->errlen))
            return -1;
        doc_end_elem(p->d, p->unit, e);
        p->group++;
    } else {
        if (doc_keep(p->d, p->s + p->kept, start - p->kept, p->err, p->errlen) ||
            doc_new_unit(p->d, p->vtt ? DOC_ESC_HTML : DOC_ESC_NONE, line, &p->unit, p->err,
                         p->errlen) ||
            doc_put_unit(p->d, p->unit, p->err, p->errlen))
            return -1;
        p->group = 1;
    }
    for (int l = 0; l < p->n_lines; l++) {
        if (l > 0) { /* a line break: the bytes between the two lines' text */
            doc_unit *u = &p->d->units[p->unit];
            if ((u->len > 0 && u->text[u->len - 1] != ' ' &&
                 doc_unit_text(p->d, p->unit, " ", 1, p->err, p->errlen)) ||
                put_void(p, p->lines[l - 1].b, p->lines[l].a))
                return -1;
        }
        if (cue_line(p, p->lines[l].a, p->lines[l].b))
            return -1;
    }
    while (p->top > 0) /* (unclosed: closed empty-handed at the cue's end) */
        doc_end_elem(p->d, p->unit, p->stack[--p->top]);
    p->kept = p->lines[p->n_lines - 1].b;
    p->joinable = !ends_sentence(&p->d->units[p->unit]);
    p->last_end = t1;
    return 0;
}

/* The length of a dialogue dash at src[a, b): "-", "–" or "—" before a blank, or "-" before
 * an ASCII letter ("-Hi."), with text after it; 0 when none. */
static size_t dialogue_dash(const char *s, size_t a, size_t b)
{
    size_t k = 0;
    if (a < b && s[a] == '-')
        k = 1;
    else if (b - a >= 3 && !memcmp(s + a, "\xE2\x80", 2) &&
             ((unsigned char)s[a + 2] == 0x93 || (unsigned char)s[a + 2] == 0x94))
        k = 3;
    if (k == 0 || a + k >= b)
        return 0;
    char c = s[a + k];
    if (c == ' ' || c == '\t')
        return is_blank(s, a + k, b) ? 0 : k;
    return k == 1 && ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ? k : 0;
}

/* Collects the cue's text lines from p->pos: up to a blank line, the end, or (VTT) a line with
 * "-->", which starts the next cue. */
static int cue_lines(sub *p)
{
    size_t a, b, next;
    p->n_lines = 0;
    p->dash = 0;
    while (peek_line(p, &a, &b, &next) && !is_blank(p->s, a, b) &&
           !(p->vtt && has_arrow(p->s, a, b))) {
        while (a < b && (p->s[a] == ' ' || p->s[a] == '\t'))
            a++;
        while (b > a && (p->s[b - 1] == ' ' || p->s[b - 1] == '\t'))
            b--;
        size_t k = dialogue_dash(p->s, a, b);
        if (p->n_lines == 0)
            p->dash = k > 0;
        if (k > 0) { /* (the dash and the blanks after it stay with the markup before) */
            a += k;
            while (a < b && (p->s[a] == ' ' || p->s[a] == '\t'))
                a++;
        }
        if (doc_grow(&p->lines, &p->cap_lines, p->n_lines + 1, sizeof *p->lines))
            return oom(p);
        p->lines[p->n_lines++] = (span){a, b};
        advance(p, next);
    }
    return 0;
}

static void skip_blank_lines(sub *p)
{
    size_t a, b, next;
    while (peek_line(p, &a, &b, &next) && is_blank(p->s, a, b))
        advance(p, next);
}

/* Invalid UTF-8 or a NUL byte: an error naming its line. */
static int check_text(sub *p)
{
    long line = 1;
    for (size_t i = 0; i < p->n;) {
        unsigned char c = (unsigned char)p->s[i];
        if (c == '\n')
            line++;
        if (c == 0)
            return xerr(p->err, p->errlen, "line %ld: a NUL byte", line);
        if (c < 0x80) {
            i++;
            continue;
        }
        int k = ht_utf8_len((const unsigned char *)p->s + i, p->n - i);
        if (k == 0)
            return xerr(p->err, p->errlen, "line %ld: invalid UTF-8 (byte 0x%02X)", line, c);
        i += (size_t)k;
    }
    return 0;
}

static int kw_line(const char *s, size_t a, size_t b, const char *kw)
{
    size_t n = strlen(kw);
    return b - a >= n && !memcmp(s + a, kw, n) && (b - a == n || s[a + n] == ' ' ||
                                                   s[a + n] == '\t');
}

static int srt_blocks(sub *p)
{
    const char *s = p->s;
    size_t a, b, next;
    for (;;) {
        long long t0, t1;
        skip_blank_lines(p);
        if (!peek_line(p, &a, &b, &next))
            return 0;
        long first = p->line;
        if (!has_arrow(s, a, b)) {
            size_t i = a;
            while (i < b && (s[i] == ' ' || s[i] == '\t'))
                i++;
            size_t d0 = i;
            while (i < b && s[i] >= '0' && s[i] <= '9')
                i++;
            if (i == d0 || !is_blank(s, i, b))
                return fail(p, first, "an SRT block without a timing line (a cue is a number, "
                               "a line 00:00:01,000 --> 00:00:02,000, then its text)", a, b);
            advance(p, next);
            if (!peek_line(p, &a, &b, &next) || is_blank(s, a, b))
                return fail(p, first, "a cue number without a timing line after it", d0, i);
            if (!has_arrow(s, a, b))
                return fail(p, p->line, "an SRT block without a timing line (expected "
                                        "00:00:01,000 --> 00:00:02,000)", a, b);
        }
        if (timing(p, a, b, &t0, &t1))
            return fail(p, p->line, "the timing line does not parse (expected 00:00:01,000 "
                                    "--> 00:00:02,000)", a, b);
        advance(p, next);
        if (cue_lines(p) || cue(p, t0, t1, p->line - p->n_lines))
            return -1;
    }
}

static int vtt_blocks(sub *p)
{
    const char *s = p->s;
    size_t a, b, next;
    if (!peek_line(p, &a, &b, &next))
        return xerr(p->err, p->errlen, "line 1: an empty file (a WebVTT file starts with the "
                                       "line WEBVTT)");
    if (!kw_line(s, a, b, "WEBVTT"))
        return fail(p, 1, "a WebVTT file starts with the line WEBVTT", a, b);
    while (peek_line(p, &a, &b, &next) && !is_blank(s, a, b)) /* the header */
        advance(p, next);
    for (;;) {
        long long t0, t1;
        skip_blank_lines(p);
        if (!peek_line(p, &a, &b, &next))
            return 0;
        if (!has_arrow(s, a, b)) {
            if (kw_line(s, a, b, "NOTE") || kw_line(s, a, b, "STYLE") ||
                kw_line(s, a, b, "REGION")) {
                while (peek_line(p, &a, &b, &next) && !is_blank(s, a, b))
                    advance(p, next);
                p->unit = -1; /* (a block between two cues ends the sentence) */
                continue;
            }
            long id = p->line; /* a cue identifier */
            advance(p, next);
            if (!peek_line(p, &a, &b, &next) || is_blank(s, a, b) || !has_arrow(s, a, b))
                return fail(p, id, "a block that is no cue, NOTE, STYLE or REGION (a cue "
                                   "identifier without a timing line after it)", a, b);
        }
        if (timing(p, a, b, &t0, &t1))
            return fail(p, p->line, "the timing line does not parse (expected 00:00:01.000 "
                                    "--> 00:00:02.000)", a, b);
        advance(p, next);
        if (cue_lines(p) || cue(p, t0, t1, p->line - p->n_lines))
            return -1;
    }
}

static int subtitle_parse(doc *d, int vtt, char *err, size_t errlen)
{
    sub p;
    memset(&p, 0, sizeof p);
    p.d = d;
    p.s = d->src;
    p.n = d->src_len;
    p.vtt = vtt;
    p.err = err;
    p.errlen = errlen;
    p.line = 1;
    p.unit = -1;
    int rc = check_text(&p);
    if (rc == 0 && p.n >= 3 && !memcmp(p.s, "\xEF\xBB\xBF", 3))
        p.pos = 3; /* (the BOM is kept with the first bytes) */
    if (rc == 0)
        rc = vtt ? vtt_blocks(&p) : srt_blocks(&p);
    if (rc == 0)
        rc = doc_keep(d, p.s + p.kept, p.n - p.kept, err, errlen);
    free(p.lines);
    free(p.buf);
    return rc ? -1 : 0;
}

int srt_parse(doc *d, const doc_opts *o, char *err, size_t errlen)
{
    (void)o;
    return subtitle_parse(d, 0, err, errlen);
}

int vtt_parse(doc *d, const doc_opts *o, char *err, size_t errlen)
{
    (void)o;
    return subtitle_parse(d, 1, err, errlen);
}
