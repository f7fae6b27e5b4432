/* m2m_added.c — encoding around the added tokens of an M2M100 / NLLB-200 tokenizer (m2m_tok.h):
 * transformers' PreTrainedTokenizer.tokenize, which cuts the text at its added tokens, lets
 * them eat the whitespace beside them, and encodes the text between them piece by piece. The
 * tokens themselves are collected by m2m_tok.c (load_added). */
#include "text/m2m_tok.h"
#include "base/util.h"
#include <stdlib.h>
#include <string.h>

/* Python's str.isspace for the code point starting at s[0] (n bytes left): its UTF-8 length
 * when it is whitespace, else 0 (tokenize's strips are Python's str.lstrip / rstrip). */
static int space_len(const unsigned char *s, size_t n)
{
    unsigned c;
    if (n >= 1 && ((s[0] >= 0x09 && s[0] <= 0x0d) || (s[0] >= 0x1c && s[0] <= 0x20)))
        return 1;
    if (n >= 2 && s[0] == 0xc2 && (s[1] == 0x85 || s[1] == 0xa0))
        return 2;
    if (n < 3 || (s[0] & 0xf0) != 0xe0 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
        return 0;
    c = (unsigned)(s[0] & 0x0f) << 12 | (unsigned)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
    return c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
                   c == 0x202f || c == 0x205f || c == 0x3000
               ? 3 : 0;
}

/* tokenize's list of strings: each a chain of byte ranges of the text (a single_word token
 * joins its neighbour, after strips that may have cut the whitespace between them) */
typedef struct {
    size_t a, b;     /* [a, b) of the text */
    int prev, next;  /* nodes of the same string; -1: none */
} tnode;

typedef struct {
    int head, tail;  /* -1: the empty string */
} tstr;

static size_t tstr_len(const tnode *nd, const tstr *s)
{
    size_t l = 0;
    for (int i = s->head; i >= 0; i = nd[i].next)
        l += nd[i].b - nd[i].a;
    return l;
}

/* Python's `token in no_split_token`: the index of the added token whose text the string is
 * (whatever its history: a joined or stripped string may become one), or -1. */
static int str_added(const m2m_tok *t, const char *text, const tnode *nd, const tstr *s)
{
    size_t l = tstr_len(nd, s);
    for (int k = 0; k < t->n_added && s->head >= 0; k++) {
        size_t o = 0;
        int i;
        if ((size_t)t->added[k].len != l)
            continue;
        for (i = s->head; i >= 0; i = nd[i].next) {
            if (memcmp(t->added[k].text + o, text + nd[i].a, nd[i].b - nd[i].a) != 0)
                break;
            o += nd[i].b - nd[i].a;
        }
        if (i < 0)
            return k;
    }
    return -1;
}

/* str.lstrip() / str.rstrip() */
static void tstr_lstrip(tnode *nd, tstr *s, const char *text)
{
    while (s->head >= 0) {
        tnode *x = &nd[s->head];
        int k;
        while (x->a < x->b && (k = space_len((const unsigned char *)text + x->a, x->b - x->a)))
            x->a += (size_t)k;
        if (x->a < x->b)
            return;
        s->head = x->next;
        if (s->head >= 0)
            nd[s->head].prev = -1;
        else
            s->tail = -1;
    }
}

static void tstr_rstrip(tnode *nd, tstr *s, const char *text)
{
    while (s->tail >= 0) {
        tnode *x = &nd[s->tail];
        for (;;) {
            size_t c = x->b;
            int k;
            if (c == x->a)
                break;
            while (c > x->a && ((unsigned char)text[c - 1] & 0xc0) == 0x80)
                c--; /* the last code point's first byte (a cut one: not whitespace) */
            if (c > x->a)
                c--;
            k = space_len((const unsigned char *)text + c, x->b - c);
            if (!k || c + (size_t)k != x->b)
                break;
            x->b = c;
        }
        if (x->a < x->b)
            return;
        s->tail = x->prev;
        if (s->tail >= 0)
            nd[s->tail].next = -1;
        else
            s->head = -1;
    }
}

/* a += b (b's nodes move to a; b becomes "") */
static void tstr_join(tnode *nd, tstr *a, tstr *b)
{
    if (b->head < 0)
        return;
    if (a->tail >= 0) {
        nd[a->tail].next = b->head;
        nd[b->head].prev = a->tail;
    } else {
        a->head = b->head;
    }
    a->tail = b->tail;
    b->head = b->tail = -1;
}

/* One string of tokenize's list through _tokenize, appended to ids/spans (offsets in the
 * original text; a string of several ranges is encoded as one, its spans mapped back). */
static int encode_str(const m2m_tok *t, const char *text, const tnode *nd, const tstr *s,
                      int **ids, int **spans, int *n, int *cap, char *err, size_t errlen)
{
    size_t l = tstr_len(nd, s), o = 0;
    char *buf = malloc(l + 1);
    int *pi = NULL, *ps = NULL, pn = 0, rc = -1;
    if (!buf)
        return xerr(err, errlen, "out of memory");
    for (int i = s->head; i >= 0; i = nd[i].next) {
        memcpy(buf + o, text + nd[i].a, nd[i].b - nd[i].a);
        o += nd[i].b - nd[i].a;
    }
    if (m2m_tok_encode_plain(t, buf, l, &pi, spans ? &ps : NULL, &pn, err, errlen))
        goto done;
    if (*n + pn > *cap) {
        int c = (*n + pn) * 2 + 8, *q;
        if (!(q = realloc(*ids, (size_t)c * sizeof *q)))
            goto oom;
        *ids = q;
        if (spans) {
            if (!(q = realloc(*spans, (size_t)c * 2 * sizeof *q)))
                goto oom;
            *spans = q;
        }
        *cap = c;
    }
    for (int k = 0; k < pn; k++) {
        (*ids)[*n + k] = pi[k];
        for (int e = 0; spans && e < 2; e++) { /* buffer offset -> text offset */
            size_t p = (size_t)ps[2 * k + e], base = 0;
            int i = s->head;
            while (nd[i].next >= 0 && p > base + (nd[i].b - nd[i].a) - (e == 0 ? 1 : 0)) {
                base += nd[i].b - nd[i].a;
                i = nd[i].next;
            }
            (*spans)[2 * (*n + k) + e] = (int)(nd[i].a + (p - base));
        }
    }
    *n += pn;
    rc = 0;
    goto done;
oom:
    xerr(err, errlen, "out of memory");
done:
    free(pi);
    free(ps);
    free(buf);
    return rc;
}

/* transformers v4.40 tokenization_utils.py PreTrainedTokenizer.tokenize:
 *   `tokens = self.tokens_trie.split(text)`: the text cut around its added tokens, the
 *     longest one first where several start at the same place (Trie.split: "This trie will
 *     match the longest possible word first!"), the leftmost first;
 *   then for each added token, in order: `if tok_extended.rstrip and right: tokens[i + 1] =
 *     right.lstrip()`; `if tok_extended.lstrip and left: tokens[i - 1] = left.rstrip()`;
 *     `if tok_extended.single_word and left and left[-1] != " ": tokens[i - 1] += token;
 *     tokens[i] = ""` `elif tok_extended.single_word and right and right[0] != " ":
 *     tokens[i + 1] = token + tokens[i + 1]; tokens[i] = ""`;
 *   then `if not token: continue`; `if token in no_split_token: tokenized_text.append(token)`
 *     (its id: the added token's), `else: tokenized_text.extend(self._tokenize(token))`. */
int m2m_tok_encode(const m2m_tok *t, const char *text, size_t len, int **ids, int **spans,
                   int *n, char *err, size_t errlen)
{
    tnode *nd = NULL;
    tstr *ts = NULL;
    int nn = 0, ns = 0, cap = 0, rc = -1;
    size_t pos = 0, start = 0;
    *ids = NULL;
    if (spans)
        *spans = NULL;
    *n = 0;
    if (!t->n_added)
        return m2m_tok_encode_plain(t, text, len, ids, spans, n, err, errlen);
    if (len > (size_t)1 << 30)
        return xerr(err, errlen, "a text of %zu bytes (at most 1 GB)", len);
    if (!(nd = malloc((2 * len + 2) * sizeof *nd)) || !(ts = malloc((2 * len + 2) * sizeof *ts)))
        goto oom;
    while (pos <= len) {
        int best = -1;
        for (int k = 0; k < t->n_added && pos < len; k++)
            if (t->added[k].text[0] == text[pos] && (size_t)t->added[k].len <= len - pos &&
                (best < 0 || t->added[k].len > t->added[best].len) &&
                memcmp(text + pos, t->added[k].text, (size_t)t->added[k].len) == 0)
                best = k;
        if (best < 0 && pos < len) {
            pos++;
            continue;
        }
        for (int piece = 0; piece < 2 && (piece == 0 || best >= 0); piece++) {
            /* the text before, then the token (none at the end of the text) */
            size_t a = piece ? pos : start, b = piece ? pos + (size_t)t->added[best].len : pos;
            if (!piece && a == b)
                continue;
            nd[nn] = (tnode){a, b, -1, -1};
            ts[ns++] = (tstr){nn, nn};
            nn++;
        }
        if (best < 0)
            break;
        pos += (size_t)t->added[best].len;
        start = pos;
    }
    for (int i = 0; i < ns; i++) {
        const m2m_added *a;
        int lw, rw, k = str_added(t, text, nd, &ts[i]);
        tstr *left = i > 0 ? &ts[i - 1] : NULL, *right = i + 1 < ns ? &ts[i + 1] : NULL;
        if (k < 0)
            continue;
        a = &t->added[k];
        if (left && left->head < 0)
            left = NULL; /* Python's `if left`: not "" */
        if (right && right->head < 0)
            right = NULL;
        /* single_word looks at `left` and `right` as they were before the strips (Python's
         * variables), and joins the strings as they are after them */
        lw = left && text[nd[left->tail].b - 1] != ' ';
        rw = right && text[nd[right->head].a] != ' ';
        if (a->rstrip && right)
            tstr_lstrip(nd, right, text);
        if (a->lstrip && left)
            tstr_rstrip(nd, left, text);
        if (a->single_word && lw) {
            tstr_join(nd, left, &ts[i]);
        } else if (a->single_word && rw) {
            tstr_join(nd, &ts[i], right);
            *right = ts[i];
            ts[i].head = ts[i].tail = -1;
        }
    }
    for (int i = 0; i < ns; i++) {
        int k = str_added(t, text, nd, &ts[i]);
        if (ts[i].head < 0)
            continue;
        if (k < 0) {
            if (encode_str(t, text, nd, &ts[i], ids, spans, n, &cap, err, errlen))
                goto fail;
            continue;
        }
        if (*n + 1 > cap) {
            int c = *n * 2 + 8, *q;
            if (!(q = realloc(*ids, (size_t)c * sizeof *q)))
                goto oom;
            *ids = q;
            if (spans) {
                if (!(q = realloc(*spans, (size_t)c * 2 * sizeof *q)))
                    goto oom;
                *spans = q;
            }
            cap = c;
        }
        (*ids)[*n] = t->added[k].id;
        if (spans) {
            (*spans)[2 * *n] = (int)nd[ts[i].head].a;
            (*spans)[2 * *n + 1] = (int)nd[ts[i].tail].b;
        }
        (*n)++;
    }
    if (!*ids && !(*ids = malloc(sizeof **ids)))
        goto oom;
    if (spans && !*spans && !(*spans = malloc(2 * sizeof **spans)))
        goto oom;
    rc = 0;
    goto done;
oom:
    xerr(err, errlen, "out of memory");
fail:
    free(*ids);
    *ids = NULL;
    if (spans) {
        free(*spans);
        *spans = NULL;
    }
    *n = 0;
done:
    free(nd);
    free(ts);
    return rc;
}

