"""The decoding controls (--repetition-penalty, --no-repeat-ngram-size, --disable-unk, --suppress,
sampling, generation_config.json's processors) against this project's PyTorch oracles:
tools/processors_reference.py (transformers v4.40's logits processors, rule by rule, in
_get_logits_processor's order) inside tools/marian_reference.py (MarianMT generate(): greedy on
the raw logits, beam on the log-softmax) and tools/reference_beam.py (xlate's own models: the
processors on the raw logits, then the log-softmax).

Random MarianMT models in the hub layout are made by tools/make_marian.py into a temporary
directory (nothing is committed): "tied" (its greedy output repeats tokens and n-grams, so the
penalties bite) and "unk", the untied model with final_logits_bias of <unk> raised so that it
generates <unk>. Checked:
  - each option, greedy and beam 4: xlate's ids equal the reference's on every line but a
    measured near-tie (tests/py/near_tie.py: the reference's margin below 1e-4),
    and the option changes the reference's output on some of them (the check could fail);
    the repetition penalty meets positive and negative logits (counted in the reference);
  - generation_config.json's repetition_penalty, no_repeat_ngram_size, suppress_tokens,
    begin_suppress_tokens, forced_bos_token_id applied by default (greedy and beam), shown by
    `xlate info`, overridden by the options; do_sample's fields; refused combinations;
  - the default model (xlate's format) with the penalties, greedy and beam 4;
  - sampling: the same --seed gives the same lines for any batch size, window, thread count
    and whatever the lines before; top-k 1 is greedy; a tiny top-p is greedy; other seeds
    differ; without --seed, -v prints the seed that reproduces the run;
  - --target-prefix FILE (text or ids) and --target-prefix-column, greedy and beam 4, on both
    kinds of model: the prefix forced as processors_reference.target_prefix forces it;
    jsonl's prefix_length;
  - --return-alternatives: the N most probable tokens after the prefix, each continued
    greedily, in that order, on both kinds of model; with --beam-size 4, each continued as a
    beam search of its own from that token (CTranslate2's decode_alternatives: the
    continuation is make_search_strategy's search), its best hypothesis returned, and the
    beam's choice differing from greedy's on some line (the check could fail);
  - bad values: exit 1, the message naming the option.
Run by tests/run.sh with env XLATE (the binary) and Debian's /usr/bin/python3.
"""
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import sentencepiece as spm
import torch

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import marian_reference as R  # noqa: E402
import processors_reference as P  # noqa: E402
import reference_beam as RB  # noqa: E402
from convert import tensor_bytes, write_safetensors  # noqa: E402
from checks import check, done, expect_eq, ok, not_ok  # noqa: E402,F401
import oracle_memo as OM  # noqa: E402
import near_tie  # noqa: E402

XLATE = os.path.abspath(os.path.join(TOP, os.environ.get("XLATE", "./xlate")))
DATA = os.path.join(TOP, "tests", "data")
TEST_EN = open(os.path.join(DATA, "multi30k", "test_2016_flickr.en"),
               encoding="utf-8").read().split("\n")[:-1]
EN_DE = os.path.join(TOP, "models", "en-de")


def run(args, inp, check_rc=True):
    p = subprocess.run([XLATE, "-q", "--split", "none"] + args, input=inp.encode("utf-8"),
                       capture_output=True)
    if check_rc and p.returncode != 0:
        raise RuntimeError(f"xlate {' '.join(args)}: exit {p.returncode}: {p.stderr.decode()}")
    return p


def ids_of(p):
    return [[int(x) for x in l.split()] for l in p.stdout.decode().split("\n")[:-1]]


def marian_refit(m, tok, texts, K, opts, got):
    """near_tie's refit of marian_ref: line i searched again with the processors of opts,
    favoring xlate's ids got[i]."""
    def refit(i):
        m.opts = opts
        try:
            with near_tie.favoring(m, got[i]) as margins:
                src = tok.encode(texts[i])
                ids = m.greedy(src, m.gen["max_length"]) if K == 1 else \
                    m.beam(src, K, m.gen["max_length"])[0][1]
                return R.strip_eos(ids, m.eos), list(margins)
        finally:
            m.opts = {}
    return refit


# ------------------------------------------------------------------------ MarianMT models

# the repetition penalty's inputs by sign, counted while count_signs wraps it (marian_checks)
SIGNS = {"pos": 0, "neg": 0}


def model_files(m, tok):
    """What a reference's value depends on besides its inputs: the model's directory and the
    tokenizer's (oracle_memo's key)."""
    return OM.dir_files(m.dir) + OM.dir_files(tok.dir)


def model_state(m):
    """The model's settings as they are in memory (a test may change them after loading)."""
    return [m.gen, m.config, getattr(m, "opts", {})]


def marian_ref(m, tok, texts, K, opts):
    """The reference's ids of texts (greedy or beam K) with the processors of opts; from
    oracle_memo when the same model, texts and options were computed before (with the signs
    the repetition penalty met then, added to SIGNS as if computed again)."""
    def compute():
        m.opts = opts
        before = dict(SIGNS)
        out = []
        for t in texts:
            src = tok.encode(t)
            ids = m.greedy(src, m.gen["max_length"]) if K == 1 else \
                m.beam(src, K, m.gen["max_length"])[0][1]
            out.append(R.strip_eos(ids, m.eos))
        m.opts = {}
        return {"ids": out, "signs": {k: SIGNS[k] - before[k] for k in SIGNS}}
    before = dict(SIGNS)
    r = OM.cached("marian_ref", [texts, K, opts, model_state(m)], compute, model_files(m, tok))
    for k in SIGNS:
        SIGNS[k] = before[k] + r["signs"][k]
    return r["ids"]


def marian_case(name, d, m, tok, texts, K, args, opts, base):
    got = ids_of(run(["-m", d, "--beam-size", str(K), "--output-format", "ids"] + args,
                     "\n".join(texts) + "\n"))
    want = marian_ref(m, tok, texts, K, opts)
    changed = sum(a != b for a, b in zip(want, base))
    near_tie.compare(f"{name}: {' '.join(args)}, {'greedy' if K == 1 else f'beam {K}'} ids vs "
                     f"the reference (which the option changes on {changed} of {len(texts)} "
                     f"lines)", got, want, marian_refit(m, tok, texts, K, opts, got))
    check(f"{name}: {' '.join(args)} (K={K}) changes the reference's output somewhere",
          lambda: None if changed else "no line changes: the check could not fail")
    return got


def target_ids(d, text):
    """MarianTokenizer(text_target=...): target.spm's pieces numbered by vocab.json."""
    sp = spm.SentencePieceProcessor(model_file=os.path.join(d, "target.spm"))
    v = json.load(open(os.path.join(d, "vocab.json"), encoding="utf-8"))
    return [v.get(p, v["<unk>"]) for p in sp.encode(text, out_type=str)]


def count_signs(fn):
    """The repetition penalty's inputs by sign, counted into SIGNS as the reference applies
    it."""
    def wrapped(input_ids, scores, penalty):
        g = torch.gather(scores, 1, torch.tensor(input_ids))
        SIGNS["pos"] += int((g > 0).sum())
        SIGNS["neg"] += int((g < 0).sum())
        return fn(input_ids, scores, penalty)
    return wrapped, SIGNS


def marian_checks(tmp):
    d = os.path.join(tmp, "tied")
    OM.make_model(d, [sys.executable, os.path.join(TOP, "tools", "make_marian.py"), d,
                      "--max-positions", "1024"])
    m, tok = R.Marian(d), R.Tokenizer(d)
    m.memo = {}  # the searches of a source share their steps (marian_reference.rows_step)
    texts = {1: TEST_EN[:40], 4: TEST_EN[40:60]}
    base = {K: marian_ref(m, tok, t, K, {}) for K, t in texts.items()}
    rep = sum(len(x) != len(set(x)) for x in base[1])
    check(f"tied: the greedy reference repeats tokens on {rep} of 40 lines",
          lambda: None if rep >= 10 else "too few for the penalties to bite")
    # the most frequent generated token's text, as a --suppress phrase
    freq = {}
    for ids in base[1]:
        for i in ids:
            freq[i] = freq.get(i, 0) + 1
    word = next(tok.decode([i]) for i, _ in sorted(freq.items(), key=lambda x: -x[1])
                if tok.decode([i]).strip() and len(target_ids(d, tok.decode([i]))) == 1)
    pair = None
    for ids in base[1]:
        for a, b in zip(ids, ids[1:]):
            if tok.decode([a]).strip() and tok.decode([b]).strip() and a != b:
                pair = tok.decode([a, b])
                break
        if pair and len(target_ids(d, pair)) == 2:
            break
    orig = P.repetition_penalty
    P.repetition_penalty, signs = count_signs(orig)
    try:
        for K in (1, 4):
            for args, opts in ((["--repetition-penalty", "1.3"], {"repetition_penalty": 1.3}),
                               (["--repetition-penalty", "0.7"], {"repetition_penalty": 0.7}),
                               (["--no-repeat-ngram-size", "2"], {"no_repeat_ngram_size": 2}),
                               (["--no-repeat-ngram-size", "1"], {"no_repeat_ngram_size": 1}),
                               (["--no-repeat-ngram-size", "3", "--repetition-penalty", "1.1"],
                                {"no_repeat_ngram_size": 3, "repetition_penalty": 1.1}),
                               (["--suppress", word], {"suppress": [target_ids(d, word)]}),
                               (["--suppress", pair, "--suppress", word],
                                {"suppress": [target_ids(d, pair), target_ids(d, word)]})):
                marian_case("tied", d, m, tok, texts[K], K, args, opts, base[K])
    finally:
        P.repetition_penalty = orig
    check(f"the repetition penalty met positive ({signs['pos']}) and negative "
          f"({signs['neg']}) scores", lambda: None if signs["pos"] > 50 and signs["neg"] > 50
          else "one sign missing")
    unk_checks(tmp, d)
    generation_checks(tmp, d, base)
    prefix_checks_marian(tmp, d, m, tok, base)
    alternatives_checks_marian(tmp, d, m, tok, base)


def marian_alternatives_line(m, tok, d, t, p, K, favor=None):
    """The reference's 3 alternatives of line t after its prefix p (see
    alternatives_checks_marian), each continued greedily (K = 1: its token forced by the
    prefix) or as generate()'s beam search of K from that hypothesis (its log-prob the processed
    log-softmax's, as _beam_search scores tokens), whose best is the alternative. favor (xlate's
    alternatives of the line): the tokens and continuations broken towards them within near_tie's
    TOL. Returns (alternatives, margins)."""
    ml = m.gen["max_length"]
    pi = target_ids(d, p) if p else []
    src = tok.encode(t)
    mem = m.encode(src + [m.eos])
    seq = [m.start] + pi
    if K == 1:
        sc = m.process([seq], m.logits(mem, [seq]), ml)[0]
    else:
        lg = m.rows_step(src, mem, [seq], [m.prime(src, mem, seq[:-1])])[0]
        sc = m.process([seq], torch.log_softmax(lg, -1), ml)[0]
    allowed = [v for v in range(sc.shape[0]) if sc[v] != float("-inf") and v != m.eos]
    first = [a[len(pi)] if len(a) > len(pi) else -1 for a in favor] if favor else None
    order, margins = near_tie.favored_order(sc, allowed, first or [], 3)
    if not favor:
        margins = []
    alts = []
    for i, v in enumerate(order):
        fav = favor[i] if favor and order == first else None
        m.opts = {"prefix": pi + [v]} if K == 1 else ({"prefix": pi} if pi else {})
        try:
            ctx = near_tie.favoring(m, fav) if fav is not None else contextlib.nullcontext([])
            with ctx as mg:
                ids = m.greedy(src, ml) if K == 1 else \
                    m.beam(src, K, ml, start=(pi + [v], float(sc[v])))[0][1]
                margins += list(mg)
        finally:
            m.opts = {}
        alts.append(R.strip_eos(ids, m.eos))
    return alts, margins


def marian_alternatives(m, tok, d, texts, pres):
    """The reference's 3 alternatives of each line, each continued greedily."""
    return [marian_alternatives_line(m, tok, d, t, p, 1)[0] for t, p in zip(texts, pres)]


def marian_alternatives_beam(m, tok, d, texts, pres, K):
    """The same, each alternative token the start of a beam search of K."""
    return [marian_alternatives_line(m, tok, d, t, p, K)[0] for t, p in zip(texts, pres)]


def alternatives_checks_marian(tmp, d, m, tok, base):
    """--return-alternatives 3: the 3 most probable tokens after the prefix (the reference's
    processed logits, ties to the lower id; never eos: CTranslate2's decode_alternatives
    expands them with a BeamSearch of min_length 1, src/decoding.cc 1187-1195, which bans the
    end token at that step, apply_min_length 404), each continued greedily with it forced."""
    texts = TEST_EN[:12]
    pres = [tok.decode(base[1][i][:1]) if i % 2 else "" for i in range(len(texts))]
    want = OM.cached("marian alternatives greedy", [texts, pres, model_state(m)],
                     lambda: marian_alternatives(m, tok, d, texts, pres), model_files(m, tok))
    js = [json.loads(l) for l in run(["-m", d, "--target-prefix-column", "--output-format",
                                      "jsonl", "--return-alternatives", "3", "--beam-size", "1"],
                                     "".join(f"{t}\t{p}\n" for t, p in zip(texts, pres))
                                     ).stdout.decode().split("\n")[:-1]]
    got = [[h["ids"] for h in j["hypotheses"]] for j in js]
    near_tie.compare("MarianMT --return-alternatives 3 (half the lines with a prefix): the 3 "
                     "hypotheses of each line vs the reference", got, want,
                     lambda i: marian_alternatives_line(m, tok, d, texts[i], pres[i], 1, got[i]))
    differ = sum(len(set(map(tuple, w))) == 3 for w in want)
    check(f"the alternatives differ from each other ({differ} of {len(texts)} lines)",
          lambda: None if differ == len(texts) else "some equal")
    K = 4
    want_b = OM.cached("marian alternatives beam", [texts, pres, K, model_state(m)],
                       lambda: marian_alternatives_beam(m, tok, d, texts, pres, K),
                       model_files(m, tok))
    js = [json.loads(l) for l in run(["-m", d, "--target-prefix-column", "--output-format",
                                      "jsonl", "--return-alternatives", "3", "--beam-size",
                                      str(K)],
                                     "".join(f"{t}\t{p}\n" for t, p in zip(texts, pres))
                                     ).stdout.decode().split("\n")[:-1]]
    got = [[h["ids"] for h in j["hypotheses"]] for j in js]
    near_tie.compare("MarianMT --return-alternatives 3 --beam-size 4: each alternative's beam's "
                     "best vs the reference", got, want_b,
                     lambda i: marian_alternatives_line(m, tok, d, texts[i], pres[i], K, got[i]))
    moved = sum(a != b for a, b in zip(want_b, want))
    check(f"the beam continues some alternative otherwise than greedy ({moved} of "
          f"{len(texts)} lines)", lambda: None if moved else "none: the check could not fail")


def prefix_checks_marian(tmp, d, m, tok, base):
    """--target-prefix FILE (text, cut by target.spm) and --target-prefix-column, greedy and
    beam 4, against the reference with the prefix forced (processors_reference.target_prefix)."""
    for K, texts in ((1, TEST_EN[:40]), (4, TEST_EN[40:60])):
        # a prefix unlike the search's own start: the text of tokens 1-2 of another line's output
        pres = [tok.decode(base[K][(i + 1) % len(texts)][:2]) for i in range(len(texts))]
        pre_ids = [target_ids(d, p) for p in pres]
        want = [marian_ref(m, tok, [t], K, {"prefix": pi})[0] for t, pi in zip(texts, pre_ids)]
        pf = os.path.join(tmp, f"prefix{K}.txt")
        open(pf, "w", encoding="utf-8").write("\n".join(pres) + "\n")
        got = ids_of(run(["-m", d, "--beam-size", str(K), "--output-format", "ids",
                          "--target-prefix", pf], "\n".join(texts) + "\n"))
        changed = sum(a != b for a, b in zip(want, base[K]))
        near_tie.compare(f"--target-prefix FILE, {'greedy' if K == 1 else f'beam {K}'}: ids "
                         f"vs the reference (the prefix changes {changed} of {len(texts)} lines)",
                         got, want, lambda i: marian_refit(m, tok, texts, K,
                                                           {"prefix": pre_ids[i]}, got)(i))
        check(f"--target-prefix (K={K}): each translation starts with its prefix",
              lambda: None if all(g[:len(p)] == p for g, p in zip(got, pre_ids)) else "no")
        col = ids_of(run(["-m", d, "--beam-size", str(K), "--output-format", "ids",
                          "--target-prefix-column"],
                         "".join(f"{t}\t{p}\n" for t, p in zip(texts, pres))))
        check(f"--target-prefix-column (K={K}): the same as the file",
              lambda: None if col == got else "differs")
        js = [json.loads(l) for l in run(["-m", d, "--beam-size", str(K), "--output-format",
                                          "jsonl", "--target-prefix", pf],
                                         "\n".join(texts) + "\n").stdout.decode().split("\n")[:-1]]
        check(f"jsonl (K={K}): prefix_length is the prefix's token count",
              lambda: None if [j.get("prefix_length") for j in js] ==
              [len(p) or None for p in pre_ids] else [j.get("prefix_length") for j in js][:5])


def unk_checks(tmp, d):
    """A copy whose <unk> gets final_logits_bias + 16 (the logits' spread is about 8): the
    reference generates it."""
    u = os.path.join(tmp, "unk")
    shutil.copytree(d, u)
    w = R.read_safetensors(os.path.join(u, "model.safetensors"))
    unk = json.load(open(os.path.join(u, "vocab.json"), encoding="utf-8"))["<unk>"]
    V = w["model.shared.weight"].shape[0]
    bias = w.get("final_logits_bias", torch.zeros(1, V)).clone()
    bias[0, unk] += 16.0
    w["final_logits_bias"] = bias
    write_safetensors(os.path.join(u, "model.safetensors"),
                      [(k, tensor_bytes(v, "f32")) for k, v in w.items()], {"format": "pt"})
    m, tok = R.Marian(u), R.Tokenizer(u)
    m.memo = {}
    for K, texts in ((1, TEST_EN[100:140]), (4, TEST_EN[140:160])):
        base = marian_ref(m, tok, texts, K, {})
        n = sum(unk in x for x in base)
        check(f"unk model (K={K}): the reference generates <unk> on {n} of {len(texts)} lines",
              lambda: None if n >= 5 else "too few")
        got = marian_case("unk", u, m, tok, texts, K, ["--disable-unk"], {"unk": unk}, base)
        check(f"--disable-unk (K={K}): no <unk> in xlate's output",
              lambda: None if not any(unk in x for x in got) else "an <unk>")


def edit_gen(tmp, d, name, fields):
    g = os.path.join(tmp, name)
    shutil.copytree(d, g)
    path = os.path.join(g, "generation_config.json")
    c = json.load(open(path))
    c.update(fields)
    json.dump(c, open(path, "w"))
    return g


def generation_checks(tmp, d, base):
    """generation_config.json's processors, applied as generate() applies them."""
    common = [i for i, _ in sorted(((i, sum(x.count(i) for x in base[1])) for i in
                                    set(sum(base[1], []))), key=lambda x: -x[1])]
    fields = {"repetition_penalty": 1.25, "no_repeat_ngram_size": 3,
              "suppress_tokens": common[:2], "begin_suppress_tokens": common[2:4],
              "forced_bos_token_id": common[5]}
    g = edit_gen(tmp, d, "gen", fields)
    m, tok = R.Marian(g), R.Tokenizer(g)
    m.memo = {}
    for K, texts in ((1, TEST_EN[:40]), (4, TEST_EN[40:60])):
        marian_case("generation_config.json processors", g, m, tok, texts, K, [], {}, base[K])
        got = ids_of(run(["-m", g, "--beam-size", str(K), "--output-format", "ids"],
                         "\n".join(texts) + "\n"))
        check(f"forced_bos_token_id (K={K}): every line starts with it, suppress_tokens never "
              "appear", lambda: None if all(x and x[0] == common[5] and common[0] not in x and
                                           common[1] not in x for x in got) else got[:2])
    # begin_suppress_tokens without forced bos: at the first token
    g2 = edit_gen(tmp, d, "gen2", {"begin_suppress_tokens": [x[0] for x in base[1][:6]]})
    m2 = R.Marian(g2)
    marian_case("begin_suppress_tokens", g2, m2, tok, TEST_EN[:40], 1, [], {}, base[1])
    # the options override the model's values
    marian_case("generation_config.json processors, options over them", g, m, tok,
                TEST_EN[:40], 1, ["--repetition-penalty", "1", "--no-repeat-ngram-size", "0"],
                {"repetition_penalty": 1.0, "no_repeat_ngram_size": 0},
                marian_ref(m, tok, TEST_EN[:40], 1, {}))
    info = subprocess.run([XLATE, "info", g], capture_output=True, text=True).stdout
    want = (f"repetition_penalty 1.25, no_repeat_ngram_size 3, suppress_tokens 2, "
            f"begin_suppress_tokens 2, forced_bos_token_id {common[5]}")
    check("xlate info shows the processors' fields", lambda: None if want in info else info)
    # do_sample: sampling by default, with the model's top_k; top_k 1 is greedy
    s = edit_gen(tmp, d, "sample", {"do_sample": True, "num_beams": 1, "top_k": 1,
                                   "temperature": 0.5})
    inp = "\n".join(TEST_EN[:40]) + "\n"
    p = subprocess.run([XLATE, "-v", "-m", s, "--output-format", "ids", "--split", "none"],
                       input=inp.encode(), capture_output=True)
    check("do_sample true, top_k 1: -v says sampling, the ids are greedy's",
          lambda: None if b"sampling seed" in p.stderr and ids_of(p) == base[1]
          else p.stderr.decode()[-300:])
    info = subprocess.run([XLATE, "info", s], capture_output=True, text=True).stdout
    check("xlate info shows do_sample's fields",
          lambda: None if "do_sample true: top_k 1, top_p 1, temperature 0.5" in info else info)
    p = run(["-m", s, "--output-format", "ids", "--beam-size", "4"],
            "\n".join(TEST_EN[:10]) + "\n")
    check("do_sample true, --beam-size 4: beam search (the option wins)",
          lambda: None if ids_of(p) == marian_ref(R.Marian(s), tok, TEST_EN[:10], 4, {})
          else "differs from the reference's beam 4")
    for name, f, bits in (("beam_sample", {"do_sample": True, "num_beams": 4},
                           ["do_sample", "num_beams 4"]),
                          ("typical_p", {"do_sample": True, "num_beams": 1, "typical_p": 0.5},
                           ["typical_p", "does not implement"]),
                          ("bad_penalty", {"repetition_penalty": -1.0},
                           ["repetition_penalty", "-1"]),
                          ("bad_suppress", {"suppress_tokens": [99999]},
                           ["suppress_tokens", "99999"])):
        b = edit_gen(tmp, d, name, f)
        p = subprocess.run([XLATE, "-q", "-m", b], input=b"A dog.\n", capture_output=True)
        msg = p.stderr.decode()
        check(f"generation_config.json {name}: exit 2 naming {bits}",
              lambda: None if p.returncode == 2 and all(x in msg for x in bits) else
              f"exit {p.returncode}: {msg!r}")


# ------------------------------------------------------------------------ the default model

# reference_beam.search's memo of each source (tools/reference_beam.py cached_log_probs): the
# searches of one source below (with and without an option, greedy and beam, the alternatives)
# compute each hypothesis's decoder step once between them
MEMO = {}


def en_de():
    """models/en-de in PyTorch (model, max positions), loaded at the first reference computed
    (none when oracle_memo has them all)."""
    if "model" not in MEMO:
        MEMO["model"] = RB.load_model(EN_DE)
    return MEMO["model"]


def rb_best(s, K, opts, n=1, what="best"):
    """reference_beam's best hypothesis (n = 2: the second) of source ids s with the processors
    of opts, from oracle_memo when computed before."""
    def compute():
        model, maxpos = en_de()
        pr = P.Processors(opts, RB.tm.EOS)
        fin = RB.search(model, s, K, RB.default_max_length(len(s), maxpos),
                        process=(lambda ids, lg: pr(ids, lg)) if opts else None, batched=True,
                        memo=MEMO.setdefault(tuple(s), {}))
        return RB.n_best(fin, n, 1.0, greedy=K == 1)[-1][0].ids
    return OM.cached("reference_beam " + what, [s, K, opts, n], compute,
                     OM.dir_files(EN_DE))


def rb_refit(srcs, K, opts, got):
    """near_tie's refit of rb_best: source i searched again favoring xlate's ids got[i]."""
    def refit(i):
        model, maxpos = en_de()
        pr = P.Processors(opts, RB.tm.EOS)
        swaps = []
        fav = dict(favor=got[i], tol=near_tie.TOL, swaps=swaps)
        fin = RB.search(model, srcs[i], K, RB.default_max_length(len(srcs[i]), maxpos),
                        process=(lambda ids, lg: pr(ids, lg)) if opts else None, batched=True,
                        memo=MEMO.setdefault(tuple(srcs[i]), {}), **fav)
        return RB.n_best(fin, 1, 1.0, greedy=K == 1, **fav)[0][0].ids, swaps
    return refit


def default_model_checks():
    sp = spm.SentencePieceProcessor(model_file=os.path.join(EN_DE, "spm.model"))
    # the longest of 200 lines: the most room for repeated tokens
    texts = sorted(TEST_EN[200:400], key=lambda t: -len(t))[:10]
    srcs = [sp.encode(t) for t in texts]
    inp = "\n".join(" ".join(map(str, s)) for s in srcs) + "\n"

    def best(s, K, opts=None):
        return rb_best(s, K, opts or {})

    for K, n in ((1, 10), (4, 6)):
        base = [best(s, K) for s in srcs[:n]]  # without the option: the same for each
        for args, opts in ((["--repetition-penalty", "1.5"], {"repetition_penalty": 1.5}),
                           (["--no-repeat-ngram-size", "1"], {"no_repeat_ngram_size": 1}),
                           (["--suppress", "Mann"], {"suppress": [sp.encode("Mann")]})):
            want = [best(s, K, opts) for s in srcs[:n]]
            got = ids_of(run(["--input-format", "ids", "--output-format", "ids",
                              "--beam-size", str(K)] + args, inp))[:n]
            changed = sum(a != b for a, b in zip(want, base))
            near_tie.compare(f"default model: {' '.join(args)}, "
                             f"{'greedy' if K == 1 else f'beam {K}'} vs tools/reference_beam.py "
                             f"(changed on {changed} of {n})", got, want,
                             rb_refit(srcs[:n], K, opts, got))
            check(f"default model: {' '.join(args)} (K={K}) changes the reference's output",
                  lambda: None if changed else "no change: the check could not fail")
    # target prefixes as ids: the first two tokens of the beam-2 search's second hypothesis
    for K, n in ((1, 10), (4, 4)):
        pres, want = [], []
        for s in srcs[:n]:
            pres.append(rb_best(s, 2, {}, n=2)[:2])
            want.append(best(s, K, {"prefix": pres[-1]}))
        tmpf = tempfile.NamedTemporaryFile("w", suffix=".ids", delete=False)
        tmpf.write("\n".join(" ".join(map(str, p)) for p in pres) + "\n")
        tmpf.close()
        try:
            got = ids_of(run(["--input-format", "ids", "--output-format", "ids", "--beam-size",
                              str(K), "--target-prefix", tmpf.name],
                             "\n".join(" ".join(map(str, s)) for s in srcs[:n]) + "\n"))
        finally:
            os.unlink(tmpf.name)
        near_tie.compare(f"default model: --target-prefix (ids), "
                         f"{'greedy' if K == 1 else f'beam {K}'} vs tools/reference_beam.py",
                         got, want, lambda i: rb_refit(srcs[:n], K, {"prefix": pres[i]}, got)(i))
    # --return-alternatives 4 after no prefix and after the prefixes above: the 4 most
    # probable tokens of the position but eos (reference log-probs, ties to the lower id;
    # CTranslate2 bans eos there, see alternatives_checks_marian), each then
    # continued greedily (reference_beam's K = 1) with it forced
    for with_prefix in (0, 1):
        want = [rb_alternatives(s, list(pr0) if with_prefix else [], 4, 1)
                for s, pr0 in zip(srcs[:4], pres[:4])]
        tmpf = tempfile.NamedTemporaryFile("w", suffix=".ids", delete=False)
        tmpf.write("\n".join(" ".join(map(str, p)) if with_prefix else "" for p in pres[:4]) +
                   "\n")
        tmpf.close()
        try:
            js = [json.loads(l) for l in run(
                ["--input-format", "ids", "--output-format", "jsonl", "--return-alternatives",
                 "4", "--target-prefix", tmpf.name],
                "\n".join(" ".join(map(str, s)) for s in srcs[:4]) + "\n"
            ).stdout.decode().split("\n")[:-1]]
        finally:
            os.unlink(tmpf.name)
        got = [[h["ids"] for h in j["hypotheses"]] for j in js]
        pis = [list(pr0) if with_prefix else [] for pr0 in pres[:4]]
        near_tie.compare(f"default model: --return-alternatives 4"
                         f"{' after a prefix' if with_prefix else ''}: the hypotheses vs "
                         "tools/reference_beam.py", got, want,
                         lambda i: rb_alternatives_line(srcs[i], pis[i], 4, 1, got[i]))
        alt_beam_default(srcs[:4], pres[:4] if with_prefix else [[]] * 4, want)
    MEMO.clear()


def rb_alternatives_line(s, pi, A, K, favor=None):
    """The A most probable tokens after the prefix pi but eos (reference log-probs, ties to
    the lower id), each the start of reference_beam's search of K (greedy's K = 1 with the
    token forced; beam: the start's log-prob the prefix's, 0 each, plus the token's), the best
    of each. favor (xlate's alternatives): the tokens and searches broken towards them within
    near_tie's TOL. Returns (alternatives, margins)."""
    model, maxpos = en_de()
    src = torch.tensor([list(s) + [RB.tm.EOS]], dtype=torch.long)
    mask = torch.zeros_like(src, dtype=torch.bool)
    mem = RB.tm.encode(model, src, mask, False)
    lp = RB.step_log_probs(model, mem, mask, [[RB.tm.BOS] + pi], False)[0]
    allowed = [v for v in range(lp.shape[0]) if v != RB.tm.EOS]
    first = [a[len(pi)] if len(a) > len(pi) else -1 for a in favor] if favor else []
    order, margins = near_tie.favored_order(lp, allowed, first, A)
    if not favor:
        margins = []
    alts = []
    for i, v in enumerate(order):
        if K == 1:
            pr = P.Processors({"prefix": pi + [v]}, RB.tm.EOS)
            start = None
        else:
            pr = P.Processors({"prefix": pi}, RB.tm.EOS)
            start = RB.Hyp(pi + [v], RB.np.float32(lp[v]), [RB.np.float32(0)] * len(pi) +
                           [RB.np.float32(lp[v])])
        swaps = []
        fav = dict(favor=favor[i], tol=near_tie.TOL, swaps=swaps) \
            if favor and order == first else {}
        fin = RB.search(model, s, K, RB.default_max_length(len(s), maxpos),
                        process=lambda ids, lg: pr(ids, lg), start=start, batched=True,
                        memo=MEMO.setdefault(tuple(s), {}), **fav)
        alts.append(RB.n_best(fin, 1, 1.0, greedy=K == 1, **fav)[0][0].ids)
        margins += swaps
    return alts, margins


def rb_alternatives(s, pi, A, K):
    """rb_alternatives_line's alternatives, from oracle_memo when computed before."""
    return OM.cached("reference_beam alternatives", [s, pi, A, K],
                     lambda: rb_alternatives_line(s, pi, A, K)[0], OM.dir_files(EN_DE))


def alt_beam_default(srcs, pres, greedy_alts, A=4, K=4):
    """--return-alternatives 4 --beam-size 4 on the default model: the A most probable tokens
    after the prefix but eos (reference log-probs, ties to the lower id), each the start of
    reference_beam's search (K beams; the start's log-prob the prefix's, 0 each, plus the
    token's), whose best by logprob / length is the alternative."""
    want = [rb_alternatives(s, list(pi), A, K) for s, pi in zip(srcs, pres)]
    tmpf = tempfile.NamedTemporaryFile("w", suffix=".ids", delete=False)
    tmpf.write("\n".join(" ".join(map(str, p)) for p in pres) + "\n")
    tmpf.close()
    try:
        js = [json.loads(l) for l in run(
            ["--input-format", "ids", "--output-format", "jsonl", "--return-alternatives",
             str(A), "--beam-size", str(K), "--target-prefix", tmpf.name],
            "\n".join(" ".join(map(str, s)) for s in srcs) + "\n").stdout.decode().split("\n")[:-1]]
    finally:
        os.unlink(tmpf.name)
    got = [[h["ids"] for h in j["hypotheses"]] for j in js]
    after = " after a prefix" if any(pres) else ""
    near_tie.compare(f"default model: --return-alternatives {A} --beam-size {K}{after}: each "
                     "alternative's beam's best vs tools/reference_beam.py", got, want,
                     lambda i: rb_alternatives_line(srcs[i], list(pres[i]), A, K, got[i]))
    moved = sum(a != b for a, b in zip(want, greedy_alts))
    check(f"default model{after}: the beam continues some alternative otherwise than greedy "
          f"({moved} of {len(srcs)} lines)",
          lambda: None if moved else "none: the check could not fail")


# ------------------------------------------------------------------------ sampling

def sampling_checks():
    lines = TEST_EN[300:340] + ["A man is riding a bike. Two girls are playing in the park.",
                                "The dog runs after the ball. It is raining."]
    inp = "\n".join(lines) + "\n"

    def out(args, text=inp):
        p = subprocess.run([XLATE, "-q", "--seed", "7"] + args, input=text.encode(),
                           capture_output=True)
        if p.returncode:
            raise RuntimeError(p.stderr.decode())
        return p.stdout.decode().split("\n")[:-1]
    samp = ["--sampling-topk", "0"]
    ref = out(samp)
    for extra in (["--batch-size", "1"], ["--batch-size", "7", "--threads", "1"],
                  ["--batch-size", "32", "--threads", "2", "--window", "5"],
                  ["--window", "1"]):
        check(f"sampling --seed 7: the same lines with {' '.join(extra)}",
              lambda: None if out(samp + extra) == ref else "differs")
    # the lines before do not matter: other text in lines 0-9, the same lines 10+
    other = "\n".join(TEST_EN[500:510] + lines[10:]) + "\n"
    check("sampling: a line's translation does not depend on the lines before it",
          lambda: None if out(samp, other)[10:] == ref[10:] else "differs")
    greedy = subprocess.run([XLATE, "-q"], input=inp.encode(), capture_output=True
                            ).stdout.decode().split("\n")[:-1]
    differ = sum(a != b for a, b in zip(ref, greedy))
    check(f"sampling from all tokens differs from greedy ({differ} of {len(lines)} lines)",
          lambda: None if differ >= 10 else "too few")
    other_seed = subprocess.run([XLATE, "-q", "--seed", "8"] + samp, input=inp.encode(),
                                capture_output=True).stdout.decode().split("\n")[:-1]
    d2 = sum(a != b for a, b in zip(ref, other_seed))
    check(f"--seed 8 differs from --seed 7 ({d2} of {len(lines)} lines)",
          lambda: None if d2 >= 10 else "too few")
    for args in (["--sampling-topk", "1", "--sampling-temperature", "0.7"],
                 ["--sampling-topp", "0.001", "--sampling-temperature", "2"]):
        check(f"sampling {' '.join(args)}: greedy's lines",
              lambda: None if out(args) == greedy else "differs")
    p = subprocess.run([XLATE, "-v", "--sampling-temperature", "1.5"], input=inp.encode(),
                       capture_output=True)
    seed = [l for l in p.stderr.decode().split("\n") if "sampling seed" in l]
    check("without --seed, -v prints the seed", lambda: None if seed else p.stderr.decode())
    if seed:
        s = seed[0].split("sampling seed ")[1].split()[0]
        again = subprocess.run([XLATE, "-q", "--seed", s, "--sampling-temperature", "1.5"],
                               input=inp.encode(), capture_output=True).stdout
        check("that seed reproduces the run", lambda: None if again == p.stdout else "differs")


def usage_checks():
    for args, bits in ((["--repetition-penalty", "-1"], ["--repetition-penalty", "> 0"]),
                       (["--repetition-penalty", "0"], ["--repetition-penalty"]),
                       (["--repetition-penalty", "x"], ["--repetition-penalty"]),
                       (["--no-repeat-ngram-size", "-1"], ["--no-repeat-ngram-size"]),
                       (["--sampling-topp", "0"], ["--sampling-topp", "(0, 1]"]),
                       (["--sampling-topp", "1.5"], ["--sampling-topp"]),
                       (["--sampling-topk", "-2"], ["--sampling-topk"]),
                       (["--sampling-temperature", "0"], ["--sampling-temperature"]),
                       (["--seed", "x"], ["--seed"]), (["--seed", "-1"], ["--seed"]),
                       (["--suppress", " "], ["--suppress", "no target tokens"]),
                       (["--beam-size", "4", "--sampling-topk", "5"],
                        ["--sampling-topk", "--beam-size"]),
                       (["--target-prefix", "/nonexistent/p.txt"], ["--target-prefix"]),
                       (["--return-alternatives", "0"], ["--return-alternatives"]),
                       (["--return-alternatives", "3", "--beam-size", "4", "--n-best", "2"],
                        ["--return-alternatives", "--n-best"]),
                       (["--target-prefix-column", "--paragraphs"],
                        ["--target-prefix", "--paragraphs"]),
                       (["--target-prefix-column", "--max-length", "2"],
                        ["--target-prefix", "--max-length", "line 1"]),
                       (["--target-prefix-column", "--input-format", "ids"],
                        ["--target-prefix", "target id", "line 1"])):
        inp = (b"5 6\t9 99999\n" if "ids" in args else
               b"A dog.\tEin Hund rennt\n" if "--target-prefix-column" in args else b"A dog.\n")
        p = subprocess.run([XLATE] + args, input=inp, capture_output=True)
        msg = p.stderr.decode()
        check(f"xlate {' '.join(args)}: exit 1 naming {bits[0]}",
              lambda: None if p.returncode == 1 and all(b in msg for b in bits) and
              msg.count("\n") == 1 else f"exit {p.returncode}: {msg!r}")


def main():
    tmp = tempfile.mkdtemp(prefix="xlate_decode_")
    try:
        usage_checks()
        sampling_checks()
        default_model_checks()
        marian_checks(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
