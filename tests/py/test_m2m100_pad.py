"""A pad id inside a sequence of an M2M100 / NLLB-200 model (issue 40): positions as
transformers computes them, against the oracle tools/m2m100_reference.py (M2M100.position_ids
follows modeling_m2m_100.py create_position_ids_from_input_ids, lines cited there).

  - the source: a literal "<pad>" in the text becomes id 1 inside the sentence; it takes the
    table's zeroed padding row, and the tokens after it count only the non-pad tokens before
    them. Lines of Multi30k with "<pad>" put mid-line, on an NLLB and an M2M100 vocabulary,
    greedy and beam 4: the reference's tokenization holds the pad mid-source, and xlate's ids
    equal the reference's (near-ties measured, tests/py/near_tie.py);
  - the decoder: a pad fed to it (forced_bos_token_id 1 in generation_config.json) takes the
    padding row, and the tokens after it sit at their step, as generate() computes them with a
    cache (past_key_values_length counts the pad); ids as the reference's, greedy and beam 4.
Each case also checks that it can fail: the reference with every token positioned plainly
(padding_idx + 1 + index, xlate's rule before issue 40) gives other ids on some lines.

Random models in the hub layout by tools/make_m2m100.py in a temporary directory; the
reference's answers memoized by tests/py/oracle_memo.py. Run by tests/run.sh with env XLATE and
Debian's /usr/bin/python3.
"""
import functools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

import torch

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import m2m100_reference as R  # noqa: E402
import oracle_memo as OM  # noqa: E402
from checks import check, done, ok, not_ok  # noqa: E402
import near_tie  # noqa: E402

XLATE = os.path.abspath(os.path.join(TOP, os.environ.get("XLATE", "./xlate")))
FAMILIES = {  # name: (make_m2m100.py options, source language, target language)
    "nllb": (["--seed", "3"], "eng_Latn", "deu_Latn"),
    "m2m": (["--flavor", "m2m100", "--seed", "6"], "en", "fr"),
}
LINES = open(os.path.join(TOP, "tests", "data", "multi30k", "test_2016_flickr.en"),
             encoding="utf-8").read().split("\n")[:24]


def with_pads(lines):
    """Each line with "<pad>" put between two of its middle words (every third line two)."""
    out = []
    for i, x in enumerate(lines):
        w = x.split()
        at = max(1, len(w) // 2)
        w.insert(at, "<pad>")
        if i % 3 == 0:
            w.insert(min(len(w) - 1, at + 2), "<pad>")
        out.append(" ".join(w))
    return out


def plain_positions(m):
    """m positioning every token plainly: padding_idx + 1 + index + past (before issue 40)."""
    def ids(t, past=0):
        return torch.arange(t.shape[1])[None, :].expand_as(t) + past + m.pad + 1
    m.position_ids = ids
    return m


def run(args, inp):
    q = [] if args[0] == "encode" else ["-q"]
    p = subprocess.run([XLATE] + q + args, input=inp.encode("utf-8"), capture_output=True)
    if p.returncode:
        raise RuntimeError(f"xlate {' '.join(args)}: exit {p.returncode}: {p.stderr.decode()}")
    return p.stdout.decode("utf-8").split("\n")[:-1]


def search(m, src, K):
    ml = m.gen["max_length"]
    return R.strip_eos(m.greedy(src, ml) if K == 1 else m.beam(src, K, ml)[0][1], m.eos)


def sensitive(what, old, want):
    n = sum(a != b for a, b in zip(old, want))
    if n:
        ok(f"{what}: the check can fail: plain positions give other ids on {n} of {len(want)}")
    else:
        not_ok(what, "plain positions give the same ids on every line: the case tests nothing")


def source_pads(name, d, src_lang, tgt_lang):
    tok = R.Tokenizer(d)
    lines = with_pads(LINES)
    enc = [tok.encode(x, src_lang) for x in lines]
    srcs = [e[0] for e in enc]
    check(f"{name}: the reference tokenizes every line's <pad> as id {tok.pad} inside the "
          f"sentence ({len(lines)} lines)",
          lambda: None if all(tok.pad in s[1:-1] for s in srcs) else
          [s for s in srcs if tok.pad not in s[1:-1]][:2])
    got_tok = run(["encode", "-m", d], "\n".join(lines) + "\n")
    want_tok = [" ".join(map(str, tok.encode(x, src_lang)[0][0 if tok.legacy else 1:]))
                for x in lines]
    check(f"{name}: xlate encode of the lines = the reference's",
          lambda: None if got_tok == want_tok else f"{got_tok[:1]} vs {want_tok[:1]}")

    @functools.lru_cache(maxsize=None)
    def model():
        m = R.M2M100(d)
        m.gen["forced_bos_token_id"] = tok.codes[tgt_lang]
        return m
    for K in (1, 4):
        kind = "greedy" if K == 1 else f"beam {K}"
        want = OM.cached("m2m100 pad source", [lines, src_lang, tgt_lang, K],
                         lambda: [search(model(), s, K) for s in srcs], OM.dir_files(d))
        args = ["-m", d, "--split", "none", "--beam-size", str(K), "--source-lang", src_lang,
                "--target-lang", tgt_lang, "--output-format", "ids"]
        got = [[int(x) for x in line.split()] for line in run(args, "\n".join(lines) + "\n")]

        def refit(i):
            m = model()
            with near_tie.favoring(m, got[i]) as margins:
                return search(m, srcs[i], K), list(margins)
        near_tie.compare(f"{name}: <pad> mid-source, {src_lang} -> {tgt_lang}, {kind}: ids as "
                         f"the reference's", got, want, refit)
        if K == 1:
            def old_ids():
                m = plain_positions(R.M2M100(d))
                m.gen["forced_bos_token_id"] = tok.codes[tgt_lang]
                return [search(m, s, K) for s in srcs]
            old = OM.cached("m2m100 pad source, plain positions", [lines, src_lang, tgt_lang, K],
                            old_ids, OM.dir_files(d))
            sensitive(f"{name}: <pad> mid-source, {kind}", old, want)


def decoder_pads(tmp, name, base):
    """forced_bos_token_id = pad: the decoder is fed the pad at step 1."""
    d = os.path.join(tmp, name + "_forced_pad")
    shutil.copytree(base, d)
    p = os.path.join(d, "generation_config.json")
    g = json.load(open(p))
    g["forced_bos_token_id"] = g.get("pad_token_id", 1)
    json.dump(g, open(p, "w"))
    r = random.Random(4)
    V = json.load(open(os.path.join(d, "config.json")))["vocab_size"]
    srcs = [[r.randrange(4, min(V, 300)) for _ in range(r.randrange(2, 16))] for _ in range(24)]
    model = functools.lru_cache(maxsize=None)(lambda: R.M2M100(d))
    for K in (1, 4):
        kind = "greedy" if K == 1 else f"beam {K}"
        want = OM.cached("m2m100 forced pad", [srcs, K],
                         lambda: [search(model(), s, K) for s in srcs], OM.dir_files(d))
        got = [[int(x) for x in line.split()] for line in
               run(["-m", d, "--input-format", "ids", "--output-format", "ids",
                    "--beam-size", str(K)], "".join(" ".join(map(str, s)) + "\n" for s in srcs))]
        check(f"{name}, forced_bos_token_id = pad, {kind}: every translation starts with the pad",
              lambda: None if all(x and x[0] == 1 for x in got) else got[:2])

        def refit(i):
            m = model()
            with near_tie.favoring(m, got[i]) as margins:
                return search(m, srcs[i], K), list(margins)
        near_tie.compare(f"{name}, forced_bos_token_id = pad, {kind}: ids as the reference's",
                         got, want, refit)
        if K == 1:
            old = OM.cached("m2m100 forced pad, plain positions", [srcs, K],
                            lambda: [search(plain_positions(R.M2M100(d)), s, K) for s in srcs],
                            OM.dir_files(d))
            sensitive(f"{name}, forced_bos_token_id = pad, {kind}", old, want)


def main():
    tmp = tempfile.mkdtemp(prefix="xlate_m2m100_pad_")
    try:
        for name, (opts, src_lang, tgt_lang) in FAMILIES.items():
            d = os.path.join(tmp, name)
            OM.make_model(d, [sys.executable, os.path.join(TOP, "tools", "make_m2m100.py"), d]
                          + opts)
            source_pads(name, d, src_lang, tgt_lang)
            decoder_pads(tmp, name, d)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
