/* html_tags.h — the HTML elements xlate knows (internal to html.c): what each does to text
 * units, as a table of flags (html_tags.c). */
#ifndef XLATE_DOC_HTML_TAGS_H
#define XLATE_DOC_HTML_TAGS_H

enum {
    F_INLINE = 1 << 0,   /* inside a unit: moves with its words */
    F_VOID = 1 << 1,     /* no content, no end tag */
    F_KEEP = 1 << 2,     /* its content is kept byte for byte */
    F_CLOSEP = 1 << 3,   /* its start tag ends an open p */
    F_BARRIER = 1 << 4,  /* a scope boundary (table, td, th, caption, html, ...) */
    F_RAW = 1 << 5,      /* RAWTEXT content */
    F_RCDATA = 1 << 6,   /* RCDATA content */
    F_OPAQUE = 1 << 7,   /* inside a unit: a group moved whole and not read by the model */
    F_BREAKOUT = 1 << 8, /* its start tag ends svg/math (foreign content) */
    F_HEADING = 1 << 9
};

/* Ids: a known element's index in the table, [0, HTML_N_TAGS); an unknown name's
 * HTML_N_TAGS + a hash of it, [HTML_N_TAGS, HTML_N_TAGS + HTML_N_BUCKETS). */
#define HTML_N_TAGS 118
#define HTML_N_BUCKETS 1024

/* The id of a tag name (lowercased; long_name: cut at HT_NAME_MAX, so unknown). */
int html_tag_id(const char *name, int long_name);
/* F_* of an id (0 for unknown names); its name ("" for unknown ones). */
int html_tag_flags(int id);
const char *html_tag_name(int id);
/* 1 for a formatting element (a, b, big, code, em, font, i, nobr, s, small, strike, strong,
 * tt, u: the ones a browser opens again after a block closed them). */
int html_tag_formatting(int id);

#endif
