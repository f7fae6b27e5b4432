/* search_beam.c — beam search over decoder steps, for all sentences of a batch at once.
 *
 * The rules (tools/reference_beam.py implements the same in PyTorch):
 *   - Each sentence starts with one live hypothesis, [bos], log-probability 0.
 *   - At each step every live hypothesis is extended by every token; a candidate's log-prob is
 *     its parent's plus log_softmax(logits)[token]. Candidates are ranked by log-prob, ties by
 *     the parent's rank, then by the lower token id. Before min_length tokens, eos's logit is
 *     -inf (so it is never a candidate, and the others' log-probs are renormalized).
 *   - Of the 2K best candidates (K = beam size): a candidate ending in eos and ranked within the
 *     first K is finished; the first K candidates not ending in eos are the next live
 *     hypotheses, in rank order.
 *   - A hypothesis that reaches max_length tokens without eos is finished as it is.
 *   - A sentence is done when it has K finished hypotheses (or none live is left).
 *   - Finished hypotheses are ranked by score = logprob / length^penalty, length counting the
 *     tokens and the eos; ties by the order they finished. The n_best best are returned.
 *
 * Each live hypothesis owns a cache slot. After a step, a parent's first child takes over its
 * slot; further children copy it into slots freed by parents without children, so the KV cache
 * is copied only where the beam branches. */
#include "kernels/ops.h"
#include "decode/search.h"
#include "base/util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>


/* A candidate: parent beam (rank) and token, with its cumulative log-prob. */
typedef struct {
    float logprob;
    int parent, token;
} cand;

/* Candidate a ranks before b. */
static int better(const cand *a, const cand *b)
{
    if (a->logprob != b->logprob)
        return a->logprob > b->logprob;
    if (a->parent != b->parent)
        return a->parent < b->parent;
    return a->token < b->token;
}

/* Inserts c into the sorted top list (size *n, capacity cap). */
static void top_insert(cand *top, int *n, int cap, cand c)
{
    int i;
    if (*n == cap && !better(&c, &top[cap - 1]))
        return;
    i = *n < cap ? (*n)++ : cap - 1;
    while (i > 0 && better(&c, &top[i - 1])) {
        top[i] = top[i - 1];
        i--;
    }
    top[i] = c;
}

typedef struct {
    int live;          /* live hypotheses */
    int n_fin;         /* finished hypotheses */
    int done;
    int *slot;         /* [K] cache slot of live beam j */
    float *logprob;    /* [K] */
    int *ids;          /* [K][max_len] tokens of live beam j */
    float *tok_lp;     /* [K][max_len] per-token log-probs (token_scores) */
    xlate_hypothesis *fin; /* [3K] finished, in the order they finished: up to 2K - 1 ended by
                              eos, then K at max_length */
} sentence;

static float hyp_score(float logprob, int len, float penalty)
{
    return penalty == 0 ? logprob : logprob / powf((float)len, penalty);
}

/* Adds a finished hypothesis: the live beam's tokens (n of them) plus `last` when >= 0. */
static int finish(sentence *s, const int *ids, const float *tlp, int n, int last, float last_lp,
                  float logprob, int eos_ended, const xlate_decode_params *p, int max_len)
{
    xlate_hypothesis *h = &s->fin[s->n_fin];
    if (hyp_alloc(h, max_len, p->token_scores))
        return -1;
    memcpy(h->ids, ids, n * sizeof *ids);
    h->n = n;
    if (h->token_logprobs && tlp)
        memcpy(h->token_logprobs, tlp, n * sizeof *tlp);
    if (last >= 0) {
        if (!eos_ended)
            h->ids[h->n] = last;
        if (h->token_logprobs)
            h->token_logprobs[n] = last_lp;
        if (!eos_ended)
            h->n++;
    }
    h->finished = eos_ended;
    h->logprob = logprob;
    h->score = hyp_score(logprob, h->n + eos_ended, p->length_penalty);
    s->n_fin++;
    return 0;
}

/* Sorts the finished hypotheses by score, best first, keeping finishing order on ties (a stable
 * insertion sort: there are fewer than 3K, and qsort need not be stable). */
static void rank_finished(xlate_hypothesis *fin, int n)
{
    for (int a = 1; a < n; a++) {
        xlate_hypothesis h = fin[a];
        int b = a;
        while (b > 0 && fin[b - 1].score < h.score) {
            fin[b] = fin[b - 1];
            b--;
        }
        fin[b] = h;
    }
}

int search_beam(const model_weights *m, pool *pl, decoder_state *st, search_scratch *sc, int n,
                const int *max_len, const xlate_decode_params *p, xlate_result *out, char *err,
                size_t errlen)
{
    const model_config *c = &m->cfg;
    int K = p->beam_size, V = c->tgt_vocab, mx = 1, rc = -1;
    int *tokens, *slots, *srcs, *row_sent, *row_beam;
    int *new_parent, *taken, *first_child, *fs, *new_slot; /* [K] each */
    float *new_lp;                                         /* [K] */
    float *row_lse;
    sentence *S = calloc(n, sizeof *S);
    int *ids_next = NULL;
    float *lp_next = NULL;
    cand *top = malloc(2 * K * sizeof *top);

    for (int i = 0; i < n; i++)
        if (max_len[i] > mx)
            mx = max_len[i];
    if (!S || !top || search_grow(sc, (size_t)n * K * V, (size_t)5 * n * K + 5 * K,
                                  (size_t)n * K + K, err, errlen))
        goto oom;
    tokens = sc->ints;
    slots = tokens + n * K;
    srcs = slots + n * K;
    row_sent = srcs + n * K;
    row_beam = row_sent + n * K;
    new_parent = row_beam + n * K;
    taken = new_parent + K;
    first_child = taken + K;
    fs = first_child + K;
    new_slot = fs + K;
    row_lse = sc->floats;
    new_lp = row_lse + n * K;
    ids_next = malloc((size_t)K * mx * sizeof *ids_next);
    lp_next = malloc((size_t)K * mx * sizeof *lp_next);
    if (!ids_next || !lp_next)
        goto oom;
    for (int i = 0; i < n; i++) {
        sentence *s = &S[i];
        s->slot = malloc(K * sizeof *s->slot);
        s->logprob = malloc(K * sizeof *s->logprob);
        s->ids = malloc((size_t)K * mx * sizeof *s->ids);
        s->tok_lp = malloc((size_t)K * mx * sizeof *s->tok_lp);
        s->fin = calloc(3 * K, sizeof *s->fin);
        if (!s->slot || !s->logprob || !s->ids || !s->tok_lp || !s->fin)
            goto oom;
        s->live = 1;
        s->logprob[0] = 0;
        for (int j = 0; j < K; j++)
            s->slot[j] = i * K + j;
    }

    for (int pos = 0;; pos++) {
        int rows = 0;
        for (int i = 0; i < n; i++) {
            sentence *s = &S[i];
            if (s->done)
                continue;
            for (int j = 0; j < s->live; j++) {
                tokens[rows] = pos == 0 ? c->bos_id : s->ids[(size_t)j * mx + pos - 1];
                slots[rows] = s->slot[j];
                srcs[rows] = i;
                row_sent[rows] = i;
                row_beam[rows] = j;
                rows++;
            }
        }
        if (rows == 0)
            break;
        if (search_step(m, pl, st, p, rows, tokens, slots, srcs, row_sent, pos, sc->logits, err,
                        errlen))
            goto done;
        for (int r = 0; r < rows; r++)
            row_lse[r] = logsumexp(sc->logits + (size_t)r * V, V);

        for (int r0 = 0; r0 < rows;) {
            int i = row_sent[r0], r1 = r0, nt = 0, new_live = 0, nfree = 0;
            sentence *s = &S[i];
            int last_step = pos + 1 >= max_len[i];
            while (r1 < rows && row_sent[r1] == i)
                r1++;
            /* the 2K best candidates over this sentence's live beams */
            for (int r = r0; r < r1; r++) {
                const float *lg = sc->logits + (size_t)r * V;
                float base = s->logprob[row_beam[r]] - row_lse[r];
                for (int v = 0; v < V; v++) {
                    cand cd = {base + lg[v], row_beam[r], v};
                    if (nt < 2 * K || better(&cd, &top[nt - 1]))
                        top_insert(top, &nt, 2 * K, cd);
                }
            }
            /* finished: eos within the first K; live: the first K others */
            for (int k = 0; k < nt; k++) {
                const cand *cd = &top[k];
                const int *pids = s->ids + (size_t)cd->parent * mx;
                const float *plp = s->tok_lp + (size_t)cd->parent * mx;
                float tlp = cd->logprob - s->logprob[cd->parent];
                if (cd->token == c->eos_id) {
                    if (k < K && finish(s, pids, plp, pos, c->eos_id, tlp, cd->logprob, 1, p,
                                        max_len[i]))
                        goto oom;
                    continue;
                }
                if (new_live == K)
                    continue;
                memcpy(ids_next + (size_t)new_live * mx, pids, pos * sizeof *pids);
                ids_next[(size_t)new_live * mx + pos] = cd->token;
                memcpy(lp_next + (size_t)new_live * mx, plp, pos * sizeof *plp);
                lp_next[(size_t)new_live * mx + pos] = tlp;
                new_parent[new_live] = cd->parent;
                new_lp[new_live] = cd->logprob;
                new_live++;
            }
            /* slots: a parent's first child keeps it; the others copy into the slots of
             * parents without children (and slots never used yet) */
            for (int j = 0; j < K; j++)
                taken[j] = 0;
            for (int j = 0; j < new_live; j++) {
                first_child[j] = !taken[new_parent[j]];
                taken[new_parent[j]] = 1;
            }
            for (int j = 0; j < K; j++)
                if (j >= s->live || !taken[j])
                    fs[nfree++] = s->slot[j];
            for (int j = 0, f = 0; j < new_live; j++) {
                if (first_child[j]) {
                    new_slot[j] = s->slot[new_parent[j]];
                } else {
                    new_slot[j] = fs[f++];
                    decoder_copy_slot(m, st, new_slot[j], s->slot[new_parent[j]], pos + 1);
                }
            }
            for (int j = 0; j < new_live; j++) {
                s->slot[j] = new_slot[j];
                s->logprob[j] = new_lp[j];
            }
            /* the free slots no child took stay with the sentence, after the live ones */
            for (int j = new_live, f = new_live - (K - nfree); j < K; j++)
                s->slot[j] = fs[f++];
            memcpy(s->ids, ids_next, (size_t)new_live * mx * sizeof *ids_next);
            memcpy(s->tok_lp, lp_next, (size_t)new_live * mx * sizeof *lp_next);
            s->live = new_live;
            if (last_step) {
                for (int j = 0; j < s->live; j++)
                    if (finish(s, s->ids + (size_t)j * mx, s->tok_lp + (size_t)j * mx, pos + 1,
                               -1, 0, s->logprob[j], 0, p, max_len[i]))
                        goto oom;
                s->live = 0;
            }
            if (s->n_fin >= K || s->live == 0)
                s->done = 1;
            r0 = r1;
        }
    }

    for (int i = 0; i < n; i++) {
        sentence *s = &S[i];
        int keep = s->n_fin < p->n_best ? s->n_fin : p->n_best;
        rank_finished(s->fin, s->n_fin);
        out[i].hyps = calloc(keep ? keep : 1, sizeof *out[i].hyps);
        if (!out[i].hyps)
            goto oom;
        memcpy(out[i].hyps, s->fin, keep * sizeof *s->fin);
        out[i].n_hyps = keep;
        for (int k = keep; k < s->n_fin; k++) {
            free(s->fin[k].ids);
            free(s->fin[k].token_logprobs);
        }
        s->n_fin = 0;
        if (!p->token_scores)
            for (int k = 0; k < keep; k++) {
                free(out[i].hyps[k].token_logprobs);
                out[i].hyps[k].token_logprobs = NULL;
            }
    }
    rc = 0;
    goto done;
oom:
    xerr(err, errlen, "out of memory in beam search");
done:
    for (int i = 0; S && i < n; i++) {
        for (int k = 0; k < S[i].n_fin; k++) {
            free(S[i].fin[k].ids);
            free(S[i].fin[k].token_logprobs);
        }
        free(S[i].slot);
        free(S[i].logprob);
        free(S[i].ids);
        free(S[i].tok_lp);
        free(S[i].fin);
    }
    free(S);
    free(top);
    free(ids_next);
    free(lp_next);
    return rc;
}
