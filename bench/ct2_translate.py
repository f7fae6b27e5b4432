#!/usr/bin/python3
"""Greedy or beam translation with CTranslate2 (the peer engine): the same input, output and JSON
timing line as bench/torch_translate.py, so bench/run.sh and bench/beam_bench.py can put it
beside xlate and PyTorch.

CTranslate2 is not part of xlate: its Python package must be installed separately (built from
its own source, outside this repository; bench/README.md). This script uses only its public
Python API (ctranslate2.specs to describe the model, ctranslate2.Translator to run it).

1. Conversion. The xlate model directory (docs/FORMAT.md: config.json + model.safetensors) is
   described as a ctranslate2.specs.TransformerSpec whose weights are set here from the
   safetensors tensors, and saved once per compute type under --ct2-dir (default
   build/ct2/<model>-<type>, remade when config.json or the weights change):
   - f32: the weights as they are (quantization none); run with compute_type "float32".
   - int8: CTranslate2's own int8 quantization of the same spec (a scale per output row), run
     with compute_type "int8" (int8 products, everything else in float32).
   The mapping: q, k, v fused into one [3d, d] projection for self-attention, k, v into one
   [2d, d] for cross-attention (CTranslate2's layout); each sub-layer's norm goes with it
   (pre-norm: x + f(LN(x))), the final encoder/decoder norms as the stacks' norms. Positions are
   stored as an explicit table (CTranslate2's built-in sinusoid puts sin in the first half and
   cos in the second; xlate's default interleaves them). The vocabulary is the ids themselves,
   written as decimal strings, so no tokenizer is involved.
2. Translation. Sentences sorted by length over the whole input (longest first, as
   torch_translate.py does), cut into batches of B, each batch one translate_batch call
   (beam_size --beam-size, no scores). CTranslate2 takes one max_decoding_length per call, so a
   batch gets the largest of its sentences' bounds and, greedy, each output is cut to its own
   bound after: greedy decoding of a sentence does not depend on later steps, so this equals a
   per-sentence bound. Beam search does depend on the bound (a hypothesis ends there), so a
   beam output is not cut: the JSON line counts the batches whose bounds differ
   ("unequal_bound_batches"; none with --max-length). The bound is xlate's:
   min(3 * (source ids + 1) + 10, max_positions) tokens, eos counted, or --max-length N;
   --min-length N bans eos for the first N tokens (and raises the default bound to N + 1), as
   in xlate.
3. Steps. "steps" in the JSON line is the decoder steps summed over the sentences (a sentence
   counts the steps it was in the batch). Greedy: its tokens, eos included. Beam (K beams):
   CTranslate2's rule with length_penalty != 0 (its default 1) ends a sentence once K
   hypotheses finished (4.8.1 src/decoding.cc:651-657, BeamSearch::search), so the sentence
   ran as many steps as the longest of them has tokens, eos included; the K are asked for
   (num_hypotheses K, return_end_token) to count them, and the first, the best, is written.
   (Of K or more finished, at least one finished at the last step, since fewer than K had
   before it, and finalize keeps the K best, so the longest kept one is that long.)

Input: one line of space-separated SentencePiece ids per sentence (no eos; eos is appended), or
text with --text (sentencepiece library, the model's spm.model). Output: one line of target ids
(without bos/eos) per input line, in input order; an empty input line gives an empty output line.
Timing goes to stderr as one JSON line (import, conversion, load and translate seconds,
sentences, target tokens written without eos, decoder rows = tokens + eos).

  /usr/bin/python3 bench/ct2_translate.py --compute-type int8 --threads 2 --batch-size 32 \\
      < in.ids > out.ids
"""
import argparse
import json
import math
import os
import shutil
import struct
import sys
import time


def _arg(argv, name, default):
    for i, x in enumerate(argv):
        if x == name and i + 1 < len(argv):
            return argv[i + 1]
        if x.startswith(name + "="):
            return x.split("=", 1)[1]
    return default


# Before CTranslate2 starts OpenMP and OpenBLAS: idle OpenMP threads sleep instead of spinning
# (as for PyTorch: spinning workers steal the cores on a shared 2-core machine), and OpenBLAS's
# own pool gets --threads threads (it takes every core otherwise). Variables already set win.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OMP_NUM_THREADS", _arg(sys.argv, "--threads", "1"))
os.environ.setdefault("OPENBLAS_NUM_THREADS", _arg(sys.argv, "--threads", "1"))

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_MODEL = os.path.join(ROOT, "models", "en-de")
COMPUTE_TYPES = {"f32": ("float32", None), "int8": ("int8", "int8")}  # ct2 compute, quantization
STAMP = "xlate_source.json"  # in a converted directory: what it was made from


class Ct2Error(Exception):
    pass


def read_safetensors(path):
    """{name: float32 numpy array} of every F32/F16/BF16 tensor of a .safetensors file."""
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) != 8:
            raise Ct2Error(f"{path}: shorter than the 8-byte header size")
        n = struct.unpack("<Q", head)[0]
        header = json.loads(f.read(n))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        b, e = t["data_offsets"]
        raw = data[b:e]
        if t["dtype"] == "F32":
            a = raw.view("<f4")
        elif t["dtype"] == "F16":
            a = raw.view("<f2").astype(np.float32)
        elif t["dtype"] == "BF16":
            a = (raw.view("<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            continue
        if a.size != math.prod(t["shape"]):
            raise Ct2Error(f"{path}: tensor {name}: {a.size} values, shape {t['shape']}")
        out[name] = np.array(a.reshape(t["shape"]), dtype=np.float32)
    return out


def positions(cfg, w, side):
    """[max_positions, d] table added to the scaled embeddings, as xlate builds it
    (src/model/model.c model_sinusoid: div = 10000^(2i/d) and p / div in float32, sin and cos
    of that float32 argument rounded once from double)."""
    kind = cfg.get("positions", "sinusoidal-interleaved")
    P, d = cfg.get("max_positions", 512), cfg["d_model"]
    if kind == "learned":
        return w[f"{side}.positions.weight"]
    i2 = np.arange(0, d, 2, dtype=np.float32)
    div = np.power(10000.0, (i2 / np.float32(d)).astype(np.float64)).astype(np.float32)
    a = (np.arange(P, dtype=np.float32)[:, None] / div[None, :]).astype(np.float64)
    s, c = np.sin(a).astype(np.float32), np.cos(a).astype(np.float32)
    pe = np.empty((P, d), dtype=np.float32)
    if kind == "sinusoidal-interleaved":
        pe[:, 0::2], pe[:, 1::2] = s, c
    elif kind == "sinusoidal-concat":
        pe[:, : d // 2], pe[:, d // 2:] = s, c
    else:
        raise Ct2Error(f"config.json: field \"positions\": {kind!r} is not supported here")
    return pe


def build_spec(model_dir):
    """The xlate model directory as a ctranslate2.specs.TransformerSpec, weights set."""
    from ctranslate2.specs import common_spec, transformer_spec
    with open(os.path.join(model_dir, "config.json")) as f:
        cfg = json.load(f)
    if cfg.get("model_type") != "transformer":
        raise Ct2Error(f"{model_dir}/config.json: model_type {cfg.get('model_type')!r}, "
                       "expected \"transformer\"")
    w = read_safetensors(os.path.join(model_dir, cfg.get("weights", "model.safetensors")))
    used = set()

    def get(name):
        if name not in w:
            raise Ct2Error(f"{model_dir}: tensor {name} missing")
        used.add(name)
        return w[name]

    d = cfg["d_model"]
    pre = cfg.get("norm_placement", "post") == "pre"
    enc_final = cfg.get("encoder_final_norm", True)
    dec_final = cfg.get("decoder_final_norm", True)
    # CTranslate2 has final norms only in pre-norm stacks, and one switch for both.
    if pre and enc_final != dec_final:
        raise Ct2Error("config.json: encoder_final_norm != decoder_final_norm: "
                       "CTranslate2 has one switch for both")
    if not pre and (enc_final or dec_final):
        raise Ct2Error("config.json: final norms after a post-norm stack: CTranslate2 has none")
    act = {"relu": common_spec.Activation.RELU, "gelu": common_spec.Activation.GELU,
           "gelu_tanh": common_spec.Activation.GELUTanh}[cfg.get("activation", "relu")]
    enc = transformer_spec.TransformerEncoderSpec(cfg["encoder_layers"], cfg["heads"],
                                                  pre_norm=pre, no_final_norm=not enc_final,
                                                  activation=act)
    dec = transformer_spec.TransformerDecoderSpec(cfg["decoder_layers"], cfg["heads"],
                                                  pre_norm=pre, no_final_norm=not dec_final,
                                                  activation=act)
    spec = transformer_spec.TransformerSpec(enc, dec)

    def norm(s, name):
        s.gamma, s.beta = get(name + ".weight"), get(name + ".bias")

    def linear(s, names):
        s.weight = np.concatenate([get(n + ".weight") for n in names])
        s.bias = np.concatenate([get(n + ".bias") for n in names])

    def ffn(s, p):
        norm(s.layer_norm, p + ".ffn_norm")
        linear(s.linear_0, [p + ".ffn.fc1"])
        linear(s.linear_1, [p + ".ffn.fc2"])

    scale = float(cfg.get("embedding_scale", math.sqrt(d)))
    src_emb = get("encoder.embed.weight")
    tgt_emb = src_emb if cfg.get("shared_embeddings") else get("decoder.embed.weight")
    for side, stack, emb in (("encoder", enc, src_emb), ("decoder", dec, tgt_emb)):
        # True: CTranslate2 multiplies by sqrt(d); a float: by that value
        stack.scale_embeddings = True if scale == math.sqrt(d) else np.float32(scale)
        stack.position_encodings.encodings = positions(cfg, w, side)
        if cfg.get("positions") == "learned":
            used.add(f"{side}.positions.weight")
        (stack.embeddings[0] if side == "encoder" else stack.embeddings).weight = emb
        if pre and (enc_final if side == "encoder" else dec_final):
            norm(stack.layer_norm, f"{side}.final_norm")
    for i, layer in enumerate(enc.layer):
        p = f"encoder.layers.{i}"
        a = layer.self_attention
        norm(a.layer_norm, p + ".self_attn_norm")
        linear(a.linear[0], [f"{p}.self_attn.{x}" for x in "qkv"])
        linear(a.linear[1], [p + ".self_attn.o"])
        ffn(layer.ffn, p)
    for i, layer in enumerate(dec.layer):
        p = f"decoder.layers.{i}"
        a = layer.self_attention
        norm(a.layer_norm, p + ".self_attn_norm")
        linear(a.linear[0], [f"{p}.self_attn.{x}" for x in "qkv"])
        linear(a.linear[1], [p + ".self_attn.o"])
        c = layer.attention
        norm(c.layer_norm, p + ".cross_attn_norm")
        linear(c.linear[0], [p + ".cross_attn.q"])
        linear(c.linear[1], [p + ".cross_attn.k", p + ".cross_attn.v"])
        linear(c.linear[2], [p + ".cross_attn.o"])
        ffn(layer.ffn, p)
    dec.projection.weight = tgt_emb if cfg.get("tied_output") else get("output.weight")
    if cfg.get("output_bias"):
        dec.projection.bias = get("output.bias")
    unused = sorted(set(w) - used)
    if unused:
        raise Ct2Error(f"{model_dir}: tensors not mapped: {', '.join(unused[:5])}")

    spec.config.layer_norm_epsilon = float(cfg.get("layer_norm_eps", 1e-5))
    spec.config.unk_token = str(cfg["unk_id"])
    spec.config.bos_token = spec.config.decoder_start_token = str(cfg["bos_id"])
    spec.config.eos_token = str(cfg["eos_id"])
    spec.register_source_vocabulary([str(i) for i in range(cfg["src_vocab_size"])])
    spec.register_target_vocabulary([str(i) for i in range(cfg["tgt_vocab_size"])])
    return spec, cfg


def source_stamp(model_dir):
    """What a converted directory depends on: config.json and the weights (size, mtime)."""
    with open(os.path.join(model_dir, "config.json")) as f:
        cfg = json.load(f)
    st = {}
    for name in ("config.json", cfg.get("weights", "model.safetensors")):
        s = os.stat(os.path.join(model_dir, name))
        st[name] = [s.st_size, s.st_mtime_ns]
    return {"model": os.path.abspath(model_dir), "files": st}


def convert(model_dir, out_dir, quantization, force=False):
    """Writes the CTranslate2 model directory out_dir unless it is there and up to date.
    Returns the seconds spent converting (0 when the directory was reused)."""
    import ctranslate2
    stamp = dict(source_stamp(model_dir), quantization=quantization or "none",
                 ctranslate2=ctranslate2.__version__)
    try:
        with open(os.path.join(out_dir, STAMP)) as f:
            if not force and json.load(f) == stamp:
                return 0.0
    except (OSError, ValueError):
        pass
    t0 = time.perf_counter()
    spec, _ = build_spec(model_dir)
    spec.validate()
    spec.optimize(quantization=quantization)
    tmp = out_dir + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    spec.save(tmp)
    with open(os.path.join(tmp, STAMP), "w") as f:
        json.dump(stamp, f)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.rename(tmp, out_dir)
    return time.perf_counter() - t0


def max_len_rule(n_src, max_positions, forced, min_length=0):
    """xlate's bound: --max-length, else 3 * (n + 1) + 10 raised to min_length + 1."""
    if forced:
        return min(forced, max_positions)
    return min(max(3 * (n_src + 1) + 10, min_length + 1), max_positions)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=DEFAULT_MODEL, help="xlate model directory")
    ap.add_argument("--compute-type", choices=sorted(COMPUTE_TYPES), default="f32")
    ap.add_argument("--ct2-dir", default="",
                    help="converted model directory (default build/ct2/<model>-<type>)")
    ap.add_argument("--convert-only", action="store_true", help="convert, then exit")
    ap.add_argument("--force", action="store_true", help="convert even if up to date")
    ap.add_argument("--threads", type=int, default=1, help="intra_threads (inter_threads 1)")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--beam-size", type=int, default=1, help="1: greedy (default)")
    ap.add_argument("--max-length", type=int, default=0,
                    help="generate at most N tokens, eos counted (default: xlate's rule)")
    ap.add_argument("--min-length", type=int, default=0,
                    help="eos cannot be chosen before N tokens were generated")
    ap.add_argument("--text", action="store_true",
                    help="text in and out through the sentencepiece library (the model's spm)")
    ap.add_argument("-i", "--input", default="-")
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    if a.batch_size < 1 or a.threads < 1 or a.beam_size < 1:
        ap.error("--batch-size, --beam-size and --threads must be >= 1")

    t0 = time.perf_counter()
    try:
        import ctranslate2
    except ImportError as e:
        sys.exit(f"ct2_translate.py: the ctranslate2 Python package is not importable ({e}); "
                 "install it separately (bench/README.md)")
    t_import = time.perf_counter() - t0

    compute, quant = COMPUTE_TYPES[a.compute_type]
    name = os.path.basename(os.path.normpath(a.model))
    ct2_dir = a.ct2_dir or os.path.join(ROOT, "build", "ct2", f"{name}-{a.compute_type}")
    try:
        t_convert = convert(a.model, ct2_dir, quant, a.force)
        with open(os.path.join(a.model, "config.json")) as f:
            cfg = json.load(f)
    except (Ct2Error, OSError, KeyError, ValueError) as e:
        sys.exit(f"ct2_translate.py: {e}")
    if a.convert_only:
        print(json.dumps({"program": "ctranslate2", "ct2_dir": ct2_dir,
                          "convert_s": round(t_convert, 4)}), file=sys.stderr)
        return
    max_positions = cfg.get("max_positions", 512)
    eos = str(cfg["eos_id"])

    t1 = time.perf_counter()
    tr = ctranslate2.Translator(ct2_dir, device="cpu", compute_type=compute,
                                inter_threads=1, intra_threads=a.threads)
    sp = None
    if a.text:
        import sentencepiece
        sp = sentencepiece.SentencePieceProcessor(
            model_file=os.path.join(a.model, cfg.get("tokenizer", "spm.model")))
    t_load = time.perf_counter() - t1

    fin = sys.stdin if a.input == "-" else open(a.input)
    lines = fin.read().splitlines()
    if sp:
        srcs = [sp.encode(x) for x in lines]
    else:
        srcs = []
        for n, x in enumerate(lines, 1):
            try:
                ids = [int(t) for t in x.split()]
            except ValueError:
                sys.exit(f"ct2_translate.py: {a.input}: line {n}: not a list of ids: {x[:40]!r}")
            bad = [t for t in ids if not 0 <= t < cfg["src_vocab_size"]]
            if bad:  # CTranslate2 would read an unknown token as unk, silently
                sys.exit(f"ct2_translate.py: {a.input}: line {n}: id {bad[0]} outside the "
                         f"source vocabulary [0, {cfg['src_vocab_size']})")
            srcs.append(ids)
    srcs = [x[: max_positions - 1] for x in srcs]
    t2 = time.perf_counter()
    order = sorted((i for i in range(len(srcs)) if srcs[i]), key=lambda i: -len(srcs[i]))
    outs = [[] for _ in srcs]
    rows = steps = unequal = 0
    K = a.beam_size
    for b in range(0, len(order), a.batch_size):
        idx = order[b: b + a.batch_size]
        bounds = [max_len_rule(len(srcs[i]), max_positions, a.max_length, a.min_length)
                  for i in idx]
        unequal += min(bounds) != max(bounds)
        res = tr.translate_batch([[str(t) for t in srcs[i]] + [eos] for i in idx],
                                 max_batch_size=a.batch_size, beam_size=K,
                                 num_hypotheses=K,
                                 max_decoding_length=max(bounds),
                                 min_decoding_length=min(a.min_length, max(bounds)),
                                 max_input_length=0,
                                 return_end_token=True, return_scores=False)
        for i, n, r in zip(idx, bounds, res):
            # greedy: this sentence's own bound (see the top); beam: as it came
            toks = r.hypotheses[0][:n] if K == 1 else r.hypotheses[0]
            ended = bool(toks) and toks[-1] == eos
            outs[i] = [int(t) for t in (toks[:-1] if ended else toks)]
            rows += len(toks)
            steps += len(toks) if K == 1 else max(len(h) for h in r.hypotheses)
    t_translate = time.perf_counter() - t2

    fout = sys.stdout if a.output == "-" else open(a.output, "w")
    for o in outs:
        fout.write((sp.decode(o) if sp else " ".join(map(str, o))) + "\n")
    fout.flush()
    ntok = sum(len(o) for o in outs)
    print(json.dumps({"program": "ctranslate2", "ctranslate2": ctranslate2.__version__,
                      "compute_type": a.compute_type, "threads": a.threads,
                      "batch": a.batch_size, "beam": K, "import_s": round(t_import, 4),
                      "convert_s": round(t_convert, 4), "load_s": round(t_load, 4),
                      "translate_s": round(t_translate, 4), "sentences": len(order),
                      "tokens": ntok, "decoder_rows": rows, "steps": steps,
                      "unequal_bound_batches": unequal,
                      "tokens_per_s": round(ntok / t_translate, 1) if t_translate else 0}),
          file=sys.stderr)


if __name__ == "__main__":
    main()
