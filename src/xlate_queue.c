/* xlate_queue.c — the request queue that many threads share (xlate.h, "A request queue"):
 * requests in, first in first out, onto max_requests request threads; each runs its request as
 * the command line would (xlate_translate_lines for text, doc_translate for HTML and Markdown)
 * on a forwarding context of its own (xlate_ctx_forwarding), whose batches come here as jobs;
 * the one model thread merges the waiting jobs round-robin into batches of batch_size
 * sentences on the queue's real context, and hands each sentence's result back to its job.
 *
 * A sentence's translation does not depend on its batch (the context stays batch-invariant),
 * so which requests share a batch changes no answer. Locking: one mutex (q->mu) guards both
 * lists and every job's counters; the model thread translates with it released. */
#include "xlate.h"
#include "xlate_impl.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "doc/doc.h"
#include "doc/formats.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { QUEUE_MAX_BATCH = 4096, QUEUE_MAX_REQUESTS = 1024 };

/* One batch a request's pipeline hands over (the forward of its context), waiting for its
 * sentences' results. Lives on the request thread's stack until done. */
typedef struct job {
    int n, taken, left;            /* sentences; given to batches so far; not yet answered */
    const int *const *src;         /* [n] the pipeline's, valid until done */
    const int *src_len;            /* [n] */
    const xlate_sentence_opts *opts; /* [n] or NULL (stream i) */
    const xlate_decode_params *p;
    xlate_result *out;             /* [n] the pipeline's: each result moved here */
    int failed;                    /* a batch of it failed: msg says why */
    char msg[XLATE_ERRLEN];
    pthread_cond_t cv;             /* signalled when left reaches 0 */
    struct job *next;              /* in q->jobs while some sentence is not yet taken */
} job;

/* One submitted request: the caller's texts copied. */
typedef struct req {
    xlate_request r;
    char *buf;                     /* the texts, one after the other */
    const char **texts;            /* [r.n] into buf */
    size_t *lens;                  /* [r.n] */
    void (*done)(void *user, xlate_answer *a);
    void *user;
    struct req *next;
} req;

struct xlate_queue {
    const xlate_model *m;
    xlate_ctx *ctx;                /* the real one: the model thread's alone */
    xlate_queue_params p;
    pthread_mutex_t mu;
    pthread_cond_t req_cv;         /* request threads wait here for requests */
    pthread_cond_t job_cv;         /* the model thread waits here for jobs */
    req *reqs, *reqs_tail;         /* waiting requests, oldest first */
    job *jobs, *jobs_tail;         /* jobs with sentences not yet taken, oldest first */
    int pending;                   /* requests submitted and not yet answered */
    int stopping;                  /* no new requests; request threads end when none waits */
    int model_stop;                /* the request threads are gone: the model thread ends */
    pthread_t model_thread;
    pthread_t *req_threads;        /* [n_req_threads] */
    int n_req_threads;
    int model_started;
    xlate_queue_stats stats;       /* under mu */
    /* the model thread's batch: [batch_size] each */
    const int **b_src;
    int *b_len;
    xlate_sentence_opts *b_opts;
    xlate_result *b_res;
    job **b_job;
    int *b_idx;
};

xlate_queue_params xlate_queue_default_params(void)
{
    xlate_queue_params p = {0, 32, 64};
    return p;
}

xlate_request xlate_request_default(const xlate_model *m)
{
    xlate_request r;
    memset(&r, 0, sizeof r);
    r.params = xlate_lines_default_params();
    r.params.decode = xlate_model_decode_defaults(m);
    if (r.params.decode.beam_size > 1) /* beam search ranks by score: as cli_translate.c */
        r.params.decode.scores = 1;
    r.format = XLATE_FORMAT_TEXT;
    return r;
}

/* 1 when two sentences under a and b may share a batch: every field xlate_translate_ex reads
 * is equal (the suppress lists by content). */
static int same_params(const xlate_decode_params *a, const xlate_decode_params *b)
{
    if (a == b)
        return 1;
    if (a->beam_size != b->beam_size || a->n_best != b->n_best ||
        a->length_penalty != b->length_penalty || a->max_length != b->max_length ||
        a->min_length != b->min_length || a->scores != b->scores ||
        a->token_scores != b->token_scores || a->alignments != b->alignments ||
        a->alignment_layer != b->alignment_layer || a->forced_bos_id != b->forced_bos_id ||
        a->source_suffix_id != b->source_suffix_id ||
        a->repetition_penalty != b->repetition_penalty ||
        a->no_repeat_ngram_size != b->no_repeat_ngram_size ||
        a->disable_unk != b->disable_unk || a->n_suppress != b->n_suppress ||
        a->sampling != b->sampling || a->sampling_topk != b->sampling_topk ||
        a->sampling_topp != b->sampling_topp ||
        a->sampling_temperature != b->sampling_temperature || a->seed != b->seed ||
        a->return_alternatives != b->return_alternatives)
        return 0;
    if (a->n_suppress > 0) {
        int n = a->suppress_off[a->n_suppress];
        if (memcmp(a->suppress_off, b->suppress_off, (a->n_suppress + 1) * sizeof(int)) ||
            n != b->suppress_off[b->n_suppress] ||
            memcmp(a->suppress_ids, b->suppress_ids, n * sizeof(int)))
            return 0;
    }
    return 1;
}

/* The forward of a request thread's context: the batch queued as a job, waited for. */
static int forward(void *user, int n, const int *const *src, const int *src_len,
                   const xlate_sentence_opts *opts, const xlate_decode_params *p,
                   xlate_result *out, char *err, size_t errlen)
{
    xlate_queue *q = user;
    job j;
    memset(out, 0, (size_t)(n > 0 ? n : 0) * sizeof *out);
    if (n <= 0)
        return 0;
    /* bad params fail here, not in the merged batch where they would fail the others too */
    if (xlate_decode_params_check(q->m, p, err, errlen))
        return -1;
    memset(&j, 0, sizeof j);
    j.n = j.left = n;
    j.src = src;
    j.src_len = src_len;
    j.opts = opts;
    j.p = p;
    j.out = out;
    pthread_cond_init(&j.cv, NULL);
    pthread_mutex_lock(&q->mu);
    if (q->jobs_tail)
        q->jobs_tail->next = &j;
    else
        q->jobs = &j;
    q->jobs_tail = &j;
    pthread_cond_signal(&q->job_cv);
    while (j.left > 0)
        pthread_cond_wait(&j.cv, &q->mu);
    pthread_mutex_unlock(&q->mu);
    pthread_cond_destroy(&j.cv);
    if (j.failed) { /* the sentences answered in other batches are dropped too */
        xlate_results_free(out, n);
        memset(out, 0, (size_t)n * sizeof *out);
        return xerr(err, errlen, "%s", j.msg);
    }
    return 0;
}

/* Fills the model thread's batch from the waiting jobs (q->mu held): the oldest job's params
 * pick the jobs; one sentence from each in turn until batch_size. Jobs all of whose sentences
 * are taken leave the list. Returns the batch's size. */
static int take_batch(xlate_queue *q, const xlate_decode_params **pp)
{
    const xlate_decode_params *p = q->jobs->p;
    int m = 0, more = 1;
    while (m < q->p.batch_size && more) {
        more = 0;
        for (job *j = q->jobs; j && m < q->p.batch_size; j = j->next) {
            if (j->taken == j->n || !same_params(j->p, p))
                continue;
            q->b_src[m] = j->src[j->taken];
            q->b_len[m] = j->src_len[j->taken];
            if (j->opts) {
                q->b_opts[m] = j->opts[j->taken];
            } else {
                memset(&q->b_opts[m], 0, sizeof q->b_opts[m]);
                q->b_opts[m].stream = (unsigned long long)j->taken;
            }
            q->b_job[m] = j;
            q->b_idx[m] = j->taken++;
            m++;
            more = 1;
        }
    }
    for (job **jp = &q->jobs; *jp;) { /* unlink the jobs fully taken */
        if ((*jp)->taken == (*jp)->n) {
            if (q->jobs_tail == *jp)
                q->jobs_tail = NULL;
            *jp = (*jp)->next;
        } else {
            jp = &(*jp)->next;
        }
    }
    if (!q->jobs_tail) /* the tail was unlinked: find the new one */
        for (job *j = q->jobs; j; j = j->next)
            q->jobs_tail = j;
    *pp = p;
    return m;
}

static void *model_main(void *arg)
{
    xlate_queue *q = arg;
    char err[XLATE_ERRLEN];
    pthread_mutex_lock(&q->mu);
    for (;;) {
        const xlate_decode_params *p;
        int m, rc;
        while (!q->jobs && !q->model_stop)
            pthread_cond_wait(&q->job_cv, &q->mu);
        if (!q->jobs)
            break;
        m = take_batch(q, &p);
        pthread_mutex_unlock(&q->mu);
        /* p is the first taken job's, alive until its last sentence is answered below */
        rc = xlate_translate_ex(q->ctx, m, q->b_src, q->b_len, q->b_opts, p, q->b_res, err,
                                sizeof err);
        pthread_mutex_lock(&q->mu);
        q->stats.batches++;
        q->stats.sentences += m;
        q->stats.largest = m > q->stats.largest ? m : q->stats.largest;
        for (int k = 1; k < m; k++)
            if (q->b_job[k] != q->b_job[0]) {
                q->stats.shared_batches++;
                break;
            }
        for (int k = 0; k < m; k++) {
            job *j = q->b_job[k];
            if (rc) {
                j->failed = 1;
                snprintf(j->msg, sizeof j->msg, "%s", err);
            } else {
                j->out[q->b_idx[k]] = q->b_res[k];
            }
            if (--j->left == 0)
                pthread_cond_signal(&j->cv);
        }
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

/* ---- running one request (on a request thread) ---- */

/* A text request's lines: every text's lines in order, each tagged with its text. */
typedef struct {
    const req *rq;
    const xlate_model *m;
    int text;                /* the text being read */
    size_t at;               /* where its next line starts */
    int done_text;           /* 1 once the text's last line was given */
    int n_hyps;
    strbuf *out;             /* [n * n_hyps] */
    int *lines_out;          /* [n] lines written to each text */
} text_run;

static int text_next(void *user, xlate_line *line, char *err, size_t errlen)
{
    text_run *t = user;
    const char *s;
    size_t len, end;
    (void)err, (void)errlen;
    while (t->text < t->rq->r.n && t->done_text) {
        t->text++;
        t->at = 0;
        t->done_text = 0;
    }
    if (t->text >= t->rq->r.n)
        return 0;
    s = t->rq->texts[t->text];
    len = t->rq->lens[t->text];
    for (end = t->at; end < len && s[end] != '\n'; end++)
        ;
    line->text = s + t->at;
    line->len = end - t->at;
    if (line->len > 0 && line->text[line->len - 1] == '\r') /* as the command line's reader */
        line->len--;
    line->tag = t->text;
    if (end >= len)
        t->done_text = 1;
    t->at = end + 1;
    return 1;
}

static int text_put(void *user, const xlate_translation *tr, char *err, size_t errlen)
{
    text_run *t = user;
    int i = (int)tr->tag;
    for (int h = 0; h < t->n_hyps; h++) {
        strbuf *b = &t->out[(size_t)i * t->n_hyps + h];
        int which = tr->res->n_hyps == 0 ? 0 : h < tr->res->n_hyps ? h : tr->res->n_hyps - 1;
        char *s;
        if (doc_line_text(t->m, tr, which, &s, err, errlen)) /* (its URLs kept) */
            return -1;
        if ((t->lines_out[i] && strbuf_put(b, "\n", 1)) || strbuf_put(b, s, strlen(s))) {
            free(s);
            return xerr(err, errlen, "out of memory");
        }
        free(s);
    }
    t->lines_out[i]++;
    return 0;
}

/* One document of a request into out, as `xlate --format` translates it (formats.h). */
static int run_doc(xlate_ctx *ctx, const req *rq, int i, strbuf *out, long *sentences,
                   char *err, size_t errlen)
{
    const doc_format *f = doc_format_of(rq->r.format);
    xlate_model_info info = xlate_model_get_info(xlate_ctx_model(ctx));
    doc_opts o;
    doc_report rep;
    int rc;
    memset(&o, 0, sizeof o);
    o.target_lang = rq->r.params.target_lang ? rq->r.params.target_lang : info.target_lang;
    o.source_lang = rq->r.params.source_lang ? rq->r.params.source_lang : info.source_lang;
    /* (submit copied the text with a NUL after it, as a text format's parser reads to it) */
    rc = doc_format_translate(ctx, &rq->r.params, &o, f, rq->texts[i], rq->lens[i], "the document",
                              strbuf_put, out, &rep, err, errlen);
    *sentences += rep.sentences;
    if (rc == 0 && !out->s && strbuf_put(out, "", 0))
        rc = xerr(err, errlen, "out of memory");
    return rc;
}

static xlate_answer *run_request(xlate_queue *q, xlate_ctx *ctx, req *rq)
{
    xlate_answer *a = calloc(1, sizeof *a);
    const xlate_decode_params *dp = &rq->r.params.decode;
    int n = rq->r.n, n_hyps, rc = 0;
    strbuf *out = NULL;
    if (!a)
        return NULL;
    n_hyps = rq->r.format != XLATE_FORMAT_TEXT ? 1 : dp->return_alternatives > 1
             ? dp->return_alternatives : dp->n_best > 1 ? dp->n_best : 1;
    a->n = n;
    a->n_hyps = n_hyps;
    rq->r.params.progress = NULL;
    rq->r.params.cancel = rq->r.cancel;
    rq->r.params.cancel_user = rq->r.cancel_user;
    if (!(out = calloc((size_t)n * n_hyps + 1, sizeof *out))) {
        rc = xerr(a->err, sizeof a->err, "out of memory");
        goto done;
    }
    if (rq->r.format == XLATE_FORMAT_TEXT) {
        /* as the command line's text in, text out (cli_translate.c): the alignments place a
         * line's URLs and e-mail addresses, kept untranslated (doc_line_text); the ids are the
         * same either way */
        rq->r.params.decode.alignments = 1;
    }
    if (rq->r.format == XLATE_FORMAT_TEXT) {
        text_run t;
        xlate_lines_stats st;
        xlate_source in = {text_next, NULL, &t};
        xlate_sink sk = {text_put, NULL, &t};
        memset(&t, 0, sizeof t);
        t.rq = rq;
        t.m = q->m;
        t.n_hyps = n_hyps;
        t.out = out;
        if (!(t.lines_out = calloc((size_t)n + 1, sizeof *t.lines_out))) {
            rc = xerr(a->err, sizeof a->err, "out of memory");
            goto done;
        }
        rc = xlate_translate_lines(ctx, &rq->r.params, &in, &sk, &st, a->err, sizeof a->err);
        free(t.lines_out);
        a->sentences = st.sentences;
    } else {
        for (int i = 0; i < n && rc == 0; i++)
            rc = run_doc(ctx, rq, i, &out[i], &a->sentences, a->err, sizeof a->err);
    }
    if (rc)
        goto done;
    if (!(a->texts = calloc((size_t)n * n_hyps + 1, sizeof *a->texts)) ||
        !(a->lens = calloc((size_t)n * n_hyps + 1, sizeof *a->lens))) {
        rc = xerr(a->err, sizeof a->err, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < (size_t)n * n_hyps; k++) {
        if (!out[k].s && strbuf_put(&out[k], "", 0)) { /* a text of no lines: "" */
            rc = xerr(a->err, sizeof a->err, "out of memory");
            goto done;
        }
        a->texts[k] = out[k].s;
        a->lens[k] = out[k].len;
        out[k].s = NULL;
    }
done:
    for (size_t k = 0; out && k < (size_t)n * n_hyps; k++)
        free(out[k].s);
    free(out);
    if (rc) {
        a->status = rc > 0 ? XLATE_ERR : rc;
        if (a->texts)
            for (size_t k = 0; k < (size_t)n * n_hyps; k++)
                free(a->texts[k]);
        free(a->texts);
        free(a->lens);
        a->texts = NULL;
        a->lens = NULL;
    }
    return a;
}

static void req_free(req *rq)
{
    if (!rq)
        return;
    free(rq->buf);
    free(rq->texts);
    free(rq->lens);
    free(rq);
}

static void *request_main(void *arg)
{
    xlate_queue *q = arg;
    xlate_ctx *ctx = xlate_ctx_forwarding(q->m, forward, q);
    pthread_mutex_lock(&q->mu);
    for (;;) {
        req *rq;
        xlate_answer *a;
        while (!q->reqs && !q->stopping)
            pthread_cond_wait(&q->req_cv, &q->mu);
        if (!q->reqs)
            break;
        rq = q->reqs;
        if (!(q->reqs = rq->next))
            q->reqs_tail = NULL;
        pthread_mutex_unlock(&q->mu);
        a = ctx ? run_request(q, ctx, rq) : NULL;
        if (!a) { /* out of memory: answered anyway, with no texts */
            static const xlate_answer none;
            a = malloc(sizeof *a);
            if (a) {
                *a = none;
                a->status = XLATE_ERR;
                snprintf(a->err, sizeof a->err, "out of memory");
            }
        }
        rq->done(rq->user, a);
        req_free(rq);
        pthread_mutex_lock(&q->mu);
        q->pending--;
    }
    pthread_mutex_unlock(&q->mu);
    xlate_ctx_free(ctx);
    return NULL;
}

int xlate_queue_new(xlate_queue **out, const xlate_model *m, const xlate_queue_params *pp,
                    char *err, size_t errlen)
{
    xlate_queue_params p = pp ? *pp : xlate_queue_default_params();
    xlate_queue *q;
    int bs;
    *out = NULL;
    if (p.batch_size < 1 || p.batch_size > QUEUE_MAX_BATCH)
        return xerr(err, errlen, "batch_size: expected 1 to %d, got %d", QUEUE_MAX_BATCH,
                    p.batch_size);
    if (p.max_requests < 1 || p.max_requests > QUEUE_MAX_REQUESTS)
        return xerr(err, errlen, "max_requests: expected 1 to %d, got %d", QUEUE_MAX_REQUESTS,
                    p.max_requests);
    if (p.threads < 0)
        return xerr(err, errlen, "threads: expected 0 (every core) or more, got %d", p.threads);
    if (!(q = calloc(1, sizeof *q)))
        return xerr(err, errlen, "out of memory");
    q->m = m;
    q->p = p;
    bs = p.batch_size;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->req_cv, NULL);
    pthread_cond_init(&q->job_cv, NULL);
    q->b_src = calloc(bs, sizeof *q->b_src);
    q->b_len = calloc(bs, sizeof *q->b_len);
    q->b_opts = calloc(bs, sizeof *q->b_opts);
    q->b_res = calloc(bs, sizeof *q->b_res);
    q->b_job = calloc(bs, sizeof *q->b_job);
    q->b_idx = calloc(bs, sizeof *q->b_idx);
    q->req_threads = calloc(p.max_requests, sizeof *q->req_threads);
    if (!q->b_src || !q->b_len || !q->b_opts || !q->b_res || !q->b_job || !q->b_idx ||
        !q->req_threads) {
        xerr(err, errlen, "out of memory");
        goto fail;
    }
    if (!(q->ctx = xlate_ctx_new(m, p.threads, err, errlen)))
        goto fail;
    xlate_ctx_set_batch_invariant(q->ctx, 1); /* what makes the merged batches safe */
    if (pthread_create(&q->model_thread, NULL, model_main, q)) {
        xerr(err, errlen, "cannot start the queue's model thread");
        goto fail;
    }
    q->model_started = 1;
    for (int i = 0; i < p.max_requests; i++) {
        if (pthread_create(&q->req_threads[i], NULL, request_main, q)) {
            xerr(err, errlen, "cannot start the queue's request thread %d of %d", i + 1,
                 p.max_requests);
            goto fail;
        }
        q->n_req_threads++;
    }
    *out = q;
    return 0;
fail:
    xlate_queue_free(q);
    return -1;
}

int xlate_queue_submit(xlate_queue *q, const xlate_request *r,
                       void (*done)(void *user, xlate_answer *a), void *user, char *err,
                       size_t errlen)
{
    req *rq;
    size_t total = 0, at = 0;
    if (r->n < 0 || (r->n > 0 && (!r->texts || !r->lens)))
        return xerr(err, errlen, "n: expected 0 or more texts with their lens, got %d", r->n);
    if (r->format != XLATE_FORMAT_TEXT && !doc_format_of(r->format))
        return xerr(err, errlen, "format: expected XLATE_FORMAT_TEXT or a document format "
                    "(xlate_format_name), got %d", r->format);
    if (xlate_lines_params_check(q->m, &r->params, err, errlen))
        return -1;
    for (int i = 0; i < r->n; i++)
        total += r->lens[i] + 1;
    if (!(rq = calloc(1, sizeof *rq)) || !(rq->buf = malloc(total + 1)) ||
        !(rq->texts = calloc((size_t)r->n + 1, sizeof *rq->texts)) ||
        !(rq->lens = calloc((size_t)r->n + 1, sizeof *rq->lens))) {
        req_free(rq);
        return xerr(err, errlen, "out of memory");
    }
    for (int i = 0; i < r->n; i++) {
        memcpy(rq->buf + at, r->texts[i], r->lens[i]);
        rq->buf[at + r->lens[i]] = '\0';
        rq->texts[i] = rq->buf + at;
        rq->lens[i] = r->lens[i];
        at += r->lens[i] + 1;
    }
    rq->r = *r;
    rq->r.texts = rq->texts;
    rq->r.lens = rq->lens;
    rq->done = done;
    rq->user = user;
    pthread_mutex_lock(&q->mu);
    if (q->stopping) {
        pthread_mutex_unlock(&q->mu);
        req_free(rq);
        return xerr(err, errlen, "the queue is stopping: no new requests");
    }
    if (q->reqs_tail)
        q->reqs_tail->next = rq;
    else
        q->reqs = rq;
    q->reqs_tail = rq;
    q->pending++;
    pthread_cond_signal(&q->req_cv);
    pthread_mutex_unlock(&q->mu);
    return 0;
}

/* xlate_queue_translate's wait for its answer. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    xlate_answer *a;
    int done;
} waiter;

static void wake(void *user, xlate_answer *a)
{
    waiter *w = user;
    pthread_mutex_lock(&w->mu);
    w->a = a;
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

int xlate_queue_translate(xlate_queue *q, const xlate_request *r, xlate_answer **out,
                          char *err, size_t errlen)
{
    waiter w;
    int rc;
    *out = NULL;
    memset(&w, 0, sizeof w);
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    rc = xlate_queue_submit(q, r, wake, &w, err, errlen);
    if (rc == 0) {
        pthread_mutex_lock(&w.mu);
        while (!w.done)
            pthread_cond_wait(&w.cv, &w.mu);
        pthread_mutex_unlock(&w.mu);
        if (!w.a)
            rc = xerr(err, errlen, "out of memory");
        *out = w.a;
    }
    pthread_cond_destroy(&w.cv);
    pthread_mutex_destroy(&w.mu);
    return rc;
}

void xlate_answer_free(xlate_answer *a)
{
    if (!a)
        return;
    if (a->texts)
        for (size_t k = 0; k < (size_t)a->n * a->n_hyps; k++)
            free(a->texts[k]);
    free(a->texts);
    free(a->lens);
    free(a);
}

int xlate_queue_pending(xlate_queue *q)
{
    int n;
    pthread_mutex_lock(&q->mu);
    n = q->pending;
    pthread_mutex_unlock(&q->mu);
    return n;
}

xlate_queue_stats xlate_queue_get_stats(xlate_queue *q)
{
    xlate_queue_stats st;
    pthread_mutex_lock(&q->mu);
    st = q->stats;
    pthread_mutex_unlock(&q->mu);
    return st;
}

void xlate_queue_free(xlate_queue *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->mu);
    q->stopping = 1;
    pthread_cond_broadcast(&q->req_cv);
    pthread_mutex_unlock(&q->mu);
    for (int i = 0; i < q->n_req_threads; i++) /* each ends once no request waits */
        pthread_join(q->req_threads[i], NULL);
    pthread_mutex_lock(&q->mu);
    q->model_stop = 1;
    pthread_cond_signal(&q->job_cv);
    pthread_mutex_unlock(&q->mu);
    if (q->model_started)
        pthread_join(q->model_thread, NULL);
    xlate_ctx_free(q->ctx);
    pthread_cond_destroy(&q->job_cv);
    pthread_cond_destroy(&q->req_cv);
    pthread_mutex_destroy(&q->mu);
    free(q->b_src);
    free(q->b_len);
    free(q->b_opts);
    free(q->b_res);
    free(q->b_job);
    free(q->b_idx);
    free(q->req_threads);
    free(q);
}
