/* xlate.c — the public library: a model (weights + tokenizers) and a context (threads + run
 * state). Batches of source ids into hypotheses (the encoder, the decoder bound to the search)
 * are in xlate_run.c; text to ids and back in xlate_text.c; the two types' fields in
 * xlate_impl.h. */
#include "xlate_impl.h"
#include "decode_rules.h"
#include "model/family.h"
#include "base/util.h"
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the header's numbers as the library was built with them (XLATE_VERSION is their text) */
#define VSTR_(x) #x
#define VSTR(x) VSTR_(x)
const char *xlate_version(void)
{
    return VSTR(XLATE_VERSION_MAJOR) "." VSTR(XLATE_VERSION_MINOR) "." VSTR(XLATE_VERSION_PATCH);
}

xlate_model_params xlate_model_default_params(void)
{
    xlate_model_params p = {1, XLATE_F32, NULL, NULL};
    return p;
}

static int load_spm(spm_model **out, const char *dir, const char *name, int vocab,
                    const char *field, char *err, size_t errlen)
{
    char *path = path_join(dir, name);
    int rc;
    if (!path)
        return xerr(err, errlen, "out of memory");
    rc = spm_load(out, path, err, errlen);
    if (rc == 0 && spm_vocab_size(*out) != vocab) {
        rc = xerr(err, errlen, "%s: %d pieces, but the config's %s is %d", path,
                  spm_vocab_size(*out), field, vocab);
        spm_free(*out);
        *out = NULL;
    }
    free(path);
    return rc;
}

/* AUTO: int8 where a vector path runs it (measured on the default model: BLEU within 0.3 of
 * f32 and over 92% of lines identical, tests/cli/compute_types.sh); plain C int8 is slower than
 * OpenBLAS f32, so f32 elsewhere. */
static weight_type resolve_compute(xlate_compute_type t)
{
    if (t == XLATE_AUTO)
        return cpu_isa() >= ISA_AVX2 ? WT_INT8 : WT_F32;
    return (weight_type)t; /* the first four are the same order */
}

int xlate_compute_type_parse(const char *s)
{
    if (s && strcasecmp(s, "auto") == 0)
        return XLATE_AUTO;
    return weight_type_parse(s);
}

const char *xlate_model_compute_type(const xlate_model *m)
{
    return weight_type_name(m->w.compute);
}

const char *xlate_kernels_desc(const xlate_model *m, char *buf, size_t n)
{
    char blas[64], wts[48];
    weight_type lt = m->w.cfg.decoder_layers ? m->w.dec[0].fc1.type : m->w.compute;
    enum cpu_isa isa = cpu_isa();
    /* attend.c's paths: AVX-512, AVX2 + FMA, plain C */
    const char *attn = isa >= ISA_AVX512 ? "avx512" : isa >= ISA_AVX2 ? "avx2" : "plain C";
    ops_blas_core(blas, sizeof blas);
    /* f32 arithmetic keeps an f16 file's weights f16 in the panels (each converted exactly as
     * it is read), so the line names both when they differ */
    if (lt != m->w.compute)
        snprintf(wts, sizeof wts, "%s weights, %s arithmetic", weight_type_name(lt),
                 weight_type_name(m->w.compute));
    else
        snprintf(wts, sizeof wts, "%s weights", weight_type_name(lt));
    if (m->w.packed)
        snprintf(buf, n, "own %s kernels, %s (ISA %s); attention: the decoder's own %s, the "
                 "encoder's OpenBLAS %s", gemm_path_name(m->w.compute, isa), wts,
                 cpu_isa_name(isa), attn, blas);
    else
        snprintf(buf, n, "OpenBLAS %s, f32 weights (ISA %s); the decoder's attention own %s",
                 blas, cpu_isa_name(isa), attn);
    return buf;
}

const char *xlate_output_desc(const xlate_model *m, char *buf, size_t n)
{
    const model_weights *w = &m->w;
    int built = model_out_built(w);
    char scr[64];
    if (built & MODEL_OUT_SCREEN)
        snprintf(scr, sizeof scr, "int8 screen %.1f %s", screen_bytes(&w->out_screen) /
                 (screen_bytes(&w->out_screen) >= 1000000 ? 1e6 : 1e3),
                 screen_bytes(&w->out_screen) >= 1000000 ? "MB" : "kB");
    else
        snprintf(scr, sizeof scr, "%s", w->screen_ok ? "no screen built" : "no screen");
    if (!w->out_src && !w->out.packed)
        snprintf(buf, n, "output projection f32 (OpenBLAS); %s", scr);
    else if (built & MODEL_OUT_PACKED)
        snprintf(buf, n, "output projection packed, %s %.1f MB; %s", weight_type_name(w->out.type),
                 (w->out.packed ? linear_packed_bytes(w->out.type, w->out.out, w->out.in)
                                : (size_t)w->out.out * w->out.in * sizeof(float)) / 1e6, scr);
    else
        snprintf(buf, n, "output projection not packed (greedy rescores from the file's rows); %s",
                 scr);
    return buf;
}

void xlate_search_params(const xlate_model *m, const xlate_decode_params *p, search_params *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->beam_size = p->beam_size;
    sp->n_best = p->n_best;
    sp->length_penalty = p->length_penalty;
    sp->scores = p->scores;
    sp->token_scores = p->token_scores;
    sp->alignments = p->alignments != 0;
    decode_rules_set(&sp->rules, &m->w.cfg, p);
    sp->seed = p->seed;
    sp->alternatives = p->return_alternatives;
}

int xlate_decode_screened(const xlate_model *m, const xlate_decode_params *p, const char **why)
{
    search_params sp;
    if (!m->w.screen_ok) {
        if (why)
            *why = m->w.packed ? "the model has no int8 screen (XLATE_SCREEN=0, or int8 output "
                                 "weights)" : "the model has no int8 screen (f32 through OpenBLAS)";
        return 0;
    }
    /* as xlate_translate_ex sets them up, less what depends on the batch (prefixes, which
     * only force tokens) */
    xlate_search_params(m, p, &sp);
    return search_screened(&sp, why);
}

/* m->langs: the codes of vocab.json's ">>xx<<" pieces, without the brackets. */
static int langs_index(xlate_model *m)
{
    size_t total = 1;
    char *q;
    for (int i = 0; i < m->hf.n_langs; i++)
        total += m->hf.src.len[m->hf.langs[i]];
    m->langs = malloc((m->hf.n_langs + 1) * sizeof *m->langs);
    m->lang_buf = q = malloc(total);
    if (!m->langs || !m->lang_buf)
        return -1;
    for (int i = 0; i < m->hf.n_langs; i++) {
        size_t l = m->hf.src.len[m->hf.langs[i]] - 4;
        memcpy(q, m->hf.src.piece[m->hf.langs[i]] + 2, l);
        q[l] = '\0';
        m->langs[i] = q;
        q += l + 1;
    }
    return 0;
}

int xlate_model_load(xlate_model **out, const char *dir, const xlate_model_params *p, char *err,
                     size_t errlen)
{
    xlate_model_params def = xlate_model_default_params();
    xlate_model *m = calloc(1, sizeof *m);
    const model_config *c;
    *out = NULL;
    if (!p)
        p = &def;
    if (!m)
        return xerr(err, errlen, "out of memory");
    ops_init(); /* before the load, so that OpenBLAS's idle threads do not spin through it */
    if ((unsigned)p->compute_type > XLATE_AUTO) {
        free(m);
        return xerr(err, errlen, "compute type %d: expected f32, int8, bf16, f16 or auto",
                    (int)p->compute_type);
    }
    if (model_load(&m->w, dir, resolve_compute(p->compute_type), p->warn, p->warn_user, err,
                   errlen)) {
        free(m);
        return -1;
    }
    c = &m->w.cfg;
    if (p->load_tokenizers && c->family == family_m2m100()) {
        if (m2m_tok_load(&m->m2m, dir, m2m_tok_is_nllb(dir), c->src_vocab, c->eos_id,
                         c->pad_id, err, errlen))
            goto fail;
        m->has_m2m = 1;
        m->w.cfg.unk_id = m->m2m.unk;
    } else if (p->load_tokenizers && c->vocab) {
        if (hf_tok_load(&m->hf, dir, c->tokenizer, c->target_tokenizer, c->vocab,
                        c->target_vocab, c->src_vocab, c->tgt_vocab, c->eos_id, c->pad_id, err,
                        errlen))
            goto fail;
        m->has_hf = 1;
        m->w.cfg.unk_id = m->hf.unk;
        if (langs_index(m)) {
            xerr(err, errlen, "out of memory");
            goto fail;
        }
    } else if (p->load_tokenizers && c->tokenizer) {
        if (load_spm(&m->src_spm, dir, c->tokenizer, c->src_vocab, "src_vocab_size", err, errlen))
            goto fail;
        if (c->target_tokenizer) {
            if (load_spm(&m->tgt_spm, dir, c->target_tokenizer, c->tgt_vocab, "tgt_vocab_size",
                         err, errlen))
                goto fail;
        } else if (c->tgt_vocab != c->src_vocab) {
            xerr(err, errlen, "%s: one tokenizer but src_vocab_size %d != tgt_vocab_size %d: "
                 "name the target's in \"target_tokenizer\"", dir, c->src_vocab, c->tgt_vocab);
            goto fail;
        } else {
            m->tgt_spm = m->src_spm;
        }
    }
    *out = m;
    return 0;
fail:
    xlate_model_free(m);
    return -1;
}

void xlate_model_free(xlate_model *m)
{
    if (!m)
        return;
    if (m->tgt_spm != m->src_spm)
        spm_free(m->tgt_spm);
    spm_free(m->src_spm);
    hf_tok_free(&m->hf);
    m2m_tok_free(&m->m2m);
    free(m->langs);
    free(m->lang_buf);
    model_free(&m->w);
    free(m);
}

xlate_model_info xlate_model_get_info(const xlate_model *m)
{
    const model_config *c = &m->w.cfg;
    xlate_model_info i;
    memset(&i, 0, sizeof i);
    i.d_model = c->d_model;
    i.heads = c->heads;
    i.ffn_dim = c->ffn_dim;
    i.decoder_heads = c->decoder_heads;
    i.decoder_ffn_dim = c->decoder_ffn_dim;
    i.encoder_layers = c->encoder_layers;
    i.decoder_layers = c->decoder_layers;
    i.src_vocab = c->src_vocab;
    i.tgt_vocab = c->tgt_vocab;
    i.max_positions = c->max_positions;
    i.pad_id = c->pad_id;
    i.unk_id = c->unk_id;
    i.bos_id = c->bos_id;
    i.eos_id = c->eos_id;
    i.n_params = m->w.n_params;
    i.has_tokenizer = m->src_spm != NULL;
    i.activation = activation_name(c->activation);
    i.norm_placement = c->pre_norm ? "pre" : "post";
    i.positions = positions_name(c->positions);
    i.weights = c->weights;
    i.shared_embeddings = c->shared_embeddings;
    i.tied_output = c->tied_output;
    i.family = c->family->name;
    i.has_tokenizer = m->src_spm != NULL || m->has_hf || m->has_m2m;
    i.n_langs = m->has_hf ? m->hf.n_langs : m->has_m2m ? m->m2m.n_langs : 0;
    i.langs = m->has_m2m ? m->m2m.lang_ptr : m->langs;
    i.lang_forced = c->family == family_m2m100();
    i.lang_after_eos = m->has_m2m && m->m2m.legacy;
    i.gen_num_beams = c->gen.num_beams;
    i.gen_max_length = c->gen.max_length;
    i.gen_length_penalty = c->gen.length_penalty;
    i.gen_early_stopping = !c->gen.hf_beam ? NULL
                           : c->gen.early_stopping == EARLY_STOP_TRUE ? "true"
                           : c->gen.early_stopping == EARLY_STOP_FALSE ? "false" : "never";
    i.gen_forced_eos = c->gen.forced_eos;
    i.gen_bad_words = c->gen.n_bad;
    i.gen_repetition_penalty = c->gen.repetition_penalty;
    i.gen_no_repeat_ngram_size = c->gen.no_repeat_ngram;
    i.gen_forced_bos = c->gen.hf_beam ? c->gen.forced_bos : -1;
    i.gen_suppress_tokens = c->gen.n_suppress;
    i.gen_begin_suppress_tokens = c->gen.n_begin_suppress;
    i.gen_do_sample = c->gen.do_sample;
    i.gen_top_k = c->gen.top_k;
    i.gen_top_p = c->gen.top_p;
    i.gen_temperature = c->gen.temperature;
    i.source_lang = c->source_lang ? c->source_lang
                    : m->has_hf && m->hf.source_lang[0] ? m->hf.source_lang
                    : m->has_m2m ? m->m2m.src_lang : NULL;
    i.target_lang = c->target_lang ? c->target_lang
                    : m->has_hf && m->hf.target_lang[0] ? m->hf.target_lang : NULL;
    return i;
}

int xlate_lang_id(const xlate_model *m, const char *lang)
{
    if (m->has_m2m)
        return m2m_tok_lang(&m->m2m, lang);
    return m->has_hf ? hf_tok_lang(&m->hf, lang) : -1;
}

void xlate_lang_suggest(const xlate_model *m, const char *lang, char *buf, size_t n)
{
    if (n)
        buf[0] = 0;
    if (m->has_m2m && n)
        m2m_tok_suggest(&m->m2m, lang, buf, n, 5);
}

xlate_decode_params xlate_model_decode_defaults(const xlate_model *m)
{
    return decode_rules_defaults(&m->w.cfg.gen);
}

int xlate_check_alignment_layer(const xlate_model *m, int layer, char *err, size_t errlen)
{
    int L = m->w.cfg.decoder_layers;
    if (layer < -1 || layer >= L)
        return xerr(err, errlen, "alignment_layer: expected -1 (the default layer) or 0 to %d "
                    "(the model has %d decoder layers), got %d", L - 1, L, layer);
    return 0;
}

int xlate_decode_params_check(const xlate_model *m, const xlate_decode_params *p, char *err,
                              size_t errlen)
{
    if (p->beam_size < 1 || p->beam_size > 256)
        return xerr(err, errlen, "beam_size: expected 1 to 256, got %d", p->beam_size);
    if (p->n_best < 1 || p->n_best > p->beam_size)
        return xerr(err, errlen, "n_best: expected 1 to the beam size (%d), got %d",
                    p->beam_size, p->n_best);
    if (!isfinite(p->length_penalty) || p->length_penalty < (m->w.cfg.gen.hf_beam ? -10 : 0) ||
        p->length_penalty > 10)
        return xerr(err, errlen, "length_penalty: expected %d to 10, got %g",
                    m->w.cfg.gen.hf_beam ? -10 : 0, (double)p->length_penalty);
    if (p->max_length < 0 || p->max_length > m->w.cfg.max_positions)
        return xerr(err, errlen, "max_length: expected 1 to the model's max_positions (%d), "
                    "got %d", m->w.cfg.max_positions, p->max_length);
    if (p->min_length < 0 || p->min_length > m->w.cfg.max_positions)
        return xerr(err, errlen, "min_length: expected 0 to the model's max_positions (%d), "
                    "got %d", m->w.cfg.max_positions, p->min_length);
    if (p->max_length > 0 && p->min_length > p->max_length)
        return xerr(err, errlen, "min_length %d exceeds max_length %d", p->min_length,
                    p->max_length);
    if (p->source_suffix_id < -1 || p->source_suffix_id >= m->w.cfg.src_vocab)
        return xerr(err, errlen, "source_suffix_id: expected -1 or an id below the source "
                    "vocabulary (%d), got %d", m->w.cfg.src_vocab, p->source_suffix_id);
    if (p->forced_bos_id < -1 || p->forced_bos_id >= m->w.cfg.tgt_vocab)
        return xerr(err, errlen, "forced_bos_id: expected -1 or an id below the target "
                    "vocabulary (%d), got %d", m->w.cfg.tgt_vocab, p->forced_bos_id);
    if (xlate_check_alignment_layer(m, p->alignment_layer, err, errlen))
        return -1;
    if (p->workspace_bytes < 0)
        return xerr(err, errlen, "workspace_bytes: expected 0 (no bound) or a number of bytes, "
                    "got %lld", p->workspace_bytes);
    if (p->return_alternatives > 1) {
        /* the search's rows for one sentence: K beams for each of the N alternatives, each a
         * row of logits over the vocabulary (search_needs, search_beam.c) */
        long long rows = (long long)p->return_alternatives * (p->beam_size > 1 ? p->beam_size : 1);
        long long bytes = rows * m->w.cfg.tgt_vocab * (long long)sizeof(float);
        if (bytes > XLATE_MAX_SENTENCE_LOGITS)
            return xerr(err, errlen, "return_alternatives %d with beam_size %d: %lld hypotheses "
                        "a sentence, whose logits alone need %.2f GB (%lld x %d-token "
                        "vocabulary x 4 bytes); at most %.2f GB (%lld hypotheses with this "
                        "model): lower return_alternatives or beam_size",
                        p->return_alternatives, p->beam_size, rows, (double)bytes / 1e9, rows,
                        m->w.cfg.tgt_vocab, (double)XLATE_MAX_SENTENCE_LOGITS / 1e9,
                        XLATE_MAX_SENTENCE_LOGITS / ((long long)sizeof(float) *
                                                     m->w.cfg.tgt_vocab));
    }
    return decode_rules_check(m->w.cfg.tgt_vocab, p, err, errlen);
}

void xlate_results_free(xlate_result *r, int n)
{
    if (!r)
        return;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < r[i].n_hyps; k++) {
            free(r[i].hyps[k].ids);
            free(r[i].hyps[k].token_logprobs);
            free(r[i].hyps[k].attention);
            free(r[i].hyps[k].alignment);
        }
        free(r[i].hyps);
        r[i].hyps = NULL;
        r[i].n_hyps = 0;
    }
}

xlate_ctx *xlate_ctx_new(const xlate_model *m, int threads, char *err, size_t errlen)
{
    xlate_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        xerr(err, errlen, "out of memory");
        return NULL;
    }
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    ops_init();
    ctx->m = m;
    if (!(ctx->pool = ops_pool_create(threads, err, errlen))) {
        free(ctx);
        return NULL;
    }
    return ctx;
}

xlate_ctx *xlate_ctx_forwarding(const xlate_model *m, xlate_forward_fn forward, void *user)
{
    xlate_ctx *ctx = calloc(1, sizeof *ctx);
    if (ctx) {
        ctx->m = m;
        ctx->forward = forward;
        ctx->forward_user = user;
    }
    return ctx;
}

void xlate_ctx_free(xlate_ctx *ctx)
{
    if (!ctx)
        return;
    pool_free(ctx->pool);
    encoder_scratch_free(&ctx->enc);
    decoder_state_free(&ctx->dec);
    search_scratch_free(&ctx->search);
    free(ctx->enc_out);
    free(ctx->sin_pos);
    free(ctx);
}

int xlate_ctx_threads(const xlate_ctx *ctx) { return pool_threads(ctx->pool); }

const xlate_model *xlate_ctx_model(const xlate_ctx *ctx) { return ctx->m; }

void xlate_ctx_set_batch_invariant(xlate_ctx *ctx, int on)
{
    ctx->enc.whole_batch = !on;
    ctx->dec.whole_batch = !on;
}

xlate_time_split xlate_ctx_time_split(const xlate_ctx *ctx) { return ctx->times; }
xlate_workspace_stats xlate_ctx_workspace(const xlate_ctx *ctx) { return ctx->ws; }
