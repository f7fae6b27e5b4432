/* test_logits.c — each logits processor and sampling warper of src/decode/logits.c on
 * hand-written rows, the expected values worked out by hand in the comments from the
 * transformers v4.40 rule each follows (quoted in logits.c and tools/processors_reference.py);
 * then the sampler: its draws against the softmax (a chi-square bound at a fixed seed), streams
 * reproducible and independent. */
#include "check.h"
#include "decode/logits.h"
#include <math.h>
#include <stdint.h>
#include <string.h>

enum { PAD, BOS, A, B, C, D, EOS, UNK, V };

static logits_row row_of(const logits_rules *r, const int *hist, int pos, float *work,
                         int *iwork)
{
    logits_row lr = {r, V, pos, 100, hist, 0, work, iwork};
    return lr;
}

static void apply(const logits_rules *r, const int *hist, int pos, float *x)
{
    static float work[V];
    static int iwork[V];
    logits_chain c;
    logits_row lr = row_of(r, hist, pos, work, iwork);
    logits_chain_init(&c, r);
    logits_apply(&c, &lr, x);
}

static logits_rules base(void)
{
    logits_rules r;
    memset(&r, 0, sizeof r);
    r.eos_id = EOS;
    r.pad_id = PAD;
    r.start_id = BOS;
    r.unk_id = UNK;
    return r;
}

static int same(float a, float b) { return a == b || (isinf(a) && isinf(b) && a == b); }

static int row_is(const float *x, const float *want)
{
    for (int v = 0; v < V; v++)
        if (!same(x[v], want[v]))
            return 0;
    return 1;
}

static void show(const char *what, const float *x)
{
    printf("# %s:", what);
    for (int v = 0; v < V; v++)
        printf(" %g", x[v]);
    printf("\n");
}

#define NI (-INFINITY)

static void repetition_checks(void)
{
    logits_rules r = base();
    int hist[] = {A, C, A};
    float x[V] = {0.25f, 0.5f, 2.0f, 3.0f, -1.0f, -2.0f, 1.0f, 0.0f};
    /* input_ids = [BOS, A, C, A]: BOS 0.5 / 1.5, A 2 / 1.5 once (not / 2.25), C -1 * 1.5;
     * B, D, PAD, EOS untouched (D is negative but was not generated) */
    float want[V] = {0.25f, 0.5f / 1.5f, 2.0f / 1.5f, 3.0f, -1.5f, -2.0f, 1.0f, 0.0f};
    logits_chain c;
    r.repetition_penalty = 1.5f;
    apply(&r, hist, 3, x);
    if (!check(row_is(x, want), "repetition_penalty 1.5: positive logits of [start] + history "
               "divided, negative ones multiplied, each token once", "see below"))
        show("got", x);
    logits_chain_init(&c, &r);
    check(c.n == 1 && c.exact, "repetition_penalty: the chain is exact (the screen stands "
          "aside)", "n %d exact %d", c.n, c.exact);
    /* a penalty below 1 rewards: 0 stays 0 (0 / p), a negative gets closer to 0 */
    {
        float y[V] = {0, 0, 0, 0, 0, 0, 0, -4.0f};
        int h2[] = {UNK, PAD};
        r.repetition_penalty = 0.5f;
        apply(&r, h2, 2, y);
        check(y[UNK] == -2.0f && y[PAD] == 0 && y[BOS] == 0, "repetition_penalty 0.5: -4 "
              "becomes -2, 0 stays 0", "unk %g pad %g", y[UNK], y[PAD]);
    }
    r.repetition_penalty = 1.0f;
    logits_chain_init(&c, &r);
    check(c.n == 0 && !c.exact, "repetition_penalty 1: off", "n %d", c.n);
}

static void ngram_checks(void)
{
    logits_rules r = base();
    float x[V];
    /* n = 2, input_ids [BOS, A, B, A]: the last token A began the 2-gram (A, B): B banned */
    {
        int h[] = {A, B, A};
        float want[V] = {0, 0, 0, NI, 0, 0, 0, 0};
        memset(x, 0, sizeof x);
        r.no_repeat_ngram = 2;
        apply(&r, h, 3, x);
        check(row_is(x, want), "no_repeat_ngram 2: after ... A B A, B banned", "b %g", x[B]);
    }
    /* n = 3, [BOS, A, B, C, D, A, B]: (A, B) was followed by C: C banned, nothing else */
    {
        int h[] = {A, B, C, D, A, B};
        float want[V] = {0, 0, 0, 0, NI, 0, 0, 0};
        memset(x, 0, sizeof x);
        r.no_repeat_ngram = 3;
        apply(&r, h, 6, x);
        check(row_is(x, want), "no_repeat_ngram 3: after A B C D A B, C banned", "c %g", x[C]);
        /* the start token is part of input_ids: [BOS, A, B, BOS... ] cannot recur, but a
         * 3-gram (BOS, A, B) is one: after [BOS, A, B, C, BOS, A] the token B is banned */
    }
    {
        int h[] = {A, B, C, BOS, A};
        float want[V] = {0, 0, 0, NI, 0, 0, 0, 0};
        memset(x, 0, sizeof x);
        r.no_repeat_ngram = 3;
        apply(&r, h, 5, x);
        check(row_is(x, want), "no_repeat_ngram 3: the start token begins an n-gram "
              "(BOS A B, then BOS A: B banned)", "b %g", x[B]);
    }
    /* n = 1: every token of input_ids, the start token included */
    {
        int h[] = {C, A};
        float want[V] = {0, NI, NI, 0, NI, 0, 0, 0};
        memset(x, 0, sizeof x);
        r.no_repeat_ngram = 1;
        apply(&r, h, 2, x);
        check(row_is(x, want), "no_repeat_ngram 1: every token of [start] + history banned",
              "see row");
    }
    /* "if cur_len + 1 < ngram_size": nothing at step 0 with n = 3 (cur_len 1) */
    {
        float want[V] = {0};
        memset(x, 0, sizeof x);
        r.no_repeat_ngram = 3;
        apply(&r, NULL, 0, x);
        check(row_is(x, want), "no_repeat_ngram 3 at step 0: nothing banned", "see row");
    }
}

static void ban_checks(void)
{
    logits_rules r = base();
    int off[] = {0, 1, 3, 4}, ids[] = {C, A, B, EOS};
    int h1[] = {D, A}, h2[] = {A, D};
    float x[V];
    logits_chain c;
    /* [C] always, [A, B]: B after A, [EOS] ignored (transformers filters it out) */
    r.suppress = (logits_seqs){3, off, ids};
    memset(x, 0, sizeof x);
    apply(&r, h1, 2, x);
    check(isinf(x[C]) && isinf(x[B]) && x[EOS] == 0 && x[A] == 0,
          "suppress: [C] banned, [A B] bans B after A, [eos] ignored", "c %g b %g eos %g",
          x[C], x[B], x[EOS]);
    memset(x, 0, sizeof x);
    apply(&r, h2, 2, x);
    check(isinf(x[C]) && x[B] == 0, "suppress: B allowed where A is not the last token",
          "b %g", x[B]);
    logits_chain_init(&c, &r);
    check(!c.exact, "bans keep the screen", "exact %d", c.exact);
    /* the same rule as bad_words */
    r.suppress = (logits_seqs){0, NULL, NULL};
    r.bad = (logits_seqs){3, off, ids};
    memset(x, 0, sizeof x);
    apply(&r, h1, 2, x);
    check(isinf(x[C]) && isinf(x[B]) && x[EOS] == 0, "bad_words: the same rule", "b %g", x[B]);
    /* disable_unk */
    r = base();
    r.ban_unk = 1;
    memset(x, 0, sizeof x);
    apply(&r, h1, 2, x);
    check(isinf(x[UNK]) && x[A] == 0 && x[PAD] == 0, "disable_unk: unk banned, nothing else",
          "unk %g", x[UNK]);
}

static void forced_checks(void)
{
    logits_rules r = base();
    int sup[] = {D, A}, begin[] = {B, EOS}, h[] = {C, C};
    float x[V];
    /* forced_bos C at step 0 only: every other -inf, C 0 */
    r.forced_bos = 1;
    r.forced_bos_id = C;
    for (int v = 0; v < V; v++)
        x[v] = (float)v;
    apply(&r, h, 0, x);
    check(x[C] == 0 && isinf(x[A]) && isinf(x[EOS]), "forced_bos: step 0 is the forced token "
          "with log-probability 0", "c %g a %g", x[C], x[A]);
    for (int v = 0; v < V; v++)
        x[v] = (float)v;
    apply(&r, h, 1, x);
    check(x[C] == C && x[A] == A, "forced_bos: later steps untouched", "c %g", x[C]);
    /* suppress_tokens always; begin_suppress_tokens at begin_pos only */
    r = base();
    r.n_suppress_tokens = 2;
    r.suppress_tokens = sup;
    r.n_begin_suppress = 2;
    r.begin_suppress = begin;
    r.begin_pos = 1;
    memset(x, 0, sizeof x);
    apply(&r, h, 0, x);
    check(isinf(x[D]) && isinf(x[A]) && x[B] == 0 && x[EOS] == 0,
          "suppress_tokens at step 0, begin_suppress_tokens not (begin_pos 1)", "b %g", x[B]);
    memset(x, 0, sizeof x);
    apply(&r, h, 1, x);
    check(isinf(x[D]) && isinf(x[B]) && isinf(x[EOS]) && x[C] == 0,
          "begin_suppress_tokens at begin_pos 1", "b %g eos %g", x[B], x[EOS]);
    memset(x, 0, sizeof x);
    apply(&r, h, 2, x);
    check(x[B] == 0 && isinf(x[D]), "begin_suppress_tokens: not after", "b %g", x[B]);
}

/* log of each probability: a row whose softmax is p */
static void logs(float *x, const double *p)
{
    for (int v = 0; v < V; v++)
        x[v] = p[v] > 0 ? (float)log(p[v]) : NI;
}

static void warper_checks(void)
{
    logits_rules r = base();
    float x[V];
    r.sampling = 1;
    r.top_p = 1;
    /* temperature 0.5: x / 0.5 */
    r.temperature = 0.5f;
    {
        float y[V] = {1, -2, 0.25f, 3, 0, 0, 0, 0}, want[V] = {2, -4, 0.5f, 6, 0, 0, 0, 0};
        apply(&r, NULL, 0, y);
        check(row_is(y, want), "temperature 0.5: logits doubled", "a %g", y[A]);
    }
    r.temperature = 1;
    /* top-k: "scores < topk(scores, k)[-1]" removed; ties with the k-th kept */
    {
        float y[V] = {1, 3, 3, 2, 0, NI, -5, 2}, want2[V] = {NI, 3, 3, NI, NI, NI, NI, NI};
        float want3[V] = {NI, 3, 3, 2, NI, NI, NI, 2};
        float z[V];
        memcpy(z, y, sizeof z);
        r.top_k = 2;
        apply(&r, NULL, 0, z);
        check(row_is(z, want2), "top_k 2: the two 3s kept", "see row");
        memcpy(z, y, sizeof z);
        r.top_k = 1;
        apply(&r, NULL, 0, z);
        check(row_is(z, want2), "top_k 1: both tokens tied at the top kept", "see row");
        memcpy(z, y, sizeof z);
        r.top_k = 3;
        apply(&r, NULL, 0, z);
        check(row_is(z, want3), "top_k 3: the k-th is 2, both 2s kept (4 tokens)", "see row");
        memcpy(z, y, sizeof z);
        r.top_k = V;
        apply(&r, NULL, 0, z);
        check(row_is(z, y), "top_k = vocab: nothing removed", "see row");
        r.top_k = 0;
    }
    /* top-p on p = .5 .3 .15 .05 (tokens C A D B; the rest 0) and one far below:
     * transformers sorts ascending .05 .15 .3 .5, cumsum .05 .2 .5 1: removes cumsum <= 1 - p */
    {
        static const double p[V] = {0, 0, .3, .05, .5, .15, 0, 0};
        struct {
            float top_p;
            unsigned keep; /* bit per token */
        } cases[] = {
            {0.7f, 1u << C | 1u << A},               /* removes <= .3: .05, .15 */
            {0.85f, 1u << C | 1u << A | 1u << D},    /* removes <= .15: .05 */
            {0.4f, 1u << C},                          /* removes <= .6: all but .5 */
            {0.99f, 1u << C | 1u << A | 1u << D | 1u << B}, /* removes <= .01: none of the 4 */
        };
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            int good = 1;
            logs(x, p);
            r.top_p = cases[k].top_p;
            apply(&r, NULL, 0, x);
            for (int v = 0; v < V; v++)
                good &= (cases[k].keep >> v & 1) ? !isinf(x[v]) : isinf(x[v]) && x[v] < 0;
            if (!check(good, "top_p: the tokens transformers keeps", "top_p %g",
                       (double)cases[k].top_p))
                show("got", x);
        }
        r.top_p = 1;
    }
    /* four tokens of .2475, four of .0025 (ids 4-7): top_p .994 keeps the big four and, in
     * descending order with ties to the lower id, id 4 (mass before .99) and id 5 (.9925); id 6
     * has .995 before it (transformers: ascending cumsum .0025 .005 .0075 <= .006 removes the
     * two smallest). None of them is below the cut (1 - .994) / 16 = 3.75e-4. */
    {
        static const double p[V] = {.2475, .2475, .2475, .2475, .0025, .0025, .0025, .0025};
        logs(x, p);
        r.top_p = 0.994f;
        apply(&r, NULL, 0, x);
        check(!isinf(x[PAD]) && !isinf(x[B]) && !isinf(x[C]) && !isinf(x[D]) && isinf(x[EOS]) &&
                  isinf(x[UNK]),
              "top_p .994: the two lowest-ranked small tokens dropped", "c %g d %g eos %g",
              x[C], x[D], x[EOS]);
        r.top_p = 1;
    }
    /* 2000 random rows (values on a grid of 0.25, so ties happen) against the rule walked
     * plainly: sort by (logit desc, id asc), keep the first and each next token while the mass
     * before it is < top_p (double); rows whose boundary mass lies within 1e-5 of top_p skipped */
    {
        uint64_t st = logits_rng_seed(3, 3);
        int bad = 0, rows = 0;
        for (int t = 0; t < 2000; t++) {
            float y[V];
            int order[V], keep[V];
            double mx = -1e30, z = 0, before = 0, close = 1;
            for (int v = 0; v < V; v++) {
                y[v] = (float)(0.25 * (int)(logits_rng_uniform(&st) * 16) - 2);
                order[v] = v;
                mx = y[v] > mx ? y[v] : mx;
            }
            for (int a = 1; a < V; a++) /* insertion sort by rank */
                for (int b = a; b > 0 && (y[order[b]] > y[order[b - 1]] ||
                                          (y[order[b]] == y[order[b - 1]] &&
                                           order[b] < order[b - 1])); b--) {
                    int tt = order[b];
                    order[b] = order[b - 1];
                    order[b - 1] = tt;
                }
            for (int v = 0; v < V; v++)
                z += exp(y[v] - mx);
            r.top_p = (float)(0.05 + 0.9 * logits_rng_uniform(&st));
            for (int k = 0; k < V; k++) {
                keep[order[k]] = k == 0 || before < r.top_p;
                if (k > 0 && fabs(before - r.top_p) < close)
                    close = fabs(before - r.top_p);
                before += exp(y[order[k]] - mx) / z;
            }
            if (close < 1e-5)
                continue;
            rows++;
            apply(&r, NULL, 0, y);
            for (int v = 0; v < V; v++)
                bad += keep[v] != !isinf(y[v]);
        }
        check(bad == 0 && rows > 1500, "top_p on random rows with ties: the rule walked plainly",
              "%d tokens differ over %d rows", bad, rows);
        r.top_p = 1;
    }
    /* the chain order: temperature, then top-k, then top-p (all exact) */
    {
        logits_chain c;
        r.temperature = 2;
        r.top_k = 3;
        r.top_p = 0.5f;
        logits_chain_init(&c, &r);
        check(c.n == 3 && c.exact && c.work, "sampling warpers: 3 processors, exact, with "
              "scratch", "n %d", c.n);
        r.sampling = 0;
        logits_chain_init(&c, &r);
        check(c.n == 0, "without sampling the warpers are off", "n %d", c.n);
    }
}

static void sampler_checks(void)
{
    /* probabilities .5 .3 .15 .05 over A B C D (pad, bos, eos: -inf) */
    static const double p[V] = {0, 0, .5, .3, .15, .05, 0, 0};
    float x[V];
    long count[V] = {0};
    const long N = 200000;
    uint64_t s = logits_rng_seed(42, 7), s2;
    double chi = 0;
    int rep = 1, differ = 0;
    logs(x, p);
    for (long i = 0; i < N; i++)
        count[logits_sample(x, V, &s)]++;
    for (int v = 0; v < V; v++)
        if (p[v] > 0)
            chi += (count[v] - N * p[v]) * (count[v] - N * p[v]) / (N * p[v]);
    /* 3 degrees of freedom: P(chi2 > 16.27) = 0.001 */
    check(chi < 16.27 && count[PAD] + count[BOS] + count[EOS] + count[UNK] == 0,
          "logits_sample: 200000 draws match the softmax (chi-square < 16.27, 3 df)",
          "chi2 %g, counts %ld %ld %ld %ld", chi, count[A], count[B], count[C], count[D]);
    /* the same seed and stream: the same draws; another stream or seed: others */
    s = logits_rng_seed(5, 3);
    s2 = logits_rng_seed(5, 3);
    for (int i = 0; i < 100; i++)
        rep &= logits_sample(x, V, &s) == logits_sample(x, V, &s2);
    check(rep, "a stream's draws repeat with its seed", "differ");
    s = logits_rng_seed(5, 3);
    s2 = logits_rng_seed(5, 4);
    for (int i = 0; i < 100; i++)
        differ += logits_sample(x, V, &s) != logits_sample(x, V, &s2);
    check(differ > 20, "streams 3 and 4 draw differently", "%d of 100 differ", differ);
    {
        uint64_t a = logits_rng_seed(5, 3), b = logits_rng_seed(6, 3);
        check(a != b, "seeds 5 and 6 give other streams", "same state");
    }
    /* a single token left (top-k 1 after the warpers): always drawn */
    {
        float y[V] = {NI, NI, NI, 1.0f, NI, NI, NI, NI};
        int all = 1;
        s = logits_rng_seed(1, 1);
        for (int i = 0; i < 1000; i++)
            all &= logits_sample(y, V, &s) == B;
        check(all, "one finite logit: always drawn", "other token");
    }
}

int main(void)
{
    repetition_checks();
    ngram_checks();
    ban_checks();
    forced_checks();
    warper_checks();
    sampler_checks();
    return check_done();
}
