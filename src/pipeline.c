/* pipeline.c — lines in, translations out in input order (xlate_translate_lines, xlate.h),
 * over the public calls alone: the read-ahead window, tokenizing, the length sort, cutting
 * batches and restoring the input order. Knows nothing of files, options or output formats:
 * those are the caller's (src/cli/cli_translate.c, examples/translate_file.c).
 *
 * Lines are read into a window of up to `window` lines, but never waiting for input while the
 * window holds a line: when the source says nothing is ready (a co-process waiting for its
 * answer, a slow pipe, a terminal) the window ends there. Its sentences are sorted by length,
 * longest first (ties in input order), cut into batches of batch_size sentences and at most
 * batch_tokens source tokens, translated, and delivered in input order. */
#include "xlate.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

enum { MAX_BATCH = 4096, MAX_WINDOW = 100000 };

/* One input line on its way through a window. */
typedef struct {
    long tag;
    int *ids;      /* [n_read] source ids (malloc'd), without eos; the first n are translated */
    int n, n_read;
    xlate_result res;
} item;

typedef struct {
    xlate_ctx *ctx;
    const xlate_model *model;
    const xlate_lines_params *p;
    xlate_lines_stats *st;
    int src_vocab, max_in, window;
    item *items;         /* [window] */
    int *order;          /* [window] indices of the items with tokens, longest first */
    const int **src;     /* [batch] */
    int *lens;           /* [batch] */
    xlate_result *res;   /* [batch] */
} pipeline;

xlate_lines_params xlate_lines_default_params(void)
{
    xlate_lines_params p;
    memset(&p, 0, sizeof p);
    p.decode = xlate_decode_default_params();
    p.batch_size = 32;
    p.target_lang_id = -1;
    return p;
}

int xlate_lines_window(const xlate_lines_params *p)
{
    long w = p->batch_size <= 1 ? 1 : p->window > 0 ? p->window : 16L * p->batch_size;
    return w > MAX_WINDOW ? MAX_WINDOW : (int)w;
}

int xlate_lines_params_check(const xlate_model *m, const xlate_lines_params *p, char *err,
                             size_t errlen)
{
    int max_in = xlate_model_get_info(m).max_positions - 1;
    if (xlate_decode_params_check(m, &p->decode, err, errlen))
        return -1;
    if (p->batch_size < 1 || p->batch_size > MAX_BATCH)
        return xerr(err, errlen, "batch_size: expected 1 to %d, got %d", MAX_BATCH,
                    p->batch_size);
    if (p->batch_tokens < 0)
        return xerr(err, errlen, "batch_tokens: expected 0 (no cap) or more, got %d",
                    p->batch_tokens);
    if (p->window < 0 || p->window > MAX_WINDOW)
        return xerr(err, errlen, "window: expected 1 to %d (0: 16 batches), got %d",
                    MAX_WINDOW, p->window);
    if (p->max_input_length < 0 || p->max_input_length > max_in)
        return xerr(err, errlen, "max_input_length: expected 1 to %d (the model's "
                    "max_positions - 1), got %d", max_in, p->max_input_length);
    return 0;
}

/* Reads the next line into it. Returns 1, 0 at the end, XLATE_ERR_SOURCE or XLATE_ERR_LINE
 * (message in err). */
static int read_item(pipeline *pl, const xlate_source *in, item *it, char *err, size_t errlen)
{
    xlate_line line;
    int got;
    memset(&line, 0, sizeof line);
    got = in->next(in->user, &line, err, errlen);
    if (got <= 0)
        return got < 0 ? XLATE_ERR_SOURCE : 0;
    memset(it, 0, sizeof *it);
    it->tag = line.tag;
    if (line.text) {
        if (xlate_tokenize(pl->model, line.text, line.len, &it->ids, &it->n, err, errlen)) {
            pl->st->error_tag = line.tag;
            return XLATE_ERR_LINE;
        }
    } else {
        for (int k = 0; k < line.n_ids; k++)
            if (line.ids[k] < 0 || line.ids[k] >= pl->src_vocab) {
                pl->st->error_tag = line.tag;
                xerr(err, errlen, "token %d: id %d outside the source vocabulary [0, %d)",
                     k + 1, line.ids[k], pl->src_vocab);
                return XLATE_ERR_LINE;
            }
        it->n = line.n_ids > 0 ? line.n_ids : 0;
        if (!(it->ids = malloc((it->n ? it->n : 1) * sizeof *it->ids)))
            return xerr(err, errlen, "out of memory");
        memcpy(it->ids, line.ids, it->n * sizeof *it->ids);
    }
    if (pl->p->target_lang_id >= 0 && it->n > 0) { /* >>xx<< in front, as the text would have it */
        int *q = realloc(it->ids, (it->n + 1) * sizeof *q);
        if (!q)
            return xerr(err, errlen, "out of memory");
        memmove(q + 1, q, it->n * sizeof *q);
        q[0] = pl->p->target_lang_id;
        it->ids = q;
        it->n++;
    }
    it->n_read = it->n;
    if (it->n > pl->max_in) {
        it->n = pl->max_in;
        pl->st->truncated++;
    }
    if (it->n == 0)
        pl->st->empty++;
    pl->st->lines++;
    return 1;
}

static int cmp_len_desc(const void *a, const void *b, void *items)
{
    const item *it = items;
    int x = *(const int *)a, y = *(const int *)b;
    if (it[x].n != it[y].n)
        return it[y].n - it[x].n;
    return x - y;
}

/* Translates items[0..n) in batches of similar lengths. Returns 0, XLATE_CANCELLED or
 * XLATE_ERR (message in err). */
static int translate_window(pipeline *pl, int n, long lines_before, char *err, size_t errlen)
{
    const xlate_lines_params *p = pl->p;
    int m = 0, i = 0, batch = p->batch_size;
    double t0 = now_seconds();
    for (int k = 0; k < n; k++)
        if (pl->items[k].n > 0)
            pl->order[m++] = k;
    qsort_r(pl->order, m, sizeof *pl->order, cmp_len_desc, pl->items);
    while (i < m) {
        int j = i;
        long toks = 0;
        if (p->cancel && p->cancel(p->cancel_user))
            return XLATE_CANCELLED;
        while (j < m && j - i < batch) {
            const item *it = &pl->items[pl->order[j]];
            if (p->batch_tokens && j > i && toks + it->n + 1 > p->batch_tokens)
                break;
            toks += it->n + 1;
            pl->src[j - i] = it->ids;
            pl->lens[j - i] = it->n;
            j++;
        }
        if (xlate_translate(pl->ctx, j - i, pl->src, pl->lens, &p->decode, pl->res, err,
                            errlen))
            return XLATE_ERR;
        for (int k = i; k < j; k++) {
            const xlate_result *res = &pl->res[k - i];
            pl->items[pl->order[k]].res = *res;
            pl->st->src_tokens += pl->lens[k - i];
            pl->st->tgt_tokens += res->n_hyps ? res->hyps[0].n : 0;
        }
        pl->st->sentences += j - i;
        pl->st->batches++;
        i = j;
        pl->st->translate_seconds += now_seconds() - t0;
        t0 = now_seconds();
        if (p->progress) {
            xlate_progress pr = {lines_before, n, m, i};
            p->progress(p->progress_user, &pr);
        }
    }
    pl->st->translate_seconds += now_seconds() - t0;
    return 0;
}

/* Hands items[0..n) to the sink in input order. */
static int deliver(pipeline *pl, const xlate_sink *out, int n, long first, char *err,
                   size_t errlen)
{
    for (int k = 0; k < n; k++) {
        const item *it = &pl->items[k];
        xlate_translation t = {first + k, it->tag, it->n, it->n_read, &it->res};
        if (out->put(out->user, &t, err, errlen))
            return XLATE_ERR_SINK;
    }
    if (out->flush && out->flush(out->user))
        return XLATE_CANCELLED;
    return 0;
}

static void free_items(pipeline *pl, int n)
{
    for (int k = 0; k < n; k++) {
        xlate_results_free(&pl->items[k].res, 1);
        free(pl->items[k].ids);
        pl->items[k].ids = NULL;
    }
}

int xlate_translate_lines(xlate_ctx *ctx, const xlate_lines_params *p, const xlate_source *in,
                          const xlate_sink *out, xlate_lines_stats *stats, char *err,
                          size_t errlen)
{
    xlate_lines_stats own;
    xlate_model_info info;
    pipeline pl;
    char bad_msg[XLATE_ERRLEN];
    long index = 0;
    int rc = 0;

    memset(&pl, 0, sizeof pl);
    pl.st = stats ? stats : &own;
    memset(pl.st, 0, sizeof *pl.st);
    pl.ctx = ctx;
    pl.model = xlate_ctx_model(ctx);
    pl.p = p;
    if (xlate_lines_params_check(pl.model, p, err, errlen))
        return XLATE_ERR;
    info = xlate_model_get_info(pl.model);
    pl.src_vocab = info.src_vocab;
    pl.max_in = p->max_input_length > 0 ? p->max_input_length : info.max_positions - 1;
    pl.window = xlate_lines_window(p);
    pl.items = calloc(pl.window, sizeof *pl.items);
    pl.order = calloc(pl.window, sizeof *pl.order);
    pl.src = calloc(p->batch_size, sizeof *pl.src);
    pl.lens = calloc(p->batch_size, sizeof *pl.lens);
    pl.res = calloc(p->batch_size, sizeof *pl.res);
    if (!pl.items || !pl.order || !pl.src || !pl.lens || !pl.res) {
        rc = xerr(err, errlen, "out of memory (a window of %d lines)", pl.window);
        goto done;
    }
    for (;;) {
        int n = 0, bad = 0, eof = 0;
        /* Fill the window, but never wait for input while holding lines to answer. */
        while (n < pl.window) {
            int got;
            if (n > 0 && in->ready && !in->ready(in->user))
                break;
            got = read_item(&pl, in, &pl.items[n], bad_msg, sizeof bad_msg);
            if (got == 0) {
                eof = 1;
                break;
            }
            if (got != 1) {
                bad = got;
                break;
            }
            n++;
        }
        /* The lines before a bad one are still answered. */
        rc = translate_window(&pl, n, index, err, errlen);
        if (rc == 0)
            rc = deliver(&pl, out, n, index, err, errlen);
        free_items(&pl, n);
        if (rc)
            goto done;
        index += n;
        pl.st->windows++;
        if (bad) {
            rc = bad;
            xerr(err, errlen, "%s", bad_msg);
            goto done;
        }
        if (eof)
            break;
    }
done:
    free(pl.items);
    free(pl.order);
    free(pl.src);
    free(pl.lens);
    free(pl.res);
    return rc;
}
