/* align_dump.c — a helper of tests/py/test_align.py (not a test itself: tests/run.sh runs only
 * test_*): translates source ids through xlate.h with alignments on and prints what the library
 * returned, for the Python test to compare with PyTorch's cross-attention.
 *
 *   align_dump MODEL_DIR BEAM N_BEST LAYER THREADS BATCH < ids
 *   align_dump MODEL_DIR forced LAYER THREADS < pairs
 *
 * LAYER: the alignment_layer (-1: the library's default), or "off" (alignments 0: the ids
 * alone, to check that alignments do not change them). Input: one source a line, space-separated
 * ids without eos. BATCH sentences go to each xlate_translate call. Output, one line a source:
 *   {"hyps": [{"ids": [...], "finished": 0|1, "score": S, "src_len1": N,
 *              "attention": [[row 0], ...], "alignment": [...]}, ...]}
 * floats with 9 significant digits (float32 round-trips). The second form runs
 * xlate_forced_attention: each input line is "source ids | decoder input ids" (bos first), each
 * output line {"attention": [[row 0], ...]} (a row per decoder input). Exit 1 with a message on
 * failure. */
#include "xlate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_LINES = 4096, MAX_IDS = 1024 };

typedef struct {
    int n;
    int *ids[MAX_LINES]; /* [n][len[i]] */
    int len[MAX_LINES];
    int *tgt[MAX_LINES]; /* forced: [n][tgt_len[i]] the ids after '|' */
    int tgt_len[MAX_LINES];
} sources;

/* The ids of p up to '|' or the end into a new array; *end: where they stopped. */
static int *read_ids(const char *p, int *n, const char **end)
{
    int buf[MAX_IDS], k = 0, used, *out;
    while (k < MAX_IDS && sscanf(p, "%d%n", &buf[k], &used) == 1) {
        p += used;
        k++;
    }
    *end = p;
    *n = k;
    if ((out = malloc((k ? k : 1) * sizeof *out)))
        memcpy(out, buf, k * sizeof *out);
    return out;
}

static int read_sources(sources *s, int forced)
{
    char line[16384];
    s->n = 0;
    while (fgets(line, sizeof line, stdin)) {
        const char *p;
        if (s->n == MAX_LINES)
            return -1;
        s->tgt[s->n] = NULL;
        if (!(s->ids[s->n] = read_ids(line, &s->len[s->n], &p)))
            return -1;
        s->n++;
        if (forced) {
            p = strchr(p, '|');
            if (!p || !(s->tgt[s->n - 1] = read_ids(p + 1, &s->tgt_len[s->n - 1], &p)))
                return -1;
        }
    }
    return 0;
}

/* The second form: each sentence's forced attention, one sentence a call. */
static int forced(xlate_ctx *ctx, const sources *src, const xlate_decode_params *dp, char *err,
                  size_t errlen)
{
    for (int i = 0; i < src->n; i++) {
        int S1 = src->len[i] + 1, T = src->tgt_len[i];
        size_t total = (size_t)T * S1;
        float *a = malloc((total ? total : 1) * sizeof *a);
        if (!a) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        if (xlate_forced_attention(ctx, 1, (const int *const *)src->ids + i, src->len + i,
                                   (const int *const *)src->tgt + i, src->tgt_len + i, dp, a,
                                   err, errlen)) {
            free(a);
            return -1;
        }
        printf("{\"attention\": [");
        for (int t = 0; t < T; t++) {
            printf("%s[", t ? ", " : "");
            for (int s = 0; s < S1; s++)
                printf("%s%.9g", s ? ", " : "", (double)a[(size_t)t * S1 + s]);
            printf("]");
        }
        printf("]}\n");
        free(a);
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

    int is_forced = argc == 5 && strcmp(argv[2], "forced") == 0;
    const char *layer, *batch_arg = "1";

    if ((argc != 7 && !is_forced) || !src) {
        fprintf(stderr, "usage: align_dump MODEL_DIR BEAM N_BEST LAYER|off THREADS BATCH < ids\n"
                "       align_dump MODEL_DIR forced LAYER THREADS < pairs\n");
        free(src);
        return 1;
    }
    if (is_forced) {
        layer = argv[3];
        threads = atoi(argv[4]);
    } else {
        dp.beam_size = atoi(argv[2]);
        dp.n_best = atoi(argv[3]);
        layer = argv[4];
        threads = atoi(argv[5]);
        batch_arg = argv[6];
    }
    dp.alignments = strcmp(layer, "off") != 0;
    dp.alignment_layer = dp.alignments ? atoi(layer) : -1;
    batch = atoi(batch_arg);
    if (read_sources(src, is_forced)) {
        fprintf(stderr, "align_dump: input: more than %d lines or out of memory\n", MAX_LINES);
        goto done;
    }
    if (batch < 1 || !(res = calloc(batch, sizeof *res))) {
        fprintf(stderr, "align_dump: bad batch %s\n", batch_arg);
        goto done;
    }
    if (xlate_model_load(&m, argv[1], NULL, err, sizeof err) ||
        !(ctx = xlate_ctx_new(m, threads, err, sizeof err))) {
        fprintf(stderr, "align_dump: %s\n", err);
        goto done;
    }
    if (is_forced) {
        if (forced(ctx, src, &dp, err, sizeof err)) {
            fprintf(stderr, "align_dump: %s\n", err);
            goto done;
        }
        rc = 0;
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
    for (int i = 0; i < src->n; i++) {
        free(src->ids[i]);
        free(src->tgt[i]);
    }
    free(src);
    free(res);
    xlate_ctx_free(ctx);
    xlate_model_free(m);
    return rc;
}
