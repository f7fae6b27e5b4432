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

void search_needs(const search_params *p, int n, const int *max_len, int *n_slots,
                  int *max_rows, int *cap)
{
    int k = p->beam_size > 1 ? p->beam_size : p->alternatives > 1 ? p->alternatives : 1;
    int mx = 1;
    for (int i = 0; i < n; i++)
        if (max_len[i] > mx)
            mx = max_len[i];
    /* beam search (alternatives): a slot per live hypothesis; they are handed on, copied only
     * on branching */
    *n_slots = n * k;
    *max_rows = n * k;
    *cap = mx;
}

void search_scratch_free(search_scratch *s)
{
    if (!s)
        return;
    free(s->mem);
    s->mem = NULL;
    s->cap = 0;
}
