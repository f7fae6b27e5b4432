/* logits.c — the logits processors (logits.h): one function a rule, one table entry each. */
#include "decode/logits.h"
#include <math.h>
#include <stddef.h>
#include <string.h>

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

/* bad_words_ids, as transformers' NoBadWordsLogitsProcessor: a sequence's last token is banned
 * when the row's tokens end with the sequence's other tokens. */
static int bad_words_on(const logits_rules *r) { return r->n_bad > 0; }
static void bad_words(const logits_row *r, float *logits)
{
    const logits_rules *ru = r->rules;
    for (int k = 0; k < ru->n_bad; k++) {
        const int *seq = ru->bad_ids + ru->bad_off[k];
        int len = ru->bad_off[k + 1] - ru->bad_off[k];
        if (len == 1 && seq[0] == ru->eos_id)
            continue;
        if (len - 1 > r->pos ||
            (len > 1 && memcmp(r->history + r->pos - (len - 1), seq, (len - 1) * sizeof *seq)))
            continue;
        if (seq[len - 1] >= 0 && seq[len - 1] < r->vocab)
            logits[seq[len - 1]] = -INFINITY;
    }
}

/* The first token a row generates is the forced one: every other logit -inf, its 0
 * (logits_process.py ForcedBOSTokenLogitsProcessor: at cur_len 1, the start token alone). */
static int force_bos_on(const logits_rules *r) { return r->force_bos; }
static void force_bos(const logits_row *r, float *logits)
{
    if (r->pos != 0 || r->rules->bos_forced < 0 || r->rules->bos_forced >= r->vocab)
        return;
    for (int v = 0; v < r->vocab; v++)
        logits[v] = -INFINITY;
    logits[r->rules->bos_forced] = 0;
}

/* The last token a row may generate is eos: every other logit -inf, eos's 0 (so its
 * log-probability is 0, and a min_length ban before it is overridden). */
static int force_eos_on(const logits_rules *r) { return r->force_eos; }
static void force_eos(const logits_row *r, float *logits)
{
    if (r->pos + 1 < r->max_len)
        return;
    for (int v = 0; v < r->vocab; v++)
        logits[v] = -INFINITY;
    logits[r->rules->eos_id] = 0;
}

/* The processors in the order they apply. */
static const struct {
    const char *name;
    int (*on)(const logits_rules *r);
    logits_fn apply;
} processors[] = {
    {"min_length", min_length_on, min_length_ban},
    {"ban_pad", ban_pad_on, ban_pad},
    {"bad_words", bad_words_on, bad_words},
    {"force_bos", force_bos_on, force_bos}, /* generate()'s order: after MinLength, before
                                               ForcedEOS (utils.py _get_logits_processor) */
    {"force_eos", force_eos_on, force_eos},
};

void logits_chain_init(logits_chain *c, const logits_rules *rules)
{
    c->n = 0;
    for (size_t k = 0; k < sizeof processors / sizeof processors[0] && c->n < LOGITS_MAX; k++)
        if (processors[k].on(rules))
            c->fn[c->n++] = processors[k].apply;
}
