#!/usr/bin/env python3
"""processors_reference.py — this project's PyTorch implementation of the logits processors of
transformers' generate() (v4.40 semantics), rule by rule, the oracle of xlate's src/decode/logits.c
(tests/py/test_decode_opts.py through tools/marian_reference.py and tools/reference_beam.py).

Each function follows one class of transformers' src/transformers/generation/logits_process.py
(v4.40), its __call__ quoted in the docstring (the stored copies of the file read here are of
other versions, so lines are quoted rather than numbered); `Processors` applies them in the
order of generation/utils.py `_get_logits_processor` (v4.40):
    RepetitionPenalty, NoRepeatNGram, NoBadWords, MinLength, ForcedBOS, ForcedEOS,
    SuppressTokens, SuppressTokensAtBegin
then xlate's target prefix (forced as ForcedBOS forces), with xlate's own rules beside them: CTranslate2's suppress_sequences (--suppress) and
disable_unk (--disable-unk) right after the bad words, and pad never generated (Marian).
The sampling warpers (`_get_logits_warper`: Temperature, TopK, TopP) are here too.

input_ids: a list of rows, each the decoder's input so far, the start token first (as generate()'s
input_ids of an encoder-decoder model); scores: a float tensor [rows, V], changed in place and
returned. Greedy search gives them the raw logits, Hugging Face's beam search the log-softmax
(generation/utils.py `_greedy_search`, `_beam_search`).
"""
import numpy as np
import torch

INF = float("inf")


def repetition_penalty(input_ids, scores, penalty):
    """RepetitionPenaltyLogitsProcessor: "score = torch.gather(scores, 1, input_ids)", "score =
    torch.where(score < 0, score * self.penalty, score / self.penalty)", "scores.scatter_(1,
    input_ids, score)" (a repeated id gathers the same unchanged score: penalized once)."""
    ids = torch.tensor(input_ids, dtype=torch.long)
    score = torch.gather(scores, 1, ids)
    score = torch.where(score < 0, score * penalty, score / penalty)
    scores.scatter_(1, ids, score)
    return scores


def _get_ngrams(ngram_size, prev_input_ids, num_hypos):
    """logits_process.py _get_ngrams: "for ngram in zip(*[gen_tokens[i:] for i in
    range(ngram_size)]): prev_ngram_tuple = tuple(ngram[:-1]); generated_ngram[prev_ngram_tuple]
    = generated_ngram.get(prev_ngram_tuple, []) + [ngram[-1]]"."""
    generated_ngrams = [{} for _ in range(num_hypos)]
    for idx in range(num_hypos):
        gen_tokens = list(prev_input_ids[idx])
        generated_ngram = generated_ngrams[idx]
        for ngram in zip(*[gen_tokens[i:] for i in range(ngram_size)]):
            prev_ngram_tuple = tuple(ngram[:-1])
            generated_ngram[prev_ngram_tuple] = generated_ngram.get(prev_ngram_tuple, []) + [ngram[-1]]
    return generated_ngrams


def _get_generated_ngrams(banned_ngrams, prev_input_ids, ngram_size, cur_len):
    """"start_idx = cur_len + 1 - ngram_size; ngram_idx = tuple(prev_input_ids[start_idx:cur_len]
    .tolist()); return banned_ngrams.get(ngram_idx, [])"."""
    start_idx = cur_len + 1 - ngram_size
    ngram_idx = tuple(prev_input_ids[start_idx:cur_len])
    return banned_ngrams.get(ngram_idx, [])


def no_repeat_ngram(input_ids, scores, ngram_size):
    """NoRepeatNGramLogitsProcessor: "cur_len = input_ids.shape[-1]", _calc_banned_ngram_tokens
    ("if cur_len + 1 < ngram_size: return [[] for _ in range(num_hypos)]"), then "scores[i,
    banned_tokens] = -float("inf")"."""
    cur_len = len(input_ids[0])
    if cur_len + 1 < ngram_size:
        return scores
    gen = _get_ngrams(ngram_size, input_ids, len(input_ids))
    for i, row in enumerate(input_ids):
        banned = _get_generated_ngrams(gen[i], row, ngram_size, cur_len)
        scores[i, banned] = -INF
    return scores


def bad_words(input_ids, scores, bad_words_ids, eos):
    """NoBadWordsLogitsProcessor (v4.40: a SequenceBiasLogitsProcessor with bias -inf):
    sequences equal to [eos] are filtered out ("list(filter(lambda bad_token_seq: all(bad_token_seq
    != [i] for i in eos_token_id), bad_words_ids))"); a length-1 sequence always biases its token;
    a longer one is skipped "if len(sequence_ids) > input_ids.shape[1]", else its last token where
    "input_ids[:, -prefix_length:]" equals its prefix."""
    cur_len = len(input_ids[0])
    for seq in bad_words_ids:
        if seq == [eos]:
            continue
        for i, row in enumerate(input_ids):
            if len(seq) == 1:
                scores[i, seq[0]] = -INF
            elif len(seq) <= cur_len and row[-(len(seq) - 1):] == seq[:-1]:
                scores[i, seq[-1]] = -INF
    return scores


def min_length(input_ids, scores, n, eos):
    """MinLengthLogitsProcessor: "if input_ids.shape[-1] < self.min_length:" eos -inf."""
    if len(input_ids[0]) < n:
        scores[:, eos] = -INF
    return scores


def forced_bos(input_ids, scores, bos):
    """ForcedBOSTokenLogitsProcessor: "if cur_len == 1:" every other token -inf, bos 0."""
    if len(input_ids[0]) == 1:
        scores[:, [i for i in range(scores.shape[1]) if i != bos]] = -INF
        scores[:, bos] = 0
    return scores


def forced_eos(input_ids, scores, max_length, eos):
    """ForcedEOSTokenLogitsProcessor: "if cur_len == self.max_length - 1:" every other token
    -inf, eos 0."""
    if len(input_ids[0]) == max_length - 1:
        scores[:, [i for i in range(scores.shape[1]) if i != eos]] = -INF
        scores[:, eos] = 0
    return scores


def suppress_tokens(input_ids, scores, tokens):
    """SuppressTokensLogitsProcessor: "scores[:, self.suppress_tokens] = -float("inf")"."""
    scores[:, list(tokens)] = -INF
    return scores


def begin_suppress(input_ids, scores, tokens, begin_index):
    """SuppressTokensAtBeginLogitsProcessor: "if input_ids.shape[1] == self.begin_index:
    scores[:, self.begin_suppress_tokens] = -float("inf")"."""
    if len(input_ids[0]) == begin_index:
        scores[:, list(tokens)] = -INF
    return scores


def target_prefix(input_ids, scores, prefix):
    """xlate's --target-prefix (CTranslate2's target_prefix; transformers has no processor for
    it): while fewer than len(prefix) tokens follow the start token, the next prefix token is
    forced as ForcedBOSTokenLogitsProcessor forces its token (every other -inf, it 0)."""
    pos = len(input_ids[0]) - 1
    if pos < len(prefix):
        scores[:, :] = -INF
        scores[:, prefix[pos]] = 0
    return scores


def temperature(scores, t):
    """TemperatureLogitsWarper: "scores = scores / self.temperature"."""
    return scores / t


def top_k(scores, k, min_tokens_to_keep=1):
    """TopKLogitsWarper: "top_k = min(self.top_k, scores.size(-1))", "indices_to_remove = scores
    < torch.topk(scores, top_k)[0][..., -1, None]", filled with -inf."""
    k = min(max(k, min_tokens_to_keep), scores.size(-1))
    remove = scores < torch.topk(scores, k)[0][..., -1, None]
    return scores.masked_fill(remove, -INF)


def top_p(scores, p, min_tokens_to_keep=1):
    """TopPLogitsWarper: "sorted_logits, sorted_indices = torch.sort(scores, descending=False)",
    "cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)", "sorted_indices_to_remove
    = cumulative_probs <= (1 - self.top_p)", "sorted_indices_to_remove[...,
    -self.min_tokens_to_keep :] = 0", scattered back and filled with -inf."""
    sorted_logits, sorted_indices = torch.sort(scores, descending=False)
    cumulative_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    remove_sorted = cumulative_probs <= (1 - p)
    remove_sorted[..., -min_tokens_to_keep:] = 0
    remove = remove_sorted.scatter(1, sorted_indices, remove_sorted)
    return scores.masked_fill(remove, -INF)


def note_swaps(score, key, order, swaps):
    """tests/py/near_tie.py's swaps: candidates with real scores `score` were ranked by `key`
    (ascending; a favored candidate's key is -score - tol) and `order` picked. For each favored
    pick, the largest gap to a candidate of higher or equal score that it overtook (one left
    out of order, or one picked after it) is appended to swaps (None: nothing recorded)."""
    if swaps is None:
        return
    score = np.asarray(score, dtype=np.float64)
    key = np.asarray(key, dtype=np.float64)
    out = np.ones(score.shape[0], dtype=bool)
    out[np.asarray(order, dtype=np.int64)] = False
    for i in order:
        i = int(i)
        if key[i] == -score[i]:
            continue  # not favored
        # ">=": an exact tie overtaken is a swap of margin 0 (its order was the tie-break's)
        over = (score >= score[i]) & (out | (key > key[i]))
        over[i] = False
        if over.any():
            swaps.append(float((score[over] - score[i]).max()))


class Processors:
    """The processors of one generate() call, in _get_logits_processor's order. cfg keys (all
    optional): repetition_penalty, no_repeat_ngram_size, bad_words_ids, suppress (xlate's
    sequences), unk (disable_unk: the id), min_length (HF's: counts the start token),
    pad (banned: Marian), forced_bos_token_id, forced_eos_token_id (+ max_length),
    suppress_tokens, begin_suppress_tokens, prefix (xlate's target prefix: ids). eos: the eos
    id."""

    def __init__(self, cfg, eos):
        self.c = dict(cfg)
        self.eos = eos
        # _get_logits_processor: "begin_index = input_ids_seq_length" (1: the start token),
        # "begin_index if (input_ids_seq_length > 1 or generation_config.forced_bos_token_id
        # is None) else begin_index + 1"
        self.begin_index = 1 if self.c.get("forced_bos_token_id") is None else 2

    def __call__(self, input_ids, scores, max_length=None):
        c = self.c
        if c.get("repetition_penalty") not in (None, 1.0):
            repetition_penalty(input_ids, scores, c["repetition_penalty"])
        if c.get("no_repeat_ngram_size"):
            no_repeat_ngram(input_ids, scores, c["no_repeat_ngram_size"])
        if c.get("bad_words_ids"):
            bad_words(input_ids, scores, c["bad_words_ids"], self.eos)
        if c.get("suppress"):
            bad_words(input_ids, scores, c["suppress"], self.eos)
        if c.get("unk") is not None:
            scores[:, c["unk"]] = -INF
        if c.get("min_length"):
            min_length(input_ids, scores, c["min_length"], self.eos)
        if c.get("pad") is not None and c["pad"] != self.eos:
            scores[:, c["pad"]] = -INF
        if c.get("forced_bos_token_id") is not None:
            forced_bos(input_ids, scores, c["forced_bos_token_id"])
        if c.get("forced_eos_token_id") is not None and max_length is not None:
            forced_eos(input_ids, scores, max_length, c["forced_eos_token_id"])
        if c.get("suppress_tokens"):
            suppress_tokens(input_ids, scores, c["suppress_tokens"])
        if c.get("begin_suppress_tokens"):
            begin_suppress(input_ids, scores, c["begin_suppress_tokens"], self.begin_index)
        if c.get("prefix"):
            target_prefix(input_ids, scores, c["prefix"])
        return scores
