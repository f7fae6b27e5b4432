/* serve.h — `xlate serve`: the LibreTranslate API over libmicrohttpd (docs/SERVE.md). What the
 * server's files share: the options, the loaded models and their language routes, the
 * limits, the store of translated files, and each connection's request state.
 *
 * The rooms: serve_main.c (options, models, start, SIGTERM's drain), serve_http.c (the
 * libmicrohttpd callbacks: bodies, limits, CORS, suspend / resume around the queue),
 * serve_api.c (the endpoints, as LibreTranslate's app.py defines them), serve_body.c (JSON,
 * form and multipart bodies into fields), serve_routes.c (which model serves a language pair,
 * /languages), serve_limits.c (requests a minute a client, api keys, translated files). The
 * translation itself is the library's request queue (xlate.h, xlate_queue.c). */
#ifndef XLATE_SERVE_H
#define XLATE_SERVE_H
#include "xlate.h"
#include "serve/serve_page.h"
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *host;       /* --host (default 127.0.0.1) */
    long port;              /* --port (default 5000; 0: any free port, said on stderr) */
    const char *models[16]; /* -m, repeated */
    int n_models;
    long threads;           /* --threads: each model's compute threads (0: every core) */
    long batch_size;        /* --batch-size: sentences a batch across requests (32) */
    long char_limit;        /* --char-limit: characters a text (-1: none) */
    long batch_limit;       /* --batch-limit: texts a request (default 1000; -1: none) */
    long req_limit;         /* --req-limit: requests a minute a client address (-1: none) */
    long alternatives_limit; /* --alternatives-limit (default 3; -1: none) */
    const char *api_keys;   /* --api-keys FILE: one key a line; a request must carry one */
    long max_body;          /* --max-body: bytes of a request's body (8 MiB) */
    long timeout;           /* --timeout: seconds a connection may stay silent (30) */
    long max_connections;   /* --max-connections: open at once (512) */
    int quiet;
} serve_opts;

/* One loaded model and its queue. */
typedef struct {
    char dir[4096];
    xlate_model *model;
    xlate_model_info info;
    xlate_queue *queue;
} serve_model;

/* A language pair and the model, and the params, that translate it. */
typedef struct {
    char src[32], tgt[32];  /* codes as /languages lists them: an NLLB code's short one
                               ("de"), else the model's own */
    int model;              /* index in serve.models */
    int target_lang_id;     /* xlate_lines_params.target_lang_id: a Marian >>xx<< or an NLLB
                               source token; -1 */
    int forced_bos_id;      /* decode.forced_bos_id (NLLB / M2M100 target), -1 */
    int source_suffix_id;   /* decode.source_suffix_id (NLLB legacy), -1 */
    int set_target_lang;    /* 1: lines params target_lang = tgt (a multilingual Marian) */
    int seq;                /* the order it was made in: the first -m's pairs first */
    char pivot[32];         /* "" for a model's own pair; else the language the pair goes
                               through (issue 48): src -> pivot, then pivot -> tgt, each the
                               route of its own pair (serve_route_find) */
} serve_route;

/* A translated file kept for download (serve_limits.c). */
typedef struct {
    char name[160];         /* "<32 hex>.<file name>": the URL's last part */
    char *data;
    size_t len;
} serve_file;

/* Requests a minute from one client address. */
typedef struct {
    char addr[48];
    long minute;
    long count;
} serve_rate;

enum { SERVE_FILES = 64, SERVE_RATES = 4096 };

typedef struct {
    serve_opts o;
    serve_model models[16];
    int n_models;
    serve_route *routes;    /* [n_routes] sorted by (src, tgt), each pair once */
    int n_routes;
    int first_route;        /* the first pair of the first model (/frontend/settings) */
    char *languages;        /* /languages' JSON, made once (serve_routes_build) */
    char **keys;            /* --api-keys: [n_keys] */
    int n_keys;
    pthread_mutex_t mu;     /* guards files, rates, in_flight */
    serve_file files[SERVE_FILES]; /* a ring: the oldest dropped */
    int next_file;
    serve_rate rates[SERVE_RATES];
    long in_flight;         /* requests begun and not yet completed (answered and sent) */
    _Atomic int draining;   /* SIGTERM: new requests refused with 503 (read without mu by the
                               HTTP thread) */
    unsigned port;          /* the port bound */
    struct MHD_Daemon *daemon;
} serve;

/* A request's body in fields (serve_body.c). */
typedef struct {
    char *name, *value;     /* malloc'd, NUL-terminated (value may hold NULs: value_len) */
    size_t value_len;
    char *filename;         /* a multipart file part's name; NULL */
} serve_field;

/* One HTTP request on its way (serve_http.c). */
typedef struct serve_req {
    serve *s;
    struct MHD_Connection *conn;
    int method;             /* SERVE_GET, SERVE_POST, SERVE_OPTIONS, other */
    char url[256];
    char *body;             /* the raw body (JSON), malloc'd */
    size_t body_len, body_cap;
    int url_too_long;       /* the URL did not fit url */
    int url_nul;            /* the URL or an argument held %00 (cut there when decoded) */
    int after_drain;        /* begun (its headers read) after SIGTERM: answered 503 */
    const char *allow;      /* a 405's Allow header (a static string), or NULL */
    char *location;         /* a 308's Location header (malloc'd), or NULL */
    char client[48];        /* the client's address (--req-limit) */
    int too_big;            /* the body passed --max-body */
    int responded;          /* a response is queued: later calls only discard the body */
    int bad_form;           /* the form or multipart body could not be read */
    struct MHD_PostProcessor *pp;
    serve_field *fields;    /* form or multipart fields */
    int n_fields, cap_fields;
    int is_json, is_form;
    /* the queue's answer, while the connection is suspended */
    pthread_mutex_t mu;     /* guards refs, waiting, answered, suspended, answer */
    int refs;               /* libmicrohttpd's, the queue's while it holds the request */
    int suspended;          /* the connection is suspended for the answer */
    int waiting;            /* submitted to a queue */
    int answered;
    xlate_answer *answer;
    int fd;                 /* the client's socket: the queue's cancel peeks at it */
    /* what the answer is for (serve_api.c fills it before the submit) */
    int q_array;            /* q was an array */
    int n_q;
    int alternatives;
    int format;
    int for_file;           /* /translate_file: the answer becomes a download */
    char file_name[128];
    char detected[32];      /* source "auto": the language chosen; "" */
    const serve_route *pivot_leg2; /* a pair through a pivot: the second leg, submitted when
                               the first's answer comes (serve_api_answer); NULL */
    xlate_lang_guess *detected_each; /* source "auto": [n_q] what each text was found to be
                               (malloc'd; its confidence 0 where it could not be told) */
    char host[128];         /* the Host header, for translatedFileUrl */
    int counted;            /* counted in s->in_flight */
} serve_req;

enum { SERVE_GET = 1, SERVE_POST, SERVE_OPTIONS, SERVE_HEAD, SERVE_OTHER };

/* serve_api.c: answers a complete request (its body read); queues an MHD response, or submits
 * to a queue (req->waiting set: the caller suspends the connection). Returns an MHD_Result. */
int serve_api(serve_req *r);
/* The answer of a request the queue has answered. */
int serve_api_answer(serve_req *r);
/* Queues {"error": msg} with status (CORS headers on). */
int serve_error(serve_req *r, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Queues a response of bytes (copied) with a content type and status, CORS headers on. */
int serve_send(serve_req *r, unsigned status, const char *mime, const char *data, size_t len,
               const char *disposition);

/* serve_body.c */
int serve_body_field(serve_req *r, const char *name, const char *filename, const char *data,
                     size_t off, size_t size);
const serve_field *serve_field_get(const serve_req *r, const char *name);
void serve_fields_free(serve_req *r);
/* 1 when s[0..n) is well-formed UTF-8. */
int serve_utf8_ok(const char *s, size_t n);
/* Code points in well-formed UTF-8 s[0..n) (Python's len). */
size_t serve_utf8_chars(const char *s, size_t n);

/* serve_routes.c */
int serve_routes_build(serve *s, char *err, size_t errlen);
const serve_route *serve_route_find(const serve *s, const char *src, const char *tgt);
/* 1 when a client's code names a route's code: the same, or its short code ("deu_Latn", "no"
 * name an NLLB route's "de", "nb"). */
int serve_lang_is(const char *route_code, const char *code);
/* A language's English name, or the code itself. */
const char *serve_lang_name(const char *code);


/* serve_spec.c: GET /spec's Swagger 2.0 document (static), its length into *len. */
const char *serve_spec_json(size_t *len);

/* serve_limits.c */
int serve_keys_load(serve *s, const char *path, char *err, size_t errlen);
int serve_key_ok(const serve *s, const char *key);
/* 1 when the client at addr may make one more request this minute (and counts it). */
int serve_rate_take(serve *s, const char *addr);
/* Keeps a translated file; its URL name into name. Returns 0 or -1 (out of memory). */
int serve_file_put(serve *s, const char *file_name, char *data, size_t len, char *name,
                   size_t n);
/* A copy of a kept file's bytes (malloc'd) or NULL. */
char *serve_file_get(serve *s, const char *name, size_t *len);
void serve_limits_free(serve *s);

/* serve_http.c: starts the daemon (s->port set), stops accepting (SIGTERM: draining set, the
 * listening socket closed), stops it. */
int serve_http_start(serve *s, char *err, size_t errlen);
void serve_http_quiesce(serve *s);
void serve_http_stop(serve *s);
/* Submits a request for r to queue q, with the client's hang-up as its cancel; the answer
 * resumes r's connection. 0, or -1 with err (nothing submitted). */
int serve_submit(serve_req *r, xlate_queue *q, xlate_request *rq, char *err, size_t errlen);


#endif
