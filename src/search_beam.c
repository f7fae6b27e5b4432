/* search_beam.c — beam search (placeholder until issue 6). */
#include "search.h"
#include "util.h"

int search_beam(const model_weights *m, pool *pl, decoder_state *st, search_scratch *s, int n,
                const int *max_len, const xlate_decode_params *p, xlate_result *out, char *err,
                size_t errlen)
{
    (void)m, (void)pl, (void)st, (void)s, (void)n, (void)max_len, (void)p, (void)out;
    return xerr(err, errlen, "--beam-size: beam search is not implemented yet");
}
