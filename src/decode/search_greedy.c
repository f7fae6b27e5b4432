/* search_greedy.c — greedy decoding (and sampling) over decoder steps.
 *
 * Every sentence starts from bos; at each step each unfinished sentence takes the argmax token
 * of its processed logits (logits.h); a sentence leaves the batch at eos or at its max_len, so
 * it stops costing compute. Ties go to the lower token id (argmax). With rules.sampling the
 * token is drawn instead (logits_sample, as transformers' _sample: processors, warpers,
 * softmax, one draw), from the sentence's own random stream. */
#include "decode/search_step.h"
#include "kernels/ops.h"
#include <string.h>

/* The buffers of one run, cut from the scratch. */
typedef struct {
    float *logits;       /* [n, V] */
    int *tokens, *act;   /* [n] row r feeds tokens[r]; it is sentence = slot = source act[r] */
    const int **hist;    /* [n] row r's tokens so far */
    int *ids;            /* [n][mx] sentence i's tokens */
    float *tok_lp;       /* [n][mx] their log-probs (token_scores) */
    float *att;          /* [n][mx][S] their attention rows (alignments; S = attn_stride) */
    float *rad;          /* [n, V] the estimates' bounds (screened: logits holds the estimates) */
    int *next;           /* [n] the token each row chose */
    int *cand;           /* [V] a row's candidates (screened) */
    float *work;         /* [V] the warpers' scratch (chain.work) */
    int *iwork;          /* [V] */
    uint64_t *rng;       /* [n] sentence i's random state (sampling) */
    search_hyp *hyps;    /* [n] */
} greedy_bufs;

static size_t greedy_cut(greedy_bufs *b, char *base, int n, int V, int mx, int token_scores,
                         int screened, int S, int work, int sampling)
{
    scratch_cut c = {base, 0};
    b->work = work ? cut(&c, V, sizeof *b->work) : NULL;
    b->iwork = work ? cut(&c, V, sizeof *b->iwork) : NULL;
    b->rng = sampling ? cut(&c, n, sizeof *b->rng) : NULL;
    b->logits = cut(&c, (size_t)n * V, sizeof *b->logits);
    b->rad = screened ? cut(&c, (size_t)n * V, sizeof *b->rad) : NULL;
    b->next = cut(&c, n, sizeof *b->next);
    b->cand = screened ? cut(&c, V, sizeof *b->cand) : NULL;
    b->tokens = cut(&c, n, sizeof *b->tokens);
    b->act = cut(&c, n, sizeof *b->act);
    b->hist = cut(&c, n, sizeof *b->hist);
    b->ids = cut(&c, (size_t)n * mx, sizeof *b->ids);
    b->tok_lp = token_scores ? cut(&c, (size_t)n * mx, sizeof *b->tok_lp) : NULL;
    b->att = S ? cut(&c, (size_t)n * mx * S, sizeof *b->att) : NULL;
    b->hyps = cut(&c, n, sizeof *b->hyps);
    return c.used;
}

int search_greedy(const search_model *m, search_scratch *s, int n, const int *max_len,
                  const search_params *p, search_emit emit, void *emit_user, char *err,
                  size_t errlen)
{
    int V = m->vocab, mx = 1, screened, sampling = p->rules.sampling;
    int S = p->alignments ? m->attn_stride : 0; /* attention row length; 0: none kept */
    greedy_bufs b;
    logits_chain chain;
    step_rows rows;

    logits_chain_init(&chain, &p->rules);
    /* only the argmax is needed, of logits the processors change only by bans: the model's
     * estimates may stand in for the logits */
    screened = m->estimate && !p->scores && !p->token_scores && !chain.exact;
    for (int i = 0; i < n; i++)
        if (max_len[i] > mx)
            mx = max_len[i];
    if (search_reserve(s, greedy_cut(&b, NULL, n, V, mx, p->token_scores, screened, S,
                                     chain.work, sampling), err, errlen))
        return -1;
    greedy_cut(&b, s->mem, n, V, mx, p->token_scores, screened, S, chain.work, sampling);
    for (int i = 0; i < n; i++) {
        search_hyp *h = &b.hyps[i];
        h->ids = b.ids + (size_t)i * mx;
        h->token_logprobs = b.tok_lp ? b.tok_lp + (size_t)i * mx : NULL;
        h->attention = b.att ? b.att + (size_t)i * mx * S : NULL;
        h->n = h->finished = 0;
        h->logprob = 0;
        b.tokens[i] = m->bos_id;
        b.act[i] = i;
        b.hist[i] = h->ids;
        if (sampling)
            b.rng[i] = logits_rng_seed(p->seed, p->streams ? p->streams[i] : (uint64_t)i);
    }
    /* rows are their own sources and slots: row r decodes sentence act[r] */
    rows = (step_rows){n, b.tokens, b.act, b.act, b.act, b.hist, 0, b.work, b.iwork};
    for (int pos = 0; rows.n > 0; pos++) {
        int w = 0, full = !screened;
        if (screened && search_step_argmax(m, &chain, &p->rules, &rows, max_len, pos, b.logits,
                                           b.rad, b.cand, b.next))
            full = 1;
        if (full) {
            if (search_step(m, &chain, &p->rules, &rows, max_len, pos, b.logits, err, errlen))
                return -1;
            for (int r = 0; r < rows.n; r++)
                b.next[r] = sampling ? logits_sample(b.logits + (size_t)r * V, V, &b.rng[b.act[r]])
                                     : argmax(b.logits + (size_t)r * V, V);
        }
        if (S) { /* before the rows are compacted: row r is the step's row r */
            const float *att = m->attention(m->user);
            for (int r = 0; r < rows.n; r++)
                memcpy(b.hyps[b.act[r]].attention + (size_t)pos * S, att + (size_t)r * S,
                       S * sizeof *att);
        }
        for (int r = 0; r < rows.n; r++) {
            int i = b.act[r];
            const float *row = b.logits + (size_t)r * V;
            int tok = b.next[r], done;
            search_hyp *h = &b.hyps[i];
            if (p->scores || p->token_scores) {
                float lp = row[tok] - logsumexp(row, V);
                h->logprob += lp;
                if (h->token_logprobs)
                    h->token_logprobs[pos] = lp;
            }
            if (tok == m->eos_id) {
                h->finished = 1;
                done = 1;
            } else {
                h->ids[h->n++] = tok;
                done = h->n >= max_len[i];
            }
            if (!done) {
                b.act[w] = i;
                b.tokens[w] = tok;
                b.hist[w] = h->ids;
                w++;
            }
        }
        rows.n = w;
    }
    for (int i = 0; i < n; i++) {
        b.hyps[i].score = b.hyps[i].logprob;
        if (emit(emit_user, i, &b.hyps[i], 1, err, errlen))
            return -1;
    }
    return 0;
}
