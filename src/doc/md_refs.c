/* md_refs.c — the link reference labels a Markdown document defines (md_internal.h): a set of
 * normalized labels (CommonMark 0.30, 4.7: trimmed, blank runs as one space, case-folded),
 * filled by the block parser, asked by the inline parser. */
#include "doc/md_internal.h"
#include <stdlib.h>
#include <string.h>

/* A code point's lower case for the labels' matching: ASCII, Latin-1, Latin Extended-A,
 * Greek and Cyrillic capitals (Unicode's simple case folding there); others as they are. */
static unsigned fold(unsigned c)
{
    if ((c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7) ||
        (c >= 0x391 && c <= 0x3AB && c != 0x3A2) || (c >= 0x410 && c <= 0x42F))
        return c + 32;
    if (c >= 0x400 && c <= 0x40F)
        return c + 80;
    if (c >= 0x100 && c <= 0x17F && c != 0x130 && c != 0x131 && c != 0x138 && c != 0x149 &&
        c != 0x17F)
        return (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E) ? c + (c & 1)
                                                                           : c | 1;
    return c;
}

/* The label's normalized form (trimmed, blank runs as one space, case folded: fold, and
 * ß / U+1E9E as "ss") in out (at least len + 1 bytes); its length. */
static size_t label_norm(const char *s, size_t len, char *out)
{
    size_t k = 0;
    int space = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            space = k > 0;
            continue;
        }
        if (space)
            out[k++] = ' ';
        space = 0;
        if (c < 0x80) {
            out[k++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
            continue;
        }
        unsigned char c1 = i + 1 < len ? (unsigned char)s[i + 1] : 0;
        unsigned char c2 = i + 2 < len ? (unsigned char)s[i + 2] : 0;
        if ((c & 0xE0) == 0xC0 && (c1 & 0xC0) == 0x80) {
            unsigned v = fold(((c & 0x1Fu) << 6) | (c1 & 0x3Fu));
            if (v == 0xDF) {
                out[k++] = 's';
                out[k++] = 's';
            } else {
                out[k++] = (char)(0xC0 | (v >> 6));
                out[k++] = (char)(0x80 | (v & 0x3F));
            }
            i++;
        } else if (c == 0xE1 && c1 == 0xBA && c2 == 0x9E) { /* U+1E9E */
            out[k++] = 's';
            out[k++] = 's';
            i += 2;
        } else {
            out[k++] = (char)c;
        }
    }
    out[k] = '\0';
    return k;
}

static size_t hash(const char *s, size_t n)
{
    size_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

void md_refs_free(md_refs *r)
{
    for (size_t i = 0; i < r->cap; i++)
        free(r->keys[i]);
    free(r->keys);
    memset(r, 0, sizeof *r);
}

static size_t slot(char *const *keys, size_t cap, const char *k, size_t n)
{
    size_t i = hash(k, n) & (cap - 1);
    while (keys[i] && strcmp(keys[i], k) != 0)
        i = (i + 1) & (cap - 1);
    return i;
}

int md_refs_add(md_refs *r, const char *label, size_t len)
{
    char *k = malloc(len + 1);
    if (!k)
        return -1;
    size_t n = label_norm(label, len, k);
    if (2 * (r->n + 1) > r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        char **keys = calloc(cap, sizeof *keys);
        if (!keys) {
            free(k);
            return -1;
        }
        for (size_t i = 0; i < r->cap; i++)
            if (r->keys[i])
                keys[slot(keys, cap, r->keys[i], strlen(r->keys[i]))] = r->keys[i];
        free(r->keys);
        r->keys = keys;
        r->cap = cap;
    }
    size_t i = slot(r->keys, r->cap, k, n);
    if (r->keys[i]) { /* the first definition wins; the label is known either way */
        free(k);
        return 0;
    }
    r->keys[i] = k;
    r->n++;
    return 0;
}

int md_refs_has(const md_refs *r, const char *label, size_t len)
{
    char small[256], *k = len < sizeof small ? small : malloc(len + 1);
    if (!k || r->n == 0) {
        if (k != small)
            free(k);
        return 0;
    }
    size_t n = label_norm(label, len, k);
    int has = n > 0 && r->keys[slot(r->keys, r->cap, k, n)] != NULL;
    if (k != small)
        free(k);
    return has;
}

