/* spm.c — SentencePiece: .model (protobuf) reader, normalizer, unigram / BPE / word / char
 * encoders, decoder. Written to give the ids and text of the sentencepiece library (0.1.97):
 *   normalize:  longest match over the precompiled charsmap (a Darts double-array trie), user
 *               defined symbols passed through untouched, each malformed UTF-8 byte becomes
 *               U+FFFD, dummy prefix, extra whitespace removal, ' ' -> U+2581;
 *   unigram:    the library's single-pass Viterbi, with its float/double arithmetic so that ties
 *               fall the same way;
 *   bpe:        merge the best-scoring adjacent pair (leftmost on ties) until none applies;
 *   populate:   runs of <unk> merge into one id, or become <0xXX> byte ids with byte_fallback.
 * Everything the model owns is immutable after load; encode/decode scratch lives on the call. */
#include "text/spm.h"
#include "base/util.h"
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PT_NORMAL = 1, PT_UNKNOWN = 2, PT_CONTROL = 3, PT_USER = 4, PT_UNUSED = 5, PT_BYTE = 6 };
enum { MT_UNIGRAM = 1, MT_BPE = 2, MT_WORD = 3, MT_CHAR = 4 };

#define SPACE_SYMBOL "\xe2\x96\x81" /* U+2581 */
#define REPLACEMENT_CHAR "\xef\xbf\xbd" /* U+FFFD */
#define MAX_TEXT ((size_t)INT_MAX - 64) /* normalized lengths and id counts must fit an int */

/* ------------------------------------------------------------------------------------------ */
/* Growable byte buffer. */

typedef struct {
    char *p;
    size_t n, cap;
} sbuf;

static int sbuf_reserve(sbuf *b, size_t extra)
{
    if (extra <= b->cap - b->n)
        return 0;
    if (extra > SIZE_MAX / 2 - b->n)
        return -1;
    size_t need = b->n + extra, cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    char *np = realloc(b->p, cap);
    if (!np)
        return -1;
    b->p = np;
    b->cap = cap;
    return 0;
}

static int sbuf_put(sbuf *b, const void *d, size_t n)
{
    if (sbuf_reserve(b, n))
        return -1;
    if (n)
        memcpy(b->p + b->n, d, n);
    b->n += n;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* UTF-8 as the library sees it (util.h: OneCharLen, DecodeUTF8, IsValidDecodeUTF8). */

static inline size_t one_char_len(unsigned char c)
{
    static const unsigned char tab[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    return tab[c >> 4];
}

/* 1 and *mblen = 1..4 when s starts with a well-formed character (U+FFFD itself included),
 * else 0 and *mblen = 1. n >= 1. */
static inline int utf8_valid(const unsigned char *s, size_t n, size_t *mblen)
{
    unsigned c = s[0];
    *mblen = 1;
    if (c < 0x80)
        return 1;
    if (n >= 2 && (c & 0xE0) == 0xC0) {
        uint32_t cp = ((c & 0x1Fu) << 6) | (s[1] & 0x3Fu);
        if ((s[1] & 0xC0) == 0x80 && cp >= 0x80) {
            *mblen = 2;
            return 1;
        }
    } else if (n >= 3 && (c & 0xF0) == 0xE0) {
        uint32_t cp = ((c & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
        if ((s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80 && cp >= 0x800 &&
            (cp < 0xD800 || cp >= 0xE000)) {
            *mblen = 3;
            return 1;
        }
    } else if (n >= 4 && (c & 0xF8) == 0xF0) {
        uint32_t cp = ((c & 0x07u) << 18) | ((s[1] & 0x3Fu) << 12) | ((s[2] & 0x3Fu) << 6) |
                      (s[3] & 0x3Fu);
        if ((s[1] & 0xC0) == 0x80 && (s[2] & 0xC0) == 0x80 && (s[3] & 0xC0) == 0x80 &&
            cp >= 0x10000 && cp <= 0x10FFFF) {
            *mblen = 4;
            return 1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Piece lookup: a double-array trie. Node 0 is the root; the child of node s by byte c is
 * t = base[s] + c when check[t] == s. One step reads two neighbouring words and allocates
 * nothing. It is built at load from the sorted pieces. */

typedef struct {
    uint32_t base;   /* children of this node are at base + byte */
    uint32_t check;  /* the parent of this slot; DA_FREE when the slot is unused */
    int32_t value;   /* piece id when a key ends here, else -1 */
} da_unit;

#define DA_FREE UINT32_MAX

typedef struct {
    da_unit *u;      /* [size] */
    uint32_t size;
} trie;

static void trie_free(trie *t)
{
    free(t->u);
    memset(t, 0, sizeof *t);
}

/* The child of node by byte c, or 0 when there is none (the root is nobody's child). */
static inline uint32_t trie_child(const trie *t, uint32_t node, unsigned char c)
{
    uint32_t x = t->u[node].base + c;
    return (x < t->size && t->u[x].check == node) ? x : 0;
}

static inline int trie_value(const trie *t, uint32_t node) { return t->u[node].value; }

/* Exact lookup: the value stored for s[0..n), or -1. */
static int trie_find(const trie *t, const unsigned char *s, size_t n)
{
    uint32_t node = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        node = trie_child(t, node, s[i]);
        if (!node)
            return -1;
    }
    return t->u[node].value;
}

#define DA_NONE UINT32_MAX

typedef struct {
    da_unit *u;
    uint32_t size, cap;
    uint32_t *nf, *pf;  /* [cap] next / previous free slot, DA_NONE at the ends */
    uint32_t head, tail; /* the free list; DA_NONE when empty */
} da_builder;

/* Makes slots [size, need) exist, free, at the end of the free list. */
static int da_grow(da_builder *d, uint64_t need)
{
    if (need <= d->size)
        return 0;
    if (need > UINT32_MAX / 4)
        return -1;
    if (need > d->cap) {
        uint32_t cap = d->cap ? d->cap : 1024;
        while (cap < need)
            cap *= 2;
        da_unit *u = realloc(d->u, (size_t)cap * sizeof *u);
        if (u)
            d->u = u;
        uint32_t *nf = realloc(d->nf, (size_t)cap * sizeof *nf);
        if (nf)
            d->nf = nf;
        uint32_t *pf = realloc(d->pf, (size_t)cap * sizeof *pf);
        if (pf)
            d->pf = pf;
        if (!u || !nf || !pf)
            return -1;
        d->cap = cap;
    }
    for (uint32_t i = d->size; i < (uint32_t)need; i++) {
        d->u[i].base = 0;
        d->u[i].check = DA_FREE;
        d->u[i].value = -1;
        d->nf[i] = DA_NONE;
        d->pf[i] = d->tail;
        if (d->tail != DA_NONE)
            d->nf[d->tail] = i;
        else
            d->head = i;
        d->tail = i;
    }
    d->size = (uint32_t)need;
    return 0;
}

static void da_take(da_builder *d, uint32_t s)
{
    uint32_t n = d->nf[s], p = d->pf[s];
    if (p != DA_NONE)
        d->nf[p] = n;
    else
        d->head = n;
    if (n != DA_NONE)
        d->pf[n] = p;
    else
        d->tail = p;
}

/* Finds a base for children with the given labels (ascending): the first free slot for the
 * first label such that every other label's slot is free too. Only the last DA_WINDOW slots are
 * searched; free slots before them are dropped from the list for good, which keeps the search
 * short on large vocabularies at the cost of a few unused slots. */
#define DA_WINDOW 4096u

static int da_place(da_builder *d, const unsigned char *labels, int nl, uint32_t *base)
{
    while (d->head != DA_NONE && d->size > DA_WINDOW && d->head < d->size - DA_WINDOW)
        da_take(d, d->head);
    for (uint32_t s = d->head;; s = d->nf[s]) {
        if (s == DA_NONE) {
            s = d->size;
            if (da_grow(d, (uint64_t)d->size + 256))
                return -1;
        }
        if (s <= labels[0])
            continue;
        uint32_t b = s - labels[0];
        if (da_grow(d, (uint64_t)b + 256))
            return -1;
        int k = 1;
        while (k < nl && d->u[b + labels[k]].check == DA_FREE)
            k++;
        if (k == nl) {
            *base = b;
            return 0;
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The model. */

typedef struct {
    uint32_t *units;    /* [nunits] Darts double-array units (host order) */
    size_t nunits;
    char *strs;         /* [nstrs + 1] NUL-separated replacement strings, NUL-terminated */
    size_t nstrs;
    int add_dummy_prefix, remove_extra_whitespaces, escape_whitespaces;
    int treat_ws_as_suffix;
    int broken;         /* denormalizer only: the library keeps it and it yields "" */
} normspec;

struct spm_model {
    char *name;
    int type;              /* MT_* */
    int n;                 /* pieces */
    char *strs;            /* piece strings, each NUL-terminated */
    size_t *off;           /* [n] offset of piece i in strs */
    uint32_t *len;         /* [n] */
    float *score;          /* [n] */
    unsigned char *ptype;  /* [n] PT_* */
    unsigned char *byteval;/* [n] the byte of a BYTE piece */
    int *canon;            /* [n] PieceToId(piece i): the id decode sees */
    int unk;               /* the UNKNOWN piece (the library's unk_id_) */
    int unk_id, bos_id, eos_id, pad_id; /* as the library reports them */
    int byte_fallback;
    int byte_id[256];      /* PieceToId("<0xXX>") when byte_fallback */
    int has_unused;
    float min_score, max_score; /* over NORMAL pieces, as the unigram model computes them */
    char *unk_surface;
    size_t unk_surface_len;
    trie pieces;           /* NORMAL, USER_DEFINED, UNUSED -> id */
    trie reserved;         /* CONTROL, UNKNOWN, BYTE -> id */
    trie user;             /* USER_DEFINED -> id; empty when there is none */
    int has_user;
    normspec norm;         /* the normalizer */
    normspec denorm;       /* applied after decode when has_denorm */
    int has_denorm;
};

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
    trie_free(&m->pieces);
    trie_free(&m->reserved);
    trie_free(&m->user);
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

/* ModelInterface::PieceToId: reserved pieces first, then normal ones, else <unk>. */
static int piece_to_id(const spm_model *m, const unsigned char *s, size_t n)
{
    int id = trie_find(&m->reserved, s, n);
    if (id >= 0)
        return id;
    id = trie_find(&m->pieces, s, n);
    return id >= 0 ? id : m->unk;
}

/* ------------------------------------------------------------------------------------------ */
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

typedef struct {
    const unsigned char *s;
    uint32_t len;
    int id;
} da_key;

static int cmp_keys(const void *a, const void *b)
{
    const da_key *x = a, *y = b;
    int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);
    if (c)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id); /* equal keys: the first piece first, it is kept */
}

typedef struct {
    uint32_t lo, hi;  /* keys [lo, hi) share the first `depth` bytes */
    uint32_t depth;
    uint32_t pos;     /* the node's slot */
} da_task;

/* Builds the double array of the pieces whose type `want` accepts, straight from the sorted
 * keys (depth first). A key seen twice keeps the first piece's id. */
static int build_trie(trie *t, const spm_model *m, int (*want)(int type))
{
    da_key *keys = NULL;
    uint32_t n = 0;
    int rc = -1;
    da_task *stack = NULL;
    size_t sp = 0, scap = 0;
    da_builder d = {NULL, 0, 0, NULL, NULL, DA_NONE, DA_NONE};

    keys = malloc(((size_t)m->n + 1) * sizeof *keys);
    if (!keys)
        goto done;
    for (int i = 0; i < m->n; i++)
        if (want(m->ptype[i]))
            keys[n++] = (da_key){(const unsigned char *)m->strs + m->off[i], m->len[i], i};
    qsort(keys, n, sizeof *keys, cmp_keys);
    if (da_grow(&d, 257))
        goto done;
    da_take(&d, 0);
    d.u[0].check = 0; /* the root; children sit at base + c >= 1, so it is nobody's child */
    scap = 64;
    stack = malloc(scap * sizeof *stack);
    if (!stack)
        goto done;
    stack[sp++] = (da_task){0, n, 0, 0};
    while (sp) {
        da_task tk = stack[--sp];
        unsigned char labels[256];
        uint32_t starts[257];
        int nl = 0;
        uint32_t i = tk.lo, base;
        if (i < tk.hi && keys[i].len == tk.depth) { /* a key ends here */
            d.u[tk.pos].value = keys[i].id;
            while (i < tk.hi && keys[i].len == tk.depth)
                i++;
        }
        while (i < tk.hi) {
            unsigned char c = keys[i].s[tk.depth];
            labels[nl] = c;
            starts[nl++] = i;
            while (i < tk.hi && keys[i].s[tk.depth] == c)
                i++;
        }
        starts[nl] = tk.hi;
        if (nl == 0)
            continue;
        if (da_place(&d, labels, nl, &base))
            goto done;
        d.u[tk.pos].base = base;
        if (sp + (size_t)nl > scap) {
            size_t nc = scap * 2 + (size_t)nl;
            da_task *ns = realloc(stack, nc * sizeof *ns);
            if (!ns)
                goto done;
            stack = ns;
            scap = nc;
        }
        for (int k = nl - 1; k >= 0; k--) { /* pushed in reverse: smaller labels first */
            uint32_t x = base + labels[k];
            da_take(&d, x);
            d.u[x].check = tk.pos;
            stack[sp++] = (da_task){starts[k], starts[k + 1], tk.depth + 1, x};
        }
    }
    while (d.size > 1 && d.u[d.size - 1].check == DA_FREE)
        d.size--;
    t->u = realloc(d.u, (size_t)d.size * sizeof *d.u);
    if (!t->u)
        t->u = d.u;
    t->size = d.size;
    d.u = NULL;
    rc = 0;
done:
    free(d.u);
    free(d.nf);
    free(d.pf);
    free(keys);
    free(stack);
    return rc;
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
    int id = piece_to_id(m, s, n);
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
        if (build_trie(&m->pieces, m, is_normal_type) ||
            build_trie(&m->reserved, m, is_reserved_type) ||
            build_trie(&m->user, m, is_user_type)) {
            xerr(err, errlen, "%s: out of memory building the piece index", name);
            goto fail;
        }
        /* Duplicates within one map are an error in the library ("X is already defined"). */
        for (int i = 0; i < m->n; i++) {
            const trie *t = is_normal_type(m->ptype[i]) ? &m->pieces : &m->reserved;
            int first = trie_find(t, (const unsigned char *)m->strs + m->off[i], m->len[i]);
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
                m->byte_id[c] = piece_to_id(m, (const unsigned char *)bp, 6);
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
        m->canon[i] = piece_to_id(m, (const unsigned char *)m->strs + m->off[i], m->len[i]);
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
    if (read_file(path, &data, &len, err, errlen))
        return -1;
    rc = spm_load_from_memory(out, data, len, path, err, errlen);
    free(data);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Normalizer. */

/* Darts-clone DoubleArray unit fields. */
static inline uint32_t da_offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }
static inline uint32_t da_label(uint32_t u) { return u & ((1u << 31) | 0xFFu); }
static inline int da_has_leaf(uint32_t u) { return (u >> 8) & 1; }
static inline uint32_t da_value(uint32_t u) { return u & ((1u << 31) - 1); }

/* Longest charsmap rule matching a prefix of s[0..n) among the first 32 matches (what the
 * library's fixed result array holds); 0 when none. Out-of-range units end the search. */
static size_t charsmap_match(const normspec *ns, const unsigned char *s, size_t n,
                             uint32_t *value)
{
    const uint32_t *a = ns->units;
    size_t na = ns->nunits, best = 0;
    unsigned found = 0;
    uint32_t id, u;
    if (na == 0)
        return 0;
    id = da_offset(a[0]);
    for (size_t i = 0; i < n; i++) {
        id ^= s[i];
        if (id >= na)
            break;
        u = a[id];
        if (da_label(u) != s[i])
            break;
        id ^= da_offset(u);
        if (da_has_leaf(u)) {
            if (found < 32 && id < na) {
                best = i + 1;
                *value = da_value(a[id]);
            }
            found++;
        }
    }
    return best;
}

/* Length of the longest user-defined symbol that s[0..n) starts with; 0 when none does. */
static size_t longest_user(const spm_model *m, const unsigned char *s, size_t n)
{
    uint32_t node = 0;
    size_t best = 0;
    for (size_t i = 0; i < n; i++) {
        node = trie_child(&m->user, node, s[i]);
        if (!node)
            break;
        if (trie_value(&m->user, node) >= 0)
            best = i + 1;
    }
    return best;
}

/* Normalizer::NormalizePrefix: the replacement for the longest rule at s, and how many input
 * bytes it consumes. */
static size_t normalize_prefix(const spm_model *m, const normspec *ns, int use_matcher,
                               const unsigned char *s, size_t n, const char **outp,
                               size_t *outn)
{
    size_t mblen;
    uint32_t value = 0;
    if (use_matcher && m->has_user) {
        /* PrefixMatcher: the longest user-defined symbol passes through unnormalized. */
        size_t best = longest_user(m, s, n);
        if (best) {
            *outp = (const char *)s;
            *outn = best;
            return best;
        }
    }
    size_t len = charsmap_match(ns, s, n, &value);
    if (len) {
        if (value < ns->nstrs) {
            *outp = ns->strs + value;
            *outn = strlen(*outp); /* strs ends with a NUL, so this stays inside */
        } else {
            *outp = "";
            *outn = 0;
        }
        return len;
    }
    if (!utf8_valid(s, n, &mblen)) {
        *outp = REPLACEMENT_CHAR;
        *outn = 3;
        return 1;
    }
    *outp = (const char *)s;
    *outn = mblen;
    return mblen;
}

static inline int ends_with(const sbuf *b, const char *s, size_t n)
{
    return b->n >= n && memcmp(b->p + b->n - n, s, n) == 0;
}

/* Normalizer::Normalize into out (cleared first). -1 on out-of-memory. */
static int normalize(const spm_model *m, const normspec *ns, int use_matcher,
                     const unsigned char *in, size_t n, sbuf *out)
{
    const char *ws = ns->escape_whitespaces ? SPACE_SYMBOL : " ";
    size_t wsn = ns->escape_whitespaces ? 3 : 1;
    const char *r;
    size_t rn, used;
    int prev_space;

    out->n = 0;
    if (n == 0)
        return 0;
    if (ns->remove_extra_whitespaces) {
        while (n) {
            used = normalize_prefix(m, ns, use_matcher, in, n, &r, &rn);
            if (!(rn == 1 && r[0] == ' '))
                break;
            in += used;
            n -= used;
        }
    }
    if (n == 0)
        return 0;
    if (sbuf_reserve(out, n * 3 + 8))
        return -1;
    if (!ns->treat_ws_as_suffix && ns->add_dummy_prefix && sbuf_put(out, ws, wsn))
        return -1;
    prev_space = ns->remove_extra_whitespaces;
    while (n) {
        used = normalize_prefix(m, ns, use_matcher, in, n, &r, &rn);
        if (prev_space)
            while (rn && r[0] == ' ') {
                r++;
                rn--;
            }
        if (rn) {
            if (sbuf_reserve(out, rn * 3))
                return -1;
            char *o = out->p + out->n;
            for (size_t k = 0; k < rn; k++) {
                if (r[k] == ' ' && ns->escape_whitespaces) {
                    memcpy(o, SPACE_SYMBOL, 3);
                    o += 3;
                } else {
                    *o++ = r[k];
                }
            }
            out->n = (size_t)(o - out->p);
            prev_space = r[rn - 1] == ' ';
        }
        in += used;
        n -= used;
        if (!ns->remove_extra_whitespaces)
            prev_space = 0;
    }
    if (ns->remove_extra_whitespaces)
        while (ends_with(out, ws, wsn))
            out->n -= wsn;
    if (ns->treat_ws_as_suffix && ns->add_dummy_prefix && sbuf_put(out, ws, wsn))
        return -1;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Encoders. Each turns the normalized text into segments (piece start, length, id). */

typedef struct {
    uint32_t start, len;
    int id;
} seg;

typedef struct {
    float score;   /* best path score ending here */
    int start;     /* where the last piece of that path starts; -1 when unreached */
    int id;
} vnode;

/* unigram::Model::EncodeOptimized. */
static size_t encode_unigram(const spm_model *m, const unsigned char *s, size_t n, vnode *v,
                             seg *out)
{
    const float unk_score = m->min_score - 10.0f; /* kUnkPenalty */
    size_t st = 0, k = 0;
    for (size_t i = 0; i <= n; i++) {
        v[i].score = 0.0f;
        v[i].start = -1;
        v[i].id = -1;
    }
    while (st < n) {
        const float till = v[st].score;
        size_t mblen = one_char_len(s[st]);
        int single = 0;
        uint32_t node = 0;
        if (mblen > n - st)
            mblen = n - st;
        for (size_t kp = st; kp < n;) {
            node = trie_child(&m->pieces, node, s[kp]);
            if (!node)
                break;
            kp++;
            int id = trie_value(&m->pieces, node);
            if (id < 0 || m->ptype[id] == PT_UNUSED)
                continue;
            size_t length = kp - st;
            /* The library's ternary makes the score a double: a double sum of two floats,
             * compared against the stored float, then rounded to float. */
            double score = m->ptype[id] == PT_USER ? (double)((float)length * m->max_score) - 0.1
                                                   : (double)m->score[id];
            double cand = score + (double)till;
            vnode *t = &v[kp];
            if (t->start == -1 || cand > (double)t->score) {
                t->score = (float)cand;
                t->start = (int)st;
                t->id = id;
            }
            if (length == mblen)
                single = 1;
        }
        if (!single) {
            vnode *t = &v[st + mblen];
            float cand = unk_score + till;
            if (t->start == -1 || cand > t->score) {
                t->score = cand;
                t->start = (int)st;
                t->id = m->unk;
            }
        }
        st += mblen;
    }
    for (size_t e = n; e > 0;) {
        const vnode *nd = &v[e];
        if (nd->start < 0 || (size_t)nd->start >= e)
            return (size_t)-1;
        out[k].start = (uint32_t)nd->start;
        out[k].len = (uint32_t)(e - (size_t)nd->start);
        out[k].id = nd->id;
        k++;
        e = (size_t)nd->start;
    }
    for (size_t i = 0; i < k / 2; i++) {
        seg t = out[i];
        out[i] = out[k - 1 - i];
        out[k - 1 - i] = t;
    }
    return k;
}

/* Length of the longest user-defined symbol at s (frozen in BPE), else one character. */
static size_t prefix_match(const spm_model *m, const unsigned char *s, size_t n, int *found)
{
    *found = 0;
    if (m->has_user) {
        size_t best = longest_user(m, s, n);
        if (best) {
            *found = 1;
            return best;
        }
    }
    size_t l = one_char_len(s[0]);
    return l < n ? l : n;
}

typedef struct {
    int prev, next;
    uint32_t start, len; /* len 0: merged into its left neighbour */
    uint32_t node;       /* the pieces-trie node of its text; 0 when no piece starts so */
    int freeze;
} bsym;

typedef struct {
    float score;
    int left, right;
    uint32_t size;
    uint32_t node;       /* the trie node of the merged text */
} bpair;

typedef struct {
    int id;                      /* the UNUSED piece */
    uint32_t ls, ll, rs, rl;     /* its left and right halves */
} brev;

typedef struct {
    bsym *sym;
    bpair *heap;
    size_t nheap;
    brev *rev;
    size_t nrev;
    const unsigned char *s;
} bpe_state;

/* Priority: higher score first, then the smaller left index. */
static inline int bpair_before(const bpair *a, const bpair *b)
{
    return b->score < a->score || (a->score == b->score && a->left < b->left);
}

static void heap_push(bpe_state *st, bpair p)
{
    size_t i = st->nheap++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!bpair_before(&p, &st->heap[up]))
            break;
        st->heap[i] = st->heap[up];
        i = up;
    }
    st->heap[i] = p;
}

static bpair heap_pop(bpe_state *st)
{
    bpair top = st->heap[0], last = st->heap[--st->nheap];
    size_t i = 0, n = st->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && bpair_before(&st->heap[c + 1], &st->heap[c]))
            c++;
        if (!bpair_before(&st->heap[c], &last))
            break;
        st->heap[i] = st->heap[c];
        i = c;
    }
    if (n)
        st->heap[i] = last;
    return top;
}

/* The pair's text is looked up by walking the right symbol's bytes on from the left symbol's
 * trie node. */
static void bpe_maybe_add(const spm_model *m, bpe_state *st, int left, int right)
{
    if (left < 0 || right < 0 || st->sym[left].freeze || st->sym[right].freeze)
        return;
    uint32_t node = st->sym[left].node;
    const unsigned char *r = st->s + st->sym[right].start;
    if (!node)
        return;
    for (uint32_t k = 0; k < st->sym[right].len; k++) {
        node = trie_child(&m->pieces, node, r[k]);
        if (!node)
            return;
    }
    int id = trie_value(&m->pieces, node);
    if (id < 0)
        return;
    uint32_t size = st->sym[left].len + st->sym[right].len;
    bpair p = {m->score[id], left, right, size, node};
    heap_push(st, p);
    if (m->ptype[id] == PT_UNUSED) {
        brev rv = {id, st->sym[left].start, st->sym[left].len, st->sym[right].start,
                   st->sym[right].len};
        st->rev[st->nrev++] = rv;
    }
}

/* bpe::Model::SampleEncode without dropout. stack has room for n entries. */
static size_t encode_bpe(const spm_model *m, const unsigned char *s, size_t n, bpe_state *st,
                         seg *out, uint32_t *stack)
{
    size_t nsym = 0, k = 0;
    st->s = s;
    st->nheap = 0;
    st->nrev = 0;
    for (size_t pos = 0; pos < n;) {
        int found;
        size_t l = prefix_match(m, s + pos, n - pos, &found);
        bsym *y = &st->sym[nsym];
        y->start = (uint32_t)pos;
        y->len = (uint32_t)l;
        y->freeze = found;
        y->node = 0;
        for (size_t q = 0; q < l; q++) {
            y->node = trie_child(&m->pieces, q ? y->node : 0, s[pos + q]);
            if (!y->node)
                break;
        }
        y->prev = nsym == 0 ? -1 : (int)nsym - 1;
        pos += l;
        y->next = pos < n ? (int)nsym + 1 : -1;
        nsym++;
    }
    if (nsym == 0)
        return 0;
    for (size_t i = 1; i < nsym; i++)
        bpe_maybe_add(m, st, (int)i - 1, (int)i);
    while (st->nheap) {
        bpair top = heap_pop(st);
        bsym *l = &st->sym[top.left], *r = &st->sym[top.right];
        if (l->len == 0 || r->len == 0 || l->len + r->len != top.size)
            continue;
        l->len += r->len;
        l->node = top.node;
        l->next = r->next;
        if (r->next >= 0)
            st->sym[r->next].prev = top.left;
        r->len = 0;
        bpe_maybe_add(m, st, l->prev, top.left);
        bpe_maybe_add(m, st, top.left, l->next);
    }
    for (int i = 0; i != -1; i = st->sym[i].next) {
        /* resegment: UNUSED pieces split back into the pair that made them. */
        size_t sp = 0;
        int id = st->sym[i].node ? trie_value(&m->pieces, st->sym[i].node) : -1;
        /* PieceToId: a normal piece unless a reserved one has the same text (canon) */
        id = id >= 0 ? m->canon[id] : piece_to_id(m, s + st->sym[i].start, st->sym[i].len);
        if (!m->has_unused || m->ptype[id] != PT_UNUSED) {
            out[k].start = st->sym[i].start;
            out[k].len = st->sym[i].len;
            out[k].id = id;
            k++;
            continue;
        }
        stack[sp++] = st->sym[i].start;
        stack[sp++] = st->sym[i].len;
        while (sp) {
            uint32_t wl = stack[--sp], ws = stack[--sp];
            id = piece_to_id(m, s + ws, wl);
            const brev *rv = NULL;
            if (m->has_unused && id >= 0 && m->ptype[id] == PT_UNUSED) {
                for (size_t q = st->nrev; q-- > 0;)
                    if (st->rev[q].id == id) {
                        rv = &st->rev[q];
                        break;
                    }
            }
            if (!rv) {
                out[k].start = ws;
                out[k].len = wl;
                out[k].id = id;
                k++;
            } else {
                stack[sp++] = rv->rs;
                stack[sp++] = rv->rl;
                stack[sp++] = rv->ls;
                stack[sp++] = rv->ll;
            }
        }
    }
    return k;
}

/* char::Model::Encode. */
static size_t encode_char(const spm_model *m, const unsigned char *s, size_t n, seg *out)
{
    size_t k = 0;
    for (size_t pos = 0; pos < n;) {
        int found;
        size_t l = prefix_match(m, s + pos, n - pos, &found);
        out[k].start = (uint32_t)pos;
        out[k].len = (uint32_t)l;
        out[k].id = piece_to_id(m, s + pos, l);
        k++;
        pos += l;
    }
    return k;
}

/* word::Model::Encode: SplitIntoWords (a word begins at the start and at each U+2581). */
static size_t encode_word(const spm_model *m, const unsigned char *s, size_t n, seg *out)
{
    size_t k = 0, begin = 0;
    for (size_t pos = 0; pos < n;) {
        size_t l = one_char_len(s[pos]);
        if (l > n - pos)
            l = n - pos;
        if (pos > 0 && l == 3 && memcmp(s + pos, SPACE_SYMBOL, 3) == 0) {
            out[k].start = (uint32_t)begin;
            out[k].len = (uint32_t)(pos - begin);
            out[k].id = piece_to_id(m, s + begin, pos - begin);
            k++;
            begin = pos;
        }
        pos += l;
    }
    if (n) {
        out[k].start = (uint32_t)begin;
        out[k].len = (uint32_t)(n - begin);
        out[k].id = piece_to_id(m, s + begin, n - begin);
        k++;
    }
    return k;
}

/* spm_encode, and with pieces != NULL also the pieces as the library's EncodeAsPieces gives
 * them: each piece's text in the normalized input (consecutive unknown ones merged), a byte
 * fallback piece's own name. */
static int encode_impl(const spm_model *m, const char *text, size_t len, int **ids, int *n,
                       sbuf *pieces, size_t **offs, char *err, size_t errlen)
{
    sbuf norm = {0};
    seg *segs = NULL;
    void *scratch = NULL;
    int *res = NULL;
    size_t nn, nseg = 0, nids = 0;
    const unsigned char *s;

    *ids = NULL;
    *n = 0;
    if (len == 0)
        return 0;
    if (normalize(m, &m->norm, 1, (const unsigned char *)text, len, &norm))
        goto oom;
    nn = norm.n;
    s = (const unsigned char *)norm.p;
    if (nn == 0)
        goto done;
    if (nn > MAX_TEXT) {
        free(norm.p);
        return xerr(err, errlen, "spm_encode: sentence too long (%zu bytes after normalization)",
                    nn);
    }
    segs = malloc(nn * sizeof *segs);
    if (!segs)
        goto oom;
    switch (m->type) {
    case MT_BPE: {
        size_t symsz = nn * sizeof(bsym), heapsz = (3 * nn + 1) * sizeof(bpair);
        size_t revsz = m->has_unused ? (3 * nn + 1) * sizeof(brev) : 0;
        size_t stsz = (2 * nn + 4) * sizeof(uint32_t);
        bpe_state st = {0};
        scratch = malloc(symsz + heapsz + revsz + stsz + 64);
        if (!scratch)
            goto oom;
        /* all parts are multiples of 4 and bpair/bsym/brev need only 4-byte alignment */
        st.sym = scratch;
        st.heap = (bpair *)(void *)((char *)scratch + symsz);
        st.rev = (brev *)(void *)((char *)scratch + symsz + heapsz);
        nseg = encode_bpe(m, s, nn, &st, segs,
                          (uint32_t *)(void *)((char *)scratch + symsz + heapsz + revsz));
        break;
    }
    case MT_WORD:
        nseg = encode_word(m, s, nn, segs);
        break;
    case MT_CHAR:
        nseg = encode_char(m, s, nn, segs);
        break;
    default:
        scratch = malloc((nn + 1) * sizeof(vnode));
        if (!scratch)
            goto oom;
        nseg = encode_unigram(m, s, nn, scratch, segs);
        if (nseg == (size_t)-1)
            goto done; /* cannot happen with a consistent model: the library fails too */
        break;
    }

    /* SentencePieceProcessor::PopulateSentencePieceText. */
    {
        size_t consumed = 0, count = 0;
        int prev_unk = 0;
        for (size_t i = 0; i < nseg; i++) {
            int id = segs[i].id, unk = m->ptype[id] == PT_UNKNOWN;
            if (segs[i].len == 0)
                goto done; /* "Empty piece is not allowed." */
            if (m->ptype[id] == PT_CONTROL) {
                count++;
            } else {
                if (unk && m->byte_fallback)
                    count += segs[i].len;
                else if (!(prev_unk && unk))
                    count++;
                consumed += segs[i].len;
            }
            prev_unk = unk;
        }
        if (consumed != nn || count > MAX_TEXT)
            goto done; /* the library returns an error status, hence no ids */
        res = malloc(count * sizeof *res);
        if (!res || (pieces && !(*offs = malloc((count + 1) * sizeof **offs))))
            goto oom;
        prev_unk = 0;
        for (size_t i = 0; i < nseg; i++) {
            int id = segs[i].id, unk = m->ptype[id] == PT_UNKNOWN;
            const char *surf = (const char *)s + segs[i].start;
            if (m->ptype[id] == PT_CONTROL) {
                if (pieces) {
                    (*offs)[nids] = pieces->n;
                    if (sbuf_put(pieces, m->strs + m->off[id], m->len[id]))
                        goto oom;
                }
                res[nids++] = id;
            } else if (unk && m->byte_fallback) {
                for (uint32_t j = 0; j < segs[i].len; j++) {
                    int b = m->byte_id[s[segs[i].start + j]];
                    if (pieces) {
                        (*offs)[nids] = pieces->n;
                        if (sbuf_put(pieces, m->strs + m->off[b], m->len[b]))
                            goto oom;
                    }
                    res[nids++] = b;
                }
            } else if (!(prev_unk && unk)) {
                if (pieces) {
                    (*offs)[nids] = pieces->n;
                    if (sbuf_put(pieces, surf, segs[i].len))
                        goto oom;
                }
                res[nids++] = id;
            } else if (pieces && sbuf_put(pieces, surf, segs[i].len)) {
                goto oom; /* a merged unknown piece grows */
            }
            prev_unk = unk;
        }
        if (pieces)
            (*offs)[nids] = pieces->n;
    }
done:
    free(norm.p);
    free(segs);
    free(scratch);
    if (nids == 0) {
        free(res);
        res = NULL;
    }
    *ids = res;
    *n = (int)nids;
    return 0;
oom:
    free(norm.p);
    free(segs);
    free(scratch);
    free(res);
    return xerr(err, errlen, "spm_encode: out of memory encoding %zu bytes", len);
}

int spm_encode(const spm_model *m, const char *text, size_t len, int **ids, int *n, char *err,
               size_t errlen)
{
    return encode_impl(m, text, len, ids, n, NULL, NULL, err, errlen);
}

int spm_encode_pieces(const spm_model *m, const char *text, size_t len, char **buf,
                      size_t **offs, int *n, char *err, size_t errlen)
{
    sbuf pieces = {0};
    int *ids = NULL;
    *offs = NULL;
    *buf = NULL;
    if (encode_impl(m, text, len, &ids, n, &pieces, offs, err, errlen)) {
        free(pieces.p);
        free(*offs);
        *offs = NULL;
        return -1;
    }
    free(ids);
    if (*n == 0) {
        free(*offs);
        *offs = NULL;
    }
    *buf = pieces.p;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Decoder: SentencePieceProcessor::Decode. */

/* Appends a run of byte pieces: each well-formed character as is, each other byte as U+FFFD. */
static int flush_bytes(sbuf *out, const unsigned char *b, size_t n)
{
    for (size_t off = 0; off < n;) {
        size_t mblen;
        if (utf8_valid(b + off, n - off, &mblen)) {
            if (sbuf_put(out, b + off, mblen))
                return -1;
        } else if (sbuf_put(out, REPLACEMENT_CHAR, 3)) {
            return -1;
        }
        off += mblen;
    }
    return 0;
}

/* Decode of ids, or (ids NULL) of pieces: piece i is pieces[offs[i], offs[i+1]). */
static int decode_impl(const spm_model *m, const int *ids, const char *pieces, const size_t *offs,
                       int n, char **text, size_t *len, char *err, size_t errlen)
{
    sbuf out = {0}, bytes = {0}, den = {0};
    int is_bos_ws = 1, bos_ws_seen = 0;
    const normspec *ns = &m->norm;

    *text = NULL;
    if (len)
        *len = 0;
    for (int i = 0; ids && i < n; i++)
        if (ids[i] < 0 || ids[i] >= m->n)
            return xerr(err, errlen, "id %d (at position %d) is out of range [0, %d)", ids[i],
                        i, m->n);
    for (int i = 0; i < n; i++) {
        int id, t, literal = 0;
        const char *p;
        size_t pl;
        if (ids) {
            id = m->canon[ids[i]];
        } else {
            /* PieceToId; a piece the model lacks is written as it is (the library's Decode) */
            const char *q = pieces + offs[i];
            size_t ql = offs[i + 1] - offs[i];
            id = m->canon[piece_to_id(m, (const unsigned char *)q, ql)];
            if (m->ptype[id] == PT_UNKNOWN &&
                !(ql == m->len[id] && memcmp(q, m->strs + m->off[id], ql) == 0)) {
                literal = 1;
                p = q;
                pl = ql;
            }
        }
        t = m->ptype[id];
        if (!literal) {
            p = m->strs + m->off[id];
            pl = m->len[id];
        }
        if (literal) {
            if (bytes.n) {
                if (flush_bytes(&out, (const unsigned char *)bytes.p, bytes.n))
                    goto oom;
                bytes.n = 0;
            }
            bos_ws_seen = 0;
            if (sbuf_put(&out, p, pl))
                goto oom;
            continue;
        }
        if (t == PT_BYTE) {
            if (sbuf_put(&bytes, &m->byteval[id], 1))
                goto oom;
            continue;
        }
        if (bytes.n) {
            if (flush_bytes(&out, (const unsigned char *)bytes.p, bytes.n))
                goto oom;
            bytes.n = 0;
        }
        if (bos_ws_seen || out.n)
            is_bos_ws = 0;
        bos_ws_seen = 0;
        if (t == PT_CONTROL)
            continue;
        if (t == PT_UNKNOWN) {
            if (sbuf_put(&out, m->unk_surface, m->unk_surface_len))
                goto oom;
            continue;
        }
        if (is_bos_ws && (ns->add_dummy_prefix || ns->remove_extra_whitespaces)) {
            if (pl >= 3 && memcmp(p, SPACE_SYMBOL, 3) == 0) {
                p += 3;
                pl -= 3;
                bos_ws_seen = !ns->remove_extra_whitespaces;
            }
        }
        if (sbuf_reserve(&out, pl))
            goto oom;
        for (size_t k = 0; k < pl;) {
            if (pl - k >= 3 && memcmp(p + k, SPACE_SYMBOL, 3) == 0) {
                out.p[out.n++] = ' ';
                k += 3;
            } else {
                out.p[out.n++] = p[k++];
            }
        }
    }
    if (bytes.n && flush_bytes(&out, (const unsigned char *)bytes.p, bytes.n))
        goto oom;
    free(bytes.p);
    bytes.p = NULL;
    if (m->has_denorm) {
        if (m->denorm.broken)
            out.n = 0;
        else if (normalize(m, &m->denorm, 0, (const unsigned char *)out.p, out.n, &den))
            goto oom;
        else {
            free(out.p);
            out = den;
            den.p = NULL;
        }
    }
    if (sbuf_put(&out, "", 1))
        goto oom;
    *text = out.p;
    if (len)
        *len = out.n - 1;
    return 0;
oom:
    free(out.p);
    free(bytes.p);
    free(den.p);
    return xerr(err, errlen, "spm_decode: out of memory decoding %d ids", n);
}

int spm_decode(const spm_model *m, const int *ids, int n, char **text, size_t *len, char *err,
               size_t errlen)
{
    return decode_impl(m, ids, NULL, NULL, n, text, len, err, errlen);
}

int spm_decode_pieces(const spm_model *m, const char *pieces, const size_t *offs, int n,
                      char **text, size_t *len, char *err, size_t errlen)
{
    return decode_impl(m, NULL, pieces, offs, n, text, len, err, errlen);
}
