/* test_doc.c — the document layer (src/doc/doc.h): builders, doc_write's walk of nested, void
 * and kept elements, the escaping of HTML text, attributes and Markdown. Every expected output
 * is written out by hand from the parts the test builds. Translations are set by hand (out and
 * moved ranges), so doc_write is checked alone; doc_translate is checked end to end with a
 * model by tests/py/test_html.py and test_markdown.py. */
#include "check.h"
#include "doc/doc.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *s;
    size_t len, cap;
} sbuf;

static int put(void *user, const char *s, size_t len)
{
    sbuf *b = user;
    if (b->len + len + 1 > b->cap) {
        size_t c = (b->len + len + 1) * 2;
        char *n = realloc(b->s, c);
        if (!n)
            return -1;
        b->s = n;
        b->cap = c;
    }
    memcpy(b->s + b->len, s, len);
    b->len += len;
    b->s[b->len] = '\0';
    return 0;
}

static void expect_doc(const char *what, const doc *d, const char *want)
{
    sbuf b = {0};
    int rc = doc_write(d, put, &b);
    check(rc == 0 && b.s && strcmp(b.s, want) == 0, what, "rc %d, got \"%s\", want \"%s\"", rc,
          b.s ? b.s : "", want);
    free(b.s);
}

/* An element of unit u with the given open and close markup (bytes), over text appended. */
static int elem(doc *d, int u, int parent, const char *open, const char *close)
{
    char err[128];
    int e = -1;
    if (doc_begin_elem(d, u, parent, &e, err, sizeof err) ||
        doc_mark_part(d, u, e, DOC_OPEN, -1, open, strlen(open), err, sizeof err) ||
        (close && doc_mark_part(d, u, e, DOC_CLOSE, -1, close, strlen(close), err, sizeof err)))
        return -1;
    return e;
}

static void text(doc *d, int u, const char *s)
{
    char err[128];
    doc_unit_text(d, u, s, strlen(s), err, sizeof err);
}

static void set_out(doc *d, int u, const char *s)
{
    d->units[u].out = strdup(s);
    d->units[u].out_len = strlen(s);
}

int main(void)
{
    char err[128];
    {
        /* <p>Hello <b>big</b> world</p>, untranslated: written as it was */
        doc d;
        int u, b;
        doc_init(&d, "", 0);
        doc_keep(&d, "<p>", 3, err, sizeof err);
        doc_new_unit(&d, DOC_ESC_HTML, 1, &u, err, sizeof err);
        doc_put_unit(&d, u, err, sizeof err);
        doc_keep(&d, "</p>", 4, err, sizeof err);
        text(&d, u, "Hello ");
        b = elem(&d, u, -1, "<b>", "</b>");
        text(&d, u, "big");
        doc_end_elem(&d, u, b);
        text(&d, u, " world");
        check(d.units[u].len == 15 && d.units[u].ranges[0].start == 6 &&
                  d.units[u].ranges[0].end == 9,
              "builders: the unit's text and the element's range", "len %zu range [%zu,%zu)",
              d.units[u].len, d.units[u].ranges[0].start, d.units[u].ranges[0].end);
        expect_doc("an untranslated unit is written as its own text", &d,
                   "<p>Hello <b>big</b> world</p>");
        /* translated: "Hallo große Welt", b moved (by hand) onto "große" = [6, 12) */
        set_out(&d, u, "Hallo große Welt");
        d.units[u].ranges[0].start = 6;
        d.units[u].ranges[0].end = 12;
        expect_doc("a translated unit: the element around its moved range", &d,
                   "<p>Hallo <b>große</b> Welt</p>");
        doc_free(&d);
    }
    {
        /* nested and void: <a>one <b>two</b><br> three</a>; a [0,13), b [4,7), br [7,7) in a */
        doc d;
        int u, a, b, br;
        doc_init(&d, "", 0);
        doc_new_unit(&d, DOC_ESC_HTML, 1, &u, err, sizeof err);
        doc_put_unit(&d, u, err, sizeof err);
        a = elem(&d, u, -1, "<a>", "</a>");
        text(&d, u, "one ");
        b = elem(&d, u, a, "<b>", "</b>");
        text(&d, u, "two");
        doc_end_elem(&d, u, b);
        br = elem(&d, u, a, "<br>", NULL);
        doc_end_elem(&d, u, br);
        text(&d, u, " three");
        doc_end_elem(&d, u, a);
        expect_doc("nested and void elements in order", &d, "<a>one <b>two</b><br> three</a>");
        /* a void element as the last child: before its parent's end tag */
        d.units[u].ranges[1] = (doc_range){0, 4, 0};  /* b: "one " */
        d.units[u].ranges[2] = (doc_range){13, 13, 0}; /* br at the end of a */
        expect_doc("a void element at its parent's end stays inside it", &d,
                   "<a><b>one </b>two three<br></a>");
        doc_free(&d);
    }
    {
        /* siblings a translation swapped: "<a>click</a> the <b>button</b>" ->
         * "den Knopf klicken", a moved onto "klicken" [10, 17), b onto "Knopf" [4, 9) */
        doc d;
        int u, a, b;
        doc_init(&d, "", 0);
        doc_new_unit(&d, DOC_ESC_HTML, 1, &u, err, sizeof err);
        doc_put_unit(&d, u, err, sizeof err);
        a = elem(&d, u, -1, "<a>", "</a>");
        text(&d, u, "click");
        doc_end_elem(&d, u, a);
        text(&d, u, " the ");
        b = elem(&d, u, -1, "<b>", "</b>");
        text(&d, u, "button");
        doc_end_elem(&d, u, b);
        set_out(&d, u, "den Knopf klicken");
        d.units[u].ranges[a] = (doc_range){10, 17, -1};
        d.units[u].ranges[b] = (doc_range){4, 9, -1};
        expect_doc("siblings written in the order of the translation", &d,
                   "den <b>Knopf</b> <a>klicken</a>");
        doc_free(&d);
    }
    {
        /* escaping: HTML text, an attribute unit inside an element's start tag */
        doc d;
        int u, at, a;
        doc_init(&d, "", 0);
        doc_new_unit(&d, DOC_ESC_HTML, 1, &u, err, sizeof err);
        doc_put_unit(&d, u, err, sizeof err);
        doc_new_unit(&d, DOC_ESC_HTML_ATTR, 1, &at, err, sizeof err);
        text(&d, at, "say \"hi\" & <go>\xc2\xa0now");
        doc_begin_elem(&d, u, -1, &a, err, sizeof err);
        doc_mark_part(&d, u, a, DOC_OPEN, -1, "<a title=\"", 10, err, sizeof err);
        doc_mark_part(&d, u, a, DOC_OPEN, at, NULL, 0, err, sizeof err);
        doc_mark_part(&d, u, a, DOC_OPEN, -1, "\">", 2, err, sizeof err);
        doc_mark_part(&d, u, a, DOC_CLOSE, -1, "</a>", 4, err, sizeof err);
        text(&d, u, "x < y & z\xc2\xa0>");
        doc_end_elem(&d, u, a);
        expect_doc("HTML text and attribute escaping", &d,
                   "<a title=\"say &quot;hi&quot; &amp; <go>&nbsp;now\">"
                   "x &lt; y &amp; z&nbsp;&gt;</a>");
        doc_free(&d);
    }
    {
        /* a kept element (inline code): its own content, wherever its words went.
         * "Run make now." -> "Führe mache jetzt aus." with code moved onto "mache" [7, 12) */
        doc d;
        int u, c;
        doc_init(&d, "", 0);
        doc_new_unit(&d, DOC_ESC_HTML, 1, &u, err, sizeof err);
        doc_put_unit(&d, u, err, sizeof err);
        text(&d, u, "Run ");
        c = elem(&d, u, -1, "<code>", "</code>");
        doc_mark_part(&d, u, c, DOC_KEEP, -1, "make", 4, err, sizeof err);
        text(&d, u, "make");
        doc_end_elem(&d, u, c);
        text(&d, u, " now.");
        set_out(&d, u, "F\xc3\xbchre mache jetzt aus.");
        d.units[u].ranges[0] = (doc_range){7, 12, -1};
        expect_doc("a kept element writes its own content in place of the words", &d,
                   "F\xc3\xbchre <code>make</code> jetzt aus.");
        d.units[u].ranges[0] = (doc_range){0, 0, -1};
        expect_doc("a kept element aligned to nothing: its content at its point, a space "
                   "before the next word", &d, "<code>make</code> F\xc3\xbchre mache jetzt aus.");
        d.units[u].ranges[0] = (doc_range){12, 12, -1}; /* after "mache", before " jetzt" */
        expect_doc("a kept point right after a word: a space before it", &d,
                   "F\xc3\xbchre mache <code>make</code> jetzt aus.");
        d.units[u].ranges[0] = (doc_range){22, 22, -1}; /* before the final "." */
        expect_doc("a kept point after a word, before punctuation: a space before it only", &d,
                   "F\xc3\xbchre mache jetzt aus <code>make</code>.");
        doc_free(&d);
    }
    {
        /* Markdown escaping at the start of a unit and inside it */
        struct {
            const char *in, *want;
        } md[] = {
            /* < as &lt; (Python-Markdown has no "\\<"); # after a blank escaped (an ATX
             * heading's closing sequence "# Title #"): md_escape.c */
            {"*a* [b] `c` <d> x|y \\", "\\*a\\* \\[b\\] \\`c\\` &lt;d> x\\|y \\\\"},
            {"# not a heading", "\\# not a heading"},
            {"12. not a list", "12\\. not a list"},
            {"- not a list", "\\- not a list"},
            {"a - b 1. c # d", "a - b 1. c \\# d"},
            {"C# & AT&T &amp; <", "C# & AT&amp;T &amp;amp; &lt;"},
        };
        for (size_t i = 0; i < sizeof md / sizeof md[0]; i++) {
            doc d;
            int u;
            doc_init(&d, "", 0);
            doc_new_unit(&d, DOC_ESC_MARKDOWN, 1, &u, err, sizeof err);
            doc_put_unit(&d, u, err, sizeof err);
            text(&d, u, md[i].in);
            char what[96];
            snprintf(what, sizeof what, "Markdown escape: \"%s\"", md[i].in);
            expect_doc(what, &d, md[i].want);
            doc_free(&d);
        }
    }
    {
        /* 100,000 nested elements over one word: a stack, not the C stack */
        enum { N = 100000 };
        doc d;
        int u, e = -1;
        doc_init(&d, "", 0);
        doc_new_unit(&d, DOC_ESC_HTML, 1, &u, err, sizeof err);
        doc_put_unit(&d, u, err, sizeof err);
        for (int i = 0; i < N; i++)
            e = elem(&d, u, e, "<i>", "</i>");
        text(&d, u, "w");
        for (int i = 0; i < N; i++)
            doc_end_elem(&d, u, i);
        sbuf b = {0};
        int rc = doc_write(&d, put, &b);
        int ok = rc == 0 && b.len == (size_t)N * 7 + 1 && b.s[(size_t)N * 3] == 'w' &&
                 memcmp(b.s + b.len - 4, "</i>", 4) == 0;
        check(ok, "100,000 nested elements", "rc %d len %zu", rc, b.len);
        free(b.s);
        doc_free(&d);
    }
    {
        /* kept bytes that follow each other in memory are one part */
        const char *src = "<p>a</p>";
        doc d;
        doc_init(&d, src, strlen(src));
        doc_keep(&d, src, 3, err, sizeof err);
        doc_keep(&d, src + 3, 5, err, sizeof err);
        check(d.n_parts == 1 && d.parts[0].len == 8, "adjacent kept bytes join", "%d parts",
              d.n_parts);
        doc_warn(&d, 3, "stray </%s>", "x");
        check(d.n_warnings == 1 && strcmp(d.warnings[0], "line 3: stray </x>") == 0,
              "a warning names its line", "\"%s\"", d.warnings[0]);
        doc_free(&d);
    }
    {
        /* doc_url_at: what is a URL (docs/DOCUMENTS.md, by hand) */
        static const struct {
            const char *s;
            size_t at, len;
        } urls[] = {
            {"see https://example.com/docs.", 4, 24},       /* the full stop left out */
            {"(https://x.org/a_(b)) and", 1, 19},             /* balanced ')' kept, the last not */
            {"mail info@example.com!", 5, 16},
            {"at www.example.org, then", 3, 15},
            {"HTTP://EXAMPLE.COM", 0, 18},
            {"x@y", 0, 0},                                    /* no dot in the domain */
            {"a@b.c0m", 0, 0},                                /* a digit in the last label */
            {"nothttp://x.org", 3, 0},                         /* inside a word */
            {"https://", 0, 0},                               /* nothing after the scheme */
            {"https://a\xc2\xa0" "b", 0, 9},                  /* ends at a U+00A0 */
        };
        for (size_t i = 0; i < sizeof urls / sizeof *urls; i++) {
            size_t n = doc_url_at(urls[i].s, strlen(urls[i].s), urls[i].at);
            check(n == urls[i].len, "doc_url_at", "\"%s\" at %zu: %zu, want %zu", urls[i].s,
                  urls[i].at, n, urls[i].len);
        }
    }
    {
        /* doc_mark_urls: "Go to <b>https://a.org</b> or https://b.org now" (HTML): the URL
         * inside b becomes b's child, the other one a top element between b and i; one the
         * element i crosses stays text. Each written as its text (& escaped). */
        doc d;
        int u, b, i;
        doc_init(&d, "", 0);
        doc_new_unit(&d, DOC_ESC_HTML, 1, &u, err, sizeof err);
        doc_put_unit(&d, u, err, sizeof err);
        text(&d, u, "Go to ");
        b = elem(&d, u, -1, "<b>", "</b>");
        text(&d, u, "https://a.org");
        doc_end_elem(&d, u, b);
        text(&d, u, " or https://b.org/?x&y now, not https://c.");
        i = elem(&d, u, -1, "<i>", "</i>");
        text(&d, u, "org here");
        doc_end_elem(&d, u, i);
        int rc = doc_mark_urls(&d, u, err, sizeof err);
        const doc_unit *du = &d.units[u];
        check(rc == 0 && du->n_ranges == 4 && du->ranges[1].parent == 0 &&
                  du->ranges[1].start == 6 && du->ranges[1].end == 19 &&
                  du->ranges[2].parent == -1 && du->ranges[2].start == 23 &&
                  du->ranges[2].end == 41 && du->ranges[3].start == 61 &&
                  du->marks[1].n_keep == 1 && du->marks[2].n_keep == 1,
              "doc_mark_urls: a URL inside an element is its child, one between elements a top "
              "element; one an element crosses stays text", "rc %d, %d elements", rc,
              du->n_ranges);
        expect_doc("doc_mark_urls: URLs written as their text, escaped", &d,
                   "Go to <b>https://a.org</b> or https://b.org/?x&amp;y now, not https://c.<i>"
                   "org here</i>");
        /* translated, by hand: "Geh zu https://a.org oder jetzt" with b on the copy [7,20), the
         * other URL a point at 26 (after "oder"), i a point at the end */
        set_out(&d, u, "Geh zu https://a.org oder jetzt");
        du = &d.units[u];
        du->ranges[0] = (doc_range){7, 20, -1};
        du->ranges[1] = (doc_range){7, 20, 0};
        du->ranges[2] = (doc_range){25, 25, -1};
        du->ranges[3] = (doc_range){31, 31, -1};
        expect_doc("kept URLs: a copy replaced by the span, an added one spaced from the words", &d,
                   "Geh zu <b>https://a.org</b> oder https://b.org/?x&amp;y jetzt<i></i>");
        doc_free(&d);
    }
    {
        /* doc_utf16_decode, by hand: "A" U+00E9 U+1F415 (the pair D83D DC15), a lone D800,
         * an odd last byte; little- and big-endian */
        static const char le[] = "\xff\xfe" "A\0" "\xe9\0" "\x3d\xd8\x15\xdc" "\x00\xd8" "x";
        static const char be[] = "\xfe\xff" "\0A" "\0\xe9" "\xd8\x3d\xdc\x15" "\xd8\x00" "x";
        const char *want = "\xef\xbb\xbf" "A" "\xc3\xa9" "\xf0\x9f\x90\x95" "\xef\xbf\xbd"
                           "\xef\xbf\xbd";
        for (int k = 0; k < 2; k++) {
            const char *in = k ? be : le;
            size_t n = 0;
            char *o = doc_utf16_decode(in, sizeof le - 1, &n);
            check(doc_utf16_bom(in, sizeof le - 1) == k + 1 && o && n == strlen(want) &&
                      memcmp(o, want, n) == 0,
                  k ? "doc_utf16_decode: big-endian, a pair, a lone surrogate, an odd byte"
                    : "doc_utf16_decode: little-endian, a pair, a lone surrogate, an odd byte",
                  "%zu bytes", n);
            free(o);
        }
        check(doc_utf16_bom("<p>", 3) == 0, "doc_utf16_bom: none in UTF-8", "");
    }
    return check_done();
}
