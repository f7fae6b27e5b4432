/* xlate_text.c — the library's text side: a model's tokenizers (SentencePiece, a Hugging Face
 * vocabulary, M2M100 / NLLB) turn text into ids and ids back into text, whole or with each
 * token's byte span (for alignments and documents). */
#include "xlate_impl.h"
#include "base/util.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

int xlate_tokenize(const xlate_model *m, const char *text, size_t len, int **ids, int *n,
                   char *err, size_t errlen)
{
    if (m->has_m2m)
        return m2m_tok_encode(&m->m2m, text, len, ids, NULL, n, err, errlen);
    if (m->has_hf)
        return hf_tok_encode(&m->hf, text, len, ids, n, err, errlen);
    if (!m->src_spm)
        return xerr(err, errlen, "the model has no tokenizer (config field \"tokenizer\"): "
                    "give source ids");
    return spm_encode(m->src_spm, text, len, ids, n, err, errlen);
}

int xlate_tokenize_target(const xlate_model *m, const char *text, size_t len, int **ids, int *n,
                          char *err, size_t errlen)
{
    if (m->has_hf)
        return hf_tok_encode_target(&m->hf, text, len, ids, n, err, errlen);
    if (!m->tgt_spm)
        return xerr(err, errlen, "the model has no tokenizer (config field \"tokenizer\"): "
                    "give target ids");
    return spm_encode(m->tgt_spm, text, len, ids, n, err, errlen);
}

int xlate_tokenize_spans(const xlate_model *m, const char *text, size_t len, int **ids,
                         int **spans, int *n, char *err, size_t errlen)
{
    *ids = NULL;
    *spans = NULL;
    *n = 0;
    if (len > (size_t)INT_MAX - 64)
        return xerr(err, errlen, "text of %zu bytes: spans are ints, at most %d", len,
                    INT_MAX - 64);
    if (m->has_m2m)
        return m2m_tok_encode(&m->m2m, text, len, ids, spans, n, err, errlen);
    if (m->has_hf)
        return hf_tok_encode_spans(&m->hf, text, len, ids, spans, n, err, errlen);
    if (!m->src_spm)
        return xerr(err, errlen, "the model has no tokenizer (config field \"tokenizer\"): "
                    "give source ids");
    return spm_encode_spans(m->src_spm, text, len, ids, spans, n, err, errlen);
}

int xlate_detokenize(const xlate_model *m, const int *ids, int n, char **text, char *err,
                     size_t errlen)
{
    size_t len;
    if (m->has_m2m)
        return m2m_tok_decode(&m->m2m, ids, n, text, err, errlen);
    if (m->has_hf)
        return hf_tok_decode(&m->hf, ids, n, text, err, errlen);
    if (!m->tgt_spm)
        return xerr(err, errlen, "the model has no tokenizer (config field \"tokenizer\"): "
                    "use the target ids");
    return spm_decode(m->tgt_spm, ids, n, text, &len, err, errlen);
}

/* MarianTokenizer's decode joins, replaces, strips and cleans up the whole text, so a token's
 * bytes are defined by what it adds: token k covers the bytes the text of ids[0..k] has beyond
 * the text of ids[0..k-1], both measured as the prefix they share with the whole text (a space
 * that only the next token keeps from the strip falls to that token), then trimmed of leading
 * whitespace: in order, never overlapping. n decodes of up to n tokens: at most 512 x 512
 * pieces a sentence. */
typedef int (*whole_decode_fn)(const xlate_model *m, const int *ids, int n, char **text,
                               char *err, size_t errlen);
static int hf_whole(const xlate_model *m, const int *ids, int n, char **text, char *err,
                    size_t errlen)
{
    return hf_tok_decode(&m->hf, ids, n, text, err, errlen);
}
static int m2m_whole(const xlate_model *m, const int *ids, int n, char **text, char *err,
                     size_t errlen)
{
    return m2m_tok_decode(&m->m2m, ids, n, text, err, errlen);
}

/* (The M2M100 / NLLB decode also strips and cleans up the whole text: the same rule.) */
static int hf_decode_spans(const xlate_model *t, whole_decode_fn dec, const int *ids, int n,
                           char **text, int **spans, char *err, size_t errlen)
{
    size_t len, prev = 0;
    int *sp;
    if (dec(t, ids, n, text, err, errlen))
        return -1;
    if (n == 0)
        return 0;
    len = strlen(*text);
    if (!(sp = malloc(2 * (size_t)n * sizeof *sp))) {
        free(*text);
        *text = NULL;
        return xerr(err, errlen, "out of memory");
    }
    for (int k = 0; k < n; k++) {
        char *part;
        size_t end = 0, a = prev;
        if (k == n - 1) {
            end = len;
        } else {
            if (dec(t, ids, k + 1, &part, err, errlen)) {
                free(sp);
                free(*text);
                *text = NULL;
                return -1;
            }
            while (part[end] && end < len && part[end] == (*text)[end])
                end++;
            free(part);
        }
        if (end < prev)
            end = prev;
        while (a < end && (*text)[a] == ' ')
            a++;
        sp[2 * k] = (int)a;
        sp[2 * k + 1] = (int)end;
        prev = end;
    }
    *spans = sp;
    return 0;
}

int xlate_detokenize_spans(const xlate_model *m, const int *ids, int n, char **text,
                           int **spans, char *err, size_t errlen)
{
    size_t len;
    *text = NULL;
    *spans = NULL;
    if (m->has_m2m)
        return hf_decode_spans(m, m2m_whole, ids, n, text, spans, err, errlen);
    if (m->has_hf)
        return hf_decode_spans(m, hf_whole, ids, n, text, spans, err, errlen);
    if (!m->tgt_spm)
        return xerr(err, errlen, "the model has no tokenizer (config field \"tokenizer\"): "
                    "use the target ids");
    return spm_decode_spans(m->tgt_spm, ids, n, text, &len, spans, err, errlen);
}
