/* logits.c — the logits processors (logits.h): one function a rule, one table entry each.
 * Each cites the transformers v4.40 class it follows (generation/logits_process.py; the rules
 * are quoted, since the stored copies of the file are of other versions). */
#include "decode/logits.h"
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Token i of transformers' input_ids for this row: the start token, then the history. */
static inline int seq_at(const logits_row *r, int i)
{
    return i == 0 ? r->rules->start_id : r->history[i - 1];
}

/* RepetitionPenaltyLogitsProcessor: "score = torch.gather(scores, 1, input_ids); score =
 * torch.where(score < 0, score * self.penalty, score / self.penalty); scores.scatter_(1,
 * input_ids, score)": every token of input_ids once (a repeated one is gathered from the
 * unchanged scores each time, so penalized once), the start token included. */
static int repetition_on(const logits_rules *r)
{
    return r->repetition_penalty > 0 && r->repetition_penalty != 1;
}
/* The product or quotient in double, held inside the float range: a penalty as small as the
 * smallest float (1.4e-45) divides a logit of 1 to 7e44, past FLT_MAX, and an inf logit
 * would make the log-softmax NaN (issue 37). A finite value is the float of the exact result
 * (double rounding is harmless for one division or product); a larger one is +-FLT_MAX, so
 * the penalized tokens stay ordered above (below) every other one. */
static inline float saturate(double x)
{
    return x > FLT_MAX ? FLT_MAX : x < -FLT_MAX ? -FLT_MAX : (float)x;
}
static void repetition(const logits_row *r, float *logits)
{
    double p = r->rules->repetition_penalty;
    for (int i = 0; i <= r->pos; i++) {
        int t = seq_at(r, i), seen = 0;
        if (t < 0 || t >= r->vocab)
            continue;
        for (int j = 0; j < i && !seen; j++) /* O(len^2) compares: small beside a step */
            seen = seq_at(r, j) == t;
        if (!seen && isfinite(logits[t]))
            logits[t] = saturate(logits[t] < 0 ? logits[t] * p : logits[t] / p);
    }
}

/* NoRepeatNGramLogitsProcessor (_calc_banned_ngram_tokens): with cur_len = len(input_ids),
 * nothing "if cur_len + 1 < ngram_size"; else every n-gram of input_ids whose first n-1 tokens
 * are input_ids[cur_len + 1 - n : cur_len] bans its last token. */
static int ngram_on(const logits_rules *r) { return r->no_repeat_ngram > 0; }
static void ngram(const logits_row *r, float *logits)
{
    int n = r->rules->no_repeat_ngram, len = r->pos + 1, tail = len + 1 - n;
    if (len + 1 < n)
        return;
    for (int j = 0; j + n <= len; j++) {
        int k = 0, t;
        while (k < n - 1 && seq_at(r, j + k) == seq_at(r, tail + k))
            k++;
        if (k < n - 1)
            continue;
        t = seq_at(r, j + n - 1);
        if (t >= 0 && t < r->vocab)
            logits[t] = -INFINITY;
    }
}

/* The last token of a sequence is banned where the row's tokens end with its other tokens.
 * NoBadWordsLogitsProcessor (a SequenceBiasLogitsProcessor of -inf biases): one-token
 * sequences always; a longer one "if len(sequence_ids) > input_ids.shape[1]: continue", else
 * where input_ids[:, -prefix_length:] equals its prefix; sequences == [eos] are filtered out.
 * With input_ids = [start] + history that is: len - 1 <= pos and the history ends with it. */
static void ban_seqs(const logits_row *r, const logits_seqs *s, float *logits)
{
    for (int k = 0; k < s->n; k++) {
        const int *seq = s->ids + s->off[k];
        int len = s->off[k + 1] - s->off[k];
        if (len == 1 && seq[0] == r->rules->eos_id)
            continue;
        if (len - 1 > r->pos ||
            (len > 1 && memcmp(r->history + r->pos - (len - 1), seq, (len - 1) * sizeof *seq)))
            continue;
        if (seq[len - 1] >= 0 && seq[len - 1] < r->vocab)
            logits[seq[len - 1]] = -INFINITY;
    }
}
static int bad_words_on(const logits_rules *r) { return r->bad.n > 0; }
static void bad_words(const logits_row *r, float *logits) { ban_seqs(r, &r->rules->bad, logits); }
/* xlate's --suppress: CTranslate2's suppress_sequences, the same rule as bad words */
static int suppress_seqs_on(const logits_rules *r) { return r->suppress.n > 0; }
static void suppress_seqs(const logits_row *r, float *logits)
{
    ban_seqs(r, &r->rules->suppress, logits);
}

/* --disable-unk (CTranslate2's disable_unk): unk is never generated. */
static int unk_on(const logits_rules *r) { return r->ban_unk && r->unk_id >= 0; }
static void ban_unk(const logits_row *r, float *logits)
{
    if (r->rules->unk_id < r->vocab)
        logits[r->rules->unk_id] = -INFINITY;
}

/* eos is not chosen before min_length tokens. */
static int min_length_on(const logits_rules *r) { return r->min_length > 0; }
static void min_length_ban(const logits_row *r, float *logits)
{
    if (r->pos < r->rules->min_length)
        logits[r->rules->eos_id] = -INFINITY;
}

/* pad is never generated (a pad id that is eos would stop every sentence: left alone). */
static int ban_pad_on(const logits_rules *r)
{
    return r->ban_pad && r->pad_id >= 0 && r->pad_id != r->eos_id;
}
static void ban_pad(const logits_row *r, float *logits) { logits[r->rules->pad_id] = -INFINITY; }

/* Every logit -inf but tok's, which becomes 0 (log-probability 0). */
static void force(float *logits, int vocab, int tok)
{
    for (int v = 0; v < vocab; v++)
        logits[v] = -INFINITY;
    if (tok >= 0 && tok < vocab)
        logits[tok] = 0;
}

/* ForcedBOSTokenLogitsProcessor: "if cur_len == 1:" every score -inf, bos_token_id's 0. */
static int forced_bos_on(const logits_rules *r) { return r->forced_bos; }
static void forced_bos(const logits_row *r, float *logits)
{
    if (r->pos == 0)
        force(logits, r->vocab, r->rules->forced_bos_id);
}

/* The last token a row may generate is eos (ForcedEOSTokenLogitsProcessor: "if cur_len ==
 * self.max_length - 1"), its log-probability 0; a min_length ban before it is overridden. */
static int force_eos_on(const logits_rules *r) { return r->force_eos; }
static void force_eos(const logits_row *r, float *logits)
{
    if (r->pos + 1 < r->max_len)
        return;
    force(logits, r->vocab, r->rules->eos_id);
}

/* SuppressTokensLogitsProcessor: "scores[:, self.suppress_tokens] = -float("inf")". */
static int suppress_tokens_on(const logits_rules *r) { return r->n_suppress_tokens > 0; }
static void suppress_tokens(const logits_row *r, float *logits)
{
    for (int k = 0; k < r->rules->n_suppress_tokens; k++)
        if (r->rules->suppress_tokens[k] >= 0 && r->rules->suppress_tokens[k] < r->vocab)
            logits[r->rules->suppress_tokens[k]] = -INFINITY;
}

/* SuppressTokensAtBeginLogitsProcessor: "if input_ids.shape[1] == self.begin_index" the
 * tokens are -inf; begin_pos = begin_index - 1 (the start token counted in input_ids). */
static int begin_suppress_on(const logits_rules *r) { return r->n_begin_suppress > 0; }
static void begin_suppress(const logits_row *r, float *logits)
{
    if (r->pos != r->rules->begin_pos)
        return;
    for (int k = 0; k < r->rules->n_begin_suppress; k++)
        if (r->rules->begin_suppress[k] >= 0 && r->rules->begin_suppress[k] < r->vocab)
            logits[r->rules->begin_suppress[k]] = -INFINITY;
}

/* A target prefix (CTranslate2's target_prefix): while the row has generated fewer tokens than
 * its sentence's prefix, the prefix's next token is forced (log-probability 0). */
static int prefix_on(const logits_rules *r) { return r->prefix != NULL; }
static void prefix(const logits_row *r, float *logits)
{
    const logits_rules *ru = r->rules;
    if (r->pos < ru->prefix_len[r->sentence])
        force(logits, r->vocab, ru->prefix[r->sentence][r->pos]);
}

/* TemperatureLogitsWarper: "scores = scores / self.temperature". */
static int temperature_on(const logits_rules *r)
{
    return r->sampling && r->temperature > 0 && r->temperature != 1;
}
/* x / t in double, the float of the exact quotient (the same bits as float division) while
 * every quotient fits a float. When one does not (t as small as 1e-38: issue 37), the row is
 * shifted by its largest logit first, (x - max) / t, held at -FLT_MAX below: softmax, top-k
 * and top-p do not change with a shift, and the largest token is 0, so no value overflows and
 * the sample is the one of the exact quotients (at such a t, the argmax). */
static void temperature(const logits_row *r, float *logits)
{
    double t = r->rules->temperature, mx = -INFINITY;
    int over = 0;
    for (int v = 0; v < r->vocab; v++) {
        double q = logits[v] / t;
        over |= isfinite(logits[v]) && fabs(q) > FLT_MAX;
        mx = logits[v] > mx ? logits[v] : mx;
    }
    if (!over) {
        for (int v = 0; v < r->vocab; v++)
            logits[v] = (float)(logits[v] / t);
        return;
    }
    for (int v = 0; v < r->vocab; v++)
        if (logits[v] != -INFINITY)
            logits[v] = saturate((logits[v] - mx) / t);
}

/* The k-th largest of a[0..n) (k from 1), reordering a: quickselect, median-of-three pivots. */
static float kth_largest(float *a, int n, int k)
{
    int lo = 0, hi = n - 1, want = k - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, i = lo, j = hi;
        float x = a[lo], y = a[mid], z = a[hi], piv;
        piv = x > y ? (y > z ? y : x > z ? z : x) : (x > z ? x : y > z ? z : y);
        while (i <= j) { /* descending: a[lo..j] >= piv >= a[i..hi] */
            while (a[i] > piv)
                i++;
            while (a[j] < piv)
                j--;
            if (i <= j) {
                float t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (want <= j)
            hi = j;
        else if (want >= i)
            lo = i;
        else
            return a[want];
    }
    return a[want];
}

/* TopKLogitsWarper: "top_k = min(self.top_k, scores.size(-1)); indices_to_remove = scores <
 * torch.topk(scores, top_k)[0][..., -1, None]" (min_tokens_to_keep 1 without beams): ties
 * with the k-th value are kept. */
static int top_k_on(const logits_rules *r) { return r->sampling && r->top_k > 0; }
static void top_k(const logits_row *r, float *logits)
{
    int k = r->rules->top_k;
    float kth;
    if (k >= r->vocab)
        return;
    memcpy(r->work, logits, r->vocab * sizeof *logits);
    kth = kth_largest(r->work, r->vocab, k);
    for (int v = 0; v < r->vocab; v++)
        if (logits[v] < kth)
            logits[v] = -INFINITY;
}

/* Token a ranks before token b: the higher logit, ties to the lower id. */
static inline int ranks_before(const float *x, int a, int b)
{
    return x[a] > x[b] || (x[a] == x[b] && a < b);
}

/* TopPLogitsWarper: "sorted_logits, sorted_indices = torch.sort(scores, descending=False);
 * cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1); sorted_indices_to_remove =
 * cumulative_probs <= (1 - self.top_p); sorted_indices_to_remove[..., -self.min_tokens_to_keep
 * :] = 0". A token's ascending cumulative probability is 1 minus the mass of the tokens above
 * it, so it is removed when the tokens ranked above it (higher logit, ties: lower id) hold
 * >= top_p: the first token is kept, and each next one while the mass before it is < top_p.
 * Only the tokens that could stay are looked at: a token of probability p has above it at
 * least 1 - vocab * p (the others below it hold at most (vocab - 1) p), so one with p <=
 * (1 - top_p) / (2 vocab) is removed whatever the order (by a margin of (1 - top_p) / 2, far
 * beyond the sums' rounding), and so are tokens below the best by more than 40 (ratio e^-40:
 * all of them hold less than vocab * e^-40, far below the 2^-24 between the largest float
 * top_p below 1 and 1). The boundary among the others is found without sorting them: a
 * quickselect on rank that keeps the mass ranked above the range in hand (masses from
 * work[v] = e^(x - mx) / z, float). */
static int top_p_on(const logits_rules *r)
{
    return r->sampling && r->top_p > 0 && r->top_p < 1;
}
static void top_p(const logits_row *r, float *logits)
{
    int V = r->vocab, n = 0, lo = 0, hi;
    int *id = r->iwork;
    float *w = r->work, mx = -INFINITY;
    double z = 0, above = 0, cut, P = r->rules->top_p;
    for (int v = 0; v < V; v++)
        mx = logits[v] > mx ? logits[v] : mx;
    if (mx == -INFINITY)
        return;
    for (int v = 0; v < V; v++) {
        double e = exp((double)logits[v] - mx);
        w[v] = (float)e;
        z += e;
    }
    cut = (1 - P) / (2.0 * V) * z;
    for (int v = 0; v < V; v++) {
        if (logits[v] >= mx - 40 && w[v] > cut)
            id[n++] = v;
        else
            logits[v] = -INFINITY;
    }
    for (int k = 0; k < n; k++)
        w[id[k]] = (float)(w[id[k]] / z);
    /* id[0..lo): kept; id[hi..n): removed; the boundary is in [lo, hi) */
    hi = n;
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2, piv = id[mid], m = lo, t;
        double left = 0;
        id[mid] = id[hi - 1];
        id[hi - 1] = piv;
        for (int k = lo; k < hi - 1; k++) /* those ranked before the pivot to the front */
            if (ranks_before(logits, id[k], piv)) {
                t = id[k], id[k] = id[m], id[m] = t;
                left += w[id[m]];
                m++;
            }
        id[hi - 1] = id[m];
        id[m] = piv;
        if (m > 0 && above + left >= P) { /* the pivot and all after it go */
            hi = m;
        } else { /* the pivot stays (the first always does), and all before it */
            above += left + w[piv];
            lo = m + 1;
        }
    }
    if (lo < hi && lo > 0 && above >= P) /* the last one in hand */
        hi = lo;
    else if (lo < hi)
        hi = lo + 1;
    for (int k = hi; k < n; k++)
        logits[id[k]] = -INFINITY;
}

/* The processors in the order they apply (logits.h); exact: it changes values (the screen's
 * bounds would not hold); work: it needs logits_row.work / iwork. */
static const struct {
    const char *name;
    int (*on)(const logits_rules *r);
    logits_fn apply;
    int exact, work;
} processors[] = {
    {"repetition_penalty", repetition_on, repetition, 1, 0},
    {"no_repeat_ngram", ngram_on, ngram, 0, 0},
    {"bad_words", bad_words_on, bad_words, 0, 0},
    {"suppress", suppress_seqs_on, suppress_seqs, 0, 0},
    {"disable_unk", unk_on, ban_unk, 0, 0},
    {"min_length", min_length_on, min_length_ban, 0, 0},
    {"ban_pad", ban_pad_on, ban_pad, 0, 0},
    {"forced_bos", forced_bos_on, forced_bos, 0, 0},
    {"force_eos", force_eos_on, force_eos, 0, 0},
    {"suppress_tokens", suppress_tokens_on, suppress_tokens, 0, 0},
    {"begin_suppress_tokens", begin_suppress_on, begin_suppress, 0, 0},
    {"target_prefix", prefix_on, prefix, 0, 0},
    {"temperature", temperature_on, temperature, 1, 0},
    {"top_k", top_k_on, top_k, 1, 1},
    {"top_p", top_p_on, top_p, 1, 1},
};

void logits_chain_init(logits_chain *c, const logits_rules *rules)
{
    c->n = c->exact = c->work = 0;
    for (size_t k = 0; k < sizeof processors / sizeof processors[0] && c->n < LOGITS_MAX; k++)
        if (processors[k].on(rules)) {
            c->fn[c->n++] = processors[k].apply;
            c->exact |= processors[k].exact;
            c->work |= processors[k].work;
        }
    /* a sampling strategy needs every probability, not the argmax alone */
    c->exact |= rules->sampling;
}

/* splitmix64 (Steele, Lea and Flood 2014): the state advances by the golden-ratio increment,
 * each output is the state through a bijective mix. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

uint64_t logits_rng_seed(uint64_t seed, uint64_t stream)
{
    return mix64(mix64(seed + 0x9E3779B97F4A7C15ULL) ^ (stream * 0xD1B54A32D192ED03ULL + 1));
}

double logits_rng_uniform(uint64_t *state)
{
    *state += 0x9E3779B97F4A7C15ULL;
    return (double)(mix64(*state) >> 11) * 0x1.0p-53;
}

int logits_sample(const float *logits, int vocab, uint64_t *state)
{
    float mx = -INFINITY;
    double z = 0, target, cum = 0;
    int last = 0;
    for (int v = 0; v < vocab; v++)
        mx = logits[v] > mx ? logits[v] : mx;
    if (mx == -INFINITY) /* every token banned: as argmax, the first */
        return 0;
    for (int v = 0; v < vocab; v++)
        z += exp((double)logits[v] - mx);
    target = logits_rng_uniform(state) * z;
    for (int v = 0; v < vocab; v++) {
        double e = exp((double)logits[v] - mx);
        if (e == 0)
            continue;
        cum += e;
        last = v;
        if (cum > target)
            return v;
    }
    return last; /* rounding left target at the end: the last token that could be drawn */
}
