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
 * Or a whole input, line by line, with the library's read-ahead window, length sort, batches
 * and input order (xlate_translate_lines below; examples/translate_file.c).
 *
 * A model is immutable once loaded; a context holds the threads and the run state of one
 * translation at a time. Every fallible call returns 0 or non-zero with one line in err, which
 * names the parameter at fault by its field name here (beam_size, max_input_length).
 *
 * Installed (make install): include/xlate.h, lib/libxlate.so.MAJOR and lib/libxlate.a, built
 * with `cc prog.c $(pkg-config --cflags --libs xlate)`. The shared library exports the
 * functions declared here and nothing else (the visibility pragma below; every other symbol
 * is hidden).
 *
 * Threads. Calls on one model:
 *   - xlate_model_load makes a model; xlate_model_free frees it, once, after every context
 *     and queue on it is freed. Between the two the model does not change as callers see it,
 *     and every call that takes a `const xlate_model *` (tokenize and detokenize, get_info,
 *     lang_id, the params checks, kernels_desc, output_desc, translation_text, ...) may run on
 *     any number of threads at once, beside translations on any number of contexts over it:
 *     the one thing a run adds to a model, the output projection's packed panels or int8
 *     screen (built when a run first needs them), is built under the model's own lock.
 *   - The weights files stay mapped while the model lives: do not truncate or rewrite them.
 * Calls on one context (xlate_translate, xlate_translate_ex, xlate_translate_lines,
 * xlate_encode, xlate_forced_*, xlate_ctx_set_batch_invariant, xlate_ctx_time_split): one at
 * a time (from any thread); contexts are independent of each other, so run one per thread to
 * translate in parallel. xlate_ctx_threads and xlate_ctx_model read what does not change.
 * A context starts its compute threads in xlate_ctx_new and joins them in xlate_ctx_free;
 * the callbacks (a source's next and ready, a sink's put and flush, progress, cancel) are
 * called on the thread that called xlate_translate_lines, and a model's warn on the thread
 * of xlate_model_load, never on a compute thread.
 * Process-wide: the first xlate_model_load or xlate_ctx_new sets OpenBLAS to one thread
 * (openblas_set_num_threads(1): xlate runs its own threads) and stops OpenBLAS's idle
 * workers; XLATE_FORCE_ISA is read once. The *_default_params calls, xlate_version,
 * xlate_compute_type_parse and xlate_lines_window are pure; xlate_env_check reads the
 * environment (not while another thread changes it).
 *
 * Ownership. The caller owns what it passes in (read during the call only, unless a call says
 * otherwise) and what comes back through an out pointer: a model (xlate_model_free), a context
 * (xlate_ctx_free), results (xlate_results_free frees the hypotheses, not the array), and the
 * malloc'd arrays and strings of xlate_tokenize*, xlate_detokenize* and
 * xlate_translation_text (free). A context keeps its model's pointer (the model must outlive
 * it). Strings a model returns (xlate_model_compute_type, xlate_model_info's strings and
 * langs) live as long as the model; xlate_kernels_desc, xlate_output_desc and
 * xlate_lang_suggest write into the caller's buf. What xlate_translate_lines hands a sink (an
 * xlate_translation and everything it points to) lives until put returns; what a source
 * gives (a line's text, ids, prefix) needs to live only until its next call of next. */
#ifndef XLATE_H
#define XLATE_H
#include <stddef.h>

/* The version of this header; xlate_version() is the library's (they differ when a program
 * runs with another libxlate.so of the same major version). MAJOR changes with the ABI: it is
 * the shared library's soname, libxlate.so.MAJOR. */
#define XLATE_VERSION_MAJOR 0
#define XLATE_VERSION_MINOR 3
#define XLATE_VERSION_PATCH 0
#define XLATE_VERSION "0.3.0"
#define XLATE_ERRLEN 512
/* The most bytes of logits the search holds for one sentence (beam_size x return_alternatives
 * rows over the target vocabulary, 4 bytes each): xlate_decode_params_check refuses more, and
 * xlate_translate runs a larger batch in slices within it. 1 GiB: NLLB-200's 256,206-token
 * vocabulary allows 1,047 rows (e.g. --return-alternatives 256 with --beam-size 4),
 * OPUS-MT's ~58,000 about 4,600. */
#define XLATE_MAX_SENTENCE_LOGITS (1LL << 30)

/* Every function declared from here to the end is the library's API: exported by
 * libxlate.so, which is built with -fvisibility=hidden (the Makefile), so that nothing else is. */
#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility push(default)
#endif

/* "MAJOR.MINOR.PATCH" of the library running (static storage). */
const char *xlate_version(void);

typedef struct xlate_model xlate_model;
typedef struct xlate_ctx xlate_ctx;

/* How the linear layers' weights are stored and multiplied (as CTranslate2's compute_type):
 * F32 (the default: the model as trained), INT8 (symmetric int8 with a scale per output row,
 * activations quantized per row at run time, integer dot products), BF16 and F16 (16-bit
 * weights, f32 arithmetic), AUTO (the fastest of them whose quality loss was measured within
 * bounds: int8 where the CPU has AVX2 or better, else f32; xlate_model_compute_type says which). */
typedef enum { XLATE_F32, XLATE_INT8, XLATE_BF16, XLATE_F16, XLATE_AUTO } xlate_compute_type;

typedef struct {
    int load_tokenizers; /* 1: load the SentencePiece models named by the config (default 1) */
    xlate_compute_type compute_type; /* default XLATE_F32 */
    void (*warn)(void *user, const char *msg); /* warnings; NULL: dropped */
    void *warn_user;
} xlate_model_params;

/* The environment variables xlate reads, checked (the library reads them where it needs them
 * and takes a value they do not take as unset; a program calls this once at start to say so):
 *   XLATE_FORCE_ISA  generic, avx2, avx512, avx512vnni or avx512bf16 (any case)
 *   XLATE_SCREEN     0 (greedy computes every logit) or 1 (the int8 screen, the default)
 *   XLATE_SPIN_US    0 to 1000000 (decimal digits)
 *   XLATE_MODEL      the model directory (the command line's default; any path)
 * Unset or empty: the default. Returns -1 at the first value a variable does not take, with
 * one line naming the variable, the value (quoted, escaped, cut) and the values it takes in
 * err; else 0. Each other variable named XLATE_* goes to warn (a misspelt name), when given. */
int xlate_env_check(void (*warn)(void *user, const char *msg), void *warn_user, char *err,
                    size_t errlen);

xlate_model_params xlate_model_default_params(void);
/* p NULL: the default params. */
int xlate_model_load(xlate_model **out, const char *dir, const xlate_model_params *p, char *err,
                     size_t errlen);
void xlate_model_free(xlate_model *m);
/* "f32", "int8", "bf16" or "f16": the type the loaded model computes in (AUTO resolved). */
const char *xlate_model_compute_type(const xlate_model *m);
/* The kernels in use, for -v: e.g. "own avx512vnni kernels, int8 weights; OpenBLAS Haswell
 * (attention)". Writes at most n bytes into buf and returns buf. */
const char *xlate_kernels_desc(const xlate_model *m, char *buf, size_t n);
/* What of the output projection the runs so far have built, for -v: e.g. "output projection
 * not packed (greedy rescores from the file's rows); int8 screen 250.6 MB". Runs build it when
 * they first need it: greedy through the screen the screen alone, the others the packed
 * projection. Writes at most n bytes into buf and returns buf. */
const char *xlate_output_desc(const xlate_model *m, char *buf, size_t n);
/* Parses "f32", "int8", "bf16", "f16", "auto" (case-insensitive); -1 when none. */
int xlate_compute_type_parse(const char *s);

/* What the model is: for `xlate info` and for callers checking ids. */
typedef struct {
    int d_model, heads, ffn_dim, encoder_layers, decoder_layers; /* heads, ffn_dim: encoder's */
    int decoder_heads, decoder_ffn_dim;
    int src_vocab, tgt_vocab, max_positions;
    int pad_id, unk_id, bos_id, eos_id;
    size_t n_params;
    int has_tokenizer;
    const char *activation, *norm_placement, *positions;
    const char *weights;       /* the weights file, relative to the model directory */
    int shared_embeddings, tied_output;
    const char *family;        /* "xlate", "marian" (Hugging Face MarianMT) or "m2m100"
                                  (M2M100, NLLB-200) */
    int n_langs;               /* target languages of a multilingual model (>>xx<< tokens; an
                                  M2M100 / NLLB model's language codes) */
    const char *const *langs;  /* [n_langs] their codes, e.g. "fra", "eng_Latn", "en" */
    int lang_forced;           /* 1 (M2M100, NLLB): the target language's token is forced as
                                  the first generated token (decode forced_bos_id) and the
                                  source language's token marks the source: in front of it
                                  (xlate_lines_params.target_lang_id), or after its eos when
                                  lang_after_eos (decode source_suffix_id); 0 (MarianMT): the
                                  target language's >>xx<< token goes in front of the source */
    int lang_after_eos;        /* NLLB legacy_behaviour */
    /* the model's own generation settings (generation_config.json / config.json); 0, NULL
       when it has none */
    int gen_num_beams, gen_max_length; /* max_length as Hugging Face counts it (with the start) */
    float gen_length_penalty;
    const char *gen_early_stopping;    /* "true", "false", "never"; NULL: not a HF model */
    int gen_forced_eos, gen_bad_words;
    float gen_repetition_penalty;      /* 1 when not given (0 for xlate's own models) */
    int gen_no_repeat_ngram_size;
    int gen_forced_bos;                /* forced_bos_token_id, -1: none */
    int gen_suppress_tokens, gen_begin_suppress_tokens; /* how many */
    int gen_do_sample, gen_top_k;      /* top_k: 50 when not given */
    float gen_top_p, gen_temperature;
    /* the languages the model's files name (xlate's config.json "source_lang"/"target_lang",
       a MarianMT directory's tokenizer_config.json), e.g. "en"; NULL when they name none */
    const char *source_lang, *target_lang;
} xlate_model_info;
xlate_model_info xlate_model_get_info(const xlate_model *m);

/* The source id of the language token ">>lang<<" of a multilingual model (an M2M100 / NLLB
 * model's token for the code "lang"), or -1. */
int xlate_lang_id(const xlate_model *m, const char *lang);
/* Up to 5 of the model's language codes close to `lang`, ", "-joined into buf (for a message
 * about an unknown code); the first codes when none is close; "" without languages. */
void xlate_lang_suggest(const xlate_model *m, const char *lang, char *buf, size_t n);

/* Text <-> ids with the model's SentencePiece models. Arrays and strings are malloc'd. */
int xlate_tokenize(const xlate_model *m, const char *text, size_t len, int **ids, int *n,
                   char *err, size_t errlen);
/* The ids of xlate_tokenize and *spans [2 * *n]: id i covers the bytes [(*spans)[2i],
 * (*spans)[2i+1]) of the original text, as sentencepiece's SentencePieceText begin/end define
 * them (through the normalizer: a piece's span runs from its first character's source to the
 * next piece's; a word's U+2581 covers the whitespace before it, the dummy prefix at the text's
 * start nothing; the byte pieces of one character: all but the last empty, the last the
 * character), so each begins where the one before ends. A Marian ">>xx<<" token: its own
 * bytes (a code removed elsewhere: inside the piece around it, or in the gap between two); a
 * piece unknown to vocab.json (<unk>) keeps its span. Both arrays NULL when *n == 0; len at
 * most INT_MAX - 64. */
int xlate_tokenize_spans(const xlate_model *m, const char *text, size_t len, int **ids,
                         int **spans, int *n, char *err, size_t errlen);
/* Text to TARGET ids (the target side's tokenizer: a MarianMT model's target.spm and target
 * vocabulary, xlate's own target_tokenizer or tokenizer), without eos: what a translation holding
 * the text would generate (--suppress, target prefixes). */
int xlate_tokenize_target(const xlate_model *m, const char *text, size_t len, int **ids, int *n,
                          char *err, size_t errlen);
int xlate_detokenize(const xlate_model *m, const int *ids, int n, char **text, char *err,
                     size_t errlen);
/* The text of xlate_detokenize and *spans [2 * n] (NULL when n == 0): id i wrote the bytes
 * [(*spans)[2i], (*spans)[2i+1]) of *text, as sentencepiece's decode_ids_as_immutable_proto
 * begin/end: a token that writes nothing (a control token, the first byte pieces of a
 * character) gets an empty range where it stands. For a Hugging Face MarianMT model, whose
 * decode strips and cleans up the whole text: what the text gains with each token, its leading
 * spaces left out. */
int xlate_detokenize_spans(const xlate_model *m, const int *ids, int n, char **text,
                           int **spans, char *err, size_t errlen);

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
    int alignments;       /* 1: also fill xlate_hypothesis.attention and .alignment (default 0);
                             the ids are the same either way */
    int alignment_layer;  /* the decoder layer (from 0) whose cross-attention, averaged over
                             its heads, gives them; default -1: the penultimate layer (the only
                             one of a 1-layer decoder), after Garg et al. 2019 (DEVELOPERS.md,
                             "Decisions worth knowing") */
    int forced_bos_id;    /* the first generated token is this id (transformers'
                             forced_bos_token_id: an M2M100 / NLLB model's target language,
                             xlate_lang_id); -1 (default): the model's own, if its files name
                             one, else none */
    int source_suffix_id; /* a token after the eos of every source (NLLB legacy_behaviour: the
                             source language's); -1 (default): none */
    /* The logits processors of transformers' generate() and CTranslate2 (src/decode/logits.c
       says which rule each follows). A Hugging Face model's generation_config.json gives the
       defaults of the first two and of sampling (xlate_model_decode_defaults); its
       bad_words_ids, suppress_tokens, begin_suppress_tokens and forced_bos_token_id always
       apply. */
    float repetition_penalty; /* > 0, at most 1000; 1 (default): off. The logit of a token
                                 already generated (or of the decoder start token) is divided by
                                 it when positive, multiplied when negative (once per token) */
    int no_repeat_ngram_size; /* 0 (default): off; N: no N-gram occurs twice in the start token
                                 and the generated tokens */
    int disable_unk;          /* 1: the unknown token is never generated */
    int n_suppress;           /* target id sequences never generated (CTranslate2's
                                 suppress_sequences): the last id of one is banned where the
                                 tokens generated end with its others (a single id: always) */
    const int *suppress_off;  /* [n_suppress + 1] sequence k is suppress_ids[off[k]..off[k+1]),
                                 off[0] = 0, each at least one id (the caller's arrays) */
    const int *suppress_ids;
    int sampling;             /* 1: each token is drawn from the processed distribution
                                 (transformers' do_sample) instead of the argmax; beam_size 1 */
    int sampling_topk;        /* sampling: among the K most probable tokens (ties with the K-th
                                 kept); 0 (default): all */
    float sampling_topp;      /* sampling: among the most probable tokens until they hold P
                                 (transformers' top_p), (0, 1]; 1 (default): all */
    float sampling_temperature; /* sampling: logits divided by T first, (0, 1000]; default 1 */
    unsigned long long seed;  /* sampling: a sentence draws from its own random stream, made of
                                 the seed and its stream number (xlate_translate_ex) */
    int return_alternatives;  /* N > 1 (CTranslate2's return_alternatives): at the first
                                 position after the target prefix (or the first position), the N
                                 most probable tokens but eos are taken, each continued with
                                 the search (greedily, or with a beam of beam_size of its own): N
                                 hypotheses in that order (fewer where fewer tokens are allowed),
                                 each its beam's best (scored as beam search scores; greedy: the
                                 log-probability); n_best 1. 0 (default): off */
    long long workspace_bytes; /* a bound on a batch's decoding working memory, in bytes (Marian's
                                  --workspace): the encoder's scratch and output, the decoder's
                                  self-attention caches (per hypothesis and position: decoder
                                  layers x 2 x d_model x 4 bytes), the cross-attention keys and
                                  values, the search's logits (a row of the vocabulary per
                                  hypothesis) and hypotheses, all planned for the batch's worst
                                  case (every hypothesis to max_length). A batch that would pass
                                  it is decoded in slices that keep within it, and buffers kept
                                  from earlier batches count too (released when they would pass
                                  it); the translations are the same bytes at any bound. A
                                  sentence that alone needs more: XLATE_ERR_WORKSPACE, err
                                  naming the bytes it needs. 0 (default): no bound */
} xlate_decode_params;

xlate_decode_params xlate_decode_default_params(void);
/* The defaults of this model: xlate_decode_default_params() with the model's own num_beams and
 * length_penalty where its files give them (Hugging Face generation_config.json). */
xlate_decode_params xlate_model_decode_defaults(const xlate_model *m);
/* Checks the params against the model; one line naming the bad option. */
int xlate_decode_params_check(const xlate_model *m, const xlate_decode_params *p, char *err,
                              size_t errlen);
/* 1 when translating with params p takes greedy search's argmax through the model's int8
 * screen of the output projection (for -v: what really runs); else 0, and *why (why may be
 * NULL) says what needs every logit (beam search, scores, a processor that changes values). */
int xlate_decode_screened(const xlate_model *m, const xlate_decode_params *p, const char **why);

typedef struct {
    int *ids;              /* [n] target ids, without bos and eos */
    int n;
    int finished;          /* 1 when it ended with eos (0: stopped at max_length) */
    float logprob;         /* sum of the log-probabilities of the tokens, eos included
                              (0 unless scores or beam search) */
    float score;           /* the ranking score: logprob for greedy, logprob / len^penalty for
                              beam search, len counting eos */
    float *token_logprobs; /* [n + finished] when token_scores; else NULL */
    /* alignments: [(n + finished) * src_len1]: row t = the cross-attention probabilities of
       target token t (eos included when finished) over the source positions 0..src_len (the
       appended eos is position src_len), averaged over the heads of the alignment layer; taken
       at the step that chose token t (its decoder input is the token before it). Rows sum to
       1 up to float rounding. NULL unless alignments */
    float *attention;
    int src_len1;          /* alignments: the row length, src_len + 1; else 0 */
    int *alignment;        /* [n]: for each target token (eos excluded), the source position
                              (0..src_len-1, eos excluded) with the highest attention, the
                              lowest on ties; -1 for an empty source. NULL unless alignments */
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
const xlate_model *xlate_ctx_model(const xlate_ctx *ctx);
/* 1 (the default): every sentence's arithmetic is independent of the batch it is in and of the
 * thread count, so its translation is too. 0: where OpenBLAS does the products (f32 on a CPU
 * without AVX2), each runs as one sgemm over the whole batch, about 1.4x faster with 32-64
 * sentences a batch; a translation may then differ, where two candidates' scores tie to within
 * rounding, with the batch and the thread count. xlate's own kernels (every other case) are
 * batch-invariant at full speed, and this setting changes nothing for them. */
void xlate_ctx_set_batch_invariant(xlate_ctx *ctx, int on);

/* Where a context's translation time went, in seconds of wall time since it was made (its
 * threads work in step, so these add up to about the translate time): the encoder, the decoder
 * up to the output projection, and the output projection (the logits, or the int8 screen's
 * estimates and bounds). The rest of the translate time is the search and the batching. */
typedef struct {
    double encoder_s, decoder_s, projection_s;
    /* of decoder_s, the attention (self and cross: the cache's writes, the scores, softmax and
     * values, the heads' average): the rest of decoder_s is the layers' products and norms */
    double attention_s;
    /* the output projection's panels or int8 screen built at their first use (model
     * preparation deferred from the load, xlate_output_desc: part of the load, not of the
     * translation, as the command line's -v reports it; counted in no other field) */
    double build_s;
    /* decoder steps (one per call over a batch's live rows) and the rows they computed (beam
     * search: a live hypothesis is a row), for bench/beam_bench.py's steps per sentence */
    long long decoder_steps, decoder_rows;
} xlate_time_split;
xlate_time_split xlate_ctx_time_split(const xlate_ctx *ctx);

/* The decoding working memory a context's runs were planned for (xlate_decode_params
 * workspace_bytes says what it counts), since it was made. */
typedef struct {
    long long planned_max;   /* bytes, the largest a decoder run (a batch or a slice of one) was
                                planned for */
    int max_n, max_hyps, max_cap; /* that run: sentences, hypotheses a sentence, positions */
    long long runs;          /* decoder runs */
    long long sliced;        /* batches that workspace_bytes cut into slices */
    long long released;      /* times the buffers kept from earlier runs were released first */
} xlate_workspace_stats;
xlate_workspace_stats xlate_ctx_workspace(const xlate_ctx *ctx);

/* Translates n sentences given as source ids WITHOUT eos (xlate appends it): src[i] has
 * src_len[i] ids, each in [0, src_vocab), src_len[i] <= max_positions - 1. Writes out[0..n).
 * A sentence's translation does not depend on the others in the batch (sampling: sentence i
 * draws from stream i; xlate_translate_ex names each sentence's stream). */
int xlate_translate(xlate_ctx *ctx, int n, const int *const *src, const int *src_len,
                    const xlate_decode_params *p, xlate_result *out, char *err, size_t errlen);

/* What one sentence of a batch has of its own. */
typedef struct {
    unsigned long long stream; /* sampling: its random stream (with the params' seed) */
    const int *prefix;         /* target ids forced as the start of its translation (each with
                                  log-probability 0; scores count the tokens after them); NULL:
                                  none. The hypotheses' ids include them. With the default
                                  max_length the bound grows to prefix_len + 1 where it is
                                  lower; an explicit max_length must exceed prefix_len */
    int prefix_len;
} xlate_sentence_opts;

/* xlate_translate with each sentence's own options, opts[n] (NULL: stream i). */
int xlate_translate_ex(xlate_ctx *ctx, int n, const int *const *src, const int *src_len,
                       const xlate_sentence_opts *opts, const xlate_decode_params *p,
                       xlate_result *out, char *err, size_t errlen);

/* ---- Lines in, translations out, in input order ----
 *
 * The library reads lines from a source into a window (a read-ahead), tokenizes them, sorts
 * the window's sentences by length, cuts them into batches (batch_size sentences, at most
 * batch_tokens source tokens), translates them, and hands every line's translation to the
 * sink in input order, window by window. It never waits for input while it holds lines it
 * could answer: when the source says no line is ready, the window ends there, so output starts
 * before the input ends and a caller can talk to it line by line (a co-process). Since a
 * translation does not depend on its batch, where windows end changes no output. */

typedef struct {
    const char *text;  /* a line of text, without its newline, tokenized by the library; or */
    size_t len;
    const int *ids;    /* when text is NULL: its source ids, without eos (copied) */
    int n_ids;
    long tag;          /* the caller's own (a line number, say), handed back with the line */
    /* A target prefix forced as the start of the translation of the line's first sentence
       (xlate_sentence_opts.prefix): text, tokenized by xlate_tokenize_target, or, when
       prefix is NULL, ids (copied); none when both are empty. */
    const char *prefix;
    size_t prefix_len;
    const int *prefix_ids;
    int n_prefix_ids;
} xlate_line;

typedef struct {
    /* Fills *line with the next line (its text or ids need stay valid only until the next
     * call). Returns 1, 0 at the end of the input, or -1 with a message in err: the lines read
     * before it are translated and delivered, then xlate_translate_lines returns
     * XLATE_ERR_SOURCE with that message. */
    int (*next)(void *user, xlate_line *line, char *err, size_t errlen);
    /* 1 when next would return without waiting; 0 ends the window there. NULL: always 1. */
    int (*ready)(void *user);
    void *user;
} xlate_source;

/* One sentence of a line: a segment translated on its own. */
typedef struct {
    size_t start, end;       /* its bytes [start, end) in the line's text (trimmed of
                                whitespace); 0 and the line's length when the line is not split
                                (a line of ids: 0, 0) */
    const char *space;       /* the source's bytes between the previous sentence and this one
                                (whitespace; empty for the first) */
    size_t space_len;
    int src_tokens;          /* source tokens translated */
    int src_tokens_read;     /* source tokens it had (more when max_input_length cut it) */
    const xlate_result *res; /* its hypotheses, best first; none (n_hyps 0) when it has no
                                tokens, and is not translated */
    int prefix_len;          /* target tokens forced as the start of its translation (they are
                                in the hypotheses' ids) */
    const int *src_spans;    /* [2 * src_tokens]: each source token's bytes [start, end) in the
                                line (xlate_tokenize_spans; a >>xx<< token put in front: empty,
                                at the sentence's start), the positions the hypotheses'
                                alignment and attention index; NULL unless decode.alignments
                                and the line is text */
} xlate_segment;

typedef struct {
    long index;              /* the line's place in the input, from 0 */
    long tag;                /* its xlate_line.tag */
    int src_tokens;          /* source tokens translated (all its sentences) */
    int src_tokens_read;     /* source tokens the line had (more when max_input_length cut it) */
    const xlate_result *res; /* the line's hypotheses, best first; none (n_hyps 0) for a line
                                without tokens (blank), which is not translated. A line of
                                several sentences: hypothesis h joins one hypothesis of each
                                sentence (hyp_of), the n_best combinations of highest summed
                                score; its ids, token_logprobs, logprob and score are the
                                sentences' concatenated and summed, finished when all are.
                                Freed after put, as everything here. */
    int n_segments;          /* its sentences: 1 when not split, 0 for a blank split line */
    const xlate_segment *segments; /* [n_segments], in order */
    const int *hyp_of;       /* [res->n_hyps][n_segments]: the sentence hypothesis that line
                                hypothesis h takes of each segment (-1 where the segment has
                                none); NULL: hypothesis h of the single segment */
    int join_no_space;       /* 1: the target language writes no spaces between sentences */
    const char *text;        /* the line as read (NUL-terminated; it may hold NUL bytes too),
                                NULL for a line of ids */
    size_t len;
} xlate_translation;

/* The text of hypothesis h (0: the best) of a translated line, malloc'd: its sentences'
 * translations (xlate_detokenize) joined by the whitespace that separated them in the source,
 * or by one space where the source had none (Chinese, Japanese), or by nothing where the
 * target language writes no spaces; a sentence with no text leaves no separator. A line of one
 * sentence: exactly xlate_detokenize of its ids. So a paragraph's translation is byte for
 * byte its sentences translated one per line and joined. */
int xlate_translation_text(const xlate_model *m, const xlate_translation *t, int h, char **text,
                           char *err, size_t errlen);

typedef struct {
    /* Receives each line's translation, in input order. Returns 0, or non-zero with a message
     * in err (xlate_translate_lines stops and returns XLATE_ERR_SINK). */
    int (*put)(void *user, const xlate_translation *t, char *err, size_t errlen);
    /* Called after each window's lines (where a caller flushes its output); non-zero stops
     * (XLATE_CANCELLED). NULL: none. */
    int (*flush)(void *user);
    void *user;
} xlate_sink;

typedef struct {
    long lines_done;       /* lines delivered to the sink before this window */
    int window_lines;      /* lines in the window being translated */
    int window_sentences;  /* their sentences with tokens */
    int window_translated; /* of them, translated so far */
} xlate_progress;

typedef struct {
    xlate_decode_params decode;
    int batch_size;        /* sentences per batch, 1 to 4096 (default 32; 1: every line is
                              answered on its own, window 1) */
    int batch_tokens;      /* also cap a batch's source tokens, eos counted (default 0: none) */
    int window;            /* lines read ahead and sorted by length, 1 to 100000 (default 0:
                              16 batches); a window also ends once it holds this many
                              sentences, or 4 MiB of text */
    int max_input_length;  /* source tokens kept of a longer line, 1 to max_positions - 1
                              (default 0: max_positions - 1) */
    int target_lang_id;    /* a token put in front of every non-empty source: a multilingual
                              model's >>xx<< (xlate_lang_id); default -1: none */
    int split;             /* XLATE_SPLIT_SENTENCES (default): each text line is split into
                              sentences (src/text/split.h) and each translated as a segment of
                              its own, all lines' sentences sorted and batched together;
                              XLATE_SPLIT_NONE: a line is one segment. Lines of ids are never
                              split. */
    const char *source_lang; /* the splitter's rules ("en", "de"); NULL: the model's
                              (xlate_model_info.source_lang), else language-neutral rules */
    const char *target_lang; /* the join of a line's sentences (no spaces for "zh", "ja");
                              NULL: the model's target_lang */
    /* After each batch; NULL: none. */
    void (*progress)(void *user, const xlate_progress *p);
    void *progress_user;
    /* Asked before each batch; non-zero stops: the window is not delivered and
     * xlate_translate_lines returns XLATE_CANCELLED. NULL: never. */
    int (*cancel)(void *user);
    void *cancel_user;
} xlate_lines_params;

typedef struct {
    long lines, empty;           /* lines read, of which without tokens */
    long truncated;              /* sentences cut to max_input_length */
    long sentences, batches, windows; /* sentences translated (segments with tokens) */
    long long src_tokens, tgt_tokens; /* translated source tokens; target tokens of the best
                                         hypotheses, eos not counted */
    double translate_seconds;
    double split_seconds;        /* splitting lines into sentences (apart from translating) */
    long error_tag;              /* XLATE_ERR_LINE: the tag of the line at fault */
} xlate_lines_stats;

enum {
    XLATE_ERR = -1,        /* out of memory, a failed translation (err says) */
    XLATE_ERR_SOURCE = -2, /* source.next failed (err: its message) */
    XLATE_ERR_LINE = -3,   /* a line could not be tokenized (stats.error_tag names it) */
    XLATE_ERR_SINK = -4,   /* sink.put failed (err: its message) */
    XLATE_CANCELLED = -5,  /* cancel or sink.flush said stop */
    XLATE_ERR_DOC = -7,    /* a document that cannot be read as its format (a damaged zip, bad
                              XML, invalid UTF-8, a PO syntax error): err names the file and
                              the member or line */
    XLATE_ERR_WORKSPACE = -6 /* a sentence alone needs more than decode.workspace_bytes (err
                                names the bytes); xlate_translate and _ex return it too */
};

enum { XLATE_SPLIT_SENTENCES = 0, XLATE_SPLIT_NONE = 1 };

xlate_lines_params xlate_lines_default_params(void);
/* Checks the params (the decode params included) against the model; one line naming the
 * field. */
int xlate_lines_params_check(const xlate_model *m, const xlate_lines_params *p, char *err,
                             size_t errlen);
/* The window the params give: lines read ahead. */
int xlate_lines_window(const xlate_lines_params *p);
/* Translates every line of the source into the sink. Returns 0 or an XLATE_ERR* code; stats
 * (may be NULL) counts what was done either way. */
int xlate_translate_lines(xlate_ctx *ctx, const xlate_lines_params *p, const xlate_source *in,
                          const xlate_sink *out, xlate_lines_stats *stats, char *err,
                          size_t errlen);

/* ---- A request queue that many threads share (continuous batching) ----
 *
 *   xlate_queue *q;  xlate_answer *a;
 *   xlate_queue_params qp = xlate_queue_default_params();
 *   if (xlate_queue_new(&q, model, &qp, err, sizeof err)) ...
 *   xlate_request r = xlate_request_default(model);   // any thread, any number at once:
 *   r.n = 1; r.texts = &text; r.lens = &len;
 *   if (xlate_queue_translate(q, &r, &a, err, sizeof err) == 0) ... a->texts[0] ...
 *   xlate_answer_free(a);  ...  xlate_queue_free(q);   // finishes what was submitted
 *
 * A request is texts in one format with the params of xlate_translate_lines. It is run as
 * that function (or, for HTML and Markdown, as `xlate --format`) runs it, on a context of its
 * own that does not compute: each batch it would translate is handed to the queue's one model
 * thread, which merges the waiting batches of every request into batches of batch_size
 * sentences on the queue's real context. A sentence's translation does not depend on its batch
 * (xlate_ctx_set_batch_invariant, on), so a request's answer is byte for byte what
 * xlate_translate_lines (the command line) gives for its texts alone, whatever else runs.
 *
 * Order: requests start in the order submitted, up to max_requests at once (later ones wait,
 * first in first out). Among the requests running, a batch is filled round-robin: one sentence
 * from each waiting request in the order their batches arrived, then a second from each, until
 * batch_size; a request hands over at most batch_size sentences at a time (its pipeline's
 * batch). So a request of a few sentences that arrives while a huge one runs rides in the next
 * batch, beside it, instead of behind all its sentences: its wait is about one batch's time.
 * Requests whose decode params differ (beam size, n-best, alignments for markup) cannot share
 * a batch: the oldest waiting batch's params pick each batch's requests.
 *
 * Threads: xlate_queue_submit, xlate_queue_translate and xlate_answer_free may be called from
 * any thread, at once; xlate_queue_new and xlate_queue_free once each, from one. The model
 * must outlive the queue. The queue runs max_requests request threads (splitting, tokenizing,
 * joining: light) and one model thread over a context of `threads` compute threads. */
typedef struct xlate_queue xlate_queue;

/* The formats a request's texts are in (docs/DOCUMENTS.md has each one's rules). TEXT, HTML,
 * MARKDOWN, SRT, VTT and PO are UTF-8 texts; DOCX to EPUB are zip packages, binary (an answer's
 * lens give their sizes). */
enum {
    XLATE_FORMAT_TEXT = 0,
    XLATE_FORMAT_HTML = 1,
    XLATE_FORMAT_MARKDOWN = 2,
    XLATE_FORMAT_SRT = 3,  /* SubRip subtitles */
    XLATE_FORMAT_VTT = 4,  /* WebVTT subtitles */
    XLATE_FORMAT_PO = 5,   /* a gettext PO or POT catalog */
    XLATE_FORMAT_DOCX = 6, /* Office Open XML: Word */
    XLATE_FORMAT_PPTX = 7, /* Office Open XML: PowerPoint */
    XLATE_FORMAT_ODT = 8,  /* OpenDocument text */
    XLATE_FORMAT_ODP = 9,  /* OpenDocument presentation */
    XLATE_FORMAT_EPUB = 10 /* EPUB 2 or 3 */
};
/* The XLATE_FORMAT_* a --format name says ("docx", "markdown"), or -1. */
int xlate_format_named(const char *name);
/* The XLATE_FORMAT_* a file name's extension says (".docx", case-insensitive), else, for a zip
 * package, what its content says (data may be NULL); -1 when neither does. */
int xlate_format_detect(const char *filename, const char *data, size_t len);
/* The format's name, or NULL for an unknown id. */
const char *xlate_format_name(int format);

typedef struct {
    int threads;      /* the context's compute threads; 0: every online core */
    int batch_size;   /* sentences a batch, across requests, 1 to 4096 (default 32) */
    int max_requests; /* requests run at once (one thread each), 1 to 1024 (default 64) */
} xlate_queue_params;

typedef struct {
    int n;                      /* texts */
    const char *const *texts;   /* [n] each texts[i][0..lens[i]) (copied by submit: the caller's
                                   may go once it returns) */
    const size_t *lens;         /* [n] */
    int format;                 /* XLATE_FORMAT_TEXT: each text's lines ("\n"; a "\r" before it
                                   dropped) translated as the command line translates lines
                                   (xlate_translate_lines, alignments on: URLs and e-mail
                                   addresses kept untranslated in place) and joined by "\n";
                                   HTML, MARKDOWN: each text a document, written back with its
                                   markup as `xlate --format` does (n_best 1) */
    xlate_lines_params params;  /* as xlate_translate_lines takes them; decode.n_best > 1 gives
                                   alternatives. Not read: progress, cancel (below) */
    /* Asked before each batch of the request: non-zero stops it (a client gone): its answer
     * comes back with status XLATE_CANCELLED. Called on a queue thread; NULL: never. */
    int (*cancel)(void *user);
    void *cancel_user;
} xlate_request;

typedef struct {
    int status;          /* 0, or an XLATE_ERR* code, XLATE_CANCELLED */
    char err[XLATE_ERRLEN]; /* status != 0: one line saying why */
    int n;               /* the request's texts */
    int n_hyps;          /* hypotheses a text: 1, or decode.n_best (return_alternatives) */
    char **texts;        /* [n * n_hyps]: text i's hypothesis h at i * n_hyps + h, each
                            malloc'd and NUL-terminated; hypothesis h joins each line's
                            hypothesis h (its last where it has fewer). NULL unless status 0 */
    long sentences;      /* sentences translated */
    size_t *lens;        /* [n * n_hyps] each text's length in bytes (a package's bytes may
                            hold NULs; a text's never do) */
} xlate_answer;

xlate_queue_params xlate_queue_default_params(void);
/* The request defaults for model m: the model's decode defaults (xlate_model_decode_defaults,
 * scores on for beam search, as the command line has them), one text in TEXT format. */
xlate_request xlate_request_default(const xlate_model *m);
/* Starts the queue's threads over model m (p NULL: defaults). Returns 0, or -1 with err. */
int xlate_queue_new(xlate_queue **out, const xlate_model *m, const xlate_queue_params *p,
                    char *err, size_t errlen);
/* Queues a request: returns 0, and done(user, answer) is then called exactly once, on a queue
 * thread, with an answer the callee owns (xlate_answer_free); or -1 with err (bad params, out
 * of memory, the queue stopping), and done is never called. */
int xlate_queue_submit(xlate_queue *q, const xlate_request *r,
                       void (*done)(void *user, xlate_answer *a), void *user, char *err,
                       size_t errlen);
/* xlate_queue_submit, waiting for the answer: 0 with *out (the caller's), or -1 with err. */
int xlate_queue_translate(xlate_queue *q, const xlate_request *r, xlate_answer **out,
                          char *err, size_t errlen);
void xlate_answer_free(xlate_answer *a);
/* Requests submitted and not yet answered. */
int xlate_queue_pending(xlate_queue *q);
/* What the model thread has run so far: batches, the sentences in them, the largest batch,
 * and how many batches held sentences of more than one request. */
typedef struct {
    long long batches, sentences, shared_batches;
    int largest;
} xlate_queue_stats;
xlate_queue_stats xlate_queue_get_stats(xlate_queue *q);
/* Refuses new requests, finishes every one submitted (their done called), stops the threads
 * and frees the queue. NULL: nothing. */
void xlate_queue_free(xlate_queue *q);

/* Lower level, for tests and tools: the encoder output [sum(src_len) + n, d] (eos appended to
 * each sentence) and the teacher-forced logits [sum(tgt_len), Vt] of decoder inputs tgt[i]
 * (starting with bos). */
int xlate_encode(xlate_ctx *ctx, int n, const int *const *src, const int *src_len, float *out,
                 char *err, size_t errlen);
int xlate_forced_logits(xlate_ctx *ctx, int n, const int *const *src, const int *src_len,
                        const int *const *tgt, const int *tgt_len, float *logits, char *err,
                        size_t errlen);
/* The alignments of given translations: the decoder teacher-forced on tgt[i] (starting with
 * bos, as xlate_forced_logits) writes, for each decoder input position t of sentence i, the
 * cross-attention row of p->alignment_layer (-1: the default) averaged over its heads, as
 * xlate_hypothesis.attention's rows are (input t = the step that chose target token t): attn
 * holds sentence after sentence, sentence i as [tgt_len[i]][src_len[i] + 1]. Only
 * p->alignment_layer is read. */
int xlate_forced_attention(xlate_ctx *ctx, int n, const int *const *src, const int *src_len,
                           const int *const *tgt, const int *tgt_len, const xlate_decode_params *p,
                           float *attn, char *err, size_t errlen);

/* Which language a text is written in (issue 48, docs/LANGID.md): a character n-gram model
 * trained on Debian's translations, xlate_detect_n_languages() languages, no model file (the
 * tables are in the library). text: UTF-8, len bytes (invalid bytes read as spaces). langs: the
 * languages to choose among, n_langs of them, written as short codes ("de", "pt_BR", "zh-TW" or
 * LibreTranslate's "zt", "pb") or NLLB codes ("deu_Latn"); those the detector does not know are
 * skipped; NULL: every language it knows. out: the best max_out guesses (at least 1), best
 * first, confidences in (0, 1] summing to at most 1 over the allowed languages. Returns how
 * many were written; 0 when the text is undetectable (empty, digits or symbols only, fewer than
 * XLATE_DETECT_MIN_LETTERS letters, a CJK letter counting 3): no guess rather than a guess
 * reported as sure; -1 with err set when no language given is known or out is missing. A
 * confidence below XLATE_DETECT_SURE is a guess (its rate of being right on the held-out set:
 * docs/LANGID.md). No allocation; thread-safe. */
#define XLATE_DETECT_MIN_LETTERS 6
#define XLATE_DETECT_SURE 0.5f
typedef struct {
    char lang[8];     /* the detector's short code: ISO 639-1, "zt" for Traditional Chinese */
    float confidence; /* 0..1 */
} xlate_lang_guess;
int xlate_detect_language(const char *text, size_t len, const char *const *langs, int n_langs,
                          xlate_lang_guess *out, int max_out, char *err, size_t errlen);
/* The languages the detector knows: their count, and the code of the i-th (NULL outside). */
int xlate_detect_n_languages(void);
const char *xlate_detect_language_code(int i);

#if defined(__GNUC__) && __GNUC__ >= 4
#pragma GCC visibility pop
#endif
#endif
