/* langid.c — which language a text is written in (issue 48, docs/LANGID.md): xlate_detect_language
 * of xlate.h. A multinomial naive Bayes over the text's character 1- to 4-grams (code points),
 * the model trained on Debian's translations by tools/langid/train.py into langid_data.c.
 *
 * The text is made into n-grams exactly as train.py's features(): UTF-8 decoded (a byte that
 * starts no valid sequence is a space), lower-cased (lower(): the capitals of ASCII, Latin-1,
 * Latin Extended-A, Greek and Cyrillic), every non-letter a space (is_letter()), a run of spaces
 * one space, a space at each end; every n-gram of 1 to 4 code points but the lone space, named
 * by its FNV-1a hash. A kept n-gram adds its stored log probability to each language's score
 * (the language's floor where none is stored); an n-gram the model does not keep adds nothing.
 * The scores of the languages asked for become confidences by a softmax tempered by the
 * n-gram count (CONF_TEMPER: naive Bayes counts every overlapping n-gram as evidence of its own,
 * which makes its raw posterior near 1 for any text). Nothing is allocated: the window of the
 * last 4 code points and one score per language live on the stack. */
#include "xlate.h"
#include "lang/langid_data.h"
#include "base/langs.h"
#include "base/util.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MAX_LANGS 64
/* the softmax is over score * CONF_TEMPER / sqrt(n-grams): measured on the held-out set
 * (docs/LANGID.md, "Confidence"), so that a confidence c is right about c of the time */
#define CONF_TEMPER 1.5
/* fewer letters (a CJK, kana or Hangul letter counts 3) than this: undetectable */
#define MIN_WEIGHT XLATE_DETECT_MIN_LETTERS

static unsigned lower(unsigned c)
{
    if ((c >= 0x41 && c <= 0x5A) || (c >= 0xC0 && c <= 0xDE && c != 0xD7))
        return c + 0x20;
    if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177))
        return c | 1;
    if (((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) && (c & 1))
        return c + 1;
    if (c >= 0x391 && c <= 0x3AB && c != 0x3A2)
        return c + 0x20;
    if (c >= 0x410 && c <= 0x42F)
        return c + 0x20;
    if (c >= 0x400 && c <= 0x40F)
        return c + 0x50;
    return c;
}

static int is_letter(unsigned c)
{
    static const unsigned punct[][2] = {{0x80, 0xBF}, {0xD7, 0xD7}, {0xF7, 0xF7},
        {0x2000, 0x2BFF}, {0x3000, 0x303F}, {0xFE30, 0xFE4F}, {0xFF00, 0xFF20},
        {0xFF3B, 0xFF40}, {0xFF5B, 0xFF65}};
    if (c < 0x80)
        return c >= 0x61 && c <= 0x7A;
    for (size_t i = 0; i < sizeof punct / sizeof *punct; i++)
        if (c >= punct[i][0] && c <= punct[i][1])
            return 0;
    return 1;
}

/* CJK ideographs, kana, Hangul: one letter says as much as a short word */
static int is_wide(unsigned c)
{
    return (c >= 0x3040 && c <= 0x30FF) || (c >= 0x3400 && c <= 0x9FFF) ||
           (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF);
}

/* The code point at s[*i] (advancing *i), or 0x20 for a byte that starts no valid sequence. */
static unsigned next_cp(const unsigned char *s, size_t len, size_t *i)
{
    unsigned c = s[*i], n, cp;
    if (c < 0x80) {
        (*i)++;
        return c;
    }
    n = c >= 0xF0 && c < 0xF5 ? 3 : c >= 0xE0 && c < 0xF0 ? 2 : c >= 0xC2 && c < 0xE0 ? 1 : 0;
    if (!n || *i + n >= len) { /* no lead byte, or its sequence runs past the text */
        (*i)++;
        return 0x20;
    }
    cp = c & (0x3F >> n);
    for (unsigned k = 1; k <= n; k++) {
        unsigned b = s[*i + k];
        if ((b & 0xC0) != 0x80) {
            (*i)++;
            return 0x20;
        }
        cp = cp << 6 | (b & 0x3F);
    }
    if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
        (n == 3 && (cp < 0x10000 || cp > 0x10FFFF))) {
        (*i)++;
        return 0x20;
    }
    *i += n + 1;
    return cp;
}

static unsigned fnv(const unsigned *g, int n)
{
    unsigned h = 2166136261u;
    for (int k = 0; k < n; k++)
        h = (h ^ g[k]) * 16777619u;
    return (h ^ (unsigned)n) * 16777619u;
}

/* Adds an n-gram's values to the scores of every language (the floor where none is stored). */
static void add_gram(unsigned h, double *score, long *grams)
{
    int lo = 0, hi = langid_n_features - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (langid_hash[mid] < h)
            lo = mid + 1;
        else if (langid_hash[mid] > h)
            hi = mid - 1;
        else {
            for (int l = 0; l < langid_n_langs; l++)
                score[l] += langid_floor[l];
            for (unsigned v = langid_start[mid]; v < langid_start[mid + 1]; v++)
                score[langid_vals[v] >> 8] += (double)(langid_vals[v] & 0xFF) / langid_qstep;
            (*grams)++;
            return;
        }
    }
}

/* Feeds one normalized code point (a space or a letter) to the window of the last max_n. */
static void push(unsigned c, unsigned *win, int *have, double *score, long *grams)
{
    int n = *have < langid_max_n ? *have : langid_max_n - 1;
    if (c == 0x20 && *have && win[langid_max_n - 1] == 0x20)
        return; /* a run of spaces is one space */
    memmove(win, win + 1, (size_t)(langid_max_n - 1) * sizeof *win);
    win[langid_max_n - 1] = c;
    *have = n + 1;
    for (int k = 1; k <= *have; k++) {
        if (k == 1 && c == 0x20)
            continue;
        add_gram(fnv(win + langid_max_n - k, k), score, grams);
    }
}

int xlate_detect_n_languages(void) { return langid_n_langs; }

const char *xlate_detect_language_code(int i)
{
    return i >= 0 && i < langid_n_langs ? langid_codes[i] : NULL;
}

/* The detector's index of a code as a caller may write it: "de", "pt_BR", "zh-TW" (zt),
 * "deu_Latn" (through base/langs.c), or -1. */
static int lang_index(const char *code)
{
    const char *s = code;
    char part[8];
    size_t n;
    if (strchr(code, '_') && strlen(code) == 8) /* an NLLB code */
        s = lang_short_code(code);
    if (!s)
        return -1;
    n = strcspn(s, "_-");
    if (n == 0 || n >= sizeof part)
        return -1;
    memcpy(part, s, n);
    part[n] = 0;
    if (strcasecmp(part, "zh") == 0 && s[n] &&
        (strcasestr(s + n, "hant") || strcasestr(s + n, "tw") || strcasestr(s + n, "hk") ||
         strcasestr(s + n, "mo")))
        snprintf(part, sizeof part, "zt");
    if (strcasecmp(part, "pb") == 0)
        snprintf(part, sizeof part, "pt");
    if (strcasecmp(part, "no") == 0 || strcasecmp(part, "nn") == 0)
        snprintf(part, sizeof part, "nb");
    for (int l = 0; l < langid_n_langs; l++)
        if (strcasecmp(langid_codes[l], part) == 0)
            return l;
    return -1;
}

int xlate_detect_language(const char *text, size_t len, const char *const *langs, int n_langs,
                          xlate_lang_guess *out, int max_out, char *err, size_t errlen)
{
    double score[MAX_LANGS] = {0}, best, sum = 0, t;
    unsigned char allowed[MAX_LANGS];
    unsigned win[8] = {0};
    int have = 0, weight = 0, n_allowed = 0, n_out = 0;
    long grams = 0;
    size_t i = 0;

    if (!text && len)
        return xerr(err, errlen, "xlate_detect_language: text is NULL"), -1;
    if (max_out < 1 || !out)
        return xerr(err, errlen, "xlate_detect_language: max_out %d: give room for one guess "
                    "at least", max_out), -1;
    memset(allowed, langs ? 0 : 1, sizeof allowed);
    for (int k = 0; langs && k < n_langs; k++) {
        int l = langs[k] ? lang_index(langs[k]) : -1;
        if (l >= 0)
            allowed[l] = 1; /* a language the detector does not know cannot be found: skipped */
    }
    for (int l = 0; l < langid_n_langs; l++)
        n_allowed += allowed[l];
    if (!n_allowed)
        return xerr(err, errlen, "xlate_detect_language: none of the %d languages given is one "
                    "the detector knows (xlate detect --list)", n_langs), -1;
    push(0x20, win, &have, score, &grams);
    while (i < len) {
        unsigned c = lower(next_cp((const unsigned char *)text, len, &i));
        if (!is_letter(c))
            c = 0x20;
        else
            weight += is_wide(c) ? 3 : 1;
        push(c, win, &have, score, &grams);
    }
    push(0x20, win, &have, score, &grams);
    if (weight < MIN_WEIGHT || grams == 0)
        return 0; /* undetectable: no guess at all rather than one reported as sure */
    /* confidences: the tempered softmax over the allowed languages */
    t = CONF_TEMPER / sqrt((double)grams);
    best = -INFINITY;
    for (int l = 0; l < langid_n_langs; l++)
        if (allowed[l] && score[l] > best)
            best = score[l];
    for (int l = 0; l < langid_n_langs; l++)
        if (allowed[l])
            sum += exp((score[l] - best) * t);
    for (int l = 0; l < langid_n_langs; l++) {
        double c;
        int k;
        if (!allowed[l])
            continue;
        c = exp((score[l] - best) * t) / sum;
        /* insertion into the sorted top max_out (ties: the earlier code first) */
        for (k = n_out; k > 0 && out[k - 1].confidence < c; k--)
            if (k < max_out)
                out[k] = out[k - 1];
        if (k < max_out) {
            snprintf(out[k].lang, sizeof out[k].lang, "%s", langid_codes[l]);
            out[k].confidence = (float)c;
            if (n_out < max_out)
                n_out++;
        }
    }
    return n_out;
}
