/* markdown.h — Markdown (CommonMark with GitHub's tables and YAML front matter) parsed into a
 * doc (doc.h): the text of paragraphs, headings, table cells, list items and block quotes
 * becomes units (DOC_ESC_MARKDOWN) with their inline elements (emphasis, strong,
 * strikethrough, links, images, code spans, autolinks, inline HTML, hard breaks); every other
 * byte of the document is kept as it is. The rules are in docs/DOCUMENTS.md, "Markdown". */
#ifndef XLATE_DOC_MARKDOWN_H
#define XLATE_DOC_MARKDOWN_H
#include "doc/doc.h"
#include <stddef.h>

/* Parses d->src (CommonMark with GitHub's tables and front matter) into d's parts and units
 * (doc.h). Returns 0, or -1 with a message in err (out of memory only). */
int markdown_parse(doc *d, char *err, size_t errlen);

#endif
