/* cli_translate_opts.c — the translate command's command line: --help's text and the
 * options parsed and checked against each other (not against a model: cli_translate.c's setup
 * does that once the model is loaded). Library parameter names are mapped to options here. */
#include "cli/cli_translate.h"
#include "cli/cli_common.h"
#include "cli/cli_doc.h"
#include "cli/cli_output.h"
#include "base/util.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void usage(FILE *f)
{
    fputs(
        "Usage: xlate [OPTIONS] [TEXT...]\n"
        "       xlate info [DIR] | models [--json] | encode --spm FILE | decode --spm FILE\n"
        "Translates each line of stdin (or of -i FILE, or each TEXT) and writes one\n"
        "line per input line, in input order, to stdout (or -o FILE). Each line is\n"
        "split into sentences, translated sentence by sentence and joined again. An\n"
        "empty or blank line gives an empty line. Output starts before the input ends;\n"
        "when no more input is ready, xlate answers what it has (a co-process).\n"
        "\n"
        "Model:\n"
        "  -m, --model M           a model directory (xlate's own layout, or a Hugging\n"
        "                          Face MarianMT, NLLB or M2M100 directory as\n"
        "                          downloaded), or a Hugging Face name such as\n"
        "                          Helsinki-NLP/opus-mt-en-de: fetched once into the\n"
        "                          hub's cache (xlate pull fetches ahead). Default:\n"
        "                          $XLATE_MODEL, else models/en-de beside the\n"
        "                          executable, else installed: a small demo trained on\n"
        "                          29,000 image captions (Multi30k), good on\n"
        "                          caption-like English, bad on other text (xlate\n"
        "                          info says what a model is for)\n"
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
        "      --source-lang L     the source language (also --from L): the\n"
        "                          splitter's rules (en, de, fr...; default: the\n"
        "                          model's source language, else neutral rules);\n"
        "                          NLLB-200, M2M100: the source language's code\n"
        "                          (default: the tokenizer's src_lang); auto: the\n"
        "                          language of the first line (xlate detect), each\n"
        "                          line's said in jsonl (\"detectedLanguage\")\n"
        "      --paragraphs        wrapped text: the lines up to a blank line are one\n"
        "                          paragraph, written as one line; blank lines kept\n"
        "Documents:\n"
        "      --format F          html, markdown, srt, vtt, po, docx, pptx, odt, odp\n"
        "                          or epub: the input is one document (read whole); it\n"
        "                          comes back with its markup as it was and only its\n"
        "                          text translated (docs/DOCUMENTS.md). Default: what\n"
        "                          -i FILE's extension (or a zip's content) says\n"
        "      --retranslate       po: translate entries that have a msgstr too\n"
        "      --no-fuzzy          po: do not mark machine translations fuzzy\n"
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
        "      --target-lang L     the target language (also --to L): multilingual\n"
        "                          OPUS-MT models: put >>L<< in front of each\n"
        "                          sentence; NLLB-200, M2M100: the target language,\n"
        "                          required (eng_Latn, en; xlate info lists the\n"
        "                          languages). Without -m, a pair the default model\n"
        "                          does not translate takes a model from the hub\n"
        "                          cache that does (xlate models lists them), or\n"
        "                          names the one to get with xlate pull\n"
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
        "      --workspace SIZE    bound the decoding working memory of a batch\n"
        "                          (caches, logits, cross-attention keys and\n"
        "                          values; Marian's --workspace): SIZE in MiB, or\n"
        "                          with K, M or G; a batch that would pass it is\n"
        "                          decoded in slices, the same output (default:\n"
        "                          none; -v says what batches were planned for)\n"
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

/* --workspace SIZE: MiB as Marian's --workspace takes it, or a number with K, M or G (powers of
 * 1024), at least 1 KiB and at most 1 TiB, into bytes. */
static int parse_workspace(const char *s, long long *bytes, char *err, size_t errlen)
{
    char digits[32], q[200];
    size_t n = strlen(s);
    long long unit = 1LL << 20;
    long v;
    if (n > 0 && n < sizeof digits && strchr("KkMmGg", s[n - 1])) {
        unit = s[n - 1] == 'K' || s[n - 1] == 'k' ? 1LL << 10
               : s[n - 1] == 'M' || s[n - 1] == 'm' ? 1LL << 20 : 1LL << 30;
        memcpy(digits, s, n - 1);
        digits[n - 1] = 0;
    } else if (n < sizeof digits) {
        memcpy(digits, s, n + 1);
    } else {
        digits[0] = 0;
    }
    if (parse_int_opt("--workspace", digits, 1, (1L << 40) / unit, &v, err, errlen))
        return xerr(err, errlen, "--workspace: expected a size in MiB (e.g. 512) or with K, M "
                    "or G (e.g. 300M, 2G), from 1K to 1024G; got \"%s\"",
                    cli_quote(q, sizeof q, s, strlen(s)));
    *bytes = (long long)v * unit;
    return 0;
}

int translate_options(options *o, int argc, char **argv)
{
    enum { O_IN_FMT = 256, O_OUT_FMT, O_BATCH, O_BATCH_TOK, O_THREADS, O_MAXLEN, O_MAXIN,
           O_BEAM, O_NBEST, O_LP, O_SCORES, O_VERSION, O_WINDOW, O_FAST, O_MINLEN,
           O_COMPUTE, O_LANG, O_SRC_LANG, O_SPLIT, O_PARAS, O_ALIGN, O_DOC, O_WORKSPACE,
           O_RETRANSLATE, O_NO_FUZZY };
    static const struct option longopts[] = {
        {"model", required_argument, 0, 'm'},
        {"input", required_argument, 0, 'i'},
        {"output", required_argument, 0, 'o'},
        {"input-format", required_argument, 0, O_IN_FMT},
        {"output-format", required_argument, 0, O_OUT_FMT},
        {"batch-size", required_argument, 0, O_BATCH},
        {"batch-tokens", required_argument, 0, O_BATCH_TOK},
        {"workspace", required_argument, 0, O_WORKSPACE},
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
        {"to", required_argument, 0, O_LANG},        /* argos-translate's, translate-shell's */
        {"from", required_argument, 0, O_SRC_LANG},
        {"split", required_argument, 0, O_SPLIT},
        {"paragraphs", no_argument, 0, O_PARAS},
        {"alignments", no_argument, 0, O_ALIGN},
        {"format", required_argument, 0, O_DOC},
        {"retranslate", no_argument, 0, O_RETRANSLATE},
        {"no-fuzzy", no_argument, 0, O_NO_FUZZY},
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
            /* auto: the first line's language picks the source (cli_translate.c
             * auto_source); each line's own is said in jsonl (issue 48) */
            o->auto_src = strcasecmp(optarg, "auto") == 0;
            if (o->auto_src)
                o->source_lang = NULL;
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
            o->doc_fmt_given = 1;
            break;
        case O_RETRANSLATE: o->doc.retranslate = 1; break;
        case O_NO_FUZZY: o->doc.no_fuzzy = 1; break;
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
        case O_WORKSPACE:
            if (parse_workspace(optarg, &o->dp.workspace_bytes, err, sizeof err))
                goto bad;
            break;
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
    /* a document's format from -i FILE's extension (or a zip's content), when --format is not
     * given and nothing asks for lines */
    if (!o->doc_fmt_given && o->input && o->in_fmt == FMT_TEXT && o->out_fmt == FMT_TEXT &&
        !o->paragraphs)
        o->doc_fmt = cli_doc_detect(o->input);
    if ((o->doc.retranslate || o->doc.no_fuzzy) && o->doc_fmt != XLATE_FORMAT_PO) {
        fprintf(stderr, "xlate: %s: only for a PO catalog (--format po, or -i FILE.po)\n",
                o->doc.retranslate ? "--retranslate" : "--no-fuzzy");
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

