/* decode_rules.c — the decode params' logits processors (decode_rules.h): their checks, the
 * rules of logits.h they become for a model, and the target prefixes of a batch. */
#include "decode_rules.h"
#include "base/util.h"
#include "model/family.h"
#include <stdlib.h>
#include <string.h>

xlate_decode_params xlate_decode_default_params(void)
{
    xlate_decode_params p;
    memset(&p, 0, sizeof p);
    p.beam_size = p.n_best = 1;
    p.length_penalty = 1.0f;
    p.alignment_layer = -1;
    p.repetition_penalty = 1.0f;
    p.sampling_topp = 1.0f;
    p.sampling_temperature = 1.0f;
    p.forced_bos_id = -1;
    p.source_suffix_id = -1;
    return p;
}

xlate_decode_params decode_rules_defaults(const gen_config *g)
{
    xlate_decode_params p = xlate_decode_default_params();
    if (g->num_beams > 1)
        p.beam_size = g->num_beams;
    if (g->hf_beam) {
        p.length_penalty = g->length_penalty;
        p.repetition_penalty = g->repetition_penalty;
        p.no_repeat_ngram_size = g->no_repeat_ngram;
        if (g->do_sample) { /* config.c refuses it with num_beams > 1 */
            p.sampling = 1;
            p.sampling_topk = g->top_k;
            p.sampling_topp = g->top_p;
            p.sampling_temperature = g->temperature;
        }
    }
    return p;
}


int decode_rules_check(int V, const xlate_decode_params *p, char *err, size_t errlen)
{
    if (!(p->repetition_penalty >= (float)DECODE_REPETITION_MIN &&
          p->repetition_penalty <= 1000))
        return xerr(err, errlen, "repetition_penalty: expected a number from %g to 1000 (1: "
                    "off; below %g the repeats it rewards leave no translation), got %g",
                    DECODE_REPETITION_MIN, DECODE_REPETITION_MIN,
                    (double)p->repetition_penalty);
    if (p->no_repeat_ngram_size < 0)
        return xerr(err, errlen, "no_repeat_ngram_size: expected 0 (off) or more, got %d",
                    p->no_repeat_ngram_size);
    if (p->n_suppress < 0 || (p->n_suppress > 0 && (!p->suppress_off || !p->suppress_ids)))
        return xerr(err, errlen, "suppress: n_suppress %d without its arrays", p->n_suppress);
    for (int k = 0; k < p->n_suppress; k++) {
        if ((k == 0 && p->suppress_off[0] != 0) ||
            p->suppress_off[k + 1] <= p->suppress_off[k])
            return xerr(err, errlen, "suppress: sequence %d is empty or its offsets go back",
                        k + 1);
        for (int j = p->suppress_off[k]; j < p->suppress_off[k + 1]; j++)
            if (p->suppress_ids[j] < 0 || p->suppress_ids[j] >= V)
                return xerr(err, errlen, "suppress: sequence %d: id %d outside the target "
                            "vocabulary [0, %d)", k + 1, p->suppress_ids[j], V);
    }
    if (p->sampling && p->beam_size > 1)
        return xerr(err, errlen, "sampling: only with beam_size 1, got beam_size %d",
                    p->beam_size);
    if (p->sampling_topk < 0)
        return xerr(err, errlen, "sampling_topk: expected 0 (all tokens) or more, got %d",
                    p->sampling_topk);
    if (!(p->sampling_topp > 0 && p->sampling_topp <= 1))
        return xerr(err, errlen, "sampling_topp: expected a number in (0, 1], got %g",
                    (double)p->sampling_topp);
    if (p->return_alternatives < 0 || p->return_alternatives > 256)
        return xerr(err, errlen, "return_alternatives: expected 0 (off) to 256, got %d",
                    p->return_alternatives);
    if (p->return_alternatives > 1 && p->n_best > 1)
        return xerr(err, errlen, "return_alternatives: each alternative gives one hypothesis "
                    "(its best): only with n_best 1, got n_best %d", p->n_best);
    if (!(p->sampling_temperature > 0 && p->sampling_temperature <= 1000))
        return xerr(err, errlen, "sampling_temperature: expected a number in (0, 1000], got %g",
                    (double)p->sampling_temperature);
    return 0;
}

void decode_rules_set(logits_rules *r, const model_config *c, const xlate_decode_params *p)
{
    r->eos_id = c->eos_id;
    r->pad_id = c->pad_id;
    r->start_id = c->bos_id;
    r->min_length = p->min_length;
    r->repetition_penalty = p->repetition_penalty;
    r->no_repeat_ngram = p->no_repeat_ngram_size;
    r->ban_unk = p->disable_unk;
    r->unk_id = c->unk_id;
    r->suppress = (logits_seqs){p->n_suppress, p->suppress_off, p->suppress_ids};
    r->sampling = p->sampling;
    r->top_k = p->sampling_topk;
    r->top_p = p->sampling_topp;
    r->temperature = p->sampling_temperature;
    /* the params' forced first token (an M2M100 / NLLB target language) over the model's */
    int fb = p->forced_bos_id >= 0 ? p->forced_bos_id : c->gen.hf_beam ? c->gen.forced_bos : -1;
    r->forced_bos = fb >= 0;
    r->forced_bos_id = fb;
    if (!c->gen.hf_beam)
        return;
    /* a Hugging Face model: generate()'s processors from its generation config;
     * MarianMTModel.adjust_logits_during_generation bans pad, M2M100 has no such rule */
    r->ban_pad = c->family == family_marian();
    r->force_eos = c->gen.forced_eos;
    r->bad = (logits_seqs){c->gen.n_bad, c->gen.bad_off, c->gen.bad_ids};
    r->n_suppress_tokens = c->gen.n_suppress;
    r->suppress_tokens = c->gen.suppress;
    r->n_begin_suppress = c->gen.n_begin_suppress;
    r->begin_suppress = c->gen.begin_suppress;
    /* _get_logits_processor: begin_index = input_ids_seq_length (1: the start token), + 1
     * with a forced bos; the tokens are suppressed when input_ids has begin_index tokens */
    r->begin_pos = fb >= 0 ? 1 : 0;
}

int decode_rules_prefixes(const model_config *c, const xlate_decode_params *p, int n,
                          const xlate_sentence_opts *opts, const int ***pre, int **pre_len,
                          char *err, size_t errlen)
{
    int any = 0;
    *pre = NULL;
    *pre_len = NULL;
    for (int i = 0; opts && i < n; i++)
        any |= opts[i].prefix_len > 0;
    if (!any)
        return 0;
    if (!(*pre = calloc(n, sizeof **pre)) || !(*pre_len = calloc(n, sizeof **pre_len)))
        return xerr(err, errlen, "out of memory");
    for (int k = 0; k < n; k++) {
        int L = opts[k].prefix_len > 0 ? opts[k].prefix_len : 0;
        if (L && (!opts[k].prefix || (p->max_length > 0 && L >= p->max_length) ||
                  L >= c->max_positions))
            return xerr(err, errlen, "target_prefix: sentence %d: %d tokens, more than "
                        "max_length (%d) allows", k + 1, L,
                        p->max_length > 0 ? p->max_length : c->max_positions);
        for (int j = 0; j < L; j++)
            if (opts[k].prefix[j] < 0 || opts[k].prefix[j] >= c->tgt_vocab)
                return xerr(err, errlen, "target_prefix: sentence %d: id %d outside the target "
                            "vocabulary [0, %d)", k + 1, opts[k].prefix[j], c->tgt_vocab);
        (*pre)[k] = opts[k].prefix;
        (*pre_len)[k] = L;
    }
    return 0;
}
