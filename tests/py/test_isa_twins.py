"""test_isa_twins.py — a model's numbers do not depend on the vector path (XLATE_FORCE_ISA):
every compute type that runs on xlate's own kernels (int8, bf16, f16) gives the same bytes of
jsonl output with --scores (ids, text and every token's log-probability as printed) with the
plain-C twins (generic), AVX2 and the CPU's best, greedy and beam search, on models that are
not the default one: random MarianMT models (tools/make_marian.py) with SiLU ("swish", d 64)
and GELU (d 36, FFN 90: K not a multiple of 4 or 16), and the default model (ReLU) at beam 5.

Greedy without scores takes its argmax through the int8 screen, rescoring its candidates from
the file's rows while the output projection is not packed (issue 24): on a MarianMT and an
NLLB model (f16 file), f32, f16 and bf16, its ids on every path are those of XLATE_SCREEN=0
(every logit computed from the packed projection, the path the PyTorch parity tests check).

The oracle is the invariance itself: the paths are meant to run the same float steps
(src/kernels/gemm.c, src/kernels/simd.c), so any difference is a bug. Before issue 27 the
plain-C twins of the LayerNorm and softmax sums added in another order than the AVX2 code; f32
and f16 hid it (their translations agreed), int8 and bf16 did not (an activation rounded to
int16 or bf16 after the LayerNorm): 2 of 220 greedy lines of an int8 swish model, 21 of a bf16
one, and the log-probabilities of nearly all.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from checks import check, done, ok  # noqa: E402
import oracle_memo as OM  # noqa: E402

XLATE = os.environ.get("XLATE", "./xlate")
EN = "tests/data/multi30k/test_2016_flickr.en"
LEVELS = ["generic", "avx2", None]  # None: the CPU's best (a level it lacks falls back to it)
# Under the sanitizers (make sanitize) the same paths on fewer lines: what that run looks for is
# a bad read or write on each path, not a rounding difference (114 s of CI's sanitizer run)
SAN = os.environ.get("TEST_SANITIZED") == "1"
N_LINES, N_DEFAULT = (8, 4) if SAN else (24, 10)


def run(model, inp, isa, *args):
    env = dict(os.environ)
    env.pop("XLATE_FORCE_ISA", None)
    if isa:
        env["XLATE_FORCE_ISA"] = isa
    p = subprocess.run([XLATE, "-m", model, "-q", "--split", "none", "--output-format", "jsonl",
                        "--scores", "-i", inp, *args], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError(f"{isa or 'best'} {' '.join(args)}: exit {p.returncode}: "
                           f"{p.stderr.decode()[:300]}")
    return p.stdout.decode().splitlines()


def run_ids(model, inp, isa, screen, *args):
    env = dict(os.environ)
    env.pop("XLATE_FORCE_ISA", None)
    env["XLATE_SCREEN"] = screen
    if isa:
        env["XLATE_FORCE_ISA"] = isa
    p = subprocess.run([XLATE, "-m", model, "-q", "--split", "none", "--output-format", "ids",
                        "--beam-size", "1", "-i", inp, *args], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError(f"{isa or 'best'} {' '.join(args)}: exit {p.returncode}: "
                           f"{p.stderr.decode()[:300]}")
    return p.stdout.decode().splitlines()


def screened_as_every_logit(model, inp, *args):
    def fn():
        ref = run_ids(model, inp, None, "0", *args)
        for isa in LEVELS:
            got = run_ids(model, inp, isa, "1", *args)
            bad = [i for i in range(len(ref)) if i >= len(got) or got[i] != ref[i]]
            if len(got) != len(ref) or bad:
                return (f"{isa or 'best'}: {len(got)} lines against {len(ref)}, "
                        f"{len(bad)} differ")
        return None
    return fn


def same_on_every_path(model, inp, *args):
    def fn():
        outs = {isa: run(model, inp, isa, *args) for isa in LEVELS}
        ref = outs["generic"]
        for isa, got in outs.items():
            if len(got) != len(ref):
                return f"{isa or 'best'}: {len(got)} lines, generic {len(ref)}"
            bad = [i for i in range(len(ref)) if got[i] != ref[i]]
            if bad:
                return (f"{isa or 'best'} differs from generic on {len(bad)} of {len(ref)} "
                        f"lines, first line {bad[0] + 1}: {got[bad[0]][:160]} vs "
                        f"{ref[bad[0]][:160]}")
        return None
    return fn


def main():
    if os.environ.get("XLATE_FORCE_ISA") == "generic":
        # CI's second run of the suite (XLATE_FORCE_ISA=generic for every test): each run here
        # sets the variable itself (generic, avx2) or clears it (the CPU's best), so that run
        # would start the default run's processes again, byte for byte (55 s of its CI run)
        ok("the vector paths against each other: skipped under XLATE_FORCE_ISA=generic (each "
           "run here sets or clears it itself: the default run's checks again)")
        return done()
    with open(EN) as f:
        lines = f.read().splitlines()
    with tempfile.TemporaryDirectory() as tmp:
        inp = os.path.join(tmp, "in.txt")
        with open(inp, "w") as f:
            f.write("\n".join(lines[:N_LINES]) + "\n")
        models = [("swish d 64", ["--d", "64", "--ffn", "128", "--act", "swish", "--seed", "3"]),
                  ("gelu d 36, ffn 90", ["--d", "36", "--ffn", "90", "--heads", "4",
                                         "--act", "gelu", "--seed", "4"])]
        for name, opts in models:
            d = os.path.join(tmp, name.split()[0])
            OM.make_model(d, [sys.executable, "tools/make_marian.py", d, *opts])
            for ct in ("int8", "bf16", "f16"):
                for beam in ("1", "4"):
                    check(f"MarianMT {name}, {ct}, beam {beam}: generic, avx2 and the CPU's "
                          f"best give the same jsonl bytes ({N_LINES} lines, --scores)",
                          same_on_every_path(d, inp, "--compute-type", ct, "--beam-size", beam))
        m2m = os.path.join(tmp, "nllb")
        OM.make_model(m2m, [sys.executable, "tools/make_m2m100.py", m2m, "--d", "64", "--layers",
                            "2", "--heads", "4", "--ffn", "128", "--dtype", "f16", "--spm-vocab",
                            "600", "--seed", "5"])
        marian = os.path.join(tmp, models[0][0].split()[0])
        for ct in ("f32", "f16", "bf16"):
            check(f"MarianMT swish, {ct}, greedy through the screen: generic, avx2 and the CPU's "
                  f"best give XLATE_SCREEN=0's ids ({N_LINES} lines)",
                  screened_as_every_logit(marian, inp, "--compute-type", ct))
            check(f"NLLB f16 file, {ct}, greedy through the screen: generic, avx2 and the CPU's "
                  f"best give XLATE_SCREEN=0's ids ({N_LINES} lines)",
                  screened_as_every_logit(m2m, inp, "--compute-type", ct, "--source-lang",
                                          "eng_Latn", "--target-lang", "deu_Latn"))
        inp = os.path.join(tmp, "in10.txt")
        with open(inp, "w") as f:
            f.write("\n".join(lines[:N_DEFAULT]) + "\n")
        for ct in ("int8", "bf16"):
            check(f"default model (ReLU), {ct}, beam 5: generic, avx2 and the CPU's best give "
                  f"the same jsonl bytes ({N_DEFAULT} lines, --scores)",
                  same_on_every_path("models/en-de", inp, "--compute-type", ct,
                                     "--beam-size", "5"))
    return done()


if __name__ == "__main__":
    sys.exit(main())
