#!/usr/bin/python3
"""html_bench.py — what --format html costs (docs/DOCUMENTS.md "HTML"):

1. parsing: html_parse + doc_write (build/tests/html_dump, nothing translated) on 10 MB
   documents, realistic and hostile; seconds, MB/s and peak RSS (/usr/bin/time);
2. translation: tests/data/html/wiki_article.html through `xlate --format html`, documents
   per second, against `xlate` on the same text as plain lines (the overhead of the markup).

    make tests && /usr/bin/python3 bench/html_bench.py [--mb 10] [--runs 3]
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUMP = os.path.join(ROOT, "build", "tests", "html_dump")
XLATE = os.path.join(ROOT, "build", "xlate")
WIKI = os.path.join(ROOT, "tests", "data", "html", "wiki_article.html")


def docs(mb):
    n = mb * 1000 * 1000
    wiki = open(WIKI, "rb").read()
    rng = random.Random(23)
    words = b"a man in a blue shirt is standing on a ladder near two small dogs".split()
    para = b"<p>" + b" ".join((b"<b>%s</b>" % w) if i % 5 == 0 else w
                              for i, w in enumerate(words * (n // 60))) + b"</p>"
    yield "wiki article repeated", wiki * (n // len(wiki))
    yield "one 10 MB paragraph, every 5th word in <b>", para[:n] + b"</p>"
    yield "unclosed <b> (fixed items)", b"<p>x" + b"<b>y " * (n // 5)
    yield "nested <div>", b"<div>" * (n // 10) + b"x" + b"</div>" * (n // 10)
    yield "nested <span> in one unit", b"<p>" + b"<span>x " * (n // 16) + b"</span>" * (n // 16)
    yield "entity flood", b"<p>" + b"&amp;&notin;&#x1F600;&copy" * (n // 25)
    yield "one tag, 1M attributes", b"<p" + b" alt=x" * (n // 6) + b">y</p>"
    yield "comments in a sentence", b"<p>" + b"a <!-- c --> " * (n // 13) + b"</p>"
    yield "unknown tags, stray ends", b"".join(b"<x-%d>t</y-%d>" % (i, i) for i in range(n // 20))
    yield "random bytes", bytes(rng.getrandbits(8) for _ in range(n))


def measure(path):
    t = time.time()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", DUMP, "--count", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    wall = time.time() - t
    rss_kb = int(p.stderr.decode().strip().split("\n")[-1])
    return wall, rss_kb, p.stdout.decode().strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-translate", action="store_true")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="html_bench.")
    print("%-44s %8s %8s %8s  %s" % ("document", "MB", "s", "MB/s", "peak RSS MB; html_dump"))
    for name, data in docs(a.mb):
        path = os.path.join(tmp, "doc.html")
        with open(path, "wb") as f:
            f.write(data)
        best = min((measure(path) for _ in range(a.runs)), key=lambda r: r[0])
        mb = len(data) / 1e6
        print("%-44s %8.1f %8.2f %8.1f  %.0f; %s" % (name, mb, best[0], mb / best[0],
                                                    best[1] / 1024, best[2]), flush=True)
        os.remove(path)
    if a.no_translate:
        return
    # translation: the article as HTML vs its text units as plain lines
    out = subprocess.run([DUMP, "--units", WIKI], stdout=subprocess.PIPE, check=True)
    lines = [l.split("\t", 1)[1] for l in out.stdout.decode().split("\n") if l]
    plain = os.path.join(tmp, "plain.txt")
    with open(plain, "w") as f:
        f.write("\n".join(lines) + "\n")
    def run(args):
        t = time.time()
        subprocess.run(args, stdout=subprocess.DEVNULL, check=True)
        return time.time() - t
    th = min(run([XLATE, "-q", "--threads", "1", "--format", "html", "-i", WIKI])
             for _ in range(a.runs))
    tp = min(run([XLATE, "-q", "--threads", "1", "-i", plain]) for _ in range(a.runs))
    print("wiki_article.html (%d bytes, %d units): --format html %.2f s (%.2f docs/s), its "
          "units as plain lines %.2f s: overhead %+.0f%%" % (os.path.getsize(WIKI), len(lines),
                                                             th, 1 / th, tp, 100 * (th / tp - 1)))


if __name__ == "__main__":
    sys.exit(main())
