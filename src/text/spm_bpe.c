/* spm_bpe.c — BPE encoding: merge the best-scoring adjacent pair (leftmost on ties) until none
 * applies; unused pieces are split back into their halves. */
#include "text/spm_internal.h"

/* Priority: higher score first, then the smaller left index. */
static inline int bpair_before(const bpair *a, const bpair *b)
{
    return b->score < a->score || (a->score == b->score && a->left < b->left);
}

static void heap_push(bpe_state *st, bpair p)
{
    size_t i = st->nheap++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!bpair_before(&p, &st->heap[up]))
            break;
        st->heap[i] = st->heap[up];
        i = up;
    }
    st->heap[i] = p;
}

static bpair heap_pop(bpe_state *st)
{
    bpair top = st->heap[0], last = st->heap[--st->nheap];
    size_t i = 0, n = st->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && bpair_before(&st->heap[c + 1], &st->heap[c]))
            c++;
        if (!bpair_before(&st->heap[c], &last))
            break;
        st->heap[i] = st->heap[c];
        i = c;
    }
    if (n)
        st->heap[i] = last;
    return top;
}

/* The pair's text is looked up by walking the right symbol's bytes on from the left symbol's
 * trie node. */
static void bpe_maybe_add(const spm_model *m, bpe_state *st, int left, int right)
{
    if (left < 0 || right < 0 || st->sym[left].freeze || st->sym[right].freeze)
        return;
    uint32_t node = st->sym[left].node;
    const unsigned char *r = st->s + st->sym[right].start;
    if (!node)
        return;
    for (uint32_t k = 0; k < st->sym[right].len; k++) {
        node = trie_child(&m->pieces, node, r[k]);
        if (!node)
            return;
    }
    int id = trie_value(&m->pieces, node);
    if (id < 0)
        return;
    uint32_t size = st->sym[left].len + st->sym[right].len;
    bpair p = {m->score[id], left, right, size, node};
    heap_push(st, p);
    if (m->ptype[id] == PT_UNUSED) {
        brev rv = {id, st->sym[left].start, st->sym[left].len, st->sym[right].start,
                   st->sym[right].len};
        st->rev[st->nrev++] = rv;
    }
}

/* bpe::Model::SampleEncode without dropout. stack has room for n entries. */
size_t spm_encode_bpe(const spm_model *m, const unsigned char *s, size_t n, bpe_state *st,
                      seg *out, uint32_t *stack)
{
    size_t nsym = 0, k = 0;
    st->s = s;
    st->nheap = 0;
    st->nrev = 0;
    for (size_t pos = 0; pos < n;) {
        int found;
        size_t l = spm_prefix_match(m, s + pos, n - pos, &found);
        bsym *y = &st->sym[nsym];
        y->start = (uint32_t)pos;
        y->len = (uint32_t)l;
        y->freeze = found;
        y->node = 0;
        for (size_t q = 0; q < l; q++) {
            y->node = trie_child(&m->pieces, q ? y->node : 0, s[pos + q]);
            if (!y->node)
                break;
        }
        y->prev = nsym == 0 ? -1 : (int)nsym - 1;
        pos += l;
        y->next = pos < n ? (int)nsym + 1 : -1;
        nsym++;
    }
    if (nsym == 0)
        return 0;
    for (size_t i = 1; i < nsym; i++)
        bpe_maybe_add(m, st, (int)i - 1, (int)i);
    while (st->nheap) {
        bpair top = heap_pop(st);
        bsym *l = &st->sym[top.left], *r = &st->sym[top.right];
        if (l->len == 0 || r->len == 0 || l->len + r->len != top.size)
            continue;
        l->len += r->len;
        l->node = top.node;
        l->next = r->next;
        if (r->next >= 0)
            st->sym[r->next].prev = top.left;
        r->len = 0;
        bpe_maybe_add(m, st, l->prev, top.left);
        bpe_maybe_add(m, st, top.left, l->next);
    }
    for (int i = 0; i != -1; i = st->sym[i].next) {
        /* resegment: UNUSED pieces split back into the pair that made them. */
        size_t sp = 0;
        int id = st->sym[i].node ? trie_value(&m->pieces, st->sym[i].node) : -1;
        /* PieceToId: a normal piece unless a reserved one has the same text (canon) */
        id = id >= 0 ? m->canon[id] : spm_piece_to_id(m, s + st->sym[i].start, st->sym[i].len);
        if (!m->has_unused || m->ptype[id] != PT_UNUSED) {
            out[k].start = st->sym[i].start;
            out[k].len = st->sym[i].len;
            out[k].id = id;
            k++;
            continue;
        }
        stack[sp++] = st->sym[i].start;
        stack[sp++] = st->sym[i].len;
        while (sp) {
            uint32_t wl = stack[--sp], ws = stack[--sp];
            id = spm_piece_to_id(m, s + ws, wl);
            const brev *rv = NULL;
            if (m->has_unused && id >= 0 && m->ptype[id] == PT_UNUSED) {
                for (size_t q = st->nrev; q-- > 0;)
                    if (st->rev[q].id == id) {
                        rv = &st->rev[q];
                        break;
                    }
            }
            if (!rv) {
                out[k].start = ws;
                out[k].len = wl;
                out[k].id = id;
                k++;
            } else {
                stack[sp++] = rv->rs;
                stack[sp++] = rv->rl;
                stack[sp++] = rv->ls;
                stack[sp++] = rv->ll;
            }
        }
    }
    return k;
}
