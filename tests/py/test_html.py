"""test_html.py — --format html (src/doc/html.c) against real HTML parsers, never against its
own output:

- structure: the input and the output are parsed by html5lib (the WHATWG algorithm, as
  browsers parse) and by lxml.html (libxml2); their trees with the text taken out must be
  equal: the same elements with the same attributes (a translated attribute's value aside:
  alt, title, placeholder, aria-label), the same comments, nested the same way. Siblings are
  compared as a multiset, since a translation may reorder words and the inline elements on
  them ("click the button" -> "den Knopf klicken").
- kept text: the text of script, style, pre, code, kbd, samp, var, textarea and of elements
  marked translate="no" or class notranslate is the input's, byte for byte after parsing.
- no text lost: written back untranslated (tests/html_dump), a document's text, whitespace
  aside, is the input's.
- translation: for every block whose content is text and inline elements, the output's text
  (tags removed) is exactly what `xlate` makes of the block's plain text as a line: markup never
  changes a translation. The blocks and their texts come from html5lib's tree.
- hostile documents (100,000 nested tags, unclosed comments, a script that never ends, binary
  data, an entity flood, 10 MB) and real pages (a Wikipedia-like article, the README rendered
  by cmark, the man page rendered by groff -Thtml when that device is installed).
"""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata

sys.path.insert(0, os.path.dirname(__file__))
from checks import check, expect_eq, ok, done  # noqa: E402
from kept_spans import order_kept, plain_lines, urls, words_lost  # noqa: E402

import html5lib  # noqa: E402
import lxml.html  # noqa: E402
from lxml import etree  # noqa: E402

XLATE = os.environ.get("XLATE", "./xlate")
DUMP = os.path.join(os.environ.get("TEST_BUILD", "build/tests"), "html_dump")
DATA = os.path.join(os.path.dirname(__file__), "..", "data", "html")
TRANSLATED_ATTRS = {"alt", "title", "placeholder", "aria-label"}
KEEP_TAGS = {"script", "style", "pre", "code", "kbd", "samp", "var", "textarea", "svg", "math"}
INLINE = {"a", "b", "strong", "i", "em", "u", "span", "mark", "small", "sub", "sup", "abbr", "q",
          "cite", "font", "s", "del", "ins", "dfn", "time", "data", "bdi", "bdo", "br", "img",
          "wbr", "input", "big", "tt", "strike", "acronym"}
BLOCKS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "td", "th", "dt", "dd", "blockquote",
          "caption", "figcaption", "title", "option", "label", "button", "div"}
TMP = tempfile.mkdtemp(prefix="test_html.")


def ws(s):
    return re.sub(r"[ \t\n\r\f]+", " ", s).strip(" ")


def tag_name(el):
    t = el.tag
    if not isinstance(t, str):
        return None  # a comment or processing instruction
    return t.rsplit("}", 1)[-1].lower()


def is_keep(el):
    n = tag_name(el)
    cls = (el.get("class") or "").split()
    return n in KEEP_TAGS or (el.get("translate") or "").lower() == "no" or "notranslate" in cls


def flat_text(el, br=False, skip=None):
    """el's text in document order (tails after their element's content); br as a space when
    br; subtrees for which skip(node) holds left out. Iterative."""
    parts = [el.text or ""]
    stack = [(c, 0) for c in reversed(list(el))]
    while stack:
        node, done = stack.pop()
        if done:
            parts.append(node.tail or "")
            continue
        stack.append((node, 1))
        if skip and tag_name(node) is not None and skip(node):
            continue
        if br and tag_name(node) == "br":
            parts.append(" ")
        if tag_name(node) is not None:
            parts.append(node.text or "")
            stack.extend((c, 0) for c in reversed(list(node)))
    return "".join(parts)


def translated_again(el):
    """translate="yes" (or ""): translated again inside a kept element."""
    t = el.get("translate")
    return t is not None and t.lower() in ("yes", "")


SVG_NS, MATH_NS = "{http://www.w3.org/2000/svg}", "{http://www.w3.org/1998/Math/MathML}"


def foreign_ns(el):
    """"svg" or "math": the namespace html5lib put el in (None: HTML, or not an element); in
    lxml's tree, which has none, the nearest svg or math element above it."""
    t = el.tag if isinstance(el.tag, str) else ""
    if t.startswith(SVG_NS) or t.startswith(MATH_NS):
        return "svg" if t.startswith(SVG_NS) else "math"
    a = el.getparent() if hasattr(el, "getparent") else None
    while a is not None and tag_name(a) not in ("svg", "math"):
        a = a.getparent()
    return tag_name(a) if a is not None else None


def html_point(el):
    """An HTML integration point (the HTML standard's: SVG foreignObject, desc, title; MathML
    annotation-xml with an HTML encoding), by the namespace html5lib gave it: a browser builds
    its content as HTML, and xlate translates it."""
    n, ns = tag_name(el), foreign_ns(el)
    return (ns == "svg" and n in ("foreignobject", "desc", "title")) or (
        ns == "math" and n == "annotation-xml" and (el.get("encoding") or "").lower()
        in ("text/html", "application/xhtml+xml"))


def canon(root):
    """The tree as one string, text out (but in kept elements), translated attribute values
    out, children sorted. Iterative: deep documents must not hit Python's recursion limit."""
    done = []  # finished children's strings, per open element
    stack = [(root, iter(list(root)))]
    done.append([])
    while stack:
        el, it = stack[-1]
        c = next(it, None)
        if c is not None:
            stack.append((c, iter(list(c))))
            done.append([])
            continue
        stack.pop()
        kids = done.pop()
        n = tag_name(el)
        if n is None:
            s = "<!%s>" % (el.text or "")
        else:
            # the html element's lang becomes the target language (issue 36)
            attrs = sorted((k.rsplit("}", 1)[-1].lower(),
                            "*" if k.lower() in TRANSLATED_ATTRS
                            or (n == "html" and k.lower() == "lang") else v)
                           for k, v in el.attrib.items())
            body = "".join(sorted(kids))
            if is_keep(el):
                body += "|" + flat_text(el, skip=lambda n: translated_again(n) or html_point(n))
            s = "<%s %r>%s</%s>" % (n, attrs, body, n)
        if done:
            done[-1].append(s)
        else:
            return s


def h5(src):
    return html5lib.parse(src, treebuilder="etree", namespaceHTMLElements=False)


def lx(src):
    try:
        return lxml.html.document_fromstring(src)
    except (etree.ParserError, ValueError):
        return None


def same_structure(a, b, use_lxml=True):
    """None when a and b (str) have the same trees for html5lib and lxml; else why not.
    use_lxml False: html5lib alone, where libxml2 (not an HTML5 parser) reads the input unlike
    a browser: the abrupt comments <!--> and <!--->, tags inside <title> (RCDATA to a
    browser), html elements that end an svg (foreign content), random bytes."""
    ca, cb = canon(h5(a)), canon(h5(b))
    if ca != cb:
        i = next((k for k in range(min(len(ca), len(cb))) if ca[k] != cb[k]), min(len(ca), len(cb)))
        return "html5lib trees differ at %d: %r vs %r" % (i, ca[max(0, i - 80):i + 80],
                                                          cb[max(0, i - 80):i + 80])
    if not use_lxml:
        return None
    la, lb = lx(a), lx(b)
    if (la is None) != (lb is None):
        return "lxml parses one and not the other"
    if la is not None and canon(la) != canon(lb):
        return "lxml trees differ"
    return None


def run(args, data):
    p = subprocess.run(args, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=600)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (args[0], p.returncode, p.stderr.decode()[-500:]))
    return p.stdout


def write_tmp(name, data):
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def dump(data, mode=None):
    """html_dump: html_parse + doc_write, nothing translated."""
    path = write_tmp("dump.html", data)
    return run([DUMP] + ([mode] if mode else []) + [path], b"")


def translate_html(data):
    path = write_tmp("in.html", data)
    return run([XLATE, "-q", "--format", "html", "-i", path], b"")


def translate_lines(lines):
    if not lines:
        return []
    out = run([XLATE, "-q"], ("\n".join(lines) + "\n").encode()).decode()
    return out.split("\n")[:len(lines)]


def units(data):
    """The text units html_dump finds: [(kind, text)]."""
    out = dump(data, "--units").decode()
    return [tuple(line.split("\t", 1)) for line in out.split("\n") if line]


def block_texts(src, br=True):
    """Each block of html5lib's tree that holds text and inline elements only, not kept and
    outside kept elements: its text, br as a space, whitespace collapsed (document order)."""
    root = h5(src)
    res = []
    keep_depth = set()
    for el in root.iter():
        n = tag_name(el)
        if n is None:
            continue
        if is_keep(el):
            keep_depth.update(id(d) for d in el.iter())
        if n not in BLOCKS or id(el) in keep_depth:
            continue
        kids = [d for d in el.iter() if d is not el]
        if any(tag_name(d) not in INLINE for d in kids if tag_name(d) is not None):
            continue
        if any(is_keep(d) for d in kids if tag_name(d) is not None):
            continue
        if n == "title" and el.text is None:
            continue
        t = ws(flat_text(el, br=br))
        if t:
            res.append(t)
    return res


def has_letter(t):
    return any(unicodedata.category(c).startswith("L") for c in t)


def text_all(src):
    return re.sub(r"\s+", "", "".join(h5(src).itertext()))


# ---- the basic page: every rule once ----

basic = open(os.path.join(DATA, "basic.html"), encoding="utf-8").read()
want_units = [
    ("T", "Dogs & people in the park"),
    ("A", "The park in summer"),
    ("T", "Two dogs play in the park"),
    ("A", "A tall ladder"),
    ("T", "A man in a blue shirt is standing on a ladder."),
    ("T", "A little girl is climbing into a wooden playhouse."),
    ("T", "A black dog and a spotted dog are fighting."),
    ("T", "A woman is riding a bicycle."),
    ("T", "Three people are sitting on a bench."),
    ("T", "A boy jumps into the water."),
    ("T", "Children at the beach"),
    ("T", "A young child"),
    ("T", "An old man"),
    ("T", "A man is cooking food."),
    ("T", "Two women are walking down the street."),
    ("T", "A dog"),
    ("T", "A brown dog is running through the grass."),
    ("T", "A group of people stand in front of a building."),
    ("A", "A dog catches a ball"),
    ("T", "A dog catches a ball in the air."),
    ("T", "A man with a hat Acme GmbH is smiling at the camera."),
    ("T", "Type ls -l to see the files."),
    ("T", "A woman is sitting"),
    ("A", "A man is walking"),
    ("T", "A boy is running"),
    ("T", "A red car"),
    ("T", "A white boat"),
    ("T", "A girl in a pink dress\u00a0is jumping! \u00a9 \u2014 <b>"),
    ("T", "A man is playing a guitar on the street."),
]
got_units = units(basic)
expect_eq("basic.html: the units, by hand (block by block; alt, title, placeholder; "
          "translate=no and code read by the model, notranslate/pre/script/textarea not)",
          sorted(got_units), sorted(want_units))
untranslated = dump(basic).decode()
check("basic.html written back untranslated: same trees (html5lib, lxml)",
      lambda: same_structure(basic, untranslated))
check("basic.html written back untranslated: no text lost",
      lambda: None if text_all(basic) == text_all(untranslated) else "text differs")

out = translate_html(basic).decode()
check("basic.html translated: same trees, kept text byte for byte (html5lib, lxml)",
      lambda: same_structure(basic, out))


def check_translations(name, src, out):
    """Every text block's output text is the plain translation of its input text (a br is
    a space between the words the model reads; in the output, wherever it went, it adds
    nothing to the translation's text)."""
    a, b = block_texts(src), block_texts(out, br=False)
    if len(a) != len(b):
        return "%d text blocks in, %d out" % (len(a), len(b))
    # a block without a letter ("[", "1979", "|") is left as it is (docs/DOCUMENTS.md)
    words = [x for x in a if has_letter(x)]
    plain = iter(plain_lines(XLATE, words))
    want = [next(plain) if has_letter(x) else x for x in a]
    # a URL or e-mail address in the text is a kept span (kept_spans.py): the block is the
    # plain translation with each written once, no word lost
    bad = [(x, y, w) for x, y, w in zip(a, b, want)
           if (words_lost(y, w, urls(x)) if urls(x) else ws(w) != y)]
    if bad:
        return "%d of %d blocks differ from the plain translation, first: %r -> %r, plain %r" % (
            len(bad), len(a), *bad[0])
    return None


check("basic.html translated: each block's text is the plain translation of its text",
      lambda: check_translations("basic", basic, out))


# ---- kept spans: code, kbd, samp, var, translate="no" inside a sentence, URLs ----

READ_KEEP = {"code", "kbd", "samp", "var"}  # inline keep elements whose words the model reads
OPAQUE = KEEP_TAGS - READ_KEEP - {"pre"}


def reads_keep(el):
    n = tag_name(el)
    cls = (el.get("class") or "").split()
    return n in READ_KEEP or (n in INLINE and ((el.get("translate") or "").lower() == "no" or
                                               "notranslate" in cls))


def kept_blocks(src):
    """Each block of html5lib's tree holding text, inline elements and at least one inline
    keep element the model reads (code, kbd, samp, var, translate="no"), nothing opaque: (its
    text as the model reads it, [the keep elements' texts and the URLs outside them])."""
    res = []
    in_keep = set()
    for el in h5(src).iter():
        n = tag_name(el)
        if n is not None and is_keep(el):
            in_keep.update(id(d) for d in el.iter())
        if n not in BLOCKS or id(el) in in_keep:
            continue
        kids = [d for d in el.iter() if d is not el and tag_name(d) is not None]
        keeps = [d for d in kids if reads_keep(d)]
        inside = {id(x) for k in keeps for x in k.iter() if x is not k}
        if not keeps or any(id(d) not in inside and tag_name(d) not in INLINE and
                            not reads_keep(d) for d in kids):
            continue
        if any(tag_name(d) in OPAQUE for d in kids):
            continue
        spans = [ws(flat_text(k)) for k in keeps if id(k) not in inside]
        spans += urls(ws(flat_text(el, br=True, skip=reads_keep)))
        res.append((ws(flat_text(el, br=True)), [x for x in spans if x]))
    return res


def check_kept(src, out):
    """Every block with kept spans: no translated word lost to them (kept_spans.words_lost),
    each written once, copied spans in the translation's order."""
    a, b = kept_blocks(src), kept_blocks(out)
    if len(a) != len(b):
        return "%d blocks with kept spans in, %d out" % (len(a), len(b))
    if not a:
        return None
    plain = plain_lines(XLATE, [t for t, _ in a])
    for (t, spans), (y, _), w in zip(a, b, plain):
        why = words_lost(y, w, spans) or order_kept(y, w, spans)
        if why:
            return "%r: %s" % (t, why)
    return None


ISSUE_36 = """<!DOCTYPE html><title>Kept spans</title>
<p>A man in a <code>red</code> shirt is riding a bike.</p>
<p>Visit <a href="https://example.com/docs">https://example.com/docs</a> for details.</p>
<p>A dog runs in the snow near a <code>tree</code>.</p>
<p><code>a</code> must be used instead of <code>b</code>.</p>
<p>Press <kbd>Ctrl</kbd> and <kbd>C</kbd> while a man in a <samp>blue</samp> shirt waits.</p>
<p>A woman with a <var>hat</var> is walking down the <span translate="no">Main Street</span>.</p>
<p>Write to info@example.com or see www.example.org for a photo of two dogs.</p>
<p>A boy jumps into the water at https://example.org/a_b?x=1&amp;y=2 (the lake).</p>
"""
out36 = translate_html(ISSUE_36).decode()
check("issue 36's spans (code, kbd, samp, var, translate=no, a link whose text is its URL, URLs "
      "and e-mail addresses in text): same trees, kept text byte for byte",
      lambda: same_structure(ISSUE_36, out36))
check("issue 36's spans: no translated word lost to a kept span, each written once, copies in "
      "the translation's order", lambda: check_kept(ISSUE_36, out36))
check("issue 36's spans: URLs and e-mail addresses in running text written as they are",
      lambda: next(("%r not in the output" % u for u in urls(ws("".join(h5(ISSUE_36).itertext())))
                    if u not in "".join(h5(out36).itertext())), None))
check("basic.html translated: no word lost to a kept span", lambda: check_kept(basic, out))


# ---- a navigation line (texinfo's, as in Debian's libffi manual) ----

NAV = """<div class="header">
<p>
Next: <a href="Introduction.html" accesskey="n" rel="next">A dog runs</a>, Previous: <a
href="index.html" accesskey="p" rel="prev">Two men</a>, Up: <a href="index.html" accesskey="u"
rel="up">A woman</a> &nbsp; [<a href="index.html#SEC_Contents" title="Table of contents"
rel="contents">Contents</a>][<a href="Index.html" title="Index" rel="index">Index</a>]</p>
</div>
"""
out_nav = translate_html(NAV).decode()


def nav_pieces():
    """Each label and each link's text is the plain translation of itself, in the source's
    order; the no-break space and the brackets are kept."""
    def pieces(src):
        p = [el for el in h5(src).iter() if tag_name(el) == "p"][0]
        res = [("text", ws(p.text or ""))]
        for a in p:
            res.append((a.get("href"), ws("".join(a.itertext()))))
            res.append(("text", ws(a.tail or "")))
        return res
    a, b = pieces(NAV), pieces(out_nav)
    if [k for k, _ in a] != [k for k, _ in b]:
        return "links in the order %r, the source's %r" % ([k for k, _ in b], [k for k, _ in a])
    words = [t for _, t in a if has_letter(t)]
    plain = iter(translate_lines(words))
    want = [next(plain) if has_letter(t) else t for _, t in a]
    bad = [(x, y) for x, y in zip(want, [t for _, t in b]) if ws(x) != y]
    return "pieces %r are not their plain translations %r" % (
        [y for _, y in bad], [x for x, _ in bad]) if bad else None


check("a navigation line (Next: <a>, Previous: <a>, Up: <a> &nbsp; [<a>][<a>]): same trees",
      lambda: same_structure(NAV, out_nav))
check("a navigation line: every label and link text is the plain translation of itself, the "
      "links in order, &nbsp; and the brackets kept", nav_pieces)

# ---- what html5lib puts inside a kept element stays kept (issue 36) ----

def kept_by_html5lib(src):
    """The texts html5lib's tree holds inside kept elements (KEEP_TAGS, translate="no",
    notranslate; svg and math but their HTML integration points, foreignObject and
    annotation-xml encoding="text/html", whose HTML a browser renders as HTML), in order."""
    res = []
    todo = [(h5(src), False)]
    while todo:
        e, keep = todo.pop()
        n = tag_name(e)
        if html_point(e):
            keep = False
        elif n is not None and is_keep(e) and not translated_again(e):
            keep = True
        if keep and e.text and e.text.strip():
            res.append(e.text)
        for c in reversed(list(e)):
            if keep and c.tail and c.tail.strip():
                res.append(("tail", c.tail))
            todo.append((c, keep))
    return res


KEPT_SOUPS = [
    ("an unclosed a before a pre with a second a inside it (the adoption agency)",
     "<p><a href=x>One dog <pre>two <a href=y>cats</a> sit</pre> runs.</p>"),
    ("a stray td inside p translate=no (the table scope)",
     "<p translate=no>A dog<td>two cats</td> sit.</p><p>A man runs.</p>"),
    ("a stray td and tr inside a pre",
     "<pre>A dog <td>two cats</td><tr>sit</pre><p>A man runs.</p>"),
    ("an unclosed b around a code closed by a block and opened again",
     "<p><b>A <code>dog runs<p>two cats</code> sit.</b></p>"),
    ("svg text kept, its foreignObject's HTML translated",
     "<p>A dog <svg><text>a cat</text><foreignObject><p>two cats sit</p></foreignObject></svg>"
     " runs.</p>"),
    ("math mtext kept", "<p>A dog <math><mi>x</mi><mtext>two cats sit</mtext></math> runs.</p>"),
    ("math annotation-xml with HTML translated",
     "<p>A dog <math><annotation-xml encoding=\"text/html\"><p>two cats sit</p></annotation-xml>"
     "</math> runs.</p>"),
]
for name, src in KEPT_SOUPS:
    soup_out = translate_html(src).decode()
    check("kept as html5lib builds it: %s: same trees (html5lib), the kept text the same" % name,
          lambda src=src, o=soup_out: same_structure(src, o, False) or (
              None if kept_by_html5lib(src) == kept_by_html5lib(o) else "kept %r, now %r" % (
                  kept_by_html5lib(src), kept_by_html5lib(o))))

# ---- foreign content: translated where html5lib builds HTML (issue 36) ----

def foreign_split(src):
    """(the words xlate must translate, the texts it must keep) by html5lib's tree and its
    namespaces: text is translated where its element is in the HTML namespace or is an HTML
    integration point, outside kept elements; svg and math are kept, so are the MathML token
    elements (mi, mo, mn, ms, mtext: math, and the HTML a browser builds inside them); an
    integration point is kept where the HTML around its svg or math is, or a translate="no" on
    the way says so."""
    words, kept = [], []
    todo = [(h5(src), False, False, False)]  # (element, parent's keep, parent's fkeep, foreign)
    while todo:
        e, pk, pfk, pforeign = todo.pop()
        n = tag_name(e)
        if n is None:
            continue
        no = (e.get("translate") or "").lower() == "no" or "notranslate" in (
            e.get("class") or "").split()
        if foreign_ns(e):
            fk = (pfk if pforeign else pk) or no
            keep = fk if html_point(e) else True
        else:
            keep = pk or is_keep(e)
            if translated_again(e) and n not in KEEP_TAGS:
                keep = False
            fk = keep
        for t in [e.text] + [c.tail for c in e]:
            if t and t.strip():
                (kept.append(t) if keep else words.extend(t.split()))
        for c in reversed(list(e)):
            todo.append((c, keep, fk, foreign_ns(e) is not None))
    return sorted(words), kept


FOREIGN = [
    ("svg text kept, foreignObject's HTML translated", "<p>A dog <svg><text>a cat</text>"
     "<foreignObject><p>two cats sit</p></foreignObject></svg> runs.</p>"),
    ("svg title and desc translated, text kept", "<svg><title>A dog runs.</title><desc>Two cats "
     "sit.</desc><text>a man</text><g><title>A tree</title></g></svg>"),
    ("MathML token elements kept", "<math><mi>x</mi><mo>+</mo><mn>2</mn><ms>str</ms><mtext>two "
     "cats sit</mtext></math><p>A man runs.</p>"),
    ("HTML inside mtext and mi kept (math)", "<math><mtext>two <b>cats</b> sit</mtext><mi><span>"
     "x</span></mi></math><p>A dog.</p>"),
    ("annotation-xml: HTML encodings translated, others kept", "<math><annotation-xml encoding="
     "\"text/html\"><p>A man runs.</p></annotation-xml><annotation-xml encoding=\"application/"
     "mathml+xml\"><mi>y</mi><mtext>not html</mtext></annotation-xml><annotation-xml encoding="
     "\"Application/XHTML+XML\">A dog runs.</annotation-xml></math>"),
    ("an svg inside a MathML annotation-xml, its desc", "<math><annotation-xml><svg><desc>A dog "
     "runs.</desc><text>kept</text></svg></annotation-xml></math>"),
    ("a breakout stops at the integration point", "<svg><foreignObject><svg><p>A man runs.</p>"
     "</svg></foreignObject></svg><p>A cat.</p>"),
    ("translate=no on the svg, and a pre around it, keep the points", "<svg translate=no>"
     "<foreignObject>A dog runs.</foreignObject></svg><pre><svg><desc>A cat sits.</desc></svg>"
     "</pre><svg><g class=notranslate><title>A cow</title></g></svg>"),
    ("kept HTML and svg inside a foreignObject", "<svg><foreignObject><p>A <b>man</b> runs.</p>"
     "<pre>kept pre</pre><svg><text>kept</text></svg> A dog sits.</foreignObject><text>kept "
     "too</text></svg>"),
    ("an inline svg with a title in a sentence", "<p>A man <svg><title>A dog</title><path d='M0'/>"
     "</svg> runs.</p>"),
]
for name, src in FOREIGN:
    def foreign_one(src=src):
        want, kept = foreign_split(src)
        got = sorted(w for k, t in units(src) if k == "T" for w in t.split())
        if got != want:
            return "xlate's units read %r, html5lib's HTML holds %r" % (got, want)
        o = translate_html(src).decode()
        why = same_structure(src, o, False)
        if why:
            return "translated: " + why
        ko = foreign_split(o)[1]
        return None if ko == kept else "kept %r, translated %r" % (kept, ko)
    check("foreign content as html5lib reads it: %s: the units' words are the HTML's, the rest "
          "kept byte for byte, same trees" % name, foreign_one)

# ---- a UTF-16 document: decoded by its byte order mark, as a browser does ----

U16_SRC = ("<!DOCTYPE html><title>Dogs</title><p>A man in a <b>red</b> shirt is riding a bike."
           "</p><p lang=\"en\">Two dogs \U0001F415 play.</p>\n")
for codec in ("utf-16-le", "utf-16-be"):
    data = b"\xff\xfe" if codec.endswith("le") else b"\xfe\xff"
    data += U16_SRC.encode(codec)
    path = write_tmp("u16.html", data)
    r = subprocess.run([XLATE, "--format", "html", "-i", path], capture_output=True, timeout=600)

    def u16(r=r, data=data):
        if r.returncode != 0:
            return "exit %d: %s" % (r.returncode, r.stderr.decode(errors="replace")[-300:])
        if not r.stdout.startswith(b"\xef\xbb\xbf"):
            return "the output does not start with a UTF-8 byte order mark: %r" % r.stdout[:20]
        a = canon(html5lib.parse(data, treebuilder="etree", namespaceHTMLElements=False))
        b = canon(html5lib.parse(r.stdout, treebuilder="etree", namespaceHTMLElements=False))
        return None if a == b else "html5lib trees differ: %r vs %r" % (a[:300], b[:300])
    check("a %s document with its BOM: decoded (html5lib reads input and output to the same "
          "tree), written as UTF-8 with a BOM" % codec, u16)
    check("a %s document: a warning says it was decoded" % codec,
          lambda r=r: None if b"UTF-16" in r.stderr else "stderr %r" % r.stderr[-200:])
check("basic.html translated: translated attributes differ from the source (alt, title, "
      "placeholder)", lambda: None if 'alt="A dog catches a ball"' not in out
      and "A tall ladder" not in out and "A man is walking" not in out else "left in English")
check("basic.html translated: kept parts byte for byte (script, style, pre, textarea, "
      "comment, doctype, notranslate, the URL's &copy=)",
      lambda: next((k for k in [
          '<script>\n  var s = "<p>A man is not text</p>"; if (a < b && c > d) { s += '
          "'</scr' + 'ipt>'; }\n</script>",
          "<pre>  A man   is\n    reading a book.  </pre>",
          "<textarea>A child is playing &amp; singing.</textarea>",
          "<!-- A comment: two dogs are running. -->", "<!DOCTYPE html>\n<HTML lang=",
          '<div class="notranslate">A man sleeps on a bench.</div>',
          '<span translate="no">Acme GmbH</span>', "<code>ls -l</code>",
          'href="/ladder?a=1&copy=2"', "/* </p> stays CSS */"] if k not in out), None))

expect_eq("attributes, by hand: a kept element's own alt/title/placeholder translated (code, "
          "textarea, pre), not one marked translate=no; the first of a duplicate name only",
          sorted(units('<p>Type <code title="A command">ls</code> now.</p><textarea '
                       'placeholder="Your message">x</textarea><pre title=Example>a</pre>'
                       '<div translate=no title=Kept>x</div><img alt=One alt=Two title="">')),
          sorted([("T", "Type ls now."), ("A", "A command"), ("A", "Your message"),
                  ("A", "Example"), ("A", "One")]))

bom = b"\xef\xbb\xbf<p>A dog</p><p>[</p><p>1979</p><p>\xc2\xbb \xe2\x86\x92 \xe2\x98\x85</p>" \
    b"<p>\xc3\xa9t\xc3\xa9</p><p>\xe4\xb8\xad</p>"
expect_eq("units need a letter: numbers, punctuation and symbols are left as they are; a byte "
          "order mark is not text (by hand)", units(bom), [("T", "A dog"), ("T", "\u00e9t\u00e9"),
                                                         ("T", "\u4e2d")])
expect_eq("a byte order mark, numbers, symbols: written back untranslated byte for byte",
          dump(bom), bom)

# ---- inline elements: each exactly once, nested as they were ----

inline_doc = ("<p>A man in a <b>blue <i>shirt</i></b> is standing on a <a href=l>ladder</a> "
              "<img src=x.png alt=''> near <span class=c>two <em>small</em> dogs</span>.</p>\n"
              "<p><strong>A woman</strong> and <u>a child</u> are <mark>walking</mark> on the "
              "<sub>beach</sub><sup>1</sup>.<br>They are <small>smiling</small>.</p>\n"
              "<h2>A <abbr title='United States'>US</abbr> flag <q>waves</q> in the "
              "<cite>wind</cite>.</h2>\n")
out = translate_html(inline_doc).decode()
check("inline elements: same trees after translation (each element once, same nesting)",
      lambda: same_structure(inline_doc, out))
check("inline elements: each block's text is the plain translation of its text",
      lambda: check_translations("inline", inline_doc, out))
expect_eq("inline elements: the units, by hand (br is a space between words)",
          sorted(units(inline_doc)), sorted([("T", "A man in a blue shirt is standing on a ladder near two small dogs."),
           ("T", "A woman and a child are walking on the beach1. They are smiling."),
           ("A", "United States"), ("T", "A US flag waves in the wind.")]))

# ---- malformed but accepted, as a browser parses it ----

malformed = [
    ("unclosed p, li, td", "<p>A dog runs<p>A cat sleeps<ul><li>One man<li>Two women</ul>"
     "<table><tr><td>A boy<td>A girl</table>"),
    ("stray end tags", "<p>A man </span>is walking</i> down</div> the street.</p></b>"),
    ("uppercase tags and attributes", "<P CLASS=X><B>A DOG</B> IS <A HREF=Y>RUNNING</A>.</P>"),
    ("unquoted and duplicate attributes",
     "<p><img src=a.png alt=A-dog alt='second'> A dog <a href=x title=t1 title=t2>runs</a>.</p>"),
    ("misnested inline", "<p>A man <b>in a <i>blue</b> shirt</i> is sitting.</p>"),
    ("misnested, adjacent ends", "<p><b><i>A dog runs</b></i> in the park.</p>"),
    ("inline around blocks", "<b>A dog<p>runs in the</b> park.</p><a href=x><div>A man</div></a>"),
    ("code spanning a block", "<p>Run <code>make<p>install</code> now.</p>"),
    ("nested a", "<p><a href=1>A man <a href=2>and a dog</a> walk</a>.</p>"),
    ("text in a table", "<table>A man<tr><td>A dog</td></tr> sits</table>"),
    ("void end tags", "<p>A man</br>walks</img> home.</p>"),
    ("svg and math inline", "<p>A <svg><title>icon</title><path d='M0'/></svg> dog "
     "<math><mi>x</mi></math> runs.</p>"),
    ("foreign breakout (html5lib only)", "<svg><p>A dog runs.</p></svg><p>A cat</p>"),
    ("script in a sentence", "<p>A man <script>var x = '<b>';</script>walks.</p>"),
    ("comments in a sentence (html5lib only)", "<p>A man <!-- x --> walks <!--> home <!---> now.</p>"),
    ("translate=yes inside no", "<div translate=no>Kept <span translate=yes>A man walks."
     "</span> kept</div>"),
    ("head content (html5lib only)", "<title>A <b>title</b></title><meta name=x>Some text<link rel=y>"),
    ("CDATA and PI", "<p>A man <![CDATA[ x > y ]]> walks <?php echo 1 ?> home.</p>"),
    ("lone ampersands and brackets", "<p>A & B < C > D &unknown; &#; &#x; &amp</p>"),
    ("unclosed tag at the end", "<p>A man walks <a href='x"),
    ("plaintext", "<p>A man</p><plaintext><p>not a tag</p>"),
    ("textarea with tags", "<textarea><p>A man</p></textarea><p>A dog</p>"),
    ("RCDATA title end", "<title>A </titlex> man </TITLE ><p>walks</p>"),
    ("nested lists and tables", "<ul><li>A man<ul><li>A dog</ul><li>A cat</ul>"
     "<table><tr><td><table><tr><td>A boy</table><td>A girl</table>"),
]
for name, src in malformed:
    def one(src=src, use_lxml="html5lib only" not in name):
        a = dump(src).decode()
        why = same_structure(src, a, use_lxml)
        if why:
            return "untranslated: " + why
        if text_all(src) != text_all(a):
            return "untranslated: text lost or changed: %r" % a
        b = translate_html(src).decode()
        why = same_structure(src, b, use_lxml)
        return "translated: %s: %r" % (why, b) if why else None
    check("malformed: %s: same trees (html5lib, lxml), untranslated and translated" % name, one)


def translated_units_are_plain(src):
    """For well-formed blocks: output text = plain translation."""
    return check_translations("", src, translate_html(src).decode())


check("malformed: unclosed p/li/td and uppercase tags: text = plain translation",
      lambda: translated_units_are_plain(malformed[0][1] + malformed[2][1]))

# ---- tag soup: random fragments of well-formed and broken markup ----

SOUP_WORDS = "a man in blue shirt is standing on ladder near two small dogs the woman runs".split()
SOUP_INLINE = ["b", "i", "em", "strong", "a href=x", "span", "u", "small", "sub", "q",
               "abbr title='A dog'"]
SOUP_BLOCKS = ["p", "li", "div", "h2", "td", "dd", "blockquote", "ul", "table", "tr", "option",
               "label"]
SOUP_LEAVES = ["<br>", "<img alt='A cat' src=x>", "<!-- c -->", "</b>", "</i>", "</span>",
               "&amp;", "&nbsp;", "&copy", "<code>f(x)</code>", "<span translate=no>Acme</span>",
               "<script>var a='<b>'</script>"]


def soup(rng, depth=0):
    """Words, inline and block elements (an end tag left out now and then), stray end tags,
    comments, scripts, references: what a browser repairs with its implied ends, adoption
    agency, reconstruction of formatting elements and foster parenting."""
    out = []
    for _ in range(rng.randint(1, 6)):
        r = rng.random()
        if r < 0.4:
            out.append(" ".join(rng.choice(SOUP_WORDS) for _ in range(rng.randint(1, 5))) +
                       rng.choice(["", ".", " ", "\n"]))
        elif r < 0.6 and depth < 4:
            t = rng.choice(SOUP_INLINE)
            out.append("<%s>%s%s" % (t, soup(rng, depth + 1),
                                     "</%s>" % t.split()[0] if rng.random() < 0.85 else ""))
        elif r < 0.7:
            out.append(rng.choice(SOUP_LEAVES))
        elif depth < 3:
            t = rng.choice(SOUP_BLOCKS)
            out.append("<%s>%s%s" % (t, soup(rng, depth + 1),
                                     "</%s>" % t if rng.random() < 0.6 else ""))
    return "".join(out)


for seed in (22, 23):
    rng = random.Random(seed)
    doc = "".join(soup(rng) for _ in range(60))
    check("tag soup (seed %d, %d bytes), translated: same html5lib tree" % (seed, len(doc)),
          lambda doc=doc: same_structure(doc, translate_html(doc).decode(), use_lxml=False))

# ---- character references ----

expect_eq("character references, by hand: named with and without ';', numeric with the "
          "standard's replacements, in text and in attributes",
          units("<p title='&copy=1 &copy;=1 &amp &ampx &lt;'>&copy 1 &notit; &#0; &#xD800; "
                "&#x110000; &#128; &#x9F; &#129; &#65;&#x42;&#X43; &NotEqualTilde; &zzz; "
                "&Aacute &aacutex</p>"),
          [("A", "&copy=1 \u00a9=1 & &ampx <"),
           ("T", "\u00a9 1 \u00acit; \ufffd \ufffd \ufffd \u20ac \u0178 \u0081 ABC \u2242\u0338 "
                 "&zzz; \u00c1 \u00e1x")])

# ---- hostile documents ----


def timed(fn):
    t = time.time()
    r = fn()
    return r, time.time() - t


deep = "<div>" * 100000 + "A man walks." + "</div>" * 100000
r, t = timed(lambda: dump(deep).decode())
expect_eq("100,000 nested divs: written back whole (%.2f s)" % t, r, deep)
deep_inline = "<p>" + "<span>" * 100000 + "A man walks." + "</span>" * 100000 + "</p>"
r, t = timed(lambda: translate_html(deep_inline).decode())
check("100,000 nested spans in one sentence, translated (%.2f s): every tag back, text "
      "translated" % t, lambda: None if r.count("<span>") == 100000 and r.count("</span>") ==
      100000 and "A man walks." not in r else "tags %d/%d" % (r.count("<span>"),
                                                            r.count("</span>")))
unclosed_b = "<p>A man" + "<b>" * 100000 + " walks."
r = dump(unclosed_b).decode()
expect_eq("100,000 unclosed <b>: written back whole", r, unclosed_b)

for name, src in [
    ("unclosed comment", "<p>A man walks.</p><!-- never closed <p>A dog</p>\n"),
    ("comment at the end without its dashes", "<p>A man walks.</p><!--"),
    ("a script that never ends", "<p>A man walks.</p><script>var s = '<p>A dog</p>';\n"),
    ("a script escaped and never ends", "<p>A man walks.</p><script><!--<script></script>x"),
    ("a style that never ends", "<p>A man walks.</p><style>p { }</p>"),
    ("a title that never ends", "<title>A man walks <p>"),
]:
    def hostile(src=src):
        out = translate_html(src).decode()
        tail = src[src.index("</p>") + 4:] if "</p>" in src else ""
        if tail and not out.endswith(tail):
            return "the kept tail is not the input's: %r" % out
        return same_structure(src, out)
    check("hostile: %s: kept byte for byte, same trees" % name, hostile)

rng = random.Random(23)
binary = bytes(rng.getrandbits(8) for _ in range(200000))
binary += b"".join(rng.choice([b"<p>", b"</p>", b"<b>", b"</b>", b"<!--", b"-->", b"&amp;",
                               b"<script>", b"</script>", b"\x00", b"\xff", b"A man ", b"<",
                               b"&#", b"<a href=", b"'", b'"', b"<svg>", b"<![CDATA["])
                    for _ in range(30000))


def binary_check():
    out = dump(binary)
    a = binary.decode("utf-8", "replace").replace("\x00", "\ufffd")
    b = out.decode("utf-8", "replace").replace("\x00", "\ufffd")
    return same_structure(a, b, use_lxml=False)


check("hostile: %d bytes of binary data and markup shards: parsed, same trees (html5lib)"
      % len(binary),
      binary_check)
flood = "<p>" + "&amp;&lt;&#x1F600;&notin;&copy;a" * 400000 + "</p>"
r, t = timed(lambda: dump(flood, "--count").decode())
check("hostile: an entity flood (%.1f MB): one unit (%.2f s)" % (len(flood) / 1e6, t),
      lambda: None if r.startswith("units 1 ") else r)
r = translate_html("<p>" + "&amp;" * 3000 + " A man walks.</p>").decode()
check("hostile: 3000 entities in a sentence, translated: one paragraph, every & escaped",
      lambda: None if r.startswith("<p>") and r.endswith("</p>") and r.count("<") == 2 and
      not re.search(r"&(?!amp;|lt;|gt;|quot;|nbsp;)", r) else r[:200])

article = open(os.path.join(DATA, "wiki_article.html"), "rb").read()
copies = 10 * 1000 * 1000 // len(article)
big = article * copies
r, t = timed(lambda: dump(big))
check("hostile: a 10 MB document (the article %d times) parsed and written back in %.2f s "
      "(not a bound: bench/html_bench.py measures): every tag and comment back in order"
      % (copies, t),
      lambda: None if re.findall(rb"<[^>]*>", r) == re.findall(rb"<[^>]*>", big) else
      "the tags differ")

# ---- real pages ----

wiki = open(os.path.join(DATA, "wiki_article.html"), encoding="utf-8").read()
check("wiki_article.html untranslated: same trees, no text lost",
      lambda: same_structure(wiki, dump(wiki).decode()) or (
          None if text_all(wiki) == text_all(dump(wiki).decode()) else "text differs"))
out = translate_html(wiki).decode()
check("wiki_article.html translated: same trees (html5lib, lxml), kept text byte for byte",
      lambda: same_structure(wiki, out))
check("wiki_article.html translated: each text block is the plain translation of its text",
      lambda: check_translations("wiki", wiki, out))
check("wiki_article.html translated: no word lost to a kept span",
      lambda: check_kept(wiki, out))

readme = subprocess.run(["cmark", os.path.join(os.path.dirname(__file__), "..", "..",
                                               "README.md")], stdout=subprocess.PIPE,
                        check=True).stdout.decode()
check("README.md rendered by cmark, untranslated: same trees, no text lost",
      lambda: same_structure(readme, dump(readme).decode()) or (
          None if text_all(readme) == text_all(dump(readme).decode()) else "text differs"))
out = translate_html(readme).decode()
check("README.md rendered by cmark (%d bytes), translated: same trees (html5lib, lxml), code "
      "kept byte for byte" % len(readme), lambda: same_structure(readme, out))
check("README.md rendered by cmark, translated: each text block is the plain translation of "
      "its text", lambda: check_translations("readme", readme, out))
check("README.md rendered by cmark, translated: no word lost to a kept span (%d blocks with "
      "code)" % len(kept_blocks(readme)), lambda: check_kept(readme, out))

man = os.path.join(os.path.dirname(__file__), "..", "..", "xlate.1")
g = subprocess.run(["groff", "-man", "-Thtml", man], stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE) if shutil.which("groff") else None
if g is None or g.returncode != 0:
    ok("xlate.1 rendered by groff -Thtml: skipped, groff's html device is not installed "
       "(groff-base has none: apt-get install groff)")
else:
    page = g.stdout.decode("utf-8", "replace")
    out = translate_html(page).decode()
    check("xlate.1 rendered by groff -Thtml, translated: same trees",
          lambda: same_structure(page, out))

shutil.rmtree(TMP, ignore_errors=True)
sys.exit(done())
