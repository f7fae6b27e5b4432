/* pkg.h — a zip package (docx, pptx, odt, odp, epub) read and written with libzip, never
 * extracted onto the disk: the members a format's plan names are each parsed into a doc by the
 * builder it names, translated and written into a new zip under the same name; every other
 * member is copied with its compressed bytes as they are (same data, same CRC, same method).
 * The members keep their order, names and compression method; a package whose first member is
 * an uncompressed `mimetype` (ODF, EPUB) keeps it first and stored.
 *
 * Bounds, checked before anything is read (a hostile zip is refused, naming the member):
 * - a member name that is absolute, has a ".." or "." component, a backslash, a NUL or control
 *   byte, or appears twice;
 * - more than PKG_MAX_MEMBERS members;
 * - a member larger than PKG_MAX_MEMBER bytes uncompressed, the members together larger than
 *   PKG_MAX_TOTAL, or a member whose uncompressed size is more than PKG_MAX_RATIO times its
 *   compressed size (a zip bomb) when it is larger than PKG_RATIO_FLOOR;
 * - a member that inflates to more bytes than its header says (read with a hard bound) or
 *   whose CRC does not match (libzip checks it at the end of the read).
 * Memory: the input as the caller holds it (a buffer, or a file mapped where it lies), one
 * member's text, its doc and its translation at a time; the output is written to a temporary
 * file (TMPDIR) and then streamed to the caller's writer. */
#ifndef XLATE_DOC_PKG_H
#define XLATE_DOC_PKG_H
#include "doc/formats.h"
#include <stddef.h>

#define PKG_MAX_MEMBERS 65536
#define PKG_MAX_MEMBER ((size_t)256 << 20)  /* 256 MiB uncompressed, one member */
#define PKG_MAX_TOTAL ((size_t)2 << 30)     /* 2 GiB uncompressed, all members */
#define PKG_MAX_RATIO 200                   /* uncompressed / compressed, past the floor */
#define PKG_RATIO_FLOOR ((size_t)1 << 20)   /* members smaller than 1 MiB are not ratio-checked */

typedef struct pkg_in pkg_in; /* an opened package (pkg.c) */

/* The members, in the zip's order. */
int pkg_count(const pkg_in *in);
const char *pkg_member_name(const pkg_in *in, int i);
/* The index of the member named name (exact, case-sensitive), or -1. */
int pkg_find(const pkg_in *in, const char *name);
/* Reads member i whole into *data (malloc'd, NUL after the last byte, *len bytes). Returns 0,
 * or -1 with a message naming the package and the member. */
int pkg_read(pkg_in *in, int i, char **data, size_t *len, char *err, size_t errlen);
/* The package's name, for messages. */
const char *pkg_name(const pkg_in *in);

/* Builds a doc over d->src (the member's bytes) for the member named member. Returns 0, or -1
 * with a message naming the line. */
typedef int (*pkg_build_fn)(doc *d, const doc_opts *o, const char *member, char *err,
                            size_t errlen);
typedef int (*pkg_finish_fn)(doc *d, const doc_opts *o, char *err, size_t errlen);

typedef struct {
    pkg_build_fn build;   /* NULL: the member is copied as it is */
    pkg_finish_fn finish; /* may be NULL */
} pkg_action;

typedef struct pkg_plan {
    int n;               /* = pkg_count */
    pkg_action *members; /* [n], zeroed: every member copied */
    void *user;          /* what the plan read for the builders (ODF: styles.xml's styles), given
                            to each as doc_opts.pkg_user; freed by free_user after the last */
    void (*free_user)(void *user);
} pkg_plan;

/* Translates the package src[0..len) of package format f: f->plan, then every planned member,
 * the result written through write. As doc_format_translate (formats.h), which calls it. ctx
 * NULL (p not read): nothing is translated, every unit is written as its own text (the fuzz
 * target's round trip of a package through its plan, builders and writers). */
int pkg_translate(xlate_ctx *ctx, const xlate_lines_params *p, const doc_opts *o,
                  const doc_format *f, const char *src, size_t len, const char *name,
                  int (*write)(void *user, const char *s, size_t len), void *user,
                  doc_report *rep, char *err, size_t errlen);

/* The XLATE_FORMAT_* of a zip by its content (formats.h's doc_format_sniff), or -1. */
int pkg_sniff(const char *src, size_t len);

/* The package formats' plans (docx.c, pptx.c, odf.c, epub.c). */
int docx_plan(pkg_in *in, pkg_plan *plan, char *err, size_t errlen);
int pptx_plan(pkg_in *in, pkg_plan *plan, char *err, size_t errlen);
int odf_plan(pkg_in *in, pkg_plan *plan, char *err, size_t errlen);
int epub_plan(pkg_in *in, pkg_plan *plan, char *err, size_t errlen);

#endif
