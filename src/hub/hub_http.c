/* hub_http.c — hub_http.h: libcurl requests for a pull. Redirects are followed here, not by
 * curl (CURLOPT_FOLLOWLOCATION off), so that the Authorization header (a custom header, which
 * curl's own redirect rules treat differently by version) goes to the endpoint's origin
 * (scheme, host, port) only, never to a CDN (file_download.py:1769-1773). Retries with backoff
 * as huggingface_hub's http_backoff (hub_http.h: 1 + 5 tries, XLATE_HUB_RETRY_MS doubled up to
 * 8 times it) on 5xx, 408, 429 and connection errors; the no-progress timeout
 * (XLATE_HUB_TIMEOUT_S) is curl's low-speed limit of 1 byte/s. */
#include "hub/hub_http.h"
#include "base/util.h"
#include "xlate.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ small helpers */

int http_cancelled(const pull *pl) { return pl->p->cancel && *pl->p->cancel; }

/* sleeps ms, in slices, stopping early when cancelled */
void http_nap(const pull *pl, long ms)
{
    while (ms > 0 && !http_cancelled(pl)) {
        long s = ms < 50 ? ms : 50;
        struct timespec ts = {0, s * 1000000L};
        nanosleep(&ts, NULL);
        ms -= s;
    }
}

long http_env_long(const char *name, long def, long lo, long hi)
{
    const char *v = getenv(name);
    char *end;
    long x;
    if (!v || !*v)
        return def;
    errno = 0;
    x = strtol(v, &end, 10);
    return errno || *end || x < lo || x > hi ? def : x;
}

void http_human(double b, char *out, size_t n)
{
    static const char *u[] = {"B", "kB", "MB", "GB", "TB"};
    int i = 0;
    while (b >= 1000 && i < 4) {
        b /= 1000;
        i++;
    }
    snprintf(out, n, i ? "%.1f %s" : "%.0f %s", b, u[i]);
}

/* the token: HF_TOKEN, else HUGGING_FACE_HUB_TOKEN (_auth.py:145-147), else the file
 * HF_TOKEN_PATH, else HF_HOME/token (constants.py:247-253, _auth.py:150-152); cleaned as
 * _auth.py:449-456 (CR and LF removed, spaces around stripped). Never printed. */
void http_read_token(pull *pl)
{
    char tok[4096] = "", home[4000];
    const char *v = getenv("HF_TOKEN");
    size_t a, b, n = 0;
    if (!v || !*v)
        v = getenv("HUGGING_FACE_HUB_TOKEN");
    if (v && *v) {
        snprintf(tok, sizeof tok, "%s", v);
        pl->token_from = "HF_TOKEN";
    } else {
        FILE *f;
        int fd;
        const char *path = getenv("HF_TOKEN_PATH");
        if (path && *path)
            snprintf(pl->token_file, sizeof pl->token_file, "%s", path);
        else if (hub_home_dir(home, sizeof home, NULL, 0) == 0)
            snprintf(pl->token_file, sizeof pl->token_file, "%s/token", home);
        /* hub_open_file: a FIFO there must not block the pull (issue 51 item 12); a token
         * file that is not a regular file is taken as none */
        if (pl->token_file[0] && (fd = hub_open_file(pl->token_file, O_RDONLY, 0, NULL, 0)) >= 0) {
            if ((f = fdopen(fd, "r"))) {
                n = fread(tok, 1, sizeof tok - 1, f);
                tok[n] = '\0';
                fclose(f);
                pl->token_from = "the token file";
            } else {
                close(fd);
            }
        }
    }
    for (a = b = 0; tok[a]; a++)
        if (tok[a] != '\r' && tok[a] != '\n')
            tok[b++] = tok[a];
    tok[b] = '\0';
    for (a = 0; tok[a] == ' ' || tok[a] == '\t'; a++)
        ;
    for (n = strlen(tok); n > a && (tok[n - 1] == ' ' || tok[n - 1] == '\t'); n--)
        ;
    tok[n] = '\0';
    if (n > a)
        snprintf(pl->auth, sizeof pl->auth, "Authorization: Bearer %s", tok + a);
    else
        pl->token_from = NULL;
    memset(tok, 0, sizeof tok);
}

/* 1 when url has the endpoint's scheme, host and port (huggingface_hub compares netloc,
 * file_download.py:1769-1773; the scheme too here, so https never becomes http with the token) */
int http_same_origin(const char *a, const char *b)
{
    CURLU *u = curl_url(), *v = curl_url();
    char *s1 = NULL, *s2 = NULL, *h1 = NULL, *h2 = NULL, *p1 = NULL, *p2 = NULL;
    int same = 0;
    if (u && v && !curl_url_set(u, CURLUPART_URL, a, 0) && !curl_url_set(v, CURLUPART_URL, b, 0) &&
        !curl_url_get(u, CURLUPART_SCHEME, &s1, 0) && !curl_url_get(v, CURLUPART_SCHEME, &s2, 0) &&
        !curl_url_get(u, CURLUPART_HOST, &h1, 0) && !curl_url_get(v, CURLUPART_HOST, &h2, 0) &&
        !curl_url_get(u, CURLUPART_PORT, &p1, CURLU_DEFAULT_PORT) &&
        !curl_url_get(v, CURLUPART_PORT, &p2, CURLU_DEFAULT_PORT))
        same = !strcasecmp(s1, s2) && !strcasecmp(h1, h2) && !strcmp(p1, p2);
    curl_free(s1), curl_free(s2), curl_free(h1), curl_free(h2), curl_free(p1), curl_free(p2);
    curl_url_cleanup(u);
    curl_url_cleanup(v);
    return same;
}

/* next = location resolved against url (a relative Location is relative to the request) */
int http_resolve(const char *url, const char *loc, char *next, size_t n)
{
    CURLU *u = curl_url();
    char *s = NULL;
    int rc = -1;
    if (u && !curl_url_set(u, CURLUPART_URL, url, 0) &&
        !curl_url_set(u, CURLUPART_URL, loc, CURLU_NON_SUPPORT_SCHEME) &&
        !curl_url_get(u, CURLUPART_URL, &s, 0) && strlen(s) < n) {
        memcpy(next, s, strlen(s) + 1);
        rc = 0;
    }
    curl_free(s);
    curl_url_cleanup(u);
    return rc;
}

/* ------------------------------------------------------------------ curl callbacks */

static void trim_copy(char *dst, size_t n, const char *v, size_t len)
{
    while (len && (*v == ' ' || *v == '\t'))
        v++, len--;
    while (len && (v[len - 1] == '\r' || v[len - 1] == '\n' || v[len - 1] == ' ' ||
                   v[len - 1] == '\t'))
        len--;
    if (len >= n)
        len = n - 1;
    memcpy(dst, v, len);
    dst[len] = '\0';
}

static size_t on_header(char *buf, size_t size, size_t nitems, void *user)
{
    http_answer *a = user;
    size_t n = size * nitems;
    const char *colon = memchr(buf, ':', n);
    char num[32];
    if (n >= 5 && memcmp(buf, "HTTP/", 5) == 0) { /* a new answer (after a 100 Continue too) */
        const char *sp = memchr(buf, ' ', n);
        memset(a, 0, sizeof *a);
        a->linked_size = a->content_length = -1;
        a->status = sp ? strtol(sp + 1, NULL, 10) : 0; /* the body callback judges by it */
        return n;
    }
    if ((n == 2 && buf[0] == '\r' && buf[1] == '\n') || (n == 1 && buf[0] == '\n')) {
        a->headers_done = 1;
        return n;
    }
    if (!colon)
        return n;
#define HDR(name)                                                                            \
    ((size_t)(colon - buf) == sizeof name - 1 && !strncasecmp(buf, name, sizeof name - 1))
    const char *v = colon + 1;
    size_t vl = n - (size_t)(v - buf);
    if (HDR("ETag"))
        trim_copy(a->etag, sizeof a->etag, v, vl);
    else if (HDR("X-Linked-Etag"))
        trim_copy(a->linked_etag, sizeof a->linked_etag, v, vl);
    else if (HDR("X-Repo-Commit"))
        trim_copy(a->commit, sizeof a->commit, v, vl);
    else if (HDR("X-Error-Code"))
        trim_copy(a->error_code, sizeof a->error_code, v, vl);
    else if (HDR("X-Error-Message"))
        trim_copy(a->error_message, sizeof a->error_message, v, vl);
    else if (HDR("Location"))
        trim_copy(a->location, sizeof a->location, v, vl);
    else if (HDR("Content-Range"))
        trim_copy(a->content_range, sizeof a->content_range, v, vl);
    else if (HDR("X-Linked-Size") || HDR("Content-Length")) {
        char *end;
        long long x;
        trim_copy(num, sizeof num, v, vl);
        errno = 0;
        x = strtoll(num, &end, 10);
        if (!errno && end != num && !*end && x >= 0) {
            if (HDR("X-Linked-Size"))
                a->linked_size = x;
            else
                a->content_length = x;
        }
    }
#undef HDR
    return n;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *user)
{
    body_sink *s = user;
    size_t n = size * nmemb;
    long st = s->ans->status;
    if (st < 200 || st >= 300 || s->discard) /* an error page or a redirect's body: dropped */
        return s->discard && st >= 200 && st < 300 ? 0 : n; /* metadata by GET: stop here */
    if (s->fd < 0) {
        if (s->len + n > API_MAX)
            return 0;
        if (s->len + n + 1 > s->cap) {
            size_t cap = s->cap ? s->cap : 65536;
            char *m;
            while (cap < s->len + n + 1)
                cap *= 2;
            if (!(m = realloc(s->mem, cap)))
                return 0;
            s->mem = m;
            s->cap = cap;
        }
        memcpy(s->mem + s->len, data, n);
        s->len += n;
        s->mem[s->len] = '\0';
        return n;
    }
    if (!s->started) {
        s->started = 1;
        /* a Range asked and the whole file answered (200): start the file over
         * (file_download.py:386-390) */
        if (s->offset > 0 && st == 200) {
            if (ftruncate(s->fd, 0) != 0 || lseek(s->fd, 0, SEEK_SET) != 0) {
                s->write_errno = errno;
                return 0;
            }
            s->offset = 0;
            if (s->sha)
                EVP_DigestInit_ex(s->sha, EVP_sha256(), NULL);
        }
    }
    for (size_t done = 0; done < n;) {
        ssize_t w = write(s->fd, data + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            s->write_errno = w < 0 ? errno : EIO;
            return 0;
        }
        done += (size_t)w;
    }
    if (s->sha)
        EVP_DigestUpdate(s->sha, data, n);
    s->got += (long long)n;
    return n;
}

/* ------------------------------------------------------------------ the board */

/* one line for all the files under way: "3/8 files, 120.4 MB / 300.0 MB, 11.2 MB/s, 0:16 left";
 * at most 4 times a second. The time left only once every file has started and each one's size
 * is known. slot's file has `have` bytes now (set under the lock, as every other field). */
static void board_draw(pull_board *b, int slot, long long have_now)
{
    double t = now_seconds(), rate;
    long long have = 0, total = 0, fresh = 0;
    int known = 1;
    char a[32], c[32], r[32], left[32] = "";
    pthread_mutex_lock(&b->mu);
    b->have[slot] = have_now;
    if (t - b->last < 0.25)
        goto out;
    b->last = t;
    have = b->fin_bytes;
    total = b->fin_bytes;
    fresh = b->fin_new;
    for (int i = 0; i < PULL_MAX_WORKERS; i++) {
        have += b->have[i];
        fresh += b->have[i] - b->at0[i];
        if (b->total[i] >= 0)
            total += b->total[i];
        else
            known = 0;
    }
    rate = t > b->t0 + 0.05 ? (double)fresh / (t - b->t0) : 0;
    http_human((double)have, a, sizeof a);
    http_human((double)total, c, sizeof c);
    http_human(rate, r, sizeof r);
    if (known && b->started == b->files && rate > 0 && total >= have) {
        long s = (long)((double)(total - have) / rate);
        snprintf(left, sizeof left, ", %ld:%02ld left", s / 60, s % 60);
    }
    b->shown = 1;
    fprintf(stderr, "\r%d/%d files, %s / %s, %s/s%s\033[K", b->done, b->files, a, c, r, left);
out:
    pthread_mutex_unlock(&b->mu);
}

void http_file_line(pull *pl, const char *fmt, ...)
{
    va_list ap;
    if (!pl->tty)
        return;
    if (pl->board)
        pthread_mutex_lock(&pl->board->mu);
    fputs("\r", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\033[K\n", stderr);
    if (pl->board)
        pthread_mutex_unlock(&pl->board->mu);
}

void http_board_start(pull *pl, long long have, long long total)
{
    pull_board *b = pl->board;
    if (!b)
        return;
    pthread_mutex_lock(&b->mu);
    b->have[pl->slot] = b->at0[pl->slot] = have;
    b->total[pl->slot] = total;
    pthread_mutex_unlock(&b->mu);
}

void http_board_end(pull *pl, long long have, int ok)
{
    pull_board *b = pl->board;
    if (!b)
        return;
    pthread_mutex_lock(&b->mu);
    if (ok) {
        b->fin_bytes += have;
        b->fin_new += have - b->at0[pl->slot];
    }
    b->have[pl->slot] = b->at0[pl->slot] = b->total[pl->slot] = 0;
    pthread_mutex_unlock(&b->mu);
}

/* the progress line (a tty, not quiet) and the cancel check; curl calls it about once a
 * second even when nothing comes */
static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    pull *pl = user;
    double t = now_seconds(), rate;
    char a[32], b[32], r[32], left[32] = "";
    long long have, total;
    (void)dltotal, (void)ultotal, (void)ulnow;
    if (http_cancelled(pl))
        return 1;
    /* nothing new for timeout_s seconds, waiting for the answer included: stalled (curl's
     * low-speed check averages over its last seconds, so a burst then silence outlasts it) */
    if ((long long)dlnow != pl->seen) {
        pl->seen = (long long)dlnow;
        pl->idle_since = t;
    } else if (t - pl->idle_since >= (double)pl->timeout_s) {
        pl->stalled = 1;
        return 1;
    }
    if (pl->board && pl->tty && pl->file) {
        board_draw(pl->board, pl->slot, pl->base + (long long)dlnow);
        return 0;
    }
    if (!pl->tty || !pl->file || t - pl->last < 0.25)
        return 0;
    pl->last = t;
    have = pl->base + (long long)dlnow;
    total = pl->total;
    rate = t > pl->t0 + 0.05 ? (double)(have - pl->at_t0) / (t - pl->t0) : 0;
    http_human((double)have, a, sizeof a);
    http_human(total >= 0 ? (double)total : 0, b, sizeof b);
    http_human(rate, r, sizeof r);
    if (total > 0 && rate > 0) {
        long s = (long)((double)(total - have) / rate);
        snprintf(left, sizeof left, ", %ld:%02ld left", s / 60, s % 60);
    }
    pl->shown = 1;
    fprintf(stderr, "\r%-32.32s %s / %s, %s/s%s\033[K", pl->file, a, total >= 0 ? b : "?", r,
            left);
    return 0;
}

/* ------------------------------------------------------------------ requests */

/* One request: method "GET" or "HEAD", auth when url is the endpoint's origin, Range from
 * `from` (> 0), the body to sink. Fills ans. Returns curl's code. */
CURLcode http_request(pull *pl, const char *method, const char *url, long long from,
                        body_sink *sink, http_answer *ans)
{
    struct curl_slist *h = NULL;
    char range[64];
    CURL *c = pl->curl;
    CURLcode rc;
    memset(ans, 0, sizeof *ans);
    ans->linked_size = ans->content_length = -1;
    sink->ans = ans;
    sink->got = 0;
    sink->started = 0;
    sink->write_errno = 0;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L); /* followed by the callers, see the top */
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_USERAGENT, "xlate/" XLATE_VERSION " (libcurl)");
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, pl->timeout_s);
    /* the no-progress timeout: less than 1 byte/s for timeout_s seconds, waiting for the answer
     * included */
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, pl->timeout_s);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, ans);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, sink);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, pl);
    /* file_download.py:1617 Accept-Encoding: identity: the size is the file's */
    h = curl_slist_append(h, "Accept-Encoding: identity");
    if (pl->auth[0] && http_same_origin(url, pl->endpoint))
        h = curl_slist_append(h, pl->auth);
    if (from > 0) {
        snprintf(range, sizeof range, "Range: bytes=%lld-", from);
        h = curl_slist_append(h, range);
    }
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    pl->seen = 0;
    pl->idle_since = now_seconds();
    pl->stalled = 0;
    rc = curl_easy_perform(c);
    if (rc == CURLE_ABORTED_BY_CALLBACK && pl->stalled)
        rc = CURLE_OPERATION_TIMEDOUT;
    /* the connection closed inside the headers: curl may take what came as the answer (a HEAD
     * without its ETag), which is a cut connection, retried as one (issue 51 item 11) */
    if (rc == CURLE_OK && !ans->headers_done)
        rc = CURLE_PARTIAL_FILE;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &ans->status);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(h);
    return rc;
}

long http_backoff_ms(const pull *pl, int k)
{
    long w = pl->retry_ms;
    for (int i = 1; i < k && w < WAIT_CAP * pl->retry_ms; i++)
        w *= 2;
    return w < WAIT_CAP * pl->retry_ms ? w : WAIT_CAP * pl->retry_ms;
}

int http_transient_status(long st) { return st >= 500 || st == 408 || st == 429; }

/* a connection reset or closed early (requests.ConnectionError's cases) */
static int cut_curl(CURLcode rc)
{
    return rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR || rc == CURLE_PARTIAL_FILE ||
           rc == CURLE_GOT_NOTHING;
}

int http_transient_curl(CURLcode rc)
{
    switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST: case CURLE_COULDNT_CONNECT: case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR: case CURLE_SEND_ERROR: case CURLE_PARTIAL_FILE: case CURLE_GOT_NOTHING:
    case CURLE_SSL_CONNECT_ERROR: case CURLE_HTTP2: case CURLE_HTTP2_STREAM:
        return 1;
    default:
        return 0;
    }
}

/* The error of a final HTTP answer that is not 2xx, as a hub status with its message. */
static int http_error_(pull *pl, const char *what, const char *url, const http_answer *a,
                       char *err, size_t errlen)
{
    char code[200]; /* the hub's X-Error-Code, its bytes quoted (issue 51 item 9) */
    const char *sp = a->error_code[0] ? " " : "";
    const char *fix = pl->token_from ? "the token (from HF_TOKEN or the token file) has no access "
                                       "to it: accept its terms on the hub, or set HF_TOKEN to a "
                                       "token that has"
                                     : "set HF_TOKEN to a token (hub settings, Access Tokens) "
                                       "that has access to it";
    str_quote(code, sizeof code, a->error_code, strlen(a->error_code)); /* "GatedRepo" as it is */
    /* the hub answers 401 RepoNotFound for a repository that does not exist as for a private
     * one, to a client without a token (utils/_http.py hf_raise_for_status) */
    if ((a->status == 401 || a->status == 403) && strcmp(code, "RepoNotFound") == 0)
        return xerr(err, errlen, "%s: %s: HTTP %ld RepoNotFound: no such repository, or it is "
                    "private: check the name, or %s", what, url, a->status, fix),
               HUB_EAUTH;
    if (a->status == 401 || a->status == 403)
        return xerr(err, errlen, "%s: %s: HTTP %ld%s%s: the repository is gated or private: %s",
                    what, url, a->status, sp, code, fix),
               HUB_EAUTH;
    if (a->status == 404)
        return xerr(err, errlen, "%s: %s: HTTP 404%s%s", what, url,
                    code[0] ? " " : " (not found)", code),
               HUB_ENOTFOUND;
    return xerr(err, errlen, "%s: %s: HTTP %ld%s%s", what, url, a->status, sp, code), HUB_ENET;
}

int http_error(pull *pl, const char *what, const char *url, const http_answer *a, char *err,
               size_t errlen)
{
    int rc = http_error_(pl, what, url, a, err, errlen);
    size_t len = err ? strlen(err) : 0;
    char q[200];
    /* the hub's own words (X-Error-Message), quoted so that they cannot drive the terminal */
    if (err && a->error_message[0] && len + 20 < errlen)
        snprintf(err + len, errlen - len, " (the hub says \"%s\")",
                 str_quote(q, sizeof q, a->error_message, strlen(a->error_message)));
    return rc;
}

/* The message of a failed transfer: disk, cancel or network. Returns the hub status. */
int http_transfer_error(pull *pl, const char *what, const char *url, CURLcode rc,
                          const body_sink *s, const char *file, int tries, char *err,
                          size_t errlen)
{
    if (http_cancelled(pl) || rc == CURLE_ABORTED_BY_CALLBACK)
        return xerr(err, errlen, "%s: interrupted (a rerun resumes)", what), HUB_EINTR;
    if (rc == CURLE_WRITE_ERROR && s->write_errno)
        return xerr(err, errlen, "%s: cannot write %s: %s", what, file ? file : "the cache",
                    strerror(s->write_errno)),
               HUB_EDISK;
    return xerr(err, errlen, "%s: %s: %s%s (%d tries)", what, url, curl_easy_strerror(rc),
                rc == CURLE_OPERATION_TIMEDOUT ? " (nothing came for XLATE_HUB_TIMEOUT_S seconds)"
                : rc == CURLE_COULDNT_CONNECT  ? " (the connection was refused)"
                : cut_curl(rc)                 ? " (the connection was cut before the answer "
                                                 "ended)"
                                               : "",
                tries),
           HUB_ENET;
}

/* A request with retries and redirects. follow: 0 none (the last answer with a Location is
 * returned), 1 same-origin only (the others returned), 2 all. The final URL into final.
 * Returns HUB_OK with ans (any status; the caller judges it), or an error. */
int http_fetch(pull *pl, const char *method, const char *url, int follow, body_sink *sink,
                 http_answer *ans, char *final, size_t finaln, const char *what, char *err,
                 size_t errlen)
{
    char cur[4096];
    int hops = 0, tries = 0;
    snprintf(cur, sizeof cur, "%s", url);
    for (;;) {
        CURLcode rc = http_request(pl, method, cur, 0, sink, ans);
        if (rc == CURLE_WRITE_ERROR && sink->discard && ans->status >= 200 && ans->status < 300)
            rc = CURLE_OK; /* metadata by GET: the body was cut on purpose */
        if (http_cancelled(pl) || rc == CURLE_ABORTED_BY_CALLBACK || (rc == CURLE_WRITE_ERROR))
            return http_transfer_error(pl, what, cur, rc, sink, NULL, tries + 1, err, errlen);
        if ((rc != CURLE_OK && http_transient_curl(rc)) ||
            (rc == CURLE_OK && http_transient_status(ans->status))) {
            if (++tries > MAX_RETRIES)
                return rc ? http_transfer_error(pl, what, cur, rc, sink, NULL, tries, err, errlen)
                          : xerr(err, errlen, "%s: %s: HTTP %ld (%d tries)", what, cur,
                                 ans->status, tries), HUB_ENET;
            http_nap(pl, http_backoff_ms(pl, tries));
            sink->len = 0;
            continue;
        }
        if (rc != CURLE_OK)
            return http_transfer_error(pl, what, cur, rc, sink, NULL, tries + 1, err, errlen);
        if (ans->status >= 300 && ans->status < 400 && ans->location[0] && follow) {
            char next[4096];
            if (++hops > MAX_HOPS)
                return xerr(err, errlen, "%s: %s: more than %d redirects", what, url, MAX_HOPS),
                       HUB_ENET;
            if (http_resolve(cur, ans->location, next, sizeof next))
                return xerr(err, errlen, "%s: %s: a redirect to a bad URL", what, cur), HUB_ENET;
            if (follow == 1 && !http_same_origin(next, cur))
                break;
            snprintf(cur, sizeof cur, "%s", next);
            sink->len = 0;
            continue;
        }
        break;
    }
    snprintf(final, finaln, "%s", cur);
    return HUB_OK;
}

/* path with each part percent-encoded, the '/' between kept (http_quote(path), file_download.py
 * hf_hub_url); all: '/' encoded too (the revision in the API's URL) */
int http_quote(pull *pl, const char *s, int all, char *out, size_t n)
{
    size_t len = 0;
    for (const char *c = s; *c;) {
        const char *e = all ? NULL : strchr(c, '/');
        size_t pn = e ? (size_t)(e - c) : strlen(c);
        char *q = curl_easy_escape(pl->curl, c, (int)pn);
        if (!q || len + strlen(q) + 2 > n) {
            curl_free(q);
            return -1;
        }
        memcpy(out + len, q, strlen(q));
        len += strlen(q);
        curl_free(q);
        if (e)
            out[len++] = '/';
        c += pn + (e ? 1 : 0);
    }
    out[len] = '\0';
    return 0;
}
