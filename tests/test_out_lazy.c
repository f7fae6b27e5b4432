/* test_out_lazy.c — the output projection built when a run needs it (model_out_need,
 * src/model/model.c; issue 24's memory):
 *   - screen_build_rows (the screen from f32 rows, a slice at a time) the very bytes
 *     screen_build makes from the packed linear: f32, f16, bf16 panels, a bias, a vocabulary
 *     that is neither a multiple of 16 nor of the slice, K not a multiple of 4, with and
 *     without a pool;
 *   - on the tied fixtures (tests/fixtures/parity: an f32 and a bf16 file) under compute f32,
 *     f16 and bf16: nothing built at load; a greedy run builds the screen alone (its size
 *     computed by hand below) and leaves the projection unpacked; the candidates' logits from
 *     the file's rows (model_out_exact) are the packed kernel's bits for every token
 *     (gemm_packed_output once packed), and for f32 from an f32 file the plain FMA chain over
 *     the file's floats written here; a beam run packs the projection; greedy ids are the same
 *     from the file's rows, from the panels, and with every logit computed (XLATE_SCREEN=0).
 * Run under XLATE_FORCE_ISA=generic too (f32 is then OpenBLAS's: nothing lazy). */
#include "check.h"
#include "kernels/cpu.h"
#include "kernels/ops.h"
#include "kernels/pool.h"
#include "kernels/screen.h"
#include "model/model.h"
#include "xlate.h"
#include "xlate_impl.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static float frand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (float)((*s >> 8) & 0xffff) / 65536.0f - 0.5f;
}

typedef struct {
    const float *w; /* [N][K] */
    int K;
} rows_src;

static void get_rows(void *user, int r0, int r1, float *w)
{
    const rows_src *r = user;
    memcpy(w, r->w + (size_t)r0 * r->K, (size_t)(r1 - r0) * r->K * sizeof *w);
}

static void screens_equal(weight_type t, int N, int K, pool *p)
{
    unsigned seed = 17u + (unsigned)t * 5u + (unsigned)N;
    float *w = malloc((size_t)N * K * sizeof *w), *b = malloc((size_t)N * sizeof *b);
    size_t pb = linear_packed_bytes(t, N, K);
    void *mem = aligned_alloc(64, pb);
    linear l = {NULL, b, N, K, t, NULL, NULL};
    screen a, c;
    rows_src rs = {w, K};
    char what[128];
    for (size_t i = 0; i < (size_t)N * K; i++)
        w[i] = frand(&seed) * (i % 97 == 0 ? 40.0f : 1.0f);
    for (int n = 0; n < N; n++)
        b[n] = frand(&seed);
    memset(mem, 0, pb);
    linear_pack_rows(&l, mem, t, 0, N, w);
    snprintf(what, sizeof what, "%s %dx%d%s: screen_build_rows's screen = screen_build's, byte "
             "for byte", weight_type_name(t), N, K, p ? " (pool)" : "");
    if (screen_build(&a, &l, p) || screen_build_rows(&c, t, N, K, b, get_rows, &rs, p)) {
        check(0, what, "out of memory");
    } else {
        size_t qb = linear_packed_bytes(WT_INT8, N, K);
        /* the panels and scales (comp is not used by the screen), absq, bterm */
        int same = screen_bytes(&a) == screen_bytes(&c) &&
                   memcmp(a.q.packed, c.q.packed, (size_t)((const char *)a.q.scale -
                                                           (const char *)a.q.packed)) == 0 &&
                   memcmp(a.q.scale, c.q.scale, (size_t)N * sizeof(float)) == 0 &&
                   memcmp(a.absq, c.absq, (size_t)N * sizeof(float)) == 0 &&
                   memcmp(a.bterm, c.bterm, (size_t)N * sizeof(float)) == 0 &&
                   a.act_err == c.act_err && c.q.b == b && c.q.out == N && c.q.in == K;
        check(same, what, "the two screens differ (%zu int8 bytes)", qb);
    }
    screen_free(&a);
    screen_free(&c);
    free(mem);
    free(w);
    free(b);
}

/* The greedy (beam 1) or beam ids of two sources; ids[2][64], lens[2]. */
static int run(xlate_model *m, int beam, int ids[2][64], int lens[2])
{
    static const int s0[] = {5, 6, 7, 8, 9, 10, 11}, s1[] = {12, 30, 4, 17};
    const int *src[2] = {s0, s1}, src_len[2] = {7, 4};
    char err[512];
    xlate_ctx *ctx = xlate_ctx_new(m, 2, err, sizeof err);
    xlate_decode_params dp = xlate_decode_default_params();
    xlate_result res[2];
    int rc;
    if (!ctx)
        return check(0, "context", "%s", err), -1;
    dp.beam_size = beam;
    dp.max_length = 20;
    rc = xlate_translate(ctx, 2, src, src_len, &dp, res, err, sizeof err);
    if (rc == 0) {
        for (int i = 0; i < 2; i++) {
            lens[i] = res[i].hyps[0].n;
            memcpy(ids[i], res[i].hyps[0].ids, (size_t)lens[i] * sizeof(int));
        }
        xlate_results_free(res, 2);
    } else {
        check(0, "translate", "%s", err);
    }
    xlate_ctx_free(ctx);
    return rc;
}

static int same_ids(int a[2][64], const int la[2], int b[2][64], const int lb[2])
{
    for (int i = 0; i < 2; i++)
        if (la[i] != lb[i] || memcmp(a[i], b[i], (size_t)la[i] * sizeof(int)) != 0)
            return 0;
    return 1;
}

/* V, d: the fixture's vocabulary and width; sbytes: its screen's size, computed by hand */
static void fixture(const char *dir, xlate_compute_type ct, int V0, int d0, size_t sbytes)
{
    xlate_model_params mp = xlate_model_default_params();
    xlate_model *m = NULL, *all = NULL;
    char err[512], what[256];
    int g_rows[2][64], g_rows_len[2], g_pan[2][64], g_pan_len[2], g_all[2][64], g_all_len[2];
    int b_ids[2][64], b_len[2];
    unsigned seed = 99;
    mp.compute_type = ct;
    setenv("XLATE_SCREEN", "1", 1);
    if (xlate_model_load(&m, dir, &mp, err, sizeof err)) {
        check(0, dir, "%s", err);
        return;
    }
    const model_weights *w = &m->w;
    int V = w->cfg.tgt_vocab, d = w->cfg.d_model;
    const char *ctn = xlate_model_compute_type(m);
    if (!w->out_src) { /* f32 through OpenBLAS (XLATE_FORCE_ISA=generic): packed never */
        snprintf(what, sizeof what, "%s %s: OpenBLAS reads the tied projection", dir, ctn);
        check(w->out.w && !w->out.packed, what, "neither OpenBLAS's nor lazy");
        xlate_model_free(m);
        return;
    }
    snprintf(what, sizeof what, "%s %s: nothing of the output projection built at load", dir, ctn);
    check(model_out_built(w) == 0 && !w->out.packed && !w->out_screen.mem, what, "built %d",
          model_out_built(w));

    run(m, 1, g_rows, g_rows_len);
    snprintf(what, sizeof what, "%s %s: a greedy run builds the screen (%zu bytes) and packs "
             "nothing", dir, ctn, sbytes);
    check(V == V0 && d == d0 && model_out_built(w) == MODEL_OUT_SCREEN && !w->out.packed &&
              screen_bytes(&w->out_screen) == sbytes,
          what, "V %d, d %d, built %d, screen %zu bytes", V, d, model_out_built(w),
          screen_bytes(&w->out_screen));

    {
        float x[64], e_rows[64], ref[64];
        void *scr = aligned_alloc(64, model_out_exact_bytes(w));
        int bits = 1, chain = 1;
        memset(scr, 0, model_out_exact_bytes(w));
        for (int k = 0; k < d; k++)
            x[k] = 3.0f * frand(&seed);
        for (int n = 0; n < V; n++)
            e_rows[n] = model_out_exact(w, x, n, scr);
        if (w->out_src->dtype == ST_F32 && w->out.type == WT_F32) {
            /* the packed kernel's chain over the file's floats: acc = fma(x_k, w_k, acc) */
            for (int n = 0; n < V; n++) {
                const float *r = (const float *)w->out_src->data + (size_t)n * d;
                float acc = 0;
                for (int k = 0; k < d; k++)
                    acc = fmaf(x[k], r[k], acc);
                chain &= memcmp(&acc, &e_rows[n], sizeof acc) == 0;
            }
            snprintf(what, sizeof what, "%s %s: the file rows' logits = fma chains over its "
                     "floats", dir, ctn);
            check(chain, what, "some logit differs");
        }
        if (model_out_need(w, MODEL_OUT_PACKED, NULL, err, sizeof err)) {
            check(0, "pack", "%s", err);
        } else {
            for (int n = 0; n < V; n++) {
                ref[n] = gemm_packed_output(&w->out, x, n);
                bits &= memcmp(&ref[n], &e_rows[n], sizeof ref[n]) == 0;
            }
            snprintf(what, sizeof what, "%s %s (%s panels): the file rows' logits are the packed "
                     "kernel's bits, all %d tokens", dir, ctn, weight_type_name(w->out.type), V);
            check(bits, what, "some logit differs");
        }
        free(scr);
    }
    run(m, 1, g_pan, g_pan_len);
    run(m, 3, b_ids, b_len);
    snprintf(what, sizeof what, "%s %s: a beam run has the projection packed", dir, ctn);
    check(model_out_built(w) == (MODEL_OUT_SCREEN | MODEL_OUT_PACKED), what, "built %d",
          model_out_built(w));
    setenv("XLATE_SCREEN", "0", 1);
    if (xlate_model_load(&all, dir, &mp, err, sizeof err) == 0) {
        run(all, 1, g_all, g_all_len);
        snprintf(what, sizeof what, "%s %s: XLATE_SCREEN=0 builds no screen", dir, ctn);
        check(model_out_built(&all->w) == MODEL_OUT_PACKED, what, "built %d",
              model_out_built(&all->w));
        xlate_model_free(all);
    }
    setenv("XLATE_SCREEN", "1", 1);
    snprintf(what, sizeof what, "%s %s: greedy ids the same from the file's rows, the panels and "
             "every logit", dir, ctn);
    check(same_ids(g_rows, g_rows_len, g_pan, g_pan_len) &&
              same_ids(g_rows, g_rows_len, g_all, g_all_len) && g_rows_len[0] > 0,
          what, "lengths %d %d / %d %d / %d %d", g_rows_len[0], g_rows_len[1], g_pan_len[0],
          g_pan_len[1], g_all_len[0], g_all_len[1]);
    xlate_model_free(m);
}

int main(void)
{
    pool *p;
    ops_init();
    printf("# ISA %s\n", cpu_isa_name(cpu_isa()));
    p = pool_create(2);
    for (int t = 0; t < 4; t++) {
        if (t == WT_INT8)
            continue;
        screens_equal((weight_type)t, 2500, 70, NULL);
        screens_equal((weight_type)t, 1031, 33, p);
        screens_equal((weight_type)t, 7, 8, p);
    }
    pool_free(p);
    /* the screens' bytes (screen_bytes): int8 panels of 16 columns x K rounded up to 4, then
     * scale and comp (4 bytes an output each, rounded up to 64), then absq and bterm (4 bytes
     * an output each):
     *   V 43, d 32: 3 x 16 x 32 = 1,536 + 2 x 192 + 2 x 172 = 2,264 (f16 panels: 3,072 bytes)
     *   V 47, d 40: 3 x 16 x 40 = 1,920 + 2 x 192 + 2 x 188 = 2,680 (f16 panels: 3,840 bytes) */
    for (int c = 0; c < 3; c++) {
        xlate_compute_type ct = c == 0 ? XLATE_F32 : c == 1 ? XLATE_F16 : XLATE_BF16;
        fixture("tests/fixtures/parity/pre_relu_tied", ct, 43, 32, 2264);
        fixture("tests/fixtures/parity/bf16_post_gelu_tied", ct, 47, 40, 2680);
    }
    return check_done();
}
