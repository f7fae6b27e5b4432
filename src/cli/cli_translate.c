/* cli_translate.c — `xlate [options] [TEXT...]`: lines in, translations out, in order.
 *
 * The options, the input and output files, the progress line and the output formats, over the
 * library's pipeline (xlate_translate_lines, src/pipeline.c), which reads the lines into a
 * window (--window), sorts them by length, cuts batches (--batch-size, --batch-tokens) and
 * hands the translations back in input order; they are flushed when the window is done. Every
 * input line yields exactly one output line (n lines with --n-best n in text and ids formats).
 *
 * xlate never waits for more input while it holds lines it could answer: when no further line
 * is ready (a co-process waiting for its answer, a slow pipe, a terminal), the window ends
 * there (the source's ready callback is reader_ready). So memory stays bounded by the window,
 * output starts before the input ends, and a program can talk to xlate line by line with any
 * batch size. A translation does not depend on the batch it was in, so where the windows end
 * changes nothing in the output. */
#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_doc.h"
#include "cli/cli_output.h"
#include "cli/cli_decode_opts.h"
#include "base/util.h"
#include "xlate.h"
#include <cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_BATCH = 4096, MAX_WINDOW = 100000 };

typedef struct {
    const char *model, *input, *output;
    int in_fmt, out_fmt;
    long batch_size, batch_tokens, threads, max_input_length, window;
    int fast;          /* --fast: whole-batch products, not batch-invariant */
    int quiet, verbose, scores;
    int compute_type;    /* xlate_compute_type */
    int beam_set, lp_set;   /* given on the command line (else the model's defaults) */
    const char *target_lang; /* --target-lang: >>xx<< goes in front of every source */
    const char *source_lang; /* --source-lang: the sentence splitter's rules */
    int split;           /* XLATE_SPLIT_SENTENCES or XLATE_SPLIT_NONE (--split) */
    int paragraphs;      /* --paragraphs: lines up to a blank line are one paragraph */
    int doc_fmt;         /* --format: DOCFMT_* (cli_doc.c), a whole document */
    xlate_decode_params dp;
    decode_opts dopts;   /* --repetition-penalty, sampling... (cli_decode_opts.c) */
    char *const *texts;
    int n_texts;
} options;

typedef struct {
    const options *o;
    decode_opts *dopts;  /* o's, with the target prefixes' reader */
    const char *dir;
    xlate_model *model;
    xlate_model_info info;
    xlate_ctx *ctx;
    line_reader in;
    para_reader para;    /* --paragraphs: over in */
    writer out;
    output fmt;          /* how a line's answer is written */
    xlate_lines_params lp; /* the options, as the library's pipeline takes them */
    long max_in;
    int *ids;            /* the last --input-format ids line's ids (malloc'd) */
    int bad_status;      /* the exit status of a failed read */
    int lang_id;         /* --target-lang's token, -1 without */
    /* counts and times, for --verbose and the progress line */
    long cut;            /* lines cut (bytes or tokens) */
    xlate_lines_stats st;
    long long done_offset; /* input bytes of the lines already written */
    double t_start, t_load, t_translate, t_shown;
    int progress;        /* show the progress line */
    int shown;           /* a progress line is on the screen (not ended by "\n") */
} run;

static void usage(FILE *f)
{
    fputs(
        "Usage: xlate [OPTIONS] [TEXT...]\n"
        "       xlate info [DIR] | encode --spm FILE | decode --spm FILE\n"
        "Translates each line of stdin (or of -i FILE, or each TEXT) and writes one\n"
        "line per input line, in input order, to stdout (or -o FILE). Each line is\n"
        "split into sentences, translated sentence by sentence and joined again. An\n"
        "empty or blank line gives an empty line. Output starts before the input ends;\n"
        "when no more input is ready, xlate answers what it has (a co-process).\n"
        "\n"
        "Model:\n"
        "  -m, --model DIR         model directory (default: $XLATE_MODEL, else\n"
        "                          models/en-de beside the executable, else installed);\n"
        "                          xlate's own layout or a Hugging Face MarianMT\n"
        "                          (OPUS-MT) directory as downloaded\n"
        "Input and output:\n"
        "  -i, --input FILE        read FILE instead of stdin (\"-\": stdin)\n"
        "  -o, --output FILE       write FILE instead of stdout\n"
        "      --input-format F    text (default) or ids: space-separated source ids,\n"
        "                          without eos (xlate appends it)\n"
        "      --output-format F   text (default), ids (target ids, no bos/eos) or\n"
        "                          jsonl: {\"translation\", \"ids\", \"logprob\", \"score\",\n"
        "                          \"finished\"} per line\n"
        "      --scores            jsonl: add \"token_logprobs\" (each token, and eos)\n"
        "      --alignments        jsonl: each sentence's source-target alignment\n"
        "                          (token pairs, token and word byte spans), from the\n"
        "                          penultimate decoder layer's cross-attention\n"
        "Sentences:\n"
        "      --split MODE        sentences (default: each sentence of a line is\n"
        "                          translated on its own; jsonl adds \"sentences\") or\n"
        "                          none (a line is one segment: pre-split corpora)\n"
        "      --source-lang L     the splitter's rules (en, de, fr...; default: the\n"
        "                          model's source language, else neutral rules);\n"
        "                          NLLB-200, M2M100: the source language's code\n"
        "                          (default: the tokenizer's src_lang)\n"
        "      --paragraphs        wrapped text: the lines up to a blank line are one\n"
        "                          paragraph, written as one line; blank lines kept\n"
        "Documents:\n"
        "      --format F          html or markdown: the input is one document (read\n"
        "                          whole); it comes back with its markup as it was and\n"
        "                          only its text translated (docs/DOCUMENTS.md)\n"
        "Decoding:\n"
        "      --beam-size K       beam search with K beams (default: the model's\n"
        "                          num_beams for an OPUS-MT model, else 1: greedy)\n"
        "      --n-best N          N best per line (N <= K): N lines\n"
        "                          'i ||| text ||| score', i counting lines from 0;\n"
        "                          a line of sentences: the N best combinations of\n"
        "                          its sentences' hypotheses by summed score;\n"
        "                          jsonl: {\"hypotheses\": [...]}, each sentence too\n"
        "      --length-penalty A  beam: rank by logprob / length^A (default 1.0, or\n"
        "                          the model's)\n"
        "      --max-length N      at most N generated tokens, eos counted (default:\n"
        "                          3 * (source tokens + 1) + 10, at most max_positions;\n"
        "                          OPUS-MT: the model's max_length - 1)\n"
        "      --target-lang L     multilingual OPUS-MT models: put >>L<< in front of\n"
        "                          each sentence; NLLB-200, M2M100: the target\n"
        "                          language, required (eng_Latn, en; xlate info\n"
        "                          lists the languages)\n"
        "      --min-length N      no eos before N tokens (default 0); raises the\n"
        "                          default --max-length to N + 1 where it is lower\n"
        "      --max-input-length N\n"
        "                          keep the first N source tokens of longer\n"
        "                          sentences, with a warning naming the line and\n"
        "                          sentence (default and at most: the model's\n"
        "                          max_positions - 1)\n",
        f);
    decode_usage(f);
    fputs(
        "Speed:\n"
        "      --batch-size N      sentences per batch (default 32; 1: answer and\n"
        "                          flush each line on its own)\n"
        "      --batch-tokens N    also cap a batch's source tokens (default: none)\n"
        "      --window N          lines read ahead, sorted by length (default: 16\n"
        "                          batches)\n"
        "      --threads N         threads (default 0: every core)\n"
        "      --fast              whole-batch products (OpenBLAS on CPUs without\n"
        "                          AVX2; elsewhere the same as without): a\n"
        "                          translation may then differ, in rare near-ties,\n"
        "                          with the batch size and thread count\n"
        "      --compute-type T    f32 (default), int8 (int8 weights, integer\n"
        "                          products: fastest, 95% of lines as f32 on the\n"
        "                          default model), bf16, f16 (16-bit weights), auto\n"
        "                          (int8 with AVX2, else f32); -v says which\n"
        "Messages:\n"
        "  -q, --quiet             no warnings, no progress line\n"
        "  -v, --verbose           model, timings, sentences/s and tokens/s on stderr\n"
        "      --version           print the version and exit\n"
        "  -h, --help              print this help and exit\n"
        "A progress line goes to stderr when it is a terminal and the input a file.\n"
        "\n"
        "Examples:\n"
        "  echo \"A dog runs in the snow.\" | xlate\n"
        "  xlate \"Two men are talking.\" \"A child plays.\"\n"
        "  xlate -i news.en -o news.de --batch-size 64\n"
        "  xlate --paragraphs -i README.txt -o README.de.txt\n"
        "  xlate --output-format jsonl --scores -i news.en | jq -r .logprob\n"
        "  xlate --input-format ids --output-format ids < in.ids > out.ids\n"
        "  parallel --pipe --keep-order -N 1000 xlate -q --threads 1 < big.en > big.de\n"
        "  coproc XL { xlate; }; echo \"A cat.\" >&${XL[1]}; read -r de <&${XL[0]}\n"
        "\n"
        "Exit status:\n"
        "  0  success\n"
        "  1  usage: unknown option, bad option value\n"
        "  2  model: directory, config.json, weights or tokenizer missing or invalid\n"
        "  3  input: unreadable file, bad token id (the message names the line)\n"
        "  4  output: cannot write (a closed pipe ends xlate quietly, with this status)\n"
        "  5  internal: out of memory, cannot start threads\n"
        "\n"
        "Environment: XLATE_MODEL (the default model directory), XLATE_SPIN_US (how\n"
        "long idle worker threads spin before they sleep, default 100). See xlate(1).\n",
        f);
}

static int parse_options(options *o, int argc, char **argv)
{
    enum { O_IN_FMT = 256, O_OUT_FMT, O_BATCH, O_BATCH_TOK, O_THREADS, O_MAXLEN, O_MAXIN,
           O_BEAM, O_NBEST, O_LP, O_SCORES, O_VERSION, O_WINDOW, O_FAST, O_MINLEN,
           O_COMPUTE, O_LANG, O_SRC_LANG, O_SPLIT, O_PARAS, O_ALIGN, O_DOC };
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
        {"min-length", required_argument, 0, O_MINLEN},
        {"max-input-length", required_argument, 0, O_MAXIN},
        {"beam-size", required_argument, 0, O_BEAM},
        {"n-best", required_argument, 0, O_NBEST},
        {"length-penalty", required_argument, 0, O_LP},
        {"scores", no_argument, 0, O_SCORES},
        {"window", required_argument, 0, O_WINDOW},
        {"fast", no_argument, 0, O_FAST},
        {"compute-type", required_argument, 0, O_COMPUTE},
        {"target-lang", required_argument, 0, O_LANG},
        {"source-lang", required_argument, 0, O_SRC_LANG},
        {"split", required_argument, 0, O_SPLIT},
        {"paragraphs", no_argument, 0, O_PARAS},
        {"alignments", no_argument, 0, O_ALIGN},
        {"format", required_argument, 0, O_DOC},
        DECODE_LONGOPTS,
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
        if (c >= DOPT_FIRST) {
            if (decode_opt(&o->dopts, c, optarg, err, sizeof err))
                goto bad;
            continue;
        }
        switch (c) {
        case 'm': o->model = optarg; break;
        case 'i': o->input = optarg; break;
        case 'o': o->output = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'v': o->verbose = 1; break;
        case 'h': usage(stdout); return -2;
        case O_VERSION: printf("xlate %s\n", XLATE_VERSION); return -2;
        case O_FAST:
            o->fast = 1;
            break;
        case O_SCORES: o->scores = 1; break;
        case O_COMPUTE:
            if ((o->compute_type = xlate_compute_type_parse(optarg)) < 0) {
                char q[200];
                fprintf(stderr, "xlate: --compute-type: expected f32, int8, bf16, f16 or auto, "
                        "got \"%s\"\n", cli_quote(q, sizeof q, optarg, strlen(optarg)));
                return -1;
            }
            break;
        case O_LANG: o->target_lang = optarg; break;
        case O_SRC_LANG:
            if (!is_lang_code(optarg)) {
                char q[200];
                fprintf(stderr, "xlate: --source-lang: expected a language code such as en "
                        "(letters, digits, '-', '_'; at most 15), got \"%s\"\n",
                        cli_quote(q, sizeof q, optarg, strlen(optarg)));
                return -1;
            }
            o->source_lang = optarg;
            break;
        case O_SPLIT:
            if (strcmp(optarg, "sentences") == 0) {
                o->split = XLATE_SPLIT_SENTENCES;
            } else if (strcmp(optarg, "none") == 0) {
                o->split = XLATE_SPLIT_NONE;
            } else {
                char q[200];
                fprintf(stderr, "xlate: --split: expected sentences or none, got \"%s\"\n",
                        cli_quote(q, sizeof q, optarg, strlen(optarg)));
                return -1;
            }
            break;
        case O_PARAS: o->paragraphs = 1; break;
        case O_ALIGN: o->dp.alignments = 1; break;
        case O_DOC:
            if ((o->doc_fmt = cli_doc_format(optarg)) < 0)
                return -1;
            break;
        case O_IN_FMT:
        case O_OUT_FMT: {
            const char *name = c == O_IN_FMT ? "--input-format" : "--output-format";
            int fmt = strcmp(optarg, "text") == 0  ? FMT_TEXT
                      : strcmp(optarg, "ids") == 0 ? FMT_IDS
                      : strcmp(optarg, "jsonl") == 0 && c == O_OUT_FMT ? FMT_JSONL
                                                                        : -1;
            if (fmt < 0) {
                char q[200];
                fprintf(stderr, "xlate: %s: expected %s, got \"%s\"\n", name,
                        c == O_IN_FMT ? "text or ids" : "text, ids or jsonl",
                        cli_quote(q, sizeof q, optarg, strlen(optarg)));
                return -1;
            }
            *(c == O_IN_FMT ? &o->in_fmt : &o->out_fmt) = fmt;
            break;
        }
        case O_LP:
            if (parse_float_opt("--length-penalty", optarg, 0, 10, &f, err, sizeof err))
                goto bad;
            o->dp.length_penalty = (float)f;
            o->lp_set = 1;
            break;
        case O_BATCH: case O_BATCH_TOK: case O_THREADS: case O_MAXLEN: case O_MAXIN:
        case O_BEAM: case O_NBEST: case O_WINDOW: case O_MINLEN: {
            const char *name = c == O_BATCH       ? "--batch-size"
                               : c == O_BATCH_TOK ? "--batch-tokens"
                               : c == O_THREADS   ? "--threads"
                               : c == O_MAXLEN    ? "--max-length"
                               : c == O_MINLEN    ? "--min-length"
                               : c == O_MAXIN     ? "--max-input-length"
                               : c == O_BEAM      ? "--beam-size"
                               : c == O_NBEST     ? "--n-best"
                                                  : "--window";
            long hi = c == O_THREADS  ? 1024
                      : c == O_BEAM   ? 256
                      : c == O_BATCH  ? MAX_BATCH
                      : c == O_WINDOW ? MAX_WINDOW
                                      : 1L << 30;
            if (parse_int_opt(name, optarg, c == O_THREADS || c == O_MINLEN ? 0 : 1, hi, &v, err,
                              sizeof err))
                goto bad;
            switch (c) {
            case O_BATCH: o->batch_size = v; break;
            case O_BATCH_TOK: o->batch_tokens = v; break;
            case O_THREADS: o->threads = v; break;
            case O_MAXLEN: o->dp.max_length = (int)v; break;
            case O_MINLEN: o->dp.min_length = (int)v; break;
            case O_MAXIN: o->max_input_length = v; break;
            case O_BEAM: o->dp.beam_size = (int)v; o->beam_set = 1; break;
            case O_NBEST: o->dp.n_best = (int)v; break;
            case O_WINDOW: o->window = v; break;
            }
            break;
        }
        case ':':
            fprintf(stderr, "xlate: %s needs a value (see xlate --help)\n", argv[optind - 1]);
            return -1;
        default:
            if (optopt)
                fprintf(stderr, "xlate: unknown option -%c (see xlate --help)\n", optopt);
            else
                fprintf(stderr, "xlate: unknown option %s (see xlate --help)\n",
                        argv[optind - 1]);
            return -1;
        }
    }
    if (o->beam_set && o->dp.n_best > o->dp.beam_size) {
        fprintf(stderr, "xlate: --n-best %d: must not exceed --beam-size (%d)\n", o->dp.n_best,
                o->dp.beam_size);
        return -1;
    }
    if (o->dp.alignments && o->out_fmt != FMT_JSONL) {
        fprintf(stderr, "xlate: --alignments: only with --output-format jsonl\n");
        return -1;
    }
    if (o->scores && o->out_fmt != FMT_JSONL) {
        fprintf(stderr, "xlate: --scores: only with --output-format jsonl\n");
        return -1;
    }
    o->dp.token_scores = o->scores;
    if (o->out_fmt == FMT_JSONL || o->dp.n_best > 1 || o->dp.beam_size > 1)
        o->dp.scores = 1;
    o->texts = argv + optind;
    o->n_texts = argc - optind;
    if (o->in_fmt == FMT_IDS && (o->paragraphs || o->source_lang)) {
        fprintf(stderr, "xlate: %s: only with text input (lines of ids are never split)\n",
                o->paragraphs ? "--paragraphs" : "--source-lang");
        return -1;
    }
    if (o->doc_fmt && (o->in_fmt != FMT_TEXT || o->out_fmt != FMT_TEXT || o->n_texts ||
                       o->paragraphs || o->dp.n_best > 1 || o->dopts.prefix_file ||
                       o->dopts.prefix_column || o->dopts.alternatives > 1)) {
        fprintf(stderr, "xlate: --format: a document is text in, text out, one translation: "
                "not with %s\n", o->in_fmt != FMT_TEXT    ? "--input-format ids"
                                 : o->out_fmt != FMT_TEXT ? "--output-format ids or jsonl"
                                 : o->n_texts             ? "TEXT arguments (give it on stdin or with -i)"
                                 : o->paragraphs          ? "--paragraphs"
                                 : o->dp.n_best > 1       ? "--n-best"
                                 : o->dopts.alternatives > 1 ? "--return-alternatives"
                                                          : "--target-prefix");
        return -1;
    }
    if (o->n_texts && o->input) {
        fprintf(stderr, "xlate: give either -i FILE or TEXT arguments, not both\n");
        return -1;
    }
    return 0;
bad:
    fprintf(stderr, "xlate: %s\n", err);
    return -1;
}

/* Ends the progress line, so that a message starts on a line of its own. */
static void end_progress(run *r)
{
    if (r->shown) {
        fputc('\n', stderr);
        r->shown = 0;
    }
}

static void warn(run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(run *r, const char *fmt, ...)
{
    va_list ap;
    if (r->o->quiet)
        return;
    end_progress(r);
    fputs("xlate: warning: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void fail(run *r, const char *msg)
{
    end_progress(r);
    fprintf(stderr, "xlate: %s\n", msg);
}

/* "1:02:03" or "2:03" */
static void hms(double s, char *out, size_t n)
{
    long t = s > 0 && s < 1e9 ? (long)(s + 0.5) : 0;
    if (t >= 3600)
        snprintf(out, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(out, n, "%ld:%02ld", t / 60, t % 60);
}

/* The progress line, at most four times a second (always when final). lines: lines answered
 * so far; offset: their input bytes. */
static void progress(run *r, long lines, long long offset, int final)
{
    double now = now_seconds(), t = now - r->t_start - r->t_load;
    char el[32], eta[32];
    if (!r->progress || (!final && now - r->t_shown < 0.25))
        return;
    r->t_shown = now;
    hms(t, el, sizeof el);
    if (r->in.size > 0 && offset > 0) {
        double frac = (double)offset / (double)r->in.size;
        hms(final ? 0 : t * (1 - frac) / frac, eta, sizeof eta);
        fprintf(stderr, "\rxlate: %ld lines, %3.0f%%, %.1f lines/s, %.1f sentences/s, %s "
                "elapsed, %s left\033[K", lines, 100 * frac, t > 0 ? lines / t : 0.0,
                t > 0 ? r->st.sentences / t : 0.0, el, eta);
    } else {
        fprintf(stderr, "\rxlate: %ld lines, %.1f lines/s, %.1f sentences/s, %s elapsed\033[K",
                lines, t > 0 ? lines / t : 0.0, t > 0 ? r->st.sentences / t : 0.0, el);
    }
    r->shown = 1;
    if (final)
        end_progress(r);
}

/* Parses a line of ids; message names the line. */
static int parse_ids(const char *s, size_t len, int vocab, int **ids, int *n, const char *where,
                     char *err, size_t errlen)
{
    int cap = 16, cnt = 0, *out = malloc(cap * sizeof *out);
    size_t i = 0;
    if (!out)
        return xerr(err, errlen, "%s: out of memory", where);
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
            char field[200];
            while (end < len && s[end] != ' ' && s[end] != '\t')
                end++;
            free(out);
            return xerr(err, errlen, "%s: \"%s\" is not a token id (expected "
                        "space-separated non-negative integers)", where,
                        cli_quote(field, sizeof field, s + start, end - start));
        }
        if (v >= vocab) {
            free(out);
            return xerr(err, errlen, "%s: id %.*s is outside the source vocabulary [0, %d)",
                        where, (int)(i - start > 40 ? 40 : i - start), s + start, vocab);
        }
        if (cnt == cap) {
            int *q = realloc(out, (cap *= 2) * sizeof *out);
            if (!q) {
                free(out);
                return xerr(err, errlen, "%s: out of memory", where);
            }
            out = q;
        }
        out[cnt++] = (int)v;
    }
    *ids = out;
    *n = cnt;
    return 0;
}

/* The pipeline's source (xlate_source): the next line of the reader, as text, or as ids
 * parsed here (--input-format ids). The tag is the line number, doubled, plus 1 when the
 * reader cut the line (longer than in.max_line bytes), for the warnings of cli_put. */
static int cli_next(void *user, xlate_line *line, char *err, size_t errlen)
{
    run *r = user;
    char *s, where[96];
    size_t len;
    int got = r->o->paragraphs ? para_next(&r->para, &s, &len, err, errlen)
                               : reader_next(&r->in, &s, &len, err, errlen);
    if (got <= 0) {
        r->bad_status = XLATE_EXIT_INPUT;
        return got;
    }
    line->tag = r->o->paragraphs ? r->para.first_line * 2 + (r->para.cut != 0)
                                 : r->in.line * 2 + (r->in.cut != 0);
    if (decode_has_prefix(r->dopts)) {
        reader_where(&r->in, r->in.line, where, sizeof where);
        if (decode_prefix(r->dopts, r->model, r->o->in_fmt == FMT_IDS, r->o->dp.max_length, &s,
                          &len, where, line, err, errlen)) {
            r->bad_status = XLATE_EXIT_USAGE;
            return -1;
        }
    }
    if (r->o->in_fmt == FMT_IDS) {
        reader_where(&r->in, r->in.line, where, sizeof where);
        free(r->ids);
        r->ids = NULL;
        if (parse_ids(s, len, r->info.src_vocab, &r->ids, &line->n_ids, where, err, errlen)) {
            r->bad_status = XLATE_EXIT_INPUT;
            return -1;
        }
        line->ids = r->ids;
    } else {
        line->text = s;
        line->len = len;
    }
    return 1;
}

static int cli_ready(void *user)
{
    run *r = user;
    return r->o->paragraphs ? para_ready(&r->para) : reader_ready(&r->in);
}

/* The pipeline's progress: lines and input bytes of the window, in proportion to its
 * sentences translated. */
static void cli_progress(void *user, const xlate_progress *p)
{
    run *r = user;
    long long off0 = r->done_offset, off1 = r->in.offset;
    int i = p->window_translated, m = p->window_sentences;
    progress(r, p->lines_done + (long)((double)p->window_lines * i / m),
             off0 + (long long)((double)(off1 - off0) * i / m), 0);
}

/* Stop translating what nobody will read. */
static int cli_cancel(void *user) { return writer_gone(&((run *)user)->out); }

/* The pipeline's sink (xlate_sink): a line's warnings (cut), then its answer. */
static int cli_put(void *user, const xlate_translation *t, char *err, size_t errlen)
{
    run *r = user;
    char where[96];

    reader_where(&r->in, t->tag / 2, where, sizeof where);
    if (t->tag % 2) {
        r->cut++;
        if (t->src_tokens_read > t->src_tokens)
            warn(r, "%s: longer than %zu bytes; kept the first %ld source tokens "
                 "(--max-input-length)", where, r->in.max_line, r->max_in);
        else
            warn(r, "%s: longer than %zu bytes; kept the first %zu bytes", where,
                 r->in.max_line, r->in.max_line);
    } else {
        for (int k = 0; k < t->n_segments; k++) {
            const xlate_segment *sg = &t->segments[k];
            char which[32] = "";
            if (sg->src_tokens_read <= sg->src_tokens)
                continue;
            r->cut++;
            if (t->n_segments > 1)
                snprintf(which, sizeof which, ", sentence %d", k + 1);
            warn(r, "%s%s: %d source tokens, kept the first %ld (--max-input-length)", where,
                 which, sg->src_tokens_read, r->max_in);
        }
    }
    return output_line(&r->fmt, t, err, errlen);
}

/* After each window: flush; stop when the output failed. */
static int cli_flush(void *user)
{
    run *r = user;
    writer_flush(&r->out);
    if (r->out.failed)
        return 1;
    r->done_offset = r->in.offset;
    progress(r, r->st.lines, r->done_offset, 0);
    return 0;
}

/* Appends to an out-of-memory message what would need less. */
static void memory_hint(const run *r, char *err, size_t errlen)
{
    struct rlimit rl;
    size_t n = strlen(err);
    int threads = xlate_ctx_threads(r->ctx);
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        snprintf(err + n, errlen - n, "; under the address-space limit (ulimit -v) of %llu MB "
                 "with %d thread%s, batches of %ld and beam size %d: %sa smaller --batch-size or "
                 "--beam-size needs less", (unsigned long long)(rl.rlim_cur >> 20), threads,
                 threads > 1 ? "s" : "", (long)r->lp.batch_size, r->lp.decode.beam_size,
                 threads > 1 ? "fewer --threads, " : "");
    else
        snprintf(err + n, errlen - n, "; %sa smaller --batch-size or --beam-size needs less",
                 threads > 1 ? "fewer --threads, " : "");
}

/* Reads, translates and writes everything. Returns the exit status. */
static int stream(run *r)
{
    char err[XLATE_ERRLEN], where[96];
    xlate_source in = {cli_next, cli_ready, r};
    xlate_sink out = {cli_put, cli_flush, r};
    int rc;

    r->lp.progress = cli_progress;
    r->lp.progress_user = r;
    r->lp.cancel = cli_cancel;
    r->lp.cancel_user = r;
    rc = xlate_translate_lines(r->ctx, &r->lp, &in, &out, &r->st, err, sizeof err);
    switch (rc) {
    case 0:
        progress(r, r->st.lines, r->done_offset, 1);
        return XLATE_EXIT_OK;
    case XLATE_CANCELLED: /* the output failed or went away */
        end_progress(r);
        return writer_error(&r->out, 1);
    case XLATE_ERR_SOURCE: /* the lines before the bad one are answered */
        progress(r, r->st.lines, r->done_offset, 1);
        fail(r, err);
        return r->bad_status;
    case XLATE_ERR_LINE:
        progress(r, r->st.lines, r->done_offset, 1);
        reader_where(&r->in, r->st.error_tag / 2, where, sizeof where);
        end_progress(r);
        fprintf(stderr, "xlate: %s: %s\n", where, err);
        return XLATE_EXIT_INTERNAL;
    default:
        if (strstr(err, "out of memory"))
            memory_hint(r, err, sizeof err);
        fail(r, err);
        return XLATE_EXIT_INTERNAL;
    }
}

static void release(run *r)
{
    free(r->ids);
    xlate_ctx_free(r->ctx);
    xlate_model_free(r->model);
}

static void report(const run *r)
{
    const xlate_lines_stats *st = &r->st;
    double total = now_seconds() - r->t_start;
    double tt = st->translate_seconds > 0 ? st->translate_seconds : 1e-9;
    fprintf(stderr,
            "xlate: %ld lines: %ld sentences translated in %ld batches (%ld windows), %ld empty, "
            "%ld cut\n"
            "xlate: %lld source tokens, %lld target tokens (eos not counted)\n"
            "xlate: load %.3f s, translate %.3f s, total %.3f s\n"
            "xlate: %.1f sentences/s, %.1f source tokens/s, %.1f target tokens/s\n",
            st->lines, st->sentences, st->batches, st->windows, st->empty, r->cut,
            st->src_tokens, st->tgt_tokens, r->t_load, st->translate_seconds, total,
            st->sentences / tt, (double)st->src_tokens / tt, (double)st->tgt_tokens / tt);
    if (r->lp.split == XLATE_SPLIT_SENTENCES)
        fprintf(stderr, "xlate: splitting into sentences %.3f s (%.2f%% of the translate time)\n",
                st->split_seconds, 100 * st->split_seconds / tt);
    if (r->ctx) {
        xlate_time_split ts = xlate_ctx_time_split(r->ctx);
        double rest = st->translate_seconds - ts.encoder_s - ts.decoder_s - ts.projection_s;
        fprintf(stderr,
                "xlate: translate time: encoder %.3f s, decoder layers %.3f s, output projection "
                "%.3f s (%.0f%%), search and batching %.3f s\n",
                ts.encoder_s, ts.decoder_s, ts.projection_s, 100 * ts.projection_s / tt,
                rest > 0 ? rest : 0);
    }
}

/* Loads the model and checks the options against it. Returns the exit status. */
/* An M2M100 / NLLB model (lang_forced): --target-lang's token is forced as the first
 * generated token; the source language's (--source-lang, else the tokenizer's src_lang) goes
 * in front of each text source, or after its eos under NLLB's legacy_behaviour. Lines of ids
 * carry their own source language token. A missing or unknown code is a usage error that
 * names the codes closest to it. */
static int setup_forced_langs(run *r, options *o)
{
    const char *src = o->source_lang ? o->source_lang : r->info.source_lang;
    int tgt;
    char near[256];
    if (!o->target_lang && o->in_fmt != FMT_TEXT)
        return 0; /* lines of ids: their own tokens, the model's forced_bos_token_id if any */
    if (!o->target_lang) {
        fprintf(stderr, "xlate: this model translates into any of its %d languages: give "
                "--target-lang CODE, a code like %s (xlate info lists them)\n",
                r->info.n_langs, r->info.source_lang ? r->info.source_lang : "the model's");
        return -1;
    }
    if ((tgt = xlate_lang_id(r->model, o->target_lang)) < 0) {
        xlate_lang_suggest(r->model, o->target_lang, near, sizeof near);
        fprintf(stderr, "xlate: --target-lang %s: not one of the model's %d language codes; "
                "the closest: %s\n", o->target_lang, r->info.n_langs, near);
        return -1;
    }
    o->dp.forced_bos_id = tgt;
    if (o->in_fmt != FMT_TEXT)
        return 0;
    if (!src || (r->lang_id = xlate_lang_id(r->model, src)) < 0) {
        xlate_lang_suggest(r->model, src ? src : "eng_Latn", near, sizeof near);
        fprintf(stderr, "xlate: --source-lang %s: not one of the model's %d language codes; "
                "the closest: %s\n", src ? src : "(none)", r->info.n_langs, near);
        return -1;
    }
    if (r->info.lang_after_eos) {
        o->dp.source_suffix_id = r->lang_id;
        r->lang_id = -1;
    }
    return 0;
}

static int setup(run *r, options *o, char *dir, size_t dirlen)
{
    char err[XLATE_ERRLEN];
    xlate_model_params mp = xlate_model_default_params();

    if (find_model_dir(o->model, dir, dirlen, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        return XLATE_EXIT_MODEL;
    }
    r->dir = dir;
    mp.load_tokenizers = o->in_fmt == FMT_TEXT || o->out_fmt != FMT_IDS || o->target_lang ||
                         o->dopts.n_suppress;
    mp.warn = warn_stderr;
    mp.warn_user = &o->quiet;
    mp.compute_type = (xlate_compute_type)o->compute_type;
    if (xlate_model_load(&r->model, dir, &mp, err, sizeof err))
        return cli_load_failed("xlate", err); /* 5 when memory, not the model, is missing */
    r->info = xlate_model_get_info(r->model);
    cli_name_weights(dir, r->info.weights);
    if (!r->info.has_tokenizer && (o->in_fmt == FMT_TEXT || o->out_fmt == FMT_TEXT)) {
        fprintf(stderr, "xlate: %s: the model has no tokenizer (config field \"tokenizer\"): "
                "use --input-format ids --output-format ids\n", dir);
        return XLATE_EXIT_MODEL;
    }
    {
        /* the model's own defaults (Hugging Face generation_config.json) where no option says */
        xlate_decode_params md = xlate_model_decode_defaults(r->model);
        if (!o->beam_set)
            o->dp.beam_size = md.beam_size;
        if (!o->lp_set)
            o->dp.length_penalty = md.length_penalty;
        if (decode_opts_apply(&o->dopts, r->model, &md, o->beam_set, &o->dp, err, sizeof err)) {
            fprintf(stderr, "xlate: %s\n", err);
            return XLATE_EXIT_USAGE;
        }
        if (o->dp.n_best > o->dp.beam_size) {
            fprintf(stderr, "xlate: --n-best %d: must not exceed the beam size (%d%s)\n",
                    o->dp.n_best, o->dp.beam_size, o->beam_set ? "" : ", the model's num_beams");
            return XLATE_EXIT_USAGE;
        }
        if (o->dp.beam_size > 1)
            o->dp.scores = 1;
    }
    r->lang_id = -1;
    if (r->info.lang_forced && setup_forced_langs(r, o))
        return XLATE_EXIT_USAGE;
    if (o->target_lang && !r->info.lang_forced) {
        r->lang_id = xlate_lang_id(r->model, o->target_lang);
        if (r->lang_id < 0) {
            char list[1024] = "", q[200];
            size_t n = 0;
            for (int i = 0; i < r->info.n_langs && n + 2 < sizeof list; i++)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? " " : "",
                                      r->info.langs[i]);
            if (n >= sizeof list)
                memcpy(list + sizeof list - 5, "...", 4);
            /* the value quoted once, escaped and cut at 40 bytes (cli_quote): a newline
             * or a terminal control in it cannot forge or drive stderr (issue 27) */
            cli_quote(q, sizeof q, o->target_lang, strlen(o->target_lang));
            if (r->info.n_langs)
                fprintf(stderr, "xlate: --target-lang \"%s\": the model has no >>..<< token "
                        "for it; its languages: %s\n", q, list);
            else
                fprintf(stderr, "xlate: --target-lang \"%s\": the model is not multilingual "
                        "(no >>xx<< tokens in its vocab.json)\n", q);
            return XLATE_EXIT_USAGE;
        }
    }
    r->lp = xlate_lines_default_params();
    r->lp.decode = o->dp;
    r->lp.batch_size = (int)o->batch_size;
    r->lp.batch_tokens = (int)o->batch_tokens;
    r->lp.window = (int)o->window;
    r->lp.max_input_length = o->max_input_length > 0 ? (int)o->max_input_length : 0;
    r->lp.target_lang_id = r->lang_id;
    r->lp.split = o->in_fmt == FMT_TEXT ? o->split : XLATE_SPLIT_NONE;
    /* an M2M100 / NLLB code ("eng_Latn") is no splitter language: the model's own rules */
    r->lp.source_lang = r->info.lang_forced ? NULL : o->source_lang;
    r->lp.target_lang = o->target_lang && is_lang_code(o->target_lang) && !r->info.lang_forced
                        ? o->target_lang : NULL;
    r->fmt.model = r->model;
    r->fmt.has_tokenizer = r->info.has_tokenizer;
    r->fmt.fmt = o->out_fmt;
    r->fmt.n_best = o->dp.return_alternatives > 1 ? o->dp.return_alternatives : o->dp.n_best;
    r->fmt.token_scores = o->dp.token_scores;
    r->fmt.sentences = o->in_fmt == FMT_TEXT;
    r->fmt.alignments = o->dp.alignments;
    r->fmt.w = &r->out;
    if (xlate_lines_params_check(r->model, &r->lp, err, sizeof err)) {
        cli_option_words(err, sizeof err);
        fprintf(stderr, "xlate: %s\n", err);
        return XLATE_EXIT_USAGE;
    }
    r->max_in = o->max_input_length > 0 ? o->max_input_length : r->info.max_positions - 1;
    if (!(r->ctx = xlate_ctx_new(r->model, (int)o->threads, err, sizeof err))) {
        fprintf(stderr, "xlate: %s\n", err);
        return XLATE_EXIT_INTERNAL;
    }
    if (o->threads > xlate_ctx_threads(r->ctx)) {
        struct rlimit rl;
        int n = xlate_ctx_threads(r->ctx);
        if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            warn(r, "--threads %ld: %d fit%s under the address-space limit (ulimit -v) of %llu MB; "
                 "translating with %d", o->threads, n, n > 1 ? "" : "s",
                 (unsigned long long)(rl.rlim_cur >> 20), n);
        else
            warn(r, "--threads %ld: %d could be started; translating with %d", o->threads, n, n);
    }
    xlate_ctx_set_batch_invariant(r->ctx, !o->fast);
    r->t_load = now_seconds() - r->t_start;
    if (o->verbose)
        fprintf(stderr, "xlate: model %s: %zu parameters, %d+%d layers, d_model %d; threads %d, "
                "batches of %ld, window %ld; loaded in %.3f s\n", dir, r->info.n_params,
                r->info.encoder_layers, r->info.decoder_layers, r->info.d_model,
                xlate_ctx_threads(r->ctx), (long)r->lp.batch_size,
                (long)xlate_lines_window(&r->lp), r->t_load);
    if (o->verbose) {
        char k[256];
        fprintf(stderr, "xlate: compute type %s%s; %s\n", xlate_model_compute_type(r->model),
                o->compute_type == XLATE_AUTO ? " (auto)" : "",
                xlate_kernels_desc(r->model, k, sizeof k));
        if (o->dp.sampling)
            fprintf(stderr, "xlate: sampling seed %llu (--seed), top-k %d, top-p %g, "
                    "temperature %g\n", o->dp.seed, o->dp.sampling_topk,
                    (double)o->dp.sampling_topp, (double)o->dp.sampling_temperature);
    }
    return XLATE_EXIT_OK;
}

/* 1 when path names the file the reader reads. */
static int same_file(const line_reader *in, const char *path)
{
    struct stat a, b;
    if (in->fd < 0 || !path || strcmp(path, "-") == 0)
        return 0;
    return fstat(in->fd, &a) == 0 && stat(path, &b) == 0 && S_ISREG(a.st_mode) &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int cmd_translate(int argc, char **argv)
{
    options o;
    run r;
    char err[XLATE_ERRLEN], dir[4096];
    int rc, status;

    rc = parse_options(&o, argc, argv);
    if (rc == -2)
        return fflush(stdout) == 0 && !ferror(stdout) ? XLATE_EXIT_OK : XLATE_EXIT_OUTPUT;
    if (rc)
        return XLATE_EXIT_USAGE;
    memset(&r, 0, sizeof r);
    r.o = &o;
    r.dopts = &o.dopts;
    o.dopts.pre.fd = -1;
    r.in.fd = -1;
    r.t_start = now_seconds();

    status = setup(&r, &o, dir, sizeof dir);
    if (status != XLATE_EXIT_OK)
        goto done;
    if (o.n_texts) {
        reader_texts(&r.in, o.texts, o.n_texts);
    } else if (reader_open(&r.in, o.input, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        status = XLATE_EXIT_INPUT;
        goto done;
    }
    if (decode_prefix_open(&o.dopts, !o.n_texts && (!o.input || !strcmp(o.input, "-")), err,
                           sizeof err) ||
        (decode_has_prefix(&o.dopts) && o.paragraphs &&
         xerr(err, sizeof err, "--target-prefix: not with --paragraphs"))) {
        fprintf(stderr, "xlate: %s\n", err);
        status = XLATE_EXIT_USAGE;
        goto done;
    }
    if (same_file(&r.in, o.output)) {
        fprintf(stderr, "xlate: -o %s: is the input file (it would be emptied before it is "
                "read)\n", o.output);
        status = XLATE_EXIT_USAGE;
        goto done;
    }
    if (writer_open(&r.out, o.output, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        status = XLATE_EXIT_OUTPUT;
        goto done;
    }
    /* A line is cut where it surely holds more than max_in tokens: memory stays bounded. */
    /* A line of sentences may be long (a paragraph): up to READER_MAX_LINE bytes. */
    if (o.in_fmt == FMT_IDS || o.split == XLATE_SPLIT_NONE)
        r.in.max_line = r.max_in * 256 > 65536 ? (size_t)r.max_in * 256 : 65536;
    r.para.in = &r.in;
    /* Not when the translations go to the same terminal: they would break the line. */
    r.progress = !o.quiet && r.in.regular && isatty(STDERR_FILENO) &&
                 (r.out.f != stdout || !isatty(STDOUT_FILENO));

    status = o.doc_fmt ? cli_doc(r.ctx, &r.lp, o.doc_fmt, &r.in, &r.out, o.quiet, o.verbose)
                       : stream(&r);
    if (writer_close(&r.out) && status == XLATE_EXIT_OK)
        status = writer_error(&r.out, 1);
    if (o.verbose && !o.doc_fmt)
        report(&r);
done:
    reader_close(&r.in);
    para_free(&r.para);
    release(&r);
    decode_opts_free(&o.dopts);
    return status;
}
