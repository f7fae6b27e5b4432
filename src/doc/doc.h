/* doc.h — a document with markup (HTML, Markdown) as the translator sees it: the document's
 * bytes cut into parts, each either kept as it is (markup, code, whitespace) or a unit of text
 * to translate. A unit is one line of plain text (markup removed, character references
 * decoded, whitespace runs and line breaks made single spaces) with its inline elements as
 * ranges over that text, each element with the markup written before and after its content.
 *
 * A format parses its syntax into a doc (html.c, markdown.c) and says how a unit's text is
 * escaped when written back; doc.c translates every unit in one run of xlate_translate_lines
 * (all units sentence-split, sorted and batched together), carries each unit's elements over
 * to its translation by the alignment (transfer.h), and writes the document back. So a format
 * knows nothing of models, and the translation of a unit is exactly the translation of its
 * plain text as a line: markup never changes a translation.
 *
 * Memory: the doc holds the source (not owned: it must outlive the doc), the parts (pointers
 * into the source or into the doc's own copies) and the units' texts: linear in the document,
 * whatever the depth of its markup. */
#ifndef XLATE_DOC_DOC_H
#define XLATE_DOC_DOC_H
#include "doc/transfer.h"
#include "xlate.h"
#include <stddef.h>

typedef enum {
    DOC_ESC_NONE,      /* written as it is */
    DOC_ESC_HTML,      /* text content: & < > escaped, U+00A0 as &nbsp; */
    DOC_ESC_HTML_ATTR, /* a double-quoted attribute value: & " escaped, U+00A0 as &nbsp; */
    DOC_ESC_MARKDOWN,  /* inline text: what would start Markdown markup where it stands in the
                          output is backslash-escaped (doc_markdown_escape) */
    DOC_ESC_XML,       /* XML character data: & < > escaped, nothing else (XHTML, OOXML, ODF:
                          no named entity but XML's five is defined there) */
    DOC_ESC_XML_ATTR,  /* a double-quoted XML attribute value: & < " escaped, and tab, LF and
                          CR as character references (attribute-value normalization would turn
                          them into spaces) */
    DOC_ESC_C          /* inside a C-style double-quoted string (a PO msgstr): \ " escaped,
                          tab, LF, CR as \t \n \r, other control bytes as octal escapes */
} doc_escape;

/* Writes Markdown inline text s[0..len) escaped so that it makes no markup (md_escape.c has
 * the rules): a character that would start markup where it stands gets a backslash or becomes
 * a character reference. at_start: s begins a line (the unit's start, or right after markup
 * that ended a line, such as a hard break's). Returns what write returned (0: go on). */
int doc_markdown_escape(const char *s, size_t len, int at_start,
                        int (*write)(void *user, const char *s, size_t len), void *user);

/* Writes s[0..len) escaped as esc says (Markdown as not at a line start). Returns what write
 * returned (0: go on). */
int doc_escape_write(doc_escape esc, const char *s, size_t len,
                     int (*write)(void *user, const char *s, size_t len), void *user);

/* text[start, end) of a Markdown unit, written untranslated: ref 1, as numeric character
 * references (it was a reference in the source); ref 0, as it is (a raw U+00A0, which the
 * escaping otherwise writes as &nbsp;). Set where the spelling decides markup: CommonMark's
 * flanking rules read a delimiter run's neighbours as written, so "&AElig;*-*" is Æ + an
 * emphasis (";" before the "*" is punctuation) and "Æ*-*" is text (a letter before it). A
 * translation has its own words and no spellings. */
typedef struct {
    size_t start, end;
    int ref;
} doc_spelling;

/* A piece of output: bytes kept, or a unit's translation. */
typedef struct {
    int unit;      /* -1: the bytes s[0..len); else the translation of units[unit] (with its
                      elements, escaped as the unit says) */
    const char *s; /* into the source document or the doc's own copies (doc_copy) */
    size_t len;
} doc_part;

/* An inline element's markup; parts index doc.mark_parts. */
typedef struct {
    int open, n_open;   /* written before the element's content: a start tag, "**", "[" */
    int close, n_close; /* after it: "</a>", "](http://x)"; a void element (br, img) has an
                           empty range and its whole markup in open */
    int n_keep, keep;   /* n_keep > 0: the element's content is written as these parts, not as
                           the translation's words in its target range (inline code,
                           translate="no"): the model still reads the words, so the sentence
                           is translated whole, and the element lands where they went */
    int wrap;           /* 1: text directly inside the element is written in the unit's wrap
                           (an OOXML hyperlink holds runs, not text) */
    int drop_empty;     /* 1: not written when the translation left it no words (an OOXML
                           run: formatting around nothing) */
} doc_mark;

typedef struct {
    char *text;         /* the line the model reads: no newline, valid UTF-8 (owned) */
    size_t len;
    int cap_text;       /* (builder) */
    doc_range *ranges;  /* [n_ranges] the inline elements over text, in document order, a
                           parent before its children (transfer.h); after doc_translate, over
                           the translation */
    doc_mark *marks;    /* [n_ranges] each element's markup */
    int n_ranges, cap_ranges;
    doc_escape escape;
    long line;          /* the document line the unit starts on, from 1 (messages) */
    char *out;          /* after doc_translate: the translation (owned; NULL: not translated,
                           the unit is written as its own text) */
    size_t out_len;
    doc_spelling *spell; /* [n_spell] (Markdown) parts of text spelled as in the source when
                            the unit is written untranslated, in order (doc_unit_spell) */
    int n_spell, cap_spell;
    int wrap_open, n_wrap_open;   /* mark_parts written before and after each piece of text
                                     that stands outside every element or directly inside a */
    int keep_edges;               /* a space the text begins or ends with, its translation
                                     begins or ends with too (OOXML) */
    int wrap_close, n_wrap_close; /* wrap element (OOXML: "<w:r><w:rPr>..</w:rPr><w:t>" and
                                     "</w:t></w:r>", a paragraph holds runs, not text); none:
                                     text is written as it is */
} doc_unit;

typedef struct {
    const char *src;     /* the document (not owned) */
    size_t src_len;
    doc_part *parts;     /* [n_parts] the document, in order */
    int n_parts, cap_parts;
    doc_part *mark_parts; /* [n_mark_parts] what doc_mark indexes */
    int n_mark_parts, cap_mark_parts;
    doc_unit *units;     /* [n_units] */
    int n_units, cap_units;
    char **copies;       /* bytes the doc owns (doc_copy), freed with it */
    int n_copies, cap_copies;
    char warnings[8][256]; /* the first warnings (malformed markup passed through) */
    int n_warnings;      /* all of them (more than 8: the rest only counted) */
    int lang_part;       /* HTML: the part that is the html element's lang value, a copy the
                            caller may point at the target language; -1: none */
    void *format_data;   /* what a format's parser keeps for its finish (PO: each unit's
                            flags); freed by format_free in doc_free */
    void (*format_free)(void *format_data);
} doc;

/* Grows the array *p (elements of sz bytes, capacity *cap) to hold n, doubling from 16, at
 * most 2^30 elements: the formats' and the doc's own growing arrays. Returns 0 or -1 (out of
 * memory, or n past the bound). */
int doc_grow(void *p, int *cap, int n, size_t sz);

/* Builders, for the formats. Each returns 0, or -1 (out of memory) with a message in err. */
void doc_init(doc *d, const char *src, size_t len);
void doc_free(doc *d);
/* A copy of s[0..len) owned by the doc (NUL-terminated); NULL when out of memory. */
char *doc_copy(doc *d, const char *s, size_t len);
/* Appends kept bytes to the document (joined to the previous part when they follow it in
 * memory). */
int doc_keep(doc *d, const char *s, size_t len, char *err, size_t errlen);
/* A new empty unit; its index in *unit. It is written where doc_put_unit puts it: in the
 * document, or in an element's markup (a translated attribute inside a start tag). */
int doc_new_unit(doc *d, doc_escape esc, long line, int *unit, char *err, size_t errlen);
int doc_put_unit(doc *d, int unit, char *err, size_t errlen);
/* Appends text to a unit (the caller has decoded and collapsed it). */
int doc_unit_text(doc *d, int unit, const char *s, size_t len, char *err, size_t errlen);
/* Records text[start, end) of the unit as spelled in the source (doc_spelling): after every
 * earlier one. */
int doc_unit_spell(doc *d, int unit, size_t start, size_t end, int ref, char *err,
                   size_t errlen);
/* Starts an inline element at the unit's current end, inside the innermost open one (parent);
 * its index in *elem. Its markup parts are added with doc_mark_part(.., which, ..) and its end
 * is set by doc_end_elem (a void element: doc_end_elem right away). */
int doc_begin_elem(doc *d, int unit, int parent, int *elem, char *err, size_t errlen);
void doc_end_elem(doc *d, int unit, int elem);
enum { DOC_OPEN, DOC_CLOSE, DOC_KEEP, DOC_WRAP_OPEN, DOC_WRAP_CLOSE };
/* Appends a part to element elem's open, close or keep markup: bytes (unit -1) or a unit
 * (which must be one with no elements of its own); DOC_WRAP_OPEN / _CLOSE (elem ignored): to
 * the unit's wrap. An element's parts of one kind must be
 * appended together, without another element's in between. */
int doc_mark_part(doc *d, int unit, int elem, int which, int part_unit, const char *s,
                  size_t len, char *err, size_t errlen);
/* Records a warning "line N: message" (the first 8 kept, all counted). */
void doc_warn(doc *d, long line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The length of the URL or e-mail address starting at s[i] (https://, http://, ftp://,
 * mailto:, www., local@domain.tld after a non-word character; trailing punctuation and an
 * unbalanced ')' left out, as GitHub's autolinks), or 0 (doc_urls.c). */
size_t doc_url_at(const char *s, size_t len, size_t i);
/* Makes the URLs and e-mail addresses in a unit's text (HTML and Markdown text units, a plain
 * text line's unit: not an attribute's) kept
 * elements: written as their own text, escaped as the unit's, where the translation copied
 * them or else beside the words they were aligned to (transfer.h), never translated. One that
 * an element crosses, or inside a keep element, stays text. doc_translate calls it on every
 * unit. Returns 0 or -1 (out of memory). */
int doc_mark_urls(doc *d, int unit, char *err, size_t errlen);

/* Moves the edges of a translated Markdown unit's emphasis and hard breaks where CommonMark
 * reads them as in the source (md_place.c): flanking runs, no nested emphasis on its parent's
 * two ends with the same character, hard breaks with text on both sides. After doc_transfer. */
void md_place(const doc *d, doc_unit *u);

/* UTF-16 documents (doc_utf16.c): doc_utf16_bom says 1 (FF FE, little-endian), 2 (FE FF) or
 * 0; doc_utf16_decode gives the whole document, BOM included, as UTF-8 (malloc'd, *out_len
 * bytes; NULL when out of memory): lone surrogates and an odd last byte as U+FFFD. */
int doc_utf16_bom(const char *s, size_t len);
char *doc_utf16_decode(const char *s, size_t len, size_t *out_len);
/* When d->src is UTF-16 by its BOM: d->src made its UTF-8 decoding (owned by the doc), with a
 * warning, as a browser decodes it before parsing. Returns 0, or -1 (out of memory). */
int doc_utf16_src(doc *d, char *err, size_t errlen);

/* Translates every unit with text (xlate_translate_lines: the params as given, with
 * alignments on where a unit has elements), and moves each unit's elements onto its
 * translation. stats may be NULL. Returns 0 or an XLATE_ERR* code with a message. */
int doc_translate(xlate_ctx *ctx, const xlate_lines_params *p, doc *d, xlate_lines_stats *stats,
                  char *err, size_t errlen);

/* Moves unit's elements onto its translation u->out (set by the caller: hypothesis h of t as
 * xlate_translation_text joins it), by the alignment of each of t's sentences (decode
 * alignments on, src_spans set): kept elements by transfer.h's doc_transfer_kept, then in
 * Markdown the emphasis placed (md_place). doc_translate calls it with h 0. Returns 0, or -1
 * with a message. */
int doc_move_elements(const xlate_model *m, doc *d, int unit, const xlate_translation *t, int h,
                      char *err, size_t errlen);

/* Plain text (line mode, doc_line.c): hypothesis h of line t as text, the URLs and e-mail
 * addresses of the line's text kept byte for byte as a document's are (doc_mark_urls over a
 * one-unit document of the line, written as it is). Where the line has none, or t carries no
 * alignments, exactly xlate_translation_text. *text is malloc'd. Returns 0, or -1 with a
 * message. */
int doc_line_text(const xlate_model *m, const xlate_translation *t, int h, char **text,
                  char *err, size_t errlen);

/* The words of a text with markup, for the language detector (`--from auto` on a document,
 * `xlate serve`'s source "auto" on HTML): each byte of a tag (<...>) or character reference
 * (&...;) a space, the rest as it is, into out (n bytes; out may be s). Returns n. */
size_t doc_markup_spaces(const char *s, size_t n, char *out);

/* Writes the document: kept parts as they are, units as their translations (or their own
 * text when not translated) with their elements' markup around the words, escaped as the unit
 * says. write returns 0, or non-zero to stop (doc_write returns -1 then). */
int doc_write(const doc *d, int (*write)(void *user, const char *s, size_t len), void *user);

#endif
