/* formats.h — the document formats xlate reads and writes, in one table (formats.c), and the one
 * call that translates a document of any of them: the command line's --format (cli_doc.c) and
 * the server's /translate and /translate_file (through xlate_queue.c) both go through it, so a
 * format exists in both at once.
 *
 * A format is one of two kinds:
 * - text: the document is one UTF-8 text (HTML, Markdown, SRT, WebVTT, gettext PO); `parse`
 *   builds a doc over it (doc.h), doc_translate translates every unit, `finish` (may be NULL)
 *   sets what the target language changes (html lang, a PO header) or moves what the alignment
 *   placed (a subtitle's cue breaks), doc_write writes it back;
 * - package: the document is a zip (docx, pptx, odt, odp, epub: pkg.h). `plan` says which of
 *   its members hold text and through which builder each is read; every other member is copied
 *   with the same bytes. Each text member is then a text document of its own, parsed,
 *   translated, finished and written one after the other, so memory is bounded by the largest
 *   member, not by the package.
 *
 * Threads: the table is constant; doc_format_translate may run on several threads at once,
 * each with its own context. */
#ifndef XLATE_DOC_FORMATS_H
#define XLATE_DOC_FORMATS_H
#include "doc/doc.h"
#include "xlate.h"
#include <stddef.h>

/* What the caller asks of a document beyond the translation's params. */
typedef struct {
    const char *target_lang; /* the code the text is translated into, "de": the params'
                                target_lang, else the model's config.json target_lang; NULL
                                when neither says */
    const char *source_lang; /* the same for the source, or NULL */
    int retranslate;         /* PO: entries already translated are translated again (their
                                msgstr replaced); 0: kept as they are */
    int no_fuzzy;            /* PO: machine translations are not marked fuzzy */
    const void *pkg_user;    /* (set by pkg.c for a package's builders: the plan's user data,
                                what the plan read of other members; the caller's is ignored) */
} doc_opts;

struct pkg_in;   /* pkg.h */
struct pkg_plan; /* pkg.h */

typedef struct doc_format {
    int id;           /* XLATE_FORMAT_* */
    const char *name; /* --format NAME; LibreTranslate's name of it where it has one */
    const char *exts; /* the file name extensions that mean it, lower case, each with its dot
                         and a space after it: ".html .htm " */
    const char *mime; /* the download's Content-Type */
    int package;      /* 1: a zip package (plan); 0: one UTF-8 text (parse) */
    /* text: builds the doc over d->src. Returns 0, or -1 with a message naming the line. */
    int (*parse)(doc *d, const doc_opts *o, char *err, size_t errlen);
    /* text and a package's text members (may be NULL): after translation, before writing. */
    int (*finish)(doc *d, const doc_opts *o, char *err, size_t errlen);
    /* package: fills the plan for the opened package (pkg.h). Returns 0, or -1 with a
     * message naming the member. */
    int (*plan)(struct pkg_in *in, struct pkg_plan *plan, char *err, size_t errlen);
} doc_format;

/* The format named NAME (--format), or NULL. */
const doc_format *doc_format_named(const char *name);
/* The format of XLATE_FORMAT_* id, or NULL. */
const doc_format *doc_format_of(int id);
/* The format a file name says by its extension (case-insensitive), or NULL. */
const doc_format *doc_format_for_name(const char *filename);
/* The package format a zip's content says (its mimetype member, [Content_Types].xml's main
 * part), for a file whose extension says nothing; NULL when it is no zip of a known format. */
const doc_format *doc_format_sniff(const char *s, size_t len);
/* The formats, in the table's order, for lists (--help, /frontend/settings): i from 0 until
 * NULL. */
const doc_format *doc_format_at(int i);

/* What a document's translation found, for the caller to print. */
typedef struct {
    int units;             /* text units, all members read so far (set before each one's
                              translation, so that a progress callback sees it) */
    int units_done;        /* of them, in members translated to the end */
    long sentences;        /* sentences translated */
    long truncated;        /* sentences cut at the model's input length */
    int members;           /* package: members translated */
    int plain_joined;      /* HTML or Markdown with no markup at all and fewer units than
                              non-blank lines: plain text given as a document (cli_doc warns) */
    char warnings[8][320]; /* the first warnings, each naming its member and line */
    int n_warnings;        /* all of them */
    double parse_seconds, translate_seconds;
} doc_report;

/* Translates the document src[0..len) of format f with the params, writing the result through
 * write (0: go on; non-zero stops, and the call returns XLATE_ERR with "cannot write"). name is
 * the document's name in messages ("report.docx", "<stdin>"). rep may be NULL. src must have a
 * NUL byte at src[len] (a text format's parser reads to it). Returns 0, or an XLATE_ERR* code
 * with one line in err naming the file and the member or line: XLATE_ERR_DOC for a document
 * that cannot be read as the format (a damaged zip, bad XML, invalid UTF-8, a PO syntax error).
 * ctx NULL (p not read): nothing is translated, each unit written as its own text (a round
 * trip through the format's reader and writer: the fuzz target's). */
int doc_format_translate(xlate_ctx *ctx, const xlate_lines_params *p, const doc_opts *o,
                         const doc_format *f, const char *src, size_t len, const char *name,
                         int (*write)(void *user, const char *s, size_t len), void *user,
                         doc_report *rep, char *err, size_t errlen);

/* Adds a warning to the report ("NAME: MEMBER: line N: ..." as the caller formats it). */
void doc_report_warn(doc_report *rep, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The formats' builders and finishers (each in its own file). */
int srt_parse(doc *d, const doc_opts *o, char *err, size_t errlen);   /* subtitle.c */
int vtt_parse(doc *d, const doc_opts *o, char *err, size_t errlen);
int subtitle_finish(doc *d, const doc_opts *o, char *err, size_t errlen);
int po_parse(doc *d, const doc_opts *o, char *err, size_t errlen);    /* po.c */
int po_finish(doc *d, const doc_opts *o, char *err, size_t errlen);

#endif
