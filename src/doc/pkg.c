/* pkg.c — zip packages in and out with libzip (pkg.h): the input opened from the caller's
 * bytes, every member's name and sizes checked before anything is read, the plan's members
 * translated one at a time while libzip writes the new archive (each is a source whose open
 * runs its translation: one member's doc in memory at a time), the rest copied compressed as
 * they are. The archive is written to a temporary file, then streamed to the caller. */
#include "doc/pkg.h"
#include "base/strbuf.h"
#include "base/util.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

struct pkg_in {
    zip_t *za;
    const char *name; /* the package's name, for messages */
    int n;
    char **names;     /* [n] each member's name (owned) */
    zip_uint64_t *size, *comp; /* [n] uncompressed, compressed */
};

int pkg_count(const pkg_in *in) { return in->n; }
const char *pkg_member_name(const pkg_in *in, int i) { return in->names[i]; }
const char *pkg_name(const pkg_in *in) { return in->name; }

int pkg_find(const pkg_in *in, const char *name)
{
    for (int i = 0; i < in->n; i++)
        if (!strcmp(in->names[i], name))
            return i;
    return -1;
}

int pkg_read(pkg_in *in, int i, char **data, size_t *len, char *err, size_t errlen)
{
    zip_file_t *zf;
    char *buf;
    zip_int64_t got;
    size_t want = (size_t)in->size[i], at = 0;
    if (!(buf = malloc(want + 2)))
        return xerr(err, errlen, "%s: %s: out of memory (%zu bytes)", in->name, in->names[i],
                    want);
    if (!(zf = zip_fopen_index(in->za, (zip_uint64_t)i, 0))) {
        xerr(err, errlen, "%s: %s: cannot read the member: %s", in->name, in->names[i],
             zip_error_strerror(zip_get_error(in->za)));
        free(buf);
        return -1;
    }
    /* at most one byte past the header's size: more is a lie of the header */
    while (at <= want && (got = zip_fread(zf, buf + at, want + 1 - at)) > 0)
        at += (size_t)got;
    if (at <= want && got < 0) {
        xerr(err, errlen, "%s: %s: damaged member: %s", in->name, in->names[i],
             zip_error_strerror(zip_file_get_error(zf)));
        zip_fclose(zf);
        free(buf);
        return -1;
    }
    zip_fclose(zf);
    if (at != want) {
        free(buf);
        return xerr(err, errlen, "%s: %s: damaged member: %s bytes where its header says %zu",
                    in->name, in->names[i], at > want ? "more" : "fewer", want);
    }
    buf[at] = '\0';
    *data = buf;
    *len = at;
    return 0;
}

static void in_free(pkg_in *in)
{
    if (!in)
        return;
    for (int i = 0; i < in->n && in->names; i++)
        free(in->names[i]);
    free(in->names);
    free(in->size);
    free(in->comp);
    if (in->za)
        zip_discard(in->za);
    free(in);
}

/* 0 when a member name is one a package may hold: relative, no "." or ".." component, no
 * backslash, no control byte; else a message. */
static const char *bad_name(const char *s)
{
    if (!*s)
        return "an empty name";
    if (s[0] == '/')
        return "an absolute path";
    for (const char *p = s; *p; p++) {
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return "a control byte in the name";
        if (*p == '\\')
            return "a backslash in the name";
        if ((p == s || p[-1] == '/') && p[0] == '.' &&
            (p[1] == '/' || p[1] == '\0' || (p[1] == '.' && (p[2] == '/' || p[2] == '\0'))))
            return "a \".\" or \"..\" component";
        if (p[0] == '/' && p[1] == '/')
            return "an empty path component";
    }
    return NULL;
}

/* Opens src[0..len) as a zip and checks every member against pkg.h's bounds. */
static int in_open(pkg_in **out, const char *src, size_t len, const char *name, char *err,
                   size_t errlen)
{
    zip_error_t ze;
    zip_source_t *zs;
    pkg_in *in = calloc(1, sizeof *in);
    zip_int64_t n;
    size_t total = 0;
    char q[200];
    *out = NULL;
    if (!in)
        return xerr(err, errlen, "out of memory");
    in->name = name;
    zip_error_init(&ze);
    if (!(zs = zip_source_buffer_create(src, len, 0, &ze))) {
        xerr(err, errlen, "%s: %s", name, zip_error_strerror(&ze));
        goto fail;
    }
    if (!(in->za = zip_open_from_source(zs, ZIP_RDONLY | ZIP_CHECKCONS, &ze))) {
        xerr(err, errlen, "%s: not a readable zip package: %s", name, zip_error_strerror(&ze));
        zip_source_free(zs);
        goto fail;
    }
    n = zip_get_num_entries(in->za, 0);
    if (n <= 0 || n > PKG_MAX_MEMBERS) {
        xerr(err, errlen, "%s: %lld members (expected 1 to %d)", name, (long long)n,
             PKG_MAX_MEMBERS);
        goto fail;
    }
    in->n = (int)n;
    if (!(in->names = calloc((size_t)n, sizeof *in->names)) ||
        !(in->size = calloc((size_t)n, sizeof *in->size)) ||
        !(in->comp = calloc((size_t)n, sizeof *in->comp))) {
        xerr(err, errlen, "out of memory");
        goto fail;
    }
    for (zip_int64_t i = 0; i < n; i++) {
        zip_stat_t st;
        const char *nm = zip_get_name(in->za, (zip_uint64_t)i, ZIP_FL_ENC_GUESS), *why;
        if (!nm || zip_stat_index(in->za, (zip_uint64_t)i, 0, &st) ||
            !(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_COMP_SIZE)) {
            xerr(err, errlen, "%s: member %lld: no name or sizes: %s", name, (long long)i + 1,
                 zip_error_strerror(zip_get_error(in->za)));
            goto fail;
        }
        if ((why = bad_name(nm))) {
            xerr(err, errlen, "%s: member \"%s\": %s (refused: a package's members lie below "
                 "its root)", name, str_quote(q, sizeof q, nm, strlen(nm)), why);
            goto fail;
        }
        if (!(in->names[i] = strdup(nm))) {
            xerr(err, errlen, "out of memory");
            goto fail;
        }
        for (zip_int64_t k = 0; k < i; k++)
            if (!strcmp(in->names[k], nm)) {
                xerr(err, errlen, "%s: member \"%s\" appears twice", name,
                     str_quote(q, sizeof q, nm, strlen(nm)));
                goto fail;
            }
        in->size[i] = st.size;
        in->comp[i] = st.comp_size;
        if (st.size > PKG_MAX_MEMBER) {
            xerr(err, errlen, "%s: %s: %llu bytes uncompressed (the bound is %zu MiB a member)",
                 name, in->names[i], (unsigned long long)st.size, PKG_MAX_MEMBER >> 20);
            goto fail;
        }
        if (st.size > PKG_RATIO_FLOOR && st.size / (st.comp_size ? st.comp_size : 1) >
            PKG_MAX_RATIO) {
            xerr(err, errlen, "%s: %s: %llu bytes from %llu compressed, a ratio over %d (a zip "
                 "bomb?)", name, in->names[i], (unsigned long long)st.size,
                 (unsigned long long)st.comp_size, PKG_MAX_RATIO);
            goto fail;
        }
        total += (size_t)st.size;
        if (total > PKG_MAX_TOTAL) {
            xerr(err, errlen, "%s: more than %zu MiB uncompressed in all (at member %s)", name,
                 PKG_MAX_TOTAL >> 20, in->names[i]);
            goto fail;
        }
    }
    *out = in;
    return 0;
fail:
    in_free(in);
    return -1;
}

int pkg_sniff(const char *src, size_t len)
{
    char err[256], *data = NULL;
    size_t n = 0;
    pkg_in *in;
    int id = -1, i;
    if (len < 4 || memcmp(src, "PK\3\4", 4) || in_open(&in, src, len, "", err, sizeof err))
        return -1;
    if ((i = pkg_find(in, "mimetype")) >= 0 && in->size[i] < 256 &&
        pkg_read(in, i, &data, &n, err, sizeof err) == 0) {
        id = !strcmp(data, "application/vnd.oasis.opendocument.text")           ? XLATE_FORMAT_ODT
             : !strcmp(data, "application/vnd.oasis.opendocument.presentation") ? XLATE_FORMAT_ODP
             : !strcmp(data, "application/epub+zip")                            ? XLATE_FORMAT_EPUB
                                                                                : -1;
        free(data);
    } else if (pkg_find(in, "[Content_Types].xml") >= 0) {
        id = pkg_find(in, "word/document.xml") >= 0        ? XLATE_FORMAT_DOCX
             : pkg_find(in, "ppt/presentation.xml") >= 0 ? XLATE_FORMAT_PPTX
                                                         : -1;
    }
    in_free(in);
    return id;
}

/* ---- the output ---- */

/* One planned member: the source libzip reads while it writes the archive. Its open runs the
 * translation into buf. */
typedef struct {
    struct run *run;
    int member;
    strbuf buf;
    size_t at;
    int done;     /* translated (buf holds it until libzip has read it) */
    size_t size;  /* its bytes (libzip asks again once buf is freed) */
    zip_error_t ze;
} member_src;

typedef struct run {
    xlate_ctx *ctx;
    const xlate_lines_params *p;
    const doc_opts *o;
    pkg_in *in;
    pkg_plan plan;
    doc_report *rep;
    int rc;                 /* the first failure's XLATE_ERR* code */
    char err[XLATE_ERRLEN]; /* its message */
} run;

/* Parses, translates, finishes and writes member m into b. */
static int translate_member(run *r, int m, strbuf *b)
{
    const pkg_action *a = &r->plan.members[m];
    const char *mname = r->in->names[m];
    char *src = NULL, e[XLATE_ERRLEN];
    size_t len = 0;
    xlate_lines_stats st;
    double t0 = now_seconds();
    doc_opts o;
    doc d;
    int rc;
    if (r->o)
        o = *r->o;
    else
        memset(&o, 0, sizeof o);
    o.pkg_user = r->plan.user;
    if (pkg_read(r->in, m, &src, &len, r->err, sizeof r->err))
        return XLATE_ERR_DOC;
    doc_init(&d, src, len);
    if (a->build(&d, &o, mname, e, sizeof e)) {
        xerr(r->err, sizeof r->err, "%s: %s: %s", r->in->name, mname, e);
        rc = strstr(e, "out of memory") ? XLATE_ERR : XLATE_ERR_DOC;
        goto done;
    }
    for (int i = 0; i < d.n_warnings && i < 8; i++)
        doc_report_warn(r->rep, "%s: %s: %s", r->in->name, mname, d.warnings[i]);
    r->rep->n_warnings += d.n_warnings > 8 ? d.n_warnings - 8 : 0;
    r->rep->units += d.n_units;
    r->rep->members++;
    r->rep->parse_seconds += now_seconds() - t0;
    memset(&st, 0, sizeof st);
    if (r->ctx && (rc = doc_translate(r->ctx, r->p, &d, &st, e, sizeof e))) {
        xerr(r->err, sizeof r->err, "%s: %s: %s", r->in->name, mname, e);
        goto done;
    }
    r->rep->sentences += st.sentences;
    r->rep->units_done += d.n_units;
    r->rep->truncated += st.truncated;
    r->rep->translate_seconds += st.translate_seconds;
    if (a->finish && a->finish(&d, &o, e, sizeof e)) {
        xerr(r->err, sizeof r->err, "%s: %s: %s", r->in->name, mname, e);
        rc = XLATE_ERR;
        goto done;
    }
    t0 = now_seconds();
    if (doc_write(&d, strbuf_put, b) || (!b->s && strbuf_put(b, "", 0))) {
        xerr(r->err, sizeof r->err, "out of memory");
        rc = XLATE_ERR;
    }
    r->rep->parse_seconds += now_seconds() - t0;
done:
    doc_free(&d);
    free(src);
    return rc;
}

/* The member's translation into ms->buf, once (libzip asks for its size first, then reads). */
static int translate(member_src *ms)
{
    free(ms->buf.s);
    memset(&ms->buf, 0, sizeof ms->buf);
    ms->done = 1;
    if (ms->run->rc || (ms->run->rc = translate_member(ms->run, ms->member, &ms->buf))) {
        zip_error_set(&ms->ze, ZIP_ER_CANCELLED, 0); /* (an earlier member failed: stop) */
        return -1;
    }
    ms->size = ms->buf.len;
    return 0;
}

static zip_int64_t member_cb(void *user, void *data, zip_uint64_t len, zip_source_cmd_t cmd)
{
    member_src *ms = user;
    switch (cmd) {
    case ZIP_SOURCE_OPEN:
        ms->at = 0;
        if (!ms->done && translate(ms))
            return -1;
        return 0;
    case ZIP_SOURCE_READ: {
        size_t k = ms->buf.len - ms->at < len ? ms->buf.len - ms->at : (size_t)len;
        memcpy(data, ms->buf.s + ms->at, k);
        ms->at += k;
        return (zip_int64_t)k;
    }
    case ZIP_SOURCE_CLOSE: /* (written: the next member's translation may take the memory) */
        free(ms->buf.s);
        memset(&ms->buf, 0, sizeof ms->buf);
        return 0;
    case ZIP_SOURCE_STAT: {
        zip_stat_t *st = ZIP_SOURCE_GET_ARGS(zip_stat_t, data, len, &ms->ze);
        zip_stat_t src;
        if (!st || (!ms->done && translate(ms)))
            return -1;
        zip_stat_init(st);
        st->size = ms->size; /* a known size: no zip64 fields in a small member's header */
        st->valid |= ZIP_STAT_SIZE;
        if (zip_stat_index(ms->run->in->za, (zip_uint64_t)ms->member, 0, &src) == 0 &&
            (src.valid & ZIP_STAT_MTIME)) {
            st->mtime = src.mtime;
            st->valid |= ZIP_STAT_MTIME;
        }
        return sizeof *st;
    }
    case ZIP_SOURCE_ERROR:
        return zip_error_to_data(&ms->ze, data, len);
    case ZIP_SOURCE_FREE:
        free(ms->buf.s);
        zip_error_fini(&ms->ze);
        free(ms);
        return 0;
    case ZIP_SOURCE_SUPPORTS:
        return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE,
                                              ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE,
                                              -1);
    default:
        zip_error_set(&ms->ze, ZIP_ER_OPNOTSUPP, 0);
        return -1;
    }
}

/* Streams the file at path to write; 0 or -1. */
static int stream_out(const char *path, int (*write)(void *, const char *, size_t), void *user,
                      char *err, size_t errlen)
{
    char buf[1 << 16];
    size_t k;
    FILE *f = fopen(path, "rb");
    if (!f)
        return xerr(err, errlen, "cannot read the written package %s: %s", path,
                    strerror(errno));
    while ((k = fread(buf, 1, sizeof buf, f)) > 0)
        if (write(user, buf, k)) {
            fclose(f);
            return xerr(err, errlen, "cannot write the translated package");
        }
    if (ferror(f)) {
        fclose(f);
        return xerr(err, errlen, "cannot read the written package %s", path);
    }
    fclose(f);
    return 0;
}

int pkg_translate(xlate_ctx *ctx, const xlate_lines_params *p, const doc_opts *o,
                  const doc_format *f, const char *src, size_t len, const char *name,
                  int (*write)(void *user, const char *s, size_t len), void *user,
                  doc_report *rep, char *err, size_t errlen)
{
    run r;
    zip_t *zo = NULL;
    char path[4096];
    const char *tmp = getenv("TMPDIR");
    int fd, rc = XLATE_ERR, zerr = 0;
    memset(&r, 0, sizeof r);
    r.ctx = ctx;
    r.p = p;
    r.o = o;
    r.rep = rep;
    path[0] = '\0';
    if (in_open(&r.in, src, len, name, err, errlen))
        return strstr(err, "out of memory") ? XLATE_ERR : XLATE_ERR_DOC;
    r.plan.n = r.in->n;
    if (!(r.plan.members = calloc((size_t)r.in->n, sizeof *r.plan.members))) {
        xerr(err, errlen, "out of memory");
        goto done;
    }
    if (f->plan(r.in, &r.plan, err, errlen)) {
        rc = strstr(err, "out of memory") ? XLATE_ERR : XLATE_ERR_DOC;
        goto done;
    }
    snprintf(path, sizeof path, "%s/xlate-pkg-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if ((fd = mkstemp(path)) < 0) {
        xerr(err, errlen, "cannot make a temporary file for the package in %s: %s",
             tmp && *tmp ? tmp : "/tmp", strerror(errno));
        path[0] = '\0';
        goto done;
    }
    close(fd);
    if (!(zo = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr))) {
        zip_error_t ze;
        zip_error_init_with_code(&ze, zerr);
        xerr(err, errlen, "cannot write a package at %s: %s", path, zip_error_strerror(&ze));
        zip_error_fini(&ze);
        goto done;
    }
    for (int i = 0; i < r.in->n; i++) {
        zip_source_t *zs;
        zip_stat_t st;
        zip_int64_t at;
        if (r.plan.members[i].build) {
            member_src *ms = calloc(1, sizeof *ms);
            if (!ms) {
                xerr(err, errlen, "out of memory");
                goto done;
            }
            ms->run = &r;
            ms->member = i;
            zip_error_init(&ms->ze);
            if (!(zs = zip_source_function(zo, member_cb, ms))) {
                free(ms);
                xerr(err, errlen, "out of memory");
                goto done;
            }
        } else if (!(zs = zip_source_zip(zo, r.in->za, (zip_uint64_t)i, ZIP_FL_COMPRESSED, 0,
                                         -1))) {
            xerr(err, errlen, "%s: %s: cannot copy: %s", name, r.in->names[i],
                 zip_error_strerror(zip_get_error(zo)));
            goto done;
        }
        if ((at = zip_file_add(zo, r.in->names[i], zs, ZIP_FL_ENC_UTF_8)) < 0) {
            zip_source_free(zs);
            xerr(err, errlen, "%s: %s: cannot add: %s", name, r.in->names[i],
                 zip_error_strerror(zip_get_error(zo)));
            goto done;
        }
        if (zip_stat_index(r.in->za, (zip_uint64_t)i, 0, &st) == 0) {
            /* the member's own method: a stored one stays stored (ODF's and EPUB's mimetype
             * must; libzip would deflate a copy where that is smaller) */
            if (st.valid & ZIP_STAT_COMP_METHOD)
                zip_set_file_compression(zo, (zip_uint64_t)at,
                                         st.comp_method == ZIP_CM_STORE ? ZIP_CM_STORE
                                                                        : ZIP_CM_DEFLATE, 0);
            if (st.valid & ZIP_STAT_MTIME)
                zip_file_set_mtime(zo, (zip_uint64_t)at, st.mtime, 0);
        }
    }
    if (zip_close(zo) < 0) {
        if (r.rc) {
            snprintf(err, errlen, "%s", r.err);
            rc = r.rc;
        } else {
            xerr(err, errlen, "%s: cannot write the translated package: %s", name,
                 zip_error_strerror(zip_get_error(zo)));
        }
        zip_discard(zo);
        zo = NULL;
        goto done;
    }
    zo = NULL;
    if (r.rc) { /* (libzip wrote nothing it was not given; kept for safety) */
        snprintf(err, errlen, "%s", r.err);
        rc = r.rc;
        goto done;
    }
    if (stream_out(path, write, user, err, errlen)) {
        rc = XLATE_ERR_SINK;
        goto done;
    }
    rc = 0;
done:
    if (zo)
        zip_discard(zo);
    if (path[0])
        unlink(path);
    if (r.plan.free_user)
        r.plan.free_user(r.plan.user);
    free(r.plan.members);
    in_free(r.in);
    return rc;
}
