#!/usr/bin/env python3
"""test_hub_models.py — `xlate models [--json]` and "a language pair picks a model" (issue 35,
parts 3 and 4) on a Hugging Face hub cache the test lays out by hand, exactly as huggingface_hub
writes one (file_download.py; utils/_cache_manager.py reads it): models--ORG--NAME/refs/REF
holding a 40-hex commit, snapshots/COMMIT/PATH relative symlinks to ../../blobs/ETAG, blobs named
by sha256 (LFS files) or the git blob sha1 (small files). Random models from tools/make_marian.py
and tools/make_m2m100.py; the oracle is the layout itself: which files each snapshot has, the
blob sizes (a blob linked twice counted once), huggingface_hub's _format_size.

  models        one line per repo: id, family, languages, ref:short commit, size, status
  --json        the same objects (sizes, refs, revisions, missing files, the reason)
  pair          --from/--to pick the cached model that serves the pair, say so on stderr, and
                translate as `xlate -m SNAPSHOT` does; none: exit 2 naming the model and
                `xlate pull`; the default model's pair keeps today's behaviour
  aliases       --from/--to behave as --source-lang/--target-lang
  nllb codes    each ISO 639-1 -> NLLB-200 code of base/langs.c is one of NLLB's 202 codes
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle_memo as OM  # noqa: E402
from checks import check, done, expect_eq, ok, not_ok  # noqa: E402,F401

XLATE = os.path.abspath(os.path.join(TOP, os.environ.get("XLATE", "./xlate")))
TEXT = "A man is riding a bike. Two dogs play in the snow.\nA girl reads a book.\n"


def fmt_size(num):
    """huggingface_hub utils/_cache_manager.py _format_size (the same formula)."""
    num = float(num)
    for unit in ["", "K", "M", "G", "T", "P", "E", "Z"]:
        if abs(num) < 1000.0:
            return f"{num:3.1f}{unit}"
        num /= 1000.0
    return f"{num:.1f}Y"


def etag_of(data, lfs):
    """the blob's name: the sha256 of an LFS file, else the git blob sha1 (as the hub's ETag)"""
    if lfs:
        return hashlib.sha256(data).hexdigest()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def commit_of(*parts):
    return hashlib.sha1("\0".join(parts).encode()).hexdigest()


class Repo:
    """models--ORG--NAME in cache, written file by file; remembers each blob's size."""

    def __init__(self, cache, repo_id):
        self.id = repo_id
        self.dir = os.path.join(cache, "models--" + repo_id.replace("/", "--"))
        self.blob_sizes = {}   # etag -> bytes
        self.snap_files = {}   # commit -> {path: etag}

    def add(self, commit, path, data):
        lfs = path.endswith((".safetensors", ".bin", ".spm", ".model"))
        etag = etag_of(data, lfs)
        blob = os.path.join(self.dir, "blobs", etag)
        os.makedirs(os.path.dirname(blob), exist_ok=True)
        if not os.path.exists(blob):
            with open(blob, "wb") as f:
                f.write(data)
        self.blob_sizes[etag] = len(data)
        link = os.path.join(self.dir, "snapshots", commit, path)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        # file_download.py _create_symlink: relative, ../ once per folder level of path
        os.symlink(os.path.relpath(blob, os.path.dirname(link)), link)
        self.snap_files.setdefault(commit, {})[path] = etag
        return etag

    def add_dir(self, commit, src, skip=()):
        for name in sorted(os.listdir(src)):
            if name not in skip:
                self.add(commit, name, open(os.path.join(src, name), "rb").read())

    def ref(self, name, commit):
        p = os.path.join(self.dir, "refs", name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(commit)   # no newline, as huggingface_hub writes it

    def snapshot(self, commit):
        return os.path.join(self.dir, "snapshots", commit)

    def size(self, commits=None):
        """the distinct blobs the snapshots link to that exist (a blob shared counted once)"""
        etags = set()
        for c, files in self.snap_files.items():
            if commits is None or c in commits:
                etags |= {e for e in files.values()
                          if os.path.exists(os.path.join(self.dir, "blobs", e))}
        return sum(self.blob_sizes[e] for e in etags)


def run(args, inp=TEXT, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([XLATE] + args, input=inp.encode(), capture_output=True, env=e)


def shipped_models():
    """The models shipped with the xlate under test, read here from the file system: the
    directories with a config.json in models/ beside the executable (Makefile: build/models
    links ../models), as -m NAME looks them up (README.md, "The shipped models")."""
    base = os.path.join(os.path.dirname(XLATE), "models")
    out = {}
    for name in sorted(os.listdir(base)):
        d = os.path.join(base, name)
        if not name.startswith(".") and os.path.isfile(os.path.join(d, "config.json")):
            files = [os.path.join(d, f) for f in os.listdir(d) if not f.startswith(".")]
            files = [f for f in files if os.path.isfile(f)]
            out[name] = {"dir": d, "size": sum(os.stat(f).st_size for f in files),
                         "n": len(files),
                         "config": json.load(open(os.path.join(d, "config.json")))}
    return out


def shipped_check(got):
    """--json: the shipped models first, by name, each as the file system and its config say;
    the default is models/en-de (README.md: the default caption model)"""
    want = shipped_models()
    head = [o for o in got if o.get("shipped") is True]
    expect_eq("models --json: the shipped models first, sorted by name",
              [o["repo_id"] for o in got[:len(head)]], sorted(want))
    check("models --json: at least the default caption model and the docs model are shipped",
          lambda: None if {"en-de", "en-de-docs"} <= set(want) else f"{sorted(want)}")
    for o in head:
        w = want.get(o["repo_id"], {})
        c = w.get("config", {})
        expect_eq(f"models --json: shipped {o['repo_id']}: its path, bytes, files, pair, "
                  "description (config.json's), complete and runs",
                  (os.path.realpath(o["repo_path"]), o["size_on_disk"], o["nb_files"],
                   o["source_lang"], o["target_lang"], o["description"], o["complete"],
                   o["runs"], o["revision"], o["revisions"]),
                  (os.path.realpath(w.get("dir", "")), w.get("size"), w.get("n"),
                   c.get("source_lang"), c.get("target_lang"), c.get("description"), True,
                   True, None, []))
    expect_eq("models --json: the default is en-de alone (XLATE_MODEL empty)",
              [o["repo_id"] for o in head if o["default"]], ["en-de"])


def shipped_lines(lines):
    """the text listing: a shipped model's line says shipped (,default for en-de), its size as
    huggingface_hub's _format_size and the first clause of its description"""
    want = shipped_models()
    for i, name in enumerate(sorted(want)):
        w = want[name]
        desc = w["config"].get("description", "")
        clause = re.split(r"[:.](?: |$)", desc, maxsplit=1)[0]
        words = [name, "shipped,default" if name == "en-de" else "shipped",
                 "%s -> %s" % (w["config"]["source_lang"], w["config"]["target_lang"]),
                 fmt_size(w["size"]), "complete"]
        l = lines[i] if i < len(lines) else ""
        check(f"models: line {i + 1} is shipped {name}: {', '.join(words[1:])} and what it is",
              lambda: None if l.split()[:1] == [name] and all(x in l for x in words) and
              (clause in l if len(clause) < 120 else clause[:60] in l) and
              (name != "en-de" or "shipped,default" in l) and
              (name == "en-de" or "default" not in l) else f"[{l}] clause [{clause}]")


def make_model(tmp, name, tool, args):
    d = os.path.join(tmp, "made", name)
    OM.make_model(d, [sys.executable, os.path.join(TOP, "tools", tool), d] + args)
    return d


def main():
    tmp = tempfile.mkdtemp(prefix="xlate-hub-models-")
    try:
        body(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


def body(tmp):
    pair = make_model(tmp, "pair", "make_marian.py", ["--seed", "11"])
    multi = make_model(tmp, "multi", "make_marian.py", ["--multilingual", "--seed", "12"])
    nllb = make_model(tmp, "nllb", "make_m2m100.py", ["--seed", "13"])
    cache = os.path.join(tmp, "hub")
    os.makedirs(os.path.join(cache, ".locks", "models--x--y"))
    os.makedirs(os.path.join(cache, "datasets--x--y", "snapshots"))   # not a model: skipped
    env = {"HF_HUB_CACHE": cache, "XLATE_MODEL": ""}

    # a one-pair OPUS-MT model, its files saying fr -> de as its name does
    fr_de = Repo(cache, "Helsinki-NLP/opus-mt-fr-de")
    c1 = commit_of("fr-de", "1")
    fr_de.add_dir(c1, pair, skip=("tokenizer_config.json",))
    tc = json.load(open(os.path.join(pair, "tokenizer_config.json")))
    tc.update(source_lang="fr", target_lang="de")
    fr_de.add(c1, "tokenizer_config.json", json.dumps(tc).encode())
    fr_de.ref("main", c1)

    # a multilingual OPUS-MT model with two revisions sharing their blobs: main, and v1 (an
    # older commit without target.spm: incomplete)
    rom = Repo(cache, "Helsinki-NLP/opus-mt-en-ROMANCE")
    c2, c2old = commit_of("romance", "2"), commit_of("romance", "1")
    rom.add_dir(c2, multi)
    rom.add_dir(c2old, multi, skip=("target.spm",))
    rom.ref("main", c2)
    rom.ref("v1", c2old)

    # NLLB-200 (tiny, random), in a nested path's folder too: a file below a sub-folder
    nl = Repo(cache, "facebook/nllb-200-distilled-600M")
    c3 = commit_of("nllb", "1")
    nl.add_dir(c3, nllb)
    nl.add(c3, "extra/README.txt", b"a file in a sub-folder\n")
    nl.ref("main", c3)

    # incomplete: no vocab.json, and source.spm's blob gone (a broken link)
    inc = Repo(cache, "Helsinki-NLP/opus-mt-it-de")
    c4 = commit_of("it-de", "1")
    inc.add_dir(c4, pair, skip=("vocab.json",))
    os.remove(os.path.join(inc.dir, "blobs", inc.snap_files[c4]["source.spm"]))
    inc.ref("main", c4)

    # a model xlate cannot run: a T5 config
    t5 = Repo(cache, "google-t5/t5-small")
    c5 = commit_of("t5", "1")
    t5.add(c5, "config.json", json.dumps({"model_type": "t5", "d_model": 512}).encode())
    t5.add(c5, "model.safetensors", b"\0" * 100)
    t5.ref("main", c5)
    gone = commit_of("t5", "gone")
    t5.ref("refs/pr/1", gone)   # a ref to a commit with no snapshot (huggingface_hub: corrupted)

    # any source into English (OPUS-MT's "mul" models): the one-pair files under such a name
    mul = Repo(cache, "Helsinki-NLP/opus-mt-mul-en")
    c6 = commit_of("mul-en", "1")
    mul.add_dir(c6, pair)
    mul.ref("main", c6)

    repos = {r.id: r for r in (fr_de, rom, nl, inc, t5, mul)}

    # --- xlate models --json
    p = run(["models", "--json"], env=env)
    expect_eq("models --json: exit 0", p.returncode, 0)
    try:
        got = json.loads(p.stdout)
    except ValueError as e:
        not_ok("models --json: parses", f"{e}: {p.stdout[:300]!r} {p.stderr[:300]!r}")
        return
    shipped_check(got)
    got = [o for o in got if o.get("shipped") is False]
    by_id = {o["repo_id"]: o for o in got}
    expect_eq("models --json: after the shipped models, the six model repos, sorted "
              "(datasets and .locks skipped), each \"shipped\": false",
              [o["repo_id"] for o in got], sorted(repos))
    for rid, r in repos.items():
        o = by_id.get(rid, {})
        expect_eq(f"{rid}: size_on_disk = its distinct existing blobs' bytes",
                  o.get("size_on_disk"), r.size())
        expect_eq(f"{rid}: repo_path", o.get("repo_path"), r.dir)
        revs = {v["commit"]: v for v in o.get("revisions", [])}
        expect_eq(f"{rid}: its revisions", sorted(revs), sorted(r.snap_files))
        for c, files in r.snap_files.items():
            v = revs.get(c, {})
            expect_eq(f"{rid}@{c[:7]}: size_on_disk (its blobs once), nb_files",
                      (v.get("size_on_disk"), v.get("nb_files")), (r.size([c]), len(files)))
            expect_eq(f"{rid}@{c[:7]}: snapshot_path", v.get("snapshot_path"), r.snapshot(c))
    expect_eq("opus-mt-en-ROMANCE: refs of each revision",
              {c: v["refs"] for c, v in ((v["commit"], v) for v in
                                         by_id[rom.id]["revisions"])},
              {c2: ["main"], c2old: ["v1"]})
    expect_eq("opus-mt-en-ROMANCE: the revisions share their blobs (repo size = main's)",
              rom.size(), rom.size([c2]))
    o = by_id[fr_de.id]
    expect_eq("opus-mt-fr-de: marian, fr -> de, complete, runs",
              (o["family"], o["source_lang"], o["target_lang"], o["languages"], o["complete"],
               o["missing"], o["runs"], o["reason"], o["revision"]),
              ("marian", "fr", "de", [], True, [], True, None, c1))
    o = by_id[rom.id]
    expect_eq("opus-mt-en-ROMANCE: marian, en -> its >>xx<< codes, main complete",
              (o["family"], o["source_lang"], o["languages"], o["complete"], o["runs"]),
              ("marian", "en", ["fra", "spa", "ita", "por", "ron"], True, True))
    old = [v for v in o["revisions"] if v["commit"] == c2old][0]
    expect_eq("opus-mt-en-ROMANCE v1: incomplete, missing target.spm",
              (old["complete"], old["missing"], old["runs"]), (False, ["target.spm"], False))
    o = by_id[nl.id]
    codes = __import__("make_m2m100").NLLB_CODES
    expect_eq("nllb-200: m2m100 (NLLB), its 202 language codes, complete",
              (o["family"], o["nllb"], o["languages"], o["complete"], o["runs"]),
              ("m2m100", True, list(codes), True, True))
    o = by_id[inc.id]
    expect_eq("opus-mt-it-de: incomplete, missing the broken link's file and the absent one",
              (o["complete"], sorted(o["missing"]), o["runs"]),
              (False, ["source.spm", "vocab.json"], False))
    o = by_id[t5.id]
    expect_eq("t5-small: the repo's problem names the ref to a missing snapshot",
              o["problem"], f"ref refs/pr/1 names commit {gone}, which has no snapshot")
    check("t5-small: cannot run, the reason names model_type \"t5\"",
          lambda: None if not o["runs"] and o["reason"] and '"t5"' in o["reason"] and
          "model_type" in o["reason"] else f"{o}")

    # --- the text listing: one line per repo, its fields from the layout
    p = run(["models"], env=env)
    lines = p.stdout.decode().split("\n")[:-1]
    shipped_lines(lines)
    ns = len(shipped_models())
    expect_eq("models: exit 0, one line per shipped model, then one per repo",
              (p.returncode, len(lines)), (0, ns + len(repos)))
    lines = lines[ns:]
    line = {l.split()[0]: l for l in lines if l.strip()}

    def has(rid, *words):
        l = line.get(rid, "")
        miss = [w for w in words if w not in l]
        return None if not miss else f"{miss} not in [{l}]"
    check("models: opus-mt-fr-de line: marian, fr -> de, main:commit, size, complete",
          lambda: has(fr_de.id, "marian", "fr -> de", f"main:{c1[:7]}", fmt_size(fr_de.size()),
                      "complete"))
    check("models: opus-mt-en-ROMANCE line: en -> 5 languages, both refs, size once",
          lambda: has(rom.id, "en -> 5 languages", f"main:{c2[:7]}", f"v1:{c2old[:7]}",
                      fmt_size(rom.size()), "complete"))
    check("models: nllb line: nllb, 202 languages, complete",
          lambda: has(nl.id, "nllb", "202 languages", fmt_size(nl.size()), "complete"))
    check("models: opus-mt-it-de line names the missing files",
          lambda: has(inc.id, "incomplete: missing source.spm, vocab.json"))
    check("models: t5-small line says it cannot run and why",
          lambda: has(t5.id, "cannot run:", "t5", f"refs/pr/1 names commit {gone}"))
    p = run(["models", "--bogus"], env=env)
    expect_eq("models --bogus: exit 1", p.returncode, 1)
    p = run(["models", "--json"], env={"HF_HUB_CACHE": os.path.join(tmp, "none")})
    expect_eq("models --json on a cache folder that does not exist: the shipped models alone",
              (p.returncode, [o["repo_id"] for o in json.loads(p.stdout)]),
              (0, sorted(shipped_models())))
    for xm, want in (("en-de-docs", "en-de-docs"),
                     (os.path.join(TOP, "models", "en-de-docs"), "en-de-docs"),
                     ("Helsinki-NLP/opus-mt-en-de", None)):
        p = run(["models", "--json"], env={"HF_HUB_CACHE": os.path.join(tmp, "none"),
                                           "HF_HUB_OFFLINE": "1", "XLATE_MODEL": xm})
        got_def = [o["repo_id"] for o in json.loads(p.stdout or b"[]") if o.get("default")]
        expect_eq(f"XLATE_MODEL={xm}: the default marked is {want} (a hub name: none, "
                  "nothing fetched)", (p.returncode, got_def), (0, [want] if want else []))

    # --- a language pair picks the model
    def same_as(what, args, snap, margs):
        a = run(args, env=env)
        b = run(["-m", snap] + margs, env=env)
        check(what, lambda: None if a.returncode == 0 and a.stdout == b.stdout and a.stdout
              else f"exit {a.returncode} {a.stderr[:300]!r}; got {a.stdout[:200]!r}, "
                   f"-m gives {b.stdout[:200]!r} {b.stderr[:200]!r}")
        return a
    a = same_as("--from fr --to de: the translation is xlate -m opus-mt-fr-de's snapshot",
                ["--from", "fr", "--to", "de"], fr_de.snapshot(c1), [])
    check("--from fr --to de: stderr names Helsinki-NLP/opus-mt-fr-de and its snapshot",
          lambda: None if fr_de.id.encode() in a.stderr and fr_de.snapshot(c1).encode()
          in a.stderr else repr(a.stderr))
    a = same_as("--to es (source: the default model's en): opus-mt-en-ROMANCE with >>spa<<",
                ["--to", "es"], rom.snapshot(c2), ["--target-lang", "spa"])
    check("--to es: stderr names opus-mt-en-ROMANCE",
          lambda: None if rom.id.encode() in a.stderr else repr(a.stderr))
    # the pick reads a multilingual model's codes from vocab.json's keys alone (hub_probe_langs):
    # each >>xx<< key (transformers' MarianTokenizer: keys starting ">>" and ending "<<", read
    # here by Python's json) picks opus-mt-en-ROMANCE as --to, and says it
    vocab = json.load(open(os.path.join(multi, "vocab.json")))
    rcodes = [k[2:-2] for k in vocab if k.startswith(">>") and k.endswith("<<")]
    picked = []
    for code in rcodes:
        a = run(["--to", code], env=env)
        if a.returncode == 0 and rom.id.encode() in a.stderr:
            picked.append(code)
    check(f"--to each of the {len(rcodes)} >>xx<< codes of ROMANCE's vocab.json picks it",
          lambda: None if rcodes and picked == rcodes else f"codes {rcodes}, picked {picked}")
    a = same_as("--from de --to fr: NLLB (deu_Latn -> fra_Latn), as -m SNAPSHOT",
                ["--from", "de", "--to", "fr"], nl.snapshot(c3),
                ["--source-lang", "deu_Latn", "--target-lang", "fra_Latn"])
    check("--from de --to fr: stderr names facebook/nllb-200-distilled-600M",
          lambda: None if nl.id.encode() in a.stderr else repr(a.stderr))
    same_as("--from it --to de: the incomplete opus-mt-it-de is passed over for NLLB",
            ["--from", "it", "--to", "de"], nl.snapshot(c3),
            ["--source-lang", "ita_Latn", "--target-lang", "deu_Latn"])
    same_as("--from deu_Latn --to fra_Latn: NLLB's own codes",
            ["--from", "deu_Latn", "--to", "fra_Latn"], nl.snapshot(c3),
            ["--source-lang", "deu_Latn", "--target-lang", "fra_Latn"])
    a = same_as("--from fi --to en: opus-mt-mul-en (any source) before NLLB",
                ["--from", "fi", "--to", "en"], mul.snapshot(c6), [])
    check("--from fi --to en: stderr names Helsinki-NLP/opus-mt-mul-en",
          lambda: None if mul.id.encode() in a.stderr else repr(a.stderr))
    a = run(["-q", "--from", "fr", "--to", "de"], env=env)
    expect_eq("-q --from fr --to de: no note on stderr", a.stderr.decode(), "")

    # none cached: only the one-pair model in a second cache
    cache2 = os.path.join(tmp, "hub2")
    os.makedirs(cache2)
    shutil.copytree(fr_de.dir, os.path.join(cache2, os.path.basename(fr_de.dir)),
                    symlinks=True)
    env2 = {"HF_HUB_CACHE": cache2, "XLATE_MODEL": ""}
    for args, want in ((["--from", "fi", "--to", "sv"], "Helsinki-NLP/opus-mt-fi-sv"),
                       (["--source-lang", "de", "--target-lang", "fr"],
                        "Helsinki-NLP/opus-mt-de-fr"),
                       (["--from", "eng_Latn", "--to", "zho_Hans"],
                        "facebook/nllb-200-distilled-600M")):
        a = run(args, env=env2)
        err = a.stderr.decode()
        check(f"{' '.join(args)} with no model for it: exit 2, names {want} and xlate pull",
              lambda: None if a.returncode == 2 and f"xlate pull {want}" in err and
              a.stdout == b"" else f"exit {a.returncode}: {err!r}")

    # the default model's own pair: as today (no model picked, no note)
    base = run([], env=env2)
    for args in (["--from", "en", "--to", "de"], ["--to", "de"], ["--source-lang", "en"],
                 ["--from", "en_US", "--to", "DE"]):
        a = run(args, env=env2)
        check(f"{' '.join(args)}: the default model translates it, as without the options",
              lambda: None if a.returncode == 0 and a.stdout == base.stdout and
              a.stderr == b"" else f"exit {a.returncode} {a.stderr[:300]!r}")
    a = run(["--source-lang", "de"], env=env2)
    b = run(["-m", os.path.join(os.path.dirname(XLATE), "models", "en-de"), "--source-lang", "de"],
            env=env2)
    check("--source-lang de alone (de -> de, no pair): the default model with de's splitter "
          "rules, as before", lambda: None if a.returncode == 0 and a.stdout == b.stdout and
          a.stderr == b"" else f"exit {a.returncode} {a.stderr[:300]!r}")
    # -m or XLATE_MODEL given: never a pick
    a = run(["-m", nl.snapshot(c3), "--from", "fr", "--to", "de"], env=env)
    check("-m given: no pick (the note is absent)",
          lambda: None if b"hub cache" not in a.stderr else repr(a.stderr))
    a = run(["--from", "fi", "--to", "sv"], env=dict(env2, XLATE_MODEL=fr_de.snapshot(c1)))
    check("XLATE_MODEL given: no pick, no 'xlate pull' message",
          lambda: None if b"xlate pull" not in a.stderr else repr(a.stderr))

    # --- --from / --to are --source-lang / --target-lang
    for short, long_ in (([nl.snapshot(c3), "--from", "deu_Latn", "--to", "spa_Latn"],
                          [nl.snapshot(c3), "--source-lang", "deu_Latn", "--target-lang",
                           "spa_Latn"]),
                         ([rom.snapshot(c2), "--to", "ita"],
                          [rom.snapshot(c2), "--target-lang", "ita"]),
                         ([rom.snapshot(c2), "--to", "xyz"],
                          [rom.snapshot(c2), "--target-lang", "xyz"]),
                         ([fr_de.snapshot(c1), "--from", "1/2"],
                          [fr_de.snapshot(c1), "--source-lang", "1/2"])):
        a = run(["-m"] + short, env=env)
        b = run(["-m"] + long_, env=env)
        check(f"-m ... {' '.join(short[1:])}: as {' '.join(long_[1:])} (exit, stdout, stderr "
              "less the option's name)",
              lambda: None if (a.returncode, a.stdout) == (b.returncode, b.stdout) and
              a.stderr.replace(b"--from", b"--source-lang").replace(b"--to", b"--target-lang")
              .replace(b"--source-lang", b"").replace(b"--target-lang", b"") ==
              b.stderr.replace(b"--source-lang", b"").replace(b"--target-lang", b"")
              else f"{a.returncode} {a.stderr[:200]!r} / {b.returncode} {b.stderr[:200]!r}")

    # --- base/langs.c's ISO 639-1 -> NLLB table (hub_pair.c's, serve's): every code NLLB's
    src = open(os.path.join(TOP, "src", "base", "langs.c"), encoding="utf-8").read()
    table = re.findall(r'\{"([a-z]{2})", "([a-z]{3}_[A-Z][a-z]{3})"\}', src)
    bad = [c for _, c in table if c not in codes]
    check(f"base/langs.c: the {len(table)} ISO 639-1 -> NLLB codes are NLLB-200's codes",
          lambda: None if len(table) >= 60 and not bad else f"{len(table)} codes, bad: {bad}")


if __name__ == "__main__":
    sys.exit(main())
