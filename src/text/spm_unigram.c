/* spm_unigram.c — unigram encoding: the library's single-pass Viterbi, with its float/double
 * arithmetic so that ties fall the same way. */
#include "text/spm_internal.h"
#include <float.h>

/* unigram::Model::EncodeOptimized. */
size_t spm_encode_unigram(const spm_model *m, const unsigned char *s, size_t n, vnode *v,
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
