/* odf.c — OpenDocument text and presentation packages (.odt, .odp; docs/DOCUMENTS.md
 * "OpenDocument"): the package's plan (pkg.h: mimetype checked, content.xml required;
 * content.xml, styles.xml and meta.xml built, every other member copied), and the builder of
 * those parts: the XML tree (xml.h) walked in document order, iteratively, each paragraph
 * (text:p, text:h; svg:title, svg:desc; dc:title in meta.xml; a presentation's header and
 * footer declarations) made one unit whose inline markup (odf_para.c) follows its words.
 * Every byte outside the units' text is kept as it was. */
#include "doc/odf_internal.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

/* ---- styles ---- */

static int by_family_name(const void *a, const void *b)
{
    const odf_style *x = a, *y = b;
    int c = strcmp(x->family, y->family);
    return c ? c : strcmp(x->name, y->name);
}

/* The part's styles (office:styles and office:automatic-styles: ODF 1.3 part 3, chapter 16;
 * a part sees only its own, see the header) with the language their text properties set,
 * sorted by family and name for odf_zxx. */
static int collect_styles(odf_part *o, const xml_tree *t)
{
    int n = o->n_styles;
    odf_style *grown;
    for (int i = 0; i < t->n_nodes; i++)
        n += xml_is(t, i, ODF_STYLE, "style");
    if (n == o->n_styles)
        return 0;
    if (!(grown = realloc(o->styles, (size_t)n * sizeof *o->styles)))
        return xerr(o->err, o->errlen, "out of memory");
    o->styles = grown;
    for (int i = 0; i < t->n_nodes; i++) {
        const char *name, *fam, *lang;
        int tp;
        if (!xml_is(t, i, ODF_STYLE, "style") || !(name = xml_attr_get(t, i, ODF_STYLE, "name")) ||
            !(fam = xml_attr_get(t, i, ODF_STYLE, "family")))
            continue;
        odf_style *s = &o->styles[o->n_styles++];
        s->name = name;
        s->family = fam;
        s->parent = xml_attr_get(t, i, ODF_STYLE, "parent-style-name");
        s->lang = -1;
        if ((tp = xml_child(t, i, ODF_STYLE, "text-properties")) >= 0 &&
            (lang = xml_attr_get(t, tp, ODF_FO, "language")))
            s->lang = !strcmp(lang, "zxx");
    }
    if (o->n_styles > 1)
        qsort(o->styles, (size_t)o->n_styles, sizeof *o->styles, by_family_name);
    return 0;
}

int odf_zxx(const odf_part *o, const char *family, const char *name)
{
    /* the chain of parents, bounded (a cycle or a chain longer than this says nothing) */
    for (int k = 0; name && k < 64; k++) {
        odf_style key = {family, name, NULL, -1};
        const odf_style *s =
            o->n_styles ? bsearch(&key, o->styles, (size_t)o->n_styles, sizeof key, by_family_name)
                        : NULL;
        if (!s)
            return -1;
        if (s->lang >= 0)
            return s->lang;
        name = s->parent;
    }
    return -1;
}

/* ---- the walk ---- */

int odf_walk(const xml_tree *t, int top, int *i, int *out, int skip)
{
    if (!*out) {
        const xml_node *n = &t->nodes[*i];
        if (n->kind == XML_ELEM && !skip) {
            if (n->first >= 0) {
                *i = n->first;
                return 1;
            }
            *out = 1; /* the exit of an element without children */
            return 1;
        }
    }
    if (*i == top)
        return 0;
    if (t->nodes[*i].next >= 0) {
        *i = t->nodes[*i].next;
        *out = 0;
        return 1;
    }
    *i = t->nodes[*i].parent;
    *out = 1;
    return 1;
}

int odf_is_block(const xml_tree *t, int i)
{
    const xml_node *n = &t->nodes[i];
    if (n->kind != XML_ELEM)
        return 0;
    if (!strcmp(n->ns, ODF_TEXT))
        return !strcmp(n->name, "p") || !strcmp(n->name, "h");
    if (!strcmp(n->ns, ODF_SVG))
        return !strcmp(n->name, "title") || !strcmp(n->name, "desc");
    if (!strcmp(n->ns, ODF_PRESENTATION))
        return !strcmp(n->name, "header-decl") || !strcmp(n->name, "footer-decl");
    return xml_is(t, i, ODF_DC, "title") && n->parent >= 0 &&
           xml_is(t, n->parent, ODF_OFFICE, "meta");
}

/* Subtrees the walk leaves as they are: tracked changes (the text as it was before an edit,
 * ODF 1.3 part 3, 5.5) and an index's source (its templates, chapter 8: what LibreOffice writes
 * into the index when it is updated). */
static int kept_subtree(const xml_tree *t, int i)
{
    const xml_node *n = &t->nodes[i];
    size_t l;
    if (n->kind != XML_ELEM || strcmp(n->ns, ODF_TEXT))
        return 0;
    l = strlen(n->name);
    return !strcmp(n->name, "tracked-changes") ||
           (l > 7 && !strcmp(n->name + l - 7, "-source"));
}

/* The parts' builder (pkg_build_fn): every paragraph of the part a unit. */
static int odf_build(doc *d, const doc_opts *opts, const char *member, char *err, size_t errlen)
{
    odf_part o;
    int rc = -1, i, out = 0, skip = 0;
    memset(&o, 0, sizeof o);
    o.d = d;
    o.err = err;
    o.errlen = errlen;
    if (xml_parse(&o.t, d->src, d->src_len, err, errlen))
        return -1;
    /* the part's own styles, and for content.xml the common ones of styles.xml (the plan read
     * them: a span's style may be a common style that says zxx) */
    if (collect_styles(&o, &o.t) ||
        (opts && opts->pkg_user && !strcmp(member, "content.xml") &&
         collect_styles(&o, &((const odf_common *)opts->pkg_user)->t)))
        goto done;
    i = o.t.root;
    do {
        skip = 0;
        if (out || o.t.nodes[i].kind != XML_ELEM)
            continue;
        if (kept_subtree(&o.t, i)) {
            skip = 1;
        } else if (odf_is_block(&o.t, i)) {
            int r = odf_paragraph(&o, i);
            if (r < 0)
                goto done;
            skip = r == 1; /* 0: not made a unit (no words of its own): its children walked */
        }
    } while (odf_walk(&o.t, o.t.root, &i, &out, skip));
    if (doc_keep(d, d->src + o.at, d->src_len - o.at, err, errlen))
        goto done;
    rc = 0;
done:
    free(o.styles);
    free(o.stack);
    free(o.buf);
    xml_free(&o.t);
    return rc;
}

/* ---- the plan ---- */

/* The mimetype member, built as one kept part (the same bytes): pkg.c copies an unplanned
 * member through libzip, which deflates a stored one when that makes it smaller (47 bytes of
 * "...presentation" become 44), and ODF 1.3 part 2, 3.3 wants it stored; a built member keeps
 * its method. */
static int keep_build(doc *d, const doc_opts *opts, const char *member, char *err,
                      size_t errlen)
{
    (void)opts;
    (void)member;
    return doc_keep(d, d->src, d->src_len, err, errlen);
}

static void common_free(void *user)
{
    odf_common *c = user;
    if (!c)
        return;
    xml_free(&c->t);
    free(c->src);
    free(c);
}

/* styles.xml read and parsed for content.xml's builder (its common styles); NULL in *out when
 * there is none. A styles.xml that does not parse is left to its own builder to report. */
static int read_common(pkg_in *in, odf_common **out, char *err, size_t errlen)
{
    int m = pkg_find(in, "styles.xml");
    char e[256];
    odf_common *c;
    *out = NULL;
    if (m < 0)
        return 0;
    if (!(c = calloc(1, sizeof *c)))
        return xerr(err, errlen, "out of memory");
    if (pkg_read(in, m, &c->src, &c->len, err, errlen)) {
        free(c);
        return -1;
    }
    if (xml_parse(&c->t, c->src, c->len, e, sizeof e)) {
        free(c->src);
        free(c);
        return 0;
    }
    *out = c;
    return 0;
}

int odf_plan(pkg_in *in, pkg_plan *plan, char *err, size_t errlen)
{
    static const char *const types[] = {
        "application/vnd.oasis.opendocument.text",
        "application/vnd.oasis.opendocument.text-template",
        "application/vnd.oasis.opendocument.presentation",
        "application/vnd.oasis.opendocument.presentation-template",
    };
    static const char *const parts[] = {"content.xml", "styles.xml", "meta.xml"};
    int m = pkg_find(in, "mimetype");
    /* the mimetype member (ODF 1.3 part 2, 3.3): optional, but when there it must name a text
     * or a presentation */
    if (m >= 0) {
        char *s = NULL, q[160];
        size_t n = 0;
        int known = 0;
        if (pkg_read(in, m, &s, &n, err, errlen))
            return -1;
        for (size_t k = 0; k < sizeof types / sizeof types[0] && !known; k++)
            known = n == strlen(types[k]) && !memcmp(s, types[k], n);
        if (!known) {
            xerr(err, errlen, "%s: mimetype: \"%s\" is not an OpenDocument text or presentation "
                 "(application/vnd.oasis.opendocument.text or .presentation)", pkg_name(in),
                 str_quote_max(q, sizeof q, s, n, 100));
            free(s);
            return -1;
        }
        free(s);
        plan->members[m] = (pkg_action){keep_build, NULL};
    }
    if (pkg_find(in, "content.xml") < 0)
        return xerr(err, errlen, "%s: no content.xml (an OpenDocument package keeps its text "
                    "there: not one, or a damaged one)", pkg_name(in));
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
        if ((m = pkg_find(in, parts[k])) >= 0)
            plan->members[m] = (pkg_action){odf_build, NULL};
    {
        odf_common *c;
        if (read_common(in, &c, err, errlen))
            return -1;
        plan->user = c;
        plan->free_user = common_free;
    }
    return 0;
}
