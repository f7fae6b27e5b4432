/* transfer.h — markup carried from a source text to its translation through the decoder's
 * alignment, as Bergamot does for HTML: each element (a, b, em, a Markdown emphasis or link)
 * covers a range of the source text; it is put around the target words that its source words
 * were aligned to, and the ranges are made to nest again as they did in the source, so that no
 * element is dropped, duplicated or crosses another.
 *
 * The texts are the plain texts the model saw and wrote (no markup); the formats (HTML,
 * Markdown) take the ranges back to their own syntax and escaping. */
#ifndef XLATE_DOC_TRANSFER_H
#define XLATE_DOC_TRANSFER_H
#include <stddef.h>

typedef struct {
    size_t start, end; /* in: the element's content in the source text (start == end: a void
                          element such as br or img, or an empty one, at that point);
                          out: its content in the target text */
    int parent;        /* the enclosing element's index, -1 at the top; elements are in document
                          order, a parent before its children, siblings in source order */
} doc_range;

/* A sentence-aligned translation of the whole text, token by token. */
typedef struct {
    const int *src_spans; /* [2 * n_src] each source token's bytes [start, end) in the source
                             text (tokens that cover nothing are ignored) */
    int n_src;
    const int *tgt_spans; /* [2 * n_tgt] each target token's bytes in the target text */
    int n_tgt;
    const int *align;     /* [n_tgt] the source token each target token is aligned to, or -1 */
} doc_alignment;

/* Moves every range of r[0..n) from src to tgt. An element's target range runs from the first
 * to the last byte of the target tokens aligned to source tokens inside its source range,
 * widened to whole words where its source range held whole words and trimmed of whitespace;
 * then clipped into its parent's range and past the siblings before it in the target, so the
 * ranges nest. An element whose words were aligned to nothing (or that covers no word), and a
 * void element, is placed where the source token after its start went (the parent's end when
 * none). Returns 0, or -1 with a message (out of memory, a parent index out of order). */
int doc_transfer(doc_range *r, int n, const doc_alignment *a, const char *src, size_t src_len,
                 const char *tgt, size_t tgt_len, char *err, size_t errlen);

/* doc_transfer with kept elements (kept[i] non-zero; kept may be NULL): an element that is
 * written as its own bytes (inline code, an autolink, a URL in running text), not as the words
 * of its target range. It stands for itself, not for the words aligned to it:
 * - where the translation holds its source text (trimmed) as a whole word or words (the model
 *   copied it), its range is that text, found by matching, not by the alignment: of several
 *   copies, the one nearest the place its aligned words went, each copy taken once (so two
 *   kept elements keep their order of meaning, however the alignment crossed them); its
 *   ancestors are widened to hold it and it is placed before its siblings;
 * - elsewhere (not copied, or its copy not inside its parent's range) it is a point at the end
 *   of the words its words were aligned to (a void element's place when none), so that no
 *   translated word is covered by it, and so lost, when it is written.
 * Matching looks within 4 KiB either side of the aligned place, so a paragraph of many kept
 * elements costs linear time. */
int doc_transfer_kept(doc_range *r, int n, const unsigned char *kept, const doc_alignment *a,
                      const char *src, size_t src_len, const char *tgt, size_t tgt_len,
                      char *err, size_t errlen);

#endif
