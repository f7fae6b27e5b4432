/* html.h — HTML documents and fragments as text units (doc.h). */
#ifndef XLATE_DOC_HTML_H
#define XLATE_DOC_HTML_H
#include "doc/doc.h"

/* Parses d->src (an HTML document or fragment) into d's parts and units (doc.h). Returns 0, or
 * -1 with a message in err (out of memory only): malformed markup is passed through as it is,
 * with doc_warn. */
int html_parse(doc *d, char *err, size_t errlen);
#endif
