"""test_langid.py — the language identifier (xlate detect, xlate_detect_language; docs/LANGID.md)
against its held-out texts and against a twin of its scorer.

Oracles:
  - tests/data/langid/test.tsv: texts of Debian packages that training never saw (whole
    packages held out by tools/langid/build.py), labelled by the catalog they came from; the
    accuracy of each length band must stay at the floor docs/LANGID.md's table leaves room for;
  - a Python twin of the scorer written from the model's description (tools/langid/train.py's
    features(): the same normalization and hashes), over the tables langid_data.c holds: the
    best language and its confidence for each text must be the C scorer's;
  - hand-made inputs for what cannot be told (empty, digits, symbols, too short) and for the
    codes a caller may write.
"""
import collections
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "langid"))
from checks import check, expect_eq, done  # noqa: E402
import train  # noqa: E402  (the feature rules, the twin's)

XLATE = os.environ.get("XLATE", "./xlate")
# the band floors: the committed draw's accuracy (docs/LANGID.md) less a margin of a few texts
FLOOR = {"20-60": 0.94, "60-200": 0.98, "200+": 0.99}


def detect(lines, *args):
    p = subprocess.run([XLATE, "detect", *args, "-i", "-"], input="".join(l + "\n" for l in lines),
                       capture_output=True, text=True, timeout=120)
    if p.returncode:
        raise RuntimeError(f"exit {p.returncode}: {p.stderr.strip()}")
    return [l.split("\t") for l in p.stdout.splitlines()]


def load_tables():
    src = open(os.path.join(ROOT, "src", "lang", "langid_data.c"), encoding="utf-8").read()

    def arr(name):
        body = re.search(name + r"\[\] = \{(.*?)\};", src, re.S).group(1)
        return [x.strip() for x in body.replace("\n", " ").split(",") if x.strip()]
    codes = re.findall(r'"(\w+)"', re.search(r"langid_codes\[\]\[4\] = \{(.*?)\};", src).group(1))
    floor = [float(x.rstrip("f")) for x in arr("langid_floor")]
    hashes = [int(x.rstrip("u")) for x in arr("langid_hash")]
    start = [int(x) for x in arr("langid_start")]
    vals = [int(x) for x in arr("langid_vals")]
    qstep = int(re.search(r"langid_qstep = (\d+)", src).group(1))
    index = {h: i for i, h in enumerate(hashes)}
    return codes, floor, index, start, vals, qstep


def twin(text, tables, temper=1.5):
    """The best (code, confidence) as docs/LANGID.md describes the scorer."""
    codes, floor, index, start, vals, qstep = tables
    score = [0.0] * len(codes)
    grams = 0
    for h in train.features(text):
        i = index.get(h)
        if i is None:
            continue
        grams += 1
        for l in range(len(codes)):
            score[l] += floor[l]
        for v in vals[start[i]:start[i + 1]]:
            score[v >> 8] += (v & 0xFF) / qstep
    if not grams:
        return None
    t = temper / math.sqrt(grams)
    best = max(score)
    z = sum(math.exp((s - best) * t) for s in score)
    l = max(range(len(codes)), key=lambda k: (score[k], -k))
    return codes[l], 1.0 / z


def main():
    rows = [l.rstrip("\n").split("\t", 3) for l in
            open(os.path.join(ROOT, "tests", "data", "langid", "test.tsv"), encoding="utf-8")]
    got = detect([r[3] for r in rows])
    expect_eq("one answer per held-out text", len(got), len(rows))
    n, right = collections.Counter(), collections.Counter()
    sure_n = sure_right = 0
    for r, g in zip(rows, got):
        n[r[1]] += 1
        right[r[1]] += g[0] == r[0]
        if float(g[1]) >= 0.5:
            sure_n += 1
            sure_right += g[0] == r[0]
    for band, floor in FLOOR.items():
        acc = right[band] / n[band]
        check(f"held-out {band} chars: {right[band]}/{n[band]} = {acc:.4f} >= {floor}",
              lambda: None if acc >= floor else f"accuracy {acc:.4f}")
    langs = sorted({r[0] for r in rows})
    per = {l: sum(g[0] == r[0] for r, g in zip(rows, got) if r[0] == l) /
           sum(r[0] == l for r in rows) for l in langs}
    worst = min(per, key=per.get)
    check(f"{len(langs)} languages, each right on 85% of its texts at least (worst: {worst} "
          f"{per[worst]:.3f})", lambda: None if len(langs) >= 20 and per[worst] >= 0.85 else
          "too few languages or one too weak")
    check(f"a confidence of 0.5 or more is right 98% of the time ({sure_right}/{sure_n})",
          lambda: None if sure_right >= 0.98 * sure_n else "overconfident")

    # the twin: the same tables, the same best language and confidence
    tables = load_tables()
    sample = rows[::7]
    gs = detect([r[3] for r in sample])
    bad = []
    for r, g in zip(sample, gs):
        tw = twin(r[3], tables)
        if tw is None or tw[0] != g[0] or abs(tw[1] - float(g[1])) > 1e-3:
            bad.append((r[3][:40], g, tw))
    check(f"the scorer's twin agrees on {len(sample)} texts (language, confidence to 1e-3)",
          lambda: None if not bad else f"{len(bad)} differ, first {bad[0]}")

    # undetectable: no guess at all, never one reported as sure
    und = ["", "12345 67890", "!!! ??? ...", "ab", "x1", "   ", "3.14159 + 2 = 5.14"]
    expect_eq("empty, digits, symbols, too short: und", [g[0] for g in detect(und)],
              ["und"] * len(und))
    p = subprocess.run([XLATE, "detect", "--output-format", "jsonl", "12345"], capture_output=True,
                       text=True, timeout=60)
    expect_eq("jsonl of an undetectable text: []", p.stdout, "[]\n")
    p = subprocess.run([XLATE, "detect", "--output-format", "jsonl", "--top", "3",
                        "Das ist ein ganz normaler deutscher Satz."], capture_output=True,
                       text=True, timeout=60)
    a = json.loads(p.stdout)
    check("jsonl as LibreTranslate's /detect: 3 objects, de first, confidence 0-100",
          lambda: None if len(a) == 3 and a[0]["language"] == "de" and
          all(set(x) == {"confidence", "language"} and 0 <= x["confidence"] <= 100 for x in a)
          and a[0]["confidence"] >= a[1]["confidence"] else f"got {a}")

    # restricted to a set: only those answer, confidences sum to at most 1
    g = detect(["Le chat est sur la table de la cuisine."], "--langs", "de,en", "--top", "5")[0]
    codes = g[0::2]
    check("--langs de,en on French: only de and en answer, confidences sum to 1",
          lambda: None if set(codes) <= {"de", "en"} and
          abs(sum(float(x) for x in g[1::2]) - 1) < 1e-3 else f"got {g}")
    g = detect(["Isto é uma frase escrita em português do Brasil.",
                "Dies ist ein Satz, der auf Deutsch geschrieben wurde.",
                "這是一個用繁體中文寫的句子，我們用它來測試。"],
               "--langs", "pt_BR,deu_Latn,zh-TW,fr")
    expect_eq("codes as callers write them (pt_BR, deu_Latn, zh-TW) answer as pt, de, zt",
              [x[0] for x in g], ["pt", "de", "zt"])
    p = subprocess.run([XLATE, "detect", "--langs", "xx,yy", "hello"], capture_output=True,
                       text=True, timeout=60)
    check("--langs with a code the detector does not know: exit 1 naming it",
          lambda: None if p.returncode == 1 and "'xx'" in p.stderr else
          f"exit {p.returncode}: {p.stderr!r}")
    # bytes that are not UTF-8 read as spaces, never a crash
    p = subprocess.run([XLATE, "detect", "-i", "-"],
                       input=b"\xff\xfe Guten Tag, wie geht es Ihnen heute? \xc3\n\xe2\x82\n",
                       capture_output=True, timeout=60)
    check("invalid UTF-8: answered, a line each", lambda: None if p.returncode == 0 and
          p.stdout.decode().splitlines()[0].startswith("de\t") and
          len(p.stdout.splitlines()) == 2 else f"exit {p.returncode}: {p.stdout!r}")
    p = subprocess.run([XLATE, "detect", "--list"], capture_output=True, text=True, timeout=60)
    expect_eq("--list: the languages of the held-out set", sorted(p.stdout.split()), langs)
    return done()


if __name__ == "__main__":
    sys.exit(main())
