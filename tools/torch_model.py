"""PyTorch helpers shared by tools/convert.py, tools/reference.py and tests/py/.

The model is the one of the shared checkpoint layout (docs/CHECKPOINT.md), built exactly
as multi30k-en-de/train.py's Seq2Seq builds it:

  transformer  nn.Transformer(d, heads, layers, dec_layers, ff, batch_first=True,
                              norm_first=..., activation=...)
  tied         emb                     logits = h @ emb.weight.T
  untied       src_emb, tgt_emb        logits = generator(h)   (nn.Linear(d, Vt), with bias)
  each stack   emb(ids) * sqrt(d) + PE[:len]   (PE interleaved sin/cos, positions from 0)

Everything runs in float32, in eval mode, without autograd state leaking out.

PyTorch 1.13 has inference "fast paths" (a fused encoder-layer kernel, nested tensors that
write zeros into padded encoder rows, native self-attention). They are taken only in eval mode
with autograd off and an even head count, so by default the functions here run the composite
reference math for every variant (see `reference_math`); pass fastpath=True to get what a plain
`with torch.no_grad():` call of nn.Transformer computes.
"""
import contextlib
import math

import torch
import torch.nn as nn

PAD, UNK, BOS, EOS = 0, 1, 2, 3

# args keys that may be missing, with the value the layout says they take.
ARG_DEFAULTS = {"norm_first": False, "activation": "relu", "tie": True}
ARG_REQUIRED = ("d", "heads", "ff", "layers")
ACTIVATIONS = ("relu", "gelu")


def normalize_args(args):
    """The checkpoint's args (a dict or an argparse.Namespace) with every default filled in.
    Raises ValueError naming a missing required key or an unknown activation."""
    if not isinstance(args, dict):
        args = vars(args)
    out = dict(args)
    for k in ARG_REQUIRED:
        if k not in out:
            raise ValueError(f'args has no "{k}"')
    out.setdefault("dec_layers", out["layers"])
    for k, v in ARG_DEFAULTS.items():
        out.setdefault(k, v)
    for k in ("d", "heads", "ff", "layers", "dec_layers"):
        out[k] = int(out[k])
    out["norm_first"] = bool(out["norm_first"])
    out["tie"] = bool(out["tie"])
    if out["activation"] not in ACTIVATIONS:
        raise ValueError(f'unknown activation "{out["activation"]}" (expected relu or gelu)')
    return out


def sinusoid(n, d):
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...), as train.py computes it."""
    pe = torch.zeros(n, d)
    pos = torch.arange(n, dtype=torch.float32)[:, None]
    div = torch.pow(10000.0, torch.arange(0, d, 2, dtype=torch.float32) / d)
    pe[:, 0::2] = torch.sin(pos / div)
    pe[:, 1::2] = torch.cos(pos / div)
    return pe


class Seq2Seq(nn.Module):
    """train.py's Seq2Seq, generalized to the args of the layout (dec_layers, activation, tie)."""

    def __init__(s, args, src_vocab, tgt_vocab=None, max_positions=512):
        super().__init__()
        a = normalize_args(args)
        s.args = a
        tgt_vocab = src_vocab if tgt_vocab is None else tgt_vocab
        s.d = a["d"]
        if a["tie"]:
            if tgt_vocab != src_vocab:
                raise ValueError("tied embeddings need equal source and target vocabularies")
            s.emb = nn.Embedding(src_vocab, s.d, padding_idx=PAD)
        else:
            s.src_emb = nn.Embedding(src_vocab, s.d, padding_idx=PAD)
            s.tgt_emb = nn.Embedding(tgt_vocab, s.d, padding_idx=PAD)
            s.generator = nn.Linear(s.d, tgt_vocab)
        s.register_buffer("pe", sinusoid(max_positions, s.d), persistent=False)
        s.transformer = nn.Transformer(s.d, a["heads"], a["layers"], a["dec_layers"], a["ff"],
                                       a.get("dropout", 0.1), activation=a["activation"],
                                       batch_first=True, norm_first=a["norm_first"])
        s.src_vocab, s.tgt_vocab = src_vocab, tgt_vocab
        s.eval()

    def src_embedding(s):
        return s.emb if s.args["tie"] else s.src_emb

    def tgt_embedding(s):
        return s.emb if s.args["tie"] else s.tgt_emb

    def embed_src(s, x):
        return s.src_embedding()(x) * math.sqrt(s.d) + s.pe[: x.size(1)]

    def embed_tgt(s, x):
        return s.tgt_embedding()(x) * math.sqrt(s.d) + s.pe[: x.size(1)]

    def project(s, h):
        if s.args["tie"]:
            return h @ s.emb.weight.t()
        return s.generator(h)


def build(ckpt, max_positions=512):
    """The eval-mode model of a checkpoint dict {"model": state_dict, "args": {...}}."""
    sd, args = ckpt["model"], ckpt["args"]
    a = normalize_args(args)
    if a["tie"]:
        vs = vt = sd["emb.weight"].shape[0]
    else:
        vs, vt = sd["src_emb.weight"].shape[0], sd["tgt_emb.weight"].shape[0]
    m = Seq2Seq(a, vs, vt, max_positions)
    m.load_state_dict({k: v.float() for k, v in sd.items()}, strict=True)
    m.eval()
    return m


def read_safetensors(path):
    """{name: tensor} of a safetensors file, read with numpy (no dependence on xlate's own
    reader): F32, F16 and BF16 as float32 (widening is exact), I32 and I64 as int32 / int64.
    The one reader of tools/ and tests/py."""
    import json
    import numpy as np
    with open(path, "rb") as f:
        raw = f.read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8: 8 + n])
    data = raw[8 + n:]
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b = data[e["data_offsets"][0]: e["data_offsets"][1]]
        if e["dtype"] == "BF16":
            a = (np.frombuffer(b, "<u2").astype(np.uint32) << 16).view(np.float32)
        elif e["dtype"] in ("I32", "I64"):
            a = np.frombuffer(b, "<i4" if e["dtype"] == "I32" else "<i8").copy()
        else:
            a = np.frombuffer(b, {"F32": "<f4", "F16": "<f2"}[e["dtype"]]).astype(np.float32)
        out[name] = torch.from_numpy(a.reshape(e["shape"]).copy())
    return out


def args_from_config(cfg):
    """The checkpoint-layout args of an xlate config.json (docs/FORMAT.md) that this layout
    can express; ValueError naming the field that it cannot."""
    need = {"positions": "sinusoidal-interleaved", "encoder_final_norm": True,
            "decoder_final_norm": True, "layer_norm_eps": 1e-5,
            "pad_id": PAD, "unk_id": UNK, "bos_id": BOS, "eos_id": EOS}
    for k, v in need.items():
        if cfg.get(k, v) != v:
            raise ValueError(f'config field "{k}" is {cfg.get(k)!r}: the PyTorch layout has {v!r}')
    tie = bool(cfg.get("shared_embeddings")) and bool(cfg.get("tied_output"))
    if tie != bool(cfg.get("tied_output")) or cfg.get("output_bias", not tie) == tie:
        raise ValueError("the PyTorch layout ties all three embeddings or none (with an output bias)")
    if abs(cfg.get("embedding_scale", math.sqrt(cfg["d_model"])) - math.sqrt(cfg["d_model"])) > 1e-6:
        raise ValueError('config field "embedding_scale" is not sqrt(d_model)')
    return normalize_args(dict(d=cfg["d_model"], heads=cfg["heads"], ff=cfg["ffn_dim"],
                               layers=cfg["encoder_layers"], dec_layers=cfg["decoder_layers"],
                               norm_first=cfg["norm_placement"] == "pre",
                               activation=cfg["activation"], tie=tie))


def from_model_dir(path):
    """The eval-mode PyTorch model of an xlate model directory (config.json +
    model.safetensors, as tools/convert.py writes them): the inverse of convert.tensor_map,
    q/k/v stacked back into in_proj, loaded with strict=True so that PyTorch itself checks
    every name and shape. The tests' oracle for the shipped model: no checkpoint file needed."""
    import json
    import os
    from convert import tensor_map
    with open(os.path.join(path, "config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    a = args_from_config(cfg)
    st = read_safetensors(os.path.join(path, cfg.get("weights", "model.safetensors")))
    parts = {}
    for name, key, rows in tensor_map(a):
        parts.setdefault(key, []).append((rows[0] if rows else 0, st[name]))
    sd = {k: torch.cat([t for _, t in sorted(v, key=lambda x: x[0])]) for k, v in parts.items()}
    m = Seq2Seq(a, cfg["src_vocab_size"], cfg["tgt_vocab_size"], cfg.get("max_positions", 512))
    m.load_state_dict(sd, strict=True)
    m.eval()
    return m


def save_checkpoint(path, model, args=None, **extra):
    """torch.save of {"model": state_dict, "args": args, **extra}, the shared layout."""
    ckpt = {"model": {k: v.detach().clone() for k, v in model.state_dict().items()},
            "args": dict(model.args if args is None else args)}
    ckpt.update(extra)
    torch.save(ckpt, path)


@contextlib.contextmanager
def reference_math(model, fastpath=False):
    """Run model code in eval mode, fp32. fastpath=False: autograd on with parameters that
    require grad, which is the documented condition that turns every PyTorch fast path off;
    callers detach their results. fastpath=True: plain torch.no_grad()."""
    model.eval()
    if fastpath:
        with torch.no_grad():
            yield
        return
    flags = [(p, p.requires_grad) for p in model.parameters()]
    for p, _ in flags:
        p.requires_grad_(True)
    try:
        with torch.enable_grad():
            yield
    finally:
        for p, f in flags:
            p.requires_grad_(f)


def pad_batch(seqs, pad=PAD):
    """A list of id lists to (LongTensor [B, max_len] right-padded, lengths LongTensor [B])."""
    n = max(len(x) for x in seqs)
    out = torch.full((len(seqs), n), pad, dtype=torch.long)
    for i, x in enumerate(seqs):
        out[i, : len(x)] = torch.tensor(x, dtype=torch.long)
    return out, torch.tensor([len(x) for x in seqs], dtype=torch.long)


def _causal(n):
    return torch.triu(torch.full((n, n), float("-inf")), 1)


def encode(model, src, src_pad_mask, fastpath=False):
    """src LongTensor [B, S] (padded), src_pad_mask BoolTensor [B, S] (True at padding) ->
    memory [B, S, d]: the encoder stack output after the final encoder LayerNorm."""
    with reference_math(model, fastpath):
        mem = model.transformer.encoder(model.embed_src(src), src_key_padding_mask=src_pad_mask)
        if mem.is_nested:
            mem = mem.to_padded_tensor(0.0, src.shape + (model.d,))
    return mem.detach()


def decode(model, tgt, memory, src_pad_mask, fastpath=False):
    """Decoder stack output (after the final decoder LayerNorm) [B, T, d] for inputs tgt
    [B, T]: causal self-attention, cross-attention masked by src_pad_mask. No target padding
    mask: with right padding and a causal mask, positions < tgt_len never see padding."""
    with reference_math(model, fastpath):
        h = model.transformer.decoder(model.embed_tgt(tgt), memory, tgt_mask=_causal(tgt.size(1)),
                                      memory_key_padding_mask=src_pad_mask)
    return h.detach()


def _proj(mha, x, part):
    """Projection `part` (0: q, 1: k, 2: v) of nn.MultiheadAttention mha applied to x: the rows
    part * E .. (part + 1) * E of in_proj_weight and in_proj_bias (torch 1.13
    functional.py _in_projection_packed: "linear(q, w, b).chunk(3, dim=-1)" for
    self-attention, "w_q, w_kv = w.split([E, E * 2])" for encoder-decoder attention)."""
    E = mha.embed_dim
    return torch.nn.functional.linear(x, mha.in_proj_weight[part * E:(part + 1) * E],
                                      mha.in_proj_bias[part * E:(part + 1) * E])


def _heads(x, H):
    """[B, T, E] -> [B, H, T, E / H] (functional.py: "q.contiguous().view(tgt_len, bsz *
    num_heads, head_dim).transpose(0, 1)", batch first)."""
    B, T, E = x.shape
    return x.view(B, T, H, E // H).transpose(1, 2)


def _attend(mha, q, k, v, key_padding_mask=None):
    """multi_head_attention_forward (torch 1.13 functional.py) from its projected q [B, 1, E]
    and the heads' keys and values k, v [B, H, S, E / H], in eval mode: key_padding_mask
    (True: padding) -> -inf ("attn_mask.masked_fill(key_padding_mask, float("-inf"))"),
    "q_scaled = q / math.sqrt(E)" (E: the head dimension there), "softmax(... bmm(q_scaled,
    k.transpose(-2, -1)))", "torch.bmm(attn_output_weights, v)", heads merged, then
    "linear(attn_output, out_proj_weight, out_proj_bias)"."""
    H = mha.num_heads
    qh = _heads(q, H)
    w = (qh / math.sqrt(qh.shape[-1])) @ k.transpose(-2, -1)
    if key_padding_mask is not None and bool(key_padding_mask.any()):
        w = w.masked_fill(key_padding_mask[:, None, None, :], float("-inf"))
    o = torch.softmax(w, dim=-1) @ v
    o = o.transpose(1, 2).reshape(q.shape[0], q.shape[1], mha.embed_dim)
    return torch.nn.functional.linear(o, mha.out_proj.weight, mha.out_proj.bias)


def decode_step(model, cache, tokens, memory, src_pad_mask, fastpath=False):
    """decode() of one more position, with a KV cache of the earlier ones: the decoder stack's
    output [B, d] at position t for tokens [B] (each row's input there). cache (None at t = 0):
    per decoder layer the self-attention's keys and values of positions < t, [B, heads, t,
    head_dim] each, and the cross-attention's of memory (computed at the first step, then
    handed on). Returns (output, the cache with position t added; the old one is unchanged,
    so hypotheses that share a parent share its cache).

    nn.TransformerDecoderLayer.forward (torch 1.13 transformer.py), one position at a time:
    causal self-attention makes position t's output depend on the earlier positions only
    through their keys and values, which appending tokens never changes, so the query of
    position t alone meets the keys and values of positions <= t (the causal mask's last row,
    all open): x + _sa_block(norm1(x)), x + _mha_block(norm2(x)), x + _ff_block(norm3(x)) with
    norm_first; norm1(x + _sa_block(x)), norm2(x + _mha_block(x)), norm3(x + _ff_block(x))
    without; then TransformerDecoder's final norm. The attention blocks follow
    multi_head_attention_forward (_proj, _attend; dropout is off in eval mode); the
    LayerNorms, the feed-forward block (_ff_block) and the embedding are the model's own
    modules. No module with a fused inference path runs here (nn.MultiheadAttention's forward
    is not called), so it runs under torch.no_grad() whatever fastpath says."""
    t = 0 if cache is None else cache["pos"]
    tok = torch.as_tensor(tokens, dtype=torch.long)[:, None]
    self_kv, cross_kv = [], []
    with torch.no_grad():
        x = model.tgt_embedding()(tok) * math.sqrt(model.d) + model.pe[t: t + 1]
        mem = memory.expand(tok.shape[0], -1, -1)
        msk = src_pad_mask.expand(tok.shape[0], -1)
        for l, layer in enumerate(model.transformer.decoder.layers):
            sa_in = layer.norm1(x) if layer.norm_first else x
            H = layer.self_attn.num_heads
            k = _heads(_proj(layer.self_attn, sa_in, 1), H)
            v = _heads(_proj(layer.self_attn, sa_in, 2), H)
            if cache is not None:
                pk, pv = cache["self"][l]
                k, v = torch.cat([pk, k], 2), torch.cat([pv, v], 2)
            self_kv.append((k, v))
            sa = _attend(layer.self_attn, _proj(layer.self_attn, sa_in, 0), k, v)
            x = x + sa if layer.norm_first else layer.norm1(x + sa)
            ca_in = layer.norm2(x) if layer.norm_first else x
            if cache is not None:
                ck, cv = cache["cross"][l]
            else:
                ck = _heads(_proj(layer.multihead_attn, mem, 1), H)
                cv = _heads(_proj(layer.multihead_attn, mem, 2), H)
            cross_kv.append((ck, cv))
            ca = _attend(layer.multihead_attn, _proj(layer.multihead_attn, ca_in, 0), ck, cv,
                         msk)
            x = x + ca if layer.norm_first else layer.norm2(x + ca)
            if layer.norm_first:
                x = x + layer._ff_block(layer.norm3(x))
            else:
                x = layer.norm3(x + layer._ff_block(x))
        if model.transformer.decoder.norm is not None:
            x = model.transformer.decoder.norm(x)
    return x[:, 0], {"pos": t + 1, "self": self_kv, "cross": cross_kv}


def teacher_forced_logits(model, src, src_pad_mask, tgt, fastpath=False):
    """Logits [B, T, Vt] at every decoder input position (batched)."""
    memory = encode(model, src, src_pad_mask, fastpath)
    h = decode(model, tgt, memory, src_pad_mask, fastpath)
    with reference_math(model, fastpath):
        out = model.project(h)
    return out.detach()


def greedy(model, src_ids, max_length, eos_id=EOS, bos_id=BOS, fastpath=False):
    """Greedy decoding of one sentence. src_ids: the source ids WITHOUT eos (eos is appended
    here). Generates until eos or until max_length tokens were generated (eos counts as one).
    Returns (ids without bos and eos, ended_with_eos, margins): margins[i] is the top-1 minus
    top-2 logit at step i (how far float error is from flipping the argmax).

    Each step is decode_step's one new position over the cache of the earlier ones (the
    reference math, what decode() of the whole prefix gives up to float rounding: the ids of
    decode() of the whole prefix on the six parity fixtures and 60 test_2016_flickr lines of
    models/en-de, margins within 4.8e-4 (the post-norm GELU fixture; 7.6e-6 on en-de),
    1.1-4.3x faster). With fastpath the whole prefix goes through decode() each step, so that
    reference.py's fastpath_check still runs PyTorch's fused paths."""
    src = torch.tensor([list(src_ids) + [eos_id]], dtype=torch.long)
    mask = torch.zeros_like(src, dtype=torch.bool)
    memory = encode(model, src, mask, fastpath)
    ys, cache = [bos_id], None
    out, margins, ended = [], [], False
    model.eval()
    for _ in range(max_length):
        if fastpath:
            h = decode(model, torch.tensor([ys], dtype=torch.long), memory, mask, True)[:, -1]
        else:
            h, cache = decode_step(model, cache, ys[-1:], memory, mask)
        with torch.no_grad():
            logits = model.project(h).detach()[0]
        top = torch.topk(logits, 2)
        margins.append(float(top.values[0] - top.values[1]))
        nxt = int(torch.argmax(logits))
        if nxt == eos_id:
            ended = True
            break
        out.append(nxt)
        ys.append(nxt)
    return out, ended, margins


def cross_attention(model, src_ids, tgt_in, layer, eos_id=EOS, fastpath=False):
    """The cross-attention probabilities of decoder layer `layer`, averaged over its heads, of
    the decoder run teacher-forced on tgt_in (a list of ids starting with bos) over src_ids
    (WITHOUT eos: it is appended here): a tensor [len(tgt_in), len(src_ids) + 1], row t the
    attention of decoder input position t, i.e. of the step that chose target token t.

    PyTorch's own nn.MultiheadAttention computes them: its forward is wrapped to ask for the
    weights (need_weights=True, average_attn_weights=True: the mean over heads), which
    nn.TransformerDecoderLayer does not ask for itself; the output is unchanged."""
    src = torch.tensor([list(src_ids) + [eos_id]], dtype=torch.long)
    mask = torch.zeros_like(src, dtype=torch.bool)
    tgt = torch.tensor([list(tgt_in)], dtype=torch.long)
    mha = model.transformer.decoder.layers[layer].multihead_attn
    got = []
    plain = mha.forward

    def forward(*a, **k):
        k["need_weights"] = True
        k["average_attn_weights"] = True
        out, w = plain(*a, **k)
        got.append(w.detach())
        return out, w

    mha.forward = forward
    try:
        memory = encode(model, src, mask, fastpath)
        decode(model, tgt, memory, mask, fastpath)
    finally:
        del mha.forward
    if len(got) != 1:
        raise RuntimeError(f"decoder layer {layer}'s cross-attention ran {len(got)} times")
    return got[0][0]
