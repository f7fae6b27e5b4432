#!/usr/bin/env python3
"""m2m100_reference.py — the PyTorch oracle for Hugging Face M2M100 / NLLB-200 directories
(model_type "m2m_100"): this project's own implementation of M2M100ForConditionalGeneration's
forward and generate(), written rule by rule from transformers' source (no transformers
package is installed here). Generation (greedy, beam search, the processors other than
ForcedBOS) is generate()'s, shared with tools/marian_reference.py (class Marian), which cites
the v4.40 lines it follows.

Followed: transformers v4.40, huggingface/transformers at 593e8aa5:
  models/m2m_100/configuration_m2m_100.py M2M100Config.__init__: defaults vocab_size 128112,
    d_model 1024, 12 + 12 layers, 16 heads, ffn 4096, activation "relu", scale_embedding
    True, pad 1, bos 0, eos 2, decoder_start 2, max_position_embeddings 1024, tied embeddings;
  models/m2m_100/modeling_m2m_100.py:
    create_position_ids_from_input_ids: mask = ids.ne(padding_idx); positions =
      (cumsum(mask) + past_key_values_length) * mask + padding_idx;
    M2M100ScaledWordEmbedding.forward: embedding(ids) * embed_scale (sqrt(d_model) when
      scale_embedding, else 1.0);
    M2M100SinusoidalPositionalEmbedding.get_embedding: half = d // 2,
      emb = log(10000) / (half - 1); emb = exp(arange(half).float() * -emb);
      emb = arange(num).float()[:, None] * emb[None, :]; cat([sin, cos], 1); row padding_idx
      zeroed; built for max_position_embeddings + 2 rows (offset 2) and rebuilt larger when a
      sequence needs it (forward: max_pos = padding_idx + 1 + seq_len + past);
    M2M100Attention.forward: q_proj(x) * head_dim ** -0.5, softmax(q k^T + mask) v, out_proj;
    M2M100EncoderLayer.forward: pre-norm, h = h + self_attn(self_attn_layer_norm(h));
      h = h + fc2(act(fc1(final_layer_norm(h)))) (the fp16 clamp only when h is f16 and not
      finite: never here);
    M2M100DecoderLayer.forward: the same with encoder_attn(encoder_attn_layer_norm(h)) between;
    M2M100Encoder.forward: embed_tokens(ids) + embed_positions(ids), layers (layerdrop only in
      training), then self.layer_norm; M2M100Decoder.forward: the same, causal self-attention,
      then self.layer_norm;
    M2M100ForConditionalGeneration: lm_head(decoder output), lm_head tied to model.shared
      (_tied_weights_keys), no final_logits_bias;
  generation/logits_process.py ForcedBOSTokenLogitsProcessor.__call__: at cur_len == 1 every
    score -inf but bos_token_id's 0; generation/utils.py _get_logits_processor: after
    NoBadWords and MinLength, before ForcedEOS.
The decoder starts from decoder_start_token_id (eos, 2). Positions are
create_position_ids_from_input_ids' (M2M100.position_ids): in the source, a pad id (a literal
<pad> in the text) takes the zeroed padding row and the tokens after it count only the non-pad
tokens before them; in generate()'s cached decoder steps a pad (forced or generated) takes the
padding row and every other token is at padding_idx + 1 + its step (past_key_values_length
counts the pads).
The tokenizers (class Tokenizer), v4.40:
  models/nllb/tokenization_nllb.py NllbTokenizer: __init__ "self.fairseq_offset = 1",
    "_added_tokens_decoder = {0: bos_token, 1: pad_token, 2: eos_token, 3: unk_token}", the
    additional_special_tokens (FAIRSEQ_LANGUAGE_CODES) added after vocab_size =
    len(sp_model) + fairseq_offset, <mask> after them; _tokenize "self.sp_model.encode(text,
    out_type=str)"; _convert_token_to_id "spm_id + self.fairseq_offset if spm_id else
    self.unk_token_id"; set_src_lang_special_tokens: legacy_behaviour: prefix [], suffix
    [eos, src_lang_code], else prefix [src_lang_code], suffix [eos]; _convert_id_to_token
    "self.sp_model.IdToPiece(index - self.fairseq_offset)"; convert_tokens_to_string
    "\"\".join(tokens).replace(SPIECE_UNDERLINE, \" \").strip()";
  models/m2m_100/tokenization_m2m_100.py M2M100Tokenizer: "self.encoder = load_json(vocab_file)",
    "self.lang_token_to_id = {self.get_lang_token(lang_code): self.encoder_size + i ...}",
    get_lang_token "__{lang}__"; _convert_token_to_id: a language token's id, else
    "self.encoder.get(token, self.encoder[self.unk_token])"; convert_tokens_to_string: runs of
    tokens through "self.sp_model.decode(current_sub_tokens)", ".strip()";
    set_src_lang_special_tokens: prefix [lang_code_id], suffix [eos];
  tokenization_utils.py: decode(skip_special_tokens=True) drops all_special_ids (the specials,
    the language codes, <mask>) in convert_ids_to_tokens, gives an added token's id its text
    (_added_tokens_decoder), and _decode writes each token that is a non-special added token's
    text ("legacy_added_tokens") as a text of its own between the runs of pieces
    (convert_tokens_to_string), joined with spaces (spaces_between_special_tokens=True), then
    clean_up_tokenization when clean_up_tokenization_spaces (the same replacements as
    marian_reference.Tokenizer.decode); Tokenizer.decode quotes the lines. An AddedToken's
    lstrip / rstrip / normalized / special flags play no part in the slow tokenizer's decode:
    only all_special_ids / all_special_tokens do (a tokenizer.json token with "special": true
    that no special attribute or additional_special_tokens names is written like any other).

Usage: m2m100_reference.py DIR [--beam K] [--max-length N] [--forced-bos ID] < id lines
(source ids as the tokenizer gives them, without the eos, which is appended); prints target ids.
With --source-lang CODE --target-lang CODE: text lines in, text out.
"""
import argparse
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from marian_reference import Marian, load_json, strip_eos  # noqa: E402
from torch_model import read_safetensors  # noqa: E402
import processors_reference as P  # noqa: E402

torch.set_num_threads(1)


def m2m_sinusoids(num, dim, padding_idx):
    """get_embedding(num, dim, padding_idx), as modeling_m2m_100.py computes it (float32)."""
    half = dim // 2
    emb = math.log(10000) / (half - 1)
    emb = torch.exp(torch.arange(half, dtype=torch.int64).float() * -emb)
    emb = torch.arange(num, dtype=torch.int64).float().unsqueeze(1) * emb.unsqueeze(0)
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=1).view(num, -1)
    if dim % 2 == 1:
        emb = torch.cat([emb, torch.zeros(num, 1)], dim=1)
    emb[padding_idx, :] = 0
    return emb


def read_weights(d):
    """The state dict of d: model.safetensors, or pytorch_model.bin read by torch.load."""
    p = os.path.join(d, "model.safetensors")
    if os.path.exists(p):
        return read_safetensors(p)
    return {k: v.float() for k, v in torch.load(os.path.join(d, "pytorch_model.bin")).items()}


CLEANUP = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
           (" 'm", "'m"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


class Tokenizer:
    """NllbTokenizer or M2M100Tokenizer (v4.40) over sentencepiece (+ vocab.json)."""

    def __init__(self, d):
        import sentencepiece as spm
        self.sp = spm.SentencePieceProcessor(model_file=os.path.join(d, "sentencepiece.bpe.model"))
        tc = load_json(os.path.join(d, "tokenizer_config.json"), {})
        stm = load_json(os.path.join(d, "special_tokens_map.json"), {})
        self.nllb = tc.get("tokenizer_class", "").startswith("Nllb") or not os.path.exists(
            os.path.join(d, "vocab.json"))
        self.cleanup = tc.get("clean_up_tokenization_spaces", True)
        self.legacy = bool(tc.get("legacy_behaviour", False)) and self.nllb
        # tokenization_utils_base.py _from_pretrained (v4.40): special_tokens_map.json is read
        # only when tokenizer_config.json has no added_tokens_decoder ("# begin legacy"), its
        # additional_special_tokens merged into the config's: "additional_special_tokens =
        # init_kwargs.pop("additional_special_tokens", []) or []", "if token not in
        # additional_special_tokens: additional_special_tokens.append(token)". (Neither list:
        # the classes' FAIRSEQ_LANGUAGE_CODES, which xlate replaces by the map's list.)
        def texts(lst):
            return [t["content"] if isinstance(t, dict) else t for t in lst or []]
        toks = texts(tc.get("additional_special_tokens"))
        if "added_tokens_decoder" not in tc or not toks:
            for t in texts(stm.get("additional_special_tokens")):
                if t not in toks:
                    toks.append(t)
        self.bos, self.pad, self.eos, self.unk = 0, 1, 2, 3
        if self.nllb:
            first = len(self.sp) + 1
            self.codes = {t: first + k for k, t in enumerate(toks)}
            self.mask = first + len(toks)
            self.special = {0, 1, 2, 3, self.mask} | set(self.codes.values())
        else:
            self.encoder = load_json(os.path.join(d, "vocab.json"))
            self.decoder = {v: k for k, v in self.encoder.items()}
            self.unk = self.encoder["<unk>"]
            first = len(self.encoder)
            self.codes = {t.strip("_"): first + k for k, t in enumerate(toks)}
            self.special = {self.encoder[t] for t in ("<s>", "<pad>", "</s>", "<unk>")} | \
                set(self.codes.values())
        self.src_lang = tc.get("src_lang") or ("eng_Latn" if self.nllb else "en")
        self.added = self.load_added(d, tc, stm)
        if self.nllb:
            # NllbTokenizer reads a code's and <mask>'s id with convert_tokens_to_ids, which
            # looks in _added_tokens_encoder first (tokenization_utils.py
            # _convert_token_to_id_with_added_voc: "if token in self._added_tokens_encoder:
            # return self._added_tokens_encoder[token]"): the files' ids, where they give one,
            # for set_src_lang_special_tokens and all_special_ids alike
            self.codes = {t: self.added[t]["id"] for t in self.codes}
            self.mask = self.added["<mask>"]["id"]
            self.special = {0, 1, 2, 3, self.mask} | set(self.codes.values())

    def load_added(self, d, tc, stm):
        """{text: AddedToken fields + "id"}, as transformers v4.40 collects a slow tokenizer's
        added tokens:
          NllbTokenizer.__init__: "self._added_tokens_decoder = {0: bos_token, 1: pad_token,
            2: eos_token, 3: unk_token}" (AddedToken(..., normalized=False, special=True));
            "mask_token = AddedToken(mask_token, normalized=True, lstrip=True, special=True)";
            the additional_special_tokens (the codes) added as special tokens by
            PreTrainedTokenizer.__init__ (_add_tokens(..., special_tokens=True));
          M2M100Tokenizer: the specials and the "__xx__" tokens at their ids;
          tokenization_utils_base.py PreTrainedTokenizerBase._from_pretrained: 'if
            "added_tokens_decoder" in init_kwargs:' each "AddedToken(**token)" at int(idx);
            else (legacy) added_tokens.json: "special = str_token in special_tokens;
            added_tokens_decoder[index] = AddedToken(str_token, rstrip=False, lstrip=False,
            normalized=not special, special=special)", then tokenizer.json's
            'added_tokens = tokenizer_file_handle.pop("added_tokens")', "idx =
            serialized_tokens.pop("id"); added_tokens_decoder[idx] =
            AddedToken(**serialized_tokens)"."""
        def tok(content, i, special, lstrip=False, rstrip=False, single_word=False):
            return {"id": i, "special": special, "lstrip": lstrip, "rstrip": rstrip,
                    "single_word": single_word}
        added = {}
        if self.nllb:
            for i, t in enumerate(("<s>", "<pad>", "</s>", "<unk>")):
                added[t] = tok(t, i, True)
            for t, i in self.codes.items():
                added[t] = tok(t, i, True)
            added["<mask>"] = tok("<mask>", self.mask, True, lstrip=True)
        else:
            for t in ("<s>", "<pad>", "</s>", "<unk>"):
                if t in self.encoder:
                    added[t] = tok(t, self.encoder[t], True)
            for code, i in self.codes.items():
                added[f"__{code}__"] = tok(code, i, True)

        def from_entry(i, e):
            if isinstance(e, str):
                e = {"content": e}
            added[e["content"]] = tok(e["content"], int(i), e.get("special", False),
                                      e.get("lstrip", False), e.get("rstrip", False),
                                      e.get("single_word", False))

        dec = tc.get("added_tokens_decoder")
        if dec is not None:
            for i, e in dec.items():
                from_entry(i, e)
            return added
        at = load_json(os.path.join(d, "added_tokens.json"), {})
        for t, i in at.items():
            added[t] = tok(t, i, bool(added.get(t, {}).get("special")))
        tj = load_json(os.path.join(d, "tokenizer.json"), {})
        for e in tj.get("added_tokens", []):
            from_entry(e["id"], e)
        return added

    def tokenize(self, text):
        """tokenization_utils.py PreTrainedTokenizer.tokenize (v4.40): the ids of text, an
        added token never split."""
        # tokens_trie.split(text): leftmost, then the longest ("This trie will match the
        # longest possible word first!")
        tokens, pos, start = [], 0, 0
        while pos < len(text):
            best = max((t for t in self.added if text.startswith(t, pos)), key=len, default=None)
            if best is None:
                pos += 1
                continue
            if pos > start:
                tokens.append(text[start:pos])
            tokens.append(best)
            pos += len(best)
            start = pos
        if start < len(text):
            tokens.append(text[start:])
        no_split = set(self.added)
        for i, token in enumerate(tokens):
            if token in no_split:
                ext = self.added[token]
                left = tokens[i - 1] if i > 0 else None
                right = tokens[i + 1] if i < len(tokens) - 1 else None
                if ext["rstrip"] and right:
                    tokens[i + 1] = right.lstrip()
                if ext["lstrip"] and left:
                    tokens[i - 1] = left.rstrip()
                if ext["single_word"] and left and left[-1] != " ":
                    tokens[i - 1] += token
                    tokens[i] = ""
                elif ext["single_word"] and right and right[0] != " ":
                    tokens[i + 1] = token + tokens[i + 1]
                    tokens[i] = ""
        ids = []
        for token in tokens:
            if not token:
                continue
            if token in no_split:
                ids.append(self.added[token]["id"])
                continue
            pieces = self.sp.encode(token, out_type=str)  # _tokenize
            if self.nllb:
                ids += [self.sp.PieceToId(p) + 1 if self.sp.PieceToId(p) else self.unk
                        for p in pieces]
            else:
                ids += [self.encoder.get(p, self.unk) for p in pieces]
        return ids

    def encode(self, text, src_lang):
        """(ids before the eos, ids after it): the source is ids + [eos] + suffix."""
        ids = self.tokenize(text)
        lang = self.codes[src_lang]
        return (ids, [lang]) if self.legacy else ([lang] + ids, [])

    def all_special_tokens(self):
        """all_special_tokens: the specials' texts (bos, eos, unk, sep, pad, cls, mask), the
        additional_special_tokens (the language codes)."""
        sp = {"<s>", "<pad>", "</s>", "<unk>"} | ({"<mask>"} if self.nllb else set())
        return sp | {t if self.nllb else f"__{t}__" for t in self.codes}

    def convert_tokens_to_string(self, tokens):
        if self.nllb:
            # tokenization_nllb.py: '"".join(tokens).replace(SPIECE_UNDERLINE, " ").strip()'
            return "".join(tokens).replace("\u2581", " ").strip()
        # tokenization_m2m_100.py: "if token in self.all_special_tokens: out_string +=
        # self.sp_model.decode(current_sub_tokens) + token" (the "<unk>" text of an id past
        # vocab.json and the language tokens: a madeup word, a padding row), "out_string +=
        # self.sp_model.decode(current_sub_tokens)", "return out_string.strip()"
        special, out, cur = self.all_special_tokens(), "", []
        for t in tokens:
            if t in special:
                out += self.sp.decode(cur) + t
                cur = []
            else:
                cur.append(t)
        return (out + self.sp.decode(cur)).strip()

    def decode(self, ids):
        """tokenization_utils.py (v4.40) PreTrainedTokenizer.decode(ids,
        skip_special_tokens=True) with its defaults, as _decode runs it."""
        # convert_ids_to_tokens: "if skip_special_tokens and index in self.all_special_ids:
        # continue"; "if index in self._added_tokens_decoder:
        # tokens.append(self._added_tokens_decoder[index].content)", "else:
        # tokens.append(self._convert_id_to_token(index))" (NLLB: "self.sp_model.IdToPiece(
        # index - self.fairseq_offset)"; M2M100: "self.decoder.get(index, self.unk_token)")
        added_dec = {e["id"]: t for t, e in self.added.items()}
        tokens = []
        for i in ids:
            if i in self.special:
                continue
            if i in added_dec:
                tokens.append(added_dec[i])
            elif self.nllb:
                if i - 1 < len(self.sp):  # past the pieces: no token (IdToPiece would raise)
                    tokens.append(self.sp.IdToPiece(i - 1))
            else:
                tokens.append(self.decoder.get(i, "<unk>"))
        # _decode: "legacy_added_tokens = set(self._added_tokens_encoder.keys()) -
        # set(self.all_special_tokens) | {token for token in self.additional_special_tokens if
        # self.convert_tokens_to_ids(token) >= self.vocab_size}" (the latter skipped above)
        legacy = set(self.added) - self.all_special_tokens()
        sub_texts, cur = [], []
        for t in tokens:
            if t in legacy:
                if cur:
                    string = self.convert_tokens_to_string(cur)
                    if len(string) > 0:
                        sub_texts.append(string)
                    cur = []
                sub_texts.append(t)
            else:
                cur.append(t)
        if cur:
            sub_texts.append(self.convert_tokens_to_string(cur))
        s = " ".join(sub_texts)  # spaces_between_special_tokens=True
        if self.cleanup:  # clean_up_tokenization
            for a, b in CLEANUP:
                s = s.replace(a, b)
        return s


class M2M100(Marian):
    def __init__(self, d, config=None, weights=None, gen_config=None):
        self.dir = d
        c = self.config = config if config is not None else load_json(
            os.path.join(d, "config.json"))
        if c.get("model_type") != "m2m_100":
            raise ValueError(f"{d}: model_type {c.get('model_type')!r}, expected 'm2m_100'")
        self.d = c.get("d_model", 1024)
        self.heads = c.get("encoder_attention_heads", 16)
        self.dec_heads = c.get("decoder_attention_heads", 16)
        self.act = {"relu": torch.relu, "gelu": torch.nn.functional.gelu,
                    "swish": torch.nn.functional.silu,
                    "silu": torch.nn.functional.silu}[c.get("activation_function", "relu")]
        self.scale = math.sqrt(self.d) if c.get("scale_embedding", True) else 1.0
        self.pad = c.get("pad_token_id", 1)
        self.eos = c.get("eos_token_id", 2)
        self.start = c.get("decoder_start_token_id", 2)
        self.enc_layers = c.get("encoder_layers", 12)
        self.dec_layers = c.get("decoder_layers", 12)
        w = weights if weights is not None else read_weights(d)
        e = w.get("model.shared.weight", w.get("model.encoder.embed_tokens.weight"))
        self.src_emb = self.tgt_emb = e
        self.lm_head = e if c.get("tie_word_embeddings", True) else w["lm_head.weight"]
        self.bias = torch.zeros(1, self.lm_head.shape[0])
        self.w = w
        self.max_pos = c.get("max_position_embeddings", 1024)
        self.table = m2m_sinusoids(self.max_pos + 2, self.d, self.pad)
        g = gen_config if d is None else load_json(os.path.join(d, "generation_config.json"))
        src = g if g is not None else c  # GenerationConfig.from_model_config without one
        self.gen = {
            "num_beams": src.get("num_beams", 1),
            "max_length": (src["max_new_tokens"] + 1 if src.get("max_new_tokens") is not None
                           else src.get("max_length", 20)),
            "renormalize_logits": src.get("renormalize_logits", False),
            "length_penalty": src.get("length_penalty", 1.0),
            "early_stopping": src.get("early_stopping", False),
            "bad_words_ids": src.get("bad_words_ids") or [],
            "forced_eos_token_id": src.get("forced_eos_token_id"),
            "forced_bos_token_id": src.get("forced_bos_token_id"),
        }

    def positions(self, n):
        """Rows of positions 0..n-1 of a sequence with no pad: padding_idx + 1 + t."""
        first = self.pad + 1
        if first + n > self.table.shape[0]:  # forward: make_weights(max_pos + offset)
            self.table = m2m_sinusoids(first + n + 2, self.d, self.pad)
        return self.table[first: first + n]

    def position_ids(self, ids, past=0):
        """create_position_ids_from_input_ids(ids [B, T], padding_idx, past_key_values_length)
        (modeling_m2m_100.py, huggingface/transformers 593e8aa5, lines 81-89): "mask =
        input_ids.ne(padding_idx).int()", "incremental_indices = (torch.cumsum(mask,
        dim=1).type_as(mask) + past_key_values_length) * mask", "return
        incremental_indices.long() + padding_idx": a pad takes row padding_idx (zeroed by
        get_embedding, line 141 "emb[padding_idx, :] = 0") and the tokens after it count only
        the non-pad tokens before them, plus past."""
        mask = ids.ne(self.pad).int()
        return ((torch.cumsum(mask, dim=1).type_as(mask) + past) * mask).long() + self.pad

    def position_rows(self, ids, past=0):
        """The position embeddings [B, T, d] of ids [B, T] (M2M100SinusoidalPositionalEmbedding
        .forward, lines 146-164: the table rebuilt larger when "max_pos = self.padding_idx + 1
        + seq_len + past_key_values_length" passes it, then index_select)."""
        max_pos = self.pad + 1 + ids.shape[1] + past
        if max_pos > self.table.shape[0]:
            self.table = m2m_sinusoids(max_pos + 2, self.d, self.pad)
        return self.table[self.position_ids(ids, past)]

    def layer(self, x, p, mem=None):
        heads = self.heads if mem is None else self.dec_heads
        x = x + self.attn(self.ln(x, p + ".self_attn_layer_norm"), None, p + ".self_attn",
                          heads, mem is not None)
        if mem is not None:
            x = x + self.attn(self.ln(x, p + ".encoder_attn_layer_norm"), mem,
                              p + ".encoder_attn", heads, False)
        h = self.lin(self.act(self.lin(self.ln(x, p + ".final_layer_norm"), p + ".fc1")),
                     p + ".fc2")
        return x + h

    def attn(self, x, mem, name, heads, causal):
        return super().attn(x, x if mem is None else mem, name, heads, causal)

    suffix = []  # tokens after the eos (NLLB legacy_behaviour: the source language)

    @torch.no_grad()
    def encode(self, ids):
        """ids: source ids with the eos (then self.suffix). [1, S, d]."""
        ids = ids + self.suffix
        t = torch.tensor([ids])
        # M2M100Encoder.forward: "embed_pos = self.embed_positions(input_ids, inputs_embeds)"
        # (past 0: a pad in the source is counted by no token after it); the tokenizer's
        # attention_mask is all ones, so a literal <pad> is attended to like any token
        x = self.src_emb[t] * self.scale + self.position_rows(t)
        for l in range(self.enc_layers):
            x = self.layer(x, f"model.encoder.layers.{l}")
        return self.ln(x, "model.encoder.layer_norm")

    @torch.no_grad()
    def logits(self, mem, prefixes):
        t = torch.tensor(prefixes)
        # the whole prefix in one forward (no cache): the cumsum over it, as the encoder's
        x = self.tgt_emb[t] * self.scale + self.position_rows(t)
        m = mem.expand(t.shape[0], -1, -1)
        for l in range(self.dec_layers):
            x = self.layer(x, f"model.decoder.layers.{l}", m)
        x = self.ln(x, "model.decoder.layer_norm")
        return torch.nn.functional.linear(x[:, -1], self.lm_head)

    def dec_embed(self, tokens, pos):
        """Marian.step's decoder input, as generate() runs M2M100Decoder.forward with a cache:
        the last token alone, "past_key_values_length = past_key_values[0][0].shape[2]" (every
        token before it, pads included), through create_position_ids_from_input_ids: a pad
        takes the zeroed row padding_idx, any other token padding_idx + 1 + pos."""
        t = tokens[:, None]
        return self.tgt_emb[t] * self.scale + self.position_rows(t, pos)

    def dec_out(self, x):
        """M2M100Decoder.forward: "hidden_states = self.layer_norm(hidden_states)"."""
        return self.ln(x, "model.decoder.layer_norm")

    def process(self, prefixes, scores, max_length):
        """generate()'s processors in transformers' order and rules
        (tools/processors_reference.py: NoBadWords, ForcedBOS, ForcedEOS and the others the
        generation config names); no pad ban, which is MarianMTModel's
        adjust_logits_during_generation alone."""
        keys = ("bad_words_ids", "forced_eos_token_id", "repetition_penalty",
                "no_repeat_ngram_size", "forced_bos_token_id", "suppress_tokens",
                "begin_suppress_tokens")
        cfg = {k: self.gen.get(k) for k in keys}
        cfg["pad"] = None
        cfg.update(getattr(self, "opts", {}))
        return P.Processors(cfg, self.eos)(prefixes, scores, max_length)


@torch.no_grad()
def greedy_fixed(m, srcs, steps, forced_bos):
    """Greedy over a batch of sources (full source ids: language token, tokens, eos, suffix),
    exactly `steps` decoder steps with a KV cache: the first token forced to forced_bos
    (ForcedBOS), eos banned before the last step and forced at it (xlate's --min-length N
    --max-length N --target-lang). The peer of bench/nllb_bench.py; returns [B, steps].
    The same layers as M2M100.encode / logits (pre-norm, final norms), the sources right-padded
    (positions padding_idx + 1 + t for the real tokens, as create_position_ids_from_input_ids
    gives them; the pad keys masked)."""
    B, S = len(srcs), max(len(x) for x in srcs)
    ids = torch.full((B, S), m.pad, dtype=torch.long)
    for b, x in enumerate(srcs):
        ids[b, : len(x)] = torch.tensor(x)
    neg = torch.zeros(B, 1, 1, S).masked_fill((ids == m.pad)[:, None, None, :], float("-inf"))
    x = m.src_emb[ids] * m.scale + m.position_rows(ids)

    def heads(t, H):
        return t.view(t.shape[0], t.shape[1], H, -1).transpose(1, 2)

    def mha(q_in, kv, name, H, bias):
        dh = m.d // H
        q = heads(m.lin(q_in, name + ".q_proj") * dh ** -0.5, H)
        a = q @ kv[0].transpose(2, 3)
        if bias is not None:
            a = a + bias
        o = (torch.softmax(a, -1) @ kv[1]).transpose(1, 2).reshape(q_in.shape[0], -1, m.d)
        return m.lin(o, name + ".out_proj")

    H = m.heads
    for l in range(m.enc_layers):
        p = f"model.encoder.layers.{l}"
        h = m.ln(x, p + ".self_attn_layer_norm")
        kv = (heads(m.lin(h, p + ".self_attn.k_proj"), H),
              heads(m.lin(h, p + ".self_attn.v_proj"), H))
        x = x + mha(h, kv, p + ".self_attn", H, neg)
        x = x + m.lin(m.act(m.lin(m.ln(x, p + ".final_layer_norm"), p + ".fc1")), p + ".fc2")
    x = m.ln(x, "model.encoder.layer_norm")
    H = m.dec_heads
    cross = []
    for l in range(m.dec_layers):
        p = f"model.decoder.layers.{l}.encoder_attn"
        cross.append((heads(m.lin(x, p + ".k_proj"), H), heads(m.lin(x, p + ".v_proj"), H)))
    cache = [None] * m.dec_layers
    tok = torch.full((B,), m.start, dtype=torch.long)
    out = []
    for step in range(steps):
        y = (m.tgt_emb[tok] * m.scale + m.positions(step + 1)[step])[:, None, :]
        for l in range(m.dec_layers):
            p = f"model.decoder.layers.{l}"
            h = m.ln(y, p + ".self_attn_layer_norm")
            k = heads(m.lin(h, p + ".self_attn.k_proj"), H)
            v = heads(m.lin(h, p + ".self_attn.v_proj"), H)
            if cache[l] is not None:
                k = torch.cat([cache[l][0], k], 2)
                v = torch.cat([cache[l][1], v], 2)
            cache[l] = (k, v)
            y = y + mha(h, (k, v), p + ".self_attn", H, None)
            y = y + mha(m.ln(y, p + ".encoder_attn_layer_norm"), cross[l], p + ".encoder_attn",
                        H, neg)
            y = y + m.lin(m.act(m.lin(m.ln(y, p + ".final_layer_norm"), p + ".fc1")), p + ".fc2")
        lg = torch.nn.functional.linear(m.ln(y[:, 0], "model.decoder.layer_norm"), m.lm_head)
        if step == 0:
            tok = torch.full((B,), forced_bos, dtype=torch.long)
        elif step < steps - 1:
            lg[:, m.eos] = float("-inf")
            tok = lg.argmax(-1)
        else:
            tok = torch.full((B,), m.eos, dtype=torch.long)
        out.append(tok)
    return torch.stack(out, 1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--beam", type=int, default=None, help="default: the model's num_beams")
    ap.add_argument("--max-length", type=int, default=None,
                    help="generated tokens at most, eos counted (xlate's); default: the "
                         "model's max_length - 1")
    ap.add_argument("--forced-bos", type=int, default=None,
                    help="forced_bos_token_id (default: generation_config.json's)")
    ap.add_argument("--source-lang", default=None)
    ap.add_argument("--target-lang", default=None)
    ap.add_argument("--ids", action="store_true", help="with --target-lang: print ids")
    a = ap.parse_args(argv)
    m = M2M100(a.dir)
    tok = Tokenizer(a.dir) if a.target_lang else None
    if a.forced_bos is not None:
        m.gen["forced_bos_token_id"] = a.forced_bos
    if tok:
        m.gen["forced_bos_token_id"] = tok.codes[a.target_lang]
    K = a.beam or m.gen["num_beams"]
    ml = (a.max_length + 1) if a.max_length else m.gen["max_length"]
    for line in sys.stdin.read().split("\n")[:-1]:
        if tok:
            src, m.suffix = tok.encode(line, a.source_lang or tok.src_lang)
        else:
            src = [int(x) for x in line.split()]
        ids = m.greedy(src, ml) if K == 1 else m.beam(src, K, ml)[0][1]
        ids = strip_eos(ids, m.eos)
        print(tok.decode(ids) if tok and not a.ids else " ".join(map(str, ids)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
