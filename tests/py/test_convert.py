"""tools/convert.py: every tensor lands under its docs/FORMAT.md name with the PyTorch value,
config.json says what the checkpoint is, bad checkpoints fail naming what is wrong; and the
committed parity fixtures mean what FORMAT.md says (an independent numpy forward pass over the
model directory reproduces PyTorch's numbers).

Run with Debian's /usr/bin/python3 (torch). Prints "ok - what" / "not ok - what: why".
The expected tensor names and the numpy model below are written from docs/FORMAT.md and
docs/FORMAT.md's PyTorch layout, not taken from tools/convert.py.
"""
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np
import torch

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(TOP, "tools")
sys.path.insert(0, TOOLS)
import convert  # noqa: E402
import reference  # noqa: E402
import torch_model as tm  # noqa: E402

FIXTURES = os.path.join(TOP, "tests", "fixtures", "parity")
SPM = os.path.join(TOP, "models", "en-de", "spm.model")
from checks import check, done, ok, not_ok  # noqa: E402,F401


# ---------------------------------------------------------------- an independent reader

SIZES = {"F32": 4, "F16": 2, "BF16": 2, "I32": 4, "I64": 8, "I8": 1}


def read_st(path):
    """(metadata, {name: (dtype, float64-or-int ndarray)}) with the format's invariants checked."""
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    assert n % 8 == 0, f"header length {n} not a multiple of 8"
    assert 8 + n <= len(raw), "header runs past the file"
    hdr = json.loads(raw[8: 8 + n].decode("utf-8"))
    data = raw[8 + n:]
    meta = hdr.pop("__metadata__", {})
    spans = []
    out = {}
    for name, e in hdr.items():
        assert set(e) == {"dtype", "shape", "data_offsets"}, f"{name}: keys {sorted(e)}"
        b, en = e["data_offsets"]
        count = int(np.prod(e["shape"])) if e["shape"] else 1
        assert en - b == count * SIZES[e["dtype"]], f"{name}: {en - b} bytes for {e}"
        spans.append((b, en))
        buf = data[b:en]
        if e["dtype"] == "F32":
            a = np.frombuffer(buf, "<f4").astype(np.float64)
        elif e["dtype"] == "F16":
            a = np.frombuffer(buf, "<f2").astype(np.float64)
        elif e["dtype"] == "BF16":
            a = (np.frombuffer(buf, "<u2").astype(np.uint32) << 16).view("<f4").astype(np.float64)
        elif e["dtype"] == "I32":
            a = np.frombuffer(buf, "<i4").astype(np.int64)
        elif e["dtype"] == "I8":
            a = np.frombuffer(buf, "<i1").astype(np.int64)
        else:
            a = np.frombuffer(buf, "<i8").astype(np.int64)
        out[name] = (e["dtype"], a.reshape(e["shape"]))
    spans.sort()
    pos = 0
    for b, en in spans:
        assert b == pos, f"data not contiguous at {b} (expected {pos})"
        pos = en
    assert pos == len(data), f"{len(data) - pos} stray bytes after the tensors"
    return meta, out


# ---------------------------------------------------------------- expectations from the docs

def expected_tensors(sd, a):
    """FORMAT.md name -> torch tensor, from the checkpoint layout."""
    d = a["d"]
    e = {}

    def mha(pre, ck):
        w, b = sd[ck + ".in_proj_weight"], sd[ck + ".in_proj_bias"]
        for i, n in enumerate(("q", "k", "v")):
            e[f"{pre}.{n}.weight"] = w[i * d:(i + 1) * d]
            e[f"{pre}.{n}.bias"] = b[i * d:(i + 1) * d]
        e[pre + ".o.weight"] = sd[ck + ".out_proj.weight"]
        e[pre + ".o.bias"] = sd[ck + ".out_proj.bias"]

    def norm(pre, ck):
        e[pre + ".weight"], e[pre + ".bias"] = sd[ck + ".weight"], sd[ck + ".bias"]

    def ffn(pre, ck):
        e[pre + ".fc1.weight"], e[pre + ".fc1.bias"] = sd[ck + ".linear1.weight"], sd[ck + ".linear1.bias"]
        e[pre + ".fc2.weight"], e[pre + ".fc2.bias"] = sd[ck + ".linear2.weight"], sd[ck + ".linear2.bias"]

    if a["tie"]:
        e["encoder.embed.weight"] = sd["emb.weight"]
    else:
        e["encoder.embed.weight"] = sd["src_emb.weight"]
        e["decoder.embed.weight"] = sd["tgt_emb.weight"]
        e["output.weight"] = sd["generator.weight"]
        e["output.bias"] = sd["generator.bias"]
    for i in range(a["layers"]):
        ck = f"transformer.encoder.layers.{i}"
        mha(f"encoder.layers.{i}.self_attn", ck + ".self_attn")
        norm(f"encoder.layers.{i}.self_attn_norm", ck + ".norm1")
        ffn(f"encoder.layers.{i}.ffn", ck)
        norm(f"encoder.layers.{i}.ffn_norm", ck + ".norm2")
    for i in range(a["dec_layers"]):
        ck = f"transformer.decoder.layers.{i}"
        mha(f"decoder.layers.{i}.self_attn", ck + ".self_attn")
        norm(f"decoder.layers.{i}.self_attn_norm", ck + ".norm1")
        mha(f"decoder.layers.{i}.cross_attn", ck + ".multihead_attn")
        norm(f"decoder.layers.{i}.cross_attn_norm", ck + ".norm2")
        ffn(f"decoder.layers.{i}.ffn", ck)
        norm(f"decoder.layers.{i}.ffn_norm", ck + ".norm3")
    norm("encoder.final_norm", "transformer.encoder.norm")
    norm("decoder.final_norm", "transformer.decoder.norm")
    return e


def expected_config(v):
    a = v["args"]
    return {
        "model_type": "transformer", "d_model": a["d"], "heads": a["heads"], "ffn_dim": a["ff"],
        "encoder_layers": a["layers"], "decoder_layers": a["dec_layers"],
        "src_vocab_size": v["vs"], "tgt_vocab_size": v["vt"], "activation": a["activation"],
        "norm_placement": "pre" if a["norm_first"] else "post",
        "encoder_final_norm": True, "decoder_final_norm": True, "layer_norm_eps": 1e-5,
        "positions": "sinusoidal-interleaved", "max_positions": 512,
        "embedding_scale": math.sqrt(a["d"]), "shared_embeddings": a["tie"],
        "tied_output": a["tie"], "output_bias": not a["tie"],
        "pad_id": 0, "unk_id": 1, "bos_id": 2, "eos_id": 3, "weights": "model.safetensors",
    }


ROUND = {"f32": lambda t: t.float(), "f16": lambda t: t.half().float(),
         "bf16": lambda t: t.bfloat16().float()}
ST_DTYPE = {"f32": "F32", "f16": "F16", "bf16": "BF16"}


def random_checkpoint(v, path, seed):
    """A checkpoint of variant v with every parameter random (LayerNorms and biases too)."""
    torch.manual_seed(seed)
    m = tm.Seq2Seq(v["args"], v["vs"], v["vt"])
    with torch.no_grad():
        for p in m.parameters():
            p.normal_()
    tm.save_checkpoint(path, m, epoch=3)
    return torch.load(path)


def run_convert(args):
    return subprocess.run([sys.executable, os.path.join(TOOLS, "convert.py")] + args,
                          capture_output=True, text=True)


def convert_inprocess(args):
    import contextlib
    import io
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = convert.main(args)
    return rc, err.getvalue()


def check_variant(tmp, v, dtype, via_cli):
    name = f'{v["name"]} {dtype}' + (" (command line)" if via_cli else "")
    ckpt_path = os.path.join(tmp, f'{v["name"]}-{dtype}.pt')
    ckpt = random_checkpoint(v, ckpt_path, zlib.crc32(name.encode()) % 1000)
    out = os.path.join(tmp, f'{v["name"]}-{dtype}')
    args = [ckpt_path, out, "--dtype", dtype]
    if via_cli:
        p = run_convert(args)
        rc, err = p.returncode, p.stderr
    else:
        rc, err = convert_inprocess(args)
    if rc != 0:
        not_ok(f"convert {name}", f"exit {rc}: {err.strip()}")
        return

    def tensors():
        meta, st = read_st(os.path.join(out, "model.safetensors"))
        want_meta = {"format": "xlate", "source": os.path.basename(ckpt_path), "dtype": dtype}
        if meta != want_meta:
            return f"metadata {meta}, expected {want_meta}"
        exp = expected_tensors(ckpt["model"], tm.normalize_args(ckpt["args"]))
        if set(st) != set(exp):
            return f"names differ: extra {sorted(set(st) - set(exp))} missing {sorted(set(exp) - set(st))}"
        for n, t in exp.items():
            dt, arr = st[n]
            if dt != ST_DTYPE[dtype]:
                return f"{n}: dtype {dt}, expected {ST_DTYPE[dtype]}"
            want = ROUND[dtype](t).double().numpy()
            if arr.shape != want.shape:
                return f"{n}: shape {arr.shape}, expected {want.shape}"
            if not np.array_equal(arr, want):
                return f"{n}: values differ (max {np.abs(arr - want).max():.3g})"
        return None

    def config():
        c = json.load(open(os.path.join(out, "config.json")))
        want = expected_config(v)
        if c != want:
            diff = {k: (c.get(k), want.get(k)) for k in set(c) | set(want) if c.get(k) != want.get(k)}
            return f"fields differ (got, expected): {diff}"
        if type(c["embedding_scale"]) is not float:
            return "embedding_scale is not a JSON number with a fraction"
        return None

    check(f"convert {name}: every tensor named and valued as FORMAT.md says", tensors)
    check(f"convert {name}: config.json", config)


def expect_error(what, args, words):
    p = run_convert(args)
    if p.returncode == 0:
        not_ok(what, "exit status 0")
    elif any(w not in p.stderr for w in words):
        not_ok(what, f"stderr {p.stderr.strip()!r} does not name {words}")
    else:
        ok(what)


def check_errors(tmp):
    v = reference.VARIANTS[1]  # untied
    base = os.path.join(tmp, "base.pt")
    ck = random_checkpoint(v, base, 7)
    out = os.path.join(tmp, "err-out")

    bad = {"model": dict(ck["model"]), "args": ck["args"]}
    del bad["model"]["transformer.decoder.layers.0.norm3.bias"]
    torch.save(bad, os.path.join(tmp, "missing.pt"))
    expect_error("a missing tensor is an error naming it",
                 [os.path.join(tmp, "missing.pt"), out],
                 ["transformer.decoder.layers.0.norm3.bias"])

    bad = {"model": dict(ck["model"]), "args": ck["args"]}
    bad["model"]["transformer.encoder.layers.5.norm1.weight"] = torch.zeros(v["args"]["d"])
    torch.save(bad, os.path.join(tmp, "extra.pt"))
    expect_error("a left-over tensor is an error naming it",
                 [os.path.join(tmp, "extra.pt"), out], ["transformer.encoder.layers.5.norm1.weight"])

    bad = {"model": ck["model"], "args": dict(ck["args"], activation="swish")}
    torch.save(bad, os.path.join(tmp, "act.pt"))
    expect_error("an unknown activation is an error naming it",
                 [os.path.join(tmp, "act.pt"), out], ["activation", "swish"])

    bad = {"model": dict(ck["model"]), "args": ck["args"]}
    bad["model"]["transformer.encoder.layers.0.linear1.weight"] = torch.zeros(3, 3)
    torch.save(bad, os.path.join(tmp, "shape.pt"))
    expect_error("a tensor of the wrong shape is an error naming it",
                 [os.path.join(tmp, "shape.pt"), out], ["transformer.encoder.layers.0.linear1.weight"])

    torch.save({"args": ck["args"]}, os.path.join(tmp, "nomodel.pt"))
    expect_error('a checkpoint without "model" is an error',
                 [os.path.join(tmp, "nomodel.pt"), out], ['"model"'])
    torch.save({"model": ck["model"]}, os.path.join(tmp, "noargs.pt"))
    expect_error('a checkpoint without "args" is an error',
                 [os.path.join(tmp, "noargs.pt"), out], ['"args"'])
    expect_error("a missing checkpoint file is an error naming it",
                 [os.path.join(tmp, "nothere.pt"), out], ["nothere.pt"])
    if os.path.exists(out):
        not_ok("failed conversions write nothing", f"{out} exists")
    else:
        ok("failed conversions write nothing")

    # defaults: args without dec_layers / norm_first / activation / tie
    a = {"d": 8, "heads": 2, "ff": 12, "layers": 2}
    m = tm.Seq2Seq(a, 11)
    tm.save_checkpoint(os.path.join(tmp, "defaults.pt"), m, args=a)
    rc, err = convert_inprocess([os.path.join(tmp, "defaults.pt"), os.path.join(tmp, "def"),
                                 "--max-positions", "64"])

    def defaults():
        if rc != 0:
            return err.strip()
        c = json.load(open(os.path.join(tmp, "def", "config.json")))
        got = {k: c[k] for k in ("decoder_layers", "norm_placement", "activation",
                                  "shared_embeddings", "tied_output", "output_bias",
                                  "max_positions")}
        want = {"decoder_layers": 2, "norm_placement": "post", "activation": "relu",
                "shared_embeddings": True, "tied_output": True, "output_bias": False,
                "max_positions": 64}
        return None if got == want else f"{got} != {want}"
    check("args defaults (dec_layers = layers, post-norm, relu, tied), --max-positions", defaults)

    if os.path.exists(SPM):
        rc, err = convert_inprocess([base, os.path.join(tmp, "spm"), "--spm", SPM])

        def spm():
            if rc != 0:
                return err.strip()
            c = json.load(open(os.path.join(tmp, "spm", "config.json")))
            if c.get("tokenizer") != "spm.model":
                return f'tokenizer {c.get("tokenizer")!r}'
            if open(os.path.join(tmp, "spm", "spm.model"), "rb").read() != open(SPM, "rb").read():
                return "spm.model is not a copy"
            if "warning" not in err:
                return "no warning for a tokenizer whose size differs from the vocabularies"
            return None
        check("--spm copies the tokenizer and sets \"tokenizer\" (warns on a size mismatch)", spm)
    else:
        ok(f"--spm # skip: {SPM} not found")


# ---------------------------------------------------------------- the fixtures, in numpy

def erf(x):
    return np.vectorize(math.erf)(x)


class NumpyModel:
    """docs/FORMAT.md's model over a model directory, in float64, one sentence at a time."""

    def __init__(self, mdir):
        self.c = json.load(open(os.path.join(mdir, "config.json")))
        _, st = read_st(os.path.join(mdir, self.c["weights"]))
        self.w = {k: a for k, (_, a) in st.items()}

    def ln(self, x, p):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.c["layer_norm_eps"]) * self.w[p + ".weight"] + self.w[p + ".bias"]

    def lin(self, x, p):
        return x @ self.w[p + ".weight"].T + self.w[p + ".bias"]

    def attn(self, xq, xkv, p, causal):
        h = self.c["heads"]
        d = xq.shape[-1]
        dh = d // h
        q = self.lin(xq, p + ".q").reshape(-1, h, dh).transpose(1, 0, 2)
        k = self.lin(xkv, p + ".k").reshape(-1, h, dh).transpose(1, 0, 2)
        v = self.lin(xkv, p + ".v").reshape(-1, h, dh).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(dh)
        if causal:
            s = s + np.triu(np.full(s.shape[1:], -np.inf), 1)
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        o = (s @ v).transpose(1, 0, 2).reshape(-1, d)
        return self.lin(o, p + ".o")

    def ffn(self, x, p):
        y = self.lin(x, p + ".fc1")
        if self.c["activation"] == "relu":
            y = np.maximum(y, 0)
        else:
            y = 0.5 * y * (1 + erf(y / math.sqrt(2)))
        return self.lin(y, p + ".fc2")

    def sub(self, x, f, norm):
        if self.c["norm_placement"] == "pre":
            return x + f(self.ln(x, norm))
        return self.ln(x + f(x), norm)

    def embed(self, ids, table):
        d = self.c["d_model"]
        pe = np.zeros((len(ids), d))
        pos = np.arange(len(ids))[:, None]
        div = 10000.0 ** (np.arange(0, d, 2) / d)
        pe[:, 0::2] = np.sin(pos / div)
        pe[:, 1::2] = np.cos(pos / div)
        return self.w[table][ids] * self.c["embedding_scale"] + pe

    def encode(self, ids):
        x = self.embed(ids, "encoder.embed.weight")
        for i in range(self.c["encoder_layers"]):
            p = f"encoder.layers.{i}"
            x = self.sub(x, lambda y: self.attn(y, y, p + ".self_attn", False), p + ".self_attn_norm")
            x = self.sub(x, lambda y: self.ffn(y, p + ".ffn"), p + ".ffn_norm")
        return self.ln(x, "encoder.final_norm")

    def logits(self, ids, mem):
        tab = "encoder.embed.weight" if self.c["shared_embeddings"] else "decoder.embed.weight"
        x = self.embed(ids, tab)
        for i in range(self.c["decoder_layers"]):
            p = f"decoder.layers.{i}"
            x = self.sub(x, lambda y: self.attn(y, y, p + ".self_attn", True), p + ".self_attn_norm")
            x = self.sub(x, lambda y: self.attn(y, mem, p + ".cross_attn", False), p + ".cross_attn_norm")
            x = self.sub(x, lambda y: self.ffn(y, p + ".ffn"), p + ".ffn_norm")
        x = self.ln(x, "decoder.final_norm")
        out = self.w[tab] if self.c["tied_output"] else self.w["output.weight"]
        y = x @ out.T
        if self.c["output_bias"]:
            y = y + self.w["output.bias"]
        return y

    def greedy(self, src, max_length):
        mem = self.encode(list(src) + [self.c["eos_id"]])
        ys = [self.c["bos_id"]]
        for _ in range(max_length):
            t = int(np.argmax(self.logits(ys, mem)[-1]))
            if t == self.c["eos_id"]:
                break
            ys.append(t)
        return ys[1:]


def rel(a, b):
    return float(np.abs(a - b).max() / (np.abs(b).max() + 1e-30))


def check_fixture(vdir):
    name = os.path.basename(vdir)
    m = NumpyModel(vdir)
    _, ref = read_st(os.path.join(vdir, "reference.safetensors"))
    r = {k: a for k, (_, a) in ref.items()}
    B = r["src_ids"].shape[0]
    worst_enc = worst_log = 0.0
    outs = []
    for b in range(B):
        src = r["src_ids"][b, : r["src_len"][b]]
        mem = m.encode(list(src))
        worst_enc = max(worst_enc, rel(mem, r["encoder_out"][b, : r["src_len"][b]]))
        tgt = r["tgt_ids"][b, : r["tgt_len"][b]]
        worst_log = max(worst_log, rel(m.logits(list(tgt), mem), r["logits"][b, : r["tgt_len"][b]]))
        outs.append(m.greedy(src[:-1], int(r["max_length"][0])))
    check(f"fixture {name}: numpy encoder output matches (rel {worst_enc:.1e})",
          lambda: None if worst_enc < 1e-4 else f"relative difference {worst_enc:.2e}")
    check(f"fixture {name}: numpy logits match (rel {worst_log:.1e})",
          lambda: None if worst_log < 1e-4 else f"relative difference {worst_log:.2e}")

    def greedy():
        want = [[int(t) for t in row[:n]] for row, n in zip(r["greedy"], r["greedy_len"])]
        if outs != want:
            return f"numpy {outs} vs fixture {want}"
        lines = open(os.path.join(vdir, "greedy.ids")).read().split("\n")
        if lines[-1] != "" or [list(map(int, x.split())) for x in lines[:-1]] != want:
            return "greedy.ids differs from the greedy tensor"
        srcs = [list(map(int, x.split())) for x in open(os.path.join(vdir, "src.ids")).read().splitlines()]
        if srcs != [list(r["src_ids"][b, : r["src_len"][b] - 1]) for b in range(B)]:
            return "src.ids differs from src_ids"
        if int(open(os.path.join(vdir, "max_length")).read()) != int(r["max_length"][0]):
            return "max_length file differs"
        return None
    check(f"fixture {name}: numpy greedy equals greedy.ids", greedy)


XLATE = os.path.abspath(os.path.join(TOP, os.environ.get("XLATE", "./xlate")))


def check_int8(tmp):
    """--dtype int8: each linear weight stored as I8 [out, in] with `.scale` F32 [out], the rest
    as f32: scale = max|w| / 127 of the checkpoint's row, every value within half a step of
    the checkpoint's weight, in [-127, 127]; and xlate --compute-type int8 translates the int8
    directory exactly as it translates the f32 one (which it quantizes at load the same way)."""
    v = reference.VARIANTS[1]  # untied: output.weight is a linear too
    ckpt_path = os.path.join(tmp, "i8.pt")
    sd = random_checkpoint(v, ckpt_path, 77)["model"]
    d8, d32 = os.path.join(tmp, "i8"), os.path.join(tmp, "i8_f32")
    for d, dt in ((d8, "int8"), (d32, "f32")):
        r = run_convert([ckpt_path, d, "--dtype", dt])
        if r.returncode:
            not_ok(f"convert --dtype {dt}: exit 0", r.stderr.strip()[-300:])
            return
    _, t8 = read_st(os.path.join(d8, "model.safetensors"))
    _, t32 = read_st(os.path.join(d32, "model.safetensors"))
    bad = []
    for name, (dt, a) in t32.items():
        lin = name.endswith(".weight") and a.ndim == 2 and ".embed." not in name
        if not lin:
            if t8.get(name, ("", None))[0] != "F32" or not np.array_equal(t8[name][1], a):
                bad.append(f"{name}: not the f32 tensor")
            continue
        if t8.get(name, ("", None))[0] != "I8" or t8.get(name + ".scale", ("",))[0] != "F32":
            bad.append(f"{name}: not I8 + F32 .scale")
            continue
        q, s = t8[name][1], t8[name + ".scale"][1]
        wmax = np.abs(a).max(axis=1)
        if np.any(np.abs(s - wmax / 127) > 1e-6 * wmax / 127 + 1e-30):
            bad.append(f"{name}.scale: not max|w| / 127")
        if q.min() < -127 or q.max() > 127 or np.any(np.abs(a - q * s[:, None]) >
                                                       0.5001 * s[:, None] + 1e-30):
            bad.append(f"{name}: values not within half a step")
    n_scale = sum(1 for n in t8 if n.endswith(".scale"))
    what = "convert --dtype int8: linear weights I8 with max|w| / 127 row scales, the rest f32"
    if not bad and n_scale and len(t8) == len(t32) + n_scale:
        ok(what)
    else:
        not_ok(what, "; ".join(bad[:3]) or f"{len(t8)} tensors, {n_scale} scales")
    if not os.access(XLATE, os.X_OK):
        not_ok("xlate on the int8 directory", f"{XLATE} is not executable")
        return
    # bad int8 files: a weight without its scales, a -128
    victim = next(n for n in sorted(t8) if t8[n][0] == "I8")
    for case, drop, minus in (("no .scale", victim + ".scale", False), ("-128", None, True)):
        bd = os.path.join(tmp, "i8bad")
        os.makedirs(bd, exist_ok=True)
        shutil.copyfile(os.path.join(d8, "config.json"), os.path.join(bd, "config.json"))
        ts = []
        for n, (dt, a) in t8.items():
            if n == drop:
                continue
            if dt == "I8":
                a = a.copy()
                if minus and n == victim:
                    a.flat[5] = -128
                ts.append((n, ("I8", list(a.shape), a.astype("<i1").tobytes())))
            else:
                ts.append((n, ("F32", list(a.shape), a.astype("<f4").tobytes())))
        convert.write_safetensors(os.path.join(bd, "model.safetensors"), ts)
        p = subprocess.run([XLATE, "-m", bd, "--compute-type", "int8", "--input-format", "ids"],
                           input="5 6\n", capture_output=True, text=True)
        what = f"int8 file with {case}: exit 2, one line naming the tensor"
        want = victim + (".scale" if drop else "")
        if p.returncode == 2 and want in p.stderr and p.stderr.count("\n") == 1:
            ok(what)
        else:
            not_ok(what, f"exit {p.returncode}: {p.stderr.strip()[:300]}")
    ids = "".join(" ".join(str(4 + (i * 7 + k * 3) % (v["vs"] - 4)) for k in range(3 + i % 5))
                  + "\n" for i in range(12))
    outs = []
    for d in (d8, d32):
        p = subprocess.run([XLATE, "-q", "-m", d, "--compute-type", "int8", "--input-format",
                            "ids", "--output-format", "ids", "--max-length", "12"], input=ids,
                           capture_output=True, text=True)
        outs.append(p.stdout if p.returncode == 0 else p.stderr)
    what = "xlate --compute-type int8: the int8 directory translates as the f32 one"
    if outs[0] == outs[1] and outs[0].count("\n") == 12:
        ok(what)
    else:
        not_ok(what, f"{outs[0][:200]!r} vs {outs[1][:200]!r}")


def main():
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        for i, v in enumerate(reference.VARIANTS):
            check_variant(tmp, v, v["dtype"], via_cli=(i == 0))
        for dtype in ("f16", "bf16"):  # every weight dtype on an untied model (output.bias too)
            check_variant(tmp, reference.VARIANTS[1], dtype, via_cli=False)
        check_errors(tmp)
        check_int8(tmp)
    if os.path.isdir(FIXTURES):
        for n in sorted(os.listdir(FIXTURES)):
            if os.path.isfile(os.path.join(FIXTURES, n, "reference.safetensors")):
                check_fixture(os.path.join(FIXTURES, n))
    else:
        not_ok("parity fixtures", f"{FIXTURES} missing")
    return done()


if __name__ == "__main__":
    sys.exit(main())
