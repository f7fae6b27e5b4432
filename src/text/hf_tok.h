/* hf_tok.h — the tokenizer of a Hugging Face MarianMT directory, as transformers'
 * MarianTokenizer (v4.40) does it: source.spm cuts the text into pieces, vocab.json numbers them
 * (a piece it lacks is <unk>), a leading ">>xx<<" is one token; decoding maps ids back to pieces
 * through the target vocabulary, skips the special tokens (eos, unk, pad: vocab.json's ids), joins
 * the pieces with target.spm's DecodePieces (a special token's text cuts them), replaces every
 * U+2581 by a space, strips the ends and, unless tokenizer_config.json says
 * "clean_up_tokenization_spaces": false, applies transformers' clean_up_tokenization. The rules
 * and the transformers lines they follow: hf_tok_decode, docs/MODELS.md "OPUS-MT models". */
#ifndef XLATE_HF_TOK_H
#define XLATE_HF_TOK_H
#include "text/spm.h"
#include "text/vocab.h"
#include <stddef.h>

typedef struct {
    spm_model *src_spm, *tgt_spm;
    vocab src;          /* vocab.json */
    vocab tgt_own;      /* target_vocab.json, when there is one */
    const vocab *tgt;   /* &tgt_own or &src */
    int unk, eos, pad;  /* vocab.json's ids of "<unk>", "</s>", "<pad>" (pad -1 when absent):
                         * transformers' all_special_ids, skipped when decoding */
    int cleanup;        /* clean_up_tokenization_spaces */
    char source_lang[16], target_lang[16]; /* tokenizer_config.json's codes ("en"); "" absent */
    int *langs;         /* [n_langs] ids of the ">>xx<<" pieces of vocab.json, by id */
    int n_langs;
} hf_tok;

/* Loads dir's source_spm, target_spm, vocab (n_src ids) and target_vocab (NULL: the same map;
 * n_tgt ids), tokenizer_config.json when present. eos_id / pad_id: the config's, checked against
 * vocab.json's "</s>" / "<pad>". Messages name the file and the field or piece. */
int hf_tok_load(hf_tok *t, const char *dir, const char *source_spm, const char *target_spm,
                const char *vocab_json, const char *target_vocab_json, int n_src, int n_tgt,
                int eos_id, int pad_id, char *err, size_t errlen);
void hf_tok_free(hf_tok *t);

/* Source ids of text (without the eos), *ids malloc'd. */
int hf_tok_encode(const hf_tok *t, const char *text, size_t len, int **ids, int *n, char *err,
                  size_t errlen);
/* The same ids and *spans [2 * *n] (malloc'd, NULL when *n == 0): id i covers text's bytes
 * [(*spans)[2i], (*spans)[2i+1]). A leading ">>xx<<" token: its own bytes; a piece: its span
 * in the text without the codes (spm_encode_spans), mapped back (a code removed inside it stays
 * inside); a piece vocab.json lacks (<unk>) keeps its span. */
int hf_tok_encode_spans(const hf_tok *t, const char *text, size_t len, int **ids, int **spans,
                        int *n, char *err, size_t errlen);
/* Text of target ids, malloc'd and NUL-terminated. */
/* Text to target ids, as MarianTokenizer(text_target=...) encodes: target.spm's pieces numbered
 * by the target vocabulary (a piece it lacks: its <unk>); no language code, no eos. */
int hf_tok_encode_target(const hf_tok *t, const char *text, size_t len, int **ids, int *n,
                         char *err, size_t errlen);
int hf_tok_decode(const hf_tok *t, const int *ids, int n, char **text, char *err, size_t errlen);
/* s[0, n) finished as transformers finishes a decoded text: every U+2581 a space, Python's
 * str.strip (Unicode whitespace), then clean_up_tokenization when clean; in place, returns the
 * new length. (Shared with the M2M100 / NLLB tokenizers, m2m_tok.c.) */
size_t hf_tok_finish_text(char *s, size_t n, int clean);
/* clean_up_tokenization alone (tokenization_utils_base.py: the ten replacements), in place;
 * returns the new length. */
size_t hf_tok_cleanup(char *s, size_t n);
/* The id of ">>lang<<" in vocab.json, or -1. */
int hf_tok_lang(const hf_tok *t, const char *lang);

#endif
