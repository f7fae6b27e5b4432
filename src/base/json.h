/* json.h — strict JSON for every file xlate reads (config.json, safetensors headers, the
 * Hugging Face files): one value, nothing after it but whitespace. cJSON does the parsing. */
#ifndef XLATE_JSON_H
#define XLATE_JSON_H
#include <cJSON.h>
#include <stddef.h>

/* Parses text[0, len) as exactly one JSON value followed only by JSON whitespace (space, tab,
 * CR, LF). On failure returns NULL and writes "<what>: line L (byte B): <why>" to err, B being
 * the 0-based offset of the first byte that is not accepted. The caller frees with
 * cJSON_Delete. */
cJSON *json_parse_strict(const char *text, size_t len, const char *what, char *err,
                         size_t errlen);

/* "a number", "a string", "a boolean", "null", "an array", "an object". */
const char *json_type_name(const cJSON *v);

#endif
