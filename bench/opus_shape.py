#!/usr/bin/python3
"""A random model of OPUS-MT's shape in xlate's own format (docs/FORMAT.md), for speed only:
d_model 512, 8 heads, FFN 2048, 6 + 6 layers, post-norm, sinusoidal-concat positions, shared
and tied embeddings, vocabulary 58,101 -- where the output projection (512 x 58,101, 29.7M
multiply-adds a row) costs more than the six decoder layers together (22.0M). Its translations
mean nothing; benchmark it with --min-length N --max-length N so every sentence makes N steps.

  /usr/bin/python3 bench/opus_shape.py build/opus-shape      # about 300 MB of f32 weights
  /usr/bin/python3 bench/opus_shape.py build/opus-shape-f16 --dtype f16   # 150 MB, as OPUS-MT

--dtype f16 stores the same draws rounded to float16 (OPUS-MT's hub files are f16); xlate (at
any --compute-type) and bench/ct2_translate.py widen them to f32 at load.
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from convert import write_safetensors  # noqa: E402

D, H, F, L, V = 512, 8, 2048, 6, 58101


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", default="build/opus-shape")
    ap.add_argument("--dtype", choices=("f32", "f16"), default="f32")
    args = ap.parse_args()
    out = args.out
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(15)
    tensors = []

    def add(name, *shape, scale=None, const=None):
        if const is not None:
            a = np.full(shape, const, np.float32)
        else:
            a = (rng.standard_normal(shape) * (scale or shape[-1] ** -0.5)).astype(np.float32)
        if args.dtype == "f16":
            tensors.append((name, ("F16", shape, a.astype(np.float16).tobytes())))
        else:
            tensors.append((name, ("F32", shape, a.tobytes())))

    def linear(name, o, i):
        add(name + ".weight", o, i)
        add(name + ".bias", o, scale=0.02)

    def norm(name):
        add(name + ".weight", D, const=1.0)
        add(name + ".bias", D, const=0.0)

    add("encoder.embed.weight", V, D, scale=D ** -0.5)
    for side, n in (("encoder", L), ("decoder", L)):
        for layer in range(n):
            p = f"{side}.layers.{layer}"
            attns = ("self_attn", "cross_attn") if side == "decoder" else ("self_attn",)
            for a in attns:
                for part in "qkvo":
                    linear(f"{p}.{a}.{part}", D, D)
                norm(f"{p}.{a}_norm")
            linear(f"{p}.ffn.fc1", F, D)
            linear(f"{p}.ffn.fc2", D, F)
            norm(f"{p}.ffn_norm")
    write_safetensors(os.path.join(out, "model.safetensors"), tensors)
    cfg = dict(model_type="transformer", d_model=D, heads=H, ffn_dim=F, encoder_layers=L,
               decoder_layers=L, src_vocab_size=V, tgt_vocab_size=V, activation="relu",
               norm_placement="post", encoder_final_norm=False, decoder_final_norm=False,
               layer_norm_eps=1e-5, positions="sinusoidal-concat", max_positions=512,
               embedding_scale=D ** 0.5, shared_embeddings=True, tied_output=True,
               output_bias=False, pad_id=58100, unk_id=1, bos_id=58100, eos_id=0,
               weights="model.safetensors")
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    print(out)


if __name__ == "__main__":
    main()
