/* docx.c — the Office Open XML packages' plan (pkg.h): which members hold text, by the content
 * type [Content_Types].xml gives each part (ECMA-376 part 2, 10.1.2: an Override for the part's
 * name, else the Default for its extension, compared case-insensitively), and the builder of
 * those parts (ooxml.c). Word's text parts: the main document, headers, footers, footnotes,
 * endnotes and comments (text boxes are inside them). */
#include "doc/ooxml.h"
#include "doc/pkg.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NS_CT "http://schemas.openxmlformats.org/package/2006/content-types"
#define CT_W "application/vnd.openxmlformats-officedocument.wordprocessingml."
#define CT_P "application/vnd.openxmlformats-officedocument.presentationml."

/* Builds a WordprocessingML or DrawingML part (ns) into d. */
static int build_part(doc *d, const char *ns, char *err, size_t errlen)
{
    xml_tree t;
    int rc;
    if (xml_parse(&t, d->src, d->src_len, err, errlen))
        return -1;
    rc = ooxml_build(d, &t, ns, err, errlen);
    xml_free(&t);
    return rc;
}

static int build_word(doc *d, const doc_opts *o, const char *member, char *err, size_t errlen)
{
    (void)o, (void)member;
    return build_part(d, OOXML_NS_W, err, errlen);
}

static int build_drawing(doc *d, const doc_opts *o, const char *member, char *err,
                         size_t errlen)
{
    (void)o, (void)member;
    return build_part(d, OOXML_NS_A, err, errlen);
}

/* 1 when content type ct is one of types (each a full type, or a prefix ending in "."
 * followed by the name). */
static int type_in(const char *ct, const char *const *types)
{
    for (int k = 0; ct && types[k]; k++)
        if (!strcasecmp(ct, types[k]))
            return 1;
    return 0;
}

/* Plans every member whose content type is one of types with build. */
static int plan_types(pkg_in *in, pkg_plan *plan, const char *const *types, pkg_build_fn build,
                      const char *what, char *err, size_t errlen)
{
    int ct = pkg_find(in, "[Content_Types].xml"), rc = -1, found = 0;
    char *src = NULL, e[XLATE_ERRLEN];
    size_t len;
    xml_tree t;
    memset(&t, 0, sizeof t);
    if (ct < 0)
        return xerr(err, errlen, "%s: no [Content_Types].xml: not an Office Open XML package",
                    pkg_name(in));
    if (pkg_read(in, ct, &src, &len, err, errlen))
        return -1;
    if (xml_parse(&t, src, len, e, sizeof e)) {
        xerr(err, errlen, "%s: [Content_Types].xml: %s", pkg_name(in), e);
        goto done;
    }
    for (int m = 0; m < pkg_count(in); m++) {
        const char *name = pkg_member_name(in, m), *dot = strrchr(name, '.'), *type = NULL;
        for (int i = t.nodes[t.root].first; i >= 0; i = t.nodes[i].next) {
            const char *pn, *ext;
            if (xml_is(&t, i, NS_CT, "Override") &&
                (pn = xml_attr_get(&t, i, "", "PartName")) && pn[0] == '/' &&
                !strcasecmp(pn + 1, name))
                type = xml_attr_get(&t, i, "", "ContentType");
            else if (!type && dot && xml_is(&t, i, NS_CT, "Default") &&
                     (ext = xml_attr_get(&t, i, "", "Extension")) && !strcasecmp(ext, dot + 1))
                type = xml_attr_get(&t, i, "", "ContentType");
        }
        /* (an Override wins over a Default wherever it stands) */
        for (int i = t.nodes[t.root].first; i >= 0; i = t.nodes[i].next) {
            const char *pn;
            if (xml_is(&t, i, NS_CT, "Override") &&
                (pn = xml_attr_get(&t, i, "", "PartName")) && pn[0] == '/' &&
                !strcasecmp(pn + 1, name))
                type = xml_attr_get(&t, i, "", "ContentType");
        }
        if (type_in(type, types)) {
            plan->members[m].build = build;
            found++;
        }
    }
    if (!found) {
        xerr(err, errlen, "%s: no %s part in [Content_Types].xml", pkg_name(in), what);
        goto done;
    }
    rc = 0;
done:
    xml_free(&t);
    free(src);
    return rc;
}

int docx_plan(pkg_in *in, pkg_plan *plan, char *err, size_t errlen)
{
    static const char *const types[] = {
        CT_W "document.main+xml", CT_W "template.main+xml",
        "application/vnd.ms-word.document.macroEnabled.main+xml",
        "application/vnd.ms-word.template.macroEnabledTemplate.main+xml",
        CT_W "header+xml", CT_W "footer+xml", CT_W "footnotes+xml", CT_W "endnotes+xml",
        CT_W "comments+xml", NULL};
    return plan_types(in, plan, types, build_word, "Word document", err, errlen);
}

int pptx_plan(pkg_in *in, pkg_plan *plan, char *err, size_t errlen)
{
    static const char *const types[] = {CT_P "slide+xml", CT_P "notesSlide+xml", NULL};
    return plan_types(in, plan, types, build_drawing, "PowerPoint slide", err, errlen);
}
