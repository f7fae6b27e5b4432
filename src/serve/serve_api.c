/* serve_api.c — the endpoints of LibreTranslate's API (libretranslate/app.py, LibreTranslate
 * commit 39429cb; the lines are cited where each rule is followed): /translate,
 * /translate_file and /download_file, /detect, /languages, /frontend/settings, /health,
 * OPTIONS for CORS preflights, and the web page's files at every other GET. A translation is
 * a request to the model's queue (xlate.h); its answer comes back in serve_api_answer. */
#include "serve/serve.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "cli/cli_output.h"
#include "doc/doc.h"
#include "doc/formats.h"
#include <cJSON.h>
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One request's parameters, from JSON or form fields (app.py:725-736). */
typedef struct {
    cJSON *json;              /* the parsed body (owned) */
    const char **q;           /* [n_q] the texts (into json or the fields) */
    size_t *q_len;
    char **q_own;             /* form texts normalized (app.py:755-759), owned */
    int n_q, q_array;
    const char *source, *target, *format, *api_key;
    long alternatives;
} params;

static void params_free(params *p)
{
    cJSON_Delete(p->json);
    for (int i = 0; p->q_own && i < p->n_q; i++)
        free(p->q_own[i]);
    free(p->q_own);
    free(p->q);
    free(p->q_len);
}

/* A form's q with its line breaks as Python's str.splitlines() finds them joined by "\n"
 * (app.py:755-759: "\n".join(q.splitlines())): \r\n, \r, \v, \f, \x1c-\x1e, U+0085, U+2028,
 * U+2029 are breaks, and a break at the end leaves no empty line. Malloc'd. */
static char *form_lines(const char *s, size_t n, size_t *out_len)
{
    char *o = malloc(n + 1);
    size_t k = 0;
    if (!o)
        return NULL;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        size_t br = 0;
        if (c == '\r')
            br = i + 1 < n && s[i + 1] == '\n' ? 2 : 1;
        else if (c == '\n' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1e))
            br = 1;
        else if (c == 0xC2 && i + 1 < n && (unsigned char)s[i + 1] == 0x85)
            br = 2;
        else if (c == 0xE2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
                 ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9))
            br = 3;
        if (!br) {
            o[k++] = s[i++];
            continue;
        }
        i += br;
        if (i < n) /* a break at the very end ends the last line: nothing after it */
            o[k++] = '\n';
    }
    o[k] = '\0';
    *out_len = k;
    return o;
}

/* Where a JSON body holds a NUL, raw (JSON wants it escaped) or as the escape \u0000 in a
 * string: its byte offset, or -1. cJSON's strings end at a NUL, so the text would be cut there
 * without a word (issue 51: a raw NUL inside q answered only the text before it). */
static long json_nul_at(const char *s, size_t n)
{
    int in = 0;
    for (size_t i = 0; s && i < n; i++) {
        if (s[i] == '\0')
            return (long)i;
        if (!in) {
            in = s[i] == '"';
        } else if (s[i] == '"') {
            in = 0;
        } else if (s[i] == '\\' && i + 1 < n) {
            if (s[i + 1] == 'u' && i + 5 < n && !strncmp(s + i + 2, "0000", 4))
                return (long)i;
            i++; /* the escaped character */
        }
    }
    return -1;
}

/* A field's value as a string (JSON: a string; form: the field), or NULL. */
static const char *get_str(serve_req *r, params *p, const char *name, int *bad)
{
    if (p->json) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(p->json, name);
        if (!v || cJSON_IsNull(v))
            return NULL;
        if (!cJSON_IsString(v)) {
            *bad = 1;
            return NULL;
        }
        return v->valuestring;
    }
    {
        const serve_field *f = serve_field_get(r, name);
        if (f)
            return f->value;
        return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
    }
}

/* The request's parameters; 0, or an error answer queued (*ret set). */
static int read_params(serve_req *r, params *p, int need_q, int *ret)
{
    int bad = 0;
    long at;
    char err[XLATE_ERRLEN];
    memset(p, 0, sizeof p[0]);
    if (r->bad_form) {
        *ret = serve_error(r, 400, "Invalid request: the form body could not be read");
        return -1;
    }
    if (r->is_json) {
        if (!serve_utf8_ok(r->body ? r->body : "", r->body_len)) {
            *ret = serve_error(r, 400, "Invalid request: the JSON body is not UTF-8");
            return -1;
        }
        if ((at = json_nul_at(r->body, r->body_len)) >= 0) {
            *ret = serve_error(r, 400, "Invalid request: the JSON body holds a NUL character "
                               "(%s, byte %ld), which a text cannot hold", r->body[at] ?
                               "\\u0000" : "a raw NUL byte", at);
            return -1;
        }
        /* the body as Python's json.loads reads it (app.py:99-103, request.get_json): one
         * value, only blanks after it, no raw control byte in a string; and a key twice
         * refused (json.loads would take the last, cJSON takes the first: a proxy that
         * checked the request would have seen another one) */
        p->json = json_parse_strict(r->body, r->body_len, "the JSON body", err, sizeof err);
        if (!p->json) {
            *ret = serve_error(r, 400, "Invalid JSON format: %s", err);
            return -1;
        }
        if (!cJSON_IsObject(p->json)) {
            *ret = serve_error(r, 400, "Invalid JSON format: the body is %s, not an object",
                               json_type_name(p->json));
            return -1;
        }
    }
    for (int i = 0; i < r->n_fields; i++)
        if (!r->fields[i].filename && !serve_utf8_ok(r->fields[i].value, r->fields[i].value_len)) {
            *ret = serve_error(r, 400, "Invalid request: the %s parameter is not UTF-8",
                               r->fields[i].name);
            return -1;
        }
    p->source = get_str(r, p, "source", &bad);
    p->target = get_str(r, p, "target", &bad);
    p->format = get_str(r, p, "format", &bad);
    p->api_key = get_str(r, p, "api_key", &bad);
    if (bad) {
        *ret = serve_error(r, 400, "Invalid request: source, target, format and api_key must "
                           "be strings");
        return -1;
    }
    /* alternatives: a number, or a string of one (app.py:746-749) */
    if (p->json) {
        cJSON *a = cJSON_GetObjectItemCaseSensitive(p->json, "alternatives");
        if (a && cJSON_IsNumber(a) && a->valuedouble == (double)(long)a->valuedouble)
            p->alternatives = (long)a->valuedouble;
        else if (a && cJSON_IsString(a)) {
            char *end;
            p->alternatives = strtol(a->valuestring, &end, 10);
            bad = end == a->valuestring || *end;
        } else if (a && !cJSON_IsNull(a))
            bad = 1;
    } else {
        const char *a = get_str(r, p, "alternatives", &bad);
        if (a) {
            char *end;
            p->alternatives = strtol(a, &end, 10);
            bad = end == a || *end;
        }
    }
    if (bad) {
        *ret = serve_error(r, 400, "Invalid request: alternatives parameter is not a number");
        return -1;
    }
    if (p->alternatives < 0)
        p->alternatives = 0;
    if (!need_q)
        return 0;
    if (p->json) {
        cJSON *q = cJSON_GetObjectItemCaseSensitive(p->json, "q"), *e;
        int n = 0;
        if (q && cJSON_IsArray(q)) {
            p->q_array = 1;
            n = cJSON_GetArraySize(q);
            if (r->s->o.batch_limit >= 0 && n > r->s->o.batch_limit) { /* app.py:763-770 */
                *ret = serve_error(r, 400, "Invalid request: request (%d) exceeds text limit "
                                   "(%ld)", n, r->s->o.batch_limit);
                return -1;
            }
        } else if (q && !cJSON_IsString(q)) {
            *ret = serve_error(r, 400, "Invalid request: q must be a string or an array of "
                               "strings");
            return -1;
        }
        if (!q || (!p->q_array && !q->valuestring[0]) || (p->q_array && n == 0)) {
            *ret = serve_error(r, 400, "Invalid request: missing q parameter"); /* app.py:739 */
            return -1;
        }
        p->n_q = p->q_array ? n : 1;
        p->q = calloc(p->n_q, sizeof *p->q);
        p->q_len = calloc(p->n_q, sizeof *p->q_len);
        if (!p->q || !p->q_len) {
            *ret = serve_error(r, 500, "out of memory");
            return -1;
        }
        n = 0;
        if (p->q_array) {
            cJSON_ArrayForEach(e, q) {
                if (!cJSON_IsString(e)) {
                    *ret = serve_error(r, 400, "Invalid request: q[%d] is not a string", n);
                    return -1;
                }
                p->q[n] = e->valuestring;
                p->q_len[n++] = strlen(e->valuestring);
            }
        } else {
            p->q[0] = q->valuestring;
            p->q_len[0] = strlen(q->valuestring);
        }
    } else {
        const char *q = get_str(r, p, "q", &bad);
        const serve_field *f = serve_field_get(r, "q");
        size_t len = f ? f->value_len : q ? strlen(q) : 0;
        if (!q || !len) {
            *ret = serve_error(r, 400, "Invalid request: missing q parameter");
            return -1;
        }
        p->n_q = 1;
        p->q = calloc(1, sizeof *p->q);
        p->q_len = calloc(1, sizeof *p->q_len);
        p->q_own = calloc(1, sizeof *p->q_own);
        if (!p->q || !p->q_len || !p->q_own ||
            !(p->q_own[0] = form_lines(q, len, &p->q_len[0]))) {
            *ret = serve_error(r, 500, "out of memory");
            return -1;
        }
        p->q[0] = p->q_own[0];
    }
    for (int i = 0; i < p->n_q; i++) {
        if (!serve_utf8_ok(p->q[i], p->q_len[i])) {
            *ret = serve_error(r, 400, "Invalid request: q is not valid UTF-8");
            return -1;
        }
        if (r->s->o.char_limit >= 0) { /* app.py:781-788: characters, as Python's len */
            size_t c = serve_utf8_chars(p->q[i], p->q_len[i]);
            if (c > (size_t)r->s->o.char_limit) {
                *ret = serve_error(r, 400, "Invalid request: request (%zu) exceeds text limit "
                                   "(%ld)", c, r->s->o.char_limit);
                return -1;
            }
        }
    }
    return 0;
}

/* The api key check of app.py:341-347 (403; with --api-keys a key is required). */
static int access_check(serve_req *r, const params *p, int *ret)
{
    if (r->s->n_keys && !serve_key_ok(r->s, p->api_key)) {
        *ret = serve_error(r, 403, p->api_key ? "Invalid API key" : "Please contact the server "
                           "operator to get an API key");
        return -1;
    }
    return 0;
}

/* The source languages of the routes (into tgt when tgt is not NULL), each once: out[max]. */
static int route_sources(const serve *s, const char *tgt, const char **out, int max)
{
    int n = 0;
    for (int i = 0; i < s->n_routes && n < max; i++) {
        int seen = 0;
        if (tgt && !serve_lang_is(s->routes[i].tgt, tgt))
            continue;
        for (int k = 0; k < n && !seen; k++)
            seen = strcmp(out[k], s->routes[i].src) == 0;
        if (!seen)
            out[n++] = s->routes[i].src;
    }
    return n;
}

/* The text a detector reads of an HTML text: tags and character references made spaces (a
 * copy, malloc'd; NULL when out of memory). Mastodon sends each post as HTML. */
static char *html_words(const char *s, size_t n, size_t *len)
{
    char *o = malloc(n + 1);
    if (!o)
        return NULL;
    *len = doc_markup_spaces(s, n, o);
    o[*len] = 0;
    return o;
}

/* "de, en, fr" of k codes into out[n] (at most 12, then ", ... (K in all)"). */
static void list_codes(char *out, size_t n, const char *const *v, int k)
{
    size_t u = 0;
    int i;
    out[0] = 0;
    for (i = 0; i < k && i < 12 && u + 40 < n; i++)
        u += (size_t)snprintf(out + u, n - u, "%s%s", i ? ", " : "", v[i]);
    if (i < k)
        snprintf(out + u, n - u, ", ... (%d in all)", k);
}

/* source "auto" (issue 48): each text of q detected on its own, as LibreTranslate's app.py did
 * until 2023 (5033f58 app.py:558-568: detect_languages of each text of a list longer than 40
 * characters, the list's as a whole for a shorter one, the best candidate taken; today's,
 * 39429cb app.py:794-797, detects the texts together once and repeats that answer for each,
 * 846), among the sources of the models that translate into the target
 * (xlate_detect_language), into r->detected_each; the source is the language found, the one
 * the texts agree on (a text that cannot be told follows the others, at confidence 0). With
 * one such source it is the answer whatever the texts (the one source there is: confidence 0
 * for a text the detector cannot tell). Refused with why in err: no text can be told; the
 * texts are in two languages (one request goes to one model); a text surely in a language no
 * model translates into the target (naming it and the sources served). */
static const char *auto_source(serve_req *r, const params *p, char *err, size_t errlen)
{
    const char *src[64], *found = NULL;
    char list[512], q[80];
    int n = route_sources(r->s, p->target, src, 64), html = p->format &&
        !strcmp(p->format, "html");
    if (n == 0) {
        str_quote(q, sizeof q, p->target, strlen(p->target));
        xerr(err, errlen, "%s is not supported", q);
        return NULL;
    }
    list_codes(list, sizeof list, src, n);
    free(r->detected_each);
    if (!(r->detected_each = calloc((size_t)(p->n_q > 0 ? p->n_q : 1), sizeof *r->detected_each))) {
        xerr(err, errlen, "out of memory");
        return NULL;
    }
    for (int i = 0; i < p->n_q; i++) {
        xlate_lang_guess g, all;
        size_t len = p->q_len[i];
        char *words = html ? html_words(p->q[i], p->q_len[i], &len) : NULL;
        const char *t = words ? words : p->q[i];
        int k = xlate_detect_language(t, len, src, n, &g, 1, err, errlen);
        int ka = n > 1 ? xlate_detect_language(t, len, NULL, 0, &all, 1, err, errlen) : 0;
        free(words);
        if (html && !words) {
            xerr(err, errlen, "out of memory");
            return NULL;
        }
        if (n > 1 && ka == 1 && all.confidence >= XLATE_DETECT_SURE && k == 1 &&
            !serve_lang_is(g.lang, all.lang)) {
            int served = 0;
            for (int j = 0; j < n; j++)
                served |= serve_lang_is(src[j], all.lang);
            if (!served) {
                xerr(err, errlen, "source \"auto\": %s is %s (%s, confidence %.0f), which no "
                     "model loaded translates into %s; the sources served: %s", p->q_array ?
                     "a text" : "the text", serve_lang_name(all.lang), all.lang,
                     100.0 * all.confidence, p->target, list);
                return NULL;
            }
        }
        if (k == 1) {
            const char *code = NULL;
            for (int j = 0; j < n && !code; j++)
                if (serve_lang_is(src[j], g.lang) || !strcmp(src[j], g.lang))
                    code = src[j];
            if (found && code && strcmp(found, code) != 0) {
                xerr(err, errlen, "source \"auto\": the texts are in more than one language "
                     "(%s and %s): one request translates from one source; send them apart "
                     "or give source", found, code);
                return NULL;
            }
            if (code)
                found = code;
            snprintf(r->detected_each[i].lang, sizeof r->detected_each[i].lang, "%s",
                     code ? code : g.lang);
            r->detected_each[i].confidence = g.confidence;
        } else if (k < 0 && n > 1) {
            xerr(err, errlen, "source \"auto\": the detector knows none of the sources served "
                 "into %s (%s): give source", p->target, list);
            return NULL;
        }
    }
    if (!found && n == 1)
        found = src[0];
    if (!found) {
        xerr(err, errlen, "source \"auto\": the language %s cannot be told (empty, digits or "
             "symbols only, or fewer than %d letters); the sources served into %s: %s: give "
             "source", p->n_q > 1 ? "of the texts" : "of the text", XLATE_DETECT_MIN_LETTERS,
             p->target, list);
        return NULL;
    }
    for (int i = 0; i < p->n_q; i++)
        if (!r->detected_each[i].lang[0]) /* could not be told: the source taken, at 0 */
            snprintf(r->detected_each[i].lang, sizeof r->detected_each[i].lang, "%s", found);
    return found;
}

/* The route for source -> target ("auto": detected, auto_source), or an error queued
 * (app.py:790-826). */
static const serve_route *route(serve_req *r, const params *p, int *ret)
{
    char err[XLATE_ERRLEN], q1[80], q2[80];
    const char *src = p->source;
    const serve_route *rt;
    if (!p->source || !p->source[0]) {
        *ret = serve_error(r, 400, "Invalid request: missing source parameter");
        return NULL;
    }
    if (!p->target || !p->target[0]) {
        *ret = serve_error(r, 400, "Invalid request: missing target parameter");
        return NULL;
    }
    if (strcmp(src, "auto") == 0 && !(src = auto_source(r, p, err, sizeof err))) {
        *ret = serve_error(r, 400, "%s", err);
        return NULL;
    }
    if ((rt = serve_route_find(r->s, src, p->target)))
        return rt;
    str_quote(q1, sizeof q1, src, strlen(src));
    str_quote(q2, sizeof q2, p->target, strlen(p->target));
    {
        int src_known = 0, tgt_known = 0;
        for (int i = 0; i < r->s->n_routes; i++) {
            src_known |= serve_lang_is(r->s->routes[i].src, src);
            tgt_known |= serve_lang_is(r->s->routes[i].tgt, p->target);
        }
        if (!src_known)
            *ret = serve_error(r, 400, "%s is not supported", q1);
        else if (!tgt_known)
            *ret = serve_error(r, 400, "%s is not supported", q2);
        else
            *ret = serve_error(r, 400, "%s (%s) is not available as a target language from %s "
                               "(%s)", serve_lang_name(p->target), q2, serve_lang_name(src), q1);
    }
    return NULL;
}

/* Submits texts for rt's model: the command line's setup for the pair (cli_translate.c). */
static int submit(serve_req *r, const serve_route *rt, const char *const *texts,
                  const size_t *lens, int n, int format, long alternatives, int *ret)
{
    serve_model *sm = &r->s->models[rt->model];
    xlate_request rq = xlate_request_default(sm->model);
    char err[XLATE_ERRLEN];
    rq.n = n;
    rq.texts = texts;
    rq.lens = lens;
    rq.format = format;
    rq.params.batch_size = (int)r->s->o.batch_size;
    rq.params.target_lang_id = rt->target_lang_id;
    rq.params.decode.forced_bos_id = rt->forced_bos_id;
    rq.params.decode.source_suffix_id = rt->source_suffix_id;
    if (rt->set_target_lang)
        rq.params.target_lang = rt->tgt;
    if (alternatives > 0 && format == XLATE_FORMAT_TEXT) { /* --beam-size B --n-best N */
        int want = (int)alternatives + 1;
        if (rq.params.decode.beam_size < want)
            rq.params.decode.beam_size = want;
        rq.params.decode.n_best = want;
        rq.params.decode.scores = 1;
    }
    r->format = format;
    r->alternatives = (int)alternatives;
    if (serve_submit(r, sm->queue, &rq, err, sizeof err)) {
        *ret = serve_error(r, strstr(err, "stopping") ? 503 : 500, "Cannot translate text: %s",
                           err);
        return -1;
    }
    *ret = MHD_YES;
    return 0;
}

static int api_translate(serve_req *r)
{
    params p;
    const serve_route *rt;
    int ret = MHD_NO, format;
    if (read_params(r, &p, 1, &ret) || access_check(r, &p, &ret) || !(rt = route(r, &p, &ret)))
        goto done;
    if (r->s->o.alternatives_limit >= 0 && p.alternatives > r->s->o.alternatives_limit) {
        ret = serve_error(r, 400, "Invalid request: alternatives parameter must be <= %ld",
                          r->s->o.alternatives_limit); /* app.py:751-752 */
        goto done;
    }
    if (!p.format || !strcmp(p.format, "text"))
        format = XLATE_FORMAT_TEXT;
    else if (!strcmp(p.format, "html"))
        format = XLATE_FORMAT_HTML;
    else {
        char q[80];
        ret = serve_error(r, 400, "%s format is not supported", /* app.py:816-817 */
                          str_quote(q, sizeof q, p.format, strlen(p.format)));
        goto done;
    }
    r->q_array = p.q_array;
    r->n_q = p.n_q;
    if (strcmp(p.source, "auto") == 0)
        snprintf(r->detected, sizeof r->detected, "%s", rt->src);
    if (rt->pivot[0]) {
        /* through a pivot (issue 48): the first leg now, the second when its answer comes
         * (serve_api_answer), as `xlate --from SRC --to TGT` pipes the two models */
        const serve_route *leg1 = serve_route_find(r->s, rt->src, rt->pivot);
        r->pivot_leg2 = serve_route_find(r->s, rt->pivot, rt->tgt);
        if (p.alternatives > 0) {
            ret = serve_error(r, 400, "Invalid request: alternatives are not given through a "
                              "pivot language (%s -> %s goes through %s)", rt->src, rt->tgt,
                              rt->pivot);
            goto done;
        }
        if (!leg1 || !r->pivot_leg2) {
            ret = serve_error(r, 500, "the pivot's legs are gone");
            goto done;
        }
        rt = leg1;
    }
    submit(r, rt, p.q, p.q_len, p.n_q, format, p.alternatives, &ret);
done:
    params_free(&p);
    return ret;
}

/* The extensions /translate_file takes: ".txt" and every document format's (doc/formats.c), as
 * a JSON array's members ("\".txt\", \".html\"", ...) or a plain list (", "); out[n]. */
static void file_exts(char *out, size_t n, int json)
{
    const doc_format *f;
    size_t k = (size_t)snprintf(out, n, json ? "\".txt\"" : ".txt");
    for (int i = 0; (f = doc_format_at(i)); i++)
        for (const char *e = f->exts; *e && k < n;) {
            size_t m = strcspn(e, " ");
            k += (size_t)snprintf(out + k, n - k, json ? ", \"%.*s\"" : ", %.*s", (int)m, e);
            e += m + (e[m] == ' ');
        }
}

static int api_translate_file(serve_req *r)
{
    params p;
    const serve_route *rt;
    const serve_field *f = serve_field_get(r, "file");
    const char *ext, *text;
    char own_ext[24];
    size_t len;
    int ret = MHD_NO, format = -1;
    if (read_params(r, &p, 0, &ret) || access_check(r, &p, &ret))
        goto done;
    if (!f || !f->filename) { /* app.py:973-984 */
        ret = serve_error(r, 400, "Invalid request: missing file parameter");
        goto done;
    }
    if (!f->filename[0]) {
        ret = serve_error(r, 400, "Invalid request: empty file");
        goto done;
    }
    ext = strrchr(f->filename, '.');
    /* by the extension (as argos-translate-files picks its reader), else a zip's content */
    format = ext ? xlate_format_detect(f->filename, f->value, f->value_len) : -1;
    if (format < 0) {
        char exts[512];
        file_exts(exts, sizeof exts, 0);
        ret = serve_error(r, 400, "Invalid request: file format not supported (%s)", exts);
        goto done;
    }
    if (format != XLATE_FORMAT_TEXT && !doc_format_for_name(f->filename)) {
        /* known by its content: the download gets the format's own extension */
        const char *e = doc_format_of(format)->exts;
        snprintf(own_ext, sizeof own_ext, "%.*s", (int)strcspn(e, " "), e);
        ext = own_ext;
    }
    if (!(rt = route(r, &p, &ret)))
        goto done;
    if (rt->pivot[0]) {
        ret = serve_error(r, 400, "%s -> %s goes through %s: files are not translated through "
                          "a pivot language yet (/translate is)", rt->src, rt->tgt, rt->pivot);
        goto done;
    }
    if (format != XLATE_FORMAT_HTML && !(doc_format_of(format) && doc_format_of(format)->package)
        && !serve_utf8_ok(f->value, f->value_len)) {
        ret = serve_error(r, 400, "Invalid request: the file is not UTF-8");
        goto done;
    }
    /* the download's name: the upload's last path part, in safe characters (secure_filename,
     * app.py:997), with the target's code before the extension, as LibreTranslate's files are
     * named (argos-translate-files abstract_file.py get_output_path: NAME_TO.EXT): winter.md in
     * German is winter_de.md. The code is the route's, as /languages lists it (the page's
     * choice); ext is one of file_formats, so the name keeps its extension whole. */
    {
        const char *base = f->filename, *sl;
        size_t k = 0, room = sizeof r->file_name - 2 - strlen(rt->tgt) - strlen(ext);
        if ((sl = strrchr(base, '/')) || (sl = strrchr(base, '\\')))
            base = sl + 1;
        for (; base < ext && k < room; base++) {
            char c = *base;
            r->file_name[k++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_'
                                ? c : '_';
        }
        snprintf(r->file_name + k, sizeof r->file_name - k, "_%s%s", rt->tgt, ext);
    }
    r->for_file = 1;
    r->n_q = 1;
    text = f->value;
    len = f->value_len;
    submit(r, rt, &text, &len, 1, format, 0, &ret);
done:
    params_free(&p);
    return ret;
}

static int api_detect(serve_req *r)
{
    params p;
    int ret = MHD_NO;
    const char *src[64];
    char json[512], err[XLATE_ERRLEN], list[512];
    xlate_lang_guess g[3];
    int n, k;
    size_t u;
    if (read_params(r, &p, 1, &ret) || access_check(r, &p, &ret))
        goto done;
    /* app.py:1145: a list of {confidence, language}, the best first, among the languages the
     * models translate from (xlate_detect_language, issue 48) */
    n = route_sources(r->s, NULL, src, 64);
    k = p.n_q > 0 ? xlate_detect_language(p.q[0], p.q_len[0], src, n, g, 3, err, sizeof err) : 0;
    list_codes(list, sizeof list, src, n);
    if (k <= 0 && n == 1) {
        /* the one source there is, not reported as sure */
        snprintf(g[0].lang, sizeof g[0].lang, "%s", src[0]);
        g[0].confidence = 0;
        k = 1;
    } else if (k == 0) {
        ret = serve_error(r, 400, "The language of the text cannot be told (empty, digits or "
                          "symbols only, or fewer than %d letters); the sources served: %s",
                          XLATE_DETECT_MIN_LETTERS, list);
        goto done;
    } else if (k < 0) {
        ret = serve_error(r, 400, "The detector knows none of the sources served (%s)", list);
        goto done;
    }
    u = (size_t)snprintf(json, sizeof json, "[");
    for (int i = 0; i < k; i++)
        u += (size_t)snprintf(json + u, sizeof json - u, "%s{\"confidence\": %.1f, "
                              "\"language\": \"%s\"}", i ? ", " : "",
                              100.0 * g[i].confidence, g[i].lang);
    snprintf(json + u, sizeof json - u, "]");
    ret = serve_send(r, 200, "application/json", json, strlen(json), NULL);
done:
    params_free(&p);
    return ret;
}

static int api_settings(serve_req *r)
{
    const serve *s = r->s;
    char json[2048], exts[1024];
    const serve_route *rt = &s->routes[s->first_route];
    file_exts(exts, sizeof exts, 1);
    /* app.py:1206-1224 */
    snprintf(json, sizeof json, "{\"charLimit\": %ld, \"frontendTimeout\": 500, \"apiKeys\": %s,"
             " \"keyRequired\": %s, \"suggestions\": false, \"filesTranslation\": true, "
             "\"supportedFilesFormat\": [%s], \"language\": "
             "{\"source\": {\"code\": \"%s\", \"name\": \"%s\"}, \"target\": {\"code\": \"%s\", "
             "\"name\": \"%s\"}}}", s->o.char_limit, s->n_keys ? "true" : "false",
             s->n_keys ? "true" : "false", exts, rt->src, serve_lang_name(rt->src), rt->tgt,
             serve_lang_name(rt->tgt));
    return serve_send(r, 200, "application/json", json, strlen(json), NULL);
}

static int api_download(serve_req *r, const char *name)
{
    size_t len = 0;
    char *data, disp[256];
    const char *dot = strchr(name, '.');
    if (!*name || strchr(name, '/') || !dot)
        return serve_error(r, 400, "Invalid filename");
    if (!(data = serve_file_get(r->s, name, &len)))
        return serve_error(r, 404, "no translated file by that name (the server keeps the last "
                           "%d)", SERVE_FILES);
    /* app.py:1049-1053: the name without its id; as an attachment */
    snprintf(disp, sizeof disp, "attachment; filename=\"%s\"", dot + 1);
    {
        int ret = serve_send(r, 200, "application/octet-stream", data, len, disp);
        free(data);
        return ret;
    }
}

/* The methods a path takes, as Flask's 405 names them in Allow (app.py's routes: a GET route
 * takes HEAD too, every route OPTIONS), or NULL: a path not served is 404 whatever the
 * method, as werkzeug matches the path before the method. */
static const char *path_methods(const char *u)
{
    size_t len;
    const char *mime;
    if (!strcmp(u, "/translate") || !strcmp(u, "/translate_file") || !strcmp(u, "/detect"))
        return "POST, OPTIONS";
    if (!strcmp(u, "/health") || !strcmp(u, "/languages") || !strcmp(u, "/frontend/settings") ||
        !strcmp(u, "/spec") || !strncmp(u, "/download_file/", 15) ||
        serve_page_lookup(u, &len, &mime))
        return "GET, HEAD, OPTIONS";
    return NULL;
}

/* One GET argument back into a query string, percent-encoded (RFC 3986 unreserved bytes as
 * they are). */
typedef struct {
    strbuf *b;
    int n;      /* arguments put so far */
} query_buf;
static enum MHD_Result query_put(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
    query_buf *q = cls;
    strbuf *b = q->b;
    (void)kind;
    strbuf_put(b, q->n++ ? "&" : "?", 1);
    for (int part = 0; part < 2; part++) {
        const char *t = part ? value : key;
        if (part && !value)
            break;
        if (part)
            strbuf_put(b, "=", 1);
        for (; t && *t; t++) {
            unsigned char c = (unsigned char)*t;
            char hex[4];
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                strchr("-._~", c))
                strbuf_put(b, (const char *)&c, 1);
            else {
                snprintf(hex, sizeof hex, "%%%02X", c);
                strbuf_put(b, hex, 3);
            }
        }
    }
    return MHD_YES;
}

/* A path with runs of slashes (//languages: Mastodon's endpoint set with a trailing slash)
 * that is a known path once each run is one slash: 308 to it, the query kept, as werkzeug's
 * merge_slashes redirects (a 308 keeps the method and the body: curl -L, Mastodon's HTTP client
 * and browsers send the POST again). 0 when u is not such a path, else 1 with *ret. */
static int merged_redirect(serve_req *r, const char *u, int *ret)
{
    strbuf b = {0};
    if (!strstr(u, "//"))
        return 0;
    for (const char *p = u; *p; p++)
        if (!(*p == '/' && p[1] == '/'))
            strbuf_put(&b, p, 1);
    if (b.failed || !b.s || !path_methods(b.s)) {
        strbuf_free(&b);
        return 0;
    }
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, query_put, &(query_buf){&b, 0});
    if (b.failed) {
        strbuf_free(&b);
        *ret = serve_error(r, 500, "out of memory");
        return 1;
    }
    r->location = b.s; /* the request's now (freed with it) */
    *ret = serve_send(r, MHD_HTTP_PERMANENT_REDIRECT, "text/plain", "", 0, NULL);
    return 1;
}

int serve_api(serve_req *r)
{
    const char *u = r->url, *allow;
    int ret;
    if (r->url_too_long)
        return serve_error(r, 404, "no such path");
    if (r->url_nul) /* libmicrohttpd's decoding would have cut the URL or an argument there */
        return serve_error(r, 400, "Invalid request: the URL holds a NUL character (%%00), "
                           "which no path or parameter may contain");
    if (merged_redirect(r, u, &ret))
        return ret;
    if (r->method == SERVE_OPTIONS) /* a CORS preflight: the headers alone */
        return serve_send(r, 204, NULL, "", 0, NULL);
    if (!(allow = path_methods(u)))
        return serve_error(r, 404, "no such path");
    if ((r->method == SERVE_POST) != (allow[0] == 'P') ||
        (r->method != SERVE_POST && r->method != SERVE_GET && r->method != SERVE_HEAD)) {
        r->allow = allow; /* LibreTranslate's test_api: POST /languages, /health, /spec */
        return serve_error(r, 405, "%s takes %s", u, allow[0] == 'P' ? "POST" : "GET");
    }
    if (r->method == SERVE_GET || r->method == SERVE_HEAD) {
        const char *page, *mime;
        size_t len;
        if (!strcmp(u, "/health")) /* app.py:541-560 */
            return serve_send(r, 200, "application/json", "{\"status\": \"ok\"}", 16, NULL);
        if (!strcmp(u, "/languages")) {
            return serve_send(r, 200, "application/json", r->s->languages,
                              strlen(r->s->languages), NULL);
        }
        if (!strcmp(u, "/frontend/settings"))
            return api_settings(r);
        if (!strcmp(u, "/spec")) { /* app.py:1241-1247 */
            page = serve_spec_json(&len);
            return serve_send(r, 200, "application/json", page, len, NULL);
        }
        if (!strncmp(u, "/download_file/", 15))
            return api_download(r, u + 15);
        page = serve_page_lookup(u, &len, &mime);
        return serve_send(r, 200, mime, page, len, NULL);
    }
    /* --req-limit counts every request to a limited endpoint, as Flask-Limiter's decorator
     * does before the view runs (app.py:139-166; 429 "Slowdown:", app.py:430-433) */
    if (!serve_rate_take(r->s, r->client))
        return serve_error(r, 429, "Slowdown: %ld per 1 minute (--req-limit)",
                           r->s->o.req_limit);
    if (!strcmp(u, "/translate"))
        return api_translate(r);
    if (!strcmp(u, "/translate_file"))
        return api_translate_file(r);
    return api_detect(r);
}

/* json_string_put's sink into a buffer of 6 n + 3 bytes (a byte is at most "\u00XX"). */
typedef struct {
    char *buf;
    size_t len;
} text_buf;
static void text_buf_put(void *user, const char *s, size_t n)
{
    text_buf *b = user;
    memcpy(b->buf + b->len, s, n);
    b->len += n;
}

/* Hypothesis k of answer a as a JSON string node, every byte of its lens[k] (an HTML or
 * Markdown document keeps the NULs of its kept parts, as `xlate --format` writes them: issue
 * 51; cJSON_CreateString ended the text at the first). A raw node: the escaped text is
 * written as it is by cJSON_Print. NULL when out of memory. */
static cJSON *answer_text(const xlate_answer *a, size_t k)
{
    size_t n = a->lens ? a->lens[k] : strlen(a->texts[k]);
    text_buf b = {NULL, 0};
    cJSON *v;
    if (n > ((size_t)-1 - 3) / 6 || !(b.buf = malloc(6 * n + 3)))
        return NULL;
    json_string_put(text_buf_put, &b, a->texts[k], n);
    b.buf[b.len] = '\0';
    v = cJSON_CreateRaw(b.buf);
    free(b.buf);
    return v;
}

/* 1 when hypotheses j and k of a are the same bytes. */
static int same_text(const xlate_answer *a, size_t j, size_t k)
{
    size_t nj = a->lens ? a->lens[j] : strlen(a->texts[j]);
    size_t nk = a->lens ? a->lens[k] : strlen(a->texts[k]);
    return nj == nk && memcmp(a->texts[j], a->texts[k], nj) == 0;
}

/* alternatives without duplicates and without the translation itself (app.py:168-171,
 * filter_unique) */
static cJSON *alternatives_of(const xlate_answer *a, int i)
{
    cJSON *arr = cJSON_CreateArray();
    size_t best = (size_t)i * a->n_hyps;
    for (int h = 1; arr && h < a->n_hyps; h++) {
        size_t t = best + h;
        int dup = same_text(a, t, best);
        for (int g = 1; g < h && !dup; g++)
            dup = same_text(a, t, best + g);
        if (!dup)
            cJSON_AddItemToArray(arr, answer_text(a, t));
    }
    return arr;
}

/* detectedLanguage's confidence of text i (0-100, one decimal): the detector's (issue 48) */
static double detected_confidence(const serve_req *r, int i)
{
    if (!r->detected_each)
        return 100.0;
    return (double)(int)(1000.0 * r->detected_each[i].confidence + 0.5) / 10.0;
}

int serve_api_answer(serve_req *r)
{
    xlate_answer *a = r->answer;
    cJSON *root, *tt, *alts = NULL, *det = NULL;
    char *json;
    int ret;
    if (!a)
        return serve_error(r, 500, "Cannot translate text: out of memory");
    if (a->status)
        return serve_error(r, 500, "Cannot translate text: %s", a->err); /* app.py:879 */
    if (r->pivot_leg2) {
        /* the first leg's translations are the second's texts (submit copies them); the
         * connection suspended again until its answer, as serve_http.c suspends a request */
        const serve_route *leg2 = r->pivot_leg2;
        int answered;
        pthread_mutex_lock(&r->mu);
        r->pivot_leg2 = NULL;
        r->answer = NULL;
        r->answered = 0;
        r->suspended = 0;
        pthread_mutex_unlock(&r->mu);
        ret = MHD_NO;
        if (submit(r, leg2, (const char *const *)a->texts, a->lens, a->n, r->format, 0, &ret)) {
            xlate_answer_free(a);
            return ret;
        }
        xlate_answer_free(a);
        pthread_mutex_lock(&r->mu);
        answered = r->answered;
        if (!answered) {
            MHD_suspend_connection(r->conn);
            r->suspended = 1;
        }
        pthread_mutex_unlock(&r->mu);
        return answered ? serve_api_answer(r) : MHD_YES;
    }
    if (r->for_file) {
        char name[192], url[512];
        const char *host = r->host[0] ? r->host : NULL;
        char *data = a->texts[0];
        size_t len = a->lens ? a->lens[0] : strlen(data);
        char own[64];
        for (const char *h = host; h && *h; h++) /* only a host[:port] goes into the URL */
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.:-[]",
                        *h))
                host = NULL;
        if (!host) {
            snprintf(own, sizeof own, "127.0.0.1:%u", r->s->port);
            host = own;
        }
        if (serve_file_put(r->s, r->file_name, data, len, name, sizeof name))
            return serve_error(r, 500, "out of memory");
        a->texts[0] = NULL; /* the store's now */
        snprintf(url, sizeof url, "{\"translatedFileUrl\": \"http://%s/download_file/%s\"}",
                 host, name); /* app.py:1021-1025 */
        return serve_send(r, 200, "application/json", url, strlen(url), NULL);
    }
    if (!(root = cJSON_CreateObject()))
        return serve_error(r, 500, "out of memory");
    if (r->q_array) {
        tt = cJSON_CreateArray();
        if (r->alternatives > 0)
            alts = cJSON_CreateArray();
        if (r->detected[0])
            det = cJSON_CreateArray();
        for (int i = 0; i < a->n; i++) {
            cJSON_AddItemToArray(tt, answer_text(a, (size_t)i * a->n_hyps));
            if (alts)
                cJSON_AddItemToArray(alts, alternatives_of(a, i));
            if (det) {
                cJSON *d = cJSON_CreateObject();
                cJSON_AddNumberToObject(d, "confidence", detected_confidence(r, i));
                cJSON_AddStringToObject(d, "language", r->detected);
                cJSON_AddItemToArray(det, d);
            }
        }
    } else {
        tt = answer_text(a, 0);
        if (r->alternatives > 0)
            alts = alternatives_of(a, 0);
        if (r->detected[0]) {
            det = cJSON_CreateObject();
            cJSON_AddNumberToObject(det, "confidence", detected_confidence(r, 0));
            cJSON_AddStringToObject(det, "language", r->detected);
        }
    }
    /* app.py:858-874 */
    cJSON_AddItemToObject(root, "translatedText", tt);
    if (det)
        cJSON_AddItemToObject(root, "detectedLanguage", det);
    if (alts)
        cJSON_AddItemToObject(root, "alternatives", alts);
    /* a text node that could not be made (out of memory) would be missing silently */
    if (!tt || (r->q_array ? cJSON_GetArraySize(tt) != a->n : !cJSON_IsRaw(tt)))
        json = NULL;
    else
        json = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if (!json)
        return serve_error(r, 500, "out of memory");
    ret = serve_send(r, 200, "application/json", json, strlen(json), NULL);
    free(json);
    return ret;
}
