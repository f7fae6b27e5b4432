"""test_cli_align.py — `--output-format jsonl --alignments` on the default model, every field
against an oracle:
- "alignment": for each target token, the argmax over the source (eos excluded) of PyTorch's
  cross-attention of the penultimate decoder layer averaged over heads (tools/torch_model.py
  cross_attention: nn.MultiheadAttention's own weights, float64), the decoder teacher-forced on
  xlate's ids; where PyTorch's top two are within 1e-4 either may win;
- "source_tokens": the sentencepiece library's encode_as_immutable_proto begin/end (characters,
  turned into bytes here) of the sentence, moved by the sentence's start in the line;
- "target_tokens": decode_ids_as_immutable_proto of the ids, in bytes of "translation";
- "word_alignment": the whitespace-delimited words around those oracle spans, computed here.
Lines hold several sentences, so the per-sentence offsets are exercised too.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__)))
sys.path.insert(0, "tools")
from checks import check, done  # noqa: E402
import oracle_memo as OM  # noqa: E402
import sentencepiece as spm  # noqa: E402
import torch  # noqa: E402
import torch_model as tm  # noqa: E402

XLATE = os.environ.get("XLATE", "./xlate")
M = "models/en-de"
sp = spm.SentencePieceProcessor(model_file=f"{M}/spm.model")
model = tm.from_model_dir(M).double()
layer = len(model.transformer.decoder.layers) - 2

caps = [l.strip() for l in open("tests/data/multi30k/test_2016_flickr.en", encoding="utf-8")]
lines = [caps[i] + "  " + caps[i + 1] + " " + caps[i + 2] for i in range(0, 60, 3)]
lines.append("Jürgen's café: 3 dogs, ½ a cake. Ok!")
p = subprocess.run([XLATE, "-m", M, "--threads", "1", "--output-format", "jsonl",
                    "--alignments"], input=("\n".join(lines) + "\n").encode(),
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
objs = [json.loads(l) for l in p.stdout.decode().split("\n")[:-1]]
plain = subprocess.run([XLATE, "-m", M, "--threads", "1", "--output-format", "jsonl"],
                       input=("\n".join(lines) + "\n").encode(), stdout=subprocess.PIPE,
                       check=True)
base = [json.loads(l) for l in plain.stdout.decode().split("\n")[:-1]]


def byte_spans(text, pieces):
    """sentencepiece 0.1.97 gives character offsets: into bytes of text's UTF-8."""
    off = [0]
    for ch in text:
        off.append(off[-1] + len(ch.encode()))
    return [[off[q.begin], off[q.end]] for q in pieces]


def word(s, a, b):
    while a < b and s[a:a + 1].isspace():
        a += 1
    if a >= b:
        return None
    while a > 0 and not s[a - 1:a].isspace():
        a -= 1
    while b < len(s) and not s[b:b + 1].isspace():
        b += 1
    return [a, b]


check("the same ids and translations with and without --alignments",
      lambda: None if all(o["ids"] == b["ids"] and o["translation"] == b["translation"]
                          for o, b in zip(objs, base)) else "differ")

n_tok = n_pairs = 0
bad = []
for k, o in enumerate(objs):
    line = lines[k].encode()
    for s in o["sentences"]:
        a0, a1 = s["span"]
        src = line[a0:a1].decode()
        ids = sp.encode(src)
        want_src = [[a + a0, b + a0] for a, b in byte_spans(src, sp.encode_as_immutable_proto(src).pieces)]
        if s["source_tokens"] != want_src:
            bad.append(f"line {k + 1}: source_tokens {s['source_tokens']} vs {want_src}")
        tgt = s["translation"]
        want_tgt = byte_spans(tgt, sp.decode_ids_as_immutable_proto(s["ids"]).pieces) if s["ids"] else []
        if s["target_tokens"] != want_tgt:
            bad.append(f"line {k + 1}: target_tokens {s['target_tokens']} vs {want_tgt}")
        att = tm.cross_attention(model, ids, [tm.BOS] + s["ids"], layer)
        for i, j in s["alignment"]:
            row = att[j, :len(ids)]
            top = float(row.max())
            n_tok += 1
            if float(row[i]) < top - 1e-4:
                bad.append(f"line {k + 1}: target token {j} aligned to {i}, PyTorch's argmax "
                           f"{int(row.argmax())} ({float(row[i]):.5f} vs {top:.5f})")
        if [p[1] for p in s["alignment"]] != list(range(len(s["ids"]))):
            bad.append(f"line {k + 1}: not one pair per target token")
        tb = tgt.encode()
        want_w = []
        for i, j in s["alignment"]:
            sw = word(line, *want_src[i])
            tw = word(tb, *want_tgt[j])
            if sw and tw and not any(w[0][0] == sw[0] and w[1][0] == tw[0] for w in want_w):
                want_w.append([sw, tw])
        n_pairs += len(want_w)
        if s["word_alignment"] != want_w:
            bad.append(f"line {k + 1}: word_alignment {s['word_alignment']} vs {want_w}")
check(f"{len(objs)} lines, {n_tok} target tokens: alignment = PyTorch's attention argmax "
      f"(layer {layer}, heads averaged); token spans = sentencepiece's; {n_pairs} word pairs",
      lambda: "; ".join(bad[:4]) if bad else None)
check("several sentences a line", lambda: None if sum(len(o["sentences"]) > 1 for o in objs) >= 20
      else "too few")
# A MarianMT directory (tools/make_marian.py): its target spans are what transformers' decode
# (tools/marian_reference.py) gains with each token, leading spaces left out (xlate.h).
import tempfile  # noqa: E402
import marian_reference as R  # noqa: E402
md = os.path.join(tempfile.mkdtemp(), "marian")
OM.make_model(md, [sys.executable, "tools/make_marian.py", md])
tok = R.Tokenizer(md)
mp = subprocess.run([XLATE, "-m", md, "--threads", "1", "--output-format", "jsonl",
                     "--alignments", "--beam-size", "1"], input=("\n".join(lines[:6]) + "\n").encode(),
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)


def marian_spans(ids):
    whole = tok.decode(ids).encode()
    out, prev = [], 0
    for k in range(len(ids)):
        part = tok.decode(ids[:k + 1]).encode() if k < len(ids) - 1 else whole
        end = 0
        while end < min(len(part), len(whole)) and part[end] == whole[end]:
            end += 1
        end = max(end, prev)
        a = prev
        while a < end and whole[a:a + 1] == b" ":
            a += 1
        out.append([a, end])
        prev = end
    return out


def check_marian():
    n = 0
    for l in mp.stdout.decode().split("\n")[:-1]:
        for s in json.loads(l)["sentences"]:
            n += 1
            if s["target_tokens"] != marian_spans(s["ids"]):
                return f"{s['source']!r}: {s['target_tokens']} vs {marian_spans(s['ids'])}"
            if "word_alignment" not in s or len(s["alignment"]) != len(s["ids"]):
                return f"{s['source']!r}: no word_alignment or pairs"
    return None if n >= 12 else f"only {n} sentences"
check("MarianMT: target_tokens as transformers' decode gains them, word_alignment given",
      check_marian)
r = subprocess.run([XLATE, "-m", M, "--alignments", "A dog."], stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE)
check("--alignments without jsonl: exit 1 with a message",
      lambda: None if r.returncode == 1 and b"--alignments" in r.stderr else f"{r.returncode} {r.stderr!r}")
sys.exit(done())
