/* md_internal.h — what the Markdown block parser (md_block.c) and inline parser (md_inline.c)
 * share. The block parser finds the leaves whose text is translated (paragraphs, headings,
 * table cells) as lists of line pieces in the source and the link reference labels; the inline
 * parser turns one leaf into a unit with its elements. */
#ifndef XLATE_DOC_MD_INTERNAL_H
#define XLATE_DOC_MD_INTERNAL_H
#include "doc/doc.h"
#include <stddef.h>

/* One line of a leaf: its content src[cs, ce) (container markers and leading blanks before cs,
 * the line ending at or after ce). Between two lines of a leaf the source holds the line
 * ending and the next line's markers: a soft or hard break. */
typedef struct {
    size_t cs, ce;
} md_line;

/* The defined link labels, normalized (md_label_norm), in an open-addressing hash set. */
typedef struct {
    char **keys;   /* [cap] owned strings, NULL: empty slot */
    size_t n, cap; /* cap a power of two, n <= cap / 2 */
} md_refs;

void md_refs_free(md_refs *r);
/* Adds a label (raw bytes, normalized here); 0 or -1 (out of memory). */
int md_refs_add(md_refs *r, const char *label, size_t len);
/* 1 when the label (raw) is defined. */
int md_refs_has(const md_refs *r, const char *label, size_t len);

/* Scratch the inline parser keeps between leaves (grown, never shrunk; freed by
 * md_inline_free). */
typedef struct md_inline_buf md_inline_buf;
md_inline_buf *md_inline_new(void);
void md_inline_free(md_inline_buf *b);

/* Parses the leaf lines[0..n) of d->src into unit (new, empty): its text and elements. */
int md_inline(doc *d, int unit, const md_line *lines, int n, const md_refs *refs,
              md_inline_buf *b, char *err, size_t errlen);

/* Bytes of an HTML tag (open or closing, CommonMark's "open tag" / "closing tag") at s[0..n),
 * 0 when none starts there. */
size_t md_html_tag(const char *s, size_t n);

/* Bytes of a link label "[...]" at s[0..n) (at most 999 inside, no unescaped bracket), 0 when
 * none. */
size_t md_label(const char *s, size_t n);

/* The UTF-8 of the named character reference name[0..len) (without & and ;) in out (at least
 * 8 bytes): its length, 0 when HTML has no such name (md_entity.c). */
int md_entity(const char *name, size_t len, char *out);

/* ASCII punctuation (CommonMark: what a backslash escapes). */
static inline int md_punct(unsigned char c)
{
    return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
           (c >= 123 && c <= 126);
}

#endif
