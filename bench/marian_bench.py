#!/usr/bin/python3
"""marian_bench.py — xlate against PyTorch on an OPUS-MT-sized random MarianMT model (part of
`make bench`; see README.md here).

The model is made once by tools/make_marian.py into build/opus-mt-random (never committed):
d_model 512, 6 + 6 layers, 8 heads, ffn 2048, vocabulary 58,101, swish, f16 weights (~74M
parameters), the shape of Helsinki-NLP/opus-mt-en-de. Random weights stop anywhere, so both
programs decode exactly --length steps (xlate: --min-length L --max-length L, greedy; PyTorch:
tools/marian_reference.greedy_fixed, eos banned then forced at the last step, with a KV cache),
and their ids must be equal. Reported per program, same threads, same run: load time, peak RSS,
decoder steps (tokens, eos included) per second at batch 1 and batch 32, the ratio; and xlate
with XLATE_SCREEN=0 (every logit computed, no int8 screen), whose ids must be equal too.

Then, unless --no-beam, bench/beam_bench.py: beam search at the same size beside CTranslate2
(its own section of the report, issue 25; CTranslate2 left out with a line saying why when
`import ctranslate2` fails).

    /usr/bin/python3 bench/marian_bench.py [--sentences 128] [--length 32] [--threads 2]
        [--xlate PATH] [--no-beam]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "bench"))
import greedy_peer as G  # noqa: E402
PY = G.PY
PEER = G.peer_script(r'''
import resource, sys, time
sys.path.insert(0, sys.argv[1])
import torch
import marian_reference as R
torch.set_num_threads(int(sys.argv[3]))
t0 = time.perf_counter()
m = R.Marian(sys.argv[2])
tok = R.Tokenizer(sys.argv[2])
load = time.perf_counter() - t0
srcs = [tok.encode(l) for l in open(sys.argv[4], encoding="utf-8").read().split("\n")[:-1]]
''', "R.greedy_fixed(m, srcs[i:i + B], L)")


def run_xlate(a, d, src, B, out, screen=True):
    env = dict(os.environ, XLATE_SCREEN="1" if screen else "0")
    load, tr, rss, err = G.run_xlate(
        [a.xlate, "-v", "-q", "-m", d, "--threads", str(a.threads), "--batch-size", str(B),
         "--beam-size", "1", "--min-length", str(a.length), "--max-length", str(a.length),
         "--output-format", "ids", "-i", src, "-o", out], env)
    m = re.search(r"output projection ([0-9.]+) s", err)
    return load, tr, rss, float(m.group(1)) if m else float("nan")


def run_torch(a, d, src, B, out):
    return G.run_peer(PEER, TOP, d, a.threads, src, B, a.length, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", default=os.path.join(TOP, "build", "opus-mt-random"))
    ap.add_argument("--sentences", type=int, default=128)
    ap.add_argument("--length", type=int, default=32, help="decoder steps per sentence")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=2, help="best of N")
    ap.add_argument("--xlate", default=os.path.join(TOP, "xlate"), help="the xlate binary")
    ap.add_argument("--no-beam", action="store_true", help="leave bench/beam_bench.py out")
    a = ap.parse_args()
    a.xlate = os.path.abspath(a.xlate)
    d = a.dir
    if not os.path.exists(os.path.join(d, "config.json")):
        print(f"marian_bench: making {d} (tools/make_marian.py)", file=sys.stderr)
        subprocess.run([PY, os.path.join(TOP, "tools", "make_marian.py"), d, "--d", "512",
                        "--layers", "6", "--heads", "8", "--ffn", "2048", "--vocab-size",
                        "58101", "--spm-vocab", "8000", "--dtype", "f16", "--no-center",
                        "--max-length", "512"], check=True)
    lines = open(os.path.join(TOP, "tests", "data", "multi30k", "test_2016_flickr.en"),
                 encoding="utf-8").read().split("\n")[: a.sentences]
    tmp = tempfile.mkdtemp(prefix="marian_bench_")
    src = os.path.join(tmp, "src.en")
    with open(src, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    la0 = G.loadavg()
    rows = []
    for B in (1, 32):
        xs, fs, ts = [], [], []
        for _ in range(a.runs):
            xs.append(run_xlate(a, d, src, B, os.path.join(tmp, f"x{B}.ids")))
            fs.append(run_xlate(a, d, src, B, os.path.join(tmp, f"f{B}.ids"), screen=False))
            ts.append(run_torch(a, d, src, B, os.path.join(tmp, f"t{B}.ids")))
        x = min(xs, key=lambda r: r[1])
        f = min(fs, key=lambda r: r[1])
        t = min(ts, key=lambda r: r[1])
        same = sum(p == q == r for p, q, r in zip(open(os.path.join(tmp, f"x{B}.ids")),
                                                  open(os.path.join(tmp, f"f{B}.ids")),
                                                  open(os.path.join(tmp, f"t{B}.ids"))))
        rows.append((B, x, f, t, same))
    steps = len(lines) * a.length
    print(f"## OPUS-MT-sized random model ({d})\n")
    print(f"d 512, 6 + 6 layers, 8 heads, ffn 2048, vocabulary 58,101, swish, f16 weights; "
          f"{len(lines)} sentences x {a.length} decoder steps, greedy, {a.threads} threads, best "
          f"of {a.runs}; load average {la0} before, {G.loadavg()} after (2 cores shared).\n")
    print("xlate's greedy argmax goes through its int8 screen of the output projection "
          "(src/kernels/screen.h); \"full\" is the same run with `XLATE_SCREEN=0`, every logit "
          "computed. Same ids: lines where xlate, xlate full and PyTorch agree. Projection share: "
          "the time in the output projection over the translate time (xlate -v's split).\n")
    print("| batch | xlate load s | PyTorch load s | xlate peak RSS MB | xlate full peak RSS MB | "
          "PyTorch peak RSS MB | xlate tokens/s | xlate full tokens/s | PyTorch tokens/s | "
          "xlate / PyTorch | xlate / xlate full | projection share: full, screened | same ids |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for B, x, f, t, same in rows:
        print(f"| {B} | {x[0]:.2f} | {t[0]:.2f} | {x[2] / 1024:.0f} | {f[2] / 1024:.0f} | "
              f"{t[2] / 1024:.0f} | {steps / x[1]:.0f} | {steps / f[1]:.0f} | {steps / t[1]:.0f} | "
              f"{t[1] / x[1]:.2f}x | {f[1] / x[1]:.2f}x | {100 * f[3] / f[1]:.0f}%, "
              f"{100 * x[3] / x[1]:.0f}% | {same}/{len(lines)} |")
    status = 0 if all(r[4] == len(lines) for r in rows) else 1
    if not a.no_beam:
        print(flush=True)
        status |= subprocess.run([PY, os.path.join(TOP, "bench", "beam_bench.py"), "--xlate",
                                  a.xlate, "--threads", str(a.threads)]).returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
