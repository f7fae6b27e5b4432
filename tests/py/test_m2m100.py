"""xlate on Hugging Face M2M100 / NLLB-200 directories (model_type "m2m_100"), against the
oracle tools/m2m100_reference.py (this project's PyTorch M2M100ForConditionalGeneration and
generate(), transformers v4.40, written from modeling_m2m_100.py rule by rule), on ids: the
source ids as the tokenizer would give them (a language token first, as NLLB's non-legacy
tokenizer puts it), the target language forced as the first generated token
(forced_bos_token_id from generation_config.json).

Random models in the exact hub layout are made by tools/make_m2m100.py in a temporary
directory (nothing committed; expected ids computed here by PyTorch, never by xlate):
  nllb      NLLB vocabulary layout, f32, model.safetensors
  nllb_bin  f16, pytorch_model.bin only (the embeddings tied as transformers saves them: one
            storage under four names)
  sizes     the decoder's layers, heads and ffn all unlike the encoder's, gelu
  m2m       M2M100 vocabulary layout (vocab.json, __xx__ codes), both weight files
Checked: greedy ids and beam 4 ids equal on >= 99.5% / 99% of 60 random sources for two
target languages each; the model's own num_beams (4) is the default; early_stopping true with
beam 5; a model with max_length 12 stops where the reference stops; `xlate info` names the
family and the sinusoidal-m2m100 positions; bad config.json values refused naming the field.
Run by tests/run.sh with env XLATE and Debian's /usr/bin/python3.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import m2m100_reference as R  # noqa: E402
from checks import check, done, ok, not_ok  # noqa: E402

XLATE = os.path.abspath(os.path.join(TOP, os.environ.get("XLATE", "./xlate")))
VARIANTS = {
    "nllb": ["--seed", "3"],
    "nllb_bin": ["--format", "bin", "--dtype", "f16", "--seed", "4"],
    "sizes": ["--d", "48", "--layers", "1", "--dec-layers", "3", "--heads", "2",
              "--dec-heads", "6", "--ffn", "40", "--dec-ffn", "96", "--act", "gelu",
              "--seed", "5"],
    "m2m": ["--flavor", "m2m100", "--format", "both", "--seed", "6"],
}


def make(tmp, name):
    d = os.path.join(tmp, name)
    subprocess.run([sys.executable, os.path.join(TOP, "tools", "make_m2m100.py"), d] +
                   VARIANTS[name], check=True, stderr=subprocess.DEVNULL)
    return d


def edit_json(path, fn):
    obj = json.load(open(path, encoding="utf-8"))
    fn(obj)
    json.dump(obj, open(path, "w", encoding="utf-8"))


def lang_ids(d):
    """(source language ids, target language ids) of d's vocabulary: NLLB's codes after the
    pieces (sp_size + 1 + k), M2M100's after vocab.json."""
    c = json.load(open(os.path.join(d, "tokenizer_config.json")))
    import sentencepiece as spm
    n_sp = spm.SentencePieceProcessor(
        model_file=os.path.join(d, "sentencepiece.bpe.model")).get_piece_size()
    if c["tokenizer_class"] == "NllbTokenizer":
        first = n_sp + 1
        names = c["additional_special_tokens"]
        pick = ["eng_Latn", "deu_Latn", "fra_Latn", "ron_Latn"]
    else:
        first = len(json.load(open(os.path.join(d, "vocab.json"))))
        names = [t.strip("_") for t in c["additional_special_tokens"]]
        pick = ["en", "de", "fr", "ro"]
    return [first + names.index(p) for p in pick], first - 1


def sources(d, n=60, seed=1):
    langs, last_piece = lang_ids(d)
    r = random.Random(seed)
    return [[r.choice(langs[:2])] + [r.randrange(4, last_piece) for _ in range(r.randrange(1, 25))]
            for _ in range(n)], langs


def xlate_ids(d, srcs, args):
    inp = "".join(" ".join(map(str, s)) + "\n" for s in srcs)
    p = subprocess.run([XLATE, "-q", "-m", d, "--input-format", "ids", "--output-format", "ids"]
                       + args, input=inp.encode(), capture_output=True)
    if p.returncode:
        raise RuntimeError(p.stderr.decode())
    return [[int(x) for x in line.split()] for line in p.stdout.decode().split("\n")[:-1]]


def share(what, same, total, need):
    if total and same / total >= need:
        ok(f"{what}: {same}/{total} identical (>= {need:.1%})")
    else:
        not_ok(what, f"{same}/{total} identical, need {need:.1%}")


def parity(name, d, srcs, tgt, beams=(1, 4)):
    edit_json(os.path.join(d, "generation_config.json"),
              lambda g: g.__setitem__("forced_bos_token_id", tgt))
    m = R.M2M100(d)
    ml = m.gen["max_length"]
    for K in beams:
        want = [R.strip_eos(m.greedy(s, ml) if K == 1 else m.beam(s, K, ml)[0][1], m.eos)
                for s in srcs]
        got = xlate_ids(d, srcs, ["--beam-size", str(K)])
        share(f"{name}, target id {tgt}, {'greedy' if K == 1 else f'beam {K}'}: ids as the "
              f"reference", sum(a == b for a, b in zip(got, want)), len(srcs),
              0.995 if K == 1 else 0.99)
        if K == 1:
            check(f"{name}, target id {tgt}: the first generated token is the target language",
                  lambda: None if all(g and g[0] == tgt for g in got) else "not forced")
    return m


def error_checks(tmp, d):
    def bad(what, edit, want):
        b = os.path.join(tmp, "bad")
        shutil.rmtree(b, ignore_errors=True)
        shutil.copytree(d, b)
        edit_json(os.path.join(b, "config.json"), edit)
        p = subprocess.run([XLATE, "-m", b, "--input-format", "ids"], input=b"5\n",
                           capture_output=True)
        msg = p.stderr.decode()
        check(f"config.json {what}: exit 2, message naming {want}",
              lambda: None if p.returncode == 2 and all(w in msg for w in want)
              else f"exit {p.returncode}: {msg}")
    bad("d_model 33 (odd)", lambda c: c.update(d_model=33, encoder_attention_heads=1,
                                              decoder_attention_heads=1), ["d_model", "even"])
    bad("activation_function \"tanh\"", lambda c: c.update(activation_function="tanh"),
        ["activation_function", "tanh"])
    bad("vocab_size 2071.0", lambda c: c.update(vocab_size=2071.0), ["vocab_size"])
    b = os.path.join(tmp, "bad")
    shutil.rmtree(b, ignore_errors=True)
    shutil.copytree(d, b)
    edit_json(os.path.join(b, "generation_config.json"),
              lambda g: g.update(forced_bos_token_id=10 ** 6))
    p = subprocess.run([XLATE, "-m", b, "--input-format", "ids"], input=b"5\n",
                       capture_output=True)
    check("generation_config.json forced_bos_token_id outside the vocabulary: refused",
          lambda: None if p.returncode == 2 and b"forced_bos_token_id" in p.stderr
          else f"exit {p.returncode}: {p.stderr.decode()}")


def main():
    tmp = tempfile.mkdtemp(prefix="xlate_m2m100_")
    try:
        dirs = {k: make(tmp, k) for k in VARIANTS}
        for name, d in dirs.items():
            srcs, langs = sources(d)
            parity(name, d, srcs, langs[2])
            if name in ("nllb", "m2m"):
                parity(name, d, srcs, langs[3], beams=(1,))
        d = dirs["nllb"]
        srcs, langs = sources(d, n=30, seed=2)
        m = R.M2M100(d)
        want = [R.strip_eos(m.beam(s, 4, m.gen["max_length"])[0][1], m.eos) for s in srcs]
        got = xlate_ids(d, srcs, [])
        share("nllb: the model's num_beams (4) by default", sum(a == b for a, b in
                                                                zip(got, want)), len(srcs), 0.99)
        edit_json(os.path.join(d, "generation_config.json"),
                  lambda g: g.update(early_stopping=True, num_beams=5, max_length=12))
        parity("nllb, early_stopping true, max_length 12", d, srcs, langs[2], beams=(1, 5))
        info = subprocess.run([XLATE, "info", d], capture_output=True, text=True).stdout
        check("xlate info: family m2m100, pre-norm, sinusoidal-m2m100 positions",
              lambda: None if all(s in info for s in ("m2m100", "pre-norm",
                                                      "sinusoidal-m2m100")) else info)
        error_checks(tmp, dirs["nllb"])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
