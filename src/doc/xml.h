/* xml.h — an XML part (OOXML, ODF, EPUB's package files) read by expat into a tree of its
 * elements and texts, each node with the byte ranges of its markup in the source, so a format
 * builder keeps every byte it does not translate exactly as it was (doc_keep over the source)
 * and writes text units in place of the texts it translates.
 *
 * Safety: entity declarations (the DOCTYPE's internal subset, where an expansion bomb or an
 * external entity lives) are refused; external entities and the external DTD are never read
 * (no handler is set, parameter entities off); only XML's five predefined entities and
 * character references are decoded. A document that declares an encoding other than UTF-8, or
 * starts with a UTF-16 byte order mark, is refused (the translation is written in UTF-8 into
 * the same bytes). Errors name the line and column. Depth is bounded (XML_MAX_DEPTH).
 *
 * Memory: the nodes, attributes and decoded texts, linear in the part; names interned once. */
#ifndef XLATE_DOC_XML_H
#define XLATE_DOC_XML_H
#include <stddef.h>

#define XML_MAX_DEPTH 4096

enum { XML_ELEM = 1, XML_TEXT = 2 };

typedef struct {
    int kind;             /* XML_ELEM or XML_TEXT */
    const char *ns;       /* element: its namespace URI ("" for none), interned */
    const char *name;     /* element: its local name, interned */
    int parent, first, last, next; /* the tree, indexes into nodes; -1: none */
    size_t s0, s1;        /* element: its start tag src[s0, s1) (all of "<a/>" when empty);
                             text: its bytes as written (references undecoded) */
    size_t e0, e1;        /* element: its end tag src[e0, e1); empty: e0 = e1 = s1 */
    int attr, n_attr;     /* element: attrs[attr, attr + n_attr) */
    size_t text, n_text;  /* text: the decoded characters at tree.text + text */
    int cdata;            /* text: inside a CDATA section */
    long line;            /* the line it starts on, from 1 */
} xml_node;

typedef struct {
    const char *ns, *name; /* interned; ns "" for an unprefixed attribute */
    const char *value;     /* decoded, NUL-terminated, in tree.text */
} xml_attr;

typedef struct {
    const char *src;       /* the part (not owned) */
    size_t len;
    xml_node *nodes;       /* [n_nodes]; the root element is nodes[root] */
    int n_nodes, cap_nodes;
    xml_attr *attrs;       /* [n_attrs] */
    int n_attrs, cap_attrs;
    char *text;            /* the decoded texts and attribute values, each NUL-terminated */
    size_t n_text, cap_text;
    int root;
    struct xml_pool *pool; /* interned names */
} xml_tree;

/* Parses src[0..len). Returns 0, or -1 with "line L, column C: why" in err. */
int xml_parse(xml_tree *t, const char *src, size_t len, char *err, size_t errlen);
void xml_free(xml_tree *t);

/* 1 when node i is an element named ns:name. */
int xml_is(const xml_tree *t, int i, const char *ns, const char *name);
/* The decoded value of node i's attribute ns:name (ns "" for an unprefixed one), or NULL. */
const char *xml_attr_get(const xml_tree *t, int i, const char *ns, const char *name);
/* The bytes of the value of the attribute written qname (as in the source: "descr",
 * "svg:title") in node i's start tag, quotes excluded: src[*v0, *v1). Returns 0, or -1 when the
 * tag has no such attribute. */
int xml_attr_span(const xml_tree *t, int i, const char *qname, size_t *v0, size_t *v1);
/* The first child element of i named ns:name, or -1. */
int xml_child(const xml_tree *t, int i, const char *ns, const char *name);
/* The node after i in document order (its first child, else the next sibling of i or of its
 * nearest ancestor that has one) within the subtree of top; -1 at the end. skip: do not enter
 * i's children. */
int xml_next(const xml_tree *t, int i, int top, int skip);

#endif
