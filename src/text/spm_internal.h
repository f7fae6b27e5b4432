/* spm_internal.h — what the files of the SentencePiece tokenizer share (text/spm*.c): the model
 * as loaded, the piece tries, the byte buffer, UTF-8 as the library sees it, the segments the
 * encoders produce. Not for use outside src/text/: the interface is spm.h.
 *
 * The files, by concern (each calls only those below it in this list):
 *   spm_model.c      the .model (protobuf) reader and loader, spm_free, the accessors
 *   spm_decode.c     ids to text (SentencePieceProcessor::Decode)
 *   spm_encode.c     text to ids: normalize, split (char, word, or the two below), populate
 *   spm_unigram.c    unigram: the library's single-pass Viterbi
 *   spm_bpe.c        BPE: merge the best-scoring adjacent pair until none applies
 *   spm_normalize.c  the normalizer (precompiled charsmap, user symbols, whitespace)
 *   spm_trie.c       the double-array tries of the pieces: build, lookup, PieceToId */
#ifndef XLATE_SPM_INTERNAL_H
#define XLATE_SPM_INTERNAL_H
#include "text/spm.h"
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { PT_NORMAL = 1, PT_UNKNOWN = 2, PT_CONTROL = 3, PT_USER = 4, PT_UNUSED = 5, PT_BYTE = 6 };
enum { MT_UNIGRAM = 1, MT_BPE = 2, MT_WORD = 3, MT_CHAR = 4 };

#define SPACE_SYMBOL "\xe2\x96\x81" /* U+2581 */
#define REPLACEMENT_CHAR "\xef\xbf\xbd" /* U+FFFD */
#define MAX_TEXT ((size_t)INT_MAX - 64) /* normalized lengths and id counts must fit an int */

/* Growable byte buffer. */

typedef struct {
    char *p;
    size_t n, cap;
} sbuf;

static inline int sbuf_reserve(sbuf *b, size_t extra)
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

static inline int sbuf_put(sbuf *b, const void *d, size_t n)
{
    if (sbuf_reserve(b, n))
        return -1;
    if (n)
        memcpy(b->p + b->n, d, n);
    b->n += n;
    return 0;
}

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

/* Piece lookup: a double-array trie (spm_trie.c). Node 0 is the root; the child of node s by
 * byte c is t = base[s] + c when check[t] == s. One step reads two neighbouring words and
 * allocates nothing. It is built at load from the sorted pieces. */

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

/* The child of node by byte c, or 0 when there is none (the root is nobody's child). */
static inline uint32_t trie_child(const trie *t, uint32_t node, unsigned char c)
{
    uint32_t x = t->u[node].base + c;
    return (x < t->size && t->u[x].check == node) ? x : 0;
}

static inline int trie_value(const trie *t, uint32_t node) { return t->u[node].value; }

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

/* spm_trie.c */
void spm_trie_free(trie *t);
/* Exact lookup: the value stored for s[0..n), or -1. */
int spm_trie_find(const trie *t, const unsigned char *s, size_t n);
/* Builds the double array of the pieces of m whose type `want` accepts. 0, or -1 out of memory. */
int spm_trie_build(trie *t, const spm_model *m, int (*want)(int type));
/* ModelInterface::PieceToId: reserved pieces first, then normal ones, else <unk>. */
int spm_piece_to_id(const spm_model *m, const unsigned char *s, size_t n);

/* spm_normalize.c */
/* Normalizer::Normalize of s[0..n) with ns into out (cleared first). -1 on out-of-memory. */
int spm_normalize(const spm_model *m, const normspec *ns, int use_matcher,
                  const unsigned char *in, size_t n, sbuf *out);
/* The same, and *align (malloc'd, [out->n + 1] when out->n > 0, else maybe NULL): the
 * library's norm_to_orig, for each normalized byte the offset in `in` of the rule that wrote it,
 * last the end of the consumed input. n must be <= UINT32_MAX. -1 on out-of-memory. */
int spm_normalize_aligned(const spm_model *m, const normspec *ns, int use_matcher,
                          const unsigned char *in, size_t n, sbuf *out, uint32_t **align);
/* Length of the longest user-defined symbol that s[0..n) starts with; 0 when none does. */
size_t spm_longest_user(const spm_model *m, const unsigned char *s, size_t n);
/* Length of the longest user-defined symbol at s (frozen in BPE), else one character. */
size_t spm_prefix_match(const spm_model *m, const unsigned char *s, size_t n, int *found);

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

/* spm_unigram.c: unigram::Model::EncodeOptimized over v[n + 1]; (size_t)-1 when no path. */
size_t spm_encode_unigram(const spm_model *m, const unsigned char *s, size_t n, vnode *v,
                          seg *out);
/* spm_bpe.c: bpe::Model::Encode; st and stack are the caller's scratch (spm_encode). */
size_t spm_encode_bpe(const spm_model *m, const unsigned char *s, size_t n, bpe_state *st,
                      seg *out, uint32_t *stack);

#endif
