#!/usr/bin/python3
"""Token spans of `xlate encode --spans` / `xlate decode --spans` against the sentencepiece
library (0.1.97): encode_as_immutable_proto(text).pieces[i].begin/.end and
decode_ids_as_immutable_proto(ids).pieces[i].begin/.end.

This version of the Python wrapper reports begin/end in characters of the text (its
ConvertToUnicodeSpans: a byte offset inside a character becomes that character's index), so
they are turned back into bytes here with the text's own UTF-8 encoding; xlate reports bytes.

Models: the default model's spm.model and models trained here the way test_spm_parity.py trains
them (BPE + byte fallback, unigram nfkc_cf + split_digits, char, word, user symbols without
extra-whitespace removal or dummy prefix, whitespace as suffix, identity + byte fallback, nfkc +
control symbols, custom normalization rules) plus escape_whitespaces=false. Texts: the Multi30k
lines, the tokenizer hard cases (tests/data/tokenizer/), lines of few letters (ties) and lines
made here for the normalizer's alignment (whitespace runs, NFKC expansions and contractions,
characters only byte fallback covers). Decode: the library's ids of those lines and random id
sequences (byte pieces in any order, control ids, <unk>).
Also through the model directory (-m models/en-de: xlate_tokenize_spans /
xlate_detokenize_spans), and a multilingual MarianMT directory made by tools/make_marian.py:
its ids against tools/marian_reference.py's MarianTokenizer, the spans of its pieces against
the library's spans of the text without the >>xx<< codes carried back to the original text
(a leading code: its own bytes); its decode spans against what transformers' decode gains with
each token.
Environment: XLATE (the binary; default ./xlate). Run with Debian's /usr/bin/python3.
"""
import gzip
import os
import random
import shutil
import subprocess
import sys
import tempfile

import sentencepiece as spm

from checks import done, ok, not_ok as notok  # noqa: E402
import oracle_memo as OM  # noqa: E402
import test_spm_parity as par  # noqa: E402  (helpers: lines_of, train, edit_model, tie_lines)

ROOT = par.ROOT
XLATE = par.XLATE
M30K = par.M30K
SMALL = [os.path.join(M30K, f) for f in (
    "val.en", "val.de", "test_2016_flickr.en", "test_2016_flickr.de")] + [
    os.path.join(ROOT, "tests", "data", "tokenizer", "unicode.txt")]


def hand_lines():
    """Lines whose alignment is worth seeing: where normalized and original bytes differ."""
    return [
        "A man", "  A man  in   a  hat  ", "\tTabs\tand  spaces\t", "x", " x", "x ",
        "ﬁne ﬂour ﬃ", "Ｆｕｌｌｗｉｄｔｈ　ｓｐａｃｅ", "① ② ⑳ ¹²³ ½", "™ ℃ ㍿ ㌔",
        "ǅ ǆ Ǆ", "Å Å Å", "e\u0301 é", "…...", "a\u3000\u3000b", "a\u00a0b\u2003c",
        "😀 emoji 🇩🇪 flags", "漢字 かな カナ", "Ω Ω", "ﾊﾝｶｸ ｶﾀｶﾅ", "ｶﾞ ガ",
        "in 2008, 1950 and 2000 100 people", "12345 678.9 0x1F",
        "Mann Manning mannish ..a 1 <sep>", "▁ already ▁▁ escaped",
        "<s> </s> <unk> <pad> <0x41>", "Straße STRASSE ß", "Ä Äa ÄÄ",
        "\u200b zero\u200bwidth \u200d", "x\u0300\u0301\u0302 stacked",
        "x" * 300, "Donaudampfschifffahrt " * 20,
    ]


def byte_offsets(text):
    """[k] = byte offset of character k of text (and [len] = its byte length)."""
    out, b = [], 0
    for ch in text:
        out.append(b)
        b += len(ch.encode("utf-8", "surrogatepass"))
    out.append(b)
    return out


def spans_text(ids, spans):
    return (" ".join(map(str, ids)) + "\t" + " ".join("%d:%d" % s for s in spans)).encode()


def lib_encode(sp, line):
    p = sp.encode_as_immutable_proto(line)
    bo = byte_offsets(line)
    return [x.id for x in p.pieces], [(bo[x.begin], bo[x.end]) for x in p.pieces]


def lib_decode(sp, ids):
    if not ids:  # the wrapper answers [] with "" rather than a proto
        return b"", []
    p = sp.decode_ids_as_immutable_proto(ids)
    bo = byte_offsets(p.text)
    return (p.text.encode("utf-8", "surrogatepass"),
            [(bo[x.begin], bo[x.end]) for x in p.pieces])


def run_xlate(args, path):
    p = subprocess.run([XLATE] + args + ["--spans", "-i", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError("xlate %s exited %d: %s" % (args[0], p.returncode,
                                                        p.stderr.decode(errors="replace")[:300]))
    return par.lines_of(p.stdout)


def compare(what, got, want, show):
    n = len(want)
    same = sum(1 for a, b in zip(got, want) if a == b)
    if len(got) == n and same == n:
        ok("%s %d/%d lines identical" % (what, same, n))
        return
    first = next((i for i in range(min(len(got), n)) if got[i] != want[i]), min(len(got), n))
    notok(what, "%d/%d lines identical (%d output lines); first difference line %d: input %r: "
          "got %r expected %r" % (same, n, len(got), first + 1, show(first)[:200],
                                  got[first][:300] if first < len(got) else None,
                                  want[first][:300] if first < n else None))


def check_model(label, model, tmp, files, extra, decode=True):
    sp = spm.SentencePieceProcessor(model_file=model)
    inputs = [(os.path.basename(f), par.lines_of(open(f, "rb").read())) for f in files]
    inputs += [(name, [l.encode("utf-8") for l in lines]) for name, lines in extra]
    all_ids = []
    for name, blines in inputs:
        lines = [l.decode("utf-8") for l in blines]
        path = os.path.join(tmp, "in.txt")
        with open(path, "wb") as fh:
            fh.write(b"".join(l + b"\n" for l in blines))
        want_enc = [lib_encode(sp, l) for l in lines]
        try:
            got = run_xlate(["encode", "--spm", model], path)
        except RuntimeError as e:
            notok("%s encode spans: %s" % (label, name), str(e))
            continue
        compare("%s encode spans: %s" % (label, name), got,
                [spans_text(i, s) for i, s in want_enc], lambda i: lines[i])
        all_ids += [ids for ids, _ in want_enc]
        if not decode:
            continue
        # decode of the library's ids
        seqs = [ids for ids, _ in want_enc]
        check_decode("%s decode spans: %s" % (label, name), sp, model, tmp, seqs)
    if decode:
        # random id sequences: byte pieces in any order, control ids, <unk>, leading spaces
        rnd = random.Random(11)
        v = sp.get_piece_size()
        special = [i for i in range(v) if sp.is_control(i) or sp.is_unknown(i) or sp.is_byte(i)]
        ws = [i for i in range(v) if sp.id_to_piece(i).startswith("\u2581")]
        seqs = [[]]
        for _ in range(500):
            pool = [rnd.randrange(v) for _ in range(4)] + special[:8] + ws[:4]
            if special:
                pool += [rnd.choice(special) for _ in range(4)]
            seqs.append([rnd.choice(pool) for _ in range(rnd.randint(1, 12))])
        seqs = [s for s in seqs if "\n" not in sp.decode(s) and "\t" not in sp.decode(s)]
        check_decode("%s decode spans: random id sequences" % label, sp, model, tmp, seqs)


def check_raw(label, model, tmp):
    """Lines the Python wrapper cannot take (invalid UTF-8, NUL, CR): no span oracle there, so
    the ids must be `spm_encode`'s (the C++ program) and the spans must tile: each begins where
    the one before ends (the library's spans come from one alignment array), the first at or
    after 0, the last at or before the line's end, none backwards."""
    rl = par.raw_lines()
    path = os.path.join(tmp, "raw.txt")
    with open(path, "wb") as fh:
        fh.write(b"".join(l + b"\n" for l in rl))
    p = subprocess.run(["spm_encode", "--model", model, "--output_format=id", "--input", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        got = run_xlate(["encode", "--spm", model], path)
    except RuntimeError as e:
        notok("%s encode spans: raw bytes" % label, str(e))
        return
    want_ids = par.lines_of(p.stdout)
    bad = []
    for i, (src, line) in enumerate(zip(rl, got)):
        ids, _, sp = line.partition(b"\t")
        spans = [tuple(map(int, x.split(b":"))) for x in sp.split()]
        tiled = all(spans[k][1] == spans[k + 1][0] for k in range(len(spans) - 1))
        inside = all(0 <= b <= e <= len(src) for b, e in spans)
        if ids != want_ids[i] or len(spans) != len(ids.split()) or not tiled or not inside:
            bad.append(i)
    if len(got) == len(rl) == len(want_ids) and not bad:
        ok("%s encode spans: raw bytes (invalid UTF-8, NUL, CR): ids as spm_encode, %d lines' "
           "spans tile the line" % (label, len(rl)))
    else:
        i = bad[0] if bad else 0
        notok("%s encode spans: raw bytes" % label, "%d bad of %d; first line %d %r: got %r"
              % (len(bad), len(rl), i + 1, rl[i][:80], got[i][:200] if i < len(got) else None))


def check_decode(what, sp, model, tmp, seqs):
    path = os.path.join(tmp, "ids.txt")
    with open(path, "w") as fh:
        fh.write("".join(" ".join(map(str, s)) + "\n" for s in seqs))
    want = []
    for s in seqs:
        text, spans = lib_decode(sp, s)
        want.append(text + b"\t" + " ".join("%d:%d" % x for x in spans).encode())
    try:
        got = run_xlate(["decode", "--spm", model], path)
    except RuntimeError as e:
        notok(what, str(e))
        return
    compare(what, got, want, lambda i: seqs[i])


def marian_oracle(tok, code_re, text):
    """MarianTokenizer's ids (tools/marian_reference.py) and their spans: a leading code its own
    bytes; the library's spans of the pieces of the text without the codes, each character of
    that text carried back to where it stands in the original (an end: after the last character
    the piece covers)."""
    bo = byte_offsets(text)
    spans, keep, pos = [], [], 0
    m = code_re.match(text)
    if m:
        spans.append((0, bo[m.end()]))
    for mm in code_re.finditer(text):
        keep += range(pos, mm.start())
        pos = mm.end()
    keep += range(pos, len(text))
    rest = "".join(text[i] for i in keep)
    if rest:
        for x in tok.src.encode_as_immutable_proto(rest).pieces:
            b = bo[keep[x.begin]] if x.begin < len(keep) else bo[len(text)]
            spans.append((b, bo[keep[x.end - 1] + 1] if x.end > x.begin else b))
    return tok.encode(text), spans


def check_model_dir(tmp):
    """xlate_tokenize_spans / xlate_detokenize_spans of the default model (-m models/en-de)."""
    d = os.path.join(ROOT, "models", "en-de")
    sp = spm.SentencePieceProcessor(model_file=par.SHARED_MODEL)
    lines = [l.decode("utf-8") for l in par.lines_of(open(SMALL[0], "rb").read())]
    lines += hand_lines()
    path = os.path.join(tmp, "dir.txt")
    with open(path, "wb") as fh:
        fh.write("".join(l + "\n" for l in lines).encode("utf-8"))
    enc = [lib_encode(sp, l) for l in lines]
    try:
        got = run_xlate(["encode", "-m", d], path)
    except RuntimeError as e:
        notok("model directory encode spans", str(e))
        return
    compare("model directory (-m models/en-de) encode spans", got,
            [spans_text(i, s) for i, s in enc], lambda i: lines[i])
    seqs = [i for i, _ in enc]
    path = os.path.join(tmp, "dir.ids")
    with open(path, "w") as fh:
        fh.write("".join(" ".join(map(str, x)) + "\n" for x in seqs))
    want = []
    for x in seqs:
        text, spans = lib_decode(sp, x)
        want.append(text + b"\t" + " ".join("%d:%d" % y for y in spans).encode())
    try:
        got = run_xlate(["decode", "-m", d], path)
    except RuntimeError as e:
        notok("model directory decode spans", str(e))
        return
    compare("model directory (-m models/en-de) decode spans", got, want, lambda i: seqs[i])


def check_marian(tmp):
    """`xlate encode -m DIR --spans` on a multilingual MarianMT directory (>>xx<< codes, pieces
    vocab.json lacks), made by tools/make_marian.py."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import marian_reference as R
    d = os.path.join(tmp, "marian")
    OM.make_model(d, [sys.executable, os.path.join(ROOT, "tools", "make_marian.py"), d,
                      "--multilingual", "--seed", "4"])
    tok = R.Tokenizer(d)
    texts = [l.decode("utf-8") for l in par.lines_of(open(SMALL[2], "rb").read())[:300]]
    texts += [l.decode("utf-8") for l in par.lines_of(open(SMALL[4], "rb").read())]
    texts += [">>fra<< A dog.", ">>fra<<  Two  dogs  ", "a >>fra<< b", ">>fra<<>>spa<< x",
              ">>xyz<< unknown code", "  >>fra<< not at the start", ">>spa<<", ">>ita<< ﬁne ①",
              "x >>fra<<", "\u3000A\u00a0b\u2009c", "ŋ ŋŋ ǂ ä ö ü ß"]
    path = os.path.join(tmp, "marian.txt")
    with open(path, "wb") as fh:
        fh.write("".join(t + "\n" for t in texts).encode("utf-8"))
    want = [spans_text(*marian_oracle(tok, R.LANG_CODE, t)) for t in texts]
    n_unk = sum(w.split(b"\t")[0].split().count(str(tok.unk).encode()) for w in want)
    try:
        got = run_xlate(["encode", "-m", d], path)
    except RuntimeError as e:
        notok("marian encode spans", str(e))
        return
    compare("marian (>>xx<< codes, %d <unk> of pieces vocab.json lacks) encode spans" % n_unk,
            got, want, lambda i: texts[i])
    # Decode spans of a MarianMT model: its decode strips and cleans up the whole text, so token
    # k's bytes are what the text gains when k is added (xlate.h): the common prefix of the
    # whole text with tokenizer.decode(ids[:k + 1]) (tools/marian_reference.py, transformers
    # v4.40 rule by rule), from where the previous token ended, leading spaces left out.
    def marian_decode_spans(ids):
        whole = tok.decode(ids).encode()
        out, prev = [], 0
        for k in range(len(ids)):
            if k == len(ids) - 1:
                end = len(whole)
            else:
                part = tok.decode(ids[:k + 1]).encode()
                end = 0
                while end < min(len(part), len(whole)) and part[end] == whole[end]:
                    end += 1
            end = max(end, prev)
            a = prev
            while a < end and whole[a:a + 1] == b" ":
                a += 1
            out.append("%d:%d" % (a, end))
            prev = end
        return whole + b"\t" + " ".join(out).encode()
    rng = random.Random(21)
    seqs = [marian_oracle(tok, R.LANG_CODE, t)[0] for t in texts]
    seqs += [[rng.randrange(len(tok.decoder)) for _ in range(rng.randrange(1, 30))]
             for _ in range(40)]
    seqs = [q for q in seqs if q]
    path = os.path.join(tmp, "marian.ids")
    with open(path, "w") as fh:
        fh.write("".join(" ".join(map(str, q)) + "\n" for q in seqs))
    try:
        got = run_xlate(["decode", "-m", d], path)
    except RuntimeError as e:
        notok("marian decode spans", str(e))
        return
    compare("marian decode spans (%d id sequences: the texts' ids and random ones, special "
            "tokens among them): what the text gains with each token" % len(seqs),
            got, [marian_decode_spans(q) for q in seqs], lambda i: seqs[i])


def main():
    if os.environ.get("XLATE_FORCE_ISA") == "generic":
        # CI's second run of the suite: what is checked here is the tokenizer's alone (`xlate
        # encode / decode --spans`: src/text/ has no vector code; with -m the model is loaded,
        # as every other test loads one, and nothing computed), so that run would make the
        # default run's checks again, byte for byte (36 s of it)
        ok("the tokenizer's spans: skipped under XLATE_FORCE_ISA=generic (no vector code: the "
           "default run's checks again)")
        return done()
    if not os.access(XLATE, os.X_OK):
        notok("xlate binary", "%s is not executable (set XLATE)" % XLATE)
        return 1
    if shutil.which("spm_train") is None:
        notok("sentencepiece programs", "spm_train not found")
        return 1
    tmp = tempfile.mkdtemp(prefix="xlate-spans-")
    try:
        train_files = []
        for gz in par.TRAIN_GZ:
            train_files.append(os.path.join(tmp, os.path.basename(gz)[:-3]))
            with gzip.open(gz, "rb") as fi, open(train_files[-1], "wb") as fo:
                fo.write(fi.read())
        extra = [("hand-made alignment cases", hand_lines()), ("ties", par.tie_lines())]
        check_model("multi30k spm", par.SHARED_MODEL, tmp, train_files + SMALL, extra)
        check_raw("multi30k spm", par.SHARED_MODEL, tmp)

        joint = os.path.join(tmp, "joint.txt")
        with open(joint, "wb") as fh:
            for f in SMALL:
                fh.write(open(f, "rb").read())
        common = ["--hard_vocab_limit=false"]
        rules = os.path.join(tmp, "norm.tsv")
        with open(rules, "w") as fh:  # expansions, contractions and a deletion
            fh.write("41\t61\nDF\t73 73\nC4\t41 65\n4D 61 6E 6E\t4D 41 4E 4E\n3000\t20\n"
                     "200B\t\n")
        trained = [
            ("bpe byte_fallback", "bpe_bf",
             ["--model_type=bpe", "--vocab_size=1000", "--byte_fallback=true"]),
            ("unigram nfkc_cf split_digits", "uni_cf",
             ["--model_type=unigram", "--vocab_size=1000", "--normalization_rule_name=nfkc_cf",
              "--split_digits=true"]),
            ("char", "char", ["--model_type=char", "--vocab_size=120"]),
            ("word", "word", ["--model_type=word", "--vocab_size=1500"]),
            ("unigram user symbols, no extra-ws removal, no dummy prefix", "uni_user",
             ["--model_type=unigram", "--vocab_size=800",
              "--user_defined_symbols=<sep>,Mann,ing,\u2581a,..,1",
              "--remove_extra_whitespaces=false", "--add_dummy_prefix=false"]),
            ("bpe user symbols, whitespace as suffix", "bpe_suffix",
             ["--model_type=bpe", "--vocab_size=800", "--user_defined_symbols=<sep>,Mann,ing",
              "--treat_whitespace_as_suffix=true"]),
            ("unigram identity byte_fallback", "uni_id_bf",
             ["--model_type=unigram", "--vocab_size=800", "--byte_fallback=true",
              "--normalization_rule_name=identity", "--character_coverage=0.98"]),
            ("unigram nfkc control symbols", "uni_ctl",
             ["--model_type=unigram", "--vocab_size=800", "--normalization_rule_name=nfkc",
              "--control_symbols=<sep>,<cls>", "--pad_id=3", "--unk_id=4", "--bos_id=-1"]),
            ("unigram custom normalization rules (tsv)", "uni_tsv",
             ["--model_type=unigram", "--vocab_size=800", "--normalization_rule_tsv=" + rules]),
        ]
        for label, name, args in trained:
            try:
                # the files joint is made of, and the rules file where it is used: the memo's key
                model = par.train(tmp, name, args + common, joint,
                                  SMALL + [rules] * any(rules in a for a in args))
            except RuntimeError as e:
                notok("train %s" % label, str(e))
                continue
            check_model(label, model, tmp, SMALL, extra)
            if name in ("bpe_bf", "uni_id_bf", "uni_user"):
                check_raw(label, model, tmp)
        check_model_dir(tmp)
        check_marian(tmp)
        m = os.path.join(tmp, "noescape.model")
        par.edit_model(par.SHARED_MODEL, m, normalizer={5: (0, 0), 4: (0, 0)})
        check_model("multi30k escape_whitespaces=false remove_extra_whitespaces=false", m, tmp,
                    SMALL, extra)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
