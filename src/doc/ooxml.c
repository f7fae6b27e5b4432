/* ooxml.c — WordprocessingML and DrawingML paragraphs into text units (ooxml.h).
 *
 * A paragraph (w:p, a:p) is one unit: the texts of its runs (w:t, a:t) joined, a tab or a line
 * break read as a space. Its runs become inline elements by their properties (the rPr's bytes):
 * the properties that cover most of the paragraph's text are its base, and text so formatted is
 * written in the unit's wrap, a run of the base properties ("<w:r><w:rPr>..</w:rPr><w:t
 * xml:space="preserve">" .. "</w:t></w:r>"); a run formatted otherwise (bold, a character
 * style) is an element around its words, adjacent runs of the same properties one element (Word
 * cuts runs at every edit); a hyperlink, smart tag, inserted text or content control is an
 * element holding its runs (text directly inside it is wrapped). What a run holds besides text
 * (a tab, a break, a drawing, a note reference) is a void element placed by the alignment,
 * written inside its run element, or as a run of its own. Fields (w:fldSimple, a:fld, and the
 * runs from a w:fldChar begin to its end) and text marked not to be translated (Word's
 * w:noProof, DrawingML's noProof="1", a code character style, a monospace font) are keep
 * elements: the model reads their words, their bytes are written as they were where those
 * words went. Anything else inside a paragraph (bookmarks, proofing marks, deleted text, math,
 * hidden text) is a void element of its own bytes. A drawing's descr and title attributes are
 * units of their own.
 *
 * A run that holds paragraphs of its own (a text box: w:txbxContent in a drawing or VML
 * picture, both sides of an mc:AlternateContent) cuts its paragraph in two: the text before it
 * and after it are units, and its paragraphs are units in their turn (to OOXML_MAX_NEST). */
#include "doc/ooxml.h"
#include "base/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define OOXML_MAX_NEST 8 /* text boxes inside text boxes: deeper ones are kept as they are */
#define MAX_KEYS 64      /* distinct run properties counted for a paragraph's base */

typedef struct {
    doc *d;
    const xml_tree *t;
    const char *ns;       /* the paragraphs' namespace */
    int word;             /* 1: WordprocessingML, 0: DrawingML */
    size_t pos;           /* src[0, pos) is in the doc */
    const char *px;       /* the namespace's prefix as the part writes it: "w:" (a copy) */
    char *err;
    size_t errlen;
    /* the unit being built */
    int unit;
    const char *base;     /* the base run properties' bytes (NULL: none) */
    size_t base_len;
    int run_elem;         /* the open run element that an adjacent run of the same properties
                             joins, -1: none */
    const char *run_key;
    size_t run_key_len;
    int run_parent;
    int keep_elem;        /* the open keep element an adjacent untranslatable run joins */
    int keep_parent;
    size_t keep_end;      /* the bytes of the keep element end here (its last run's end) */
    const char *s_open, *s_close, *s_tclose, *s_topen; /* "<w:r>", "</w:t></w:r>", "</w:t>",
                                                          "<w:t xml:space=..>" */
} ox;

static const xml_node *N(const ox *o, int i) { return &o->t->nodes[i]; }

static int is(const ox *o, int i, const char *name) { return xml_is(o->t, i, o->ns, name); }

static int keep_to(ox *o, size_t end)
{
    if (end > o->pos && doc_keep(o->d, o->t->src + o->pos, end - o->pos, o->err, o->errlen))
        return -1;
    if (end > o->pos)
        o->pos = end;
    return 0;
}

/* 1 when the element is a drawing's or picture's non-visual properties (alt text). */
static int alt_holder(const ox *o, int i)
{
    const xml_node *n = N(o, i);
    return n->kind == XML_ELEM && (!strcmp(n->name, "docPr") || !strcmp(n->name, "cNvPr"));
}

/* The descr and title attribute values of element i, in the order they are written:
 * [v0, v1) pairs into at (at most 2) and their names into names, their count. Single-quoted
 * values are left alone. */
static int alt_spans(const ox *o, int i, size_t at[4], const char *names[2])
{
    size_t a0, a1, b0, b1;
    int na = xml_attr_span(o->t, i, "descr", &a0, &a1) == 0 && a1 > a0 && o->t->src[a0 - 1] == '"';
    int nb = xml_attr_span(o->t, i, "title", &b0, &b1) == 0 && b1 > b0 && o->t->src[b0 - 1] == '"';
    int k = 0;
    if (na && (!nb || a0 < b0)) {
        names[k / 2] = "descr", at[k++] = a0, at[k++] = a1;
        if (nb)
            names[k / 2] = "title", at[k++] = b0, at[k++] = b1;
    } else if (nb) {
        names[k / 2] = "title", at[k++] = b0, at[k++] = b1;
        if (na)
            names[k / 2] = "descr", at[k++] = a0, at[k++] = a1;
    }
    return k / 2;
}

/* A unit of an attribute's text, its value taken from the source bytes as xml_attr_get decoded
 * them (whitespace made single spaces); -1 in *u when it has no words. */
static int attr_unit(ox *o, int node, const char *name, size_t v0, size_t v1, int *u)
{
    const char *v = xml_attr_get(o->t, node, "", name);
    int words = 0;
    *u = -1;
    if (!v)
        return 0;
    for (const char *p = v; *p; p++)
        words |= !strchr(" \t\r\n", *p);
    if (!words || (v1 - v0) > ((size_t)1 << 20))
        return 0;
    if (doc_new_unit(o->d, DOC_ESC_XML_ATTR, N(o, node)->line, u, o->err, o->errlen))
        return -1;
    for (const char *p = v; *p;) {
        size_t k = strcspn(p, " \t\r\n");
        if (k && doc_unit_text(o->d, *u, p, k, o->err, o->errlen))
            return -1;
        p += k;
        if (*p) {
            p += strspn(p, " \t\r\n");
            if (*p && o->d->units[*u].len && doc_unit_text(o->d, *u, " ", 1, o->err, o->errlen))
                return -1;
        }
    }
    return 0;
}

/* The alt text of element i at the top level: the bytes before each value kept, the value a
 * unit. */
static int top_alt(ox *o, int i)
{
    size_t at[4];
    const char *names[2];
    int n = alt_spans(o, i, at, names), u;
    for (int k = 0; k < n; k++) {
        if (attr_unit(o, i, names[k], at[2 * k], at[2 * k + 1], &u))
            return -1;
        if (u < 0)
            continue;
        if (keep_to(o, at[2 * k]) || doc_put_unit(o->d, u, o->err, o->errlen))
            return -1;
        o->pos = at[2 * k + 1];
    }
    return 0;
}

/* Appends src[from, to) to element elem's markup (which), the alt text of the drawings in it
 * made units of their own. */
static int mark_bytes(ox *o, int elem, int which, size_t from, size_t to)
{
    const xml_tree *t = o->t;
    int lo = 0, hi = t->n_nodes;
    while (lo < hi) { /* the first node starting at or after from (nodes are in source order) */
        int mid = lo + (hi - lo) / 2;
        if (t->nodes[mid].s0 < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int i = lo; i < t->n_nodes && t->nodes[i].s0 < to; i++) {
        size_t at[4];
        const char *names[2];
        int n = alt_holder(o, i) ? alt_spans(o, i, at, names) : 0, u;
        for (int k = 0; k < n; k++) {
            if (attr_unit(o, i, names[k], at[2 * k], at[2 * k + 1], &u))
                return -1;
            if (u < 0 || at[2 * k] < from || at[2 * k + 1] > to)
                continue;
            if (doc_mark_part(o->d, o->unit, elem, which, -1, t->src + from, at[2 * k] - from,
                              o->err, o->errlen) ||
                doc_mark_part(o->d, o->unit, elem, which, u, NULL, 0, o->err, o->errlen))
                return -1;
            from = at[2 * k + 1];
        }
    }
    return doc_mark_part(o->d, o->unit, elem, which, -1, t->src + from, to - from, o->err,
                         o->errlen);
}

static int mark_str(ox *o, int elem, int which, const char *s)
{
    return doc_mark_part(o->d, o->unit, elem, which, -1, s, strlen(s), o->err, o->errlen);
}

/* ---- what a paragraph's nodes are ---- */

/* 1 when the subtree of i holds a paragraph of the part's kind (a text box). */
static int holds_paragraph(const ox *o, int i)
{
    for (int k = xml_next(o->t, i, i, 0); k >= 0; k = xml_next(o->t, k, i, 0))
        if (is(o, k, "p"))
            return 1;
    return 0;
}

static int is_run(const ox *o, int i) { return is(o, i, "r"); }

/* Word's containers of runs (their runs translated inside them) and the child that holds the
 * runs (sdt: sdtContent). */
static int container(const ox *o, int i, int *content)
{
    static const char *const names[] = {"hyperlink", "smartTag", "ins", "customXml", "dir",
                                        "bdo", "moveTo", NULL};
    *content = i;
    if (!o->word || N(o, i)->kind != XML_ELEM)
        return 0;
    if (is(o, i, "sdt"))
        return (*content = xml_child(o->t, i, o->ns, "sdtContent")) >= 0;
    for (int k = 0; names[k]; k++)
        if (is(o, i, names[k]))
            return 1;
    return 0;
}

/* The run's properties element, or -1. */
static int run_props(const ox *o, int r)
{
    int c = N(o, r)->first;
    while (c >= 0 && N(o, c)->kind == XML_TEXT)
        c = N(o, c)->next;
    return c >= 0 && is(o, c, "rPr") ? c : -1;
}

static int ieq_any(const char *v, const char *const *list)
{
    for (int k = 0; v && list[k]; k++)
        if (!strcasecmp(v, list[k]))
            return 1;
    return 0;
}

static const char *const mono_fonts[] = {
    "Courier New", "Courier", "Consolas", "Lucida Console", "Liberation Mono",
    "DejaVu Sans Mono", "Menlo", "Monaco", "Source Code Pro", "Cascadia Code",
    "Cascadia Mono", "Noto Mono", "Noto Sans Mono", "Ubuntu Mono", "Fira Mono", "Fira Code", NULL};

/* 1 when a run's properties say its text is not to be translated: Word's w:noProof (ECMA-376
 * part 1, 17.3.2.21: "shall not be checked for spelling or grammar"), DrawingML's noProof="1"
 * (21.1.2.3.9), a character style for code (pandoc's VerbatimChar, Word's HTML Code), or a
 * monospace font. */
static int untranslatable(const ox *o, int rpr)
{
    const xml_tree *t = o->t;
    if (rpr < 0)
        return 0;
    if (!o->word) {
        const char *np = xml_attr_get(t, rpr, "", "noProof");
        if (np && (!strcmp(np, "1") || !strcmp(np, "true")))
            return 1;
        int f = xml_child(t, rpr, o->ns, "latin");
        return f >= 0 && ieq_any(xml_attr_get(t, f, "", "typeface"), mono_fonts);
    }
    for (int c = N(o, rpr)->first; c >= 0; c = N(o, c)->next) {
        const char *v;
        if (is(o, c, "noProof")) {
            v = xml_attr_get(t, c, o->ns, "val");
            if (!v || (strcmp(v, "0") && strcmp(v, "false") && strcmp(v, "off")))
                return 1;
        } else if (is(o, c, "rStyle") && (v = xml_attr_get(t, c, o->ns, "val"))) {
            static const char *const code[] = {"VerbatimChar", "HTMLCode", "SourceCode",
                                               "CodeChar", "Code", "InlineCode", NULL};
            if (ieq_any(v, code))
                return 1;
        } else if (is(o, c, "rFonts")) {
            if (ieq_any(xml_attr_get(t, c, o->ns, "ascii"), mono_fonts) ||
                ieq_any(xml_attr_get(t, c, o->ns, "hAnsi"), mono_fonts))
                return 1;
        }
    }
    return 0;
}

/* 1 when Word's run properties hide the text (w:vanish, w:specVanish): not read, kept. */
static int hidden(const ox *o, int rpr)
{
    for (int c = rpr >= 0 && o->word ? N(o, rpr)->first : -1; c >= 0; c = N(o, c)->next)
        if (is(o, c, "vanish") || is(o, c, "specVanish")) {
            const char *v = xml_attr_get(o->t, c, o->ns, "val");
            if (!v || (strcmp(v, "0") && strcmp(v, "false") && strcmp(v, "off")))
                return 1;
        }
    return 0;
}

/* A run's text children (w:t, a:t) and their length; whitespace-only counts too. */
static size_t run_text_len(const ox *o, int r, int *has_t)
{
    size_t n = 0;
    *has_t = 0;
    for (int c = N(o, r)->first; c >= 0; c = N(o, c)->next)
        if (is(o, c, "t")) {
            *has_t = 1;
            for (int k = N(o, c)->first; k >= 0; k = N(o, k)->next)
                if (N(o, k)->kind == XML_TEXT)
                    n += N(o, k)->n_text;
        }
    return n;
}

/* The fldChar type a run holds first ("begin", "separate", "end"), or NULL. */
static const char *fld_char(const ox *o, int r)
{
    for (int c = N(o, r)->first; o->word && c >= 0; c = N(o, c)->next)
        if (is(o, c, "fldChar"))
            return xml_attr_get(o->t, c, o->ns, "fldCharType");
    return NULL;
}

/* Appends a text node's characters to the unit, tabs and line ends as spaces. */
static int put_chars(ox *o, int text)
{
    const xml_node *n = N(o, text);
    const char *s = o->t->text + n->text;
    size_t from = 0;
    for (size_t k = 0; k <= n->n_text; k++)
        if (k == n->n_text || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
            if (k > from && doc_unit_text(o->d, o->unit, s + from, k - from, o->err, o->errlen))
                return -1;
            if (k < n->n_text && doc_unit_text(o->d, o->unit, " ", 1, o->err, o->errlen))
                return -1;
            from = k + 1;
        }
    return 0;
}

/* The texts of w:t / a:t elements in the subtree of i (a field's result, a keep run). after:
 * only those after the first w:fldChar separate (a complex field's result). */
static int put_subtree_text(ox *o, int i, int until, int after_separate)
{
    int on = !after_separate, depth = 0;
    for (int k = i; k >= 0; k = xml_next(o->t, k, -1, 0)) {
        if (until >= 0 && N(o, k)->s0 >= N(o, until)->e1)
            break;
        if (until < 0 && k != i && N(o, k)->s0 >= N(o, i)->e1)
            break;
        if (o->word && is(o, k, "fldChar")) {
            const char *ty = xml_attr_get(o->t, k, o->ns, "fldCharType");
            if (ty && !strcmp(ty, "begin"))
                depth++;
            else if (ty && !strcmp(ty, "end"))
                depth--;
            else if (ty && !strcmp(ty, "separate") && depth == 1)
                on = 1;
        }
        if (on && (is(o, k, "tab") || is(o, k, "br") || is(o, k, "cr")) &&
            doc_unit_text(o->d, o->unit, " ", 1, o->err, o->errlen))
            return -1;
        if (on && N(o, k)->kind == XML_TEXT && !N(o, k)->cdata && is(o, N(o, k)->parent, "t") &&
            put_chars(o, k))
            return -1;
    }
    return 0;
}

/* ---- building a paragraph's unit ---- */

static int void_elem(ox *o, int parent, int *e)
{
    if (doc_begin_elem(o->d, o->unit, parent, e, o->err, o->errlen))
        return -1;
    doc_end_elem(o->d, o->unit, *e);
    return 0;
}

/* A keep element over src[from, to) (whole runs or a field), its words those of the subtree
 * from node first to node last. Adjacent untranslatable runs join one. */
static int keep_elem(ox *o, int parent, int first, int last, size_t from, size_t to,
                     int after_separate, int join)
{
    int e;
    o->run_elem = -1;
    if (join && o->keep_elem >= 0 && o->keep_parent == parent && o->keep_end == from) {
        e = o->keep_elem;
    } else {
        if (doc_begin_elem(o->d, o->unit, parent, &e, o->err, o->errlen))
            return -1;
    }
    if (mark_bytes(o, e, DOC_KEEP, from, to) || put_subtree_text(o, first, last, after_separate))
        return -1;
    doc_end_elem(o->d, o->unit, e);
    o->keep_elem = join ? e : -1;
    o->keep_parent = parent;
    o->keep_end = to;
    return 0;
}

/* A run: text in the wrap (base properties, directly in a wrap context) or in a run element;
 * what else it holds void elements. */
static int run(ox *o, int r, int parent)
{
    int rpr = run_props(o, r), has_t, e = -1;
    const char *key = rpr >= 0 ? o->t->src + N(o, rpr)->s0 : "";
    size_t key_len = rpr >= 0 ? N(o, rpr)->e1 - N(o, rpr)->s0 : 0;
    size_t n_text = run_text_len(o, r, &has_t);
    int bare;
    if (!has_t || n_text == 0 || hidden(o, rpr)) { /* no text: the run whole, as it is */
        o->run_elem = o->keep_elem = -1;
        if (void_elem(o, parent, &e) || mark_bytes(o, e, DOC_OPEN, N(o, r)->s0, N(o, r)->e1))
            return -1;
        for (int c = N(o, r)->first; !hidden(o, rpr) && c >= 0; c = N(o, c)->next)
            if ((is(o, c, "tab") || is(o, c, "br") || is(o, c, "cr")) &&
                doc_unit_text(o->d, o->unit, " ", 1, o->err, o->errlen))
                return -1;
        return 0;
    }
    if (untranslatable(o, rpr))
        return keep_elem(o, parent, r, -1, N(o, r)->s0, N(o, r)->e1, 0, 1);
    o->keep_elem = -1;
    bare = o->base && key_len == o->base_len && !memcmp(key, o->base, key_len) &&
           (parent < 0 || o->d->units[o->unit].marks[parent].wrap);
    if (!bare) {
        if (o->run_elem >= 0 && o->run_parent == parent && o->run_key_len == key_len &&
            !memcmp(o->run_key, key, key_len)) {
            e = o->run_elem;
        } else {
            if (doc_begin_elem(o->d, o->unit, parent, &e, o->err, o->errlen) ||
                mark_str(o, e, DOC_OPEN, o->s_open) ||
                (key_len && doc_mark_part(o->d, o->unit, e, DOC_OPEN, -1, key, key_len, o->err,
                                          o->errlen)) ||
                mark_str(o, e, DOC_OPEN, o->s_topen) || mark_str(o, e, DOC_CLOSE, o->s_close))
                return -1;
            o->d->units[o->unit].marks[e].drop_empty = 1;
        }
        o->run_elem = e;
        o->run_key = key;
        o->run_key_len = key_len;
        o->run_parent = parent;
    } else {
        o->run_elem = -1;
    }
    for (int c = N(o, r)->first; c >= 0; c = N(o, c)->next) {
        int v;
        if (c == rpr || N(o, c)->kind == XML_TEXT)
            continue; /* (whitespace between a run's children) */
        if (is(o, c, "t")) {
            for (int k = N(o, c)->first; k >= 0; k = N(o, k)->next)
                if (N(o, k)->kind == XML_TEXT && put_chars(o, k))
                    return -1;
            continue;
        }
        /* anything else a run holds: inside the run element, or a run of its own */
        if (void_elem(o, bare ? parent : e, &v))
            return -1;
        if (bare ? mark_str(o, v, DOC_OPEN, o->s_open) ||
                       (key_len && doc_mark_part(o->d, o->unit, v, DOC_OPEN, -1, key, key_len,
                                                 o->err, o->errlen)) ||
                       mark_bytes(o, v, DOC_OPEN, N(o, c)->s0, N(o, c)->e1) ||
                       mark_str(o, v, DOC_OPEN, o->s_close + strlen(o->s_tclose))
                 : mark_str(o, v, DOC_OPEN, o->s_tclose) ||
                       mark_bytes(o, v, DOC_OPEN, N(o, c)->s0, N(o, c)->e1) ||
                       mark_str(o, v, DOC_OPEN, o->s_topen))
            return -1;
        if ((is(o, c, "tab") || is(o, c, "br") || is(o, c, "cr")) &&
            doc_unit_text(o->d, o->unit, " ", 1, o->err, o->errlen))
            return -1;
    }
    if (e >= 0)
        doc_end_elem(o->d, o->unit, e);
    return 0;
}

/* The items from first to last (siblings, inclusive) under parent element `parent` (-1: the
 * paragraph). Containers are walked with an explicit stack: no recursion on the input. */
static int items(ox *o, int first, int last, int parent)
{
    struct frame {
        int next, last, parent, elem;
    } *st = NULL;
    int top = 0, cap = 0, rc = -1;
    int i = first, stop = last, par = parent;
    for (;;) {
        if (i < 0 || (stop >= 0 && N(o, i)->s0 > N(o, stop)->s0)) {
            if (top == 0)
                break;
            top--;
            doc_end_elem(o->d, o->unit, st[top].elem);
            o->run_elem = o->keep_elem = -1;
            i = st[top].next;
            stop = st[top].last;
            par = st[top].parent;
            continue;
        }
        const xml_node *n = N(o, i);
        int content, next = n->next;
        const char *fc;
        if (n->kind == XML_TEXT) { /* (between elements: not text of the paragraph) */
            i = next;
            continue;
        }
        if ((!o->word && is(o, i, "pPr")) || is(o, i, "rPr") || is(o, i, "endParaRPr")) {
            i = next; /* (kept with the paragraph's start or end, or a container's open) */
            continue;
        }
        if (is_run(o, i) && (fc = fld_char(o, i)) && !strcmp(fc, "begin")) {
            /* a complex field: to its end among the siblings, one keep element */
            int depth = 0, end = -1;
            for (int k = i; k >= 0 && end < 0; k = N(o, k)->next) {
                if (stop >= 0 && N(o, k)->s0 > N(o, stop)->s0)
                    break;
                for (int c = is_run(o, k) ? N(o, k)->first : -1; c >= 0; c = N(o, c)->next)
                    if (is(o, c, "fldChar")) {
                        const char *ty = xml_attr_get(o->t, c, o->ns, "fldCharType");
                        depth += ty && !strcmp(ty, "begin") ? 1 : ty && !strcmp(ty, "end") ? -1 : 0;
                        if (depth == 0) {
                            end = k;
                            break;
                        }
                    }
            }
            if (end >= 0) {
                if (keep_elem(o, par, i, end, n->s0, N(o, end)->e1, 1, 0))
                    goto done;
                i = N(o, end)->next;
                continue;
            }
        }
        if (is_run(o, i)) {
            if (run(o, i, par))
                goto done;
        } else if ((o->word && is(o, i, "fldSimple")) || (!o->word && is(o, i, "fld"))) {
            if (keep_elem(o, par, i, -1, n->s0, n->e1, 0, 0))
                goto done;
        } else if (container(o, i, &content)) {
            int e, c = N(o, content)->first;
            size_t open_end = N(o, content)->s1;
            o->run_elem = o->keep_elem = -1;
            /* its property children (w:sdtPr, w:smartTagPr) are part of its open markup */
            while (c >= 0 && (N(o, c)->kind == XML_TEXT ||
                              (N(o, c)->kind == XML_ELEM && strlen(N(o, c)->name) > 2 &&
                               !strcmp(N(o, c)->name + strlen(N(o, c)->name) - 2, "Pr")))) {
                if (N(o, c)->kind == XML_ELEM)
                    open_end = N(o, c)->e1;
                c = N(o, c)->next;
            }
            if (doc_begin_elem(o->d, o->unit, par, &e, o->err, o->errlen) ||
                mark_bytes(o, e, DOC_OPEN, n->s0, open_end) ||
                mark_bytes(o, e, DOC_CLOSE, N(o, content)->e0, n->e1))
                goto done;
            o->d->units[o->unit].marks[e].wrap = 1;
            if (doc_grow(&st, &cap, top + 1, sizeof *st)) {
                xerr(o->err, o->errlen, "out of memory");
                goto done;
            }
            st[top++] = (struct frame){next, stop, par, e};
            i = c;
            stop = -1;
            par = e;
            continue;
        } else { /* a bookmark, a proofing mark, deleted text, math, a break (a:br) */
            int v;
            o->run_elem = o->keep_elem = -1;
            if (void_elem(o, par, &v) || mark_bytes(o, v, DOC_OPEN, n->s0, n->e1))
                goto done;
            if (!o->word && is(o, i, "br") &&
                doc_unit_text(o->d, o->unit, " ", 1, o->err, o->errlen))
                goto done;
        }
        i = next;
    }
    rc = 0;
done:
    free(st);
    return rc;
}

/* The base properties of the runs among siblings first..last: the rPr bytes that cover most
 * text (runs inside containers counted too), in o->base; NULL when no run has text. Returns
 * the text bytes counted (0: nothing to translate). */
static size_t find_base(ox *o, int first, int last)
{
    struct key {
        const char *k;
        size_t len, chars;
    } keys[MAX_KEYS];
    int n_keys = 0, best = -1;
    size_t total = 0;
    int end = last >= 0 ? N(o, last)->next : -1;
    for (int s = first; s >= 0 && s != end; s = N(o, s)->next)
        for (int i = s; i >= 0; i = xml_next(o->t, i, s, is_run(o, i) || is(o, i, "p"))) {
            int has_t, rpr;
            size_t n;
            if (!is_run(o, i) || (n = run_text_len(o, i, &has_t)) == 0)
                continue;
            rpr = run_props(o, i);
            if (hidden(o, rpr) || untranslatable(o, rpr))
                continue;
            const char *k = rpr >= 0 ? o->t->src + N(o, rpr)->s0 : "";
            size_t len = rpr >= 0 ? N(o, rpr)->e1 - N(o, rpr)->s0 : 0;
            int j = 0;
            while (j < n_keys && !(keys[j].len == len && !memcmp(keys[j].k, k, len)))
                j++;
            if (j == n_keys && n_keys < MAX_KEYS)
                keys[n_keys++] = (struct key){k, len, 0};
            if (j < n_keys)
                keys[j].chars += n;
            total += n;
        }
    for (int j = 0; j < n_keys; j++)
        if (best < 0 || keys[j].chars > keys[best].chars)
            best = j;
    o->base = best >= 0 ? keys[best].k : NULL;
    o->base_len = best >= 0 ? keys[best].len : 0;
    return total;
}

/* 1 when a unit's text has a character that is not a space. */
static int has_words(const doc_unit *u)
{
    for (size_t i = 0; i < u->len; i++)
        if (u->text[i] != ' ')
            return 1;
    return 0;
}

static int walk(ox *o, int top, int nest);

/* The children first..last of a paragraph as one unit (src[o->pos, start of first) kept
 * before it). */
static int segment(ox *o, int first, int last, int nest)
{
    size_t from = N(o, first)->s0, to = N(o, last)->e1;
    int u;
    if (find_base(o, first, last) == 0) { /* nothing to translate: kept, alt text aside */
        int end = N(o, last)->next;
        for (int s = first; s >= 0 && s != end; s = N(o, s)->next)
            if (walk(o, s, nest))
                return -1;
        return 0;
    }
    if (keep_to(o, from) ||
        doc_new_unit(o->d, DOC_ESC_XML, N(o, first)->line, &u, o->err, o->errlen))
        return -1;
    o->unit = u;
    o->d->units[u].keep_edges = 1;
    o->run_elem = o->keep_elem = -1;
    if (mark_str(o, 0, DOC_WRAP_OPEN, o->s_open) ||
        (o->base_len && doc_mark_part(o->d, u, 0, DOC_WRAP_OPEN, -1, o->base, o->base_len,
                                      o->err, o->errlen)) ||
        mark_str(o, 0, DOC_WRAP_OPEN, o->s_topen) || mark_str(o, 0, DOC_WRAP_CLOSE, o->s_close))
        return -1;
    if (items(o, first, last, -1))
        return -1;
    if (!has_words(&o->d->units[u])) {
        /* (only spaces: the unit is written as it was read; its markup all the same) */
    }
    if (doc_put_unit(o->d, u, o->err, o->errlen))
        return -1;
    o->pos = to;
    return 0;
}

/* A paragraph: its children cut at those that hold paragraphs of their own (text boxes), each
 * stretch a unit, each cut walked for its paragraphs. */
static int paragraph(ox *o, int p, int nest)
{
    int first = -1, last = -1;
    for (int c = N(o, p)->first; c >= 0; c = N(o, c)->next) {
        if (N(o, c)->kind == XML_TEXT || is(o, c, "pPr") ||
            (!o->word && is(o, c, "endParaRPr")))
            continue;
        if (holds_paragraph(o, c)) {
            if (first >= 0 && segment(o, first, last, nest))
                return -1;
            first = last = -1;
            if (nest >= OOXML_MAX_NEST ? 0 : walk(o, c, nest + 1))
                return -1;
            continue;
        }
        if (first < 0)
            first = c;
        last = c;
    }
    if (first >= 0 && segment(o, first, last, nest))
        return -1;
    return 0;
}

/* The subtree of top: paragraphs and alt text, the rest kept. */
static int walk(ox *o, int top, int nest)
{
    for (int i = top; i >= 0;) {
        if (is(o, i, "p")) {
            if (paragraph(o, i, nest))
                return -1;
            i = xml_next(o->t, i, top, 1);
            continue;
        }
        if (alt_holder(o, i) && top_alt(o, i))
            return -1;
        i = xml_next(o->t, i, top, 0);
    }
    return 0;
}

int ooxml_build(doc *d, const xml_tree *t, const char *ns, char *err, size_t errlen)
{
    ox o;
    char px[64], tclose[80], *c;
    size_t n = 0;
    memset(&o, 0, sizeof o);
    o.d = d;
    o.t = t;
    o.ns = ns;
    o.word = !strcmp(ns, OOXML_NS_W);
    o.err = err;
    o.errlen = errlen;
    o.unit = -1;
    /* the prefix the part writes the paragraphs' namespace with: that of its first paragraph
     * (w:p, a:p), else none */
    px[0] = '\0';
    for (int i = 0; i < t->n_nodes; i++)
        if (xml_is(t, i, ns, "p")) {
            const char *s = t->src + t->nodes[i].s0 + 1;
            while (s[n] && s[n] != ':' && s[n] != '>' && s[n] != ' ' && s[n] != '/' && n < 32)
                n++;
            if (s[n] == ':')
                snprintf(px, sizeof px, "%.*s:", (int)n, s);
            break;
        }
    char buf[256];
    snprintf(buf, sizeof buf, "<%sr>%c</%st></%sr>%c<%st%s>", px, 0, px, px, 0, px,
             o.word ? " xml:space=\"preserve\"" : "");
    {
        size_t l1 = strlen(buf), l2 = strlen(buf + l1 + 1), l3 = strlen(buf + l1 + 1 + l2 + 1);
        if (!(c = doc_copy(d, buf, l1 + 1 + l2 + 1 + l3)))
            return xerr(err, errlen, "out of memory");
        o.s_open = c;
        o.s_close = c + l1 + 1;
        o.s_topen = c + l1 + 1 + l2 + 1;
        /* "</w:t>" is the head of s_close */
        snprintf(tclose, sizeof tclose, "</%st>", px);
        if (!(o.s_tclose = doc_copy(d, tclose, strlen(tclose))))
            return xerr(err, errlen, "out of memory");
    }
    if (walk(&o, t->root, 0))
        return -1;
    return keep_to(&o, t->len);
}
