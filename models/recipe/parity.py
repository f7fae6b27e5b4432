#!/usr/bin/python3
"""xlate's greedy output against PyTorch's on a model directory and held-out sentences.

    models/recipe/parity.py MODEL_DIR SOURCES.en [--lines N] [--xlate ./xlate]

Each line is encoded by the `sentencepiece` library with MODEL_DIR/spm.model; xlate decodes the
ids (--input-format ids --output-format ids, greedy); PyTorch decodes the same ids with
tools/torch_model.py's reference math (float32) from the same safetensors, with xlate's default
length limit (3 * (source tokens + 1) + 10 generated tokens, eos counted). A line passes when
the ids are equal, or when it is a near-tie: teacher-forced along xlate's path, the reference's
own best logit beats xlate's token by less than near_tie.TOL at every step (tests/py/near_tie.py
says why 1e-4). Prints ok/not ok lines and the counts.
"""
import argparse
import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.join(TOP, "tests", "py"))
import sentencepiece as spm  # noqa: E402
import torch  # noqa: E402
import torch_model  # noqa: E402
from near_tie import TOL  # noqa: E402

EOS = torch_model.EOS


def path_margins(model, src, ids):
    """The reference's best logit minus the logit of xlate's token at each step of xlate's
    path (ids then eos, teacher-forced), and whether every step's margin is below TOL."""
    s = torch.tensor([list(src) + [EOS]])
    tgt = torch.tensor([[torch_model.BOS] + list(ids)])
    with torch.no_grad():
        lg = torch_model.teacher_forced_logits(model, s, torch.zeros_like(s, dtype=torch.bool), tgt)[0]
    path = list(ids) + [EOS]
    return [float(lg[i].max() - lg[i, t]) for i, t in enumerate(path[: lg.shape[0]])]


def check(model_dir, src, xlate, threads=2):
    """xlate against PyTorch on the sentences src (a list of str). Returns (identical,
    near-ties, differences): the counts and a list of (line number, message)."""
    sp = spm.SentencePieceProcessor(model_file=os.path.join(model_dir, "spm.model"))
    ids = sp.encode(src)
    r = subprocess.run([xlate, "-m", model_dir, "--input-format", "ids", "--output-format", "ids"],
                       input="".join(" ".join(map(str, x)) + "\n" for x in ids),
                       capture_output=True, text=True)
    if r.returncode:
        return 0, 0, [(0, f"xlate failed ({r.returncode}): {r.stderr.strip()}")]
    got = [[int(t) for t in line.split()] for line in r.stdout.split("\n")[:-1]]
    if len(got) != len(ids):
        return 0, 0, [(0, f"{len(got)} lines from xlate for {len(ids)}")]
    model = torch_model.from_model_dir(model_dir)
    torch.set_num_threads(threads)
    same = ties = 0
    bad = []
    for i, (s, g) in enumerate(zip(ids, got)):
        want, _, _ = torch_model.greedy(model, s, 3 * (len(s) + 1) + 10)
        if want == g:
            same += 1
            continue
        m = path_margins(model, s, g)
        if max(m) < TOL:
            ties += 1
            print(f"# line {i + 1}: near-tie, largest margin on xlate's path {max(m):.2e}")
        else:
            bad.append((i + 1, f"xlate {g[:20]} PyTorch {want[:20]} (margin {max(m):.3g} at "
                               f"step {m.index(max(m))})"))
    return same, ties, bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("sources")
    ap.add_argument("--lines", type=int, default=300)
    ap.add_argument("--xlate", default=os.path.join(TOP, "xlate"))
    a = ap.parse_args()
    with open(a.sources, encoding="utf-8") as f:
        src = f.read().split("\n")[:-1][: a.lines]
    same, ties, bad = check(a.model, src, a.xlate)
    for n, why in bad:
        print(f"not ok - line {n}: {why}")
    print(f"{'ok' if not bad else 'not ok'} - {a.sources}: {same}/{len(src)} identical, "
          f"{ties} near-ties (< {TOL:g}), {len(bad)} different")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
