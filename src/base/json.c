/* json.c — strict parsing over cJSON: the whole buffer must be one value (cJSON alone stops
 * after the first value and ignores what follows, so `{...}garbage` would pass). */
#include "base/json.h"
#include "base/util.h"

static size_t line_of(const char *text, size_t off)
{
    size_t line = 1;
    for (size_t i = 0; i < off; i++)
        line += text[i] == '\n';
    return line;
}

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

cJSON *json_parse_strict(const char *text, size_t len, const char *what, char *err,
                         size_t errlen)
{
    const char *end = NULL;
    cJSON *root;
    size_t off;

    if (!text || len == 0) {
        xerr(err, errlen, "%s: empty, expected a JSON value", what);
        return NULL;
    }
    root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        /* cJSON reports where it stopped through end (the error position) */
        off = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
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
