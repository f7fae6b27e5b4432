"""xlate on Hugging Face MarianMT (OPUS-MT) directories, against the oracle tools/marian_reference.py
(this project's PyTorch MarianMTModel + MarianTokenizer + generate(), transformers v4.40
semantics) and the sentencepiece library.

Random models in the exact hub layout are made by tools/make_marian.py into a temporary
directory (nothing is committed; the expected values are computed here by PyTorch, never by
xlate):
  tied      shared embeddings, tied lm_head, swish, f32, max_position_embeddings 1024
  untied    untied lm_head, non-zero final_logits_bias, gelu, f16 weights
  separate  separate vocabularies (vocab.json + target_vocab.json), relu
  multi     >>xx<< language tokens in vocab.json, --target-lang
  sizes     the decoder's heads, ffn dim and layer count all unlike the encoder's
Checked (docs/MODELS.md "OPUS-MT models" lists each rule with the transformers line it follows):
  - tokenizer: `xlate encode -m` equals sentencepiece + vocab.json (+ the >>xx<< rule) on every
    line of test_2016_flickr.en, the tokenizer stress file and awkward lines; `xlate decode -m`
    equals the reference decode (special tokens skipped, DecodePieces, U+2581 -> space, strip,
    clean-up) on the German side, random id sequences, special ids mid-line, source-only pieces
    (also by hand), a target_vocab.json numbering <pad> otherwise: 100%;
  - the tied model's decoder emits pieces only source.spm knows, and their text is right;
  - tokenizer_config.json (clean-up off, AddedToken objects, other special tokens refused),
    target_vocab.json only with separate_vocabs, generation_config.json (renormalize_logits,
    max_new_tokens, unimplemented fields refused, length_penalty out of range refused at load),
    integers written 2071.0 refused;
  - translation: greedy, beam 4 and beam 6 ids and text equal on every sentence but a
    measured near-tie (tests/py/near_tie.py: the reference's margin below 1e-4), text
    identical wherever the ids are; every script of the stress file, a 600-token line, pieces
    unknown to vocab.json;
  - the same translations for batch sizes 1, 7, 32 and 1 or 2 threads;
  - bad directories: one message naming the file and the field or tensor, exit status 2;
    --target-lang errors exit 1 listing the languages; `xlate info` shows the family,
    the languages and the generation defaults.
Run by tests/run.sh with env XLATE (the binary) and Debian's /usr/bin/python3.
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import marian_reference as R  # noqa: E402
from checks import check, done, expect_eq, ok, not_ok  # noqa: E402,F401
import oracle_memo as OM  # noqa: E402
import near_tie  # noqa: E402
import kept_spans as KS  # noqa: E402

XLATE = os.path.abspath(os.path.join(TOP, os.environ.get("XLATE", "./xlate")))
DATA = os.path.join(TOP, "tests", "data")
TEST_EN = open(os.path.join(DATA, "multi30k", "test_2016_flickr.en"), encoding="utf-8").read().split("\n")[:-1]
TEST_DE = open(os.path.join(DATA, "multi30k", "test_2016_flickr.de"), encoding="utf-8").read().split("\n")[:-1]
UNICODE = open(os.path.join(DATA, "tokenizer", "unicode.txt"), encoding="utf-8").read().split("\n")[:-1]
VARIANTS = {
    "tied": ["--max-positions", "1024"],
    "untied": ["--untied", "--bias", "--act", "gelu", "--dtype", "f16", "--seed", "2"],
    "separate": ["--separate", "--act", "relu", "--seed", "3"],
    "multi": ["--multilingual", "--seed", "4"],
    # the decoder's heads, ffn dim and layer count all differ from the encoder's
    "sizes": ["--layers", "1", "--dec-layers", "3", "--heads", "2", "--dec-heads", "8",
              "--ffn", "48", "--dec-ffn", "96", "--act", "gelu", "--seed", "5"],
}


def run(args, inp, check_rc=True):
    # transformers translates a line as it is: the parity runs keep xlate's lines unsplit
    if args[:1] not in (["info"], ["encode"], ["decode"], ["split"]):
        args = ["--split", "none"] + args
    p = subprocess.run([XLATE] + args, input=inp.encode("utf-8"), capture_output=True)
    if check_rc and p.returncode != 0:
        raise RuntimeError(f"xlate {' '.join(args)}: exit {p.returncode}: {p.stderr.decode()}")
    return p


def lines_of(p):
    return p.stdout.decode("utf-8").split("\n")[:-1]


def ids_lines(p):
    return [[int(x) for x in l.split()] for l in lines_of(p)]


def make(tmp, name):
    d = os.path.join(tmp, name)
    OM.make_model(d, [sys.executable, os.path.join(TOP, "tools", "make_marian.py"), d] +
                  VARIANTS[name])
    return d


def tokenizer_checks(name, d, tok):
    rnd = random.Random(7)
    awkward = ["", "   ", ">>fra<< A dog.", ">>xyz<<", ">> <<", "a >>fra<< b", ">>fra<<>>spa<< x",
               "ŋ ŋŋ ǂ", "ä ö ü ß", "x" * 300, "Hello  world\t!", "\u3000A\u00a0b\u2009c",
               # xlate's deliberate difference (docs/MODELS.md): special tokens' texts in the input
               # are text, cut by source.spm like any other (the reference does the same)
               "a </s> b <unk> c <pad>", "</s>"]
    texts = TEST_EN + UNICODE + awkward
    got = ids_lines(run(["encode", "-m", d], "\n".join(texts) + "\n"))
    want = [tok.encode(t) for t in texts]
    bad = [i for i in range(len(texts)) if got[i] != want[i]]
    expect_eq(f"{name}: xlate encode -m = sentencepiece + vocab.json on {len(texts)} lines "
              f"(first differing: {bad[:3]})", len(bad), 0)
    n_unk = sum(w.count(tok.unk) for w in want)
    check(f"{name}: pieces unknown to vocab.json occur in the encoded lines ({n_unk} <unk>)",
          lambda: None if n_unk > 0 else "none")
    # target side: German pieces through the target vocabulary, and random ids
    tv = tok.target_encoder
    seqs = [[tv.get(p, tv["<unk>"]) for p in tok.tgt.encode(s, out_type=str)] for s in TEST_DE]
    V = len(tok.decoder)
    for _ in range(300):
        seqs.append([rnd.randrange(V) for _ in range(rnd.randrange(0, 30))])
    # special tokens in the middle: vocab.json's eos / unk / pad ids between pieces, and (a
    # separate target vocabulary) the target ids whose pieces are their texts
    sp = [tok.encoder[t] for t in R.SPECIAL] + [tv[t] for t in R.SPECIAL if t in tv]
    for _ in range(60):
        s = [rnd.randrange(V) for _ in range(rnd.randrange(1, 12))]
        for _ in range(rnd.randrange(1, 4)):
            s.insert(rnd.randrange(len(s) + 1), rnd.choice(sp))
        seqs.append(s)
    # pieces of a shared vocabulary that target.spm lacks ("▁Green" of source.spm)
    only = source_only(tok)
    seqs += [[i] for i in sorted(only)[:50]] + [sorted(only)[i::7][:6] for i in range(7)]
    got = lines_of(run(["decode", "-m", d], "\n".join(" ".join(map(str, s)) for s in seqs) + "\n"))
    want = [tok.decode(s) for s in seqs]
    bad = [i for i in range(len(seqs)) if got[i] != want[i]]
    expect_eq(f"{name}: xlate decode -m = the reference decode on {len(seqs)} id lines "
              f"(first differing: {[(got[i], want[i]) for i in bad[:2]]})", len(bad), 0)


def source_only(tok):
    """Ids of a shared vocab.json whose pieces target.spm does not know (none when separate)."""
    if tok.target_encoder is not tok.encoder:
        return set()
    return {i for p, i in tok.encoder.items()
            if p not in R.SPECIAL and tok.tgt.piece_to_id(p) == tok.tgt.unk_id()
            and tok.src.piece_to_id(p) != tok.src.unk_id()}


def metaspace_checks(d, tok):
    """Hand computations of MarianTokenizer's decode on source-only pieces: target.spm keeps a
    piece it lacks as it is, then convert_tokens_to_string replaces U+2581 by a space and
    strips (tokenization_marian.py, PR #26091)."""
    only = sorted(i for i in source_only(tok) if tok.decoder[i].startswith("\u2581")
                  and "\u2581" not in tok.decoder[i][1:] and len(tok.decoder[i]) > 2
                  and tok.decoder[i][1:].isalpha())
    a, b = only[0], only[1]
    pa, pb = tok.decoder[a][1:], tok.decoder[b][1:]
    got = lines_of(run(["decode", "-m", d], f"{a}\n{a} {b}\n{b} {tok.eos} {a}\n"))
    want = [pa, f"{pa} {pb}", f"{pb} {pa}"]
    expect_eq(f"decode of source-only pieces {tok.decoder[a]!r} {tok.decoder[b]!r}: U+2581 "
              "replaced by a space, ends stripped", got, want)


def reference(m, tok, texts, K, lang=None):
    """[ids, text] per line as generate() + batch_decode(skip_special_tokens=True); from
    oracle_memo when the same model, tokenizer and texts were computed before."""
    def compute():
        out = []
        ml = m.gen["max_length"]
        for t in texts:
            if not t.strip():
                out.append(([], ""))
                continue
            src = tok.encode((f">>{lang}<< " if lang else "") + t)
            ids = m.greedy(src, ml) if K == 1 else m.beam(src, K, ml)[0][1]
            ids = R.strip_eos(ids, m.eos)
            out.append((ids, tok.decode(ids)))
        return out
    # m.gen and m.config as the test may have changed them in memory, beside the files
    return OM.cached("marian reference", [texts, K, lang, m.gen, m.config], compute,
                     OM.dir_files(m.dir) + OM.dir_files(tok.dir))


def parity(name, d, m, tok, texts, K, lang=None, what="Multi30k"):
    args = ["-q", "-m", d, "--beam-size", str(K)] + (["--target-lang", lang] if lang else [])
    inp = "\n".join(texts) + "\n"
    got_ids = ids_lines(run(args + ["--output-format", "ids"], inp))
    # the model's own text (jsonl's sentences, joined): line mode's text keeps a line's URLs and
    # e-mail addresses as a document does (tests/py/test_plain_urls.py), so where the model drops
    # one, that text is no longer what transformers decodes
    got_txt = [KS.joined(json.loads(j), t) for j, t in
               zip(lines_of(run(args + ["--output-format", "jsonl"], inp)), texts)]
    want = reference(m, tok, texts, K, lang)
    refits = {}

    def refit(i):  # the reference favoring xlate's ids of line i: (ids, text), margins
        if i not in refits:
            with near_tie.favoring(m, got_ids[i]) as margins:
                src = tok.encode((f">>{lang}<< " if lang else "") + texts[i])
                ids = m.greedy(src, m.gen["max_length"]) if K == 1 else \
                    m.beam(src, K, m.gen["max_length"])[0][1]
                ids = R.strip_eos(ids, m.eos)
                refits[i] = ((ids, tok.decode(ids)), list(margins))
        return refits[i]
    search = 'greedy' if K == 1 else f'beam {K}'
    near_tie.compare(f"{name}: {search} ids on {len(texts)} {what} sentences", got_ids,
                     [w[0] for w in want], lambda i: (refit(i)[0][0], refit(i)[1]))
    near_tie.compare(f"{name}: {search} text on {len(texts)} {what} sentences", got_txt,
                     [w[1] for w in want], lambda i: (refit(i)[0][1], refit(i)[1]))
    mism = [i for i, (g, w) in enumerate(zip(got_ids, want)) if g == w[0] and got_txt[i] != w[1]]
    expect_eq(f"{name}: text identical wherever the ids are (K={K})", mism, [])
    return got_ids


def bad_dir(tmp, base, name, edit, want_bits):
    d = os.path.join(tmp, "bad_" + name)
    shutil.copytree(base, d)
    edit(d)
    p = run(["-m", d, "-q"], "A dog.\n", check_rc=False)
    msg = p.stderr.decode()
    lines = [l for l in msg.split("\n") if l]
    miss = [b for b in want_bits if b not in msg]
    check(f"bad directory ({name}): exit 2, one line naming {want_bits}",
          lambda: None if p.returncode == 2 and len(lines) == 1 and not miss
          else f"exit {p.returncode}, message {msg!r}")


def edit_json(path, fn):
    with open(path, encoding="utf-8") as f:
        obj = json.load(f)
    fn(obj)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f)


def edit_header(path, fn):
    raw = open(path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    h = json.loads(raw[8:8 + n])
    fn(h)
    hb = json.dumps(h).encode()
    hb += b" " * (-len(hb) % 8)
    open(path, "wb").write(struct.pack("<Q", len(hb)) + hb + raw[8 + n:])


def edit_text(path, fn):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(fn(text))


def file_rule_checks(tmp, d, sep):
    """The directory's files as transformers reads them (tokenization_marian.py __init__,
    generation_config.json), and json.h's one rule for integers."""
    tv = "target_vocab.json"
    bad_dir(tmp, sep, "no_target_vocab", lambda x: os.remove(os.path.join(x, tv)),
            ["tokenizer_config.json", "separate_vocabs", tv])

    def dangling(x):
        os.remove(os.path.join(x, tv))
        os.symlink(os.path.join(x, "nowhere.json"), os.path.join(x, tv))
    bad_dir(tmp, sep, "dangling_target_vocab", dangling,
            ["tokenizer_config.json", "separate_vocabs", tv])
    # a stray target_vocab.json where separate_vocabs is false: never read (transformers'
    # "self.decoder = {v: k for k, v in self.encoder.items()}"), the output does not change
    texts = "\n".join(TEST_EN[:30]) + "\n"
    base = run(["-q", "-m", d, "--beam-size", "1"], texts).stdout
    for what, fn in (("a permutation of vocab.json", lambda v: dict(zip(v, reversed(list(v.values()))))),
                     ("of another size", lambda v: {"</s>": 0, "<unk>": 1})):
        s = os.path.join(tmp, "stray")
        shutil.rmtree(s, ignore_errors=True)
        shutil.copytree(d, s)
        v = json.load(open(os.path.join(d, "vocab.json"), encoding="utf-8"))
        with open(os.path.join(s, tv), "w", encoding="utf-8") as f:
            json.dump(fn(v), f)
        p = run(["-q", "-m", s, "--beam-size", "1"], texts, check_rc=False)
        check(f"a stray {tv} ({what}) with separate_vocabs false: ignored, the same output",
              lambda: None if p.returncode == 0 and p.stdout == base else
              f"exit {p.returncode}: {p.stderr.decode()!r}")
    # a generation value xlate cannot take: the model's fault, said when it loads
    g = "generation_config.json"
    bad_dir(tmp, d, "length_penalty", lambda x: edit_json(os.path.join(x, g),
                                                          lambda c: c.update(length_penalty=100)),
            [g, "length_penalty", "100"])
    lp = os.path.join(tmp, "bad_length_penalty")
    p = run(["info", lp], "", check_rc=False)
    check("xlate info on length_penalty 100: exit 2 naming generation_config.json",
          lambda: None if p.returncode == 2 and g in p.stderr.decode() else
          f"exit {p.returncode}: {p.stderr.decode()!r}")
    # integers: 2071.0 is refused as xlate's own config.json refuses 3.0 (docs/FORMAT.md "JSON")
    bad_dir(tmp, d, "float_int", lambda x: edit_text(os.path.join(x, "config.json"),
                                                     lambda t: t.replace('"d_model": 32',
                                                                         '"d_model": 32.0')),
            ["config.json", "d_model", "32.0"])
    bad_dir(tmp, d, "float_id", lambda x: edit_text(os.path.join(x, "vocab.json"),
                                                    lambda t: t.replace('"<unk>": 1',
                                                                        '"<unk>": 1.0')),
            ["vocab.json", "<unk>", "1.0"])
    bad_dir(tmp, d, "float_bad_word", lambda x: edit_json(os.path.join(x, g),
                                                          lambda c: c.update(bad_words_ids=[[5.0]])),
            [g, "bad_words_ids", "5.0"])


def tokenizer_config_checks(tmp, d):
    """tokenizer_config.json's flags (tokenization_marian.py __init__ arguments,
    tokenization_utils_base.py clean_up_tokenization_spaces)."""
    tc = "tokenizer_config.json"
    c = os.path.join(tmp, "no_cleanup")
    shutil.copytree(d, c)
    edit_json(os.path.join(c, tc), lambda x: x.update(clean_up_tokenization_spaces=False))
    tok = R.Tokenizer(c)
    tokenizer_checks("clean_up_tokenization_spaces false", c, tok)
    rnd = random.Random(11)
    # "▁" then "." or ",": DecodePieces writes " ." / " ,", which clean_up_tokenization joins
    tv = tok.target_encoder
    seqs = []
    for _ in range(200):
        s = [rnd.randrange(len(tok.decoder)) for _ in range(12)]
        k = rnd.randrange(len(s) + 1)
        s[k:k] = [tv["\u2581"], tv[rnd.choice([".", ","])]]
        seqs.append(s)
    got = lines_of(run(["decode", "-m", c], "\n".join(" ".join(map(str, s)) for s in seqs) + "\n"))
    expect_eq("clean_up_tokenization_spaces false: xlate decode -m = the reference on 200 lines "
              "with \" .\" or \" ,\"", [i for i, s in enumerate(seqs) if got[i] != tok.decode(s)], [])
    clean = R.Tokenizer(d)
    n = sum(tok.decode(s) != clean.decode(s) for s in seqs)
    check(f"clean_up_tokenization_spaces false changes {n} of 200 random id lines' text",
          lambda: None if n > 0 else "none: the check could not fail")
    a = os.path.join(tmp, "added_token")
    shutil.copytree(d, a)
    edit_json(os.path.join(a, tc), lambda x: x.update(
        unk_token={"__type": "AddedToken", "content": "<unk>", "lstrip": False,
                   "normalized": True, "rstrip": False, "single_word": False}))
    texts = "\n".join(TEST_EN[:20]) + "\n"
    o1 = run(["-q", "-m", a, "--beam-size", "1"], texts, check_rc=False)
    o2 = run(["-q", "-m", d, "--beam-size", "1"], texts)
    check("unk_token as an AddedToken object with content \"<unk>\": taken, the same output",
          lambda: None if o1.returncode == 0 and o1.stdout == o2.stdout else o1.stderr.decode())
    bad_dir(tmp, d, "unk_token", lambda x: edit_json(os.path.join(x, tc),
                                                     lambda c: c.update(unk_token="<UNK>")),
            [tc, "unk_token", "<UNK>"])
    bad_dir(tmp, d, "additional_special_tokens",
            lambda x: edit_json(os.path.join(x, tc),
                                lambda c: c.update(additional_special_tokens=["<eop>"])),
            [tc, "additional_special_tokens"])


def generation_checks(tmp, d, g):
    """generation_config.json's renormalize_logits, max_new_tokens, and a field xlate does not
    implement (generation/utils.py v4.40 _get_logits_processor, _prepare_generated_length)."""
    gc = "generation_config.json"
    freq = max(set(i for ids in g for i in ids), key=lambda t: sum(ids.count(t) for ids in g))
    r = os.path.join(tmp, "renormalize")
    shutil.copytree(d, r)
    edit_json(os.path.join(r, gc), lambda c: c.update(
        renormalize_logits=True, bad_words_ids=c["bad_words_ids"] + [[freq]]))
    m, tok = R.Marian(r), R.Tokenizer(r)
    texts = TEST_EN[700:740]
    want = [w[0] for w in reference(m, tok, texts, 4)]
    m.gen["renormalize_logits"] = False
    plain = [w[0] for w in reference(m, tok, texts, 4)]
    got = ids_lines(run(["-q", "-m", r, "--beam-size", "4", "--output-format", "ids"],
                        "\n".join(texts) + "\n"))
    differ = sum(a != b for a, b in zip(want, plain))
    m.gen["renormalize_logits"] = True

    def refit(i):
        with near_tie.favoring(m, got[i]) as margins:
            ids = m.beam(tok.encode(texts[i]), 4, m.gen["max_length"])[0][1]
            return R.strip_eos(ids, m.eos), list(margins)
    near_tie.compare(f"renormalize_logits true, token {freq} banned: beam 4 ids (the reference "
                     f"without the renormalization differs on {differ} of {len(texts)} lines)",
                     got, want, refit)
    check("renormalize_logits changes the reference's beam output on some line",
          lambda: None if differ > 0 else "no line differs: the check could not fail")
    n = os.path.join(tmp, "max_new")
    shutil.copytree(d, n)
    edit_json(os.path.join(n, gc), lambda c: c.update(max_new_tokens=5))
    m, tok = R.Marian(n), R.Tokenizer(n)
    texts = TEST_EN[740:760]
    want = [w[0] for w in reference(m, tok, texts, 1)]
    got = ids_lines(run(["-q", "-m", n, "--beam-size", "1", "--output-format", "ids"],
                        "\n".join(texts) + "\n"))
    check("max_new_tokens 5 wins over max_length 40: greedy ids equal the reference, at most 4 "
          "tokens before the forced eos", lambda: None if got == want and
          max(len(x) for x in got) <= 4 else f"{got[:3]} vs {want[:3]}")
    # (repetition_penalty, no_repeat_ngram_size, do_sample...: tests/py/test_decode_opts.py)
    for key, val in (("num_beam_groups", 2), ("min_length", 3),
                     ("encoder_repetition_penalty", 1.2), ("diversity_penalty", 0.5)):
        bad_dir(tmp, d, key, lambda x: edit_json(os.path.join(x, gc), lambda c: c.update({key: val})),
                [gc, key, "does not implement"])


def error_checks(tmp, d):
    n = len(json.load(open(os.path.join(d, "vocab.json"), encoding="utf-8")))
    bad_dir(tmp, d, "t5", lambda x: edit_json(os.path.join(x, "config.json"),
                                               lambda c: c.update(model_type="t5")),
            ["config.json", "model_type", "t5"])
    bad_dir(tmp, d, "vocab_size", lambda x: edit_json(os.path.join(x, "vocab.json"),
                                                      lambda v: v.pop("▁a")),
            ["vocab.json", f"{n - 1} pieces", "vocab_size", str(n)])
    bad_dir(tmp, d, "config_vocab", lambda x: edit_json(os.path.join(x, "config.json"),
                                                        lambda c: c.update(vocab_size=n + 90)),
            ["model.shared.weight", f"[{n}, 32]", f"[{n + 90}, 32]"])
    bad_dir(tmp, d, "heads", lambda x: edit_json(os.path.join(x, "config.json"),
                                                 lambda c: c.update(decoder_attention_heads=5)),
            ["config.json", "decoder_attention_heads", "32", "5"])
    bad_dir(tmp, d, "decoder_ffn", lambda x: edit_json(os.path.join(x, "config.json"),
                                                       lambda c: c.update(decoder_ffn_dim=80)),
            ["model.safetensors", "model.decoder.layers.0.fc1.weight", "[64, 32]", "[80, 32]"])
    bad_dir(tmp, d, "decoder_layers", lambda x: edit_json(os.path.join(x, "config.json"),
                                                          lambda c: c.update(decoder_layers=3)),
            ["model.safetensors", "model.decoder.layers.2."])

    def shape(x):
        def f(h):
            h["model.encoder.layers.0.fc1.weight"]["shape"] = h["model.encoder.layers.0.fc1.weight"]["shape"][::-1]
        edit_header(os.path.join(x, "model.safetensors"), f)
    bad_dir(tmp, d, "shape", shape, ["model.safetensors", "model.encoder.layers.0.fc1.weight",
                                     "shape"])

    def dtype(x):
        def f(h):
            h["model.decoder.layers.1.fc2.bias"]["dtype"] = "I32"
        edit_header(os.path.join(x, "model.safetensors"), f)
    bad_dir(tmp, d, "dtype", dtype, ["model.decoder.layers.1.fc2.bias", "I32"])
    bad_dir(tmp, d, "no_source_spm", lambda x: os.remove(os.path.join(x, "source.spm")),
            ["source.spm"])
    def swap(v):
        v["</s>"], v["▁a"] = v["▁a"], v["</s>"]
    bad_dir(tmp, d, "eos_piece", lambda x: edit_json(os.path.join(x, "vocab.json"), swap),
            ["vocab.json", "</s>", "eos_token_id"])

    def only_bin(x):
        os.remove(os.path.join(x, "model.safetensors"))
        open(os.path.join(x, "pytorch_model.bin"), "wb").write(b"PK")
    bad_dir(tmp, d, "only_bin", only_bin, ["pytorch_model.bin", "not a zip archive"])


def main():
    tmp = tempfile.mkdtemp(prefix="xlate_marian_")
    try:
        dirs = {k: make(tmp, k) for k in VARIANTS}
        models = {k: R.Marian(v) for k, v in dirs.items()}
        toks = {k: R.Tokenizer(v) for k, v in dirs.items()}
        for k in ("tied", "separate", "multi"):
            tokenizer_checks(k, dirs[k], toks[k])
        # target_vocab.json numbering "<pad>" otherwise than vocab.json: transformers skips
        # vocab.json's ids (all_special_ids) and prints the target's "<pad>" as its text
        sw = os.path.join(tmp, "separate_swapped")
        shutil.copytree(dirs["separate"], sw)

        def swap_pad(v):
            k = next(p for p in v if p.startswith("\u2581"))
            v["<pad>"], v[k] = v[k], v["<pad>"]
        edit_json(os.path.join(sw, "target_vocab.json"), swap_pad)
        tokenizer_checks("separate, target <pad> moved", sw, R.Tokenizer(sw))

        d, m, tok = dirs["tied"], models["tied"], toks["tied"]
        metaspace_checks(d, tok)
        g = parity("tied", d, m, tok, TEST_EN[:200], 1)
        only = source_only(tok)
        n_only = sum(i in only for ids in g for i in ids)
        n_lines = sum(any(i in only for i in ids) for ids in g)
        check(f"tied: the decoder emits pieces only source.spm knows ({n_only} ids, on "
              f"{n_lines} of {len(g)} lines)", lambda: None if n_lines >= 20 else "too few")
        parity("tied", d, m, tok, TEST_EN[200:280], 4)
        parity("tied", d, m, tok, TEST_EN[280:330], 6)
        k = 1
        while len(tok.encode(" ".join(TEST_EN[:k]))) < 600:
            k += 1
        long_line = " ".join(TEST_EN[:k])
        n_long = len(tok.encode(long_line))
        check(f"the long line has 600 to 1000 source tokens ({n_long})",
              lambda: None if 600 <= n_long < 1000 else "out of range")
        parity("tied", d, m, tok, UNICODE + [long_line], 1, what="stress-file + long")
        parity("tied", d, m, tok, UNICODE, 4, what="stress-file")
        for k, K, n in (("untied", 1, 100), ("untied", 4, 40), ("separate", 1, 100),
                        ("separate", 4, 40)):
            parity(k, dirs[k], models[k], toks[k], TEST_EN[400:400 + n], K)
        parity("multi", dirs["multi"], models["multi"], toks["multi"], TEST_EN[500:560], 1,
               lang="fra")
        for K, n in ((1, 100), (4, 40)):
            parity("sizes", dirs["sizes"], models["sizes"], toks["sizes"], TEST_EN[600:600 + n],
                   K)
        info = run(["info", dirs["sizes"]], "").stdout.decode()
        check("xlate info: the encoder's and the decoder's sizes (1 + 3 layers)",
              lambda: None if "1 encoder + 3 decoder layers" in info and
              "encoder 2 heads of 16, ffn 48; decoder 8 heads of 4, ffn 96" in info else info)

        # an empty line is answered with an empty line (xlate's rule for every model)
        out = lines_of(run(["-q", "-m", d], "A dog.\n\nTwo cats.\n"))
        check("an empty line gives an empty line, one output line per input line",
              lambda: None if len(out) == 3 and out[1] == "" else repr(out))

        # batch independence
        texts = "\n".join(TEST_EN[:64]) + "\n"
        for K in (1, 4):
            base = run(["-q", "-m", d, "--beam-size", str(K), "--output-format", "ids"], texts).stdout
            for extra in (["--batch-size", "1"], ["--batch-size", "7", "--threads", "2"],
                          ["--batch-size", "32", "--threads", "1"]):
                o = run(["-q", "-m", d, "--beam-size", str(K), "--output-format", "ids"] + extra,
                        texts).stdout
                check(f"beam {K}: the same ids with {' '.join(extra)}",
                      lambda: None if o == base else "differs")
        # the model's own num_beams (4) is the default; --beam-size 1 is greedy
        o = ids_lines(run(["-q", "-m", d, "--output-format", "ids"], "\n".join(TEST_EN[200:210]) + "\n"))
        want = [w[0] for w in reference(m, tok, TEST_EN[200:210], 4)]
        check("without --beam-size: the model's num_beams (4)",
              lambda: None if o == want else "differs from beam 4")
        check("greedy ids of the first run still equal (sanity)", lambda: None if g else "empty")

        # --target-lang and info
        p = run(["-m", dirs["multi"], "--target-lang", "xyz"], "A dog.\n", check_rc=False)
        msg = p.stderr.decode()
        check("--target-lang xyz: exit 1 listing the model's languages",
              lambda: None if p.returncode == 1 and "fra" in msg and "spa" in msg else
              f"exit {p.returncode}: {msg!r}")
        # a hostile value (issue 27: it was echoed raw, twice): quoted once, bytes outside
        # printable ASCII as \xHH, cut after 40 bytes, so stderr stays one short line
        for what, lang, model, shown in (
                ("a newline and a forged line", "fra\nxlate: all is well", dirs["multi"],
                 '"fra\\x0axlate: all is well"'),
                ("terminal escapes", "\x1b[2J\x1b[31mfra", dirs["multi"],
                 '"\\x1b[2J\\x1b[31mfra"'),
                ("10 kB", "x" * 10000, dirs["multi"], '"' + "x" * 40 + '..."'),
                ("10 kB, a model without languages", "y" * 10000, d, '"' + "y" * 40 + '..."')):
            p = run(["-m", model, "--target-lang", lang], "A dog.\n", check_rc=False)
            err = p.stderr
            check(f"--target-lang with {what}: exit 1, one line naming the value quoted, "
                  f"escaped and cut",
                  lambda: None if (p.returncode == 1 and err.count(b"\n") == 1 and
                                   err.endswith(b"\n") and len(err) < 400 and
                                   all(0x20 <= c < 0x7f for c in err[:-1]) and
                                   err.decode().count(shown) == 1) else
                  f"exit {p.returncode}: {err[:300]!r} ({len(err)} bytes)")
        p = run(["-m", d, "--target-lang", "fra"], "A dog.\n", check_rc=False)
        check("--target-lang on a model without languages: exit 1",
              lambda: None if p.returncode == 1 and "multilingual" in p.stderr.decode() else
              f"exit {p.returncode}: {p.stderr.decode()!r}")
        info = run(["info", dirs["multi"]], "").stdout.decode()
        check("xlate info: family, languages, generation defaults",
              lambda: None if all(s in info for s in ("marian", "fra", "ron", "num_beams 4",
                                                      "max_length 40")) else info)
        error_checks(tmp, d)
        file_rule_checks(tmp, d, dirs["separate"])
        generation_checks(tmp, d, g)
        tokenizer_config_checks(tmp, d)

        # pytorch_model.bin only: tools/convert.py --hf makes model.safetensors, same output
        import torch
        b = os.path.join(tmp, "bin_only")
        shutil.copytree(dirs["untied"], b)
        sd = {k: v.half() for k, v in R.read_safetensors(os.path.join(b, "model.safetensors")).items()}
        os.remove(os.path.join(b, "model.safetensors"))
        torch.save(sd, os.path.join(b, "pytorch_model.bin"))
        subprocess.run([sys.executable, os.path.join(TOP, "tools", "convert.py"), "--hf", b],
                       check=True, stderr=subprocess.DEVNULL)
        texts = "\n".join(TEST_EN[400:420]) + "\n"
        o1 = run(["-q", "-m", b, "--beam-size", "1"], texts).stdout
        o2 = run(["-q", "-m", dirs["untied"], "--beam-size", "1"], texts).stdout
        check("tools/convert.py --hf: the converted directory translates as the original",
              lambda: None if o1 == o2 else "differs")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
