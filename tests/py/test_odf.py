"""test_odf.py — --format odt|odp (src/doc/odf.c, odf_para.c) against other people's readers,
never against xlate's own output:

- the documents are made here: by pandoc (Markdown with headings, emphasis inside sentences, a
  link, a table, a footnote, a code span), by odfpy (python3-odf: a text with fields, a span
  styled fo:language="zxx", spaces, tabs and line breaks, a bookmark, a comment, a frame with
  a text box and svg:title / svg:desc, a header and a footer, a title in meta.xml; a
  presentation with slides, text boxes, spans and speaker notes), and by LibreOffice headless
  (an HTML page saved as .odt, the odfpy presentation saved again as .odp by Impress);
- odfpy reads input and output: the same paragraphs, headings, spans, links and table cells;
  pandoc (-t json) reads both .odt to the same block structure;
- LibreOffice headless opens every output (converted to text or PDF, exit 0, not empty);
- the package: the same member names in the same order, mimetype first and stored, every
  member not translated the same bytes; content.xml, styles.xml and meta.xml the same XML
  trees with their texts blanked (lxml; a paragraph's children compared as a multiset, since a
  translation may reorder spans as it reorders words);
- fields and zxx spans the input's, byte for byte after parsing; no word lost: each
  paragraph's text is what `xlate` makes of the paragraph's plain text as a line (kept spans
  aside: kept_spans.words_lost);
- hostile packages: truncated, content.xml not well-formed, a DOCTYPE with entity
  declarations (billion laughs), a wrong mimetype, no content.xml: each exits 3 naming the
  package and the member.
"""
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(__file__))
from checks import check, done, expect_eq  # noqa: E402
from kept_spans import plain_lines, words_lost  # noqa: E402

from lxml import etree  # noqa: E402

XLATE = os.environ.get("XLATE", "./xlate")
TMP = tempfile.mkdtemp(prefix="test_odf.")
HANG = 300

NS = {
    "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
    "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
    "fo": "urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0",
    "svg": "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0",
    "dc": "http://purl.org/dc/elements/1.1/",
    "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
}
T = "{%s}" % NS["text"]
PARTS = ("content.xml", "styles.xml", "meta.xml")
INLINE = {T + "span", T + "a", T + "meta"}
SPACES = {T + "s", T + "tab", T + "line-break"}
VOIDS = {T + n for n in ("soft-page-break", "bookmark", "bookmark-start", "bookmark-end",
                         "reference-mark", "reference-mark-start", "reference-mark-end")}
CONTAINERS = {T + "note", "{%s}annotation" % NS["office"]}
BLOCKS = {T + "p", T + "h", "{%s}title" % NS["svg"], "{%s}desc" % NS["svg"]}


def path(name):
    return os.path.join(TMP, name)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=HANG, **kw)


# ---- the documents ----

MD = """# A man on a bike

A man in a **blue shirt** is riding a *red* bike down the street.[^1] Two dogs run in the
[green park](http://example.com/park).

A woman in a black dress is walking on the `sidewalk` with a child.

## Children playing

- A little girl is playing in the sand.
- Two boys are jumping into a lake.

| Man | Woman |
|-----|-------|
| A dog runs on the grass. | A cat sleeps on a chair. |

[^1]: A man is sitting on a bench next to the bike.
"""


def make_pandoc():
    with open(path("pandoc.md"), "w") as f:
        f.write(MD)
    p = run(["pandoc", path("pandoc.md"), "-o", path("pandoc.odt")])
    assert p.returncode == 0, p.stderr.decode()
    return path("pandoc.odt")


def make_odfpy_text():
    from odf.opendocument import OpenDocumentText
    from odf import style, text, draw, office, dc, meta  # noqa: F401
    d = OpenDocumentText()
    bold = style.Style(name="Bold", family="text")
    bold.addElement(style.TextProperties(fontweight="bold"))
    code = style.Style(name="NoLang", family="text")
    code.addElement(style.TextProperties(language="zxx", country="none", fontname="Courier"))
    inner = style.Style(name="Inner", family="text", parentstylename="NoLang")
    inner.addElement(style.TextProperties(fontstyle="italic"))
    for s in (bold, code, inner):
        d.automaticstyles.addElement(s)
    # a common style (office:styles, written to styles.xml) that says no language
    common = style.Style(name="Source_20_Text", displayname="Source Text", family="text")
    common.addElement(style.TextProperties(language="zxx", country="none"))
    d.styles.addElement(common)
    pl = style.PageLayout(name="PL")
    pl.addElement(style.PageLayoutProperties(pagewidth="21cm", pageheight="29.7cm"))
    d.automaticstyles.addElement(pl)
    mp = style.MasterPage(name="Standard", pagelayoutname="PL")
    h = style.Header()
    h.addElement(text.P(text="A dog is running on the beach."))
    mp.addElement(h)
    f = style.Footer()
    fp = text.P(text="Page ")
    fp.addElement(text.PageNumber(selectpage="current", text="1"))
    fp.addText(" of the book about the man.")
    f.addElement(fp)
    mp.addElement(f)
    d.masterstyles.addElement(mp)
    d.meta.addElement(dc.Title(text="A girl in a red coat"))

    p = text.P(text="A man in a ")
    p.addElement(text.Span(stylename=bold, text="blue shirt"))
    p.addText(" is riding a bike on page ")
    p.addElement(text.PageNumber(selectpage="current", text="1"))
    p.addText(".")
    d.text.addElement(p)
    p = text.P(text="The man types ")
    p.addElement(text.Span(stylename=code, text="make install"))
    p.addText(" on a laptop in the park.")
    d.text.addElement(p)
    p = text.P(text="A woman reads ")
    p.addElement(text.Span(stylename=common, text="grep -r zebra"))
    p.addText(" on a bench.")
    d.text.addElement(p)
    p = text.P(text="Two dogs")
    p.addElement(text.S(c=2))
    p.addText("play in the snow.")
    p.addElement(text.Tab())
    p.addText("A girl runs.")
    p.addElement(text.LineBreak())
    p.addElement(text.BookmarkStart(name="bm1"))
    p.addText("A boy ")
    p.addElement(text.BookmarkEnd(name="bm1"))
    p.addText("is eating an apple.")
    d.text.addElement(p)
    p = text.P(text="A woman ")
    a = office.Annotation()
    a.addElement(dc.Creator(text="Ann"))
    a.addElement(text.P(text="A comment about the woman in the picture."))
    p.addElement(a)
    p.addText("is sitting on a bench in the sun.")
    d.text.addElement(p)
    p = text.P(text="A red car ")
    fr = draw.Frame(anchortype="as-char", width="3cm", height="2cm")
    tb = draw.TextBox()
    tb.addElement(text.P(text="A boy jumps into the water."))
    fr.addElement(tb)
    fr.addElement(draw.Image(href="Pictures/none.png"))
    p.addElement(fr)
    p.addText("is parked on the street.")
    d.text.addElement(p)
    fr = draw.Frame(anchortype="paragraph", width="3cm", height="2cm")
    fr.addElement(draw.Image(href="Pictures/none.png"))
    t = __import__("odf.svg", fromlist=["Title"])
    fr.addElement(t.Title(text="A black dog"))
    fr.addElement(t.Desc(text="A black dog is running through the grass."))
    p = text.P()
    p.addElement(fr)
    d.text.addElement(p)
    p = text.P()
    sp = text.Span(stylename=bold, text="Three people ")
    sp.addElement(text.A(href="http://example.com/", text="are walking"))
    sp.addText(" on the beach.")
    p.addElement(sp)
    d.text.addElement(p)
    d.save(path("odfpy.odt"))
    return path("odfpy.odt")


def make_odfpy_presentation():
    from odf.opendocument import OpenDocumentPresentation
    from odf import style, text, draw, presentation
    d = OpenDocumentPresentation()
    pl = style.PageLayout(name="PL")
    pl.addElement(style.PageLayoutProperties(pagewidth="28cm", pageheight="21cm",
                                             printorientation="landscape"))
    d.automaticstyles.addElement(pl)
    it = style.Style(name="It", family="text")
    it.addElement(style.TextProperties(fontstyle="italic"))
    d.automaticstyles.addElement(it)
    mp = style.MasterPage(name="Default", pagelayoutname="PL")
    d.masterstyles.addElement(mp)
    slides = [("A man is climbing a rock.", "A woman in a white hat is taking a picture.",
               "The man wears a red helmet."),
              ("Two children are playing soccer.", "A dog catches a ball in the air.",
               "The children are in a park.")]
    for k, (title, body, note) in enumerate(slides):
        pg = draw.Page(name="page%d" % (k + 1), masterpagename=mp)
        fr = draw.Frame(width="20cm", height="3cm", x="2cm", y="1cm")
        tb = draw.TextBox()
        tb.addElement(text.P(text=title))
        fr.addElement(tb)
        pg.addElement(fr)
        fr = draw.Frame(width="20cm", height="10cm", x="2cm", y="5cm")
        tb = draw.TextBox()
        p = text.P(text="A woman in a ")
        p.addElement(text.Span(stylename=it, text="white hat"))
        p.addText(body.split("white hat", 1)[1] if "white hat" in body else " " + body)
        tb.addElement(p)
        fr.addElement(tb)
        pg.addElement(fr)
        n = presentation.Notes()
        fr = draw.Frame(width="20cm", height="10cm", x="2cm", y="5cm")
        tb = draw.TextBox()
        tb.addElement(text.P(text=note))
        fr.addElement(tb)
        n.addElement(fr)
        pg.addElement(n)
        d.presentation.addElement(pg)
    d.save(path("odfpy.odp"))
    return path("odfpy.odp")


def soffice(args, outdir):
    prof = "file://" + path("lo-profile")
    return run(["soffice", "-env:UserInstallation=" + prof, "--headless"] + args +
               ["--outdir", outdir])


def make_libreoffice(odp_in):
    with open(path("page.html"), "w") as f:
        f.write("<html><head><title>A walk</title></head><body><h1>A day at the beach</h1>"
                "<p>A man in a <b>yellow</b> shirt is <i>swimming</i> in the sea.</p>"
                "<p>Two girls are building a <a href='http://example.com/'>sand castle</a>.</p>"
                "<ul><li>A dog is running.</li><li>A boy is sleeping.</li></ul>"
                "<table><tr><td>A bird</td><td>A fish</td></tr></table></body></html>")
    d = path("lo")
    os.makedirs(d, exist_ok=True)
    shutil.copy(odp_in, path("lo_src.odp"))
    p = soffice(["--infilter=HTML (StarWriter)", "--convert-to", "odt:writer8",
                 path("page.html")], d)
    assert p.returncode == 0, p.stderr.decode()
    q = soffice(["--convert-to", "odp", path("lo_src.odp")], d)
    assert q.returncode == 0, q.stderr.decode()
    os.rename(os.path.join(d, "page.odt"), path("lo.odt"))
    os.rename(os.path.join(d, "lo_src.odp"), path("lo.odp"))
    return path("lo.odt"), path("lo.odp")


# ---- oracles ----

def members(fn):
    with zipfile.ZipFile(fn) as z:
        return [(i.filename, i.compress_type) for i in z.infolist()], \
            {i.filename: z.read(i.filename) for i in z.infolist()}


def canon(el, para=False):
    """An element with its texts blanked: tag, attributes, children (a paragraph's as a sorted
    multiset, spaces aside: the translation may reorder spans and moves void marks)."""
    if not isinstance(el.tag, str):
        return ("#", )
    kids = [canon(c, el.tag in BLOCKS or para) for c in el]
    if el.tag in BLOCKS or para:
        kids = sorted(repr(k) for k in kids)
    return (el.tag, tuple(sorted(el.attrib.items())), tuple(kids))


def parse(b):
    return etree.fromstring(b)


def zxx_styles(roots):
    names = set()
    for r in roots:
        for s in r.iter("{%s}style" % NS["style"]):
            tp = s.find("{%s}text-properties" % NS["style"])
            if tp is not None and tp.get("{%s}language" % NS["fo"]) == "zxx":
                names.add(s.get("{%s}name" % NS["style"]))
    return names


def is_kept(e, zxx):
    if e.tag in INLINE:
        return e.get(T + "style-name") in zxx
    return e.tag.startswith(T) and e.tag not in SPACES | VOIDS | CONTAINERS | BLOCKS


def para_text(p, zxx):
    """(the paragraph's text as the model reads it, its kept spans' texts): ODF's whitespace
    collapse, spaces / tabs / line breaks a space, notes, comments and frames left out."""
    out, kept = [], []

    def walk(e, keeping):
        if e.text:
            out.append(e.text)
        for c in e:
            if not isinstance(c.tag, str):
                pass
            elif c.tag in SPACES:
                out.append(" ")
            elif c.tag in CONTAINERS or c.tag.startswith("{%s}" % NS["draw"]):
                pass
            elif not keeping and is_kept(c, zxx):
                t0 = len(out)
                walk(c, True)
                kept.append(re.sub(r"[ \t\r\n]+", " ", "".join(out[t0:])).strip())
            else:
                walk(c, keeping)
            if c.tail:
                out.append(c.tail)
    walk(p, False)
    return re.sub(r"[ \t\r\n]+", " ", "".join(out)).strip(" "), kept


def paragraphs(root):
    """The paragraphs a unit is made of, in order (a comment's, a note's, a text box's inside
    a paragraph too)."""
    return [e for e in root.iter() if e.tag in BLOCKS and (
        e.tag != "{%s}title" % NS["dc"])]


def in_para(e):
    """1 when e stands in a paragraph's inline content: inline elements up to the paragraph."""
    for a in e.iterancestors():
        if a.tag in BLOCKS:
            return True
        if a.tag not in INLINE:
            return False
    return False


def kept_xml(root, zxx):
    return [etree.tostring(e, with_tail=False) for e in root.iter()
            if isinstance(e.tag, str) and is_kept(e, zxx) and in_para(e)]


def odfpy_shape(fn):
    from odf.opendocument import load
    from odf import text, table
    d = load(fn)
    shape = {}
    for name, kind in (("p", text.P), ("h", text.H), ("span", text.Span), ("a", text.A),
                       ("table", table.Table), ("row", table.TableRow),
                       ("cell", table.TableCell), ("list-item", text.ListItem),
                       ("note", text.Note), ("page-number", text.PageNumber)):
        shape[name] = len(d.getElementsByType(kind))
    # the nesting of spans and links in each paragraph, in document order
    nest = []
    for p in d.getElementsByType(text.P) + d.getElementsByType(text.H):
        seq = []
        stack = [(p, 0)]
        while stack:
            e, depth = stack.pop()
            for c in reversed(e.childNodes):
                if getattr(c, "qname", ("", ""))[1] in ("span", "a"):
                    stack.append((c, depth + 1))
            if e is not p:
                seq.append((e.qname[1], depth))
        nest.append(sorted(seq))
    shape["nesting"] = nest
    return shape


def pandoc_blocks(fn):
    p = run(["pandoc", "-f", "odt", "-t", "json", fn])
    assert p.returncode == 0, p.stderr.decode()
    out = []

    def walk(x):
        if isinstance(x, dict):
            if "t" in x and x["t"] in ("Para", "Plain", "Header", "BulletList", "OrderedList",
                                       "Table", "BlockQuote", "CodeBlock", "Div", "Note"):
                out.append(x["t"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(json.loads(p.stdout))
    return out


def translate(src, dst, fmt=None):
    cmd = [XLATE, "-q", "-i", src, "-o", dst] + (["--format", fmt] if fmt else [])
    return run(cmd)


# ---- the checks ----

def check_package(name, src, dst):
    lin, min_ = members(src)
    lout, mout = members(dst)
    expect_eq(name + ": the same members in the same order",
              [x[0] for x in lout], [x[0] for x in lin])
    check(name + ": mimetype first and stored", lambda: None if (
        "mimetype" not in min_ or (lout[0] == ("mimetype", zipfile.ZIP_STORED) and
                                   mout["mimetype"] == min_["mimetype"])) else repr(lout[:1]))
    other = [m for m in min_ if m not in PARTS]
    check(name + ": %d members not translated have the same bytes" % len(other),
          lambda: None if all(min_[m] == mout.get(m) for m in other) else
          [m for m in other if min_[m] != mout.get(m)])
    roots_in = {m: parse(min_[m]) for m in PARTS if m in min_}
    roots_out = {m: parse(mout[m]) for m in PARTS if m in mout}
    for m in roots_in:
        check(name + ": %s the same tree, texts blanked" % m,
              lambda: None if canon(roots_in[m]) == canon(roots_out[m]) else "trees differ")
    zxx_in = zxx_styles(roots_in.values())
    for m in roots_in:
        expect_eq(name + ": %s fields and zxx spans byte for byte" % m,
                  kept_xml(roots_out[m], zxx_in), kept_xml(roots_in[m], zxx_in))
    # no word lost: each paragraph's text against the plain translation of its text
    pairs = []
    for m in roots_in:
        pin, pout = paragraphs(roots_in[m]), paragraphs(roots_out[m])
        if len(pin) != len(pout):
            check(name + ": %s the same paragraphs" % m, lambda: "%d -> %d" % (len(pin),
                                                                              len(pout)))
            continue
        for a, b in zip(pin, pout):
            ta, ka = para_text(a, zxx_in)
            tb, _ = para_text(b, zxx_in)
            inner = any(x.tag in CONTAINERS or x.tag.startswith("{%s}" % NS["draw"])
                        for x in a.iterancestors())
            letters = re.search(r"[^\W\d_]", re.sub("|".join(map(re.escape, ka)) or "^$", "",
                                                    ta))
            style = a.get(T + "style-name")
            if not letters or style in zxx_in or (inner and len(a) > 0):
                continue  # kept as it is; a text of a note with markup: translated by pieces
            pairs.append((m, ta, tb, ka))
    plains = plain_lines(XLATE, [p[1] for p in pairs])
    lost = [(m, ta, tb, w) for (m, ta, tb, ka), pl in zip(pairs, plains)
            for w in [words_lost(tb, pl, ka)] if w]
    check(name + ": %d paragraphs, no word lost (each the plain translation of its text)" %
          len(pairs), lambda: None if pairs and not lost else (lost[:3] or "no paragraphs"))
    changed = sum(1 for (_, ta, tb, _) in pairs if ta != tb)
    check(name + ": the paragraphs are translated", lambda: None if changed >= len(pairs) // 2
          else "%d of %d changed" % (changed, len(pairs)))
    return roots_in, roots_out


def main():
    docs = []
    check("pandoc makes an .odt", lambda: docs.append(("pandoc.odt", make_pandoc())))
    check("odfpy makes an .odt", lambda: docs.append(("odfpy.odt", make_odfpy_text())))
    odp = []
    check("odfpy makes an .odp", lambda: odp.append(make_odfpy_presentation()))
    docs += [("odfpy.odp", p) for p in odp]
    lo = []
    check("LibreOffice makes an .odt and an .odp",
          lambda: lo.extend(make_libreoffice(odp[0])))
    docs += [("lo.odt", lo[0]), ("lo.odp", lo[1])] if lo else []
    outs = []
    for name, src in docs:
        dst = path("out_" + name)
        p = translate(src, dst)
        check(name + ": translated (exit 0)", lambda: None if p.returncode == 0 and
              os.path.exists(dst) else "exit %d: %s" % (p.returncode, p.stderr.decode()))
        if p.returncode != 0:
            continue
        outs.append((name, src, dst))
        check_package(name, src, dst)
        check(name + ": odfpy reads the same paragraphs, spans, links, tables",
              lambda: None if odfpy_shape(src) == odfpy_shape(dst) else "%r -> %r" % (
                  odfpy_shape(src), odfpy_shape(dst)))
        if name.endswith(".odt"):
            check(name + ": pandoc reads the same blocks", lambda: None if pandoc_blocks(src) ==
                  pandoc_blocks(dst) else "%r -> %r" % (pandoc_blocks(src), pandoc_blocks(dst)))
    # specifics
    o = dict((n, d) for n, _, d in outs)
    if "odfpy.odt" in o:
        with zipfile.ZipFile(o["odfpy.odt"]) as z:
            meta, styles, content = (z.read(m).decode() for m in PARTS[::-1])
        check("odfpy.odt: dc:title translated", lambda: None if "A girl in a red coat" not in
              meta and "<dc:title>" in meta else meta)
        check("odfpy.odt: the header and footer translated, the page number field kept",
              lambda: None if "A dog is running" not in styles and "of the book" not in styles
              and "<text:page-number" in styles else styles[-600:])
        check("odfpy.odt: the zxx span kept, its sentence translated", lambda: None if
              "make install" in content and "on a laptop" not in content else content)
        check("odfpy.odt: a span of a common style of styles.xml that says zxx kept, its "
              "sentence translated", lambda: None if "grep -r zebra" in content and
              "on a bench" not in content else content)
        check("odfpy.odt: the comment, the text box, svg:title and svg:desc translated",
              lambda: None if all(s not in content for s in (
                  "A comment about", "A boy jumps", "A black dog", "is running through"))
              else content)
        check("odfpy.odt: the comment's author kept", lambda: None if ">Ann<" in content
              else "no Ann")
    if "odfpy.odp" in o:
        with zipfile.ZipFile(o["odfpy.odp"]) as z:
            content = z.read("content.xml").decode()
        check("odfpy.odp: slides and notes translated", lambda: None if all(
            s not in content for s in ("climbing a rock", "red helmet", "in a park"))
            else content)
    # LibreOffice opens every output
    lod = path("lo_out")
    os.makedirs(lod, exist_ok=True)
    odts = [d for n, _, d in outs if n.endswith(".odt")]
    odps = [d for n, _, d in outs if n.endswith(".odp")]
    p1 = soffice(["--convert-to", "txt:Text"] + odts, lod) if odts else None
    p2 = soffice(["--convert-to", "pdf"] + odps, lod) if odps else None
    for d in odts + odps:
        base = os.path.splitext(os.path.basename(d))[0]
        got = os.path.join(lod, base + (".txt" if d.endswith(".odt") else ".pdf"))
        check("LibreOffice opens " + os.path.basename(d), lambda: None if (
            (p1 or p2).returncode == 0 and os.path.exists(got) and os.path.getsize(got) > 0)
            else "no %s" % got)
    hostile(docs[0][1] if docs else None)
    shutil.rmtree(TMP, ignore_errors=True)
    return done()


def rezip(src, dst, change):
    """src's members into dst, with change(name, bytes) -> bytes or None (left out)."""
    with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w") as zo:
        for i in zi.infolist():
            b = change(i.filename, zi.read(i.filename))
            if b is not None:
                zo.writestr(i, b)


def hostile(odt):
    if not odt:
        return
    raw = open(odt, "rb").read()
    with open(path("trunc.odt"), "wb") as f:
        f.write(raw[:len(raw) // 2])
    rezip(odt, path("bad.odt"), lambda n, b: b"<a><b></a>" if n == "content.xml" else b)
    laughs = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
              b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
              b'<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'
              b'<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:'
              b'office:1.0"><office:body><office:text>&lol3;</office:text></office:body>'
              b'</office:document-content>')
    rezip(odt, path("laughs.odt"), lambda n, b: laughs if n == "content.xml" else b)
    rezip(odt, path("mime.odt"), lambda n, b: b"application/x-nothing" if n == "mimetype"
          else b)
    rezip(odt, path("nocontent.odt"), lambda n, b: None if n == "content.xml" else b)
    for name, want in (("trunc.odt", "trunc.odt"), ("bad.odt", "content.xml: line 1"),
                       ("laughs.odt", "content.xml: line 1"), ("mime.odt", "mimetype"),
                       ("nocontent.odt", "content.xml")):
        p = translate(path(name), path("out_" + name), "odt")
        err = p.stderr.decode()
        check("%s: exit 3, the message names %s" % (name, want), lambda: None if (
            p.returncode == 3 and want in err and not os.path.exists(path("out_" + name)))
            else "exit %d: %s" % (p.returncode, err.strip()))
    p = translate(path("laughs.odt"), path("out_l.odt"), "odt")
    check("laughs.odt: the entity declaration is named", lambda: None if "entity" in
          p.stderr.decode() else p.stderr.decode())


if __name__ == "__main__":
    sys.exit(main())
