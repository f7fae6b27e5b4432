/* markdown.h — Markdown documents as text units (doc.h). */
#ifndef XLATE_DOC_MARKDOWN_H
#define XLATE_DOC_MARKDOWN_H
#include "doc/doc.h"

/* Parses d->src (CommonMark with GitHub's tables and front matter) into d's parts and units
 * (doc.h). Returns 0, or -1 with a message in err (out of memory only). */
int markdown_parse(doc *d, char *err, size_t errlen);
#endif
