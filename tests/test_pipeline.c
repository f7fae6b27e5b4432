/* test_pipeline.c — xlate_translate_lines, the library's pipeline, on the shipped en-de model:
 * the translations come back in input order and equal PyTorch's own (tests/data/reference,
 * its greedy ids of Multi30k test_2016_flickr) however the window sorts and cuts the lines;
 * the counts of windows and batches are those worked out by hand below; blank lines, cut
 * lines, a failing source, a bad id, cancel and progress behave as xlate.h says. */
#include "check.h"
#include "xlate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL "models/en-de"
#define N 40

static char *lines[N];
static int *want[N], want_n[N];

/* The source: lines[0..n) (NULL: a blank line), never ready after `ready_every` lines of a
 * window when that is > 0, failing at line fail_at when >= 0, or giving ids. */
typedef struct {
    int n, next, ready_every, fail_at, since_ready;
    const int *ids; int n_ids; /* when set, every line is these ids */
} source;

static int next(void *user, xlate_line *line, char *err, size_t errlen)
{
    source *s = user;
    if (s->next == s->fail_at)
        return snprintf(err, errlen, "line %d: unreadable", s->next + 1), -1;
    if (s->next >= s->n)
        return 0;
    line->tag = 1000 + s->next;
    if (s->ids) {
        line->ids = s->ids;
        line->n_ids = s->n_ids;
    } else {
        line->text = lines[s->next] ? lines[s->next] : "";
        line->len = strlen(line->text);
    }
    s->next++;
    s->since_ready++;
    return 1;
}

static int ready(void *user)
{
    source *s = user;
    if (s->ready_every > 0 && s->since_ready >= s->ready_every) {
        s->since_ready = 0;
        return 0;
    }
    return 1;
}

/* The sink: checks order and content as it goes. */
typedef struct {
    int got, in_order, same, blanks_empty, flushes, stop_at_flush;
    int src_tokens[N], src_read[N];
    int progress_calls, progress_ok, cancel_after, batches_seen;
} sink;

static int put(void *user, const xlate_translation *t, char *err, size_t errlen)
{
    sink *k = user;
    int i = (int)t->index;
    (void)err;
    (void)errlen;
    k->in_order &= t->index == k->got && t->tag == 1000 + t->index;
    if (i < N) {
        k->src_tokens[i] = t->src_tokens;
        k->src_read[i] = t->src_tokens_read;
        if (!lines[i]) {
            k->blanks_empty &= t->res->n_hyps == 0;
        } else if (want[i]) {
            const xlate_hypothesis *h = t->res->n_hyps ? &t->res->hyps[0] : NULL;
            k->same &= h && h->n == want_n[i] && !memcmp(h->ids, want[i], want_n[i] * sizeof(int));
        }
    }
    k->got++;
    return 0;
}

static int flush(void *user)
{
    sink *k = user;
    return ++k->flushes == k->stop_at_flush;
}

static void progress(void *user, const xlate_progress *p)
{
    sink *k = user;
    k->progress_calls++;
    k->progress_ok &= p->window_translated > 0 && p->window_translated <= p->window_sentences &&
                      p->window_sentences <= p->window_lines && p->lines_done == k->got;
}

static int cancel(void *user)
{
    sink *k = user;
    return k->cancel_after >= 0 && k->batches_seen++ >= k->cancel_after;
}

static void load_data(void)
{
    FILE *en = fopen("tests/data/multi30k/test_2016_flickr.en", "r");
    FILE *ids = fopen("tests/data/reference/test_2016_flickr.ids", "r");
    char buf[4096];
    for (int i = 0; en && ids && i < N; i++) {
        char *p;
        if (!fgets(buf, sizeof buf, en))
            break;
        buf[strcspn(buf, "\n")] = 0;
        lines[i] = strdup(buf);
        if (!fgets(buf, sizeof buf, ids))
            break;
        want[i] = calloc(256, sizeof(int));
        for (p = strtok(buf, " \n"); p; p = strtok(NULL, " \n"))
            want[i][want_n[i]++] = atoi(p);
    }
    if (en)
        fclose(en);
    if (ids)
        fclose(ids);
    /* lines 5 and 17 blank (their reference unused) */
    free(lines[5]);
    free(lines[17]);
    lines[5] = lines[17] = NULL;
}

static int run(xlate_ctx *ctx, xlate_lines_params *p, source *s, sink *k, xlate_lines_stats *st,
               char *err, size_t errlen)
{
    xlate_source in = {next, ready, s};
    xlate_sink out = {put, flush, k};
    p->progress = progress;
    p->progress_user = k;
    p->cancel = cancel;
    p->cancel_user = k;
    return xlate_translate_lines(ctx, p, &in, &out, st, err, errlen);
}

int main(void)
{
    char err[XLATE_ERRLEN] = "";
    xlate_model *m = NULL;
    xlate_ctx *ctx;
    xlate_lines_params p;
    xlate_lines_stats st;
    int rc;

    load_data();
    if (!check(lines[0] && want[N - 1] && !xlate_model_load(&m, MODEL, NULL, err, sizeof err),
               "load the en-de model and the test data", "%s", err))
        return check_done();
    if (!(ctx = xlate_ctx_new(m, 1, err, sizeof err)))
        return check(0, "context", "%s", err), check_done();

    /* 40 lines (38 with tokens), window 10, batches of 4: windows of 10 lines; the windows'
     * sentences 9, 9, 10, 10 (blanks at 5 and 17) cut into 3, 3, 3, 3 batches = 12. The 4th
     * window is full when the input ends, so a 5th finds the end at once: 5 windows (flushed
     * each, as the command line always did). */
    {
        source s = {N, 0, 0, -1, 0, NULL, 0};
        sink k = {0, 1, 1, 1, 0, -1, {0}, {0}, 0, 1, -1, 0};
        p = xlate_lines_default_params();
        p.batch_size = 4;
        p.window = 10;
        rc = run(ctx, &p, &s, &k, &st, err, sizeof err);
        check(rc == 0 && k.got == N && k.in_order, "window 10, batch 4: every line once, in "
              "input order, with its tag", "rc %d (%s), %d lines", rc, err, k.got);
        check(k.same, "window 10, batch 4: each translation is PyTorch's for its line", "differ");
        check(k.blanks_empty && st.empty == 2, "blank lines: no hypotheses, counted empty",
              "empty %ld", st.empty);
        check(st.windows == 5 && k.flushes == 5 && st.batches == 12 && st.sentences == 38,
              "window 10, batch 4: 5 windows, 12 batches, 38 sentences", "%ld windows, %ld "
              "batches, %ld sentences, %d flushes", st.windows, st.batches, st.sentences,
              k.flushes);
        check(k.progress_calls == 12 && k.progress_ok, "progress: once a batch, counts in range",
              "%d calls", k.progress_calls);
    }
    /* a source that is never ready after 3 lines: windows of 3 lines (the last of 1): 14 */
    {
        source s = {N, 0, 3, -1, 0, NULL, 0};
        sink k = {0, 1, 1, 1, 0, -1, {0}, {0}, 0, 1, -1, 0};
        p = xlate_lines_default_params();
        rc = run(ctx, &p, &s, &k, &st, err, sizeof err);
        check(rc == 0 && k.in_order && k.same && st.windows == 14, "a source not ready: the "
              "window ends there (14 windows of 3 lines), same translations", "rc %d, %ld "
              "windows", rc, st.windows);
    }
    /* batch_tokens: 8 lines of 5 ids each (6 with eos) and batch_tokens 13: 2 a batch, 4 */
    {
        static const int ids[5] = {30, 31, 32, 33, 34};
        source s = {8, 0, 0, -1, 0, ids, 5};
        sink k = {0, 1, 1, 1, 0, -1, {0}, {0}, 0, 1, -1, 0};
        p = xlate_lines_default_params();
        p.batch_tokens = 13;
        p.decode.max_length = 3;
        rc = run(ctx, &p, &s, &k, &st, err, sizeof err);
        check(rc == 0 && st.batches == 4 && k.got == 8, "batch_tokens 13 over lines of 6 "
              "tokens: batches of 2", "rc %d, %ld batches", rc, st.batches);
        /* max_input_length 3: each line keeps 3 of its 5 */
        p.batch_tokens = 0;
        p.max_input_length = 3;
        s.next = 0;
        k.got = 0;
        rc = run(ctx, &p, &s, &k, &st, err, sizeof err);
        check(rc == 0 && st.truncated == 8 && k.src_tokens[0] == 3 && k.src_read[0] == 5 &&
                  st.src_tokens == 24,
              "max_input_length 3: lines cut, 3 of 5 tokens translated", "rc %d, truncated "
              "%ld, %d of %d", rc, st.truncated, k.src_tokens[0], k.src_read[0]);
        /* an id outside the vocabulary */
        {
            int bad[2] = {30, 1 << 20};
            source b = {3, 0, 0, -1, 0, bad, 2};
            p = xlate_lines_default_params();
            rc = run(ctx, &p, &b, &k, &st, err, sizeof err);
            check(rc == XLATE_ERR_LINE && st.error_tag == 1000 && strstr(err, "id 1048576"),
                  "a bad id: XLATE_ERR_LINE, the line's tag, the id named", "rc %d, tag %ld: %s",
                  rc, st.error_tag, err);
        }
    }
    /* a source failing at line 7, window 5: the 7 lines before are delivered, then the error */
    {
        source s = {N, 0, 0, 7, 0, NULL, 0};
        sink k = {0, 1, 1, 1, 0, -1, {0}, {0}, 0, 1, -1, 0};
        p = xlate_lines_default_params();
        p.window = 5;
        rc = run(ctx, &p, &s, &k, &st, err, sizeof err);
        check(rc == XLATE_ERR_SOURCE && k.got == 7 && k.in_order && k.same &&
                  strcmp(err, "line 8: unreadable") == 0,
              "a failing source: the lines before it answered, then its message",
              "rc %d, %d lines: %s", rc, k.got, err);
    }
    /* cancel before the 3rd batch of the 1st window (batch 2, window 10): nothing delivered */
    {
        source s = {N, 0, 0, -1, 0, NULL, 0};
        sink k = {0, 1, 1, 1, 0, -1, {0}, {0}, 0, 1, 2, 0};
        p = xlate_lines_default_params();
        p.batch_size = 2;
        p.window = 10;
        rc = run(ctx, &p, &s, &k, &st, err, sizeof err);
        check(rc == XLATE_CANCELLED && k.got == 0 && st.batches == 2, "cancel: stops before "
              "the next batch, the window not delivered", "rc %d, %d lines, %ld batches", rc,
              k.got, st.batches);
    }
    /* flush saying stop after the 2nd window */
    {
        source s = {N, 0, 0, -1, 0, NULL, 0};
        sink k = {0, 1, 1, 1, 0, 2, {0}, {0}, 0, 1, -1, 0};
        p = xlate_lines_default_params();
        p.window = 10;
        rc = run(ctx, &p, &s, &k, &st, err, sizeof err);
        check(rc == XLATE_CANCELLED && k.got == 20, "flush non-zero: stops after that window",
              "rc %d, %d lines", rc, k.got);
    }
    /* params: messages name the field */
    p = xlate_lines_default_params();
    p.decode.beam_size = 0;
    check(xlate_lines_params_check(m, &p, err, sizeof err) && strncmp(err, "beam_size:", 10) == 0,
          "params: a bad beam_size is named so", "%s", err);
    p = xlate_lines_default_params();
    p.max_input_length = 600;
    check(xlate_lines_params_check(m, &p, err, sizeof err) &&
              strstr(err, "max_input_length: expected 1 to 511"),
          "params: max_input_length over max_positions - 1", "%s", err);
    p = xlate_lines_default_params();
    p.batch_size = 1;
    p.window = 50;
    check(xlate_lines_window(&p) == 1, "batch_size 1: window 1", "got %d",
          xlate_lines_window(&p));

    xlate_ctx_free(ctx);
    xlate_model_free(m);
    for (int i = 0; i < N; i++) {
        free(lines[i]);
        free(want[i]);
    }
    return check_done();
}
