#!/usr/bin/python3
"""The PyTorch beam search oracle: the rules of the banner of src/decode/search_beam.c, one sentence at
a time, float32, each hypothesis's step computed once from its parent's cache of the decoder's
earlier positions (torch_model.decode_step: nn.TransformerDecoderLayer's own modules, one
position at a time).

usage: tools/reference_beam.py MODEL --src-ids FILE [--beam K] [--n-best N]
                               [--length-penalty A] [--max-length M] [--spm SPM] [--scores]
                               [--tie A:B ...] [--save-checkpoint FILE] [--batch-beams]
                               [--fastpath] [--threads T]
       tools/reference_beam.py fixtures [--out tests/fixtures/beam] [--only NAME,...]

The second form writes the fixtures of tests/py/test_beam.py (tests/fixtures/beam/README.md).

MODEL is a PyTorch checkpoint (.pt, the layout of docs/FORMAT.md's "From PyTorch"), an xlate
model directory (models/en-de), or a parity fixture directory of tools/reference.py
(tests/fixtures/parity/VARIANT, or just VARIANT): a directory's stored weights are loaded into
PyTorch (torch_model.from_model_dir), never rebuilt from a seed.

FILE holds one source per line, space-separated ids WITHOUT eos. Prints one jsonl line per
source, in xlate's --output-format jsonl: with --n-best 1 one hypothesis object
{"translation" (with --spm), "ids", "logprob", "score", "finished", ["token_logprobs" with
--scores]}, else {"hypotheses": [such objects, best first]}. An empty source line gets no
hypothesis of its own: as xlate (which does not translate empty lines) it prints N empty ones,
{"ids": [], "logprob": 0, "score": 0, "finished": true} (with --scores, "token_logprobs": [0]). --max-length 0 (the default) is xlate's default bound,
min(3 * (source length + 1) + 10, max_positions).

The rules (K = beam size):
  - A sentence starts with one live hypothesis, [bos], log-prob 0.
  - Each step extends every live hypothesis by every token: log-prob = parent's +
    log_softmax(logits)[token]. Candidates are ranked by log-prob (higher first), ties by the
    parent's rank, then by the lower token id.
  - Of the 2K best candidates, one ending in eos and ranked within the first K is finished; the
    first K not ending in eos are the next live hypotheses, in rank order.
  - A candidate of log-prob -inf (every token but one forced away) is dropped.
  - A live hypothesis with max_length tokens (no eos) is finished as it is.
  - A sentence is done when it has K (or more) finished hypotheses, or none live.
  - Finished hypotheses are ranked by logprob / length^penalty, length counting the eos; ties by
    the order they finished (stable sort). The n_best first are returned.
K = 1 follows the same rules, which are greedy decoding; its score is the log-prob, without
length penalty, as xlate's greedy search reports it.

By default the model runs PyTorch's composite (non-fused) math, as tools/reference.py's oracle
does (torch_model.reference_math: autograd is enabled only so that PyTorch 1.13 takes no fused
inference path; nothing is differentiated and results are detached). --fastpath runs the same
model under plain torch.no_grad(), where PyTorch may take its fused kernels.
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

SCRIPT_DIR = os.path.dirname(os.path.abspath(__file__))
if SCRIPT_DIR not in sys.path:
    sys.path.insert(0, SCRIPT_DIR)
import torch_model as tm
import processors_reference as P  # noqa: E402


class Hyp:
    """A hypothesis: tokens without bos and eos, cumulative log-prob (float32), per-token
    log-probs (eos included when finished), finished (ended with eos)."""

    __slots__ = ("ids", "logprob", "token_logprobs", "finished", "order", "cache")

    def __init__(s, ids, logprob, token_logprobs, finished=False, order=-1, cache=None):
        s.ids, s.logprob, s.token_logprobs = ids, logprob, token_logprobs
        s.finished, s.order = finished, order
        s.cache = cache  # decode_step's cache of positions < len(ids) (bos first): its parent's

    def length(s):
        """Length for the length penalty: tokens plus the eos."""
        return len(s.ids) + (1 if s.finished else 0)


def score(h, penalty, greedy=False):
    """logprob / length^penalty in float32, as the C computes it (logprob for greedy)."""
    lp = np.float32(h.logprob)
    if greedy or penalty == 0:
        return lp
    return np.float32(lp / np.power(np.float32(h.length()), np.float32(penalty),
                                    dtype=np.float32))


def default_max_length(n_src, max_positions=512, min_length=0):
    """xlate's default bound: min(max(3 * (source length + 1) + 10, min_length + 1),
    max_positions)."""
    return min(max(3 * (n_src + 1) + 10, min_length + 1), max_positions)


def step_log_probs(model, memory, mask, prefixes, fastpath, ban=None, process=None):
    """log_softmax of the next-token logits [len(prefixes), Vt] (float32) for decoder inputs
    `prefixes` (equal lengths, each starting with bos), the whole prefix recomputed; token
    `ban` (if not None) gets logit -inf first (--min-length); then process(prefixes, logits)
    (tools/processors_reference.Processors: xlate's processors on the raw logits, which the
    log_softmax renormalizes, as xlate's own beam search and greedy do)."""
    tgt = torch.tensor(prefixes, dtype=torch.long)
    mem = memory.expand(len(prefixes), -1, -1)
    msk = mask.expand(len(prefixes), -1)
    h = tm.decode(model, tgt, mem, msk, fastpath)
    with tm.reference_math(model, fastpath):
        logits = model.project(h[:, -1]).detach()
    if ban is not None:
        logits[:, ban] = float("-inf")
    if process is not None:
        logits = process(prefixes, logits.float())
    return torch.log_softmax(logits.float(), dim=-1)


def _stack(caches):
    """One decode_step cache of the rows of caches (each of one row, all of one length). The
    cross-attention's keys and values are those of the source, the same for every row: the
    first row's, expanded (not copied)."""
    B = len(caches)
    return {"pos": caches[0]["pos"],
            "self": [tuple(torch.cat([c["self"][l][i] for c in caches]) for i in (0, 1))
                     for l in range(len(caches[0]["self"]))],
            "cross": [tuple(x[:1].expand(B, -1, -1, -1) for x in kv)
                      for kv in caches[0]["cross"]]}


def _row(cache, j):
    """Row j of a decode_step cache, as a cache of its own (views: nothing is copied)."""
    return {"pos": cache["pos"], **{part: [(k[j: j + 1], v[j: j + 1]) for k, v in cache[part]]
                                    for part in ("self", "cross")}}


def cached_log_probs(model, memory, mask, hyps, fastpath, ban=None, process=None,
                     bos_id=tm.BOS, batched=False, memo=None):
    """step_log_probs of the hypotheses hyps (all of one length), each step computed once:
    the last token of [bos] + h.ids fed to torch_model.decode_step with h.cache; one row at a
    time, or (batched) the rows as one batch. memo (a dict of one source, or None): the logits
    (before ban and process) and the cache of every hypothesis computed so far, by its ids, so
    that searches of one source compute a hypothesis's step once between them. Returns
    (log-probs [len(hyps), Vt], each row's new cache)."""
    last = [bos_id if not h.ids else h.ids[-1] for h in hyps]
    out = [None] * len(hyps)  # (logits row, cache)
    todo = [j for j, h in enumerate(hyps) if memo is None or tuple(h.ids) not in memo]
    for j in range(len(hyps)):
        if memo is not None and j not in todo:
            out[j] = memo[tuple(hyps[j].ids)]
    if batched and len(todo) > 1:
        hid, c = tm.decode_step(model, _stack([hyps[j].cache for j in todo]),
                                [last[j] for j in todo], memory, mask, fastpath)
        caches = [_row(c, i) for i in range(len(todo))]
    else:
        rows, caches = [], []
        for j in todo:
            h, c = tm.decode_step(model, hyps[j].cache, [last[j]], memory, mask, fastpath)
            rows.append(h)
            caches.append(c)
        hid = torch.cat(rows) if rows else None
    if todo:
        with torch.no_grad():  # a plain matmul (+ bias): no fused path to avoid
            lg = model.project(hid)
        for i, j in enumerate(todo):
            out[j] = (lg[i], caches[i])
            if memo is not None:
                memo[tuple(hyps[j].ids)] = out[j]
    logits = torch.stack([o[0] for o in out])  # a copy: the processors change it in place
    if ban is not None:
        logits[:, ban] = float("-inf")
    if process is not None:
        logits = process([[bos_id] + h.ids for h in hyps], logits.float())
    return torch.log_softmax(logits.float(), dim=-1), [o[1] for o in out]


def search(model, src_ids, beam, max_length, bos_id=tm.BOS, eos_id=tm.EOS, fastpath=False,
           batched=False, min_length=0, process=None, start=None, memo=None, favor=None,
           tol=0.0, swaps=None):
    """Beam search of one sentence. Returns every finished hypothesis, in the order they
    finished (Hyp.order). Each step of a hypothesis is computed once, from its parent's cache
    (torch_model.decode_step). batched=False (the default) runs each live hypothesis through
    the decoder alone, so that equal prefixes give bit-identical log-probs and exact ties stay
    exact; batched=True runs the live hypotheses of a step as one batch: the same math, faster,
    but PyTorch's batched kernels may round rows differently. min_length: eos gets logit -inf while
    fewer than min_length tokens are generated (xlate --min-length). start: a Hyp to begin
    from instead of [bos] alone (its ids generated already; --return-alternatives' branches).
    memo: a dict the caller keeps for this source (see cached_log_probs), or None.
    favor, tol, swaps (tests/py/near_tie.py): candidates on the path of favor (ids without
    eos; the eos implied at its end) ranked as if tol higher, the gaps of the swaps that made
    appended to swaps (processors_reference.note_swaps)."""
    K = beam
    src = torch.tensor([list(src_ids) + [eos_id]], dtype=torch.long)
    mask = torch.zeros_like(src, dtype=torch.bool)
    memory = tm.encode(model, src, mask, fastpath)
    live = [Hyp([], np.float32(0.0), [])]
    if start is not None:  # its cache: bos and its tokens but the last fed one at a time
        h0 = Hyp(list(start.ids), np.float32(start.logprob), list(start.token_logprobs))
        for i, t in enumerate([bos_id] + h0.ids[:-1]):
            hit = memo.get(tuple(h0.ids[:i])) if memo is not None else None
            h0.cache = hit[1] if hit else \
                tm.decode_step(model, h0.cache, [t], memory, mask, fastpath)[1]
        live = [h0]
    finished = []

    def finish(h):
        h.order = len(finished)
        h.cache = None
        finished.append(h)

    if len(live[0].ids) >= max_length:  # a start as long as the bound: finished as it is
        finish(live[0])
        return finished

    for pos in range(len(live[0].ids), max_length):
        ban = eos_id if pos < min_length else None
        logp, caches = cached_log_probs(model, memory, mask, live, fastpath, ban, process,
                                        bos_id, batched, memo)
        V = logp.shape[1]
        # candidate log-probs, float32: parent + log_softmax
        cand = torch.stack([torch.tensor(h.logprob, dtype=torch.float32) + logp[j]
                            for j, h in enumerate(live)])          # [live, V]
        lp = cand.numpy().reshape(-1)
        parent = np.repeat(np.arange(len(live)), V)
        token = np.tile(np.arange(V), len(live))
        # rank: log-prob descending, then parent rank, then token id (lexsort: last key first),
        # among the candidates at or above the 2K-th best log-prob (its ties included: the
        # first 2K of the whole ranking are among them)
        neg = -lp.astype(np.float64)
        if favor is not None:
            path = list(favor) + [eos_id]
            for j, h in enumerate(live):
                if h.ids == path[: len(h.ids)] and len(h.ids) < len(path):
                    neg[j * V + path[len(h.ids)]] -= tol
        n2 = min(2 * K, neg.size)
        pick = np.nonzero(neg <= np.partition(neg, n2 - 1)[n2 - 1])[0]
        order = pick[np.lexsort((token[pick], parent[pick], neg[pick]))][: 2 * K]
        if favor is not None:
            P.note_swaps(lp, neg, order, swaps)
        new_live = []
        for k, c in enumerate(order):
            j, t = int(parent[c]), int(token[c])
            if not np.isfinite(lp[c]):  # forced away (a target prefix): never a hypothesis
                continue
            p = live[j]
            tlp = np.float32(logp[j, t])
            if t == eos_id:
                if k < K:
                    finish(Hyp(list(p.ids), np.float32(lp[c]), p.token_logprobs + [tlp], True))
                continue
            if len(new_live) < K:
                new_live.append(Hyp(p.ids + [t], np.float32(lp[c]), p.token_logprobs + [tlp],
                                    cache=caches[j]))
        live = new_live
        if pos + 1 >= max_length:
            for h in live:
                finish(h)
            live = []
        if len(finished) >= K or not live:
            break
    return finished


def n_best(finished, n, penalty, greedy=False, favor=None, tol=0.0, swaps=None):
    """The n best of `finished` (in finishing order) by score; ties keep the finishing order
    (Python's sort is stable). Returns [(Hyp, score)]. favor, tol, swaps: as search's, the
    hypothesis whose ids are favor ranked as if tol higher."""
    scored = [(h, score(h, penalty, greedy)) for h in finished]
    bonus = [tol if favor is not None and list(h.ids) == list(favor) else 0.0 for h in finished]
    key = [-(float(sc) + b) for (_, sc), b in zip(scored, bonus)]
    order = sorted(range(len(scored)), key=lambda i: key[i])
    if favor is not None and scored:
        P.note_swaps([float(sc) for _, sc in scored], key, order[:1], swaps)
    return [scored[i] for i in order[:n]]


def hyp_json(h, sc, sp=None, token_scores=False):
    """One hypothesis as xlate prints it in jsonl (same keys, same order)."""
    o = {}
    if sp is not None:
        o["translation"] = sp.decode_ids(h.ids) if h is not None else ""
    o["ids"] = list(h.ids) if h is not None else []
    o["logprob"] = float(h.logprob) if h is not None else 0
    o["score"] = float(sc) if h is not None else 0
    if h is not None:
        o["finished"] = bool(h.finished)
    if token_scores:
        o["token_logprobs"] = [float(x) for x in h.token_logprobs] if h is not None else []
    return o


def result_json(best, n, sp=None, token_scores=False):
    """The jsonl object of one sentence: best = [(Hyp, score)]."""
    if n > 1:
        return {"hypotheses": [hyp_json(h, s, sp, token_scores) for h, s in best]}
    h, s = best[0] if best else (None, 0)
    return hyp_json(h, s, sp, token_scores)


# ------------------------------------------------------------------------------- models

def read_metadata(path):
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        return json.loads(f.read(n)).get("__metadata__", {})


def parity_model(vdir):
    """The PyTorch model (weights at the variant's precision, as float32) of a parity fixture
    directory written by tools/reference.py: its stored weights (model.safetensors) loaded
    back, never rebuilt from the seed (PyTorch's initialisation arithmetic is not
    bit-identical across CPUs)."""
    return tm.from_model_dir(vdir)


def load_model(spec):
    """(model, max_positions) of a .pt checkpoint or a parity fixture directory / name."""
    if os.path.isfile(spec):
        ckpt = torch.load(spec, map_location="cpu")
        return tm.build(ckpt), 512
    vdir = spec
    if not os.path.isdir(vdir):
        vdir = os.path.join(PARITY, spec)
    if not os.path.isfile(os.path.join(vdir, "model.safetensors")):
        raise SystemExit(f"reference_beam.py: {spec}: neither a checkpoint file nor a model "
                         f"directory")
    with open(os.path.join(vdir, "config.json")) as f:
        maxpos = json.load(f).get("max_positions", 512)
    return parity_model(vdir), maxpos


def tie_tokens(model, pairs):
    """A copy of model where each target token b of (a, b) in pairs has exactly the weights of
    token a (target embedding row, output projection row and bias; the shared embedding row of
    a tied model): a and b then get bit-identical logits and, after either, identical states,
    so that beam search meets exact ties (candidates, parents, finished scores)."""
    sd = {k: v.clone() for k, v in model.state_dict().items()}
    keys = ("emb.weight",) if model.args["tie"] else ("tgt_emb.weight", "generator.weight",
                                                      "generator.bias")
    for a, b in pairs:
        for k in keys:
            sd[k][b] = sd[k][a]
    return tm.build({"model": sd, "args": model.args})


def parse_pair(s):
    a, b = s.split(":")
    return int(a), int(b)


def read_ids(path):
    with open(path) as f:
        return [[int(t) for t in line.split()] for line in f.read().splitlines()]


# ------------------------------------------------------------------------------- fixtures

PARITY = os.path.join(SCRIPT_DIR, "..", "tests", "fixtures", "parity")
EN_DE = os.path.join(SCRIPT_DIR, "..", "models", "en-de")
SPM = os.path.join(EN_DE, "spm.model")
FLICKR_EN = os.path.join(SCRIPT_DIR, "..", "tests", "data", "multi30k", "test_2016_flickr.en")
FIXTURE_BEAMS = (1, 2, 4, 5)
EN_DE_LINES = 30

# name: the model (parity variant or "en-de": models/en-de), ties, sources, max length
# (0: xlate's default bound)
FIXTURES = [dict(name=v, model=v, src="parity", max_length=16) for v in (
    "post_relu_tied", "pre_gelu_untied", "post_gelu_untied", "pre_relu_tied",
    "f16_pre_relu_untied", "bf16_post_gelu_tied")] + [
    dict(name="pre_gelu_untied_ties", model="pre_gelu_untied", ties=[(26, 12), (28, 40)],
         src="parity", max_length=16),
    dict(name="pre_relu_tied_max4", model="pre_relu_tied", src="parity", max_length=4),
    dict(name="en-de", model="en-de", src="flickr", max_length=0),
]

FIXTURE_README = """# PyTorch beam search fixtures

Generated by `/usr/bin/python3 tools/reference_beam.py fixtures --out tests/fixtures/beam`
(about {minutes} minutes on 2 cores); do not edit. torch {torch}, float32, the encoder in PyTorch's
composite math (`torch_model.reference_math`), every hypothesis through the decoder alone (batch
1), each step computed once from its parent's cache of keys and values (`torch_model.decode_step`;
the stored files were made recomputing the whole prefix at each step, and the two agree: the
same hypotheses, log-probs within 7.2e-5). `tests/py/test_beam.py` compares xlate's beam search with
them and re-runs a few sentences live to check they are still what PyTorch computes.

Each directory is one model:

| directory | model | sources | max length |
|---|---|---|---|
{rows}

Models: a `tests/fixtures/parity/VARIANT` random model is its stored `model.safetensors`
loaded into PyTorch (`torch_model.from_model_dir`; never rebuilt from its seed, whose arithmetic
is not bit-identical across CPUs);
`pre_gelu_untied_ties` is that variant with target tokens 12 and 40 given exactly the weights of
26 and 28 (`--tie 26:12 --tie 28:40`), so that candidates, parents and finished scores tie
exactly and the tie-breaks decide; `en-de` is xlate's `models/en-de` loaded into
PyTorch (bit for bit the weights of the training checkpoint), its sources the SentencePiece ids (python sentencepiece,
`spm.model`) of the first {en_de_lines} lines of `tests/data/multi30k/test_2016_flickr.en`.
Max length 0 is xlate's default bound, min(3 * (source length + 1) + 10, max_positions).

Files of a directory:

| file | what |
|---|---|
| `model.json` | the model, `ties`, `max_length` (as in the table) |
| `src.ids` | the sources, one per line, ids WITHOUT eos |
| `beamK.jsonl` | for beam size K ({beams}): one line per source, `{{"max_length": M, "finished": [...]}}`, every finished hypothesis `{{"ids", "logprob", "finished", "token_logprobs"}}` in the order they finished (`token_logprobs` left out for `en-de`, to keep the files small). Beam search does not depend on `--n-best` or `--length-penalty`: the n-best list of any N and penalty is `reference_beam.n_best` of this list (ranking by logprob / length^penalty, ties by this order). K = 1 is greedy: checked equal to `torch_model.greedy` (and to `greedy.ids` of the parity fixtures) when generated. |

Numbers are float32 values printed with 9 significant digits.
"""


def fixture_model(fx):
    """(PyTorch model, max_positions) of a fixture entry."""
    if fx["model"] == "en-de":
        model, maxpos = tm.from_model_dir(EN_DE), 512
    else:
        model, maxpos = load_model(os.path.join(PARITY, fx["model"]))
    if fx.get("ties"):
        model = tie_tokens(model, fx["ties"])
    return model, maxpos


def fixture_sources(fx):
    if fx["src"] == "parity":
        return read_ids(os.path.join(PARITY, fx["model"], "src.ids"))
    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=SPM)
    with open(FLICKR_EN, encoding="utf-8") as f:
        lines = f.read().splitlines()[:EN_DE_LINES]
    return [sp.encode(x) for x in lines]


def g9(x):
    return float(f"{float(x):.9g}")


def make_fixtures(argv):
    import time
    ap = argparse.ArgumentParser(prog="reference_beam.py fixtures")
    ap.add_argument("--out", default=os.path.join(SCRIPT_DIR, "..", "tests", "fixtures", "beam"))
    ap.add_argument("--only", help="comma-separated fixture names")
    a = ap.parse_args(argv)
    torch.set_num_threads(1)
    only = set(a.only.split(",")) if a.only else None
    t0 = time.time()
    rows = []
    for fx in FIXTURES:
        src_desc = ("`src.ids` of the parity variant" if fx["src"] == "parity" else
                    f"first {EN_DE_LINES} lines of test_2016_flickr.en")
        rows.append(f'| `{fx["name"]}` | {fx["model"]}'
                    + (" with ties " + ", ".join(f"{x}:{y}" for x, y in fx["ties"])
                       if fx.get("ties") else "")
                    + f' | {src_desc} | {fx["max_length"] or "default"} |')
        if only and fx["name"] not in only:
            continue
        model, maxpos = fixture_model(fx)
        srcs = fixture_sources(fx)
        d = os.path.join(a.out, fx["name"])
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "model.json"), "w") as f:
            json.dump({"model": fx["model"], "ties": fx.get("ties", []),
                       "max_length": fx["max_length"]}, f)
            f.write("\n")
        with open(os.path.join(d, "src.ids"), "w") as f:
            for s in srcs:
                f.write(" ".join(map(str, s)) + "\n")
        greedy_want = None
        if fx["src"] == "parity" and fx["max_length"] == 16 and not fx.get("ties"):
            greedy_want = read_ids(os.path.join(PARITY, fx["model"], "greedy.ids"))
        for K in FIXTURE_BEAMS:
            lines = []
            for i, s in enumerate(srcs):
                ml = fx["max_length"] or default_max_length(len(s), maxpos)
                fin = search(model, s, K, ml)
                if K == 1:  # beam 1 is greedy
                    g = tm.greedy(model, s, ml)
                    assert [h.ids for h in fin] == [g[0]] and fin[0].finished == g[1], \
                        f'{fx["name"]}: line {i + 1}: beam 1 {fin[0].ids} != greedy {g[0]}'
                    if greedy_want is not None:
                        assert fin[0].ids == greedy_want[i], f'{fx["name"]}: greedy.ids'
                hyps = []
                for h in fin:
                    o = {"ids": h.ids, "logprob": g9(h.logprob), "finished": h.finished}
                    if fx["name"] != "en-de":
                        o["token_logprobs"] = [g9(x) for x in h.token_logprobs]
                    hyps.append(o)
                lines.append(json.dumps({"max_length": ml, "finished": hyps},
                                        separators=(",", ":")))
            with open(os.path.join(d, f"beam{K}.jsonl"), "w") as f:
                f.write("\n".join(lines) + "\n")
            print(f'{fx["name"]}: beam {K}: {len(srcs)} sentences, '
                  f'{time.time() - t0:.0f} s', file=sys.stderr)
    if not only:
        with open(os.path.join(a.out, "README.md"), "w") as f:
            f.write(FIXTURE_README.format(minutes=max(1, round((time.time() - t0) / 60)),
                                          torch=torch.__version__, rows="\n".join(rows),
                                          en_de_lines=EN_DE_LINES,
                                          beams=", ".join(map(str, FIXTURE_BEAMS))))


def load_fixture(d, K):
    """[(max_length, [Hyp in finishing order])] of tests/fixtures/beam/NAME/beamK.jsonl."""
    out = []
    with open(os.path.join(d, f"beam{K}.jsonl")) as f:
        for line in f:
            o = json.loads(line)
            hyps = [Hyp(h["ids"], np.float32(h["logprob"]),
                        [np.float32(x) for x in h.get("token_logprobs", [])], h["finished"],
                        n) for n, h in enumerate(o["finished"])]
            out.append((o["max_length"], hyps))
    return out


# ------------------------------------------------------------------------------- main

def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["fixtures"]:
        return make_fixtures(argv[1:])
    ap = argparse.ArgumentParser(prog="reference_beam.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("model", help="checkpoint .pt, or a tests/fixtures/parity variant")
    ap.add_argument("--src-ids", required=True, help="sources, one per line, ids without eos")
    ap.add_argument("--beam", type=int, default=1)
    ap.add_argument("--n-best", type=int, default=1)
    ap.add_argument("--length-penalty", type=float, default=1.0)
    ap.add_argument("--max-length", type=int, default=0,
                    help="generated tokens at most, eos counted (0: xlate's default bound)")
    ap.add_argument("--min-length", type=int, default=0,
                    help="no eos before N tokens (raises the default bound to N + 1)")
    ap.add_argument("--spm", help="SentencePiece model: add \"translation\"")
    ap.add_argument("--scores", action="store_true", help="add \"token_logprobs\"")
    ap.add_argument("--fastpath", action="store_true", help="plain torch.no_grad()")
    ap.add_argument("--batch-beams", action="store_true",
                    help="run a step's live hypotheses as one batch (faster; see search())")
    ap.add_argument("--tie", action="append", type=parse_pair, default=[], metavar="A:B",
                    help="give target token B exactly the weights of A (exact ties)")
    ap.add_argument("--save-checkpoint", metavar="FILE",
                    help="also write the model searched (after --tie) as a checkpoint")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    a = ap.parse_args(argv)
    if a.beam < 1 or not 1 <= a.n_best <= a.beam:
        ap.error("need 1 <= --n-best <= --beam")
    if a.threads:
        torch.set_num_threads(a.threads)
    model, maxpos = load_model(a.model)
    if a.tie:
        model = tie_tokens(model, a.tie)
    if a.save_checkpoint:
        tm.save_checkpoint(a.save_checkpoint, model)
    sp = None
    if a.spm:
        import sentencepiece as spm
        sp = spm.SentencePieceProcessor(model_file=a.spm)
    out = sys.stdout
    for src in read_ids(a.src_ids):
        best = [(Hyp([], np.float32(0), [np.float32(0)], True), np.float32(0))] * a.n_best
        if src:
            ml = a.max_length if a.max_length > 0 else default_max_length(len(src), maxpos,
                                                                          a.min_length)
            fin = search(model, src, a.beam, ml, fastpath=a.fastpath, batched=a.batch_beams,
                         min_length=a.min_length)
            best = n_best(fin, a.n_best, a.length_penalty, greedy=a.beam == 1)
        out.write(json.dumps(result_json(best, a.n_best, sp, a.scores), ensure_ascii=False,
                             separators=(",", ":")) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
