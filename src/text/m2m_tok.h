/* m2m_tok.h — the tokenizers of Hugging Face M2M100 / NLLB-200 directories, as transformers
 * v4.40 defines them (tokenization_nllb.py NllbTokenizer, tokenization_m2m_100.py
 * M2M100Tokenizer; the rules, with their lines, are in m2m_tok.c):
 *   NLLB:   sentencepiece.bpe.model numbered with the fairseq offset (<s> 0, <pad> 1, </s> 2,
 *           <unk> 3, spm piece i >= 3 at i + 1), the language codes ("eng_Latn") after the
 *           pieces, <mask> after them (or where tokenizer_config.json's added_tokens_decoder
 *           puts them);
 *   M2M100: sentencepiece.bpe.model's pieces numbered by vocab.json, the language tokens
 *           "__en__" after vocab.json's ids (the user's code is "en").
 * Encoding gives the text's pieces only: the caller puts the source language token in front
 * (or, NLLB legacy_behaviour, after the eos). Decoding skips every special id (the four
 * specials, the language tokens, <mask>; NLLB: ids without a piece), joins the pieces (NLLB:
 * as text, U+2581 to space; M2M100: spm DecodePieces) and strips them, writes each other added
 * token's text apart, joins these texts with spaces and cleans up (m2m_tok_decode). */
#ifndef XLATE_M2M_TOK_H
#define XLATE_M2M_TOK_H
#include "text/spm.h"
#include "text/vocab.h"
#include <stddef.h>

/* An added token (transformers' AddedToken): text that encoding never splits, with the id it
 * stands for and how it eats the whitespace beside it. */
typedef struct {
    char *text;        /* owned, NUL-terminated */
    int len;           /* bytes */
    int id;
    unsigned char lstrip, rstrip, single_word, special;
    unsigned char listed; /* 1: one of transformers' all_special_tokens (the four specials,
                             <mask>, the additional_special_tokens): decode skips its id;
                             0: decode writes its text as a text of its own (m2m_tok.c) */
} m2m_added;

typedef struct {
    int nllb;          /* 1: NllbTokenizer; 0: M2M100Tokenizer */
    spm_model *spm;
    vocab v;           /* M2M100: vocab.json (v.n = its pieces) */
    int n_ids;         /* the model's vocabulary: ids at or past it are refused */
    int sp_size;       /* NLLB: the spm model's pieces */
    int unk, pad, eos, bos;
    int mask;          /* NLLB's <mask>; -1 for M2M100 */
    int legacy;        /* NLLB legacy_behaviour: the source is tokens </s> [src_lang] */
    int cleanup;       /* clean_up_tokenization_spaces */
    int n_langs;
    char (*lang)[24];  /* [n_langs] the codes users give: "eng_Latn", "en" */
    int *lang_id;      /* [n_langs] their token ids */
    const char **lang_ptr; /* [n_langs] lang[i] (xlate_model_info.langs) */
    char src_lang[24]; /* tokenizer_config.json's src_lang (the default source language) */
    m2m_added *added;  /* [n_added] the specials, the language tokens, <mask>, and the files'
                          added tokens (m2m_tok.c load_added) */
    int n_added;
} m2m_tok;

/* 1 when dir's tokenizer is NLLB's: tokenizer_config.json's tokenizer_class (NllbTokenizer,
 * NllbTokenizerFast; M2M100Tokenizer), else the absence of vocab.json. */
int m2m_tok_is_nllb(const char *dir);
/* Loads dir's sentencepiece.bpe.model, tokenizer_config.json and special_tokens_map.json
 * (the language codes: additional_special_tokens), and for M2M100 vocab.json; the added tokens
 * from tokenizer_config.json's added_tokens_decoder, else added_tokens.json and tokenizer.json's
 * "added_tokens" (transformers' _from_pretrained). n_ids: the
 * model's vocab_size; eos_id, pad_id: config.json's, checked against the tokenizer's. */
int m2m_tok_load(m2m_tok *t, const char *dir, int nllb, int n_ids, int eos_id, int pad_id,
                 char *err, size_t errlen);
void m2m_tok_free(m2m_tok *t);
/* The language codes ("deu_Latn"; M2M100's "__de__" as "de") of dir's tokenizer_config.json and
 * special_tokens_map.json by m2m_tok_load's rules, in its order, without the SentencePiece model
 * or vocab.json (their ids not checked): what choosing a model by its languages needs.
 * *codes malloc'd [*n]. 0, or -1 with err. */
int m2m_tok_langs(const char *dir, int nllb, char (**codes)[24], int *n, char *err,
                  size_t errlen);
/* The ids of text's pieces (no language token, no eos), *ids malloc'd; with spans != NULL
 * also each id's bytes in text [(*spans)[2i], (*spans)[2i+1]). An added token in the text is
 * its id, never split; the text between added tokens is encoded piece by piece, as
 * transformers' tokenize does (m2m_tok.c). */
int m2m_tok_encode(const m2m_tok *t, const char *text, size_t len, int **ids, int **spans,
                   int *n, char *err, size_t errlen);
/* The same without the added tokens: the text's sentencepiece pieces, numbered (NLLB: the
 * fairseq offset; M2M100: vocab.json). m2m_added.c encodes the text between added tokens so. */
int m2m_tok_encode_plain(const m2m_tok *t, const char *text, size_t len, int **ids,
                         int **spans, int *n, char *err, size_t errlen);
/* Text of target ids, malloc'd and NUL-terminated. */
int m2m_tok_decode(const m2m_tok *t, const int *ids, int n, char **text, char *err,
                   size_t errlen);
/* The token id of a language code ("eng_Latn", "en"), or -1. */
int m2m_tok_lang(const m2m_tok *t, const char *code);
/* Up to `max` codes close to `code` (same first letters, or a small edit distance), joined by
 * ", " into buf; the first codes when none is close. */
void m2m_tok_suggest(const m2m_tok *t, const char *code, char *buf, size_t n, int max);

#endif
