"""Hardening, round 4 (issue 37): what hostile values found in the decoding controls, the line
contract, jsonl, the messages and the Hugging Face files, each case checked against an oracle
that does not come from xlate (the arithmetic's limit, Python's json, the input's own lines).

Random models in the hub layout are made by tools/make_marian.py and tools/make_m2m100.py into
a temporary directory (nothing is committed). Checked:
  1. no NaN translation: --sampling-temperature 1e-38 / 1e-45 and --repetition-penalty 1e-40,
     and the same values in generation_config.json, give finite "logprob"/"score" (a sample at
     a temperature that small is the argmax: the same ids as greedy); a value that is 0 as a
     32-bit float is refused, by the option with its real range (exit 1), or, from
     generation_config.json, naming the file and the key (exit 2, no option blamed);
  2. N lines in, N out with --paragraphs: a paragraph over 1 MiB is one output line (cut, with a
     warning, as a line over 1 MiB is without --paragraphs), the paragraphs and blank lines
     counted from the input by Python; a line of only U+3000, U+00A0 (or other Unicode
     spaces) is blank in both modes: an empty output line, and a paragraph break;
  3. jsonl's sentence "source" is the text its "span" covers (a NUL, control bytes, invalid
     UTF-8 as U+FFFD), the same string `xlate split --output-format jsonl` writes;
  4. every option of --help that takes a value, given a hostile one (a newline and a forged
     "xlate:" line, an ANSI escape, 10 kB), on a MarianMT and an NLLB model, and model
     directories so named: stderr holds no forged line, no escape byte, no line over 1 kB;
  5. tokenizer.json's "added_tokens" under docs/FORMAT.md's one rule: a key twice refused
     (Python's json would take the last, xlate's reader took the first), ids 100.0 and 1e2
     refused as integers written with a fraction or exponent, a byte order mark let pass (the
     same ids as without), id -1 refused as out of range with the value said;
  6. the model's files blamed for their own faults: a src_lang of tokenizer_config.json that
     is no code of the model, and a code listed twice, exit 2 naming the file (not
     --source-lang, not "<mask>"); generation_config.json's eos_token_id -1, 504, [] and 5,
     guidance_scale 3 and num_return_sequences 2 exit 2 naming the file and the key, while
     their neutral values (eos_token_id 2 or [2], guidance_scale 1, num_return_sequences 1)
     translate as without them (the same ids);
  8. a FIFO with no writer given to -i or --target-prefix: xlate says on stderr that it waits
     for a writer (naming the FIFO), then translates what the writer sends (3 lines in, 3
     out); --repetition-penalty 1e308's message states the option's real range;
Run by tests/run.sh with env XLATE (the binary) and Debian's /usr/bin/python3.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done, ok, not_ok  # noqa: E402,F401

XLATE = os.path.abspath(os.path.join(TOP, os.environ.get("XLATE", "./xlate")))
PY = sys.executable
RUNS = 0  # hostile runs of xlate made by this test (docs/HARDENING.md's round 4 figures)


def xl(args, inp=b"", timeout=60):
    """xlate's (exit status, stdout, stderr), stdin `inp` (bytes)."""
    global RUNS
    RUNS += 1
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_HOME=os.path.join(tempfile.gettempdir(),
                                                                    "xlate_r4_no_hub"))
    p = subprocess.run([XLATE] + args, input=inp, capture_output=True, timeout=timeout,
                       env=env)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def make(tool, out, *args):
    subprocess.run([PY, os.path.join(TOP, "tools", tool), out, *args], check=True,
                   capture_output=True)


def variant(base, dst, gen=None, files=None):
    """A copy of model directory `base` with generation_config.json's fields `gen` changed
    (None: a field removed) and whole files replaced (`files`: name -> bytes)."""
    shutil.copytree(base, dst)
    if gen:
        path = os.path.join(dst, "generation_config.json")
        g = json.load(open(path))
        for k, v in gen.items():
            if v is None:
                g.pop(k, None)
            else:
                g[k] = v
        with open(path, "w") as f:
            json.dump(g, f)
    for name, data in (files or {}).items():
        with open(os.path.join(dst, name), "wb") as f:
            f.write(data)
    return dst


def jsonl(out):
    return [json.loads(l) for l in out.decode("utf-8").split("\n")[:-1]]


def finite_answers(rows):
    """None when every row's logprob and score are finite numbers, else why not."""
    for i, r in enumerate(rows):
        for k in ("logprob", "score"):
            if not isinstance(r.get(k), (int, float)) or not math.isfinite(r[k]):
                return f"line {i + 1}: {k} {r.get(k)!r} (translation {r.get('translation')!r})"
    return None


SENTS = ["A man is walking down the street.", "Two dogs play in the snow.",
         "A little girl climbs into a wooden playhouse."]
TEXT = ("\n".join(SENTS) + "\n").encode()


def item1(T, mar):
    """No NaN translation: tiny temperatures and repetition penalties."""
    base = ["-q", "-m", mar, "--split", "none", "--output-format", "jsonl"]
    rc, out, err = xl(base + ["--sampling-topk", "1"], TEXT)
    greedy = [r["ids"] for r in jsonl(out)] if rc == 0 else None
    for t in ("1e-38", "1e-45", "3e-39"):
        rc, out, err = xl(base + ["--sampling-temperature", t, "--seed", "7"], TEXT)
        rows = jsonl(out) if rc == 0 else []
        check(f"--sampling-temperature {t}: exit 0, finite logprob and score",
              lambda: f"exit {rc}: {err}" if rc else finite_answers(rows))
        check(f"--sampling-temperature {t}: the argmax, as T -> 0 (greedy's ids)",
              lambda: None if [r["ids"] for r in rows] == greedy
              else f"{[r['ids'][:8] for r in rows]} vs greedy {[g[:8] for g in greedy]}")
    for p in ("0.7", "1000"):  # issue 51: below 0.7 refused (test_hardening_r5.py)
        for beam in ("1", "3"):
            rc, out, err = xl(base + ["--repetition-penalty", p, "--beam-size", beam], TEXT)
            rows = jsonl(out) if rc == 0 else []
            check(f"--repetition-penalty {p} --beam-size {beam}: exit 0, finite logprob/score",
                  lambda: f"exit {rc}: {err}" if rc else finite_answers(rows))
    # values that are 0 as a float: refused with the range the arithmetic takes
    for opt, v, low in (("--sampling-temperature", "1e-320", "1.4e-45"),
                        ("--repetition-penalty", "1e-46", "0.7"), ("--sampling-topp", "1e-320", "1.4e-45")):
        rc, out, err = xl(base + [opt, v], TEXT)
        check(f"{opt} {v} (0 as a float): exit 1, the option and its smallest value named",
              lambda: None if rc == 1 and err.startswith(f"xlate: {opt}: ") and low in err
              and "got 0\n" not in err else f"exit {rc}: {err!r}")
    # the same values from the model's generation_config.json
    for key, v, extra in (("temperature", 1e-38, {"do_sample": True, "top_k": 0}),
                          ("repetition_penalty", 0.7, {})):
        d = variant(mar, os.path.join(T, f"gen_{key}"), dict(extra, **{key: v}))
        rc, out, err = xl(["-q", "-m", d, "--split", "none", "--output-format", "jsonl",
                           "--seed", "3"], TEXT)
        rows = jsonl(out) if rc == 0 else []
        check(f"generation_config.json {key} {v}: exit 0, finite logprob and score",
              lambda: f"exit {rc}: {err}" if rc else finite_answers(rows))
        if key == "temperature":
            check("generation_config.json temperature 1e-38: the argmax (greedy's ids)",
                  lambda: None if [r["ids"] for r in rows] == greedy else "differs")
    for key, v, extra in (("temperature", "1e-320", {"do_sample": True}),
                          ("repetition_penalty", "1e-320", {}),
                          ("top_p", "1e-320", {"do_sample": True})):
        d = variant(mar, os.path.join(T, f"gen0_{key}"), extra)
        path = os.path.join(d, "generation_config.json")
        text = open(path).read().rstrip().rstrip("}") + f', "{key}": {v}}}\n'
        open(path, "w").write(text)
        rc, out, err = xl(["-q", "-m", d], TEXT)
        check(f"generation_config.json {key} {v}: exit 2 naming the file and the key, no "
              "option blamed",
              lambda: None if rc == 2 and "generation_config.json" in err and f'"{key}"' in err
              and "--" not in err else f"exit {rc}: {err!r}")


def paragraphs_of(text):
    """The output lines --paragraphs owes `text` (the oracle): one per paragraph (lines up to
    a blank one, blank: only whitespace as str.isspace says, Unicode's White_Space less the
    four separators Python adds), one empty line per blank line."""
    out, cur = [], []
    for line in text.split("\n")[:-1]:
        if line.strip(" \t\r\v\f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                      "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000") == "":
            if cur:
                out.append(" ".join(cur))
                cur = []
            out.append("")
        else:
            cur.append(line)
    if cur:
        out.append(" ".join(cur))
    return out


def item2(T, mar):
    """--paragraphs: one output line a paragraph, whatever its length; one blank-line rule."""
    base = ["-m", mar, "--split", "none"]
    big = "\n".join(["A man is walking down the street with a dog."] * 25000)
    text = "Two dogs play.\n\n" + big + "\n\nA girl sings.\n"
    assert len(big.encode()) > (1 << 20)
    rc, out, err = xl(base + ["--paragraphs"], text.encode(), timeout=300)
    lines = out.decode().split("\n")[:-1]
    want = paragraphs_of(text)
    check(f"--paragraphs, a {len(big.encode()) >> 10} KiB paragraph among 3: {len(want)} "
          "lines out, as many as paragraphs and blank lines in",
          lambda: None if rc == 0 and len(lines) == len(want) and
          [l == "" for l in lines] == [w == "" for w in want] else
          f"exit {rc}, {len(lines)} lines: {[l[:20] for l in lines]}; {err[-300:]!r}")
    check("--paragraphs, the paragraph over 1 MiB: a warning naming its first line and the cut",
          lambda: None if "line 3: longer than " in err and err.count("longer than") == 1
          else repr(err[-300:]))
    for sp in ("\u3000", "\u00a0", "\u3000\u00a0 \u2003", "\u00a0\t"):
        text = f"Two dogs play.\nA man walks.\n{sp}\nA girl sings.\n{sp}\n{sp}\nThe end.\n"
        want = paragraphs_of(text)
        rc, out, err = xl(base + ["-q", "--paragraphs"], text.encode())
        lines = out.decode().split("\n")[:-1]
        check(f"--paragraphs: a line of {sp.encode('unicode_escape').decode()} is a paragraph "
              f"break ({len(want)} lines out)",
              lambda: None if rc == 0 and [l == "" for l in lines] == [w == "" for w in want]
              else f"exit {rc}: {lines!r}")
        rc, out, err = xl(base + ["-q"], text.encode())
        lines = out.decode().split("\n")[:-1]
        check(f"without --paragraphs: a line of {sp.encode('unicode_escape').decode()} gives "
              "an empty line",
              lambda: None if rc == 0 and [l == "" for l in lines] ==
              [l.strip(sp + " ") == "" for l in text.split("\n")[:-1]] else f"{lines!r}")


def item3(T, mar):
    """jsonl: a sentence's source is the bytes its span covers, as xlate split writes them."""
    lines = [b"A dog\x00runs fast. Two cats\x01 play \xff here.", b"\x00", b"a\x00\x00b. c\x7f.",
             b"\x00Lead. Trail\x00"]
    inp = b"\n".join(lines) + b"\n"
    rc, out, err = xl(["-q", "-m", mar, "--output-format", "jsonl"], inp)
    rows = jsonl(out) if rc == 0 else []
    rc2, out2, err2 = xl(["split", "--output-format", "jsonl"], inp)
    split = [json.loads(l)["sentences"] for l in out2.decode().split("\n")[:-1]]
    for i, line in enumerate(lines):
        def one():
            if rc or rc2:
                return f"exit {rc} / {rc2}: {err} {err2}"
            sents = rows[i].get("sentences", [])
            got = [s["source"] for s in sents]
            want = [line[a:b].decode("utf-8", "replace") for a, b in (s["span"] for s in sents)]
            if got != want:
                return f"source {got!r}, the span's bytes {want!r}"
            if got != split[i]:
                return f"source {got!r}, xlate split {split[i]!r}"
            return None
        check(f"jsonl line {i + 1} {line!r}: each source is its span's bytes and xlate split's "
              "sentence", one)


HOSTILE = {"newline": "x\nxlate: forged line", "escape": "\x1b[31mred\x1b]0;title\x07",
           "10 kB": "A" * 10000}


def value_options():
    """The options of `xlate --help` that take a value: [(name, kind)]: the long name, or the
    short one where there is no long one."""
    rc, out, err = xl(["--help"])
    opts = []
    for line in out.decode().split("\n"):
        m = re.match(r"^  (?:(-\w), )?\s*(--[\w-]+)(?: ([A-Z]+)\b)?", line)
        if m and m.group(3) and m.group(2) not in opts:
            opts.append(m.group(2))
    return opts


def stderr_clean(err):
    """None when stderr holds no forged line, no escape byte, no line over 1 kB."""
    lines = err.split("\n")
    if any(l.startswith("xlate: forged") for l in lines):
        return f"a forged line: {err[:300]!r}"
    if "\x1b" in err or "\x07" in err:
        return f"an escape byte: {err[:300]!r}"
    if any(len(l) > 1024 for l in lines):
        return f"a line of {max(len(l) for l in lines)} bytes: {err[:200]!r}..."
    return None


def item4(T, mar, nllb):
    """Hostile option values: every message quotes them."""
    opts = value_options()
    check(f"--help lists {len(opts)} options with a value (at least 25)",
          lambda: None if len(opts) >= 25 and "--target-lang" in opts else repr(opts))
    bad = []
    runs = 0
    for model in (mar, nllb):
        for opt in opts:
            for kind, v in HOSTILE.items():
                args = ["-m", model, opt, v] if opt not in ("-m", "--model") else [opt, v]
                if opt not in ("--target-lang", "--to") and model == nllb:
                    args += ["--target-lang", "deu_Latn"]
                rc, out, err = xl(args, b"A dog runs.\n", timeout=60)
                runs += 1
                why = stderr_clean(err)
                if why:
                    bad.append(f"{opt} ({kind}, {os.path.basename(model)}): {why}")
    # an existing model directory whose name is hostile: the library's messages carry it
    for name, cfg in (("d\nxlate: forged line", None), ("e\x1b[31mred", b"{")):
        d = os.path.join(T, name)
        os.mkdir(d)
        if cfg is not None:
            open(os.path.join(d, "config.json"), "wb").write(cfg)
        rc, out, err = xl(["-m", d], b"A dog runs.\n")
        runs += 1
        why = stderr_clean(err) or (None if rc == 2 else f"exit {rc}")
        if why:
            bad.append(f"-m an existing directory {name!r}: {why}")
    check(f"{runs} runs, every option with a hostile value: no forged line, no escape, "
          "no message over 1 kB", lambda: "; ".join(bad[:12]) + f" ({len(bad)} in all)"
          if bad else None)


def item5(T, nllb):
    """tokenizer.json: the documented JSON rule (FORMAT.md) for its added_tokens member."""
    def tok_json(text):
        return {"tokenizer.json": text.encode() if isinstance(text, str) else text}
    good = '{"version": "1.0", "added_tokens": [{"id": 100, "content": "xyzzy"}], "model": {}}'
    d = variant(nllb, os.path.join(T, "tj_good"), files=tok_json(good))
    args = ["-q", "--target-lang", "deu_Latn", "--output-format", "ids"]
    rc, want, err = xl(args + ["-m", d], b"A dog xyzzy runs.\n")
    check("tokenizer.json with an added token: exit 0", lambda: f"{rc}: {err}" if rc else None)
    d = variant(nllb, os.path.join(T, "tj_bom"), files=tok_json(b"\xef\xbb\xbf" + good.encode()))
    rc, out, err = xl(args + ["-m", d], b"A dog xyzzy runs.\n")
    check("tokenizer.json with a byte order mark: let pass (FORMAT.md), the same ids",
          lambda: None if rc == 0 and out == want else f"exit {rc}: {err!r}")
    bad = {
        "added_tokens twice": ('{"added_tokens": [{"id": 100, "content": "xyzzy"}], '
                               '"added_tokens": [{"id": 101, "content": "xyzzy"}]}',
                               ["tokenizer.json", '"added_tokens"', "twice"]),
        "id 100.0": ('{"added_tokens": [{"id": 100.0, "content": "xyzzy"}]}',
                     ["tokenizer.json", "100.0", "without a fraction or exponent"]),
        "id 1e2": ('{"added_tokens": [{"id": 1e2, "content": "xyzzy"}]}',
                   ["tokenizer.json", "1e2", "without a fraction or exponent"]),
        "id -1": ('{"added_tokens": [{"id": -1, "content": "xyzzy"}]}',
                  ["tokenizer.json", "got -1", "[0, "]),
        "a BOM after a blank": (b" \xef\xbb\xbf" + good.encode(),
                                ["tokenizer.json", "byte order mark"]),
    }
    for what, (text, bits) in bad.items():
        d = variant(nllb, os.path.join(T, "tj_" + what.replace(" ", "_")), files=tok_json(text))
        rc, out, err = xl(args + ["-m", d], b"A dog.\n")
        check(f"tokenizer.json, {what}: exit 2, the message says {bits}",
              lambda: None if rc == 2 and all(b in err for b in bits) else f"exit {rc}: {err!r}")


def item6(T, nllb):
    """Config files: a fault of the model's files is the model's, said naming the file."""
    tc = json.load(open(os.path.join(nllb, "tokenizer_config.json")))
    args = ["-q", "--target-lang", "deu_Latn", "--output-format", "ids"]
    rc, want, err = xl(args + ["-m", nllb], b"A dog runs.\n")
    bad = dict(tc, src_lang="xx_Bad")
    d = variant(nllb, os.path.join(T, "tc_src"), files={
        "tokenizer_config.json": json.dumps(bad).encode()})
    rc, out, err = xl(args + ["-m", d], b"A dog runs.\n")
    check("tokenizer_config.json src_lang \"xx_Bad\": exit 2 naming the file and src_lang, "
          "--source-lang not blamed",
          lambda: None if rc == 2 and "tokenizer_config.json" in err and '"src_lang"' in err
          and not err.startswith("xlate: --source-lang") else f"exit {rc}: {err!r}")
    rc, out, err = xl(args + ["-m", d, "--source-lang", "eng_Latn"], b"A dog runs.\n")
    check("... with --source-lang eng_Latn given: the model's src_lang unused, the same ids",
          lambda: None if rc == 0 and out == want else f"exit {rc}: {err!r}")
    codes = list(tc["additional_special_tokens"])
    bad = dict(tc, additional_special_tokens=codes[:5] + [codes[2]] + codes[5:])
    d = variant(nllb, os.path.join(T, "tc_dup"), files={
        "tokenizer_config.json": json.dumps(bad).encode()})
    rc, out, err = xl(args + ["-m", d], b"A dog runs.\n")
    check(f"tokenizer_config.json lists {codes[2]} twice: exit 2 naming the file and the code",
          lambda: None if rc == 2 and "tokenizer_config.json" in err and codes[2] in err
          and "twice" in err and "<mask>" not in err else f"exit {rc}: {err!r}")
    cfg = json.load(open(os.path.join(nllb, "config.json")))
    eos, V = cfg["eos_token_id"], cfg["vocab_size"]
    for key, v in (("eos_token_id", -1), ("eos_token_id", V), ("eos_token_id", []),
                   ("eos_token_id", eos + 3), ("eos_token_id", [eos, eos + 1]),
                   ("guidance_scale", 3.0), ("num_return_sequences", 2)):
        d = variant(nllb, os.path.join(T, f"g6_{key}_{v}".replace(" ", "")), {key: v})
        rc, out, err = xl(args + ["-m", d], b"A dog runs.\n")
        check(f"generation_config.json {key} {v}: exit 2 naming the file and the key",
              lambda: None if rc == 2 and "generation_config.json" in err and f'"{key}"' in err
              else f"exit {rc}: {err!r}")
    for key, v in (("eos_token_id", eos), ("eos_token_id", [eos]), ("guidance_scale", 1),
                   ("num_return_sequences", 1)):
        d = variant(nllb, os.path.join(T, f"g6ok_{key}_{v}".replace(" ", "")), {key: v})
        rc, out, err = xl(args + ["-m", d], b"A dog runs.\n")
        check(f"generation_config.json {key} {v} (neutral): the same ids as without it",
              lambda: None if rc == 0 and out == want else f"exit {rc}: {err!r}")


def wait_note(p, fifo):
    """Reads p's stderr until a line names the FIFO (or 60 s pass): that line, or None."""
    import select
    buf = b""
    for _ in range(600):
        r, _, _ = select.select([p.stderr], [], [], 0.1)
        if r:
            chunk = os.read(p.stderr.fileno(), 4096)
            if not chunk:
                break
            buf += chunk
            if fifo.encode() in buf and b"\n" in buf:
                return buf.decode("utf-8", "replace")
        if p.poll() is not None:
            break
    return None


def item8(T, mar):
    """FIFOs with no writer: said on stderr; the real range of --repetition-penalty."""
    global RUNS
    src = os.path.join(T, "src.txt")
    open(src, "wb").write(TEXT)
    for opt in ("-i", "--target-prefix"):
        fifo = os.path.join(T, "fifo" + opt.replace("-", "_"))
        os.mkfifo(fifo)
        args = [XLATE, "-m", mar, "--split", "none"] + (
            ["-i", fifo] if opt == "-i" else ["-i", src, "--target-prefix", fifo])
        RUNS += 1
        p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        note = wait_note(p, fifo)
        check(f"{opt} a FIFO with no writer: stderr says xlate waits for a writer, naming it",
              lambda: None if note and "waiting" in note else f"stderr {note!r}")
        with open(fifo, "wb") as w:  # the writer comes: xlate goes on
            w.write(TEXT if opt == "-i" else b"\n\n\n")
        try:
            out, err = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        lines = out.decode().split("\n")[:-1]
        check(f"{opt} FIFO: once a writer opens it, 3 lines in, 3 out, exit 0",
              lambda: None if p.returncode == 0 and len(lines) == 3 and all(lines)
              else f"exit {p.returncode}, {lines!r}: {err!r}")
    rc, out, err = xl(["-m", mar, "--repetition-penalty", "1e308"], b"A dog.\n")
    check("--repetition-penalty 1e308: exit 1, the message states the real range (at most 1000)",
          lambda: None if rc == 1 and "at most 1000" in err and "1e+300" not in err
          else f"exit {rc}: {err!r}")


def main():
    T = tempfile.mkdtemp(prefix="xlate_r4_")
    try:
        mar = os.path.join(T, "mar")
        make("make_marian.py", mar, "--num-beams", "1")
        item1(T, mar)
        item2(T, mar)
        item3(T, mar)
        item8(T, mar)
        nllb = os.path.join(T, "nllb")
        make("make_m2m100.py", nllb, "--num-beams", "1")
        item5(T, nllb)
        item6(T, nllb)
        cwd = os.getcwd()
        os.chdir(T)  # -o and --target-prefix with hostile names write and read here
        try:
            item4(T, mar, nllb)
        finally:
            os.chdir(cwd)
    finally:
        shutil.rmtree(T, ignore_errors=True)
    print(f"# {RUNS} runs of xlate", flush=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
