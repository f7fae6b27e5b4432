/* hub_http.h — the HTTP side of a pull, private to src/hub/ (hub_http.c, hub_pull.c): one
 * libcurl handle, the headers huggingface_hub reads, bodies to memory or a file (hashed as
 * they come), retries with backoff, redirects followed by hand so that the token goes to the
 * endpoint's origin only, the progress line and the cancel check. */
#ifndef XLATE_HUB_HTTP_H
#define XLATE_HUB_HTTP_H
#include "hub/hub.h"
#include <curl/curl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <sys/types.h>

/* huggingface_hub's retry rule, utils/_http.py http_backoff (the defaults every hub call of
 * file_download.py and hf_api.py takes): max_retries=5, so 1 + 5 attempts; base_wait_time=1 s,
 * doubled after each retry up to max_wait_time=8 s (1, 2, 4, 8, 8 s); retried on
 * requests.Timeout and requests.ConnectionError (a refused, reset or cut connection) and on
 * the statuses of retry_on_status_codes (503, HTTPStatus.SERVICE_UNAVAILABLE, by default; the
 * hub's own calls add the other 5xx). xlate retries every 5xx and 408 and 429 the same way
 * (http_transient_status). The base is XLATE_HUB_RETRY_MS (default 1000: the tests make it
 * 20), the cap 8 times it. A file's body follows http_get's own rule (file_download.py
 * _nb_retries=5, counted again after progress) with the same waits. */
#define MAX_RETRIES 5    /* http_backoff max_retries; http_get _nb_retries */
#define WAIT_CAP 8       /* max_wait_time / base_wait_time */
#define FILE_TRIES 10    /* attempts of one file's bytes, counting those that made progress */
#define MAX_HOPS 10      /* redirects followed */
#define API_MAX (64 << 20) /* the API's JSON answer, at most */
#define PULL_MAX_WORKERS 16 /* files of one model downloading at once, at most */

/* One HTTP answer's status and the headers huggingface_hub reads. */
typedef struct http_answer {
    long status;
    char etag[256], linked_etag[256], commit[128], error_code[128], location[4096];
    char error_message[256]; /* X-Error-Message, shown quoted */
    char content_range[128];
    long long linked_size, content_length; /* -1: not sent */
    int headers_done;  /* the blank line that ends the headers came (else the answer was cut) */
} http_answer;

/* Where a body goes: memory (the API's JSON), a file (a blob), or nowhere. */
typedef struct body_sink {
    char *mem;
    size_t len, cap;
    int fd;                 /* -1: not a file */
    long long offset;       /* bytes in the file before this answer (Range start) */
    long long got;          /* body bytes written by this answer */
    EVP_MD_CTX *sha;        /* when checking an LFS blob */
    int write_errno;        /* a write to the file failed */
    int discard;            /* drop the body (metadata by GET) */
    int started;            /* the first body byte has come */
    const http_answer *ans;
} body_sink;

/* The progress of a pull's parallel downloads, shared by its workers (hub_pull.c): one line
 * for them all, redrawn under mu at most 4 times a second, each finished file's line printed
 * above it, so that lines from several threads never cut into one another. */
typedef struct pull_board {
    pthread_mutex_t mu;
    int files, started, done;      /* files to fetch in this pull, taken by a worker, finished */
    long long fin_bytes, fin_new;  /* finished files: their sizes; the bytes this run fetched */
    /* each worker's file under way: bytes there, there before this run, expected (-1 unknown) */
    long long have[PULL_MAX_WORKERS], at0[PULL_MAX_WORKERS], total[PULL_MAX_WORKERS];
    double t0, last;
    int shown;                     /* the line is on the screen */
} pull_board;

/* The pull's state: one curl handle reused (keep-alive), the endpoint and the token. A parallel
 * pull gives each worker thread a copy with its own handle (hub_pull.c). */
typedef struct pull {
    CURL *curl;
    const hub_pull_params *p;
    char endpoint[1024];
    char auth[4200];         /* "Authorization: Bearer ..." or "" */
    const char *token_from;  /* "HF_TOKEN", "the token file PATH" */
    char token_file[4096];
    long retry_ms, timeout_s;
    int tty;                 /* progress lines */
    /* the progress line of the file being downloaded */
    const char *file;
    long long total, base;   /* expected bytes (-1 unknown), bytes there before this request */
    double t0, last;
    long long at_t0;
    int shown;               /* a progress line of this file is on the screen */
    /* the no-progress timeout of the request under way: body bytes last seen, since when */
    long long seen;
    double idle_since;
    int stalled;
    pull_board *board;       /* parallel downloads: the shared progress line, else NULL */
    int slot;                /* this worker's index in board */
    mode_t umask;            /* read once before the workers start (umask() is per process) */
    /* the API's file list with blobs=true (read-only, shared by the workers): per name its
     * size (-1 not said) and the ETag its blob is named by (lfs.sha256, else blobId; "" not
     * said), n of them */
    char *const *names;
    const long long *sizes;
    const char (*etags)[65];
    int nnames;
} pull;

int http_cancelled(const pull *pl);
/* A file's last line on a tty (done, in the cache, ...): printf-style, printed whole on a line of
 * its own, above the board's line when there is one. Nothing when not a tty. */
void http_file_line(pull *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The board's slot of this worker: a file starts (have bytes already there, total expected) or
 * ends (its bytes then count as finished). No-ops without a board. */
void http_board_start(pull *pl, long long have, long long total);
void http_board_end(pull *pl, long long have, int ok);
/* sleeps ms, in slices, stopping early when cancelled */
void http_nap(const pull *pl, long ms);
/* a whole decimal in [lo, hi] from the environment, else def */
long http_env_long(const char *name, long def, long lo, long hi);
/* bytes as "1.2 MB" */
void http_human(double b, char *out, size_t n);
/* pl->auth from the token (never printed), pl->token_from */
void http_read_token(pull *pl);
/* 1 when a and b have the same scheme, host and port */
int http_same_origin(const char *a, const char *b);
/* next = loc resolved against url; 0 or -1 */
int http_resolve(const char *url, const char *loc, char *next, size_t n);
/* One request: method "GET" or "HEAD", the token when url is the endpoint's origin, Range from
 * `from` (> 0), the body to sink. Fills ans. Returns curl's code. */
CURLcode http_request(pull *pl, const char *method, const char *url, long long from,
                      body_sink *sink, http_answer *ans);
/* the wait before retry k (1, 2, ...): retry_ms * 2^(k-1), at most WAIT_CAP * retry_ms */
long http_backoff_ms(const pull *pl, int k);
/* 5xx, 408, 429 */
int http_transient_status(long st);
/* connection, resolve, timeout, cut transfers */
int http_transient_curl(CURLcode rc);
/* The error of a final HTTP answer that is not 2xx, as a hub status with its message. */
int http_error(pull *pl, const char *what, const char *url, const http_answer *a, char *err,
               size_t errlen);
/* The message of a failed transfer: disk, cancel or network. Returns the hub status. */
int http_transfer_error(pull *pl, const char *what, const char *url, CURLcode rc,
                        const body_sink *s, const char *file, int tries, char *err,
                        size_t errlen);
/* A request with retries and redirects (follow: 0 none, 1 same origin, 2 all); the final URL
 * into final. HUB_OK with ans (any status), or an error status. */
int http_fetch(pull *pl, const char *method, const char *url, int follow, body_sink *sink,
               http_answer *ans, char *final, size_t finaln, const char *what, char *err,
               size_t errlen);
/* s percent-encoded, the '/' kept unless all */
int http_quote(pull *pl, const char *s, int all, char *out, size_t n);

#endif
