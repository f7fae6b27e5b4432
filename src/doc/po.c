/* po.c — gettext PO and POT catalogs into a doc (formats.h; docs/DOCUMENTS.md "gettext PO"):
 * the catalog read line by line (no recursion, each line once), every byte kept as it is but
 * for what the translation fills in:
 * - an untranslated entry's msgstr (or msgstr[0..nplurals)) written anew as one line each,
 *   its text a unit of the msgid (msgstr[0]) or the msgid_plural (the others), the message's
 *   own leading and trailing blanks and line breaks kept around it (msgfmt -c wants them);
 * - "fuzzy" added to the entry's first "#," line, or a "#, fuzzy" line put before its "#|"
 *   lines (else before msgctxt / msgid), unless doc_opts.no_fuzzy;
 * - the header's Language and Plural-Forms set for the target language (po_fmt.c's table),
 *   charset=CHARSET (a POT's) made UTF-8.
 * The message's directives, markup, line breaks and accelerators become the unit's elements
 * (po_fmt.c); po_finish puts what the alignment moved back in order.
 *
 * Ownership: the reader's buffers are its own (freed on every return); the parts point into
 * the source or into the doc's copies. What po_finish needs of each unit (its PO_* flags) is
 * one doc copy (po_units_blob), since a doc has no room for a format's own data. */
#include "doc/formats.h"
#include "doc/po_internal.h"
#include "doc/html_tok.h"
#include "base/util.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The first bytes of the doc copy that holds each unit's PO_* flags (then an int count, then
 * the ints), found by po_finish among the doc's copies. */

typedef struct {
    size_t q0, q1; /* the opening and the closing quote */
    long line;
} po_lit;

enum { S_NONE, S_CTXT, S_ID, S_PLURAL, S_STR };

/* A message to be written as a msgstr: its blanks kept, its middle a unit or, with no words,
 * kept too. */
typedef struct {
    const char *lead, *mid, *trail; /* escaped copies (mid: when unit < 0) */
    int unit;
} po_msg;

typedef struct {
    const char *s;
    size_t n;
    doc *d;
    const doc_opts *o;
    char *err;
    size_t errlen;
    size_t kept; /* the source is kept (as parts) up to here */
    /* the catalog */
    int seen_entry, header;
    int translated;    /* entries given a translation */
    int nplurals;      /* the target's, else the header's, else 2 */
    const char *forms; /* the target's Plural-Forms, or NULL (unknown: the header's stays) */
    char lang[16];     /* the Language written, "" when none is known */
    long bad_utf8;     /* the first line with invalid UTF-8, 0 when none */
    int *info;         /* [n_info] each unit's PO_* flags */
    int n_info, cap_info;
    /* the entry being read */
    int state;
    size_t flags_at; /* the first "#," line's '#', SIZE_MAX when none */
    size_t prev_at;  /* the start of the "#|" lines right before the keywords, or SIZE_MAX */
    size_t key_at;   /* the first keyword line's start */
    size_t str_at, str_end; /* the msgstr lines: the first keyword, after the last quote */
    int fuzzy, flags, has_ctxt, plural, n_str, str_words;
    long id_line;
    const char *eol;   /* the msgid line's line ending */
    strbuf id, idp, str, tmp;
    strbuf *cur;       /* where the strings of the current keyword go (NULL: msgctxt) */
    po_lit *lits;      /* [n_lits] the msgstr strings */
    int n_lits, cap_lits;
} po_reader;

static int oom(po_reader *r)
{
    return xerr(r->err, r->errlen, "out of memory");
}

static int keep_to(po_reader *r, size_t at)
{
    if (at <= r->kept)
        return 0;
    if (doc_keep(r->d, r->s + r->kept, at - r->kept, r->err, r->errlen))
        return -1;
    r->kept = at;
    return 0;
}

/* Bytes of our own, copied into the doc, at the current place. */
static int put_own(po_reader *r, const char *s, size_t len)
{
    char *c;
    if (len == 0)
        return 0;
    if (!(c = doc_copy(r->d, s, len)))
        return oom(r);
    return doc_keep(r->d, c, len, r->err, r->errlen);
}

/* 1 when s[0..n) is valid UTF-8 (ht_utf8_len's rules: no overlong forms, surrogates or code
 * points past U+10FFFF). */
static int utf8_ok(const char *s, size_t n)
{
    for (size_t i = 0, k; i < n; i += k)
        if (!(k = (size_t)ht_utf8_len((const unsigned char *)s + i, n - i)))
            return 0;
    return 1;
}

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* The string literal whose opening quote is s[p], on a line whose content ends at ce: decoded
 * into out (NULL: checked only); the closing quote's offset in *q1. Only blanks may follow. */
static int read_lit(po_reader *r, size_t p, size_t ce, long line, strbuf *out, size_t *q1)
{
    const char *s = r->s;
    size_t i = p + 1, from = i;
    for (;;) {
        if (i >= ce)
            return xerr(r->err, r->errlen, "line %ld: the string has no closing quote", line);
        if (s[i] == '"')
            break;
        if (s[i] != '\\') {
            i++;
            continue;
        }
        if (out && i > from && strbuf_put(out, s + from, i - from))
            return oom(r);
        if (i + 1 >= ce)
            return xerr(r->err, r->errlen, "line %ld: the string has no closing quote", line);
        char c = s[i + 1], v = 0;
        size_t k = i + 2;
        switch (c) {
        case 'n': v = '\n'; break;
        case 't': v = '\t'; break;
        case 'r': v = '\r'; break;
        case 'a': v = '\a'; break;
        case 'b': v = '\b'; break;
        case 'f': v = '\f'; break;
        case 'v': v = '\v'; break;
        case '\\': case '"': case '\'': case '?': v = c; break;
        case 'x': {
            unsigned x = 0;
            for (; k < ce && k < i + 4 && strchr("0123456789abcdefABCDEF", s[k]) && s[k]; k++)
                x = x * 16 + (unsigned)(s[k] <= '9' ? s[k] - '0' : (s[k] | 32) - 'a' + 10);
            if (k == i + 2)
                return xerr(r->err, r->errlen, "line %ld: \\x without hex digits", line);
            v = (char)x;
            break;
        }
        default:
            if (c >= '0' && c <= '7') {
                unsigned x = 0;
                for (k = i + 1; k < ce && k < i + 4 && s[k] >= '0' && s[k] <= '7'; k++)
                    x = x * 8 + (unsigned)(s[k] - '0');
                if (x > 255)
                    return xerr(r->err, r->errlen, "line %ld: octal escape past \\377", line);
                v = (char)x;
                break;
            }
            if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
                return xerr(r->err, r->errlen, "line %ld: invalid escape sequence (a backslash "
                            "before byte 0x%02X)", line, (unsigned char)c);
            return xerr(r->err, r->errlen, "line %ld: invalid escape sequence \\%c", line, c);
        }
        if (v == 0)
            return xerr(r->err, r->errlen, "line %ld: a NUL character (\\0) in a string", line);
        if (out && strbuf_put(out, &v, 1))
            return oom(r);
        i = k;
        from = k;
    }
    if (out && strbuf_put(out, s + from, i - from))
        return oom(r);
    *q1 = i;
    for (size_t k = i + 1; k < ce; k++)
        if (!is_blank(s[k]))
            return xerr(r->err, r->errlen, "line %ld: text after the closing quote", line);
    return 0;
}

/* ---- writing an entry's msgstr ---- */

static int esc_copy(po_reader *r, const char *s, size_t len, const char **out)
{
    strbuf b = {0};
    if (po_escape(&b, s, len) || strbuf_put(&b, "", 0) || !(*out = doc_copy(r->d, b.s, b.len))) {
        strbuf_free(&b);
        return oom(r);
    }
    strbuf_free(&b);
    return 0;
}

/* The message t[0..n) made ready: its leading and trailing blanks and line breaks apart, its
 * middle a unit when it has words. line: the msgid's. */
static int prep_msg(po_reader *r, const char *t, size_t n, po_msg *m)
{
    size_t a = 0, b = n;
    int fl = r->flags;
    while (a < b && strchr(" \t\n\r", t[a]))
        a++;
    while (b > a && strchr(" \t\n\r", t[b - 1]))
        b--;
    m->unit = -1;
    m->mid = "";
    if (!utf8_ok(t, n))
        return xerr(r->err, r->errlen, "line %ld: the message is not valid UTF-8 (an escape "
                    "makes a byte of its own)", r->id_line);
    if (esc_copy(r, t, a, &m->lead) || esc_copy(r, t + b, n - b, &m->trail))
        return -1;
    if (!po_has_words(t + a, b - a, fl))
        return esc_copy(r, t + a, b - a, &m->mid);
    if (doc_new_unit(r->d, DOC_ESC_C, r->id_line, &m->unit, r->err, r->errlen) ||
        po_build_unit(r->d, m->unit, t + a, b - a, &fl, r->err, r->errlen))
        return -1;
    if (doc_grow(&r->info, &r->cap_info, m->unit + 1, sizeof *r->info))
        return oom(r);
    while (r->n_info <= m->unit)
        r->info[r->n_info++] = 0;
    r->info[m->unit] = fl;
    return 0;
}

/* keyword "..." with the message inside */
static int put_msg(po_reader *r, const char *keyword, const po_msg *m)
{
    if (put_own(r, keyword, strlen(keyword)) || put_own(r, " \"", 2) ||
        put_own(r, m->lead, strlen(m->lead)))
        return -1;
    if (m->unit >= 0 ? doc_put_unit(r->d, m->unit, r->err, r->errlen)
                     : put_own(r, m->mid, strlen(m->mid)))
        return -1;
    return put_own(r, m->trail, strlen(m->trail)) || put_own(r, "\"", 1);
}


/* s[0..len) escaped as a string's inside, at the current place */
static int esc_put(po_reader *r, const char *s, size_t len)
{
    const char *c;
    return esc_copy(r, s, len, &c) || put_own(r, c, strlen(c)) ? -1 : 0;
}

/* ---- the header ---- */

/* 1 when the header line t[0..n) is the field name ("Language:"), any case */
static int field_is(const char *t, size_t n, const char *name)
{
    size_t k = strlen(name);
    return n >= k && !strncasecmp(t, name, k);
}

/* The charset in a Content-Type line's value, as [*v, *ve), or 0 when it names none. */
static int charset_of(const char *t, size_t n, size_t *v, size_t *ve)
{
    for (size_t i = 0; i + 8 <= n; i++)
        if (!strncasecmp(t + i, "charset=", 8)) {
            size_t k = i + 8;
            *v = k;
            while (k < n && !is_blank(t[k]) && t[k] != ';')
                k++;
            *ve = k;
            return 1;
        }
    return 0;
}

static int name_in(const char *t, size_t n, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strlen(names[i]) == n && !strncasecmp(t, names[i], n))
            return 1;
    return 0;
}

/* 1 when the header's Language is the target's language ("de_DE" for "de") and its
 * Plural-Forms has a valid nplurals: then that Plural-Forms stays, not the table's spelling
 * of the same rule. */
static int same_language(po_reader *r)
{
    size_t q1, i = 0, lang = SIZE_MAX, n, a = 0;
    int np = 0;
    r->tmp.len = 0;
    for (int k = 0; k < r->n_lits; k++)
        if (read_lit(r, r->lits[k].q0, r->lits[k].q1 + 1, r->lits[k].line, &r->tmp, &q1))
            return 0;
    if (!r->lang[0] || strbuf_put(&r->tmp, "", 0))
        return 0;
    n = r->tmp.len;
    for (const char *t = r->tmp.s; i < n; i++) {
        size_t e = i;
        while (e < n && t[e] != '\n')
            e++;
        if (field_is(t + i, e - i, "Language:"))
            lang = i + 9;
        if (field_is(t + i, e - i, "Plural-Forms:"))
            np = po_nplurals(t + i, e - i);
        i = e;
    }
    if (lang == SIZE_MAX || !np)
        return 0;
    const char *v = r->tmp.s + lang;
    while (is_blank(*v))
        v++;
    while (r->lang[a] && r->lang[a] != '_')
        a++;
    return !strncasecmp(v, r->lang, a) && !((v[a] | 32) >= 'a' && (v[a] | 32) <= 'z');
}

/* The header entry's msgstr strings, field by field: Language and Plural-Forms set for the
 * target (kept when it is unknown), charset=CHARSET or ASCII made UTF-8, another charset
 * refused; the fields it lacks added after its last string. A string that changes is
 * written anew; the others keep their bytes. */
static int put_header(po_reader *r)
{
    static const char *const utf8[] = {"UTF-8", "utf8", NULL};
    static const char *const mine[] = {"CHARSET", "ASCII", "US-ASCII", "ANSI_X3.4-1968", NULL};
    int have_lang = 0, have_pf = 0, have_ct = 0, bol = 1, rc = -1;
    strbuf nb = {0};
    if (same_language(r)) /* the header's own Plural-Forms is the language's already */
        r->forms = NULL;
    for (int k = 0; k < r->n_lits; k++) {
        const po_lit *L = &r->lits[k];
        size_t q1, i = 0;
        int changed = 0;
        r->tmp.len = 0;
        nb.len = 0;
        if (read_lit(r, L->q0, L->q1 + 1, L->line, &r->tmp, &q1) || strbuf_put(&r->tmp, "", 0))
            goto done;
        const char *t = r->tmp.s;
        size_t n = r->tmp.len;
        for (int first = 1; i < n; first = 0) {
            size_t e = i, v, ve;
            const char *rep = NULL, *val = NULL;
            while (e < n && t[e] != '\n')
                e++;
            int at_bol = first ? bol : 1;
            if (at_bol && field_is(t + i, e - i, "Language:")) {
                have_lang = 1;
                rep = r->lang[0] ? "Language: " : NULL, val = r->lang;
            } else if (at_bol && field_is(t + i, e - i, "Plural-Forms:")) {
                int np = po_nplurals(t + i, e - i);
                have_pf = 1;
                rep = r->forms ? "Plural-Forms: " : NULL, val = r->forms;
                if (!r->forms && np)
                    r->nplurals = np; /* (else the table's, set at the start) */
            } else if (at_bol && field_is(t + i, e - i, "Content-Type:")) {
                have_ct = 1;
                if (charset_of(t + i, e - i, &v, &ve) && !name_in(t + i + v, ve - v, utf8)) {
                    if (!name_in(t + i + v, ve - v, mine)) {
                        xerr(r->err, r->errlen, "line %ld: the header says charset=%.*s: only "
                             "UTF-8 catalogs are read (msgconv --to-code=UTF-8 converts one)",
                             L->line, (int)(ve - v < 40 ? ve - v : 40), t + i + v);
                        goto done;
                    }
                    if (strbuf_put(&nb, t + i, v) || strbuf_put(&nb, "UTF-8", 5) ||
                        strbuf_put(&nb, t + i + ve, e - i - ve))
                        goto nomem;
                    changed = 1;
                    goto next;
                }
            }
            if (rep) {
                if (strbuf_put(&nb, rep, strlen(rep)) || strbuf_put(&nb, val, strlen(val)))
                    goto nomem;
                changed = 1;
            } else if (strbuf_put(&nb, t + i, e - i)) {
                goto nomem;
            }
        next:
            if (e < n && strbuf_put(&nb, "\n", 1))
                goto nomem;
            i = e + 1;
        }
        if (n > 0)
            bol = t[n - 1] == '\n';
        if (changed) {
            if (keep_to(r, L->q0) || put_own(r, "\"", 1) ||
                esc_put(r, nb.s ? nb.s : "", nb.len) || put_own(r, "\"", 1))
                goto done;
            r->kept = L->q1 + 1;
        }
    }
    if (r->n_lits > 0) {
        char add[320];
        int first = 1;
        if (keep_to(r, r->lits[r->n_lits - 1].q1 + 1))
            goto done;
        for (int f = 0; f < 3; f++) {
            const char *name = f == 0 ? "Content-Type: text/plain; charset=" : f == 1 ? "Language: "
                                                                               : "Plural-Forms: ";
            const char *val = f == 0 ? (have_ct ? NULL : "UTF-8")
                              : f == 1 ? (have_lang || !r->lang[0] ? NULL : r->lang)
                                       : (have_pf ? NULL : r->forms);
            if (!val)
                continue;
            int m = snprintf(add, sizeof add, "%s\"%s%s%s\\n\"", r->eol,
                             first && !bol ? "\\n" : "", name, val);
            if (m < 0 || (size_t)m >= sizeof add || put_own(r, add, (size_t)m))
                goto done;
            first = 0;
        }
    }
    rc = 0;
    goto done;
nomem:
    oom(r);
done:
    strbuf_free(&nb);
    return rc;
}

/* ---- entries ---- */

static void reset_entry(po_reader *r)
{
    r->state = S_NONE;
    r->flags_at = r->prev_at = r->key_at = SIZE_MAX;
    r->fuzzy = r->flags = r->has_ctxt = r->plural = r->n_str = r->str_words = 0;
    r->id.len = r->idp.len = r->str.len = 0;
    r->n_lits = 0;
    r->cur = NULL;
}

static int utf8_error(po_reader *r)
{
    return r->bad_utf8 ? xerr(r->err, r->errlen, "line %ld: invalid UTF-8", r->bad_utf8) : 0;
}

/* The entry read to its end: the header, kept, or given its translation and the fuzzy
 * flag. */
static int end_entry(po_reader *r)
{
    int first = !r->seen_entry, np = r->plural ? r->nplurals : 1;
    po_msg one = {"", "", "", -1}, many = {"", "", "", -1};
    char kw[32];
    if (strbuf_put(&r->id, "", 0) || strbuf_put(&r->idp, "", 0))
        return oom(r);
    r->seen_entry = 1;
    if (!r->has_ctxt && r->id.len == 0 && first) {
        r->header = 1;
        return put_header(r) || utf8_error(r) ? -1 : 0;
    }
    if (utf8_error(r))
        return -1;
    if (r->id.len == 0 || (r->str_words && !r->o->retranslate))
        return 0; /* the header-like or translated: kept */
    if ((!r->plural || np > 1) && prep_msg(r, r->id.s, r->id.len, &one))
        return -1;
    if (r->plural && prep_msg(r, r->idp.s, r->idp.len, &many))
        return -1;
    r->translated++;
    if (!r->o->no_fuzzy && !r->fuzzy) {
        if (r->flags_at != SIZE_MAX) { /* "#, c-format" -> "#, fuzzy, c-format" */
            size_t at = r->flags_at + 2, e = at;
            int more = 0;
            for (; e < r->n && r->s[e] != '\n' && r->s[e] != '\r'; e++)
                more |= !is_blank(r->s[e]);
            if (keep_to(r, at) || put_own(r, more ? " fuzzy," : " fuzzy", more ? 7 : 6))
                return -1;
        } else if (keep_to(r, r->prev_at != SIZE_MAX ? r->prev_at : r->key_at) ||
                   put_own(r, "#, fuzzy", 8) || put_own(r, r->eol, strlen(r->eol))) {
            return -1;
        }
    }
    if (keep_to(r, r->str_at))
        return -1;
    r->kept = r->str_end;
    if (!r->plural)
        return put_msg(r, "msgstr", &one);
    for (int k = 0; k < np; k++) {
        snprintf(kw, sizeof kw, "msgstr[%d]", k);
        if ((k > 0 && put_own(r, r->eol, strlen(r->eol))) ||
            put_msg(r, kw, k == 0 && np > 1 ? &one : &many))
            return -1;
    }
    return 0;
}

/* A comment line (s[p] == '#'), ls its start. */
static int comment(po_reader *r, size_t ls, size_t p, size_t ce, long line)
{
    const char *s = r->s;
    char k = p + 1 < ce ? s[p + 1] : ' ';
    if (r->state == S_STR) {
        if (end_entry(r))
            return -1;
        reset_entry(r);
    } else if (r->state != S_NONE) {
        return xerr(r->err, r->errlen, "line %ld: a comment inside an entry, before its msgstr",
                    line);
    }
    if (k == '~') { /* an obsolete entry: kept; the comments before it were its own */
        reset_entry(r);
        return 0;
    }
    if (k == '|') {
        if (r->prev_at == SIZE_MAX)
            r->prev_at = ls;
        return 0;
    }
    r->prev_at = SIZE_MAX;
    if (k != ',')
        return 0;
    if (r->flags_at == SIZE_MAX)
        r->flags_at = p;
    for (size_t i = p + 2; i < ce;) { /* the flags, comma-separated */
        size_t e;
        while (i < ce && (is_blank(s[i]) || s[i] == ','))
            i++;
        for (e = i; e < ce && s[e] != ',' && !is_blank(s[e]); e++)
            ;
        static const struct {
            const char *name;
            int flag;
        } names[] = {{"fuzzy", 0},        {"c-format", PO_C},       {"no-c-format", PO_NO_C},
                     {"python-format", PO_PY}, {"python-brace-format", PO_BRACE}};
        for (size_t j = 0; j < sizeof names / sizeof names[0]; j++)
            if (strlen(names[j].name) == e - i && !memcmp(s + i, names[j].name, e - i)) {
                r->flags |= names[j].flag;
                r->fuzzy |= j == 0;
            }
        i = e;
    }
    return 0;
}

/* The string at s[p] (a keyword's, or a line of its own continuing it) into the field being
 * read. */
static int string_line(po_reader *r, size_t p, size_t ce, long line)
{
    size_t q1;
    if (r->state == S_NONE)
        return xerr(r->err, r->errlen, "line %ld: a string without a keyword before it", line);
    if (read_lit(r, p, ce, line, r->cur, &q1))
        return -1;
    if (r->state == S_STR) {
        if (doc_grow(&r->lits, &r->cap_lits, r->n_lits + 1, sizeof *r->lits))
            return oom(r);
        r->lits[r->n_lits++] = (po_lit){p, q1, line};
        r->str_end = q1 + 1;
        r->str_words |= r->str.len > 0;
    }
    return 0;
}

/* A keyword line: msgctxt, msgid, msgid_plural, msgstr, msgstr[N], then its first string. */
static int keyword(po_reader *r, size_t ls, size_t p, size_t ce, long line, const char *eol)
{
    const char *s = r->s;
    size_t k = p;
    long idx = -1;
    while (k < ce && ((s[k] >= 'a' && s[k] <= 'z') || s[k] == '_'))
        k++;
    size_t kl = k - p;
    int kind = kl == 7 && !memcmp(s + p, "msgctxt", 7)        ? S_CTXT
               : kl == 5 && !memcmp(s + p, "msgid", 5)        ? S_ID
               : kl == 12 && !memcmp(s + p, "msgid_plural", 12) ? S_PLURAL
               : kl == 6 && !memcmp(s + p, "msgstr", 6)       ? S_STR
                                                              : -1;
    if (kind < 0 || (k < ce && !is_blank(s[k]) && s[k] != '"' && s[k] != '['))
        return xerr(r->err, r->errlen, "line %ld: unknown keyword \"%.*s\"", line,
                    (int)(kl > 0 ? (kl < 40 ? kl : 40) : 1), s + p);
    if (k < ce && s[k] == '[') {
        if (kind != S_STR)
            return xerr(r->err, r->errlen, "line %ld: an index after %.*s", line, (int)kl,
                        s + p);
        for (idx = 0, k++; k < ce && s[k] >= '0' && s[k] <= '9' && idx < 100000; k++)
            idx = idx * 10 + (s[k] - '0');
        if (k >= ce || s[k] != ']' || s[k - 1] == '[')
            return xerr(r->err, r->errlen, "line %ld: msgstr[ without an index and ]", line);
        k++;
    }
    while (k < ce && is_blank(s[k]))
        k++;
    if (k >= ce || s[k] != '"')
        return xerr(r->err, r->errlen, "line %ld: %.*s without a string", line, (int)kl, s + p);
    if ((kind == S_CTXT || kind == S_ID) && r->state == S_STR) {
        if (end_entry(r))
            return -1;
        reset_entry(r);
    }
    switch (kind) {
    case S_CTXT:
        if (r->state != S_NONE)
            return xerr(r->err, r->errlen, "line %ld: msgctxt after msgid", line);
        r->has_ctxt = 1;
        r->cur = NULL;
        break;
    case S_ID:
        if (r->state != S_NONE && r->state != S_CTXT)
            return xerr(r->err, r->errlen, "line %ld: msgid where msgstr was expected", line);
        r->id_line = line;
        r->eol = eol;
        r->cur = &r->id;
        break;
    case S_PLURAL:
        if (r->state != S_ID)
            return xerr(r->err, r->errlen, "line %ld: msgid_plural not after a msgid", line);
        r->plural = 1;
        r->cur = &r->idp;
        break;
    default: /* msgstr */
        if (r->state == S_ID && idx >= 0)
            return xerr(r->err, r->errlen, "line %ld: msgstr[%ld] without msgid_plural", line,
                        idx);
        if (r->state == S_PLURAL && idx < 0)
            return xerr(r->err, r->errlen, "line %ld: msgstr after msgid_plural: msgstr[0] "
                        "expected", line);
        if (r->state == S_STR && (idx < 0 || !r->plural))
            return xerr(r->err, r->errlen, "line %ld: a second msgstr", line);
        if (r->state != S_ID && r->state != S_PLURAL && r->state != S_STR)
            return xerr(r->err, r->errlen, "line %ld: msgstr without msgid", line);
        if (idx >= 0 && idx != r->n_str)
            return xerr(r->err, r->errlen, "line %ld: msgstr[%ld] out of order (msgstr[%d] "
                        "expected)", line, idx, r->n_str);
        if (r->state != S_STR)
            r->str_at = p;
        r->n_str++;
        r->cur = &r->str;
        break;
    }
    if (r->key_at == SIZE_MAX)
        r->key_at = ls;
    r->state = kind;
    return string_line(r, k, ce, line);
}

/* ---- the catalog ---- */

/* The target as a gettext Language value: ll or ll_CC (a two-letter or three-digit region,
 * "pt-br" -> "pt_BR"); "" for what is none (an NLLB code such as deu_Latn). */
static void set_lang(po_reader *r, const char *t)
{
    size_t n = t ? strlen(t) : 0, a = 0, k;
    r->lang[0] = '\0';
    while (a < n && ((t[a] | 32) >= 'a' && (t[a] | 32) <= 'z'))
        a++;
    if (a < 2 || a > 3 || n >= sizeof r->lang)
        return;
    if (a < n) {
        size_t rl = n - a - 1;
        if ((t[a] != '_' && t[a] != '-') || (rl != 2 && rl != 3))
            return;
        for (k = a + 1; k < n; k++)
            if (rl == 2 ? !((t[k] | 32) >= 'a' && (t[k] | 32) <= 'z') : !(t[k] >= '0' && t[k] <= '9'))
                return;
    }
    for (k = 0; k < n; k++)
        r->lang[k] = k < a ? (char)(t[k] | 32) : k == a ? '_' : (char)(t[k] & ~32 & 0xff);
    for (k = a + 1; k < n; k++) /* (digits stay digits) */
        if (t[k] >= '0' && t[k] <= '9')
            r->lang[k] = t[k];
    r->lang[n] = '\0';
}

/* A catalog with no header: one put first (after a BOM) that says UTF-8, the Language and
 * Plural-Forms, since msgfmt reads plural translations only through a header. */
static int insert_header(po_reader *r)
{
    doc *d = r->d;
    char h[400];
    int at = 0;
    int m = snprintf(h, sizeof h, "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; "
                     "charset=UTF-8\\n\"\n%s%s%s%s%s%s\n", r->lang[0] ? "\"Language: " : "",
                     r->lang, r->lang[0] ? "\\n\"\n" : "", r->forms ? "\"Plural-Forms: " : "",
                     r->forms ? r->forms : "", r->forms ? "\\n\"\n" : "");
    char *c;
    if (m < 0 || (size_t)m >= sizeof h || !(c = doc_copy(d, h, (size_t)m)) ||
        doc_grow(&d->parts, &d->cap_parts, d->n_parts + 2, sizeof *d->parts))
        return oom(r);
    if (r->n >= 3 && !memcmp(r->s, "\xEF\xBB\xBF", 3) && d->n_parts > 0 &&
        d->parts[0].unit < 0 && d->parts[0].s == r->s) { /* the BOM apart, first */
        if (d->parts[0].len > 3) {
            memmove(d->parts + 1, d->parts, sizeof *d->parts * (size_t)d->n_parts);
            d->n_parts++;
            d->parts[1].s += 3;
            d->parts[1].len -= 3;
            d->parts[0].len = 3;
        }
        at = 1;
    }
    memmove(d->parts + at + 1, d->parts + at, sizeof *d->parts * (size_t)(d->n_parts - at));
    d->parts[at] = (doc_part){-1, c, (size_t)m};
    d->n_parts++;
    return 0;
}

/* Each unit's PO_* flags, for po_finish: the doc's format data (doc.h), the count first. */
static int put_blob(po_reader *r)
{
    int *fl = malloc(sizeof *fl * ((size_t)r->n_info + 1));
    if (!fl)
        return oom(r);
    fl[0] = r->n_info;
    if (r->n_info)
        memcpy(fl + 1, r->info, sizeof *fl * (size_t)r->n_info);
    if (r->d->format_free)
        r->d->format_free(r->d->format_data);
    r->d->format_data = fl;
    r->d->format_free = free;
    return 0;
}

int po_parse(doc *d, const doc_opts *o, char *err, size_t errlen)
{
    static const doc_opts none;
    po_reader r;
    const char *s = d->src;
    size_t n = d->src_len, i = 0;
    long line = 0;
    int rc = -1;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.n = n;
    r.d = d;
    r.o = o ? o : &none;
    r.err = err;
    r.errlen = errlen;
    r.nplurals = 2;
    r.eol = "\n";
    set_lang(&r, r.o->target_lang);
    r.forms = r.lang[0] ? po_plural_forms(r.lang) : NULL;
    if (r.forms)
        r.nplurals = po_nplurals(r.forms, strlen(r.forms));
    reset_entry(&r);
    while (i < n) {
        size_t ls = i, p = i;
        const char *nl = memchr(s + i, '\n', n - i);
        size_t le = nl ? (size_t)(nl - s) : n, ce = le;
        const char *eol = "\n";
        line++;
        if (ce > ls && s[ce - 1] == '\r')
            ce--, eol = "\r\n";
        i = nl ? le + 1 : n;
        if (!r.bad_utf8 && !utf8_ok(s + ls, ce - ls))
            r.bad_utf8 = line;
        if (line == 1 && ce - ls >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3))
            p += 3; /* a BOM: kept */
        while (p < ce && is_blank(s[p]))
            p++;
        if (p == ce)
            continue;
        if (s[p] == '#' ? comment(&r, ls, p, ce, line)
            : s[p] == '"' ? string_line(&r, p, ce, line)
                          : keyword(&r, ls, p, ce, line, eol))
            goto done;
    }
    if (r.state != S_NONE && r.state != S_STR) {
        xerr(err, errlen, "line %ld: the catalog ends inside an entry, before its msgstr", line);
        goto done;
    }
    if ((r.state == S_STR && end_entry(&r)) || utf8_error(&r) || keep_to(&r, n) ||
        (!r.header && r.translated > 0 && insert_header(&r)) || put_blob(&r))
        goto done;
    rc = 0;
done:
    strbuf_free(&r.id);
    strbuf_free(&r.idp);
    strbuf_free(&r.str);
    strbuf_free(&r.tmp);
    free(r.lits);
    free(r.info);
    return rc;
}

int po_finish(doc *d, const doc_opts *o, char *err, size_t errlen)
{
    const int *fl = d->format_free == free ? d->format_data : NULL; /* (put_blob's) */
    (void)o;
    if (!fl)
        return 0;
    for (int u = 0; u < fl[0] && u < d->n_units; u++)
        if (po_fix_unit(d, u, fl[1 + u], err, errlen))
            return -1;
    return 0;
}
