"""test_epub.py — --format epub (src/doc/epub.c, epub_parts.c) against other people's readers,
never against its own output. The books are made here by pandoc from a Markdown text in the
default model's domain (chapters, bold and italic inside sentences, a link, a code span, a URL,
translate="no", an image with a caption, a title and a description), as EPUB 3 and EPUB 2,
plus hand-made changes for what pandoc never writes. Oracles:

- epubcheck (4.2.6, Java) finds no error in the output that it did not find in the input;
- pandoc reads input and output (-f epub -t json) to the same blocks: the same block types in
  the same order, each with the same kinds of inline formatting;
- Python's zipfile + lxml: every member that holds no translatable text byte-identical (and
  stored or deflated as it was); every XHTML output parses as XML and has the input's element
  tree, texts and translated attributes blanked (siblings as a multiset: a translation may
  reorder words and the inline elements on them), lang and xml:lang the target; the OPF's
  dc:title and dc:description translated, dc:language the target; the NCX and nav labels
  translated, as many as before;
- no word lost: every paragraph's output text is xlate's plain translation of its text as a
  line (kept_spans.py: code, translate="no" and URLs written once, as themselves);
- hostile books exit 3 with a message naming the member: no container.xml, a rootfile that is
  missing, an OPF that is not well-formed, an OPF with a DOCTYPE entity bomb, a manifest href
  ../../etc/passwd or /etc/passwd or with encoded dot segments, a truncated zip; -o is not
  written;
- /translate_file through xlate serve gives the command line's members.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zipfile
import zlib
from urllib.parse import unquote, urljoin

sys.path.insert(0, os.path.dirname(__file__))
from checks import check, expect_eq, done  # noqa: E402
from kept_spans import plain_lines, urls, words_lost  # noqa: E402

from lxml import etree  # noqa: E402

XLATE = os.environ.get("XLATE", "./xlate")
TMP = tempfile.mkdtemp(prefix="test_epub.")
EPUBCHECK = ["java", "-jar", "/usr/share/java/epubcheck.jar"]
NS = {"opf": "http://www.idpf.org/2007/opf", "dc": "http://purl.org/dc/elements/1.1/",
      "ncx": "http://www.daisy.org/z3986/2005/ncx/", "h": "http://www.w3.org/1999/xhtml",
      "c": "urn:oasis:names:tc:opendocument:xmlns:container"}
XHTML = "{%s}" % NS["h"]
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
TRANSLATED_ATTRS = {"alt", "title", "aria-label", "placeholder"}
TARGET = "de"  # models/en-de's target_lang

TEXT = """---
title: A Day in the Park
description: A man and a dog are walking in the park.
lang: en
---

# The Park

A man in a blue shirt is riding a **bike** in the park.

A *little girl* is playing with a [red ball](http://example.com/ball).

A man with a hat [Acme GmbH]{translate="no"} is smiling at the camera.

# The Street

Two dogs are running on the street. Type `ls -l` to see the files.

Three people are sitting on a bench. See <http://example.com/dogs> for more.

![A brown dog is running through the grass.](dog.png)

- A woman is riding a bicycle.
- A boy jumps into the water.
"""


def ws(s):
    return re.sub(r"\s+", " ", s).strip()


def png(path):
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    raw = b"".join(b"\x00" + b"\x80\x40\x20" * 4 for _ in range(4))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def make_books():
    md = os.path.join(TMP, "book.md")
    with open(md, "w", encoding="utf-8") as f:
        f.write(TEXT)
    png(os.path.join(TMP, "dog.png"))
    books = {}
    for name, args in (("epub3", []), ("epub2", ["-t", "epub2"])):
        out = os.path.join(TMP, name + ".epub")
        subprocess.run(["pandoc", md, "-o", out] + args, cwd=TMP, check=True, timeout=120)
        books[name] = out
    return books


def xlate(src, dst, timeout=600):
    return subprocess.run([XLATE, "-q", "-i", src, "-o", dst], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout)


def members(path):
    with zipfile.ZipFile(path) as z:
        return [(i.filename, i.compress_type, z.read(i.filename)) for i in z.infolist()]


def write_zip(path, items):
    """items: [(name, compress_type, bytes)], mimetype first and stored as given."""
    with zipfile.ZipFile(path, "w") as z:
        for name, ct, data in items:
            z.writestr(zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0)), data, compress_type=ct)


def planned(path):
    """The members that hold text, by the container and the manifest as lxml reads them (URLs
    resolved by urllib against the OPF's URL in a fake root, then percent-decoded)."""
    z = dict((n, d) for n, _, d in members(path))
    c = etree.fromstring(z["META-INF/container.xml"])
    out = {}
    for rf in c.iterfind(".//c:rootfile", NS):
        opf = unquote(rf.get("full-path"))
        out[opf] = "opf"
        root = etree.fromstring(z[opf])
        base = "http://root.invalid/" + opf
        for it in root.iterfind("opf:manifest/opf:item", NS):
            name = unquote(urljoin(base, it.get("href"))[len("http://root.invalid/"):])
            kind = {"application/xhtml+xml": "xhtml", "application/x-dtbncx+xml": "ncx"}.get(
                it.get("media-type"))
            if kind:
                out[name] = kind
    return out


def epubcheck_errors(path):
    """epubcheck's errors and fatal errors as (code, member) pairs."""
    r = subprocess.run(EPUBCHECK + ["-q", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=300)
    errs = set()
    for line in (r.stdout + r.stderr).decode("utf-8", "replace").splitlines():
        # "ERROR(RSC-008): /tmp/x/book.epub/EPUB/toc.ncx(23,50): ...": the code and the member
        m = re.match(r"(ERROR|FATAL)\(([\w-]+)\): .*?\.epub(?:/([^(]*))?\(", line)
        if m:
            errs.add((m.group(2), m.group(3) or ""))
    return errs


def pandoc_shape(path):
    """pandoc's blocks as (type, inline kinds) in document order."""
    r = subprocess.run(["pandoc", "-f", "epub", "-t", "json", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    if r.returncode:
        raise RuntimeError("pandoc: exit %d: %s" % (r.returncode, r.stderr.decode()[-300:]))
    doc = json.loads(r.stdout)
    shape = []
    inline = {"Str", "Space", "SoftBreak", "LineBreak", "Emph", "Strong", "Code", "Link",
              "Image", "Span", "Strikeout", "Superscript", "Subscript", "SmallCaps", "Quoted",
              "Cite", "Math", "RawInline", "Note", "Underline"}
    plain = {"Str", "Space", "SoftBreak"}

    def walk(x, kinds):
        if isinstance(x, dict) and "t" in x:
            if x["t"] in inline:
                if x["t"] not in plain:
                    kinds.add(x["t"])
                walk(x.get("c"), kinds)
                return
            own, at = set(), len(shape)
            shape.append(None)
            walk(x.get("c"), own)
            shape[at] = (x["t"], tuple(sorted(own)))
        elif isinstance(x, list):
            for y in x:
                walk(y, kinds)

    for b in doc["blocks"]:
        walk(b, set())
    return shape


def canon(el):
    """The element tree with texts and translated attributes blanked, lang values as they are
    (checked apart), siblings sorted."""
    attrs = tuple(sorted((k, "" if k in TRANSLATED_ATTRS or k in ("lang", XML_LANG) else v)
                         for k, v in el.attrib.items()))
    kids = sorted(canon(c) for c in el if isinstance(c.tag, str))
    return (el.tag, attrs, tuple(kids))


BLOCK_TAGS = {XHTML + t for t in ("p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "title",
                                  "figcaption", "dt", "dd", "td", "th")}


def flat_text(el, br):
    """el's text; br (in an input, where the model reads a line) as a space."""
    out = [el.text or ""]
    for c in el:
        if isinstance(c.tag, str):
            out.append(" " if br and c.tag == XHTML + "br" else "")
            out.append(flat_text(c, br))
        out.append(c.tail or "")
    return "".join(out)


def blocks(root, br=False):
    """The XHTML blocks that hold text and no other block: (text, kept spans); br: read as
    a space (an input's text as the model reads it)."""
    out = []
    for el in root.iter():
        if el.tag not in BLOCK_TAGS or any(d.tag in BLOCK_TAGS for d in el.iter() if d is not el):
            continue
        t = ws(flat_text(el, br))
        if not re.search(r"[A-Za-z]", t):
            continue
        spans = [ws("".join(d.itertext())) for d in el.iter()
                 if d is not el and (d.tag == XHTML + "code" or d.get("translate") == "no")]
        out.append((t, spans))
    return out


def check_book(name, path):
    out = os.path.join(TMP, name + ".out.epub")
    r = xlate(path, out)
    expect_eq(name + ": xlate exits 0", (r.returncode, r.stderr.decode()[-300:]),
              (0, r.stderr.decode()[-300:] if r.returncode == 0 else ""))
    if r.returncode:
        return
    plan = planned(path)
    a, b = members(path), members(out)

    def same_members():
        if [n for n, _, _ in a] != [n for n, _, _ in b]:
            return "members %r, the input's %r" % ([n for n, _, _ in b], [n for n, _, _ in a])
        if b[0][0] != "mimetype" or b[0][1] != zipfile.ZIP_STORED:
            return "mimetype is not first and stored"
        bad = [x[0] for x, y in zip(a, b) if x[0] not in plan and x[1:] != y[1:]]
        if bad:
            return "members not translated that changed: %r" % bad
        same = [x[0] for x, y in zip(a, b) if x[0] in plan and x[2] == y[2]]
        if same:
            return "members with text left as they were: %r" % same
        return None
    check(name + ": the same members in the same order, mimetype first and stored, every member "
          "without text byte-identical and stored the same", same_members)

    A, B = dict((n, d) for n, _, d in a), dict((n, d) for n, _, d in b)
    xhtml = [n for n, k in plan.items() if k == "xhtml"]

    def trees():
        for n in xhtml:
            x, y = etree.fromstring(A[n]), etree.fromstring(B[n])
            if canon(x) != canon(y):
                return "%s: the element trees differ" % n
            for k in ("lang", XML_LANG):
                if k in x.attrib and y.get(k) != TARGET:
                    return "%s: html %s=%r" % (n, k, y.get(k))
        return None
    check(name + ": every XHTML output parses as XML (lxml) with the input's element tree, "
          "texts and translated attributes aside; html lang/xml:lang the target", trees)

    def words():
        ins = [blk for n in xhtml for blk in blocks(etree.fromstring(A[n]), br=True)]
        outs = [blk for n in xhtml for blk in blocks(etree.fromstring(B[n]))]
        if len(ins) != len(outs):
            return "%d blocks in, %d out" % (len(ins), len(outs))
        plain = plain_lines(XLATE, [t for t, _ in ins])
        bad = []
        for (t, spans), (o, _), p in zip(ins, outs, plain):
            sp = spans + urls(t)
            why = words_lost(o, p, sp) if sp else (None if ws(p) == o else "differs")
            if why:
                bad.append((t, o, p, why))
        return "%d of %d blocks: first %r -> %r (plain %r): %s" % (len(bad), len(ins), *bad[0]) \
            if bad else None
    check(name + ": no word lost: every block's text is the plain translation of its text "
          "(code, translate=no and URLs once, as themselves)", words)

    def kept():
        for n in xhtml:
            for el in etree.fromstring(B[n]).iter():
                if el.get("translate") == "no" and ws("".join(el.itertext())) != "Acme GmbH":
                    return "translate=no text %r" % "".join(el.itertext())
                if el.tag == XHTML + "code" and el.text != "ls -l":
                    return "code %r" % el.text
        return None
    check(name + ": translate=no and code byte for byte", kept)

    def metadata():
        opf = [n for n, k in plan.items() if k == "opf"][0]
        x, y = etree.fromstring(A[opf]), etree.fromstring(B[opf])
        tx = [ws(e.text) for e in x.iterfind(".//dc:title", NS)]
        ty = [ws(e.text) for e in y.iterfind(".//dc:title", NS)]
        dx = [ws(e.text) for e in x.iterfind(".//dc:description", NS)]
        dy = [ws(e.text) for e in y.iterfind(".//dc:description", NS)]
        want = plain_lines(XLATE, tx + dx)
        if ty + dy != [ws(w) for w in want]:
            return "titles and descriptions %r, plain translations %r" % (ty + dy, want)
        lang = [e.text for e in y.iterfind(".//dc:language", NS)]
        if lang[:1] != [TARGET]:
            return "dc:language %r" % lang
        return None
    check(name + ": the OPF's dc:title and dc:description are their plain translations, "
          "dc:language the target", metadata)

    def labels():
        for n, k in plan.items():
            if k == "ncx":
                path_ = ".//ncx:docTitle/ncx:text|.//ncx:navLabel/ncx:text"
                lx = [ws(e.text) for e in etree.fromstring(A[n]).xpath(path_, namespaces=NS)]
                ly = [ws(e.text) for e in etree.fromstring(B[n]).xpath(path_, namespaces=NS)]
            elif k == "xhtml" and b'epub:type="toc"' in A[n]:
                path_ = ".//h:nav//h:a"
                lx = [ws("".join(e.itertext()))
                      for e in etree.fromstring(A[n]).xpath(path_, namespaces=NS)]
                ly = [ws("".join(e.itertext()))
                      for e in etree.fromstring(B[n]).xpath(path_, namespaces=NS)]
            else:
                continue
            if not lx:
                return "%s: no labels" % n
            want = [ws(w) for w in plain_lines(XLATE, lx)]
            if ly != want:
                return "%s: labels %r, plain translations %r" % (n, ly, want)
        return None
    check(name + ": the NCX's and the nav's labels are their plain translations, as many",
          labels)

    def pandoc_same():
        sa, sb = pandoc_shape(path), pandoc_shape(out)
        if sa != sb:
            return "blocks %r, the input's %r" % (sb, sa)
        return None
    check(name + ": pandoc reads the same blocks, the same inline kinds in each", pandoc_same)

    def epubcheck_same():
        ea, eb = epubcheck_errors(path), epubcheck_errors(out)
        new = eb - ea
        return "new errors: %r" % sorted(new) if new else None
    check(name + ": epubcheck finds no error the input did not have", epubcheck_same)
    return out


books = make_books()
outs = {n: check_book(n, p) for n, p in books.items()}


# ---- what pandoc never writes: XHTML specifics, percent-encoded names ----

def xhtml_specifics():
    """The EPUB 3 book with a chapter that has XML's forms the HTML parser reads otherwise
    (<a/>, <span/>, <title/>-free head, CDATA, svg, epub:type, an XHTML 1.1 doctype), stored
    under a name with a space (href percent-encoded)."""
    items = members(books["epub3"])
    chapter = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<!DOCTYPE html>\n"
               "<html xmlns=\"http://www.w3.org/1999/xhtml\" "
               "xmlns:epub=\"http://www.idpf.org/2007/ops\" xml:lang=\"en\" lang=\"en\">\n"
               "<head><title>Dogs</title><script src=\"x.js\"/></head>\n"
               "<body epub:type=\"bodymatter\">\n"
               "<p>A man is riding a bike.<a id=\"n1\"/> A dog is running.</p>\n"
               "<p><span epub:type=\"pagebreak\" id=\"p7\"/>A woman &amp; a child are "
               "sitting.<br/>Two dogs are playing.</p>\n"
               "<p><![CDATA[A boy & a girl <are> walking.]]></p>\n"
               "<div/>\n"
               "<p>A black dog\u00a0is running.</p>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\"><rect "
               "width=\"4\" height=\"4\"/><title>A red square</title></svg>\n"
               "</body>\n</html>\n").encode()
    out = []
    for n, ct, d in items:
        if n == "EPUB/content.opf":
            d = d.replace(b'href="text/ch002.xhtml"', b'href="text/ch%20002.xhtml"')
        if n == "EPUB/text/ch002.xhtml":
            n, d = "EPUB/text/ch 002.xhtml", chapter
        out.append((n, ct, d))
    src = os.path.join(TMP, "specifics.epub")
    dst = os.path.join(TMP, "specifics.out.epub")
    write_zip(src, out)
    r = xlate(src, dst)
    if r.returncode:
        return "exit %d: %s" % (r.returncode, r.stderr.decode()[-300:])
    y = dict((n, d) for n, _, d in members(dst))["EPUB/text/ch 002.xhtml"]
    root = etree.fromstring(y)  # well-formed XML
    if canon(root) != canon(etree.fromstring(chapter)):
        return "the element tree differs: %r" % y
    if root.get("lang") != TARGET or root.get(XML_LANG) != TARGET:
        return "lang %r xml:lang %r" % (root.get("lang"), root.get(XML_LANG))
    ins = [t for t, _ in blocks(etree.fromstring(chapter), br=True)]
    outs = [t for t, _ in blocks(root)]
    want = [ws(w) for w in plain_lines(XLATE, ins)]
    if outs != want:
        return "blocks %r, plain translations %r" % (outs, want)
    if b"&nbsp;" in y:
        return "&nbsp; in XHTML"
    return None


check("XHTML's own forms (<a/>, <span/>, <script/>, <div/>, <br/>, CDATA, svg, U+00A0, "
      "lang and xml:lang) and a percent-encoded href: well-formed, the same tree, every block "
      "translated", xhtml_specifics)


# ---- /translate_file through xlate serve ----

def serve_same():
    """The EPUB 3 book through xlate serve's /translate_file: the download holds the command
    line's members, byte for byte."""
    guard = int(os.environ.get("TEST_HANG_SECONDS", "300"))
    model = os.path.join(os.path.dirname(__file__), "..", "..", "models", "en-de")
    p = subprocess.Popen([XLATE, "serve", "-m", model, "--port", "0"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        port, deadline = None, time.monotonic() + guard
        while port is None and time.monotonic() < deadline:
            line = p.stderr.readline().decode(errors="replace")
            if not line:
                break
            m = re.match(r"xlate serve: listening on http://127\.0\.0\.1:(\d+)$", line.strip())
            port = int(m.group(1)) if m else None
        if port is None:
            return "xlate serve did not say where it listens"
        threading.Thread(target=lambda: [None for _ in p.stderr], daemon=True).start()
        url = "http://127.0.0.1:%d" % port
        c = subprocess.run(["curl", "-s", "-S", "--max-time", str(guard), url + "/translate_file",
                            "-F", "file=@" + books["epub3"], "-F", "source=en", "-F",
                            "target=de"], capture_output=True, timeout=guard)
        dl = json.loads(c.stdout).get("translatedFileUrl", "")
        with urllib.request.urlopen(dl, timeout=guard) as r:
            got = r.read()
        path = os.path.join(TMP, "served.epub")
        with open(path, "wb") as f:
            f.write(got)
        if members(path) != members(outs["epub3"]):
            return "the download's members differ from the command line's"
        return None
    finally:
        p.terminate()
        try:
            p.wait(timeout=guard)
        except subprocess.TimeoutExpired:
            p.kill()


if outs.get("epub3"):
    check("/translate_file through xlate serve: the command line's members", serve_same)


# ---- hostile books ----

def hostile(name, change, want_in_message):
    def run():
        items = change(members(books["epub3"]))
        slug = re.sub(r"[^A-Za-z0-9]+", "_", name)
        src = os.path.join(TMP, slug + ".epub")
        dst = os.path.join(TMP, slug + ".out.epub")
        if isinstance(items, bytes):
            with open(src, "wb") as f:
                f.write(items)
        else:
            write_zip(src, items)
        r = xlate(src, dst, timeout=120)
        msg = r.stderr.decode("utf-8", "replace")
        if r.returncode != 3:
            return "exit %d (expected 3): %s" % (r.returncode, msg[-300:])
        if want_in_message not in msg:
            return "message %r does not name %r" % (msg[-300:], want_in_message)
        if os.path.exists(dst):
            return "-o was written"
        return None
    check("hostile: %s: exit 3, the message names %s" % (name, want_in_message), run)


def replace(member, fn):
    return lambda items: [(n, ct, fn(d) if n == member else d) for n, ct, d in items]


BOMB = (b'<?xml version="1.0"?>\n<!DOCTYPE package [\n<!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaa">\n'
        + b"".join(b'<!ENTITY %c "%s">\n' % (ord("b") + k, (b"&%c;" % (ord("a") + k)) * 10)
                   for k in range(8))
        + b']>\n<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata>'
        b'<dc:title xmlns:dc="http://purl.org/dc/elements/1.1/">&i;</dc:title></metadata>'
        b'<manifest/></package>\n')

hostile("no container.xml", lambda items: [x for x in items if x[0] != "META-INF/container.xml"],
        "META-INF/container.xml")
hostile("a rootfile that is missing",
        replace("META-INF/container.xml", lambda d: d.replace(b"EPUB/content.opf",
                                                              b"EPUB/missing.opf")),
        "EPUB/missing.opf")
hostile("an OPF that is not well-formed",
        replace("EPUB/content.opf", lambda d: d.replace(b"</manifest>", b"</manifes>")),
        "EPUB/content.opf")
hostile("an OPF with a DOCTYPE entity bomb", replace("EPUB/content.opf", lambda d: BOMB),
        "EPUB/content.opf")
hostile("a manifest href ../../etc/passwd",
        replace("EPUB/content.opf", lambda d: d.replace(b'href="text/ch001.xhtml"',
                                                        b'href="../../etc/passwd"')),
        "EPUB/content.opf")
hostile("a manifest href /etc/passwd",
        replace("EPUB/content.opf", lambda d: d.replace(b'href="media/file0.png"',
                                                        b'href="/etc/passwd"')),
        "EPUB/content.opf")
hostile("a manifest href with an encoded dot segment",
        replace("EPUB/content.opf", lambda d: d.replace(b'href="text/ch001.xhtml"',
                                                        b'href="%2e%2e/%2E./x.xhtml"')),
        "EPUB/content.opf")
hostile("a truncated zip",
        lambda items: open(books["epub3"], "rb").read()[:len(open(books["epub3"],
                                                                  "rb").read()) // 2],
        "a_truncated_zip.epub")

shutil.rmtree(TMP, ignore_errors=True)
sys.exit(done())
