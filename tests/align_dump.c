/* align_dump.c — a helper of tests/py/test_align.py (not a test itself: tests/run.sh runs only
 * test_*): translates source ids through xlate.h with alignments on and prints what the library
 * returned, for the Python test to compare with PyTorch's cross-attention.
 *
 *   align_dump MODEL_DIR BEAM N_BEST LAYER THREADS BATCH < ids
 *
 * LAYER: the alignment_layer (-1: the library's default), or "off" (alignments 0: the ids
 * alone, to check that alignments do not change them). Input: one source a line, space-separated
 * ids without eos. BATCH sentences go to each xlate_translate call. Output, one line a source:
 *   {"hyps": [{"ids": [...], "finished": 0|1, "score": S, "src_len1": N,
 *              "attention": [[row 0], ...], "alignment": [...]}, ...]}
 * floats with 9 significant digits (float32 round-trips). Exit 1 with a message on failure. */
#include "xlate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LINES = 4096, MAX_IDS = 1024 };

typedef struct {
    int n;
    int *ids[MAX_LINES]; /* [n][len[i]] */
    int len[MAX_LINES];
} sources;

static int read_sources(sources *s)
{
    char line[16384];
    s->n = 0;
    while (fgets(line, sizeof line, stdin)) {
        int buf[MAX_IDS], k = 0, used;
        const char *p = line;
        if (s->n == MAX_LINES)
            return -1;
        while (k < MAX_IDS && sscanf(p, "%d%n", &buf[k], &used) == 1) {
            p += used;
            k++;
        }
        s->ids[s->n] = malloc((k ? k : 1) * sizeof(int));
        if (!s->ids[s->n])
            return -1;
        memcpy(s->ids[s->n], buf, k * sizeof(int));
        s->len[s->n++] = k;
    }
    return 0;
}

static void print_hyp(const xlate_hypothesis *h)
{
    printf("{\"ids\": [");
    for (int t = 0; t < h->n; t++)
        printf("%s%d", t ? ", " : "", h->ids[t]);
    printf("], \"finished\": %d, \"score\": %.9g", h->finished, (double)h->score);
    if (h->attention) {
        printf(", \"src_len1\": %d, \"attention\": [", h->src_len1);
        for (int t = 0; t < h->n + h->finished; t++) {
            printf("%s[", t ? ", " : "");
            for (int s = 0; s < h->src_len1; s++)
                printf("%s%.9g", s ? ", " : "", (double)h->attention[(size_t)t * h->src_len1 + s]);
            printf("]");
        }
        printf("], \"alignment\": [");
        for (int t = 0; t < h->n; t++)
            printf("%s%d", t ? ", " : "", h->alignment[t]);
        printf("]");
    }
    printf("}");
}

int main(int argc, char **argv)
{
    char err[XLATE_ERRLEN];
    xlate_model *m = NULL;
    xlate_ctx *ctx = NULL;
    xlate_result *res = NULL;
    xlate_decode_params dp = xlate_decode_default_params();
    sources *src = calloc(1, sizeof *src);
    int batch, threads, rc = 1;

    if (argc != 7 || !src) {
        fprintf(stderr, "usage: align_dump MODEL_DIR BEAM N_BEST LAYER|off THREADS BATCH < ids\n");
        free(src);
        return 1;
    }
    dp.beam_size = atoi(argv[2]);
    dp.n_best = atoi(argv[3]);
    dp.alignments = strcmp(argv[4], "off") != 0;
    dp.alignment_layer = dp.alignments ? atoi(argv[4]) : -1;
    threads = atoi(argv[5]);
    batch = atoi(argv[6]);
    if (read_sources(src)) {
        fprintf(stderr, "align_dump: input: more than %d lines or out of memory\n", MAX_LINES);
        goto done;
    }
    if (batch < 1 || !(res = calloc(batch, sizeof *res))) {
        fprintf(stderr, "align_dump: bad batch %s\n", argv[6]);
        goto done;
    }
    if (xlate_model_load(&m, argv[1], NULL, err, sizeof err) ||
        !(ctx = xlate_ctx_new(m, threads, err, sizeof err))) {
        fprintf(stderr, "align_dump: %s\n", err);
        goto done;
    }
    for (int i = 0; i < src->n; i += batch) {
        int nb = src->n - i < batch ? src->n - i : batch;
        if (xlate_translate(ctx, nb, (const int *const *)src->ids + i, src->len + i, &dp, res,
                            err, sizeof err)) {
            fprintf(stderr, "align_dump: %s\n", err);
            goto done;
        }
        for (int k = 0; k < nb; k++) {
            printf("{\"hyps\": [");
            for (int j = 0; j < res[k].n_hyps; j++) {
                printf("%s", j ? ", " : "");
                print_hyp(&res[k].hyps[j]);
            }
            printf("]}\n");
        }
        xlate_results_free(res, nb);
    }
    rc = 0;
done:
    for (int i = 0; i < src->n; i++)
        free(src->ids[i]);
    free(src);
    free(res);
    xlate_ctx_free(ctx);
    xlate_model_free(m);
    return rc;
}
