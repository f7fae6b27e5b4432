#!/usr/bin/env python3
"""marian_reference.py — the PyTorch oracle for Hugging Face MarianMT (OPUS-MT) directories:
this project's own implementation of what `MarianTokenizer` + `MarianMTModel.generate()` do,
written from transformers' source (no transformers package is installed here).

Followed: transformers v4.40 semantics, read at these stored commits of huggingface/transformers:
  models/marian/modeling_marian.py 00b676f8 (MarianSinusoidalPositionalEmbedding, MarianAttention,
    MarianEncoderLayer/DecoderLayer, MarianModel, MarianMTModel.tie_weights and forward),
  models/marian/configuration_marian.py (defaults: vocab_size 58101, decoder_vocab_size =
    vocab_size, activation "gelu", scale_embedding false, pad 58100, eos 0, forced_eos 0,
    share_encoder_decoder_embeddings true, tie_word_embeddings true),
  models/marian/tokenization_marian.py (the v4.40 form: language_code_re ">>.+<<", pieces not in
    vocab.json -> <unk>, decoding with the target spm),
  generation/beam_search.py + logits_process.py of v4.40 (BeamSearchScorer.process with
    cur_len = input_ids.shape[-1] + 1 and generated_len = cur_len - decoder_prompt_len,
    BeamHypotheses.add/is_done, NoBadWordsLogitsProcessor, ForcedEOSTokenLogitsProcessor).

The model:
  - source ids = vocab.json ids of source.spm's pieces, then eos; no bos;
  - embeddings * sqrt(d_model) when scale_embedding, + sinusoidal positions from 0: a float64
    table pos / 10000^(2*(j//2)/d), sin of the even columns in the first half, cos of the odd
    ones in the second half, rounded to f32;
  - post-norm layers (x = LN(x + f(x))), LayerNorm eps 1e-5, no final LayerNorm, no embedding
    LayerNorm; attention q scaled by head_dim^-0.5; activation swish (SiLU) / gelu (erf) / relu;
  - logits = decoder output x lm_head^T + final_logits_bias; lm_head is the decoder embedding
    (the shared one, or model.decoder.embed_tokens) when tie_word_embeddings, else lm_head.weight;
  - decoding starts from decoder_start_token_id (= pad).
Generation (generate()):
  - greedy: processors on the raw logits, argmax (first of equals);
  - beam: log_softmax of the logits, THEN the processors (no renormalization), + beam score;
    the 2K best of K x V (K = num_beams); eos candidates ranked below K are dropped, the others
    become finished hypotheses scored sum_logprobs / generated_len^length_penalty, generated_len
    counting eos and not the start token; a sentence's hypotheses keep the K best; done per
    early_stopping (true: K finished; false: the worst kept >= best candidate / cur_len^lp;
    "never": with lp > 0 the bound uses max_length); at max_length the open beams are added;
  - processors (tools/processors_reference.py, in _get_logits_processor's order): repetition
    penalty, no-repeat n-gram, bad_words_ids (single-token entries banned everywhere, longer
    ones after their prefix), forced bos, forced eos at the last position (every other token
    -inf, eos 0), suppress_tokens, begin_suppress_tokens; xlate's options in self.opts;
  - max_length counts the start token (HF's): at most max_length - 1 generated tokens.
Decoding text (Tokenizer.decode, each rule beside the transformers line it follows): ids ->
vocab pieces, special ids (vocab.json's eos, unk, pad) skipped, target.spm's decode_pieces
between special tokens' texts, U+2581 -> space, strip, then clean_up_tokenization (" ." -> "."
...) unless tokenizer_config.json sets clean_up_tokenization_spaces false.

Usage: marian_reference.py DIR [--beam K] [--max-length N] [--target-lang xx] [--ids] < text
"""
import argparse
import json
import math
import os
import re
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_model import read_safetensors  # noqa: E402,F401  (F16/BF16 widened exactly)
import processors_reference as P  # noqa: E402

torch.set_num_threads(1)

LANG_CODE = re.compile(">>.+<<")
# all_special_tokens of a MarianTokenizer (unk_token, eos_token, pad_token of its __init__)
SPECIAL = ("</s>", "<unk>", "<pad>")


# ----------------------------------------------------------------------------- files

def load_json(path, default=None):
    if not os.path.exists(path):
        return default
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class Tokenizer:
    """MarianTokenizer (v4.40) over sentencepiece + vocab.json."""

    def __init__(self, d):
        import sentencepiece as spm
        self.dir = d
        self.src = spm.SentencePieceProcessor(model_file=os.path.join(d, "source.spm"))
        self.tgt = spm.SentencePieceProcessor(model_file=os.path.join(d, "target.spm"))
        tc = load_json(os.path.join(d, "tokenizer_config.json"), {})
        self.encoder = load_json(os.path.join(d, "vocab.json"))
        tv = os.path.join(d, "target_vocab.json")
        # tokenization_marian.py __init__: "if separate_vocabs: self.target_encoder =
        # load_json(target_vocab_file)" (a missing file raises); otherwise target_vocab.json,
        # even when present, is never read ("self.decoder = {v: k for k, v in
        # self.encoder.items()}")
        if tc.get("separate_vocabs", False):
            with open(tv, encoding="utf-8") as f:
                self.target_encoder = json.load(f)
        else:
            self.target_encoder = self.encoder
        self.decoder = {v: k for k, v in self.target_encoder.items()}
        self.unk = self.encoder["<unk>"]
        self.eos = self.encoder["</s>"]
        self.pad = self.encoder["<pad>"]
        self.cleanup = tc.get("clean_up_tokenization_spaces", True)
        self.codes = [k for k in self.encoder if k.startswith(">>") and k.endswith("<<")]

    def pieces(self, text):
        m = LANG_CODE.match(text)
        code = [m.group(0)] if m else []
        return code + self.src.encode(LANG_CODE.sub("", text), out_type=str)

    def encode(self, text):
        """Source ids without the eos."""
        return [self.encoder.get(p, self.unk) for p in self.pieces(text)]

    def decode(self, ids):
        """tokenizer.decode(ids, skip_special_tokens=True) of transformers v4.40, rule by rule."""
        # tokenization_utils.py PreTrainedTokenizer.convert_ids_to_tokens:
        #   "if skip_special_tokens and index in self.all_special_ids: continue"; all_special_ids
        #   are the ids _add_tokens took from get_vocab(), which tokenization_marian.py makes
        #   get_src_vocab() = vocab.json (not target_vocab.json)
        special_ids = {self.encoder[t] for t in SPECIAL if t in self.encoder}
        # tokenization_marian.py _convert_id_to_token:
        #   "return self.decoder.get(index, self.unk_token)"
        toks = [self.decoder.get(i, "<unk>") for i in ids if i not in special_ids]
        # tokenization_marian.py convert_tokens_to_string (sp_model = self.spm_target, since
        # _decode pops use_source_tokenizer with default False):
        #   "if token in self.all_special_tokens:
        #        out_string += sp_model.decode_pieces(current_sub_tokens) + token + " ""
        out, cur = "", []
        for t in toks:
            if t in SPECIAL:
                out += self.tgt.decode_pieces(cur) + t + " "
                cur = []
            else:
                cur.append(t)
        #   "out_string += sp_model.decode_pieces(current_sub_tokens)"
        out += self.tgt.decode_pieces(cur)
        #   "out_string = out_string.replace(SPIECE_UNDERLINE, " ")" (PR #26091, v4.34)
        #   "return out_string.strip()"
        s = out.replace("\u2581", " ").strip()
        # tokenization_utils.py _decode: "if clean_up_tokenization_spaces: clean_text =
        #   self.clean_up_tokenization(text)", the default from tokenizer_config.json's
        #   clean_up_tokenization_spaces (tokenization_utils_base.py: True when absent in v4.40);
        # tokenization_utils_base.py clean_up_tokenization: these replacements in this order
        if self.cleanup:
            for a, b in ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"),
                         (" n't", "n't"), (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"),
                         (" 're", "'re")):
                s = s.replace(a, b)
        return s


# ----------------------------------------------------------------------------- model

def sinusoids(n_pos, dim):
    enc = np.array([[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)]
                    for pos in range(n_pos)])
    out = torch.empty(n_pos, dim, dtype=torch.float32)
    half = dim // 2 if dim % 2 == 0 else dim // 2 + 1
    out[:, :half] = torch.FloatTensor(np.sin(enc[:, 0::2]))
    out[:, half:] = torch.FloatTensor(np.cos(enc[:, 1::2]))
    return out


class Marian:
    def __init__(self, d, config=None, weights=None, gen_config=None):
        """From directory d, or from a config dict and {name: f32 tensor} (tools/make_marian)."""
        self.dir = d
        c = self.config = config if config is not None else load_json(
            os.path.join(d, "config.json"))
        if c.get("model_type") != "marian":
            raise ValueError(f"{d}: model_type {c.get('model_type')!r}, expected 'marian'")
        self.d = c.get("d_model", 1024)
        self.heads = c.get("encoder_attention_heads", 16)
        self.dec_heads = c.get("decoder_attention_heads", 16)
        self.act = {"swish": torch.nn.functional.silu, "silu": torch.nn.functional.silu,
                    "gelu": torch.nn.functional.gelu,
                    "relu": torch.relu}[c.get("activation_function", "gelu")]
        self.scale = math.sqrt(self.d) if c.get("scale_embedding", False) else 1.0
        self.pad = c.get("pad_token_id", 58100)
        self.eos = c.get("eos_token_id", 0)
        self.start = c.get("decoder_start_token_id", self.pad)
        self.enc_layers = c.get("encoder_layers", 12)
        self.dec_layers = c.get("decoder_layers", 12)
        w = weights if weights is not None else read_safetensors(
            os.path.join(d, "model.safetensors"))
        shared = c.get("share_encoder_decoder_embeddings", True)
        if shared:
            e = w.get("model.shared.weight", w.get("model.encoder.embed_tokens.weight"))
            self.src_emb = self.tgt_emb = e
        else:
            self.src_emb = w["model.encoder.embed_tokens.weight"]
            self.tgt_emb = w["model.decoder.embed_tokens.weight"]
        self.lm_head = self.tgt_emb if c.get("tie_word_embeddings", True) else w["lm_head.weight"]
        self.bias = w.get("final_logits_bias", torch.zeros(1, self.lm_head.shape[0]))
        self.w = w
        self.pos = sinusoids(c.get("max_position_embeddings", 1024), self.d)
        g = gen_config if d is None else load_json(os.path.join(d, "generation_config.json"))
        src = g if g is not None else c
        self.gen = {
            "num_beams": src.get("num_beams", 1),
            # generation/utils.py _prepare_generated_length: "if generation_config.max_new_tokens
            # is not None: ... generation_config.max_length = generation_config.max_new_tokens +
            # input_ids_length" (the decoder prompt: the start token)
            "max_length": (src["max_new_tokens"] + 1 if src.get("max_new_tokens") is not None
                           else src.get("max_length", 20)),
            # generation/utils.py _get_logits_processor: "if generation_config.renormalize_logits
            # is True: processors.append(LogitNormalization())", the last processor
            "renormalize_logits": src.get("renormalize_logits", False),
            "length_penalty": src.get("length_penalty", 1.0),
            "early_stopping": src.get("early_stopping", False),
            "bad_words_ids": src.get("bad_words_ids") or [],
            "forced_eos_token_id": src.get("forced_eos_token_id"),
            # the processors' fields (tools/processors_reference.py), GenerationConfig's
            # defaults where absent
            "repetition_penalty": src.get("repetition_penalty") or 1.0,
            "no_repeat_ngram_size": src.get("no_repeat_ngram_size") or 0,
            "forced_bos_token_id": src.get("forced_bos_token_id"),
            "suppress_tokens": src.get("suppress_tokens") or [],
            "begin_suppress_tokens": src.get("begin_suppress_tokens") or [],
        }
        # xlate's options over the model's (--repetition-penalty...: processors_reference keys)
        self.opts = {}

    def lin(self, x, name):
        y = torch.nn.functional.linear(x, self.w[name + ".weight"], self.w[name + ".bias"])
        if getattr(self, "watch", None) == name:
            self.seen.append(y)
        return y

    def ln(self, x, name):
        return torch.nn.functional.layer_norm(x, (self.d,), self.w[name + ".weight"],
                                              self.w[name + ".bias"], 1e-5)

    def attn(self, x, mem, name, heads, causal):
        B, T, d = x.shape
        S = mem.shape[1]
        dh = d // heads
        q = (self.lin(x, name + ".q_proj") * dh ** -0.5).view(B, T, heads, dh).transpose(1, 2)
        kv = getattr(self, "kv", None)
        if kv is not None and not causal and name in kv["past"]:
            # a step's cross-attention (MarianAttention.forward, is_cross_attention with
            # past_key_value: "key_states = past_key_value[0]; value_states =
            # past_key_value[1]", the encoder's keys and values computed at the first step)
            k, v = kv["past"][name]
        else:
            k = self.lin(mem, name + ".k_proj").view(B, S, heads, dh).transpose(1, 2)
            v = self.lin(mem, name + ".v_proj").view(B, S, heads, dh).transpose(1, 2)
        if kv is not None:
            if causal and name in kv["past"]:
                # a step's self-attention (MarianAttention.forward with past_key_value:
                # "key_states = torch.cat([past_key_value[0], key_states], dim=2)", the same
                # for the values): the one new position attends to every earlier one
                pk, pv = kv["past"][name]
                k, v = torch.cat([pk, k], 2), torch.cat([pv, v], 2)
            kv["new"][name] = (k, v)
            causal = False  # one query, the last position: the causal mask's last row is open
        s = q @ k.transpose(2, 3)
        if causal:
            s = s.masked_fill(torch.ones(T, S, dtype=torch.bool).triu(1), float("-inf"))
        p = torch.softmax(s, -1)
        if getattr(self, "watch_attn", None) == name:  # cross_attention's: [B, T, S], head mean
            self.seen_attn.append(p.mean(1))
        o = (p @ v).transpose(1, 2).reshape(B, T, d)
        return self.lin(o, name + ".out_proj")

    def layer(self, x, p, mem=None):
        heads = self.heads if mem is None else self.dec_heads
        x = self.ln(x + self.attn(x, x, p + ".self_attn", heads, mem is not None),
                    p + ".self_attn_layer_norm")
        if mem is not None:
            x = self.ln(x + self.attn(x, mem, p + ".encoder_attn", heads, False),
                        p + ".encoder_attn_layer_norm")
        h = self.lin(self.act(self.lin(x, p + ".fc1")), p + ".fc2")
        return self.ln(x + h, p + ".final_layer_norm")

    @torch.no_grad()
    def encode(self, ids):
        """ids: source ids with the eos. [1, S, d]."""
        t = torch.tensor([ids])
        x = self.src_emb[t] * self.scale + self.pos[: len(ids)]
        for l in range(self.enc_layers):
            x = self.layer(x, f"model.encoder.layers.{l}")
        return x

    @torch.no_grad()
    def logits(self, mem, prefixes):
        """Logits [B, V] of the next token after each prefix (all of one length, start first)."""
        t = torch.tensor(prefixes)
        x = self.tgt_emb[t] * self.scale + self.pos[: t.shape[1]]
        m = mem.expand(t.shape[0], -1, -1)
        for l in range(self.dec_layers):
            x = self.layer(x, f"model.decoder.layers.{l}", m)
        return torch.nn.functional.linear(x[:, -1], self.lm_head) + self.bias[0]

    def dec_embed(self, tokens, pos):
        """The decoder input of tokens [B] at position pos: [B, 1, d]."""
        return (self.tgt_emb[tokens] * self.scale + self.pos[pos])[:, None, :]

    def dec_out(self, x):
        """The decoder stack's output of x (Marian: no final LayerNorm)."""
        return x

    @torch.no_grad()
    def step(self, mem, tokens, cache):
        """One decoder step with a KV cache, as generate() runs it (use_cache: the decoder
        gets only the last token and past_key_values, MarianDecoder.forward's positions from
        past_key_values_length): row b feeds tokens[b] at position cache["pos"] (0 for
        cache None) over encoder output mem [1, S, d]. Returns (logits [B, V], the cache with
        this position added). Each layer's self-attention keeps its keys and values
        [B, heads, pos + 1, head_dim]; the cross-attention's are computed once."""
        pos = 0 if cache is None else cache["pos"]
        t = torch.tensor(tokens)
        x = self.dec_embed(t, pos)
        m = mem.expand(t.shape[0], -1, -1)
        self.kv = {"past": {} if cache is None else cache["kv"], "new": {}}
        try:
            for l in range(self.dec_layers):
                x = self.layer(x, f"model.decoder.layers.{l}", m)
            kv = self.kv["new"]
        finally:
            self.kv = None
        x = self.dec_out(x)
        return (torch.nn.functional.linear(x[:, -1], self.lm_head) + self.bias[0],
                {"pos": pos + 1, "kv": kv})

    # searches of one source may share their steps: memo[tuple(source)][tuple(row's tokens,
    # the start token first)] = (its logits before the processors, its one-row cache), kept
    # while memo is a dict (None: off)
    memo = None

    def rows_step(self, src, mem, seqs, caches):
        """step() of rows seqs (each a list of tokens, the start token first), each row with
        its own one-row cache (caches[b], None at the first position): the rows the memo does
        not know (and not already computed in this call) go through one step() together.
        Returns (logits [B, V], a copy the processors may change; the rows' new caches). Beam
        search hands a row's cache to its children: generate()'s _reorder_cache
        ("layer_past.index_select(0, beam_idx)") picks the same rows."""
        memo = self.memo.setdefault(tuple(src), {}) if self.memo is not None else {}
        keys = [tuple(x) for x in seqs]
        todo = [j for j, k in enumerate(keys) if k not in memo and k not in keys[:j]]
        if todo:
            first = caches[todo[0]]
            stacked = None if first is None else {"pos": first["pos"], "kv": {
                n: tuple(torch.cat([caches[j]["kv"][n][i] for j in todo]) for i in (0, 1))
                for n in first["kv"]}}
            lg, c = self.step(mem, [seqs[j][-1] for j in todo], stacked)
            for i, j in enumerate(todo):
                memo[keys[j]] = (lg[i], {"pos": c["pos"], "kv": {
                    n: (k[i: i + 1], v[i: i + 1]) for n, (k, v) in c["kv"].items()}})
        out = [memo[k] for k in keys]
        if self.memo is None:
            memo.clear()
        return torch.stack([o[0] for o in out]), [o[1] for o in out]

    def prime(self, src, mem, seq):
        """The one-row cache after feeding seq (the start token first) one step at a time;
        None for an empty seq."""
        cache = None
        for i in range(len(seq)):
            cache = self.rows_step(src, mem, [seq[: i + 1]], [cache])[1][0]
        return cache

    @torch.no_grad()
    def cross_attention(self, src, tgt_in, layer):
        """The cross-attention probabilities of decoder layer `layer`, averaged over its heads,
        with the decoder run teacher-forced on tgt_in (the start token first) over src (source
        ids WITHOUT the eos, appended here): [len(tgt_in), len(src) + 1], row t the attention
        of the step that chose target token t. As the weights HF's MarianAttention returns with
        output_attentions (softmax of the scaled q k^T), averaged over heads."""
        mem = self.encode(src + [self.eos])
        t = torch.tensor([tgt_in])
        x = self.tgt_emb[t] * self.scale + self.pos[: t.shape[1]]
        self.watch_attn, self.seen_attn = f"model.decoder.layers.{layer}.encoder_attn", []
        try:
            for l in range(self.dec_layers):
                x = self.layer(x, f"model.decoder.layers.{l}", mem)
        finally:
            self.watch_attn = None
        return self.seen_attn[0][0]

    # ------------------------------------------------------------------------- generation

    def process(self, prefixes, scores, max_length):
        """The logits processors of generate() for this model, in place on scores [B, V]
        (tools/processors_reference.py: transformers' order and rules), with pad never
        generated (xlate's rule, docs/MODELS.md "Differences on purpose") and self.opts over the
        generation config's values."""
        cfg = {k: self.gen[k] for k in ("bad_words_ids", "forced_eos_token_id",
                                        "repetition_penalty", "no_repeat_ngram_size",
                                        "forced_bos_token_id", "suppress_tokens",
                                        "begin_suppress_tokens")}
        cfg["pad"] = self.pad
        cfg.update(self.opts)
        return P.Processors(cfg, self.eos)(prefixes, scores, max_length)

    # tests/py/near_tie.py: a search given `favor` (another implementation's ids) and `tol`
    # breaks each decision towards favor's path where favor's candidate is within tol of the
    # search's own best, and records the size of every such swap in self.swaps (the gaps:
    # best minus favored processed score). With tol 0 (the default) nothing changes.
    favor, tol, swaps = None, 0.0, []

    def _favored(self, seq_after_start):
        """favor's next token after seq_after_start when seq is on favor's path (favor + eos,
        the eos implied at its end), else None."""
        f = self.favor
        if f is None or seq_after_start != f[: len(seq_after_start)]:
            return None
        n = len(seq_after_start)
        return f[n] if n < len(f) else (self.eos if n == len(f) else None)

    def greedy(self, src, max_length):
        mem = self.encode(src + [self.eos])
        seq = [self.start]
        caches = [None]
        while len(seq) < max_length:
            lg, caches = self.rows_step(src, mem, [seq], caches)
            lg = self.process([seq], lg, max_length)
            tok = int(torch.argmax(lg[0]))
            f = self._favored(seq[1:])
            if f is not None and f != tok:  # the margin recorded; a swap only within tol
                gap = float(lg[0][tok] - lg[0][f])
                self.swaps.append(gap)
                if gap <= self.tol:
                    tok = f
            seq.append(tok)
            if tok == self.eos:
                break
        return seq[1:]

    def beam(self, src, K, max_length, lp=None, early_stopping=None, n_best=1, start=None):
        """[(score, ids)] best first; ids without the start token, eos kept when finished.
        start (ids, logprob): begin from that one hypothesis (ids after the start token) instead
        of the start token alone, as generate() begins from the start token: K rows, the first
        with its log-prob, the others -1e9 (_beam_search's "beam_scores[:, 1:] = -1e9")."""
        lp = self.gen["length_penalty"] if lp is None else lp
        es = self.gen["early_stopping"] if early_stopping is None else early_stopping
        mem = self.encode(src + [self.eos])
        ids0, lp0 = start if start is not None else ([], 0.0)
        seqs = [[self.start] + list(ids0)] * K
        scores = torch.tensor([lp0] + [-1e9] * (K - 1))
        caches = [self.prime(src, mem, seqs[0][:-1])] * K
        hyps, worst = [], 1e9
        done = False

        def add(ids, s, glen):
            nonlocal worst
            score = s / (glen ** lp)
            if len(hyps) < K or score > worst:
                hyps.append((score, ids))
                if len(hyps) > K:
                    order = sorted((h[0], i) for i, h in enumerate(hyps))
                    del hyps[order[0][1]]
                    worst = order[1][0]
                else:
                    worst = min(score, worst)

        def is_done(best, cur):
            if len(hyps) < K:
                return False
            if es is True:
                return True
            if es is False or lp <= 0:
                return worst >= best / cur ** lp
            return worst >= best / (max_length - 1) ** lp

        while True:
            cur = len(seqs[0])
            lg, caches = self.rows_step(src, mem, seqs, caches)
            lsm = torch.log_softmax(lg, -1)
            lsm = self.process(seqs, lsm, max_length)
            if self.gen["renormalize_logits"]:
                lsm = torch.log_softmax(lsm, -1)
            cand = (lsm + scores[:, None]).view(-1)
            V = lsm.shape[1]
            # torch.topk(2K) with ties in index order (a stable sort on the score); near_tie's
            # favored candidate ranked as if tol higher (the swap recorded)
            key = -cand.numpy().astype(np.float64)
            for b in range(len(seqs)):
                f = self._favored(seqs[b][1:])
                if f is not None:
                    key[b * V + f] -= self.tol
            order = np.argsort(key, kind="stable")[: 2 * K]
            P.note_swaps(cand.numpy(), key, order, self.swaps if self.tol else None)
            nxt = []
            for rank, idx in enumerate(order.tolist()):
                b, t, s = idx // V, idx % V, float(cand[idx])
                if s == float("-inf"):  # xlate drops what a processor forced away (docs/DECODING.md)
                    continue
                if t == self.eos:
                    if rank >= K:
                        continue
                    add(seqs[b][1:] + [t], s, cur)
                else:
                    nxt.append((b, t, cand[idx]))
                if len(nxt) == K:
                    break
            done = done or is_done(float(cand[order[0]]), cur)
            seqs = [seqs[b] + [t] for b, t, _ in nxt]
            if not seqs:  # every candidate forced away or finished
                break
            caches = [caches[b] for b, _, _ in nxt]
            scores = torch.stack([s for _, _, s in nxt])
            if done or len(seqs[0]) >= max_length:
                break
        if not done:
            for b in range(len(seqs)):
                add(seqs[b][1:], float(scores[b]), len(seqs[b]) - 1)
        fav = self.favor + [self.eos] if self.favor is not None else None
        bonus = [self.tol if fav is not None and h[1] in (fav, fav[:-1]) else 0.0
                 for h in hyps]
        ranked = [h for _, _, h in sorted(((h[0] + b, i, h) for i, (h, b) in
                                           enumerate(zip(hyps, bonus))), key=lambda x: x[:2])]
        if any(bonus):
            P.note_swaps(np.array([h[0] for h in hyps]),
                         -np.array([h[0] + b for h, b in zip(hyps, bonus)]),
                         np.argsort(-np.array([h[0] + b for h, b in zip(hyps, bonus)]),
                                    kind="stable")[:1], self.swaps)
        return [ranked.pop() for _ in range(min(n_best, len(ranked)))]


# ----------------------------------------------------------------------------- bench peer

@torch.no_grad()
def greedy_fixed(m, srcs, steps):
    """Greedy over a batch of sources (ids without eos), exactly `steps` decoder steps with a
    KV cache: eos banned before the last step and forced at it (xlate's --min-length N
    --max-length N on a Marian model). The peer of bench/marian_bench.py; returns [B, steps]."""
    B = len(srcs)
    S = max(len(x) for x in srcs) + 1
    ids = torch.full((B, S), m.pad, dtype=torch.long)
    mask = torch.zeros(B, S, dtype=torch.bool)  # True: padding
    for b, x in enumerate(srcs):
        ids[b, : len(x) + 1] = torch.tensor(x + [m.eos])
        mask[b, len(x) + 1:] = True
    x = m.src_emb[ids] * m.scale + m.pos[:S]
    neg = torch.zeros(B, 1, 1, S).masked_fill(mask[:, None, None, :], float("-inf"))

    def heads(t, H):
        return t.view(t.shape[0], t.shape[1], H, -1).transpose(1, 2)

    def mha(q_in, kv, name, H, bias):
        dh = m.d // H
        q = heads(m.lin(q_in, name + ".q_proj") * dh ** -0.5, H)
        k, v = kv
        a = q @ k.transpose(2, 3)
        if bias is not None:
            a = a + bias
        o = (torch.softmax(a, -1) @ v).transpose(1, 2).reshape(q_in.shape[0], q_in.shape[1], m.d)
        return m.lin(o, name + ".out_proj")

    H = m.heads
    for l in range(m.enc_layers):
        p = f"model.encoder.layers.{l}"
        kv = (heads(m.lin(x, p + ".self_attn.k_proj"), H), heads(m.lin(x, p + ".self_attn.v_proj"), H))
        x = m.ln(x + mha(x, kv, p + ".self_attn", H, neg), p + ".self_attn_layer_norm")
        x = m.ln(x + m.lin(m.act(m.lin(x, p + ".fc1")), p + ".fc2"), p + ".final_layer_norm")
    H = m.dec_heads
    cross = []
    for l in range(m.dec_layers):
        p = f"model.decoder.layers.{l}.encoder_attn"
        cross.append((heads(m.lin(x, p + ".k_proj"), H), heads(m.lin(x, p + ".v_proj"), H)))
    cache = [None] * m.dec_layers
    tok = torch.full((B,), m.start, dtype=torch.long)
    out = []
    for step in range(steps):
        y = (m.tgt_emb[tok] * m.scale + m.pos[step])[:, None, :]
        for l in range(m.dec_layers):
            p = f"model.decoder.layers.{l}"
            k = heads(m.lin(y, p + ".self_attn.k_proj"), H)
            v = heads(m.lin(y, p + ".self_attn.v_proj"), H)
            if cache[l] is not None:
                k = torch.cat([cache[l][0], k], 2)
                v = torch.cat([cache[l][1], v], 2)
            cache[l] = (k, v)
            y = m.ln(y + mha(y, (k, v), p + ".self_attn", H, None), p + ".self_attn_layer_norm")
            y = m.ln(y + mha(y, cross[l], p + ".encoder_attn", H, neg),
                     p + ".encoder_attn_layer_norm")
            y = m.ln(y + m.lin(m.act(m.lin(y, p + ".fc1")), p + ".fc2"), p + ".final_layer_norm")
        lg = torch.nn.functional.linear(y[:, 0], m.lm_head) + m.bias[0]
        lg[:, m.pad] = float("-inf")
        if step < steps - 1:
            lg[:, m.eos] = float("-inf")
            tok = lg.argmax(-1)
        else:
            tok = torch.full((B,), m.eos, dtype=torch.long)
        out.append(tok)
    return torch.stack(out, 1)


def strip_eos(ids, eos):
    return ids[:-1] if ids and ids[-1] == eos else ids


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--beam", type=int, default=None, help="default: the model's num_beams")
    ap.add_argument("--max-length", type=int, default=None,
                    help="generated tokens at most, eos counted (xlate's); default: the "
                         "model's max_length - 1")
    ap.add_argument("--target-lang", default=None)
    ap.add_argument("--ids", action="store_true", help="print ids, not text")
    a = ap.parse_args(argv)
    m = Marian(a.dir)
    tok = Tokenizer(a.dir)
    K = a.beam or m.gen["num_beams"]
    ml = (a.max_length + 1) if a.max_length else m.gen["max_length"]
    for line in sys.stdin.read().split("\n")[:-1]:
        if a.target_lang:
            line = f">>{a.target_lang}<< " + line
        src = tok.encode(line)
        ids = m.greedy(src, ml) if K == 1 else m.beam(src, K, ml)[0][1]
        ids = strip_eos(ids, m.eos)
        print(" ".join(map(str, ids)) if a.ids else tok.decode(ids), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
