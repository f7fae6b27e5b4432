/* torch_pickle.c — a pickle machine for state dicts only.
 *
 * torch.save(state_dict) writes (protocol 2; checked with pickletools on torch 1.13's output):
 *   GLOBAL 'collections OrderedDict', EMPTY_TUPLE, REDUCE          the dict (or EMPTY_DICT)
 *   MARK, then per entry: BINUNICODE name,
 *     GLOBAL 'torch._utils _rebuild_tensor_v2', MARK,
 *       MARK 'storage' GLOBAL 'torch FloatStorage' key location numel TUPLE BINPERSID,
 *       offset, (sizes) TUPLEn, (strides) TUPLEn, NEWFALSE, OrderedDict() (the hooks),
 *     TUPLE, REDUCE
 *   SETITEMS, then for Module.state_dict() the instance state {'_metadata': {...}} BUILD, STOP
 * with BINPUT/BINGET memoizing every value and refetching shared ones (the storage types, a
 * tensor stored under two names). The machine below runs exactly that subset (and the few
 * opcodes of protocols 3-4 with the same meaning: SHORT_BINUNICODE, STACK_GLOBAL, MEMOIZE,
 * FRAME); values are plain data (no Python object is ever built, nothing is ever called: a
 * REDUCE of an allowed callable is interpreted by its rule here). Every count an input could
 * inflate is bounded: the pickle's size, the stack, marks, the memo (keys are handed out in
 * order by the pickler, so a key is at most the number of opcodes run so far), the values made,
 * a string's length. Values are never walked recursively, so nesting depth costs nothing but
 * marks. */
#include "model/torch_pickle.h"
#include "base/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PICKLE ((size_t)64 << 20)
#define MAX_STACK ((size_t)1 << 20)
#define MAX_MARKS 64
#define MAX_VALUES ((size_t)1 << 22)
#define MAX_MEMO ((size_t)1 << 22)
#define MAX_STRING ((size_t)1 << 20)
#define MAX_ITEMS (1 << 20) /* tensors, storages */
#define MAX_DIM ((int64_t)1 << 40)

typedef enum { V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_TUPLE, V_LIST, V_DICT, V_GLOBAL,
               V_STORAGE, V_TENSOR } vkind;
static const char *const kind_names[] = {"None", "bool", "int", "float", "str", "tuple", "list",
                                         "dict", "global", "storage", "tensor"};

typedef struct pv pv;
struct pv {
    vkind kind;
    int64_t i;   /* BOOL, INT; GLOBAL: index in `globals`; STORAGE, TENSOR: index in sd / tens */
    char *s;     /* STR: owned, no NUL inside */
    pv **items;  /* TUPLE, LIST: [n]; DICT: [2n], key and value in turn */
    size_t n, cap;
};

/* The allow-list. The first four are callables (REDUCE), the rest storage types (BINPERSID). */
enum { G_ORDERED_DICT, G_REBUILD_V2, G_REBUILD, G_REBUILD_PARAM, G_FIRST_STORAGE };
static const struct {
    const char *module, *name;
    st_dtype dtype;
} globals[] = {
    {"collections", "OrderedDict", ST_F32},         {"torch._utils", "_rebuild_tensor_v2", ST_F32},
    {"torch._utils", "_rebuild_tensor", ST_F32},    {"torch._utils", "_rebuild_parameter", ST_F32},
    {"torch", "FloatStorage", ST_F32},   {"torch", "HalfStorage", ST_F16},
    {"torch", "BFloat16Storage", ST_BF16}, {"torch", "DoubleStorage", ST_F64},
    {"torch", "LongStorage", ST_I64},    {"torch", "IntStorage", ST_I32},
    {"torch", "ShortStorage", ST_I16},   {"torch", "CharStorage", ST_I8},
    {"torch", "ByteStorage", ST_U8},     {"torch", "BoolStorage", ST_BOOL},
};
#define N_GLOBALS (int)(sizeof globals / sizeof globals[0])

static const struct {
    unsigned char op;
    const char *name;
} opnames[] = {
    {'(', "MARK"}, {'.', "STOP"}, {'0', "POP"}, {'1', "POP_MARK"}, {'2', "DUP"}, {'F', "FLOAT"},
    {'I', "INT"}, {'J', "BININT"}, {'K', "BININT1"}, {'L', "LONG"}, {'M', "BININT2"},
    {'N', "NONE"}, {'P', "PERSID"}, {'Q', "BINPERSID"}, {'R', "REDUCE"}, {'S', "STRING"},
    {'T', "BINSTRING"}, {'U', "SHORT_BINSTRING"}, {'V', "UNICODE"}, {'X', "BINUNICODE"},
    {'a', "APPEND"}, {'b', "BUILD"}, {'c', "GLOBAL"}, {'d', "DICT"}, {'}', "EMPTY_DICT"},
    {'e', "APPENDS"}, {'g', "GET"}, {'h', "BINGET"}, {'i', "INST"}, {'j', "LONG_BINGET"},
    {'l', "LIST"}, {']', "EMPTY_LIST"}, {'o', "OBJ"}, {'p', "PUT"}, {'q', "BINPUT"},
    {'r', "LONG_BINPUT"}, {'s', "SETITEM"}, {'t', "TUPLE"}, {')', "EMPTY_TUPLE"},
    {'u', "SETITEMS"}, {'G', "BINFLOAT"}, {'B', "BINBYTES"}, {'C', "SHORT_BINBYTES"},
    {0x80, "PROTO"}, {0x81, "NEWOBJ"}, {0x82, "EXT1"}, {0x83, "EXT2"}, {0x84, "EXT4"},
    {0x85, "TUPLE1"}, {0x86, "TUPLE2"}, {0x87, "TUPLE3"}, {0x88, "NEWTRUE"}, {0x89, "NEWFALSE"},
    {0x8a, "LONG1"}, {0x8b, "LONG4"}, {0x8c, "SHORT_BINUNICODE"}, {0x8d, "BINUNICODE8"},
    {0x8e, "BINBYTES8"}, {0x8f, "EMPTY_SET"}, {0x90, "ADDITEMS"}, {0x91, "FROZENSET"},
    {0x92, "NEWOBJ_EX"}, {0x93, "STACK_GLOBAL"}, {0x94, "MEMOIZE"}, {0x95, "FRAME"},
    {0x96, "BYTEARRAY8"}, {0x97, "NEXT_BUFFER"}, {0x98, "READONLY_BUFFER"},
};

typedef struct {
    const unsigned char *p;
    size_t n, pos, at;  /* at: the current opcode's offset (messages) */
    const char *name;
    char *err;
    size_t errlen;
    pv **stack;         /* [sp] */
    size_t sp, scap;
    size_t marks[MAX_MARKS];
    int nmarks;
    pv **memo;          /* [memo_cap], NULL where unset */
    size_t memo_cap, memo_len; /* memo_len: keys set (MEMOIZE's next key, as Python's len) */
    pv **all;           /* every value made: freed at the end, never walked */
    size_t nall, allcap;
    size_t ops;
    tp_state_dict *sd;  /* storages are added as BINPERSID meets them */
    tp_tensor *tens;    /* [ntens] every tensor REDUCE made (unnamed) */
    int ntens, tcap;
} machine;

static const char *opname(unsigned char op)
{
    for (size_t i = 0; i < sizeof opnames / sizeof opnames[0]; i++)
        if (opnames[i].op == op)
            return opnames[i].name;
    return "unknown";
}

static int fail(machine *m, const char *what)
{
    unsigned char op = m->p[m->at];
    return xerr(m->err, m->errlen, "%s: opcode %s (0x%02x) at byte %zu: %s", m->name, opname(op),
                op, m->at, what);
}

#define FAILF(m, ...)                                                                         \
    do {                                                                                      \
        char what_[400];                                                                      \
        snprintf(what_, sizeof what_, __VA_ARGS__);                                           \
        return fail(m, what_);                                                                \
    } while (0)

static pv *make(machine *m, vkind k)
{
    pv *v;
    if (m->nall >= MAX_VALUES) {
        fail(m, "more than 4194304 values: not a state dict");
        return NULL;
    }
    if (m->nall == m->allcap) {
        size_t c = m->allcap ? 2 * m->allcap : 256;
        pv **a = realloc(m->all, c * sizeof *a);
        if (!a) {
            fail(m, "out of memory");
            return NULL;
        }
        m->all = a;
        m->allcap = c;
    }
    if (!(v = calloc(1, sizeof *v))) {
        fail(m, "out of memory");
        return NULL;
    }
    v->kind = k;
    m->all[m->nall++] = v;
    return v;
}

static int push(machine *m, pv *v)
{
    if (!v)
        return -1;
    if (m->sp >= MAX_STACK)
        return fail(m, "the stack holds more than 1048576 values: not a state dict");
    if (m->sp == m->scap) {
        size_t c = m->scap ? 2 * m->scap : 64;
        pv **s = realloc(m->stack, c * sizeof *s);
        if (!s)
            return fail(m, "out of memory");
        m->stack = s;
        m->scap = c;
    }
    m->stack[m->sp++] = v;
    return 0;
}

/* The stack's top, above the last mark (a value under a mark is not the operand's). */
static pv *pop(machine *m)
{
    size_t floor = m->nmarks ? m->marks[m->nmarks - 1] : 0;
    if (m->sp <= floor) {
        fail(m, m->sp ? "no value above the mark" : "the stack is empty");
        return NULL;
    }
    return m->stack[--m->sp];
}

static int append(machine *m, pv *seq, pv *v)
{
    if (seq->n == seq->cap) {
        size_t c = seq->cap ? 2 * seq->cap : 4;
        pv **a = realloc(seq->items, c * sizeof *a);
        if (!a)
            return fail(m, "out of memory");
        seq->items = a;
        seq->cap = c;
    }
    seq->items[seq->n++] = v;
    return 0;
}

/* A tuple of the values above the last mark (mark removed) or of the top k (k >= 0). */
static int make_tuple(machine *m, vkind kind, long k)
{
    size_t from;
    pv *t;
    if (k < 0) {
        if (!m->nmarks)
            return fail(m, "no mark to collect from");
        from = m->marks[--m->nmarks];
    } else {
        size_t floor = m->nmarks ? m->marks[m->nmarks - 1] : 0;
        if (m->sp < floor + (size_t)k)
            return fail(m, "fewer values on the stack than the tuple takes");
        from = m->sp - (size_t)k;
    }
    if (!(t = make(m, kind)))
        return -1;
    if (m->sp > from) {
        if (!(t->items = malloc((m->sp - from) * sizeof *t->items)))
            return fail(m, "out of memory");
        memcpy(t->items, m->stack + from, (m->sp - from) * sizeof *t->items);
        t->n = t->cap = m->sp - from;
    }
    m->sp = from;
    return push(m, t);
}

static int need(machine *m, size_t k)
{
    if (m->n - m->pos < k)
        return fail(m, "the pickle ends inside its argument (truncated)");
    return 0;
}

static uint64_t le(const unsigned char *p, int k)
{
    uint64_t v = 0;
    for (int i = k; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static int push_str(machine *m, size_t len)
{
    pv *v;
    if (len > MAX_STRING)
        FAILF(m, "a string of %zu bytes (at most %zu): not a state dict", len, MAX_STRING);
    if (need(m, len))
        return -1;
    if (memchr(m->p + m->pos, 0, len))
        return fail(m, "a string holds a NUL byte");
    if (!(v = make(m, V_STR)) || !(v->s = malloc(len + 1)))
        return v ? fail(m, "out of memory") : -1;
    memcpy(v->s, m->p + m->pos, len);
    v->s[len] = 0;
    m->pos += len;
    return push(m, v);
}

static int push_int(machine *m, int64_t i)
{
    pv *v = make(m, V_INT);
    if (!v)
        return -1;
    v->i = i;
    return push(m, v);
}

/* module and name of a global: looked up in the allow-list; anything else is refused here,
 * before anything could use it. */
static int push_global(machine *m, const char *module, const char *name)
{
    pv *v;
    for (int g = 0; g < N_GLOBALS; g++)
        if (strcmp(globals[g].module, module) == 0 && strcmp(globals[g].name, name) == 0) {
            if (!(v = make(m, V_GLOBAL)))
                return -1;
            v->i = g;
            return push(m, v);
        }
    FAILF(m, "global %.100s.%.100s is not allowed: a state dict needs only "
          "collections.OrderedDict, torch._utils._rebuild_tensor_v2 and torch's storage types "
          "(nothing in the file is ever executed)", module, name);
}

/* A line of GLOBAL's argument, newline-terminated, at most 255 bytes. */
static int line(machine *m, char *out)
{
    const unsigned char *nl;
    size_t avail = m->n - m->pos, len;
    nl = memchr(m->p + m->pos, '\n', avail < 256 ? avail : 256);
    if (!nl)
        return fail(m, "a module or name without its newline in 255 bytes");
    len = (size_t)(nl - (m->p + m->pos));
    memcpy(out, m->p + m->pos, len);
    out[len] = 0;
    if (memchr(out, 0, len))
        return fail(m, "a NUL byte in a module or name");
    m->pos += len + 1;
    return 0;
}

static int memo_put(machine *m, uint64_t key)
{
    if (!m->sp || (m->nmarks && m->sp == m->marks[m->nmarks - 1]))
        return fail(m, "nothing to memoize");
    /* the pickler numbers memo entries 0, 1, 2, ...: a key past the opcodes run so far is not
     * one it wrote, and would only make the memo huge */
    if (key >= MAX_MEMO || key > m->ops)
        FAILF(m, "memo key %llu after %zu opcodes: not written by a pickler",
              (unsigned long long)key, m->ops);
    if (key >= m->memo_cap) {
        size_t c = m->memo_cap ? m->memo_cap : 64;
        pv **a;
        while (c <= key)
            c *= 2;
        if (!(a = realloc(m->memo, c * sizeof *a)))
            return fail(m, "out of memory");
        memset(a + m->memo_cap, 0, (c - m->memo_cap) * sizeof *a);
        m->memo = a;
        m->memo_cap = c;
    }
    m->memo_len += !m->memo[key];
    m->memo[key] = m->stack[m->sp - 1];
    return 0;
}

static int memo_get(machine *m, uint64_t key)
{
    if (key >= m->memo_cap || !m->memo[key])
        FAILF(m, "memo key %llu was never set", (unsigned long long)key);
    return push(m, m->memo[key]);
}

/* An int tuple of at most ST_MAX_DIMS entries in [0, 2^40] (a size or a stride). */
static int dims(machine *m, const pv *t, int64_t *out, const char *what)
{
    if (t->kind != V_TUPLE)
        FAILF(m, "_rebuild_tensor_v2: %s is a %s, expected a tuple of ints", what,
              kind_names[t->kind]);
    if (t->n > ST_MAX_DIMS)
        FAILF(m, "_rebuild_tensor_v2: %s has %zu dimensions (at most %d)", what, t->n,
              ST_MAX_DIMS);
    for (size_t i = 0; i < t->n; i++) {
        if (t->items[i]->kind != V_INT || t->items[i]->i < 0 || t->items[i]->i > MAX_DIM)
            FAILF(m, "_rebuild_tensor_v2: %s[%zu] is not an int in [0, 2^40]", what, i);
        out[i] = t->items[i]->i;
    }
    return 0;
}

/* _rebuild_tensor_v2(storage, offset, sizes, strides, requires_grad, hooks[, metadata]) and
 * _rebuild_tensor(storage, offset, sizes, strides): a view of a storage. Checked here: types,
 * and that every element the view reaches lies inside the storage as the pickle declares it
 * (torch_bin.c checks the declaration against the archive). */
static int rebuild(machine *m, int g, const pv *a)
{
    tp_tensor t;
    const tp_storage *s;
    pv *v;
    int64_t last = 0, numel = 1;
    size_t want = g == G_REBUILD ? 4 : 6;
    memset(&t, 0, sizeof t);
    if (a->n != want && !(g == G_REBUILD_V2 && a->n == 7))
        FAILF(m, "%s takes %zu arguments, got %zu", globals[g].name, want, a->n);
    if (a->items[0]->kind != V_STORAGE)
        FAILF(m, "%s: argument 0 is a %s, expected a storage", globals[g].name,
              kind_names[a->items[0]->kind]);
    if (a->items[1]->kind != V_INT || a->items[1]->i < 0 || a->items[1]->i > ((int64_t)1 << 50))
        FAILF(m, "%s: the storage offset is not an int in [0, 2^50]", globals[g].name);
    if (g == G_REBUILD_V2 &&
        (a->items[4]->kind != V_BOOL || a->items[5]->kind != V_DICT || a->items[5]->n != 0 ||
         (a->n == 7 && a->items[6]->kind != V_NONE && a->items[6]->kind != V_DICT)))
        return fail(m, "_rebuild_tensor_v2: requires_grad is not a bool, or the backward "
                       "hooks are not an empty dict, or the metadata not a dict");
    t.storage = (int)a->items[0]->i;
    t.offset = a->items[1]->i;
    if (dims(m, a->items[2], t.shape, "sizes") || dims(m, a->items[3], t.stride, "strides"))
        return -1;
    if (a->items[2]->n != a->items[3]->n)
        FAILF(m, "_rebuild_tensor_v2: %zu sizes but %zu strides", a->items[2]->n,
              a->items[3]->n);
    t.ndim = (int)a->items[2]->n;
    s = &m->sd->storages[t.storage];
    for (int i = 0; i < t.ndim; i++) {
        int64_t span;
        if (t.shape[i] && numel > ((int64_t)1 << 50) / t.shape[i])
            return fail(m, "_rebuild_tensor_v2: more than 2^50 elements");
        numel *= t.shape[i];
        /* (shape - 1) * stride <= 2^80 overflows: refuse anything past 2^50 */
        if (t.shape[i] &&
            (__builtin_mul_overflow(t.shape[i] - 1, t.stride[i], &span) ||
             __builtin_add_overflow(last, span, &last) || last > ((int64_t)1 << 50)))
            return fail(m, "_rebuild_tensor_v2: the view reaches past 2^50 elements");
    }
    if (numel > 0 && t.offset + last >= s->numel)
        FAILF(m, "_rebuild_tensor_v2: the view (offset %lld, its last element at %lld) runs "
              "past storage \"%.64s\" of %lld elements", (long long)t.offset,
              (long long)(t.offset + last), s->key, (long long)s->numel);
    if (m->ntens >= MAX_ITEMS)
        return fail(m, "more than 1048576 tensors");
    if (m->ntens == m->tcap) {
        int c = m->tcap ? 2 * m->tcap : 64;
        tp_tensor *n = realloc(m->tens, (size_t)c * sizeof *n);
        if (!n)
            return fail(m, "out of memory");
        m->tens = n;
        m->tcap = c;
    }
    m->tens[m->ntens] = t;
    if (!(v = make(m, V_TENSOR)))
        return -1;
    v->i = m->ntens++;
    return push(m, v);
}

static int reduce(machine *m)
{
    pv *a = pop(m), *f = a ? pop(m) : NULL;
    if (!f)
        return -1;
    if (f->kind != V_GLOBAL || f->i >= G_FIRST_STORAGE)
        FAILF(m, "REDUCE calls a %s%s%s: only OrderedDict, _rebuild_tensor_v2 and "
              "_rebuild_parameter may be called", kind_names[f->kind],
              f->kind == V_GLOBAL ? " " : "", f->kind == V_GLOBAL ? globals[f->i].name : "");
    if (a->kind != V_TUPLE)
        FAILF(m, "REDUCE's arguments are a %s, expected a tuple", kind_names[a->kind]);
    switch (f->i) {
    case G_ORDERED_DICT:
        if (a->n != 0)
            return fail(m, "OrderedDict is called with arguments (a state dict's has none)");
        return push(m, make(m, V_DICT));
    case G_REBUILD_PARAM: /* (tensor, requires_grad, hooks): the tensor itself */
        if (a->n != 3 || a->items[0]->kind != V_TENSOR || a->items[1]->kind != V_BOOL ||
            a->items[2]->kind != V_DICT)
            return fail(m, "_rebuild_parameter takes (tensor, bool, dict)");
        return push(m, a->items[0]);
    default:
        return rebuild(m, (int)f->i, a);
    }
}

/* BINPERSID: ('storage', type, key, location, numel) names a storage record. */
static int persid(machine *m)
{
    pv *t = pop(m), **it, *v;
    tp_state_dict *sd = m->sd;
    int g, k;
    if (!t)
        return -1;
    it = t->items;
    if (t->kind != V_TUPLE || t->n != 5 || it[0]->kind != V_STR || strcmp(it[0]->s, "storage") ||
        it[1]->kind != V_GLOBAL || it[1]->i < G_FIRST_STORAGE || it[2]->kind != V_STR ||
        it[3]->kind != V_STR || it[4]->kind != V_INT)
        return fail(m, "a persistent id is not ('storage', a storage type, key, location, "
                       "numel)");
    if (it[4]->i < 0 || it[4]->i > ((int64_t)1 << 50)) /* said as what it is (issue 37) */
        FAILF(m, "storage \"%.64s\": %lld elements, expected 0 to at most 2^50 "
              "(1125899906842624)", it[2]->s, (long long)it[4]->i);
    g = (int)it[1]->i;
    if (strchr(it[2]->s, '/') || !it[2]->s[0] || strlen(it[2]->s) > 64)
        FAILF(m, "storage key \"%.64s\" is not a record name", it[2]->s);
    for (k = 0; k < sd->n_storages; k++)
        if (strcmp(sd->storages[k].key, it[2]->s) == 0)
            break;
    if (k < sd->n_storages) { /* a storage shared by several tensors (tied weights) */
        if (sd->storages[k].dtype != globals[g].dtype || sd->storages[k].numel != it[4]->i)
            FAILF(m, "storage \"%s\" is named twice as different storages (%s of %lld "
                  "elements, then %s of %lld)", it[2]->s, st_dtype_name(sd->storages[k].dtype),
                  (long long)sd->storages[k].numel, st_dtype_name(globals[g].dtype),
                  (long long)it[4]->i);
    } else {
        tp_storage *s;
        if (sd->n_storages >= MAX_ITEMS)
            return fail(m, "more than 1048576 storages");
        if (!(s = realloc(sd->storages, (size_t)(sd->n_storages + 1) * sizeof *s)))
            return fail(m, "out of memory");
        sd->storages = s;
        s += sd->n_storages;
        if (!(s->key = strdup(it[2]->s)))
            return fail(m, "out of memory");
        s->dtype = globals[g].dtype;
        s->numel = it[4]->i;
        sd->n_storages++;
    }
    if (!(v = make(m, V_STORAGE)))
        return -1;
    v->i = k;
    return push(m, v);
}

/* SETITEM(S) / APPEND(S): the values above the last mark (or the top 2 / 1) into the dict or
 * list under them. */
static int fill(machine *m, int dict, int marked)
{
    size_t from, k;
    pv *target;
    if (marked) {
        if (!m->nmarks)
            return fail(m, "no mark to collect from");
        from = m->marks[--m->nmarks];
    } else {
        size_t floor = m->nmarks ? m->marks[m->nmarks - 1] : 0;
        if (m->sp < floor + (dict ? 3 : 2))
            return fail(m, "fewer values on the stack than it takes");
        from = m->sp - (dict ? 2 : 1);
    }
    if (from == 0 || from - 1 < (m->nmarks ? m->marks[m->nmarks - 1] : 0) ||
        (dict && (m->sp - from) % 2))
        return fail(m, dict ? "no dict under the items, or an odd number of them"
                            : "no list under the items");
    target = m->stack[from - 1];
    if (target->kind != (dict ? V_DICT : V_LIST))
        FAILF(m, "adds items to a %s, expected a %s", kind_names[target->kind],
              dict ? "dict" : "list");
    for (k = from; k < m->sp; k++)
        if (append(m, target, m->stack[k]))
            return -1;
    m->sp = from;
    return 0;
}

static int step(machine *m, int *stop)
{
    unsigned char op = m->p[m->pos];
    char mod[256], nm[256];
    pv *v, *w;
    m->at = m->pos++;
    m->ops++;
    switch (op) {
    case 0x80: /* PROTO */
        if (need(m, 1))
            return -1;
        if (m->p[m->pos] > 5)
            FAILF(m, "protocol %d (at most 5)", m->p[m->pos]);
        m->pos++;
        return 0;
    case 0x95: /* FRAME: an 8-byte length; the frame's opcodes follow as usual */
        if (need(m, 8))
            return -1;
        if (le(m->p + m->pos, 8) > m->n - m->pos - 8)
            return fail(m, "a frame longer than the rest of the pickle");
        m->pos += 8;
        return 0;
    case '(':
        if (m->nmarks >= MAX_MARKS)
            FAILF(m, "more than %d nested marks: not a state dict", MAX_MARKS);
        m->marks[m->nmarks++] = m->sp;
        return 0;
    case '.':
        *stop = 1;
        return 0;
    case 'c':
        if (line(m, mod) || line(m, nm))
            return -1;
        return push_global(m, mod, nm);
    case 0x93: /* STACK_GLOBAL */
        if (!(w = pop(m)) || !(v = pop(m)))
            return -1;
        if (v->kind != V_STR || w->kind != V_STR)
            return fail(m, "module and name are not strings");
        return push_global(m, v->s, w->s);
    case 'q':
        if (need(m, 1))
            return -1;
        return memo_put(m, m->p[m->pos++]);
    case 'r':
        if (need(m, 4))
            return -1;
        m->pos += 4;
        return memo_put(m, le(m->p + m->pos - 4, 4));
    case 0x94: /* MEMOIZE: the next key */
        return memo_put(m, m->memo_len);
    case 'h':
        if (need(m, 1))
            return -1;
        return memo_get(m, m->p[m->pos++]);
    case 'j':
        if (need(m, 4))
            return -1;
        m->pos += 4;
        return memo_get(m, le(m->p + m->pos - 4, 4));
    case ')':
        return make_tuple(m, V_TUPLE, 0);
    case 't':
        return make_tuple(m, V_TUPLE, -1);
    case 0x85: case 0x86: case 0x87:
        return make_tuple(m, V_TUPLE, op - 0x84);
    case ']':
        return push(m, make(m, V_LIST));
    case 'l':
        return make_tuple(m, V_LIST, -1);
    case '}':
        return push(m, make(m, V_DICT));
    case 'd':
        if (make_tuple(m, V_DICT, -1))
            return -1;
        if (m->stack[m->sp - 1]->n % 2)
            return fail(m, "an odd number of items for a dict");
        return 0;
    case 'a': return fill(m, 0, 0);
    case 'e': return fill(m, 0, 1);
    case 's': return fill(m, 1, 0);
    case 'u': return fill(m, 1, 1);
    case 'X':
        if (need(m, 4))
            return -1;
        m->pos += 4;
        return push_str(m, (size_t)le(m->p + m->pos - 4, 4));
    case 0x8c: /* SHORT_BINUNICODE */
        if (need(m, 1))
            return -1;
        return push_str(m, m->p[m->pos++]);
    case 'K':
        if (need(m, 1))
            return -1;
        return push_int(m, m->p[m->pos++]);
    case 'M':
        if (need(m, 2))
            return -1;
        m->pos += 2;
        return push_int(m, (int64_t)le(m->p + m->pos - 2, 2));
    case 'J':
        if (need(m, 4))
            return -1;
        m->pos += 4;
        return push_int(m, (int32_t)(uint32_t)le(m->p + m->pos - 4, 4));
    case 0x8a: { /* LONG1: n bytes, little-endian two's complement */
        size_t k;
        uint64_t u;
        if (need(m, 1))
            return -1;
        k = m->p[m->pos++];
        if (k > 8)
            FAILF(m, "an integer of %zu bytes (at most 8)", k);
        if (need(m, k))
            return -1;
        u = le(m->p + m->pos, (int)k);
        if (k && k < 8 && (m->p[m->pos + k - 1] & 0x80))
            u |= ~(uint64_t)0 << (8 * k); /* sign-extend */
        m->pos += k;
        return push_int(m, (int64_t)u);
    }
    case 'G':
        if (need(m, 8))
            return -1;
        m->pos += 8; /* a float is kept as nothing but its kind: no state dict rule reads one */
        return push(m, make(m, V_FLOAT));
    case 'N':
        return push(m, make(m, V_NONE));
    case 0x88: case 0x89:
        if (!(v = make(m, V_BOOL)))
            return -1;
        v->i = op == 0x88;
        return push(m, v);
    case 'Q':
        return persid(m);
    case 'R':
        return reduce(m);
    case 'b': /* BUILD: the instance state of an OrderedDict (state_dict()'s _metadata) */
        if (!(w = pop(m)) || !(v = pop(m)))
            return -1;
        if (v->kind != V_DICT || w->kind != V_DICT)
            FAILF(m, "sets the state of a %s to a %s (only a dict's, to a dict)",
                  kind_names[v->kind], kind_names[w->kind]);
        return push(m, v); /* the state is dropped */
    default:
        return fail(m, "not allowed in a state dict");
    }
}

void tp_free(tp_state_dict *sd)
{
    if (!sd)
        return;
    for (int i = 0; i < sd->n_storages; i++)
        free(sd->storages[i].key);
    for (int i = 0; i < sd->n_tensors; i++)
        free(sd->tensors[i].name);
    free(sd->storages);
    free(sd->tensors);
    memset(sd, 0, sizeof *sd);
}

/* The value STOP returned: a dict of str -> tensor, into sd->tensors. */
static int result(machine *m, const pv *d)
{
    tp_state_dict *sd = m->sd;
    if (d->kind != V_DICT)
        return xerr(m->err, m->errlen, "%s: the pickle holds a %s, expected a state dict (a "
                    "dict of tensors)", m->name, kind_names[d->kind]);
    if (d->n / 2 > MAX_ITEMS || !(sd->tensors = calloc(d->n / 2 + 1, sizeof *sd->tensors)))
        return xerr(m->err, m->errlen, "%s: out of memory", m->name);
    for (size_t i = 0; i + 1 < d->n; i += 2) {
        const pv *k = d->items[i], *v = d->items[i + 1];
        if (k->kind != V_STR)
            return xerr(m->err, m->errlen, "%s: state dict entry %zu has a %s as its name, "
                        "expected a str", m->name, i / 2, kind_names[k->kind]);
        if (v->kind != V_TENSOR)
            return xerr(m->err, m->errlen, "%s: state dict entry \"%.200s\" is a %s, expected "
                        "a tensor", m->name, k->s, kind_names[v->kind]);
        sd->tensors[sd->n_tensors] = m->tens[v->i];
        if (!(sd->tensors[sd->n_tensors].name = strdup(k->s)))
            return xerr(m->err, m->errlen, "%s: out of memory", m->name);
        sd->n_tensors++;
    }
    return 0;
}

int tp_read(tp_state_dict *sd, const void *pkl, size_t n, const char *name, char *err,
            size_t errlen)
{
    machine m;
    int stop = 0, rc = -1;
    memset(sd, 0, sizeof *sd);
    memset(&m, 0, sizeof m);
    m.p = pkl;
    m.n = n;
    m.name = name;
    m.err = err;
    m.errlen = errlen;
    m.sd = sd;
    if (n > MAX_PICKLE)
        return xerr(err, errlen, "%s: a pickle of %zu bytes (at most %zu): not a state dict",
                    name, n, MAX_PICKLE);
    while (!stop) {
        if (m.pos >= n) {
            xerr(err, errlen, "%s: the pickle ends at byte %zu without STOP (truncated)", name,
                 n);
            goto done;
        }
        if (step(&m, &stop))
            goto done;
    }
    if (m.pos != n) {
        xerr(err, errlen, "%s: %zu bytes after STOP at byte %zu", name, n - m.pos, m.at);
        goto done;
    }
    if (m.sp != 1 || m.nmarks) {
        xerr(err, errlen, "%s: STOP leaves %zu values and %d marks on the stack, expected one "
             "value", name, m.sp, m.nmarks);
        goto done;
    }
    rc = result(&m, m.stack[0]);
done:
    for (size_t i = 0; i < m.nall; i++) {
        free(m.all[i]->s);
        free(m.all[i]->items);
        free(m.all[i]);
    }
    free(m.all);
    free(m.stack);
    free(m.memo);
    free(m.tens);
    if (rc)
        tp_free(sd);
    return rc;
}
