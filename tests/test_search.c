/* test_search.c — greedy and beam search and the logits processors on a hand-made model whose
 * logits are written in the test: a tree of next-token probabilities over 6 tokens. Every
 * expected value is worked out by hand in the comments (probabilities multiplied along the
 * path, renormalized where a processor bans a token).
 *
 * The model keeps each cache slot's tokens, as the decoder keeps its KV cache, so a search that
 * hands slots on wrongly (or copies the wrong one when beams branch) reads the wrong prefix and
 * gets other logits. */
#include "check.h"
#include "decode/search.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { PAD, BOS, A, B, C, EOS, V };
#define SLOTS 16
#define CAP 8

/* One row of the tree: the prefix after bos ("ab" = A B) and the probability of each next
 * token. Prefixes not listed give eos 0.9. pad and bos get 1e-6, so they are never chosen. */
typedef struct {
    const char *prefix;
    double p[V];
} node;

typedef struct {
    const node *tree;
    int hist[SLOTS][CAP]; /* the tokens each slot has been fed, bos first */
    int steps;            /* calls to step */
    int max_rows;         /* the most rows one step had */
    int copied;           /* positions copy_slot copied */
} fake_model;

static const double *probs(const fake_model *f, const int *hist, int len)
{
    static const double dflt[V] = {1e-6, 1e-6, .025, .025, .05, .9};
    static const double lost[V] = {.9, .02, .02, .02, .02, .02}; /* a slot without its bos */
    char key[CAP + 1];
    int k = 0;
    if (hist[0] != BOS)
        return lost;
    for (int i = 1; i < len; i++) /* skip bos */
        key[k++] = (char)('a' + hist[i] - A);
    key[k] = 0;
    for (const node *n = f->tree; n->prefix; n++)
        if (strcmp(n->prefix, key) == 0)
            return n->p;
    return dflt;
}

static void fake_step(void *user, int rows, const int *tokens, const int *slots,
                      const int *srcs, int pos, float *logits)
{
    fake_model *f = user;
    (void)srcs;
    f->steps++;
    if (rows > f->max_rows)
        f->max_rows = rows;
    for (int r = 0; r < rows; r++) {
        const double *p;
        f->hist[slots[r]][pos] = tokens[r];
        p = probs(f, f->hist[slots[r]], pos + 1);
        for (int v = 0; v < V; v++)
            logits[r * V + v] = (float)log(p[v]);
    }
}

/* Positions [from, npos) only: a search that copies too few leaves a stale token in dst's
 * history, and the tree then gives that row other probabilities. */
static void fake_copy(void *user, int dst, int src, int from, int npos)
{
    fake_model *f = user;
    if (from < npos) {
        memcpy(f->hist[dst] + from, f->hist[src] + from, (npos - from) * sizeof(int));
        f->copied += npos - from;
    }
}

/* What the search emitted, copied. */
typedef struct {
    int n_hyps;
    int ids[4][CAP], n[4], finished[4];
    float logprob[4], score[4], tlp[4][CAP + 1];
    int has_tlp[4];
} got_sentence;

static int collect(void *user, int i, const search_hyp *h, int n_hyps, char *err, size_t errlen)
{
    got_sentence *g = (got_sentence *)user + i;
    (void)err;
    (void)errlen;
    g->n_hyps = n_hyps;
    for (int k = 0; k < n_hyps && k < 4; k++) {
        memcpy(g->ids[k], h[k].ids, h[k].n * sizeof(int));
        g->n[k] = h[k].n;
        g->finished[k] = h[k].finished;
        g->logprob[k] = h[k].logprob;
        g->score[k] = h[k].score;
        g->has_tlp[k] = h[k].token_logprobs != NULL;
        if (h[k].token_logprobs)
            memcpy(g->tlp[k], h[k].token_logprobs, (h[k].n + h[k].finished) * sizeof(float));
    }
    return 0;
}

/* log of p[tok] renormalized over the tokens not banned (banned: a bit set per token). */
static double lp(const double *p, int tok, unsigned banned)
{
    double s = 0;
    for (int v = 0; v < V; v++)
        if (!(banned >> v & 1))
            s += p[v];
    return log(p[tok] / s);
}

static search_params params(int beam, int n_best, float penalty)
{
    search_params p;
    memset(&p, 0, sizeof p);
    p.beam_size = beam;
    p.n_best = n_best;
    p.length_penalty = penalty;
    p.scores = 1;
    p.token_scores = 1;
    p.rules.eos_id = EOS;
    p.rules.pad_id = PAD;
    return p;
}

static int run(const node *tree, int n, const int *max_len, const search_params *p,
               got_sentence *got, fake_model *f)
{
    search_model m = {.vocab = V, .bos_id = BOS, .eos_id = EOS, .user = f, .step = fake_step,
                      .copy_slot = fake_copy};
    search_scratch s = {0};
    char err[256] = "";
    int rc;
    memset(f, 0, sizeof *f);
    f->tree = tree;
    memset(got, 0, n * sizeof *got);
    rc = search_run(&m, &s, n, max_len, p, collect, got, err, sizeof err);
    search_scratch_free(&s);
    if (rc)
        printf("# search_run: %s\n", err);
    return rc;
}

static int ids_are(const got_sentence *g, int k, const int *want, int n)
{
    if (g->n[k] != n)
        return 0;
    for (int i = 0; i < n; i++)
        if (g->ids[k][i] != want[i])
            return 0;
    return 1;
}

static int near(double a, double b) { return fabs(a - b) <= 1e-5 * (1 + fabs(b)); }

/* The tree of the greedy and beam checks. */
#define R0 {1e-6, 1e-6, .5, .4, .05, .05}
static const node tree1[] = {
    {"", R0},
    {"a", {1e-6, 1e-6, .2, .1, .1, .6}},
    {"b", {1e-6, 1e-6, .05, .05, .8, .1}},
    {"bc", {1e-6, 1e-6, .04, .03, .03, .9}},
    {"aa", {1e-6, 1e-6, .3, .1, .1, .5}},
    {NULL, {0}},
};

static void greedy_checks(void)
{
    fake_model f;
    got_sentence g[2];
    search_params p = params(1, 1, 1.0f);
    int ml[2] = {8, 1};
    const double *p0 = tree1[0].p, *pa = tree1[1].p, *paa = tree1[4].p;

    /* greedy: a (.5), then after a: eos (.6): "a", finished, logprob log .5 + log .6 (each
     * renormalized over the 1e-6 of pad and bos) */
    if (run(tree1, 2, ml, &p, g, &f))
        return;
    check(ids_are(&g[0], 0, (int[]){A}, 1) && g[0].finished[0] == 1, "greedy: argmax each step",
          "got %d tokens, finished %d", g[0].n[0], g[0].finished[0]);
    check(near(g[0].logprob[0], lp(p0, A, 0) + lp(pa, EOS, 0)) &&
              g[0].score[0] == g[0].logprob[0],
          "greedy: logprob is the sum of the chosen tokens' log-probs, score = logprob",
          "got %g, want %g", g[0].logprob[0], lp(p0, A, 0) + lp(pa, EOS, 0));
    check(g[0].has_tlp[0] && near(g[0].tlp[0][0], lp(p0, A, 0)) &&
              near(g[0].tlp[0][1], lp(pa, EOS, 0)),
          "greedy: token log-probs, eos included", "got %g %g", g[0].tlp[0][0], g[0].tlp[0][1]);
    /* max_len 1: one token, not eos: "a", unfinished */
    check(ids_are(&g[1], 0, (int[]){A}, 1) && g[1].finished[0] == 0,
          "greedy: a sentence stops unfinished at its max_len", "got %d tokens, finished %d",
          g[1].n[0], g[1].finished[0]);

    /* min_length 2: eos banned at steps 0 and 1. Step 0: a (.5 / .95); step 1 after a: eos
     * banned, a (.2 / .4); step 2 after aa: eos (.5). */
    p.rules.min_length = 2;
    if (run(tree1, 1, ml, &p, g, &f))
        return;
    {
        unsigned ban = 1u << EOS;
        double want = lp(p0, A, ban) + lp(pa, A, ban) + lp(paa, EOS, 0);
        check(ids_are(&g[0], 0, (int[]){A, A}, 2) && g[0].finished[0] == 1,
              "greedy min_length 2: eos not chosen before 2 tokens", "got %d tokens",
              g[0].n[0]);
        check(near(g[0].logprob[0], want), "greedy min_length 2: banned eos renormalizes the "
              "others' log-probs", "got %g, want %g", g[0].logprob[0], want);
    }
}

static const node tree_branch[] = {
    {"", {1e-6, 1e-6, .5, .4, .05, .05}},
    {"a", {1e-6, 1e-6, .45, .45, .05, .05}},
    {"b", {1e-6, 1e-6, .4, .4, .1, .1}},
    {"ab", {1e-6, 1e-6, .05, .02, .03, .9}},
    {"aa", {1e-6, 1e-6, .2, .2, .1, .5}},
    {NULL, {0}},
};

static void beam_checks(void)
{
    fake_model f;
    got_sentence g[2];
    search_params p = params(2, 2, 1.0f);
    int ml[2] = {8, 8};
    const double *p0 = tree1[0].p, *pa = tree1[1].p, *pb = tree1[2].p, *pbc = tree1[3].p,
                 *paa = tree1[4].p;
    /* K = 2. Step 0: live a (.5), b (.4). Step 1: the 4 best: bc .32, a-eos .30 (rank 1 < K:
     * finished), aa .10, ab .05: live bc, aa. Step 2: bc-eos .288 and aa-eos .05 finish (ranks
     * 0, 1): three finished >= K, done. Finished: "a" (.30, length 2 with eos), "bc" (.288,
     * length 3), "aa" (.05, length 3). Penalty 1: bc (log .288 / 3 = -0.415) before a (log .3 /
     * 2 = -0.602); penalty 0: a (-1.204) before bc (-1.245). */
    double lp_a = lp(p0, A, 0) + lp(pa, EOS, 0);
    double lp_bc = lp(p0, B, 0) + lp(pb, C, 0) + lp(pbc, EOS, 0);
    (void)paa;

    if (run(tree1, 2, ml, &p, g, &f))
        return;
    check(g[0].n_hyps == 2 && ids_are(&g[0], 0, (int[]){B, C}, 2) &&
              ids_are(&g[0], 1, (int[]){A}, 1),
          "beam 2, penalty 1: n-best ranked by logprob / length (bc, then a)",
          "got %d hyps, first has %d tokens", g[0].n_hyps, g[0].n[0]);
    check(near(g[0].logprob[0], lp_bc) && near(g[0].score[0], lp_bc / 3) &&
              near(g[0].logprob[1], lp_a) && near(g[0].score[1], lp_a / 2),
          "beam: logprob and score = logprob / (tokens + eos)", "got %g %g, want %g %g",
          g[0].score[0], g[0].score[1], lp_bc / 3, lp_a / 2);
    check(g[0].finished[0] && g[0].finished[1] && near(g[0].tlp[0][2], lp(pbc, EOS, 0)),
          "beam: token log-probs end with eos's", "got %g", g[0].tlp[0][2]);
    check(g[1].n_hyps == 2 && ids_are(&g[1], 0, (int[]){B, C}, 2),
          "beam: the second sentence of the batch decodes the same", "got %d hyps",
          g[1].n_hyps);
    check(f.max_rows == 4, "beam: 2 sentences x 2 beams a step", "got %d rows", f.max_rows);

    /* branching after step 1: aa .5 * .45 and ab .5 * .45 both children of a (b's .4 * .4
     * children are lower): ab copies a's cache into b's slot. Step 2: aa-eos .225 * .5 and ab-eos
     * .225 * .9 finish: "ab" (log .2025 / 3) then "aa" (log .1125 / 3). */
    if (run(tree_branch, 1, ml, &p, g, &f))
        return;
    check(ids_are(&g[0], 0, (int[]){A, B}, 2) && ids_are(&g[0], 1, (int[]){A, A}, 2) &&
              near(g[0].logprob[0], lp(tree_branch[0].p, A, 0) + lp(tree_branch[1].p, B, 0) +
                                        lp(tree_branch[3].p, EOS, 0)),
          "beam: a parent with two children, its cache copied", "got %d tokens first, %g",
          g[0].n[0], g[0].logprob[0]);

    p.length_penalty = 0;
    if (run(tree1, 1, ml, &p, g, &f))
        return;
    check(ids_are(&g[0], 0, (int[]){A}, 1) && ids_are(&g[0], 1, (int[]){B, C}, 2) &&
              near(g[0].score[0], lp_a),
          "beam, penalty 0: ranked by logprob (a, then bc)", "got %d tokens first",
          g[0].n[0]);

    p.n_best = 1;
    p.length_penalty = 1;
    if (run(tree1, 1, ml, &p, g, &f))
        return;
    check(g[0].n_hyps == 1 && ids_are(&g[0], 0, (int[]){B, C}, 2), "beam: n_best 1 keeps the "
          "best", "got %d hyps", g[0].n_hyps);

    /* min_length 2: a-eos is banned at step 1. Step 1 (eos banned, renormalized): bc .4 * .8 /
     * .9 = .356, aa .5 * .2 / .4 = .25 live. Step 2: bc-eos .320, aa-eos .125 finish: "bc"
     * then "aa". */
    p.n_best = 2;
    p.rules.min_length = 2;
    if (run(tree1, 1, ml, &p, g, &f))
        return;
    {
        unsigned ban = 1u << EOS;
        double want = lp(p0, A, ban) + lp(pa, A, ban) + lp(paa, EOS, 0);
        check(ids_are(&g[0], 0, (int[]){B, C}, 2) && ids_are(&g[0], 1, (int[]){A, A}, 2) &&
                  near(g[0].logprob[1], want),
              "beam min_length 2: no hypothesis ends before 2 tokens", "got %d, %d tokens",
              g[0].n[0], g[0].n[1]);
    }
}

/* Ties between finished hypotheses keep the order they finished in. max_len 2, K 2. Step 0:
 * a (.6), b (.3) live. Step 1 after a: a and eos both .4: candidates aa .24 (rank 0: a's id is
 * lower) and a-eos .24 (rank 1: finished now); then ba, bb .075: live aa, ba. The bound: aa
 * and ba finish unfinished, after a-eos. a-eos and aa tie (same float: same parent, same
 * logit) and have the same length (2 with eos, 2 tokens): a-eos first. */
static const node tree_tie[] = {
    {"", {1e-6, 1e-6, .6, .3, .05, .05}},
    {"a", {1e-6, 1e-6, .4, .1, .1, .4}},
    {"b", {1e-6, 1e-6, .25, .25, .25, .25}},
    {NULL, {0}},
};

static void tie_checks(void)
{
    fake_model f;
    got_sentence g[1];
    int ml[1] = {2};
    for (int k = 0; k < 2; k++) {
        search_params p = params(2, 2, k ? 1.0f : 0.0f);
        if (run(tree_tie, 1, ml, &p, g, &f))
            return;
        check(g[0].n_hyps == 2 && g[0].score[0] == g[0].score[1] &&
                  ids_are(&g[0], 0, (int[]){A}, 1) && g[0].finished[0] == 1 &&
                  ids_are(&g[0], 1, (int[]){A, A}, 2) && g[0].finished[1] == 0,
              k ? "beam ties (penalty 1): finishing order kept" :
                  "beam ties (penalty 0): finishing order kept",
              "got scores %g %g, first %d tokens finished %d", g[0].score[0], g[0].score[1],
              g[0].n[0], g[0].finished[0]);
    }
}

/* pad is the most likely token at step 0. */
static const node tree_pad[] = {
    {"", {.5, 1e-6, .3, .1, .05, .05}},
    {"a", {.5, 1e-6, .3, .1, .05, .05}},
    {NULL, {0}},
};

static void processor_checks(void)
{
    fake_model f;
    got_sentence g[1];
    int ml[1] = {8}, ml2[1] = {2};
    search_params p = params(1, 1, 1.0f);
    const double *p0 = tree_pad[0].p;

    /* no rule: greedy takes pad (id 0) */
    if (run(tree_pad, 1, ml, &p, g, &f))
        return;
    check(g[0].n[0] >= 1 && g[0].ids[0][0] == PAD, "without ban_pad greedy takes pad",
          "got %d", g[0].ids[0][0]);
    /* ban_pad: a (.3 / .5), then a again, ... */
    p.rules.ban_pad = 1;
    if (run(tree_pad, 1, ml, &p, g, &f))
        return;
    check(g[0].n[0] >= 1 && g[0].ids[0][0] == A && near(g[0].tlp[0][0], lp(p0, A, 1u << PAD)),
          "ban_pad: pad never chosen, the others renormalized", "got %d (%g)", g[0].ids[0][0],
          g[0].tlp[0][0]);
    for (int i = 0; i < g[0].n[0]; i++)
        if (g[0].ids[0][i] == PAD) {
            check(0, "ban_pad: at every step", "pad at %d", i);
            break;
        }

    /* force_eos, max_len 2: step 0 a; step 1 is the last: eos forced, log-prob 0 */
    p = params(1, 1, 1.0f);
    p.rules.force_eos = 1;
    if (run(tree1, 1, ml2, &p, g, &f))
        return;
    check(ids_are(&g[0], 0, (int[]){A}, 1) && g[0].finished[0] == 1,
          "force_eos: greedy ends with eos at the bound", "got %d tokens, finished %d",
          g[0].n[0], g[0].finished[0]);
    /* tree1 after a: eos .6 is chosen anyway; tree_pad (ban_pad) after a: a .3 would be */
    p.rules.ban_pad = 1;
    if (run(tree_pad, 1, ml2, &p, g, &f))
        return;
    check(ids_are(&g[0], 0, (int[]){A}, 1) && g[0].finished[0] == 1 && g[0].tlp[0][1] == 0,
          "force_eos: eos where another token leads, with log-prob 0", "got %d tokens, "
          "finished %d, eos %g", g[0].n[0], g[0].finished[0], g[0].tlp[0][1]);
    p.rules.force_eos = 0;
    if (run(tree_pad, 1, ml2, &p, g, &f))
        return;
    check(ids_are(&g[0], 0, (int[]){A, A}, 2) && g[0].finished[0] == 0,
          "without force_eos: unfinished at the bound", "got %d tokens", g[0].n[0]);
    /* beam with force_eos: every hypothesis at the bound ends with eos */
    p = params(2, 2, 1.0f);
    p.rules.force_eos = 1;
    p.rules.ban_pad = 1;
    if (run(tree_pad, 1, ml2, &p, g, &f))
        return;
    check(g[0].n_hyps == 2 && g[0].finished[0] && g[0].finished[1] && g[0].n[0] == 1 &&
              g[0].n[1] == 1,
          "force_eos: beam hypotheses at the bound all end with eos", "got %d hyps, finished "
          "%d %d", g[0].n_hyps, g[0].finished[0], g[0].finished[1]);

    /* the chain on one row, directly */
    {
        logits_rules rules = {.eos_id = EOS, .pad_id = PAD, .min_length = 3, .ban_pad = 1,
                              .force_eos = 1};
        logits_chain chain;
        float row[V] = {1, 2, 3, 4, 5, 6};
        logits_row lr = {&rules, V, 1, 5, NULL, 0, NULL, NULL};
        logits_chain_init(&chain, &rules);
        logits_apply(&chain, &lr, row);
        check(chain.n == 3 && isinf(row[EOS]) && isinf(row[PAD]) && row[A] == 3 && row[C] == 5,
              "logits chain: min_length bans eos, ban_pad bans pad, the rest untouched",
              "chain %d, eos %g pad %g", chain.n, row[EOS], row[PAD]);
        lr.pos = 4; /* the last token of max_len 5 */
        logits_apply(&chain, &lr, row);
        check(row[EOS] == 0 && isinf(row[A]) && isinf(row[BOS]),
              "logits chain: force_eos at the bound wins over min_length", "eos %g a %g",
              row[EOS], row[A]);
        memset(&rules, 0, sizeof rules);
        logits_chain_init(&chain, &rules);
        check(chain.n == 0, "logits chain: no rule, no processor", "got %d", chain.n);
        /* transformers' ForcedBOSTokenLogitsProcessor: at the first step (cur_len 1) every
         * score -inf but the forced token's 0; later steps untouched */
        rules.forced_bos = 1;
        rules.forced_bos_id = C;
        rules.eos_id = EOS;
        logits_chain_init(&chain, &rules);
        {
            float r0[V] = {1, 2, 3, 4, 5, 6}, r1[V] = {1, 2, 3, 4, 5, 6};
            int others = 0;
            lr.pos = 0;
            logits_apply(&chain, &lr, r0);
            for (int v = 0; v < V; v++)
                others += v != C && isinf(r0[v]) && r0[v] < 0;
            lr.pos = 1;
            logits_apply(&chain, &lr, r1);
            check(chain.n == 1 && r0[C] == 0 && others == V - 1 && r1[C] == 5 && r1[A] == 3,
                  "logits chain: forced_bos makes the first token the forced one (log-prob 0), "
                  "then leaves the rows alone", "chain %d, forced %g, %d others -inf, next %g",
                  chain.n, r0[C], others, r1[C]);
        }
    }
}

/* Sampling through the greedy strategy (logits.h's warpers and sampler). */
static void sampling_checks(void)
{
    fake_model f;
    got_sentence g[4], gg[4];
    int ml[4] = {8, 8, 8, 8};
    search_params p = params(1, 1, 1.0f);
    const double *p0 = tree1[0].p;
    long count[V] = {0};
    const int N = 4000;
    double chi = 0, z = 0;
    uint64_t streams[4] = {10, 11, 12, 13};

    /* top-k 1 (temperature 0.5 so the warpers run): greedy's tokens and nothing else */
    if (run(tree1, 4, ml, &p, gg, &f))
        return;
    p.rules.sampling = 1;
    p.rules.top_k = 1;
    p.rules.top_p = 1;
    p.rules.temperature = 0.5f;
    p.seed = 99;
    if (run(tree1, 4, ml, &p, g, &f))
        return;
    check(ids_are(&g[0], 0, gg[0].ids[0], gg[0].n[0]) &&
              ids_are(&g[3], 0, gg[3].ids[0], gg[3].n[0]),
          "sampling with top-k 1: greedy's tokens", "got %d tokens", g[0].n[0]);
    /* the first token over N one-sentence runs, stream s: the softmax of the first step
     * (tree1's root: pad and bos 1e-6, a .5, b .4, c .05, eos .05) */
    p.rules.top_k = 0;
    p.rules.temperature = 1;
    for (int s = 0; s < N; s++) {
        uint64_t st = (uint64_t)s;
        p.streams = &st;
        if (run(tree1, 1, ml, &p, g, &f))
            return;
        count[g[0].n[0] ? g[0].ids[0][0] : EOS]++;
    }
    for (int v = 0; v < V; v++)
        z += p0[v];
    for (int v = A; v < V; v++) {
        double e = N * p0[v] / z;
        chi += (count[v] - e) * (count[v] - e) / e;
    }
    /* 3 degrees of freedom (pad and bos, 2e-6, left out: expected 0.008 draws) */
    check(chi < 16.27 && count[PAD] + count[BOS] == 0, "sampling: the first token of 4000 "
          "streams follows the softmax (chi-square < 16.27)", "chi2 %g: %ld %ld %ld %ld", chi,
          count[A], count[B], count[C], count[EOS]);
    /* a sentence's draws are its stream's, whatever the batch: sentences 0..3 together vs one
     * at a time */
    p.streams = streams;
    if (run(tree1, 4, ml, &p, gg, &f))
        return;
    {
        int same = 1;
        for (int i = 0; i < 4; i++) {
            p.streams = &streams[i];
            if (run(tree1, 1, ml, &p, g, &f))
                return;
            same &= ids_are(&g[0], 0, gg[i].ids[0], gg[i].n[0]);
        }
        check(same, "sampling: each sentence draws the same alone as in a batch of 4",
              "differs");
    }
}

/* Alternatives (CTranslate2's return_alternatives): the 3 best first tokens, each continued
 * greedily, in their order. tree1's root: a .5, b .4, then c and eos tie at .05 (c, the lower
 * id). After a: eos .6; after b: c .8, then eos .9; after c: the default node, eos .9. */
static void alternative_checks(void)
{
    fake_model f;
    got_sentence g[2];
    int ml[2] = {8, 8};
    search_params p = params(1, 1, 1.0f);
    const double *p0 = tree1[0].p, *pb = tree1[2].p, *pbc = tree1[3].p;
    p.alternatives = 3;
    if (run(tree1, 2, ml, &p, g, &f))
        return;
    check(g[0].n_hyps == 3 && ids_are(&g[0], 0, (int[]){A}, 1) &&
              ids_are(&g[0], 1, (int[]){B, C}, 2) && ids_are(&g[0], 2, (int[]){C}, 1) &&
              g[1].n_hyps == 3 && ids_are(&g[1], 1, (int[]){B, C}, 2),
          "alternatives 3: a, b, c (c before eos on the tie) each continued greedily",
          "got %d hyps: %d %d %d tokens", g[0].n_hyps, g[0].n[0], g[0].n[1], g[0].n[2]);
    check(near(g[0].logprob[1], lp(p0, B, 0) + lp(pb, C, 0) + lp(pbc, EOS, 0)) &&
              g[0].finished[1],
          "alternatives: a hypothesis's logprob counts its first token's", "got %g",
          g[0].logprob[1]);
    check(f.max_rows <= 6, "alternatives: at most 3 rows a sentence", "%d rows", f.max_rows);
    /* 4: eos (.05, tied with c) is never an alternative (CTranslate2 expands them with eos
     * banned): the 4th is pad (1e-6, before bos on the tie), which the default node ends */
    p.alternatives = 4;
    if (run(tree1, 2, ml, &p, g, &f))
        return;
    check(g[0].n_hyps == 4 && ids_are(&g[0], 2, (int[]){C}, 1) &&
              ids_are(&g[0], 3, (int[]){PAD}, 1),
          "alternatives 4, greedy: never eos: a, b c, c, pad", "got %d hyps, the 4th %d tokens",
          g[0].n_hyps, g[0].n[3]);
}

/* Alternatives with beam 2 (CTranslate2's decode_alternatives continues them with the search
 * the options give): each alternative's own beam, its best returned. tree_alt's root is
 * tree1's. After a: eos .6. After b: a .5, c .4. After ba: a, b, c .3 each, eos .1. After bc:
 * eos .9. Every other prefix: the default node (eos .9, c .05, a and b .025).
 *   greedy: a; b a a (a first of the three ties); c.
 *   beam 2, alternative b: step 1: ba .2, bc .16, bb .02, b-eos .02 (rank 3: not finished):
 *     live ba, bc. Step 2: bc-eos .144 (rank 0: finished), baa, bab, bac .06: live baa, bab.
 *     Step 3: baa-eos, bab-eos .054 finish: 3 >= K, done. Penalty 1: bc log(.144) / 3 = -0.646
 *     beats baa log(.054) / 4 = -0.730: "b c", where greedy gave "b a a".
 *   alternative a: a-eos .3 finished (rank 0), live aa, ab; both end in eos (.09, .045):
 *     a's log(.3) / 2 = -0.602 beats aa's log(.09) / 3 = -0.803: "a". Alternative c: the same
 *     way, "c" (log(.045) / 2 = -1.55 against cc's log(.00225) / 3 = -2.03).
 *   4 alternatives: eos is never one (CTranslate2 expands them with eos banned), so after c
 *     comes pad (1e-6, before bos on the tie). Its beam: pad-eos finishes (.9 of it), live
 *     pad c, pad a, then pad c eos: log(1e-6 .045) / 3 = -5.6 beats log(1e-6 .9) / 2 = -6.9
 *     (the length penalty favours the longer one): "pad c".
 *   With the prefix "b" (forced, log-prob 0): the branching is at position 1, among b's
 *     children: a, c; alternative a continues as above from ba (live baa, bab, ... best "b a a"
 *     on the tie with "b a b", which finished later), alternative c is "b c". */
static const node tree_alt[] = {
    {"", R0},
    {"a", {1e-6, 1e-6, .2, .1, .1, .6}},
    {"b", {1e-6, 1e-6, .5, .05, .4, .05}},
    {"ba", {1e-6, 1e-6, .3, .3, .3, .1}},
    {"bc", {1e-6, 1e-6, .04, .03, .03, .9}},
    {NULL, {0}},
};

static void beam_alternative_checks(void)
{
    fake_model f;
    got_sentence g[2];
    int ml[2] = {8, 8};
    const double *p0 = tree_alt[0].p, *pb = tree_alt[2].p, *pba = tree_alt[3].p,
                 *pbc = tree_alt[4].p;
    static const double pd[V] = {1e-6, 1e-6, .025, .025, .05, .9}; /* probs()'s default node */
    search_params p = params(1, 1, 1.0f);
    double want;
    p.alternatives = 3;
    if (run(tree_alt, 2, ml, &p, g, &f))
        return;
    check(g[0].n_hyps == 3 && ids_are(&g[0], 0, (int[]){A}, 1) &&
              ids_are(&g[0], 1, (int[]){B, A, A}, 3) && ids_are(&g[0], 2, (int[]){C}, 1),
          "tree_alt, alternatives 3, greedy: a, b a a, c", "got %d hyps: %d %d %d tokens",
          g[0].n_hyps, g[0].n[0], g[0].n[1], g[0].n[2]);
    p = params(2, 1, 1.0f);
    p.alternatives = 3;
    if (run(tree_alt, 2, ml, &p, g, &f))
        return;
    check(g[0].n_hyps == 3 && ids_are(&g[0], 0, (int[]){A}, 1) &&
              ids_are(&g[0], 1, (int[]){B, C}, 2) && ids_are(&g[0], 2, (int[]){C}, 1) &&
              g[1].n_hyps == 3 && ids_are(&g[1], 1, (int[]){B, C}, 2),
          "alternatives 3, beam 2: a, b c (its beam's best; greedy's b a a loses), c",
          "got %d hyps: %d %d %d tokens", g[0].n_hyps, g[0].n[0], g[0].n[1], g[0].n[2]);
    want = lp(p0, B, 0) + lp(pb, C, 0) + lp(pbc, EOS, 0);
    check(near(g[0].logprob[1], want) && near(g[0].score[1], want / 3) && g[0].finished[1],
          "alternatives, beam 2: b c's logprob counts its first token's, score / length 3",
          "got %g, %g; want %g", g[0].logprob[1], g[0].score[1], want);
    check(near(g[0].tlp[1][0], lp(p0, B, 0)) && near(g[0].tlp[1][1], lp(pb, C, 0)),
          "alternatives, beam 2: token log-probs", "got %g %g", g[0].tlp[1][0], g[0].tlp[1][1]);
    check(near(g[0].logprob[2], lp(p0, C, 0) + lp(pd, EOS, 0)),
          "alternatives, beam 2: c's logprob", "got %g", g[0].logprob[2]);
    check(f.max_rows <= 12, "alternatives 3, beam 2: at most 6 rows a sentence", "%d rows",
          f.max_rows);
    p.alternatives = 4;
    if (run(tree_alt, 2, ml, &p, g, &f))
        return;
    check(g[0].n_hyps == 4 && ids_are(&g[0], 2, (int[]){C}, 1) &&
              ids_are(&g[0], 3, (int[]){PAD, C}, 2) && g[0].finished[3] &&
              near(g[0].logprob[3], lp(p0, PAD, 0) + lp(pd, C, 0) + lp(pd, EOS, 0)),
          "alternatives 4, beam 2: never eos (tied with c, whose place it would take): the "
          "4th starts with pad, its beam's best pad c", "got %d hyps, the 4th %d tokens",
          g[0].n_hyps, g[0].n[3]);
    {
        const int pre[1] = {B}, *pres[2] = {pre, NULL};
        int pre_len[2] = {1, 0};
        p.alternatives = 2;
        p.rules.prefix = pres;
        p.rules.prefix_len = pre_len;
        if (run(tree_alt, 2, ml, &p, g, &f))
            return;
        want = lp(pb, A, 0) + lp(pba, A, 0) + log(.9 / (.9 + .025 + .025 + .05 + 2e-6));
        check(g[0].n_hyps == 2 && ids_are(&g[0], 0, (int[]){B, A, A}, 3) &&
                  ids_are(&g[0], 1, (int[]){B, C}, 2) && near(g[0].logprob[0], want) &&
                  g[1].n_hyps == 2 && ids_are(&g[1], 0, (int[]){A}, 1) &&
                  ids_are(&g[1], 1, (int[]){B, C}, 2),
              "alternatives 2, beam 2, prefix b (none for sentence 2): b a a, b c after it, "
              "the prefix's token log-prob 0", "got %d hyps: %d %d tokens, logprob %g (want %g)",
              g[0].n_hyps, g[0].n[0], g[0].n[1], g[0].logprob[0], want);
    }
}

/* A copy into a slot that held another prefix: after step 1, aa and ab (.5 * .45 each) are
 * both children of a (b's children: .4 * .4), so ab copies a's cache into b's slot, which
 * holds [bos, b]: position 0 (bos) is the same, position 1 must be copied. A slot left with b
 * there would give "bb" (not in the tree: eos .9) instead of "ab" (c .9). Step 2: abc .2025,
 * aa-eos .1125 (rank 1 < K: finished), aaa .045, aab .045: live abc, aaa. Step 3: both end
 * (eos .9 after prefixes not in the tree): abc-eos .18225, aaa-eos .0405, three finished.
 * Penalty 1: abc (log .18225 / 4 = -0.43) before aa (log .1125 / 3 = -0.73). */
static const node tree_copy[] = {
    {"", {1e-6, 1e-6, .5, .4, .05, .05}},
    {"a", {1e-6, 1e-6, .45, .45, .05, .05}},
    {"b", {1e-6, 1e-6, .4, .4, .1, .1}},
    {"ab", {1e-6, 1e-6, .03, .03, .9, .04}},
    {"aa", {1e-6, 1e-6, .2, .2, .1, .5}},
    {NULL, {0}},
};

static void copy_checks(void)
{
    fake_model f;
    got_sentence g[1];
    search_params p = params(2, 2, 1.0f);
    int ml[1] = {8};
    const double *dflt = (const double[]){1e-6, 1e-6, .025, .025, .05, .9};
    double want = lp(tree_copy[0].p, A, 0) + lp(tree_copy[1].p, B, 0) +
                  lp(tree_copy[3].p, C, 0) + lp(dflt, EOS, 0);
    if (run(tree_copy, 1, ml, &p, g, &f))
        return;
    check(g[0].n_hyps == 2 && ids_are(&g[0], 0, (int[]){A, B, C}, 3) &&
              ids_are(&g[0], 1, (int[]){A, A}, 2) && near(g[0].logprob[0], want),
          "beam: a branch copied into a slot that held another prefix reads its parent's "
          "tokens (abc, then aa)", "got %d hyps, first %d tokens, logprob %g (want %g)",
          g[0].n_hyps, g[0].n[0], g[0].logprob[0], want);
    /* the copies: step 0, b from a into an unused slot: position 0; step 1, ab from a into
     * b's [bos, b]: position 1 only; step 3 (abca and abcc, both children of abc: .2025 * .025
     * and * .05, above aaa's), abca from abc's [bos, a, b, c] into aaa's [bos, a, a, a]:
     * positions 2 and 3. 4 positions (a whole-prefix copy each time: 1 + 2 + 4 = 7). */
    check(f.copied == 4, "beam: copies skip the positions both slots share: 4 positions copied",
          "got %d", f.copied);
}

int main(void)
{
    greedy_checks();
    alternative_checks();
    beam_alternative_checks();
    beam_checks();
    copy_checks();
    tie_checks();
    processor_checks();
    sampling_checks();
    return check_done();
}
