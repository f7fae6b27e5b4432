/* md_block.c — markdown_parse (markdown.h): CommonMark's block structure (spec 0.30, "Leaf
 * blocks", "Container blocks", appendix "A parsing strategy") with GitHub's tables and a YAML
 * front matter, read line by line.
 *
 * Pass 1 finds the leaves whose text is translated (paragraphs, ATX and setext headings' text,
 * table cells) as lists of line pieces (md_line) and the link reference labels. Every byte
 * outside the leaves' pieces is kept: container markers, indentation, fences and code, HTML
 * blocks, thematic breaks, blank lines, trailing blanks, the front matter, reference
 * definitions, table pipes and the alignment row. Pass 2 writes the doc: the kept bytes
 * between leaves as they are, each leaf as a unit parsed by md_inline (the reference labels are
 * known by then, wherever they were defined).
 *
 * The open containers (block quotes, list items) are an array, not a recursion, and a line is
 * matched against them in time linear in its bytes: a block quote needs its '>' and a list item
 * its indentation, and a blank line skips from one block quote to the next (a list item always
 * matches a blank line, but for an empty one's second, which can only be the innermost). */
#include "doc/markdown.h"
#include "doc/md_internal.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

/* ---- the parser's state ---- */

enum { L_NONE, L_PARA, L_FENCE, L_ICODE, L_HTML, L_TABLE };

typedef struct {
    char kind;       /* '>' a block quote, 'L' a list item */
    int width;       /* 'L': the content's indentation, in columns from the item's start */
    int empty_start; /* 'L': began with a blank line and holds nothing yet */
} md_cont;

typedef struct {
    int first, n; /* lines[first .. first + n) */
    long line;
} md_leaf;

typedef struct {
    doc *d;
    const char *s;
    size_t n;
    md_cont *c;          /* [nc] the open containers, outermost first */
    int nc, cap_c;
    int *quotes;         /* [nq] the indices in c of the block quotes, increasing */
    int nq, cap_q;
    md_line *lines;
    int n_lines, cap_lines;
    md_leaf *leaves;
    int n_leaves, cap_leaves;
    md_refs refs;
    int leaf;             /* the open leaf block (L_*) */
    int para_first;       /* L_PARA: its first line in lines */
    long para_line;
    char fence_c;         /* L_FENCE: its character and length */
    size_t fence_len;
    int html_end;         /* L_HTML: its kind (1-7, spec 4.6) */
    long lineno;
    size_t them_bad[3];   /* in the current line: where a thematic break of - * _ (in that
                             order) was found impossible: any start at or before it fails too
                             (SIZE_MAX: not looked) */
} md_parser;

static int add_line(md_parser *p, size_t cs, size_t ce)
{
    if (doc_grow(&p->lines, &p->cap_lines, p->n_lines + 1, sizeof *p->lines))
        return -1;
    p->lines[p->n_lines++] = (md_line){cs, ce};
    return 0;
}

/* A leaf of the lines from first to the end of lines. */
static int add_leaf(md_parser *p, int first, long line)
{
    if (first >= p->n_lines)
        return 0;
    if (doc_grow(&p->leaves, &p->cap_leaves, p->n_leaves + 1, sizeof *p->leaves))
        return -1;
    p->leaves[p->n_leaves++] = (md_leaf){first, p->n_lines - first, line};
    return 0;
}

static int is_blank_char(char c)
{
    return c == ' ' || c == '\t';
}

/* ---- reference definitions at a paragraph's start ---- */

/* Skips blanks and at most one line ending in s[i..n). */
static size_t ws1(const char *s, size_t n, size_t i, int *nl)
{
    *nl = 0;
    while (i < n && (is_blank_char(s[i]) || (s[i] == '\n' && !*nl))) {
        *nl |= s[i] == '\n';
        i++;
    }
    return i;
}

/* A definition "[label]: dest 'title'" at s[0..n) (a paragraph's lines joined by '\n'): the
 * bytes it takes, up to and with its last line's '\n' (or n); 0 when none. */
static size_t ref_def(const char *s, size_t n, md_refs *refs, size_t *no_close, int *oom)
{
    size_t l = md_label(s, n), i, nl_pos;
    int nl;
    if (l == 0 || l >= n || s[l] != ':')
        return 0;
    i = ws1(s, n, l + 1, &nl);
    if (i < n && s[i] == '<') {
        for (i++; i < n && s[i] != '>' && s[i] != '\n' && s[i] != '<'; i++)
            if (s[i] == '\\' && i + 1 < n)
                i++;
        if (i >= n || s[i] != '>')
            return 0;
        i++;
    } else {
        size_t st = i;
        int depth = 0;
        while (i < n && (unsigned char)s[i] > ' ') {
            if (s[i] == '\\' && i + 1 < n && md_punct((unsigned char)s[i + 1]))
                i++;
            else if (s[i] == '(')
                depth++;
            else if (s[i] == ')' && --depth < 0)
                return 0;
            i++;
        }
        if (i == st || depth != 0)
            return 0;
    }
    size_t dest_end = i, j = dest_end;
    while (j < n && is_blank_char(s[j]))
        j++;
    size_t after_dest = j < n && s[j] != '\n' ? 0 : j; /* the definition may end here */
    size_t t = ws1(s, n, dest_end, &nl), end = 0;
    if (t > dest_end && t < n && (s[t] == '"' || s[t] == '\'' || s[t] == '(')) {
        char close = s[t] == '(' ? ')' : s[t];
        size_t *memo = &no_close[close == '"' ? 0 : close == '\'' ? 1 : 2];
        size_t k = t + 1;
        while (k < n && k < *memo && s[k] != close) {
            if (s[k] == '\\' && k + 1 < n)
                k++;
            else if (close == ')' && s[k] == '(')
                break;
            k++;
        }
        if (k >= n && t + 1 < *memo) /* no closing quote after t: none after any later one */
            *memo = t + 1;
        if (k < n && k < *memo && s[k] == close) {
            k++;
            while (k < n && is_blank_char(s[k]))
                k++;
            if (k >= n || s[k] == '\n')
                end = k;
        }
    }
    if (!end)
        end = after_dest;
    if (!end && after_dest == 0 && dest_end == n)
        end = n;
    if (!end)
        return 0;
    if (md_refs_add(refs, s + 1, l - 2)) {
        *oom = 1;
        return 0;
    }
    nl_pos = end;
    return nl_pos < n ? nl_pos + 1 : n;
}

/* Ends the open paragraph: reference definitions at its start are taken out (kept as bytes,
 * their labels recorded), the rest becomes a leaf unless heading is set (the caller records
 * it). Returns the index of its first remaining line (p->n_lines when none), -1 when out of
 * memory. */
static int end_para(md_parser *p, int as_leaf)
{
    int first = p->para_first, nl = p->n_lines - first;
    p->leaf = L_NONE;
    if (nl <= 0)
        return p->n_lines;
    /* the last line's trailing blanks are kept bytes */
    md_line *last = &p->lines[p->n_lines - 1];
    while (last->ce > last->cs && is_blank_char(p->s[last->ce - 1]))
        last->ce--;
    if (p->s[p->lines[first].cs] == '[') {
        size_t total = 0;
        for (int k = first; k < p->n_lines; k++)
            total += p->lines[k].ce - p->lines[k].cs + 1;
        char *j = malloc(total + 1);
        if (!j)
            return -1;
        size_t at = 0, pos = 0;
        for (int k = first; k < p->n_lines; k++) {
            memcpy(j + at, p->s + p->lines[k].cs, p->lines[k].ce - p->lines[k].cs);
            at += p->lines[k].ce - p->lines[k].cs;
            j[at++] = '\n';
        }
        int oom = 0, taken = 0;
        size_t no_close[3] = {SIZE_MAX, SIZE_MAX, SIZE_MAX}; /* (offsets into j) */
        for (;;) {
            size_t nc[3];
            for (int q = 0; q < 3; q++)
                nc[q] = no_close[q] == SIZE_MAX ? SIZE_MAX : no_close[q] <= pos ? 0 : no_close[q] - pos;
            size_t l = ref_def(j + pos, at - pos, &p->refs, nc, &oom);
            for (int q = 0; q < 3; q++)
                no_close[q] = nc[q] == SIZE_MAX ? SIZE_MAX : nc[q] + pos;
            if (!l)
                break;
            for (size_t k = pos; k < pos + l; k++)
                taken += j[k] == '\n';
            pos += l;
        }
        free(j);
        if (oom)
            return -1;
        first += taken;
    }
    if (as_leaf && add_leaf(p, first, p->para_line + (first - p->para_first)))
        return -1;
    return first;
}

/* Ends the open leaf block. */
static int end_leaf(md_parser *p)
{
    if (p->leaf == L_PARA)
        return end_para(p, 1) < 0 ? -1 : 0;
    p->leaf = L_NONE;
    return 0;
}

/* ---- line tests (s[i..e): the rest of the line, e at its ending) ---- */

/* Columns of blanks from i (at column col) to the first other byte, *fp. */
static int indent(const char *s, size_t i, size_t e, int col, size_t *fp)
{
    int c0 = col;
    while (i < e && is_blank_char(s[i])) {
        col = s[i] == '\t' ? col + 4 - col % 4 : col + 1;
        i++;
    }
    *fp = i;
    return col - c0;
}

/* A thematic break at s[i..e). Each list marker of a line asks again ("- - - ... a"): the
 * first byte that rules it out is remembered, so a line costs one scan. */
static int thematic(size_t *bad, const char *s, size_t i, size_t e)
{
    char c = s[i];
    int k = 0;
    if (c != '-' && c != '*' && c != '_')
        return 0;
    size_t *b = &bad[c == '-' ? 0 : c == '*' ? 1 : 2];
    if (*b != SIZE_MAX && i <= *b)
        return 0;
    for (; i < e; i++) {
        if (s[i] == c)
            k++;
        else if (!is_blank_char(s[i])) {
            *b = i;
            return 0;
        }
    }
    return k >= 3;
}

/* A list marker at s[i]: its bytes (1 for a bullet, digits + 1 for a number), 0 when none;
 * *ordered_one: 0 bullet, 1 number 1, 2 another number. */
static size_t list_marker(const char *s, size_t i, size_t e, int *num)
{
    size_t k = i;
    if (s[i] == '-' || s[i] == '+' || s[i] == '*') {
        k = i + 1;
        *num = 0;
    } else {
        long v = 0;
        while (k < e && k - i < 9 && s[k] >= '0' && s[k] <= '9')
            v = v * 10 + (s[k++] - '0');
        if (k == i || k >= e || (s[k] != '.' && s[k] != ')'))
            return 0;
        k++;
        *num = v == 1 ? 1 : 2;
    }
    if (k < e && !is_blank_char(s[k]))
        return 0;
    return k - i;
}

static int ci_prefix(const char *s, size_t n, const char *w)
{
    size_t k = strlen(w);
    if (n < k)
        return 0;
    for (size_t i = 0; i < k; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c += 32;
        if (c != w[i])
            return 0;
    }
    return 1;
}

static int ci_contains(const char *s, size_t n, const char *w)
{
    for (size_t i = 0; i < n; i++)
        if (ci_prefix(s + i, n - i, w))
            return 1;
    return 0;
}

/* The kind of HTML block starting at s[0..n) (1-7), 0 when none; para: a paragraph is open
 * (kind 7 cannot interrupt it). */
static int html_start(const char *s, size_t n, int para)
{
    static const char *const raw[] = {"script", "pre", "style", "textarea"};
    static const char *const blocks[] = {
        "address", "article", "aside", "basefont", "base", "blockquote", "body", "caption",
        "center", "colgroup", "col", "dd", "details", "dialog", "dir", "div", "dl", "dt",
        "fieldset", "figcaption", "figure", "footer", "form", "frameset", "frame", "h1", "h2",
        "h3", "h4", "h5", "h6", "header", "head", "hr", "html", "iframe", "legend", "li", "link",
        "main", "menuitem", "menu", "nav", "noframes", "ol", "optgroup", "option", "param", "p",
        "section", "source", "summary", "table", "tbody", "td", "tfoot", "thead", "th", "title",
        "tr", "track", "ul"};
    if (n < 2 || s[0] != '<')
        return 0;
    for (size_t k = 0; k < 4; k++) {
        size_t l = strlen(raw[k]);
        if (ci_prefix(s + 1, n - 1, raw[k]) &&
            (n == l + 1 || is_blank_char(s[l + 1]) || s[l + 1] == '>'))
            return 1;
    }
    if (n >= 4 && memcmp(s, "<!--", 4) == 0)
        return 2;
    if (s[1] == '?')
        return 3;
    if (n >= 9 && memcmp(s, "<![CDATA[", 9) == 0)
        return 5;
    if (s[1] == '!' && n >= 3 && ((s[2] | 0x20) >= 'a' && (s[2] | 0x20) <= 'z'))
        return 4;
    size_t o = s[1] == '/' ? 2 : 1;
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
        size_t l = strlen(blocks[k]);
        if (ci_prefix(s + o, n - o, blocks[k]) &&
            (n == o + l || is_blank_char(s[o + l]) || s[o + l] == '>' ||
             (s[o + l] == '/' && n > o + l + 1 && s[o + l + 1] == '>')))
            return 6;
    }
    if (!para) {
        size_t t = md_html_tag(s, n);
        if (t) {
            while (t < n && is_blank_char(s[t]))
                t++;
            if (t == n)
                return 7;
        }
    }
    return 0;
}

static int html_ends(int kind, const char *s, size_t n)
{
    switch (kind) {
    case 1:
        return ci_contains(s, n, "</script>") || ci_contains(s, n, "</pre>") ||
               ci_contains(s, n, "</style>") || ci_contains(s, n, "</textarea>");
    case 2:
        return memmem(s, n, "-->", 3) != NULL;
    case 3:
        return memmem(s, n, "?>", 2) != NULL;
    case 4:
        return memchr(s, '>', n) != NULL;
    case 5:
        return memmem(s, n, "]]>", 3) != NULL;
    default:
        return 0;
    }
}

/* A '|' at s[i] not escaped by an odd run of backslashes. */
static int pipe_at(const char *s, size_t from, size_t i)
{
    size_t b = 0;
    if (s[i] != '|')
        return 0;
    while (i - b > from && s[i - b - 1] == '\\')
        b++;
    return b % 2 == 0;
}

/* A table row s[a..e): its cells' content (trimmed) to lines when add (each a leaf), the
 * count returned. */
static int table_row(md_parser *p, size_t a, size_t e, int add)
{
    const char *s = p->s;
    int n = 0;
    while (a < e && is_blank_char(s[a]))
        a++;
    while (e > a && is_blank_char(s[e - 1]))
        e--;
    if (a < e && s[a] == '|')
        a++;
    if (e > a && pipe_at(s, a, e - 1))
        e--;
    for (size_t i = a;; i++) {
        if (i < e && !pipe_at(s, a, i))
            continue;
        size_t cs = a, ce = i;
        while (cs < ce && is_blank_char(s[cs]))
            cs++;
        while (ce > cs && is_blank_char(s[ce - 1]))
            ce--;
        n++;
        if (add && ce > cs && (add_line(p, cs, ce) || add_leaf(p, p->n_lines - 1, p->lineno)))
            return -1;
        if (i >= e)
            break;
        a = i + 1;
    }
    return n;
}

/* A delimiter row (| :--- | ---: |, a pipe needed): its cell count, 0 when it is not one. */
static int table_delims(const char *s, size_t a, size_t e)
{
    int n = 0, pipes = 0;
    while (a < e && is_blank_char(s[a]))
        a++;
    while (e > a && is_blank_char(s[e - 1]))
        e--;
    if (a < e && s[a] == '|') {
        a++;
        pipes++;
    }
    if (e > a && s[e - 1] == '|') {
        e--;
        pipes++;
    }
    size_t i = a;
    for (;;) {
        while (i < e && is_blank_char(s[i]))
            i++;
        if (i < e && s[i] == ':')
            i++;
        size_t d = i;
        while (i < e && s[i] == '-')
            i++;
        if (i == d)
            return 0;
        if (i < e && s[i] == ':')
            i++;
        while (i < e && is_blank_char(s[i]))
            i++;
        n++;
        if (i >= e)
            break;
        if (s[i] != '|')
            return 0;
        pipes++;
        i++;
    }
    return pipes ? n : 0;
}

/* ---- lines ---- */

/* Advances *pos over blanks by want columns (a tab that would overshoot is taken whole). */
static void consume(const char *s, size_t *pos, size_t e, int *col, int want)
{
    while (want > 0 && *pos < e && is_blank_char(s[*pos])) {
        int w = s[*pos] == '\t' ? 4 - *col % 4 : 1;
        *col += w;
        want -= w;
        (*pos)++;
    }
}

/* The index of the first block quote among the containers from i (p->nc when none). */
static int quote_from(const md_parser *p, int i)
{
    int lo = 0, hi = p->nq;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (p->quotes[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->nq ? p->quotes[lo] : p->nc;
}

static int push(md_parser *p, char kind, int width, int empty_start)
{
    if (doc_grow(&p->c, &p->cap_c, p->nc + 1, sizeof *p->c))
        return -1;
    if (kind == '>') {
        if (doc_grow(&p->quotes, &p->cap_q, p->nq + 1, sizeof *p->quotes))
            return -1;
        p->quotes[p->nq++] = p->nc;
    }
    p->c[p->nc++] = (md_cont){kind, width, empty_start};
    return 0;
}

/* Closes the containers from k on, and the open leaf with them. */
static int close_from(md_parser *p, int k)
{
    if (k >= p->nc)
        return 0;
    if (end_leaf(p))
        return -1;
    p->nc = k;
    while (p->nq > 0 && p->quotes[p->nq - 1] >= k)
        p->nq--;
    return 0;
}

static int fence_open(const char *s, size_t i, size_t e, char *c, size_t *len)
{
    size_t k = i;
    if (s[i] != '`' && s[i] != '~')
        return 0;
    while (k < e && s[k] == s[i])
        k++;
    if (k - i < 3 || (s[i] == '`' && memchr(s + k, '`', e - k)))
        return 0;
    *c = s[i];
    *len = k - i;
    return 1;
}

static int fence_close(const md_parser *p, size_t i, size_t e)
{
    size_t k = i;
    while (k < e && p->s[k] == p->fence_c)
        k++;
    if (k - i < p->fence_len)
        return 0;
    while (k < e && is_blank_char(p->s[k]))
        k++;
    return k == e;
}

/* '=' or '-' repeated, then blanks only: 1 for '=', 2 for '-', else 0. */
static int setext(const char *s, size_t i, size_t e)
{
    char c = s[i];
    size_t k = i;
    if (c != '=' && c != '-')
        return 0;
    while (k < e && s[k] == c)
        k++;
    while (k < e && is_blank_char(s[k]))
        k++;
    return k == e ? (c == '=' ? 1 : 2) : 0;
}

/* An ATX heading at s[i..e): 1 with its content's [*cs, *ce). */
static int atx(const char *s, size_t i, size_t e, size_t *cs, size_t *ce)
{
    size_t k = i;
    while (k < e && s[k] == '#' && k - i < 7)
        k++;
    if (k - i > 6 || (k < e && !is_blank_char(s[k])))
        return 0;
    while (k < e && is_blank_char(s[k]))
        k++;
    size_t end = e;
    while (end > k && is_blank_char(s[end - 1]))
        end--;
    size_t h = end;
    while (h > k && s[h - 1] == '#')
        h--;
    if (h < end && (h == k || is_blank_char(s[h - 1]))) { /* a closing sequence */
        end = h;
        while (end > k && is_blank_char(s[end - 1]))
            end--;
    }
    *cs = k;
    *ce = end;
    return 1;
}

/* A line that starts a leaf block of its own (so cannot continue a paragraph lazily). */
static int leaf_start(md_parser *p, const char *s, size_t fp, size_t e, int ind)
{
    size_t a, b, len;
    char c;
    return ind < 4 && (atx(s, fp, e, &a, &b) || fence_open(s, fp, e, &c, &len) ||
                       html_start(s + fp, e - fp, 0) || thematic(p->them_bad, s, fp, e));
}

static int line(md_parser *p, size_t ls, size_t le)
{
    const char *s = p->s;
    size_t pos = ls, fp = SIZE_MAX, run_fp = SIZE_MAX;
    int col = 0, i = 0, ind, run_col = 0;
    p->them_bad[0] = p->them_bad[1] = p->them_bad[2] = SIZE_MAX;
    /* 1. the open containers */
    while (i < p->nc) {
        if (run_fp != SIZE_MAX && pos <= run_fp) { /* still in the blanks measured last */
            fp = run_fp;
            ind = run_col - col;
        } else {
            ind = indent(s, pos, le, col, &fp);
            run_fp = fp;
            run_col = col + ind;
        }
        if (fp >= le) { /* a blank rest: list items match, block quotes do not */
            int j = quote_from(p, i);
            if (j == p->nc && p->c[p->nc - 1].kind == 'L' && p->c[p->nc - 1].empty_start)
                j = p->nc - 1;
            i = j > i ? j : i;
            break;
        }
        md_cont *c = &p->c[i];
        if (c->kind == '>') {
            if (ind > 3 || s[fp] != '>')
                break;
            col += ind + 1;
            pos = fp + 1;
            consume(s, &pos, le, &col, 1);
        } else {
            if (ind < c->width)
                break;
            consume(s, &pos, le, &col, c->width);
        }
        i++;
    }
    int matched = i;
    if (matched == p->nc && p->leaf == L_FENCE) {
        ind = indent(s, pos, le, col, &fp);
        if (ind < 4 && fp < le && fence_close(p, fp, le))
            p->leaf = L_NONE;
        return 0;
    }
    if (matched == p->nc && p->leaf == L_HTML) {
        indent(s, pos, le, col, &fp);
        if (p->html_end >= 6 ? fp >= le : html_ends(p->html_end, s + pos, le - pos))
            p->leaf = L_NONE;
        return 0;
    }
    /* 2. new containers */
    int opened = 0;
    for (;;) {
        ind = indent(s, pos, le, col, &fp);
        if (fp >= le || ind >= 4)
            break;
        if (s[fp] == '>') {
            if (close_from(p, matched) || end_leaf(p) || push(p, '>', 0, 0))
                return -1;
            matched = p->nc;
            col += ind + 1;
            pos = fp + 1;
            consume(s, &pos, le, &col, 1);
            opened = 1;
            continue;
        }
        int num;
        size_t mk = list_marker(s, fp, le, &num);
        if (!mk || thematic(p->them_bad, s, fp, le))
            break;
        size_t cfp;
        int mcol = col + ind + (int)mk;
        int sp = indent(s, fp + mk, le, mcol, &cfp), blank = cfp >= le;
        if (p->leaf == L_PARA && !opened && matched == p->nc && (blank || num == 2))
            break; /* cannot interrupt a paragraph (one that is not lazy) */
        int width = ind + (int)mk + (blank || sp > 4 ? 1 : sp);
        if (close_from(p, matched) || end_leaf(p) || push(p, 'L', width, blank))
            return -1;
        matched = p->nc;
        opened = 1;
        col = mcol;
        pos = fp + mk;
        if (blank)
            pos = le;
        else
            consume(s, &pos, le, &col, sp > 4 ? 1 : sp);
    }
    ind = indent(s, pos, le, col, &fp);
    int blank = fp >= le;
    /* 3. a lazy paragraph line, or the unmatched containers closed */
    if (!opened && matched < p->nc) {
        if (p->leaf == L_PARA && !blank && !leaf_start(p, s, fp, le, ind) &&
            !(ind < 4 && fp < le && s[fp] == '>'))
            return add_line(p, fp, le);
        if (close_from(p, matched))
            return -1;
    }
    /* 4. the leaf */
    if (blank) {
        if (p->leaf == L_PARA || p->leaf == L_TABLE)
            return end_leaf(p);
        return 0;
    }
    if (p->nc > 0)
        p->c[p->nc - 1].empty_start = 0;
    if (ind >= 4 && p->leaf != L_PARA) {
        if (p->leaf != L_ICODE && end_leaf(p))
            return -1;
        p->leaf = L_ICODE;
        return 0;
    }
    if (ind < 4) {
        size_t cs, ce, flen;
        char fc;
        int k;
        if (s[fp] == '#' && atx(s, fp, le, &cs, &ce)) {
            if (end_leaf(p))
                return -1;
            return ce > cs ? add_line(p, cs, ce) || add_leaf(p, p->n_lines - 1, p->lineno) : 0;
        }
        if (fence_open(s, fp, le, &fc, &flen)) {
            if (end_leaf(p))
                return -1;
            p->leaf = L_FENCE;
            p->fence_c = fc;
            p->fence_len = flen;
            return 0;
        }
        if ((k = html_start(s + fp, le - fp, p->leaf == L_PARA && !opened)) != 0) {
            if (end_leaf(p))
                return -1;
            p->leaf = k <= 5 && html_ends(k, s + fp, le - fp) ? L_NONE : L_HTML;
            p->html_end = k;
            return 0;
        }
        if (p->leaf == L_PARA && !opened && (k = setext(s, fp, le)) != 0) {
            long l0 = p->para_line;
            int first = end_para(p, 0);
            if (first < 0)
                return -1;
            if (first < p->n_lines)
                return add_leaf(p, first, l0 + (first - p->para_first));
            /* only definitions above it: "===" is a paragraph's text, "---" a break */
        }
        if (thematic(p->them_bad, s, fp, le))
            return end_leaf(p);
        /* a delimiter row makes the paragraph's last line a table's header row, and the lines
         * before it a paragraph of their own (cmark-gfm's table.c reads it so: its header row
         * is the last of the paragraph's lines). Not only the first line: a paragraph is
         * written back on one line, so a line of a link title or an HTML tag over lines would
         * follow another first line (fuzz_markdown: "a\n<b x='\n-|\n'>"). A first line
         * starting with "[" may be a reference definition: no header. */
        if (p->leaf == L_PARA && !opened && p->n_lines > p->para_first) {
            int hk = p->n_lines - 1;
            md_line h = p->lines[hk];
            int n = table_delims(s, fp, le);
            if (n > 0 && n == table_row(p, h.cs, h.ce, 0) &&
                (hk > p->para_first || s[h.cs] != '[')) {
                long hl = p->para_line + (hk - p->para_first);
                p->n_lines = hk;
                if (hk > p->para_first && end_para(p, 1) < 0)
                    return -1;
                long l = p->lineno;
                p->lineno = hl;
                int rc = table_row(p, h.cs, h.ce, 1);
                p->lineno = l;
                p->leaf = L_TABLE;
                return rc < 0 ? -1 : 0;
            }
        }
        if (p->leaf == L_TABLE && !opened)
            return table_row(p, fp, le, 1) < 0 ? -1 : 0;
    }
    if (p->leaf != L_PARA) {
        if (end_leaf(p))
            return -1;
        p->leaf = L_PARA;
        p->para_first = p->n_lines;
        p->para_line = p->lineno;
    }
    return add_line(p, fp, le);
}

/* A YAML front matter: "---" on the first line, up to a line "---" or "...": its end (after
 * that line's ending), 0 when none. */
static size_t front_matter(const char *s, size_t n)
{
    size_t i = 0;
    if (n < 3 || memcmp(s, "---", 3) != 0)
        return 0;
    for (i = 3; i < n && is_blank_char(s[i]); i++)
        ;
    if (i >= n || (s[i] != '\n' && s[i] != '\r'))
        return 0;
    while (i < n) {
        size_t e = i;
        while (e < n && s[e] != '\n' && s[e] != '\r')
            e++;
        size_t next = e < n ? e + (s[e] == '\r' && e + 1 < n && s[e + 1] == '\n' ? 2 : 1) : n;
        if (i > 3 && e - i >= 3 && (memcmp(s + i, "---", 3) == 0 || memcmp(s + i, "...", 3) == 0)) {
            size_t k = i + 3;
            while (k < e && is_blank_char(s[k]))
                k++;
            if (k == e)
                return next;
        }
        i = next;
    }
    return 0;
}

int markdown_parse(doc *d, char *err, size_t errlen)
{
    md_parser p;
    memset(&p, 0, sizeof p);
    p.d = d;
    p.s = d->src;
    p.n = d->src_len;
    p.lineno = 1;
    int rc = -1;
    md_inline_buf *b = NULL;
    /* a byte order mark is no text (CommonMark 2.3): kept, as the first kept part starts at
     * 0, and the line after it read as the document's first, so "# Title" stays a heading */
    size_t bom = p.n >= 3 && memcmp(p.s, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    size_t pos = bom + front_matter(p.s + bom, p.n - bom);
    for (size_t k = 0; k < pos; k++)
        p.lineno += p.s[k] == '\n' || (p.s[k] == '\r' && (k + 1 >= pos || p.s[k + 1] != '\n'));
    while (pos < p.n) {
        size_t e = pos;
        while (e < p.n && p.s[e] != '\n' && p.s[e] != '\r')
            e++;
        if (line(&p, pos, e))
            goto oom;
        pos = e < p.n ? e + (p.s[e] == '\r' && e + 1 < p.n && p.s[e + 1] == '\n' ? 2 : 1) : p.n;
        p.lineno++;
    }
    if (end_leaf(&p) || !(b = md_inline_new()))
        goto oom;
    size_t kept = 0;
    for (int k = 0; k < p.n_leaves; k++) {
        const md_leaf *l = &p.leaves[k];
        const md_line *ln = &p.lines[l->first];
        int unit;
        if (ln[0].cs < kept) /* (cannot happen: leaves are in document order) */
            continue;
        if (doc_keep(d, p.s + kept, ln[0].cs - kept, err, errlen) ||
            doc_new_unit(d, DOC_ESC_MARKDOWN, l->line, &unit, err, errlen) ||
            md_inline(d, unit, ln, l->n, &p.refs, b, err, errlen) ||
            doc_put_unit(d, unit, err, errlen))
            goto done;
        kept = ln[l->n - 1].ce;
    }
    if (doc_keep(d, p.s + kept, p.n - kept, err, errlen))
        goto done;
    rc = 0;
    goto done;
oom:
    xerr(err, errlen, "out of memory");
done:
    md_inline_free(b);
    md_refs_free(&p.refs);
    free(p.c);
    free(p.quotes);
    free(p.lines);
    free(p.leaves);
    return rc;
}
