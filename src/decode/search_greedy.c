/* search_greedy.c — greedy decoding (and sampling) over decoder steps.
 *
 * Every sentence starts from bos; at each step each unfinished sentence takes the argmax token
 * of its processed logits (logits.h); a sentence leaves the batch at eos or at its max_len, so
 * it stops costing compute. Ties go to the lower token id (argmax). With rules.sampling the
 * token is drawn instead (logits_sample, as transformers' _sample: processors, warpers,
 * softmax, one draw), from the sentence's own random stream.
 *
 * With alternatives A > 1 (CTranslate2's return_alternatives), at the first position after its
 * target prefix (rules.prefix_len; 0 without one) a sentence takes the A most probable tokens
 * of its processed logits instead of one (-inf ones and eos left out; ties to the lower id),
 * and each continues as a hypothesis of its own, greedily, in its own cache slot (a copy of the
 * sentence's); they are returned in that order. Hypothesis h = i * A + k of sentence i owns
 * slot h. */
#include "decode/search_step.h"
#include "kernels/ops.h"
#include <math.h>
#include <string.h>

/* The buffers of one run, cut from the scratch (H = n * A hypotheses). */
typedef struct {
    float *logits;       /* [H, V] */
    int *tokens, *act;   /* [H] row r feeds tokens[r]; it is hypothesis = slot act[r] */
    int *sent;           /* [H] row r's sentence (its source) */
    const int **hist;    /* [H] row r's tokens so far */
    int *tokens2, *act2, *sent2; /* [H] the next step's rows, written while these are read */
    const int **hist2;   /* [H] (a branching row makes several) */
    int *ids;            /* [H][mx] hypothesis h's tokens */
    float *tok_lp;       /* [H][mx] their log-probs (token_scores) */
    float *att;          /* [H][mx][S] their attention rows (alignments; S = attn_stride) */
    float *rad;          /* [H, V] the estimates' bounds (screened: logits holds the estimates) */
    int *next;           /* [H] the token each row chose */
    int *cand;           /* [V] a row's candidates (screened) */
    float *work;         /* [V] the warpers' scratch (chain.work) */
    int *iwork;          /* [V] */
    uint64_t *rng;       /* [H] hypothesis h's random state (sampling) */
    int *n_alt;          /* [n] sentence i's hypotheses (1 until it branches) */
    search_hyp *hyps;    /* [H] */
} greedy_bufs;

static size_t greedy_cut(greedy_bufs *b, char *base, int H, int n, int V, int mx,
                         int token_scores, int screened, int S, int work, int sampling)
{
    scratch_cut c = {base, 0};
    b->work = work ? cut(&c, V, sizeof *b->work) : NULL;
    b->iwork = work ? cut(&c, V, sizeof *b->iwork) : NULL;
    b->rng = sampling ? cut(&c, H, sizeof *b->rng) : NULL;
    b->logits = cut(&c, (size_t)H * V, sizeof *b->logits);
    b->rad = screened ? cut(&c, (size_t)H * V, sizeof *b->rad) : NULL;
    b->next = cut(&c, H, sizeof *b->next);
    b->cand = screened ? cut(&c, V, sizeof *b->cand) : NULL;
    b->tokens = cut(&c, H, sizeof *b->tokens);
    b->act = cut(&c, H, sizeof *b->act);
    b->sent = cut(&c, H, sizeof *b->sent);
    b->hist = cut(&c, H, sizeof *b->hist);
    b->tokens2 = cut(&c, H, sizeof *b->tokens2);
    b->act2 = cut(&c, H, sizeof *b->act2);
    b->sent2 = cut(&c, H, sizeof *b->sent2);
    b->hist2 = cut(&c, H, sizeof *b->hist2);
    b->ids = cut(&c, (size_t)H * mx, sizeof *b->ids);
    b->tok_lp = token_scores ? cut(&c, (size_t)H * mx, sizeof *b->tok_lp) : NULL;
    b->att = S ? cut(&c, (size_t)H * mx * S, sizeof *b->att) : NULL;
    b->n_alt = cut(&c, n, sizeof *b->n_alt);
    b->hyps = cut(&c, H, sizeof *b->hyps);
    return c.used;
}

size_t search_greedy_bytes(const search_params *p, int n, const int *max_len, int vocab,
                           int attn_stride, int screened)
{
    int mx = 1, A = p->alternatives > 1 ? p->alternatives : 1;
    greedy_bufs b;
    logits_chain chain;
    logits_chain_init(&chain, &p->rules);
    for (int i = 0; i < n; i++)
        if (max_len[i] > mx)
            mx = max_len[i];
    /* the very cut search_greedy makes (its sizes, no pointers) */
    return greedy_cut(&b, NULL, n * A, n, vocab, mx, p->token_scores,
                      screened && search_screened(p, NULL), p->alignments ? attn_stride : 0,
                      chain.work, p->rules.sampling);
}

int search_greedy(const search_model *m, search_scratch *s, int n, const int *max_len,
                  const search_params *p, search_emit emit, void *emit_user, char *err,
                  size_t errlen)
{
    int V = m->vocab, mx = 1, screened, sampling = p->rules.sampling;
    int A = p->alternatives > 1 ? p->alternatives : 1, H = n * A;
    int S = p->alignments ? m->attn_stride : 0; /* attention row length; 0: none kept */
    int top[256];
    greedy_bufs b;
    logits_chain chain;
    step_rows rows;

    logits_chain_init(&chain, &p->rules);
    /* only the argmax is needed, of logits the processors change only by bans: the model's
     * estimates may stand in for the logits (not where alternatives need the A best) */
    screened = m->estimate && search_screened(p, NULL);
    for (int i = 0; i < n; i++)
        if (max_len[i] > mx)
            mx = max_len[i];
    if (search_reserve(s, greedy_cut(&b, NULL, H, n, V, mx, p->token_scores, screened, S,
                                     chain.work, sampling), err, errlen))
        return -1;
    greedy_cut(&b, s->mem, H, n, V, mx, p->token_scores, screened, S, chain.work, sampling);
    for (int h = 0; h < H; h++) {
        search_hyp *hy = &b.hyps[h];
        hy->ids = b.ids + (size_t)h * mx;
        hy->token_logprobs = b.tok_lp ? b.tok_lp + (size_t)h * mx : NULL;
        hy->attention = b.att ? b.att + (size_t)h * mx * S : NULL;
        hy->n = hy->finished = 0;
        hy->logprob = 0;
    }
    for (int i = 0; i < n; i++) { /* row i: sentence i's first hypothesis, i * A */
        b.n_alt[i] = 1;
        b.tokens[i] = m->bos_id;
        b.act[i] = i * A;
        b.sent[i] = i;
        b.hist[i] = b.hyps[i * A].ids;
        if (sampling)
            b.rng[i * A] = logits_rng_seed(p->seed, p->streams ? p->streams[i] : (uint64_t)i);
    }
    rows = (step_rows){n, b.tokens, b.act, b.sent, b.sent, b.hist, 0, b.work, b.iwork};
    for (int pos = 0; rows.n > 0; pos++) {
        int w = 0, nr = rows.n, full = !screened;
        if (screened && search_step_argmax(m, &chain, &p->rules, &rows, max_len, pos, b.logits,
                                           b.rad, b.cand, b.next))
            full = 1;
        if (full) {
            if (search_step(m, &chain, &p->rules, &rows, max_len, pos, b.logits, err, errlen))
                return -1;
            for (int r = 0; r < nr; r++)
                b.next[r] = sampling ? logits_sample(b.logits + (size_t)r * V, V, &b.rng[b.act[r]])
                                     : argmax(b.logits + (size_t)r * V, V);
        }
        if (S) { /* before the rows are compacted: row r is the step's row r */
            const float *att = m->attention(m->user);
            for (int r = 0; r < nr; r++)
                memcpy(b.hyps[b.act[r]].attention + (size_t)pos * S, att + (size_t)r * S,
                       S * sizeof *att);
        }
        for (int r = 0; r < nr; r++) {
            int i = b.sent[r], h0 = b.act[r], nt = 1;
            const float *row = b.logits + (size_t)r * V;
            float lse = p->scores || p->token_scores ? logsumexp(row, V) : 0;
            /* the branching point: the first position after the prefix */
            if (A > 1 && b.n_alt[i] == 1 && h0 == i * A &&
                pos == (p->rules.prefix ? p->rules.prefix_len[i] : 0) &&
                (nt = search_best_tokens(row, V, A, m->eos_id, top)) > 0) {
                b.n_alt[i] = nt;
            } else {
                top[0] = b.next[r];
                nt = 1;
            }
            for (int k = nt - 1; k >= 0; k--) { /* the copies first, from h0 as it was */
                int h = h0 + k, tok = top[k], done;
                search_hyp *hy = &b.hyps[h];
                if (k > 0) { /* a copy of the first: its tokens, scores, cache and stream */
                    search_hyp *h1 = &b.hyps[h0];
                    memcpy(hy->ids, h1->ids, h1->n * sizeof *hy->ids);
                    hy->n = h1->n;
                    hy->logprob = h1->logprob;
                    if (hy->token_logprobs)
                        memcpy(hy->token_logprobs, h1->token_logprobs,
                               pos * sizeof *hy->token_logprobs);
                    if (S)
                        memcpy(hy->attention, h1->attention, (size_t)(pos + 1) * S *
                               sizeof *hy->attention);
                    if (sampling)
                        b.rng[h] = logits_rng_seed(b.rng[h0], (uint64_t)k);
                    m->copy_slot(m->user, h, h0, 0, pos + 1);
                }
                if (p->scores || p->token_scores) {
                    float lp = row[tok] - lse;
                    hy->logprob += lp;
                    if (hy->token_logprobs)
                        hy->token_logprobs[pos] = lp;
                }
                if (tok == m->eos_id) {
                    hy->finished = 1;
                    done = 1;
                } else {
                    hy->ids[hy->n++] = tok;
                    done = hy->n >= max_len[i];
                }
                if (!done) {
                    b.act2[w] = h;
                    b.sent2[w] = i;
                    b.tokens2[w] = tok;
                    b.hist2[w] = hy->ids;
                    w++;
                }
            }
        }
        { /* the next step's rows become the rows */
            int *t;
            const int **hh;
            t = b.act, b.act = b.act2, b.act2 = t;
            t = b.sent, b.sent = b.sent2, b.sent2 = t;
            t = b.tokens, b.tokens = b.tokens2, b.tokens2 = t;
            hh = b.hist, b.hist = b.hist2, b.hist2 = hh;
        }
        rows = (step_rows){w, b.tokens, b.act, b.sent, b.sent, b.hist, 0, b.work, b.iwork};
    }
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < b.n_alt[i]; k++)
            b.hyps[i * A + k].score = b.hyps[i * A + k].logprob;
        if (emit(emit_user, i, &b.hyps[i * A], b.n_alt[i], err, errlen))
            return -1;
    }
    return 0;
}
