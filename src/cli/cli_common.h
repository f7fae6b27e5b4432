/* cli_common.h — what the subcommands share: finding the default model, reading lines,
 * checked writing, number options, warnings on stderr. */
#ifndef XLATE_CLI_COMMON_H
#define XLATE_CLI_COMMON_H
#include <limits.h>
#include <stddef.h>
#include <stdio.h>

/* Where the model is: -m DIR, else $XLATE_MODEL, else models/en-de beside the executable, else
 * ../share/xlate/models/en-de beside it, else the installed share directory. A bare name that
 * is no existing path (-m en-de-docs) is looked up in the same three models/ directories.
 * Writes the choice to out (size n); returns 0, or -1 with a message naming where it looked. */
int find_model_dir(const char *opt, char *out, size_t n, char *err, size_t errlen);
/* The same, where opt (or XLATE_MODEL) that is no existing path but a hub name
 * (ORG/NAME[@REVISION], hub_is_name) is the snapshot dir in the hub's cache, pulled first when
 * not there (a note on stderr unless quiet; an error naming `xlate pull` when HF_HUB_OFFLINE).
 * find_model_dir is this with quiet 0. Returns 0; -1 (exit status 2) with err; or, when a pull
 * failed, its exit status (2, 4 the cache cannot be written, 130 interrupted) with err. */
int find_model_dir_quiet(const char *opt, int quiet, char *out, size_t n, char *err,
                         size_t errlen);

/* The models/ directories the models shipped with xlate lie in, most local first: models/
 * beside the executable, ../share/xlate/models beside it, the configured share directory.
 * Fills bases (CLI_SHIPPED_BASES of PATH_MAX bytes); returns how many. */
#define CLI_SHIPPED_BASES 3
int cli_shipped_bases(char bases[][PATH_MAX]);

#define CLI_QUOTED_PATH 820 /* 200 bytes escaped as \xNN, "..." and the NUL */

/* Lines from a file descriptor, or from a list of strings (positional arguments). The reader
 * keeps one buffer of at most max_line + 1 bytes: a longer line is cut there (its rest is read
 * and dropped, `cut` tells), so no input needs more memory than that. */
typedef struct {
    int fd;              /* -1 when reading texts */
    const char *name;    /* "stdin", the file name, or "argument" */
    char *const *texts;
    int n_texts, next_text;
    char *buf;           /* [cap]; unread bytes are buf[start, end) */
    size_t cap, start, end;
    size_t max_line;     /* longest line kept, in bytes */
    long line;           /* lines returned so far; the current line's number */
    long long offset;    /* bytes consumed, line ends included */
    int eof;             /* read() said end of file */
    int regular;         /* fd is a regular file (never blocks) */
    long long size;      /* its size when regular, else 0 */
    int skip;            /* dropping the rest of a cut line */
    int cut;             /* the line just returned was longer than max_line and was cut */
    int close;           /* 1 when fd is ours to close */
    char name_q[CLI_QUOTED_PATH]; /* the file name as messages show it (cli_quote_path) */
    char note[CLI_QUOTED_PATH + 80]; /* a FIFO's "waiting for a writer" (reader_open) */
} line_reader;

#define READER_MAX_LINE ((size_t)1 << 20)

/* Opens path ("-" or NULL: stdin). Returns 0, or -1 with a message. */
int reader_open(line_reader *r, const char *path, char *err, size_t errlen);
void reader_texts(line_reader *r, char *const *texts, int n);
/* Next line without its "\n" or "\r\n" (the last line may lack it), NUL-terminated (it may
 * hold NUL bytes too: use len); *line stays valid until the next call. Returns 1, 0 at the
 * end, -1 on a read error (message in err). */
int reader_next(line_reader *r, char **line, size_t *len, char *err, size_t errlen);
/* 1 when reader_next would not block: a whole line (or the end) is buffered or arrives now
 * (it reads what is there without waiting), or the input is a regular file; 0 when the other
 * end is quiet or has sent half a line. */
int reader_ready(line_reader *r);
/* "stdin: line 5", "news.en: line 5" or "argument 2" for a line number. */
void reader_where(const line_reader *r, long line, char *out, size_t n);
void reader_close(line_reader *r);

/* Paragraphs of hard-wrapped text (--paragraphs): the lines up to a blank line, joined by one
 * space (each line's own leading and trailing whitespace dropped); each blank line comes back
 * as an empty line of its own, so a text's blank lines are kept. A paragraph is cut, with
 * `cut` set, where it would pass the reader's max_line bytes (memory stays bounded): its rest,
 * up to the next blank line, is dropped, as the rest of a line too long is without
 * --paragraphs, so one paragraph is always one output line (issue 37). Blank: whitespace
 * only, Unicode's (U+00A0, U+3000...) as the splitter's. */
typedef struct {
    line_reader *in;
    char *buf;            /* [cap] the paragraph being joined */
    size_t len, cap;
    long first_line;      /* the returned paragraph's first line number */
    int cut;              /* it was cut at max_line, or one of its lines was */
    int blank;            /* a blank line ended the last paragraph and is still to come */
} para_reader;

/* Returns 1 with the paragraph (or empty line) in *text / *len (valid until the next call),
 * 0 at the end, -1 with a message. */
int para_next(para_reader *p, char **text, size_t *len, char *err, size_t errlen);
/* 1 when para_next would not block: a blank line is pending, or the reader is ready. */
int para_ready(para_reader *p);
void para_free(para_reader *p);

/* Output with every write checked. On the first failure `failed` is set and errno_ kept; a
 * broken pipe (the reader went away) is remembered as such so the caller can stop quietly. */
typedef struct {
    FILE *f;
    const char *name;     /* "stdout", or name_q */
    int failed;
    int errno_;
    int close;
    char name_q[CLI_QUOTED_PATH]; /* the file name as messages show it (cli_quote_path) */
} writer;

int writer_open(writer *w, const char *path, char *err, size_t errlen);
void writer_put(writer *w, const char *s, size_t n);
void writer_puts(writer *w, const char *s);
void writer_flush(writer *w);
/* 1 when the output is a pipe whose reader has gone (also marks the writer failed with
 * EPIPE), so that work for nobody can stop before it is done. */
int writer_gone(writer *w);
/* Flushes and closes; -o FILE's temporary file is renamed over FILE, or removed when a write
 * failed (cli_outfile.h). Returns 0, or -1 (see w->failed / w->errno_). */
int writer_close(writer *w);
/* Closes after a failed run: -o FILE's temporary file is removed, FILE stays as it was
 * (stdout: as writer_close). */
void writer_discard(writer *w);
/* "cannot write to NAME: reason" into err; returns the exit status (quiet on EPIPE). */
int writer_error(const writer *w, int quiet_epipe);

/* Parses a whole decimal integer option in [lo, hi]; message names the option. */
/* out = s[0, n) for a message, in double quotes' stead: printable ASCII as it is, '"' and '\\'
 * escaped, every other byte (NUL, VT, FF, DEL, non-ASCII) as \xHH, so a field shows whole on
 * one line and cannot drive the terminal; the first 40 bytes, then "...". Returns out. */
const char *cli_quote(char *out, size_t outlen, const char *s, size_t n);
/* A duration as "1:02:03" or "2:03" (progress lines). */
void cli_hms(double s, char *out, size_t n);
/* fflush(stdout); on failure "cannot write to stdout" on stderr (not for a closed pipe) and -1,
 * else 0 (the listing commands' last step). */
int cli_flush_stdout(void);
/* A file or directory name for a message: cli_quote's escaping, cut after 200 bytes (out:
 * CLI_QUOTED_PATH bytes). A name given on the command line is a value like any other: a
 * newline in it must not forge a line of stderr, nor an escape drive the terminal. */
const char *cli_quote_path(char *out, const char *path);
int parse_int_opt(const char *opt, const char *s, long lo, long hi, long *out, char *err,
                  size_t errlen);
int parse_float_opt(const char *opt, const char *s, double lo, double hi, double *out,
                    char *err, size_t errlen);

/* Length of the valid UTF-8 sequence at s[0..n) (RFC 3629: no overlongs, no surrogates, at
 * most U+10FFFF), or 0 (n >= 1). */
size_t utf8_seq(const unsigned char *s, size_t n);

/* Prints "xlate: warning: msg" on stderr (a warn_fn; user = int *quiet). */
void warn_stderr(void *quiet, const char *msg);
/* Prints "PREFIX: ERR" for a model (or tokenizer) that did not load, and returns the exit
 * status: XLATE_EXIT_INTERNAL (5) when memory, not the model, was missing ("out of memory",
 * ENOMEM's text: a failed mmap), with the address-space limit when there is one; else
 * XLATE_EXIT_MODEL (2). Every command that loads a model ends so (issue 27: info, encode and
 * decode said 2 for memory). */
int cli_load_failed(const char *prefix, const char *err);

#endif
