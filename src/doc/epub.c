/* epub.c — the EPUB package's plan (pkg.h; EPUB 2.0.1 and 3.x): META-INF/container.xml names
 * the package documents (its rootfiles), each package document's manifest names the content
 * documents. Planned: every package document (epub_build_opf), every manifest item of type
 * application/xhtml+xml, in the spine or not, the navigation document included
 * (epub_build_xhtml), and every NCX (application/x-dtbncx+xml, epub_build_ncx); the builders are
 * in epub_parts.c. Everything else (images, CSS, fonts, container.xml itself) is copied as it is
 * by pkg.c.
 *
 * Paths (EPUB 3.3, "URLs in the OCF abstract container" and "Container file
 * (container.xml)"): a rootfile's full-path is a path-relative-scheme-less URL string relative
 * to the container's root; a manifest href is a URL string relative to the package document.
 * Both are resolved as a URL parser resolves them against a base inside the root (dot segments,
 * percent-encoded ones too, removed; a backslash is a slash, as in an http URL) and then
 * percent-decoded into the member's name. A URL that resolves outside the root (a ".." above
 * it, a path starting with "/", "//host") is refused, naming the member and the item; one with
 * a scheme ("http:") is a remote resource, not in the package, and left alone. */
#include "doc/epub_internal.h"
#include "base/util.h"
#include "doc/xml.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MT_OPF "application/oebps-package+xml"
#define MT_XHTML "application/xhtml+xml"
#define MT_NCX "application/x-dtbncx+xml"

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* 1 when segment s[0..n) is "." or its percent-encoded form "%2e" (any case). */
static int single_dot(const char *s, size_t n)
{
    return (n == 1 && s[0] == '.') || (n == 3 && !strncasecmp(s, "%2e", 3));
}

/* 1 when segment s[0..n) is ".." in any of the forms a URL parser takes for it: "..", ".%2e",
 * "%2e.", "%2e%2e" (WHATWG URL, "double-dot URL path segment"). */
static int double_dot(const char *s, size_t n)
{
    return (n == 2 && s[0] == '.' && s[1] == '.') ||
           (n == 4 && ((s[0] == '.' && !strncasecmp(s + 1, "%2e", 3)) ||
                       (!strncasecmp(s, "%2e", 3) && s[3] == '.'))) ||
           (n == 6 && !strncasecmp(s, "%2e%2e", 6));
}

/* Resolves the URL string href against base (a member's directory: "" or "EPUB/", ending in
 * '/') into the name of the member it names, *out (malloc'd). Returns 0; 1 for a URL with a
 * scheme (a remote resource: *out NULL); -1 with why in err: outside the container, a
 * directory, an encoded slash or NUL, out of memory. Shapes: the result is never longer than
 * base + href. */
static int resolve(const char *base, const char *href, char **out, char *err, size_t errlen)
{
    size_t bl = strlen(base), hl, n = 0, k;
    const char *h = href, *e;
    char *buf;
    size_t *starts = NULL; /* where each segment of buf starts (for ".." to pop it) */
    int ns = 0, rc = -1;
    *out = NULL;
    /* leading and trailing C0 controls and spaces are stripped by a URL parser */
    while (*h && (unsigned char)*h <= 0x20)
        h++;
    hl = strlen(h);
    while (hl > 0 && (unsigned char)h[hl - 1] <= 0x20)
        hl--;
    if (hl == 0)
        return xerr(err, errlen, "an empty URL");
    for (k = 0; k < hl && (h[k] == '+' || h[k] == '-' || h[k] == '.' ||
                           (h[k] >= '0' && h[k] <= '9') || ((h[k] | 32) >= 'a' && (h[k] | 32) <= 'z'));
         k++)
        ;
    if (k > 0 && k < hl && h[k] == ':' && ((h[0] | 32) >= 'a' && (h[0] | 32) <= 'z'))
        return 1; /* "http:", "mailto:": a scheme, not a path in the container */
    if (h[0] == '/' || h[0] == '\\')
        return xerr(err, errlen, "an absolute path (refused: outside the container's root)");
    /* the path ends at a query or a fragment */
    for (e = h; e < h + hl && *e != '?' && *e != '#'; e++)
        ;
    if (!(buf = malloc(bl + hl + 2)) || !(starts = malloc((bl + hl + 2) * sizeof *starts))) {
        free(buf);
        return xerr(err, errlen, "out of memory");
    }
    /* the base's segments first (a directory: each ends with '/'), then href's */
    for (const char *p = base; *p;) {
        const char *q = strchr(p, '/');
        size_t l = q ? (size_t)(q - p) : strlen(p);
        starts[ns++] = n;
        memcpy(buf + n, p, l);
        n += l;
        buf[n++] = '/';
        p += l + (q ? 1 : 0);
    }
    for (const char *p = h;;) {
        const char *q = p;
        while (q < e && *q != '/' && *q != '\\')
            q++;
        if (double_dot(p, (size_t)(q - p))) {
            if (ns == 0) {
                xerr(err, errlen, "a \"..\" above the container's root (refused)");
                goto done;
            }
            n = starts[--ns]; /* (buf now ends with '/', or is empty) */
        } else if (!single_dot(p, (size_t)(q - p))) {
            starts[ns++] = n;
            for (const char *c = p; c < q; c++) {
                int hi, lo;
                char b = *c;
                if (b == '%' && c + 2 < q && (hi = hexval(c[1])) >= 0 &&
                    (lo = hexval(c[2])) >= 0) {
                    b = (char)(hi * 16 + lo);
                    c += 2;
                    if (b == '\0' || b == '/' || b == '\\') {
                        xerr(err, errlen, "a percent-encoded %s in the path (refused)",
                             b ? "slash" : "NUL");
                        goto done;
                    }
                }
                buf[n++] = b;
            }
            if (q < e)
                buf[n++] = '/';
        }
        if (q >= e)
            break; /* (a last "." or ".." or an empty last segment leaves a '/' at the end) */
        p = q + 1;
    }
    buf[n] = '\0';
    if (n == 0 || buf[n - 1] == '/') {
        xerr(err, errlen, "names a directory, not a file");
        goto done;
    }
    *out = buf;
    buf = NULL;
    rc = 0;
done:
    free(buf);
    free(starts);
    return rc;
}

/* Plans member m with build, unless it already has a builder or is one of the container's
 * own files (mimetype, META-INF/), which no manifest may claim. */
static void plan_member(pkg_in *in, pkg_plan *plan, int m, pkg_build_fn build)
{
    const char *name = pkg_member_name(in, m);
    if (plan->members[m].build || !strcmp(name, "mimetype") || !strncmp(name, "META-INF/", 9))
        return;
    plan->members[m].build = build;
}

/* Reads member m of the package and parses it as XML into t (src: its bytes, the caller frees
 * them after t). */
static int read_xml(pkg_in *in, int m, char **src, xml_tree *t, char *err, size_t errlen)
{
    size_t len;
    char e[XLATE_ERRLEN];
    if (pkg_read(in, m, src, &len, err, errlen))
        return -1;
    if (xml_parse(t, *src, len, e, sizeof e))
        return xerr(err, errlen, "%s: %s: %s", pkg_name(in), pkg_member_name(in, m), e);
    return 0;
}

/* The package document opf (member m): itself planned, and its manifest's XHTML and NCX
 * items. */
static int plan_opf(pkg_in *in, pkg_plan *plan, int m, char *err, size_t errlen)
{
    const char *opf = pkg_member_name(in, m), *slash = strrchr(opf, '/');
    char *src = NULL, *base = NULL, e[XLATE_ERRLEN], q[240];
    xml_tree t;
    int rc = -1, man;
    memset(&t, 0, sizeof t);
    t.root = -1;
    if (read_xml(in, m, &src, &t, err, errlen))
        goto done;
    if (!xml_is(&t, t.root, EPUB_NS_OPF, "package")) {
        xerr(err, errlen, "%s: %s: the root element is not an OPF package", pkg_name(in), opf);
        goto done;
    }
    if ((man = xml_child(&t, t.root, EPUB_NS_OPF, "manifest")) < 0) {
        xerr(err, errlen, "%s: %s: no manifest", pkg_name(in), opf);
        goto done;
    }
    if (!(base = strndup(opf, slash ? (size_t)(slash - opf) + 1 : 0))) {
        xerr(err, errlen, "out of memory");
        goto done;
    }
    plan->members[m].build = epub_build_opf;
    for (int i = t.nodes[man].first; i >= 0; i = t.nodes[i].next) {
        const char *href, *type, *id;
        char *name = NULL;
        int r, k;
        if (!xml_is(&t, i, EPUB_NS_OPF, "item"))
            continue;
        href = xml_attr_get(&t, i, "", "href");
        type = xml_attr_get(&t, i, "", "media-type");
        id = xml_attr_get(&t, i, "", "id");
        if (!href) {
            xerr(err, errlen, "%s: %s: line %ld: manifest item \"%s\" has no href", pkg_name(in),
                 opf, t.nodes[i].line, id ? str_quote(q, sizeof q, id, strlen(id)) : "");
            goto done;
        }
        if ((r = resolve(base, href, &name, e, sizeof e)) < 0) {
            xerr(err, errlen, "%s: %s: line %ld: manifest item href \"%s\": %s", pkg_name(in),
                 opf, t.nodes[i].line, str_quote(q, sizeof q, href, strlen(href)), e);
            goto done;
        }
        if (r == 1 || !type)
            continue; /* remote, or no type to say what it is */
        if (strcasecmp(type, MT_XHTML) && strcasecmp(type, MT_NCX)) {
            free(name);
            continue;
        }
        if ((k = pkg_find(in, name)) < 0) {
            xerr(err, errlen, "%s: %s: line %ld: manifest item href \"%s\": %s is not in the "
                 "package", pkg_name(in), opf, t.nodes[i].line,
                 str_quote(q, sizeof q, href, strlen(href)), name);
            free(name);
            goto done;
        }
        free(name);
        plan_member(in, plan, k, strcasecmp(type, MT_XHTML) ? epub_build_ncx : epub_build_xhtml);
    }
    rc = 0;
done:
    xml_free(&t);
    free(src);
    free(base);
    return rc;
}

int epub_plan(pkg_in *in, pkg_plan *plan, char *err, size_t errlen)
{
    static const char cname[] = "META-INF/container.xml";
    int c = pkg_find(in, cname), rfs, n = 0, rc = -1;
    char *src = NULL, e[XLATE_ERRLEN], q[240];
    xml_tree t;
    memset(&t, 0, sizeof t);
    t.root = -1;
    if (c < 0)
        return xerr(err, errlen, "%s: %s: missing (an EPUB names its package document there)",
                    pkg_name(in), cname);
    if (read_xml(in, c, &src, &t, err, errlen))
        goto done;
    if (!xml_is(&t, t.root, EPUB_NS_OCF, "container") ||
        (rfs = xml_child(&t, t.root, EPUB_NS_OCF, "rootfiles")) < 0) {
        xerr(err, errlen, "%s: %s: no container/rootfiles element", pkg_name(in), cname);
        goto done;
    }
    /* every rootfile of the package document's type: the first is the default rendition, the
     * others are other renditions of the same publication, translated as well */
    for (int i = t.nodes[rfs].first; i >= 0; i = t.nodes[i].next) {
        const char *fp, *type;
        char *name = NULL;
        int m, r;
        if (!xml_is(&t, i, EPUB_NS_OCF, "rootfile"))
            continue;
        fp = xml_attr_get(&t, i, "", "full-path");
        type = xml_attr_get(&t, i, "", "media-type");
        if (!type || strcasecmp(type, MT_OPF))
            continue;
        if (!fp) {
            xerr(err, errlen, "%s: %s: line %ld: a rootfile without full-path", pkg_name(in),
                 cname, t.nodes[i].line);
            goto done;
        }
        if ((r = resolve("", fp, &name, e, sizeof e)) != 0) {
            xerr(err, errlen, "%s: %s: line %ld: rootfile \"%s\": %s", pkg_name(in), cname,
                 t.nodes[i].line, str_quote(q, sizeof q, fp, strlen(fp)),
                 r > 0 ? "a URL with a scheme (refused: the package document is in the package)"
                       : e);
            goto done;
        }
        m = pkg_find(in, name);
        if (m < 0) {
            xerr(err, errlen, "%s: %s: line %ld: the rootfile %s is not in the package",
                 pkg_name(in), cname, t.nodes[i].line, str_quote(q, sizeof q, name, strlen(name)));
            free(name);
            goto done;
        }
        free(name);
        if (plan->members[m].build == epub_build_opf)
            continue; /* (named twice) */
        if (plan_opf(in, plan, m, err, errlen))
            goto done;
        n++;
    }
    if (n == 0) {
        xerr(err, errlen, "%s: %s: no rootfile of type %s", pkg_name(in), cname, MT_OPF);
        goto done;
    }
    rc = 0;
done:
    xml_free(&t);
    free(src);
    return rc;
}
