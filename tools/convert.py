#!/usr/bin/python3
"""Convert a PyTorch checkpoint (docs/CHECKPOINT.md) to an xlate model directory
(docs/FORMAT.md).

usage: tools/convert.py CHECKPOINT.pt OUTDIR [--spm SPM] [--dtype f32|f16|bf16|int8]
                        [--max-positions N]
       tools/convert.py --hf DIR

--hf DIR: a Hugging Face MarianMT (OPUS-MT) directory that has only pytorch_model.bin gets
DIR/model.safetensors with the same tensors, names and dtypes (PyTorch reads the pickle; xlate
never does). Nothing else in DIR changes.

Writes OUTDIR/config.json (every field explicit), OUTDIR/model.safetensors and, with --spm,
OUTDIR/spm.model. Every tensor of the checkpoint must be used and every expected one present;
otherwise the error names the key. Needs torch (Debian's /usr/bin/python3 has it).
"""
import argparse
import json
import math
import os
import shutil
import struct
import sys

import numpy as np

SCRIPT_DIR = os.path.dirname(os.path.abspath(__file__))
if SCRIPT_DIR not in sys.path:
    sys.path.insert(0, SCRIPT_DIR)


class ConvertError(Exception):
    pass


# ---------------------------------------------------------------------------- safetensors

_ST_DTYPES = {"F32": ("<f4", 4), "F16": ("<f2", 2), "BF16": ("<i2", 2),
              "I32": ("<i4", 4), "I64": ("<i8", 8), "I8": ("<i1", 1)}


def int8_rows(t):
    """(q int8 [out, in], scale f32 [out]) of a linear's weight, symmetric per output row, in
    float32 exactly as xlate quantizes at load (src/kernels/gemm.c linear_pack_rows):
    scale = max|w| / 127, q = round-to-even(w * (127 / max|w|)); a zero row: scale 0, q 0."""
    w = t.detach().float().cpu().numpy().astype(np.float32)
    amax = np.abs(w).max(axis=1).astype(np.float32)
    inv = np.where(amax > 0, np.float32(127) / np.where(amax > 0, amax, np.float32(1)),
                   np.float32(0)).astype(np.float32)
    q = np.rint(w * inv[:, None]).astype(np.int8)
    return q, (amax / np.float32(127)).astype(np.float32)


def is_linear_weight(name, t):
    """A linear layer's weight (quantized by --dtype int8); embeddings and norms stay f32."""
    return (name.endswith(".weight") and t.dim() == 2 and ".embed." not in name
            and ".positions." not in name)


def tensor_bytes(t, dtype):
    """(safetensors dtype name, shape, little-endian bytes) of a torch tensor or numpy array.
    dtype: "f32", "f16", "bf16" (weights; f16 via torch .half(), bf16 via .bfloat16() — round to
    nearest even) or "i32", "i64"."""
    import torch
    if isinstance(t, np.ndarray):
        t = torch.from_numpy(np.ascontiguousarray(t))
    t = t.detach().cpu().contiguous()
    shape = list(t.shape)
    if dtype == "f32":
        a = t.float().numpy().astype("<f4")
        name = "F32"
    elif dtype == "f16":
        a = t.float().half().numpy().astype("<f2")
        name = "F16"
    elif dtype == "bf16":
        a = t.float().bfloat16().view(torch.int16).numpy().astype("<i2")
        name = "BF16"
    elif dtype == "i32":
        if t.is_floating_point() or (t.numel() and (int(t.min()) < -2**31 or int(t.max()) >= 2**31)):
            raise ConvertError("i32 tensor out of range")
        a = t.numpy().astype("<i4")
        name = "I32"
    elif dtype == "i64":
        a = t.numpy().astype("<i8")
        name = "I64"
    else:
        raise ConvertError(f"unknown dtype {dtype}")
    return name, shape, a.tobytes(order="C")


def write_safetensors(path, tensors, metadata=None):
    """tensors: list of (name, (dtype name, shape, bytes)) in file order. The header is JSON,
    padded with spaces so that its length is a multiple of 8; data follows contiguously."""
    header = {}
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    off = 0
    for name, (dt, shape, data) in tensors:
        if name in header:
            raise ConvertError(f"duplicate tensor {name}")
        n = _ST_DTYPES[dt][1]
        for s in shape:
            n *= s
        if n != len(data):
            raise ConvertError(f"tensor {name}: {len(data)} bytes for shape {shape} {dt}")
        header[name] = {"dtype": dt, "shape": list(shape), "data_offsets": [off, off + len(data)]}
        off += len(data)
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * (-len(h) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for _, (_, _, data) in tensors:
            f.write(data)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------- mapping

def _mha(src, dst, d):
    """nn.MultiheadAttention (packed in_proj) -> {q,k,v,o}.{weight,bias}: list of
    (format name, checkpoint key, row slice or None)."""
    out = []
    for i, n in enumerate("qkv"):
        out.append((f"{dst}.{n}.weight", f"{src}.in_proj_weight", (i * d, (i + 1) * d)))
        out.append((f"{dst}.{n}.bias", f"{src}.in_proj_bias", (i * d, (i + 1) * d)))
    out.append((f"{dst}.o.weight", f"{src}.out_proj.weight", None))
    out.append((f"{dst}.o.bias", f"{src}.out_proj.bias", None))
    return out


def _norm(src, dst):
    return [(f"{dst}.weight", f"{src}.weight", None), (f"{dst}.bias", f"{src}.bias", None)]


def _ffn(src, dst):
    return [(f"{dst}.fc1.weight", f"{src}.linear1.weight", None),
            (f"{dst}.fc1.bias", f"{src}.linear1.bias", None),
            (f"{dst}.fc2.weight", f"{src}.linear2.weight", None),
            (f"{dst}.fc2.bias", f"{src}.linear2.bias", None)]


def tensor_map(a):
    """[(format name, checkpoint key, rows)] for normalized args a, in file order."""
    d = a["d"]
    m = []
    if a["tie"]:
        m.append(("encoder.embed.weight", "emb.weight", None))
    else:
        m.append(("encoder.embed.weight", "src_emb.weight", None))
        m.append(("decoder.embed.weight", "tgt_emb.weight", None))
    for L in range(a["layers"]):
        s, t = f"transformer.encoder.layers.{L}", f"encoder.layers.{L}"
        m += _mha(f"{s}.self_attn", f"{t}.self_attn", d)
        m += _norm(f"{s}.norm1", f"{t}.self_attn_norm")
        m += _ffn(s, f"{t}.ffn")
        m += _norm(f"{s}.norm2", f"{t}.ffn_norm")
    m += _norm("transformer.encoder.norm", "encoder.final_norm")
    for L in range(a["dec_layers"]):
        s, t = f"transformer.decoder.layers.{L}", f"decoder.layers.{L}"
        m += _mha(f"{s}.self_attn", f"{t}.self_attn", d)
        m += _norm(f"{s}.norm1", f"{t}.self_attn_norm")
        m += _mha(f"{s}.multihead_attn", f"{t}.cross_attn", d)
        m += _norm(f"{s}.norm2", f"{t}.cross_attn_norm")
        m += _ffn(s, f"{t}.ffn")
        m += _norm(f"{s}.norm3", f"{t}.ffn_norm")
    m += _norm("transformer.decoder.norm", "decoder.final_norm")
    if not a["tie"]:
        m.append(("output.weight", "generator.weight", None))
        m.append(("output.bias", "generator.bias", None))
    return m


def expected_shape(key, a, vs, vt):
    """The checkpoint-side shape of key (before q/k/v split)."""
    d, F = a["d"], a["ff"]
    if key in ("emb.weight", "src_emb.weight"):
        return (vs, d)
    if key in ("tgt_emb.weight", "generator.weight"):
        return (vt, d)
    if key == "generator.bias":
        return (vt,)
    if key.endswith("in_proj_weight"):
        return (3 * d, d)
    if key.endswith("in_proj_bias"):
        return (3 * d,)
    if key.endswith("out_proj.weight"):
        return (d, d)
    if key.endswith("linear1.weight"):
        return (F, d)
    if key.endswith("linear1.bias"):
        return (F,)
    if key.endswith("linear2.weight"):
        return (d, F)
    return (d,)  # out_proj.bias, linear2.bias, norms


def load_checkpoint(path):
    import torch
    if not os.path.isfile(path):
        raise ConvertError(f"{path}: no such checkpoint file")
    try:
        ckpt = torch.load(path, map_location="cpu")
    except Exception as e:  # noqa: BLE001 - any unpickling failure is a bad file
        raise ConvertError(f"{path}: cannot read checkpoint: {e}")
    if not isinstance(ckpt, dict):
        raise ConvertError(f"{path}: not a checkpoint dict (got {type(ckpt).__name__})")
    for k in ("model", "args"):
        if k not in ckpt:
            raise ConvertError(f'{path}: checkpoint has no "{k}" entry '
                               f'(keys: {", ".join(map(str, ckpt.keys())) or "none"})')
    return ckpt


def convert(ckpt, dtype="f32", max_positions=512):
    """(config dict, [(name, tensor f32)] in file order) of a checkpoint dict."""
    from torch_model import normalize_args
    import torch
    try:
        a = normalize_args(ckpt["args"])
    except ValueError as e:
        raise ConvertError(str(e))
    sd = ckpt["model"]
    if not isinstance(sd, dict):
        raise ConvertError('"model" is not a state_dict')
    d, heads = a["d"], a["heads"]
    if d <= 0 or heads <= 0 or d % heads:
        raise ConvertError(f"args: heads {heads} does not divide d {d}")
    if a["ff"] <= 0 or a["layers"] < 0 or a["dec_layers"] <= 0:
        raise ConvertError(f'args: bad sizes ff {a["ff"]} layers {a["layers"]} '
                           f'dec_layers {a["dec_layers"]}')
    if max_positions <= 0:
        raise ConvertError(f"--max-positions must be > 0 (got {max_positions})")
    mapping = tensor_map(a)
    needed = []
    for _, key, _ in mapping:
        if key not in needed:
            needed.append(key)
    for key in needed:
        if key not in sd:
            raise ConvertError(f"checkpoint is missing tensor {key} (args: d {d}, layers "
                               f'{a["layers"]}, dec_layers {a["dec_layers"]}, tie {a["tie"]})')
    extra = [k for k in sd if k not in set(needed)]
    if extra:
        raise ConvertError(f"checkpoint has unexpected tensor {extra[0]}"
                           + (f" (and {len(extra) - 1} more)" if len(extra) > 1 else "")
                           + f' (args: layers {a["layers"]}, dec_layers {a["dec_layers"]}, '
                           f'tie {a["tie"]})')
    emb = sd["emb.weight" if a["tie"] else "src_emb.weight"]
    vs = int(emb.shape[0]) if emb.dim() == 2 else -1
    vt = vs if a["tie"] else (int(sd["tgt_emb.weight"].shape[0]) if sd["tgt_emb.weight"].dim() == 2 else -1)
    for key in needed:
        t = sd[key]
        if not torch.is_tensor(t) or not t.is_floating_point():
            raise ConvertError(f"tensor {key}: not a floating-point tensor")
        want = expected_shape(key, a, vs, vt)
        if tuple(t.shape) != want:
            raise ConvertError(f"tensor {key}: shape {list(t.shape)}, expected {list(want)}")
    ids = {"pad_id": 0, "unk_id": 1, "bos_id": 2, "eos_id": 3}
    for k, v in ids.items():
        if v >= vs or v >= vt:
            raise ConvertError(f"{k} {v} outside the vocabulary (source {vs}, target {vt})")
    tensors = []
    for name, key, rows in mapping:
        t = sd[key].detach().float()
        if rows is not None:
            t = t[rows[0]: rows[1]]
        tensors.append((name, t.contiguous()))
    config = {
        "model_type": "transformer",
        "d_model": d,
        "heads": heads,
        "ffn_dim": a["ff"],
        "encoder_layers": a["layers"],
        "decoder_layers": a["dec_layers"],
        "src_vocab_size": vs,
        "tgt_vocab_size": vt,
        "activation": a["activation"],
        "norm_placement": "pre" if a["norm_first"] else "post",
        "encoder_final_norm": True,
        "decoder_final_norm": True,
        "layer_norm_eps": 1e-5,
        "positions": "sinusoidal-interleaved",
        "max_positions": int(max_positions),
        "embedding_scale": float(math.sqrt(d)),
        "shared_embeddings": bool(a["tie"]),
        "tied_output": bool(a["tie"]),
        "output_bias": not a["tie"],
        **ids,
        "weights": "model.safetensors",
    }
    return config, tensors


def check_spm(path, config):
    """Warnings (list of str) when the SentencePiece model disagrees with the config."""
    try:
        import sentencepiece as spm
    except ImportError:
        return ["sentencepiece is not installed: the tokenizer was not checked"]
    try:
        sp = spm.SentencePieceProcessor(model_file=path)
    except Exception as e:  # noqa: BLE001
        raise ConvertError(f"{path}: not a SentencePiece model: {e}")
    w = []
    n = sp.get_piece_size()
    for k in ("src_vocab_size", "tgt_vocab_size"):
        if n != config[k]:
            w.append(f"{path}: {n} pieces but {k} is {config[k]}")
    for k, got in (("pad_id", sp.pad_id()), ("unk_id", sp.unk_id()), ("bos_id", sp.bos_id()),
                   ("eos_id", sp.eos_id())):
        if got != config[k]:
            w.append(f"{path}: {k} is {got} but the model uses {config[k]}")
    return w


def convert_hf(d):
    """DIR/pytorch_model.bin -> DIR/model.safetensors, tensors as they are (F32/F16/BF16)."""
    import torch
    src = os.path.join(d, "pytorch_model.bin")
    if not os.path.isfile(src):
        raise ConvertError(f"{src}: no such file")
    try:
        sd = torch.load(src, map_location="cpu", weights_only=True)
    except TypeError:  # torch < 1.13 has no weights_only
        sd = torch.load(src, map_location="cpu")
    except Exception as e:  # noqa: BLE001
        raise ConvertError(f"{src}: cannot read: {e}")
    if not isinstance(sd, dict):
        raise ConvertError(f"{src}: expected a state dict, got {type(sd).__name__}")
    names = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}
    out = []
    for k, t in sd.items():
        if not torch.is_tensor(t):
            continue
        if t.dtype not in names:
            raise ConvertError(f"{src}: tensor {k}: dtype {t.dtype}, expected float32, float16 "
                               f"or bfloat16")
        out.append((k, tensor_bytes(t, names[t.dtype])))
    write_safetensors(os.path.join(d, "model.safetensors"), out, {"format": "pt"})
    print(f"convert.py: {src} -> {os.path.join(d, 'model.safetensors')}: {len(out)} tensors",
          file=sys.stderr)
    return 0


def run(argv):
    if argv[:1] == ["--hf"]:
        if len(argv) != 2:
            raise ConvertError("usage: convert.py --hf DIR")
        return convert_hf(argv[1])
    p = argparse.ArgumentParser(prog="convert.py", description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoint")
    p.add_argument("outdir")
    p.add_argument("--spm", help="SentencePiece model to copy to OUTDIR/spm.model")
    p.add_argument("--dtype", choices=("f32", "f16", "bf16", "int8"), default="f32",
                   help="int8: each linear weight as I8 with its per-row F32 scales in "
                        "`<name>.scale` (xlate --compute-type int8 uses them as they are); the "
                        "rest f32")
    p.add_argument("--max-positions", type=int, default=512)
    a = p.parse_args(argv)
    if a.spm is not None and not os.path.isfile(a.spm):
        raise ConvertError(f"{a.spm}: no such SentencePiece model file")
    ckpt = load_checkpoint(a.checkpoint)
    config, tensors = convert(ckpt, a.dtype, a.max_positions)
    warnings = []
    if a.spm is not None:
        config["tokenizer"] = "spm.model"
        warnings = check_spm(a.spm, config)
    os.makedirs(a.outdir, exist_ok=True)
    out = []
    for n, t in tensors:
        if a.dtype == "int8" and is_linear_weight(n, t):
            q, s = int8_rows(t)
            out.append((n, ("I8", list(q.shape), q.astype("<i1").tobytes(order="C"))))
            out.append((n + ".scale", ("F32", list(s.shape), s.astype("<f4").tobytes())))
        else:
            out.append((n, tensor_bytes(t, "f32" if a.dtype == "int8" else a.dtype)))
    write_safetensors(os.path.join(a.outdir, config["weights"]), out,
                      {"format": "xlate", "source": os.path.basename(a.checkpoint),
                       "dtype": a.dtype})
    if a.spm is not None:
        dst = os.path.join(a.outdir, "spm.model")
        if not (os.path.exists(dst) and os.path.samefile(a.spm, dst)):
            shutil.copyfile(a.spm, dst)
    with open(os.path.join(a.outdir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    for w in warnings:
        print(f"convert.py: warning: {w}", file=sys.stderr)
    n = sum(t.numel() for _, t in tensors)
    print(f"convert.py: {a.checkpoint} -> {a.outdir}: {len(tensors)} tensors, {n} parameters, "
          f"{a.dtype}", file=sys.stderr)
    return 0


def main(argv=None):
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except ConvertError as e:
        print(f"convert.py: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
