/* test_spm.c — unit tests of the tokenizer (src/text/spm*.c) on hand-built models with hand-computed expectations,
 * error handling for malformed .model files, and thread safety. The library-parity tests (real
 * and trained models, every line of the data) are in tests/py/test_spm_parity.py. */
#include "check.h"
#include "text/spm.h"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SP "\xe2\x96\x81" /* U+2581 */

/* ---- a protobuf writer, enough to build ModelProto by hand ---- */

typedef struct {
    unsigned char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        b->cap = cap;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void put_varint(buf *b, uint64_t v)
{
    do {
        unsigned char c = (unsigned char)(v & 0x7f);
        v >>= 7;
        if (v)
            c |= 0x80;
        put(b, &c, 1);
    } while (v);
}

static void put_tag(buf *b, unsigned field, unsigned wt) { put_varint(b, (uint64_t)field << 3 | wt); }

static void put_len(buf *b, unsigned field, const void *d, size_t n)
{
    put_tag(b, field, 2);
    put_varint(b, n);
    put(b, d, n);
}

static void put_int(buf *b, unsigned field, uint64_t v)
{
    put_tag(b, field, 0);
    put_varint(b, v);
}

static void put_float(buf *b, unsigned field, float f)
{
    unsigned char le[4];
    uint32_t u;
    memcpy(&u, &f, 4);
    for (int i = 0; i < 4; i++)
        le[i] = (unsigned char)(u >> (8 * i));
    put_tag(b, field, 5);
    put(b, le, 4);
}

enum { NORMAL = 1, UNKNOWN = 2, CONTROL = 3, USER = 4, UNUSED = 5, BYTE = 6 };
enum { UNIGRAM = 1, BPE = 2, WORD = 3, CHAR = 4 };

typedef struct {
    const char *piece;
    float score;
    int type;
} piece;

typedef struct {
    int model_type, byte_fallback, dummy, remove_ws, escape, suffix;
    const unsigned char *charsmap;
    size_t charsmap_len;
} spec;

static void put_piece(buf *m, const char *s, float score, int type)
{
    buf p = {0};
    put_len(&p, 1, s, strlen(s));
    put_float(&p, 2, score);
    if (type != NORMAL)
        put_int(&p, 3, (uint64_t)type);
    put_len(m, 1, p.p, p.n);
    free(p.p);
}

/* Serializes a model; with byte_fallback the 256 byte pieces follow the given ones. */
static buf build(const piece *pc, int n, const spec *s)
{
    buf m = {0}, t = {0}, nm = {0};
    for (int i = 0; i < n; i++)
        put_piece(&m, pc[i].piece, pc[i].score, pc[i].type);
    if (s->byte_fallback)
        for (int c = 0; c < 256; c++) {
            char bp[8];
            snprintf(bp, sizeof bp, "<0x%02X>", c);
            put_piece(&m, bp, 0.0f, BYTE);
        }
    put_int(&t, 3, (uint64_t)s->model_type);
    put_int(&t, 35, (uint64_t)s->byte_fallback);
    put_int(&t, 24, (uint64_t)s->suffix);
    put_len(&m, 2, t.p, t.n);
    put_len(&nm, 1, "test", 4);
    if (s->charsmap)
        put_len(&nm, 2, s->charsmap, s->charsmap_len);
    put_int(&nm, 3, (uint64_t)s->dummy);
    put_int(&nm, 4, (uint64_t)s->remove_ws);
    put_int(&nm, 5, (uint64_t)s->escape);
    put_len(&m, 3, nm.p, nm.n);
    free(t.p);
    free(nm.p);
    return m;
}

static spm_model *load(const buf *b, const char *what)
{
    spm_model *m = NULL;
    char err[512];
    if (!check(spm_load_from_memory(&m, b->p, b->n, what, err, sizeof err) == 0, what, "%s",
               err))
        return NULL;
    return m;
}

/* Encodes text and compares with the expected ids. */
static void expect_ids(const spm_model *m, const char *text, size_t len, const int *want,
                       int nwant, const char *what)
{
    int *ids = NULL, n = -1;
    char err[512], got[512] = "", exp[512] = "";
    if (!m) {
        check(0, what, "no model");
        return;
    }
    if (spm_encode(m, text, len, &ids, &n, err, sizeof err) != 0) {
        check(0, what, "spm_encode failed: %s", err);
        return;
    }
    for (int i = 0; i < n && strlen(got) < 400; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%d", i ? " " : "", ids[i]);
    for (int i = 0; i < nwant; i++)
        snprintf(exp + strlen(exp), sizeof exp - strlen(exp), "%s%d", i ? " " : "", want[i]);
    check(n == nwant && (n == 0 || memcmp(ids, want, (size_t)n * sizeof *ids) == 0), what,
          "got [%s] expected [%s]", got, exp);
    free(ids);
}

static void expect_text(const spm_model *m, const int *ids, int n, const char *want,
                        size_t wantlen, const char *what)
{
    char *text = NULL, err[512];
    size_t len = 0;
    if (!m) {
        check(0, what, "no model");
        return;
    }
    if (spm_decode(m, ids, n, &text, &len, err, sizeof err) != 0) {
        check(0, what, "spm_decode failed: %s", err);
        return;
    }
    check(len == wantlen && memcmp(text, want, len) == 0 && text[len] == '\0', what,
          "got [%s] (%zu bytes) expected [%s]", text, len, want);
    free(text);
}

/* Encodes with spans: the ids must be spm_encode's, the spans want[2 * nids]. */
static void expect_spans(const spm_model *m, const char *text, size_t len, const int *want,
                         int nwant, const char *what)
{
    int *ids = NULL, *plain = NULL, *sp = NULL, n = -1, np = -1;
    char err[512], got[512] = "", exp[512] = "";
    if (!m) {
        check(0, what, "no model");
        return;
    }
    if (spm_encode_spans(m, text, len, &ids, &sp, &n, err, sizeof err) != 0 ||
        spm_encode(m, text, len, &plain, &np, err, sizeof err) != 0) {
        check(0, what, "encode failed: %s", err);
        return;
    }
    for (int i = 0; i < n && strlen(got) < 400; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%d:%d", i ? " " : "",
                 sp[2 * i], sp[2 * i + 1]);
    for (int i = 0; i < nwant / 2; i++)
        snprintf(exp + strlen(exp), sizeof exp - strlen(exp), "%s%d:%d", i ? " " : "",
                 want[2 * i], want[2 * i + 1]);
    check(n == np && (n == 0 || memcmp(ids, plain, (size_t)n * sizeof *ids) == 0) &&
              2 * n == nwant && (n == 0 || memcmp(sp, want, (size_t)nwant * sizeof *sp) == 0) &&
              (n > 0 || sp == NULL),
          what, "got [%s] expected [%s] (%d ids, spm_encode %d)", got, exp, n, np);
    free(ids);
    free(plain);
    free(sp);
}

/* Decodes with spans: the text must be spm_decode's (want_text), the spans want[2 * n]. */
static void expect_dec_spans(const spm_model *m, const int *ids, int n, const char *want_text,
                             size_t wantlen, const int *want, int nwant, const char *what)
{
    char *text = NULL, err[512], got[512] = "", exp[512] = "";
    int *sp = NULL;
    size_t len = 0;
    if (!m) {
        check(0, what, "no model");
        return;
    }
    if (spm_decode_spans(m, ids, n, &text, &len, &sp, err, sizeof err) != 0) {
        check(0, what, "spm_decode_spans failed: %s", err);
        return;
    }
    for (int i = 0; i < n && strlen(got) < 400; i++)
        snprintf(got + strlen(got), sizeof got - strlen(got), "%s%d:%d", i ? " " : "",
                 sp[2 * i], sp[2 * i + 1]);
    for (int i = 0; i < nwant / 2; i++)
        snprintf(exp + strlen(exp), sizeof exp - strlen(exp), "%s%d:%d", i ? " " : "",
                 want[2 * i], want[2 * i + 1]);
    check(len == wantlen && memcmp(text, want_text, len) == 0 && 2 * n == nwant &&
              (n == 0 || memcmp(sp, want, (size_t)nwant * sizeof *sp) == 0),
          what, "got [%s] '%s' expected [%s] '%s'", got, text, exp, want_text);
    free(text);
    free(sp);
}

#define IDS(...) (const int[]){__VA_ARGS__}, (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int))

/* ---- unigram ---- */

static const piece uni_pieces[] = {
    {"<unk>", 0, UNKNOWN}, /* 0 */
    {"<s>", 0, CONTROL},   /* 1 */
    {"</s>", 0, CONTROL},  /* 2 */
    {SP "a", -1.0f, NORMAL},   /* 3 */
    {SP, -2.0f, NORMAL},       /* 4 */
    {"a", -1.5f, NORMAL},      /* 5 */
    {"b", -2.0f, NORMAL},      /* 6 */
    {"ab", -2.5f, NORMAL},     /* 7 */
    {SP "ab", -5.0f, NORMAL},  /* 8 */
    {"<sep>", 0, USER},        /* 9 */
    {"bb", -0.1f, UNUSED},     /* 10 */
};

static void test_unigram(void)
{
    spec s = {UNIGRAM, 0, 1, 1, 1, 0, NULL, 0};
    buf b = build(uni_pieces, 11, &s);
    spm_model *m = load(&b, "unigram: hand-built model loads");
    free(b.p);
    if (!m)
        return;
    check(spm_vocab_size(m) == 11, "unigram: vocab size", "got %d", spm_vocab_size(m));
    check(spm_unk_id(m) == 0 && spm_bos_id(m) == 1 && spm_eos_id(m) == 2 && spm_pad_id(m) == -1,
          "unigram: special ids (no <pad> piece gives -1)", "unk %d bos %d eos %d pad %d",
          spm_unk_id(m), spm_bos_id(m), spm_eos_id(m), spm_pad_id(m));
    check(spm_id_to_piece(m, 3) && strcmp(spm_id_to_piece(m, 3), SP "a") == 0 &&
              spm_id_to_piece(m, 11) == NULL && spm_id_to_piece(m, -1) == NULL,
          "unigram: id_to_piece, NULL out of range", "");
    /* "ab" -> "▁ab": ▁a+b = -3 beats ▁+ab = -4.5, ▁ab = -5, ▁+a+b = -5.5 */
    expect_ids(m, "ab", 2, IDS(3, 6), "unigram: best path ▁a b");
    /* "b b" -> "▁b▁b": ▁+b+▁+b = -8 is the only path */
    expect_ids(m, "b b", 3, IDS(4, 6, 4, 6), "unigram: spaces become ▁");
    /* extra spaces: "  a   b  " normalizes to "▁a▁b" */
    expect_ids(m, "  a   b  ", 9, IDS(3, 4, 6), "unigram: extra whitespace removed");
    /* "c" is unknown: ▁ (-2) + unk (min score -5 - 10); "ccc" merges into one <unk> */
    expect_ids(m, "c", 1, IDS(4, 0), "unigram: unknown character gives <unk>");
    expect_ids(m, "accc", 4, IDS(3, 0), "unigram: a run of unknown characters gives one <unk>");
    expect_ids(m, "cac", 3, IDS(4, 0, 5, 0), "unigram: unknowns apart stay apart");
    /* UNUSED "bb" (-0.1) would win; it is skipped: ▁+b+b */
    expect_ids(m, "bb", 2, IDS(4, 6, 6), "unigram: UNUSED pieces are never chosen");
    /* user-defined symbol matched whole, even glued to other text */
    expect_ids(m, "a<sep>b", 7, IDS(3, 9, 6), "unigram: user-defined symbol kept whole");
    /* "<s>" in text is not the control piece: < s > are unknown and merge */
    expect_ids(m, "<s>", 3, IDS(4, 0), "unigram: control piece text is not matched");
    expect_ids(m, "", 0, NULL, 0, "unigram: empty input gives zero ids");
    expect_ids(m, "   ", 3, NULL, 0, "unigram: blank input gives zero ids");
    /* invalid UTF-8: \xff becomes U+FFFD (unknown), one <unk> with the 'c' after it */
    expect_ids(m, "a\xff" "c", 3, IDS(3, 0), "unigram: invalid UTF-8 byte is an unknown");
    /* NUL bytes inside the text are characters like others */
    expect_ids(m, "a\0b", 3, IDS(3, 0, 6), "unigram: NUL byte is an unknown character");
    {
        int *ids = (int *)1, n = -1;
        char err[64];
        int rc = spm_encode(m, "", 0, &ids, &n, err, sizeof err);
        check(rc == 0 && n == 0 && ids == NULL, "unigram: empty input gives ids == NULL",
              "rc %d n %d", rc, n);
    }

    /* decode */
    expect_text(m, IDS(3, 6), "ab", 2, "decode: leading ▁ of the sentence removed");
    expect_text(m, IDS(1, 3, 4, 6, 2), "a b", 3, "decode: control pieces dropped");
    expect_text(m, IDS(4, 4, 3), "a", 1,
                "decode: all leading ▁ removed while remove_extra_whitespaces");
    expect_text(m, IDS(5, 0, 6), "a \xe2\x81\x87 b", 7, "decode: <unk> becomes ' ⁇ '");
    expect_text(m, IDS(9), "<sep>", 5, "decode: user-defined piece as text");
    expect_text(m, NULL, 0, "", 0, "decode: no ids gives the empty string");
    {
        char *text = (char *)1, err[512] = "";
        size_t len = 99;
        int rc = spm_decode(m, IDS(3, 11), &text, &len, err, sizeof err);
        check(rc == -1 && text == NULL && strstr(err, "11") != NULL,
              "decode: out-of-range id is an error naming the id", "rc %d err '%s'", rc, err);
        rc = spm_decode(m, IDS(-1), &text, &len, err, sizeof err);
        check(rc == -1 && strstr(err, "-1") != NULL, "decode: negative id is an error",
              "rc %d err '%s'", rc, err);
    }
    spm_free(m);
}

/* add_dummy_prefix=false, remove_extra_whitespaces=false: spaces kept, nothing stripped. */
static void test_whitespace_options(void)
{
    spec s = {UNIGRAM, 0, 0, 0, 1, 0, NULL, 0};
    buf b = build(uni_pieces, 11, &s);
    spm_model *m = load(&b, "whitespace: model without dummy prefix and space removal loads");
    free(b.p);
    if (!m)
        return;
    /* " a  b" -> "▁a▁▁b": ▁a ▁ ▁ b */
    expect_ids(m, " a  b", 5, IDS(3, 4, 4, 6), "whitespace: no dummy prefix, spaces kept");
    expect_ids(m, "ab", 2, IDS(7), "whitespace: no dummy prefix: 'ab' is one piece");
    expect_text(m, IDS(4, 3), "  a", 3,
                "decode: no dummy prefix and no space removal: leading spaces kept");
    spm_free(m);

    spec s2 = {UNIGRAM, 0, 1, 0, 1, 0, NULL, 0};
    b = build(uni_pieces, 11, &s2);
    m = load(&b, "whitespace: dummy prefix without space removal loads");
    free(b.p);
    if (!m)
        return;
    /* only the first ▁ of the sentence is removed */
    expect_text(m, IDS(4, 4, 3), "  a", 3, "decode: only the first leading ▁ removed");
    spm_free(m);

    /* escape_whitespaces=false: spaces stay ' ' (no piece has one: unknown) */
    spec s3 = {UNIGRAM, 0, 0, 1, 0, 0, NULL, 0};
    b = build(uni_pieces, 11, &s3);
    m = load(&b, "whitespace: escape_whitespaces=false loads");
    free(b.p);
    if (!m)
        return;
    expect_ids(m, "a b", 3, IDS(5, 0, 6), "whitespace: unescaped space is an unknown");
    spm_free(m);
}

/* ---- BPE ---- */

static void test_bpe(void)
{
    const piece pc[] = {
        {"<unk>", 0, UNKNOWN}, /* 0 */
        {"a", -1, NORMAL},     /* 1 */
        {"b", -1, NORMAL},     /* 2 */
        {"c", -1, NORMAL},     /* 3 */
        {"ab", -2, NORMAL},    /* 4 */
        {"bc", -1.5f, NORMAL}, /* 5 */
        {"abc", -3, NORMAL},   /* 6 */
        {"cc", -2, NORMAL},    /* 7 */
        {"x", -1, NORMAL},     /* 8 */
        {"xx", -2, UNUSED},    /* 9 */
        {"xxx", -1, NORMAL},   /* 10 */
    };
    spec s = {BPE, 0, 0, 1, 1, 0, NULL, 0};
    buf b = build(pc, 11, &s);
    spm_model *m = load(&b, "bpe: hand-built model loads");
    free(b.p);
    if (!m)
        return;
    /* a b c: bc (-1.5) merges before ab (-2); then a+bc = "abc" is a piece */
    expect_ids(m, "abc", 3, IDS(6), "bpe: best pair first, then its neighbours");
    /* a b: only ab */
    expect_ids(m, "ab", 2, IDS(4), "bpe: single merge");
    /* c c c: cc at 0 and cc at 1 tie; leftmost wins: cc + c */
    expect_ids(m, "ccc", 3, IDS(7, 3), "bpe: ties go to the leftmost pair");
    /* unknown characters: d d merge into one <unk> */
    expect_ids(m, "adde", 4, IDS(1, 0), "bpe: a run of unknowns gives one <unk>");
    /* "xxx": x+x -> xx (UNUSED, kept for merging) -> xx+x -> xxx */
    expect_ids(m, "xxx", 3, IDS(10), "bpe: merges go through UNUSED pieces");
    /* "xx": xx is UNUSED and is split back into x x */
    expect_ids(m, "xx", 2, IDS(8, 8), "bpe: UNUSED result is resegmented");
    spm_free(m);
}

/* ---- byte fallback ---- */

static void test_byte_fallback(void)
{
    const piece pc[] = {
        {"<unk>", 0, UNKNOWN}, /* 0 */
        {"<s>", 0, CONTROL},   /* 1 */
        {"</s>", 0, CONTROL},  /* 2 */
        {SP "a", -1, NORMAL},  /* 3 */
        {"a", -1, NORMAL},     /* 4 */
        {SP, -2, NORMAL},      /* 5 */
    };                         /* then <0x00> .. <0xFF> = 6 .. 261 */
    spec s = {UNIGRAM, 1, 1, 1, 1, 0, NULL, 0};
    buf b = build(pc, 6, &s);
    spm_model *m = load(&b, "byte_fallback: model with 256 byte pieces loads");
    free(b.p);
    if (!m)
        return;
    /* é = C3 A9 -> <0xC3> <0xA9> = 6+0xC3, 6+0xA9 */
    expect_ids(m, "a\xc3\xa9", 3, IDS(3, 6 + 0xC3, 6 + 0xA9),
               "byte_fallback: unknown character becomes its UTF-8 bytes");
    /* invalid \xff normalizes to U+FFFD: its bytes EF BF BD */
    expect_ids(m, "\xff", 1, IDS(5, 6 + 0xEF, 6 + 0xBF, 6 + 0xBD),
               "byte_fallback: invalid byte becomes the bytes of U+FFFD");
    expect_text(m, IDS(3, 6 + 0xC3, 6 + 0xA9), "a\xc3\xa9", 3,
                "decode: byte pieces reassembled into UTF-8");
    expect_text(m, IDS(6 + 0xC3), "\xef\xbf\xbd", 3, "decode: a lone lead byte gives U+FFFD");
    expect_text(m, IDS(6 + 0xE2, 6 + 0x82, 3), "\xef\xbf\xbd\xef\xbf\xbd" " a", 8,
                "decode: each byte of a truncated sequence gives U+FFFD");
    expect_text(m, IDS(6 + 0xC3, 1, 6 + 0xA9), "\xef\xbf\xbd\xef\xbf\xbd", 6,
                "decode: a control piece splits a byte sequence");
    expect_text(m, IDS(6 + 'h', 6 + 'i', 6 + 0), "hi\0", 3,
                "decode: ASCII and NUL byte pieces");
    expect_text(m, IDS(6 + ' ', 3), "  a", 3, "decode: text from bytes stops the ▁ removal");
    spm_free(m);
}

/* ---- a hand-built charsmap (Darts double array) ---- */

static void test_charsmap(void)
{
    /* Rules 'x' -> "y" and 'q' -> "" (deletion). Root offset 256: the child for byte c is unit
     * 256^c; its leaf (the value unit, bit 31 set) at child^offset. */
    enum { NUNITS = 1394 };
    static uint32_t u[NUNITS];
    static unsigned char blob[4 + 4 * NUNITS + 3];
    memset(u, 0, sizeof u);
    u[0] = 256u << 10;
    u[256 ^ 'x'] = (512u << 10) | (1u << 8) | 'x'; /* leaf at 376 ^ 512 = 888 */
    u[(256 ^ 'x') ^ 512] = (1u << 31) | 0;          /* -> "y" */
    u[256 ^ 'q'] = (1024u << 10) | (1u << 8) | 'q'; /* leaf at 369 ^ 1024 = 1393 */
    u[(256 ^ 'q') ^ 1024] = (1u << 31) | 2;         /* -> "" */
    uint32_t tsize = 4 * NUNITS;
    for (int i = 0; i < 4; i++)
        blob[i] = (unsigned char)(tsize >> (8 * i));
    for (int k = 0; k < NUNITS; k++)
        for (int i = 0; i < 4; i++)
            blob[4 + 4 * k + i] = (unsigned char)(u[k] >> (8 * i));
    memcpy(blob + 4 + tsize, "y\0", 3);
    const piece pc[] = {
        {"<unk>", 0, UNKNOWN}, {SP "y", -1, NORMAL}, {"y", -2, NORMAL}, {"a", -2, NORMAL},
        {SP, -3, NORMAL},
    };
    spec s = {UNIGRAM, 0, 1, 1, 1, 0, blob, sizeof blob};
    buf b = build(pc, 5, &s);
    spm_model *m = load(&b, "charsmap: model with a hand-built charsmap loads");
    free(b.p);
    if (!m)
        return;
    /* "qxq" -> "" "y" "" -> "▁y" */
    expect_ids(m, "qxq", 3, IDS(1), "charsmap: rules replace and delete");
    /* "xax" -> "▁yay" */
    expect_ids(m, "xax", 3, IDS(1, 3, 2), "charsmap: rules apply inside words");
    /* " q x": the leading space goes; q deletes to "" and the space after it still counts as
     * following a space, so it goes too: "▁y" */
    expect_ids(m, " q x", 4, IDS(1), "charsmap: deleted characters keep space handling");
    /* spans: a deleted character belongs to the piece before it (here the only one): "qxq"
     * -> ▁ from 0 (no leading space), y from 1, the end after the last q: [0, 3) */
    expect_spans(m, "qxq", 3, IDS(0, 3), "spans: deleted characters fall inside the piece");
    /* " q x": the leading space goes (the dummy ▁ from 1), q deletes, the space after it goes
     * too; y from 3: ▁y covers [1, 4) */
    expect_spans(m, " q x", 4, IDS(1, 4), "spans: the dummy ▁ starts after leading space");
    expect_spans(m, "xax", 3, IDS(0, 1, 1, 2, 2, 3), "spans: one-to-one rules");
    spm_free(m);

    /* The same charsmap as a denormalizer (ModelProto field 5; no dummy prefix, no whitespace
     * handling) of a model that normalizes nothing: decode writes "qxa", the denormalizer
     * makes it "ya" with norm_to_orig [1, 2 | 3]. Each offset p moves to the first output byte
     * written from input at or after p: ▁q [0,1) -> [0,0), x [1,2) -> [0,1), a [2,3) -> [1,2). */
    {
        const piece dp[] = {
            {"<unk>", 0, UNKNOWN}, {SP "q", -1, NORMAL}, {"x", -1, NORMAL}, {"a", -1, NORMAL},
        };
        spec sd = {UNIGRAM, 0, 1, 1, 1, 0, NULL, 0};
        buf dn = {0};
        b = build(dp, 4, &sd);
        put_len(&dn, 1, "denorm", 6);
        put_len(&dn, 2, blob, sizeof blob);
        put_int(&dn, 3, 0);
        put_int(&dn, 4, 0);
        put_int(&dn, 5, 0);
        put_len(&b, 5, dn.p, dn.n);
        free(dn.p);
        m = load(&b, "spans: model with a denormalizer loads");
        free(b.p);
        if (m) {
            expect_text(m, IDS(1, 2, 3), "ya", 2, "denormalizer: decode applies it");
            expect_dec_spans(m, IDS(1, 2, 3), "ya", 2, IDS(0, 0, 0, 1, 1, 2),
                             "decode spans: moved through the denormalizer's alignment");
            spm_free(m);
        }
    }

    /* a charsmap whose size field exceeds the blob */
    unsigned char bad[8] = {0xff, 0xff, 0, 0, 1, 2, 3, 4};
    spec s2 = {UNIGRAM, 0, 1, 1, 1, 0, bad, sizeof bad};
    b = build(pc, 5, &s2);
    char err[512] = "";
    spm_model *m2 = NULL;
    int rc = spm_load_from_memory(&m2, b.p, b.n, "bad-charsmap.model", err, sizeof err);
    check(rc == -1 && m2 == NULL && strstr(err, "bad-charsmap.model") && strstr(err, "charsmap"),
          "charsmap: trie size past the blob is an error naming the file", "rc %d err '%s'", rc,
          err);
    free(b.p);
    unsigned char tiny[3] = {1, 0, 0};
    spec s3 = {UNIGRAM, 0, 1, 1, 1, 0, tiny, sizeof tiny};
    b = build(pc, 5, &s3);
    rc = spm_load_from_memory(&m2, b.p, b.n, "tiny.model", err, sizeof err);
    check(rc == -1 && strstr(err, "charsmap"), "charsmap: a blob of 3 bytes is an error",
          "rc %d err '%s'", rc, err);
    free(b.p);
}

/* ---- spans (hand computed from the normalizer's alignment, norm_to_orig) ---- */

static void test_spans(void)
{
    spec s = {UNIGRAM, 0, 1, 1, 1, 0, NULL, 0};
    buf b = build(uni_pieces, 11, &s);
    spm_model *m = load(&b, "spans: unigram model loads");
    free(b.p);
    if (!m)
        return;
    /* "  a   b  " -> "▁a▁b": the dummy ▁ belongs to 'a' (offset 2), the kept ▁ to the space at 3
     * whose run ends at 'b' (6); the trailing spaces belong to nobody */
    expect_spans(m, "  a   b  ", 9, IDS(2, 3, 3, 6, 6, 7),
                 "spans: whitespace runs go to the ▁ that stands for them");
    expect_spans(m, "accc", 4, IDS(0, 1, 1, 4), "spans: a merged <unk> covers the whole run");
    /* \xff is one byte that became U+FFFD (3 normalized bytes), merged with 'c' */
    expect_spans(m, "a\xff" "c", 3, IDS(0, 1, 1, 3),
                 "spans: an invalid byte's U+FFFD covers that one byte");
    expect_spans(m, "a<sep>b", 7, IDS(0, 1, 1, 6, 6, 7), "spans: a user symbol's own bytes");
    expect_spans(m, "   ", 3, NULL, 0, "spans: blank text gives no ids and no spans");
    /* decode: a control piece covers nothing where it stands; the sentence's leading ▁ is not
     * written, so ▁a wrote only "a" */
    expect_dec_spans(m, IDS(1, 3, 4, 6, 2), "a b", 3, IDS(0, 0, 0, 1, 1, 2, 2, 3, 3, 3),
                     "decode spans: control pieces empty, ▁ as the space it wrote");
    expect_dec_spans(m, IDS(5, 0, 6), "a \xe2\x81\x87 b", 7, IDS(0, 1, 1, 6, 6, 7),
                     "decode spans: <unk> covers ' ⁇ '");
    expect_dec_spans(m, IDS(4, 4, 3), "a", 1, IDS(0, 0, 0, 0, 0, 1),
                     "decode spans: removed leading ▁ write nothing");
    spm_free(m);

    const piece pc[] = {
        {"<unk>", 0, UNKNOWN}, {"<s>", 0, CONTROL}, {"</s>", 0, CONTROL},
        {SP "a", -1, NORMAL}, {"a", -1, NORMAL}, {SP, -2, NORMAL},
    }; /* then <0x00> .. <0xFF> = 6 .. 261 */
    spec sb = {UNIGRAM, 1, 1, 1, 1, 0, NULL, 0};
    b = build(pc, 6, &sb);
    m = load(&b, "spans: byte fallback model loads");
    free(b.p);
    if (!m)
        return;
    /* é = C3 A9 at [1, 3): the first byte piece covers nothing, the last the character */
    expect_spans(m, "a\xc3\xa9", 3, IDS(0, 1, 1, 1, 1, 3),
                 "spans: byte pieces: all but the last empty, the last the character");
    /* "\xff": the dummy ▁ and U+FFFD both come from offset 0, so ▁ covers nothing and the last
     * of U+FFFD's three byte pieces covers the invalid byte */
    expect_spans(m, "\xff", 1, IDS(0, 0, 0, 0, 0, 0, 0, 1),
                 "spans: the dummy ▁ at the text's start covers nothing");
    expect_dec_spans(m, IDS(3, 6 + 0xC3, 6 + 0xA9), "a\xc3\xa9", 3, IDS(0, 1, 1, 1, 1, 3),
                     "decode spans: byte pieces of one character");
    expect_dec_spans(m, IDS(6 + 0xC3, 1, 6 + 0xA9), "\xef\xbf\xbd\xef\xbf\xbd", 6,
                     IDS(0, 3, 3, 3, 3, 6), "decode spans: each invalid byte its U+FFFD");
    expect_dec_spans(m, IDS(6 + 0xE2, 6 + 0x82, 3), "\xef\xbf\xbd\xef\xbf\xbd a", 8,
                     IDS(0, 3, 3, 6, 6, 8), "decode spans: a truncated sequence, then ▁a");
    spm_free(m);
}

/* ---- char and word models ---- */

static void test_char_word(void)
{
    const piece pc[] = {
        {"<unk>", 0, UNKNOWN}, {SP, -1, NORMAL}, {"a", -1, NORMAL}, {"b", -1, NORMAL},
        {SP "ab", -1, NORMAL}, {SP "a", -1, NORMAL},
    };
    spec s = {CHAR, 0, 1, 1, 1, 0, NULL, 0};
    buf b = build(pc, 6, &s);
    spm_model *m = load(&b, "char: model loads");
    free(b.p);
    expect_ids(m, "ab ca", 5, IDS(1, 2, 3, 1, 0, 2), "char: one id per character");
    spm_free(m);
    spec w = {WORD, 0, 1, 1, 1, 0, NULL, 0};
    b = build(pc, 6, &w);
    m = load(&b, "word: model loads");
    free(b.p);
    expect_ids(m, "ab a abc", 8, IDS(4, 5, 0), "word: one id per ▁-word, unknown words <unk>");
    spm_free(m);
}

/* ---- malformed files ---- */

static void expect_load_error(const void *data, size_t n, const char *name, const char *needle,
                              const char *what)
{
    spm_model *m = (spm_model *)1;
    char err[512] = "";
    int rc = spm_load_from_memory(&m, data, n, name, err, sizeof err);
    check(rc == -1 && m == NULL && strstr(err, name) && (!needle || strstr(err, needle)), what,
          "rc %d err '%s'", rc, err);
    if (rc == 0)
        spm_free(m);
}

static void test_malformed(void)
{
    spec s = {UNIGRAM, 0, 1, 1, 1, 0, NULL, 0};
    buf b = build(uni_pieces, 11, &s);
    char err[512];
    int all_ok = 1, loaded = 0;
    /* every truncation fails cleanly or loads a prefix of the pieces */
    for (size_t n = 0; n < b.n; n++) {
        spm_model *m = NULL;
        if (spm_load_from_memory(&m, b.p, n, "cut.model", err, sizeof err) == 0) {
            int *ids = NULL, k = 0;
            loaded++;
            if (spm_encode(m, "ab c", 4, &ids, &k, err, sizeof err) != 0)
                all_ok = 0;
            free(ids);
            spm_free(m);
        } else if (!strstr(err, "cut.model")) {
            all_ok = 0;
        }
    }
    check(all_ok, "malformed: every truncation loads a prefix or fails naming the file",
          "last error '%s'", err);
    expect_load_error(b.p, b.n - 3, "trunc.model", "exceeds",
                      "malformed: truncated inside the normalizer spec");
    free(b.p);

    expect_load_error("", 0, "empty.model", NULL, "malformed: empty file");
    expect_load_error("\x0a\xff\xff\xff\xff\x0f", 6, "huge.model", "exceeds",
                      "malformed: huge length");
    expect_load_error("\x0a\x02\x0a", 3, "short.model", "exceeds",
                      "malformed: length past the end");
    expect_load_error("\x0d\x00\x00\x00\x00", 5, "wt.model", "wire type",
                      "malformed: wrong wire type for pieces");
    expect_load_error("\x0f", 1, "wt7.model", "wire type", "malformed: wire type 7");
    expect_load_error("\x38\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12, "varint.model",
                      "varint", "malformed: varint longer than 10 bytes");
    expect_load_error("\x38\x80", 2, "tv.model", "truncated", "malformed: truncated varint");
    expect_load_error("\x00\x01", 2, "f0.model", "field number", "malformed: field number 0");
    {
        /* no <unk> */
        const piece pc[] = {{"a", -1, NORMAL}};
        buf nb = build(pc, 1, &s);
        expect_load_error(nb.p, nb.n, "nounk.model", "unk", "malformed: no UNKNOWN piece");
        free(nb.p);
    }
    {
        const piece pc[] = {{"<unk>", 0, UNKNOWN}, {"a", -1, NORMAL}, {"a", -2, NORMAL}};
        buf nb = build(pc, 3, &s);
        expect_load_error(nb.p, nb.n, "dup.model", "already defined",
                          "malformed: duplicate piece");
        free(nb.p);
    }
    {
        const piece pc[] = {{"<unk>", 0, UNKNOWN}, {"", -1, NORMAL}};
        buf nb = build(pc, 2, &s);
        expect_load_error(nb.p, nb.n, "emptypiece.model", "empty", "malformed: empty piece");
        free(nb.p);
    }
    {
        const piece pc[] = {{"<unk>", 0, UNKNOWN}, {"<0x41>", 0, BYTE}};
        buf nb = build(pc, 2, &s);
        expect_load_error(nb.p, nb.n, "byte.model", "byte_fallback",
                          "malformed: byte piece without byte_fallback");
        free(nb.p);
    }
    {
        const piece pc[] = {{"<unk>", 0, UNKNOWN}, {"<unk>", 0, UNKNOWN}};
        buf nb = build(pc, 2, &s);
        expect_load_error(nb.p, nb.n, "twounk.model", "already defined",
                          "malformed: two UNKNOWN pieces");
        free(nb.p);
    }
    {
        spm_model *m = (spm_model *)1;
        char e[512] = "";
        int rc = spm_load(&m, "/nonexistent/dir/x.model", e, sizeof e);
        check(rc == -1 && m == NULL && strstr(e, "/nonexistent/dir/x.model"),
              "malformed: missing file is an error naming it", "rc %d err '%s'", rc, e);
    }
    spm_free(NULL);
    check(1, "spm_free(NULL) is a no-op", "");
}

/* ---- the default model's spm.model, from a file, and threads ---- */

typedef struct {
    const spm_model *m;
    char **lines;
    int nlines;
    int **want;
    int *nwant;
    int bad;
} thread_job;

static void *encode_all(void *arg)
{
    thread_job *j = arg;
    char err[256];
    for (int rep = 0; rep < 3; rep++)
        for (int i = 0; i < j->nlines; i++) {
            int *ids = NULL, n = 0;
            if (spm_encode(j->m, j->lines[i], strlen(j->lines[i]), &ids, &n, err, sizeof err) ||
                n != j->nwant[i] || (n && memcmp(ids, j->want[i], (size_t)n * sizeof *ids)))
                j->bad++;
            free(ids);
        }
    return NULL;
}

static void test_shared_model(void)
{
    const char *path = "models/en-de/spm.model";
    const char *data = "tests/data/multi30k/val.de";
    spm_model *m = NULL;
    char err[512];
    if (!check(access(path, R_OK) == 0 && access(data, R_OK) == 0,
               "default model's spm.model and val.de present (run from the repository root)",
               "%s or %s missing", path, data))
        return;
    if (!check(spm_load(&m, path, err, sizeof err) == 0, "default spm.model: loads", "%s", err))
        return;
    /* special ids as python3-sentencepiece reports them for this model */
    check(spm_vocab_size(m) == 8000 && spm_unk_id(m) == 1 && spm_bos_id(m) == 2 &&
              spm_eos_id(m) == 3 && spm_pad_id(m) == 0,
          "default spm.model: vocab 8000, unk 1, bos 2, eos 3, pad 0", "vocab %d unk %d bos %d eos %d pad %d",
          spm_vocab_size(m), spm_unk_id(m), spm_bos_id(m), spm_eos_id(m), spm_pad_id(m));
    /* ids from spm_encode --model spm.model --output_format=id */
    expect_ids(m, "A man in an orange hat starring at something.",
               strlen("A man in an orange hat starring at something."),
               IDS(9, 21, 6, 29, 165, 95, 6492, 45, 267, 4),
               "default spm.model: a sentence as spm_encode gives it");

    /* concurrent encodes on one model give the single-threaded ids */
    FILE *f = fopen(data, "r");
    enum { NL = 300, NT = 4 };
    char *lines[NL];
    int *want[NL], nwant[NL], nl = 0;
    char line[4096];
    while (f && nl < NL && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        lines[nl] = strdup(line);
        if (spm_encode(m, lines[nl], strlen(lines[nl]), &want[nl], &nwant[nl], err, sizeof err))
            break;
        nl++;
    }
    if (f)
        fclose(f);
    pthread_t th[NT];
    thread_job jobs[NT];
    int started = 0, bad = 0;
    for (int t = 0; t < NT; t++) {
        jobs[t] = (thread_job){m, lines, nl, want, nwant, 0};
        if (pthread_create(&th[t], NULL, encode_all, &jobs[t]) == 0)
            started++;
    }
    for (int t = 0; t < started; t++) {
        pthread_join(th[t], NULL);
        bad += jobs[t].bad;
    }
    check(started == NT && nl == NL && bad == 0,
          "default spm.model: 4 threads encoding at once agree with one", "%d threads, %d lines, %d bad",
          started, nl, bad);
    for (int i = 0; i < nl; i++) {
        free(lines[i]);
        free(want[i]);
    }
    spm_free(m);
}

int main(void)
{
    test_unigram();
    test_whitespace_options();
    test_bpe();
    test_byte_fallback();
    test_charsmap();
    test_spans();
    test_char_word();
    test_malformed();
    test_shared_model();
    return check_done();
}
