/* ooxml.h — Office Open XML text parts into a doc (ooxml.c): the paragraphs of a
 * WordprocessingML part (w:p: a .docx body, header, footer, footnotes, endnotes, comments, text
 * boxes) or of a DrawingML text body (a:p: a .pptx slide or notes page), each paragraph one text
 * unit whatever the number of runs its text is spread over, its runs' formatting as inline
 * elements that follow their words (docs/DOCUMENTS.md, "Word and PowerPoint"). */
#ifndef XLATE_DOC_OOXML_H
#define XLATE_DOC_OOXML_H
#include "doc/doc.h"
#include "doc/xml.h"

#define OOXML_NS_W "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
#define OOXML_NS_A "http://schemas.openxmlformats.org/drawingml/2006/main"

/* Builds d (over t's source, d->src == t->src) from the paragraphs in namespace ns
 * (OOXML_NS_W or OOXML_NS_A) and the alt text (descr, title) of drawings and pictures.
 * Returns 0, or -1 with a message. */
int ooxml_build(doc *d, const xml_tree *t, const char *ns, char *err, size_t errlen);

#endif
