/* serve_http.c — the HTTP side of `xlate serve`, on libmicrohttpd: one internal epoll thread
 * reads every connection (no thread a connection: 1,000 at once cost a socket each), collects
 * a request's body (JSON raw; forms and multipart through libmicrohttpd's post processor),
 * refuses what passes --max-body (413, before reading it when Content-Length says so), and
 * hands the complete request to serve_api.c. A translation suspends its connection
 * (MHD_suspend_connection) until the queue's answer resumes it, so the HTTP thread never
 * waits on the model. A slow client is dropped after --timeout seconds of silence
 * (MHD_OPTION_CONNECTION_TIMEOUT), connections past --max-connections are refused
 * (MHD_OPTION_CONNECTION_LIMIT). Every answer carries LibreTranslate's CORS headers
 * (app.py:563-575).
 *
 * A request's state (serve_req) has two owners: libmicrohttpd, until the request completes,
 * and the queue, from the submit to its answer; the last to let go frees it. */
#include "serve/serve.h"
#include "base/util.h"
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

static void req_unref(serve_req *r)
{
    int last;
    pthread_mutex_lock(&r->mu);
    last = --r->refs == 0;
    pthread_mutex_unlock(&r->mu);
    if (!last)
        return;
    if (r->pp)
        MHD_destroy_post_processor(r->pp);
    serve_fields_free(r);
    free(r->body);
    free(r->location);
    xlate_answer_free(r->answer);
    free(r->detected_each);
    pthread_mutex_destroy(&r->mu);
    if (r->counted) {
        pthread_mutex_lock(&r->s->mu);
        r->s->in_flight--;
        pthread_mutex_unlock(&r->s->mu);
    }
    free(r);
}

int serve_send(serve_req *r, unsigned status, const char *mime, const char *data, size_t len,
               const char *disposition)
{
    struct MHD_Response *resp;
    int ret;
    resp = MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return MHD_NO;
    if (mime)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, mime);
    if (disposition)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_DISPOSITION, disposition);
    if (r->allow)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
    if (r->location)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, r->location);
    /* app.py:563-575 */
    MHD_add_response_header(resp, "Access-Control-Allow-Origin", "*");
    MHD_add_response_header(resp, "Access-Control-Allow-Headers", "Authorization, Content-Type");
    MHD_add_response_header(resp, "Access-Control-Expose-Headers", "Authorization");
    MHD_add_response_header(resp, "Access-Control-Allow-Methods", "GET, POST");
    MHD_add_response_header(resp, "Access-Control-Allow-Credentials", "true");
    MHD_add_response_header(resp, "Access-Control-Max-Age", "1728000");
    if (r->s->draining || r->too_big)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    ret = MHD_queue_response(r->conn, status, resp);
    MHD_destroy_response(resp);
    r->responded = ret == MHD_YES;
    return ret;
}

int serve_error(serve_req *r, unsigned status, const char *fmt, ...)
{
    char msg[XLATE_ERRLEN], json[2 * XLATE_ERRLEN + 32];
    size_t n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* the message as a JSON string: our own text and quoted values (str_quote), escaped here */
    n += (size_t)snprintf(json, sizeof json, "{\"error\": \"");
    for (const char *p = msg; *p && n + 8 < sizeof json; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\')
            json[n++] = '\\', json[n++] = (char)c;
        else if (c < 0x20)
            n += (size_t)snprintf(json + n, sizeof json - n, "\\u%04x", c);
        else
            json[n++] = (char)c;
    }
    n += (size_t)snprintf(json + n, sizeof json - n, "\"}");
    return serve_send(r, status, "application/json", json, n, NULL);
}

static enum MHD_Result post_iter(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *filename, const char *content_type,
                                 const char *transfer_encoding, const char *data, uint64_t off,
                                 size_t size)
{
    serve_req *r = cls;
    (void)kind, (void)content_type, (void)transfer_encoding;
    return serve_body_field(r, key, filename, data, (size_t)off, size) ? MHD_NO : MHD_YES;
}

/* The queue's answer: kept, and the connection resumed (or, if it was not suspended yet, the
 * HTTP thread finds it right after the submit). */
static void on_answer(void *user, xlate_answer *a)
{
    serve_req *r = user;
    pthread_mutex_lock(&r->mu);
    r->answer = a;
    r->answered = 1;
    if (r->suspended)
        MHD_resume_connection(r->conn);
    pthread_mutex_unlock(&r->mu);
    req_unref(r);
}

/* The queue's cancel: 1 once the client has hung up (its socket reads end of file), so its
 * remaining batches are not translated. Called on a queue thread; the socket stays open while
 * the connection is suspended. */
static int client_gone(void *user)
{
    serve_req *r = user;
    char b;
    ssize_t n;
    if (r->fd < 0)
        return 0;
    n = recv(r->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

int serve_submit(serve_req *r, xlate_queue *q, xlate_request *rq, char *err, size_t errlen)
{
    rq->cancel = client_gone;
    rq->cancel_user = r;
    pthread_mutex_lock(&r->mu);
    r->refs++;
    r->waiting = 1;
    pthread_mutex_unlock(&r->mu);
    if (xlate_queue_submit(q, rq, on_answer, r, err, errlen)) {
        pthread_mutex_lock(&r->mu);
        r->refs--;
        r->waiting = 0;
        pthread_mutex_unlock(&r->mu);
        return -1;
    }
    return 0;
}

/* A connection's own state, across its requests (libmicrohttpd's socket context): whether
 * the URL or an argument of the request being read held %00. libmicrohttpd decodes both into
 * C strings before the request's first call, so a NUL would end them there: /download_file/
 * NAME%00junk served NAME, q=A%00B read as "A" (issue 51). */
typedef struct {
    int url_nul;
} serve_conn;

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    (void)cls, (void)c;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED)
        *socket_context = calloc(1, sizeof(serve_conn)); /* NULL: %00 goes unseen */
    else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        free(*socket_context);
        *socket_context = NULL;
    }
}

/* libmicrohttpd's own decoding of the URL and of each argument (MHD_http_unescape), after
 * noting a %00 in it for the request (serve_conn). */
static size_t on_unescape(void *cls, struct MHD_Connection *c, char *s)
{
    const union MHD_ConnectionInfo *ci;
    (void)cls;
    for (const char *p = s; (p = strchr(p, '%')); p++)
        if (p[1] == '0' && p[2] == '0' &&
            (ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT)) &&
            ci->socket_context) {
            ((serve_conn *)ci->socket_context)->url_nul = 1;
            break;
        }
    return MHD_http_unescape(s);
}

static int method_of(const char *m)
{
    return !strcmp(m, "GET") ? SERVE_GET : !strcmp(m, "POST") ? SERVE_POST
         : !strcmp(m, "OPTIONS") ? SERVE_OPTIONS : !strcmp(m, "HEAD") ? SERVE_HEAD : SERVE_OTHER;
}

static serve_req *req_new(serve *s, struct MHD_Connection *c, const char *url, const char *m)
{
    serve_req *r = calloc(1, sizeof *r);
    const union MHD_ConnectionInfo *ci;
    const char *ct, *host;
    if (!r)
        return NULL;
    r->s = s;
    r->conn = c;
    r->refs = 1;
    r->fd = -1;
    pthread_mutex_init(&r->mu, NULL);
    r->method = method_of(m);
    snprintf(r->url, sizeof r->url, "%s", url);
    r->url_too_long = strlen(url) >= sizeof r->url;
    if ((ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD)))
        r->fd = ci->connect_fd;
    if ((ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT)) &&
        ci->socket_context) { /* this request's, taken; the next one starts clean */
        r->url_nul = ((serve_conn *)ci->socket_context)->url_nul;
        ((serve_conn *)ci->socket_context)->url_nul = 0;
    }
    if ((ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS)) &&
        ci->client_addr) {
        const struct sockaddr *sa = ci->client_addr;
        if (sa->sa_family == AF_INET)
            inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, r->client,
                      sizeof r->client);
        else if (sa->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, r->client,
                      sizeof r->client);
    }
    if ((host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST)))
        snprintf(r->host, sizeof r->host, "%s", host);
    ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
    if (ct && !strncasecmp(ct, "application/json", 16))
        r->is_json = 1;
    else if (ct && (!strncasecmp(ct, "application/x-www-form-urlencoded", 33) ||
                    !strncasecmp(ct, "multipart/form-data", 19))) {
        r->is_form = 1;
        r->pp = MHD_create_post_processor(c, 64 * 1024, post_iter, r);
        r->bad_form = r->pp == NULL; /* a multipart without its boundary */
    }
    pthread_mutex_lock(&s->mu);
    s->in_flight++;
    r->counted = 1;
    pthread_mutex_unlock(&s->mu);
    /* begun after SIGTERM (a new request on a kept-alive connection): refused once its body is
     * read. One whose headers came before the signal is served, however long its body takes
     * (issue 51: the check at the body's end answered an upload under way 503) */
    r->after_drain = s->draining;
    return r;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload, size_t *upload_size, void **con_cls)
{
    serve *s = cls;
    serve_req *r = *con_cls;
    (void)version;
    if (!r) {
        const char *cl;
        if (!(r = req_new(s, c, url, method)))
            return MHD_NO;
        *con_cls = r;
        cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > (unsigned long long)s->o.max_body) {
            r->too_big = 1; /* answered now: the body is never read */
            return serve_error(r, MHD_HTTP_CONTENT_TOO_LARGE, "Invalid request: a body of %s "
                               "bytes, more than the server's limit of %ld (--max-body)", cl,
                               s->o.max_body);
        }
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        if (r->too_big)
            return MHD_YES;
        r->body_len += n;
        if (r->body_len > (size_t)s->o.max_body) {
            r->too_big = 1;
            free(r->body);
            r->body = NULL;
            return MHD_YES;
        }
        if (r->pp) {
            if (!r->bad_form && MHD_post_process(r->pp, upload, n) != MHD_YES)
                r->bad_form = 1;
            return MHD_YES;
        }
        if (r->body_len > r->body_cap) {
            size_t cap = r->body_cap ? r->body_cap : 4096;
            char *b;
            while (cap < r->body_len + 1)
                cap *= 2;
            if (!(b = realloc(r->body, cap)))
                return MHD_NO;
            r->body = b;
            r->body_cap = cap;
        }
        memcpy(r->body + r->body_len - n, upload, n);
        return MHD_YES;
    }
    if (r->responded) /* answered early (413 before the body): the rest was discarded */
        return MHD_YES;
    if (r->waiting) /* resumed: the queue has answered */
        return serve_api_answer(r);
    if (r->too_big)
        return serve_error(r, MHD_HTTP_CONTENT_TOO_LARGE, "Invalid request: a body of more "
                           "than %ld bytes (--max-body)", s->o.max_body);
    if (r->after_drain)
        return serve_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "the server is shutting down");
    {
        int ret = serve_api(r), answered;
        if (!r->waiting)
            return ret;
        pthread_mutex_lock(&r->mu);
        answered = r->answered;
        if (!answered) {
            MHD_suspend_connection(c);
            r->suspended = 1;
        }
        pthread_mutex_unlock(&r->mu);
        return answered ? serve_api_answer(r) : MHD_YES;
    }
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls, (void)c, (void)toe;
    if (*con_cls)
        req_unref(*con_cls);
    *con_cls = NULL;
}

int serve_http_start(serve *s, char *err, size_t errlen)
{
    struct addrinfo hints, *ai = NULL;
    char port[16];
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    const union MHD_DaemonInfo *di;
    int rc;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    snprintf(port, sizeof port, "%ld", s->o.port);
    if ((rc = getaddrinfo(s->o.host, port, &hints, &ai)) != 0)
        return xerr(err, errlen, "--host %s: %s", s->o.host, gai_strerror(rc));
    if (ai->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    s->daemon = MHD_start_daemon(flags, (uint16_t)s->o.port, NULL, NULL, on_request, s,
                                 MHD_OPTION_SOCK_ADDR, ai->ai_addr,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned)s->o.max_connections,
                                 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)s->o.timeout,
                                 /* a connection's pool (its read buffer and headers):
                                  * libmicrohttpd mmaps one of more than 32 KiB and munmaps it
                                  * at close, and 128 KiB cost each new connection two page
                                  * faults' worth of syscalls and a TLB shootdown of the core
                                  * translating; 32 KiB (its default) comes from malloc */
                                 MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32 * 1024,
                                 MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                                 MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
                                 MHD_OPTION_UNESCAPE_CALLBACK, on_unescape, s,
                                 MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u,
                                 MHD_OPTION_END);
    freeaddrinfo(ai);
    if (!s->daemon)
        return xerr(err, errlen, "cannot listen on %s port %ld (in use, or not an address of "
                    "this machine)", s->o.host, s->o.port);
    di = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = di ? di->port : (unsigned)s->o.port;
    return 0;
}

void serve_http_stop(serve *s)
{
    if (s->daemon)
        MHD_stop_daemon(s->daemon);
    s->daemon = NULL;
}

/* Stops accepting connections (SIGTERM): the listening socket closed, requests still
 * answered on the connections open. */
void serve_http_quiesce(serve *s)
{
    int fd;
    s->draining = 1;
    if (s->daemon && (fd = MHD_quiesce_daemon(s->daemon)) >= 0)
        close(fd);
}
