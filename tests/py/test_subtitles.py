"""SRT and WebVTT (issue 47, docs/DOCUMENTS.md "Subtitles (SRT, WebVTT)") checked with readers
no one here wrote: Python's srt package (python3-srt) and webvtt-py (python3-webvtt) read the
input and xlate's output, and must see the same cues: as many, each with the same start and end,
none empty, the same cue numbers, identifiers and cue settings. The text's oracle is the command
line itself in line mode: the plain translation of each unit's text (its cues' lines joined by a
space, tags removed) must come out whole, word for word and in order, over the unit's cues (no
word lost, none added). Also: kept blocks (WEBVTT header, NOTE, STYLE, REGION) byte for byte,
styling tags around their words, CRLF, a BOM, no final newline, the errors (exit 3 and the line
named), /translate_file through xlate serve, and hardening: every truncation of the test files
and random bytes end with exit 0 or 3, never a signal.

Run by tests/run.sh with env XLATE and Debian's /usr/bin/python3."""
import html
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done, expect_eq  # noqa: E402

import srt  # noqa: E402
import webvtt  # noqa: E402

XLATE = os.environ.get("XLATE", os.path.join(TOP, "xlate"))
MODEL = os.path.join(TOP, "models", "en-de")
DATA = os.path.join(TOP, "tests", "data", "subtitles")
GUARD = int(os.environ.get("TEST_HANG_SECONDS", "300"))
TMP = tempfile.mkdtemp(prefix="test_subtitles.")
TAG = re.compile(r"<[^>]*>|\{\\[^}]*\}")
DASH = re.compile(r"^\s*(?:[-\u2013\u2014][ \t]+(?=\S)|-(?=[A-Za-z]))")


def run(path, *opts):
    p = subprocess.run([XLATE, "-m", MODEL, "-q", "-i", path] + list(opts), capture_output=True,
                       timeout=GUARD)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def write(name, data):
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def line_mode(lines):
    """The command line's plain translation of each line (one process)."""
    p = subprocess.run([XLATE, "-m", MODEL, "-q"], input=("\n".join(lines) + "\n").encode(),
                       capture_output=True, timeout=GUARD)
    if p.returncode != 0:
        raise RuntimeError("xlate: exit %d: %s" % (p.returncode, p.stderr.decode()[-300:]))
    return p.stdout.decode().split("\n")[:-1]


def plain(text, vtt):
    """A cue's text as the model reads it: tags out, a dialogue dash at a line's start out,
    lines joined by a space (VTT: references decoded)."""
    t = "\n".join(DASH.sub("", ln) for ln in TAG.sub("", text).split("\n"))
    if vtt:
        t = html.unescape(t)
    return " ".join(t.split())


def srt_cues(data):
    return list(srt.parse(data.decode("utf-8-sig")))


def vtt_cues(data):
    path = write("read-%d.vtt" % threading.get_ident(), data)
    return webvtt.read(path).captions


def timing_lines(data):
    return [ln for ln in data.decode("utf-8-sig").replace("\r\n", "\n").split("\n") if "-->" in ln]


def kept_lines(data):
    """Every line that is no cue text: blank lines, numbers, timings, identifiers, headers,
    NOTE / STYLE / REGION blocks (a block is kept whole when no line of it has "-->")."""
    text = data.decode("utf-8-sig").replace("\r\n", "\n")
    out = []
    for block in re.split(r"\n\n+", text):
        lines = block.split("\n")
        arrow = [i for i, ln in enumerate(lines) if "-->" in ln]
        out.append(lines if not arrow else lines[: arrow[0] + 1])
    return out


def same_cues(fmt, src, out):
    """None when the oracle reads the same cues in src and out (times, count, none empty,
    numbers / identifiers, settings), else why not."""
    if fmt == "srt":
        a, b = srt_cues(src), srt_cues(out)
        if len(a) != len(b):
            return "%d cues read in, %d out" % (len(a), len(b))
        for x, y in zip(a, b):
            if (x.index, x.start, x.end, x.proprietary) != (y.index, y.start, y.end, y.proprietary):
                return "cue %s: %s --> %s became %s: %s --> %s" % (x.index, x.start, x.end, y.index,
                                                                  y.start, y.end)
            if not plain(y.content, 0):
                return "cue %s is empty: %r" % (y.index, y.content)
    else:
        a, b = vtt_cues(src), vtt_cues(out)
        if len(a) != len(b):
            return "%d cues read in, %d out" % (len(a), len(b))
        for x, y in zip(a, b):
            if (x.identifier, x.start, x.end) != (y.identifier, y.start, y.end):
                return "cue %s %s --> %s became %s %s --> %s" % (x.identifier, x.start, x.end,
                                                                y.identifier, y.start, y.end)
            if not plain(y.raw_text, 1):
                return "cue at %s is empty: %r" % (y.start, y.raw_text)
    if timing_lines(src) != timing_lines(out):
        return "timing lines (settings) differ: %s" % (set(timing_lines(out)) ^ set(timing_lines(src)))
    if kept_lines(src) != kept_lines(out):
        return "kept lines differ"
    return None


def texts(fmt, data):
    if fmt == "srt":
        return [c.content for c in srt_cues(data)]
    return [c.raw_text for c in vtt_cues(data)]


def no_word_lost(fmt, src, out, groups):
    """groups: the units as lists of cue indices (the joining rule's, written out by hand).
    Each unit's cues in out, tags removed, must hold exactly the words of the plain translation
    of the unit's text, in order."""
    vtt = fmt == "vtt"
    a, b = texts(fmt, src), texts(fmt, out)
    want = line_mode([" ".join(plain(a[i], vtt) for i in g) for g in groups])
    for g, w in zip(groups, want):
        got = " ".join(plain(b[i], vtt) for i in g)
        if got.split() != w.split():
            return "cues %s: %r, the plain translation %r" % (g, got, w)
    return None


def main():
    srt_in = open(os.path.join(DATA, "captions.srt"), "rb").read()
    vtt_in = open(os.path.join(DATA, "captions.vtt"), "rb").read()
    # the joining rule on the test files: a unit ends at a cue that ends a sentence, at a NOTE,
    # at a pause over 3 s
    srt_groups = [[0, 1], [2, 3, 4], [5], [6], [7], [8]]
    vtt_groups = [[0, 1], [2, 3, 4], [5], [6]]
    outs = {}
    for fmt, data, groups in (("srt", srt_in, srt_groups), ("vtt", vtt_in, vtt_groups)):
        rc, out, err = run(os.path.join(DATA, "captions." + fmt))
        outs[fmt] = out
        expect_eq("captions.%s: exit 0 (%s)" % (fmt, err.strip()[-200:]), rc, 0)
        check("captions.%s: the %s reader sees the same cues (times, count, none empty, numbers, "
              "identifiers, settings, kept blocks)" % (fmt, "srt" if fmt == "srt" else "webvtt"),
              lambda: same_cues(fmt, data, out))
        check("captions.%s: every word of each unit's plain translation over its cues, in order "
              "(a sentence over 2 and 3 cues, single cues)" % fmt,
              lambda: no_word_lost(fmt, data, out, groups))
        check("captions.%s: translated (no cue text left as it was)" % fmt,
              lambda: None if not set(map(str.strip, texts(fmt, out))) & set(map(str.strip, texts(fmt, data)))
              else set(texts(fmt, out)) & set(texts(fmt, data)))
    o = texts("srt", outs["srt"])
    check("srt: a cue in <i> whole, in a sentence over 3 cues, is in <i> whole",
          lambda: None if re.fullmatch(r"<i>[^<]*\w[^<]*</i>", o[3]) else o[3])
    check("srt: a two-line cue with each line in <i>: two lines, each in <i> with words",
          lambda: None if re.fullmatch(r"<i>[^<]*\w[^<]*</i>\n<i>[^<]*\w[^<]*</i>", o[5]) else o[5])
    check("srt: a two-line cue stays two lines", lambda: None if o[7].count("\n") == 1 else o[7])
    check("srt: <b> around the first words stays a <b> with words, before the rest",
          lambda: None if re.fullmatch(r"<b>[^<]*\w[^<]*</b> \w.*", o[8]) else o[8])
    v = texts("vtt", outs["vtt"])
    check("vtt: <v Anna> kept at the start of its cue", lambda: None if v[0].startswith("<v Anna>") else v[0])
    check("vtt: <c.yellow> around its cue's words",
          lambda: None if re.fullmatch(r"<c\.yellow>[^<]*\w[^<]*</c>", v[3]) else v[3])
    check("vtt: <i> and <b> each with words", lambda: None if re.search(r"<i>[^<]*\w[^<]*</i>", v[5]) and
          re.search(r"<b>[^<]*\w[^<]*</b>", v[5]) else v[5])
    check("vtt: the header, STYLE and NOTE blocks byte for byte",
          lambda: None if outs["vtt"].split(b"\nintro\n")[0] == vtt_in.split(b"\nintro\n")[0]
          and b"\nNOTE a note between cues\n" in outs["vtt"] else outs["vtt"][:300])

    # CRLF, BOM, no final newline: the same translation, the file's own line endings
    for name, data, undo in (
            ("crlf.srt", srt_in.replace(b"\n", b"\r\n"), lambda b: b.replace(b"\r\n", b"\n")),
            ("bom.srt", b"\xef\xbb\xbf" + srt_in, lambda b: b[3:] if b.startswith(b"\xef\xbb\xbf") else b"no BOM"),
            ("nofinal.srt", srt_in.rstrip(b"\n"), lambda b: b + b"\n"),
            ("crlf.vtt", vtt_in.replace(b"\n", b"\r\n"), lambda b: b.replace(b"\r\n", b"\n")),
            ("bom.vtt", b"\xef\xbb\xbf" + vtt_in, lambda b: b[3:] if b.startswith(b"\xef\xbb\xbf") else b"no BOM"),
            ("nofinal.vtt", vtt_in.rstrip(b"\n"), lambda b: b + b"\n")):
        fmt = name[-3:]
        rc, out, err = run(write(name, data))
        check("%s: exit 0, the reader's cues as in the input, the output as the plain file's" % name,
              lambda: err or same_cues(fmt, data, out) or
              (None if undo(out) == outs[fmt] else "differs: %r" % out[:120]))
        if name.startswith("crlf"):
            check("%s: every line ending CRLF" % name,
                  lambda: None if out.count(b"\n") == out.count(b"\r\n") > 10 else out[:120])

    # a REGION block (webvtt-py 0.4.6 does not know them: read with the block taken out)
    region = b"REGION\nid:bottom\nwidth:40%\nlines:3\n\n"
    data = vtt_in.replace(b"STYLE\n", region + b"STYLE\n", 1)
    rc, out, err = run(write("region.vtt", data))
    check("region.vtt: the REGION block byte for byte, the rest as without it",
          lambda: err or (None if region in out and out.replace(region, b"") == outs["vtt"]
                          else out[:300]))

    # real-world shapes: a cue of one word in a sentence, no letters, dialogue dashes, many cues
    shapes = ("1\n00:00:01,000 --> 00:00:02,000\nLook\n\n2\n00:00:02,100 --> 00:00:04,000\n"
              "at the little brown dog.\n\n3\n00:00:05,000 --> 00:00:06,000\n\u266a\u266a\n\n"
              "4\n00:00:06,500 --> 00:00:08,000\n- A man is cooking.\n- A woman is reading.\n\n"
              "5\n00:00:08,100 --> 00:00:09,000\nA child\n\n6\n00:00:09,100 --> 00:00:10,000\n"
              "with a hat\n\n7\n00:00:10,100 --> 00:00:11,000\nis\n\n8\n00:00:11,100 --> "
              "00:00:12,000\nwalking\n\n9\n00:00:12,100 --> 00:00:13,000\nin the rain.\n")
    src = shapes.encode()
    rc, out, err = run(write("shapes.srt", src))
    check("shapes.srt: exit 0, the same cues, none empty (one-word cues, a cue of notes, a "
          "sentence over 5 cues)", lambda: err or same_cues("srt", src, out))
    o = texts("srt", out)
    check("shapes.srt: the cue without letters kept as it is",
          lambda: None if o[2] == "\u266a\u266a" else o[2])
    check("shapes.srt: dialogue lines start with their dashes",
          lambda: None if re.fullmatch(r"- \S.*\n- \S.*", o[3]) else o[3])
    check("shapes.srt: every word of each unit's plain translation over its cues",
          lambda: no_word_lost("srt", src, out, [[0, 1], [3], [4, 5, 6, 7, 8]]))

    # errors: exit 3, the file and the line named
    bad = [
        ("badutf8.srt", b"1\n00:00:01,000 --> 00:00:02,000\nA man.\n\n2\n00:00:03,000 --> 00:00:04,000\n"
         b"A \xff dog.\n", "line 7"),
        ("badtime.srt", b"1\n00:00:01,000 --> 00:00:02,000\nA man.\n\n2\n00:00:03,000 -> 00:00:04,000\nA dog.\n",
         "line 6"),
        ("badtime2.srt", b"1\n00:00:01,000 --> 00:00:02,000\nA man.\n\n2\n00:00:3,000 --> 00:00:04,000\nA dog.\n",
         "line 6"),
        ("notiming.srt", b"1\n00:00:01,000 --> 00:00:02,000\nA man.\n\n2\nA dog is running.\n", "line 6"),
        ("notext.srt", b"1\n00:00:01,000 --> 00:00:02,000\nA man.\n\nA dog is running.\n", "line 5"),
        ("noheader.vtt", b"00:01.000 --> 00:02.000\nA man.\n", "line 1"),
        ("badtime.vtt", b"WEBVTT\n\n00:01.000 --> 00:02.000\nA man.\n\n00:03,000 --> 00:04.000\nA dog.\n", "line 6"),
        ("noid.vtt", b"WEBVTT\n\n00:01.000 --> 00:02.000\nA man.\n\nid7\nA dog.\n", "line 6"),
        ("badutf8.vtt", b"WEBVTT\n\n00:01.000 --> 00:02.000\nA \xc3\x28 man.\n", "line 4"),
    ]
    for name, data, where in bad:
        path = write(name, data)
        rc, out, err = run(path)
        check("%s: exit 3 and a message naming %s: %s" % (name, where, err.strip()),
              lambda: None if rc == 3 and path in err and where + ":" in err and out == b""
              else (rc, err, out[:80]))

    # /translate_file through xlate serve: the CLI's output
    serve_check(srt_in, vtt_in, outs)

    # hardening: truncations of the test files (every 5th byte; 15th under the sanitizers: the
    # parser is fuzzed in-process by fuzz/fuzz_docs.c, whose seeds test_hardening replays),
    # random bytes: never a signal
    cases = []
    for fmt, data in (("srt", srt_in), ("vtt", vtt_in)):
        for k in range(0, len(data) + 1, 15 if os.environ.get("TEST_SANITIZED") else 5):
            cases.append(("cut%d.%s" % (k, fmt), data[:k]))
    rnd = random.Random(47)
    alphabet = [b"\n", b"\r\n", b" ", b"-->", b"00:00:01,000", b"00:01.000", b"<i>", b"</i>", b"<b>",
                b"<v A>", b"<00:00:01.500>", b"<ruby>", b"<rt>", b"</rt>", b"{\\an8}", b"&amp;", b"1",
                b"WEBVTT", b"NOTE", b"A man", b" is riding.", b"\xef\xbb\xbf", b"\xff", b"\x00", b".", b"dog"]
    for k in range(160):
        fmt = "srt" if k % 2 else "vtt"
        if k < 40:
            blob = bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 400)))
        else:
            blob = b"".join(rnd.choice(alphabet) for _ in range(rnd.randrange(1, 120)))
            if fmt == "vtt" and k % 4 == 0:
                blob = b"WEBVTT\n\n" + blob
        cases.append(("rnd%d.%s" % (k, fmt), blob))

    def one(case):
        name, data = case
        path = write("h-" + name, data)
        rc, _, err = run(path)
        os.unlink(path)
        return name, rc, err
    with ThreadPoolExecutor(max_workers=2) as ex:
        results = list(ex.map(one, cases))
    badrc = [(n, rc, e[-200:]) for n, rc, e in results if rc not in (0, 3)]
    check("hardening: %d truncated and random files end with exit 0 or 3, never a signal" % len(cases),
          lambda: None if not badrc else badrc[:5])


def serve_check(srt_in, vtt_in, outs):
    try:
        p = subprocess.Popen([XLATE, "serve", "-m", MODEL, "--port", "0"], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except OSError as e:
        check("/translate_file: xlate serve starts", lambda: str(e))
        return
    try:
        port, deadline = None, time.monotonic() + GUARD
        while port is None and time.monotonic() < deadline:
            line = p.stderr.readline().decode(errors="replace")
            if not line:
                break
            m = re.match(r"xlate serve: listening on http://127\.0\.0\.1:(\d+)$", line.strip())
            port = int(m.group(1)) if m else None
        if port is None:
            check("/translate_file: xlate serve listens", lambda: "no listening line")
            return
        threading.Thread(target=lambda: [None for _ in p.stderr], daemon=True).start()
        url = "http://127.0.0.1:%d" % port
        import json
        import urllib.request
        for name, data in (("movie.srt", srt_in), ("movie.vtt", vtt_in)):
            path = write(name, data)
            c = subprocess.run(["curl", "-s", "-S", "--max-time", str(GUARD), url + "/translate_file",
                                "-F", "file=@" + path, "-F", "source=en", "-F", "target=de"],
                               capture_output=True, timeout=GUARD)

            def got():
                dl = json.loads(c.stdout).get("translatedFileUrl", "")
                with urllib.request.urlopen(dl, timeout=GUARD) as r:
                    return r.read()
            check("/translate_file %s: the download is the CLI's output" % name,
                  lambda: None if got() == outs[name[-3:]] else c.stdout[:200])
    finally:
        p.terminate()
        try:
            p.wait(timeout=GUARD)
        except subprocess.TimeoutExpired:
            p.kill()


if __name__ == "__main__":
    try:
        main()
    finally:
        import shutil
        shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(done())
