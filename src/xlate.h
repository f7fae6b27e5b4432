/* xlate.h — the xlate library: load a translation model, translate batches of sentences.
 *
 *   xlate_model *m;  xlate_ctx *ctx;  char err[XLATE_ERRLEN];
 *   xlate_model_params mp = xlate_model_default_params();
 *   if (xlate_model_load(&m, "models/en-de", &mp, err, sizeof err)) { puts(err); ... }
 *   ctx = xlate_ctx_new(m, 0, err, sizeof err);          // 0 threads = every core
 *   xlate_decode_params dp = xlate_decode_default_params(); // greedy
 *   xlate_result res[2];
 *   xlate_translate(ctx, 2, src_ids, src_lens, &dp, res, err, sizeof err);
 *   ... res[i].hyps[0].ids ...
 *   xlate_results_free(res, 2);  xlate_ctx_free(ctx);  xlate_model_free(m);
 *
 * A model is immutable once loaded; a context holds the threads and the run state of one
 * translation at a time. Every fallible call returns 0 or non-zero with one line in err. */
#ifndef XLATE_H
#define XLATE_H
#include <stddef.h>

#define XLATE_VERSION "0.1.0"
#define XLATE_ERRLEN 512

typedef struct xlate_model xlate_model;
typedef struct xlate_ctx xlate_ctx;

typedef struct {
    int load_tokenizers; /* 1: load the SentencePiece models named by the config (default 1) */
    void (*warn)(void *user, const char *msg); /* warnings; NULL: dropped */
    void *warn_user;
} xlate_model_params;

xlate_model_params xlate_model_default_params(void);
int xlate_model_load(xlate_model **out, const char *dir, const xlate_model_params *p, char *err,
                     size_t errlen);
void xlate_model_free(xlate_model *m);

/* What the model is: for `xlate info` and for callers checking ids. */
typedef struct {
    int d_model, heads, ffn_dim, encoder_layers, decoder_layers;
    int src_vocab, tgt_vocab, max_positions;
    int pad_id, unk_id, bos_id, eos_id;
    size_t n_params;
    int has_tokenizer;
    const char *activation, *norm_placement, *positions;
    const char *weights;       /* the weights file, relative to the model directory */
    int shared_embeddings, tied_output;
    const char *family;        /* "xlate" or "marian" (Hugging Face MarianMT) */
    int n_langs;               /* target languages of a multilingual model (>>xx<< tokens) */
    const char *const *langs;  /* [n_langs] their codes, e.g. "fra" */
    /* the model's own generation settings (generation_config.json / config.json); 0, NULL
       when it has none */
    int gen_num_beams, gen_max_length; /* max_length as Hugging Face counts it (with the start) */
    float gen_length_penalty;
    const char *gen_early_stopping;    /* "true", "false", "never"; NULL: not a HF model */
    int gen_forced_eos, gen_bad_words;
} xlate_model_info;
xlate_model_info xlate_model_get_info(const xlate_model *m);

/* The source id of the language token ">>lang<<" of a multilingual model, or -1. */
int xlate_lang_id(const xlate_model *m, const char *lang);

/* Text <-> ids with the model's SentencePiece models. Arrays and strings are malloc'd. */
int xlate_tokenize(const xlate_model *m, const char *text, size_t len, int **ids, int *n,
                   char *err, size_t errlen);
int xlate_detokenize(const xlate_model *m, const int *ids, int n, char **text, char *err,
                     size_t errlen);

typedef struct {
    int beam_size;        /* 1: greedy (default) */
    int n_best;           /* hypotheses returned per sentence, <= beam_size (default 1) */
    float length_penalty; /* beam: rank by logprob / length^penalty (default 1.0) */
    int max_length;       /* generated tokens at most, eos counted; 0: the default bound,
                             min(3 * (source length + 1) + 10, max_positions), or for a
                             Hugging Face model min(its max_length - 1, max_positions) (its
                             max_length counts the decoder start token). A Hugging Face
                             model's last allowed token is eos (forced_eos_token_id) */
    int min_length;       /* eos is not chosen before N tokens (default 0): its logit counts
                             as -inf, the other tokens' log-probabilities are renormalized.
                             Raises the default bound to N + 1 where it is lower; with an
                             explicit max_length it must not exceed it (equal: exactly N
                             tokens, unfinished) */
    int scores;           /* 1: compute logprob and score (greedy skips the softmax otherwise) */
    int token_scores;     /* 1: also fill xlate_hypothesis.token_logprobs (implies scores) */
} xlate_decode_params;

xlate_decode_params xlate_decode_default_params(void);
/* The defaults of this model: xlate_decode_default_params() with the model's own num_beams and
 * length_penalty where its files give them (Hugging Face generation_config.json). */
xlate_decode_params xlate_model_decode_defaults(const xlate_model *m);
/* Checks the params against the model; one line naming the bad option. */
int xlate_decode_params_check(const xlate_model *m, const xlate_decode_params *p, char *err,
                              size_t errlen);

typedef struct {
    int *ids;              /* [n] target ids, without bos and eos */
    int n;
    int finished;          /* 1 when it ended with eos (0: stopped at max_length) */
    float logprob;         /* sum of the log-probabilities of the tokens, eos included
                              (0 unless scores or beam search) */
    float score;           /* the ranking score: logprob for greedy, logprob / len^penalty for
                              beam search, len counting eos */
    float *token_logprobs; /* [n + finished] when token_scores; else NULL */
} xlate_hypothesis;

typedef struct {
    xlate_hypothesis *hyps; /* [n_hyps], best first */
    int n_hyps;
} xlate_result;

void xlate_results_free(xlate_result *r, int n);

/* threads: 0 = every online core. */
xlate_ctx *xlate_ctx_new(const xlate_model *m, int threads, char *err, size_t errlen);
void xlate_ctx_free(xlate_ctx *ctx);
int xlate_ctx_threads(const xlate_ctx *ctx);
/* 1 (the default): every sentence's arithmetic is independent of the batch it is in and of the
 * thread count, so its translation is too. 0: each product runs as one sgemm over the whole
 * batch, about 1.4x faster with 32-64 sentences a batch; a translation may then differ, where
 * two candidates' scores tie to within rounding, with the batch and the thread count. */
void xlate_ctx_set_batch_invariant(xlate_ctx *ctx, int on);

/* Translates n sentences given as source ids WITHOUT eos (xlate appends it): src[i] has
 * src_len[i] ids, each in [0, src_vocab), src_len[i] <= max_positions - 1. Writes out[0..n).
 * A sentence's translation does not depend on the others in the batch. */
int xlate_translate(xlate_ctx *ctx, int n, const int *const *src, const int *src_len,
                    const xlate_decode_params *p, xlate_result *out, char *err, size_t errlen);

/* Lower level, for tests and tools: the encoder output [sum(src_len) + n, d] (eos appended to
 * each sentence) and the teacher-forced logits [sum(tgt_len), Vt] of decoder inputs tgt[i]
 * (starting with bos). */
int xlate_encode(xlate_ctx *ctx, int n, const int *const *src, const int *src_len, float *out,
                 char *err, size_t errlen);
int xlate_forced_logits(xlate_ctx *ctx, int n, const int *const *src, const int *src_len,
                        const int *const *tgt, const int *tgt_len, float *logits, char *err,
                        size_t errlen);

#endif
