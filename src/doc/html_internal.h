/* html_internal.h — what the HTML walk (html.c: tokens through the stack of open elements)
 * and the run (html_run.c: the text and inline tags between two block boundaries, made units)
 * share: the parser's state, the items of a run, and the calls from one to the other. Private
 * to these two files. */
#ifndef XLATE_DOC_HTML_INTERNAL_H
#define XLATE_DOC_HTML_INTERNAL_H
#include "doc/doc.h"
#include "doc/html_tok.h"
#include "base/util.h"
#include <stddef.h>
#include <string.h>

typedef struct {
    int id;
    size_t name, name_len; /* the start tag's name in the source (unknown names match by it) */
    int prev;              /* the stack index of the previous open element with this id, -1 */
    int barrier;           /* the index of the nearest scope boundary at or below, -1 */
    int keep;
    int foreign;           /* its namespace: 0 HTML, NS_SVG, NS_MATH */
    int point;             /* foreign: PT_HTML, PT_TEXT, PT_ANNOT (integration_point), or 0 */
    int fkeep;             /* foreign: the keep of HTML inside it, at an HTML integration point
                              (the keep outside the svg or math, or its translate="no") */
} open_el;

enum { NS_SVG = 1, NS_MATH = 2 };
/* The HTML standard's integration points (13.2.6.5, "tree construction dispatcher"): an HTML
 * one (SVG foreignObject, desc, title; MathML annotation-xml with encoding text/html or
 * application/xhtml+xml) holds HTML; a MathML text one (mi, mo, mn, ms, mtext) reads its text
 * and start tags but mglyph and malignmark as HTML; another annotation-xml reads an svg start
 * tag so. */
enum { PT_HTML = 1, PT_TEXT = 2, PT_ANNOT = 3 };

enum { IT_TEXT, IT_OPEN, IT_CLOSE, IT_VOID, IT_GROUP, IT_INNER, IT_INNER_TEXT };
enum { G_DONE = 1, G_BAD = 2, G_OPAQUE = 4 };

typedef struct {
    int kind;
    size_t start, end;   /* bytes */
    size_t name, name_len; /* IT_OPEN, IT_CLOSE: the tag name as written */
    int ta, n_ta;        /* the translated attributes: ta[ta .. ta + n_ta) */
    int flags;           /* IT_GROUP: G_*; IT_VOID: 1 for br (a space in the model's text) */
    int last;            /* IT_GROUP: the index of its last inner item */
    int fixed, pair;
} item;

typedef struct {
    size_t val, len; /* the value's bytes */
    int quote;       /* '"', '\'', 0: unquoted */
} tattr;

typedef struct {
    doc *d;
    char *err;
    size_t errlen;
    ht_tok tok;
    open_el *st;       /* [cap_st] the stack of open elements */
    int n_st, cap_st;
    int *last;         /* [HTML_N_TAGS + HTML_N_BUCKETS] the topmost open element of each id, -1 */
    item *it;          /* [cap_it] the run */
    int n_it, cap_it;
    tattr *ta;         /* [cap_ta] the run's translated attributes */
    int n_ta, cap_ta;
    int *scratch;      /* [cap_scratch] pairing stack, element stack, fixed prefix counts */
    int cap_scratch;
    char *buf;         /* decoded text */
    size_t cap_buf;
    int group, group_depth; /* the open group's item and its element's stack index, or -1 */
    open_el pend[16];  /* kept formatting elements (code, <b translate=no>) closed by another
                          element's tag: a browser keeps them in its list of active formatting
                          elements and opens them again before the next text */
    int n_pend;
    int fmt_open[16];  /* per formatting element (html_tag_formatting): start tags less end
                          tags, outside foreign content. A browser keeps these in its list of
                          active formatting elements (an upper bound: markers are not
                          modelled) and opens them again at a block's first text or tag */
    long active;       /* their sum */
    long run_active;   /* `active` when the run began: > 0, what goes first in a segment can
                          decide where a browser opens them again */
    int fostered;      /* a formatting element was met directly in a table (not in a cell):
                          a browser moves it before the table, and its list of active
                          elements is no longer followed here: from then on every a start
                          tag, comment and script in a sentence stays where it is */
    const char *quote; /* '"' owned by the doc: quotes around a translated unquoted value */
    size_t line_pos;   /* line_of's cursor */
    long line_no;
} parser;

/* Where markup goes: the document (unit < 0) or element elem's open parts of unit. */
typedef struct {
    int unit, elem, which; /* which: DOC_OPEN, or DOC_KEEP for a keep element's markup */
} sink;

static inline int oom(parser *p)
{
    return xerr(p->err, p->errlen, "out of memory");
}

static inline unsigned char lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static inline int is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* 1 when the source bytes s[a..a+al) and s[b..b+bl) are the same name in any case. */
static inline int same_name(const char *s, size_t a, size_t al, size_t b, size_t bl)
{
    if (al != bl)
        return 0;
    for (size_t k = 0; k < al; k++)
        if (lower((unsigned char)s[a + k]) != lower((unsigned char)s[b + k]))
            return 0;
    return 1;
}

static inline int attr_named(const char *s, const ht_attr *a, const char *name)
{
    size_t l = strlen(name);
    if (a->name_len != l)
        return 0;
    for (size_t k = 0; k < l; k++)
        if (lower((unsigned char)s[a->name + k]) != (unsigned char)name[k])
            return 0;
    return 1;
}

/* The source line of byte pos, from 1 (html.c). */
long html_line_of(parser *p, size_t pos);

/* The run (html_run.c). An item appended to the run (the run's first records the active
 * formatting elements it starts under). */
int html_add_item(parser *p, item x);
/* The run is over (a block boundary or the end): its inline tags paired, what does not pair
 * or nest fixed, its segments written as units. */
int html_flush(parser *p);
/* A tag's bytes [start, end) to w, the translated attribute values ta[first .. first + n)
 * each replaced by a unit between double quotes. */
int html_emit_tag(parser *p, sink w, size_t start, size_t end, int first, int n);
/* The html start tag k: its lang value a part of its own (d->lang_part); else as
 * html_emit_tag. */
int html_emit_html_tag(parser *p, sink w, const ht_token *k, int first, int n);
/* The translated attributes of tag k (alt, title, placeholder, aria-label) into p->ta. */
int html_collect_attrs(parser *p, const ht_token *k, int *first, int *n);

#endif
