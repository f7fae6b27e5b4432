#!/usr/bin/env python3
"""bench/langid_bench.py — detection's cost per text against translation's (issue 48).

    python3 bench/langid_bench.py [--xlate build/xlate] [--repeat 20] [--lines 200]

Detection: `xlate detect` over tests/data/langid/test.tsv's texts (39 languages, the three length
bands) repeated --repeat times, the CPU time of one run over one text (the start) taken off,
divided by the texts; per band too. Translation: the first --lines lines of
tests/data/multi30k/test_2016_flickr.en through models/en-de (greedy, --threads 1), its CPU
time less a one-line run's, divided by the lines. Each figure is the best of 3 runs (child CPU
time, user + system: a busy machine does not inflate it as it does wall time).
"""
import argparse
import os
import resource
import subprocess

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu(cmd, inp, env=None):
    best = None
    for _ in range(3):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, input=inp.encode(), stdout=subprocess.DEVNULL, check=True, env=env)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
        best = t if best is None else min(best, t)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--xlate", default=os.path.join(TOP, "build", "xlate"))
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--lines", type=int, default=200)
    a = ap.parse_args()
    rows = [l.rstrip("\n").split("\t", 3) for l in
            open(os.path.join(TOP, "tests", "data", "langid", "test.tsv"), encoding="utf-8")]
    start = cpu([a.xlate, "detect", "-i", "-"], rows[0][3] + "\n")
    print(f"xlate detect: start {start * 1e3:.1f} ms CPU")
    for band in ("20-60", "60-200", "200+", None):
        texts = [r[3] for r in rows if band is None or r[1] == band] * a.repeat
        t = cpu([a.xlate, "detect", "-i", "-"], "".join(x + "\n" for x in texts)) - start
        chars = sum(len(x) for x in texts) / len(texts)
        print(f"detect {band or 'all':>6}: {len(texts)} texts, {chars:.0f} chars on average: "
              f"{t / len(texts) * 1e6:.1f} us a text")
    en = open(os.path.join(TOP, "tests", "data", "multi30k", "test_2016_flickr.en"),
              encoding="utf-8").read().splitlines()[:a.lines]
    env = dict(os.environ, XLATE_MODEL=os.path.join(TOP, "models", "en-de"))
    cmd = [a.xlate, "-q", "--threads", "1"]
    t0 = cpu(cmd, en[0] + "\n", env)
    t = cpu(cmd, "".join(x + "\n" for x in en), env) - t0
    print(f"translate (models/en-de, greedy, 1 thread): {len(en)} lines, "
          f"{sum(map(len, en)) / len(en):.0f} chars on average: {t / len(en) * 1e3:.2f} ms a line")


if __name__ == "__main__":
    main()
