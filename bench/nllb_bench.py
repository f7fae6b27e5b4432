#!/usr/bin/python3
"""nllb_bench.py — xlate against PyTorch on a random model of nllb-200-distilled-600M's exact
shape (part of `make bench`; see README.md here).

The model is made once by tools/make_m2m100.py into build/nllb-600m-random (never committed;
1.23 GB of disk): d_model 1024, 12 + 12 layers, 16 heads, ffn 4096, vocabulary 256,206, relu,
f16 weights in pytorch_model.bin (615M parameters), the hub's layout. When it cannot be made
(no PyTorch, too little disk or memory) the bench says why on stderr and exits 0: skipped.

Random weights stop anywhere, so both programs decode exactly --length + 1 steps, eng_Latn ->
deu_Latn (xlate: --min-length L --max-length L, greedy: the forced language token is not
counted, so L + 1 steps with the eos; PyTorch: tools/m2m100_reference.greedy_fixed for L + 1
steps, the target language forced first, eos banned then forced at the last step, with a KV
cache), and their ids are compared. Reported per program, same
threads, same run: load time, peak RSS (/usr/bin/time; PyTorch's ru_maxrss), decoder steps
(tokens, eos included) per second at batch 1 and at batch --sentences, and the lines whose ids
equal PyTorch's. xlate runs with --compute-type f16 (the file's weights as they are, f32
arithmetic: f32 compute gives the same bits, model.c pack_as) and int8; PyTorch in f32, what it
runs on a CPU (torch.load's f16 tensors converted, as tools/m2m100_reference.py reads them).

    /usr/bin/python3 bench/nllb_bench.py [--sentences 4] [--length 12] [--threads 2]

About 5 minutes on a busy 2-core machine, most of it PyTorch at batch 1 (Debian's torch 1.13,
no MKL: 2-3 s a decoder step here).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "bench"))
import greedy_peer as G  # noqa: E402
PY = G.PY
SRC, TGT = "eng_Latn", "deu_Latn"

PEER = G.peer_script(r'''
import resource, sys, time
sys.path.insert(0, sys.argv[1])
import torch
import m2m100_reference as R
torch.set_num_threads(int(sys.argv[3]))
t0 = time.perf_counter()
# the state dict as transformers holds it: one f32 tensor for the tied embeddings (the .bin's
# four names of one storage), not a copy per name as the oracle's read_weights makes them
sd, one = torch.load(sys.argv[2] + "/pytorch_model.bin"), {}
w = {k: one.setdefault((v.data_ptr(), v.shape, v.stride()), v.float()) for k, v in sd.items()}
del sd
m = R.M2M100(sys.argv[2], weights=w)
tok = R.Tokenizer(sys.argv[2])
load = time.perf_counter() - t0
srcs = []
for line in open(sys.argv[4], encoding="utf-8").read().split("\n")[:-1]:
    ids, suffix = tok.encode(line, sys.argv[8])
    srcs.append(ids + [tok.eos] + suffix)
''', "R.greedy_fixed(m, srcs[i:i + B], L + 1, tok.codes[sys.argv[9]])")


def run_xlate(a, d, src, B, out, ct):
    return G.run_xlate([os.path.join(TOP, "xlate"), "-v", "-q", "-m", d, "--threads",
                        str(a.threads), "--batch-size", str(B), "--beam-size", "1",
                        "--source-lang", SRC, "--target-lang", TGT, "--compute-type", ct,
                        "--min-length", str(a.length), "--max-length", str(a.length),
                        "--output-format", "ids", "-i", src, "-o", out])[:3]


def run_torch(a, d, src, B, out):
    return G.run_peer(PEER, TOP, d, a.threads, src, B, a.length, out, SRC, TGT)


def why_not(d):
    """Why the model cannot be made here (None: it can)."""
    try:
        subprocess.run([PY, "-c", "import torch, sentencepiece"], check=True,
                       capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        return "no PyTorch or sentencepiece for /usr/bin/python3"
    parent = os.path.dirname(os.path.abspath(d))
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as e:
        return f"cannot make {parent}: {e.strerror}"
    if shutil.disk_usage(parent).free < (3 << 30):
        return f"less than 3 GB free under {parent} (the model takes 1.23 GB)"
    avail = 0
    for line in open("/proc/meminfo"):
        if line.startswith("MemAvailable:"):
            avail = int(line.split()[1]) << 10
    if avail < (6 << 30):
        return f"{avail >> 20} MB of memory available, 6 GB needed (PyTorch holds 2.5 GB of f32 " \
               "weights, making the model more)"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", default=os.path.join(TOP, "build", "nllb-600m-random"))
    ap.add_argument("--sentences", type=int, default=4)
    ap.add_argument("--length", type=int, default=12, help="decoder steps per sentence")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--compute-types", default="f16,int8")
    a = ap.parse_args()
    d = a.dir
    if not os.path.exists(os.path.join(d, "config.json")):
        why = why_not(d)
        if why:
            print(f"nllb_bench: skipped: {why}", file=sys.stderr)
            return 0
        print(f"nllb_bench: making {d} (tools/make_m2m100.py, about a minute)", file=sys.stderr)
        try:
            subprocess.run([PY, os.path.join(TOP, "tools", "make_m2m100.py"), d, "--d", "1024",
                            "--layers", "12", "--heads", "16", "--ffn", "4096", "--vocab-size",
                            "256206", "--spm-vocab", "4000", "--dtype", "f16", "--format", "bin",
                            "--no-center"], check=True)
        except subprocess.CalledProcessError as e:
            shutil.rmtree(d, ignore_errors=True)
            print(f"nllb_bench: skipped: tools/make_m2m100.py failed ({e})", file=sys.stderr)
            return 0
    size = os.path.getsize(os.path.join(d, "pytorch_model.bin"))
    lines = open(os.path.join(TOP, "tests", "data", "multi30k", "test_2016_flickr.en"),
                 encoding="utf-8").read().split("\n")[: a.sentences]
    tmp = tempfile.mkdtemp(prefix="nllb_bench_")
    src = os.path.join(tmp, "src.en")
    with open(src, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    cts = a.compute_types.split(",")
    la0 = G.loadavg()
    rows = []
    for B in sorted({1, a.sentences}):
        print(f"nllb_bench: batch {B}", file=sys.stderr)
        t = run_torch(a, d, src, B, os.path.join(tmp, f"t{B}.ids"))
        ref = open(os.path.join(tmp, f"t{B}.ids")).read().split("\n")
        for ct in cts:
            out = os.path.join(tmp, f"x{B}{ct}.ids")
            x = run_xlate(a, d, src, B, out, ct)
            same = sum(p == q for p, q in zip(open(out).read().split("\n")[:-1], ref))
            rows.append((B, f"xlate {ct}", x, same))
        rows.append((B, "PyTorch f32", t, len(lines)))
    shutil.rmtree(tmp, ignore_errors=True)
    steps = len(lines) * (a.length + 1)
    print(f"## nllb-200-distilled-600M-shaped random model ({d})\n")
    print(f"d 1024, 12 + 12 layers, 16 heads, ffn 4096, vocabulary 256,206, f16 "
          f"pytorch_model.bin of {size / 1e6:.0f} MB; {len(lines)} sentences x "
          f"{a.length + 1} decoder steps (eos included), {SRC} -> {TGT}, greedy, "
          f"{a.threads} threads, one run each; load "
          f"average {la0} before, {G.loadavg()} after (2 cores shared). Same ids: lines equal "
          f"to PyTorch's.\n")
    print("| batch | program | load s | peak RSS MiB | peak RSS / file | tokens/s | "
          "vs PyTorch | same ids |")
    print("|---|---|---|---|---|---|---|---|")
    for B, name, r, same in rows:
        t = next(q[2] for q in rows if q[0] == B and q[1].startswith("PyTorch"))
        # xlate -v prints milliseconds: a tiny --dir model can translate in "0.000 s", which
        # is no rate (below the clock's resolution), not a division by zero
        rate = f"{steps / r[1]:.1f}" if r[1] > 0 else "- (under 1 ms)"
        ratio = f"{t[1] / r[1]:.2f}x" if r[1] > 0 else "-"
        print(f"| {B} | {name} | {r[0]:.2f} | {r[2] / 1024:.0f} | {r[2] * 1024 / size:.2f} | "
              f"{rate} | {ratio} | {same}/{len(lines)} |")
    return 0 if all(same == len(lines) for B, name, r, same in rows if name == "xlate f16") \
        else 1


if __name__ == "__main__":
    sys.exit(main())
