"""test_split_lang.py — where the sentence splitter's language comes from when translating:
--source-lang, else the model's own files (xlate's config.json "source_lang", a MarianMT
directory's tokenizer_config.json "source_lang"), else language-neutral rules. Two hand-checked
inputs tell the rules apart: "We met Gen. Smith there." is one sentence for English rules (Gen.
is an English title) and two for the neutral ones; "Er kam am 12. Juni an." is one sentence for
German rules (an ordinal before a month) and two for English ones. A target language that
writes no spaces (Japanese) gets its sentences joined with nothing.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from checks import expect_eq, done  # noqa: E402
import oracle_memo as OM  # noqa: E402

XLATE = os.environ.get("XLATE", "./xlate")
GEN, JUNI = "We met Gen. Smith there.", "Er kam am 12. Juni an."


def n_sentences(model, text, *args):
    p = subprocess.run([XLATE, "-m", model, "-q", "--threads", "1", "--output-format", "jsonl",
                        *args], input=(text + "\n").encode(), stdout=subprocess.PIPE,
                       check=True)
    return len(json.loads(p.stdout)["sentences"])


expect_eq("default model (config.json source_lang en): English rules", n_sentences(
    "models/en-de", GEN), 1)
expect_eq("default model: English rules split the German ordinal", n_sentences(
    "models/en-de", JUNI), 2)
expect_eq("--source-lang de overrides the model's language", n_sentences(
    "models/en-de", JUNI, "--source-lang", "de"), 1)
expect_eq("--split none: one segment whatever the text", n_sentences(
    "models/en-de", JUNI, "--split", "none"), 1)

tmp = tempfile.mkdtemp()
try:
    d = os.path.join(tmp, "m")
    shutil.copytree("models/en-de", d)
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    del cfg["source_lang"], cfg["target_lang"]
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f)
    expect_eq("a model that names no language: neutral rules", n_sentences(d, GEN), 2)
    # A target language that writes no spaces between sentences (Japanese): the translations
    # are joined with nothing; the oracle is each sentence translated alone, unsplit.
    cfg["target_lang"] = "ja"
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f)
    one = [subprocess.run([XLATE, "-m", d, "-q", "--split", "none", s], stdout=subprocess.PIPE,
                          check=True).stdout.decode().rstrip("\n")
           for s in ("A dog runs.", "A cat sleeps.")]
    got = subprocess.run([XLATE, "-m", d, "-q", "A dog runs.  A cat sleeps."],
                         stdout=subprocess.PIPE, check=True).stdout.decode().rstrip("\n")
    expect_eq("target_lang ja: sentences joined without a space", got, one[0] + one[1])
    md = os.path.join(tmp, "marian")
    OM.make_model(md, [sys.executable, "tools/make_marian.py", md])
    expect_eq("MarianMT: tokenizer_config.json's source_lang (en) gives English rules",
              n_sentences(md, GEN), 1)
    tc = os.path.join(md, "tokenizer_config.json")
    with open(tc) as f:
        t = json.load(f)
    t["source_lang"] = "de"
    with open(tc, "w") as f:
        json.dump(t, f)
    expect_eq("MarianMT: source_lang de gives German rules", n_sentences(md, JUNI), 1)
finally:
    shutil.rmtree(tmp)
sys.exit(done())
