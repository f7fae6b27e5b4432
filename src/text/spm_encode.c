/* spm_encode.c — text to ids (spm_encode): normalize, split into pieces (char, word, unigram
 * or BPE), then populate as SentencePieceProcessor does: runs of <unk> merge into one id, or
 * become <0xXX> byte ids with byte_fallback. Scratch lives on the call. */
#include "text/spm_internal.h"
#include "base/util.h"

/* char::Model::Encode. */
static size_t encode_char(const spm_model *m, const unsigned char *s, size_t n, seg *out)
{
    size_t k = 0;
    for (size_t pos = 0; pos < n;) {
        int found;
        size_t l = spm_prefix_match(m, s + pos, n - pos, &found);
        out[k].start = (uint32_t)pos;
        out[k].len = (uint32_t)l;
        out[k].id = spm_piece_to_id(m, s + pos, l);
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
            out[k].id = spm_piece_to_id(m, s + begin, pos - begin);
            k++;
            begin = pos;
        }
        pos += l;
    }
    if (n) {
        out[k].start = (uint32_t)begin;
        out[k].len = (uint32_t)(n - begin);
        out[k].id = spm_piece_to_id(m, s + begin, n - begin);
        k++;
    }
    return k;
}

/* The spans of the ids that the populate loop of encode_impl makes of segs (the same walk):
 * a segment covers the original bytes from the rule that wrote its first normalized byte to the
 * rule that wrote the next segment's first (al [normalized length + 1]: norm_to_orig). A control
 * piece covers nothing; the byte pieces of an unknown segment all [begin, begin) but the last;
 * a run of unknown pieces that merges into one id covers the run. sp [2 * ids]. */
static void fill_spans(const spm_model *m, const seg *segs, size_t nseg, const uint32_t *al,
                       int *sp)
{
    size_t nids = 0;
    int prev_unk = 0;
    for (size_t i = 0; i < nseg; i++) {
        int id = segs[i].id, unk = m->ptype[id] == PT_UNKNOWN;
        int ob = (int)al[segs[i].start], oe = (int)al[segs[i].start + segs[i].len];
        size_t add = unk && m->byte_fallback ? segs[i].len : !(prev_unk && unk);
        if (m->ptype[id] == PT_CONTROL)
            oe = ob;
        if (add == 0)
            sp[2 * nids - 1] = oe; /* a merged unknown piece grows */
        for (size_t k = 0; k < add; k++, nids++) {
            sp[2 * nids] = ob;
            sp[2 * nids + 1] = k + 1 == add ? oe : ob;
        }
        prev_unk = unk;
    }
}

/* spm_encode, and with pieces != NULL also the pieces as the library's EncodeAsPieces gives
 * them: each piece's text in the normalized input (consecutive unknown ones merged), a byte
 * fallback piece's own name; with spans != NULL also each id's [begin, end) in text, as the
 * library's PopulateSentencePieceText sets them (*spans malloc'd, [2 * *n]; len <= MAX_TEXT). */
static int encode_impl(const spm_model *m, const char *text, size_t len, int **ids, int *n,
                       sbuf *pieces, size_t **offs, int **spans, char *err, size_t errlen)
{
    sbuf norm = {0};
    seg *segs = NULL;
    void *scratch = NULL;
    int *res = NULL, *sp = NULL;
    uint32_t *al = NULL; /* [norm.n + 1] norm_to_orig, only when spans are asked for */
    size_t nn, nseg = 0, nids = 0;
    const unsigned char *s;

    *ids = NULL;
    *n = 0;
    if (spans)
        *spans = NULL;
    if (len == 0)
        return 0;
    if (spans ? spm_normalize_aligned(m, &m->norm, 1, (const unsigned char *)text, len, &norm,
                                      &al)
              : spm_normalize(m, &m->norm, 1, (const unsigned char *)text, len, &norm))
        goto oom;
    nn = norm.n;
    s = (const unsigned char *)norm.p;
    if (nn == 0)
        goto done;
    if (nn > MAX_TEXT) {
        free(norm.p);
        free(al);
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
        nseg = spm_encode_bpe(m, s, nn, &st, segs,
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
        nseg = spm_encode_unigram(m, s, nn, scratch, segs);
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
        if (!res || (pieces && !(*offs = malloc((count + 1) * sizeof **offs))) ||
            (spans && !(sp = malloc(2 * count * sizeof *sp))))
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
        if (sp)
            fill_spans(m, segs, nseg, al, sp);
    }
done:
    free(norm.p);
    free(segs);
    free(scratch);
    if (spans) {
        free(al);
        if (nids == 0) {
            free(sp);
            sp = NULL;
        }
    }
    if (nids == 0) {
        free(res);
        res = NULL;
    }
    *ids = res;
    if (spans)
        *spans = sp;
    *n = (int)nids;
    return 0;
oom:
    free(norm.p);
    free(segs);
    free(scratch);
    free(al);
    free(res);
    free(sp);
    return xerr(err, errlen, "spm_encode: out of memory encoding %zu bytes", len);
}

int spm_encode(const spm_model *m, const char *text, size_t len, int **ids, int *n, char *err,
               size_t errlen)
{
    return encode_impl(m, text, len, ids, n, NULL, NULL, NULL, err, errlen);
}

int spm_encode_spans(const spm_model *m, const char *text, size_t len, int **ids, int **spans,
                     int *n, char *err, size_t errlen)
{
    *ids = NULL;
    *spans = NULL;
    *n = 0;
    if (len > MAX_TEXT)
        return xerr(err, errlen, "spm_encode: text of %zu bytes: spans are ints, at most %zu",
                    len, (size_t)MAX_TEXT);
    return encode_impl(m, text, len, ids, n, NULL, NULL, spans, err, errlen);
}

int spm_encode_pieces(const spm_model *m, const char *text, size_t len, char **buf,
                      size_t **offs, int **spans, int *n, char *err, size_t errlen)
{
    sbuf pieces = {0};
    int *ids = NULL;
    *offs = NULL;
    *buf = NULL;
    if (spans && len > MAX_TEXT) {
        *n = 0;
        *spans = NULL;
        return xerr(err, errlen, "spm_encode: text of %zu bytes: spans are ints, at most %zu",
                    len, (size_t)MAX_TEXT);
    }
    if (encode_impl(m, text, len, &ids, n, &pieces, offs, spans, err, errlen)) {
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
