/* spm_normalize.c — Normalizer::Normalize: longest match over the precompiled charsmap (a Darts
 * double-array trie), user defined symbols passed through untouched, each malformed UTF-8 byte
 * becomes U+FFFD, dummy prefix, extra whitespace removal, ' ' -> U+2581. Also the longest user
 * symbol at a place, which the encoders split on. */
#include "text/spm_internal.h"

/* Darts-clone DoubleArray unit fields. */
static inline uint32_t da_offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }
static inline uint32_t da_label(uint32_t u) { return u & ((1u << 31) | 0xFFu); }
static inline int da_has_leaf(uint32_t u) { return (u >> 8) & 1; }
static inline uint32_t da_value(uint32_t u) { return u & ((1u << 31) - 1); }

/* Longest charsmap rule matching a prefix of s[0..n) among the first 32 matches (what the
 * library's fixed result array holds); 0 when none. Out-of-range units end the search. */
static size_t charsmap_match(const normspec *ns, const unsigned char *s, size_t n,
                             uint32_t *value)
{
    const uint32_t *a = ns->units;
    size_t na = ns->nunits, best = 0;
    unsigned found = 0;
    uint32_t id, u;
    if (na == 0)
        return 0;
    id = da_offset(a[0]);
    for (size_t i = 0; i < n; i++) {
        id ^= s[i];
        if (id >= na)
            break;
        u = a[id];
        if (da_label(u) != s[i])
            break;
        id ^= da_offset(u);
        if (da_has_leaf(u)) {
            if (found < 32 && id < na) {
                best = i + 1;
                *value = da_value(a[id]);
            }
            found++;
        }
    }
    return best;
}

/* Length of the longest user-defined symbol that s[0..n) starts with; 0 when none does. */
size_t spm_longest_user(const spm_model *m, const unsigned char *s, size_t n)
{
    uint32_t node = 0;
    size_t best = 0;
    for (size_t i = 0; i < n; i++) {
        node = trie_child(&m->user, node, s[i]);
        if (!node)
            break;
        if (trie_value(&m->user, node) >= 0)
            best = i + 1;
    }
    return best;
}

/* Normalizer::NormalizePrefix: the replacement for the longest rule at s, and how many input
 * bytes it consumes. */
static size_t normalize_prefix(const spm_model *m, const normspec *ns, int use_matcher,
                               const unsigned char *s, size_t n, const char **outp,
                               size_t *outn)
{
    size_t mblen;
    uint32_t value = 0;
    if (use_matcher && m->has_user) {
        /* PrefixMatcher: the longest user-defined symbol passes through unnormalized. */
        size_t best = spm_longest_user(m, s, n);
        if (best) {
            *outp = (const char *)s;
            *outn = best;
            return best;
        }
    }
    size_t len = charsmap_match(ns, s, n, &value);
    if (len) {
        if (value < ns->nstrs) {
            *outp = ns->strs + value;
            *outn = strlen(*outp); /* strs ends with a NUL, so this stays inside */
        } else {
            *outp = "";
            *outn = 0;
        }
        return len;
    }
    if (!utf8_valid(s, n, &mblen)) {
        *outp = REPLACEMENT_CHAR;
        *outn = 3;
        return 1;
    }
    *outp = (const char *)s;
    *outn = mblen;
    return mblen;
}

static inline int ends_with(const sbuf *b, const char *s, size_t n)
{
    return b->n >= n && memcmp(b->p + b->n - n, s, n) == 0;
}

/* Makes room for align[0 .. out->cap] (one more than out's bytes: the end). */
static int align_fit(uint32_t **align, size_t *acap, const sbuf *out)
{
    if (out->cap + 1 <= *acap)
        return 0;
    uint32_t *na = realloc(*align, (out->cap + 1) * sizeof *na);
    if (!na)
        return -1;
    *align = na;
    *acap = out->cap + 1;
    return 0;
}

/* Normalizer::Normalize into out (cleared first), and with align != NULL its norm_to_orig:
 * (*align)[j] is the offset in `in` of the rule that produced normalized byte j (the dummy
 * prefix's and a kept space's U+2581 included), (*align)[out->n] where the consumed input ends
 * (before trailing whitespace that was dropped). *align is malloc'd and grown here; it holds
 * nothing when out->n == 0. always_inline: spm_normalize passes align = NULL, and that copy
 * keeps no trace of the alignment (the fast path's speed). -1 on out-of-memory. */
#ifdef __GNUC__
__attribute__((always_inline))
#endif
static inline int normalize_impl(const spm_model *m, const normspec *ns, int use_matcher,
                                 const unsigned char *in, size_t n, sbuf *out,
                                 uint32_t **align, size_t *acap)
{
    const char *ws = ns->escape_whitespaces ? SPACE_SYMBOL : " ";
    size_t wsn = ns->escape_whitespaces ? 3 : 1;
    const char *r;
    size_t rn, used, consumed = 0;
    int prev_space;

    out->n = 0;
    if (n == 0)
        return 0;
    if (ns->remove_extra_whitespaces) {
        while (n) {
            used = normalize_prefix(m, ns, use_matcher, in, n, &r, &rn);
            if (!(rn == 1 && r[0] == ' '))
                break;
            in += used;
            n -= used;
            consumed += used;
        }
    }
    if (n == 0)
        return 0;
    if (sbuf_reserve(out, n * 3 + 8) || (align && align_fit(align, acap, out)))
        return -1;
    if (!ns->treat_ws_as_suffix && ns->add_dummy_prefix) {
        if (align)
            for (size_t k = 0; k < wsn; k++)
                (*align)[out->n + k] = (uint32_t)consumed;
        if (sbuf_put(out, ws, wsn))
            return -1;
    }
    prev_space = ns->remove_extra_whitespaces;
    while (n) {
        used = normalize_prefix(m, ns, use_matcher, in, n, &r, &rn);
        if (prev_space)
            while (rn && r[0] == ' ') {
                r++;
                rn--;
            }
        if (rn) {
            if (sbuf_reserve(out, rn * 3) || (align && align_fit(align, acap, out)))
                return -1;
            char *o = out->p + out->n;
            for (size_t k = 0; k < rn; k++) {
                if (r[k] == ' ' && ns->escape_whitespaces) {
                    memcpy(o, SPACE_SYMBOL, 3);
                    o += 3;
                } else {
                    *o++ = r[k];
                }
            }
            if (align) /* every byte this rule wrote comes from where the rule starts */
                for (size_t j = out->n; j < (size_t)(o - out->p); j++)
                    (*align)[j] = (uint32_t)consumed;
            out->n = (size_t)(o - out->p);
            prev_space = r[rn - 1] == ' ';
        }
        in += used;
        n -= used;
        consumed += used;
        if (!ns->remove_extra_whitespaces)
            prev_space = 0;
    }
    if (ns->remove_extra_whitespaces)
        while (ends_with(out, ws, wsn)) {
            out->n -= wsn;
            if (align) /* the input now ends where the dropped space began */
                consumed = (*align)[out->n];
        }
    if (ns->treat_ws_as_suffix && ns->add_dummy_prefix) {
        if (sbuf_reserve(out, wsn) || (align && align_fit(align, acap, out)))
            return -1;
        if (align)
            for (size_t k = 0; k < wsn; k++)
                (*align)[out->n + k] = (uint32_t)consumed;
        if (sbuf_put(out, ws, wsn))
            return -1;
    }
    if (align && out->n)
        (*align)[out->n] = (uint32_t)consumed;
    return 0;
}

/* Normalizer::Normalize into out (cleared first). -1 on out-of-memory. */
int spm_normalize(const spm_model *m, const normspec *ns, int use_matcher,
                  const unsigned char *in, size_t n, sbuf *out)
{
    return normalize_impl(m, ns, use_matcher, in, n, out, NULL, NULL);
}

int spm_normalize_aligned(const spm_model *m, const normspec *ns, int use_matcher,
                          const unsigned char *in, size_t n, sbuf *out, uint32_t **align)
{
    size_t acap = 0;
    *align = NULL;
    if (n > UINT32_MAX)
        return -1; /* the offsets are 32-bit; callers limit n far below this */
    if (normalize_impl(m, ns, use_matcher, in, n, out, align, &acap)) {
        free(*align);
        *align = NULL;
        return -1;
    }
    return 0;
}

/* Length of the longest user-defined symbol at s (frozen in BPE), else one character. */
size_t spm_prefix_match(const spm_model *m, const unsigned char *s, size_t n, int *found)
{
    *found = 0;
    if (m->has_user) {
        size_t best = spm_longest_user(m, s, n);
        if (best) {
            *found = 1;
            return best;
        }
    }
    size_t l = one_char_len(s[0]);
    return l < n ? l : n;
}
