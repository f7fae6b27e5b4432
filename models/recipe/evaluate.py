#!/usr/bin/python3
"""Compare xlate models on held-out sets: BLEU and chrF (tools/bleu.py, tools/chrf.py:
sacreBLEU's defaults), one table, and side-by-side outputs for a file of sentences.

    models/recipe/evaluate.py --model caption=models/en-de --model docs=models/en-de-docs \\
        --set docs=CORPUS/test_docs --set messages=CORPUS/test_messages \\
        --set multi30k=../shared/data/multi30k/test_2016_flickr \\
        [--show models/recipe/prose20.en] [--xlate ./xlate] [--work DIR]

A set NAME=STEM reads STEM.en (sources) and STEM.de (references). Each model translates each
set once, as a user would run it (`xlate -m DIR -i STEM.en -o OUT`, greedy, line mode); the
outputs are kept in --work so the figures can be rechecked. Prints a Markdown table.
"""
import argparse
import os
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
import bleu  # noqa: E402
import chrf  # noqa: E402


def lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def translate(xlate, model, src, out):
    t = time.time()
    r = subprocess.run([xlate, "-m", model, "-i", src, "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"evaluate.py: {xlate} -m {model} -i {src} failed ({r.returncode}): {r.stderr.strip()}")
    return time.time() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", action="append", required=True, help="NAME=MODEL_DIR")
    ap.add_argument("--set", action="append", default=[], help="NAME=STEM (STEM.en, STEM.de)")
    ap.add_argument("--show", help="a file of English sentences to show every model's output of")
    ap.add_argument("--xlate", default=os.path.join(TOP, "xlate"))
    ap.add_argument("--work", default="eval-out")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    models = [m.split("=", 1) for m in a.model]
    sets = [s.split("=", 1) for s in a.set]
    rows = []
    for sname, stem in sets:
        refs = lines(stem + ".de")
        n = len(lines(stem + ".en"))
        row = [f"{sname} ({n} lines)"]
        for mname, mdir in models:
            out = os.path.join(a.work, f"{sname}.{mname}.de")
            secs = translate(a.xlate, mdir, stem + ".en", out)
            hyps = lines(out)
            if len(hyps) != n:
                sys.exit(f"evaluate.py: {out}: {len(hyps)} lines for {n} sources")
            b = bleu.corpus_bleu(hyps, [refs])
            c = chrf.corpus_chrf(hyps, [refs])
            row.append(f"{b.score:.1f} / {c.score:.1f}")
            print(f"# {sname} {mname}: BLEU {b.score:.2f} chrF {c.score:.2f} ({secs:.1f} s)",
                  file=sys.stderr, flush=True)
        rows.append(row)
    print("| set | " + " | ".join(f"{m} BLEU / chrF" for m, _ in models) + " |")
    print("|---|" + "---:|" * len(models))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    if a.show:
        outs = []
        for mname, mdir in models:
            out = os.path.join(a.work, f"show.{mname}.de")
            translate(a.xlate, mdir, a.show, out)
            outs.append(lines(out))
        print()
        for i, src in enumerate(lines(a.show)):
            print(f"{i + 1}. {src}")
            for (mname, _), o in zip(models, outs):
                print(f"   - {mname}: {o[i]}")


if __name__ == "__main__":
    main()
