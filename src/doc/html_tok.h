/* html_tok.h — the HTML tokenizer (internal to html.c): the WHATWG tokenizer's states where
 * they decide where a token ends (data, tag, attribute names and values in their three
 * quotings, comments with their abrupt and "--!>" ends, doctype, bogus comments, CDATA in
 * foreign content, RCDATA, RAWTEXT, script data with its escaped and double-escaped states,
 * PLAINTEXT), and character references. It never copies the document: a token is byte ranges
 * of the source. Nothing is dropped: a tag cut by the end of the input comes back as a token
 * with `unclosed` set, so every byte of the input is in exactly one token.
 *
 * The tree builder (html.c) switches the content model after a start tag (ht_set_mode), as
 * the HTML tree construction stage does. */
#ifndef XLATE_DOC_HTML_TOK_H
#define XLATE_DOC_HTML_TOK_H
#include <stddef.h>

enum {
    HT_EOF,
    HT_TEXT,    /* character data (raw text included) */
    HT_START,   /* a start tag */
    HT_END,     /* an end tag */
    HT_COMMENT, /* <!-- -->, a bogus comment (<? ?>, <!x>, </1>), CDATA outside foreign content */
    HT_DOCTYPE,
    HT_CDATA,   /* <![CDATA[ ]]> in foreign content (svg, math) */
    HT_IGNORED  /* bytes a browser drops: "</>", a tag cut by the end of the input */
};

/* Content models (the tokenizer state a text run starts in). */
enum { HT_DATA, HT_RCDATA, HT_RAWTEXT, HT_SCRIPT, HT_PLAINTEXT };

typedef struct {
    size_t name, name_len; /* the name's bytes in the source (as written: any case) */
    size_t val, val_len;   /* the value's bytes, quotes excluded (undecoded) */
    int quote;             /* '"', '\'', 0 unquoted, -1 no value */
} ht_attr;

#define HT_NAME_MAX 31

typedef struct {
    int kind;
    size_t start, end;         /* the token's bytes [start, end) in the source */
    char name[HT_NAME_MAX + 1]; /* tags: the name lowercased (ASCII), NUL-terminated; a longer
                                  name is cut and `long_name` set (it matches no known tag) */
    int long_name;
    int self_closing;
    int unclosed;              /* a comment, CDATA or raw text that ran to the end of input */
    const ht_attr *attrs;      /* [n_attrs] owned by the tokenizer: valid until the next call */
    int n_attrs;
} ht_token;

typedef struct {
    const char *s;
    size_t n, pos;
    int mode;                  /* the content model of the next text (HT_DATA ...) */
    char end_name[HT_NAME_MAX + 1]; /* RCDATA/RAWTEXT/SCRIPT: the element whose end tag ends it */
    size_t end_len;
    int cdata_ok;              /* set by the tree builder inside svg/math */
    ht_attr *attrs;            /* [cap_attrs] reused for every tag */
    int cap_attrs;
} ht_tok;

void ht_init(ht_tok *t, const char *s, size_t n);
void ht_free(ht_tok *t);
/* The next token into *k: 1, or 0 at the end of input, or -1 when out of memory. */
int ht_next(ht_tok *t, ht_token *k);
/* The content model of what follows the start tag just returned (name: the element). */
void ht_set_mode(ht_tok *t, int mode, const char *name);

/* Where the text of content model mode (HT_RCDATA, HT_RAWTEXT, HT_SCRIPT) starting at s[from]
 * ends: the offset of the "</name" that ends it (an appropriate end tag: name in any case,
 * then whitespace, '/' or '>'), or n when none does. */
size_t ht_raw_end(const char *s, size_t n, size_t from, int mode, const char *name,
                  size_t name_len);

/* A character reference at s[0] == '&' (s[0..n)): the number of bytes it takes, 0 when it is
 * none (the '&' is a character), and its one or two code points in cp, their count in *ncp.
 * in_attr: in an attribute value, where a legacy name without ';' followed by '=' or an
 * alphanumeric is not a reference. Numeric references get the standard's replacements
 * (0, surrogates and > U+10FFFF: U+FFFD; 0x80-0x9F: windows-1252). */
size_t ht_charref(const char *s, size_t n, int in_attr, unsigned cp[2], int *ncp);

/* The named references (html_entities.c, generated). */
typedef struct {
    const char *name; /* with its ';' (or without, for the legacy names) */
    unsigned cp1, cp2; /* cp2 0: one code point */
} ht_entity;
extern const ht_entity ht_entities[];
extern const int ht_n_entities;

/* Appends to out the UTF-8 of code point c (< 0x110000); returns its length (1-4). */
int ht_utf8(unsigned c, char *out);
/* The length of the valid UTF-8 sequence at s[0..n), 0 when invalid (overlong, surrogate,
 * > U+10FFFF, truncated). */
int ht_utf8_len(const unsigned char *s, size_t n);

#endif
