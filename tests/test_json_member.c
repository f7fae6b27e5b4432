/* test_json_member.c — json_member_mem / json_member_file (src/base/json_member.c): the value of
 * one top-level member, read without parsing the rest. Expected values are written here by
 * hand (the value's text and its offset, found in the test's own string), or are cJSON's
 * parse of the whole text where that text is valid JSON. */
#include "base/json.h"
#include "check.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The member of json; want: its text (NULL: absent), which appears once in json: the offset
 * expected is where. */
static void good(const char *what, const char *json, const char *want)
{
    char err[256] = "", *text = NULL;
    size_t len = 0, at = 0, want_at = 0;
    int rc = json_member_mem(json, strlen(json), "added_tokens", 1 << 20, &text, &len, &at,
                             "t.json", err, sizeof err);
    if (want) /* each case's value text appears once in it */
        want_at = (size_t)(strstr(json, want) - json);
    check(rc == 0 && (want ? text && len == strlen(want) && strcmp(text, want) == 0 &&
                                 at == want_at
                           : text == NULL),
          what, "rc %d (%s), got \"%s\" at %zu, want \"%s\" at %zu", rc, err,
          text ? text : "(none)", at, want ? want : "(none)", want_at);
    free(text);
}

static void bad(const char *what, const char *json, size_t n, size_t max, const char *want)
{
    char err[256] = "", *text = NULL;
    size_t len = 0, at = 0;
    int rc = json_member_mem(json, n, "added_tokens", max, &text, &len, &at, "t.json", err,
                             sizeof err);
    check(rc != 0 && text == NULL && strstr(err, want) != NULL, what,
          "rc %d, message \"%s\", want \"%s\"", rc, err, want);
    free(text);
}

/* The member read by the skimmer, parsed, equals the whole text's parse's member. */
static void same_as_cjson(const char *what, const char *json)
{
    char err[256] = "", *text = NULL, *a = NULL, *b = NULL;
    size_t len = 0, at = 0;
    cJSON *whole = json_parse_object(json, strlen(json), "whole", err, sizeof err), *part = NULL;
    int rc = json_member_mem(json, strlen(json), "added_tokens", 1 << 20, &text, &len, &at,
                             "t.json", err, sizeof err);
    if (rc == 0 && text)
        part = json_parse_strict(text, len, "part", err, sizeof err);
    if (whole && part) {
        a = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(whole, "added_tokens"));
        b = cJSON_PrintUnformatted(part);
    }
    check(a && b && strcmp(a, b) == 0, what, "%s / %s (%s)", a ? a : "-", b ? b : "-", err);
    free(a);
    free(b);
    free(text);
    cJSON_Delete(whole);
    cJSON_Delete(part);
}

int main(void)
{
    static char deep[3000], big[300000];
    char path[] = "/tmp/xlate-json-member-XXXXXX", err[256], *text = NULL;
    size_t len, at, n;
    FILE *f;
    int fd, rc;

    good("an array after other members", "{\"version\": \"1.0\", \"truncation\": null, "
         "\"added_tokens\": [{\"id\": 0, \"content\": \"<s>\"}], \"model\": {}}",
         "[{\"id\": 0, \"content\": \"<s>\"}]");
    good("the first member", "{\"added_tokens\":[1,2]}", "[1,2]");
    good("brackets and quotes inside strings do not count",
         "{\"added_tokens\": [\"]}\\\"[{\", {\"a\": \"\\\\\"}], \"b\": 1}",
         "[\"]}\\\"[{\", {\"a\": \"\\\\\"}]");
    good("a key inside another member's value is not the top one",
         "{\"m\": {\"added_tokens\": [1]}, \"s\": \"\\\"added_tokens\\\": [9]\", "
         "\"added_tokens\": [2]}", "[2]");
    good("a literal value ends before the byte that ends it", "{\"added_tokens\": 5}", "5");
    good("true", "{\"a\": 1,\"added_tokens\":true,\"b\":2}", "true");
    good("a string value", "{\"added_tokens\": \"x\\\"y\"}", "\"x\\\"y\"");
    good("absent: no such member", "{\"a\": [1, {\"added_tokens\": 2}], \"b\": \"added_tokens\"}",
         NULL);
    good("absent: an empty object", " {} ", NULL);
    good("a key spelled with escapes is the key it spells",
         "{\"added\\u005fto\\u00e9kens\": [0], \"added\\u005ftokens\": [1]}", "[1]");
    /* issue 37: the key twice is refused, as the strict parser refuses it (Python's json would
     * take the last, this reader took the first), so the rest is skimmed to the end */
    bad("the key twice, spelled two ways: refused",
        "{\"added\\u005ftokens\": [1], \"added_tokens\": [3]}", 46, 100,
        "t.json: byte 27: key \"added_tokens\" appears twice (first at byte 1)");
    bad("the key twice: refused", "{\"added_tokens\": [4], \"added_tokens\": [5]}", 42, 100,
        "t.json: byte 22: key \"added_tokens\" appears twice (first at byte 1)");
    good("another key twice after the value is not this reader's to judge",
         "{\"added_tokens\": [4], \"a\": 1, \"a\": 2}", "[4]");
    bad("the rest is skimmed: a broken tail after the value",
        "{\"added_tokens\": [6], \"model\": {\"vocab\": [[\"a\", 1", 48, 100,
        "t.json: byte 48: the text ends where the end of an array or object was expected");
    same_as_cjson("parsed, it equals the whole text's member (cJSON)",
                  "{\"version\":\"1.0\",\"added_tokens\":[{\"id\":256204,\"content\":\"zul_Latn\","
                  "\"single_word\":false,\"lstrip\":false,\"rstrip\":false,\"normalized\":false,"
                  "\"special\":true},{\"id\":7,\"content\":\"\\u00e9\\n\\\"\"}],\"normalizer\":null}");

    bad("not an object", "[1]", 3, 100, "t.json: byte 0: expected a JSON object at the top");
    /* docs/FORMAT.md: one mark at byte 0 is let pass, a second or one after a blank is not */
    good("a byte order mark at byte 0 is let pass", "\xef\xbb\xbf{\"added_tokens\": [2]}", "[2]");
    bad("a second byte order mark", "\xef\xbb\xbf\xef\xbb\xbf{}", 8, 100,
        "t.json: byte 3: a byte order mark");
    bad("a byte order mark after a blank", " \xef\xbb\xbf{}", 6, 100,
        "t.json: byte 1: a byte order mark");
    bad("empty", "", 0, 100, "t.json: byte 0: the text ends where an object ({) was expected");
    bad("a string never closed", "{\"a\": \"xyz", 10, 100,
        "t.json: byte 10: the text ends where the end of a string (\") was expected");
    good("a string's bytes are not judged before the member (a raw newline)",
         "{\"a\": \"x\ny\", \"added_tokens\": [8]}", "[8]");
    good("a \\u without 4 hex digits ends the key as cJSON reads it (\"added\")",
         "{\"added\\u_tokens\": [0], \"added\\u005Ftokens\": [9]}", "[9]");
    bad("a bracket closing the wrong kind", "{\"a\": [1}", 9, 100,
        "t.json: byte 8: '}' closes an array");
    bad("no colon", "{\"a\" 1}", 7, 100, "t.json: byte 5: expected ':' after the key \"a\"");
    bad("no comma", "{\"a\": 1 \"b\": 2}", 15, 100,
        "t.json: byte 8: expected ',' or '}' after the value of \"a\"");
    bad("not a value", "{\"a\": #}", 8, 100, "t.json: byte 6: expected a value, got the byte 0x23");
    bad("the member's value cut off", "{\"added_tokens\": [1, 2", 22, 100,
        "t.json: byte 22: the text ends where the end of an array or object was expected");
    bad("the member's value over max bytes", "{\"added_tokens\": [1, 2, 3, 4]}", 30, 8,
        "t.json: byte 25: the member's value passes 8 bytes");
    n = (size_t)snprintf(deep, sizeof deep, "{\"a\": ");
    for (int i = 0; i < 1025; i++)
        deep[n++] = '[';
    bad("nested deeper than 1024", deep, n, 100, "t.json: byte 1030: nested deeper than 1024");
    n = (size_t)snprintf(deep, sizeof deep, "{\"a\": ");
    for (int i = 0; i < 1024; i++)
        deep[n++] = '[';
    for (int i = 0; i < 1024; i++)
        deep[n++] = ']';
    n += (size_t)snprintf(deep + n, sizeof deep - n, ", \"added_tokens\": [7]}");
    good("1024 deep is followed", deep, "[7]");

    /* a file: the member after 200 kB (past the 64 kB blocks), and a broken tail after it */
    fd = mkstemp(path);
    f = fd >= 0 ? fdopen(fd, "w") : NULL;
    n = (size_t)snprintf(big, sizeof big, "{\"model\": {\"vocab\": [");
    while (n < 200000)
        n += (size_t)snprintf(big + n, sizeof big - n, "[\"\\u2581p%zu\", -1.5], ", n);
    n += (size_t)snprintf(big + n, sizeof big - n,
                          "[\"]\", 0]]}, \"added_tokens\": [{\"id\": 1}], \"x\": [[[]]]}");
    if (f) {
        fwrite(big, 1, n, f);
        fclose(f);
    }
    rc = json_member_file(path, "added_tokens", 1 << 20, &text, &len, &at, err, sizeof err);
    check(rc == 0 && text && strcmp(text, "[{\"id\": 1}]") == 0 &&
              at == (size_t)(strstr(big, "\"added_tokens\": ") + 16 - big),
          "a file: the member after 200 kB, read across blocks, the rest skimmed",
          "rc %d (%s) \"%s\" at %zu", rc, rc ? err : "", text ? text : "-", at);
    free(text);
    text = NULL;
    f = fopen(path, "w");
    if (f) {
        fwrite(big, 1, 150000, f);
        fclose(f);
    }
    rc = json_member_file(path, "added_tokens", 1 << 20, &text, &len, &at, err, sizeof err);
    check(rc != 0 && !text && strstr(err, path) && strstr(err, ": byte 150000: the text ends"),
          "a file cut before the member: the message names the file and the byte", "rc %d: %s",
          rc, err);
    unlink(path);
    rc = json_member_file(path, "added_tokens", 1 << 20, &text, &len, &at, err, sizeof err);
    check(rc != 0 && strstr(err, path) && strstr(err, "No such file"),
          "a missing file: the message names it", "rc %d: %s", rc, err);
    return check_done();
}
