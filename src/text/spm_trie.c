/* spm_trie.c — the double-array tries of the pieces (spm_internal.h): exact lookup, PieceToId,
 * and the build at load, straight from the sorted pieces. */
#include "text/spm_internal.h"

void spm_trie_free(trie *t)
{
    free(t->u);
    memset(t, 0, sizeof *t);
}

/* Exact lookup: the value stored for s[0..n), or -1. */
int spm_trie_find(const trie *t, const unsigned char *s, size_t n)
{
    uint32_t node = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        node = trie_child(t, node, s[i]);
        if (!node)
            return -1;
    }
    return t->u[node].value;
}

/* ModelInterface::PieceToId: reserved pieces first, then normal ones, else <unk>. */
int spm_piece_to_id(const spm_model *m, const unsigned char *s, size_t n)
{
    int id = spm_trie_find(&m->reserved, s, n);
    if (id >= 0)
        return id;
    id = spm_trie_find(&m->pieces, s, n);
    return id >= 0 ? id : m->unk;
}

#define DA_NONE UINT32_MAX

typedef struct {
    da_unit *u;
    uint32_t size, cap;
    uint32_t *nf, *pf;  /* [cap] next / previous free slot, DA_NONE at the ends */
    uint32_t head, tail; /* the free list; DA_NONE when empty */
} da_builder;

/* Makes slots [size, need) exist, free, at the end of the free list. */
static int da_grow(da_builder *d, uint64_t need)
{
    if (need <= d->size)
        return 0;
    if (need > UINT32_MAX / 4)
        return -1;
    if (need > d->cap) {
        uint32_t cap = d->cap ? d->cap : 1024;
        while (cap < need)
            cap *= 2;
        da_unit *u = realloc(d->u, (size_t)cap * sizeof *u);
        if (u)
            d->u = u;
        uint32_t *nf = realloc(d->nf, (size_t)cap * sizeof *nf);
        if (nf)
            d->nf = nf;
        uint32_t *pf = realloc(d->pf, (size_t)cap * sizeof *pf);
        if (pf)
            d->pf = pf;
        if (!u || !nf || !pf)
            return -1;
        d->cap = cap;
    }
    for (uint32_t i = d->size; i < (uint32_t)need; i++) {
        d->u[i].base = 0;
        d->u[i].check = DA_FREE;
        d->u[i].value = -1;
        d->nf[i] = DA_NONE;
        d->pf[i] = d->tail;
        if (d->tail != DA_NONE)
            d->nf[d->tail] = i;
        else
            d->head = i;
        d->tail = i;
    }
    d->size = (uint32_t)need;
    return 0;
}

static void da_take(da_builder *d, uint32_t s)
{
    uint32_t n = d->nf[s], p = d->pf[s];
    if (p != DA_NONE)
        d->nf[p] = n;
    else
        d->head = n;
    if (n != DA_NONE)
        d->pf[n] = p;
    else
        d->tail = p;
}

/* Finds a base for children with the given labels (ascending): the first free slot for the
 * first label such that every other label's slot is free too. Only the last DA_WINDOW slots are
 * searched; free slots before them are dropped from the list for good, which keeps the search
 * short on large vocabularies at the cost of a few unused slots. */
#define DA_WINDOW 4096u

static int da_place(da_builder *d, const unsigned char *labels, int nl, uint32_t *base)
{
    while (d->head != DA_NONE && d->size > DA_WINDOW && d->head < d->size - DA_WINDOW)
        da_take(d, d->head);
    for (uint32_t s = d->head;; s = d->nf[s]) {
        if (s == DA_NONE) {
            s = d->size;
            if (da_grow(d, (uint64_t)d->size + 256))
                return -1;
        }
        if (s <= labels[0])
            continue;
        uint32_t b = s - labels[0];
        if (da_grow(d, (uint64_t)b + 256))
            return -1;
        int k = 1;
        while (k < nl && d->u[b + labels[k]].check == DA_FREE)
            k++;
        if (k == nl) {
            *base = b;
            return 0;
        }
    }
}

typedef struct {
    const unsigned char *s;
    uint32_t len;
    int id;
} da_key;

static int cmp_keys(const void *a, const void *b)
{
    const da_key *x = a, *y = b;
    int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);
    if (c)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id); /* equal keys: the first piece first, it is kept */
}

typedef struct {
    uint32_t lo, hi;  /* keys [lo, hi) share the first `depth` bytes */
    uint32_t depth;
    uint32_t pos;     /* the node's slot */
} da_task;

/* Builds the double array of the pieces whose type `want` accepts, straight from the sorted
 * keys (depth first). A key seen twice keeps the first piece's id. */
int spm_trie_build(trie *t, const spm_model *m, int (*want)(int type))
{
    da_key *keys = NULL;
    uint32_t n = 0;
    int rc = -1;
    da_task *stack = NULL;
    size_t sp = 0, scap = 0;
    da_builder d = {NULL, 0, 0, NULL, NULL, DA_NONE, DA_NONE};

    keys = malloc(((size_t)m->n + 1) * sizeof *keys);
    if (!keys)
        goto done;
    for (int i = 0; i < m->n; i++)
        if (want(m->ptype[i]))
            keys[n++] = (da_key){(const unsigned char *)m->strs + m->off[i], m->len[i], i};
    qsort(keys, n, sizeof *keys, cmp_keys);
    if (da_grow(&d, 257))
        goto done;
    da_take(&d, 0);
    d.u[0].check = 0; /* the root; children sit at base + c >= 1, so it is nobody's child */
    scap = 64;
    stack = malloc(scap * sizeof *stack);
    if (!stack)
        goto done;
    stack[sp++] = (da_task){0, n, 0, 0};
    while (sp) {
        da_task tk = stack[--sp];
        unsigned char labels[256];
        uint32_t starts[257];
        int nl = 0;
        uint32_t i = tk.lo, base;
        if (i < tk.hi && keys[i].len == tk.depth) { /* a key ends here */
            d.u[tk.pos].value = keys[i].id;
            while (i < tk.hi && keys[i].len == tk.depth)
                i++;
        }
        while (i < tk.hi) {
            unsigned char c = keys[i].s[tk.depth];
            labels[nl] = c;
            starts[nl++] = i;
            while (i < tk.hi && keys[i].s[tk.depth] == c)
                i++;
        }
        starts[nl] = tk.hi;
        if (nl == 0)
            continue;
        if (da_place(&d, labels, nl, &base))
            goto done;
        d.u[tk.pos].base = base;
        if (sp + (size_t)nl > scap) {
            size_t nc = scap * 2 + (size_t)nl;
            da_task *ns = realloc(stack, nc * sizeof *ns);
            if (!ns)
                goto done;
            stack = ns;
            scap = nc;
        }
        for (int k = nl - 1; k >= 0; k--) { /* pushed in reverse: smaller labels first */
            uint32_t x = base + labels[k];
            da_take(&d, x);
            d.u[x].check = tk.pos;
            stack[sp++] = (da_task){starts[k], starts[k + 1], tk.depth + 1, x};
        }
    }
    while (d.size > 1 && d.u[d.size - 1].check == DA_FREE)
        d.size--;
    t->u = realloc(d.u, (size_t)d.size * sizeof *d.u);
    if (!t->u)
        t->u = d.u;
    t->size = d.size;
    d.u = NULL;
    rc = 0;
done:
    free(d.u);
    free(d.nf);
    free(d.pf);
    free(keys);
    free(stack);
    return rc;
}
