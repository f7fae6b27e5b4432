"""test_plain_urls.py — URLs and e-mail addresses in plain text are kept (issue 36): a line of
text, in line mode and with --paragraphs, on the default model and a MarianMT one, comes out
with each address it holds written once, byte for byte, and no word of the plain translation
lost (the doc path's kept spans, docs/DOCUMENTS.md "Kept spans").

The addresses are made here from their parts (urllib.parse.urlunsplit; an e-mail address as
email.headerregistry.Address writes its addr_spec, RFC 5322's dot-atom), so what is the address
and what is the sentence's punctuation after it is known by construction, not by xlate's
scanner. The plain translation is the model's own: the line's sentences' translations in
jsonl ("sentences"), which are not touched, joined with the source's whitespace. The ids
(--output-format ids) are those of jsonl's sentences: keeping addresses changes no token.
"""
import json
import os
import subprocess
import sys
import tempfile
import urllib.parse
from email.headerregistry import Address
from email.utils import parseaddr

sys.path.insert(0, os.path.join(os.path.dirname(__file__)))
from checks import check, expect_eq, ok, not_ok, done  # noqa: E402
from kept_spans import joined, words_lost  # noqa: E402

XLATE = os.environ.get("XLATE", "./xlate")
PY = os.environ.get("PYTHON", "/usr/bin/python3")
TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = "models/en-de"

# (scheme, netloc, path, query, fragment) -> the URL as urlunsplit writes it; "www." ones have
# no scheme (written without it, read with http:// in front)
URL_PARTS = [
    ("https", "example.com", "/a", "b=1", ""),
    ("http", "www.example.org", "/docs/index.html", "", "intro"),
    ("https", "en.wikipedia.org", "/wiki/Foo_(bar)", "", ""),
    ("http", "foo.org", "/path", "q=dog&x=1", "top"),
    ("https", "example.com", "/search", "q=a+b&lang=en", "results"),
    ("www", "example.net", "/v2/page", "", ""),
    ("www", "test.example.com", "", "id=7", ""),
    ("https", "sub.example.co.uk", "/a/b/c", "", "sec-2"),
]
MAIL_PARTS = [("me", "x.org"), ("john.doe", "example.com"), ("first.last+tag", "mail.example.de"),
              ("info", "Example.COM")]


def url_of(p):
    if p[0] == "www":
        return urllib.parse.urlunsplit(("http", "www." + p[1], p[2], p[3], p[4]))[len("http://"):]
    return urllib.parse.urlunsplit(p)


def same_url(s, p):
    """s parses as the URL made of parts p."""
    q = urllib.parse.urlsplit(s if p[0] != "www" else "http://" + s)
    want = p if p[0] != "www" else ("http", "www." + p[1], p[2], p[3], p[4])
    return (q.scheme, q.netloc, q.path, q.query, q.fragment) == want


URLS = [(url_of(p), p) for p in URL_PARTS]
MAILS = [(Address(username=u, domain=d).addr_spec, (u, d)) for u, d in MAIL_PARTS]
# the sentence around an address; the punctuation after it is the sentence's
FRAMES = ["See {} for details.", "A man visits {} every day.", "A dog runs to {}, then sleeps.",
          "Is it {}?", "A woman (see {}) sits on a bench.", "Write to {}!"]
CASES = []
for i, (a, parts) in enumerate(URLS + MAILS):
    for k in range(2):
        CASES.append((FRAMES[(i + 3 * k) % len(FRAMES)].format(a), a, parts))


def xl(args, inp, model=MODEL):
    p = subprocess.run([XLATE, "-m", model, "--threads", "1", "-q"] + args, input=inp,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError(f"xlate {args}: exit {p.returncode}: {p.stderr[:300]!r}")
    return p.stdout.decode("utf-8").split("\n")[:-1]


def kept_once(out, a, parts, n=1):
    """None when address a (made of parts) is in out exactly n times (as often as in the
    source), none run into a word."""
    if out.count(a) != n:
        return f"{a!r} is {out.count(a)} times in {out!r}, {n} in the source"
    i = -1
    for _ in range(n):
        i = out.index(a, i + 1)
        w0, w1 = i, i + len(a)
        while w0 > 0 and not out[w0 - 1].isspace():
            w0 -= 1
        while w1 < len(out) and not out[w1].isspace():
            w1 += 1
        rest = out[w0:i] + out[i + len(a):w1]
        if any(c.isalnum() for c in rest):
            return f"{a!r} run into a word: {out[w0:w1]!r}"
    if "@" in a and "://" not in a:
        if parseaddr(a) != ("", a) or (Address(addr_spec=a).username,
                                       Address(addr_spec=a).domain) != parts:
            return f"{a!r} does not read back as the address {parts}"
    elif not same_url(a, parts):
        return f"{a!r} does not parse as the URL {parts}"
    return None


def check_lines(what, model, lines, cases, args=()):
    inp = ("\n".join(lines) + "\n").encode()
    got = xl(list(args), inp, model)
    js = [json.loads(x) for x in xl(["--output-format", "jsonl"] + list(args), inp, model)]
    ids = xl(["--output-format", "ids"] + list(args), inp, model)
    expect_eq(f"{what}: one output line per input line", (len(got), len(js)),
              (len(lines), len(lines)))
    check(f"{what}: each address as often as in the source (once a sentence), byte for byte, "
          "not run into a word", lambda: next(
        (f"line {k + 1}: {w}" for k, (g, c) in enumerate(zip(got, cases))
         for a, parts in c for w in [kept_once(g, a, parts, [x for x, _ in c].count(a))] if w),
        None))
    check(f"{what}: no word of the plain translation lost (kept_spans.words_lost)", lambda: next(
        (f"line {k + 1}: {w}" for k, (g, j, c, s) in enumerate(zip(got, js, cases, lines))
         for w in [words_lost(g, joined(j, s), [a for a, _ in c])] if w), None))
    check(f"{what}: jsonl's translation is the text line", lambda: next(
        (f"line {k + 1}: {j['translation']!r} vs {g!r}" for k, (g, j) in enumerate(zip(got, js))
         if j["translation"] != g), None))
    check(f"{what}: the ids are the sentences' ids (no token changed)", lambda: next(
        (f"line {k + 1}" for k, (i, j) in enumerate(zip(ids, js))
         if [int(x) for x in i.split()] != [x for s in j["sentences"] for x in s["ids"]]), None))
    return got


def main():
    T = tempfile.mkdtemp(prefix="xlate_urls_")
    lines = [c[0] for c in CASES]
    one = [[(a, p)] for _, a, p in CASES]
    got = check_lines(f"default model, {len(lines)} lines", MODEL, lines, one)
    # a line of several sentences, each with its address: split, each translated, joined
    multi, mcases = [], []
    for k in range(0, len(CASES) - 2, 3):
        multi.append(" ".join(c[0] for c in CASES[k:k + 3]))
        mcases.append([(a, p) for _, a, p in CASES[k:k + 3]])
    check_lines(f"default model, {len(multi)} lines of 3 sentences", MODEL, multi, mcases)
    inp = ("\n".join(lines + multi) + "\n").encode()
    base = xl([], inp)
    for args in (["--batch-size", "1"], ["--batch-size", "7"], ["--threads", "2"]):
        expect_eq(f"{' '.join(args)}: the same output (a translation does not depend on its "
                  "batch or threads)", xl(args, inp), base)
    # --paragraphs: the lines of a case wrapped (never inside an address), blank lines between
    para, pcases = [], []
    for k in range(0, len(CASES) - 1, 2):
        para += [CASES[k][0], CASES[k + 1][0], ""]
        pcases.append([(CASES[k][1], CASES[k][2]), (CASES[k + 1][1], CASES[k + 1][2])])
    pout = [x for x in xl(["--paragraphs"], ("\n".join(para) + "\n").encode()) if x]
    expect_eq("--paragraphs: one line per paragraph", len(pout), len(pcases))
    check("--paragraphs: each address as often as in the source, byte for byte, not run into a "
          "word", lambda: next(
        (f"paragraph {k + 1}: {w}" for k, (g, c) in enumerate(zip(pout, pcases))
         for a, parts in c for w in [kept_once(g, a, parts, [x for x, _ in c].count(a))] if w),
        None))
    # n-best: every hypothesis keeps them
    nb = xl(["--beam-size", "3", "--n-best", "2"], ("\n".join(lines[:6]) + "\n").encode())
    check("--n-best 2: each hypothesis keeps its line's address once", lambda: next(
        (f"{x!r}: {w}" for x in nb for k in [int(x.split(" ||| ")[0])]
         for w in [kept_once(x.split(" ||| ")[1], CASES[k][1], CASES[k][2])] if w), None)
        if len(nb) == 12 else f"{len(nb)} lines")
    # without an address a line is as before: the URL-less text is unchanged
    plainl = ["A man in a red shirt is riding a bike.", "Two dogs play in the snow."]
    js = [json.loads(x) for x in xl(["--output-format", "jsonl"],
                                     ("\n".join(plainl) + "\n").encode())]
    expect_eq("a line without an address: its sentences' translation",
              xl([], ("\n".join(plainl) + "\n").encode()),
              [joined(j, s) for j, s in zip(js, plainl)])
    # a MarianMT model (random weights, the hub's layout): its tokenizer and its spans
    mar = os.path.join(T, "mar")
    subprocess.run([PY, os.path.join(TOP, "tools", "make_marian.py"), mar, "--num-beams", "1"],
                   check=True, capture_output=True)
    check_lines(f"MarianMT, {len(lines)} lines", mar, lines, one)
    mp = [x for x in xl(["--paragraphs"], ("\n".join(para) + "\n").encode(), mar) if x]
    check("MarianMT --paragraphs: each address as often as in the source, byte for byte",
          lambda: next(
        (f"paragraph {k + 1}: {w}" for k, (g, c) in enumerate(zip(mp, pcases))
         for a, parts in c for w in [kept_once(g, a, parts, [x for x, _ in c].count(a))]
         if w), None) if len(mp) == len(pcases) else f"{len(mp)} paragraphs")
    # xlate split never cuts inside an address
    sp = subprocess.run([XLATE, "split", "--source-lang", "en", "--output-format", "jsonl"],
                        input=("\n".join(multi) + "\n").encode(), stdout=subprocess.PIPE,
                        check=True).stdout.decode().split("\n")[:-1]
    check("xlate split: each address inside one sentence", lambda: next(
        (f"{a!r} in {s}" for x, c in zip(sp, mcases) for a, _ in c
         for s in [json.loads(x)["sentences"]] if not any(a in t for t in s)), None))
    del got
    return done()


if __name__ == "__main__":
    sys.exit(main())
