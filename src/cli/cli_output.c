/* cli_output.c — the output formats of a translated line (cli_output.h). */
#include "cli/cli_output.h"
#include "base/util.h"
#include "doc/doc.h"
#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_ids(writer *w, const int *ids, int n)
{
    char buf[16];
    for (int k = 0; k < n; k++) {
        int len = snprintf(buf, sizeof buf, k ? " %d" : "%d", ids[k]);
        writer_put(w, buf, (size_t)len);
    }
}

/* A float as the shortest decimal that reads back as the same float; null when not finite. */
static cJSON *json_float(float v)
{
    char buf[32];
    if (!isfinite(v))
        return cJSON_CreateNull();
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, (double)v);
        if (strtof(buf, NULL) == v)
            break;
    }
    return cJSON_CreateRaw(buf);
}

/* JSON strings are UTF-8: replaces each byte that is not part of a valid sequence (a byte
 * piece of a byte-fallback tokenizer can leave one) with U+FFFD. Returns 0, -1 out of memory. */
int utf8_fix(char **text)
{
    const unsigned char *s = (const unsigned char *)*text;
    size_t n = strlen(*text), bad = 0, k, j;
    char *out;
    for (k = 0; k < n; k += j ? j : 1)
        bad += (j = utf8_seq(s + k, n - k)) == 0;
    if (!bad)
        return 0;
    if (!(out = malloc(n + 2 * bad + 1)))
        return -1;
    for (k = 0, j = 0; k < n;) {
        size_t len = utf8_seq(s + k, n - k);
        if (len) {
            memcpy(out + j, s + k, len);
            j += len;
            k += len;
        } else {
            memcpy(out + j, "\xEF\xBF\xBD", 3);
            j += 3;
            k++;
        }
    }
    out[j] = '\0';
    free(*text);
    *text = out;
    return 0;
}

void json_string_put(void (*put)(void *user, const char *s, size_t n), void *user,
                     const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0, run = 0; /* s[run, i) is copied as it is */
    put(user, "\"", 1);
    while (i < n) {
        size_t l = utf8_seq(s + i, n - i);
        const char *esc = NULL;
        char tmp[8];
        if (!l)
            esc = "\xEF\xBF\xBD";
        else if (s[i] == '"')
            esc = "\\\"";
        else if (s[i] == '\\')
            esc = "\\\\";
        else if (s[i] == '\n')
            esc = "\\n";
        else if (s[i] == '\t')
            esc = "\\t";
        else if (s[i] == '\r')
            esc = "\\r";
        else if (s[i] < 0x20 || s[i] == 0x7F) {
            snprintf(tmp, sizeof tmp, "\\u%04x", s[i]);
            esc = tmp;
        }
        if (!esc) {
            i += l;
            continue;
        }
        put(user, text + run, i - run);
        put(user, esc, strlen(esc));
        i += l ? l : 1;
        run = i;
    }
    put(user, text + run, n - run);
    put(user, "\"", 1);
}

/* json_string_put's sink into a buffer of 6 n + 3 bytes (each byte at most "\u00XX"). */
typedef struct {
    char *buf;
    size_t len;
} json_buf;
static void json_buf_put(void *user, const char *s, size_t n)
{
    json_buf *b = user;
    memcpy(b->buf + b->len, s, n);
    b->len += n;
}

/* s[0..n) as a cJSON raw string value, escaped by json_string_put: cJSON's own strings end at
 * a NUL byte, which cut a sentence's "source" short of its span (issue 37). */
static cJSON *json_string_n(const char *s, size_t n)
{
    json_buf b = {malloc(6 * n + 3), 0};
    cJSON *v;
    if (!b.buf)
        return NULL;
    json_string_put(json_buf_put, &b, s, n);
    b.buf[b.len] = '\0';
    v = cJSON_CreateRaw(b.buf);
    free(b.buf);
    return v;
}

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The word (run of non-space bytes) around token k's text in s[lo, hi): [*a, *b); 0 when the
 * token covers only whitespace or nothing. */
static int word_of(const int *spans, int k, const char *s, size_t lo, size_t hi, size_t *a,
                   size_t *b)
{
    size_t x = (size_t)spans[2 * k], y = (size_t)spans[2 * k + 1];
    while (x < y && is_space((unsigned char)s[x]))
        x++;
    if (x >= y)
        return 0;
    while (x > lo && !is_space((unsigned char)s[x - 1]))
        x--;
    while (y < hi && !is_space((unsigned char)s[y]))
        y++;
    *a = x;
    *b = y;
    return 1;
}

static cJSON *pair(double a, double b)
{
    cJSON *p = cJSON_CreateArray();
    if (p && (!cJSON_AddItemToArray(p, cJSON_CreateNumber(a)) ||
              !cJSON_AddItemToArray(p, cJSON_CreateNumber(b)))) {
        cJSON_Delete(p);
        return NULL;
    }
    return p;
}

/* A sentence hypothesis's alignment: "alignment" [[source token, target token]...] (each target
 * token with the source token it attends to most, xlate_hypothesis.alignment), and where the
 * spans are known "target_tokens" [[start, end]...] (bytes of "translation") and
 * "word_alignment" [[[source word], [target word]]...] (source words in the line's bytes,
 * target words in the translation's), each pair once. Returns 0, -1 out of memory. */
static int alignment_json(cJSON *obj, const xlate_translation *t, const xlate_segment *sg,
                          const xlate_hypothesis *hy, const char *text, const int *tsp)
{
    cJSON *al = cJSON_AddArrayToObject(obj, "alignment"), *tt, *wa, *x;
    int n = hy && hy->alignment ? hy->n : 0;
    if (!al)
        return -1;
    for (int j = 0; j < n; j++)
        if (hy->alignment[j] >= 0 && (!(x = pair(hy->alignment[j], j)) ||
                                      !cJSON_AddItemToArray(al, x)))
            return -1;
    if (!text || (!tsp && n > 0)) /* spans unknown (bytes replaced): the pairs alone */
        return 0;
    if (!(tt = cJSON_AddArrayToObject(obj, "target_tokens")))
        return -1;
    for (int j = 0; j < n; j++)
        if (!(x = pair(tsp[2 * j], tsp[2 * j + 1])) || !cJSON_AddItemToArray(tt, x))
            return -1;
    if (!sg->src_spans || !t->text)
        return 0;
    if (!(wa = cJSON_AddArrayToObject(obj, "word_alignment")))
        return -1;
    for (int j = 0; j < n; j++) {
        size_t sa, sb, ta, tb;
        int i = hy->alignment[j], seen = 0;
        cJSON *e;
        if (i < 0 || i >= sg->src_tokens ||
            !word_of(sg->src_spans, i, t->text, sg->start, sg->end, &sa, &sb) ||
            !word_of(tsp, j, text, 0, strlen(text), &ta, &tb))
            continue;
        cJSON_ArrayForEach(e, wa) { /* each pair once */
            cJSON *s0 = cJSON_GetArrayItem(e, 0), *t0 = cJSON_GetArrayItem(e, 1);
            seen |= cJSON_GetArrayItem(s0, 0)->valuedouble == (double)sa &&
                    cJSON_GetArrayItem(t0, 0)->valuedouble == (double)ta;
        }
        if (seen)
            continue;
        if (!(x = cJSON_CreateArray()) || !cJSON_AddItemToArray(wa, x) ||
            !(e = pair((double)sa, (double)sb)) || !cJSON_AddItemToArray(x, e) ||
            !(e = pair((double)ta, (double)tb)) || !cJSON_AddItemToArray(x, e))
            return -1;
    }
    return 0;
}

/* {"translation", "ids", "logprob", "score", "finished", "token_logprobs"} of hypothesis h of
 * a line (or of one of its sentences when sg); h < 0: an empty answer, eos alone with
 * log-probability 0 (the model is not run). No "translation" without a tokenizer. */
static cJSON *hyp_json(const output *o, const xlate_translation *t, const xlate_segment *sg,
                       int h, char *err, size_t errlen)
{
    const xlate_result *res = sg ? sg->res : t->res;
    const xlate_hypothesis *hy = h >= 0 && h < res->n_hyps ? &res->hyps[h] : NULL;
    cJSON *obj = cJSON_CreateObject(), *a;
    char *text = NULL;
    int *tsp = NULL; /* [2 * hy->n] the target tokens' bytes in text (alignments) */
    int ok = obj != NULL;
    if (ok && o->has_tokenizer) {
        int rc = 0;
        if (hy && sg && o->alignments &&
            xlate_detokenize_spans(o->model, hy->ids, hy->n, &text, &tsp, err, errlen) == 0) {
            size_t len = strlen(text);
            if (utf8_fix(&text) == 0 && strlen(text) != len) { /* bytes replaced: spans off */
                free(tsp);
                tsp = NULL;
            }
        } else if (hy) { /* (a model without target spans: the alignment pairs alone) */
            rc = sg ? xlate_detokenize(o->model, hy->ids, hy->n, &text, err, errlen)
                    : doc_line_text(o->model, t, h, &text, err, errlen);
        }
        if (rc) {
            cJSON_Delete(obj);
            return NULL;
        }
        if (text && utf8_fix(&text)) {
            free(text);
            free(tsp);
            cJSON_Delete(obj);
            xerr(err, errlen, "out of memory");
            return NULL;
        }
        ok = cJSON_AddStringToObject(obj, "translation", text ? text : "") != NULL;
    }
    ok = ok && (a = cJSON_AddArrayToObject(obj, "ids")) != NULL;
    for (int k = 0; ok && hy && k < hy->n; k++)
        ok = cJSON_AddItemToArray(a, cJSON_CreateNumber(hy->ids[k]));
    ok = ok && cJSON_AddItemToObject(obj, "logprob", json_float(hy ? hy->logprob : 0));
    ok = ok && cJSON_AddItemToObject(obj, "score", json_float(hy ? hy->score : 0));
    ok = ok && cJSON_AddBoolToObject(obj, "finished", hy ? hy->finished : 1);
    if (ok && o->token_scores) {
        int nt = 0;
        if (hy && sg)
            nt = hy->n + hy->finished;
        else if (hy) /* a line's: each of its sentences' tokens and eos */
            for (int k = 0; k < t->n_segments; k++) {
                int w = t->hyp_of ? t->hyp_of[h * t->n_segments + k] : h;
                if (w >= 0)
                    nt += t->segments[k].res->hyps[w].n + t->segments[k].res->hyps[w].finished;
            }
        ok = (a = cJSON_AddArrayToObject(obj, "token_logprobs")) != NULL;
        for (int k = 0; ok && hy && hy->token_logprobs && k < nt; k++)
            ok = cJSON_AddItemToArray(a, json_float(hy->token_logprobs[k]));
        if (ok && !hy) /* an empty answer is eos alone, with certainty */
            ok = cJSON_AddItemToArray(a, json_float(0));
    }
    if (ok && sg && o->alignments)
        ok = alignment_json(obj, t, sg, hy, text, tsp) == 0;
    free(text);
    free(tsp);
    if (!ok) {
        cJSON_Delete(obj);
        xerr(err, errlen, "out of memory");
        return NULL;
    }
    return obj;
}

/* The line's (or sentence's) answer into obj: its fields, or with n_best > 1 "hypotheses". */
static int answer_json(const output *o, cJSON *obj, const xlate_translation *t,
                       const xlate_segment *sg, char *err, size_t errlen)
{
    if (o->n_best > 1) {
        cJSON *arr = cJSON_AddArrayToObject(obj, "hypotheses");
        if (!arr)
            return xerr(err, errlen, "out of memory");
        for (int h = 0; h < o->n_best; h++) { /* an empty line: n_best empty answers */
            cJSON *one = hyp_json(o, t, sg, h, err, errlen);
            if (!one)
                return -1;
            cJSON_AddItemToArray(arr, one);
        }
        return 0;
    }
    cJSON *one = hyp_json(o, t, sg, 0, err, errlen), *it;
    if (!one)
        return -1;
    while ((it = one->child)) { /* its fields, moved into obj in order */
        cJSON_DetachItemViaPointer(one, it);
        cJSON_AddItemToObject(obj, it->string, it);
    }
    cJSON_Delete(one);
    return 0;
}

/* "sentences": [{"source", "span": [start, end], translation fields...}] */
static int sentences_json(const output *o, cJSON *obj, const xlate_translation *t, char *err,
                          size_t errlen)
{
    cJSON *arr = cJSON_AddArrayToObject(obj, "sentences");
    if (!arr)
        return xerr(err, errlen, "out of memory");
    for (int k = 0; k < t->n_segments; k++) {
        const xlate_segment *sg = &t->segments[k];
        cJSON *one = cJSON_CreateObject(), *span;
        cJSON *src;
        int ok = one != NULL;
        if (ok && t->text)
            ok = (src = json_string_n(t->text + sg->start, sg->end - sg->start)) &&
                 cJSON_AddItemToObject(one, "source", src);
        ok = ok && (span = cJSON_AddArrayToObject(one, "span")) != NULL &&
             cJSON_AddItemToArray(span, cJSON_CreateNumber((double)sg->start)) &&
             cJSON_AddItemToArray(span, cJSON_CreateNumber((double)sg->end));
        if (ok && o->alignments && sg->src_spans) {
            cJSON *st = cJSON_AddArrayToObject(one, "source_tokens"), *x;
            ok = st != NULL;
            for (int i = 0; ok && i < sg->src_tokens; i++)
                ok = (x = pair(sg->src_spans[2 * i], sg->src_spans[2 * i + 1])) &&
                     cJSON_AddItemToArray(st, x);
        }
        if (!ok) {
            cJSON_Delete(one);
            return xerr(err, errlen, "out of memory");
        }
        cJSON_AddItemToArray(arr, one);
        if (answer_json(o, one, t, sg, err, errlen))
            return -1;
    }
    return 0;
}

/* "detectedLanguage": {"confidence": 0-100, "language": CODE} of the line, as LibreTranslate's
 * /translate answers source "auto" (xlate_detect_language over every language it knows); a
 * line it cannot tell: the run's source language (detect_fallback) with confidence 0. */
static int detected_json(const output *o, cJSON *root, const xlate_translation *t, char *err,
                         size_t errlen)
{
    xlate_lang_guess g;
    int n = xlate_detect_language(t->text ? t->text : "", t->text ? t->len : 0, NULL, 0, &g, 1,
                                  err, errlen);
    cJSON *d = cJSON_AddObjectToObject(root, "detectedLanguage");
    if (n < 0)
        return -1;
    if (!d || !cJSON_AddNumberToObject(d, "confidence",
                                       n ? (double)(int)(1000 * g.confidence + 0.5) / 10 : 0) ||
        !(n || o->detect_fallback ? cJSON_AddStringToObject(d, "language", n ? g.lang :
                                                            o->detect_fallback)
                                  : cJSON_AddNullToObject(d, "language")))
        return xerr(err, errlen, "out of memory");
    return 0;
}

static int write_jsonl(const output *o, const xlate_translation *t, char *err, size_t errlen)
{
    cJSON *root = cJSON_CreateObject();
    char *s;
    if (!root)
        return xerr(err, errlen, "out of memory");
    int pre = 0;
    for (int k = 0; k < t->n_segments; k++)
        pre += t->segments[k].prefix_len;
    if (o->detect && detected_json(o, root, t, err, errlen)) {
        cJSON_Delete(root);
        return -1;
    }
    if (answer_json(o, root, t, NULL, err, errlen) ||
        (pre && !cJSON_AddNumberToObject(root, "prefix_length", pre) &&
         xerr(err, errlen, "out of memory")) ||
        (o->sentences && sentences_json(o, root, t, err, errlen))) {
        cJSON_Delete(root);
        return -1;
    }
    if (!(s = cJSON_PrintUnformatted(root))) {
        cJSON_Delete(root);
        return xerr(err, errlen, "out of memory");
    }
    writer_puts(o->w, s);
    writer_put(o->w, "\n", 1);
    free(s);
    cJSON_Delete(root);
    return 0;
}

/* Hypothesis h of the line as text or ids (nothing where it has none). */
static int write_hyp(const output *o, const xlate_translation *t, int h, char *err,
                     size_t errlen)
{
    char *text;
    if (h >= t->res->n_hyps)
        return 0;
    if (o->fmt == FMT_IDS) {
        put_ids(o->w, t->res->hyps[h].ids, t->res->hyps[h].n);
        return 0;
    }
    if (doc_line_text(o->model, t, h, &text, err, errlen)) /* (its URLs kept) */
        return -1;
    writer_puts(o->w, text);
    free(text);
    return 0;
}

int output_line(const output *o, const xlate_translation *t, char *err, size_t errlen)
{
    if (o->fmt == FMT_JSONL)
        return write_jsonl(o, t, err, errlen);
    if (o->n_best > 1) {
        for (int h = 0; h < o->n_best; h++) {
            char buf[48];
            snprintf(buf, sizeof buf, "%ld ||| ", t->index);
            writer_puts(o->w, buf);
            if (write_hyp(o, t, h, err, errlen))
                return -1;
            snprintf(buf, sizeof buf, " ||| %.6f\n",
                     h < t->res->n_hyps ? (double)t->res->hyps[h].score : 0.0);
            writer_puts(o->w, buf);
        }
        return 0;
    }
    if (write_hyp(o, t, 0, err, errlen))
        return -1;
    writer_put(o->w, "\n", 1);
    return 0;
}
