/* test_html.c — the HTML tokenizer's pieces that decide what a document means (html_tok.h):
 * character references, where raw text ends (script data with its escaped states, RCDATA,
 * RAWTEXT), comments, tags and attributes; and html_parse's units on small documents. Every
 * expected value is worked out by hand from the WHATWG HTML standard in the comment or the
 * string beside it (code points from the standard's table of named references). */
#include "check.h"
#include "doc/html.h"
#include "doc/html_tok.h"
#include <stdlib.h>
#include <string.h>

/* ht_charref on s: consumed bytes and code points as expected. */
static void ref(const char *s, int attr, size_t want_used, unsigned c1, unsigned c2)
{
    unsigned cp[2] = {0, 0};
    int n = 0;
    size_t used = ht_charref(s, strlen(s), attr, cp, &n);
    int want_n = want_used == 0 ? 0 : c2 ? 2 : 1;
    check(used == want_used && n == want_n && (n < 1 || cp[0] == c1) && (n < 2 || cp[1] == c2),
          s, "%s: used %zu (want %zu), %d code points U+%04X U+%04X (want U+%04X U+%04X)",
          attr ? "attribute" : "text", used, want_used, n, cp[0], cp[1], c1, c2);
}

static void raw_end(const char *what, const char *s, int mode, const char *name, size_t want)
{
    size_t got = ht_raw_end(s, strlen(s), 0, mode, name, strlen(name));
    check(got == want, what, "\"%s\": got %zu want %zu", s, got, want);
}

/* The first token of s. */
static ht_token first(ht_tok *t, const char *s)
{
    ht_token k;
    ht_init(t, s, strlen(s));
    if (ht_next(t, &k) != 1)
        memset(&k, 0, sizeof k);
    return k;
}

static int put(void *user, const char *s, size_t len)
{
    strncat(user, s, len);
    return 0;
}

int main(void)
{
    /* ---- character references ---- */
    ref("&amp;", 0, 5, 0x26, 0);
    ref("&amp", 0, 4, 0x26, 0);      /* legacy: no ';' needed */
    ref("&ampx", 0, 4, 0x26, 0);     /* text: the longest legacy prefix */
    ref("&ampx", 1, 0, 0, 0);        /* attribute: followed by an alphanumeric, not one */
    ref("&amp=1", 1, 0, 0, 0);       /* attribute: followed by '=', not one */
    ref("&amp;x", 1, 5, 0x26, 0);    /* with its ';' it is one everywhere */
    ref("&notit;", 0, 4, 0xAC, 0);   /* "not" (legacy) is the longest match: U+00AC */
    ref("&notin;", 0, 7, 0x2209, 0);
    ref("&NotEqualTilde;", 0, 15, 0x2242, 0x338); /* two code points */
    ref("&CounterClockwiseContourIntegral;", 0, 33, 0x2233, 0); /* the longest name */
    ref("&LT;", 0, 4, 0x3C, 0);
    ref("&lt", 0, 3, 0x3C, 0);
    ref("&frac12x", 0, 7, 0xBD, 0);
    ref("&nbsp;", 0, 6, 0xA0, 0);
    ref("&apos;", 0, 6, 0x27, 0);
    ref("&zzz;", 0, 0, 0, 0);        /* unknown: the '&' is a character */
    ref("&;", 0, 0, 0, 0);
    ref("&", 0, 0, 0, 0);
    ref("& b", 0, 0, 0, 0);
    ref("&#65;", 0, 5, 65, 0);
    ref("&#x41", 0, 5, 0x41, 0);     /* no ';': still a reference */
    ref("&#X41;z", 0, 6, 0x41, 0);
    ref("&#x1F600;", 0, 9, 0x1F600, 0);
    ref("&#;", 0, 0, 0, 0);          /* no digits: characters */
    ref("&#x;", 0, 0, 0, 0);
    ref("&#xg", 0, 0, 0, 0);
    ref("&#0;", 0, 4, 0xFFFD, 0);    /* null */
    ref("&#xD800;", 0, 8, 0xFFFD, 0); /* a surrogate */
    ref("&#xDFFF;", 0, 8, 0xFFFD, 0);
    ref("&#x110000;", 0, 10, 0xFFFD, 0); /* beyond Unicode */
    ref("&#99999999999999999999999;", 0, 26, 0xFFFD, 0); /* no overflow back into range */
    ref("&#x10FFFF;", 0, 10, 0x10FFFF, 0);
    ref("&#128;", 0, 6, 0x20AC, 0);  /* windows-1252 0x80: euro */
    ref("&#x81;", 0, 6, 0x81, 0);    /* 0x81 has no windows-1252 character: kept */
    ref("&#x8C;", 0, 6, 0x152, 0);   /* OE ligature */
    ref("&#x9F;", 0, 6, 0x178, 0);   /* Y diaeresis */
    ref("&#x7F;", 0, 6, 0x7F, 0);    /* a control: kept (a parse error only) */
    check(ht_n_entities == 2231, "the named references: 2231 names, as the standard's table",
          "%d", ht_n_entities);
    int sorted = 1;
    for (int i = 1; i < ht_n_entities; i++)
        sorted &= strcmp(ht_entities[i - 1].name, ht_entities[i].name) < 0;
    check(sorted, "the named references are sorted by bytes (binary search)", "not sorted");

    /* ---- raw text ends ---- */
    raw_end("script: the end tag", "a</script>", HT_SCRIPT, "script", 1);
    raw_end("script: end tag in any case, then a space", "x</SCRIPT >", HT_SCRIPT, "script", 1);
    raw_end("script: </scriptx> is not its end", "a</scriptx></script>", HT_SCRIPT, "script",
            11);
    raw_end("script: </script at the end of input is not an end", "x</script", HT_SCRIPT,
            "script", 9);
    raw_end("script: an end tag inside <!-- --> still ends it (escaped state)",
            "<!-- </script> -->", HT_SCRIPT, "script", 5);
    /* "<!--" escaped, "<script>" double escaped (4..11), "</script>" back to escaped (12..20),
     * "-->" to data (21..23), the end tag at 24 */
    raw_end("script: <!--<script></script>--></script> ends at 24 (double escaped)",
            "<!--<script></script>--></script>", HT_SCRIPT, "script", 24);
    raw_end("script: double escaped never ends", "<!--<script>x</script>y", HT_SCRIPT, "script",
            23);
    /* "<!--<script>" double escaped; "-->" returns to data even when double escaped */
    raw_end("script: --> ends the double-escaped state too", "<!--<script>--></script>",
            HT_SCRIPT, "script", 15);
    raw_end("script: <!-- then --> then the end tag", "<!-- a -->b</script>", HT_SCRIPT,
            "script", 11);
    raw_end("RCDATA title: </titlex> is text, </TITLE/> ends", "A </titlex> B </TITLE/>",
            HT_RCDATA, "title", 14);
    raw_end("RAWTEXT style: never ends", "p{}</style", HT_RAWTEXT, "style", 10);
    raw_end("RAWTEXT style: <!-- does not escape", "<!--</style>-->", HT_RAWTEXT, "style", 4);

    /* ---- tokens ---- */
    ht_tok t;
    ht_token k;
    k = first(&t, "<!-->x");
    check(k.kind == HT_COMMENT && k.end == 5, "comment <!--> ends at once", "kind %d end %zu",
          k.kind, k.end);
    ht_free(&t);
    k = first(&t, "<!--->x");
    check(k.kind == HT_COMMENT && k.end == 6, "comment <!---> ends at once", "end %zu", k.end);
    ht_free(&t);
    k = first(&t, "<!-- a --!>x");
    check(k.kind == HT_COMMENT && k.end == 11, "comment ends at --!>", "end %zu", k.end);
    ht_free(&t);
    k = first(&t, "<!-- a ---->x");
    check(k.kind == HT_COMMENT && k.end == 12, "comment ends at ---->", "end %zu", k.end);
    ht_free(&t);
    k = first(&t, "<!-- a -- b -> c");
    check(k.kind == HT_COMMENT && k.unclosed && k.end == 16,
          "an unclosed comment takes the rest of the input", "end %zu unclosed %d", k.end,
          k.unclosed);
    ht_free(&t);
    k = first(&t, "<?php x ?>y");
    check(k.kind == HT_COMMENT && k.end == 10, "<? ... > is a bogus comment", "end %zu", k.end);
    ht_free(&t);
    k = first(&t, "<![CDATA[a>b]]>");
    check(k.kind == HT_COMMENT && k.end == 11,
          "CDATA outside foreign content: a bogus comment to the first >", "end %zu", k.end);
    ht_free(&t);
    k = first(&t, "</>x");
    check(k.kind == HT_IGNORED && k.end == 3, "</> is dropped by a browser", "kind %d", k.kind);
    ht_free(&t);
    k = first(&t, "<3 a</1>");
    check(k.kind == HT_TEXT && k.end == 4, "<3 is text up to the next markup", "end %zu", k.end);
    ht_free(&t);
    k = first(&t, "<!DocType html>x");
    check(k.kind == HT_DOCTYPE && k.end == 15, "doctype in any case", "end %zu", k.end);
    ht_free(&t);
    k = first(&t, "<A HREF=x title='y >z' b=\"c\" d =e f>t");
    int a_ok = k.kind == HT_START && strcmp(k.name, "a") == 0 && k.n_attrs == 5 &&
               k.attrs[0].quote == 0 && k.attrs[0].val_len == 1 && k.attrs[1].quote == '\'' &&
               k.attrs[1].val_len == 4 && k.attrs[2].quote == '"' && k.attrs[3].quote == 0 &&
               k.attrs[4].quote == -1 && k.end == 36;
    check(a_ok, "a start tag: lowercased name, unquoted, quoted (a > inside), spaced and "
          "valueless attributes", "kind %d name %s attrs %d end %zu", k.kind, k.name, k.n_attrs,
          k.end);
    ht_free(&t);
    k = first(&t, "<img src=a.png/>");
    check(k.n_attrs == 1 && k.attrs[0].val_len == 6 && !k.self_closing,
          "an unquoted value takes a '/': <img src=a.png/> is not self-closing", "len %zu sc %d",
          k.n_attrs ? k.attrs[0].val_len : 0, k.self_closing);
    ht_free(&t);
    k = first(&t, "<br/>");
    check(k.self_closing && k.end == 5, "<br/> self-closing", "sc %d", k.self_closing);
    ht_free(&t);
    k = first(&t, "<a href='x");
    check(k.kind == HT_IGNORED && k.unclosed && k.end == 10,
          "a tag cut by the end of input: kept bytes, not a tag", "kind %d", k.kind);
    ht_free(&t);

    /* ---- html_parse: units and write-back ---- */
    {
        const char *src = "<p class=x>A <b>big</b> dog<br>runs &amp; <img alt=Cat src=c>"
                          "jumps.</p>\n<pre>  kept  </pre>";
        doc d;
        char err[256] = "", out[512] = "";
        doc_init(&d, src, strlen(src));
        int rc = html_parse(&d, err, sizeof err);
        /* unit 0: "A big dog runs & jumps." with b over "big" [2,5), br at 10 after the space
         * it adds, img at 17 ("A big dog runs & " is 17 bytes); unit 1: the alt "Cat" */
        int ok = rc == 0 && d.n_units == 2 && strcmp(d.units[0].text, "A big dog runs & jumps.") == 0 &&
                 d.units[0].n_ranges == 3 && d.units[0].ranges[0].start == 2 &&
                 d.units[0].ranges[0].end == 5 && d.units[0].ranges[1].start == 10 &&
                 d.units[0].ranges[2].start == 17 && d.units[0].ranges[2].end == 17 &&
                 strcmp(d.units[1].text, "Cat") == 0 && d.units[1].escape == DOC_ESC_HTML_ATTR;
        check(ok, "html_parse: a paragraph's unit, its elements (b, br, img) and the alt's unit",
              "rc %d %s units %d text \"%s\"", rc, err, d.n_units,
              d.n_units ? d.units[0].text : "");
        doc_write(&d, put, out);
        /* the whitespace the br gets before it; alt quoted; the rest as written */
        check(strcmp(out, "<p class=x>A <b>big</b> dog <br>runs &amp; <img alt=\"Cat\" src=c>"
                          "jumps.</p>\n<pre>  kept  </pre>") == 0,
              "html_parse: written back untranslated", "got %s", out);
        doc_free(&d);
    }
    {
        const char *src = "<p>a <b>b <i>c</b> d</i> e</p>";
        doc d;
        char err[256] = "";
        doc_init(&d, src, strlen(src));
        int rc = html_parse(&d, err, sizeof err);
        /* every inline tag is fixed: units "a", "b", "c", "d", "e" without elements */
        int ok = rc == 0 && d.n_units == 5 && d.n_warnings == 1;
        for (int i = 0; ok && i < d.n_units; i++)
            ok = d.units[i].n_ranges == 0 && d.units[i].len == 1;
        check(ok, "html_parse: misnested inline tags stay where they are, the text between "
              "them translated in pieces, with a warning", "rc %d units %d warnings %d", rc,
              d.n_units, d.n_warnings);
        doc_free(&d);
    }
    return check_done();
}
