/* html_tok.c — the HTML tokenizer (html_tok.h), after the WHATWG HTML standard's tokenization
 * section (13.2.5): the states are followed where they decide where a token ends; the
 * token's content is left in the source (html.c decodes text when it needs it). Each state
 * machine below is a loop over the bytes that moves forward only: linear in the input. */
#include "doc/html_tok.h"
#include <stdlib.h>
#include <string.h>

static int is_ws(unsigned char c) /* the tokenizer's whitespace (CR: the input stream's LF) */
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static int is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_alnum(unsigned char c)
{
    return is_alpha(c) || (c >= '0' && c <= '9');
}

static unsigned char lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

void ht_init(ht_tok *t, const char *s, size_t n)
{
    memset(t, 0, sizeof *t);
    t->s = s;
    t->n = n;
}

void ht_free(ht_tok *t)
{
    free(t->attrs);
    t->attrs = NULL;
    t->cap_attrs = 0;
}

void ht_set_mode(ht_tok *t, int mode, const char *name)
{
    size_t l = strlen(name);
    t->mode = mode;
    t->end_len = l > HT_NAME_MAX ? HT_NAME_MAX : l;
    memcpy(t->end_name, name, t->end_len);
    t->end_name[t->end_len] = '\0';
}

/* 1 when s[i..) is "</name" (any case) followed by whitespace, '/' or '>'. */
static int end_tag_at(const char *s, size_t n, size_t i, const char *name, size_t l)
{
    if (i + 2 + l >= n || s[i] != '<' || s[i + 1] != '/')
        return 0;
    for (size_t k = 0; k < l; k++)
        if (lower((unsigned char)s[i + 2 + k]) != (unsigned char)name[k])
            return 0;
    unsigned char c = (unsigned char)s[i + 2 + l];
    return is_ws(c) || c == '/' || c == '>';
}

/* 1 when s[i..) is a tag name equal to "script" (any case) followed by whitespace, '/' or
 * '>': the double-escape start and end checks of script data. */
static int script_name_at(const char *s, size_t n, size_t i)
{
    static const char w[] = "script";
    if (i + 6 >= n)
        return 0;
    for (size_t k = 0; k < 6; k++)
        if (lower((unsigned char)s[i + k]) != (unsigned char)w[k])
            return 0;
    unsigned char c = (unsigned char)s[i + 6];
    return is_ws(c) || c == '/' || c == '>';
}

/* Script data (13.2.5.4 and the escaped / double-escaped states 13.2.5.15-13.2.5.31). */
static size_t script_end(const char *s, size_t n, size_t i, const char *name, size_t l)
{
    enum { DATA, ESC, ESC_DASH, ESC_DASH_DASH, DBL, DBL_DASH, DBL_DASH_DASH } st = DATA;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        switch (st) {
        case DATA:
            if (c == '<') {
                if (end_tag_at(s, n, i, name, l))
                    return i;
                if (i + 3 < n && s[i + 1] == '!' && s[i + 2] == '-' && s[i + 3] == '-') {
                    st = ESC_DASH_DASH; /* "<!--": escape start, escape start dash */
                    i += 4;
                    continue;
                }
            }
            i++;
            break;
        case ESC:
        case ESC_DASH:
        case ESC_DASH_DASH:
            if (c == '-') {
                st = st == ESC ? ESC_DASH : ESC_DASH_DASH;
                i++;
            } else if (c == '<') {
                if (end_tag_at(s, n, i, name, l))
                    return i;
                if (i + 1 < n && is_alpha((unsigned char)s[i + 1]) && script_name_at(s, n, i + 1)) {
                    st = DBL; /* "<script" + delimiter: double escaped */
                    i += 7;
                    continue;
                }
                st = ESC;
                i++;
            } else if (c == '>' && st == ESC_DASH_DASH) {
                st = DATA;
                i++;
            } else {
                st = ESC;
                i++;
            }
            break;
        case DBL:
        case DBL_DASH:
        case DBL_DASH_DASH:
            if (c == '-') {
                st = st == DBL ? DBL_DASH : DBL_DASH_DASH;
                i++;
            } else if (c == '<') {
                if (i + 1 < n && s[i + 1] == '/' && script_name_at(s, n, i + 2)) {
                    st = ESC; /* "</script" + delimiter: back to escaped */
                    i += 8;
                    continue;
                }
                st = DBL;
                i++;
            } else if (c == '>' && st == DBL_DASH_DASH) {
                st = DATA;
                i++;
            } else {
                st = DBL;
                i++;
            }
            break;
        }
    }
    return n;
}

size_t ht_raw_end(const char *s, size_t n, size_t from, int mode, const char *name,
                  size_t name_len)
{
    if (mode == HT_SCRIPT)
        return script_end(s, n, from, name, name_len);
    if (mode != HT_RCDATA && mode != HT_RAWTEXT)
        return n;
    for (size_t i = from; i < n;) {
        const char *p = memchr(s + i, '<', n - i);
        if (!p)
            return n;
        i = (size_t)(p - s);
        if (end_tag_at(s, n, i, name, name_len))
            return i;
        i++;
    }
    return n;
}

/* ---- character references (13.2.5.72-80) ---- */

static int entity_cmp(const char *a, size_t al, const char *b)
{
    size_t bl = strlen(b);
    int c = memcmp(a, b, al < bl ? al : bl);
    if (c)
        return c;
    return al < bl ? -1 : al > bl;
}

/* The entity named exactly s[0..l) (';' included when it has one); NULL when none. */
static const ht_entity *entity_find(const char *s, size_t l)
{
    int lo = 0, hi = ht_n_entities - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = entity_cmp(s, l, ht_entities[mid].name);
        if (c == 0)
            return &ht_entities[mid];
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* The numeric character reference end state's replacements (13.2.5.80). */
static unsigned numeric_value(unsigned long v)
{
    static const unsigned short w1252[32] = {
        0x20AC, 0x81,   0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, /* 0x80-0x87 */
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D,   0x017D, 0x8F,   /* 0x88-0x8F */
        0x90,   0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, /* 0x90-0x97 */
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D,   0x017E, 0x0178  /* 0x98-0x9F */
    };
    if (v == 0 || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0xFFFD;
    if (v >= 0x80 && v <= 0x9F)
        return w1252[v - 0x80];
    return (unsigned)v;
}

size_t ht_charref(const char *s, size_t n, int in_attr, unsigned cp[2], int *ncp)
{
    size_t i = 1;
    *ncp = 0;
    if (n < 2)
        return 0;
    if (s[1] == '#') {
        int hex = 0, digits = 0;
        unsigned long v = 0;
        i = 2;
        if (i < n && (s[i] == 'x' || s[i] == 'X')) {
            hex = 1;
            i++;
        }
        for (; i < n; i++) {
            unsigned char c = (unsigned char)s[i];
            int d = c >= '0' && c <= '9' ? c - '0'
                    : hex && lower(c) >= 'a' && lower(c) <= 'f' ? lower(c) - 'a' + 10 : -1;
            if (d < 0)
                break;
            v = v * (hex ? 16 : 10) + (unsigned long)d;
            if (v > 0x110000)
                v = 0x110000; /* stays "too large" however many digits follow */
            digits++;
        }
        if (digits == 0)
            return 0; /* "&#" or "&#x" with no digit: characters */
        if (i < n && s[i] == ';')
            i++;
        cp[0] = numeric_value(v);
        *ncp = 1;
        return i;
    }
    /* a name: the longest entity that the alphanumerics after '&' (and a ';') start with */
    size_t end = 1;
    while (end < n && end <= 32 && is_alnum((unsigned char)s[end]))
        end++;
    if (end == 1)
        return 0;
    const ht_entity *e = NULL;
    size_t used = 0;
    if (end < n && s[end] == ';' && (e = entity_find(s + 1, end)) != NULL)
        used = end + 1; /* name + ';' */
    for (size_t l = end - 1 < 6 ? end - 1 : 6; !e && l >= 2; l--)
        if ((e = entity_find(s + 1, l)) != NULL)
            used = l + 1; /* a legacy name without ';' */
    if (!e)
        return 0;
    if (in_attr && s[used - 1] != ';' && used < n &&
        (s[used] == '=' || is_alnum((unsigned char)s[used])))
        return 0; /* "?a=1&copy=2" in a URL stays as written */
    cp[0] = e->cp1;
    *ncp = 1;
    if (e->cp2)
        cp[(*ncp)++] = e->cp2;
    return used;
}

int ht_utf8(unsigned c, char *o)
{
    if (c < 0x80) {
        o[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (char)(0xC0 | (c >> 6));
        o[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = (char)(0xE0 | (c >> 12));
        o[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        o[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (c >> 18));
    o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    o[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

int ht_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    int l;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        l = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        l = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        l = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if ((size_t)l > n)
        return 0;
    unsigned v = c & (0x3F >> (l - 1));
    for (int k = 1; k < l; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[k] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    return l;
}

/* ---- tokens ---- */

/* A tag from s[start] == '<' (name at s[i]): the tag name, before/after attribute name,
 * attribute value (double-quoted, single-quoted, unquoted) and self-closing start tag states.
 * Returns 0, or -1 when out of memory. */
static int scan_tag(ht_tok *t, ht_token *k, size_t i)
{
    const char *s = t->s;
    size_t n = t->n, l = 0;
    k->n_attrs = 0;
    while (i < n && !is_ws((unsigned char)s[i]) && s[i] != '/' && s[i] != '>') {
        if (l < HT_NAME_MAX)
            k->name[l++] = (char)lower((unsigned char)s[i]);
        else
            k->long_name = 1;
        i++;
    }
    k->name[l] = '\0';
    for (;;) {
        while (i < n && is_ws((unsigned char)s[i]))
            i++;
        if (i >= n)
            goto cut;
        if (s[i] == '>') {
            k->end = i + 1;
            return 0;
        }
        if (s[i] == '/') {
            if (i + 1 < n && s[i + 1] == '>') {
                k->self_closing = 1;
                k->end = i + 2;
                return 0;
            }
            i++;
            continue;
        }
        /* an attribute name: its first character may be '=' */
        ht_attr a = {i, 0, 0, 0, -1};
        i++;
        while (i < n && !is_ws((unsigned char)s[i]) && s[i] != '/' && s[i] != '>' && s[i] != '=')
            i++;
        a.name_len = i - a.name;
        while (i < n && is_ws((unsigned char)s[i]))
            i++;
        if (i < n && s[i] == '=') {
            i++;
            while (i < n && is_ws((unsigned char)s[i]))
                i++;
            if (i >= n)
                goto cut;
            if (s[i] == '"' || s[i] == '\'') {
                const char *q = memchr(s + i + 1, s[i], n - i - 1);
                if (!q)
                    goto cut;
                a.quote = s[i];
                a.val = i + 1;
                a.val_len = (size_t)(q - s) - a.val;
                i = (size_t)(q - s) + 1;
            } else if (s[i] != '>') {
                a.quote = 0;
                a.val = i;
                while (i < n && !is_ws((unsigned char)s[i]) && s[i] != '>')
                    i++;
                a.val_len = i - a.val;
            } else {
                a.val = i; /* "a=>": missing value, the tag ends */
            }
        }
        if (k->n_attrs == t->cap_attrs) {
            int c = t->cap_attrs ? 2 * t->cap_attrs : 8;
            ht_attr *p = realloc(t->attrs, sizeof *p * (size_t)c);
            if (!p)
                return -1;
            t->attrs = p;
            t->cap_attrs = c;
            k->attrs = p;
        }
        t->attrs[k->n_attrs++] = a;
    }
cut: /* the end of the input inside a tag: a browser emits nothing; the bytes are kept */
    k->kind = HT_IGNORED;
    k->unclosed = 1;
    k->end = n;
    k->n_attrs = 0;
    return 0;
}

/* The end of a comment whose text starts at s[i] (after "<!--"): the comment start, comment,
 * comment end dash, comment end and comment end bang states. */
static size_t comment_end(const char *s, size_t n, size_t i, int *unclosed)
{
    if (i < n && s[i] == '>')
        return i + 1; /* "<!-->" */
    if (i + 1 < n && s[i] == '-' && s[i + 1] == '>')
        return i + 2; /* "<!--->" */
    for (;;) {
        const char *p = i < n ? memchr(s + i, '-', n - i) : NULL;
        if (!p) {
            *unclosed = 1;
            return n;
        }
        i = (size_t)(p - s);
        if (i + 2 < n && s[i + 1] == '-') {
            size_t j = i + 2;
            while (j < n && s[j] == '-') /* "--->": the comment end state keeps the dashes */
                j++;
            if (j < n && s[j] == '>')
                return j + 1;
            if (j + 1 < n && s[j] == '!' && s[j + 1] == '>')
                return j + 2;
            i = j;
        } else {
            i++;
        }
    }
}

static size_t to_gt(const char *s, size_t n, size_t i, int *unclosed)
{
    const char *p = i < n ? memchr(s + i, '>', n - i) : NULL;
    if (!p) {
        *unclosed = 1;
        return n;
    }
    return (size_t)(p - s) + 1;
}

static int ci_prefix(const char *s, size_t n, size_t i, const char *w)
{
    size_t l = strlen(w);
    if (i + l > n)
        return 0;
    for (size_t k = 0; k < l; k++)
        if (lower((unsigned char)s[i + k]) != (unsigned char)w[k])
            return 0;
    return 1;
}

/* 1 when '<' at s[i] starts markup in the data state. */
static int markup_at(const char *s, size_t n, size_t i)
{
    if (i + 1 >= n)
        return 0;
    unsigned char c = (unsigned char)s[i + 1];
    if (is_alpha(c) || c == '!' || c == '?')
        return 1;
    return c == '/' && i + 2 < n; /* "</" then anything: an end tag, "</>" or a bogus comment */
}

int ht_next(ht_tok *t, ht_token *k)
{
    const char *s = t->s;
    size_t n = t->n, i = t->pos;
    memset(k, 0, sizeof *k);
    k->attrs = t->attrs;
    k->start = i;
    if (i >= n)
        return 0;
    if (t->mode != HT_DATA) {
        /* raw text up to the end tag of its element (the end tag itself is tokenized next, in
         * the data state) */
        size_t e = t->mode == HT_PLAINTEXT
                       ? n
                       : ht_raw_end(s, n, i, t->mode, t->end_name, t->end_len);
        t->mode = HT_DATA;
        if (e > i) {
            k->kind = HT_TEXT;
            k->end = e;
            k->unclosed = e == n;
            t->pos = e;
            return 1;
        }
    }
    if (s[i] != '<' || !markup_at(s, n, i)) {
        /* text up to the next '<' that starts markup */
        size_t j = i + 1;
        for (;;) {
            const char *p = j < n ? memchr(s + j, '<', n - j) : NULL;
            if (!p) {
                j = n;
                break;
            }
            j = (size_t)(p - s);
            if (markup_at(s, n, j))
                break;
            j++;
        }
        k->kind = HT_TEXT;
        k->end = j;
        t->pos = j;
        return 1;
    }
    unsigned char c = (unsigned char)s[i + 1];
    if (is_alpha(c)) {
        k->kind = HT_START;
        if (scan_tag(t, k, i + 1))
            return -1;
    } else if (c == '/') {
        unsigned char d = (unsigned char)s[i + 2];
        if (is_alpha(d)) {
            k->kind = HT_END;
            if (scan_tag(t, k, i + 2))
                return -1;
            k->self_closing = 0;
        } else if (d == '>') {
            k->kind = HT_IGNORED; /* "</>" */
            k->end = i + 3;
        } else {
            k->kind = HT_COMMENT; /* "</1>": a bogus comment */
            k->end = to_gt(s, n, i + 2, &k->unclosed);
        }
    } else if (c == '?') {
        k->kind = HT_COMMENT;
        k->end = to_gt(s, n, i + 2, &k->unclosed);
    } else { /* '!' */
        if (i + 3 < n && s[i + 2] == '-' && s[i + 3] == '-') {
            k->kind = HT_COMMENT;
            k->end = comment_end(s, n, i + 4, &k->unclosed);
        } else if (ci_prefix(s, n, i + 2, "doctype")) {
            k->kind = HT_DOCTYPE;
            k->end = to_gt(s, n, i + 9, &k->unclosed);
        } else if (t->cdata_ok && i + 9 <= n && memcmp(s + i + 2, "[CDATA[", 7) == 0) {
            const char *p = memmem(s + i + 9, n - i - 9, "]]>", 3);
            k->kind = HT_CDATA;
            k->end = p ? (size_t)(p - s) + 3 : n;
            k->unclosed = !p;
        } else {
            k->kind = HT_COMMENT; /* "<!x>", and "<![CDATA[" outside foreign content */
            k->end = to_gt(s, n, i + 2, &k->unclosed);
        }
    }
    t->pos = k->end;
    return 1;
}
