"""test_po.py — gettext PO/POT catalogs (--format po, docs/DOCUMENTS.md "gettext PO") against
other people's readers: python3-polib parses input and output (the same entries, msgctxt,
msgids, comments, references, previous msgids and obsolete entries; translated entries kept;
untranslated ones given a msgstr and the fuzzy flag), msgfmt -c --check-format accepts the
output, translate-toolkit's pofilter (printf, xmltags, accelerators, as Gnome and KDE read
them) finds no failure, and the directives are counted by a regex written here.

Catalogs: tests/data/po (msgids from Debian packages' catalogs), translated by the shipped
software-text model (-m en-de-docs). What the model cannot be made to do (a target with three
plural forms: en-de-docs writes German; an alignment that swaps two directives) goes through a
small C program built here against the library, which parses a catalog with po_parse for any
target language and writes it back untranslated or with two directives swapped (po_dump.c
below). Bad input: syntax errors (exit 3, the message names the line), every truncation and
random bytes (never a signal)."""
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from checks import check, ok, not_ok, done  # noqa: E402

import polib  # noqa: E402

XLATE = os.environ.get("XLATE", "./xlate")
DATA = os.path.join(os.path.dirname(__file__), "..", "data", "po")
TMP = tempfile.mkdtemp(prefix="test_po.")
MODEL = ["-m", "en-de-docs"]
HANG = 300

# c-format directives as printf reads them (the conversion after flags, width, precision,
# length), %% included
C_DIR = re.compile(r"%(?:\d+\$)?[-+ #0']*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|ll|[hlLqjzt])?"
                   r"[diouxXeEfFgGaAcspnm%]")
PY_DIR = re.compile(r"%\([^)]*\)[-+ #0]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa]")
BRACE = re.compile(r"\{[A-Za-z_0-9]*\}")


def run(args, data=None, path=None):
    """xlate's exit status, stdout and stderr (bytes)."""
    p = subprocess.run([XLATE] + args, input=data, capture_output=True, timeout=HANG)
    return p.returncode, p.stdout, p.stderr


def write(name, data):
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def translate(src, extra=()):
    """The translation of catalog file src: (rc, output path, stderr)."""
    out = os.path.join(TMP, os.path.basename(src) + ".out" + str(len(extra)) + ".po")
    rc, _, err = run(MODEL + ["--format", "po", "-i", src, "-o", out] + list(extra))
    return rc, out, err.decode(errors="replace")


def msgfmt(path):
    p = subprocess.run(["msgfmt", "-c", "--check-format", "-o", "/dev/null", path],
                       capture_output=True, text=True, timeout=HANG)
    return None if p.returncode == 0 else f"msgfmt exit {p.returncode}: {p.stderr[-600:]}"


def pofilter(path, style):
    """The entries pofilter's printf, xmltags and accelerators checks fail, as
    (msgid, check) pairs."""
    out = os.path.join(TMP, "pofilter.po")
    if os.path.exists(out):
        os.remove(out)
    args = ["pofilter", "-t", "printf", "-t", "xmltags", "-t", "accelerators"]
    args += [style] if style else []
    subprocess.run(args + [path, out], capture_output=True, timeout=HANG)
    if not os.path.exists(out):  # (it writes nothing when nothing fails)
        return []
    fails = []
    for e in polib.pofile(out):
        for c in e.tcomment.splitlines() + [x for x in e.comment.splitlines()]:
            m = re.match(r"\(pofilter\) (\w+):", c)
            if m:
                fails.append((e.msgid, m.group(1)))
    return fails


def key(e):
    return (e.msgctxt, e.msgid)


def same_entries(a, b):
    """None when catalogs a and b (polib) have the same entries in the same order with the
    same msgctxt, msgid, msgid_plural, comments, references, previous msgids and obsolete
    state."""
    ea, eb = list(a), list(b)
    if len(ea) != len(eb):
        return f"{len(ea)} entries in, {len(eb)} out"
    for x, y in zip(ea, eb):
        for f in ("msgctxt", "msgid", "msgid_plural", "comment", "tcomment", "occurrences",
                  "previous_msgid", "previous_msgctxt", "obsolete"):
            if getattr(x, f) != getattr(y, f):
                return f"{x.msgid!r}: {f} {getattr(x, f)!r} -> {getattr(y, f)!r}"
    return None


def translated(e):
    return bool(e.msgstr) or any(v for v in e.msgstr_plural.values())


def directives(s, flags):
    if "python-format" in flags:
        return PY_DIR.findall(s) + [d for d in C_DIR.findall(s) if not d.startswith("%(")]
    if "python-brace-format" in flags:
        return BRACE.findall(s)
    return C_DIR.findall(s)


def check_catalog(name, src, out, nplurals, retranslate=False, fuzzy=True):
    """The checks every translated catalog passes."""
    a, b = polib.pofile(src), polib.pofile(out)
    check(f"{name}: polib reads the same entries, comments, references, obsolete entries",
          lambda: same_entries(a, b))
    check(f"{name}: msgfmt -c --check-format", lambda: msgfmt(out))
    for style in ("", "--gnome", "--kde"):
        before = set(pofilter(src, style))
        new = [f for f in pofilter(out, style) if f not in before]
        check(f"{name}: pofilter printf, xmltags, accelerators {style or '(standard)'}: no new "
              f"failure", lambda: f"{new}" if new else None)

    def entries():
        for x, y in zip(a, b):
            if x.msgid == "" and not x.msgctxt:
                continue
            was = translated(x)
            if x.obsolete or (was and not retranslate):
                if x.msgstr != y.msgstr or x.msgstr_plural != y.msgstr_plural or \
                        x.flags != y.flags:
                    return f"{x.msgid!r}: a translated entry changed"
                continue
            if not translated(y):
                return f"{x.msgid!r}: no msgstr"
            if x.msgid_plural and sorted(y.msgstr_plural) != list(range(nplurals)):
                return f"{x.msgid!r}: msgstr[{sorted(y.msgstr_plural)}], {nplurals} expected"
            want = x.flags + (["fuzzy"] if fuzzy and "fuzzy" not in x.flags else [])
            if sorted(y.flags) != sorted(want):
                return f"{x.msgid!r}: flags {y.flags}, {want} expected"
        return None
    check(f"{name}: translated entries kept, the others given msgstr (msgstr[0..{nplurals}))"
          f"{' and fuzzy' if fuzzy else ''}", entries)

    def dirs():
        for x, y in zip(a, b):
            if x.obsolete or not x.msgid or (translated(x) and not retranslate):
                continue
            pairs = [(x.msgid, y.msgstr)] if not x.msgid_plural else \
                [(x.msgid if k == 0 and nplurals > 1 else x.msgid_plural, v)
                 for k, v in sorted(y.msgstr_plural.items())]
            for m, t in pairs:
                dm, dt = directives(m, x.flags), directives(t, x.flags)
                positional = any("$" in d or "(" in d or re.match(r"\{\w", d) for d in dm)
                if (sorted(dm) if positional else dm) != (sorted(dt) if positional else dt):
                    return f"{m!r} -> {t!r}: directives {dm} -> {dt}"
                if re.findall(r"</?\w+[^>]*>", m) != re.findall(r"</?\w+[^>]*>", t) and \
                        sorted(re.findall(r"</?\w+[^>]*>", m)) != \
                        sorted(re.findall(r"</?\w+[^>]*>", t)):
                    return f"{m!r} -> {t!r}: tags differ"
                if m.count("\n") != t.count("\n"):
                    return f"{m!r} -> {t!r}: line breaks {m.count(chr(10))} -> {t.count(chr(10))}"
        return None
    check(f"{name}: every directive, tag and line break comes through, non-positional "
          "directives in source order (counted by regex)", dirs)
    return a, b


def kept_bytes(src, out):
    """None when the output is the input with only msgstr lines, flag lines and the header's
    Language / Plural-Forms / Content-Type strings changed or added."""
    def strip(path):
        lines, skip = [], False
        for ln in open(path, encoding="utf-8").read().split("\n"):
            if ln.startswith("msgstr"):
                skip = True
                continue
            if skip and ln.startswith('"'):
                continue
            skip = False
            if ln.startswith("#,") or re.match(r'"(Language|Plural-Forms|Content-Type):', ln):
                continue
            lines.append(ln)
        return lines
    a, b = strip(src), strip(out)
    return None if a == b else f"{len(a)} lines kept in, {len(b)} out"


# ---- a catalog read by po_parse for any target, without a model ----




def build_dump():
    """tests/po_dump.c, built by make beside the C tests (with the sanitizers under make
    sanitize)."""
    exe = os.path.join(os.environ.get("TEST_BUILD", "build/tests"), "po_dump")
    return (exe, "") if os.access(exe, os.X_OK) else (None, exe + " not built (make tests)")


def dump(exe, lang, path, *mode):
    p = subprocess.run([exe, lang, path] + list(mode), capture_output=True, timeout=HANG)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode(errors="replace")


# ---- the cases ----

pot = os.path.join(DATA, "debian.pot")
de = os.path.join(DATA, "debian-de.po")

rc, out_pot, err = translate(pot)
if rc != 0:
    not_ok("debian.pot translated", f"exit {rc}: {err}")
else:
    ok("debian.pot translated")
    a, b = check_catalog("debian.pot", pot, out_pot, 2)
    check("debian.pot: every other byte kept", lambda: kept_bytes(pot, out_pot))
    check("debian.pot: the header says Language de, UTF-8, German's Plural-Forms",
          lambda: None if (b.metadata.get("Language"), b.metadata.get("Content-Type"),
                           b.metadata.get("Plural-Forms")) ==
          ("de", "text/plain; charset=UTF-8", "nplurals=2; plural=n != 1;")
          else f"{b.metadata}")
    check("debian.pot: the header is not translated (its fuzzy flag and fields kept)",
          lambda: None if b.metadata_is_fuzzy and
          b.metadata.get("Project-Id-Version") == "PACKAGE VERSION" else f"{b.metadata}")
    text = open(out_pot, encoding="utf-8").read()
    check("debian.pot: msgctxt kept, the accelerator before a letter of the translation",
          lambda: None if re.search(r'msgctxt "Stock label"\n#?[^\n]*\n?msgid "_Cancel"\n'
                                    r'msgstr "[^"_]*_\w[^"_]*"', text) or
          re.search(r'#, fuzzy\nmsgctxt "Stock label"\nmsgid "_Cancel"\nmsgstr "[^"_]*_\w[^"_]*"',
                    text) else text[text.find("Stock label") - 40:][:200])
    check("debian.pot: the Qt accelerator: one & before a letter",
          lambda: None if re.search(r'msgid "&Open File"\nmsgstr "[^"&]*&\w[^"&]*"', text)
          else text[text.find("&Open") - 40:][:160])

rc, out_de, err = translate(de)
if rc != 0:
    not_ok("debian-de.po translated", f"exit {rc}: {err}")
else:
    ok("debian-de.po translated")
    a, b = check_catalog("debian-de.po", de, out_de, 2)
    check("debian-de.po: every other byte kept", lambda: kept_bytes(de, out_de))
    text = open(out_de, encoding="utf-8").read()
    check("debian-de.po: a new '#, fuzzy' line after the comments, before the '#|' lines",
          lambda: None if '#: src/dd.c:1\n#, fuzzy\n#| msgid "Unpacking replacement"\n' in text
          else "not found")
    check("debian-de.po: fuzzy added to the '#,' line, before the '#|' lines",
          lambda: None if '#, fuzzy, c-format\n#| msgid "cannot move %s to itself"\n' in text
          else "not found")
    check("debian-de.po: obsolete entries kept byte for byte",
          lambda: None if text.endswith(open(de, encoding="utf-8").read()
                                        [open(de, encoding="utf-8").read().find("#~ msgid"):])
          else "changed")
    check("debian-de.po: the header gets Language: de",
          lambda: None if b.metadata.get("Language") == "de" else f"{b.metadata}")

    rc, out_re, err = translate(de, ["--retranslate"])
    if rc == 0:
        a2, b2 = check_catalog("debian-de.po --retranslate", de, out_re, 2, retranslate=True)
        check("--retranslate: the translated entries have new msgstr, marked fuzzy",
              lambda: None if polib.pofile(out_re).find("Do you want to continue?").flags ==
              ["fuzzy"] else "not fuzzy")
    else:
        not_ok("--retranslate", f"exit {rc}: {err}")
    rc, out_nf, err = translate(de, ["--no-fuzzy"])
    if rc == 0:
        check_catalog("debian-de.po --no-fuzzy", de, out_nf, 2, fuzzy=False)
        check("--no-fuzzy: no fuzzy flag added",
              lambda: None if open(out_nf).read().count("fuzzy") ==
              open(de).read().count("fuzzy") else "fuzzy added")
    else:
        not_ok("--no-fuzzy", f"exit {rc}: {err}")

# no header, CRLF line endings, a BOM
nohdr = write("nohdr.po", '#, c-format\nmsgid "%d file"\nmsgid_plural "%d files"\n'
              'msgstr[0] ""\nmsgstr[1] ""\n')
rc, out, err = translate(nohdr)
check("no header: one is added (UTF-8, Language, Plural-Forms) and msgfmt accepts the plurals",
      lambda: msgfmt(out) or (None if polib.pofile(out).metadata.get("Language") == "de"
                              else "no Language") if rc == 0 else f"exit {rc}: {err}")
crlf = write("crlf.po", open(de, encoding="utf-8").read().replace("\n", "\r\n"))
rc, out, err = translate(crlf)
check("CRLF line endings kept, msgfmt accepts the output",
      lambda: (msgfmt(out) or (None if open(out, "rb").read().count(b"\n") ==
                               open(out, "rb").read().count(b"\r\n") else "a bare LF"))
      if rc == 0 else f"exit {rc}: {err}")

# ---- without the model: other targets, a swapped alignment, hostile bytes ----
exe, why = build_dump()
if not exe:
    not_ok("po_dump built against the library", why)
else:
    ok("po_dump built against the library")
    for lang, np in (("ru", 3), ("ja", 1), ("ar", 6), ("fr", 2)):
        rc, text, err = dump(exe, lang, pot)
        p = write(f"dump-{lang}.po", text)
        check(f"target {lang}: msgstr[0..{np}), Plural-Forms nplurals={np}, msgfmt accepts it",
              lambda: (msgfmt(p) or (None if all(sorted(e.msgstr_plural) == list(range(np))
                                                 for e in polib.pofile(p) if e.msgid_plural)
                                     and f"nplurals={np};" in
                                     polib.pofile(p).metadata.get("Plural-Forms", "")
                                     else "plural forms wrong"))
              if rc == 0 else f"exit {rc}: {err}")
    rc, text, err = dump(exe, "xx", pot)
    check("a target the table lacks: Language set, the header's own Plural-Forms kept",
          lambda: None if rc == 0 and '"Plural-Forms: nplurals=INTEGER; plural=EXPRESSION;\\n"'
          in text and '"Language: xx\\n"' in text else f"{rc} {err}")
    rc, text, err = dump(exe, "ja", pot)
    check("nplurals 1: msgstr[0] from msgid_plural",
          lambda: None if rc == 0 and 'msgstr[0] "(%d minutes left to unlock)"' in text
          else text[text.find("minute left"):][:200])
    sw = write("swap.po", '#, c-format\nmsgid "copy %s to %d"\nmsgstr ""\n\n'
               '#, c-format\nmsgid "%1$s on %2$s"\nmsgstr ""\n')
    rc, text, err = dump(exe, "de", sw, "swap")
    p = write("swap-out.po", text)
    check("c-format: directives the alignment swapped are written in source order",
          lambda: (msgfmt(p) or (None if 'msgstr "copy %s to %d"' in text or
                                 re.search(r'msgstr "[^"]*%s[^"]*%d', text) else text))
          if rc == 0 else err)
    check("positional directives may move (%2$s before %1$s)",
          lambda: None if rc == 0 and re.search(r'msgstr "%2\$s on %1\$s"', text) else text)

    for name in ("debian.pot", "debian-de.po"):
        p = subprocess.run([exe, "de", os.path.join(DATA, name), "trunc"], capture_output=True,
                           text=True, timeout=HANG)
        check(f"{name}: every truncation parsed or refused, no crash ({p.stdout.strip()})",
              lambda: None if p.returncode == 0 else f"exit {p.returncode} {p.stderr[-300:]}")
    p = subprocess.run([exe, "de", pot, "random", "20000"], capture_output=True, text=True,
                       timeout=HANG)
    check(f"20,000 random PO-ish catalogs parsed or refused, no crash ({p.stdout.strip()})",
          lambda: None if p.returncode == 0 else f"exit {p.returncode} {p.stderr[-300:]}")

# ---- errors through the command line ----
bad = [
    ("unterminated string", 'msgid ""\nmsgstr ""\n\nmsgid "abc\nmsgstr ""\n', 4),
    ("unknown keyword", 'msgid "a"\nmsgstring "b"\n', 2),
    ("bad escape", 'msgid "a\\qb"\nmsgstr ""\n', 1),
    ("msgstr[n] out of order", 'msgid "a"\nmsgid_plural "as"\nmsgstr[1] ""\nmsgstr[0] ""\n', 3),
    ("msgstr[2] after msgstr[0]", 'msgid "a"\nmsgid_plural "as"\nmsgstr[0] ""\nmsgstr[2] ""\n',
     4),
    ("msgid without msgstr", 'msgid "a"\n\nmsgid "b"\nmsgstr ""\n', 3),
    ("text after the string", 'msgid "a" x\nmsgstr ""\n', 1),
    ("invalid UTF-8", 'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
     'msgid "caf\xe9"\nmsgstr ""\n', 4),
    ("another charset", 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=ISO-8859-1\\n"\n'
     '\nmsgid "a"\nmsgstr ""\n', 3),
]
for what, data, line in bad:
    raw = data.encode("latin-1")
    rc, _, err = run(MODEL + ["--format", "po"], raw)
    e = err.decode(errors="replace")
    check(f"error: {what}: exit 3, the message names line {line}",
          lambda: None if rc == 3 and f"line {line}:" in e else f"exit {rc}: {e.strip()}")

rng = random.Random(47)
src = open(de, "rb").read()
sigs = []
for k in sorted(rng.sample(range(len(src)), 12)) + [0, len(src) - 1]:
    rc, _, _ = run(MODEL + ["--format", "po"], src[:k])
    if rc not in (0, 3):
        sigs.append((k, rc))
for k in range(6):
    rc, _, _ = run(MODEL + ["--format", "po"], bytes(rng.randrange(256) for _ in range(3000)))
    if rc not in (0, 3):
        sigs.append(("random", rc))
check("the command line on truncations and random bytes: exit 0 or 3, never a signal",
      lambda: f"{sigs}" if sigs else None)

sys.exit(done())
