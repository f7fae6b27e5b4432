/* cli_decode_opts.c — the decoding controls of the command line (cli_decode_opts.h).
 *
 * Sampling follows CTranslate2's options: --sampling-topk K draws among the K most probable
 * tokens (0: among all; 1, the default: greedy), --sampling-topp and --sampling-temperature
 * shape the distribution. Giving --sampling-topp or --sampling-temperature, or a top-k other
 * than 1, turns sampling on (a top-k left out then means all tokens); a Hugging Face model whose
 * generation_config.json says do_sample samples by default, with its top_k, top_p and
 * temperature, each overridden by its option, and --beam-size K > 1 or --sampling-topk 1 turn it
 * off. Sampling is greedy's: with --beam-size K > 1 it is a usage error. */
#include "cli/cli_decode_opts.h"
#include "cli/cli_common.h"
#include "base/util.h"
#include "decode_rules.h"
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* An unsigned 64-bit decimal, plain (no sign, no blanks). */
static int parse_seed(const char *s, unsigned long long *out, char *err, size_t errlen)
{
    unsigned long long v = 0;
    char q[200];
    if (!*s)
        goto bad;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9' || v > (~0ULL - (unsigned)(*p - '0')) / 10)
            goto bad;
        v = v * 10 + (unsigned)(*p - '0');
    }
    *out = v;
    return 0;
bad:
    return xerr(err, errlen, "--seed: expected an integer from 0 to %llu, got \"%s\"", ~0ULL,
                cli_quote(q, sizeof q, s, strlen(s)));
}

/* A positive number at most hi, checked as the float it becomes (the decoding's arithmetic
 * is in floats: 1e-320 is 0 there). One message for every way to miss: a bad syntax, out of
 * range, 0 as a float, with the real range (issue 37: 1e308 was said to be outside -1e300 to
 * 1e300). `note` follows the range in the message. */
static int positive_opt(const char *opt, const char *arg, double hi, const char *note,
                        float *out, char *err, size_t errlen)
{
    double f;
    char e2[XLATE_ERRLEN], q[200];
    if (parse_float_opt(opt, arg, -DBL_MAX, DBL_MAX, &f, e2, sizeof e2) || !((float)f > 0) ||
        f > hi)
        return xerr(err, errlen, "%s: expected a number > 0 (at least 1.4e-45, the smallest "
                    "32-bit float) and at most %g%s, got \"%s\"", opt, hi, note,
                    cli_quote(q, sizeof q, arg, strlen(arg)));
    *out = (float)f;
    return 0;
}

int decode_opt(decode_opts *d, int c, const char *arg, char *err, size_t errlen)
{
    long v;
    switch (c) {
    case DOPT_REP: {
        /* from DECODE_REPETITION_MIN (decode_rules.h: below it the start token or a first
         * word repeated wins over the translation), as the float it becomes */
        double f;
        char e2[XLATE_ERRLEN], q[200];
        if (parse_float_opt("--repetition-penalty", arg, -DBL_MAX, DBL_MAX, &f, e2, sizeof e2)
            || !((float)f >= (float)DECODE_REPETITION_MIN) || f > 1000)
            return xerr(err, errlen, "--repetition-penalty: expected a number > 0, at least "
                        "%g (below 1 it rewards repeated tokens, and below %g the repeats leave "
                        "no translation) and at most 1000 (1: off; above 1 penalizes them), got "
                        "\"%s\"", DECODE_REPETITION_MIN, DECODE_REPETITION_MIN,
                        cli_quote(q, sizeof q, arg, strlen(arg)));
        d->rep = (float)f;
        d->rep_set = 1;
        return 0;
    }
    case DOPT_NGRAM:
        if (parse_int_opt("--no-repeat-ngram-size", arg, 0, 1L << 20, &v, err, errlen))
            return -1;
        d->ngram = (int)v;
        d->ngram_set = 1;
        return 0;
    case DOPT_UNK:
        d->disable_unk = 1;
        return 0;
    case DOPT_SUPPRESS:
        if (d->n_suppress == DECODE_MAX_SUPPRESS)
            return xerr(err, errlen, "--suppress: at most %d sequences", DECODE_MAX_SUPPRESS);
        d->suppress[d->n_suppress++] = arg;
        return 0;
    case DOPT_TOPK:
        if (parse_int_opt("--sampling-topk", arg, 0, 1L << 30, &v, err, errlen))
            return -1;
        d->topk = (int)v;
        d->topk_set = 1;
        return 0;
    case DOPT_TOPP:
        if (positive_opt("--sampling-topp", arg, 1, ", in (0, 1] (1: every token)", &d->topp,
                         err, errlen))
            return -1;
        d->topp_set = 1;
        return 0;
    case DOPT_TEMP:
        if (positive_opt("--sampling-temperature", arg, 1000, "", &d->temp, err, errlen))
            return -1;
        d->temp_set = 1;
        return 0;
    case DOPT_SEED:
        if (parse_seed(arg, &d->seed, err, errlen))
            return -1;
        d->seed_set = 1;
        return 0;
    case DOPT_PREFIX:
        d->prefix_file = arg;
        return 0;
    case DOPT_PREFIX_COL:
        d->prefix_column = 1;
        return 0;
    case DOPT_ALT:
        if (parse_int_opt("--return-alternatives", arg, 1, 256, &v, err, errlen))
            return -1;
        d->alternatives = (int)v;
        return 0;
    }
    return xerr(err, errlen, "internal: decode option %d", c);
}

/* The --suppress texts as target id sequences. */
static int suppress_ids(decode_opts *d, const xlate_model *m, xlate_decode_params *dp,
                        char *err, size_t errlen)
{
    int total = 0, cap = 64;
    char q[200];
    if (!d->n_suppress)
        return 0;
    d->sup_off = malloc((d->n_suppress + 1) * sizeof *d->sup_off);
    d->sup_ids = malloc(cap * sizeof *d->sup_ids);
    if (!d->sup_off || !d->sup_ids)
        return xerr(err, errlen, "out of memory");
    d->sup_off[0] = 0;
    for (int k = 0; k < d->n_suppress; k++) {
        int *ids, n;
        char e2[XLATE_ERRLEN];
        if (xlate_tokenize_target(m, d->suppress[k], strlen(d->suppress[k]), &ids, &n, e2,
                                  sizeof e2))
            return xerr(err, errlen, "--suppress \"%s\": %s",
                        cli_quote(q, sizeof q, d->suppress[k], strlen(d->suppress[k])), e2);
        if (n == 0)
            return xerr(err, errlen, "--suppress \"%s\": no target tokens (give a word or "
                        "phrase)", cli_quote(q, sizeof q, d->suppress[k],
                                             strlen(d->suppress[k])));
        if (total + n > cap) {
            int *t;
            while (total + n > cap)
                cap *= 2;
            if (!(t = realloc(d->sup_ids, cap * sizeof *t))) {
                free(ids);
                return xerr(err, errlen, "out of memory");
            }
            d->sup_ids = t;
        }
        memcpy(d->sup_ids + total, ids, n * sizeof *ids);
        free(ids);
        total += n;
        d->sup_off[k + 1] = total;
    }
    dp->n_suppress = d->n_suppress;
    dp->suppress_off = d->sup_off;
    dp->suppress_ids = d->sup_ids;
    return 0;
}

/* A seed nobody chose: the kernel's random bytes (else the clock and the process id). */
static unsigned long long random_seed(void)
{
    unsigned long long s;
    struct timespec ts;
    if (getrandom(&s, sizeof s, GRND_NONBLOCK) == (ssize_t)sizeof s)
        return s;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ((unsigned long long)ts.tv_sec * 1000000007ULL) ^ (unsigned long long)ts.tv_nsec ^
           ((unsigned long long)getpid() << 32);
}

const char *decode_beam_source(const decode_opts *d, const xlate_decode_params *md,
                               int beam_set, const xlate_decode_params *dp, char *buf,
                               size_t size)
{
    if (beam_set)
        snprintf(buf, size, "--beam-size %d", dp->beam_size);
    else if (dp->sampling && (d->topp_set || d->temp_set || d->topk_set))
        snprintf(buf, size, "1: --%s samples, one token at a time",
                 d->topk_set ? "sampling-topk" : d->topp_set ? "sampling-topp"
                                                              : "sampling-temperature");
    else if (dp->sampling)
        snprintf(buf, size, "1: the model's generation_config.json sets do_sample");
    else if (md->beam_size > 1)
        snprintf(buf, size, "%d, the model's num_beams", dp->beam_size);
    else
        snprintf(buf, size, "%d, the default; --beam-size sets it", dp->beam_size);
    return buf;
}

int decode_opts_apply(decode_opts *d, const xlate_model *m, const xlate_decode_params *md,
                      int beam_set, xlate_decode_params *dp, char *err, size_t errlen)
{
    int asked = d->topp_set || d->temp_set || (d->topk_set && d->topk != 1);
    dp->repetition_penalty = d->rep_set ? d->rep : md->repetition_penalty;
    if (!d->rep_set && !(md->repetition_penalty >= (float)DECODE_REPETITION_MIN))
        return xerr(err, errlen, "the model's generation_config.json: \"repetition_penalty\" "
                    "%g is below %g, where the repeats it rewards leave no translation; "
                    "--repetition-penalty 1 overrides it", (double)md->repetition_penalty,
                    DECODE_REPETITION_MIN);
    dp->no_repeat_ngram_size = d->ngram_set ? d->ngram : md->no_repeat_ngram_size;
    dp->disable_unk = d->disable_unk;
    /* the model's sampling, unless an option asks for a search (beams, or top-k 1: greedy) */
    dp->sampling = asked || (md->sampling && !(beam_set && dp->beam_size > 1) &&
                             !(d->topk_set && d->topk == 1));
    dp->sampling_topk = d->topk_set ? d->topk : md->sampling ? md->sampling_topk : 0;
    dp->sampling_topp = d->topp_set ? d->topp : md->sampling ? md->sampling_topp : 1;
    dp->sampling_temperature = d->temp_set ? d->temp : md->sampling ? md->sampling_temperature
                                                                    : 1;
    if (asked && beam_set && dp->beam_size > 1)
        return xerr(err, errlen, "--%s: sampling draws one token at a time: only with "
                    "--beam-size 1, got --beam-size %d", d->topk_set ? "sampling-topk"
                    : d->topp_set ? "sampling-topp" : "sampling-temperature", dp->beam_size);
    /* the alternatives continue with the search the options give: a beam of beam_size each,
     * or greedily (sampling: drawn) */
    if (d->alternatives > 1 && dp->n_best > 1)
        return xerr(err, errlen, "--return-alternatives %d: gives %d hypotheses itself (each "
                    "alternative's best): not with --n-best", d->alternatives, d->alternatives);
    dp->return_alternatives = d->alternatives > 1 ? d->alternatives : 0;
    if (dp->sampling)
        dp->beam_size = 1;
    if (dp->return_alternatives)
        dp->scores = 1;
    d->seed = dp->seed = d->seed_set ? d->seed : random_seed();
    return suppress_ids(d, m, dp, err, errlen);
}

void decode_opts_free(decode_opts *d)
{
    free(d->sup_off);
    free(d->sup_ids);
    free(d->pre_ids);
    d->sup_off = d->sup_ids = d->pre_ids = NULL;
    if (d->prefix_file)
        reader_close(&d->pre);
}

int decode_prefix_open(decode_opts *d, int in_stdin, char *err, size_t errlen)
{
    char e2[XLATE_ERRLEN];
    d->pre.fd = -1;
    if (d->prefix_file && d->prefix_column)
        return xerr(err, errlen, "--target-prefix and --target-prefix-column: give one");
    if (!d->prefix_file)
        return 0;
    if ((!strcmp(d->prefix_file, "-")) && in_stdin)
        return xerr(err, errlen, "--target-prefix -: the input is stdin already");
    if (reader_open(&d->pre, d->prefix_file, e2, sizeof e2))
        return xerr(err, errlen, "--target-prefix: %s", e2);
    return 0;
}

/* Space-separated target ids. */
static int prefix_ids(const char *s, size_t len, int vocab, int **ids, int *n, char *err,
                      size_t errlen)
{
    size_t i = 0;
    char q[200];
    *n = 0;
    if (!(*ids = malloc((len / 2 + 1) * sizeof **ids)))
        return xerr(err, errlen, "out of memory");
    while (i < len) {
        long v = 0;
        size_t st;
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i == len)
            break;
        for (st = i; i < len && s[i] >= '0' && s[i] <= '9'; i++)
            v = v < 1000000000L ? v * 10 + (s[i] - '0') : v;
        if (i == st || (i < len && s[i] != ' ' && s[i] != '\t') || v >= vocab)
            return xerr(err, errlen, "\"%s\" is not a target id (0 to %d)",
                        cli_quote(q, sizeof q, s + st, i > st ? i - st + 1 : 1), vocab - 1);
        (*ids)[(*n)++] = (int)v;
    }
    return 0;
}

int decode_prefix(decode_opts *d, const xlate_model *m, int ids, int max_length, char **s,
                  size_t *len, const char *where, xlate_line *line, char *err, size_t errlen)
{
    xlate_model_info info = xlate_model_get_info(m);
    const char *p = NULL;
    size_t plen = 0;
    char e2[XLATE_ERRLEN];
    int n = 0, limit = max_length > 0 ? max_length : info.max_positions;
    free(d->pre_ids);
    d->pre_ids = NULL;
    if (d->prefix_column) {
        char *tab = memchr(*s, '\t', *len);
        if (tab) {
            p = tab + 1;
            plen = *len - (size_t)(tab + 1 - *s);
            *len = (size_t)(tab - *s);
            *tab = '\0';
        }
    } else {
        char *ps;
        int got = reader_next(&d->pre, &ps, &plen, e2, sizeof e2);
        if (got < 0)
            return xerr(err, errlen, "--target-prefix: %s", e2);
        if (got == 0)
            return xerr(err, errlen, "--target-prefix %s: it ended before %s", d->pre.name,
                        where);
        p = ps;
    }
    if (!p || !plen)
        return 0;
    if (ids ? prefix_ids(p, plen, info.tgt_vocab, &d->pre_ids, &n, e2, sizeof e2)
            : xlate_tokenize_target(m, p, plen, &d->pre_ids, &n, e2, sizeof e2))
        return xerr(err, errlen, "%s: --target-prefix: %s", where, e2);
    if (n >= limit)
        return xerr(err, errlen, "%s: --target-prefix: %d target tokens, more than %s (%d) "
                    "allows", where, n, max_length > 0 ? "--max-length" : "max_positions",
                    limit);
    line->prefix_ids = d->pre_ids;
    line->n_prefix_ids = n;
    return 0;
}

void decode_usage(FILE *f)
{
    fputs(
        "      --repetition-penalty F\n"
        "                          divide a generated token's logit by F when\n"
        "                          positive, multiply when negative (transformers';\n"
        "                          0.7 to 1000; 1: off, the default or the model's)\n"
        "      --no-repeat-ngram-size N\n"
        "                          no N-gram twice in a translation (0: off)\n"
        "      --disable-unk       never generate the unknown token\n"
        "      --suppress TEXT     never generate TEXT's target tokens in a row (one\n"
        "                          phrase; repeat the option for more)\n"
        "      --sampling-topk K   sample among the K most probable tokens (0: all;\n"
        "                          1: greedy, the default); greedy only\n"
        "      --sampling-topp P   sample among the most probable tokens holding P\n"
        "                          of the probability, (0, 1] (default 1)\n"
        "      --sampling-temperature T\n"
        "                          sample from softmax(logits / T) (default 1)\n"
        "      --seed S            sampling: each line draws from its own stream of\n"
        "                          S and its line number (default: random; -v says)\n"
        "      --target-prefix FILE\n"
        "                          force line i of FILE as the start of line i's\n"
        "                          translation (target text, or ids with ids input)\n"
        "      --target-prefix-column\n"
        "                          the same from each input line's text after a tab\n"
        "      --return-alternatives N\n"
        "                          the N most probable tokens after the prefix, each\n"
        "                          continued with the search (a beam of its own with\n"
        "                          --beam-size K): N hypotheses, as --n-best N\n",
        f);
}

void cli_option_words(char *msg, size_t size)
{
    static const char *const words[][2] = {
        {"beam_size", "--beam-size"},       {"n_best", "--n-best"},
        {"length_penalty", "--length-penalty"}, {"max_length", "--max-length"},
        {"min_length", "--min-length"},     {"max_input_length", "--max-input-length"},
        {"batch_size", "--batch-size"},     {"batch_tokens", "--batch-tokens"},
        {"window", "--window"},             {"repetition_penalty", "--repetition-penalty"},
        {"no_repeat_ngram_size", "--no-repeat-ngram-size"}, {"suppress", "--suppress"},
        {"sampling_topk", "--sampling-topk"}, {"sampling_topp", "--sampling-topp"},
        {"sampling_temperature", "--sampling-temperature"},
        {"sampling", "sampling (--sampling-topk, --sampling-topp, --sampling-temperature)"},
        {"return_alternatives", "--return-alternatives"}, {"workspace_bytes", "--workspace"},
    };
    char out[XLATE_ERRLEN];
    size_t j = 0;
    for (size_t i = 0; msg[i] && j + 1 < sizeof out;) {
        size_t w = 0, k;
        while (msg[i + w] == '_' || (msg[i + w] >= 'a' && msg[i + w] <= 'z'))
            w++;
        for (k = 0; w && k < sizeof words / sizeof *words; k++)
            if (strlen(words[k][0]) == w && strncmp(msg + i, words[k][0], w) == 0)
                break;
        if (w && k < sizeof words / sizeof *words) {
            j += snprintf(out + j, sizeof out - j, "%s", words[k][1]);
            j = j < sizeof out ? j : sizeof out - 1;
            i += w;
        } else if (w) {
            size_t c = w < sizeof out - 1 - j ? w : sizeof out - 1 - j;
            memcpy(out + j, msg + i, c);
            j += c;
            i += w;
        } else {
            out[j++] = msg[i++];
        }
    }
    out[j] = '\0';
    snprintf(msg, size, "%s", out);
}
