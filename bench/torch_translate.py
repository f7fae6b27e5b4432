#!/usr/bin/python3
"""Greedy translation with PyTorch, written the way a PyTorch user would at their best: the
baseline bench/run.sh compares xlate with.

  fp32, torch.inference_mode, torch.set_num_threads(T), sentences sorted by length over the
  whole input and cut into batches of B (padding + masks), the encoder run once per batch,
  cross-attention K/V computed once per batch, and an incremental decoder: each step runs only
  the newest position, with each layer's self-attention K/V kept in a preallocated cache.
  Sentences that finish leave the batch (their rows are dropped from every cache, in one go
  once an eighth of the batch has finished), so they stop costing compute.

The decoder step is written by hand from the nn.Transformer weights of the checkpoint (the
layout of docs/FORMAT.md's PyTorch section): post- or pre-norm (args.norm_first), ReLU or GELU, tied or
untied embeddings, the final encoder/decoder LayerNorms nn.Transformer always adds. Attention
follows PyTorch 1.13's F.multi_head_attention_forward (q scaled by 1/sqrt(head_dim) before
q @ k^T, padding as -inf added to the scores), so the greedy argmax is PyTorch's own.

Input: one line of space-separated SentencePiece ids per sentence (no eos; eos is appended),
as `spm_encode --output_format=id` prints them; or text with --text (sentencepiece library).
Output: one line of target ids (without bos/eos) per input line, in input order; an empty input
line gives an empty output line. At most min(3 * (source ids + 1) + 10, max_positions)
tokens are generated per sentence, eos counted (xlate's default), or --max-length N;
--min-length N bans eos for the first N tokens and, as in xlate, raises the default bound to
N + 1 (with --max-length N too: exactly N tokens).

Timing goes to stderr as one JSON line: import, load and translate seconds, sentences,
target tokens (written, without eos) and decoder rows (tokens + eos: what was computed).

  /usr/bin/python3 bench/torch_translate.py --threads 2 --batch-size 32 < in.ids > out.ids
"""
import argparse
import json
import math
import os
import sys
import time


def _threads_arg(argv):
    for i, x in enumerate(argv):
        if x == "--threads" and i + 1 < len(argv):
            return argv[i + 1]
        if x.startswith("--threads="):
            return x.split("=", 1)[1]
    return "1"


# Before torch starts OpenMP and OpenBLAS: idle OpenMP threads sleep instead of spinning
# (spinning makes PyTorch about 2x slower on 2 cores), and both pools get --threads threads.
# Variables already set win.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OMP_NUM_THREADS", _threads_arg(sys.argv))
os.environ.setdefault("OPENBLAS_NUM_THREADS", _threads_arg(sys.argv))

T_START = time.perf_counter()
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

T_IMPORT = time.perf_counter() - T_START

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
from torch_model import from_model_dir, normalize_args, sinusoid  # noqa: E402

PAD, BOS, EOS = 0, 2, 3
# Finished rows ride along (their tokens ignored) until an eighth of the batch has finished,
# then all leave at once: each compaction copies every cache, and doing it at every finish
# cost ~8% at batch 32-64 (measured here). --compact-at 1 compacts at every finish.
KEEP_FRAC = DEFAULT_KEEP_FRAC = 0.875
GEMV = True  # one row through addmv (--plain-linear: F.linear always, as most code does)
DEFAULT_CKPT = os.path.join(HERE, "..", "models", "en-de")  # a model directory or a .pt


class Model:
    """The checkpoint's weights as plain contiguous fp32 tensors, and the forward passes."""

    def __init__(s, ckpt_path, max_positions=512):
        if os.path.isdir(ckpt_path):  # an xlate model directory, loaded back into the layout
            m = from_model_dir(ckpt_path)
            ck = {"args": m.args, "model": m.state_dict()}
        else:
            ck = torch.load(ckpt_path, map_location="cpu")
        a = normalize_args(ck["args"])
        sd = {k: v.float().contiguous() for k, v in ck["model"].items()}
        s.d, s.h = a["d"], a["heads"]
        s.dh = s.d // s.h
        s.pre = a["norm_first"]
        s.act = F.relu if a["activation"] == "relu" else F.gelu
        s.max_positions = max_positions
        s.pe = sinusoid(max_positions, s.d)
        s.scale = math.sqrt(s.d)
        if a["tie"]:
            s.src_emb = s.tgt_emb = s.out_w = sd["emb.weight"]
            s.out_b = None
        else:
            s.src_emb, s.tgt_emb = sd["src_emb.weight"], sd["tgt_emb.weight"]
            s.out_w, s.out_b = sd["generator.weight"], sd["generator.bias"]
        d = s.d

        def ln(p):
            return (sd[p + ".weight"], sd[p + ".bias"])

        s.enc = []
        for i in range(a["layers"]):
            p = f"transformer.encoder.layers.{i}."
            s.enc.append(dict(
                qkv_w=sd[p + "self_attn.in_proj_weight"], qkv_b=sd[p + "self_attn.in_proj_bias"],
                o_w=sd[p + "self_attn.out_proj.weight"], o_b=sd[p + "self_attn.out_proj.bias"],
                l1_w=sd[p + "linear1.weight"], l1_b=sd[p + "linear1.bias"],
                l2_w=sd[p + "linear2.weight"], l2_b=sd[p + "linear2.bias"],
                n1=ln(p + "norm1"), n2=ln(p + "norm2")))
        s.dec = []
        for i in range(a["dec_layers"]):
            p = f"transformer.decoder.layers.{i}."
            cw, cb = sd[p + "multihead_attn.in_proj_weight"], sd[p + "multihead_attn.in_proj_bias"]
            s.dec.append(dict(
                qkv_w=sd[p + "self_attn.in_proj_weight"], qkv_b=sd[p + "self_attn.in_proj_bias"],
                o_w=sd[p + "self_attn.out_proj.weight"], o_b=sd[p + "self_attn.out_proj.bias"],
                cq_w=cw[:d].contiguous(), cq_b=cb[:d].contiguous(),
                ckv_w=cw[d:].contiguous(), ckv_b=cb[d:].contiguous(),
                co_w=sd[p + "multihead_attn.out_proj.weight"],
                co_b=sd[p + "multihead_attn.out_proj.bias"],
                l1_w=sd[p + "linear1.weight"], l1_b=sd[p + "linear1.bias"],
                l2_w=sd[p + "linear2.weight"], l2_b=sd[p + "linear2.bias"],
                n1=ln(p + "norm1"), n2=ln(p + "norm2"), n3=ln(p + "norm3")))
        s.enc_norm = ln("transformer.encoder.norm")
        s.dec_norm = ln("transformer.decoder.norm")

    @staticmethod
    def lin(x, w, b):
        """x @ w^T + b. One row goes through BLAS gemv: this OpenBLAS (0.3.21, what Debian's
        torch calls) runs a 1-row sgemm about 5x slower than sgemv, so addmv is what a user
        tuning batch-1 decoding would write."""
        if GEMV and x.dim() == 2 and x.shape[0] == 1:
            y = torch.mv(w, x[0]) if b is None else torch.addmv(b, w, x[0])
            return y.unsqueeze(0)
        return F.linear(x, w, b)

    def _ln(s, x, n):
        return F.layer_norm(x, (s.d,), n[0], n[1], 1e-5)

    def _ffn(s, x, L):
        return s.lin(s.act(s.lin(x, L["l1_w"], L["l1_b"])), L["l2_w"], L["l2_b"])

    def _block(s, x, f, n):
        """A residual block, pre-norm x + f(LN(x)) or post-norm LN(x + f(x))."""
        return x + f(s._ln(x, n)) if s.pre else s._ln(x + f(x), n)

    def encode(s, src, mask_add):
        """src [B, S] ids (padded), mask_add [B, 1, 1, S] (0 or -inf) -> memory [B, S, d]."""
        B, S = src.shape
        H, dh = s.h, s.dh
        x = F.embedding(src, s.src_emb) * s.scale + s.pe[:S]

        def sa(h, L):
            qkv = F.linear(h, L["qkv_w"], L["qkv_b"]).view(B, S, 3, H, dh).permute(2, 0, 3, 1, 4)
            q, k, v = qkv[0] / math.sqrt(dh), qkv[1], qkv[2]
            att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) + mask_add, dim=-1)
            o = torch.matmul(att, v).transpose(1, 2).reshape(B, S, s.d)
            return s.lin(o, L["o_w"], L["o_b"])

        for L in s.enc:
            x = s._block(x, lambda h: sa(h, L), L["n1"])
            x = s._block(x, lambda h: s._ffn(h, L), L["n2"])
        return s._ln(x, s.enc_norm)

    def translate_batch(s, srcs, max_lens, min_len=0):
        """Greedy decoding of a batch of id lists (without eos) -> a list of id lists."""
        B = len(srcs)
        H, dh, d = s.h, s.dh, s.d
        S = max(len(x) for x in srcs) + 1
        src = torch.full((B, S), PAD, dtype=torch.long)
        for i, x in enumerate(srcs):
            src[i, : len(x)] = torch.tensor(x, dtype=torch.long)
            src[i, len(x)] = EOS
        pad = src == PAD
        mask_add = torch.zeros(B, 1, 1, S).masked_fill_(pad[:, None, None, :], float("-inf"))
        mem = s.encode(src, mask_add)
        # cross-attention keys [B, H, dh, S] (already transposed) and values [B, H, S, dh]
        ck, cv = [], []
        for L in s.dec:
            kv = F.linear(mem, L["ckv_w"], L["ckv_b"]).view(B, S, 2, H, dh)
            ck.append(kv[:, :, 0].permute(0, 2, 3, 1).contiguous())
            cv.append(kv[:, :, 1].permute(0, 2, 1, 3).contiguous())
        T = max(max_lens)
        sk = [torch.empty(B, H, T, dh) for _ in s.dec]  # self-attention cache, keys
        sv = [torch.empty(B, H, T, dh) for _ in s.dec]  # values
        rl = list(range(B))  # batch row -> sentence, -1: finished
        out = [[] for _ in range(B)]
        tok = torch.full((B,), BOS, dtype=torch.long)
        qscale = 1.0 / math.sqrt(dh)
        steps = 0
        for pos in range(T):
            n = tok.shape[0]
            x = F.embedding(tok, s.tgt_emb) * s.scale + s.pe[pos]
            for li, L in enumerate(s.dec):
                def self_att(h):
                    qkv = s.lin(h, L["qkv_w"], L["qkv_b"]).view(n, 3, H, 1, dh)
                    sk[li][:, :, pos: pos + 1] = qkv[:, 1]
                    sv[li][:, :, pos: pos + 1] = qkv[:, 2]
                    q = qkv[:, 0] * qscale  # [n, H, 1, dh]
                    att = torch.softmax(torch.matmul(q, sk[li][:, :, : pos + 1].transpose(-2, -1)),
                                        dim=-1)
                    o = torch.matmul(att, sv[li][:, :, : pos + 1]).view(n, d)
                    return s.lin(o, L["o_w"], L["o_b"])

                def cross_att(h):
                    q = s.lin(h, L["cq_w"], L["cq_b"]).view(n, H, 1, dh) * qscale
                    att = torch.softmax(torch.matmul(q, ck[li]) + mask_add, dim=-1)
                    o = torch.matmul(att, cv[li]).view(n, d)
                    return s.lin(o, L["co_w"], L["co_b"])

                x = s._block(x, self_att, L["n1"])
                x = s._block(x, cross_att, L["n2"])
                x = s._block(x, lambda h: s._ffn(h, L), L["n3"])
            x = s._ln(x, s.dec_norm)
            logits = s.lin(x, s.out_w, s.out_b)
            if pos < min_len:
                logits[:, EOS] = float("-inf")
            tok = logits.argmax(-1)
            steps += n
            tl = tok.tolist()
            keep = []
            for r in range(n):
                i = rl[r]
                if i < 0:
                    continue  # finished earlier, still riding along
                if tl[r] == EOS:
                    rl[r] = -1
                    continue
                out[i].append(tl[r])
                if len(out[i]) < max_lens[i]:
                    keep.append(r)
                else:
                    rl[r] = -1
            if not keep:
                break
            if len(keep) > n * KEEP_FRAC:
                continue
            # finished sentences leave the batch: drop their rows everywhere (the self-attention
            # caches only up to the current position)
            k = torch.tensor(keep)
            tok, rl = tok[k], [rl[r] for r in keep]
            mask_add = mask_add[k]
            ck = [c[k] for c in ck]
            cv = [c[k] for c in cv]
            for c in (sk, sv):
                for li in range(len(c)):
                    new = torch.empty(len(keep), H, T, dh)
                    new[:, :, : pos + 1] = c[li][k, :, : pos + 1]
                    c[li] = new
        return out, steps


def max_len_rule(n_src, max_positions, forced, min_length=0):
    """xlate's bound: --max-length, else 3 * (n + 1) + 10 raised to min_length + 1."""
    if forced:
        return min(forced, max_positions)
    return min(max(3 * (n_src + 1) + 10, min_length + 1), max_positions)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--checkpoint", default=DEFAULT_CKPT,
                    help="a PyTorch checkpoint (.pt) or an xlate model directory (default: "
                         "models/en-de)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--max-length", type=int, default=0,
                    help="generate at most N tokens, eos counted (default: xlate's rule)")
    ap.add_argument("--min-length", type=int, default=0,
                    help="eos cannot be chosen before N tokens were generated")
    ap.add_argument("--text", action="store_true",
                    help="text in and out through the sentencepiece library (--spm)")
    ap.add_argument("--spm", default=None,
                    help="default: spm.model beside the checkpoint (in it, for a directory)")
    ap.add_argument("-i", "--input", default="-")
    ap.add_argument("-o", "--output", default="-")
    ap.add_argument("--compact-at", type=float, default=DEFAULT_KEEP_FRAC,
                    help="drop finished rows once live rows <= F x the batch (default %(default)s)")
    ap.add_argument("--plain-linear", action="store_true",
                    help="F.linear for one row too (no addmv): the common way, slower here")
    a = ap.parse_args()
    global GEMV, KEEP_FRAC
    GEMV = not a.plain_linear
    KEEP_FRAC = a.compact_at

    torch.set_num_threads(a.threads)
    t0 = time.perf_counter()
    with torch.inference_mode():
        m = Model(a.checkpoint)
    sp = None
    if a.text:
        import sentencepiece
        spm = a.spm or os.path.join(a.checkpoint if os.path.isdir(a.checkpoint)
                                    else os.path.dirname(a.checkpoint), "spm.model")
        sp = sentencepiece.SentencePieceProcessor(model_file=spm)
    t_load = time.perf_counter() - t0

    fin = sys.stdin if a.input == "-" else open(a.input)
    lines = fin.read().splitlines()
    if sp:
        srcs = [sp.encode(x) for x in lines]
    else:
        srcs = [[int(t) for t in x.split()] for x in lines]
    srcs = [x[: m.max_positions - 1] for x in srcs]
    t1 = time.perf_counter()
    order = sorted((i for i in range(len(srcs)) if srcs[i]), key=lambda i: -len(srcs[i]))
    outs = [[] for _ in srcs]
    steps = 0
    with torch.inference_mode():
        for b in range(0, len(order), a.batch_size):
            idx = order[b: b + a.batch_size]
            got, st = m.translate_batch([srcs[i] for i in idx],
                                        [max_len_rule(len(srcs[i]), m.max_positions,
                                                      a.max_length, a.min_length)
                                         for i in idx],
                                        a.min_length)
            steps += st
            for i, o in zip(idx, got):
                outs[i] = o
    t_translate = time.perf_counter() - t1
    fout = sys.stdout if a.output == "-" else open(a.output, "w")
    for o in outs:
        fout.write((sp.decode(o) if sp else " ".join(map(str, o))) + "\n")
    fout.flush()
    ntok = sum(len(o) for o in outs)
    print(json.dumps({"program": "pytorch", "torch": torch.__version__, "threads": a.threads,
                      "batch": a.batch_size, "gemv": GEMV, "import_s": round(T_IMPORT, 4),
                      "load_s": round(t_load, 4), "translate_s": round(t_translate, 4),
                      "sentences": len(order), "tokens": ntok, "decoder_rows": steps,
                      "tokens_per_s": round(ntok / t_translate, 1) if t_translate else 0}),
          file=sys.stderr)


if __name__ == "__main__":
    main()
