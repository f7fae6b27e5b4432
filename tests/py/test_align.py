"""Alignments (xlate_decode_params.alignments): xlate's cross-attention rows and hard alignments
against PyTorch's, through the library (tests/align_dump.c prints what xlate_translate returns).

The oracle: for each hypothesis xlate returns, PyTorch runs the same model teacher-forced on
[bos] + its ids (eos's row included when it finished) and nn.MultiheadAttention itself returns
the chosen decoder layer's cross-attention weights averaged over the heads
(torch_model.cross_attention). PyTorch runs in float64, so the difference is xlate's float32
rounding alone (tests/py/test_beam.py's check_live says why not float32 PyTorch).

Checked, on the 6 random parity models (tests/fixtures/parity: 1 to 3 decoder layers, pre- and
post-norm, f32, f16 and bf16 weights; their src.ids and an empty source) and the default model (models/en-de, 3 decoder layers) on
the 8 shortest of the first 30 lines of test_2016_flickr.en (tests/fixtures/beam/en-de/src.ids),
and four random MarianMT directories made here by tools/make_marian.py (3 decoder layers, tied,
swish; 2 layers, untied with a logits bias, gelu, f16; 2 decoder layers with 8 heads over an
encoder of 2, and 2 over 8), whose oracle is
tools/marian_reference.py's model in float64 (Hugging Face's beam rules in xlate), on the first 8
lines of test_2016_flickr.en through its tokenizer:
  - greedy, and beam 4 with its 4 best, for every decoder layer and the default (-1): every
    hypothesis has n + finished rows of src_len + 1 probabilities, each within TOL of
    PyTorch's; the default is the penultimate layer (the only one of a 1-layer decoder): the
    same bytes as asking for it;
  - alignment[t] is the argmax of the row over the source without its eos, lowest on ties (of
    xlate's own row, exactly), and PyTorch's argmax wherever PyTorch's top two differ by more
    than 2 TOL (closer ones may swap under rounding);
  - the hypotheses (ids, finished, score) are the same bytes with alignments off;
  - the output is the same bytes with 1 sentence a batch or all in one, with 1 or 2 threads
    (the attention rows are batch- and thread-invariant as the ids are);
  - xlate_forced_attention (the decoder teacher-forced on given ids) gives each hypothesis's
    rows, the same bytes, fed [bos] + its ids;
  - alignment_layer outside -1..decoder_layers-1 is refused with a message naming it.

Run by tests/run.sh with env TEST_BUILD (the C tests' folder, holding align_dump).
"""
import json
import os
import subprocess
import sys
import tempfile

import torch

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
import torch_model as tm  # noqa: E402
from checks import check, done  # noqa: E402
import oracle_memo as OM  # noqa: E402

DUMP = os.path.join(TOP, os.environ.get("TEST_BUILD", "build/tests"), "align_dump")
PARITY = os.path.join(TOP, "tests", "fixtures", "parity")
EN_DE = os.path.join(TOP, "models", "en-de")
EN_DE_SRC = os.path.join(TOP, "tests", "fixtures", "beam", "en-de", "src.ids")

# Absolute tolerance on an attention probability. xlate computes in float32 (its attention
# scores and softmax on OpenBLAS sgemv, its projections on its own kernels), PyTorch here in
# float64: a probability p moves by about p times the error of its score, the float32 error of a
# dot product of d_model / heads terms after the layers below it. Measured (AVX-512 machine):
# at most 1.7e-5 on the random models (post_gelu_untied, whose post-norm GELU layers amplify
# rounding, layer 2, beam 4), 3.8e-7 on en-de, 1.3e-5 on the Marian ones; so 1e-4, a margin of ~6x for other CPUs'
# OpenBLAS kernels, still far below the differences between probabilities that decide an
# alignment.
TOL = 1e-4


def dump(model_dir, srcs, beam, layer, threads=1, batch=None):
    """align_dump's jsonl, one result a source."""
    args = [DUMP, model_dir, str(beam), str(beam), str(layer), str(threads),
            str(batch or max(1, len(srcs)))]
    p = subprocess.run(args, input="".join(" ".join(map(str, s)) + "\n" for s in srcs),
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(args[1:])}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def read_ids(path):
    with open(path) as f:
        return [[int(x) for x in line.split()] for line in f]


def models():
    """(name, model dir, sources, decoder layers)"""
    out = []
    for name in sorted(os.listdir(PARITY)):
        d = os.path.join(PARITY, name)
        if os.path.isfile(os.path.join(d, "config.json")):
            out.append((name, d, read_ids(os.path.join(d, "src.ids")) + [[]]))
    srcs = read_ids(EN_DE_SRC)
    out.append(("en-de", EN_DE, sorted(srcs, key=len)[:8]))
    res = []
    for name, d, srcs in out:
        with open(os.path.join(d, "config.json")) as f:
            res.append((name, d, srcs, json.load(f)["decoder_layers"]))
    return res


def own_argmax(row, src_len):
    if src_len == 0:
        return -1
    best = 0
    for s in range(1, src_len):
        if row[s] > row[best]:
            best = s
    return best


def memo_oracle(name, d, oracle):
    """oracle(src, decoder input, layer) through oracle_memo: PyTorch's float64 attention rows
    for those ids, keyed by them and the model directory's bytes (JSON keeps a float64 exact)."""
    def f(src, tgt, layer):
        return torch.tensor(OM.cached("align oracle " + name, [list(src), list(tgt), layer],
                                      lambda: oracle(src, tgt, layer).tolist(),
                                      OM.dir_files(d)), dtype=torch.float64)
    return f


def compare(oracle, start, src, h, layer, worst):
    """None when hypothesis h (align_dump's) agrees with PyTorch's attention
    oracle(src, decoder input, layer); else why not."""
    n, fin = len(h["ids"]), h["finished"]
    if h["src_len1"] != len(src) + 1:
        return f"src_len1 {h['src_len1']}, source of {len(src)} tokens"
    att = h["attention"]
    if len(att) != n + fin or any(len(r) != len(src) + 1 for r in att):
        return f"attention has {len(att)} rows (ids {n}, finished {fin})"
    ref = oracle(src, ([start] + h["ids"])[: n + fin], layer)
    got = torch.tensor(att, dtype=torch.float64)
    diff = float((ref - got).abs().max())
    worst[0] = max(worst[0], diff)
    if diff > TOL:
        t, s = divmod(int((ref - got).abs().argmax()), len(src) + 1)
        return f"row {t}, source {s}: {float(got[t, s])} vs PyTorch {float(ref[t, s])}"
    if len(h["alignment"]) != n:
        return f"{len(h['alignment'])} alignments for {n} tokens"
    for t in range(n):
        a = h["alignment"][t]
        if a != own_argmax(att[t], len(src)):
            return f"token {t}: alignment {a}, its row's argmax {own_argmax(att[t], len(src))}"
        if len(src) >= 2:
            top = torch.topk(ref[t, : len(src)], 2)
            if float(top.values[0] - top.values[1]) > 2 * TOL and a != int(top.indices[0]):
                return f"token {t}: alignment {a}, PyTorch's argmax {int(top.indices[0])}"
    return None


def check_model(name, d, srcs, layers, oracle, start):
    oracle = memo_oracle(name, d, oracle)
    default = layers - 2 if layers >= 2 else 0
    for beam in (1, 4):
        kind = "greedy" if beam == 1 else "beam 4, 4 best"
        outs = {}
        for layer in [-1] + list(range(layers)):
            worst = [0.0]

            def run():
                outs[layer] = dump(d, srcs, beam, layer)
                res = [json.loads(x) for x in outs[layer].splitlines()]
                if len(res) != len(srcs):
                    return f"{len(res)} results for {len(srcs)} sources"
                for i, (src, r) in enumerate(zip(srcs, res)):
                    for k, h in enumerate(r["hyps"]):
                        why = compare(oracle, start, src, h, default if layer < 0 else layer,
                                      worst)
                        if why:
                            return f"source {i + 1}, hypothesis {k + 1}: {why}"
                print(f"# {name} {kind} layer {layer}: max |xlate - PyTorch| {worst[0]:.3g}")
                return None
            check(f"{name}, {kind}, alignment_layer {layer}: attention rows within {TOL} of "
                  f"PyTorch's (float64), alignment = argmax", run)
        def forced():
            for layer in (-1, 0):
                res = [json.loads(x) for x in outs[layer].splitlines()]
                pairs, want = [], []
                for src, r in zip(srcs, res):
                    for h in r["hyps"]:
                        tin = ([start] + h["ids"])[: len(h["ids"]) + h["finished"]]
                        pairs.append(" ".join(map(str, src)) + " | " + " ".join(map(str, tin)))
                        want.append(h["attention"])
                p = subprocess.run([DUMP, d, "forced", str(layer), "1"],
                                   input="".join(x + "\n" for x in pairs), capture_output=True,
                                   text=True)
                if p.returncode != 0:
                    return f"forced, layer {layer}: exit {p.returncode}: {p.stderr.strip()}"
                got = [json.loads(x)["attention"] for x in p.stdout.splitlines()]
                for k, (g, w) in enumerate(zip(got, want)):
                    if g != w:
                        return f"layer {layer}, {pairs[k]}: the rows differ"
                if len(got) != len(want):
                    return f"{len(got)} results for {len(want)} pairs"
            return None
        check(f"{name}, {kind}: xlate_forced_attention on the hypotheses gives their rows "
              f"(the same bytes), default layer and layer 0", forced)
        check(f"{name}, {kind}: the default layer is the penultimate ({default})",
              lambda: None if outs.get(-1) == outs.get(default) else "the outputs differ")

        def same_ids():
            off = [json.loads(x) for x in dump(d, srcs, beam, "off").splitlines()]
            on = [json.loads(x) for x in outs[-1].splitlines()]
            for i, (a, b) in enumerate(zip(off, on)):
                ka = [(h["ids"], h["finished"], h["score"]) for h in a["hyps"]]
                kb = [(h["ids"], h["finished"], h["score"]) for h in b["hyps"]]
                if ka != kb:
                    return f"source {i + 1}: {ka} without alignments, {kb} with"
            return None if len(off) == len(on) else "result counts differ"
        check(f"{name}, {kind}: the same hypotheses and scores without alignments", same_ids)
        check(f"{name}, {kind}: the same bytes with 1 sentence a batch and 2 threads",
              lambda: None if dump(d, srcs, beam, -1, threads=2, batch=1) == outs[-1]
              else "the outputs differ")


def check_refused():
    d = os.path.join(PARITY, "pre_relu_tied")  # 2 decoder layers
    for layer, form in ((2, "xlate_translate"), (-2, "xlate_translate"),
                        (2, "xlate_forced_attention")):
        def run():
            if form == "xlate_translate":
                args, inp = [DUMP, d, "1", "1", str(layer), "1", "1"], "5 6\n"
            else:
                args, inp = [DUMP, d, "forced", str(layer), "1"], "5 6 | 2 7\n"
            p = subprocess.run(args, input=inp, capture_output=True, text=True)
            if p.returncode == 0:
                return "accepted"
            if "alignment_layer" not in p.stderr:
                return f"message without the field's name: {p.stderr.strip()}"
            return None
        check(f"{form}: alignment_layer {layer} refused for a 2-layer decoder, naming the field",
              run)


def marian_models(tmp):
    """(name, dir, sources, decoder layers, oracle, start) of random MarianMT directories
    (tools/make_marian.py, as tests/py/test_marian.py makes them), the oracle
    tools/marian_reference.py's model in float64."""
    import marian_reference as R
    with open(os.path.join(TOP, "tests", "data", "multi30k", "test_2016_flickr.en"),
              encoding="utf-8") as f:
        lines = f.read().splitlines()[:8]
    out = []
    for name, args in (("marian-tied", ["--layers", "3"]),
                       ("marian-untied-f16", ["--untied", "--bias", "--act", "gelu", "--dtype",
                                              "f16", "--seed", "2"]),
                       # the decoder's heads other than the encoder's, both ways: the captured
                       # heads are the decoder's (more of them overran the buffer made for the
                       # encoder's, fewer were averaged at the encoder's stride)
                       ("marian-dec-heads-8", ["--layers", "1", "--dec-layers", "2", "--heads",
                                               "2", "--dec-heads", "8", "--seed", "5"]),
                       ("marian-dec-heads-2", ["--layers", "1", "--dec-layers", "2", "--heads",
                                               "8", "--dec-heads", "2", "--seed", "6"])):
        d = os.path.join(tmp, name)
        OM.make_model(d, [sys.executable, os.path.join(TOP, "tools", "make_marian.py"), d] +
                      args)
        m = R.Marian(d)
        m.w = {k: v.double() for k, v in m.w.items()}
        for a in ("src_emb", "tgt_emb", "lm_head", "bias", "pos"):
            setattr(m, a, getattr(m, a).double())
        tok = R.Tokenizer(d)
        out.append((name, d, [tok.encode(x) for x in lines] + [[]], m.dec_layers,
                    m.cross_attention, m.start))
    return out


def main():
    torch.set_num_threads(1)
    for name, d, srcs, layers in models():
        model = tm.from_model_dir(d).double()
        check_model(name, d, srcs, layers,
                    lambda s, t, l, model=model: tm.cross_attention(model, s, t, l), tm.BOS)
    with tempfile.TemporaryDirectory() as tmp:
        for args in marian_models(tmp):
            check_model(*args)
    check_refused()
    return done()


if __name__ == "__main__":
    sys.exit(main())
