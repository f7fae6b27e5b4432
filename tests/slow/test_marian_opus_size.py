"""The slow tier (`make test-slow`; CI does not run it): xlate on a random MarianMT directory of
Helsinki-NLP/opus-mt-en-de's exact size, against tools/marian_reference.py (PyTorch).

The model is made by tools/make_marian.py in a temporary directory (never committed; ~148 MB):
d_model 512, 6 + 6 layers, 8 heads, ffn 2048, swish, f16 weights, one shared vocabulary of
58,101 ids whose ~3,600 real pieces (source.spm + target.spm) are spread over the whole range
(--spread), so that about 44% of the ids, and of the real pieces, lie past 32,767; a bias on the
real pieces (--real-bias) makes the decoder emit them rather than the fillers. Checked: greedy
and beam 4, ids and text, identical to the reference on every line but a measured near-tie
(tests/py/near_tie.py); the outputs hold ids past
32,767. Random weights of this size fall into repeating one token per line (centering helps
little): the test is about size, f16 and large ids, the small models of tests/py/test_marian.py
about varied output. Takes 30 s to 2 minutes (most of it making the model and PyTorch's steps).
Run: XLATE=build/xlate /usr/bin/python3 tests/slow/test_marian_opus_size.py
"""
import json
import os
import subprocess
import sys
import tempfile
import shutil

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.join(TOP, "tests", "py"))
import marian_reference as R  # noqa: E402
from checks import check, done  # noqa: E402
import near_tie  # noqa: E402
from test_marian import TEST_EN, ids_lines, lines_of, reference, run, source_only  # noqa: E402

GREEDY_LINES, BEAM_LINES = 8, 4
MAKE = ["--d", "512", "--layers", "6", "--heads", "8", "--ffn", "2048", "--vocab-size", "58101",
        "--spm-vocab", "8000", "--spread", "--dtype", "f16", "--center-batch", "4",
        "--emb-std", "0.05", "--eos-bias", "6", "--real-bias", "4", "--max-length", "24",
        "--seed", "21"]


def main():
    tmp = tempfile.mkdtemp(prefix="xlate_opus_size_")
    try:
        d = os.path.join(tmp, "opus-mt-size")
        subprocess.run([sys.executable, os.path.join(TOP, "tools", "make_marian.py"), d] + MAKE,
                       check=True, stderr=subprocess.DEVNULL)
        c = json.load(open(os.path.join(d, "config.json"), encoding="utf-8"))
        v = json.load(open(os.path.join(d, "vocab.json"), encoding="utf-8"))
        real = [i for p, i in v.items() if not p.startswith("<extra_")]
        past = sum(i > 32767 for i in real)
        check(f"the model: d {c['d_model']}, {c['encoder_layers']} + {c['decoder_layers']} "
              f"layers, {len(v)} ids ({100 * (len(v) - 32768) / len(v):.1f}% past 32,767), "
              f"{len(real)} real pieces of which {past} past 32,767, f16, "
              f"{os.path.getsize(os.path.join(d, 'model.safetensors')) / 1e6:.0f} MB",
              lambda: None if (c["d_model"], c["encoder_layers"], c["decoder_layers"], len(v)) ==
              (512, 6, 6, 58101) and past > 0.35 * len(real) else "wrong shape")
        m, tok = R.Marian(d), R.Tokenizer(d)
        only = source_only(tok)
        for K, n in ((1, GREEDY_LINES), (4, BEAM_LINES)):
            texts = TEST_EN[:n]
            args = ["-q", "-m", d, "--beam-size", str(K)]
            got_ids = ids_lines(run(args + ["--output-format", "ids"], "\n".join(texts) + "\n"))
            got_txt = lines_of(run(args, "\n".join(texts) + "\n"))
            want = reference(m, tok, texts, K)
            what = "greedy" if K == 1 else f"beam {K}"
            refits = {}

            def refit(i, K=K, texts=texts, got_ids=got_ids):  # favoring xlate's ids of line i
                if i not in refits:
                    with near_tie.favoring(m, got_ids[i]) as margins:
                        src = tok.encode(texts[i])
                        out = m.greedy(src, m.gen["max_length"]) if K == 1 else \
                            m.beam(src, K, m.gen["max_length"])[0][1]
                        out = R.strip_eos(out, m.eos)
                        refits[i] = ((out, tok.decode(out)), list(margins))
                return refits[i]
            near_tie.compare(f"{what}: ids of {n} lines as the reference", got_ids,
                             [w[0] for w in want], lambda i: (refit(i)[0][0], refit(i)[1]))
            near_tie.compare(f"{what}: text of {n} lines as the reference", got_txt,
                             [w[1] for w in want], lambda i: (refit(i)[0][1], refit(i)[1]))
            ids = [i for w in want for i in w[0]]
            n_past = sum(i > 32767 for i in ids)
            n_only = sum(i in only for i in ids)
            check(f"{what}: the outputs hold ids past 32,767 ({n_past} of {len(ids)}, "
                  f"{len(set(ids))} distinct; {n_only} of pieces only source.spm knows)",
                  lambda: None if n_past > 0 and len(set(ids)) >= n else "too few")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
