/* spm_model.c — the SentencePiece .model: the protobuf (proto2 wire format) reader, bounds-
 * checked everywhere, the loader that checks and builds the model (tries, special ids, byte
 * pieces, the normalizer's charsmap), spm_free and the accessors. Everything the model owns is
 * immutable after load. */
#include "text/spm_internal.h"
#include "base/util.h"
#include <float.h>
#include <stdio.h>

void spm_free(spm_model *m)
{
    if (!m)
        return;
    free(m->name);
    free(m->strs);
    free(m->off);
    free(m->len);
    free(m->score);
    free(m->ptype);
    free(m->byteval);
    free(m->canon);
    free(m->unk_surface);
    spm_trie_free(&m->pieces);
    spm_trie_free(&m->reserved);
    spm_trie_free(&m->user);
    free(m->norm.units);
    free(m->norm.strs);
    free(m->denorm.units);
    free(m->denorm.strs);
    free(m);
}

int spm_vocab_size(const spm_model *m) { return m ? m->n : 0; }
int spm_unk_id(const spm_model *m) { return m ? m->unk_id : -1; }
int spm_bos_id(const spm_model *m) { return m ? m->bos_id : -1; }
int spm_eos_id(const spm_model *m) { return m ? m->eos_id : -1; }
int spm_pad_id(const spm_model *m) { return m ? m->pad_id : -1; }

const char *spm_id_to_piece(const spm_model *m, int id)
{
    if (!m || id < 0 || id >= m->n)
        return NULL;
    return m->strs + m->off[id];
}

/* Protobuf reader (proto2 wire format), bounds-checked everywhere. */

typedef struct {
    const unsigned char *base, *p, *end;
    const char *name; /* file name for messages */
    char *err;
    size_t errlen;
} pb;

static int pb_fail(pb *b, const char *what, const char *msg)
{
    return xerr(b->err, b->errlen, "%s: not a valid SentencePiece model: %s in %s at byte %zu",
                b->name, msg, what, (size_t)(b->p - b->base));
}

static int pb_varint(pb *b, uint64_t *out, const char *what)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (b->p >= b->end)
            return pb_fail(b, what, "truncated varint");
        unsigned c = *b->p++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return pb_fail(b, what, "varint longer than 10 bytes");
}

/* Reads a tag; 1 when the message ends, 0 with *field and *wt, -1 on error. */
static int pb_tag(pb *b, uint32_t *field, unsigned *wt, const char *what)
{
    uint64_t t;
    if (b->p >= b->end)
        return 1;
    if (pb_varint(b, &t, what))
        return -1;
    if ((t >> 3) == 0 || (t >> 3) > 0x1FFFFFFF)
        return pb_fail(b, what, "invalid field number");
    *field = (uint32_t)(t >> 3);
    *wt = (unsigned)(t & 7);
    return 0;
}

static int pb_bytes(pb *b, const unsigned char **d, size_t *n, const char *what)
{
    uint64_t len;
    if (pb_varint(b, &len, what))
        return -1;
    if (len > (uint64_t)(b->end - b->p)) {
        char msg[96];
        snprintf(msg, sizeof msg, "length %llu exceeds the %zu bytes left",
                 (unsigned long long)len, (size_t)(b->end - b->p));
        return pb_fail(b, what, msg);
    }
    *d = b->p;
    *n = (size_t)len;
    b->p += len;
    return 0;
}

static int pb_skip(pb *b, unsigned wt, const char *what)
{
    uint64_t v;
    const unsigned char *d;
    size_t n;
    switch (wt) {
    case 0:
        return pb_varint(b, &v, what);
    case 1:
        if (b->end - b->p < 8)
            return pb_fail(b, what, "truncated fixed64");
        b->p += 8;
        return 0;
    case 2:
        return pb_bytes(b, &d, &n, what);
    case 5:
        if (b->end - b->p < 4)
            return pb_fail(b, what, "truncated fixed32");
        b->p += 4;
        return 0;
    default: {
        char msg[48];
        snprintf(msg, sizeof msg, "unsupported wire type %u", wt);
        return pb_fail(b, what, msg);
    }
    }
}

static int pb_expect(pb *b, unsigned wt, unsigned want, uint32_t field, const char *what)
{
    char msg[80];
    if (wt == want)
        return 0;
    snprintf(msg, sizeof msg, "field %u has wire type %u, expected %u", field, wt, want);
    return pb_fail(b, what, msg);
}

/* Sub-message reader over [d, d+n) sharing the parent's base for byte offsets. */
static pb pb_sub(const pb *b, const unsigned char *d, size_t n)
{
    pb s = *b;
    s.p = d;
    s.end = d + n;
    return s;
}

/* What the loader keeps from the protobuf before building the model. */
typedef struct {
    const unsigned char *charsmap;
    size_t charsmap_len;
    int add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces;
    int present;
} rawnorm;

typedef struct {
    int model_type, byte_fallback, treat_ws_as_suffix;
    const unsigned char *unk_surface;
    size_t unk_surface_len;
    int has_unk_surface;
    const unsigned char *special[4]; /* unk, bos, eos, pad piece names */
    size_t special_len[4];
} rawtrainer;

typedef struct {
    sbuf strs;
    sbuf off, len, score, type; /* arrays of size_t, uint32_t, float, unsigned char */
    int n;
} rawpieces;

static int parse_piece(pb *b, rawpieces *rp)
{
    const unsigned char *piece = (const unsigned char *)"";
    size_t plen = 0;
    float score = 0.0f;
    unsigned char type = PT_NORMAL;
    char what[48];
    uint32_t field = 0;
    unsigned wt = 0;
    int r;
    snprintf(what, sizeof what, "pieces[%d]", rp->n);
    while ((r = pb_tag(b, &field, &wt, what)) == 0) {
        uint64_t v;
        switch (field) {
        case 1:
            if (pb_expect(b, wt, 2, field, what) || pb_bytes(b, &piece, &plen, what))
                return -1;
            break;
        case 2:
            if (pb_expect(b, wt, 5, field, what))
                return -1;
            if (b->end - b->p < 4)
                return pb_fail(b, what, "truncated float");
            {
                uint32_t u = (uint32_t)b->p[0] | (uint32_t)b->p[1] << 8 |
                             (uint32_t)b->p[2] << 16 | (uint32_t)b->p[3] << 24;
                memcpy(&score, &u, 4);
            }
            b->p += 4;
            break;
        case 3:
            if (pb_expect(b, wt, 0, field, what) || pb_varint(b, &v, what))
                return -1;
            if (v >= 1 && v <= 6) /* proto2 keeps unknown enum values out of the field */
                type = (unsigned char)v;
            break;
        default:
            if (pb_skip(b, wt, what))
                return -1;
        }
    }
    if (r < 0)
        return -1;
    if (rp->n >= INT_MAX / 2 || plen > UINT32_MAX - 1)
        return pb_fail(b, what, "too many or too long pieces");
    size_t off = rp->strs.n;
    uint32_t l32 = (uint32_t)plen;
    if (sbuf_put(&rp->strs, piece, plen) || sbuf_put(&rp->strs, "", 1) ||
        sbuf_put(&rp->off, &off, sizeof off) || sbuf_put(&rp->len, &l32, sizeof l32) ||
        sbuf_put(&rp->score, &score, sizeof score) || sbuf_put(&rp->type, &type, 1))
        return xerr(b->err, b->errlen, "%s: out of memory reading pieces", b->name);
    rp->n++;
    return 0;
}

static int parse_trainer(pb *b, rawtrainer *t)
{
    const char *what = "trainer_spec";
    uint32_t field = 0;
    unsigned wt = 0;
    int r;
    while ((r = pb_tag(b, &field, &wt, what)) == 0) {
        uint64_t v;
        switch (field) {
        case 3: /* model_type */
            if (pb_expect(b, wt, 0, field, what) || pb_varint(b, &v, what))
                return -1;
            if (v >= 1 && v <= 4)
                t->model_type = (int)v;
            break;
        case 24: /* treat_whitespace_as_suffix */
        case 35: /* byte_fallback */
            if (pb_expect(b, wt, 0, field, what) || pb_varint(b, &v, what))
                return -1;
            if (field == 24)
                t->treat_ws_as_suffix = v != 0;
            else
                t->byte_fallback = v != 0;
            break;
        case 44: /* unk_surface */
            if (pb_expect(b, wt, 2, field, what) ||
                pb_bytes(b, &t->unk_surface, &t->unk_surface_len, what))
                return -1;
            t->has_unk_surface = 1;
            break;
        case 45: case 46: case 47: case 48: /* unk_piece, bos_piece, eos_piece, pad_piece */
            if (pb_expect(b, wt, 2, field, what) ||
                pb_bytes(b, &t->special[field - 45], &t->special_len[field - 45], what))
                return -1;
            break;
        default:
            if (pb_skip(b, wt, what))
                return -1;
        }
    }
    return r < 0 ? -1 : 0;
}

static int parse_normalizer(pb *b, rawnorm *nm, const char *what)
{
    uint32_t field = 0;
    unsigned wt = 0;
    int r;
    nm->present = 1;
    while ((r = pb_tag(b, &field, &wt, what)) == 0) {
        uint64_t v;
        switch (field) {
        case 2: /* precompiled_charsmap */
            if (pb_expect(b, wt, 2, field, what) ||
                pb_bytes(b, &nm->charsmap, &nm->charsmap_len, what))
                return -1;
            break;
        case 3: case 4: case 5: /* add_dummy_prefix, remove_extra_whitespaces, escape_ws */
            if (pb_expect(b, wt, 0, field, what) || pb_varint(b, &v, what))
                return -1;
            if (field == 3)
                nm->add_dummy_prefix = v != 0;
            else if (field == 4)
                nm->remove_extra_whitespaces = v != 0;
            else
                nm->escape_whitespaces = v != 0;
            break;
        default:
            if (pb_skip(b, wt, what))
                return -1;
        }
    }
    return r < 0 ? -1 : 0;
}

/* Normalizer::DecodePrecompiledCharsMap: <uint32 LE trie size><trie units><strings>. */
static int load_charsmap(normspec *ns, const rawnorm *rn, const char *name, const char *what,
                         char *err, size_t errlen)
{
    const unsigned char *d = rn->charsmap;
    size_t n = rn->charsmap_len;
    uint32_t tsize;
    if (n <= 4)
        return xerr(err, errlen, "%s: %s precompiled_charsmap is broken (%zu bytes)", name,
                    what, n);
    tsize = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
    if (tsize >= n)
        return xerr(err, errlen,
                    "%s: %s precompiled_charsmap: trie size %u exceeds the blob size %zu",
                    name, what, tsize, n);
    if (n - 4 < tsize) /* the library checks against the whole blob; a trie that runs into the
                          last 4 bytes would be read past the end there */
        return xerr(err, errlen, "%s: %s precompiled_charsmap: trie size %u exceeds the %zu "
                    "bytes after the size field", name, what, tsize, n - 4);
    ns->nunits = tsize / 4;
    ns->units = malloc((ns->nunits ? ns->nunits : 1) * sizeof *ns->units);
    ns->nstrs = n - 4 - tsize;
    ns->strs = malloc(ns->nstrs + 1);
    if (!ns->units || !ns->strs)
        return xerr(err, errlen, "%s: out of memory loading the charsmap", name);
    for (size_t i = 0; i < ns->nunits; i++) {
        const unsigned char *u = d + 4 + 4 * i;
        ns->units[i] = (uint32_t)u[0] | (uint32_t)u[1] << 8 | (uint32_t)u[2] << 16 |
                       (uint32_t)u[3] << 24;
    }
    memcpy(ns->strs, d + 4 + tsize, ns->nstrs);
    ns->strs[ns->nstrs] = '\0';
    return 0;
}

/* "<0xXX>" with upper-case hex, as ByteToPiece writes it; -1 for anything else. */
static int piece_to_byte(const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    const char *hi, *lo;
    if (n != 6 || memcmp(s, "<0x", 3) != 0 || s[5] != '>')
        return -1;
    hi = s[3] ? strchr(hex, s[3]) : NULL;
    lo = s[4] ? strchr(hex, s[4]) : NULL;
    if (!hi || !lo)
        return -1;
    return (int)((hi - hex) * 16 + (lo - hex));
}

/* Copies a piece into buf for messages: printable ASCII and UTF-8 as is, others as \xNN. */
static const char *piece_for_msg(const char *s, size_t n, char *buf, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != 0x7f)
            buf[o++] = (char)c;
        else
            o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", c);
    }
    buf[o] = '\0';
    return buf;
}

static int is_normal_type(int t) { return t == PT_NORMAL || t == PT_USER || t == PT_UNUSED; }
static int is_reserved_type(int t) { return !is_normal_type(t); }
static int is_user_type(int t) { return t == PT_USER; }

static int special_id(const spm_model *m, const rawtrainer *t, int which, const char *dflt,
                      int want_type)
{
    const unsigned char *s = t->special[which];
    size_t n = t->special_len[which];
    if (!s || n == 0) {
        s = (const unsigned char *)dflt;
        n = strlen(dflt);
    }
    int id = spm_piece_to_id(m, s, n);
    return (id >= 0 && m->ptype[id] == want_type) ? id : -1;
}

int spm_load_from_memory(spm_model **out, const void *data, size_t len, const char *name,
                         char *err, size_t errlen)
{
    spm_model *m = NULL;
    rawpieces rp = {0};
    rawtrainer tr = {0};
    rawnorm nm = {0}, dn = {0};
    pb b;
    uint32_t field = 0;
    unsigned wt = 0;
    int r;
    char pbuf[64];

    *out = NULL;
    if (!name)
        name = "<memory>";
    tr.model_type = MT_UNIGRAM;
    nm.add_dummy_prefix = nm.remove_extra_whitespaces = nm.escape_whitespaces = 1;
    dn.add_dummy_prefix = dn.remove_extra_whitespaces = dn.escape_whitespaces = 1;
    b.base = b.p = data;
    b.end = b.base + len;
    b.name = name;
    b.err = err;
    b.errlen = errlen;
    if (!data && len)
        return xerr(err, errlen, "%s: no data", name);

    /* ModelProto */
    while ((r = pb_tag(&b, &field, &wt, "ModelProto")) == 0) {
        const unsigned char *d;
        size_t n;
        pb s;
        if (field == 1 || field == 2 || field == 3 || field == 5) {
            if (pb_expect(&b, wt, 2, field, "ModelProto") || pb_bytes(&b, &d, &n, "ModelProto"))
                goto fail;
            s = pb_sub(&b, d, n);
            if (field == 1 ? parse_piece(&s, &rp)
                : field == 2 ? parse_trainer(&s, &tr)
                : field == 3 ? parse_normalizer(&s, &nm, "normalizer_spec")
                             : parse_normalizer(&s, &dn, "denormalizer_spec"))
                goto fail;
        } else if (pb_skip(&b, wt, "ModelProto")) {
            goto fail;
        }
    }
    if (r < 0)
        goto fail;

    m = calloc(1, sizeof *m);
    if (!m || !(m->name = strdup(name))) {
        xerr(err, errlen, "%s: out of memory", name);
        goto fail;
    }
    m->type = tr.model_type;
    m->n = rp.n;
    m->byte_fallback = tr.byte_fallback;
    m->strs = rp.strs.p;
    m->off = (size_t *)(void *)rp.off.p;
    m->len = (uint32_t *)(void *)rp.len.p;
    m->score = (float *)(void *)rp.score.p;
    m->ptype = (unsigned char *)rp.type.p;
    memset(&rp, 0, sizeof rp);
    m->n = (int)(m->off ? m->n : 0);
    m->unk = -1;
    if (m->n == 0) {
        xerr(err, errlen, "%s: not a SentencePiece model: no pieces (unk is not defined)", name);
        goto fail;
    }
    m->byteval = calloc((size_t)m->n, 1);
    m->canon = malloc((size_t)m->n * sizeof *m->canon);
    if (!m->byteval || !m->canon) {
        xerr(err, errlen, "%s: out of memory", name);
        goto fail;
    }

    /* ModelInterface::InitializePieces */
    {
        int byte_found[256] = {0};
        for (int i = 0; i < m->n; i++) {
            const char *s = m->strs + m->off[i];
            size_t n = m->len[i];
            int t = m->ptype[i];
            if (n == 0) {
                xerr(err, errlen, "%s: piece %d is empty", name, i);
                goto fail;
            }
            if (memchr(s, '\0', n)) {
                xerr(err, errlen, "%s: piece %d ('%s') holds a NUL byte", name, i,
                     piece_for_msg(s, n, pbuf, sizeof pbuf));
                goto fail;
            }
            if (t == PT_UNKNOWN) {
                if (m->unk >= 0) {
                    xerr(err, errlen, "%s: unk is already defined (pieces %d and %d)", name,
                         m->unk, i);
                    goto fail;
                }
                m->unk = i;
            }
            if (t == PT_UNUSED)
                m->has_unused = 1;
            if (t == PT_USER)
                m->has_user = 1;
            if (t == PT_BYTE) {
                int byte = piece_to_byte(s, n);
                if (!m->byte_fallback) {
                    xerr(err, errlen, "%s: byte piece %d ('%s') is found although "
                         "byte_fallback is false", name, i, piece_for_msg(s, n, pbuf, sizeof pbuf));
                    goto fail;
                }
                if (byte < 0) {
                    xerr(err, errlen, "%s: byte piece %d ('%s') is invalid", name, i,
                         piece_for_msg(s, n, pbuf, sizeof pbuf));
                    goto fail;
                }
                byte_found[byte] = 1;
                m->byteval[i] = (unsigned char)byte;
            }
        }
        if (spm_trie_build(&m->pieces, m, is_normal_type) ||
            spm_trie_build(&m->reserved, m, is_reserved_type) ||
            spm_trie_build(&m->user, m, is_user_type)) {
            xerr(err, errlen, "%s: out of memory building the piece index", name);
            goto fail;
        }
        /* Duplicates within one map are an error in the library ("X is already defined"). */
        for (int i = 0; i < m->n; i++) {
            const trie *t = is_normal_type(m->ptype[i]) ? &m->pieces : &m->reserved;
            int first = spm_trie_find(t, (const unsigned char *)m->strs + m->off[i], m->len[i]);
            if (first != i) {
                xerr(err, errlen, "%s: piece %d ('%s') is already defined as piece %d", name, i,
                     piece_for_msg(m->strs + m->off[i], m->len[i], pbuf, sizeof pbuf), first);
                goto fail;
            }
        }
        if (m->unk < 0) {
            xerr(err, errlen, "%s: unk is not defined (no piece of type UNKNOWN)", name);
            goto fail;
        }
        if (m->byte_fallback) {
            for (int c = 0; c < 256; c++) {
                if (!byte_found[c]) {
                    xerr(err, errlen, "%s: byte_fallback is true but there is no byte piece "
                         "<0x%02X>", name, c);
                    goto fail;
                }
                char bp[8];
                snprintf(bp, sizeof bp, "<0x%02X>", c);
                m->byte_id[c] = spm_piece_to_id(m, (const unsigned char *)bp, 6);
            }
        }
    }
    if (m->type == MT_UNIGRAM) {
        int any = 0;
        m->min_score = FLT_MAX;
        m->max_score = FLT_MIN;
        for (int i = 0; i < m->n; i++) {
            if (is_normal_type(m->ptype[i]))
                any = 1;
            if (m->ptype[i] == PT_NORMAL) {
                float s = m->score[i];
                m->min_score = s < m->min_score ? s : m->min_score; /* std::min */
                m->max_score = m->max_score < s ? s : m->max_score; /* std::max */
            }
        }
        if (!any) {
            xerr(err, errlen, "%s: unigram model has no normal pieces (no pieces are loaded)",
                 name);
            goto fail;
        }
    }
    for (int i = 0; i < m->n; i++)
        m->canon[i] = spm_piece_to_id(m, (const unsigned char *)m->strs + m->off[i], m->len[i]);
    m->unk_id = special_id(m, &tr, 0, "<unk>", PT_UNKNOWN);
    m->bos_id = special_id(m, &tr, 1, "<s>", PT_CONTROL);
    m->eos_id = special_id(m, &tr, 2, "</s>", PT_CONTROL);
    m->pad_id = special_id(m, &tr, 3, "<pad>", PT_CONTROL);
    {
        const char *us = tr.has_unk_surface ? (const char *)tr.unk_surface : " \xE2\x81\x87 ";
        size_t ul = tr.has_unk_surface ? tr.unk_surface_len : strlen(us);
        m->unk_surface = malloc(ul + 1);
        if (!m->unk_surface) {
            xerr(err, errlen, "%s: out of memory", name);
            goto fail;
        }
        memcpy(m->unk_surface, us, ul);
        m->unk_surface[ul] = '\0';
        m->unk_surface_len = ul;
    }

    /* Normalizer (fails the load when its charsmap is broken) and denormalizer (kept even when
     * broken: the library then decodes every sentence to ""). */
    m->norm.add_dummy_prefix = nm.add_dummy_prefix;
    m->norm.remove_extra_whitespaces = nm.remove_extra_whitespaces;
    m->norm.escape_whitespaces = nm.escape_whitespaces;
    m->norm.treat_ws_as_suffix = tr.treat_ws_as_suffix;
    if (nm.charsmap_len &&
        load_charsmap(&m->norm, &nm, name, "normalizer_spec", err, errlen))
        goto fail;
    if (dn.present && dn.charsmap_len) {
        char derr[8];
        m->has_denorm = 1;
        m->denorm.add_dummy_prefix = dn.add_dummy_prefix;
        m->denorm.remove_extra_whitespaces = dn.remove_extra_whitespaces;
        m->denorm.escape_whitespaces = dn.escape_whitespaces;
        if (load_charsmap(&m->denorm, &dn, name, "denormalizer_spec", derr, sizeof derr)) {
            free(m->denorm.units);
            free(m->denorm.strs);
            m->denorm.units = NULL;
            m->denorm.strs = NULL;
            m->denorm.nunits = m->denorm.nstrs = 0;
            m->denorm.broken = 1;
        }
    }
    *out = m;
    return 0;

fail:
    free(rp.strs.p);
    free(rp.off.p);
    free(rp.len.p);
    free(rp.score.p);
    free(rp.type.p);
    spm_free(m);
    return -1;
}

int spm_load(spm_model **out, const char *path, char *err, size_t errlen)
{
    char *data = NULL;
    size_t len = 0;
    int rc;
    *out = NULL;
    if (read_file_max(path, READ_MAX_SPM, &data, &len, err, errlen))
        return -1;
    rc = spm_load_from_memory(out, data, len, path, err, errlen);
    free(data);
    return rc;
}
