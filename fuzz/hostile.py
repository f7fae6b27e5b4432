#!/usr/bin/python3
"""fuzz/hostile.py — round 2 of docs/HARDENING.md: mutated config.json files, safetensors headers,
option values and id lines, run through the xlate program, each judged against the documented
rules (docs/FORMAT.md "JSON", xlate.1 OPTIONS) written again here in Python, independently of
the C code.

For every case: the expected verdict (accepted or refused) from the rules below; xlate's exit
status within 10 s; on a refusal, one message line starting "xlate: " that names the file,
option or line. Prints one line per disagreement and a summary table (the figures of
docs/HARDENING.md round 2).

    /usr/bin/python3 fuzz/hostile.py [XLATE]      (default build/xlate)
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
XLATE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "xlate"))
FIX = os.path.join(ROOT, "tests", "fixtures", "parity", "post_relu_tied")
SRC_IDS = open(os.path.join(FIX, "src.ids")).readline()

stats = {}  # kind -> [cases, agree, hangs, signals, unnamed]


def run(args, stdin=b""):
    try:
        p = subprocess.run([XLATE] + args, input=stdin, capture_output=True, timeout=10)
        return p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return 124, ""


def judge(kind, what, want_ok, rc, err, name, refuse_rc):
    s = stats.setdefault(kind, [0, 0, 0, 0, 0])
    s[0] += 1
    if rc == 124:
        s[2] += 1
        print("HANG  %s: %s" % (kind, what))
        return
    if rc < 0 or rc > 128:
        s[3] += 1
        print("SIGNAL %s: %s: rc %d" % (kind, what, rc))
        return
    got_ok = rc == 0
    lines = [l for l in err.splitlines() if l]
    if not got_ok and (rc != refuse_rc or len(lines) != 1 or not lines[0].startswith("xlate: ")
                       or name not in lines[0]):
        s[4] += 1
        print("UNNAMED %s: %s: rc %d [%s]" % (kind, what, rc, err.strip()[:200]))
        return
    if got_ok == want_ok:
        s[1] += 1
    else:
        print("DISAGREE %s: %s: expected %s, xlate rc %d [%s]" % (
            kind, what, "accept" if want_ok else "refuse", rc, err.strip()[:200]))


# ---- the rules, again ----
def utf8_ok(b):
    try:
        b.decode("utf-8", "strict")  # Python refuses overlongs and surrogates too
        return True
    except UnicodeDecodeError:
        return False


class Refused(Exception):
    pass


def strict_load(b):
    """One JSON value, only JSON whitespace after, UTF-8, no \\u0000, no key twice; number
    literals kept as text (so 3.0 can be told from 3)."""
    if not utf8_ok(b):
        raise Refused("utf-8")
    text = b.decode("utf-8")

    def pairs(kv):
        keys = [k for k, _ in kv]
        if len(set(keys)) != len(keys):
            raise Refused("key twice")
        return dict(kv)
    dec = json.JSONDecoder(object_pairs_hook=pairs, parse_int=lambda s: ("int", s),
                           parse_float=lambda s: ("float", s),
                           parse_constant=lambda s: (_ for _ in ()).throw(Refused(s)))
    try:
        v, end = dec.raw_decode(text.lstrip(" \t\r\n"))
    except ValueError:
        raise Refused("syntax")
    rest = text.lstrip(" \t\r\n")[end:]
    if rest.strip(" \t\r\n"):
        raise Refused("after the value")

    def no_nul(x):
        if isinstance(x, str) and ("\0" in x or any(0xD800 <= ord(c) < 0xE000 for c in x)):
            raise Refused("nul or a lone surrogate")
        if isinstance(x, dict):
            for k, y in x.items():
                no_nul(k)
                no_nul(y)
        if isinstance(x, list):
            for y in x:
                no_nul(y)
    no_nul(v)
    return v


def is_int(v, lo, hi):
    return isinstance(v, tuple) and v[0] == "int" and lo <= int(v[1]) <= hi


INT_FIELDS = {"d_model": 1, "heads": 1, "ffn_dim": 1, "encoder_layers": 0, "decoder_layers": 1,
              "src_vocab_size": 1, "tgt_vocab_size": 1, "max_positions": 1, "pad_id": 0,
              "unk_id": 0, "bos_id": 0, "eos_id": 0}


SHAPE_FIELDS = ("d_model", "ffn_dim", "encoder_layers", "decoder_layers", "src_vocab_size",
                "tgt_vocab_size")


def config_ok(b, base):
    """The JSON and integer rules, then what the fixture's weights allow: sizes that shape a
    tensor must stay, heads must divide d_model 48, special ids lie in the 61 ids,
    max_positions >= 2 and above the source length. A UTF-8 byte order mark at the start is
    let pass (RFC 8259 allows it; json.loads does not)."""
    if b.startswith(b"\xef\xbb\xbf"):
        b = b[3:]
    try:
        v = strict_load(b)
    except Refused:
        return False
    if not isinstance(v, dict):
        return False
    for k, lo in INT_FIELDS.items():
        if k not in v:
            continue
        if not is_int(v[k], lo, 1 << 24):
            return False
        x = int(v[k][1])
        if k in SHAPE_FIELDS and x != base[k] and not (k.endswith("_layers") and x < base[k]):
            return False  # fewer layers leave tensors unused (a warning), more miss tensors
        if k == "heads" and 48 % x:
            return False
        if k.endswith("_id") and x >= 61:
            return False
        if k == "max_positions" and x < len(SRC_IDS.split()) + 1:
            return False
    return True


# ---- config.json mutants ----
def configs(tmp):
    src = open(os.path.join(FIX, "config.json"), "rb").read()
    base = json.loads(src)
    d = os.path.join(tmp, "m")
    shutil.copytree(FIX, d)
    body = src.rstrip()
    assert body.endswith(b"}")
    inner = body[:-1].rstrip()
    cases = []
    for tail in [b" garbage", b"}", b"{}", b"\x00", b"\n\n", b" \t\r\n", b"\n//c", b",", b"]",
                 b"\xef\xbb\xbf", b"\x0c", b"\x0b", b"\xa0", b"\n{\"eos_id\": 4}", b"0", b"\"\""]:
        cases.append(("after the object %r" % tail, body + tail))
    for pre in [b"\xef\xbb\xbf", b" ", b"\n", b"\x00"]:
        cases.append(("before the object %r" % pre, pre + body))
    for k in ["eos_id", "d_model", "heads", "pad_id", "max_positions", "encoder_layers"]:
        val = base.get(k, 512 if k == "max_positions" else 0)
        for lit in ["%d" % val, "%d.0" % val, "%de0" % val, "%d.5" % val, "-%d" % val,
                    "%d00000000000000000000" % val, "%dE+0" % val, "-0", "\"%d\"" % val,
                    "true", "null", "[%d]" % val, "%d.000000000000000000001" % val, "1e300",
                    "0x%x" % val, "+%d" % val, "0%d" % val]:
            t = re.sub(rb'"%s"\s*:\s*[^,}]+' % k.encode(), b'"%s": %s' % (k.encode(), lit.encode()),
                       body, count=1)
            if t == body and k not in base:
                t = inner + b', "%s": %s}' % (k.encode(), lit.encode())
            cases.append(("%s: %s" % (k, lit), t))
    for extra in [b', "_doc": {"a": 1, "a": 2}', b', "eos_id": 3', b', "_doc": "\xff"',
                  b', "_doc": "\xc0\xaf"', b', "_doc": "\xed\xa0\x80"', b', "_doc": "\xf4\x90\x80\x80"',
                  b', "_doc": "a\\u0000b"', b', "_doc": "\\u00e9\xc3\xa9"', b', "_doc": "\\ud800"',
                  b', "_doc": [1, 2, {"x": [{}]}]', b', "_x": 1e400', b', "_x": -1e-400',
                  b', "_y": NaN', b', "_y": Infinity']:
        cases.append(("extra %r" % extra, inner + extra + b"}"))
    for what, text in cases:
        open(os.path.join(d, "config.json"), "wb").write(text)
        rc, err = run(["-m", d, "--input-format", "ids", "--output-format", "ids", "-q"],
                      SRC_IDS.encode())
        judge("config.json", what, config_ok(text, base), rc, err, "config.json", 2)


# ---- safetensors header mutants ----
def headers(tmp):
    img = open(os.path.join(FIX, "model.safetensors"), "rb").read()
    n = struct.unpack("<Q", img[:8])[0]
    h, data = img[8:8 + n], img[8 + n:]
    obj = h.rstrip(b" ")
    hdr = json.loads(obj)
    d = os.path.join(tmp, "w")
    shutil.copytree(FIX, d)
    name0 = sorted(k for k in hdr if k != "__metadata__")[0]
    e0 = hdr[name0]

    cases = []
    for tail in [b"}garbage", b"{}", b"\x00\x00\x00", b" " * 7, b"\t\n\r ", b"\x0c", b"x",
                 b"}", b"]", b"\xff", b" " * 3 + b"z"]:
        cases.append(("after the header %r" % tail, obj + tail))
    for pre in [b" ", b"\n", b"\xef\xbb\xbf"]:
        cases.append(("before the header %r" % pre, pre + obj))
    shape = json.dumps(e0["shape"], separators=(",", ":")).encode()
    offs = json.dumps(e0["data_offsets"], separators=(",", ":")).encode()
    for lit in [b"[%d.0%s" % (e0["shape"][0], shape[len(str(e0["shape"][0])) + 1:]),
                b"[%d.5%s" % (e0["shape"][0], shape[len(str(e0["shape"][0])) + 1:]),
                b"[%de0%s" % (e0["shape"][0], shape[len(str(e0["shape"][0])) + 1:]),
                b"[\"%d\"%s" % (e0["shape"][0], shape[len(str(e0["shape"][0])) + 1:]),
                b"[-%d%s" % (e0["shape"][0], shape[len(str(e0["shape"][0])) + 1:])]:
        cases.append(("shape %s" % lit.decode(), obj.replace(b'"shape":' + shape, b'"shape":' + lit, 1)))
    b0, e = e0["data_offsets"]
    for lit in [b"[%d,%d.0]" % (b0, e), b"[%d.0,%d]" % (b0, e), b"[%d,%de0]" % (b0, e),
                b"[%d,%d]" % (b0, e + 2 ** 53), b"[%d,%d.5]" % (b0, e), b"[%d,%d,0]" % (b0, e),
                b"[\"%d\",%d]" % (b0, e), b"[%d,%d]" % (b0, e)]:
        cases.append(("data_offsets %s" % lit.decode(),
                      obj.replace(b'"data_offsets":' + offs, b'"data_offsets":' + lit, 1)))
    for meta in [b'{"a":"b"}', b'{"a":1}', b'"pt"', b'null', b'[]', b'{"a":{"b":"c"}}', b'{}',
                 b'{"a":"b","a":"c"}', b'{"a":"\\u0000"}', b'{"\xff":"x"}', b'{"a":true}']:
        cases.append(("__metadata__ %r" % meta, b'{"__metadata__":' + meta + b"," + obj[1:]))
    cases.append(("a tensor twice", b'{"%s":{},' % name0.encode() + obj[1:]))
    for what, hb in cases:
        hb += b" " * (-len(hb) % 8)
        open(os.path.join(d, "model.safetensors"), "wb").write(struct.pack("<Q", len(hb)) + hb + data)
        try:
            v = strict_load(hb)
            ok = hb[:1] == b"{" and isinstance(v, dict)
            m = v.get("__metadata__") if ok else None
            if ok and "__metadata__" in v:
                ok = isinstance(m, dict) and all(isinstance(x, str) for x in m.values())
            for k, t in (v.items() if ok else []):
                if k == "__metadata__":
                    continue
                if not (all(is_int(s, 0, 1 << 40) for s in t.get("shape", [None])) and
                        len(t.get("data_offsets", [])) == 2 and
                        all(is_int(s, 0, 2 ** 63 - 1) for s in t["data_offsets"]) and
                        [int(s[1]) for s in t["data_offsets"]] == hdr[k]["data_offsets"] and
                        [int(s[1]) for s in t["shape"]] == hdr[k]["shape"]):
                    ok = False
        except Refused:
            ok = False
        rc, err = run(["-m", d, "--input-format", "ids", "--output-format", "ids", "-q"],
                      SRC_IDS.encode())
        judge("safetensors header", what, ok, rc, err, "model.safetensors", 2)


# ---- option values ----
OPTS = {"--batch-size": (1, 4096), "--batch-tokens": (1, 1 << 30), "--threads": (0, 1024),
        "--max-length": (1, 1 << 30), "--min-length": (0, 1 << 30),
        "--max-input-length": (1, 1 << 30), "--beam-size": (1, 256), "--n-best": (1, 256),
        "--window": (1, 100000), "--length-penalty": (0, 10)}
VALUES = ["2", " 2", "2 ", "\t2", "2\t", "+2", "-2", "02", "0x2", "2.0", "2e0", "", " ", "0",
          "1e-320", "4.9e-324", "1e-400", "1e999", "99999999999999999999", "-0", ".5", "5.",
          ".", "e", "1e", "1e+", "nan", "inf", "-inf", "\uff12", "2\n", "10", "10.0000001",
          "1_000", "1,5", "0.000", "9223372036854775807", "9223372036854775808"]


def option_ok(opt, v):
    lo, hi = OPTS[opt]
    if opt == "--length-penalty":
        if not re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", v):
            return False
        x = float(v)
        if x != x or abs(x) == float("inf"):
            return False
    else:
        if not re.fullmatch(r"[+-]?[0-9]+", v):
            return False
        x = int(v)
    if not lo <= x <= hi:
        return False
    # what the model and the other options allow: the fixture's max_positions is 64
    if opt == "--max-input-length" and x > 63:
        return False
    if opt == "--max-length" and x > 64:
        return False
    if opt == "--min-length" and x > 63:
        return False
    if opt == "--n-best" and x > 4:  # run with --beam-size 4
        return False
    return True


def options():
    for opt in OPTS:
        for v in VALUES:
            args = ["-m", FIX, "--input-format", "ids", "--output-format", "ids", "-q",
                    "--beam-size", "4", "--max-length", "64"]
            if opt == "--beam-size":
                args = args[:-4] + ["--max-length", "64"]
            if opt == "--max-length":
                args = args[:-2]
            args += [opt, v]
            rc, err = run(args, SRC_IDS.encode())
            judge("option values", "%s %r" % (opt, v), option_ok(opt, v), rc, err, opt, 1)


# ---- id lines ----
def idlines(tmp):
    path = os.path.join(tmp, "ids.txt")
    good = SRC_IDS.split()[:3]
    for c in list(range(0, 32)) + [127, 0x80, 0xff]:
        for where in ["inside", "alone", "after"]:
            b = bytes([c])
            line = {"inside": b"5" + b + b"6", "alone": b, "after": b" ".join(x.encode() for x in good) + b" 7" + b}[where]
            if c in (9, 32):  # separators
                want = True
            elif c == 10:
                want = True  # a line break: two lines of ids
            elif c == 13 and where != "inside":
                want = True  # CRLF (alone: a blank line)
            else:
                want = False
            open(path, "wb").write(line + b"\n")
            rc, err = run(["-m", FIX, "--input-format", "ids", "--output-format", "ids", "-q",
                           "-i", path])
            what = "byte 0x%02x %s" % (c, where)
            # a refusal must show the field whole and escaped: the bytes around the bad one
            # and no raw control byte (else it counts as a message that does not name it)
            field = re.search(r'"(.*)" is not a token id', err)
            shown = field and not any(ord(ch) < 32 or ord(ch) == 127 for ch in field.group(1)) \
                and (where != "inside" or field.group(1).startswith("5") and field.group(1).endswith("6"))
            judge("id lines", what, want, rc, err, "line 1" if rc != 3 or shown else "\0", 3)


def main():
    tmp = tempfile.mkdtemp()
    try:
        configs(tmp)
        headers(tmp)
        options()
        idlines(tmp)
    finally:
        shutil.rmtree(tmp)
    print("| kind | cases | agree with the rules | hangs | signals | refusals without a named one-line message |")
    print("|---|---|---|---|---|---|")
    total = [0] * 5
    for k, s in stats.items():
        print("| %s | %d | %d | %d | %d | %d |" % ((k,) + tuple(s)))
        total = [a + b for a, b in zip(total, s)]
    print("| total | %d | %d | %d | %d | %d |" % tuple(total))
    return 0 if total[0] == total[1] else 1


if __name__ == "__main__":
    sys.exit(main())
