/* fuzz_safetensors.c — a .safetensors image into st_parse (src/model/safetensors.c), then model_bind
 * (src/model/model.c) against three tiny configs, so that a fuzzed file can get all the way through
 * binding (the seeds in fuzz/corpus/safetensors/ are complete weights for each config).
 * Properties: every indexed tensor lies inside the image with nbytes = numel * dtype size, names
 * are unique and found by st_find; a bound model has exactly the parameter count the config
 * implies (computed here from docs/FORMAT.md's table) and every bound float is readable and
 * finite; failures leave a message and no leak. */
#ifndef XLATE_FUZZ_SAFETENSORS_C /* fuzz_torch_bin.c includes it for its helpers */
#define XLATE_FUZZ_SAFETENSORS_C
#include "model/config.h"
#include "fuzz.h"
#include "model/model.h"
#include "kernels/ops.h"
#include "model/safetensors.h"
#include <math.h>

/* A: the common case (shared + tied, sinusoidal). B: untied, learned positions, output bias,
 * no encoder final norm, unequal vocabularies. C: no encoder layers, two decoder layers, tied
 * with an output bias, no final norms, sinusoidal-concat. */
static const char *const fuzz_st_configs[] = {
    "{\"model_type\":\"transformer\",\"d_model\":4,\"heads\":2,\"ffn_dim\":4,"
    "\"encoder_layers\":1,\"decoder_layers\":1,\"src_vocab_size\":6,\"tgt_vocab_size\":6,"
    "\"max_positions\":4,\"shared_embeddings\":true,\"tied_output\":true,"
    "\"pad_id\":0,\"unk_id\":1,\"bos_id\":2,\"eos_id\":3}",
    "{\"model_type\":\"transformer\",\"d_model\":4,\"heads\":1,\"ffn_dim\":6,"
    "\"encoder_layers\":1,\"decoder_layers\":1,\"src_vocab_size\":5,\"tgt_vocab_size\":7,"
    "\"max_positions\":3,\"positions\":\"learned\",\"output_bias\":true,"
    "\"encoder_final_norm\":false,\"pad_id\":0,\"unk_id\":1,\"bos_id\":2,\"eos_id\":3}",
    "{\"model_type\":\"transformer\",\"d_model\":2,\"heads\":1,\"ffn_dim\":2,"
    "\"encoder_layers\":0,\"decoder_layers\":2,\"src_vocab_size\":4,\"tgt_vocab_size\":4,"
    "\"max_positions\":2,\"positions\":\"sinusoidal-concat\",\"shared_embeddings\":true,"
    "\"tied_output\":true,\"output_bias\":true,\"encoder_final_norm\":false,"
    "\"decoder_final_norm\":false,\"pad_id\":0,\"unk_id\":1,\"bos_id\":2,\"eos_id\":3}",
};

/* Parameters the file must provide for config c (docs/FORMAT.md, "model.safetensors"). */
static size_t fuzz_st_expected_params(const model_config *c)
{
    size_t d = c->d_model, F = c->ffn_dim, Vs = c->src_vocab, Vt = c->tgt_vocab;
    size_t attn = 4 * (d * d + d), ffn = F * d + F + d * F + d, n = Vs * d;
    if (!c->shared_embeddings)
        n += Vt * d;
    if (c->positions == POS_LEARNED)
        n += 2 * (size_t)c->max_positions * d;
    n += (size_t)c->encoder_layers * (attn + 2 * 2 * d + ffn);
    n += (size_t)c->decoder_layers * (2 * attn + 3 * 2 * d + ffn);
    n += (c->encoder_final_norm ? 2 * d : 0) + (c->decoder_final_norm ? 2 * d : 0);
    if (!c->tied_output)
        n += Vt * d;
    if (c->output_bias)
        n += Vt;
    return n;
}

static double fuzz_st_touch(const float *p, size_t n, const char *what)
{
    double s = 0;
    FUZZ_CHECK(p != NULL, "%s not bound", what);
    /* F32 weights may be used in place from the file: they must still be floats. */
    FUZZ_CHECK(((uintptr_t)p & (_Alignof(float) - 1)) == 0, "%s at %p is not float-aligned", what,
               (const void *)p);
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK(isfinite(p[i]), "%s[%zu] = %g", what, i, (double)p[i]);
        s += p[i];
    }
    return s;
}

static void fuzz_st_touch_linear(const linear *l, int out, int in, int bias, const char *what)
{
    FUZZ_CHECK(l->out == out && l->in == in, "%s is [%d, %d], expected [%d, %d]", what, l->out,
               l->in, out, in);
    /* f32 on a CPU with AVX2: packed in panels of 16 columns (kernels/linear.h), no matrix */
    if (l->w || !l->packed) {
        fuzz_st_touch(l->w, (size_t)out * in, what);
    } else if (l->type == WT_F32) {
        fuzz_st_touch(l->packed, (size_t)(out + 15) / 16 * 16 * in, what);
    } else { /* F16 weights under f32 compute are packed as f16 (model.c pack_as) */
        float row[4096];
        FUZZ_CHECK(l->type == WT_F16 && in <= 4096, "%s packed as %s under f32 compute", what,
                   weight_type_name(l->type));
        for (int n = 0; n < out; n++) {
            linear_unpack_row(l, n, row);
            fuzz_st_touch(row, (size_t)in, what);
        }
    }
    if (bias)
        fuzz_st_touch(l->b, (size_t)out, what);
    else
        FUZZ_CHECK(l->b == NULL, "%s has a bias", what);
}

static void fuzz_st_check_model(const model_weights *m)
{
    const model_config *c = &m->cfg;
    int d = c->d_model, F = c->ffn_dim;
    FUZZ_CHECK(m->n_params == fuzz_st_expected_params(c), "n_params %zu, expected %zu",
               m->n_params, fuzz_st_expected_params(c));
    if (m->src_embed) {
        fuzz_st_touch(m->src_embed, (size_t)c->src_vocab * d, "src_embed");
        fuzz_st_touch(m->tgt_embed, (size_t)c->tgt_vocab * d, "tgt_embed");
    } else { /* packed: compact tables, read a row at a time */
        float *row = malloc((size_t)d * sizeof *row);
        FUZZ_CHECK(row != NULL, "out of memory");
        for (int v = 0; v < c->src_vocab; v++) {
            model_embed_row(m, 0, v, row);
            fuzz_st_touch(row, (size_t)d, "src_table");
        }
        for (int v = 0; v < c->tgt_vocab; v++) {
            model_embed_row(m, 1, v, row);
            fuzz_st_touch(row, (size_t)d, "tgt_table");
        }
        free(row);
    }
    if (c->positions == POS_LEARNED) {
        fuzz_st_touch(m->src_pos, (size_t)c->max_positions * d, "src_pos");
        fuzz_st_touch(m->tgt_pos, (size_t)c->max_positions * d, "tgt_pos");
    } else {
        FUZZ_CHECK(!m->src_pos && !m->tgt_pos, "sinusoidal positions bound to a table");
    }
    for (int l = 0; l < c->encoder_layers; l++) {
        const encoder_layer *e = &m->enc[l];
        fuzz_st_touch_linear(&e->qkv, 3 * d, d, 1, "enc qkv");
        fuzz_st_touch_linear(&e->o, d, d, 1, "enc o");
        fuzz_st_touch_linear(&e->fc1, F, d, 1, "enc fc1");
        fuzz_st_touch_linear(&e->fc2, d, F, 1, "enc fc2");
        fuzz_st_touch(e->attn_norm.g, d, "enc attn_norm");
        fuzz_st_touch(e->attn_norm.b, d, "enc attn_norm");
        fuzz_st_touch(e->ffn_norm.g, d, "enc ffn_norm");
        fuzz_st_touch(e->ffn_norm.b, d, "enc ffn_norm");
    }
    fuzz_st_touch_linear(&m->cross_kv, 2 * d * c->decoder_layers, d, 1, "cross_kv");
    for (int l = 0; l < c->decoder_layers; l++) {
        const decoder_layer *e = &m->dec[l];
        fuzz_st_touch_linear(&e->qkv, 3 * d, d, 1, "dec qkv");
        fuzz_st_touch_linear(&e->o, d, d, 1, "dec o");
        fuzz_st_touch_linear(&e->cross_q, d, d, 1, "dec cross_q");
        fuzz_st_touch_linear(&e->cross_o, d, d, 1, "dec cross_o");
        fuzz_st_touch_linear(&e->fc1, F, d, 1, "dec fc1");
        fuzz_st_touch_linear(&e->fc2, d, F, 1, "dec fc2");
        fuzz_st_touch(e->self_norm.g, d, "dec self_norm");
        fuzz_st_touch(e->cross_norm.g, d, "dec cross_norm");
        fuzz_st_touch(e->ffn_norm.b, d, "dec ffn_norm");
    }
    if (c->encoder_final_norm)
        fuzz_st_touch(m->enc_norm.g, d, "enc_norm");
    else
        FUZZ_CHECK(m->enc_norm.g == NULL, "enc_norm bound though absent");
    if (c->decoder_final_norm)
        fuzz_st_touch(m->dec_norm.b, d, "dec_norm");
    else
        FUZZ_CHECK(m->dec_norm.g == NULL, "dec_norm bound though absent");
    {
        /* a tied projection waits in the file (model.h out_src) until a run needs it: built
         * here as runs build it, the screen from the file's rows first (the panels absent) */
        char err[256];
        FUZZ_CHECK(model_out_need(m, MODEL_OUT_SCREEN, NULL, err, sizeof err) == 0,
                   "the screen not built: %s", err);
        FUZZ_CHECK(!m->screen_ok || m->out_screen.mem, "screen_ok without a screen");
        FUZZ_CHECK(model_out_need(m, MODEL_OUT_PACKED, NULL, err, sizeof err) == 0,
                   "the output projection not packed: %s", err);
    }
    if (m->out_src && m->out.packed) { /* a row's logits from the file = the packed kernel's */
        size_t eb = model_out_exact_bytes(m);
        void *scr = aligned_alloc(64, eb);
        float *x = malloc((size_t)d * sizeof *x);
        FUZZ_CHECK(scr != NULL && x != NULL, "out of memory");
        memset(scr, 0, eb);
        for (int k = 0; k < d; k++)
            x[k] = (float)((k % 7) - 3) * 0.25f;
        for (int n = 0; n < 16 && n < c->tgt_vocab; n++) {
            float a = model_out_exact(m, x, n, scr), b = gemm_packed_output(&m->out, x, n);
            FUZZ_CHECK(memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b)),
                       "logit %d from the file's row %g, packed %g", n, (double)a, (double)b);
        }
        free(scr);
        free(x);
    }
    fuzz_st_touch_linear(&m->out, c->tgt_vocab, d, c->output_bias, "output");
    if (c->tied_output && (m->out.w || !m->out.packed)) {
        FUZZ_CHECK(m->out.w == m->tgt_embed, "tied output is not the target embedding");
    } else if (c->tied_output) { /* packed f32 (or f16 from F16): the table's rows exactly */
        float *a = malloc((size_t)2 * d * sizeof *a);
        FUZZ_CHECK(a != NULL, "out of memory");
        for (int n = 0; n < 16 && n < c->tgt_vocab; n++) {
            linear_unpack_row(&m->out, n, a);
            model_embed_row(m, 1, n, a + d);
            for (int k = 0; k < d; k++)
                FUZZ_CHECK(a[k] == a[d + k], "tied output [%d, %d] is not the target "
                           "embedding's", n, k);
        }
        free(a);
    }
}

/* Where a tensor's bytes may lie: a reader's own rule (fuzz_st_in_image, or torch_bin's with
 * its copies). */
typedef int (*fuzz_st_inside_fn)(const st_file *f, const st_tensor *t, const uint8_t *img,
                                 size_t size);

/* [p, p + n) inside [lo, hi) */
static int fuzz_st_within(const uint8_t *p, size_t n, const uint8_t *lo, const uint8_t *hi)
{
    return p >= lo && p <= hi && n <= (size_t)(hi - p);
}

/* safetensors: in the image's data, past the 8-byte header size */
static int fuzz_st_in_image(const st_file *f, const st_tensor *t, const uint8_t *img,
                            size_t size)
{
    (void)f;
    return t->nbytes == 0 || fuzz_st_within(t->data, t->nbytes, img + 8, img + size);
}

/* The properties every reader's indexed tensors keep: a name st_find finds, sorted and unique;
 * numel the shape's product and nbytes numel times the dtype's size; the bytes where `inside`
 * allows, each read (ASan checks them) up to max_read bytes a tensor; small integer and float
 * tensors converted. */
static void fuzz_st_check_tensors(const st_file *f, const uint8_t *img, size_t size,
                                  fuzz_st_inside_fn inside, size_t max_read)
{
    for (int i = 0; i < f->n; i++) {
        const st_tensor *t = &f->tensors[i];
        const uint8_t *p = t->data;
        int64_t numel = 1;
        FUZZ_CHECK(t->name != NULL, "tensor %d has no name", i);
        FUZZ_CHECK(st_find(f, t->name) == t, "st_find(\"%s\") misses", t->name);
        FUZZ_CHECK(i == 0 || strcmp(f->tensors[i - 1].name, t->name) < 0, "names not sorted");
        FUZZ_CHECK(t->ndim >= 0 && t->ndim <= ST_MAX_DIMS, "ndim %d", t->ndim);
        for (int k = 0; k < t->ndim; k++)
            numel *= t->shape[k];
        FUZZ_CHECK(numel == t->numel, "\"%s\": numel %lld, shape product %lld", t->name,
                   (long long)t->numel, (long long)numel);
        FUZZ_CHECK((uint64_t)t->numel * st_dtype_size(t->dtype) == t->nbytes,
                   "\"%s\": nbytes %zu for %lld elements", t->name, t->nbytes,
                   (long long)t->numel);
        FUZZ_CHECK(inside(f, t, img, size), "\"%s\": data outside the image", t->name);
        if (t->nbytes <= max_read) {
            volatile uint8_t x = 0;
            for (size_t k = 0; k < t->nbytes; k++)
                x ^= p[k];
            (void)x;
        }
        if ((t->dtype == ST_I32 || t->dtype == ST_I64) && t->numel <= 4096)
            for (int64_t k = 0; k < t->numel; k++)
                (void)st_int_at(t, (size_t)k);
        if ((t->dtype == ST_F32 || t->dtype == ST_F16 || t->dtype == ST_BF16) &&
            t->numel > 0 && t->numel <= 4096) {
            float *tmp = malloc((size_t)t->numel * sizeof *tmp);
            FUZZ_CHECK(tmp != NULL, "malloc");
            st_to_f32(tmp, t->data, t->dtype, (size_t)t->numel);
            free(tmp);
        }
    }
}

/* The image parsed again (parse: st_parse, tb_parse) and bound against each tiny config: a
 * failure leaves a message, a bound model keeps fuzz_st_check_model's properties. */
static void fuzz_st_bind_each(const uint8_t *img, size_t size, st_parser parse,
                              const char *name)
{
    char err[512];
    for (size_t k = 0; k < sizeof fuzz_st_configs / sizeof fuzz_st_configs[0]; k++) {
        model_config cfg;
        model_weights m;
        st_file f;
        int rc = config_parse(&cfg, fuzz_st_configs[k], strlen(fuzz_st_configs[k]), "tiny.json",
                              NULL, NULL, err, sizeof err);
        FUZZ_CHECK(rc == 0, "tiny config %zu: %s", k, err);
        memset(&f, 0, sizeof f);
        FUZZ_CHECK(parse(&f, img, size, name, err, sizeof err) == 0, "second parse: %s", err);
        memset(err, 0, sizeof err);
        /* model_bind takes the file (and the config), on failure too */
        if (model_bind(&m, &cfg, &f, NULL, NULL, err, sizeof err) != 0) {
            FUZZ_CHECK(fuzz_msg_ok(err, sizeof err), "bind failure without a message");
            continue;
        }
        fuzz_st_check_model(&m);
        model_free(&m);
    }
}

int fuzz_safetensors(const uint8_t *data, size_t size)
{
    st_file f;
    char err[512];
    /* A private copy, so that ASan sees exactly `size` bytes (libFuzzer's buffer is exact too,
     * but the replay in tests/test_hardening.c reads files into larger buffers). */
    uint8_t *img = malloc(size ? size : 1);
    FUZZ_CHECK(img != NULL, "malloc");
    if (size)
        memcpy(img, data, size);
    memset(&f, 0, sizeof f);
    memset(err, 0, sizeof err);
    if (st_parse(&f, img, size, "fuzz.safetensors", err, sizeof err) != 0) {
        FUZZ_CHECK(fuzz_msg_ok(err, sizeof err), "parse failure without a message");
        st_close(&f);
        free(img);
        return 0;
    }
    fuzz_st_check_tensors(&f, img, size, fuzz_st_in_image, SIZE_MAX);
    {
        /* strict header (docs/FORMAT.md): '{' at byte 8, and after the object only JSON
         * whitespace up to the declared length, so its last other byte is the closing '}' */
        size_t h = 0;
        for (int i = 7; i >= 0; i--)
            h = h << 8 | img[i];
        while (h > 0 && strchr(" \t\r\n", img[8 + h - 1]) && img[8 + h - 1])
            h--;
        FUZZ_CHECK(h >= 2 && img[8] == '{' && img[8 + h - 1] == '}',
                   "accepted a header that is not one object padded with whitespace");
    }
    st_close(&f);
    fuzz_st_bind_each(img, size, st_parse, "fuzz.safetensors");
    free(img);
    return 0;
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_safetensors(data, size);
}
#endif
#endif /* XLATE_FUZZ_SAFETENSORS_C */
