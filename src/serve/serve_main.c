/* serve_main.c — `xlate serve [-m MODEL]... [--host H] [--port P] [options]`: the options
 * (LibreTranslate's names where it has the option: --char-limit, --batch-limit, --req-limit,
 * --api-keys, --alternatives-limit; main.py's defaults differ where said), the models loaded
 * with a request queue each, the HTTP daemon started, and SIGTERM / SIGINT: stop accepting,
 * answer every request begun, exit 0 (a second signal ends at once). The signals are taken by
 * sigwait on this thread alone: every other thread starts with them blocked. */
#include "cli/cli.h"
#include "cli/cli_common.h"
#include "decode_rules.h"
#include "serve/serve.h"
#include "base/util.h"
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage[] =
    "usage: xlate serve [-m MODEL]... [--host 127.0.0.1] [--port 5000] [options]\n"
    "\n"
    "The LibreTranslate API (POST /translate, /translate_file, /detect; GET /languages,\n"
    "/frontend/settings, /health) and a web page at /, over the models given. Requests that\n"
    "arrive together share batches; each answer is what `xlate` prints for its text.\n"
    "\n"
    "  -m, --model DIR|ORG/NAME  a model (repeat for more: each request goes to the model of its\n"
    "                           source and target; default: the default model)\n"
    "      --host ADDR          address to listen on (default 127.0.0.1: this machine only)\n"
    "      --port N             port (default 5000; 0: a free one, said on stderr)\n"
    "      --threads N          compute threads of each model (default 0: every core)\n"
    "      --batch-size N       sentences a batch, across requests (default 32)\n"
    "      --char-limit N       characters a text at most (default -1: no limit)\n"
    "      --batch-limit N      texts a request at most (default 1000; -1: no limit)\n"
    "      --req-limit N        requests a minute from one address (default -1: no limit)\n"
    "      --alternatives-limit N  alternatives a request may ask (default 3; -1: no limit)\n"
    "      --api-keys FILE      keys, one a line: a request without one of them gets 403\n"
    "      --max-body BYTES     a request's body at most (default 8388608)\n"
    "      --timeout SECONDS    a connection silent this long is closed (default 30)\n"
    "      --max-connections N  connections open at once (default 512)\n"
    "  -q, --quiet              no messages but errors\n"
    "  -h, --help               this help\n";

/* A whole number in [lo, hi] from an option's value. */
static int num(const char *opt, const char *v, long lo, long hi, long *out)
{
    char *end;
    long x;
    errno = 0;
    x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi) {
        char q[80];
        fprintf(stderr, "xlate serve: %s \"%s\": expected a whole number from %ld to %ld\n", opt,
                str_quote(q, sizeof q, v, strlen(v)), lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

static int parse(serve_opts *o, int argc, char **argv)
{
    enum { O_HOST = 256, O_PORT, O_THREADS, O_BATCH, O_CHAR, O_BLIMIT, O_REQ, O_ALT, O_KEYS,
           O_BODY, O_TIMEOUT, O_CONN };
    static const struct option longs[] = {
        {"model", required_argument, NULL, 'm'}, {"host", required_argument, NULL, O_HOST},
        {"port", required_argument, NULL, O_PORT},
        {"threads", required_argument, NULL, O_THREADS},
        {"batch-size", required_argument, NULL, O_BATCH},
        {"char-limit", required_argument, NULL, O_CHAR},
        {"batch-limit", required_argument, NULL, O_BLIMIT},
        {"req-limit", required_argument, NULL, O_REQ},
        {"alternatives-limit", required_argument, NULL, O_ALT},
        {"api-keys", required_argument, NULL, O_KEYS},
        {"max-body", required_argument, NULL, O_BODY},
        {"timeout", required_argument, NULL, O_TIMEOUT},
        {"max-connections", required_argument, NULL, O_CONN},
        {"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;
    memset(o, 0, sizeof *o);
    o->host = "127.0.0.1";
    o->port = 5000;
    o->batch_size = 32;
    o->char_limit = -1;
    o->batch_limit = 1000;
    o->req_limit = -1;
    o->alternatives_limit = 3;
    o->max_body = 8L << 20;
    o->timeout = 30;
    o->max_connections = 512;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":m:qh", longs, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case 'm':
            if (o->n_models == (int)(sizeof o->models / sizeof o->models[0])) {
                fprintf(stderr, "xlate serve: -m: at most 16 models\n");
                return -1;
            }
            o->models[o->n_models++] = optarg;
            break;
        case O_HOST: o->host = optarg; break;
        case O_PORT: rc = num("--port", optarg, 0, 65535, &o->port); break;
        case O_THREADS: rc = num("--threads", optarg, 0, 1024, &o->threads); break;
        case O_BATCH: rc = num("--batch-size", optarg, 1, 4096, &o->batch_size); break;
        case O_CHAR: rc = num("--char-limit", optarg, -1, 1L << 30, &o->char_limit); break;
        case O_BLIMIT: rc = num("--batch-limit", optarg, -1, 1L << 30, &o->batch_limit); break;
        case O_REQ: rc = num("--req-limit", optarg, -1, 1L << 30, &o->req_limit); break;
        case O_ALT: rc = num("--alternatives-limit", optarg, -1, 64, &o->alternatives_limit);
                    break;
        case O_KEYS: o->api_keys = optarg; break;
        case O_BODY: rc = num("--max-body", optarg, 1024, 1L << 30, &o->max_body); break;
        case O_TIMEOUT: rc = num("--timeout", optarg, 1, 86400, &o->timeout); break;
        case O_CONN: rc = num("--max-connections", optarg, 1, 100000, &o->max_connections);
                     break;
        case 'q': o->quiet = 1; break;
        case 'h': fputs(usage, stdout); return -2;
        case ':':
            fprintf(stderr, "xlate serve: %s needs a value\n", argv[optind - 1]);
            return -1;
        default:
            fprintf(stderr, "xlate serve: unknown option %s (xlate serve --help)\n",
                    argv[optind - 1]);
            return -1;
        }
        if (rc)
            return -1;
    }
    if (optind < argc) {
        fprintf(stderr, "xlate serve: unexpected argument \"%s\" (xlate serve --help)\n",
                argv[optind]);
        return -1;
    }
    return 0;
}

/* Loads the models and starts a queue on each. Returns the exit status. */
static int load(serve *s)
{
    char err[XLATE_ERRLEN];
    int n = s->o.n_models ? s->o.n_models : 1;
    for (int k = 0; k < n; k++) {
        serve_model *sm = &s->models[k];
        xlate_model_params mp = xlate_model_default_params();
        xlate_queue_params qp = xlate_queue_default_params();
        int rc = find_model_dir_quiet(s->o.n_models ? s->o.models[k] : NULL, s->o.quiet,
                                      sm->dir, sizeof sm->dir, err, sizeof err);
        if (rc) {
            fprintf(stderr, "xlate serve: %s\n", err);
            return rc > 0 ? rc : XLATE_EXIT_MODEL;
        }
        mp.warn = warn_stderr;
        mp.warn_user = &s->o.quiet;
        if (xlate_model_load(&sm->model, sm->dir, &mp, err, sizeof err))
            return cli_load_failed("xlate serve", err);
        s->n_models++;
        sm->info = xlate_model_get_info(sm->model);
        /* the server translates with the model's decoding defaults: one the queue refuses
         * would fail every request (500), so it is said at start, naming the file */
        if (!(xlate_model_decode_defaults(sm->model).repetition_penalty >=
              (float)DECODE_REPETITION_MIN)) {
            fprintf(stderr, "xlate serve: %s: generation_config.json: \"repetition_penalty\" "
                    "%g is below %g, where the repeats it rewards leave no translation\n",
                    sm->dir, (double)xlate_model_decode_defaults(sm->model).repetition_penalty,
                    DECODE_REPETITION_MIN);
            return XLATE_EXIT_MODEL;
        }
        if (!sm->info.has_tokenizer) {
            fprintf(stderr, "xlate serve: %s: the model has no tokenizer: it cannot take text\n",
                    sm->dir);
            return XLATE_EXIT_MODEL;
        }
        qp.threads = (int)s->o.threads;
        qp.batch_size = (int)s->o.batch_size;
        if (xlate_queue_new(&sm->queue, sm->model, &qp, err, sizeof err)) {
            fprintf(stderr, "xlate serve: %s\n", err);
            return XLATE_EXIT_INTERNAL;
        }
    }
    if (serve_routes_build(s, err, sizeof err)) {
        fprintf(stderr, "xlate serve: %s\n", err);
        return XLATE_EXIT_MODEL;
    }
    return XLATE_EXIT_OK;
}

/* Waits for SIGTERM / SIGINT, then drains. Returns the exit status. */
static int run(serve *s, const sigset_t *sigs)
{
    int sig;
    struct timespec tick = {0, 20 * 1000 * 1000};
    sigwait(sigs, &sig);
    if (!s->o.quiet)
        fprintf(stderr, "xlate serve: %s: finishing the requests in flight, refusing new ones\n",
                sig == SIGTERM ? "SIGTERM" : "SIGINT");
    serve_http_quiesce(s);
    for (;;) { /* every request begun answered and sent (or its client gone) */
        long n;
        pthread_mutex_lock(&s->mu);
        n = s->in_flight;
        pthread_mutex_unlock(&s->mu);
        if (n == 0)
            break;
        if (sigtimedwait(sigs, NULL, &tick) > 0) {
            fprintf(stderr, "xlate serve: a second signal: stopping with %ld request%s "
                    "unanswered\n", n, n > 1 ? "s" : "");
            return XLATE_EXIT_INTERNAL;
        }
    }
    return XLATE_EXIT_OK;
}

int cmd_serve(int argc, char **argv)
{
    serve *s = calloc(1, sizeof *s);
    char err[XLATE_ERRLEN];
    sigset_t sigs;
    int status, rc;
    if (!s) {
        fprintf(stderr, "xlate serve: out of memory\n");
        return XLATE_EXIT_INTERNAL;
    }
    pthread_mutex_init(&s->mu, NULL);
    rc = parse(&s->o, argc, argv);
    if (rc) {
        status = rc == -2 ? XLATE_EXIT_OK : XLATE_EXIT_USAGE;
        goto done;
    }
    /* blocked before any thread starts: only sigwait below takes them */
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    {
        /* SCHED_BATCH for this thread and so for every thread it starts (the queue's request
         * and model threads, the compute pool, libmicrohttpd's): a woken thread waits for a
         * core's slice to end instead of preempting the one running. Without it, each request's
         * three wake-ups (the HTTP thread to a request thread, the model thread back to it, it
         * to the HTTP thread) preempted the compute pool's worker in the middle of a product,
         * and the model thread spun in pool_run waiting for it: 32 clients on 2 cores cost the
         * server 2.4 CPU seconds a 1,000 sentences against the CLI's 1.7 (bench/README.md,
         * "xlate serve"). Same priority (nice 0); unprivileged; a refusal changes nothing else */
        struct sched_param sp = {0};
        sched_setscheduler(0, SCHED_BATCH, &sp);
    }
    if (s->o.api_keys && serve_keys_load(s, s->o.api_keys, err, sizeof err)) {
        fprintf(stderr, "xlate serve: %s\n", err);
        status = XLATE_EXIT_USAGE;
        goto done;
    }
    if ((status = load(s)) != XLATE_EXIT_OK)
        goto done;
    if (serve_http_start(s, err, sizeof err)) {
        fprintf(stderr, "xlate serve: %s\n", err);
        status = XLATE_EXIT_USAGE;
        goto done;
    }
    /* the one line tests and scripts read for the port (docs/SERVE.md) */
    fprintf(stderr, "xlate serve: listening on http://%s:%u\n", s->o.host, s->port);
    if (!s->o.quiet)
        for (int i = 0; i < s->n_routes && i < 8; i++)
            fprintf(stderr, "xlate serve: %s -> %s: %s\n", s->routes[i].src, s->routes[i].tgt,
                    s->models[s->routes[i].model].dir);
    fflush(stderr);
    status = run(s, &sigs);
    for (int k = 0; k < s->n_models && !s->o.quiet; k++) {
        xlate_queue_stats st = xlate_queue_get_stats(s->models[k].queue);
        fprintf(stderr, "xlate serve: %s: %lld sentences in %lld batches (%.1f a batch, the "
                "largest %d; %lld shared by requests)\n", s->models[k].dir, st.sentences,
                st.batches, st.batches ? (double)st.sentences / (double)st.batches : 0.0,
                st.largest, st.shared_batches);
    }
done:
    serve_http_stop(s); /* every request was answered: nothing is suspended */
    for (int k = 0; k < s->n_models; k++) {
        xlate_queue_free(s->models[k].queue);
        xlate_model_free(s->models[k].model);
    }
    free(s->routes);
    free(s->languages);
    serve_limits_free(s);
    pthread_mutex_destroy(&s->mu);
    free(s);
    return status;
}
