/* search_beam.c — beam search over decoder steps, for all sentences of a batch at once.
 *
 * The rules (tools/reference_beam.py implements the same in PyTorch):
 *   - Each sentence starts with one live hypothesis, [bos], log-probability 0.
 *   - At each step every live hypothesis is extended by every token; a candidate's log-prob is
 *     its parent's plus log_softmax(logits)[token]. Candidates are ranked by log-prob, ties by
 *     the parent's rank, then by the lower token id. The logits processors (logits.h) apply
 *     first: before min_length tokens, for one, eos's logit is -inf (so it is never a
 *     candidate, and the others' log-probs are renormalized).
 *   - Of the 2K best candidates (K = beam size): a candidate ending in eos and ranked within the
 *     first K is finished; the first K candidates not ending in eos are the next live
 *     hypotheses, in rank order.
 *   - A hypothesis that reaches max_length tokens without eos is finished as it is.
 *   - A sentence is done when it has K finished hypotheses (or none live is left).
 *   - Finished hypotheses are ranked by score = logprob / length^penalty, length counting the
 *     tokens and the eos; ties by the order they finished. The n_best best are returned.
 *   - A candidate of log-prob -inf (every token but one forced away) is dropped.
 *
 * With hf_beam (Hugging Face's generate(), transformers v4.40 BeamSearchScorer; the oracle is
 * tools/marian_reference.py), instead:
 *   - the processors see log-probabilities (log_softmax first, no renormalization after a ban;
 *     forced eos gets log-probability 0);
 *   - a sentence keeps its K best finished hypotheses (a new one enters while fewer than K are
 *     kept or when it beats the worst kept, which then leaves; the lowest-scored, the earliest on
 *     ties), scored logprob / length^penalty in double, length counting eos;
 *   - it is done, after a step, when K are kept and early_stopping is true, or (false) the worst
 *     kept >= the best candidate's log-prob / (tokens so far)^penalty, or ("never", penalty > 0)
 *     the same with max_len instead of the tokens so far; at max_len an unfinished sentence adds
 *     its live hypotheses;
 *   - the best are returned by score, the later-kept first on ties (Python's stable sort, then
 *     pop()).
 *
 * Each live hypothesis owns a cache slot. After a step, a parent's first child takes over its
 * slot; further children copy it into slots freed by parents without children, so the KV cache
 * is copied only where the beam branches. And only from where the two hypotheses' tokens
 * differ: a position's cache is a function of the tokens fed up to it (and the sentence's
 * source), and was computed once, by the one live hypothesis of the sentence with those tokens
 * at that step (live hypotheses are distinct: their parents are, or their last tokens), every
 * other slot with them holding a copy; so the positions where a freed slot's tokens (slot_tok)
 * equal its new owner's hold the very bits a copy would write. Beams share most of their
 * prefix: on the OPUS-MT-shaped model (bench/opus_shape.py), 100 Multi30k lines at batch 32
 * made 8,467 copies of 269,453 positions in all (6.6 GB of K and V, half of the 12% perf gave
 * memcpy in int8); from the first differing position, 17,353.
 *
 * Alignments: every step's attention rows go to a log ([step][row] rows); a hypothesis keeps,
 * with its tokens, the row that chose each of them, and the returned ones gather their rows
 * from the log at the end. So only ints follow the beam, never attention rows. The log is
 * max_len * rows * (longest source + 1) floats (batch 32, beam 4: 0.8 MB for sentences of 20
 * tokens, 63 MB for 200), cut only when alignments are asked for.
 *
 * Alternatives (p->alternatives A > 1, CTranslate2's return_alternatives with beam_size > 1:
 * src/decoding.cc decode_alternatives, which expands the A best tokens with a BeamSearch of
 * max_length 1, then continues them as A batch entries of the search that make_search_strategy
 * gives, here this beam search): a sentence owns A beams ("units"), unit i * A + k being its
 * alternative k; only unit i * A searches until the first position after the sentence's target
 * prefix (rules.prefix_len; 0 without one), where it has one live hypothesis (the forced
 * tokens leave one candidate each step). There its row's A best tokens (finite ones but eos, by
 * log-probability, ties to the lower id, as search_greedy.c takes them) each start a unit: one
 * live hypothesis, the row's tokens plus that token, its log-prob, its cache a copy of the
 * row's. Each unit then goes on as a beam of its
 * own under the rules above (K live hypotheses, its own finished ones and done test); the
 * sentence returns, in token order, each unit's best finished hypothesis (as n_best 1 would).
 *
 * Every buffer (live and finished hypotheses included) is cut from the scratch once per run,
 * sized for the batch's shape: the step loop allocates nothing. */
#include "decode/search_step.h"
#include "kernels/ops.h"
#include "kernels/simd.h"
#include <math.h>
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
    int *ids;          /* [K][mx] tokens of live beam j */
    float *tok_lp;     /* [K][mx] per-token log-probs */
    int *arow;         /* [K][mx] (alignments) the step row that chose each token */
    search_hyp *fin;   /* [3K] finished, in the order they finished: up to 2K - 1 ended by eos,
                          then K at max_length; each owns its [mx] of fin_ids (and fin_lp) */
    double *fin_score; /* [3K] hf_beam: the scores in double */
    double worst;      /* hf_beam: the worst kept score (1e9 while none) */
} sentence;

/* The buffers of one run, cut from the scratch (U = n * A units, one per sentence without
 * alternatives; R = U * K rows). */
typedef struct {
    float *logits;               /* [R, V] */
    int *tokens, *slots, *srcs, *row_sent, *row_beam; /* [R] the step's rows */
    int *row_unit;               /* [R] the unit (beam) a row belongs to */
    const int **hist;            /* [R] */
    float *row_lse;              /* [R] logsumexp of each row's logits */
    float *row_lp;               /* [R] the log-prob of each row's hypothesis */
    cand *row_top;               /* [R][2K] each row's 2K best candidates, best first */
    int *row_nt;                 /* [R] how many row_top holds */
    int *row_bad;                /* [R] 1: the row's logits are not finite */
    int *copy_dst, *copy_src, *copy_from; /* [R] the step's slot copies (beam branching) */
    int *slot_tok;               /* [R][mx] the token each slot's cached position was fed */
    int *slot_n;                 /* [R] positions each slot's cache holds */
    int *new_parent, *taken, *first_child, *fs, *new_slot; /* [K] each */
    float *new_lp;               /* [K] */
    cand *top;                   /* [2K] */
    int *ids_next;               /* [K][mx] */
    float *lp_next;              /* [K][mx] */
    int *arow_next;              /* [K][mx] (alignments) */
    sentence *S;                 /* [U] */
    int *slot;                   /* [U][K] */
    float *logprob;              /* [U][K] */
    int *ids;                    /* [U][K][mx] */
    float *tok_lp;               /* [U][K][mx] */
    search_hyp *fin;             /* [U][3K] */
    double *fin_score;           /* [U][3K] */
    int *fin_ids;                /* [U][3K][mx] */
    float *fin_lp;               /* [U][3K][mx] (token_scores) */
    /* alignments (A = attn_stride): */
    float *att_log;              /* [mx][R][A] step pos's row r at (pos * R + r) * A */
    int *arow;                   /* [U][K][mx] */
    int *fin_arow;               /* [U][3K][mx] */
    float *gather;               /* [max(K, alternatives)][mx][A] the returned hypotheses'
                                    rows of a sentence */
    /* alternatives (alt > 1): */
    int *n_alt;                  /* [n] sentence i's units; 0 until it branches */
    int *top_alt;                /* [alt] the branching row's best tokens */
    search_hyp *alt_out;         /* [alt] a sentence's returned hypotheses */
} beam_bufs;

static size_t beam_cut(beam_bufs *b, char *base, int U, int K, int V, int mx, int token_scores,
                       int A, int n, int alt)
{
    scratch_cut c = {base, 0};
    size_t R = (size_t)U * K;
    int G = alt > K ? alt : K;
    b->logits = cut(&c, R * V, sizeof *b->logits);
    b->tokens = cut(&c, R, sizeof(int));
    b->slots = cut(&c, R, sizeof(int));
    b->srcs = cut(&c, R, sizeof(int));
    b->row_sent = cut(&c, R, sizeof(int));
    b->row_beam = cut(&c, R, sizeof(int));
    b->row_unit = cut(&c, R, sizeof(int));
    b->hist = cut(&c, R, sizeof *b->hist);
    b->row_lse = cut(&c, R, sizeof(float));
    b->row_lp = cut(&c, R, sizeof(float));
    b->row_top = cut(&c, R * 2 * K, sizeof *b->row_top);
    b->row_nt = cut(&c, R, sizeof(int));
    b->row_bad = cut(&c, R, sizeof(int));
    b->copy_dst = cut(&c, R, sizeof(int));
    b->copy_src = cut(&c, R, sizeof(int));
    b->copy_from = cut(&c, R, sizeof(int));
    b->slot_tok = cut(&c, R * mx, sizeof(int));
    b->slot_n = cut(&c, R, sizeof(int));
    b->new_parent = cut(&c, K, sizeof(int));
    b->taken = cut(&c, K, sizeof(int));
    b->first_child = cut(&c, K, sizeof(int));
    b->fs = cut(&c, K, sizeof(int));
    b->new_slot = cut(&c, K, sizeof(int));
    b->new_lp = cut(&c, K, sizeof(float));
    b->top = cut(&c, 2 * (size_t)K, sizeof *b->top);
    b->ids_next = cut(&c, (size_t)K * mx, sizeof(int));
    b->lp_next = cut(&c, (size_t)K * mx, sizeof(float));
    b->S = cut(&c, U, sizeof *b->S);
    b->slot = cut(&c, R, sizeof(int));
    b->logprob = cut(&c, R, sizeof(float));
    b->ids = cut(&c, R * mx, sizeof(int));
    b->tok_lp = cut(&c, R * mx, sizeof(float));
    b->fin = cut(&c, 3 * R, sizeof *b->fin);
    b->fin_score = cut(&c, 3 * R, sizeof *b->fin_score);
    b->fin_ids = cut(&c, 3 * R * mx, sizeof(int));
    b->fin_lp = token_scores ? cut(&c, 3 * R * mx, sizeof(float)) : NULL;
    b->att_log = A ? cut(&c, (size_t)mx * R * A, sizeof(float)) : NULL;
    b->arow = A ? cut(&c, R * mx, sizeof(int)) : NULL;
    b->arow_next = A ? cut(&c, (size_t)K * mx, sizeof(int)) : NULL;
    b->fin_arow = A ? cut(&c, 3 * R * mx, sizeof(int)) : NULL;
    b->gather = A ? cut(&c, (size_t)G * mx * A, sizeof(float)) : NULL;
    b->n_alt = cut(&c, n, sizeof(int));
    b->top_alt = cut(&c, alt, sizeof(int));
    b->alt_out = cut(&c, alt, sizeof *b->alt_out);
    return c.used;
}

/* A step's work on its rows after the model's step, row by row (each row's results depend on
 * that row alone, so rows go to the model's threads, and each row's 232 KB of logits, at
 * OPUS-MT's vocabulary, is read from memory once and then stays in the core's cache): the
 * finite check, log-softmax and processors (search_step_row), the row's logsumexp, and the
 * row's 2K best candidates. A sentence's 2K best are among its rows' 2K best (a candidate with
 * 2K better ones in its row has 2K better ones in the sentence), and `better` is a total order,
 * so merging the rows' lists gives the very candidates, in the very order, of one scan over
 * every row's logits. */
typedef struct {
    const search_model *m;
    const logits_chain *chain;
    const search_params *p;
    const step_rows *rows;
    const int *max_len;
    const int *row_beam;
    int pos;
    float *logits;
    beam_bufs *b;
} row_job;

/* Row r's 2K best candidates into top (best first); returns how many (min(2K, V)). Within a row
 * the parent is the same, and tokens come in increasing id, so a later token enters only with
 * a log-prob strictly above the list's last (on a tie the earlier token ranks first): the scan
 * skips to the next such token (simd_first_above computes base + lg[v] as the insertion does). */
static int row_best(const float *lg, int V, float base, int parent, int K2, cand *top)
{
    int nt = 0, v = 0;
    for (; v < V && nt < K2; v++)
        top_insert(top, &nt, K2, (cand){base + lg[v], parent, v});
    while (v < V) {
        v += simd_first_above(lg + v, V - v, base, top[K2 - 1].logprob);
        if (v >= V)
            break;
        top_insert(top, &nt, K2, (cand){base + lg[v], parent, v});
        v++;
    }
    return nt;
}

static void row_task(void *arg, int r, int thread)
{
    const row_job *j = arg;
    const search_params *p = j->p;
    beam_bufs *b = j->b;
    int V = j->m->vocab, K2 = 2 * p->beam_size;
    float *row = j->logits + (size_t)r * V, mx;
    (void)thread;
    b->row_bad[r] = search_step_row(j->m, j->chain, &p->rules, j->rows, j->max_len, j->pos, r,
                                    row, &mx);
    if (b->row_bad[r])
        return;
    /* hf_beam: the rows are log-probabilities already, normalized again after the
     * processors only with renormalize (generate's LogitNormalization); logsumexp(row, V)
     * with the row's max from search_step_row */
    b->row_lse[r] = p->hf_beam && !p->renormalize ? 0
                                                   : mx + logf(simd_exp_sum(NULL, row, V, mx));
    b->row_nt[r] = row_best(row, V, b->row_lp[r] - b->row_lse[r], j->row_beam[r], K2,
                            b->row_top + (size_t)r * K2);
}

typedef struct {
    const search_model *m;
    const int *dst, *src, *from;
    int npos;
} copy_job;

static void copy_task(void *arg, int t, int thread)
{
    const copy_job *c = arg;
    (void)thread;
    c->m->copy_slot(c->m->user, c->dst[t], c->src[t], c->from[t], c->npos);
}

/* task for t in [0, n), on the model's threads when it has them (and `parallel` allows). */
static void run_tasks(const search_model *m, int parallel, int n,
                      void (*task)(void *arg, int t, int thread), void *arg)
{
    if (parallel && m->parallel && n > 1) {
        m->parallel(m->user, n, task, arg);
        return;
    }
    for (int t = 0; t < n; t++)
        task(arg, t, 0);
}

static float hyp_score(float logprob, int len, float penalty)
{
    return penalty == 0 ? logprob : logprob / powf((float)len, penalty);
}

/* Adds a finished hypothesis: the live beam's tokens (n of them, with their log-probs tlp and
 * attention rows arow) plus `last` (log-prob last_lp, chosen by step row last_row) when >= 0. */
static void finish(sentence *s, const int *ids, const float *tlp, const int *arow, int n,
                   int last, float last_lp, int last_row, float logprob, int eos_ended,
                   const search_params *p)
{
    search_hyp *h = &s->fin[s->n_fin];
    memcpy(h->ids, ids, n * sizeof *ids);
    h->n = n;
    if (h->token_logprobs && tlp)
        memcpy(h->token_logprobs, tlp, n * sizeof *tlp);
    if (h->att_rows) {
        memcpy(h->att_rows, arow, n * sizeof *arow);
        if (last >= 0)
            h->att_rows[n] = last_row;
    }
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
}

/* hf_beam: the hypothesis finish() just added stays only if it is among the K best (see the
 * banner); the one it pushes out goes behind the kept ones, keeping its buffers. */
static void hf_keep(sentence *s, int K, float penalty)
{
    int last = s->n_fin - 1;
    search_hyp *h = &s->fin[last];
    double sc = (double)h->logprob / pow((double)(h->n + h->finished), (double)penalty);
    s->fin_score[last] = sc;
    h->score = (float)sc;
    if (!(last < K || sc > s->worst)) {
        s->n_fin--;
        return;
    }
    if (s->n_fin > K) {
        int lo = 0;
        search_hyp out;
        for (int k = 1; k < s->n_fin; k++)
            if (s->fin_score[k] < s->fin_score[lo])
                lo = k;
        out = s->fin[lo];
        for (int k = lo; k + 1 < s->n_fin; k++) {
            s->fin[k] = s->fin[k + 1];
            s->fin_score[k] = s->fin_score[k + 1];
        }
        s->fin[--s->n_fin] = out;
        s->worst = s->fin_score[0];
        for (int k = 1; k < s->n_fin; k++)
            if (s->fin_score[k] < s->worst)
                s->worst = s->fin_score[k];
    } else if (sc < s->worst) {
        s->worst = sc;
    }
}

/* hf_beam: BeamHypotheses.is_done after a step; best: the best candidate's log-prob, cur: the
 * tokens generated so far (this step's included). */
static int hf_done(const sentence *s, int K, float best, int cur, int max_len,
                   const search_params *p)
{
    double lp = p->length_penalty;
    if (s->n_fin < K)
        return 0;
    if (p->early_stopping == SEARCH_EARLY_TRUE)
        return 1;
    if (p->early_stopping == SEARCH_EARLY_NEVER && lp > 0)
        return s->worst >= (double)best / pow((double)max_len, lp);
    return s->worst >= (double)best / pow((double)cur, lp);
}

/* hf_beam: best first by score, the later-kept first on ties. */
static void hf_rank(sentence *s)
{
    for (int a = 1; a < s->n_fin; a++) {
        search_hyp h = s->fin[a];
        double sc = s->fin_score[a];
        int b = a;
        while (b > 0 && s->fin_score[b - 1] <= sc) {
            s->fin[b] = s->fin[b - 1];
            s->fin_score[b] = s->fin_score[b - 1];
            b--;
        }
        s->fin[b] = h;
        s->fin_score[b] = sc;
    }
}

/* Sorts the finished hypotheses by score, best first, keeping finishing order on ties (a stable
 * insertion sort: there are fewer than 3K, and qsort need not be stable). */
static void rank_finished(search_hyp *fin, int n)
{
    for (int a = 1; a < n; a++) {
        search_hyp h = fin[a];
        int b = a;
        while (b > 0 && fin[b - 1].score < h.score) {
            fin[b] = fin[b - 1];
            b--;
        }
        fin[b] = h;
    }
}

/* Alternatives: unit u0 (alternative 0 of its sentence, one live hypothesis, in step row r)
 * branches at position pos into its row's best tokens, unit u0 + k taking token k (banner).
 * Returns the units started. */
static int branch(const search_model *m, beam_bufs *b, int u0, int r, int pos, int mx,
                  int last_step, int alt, int A, const search_params *p)
{
    int V = m->vocab, *top = b->top_alt;
    sentence *s = &b->S[u0];
    const float *lg = b->logits + (size_t)r * V;
    int nt = search_best_tokens(lg, V, alt, m->eos_id, top);
    for (int k = nt - 1; k >= 0; k--) { /* unit u0 last: the others copy from its hypothesis */
        sentence *su = &b->S[u0 + k];
        int tok = top[k];
        float tlp = lg[tok] - b->row_lse[r], lp = s->logprob[0] + tlp;
        su->n_fin = 0;
        su->done = 0;
        if (su != s) {
            memcpy(su->ids, s->ids, pos * sizeof *s->ids);
            memcpy(su->tok_lp, s->tok_lp, pos * sizeof *s->tok_lp);
            if (A)
                memcpy(su->arow, s->arow, pos * sizeof *s->arow);
            /* the whole cache: the unit's slot holds nothing of this sentence yet */
            m->copy_slot(m->user, su->slot[0], s->slot[0], 0, pos + 1);
            memcpy(b->slot_tok + (size_t)su->slot[0] * mx, b->slot_tok + (size_t)s->slot[0] * mx,
                   (size_t)(pos + 1) * sizeof *b->slot_tok);
            b->slot_n[su->slot[0]] = pos + 1;
        }
        su->ids[pos] = tok;
        su->tok_lp[pos] = tlp;
        if (A)
            su->arow[pos] = r;
        su->logprob[0] = lp;
        su->live = 1;
        if (last_step) {
            finish(su, su->ids, su->tok_lp, A ? su->arow : NULL, pos + 1, -1, 0, 0, lp, 0, p);
            if (p->hf_beam)
                hf_keep(su, p->beam_size, p->length_penalty);
            su->live = 0;
            su->done = 1;
        }
    }
    if (nt == 0) { /* every token forced away: nothing to continue */
        s->live = 0;
        s->done = 1;
    }
    return nt;
}

size_t search_beam_bytes(const search_params *p, int n, const int *max_len, int vocab,
                         int attn_stride)
{
    int mx = 1, alt = p->alternatives > 1 ? p->alternatives : 1;
    beam_bufs b;
    for (int i = 0; i < n; i++)
        if (max_len[i] > mx)
            mx = max_len[i];
    /* the very cut search_beam makes (its sizes, no pointers) */
    return beam_cut(&b, NULL, n * alt, p->beam_size, vocab, mx, p->token_scores,
                    p->alignments ? attn_stride : 0, n, alt);
}

int search_beam(const search_model *m, search_scratch *sc, int n, const int *max_len,
                const search_params *p, search_emit emit, void *emit_user, char *err,
                size_t errlen)
{
    int K = p->beam_size, V = m->vocab, mx = 1;
    int A = p->alignments ? m->attn_stride : 0; /* attention row length; 0: none kept */
    int alt = p->alternatives > 1 ? p->alternatives : 1, U = n * alt; /* units (banner) */
    size_t R = (size_t)U * K;
    beam_bufs b;
    logits_chain chain;
    step_rows rows;

    for (int i = 0; i < n; i++)
        if (max_len[i] > mx)
            mx = max_len[i];
    if (search_reserve(sc, beam_cut(&b, NULL, U, K, V, mx, p->token_scores, A, n, alt), err,
                       errlen))
        return -1;
    beam_cut(&b, sc->mem, U, K, V, mx, p->token_scores, A, n, alt);
    logits_chain_init(&chain, &p->rules);
    for (int u = 0; u < U; u++) {
        sentence *s = &b.S[u];
        size_t o = (size_t)u * K;
        s->slot = b.slot + o;
        s->logprob = b.logprob + o;
        s->ids = b.ids + o * mx;
        s->tok_lp = b.tok_lp + o * mx;
        s->arow = b.arow ? b.arow + o * mx : NULL;
        s->fin = b.fin + 3 * o;
        s->fin_score = b.fin_score + 3 * o;
        s->worst = 1e9;
        for (int k = 0; k < 3 * K; k++) {
            s->fin[k].ids = b.fin_ids + (3 * o + k) * mx;
            s->fin[k].token_logprobs = b.fin_lp ? b.fin_lp + (3 * o + k) * mx : NULL;
            s->fin[k].att_rows = b.fin_arow ? b.fin_arow + (3 * o + k) * mx : NULL;
            s->fin[k].attention = NULL;
        }
        for (int j = 0; j < K; j++)
            b.slot_n[o + j] = 0;
        /* an alternative's unit starts when its sentence branches (branch()) */
        s->live = u % alt == 0;
        s->n_fin = 0;
        s->done = !s->live;
        s->logprob[0] = 0;
        for (int j = 0; j < K; j++)
            s->slot[j] = (int)o + j;
    }
    for (int i = 0; i < n; i++)
        b.n_alt[i] = 0;
    rows = (step_rows){0, b.tokens, b.slots, b.srcs, b.row_sent, b.hist, p->hf_beam, NULL, NULL};

    for (int pos = 0;; pos++) {
        int nr = 0, n_copy = 0;
        for (int u = 0; u < U; u++) {
            sentence *s = &b.S[u];
            if (s->done)
                continue;
            for (int j = 0; j < s->live; j++) {
                b.tokens[nr] = pos == 0 ? m->bos_id : s->ids[(size_t)j * mx + pos - 1];
                b.slots[nr] = s->slot[j];
                b.slot_tok[(size_t)s->slot[j] * mx + pos] = b.tokens[nr];
                b.slot_n[s->slot[j]] = pos + 1;
                b.srcs[nr] = u / alt;
                b.row_sent[nr] = u / alt;
                b.row_unit[nr] = u;
                b.row_beam[nr] = j;
                b.row_lp[nr] = s->logprob[j];
                b.hist[nr] = s->ids + (size_t)j * mx;
                nr++;
            }
        }
        if (nr == 0)
            break;
        rows.n = nr;
        m->step(m->user, nr, b.tokens, b.slots, b.srcs, pos, b.logits);
        if (A)
            memcpy(b.att_log + (size_t)pos * R * A, m->attention(m->user),
                   (size_t)nr * A * sizeof *b.att_log);
        {
            row_job rj = {m, &chain, p, &rows, max_len, b.row_beam, pos, b.logits, &b};
            /* the warpers' scratch (rows.work) is one: such a chain runs its rows in turn */
            run_tasks(m, !chain.work, nr, row_task, &rj);
            for (int r = 0; r < nr; r++)
                if (b.row_bad[r])
                    return search_step_fail(&rows, r, pos, err, errlen);
        }

        for (int r0 = 0; r0 < nr;) {
            int u = b.row_unit[r0], i = b.row_sent[r0], r1 = r0, nt = 0, new_live = 0, nfree = 0;
            sentence *s = &b.S[u];
            int last_step = pos + 1 >= max_len[i];
            cand *top = b.top;
            while (r1 < nr && b.row_unit[r1] == u)
                r1++;
            /* alternatives: the first position after the sentence's prefix */
            if (alt > 1 && u % alt == 0 && b.n_alt[i] == 0 &&
                pos == (p->rules.prefix ? p->rules.prefix_len[i] : 0)) {
                b.n_alt[i] = branch(m, &b, u, r0, pos, mx, last_step, alt, A, p);
                r0 = r1;
                continue;
            }
            /* the 2K best candidates over this sentence's live beams: its rows' best merged */
            for (int r = r0; r < r1; r++)
                for (int k = 0; k < b.row_nt[r]; k++)
                    top_insert(top, &nt, 2 * K, b.row_top[(size_t)r * 2 * K + k]);
            /* finished: eos within the first K; live: the first K others */
            for (int k = 0; k < nt; k++) {
                const cand *cd = &top[k];
                const int *pids = s->ids + (size_t)cd->parent * mx;
                const float *plp = s->tok_lp + (size_t)cd->parent * mx;
                const int *parow = A ? s->arow + (size_t)cd->parent * mx : NULL;
                float tlp = cd->logprob - s->logprob[cd->parent];
                int row = r0 + cd->parent; /* the step row of the parent */
                /* a token a processor forced away (a forced prefix or bos leaves one token):
                 * never a hypothesis, neither finished (it would count as one of the K) nor
                 * live */
                if (cd->logprob == -INFINITY)
                    continue;
                if (cd->token == m->eos_id) {
                    if (k < K) {
                        finish(s, pids, plp, parow, pos, m->eos_id, tlp, row, cd->logprob, 1,
                               p);
                        if (p->hf_beam)
                            hf_keep(s, K, p->length_penalty);
                    }
                    continue;
                }
                if (new_live == K)
                    continue;
                memcpy(b.ids_next + (size_t)new_live * mx, pids, pos * sizeof *pids);
                b.ids_next[(size_t)new_live * mx + pos] = cd->token;
                memcpy(b.lp_next + (size_t)new_live * mx, plp, pos * sizeof *plp);
                b.lp_next[(size_t)new_live * mx + pos] = tlp;
                if (A) {
                    memcpy(b.arow_next + (size_t)new_live * mx, parow, pos * sizeof *parow);
                    b.arow_next[(size_t)new_live * mx + pos] = row;
                }
                b.new_parent[new_live] = cd->parent;
                b.new_lp[new_live] = cd->logprob;
                new_live++;
            }
            /* slots: a parent's first child keeps it; the others copy into the slots of
             * parents without children (and slots never used yet) */
            for (int j = 0; j < K; j++)
                b.taken[j] = 0;
            for (int j = 0; j < new_live; j++) {
                b.first_child[j] = !b.taken[b.new_parent[j]];
                b.taken[b.new_parent[j]] = 1;
            }
            for (int j = 0; j < K; j++)
                if (j >= s->live || !b.taken[j])
                    b.fs[nfree++] = s->slot[j];
            for (int j = 0, f = 0; j < new_live; j++) {
                if (b.first_child[j]) {
                    b.new_slot[j] = s->slot[b.new_parent[j]];
                } else { /* copied after every sentence's choice, all at once (below), from
                          * the first position where the slots' tokens differ (the banner) */
                    int dst = b.fs[f++], src = s->slot[b.new_parent[j]], d = 0;
                    int *dt = b.slot_tok + (size_t)dst * mx;
                    const int *st = b.slot_tok + (size_t)src * mx;
                    int lim = b.slot_n[dst] < pos + 1 ? b.slot_n[dst] : pos + 1;
                    while (d < lim && dt[d] == st[d])
                        d++;
                    memcpy(dt + d, st + d, (size_t)(pos + 1 - d) * sizeof *dt);
                    b.slot_n[dst] = pos + 1;
                    b.new_slot[j] = dst;
                    b.copy_dst[n_copy] = dst;
                    b.copy_src[n_copy] = src;
                    b.copy_from[n_copy++] = d;
                }
            }
            for (int j = 0; j < new_live; j++) {
                s->slot[j] = b.new_slot[j];
                s->logprob[j] = b.new_lp[j];
            }
            /* the free slots no child took stay with the sentence, after the live ones */
            for (int j = new_live, f = new_live - (K - nfree); j < K; j++)
                s->slot[j] = b.fs[f++];
            memcpy(s->ids, b.ids_next, (size_t)new_live * mx * sizeof *b.ids_next);
            memcpy(s->tok_lp, b.lp_next, (size_t)new_live * mx * sizeof *b.lp_next);
            if (A)
                memcpy(s->arow, b.arow_next, (size_t)new_live * mx * sizeof *b.arow_next);
            s->live = new_live;
            if (p->hf_beam) {
                int done = hf_done(s, K, top[0].logprob, pos + 1, max_len[i], p);
                if (!done && last_step)
                    for (int j = 0; j < s->live; j++) {
                        finish(s, s->ids + (size_t)j * mx, s->tok_lp + (size_t)j * mx,
                               A ? s->arow + (size_t)j * mx : NULL, pos + 1, -1, 0, 0,
                               s->logprob[j], 0, p);
                        hf_keep(s, K, p->length_penalty);
                    }
                if (done || last_step || s->live == 0) {
                    s->live = 0;
                    s->done = 1;
                }
                r0 = r1;
                continue;
            }
            if (last_step) {
                for (int j = 0; j < s->live; j++)
                    finish(s, s->ids + (size_t)j * mx, s->tok_lp + (size_t)j * mx,
                           A ? s->arow + (size_t)j * mx : NULL, pos + 1, -1, 0, 0,
                           s->logprob[j], 0, p);
                s->live = 0;
            }
            if (s->n_fin >= K || s->live == 0)
                s->done = 1;
            r0 = r1;
        }
        /* the branching copies: each into a slot no parent kept, from a kept parent's slot,
         * so no copy reads what another writes, and they run at once */
        {
            copy_job cj = {m, b.copy_dst, b.copy_src, b.copy_from, pos + 1};
            run_tasks(m, 1, n_copy, copy_task, &cj);
        }
    }

    for (int i = 0; i < n; i++) {
        /* alternatives: each unit's best, in token order (unit i * alt alone when the
         * sentence never branched); else the sentence's n_best */
        int units = alt > 1 ? (b.n_alt[i] > 0 ? b.n_alt[i] : 1) : 1, nout = 0, g = 0;
        search_hyp *out = NULL;
        for (int k = 0; k < units; k++) {
            sentence *s = &b.S[i * alt + k];
            int keep = s->n_fin < p->n_best ? s->n_fin : p->n_best;
            if (alt > 1)
                keep = s->n_fin > 0;
            if (p->hf_beam)
                hf_rank(s);
            else
                rank_finished(s->fin, s->n_fin);
            for (int h = 0; A && h < keep; h++, g++) { /* their attention from the log */
                search_hyp *hy = &s->fin[h];
                hy->attention = b.gather + (size_t)g * mx * A;
                for (int t = 0; t < hy->n + hy->finished; t++)
                    memcpy(hy->attention + (size_t)t * A,
                           b.att_log + ((size_t)t * R + hy->att_rows[t]) * A,
                           A * sizeof(float));
            }
            if (alt == 1) {
                out = s->fin;
                nout = keep;
            } else if (keep) {
                b.alt_out[nout++] = s->fin[0];
            }
        }
        if (alt > 1)
            out = b.alt_out;
        if (emit(emit_user, i, out, nout, err, errlen))
            return -1;
    }
    return 0;
}
