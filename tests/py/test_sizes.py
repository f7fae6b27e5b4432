"""xlate's own format with a decoder whose sizes differ from the encoder's (config.json's
decoder_heads, decoder_ffn_dim and decoder_layers; docs/FORMAT.md), against PyTorch.

The oracle is nn.Transformer with its decoder replaced by an nn.TransformerDecoder of other
heads, feed-forward size and layer count (PyTorch's own layers, tools/torch_model.py's greedy),
made live by tools/reference.py's `liven` and written in xlate's layout by tools/convert.py's
tensor map. Nothing is committed: the weights are written here, then read back by PyTorch's
model (the values compared are the ids of a greedy search, whose top-1 margins are reported).
Run by tests/run.sh with env XLATE and Debian's /usr/bin/python3.
"""
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch_model as tm  # noqa: E402
import reference  # noqa: E402
from convert import tensor_bytes, tensor_map, write_safetensors  # noqa: E402
from checks import check, done, expect_eq  # noqa: E402

XLATE = os.path.abspath(os.path.join(TOP, os.environ.get("XLATE", "./xlate")))
MAX_LENGTH = 16
# name, encoder (heads, ffn, layers), decoder (heads, ffn, layers), pre-norm, activation, seed
VARIANTS = [
    ("post_gelu", (2, 40, 2), (6, 96, 3), False, "gelu", 11),
    ("pre_relu", (8, 100, 1), (3, 36, 2), True, "relu", 12),
]


def model_of(enc, dec, pre, act, seed, vs=53, vt=47):
    d = 48
    args = dict(d=d, heads=enc[0], ff=enc[1], layers=enc[2], dec_layers=dec[2],
                norm_first=pre, activation=act, tie=False)
    m = tm.Seq2Seq(args, vs, vt)
    layer = nn.TransformerDecoderLayer(d, dec[0], dec[1], 0.1, activation=act, batch_first=True,
                                       norm_first=pre)
    m.transformer.decoder = nn.TransformerDecoder(layer, dec[2], norm=nn.LayerNorm(d))
    m.eval()
    reference.liven(m, torch.Generator().manual_seed(seed), eos_boost=2.0)
    return m


def write_dir(path, m, dec):
    a = m.args
    sd = m.state_dict()
    os.makedirs(path)
    tensors = []
    for name, key, rows in tensor_map(a):
        t = sd[key].detach().float()
        tensors.append((name, tensor_bytes((t[rows[0]:rows[1]] if rows else t).contiguous(),
                                           "f32")))
    write_safetensors(os.path.join(path, "model.safetensors"), tensors)
    config = {
        "model_type": "transformer", "d_model": a["d"], "heads": a["heads"],
        "ffn_dim": a["ff"], "decoder_heads": dec[0], "decoder_ffn_dim": dec[1],
        "encoder_layers": a["layers"], "decoder_layers": a["dec_layers"],
        "src_vocab_size": m.src_vocab, "tgt_vocab_size": m.tgt_vocab,
        "activation": a["activation"], "norm_placement": "pre" if a["norm_first"] else "post",
        "layer_norm_eps": 1e-5, "positions": "sinusoidal-interleaved",
        "embedding_scale": math.sqrt(a["d"]), "shared_embeddings": False, "tied_output": False,
        "output_bias": True, "pad_id": tm.PAD, "unk_id": tm.UNK, "bos_id": tm.BOS,
        "eos_id": tm.EOS,
    }
    with open(os.path.join(path, "config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, indent=2)


def main():
    tmp = tempfile.mkdtemp(prefix="xlate_sizes_")
    try:
        rnd = random.Random(5)
        for name, enc, dec, pre, act, seed in VARIANTS:
            m = model_of(enc, dec, pre, act, seed)
            d = os.path.join(tmp, name)
            write_dir(d, m, dec)
            srcs = [[rnd.randrange(4, m.src_vocab) for _ in range(rnd.randrange(3, 14))]
                    for _ in range(30)]
            want, margin, ended = [], [], 0
            for s in srcs:
                ids, e, mg = tm.greedy(m, s, MAX_LENGTH)
                want.append(ids)
                margin.append(min(mg))
                ended += e
            p = subprocess.run([XLATE, "-q", "-m", d, "--input-format", "ids", "--output-format",
                                "ids", "--beam-size", "1", "--max-length", str(MAX_LENGTH)],
                               input="\n".join(" ".join(map(str, s)) for s in srcs) + "\n",
                               capture_output=True, text=True)
            if p.returncode != 0:
                check(f"{name}: xlate runs", lambda: p.stderr)
                continue
            got = [[int(x) for x in l.split()] for l in p.stdout.split("\n")[:-1]]
            info = subprocess.run([XLATE, "info", d], capture_output=True, text=True).stdout
            check(f"{name}: xlate info shows encoder {enc} and decoder {dec} (heads, ffn, layers)",
                  lambda: None if f"encoder {enc[0]} heads" in info and
                  f"decoder {dec[0]} heads" in info and f"ffn {dec[1]}" in info and
                  f"{enc[2]} encoder + {dec[2]} decoder layers" in info else info)
            expect_eq(f"{name}: greedy ids of {len(srcs)} sentences equal PyTorch's ({ended} end "
                      f"at eos, {sum(len(w) for w in want)} tokens, {len(set(sum(want, [])))} "
                      f"distinct; smallest top-1 margin {min(margin):.2e})",
                      [i for i in range(len(srcs)) if got[i] != want[i]], [])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
