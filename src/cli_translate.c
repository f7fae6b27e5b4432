/* cli_translate.c — `xlate [options] [TEXT...]`: lines in, translations out, in order.
 *
 * Lines are read in windows; a window's sentences are sorted by length and cut into batches;
 * the translations are written back in input order when the window is done. Every input line
 * yields exactly one output line (n lines with --n-best n in text mode). */
#include "cli.h"
#include "cli_common.h"
#include "util.h"
#include "xlate.h"
#include <cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { FMT_TEXT, FMT_IDS, FMT_JSONL };

typedef struct {
    const char *model, *input, *output;
    int in_fmt, out_fmt;
    long batch_size, batch_tokens, threads, max_input_length, window;
    int quiet, verbose, progress;
    int interactive;
    xlate_decode_params dp;
    char *const *texts;
    int n_texts;
} options;

/* One input line on its way through a window. */
typedef struct {
    long lineno;
    int *ids;      /* source ids (malloc'd), without eos */
    int n;
    xlate_result res;
} item;

typedef struct {
    const options *o;
    xlate_model *model;
    xlate_ctx *ctx;
    line_reader in;
    writer out;
    item *items;   /* [window] */
    int *order;    /* [window] */
    long lines, src_tokens, tgt_tokens, sentences;
    double t_start, t_load, t_translate;
    off_t in_size; /* for the progress line; 0 when unknown */
} run;

static void usage(FILE *f)
{
    fputs(
        "Usage: xlate [OPTIONS] [TEXT...]\n"
        "       xlate encode --spm FILE | decode --spm FILE | info [DIR]\n"
        "Translates lines from stdin (or -i FILE, or each TEXT) with an encoder-decoder\n"
        "Transformer; one output line per input line, in order.\n"
        "\n"
        "Model:\n"
        "  -m, --model DIR          model directory (default: $XLATE_MODEL, else the\n"
        "                           models/en-de shipped beside the executable or installed)\n"
        "Input and output:\n"
        "  -i, --input FILE         read FILE instead of stdin\n"
        "  -o, --output FILE        write FILE instead of stdout\n"
        "      --input-format F     text (default) or ids: space-separated source ids, eos\n"
        "                           appended by xlate\n"
        "      --output-format F    text (default), ids (target ids without bos/eos) or jsonl\n"
        "      --scores             jsonl: add per-token log-probabilities\n"
        "Decoding:\n"
        "      --beam-size K        beam search with K beams (default 1: greedy)\n"
        "      --n-best N           N hypotheses per input (N <= K); text: 'i ||| text ||| score'\n"
        "      --length-penalty A   beam: rank by logprob / length^A (default 1.0)\n"
        "      --max-length N       at most N generated tokens, eos counted (default:\n"
        "                           3 * (source tokens + 1) + 10, at most max_positions)\n"
        "      --max-input-length N keep the first N source tokens of longer lines, with a\n"
        "                           warning (default and largest: max_positions - 1)\n"
        "Speed:\n"
        "      --batch-size N       sentences per batch (default 32; 1: answer each line as\n"
        "                           soon as it is read, as when stdin is a terminal)\n"
        "      --batch-tokens N     also cap a batch's source tokens (default: no cap)\n"
        "      --threads N          threads (default: every core)\n"
        "Messages:\n"
        "  -q, --quiet              no warnings\n"
        "  -v, --verbose            timings and tokens/s on stderr\n"
        "      --version            print the version\n"
        "  -h, --help               this help\n"
        "\n"
        "Examples:\n"
        "  echo \"A dog runs in the snow.\" | xlate\n"
        "  xlate \"Two men are talking.\" \"A child plays.\"\n"
        "  xlate -i news.en -o news.de --batch-size 64\n"
        "  spm_encode --model spm.model --output_format=id < in.txt |\n"
        "      xlate --input-format ids --output-format ids | spm_decode --model spm.model "
        "--input_format=id\n"
        "  xlate --beam-size 5 --n-best 3 \"A cat sleeps.\"\n"
        "\n"
        "Exit status: 0 ok, 1 usage, 2 model, 3 input, 4 output, 5 internal error.\n",
        f);
}

static int parse_options(options *o, int argc, char **argv)
{
    enum { O_IN_FMT = 256, O_OUT_FMT, O_BATCH, O_BATCH_TOK, O_THREADS, O_MAXLEN, O_MAXIN,
           O_BEAM, O_NBEST, O_LP, O_SCORES, O_VERSION, O_WINDOW };
    static const struct option longopts[] = {
        {"model", required_argument, 0, 'm'},
        {"input", required_argument, 0, 'i'},
        {"output", required_argument, 0, 'o'},
        {"input-format", required_argument, 0, O_IN_FMT},
        {"output-format", required_argument, 0, O_OUT_FMT},
        {"batch-size", required_argument, 0, O_BATCH},
        {"batch-tokens", required_argument, 0, O_BATCH_TOK},
        {"threads", required_argument, 0, O_THREADS},
        {"max-length", required_argument, 0, O_MAXLEN},
        {"max-input-length", required_argument, 0, O_MAXIN},
        {"beam-size", required_argument, 0, O_BEAM},
        {"n-best", required_argument, 0, O_NBEST},
        {"length-penalty", required_argument, 0, O_LP},
        {"scores", no_argument, 0, O_SCORES},
        {"window", required_argument, 0, O_WINDOW},
        {"quiet", no_argument, 0, 'q'},
        {"verbose", no_argument, 0, 'v'},
        {"version", no_argument, 0, O_VERSION},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    char err[XLATE_ERRLEN];
    int c;
    long v;
    double f;

    memset(o, 0, sizeof *o);
    o->dp = xlate_decode_default_params();
    o->batch_size = 32;
    o->max_input_length = -1;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:i:o:qvh", longopts, NULL)) != -1) {
        switch (c) {
        case 'm': o->model = optarg; break;
        case 'i': o->input = optarg; break;
        case 'o': o->output = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'v': o->verbose = 1; break;
        case 'h': usage(stdout); return -2;
        case O_VERSION: printf("xlate %s\n", XLATE_VERSION); return -2;
        case O_SCORES: o->dp.token_scores = 1; break;
        case O_IN_FMT:
        case O_OUT_FMT: {
            const char *name = c == O_IN_FMT ? "--input-format" : "--output-format";
            int fmt = strcmp(optarg, "text") == 0  ? FMT_TEXT
                      : strcmp(optarg, "ids") == 0 ? FMT_IDS
                      : strcmp(optarg, "jsonl") == 0 && c == O_OUT_FMT ? FMT_JSONL
                                                                        : -1;
            if (fmt < 0) {
                fprintf(stderr, "xlate: %s: expected %s, got \"%s\"\n", name,
                        c == O_IN_FMT ? "text or ids" : "text, ids or jsonl", optarg);
                return -1;
            }
            *(c == O_IN_FMT ? &o->in_fmt : &o->out_fmt) = fmt;
            break;
        }
        case O_LP:
            if (parse_float_opt("--length-penalty", optarg, 0, 10, &f, err, sizeof err))
                goto bad;
            o->dp.length_penalty = (float)f;
            break;
        case O_BATCH: case O_BATCH_TOK: case O_THREADS: case O_MAXLEN: case O_MAXIN:
        case O_BEAM: case O_NBEST: case O_WINDOW: {
            const char *name = c == O_BATCH       ? "--batch-size"
                               : c == O_BATCH_TOK ? "--batch-tokens"
                               : c == O_THREADS   ? "--threads"
                               : c == O_MAXLEN    ? "--max-length"
                               : c == O_MAXIN     ? "--max-input-length"
                               : c == O_BEAM      ? "--beam-size"
                               : c == O_NBEST     ? "--n-best"
                                                  : "--window";
            long hi = c == O_THREADS ? 1024 : c == O_BEAM ? 256 : c == O_BATCH ? 4096 : 1L << 30;
            if (parse_int_opt(name, optarg, c == O_THREADS ? 0 : 1, hi, &v, err, sizeof err))
                goto bad;
            switch (c) {
            case O_BATCH: o->batch_size = v; break;
            case O_BATCH_TOK: o->batch_tokens = v; break;
            case O_THREADS: o->threads = v; break;
            case O_MAXLEN: o->dp.max_length = (int)v; break;
            case O_MAXIN: o->max_input_length = v; break;
            case O_BEAM: o->dp.beam_size = (int)v; break;
            case O_NBEST: o->dp.n_best = (int)v; break;
            case O_WINDOW: o->window = v; break;
            }
            break;
        }
        case ':':
            fprintf(stderr, "xlate: %s needs a value (see xlate --help)\n", argv[optind - 1]);
            return -1;
        default:
            fprintf(stderr, "xlate: unknown option %s (see xlate --help)\n",
                    optopt ? (char[]){'-', (char)optopt, 0} : argv[optind - 1]);
            return -1;
        }
    }
    if (o->dp.n_best > o->dp.beam_size) {
        fprintf(stderr, "xlate: --n-best %d: must not exceed --beam-size (%d)\n", o->dp.n_best,
                o->dp.beam_size);
        return -1;
    }
    if (o->out_fmt == FMT_JSONL)
        o->dp.scores = 1;
    if (o->dp.n_best > 1 || o->dp.beam_size > 1)
        o->dp.scores = 1;
    o->texts = argv + optind;
    o->n_texts = argc - optind;
    if (o->n_texts && o->input) {
        fprintf(stderr, "xlate: give either -i FILE or TEXT arguments, not both\n");
        return -1;
    }
    return 0;
bad:
    fprintf(stderr, "xlate: %s\n", err);
    return -1;
}

/* Parses a line of ids; message names the line. */
static int parse_ids(const char *s, size_t len, int vocab, int **ids, int *n, const char *name,
                     long lineno, char *err, size_t errlen)
{
    int cap = 16, cnt = 0, *out = malloc(cap * sizeof *out);
    size_t i = 0;
    if (!out)
        return xerr(err, errlen, "out of memory");
    while (i < len) {
        long v = 0;
        size_t start;
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i == len)
            break;
        start = i;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (v < 1000000000L)
                v = v * 10 + (s[i] - '0');
            i++;
        }
        if (i == start || (i < len && s[i] != ' ' && s[i] != '\t')) {
            size_t end = i;
            while (end < len && s[end] != ' ' && s[end] != '\t')
                end++;
            free(out);
            return xerr(err, errlen, "%s: line %ld: \"%.*s\" is not a token id (expected "
                        "space-separated non-negative integers)", name, lineno,
                        (int)(end - start > 40 ? 40 : end - start), s + start);
        }
        if (v >= vocab) {
            free(out);
            return xerr(err, errlen, "%s: line %ld: id %.*s is outside the source vocabulary "
                        "[0, %d)", name, lineno, (int)(i - start > 40 ? 40 : i - start),
                        s + start, vocab);
        }
        if (cnt == cap) {
            int *q = realloc(out, (cap *= 2) * sizeof *out);
            if (!q) {
                free(out);
                return xerr(err, errlen, "out of memory");
            }
            out = q;
        }
        out[cnt++] = (int)v;
    }
    *ids = out;
    *n = cnt;
    return 0;
}

static int cmp_len_desc(const void *a, const void *b, void *items)
{
    const item *it = items;
    int x = *(const int *)a, y = *(const int *)b;
    if (it[x].n != it[y].n)
        return it[y].n - it[x].n;
    return x - y;
}

/* Translates items[0..n) in length-sorted batches. */
static int translate_window(run *r, int n, char *err, size_t errlen)
{
    const options *o = r->o;
    int m = 0, i = 0;
    double t0 = now_seconds();
    for (int k = 0; k < n; k++)
        if (r->items[k].n > 0)
            r->order[m++] = k;
    qsort_r(r->order, m, sizeof *r->order, cmp_len_desc, r->items);
    while (i < m) {
        int j = i, rc;
        long toks = 0;
        const int *src[4096];
        int lens[4096];
        xlate_result res[4096];
        while (j < m && j - i < o->batch_size && j - i < 4096) {
            long t = r->items[r->order[j]].n + 1;
            if (o->batch_tokens && j > i && toks + t > o->batch_tokens)
                break;
            toks += t;
            src[j - i] = r->items[r->order[j]].ids;
            lens[j - i] = r->items[r->order[j]].n;
            j++;
        }
        rc = xlate_translate(r->ctx, j - i, src, lens, &o->dp, res, err, errlen);
        if (rc)
            return -1;
        for (int k = i; k < j; k++) {
            r->items[r->order[k]].res = res[k - i];
            r->src_tokens += lens[k - i];
            r->tgt_tokens += res[k - i].n_hyps ? res[k - i].hyps[0].n : 0;
        }
        r->sentences += j - i;
        i = j;
    }
    r->t_translate += now_seconds() - t0;
    return 0;
}

static void put_ids(writer *w, const int *ids, int n)
{
    char buf[16];
    for (int k = 0; k < n; k++) {
        int len = snprintf(buf, sizeof buf, k ? " %d" : "%d", ids[k]);
        writer_put(w, buf, (size_t)len);
    }
}

static cJSON *hyp_json(const run *r, const xlate_hypothesis *h, const char *text)
{
    cJSON *o = cJSON_CreateObject(), *a;
    if (!o)
        return NULL;
    if (text)
        cJSON_AddStringToObject(o, "translation", text);
    a = cJSON_AddArrayToObject(o, "ids");
    for (int k = 0; a && h && k < h->n; k++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(h->ids[k]));
    cJSON_AddNumberToObject(o, "logprob", h ? h->logprob : 0);
    cJSON_AddNumberToObject(o, "score", h ? h->score : 0);
    if (r->o->dp.token_scores) {
        a = cJSON_AddArrayToObject(o, "token_logprobs");
        for (int k = 0; a && h && h->token_logprobs && k < h->n + h->finished; k++)
            cJSON_AddItemToArray(a, cJSON_CreateNumber(h->token_logprobs[k]));
    }
    if (h)
        cJSON_AddBoolToObject(o, "finished", h->finished);
    return o;
}

/* Writes the outputs of items[0..n) in order and frees them. */
static int write_window(run *r, int n, long first_index, char *err, size_t errlen)
{
    const options *o = r->o;
    int rc = 0;
    for (int k = 0; k < n; k++) {
        item *it = &r->items[k];
        int nh = it->res.n_hyps;
        char *text = NULL;
        if (o->out_fmt == FMT_JSONL) {
            cJSON *root = NULL;
            char *s;
            if (o->dp.n_best > 1) {
                cJSON *arr;
                root = cJSON_CreateObject();
                arr = root ? cJSON_AddArrayToObject(root, "hypotheses") : NULL;
                for (int h = 0; arr && h < nh; h++) {
                    char *t = NULL;
                    if (o->out_fmt == FMT_JSONL && xlate_model_get_info(r->model).has_tokenizer &&
                        xlate_detokenize(r->model, it->res.hyps[h].ids, it->res.hyps[h].n, &t,
                                         err, errlen))
                        rc = -1;
                    cJSON_AddItemToArray(arr, hyp_json(r, &it->res.hyps[h], t ? t : NULL));
                    free(t);
                }
            } else {
                const xlate_hypothesis *h = nh ? &it->res.hyps[0] : NULL;
                if (xlate_model_get_info(r->model).has_tokenizer) {
                    if (h && xlate_detokenize(r->model, h->ids, h->n, &text, err, errlen))
                        rc = -1;
                    root = hyp_json(r, h, text ? text : "");
                } else {
                    root = hyp_json(r, h, NULL);
                }
            }
            s = root ? cJSON_PrintUnformatted(root) : NULL;
            if (!s && rc == 0)
                rc = xerr(err, errlen, "out of memory");
            if (s) {
                writer_puts(&r->out, s);
                writer_put(&r->out, "\n", 1);
            }
            free(s);
            cJSON_Delete(root);
        } else if (o->dp.n_best > 1 && o->out_fmt == FMT_TEXT) {
            for (int h = 0; h < o->dp.n_best; h++) {
                char head[32], tail[48];
                const xlate_hypothesis *hy = h < nh ? &it->res.hyps[h] : NULL;
                snprintf(head, sizeof head, "%ld ||| ", first_index + k);
                snprintf(tail, sizeof tail, " ||| %.6f\n", hy ? hy->score : 0.0);
                writer_puts(&r->out, head);
                if (hy) {
                    if (xlate_detokenize(r->model, hy->ids, hy->n, &text, err, errlen))
                        rc = -1;
                    else
                        writer_puts(&r->out, text);
                    free(text);
                    text = NULL;
                }
                writer_puts(&r->out, tail);
            }
        } else {
            if (nh) {
                const xlate_hypothesis *h = &it->res.hyps[0];
                if (o->out_fmt == FMT_IDS)
                    put_ids(&r->out, h->ids, h->n);
                else if (xlate_detokenize(r->model, h->ids, h->n, &text, err, errlen))
                    rc = -1;
                else
                    writer_puts(&r->out, text);
            }
            writer_put(&r->out, "\n", 1);
        }
        free(text);
        xlate_results_free(&it->res, 1);
        free(it->ids);
        it->ids = NULL;
        if (rc)
            return -1;
    }
    if (o->interactive)
        writer_flush(&r->out);
    return 0;
}

static void progress(run *r, int final)
{
    double t = now_seconds() - r->t_start;
    off_t pos = r->in.f ? ftello(r->in.f) : -1;
    if (!r->o->progress)
        return;
    if (r->in_size > 0 && pos >= 0)
        fprintf(stderr, "\rxlate: %ld lines (%.0f%%), %.0f lines/s, %.0f tokens/s ", r->lines,
                100.0 * pos / r->in_size, r->lines / (t > 0 ? t : 1),
                r->tgt_tokens / (t > 0 ? t : 1));
    else
        fprintf(stderr, "\rxlate: %ld lines, %.0f lines/s ", r->lines, r->lines / (t > 0 ? t : 1));
    if (final)
        fputc('\n', stderr);
}

/* Reads, translates and writes everything. Returns the exit status. */
static int stream(run *r)
{
    const options *o = r->o;
    xlate_model_info info = xlate_model_get_info(r->model);
    long max_in = o->max_input_length > 0 ? o->max_input_length : info.max_positions - 1;
    long window = o->interactive ? 1 : o->window ? o->window : o->batch_size * 16;
    char err[XLATE_ERRLEN];
    int status = XLATE_EXIT_OK, eof = 0;
    long index = 0;

    if (window > 100000)
        window = 100000;
    r->items = calloc(window, sizeof *r->items);
    r->order = calloc(window, sizeof *r->order);
    if (!r->items || !r->order) {
        fprintf(stderr, "xlate: out of memory\n");
        return XLATE_EXIT_INTERNAL;
    }
    while (!eof && status == XLATE_EXIT_OK) {
        int n = 0, bad = 0;
        char bad_msg[XLATE_ERRLEN + 64];
        while (n < window) {
            char *line;
            size_t len;
            item *it = &r->items[n];
            int got = reader_next(&r->in, &line, &len, err, sizeof err);
            if (got < 0) {
                bad = XLATE_EXIT_INPUT;
                snprintf(bad_msg, sizeof bad_msg, "%s", err);
                break;
            }
            if (got == 0) {
                eof = 1;
                break;
            }
            memset(it, 0, sizeof *it);
            it->lineno = r->in.line;
            if (o->in_fmt == FMT_IDS) {
                if (parse_ids(line, len, info.src_vocab, &it->ids, &it->n, r->in.name,
                              it->lineno, err, sizeof err)) {
                    bad = XLATE_EXIT_INPUT;
                    snprintf(bad_msg, sizeof bad_msg, "%s", err);
                    break;
                }
            } else if (xlate_tokenize(r->model, line, len, &it->ids, &it->n, err, sizeof err)) {
                bad = XLATE_EXIT_INTERNAL;
                snprintf(bad_msg, sizeof bad_msg, "%s: line %ld: %s", r->in.name, it->lineno,
                         err);
                break;
            }
            if (it->n > max_in) {
                if (!o->quiet)
                    fprintf(stderr, "xlate: warning: %s: line %ld: %d source tokens, kept the "
                            "first %ld (--max-input-length)\n", r->in.name, it->lineno, it->n,
                            max_in);
                it->n = (int)max_in;
            }
            n++;
            r->lines++;
        }
        /* The lines before a bad one are still translated and written. */
        if (translate_window(r, n, err, sizeof err)) {
            fprintf(stderr, "xlate: %s\n", err);
            for (int k = 0; k < n; k++) {
                xlate_results_free(&r->items[k].res, 1);
                free(r->items[k].ids);
            }
            return XLATE_EXIT_INTERNAL;
        }
        if (write_window(r, n, index, err, sizeof err)) {
            fprintf(stderr, "xlate: %s\n", err);
            status = XLATE_EXIT_INTERNAL;
        }
        index += n;
        if (r->out.failed)
            return writer_error(&r->out, 1);
        if (bad) {
            fprintf(stderr, "xlate: %s\n", bad_msg);
            status = bad;
        }
        progress(r, 0);
    }
    progress(r, 1);
    return status;
}

static void release(run *r)
{
    free(r->items);
    free(r->order);
    xlate_ctx_free(r->ctx);
    xlate_model_free(r->model);
}

int cmd_translate(int argc, char **argv)
{
    options o;
    run r;
    char err[XLATE_ERRLEN], dir[4096];
    xlate_model_params mp = xlate_model_default_params();
    int rc, status;
    xlate_model_info info;

    rc = parse_options(&o, argc, argv);
    if (rc == -2)
        return XLATE_EXIT_OK;
    if (rc)
        return XLATE_EXIT_USAGE;
    memset(&r, 0, sizeof r);
    r.o = &o;
    r.t_start = now_seconds();

    if (find_model_dir(o.model, dir, sizeof dir, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        return XLATE_EXIT_MODEL;
    }
    mp.load_tokenizers = o.in_fmt == FMT_TEXT || o.out_fmt != FMT_IDS;
    mp.warn = warn_stderr;
    mp.warn_user = &o.quiet;
    if (xlate_model_load(&r.model, dir, &mp, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        return XLATE_EXIT_MODEL;
    }
    info = xlate_model_get_info(r.model);
    if (!info.has_tokenizer && (o.in_fmt == FMT_TEXT || o.out_fmt == FMT_TEXT)) {
        fprintf(stderr, "xlate: %s: the model has no tokenizer (config field \"tokenizer\"): "
                "use --input-format ids --output-format ids\n", dir);
        release(&r);
        return XLATE_EXIT_MODEL;
    }
    if (xlate_decode_params_check(r.model, &o.dp, err, sizeof err) ||
        (o.max_input_length > info.max_positions - 1 &&
         xerr(err, sizeof err, "--max-input-length: expected 1 to %d (the model's max_positions "
              "- 1), got %ld", info.max_positions - 1, o.max_input_length))) {
        fprintf(stderr, "xlate: %s\n", err);
        release(&r);
        return XLATE_EXIT_USAGE;
    }
    if (!(r.ctx = xlate_ctx_new(r.model, (int)o.threads, err, sizeof err))) {
        fprintf(stderr, "xlate: %s\n", err);
        release(&r);
        return XLATE_EXIT_INTERNAL;
    }
    r.t_load = now_seconds() - r.t_start;

    if (o.n_texts) {
        reader_texts(&r.in, o.texts, o.n_texts);
    } else if (reader_open(&r.in, o.input, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        release(&r);
        return XLATE_EXIT_INPUT;
    }
    if (writer_open(&r.out, o.output, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        reader_close(&r.in);
        release(&r);
        return XLATE_EXIT_OUTPUT;
    }
    o.interactive = o.batch_size == 1 || (r.in.f == stdin && isatty(STDIN_FILENO));
    if (r.in.f && r.in.f != stdin && !o.quiet && isatty(STDERR_FILENO)) {
        struct stat sb;
        o.progress = 1;
        if (fstat(fileno(r.in.f), &sb) == 0 && S_ISREG(sb.st_mode))
            r.in_size = sb.st_size;
    }

    status = stream(&r);
    if (writer_close(&r.out) && status == XLATE_EXIT_OK)
        status = writer_error(&r.out, 1);
    if (o.verbose) {
        double total = now_seconds() - r.t_start;
        fprintf(stderr,
                "xlate: %ld lines, %ld sentences translated, %ld source and %ld target tokens\n"
                "xlate: load %.3f s, translate %.3f s, total %.3f s; %.1f sentences/s, %.1f "
                "target tokens/s; %d threads\n",
                r.lines, r.sentences, r.src_tokens, r.tgt_tokens, r.t_load, r.t_translate, total,
                r.sentences / (r.t_translate > 0 ? r.t_translate : 1),
                r.tgt_tokens / (r.t_translate > 0 ? r.t_translate : 1), xlate_ctx_threads(r.ctx));
    }
    reader_close(&r.in);
    release(&r);
    return status;
}
