/* epub_internal.h — what epub.c (the package's plan) and epub_parts.c (the builders of its
 * members) share; private to these two files. docs/DOCUMENTS.md "EPUB" has the rules. */
#ifndef XLATE_DOC_EPUB_INTERNAL_H
#define XLATE_DOC_EPUB_INTERNAL_H
#include "doc/pkg.h"

#define EPUB_NS_OCF "urn:oasis:names:tc:opendocument:xmlns:container"
#define EPUB_NS_OPF "http://www.idpf.org/2007/opf"
#define EPUB_NS_DC "http://purl.org/dc/elements/1.1/"
#define EPUB_NS_NCX "http://www.daisy.org/z3986/2005/ncx/"
#define EPUB_NS_XHTML "http://www.w3.org/1999/xhtml"
#define EPUB_NS_XML "http://www.w3.org/XML/1998/namespace"

/* The builders (pkg_build_fn): an XHTML content document (the navigation document too)
 * through the HTML path with XML's escapes; an NCX's labels; the package document's title,
 * description and language. */
int epub_build_xhtml(doc *d, const doc_opts *o, const char *member, char *err, size_t errlen);
int epub_build_ncx(doc *d, const doc_opts *o, const char *member, char *err, size_t errlen);
int epub_build_opf(doc *d, const doc_opts *o, const char *member, char *err, size_t errlen);

#endif
