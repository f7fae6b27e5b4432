/* json_member.c — one member of a large JSON object read without parsing the rest (json.h
 * json_member_file): the text is skimmed, strings with their escapes and the nesting of arrays
 * and objects followed but nothing built, up to the member's key; the member's value is copied
 * out and the rest skimmed to the object's end, for a second member with the key (refused, as
 * the strict parser refuses a key twice). A file is read in blocks, so a member of a large
 * file (tokenizer.json's "added_tokens", before its 17 MB "model" in NLLB-200's) costs a few
 * kilobytes of memory and one skim of the file. */
#include "base/json.h"
#include "base/util.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKIM_BLOCK 65536
#define SKIM_DEPTH 1024 /* nesting followed; deeper is refused (the strict parser's cJSON
                           refuses past 1000 too) */
#define SKIM_RAW 128    /* a key's bytes as written kept: a longer one is not a key looked for
                           (at most 6 written bytes a character, \\u0061: 21 characters) */

/* The bytes: a file read in blocks, or a text in memory. */
typedef struct {
    FILE *f;
    const char *mem;
    size_t mem_len;
    unsigned char buf[SKIM_BLOCK];
    size_t have, at;  /* buf[at, have): unread */
    size_t off;       /* the offset of the next byte */
    int io_errno;     /* a read error (errno), 0: none */
    char *cap;        /* the member's value so far (NULL: not capturing), cap_size bytes */
    size_t cap_n, cap_size, cap_max; /* cap_max: the value's bytes allowed */
    int cap_over;     /* the value passed cap_max */
} skim;

/* The next byte, or -1 at the end (or a read error: io_errno). */
static int next(skim *s)
{
    int c;
    if (s->mem) {
        if (s->off >= s->mem_len)
            return -1;
        c = (unsigned char)s->mem[s->off];
    } else {
        if (s->at == s->have) {
            s->have = fread(s->buf, 1, sizeof s->buf, s->f);
            s->at = 0;
            if (s->have == 0) {
                if (ferror(s->f))
                    s->io_errno = errno ? errno : EIO;
                return -1;
            }
        }
        c = s->buf[s->at++];
    }
    s->off++;
    if (s->cap) {
        if (s->cap_n >= s->cap_max) {
            s->cap_over = 1;
            return -1;
        }
        if (s->cap_n + 2 > s->cap_size) {
            size_t n = s->cap_size * 2;
            char *q;
            if (!(q = realloc(s->cap, n))) {
                s->cap_over = 2;
                return -1;
            }
            s->cap = q;
            s->cap_size = n;
        }
        s->cap[s->cap_n++] = (char)c;
    }
    return c;
}

static int is_ws(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int next_nonws(skim *s)
{
    int c;
    while ((c = next(s)) >= 0 && is_ws(c))
        ;
    return c;
}

/* Why the bytes ended: a read error, the copy's bound, or the end of the text. */
static int ended(skim *s, const char *what, const char *expect, char *err, size_t errlen)
{
    if (s->io_errno)
        return xerr(err, errlen, "%s: byte %zu: %s", what, s->off, strerror(s->io_errno));
    if (s->cap_over == 1)
        return xerr(err, errlen, "%s: byte %zu: the member's value passes %zu bytes", what,
                    s->off - 1, s->cap_max);
    if (s->cap_over == 2)
        return xerr(err, errlen, "%s: out of memory", what);
    return xerr(err, errlen, "%s: byte %zu: the text ends where %s was expected", what, s->off,
                expect);
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A key as cJSON reads it, from its text as written (raw[0, n)), into key: the escapes
 * decoded, a \\u escape past ASCII as one byte 0xff (the keys looked for are ASCII, so such a
 * key is never one of them), a \\u without 4 hex digits as cJSON's code point 0, which ends
 * its C string. Returns the key's length. */
static size_t unescape_key(const char *raw, size_t n, char *key)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int b = (unsigned char)raw[i];
        if (b == '\\' && i + 1 < n) {
            int c = (unsigned char)raw[++i];
            switch (c) {
            case 'b': b = '\b'; break;
            case 'f': b = '\f'; break;
            case 'n': b = '\n'; break;
            case 'r': b = '\r'; break;
            case 't': b = '\t'; break;
            case 'u': {
                int v = 0, h = 0;
                for (size_t d = i + 1; d < i + 5 && h >= 0; d++)
                    if ((h = d < n ? hexval((unsigned char)raw[d]) : -1) >= 0)
                        v = v * 16 + h;
                if (h < 0 || v == 0)
                    return o;
                i += 4;
                b = v < 0x80 ? v : 0xff;
                break;
            }
            default: b = c; /* \" \\ \/ */
            }
        }
        key[o++] = (char)b;
    }
    return o;
}

/* A string, its opening quote read: to the quote that closes it (a backslash escapes the byte
 * after it, as cJSON finds a string's end), nothing checked (the member's value is parsed
 * strictly after; the rest is not the skim's to judge). With raw != NULL its first SKIM_RAW
 * bytes as written go there, *rlen its length as written. */
static int skim_string(skim *s, char *raw, size_t *rlen, const char *what, char *err,
                       size_t errlen)
{
    size_t n = 0;
    int c;
    for (;;) {
        if ((c = next(s)) < 0)
            return ended(s, what, "the end of a string (\")", err, errlen);
        if (c == '"')
            break;
        if (raw && n < SKIM_RAW)
            raw[n] = (char)c;
        n++;
        if (c == '\\') {
            if ((c = next(s)) < 0)
                return ended(s, what, "an escape", err, errlen);
            if (raw && n < SKIM_RAW)
                raw[n] = (char)c;
            n++;
        }
    }
    if (rlen)
        *rlen = n;
    return 0;
}

/* A value whose first byte c has been read: a string, an array or object (to its matching
 * close, the nesting followed), or a literal (the bytes a number, true, false or null is made
 * of, at least one). The byte after a literal is read too: *after (-1: the end). */
static int skim_value(skim *s, int c, int *after, const char *what, char *err, size_t errlen)
{
    char stack[SKIM_DEPTH];
    int depth = 0;
    *after = -2; /* nothing read after the value */
    if (c == '"')
        return skim_string(s, NULL, NULL, what, err, errlen);
    if (c != '[' && c != '{') {
        if (!strchr("-0123456789tfnrueals.+E", c) || c == 0)
            return xerr(err, errlen, "%s: byte %zu: expected a value, got the byte 0x%02x",
                        what, s->off - 1, c);
        while ((c = next(s)) >= 0 && c && strchr("-0123456789tfnrueals.+E", c))
            ;
        if (c < 0 && (s->io_errno || s->cap_over))
            return ended(s, what, "", err, errlen);
        *after = c;
        return 0;
    }
    stack[depth++] = (char)(c == '[' ? ']' : '}');
    while (depth > 0) {
        if ((c = next(s)) < 0)
            return ended(s, what, depth > 1 || stack[0] == ']' ? "the end of an array or object"
                          : "the end of an object", err, errlen);
        if (c == '"') {
            if (skim_string(s, NULL, NULL, what, err, errlen))
                return -1;
        } else if (c == '[' || c == '{') {
            if (depth == SKIM_DEPTH)
                return xerr(err, errlen, "%s: byte %zu: nested deeper than %d", what,
                            s->off - 1, SKIM_DEPTH);
            stack[depth++] = (char)(c == '[' ? ']' : '}');
        } else if (c == ']' || c == '}') {
            if (c != stack[depth - 1])
                return xerr(err, errlen, "%s: byte %zu: '%c' closes a%s", what, s->off - 1, c,
                            stack[depth - 1] == ']' ? "n array" : "n object");
            depth--;
        }
    }
    return 0;
}

/* The walk of the top object: 0 with the value captured (s->cap) or not found (s->cap NULL,
 * *found 0); -1 on error. After the value the walk goes on to the object's end: the key a
 * second time is refused, as the strict parser refuses a key twice (docs/FORMAT.md; Python's
 * json, which transformers reads it with, would take the last, this walk took the first:
 * issue 37). That reads the rest of the file, skimmed (NLLB's 17 MB in some 20 ms), nothing
 * built. One UTF-8 byte order mark at byte 0 is let pass, as FORMAT.md says. */
static int skim_top(skim *s, const char *key, size_t max, int *found, size_t *offset,
                    const char *what, char *err, size_t errlen)
{
    size_t want = strlen(key), got_n = 0, first_at = 0;
    char *got = NULL;
    int c = next(s), rc = -1;
    *found = 0;
    if (c == 0xef) { /* a byte order mark at byte 0: EF BB BF */
        if (next(s) != 0xbb || next(s) != 0xbf) {
            xerr(err, errlen, "%s: byte 0: expected a JSON object at the top", what);
            goto done;
        }
        c = next(s);
    }
    if (c >= 0 && is_ws(c))
        c = next_nonws(s);
    if (c == 0xef) { /* a second mark, or one after a blank (FORMAT.md refuses it) */
        xerr(err, errlen, "%s: byte %zu: a byte order mark", what, s->off - 1);
        goto done;
    }
    if (c != '{') {
        if (c < 0)
            ended(s, what, "an object ({)", err, errlen);
        else
            xerr(err, errlen, "%s: byte %zu: expected a JSON object at the top", what,
                 s->off - 1);
        goto done;
    }
    if ((c = next_nonws(s)) == '}') {
        rc = 0;
        goto done;
    }
    for (;;) {
        char raw[SKIM_RAW], k[SKIM_RAW + 1];
        size_t rlen = 0, klen, key_at = s->off - 1;
        int after, hit;
        if (c != '"') {
            if (c < 0)
                ended(s, what, "a key", err, errlen);
            else
                xerr(err, errlen, "%s: byte %zu: expected a key (a string)", what, s->off - 1);
            goto done;
        }
        if (skim_string(s, raw, &rlen, what, err, errlen))
            goto done;
        klen = unescape_key(raw, rlen < SKIM_RAW ? rlen : SKIM_RAW, k);
        k[klen] = 0;
        hit = rlen <= SKIM_RAW && klen == want && memcmp(k, key, want) == 0;
        if (hit && *found) {
            xerr(err, errlen, "%s: byte %zu: key \"%s\" appears twice (first at byte %zu)",
                 what, key_at, key, first_at);
            goto done;
        }
        if ((c = next_nonws(s)) != ':') {
            if (c < 0)
                ended(s, what, "':'", err, errlen);
            else
                xerr(err, errlen, "%s: byte %zu: expected ':' after the key \"%.40s\"", what,
                     s->off - 1, k);
            goto done;
        }
        if ((c = next_nonws(s)) < 0) {
            ended(s, what, "a value", err, errlen);
            goto done;
        }
        if (hit) {
            first_at = key_at;
            *offset = s->off - 1;
            s->cap_max = max;
            s->cap_size = 256;
            if (!(s->cap = malloc(s->cap_size))) {
                xerr(err, errlen, "out of memory");
                goto done;
            }
            s->cap[0] = (char)c;
            s->cap_n = 1;
        }
        if (skim_value(s, c, &after, what, err, errlen))
            goto done;
        if (hit) {
            /* a literal's value ends before the byte that ended it */
            if (after != -2 && after >= 0)
                s->cap_n--;
            s->cap[s->cap_n] = 0;
            got = s->cap; /* kept aside: the rest is skimmed without copying */
            got_n = s->cap_n;
            s->cap = NULL;
            *found = 1;
        }
        c = after == -2 || is_ws(after) ? next_nonws(s) : after;
        if (c == '}') {
            rc = 0;
            goto done;
        }
        if (c != ',') {
            if (c < 0)
                ended(s, what, "',' or '}'", err, errlen);
            else
                xerr(err, errlen, "%s: byte %zu: expected ',' or '}' after the value of "
                     "\"%.40s\"", what, s->off - 1, k);
            goto done;
        }
        c = next_nonws(s);
    }
done:
    if (rc == 0 && *found) {
        s->cap = got;
        s->cap_n = got_n;
    } else {
        free(got);
        *found = 0;
    }
    return rc;
}

static int member(skim *s, const char *key, size_t max, char **text, size_t *len,
                  size_t *offset, const char *what, char *err, size_t errlen)
{
    int found = 0;
    *text = NULL;
    *len = 0;
    *offset = 0;
    if (skim_top(s, key, max, &found, offset, what, err, errlen)) {
        free(s->cap);
        return -1;
    }
    if (found) {
        *text = s->cap;
        *len = s->cap_n;
    }
    return 0;
}

int json_member_mem(const char *json, size_t json_len, const char *key, size_t max,
                    char **text, size_t *len, size_t *offset, const char *what, char *err,
                    size_t errlen)
{
    skim *s = calloc(1, sizeof *s);
    int rc;
    if (!s)
        return xerr(err, errlen, "out of memory");
    s->mem = json;
    s->mem_len = json_len;
    rc = member(s, key, max, text, len, offset, what, err, errlen);
    free(s);
    return rc;
}

int json_member_file(const char *path, const char *key, size_t max, char **text, size_t *len,
                     size_t *offset, char *err, size_t errlen)
{
    skim *s = calloc(1, sizeof *s);
    int rc = -1;
    *text = NULL;
    if (!s)
        return xerr(err, errlen, "out of memory");
    if (!(s->f = fopen(path, "rb"))) {
        xerr(err, errlen, "%s: %s", path, strerror(errno));
        goto done;
    }
    rc = member(s, key, max, text, len, offset, path, err, errlen);
done:
    if (s->f)
        fclose(s->f);
    free(s);
    return rc;
}
