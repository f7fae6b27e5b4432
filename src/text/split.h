/* split.h — sentence boundaries in a line (or paragraph) of text, language-aware.
 *
 * Translation models are trained on single sentences; a line that holds several is split here
 * and each sentence translated as its own segment (src/pipeline.c). The rules: a sentence ends
 * at a terminator (. ! ? … and other scripts' marks, CJK 。！？) followed by closing quotes or
 * brackets, then whitespace and the start of a new sentence (or, for CJK terminators, at once);
 * not after an abbreviation, a title, an initial, an acronym with dots, a number that is an
 * ordinal or list marker, nor inside a URL, an e-mail address, a file name, a decimal or a time.
 * The abbreviation lists are xlate's own data (split_data.c), per language; an unknown or
 * absent language gets the language-neutral rules.
 *
 * Every span is trimmed of surrounding whitespace; spans are in order, never overlap, and
 * together cover every byte of the text that is not whitespace: nothing is ever dropped. The
 * text is bytes: invalid UTF-8 and NUL are kept inside spans, never a reason to fail. Time is
 * linear in the length. */
#ifndef XLATE_SPLIT_H
#define XLATE_SPLIT_H
#include <stddef.h>

typedef struct {
    size_t start, end; /* bytes [start, end) of the text */
} split_span;

/* Splits text[0..len) into sentences. lang: a language code as models and users name them
 * ("en", "eng", "en_US", "de", "deu", "zh", "ja", ">>fra<<" is not one; NULL or "": neutral
 * rules). *spans is malloc'd (NULL when *n is 0: a text of whitespace only); free() it.
 * Returns 0, or -1 out of memory (message in err). */
int split_sentences(const char *text, size_t len, const char *lang, split_span **spans, int *n,
                    char *err, size_t errlen);

/* 1 when the language writes no space between sentences (Chinese, Japanese): translations
 * into it are joined with nothing where the source had whitespace. 0 otherwise and for
 * NULL/unknown. */
int split_lang_no_spaces(const char *lang);

/* 1 when split_sentences has rules of its own for this language (abbreviations, ordinals),
 * 0 when it falls back to the neutral rules. */
int split_lang_known(const char *lang);

#endif
