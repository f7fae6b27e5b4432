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


def random_init(gen, d):
    """(lin, ln): lin(o, i, g) a linear's weight N(0, g^2 / i) [o, i] and bias N(0, 0.2^2) [o];
    ln(g) a LayerNorm's gain g * (1 + N(0, 0.3^2)) [d] and bias N(0, 0.2^2) [d], drawn from gen
    in that order."""
    def lin(o, i, g=1.0):
        return (torch.randn(o, i, generator=gen) * g / i ** 0.5,
                torch.randn(o, generator=gen) * 0.2)

    def ln(g=1.0):
        return (g * (1 + 0.3 * torch.randn(d, generator=gen)),
                0.2 * torch.randn(d, generator=gen))
    return lin, ln


def layer_weights(sd, p, blocks, d, F, lin, ln, attn_gain, ffn_gain, final_gain=1.0):
    """One Transformer layer's tensors under the hub's names at prefix p (model.encoder.layers.N):
    each attention block of blocks (self_attn, encoder_attn) with its q/k/v/out projections
    (gain attn_gain(block, projection)) and its LayerNorm, then fc1, fc2 (gain ffn_gain) and
    final_layer_norm (gain final_gain); F the feed-forward width."""
    for blk in blocks:
        for proj in ("q_proj", "k_proj", "v_proj", "out_proj"):
            w, b = lin(d, d, attn_gain(blk, proj))
            sd[f"{p}.{blk}.{proj}.weight"], sd[f"{p}.{blk}.{proj}.bias"] = w, b
        g, b = ln()
        sd[f"{p}.{blk}_layer_norm.weight"], sd[f"{p}.{blk}_layer_norm.bias"] = g, b
    w, b = lin(F, d)
    sd[f"{p}.fc1.weight"], sd[f"{p}.fc1.bias"] = w, b
    w, b = lin(d, F, ffn_gain)
    sd[f"{p}.fc2.weight"], sd[f"{p}.fc2.bias"] = w, b
    g, b = ln(final_gain)
    sd[f"{p}.final_layer_norm.weight"], sd[f"{p}.final_layer_norm.bias"] = g, b


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
