/* json.h — strict JSON for every file xlate reads (config.json, safetensors headers, the
 * Hugging Face files), and the rules for reading its fields. cJSON does the parsing.
 *
 * The rules, the same in every file (docs/FORMAT.md "JSON"):
 *   - one value; after it only JSON whitespace (space, tab, CR, LF);
 *   - UTF-8 throughout; no string holds \u0000 (names and texts are C strings);
 *   - no object has the same key twice;
 *   - an integer field takes an integer literal: digits with an optional minus sign, as
 *     Python's json.dump and the safetensors library write integers. 3.0, 3e0 and 3.5 are
 *     refused: JSON itself does not tell 3.0 from 3, but a writer that means an integer writes
 *     3, and the safetensors reference library refuses 256.0 as a size. */
#ifndef XLATE_JSON_H
#define XLATE_JSON_H
#include <cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* Parses text[0, len) by the rules above. On failure returns NULL and writes
 * "<what>: line L (byte B): <why>" to err, B a 0-based offset into text: the first byte after
 * the value that is not whitespace, the first byte that is not UTF-8, the backslash of a
 * \u0000; for a syntax error, where cJSON stopped (at the bad byte or just after it). A key
 * twice: "<what>: key "k" appears twice [in "<parent key>"]". The caller
 * frees with cJSON_Delete. Every number node of the tree keeps its literal, as written, in
 * valuestring (freed by cJSON_Delete), for json_int(). */
cJSON *json_parse_strict(const char *text, size_t len, const char *what, char *err,
                         size_t errlen);

/* Reads v, a node of a json_parse_strict tree, as an integer in [min, max] into *out, exactly
 * (from its literal, so 2^53 + 1 stays itself). On failure returns -1 and writes
 * "<what>: <field>: expected an integer in [min, max], got <the literal, or v's type>" to err;
 * `field` says where v is, e.g. `field "eos_id"` or `tensor "w": "shape"[1]`. */
int json_int(const cJSON *v, int64_t min, int64_t max, int64_t *out, const char *what,
             const char *field, char *err, size_t errlen);

/* json_parse_strict of a file whose top value must be an object; else NULL and "<what>:
 * expected a JSON object at the top, got <type>". */
cJSON *json_parse_object(const char *text, size_t len, const char *what, char *err,
                         size_t errlen);

/* "a number", "a string", "a boolean", "null", "an array", "an object". */
const char *json_type_name(const cJSON *v);

/* v for a "got ..." message: its type and, for a scalar, its value, so a message never says
 * only "got a number" (issue 27): "a number (1e5)" (the literal as written, from a
 * json_parse_strict tree, else %.17g), "a string ("x\x0a...")" (quoted, escaped, cut at 40
 * bytes), "a boolean (true)", "null", "an array", "an object". Written into buf; returns buf.
 * JSON_GOT(v): the same into a buffer of the enclosing block (a compound literal). */
const char *json_what(const cJSON *v, char *buf, size_t n);
#define JSON_GOT(v) json_what((v), (char[96]){0}, 96)

/* The value of the top object's member `key` in the JSON file at path, read without parsing the
 * rest of the file (json_member.c): the file is read in 64 KB blocks and skimmed up to the key
 * (strings and their escapes, the nesting of arrays and objects followed, at most 1024 deep;
 * nothing checked further: the value is for json_parse_strict), the value's text copied out (at
 * most max bytes), the rest skimmed to the object's end: the key twice is refused (keys
 * compared unescaped), as json_parse_strict refuses a key twice; one byte order mark at byte
 * 0 is let pass (docs/FORMAT.md). Returns 0 with *text (malloc'd, NUL-terminated,
 * *len bytes, *offset its first byte in the file), or *text NULL when the object has no such
 * member; -1 and "<path>: byte B: <why>" (B a 0-based offset into the file) when the text ends
 * or goes wrong before the value's end, or the value passes max bytes. */
int json_member_file(const char *path, const char *key, size_t max, char **text, size_t *len,
                     size_t *offset, char *err, size_t errlen);
/* The same over json[0, json_len) in memory; messages name `what`. */
int json_member_mem(const char *json, size_t json_len, const char *key, size_t max,
                    char **text, size_t *len, size_t *offset, const char *what, char *err,
                    size_t errlen);

#endif
