/* spm_decode.c — ids to text: SentencePieceProcessor::Decode (control pieces dropped, U+2581 to
 * space, byte pieces reassembled into UTF-8, the denormalizer when the model has one). */
#include "text/spm_internal.h"
#include "base/util.h"

/* Appends a run of byte pieces: each well-formed character as is, each other byte as U+FFFD.
 * sp != NULL: the spans of the run's pieces ([2 * n]), as the library's ProcessBytePieces: the
 * last piece of a character gets the character, the others [pos, pos) before it. */
static int flush_bytes(sbuf *out, const unsigned char *b, size_t n, int *sp)
{
    for (size_t off = 0; off < n;) {
        size_t mblen, at = out->n;
        if (utf8_valid(b + off, n - off, &mblen)) {
            if (sbuf_put(out, b + off, mblen))
                return -1;
        } else if (sbuf_put(out, REPLACEMENT_CHAR, 3)) {
            return -1;
        }
        for (size_t j = 0; sp && j < mblen; j++) {
            sp[2 * (off + j)] = (int)at;
            sp[2 * (off + j) + 1] = (int)(j + 1 == mblen ? out->n : at);
        }
        off += mblen;
    }
    return 0;
}

/* The offset in the denormalized text of offset p of its input: the first byte written from
 * input at or after p (align [nout + 1], non-decreasing; see spm_normalize_aligned). */
static size_t denorm_pos(const uint32_t *align, size_t nout, size_t p)
{
    size_t lo = 0, hi = nout;
    if (!align || nout == 0)
        return 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (align[mid] >= p)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Decode of ids, or (ids NULL) of pieces: piece i is pieces[offs[i], offs[i+1]). With spans
 * != NULL also each piece's [begin, end) in the text (*spans [2 * n], malloc'd, NULL when
 * n == 0): what SetSurface of the library's Decode records, then moved through the
 * denormalizer's alignment when the model has one (the library leaves them in the text before
 * denormalization). always_inline: each entry point gets its own copy, and spm_decode's, with
 * spans = NULL, keeps no trace of the spans (the fast path's speed). */
#ifdef __GNUC__
__attribute__((always_inline))
#endif
static inline int decode_impl(const spm_model *m, const int *ids, const char *pieces, const size_t *offs,
                       int n, char **text, size_t *len, int **spans, char *err, size_t errlen)
{
    sbuf out = {0}, bytes = {0}, den = {0};
    int is_bos_ws = 1, bos_ws_seen = 0, bstart = 0, *sp = NULL;
    uint32_t *al = NULL;
    const normspec *ns = &m->norm;

    *text = NULL;
    if (len)
        *len = 0;
    if (spans)
        *spans = NULL;
    for (int i = 0; ids && i < n; i++)
        if (ids[i] < 0 || ids[i] >= m->n)
            return xerr(err, errlen, "id %d (at position %d) is out of range [0, %d)", ids[i],
                        i, m->n);
    if (spans && n > 0 && !(sp = malloc(2 * (size_t)n * sizeof *sp)))
        goto oom;
    for (int i = 0; i < n; i++) {
        size_t at;
        int id, t, literal = 0;
        const char *p;
        size_t pl;
        if (ids) {
            id = m->canon[ids[i]];
        } else {
            /* PieceToId; a piece the model lacks is written as it is (the library's Decode) */
            const char *q = pieces + offs[i];
            size_t ql = offs[i + 1] - offs[i];
            id = m->canon[spm_piece_to_id(m, (const unsigned char *)q, ql)];
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
        if (t == PT_BYTE) {
            if (!bytes.n)
                bstart = i;
            if (sbuf_put(&bytes, &m->byteval[id], 1))
                goto oom;
            continue;
        }
        if (bytes.n) {
            if (flush_bytes(&out, (const unsigned char *)bytes.p, bytes.n,
                            sp ? sp + 2 * bstart : NULL))
                goto oom;
            bytes.n = 0;
        }
        at = out.n;
        if (sp) /* what piece i writes below is out[at, out.n) */
            sp[2 * i] = sp[2 * i + 1] = (int)at;
        if (literal) {
            bos_ws_seen = 0;
            if (sbuf_put(&out, p, pl))
                goto oom;
            if (sp)
                sp[2 * i + 1] = (int)out.n;
            continue;
        }
        if (bos_ws_seen || out.n)
            is_bos_ws = 0;
        bos_ws_seen = 0;
        if (t == PT_CONTROL)
            continue;
        if (t == PT_UNKNOWN) {
            if (sbuf_put(&out, m->unk_surface, m->unk_surface_len))
                goto oom;
            if (sp)
                sp[2 * i + 1] = (int)out.n;
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
        if (sp)
            sp[2 * i + 1] = (int)out.n;
    }
    if (bytes.n && flush_bytes(&out, (const unsigned char *)bytes.p, bytes.n,
                               sp ? sp + 2 * bstart : NULL))
        goto oom;
    free(bytes.p);
    bytes.p = NULL;
    if (sp && out.n > (size_t)INT_MAX - 64) {
        free(out.p);
        free(sp);
        return xerr(err, errlen, "spm_decode: text of %zu bytes: spans are ints", out.n);
    }
    if (m->has_denorm) {
        if (m->denorm.broken)
            out.n = 0;
        else if (sp ? spm_normalize_aligned(m, &m->denorm, 0, (const unsigned char *)out.p, out.n,
                                            &den, &al)
                    : spm_normalize(m, &m->denorm, 0, (const unsigned char *)out.p, out.n, &den))
            goto oom;
        else {
            free(out.p);
            out = den;
            den.p = NULL;
        }
        for (int i = 0; sp && i < 2 * n; i++)
            sp[i] = (int)denorm_pos(al, out.n, (size_t)sp[i]);
    }
    if (sbuf_put(&out, "", 1))
        goto oom;
    free(al);
    *text = out.p;
    if (len)
        *len = out.n - 1;
    if (spans)
        *spans = sp;
    return 0;
oom:
    free(out.p);
    free(bytes.p);
    free(den.p);
    free(al);
    free(sp);
    return xerr(err, errlen, "spm_decode: out of memory decoding %d ids", n);
}

int spm_decode(const spm_model *m, const int *ids, int n, char **text, size_t *len, char *err,
               size_t errlen)
{
    return decode_impl(m, ids, NULL, NULL, n, text, len, NULL, err, errlen);
}

int spm_decode_spans(const spm_model *m, const int *ids, int n, char **text, size_t *len,
                     int **spans, char *err, size_t errlen)
{
    return decode_impl(m, ids, NULL, NULL, n, text, len, spans, err, errlen);
}

int spm_decode_pieces(const spm_model *m, const char *pieces, const size_t *offs, int n,
                      char **text, size_t *len, char *err, size_t errlen)
{
    return decode_impl(m, NULL, pieces, offs, n, text, len, NULL, err, errlen);
}
