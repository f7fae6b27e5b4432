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
  legacy    NLLB with legacy_behaviour (the source is tokens </s> [src_lang])
Checked: the tokenizers: `xlate encode -m` equals the reference (tools/m2m100_reference.py
Tokenizer: sentencepiece with NLLB's fairseq offset, or vocab.json) on 1000 + 300 Multi30k
lines and the tokenizer stress file, `xlate decode -m` equals the reference decode on 305 id
sequences (specials, language codes, <mask> among them): 100%; text translations equal to the
reference (tokenize, generate with the target language forced, decode) on every one of 60 lines
but a measured near-tie (tests/py/near_tie.py: the reference's margin below 1e-4),
greedy and beam 4, NLLB eng_Latn -> deu_Latn, legacy eng_Latn -> fra_Latn, M2M100 en -> fr,
German as the source (deu_Latn -> eng_Latn, de -> ro); --target-lang missing, unknown codes
(usage errors naming the closest codes); `xlate info` lists the codes;
ids: greedy and beam 4 ids equal on every one of 60 random sources (but near-ties) for two
target languages each; the model's own num_beams (4) is the default; early_stopping true with
beam 5; a model with max_length 12 stops where the reference stops; `xlate info` names the
family and the sinusoidal-m2m100 positions; bad config.json values refused naming the field.
The models and the reference's answers (ids, texts, tokenizations) come from
tests/py/oracle_memo.py when the same files, inputs and code were computed before (32 s cold,
4 s warm); xlate runs and is compared every time.
Run by tests/run.sh with env XLATE and Debian's /usr/bin/python3.
"""
import functools
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
import oracle_memo as OM  # noqa: E402
from checks import check, done, ok, not_ok  # noqa: E402
import near_tie  # noqa: E402

XLATE = os.path.abspath(os.path.join(TOP, os.environ.get("XLATE", "./xlate")))
VARIANTS = {
    "nllb": ["--seed", "3"],
    "nllb_bin": ["--format", "bin", "--dtype", "f16", "--seed", "4"],
    "sizes": ["--d", "48", "--layers", "1", "--dec-layers", "3", "--heads", "2",
              "--dec-heads", "6", "--ffn", "40", "--dec-ffn", "96", "--act", "gelu",
              "--seed", "5"],
    "m2m": ["--flavor", "m2m100", "--format", "both", "--seed", "6"],
    "legacy": ["--legacy", "--seed", "7"],
}
DATA = os.path.join(TOP, "tests", "data")
TEST_EN = open(os.path.join(DATA, "multi30k", "test_2016_flickr.en"),
               encoding="utf-8").read().split("\n")[:-1]
TEST_DE = open(os.path.join(DATA, "multi30k", "test_2016_flickr.de"),
               encoding="utf-8").read().split("\n")[:-1]
UNICODE = open(os.path.join(DATA, "tokenizer", "unicode.txt"),
               encoding="utf-8").read().split("\n")[:-1]


def make(tmp, name):
    d = os.path.join(tmp, name)
    OM.make_model(d, [sys.executable, os.path.join(TOP, "tools", "make_m2m100.py"), d] +
                  VARIANTS[name])
    return d


def loaded_once(make):
    """make's value, made at the first call only: the reference model is loaded when a memo
    misses, once for all the values of its test."""
    return functools.lru_cache(maxsize=None)(make)


def reference(what, d, inputs, compute):
    """compute()'s reference value for model directory d, from oracle_memo when the same
    files, inputs and code were computed before (the reference's answers only: xlate runs and
    is compared every time)."""
    return OM.cached("m2m100 " + what, inputs, compute, OM.dir_files(d))


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
    model = loaded_once(lambda: R.M2M100(d))
    for K in beams:
        def compute():
            m = model()
            ml = m.gen["max_length"]
            return [R.strip_eos(m.greedy(s, ml) if K == 1 else m.beam(s, K, ml)[0][1], m.eos)
                    for s in srcs]
        want = reference("parity", d, [srcs, K], compute)
        got = xlate_ids(d, srcs, ["--beam-size", str(K)])

        def refit(i):
            m = model()
            with near_tie.favoring(m, got[i]) as margins:
                ml = m.gen["max_length"]
                ids = m.greedy(srcs[i], ml) if K == 1 else m.beam(srcs[i], K, ml)[0][1]
                return R.strip_eos(ids, m.eos), list(margins)
        near_tie.compare(f"{name}, target id {tgt}, {'greedy' if K == 1 else f'beam {K}'}: "
                         f"ids as the reference", got, want, refit)
        if K == 1:
            check(f"{name}, target id {tgt}: the first generated token is the target language",
                  lambda: None if all(g and g[0] == tgt for g in got) else "not forced")


def run(args, inp):
    if args[0] not in ("encode", "decode"):
        args = ["-q"] + args
    p = subprocess.run([XLATE] + args, input=inp.encode("utf-8"), capture_output=True)
    if p.returncode:
        raise RuntimeError(f"xlate {' '.join(args)}: exit {p.returncode}: {p.stderr.decode()}")
    return p.stdout.decode("utf-8").split("\n")[:-1]


def tokenizer_checks(name, d):
    tok = R.Tokenizer(d)
    lines = TEST_EN + TEST_DE[:300] + [x for x in UNICODE if x.strip()]
    want = reference("encode", d, [lines], lambda: [
        " ".join(map(str, tok.encode(x, tok.src_lang)[0][0 if tok.legacy else 1:]))
        for x in lines])
    got = run(["encode", "-m", d], "\n".join(lines) + "\n")
    same = sum(a == b for a, b in zip(got, want))
    share(f"{name}: xlate encode = the reference tokenizer (sentencepiece + "
          f"{'the fairseq offset' if tok.nllb else 'vocab.json'}) on {len(lines)} lines",
          same if len(got) == len(want) else 0, len(lines), 1.0)
    r = random.Random(5)
    V = json.load(open(os.path.join(d, "config.json")))["vocab_size"]
    top = V  # M2M100: the 8 madeupword ids past the language tokens too
    seqs = [[r.randrange(0, top) for _ in range(r.randrange(0, 20))] for _ in range(300)]
    seqs += [[4, tok.eos, 5], [tok.codes[list(tok.codes)[0]], 9, 10], [tok.unk] * 3, [],
             [x for x in range(4, 40)]]
    want = reference("decode", d, [seqs], lambda: [tok.decode(s) for s in seqs])
    got = run(["decode", "-m", d], "".join(" ".join(map(str, s)) + "\n" for s in seqs))
    same = sum(a == b for a, b in zip(got, want))
    share(f"{name}: xlate decode = the reference decode (specials and language codes "
          f"skipped, {'pieces joined' if tok.nllb else 'DecodePieces'}, strip, clean-up) on "
          f"{len(seqs)} id sequences below {top} (vocab_size {V})",
          same if len(got) == len(want) else 0, len(seqs), 1.0)
    return tok


def text_parity(name, d, tok, src_lang, tgt_lang, lines, beams=(1, 4)):
    @loaded_once
    def model():
        m = R.M2M100(d)
        m.gen["forced_bos_token_id"] = tok.codes[tgt_lang]
        return m
    for K in beams:
        def compute():
            m, want = model(), []
            for x in lines:
                src, m.suffix = tok.encode(x, src_lang)
                ids = m.greedy(src, m.gen["max_length"]) if K == 1 else \
                    m.beam(src, K, m.gen["max_length"])[0][1]
                want.append(tok.decode(R.strip_eos(ids, m.eos)))
            m.suffix = []
            return want
        want = reference("text parity", d, [lines, src_lang, tgt_lang, K], compute)
        args = ["-m", d, "--split", "none", "--beam-size", str(K), "--source-lang", src_lang,
                "--target-lang", tgt_lang]
        got = run(args, "\n".join(lines) + "\n")

        def refit(i):
            # xlate's ids of the line (a line's translation does not depend on its batch)
            ids = [int(x) for x in run(args + ["--output-format", "ids"], lines[i] + "\n")[0]
                   .split()]
            m = model()
            src, m.suffix = tok.encode(lines[i], src_lang)
            try:
                with near_tie.favoring(m, ids) as margins:
                    out = m.greedy(src, m.gen["max_length"]) if K == 1 else \
                        m.beam(src, K, m.gen["max_length"])[0][1]
                    return tok.decode(R.strip_eos(out, m.eos)), list(margins)
            finally:
                m.suffix = []
        near_tie.compare(f"{name}: {src_lang} -> {tgt_lang}, {'greedy' if K == 1 else f'beam {K}'}"
                         f": text as the reference", got, want, refit)


def cli_checks(d):
    def usage(args, want):
        p = subprocess.run([XLATE, "-m", d] + args + ["A dog."], capture_output=True)
        msg = p.stderr.decode()
        check(f"xlate {' '.join(args)}: usage error (exit 1) naming {want}",
              lambda: None if p.returncode == 1 and all(w in msg for w in want)
              else f"exit {p.returncode}: {msg}")
    usage([], ["--target-lang", "202 languages"])
    usage(["--target-lang", "fr"], ["fr", "fra_Latn"])
    usage(["--target-lang", "deu_latn"], ["deu_latn", "deu_Latn"])
    usage(["--target-lang", "deu_Latn", "--source-lang", "engl"], ["engl", "eng_Latn"])
    info = subprocess.run([XLATE, "info", d], capture_output=True, text=True).stdout
    check("xlate info lists the 202 language codes", lambda: None if "202: ace_Arab" in info
          and "zul_Latn" in info else info[:400])


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


def decode_added_checks(name, layout, d, tok, r):
    """xlate decode = the reference's decode (tools/m2m100_reference.py Tokenizer.decode, from
    transformers' _decode) on ids holding the layout's added tokens, each rule reached by
    sequences made for it, then random mixes."""
    special = tok.all_special_tokens()
    files = sorted({e["id"] for t, e in tok.added.items() if t not in special})
    skip = sorted(tok.special)

    def piece(text):  # the id of the piece spelled text, or None
        if tok.nllb:
            i = tok.sp.PieceToId(text)
            return i + 1 if i else None
        return tok.encoder.get(text)
    words = [i for i in (piece(w) for w in ("\u2581a", "\u2581man", "s", "\u2581dog", "."))
             if i is not None]
    blank = piece("\u2581")  # a run that converts to "" (dropped mid-text, kept at the end)
    look = [i for i in (piece(t) for t in tok.added if t not in special) if i is not None]
    rules = {"an added token alone": [[a] for a in files],
             "at the start": [[a] + words for a in files],
             "at the end": [words + [a] for a in files],
             "in the middle": [words[:2] + [a] + words[2:] for a in files],
             "two together": [[a, b] + words[:1] for a in files for b in files],
             "beside specials and language codes": [[s, a, s2] + words[:2] + [a, s]
                                                    for a in files for s, s2 in
                                                    zip(skip, reversed(skip))][:40],
             "after an empty run (dropped)": [[blank, a] + words[:1] for a in files]
             if blank is not None else [],
             "before an empty run (kept)": [[a, blank] for a in files]
             if blank is not None else [],
             "pieces spelled as an added token": [words[:1] + [i] + words[1:2] for i in look]}
    mix = files + skip + list(range(4, 60)) + words
    rules["random mixes"] = [[r.choice(mix) for _ in range(r.randrange(0, 12))]
                             for _ in range(200)]
    seqs = [x for v in rules.values() for x in v]
    want = [tok.decode(x) for x in seqs]
    got = run(["decode", "-m", d], "".join(" ".join(map(str, x)) + "\n" for x in seqs))
    share(f"{name}, added tokens from {layout}: xlate decode = the reference's decode (the "
          f"files' tokens written apart, joined with spaces) on {len(seqs)} id sequences: "
          + ", ".join(f"{k} {len(v)}" for k, v in rules.items()),
          sum(a == b for a, b in zip(got, want)) if len(got) == len(want) else 0,
          len(seqs), 1.0)


def special_map_checks(tmp, base):
    """special_tokens_map.json's additional_special_tokens as transformers' _from_pretrained
    reads them (tools/m2m100_reference.py Tokenizer.__init__ cites the lines): merged after
    tokenizer_config.json's list when the config has no added_tokens_decoder (a code the config
    lacks is then a language token, numbered after the config's), ignored when it has one."""
    codes = json.load(open(os.path.join(base, "special_tokens_map.json")))[
        "additional_special_tokens"]
    cases = {"merged (no added_tokens_decoder)": None,
             "ignored (added_tokens_decoder present)": {
                 "2": {"content": "</s>", "lstrip": False, "rstrip": False,
                       "single_word": False, "normalized": False, "special": True}}}
    for what, dec in cases.items():
        d = os.path.join(tmp, "map_" + ("ignored" if dec else "merged"))
        shutil.copytree(base, d)

        def edit(c):
            c["additional_special_tokens"] = codes[100:]
            if dec:
                c["added_tokens_decoder"] = dec
        edit_json(os.path.join(d, "tokenizer_config.json"), edit)
        tok = R.Tokenizer(d)
        lines = [f"{c} A dog {c2}." for c, c2 in zip(codes[:100:7], codes[100::7])]
        want = [" ".join(map(str, tok.tokenize(x))) for x in lines]
        got = run(["encode", "-m", d], "\n".join(lines) + "\n")
        share(f"nllb, tokenizer_config.json listing codes[100:], special_tokens_map.json all "
              f"202: {what}: xlate encode of lines holding codes = the reference's "
              f"({len(tok.codes)} codes)", sum(a == b for a, b in zip(got, want))
              if len(got) == len(want) else 0, len(lines), 1.0)
        p = subprocess.run([XLATE, "-m", d, "--source-lang", codes[0], "--target-lang",
                            codes[150]], input=b"A dog.\n", capture_output=True)
        check(f"nllb, {what}: --source-lang {codes[0]} (a code of the map alone) "
              + ("accepted" if not dec else "a usage error"),
              lambda: None if (p.returncode == 0) == (dec is None) and
              (dec is None or codes[0].encode() in p.stderr)
              else f"exit {p.returncode}: {p.stderr.decode()}")


def added_token_checks(tmp, base, name):
    """Added tokens (tokenizer.json's added_tokens; added_tokens.json; tokenizer_config.json's
    added_tokens_decoder) against the reference's tokenize (tools/m2m100_reference.py, from
    transformers' PreTrainedTokenizer.tokenize and _from_pretrained): never split, their
    lstrip / rstrip / single_word, the specials and language codes in the text."""
    tok0 = R.Tokenizer(base)
    code = next(iter(tok0.codes))
    code = code if tok0.nllb else f"__{code}__"
    layouts = {
        "tokenizer.json": lambda d: json.dump({"added_tokens": [
            {"id": 7, "content": "<ent>", "single_word": False, "lstrip": False,
             "rstrip": True, "normalized": False, "special": False},
            {"id": 9, "content": "ent", "single_word": True, "lstrip": False, "rstrip": False,
             "normalized": True, "special": False},
            {"id": 11, "content": "Dog", "single_word": False, "lstrip": True, "rstrip": True,
             "normalized": True, "special": False},
            {"id": 13, "content": "<ent><", "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False, "special": False},
            {"id": 17, "content": "<sp>", "single_word": False, "lstrip": True,
             "rstrip": True, "normalized": False, "special": True},
            {"id": 19, "content": "!", "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": True, "special": False},
            {"id": 23 if tok0.nllb else 21, "content": code if tok0.nllb else "<y>",
             "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
             "special": True}]},
            open(os.path.join(d, "tokenizer.json"), "w")),
        "added_tokens.json": lambda d: json.dump({"<x>": 12, " y": 14, "</s>": 2},
                                                 open(os.path.join(d, "added_tokens.json"), "w")),
        "added_tokens_decoder": lambda d: edit_json(
            os.path.join(d, "tokenizer_config.json"), lambda c: c.update(added_tokens_decoder={
                "15": {"content": "man", "lstrip": True, "rstrip": False, "single_word": True,
                       "normalized": True, "special": False},
                "2": {"content": "</s>", "lstrip": False, "rstrip": False, "single_word": False,
                      "normalized": False, "special": True}})),
    }
    r = random.Random(11)
    for layout, write in layouts.items():
        d = os.path.join(tmp, f"{name}_added_{layout}")
        shutil.copytree(base, d)
        write(d)
        tok = R.Tokenizer(d)
        inserts = list(tok.added) + ["</s>", "<mask>", code, "  ", "\u3000"]
        lines = []
        for line in TEST_EN[:120]:
            for _ in range(r.randrange(1, 4)):
                at = r.randrange(len(line) + 1)
                line = line[:at] + r.choice(["", " "]) + r.choice(inserts) + \
                    r.choice(["", " ", "  "]) + line[at:]
            lines.append(line)
        lines += ["ent", "entent", " <ent>  x", "Dog Dog", "a man,man", "<ent><ent><", code]
        want = reference("tokenize", d, [lines], lambda: [" ".join(map(str, tok.tokenize(x)))
                                                          for x in lines])
        got = run(["encode", "-m", d], "\n".join(lines) + "\n")
        share(f"{name}, added tokens from {layout} ({len(tok.added)} in all): xlate encode = the "
              f"reference's tokenize on {len(lines)} lines holding them",
              sum(a == b for a, b in zip(got, want)) if len(got) == len(want) else 0,
              len(lines), 1.0)
        decode_added_checks(name, layout, d, tok, r)
    d = os.path.join(tmp, f"{name}_added_bad")
    shutil.copytree(base, d)
    json.dump({"added_tokens": [{"id": 10 ** 6, "content": "<far>"}]},
              open(os.path.join(d, "tokenizer.json"), "w"))
    p = subprocess.run([XLATE, "encode", "-m", d], input=b"a\n", capture_output=True)
    check(f"{name}: an added token's id outside the vocabulary: refused naming the file and entry",
          lambda: None if p.returncode != 0 and b"tokenizer.json: added_tokens[0]" in p.stderr
          else f"exit {p.returncode}: {p.stderr.decode()}")


def main():
    tmp = tempfile.mkdtemp(prefix="xlate_m2m100_")
    try:
        dirs = {k: make(tmp, k) for k in VARIANTS}
        lines = TEST_EN[:60]
        for name, src, tgt in (("nllb", "eng_Latn", "deu_Latn"), ("legacy", "eng_Latn", "fra_Latn"),
                               ("m2m", "en", "fr")):
            tok = tokenizer_checks(name, dirs[name])
            text_parity(name, dirs[name], tok, src, tgt, lines)
        tok = R.Tokenizer(dirs["nllb"])
        text_parity("nllb, German source", dirs["nllb"], tok, "deu_Latn", "eng_Latn",
                    TEST_DE[:60], beams=(1,))
        tok = R.Tokenizer(dirs["m2m"])
        text_parity("m2m, German source", dirs["m2m"], tok, "de", "ro", TEST_DE[:60], beams=(1,))
        cli_checks(dirs["nllb"])
        special_map_checks(tmp, dirs["nllb"])
        added_token_checks(tmp, dirs["nllb"], "nllb")
        added_token_checks(tmp, dirs["m2m"], "m2m")
        for name, d in dirs.items():
            srcs, langs = sources(d)
            parity(name, d, srcs, langs[2])
            if name in ("nllb", "m2m"):
                parity(name, d, srcs, langs[3], beams=(1,))
        d = dirs["nllb"]
        srcs, langs = sources(d, n=30, seed=2)
        def default_beam():
            m = R.M2M100(d)
            return [R.strip_eos(m.beam(s, 4, m.gen["max_length"])[0][1], m.eos) for s in srcs]
        want = reference("default beam", d, [srcs], default_beam)
        got = xlate_ids(d, srcs, [])

        def refit(i):
            m = R.M2M100(d)
            with near_tie.favoring(m, got[i]) as margins:
                return (R.strip_eos(m.beam(srcs[i], 4, m.gen["max_length"])[0][1], m.eos),
                        list(margins))
        near_tie.compare("nllb: the model's num_beams (4) by default: ids as the reference",
                         got, want, refit)
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
