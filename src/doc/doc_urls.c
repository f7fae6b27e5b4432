/* doc_urls.c — URLs and e-mail addresses in a unit's running text made kept elements (doc.h):
 * written as their own bytes, found in the translation by their text like inline code
 * (transfer.h's doc_transfer_kept), never translated into words. doc_url_at is the scanner
 * (also for any caller that must not cut inside one); doc_mark_urls inserts the elements into
 * a built unit, whatever the format.
 *
 * What is a URL follows GitHub's autolink extension (cmark-gfm extensions/autolink.c: a
 * scheme or "www." after a non-word character, the end at whitespace or '<', trailing
 * punctuation and an unbalanced ')' left out), plus the "mailto:" and "ftp://" schemes and
 * e-mail addresses (local@domain.tld). */
#include "doc/doc.h"
#include "base/strbuf.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

static int alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static int lower_prefix(const char *s, size_t len, const char *p)
{
    size_t k = strlen(p);
    if (len < k)
        return 0;
    for (size_t i = 0; i < k; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'A' && c <= 'Z' ? c + 32 : c) != (unsigned char)p[i])
            return 0;
    }
    return 1;
}

/* The end of a URL's body from s[i]: up to whitespace (a U+00A0 too), '<', '>', '"' or a
 * control byte; then trailing punctuation left out (autolink.c's "autolink_delim"), and a
 * closing ')' that has no '(' in the URL. */
static size_t body_end(const char *s, size_t len, size_t i)
{
    size_t e = i;
    while (e < len) {
        unsigned char c = (unsigned char)s[e];
        if (c <= ' ' || c == '<' || c == '>' || c == '"' || c == 0x7F ||
            (c == 0xC2 && e + 1 < len && (unsigned char)s[e + 1] == 0xA0))
            break;
        e++;
    }
    for (;;) {
        if (e <= i)
            return i;
        unsigned char c = (unsigned char)s[e - 1];
        if (strchr("?!.,:*_~'`;", c)) {
            e--;
            continue;
        }
        if (c == ')') {
            int open = 0, close = 0;
            for (size_t k = i; k < e; k++) {
                open += s[k] == '(';
                close += s[k] == ')';
            }
            if (close > open) {
                e--;
                continue;
            }
        }
        return e;
    }
}

/* An e-mail address's domain from s[i]: labels of letters, digits and '-' joined by dots, at
 * least two, the last without a digit; its end, or i when none. */
static size_t domain_end(const char *s, size_t len, size_t i)
{
    size_t e = i, last = i, dots = 0;
    for (;;) {
        size_t a = e;
        while (e < len && (alnum((unsigned char)s[e]) || s[e] == '-'))
            e++;
        if (e == a)
            return dots > 0 ? last : i;
        last = e;
        if (e + 1 < len && s[e] == '.' && alnum((unsigned char)s[e + 1])) {
            e++;
            dots++;
            continue;
        }
        break;
    }
    if (dots == 0)
        return i;
    for (size_t k = last; k > i && s[k - 1] != '.'; k--)
        if (s[k - 1] >= '0' && s[k - 1] <= '9')
            return i;
    return last;
}

size_t doc_url_at(const char *s, size_t len, size_t i)
{
    static const char *const schemes[] = {"https://", "http://", "ftp://", "mailto:", "www."};
    if (i >= len || (i > 0 && (alnum((unsigned char)s[i - 1]) || (unsigned char)s[i - 1] >= 0x80 ||
                               strchr("@./:-_+%", s[i - 1]))))
        return 0;
    for (size_t k = 0; k < sizeof schemes / sizeof *schemes; k++) {
        size_t n = strlen(schemes[k]);
        if (!lower_prefix(s + i, len - i, schemes[k]) || i + n >= len ||
            !alnum((unsigned char)s[i + n]))
            continue;
        size_t e = body_end(s, len, i + n);
        return e > i + n ? e - i : 0;
    }
    /* an e-mail address: local@domain.tld, the local part of letters, digits and ._%+- */
    size_t e = i;
    while (e < len && (alnum((unsigned char)s[e]) || strchr("._%+-", s[e])))
        e++;
    if (e == i || e >= len || s[e] != '@' || !alnum((unsigned char)s[i]))
        return 0;
    size_t d = domain_end(s, len, e + 1);
    return d > e + 1 ? d - i : 0;
}

/* s[0..len) as the unit's escaping writes text: the URL's keep bytes read as its text. */
static int escaped(doc_escape esc, const char *s, size_t len, strbuf *b)
{
    if (esc == DOC_ESC_MARKDOWN)
        return doc_markdown_escape(s, len, 0, strbuf_put, b);
    if (esc == DOC_ESC_NONE)
        return strbuf_put(b, s, len);
    if (esc == DOC_ESC_XML || esc == DOC_ESC_XML_ATTR || esc == DOC_ESC_C)
        return doc_escape_write(esc, s, len, strbuf_put, b);
    for (size_t i = 0; i < len; i++) {
        const char *rep = s[i] == '&' ? "&amp;" : s[i] == '<' ? "&lt;" : s[i] == '>' ? "&gt;" : NULL;
        if (rep ? strbuf_put(b, rep, strlen(rep)) : strbuf_put(b, s + i, 1))
            return -1;
    }
    return 0;
}

static int by_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The URLs of the unit's text become kept elements, each a leaf of the element tree: a URL
 * that an element crosses or holds (a boundary strictly inside it) or that sits inside a keep
 * element stays text. In O((n + m) log n) for n elements and m URLs: the boundaries sorted
 * once, the innermost holder of each URL by a stack over the elements in document order (a
 * parent before its children, starts non-decreasing), the arrays merged once. */
int doc_mark_urls(doc *d, int unit, char *err, size_t errlen)
{
    doc_unit *u = &d->units[unit];
    size_t *us = NULL, *ue = NULL, *bd = NULL;
    int *up = NULL, *stack = NULL, m = 0, cap_m = 0, rc = -1, n = u->n_ranges;
    doc_range *nr = NULL;
    doc_mark *nm = NULL;
    if (u->escape == DOC_ESC_HTML_ATTR) /* (an attribute's text: a title, an alt) */
        return 0;
    for (size_t i = 0; i < u->len;) {
        size_t k = doc_url_at(u->text, u->len, i);
        if (k == 0) {
            i++;
            continue;
        }
        int c2 = cap_m;
        if (doc_grow(&us, &c2, m + 1, sizeof *us) || doc_grow(&ue, &cap_m, m + 1, sizeof *ue))
            goto done;
        us[m] = i;
        ue[m++] = i + k;
        i += k;
    }
    if (m == 0)
        return 0;
    if (!(bd = malloc(sizeof *bd * (2 * (size_t)n + 1))) || !(up = malloc(sizeof *up * (size_t)m)) ||
        !(stack = malloc(sizeof *stack * ((size_t)n + 1))))
        goto done;
    for (int j = 0; j < n; j++) {
        bd[2 * j] = u->ranges[j].start;
        bd[2 * j + 1] = u->ranges[j].end;
    }
    qsort(bd, 2 * (size_t)n, sizeof *bd, by_size);
    int top = 0, j = 0, kept = 0;
    for (int k = 0; k < m; k++) {
        /* a boundary strictly inside: the first one past us[k] */
        int a = 0, b = 2 * n;
        while (a < b) {
            int c = a + (b - a) / 2;
            if (bd[c] <= us[k])
                a = c + 1;
            else
                b = c;
        }
        /* the elements starting at or before it, on a stack of those that may hold it */
        for (; j < n && u->ranges[j].start <= us[k]; j++) {
            while (top > 0 && u->ranges[stack[top - 1]].end < u->ranges[j].end)
                top--;
            stack[top++] = j;
        }
        while (top > 0 && (u->ranges[stack[top - 1]].end < ue[k] ||
                           u->ranges[stack[top - 1]].end == u->ranges[stack[top - 1]].start))
            top--;
        up[k] = top > 0 ? stack[top - 1] : -1;
        if ((a < 2 * n && bd[a] < ue[k]) || (up[k] >= 0 && u->marks[up[k]].n_keep > 0))
            up[k] = -2; /* stays text */
        else
            kept++;
    }
    if (kept == 0) {
        rc = 0;
        goto done;
    }
    /* merged: URL k before the first element that starts after it */
    int total = n + kept, *shift = stack; /* (reused: old index -> new index) */
    if (!(nr = malloc(sizeof *nr * (size_t)total)) || !(nm = malloc(sizeof *nm * (size_t)total)))
        goto done;
    int o = 0, k = 0, *url_at = up; /* (reused after: URL k's new index, or -1) */
    for (j = 0; j <= n; j++) {
        for (; k < m && (j == n || u->ranges[j].start > us[k]); k++) {
            if (up[k] == -2) {
                url_at[k] = -1;
                continue;
            }
            nr[o] = (doc_range){us[k], ue[k], up[k]}; /* (parent: an old index, mapped below) */
            nm[o] = (doc_mark){0, 0, 0, 0, 0, 0, 0, 0};
            url_at[k] = o++;
        }
        if (j < n) {
            shift[j] = o;
            nr[o] = u->ranges[j];
            nm[o++] = u->marks[j];
        }
    }
    for (int q = 0; q < total; q++)
        if (nr[q].parent >= 0)
            nr[q].parent = shift[nr[q].parent];
    free(u->ranges);
    free(u->marks);
    u->ranges = nr;
    u->marks = nm;
    u->n_ranges = u->cap_ranges = total;
    nr = NULL;
    nm = NULL;
    for (k = 0; k < m; k++) {
        if (url_at[k] < 0)
            continue;
        strbuf b = {0};
        char *c = NULL;
        int bad = escaped(u->escape, u->text + us[k], ue[k] - us[k], &b) ||
                  !(c = doc_copy(d, b.s ? b.s : "", b.len));
        /* where text is written in the unit's wrap (OOXML runs), so is the URL */
        int p = u->ranges[url_at[k]].parent, wrap = u->n_wrap_open + u->n_wrap_close > 0 &&
                                                    (p < 0 || u->marks[p].wrap);
        free(b.s);
        for (int w = 0; !bad && wrap && w < u->n_wrap_open; w++)
            bad = doc_mark_part(d, unit, url_at[k], DOC_KEEP, -1,
                                d->mark_parts[u->wrap_open + w].s,
                                d->mark_parts[u->wrap_open + w].len, err, errlen);
        if (bad || doc_mark_part(d, unit, url_at[k], DOC_KEEP, -1, c, strlen(c), err, errlen))
            goto done;
        for (int w = 0; wrap && w < u->n_wrap_close; w++)
            if (doc_mark_part(d, unit, url_at[k], DOC_KEEP, -1, d->mark_parts[u->wrap_close + w].s,
                              d->mark_parts[u->wrap_close + w].len, err, errlen))
                goto done;
    }
    rc = 0;
done:
    free(us);
    free(ue);
    free(bd);
    free(up);
    free(stack);
    free(nr);
    free(nm);
    return rc ? xerr(err, errlen, "out of memory") : 0;
}
