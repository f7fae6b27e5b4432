#!/usr/bin/python3
"""Which decoder layer's cross-attention aligns best: a cheap, honest proxy on a real model
(no gold word alignments ship with Multi30k).

usage: tools/align_layers.py [--model models/en-de] [--src tests/data/multi30k/test_2016_flickr.en]
                             [--lines N] [--beam K] [--dump build/tests/align_dump]

Translates the lines (greedy by default) with alignments from each decoder layer in turn
(tests/align_dump.c: xlate_translate with alignment_layer = L, averaged over heads) and prints
per layer:
  copy      target tokens whose piece (with a letter or digit) occurs exactly once in the
            target and exactly once in the source (names, numbers, words spelled alike: the
            model shares one SentencePiece vocabulary), and of them the share whose hard
            alignment is that source token;
  digits    the same, restricted to pieces with a digit;
  monotone  the share of adjacent target tokens whose alignments do not go backwards;
  eos mass  the mean attention on the source's eos (which the hard alignment leaves out).
The translations (ids) are the same for every layer: only the alignments change.
"""
import argparse
import json
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=os.path.join(TOP, "models", "en-de"))
    ap.add_argument("--src", default=os.path.join(TOP, "tests", "data", "multi30k",
                                                  "test_2016_flickr.en"))
    ap.add_argument("--lines", type=int, default=0, help="0: all")
    ap.add_argument("--beam", type=int, default=1)
    ap.add_argument("--dump", default=os.path.join(TOP, "build", "tests", "align_dump"))
    a = ap.parse_args(argv)
    import sentencepiece as spm
    with open(os.path.join(a.model, "config.json")) as f:
        cfg = json.load(f)
    sp = spm.SentencePieceProcessor(model_file=os.path.join(a.model, cfg["tokenizer"]))
    with open(a.src, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if a.lines:
        lines = lines[: a.lines]
    srcs = [sp.encode(x) for x in lines]
    text = "".join(" ".join(map(str, s)) + "\n" for s in srcs)
    pieces = [sp.id_to_piece(i) for i in range(sp.get_piece_size())]
    alnum = [any(c.isalnum() for c in p) for p in pieces]
    digit = [any(c.isdigit() for c in p) for p in pieces]
    print(f"{a.model}: {len(lines)} lines of {a.src}, beam {a.beam}, heads averaged")
    print("layer  copy tokens right   digits right   monotone   eos mass")
    for layer in range(cfg["decoder_layers"]):
        out = subprocess.run([a.dump, a.model, str(a.beam), "1", str(layer), "1", "32"],
                             input=text, capture_output=True, text=True, check=True).stdout
        copy = [0, 0]
        dig = [0, 0]
        mono = [0, 0]
        eos = [0.0, 0]
        for src, line in zip(srcs, out.splitlines()):
            h = json.loads(line)["hyps"][0]
            ids, al, att = h["ids"], h["alignment"], h["attention"]
            for t, tok in enumerate(ids):
                if alnum[tok] and ids.count(tok) == 1 and src.count(tok) == 1:
                    right = al[t] == src.index(tok)
                    copy[0] += right
                    copy[1] += 1
                    if digit[tok]:
                        dig[0] += right
                        dig[1] += 1
            for t in range(len(al) - 1):
                mono[0] += al[t + 1] >= al[t]
                mono[1] += 1
            for row in att:
                eos[0] += row[-1]
                eos[1] += 1

        def share(x):
            return f"{x[0]}/{x[1]} {100.0 * x[0] / max(1, x[1]):5.1f}%"
        print(f"{layer:5d}  {share(copy):>17}  {share(dig):>13}  {share(mono):>9}  "
              f"{eos[0] / max(1, eos[1]):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
