#!/usr/bin/env python3
"""The accuracy table of docs/LANGID.md: xlate's detector and CLD2 on the same held-out texts.

    tools/langid/evaluate.py TEST.tsv --xlate build/xlate --cld2 cld2.out [--markdown]

TEST.tsv: tools/langid/build.py's test.tsv (lang, band, package, text); cld2.out: what
tools/langid/cld2_eval.cc printed for it (CLD2's first answer, is_reliable, ...). xlate runs
`xlate detect` over every language it knows. A text is right when the first answer is its
catalog's language; CLD2's "un" (unknown) is wrong; its
is_reliable flag is counted apart (CLD2 answers "en" for what it cannot tell). Prints per band, then per language and band.
"""
import argparse
import collections
import subprocess

BANDS = ("20-60", "60-200", "200+")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("test")
    ap.add_argument("--xlate", default="build/xlate")
    ap.add_argument("--cld2", required=True)
    a = ap.parse_args()
    rows = [l.rstrip("\n").split("\t", 3) for l in open(a.test, encoding="utf-8")]
    out = subprocess.run([a.xlate, "detect", "-i", "-"], input="".join(r[3] + "\n" for r in rows),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    cld = [l.rstrip("\n").split("\t") for l in open(a.cld2)]
    assert len(out) == len(cld) == len(rows)
    n, x, c, cu = (collections.Counter() for _ in range(4))
    for r, o, k in zip(rows, out, cld):
        key = (r[0], r[1])
        n[key] += 1
        n[r[1]] += 1
        x[key] += o.split("\t")[0] == r[0]
        x[r[1]] += o.split("\t")[0] == r[0]
        c[key] += k[0] == r[0]
        c[r[1]] += k[0] == r[0]
        cu[r[1]] += k[1] == "0"
    print("| band (code points) | texts | xlate | CLD2 | CLD2 not reliable |")
    print("|---|---:|---:|---:|---:|")
    for b in BANDS:
        print(f"| {b} | {n[b]} | {100 * x[b] / n[b]:.1f}% | {100 * c[b] / n[b]:.1f}% | "
              f"{100 * cu[b] / n[b]:.1f}% |")
    print()
    print("| language | " + " | ".join(f"{b} xlate | {b} CLD2" for b in BANDS) + " |")
    print("|---|" + "---:|" * (2 * len(BANDS)))
    for lang in sorted({r[0] for r in rows}):
        cells = []
        for b in BANDS:
            k = (lang, b)
            cells += [f"{100 * x[k] / n[k]:.1f}" if n[k] else "-",
                      f"{100 * c[k] / n[k]:.1f}" if n[k] else "-"]
        print(f"| {lang} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
