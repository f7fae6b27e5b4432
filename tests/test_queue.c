/* test_queue.c — the request queue (xlate.h, xlate_queue.c) through its public calls: requests
 * from 8 threads at once (more than the queue runs at once, so some wait), each answer equal
 * to xlate_translate_lines run alone on a context of its own with batches of one sentence (no
 * queue, no merged batch); requests of other decode params (beam 2, n-best 2) among them;
 * asynchronous submits all answered by xlate_queue_free; a cancelled request's status; the
 * model thread's count of batches shared by requests. */
#include "check.h"
#include "xlate.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MODEL "models/en-de"
#define LINES 64
#define THREADS 8
#define PER 10

static char *lines[LINES];
static char *want[LINES], *want_nb[LINES][2]; /* greedy; beam 2's two best */
static xlate_queue *queue;
static const xlate_model *model;

typedef struct {
    char **out;
    int n_hyps;
} sink_user;

static int put(void *user, const xlate_translation *t, char *err, size_t errlen)
{
    sink_user *u = user;
    for (int h = 0; h < u->n_hyps; h++)
        if (xlate_translation_text(model, t, h < t->res->n_hyps ? h : t->res->n_hyps - 1,
                                   &u->out[t->index * u->n_hyps + h], err, errlen))
            return -1;
    return 0;
}

typedef struct {
    int at;
} src_user;

static int next(void *user, xlate_line *line, char *err, size_t errlen)
{
    src_user *s = user;
    (void)err, (void)errlen;
    if (s->at == LINES)
        return 0;
    line->text = lines[s->at];
    line->len = strlen(lines[s->at]);
    s->at++;
    return 1;
}

/* The oracle: every line through xlate_translate_lines on a context of its own, one sentence
 * a batch. */
static int oracle(xlate_model *m, int n_best, char **out)
{
    char err[XLATE_ERRLEN];
    xlate_ctx *ctx = xlate_ctx_new(m, 1, err, sizeof err);
    xlate_lines_params p = xlate_request_default(m).params;
    src_user su = {0};
    sink_user ku = {out, n_best};
    xlate_source in = {next, NULL, &su};
    xlate_sink sk = {put, NULL, &ku};
    int rc;
    p.batch_size = 1;
    if (n_best > 1) {
        p.decode.beam_size = p.decode.n_best = n_best;
        p.decode.scores = 1;
    }
    rc = ctx ? xlate_translate_lines(ctx, &p, &in, &sk, NULL, err, sizeof err) : -1;
    xlate_ctx_free(ctx);
    return rc;
}

static _Atomic int wrong, errors;

static void *client(void *arg)
{
    int c = (int)(long)arg;
    unsigned seed = 38u + (unsigned)c;
    for (int r = 0; r < PER; r++) {
        xlate_request rq = xlate_request_default(model);
        const char *texts[3];
        size_t lens[3];
        char joined[4096];
        int k = 1 + (int)(rand_r(&seed) % 3), first = (int)(rand_r(&seed) % (LINES - 3));
        int beam = (c + r) % 5 == 0, as_one = r % 2;
        xlate_answer *a = NULL;
        char err[XLATE_ERRLEN];
        if (as_one) { /* one text of k lines */
            size_t n = 0;
            for (int i = 0; i < k; i++)
                n += (size_t)snprintf(joined + n, sizeof joined - n, "%s%s", i ? "\n" : "",
                                      lines[first + i]);
            texts[0] = joined;
            lens[0] = n;
            rq.n = 1;
        } else {
            for (int i = 0; i < k; i++) {
                texts[i] = lines[first + i];
                lens[i] = strlen(lines[first + i]);
            }
            rq.n = k;
        }
        rq.texts = texts;
        rq.lens = lens;
        rq.params.batch_size = 8;
        if (beam) {
            rq.params.decode.beam_size = rq.params.decode.n_best = 2;
            rq.params.decode.scores = 1;
        }
        if (xlate_queue_translate(queue, &rq, &a, err, sizeof err) || a->status) {
            errors++;
            xlate_answer_free(a);
            continue;
        }
        for (int h = 0; h < a->n_hyps; h++) {
            char exp[4096];
            size_t n = 0;
            if (as_one) {
                for (int i = 0; i < k; i++)
                    n += (size_t)snprintf(exp + n, sizeof exp - n, "%s%s", i ? "\n" : "",
                                          beam ? want_nb[first + i][h] : want[first + i]);
                wrong += strcmp(a->texts[h], exp) != 0;
            } else {
                for (int i = 0; i < k; i++)
                    wrong += strcmp(a->texts[i * a->n_hyps + h],
                                    beam ? want_nb[first + i][h] : want[first + i]) != 0;
            }
        }
        wrong += a->n_hyps != (beam ? 2 : 1);
        xlate_answer_free(a);
    }
    return NULL;
}

static _Atomic int async_done, async_ok;

static void on_done(void *user, xlate_answer *a)
{
    const char *expect = user;
    async_ok += a && a->status == 0 && !strcmp(a->texts[0], expect);
    async_done++;
    xlate_answer_free(a);
}

static int always(void *user)
{
    (void)user;
    return 1;
}

int main(void)
{
    char err[XLATE_ERRLEN], buf[4096];
    xlate_model *m = NULL;
    xlate_queue_params qp = xlate_queue_default_params();
    FILE *f = fopen("tests/data/multi30k/val.en", "r");
    pthread_t t[THREADS];
    int n = 0;
    while (f && n < LINES && fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = '\0';
        lines[n++] = strdup(buf);
    }
    if (f)
        fclose(f);
    if (!check(n == LINES && !xlate_model_load(&m, MODEL, NULL, err, sizeof err),
               "the model and 64 lines of val.en", "%s", err))
        return check_done();
    model = m;
    {
        char *nb[2 * LINES];
        check(!oracle(m, 1, want) && !oracle(m, 2, nb), "the oracle: xlate_translate_lines alone",
              "failed");
        for (int i = 0; i < LINES; i++)
            want_nb[i][0] = nb[2 * i], want_nb[i][1] = nb[2 * i + 1];
    }
    qp.threads = 2;
    qp.batch_size = 8;
    qp.max_requests = 4; /* fewer than the clients: the others wait in order */
    if (!check(!xlate_queue_new(&queue, m, &qp, err, sizeof err), "xlate_queue_new", "%s", err))
        return check_done();
    for (int c = 0; c < THREADS; c++)
        pthread_create(&t[c], NULL, client, (void *)(long)c);
    for (int c = 0; c < THREADS; c++)
        pthread_join(t[c], NULL);
    check(errors == 0 && wrong == 0, "8 threads x 10 requests of 1-3 lines (some beam 2, n-best 2), "
          "4 run at once: every text and hypothesis xlate_translate_lines' alone",
          "%d errors, %d wrong", (int)errors, (int)wrong);
    {
        xlate_queue_stats st = xlate_queue_get_stats(queue);
        check(st.shared_batches > 0 && st.largest <= 8, "batches shared by requests, none past "
              "batch_size 8", "%lld shared, the largest %d", st.shared_batches, st.largest);
    }
    {
        xlate_request rq = xlate_request_default(m);
        const char *text = lines[5];
        size_t len = strlen(text);
        xlate_answer *a = NULL;
        rq.n = 1;
        rq.texts = &text;
        rq.lens = &len;
        rq.cancel = always;
        check(!xlate_queue_translate(queue, &rq, &a, err, sizeof err) && a &&
              a->status == XLATE_CANCELLED && !a->texts, "a request whose cancel says stop: "
              "status XLATE_CANCELLED, no texts", "status %d", a ? a->status : -99);
        xlate_answer_free(a);
        rq.cancel = NULL;
        rq.params.batch_size = 0;
        check(xlate_queue_submit(queue, &rq, on_done, NULL, err, sizeof err) != 0 &&
              strstr(err, "batch_size"), "bad params: refused at submit, naming the field", "%s",
              err);
        rq.params.batch_size = 32;
        for (int i = 0; i < 20; i++) {
            text = lines[i];
            len = strlen(text);
            if (xlate_queue_submit(queue, &rq, on_done, want[i], err, sizeof err))
                break;
        }
    }
    xlate_queue_free(queue); /* answers the 20 first */
    check(async_done == 20 && async_ok == 20, "20 asynchronous submits: each done once, right, "
          "by the time xlate_queue_free returns", "%d done, %d right", (int)async_done,
          (int)async_ok);
    for (int i = 0; i < LINES; i++) {
        free(lines[i]);
        free(want[i]);
        free(want_nb[i][0]);
        free(want_nb[i][1]);
    }
    xlate_model_free(m);
    return check_done();
}
