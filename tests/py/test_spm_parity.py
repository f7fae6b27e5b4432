#!/usr/bin/python3
"""Parity of `xlate encode` / `xlate decode` with the sentencepiece library.

The oracle is the library itself: python3-sentencepiece for text lines, the C++ spm_encode /
spm_decode programs for raw bytes (invalid UTF-8, NUL bytes), which the Python API cannot take.
Models: the default model's spm.model (multi30k), models trained here with spm_train (BPE + byte fallback,
unigram nfkc_cf + split_digits, char, word, user-defined symbols without extra-whitespace removal
or dummy prefix, whitespace as suffix, identity normalization + byte fallback, control symbols,
custom normalization + denormalization rules)
and variants of them edited at the protobuf level (escape_whitespaces off, UNUSED pieces, a
custom unk_surface) to reach code paths that spm_train does not produce.

Also the command line as a drop-in (CRLF, last line without newline, long lines, exit statuses).
The library's ids and texts of each file and spm_train's models are kept in tests/py/oracle_memo.py
(keyed by the model's and the file's bytes, sentencepiece's version): CI's second and third runs
of the suite read them instead of computing them again (the sanitizer run: 60 s of CPU less);
xlate encodes and decodes every line each time. Under XLATE_FORCE_ISA=generic it only says it is
skipped: nothing here reaches the vector code, so that run would repeat the default run.
Environment: XLATE (the binary; default ./xlate). Run with Debian's /usr/bin/python3.
"""
import base64
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import sentencepiece as spm

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
XLATE = os.path.abspath(os.environ.get("XLATE", os.path.join(ROOT, "xlate")))
TDATA = os.path.join(ROOT, "tests", "data")
M30K = os.path.join(TDATA, "multi30k")
# train.{en,de} are stored gzipped (1.2 MB instead of 3.9); unpacked into the temp dir by main()
TRAIN_GZ = [os.path.join(M30K, f) for f in ("train.en.gz", "train.de.gz")]
DATA = [os.path.join(M30K, f) for f in (
    "val.en", "val.de", "test_2016_flickr.en", "test_2016_flickr.de")]
DATA.append(os.path.join(TDATA, "tokenizer", "unicode.txt"))
SHARED_MODEL = os.path.join(ROOT, "models", "en-de", "spm.model")

from checks import done, ok, not_ok as notok  # noqa: E402,F401
import oracle_memo as OM  # noqa: E402
from protobuf_wire import varint, enc_varint  # noqa: E402,F401


def lines_of(data):
    """Lines as spm_encode reads them: split on \\n only, a last line without \\n counts."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr


# ---- protobuf editing (enough of the wire format for ModelProto) ----

def pb_fields(b):
    """[(field, wiretype, payload bytes)]; varints are kept decoded as ints."""
    out, i = [], 0
    while i < len(b):
        k, i = varint(b, i)
        f, wt = k >> 3, k & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        else:
            raise ValueError("wire type %d" % wt)
        out.append((f, wt, v))
    return out


def pb_bytes(fields):
    out = bytearray()
    for f, wt, v in fields:
        out += enc_varint(f << 3 | wt)
        if wt == 0:
            out += enc_varint(v)
        elif wt == 2:
            out += enc_varint(len(v)) + v
        else:
            out += v
    return bytes(out)


def edit_model(src, dst, normalizer=None, trainer=None, piece_type=None):
    """Copies a .model, setting normalizer_spec / trainer_spec fields ({field: (wt, value)})
    and piece types ({piece string: type})."""
    top = pb_fields(open(src, "rb").read())
    out = []
    for f, wt, v in top:
        if f == 1 and piece_type:
            sub = pb_fields(v)
            name = [x[2] for x in sub if x[0] == 1][0].decode("utf-8", "replace")
            if name in piece_type:
                sub = [x for x in sub if x[0] != 3] + [(3, 0, piece_type[name])]
                v = pb_bytes(sub)
        for num, edits in ((3, normalizer), (2, trainer)):
            if f == num and edits:
                sub = [x for x in pb_fields(v) if x[0] not in edits]
                sub += [(k, e[0], e[1]) for k, e in sorted(edits.items())]
                v = pb_bytes(sub)
        out.append((f, wt, v))
    with open(dst, "wb") as fh:
        fh.write(pb_bytes(out))


# ---- inputs that only the C++ CLI can take ----

def raw_lines():
    rnd = random.Random(1234)
    fixed = [
        b"", b" ", b"   ", b"\t", b"\r", b"a\r", b"hello world\r", b"\xff", b"a\xffb",
        b"\xc3", b"caf\xc3", b"\xc3\xa9t\xc3", b"\xc0\xaf overlong slash", b"\xe0\x80\xaf",
        b"\xf0\x80\x80\xaf", b"\xed\xa0\x80 surrogate", b"\xed\xbf\xbf", b"\xf4\x90\x80\x80",
        b"\xf8\x88\x80\x80\x80 five", b"\xfe\xff", b"\x80\x80\x80", b"A man \xe2\x82 half euro",
        b"x\x00y", b"\x00", b"\x00\x00 two nuls", b"a\x01b\x02c\x1fd\x7f",
        b"\xef\xbf\xbd literal replacement", b"\xef\xbb\xbf bom", b"  lead and trail  ",
        b"tab\tinside\tline", b"\xe2\x96\x81 already escaped \xe2\x96\x81\xe2\x96\x81",
        "Ｆｕｌｌ ﬁ ① ² Å ™ …".encode(), b"12345 678.9 0x1F", b"in 2008, 1950 and 2000 100 people",
        b"<s> </s> <unk> <pad> <sep> <0x41>", "ǅ ﬀ ㍿ ﷺ".encode(),
        b"a" * 3000, ("Donaudampfschifffahrt " * 200).encode(),
    ]
    rand = []
    alphabet = [b"a", b"e", b"n", b" ", b"  ", b"\xc3\xa4", b"\xe2\x80\x94", b"\xff", b"\x00",
                b"\xc3", b"\xf0\x9f\x98\x80", b"\xe2\x96\x81", b"M", b"1", b".", b"\r", b"\t"]
    for _ in range(400):
        n = rnd.randint(1, 40)
        rand.append(b"".join(rnd.choice(alphabet) for _ in range(n)))
    for _ in range(200):
        n = rnd.randint(1, 30)
        rand.append(bytes(rnd.randint(0, 255) for _ in range(n)).replace(b"\n", b" "))
    return fixed + rand


def tie_lines():
    """Strings of few letters, where different segmentations often score the same."""
    rnd = random.Random(99)
    out = []
    for _ in range(300):
        n = rnd.randint(1, 24)
        out.append("".join(rnd.choice("gen ") for _ in range(n)))
    for k in range(1, 40):
        out.append("e" * k)
        out.append("n" * k + " " + "en" * k)
    return out


# ---- checks ----

def xlate_encode(model, path):
    rc, out, err = run([XLATE, "encode", "--spm", model, "-i", path])
    if rc != 0:
        raise RuntimeError("xlate encode exited %d: %s" % (rc, err.decode(errors="replace")[:300]))
    return lines_of(out)


def xlate_decode(model, path):
    rc, out, err = run([XLATE, "decode", "--spm", model, "-i", path])
    if rc != 0:
        raise RuntimeError("xlate decode exited %d: %s" % (rc, err.decode(errors="replace")[:300]))
    return lines_of(out)


def compare(what, got, want, show):
    n = len(want)
    same = sum(1 for a, b in zip(got, want) if a == b)
    if len(got) == n and same == n:
        ok("%s %d/%d lines identical" % (what, same, n))
        return
    first = next((i for i in range(min(len(got), n)) if got[i] != want[i]), min(len(got), n))
    detail = "line %d: input %r: got %r expected %r" % (
        first + 1, show(first)[:120] if first < n else None,
        got[first][:200] if first < len(got) else None,
        want[first][:200] if first < n else None)
    notok(what, "%d/%d lines identical (%d output lines); first difference %s"
          % (same, n, len(got), detail))


def check_model(label, model, tmp, files, raw=True, ties=False, rand_decode=True):
    sp = spm.SentencePieceProcessor(model_file=model)
    ids_dir = os.path.join(tmp, "ids")
    os.makedirs(ids_dir, exist_ok=True)
    inputs = [(os.path.basename(f), f) for f in files]
    if ties:
        tp = os.path.join(tmp, "ties.txt")
        with open(tp, "w", encoding="utf-8") as fh:
            fh.write("\n".join(tie_lines()) + "\n")
        inputs.append(("ties", tp))
    for name, path in inputs:
        data = open(path, "rb").read()
        lines = lines_of(data)

        def library():  # the oracle's ids of each line and its text of those ids (zlib: 8 MB
            # of JSON a model for the 29,000 lines of train.en and .de, 1 MB compressed)
            ids = [sp.encode(l.decode("utf-8")) for l in lines]
            v = json.dumps({"ids": ids, "text": [sp.decode(x) for x in ids]}).encode()
            return base64.b64encode(zlib.compress(v)).decode()
        lib = json.loads(zlib.decompress(base64.b64decode(
            OM.cached("sentencepiece encode, decode", [], library, [model, path]))))
        want_ids = lib["ids"]
        want = [" ".join(map(str, x)).encode() for x in want_ids]
        try:
            got = xlate_encode(model, path)
        except RuntimeError as e:
            notok("%s encode: %s" % (label, name), str(e))
            continue
        compare("%s encode: %s" % (label, name), got, want, lambda i: lines[i])
        # decode of the library's ids
        idp = os.path.join(ids_dir, name + ".ids")
        with open(idp, "wb") as fh:
            fh.write(b"".join(w + b"\n" for w in want))
        want_txt = [x.encode("utf-8") for x in lib["text"]]
        try:
            got_txt = xlate_decode(model, idp)
        except RuntimeError as e:
            notok("%s decode: %s" % (label, name), str(e))
            continue
        compare("%s decode: %s" % (label, name), got_txt, want_txt, lambda i: want[i])
    if raw:
        rp = os.path.join(tmp, "raw.txt")
        rl = raw_lines()
        with open(rp, "wb") as fh:
            fh.write(b"".join(l + b"\n" for l in rl))
        rc, out, err = run(["spm_encode", "--model", model, "--output_format=id", "--input", rp])
        if rc != 0:
            notok("%s encode: raw bytes" % label, "spm_encode failed: %s" % err[:200])
        else:
            compare("%s encode: raw bytes (invalid UTF-8, NUL, CR)" % label,
                    xlate_encode(model, rp), lines_of(out), lambda i: rl[i])
    if rand_decode:
        # random id sequences: byte pieces in any order, control ids, <unk>, leading spaces
        rnd = random.Random(7)
        v = sp.get_piece_size()
        special = [i for i in range(v) if sp.is_control(i) or sp.is_unknown(i) or sp.is_byte(i)]
        ws = [i for i in range(v) if sp.id_to_piece(i).startswith("\u2581")]
        seqs = [[]]
        for _ in range(500):
            n = rnd.randint(1, 12)
            pool = [rnd.randrange(v) for _ in range(4)] + special[:8] + ws[:4]
            if special:
                pool += [rnd.choice(special) for _ in range(4)]
            seqs.append([rnd.choice(pool) for _ in range(n)])
        seqs = [s for s in seqs if "\n" not in sp.decode(s)]  # a newline would split the line
        idp = os.path.join(tmp, "rand.ids")
        with open(idp, "w") as fh:
            fh.write("".join(" ".join(map(str, s)) + "\n" for s in seqs))
        rc, out, err = run(["spm_decode", "--model", model, "--input_format=id", "--input", idp])
        want = [sp.decode(s).encode("utf-8", "surrogateescape") for s in seqs]
        if rc == 0:  # the C++ program is the oracle for bytes python cannot represent
            cl = lines_of(out)
            if len(cl) == len(seqs):
                want = cl
        compare("%s decode: random id sequences" % label, xlate_decode(model, idp), want,
                lambda i: seqs[i])


def train(tmp, name, args, inp, files):
    """spm_train's model of inp (made from files: its bytes and their names are the memo's key;
    tmp's path is left out of it), from oracle_memo when trained so before."""
    prefix = os.path.join(tmp, name)

    def compute():
        rc, out, err = run(["spm_train", "--input=" + inp, "--model_prefix=" + prefix,
                            "--minloglevel=2", "--num_threads=4"] + args)
        if rc != 0:
            raise RuntimeError("spm_train %s failed: %s"
                               % (name, err.decode(errors="replace")[-400:]))
        return base64.b64encode(open(prefix + ".model", "rb").read()).decode()
    b = OM.cached("spm_train", [name, [a.replace(tmp, "TMP") for a in args]], compute, files)
    with open(prefix + ".model", "wb") as fh:
        fh.write(base64.b64decode(b))
    return prefix + ".model"


def check_cli(model, tmp):
    """The command line as a drop-in for spm_encode / spm_decode."""
    def same_as_spm(what, data):
        p = os.path.join(tmp, "cli.txt")
        with open(p, "wb") as fh:
            fh.write(data)
        rc, want, err = run(["spm_encode", "--model", model, "--output_format=id", "--input", p])
        rc2, got, err2 = run([XLATE, "encode", "--spm", model, "-i", p])
        rc3, got_stdin, _ = run([XLATE, "encode", "--spm", model], stdin=data)
        if rc == 0 and rc2 == 0 and rc3 == 0 and got == want and got_stdin == want:
            ok("cli encode: %s, as spm_encode (%d lines)" % (what, len(lines_of(want))))
        else:
            notok("cli encode: %s" % what, "rc %d/%d/%d got %r expected %r %s"
                  % (rc, rc2, rc3, got[:200], want[:200], err2[:200]))

    same_as_spm("CRLF lines", b"A man\r\nA dog runs\r\n\r\nend\r\n")
    same_as_spm("last line without newline", b"first\nA man without newline")
    same_as_spm("empty lines", b"\n\nA man\n\n")
    same_as_spm("empty input", b"")
    big = " ".join("word%d Donaudampfschiff" % i for i in range(60000)).encode()
    same_as_spm("a line of %d bytes" % len(big), b"short\n" + big + b"\nshort\n")

    rc, out, err = run([XLATE, "decode", "--spm", model], stdin=b"5 6\n7 x9 8\n")
    if rc == 3 and b":2:" in err and b"x9" in err:
        ok("cli decode: a token that is not an id: exit 3, message names line 2 and the token")
    else:
        notok("cli decode: bad token", "rc %d stderr %r" % (rc, err))
    rc, out, err = run([XLATE, "decode", "--spm", model], stdin=b"5 6\n\n7 999999\n")
    if rc == 3 and b":3:" in err and b"999999" in err:
        ok("cli decode: an out-of-range id: exit 3, message names line 3 and the id")
    else:
        notok("cli decode: out-of-range id", "rc %d stderr %r" % (rc, err))
    rc, out, err = run([XLATE, "decode", "--spm", model], stdin=b"\n9 10\n\n")
    rc2, want, _ = run(["spm_decode", "--model", model, "--input_format=id"], stdin=b"\n9 10\n\n")
    if rc == 0 and out == want:
        ok("cli decode: empty lines give empty lines, as spm_decode")
    else:
        notok("cli decode: empty lines", "rc %d got %r expected %r" % (rc, out, want))
    if os.path.exists("/dev/full"):
        with open("/dev/full", "wb") as full:
            p = subprocess.run([XLATE, "encode", "--spm", model], input=b"A man\n" * 10000,
                               stdout=full, stderr=subprocess.PIPE)
        if p.returncode == 4 and p.stderr:
            ok("cli encode: writing to /dev/full: exit 4 with a message")
        else:
            notok("cli encode: /dev/full", "rc %d stderr %r" % (p.returncode, p.stderr))
    rc, out, err = run([XLATE, "encode", "--spm", os.path.join(tmp, "missing.model")], stdin=b"")
    if rc == 2 and b"missing.model" in err:
        ok("cli encode: an unreadable model: exit 2 naming it")
    else:
        notok("cli encode: unreadable model", "rc %d stderr %r" % (rc, err))
    rc, out, err = run([XLATE, "encode"], stdin=b"")
    rc2, out2, err2 = run([XLATE, "encode", "--spm", model, "--bogus"], stdin=b"")
    if rc == 1 and rc2 == 1 and b"usage" in err and b"usage" in err2:
        ok("cli encode: missing --spm or an unknown option: exit 1 with usage")
    else:
        notok("cli encode: usage errors", "rc %d %d" % (rc, rc2))
    rc, out, err = run([XLATE, "decode", "--help"])
    if rc == 0 and b"usage: xlate decode" in out:
        ok("cli decode: --help prints usage, exit 0")
    else:
        notok("cli decode: --help", "rc %d out %r" % (rc, out[:200]))


def main():
    if os.environ.get("XLATE_FORCE_ISA") == "generic":
        # CI's second run of the suite: `xlate encode / decode` never reaches the vector code
        # (src/text/ and src/cli/cli_spm.c use no kernel; main only checks the variable's
        # value), so that run would make the default run's checks again, byte for byte
        # (67 s of it)
        ok("the tokenizer against sentencepiece: skipped under XLATE_FORCE_ISA=generic (no "
           "vector code: the default run's checks again)")
        return done()
    if not os.access(XLATE, os.X_OK):
        notok("xlate binary", "%s is not executable (set XLATE)" % XLATE)
        return 1
    if shutil.which("spm_train") is None or shutil.which("spm_encode") is None:
        notok("sentencepiece programs", "spm_train / spm_encode not found")
        return 1
    tmp = tempfile.mkdtemp(prefix="xlate-spm-")
    try:
        import gzip
        train_text = []
        for gz in TRAIN_GZ:
            train_text.append(os.path.join(tmp, os.path.basename(gz)[:-3]))
            with gzip.open(gz, "rb") as fi, open(train_text[-1], "wb") as fo:
                fo.write(fi.read())
        DATA[:0] = train_text
        check_model("multi30k spm", SHARED_MODEL, tmp, DATA, ties=True)
        check_cli(SHARED_MODEL, tmp)
        joint = os.path.join(tmp, "joint.txt")
        with open(joint, "wb") as fh:
            for f in DATA[:2]:
                fh.write(open(os.path.join(f), "rb").read())
        small = DATA[2:]  # val, test, unicode
        common = ["--input_sentence_size=20000", "--shuffle_input_sentence=true"]
        trained = [
            ("bpe byte_fallback", "bpe_bf",
             ["--model_type=bpe", "--vocab_size=2000", "--byte_fallback=true"]),
            ("unigram nfkc_cf split_digits", "uni_cf",
             ["--model_type=unigram", "--vocab_size=2000", "--normalization_rule_name=nfkc_cf",
              "--split_digits=true"]),
            ("char", "char", ["--model_type=char", "--vocab_size=120"]),
            ("word", "word", ["--model_type=word", "--vocab_size=3000"]),
            ("unigram user symbols, no extra-ws removal, no dummy prefix", "uni_user",
             ["--model_type=unigram", "--vocab_size=1500",
              "--user_defined_symbols=<sep>,Mann,ing,\u2581a,..,1",
              "--remove_extra_whitespaces=false", "--add_dummy_prefix=false"]),
            ("bpe user symbols, whitespace as suffix", "bpe_suffix",
             ["--model_type=bpe", "--vocab_size=1500", "--user_defined_symbols=<sep>,Mann,ing",
              "--treat_whitespace_as_suffix=true"]),
            ("unigram identity byte_fallback", "uni_id_bf",
             ["--model_type=unigram", "--vocab_size=1500", "--byte_fallback=true",
              "--normalization_rule_name=identity", "--character_coverage=0.98"]),
            ("unigram nfkc control symbols", "uni_ctl",
             ["--model_type=unigram", "--vocab_size=1200", "--normalization_rule_name=nfkc",
              "--control_symbols=<sep>,<cls>", "--pad_id=3", "--unk_id=4", "--bos_id=-1"]),
        ]
        # custom rules: the trainer compiles them into a charsmap, and a denormalizer for decode
        rules = os.path.join(tmp, "norm.tsv")
        with open(rules, "w") as fh:
            fh.write("41\t61\nDF\t73 73\nC4\t41 65\n4D 61 6E 6E\t4D 41 4E 4E\n3000\t20\n")
        derules = os.path.join(tmp, "denorm.tsv")
        with open(derules, "w") as fh:
            fh.write("73 73\tDF\n41 4E 4E\t61 6E 6E\n")
        trained.append(("unigram custom normalization + denormalization rules (tsv)", "uni_tsv",
                        ["--model_type=unigram", "--vocab_size=1000",
                         "--normalization_rule_tsv=" + rules,
                         "--denormalization_rule_tsv=" + derules]))
        models = {}
        for label, name, args in trained:
            try:
                models[name] = train(tmp, name, args + common, joint,
                                     TRAIN_GZ + [f for f in (rules, derules) if f in "".join(args)])
            except RuntimeError as e:
                notok("train %s" % label, str(e))
                continue
            check_model(label, models[name], tmp, DATA, ties=(name in ("uni_cf", "bpe_bf")))
        # protobuf-level variants
        variants = []
        m = os.path.join(tmp, "noescape.model")
        edit_model(SHARED_MODEL, m, normalizer={5: (0, 0), 4: (0, 0)})
        variants.append(("multi30k escape_whitespaces=false remove_extra_whitespaces=false", m))
        # pretokenization options shape training only; the library ignores them when encoding
        # ("▁2008", "00", "▁1950" stay whole however they are set)
        m = os.path.join(tmp, "split.model")
        edit_model(SHARED_MODEL, m, trainer={25: (0, 1), 21: (0, 0), 22: (0, 0), 23: (0, 0)})
        variants.append(("multi30k split_digits=true, split_by_unicode_script/whitespace/number"
                         "=false", m))
        m = os.path.join(tmp, "unksurf.model")
        edit_model(SHARED_MODEL, m, trainer={44: (2, "<?>".encode())})
        variants.append(("multi30k unk_surface=<?>", m))
        for name in ("bpe_bf", "uni_cf"):
            if name not in models:
                continue
            sp = spm.SentencePieceProcessor(model_file=models[name])
            unused = {sp.id_to_piece(i): 5 for i in range(sp.get_piece_size())
                      if i % 3 == 0 and len(sp.id_to_piece(i)) > 2
                      and not (sp.is_control(i) or sp.is_unknown(i) or sp.is_byte(i))}
            m = os.path.join(tmp, name + "_unused.model")
            edit_model(models[name], m, piece_type=unused)
            variants.append(("%s with %d UNUSED pieces" % (name, len(unused)), m))
        for label, m in variants:  # the smaller files: the full ones ran on the originals
            check_model(label, m, tmp, small, ties=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
