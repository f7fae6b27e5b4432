/* md_inline.h — what the two files of the Markdown inline parser share (private to md_inline.c
 * and md_scan.c): the tokens, elements, delimiter and bracket stacks of a leaf being parsed, and
 * the scanners of the constructs that run over many bytes (HTML, autolinks, character
 * references, link tails), each remembering where a search failed (md_find). */
#ifndef XLATE_DOC_MD_INLINE_H
#define XLATE_DOC_MD_INLINE_H
#include "doc/md_internal.h"
#include <stddef.h>

enum { T_TEXT, T_LIT, T_SOFT, T_HARD, T_DELIM, T_OPEN, T_CLOSE, T_CODE, T_AUTO, T_HTML };

typedef struct {
    int kind;
    size_t a, b;        /* the token's bytes in buf */
    char lit[8];        /* T_LIT: the decoded text (an escape, an entity) */
    int lit_len;
    int elem;           /* T_OPEN / T_CLOSE: the link's element, -1 when it formed none */
    int used_close;     /* T_DELIM: characters used, from the run's start, by closers */
    int used_open;      /* T_DELIM: characters used, from the run's end, by openers */
    int first_close, last_close; /* T_DELIM: elements it closes, in match order (inner first) */
    int first_open;     /* T_DELIM: elements it opens, outer first */
    int code_k;         /* T_CODE: the backtick count */
} md_tok;

typedef struct {
    size_t oa, ob, ca, cb; /* the open and close markup in buf */
    int next_open;         /* the next element in its opener token's list */
    int next_close;        /* the next element in its closer token's list */
    int doc_elem;          /* the doc's element, once begun */
    int ref;               /* a link by reference whose text is its label: 1 shortcut [text],
                              2 collapsed [text][]; written as [text][label] (the label buf[la,
                              lb) as in the source) so that the translated text still links */
    size_t la, lb;
} md_elem;

typedef struct {
    int tok;
    char c;
    int count, orig;  /* characters left; the run's length */
    int can_open, can_close;
    int prev, next;   /* the live delimiters, a doubly linked list */
} md_delim;

typedef struct {
    int tok;          /* its T_OPEN token */
    int image;
    int delim_top;    /* the last live delimiter when it was pushed (-1: none) */
} md_bracket;

struct md_inline_buf {
    char *buf;
    size_t len, cap;
    size_t *line_off; /* [n] where each line starts in buf */
    int cap_lines;
    md_tok *toks;
    int n_toks, cap_toks;
    md_elem *elems;
    int n_elems, cap_elems;
    md_delim *delims;
    int n_delims, cap_delims, delim_last;
    md_bracket *brackets;
    int n_brackets, cap_brackets;
    int watermark;      /* "[" openers of an earlier token than this are inactive */
    size_t *tick_last;  /* [cap_ticks] the start of the last backtick run of each count */
    size_t cap_ticks;
    int ticks_scanned;
    size_t absent[8];   /* a terminator's search failed from here on (SIZE_MAX: unknown) */
    int *stack;         /* pass 2: the open elements */
    int cap_stack;
    const md_line *lines; /* the leaf being parsed */
    int n_lines;
};

enum { F_DQ, F_SQ, F_COMMENT, F_PI, F_CDATA, F_DECL, F_TITLE_DQ, F_TITLE_SQ }; /* md_find's slots */

static inline int md_is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Finds needle from buf[from..) unless an earlier search for it (slot) failed at or before
 * from; SIZE_MAX when absent. */
size_t md_find(md_inline_buf *b, int slot, size_t from, const char *needle);
/* An open or closing tag at s[0..n) (s = b->buf + off; b may be NULL): its length, 0 if none. */
size_t md_html_tag_at(md_inline_buf *b, size_t off, const char *s, size_t n);
/* Inline HTML at buf[i] (a tag, comment, processing instruction, declaration, CDATA): its
 * length, 0 when none. */
size_t md_inline_html(md_inline_buf *b, size_t i);
/* An autolink <scheme:...> or <address@host> at s: its length, 0 when none. */
size_t md_autolink(const char *s, size_t n);
/* A character reference at s ("&...;"): its length and its text in out/out_len; 0 when none
 * (a name HTML does not have is none). out: at least 8 bytes. */
size_t md_char_ref(const char *s, size_t n, char *out, int *out_len);
/* An inline link's tail "(dest "title")" at buf[i] == '(': the index after its ')', 0 when
 * none. */
size_t md_link_tail(md_inline_buf *b, size_t i);
/* 1 when s[0..n) is a link label's content: at most 999 bytes, no unescaped bracket, not
 * blank. */
int md_label_ok(const char *s, size_t n);

#endif
