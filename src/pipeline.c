/* pipeline.c — lines in, translations out in input order (xlate_translate_lines, xlate.h),
 * over the public calls alone: the read-ahead window, splitting lines into sentences,
 * tokenizing, the length sort, cutting batches, restoring the input order and joining a line's
 * sentences again. Knows nothing of files, options or output formats: those are the caller's
 * (src/cli/cli_translate.c, examples/translate_file.c).
 *
 * Lines are read into a window of up to `window` lines (and `window` sentences), but never
 * waiting for input while the window holds a line: when the source says nothing is ready (a
 * co-process waiting for its answer, a slow pipe, a terminal) the window ends there. A text
 * line is split into sentences (src/text/split.h), each a segment of its own: models are
 * trained on sentences and drop or garble the second of two. The window's segments are sorted
 * by length, longest first (ties in input order), cut into batches of batch_size segments and
 * at most batch_tokens source tokens, translated, and delivered line by line in input order.
 * A segment's translation does not depend on its batch, so a paragraph's translation is its
 * sentences' translations, each as it would be on a line of its own. */
#include "xlate.h"
#include "base/util.h"
#include "text/split.h"
#include <stdlib.h>
#include <string.h>

enum { MAX_BATCH = 4096, MAX_WINDOW = 100000 };
/* A window also ends once its lines hold this many bytes of text: memory stays flat however
 * long the lines (each at most what the caller's reader allows). */
#define WINDOW_TEXT ((size_t)4 << 20)

/* One sentence (or unsplit line) on its way through a window. */
typedef struct {
    int *ids;          /* [n_read] source ids (malloc'd), without eos; the first n translated */
    int *spans;        /* [2 * n_read] each id's bytes in the line (malloc'd), when alignments
                          are asked of a text line; else NULL */
    int n, n_read;
    size_t start, end; /* its bytes in the line */
    unsigned long long stream; /* sampling: its random stream, (line index << 24) + sentence */
    int *prefix;       /* [n_prefix] target ids forced first (malloc'd; the line's first
                          sentence with tokens), NULL: none */
    int n_prefix;
    xlate_result res;
} seg;

/* One input line: its segments are segs[seg0 .. seg0 + n_seg). */
typedef struct {
    long tag;
    int seg0, n_seg;
    size_t text_off, text_len; /* its text in the window's arena (a line of ids: none) */
    int has_text;
    xlate_result joined; /* n_seg > 1: the line's hypotheses (hyp_of says of what) */
    int *hyp_of;         /* [joined.n_hyps][n_seg] (malloc'd), for n_seg > 1 */
} item;

typedef struct {
    xlate_ctx *ctx;
    const xlate_model *model;
    const xlate_lines_params *p;
    xlate_lines_stats *st;
    int src_vocab, max_in, window;
    const char *source_lang; /* the splitter's rules (NULL: neutral) */
    int no_space;            /* the target language writes no spaces between sentences */
    item *items;         /* [window] */
    seg *segs;           /* [cap_segs] the window's segments */
    int n_segs, cap_segs;
    int *order;          /* [cap_segs] indices of the segments with tokens, longest first */
    char *arena;         /* [cap_arena] the window's lines of text, one after the other */
    size_t n_arena, cap_arena;
    xlate_segment *view; /* [cap_view] one line's segments as the sink sees them */
    int cap_view;
    const int **src;     /* [batch] */
    int *lens;           /* [batch] */
    xlate_sentence_opts *opts; /* [batch] */
    xlate_result *res;   /* [batch] */
} pipeline;

xlate_lines_params xlate_lines_default_params(void)
{
    xlate_lines_params p;
    memset(&p, 0, sizeof p);
    p.decode = xlate_decode_default_params();
    p.batch_size = 32;
    p.target_lang_id = -1;
    p.split = XLATE_SPLIT_SENTENCES;
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
    if (p->split != XLATE_SPLIT_SENTENCES && p->split != XLATE_SPLIT_NONE)
        return xerr(err, errlen, "split: expected XLATE_SPLIT_SENTENCES (%d) or "
                    "XLATE_SPLIT_NONE (%d), got %d", XLATE_SPLIT_SENTENCES, XLATE_SPLIT_NONE,
                    p->split);
    for (int k = 0; k < 2; k++) {
        const char *l = k ? p->target_lang : p->source_lang;
        if (l && !is_lang_code(l))
            return xerr(err, errlen, "%s: expected a language code such as \"en\" (1 to 15 "
                        "letters, digits, '-', '_'), got a string of %zu bytes",
                        k ? "target_lang" : "source_lang", strlen(l));
    }
    return 0;
}

/* Room for one more segment; returns it (zeroed) or NULL out of memory. */
static seg *new_seg(pipeline *pl)
{
    if (pl->n_segs == pl->cap_segs) {
        int cap = pl->cap_segs ? 2 * pl->cap_segs : 64;
        seg *s = realloc(pl->segs, cap * sizeof *s);
        int *o;
        if (!s)
            return NULL;
        pl->segs = s;
        if (!(o = realloc(pl->order, cap * sizeof *o)))
            return NULL;
        pl->order = o;
        pl->cap_segs = cap;
    }
    memset(&pl->segs[pl->n_segs], 0, sizeof *pl->segs);
    return &pl->segs[pl->n_segs++];
}

/* Copies a line's text into the window's arena: the sink sees it (jsonl prints each
 * sentence's source), and the join takes the whitespace between the sentences from it. */
static int keep_text(pipeline *pl, item *it, const char *s, size_t len)
{
    if (pl->n_arena + len + 1 > pl->cap_arena) {
        size_t cap = pl->cap_arena ? pl->cap_arena : 4096;
        char *a;
        while (cap < pl->n_arena + len + 1)
            cap *= 2;
        if (!(a = realloc(pl->arena, cap)))
            return -1;
        pl->arena = a;
        pl->cap_arena = cap;
    }
    memcpy(pl->arena + pl->n_arena, s, len);
    pl->arena[pl->n_arena + len] = '\0';
    it->text_off = pl->n_arena;
    it->text_len = len;
    it->has_text = 1;
    pl->n_arena += len + 1;
    return 0;
}

/* The segment's ids: >>xx<< in front where asked, cut to max_input_length. */
static int finish_seg(pipeline *pl, seg *sg, char *err, size_t errlen)
{
    if (pl->p->target_lang_id >= 0 && sg->n > 0) { /* >>xx<< in front, as the text would have it */
        int *q = realloc(sg->ids, (sg->n + 1) * sizeof *q);
        if (!q)
            return xerr(err, errlen, "out of memory");
        memmove(q + 1, q, sg->n * sizeof *q);
        q[0] = pl->p->target_lang_id;
        sg->ids = q;
        if (sg->spans) { /* it covers nothing: an empty range where the sentence starts */
            int *sp = realloc(sg->spans, 2 * (sg->n + 1) * sizeof *sp);
            if (!sp)
                return xerr(err, errlen, "out of memory");
            memmove(sp + 2, sp, 2 * sg->n * sizeof *sp);
            sp[0] = sp[1] = (int)sg->start;
            sg->spans = sp;
        }
        sg->n++;
    }
    sg->n_read = sg->n;
    if (sg->n > pl->max_in) {
        sg->n = pl->max_in;
        pl->st->truncated++;
    }
    return 0;
}

/* A text line into its segments: its sentences, or the whole line. */
static int text_segments(pipeline *pl, item *it, const char *text, size_t len, char *err,
                         size_t errlen)
{
    split_span *spans = NULL, whole = {0, len};
    int n = 1, rc = XLATE_ERR;
    if (keep_text(pl, it, text, len))
        return xerr(err, errlen, "out of memory");
    if (pl->p->split == XLATE_SPLIT_SENTENCES) {
        double t0 = now_seconds();
        if (split_sentences(text, len, pl->source_lang, &spans, &n, err, errlen))
            return XLATE_ERR;
        pl->st->split_seconds += now_seconds() - t0;
    } else {
        spans = &whole;
    }
    for (int k = 0; k < n; k++) {
        seg *sg = new_seg(pl);
        if (!sg) {
            xerr(err, errlen, "out of memory");
            goto done;
        }
        it->n_seg++;
        sg->start = spans[k].start;
        sg->end = spans[k].end;
        if (pl->p->decode.alignments
                ? xlate_tokenize_spans(pl->model, text + sg->start, sg->end - sg->start,
                                       &sg->ids, &sg->spans, &sg->n, err, errlen)
                : xlate_tokenize(pl->model, text + sg->start, sg->end - sg->start, &sg->ids,
                                 &sg->n, err, errlen)) {
            pl->st->error_tag = it->tag;
            rc = XLATE_ERR_LINE;
            goto done;
        }
        for (int k = 0; sg->spans && k < 2 * sg->n; k++) /* bytes of the line */
            sg->spans[k] += (int)sg->start;
        if (finish_seg(pl, sg, err, errlen))
            goto done;
    }
    rc = 0;
done:
    if (spans != &whole)
        free(spans);
    return rc;
}

/* The line's target prefix, if any, on its first sentence with tokens: 0, or XLATE_ERR_LINE
 * (it cannot be tokenized) or XLATE_ERR with err. */
static int line_prefix(pipeline *pl, item *it, const xlate_line *line, char *err,
                       size_t errlen)
{
    seg *sg = NULL;
    for (int k = 0; k < it->n_seg && !sg; k++)
        if (pl->segs[it->seg0 + k].n > 0)
            sg = &pl->segs[it->seg0 + k];
    if (!sg || (line->prefix ? line->prefix_len == 0 : line->n_prefix_ids <= 0))
        return 0;
    if (line->prefix) {
        if (xlate_tokenize_target(pl->model, line->prefix, line->prefix_len, &sg->prefix,
                                  &sg->n_prefix, err, errlen)) {
            pl->st->error_tag = it->tag;
            return XLATE_ERR_LINE;
        }
        return 0;
    }
    if (!(sg->prefix = malloc(line->n_prefix_ids * sizeof *sg->prefix)))
        return xerr(err, errlen, "out of memory");
    memcpy(sg->prefix, line->prefix_ids, line->n_prefix_ids * sizeof *sg->prefix);
    sg->n_prefix = line->n_prefix_ids;
    return 0;
}

/* Reads the next line into it. Returns 1, 0 at the end, XLATE_ERR_SOURCE, XLATE_ERR_LINE or
 * XLATE_ERR (message in err). */
static int read_item(pipeline *pl, const xlate_source *in, item *it, char *err, size_t errlen)
{
    xlate_line line;
    int got, rc, tokens = 0;
    memset(&line, 0, sizeof line);
    got = in->next(in->user, &line, err, errlen);
    if (got <= 0)
        return got < 0 ? XLATE_ERR_SOURCE : 0;
    memset(it, 0, sizeof *it);
    it->tag = line.tag;
    it->seg0 = pl->n_segs;
    if (line.text) {
        if ((rc = text_segments(pl, it, line.text, line.len, err, errlen)))
            return rc;
    } else {
        seg *sg;
        for (int k = 0; k < line.n_ids; k++)
            if (line.ids[k] < 0 || line.ids[k] >= pl->src_vocab) {
                pl->st->error_tag = line.tag;
                xerr(err, errlen, "token %d: id %d outside the source vocabulary [0, %d)",
                     k + 1, line.ids[k], pl->src_vocab);
                return XLATE_ERR_LINE;
            }
        if (!(sg = new_seg(pl)))
            return xerr(err, errlen, "out of memory");
        it->n_seg = 1;
        sg->n = line.n_ids > 0 ? line.n_ids : 0;
        if (!(sg->ids = malloc((sg->n ? sg->n : 1) * sizeof *sg->ids)))
            return xerr(err, errlen, "out of memory");
        memcpy(sg->ids, line.ids, sg->n * sizeof *sg->ids);
        if (finish_seg(pl, sg, err, errlen))
            return XLATE_ERR;
    }
    if ((rc = line_prefix(pl, it, &line, err, errlen)))
        return rc;
    for (int k = 0; k < it->n_seg; k++) {
        seg *sg = &pl->segs[it->seg0 + k];
        tokens += sg->n;
        /* a line's sentences draw from streams of their own, whatever the batch or window:
         * the line's index (lines read before it) and the sentence's place in the line */
        sg->stream = ((unsigned long long)pl->st->lines << 24) + (unsigned long long)k;
    }
    if (tokens == 0)
        pl->st->empty++;
    pl->st->lines++;
    return 1;
}

static int cmp_len_desc(const void *a, const void *b, void *segs)
{
    const seg *sg = segs;
    int x = *(const int *)a, y = *(const int *)b;
    if (sg[x].n != sg[y].n)
        return sg[y].n - sg[x].n;
    return x - y;
}

/* Translates the window's segments in batches of similar lengths. Returns 0, XLATE_CANCELLED,
 * XLATE_ERR_WORKSPACE or XLATE_ERR (message in err). */
static int translate_window(pipeline *pl, int n_lines, long lines_before, char *err,
                            size_t errlen)
{
    const xlate_lines_params *p = pl->p;
    int m = 0, i = 0, batch = p->batch_size;
    double t0 = now_seconds();
    for (int k = 0; k < pl->n_segs; k++)
        if (pl->segs[k].n > 0)
            pl->order[m++] = k;
    if (m > 1)
        qsort_r(pl->order, m, sizeof *pl->order, cmp_len_desc, pl->segs);
    while (i < m) {
        int j = i;
        long toks = 0;
        if (p->cancel && p->cancel(p->cancel_user))
            return XLATE_CANCELLED;
        while (j < m && j - i < batch) {
            const seg *sg = &pl->segs[pl->order[j]];
            if (p->batch_tokens && j > i && toks + sg->n + 1 > p->batch_tokens)
                break;
            toks += sg->n + 1;
            pl->src[j - i] = sg->ids;
            pl->lens[j - i] = sg->n;
            pl->opts[j - i].stream = sg->stream;
            pl->opts[j - i].prefix = sg->prefix;
            pl->opts[j - i].prefix_len = sg->n_prefix;
            j++;
        }
        {
            int rc = xlate_translate_ex(pl->ctx, j - i, pl->src, pl->lens, pl->opts, &p->decode,
                                        pl->res, err, errlen);
            if (rc)
                return rc == XLATE_ERR_WORKSPACE ? XLATE_ERR_WORKSPACE : XLATE_ERR;
        }
        for (int k = i; k < j; k++) {
            const xlate_result *res = &pl->res[k - i];
            pl->segs[pl->order[k]].res = *res;
            pl->st->src_tokens += pl->lens[k - i];
            pl->st->tgt_tokens += res->n_hyps ? res->hyps[0].n : 0;
        }
        pl->st->sentences += j - i;
        pl->st->batches++;
        i = j;
        pl->st->translate_seconds += now_seconds() - t0;
        t0 = now_seconds();
        if (p->progress) {
            xlate_progress pr = {lines_before, n_lines, m, i};
            p->progress(p->progress_user, &pr);
        }
    }
    pl->st->translate_seconds += now_seconds() - t0;
    return 0;
}

/* A line of several sentences: its n-best list is the best combinations of one hypothesis a
 * sentence by summed score (found sentence by sentence, keeping the best K partial ones, which
 * is exact since the score of a combination is a sum), K the most hypotheses any sentence has.
 * Fills it->joined and it->hyp_of. Returns 0 or -1 out of memory. */
static int join_hyps(pipeline *pl, item *it)
{
    const seg *sg = &pl->segs[it->seg0];
    int ns = it->n_seg, K = 0, cur = 1, rc = -1;
    int *of = NULL, *next = NULL;  /* [K][ns] sentence hypotheses of each partial combination */
    float *score = NULL, *cand = NULL; /* [K] sums; [K * K] candidates' */
    int *cand_i = NULL;            /* [K * K] candidate = parent * K + hypothesis */
    for (int k = 0; k < ns; k++)
        K = sg[k].res.n_hyps > K ? sg[k].res.n_hyps : K;
    if (K == 0)
        return 0;
    of = calloc((size_t)K * ns, sizeof *of);
    next = calloc((size_t)K * ns, sizeof *next);
    score = calloc(K, sizeof *score);
    cand = malloc((size_t)K * K * sizeof *cand);
    cand_i = malloc((size_t)K * K * sizeof *cand_i);
    if (!of || !next || !score || !cand || !cand_i)
        goto done;
    for (int k = 0; k < ns; k++) {
        const xlate_result *r = &sg[k].res;
        int nc = 0, keep;
        if (r->n_hyps == 0) {
            for (int c = 0; c < cur; c++)
                of[c * ns + k] = -1;
            continue;
        }
        for (int c = 0; c < cur; c++)
            for (int h = 0; h < r->n_hyps; h++) {
                cand[nc] = score[c] + r->hyps[h].score;
                cand_i[nc++] = c * K + h;
            }
        /* the best `keep` of nc by score, ties by order (a selection sort: K is small) */
        keep = nc < K ? nc : K;
        for (int a = 0; a < keep; a++) {
            int best = a;
            for (int b = a + 1; b < nc; b++)
                if (cand[b] > cand[best] ||
                    (cand[b] == cand[best] && cand_i[b] < cand_i[best]))
                    best = b;
            float ts = cand[a];
            int ti = cand_i[a];
            cand[a] = cand[best], cand_i[a] = cand_i[best];
            cand[best] = ts, cand_i[best] = ti;
        }
        for (int a = 0; a < keep; a++) {
            int c = cand_i[a] / K, h = cand_i[a] % K;
            memcpy(next + a * ns, of + c * ns, k * sizeof *of);
            next[a * ns + k] = h;
            score[a] = cand[a];
        }
        int *t = of;
        of = next;
        next = t;
        cur = keep;
    }
    if (!(it->joined.hyps = calloc(cur, sizeof *it->joined.hyps)))
        goto done;
    it->joined.n_hyps = cur;
    for (int c = 0; c < cur; c++) {
        xlate_hypothesis *j = &it->joined.hyps[c];
        int n = 0, nt = 0, with_tok = 1;
        j->finished = 1;
        for (int k = 0; k < ns; k++) {
            const xlate_hypothesis *h;
            if (of[c * ns + k] < 0)
                continue;
            h = &sg[k].res.hyps[of[c * ns + k]];
            n += h->n;
            nt += h->n + h->finished;
            with_tok &= h->token_logprobs != NULL;
            j->finished &= h->finished;
            j->logprob += h->logprob;
            j->score += h->score;
        }
        if (!(j->ids = malloc((n ? n : 1) * sizeof *j->ids)) ||
            (with_tok && !(j->token_logprobs = malloc((nt ? nt : 1) * sizeof(float)))))
            goto done;
        n = nt = 0;
        for (int k = 0; k < ns; k++) {
            const xlate_hypothesis *h;
            if (of[c * ns + k] < 0)
                continue;
            h = &sg[k].res.hyps[of[c * ns + k]];
            memcpy(j->ids + n, h->ids, h->n * sizeof *h->ids);
            n += h->n;
            if (with_tok)
                memcpy(j->token_logprobs + nt, h->token_logprobs,
                       (h->n + h->finished) * sizeof(float));
            nt += h->n + h->finished;
        }
        j->n = n;
    }
    it->hyp_of = of;
    of = NULL;
    rc = 0;
done:
    free(of);
    free(next);
    free(score);
    free(cand);
    free(cand_i);
    return rc;
}

/* Hands items[0..n) to the sink in input order. */
static int deliver(pipeline *pl, const xlate_sink *out, int n, long first, char *err,
                   size_t errlen)
{
    static const xlate_result none = {NULL, 0};
    for (int k = 0; k < n; k++) {
        item *it = &pl->items[k];
        xlate_translation t;
        memset(&t, 0, sizeof t);
        t.index = first + k;
        t.tag = it->tag;
        if (it->n_seg > pl->cap_view) {
            xlate_segment *v = realloc(pl->view, it->n_seg * sizeof *v);
            if (!v)
                return xerr(err, errlen, "out of memory");
            pl->view = v;
            pl->cap_view = it->n_seg;
        }
        if (it->has_text) {
            t.text = pl->arena + it->text_off;
            t.len = it->text_len;
        }
        for (int s = 0; s < it->n_seg; s++) {
            const seg *sg = &pl->segs[it->seg0 + s];
            xlate_segment *v = &pl->view[s];
            size_t prev = s ? pl->segs[it->seg0 + s - 1].end : sg->start;
            v->start = sg->start;
            v->end = sg->end;
            v->space = t.text ? t.text + prev : "";
            v->space_len = sg->start - prev;
            v->src_tokens = sg->n;
            v->src_spans = sg->spans;
            v->src_tokens_read = sg->n_read;
            v->prefix_len = sg->n_prefix;
            v->res = &sg->res;
            t.src_tokens += sg->n;
            t.src_tokens_read += sg->n_read;
        }
        t.n_segments = it->n_seg;
        t.segments = pl->view;
        t.join_no_space = pl->no_space;
        if (it->n_seg == 1) {
            t.res = &pl->segs[it->seg0].res;
        } else if (it->n_seg == 0) {
            t.res = &none;
        } else {
            if (join_hyps(pl, it))
                return xerr(err, errlen, "out of memory");
            t.res = &it->joined;
            t.hyp_of = it->hyp_of;
        }
        if (out->put(out->user, &t, err, errlen))
            return XLATE_ERR_SINK;
    }
    if (out->flush && out->flush(out->user))
        return XLATE_CANCELLED;
    return 0;
}

/* Frees the window's lines and segments, for the next window. */
static void free_window(pipeline *pl, int n)
{
    for (int k = 0; k < n; k++) {
        xlate_results_free(&pl->items[k].joined, 1);
        free(pl->items[k].hyp_of);
        pl->items[k].hyp_of = NULL;
    }
    for (int k = 0; k < pl->n_segs; k++) {
        xlate_results_free(&pl->segs[k].res, 1);
        free(pl->segs[k].ids);
        free(pl->segs[k].spans);
        free(pl->segs[k].prefix);
    }
    pl->n_segs = 0;
    pl->n_arena = 0;
}

int xlate_translation_text(const xlate_model *m, const xlate_translation *t, int h, char **text,
                           char *err, size_t errlen)
{
    const xlate_result *r = t->res;
    char *out = NULL;
    size_t len = 0, cap = 0;
    *text = NULL;
    if (h < 0 || (h >= r->n_hyps && r->n_hyps > 0))
        return xerr(err, errlen, "hypothesis %d: the line has %d", h, r->n_hyps);
    if (!t->hyp_of) /* one sentence (or none) */
        return r->n_hyps ? xlate_detokenize(m, r->hyps[h].ids, r->hyps[h].n, text, err, errlen)
                         : !(*text = calloc(1, 1)) ? xerr(err, errlen, "out of memory") : 0;
    for (int k = 0; k < t->n_segments; k++) {
        const xlate_segment *sg = &t->segments[k];
        int which = t->hyp_of[h * t->n_segments + k];
        const xlate_hypothesis *hy;
        char *part;
        size_t plen, sp = 0;
        const char *space = " ";
        if (which < 0)
            continue;
        hy = &sg->res->hyps[which];
        if (xlate_detokenize(m, hy->ids, hy->n, &part, err, errlen)) {
            free(out);
            return -1;
        }
        plen = strlen(part);
        if (plen && len) { /* between two sentences with text */
            if (!t->join_no_space) {
                sp = sg->space_len ? sg->space_len : 1;
                space = sg->space_len ? sg->space : " ";
            }
        }
        if (len + sp + plen + 1 > cap) {
            char *o;
            cap = 2 * (len + sp + plen + 1);
            if (!(o = realloc(out, cap))) {
                free(part);
                free(out);
                return xerr(err, errlen, "out of memory");
            }
            out = o;
        }
        memcpy(out + len, space, sp);
        memcpy(out + len + sp, part, plen);
        len += sp + plen;
        out[len] = '\0';
        free(part);
    }
    if (!out && !(out = calloc(1, 1)))
        return xerr(err, errlen, "out of memory");
    *text = out;
    return 0;
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
    pl.source_lang = p->source_lang ? p->source_lang : info.source_lang;
    pl.no_space = split_lang_no_spaces(p->target_lang ? p->target_lang : info.target_lang);
    pl.items = calloc(pl.window, sizeof *pl.items);
    pl.src = calloc(p->batch_size, sizeof *pl.src);
    pl.lens = calloc(p->batch_size, sizeof *pl.lens);
    pl.res = calloc(p->batch_size, sizeof *pl.res);
    pl.opts = calloc(p->batch_size, sizeof *pl.opts);
    if (!pl.items || !pl.src || !pl.lens || !pl.res || !pl.opts) {
        rc = xerr(err, errlen, "out of memory (a window of %d lines)", pl.window);
        goto done;
    }
    for (;;) {
        int n = 0, bad = 0, eof = 0;
        /* Fill the window, but never wait for input while holding lines to answer. */
        while (n < pl.window && pl.n_segs < pl.window && pl.n_arena < WINDOW_TEXT) {
            int got, seg0 = pl.n_segs;
            if (n > 0 && in->ready && !in->ready(in->user))
                break;
            got = read_item(&pl, in, &pl.items[n], bad_msg, sizeof bad_msg);
            if (got == 0) {
                eof = 1;
                break;
            }
            if (got != 1) { /* the bad line's segments are not translated */
                for (int k = seg0; k < pl.n_segs; k++) {
                    free(pl.segs[k].ids);
                    free(pl.segs[k].spans);
                    free(pl.segs[k].prefix);
                }
                pl.n_segs = seg0;
                bad = got;
                break;
            }
            n++;
        }
        /* The lines before a bad one are still answered. */
        rc = translate_window(&pl, n, index, err, errlen);
        if (rc == 0)
            rc = deliver(&pl, out, n, index, err, errlen);
        free_window(&pl, n);
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
    free_window(&pl, 0);
    free(pl.items);
    free(pl.segs);
    free(pl.order);
    free(pl.arena);
    free(pl.view);
    free(pl.src);
    free(pl.lens);
    free(pl.res);
    free(pl.opts);
    return rc;
}
