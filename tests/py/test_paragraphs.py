"""test_paragraphs.py — every sentence of a line is translated, none is lost (issue 22).

The oracle is the model's own sentence-by-sentence output: held-out Multi30k captions (val.en,
each a sentence that ends with a full stop, a boundary known by construction, not found by the
splitter) translated one per line with --split none, then joined with the whitespace that
separated them. A paragraph of those captions on one line must come out byte for byte as that
join; before sentence splitting none of 300 did (the issue's measurement). n-best lists of a
line are checked against the combinations of the per-sentence n-best lists by summed score,
computed here.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__)))
from checks import check, expect_eq, ok, not_ok, done  # noqa: E402

XLATE = os.environ.get("XLATE", "./xlate")
MODEL = "models/en-de"
TMP = tempfile.mkdtemp()
# Under the sanitizers (make sanitize) and on the plain-C twins (CI's XLATE_FORCE_ISA=generic
# run, 3x slower) fewer paragraphs reach the same code. (Issue 27: the long line had been cut
# to 300 sentences under the sanitizers when their products ran 8x slower than now, 120 s of
# CPU for a 300 kB line; Makefile, KERNEL_OPT; 300 stays within the window, 2,000 does not.)
SAN = os.environ.get("TEST_SANITIZED") == "1"
GENERIC = os.environ.get("XLATE_FORCE_ISA") == "generic"
NP = 60 if SAN or GENERIC else 300
# Under the sanitizers the long line is sampled to 2,000 sentences: still 4 times the window's
# 512 (16 batches of 32), so the line that overflows the window and the segment and text arrays
# grown for it are reached as with 20,000 (58 of the test's 88 s of CPU under ASan were that
# line; 2,000: about 6)
MANY = 300 if GENERIC else 2000 if SAN else 20000


def run(args, inp, check_rc=True):
    p = subprocess.run([XLATE, "-m", MODEL, "--threads", "1", "-q"] + args, input=inp,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check_rc and p.returncode != 0:
        raise RuntimeError(f"xlate {' '.join(args)}: exit {p.returncode}: {p.stderr[:300]!r}")
    return p


def lines(b):
    assert b.endswith(b"\n") or b == b""
    return b.decode("utf-8").split("\n")[:-1]


# Sentences whose end is unambiguous: a capital first, one full stop, at the end, and no other
# terminator or abbreviation-looking dot inside.
caps = [l.strip() for l in open("tests/data/multi30k/val.en", encoding="utf-8")]
sents = [c for c in caps if c[:1].isupper() and c.endswith(".") and c.count(".") == 1
         and "?" not in c and "!" not in c]
rng = random.Random(22)
paras = []
for _ in range(NP):
    k = rng.randint(2, 6)
    start = rng.randrange(0, len(sents) - k)
    paras.append(sents[start:start + k])
seps = [" ", "  ", "\t", " "]  # the joins in the source, kept in the output
para_lines, gaps = [], []
for i, p in enumerate(paras):
    g = [seps[(i + j) % len(seps)] for j in range(len(p) - 1)]
    gaps.append(g)
    para_lines.append(p[0] + "".join(g[j] + p[j + 1] for j in range(len(g))))

# The oracle: each distinct sentence alone on a line, unsplit.
uniq = sorted({s for p in paras for s in p})
alone = dict(zip(uniq, lines(run(["--split", "none"], ("\n".join(uniq) + "\n").encode()).stdout)))
want = [alone[p[0]] + "".join(gaps[i][j] + alone[p[j + 1]] for j in range(len(p) - 1))
        for i, p in enumerate(paras)]

inp = ("\n".join(para_lines) + "\n").encode()
got = lines(run([], inp).stdout)
expect_eq(f"{NP} paragraphs: one output line each", len(got), NP)
same = sum(g == w for g, w in zip(got, want))
expect_eq(f"{NP} paragraphs of 2-6 captions: each byte-identical to its sentences translated one "
          "per line and joined with the source's whitespace", same, NP)
nosplit = lines(run(["--split", "none"], inp).stdout)
print(f"# --split none: {sum(g == w for g, w in zip(nosplit, want))}/{NP} paragraphs as the "
      "sentence-wise translation")

for bs in (("7",) if SAN else ("1", "7", "64")):
    got_b = lines(run(["--batch-size", bs], inp).stdout)
    expect_eq(f"--batch-size {bs}: the same output (a sentence's translation does not depend on "
              "its batch)", got_b == got, True)
got_t = lines(subprocess.run([XLATE, "-m", MODEL, "--threads", "2", "-q"], input=inp,
                             stdout=subprocess.PIPE).stdout)
expect_eq("--threads 2: the same output", got_t == got, True)

# --- --paragraphs: hard-wrapped at 72 columns, blank lines between paragraphs
def wrap(text, width=72):
    out, line = [], ""
    for w in text.split(" "):
        if line and len(line) + 1 + len(w) > width:
            out.append(line)
            line = w
        else:
            line = line + " " + w if line else w
    out.append(line)
    return out


sub = list(range(40))
doc = []
for n, i in enumerate(sub):
    doc += wrap(" ".join(paras[i]))
    doc += [""] * (1 + n % 3)  # one to three blank lines between paragraphs, all kept
doc_in = ("\n".join(doc) + "\n").encode()
gotp = lines(run(["--paragraphs"], doc_in).stdout)
wantp = []
for n, i in enumerate(sub):
    wantp.append(alone[paras[i][0]] + "".join(" " + alone[s] for s in paras[i][1:]))
    wantp += [""] * (1 + n % 3)
expect_eq("--paragraphs: a paragraph wrapped at 72 columns is one output line, blank lines kept",
          gotp, wantp)
check("--paragraphs: wrapping really split sentences across lines",
      lambda: None if sum(len(wrap(" ".join(paras[i]))) > 1 for i in sub) > 20 else "few wraps")
gotp2 = lines(run(["--paragraphs"], ("  \n" + "\n".join(doc) + "\n\n").encode()).stdout)
expect_eq("--paragraphs: leading blank line and trailing blank lines kept",
          gotp2, [""] + wantp + [""])

# --- lowercase-initial sentences (issue 36): held-out captions (test_2016_flickr.en, never looked
# at while writing the splitter's rules), each given a full stop where it has no terminator and
# half of them (a fixed draw) lowercased at the start, so the boundaries are known by
# construction: "... while it is being painted. three wine glasses ...". The oracle is the same
# as above: each sentence translated alone (--split none), joined by a space. Before issue 36,
# 77 of these 245 paragraphs (31.4%) came out equal (a lowercase word after a full stop went
# on); after, 244 (99.6%).
TERM = ("." , "!", "?", ".\"", "!\"", "?\"")
held = [" ".join(l.split()) for l in open("tests/data/multi30k/test_2016_flickr.en",
                                           encoding="utf-8") if l.strip()]
rng_l = random.Random(36)
held = [(c if c.endswith(TERM) else c + ".") for c in held]
held = [c[:1].lower() + c[1:] if rng_l.random() < 0.5 else c for c in held]
lparas, k = [], 0
while k < len(held) and len(lparas) < (60 if SAN or GENERIC else 1000):
    n = rng_l.randint(2, 6)
    lparas.append(held[k:k + n])
    k += n
luniq = sorted({x for p in lparas for x in p})
lalone = dict(zip(luniq, lines(run(["--split", "none"], ("\n".join(luniq) + "\n").encode()).stdout)))
ldoc = []
for p in lparas:
    ldoc += wrap(" ".join(p)) + [""]
lgot = lines(run(["--paragraphs"], ("\n".join(ldoc) + "\n").encode()).stdout)
lgot = [g for g in lgot if g]
lwant = [" ".join(lalone[x] for x in p) for p in lparas]
lsame = sum(g == w for g, w in zip(lgot, lwant))
nlow = sum(any(x[:1].islower() for x in p[1:]) for p in lparas)
print(f"# lowercase-initial held-out paragraphs: {lsame}/{len(lparas)} equal to the sentence-wise "
      f"translation ({100 * lsame / len(lparas):.1f}%); {nlow} have a lowercase sentence after "
      "the first")
check(f"--paragraphs on {len(lparas)} held-out paragraphs with lowercase-initial sentences: at "
      "least 99% equal to their sentences translated one by one",
      lambda: None if len(lgot) == len(lparas) and lsame >= 0.99 * len(lparas) else
      f"{lsame}/{len(lparas)} ({len(lgot)} paragraphs out); first differing: " +
      next((repr(p) for p, g, w in zip(lparas, lgot, lwant) if g != w), "none"))

# --- jsonl: each sentence's source span, translation, ids and scores
js = [json.loads(l) for l in lines(run(["--output-format", "jsonl"], inp[:20000].rsplit(b"\n", 1)[0] + b"\n").stdout)]
def check_jsonl():
    src = lines(inp)
    for k, o in enumerate(js):
        b = src[k].encode()
        if [s["source"] for s in o["sentences"]] != paras[k]:
            return f"line {k + 1}: sentences {[s['source'] for s in o['sentences']]}"
        for s in o["sentences"]:
            a, e = s["span"]
            if b[a:e].decode() != s["source"]:
                return f"line {k + 1}: span {a, e} is not its source"
            if s["translation"] != alone[s["source"]]:
                return f"line {k + 1}: sentence {s['source']!r}: {s['translation']!r}"
        if o["translation"] != want[k]:
            return f"line {k + 1}: translation"
        if o["ids"] != [i for s in o["sentences"] for i in s["ids"]]:
            return f"line {k + 1}: ids are not the sentences' ids in order"
        if abs(o["logprob"] - sum(s["logprob"] for s in o["sentences"])) > 1e-4:
            return f"line {k + 1}: logprob is not the sentences' sum"
    return None
check(f"jsonl ({len(js)} lines): sentences, spans, per-sentence translations, ids, logprob", check_jsonl)

# --- n-best of a line of several sentences: the best combinations by summed score
few = para_lines[:12]
nb = run(["--beam-size", "4", "--n-best", "3"], ("\n".join(few) + "\n").encode())
nbl = lines(nb.stdout)
per = {}
nb_sents = sorted({s for i in range(12) for s in paras[i]})
r = lines(run(["--split", "none", "--beam-size", "4", "--n-best", "3"],
              ("\n".join(nb_sents) + "\n").encode()).stdout)
for x in r:
    i, t, sc = x.split(" ||| ")
    per.setdefault(nb_sents[int(i)], []).append((t, float(sc)))
def check_nbest():
    if len(nbl) != 36:
        return f"{len(nbl)} lines"
    for i in range(12):
        combos = [("", 0.0)]
        for j, s in enumerate(paras[i]):
            g = gaps[i][j - 1] if j else ""
            combos = [(t + (g if t else "") + u, sc + v) for t, sc in combos for u, v in per[s]]
            combos.sort(key=lambda c: -c[1])
            combos = combos[:3]
        got3 = [(x.split(" ||| ")[1], float(x.split(" ||| ")[2])) for x in nbl[3 * i:3 * i + 3]]
        for (gt, gs), (wt, ws) in zip(got3, combos):
            if abs(gs - ws) > 2e-5 * max(1, len(paras[i])):
                return f"line {i + 1}: scores {[g[1] for g in got3]} vs {[c[1] for c in combos]}"
        if got3[0][0] != combos[0][0]:
            return f"line {i + 1}: best {got3[0][0]!r} vs {combos[0][0]!r}"
    return None
check("--n-best 3 --beam-size 4: a line's n best are the best combinations of its sentences' "
      "hypotheses by summed score", check_nbest)

# --- bad input: one line out per line in, never a crash, a hang or a lost sentence
def bad(what, data, args=(), quiet=True):
    p = subprocess.run([XLATE, "-m", MODEL, "--threads", "1"] + (["-q"] if quiet else []) +
                       list(args), input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        not_ok(what, f"exit {p.returncode}: {p.stderr[:200]!r}")
        return None
    out = p.stdout.split(b"\n")
    if len(out) - 1 != data.count(b"\n"):
        not_ok(what, f"{len(out) - 1} lines out for {data.count(NL)} in")
        return None
    ok(what)
    return p

NL = b"\n"
mb = b"a dog runs in the park and " * 38000  # 1 MB, no full stop
p = bad("a 1 MB line without a full stop: one line out", mb + b"\nA cat.\n", quiet=False)
check("a 1 MB line: cut at --max-input-length with a warning naming the line",
      lambda: None if p and b"warning: stdin: line 1: " in p.stderr and
      b"kept the first 511" in p.stderr else (p.stderr[:300] if p else "failed"))
bad("100,000 dots: one line out", b"." * 100000 + b"\nA cat. A dog.\n")
bad("a line of only punctuation: one line out", b"?!... -- ;:,\n\xe3\x80\x82\n")
bad("invalid UTF-8 and NUL inside sentences", b"A \xff\xfe dog. A c\x00at runs. \xc3\n")
many = b" ".join(b"A dog runs." for _ in range(MANY)) + b"\n"
p = bad(f"a line of {MANY} sentences: one line out", many)
if p:
    got_many = p.stdout.decode().rstrip("\n")
    one = alone.get("A dog runs.") or lines(run(["--split", "none"], b"A dog runs.\n").stdout)[0]
    expect_eq(f"a line of {MANY} sentences: each translated", got_many, " ".join([one] * MANY))

sys.exit(done())
