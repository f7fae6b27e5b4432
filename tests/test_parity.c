/* test_parity.c — xlate against PyTorch on the random models of tests/fixtures/parity/
 * (written by tools/reference.py): encoder outputs and teacher-forced logits within 1e-4 of
 * their scale, greedy sequences identical. The expected values are PyTorch's. */
#include "check.h"
#include "model/safetensors.h"
#include "xlate.h"
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The committed fixtures, or PARITY_DIR: `make parity` writes fresh ones to build/parity and
 * points this test there, leaving the tracked files alone. */
#define FIXTURES_DEFAULT "tests/fixtures/parity"
#define TOL 1e-4

typedef struct {
    int B, S, T, G, d, V;
    int **src, *src_len, **tgt, *tgt_len, **greedy, *greedy_len, max_length;
    float *enc, *logits; /* [B, S, d], [B, T, V] as PyTorch wrote them */
} reference;

static const st_tensor *need(const st_file *f, const char *name, int ndim)
{
    const st_tensor *t = st_find(f, name);
    if (!t || t->ndim != ndim) {
        check(0, "fixture tensor", "%s: tensor %s missing or not %d-d", f->path, name, ndim);
        return NULL;
    }
    return t;
}

/* rows of an I32 [B, W] tensor as int arrays, lengths from an I32 [B] tensor */
static int **rows_of(const st_tensor *t, const st_tensor *len, int **lens)
{
    int B = (int)t->shape[0], W = (int)t->shape[1];
    int **rows = calloc(B, sizeof *rows);
    *lens = calloc(B, sizeof **lens);
    for (int b = 0; b < B; b++) {
        (*lens)[b] = (int)st_int_at(len, b);
        rows[b] = calloc(W + 1, sizeof **rows);
        for (int k = 0; k < W; k++)
            rows[b][k] = (int)st_int_at(t, (size_t)b * W + k);
    }
    return rows;
}

static int load_reference(reference *r, st_file *f, const char *path)
{
    const st_tensor *src, *srcl, *enc, *tgt, *tgtl, *lg, *gr, *grl, *ml;
    memset(r, 0, sizeof *r);
    if (st_open(f, path, NULL, 0)) {
        check(0, "open reference", "%s", path);
        return -1;
    }
    if (!(src = need(f, "src_ids", 2)) || !(srcl = need(f, "src_len", 1)) ||
        !(enc = need(f, "encoder_out", 3)) || !(tgt = need(f, "tgt_ids", 2)) ||
        !(tgtl = need(f, "tgt_len", 1)) || !(lg = need(f, "logits", 3)) ||
        !(gr = need(f, "greedy", 2)) || !(grl = need(f, "greedy_len", 1)) ||
        !(ml = need(f, "max_length", 1)))
        return -1;
    r->B = (int)src->shape[0];
    r->S = (int)src->shape[1];
    r->d = (int)enc->shape[2];
    r->T = (int)tgt->shape[1];
    r->V = (int)lg->shape[2];
    r->G = (int)gr->shape[1];
    r->src = rows_of(src, srcl, &r->src_len);
    r->tgt = rows_of(tgt, tgtl, &r->tgt_len);
    r->greedy = rows_of(gr, grl, &r->greedy_len);
    r->max_length = (int)st_int_at(ml, 0);
    r->enc = malloc(enc->numel * sizeof(float));
    r->logits = malloc(lg->numel * sizeof(float));
    st_to_f32(r->enc, enc->data, enc->dtype, (size_t)enc->numel);
    st_to_f32(r->logits, lg->data, lg->dtype, (size_t)lg->numel);
    return 0;
}

static void free_reference(reference *r)
{
    for (int b = 0; b < r->B; b++) {
        if (r->src) free(r->src[b]);
        if (r->tgt) free(r->tgt[b]);
        if (r->greedy) free(r->greedy[b]);
    }
    free(r->src);
    free(r->tgt);
    free(r->greedy);
    free(r->src_len);
    free(r->tgt_len);
    free(r->greedy_len);
    free(r->enc);
    free(r->logits);
}

static const char *fixtures_dir(void)
{
    const char *d = getenv("PARITY_DIR");
    return d && *d ? d : FIXTURES_DEFAULT;
}

static void run_variant(const char *name)
{
    char dir[512], path[600], what[700];
    xlate_model *m = NULL;
    xlate_ctx *ctx = NULL;
    xlate_model_params mp = xlate_model_default_params();
    char err[XLATE_ERRLEN];
    reference r;
    st_file f;
    int *src_nol = NULL;
    float *enc = NULL, *logits = NULL;
    double max_err, scale;

    snprintf(dir, sizeof dir, "%s/%s", fixtures_dir(), name);
    snprintf(path, sizeof path, "%s/reference.safetensors", dir);
    memset(&f, 0, sizeof f);
    if (load_reference(&r, &f, path))
        goto done;
    mp.load_tokenizers = 0;
    snprintf(what, sizeof what, "%s: load", name);
    if (!check(xlate_model_load(&m, dir, &mp, err, sizeof err) == 0, what, "%s", err))
        goto done;
    ctx = xlate_ctx_new(m, 2, err, sizeof err);
    src_nol = malloc(r.B * sizeof *src_nol);
    for (int b = 0; b < r.B; b++)
        src_nol[b] = r.src_len[b] - 1; /* the fixture includes eos; xlate appends it */

    /* encoder output: packed rows of xlate vs padded [B, S, d] of PyTorch */
    {
        size_t N = 0, row = 0;
        for (int b = 0; b < r.B; b++)
            N += r.src_len[b];
        enc = malloc(N * r.d * sizeof *enc);
        snprintf(what, sizeof what, "%s: encoder runs", name);
        check(xlate_encode(ctx, r.B, (const int *const *)r.src, src_nol, enc, err, sizeof err) ==
                  0, what, "%s", err);
        max_err = 0;
        scale = 0;
        for (int b = 0; b < r.B; b++)
            for (int s = 0; s < r.src_len[b]; s++, row++)
                for (int k = 0; k < r.d; k++) {
                    double want = r.enc[((size_t)b * r.S + s) * r.d + k];
                    double got = enc[row * r.d + k];
                    if (fabs(want - got) > max_err)
                        max_err = fabs(want - got);
                    if (fabs(want) > scale)
                        scale = fabs(want);
                }
        snprintf(what, sizeof what, "%s: encoder output max error %.3g (scale %.3g)", name,
                 max_err, scale);
        check(max_err <= TOL * scale, what, "above %g of the scale", TOL);
    }

    /* teacher-forced logits */
    {
        size_t N = 0, row = 0;
        for (int b = 0; b < r.B; b++)
            N += r.tgt_len[b];
        logits = malloc(N * r.V * sizeof *logits);
        snprintf(what, sizeof what, "%s: teacher-forced decoding runs", name);
        check(xlate_forced_logits(ctx, r.B, (const int *const *)r.src, src_nol,
                                  (const int *const *)r.tgt, r.tgt_len, logits, err,
                                  sizeof err) == 0, what, "%s", err);
        max_err = 0;
        scale = 0;
        for (int b = 0; b < r.B; b++)
            for (int t = 0; t < r.tgt_len[b]; t++, row++)
                for (int v = 0; v < r.V; v++) {
                    double want = r.logits[((size_t)b * r.T + t) * r.V + v];
                    double got = logits[row * r.V + v];
                    if (fabs(want - got) > max_err)
                        max_err = fabs(want - got);
                    if (fabs(want) > scale)
                        scale = fabs(want);
                }
        snprintf(what, sizeof what, "%s: logits max error %.3g (scale %.3g)", name, max_err,
                 scale);
        check(max_err <= TOL * scale, what, "above %g of the scale", TOL);
        printf("# %s logit max abs error %.3g, relative to scale %.3g\n", name, max_err,
               max_err / scale);
    }

    /* greedy: the whole batch at once, one sentence at a time, and the whole batch with
     * whole-batch products (xlate --fast) */
    for (int pass = 0; pass < 3; pass++) {
        xlate_decode_params dp = xlate_decode_default_params();
        int same = 1, first_bad = -1;
        dp.max_length = r.max_length;
        xlate_ctx_set_batch_invariant(ctx, pass != 2);
        for (int b0 = 0; b0 < r.B; b0 += pass == 1 ? 1 : r.B) {
            int nb = pass == 1 ? 1 : r.B;
            xlate_result res[64];
            if (xlate_translate(ctx, nb, (const int *const *)r.src + b0, src_nol + b0, &dp, res,
                                err, sizeof err)) {
                same = 0;
                break;
            }
            for (int b = 0; b < nb; b++) {
                const xlate_hypothesis *h = &res[b].hyps[0];
                int ok = h->n == r.greedy_len[b0 + b];
                for (int k = 0; ok && k < h->n; k++)
                    ok = h->ids[k] == r.greedy[b0 + b][k];
                if (!ok && first_bad < 0)
                    first_bad = b0 + b;
                same &= ok;
            }
            xlate_results_free(res, nb);
        }
        snprintf(what, sizeof what, "%s: greedy outputs identical to PyTorch (%s)", name,
                 pass == 1 ? "one sentence at a time" : pass ? "one batch, --fast" : "one batch");
        check(same, what, "sentence %d differs (%s)", first_bad, err);
    }
done:
    free(src_nol);
    free(enc);
    free(logits);
    xlate_ctx_free(ctx);
    xlate_model_free(m);
    free_reference(&r);
    st_close(&f);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
    DIR *d = opendir(fixtures_dir());
    struct dirent *e;
    char *names[64];
    int n = 0;
    if (!check(d != NULL, "fixtures present", "cannot open %s (run make parity)", fixtures_dir()))
        return 1;
    while ((e = readdir(d)) && n < 64)
        if (e->d_name[0] != '.' && strchr(e->d_name, '.') == NULL)
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    check(n >= 4, "at least 4 variants", "found %d", n);
    for (int i = 0; i < n; i++) {
        run_variant(names[i]);
        free(names[i]);
    }
    return check_done();
}
