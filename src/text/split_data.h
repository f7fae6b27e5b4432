/* split_data.h — what split.c asks of its per-language data (split_data.c): the abbreviation
 * and title lists, the words that start sentences, and which language a code names. Internal to
 * the splitter: nothing outside src/text/split*.c includes it. */
#ifndef XLATE_SPLIT_DATA_H
#define XLATE_SPLIT_DATA_H
#include <stddef.h>

/* What a full stop after an abbreviation means. */
enum {
    ABBR_TITLE = 1, /* a name follows (Mr., Dr., Prof.): never the end of a sentence */
    ABBR_MID,       /* more of the sentence follows (e.g., z. B., bzw.): never the end */
    ABBR_NUM,       /* a number follows (No. 5, Nr. 5, Jan. 12): not the end before a digit */
    ABBR_END        /* often last in a sentence (etc., Inc., usw.): the end before a capital */
};
/* Before a lowercase word, every kind goes on: the word after an abbreviation is what makes
 * the abbreviation's stop the sentence's end or not (split.c, split_decide). */

typedef struct {
    const char *word; /* as written without its final dot, inner dots kept without spaces
                         ("e.g", "z.B"); compared ASCII-case-insensitively, other bytes exact */
    unsigned char kind;
} split_abbr;

typedef struct {
    const char *name;               /* "en", "de", ...; "" for the neutral rules */
    const split_abbr *abbr;         /* the language's list, ends with {NULL, 0}; never NULL */
    const split_abbr *suffix;       /* word endings that make an abbreviation: German
                                       "Hauptstr." ends in "str"; ends with {NULL, 0} */
    const char *const *starters;    /* capitalised words that often start a sentence, ends
                                       with NULL: after an initial or an acronym they say
                                       "a new sentence"; never NULL */
    int ordinals;                   /* a number with a full stop is an ordinal ("am 12. Juni") */
    int greek_question;             /* ';' ends a question (Greek) */
    int pronoun_i;                  /* "I" is capitalised mid-sentence (English) */
    int colon_stop, no_dot;         /* Armenian typed: ':' is the full stop (for U+0589), '.'
                                       a mark inside sentences */
    int known;                      /* split_lang_known's answer */
} split_rules;

/* The rules for a language code ("en", "eng", "en_US", "de-AT", "ger"; case-insensitive); the
 * neutral rules for NULL, "" or a code it does not know. Never NULL. */
const split_rules *split_rules_for(const char *lang);

/* The abbreviations every language's rules include (Latin ones, titles shared in Europe). */
const split_abbr *split_common_abbr(void);

/* 1 when s[0..n) is a name written with a '!' after it ("Yahoo"): that '!' is part of the
 * name, not a terminator, before a lowercase word. */
int split_bang_name(const char *s, size_t n);

/* 1 when the code names Chinese or Japanese. */
int split_code_no_spaces(const char *lang);

#endif
