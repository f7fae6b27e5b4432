/* json.c — strict parsing over cJSON: the whole buffer must be one value (cJSON alone stops
 * after the first value and ignores what follows, so `{...}garbage` would pass), in UTF-8,
 * without \u0000 in strings or a key twice in an object; number literals kept for json_int(). */
#include "base/json.h"
#include "base/util.h"
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t line_of(const char *text, size_t off)
{
    size_t line = 1;
    for (size_t i = 0; i < off; i++)
        line += text[i] == '\n';
    return line;
}

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* Length of the UTF-8 sequence at s[0, n), or 0 when it is not one (overlong forms,
 * surrogates and code points past U+10FFFF are not). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t k;
    unsigned lo = 0x80, hi = 0xBF;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        k = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        k = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        k = 4;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    } else
        return 0;
    if (n < k || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < k; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return k;
}

/* Checks the text of a value cJSON accepted, text[0, len), for what cJSON lets pass: bytes
 * that are not UTF-8, \u0000, raw control bytes in a string (JSON wants them escaped), and any
 * byte below 0x20 but space, tab, CR and LF between tokens (cJSON skips them all as blanks).
 * A UTF-8 byte order mark at the start is let pass, as RFC 8259 allows (cJSON skips it). */
static int check_text(const char *text, size_t len, const char *what, char *err, size_t errlen)
{
    const unsigned char *s = (const unsigned char *)text;
    int in_string = 0;
    size_t i = len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    while (i < len) {
        size_t k = utf8_len(s + i, len - i);
        if (!k)
            return xerr(err, errlen, "%s: line %zu (byte %zu): not valid UTF-8", what,
                        line_of(text, i), i);
        if (s[i] < 0x20 && (in_string || !is_ws((char)s[i])))
            return xerr(err, errlen, "%s: line %zu (byte %zu): control byte 0x%02x %s", what,
                        line_of(text, i), i, s[i],
                        in_string ? "in a string (write it escaped)" : "between JSON tokens");
        if (s[i] == '"')
            in_string = !in_string;
        else if (in_string && s[i] == '\\') {
            if (i + 5 < len && s[i + 1] == 'u' && memcmp(s + i + 2, "0000", 4) == 0)
                return xerr(err, errlen, "%s: line %zu (byte %zu): a string holds \\u0000, "
                            "which no name or text may contain", what, line_of(text, i), i);
            k = 2; /* the escaped character, whatever it is, is not the end of the string */
        }
        i += k;
    }
    return 0;
}

/* 1 when s[0, n) is a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? (cJSON reads
 * with strtod, which also takes 03, 1. and 1.e5). */
static int json_number(const char *s, size_t n)
{
    size_t i = s[0] == '-', d;
    if (i >= n || !(s[i] >= '0' && s[i] <= '9'))
        return 0;
    if (s[i] == '0')
        i++;
    else
        while (i < n && s[i] >= '0' && s[i] <= '9')
            i++;
    if (i < n && s[i] == '.') {
        for (d = ++i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            ;
        if (i == d)
            return 0;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i += 1 + (i + 1 < n && (s[i + 1] == '+' || s[i + 1] == '-'));
        for (d = i; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            ;
        if (i == d)
            return 0;
    }
    return i == n;
}

/* The next number literal in text from *pos on, outside strings: its start and length. */
static int next_number(const char *text, size_t len, size_t *pos, size_t *start, size_t *n)
{
    size_t i = *pos;
    while (i < len) {
        char c = text[i];
        if (c == '"') {
            for (i++; i < len && text[i] != '"'; i++)
                if (text[i] == '\\')
                    i++;
            i++;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            *start = i;
            while (i < len && strchr("0123456789+-.eE", text[i]))
                i++;
            *n = i - *start;
            *pos = i;
            return 1;
        } else {
            i++;
        }
    }
    *pos = i;
    return 0;
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Walks the tree in document order: gives every number node its literal (the number literals
 * of the text come in the same order), and refuses a key twice in one object. */
static int walk(cJSON *v, const char *parent, const char *text, size_t len, size_t *pos,
                const char *what, char *err, size_t errlen)
{
    if (cJSON_IsNumber(v)) {
        size_t start = 0, n = 0;
        if (!next_number(text, len, pos, &start, &n))
            return xerr(err, errlen, "%s: internal error: a number without its literal", what);
        if (!json_number(text + start, n))
            return xerr(err, errlen, "%s: line %zu (byte %zu): %.*s is not a JSON number", what,
                        line_of(text, start), start, (int)(n > 40 ? 40 : n), text + start);
        if (!(v->valuestring = malloc(n + 1)))
            return xerr(err, errlen, "%s: out of memory", what);
        memcpy(v->valuestring, text + start, n);
        v->valuestring[n] = 0;
        return 0;
    }
    if (cJSON_IsObject(v) && v->child && v->child->next) {
        int n = cJSON_GetArraySize(v), k = 0;
        const char **keys = malloc((size_t)n * sizeof *keys);
        const cJSON *c;
        if (!keys)
            return xerr(err, errlen, "%s: out of memory", what);
        cJSON_ArrayForEach(c, v) keys[k++] = c->string;
        qsort(keys, (size_t)n, sizeof *keys, cmp_key);
        for (k = 1; k < n && strcmp(keys[k - 1], keys[k]) != 0; k++)
            ;
        if (k < n) {
            if (parent)
                xerr(err, errlen, "%s: key \"%.64s\" appears twice in \"%.64s\"", what, keys[k],
                     parent);
            else
                xerr(err, errlen, "%s: key \"%.64s\" appears twice", what, keys[k]);
            free(keys);
            return -1;
        }
        free(keys);
    }
    for (cJSON *c = v->child; c; c = c->next)
        if (walk(c, cJSON_IsObject(v) ? c->string : parent, text, len, pos, what, err, errlen))
            return -1;
    return 0;
}

cJSON *json_parse_strict(const char *text, size_t len, const char *what, char *err,
                         size_t errlen)
{
    const char *end = NULL;
    cJSON *root;
    size_t off, pos = 0;

    if (!text || len == 0) {
        xerr(err, errlen, "%s: empty, expected a JSON value", what);
        return NULL;
    }
    root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        /* cJSON reports where it stopped through end (the error position). It skips every
         * byte <= 0x20 as a blank, so it stops past a run of NULs or other control bytes (an
         * all-NUL file: at its last byte); the first byte the rules refuse up to there comes
         * first (issue 27) */
        size_t lim;
        off = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
        lim = off < len ? off + 1 : len;
        while (lim < len && ((unsigned char)text[lim] & 0xC0) == 0x80)
            lim++; /* the whole UTF-8 sequence at off */
        if (check_text(text, lim, what, err, errlen))
            return NULL;
        xerr(err, errlen, "%s: line %zu (byte %zu): not valid JSON", what, line_of(text, off),
             off);
        return NULL;
    }
    off = (size_t)(end - text);
    while (off < len && is_ws(text[off]))
        off++;
    if (off < len) {
        xerr(err, errlen, "%s: line %zu (byte %zu): unexpected content after the JSON value",
             what, line_of(text, off), off);
        cJSON_Delete(root);
        return NULL;
    }
    if (check_text(text, len, what, err, errlen) ||
        walk(root, NULL, text, len, &pos, what, err, errlen)) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

int json_int(const cJSON *v, int64_t min, int64_t max, int64_t *out, const char *what,
             const char *field, char *err, size_t errlen)
{
    const char *lit = cJSON_IsNumber(v) ? v->valuestring : NULL;
    char *end = NULL;
    long long x = 0;
    int integral = 0;
    if (lit) {
        const char *d = lit + (lit[0] == '-');
        integral = d[0] >= '0' && d[0] <= '9' && d[strspn(d, "0123456789")] == 0;
        if (integral) {
            errno = 0;
            x = strtoll(lit, &end, 10);
            integral = errno == 0;
        }
    } else if (cJSON_IsNumber(v)) {
        /* a tree not made by json_parse_strict: the value, when it is a safe integer */
        double d = v->valuedouble;
        integral = d >= -9007199254740992.0 && d <= 9007199254740992.0 && d == (double)(long long)d;
        x = integral ? (long long)d : 0;
    }
    if (!cJSON_IsNumber(v))
        return xerr(err, errlen, "%s: %s: expected an integer, got %s", what, field,
                    JSON_GOT(v));
    if (!integral || x < min || x > max) {
        if (lit)
            return xerr(err, errlen, "%s: %s: expected an integer in [%" PRId64 ", %" PRId64
                        "], got %.40s%s", what, field, min, max, lit,
                        strpbrk(lit, ".eE") ? " (an integer is written without a fraction or "
                                              "exponent)" : "");
        return xerr(err, errlen, "%s: %s: expected an integer in [%" PRId64 ", %" PRId64
                    "], got %g", what, field, min, max, v->valuedouble);
    }
    *out = (int64_t)x;
    return 0;
}

cJSON *json_parse_object(const char *text, size_t len, const char *what, char *err,
                         size_t errlen)
{
    cJSON *root = json_parse_strict(text, len, what, err, errlen);
    if (root && !cJSON_IsObject(root)) {
        xerr(err, errlen, "%s: expected a JSON object at the top, got %s", what,
             json_type_name(root));
        cJSON_Delete(root);
        root = NULL;
    }
    return root;
}

const char *json_type_name(const cJSON *v)
{
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsObject(v)) return "an object";
    return "an invalid value";
}

const char *json_what(const cJSON *v, char *buf, size_t n)
{
    char q[200];
    if (cJSON_IsNumber(v)) {
        if (v->valuestring)
            snprintf(buf, n, "a number (%s)", str_quote(q, sizeof q, v->valuestring,
                                                       strlen(v->valuestring)));
        else
            snprintf(buf, n, "a number (%.17g)", v->valuedouble);
    } else if (cJSON_IsString(v)) {
        snprintf(buf, n, "a string (\"%s\")", str_quote(q, sizeof q, v->valuestring,
                                                          strlen(v->valuestring)));
    } else if (cJSON_IsBool(v)) {
        snprintf(buf, n, "a boolean (%s)", cJSON_IsTrue(v) ? "true" : "false");
    } else {
        snprintf(buf, n, "%s", json_type_name(v));
    }
    return buf;
}
