/* split.c — sentence boundaries (split.h): one pass over the text's code points. A run of
 * terminators (. ! ? … and other scripts' marks), with the closing quotes and brackets right
 * after it, is a candidate; the words around it decide (split_data.c holds the lists).
 * Lookbehind is the token before the run (at most WORD_MAX bytes are looked at), lookahead the
 * whitespace after it and the next word (at most WORD_MAX bytes past the openers): every byte
 * is read a bounded number of times, so the time is linear. */
#include "text/split.h"
#include "text/split_data.h"
#include "base/util.h"
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { WORD_MAX = 48 }; /* longer tokens are never abbreviations, numbers or markers */

/* A list item's marker: a bullet, a number or a letter with "." ".)" or ")", or both
 * ("• 9. "), then whitespace. */
typedef struct {
    int32_t bullet; /* 0 when none */
    int kind;       /* 0 none, 1 a number, 2 a lowercase letter, 3 an uppercase letter */
    int style;      /* 0 none, 1 ".", 2 ".)", 3 ")", 4 "(a)" */
    long value;     /* the number, or the letter */
} marker;

/* The end of the marker at s[i..), 0 when there is none (defined below). */
static size_t marker_at(const unsigned char *s, size_t len, size_t i, marker *m);

/* What a terminator is. */
enum {
    TERM_NONE = 0,
    TERM_DOT,      /* '.': abbreviations, numbers, initials decide */
    TERM_ELLIPSIS, /* '…' */
    TERM_MARK,     /* ! ? and other scripts' spaced terminators (Armenian ':' too) */
    TERM_CJK       /* 。！？．｡ (and Ethiopic, Myanmar): the end at once, no space needed */
};

/* The code point at s[i..n), its length in *l (1 for an invalid byte, which reads as U+FFFD:
 * a symbol, neither space nor letter nor terminator). */
static int32_t cp_at(const unsigned char *s, size_t n, size_t i, size_t *l)
{
    unsigned c = s[i];
    size_t len;
    int32_t cp;
    unsigned lo = 0x80, hi = 0xBF;
    *l = 1;
    if (c < 0x80)
        return (int32_t)c;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, cp = (int32_t)(c & 0x1F);
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, cp = (int32_t)(c & 0x0F), lo = c == 0xE0 ? 0xA0 : 0x80,
        hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, cp = (int32_t)(c & 0x07), lo = c == 0xF0 ? 0x90 : 0x80,
        hi = c == 0xF4 ? 0x8F : 0xBF;
    else
        return 0xFFFD;
    if (n - i < len || s[i + 1] < lo || s[i + 1] > hi)
        return 0xFFFD;
    for (size_t k = 1; k < len; k++) {
        if (k > 1 && (s[i + k] < 0x80 || s[i + k] > 0xBF))
            return 0xFFFD;
        cp = (cp << 6) | (int32_t)(s[i + k] & 0x3F);
    }
    *l = len;
    return cp;
}

/* The whitespace of split.h's invariant: ASCII 9-13 and space, NEL, NBSP, Ogham space, the
 * U+2000 spaces, line and paragraph separators, narrow NBSP, math space, ideographic space. */
static int is_space(int32_t c)
{
    if (c < 0x80)
        return c == ' ' || (c >= 9 && c <= 13);
    return c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
           c == 0x205F || c == 0x3000;
}

static int term_kind(int32_t c, const split_rules *r)
{
    switch (c) {
    case '.':
        return r->no_dot ? TERM_NONE : TERM_DOT;
    case ':':
        return r->colon_stop ? TERM_MARK : TERM_NONE;
    case 0x2026:
        return TERM_ELLIPSIS;
    case '!': case '?': case 0x203C: case 0x2047: case 0x2048: case 0x2049:
    case 0x037E: /* Greek question mark */
    case 0x061F: /* Arabic question mark */
    case 0x06D4: /* Urdu full stop */
    case 0x0964: case 0x0965: /* Devanagari danda, double danda */
    case 0x0589: /* Armenian full stop */
    case 0x0F0D: /* Tibetan shad */
    case 0x17D4: /* Khmer khan */
    case 0x0700: case 0x0701: case 0x0702: /* Syriac end of paragraph, full stops */
        return TERM_MARK;
    case 0x3002: case 0xFF01: case 0xFF1F: case 0xFF0E: case 0xFF61:
    /* Ethiopic full stop, question mark, paragraph; Myanmar section marks: often written
     * without a space after them */
    case 0x1362: case 0x1367: case 0x1368: case 0x104A: case 0x104B:
        return TERM_CJK;
    case ';':
        return r->greek_question ? TERM_MARK : TERM_NONE;
    default:
        return TERM_NONE;
    }
}

/* Closing quotes and brackets that stay with the sentence they follow. Quotes are both ways
 * round: German „…“ closes with U+201C, French and German »…« with either guillemet. */
static int is_closer(int32_t c)
{
    switch (c) {
    case '"': case '\'': case ')': case ']': case '}':
    case 0x2019: case 0x201D: case 0x201C: case 0x2018: case 0x00BB: case 0x00AB:
    case 0x203A: case 0x2039:
    case 0x300D: case 0x300F: case 0xFF09: case 0x3011: case 0x3015: case 0x3009:
    case 0x300B: case 0xFF3D: case 0xFF5D: case 0xFF02: case 0xFF07: case 0x3017: case 0x3019:
        return 1;
    default:
        return 0;
    }
}

/* Marks that may open a sentence before its first word. */
static int is_opener(int32_t c)
{
    switch (c) {
    case '"': case '\'': case '(': case '[': case '{':
    case 0x201C: case 0x2018: case 0x201E: case 0x201A: case 0x00AB: case 0x00BB:
    case 0x2039: case 0x203A: case 0x00BF: case 0x00A1:
    case 0x300C: case 0x300E: case 0xFF08: case 0x3010: case 0x3014: case 0x3008:
    case 0x300A: case 0xFF3B: case 0xFF5B:
        return 1;
    default:
        return 0;
    }
}

/* Latin-1, Latin Extended-A, Greek and Cyrillic letters: case by range (the exceptions of
 * Extended-A, where the parity flips, are followed). */
static int is_upper(int32_t c)
{
    if (c < 0x80)
        return c >= 'A' && c <= 'Z';
    if (c >= 0xC0 && c <= 0xDE)
        return c != 0xD7;
    if (c >= 0x100 && c <= 0x137)
        return !(c & 1);
    if (c >= 0x139 && c <= 0x148)
        return c & 1;
    if (c >= 0x14A && c <= 0x177)
        return !(c & 1);
    if (c >= 0x178 && c <= 0x17E)
        return c == 0x178 || (c & 1);
    if (c >= 0x391 && c <= 0x3AB)
        return c != 0x3A2;
    if (c == 0x386 || (c >= 0x388 && c <= 0x38F))
        return 1;
    return c >= 0x400 && c <= 0x42F;
}

static int is_lower(int32_t c)
{
    if (c < 0x80)
        return c >= 'a' && c <= 'z';
    if (c >= 0xDF && c <= 0xFF)
        return c != 0xF7;
    if (c >= 0x100 && c <= 0x137)
        return c & 1;
    if (c >= 0x139 && c <= 0x148)
        return !(c & 1);
    if (c >= 0x14A && c <= 0x177)
        return c & 1;
    if (c >= 0x179 && c <= 0x17F)
        return !(c & 1) || c == 0x17F;
    if (c >= 0x3AC && c <= 0x3CE)
        return 1;
    return c >= 0x430 && c <= 0x45F;
}

static int isalnum_ascii(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_letter(int32_t c) { return is_upper(c) || is_lower(c); }
static int is_digit(int32_t c) { return c >= '0' && c <= '9'; }
static int fw_digit(int32_t c) { return is_digit(c) || (c >= 0xFF10 && c <= 0xFF19); }

/* The lowercase of a Latin-1, Greek or Cyrillic capital (the ranges is_upper knows best);
 * other code points as they are. */
static int32_t fold(int32_t c)
{
    if ((c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7) ||
        (c >= 0x391 && c <= 0x3AB && c != 0x3A2) || (c >= 0x410 && c <= 0x42F))
        return c + 0x20;
    if (c >= 0x400 && c <= 0x40F)
        return c + 0x50;
    return c;
}

/* Case-insensitive equality (fold) of s[0..n) and the NUL-terminated w. */
static int word_eq(const unsigned char *s, size_t n, const char *w)
{
    const unsigned char *u = (const unsigned char *)w;
    if (!n || !u[0])
        return !n && !u[0];
    if (s[0] < 0x80 && u[0] < 0x80 && (s[0] | 0x20) != (u[0] | 0x20))
        return 0; /* the usual answer, without measuring w */
    size_t wn = strlen(w), i = 0, k = 0, l, lw;
    while (i < n && k < wn) {
        if (fold(cp_at(s, n, i, &l)) != fold(cp_at(u, wn, k, &lw)))
            return 0;
        i += l;
        k += lw;
    }
    return i == n && k == wn;
}

/* 0 when a word starting with byte b cannot equal w, by their first bytes folded (ASCII); 1
 * when it may. Most entries fail here, before word_eq measures them. */
static int may_eq(unsigned char b, const char *w)
{
    unsigned char f = (unsigned char)w[0];
    return b >= 0x80 || f >= 0x80 || (b | 0x20) == (f | 0x20);
}

/* The kind of abbreviation s[0..n) is in the language's list or the common one, 0 if none.
 * One letter matches only in its own case: "С." of "А. С. Пушкин" is an initial, "с." a
 * page. */
static int abbr_kind(const split_rules *r, const unsigned char *s, size_t n)
{
    size_t l;
    if (n && (cp_at(s, n, 0, &l), l == n)) { /* (the common list has no one-letter entry) */
        for (const split_abbr *a = r->abbr; a->word; a++)
            if (a->word[0] == (char)s[0] && strlen(a->word) == n && memcmp(s, a->word, n) == 0)
                return a->kind;
        return 0;
    }
    for (const split_abbr *a = r->abbr; a->word; a++)
        if (may_eq(s[0], a->word) && word_eq(s, n, a->word))
            return a->kind;
    for (const split_abbr *a = split_common_abbr(); a->word; a++)
        if (may_eq(s[0], a->word) && word_eq(s, n, a->word))
            return a->kind;
    for (const split_abbr *a = r->suffix; a->word; a++) {
        size_t k = strlen(a->word);
        if (n > k && word_eq(s + n - k, k, a->word))
            return a->kind;
    }
    return 0;
}

/* 1 when the word s[0..n) (dot_after: a full stop follows it) likely starts a sentence: one
 * of the language's starters, or a title ("... at 6 P.M. Mr. Smith then ..."). */
static int is_starter(const split_rules *r, const unsigned char *s, size_t n, int dot_after)
{
    for (const char *const *w = r->starters; *w; w++)
        if (n && (*w)[0] == (char)s[0] && strlen(*w) == n && memcmp(s, *w, n) == 0)
            return 1;
    return dot_after && abbr_kind(r, s, n) == ABBR_TITLE;
}

/* Bullets that start list items. '-' and '*' are not among them: mid-line they are dashes and
 * emphasis as often as bullets. */
static int is_bullet(int32_t c)
{
    return c == 0x2022 || c == 0x2043 || c == 0x25E6 || c == 0x25AA || c == 0x2023 ||
           c == 0x2219 || c == 0x25CF || c == 0x25A0 || c == 0x25C6 || c == 0x25B8 ||
           c == 0x27A2 || c == 0x2713;
}

/* What the token before a full stop is. */
typedef struct {
    const unsigned char *s; /* the token without leading openers; n bytes */
    size_t n;
    int letters, digits, dots, others; /* code points of each class */
    int max_seg;         /* longest run of letters between dots */
    int32_t first;       /* its first code point */
    int roman;           /* only i v x l c d m (either case) */
} token;

static void token_scan(token *t, const unsigned char *s, size_t n)
{
    size_t i = 0, l;
    int seg = 0;
    memset(t, 0, sizeof *t);
    t->roman = 1;
    for (int32_t c; i < n && (is_opener(c = cp_at(s, n, i, &l)) || c == '-' || c == 0x2013 ||
                              is_bullet(c));)
        i += l; /* "(e.g", "-3" of "1. -3. Jahrhundert", "⁃9" */
    t->s = s + i;
    t->n = n - i;
    t->first = t->n ? cp_at(s, n, i, &l) : -1;
    for (; i < n; i += l) {
        int32_t c = cp_at(s, n, i, &l);
        if (is_letter(c)) {
            t->letters++;
            if (++seg > t->max_seg)
                t->max_seg = seg;
            if (t->roman && (c >= 0x80 || !strchr("ivxlcdmIVXLCDM", (int)c)))
                t->roman = 0;
            continue;
        }
        t->roman = 0;
        seg = 0;
        if (is_digit(c))
            t->digits++;
        else if (c == '.')
            t->dots++;
        else
            t->others++;
    }
    if (!t->letters)
        t->roman = 0;
}

/* Everything split_decide needs about the place after a run. */
typedef struct {
    const unsigned char *s; /* the whole text, len bytes */
    size_t len;
    const split_rules *r;
    size_t word_start; /* the token holding the run starts here (the run at i) */
    size_t prev_start, prev_end; /* the token before it; prev_end == 0 when none */
    int first_token;   /* the token is the sentence's first */
    int title_open;    /* a 《 was seen and no 》 after it */
    int caseless;      /* the text has lowercase letters and no capital: a lowercase word may
                          start a sentence ("i am going out. jill finishes today.") */
    int digits_after;  /* digits follow the stop at once ("word.10 "): a reference, unless
                          the word is an abbreviation ("Nr.1", "p.5") */
    int link;          /* where a web or e-mail address in the current token is (link_step):
                          LINK_NONE, LINK_HOST (ASCII so far), LINK_IDN, LINK_PATH */
} split_ctx;

enum { LINK_NONE, LINK_HOST, LINK_IDN, LINK_PATH };

/* The next word after position k (whitespace, openers and dashes skipped): its first code
 * point (-1 at the end of the text), its letters' extent [*ws, *we), whether a '.' follows
 * them, whether a list item's marker ("b)", "(c)") stands there. */
static int32_t next_word(const split_ctx *x, size_t k, size_t *ws, size_t *we, int *dot_after,
                         int *item)
{
    size_t l, skipped = 0;
    int32_t c = -1;
    marker m;
    *ws = *we = k;
    *dot_after = 0;
    while (k < x->len && is_space(cp_at(x->s, x->len, k, &l)))
        k += l;
    /* "b) ...", "(c) ...": an item of a list starts, whatever its case */
    *item = k < x->len && marker_at(x->s, x->len, k, &m) && m.style >= 3;
    /* openers, and dashes with their spaces: "voila! -- you have cake" goes on */
    for (int dash = 0; k < x->len && skipped < WORD_MAX; k += l, skipped += l) {
        c = cp_at(x->s, x->len, k, &l);
        if (c == '-' || c == 0x2013 || c == 0x2014)
            dash = 1;
        else if (!is_opener(c) && !(dash && is_space(c)))
            break;
    }
    if (k >= x->len)
        return -1;
    c = cp_at(x->s, x->len, k, &l);
    *ws = *we = k;
    while (*we < x->len && *we - k < WORD_MAX) {
        int32_t d = cp_at(x->s, x->len, *we, &l);
        if (!is_letter(d) && d != '\'' && d != 0x2019)
            break;
        *we += l;
    }
    *dot_after = *we < x->len && x->s[*we] == '.';
    return c;
}

/* 1 when s[0..n) starts with a web address: "http://", "https://", "www." */
static int starts_link(const unsigned char *s, size_t n)
{
    return (n >= 7 && memcmp(s, "http://", 7) == 0) || (n >= 8 && memcmp(s, "https://", 8) == 0) ||
           (n >= 4 && memcmp(s, "www.", 4) == 0);
}

/* Punctuation of the CJK and general punctuation blocks and the fullwidth forms' symbols:
 * they end an address written in running CJK text ("见www.a.com，然后"). */
static int cjk_punct(int32_t c)
{
    return (c >= 0x2000 && c <= 0x206F) || (c >= 0x3000 && c <= 0x303F) ||
           (c >= 0xFF01 && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) ||
           (c >= 0xFF5B && c <= 0xFF65);
}

/* The link state after the code point c at s[i] (split_ctx.link), so that an address is never
 * split inside: "scheme://", "www." or "name@" starts one (its host), '/', '?' or '#' its path;
 * a non-ASCII letter in the host makes it an internationalised one, whose labels may be
 * separated by the ideographic and fullwidth full stops (UTS #46: U+3002, U+FF0E, U+FF61:
 * "https://例え。テスト/"); other punctuation ends the host. Reads at most 4 bytes around i:
 * O(1) a code point. Whitespace and a sentence's end reset it (split_sentences). */
static int link_step(const split_ctx *x, int state, int32_t c, size_t i)
{
    const unsigned char *s = x->s;
    int alnum_before = i > 0 && isalnum_ascii(s[i - 1]);
    switch (state) {
    case LINK_NONE:
        if (c == ':' && alnum_before && i + 2 < x->len && s[i + 1] == '/' && s[i + 2] == '/')
            return LINK_HOST; /* "https://", "ftp://" */
        if (c == '@' && alnum_before && i + 1 < x->len &&
            (isalnum_ascii(s[i + 1]) || s[i + 1] >= 0x80))
            return LINK_HOST; /* "john.doe@example.com" */
        if ((c == 'w' || c == 'W') && !alnum_before && x->len - i >= 4 &&
            word_eq(s + i, 4, "www."))
            return LINK_HOST;
        return LINK_NONE;
    case LINK_HOST:
    case LINK_IDN:
        if (c < 0x80) {
            if (isalnum_ascii((unsigned char)c) || c == '-' || c == '.' || c == ':' ||
                c == '@' || c == '_' || c == '%')
                return state;
            if (c == '/' && (s[i - 1] == ':' || (s[i - 1] == '/' && i >= 2 && s[i - 2] == ':')))
                return state; /* the scheme's "//" */
            return c == '/' || c == '?' || c == '#' ? LINK_PATH : LINK_NONE;
        }
        if (c == 0x3002 || c == 0xFF0E || c == 0xFF61)
            return state; /* a label separator, or the sentence's end: split_decide decides */
        return cjk_punct(c) ? LINK_NONE : LINK_IDN;
    default:
        return cjk_punct(c) && c != 0x3002 && c != 0xFF0E && c != 0xFF61 ? LINK_NONE
                                                                          : LINK_PATH;
    }
}

/* 1 when the ideographic or fullwidth full stop run [i, te) separates two labels of the
 * address's host: an ASCII letter or digit follows ("example．com"), or, in a host that
 * already has non-ASCII letters, a letter does ("例え。テスト"). In an ASCII host before a
 * CJK word ("www.example.com。次に") it is the sentence's end. */
static int link_label_dot(const split_ctx *x, size_t i, size_t te)
{
    size_t l;
    int32_t c = cp_at(x->s, x->len, i, &l);
    if ((x->link != LINK_HOST && x->link != LINK_IDN) || i + l != te || te >= x->len ||
        (c != 0x3002 && c != 0xFF0E && c != 0xFF61))
        return 0;
    int32_t d = cp_at(x->s, x->len, te, &l);
    if (d < 0x80)
        return isalnum_ascii((unsigned char)d);
    return x->link == LINK_IDN && !is_space(d) && !cjk_punct(d) && d != 0xFFFD;
}

/* 1 when te is inside a title in 《》 that closes soon: 《摔跤吧！爸爸》. Looks at most
 * WORD_MAX * 2 bytes ahead, and only when a 《 was seen in this sentence. */
static int in_title(const split_ctx *x, size_t te)
{
    size_t l;
    if (!x->title_open)
        return 0;
    for (size_t k = te; k < x->len && k - te < 2 * WORD_MAX; k += l) {
        int32_t c = cp_at(x->s, x->len, k, &l);
        if (c == 0x300B)
            return 1;
        if (c == 0x300A || c == 0x3002 || c == 0xFF01 || c == 0xFF1F)
            return 0;
    }
    return 0;
}

/* 1 when a dash follows the whitespace after te: "voila! -- you have cake". */
static int dash_after(const split_ctx *x, size_t te)
{
    size_t l, k = te;
    while (k < x->len && k - te < WORD_MAX && is_space(cp_at(x->s, x->len, k, &l)))
        k += l;
    int32_t c = k < x->len ? cp_at(x->s, x->len, k, &l) : -1;
    return c == '-' || c == 0x2013 || c == 0x2014;
}

/* 1 when the run of terminators [i, te) (closers included) ends a sentence. quoted: closers
 * follow the terminators; kinds: a bit per TERM_* seen; ndots: the full stops in it. */
static int split_decide(const split_ctx *x, size_t i, size_t te, int quoted, unsigned kinds,
                        int ndots)
{
    size_t l, ws, we;
    int dot_after, item;
    if (kinds & (1u << TERM_CJK)) {
        /* 「行こう。」と言った: a quotation goes on with a hiragana particle */
        int32_t c = te < x->len ? cp_at(x->s, x->len, te, &l) : -1;
        if (quoted && c >= 0x3041 && c <= 0x309F)
            return 0;
        if (link_label_dot(x, i, te))
            return 0; /* "https://例え。テスト/", "https://example．com" */
        return !in_title(x, te);
    }
    if (te < x->len && !is_space(cp_at(x->s, x->len, te, &l)))
        return 0; /* inside a URL, a number, a file name, an acronym: "U.S.A", "3.14" */
    int32_t c = next_word(x, te, &ws, &we, &dot_after, &item);
    if (c < 0 || item)
        return 1;
    /* a link does not go on with the sentence before it, whatever its case */
    int lower = is_lower(c) && !starts_link(x->s + ws, x->len - ws);
    if ((kinds & ((1u << TERM_MARK) | (1u << TERM_ELLIPSIS))) || ndots > 1) {
        if (!(kinds & (1u << TERM_MARK))) {
            if (i > 0 && (x->s[i - 1] == '[' || x->s[i - 1] == '('))
                return 0; /* "[...]": an omission, not an end */
            if (x->r->pronoun_i && c == 'I' &&
                (we == ws + 1 || x->s[ws + 1] == '\'' || x->s[ws + 1] == 0xE2))
                return 0; /* "the thing is . . . I didn't mean it" */
        }
        if ((kinds & (1u << TERM_MARK)) && !quoted && ndots == 0 &&
            (x->s[te - 1] == '?' || (x->s[te - 1] == '!' &&
                                     !(lower && i == te - 1 && i > x->word_start &&
                                       split_bang_name((const char *)x->s + x->word_start,
                                                       i - x->word_start)))) &&
            !dash_after(x, te))
            return 1; /* "where did you grow up? india?", "Stop! the bus is leaving": only
                         a quotation ("Go!" he said), a dash (voila! -- you have cake) or a
                         name's '!' (Yahoo! in) goes on after '?' and '!': a missed end loses
                         words in translation, a wrong one costs some fluency */
        return !lower || x->caseless; /* "...", "…": a lowercase word goes on */
    }
    /* A single full stop before a lowercase word: the end of a sentence after a word, not
     * after an abbreviation, a number, an initial or an acronym (each branch below says 0 for
     * these when low). In text without capitals the case says nothing (low is 0). */
    int low = lower && !x->caseless;
    if (low && quoted)
        return 0; /* 'This is great.' she said; (... an engineer.) at the University */
    if (low && x->link)
        return 1; /* an address is a word, whatever its digits: "at example.com/v2. then" */
    if (i - x->word_start > WORD_MAX)
        return 1;
    token t;
    token_scan(&t, x->s + x->word_start, i - x->word_start);
    if (!t.n)
        return 1;
    int kind = abbr_kind(x->r, t.s, t.n);
    for (size_t k = t.n; !kind && k-- > 0;)
        if (t.s[k] == '\'' || (t.s[k] == 0x99 && k >= 2 && t.s[k - 1] == 0x80 &&
                                t.s[k - 2] == 0xE2)) {
            kind = abbr_kind(x->r, t.s + k + 1, t.n - k - 1); /* "l'Ing.", "dell'Avv." */
            break;
        }
    int single = t.letters == 1 && !t.digits && !t.dots && !t.others;
    if (!kind && single && x->prev_end && x->prev_end - x->prev_start <= 8) {
        /* "z. B.", "d. h.": the previous token and this one as one word, "z.B" */
        token p;
        token_scan(&p, x->s + x->prev_start, x->prev_end - x->prev_start);
        if (p.letters == 1 && p.dots == 1 && !p.digits && !p.others && p.n <= 8 &&
            p.s[p.n - 1] == '.') {
            unsigned char key[16];
            memcpy(key, p.s, p.n);
            memcpy(key + p.n, t.s, t.n);
            kind = abbr_kind(x->r, key, p.n + t.n);
        }
    }
    if (kind == ABBR_TITLE || kind == ABBR_MID || (kind && x->digits_after) || (kind && low))
        return 0; /* (an abbreviation with its number: "die Nr.1 Hits") */
    if (kind == ABBR_NUM)
        return !is_digit(c);
    if (kind == ABBR_END)
        return 1; /* "etc. The", "usw. Dann" */
    int next_single = we > ws && is_letter(c) && dot_after &&
                      cp_at(x->s, x->len, ws, &l) == c && ws + l == we;
    if (single) {
        if (next_single || low)
            return 0; /* initials: "J. R. R. Tolkien", "z. B.", "Jerome K. and" */
        if (x->first_token)
            return 0; /* a list marker: "a. ", "B. " */
        if (is_upper(t.first))
            return is_starter(x->r, x->s + ws, we - ws, dot_after); /* an initial, unless ... */
        return 1;
    }
    if (x->first_token && ((t.digits && t.digits <= 3 && t.n == (size_t)t.digits) ||
                           (t.roman && t.n <= 5)))
        return 0; /* "1. ", "iv. ": a list marker */
    if (t.digits && t.n == (size_t)t.digits && t.digits <= 3 && x->r->ordinals)
        return is_starter(x->r, x->s + ws, we - ws, dot_after); /* "am 12. Juni" */
    if (word_eq(t.s, t.n, "a.m") || word_eq(t.s, t.n, "p.m"))
        return is_space(x->s[ws - 1]) && !lower; /* "at 6 p.m. Travelers": an end; before
                                                     "(CDT)" or a lowercase word, not */
    if (t.dots && t.letters && !t.digits && !t.others && t.max_seg <= 2)
        return is_starter(x->r, x->s + ws, we - ws, dot_after); /* "U.S.", "Ph.D.", "a.m." */
    if (low && t.digits)
        return 0; /* a number: "in 1990. the", "costs $5. more" */
    return 1; /* a word: "painted. three wine glasses", "...Army. Then" */
}

/* French puts a space (often a no-break one) before a closing guillemet: "« C'est fini. »".
 * Returns the end of such a guillemet after j when one follows, then whitespace or the end;
 * else j. */
static size_t french_closer(const unsigned char *s, size_t len, size_t j)
{
    size_t l, k = j;
    if (k >= len || !is_space(cp_at(s, len, k, &l)) || s[k] == '\n')
        return j;
    k += l;
    int32_t c = k < len ? cp_at(s, len, k, &l) : -1;
    if (c != 0x00BB && c != 0x203A)
        return j;
    k += l;
    if (k < len && !is_space(cp_at(s, len, k, &l)))
        return j;
    return k;
}


/* The end of the marker at s[i..), 0 when there is none. Reads at most a few bytes. */
static size_t marker_at(const unsigned char *s, size_t len, size_t i, marker *m)
{
    size_t l, k = i;
    int32_t c = cp_at(s, len, k, &l);
    memset(m, 0, sizeof *m);
    if (is_bullet(c)) {
        m->bullet = c;
        k += l;
        for (int sp = 0; sp < 3 && k < len && s[k] == ' '; sp++)
            k++;
    }
    int paren = k < len && s[k] == '(';
    k += paren;
    size_t at = k;
    while (k < len && k - at < 3 && s[k] >= '0' && s[k] <= '9')
        m->value = m->value * 10 + (s[k++] - '0');
    if (k > at) {
        m->kind = 1;
    } else if (k < len && ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z'))) {
        m->kind = s[k] >= 'a' ? 2 : 3;
        m->value = s[k++];
    }
    if (paren) {
        if (!m->kind || k >= len || s[k] != ')')
            return 0;
        m->style = 4, k++;
    } else if (m->kind) {
        if (k < len && s[k] == '.' && k + 1 < len && s[k + 1] == ')')
            m->style = 2, k += 2;
        else if (k < len && s[k] == '.')
            m->style = 1, k++;
        else if (k < len && s[k] == ')')
            m->style = 3, k++;
        else if (m->bullet) /* "• word": the bullet alone */
            k = at, m->kind = 0, m->value = 0;
        else
            return 0;
    } else if (!m->bullet) {
        return 0;
    }
    if (k >= len || !is_space(cp_at(s, len, k, &l)))
        return m->bullet && !m->kind && k > i ? k : 0;
    return k;
}

/* 1 when marker b goes on the list that marker a began: the same bullet and style, the next
 * number or letter. */
static int marker_next(const marker *a, const marker *b)
{
    return a->bullet == b->bullet && a->kind == b->kind && a->style == b->style &&
           (a->kind == 0 || b->value == a->value + 1);
}

/* A reference after a sentence's end stays with it: "martyr.[1] The", "(type 2).10 This".
 * i: the run's start, j: its end. Returns the end past the references, or j. */
static size_t footnote(const unsigned char *s, size_t len, size_t i, size_t j)
{
    size_t k = j;
    while (k + 2 < len && s[k] == '[') { /* "[7][8]" */
        size_t d = k + 1;
        while (d < len && d - k <= 3 && s[d] >= '0' && s[d] <= '9')
            d++;
        if (d == k + 1 || d >= len || s[d] != ']')
            break;
        k = d + 1;
    }
    if (k == j && i > 0 && (isalnum_ascii(s[i - 1]) || s[i - 1] == ')') &&
        !(s[i - 1] >= '0' && s[i - 1] <= '9')) { /* "word.10 ": digits right after the stop */
        while (k < len && k - j < 3 && s[k] >= '0' && s[k] <= '9')
            k++;
        if (k == j || (k < len && s[k] != ' '))
            return j;
    }
    return k;
}

/* 1 when s[0..len) has a lowercase letter and no capital. Stops at the first capital. */
static int caseless(const unsigned char *s, size_t len)
{
    size_t l;
    int lower = 0;
    for (size_t i = 0; i < len; i += l) {
        if (s[i] < 0x80) { /* the common case, without decoding */
            l = 1;
            if (s[i] >= 'A' && s[i] <= 'Z')
                return 0;
            lower |= s[i] >= 'a' && s[i] <= 'z';
            continue;
        }
        int32_t c = cp_at(s, len, i, &l);
        if (is_upper(c))
            return 0;
        lower |= is_lower(c);
    }
    return lower;
}

/* An emoticon after a sentence's end belongs to it: "Thanks! :-)". Returns the end of one
 * that follows j after a space or two and is followed by whitespace or the end; else j. */
static size_t emoticon(const unsigned char *s, size_t len, size_t j)
{
    static const char *const faces[] = {":-)", ":)", ":-(", ":(", ":-D", ":D", ";-)", ";)",
                                        ":-P", ":P", ":p", ":'(", "xD", "XD", "^^", "<3"};
    size_t k = j;
    while (k < len && k - j < 2 && s[k] == ' ')
        k++;
    if (k == j || k >= len || !strchr(":;xX^<", s[k]) || !s[k])
        return j; /* the usual answer: no face starts here */
    for (size_t f = 0; f < sizeof faces / sizeof faces[0]; f++) {
        size_t n = strlen(faces[f]);
        if (len - k >= n && memcmp(s + k, faces[f], n) == 0 &&
            (k + n == len || s[k + n] == ' ' || s[k + n] == '\t'))
            return k + n;
    }
    return j;
}

/* Appends [a, b) to the growing list. */
static int push(split_span **v, int *n, size_t *cap, size_t a, size_t b, char *err,
                size_t errlen)
{
    if ((size_t)*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        if (*n == INT_MAX)
            return xerr(err, errlen, "split_sentences: more than %d sentences", INT_MAX);
        split_span *nv = realloc(*v, nc * sizeof *nv);
        if (!nv)
            return xerr(err, errlen, "split_sentences: out of memory (%zu spans)", nc);
        *v = nv;
        *cap = nc;
    }
    (*v)[*n].start = a;
    (*v)[*n].end = b;
    (*n)++;
    return 0;
}

int split_sentences(const char *text, size_t len, const char *lang, split_span **spans, int *n,
                    char *err, size_t errlen)
{
    const unsigned char *s = (const unsigned char *)text;
    split_span *v = NULL;
    size_t cap = 0, i = 0, l, l2;
    size_t first = SIZE_MAX, last_end = 0; /* the sentence's non-space extent so far */
    size_t marker_end = 0; /* the dots before it belong to a list marker */
    int in_word = 0, count = 0, list_on = 0;
    marker lm = {0, 0, 0, 0}; /* the list's last marker, when list_on */
    split_ctx x = {s, len, split_rules_for(lang), 0, 0, 0, 0, 0, 0, 0, LINK_NONE};
    *spans = NULL;
    *n = 0;
    x.caseless = caseless(s, len);
    while (i < len) {
        int32_t c = s[i] < 0x80 ? (l = 1, (int32_t)s[i]) : cp_at(s, len, i, &l);
        if (is_space(c)) {
            if (in_word) {
                x.prev_start = x.word_start;
                x.prev_end = i;
                in_word = 0;
            }
            x.link = LINK_NONE;
            i += l;
            continue;
        }
        if (!in_word) {
            marker m;
            size_t me;
            if (first == SIZE_MAX && (me = marker_at(s, len, i, &m))) {
                list_on = 1; /* a sentence starts with a marker: later ones start items */
                lm = m;
                marker_end = me;
            } else if (list_on && first != SIZE_MAX && (me = marker_at(s, len, i, &m)) &&
                       marker_next(&lm, &m) &&
                       !(x.r->ordinals && m.kind == 1 && m.style == 1 && !m.bullet)) {
                /* (German "1. Januar ..., der 2. Februar" are dates, not items) */
                if (push(&v, &count, &cap, first, last_end, err, errlen)) {
                    free(v);
                    return -1;
                }
                first = SIZE_MAX;
                x.prev_end = 0;
                lm = m;
                marker_end = me;
            }
            x.word_start = i;
            in_word = 1;
        }
        if (first == SIZE_MAX)
            first = i;
        x.link = link_step(&x, x.link, c, i);
        int tk = c < 0x80 && c != '.' && c != '!' && c != '?' && c != ';' && c != ':'
                     ? TERM_NONE
                     : term_kind(c, x.r);
        if (c == 0xFF0E && i > 0 && i + l < len && fw_digit(cp_at(s, len, i + l, &l2)))
            tk = TERM_NONE; /* "３．２９": a decimal point */
        if (!tk) {
            if (c == 0x300A || c == 0x300B)
                x.title_open = c == 0x300A;
            i += l;
            last_end = i;
            continue;
        }
        /* the run: terminators, ". . ." spaced dots, then closers */
        size_t j = i;
        unsigned kinds = 0;
        int ndots = 0, only_dots = 1;
        while (j < len) {
            int32_t d = cp_at(s, len, j, &l);
            int k = term_kind(d, x.r);
            if (k) {
                kinds |= 1u << k;
                ndots += k == TERM_DOT;
                only_dots &= k == TERM_DOT;
                j += l;
            } else if (only_dots && d == ' ' && j + 1 < len && s[j + 1] == '.' &&
                       j > i && s[j - 1] == '.' && (j + 2 >= len || !isalnum_ascii(s[j + 2]))) {
                j++; /* ". . .", ". . . .\"" */
            } else {
                break;
            }
        }
        size_t closed = j;
        while (j < len && is_closer(cp_at(s, len, j, &l)))
            j += l;
        j = french_closer(s, len, j);
        size_t refs = j;
        j = footnote(s, len, i, j);
        x.digits_after = j > refs && s[refs] != '[';
        j = emoticon(s, len, j);
        x.first_token = x.word_start == first;
        last_end = j;
        if (i >= marker_end && split_decide(&x, i, j, closed < j, kinds, ndots)) {
            if (push(&v, &count, &cap, first, j, err, errlen)) {
                free(v);
                return -1;
            }
            first = SIZE_MAX;
            in_word = 0;
            x.prev_end = 0;
            x.link = LINK_NONE;
        }
        i = j;
    }
    if (first != SIZE_MAX && push(&v, &count, &cap, first, last_end, err, errlen)) {
        free(v);
        return -1;
    }
    *spans = v;
    *n = count;
    return 0;
}

int split_lang_no_spaces(const char *lang) { return split_code_no_spaces(lang); }

int split_lang_known(const char *lang) { return split_rules_for(lang)->known; }
