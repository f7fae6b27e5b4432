"""kept_spans.py — the oracle for untranslatable spans (inline code, kbd/samp/var, autolinks,
URLs and e-mail addresses in running text; docs/DOCUMENTS.md), shared by test_html.py and
test_markdown.py.

A unit with kept spans is translated whole (the model reads the spans' text), and each span is
written once, as itself: where the model copied its text, in the copy's place; else beside the
words it was aligned to. So the output's text, each span's text taken out once, must be the
plain translation of the unit's text with the copies the model made of the spans taken out:
no translated word lost, whitespace aside. The URL rule here is written from the docs' words
(GitHub's autolink extension: a scheme or www. after a non-word character, trailing
punctuation and an unbalanced ")" left out), not from the C code.
"""
import json
import re
import subprocess

_URL = re.compile(r"(?<![\w@./:+%-])(?:(?:https?://|ftp://|mailto:|www\.)[A-Za-z0-9][^\s<>\"\u00a0]*"
                  r"|[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)",
                  re.I)


def _trim(u):
    while u:
        if u[-1] in "?!.,:*_~'`;":
            u = u[:-1]
        elif u[-1] == ")" and u.count(")") > u.count("("):
            u = u[:-1]
        else:
            break
    return u


def urls(text):
    """The URLs and e-mail addresses of a text, in order."""
    out = []
    for m in _URL.finditer(text):
        u = _trim(m.group(0))
        if "@" in u and "://" not in u and not u.lower().startswith("mailto:"):
            # an address's domain: its last label without a digit
            if re.search(r"\d", u.rsplit(".", 1)[-1]):
                continue
        if u:
            out.append(u)
    return out


def squeeze(s):
    return re.sub(r"\s+", "", s)


def _pattern(s):
    """s as whole words: not continued by a word character where it begins or ends with one."""
    return re.compile((r"(?<!\w)" if re.match(r"\w", s) else "") + re.escape(s) +
                      (r"(?!\w)" if re.search(r"\w$", s) else ""))


def residues(out, plain, spans):
    """(out without its spans, plain without the copies of them that spans took), or a str
    saying why the spans are not each written once. A span is found as whole words (the
    longest first, so `make test` is taken before `make`)."""
    o, p = out, plain
    for s in sorted({x.strip() for x in spans if x.strip()}, key=len, reverse=True):
        n = spans.count(s)
        pat = _pattern(s)
        co, cp = len(pat.findall(o)), len(pat.findall(p))
        if co < n or co - n > cp:
            return "span %r is %d times in the output, %d times in the plain translation %r" % (
                s, co, cp, plain)
        o = pat.sub(" ", o, count=n)
        # the copies the model made that a span took: as many as the output lacks
        p = pat.sub(" ", p, count=cp - (co - n))
    return o, p


def words_lost(out, plain, spans):
    """None when out is plain with each span written once (in a copy's place, or added), no
    word of plain lost; else why not (residues compared with whitespace taken out)."""
    r = residues(out, plain, spans)
    if isinstance(r, str):
        return r
    o, p = r
    if squeeze(o) != squeeze(p):
        return "output %r, its spans %r taken out, is not the plain translation %r" % (
            out, spans, plain)
    return None


def order_kept(out, plain, spans):
    """None when the spans the model copied (each once in plain) stand in out in the order of
    their copies in plain: two kept spans never swap places."""
    copied = [s for s in spans if plain.count(s) == 1 and out.count(s) == 1]
    by_plain = sorted(copied, key=plain.index)
    by_out = sorted(copied, key=out.index)
    return None if by_plain == by_out else "spans in the order %r, the translation has %r" % (
        by_out, by_plain)


def joined(j, src):
    """The model's own translation of a line, nothing kept: its sentences' translations in
    xlate's jsonl ("sentences", which keeping spans leaves alone) joined as xlate joins them,
    with the source's whitespace between two that have text (a space where none)."""
    out, prev, b = "", None, src.encode()
    for s in j["sentences"]:
        a, e = s["span"]
        if s["translation"] and out:
            out += b[prev:a].decode() or " "
        out += s["translation"]
        prev = e
    return out


def plain_lines(xlate, lines, args=()):
    """Each line's plain translation (joined): what the model made of it, before any span is
    kept. Line mode's text keeps a line's URLs and e-mail addresses as a document does, so it
    is no oracle of the words around them."""
    if not lines:
        return []
    p = subprocess.run([xlate, "-q", "--output-format", "jsonl"] + list(args),
                       input=("\n".join(lines) + "\n").encode(), stdout=subprocess.PIPE,
                       check=True)
    js = [json.loads(x) for x in p.stdout.decode().split("\n")[:len(lines)]]
    return [joined(j, t) for j, t in zip(js, lines)]
