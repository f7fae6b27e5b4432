/* odf_internal.h — what odf.c (the plan, the part's walk, the styles) and odf_para.c (one
 * paragraph into a unit) share. Private to these two files.
 *
 * A part is built in one pass over its XML tree in document order (odf_walk: iterative, each
 * element's exit an event of its own); `at` is how far the source has been handed to the doc
 * (kept bytes or units). Styles: the part's own (content.xml's automatic styles; styles.xml's
 * common and automatic styles), and for content.xml styles.xml's too, which the plan reads and
 * hands over (odf_common, doc_opts.pkg_user): a span's style may be a common one. */
#ifndef XLATE_DOC_ODF_INTERNAL_H
#define XLATE_DOC_ODF_INTERNAL_H
#include "doc/doc.h"
#include "doc/pkg.h"
#include "doc/xml.h"
#include <stddef.h>

#define ODF_OFFICE "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
#define ODF_STYLE "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
#define ODF_TEXT "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
#define ODF_DRAW "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
#define ODF_DR3D "urn:oasis:names:tc:opendocument:xmlns:dr3d:1.0"
#define ODF_FO "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"
#define ODF_SVG "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
#define ODF_PRESENTATION "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
#define ODF_DC "http://purl.org/dc/elements/1.1/"

typedef struct {
    const char *family, *name, *parent; /* into the tree's text (parent NULL: none) */
    int lang;                           /* its text properties' fo:language: 1 zxx, 0 another,
                                           -1 none (inherited from the parent) */
} odf_style;

/* styles.xml as the plan read it for content.xml's builder (pkg_plan.user). */
typedef struct {
    char *src; /* the member's bytes (owned) */
    size_t len;
    xml_tree t;
} odf_common;

typedef struct {
    int node; /* an inline element open in the paragraph (text:span, text:a, text:meta) */
    int elem; /* its element in the unit */
    int zxx;  /* the language its text has: 1 zxx, 0 not (inherited when it says none) */
} odf_open;

typedef struct {
    doc *d;
    xml_tree t;
    odf_style *styles; /* [n_styles] sorted by family, name */
    int n_styles;
    size_t at;         /* d->src[0, at) handed to the doc */
    odf_open *stack;   /* [cap_stack] the paragraph's open inline elements */
    int cap_stack;
    char *buf;         /* [cap_buf] scratch: a text collapsed */
    size_t cap_buf;
    char *err;
    size_t errlen;
} odf_part;

/* The next event of the walk of top's subtree: *i the node, *out 1 at an element's exit (every
 * element entered and not skipped has one, after its children). skip: do not enter *i's
 * children (nor give its exit). Returns 0 once top is done. Start with *i = top, *out = 0. */
int odf_walk(const xml_tree *t, int top, int *i, int *out, int skip);
/* 1 when node i is a paragraph the part's walk makes a unit of (odf.c). */
int odf_is_block(const xml_tree *t, int i);
/* The language of style `name` of `family` ("text", "paragraph") through its parents: 1 zxx,
 * 0 another, -1 none said. */
int odf_zxx(const odf_part *o, const char *family, const char *name);
/* Paragraph b into a unit (odf_para.c), the source before it kept. Returns 1 (done: its
 * subtree is handed to the doc), 0 (left to the walk: no words of its own, or zxx), -1 with a
 * message in o->err. */
int odf_paragraph(odf_part *o, int b);

#endif
