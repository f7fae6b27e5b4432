#!/usr/bin/env python3
"""make_m2m100.py — a random M2M100 / NLLB-200 model in the exact Hugging Face hub layout
(facebook/nllb-200-*, facebook/m2m100_*), for tests and benchmarks (never committed: the test
or the bench makes it in a temporary directory). The peer of tools/make_marian.py.

    make_m2m100.py OUTDIR [--flavor nllb|m2m100] [--d 32 --layers 2 --heads 4 --ffn 64]
                   [--dec-layers N --dec-heads N --dec-ffn N] [--act relu|gelu]
                   [--dtype f32|f16] [--format safetensors|bin|both] [--spm-vocab 300]
                   [--vocab-size N] [--max-length 40] [--num-beams 4] [--legacy] [--seed 1]

Writes what a hub directory holds:
  config.json             as M2M100Config.to_json_file writes it (model_type "m2m_100",
                          d_model, encoder/decoder sizes, activation_function, scale_embedding
                          true, pad 1, bos 0, eos 2, decoder_start 2, max_position_embeddings,
                          vocab_size, tie_word_embeddings)
  generation_config.json  bos/eos/pad/decoder_start ids, max_length, num_beams
  model.safetensors       the state dict of M2M100ForConditionalGeneration (model.shared.weight,
  and/or pytorch_model.bin  model.encoder.layers.N.self_attn.q_proj.weight, ...,
                          model.encoder.layer_norm, model.decoder.layer_norm); the .bin as
                          transformers saves it: torch.save of a dict where
                          model.encoder.embed_tokens.weight, model.decoder.embed_tokens.weight
                          and lm_head.weight are model.shared.weight (one storage)
  sentencepiece.bpe.model a BPE SentencePiece model trained by spm_train on the Multi30k
                          validation sets (English and German), <unk> 0, <s> 1, </s> 2
  NLLB (tokenization_nllb.py): ids <s> 0, <pad> 1, </s> 2, <unk> 3, spm id i >= 3 at i + 1
                          (fairseq_offset), the 202 FAIRSEQ_LANGUAGE_CODES at sp_size + 1 + k,
                          <mask> after them; tokenizer_config.json (NllbTokenizer, src_lang
                          eng_Latn, legacy_behaviour with --legacy), special_tokens_map.json
                          (additional_special_tokens: the codes)
  M2M100 (tokenization_m2m_100.py): vocab.json {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3,
                          then the pieces}, language tokens "__xx__" at len(vocab.json) + k,
                          8 "madeupwordN" after them; tokenizer_config.json (M2M100Tokenizer,
                          src_lang en), special_tokens_map.json
--vocab-size pads config.json's vocab_size (the embedding rows) past the tokenizer's ids, as
the hub's NLLB models do (256,206 rows for 256,204 ids).

Weights are drawn so that a greedy translation depends on its input and ends at varied
lengths: embeddings N(0, emb_std), linears N(0, gain^2 / fan_in), LayerNorm gains 1 + N(0, 0.3),
biases N(0, 0.2); the eos row of the (tied) embedding scaled by --eos-scale.
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

import torch

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
from convert import tensor_bytes, write_safetensors  # noqa: E402
import make_common as mc  # noqa: E402

# tokenization_nllb.py FAIRSEQ_LANGUAGE_CODES (transformers v4.40), in order
NLLB_CODES = (
    "ace_Arab ace_Latn acm_Arab acq_Arab aeb_Arab afr_Latn ajp_Arab aka_Latn amh_Ethi apc_Arab "
    "arb_Arab ars_Arab ary_Arab arz_Arab asm_Beng ast_Latn awa_Deva ayr_Latn azb_Arab azj_Latn "
    "bak_Cyrl bam_Latn ban_Latn bel_Cyrl bem_Latn ben_Beng bho_Deva bjn_Arab bjn_Latn bod_Tibt "
    "bos_Latn bug_Latn bul_Cyrl cat_Latn ceb_Latn ces_Latn cjk_Latn ckb_Arab crh_Latn cym_Latn "
    "dan_Latn deu_Latn dik_Latn dyu_Latn dzo_Tibt ell_Grek eng_Latn epo_Latn est_Latn eus_Latn "
    "ewe_Latn fao_Latn pes_Arab fij_Latn fin_Latn fon_Latn fra_Latn fur_Latn fuv_Latn gla_Latn "
    "gle_Latn glg_Latn grn_Latn guj_Gujr hat_Latn hau_Latn heb_Hebr hin_Deva hne_Deva hrv_Latn "
    "hun_Latn hye_Armn ibo_Latn ilo_Latn ind_Latn isl_Latn ita_Latn jav_Latn jpn_Jpan kab_Latn "
    "kac_Latn kam_Latn kan_Knda kas_Arab kas_Deva kat_Geor knc_Arab knc_Latn kaz_Cyrl kbp_Latn "
    "kea_Latn khm_Khmr kik_Latn kin_Latn kir_Cyrl kmb_Latn kon_Latn kor_Hang kmr_Latn lao_Laoo "
    "lvs_Latn lij_Latn lim_Latn lin_Latn lit_Latn lmo_Latn ltg_Latn ltz_Latn lua_Latn lug_Latn "
    "luo_Latn lus_Latn mag_Deva mai_Deva mal_Mlym mar_Deva min_Latn mkd_Cyrl plt_Latn mlt_Latn "
    "mni_Beng khk_Cyrl mos_Latn mri_Latn zsm_Latn mya_Mymr nld_Latn nno_Latn nob_Latn npi_Deva "
    "nso_Latn nus_Latn nya_Latn oci_Latn gaz_Latn ory_Orya pag_Latn pan_Guru pap_Latn pol_Latn "
    "por_Latn prs_Arab pbt_Arab quy_Latn ron_Latn run_Latn rus_Cyrl sag_Latn san_Deva sat_Beng "
    "scn_Latn shn_Mymr sin_Sinh slk_Latn slv_Latn smo_Latn sna_Latn snd_Arab som_Latn sot_Latn "
    "spa_Latn als_Latn srd_Latn srp_Cyrl ssw_Latn sun_Latn swe_Latn swh_Latn szl_Latn tam_Taml "
    "tat_Cyrl tel_Telu tgk_Cyrl tgl_Latn tha_Thai tir_Ethi taq_Latn taq_Tfng tpi_Latn tsn_Latn "
    "tso_Latn tuk_Latn tum_Latn tur_Latn twi_Latn tzm_Tfng uig_Arab ukr_Cyrl umb_Latn urd_Arab "
    "uzn_Latn vec_Latn vie_Latn war_Latn wol_Latn xho_Latn ydd_Hebr yor_Latn yue_Hant zho_Hans "
    "zho_Hant zul_Latn").split()
# tokenization_m2m_100.py FAIRSEQ_LANGUAGE_CODES["m2m100"] (transformers v4.40), in order
M2M_CODES = (
    "af am ar ast az ba be bg bn br bs ca ceb cs cy da de el en es et fa ff fi fr fy ga gd gl gu "
    "ha he hi hr ht hu hy id ig ilo is it ja jv ka kk km kn ko lb lg ln lo lt lv mg mk ml mn mr "
    "ms my ne nl no ns oc or pa pl ps pt ro ru sd si sk sl so sq sr ss su sv sw ta th tl tn tr uk "
    "ur uz vi wo xh yi yo zh zu").split()

GAIN = dict(qkv=2.0, out=3.0, ffn_out=8.0)


def train_spm(inputs, prefix, vocab):
    """spm_train BPE (as the hub's sentencepiece.bpe.model: <unk> 0, <s> 1, </s> 2)."""
    subprocess.run(["spm_train", "--input=" + ",".join(inputs), f"--model_prefix={prefix}",
                    f"--vocab_size={vocab}", "--model_type=bpe", "--character_coverage=1.0",
                    "--minloglevel=2", "--hard_vocab_limit=false"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def weights(a, V, pad, eos, gen):
    d = a.d
    lin, ln = mc.random_init(gen, d)  # ln's gain 1.0 * (1 + N): the same bits as without it
    sd = collections.OrderedDict()
    emb = torch.randn(V, d, generator=gen) * a.emb_std
    emb[pad] = 0  # nn.Embedding(padding_idx) starts the pad row at zero
    emb[eos] *= a.eos_scale
    sd["model.shared.weight"] = emb
    for side in ("encoder", "decoder"):
        F, L = (a.ffn, a.layers) if side == "encoder" else (a.dec_ffn, a.dec_layers)
        for l in range(L):
            p = f"model.{side}.layers.{l}"
            blocks = ["self_attn"] + (["encoder_attn"] if side == "decoder" else [])
            mc.layer_weights(sd, p, blocks, d, F, lin, ln,
                             lambda blk, proj: GAIN["qkv"] if proj != "out_proj" else GAIN["out"],
                             GAIN["ffn_out"])
        g, b = ln()
        sd[f"model.{side}.layer_norm.weight"], sd[f"model.{side}.layer_norm.bias"] = g, b
    return sd


def center(config, sd, V, gen, passes=2, B=8):
    """Subtract from the bias of every sub-layer output (out_proj, fc2) its mean over a random
    batch (as tools/make_marian.py does): the common component of random activations otherwise
    makes every position predict the same token."""
    import m2m100_reference as R
    m = R.M2M100(None, config, sd, {})
    src = torch.randint(4, V - 1, (B, 10), generator=gen).tolist()
    tgt = torch.randint(4, V - 1, (B, 10), generator=gen)
    tgt[:, 0] = m.start
    mc.center_biases(m, sd, src, tgt, passes)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    mc.add_shape_args(ap, ["relu", "gelu"], "relu", GAIN)
    ap.add_argument("--flavor", default="nllb", choices=["nllb", "m2m100"])
    ap.add_argument("--dtype", default="f32", choices=["f32", "f16"])
    ap.add_argument("--format", default="safetensors", choices=["safetensors", "bin", "both"])
    ap.add_argument("--spm-vocab", type=int, default=300)
    ap.add_argument("--vocab-size", type=int, default=0)
    ap.add_argument("--max-length", type=int, default=40)
    ap.add_argument("--max-positions", type=int, default=1024)
    ap.add_argument("--num-beams", type=int, default=4)
    ap.add_argument("--legacy", action="store_true", help="NLLB legacy_behaviour")
    ap.add_argument("--emb-std", type=float, default=0.1)
    ap.add_argument("--eos-scale", type=float, default=3.0)
    a = ap.parse_args(argv)
    mc.finish_args(ap, a, GAIN)
    os.makedirs(a.outdir, exist_ok=True)
    data = os.path.join(TOP, "tests", "data", "multi30k")
    with tempfile.TemporaryDirectory() as tmp:
        train_spm([os.path.join(data, "val.en"), os.path.join(data, "val.de")],
                  os.path.join(tmp, "spm"), a.spm_vocab)
        shutil.copy(os.path.join(tmp, "spm.model"),
                    os.path.join(a.outdir, "sentencepiece.bpe.model"))
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=os.path.join(a.outdir, "sentencepiece.bpe.model"))
    n_sp = sp.get_piece_size()
    pad, eos = 1, 2
    files = {}
    if a.flavor == "nllb":
        codes = NLLB_CODES
        n_ids = n_sp + 1 + len(codes) + 1  # the pieces with the offset, the codes, <mask>
        files["tokenizer_config.json"] = {
            "additional_special_tokens": codes, "bos_token": "<s>", "cls_token": "<s>",
            "eos_token": "</s>", "legacy_behaviour": a.legacy, "mask_token": "<mask>",
            "model_max_length": 1024, "pad_token": "<pad>", "sep_token": "</s>",
            "sp_model_kwargs": {}, "src_lang": "eng_Latn", "tgt_lang": None,
            "tokenizer_class": "NllbTokenizer", "unk_token": "<unk>"}
        files["special_tokens_map.json"] = {
            "additional_special_tokens": codes, "bos_token": "<s>", "cls_token": "<s>",
            "eos_token": "</s>", "mask_token": "<mask>", "pad_token": "<pad>",
            "sep_token": "</s>", "unk_token": "<unk>"}
    else:
        codes = M2M_CODES
        vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3}
        for i in range(n_sp):
            if not (sp.is_control(i) or sp.is_unknown(i)) and sp.id_to_piece(i) not in vocab:
                vocab[sp.id_to_piece(i)] = len(vocab)
        files["vocab.json"] = vocab
        n_ids = len(vocab) + len(codes) + 8  # the __xx__ tokens, madeupword0..7
        lang_tokens = [f"__{c}__" for c in codes]
        files["tokenizer_config.json"] = {
            "additional_special_tokens": lang_tokens, "bos_token": "<s>", "eos_token": "</s>",
            "language_codes": "m2m100", "model_max_length": 1024, "num_madeup_words": 8,
            "pad_token": "<pad>", "sep_token": "</s>", "sp_model_kwargs": {},
            "src_lang": "en", "tgt_lang": None, "tokenizer_class": "M2M100Tokenizer",
            "unk_token": "<unk>"}
        files["special_tokens_map.json"] = {
            "additional_special_tokens": lang_tokens, "bos_token": "<s>", "eos_token": "</s>",
            "pad_token": "<pad>", "sep_token": "</s>", "unk_token": "<unk>"}
    V = max(a.vocab_size, n_ids)
    files["config.json"] = {
        "_name_or_path": "random-" + a.flavor, "activation_dropout": 0.0,
        "activation_function": a.act, "architectures": ["M2M100ForConditionalGeneration"],
        "attention_dropout": 0.1, "bos_token_id": 0, "d_model": a.d,
        "decoder_attention_heads": a.dec_heads, "decoder_ffn_dim": a.dec_ffn,
        "decoder_layerdrop": 0, "decoder_layers": a.dec_layers, "decoder_start_token_id": eos,
        "dropout": 0.1, "encoder_attention_heads": a.heads, "encoder_ffn_dim": a.ffn,
        "encoder_layerdrop": 0, "encoder_layers": a.layers, "eos_token_id": eos,
        "init_std": 0.02, "is_encoder_decoder": True, "max_length": a.max_length,
        "max_position_embeddings": a.max_positions, "model_type": "m2m_100",
        "num_hidden_layers": a.layers, "pad_token_id": pad, "scale_embedding": True,
        "tokenizer_class": "NllbTokenizer" if a.flavor == "nllb" else "M2M100Tokenizer",
        "torch_dtype": "float16" if a.dtype == "f16" else "float32",
        "transformers_version": "4.40.0", "use_cache": True, "vocab_size": V}
    files["generation_config.json"] = {
        "bos_token_id": 0, "decoder_start_token_id": eos, "eos_token_id": eos,
        "max_length": a.max_length, "num_beams": a.num_beams, "pad_token_id": pad,
        "transformers_version": "4.40.0"}
    for name, obj in files.items():
        mc.write_json(a.outdir, name, obj, ensure_ascii=False)
    gen = torch.Generator().manual_seed(a.seed)
    sd = weights(a, V, pad, eos, gen)
    if not a.no_center:
        center(files["config.json"], sd, V, gen)
    if a.format in ("safetensors", "both"):
        write_safetensors(os.path.join(a.outdir, "model.safetensors"),
                          [(k, tensor_bytes(v, a.dtype)) for k, v in sd.items()],
                          {"format": "pt"})
    if a.format in ("bin", "both"):
        bd = collections.OrderedDict(
            (k, v.half() if a.dtype == "f16" else v.clone()) for k, v in sd.items())
        for k in ("model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight",
                  "lm_head.weight"):
            bd[k] = bd["model.shared.weight"]
        torch.save(bd, os.path.join(a.outdir, "pytorch_model.bin"))
    n = sum(v.numel() for v in sd.values())
    print(f"{a.outdir}: {a.flavor}, vocab {V} ({n_sp} pieces, {len(codes)} languages), "
          f"{n} parameters, {a.dtype}, {a.format}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
