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
#include "doc/doc.h"
#include "cli/cli_output.h"
#include "cli/cli_outfile.h"
#include "cli/cli_decode_opts.h"
#include "cli/cli_translate.h"
#include "hub/hub_scan.h"
#include "hub/hub_pivot.h"
#include "base/util.h"
#include "xlate.h"
#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

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
    /* --from auto (issue 48): the first line, read before the model was chosen, handed to
     * the pipeline first (malloc'd; NULL once handed), with its tag */
    char *first, *first_buf; /* first_buf owns the bytes */
    size_t first_len;
    long first_tag;
    int in_open;         /* in (and para) opened by auto_source, before setup */
    long auto_warned;    /* lines said to be in another language than the run's source */
} run;

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

/* The progress line, at most four times a second (always when final). lines: lines answered
 * so far; offset: their input bytes. */
static void progress(run *r, long lines, long long offset, int final)
{
    double now = now_seconds(), t = now - r->t_start - r->t_load;
    char el[32], eta[32];
    if (!r->progress || (!final && now - r->t_shown < 0.25))
        return;
    r->t_shown = now;
    cli_hms(t, el, sizeof el);
    if (r->in.size > 0 && offset > 0) {
        double frac = (double)offset / (double)r->in.size;
        cli_hms(final ? 0 : t * (1 - frac) / frac, eta, sizeof eta);
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
    int got;
    if (r->first) { /* --from auto's first line, read before the model was chosen */
        line->text = r->first;
        line->len = r->first_len;
        line->tag = r->first_tag;
        r->first = NULL; /* freed by release(): its bytes are read until the window ends */
        return 1;
    }
    got = r->o->paragraphs ? para_next(&r->para, &s, &len, err, errlen)
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
    if (r->first)
        return 1;
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
    if (r->o->auto_src && r->o->auto_lang[0] && t->text) {
        /* --from auto: a line surely in another language than the run's source is said */
        xlate_lang_guess g;
        if (xlate_detect_language(t->text, t->len, NULL, 0, &g, 1, err, errlen) == 1 &&
            g.confidence >= XLATE_DETECT_SURE && !hub_lang_eq(g.lang, r->o->auto_lang) &&
            r->auto_warned++ < 10)
            warn(r, "%s: looks %s (confidence %.2f), not %s: translated as %s (one source "
                 "language a run)%s", where, g.lang, (double)g.confidence, r->o->auto_lang,
                 r->o->auto_lang, r->auto_warned == 10 ? "; further such lines not said" : "");
    }
    return output_line(&r->fmt, t, err, errlen);
}

/* After each window: flush; stop when the output failed. */
static int cli_flush(void *user)
{
    run *r = user;
    outfile_lines(r->st.lines); /* before the flush: an interrupt never says fewer than shown */
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
    case XLATE_ERR_WORKSPACE: /* --workspace too small for a sentence: the bytes it needs */
        end_progress(r);
        cli_option_words(err, sizeof err);
        fprintf(stderr, "xlate: %s\n", err);
        return XLATE_EXIT_USAGE;
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
    free(r->first_buf);
    xlate_ctx_free(r->ctx);
    xlate_model_free(r->model);
}

static void report(const run *r)
{
    const xlate_lines_stats *st = &r->st;
    double total = now_seconds() - r->t_start;
    /* the output projection built at its first use is the load's, deferred (xlate_time_split) */
    double build = r->ctx ? xlate_ctx_time_split(r->ctx).build_s : 0;
    double translate = st->translate_seconds - build > 0 ? st->translate_seconds - build : 0;
    double tt = translate > 0 ? translate : 1e-9;
    fprintf(stderr,
            "xlate: %ld lines: %ld sentences translated in %ld batches (%ld windows), %ld empty, "
            "%ld cut\n"
            "xlate: %lld source tokens, %lld target tokens (eos not counted)\n"
            "xlate: load %.3f s, translate %.3f s, total %.3f s\n"
            "xlate: %.1f sentences/s, %.1f source tokens/s, %.1f target tokens/s\n",
            st->lines, st->sentences, st->batches, st->windows, st->empty, r->cut,
            st->src_tokens, st->tgt_tokens, r->t_load + build, translate, total,
            st->sentences / tt, (double)st->src_tokens / tt, (double)st->tgt_tokens / tt);
    if (build > 0.0005)
        fprintf(stderr, "xlate: of the load, %.3f s built the output projection at its first "
                "use\n", build);
    if (r->lp.split == XLATE_SPLIT_SENTENCES)
        fprintf(stderr, "xlate: splitting into sentences %.3f s (%.2f%% of the translate time)\n",
                st->split_seconds, 100 * st->split_seconds / tt);
    if (r->ctx) {
        xlate_time_split ts = xlate_ctx_time_split(r->ctx);
        double rest = translate - ts.encoder_s - ts.decoder_s - ts.projection_s;
        fprintf(stderr,
                "xlate: translate time: encoder %.3f s, decoder layers %.3f s, output projection "
                "%.3f s (%.0f%%), search and batching %.3f s\n"
                "xlate: of the decoder layers, attention %.3f s (self and cross)\n"
                "xlate: decoder: %lld steps, %lld rows\n",
                ts.encoder_s, ts.decoder_s, ts.projection_s, 100 * ts.projection_s / tt,
                rest > 0 ? rest : 0, ts.attention_s, ts.decoder_steps, ts.decoder_rows);
    }
    if (r->ctx) { /* the working memory batches were planned for (--workspace bounds it) */
        xlate_workspace_stats ws = xlate_ctx_workspace(r->ctx);
        long long b = r->lp.decode.workspace_bytes;
        fprintf(stderr, "xlate: decoding working memory planned: at most %.1f MiB a batch (%d "
                "sentences x %d hypotheses x %d positions); ", ws.planned_max / 1048576.0,
                ws.max_n, ws.max_hyps, ws.max_cap);
        if (b)
            fprintf(stderr, "--workspace %.1f MiB: %lld batches decoded in slices, %lld "
                    "decoder runs, buffers released %lld times\n", b / 1048576.0, ws.sliced,
                    ws.runs, ws.released);
        else
            fprintf(stderr, "no --workspace bound\n");
    }
    if (r->model) {
        char b[160];
        fprintf(stderr, "xlate: %s\n", xlate_output_desc(r->model, b, sizeof b));
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
    char near[256], q[200];
    if (!o->target_lang && o->in_fmt != FMT_TEXT)
        return 0; /* lines of ids: their own tokens, the model's forced_bos_token_id if any */
    if (!o->target_lang) {
        fprintf(stderr, "xlate: this model translates into any of its %d languages: give "
                "--target-lang CODE, a code like %s (xlate info lists them)\n",
                r->info.n_langs, r->info.source_lang ? r->info.source_lang : "the model's");
        return -1;
    }
    /* the values quoted as the Marian path's (cli_quote: issue 37) */
    if ((tgt = xlate_lang_id(r->model, o->target_lang)) < 0) {
        xlate_lang_suggest(r->model, o->target_lang, near, sizeof near);
        fprintf(stderr, "xlate: --target-lang \"%s\": not one of the model's %d language "
                "codes; the closest: %s\n", cli_quote(q, sizeof q, o->target_lang,
                strlen(o->target_lang)), r->info.n_langs, near);
        return -1;
    }
    o->dp.forced_bos_id = tgt;
    if (o->in_fmt != FMT_TEXT)
        return 0;
    if (src && !o->source_lang && (r->lang_id = xlate_lang_id(r->model, src)) < 0) {
        /* the model's own src_lang: its file's fault, not an option's (issue 37) */
        char qd[CLI_QUOTED_PATH];
        xlate_lang_suggest(r->model, src, near, sizeof near);
        fprintf(stderr, "xlate: %s/tokenizer_config.json: \"src_lang\" \"%s\" (or the "
                "tokenizer's default) is not one of the model's %d language codes; give "
                "--source-lang CODE (the closest: %s)\n", cli_quote_path(qd, r->dir),
                cli_quote(q, sizeof q, src, strlen(src)), r->info.n_langs, near);
        return XLATE_EXIT_MODEL;
    }
    if (!src || (r->lang_id = xlate_lang_id(r->model, src)) < 0) {
        xlate_lang_suggest(r->model, src ? src : "eng_Latn", near, sizeof near);
        fprintf(stderr, "xlate: --source-lang \"%s\": not one of the model's %d language "
                "codes; the closest: %s\n", src ? cli_quote(q, sizeof q, src, strlen(src))
                : "(none)", r->info.n_langs, near);
        return -1;
    }
    if (r->info.lang_after_eos) {
        o->dp.source_suffix_id = r->lang_id;
        r->lang_id = -1;
    }
    return 0;
}

/* A language pair picks the model (issue 35): without -m and XLATE_MODEL, --source-lang /
 * --target-lang (--from / --to; the side not given: the default model's) naming a pair the
 * default model does not translate take a model in the hub cache that does (hub_pair_find: a
 * one-pair OPUS-MT model, a multilingual one, M2M100 / NLLB), said on stderr, with the codes
 * that model takes; none: exit 2 naming a model that would and the `xlate pull` command.
 * Returns -1 (the default model, as before), 0 with dir the chosen snapshot, or an exit
 * status. */
static int pair_model(options *o, char *dir, size_t dirlen)
{
    char def[4096], err[XLATE_ERRLEN], want[128];
    const char *env = getenv("XLATE_MODEL"), *src, *tgt;
    hub_model dm;
    hub_pair_choice ch;
    int have_def, rc;

    if (o->model || (env && env[0]) || (!o->source_lang && !o->target_lang))
        return -1;
    memset(&dm, 0, sizeof dm);
    have_def = find_model_dir(NULL, def, sizeof def, err, sizeof err) == 0;
    if (have_def)
        hub_probe(&dm, def, NULL, 0);
    src = o->source_lang ? o->source_lang : dm.source_lang[0] ? dm.source_lang : NULL;
    tgt = o->target_lang ? o->target_lang : dm.target_lang[0] ? dm.target_lang : NULL;
    /* a "pair" of one language (--source-lang de alone with an en-de default: the splitter's
     * rules, as before) is no pair to look for */
    if (!src || !tgt || hub_lang_eq(src, tgt) ||
        (have_def && hub_model_serves(&dm, src, tgt, NULL, NULL))) {
        hub_model_free(&dm);
        return -1;
    }
    rc = hub_pair_find(NULL, src, tgt, &ch, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "xlate: %s\n", err);
        hub_model_free(&dm);
        return XLATE_EXIT_MODEL;
    }
    if (rc == 0) {
        /* through a pivot (issue 48): English first, as argos-translate; two pivots never */
        hub_pair_choice c2;
        char looked[2048];
        rc = hub_pivot_find(NULL, src, tgt, o->pivot, sizeof o->pivot, &ch, &c2, looked,
                            sizeof looked, err, sizeof err);
        if (rc < 0) {
            fprintf(stderr, "xlate: %s\n", err);
            hub_model_free(&dm);
            return XLATE_EXIT_MODEL;
        }
        if (rc > 0) {
            hub_model_free(&dm);
            snprintf(dir, dirlen, "%s", ch.dir);
            if (!o->quiet)
                fprintf(stderr, "xlate: %s -> %s: no model for the pair; through %s: %s (%s) "
                        "then %s (%s) from the hub cache\n", src, tgt, o->pivot, ch.repo_id,
                        ch.dir, c2.repo_id, c2.dir);
            snprintf(o->pair_src, sizeof o->pair_src, "%s", ch.source_lang);
            snprintf(o->pair_tgt, sizeof o->pair_tgt, "%s", ch.target_lang);
            o->source_lang = o->pair_src[0] ? o->pair_src : NULL;
            o->target_lang = o->pair_tgt[0] ? o->pair_tgt : NULL;
            snprintf(o->pivot_dir, sizeof o->pivot_dir, "%s", c2.dir);
            snprintf(o->pivot_src, sizeof o->pivot_src, "%s", c2.source_lang);
            snprintf(o->pivot_tgt, sizeof o->pivot_tgt, "%s", c2.target_lang);
            return 0;
        }
        if (looked[0])
            fprintf(stderr, "xlate: no two models chain %s -> %s through one language either "
                    "(a pivot through two is not tried); the cache's models: %s\n", src, tgt,
                    looked);
    }
    if (rc == 0) {
        char ds[128] = "";
        hub_pair_suggest(src, tgt, want, sizeof want);
        if (have_def && dm.source_lang[0] && dm.target_lang[0])
            snprintf(ds, sizeof ds, "the default model translates %s -> %s and ", dm.source_lang,
                     dm.target_lang);
        fprintf(stderr, "xlate: no model for %s -> %s: %snone in the hub cache does (xlate "
                "models lists them); get one: xlate pull %s%s\n", src, tgt, ds, want,
                strstr(want, "nllb") ? "" : " (or xlate pull facebook/nllb-200-distilled-600M: "
                "200 languages)");
        hub_model_free(&dm);
        return XLATE_EXIT_MODEL;
    }
    hub_model_free(&dm);
    snprintf(dir, dirlen, "%s", ch.dir);
    if (!o->quiet)
        fprintf(stderr, "xlate: %s -> %s: using %s from the hub cache (%s)\n", src, tgt,
                ch.repo_id, ch.dir);
    /* the chosen model's codes: an NLLB code ("fra_Latn"), a >>xx<< token's, or none (a
     * one-pair model has no language token; the source code stays the splitter's) */
    snprintf(o->pair_src, sizeof o->pair_src, "%s", ch.source_lang);
    snprintf(o->pair_tgt, sizeof o->pair_tgt, "%s", ch.target_lang);
    o->source_lang = o->pair_src[0] ? o->pair_src : NULL;
    o->target_lang = o->pair_tgt[0] ? o->pair_tgt : NULL;
    return 0;
}

/* picked: pair_model's answer (0: dir is the model's snapshot). */
static int setup(run *r, options *o, char *dir, size_t dirlen, int picked)
{
    char err[XLATE_ERRLEN];
    xlate_model_params mp = xlate_model_default_params();

    if (picked > 0)
        return picked;
    if (picked < 0) {
        /* a hub name not in the cache is pulled here: -q silences its note, and a pull's own
         * status (4 the cache cannot be written, 130 interrupted) is the run's */
        int rc = find_model_dir_quiet(o->model, o->quiet, dir, dirlen, err, sizeof err);
        if (rc) {
            fprintf(stderr, "xlate: %s\n", err);
            return rc > 0 ? rc : XLATE_EXIT_MODEL;
        }
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
            char src[160];
            fprintf(stderr, "xlate: --n-best %d: must not exceed the beam size (%s)\n",
                    o->dp.n_best, decode_beam_source(&o->dopts, &md, o->beam_set, &o->dp, src,
                                                     sizeof src));
            return XLATE_EXIT_USAGE;
        }
        if (o->dp.beam_size > 1)
            o->dp.scores = 1;
    }
    r->lang_id = -1;
    if (r->info.lang_forced) {
        int rc = setup_forced_langs(r, o);
        if (rc)
            return rc < 0 ? XLATE_EXIT_USAGE : rc;
    }
    if (o->target_lang && !r->info.lang_forced) {
        r->lang_id = xlate_lang_id(r->model, o->target_lang);
        /* a one-pair model takes its own target language (--to de for an en-de model): no
         * token to put in front */
        int own = !r->info.n_langs && r->info.target_lang &&
                  hub_lang_eq(o->target_lang, r->info.target_lang);
        if (r->lang_id < 0 && !own) {
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
    /* text in, text out: the alignments place a line's URLs and e-mail addresses, kept
     * untranslated (doc_line_text); the ids are the same either way */
    if (o->in_fmt == FMT_TEXT && o->out_fmt != FMT_IDS && r->info.has_tokenizer)
        r->lp.decode.alignments = 1;
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
    r->fmt.detect = o->auto_src;
    r->fmt.detect_fallback = o->auto_lang[0] ? o->auto_lang : o->source_lang;
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
        const char *why;
        int screened = xlate_decode_screened(r->model, &o->dp, &why);
        /* the screen as this run's options leave it (a processor or scores turn it off) */
        fprintf(stderr, "xlate: compute type %s%s; %s; %s%s\n",
                xlate_model_compute_type(r->model), o->compute_type == XLATE_AUTO ? " (auto)" : "",
                xlate_kernels_desc(r->model, k, sizeof k),
                screened ? "greedy argmax through an int8 screen" : "every logit computed: ",
                screened ? "" : why);
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

/* --from auto (issue 48): the input opened before the model is chosen, its first line read
 * and kept for the pipeline (r->first), and its language (xlate_detect_language over every
 * language the detector knows) made the run's source, as --from LANG would be: the pair pick
 * (direct or through a pivot), NLLB's source token, the splitter's rules; said on stderr. A
 * first line that cannot be told (empty, digits, too short) or is told unsurely (confidence
 * under XLATE_DETECT_SURE) gives no source: the model's own, the one there is (-m, the
 * default model), said so; with --to and no model to fall back on, the run stops, asking for
 * --from. Returns 0 or the exit status. */
/* --from auto when the detector could not tell (why): the model's own source, the one there
 * is (-m, XLATE_MODEL, the default model serving --to), said; else exit 3 asking for --from. */
static int auto_fallback(options *o, const char *what, const char *why)
{
    char err[XLATE_ERRLEN];
    if (!o->model && !(getenv("XLATE_MODEL") && getenv("XLATE_MODEL")[0]) && o->target_lang) {
        char def[4096];
        hub_model dm;
        int one;
        memset(&dm, 0, sizeof dm);
        one = find_model_dir(NULL, def, sizeof def, err, sizeof err) == 0;
        if (one)
            hub_probe(&dm, def, NULL, 0);
        one = one && dm.source_lang[0] && hub_model_serves(&dm, dm.source_lang, o->target_lang,
                                                           NULL, NULL);
        hub_model_free(&dm);
        if (!one) {
            fprintf(stderr, "xlate: --from auto: %s's language cannot be told (%s): give "
                    "--from LANG\n", what, why);
            return XLATE_EXIT_INPUT;
        }
    }
    if (!o->quiet)
        fprintf(stderr, "xlate: --from auto: %s's language cannot be told surely (%s): the "
                "model's own source\n", what, why);
    return 0;
}

/* --from auto for a document (--format): its language, from the first 64 KiB of the file with
 * markup (<...>, &...;) read as spaces; the file is read again by the document's run, so it
 * must be a file (not standard input), and not a package (a zip: its text is compressed). */
static int auto_document(options *o)
{
    char buf[65536], err[XLATE_ERRLEN];
    const doc_format *f = doc_format_of(o->doc_fmt);
    xlate_lang_guess g;
    size_t n = 0, k = 0;
    int fd, got;
    ssize_t m;
    if (!o->input || !strcmp(o->input, "-") || (f && f->package)) {
        fprintf(stderr, "xlate: --from auto: with --format %s, %s: give --from LANG\n",
                f ? f->name : "?", f && f->package ? "a package's text is not read for its "
                "language" : "the document must be a file (-i FILE), read twice");
        return XLATE_EXIT_USAGE;
    }
    if ((fd = open(o->input, O_RDONLY | O_NONBLOCK)) < 0) {
        fprintf(stderr, "xlate: %s: cannot open: %s\n", o->input, strerror(errno));
        return XLATE_EXIT_INPUT;
    }
    while (n < sizeof buf && (m = read(fd, buf + n, sizeof buf - n)) > 0)
        n += (size_t)m;
    close(fd);
    k = doc_markup_spaces(buf, n, buf); /* markup out, in place */
    got = xlate_detect_language(buf, k, NULL, 0, &g, 1, err, sizeof err);
    if (got == 1 && g.confidence >= XLATE_DETECT_SURE) {
        snprintf(o->auto_lang, sizeof o->auto_lang, "%s", g.lang);
        o->source_lang = o->auto_lang;
        if (!o->quiet)
            fprintf(stderr, "xlate: --from auto: the document is %s (confidence %.2f)\n",
                    g.lang, (double)g.confidence);
        return 0;
    }
    return auto_fallback(o, "the document", got == 0 ? "no text, digits or symbols, or too "
                         "short" : "no language is sure");
}

static int auto_source(options *o, run *r)
{
    char err[XLATE_ERRLEN], *s;
    size_t len;
    int got;
    xlate_lang_guess g;

    if (o->doc_fmt)
        return auto_document(o);
    if (o->in_fmt == FMT_IDS) {
        fprintf(stderr, "xlate: --from auto: not with --input-format ids (give the source "
                "language)\n");
        return XLATE_EXIT_USAGE;
    }
    if (o->n_texts)
        reader_texts(&r->in, o->texts, o->n_texts);
    else if (reader_open(&r->in, o->input, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        return XLATE_EXIT_INPUT;
    }
    r->in_open = 1;
    r->para.in = &r->in;
    got = o->paragraphs ? para_next(&r->para, &s, &len, err, sizeof err)
                        : reader_next(&r->in, &s, &len, err, sizeof err);
    if (got < 0) {
        fprintf(stderr, "xlate: %s\n", err);
        return XLATE_EXIT_INPUT;
    }
    if (got > 0) {
        if (!(r->first_buf = malloc(len + 1)))
            return XLATE_EXIT_INTERNAL;
        memcpy(r->first_buf, s, len);
        r->first_buf[len] = 0;
        r->first = r->first_buf;
        r->first_len = len;
        r->first_tag = o->paragraphs ? r->para.first_line * 2 + (r->para.cut != 0)
                                     : r->in.line * 2 + (r->in.cut != 0);
    }
    if (got > 0 && xlate_detect_language(s, len, NULL, 0, &g, 1, err, sizeof err) == 1 &&
        g.confidence >= XLATE_DETECT_SURE) {
        snprintf(o->auto_lang, sizeof o->auto_lang, "%s", g.lang);
        o->source_lang = o->auto_lang;
        if (!o->quiet)
            fprintf(stderr, "xlate: --from auto: the first line is %s (confidence %.2f)\n",
                    g.lang, (double)g.confidence);
        return 0;
    }
    return auto_fallback(o, "the first line", got <= 0 ? "no input" :
                         xlate_detect_language(s, len, NULL, 0, &g, 1, err, sizeof err) == 0 ?
                         "empty, digits or symbols, or too short" : "no language is sure");
}

/* The pivot's first stage on its own thread: the input's lines through the first model, its
 * text output into the pipe the second stage reads; the pipe's write end closed at the end. */
typedef struct {
    run *r;
    int status;
} stage;

static void *stage_main(void *arg)
{
    stage *s = arg;
    s->status = stream(s->r);
    writer_flush(&s->r->out);
    fclose(s->r->out.f); /* the second stage reads the end of its input */
    s->r->out.f = NULL;
    return NULL;
}

/* A pair through a pivot (issue 48): two runs, as `xlate -m FIRST --from S --to P | xlate -m
 * SECOND --from P --to T` would be, inside one process: the first model's text output (the
 * translated lines exactly as its own run writes them) goes into a pipe that the second run
 * reads as its input, on a thread of its own, so the second model translates the first's
 * windows as they come and the output is the two-step pipe's, byte for byte (each stage is
 * batch- and thread-invariant as a run is). Each model is loaded once, each with its own
 * threads (--threads each). The first stage takes the input options (--paragraphs, TEXT
 * arguments, -i) and the decoding ones, its output being plain text (one line a line: no
 * n-best, scores or alignments); the second takes every option but the input ones. */
static int pivot_run(options *o, char *dir1, run *r0)
{
    options o1 = *o, o2 = *o;
    run r1, r2;
    stage st;
    char err[XLATE_ERRLEN], dir2[4096];
    int fds[2] = {-1, -1}, status;
    pthread_t th;
    const char *bad = o->doc_fmt ? "--format (a document)"
                      : decode_has_prefix(&o->dopts) ? "--target-prefix"
                      : o->in_fmt == FMT_IDS ? "--input-format ids" : NULL;

    memset(&r1, 0, sizeof r1);
    memset(&r2, 0, sizeof r2);
    r1.in.fd = r2.in.fd = -1;
    if (bad) {
        fprintf(stderr, "xlate: %s: not through a pivot language (the pair needs %s)\n", bad,
                o->pivot);
        return XLATE_EXIT_USAGE;
    }
    /* the first stage: text out, one line a line */
    o1.out_fmt = FMT_TEXT;
    o1.output = NULL;
    o1.dp.n_best = 1;
    o1.dp.return_alternatives = xlate_decode_default_params().return_alternatives;
    o1.dp.alignments = o1.dp.token_scores = 0;
    o1.scores = 0;
    o1.verbose = 0;
    o1.dp.scores = o1.dp.beam_size > 1;
    /* the second: the pivot's lines in */
    o2.input = NULL;
    o2.texts = NULL;
    o2.n_texts = 0;
    o2.paragraphs = 0;
    o2.auto_src = 0; /* its lines are the pivot's: the first stage said what each was */
    o2.source_lang = o2.pivot_src[0] ? o2.pivot_src : NULL;
    o2.target_lang = o2.pivot_tgt[0] ? o2.pivot_tgt : NULL;
    snprintf(dir2, sizeof dir2, "%s", o->pivot_dir);
    r1.o = &o1;
    r1.dopts = &o1.dopts;
    r2.o = &o2;
    r2.dopts = &o2.dopts;
    r1.t_start = r2.t_start = now_seconds();
    if ((status = setup(&r1, &o1, dir1, 4096, 0)) != XLATE_EXIT_OK ||
        (status = setup(&r2, &o2, dir2, sizeof dir2, 0)) != XLATE_EXIT_OK)
        goto done;
    if (r0->in_open) {
        /* --from auto read the first line: the first stage takes the reader over */
        r1.in = r0->in;
        r1.para = r0->para;
        r1.first = r0->first;
        r1.first_buf = r0->first_buf;
        r1.first_len = r0->first_len;
        r1.first_tag = r0->first_tag;
        r0->first = r0->first_buf = NULL;
        r0->para.buf = NULL;
        memset(&r0->in, 0, sizeof r0->in);
        r0->in.fd = -1;
        r0->in_open = 0;
        r1.in_open = 1;
    } else if (o->n_texts)
        reader_texts(&r1.in, o->texts, o->n_texts);
    else if (reader_open(&r1.in, o->input, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        status = XLATE_EXIT_INPUT;
        goto done;
    }
    if (same_file(&r1.in, o->output)) {
        fprintf(stderr, "xlate: -o %s: is the input file (it would be emptied before it is "
                "read)\n", o->output);
        status = XLATE_EXIT_USAGE;
        goto done;
    }
    if (o1.in_fmt == FMT_IDS || o1.split == XLATE_SPLIT_NONE)
        r1.in.max_line = r1.max_in * 256 > 65536 ? (size_t)r1.max_in * 256 : 65536;
    r1.para.in = &r1.in;
    if (pipe(fds) != 0 || !(r1.out.f = fdopen(fds[1], "w"))) {
        fprintf(stderr, "xlate: the pivot's pipe: %s\n", strerror(errno));
        status = XLATE_EXIT_INTERNAL;
        goto done;
    }
    fds[1] = -1; /* the FILE's now */
    r1.out.name = "the pivot's pipe";
    /* the second stage's input: the pipe's read end (a reader of our own making: no file) */
    r2.in.fd = fds[0];
    r2.in.name = "the pivot's lines";
    r2.in.max_line = READER_MAX_LINE;
    r2.in.close = 1;
    fds[0] = -1;
    if (o2.split == XLATE_SPLIT_NONE)
        r2.in.max_line = r2.max_in * 256 > 65536 ? (size_t)r2.max_in * 256 : 65536;
    r2.para.in = &r2.in;
    outfile_catch_interrupt(1);
    if (writer_open(&r2.out, o->output, err, sizeof err)) {
        fprintf(stderr, "xlate: %s\n", err);
        status = XLATE_EXIT_OUTPUT;
        goto done;
    }
    r2.progress = !o->quiet && r1.in.regular && isatty(STDERR_FILENO) &&
                  (r2.out.f != stdout || !isatty(STDOUT_FILENO));
    st.r = &r1;
    st.status = XLATE_EXIT_OK;
    if (pthread_create(&th, NULL, stage_main, &st) != 0) {
        fprintf(stderr, "xlate: cannot start the pivot's first stage\n");
        status = XLATE_EXIT_INTERNAL;
        writer_discard(&r2.out);
        goto done;
    }
    status = stream(&r2);
    reader_close(&r2.in); /* a second stage that stopped early: the first sees EPIPE, stops */
    pthread_join(th, NULL);
    /* the first stage's failure (a bad input line) is the run's, as a pipe's first command's
     * would be under pipefail; its lines before the bad one are translated and written */
    if (st.status != XLATE_EXIT_OK && status == XLATE_EXIT_OK)
        status = r2.out.failed ? status : st.status;
    if (status != XLATE_EXIT_OK)
        writer_discard(&r2.out);
    else if (writer_close(&r2.out))
        status = writer_error(&r2.out, 1);
    if (o->verbose)
        report(&r2);
done:
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    if (r1.out.f)
        fclose(r1.out.f);
    reader_close(&r1.in);
    reader_close(&r2.in);
    para_free(&r1.para);
    para_free(&r2.para);
    release(&r1);
    release(&r2);
    return status;
}

int cmd_translate(int argc, char **argv)
{
    options o;
    run r;
    char err[XLATE_ERRLEN], dir[4096];
    int rc, status;

    rc = translate_options(&o, argc, argv);
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

    if (o.auto_src && (status = auto_source(&o, &r)) != XLATE_EXIT_OK)
        goto done;
    rc = pair_model(&o, dir, sizeof dir);
    if (rc > 0) {
        status = rc;
        goto done;
    }
    if (o.pivot[0]) {
        status = pivot_run(&o, dir, &r);
        goto done;
    }
    status = setup(&r, &o, dir, sizeof dir, rc);
    if (status != XLATE_EXIT_OK)
        goto done;
    if (r.in_open) {
        /* --from auto opened it */
    } else if (o.n_texts) {
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
    if (!o.doc_fmt)
        outfile_catch_interrupt(1); /* ^C says how many lines were written (cli_flush) */
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

    status = o.doc_fmt ? cli_doc(r.ctx, &r.lp, &o.doc, o.doc_fmt, &r.in, &r.out, o.quiet, o.verbose)
                       : stream(&r);
    if (status != XLATE_EXIT_OK)
        writer_discard(&r.out); /* a failed run leaves -o FILE as it was */
    else if (writer_close(&r.out))
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
