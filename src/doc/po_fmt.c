/* po_fmt.c — a gettext message's own syntax (po_internal.h): the format directives, markup,
 * entities, line breaks and accelerators of a decoded msgid made into a unit's elements;
 * after translation, the bytes the model wrote that would be directives or accelerators of
 * their own taken out, the accelerators moved before a letter and the directives put back in
 * their source order; the Plural-Forms of the common languages.
 *
 * Everything here scans a message left to right with bounded look-ahead: no recursion, linear
 * in the message. */
#include "doc/po_internal.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- Plural-Forms ---- */

/* The GNU gettext manual, "Plural forms" (section 11.2.6, "Additional functions for plural
 * forms"), gives these formulas and the languages each is for; the languages it does not list
 * (zh, id, ms, hi...) follow CLDR's plural rules for integers as gettext's own msginit table
 * (gettext-tools/src/plural-table.c) writes them. Longest code first where a country
 * differs (pt_BR). */
static const char *const PF_ONE = "nplurals=1; plural=0;";
static const char *const PF_NE1 = "nplurals=2; plural=n != 1;";
static const char *const PF_GT1 = "nplurals=2; plural=n>1;";
static const char *const PF_SLAV =
    "nplurals=3; plural=n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || "
    "n%100>=20) ? 1 : 2;";

static const struct {
    const char *lang, *forms;
} plural_table[] = {
    /* one form: Japanese, Vietnamese, Korean, Thai (manual); Chinese, Indonesian, Malay */
    {"ja", NULL}, {"vi", NULL}, {"ko", NULL}, {"th", NULL}, {"zh", NULL}, {"id", NULL},
    {"ms", NULL},
    /* two forms, singular for one only (manual: Germanic, Finno-Ugric, Romance, Greek,
     * Bulgarian, Hebrew, Esperanto, Hungarian, Turkish) */
    {"en", PF_NE1}, {"de", PF_NE1}, {"nl", PF_NE1}, {"sv", PF_NE1}, {"da", PF_NE1},
    {"no", PF_NE1}, {"nb", PF_NE1}, {"nn", PF_NE1}, {"fo", PF_NE1}, {"es", PF_NE1},
    {"pt", PF_NE1}, {"it", PF_NE1}, {"bg", PF_NE1}, {"el", PF_NE1}, {"fi", PF_NE1},
    {"et", PF_NE1}, {"he", PF_NE1}, {"eo", PF_NE1}, {"hu", PF_NE1}, {"tr", PF_NE1},
    {"ca", PF_NE1}, {"eu", PF_NE1}, {"gl", PF_NE1}, {"af", PF_NE1}, {"sq", PF_NE1},
    /* two forms, singular for zero and one: Brazilian Portuguese, French */
    {"pt_BR", PF_GT1}, {"fr", PF_GT1},
    /* three forms, special case for zero: Latvian */
    {"lv", "nplurals=3; plural=n%10==1 && n%100!=11 ? 0 : n != 0 ? 1 : 2;"},
    /* three forms, special cases for one and two: Irish */
    {"ga", "nplurals=3; plural=n==1 ? 0 : n==2 ? 1 : 2;"},
    /* three forms, special case for numbers ending in 00 or [2-9][0-9]: Romanian */
    {"ro", "nplurals=3; plural=n==1 ? 0 : (n==0 || (n%100 > 0 && n%100 < 20)) ? 1 : 2;"},
    /* three forms, special case for numbers ending in 1[2-9]: Lithuanian */
    {"lt", "nplurals=3; plural=n%10==1 && n%100!=11 ? 0 : n%10>=2 && (n%100<10 || n%100>=20) "
           "? 1 : 2;"},
    /* three forms, numbers ending in 1, and in 2, 3, 4 but 1[1-4]: Russian, Ukrainian,
     * Belarusian, Serbian, Croatian (and Bosnian) */
    {"ru", PF_SLAV}, {"uk", PF_SLAV}, {"be", PF_SLAV}, {"sr", PF_SLAV}, {"hr", PF_SLAV},
    {"bs", PF_SLAV},
    /* three forms, special cases for 1 and 2, 3, 4: Czech, Slovak */
    {"cs", "nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;"},
    {"sk", "nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;"},
    /* three forms, one and some numbers ending in 2, 3, 4: Polish */
    {"pl", "nplurals=3; plural=n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 "
           ": 2;"},
    /* four forms, one and numbers ending in 02, 03, 04: Slovenian */
    {"sl", "nplurals=4; plural=n%100==1 ? 0 : n%100==2 ? 1 : n%100==3 || n%100==4 ? 2 : 3;"},
    /* six forms: Arabic */
    {"ar", "nplurals=6; plural=n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : "
           "n%100>=11 ? 4 : 5;"},
    /* two forms, n != 1 (CLDR "one"/"other" for integers) */
    {"hi", PF_NE1}, {"bn", PF_NE1}, {"fa", PF_GT1}, {"ka", PF_NE1}, {"hy", PF_GT1},
};

const char *po_plural_forms(const char *lang)
{
    char code[16];
    size_t n = lang ? strlen(lang) : 0, k;
    if (n == 0 || n >= sizeof code)
        return NULL;
    for (k = 0; k < n; k++)
        code[k] = lang[k] == '-' ? '_' : lang[k];
    code[n] = '\0';
    /* the whole code, then the language alone ("ru_RU" -> "ru") */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            char *u = strchr(code, '_');
            if (!u)
                break;
            *u = '\0';
        }
        for (size_t i = 0; i < sizeof plural_table / sizeof plural_table[0]; i++)
            if (!strcasecmp(code, plural_table[i].lang))
                return plural_table[i].forms ? plural_table[i].forms : PF_ONE;
    }
    return NULL;
}

int po_nplurals(const char *s, size_t len)
{
    static const char key[] = "nplurals";
    for (size_t i = 0; i + sizeof key - 1 <= len; i++) {
        if (memcmp(s + i, key, sizeof key - 1))
            continue;
        size_t k = i + sizeof key - 1;
        while (k < len && (s[k] == ' ' || s[k] == '\t'))
            k++;
        if (k >= len || s[k] != '=')
            return 0;
        k++;
        while (k < len && (s[k] == ' ' || s[k] == '\t'))
            k++;
        if (k < len && s[k] >= '1' && s[k] <= '6' && (k + 1 >= len || s[k + 1] < '0' ||
                                                      s[k + 1] > '9'))
            return s[k] - '0';
        return 0;
    }
    return 0;
}

/* ---- escaping ---- */

int po_escape(strbuf *b, const char *s, size_t len)
{
    size_t from = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        char rep[8];
        size_t k = 0;
        if (c == '\\' || c == '"')
            rep[k++] = '\\', rep[k++] = (char)c;
        else if (c == '\n')
            rep[k++] = '\\', rep[k++] = 'n';
        else if (c == '\t')
            rep[k++] = '\\', rep[k++] = 't';
        else if (c == '\r')
            rep[k++] = '\\', rep[k++] = 'r';
        else if (c < 0x20 || c == 0x7f) {
            rep[k++] = '\\';
            rep[k++] = (char)('0' + (c >> 6));
            rep[k++] = (char)('0' + ((c >> 3) & 7));
            rep[k++] = (char)('0' + (c & 7));
        } else
            continue;
        if ((i > from && strbuf_put(b, s + from, i - from)) || strbuf_put(b, rep, k))
            return -1;
        from = i + 1;
    }
    return strbuf_put(b, s + from, len - from);
}

/* ---- scanners: each returns the length of what starts at t[i], or 0 ---- */

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
static int is_alnum(char c) { return is_alpha(c) || is_digit(c); }
/* a letter for accelerators: ASCII, or the lead byte of a non-ASCII character */
static int is_letter(char c) { return is_alpha(c) || (unsigned char)c >= 0xC0; }
/* a byte of a word (a non-ASCII character's bytes count) */
static int word_byte(char c) { return is_alnum(c) || (unsigned char)c >= 0x80; }
static int in_set(const char *set, char c) { return c && strchr(set, c); }

/* A C format directive (printf's grammar, with gettext's %<PRId64> and the I flag). strict
 * (the message is flagged c-format): also the space and ' flags, %n, %m, %C, %S, %a, %A. */
static size_t c_dir(const char *t, size_t n, size_t i, int strict)
{
    size_t k = i + 1, j;
    if (k < n && t[k] == '%')
        return 2;
    for (j = k; j < n && is_digit(t[j]); j++)
        ;
    if (j > k && j < n && t[j] == '$')
        k = j + 1;
    while (k < n && (in_set("-+#0", t[k]) || (strict && in_set(" 'I", t[k]))))
        k++;
    for (int part = 0; part < 2; part++) { /* the width, then the precision */
        if (part == 1) {
            if (k >= n || t[k] != '.')
                break;
            k++;
        }
        if (k < n && t[k] == '*') {
            k++;
            for (j = k; j < n && is_digit(t[j]); j++)
                ;
            if (j > k && j < n && t[j] == '$')
                k = j + 1;
        } else {
            while (k < n && is_digit(t[k]))
                k++;
        }
    }
    if (k + 1 < n && ((t[k] == 'h' && t[k + 1] == 'h') || (t[k] == 'l' && t[k + 1] == 'l')))
        k += 2;
    else if (k < n && in_set("hlLqjzZt", t[k]))
        k++;
    if (strict && k < n && t[k] == '<') { /* <inttypes.h>: %<PRId64> */
        for (j = k + 1; j < n && j < k + 32 && (is_alnum(t[j]) || t[j] == '_'); j++)
            ;
        return j < n && t[j] == '>' && j > k + 1 ? j + 1 - i : 0;
    }
    if (k < n && in_set(strict ? "diouxXeEfFgGaAcsSCpnm" : "diouxXeEfFgGcsp", t[k]))
        return k + 1 - i;
    return 0;
}

/* Python's %(name)s */
static size_t py_dir(const char *t, size_t n, size_t i)
{
    size_t k = i + 1;
    if (k >= n || t[k] != '(')
        return 0;
    for (k++; k < n && k < i + 66 && t[k] != ')' && t[k] != '(' && (unsigned char)t[k] >= 0x20;
         k++)
        ;
    if (k >= n || t[k] != ')' || k == i + 2)
        return 0;
    k++;
    while (k < n && in_set("-+ #0", t[k]))
        k++;
    while (k < n && (is_digit(t[k]) || t[k] == '*' || t[k] == '.'))
        k++;
    if (k < n && in_set("hlL", t[k]))
        k++;
    return k < n && in_set("diouxXeEfFgGcrsa%", t[k]) ? k + 1 - i : 0;
}

/* {name}, {0}, {}, {name.attr[0]!r:>10} (str.format); strict (python-brace-format): also
 * {{ and }} and a spec with blanks */
static size_t brace_dir(const char *t, size_t n, size_t i, int strict)
{
    size_t k = i + 1;
    if (t[i] == '}')
        return strict && k < n && t[k] == '}' ? 2 : 0;
    if (k < n && t[k] == '{')
        return strict ? 2 : 0;
    if (k < n && (is_alpha(t[k]) || t[k] == '_')) {
        while (k < n && (is_alnum(t[k]) || t[k] == '_'))
            k++;
    } else {
        while (k < n && is_digit(t[k]))
            k++;
    }
    for (int g = 0; g < 8 && k < n && (t[k] == '.' || t[k] == '['); g++) {
        size_t j = k + 1;
        while (j < n && j < k + 32 && (is_alnum(t[j]) || t[j] == '_'))
            j++;
        if (t[k] == '[') {
            if (j >= n || t[j] != ']')
                return 0;
            j++;
        } else if (j == k + 1) {
            return 0;
        }
        k = j;
    }
    if (k + 1 < n && t[k] == '!' && in_set("rsa", t[k + 1]))
        k += 2;
    if (k < n && t[k] == ':')
        for (k++; k < n && k < i + 64 && t[k] != '}' && t[k] != '{' &&
                  (strict || t[k] != ' ');
             k++)
            ;
    return k < n && t[k] == '}' ? k + 1 - i : 0;
}

/* ${name} (shell, Perl, JavaScript templates) */
static size_t dollar_dir(const char *t, size_t n, size_t i)
{
    size_t k = i + 2;
    if (k >= n || t[i + 1] != '{')
        return 0;
    while (k < n && k < i + 66 && t[k] != '}' && t[k] != '{' && t[k] != ' ' &&
           (unsigned char)t[k] >= 0x20)
        k++;
    return k < n && t[k] == '}' && k > i + 2 ? k + 1 - i : 0;
}

/* &amp; &#233; &#xE9; */
static size_t entity(const char *t, size_t n, size_t i)
{
    size_t k = i + 1;
    if (k < n && t[k] == '#') {
        k++;
        int hex = k < n && (t[k] == 'x' || t[k] == 'X');
        k += (size_t)hex;
        size_t d0 = k;
        while (k < n && k < d0 + 8 && (is_digit(t[k]) || (hex && in_set("abcdefABCDEF", t[k]))))
            k++;
        return k > d0 && k < n && t[k] == ';' ? k + 1 - i : 0;
    }
    if (k >= n || !is_alpha(t[k]))
        return 0;
    while (k < n && k < i + 33 && is_alnum(t[k]))
        k++;
    return k < n && t[k] == ';' ? k + 1 - i : 0;
}

enum { TK_NONE, TK_DIR, TK_ENT, TK_OPEN, TK_CLOSE, TK_VOID, TK_CTRL, TK_ACC };

/* A tag: <name ...>, </name>, <name/>; its kind in *kind, the name in t[*name, *name + *nlen). */
static size_t tag(const char *t, size_t n, size_t i, int *kind, size_t *name, size_t *nlen)
{
    size_t k = i + 1;
    int close = k < n && t[k] == '/';
    k += (size_t)close;
    if (k >= n || !is_alpha(t[k]))
        return 0;
    *name = k;
    while (k < n && (is_alnum(t[k]) || in_set(":_.-", t[k])))
        k++;
    *nlen = k - *name;
    if (k >= n || (t[k] != '>' && t[k] != '/' && t[k] != ' '))
        return 0;
    for (; k < n && k < i + 1024 && t[k] != '>' && t[k] != '<'; k++)
        ;
    if (k >= n || t[k] != '>')
        return 0;
    *kind = close ? TK_CLOSE : t[k - 1] == '/' ? TK_VOID : TK_OPEN;
    return k + 1 - i;
}

/* '_' or '&' at t[i] marking the next letter as an accelerator: before a letter; '&' at a
 * word's start ("&Open"), '_' anywhere in a word ("_File", "C_urrent"); the word without
 * another '_' or '&' (so GDK_GL, _NET_WM_NAME are none: identifiers, kept by scan). Words
 * over 64 bytes either side are none (a bound on the look-around). */
static int accel_at(const char *t, size_t n, size_t i)
{
    size_t a = i, b = i + 1;
    if (i + 1 >= n || !is_letter(t[i + 1]) || (i > 0 && (t[i - 1] == '_' || t[i - 1] == '&')) ||
        (t[i] == '&' && i > 0 && word_byte(t[i - 1])))
        return 0;
    while (a > 0 && a + 64 > i && (word_byte(t[a - 1]) || t[a - 1] == '_' || t[a - 1] == '&'))
        a--;
    while (b < n && b < i + 64 && (word_byte(t[b]) || t[b] == '_' || t[b] == '&'))
        b++;
    if ((a > 0 && a + 64 <= i && word_byte(t[a - 1])) || (b < n && b >= i + 64 && word_byte(t[b])))
        return 0;
    for (size_t k = a; k < b; k++)
        if (k != i && (t[k] == '_' || t[k] == '&'))
            return 0;
    return 1;
}

/* An identifier at a word's start: letters and digits joined by '_', with two '_' or more
 * (text_view_markup) or no lower-case letter (GDK_GL, GOBJECT_DEBUG): kept, not translated,
 * and its '_' no accelerator. */
static size_t ident(const char *t, size_t n, size_t i)
{
    size_t k = i;
    int us = 0, lower = 0;
    if (i > 0 && (word_byte(t[i - 1]) || t[i - 1] == '_'))
        return 0;
    for (; k < n && (is_alnum(t[k]) || (t[k] == '_' && k > i && k + 1 < n && is_alnum(t[k + 1])));
         k++) {
        us += t[k] == '_';
        lower |= t[k] >= 'a' && t[k] <= 'z';
    }
    if (k < n && ((unsigned char)t[k] >= 0x80 || t[k] == '_'))
        return 0;
    return us >= 2 || (us == 1 && !lower) ? k - i : 0;
}

/* What starts at t[i]: a token's kind and length, or TK_NONE. */
static int scan(const char *t, size_t n, size_t i, int flags, size_t *len, size_t *name,
                size_t *nlen)
{
    char c = t[i];
    int kind = TK_DIR;
    *len = 0;
    if ((unsigned char)c < 0x20 || c == 0x7f) {
        *len = 1;
        return TK_CTRL;
    }
    if (c == '%' && !(flags & PO_NO_C))
        *len = (flags & PO_PY) ? py_dir(t, n, i) : 0;
    if (c == '%' && !*len && (!(flags & PO_NO_C) || (flags & PO_PY)))
        *len = c_dir(t, n, i, (flags & (PO_C | PO_PY)) != 0);
    if (c == '%' && !*len && !(flags & PO_NO_C))
        *len = py_dir(t, n, i);
    if (c == '{' || c == '}')
        *len = brace_dir(t, n, i, (flags & PO_BRACE) != 0);
    if (c == '$')
        *len = dollar_dir(t, n, i);
    if (c == '&' && (*len = entity(t, n, i)))
        kind = TK_ENT;
    if (c == '<')
        *len = tag(t, n, i, &kind, name, nlen);
    if (is_alnum(c) && (*len = ident(t, n, i)))
        kind = TK_ENT;
    return *len ? kind : TK_NONE;
}

int po_has_words(const char *t, size_t n, int flags)
{
    size_t name, nlen, len;
    for (size_t i = 0; i < n;) {
        if (scan(t, n, i, flags, &len, &name, &nlen)) {
            i += len;
            continue;
        }
        if (is_alpha(t[i]) || (unsigned char)t[i] >= 0x80)
            return 1;
        i++;
    }
    return 0;
}

/* ---- the unit ---- */

typedef struct {
    size_t at, len, name, nlen;
    int kind;
    int paired; /* TK_OPEN / TK_CLOSE: 1 when matched with its other half */
} po_tok;

static int put_mark(doc *d, int unit, int elem, int which, const char *s, size_t len,
                    char *err, size_t errlen)
{
    strbuf b = {0};
    char *c;
    if (po_escape(&b, s, len) || !(c = doc_copy(d, b.s ? b.s : "", b.len))) {
        strbuf_free(&b);
        return xerr(err, errlen, "out of memory");
    }
    strbuf_free(&b);
    return doc_mark_part(d, unit, elem, which, -1, c, strlen(c), err, errlen);
}

int po_build_unit(doc *d, int unit, const char *t, size_t n, int *flags, char *err,
                  size_t errlen)
{
    po_tok *tk = NULL;
    int nt = 0, cap = 0, n_acc = 0, rc = -1, top = 0;
    int *open = NULL; /* [nt] the open tags not yet matched (pass 1), then the open
                         elements (pass 2) */
    size_t i = 0, at = 0;
    /* pass 1: the tokens */
    while (i < n) {
        po_tok k = {i, 0, 0, 0, TK_NONE, 0};
        k.kind = scan(t, n, i, *flags, &k.len, &k.name, &k.nlen);
        if (!k.kind && (t[i] == '_' || t[i] == '&') && accel_at(t, n, i)) {
            k.kind = TK_ACC;
            k.len = 1;
            n_acc++;
        }
        if (!k.kind) {
            i++;
            continue;
        }
        if (doc_grow(&tk, &cap, nt + 1, sizeof *tk))
            goto oom;
        tk[nt++] = k;
        if (k.kind == TK_DIR)
            *flags |= t[i] == '%' ? PO_DIR : t[i] == '$' ? PO_DL : PO_BR;
        i += k.len;
    }
    if (!(open = malloc(sizeof(int) * ((size_t)nt + 1))))
        goto oom;
    /* tags paired with a stack: a close tag takes the nearest open one of its name among the
     * 64 on top (those above it stay unpaired) */
    for (int k = 0; k < nt; k++) {
        if (tk[k].kind == TK_OPEN) {
            open[top++] = k;
        } else if (tk[k].kind == TK_CLOSE) {
            for (int j = top - 1; j >= 0 && j >= top - 64; j--) {
                const po_tok *o = &tk[open[j]];
                if (o->nlen == tk[k].nlen && !memcmp(t + o->name, t + tk[k].name, o->nlen)) {
                    tk[open[j]].paired = tk[k].paired = 1;
                    top = j;
                    break;
                }
            }
        }
    }
    /* pass 2: the text and the elements */
    top = 0;
    for (int k = 0; k < nt; k++) {
        po_tok *o = &tk[k];
        int e;
        if (o->at > at && doc_unit_text(d, unit, t + at, o->at - at, err, errlen))
            goto done;
        if (o->at > at && memchr(t + at, '_', o->at - at))
            *flags |= PO_US_TEXT;
        at = o->at + o->len;
        if (o->kind == TK_ACC && n_acc != 1) { /* several: none is sure, all are text */
            *flags |= t[o->at] == '_' ? PO_US_TEXT : 0;
            if (doc_unit_text(d, unit, t + o->at, 1, err, errlen))
                goto done;
            continue;
        }
        if (o->kind == TK_CLOSE && o->paired) {
            e = open[--top];
            if (put_mark(d, unit, e, DOC_CLOSE, t + o->at, o->len, err, errlen))
                goto done;
            doc_end_elem(d, unit, e);
            continue;
        }
        if (doc_begin_elem(d, unit, top > 0 ? open[top - 1] : -1, &e, err, errlen))
            goto done;
        switch (o->kind) {
        case TK_DIR:
        case TK_ENT: /* kept: the model reads it, the bytes are written */
            if (doc_unit_text(d, unit, t + o->at, o->len, err, errlen) ||
                put_mark(d, unit, e, DOC_KEEP, t + o->at, o->len, err, errlen))
                goto done;
            doc_end_elem(d, unit, e);
            break;
        case TK_OPEN:
            if (!o->paired)
                goto unpaired;
            if (put_mark(d, unit, e, DOC_OPEN, t + o->at, o->len, err, errlen))
                goto done;
            open[top++] = e;
            break;
        case TK_ACC:
            *flags |= t[o->at] == '_' ? PO_ACC_US : PO_ACC_AMP;
            if (doc_mark_part(d, unit, e, DOC_OPEN, -1, t[o->at] == '_' ? "_" : "&", 1, err,
                              errlen))
                goto done;
            doc_end_elem(d, unit, e);
            break;
        case TK_CTRL: { /* a line break: a space between the words around it */
            const doc_unit *u = &d->units[unit];
            if (put_mark(d, unit, e, DOC_OPEN, t + o->at, o->len, err, errlen))
                goto done;
            doc_end_elem(d, unit, e);
            if (u->len > 0 && u->text[u->len - 1] != ' ' && at < n && t[at] != ' ' &&
                (unsigned char)t[at] >= 0x20 && doc_unit_text(d, unit, " ", 1, err, errlen))
                goto done;
            break;
        }
        default: /* TK_VOID, TK_CLOSE unpaired: kept, as a directive (the model reads it, so
                    a copy of it is found in the translation and the tags keep their order) */
        unpaired:
            if (doc_unit_text(d, unit, t + o->at, o->len, err, errlen) ||
                put_mark(d, unit, e, DOC_KEEP, t + o->at, o->len, err, errlen))
                goto done;
            doc_end_elem(d, unit, e);
            break;
        }
    }
    if (n > at && doc_unit_text(d, unit, t + at, n - at, err, errlen))
        goto done;
    if (n > at && memchr(t + at, '_', n - at))
        *flags |= PO_US_TEXT;
    while (top > 0) /* (never so: every paired open tag met its close) */
        doc_end_elem(d, unit, open[--top]);
    rc = 0;
    goto done;
oom:
    xerr(err, errlen, "out of memory");
done:
    free(tk);
    free(open);
    return rc;
}

/* ---- after translation ---- */

/* 1 when element e is an accelerator's void element */
static int is_accel(const doc *d, const doc_unit *u, int e)
{
    const doc_mark *m = &u->marks[e];
    if (m->n_keep || m->n_close || m->n_open != 1)
        return 0;
    const doc_part *p = &d->mark_parts[m->open];
    return p->unit < 0 && p->len == 1 && (p->s[0] == '_' || p->s[0] == '&');
}

/* The keep element's bytes when it is one part (a directive), else NULL. */
static const doc_part *keep_part(const doc *d, const doc_unit *u, int e)
{
    const doc_mark *m = &u->marks[e];
    if (m->n_keep != 1 || d->mark_parts[m->keep].unit >= 0)
        return NULL;
    return &d->mark_parts[m->keep];
}

/* 1 when [a, b] holds no edge of a sibling of e (the 64 either side) */
static int clear_of_siblings(const doc_unit *u, int e, size_t a, size_t b)
{
    int p = u->ranges[e].parent;
    for (int j = e - 64 > 0 ? e - 64 : 0; j < u->n_ranges && j <= e + 64; j++) {
        const doc_range *r = &u->ranges[j];
        if (j == e || r->parent != p)
            continue;
        if ((r->start > a && r->start <= b) || (r->end > a && r->end <= b))
            return 0;
    }
    return 1;
}

/* An accelerator before the first letter of the word it was placed in or before (forward),
 * else of the last word before it. */
static void place_accel(doc_unit *u, int e)
{
    const char *s = u->out;
    int p = u->ranges[e].parent;
    size_t lo = p >= 0 ? u->ranges[p].start : 0, hi = p >= 0 ? u->ranges[p].end : u->out_len;
    size_t at = u->ranges[e].start, q;
    if (at < lo || at > hi)
        return;
    while (at > lo && word_byte(s[at - 1]))
        at--;
    for (q = at; q < hi && !is_letter(s[q]); q++)
        ;
    if (q >= hi) { /* none after it: the last word's first letter */
        for (q = at; q > lo && !is_letter(s[q - 1]); q--)
            ;
        if (q == lo)
            return;
        while (q > lo && word_byte(s[q - 1]))
            q--;
        while (q < at && !is_letter(s[q]))
            q++;
    }
    for (size_t a = q; a < hi && word_byte(s[a]); a++)
        if (is_alpha(s[a])) { /* an ASCII letter of the word, where it has one (pofilter's
                                 accelerator characters) */
            q = a;
            break;
        }
    if (q != u->ranges[e].start &&
        clear_of_siblings(u, e, q < u->ranges[e].start ? q : u->ranges[e].start,
                          q < u->ranges[e].start ? u->ranges[e].start : q))
        u->ranges[e].start = u->ranges[e].end = q;
}

typedef struct {
    size_t start;
    int e;
} po_pos;

static int by_pos(const void *a, const void *b)
{
    const po_pos *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->e > y->e) - (x->e < y->e);
}

/* The non-positional directives (%s, %d, {}; not %%) written in the source's order: msgfmt
 * --check-format reads them as arguments in order. The alignment may have swapped them; each
 * place in the target then takes the source's directive of its rank. None when one of them
 * is positional (%1$s): those may move. */
static int reorder_dirs(const doc *d, doc_unit *u)
{
    int n = 0, rc = -1;
    po_pos *pos = malloc(sizeof *pos * ((size_t)u->n_ranges + 1));
    int *keep = malloc(sizeof(int) * ((size_t)u->n_ranges + 1));
    if (!pos || !keep)
        goto done;
    for (int e = 0; e < u->n_ranges; e++) {
        const doc_part *p = keep_part(d, u, e);
        if (!p || p->len < 2 || !((p->s[0] == '%' && p->s[1] != '%') ||
                                  (p->len == 2 && p->s[0] == '{' && p->s[1] == '}')))
            continue;
        if (memchr(p->s, '$', p->len) || (p->s[0] == '%' && p->s[1] == '('))
            goto ok; /* positional or named: any order is valid */
        pos[n] = (po_pos){u->ranges[e].start, e};
        keep[n++] = u->marks[e].keep;
    }
    qsort(pos, (size_t)n, sizeof *pos, by_pos);
    for (int k = 0; k < n; k++) /* (keep[] is in source order: elements are) */
        u->marks[pos[k].e].keep = keep[k];
ok:
    rc = 0;
done:
    free(pos);
    free(keep);
    return rc;
}

/* 1 when element a is e or one of its ancestors */
static int holds(const doc_unit *u, int a, int e)
{
    for (int k = 0; e >= 0 && k <= u->n_ranges; k++, e = u->ranges[e].parent)
        if (e == a)
            return 1;
    return 0;
}

/* A directive the model copied at out[i, i + len) that the alignment did not find: the kept
 * element of the same bytes placed at a point (the nearest) takes the copy as its range, so
 * "»%s«" stays as the model wrote it instead of "»« %s". Only where it nests: inside its
 * parent, across no other element. Returns 1 when adopted (prot marked). */
static int adopt(const doc *d, doc_unit *u, size_t i, size_t len, unsigned char *prot)
{
    int best = -1;
    size_t dist = SIZE_MAX;
    for (int e = 0; e < u->n_ranges; e++) {
        const doc_part *p = keep_part(d, u, e);
        const doc_range *r = &u->ranges[e];
        size_t dd = r->start > i ? r->start - i : i - r->start;
        if (!p || r->start != r->end || p->len != len || memcmp(p->s, u->out + i, len) ||
            dd >= dist)
            continue;
        int par = r->parent, ok = par < 0 || (u->ranges[par].start <= i &&
                                              u->ranges[par].end >= i + len);
        for (int j = 0; ok && j < u->n_ranges; j++) {
            const doc_range *q = &u->ranges[j];
            if (holds(u, j, e))
                continue;
            if (q->start < q->end ? q->start < i + len && q->end > i
                                  : q->start > i && q->start < i + len)
                ok = 0;
        }
        if (ok)
            best = e, dist = dd;
    }
    if (best < 0)
        return 0;
    u->ranges[best].start = i;
    u->ranges[best].end = i + len;
    memset(prot + i, 1, len);
    return 1;
}

int po_fix_unit(doc *d, int unit, int flags, char *err, size_t errlen)
{
    doc_unit *u = &d->units[unit];
    size_t n = u->out_len, i = 0;
    unsigned char *prot = NULL; /* [n] bytes inside kept elements: written as the source's */
    size_t *map = NULL;         /* [n + 1] each byte's offset in the new text */
    strbuf b = {0};
    int rc = -1;
    if (!u->out)
        return 0;
    if (!(prot = calloc(n + 1, 1)) || !(map = malloc(sizeof *map * (n + 1))))
        goto oom;
    for (int e = 0; e < u->n_ranges; e++)
        if (u->marks[e].n_keep > 0)
            for (size_t k = u->ranges[e].start; k < u->ranges[e].end && k < n; k++)
                prot[k] = 1;
    for (size_t j = 0; j < n && u->n_ranges <= 512;) { /* copies the alignment missed */
        size_t len = 0, name, nlen;
        if (!prot[j] && scan(u->out, n, j, flags, &len, &name, &nlen) != TK_NONE &&
            adopt(d, u, j, len, prot)) {
            j += len;
            continue;
        }
        j += len ? len : 1;
    }
    while (i < n) {
        const char *s = u->out;
        size_t len = 0, name, nlen;
        int kind = prot[i] ? TK_NONE : scan(s, n, i, flags, &len, &name, &nlen);
        const char *put = s + i;
        size_t put_len = 1;
        for (size_t k = i; kind && k < i + len; k++)
            if (prot[k])
                kind = TK_NONE; /* (it would take a kept element's bytes) */
        map[i] = b.len;
        if (kind == TK_ENT || kind == TK_OPEN || kind == TK_CLOSE || kind == TK_VOID ||
            (kind == TK_DIR && ((s[i] == '%' && (flags & (PO_C | PO_PY | PO_DIR))) ||
                               (s[i] == '$' && (flags & PO_DL)) ||
                               ((s[i] == '{' || s[i] == '}') && (flags & (PO_BRACE | PO_BR)))))) {
            /* a directive, tag, entity or identifier of the model's own (the source's are
             * kept elements, their copies taken by adopt): out */
            for (size_t k = i; k < i + len; k++)
                map[k] = b.len;
            i += len;
            continue;
        }
        if (!prot[i] && !kind && s[i] == '%' && (flags & (PO_C | PO_PY)) && !(flags & PO_NO_C))
            put = "%%", put_len = 2; /* a lone '%': a literal percent sign */
        else if (!prot[i] && !kind && (s[i] == '{' || s[i] == '}') && (flags & PO_BRACE))
            put = s[i] == '{' ? "{{" : "}}", put_len = 2;
        else if (!prot[i] && ((s[i] == '_' && (flags & PO_ACC_US || !(flags & PO_US_TEXT))) ||
                              (s[i] == '&' && (flags & PO_ACC_AMP) && kind != TK_ENT)) &&
                 accel_at(s, n, i))
            put_len = 0; /* a second accelerator */
        if (put_len && strbuf_put(&b, put, put_len))
            goto oom;
        i++;
    }
    map[n] = b.len;
    if (strbuf_put(&b, "", 0))
        goto oom;
    for (int e = 0; e < u->n_ranges; e++) {
        doc_range *r = &u->ranges[e];
        r->start = map[r->start < n ? r->start : n];
        r->end = map[r->end < n ? r->end : n];
    }
    free(u->out);
    u->out = b.s;
    u->out_len = b.len;
    b.s = NULL;
    for (int e = 0; e < u->n_ranges; e++)
        if (is_accel(d, u, e))
            place_accel(u, e);
    if (reorder_dirs(d, u))
        goto oom;
    rc = 0;
    goto done;
oom:
    xerr(err, errlen, "out of memory");
done:
    strbuf_free(&b);
    free(prot);
    free(map);
    return rc;
}
