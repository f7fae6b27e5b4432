/* search.c — the entry point of the search: picks the strategy; says what it needs. */
#include "decode/search.h"
#include <stdlib.h>

int search_run(const search_model *m, search_scratch *s, int n, const int *max_len,
               const search_params *p, search_emit emit, void *emit_user, char *err,
               size_t errlen)
{
    if (p->beam_size > 1)
        return search_beam(m, s, n, max_len, p, emit, emit_user, err, errlen);
    return search_greedy(m, s, n, max_len, p, emit, emit_user, err, errlen);
}

size_t search_plan_bytes(const search_params *p, const search_scratch *held, int n,
                         const int *max_len, int vocab, int attn_stride, int screened)
{
    size_t b = p->beam_size > 1 ? search_beam_bytes(p, n, max_len, vocab, attn_stride)
                                : search_greedy_bytes(p, n, max_len, vocab, attn_stride, screened);
    return held && held->cap > b ? held->cap : b;
}

void search_needs(const search_params *p, int n, const int *max_len, int *n_slots,
                  int *max_rows, int *cap)
{
    int k = (p->beam_size > 1 ? p->beam_size : 1) * (p->alternatives > 1 ? p->alternatives : 1);
    int mx = 1;
    for (int i = 0; i < n; i++)
        if (max_len[i] > mx)
            mx = max_len[i];
    /* beam search, alternatives (each with its own beam): a slot per live hypothesis; they
     * are handed on, copied only on branching */
    *n_slots = n * k;
    *max_rows = n * k;
    *cap = mx;
}

int search_screened(const search_params *p, const char **why)
{
    logits_chain chain;
    const char *w = NULL;
    logits_chain_init(&chain, &p->rules);
    if (p->beam_size > 1)
        w = "beam search ranks log-probabilities";
    else if (p->alternatives > 1)
        w = "--return-alternatives ranks the best tokens";
    else if (p->scores || p->token_scores)
        w = "scores are asked for (jsonl, --n-best)";
    else if (p->rules.sampling)
        w = "sampling draws from every probability";
    else if (chain.exact)
        w = "--repetition-penalty changes the logits' values";
    if (why)
        *why = w;
    return w == NULL;
}

void search_scratch_free(search_scratch *s)
{
    if (!s)
        return;
    free(s->mem);
    s->mem = NULL;
    s->cap = 0;
}
