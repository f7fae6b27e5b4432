/* md_scan.c — the Markdown inline constructs that are scanned over many bytes (md_inline.h):
 * HTML tags, comments, processing instructions, declarations and CDATA, autolinks, character
 * references, link tails and labels (CommonMark 0.30, 6.3-6.7). A search that could run to the
 * end of the leaf goes through md_find, which remembers where it failed, so that a leaf of
 * many unclosed constructs still costs linear time. */
#include "doc/md_inline.h"
#include <stdint.h>
#include <string.h>

/* Finds needle from buf[from..) unless an earlier search for it (slot) failed at or before
 * from; SIZE_MAX when absent. */
size_t md_find(md_inline_buf *b, int slot, size_t from, const char *needle)
{
    size_t n = strlen(needle);
    if (from >= b->absent[slot] || from > b->len)
        return SIZE_MAX;
    const char *p = memmem(b->buf + from, b->len - from, needle, n);
    if (!p) {
        b->absent[slot] = from;
        return SIZE_MAX;
    }
    return (size_t)(p - b->buf);
}

/* ---- HTML tags, autolinks, entities ---- */

static int tag_start(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static int alnum(unsigned char c)
{
    return tag_start(c) || (c >= '0' && c <= '9');
}

/* An open or closing tag at s[0..n) (md_html_tag); quoted values found through b's memory of
 * failed searches when b is given (s is then b->buf + off). */
size_t md_html_tag_at(md_inline_buf *b, size_t off, const char *s, size_t n)
{
    size_t i = 1;
    if (n < 3 || s[0] != '<')
        return 0;
    int closing = s[1] == '/';
    i += (size_t)closing;
    if (i >= n || !tag_start((unsigned char)s[i]))
        return 0;
    while (i < n && (alnum((unsigned char)s[i]) || s[i] == '-'))
        i++;
    if (closing) {
        while (i < n && md_is_ws((unsigned char)s[i]))
            i++;
        return i < n && s[i] == '>' ? i + 1 : 0;
    }
    for (;;) {
        size_t ws = i;
        while (i < n && md_is_ws((unsigned char)s[i]))
            i++;
        if (i >= n)
            return 0;
        if (s[i] == '>')
            return i + 1;
        if (s[i] == '/')
            return i + 1 < n && s[i + 1] == '>' ? i + 2 : 0;
        unsigned char c = (unsigned char)s[i];
        if (i == ws || !(tag_start(c) || c == '_' || c == ':'))
            return 0;
        while (i < n && (alnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.' ||
                         s[i] == ':' || s[i] == '-'))
            i++;
        size_t j = i;
        while (j < n && md_is_ws((unsigned char)s[j]))
            j++;
        if (j >= n || s[j] != '=')
            continue; /* an attribute without a value */
        j++;
        while (j < n && md_is_ws((unsigned char)s[j]))
            j++;
        if (j >= n)
            return 0;
        if (s[j] == '"' || s[j] == '\'') {
            size_t e;
            if (b) {
                e = md_find(b, s[j] == '"' ? F_DQ : F_SQ, off + j + 1, s[j] == '"' ? "\"" : "'");
                e = e == SIZE_MAX ? SIZE_MAX : e - off;
            } else {
                const char *q = memchr(s + j + 1, s[j], n - j - 1);
                e = q ? (size_t)(q - s) : SIZE_MAX;
            }
            if (e == SIZE_MAX)
                return 0;
            i = e + 1;
        } else {
            size_t k = j;
            while (k < n && !md_is_ws((unsigned char)s[k]) && !strchr("\"'=<>`", s[k]))
                k++;
            if (k == j)
                return 0;
            i = k;
        }
    }
}

size_t md_html_tag(const char *s, size_t n)
{
    return md_html_tag_at(NULL, 0, s, n);
}

/* Inline HTML at buf[i] (a tag, comment, processing instruction, declaration, CDATA): its
 * length, 0 when none. */
size_t md_inline_html(md_inline_buf *b, size_t i)
{
    const char *s = b->buf + i;
    size_t n = b->len - i, e;
    if (n >= 4 && memcmp(s, "<!--", 4) == 0) {
        if (n >= 5 && (s[4] == '>' || (s[4] == '-' && n >= 6 && s[5] == '>')))
            return 0;
        e = md_find(b, F_COMMENT, i + 4, "-->");
        return e == SIZE_MAX ? 0 : e + 3 - i;
    }
    if (n >= 2 && s[1] == '?') {
        e = md_find(b, F_PI, i + 2, "?>");
        return e == SIZE_MAX ? 0 : e + 2 - i;
    }
    if (n >= 9 && memcmp(s, "<![CDATA[", 9) == 0) {
        e = md_find(b, F_CDATA, i + 9, "]]>");
        return e == SIZE_MAX ? 0 : e + 3 - i;
    }
    if (n >= 3 && s[1] == '!' && tag_start((unsigned char)s[2])) {
        e = md_find(b, F_DECL, i + 2, ">");
        return e == SIZE_MAX ? 0 : e + 1 - i;
    }
    return md_html_tag_at(b, i, s, n);
}

/* An autolink <scheme:...> or <address@host> at s: its length, 0 when none. */
size_t md_autolink(const char *s, size_t n)
{
    size_t i = 1;
    if (i < n && tag_start((unsigned char)s[i])) {
        while (i < n && i <= 33 && (alnum((unsigned char)s[i]) || strchr("+.-", s[i])))
            i++;
        if (i >= 3 && i <= 33 && i < n && s[i] == ':') {
            for (i++; i < n; i++) {
                unsigned char c = (unsigned char)s[i];
                if (c == '>')
                    return i + 1;
                if (c <= ' ' || c == '<' || c == 0x7F)
                    break;
            }
        }
    }
    /* an e-mail address: local@label(.label)* */
    for (i = 1; i < n && (alnum((unsigned char)s[i]) || strchr(".!#$%&'*+/=?^_`{|}~-", s[i]));
         i++)
        ;
    if (i == 1 || i >= n || s[i] != '@')
        return 0;
    for (;;) {
        size_t k = ++i;
        while (i < n && i - k < 63 && (alnum((unsigned char)s[i]) || s[i] == '-'))
            i++;
        if (i == k || s[k] == '-' || s[i - 1] == '-' || i >= n)
            return 0;
        if (s[i] == '>')
            return i + 1;
        if (s[i] != '.')
            return 0;
    }
}

/* Appends the UTF-8 of code point c to out (at least 4 bytes); its length. */
static int put_utf8(uint32_t c, char *out)
{
    if (c == 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        c = 0xFFFD;
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | (c >> 6));
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12));
        out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18));
    out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* A character reference at s ("&...;"): its length and its text in out/out_len; 0 when none
 * (a name HTML does not have is none). */
size_t md_char_ref(const char *s, size_t n, char *out, int *out_len)
{
    size_t i = 1;
    *out_len = 0;
    if (i < n && s[i] == '#') {
        int hex = i + 1 < n && (s[i + 1] == 'x' || s[i + 1] == 'X');
        size_t k = i = i + 1 + (size_t)hex;
        uint32_t v = 0;
        while (i < n && i - k < (hex ? 6u : 7u) &&
               ((s[i] >= '0' && s[i] <= '9') ||
                (hex && ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'f')))) {
            unsigned char c = (unsigned char)s[i];
            v = v * (hex ? 16 : 10) + (uint32_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
            i++;
        }
        if (i == k || i >= n || s[i] != ';')
            return 0;
        *out_len = put_utf8(v, out);
        return i + 1;
    }
    while (i < n && i <= 32 && alnum((unsigned char)s[i]))
        i++;
    if (i < 3 || i >= n || s[i] != ';' || !tag_start((unsigned char)s[1]))
        return 0;
    *out_len = md_entity(s + 1, i - 1, out);
    return *out_len > 0 ? i + 1 : 0; /* a name HTML does not have is text */
}

/* ---- links ---- */

/* Skips spaces, tabs and at most one line ending from buf[i]. */
static size_t skip_ws1(const md_inline_buf *b, size_t i)
{
    int nl = 0;
    while (i < b->len && (b->buf[i] == ' ' || b->buf[i] == '\t' || (b->buf[i] == '\n' && !nl))) {
        nl |= b->buf[i] == '\n';
        i++;
    }
    return i;
}

/* An inline link's tail "(dest "title")" at buf[i] == '(': the index after its ')', 0 when
 * none. */
size_t md_link_tail(md_inline_buf *b, size_t i)
{
    const char *s = b->buf;
    size_t n = b->len, j = skip_ws1(b, i + 1);
    if (j < n && s[j] == '<') {
        for (j++; j < n && s[j] != '>'; j++) {
            if (s[j] == '\n' || s[j] == '<')
                return 0;
            if (s[j] == '\\' && j + 1 < n && md_punct((unsigned char)s[j + 1]))
                j++;
        }
        if (j >= n)
            return 0;
        j++;
    } else {
        int depth = 0;
        while (j < n) {
            unsigned char c = (unsigned char)s[j];
            if (c <= ' ' || c == 0x7F)
                break;
            if (c == '\\' && j + 1 < n && md_punct((unsigned char)s[j + 1])) {
                j += 2;
                continue;
            }
            if (c == '(' && ++depth > 32)
                return 0;
            if (c == ')' && depth-- == 0) {
                depth = 0;
                break;
            }
            j++;
        }
        if (depth != 0)
            return 0;
    }
    size_t k = skip_ws1(b, j);
    if (k < n && k > j && (s[k] == '"' || s[k] == '\'' || s[k] == '(')) {
        char close = s[k] == '(' ? ')' : s[k];
        int slot = s[k] == '"' ? F_TITLE_DQ : F_TITLE_SQ;
        size_t e = k + 1;
        for (;;) {
            if (close == ')') { /* bounded by the next '(' or ')' */
                while (e < n && s[e] != ')' && s[e] != '(')
                    e += s[e] == '\\' && e + 1 < n ? 2 : 1;
                if (e >= n || s[e] == '(')
                    return 0;
                break;
            }
            char q[2] = {close, 0};
            e = md_find(b, slot, e, q);
            if (e == SIZE_MAX)
                return 0;
            size_t bs = 0; /* an odd run of backslashes escapes it */
            while (e - bs > k + 1 && s[e - bs - 1] == '\\')
                bs++;
            if (bs % 2 == 0)
                break;
            e++;
        }
        k = skip_ws1(b, e + 1);
    }
    return k < n && s[k] == ')' ? k + 1 : 0;
}

/* 1 when s[0..n) is a link label's content: at most 999 bytes, no unescaped bracket, not
 * blank. */
int md_label_ok(const char *s, size_t n)
{
    int blank = 1;
    if (n > 999)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 1 < n) {
            i++;
            blank = 0;
            continue;
        }
        if (s[i] == '[' || s[i] == ']')
            return 0;
        blank &= md_is_ws((unsigned char)s[i]);
    }
    return !blank;
}

size_t md_label(const char *s, size_t n)
{
    if (n < 2 || s[0] != '[')
        return 0;
    for (size_t i = 1; i < n && i <= 1000; i++) {
        if (s[i] == '\\' && i + 1 < n) {
            i++;
            continue;
        }
        if (s[i] == '[')
            return 0;
        if (s[i] == ']')
            return md_label_ok(s + 1, i - 1) ? i + 1 : 0;
    }
    return 0;
}
