/* po_dump.c — a helper of tests/py/test_po.py (built by make beside the C tests, not one of
 * them): a catalog read by po_parse for any target language, without a model. */
#include "doc/formats.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int put(void *u, const char *s, size_t n) { return fwrite(s, 1, n, u) != n; }
static int sink(void *u, const char *s, size_t n) { (void)u; (void)s; (void)n; return 0; }
/* po_dump LANG FILE [swap|trunc|random N]: the catalog parsed for target LANG and written
 * back untranslated (units as their source text); swap: every unit "translated" as its own
 * text with its first two elements' places swapped, then po_finish; trunc: every prefix
 * parsed and written, the count of refusals printed; random: N random catalogs of PO-ish
 * bytes likewise. */
static int one(const char *lang, const char *s, size_t n, int swap, FILE *out, char *err)
{
    doc d;
    doc_opts o = {lang, "en", 0, 0, NULL};
    char *z = malloc(n + 1);
    int rc;
    memcpy(z, s, n);
    z[n] = 0;
    doc_init(&d, z, n);
    rc = po_parse(&d, &o, err, 512);
    for (int i = 0; rc == 0 && swap && i < d.n_units; i++) {
        doc_unit *u = &d.units[i];
        u->out = malloc(u->len + 1);
        memcpy(u->out, u->text, u->len + 1);
        u->out_len = u->len;
        if (u->n_ranges >= 2) {
            doc_range t = u->ranges[0];
            u->ranges[0].start = u->ranges[1].start, u->ranges[0].end = u->ranges[1].end;
            u->ranges[1].start = t.start, u->ranges[1].end = t.end;
        }
    }
    if (rc == 0)
        rc = po_finish(&d, &o, err, 512);
    if (rc == 0)
        rc = doc_write(&d, out ? put : sink, out);
    doc_free(&d);
    free(z);
    return rc;
}
int main(int argc, char **argv)
{
    char err[512] = "";
    FILE *f = fopen(argv[2], "rb");
    static char buf[1 << 20];
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (argc > 3 && !strcmp(argv[3], "trunc")) {
        int bad = 0;
        for (size_t k = 0; k <= n; k++)
            bad += one(argv[1], buf, k, 0, NULL, err) != 0;
        printf("%zu %d\n", n + 1, bad);
        return 0;
    }
    if (argc > 4 && !strcmp(argv[3], "random")) {
        static const char *bits[] = {"msgid ", "msgstr ", "msgstr[0] ", "msgstr[1] ",
            "msgid_plural ", "msgctxt ", "\"", "\\", "\\n", "%s", "%1$d", "_", "&", "<b>",
            "</b>", "{x}", "#, fuzzy", "#, c-format", "#| ", "#~ ", "\n", "\r\n", " ", "a",
            "\xC3\xA4", "\xFF", "\x00", "Language: ", "Plural-Forms: nplurals=3;"};
        int bad = 0, runs = atoi(argv[4]);
        srand(1);
        for (int r = 0; r < runs; r++) {
            size_t m = 0;
            int parts = rand() % 64;
            for (int k = 0; k < parts && m < 4000; k++) {
                const char *b = bits[rand() % (int)(sizeof bits / sizeof bits[0])];
                size_t bl = b[0] ? strlen(b) : 1;
                memcpy(buf + m, b, bl);
                m += bl;
            }
            bad += one(r % 2 ? "ru" : "de", buf, m, r % 3 == 0, NULL, err) != 0;
        }
        printf("%d %d\n", runs, bad);
        return 0;
    }
    if (one(argv[1], buf, n, argc > 3 && !strcmp(argv[3], "swap"), stdout, err)) {
        fprintf(stderr, "po_dump: %s\n", err);
        return 3;
    }
    return 0;
}
