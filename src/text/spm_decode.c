/* spm_decode.c — ids to text: SentencePieceProcessor::Decode (control pieces dropped, U+2581 to
 * space, byte pieces reassembled into UTF-8, the denormalizer when the model has one). */
#include "text/spm_internal.h"
#include "base/util.h"

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
        else if (spm_normalize(m, &m->denorm, 0, (const unsigned char *)out.p, out.n, &den))
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
