/* cli_spm.c — `xlate encode` and `xlate decode`: drop-ins for
 *   spm_encode --model FILE --output_format=id   and   spm_decode --model FILE --input_format=id
 * Lines are split on '\n' only (a '\r' before it belongs to the line, as in spm_encode); a last
 * line without '\n' is a line; lines have no length limit and may hold NUL bytes. */
#include "cli/cli.h"
#include "cli/cli_common.h"
#include "text/spm.h"
#include "xlate.h"
#include "base/util.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SPM_CLI_ERRLEN = 512 }; /* room for one library message */

typedef struct {
    const char *cmd;   /* "encode" / "decode" */
    const char *model; /* --spm */
    const char *dir;   /* -m: the model directory's own tokenizer (OPUS-MT: vocab.json too) */
    const char *in;    /* -i, NULL or "-" for stdin */
    const char *out;   /* -o, NULL or "-" for stdout */
    int spans;         /* --spans: each line also gets its tokens' byte spans */
} spm_opts;

static void usage(FILE *f, const char *cmd)
{
    if (strcmp(cmd, "encode") == 0)
        fprintf(f,
                "usage: xlate encode --spm FILE | -m DIR [-i IN] [-o OUT] [--spans]\n"
                "Encodes each line of IN (default: stdin) into one line of space-separated\n"
                "SentencePiece ids on OUT (default: stdout), as\n"
                "`spm_encode --model FILE --output_format=id` does. An empty line gives an\n"
                "empty line. With -m DIR: the source ids of model DIR's tokenizer (an\n"
                "OPUS-MT model's: source.spm pieces numbered by vocab.json), without eos.\n"
                "--spans: after the ids a tab and, for each id, BEGIN:END, the bytes\n"
                "[BEGIN, END) of the line it covers (sentencepiece's begin/end, in bytes).\n");
    else
        fprintf(f,
                "usage: xlate decode --spm FILE | -m DIR [-i IN] [-o OUT] [--spans]\n"
                "Decodes each line of space-separated ids of IN (default: stdin) into one line\n"
                "of text on OUT (default: stdout), as\n"
                "`spm_decode --model FILE --input_format=id` does. A token that is not an id,\n"
                "or an id out of the vocabulary, stops with exit status 3. With -m DIR: the\n"
                "text of target ids as model DIR's tokenizer writes translations.\n"
                "--spans: after the text a tab and, for each id, BEGIN:END, the bytes\n"
                "[BEGIN, END) of the text it produced (empty for a token that writes nothing).\n");
}

/* Returns -1 to go on, else the exit status. */
static int parse_opts(int argc, char **argv, spm_opts *o)
{
    memset(o, 0, sizeof *o);
    o->cmd = argc > 0 && argv[0] ? argv[0] : "encode";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], **dst = NULL, *val = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout, o->cmd);
            return XLATE_EXIT_OK;
        }
        if (strcmp(a, "--spans") == 0) {
            o->spans = 1;
            continue;
        }
        if (strcmp(a, "--spm") == 0 || strncmp(a, "--spm=", 6) == 0)
            dst = &o->model;
        else if (strcmp(a, "-m") == 0 || strcmp(a, "--model") == 0 ||
                 strncmp(a, "--model=", 8) == 0)
            dst = &o->dir;
        else if (strcmp(a, "-i") == 0 || strcmp(a, "--input") == 0 ||
                 strncmp(a, "--input=", 8) == 0)
            dst = &o->in;
        else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 ||
                 strncmp(a, "--output=", 9) == 0)
            dst = &o->out;
        if (!dst) {
            fprintf(stderr, "xlate %s: unknown argument '%s'\n", o->cmd, a);
            usage(stderr, o->cmd);
            return XLATE_EXIT_USAGE;
        }
        if (strchr(a, '=') && a[0] == '-' && a[1] == '-') {
            val = strchr(a, '=') + 1;
        } else {
            if (i + 1 >= argc) {
                fprintf(stderr, "xlate %s: %s needs a value\n", o->cmd, a);
                usage(stderr, o->cmd);
                return XLATE_EXIT_USAGE;
            }
            val = argv[++i];
        }
        *dst = val;
    }
    if ((!o->model || !*o->model) == (!o->dir || !*o->dir)) {
        fprintf(stderr, "xlate %s: give one of --spm FILE and -m DIR\n", o->cmd);
        usage(stderr, o->cmd);
        return XLATE_EXIT_USAGE;
    }
    return -1;
}

typedef struct {
    FILE *in, *out;
    const char *in_name, *out_name;
    char *outbuf; /* stdio buffer of out */
    spm_model *model;
    xlate_model *xm; /* -m */
} spm_io;

/* Encode / decode with the --spm model or the -m model's tokenizer; spans != NULL: with the
 * tokens' spans ([2 * n], malloc'd). */
static int io_encode(const spm_io *io, const char *s, size_t n, int **ids, int **spans,
                     int *nids, char *err, size_t errlen)
{
    if (io->xm)
        return spans ? xlate_tokenize_spans(io->xm, s, n, ids, spans, nids, err, errlen)
                     : xlate_tokenize(io->xm, s, n, ids, nids, err, errlen);
    return spans ? spm_encode_spans(io->model, s, n, ids, spans, nids, err, errlen)
                 : spm_encode(io->model, s, n, ids, nids, err, errlen);
}

static int io_decode(const spm_io *io, const int *ids, int n, char **text, size_t *tl,
                     int **spans, char *err, size_t errlen)
{
    if (io->xm) {
        if (spans ? xlate_detokenize_spans(io->xm, ids, n, text, spans, err, errlen)
                  : xlate_detokenize(io->xm, ids, n, text, err, errlen))
            return -1;
        *tl = strlen(*text);
        return 0;
    }
    return spans ? spm_decode_spans(io->model, ids, n, text, tl, spans, err, errlen)
                 : spm_decode(io->model, ids, n, text, tl, err, errlen);
}


static int io_open(const spm_opts *o, spm_io *io)
{
    char err[SPM_CLI_ERRLEN];
    memset(io, 0, sizeof *io);
    if (o->dir) {
        xlate_model_params mp = xlate_model_default_params();
        char prefix[64];
        snprintf(prefix, sizeof prefix, "xlate %s", o->cmd);
        if (xlate_model_load(&io->xm, o->dir, &mp, err, sizeof err))
            return cli_load_failed(prefix, err); /* 5 when memory is missing */
    } else if (spm_load(&io->model, o->model, err, sizeof err)) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "xlate %s: cannot load the SentencePiece model", o->cmd);
        return cli_load_failed(prefix, err);
    }
    if (o->in && strcmp(o->in, "-") != 0) {
        io->in = fopen(o->in, "rb");
        io->in_name = o->in;
        if (!io->in) {
            fprintf(stderr, "xlate %s: %s: cannot open: %s\n", o->cmd, o->in, strerror(errno));
            return XLATE_EXIT_INPUT;
        }
    } else {
        io->in = stdin;
        io->in_name = "<stdin>";
    }
    if (o->out && strcmp(o->out, "-") != 0) {
        io->out = fopen(o->out, "wb");
        io->out_name = o->out;
        if (!io->out) {
            fprintf(stderr, "xlate %s: %s: cannot open for writing: %s\n", o->cmd, o->out,
                    strerror(errno));
            return XLATE_EXIT_OUTPUT;
        }
    } else {
        io->out = stdout;
        io->out_name = "<stdout>";
    }
    io->outbuf = malloc(1 << 16);
    if (io->outbuf)
        setvbuf(io->out, io->outbuf, _IOFBF, 1 << 16);
    return XLATE_EXIT_OK;
}

/* Reports a failed write (quietly when the reader closed the pipe: main ignores SIGPIPE). */
static int write_failed(const char *cmd, const spm_io *io, int e)
{
    if (e != EPIPE)
        fprintf(stderr, "xlate %s: cannot write to %s: %s\n", cmd, io->out_name,
                strerror(e ? e : EIO));
    return XLATE_EXIT_OUTPUT;
}

/* Flushes and closes; status is the status so far. Returns the final status. */
static int io_close(const char *cmd, spm_io *io, int status)
{
    if (io->out) {
        int failed = 0, e = 0;
        errno = 0;
        if (fflush(io->out) != 0 || ferror(io->out)) {
            failed = 1;
            e = errno;
        }
        if (io->out != stdout) {
            errno = 0;
            if (fclose(io->out) != 0 && !failed) {
                failed = 1;
                e = errno;
            }
        } else {
            setvbuf(stdout, NULL, _IOLBF, 0); /* the buffer is freed below */
        }
        if (failed && status != XLATE_EXIT_OUTPUT) {
            int w = write_failed(cmd, io, e);
            if (status == XLATE_EXIT_OK)
                status = w;
        }
    }
    if (io->in && io->in != stdin)
        fclose(io->in);
    free(io->outbuf);
    spm_free(io->model);
    xlate_model_free(io->xm);
    memset(io, 0, sizeof *io);
    return status;
}

static int read_failed(const char *cmd, const spm_io *io)
{
    fprintf(stderr, "xlate %s: %s: read error: %s\n", cmd, io->in_name, strerror(errno));
    return XLATE_EXIT_INPUT;
}

/* Appends the decimal form of v (>= 0) at p; returns the new end. */
static char *put_int(char *p, int v)
{
    char tmp[12];
    int k = 0;
    unsigned u = (unsigned)v;
    do {
        tmp[k++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (k)
        *p++ = tmp[--k];
    return p;
}

/* Appends "\tB:E B:E ..." of n spans (each >= 0) at p: at most 1 + 24 * n bytes. Returns the
 * new end. */
static char *put_spans(char *p, const int *spans, int n)
{
    *p++ = '\t';
    for (int i = 0; i < n; i++) {
        if (i)
            *p++ = ' ';
        p = put_int(p, spans[2 * i]);
        *p++ = ':';
        p = put_int(p, spans[2 * i + 1]);
    }
    return p;
}

int cmd_encode(int argc, char **argv)
{
    spm_opts o;
    spm_io io;
    char *line = NULL, *obuf = NULL, err[SPM_CLI_ERRLEN];
    size_t cap = 0, ocap = 0;
    ssize_t got;
    int status = parse_opts(argc, argv, &o);
    if (status >= 0)
        return status;
    status = io_open(&o, &io);
    if (status != XLATE_EXIT_OK)
        return io_close(o.cmd, &io, status);
    errno = 0;
    while ((got = getline(&line, &cap, io.in)) >= 0) {
        size_t n = (size_t)got;
        int *ids = NULL, *spans = NULL, nids = 0;
        if (n && line[n - 1] == '\n')
            n--;
        if (io_encode(&io, line, n, &ids, o.spans ? &spans : NULL, &nids, err, sizeof err)) {
            fprintf(stderr, "xlate encode: %s\n", err);
            status = XLATE_EXIT_INTERNAL;
            break;
        }
        size_t need = (size_t)nids * (o.spans ? 36 : 12) + 3;
        if (need > ocap) {
            char *nb = realloc(obuf, need);
            if (!nb) {
                free(ids);
                free(spans);
                fprintf(stderr, "xlate encode: out of memory\n");
                status = XLATE_EXIT_INTERNAL;
                break;
            }
            obuf = nb;
            ocap = need;
        }
        char *p = obuf;
        for (int i = 0; i < nids; i++) {
            if (i)
                *p++ = ' ';
            p = put_int(p, ids[i]);
        }
        if (o.spans)
            p = put_spans(p, spans, nids);
        *p++ = '\n';
        free(ids);
        free(spans);
        if (fwrite(obuf, 1, (size_t)(p - obuf), io.out) != (size_t)(p - obuf)) {
            status = write_failed(o.cmd, &io, errno);
            break;
        }
        errno = 0;
    }
    if (status == XLATE_EXIT_OK && ferror(io.in))
        status = read_failed(o.cmd, &io);
    free(line);
    free(obuf);
    return io_close(o.cmd, &io, status);
}

/* Prints a token for a message: at most 40 bytes, control bytes escaped. */
static void print_token(FILE *f, const char *s, size_t n)
{
    size_t shown = n > 40 ? 40 : n;
    fputc('\'', f);
    for (size_t i = 0; i < shown; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
    }
    fputs(shown < n ? "...'" : "'", f);
}

int cmd_decode(int argc, char **argv)
{
    spm_opts o;
    spm_io io;
    char *line = NULL, err[SPM_CLI_ERRLEN];
    int *ids = NULL;
    size_t cap = 0, idcap = 0, lineno = 0;
    ssize_t got;
    int status = parse_opts(argc, argv, &o);
    if (status >= 0)
        return status;
    status = io_open(&o, &io);
    if (status != XLATE_EXIT_OK)
        return io_close(o.cmd, &io, status);
    int vocab = io.xm ? xlate_model_get_info(io.xm).tgt_vocab : spm_vocab_size(io.model);
    errno = 0;
    while ((got = getline(&line, &cap, io.in)) >= 0) {
        size_t n = (size_t)got, nids = 0;
        lineno++;
        if (n && line[n - 1] == '\n')
            n--;
        for (size_t i = 0; i < n;) {
            /* tokens are separated by spaces (spm_decode); tabs and '\r' are accepted too */
            if (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
                i++;
                continue;
            }
            size_t b = i;
            while (i < n && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
                i++;
            size_t k = b;
            int neg = 0;
            long long v = 0;
            if (line[k] == '+' || line[k] == '-')
                neg = line[k++] == '-';
            int ok = k < i;
            for (; k < i && ok; k++) {
                if (line[k] < '0' || line[k] > '9')
                    ok = 0;
                else if (v <= (long long)INT_MAX * 10)
                    v = v * 10 + (line[k] - '0');
            }
            if (!ok) {
                fprintf(stderr, "xlate decode: %s:%zu: ", io.in_name, lineno);
                print_token(stderr, line + b, i - b);
                fprintf(stderr, " is not an id\n");
                status = XLATE_EXIT_INPUT;
                goto out;
            }
            if (neg)
                v = -v;
            if (v < 0 || v >= vocab) {
                fprintf(stderr, "xlate decode: %s:%zu: id ", io.in_name, lineno);
                print_token(stderr, line + b, i - b);
                fprintf(stderr, " is out of range [0, %d)\n", vocab);
                status = XLATE_EXIT_INPUT;
                goto out;
            }
            if (nids == idcap) {
                size_t nc = idcap ? idcap * 2 : 256;
                int *ni = realloc(ids, nc * sizeof *ids);
                if (!ni) {
                    fprintf(stderr, "xlate decode: out of memory\n");
                    status = XLATE_EXIT_INTERNAL;
                    goto out;
                }
                ids = ni;
                idcap = nc;
            }
            ids[nids++] = (int)v;
        }
        if (nids > INT_MAX) {
            fprintf(stderr, "xlate decode: %s:%zu: too many ids\n", io.in_name, lineno);
            status = XLATE_EXIT_INPUT;
            goto out;
        }
        char *text = NULL;
        int *spans = NULL;
        size_t tl = 0;
        if (io_decode(&io, ids, (int)nids, &text, &tl, o.spans ? &spans : NULL, err,
                      sizeof err)) {
            fprintf(stderr, "xlate decode: %s:%zu: %s\n", io.in_name, lineno, err);
            status = XLATE_EXIT_INPUT;
            goto out;
        }
        int wfail = 0;
        if (o.spans) { /* the text, then the spans, then the newline */
            char *sb = malloc(24 * nids + 2);
            if (!sb) {
                free(text);
                free(spans);
                fprintf(stderr, "xlate decode: out of memory\n");
                status = XLATE_EXIT_INTERNAL;
                goto out;
            }
            size_t sl = (size_t)(put_spans(sb, spans, (int)nids) - sb);
            wfail = fwrite(text, 1, tl, io.out) != tl || fwrite(sb, 1, sl, io.out) != sl;
            free(sb);
            tl = 0;
        }
        free(spans);
        text[tl] = '\n';
        size_t w = fwrite(text, 1, tl + 1, io.out);
        free(text);
        if (wfail || w != tl + 1) {
            status = write_failed(o.cmd, &io, errno);
            goto out;
        }
        errno = 0;
    }
    if (ferror(io.in))
        status = read_failed(o.cmd, &io);
out:
    free(line);
    free(ids);
    return io_close(o.cmd, &io, status);
}
