"""test_pivot.py — a language pair no cached model serves, through a pivot language two do
(issue 48; cli_translate.c pivot_run, hub/hub_pivot.c).

The oracle is the two-step pipe: `xlate -m FIRST --from de | xlate -m SECOND --from en` (the
two models run one after the other by hand) must give, byte for byte, what `xlate --from de
--to fr` gives when the hub cache holds only Helsinki-NLP/opus-mt-de-en and opus-mt-en-fr
(random MarianMT models from tools/make_marian.py, their files saying those languages); for any
--batch-size and --threads. Then: a direct model wins over the pivot; a pair that would need two
pivots (de -> es with de-en, en-fr and fr-es) is refused naming the models looked at; English is
preferred as the pivot when another language would chain too.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from checks import check, done, expect_eq  # noqa: E402
from test_hub_models import Repo, commit_of, make_model, TOP  # noqa: E402

XLATE = os.path.abspath(os.path.join(TOP, os.environ.get("XLATE", "./xlate")))


def lines():
    de = open(os.path.join(TOP, "tests", "data", "multi30k", "val.de"), encoding="utf-8")
    de = [next(de).rstrip("\n") for _ in range(60)]
    # one-sentence lines, lines of three sentences (split, translated, joined), an empty one
    return de[:40] + [" ".join(de[i:i + 3]) for i in range(40, 58, 3)] + ["", de[59]]


def run(args, inp, env):
    e = dict(os.environ)
    e.update(env)
    return subprocess.run([XLATE] + args, input=inp.encode(), capture_output=True, env=e,
                          timeout=300)


def add_pair(cache, name, model, src, tgt):
    r = Repo(cache, name)
    c = commit_of(name, "1")
    r.add_dir(c, model, skip=("tokenizer_config.json",))
    tc = json.load(open(os.path.join(model, "tokenizer_config.json")))
    tc.update(source_lang=src, target_lang=tgt)
    r.add(c, "tokenizer_config.json", json.dumps(tc).encode())
    r.ref("main", c)
    return r.snapshot(c)


def body(tmp):
    m1 = make_model(tmp, "a", "make_marian.py", ["--seed", "21"])
    m2 = make_model(tmp, "b", "make_marian.py", ["--seed", "22"])
    m3 = make_model(tmp, "c", "make_marian.py", ["--seed", "23"])
    cache = os.path.join(tmp, "hub")
    s1 = add_pair(cache, "Helsinki-NLP/opus-mt-de-en", m1, "de", "en")
    s2 = add_pair(cache, "Helsinki-NLP/opus-mt-en-fr", m2, "en", "fr")
    env = {"HF_HUB_CACHE": cache, "XLATE_MODEL": ""}
    text = "".join(l + "\n" for l in lines())

    # the oracle: the two models one after the other
    a = run(["-m", s1, "--from", "de", "-q"], text, env)
    b = run(["-m", s2, "--from", "en", "-q"], a.stdout.decode(), env)
    expect_eq("the two-step pipe runs", (a.returncode, b.returncode), (0, 0))
    want = b.stdout
    expect_eq("the pipe answers every line", want.count(b"\n"), len(lines()))

    p = run(["--from", "de", "--to", "fr"], text, env)
    expect_eq("de -> fr through en: exit 0", p.returncode, 0)
    err = p.stderr.decode()
    check("the pick said on stderr: the pivot and both models",
          lambda: None if "through en" in err and "opus-mt-de-en" in err and
          "opus-mt-en-fr" in err else f"stderr {err!r}")
    expect_eq("de -> fr through en: the two-step pipe's bytes", p.stdout, want)
    for args in (["--batch-size", "1"], ["--batch-size", "7", "--threads", "2"],
                 ["--window", "3"], ["--batch-tokens", "50"]):
        q = run(["--from", "de", "--to", "fr", "-q"] + args, text, env)
        expect_eq(f"the same bytes with {' '.join(args)}", q.stdout, want)
    # beam search in both stages, as in both commands of the pipe
    a = run(["-m", s1, "--from", "de", "-q", "--beam-size", "3"], text, env)
    b = run(["-m", s2, "--from", "en", "-q", "--beam-size", "3"], a.stdout.decode(), env)
    q = run(["--from", "de", "--to", "fr", "-q", "--beam-size", "3"], text, env)
    expect_eq("--beam-size 3: the two-step pipe's bytes", q.stdout, b.stdout)
    # jsonl: the second stage's format, its source the pivot's text
    q = run(["--from", "de", "--to", "fr", "-q", "--output-format", "jsonl"], text, env)
    got = [json.loads(l) for l in q.stdout.decode().splitlines()]
    check("--output-format jsonl: a line each, its translation the text output's",
          lambda: None if [g["translation"] for g in got] ==
          want.decode().split("\n")[:-1] else f"got {got[:2]}")
    # TEXT arguments and -i go to the first stage
    q = run(["--from", "de", "--to", "fr", "-q", lines()[0], lines()[1]], "", env)
    expect_eq("TEXT arguments through the pivot", q.stdout,
              b"".join(want.split(b"\n")[i] + b"\n" for i in range(2)))
    # -o FILE written whole
    out = os.path.join(tmp, "out.txt")
    q = run(["--from", "de", "--to", "fr", "-q", "-o", out], text, env)
    check("-o FILE: the pipe's bytes", lambda: None if q.returncode == 0 and
          open(out, "rb").read() == want else f"exit {q.returncode} {q.stderr!r}")
    q = run(["--from", "de", "--to", "fr", "--format", "html"], "<p>Hallo</p>\n", env)
    check("--format html through a pivot: refused, naming it (exit 1)",
          lambda: None if q.returncode == 1 and b"--format" in q.stderr else
          f"exit {q.returncode} {q.stderr!r}")

    # --from auto: the first line's language picks the pair (German: de -> fr, through en)
    q = run(["--from", "auto", "--to", "fr"], text, env)
    check("--from auto --to fr: the first line is de, through en: the pipe's bytes",
          lambda: None if q.returncode == 0 and b"the first line is de" in q.stderr and
          b"through en" in q.stderr and q.stdout == want else f"exit {q.returncode} {q.stderr!r}")
    q = run(["--source-lang", "auto", "--to", "fr", "-q"], "12345\n" + text, env)
    check("--source-lang auto, a first line of digits and no model to fall back on: exit 3, "
          "asks for --from", lambda: None if q.returncode == 3 and b"give --from" in q.stderr
          and not q.stdout else f"exit {q.returncode} {q.stderr!r}")
    # with the default model (en -> de): each line's language in jsonl, LibreTranslate's shape
    q = run(["--from", "auto", "--output-format", "jsonl"],
            "A man is riding a bike down the street.\nEin Mann fährt mit dem Fahrrad.\n42\n",
            {"XLATE_MODEL": os.path.join(TOP, "models", "en-de")})
    got = [json.loads(l).get("detectedLanguage") for l in q.stdout.decode().splitlines()]
    check("--from auto, jsonl: detectedLanguage of each line (en, de, and the run's en at "
          "confidence 0 for digits)", lambda: None if q.returncode == 0 and
          [g["language"] for g in got] == ["en", "de", "en"] and got[2]["confidence"] == 0 and
          got[0]["confidence"] > 50 and b"looks de" in q.stderr else
          f"exit {q.returncode} {got} {q.stderr!r}")
    p1 = run(["--output-format", "jsonl", "-q"], "A man is riding a bike down the street.\n",
             {"XLATE_MODEL": os.path.join(TOP, "models", "en-de")})
    p2 = run(["--from", "auto", "--output-format", "jsonl", "-q"],
             "A man is riding a bike down the street.\n",
             {"XLATE_MODEL": os.path.join(TOP, "models", "en-de")})
    a1, a2 = json.loads(p1.stdout), json.loads(p2.stdout)
    a2.pop("detectedLanguage", None)
    expect_eq("--from auto detected en: the translation --from en gives", a2, a1)

    # a pair that needs two pivots: refused, naming the models looked at
    add_pair(cache, "Helsinki-NLP/opus-mt-fr-es", m3, "fr", "es")
    q = run(["--from", "de", "--to", "es"], text, env)
    e = q.stderr.decode()
    check("de -> es (de-en, en-fr, fr-es: two pivots): exit 2, the three models named",
          lambda: None if q.returncode == 2 and all(
              n in e for n in ("opus-mt-de-en", "opus-mt-en-fr", "opus-mt-fr-es")) and
          "pivot" in e and "xlate pull" in e else f"exit {q.returncode} {e!r}")
    # en -> es through fr (the only pivot there is), and English preferred over another:
    # with en-fr, fr-es, en-it and it-es... kept short: en -> es has one route, through fr
    q = run(["--from", "en", "--to", "es", "-q"], "A man rides a bike.\n", env)
    a = run(["-m", s2, "--from", "en", "-q"], "A man rides a bike.\n", env)
    b = run(["-m", os.path.join(cache, "models--Helsinki-NLP--opus-mt-fr-es", "snapshots",
                                commit_of("Helsinki-NLP/opus-mt-fr-es", "1")),
             "--from", "fr", "-q"], a.stdout.decode(), env)
    check("en -> es through fr (no English pivot there): the two-step pipe's bytes",
          lambda: None if q.returncode == 0 and q.stdout == b.stdout else
          f"exit {q.returncode} {q.stderr!r}")
    # English preferred: de -> fr could also go de -> es... (add de-es, es-fr: a second route)
    add_pair(cache, "Helsinki-NLP/opus-mt-de-es", m3, "de", "es")
    add_pair(cache, "Helsinki-NLP/opus-mt-es-fr", m3, "es", "fr")
    q = run(["--from", "de", "--to", "fr"], text, env)
    check("two routes (through en, through es): English taken",
          lambda: None if q.returncode == 0 and b"through en" in q.stderr and q.stdout == want
          else f"exit {q.returncode} {q.stderr!r}")
    # a direct model wins
    add_pair(cache, "Helsinki-NLP/opus-mt-de-fr", m3, "de", "fr")
    q = run(["--from", "de", "--to", "fr"], text, env)
    d = run(["-m", os.path.join(cache, "models--Helsinki-NLP--opus-mt-de-fr", "snapshots",
                                commit_of("Helsinki-NLP/opus-mt-de-fr", "1")),
             "--from", "de", "-q"], text, env)
    check("a direct de -> fr model wins over the pivot",
          lambda: None if q.returncode == 0 and b"through" not in q.stderr and
          b"opus-mt-de-fr" in q.stderr and q.stdout == d.stdout else
          f"exit {q.returncode} {q.stderr!r}")
    documents(tmp, env)


def documents(tmp, env):
    """--from auto with a document: its language from its text, markup left out."""
    doc = os.path.join(tmp, "brief.html")
    with open(doc, "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html><html><head><title>Brief</title></head><body><p>"
                + "</p><p>".join(lines()[:6]) + "</p></body></html>\n")
    q = run(["--from", "auto", "--to", "fr", "-i", doc], "", env)
    d = run(["--from", "de", "--to", "fr", "-i", doc, "-q"], "", env)
    check("--from auto -i brief.html (German): the document is de, --from de's bytes",
          lambda: None if q.returncode == 0 and b"the document is de" in q.stderr and
          q.stdout == d.stdout and d.returncode == 0 else f"exit {q.returncode} {q.stderr!r}")
    q = run(["--from", "auto", "--to", "fr", "--format", "html"], open(doc).read(), env)
    check("--from auto with a document on stdin: exit 1, asks for a file or --from",
          lambda: None if q.returncode == 1 and b"--from LANG" in q.stderr else
          f"exit {q.returncode} {q.stderr!r}")


def main():
    tmp = tempfile.mkdtemp(prefix="xlate-pivot-")
    try:
        body(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
