/* xlate_run.c — a context's runs: batches of source ids through the encoder, and the decoder
 * bound to the search (search.h's search_model) into hypotheses; teacher-forced logits and
 * attention. The model and the context themselves are in xlate.c. */
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

/* The position table of the source (src) or target with at least `rows` rows: the model's
 * learned one, or the sinusoidal rows, computed the first time they are needed. */
static const float *positions(xlate_ctx *ctx, int src, int rows, char *err, size_t errlen)
{
    const model_weights *w = &ctx->m->w;
    const model_config *c = &w->cfg;
    if (c->positions == POS_LEARNED)
        return src ? w->src_pos : w->tgt_pos;
    if (rows > ctx->sin_rows) {
        float *t = realloc(ctx->sin_pos, (size_t)rows * c->d_model * sizeof *t);
        if (!t) {
            xerr(err, errlen, "out of memory");
            return NULL;
        }
        if (c->positions == POS_SIN_M2M)
            model_sinusoid_m2m(t, ctx->sin_rows, rows, c->d_model, c->pos_offset);
        else
            model_sinusoid(t, ctx->sin_rows, rows, c->d_model,
                           c->positions == POS_SIN_INTERLEAVED, c->pos_f64);
        ctx->sin_pos = t;
        ctx->sin_rows = rows;
    }
    return ctx->sin_pos;
}

/* Copies the sources with eos appended (and checks them) into one block; *ids_out[i] points
 * into it. */
static int with_eos(const model_config *c, int n, const int *const *src, const int *src_len,
                    int suffix, int **block, int ***rows, int **lens, size_t *total, char *err,
                    size_t errlen)
{
    size_t N = 0;
    int extra = 1 + (suffix >= 0); /* the eos, and a token after it (NLLB legacy) */
    *block = NULL;
    *rows = NULL;
    *lens = NULL;
    for (int i = 0; i < n; i++) {
        if (src_len[i] < 0 || src_len[i] > c->max_positions - extra)
            return xerr(err, errlen, "sentence %d: %d source tokens, the model takes at most %d "
                        "(max_positions %d, eos included)", i + 1, src_len[i],
                        c->max_positions - extra, c->max_positions);
        for (int k = 0; k < src_len[i]; k++)
            if (src[i][k] < 0 || src[i][k] >= c->src_vocab)
                return xerr(err, errlen, "sentence %d, token %d: id %d outside the source "
                            "vocabulary [0, %d)", i + 1, k + 1, src[i][k], c->src_vocab);
        N += (size_t)src_len[i] + extra;
    }
    *block = malloc((N ? N : 1) * sizeof **block);
    *rows = malloc((n ? n : 1) * sizeof **rows);
    *lens = malloc((n ? n : 1) * sizeof **lens);
    if (!*block || !*rows || !*lens) {
        free(*block);
        free(*rows);
        free(*lens);
        return xerr(err, errlen, "out of memory");
    }
    N = 0;
    for (int i = 0; i < n; i++) {
        (*rows)[i] = *block + N;
        memcpy(*block + N, src[i], src_len[i] * sizeof(int));
        (*block)[N + src_len[i]] = c->eos_id;
        if (suffix >= 0)
            (*block)[N + src_len[i] + 1] = suffix;
        (*lens)[i] = src_len[i] + extra;
        N += (size_t)src_len[i] + extra;
    }
    *total = N;
    return 0;
}

/* Runs the encoder into ctx->enc_out. */
static int run_encoder(xlate_ctx *ctx, int n, int **rows, const int *lens, size_t N, char *err,
                       size_t errlen)
{
    const model_config *c = &ctx->m->w.cfg;
    size_t need = N * c->d_model;
    const float *pos;
    int longest = 0;
    for (int i = 0; i < n; i++)
        longest = lens[i] > longest ? lens[i] : longest;
    if (!(pos = positions(ctx, 1, longest, err, errlen)))
        return -1;
    if (need > ctx->cap_enc_out) {
        float *p = realloc(ctx->enc_out, need * sizeof *p);
        if (!p)
            return xerr(err, errlen, "out of memory (%zu MB for the encoder output)",
                        need * 4 >> 20);
        ctx->enc_out = p;
        ctx->cap_enc_out = need;
    }
    {
        double t0 = now_seconds();
        int rc = encoder_forward(&ctx->m->w, ctx->pool, &ctx->enc, pos, n,
                                 (const int *const *)rows, lens, ctx->enc_out, err, errlen);
        ctx->times.encoder_s += now_seconds() - t0;
        return rc;
    }
}

int xlate_encode(xlate_ctx *ctx, int n, const int *const *src, const int *src_len, float *out,
                 char *err, size_t errlen)
{
    int *block, **rows, *lens, rc;
    size_t N;
    if (with_eos(&ctx->m->w.cfg, n, src, src_len, -1, &block, &rows, &lens, &N, err, errlen))
        return -1;
    rc = run_encoder(ctx, n, rows, lens, N, err, errlen);
    if (rc == 0)
        memcpy(out, ctx->enc_out, N * ctx->m->w.cfg.d_model * sizeof(float));
    free(block);
    free(rows);
    free(lens);
    return rc;
}

/* The decoder as the search sees it (search.h). */
typedef struct {
    const model_weights *w;
    pool *pool;
    decoder_state *st;
    const float *hidden; /* [rows, d] of the last estimate (decoder_hidden) */
    xlate_time_split *times;
    int packed;          /* 1: this run has made w->out's panels ready (model_out_need) */
    void *exact;         /* model_out_exact's scratch when the candidates' logits come from
                            the file's rows (w->out not packed for this run); else NULL */
} decoder_binding;

/* The step up to the output projection, its time counted; *t1: when it ended. */
static const float *binding_hidden(decoder_binding *b, int rows, const int *tokens,
                                   const int *slots, const int *srcs, int pos, double *t1)
{
    double t0 = now_seconds(), a0 = b->st->attn_s;
    const float *h = decoder_hidden(b->w, b->pool, b->st, rows, tokens, slots, srcs, pos);
    *t1 = now_seconds();
    b->times->decoder_s += *t1 - t0;
    b->times->attention_s += b->st->attn_s - a0;
    b->times->decoder_steps++;
    b->times->decoder_rows += rows;
    return h;
}

static void binding_step(void *user, int rows, const int *tokens, const int *slots,
                         const int *srcs, int pos, float *logits)
{
    decoder_binding *b = user;
    double t1;
    const float *h = binding_hidden(b, rows, tokens, slots, srcs, pos, &t1);
    char err[256];
    /* a screened run computes every logit only where the estimates were not finite: the
     * panels are packed then; out of memory for them makes the logits NaN, which the search
     * reports (search_step_fail) */
    if (!b->packed && model_out_need(b->w, MODEL_OUT_PACKED, b->pool, err, sizeof err)) {
        for (size_t i = 0; i < (size_t)rows * b->w->cfg.tgt_vocab; i++)
            logits[i] = NAN;
        return;
    }
    b->packed = 1;
    decoder_logits(b->w, b->pool, b->st, h, rows, logits);
    b->times->projection_s += now_seconds() - t1;
}

static void binding_estimate(void *user, int rows, const int *tokens, const int *slots,
                             const int *srcs, int pos, float *est, float *rad)
{
    decoder_binding *b = user;
    double t1;
    b->hidden = binding_hidden(b, rows, tokens, slots, srcs, pos, &t1);
    screen_estimate(&b->w->out_screen, b->pool, b->hidden, rows, est, rad);
    b->times->projection_s += now_seconds() - t1;
}

/* (its time, a few microseconds a step, goes to the search's share: not counted) */
static float binding_exact(void *user, int row, int token)
{
    decoder_binding *b = user;
    const float *x = b->hidden + (size_t)row * b->w->cfg.d_model;
    return b->exact ? model_out_exact(b->w, x, token, b->exact)
                    : gemm_packed_output(&b->w->out, x, token);
}

static const float *binding_attention(void *user)
{
    const decoder_binding *b = user;
    return b->st->attn;
}

static void binding_copy_slot(void *user, int dst, int src, int from, int npos)
{
    decoder_binding *b = user;
    decoder_copy_slot(b->w, b->st, dst, src, from, npos);
}

static void binding_parallel(void *user, int n, void (*task)(void *arg, int t, int thread),
                             void *arg)
{
    decoder_binding *b = user;
    pool_run(b->pool, n, task, arg);
}

/* Where emit_result writes. */
typedef struct {
    xlate_result *out; /* [n] */
    const int *lens;   /* [n] source lengths, eos included */
    int stride;        /* the search's attention rows' stride */
} emit_target;

/* The alignment layer's attention rows of h (lens floats each, out of rows at stride S) and
 * each token's argmax over the source without its eos (the lowest position on ties). */
static int emit_attention(xlate_hypothesis *o, const search_hyp *h, int len, int S)
{
    int rows = h->n + h->finished;
    size_t total = (size_t)rows * len;
    o->attention = malloc((total ? total : 1) * sizeof *o->attention);
    o->alignment = malloc((h->n ? h->n : 1) * sizeof *o->alignment);
    if (!o->attention || !o->alignment)
        return -1;
    o->src_len1 = len;
    for (int t = 0; t < rows; t++)
        memcpy(o->attention + (size_t)t * len, h->attention + (size_t)t * S,
               len * sizeof *o->attention);
    for (int t = 0; t < h->n; t++) {
        const float *a = o->attention + (size_t)t * len;
        int best = len > 1 ? 0 : -1;
        for (int s = 1; s < len - 1; s++)
            if (a[s] > a[best])
                best = s;
        o->alignment[t] = best;
    }
    return 0;
}

/* Copies a sentence's hypotheses out of the search's scratch into out[i] (search_emit). */
static int emit_result(void *user, int i, const search_hyp *hyps, int n_hyps, char *err,
                       size_t errlen)
{
    const emit_target *et = user;
    xlate_result *r = et->out + i;
    r->hyps = calloc(n_hyps ? n_hyps : 1, sizeof *r->hyps);
    if (!r->hyps)
        return xerr(err, errlen, "out of memory");
    for (int k = 0; k < n_hyps; k++) {
        const search_hyp *h = &hyps[k];
        xlate_hypothesis *o = &r->hyps[k];
        o->ids = malloc((h->n ? h->n : 1) * sizeof *o->ids);
        if (h->token_logprobs)
            o->token_logprobs = malloc((h->n + h->finished) * sizeof *o->token_logprobs);
        r->n_hyps = k + 1; /* so that xlate_results_free frees what is there */
        if (!o->ids || (h->token_logprobs && !o->token_logprobs))
            return xerr(err, errlen, "out of memory");
        memcpy(o->ids, h->ids, h->n * sizeof *o->ids);
        if (h->token_logprobs)
            memcpy(o->token_logprobs, h->token_logprobs,
                   (h->n + h->finished) * sizeof *o->token_logprobs);
        if (h->attention && emit_attention(o, h, et->lens[i], et->stride))
            return xerr(err, errlen, "out of memory");
        o->n = h->n;
        o->finished = h->finished;
        o->logprob = h->logprob;
        o->score = h->score;
    }
    return 0;
}

/* The decoder layer whose cross-attention gives the alignments (DEVELOPERS.md, "Decisions
 * worth knowing"): by default the penultimate, whose attention averaged over its heads aligns
 * best of the layers without alignment training (Garg et al. 2019, "Jointly Learning to Align
 * and Translate with Transformer Models"). A 1-layer decoder: its layer. */
static int alignment_layer(const model_config *c, const xlate_decode_params *p)
{
    if (p->alignment_layer >= 0)
        return p->alignment_layer;
    return c->decoder_layers >= 2 ? c->decoder_layers - 2 : 0;
}

int xlate_translate(xlate_ctx *ctx, int n, const int *const *src, const int *src_len,
                    const xlate_decode_params *p, xlate_result *out, char *err, size_t errlen)
{
    return xlate_translate_ex(ctx, n, src, src_len, NULL, p, out, err, errlen);
}

/* The working memory (bytes) of a decoder run over sentences [0, n) (lens: with eos; max_len:
 * their bounds): the encoder's scratch and output, the decoder state (caches, cross-attention
 * keys and values, step scratch), the search's scratch (xlate.h, workspace_bytes). held: what
 * the context holds after the run, its buffers kept from earlier runs counted (they only
 * grow); else what the run itself needs. */
static size_t plan_run(const xlate_ctx *ctx, const search_params *sp, int n, const int *lens,
                       const int *max_len, int screened, int held)
{
    const model_config *c = &ctx->m->w.cfg;
    int threads = pool_threads(ctx->pool), n_slots, max_rows, cap, max_src = 0;
    size_t N = 0, out;
    for (int i = 0; i < n; i++) {
        N += lens[i];
        max_src = lens[i] > max_src ? lens[i] : max_src;
    }
    search_needs(sp, n, max_len, &n_slots, &max_rows, &cap);
    out = N * c->d_model;
    if (held && ctx->cap_enc_out > out)
        out = ctx->cap_enc_out;
    return out * sizeof(float) +
           encoder_plan_bytes(c, held ? &ctx->enc : NULL, threads, n, lens) +
           decoder_plan_bytes(c, held ? &ctx->dec : NULL, threads, n_slots, cap, max_rows, n,
                              lens, sp->alignments) +
           search_plan_bytes(sp, held ? &ctx->search : NULL, n, max_len, c->tgt_vocab, max_src,
                             screened);
}

/* Frees the context's run buffers (encoder, decoder, search); the next run makes them anew. */
static void release_run_buffers(xlate_ctx *ctx)
{
    int enc_whole = ctx->enc.whole_batch, dec_whole = ctx->dec.whole_batch;
    encoder_scratch_free(&ctx->enc);
    decoder_state_free(&ctx->dec);
    search_scratch_free(&ctx->search);
    free(ctx->enc_out);
    ctx->enc_out = NULL;
    ctx->cap_enc_out = 0;
    ctx->enc.whole_batch = enc_whole;
    ctx->dec.whole_batch = dec_whole;
}

/* workspace_bytes: 1 when the batch runs whole within the bound (the buffers kept from earlier
 * runs released first where, grown to this batch's, they would pass it); 0 when it ran in
 * slices (the out of every sentence filled); XLATE_ERR_WORKSPACE when a sentence alone needs
 * more, -1 on another error (err says). Slices are cut greedily in the batch's order: a
 * sentence joins the slice while the slice's plan stays within the bound. */
static int fit_workspace(xlate_ctx *ctx, int n, const int *const *src, const int *src_len,
                         const xlate_sentence_opts *opts, const xlate_decode_params *p,
                         const search_params *sp, const int *lens, const int *max_len,
                         int screened, xlate_result *out, char *err, size_t errlen)
{
    size_t bound = (size_t)p->workspace_bytes, need = plan_run(ctx, sp, n, lens, max_len,
                                                               screened, 0);
    xlate_sentence_opts *own = NULL;
    int i = 0;
    if (need <= bound) {
        if (plan_run(ctx, sp, n, lens, max_len, screened, 1) > bound) {
            release_run_buffers(ctx);
            ctx->ws.released++;
        }
        return 1;
    }
    for (int k = 0; k < n; k++) {
        size_t one = plan_run(ctx, sp, 1, lens + k, max_len + k, screened, 0);
        if (one > bound) {
            xerr(err, errlen, "workspace_bytes: a sentence of %d source tokens (%d hypotheses "
                 "of up to %d tokens) needs %zu bytes (%.1f MiB) of working memory, more than "
                 "the bound of %lld bytes (%.1f MiB)", src_len[k],
                 (p->beam_size > 1 ? p->beam_size : 1) *
                 (p->return_alternatives > 1 ? p->return_alternatives : 1), max_len[k], one,
                 one / 1048576.0, p->workspace_bytes, p->workspace_bytes / 1048576.0);
            return XLATE_ERR_WORKSPACE;
        }
    }
    if (!opts && p->sampling) { /* sentence i keeps stream i in its slice (xlate_translate) */
        if (!(own = calloc(n, sizeof *own)))
            return xerr(err, errlen, "out of memory");
        for (int k = 0; k < n; k++)
            own[k].stream = (unsigned long long)k;
        opts = own;
    }
    ctx->ws.sliced++;
    while (i < n) {
        int k = 1, rc;
        while (i + k < n && plan_run(ctx, sp, k + 1, lens + i, max_len + i, screened, 0) <= bound)
            k++;
        rc = xlate_translate_ex(ctx, k, src + i, src_len + i, opts ? opts + i : NULL, p, out + i,
                                err, errlen);
        if (rc) {
            xlate_results_free(out, i);
            free(own);
            return rc;
        }
        i += k;
    }
    free(own);
    return 0;
}

int xlate_translate_ex(xlate_ctx *ctx, int n, const int *const *src, const int *src_len,
                       const xlate_sentence_opts *opts, const xlate_decode_params *p,
                       xlate_result *out, char *err, size_t errlen)
{
    const model_weights *w = &ctx->m->w;
    const model_config *c = &w->cfg;
    int *block = NULL, **rows = NULL, *lens = NULL, *max_len = NULL, rc = -1;
    uint64_t *streams = NULL;
    const int **pre = NULL;
    int *pre_len = NULL;
    int n_slots, max_rows, cap;
    size_t N;
    const float *pos;
    decoder_binding bind = {w, ctx->pool, &ctx->dec, NULL, &ctx->times, 0, NULL};
    search_model sm = {c->tgt_vocab, c->bos_id, c->eos_id, &bind, binding_step,
                       binding_copy_slot, NULL, NULL, binding_attention, 0,
                       binding_parallel};
    search_params sp;
    emit_target et = {out, NULL, 0};
    double t_need;

    if (ctx->forward) /* a request queue's context: the batch runs on the queue's */
        return ctx->forward(ctx->forward_user, n, src, src_len, opts, p, out, err, errlen);
    memset(out, 0, (size_t)n * sizeof *out);
    if (n <= 0)
        return 0;
    if (xlate_decode_params_check(ctx->m, p, err, errlen))
        return -1;
    {
        /* a batch whose rows of logits (K x N a sentence) would pass the bound of one sentence
         * runs in slices that keep within it: a sentence's result never depends on its batch */
        long long per = (long long)(p->beam_size > 1 ? p->beam_size : 1) *
                        (p->return_alternatives > 1 ? p->return_alternatives : 1) *
                        c->tgt_vocab * (long long)sizeof(float);
        int step = (int)(XLATE_MAX_SENTENCE_LOGITS / per);
        if (step < 1)
            step = 1;
        if (n > step) {
            for (int i = 0; i < n; i += step) {
                int k = n - i < step ? n - i : step;
                if (xlate_translate_ex(ctx, k, src + i, src_len + i, opts ? opts + i : NULL, p,
                                       out + i, err, errlen)) {
                    xlate_results_free(out, i);
                    return -1;
                }
            }
            return 0;
        }
    }
    xlate_search_params(ctx->m, p, &sp);
    /* what of the output projection this run needs, built now when it is not yet: the screen
     * for greedy's argmax (its candidates' logits from the file's rows while the panels do not
     * exist), else the panels */
    t_need = now_seconds(); /* model preparation deferred to here: build_s, not the run's */
    if (w->screen_ok && search_screened(&sp, NULL)) {
        if (model_out_need(w, MODEL_OUT_SCREEN, ctx->pool, err, errlen))
            goto done;
        sm.estimate = binding_estimate;
        sm.exact = binding_exact;
        if (!(model_out_built(w) & MODEL_OUT_PACKED)) {
            size_t eb = model_out_exact_bytes(w);
            if (!(bind.exact = aligned_alloc(64, eb))) {
                xerr(err, errlen, "out of memory");
                goto done;
            }
            memset(bind.exact, 0, eb);
        } else {
            bind.packed = 1;
        }
    } else {
        if (model_out_need(w, MODEL_OUT_PACKED, ctx->pool, err, errlen))
            goto done;
        bind.packed = 1;
    }
    ctx->times.build_s += now_seconds() - t_need;
    if (p->sampling && opts) {
        if (!(streams = malloc(n * sizeof *streams))) {
            xerr(err, errlen, "out of memory");
            goto done;
        }
        for (int i = 0; i < n; i++)
            streams[i] = opts[i].stream;
        sp.streams = streams;
    }
    if (decode_rules_prefixes(c, p, n, opts, &pre, &pre_len, err, errlen))
        goto done;
    sp.rules.prefix = pre;
    sp.rules.prefix_len = pre_len;
    if (c->gen.hf_beam) { /* a Hugging Face model: generate()'s beam rules */
        sp.hf_beam = 1;
        sp.renormalize = c->gen.renormalize;
        sp.early_stopping = c->gen.early_stopping == EARLY_STOP_TRUE    ? SEARCH_EARLY_TRUE
                            : c->gen.early_stopping == EARLY_STOP_FALSE ? SEARCH_EARLY_FALSE
                                                                        : SEARCH_EARLY_NEVER;
    }
    if (with_eos(c, n, src, src_len, p->source_suffix_id, &block, &rows, &lens, &N, err, errlen))
        goto done;
    if (!(max_len = malloc(n * sizeof *max_len))) {
        xerr(err, errlen, "out of memory");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        /* Hugging Face's max_length counts the decoder start token */
        int bound = c->gen.max_length > 0 ? c->gen.max_length - 1 : 3 * lens[i] + 10;
        if (bound < p->min_length + 1)
            bound = p->min_length + 1;
        if (pre_len && bound < pre_len[i] + 1)
            bound = pre_len[i] + 1;
        max_len[i] = p->max_length > 0 ? p->max_length : bound;
        if (max_len[i] > c->max_positions)
            max_len[i] = c->max_positions;
    }
    if (p->workspace_bytes > 0) {
        int fit = fit_workspace(ctx, n, src, src_len, opts, p, &sp, lens, max_len,
                                sm.estimate != NULL, out, err, errlen);
        if (fit != 1) {
            rc = fit;
            goto done;
        }
    }
    search_needs(&sp, n, max_len, &n_slots, &max_rows, &cap);
    {
        size_t plan = plan_run(ctx, &sp, n, lens, max_len, sm.estimate != NULL, 0);
        ctx->ws.runs++;
        if ((long long)plan > ctx->ws.planned_max) {
            ctx->ws.planned_max = (long long)plan;
            ctx->ws.max_n = n;
            ctx->ws.max_hyps = n_slots / n;
            ctx->ws.max_cap = cap;
        }
    }
    if (run_encoder(ctx, n, rows, lens, N, err, errlen) ||
        !(pos = positions(ctx, 0, cap, err, errlen)) ||
        decoder_begin(w, ctx->pool, &ctx->dec, pos, n_slots, cap, max_rows, n, lens,
                      ctx->enc_out, err, errlen) ||
        decoder_capture(w, &ctx->dec, sp.alignments ? alignment_layer(c, p) : -1, err, errlen))
        goto done;
    sm.attn_stride = et.stride = ctx->dec.max_src;
    et.lens = lens;
    rc = search_run(&sm, &ctx->search, n, max_len, &sp, emit_result, &et, err, errlen);
done:
    if (rc)
        xlate_results_free(out, n);
    free(block);
    free(rows);
    free(lens);
    free(max_len);
    free(streams);
    free(pre);
    free(pre_len);
    free(bind.exact);
    return rc;
}

/* The decoder teacher-forced on tgt: logits [sum(tgt_len), Vt] (NULL: not computed) and the
 * alignment layer's attention (attn NULL: not computed), rows as xlate_forced_attention's. */
static int forced_run(xlate_ctx *ctx, int n, const int *const *src, const int *src_len,
                      const int *const *tgt, const int *tgt_len, float *logits,
                      const xlate_decode_params *ap, float *attn, char *err, size_t errlen)
{
    const model_weights *w = &ctx->m->w;
    const model_config *c = &w->cfg;
    int *block = NULL, **rows = NULL, *lens = NULL, *tok = NULL, *slot = NULL, rc = -1, cap = 1;
    size_t N, *out_off = NULL, *att_off = NULL;
    float *step = NULL;
    const float *pos;

    for (int i = 0; i < n; i++) {
        if (tgt_len[i] > cap)
            cap = tgt_len[i];
        for (int k = 0; k < tgt_len[i]; k++)
            if (tgt[i][k] < 0 || tgt[i][k] >= c->tgt_vocab)
                return xerr(err, errlen, "target %d, token %d: id %d outside [0, %d)", i + 1,
                            k + 1, tgt[i][k], c->tgt_vocab);
    }
    if (cap > c->max_positions)
        return xerr(err, errlen, "target longer than max_positions %d", c->max_positions);
    if (logits && model_out_need(w, MODEL_OUT_PACKED, ctx->pool, err, errlen))
        return -1;
    if (with_eos(c, n, src, src_len, -1, &block, &rows, &lens, &N, err, errlen))
        return -1;
    tok = malloc(n * sizeof *tok);
    slot = malloc(n * sizeof *slot);
    out_off = malloc(n * sizeof *out_off);
    att_off = malloc(n * sizeof *att_off);
    step = logits ? malloc((size_t)n * c->tgt_vocab * sizeof *step) : NULL;
    if (!tok || !slot || !out_off || !att_off || (logits && !step)) {
        xerr(err, errlen, "out of memory");
        goto done;
    }
    for (size_t i = 0, o = 0, a = 0; i < (size_t)n; i++) {
        out_off[i] = o;
        att_off[i] = a;
        o += tgt_len[i];
        a += (size_t)tgt_len[i] * lens[i];
    }
    if (run_encoder(ctx, n, rows, lens, N, err, errlen) ||
        !(pos = positions(ctx, 0, cap, err, errlen)) ||
        decoder_begin(w, ctx->pool, &ctx->dec, pos, n, cap, n, n, lens, ctx->enc_out, err,
                      errlen) ||
        decoder_capture(w, &ctx->dec, attn ? alignment_layer(c, ap) : -1, err, errlen))
        goto done;
    for (int pos = 0; pos < cap; pos++) {
        int r = 0;
        for (int i = 0; i < n; i++)
            if (pos < tgt_len[i]) {
                tok[r] = tgt[i][pos];
                slot[r++] = i;
            }
        if (logits)
            decoder_step(w, ctx->pool, &ctx->dec, r, tok, slot, slot, pos, step);
        else
            decoder_hidden(w, ctx->pool, &ctx->dec, r, tok, slot, slot, pos);
        for (int k = 0; logits && k < r; k++)
            memcpy(logits + (out_off[slot[k]] + pos) * c->tgt_vocab, step + (size_t)k * c->tgt_vocab,
                   c->tgt_vocab * sizeof(float));
        for (int k = 0; attn && k < r; k++)
            memcpy(attn + att_off[slot[k]] + (size_t)pos * lens[slot[k]],
                   ctx->dec.attn + (size_t)k * ctx->dec.max_src, lens[slot[k]] * sizeof(float));
    }
    rc = 0;
done:
    free(block);
    free(rows);
    free(lens);
    free(tok);
    free(slot);
    free(out_off);
    free(att_off);
    free(step);
    return rc;
}

int xlate_forced_logits(xlate_ctx *ctx, int n, const int *const *src, const int *src_len,
                        const int *const *tgt, const int *tgt_len, float *logits, char *err,
                        size_t errlen)
{
    return forced_run(ctx, n, src, src_len, tgt, tgt_len, logits, NULL, NULL, err, errlen);
}

int xlate_forced_attention(xlate_ctx *ctx, int n, const int *const *src, const int *src_len,
                           const int *const *tgt, const int *tgt_len, const xlate_decode_params *p,
                           float *attn, char *err, size_t errlen)
{
    if (xlate_check_alignment_layer(ctx->m, p->alignment_layer, err, errlen))
        return -1;
    return forced_run(ctx, n, src, src_len, tgt, tgt_len, NULL, p, attn, err, errlen);
}
