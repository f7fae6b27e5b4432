#!/usr/bin/env python3
"""make_marian.py — a random MarianMT model in the exact Hugging Face hub layout, for tests and
benchmarks (never committed: the test or the bench makes it in a temporary directory).

    make_marian.py OUTDIR [--d 32 --layers 2 --heads 4 --ffn 64] [--act swish|gelu|relu]
                   [--dec-layers N --dec-heads N --dec-ffn N] (the decoder's; default: equal)
                   [--untied] [--bias] [--multilingual] [--separate] [--dtype f32|f16]
                   [--spm-vocab 300] [--vocab-size N] [--max-length 40] [--num-beams 4]
                   [--early-stopping true|false|never] [--seed 1]

Writes what a hub directory (Helsinki-NLP/opus-mt-*) holds:
  config.json             as transformers' MarianConfig.to_json_file writes it (model_type
                          "marian", activation_function, scale_embedding, vocab_size,
                          decoder_vocab_size, share_encoder_decoder_embeddings,
                          tie_word_embeddings, pad/eos/decoder_start ids, ...)
  generation_config.json  bad_words_ids [[pad]], forced_eos_token_id, max_length, num_beams
  model.safetensors       the state dict of MarianMTModel under the hub's names
                          (model.shared.weight, model.encoder.layers.N.self_attn.q_proj.weight,
                          ..., final_logits_bias [1, V], lm_head.weight when untied)
  source.spm, target.spm  unigram SentencePiece models trained by spm_train on the Multi30k
                          validation set (tests/data/multi30k/val.en, val.de)
  vocab.json              one map piece -> id for both sides: "</s>" 0, "<unk>" 1, the
                          pieces of both spm models (every 23rd source piece left out, so that
                          some pieces are unknown to vocab.json), "<pad>" last; with
                          --multilingual, >>xx<< codes after "<unk>";
                          with --separate: vocab.json (source) + target_vocab.json
  tokenizer_config.json   MarianTokenizer's settings

--vocab-size pads the vocabulary with unused "<extra_N>" entries up to N (the OPUS-MT-sized
model of bench/: 58,101), after the pieces or, with --spread, between them. Weights are drawn so that a greedy translation depends on its input
and ends at varied lengths: embeddings N(0, 0.2), linears N(0, gain^2/fan_in) (GAIN below),
LayerNorm gains 1 + N(0, 0.3) (x6 on the last decoder layer's), biases N(0, 0.2), sub-layer
output biases centered (`center`), final_logits_bias N(0, 0.5) with --bias (else zero) plus
--eos-bias on eos, plus --real-bias on the real pieces.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
from convert import tensor_bytes, write_safetensors  # noqa: E402
import make_common as mc  # noqa: E402

LANGS = ["fra", "spa", "ita", "por", "ron"]


def train_spm(text, prefix, vocab, seed_sentences=4000):
    """spm_train (unigram, the OPUS-MT normalization nmt_nfkc) on `text`: prefix.model."""
    subprocess.run(["spm_train", f"--input={text}", f"--model_prefix={prefix}",
                    f"--vocab_size={vocab}", "--model_type=unigram",
                    "--character_coverage=1.0", "--normalization_rule_name=nmt_nfkc",
                    f"--input_sentence_size={seed_sentences}", "--minloglevel=2",
                    "--hard_vocab_limit=false"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def spm_pieces(path):
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=path)
    return [sp.id_to_piece(i) for i in range(sp.get_piece_size())
            if not (sp.is_control(i) or sp.is_unknown(i))]


def build_vocabs(src_pieces, tgt_pieces, a):
    """vocab.json (and target_vocab.json) maps as dicts, ids in insertion order."""
    def finish(pieces, head):
        v = {}
        for p in head + pieces:
            if p not in v:
                v[p] = len(v)
        if a.separate:
            return v
        n = a.vocab_size - 1 if a.vocab_size else len(v)
        if a.spread and n > len(v):
            # the pieces after the head spread evenly over [len(head), n), fillers between
            # them: as in OPUS-MT's vocabularies, real pieces at ids past 32,767
            keys = list(v)[len(head):]
            h = len(v) - len(keys)
            slots = {h + (k * (n - h)) // len(keys): p for k, p in enumerate(keys)}
            v = {p: i for i, p in enumerate(list(v)[:h])}
            for i in range(h, n):
                v[slots.get(i, f"<extra_{i}>")] = i
        for i in range(len(v), n):
            v[f"<extra_{i}>"] = i
        v["<pad>"] = len(v)
        return v

    kept_src = [p for i, p in enumerate(src_pieces) if i % 23 != 11]
    codes = [f">>{x}<<" for x in LANGS] if a.multilingual else []
    if a.separate:
        head = ["</s>", "<unk>", "<pad>"]
        return finish(kept_src, head), finish(tgt_pieces, head)
    return finish(kept_src + tgt_pieces, ["</s>", "<unk>"] + codes), None


# Gains of the random weights (as tools/reference.py's liven): sharper attention (q/k/v),
# strong sub-layer outputs (else the post-norm residual of the input token dominates and greedy
# repeats one token), a large gain on the last decoder LayerNorm (logits of a few units).
GAIN = dict(qkv=2.0, self_out=0.5, cross_out=2.0, ffn_out=2.0, last_gain=6.0)


def weights(a, vs, vt, pad, eos, gen):
    d = a.d
    lin, ln = mc.random_init(gen, d)

    sd = {}
    src_emb = torch.randn(vs, d, generator=gen) * a.emb_std
    src_emb[pad] = 0  # nn.Embedding(padding_idx) starts the pad row at zero
    if a.separate:
        tgt_emb = torch.randn(vt, d, generator=gen) * a.emb_std
        tgt_emb[pad] = 0
        sd["model.encoder.embed_tokens.weight"] = src_emb
        sd["model.decoder.embed_tokens.weight"] = tgt_emb
    else:
        sd["model.shared.weight"] = src_emb
    for side in ("encoder", "decoder"):
        F, L = (a.ffn, a.layers) if side == "encoder" else (a.dec_ffn, a.dec_layers)
        for l in range(L):
            p = f"model.{side}.layers.{l}"
            blocks = ["self_attn"] + (["encoder_attn"] if side == "decoder" else [])
            last = side == "decoder" and l == L - 1
            mc.layer_weights(sd, p, blocks, d, F, lin, ln,
                             lambda blk, proj: GAIN["qkv"] if proj != "out_proj" else
                             GAIN["self_out" if blk == "self_attn" else "cross_out"],
                             GAIN["ffn_out"], GAIN["last_gain"] if last else 1.0)
    bias = torch.zeros(1, vt)
    if a.bias:
        bias = 0.5 * torch.randn(1, vt, generator=gen)
    bias[0, eos] += a.eos_bias
    for i in a.real_ids:
        bias[0, i] += a.real_bias
    sd["final_logits_bias"] = bias
    if a.untied:
        sd["lm_head.weight"] = torch.randn(vt, d, generator=gen) * a.emb_std
    return sd


def center(config, sd, vs, vt, gen, passes=2, B=16):
    """Subtract from the bias of every sub-layer output (out_proj, fc2) its mean over a random
    batch: activations have a large common component that otherwise drowns the input."""
    import marian_reference as R
    m = R.Marian(None, config, sd, {})
    S, T = 12, 12
    src = torch.randint(3, vs - 1, (B, S), generator=gen).tolist()
    tgt = torch.randint(3, vt - 1, (B, T), generator=gen)
    tgt[:, 0] = m.start
    mc.center_biases(m, sd, src, tgt, passes)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    mc.add_shape_args(ap, ["swish", "gelu", "relu"], "swish", GAIN)
    ap.add_argument("--untied", action="store_true", help="tie_word_embeddings false, lm_head")
    ap.add_argument("--bias", action="store_true", help="non-zero final_logits_bias")
    ap.add_argument("--multilingual", action="store_true", help=">>xx<< codes in vocab.json")
    ap.add_argument("--separate", action="store_true", help="separate vocabularies")
    ap.add_argument("--dtype", default="f32", choices=["f32", "f16"])
    ap.add_argument("--spm-vocab", type=int, default=300)
    ap.add_argument("--vocab-size", type=int, default=0)
    ap.add_argument("--max-length", type=int, default=40)
    ap.add_argument("--max-positions", type=int, default=512)
    ap.add_argument("--num-beams", type=int, default=4)
    ap.add_argument("--early-stopping", default=None, choices=["true", "false", "never"])
    ap.add_argument("--eos-bias", type=float, default=12.0)
    ap.add_argument("--emb-std", type=float, default=0.2)
    ap.add_argument("--real-bias", type=float, default=0.0,
                    help="added to final_logits_bias on the ids of real pieces (not the "
                         "<extra_N> fillers of --vocab-size), so that the decoder emits them")
    ap.add_argument("--spread", action="store_true",
                    help="with --vocab-size: the pieces spread over the ids, fillers between")
    ap.add_argument("--center-batch", type=int, default=16,
                    help="random sentences centering averages over (fewer: faster)")
    a = ap.parse_args(argv)
    mc.finish_args(ap, a, GAIN)

    os.makedirs(a.outdir, exist_ok=True)
    data = os.path.join(TOP, "tests", "data", "multi30k")
    with tempfile.TemporaryDirectory() as tmp:
        for side, lang in (("source", "en"), ("target", "de")):
            train_spm(os.path.join(data, f"val.{lang}"), os.path.join(tmp, side), a.spm_vocab)
            shutil.copy(os.path.join(tmp, side + ".model"), os.path.join(a.outdir, side + ".spm"))
    src_pieces = spm_pieces(os.path.join(a.outdir, "source.spm"))
    tgt_pieces = spm_pieces(os.path.join(a.outdir, "target.spm"))
    vocab, tvocab = build_vocabs(src_pieces, tgt_pieces, a)
    vs = len(vocab)
    vt = len(tvocab) if tvocab else vs
    pad, eos = vocab["<pad>"], vocab["</s>"]
    a.real_ids = [i for p, i in (tvocab or vocab).items()
                  if not p.startswith("<extra_") and p not in ("</s>", "<unk>", "<pad>")]

    # written as the hub's are, without the newline at the end the other side files have
    with open(os.path.join(a.outdir, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, indent=2, ensure_ascii=False)
    if tvocab:
        with open(os.path.join(a.outdir, "target_vocab.json"), "w", encoding="utf-8") as f:
            json.dump(tvocab, f, indent=2, ensure_ascii=False)

    config = {
        "_name_or_path": "random-opus-mt",
        "activation_dropout": 0.0,
        "activation_function": a.act,
        "architectures": ["MarianMTModel"],
        "attention_dropout": 0.0,
        "bad_words_ids": [[pad]],
        "bos_token_id": 0,
        "classifier_dropout": 0.0,
        "d_model": a.d,
        "decoder_attention_heads": a.dec_heads,
        "decoder_ffn_dim": a.dec_ffn,
        "decoder_layerdrop": 0.0,
        "decoder_layers": a.dec_layers,
        "decoder_start_token_id": pad,
        "decoder_vocab_size": vt,
        "dropout": 0.1,
        "encoder_attention_heads": a.heads,
        "encoder_ffn_dim": a.ffn,
        "encoder_layerdrop": 0.0,
        "encoder_layers": a.layers,
        "eos_token_id": eos,
        "forced_eos_token_id": eos,
        "init_std": 0.02,
        "is_encoder_decoder": True,
        "max_length": a.max_length,
        "max_position_embeddings": a.max_positions,
        "model_type": "marian",
        "normalize_embedding": False,
        "num_beams": a.num_beams,
        "num_hidden_layers": a.layers,
        "pad_token_id": pad,
        "scale_embedding": True,
        "share_encoder_decoder_embeddings": not a.separate,
        "static_position_embeddings": True,
        "tie_word_embeddings": not a.untied,
        "torch_dtype": "float16" if a.dtype == "f16" else "float32",
        "transformers_version": "4.40.0",
        "use_cache": True,
        "vocab_size": vs,
    }
    gen_config = {
        "bad_words_ids": [[pad]],
        "bos_token_id": 0,
        "decoder_start_token_id": pad,
        "eos_token_id": eos,
        "forced_eos_token_id": eos,
        "max_length": a.max_length,
        "num_beams": a.num_beams,
        "pad_token_id": pad,
        "transformers_version": "4.40.0",
    }
    if a.early_stopping:
        gen_config["early_stopping"] = {"true": True, "false": False}.get(a.early_stopping,
                                                                          "never")
    tok_config = {
        "eos_token": "</s>", "model_max_length": 512, "pad_token": "<pad>",
        "separate_vocabs": bool(a.separate), "source_lang": "en",
        "sp_model_kwargs": {}, "target_lang": "mul" if a.multilingual else "de",
        "tokenizer_class": "MarianTokenizer", "unk_token": "<unk>",
    }
    for name, obj in (("config.json", config), ("generation_config.json", gen_config),
                      ("tokenizer_config.json", tok_config)):
        mc.write_json(a.outdir, name, obj, sort_keys=True)

    gen = torch.Generator().manual_seed(a.seed)
    sd = weights(a, vs, vt, pad, eos, gen)
    if not a.no_center:
        center(config, sd, vs, vt, gen, B=a.center_batch)
    write_safetensors(os.path.join(a.outdir, "model.safetensors"),
                      [(k, tensor_bytes(v, a.dtype)) for k, v in sd.items()],
                      {"format": "pt"})
    n = sum(v.numel() for k, v in sd.items() if k != "final_logits_bias")
    print(f"{a.outdir}: vocab {vs}/{vt}, {n} parameters, {a.dtype}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
