"""make_common.py — what tools/make_marian.py and tools/make_m2m100.py share: the size and
seed options of a random hub model, the --gain overrides, the centering of sub-layer output
biases, the hub's JSON side files."""
import json
import os

import torch


def add_shape_args(ap, acts, act, gain):
    """The model's sizes (the decoder's default to the encoder's), activation, --gain over the
    names of `gain`, --seed and --no-center."""
    ap.add_argument("--d", type=int, default=32)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ffn", type=int, default=64)
    ap.add_argument("--dec-layers", type=int, default=0, help="the decoder's (default: --layers)")
    ap.add_argument("--dec-heads", type=int, default=0, help="the decoder's (default: --heads)")
    ap.add_argument("--dec-ffn", type=int, default=0, help="the decoder's (default: --ffn)")
    ap.add_argument("--act", default=act, choices=acts)
    ap.add_argument("--gain", action="append", default=[], metavar="NAME=X",
                    help=f"override one of GAIN ({', '.join(gain)})")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-center", action="store_true", help="skip centering (big models)")


def finish_args(ap, a, gain):
    """--gain NAME=X into `gain` (the caller's GAIN, changed in place); the decoder's sizes."""
    for g in a.gain:
        k, x = g.split("=")
        if k not in gain:
            ap.error(f"--gain {g}: expected one of {', '.join(gain)}")
        gain[k] = float(x)
    a.dec_layers = a.dec_layers or a.layers
    a.dec_heads = a.dec_heads or a.heads
    a.dec_ffn = a.dec_ffn or a.ffn


def center_biases(m, sd, src, tgt, passes):
    """Subtract from the bias of every sub-layer output (out_proj, fc2) its mean over the batch
    src [B][S] (ids without eos), tgt [B, T] (decoder inputs): random activations have a large
    common component that otherwise makes every position predict the same token. m: the
    reference model (marian_reference.Marian, m2m100_reference.M2M100) over sd, whose `watch`
    names the site whose outputs it appends to `seen`."""
    sites = [n[: -len(".weight")] for n in sd
             if n.endswith("out_proj.weight") or n.endswith("fc2.weight")]
    for _ in range(passes):
        for site in sites:
            m.watch, m.seen = site, []
            for b in range(len(src)):
                m.logits(m.encode(src[b] + [m.eos]), tgt[b: b + 1].tolist())
            m.watch = None
            with torch.no_grad():
                sd[site + ".bias"] -= torch.cat([y.reshape(-1, y.shape[-1])
                                                 for y in m.seen]).mean(0)


def write_json(outdir, name, obj, **dump):
    """outdir/name as the hub's side files are: indented by 2, a newline at the end."""
    with open(os.path.join(outdir, name), "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=2, **dump)
        f.write("\n")
