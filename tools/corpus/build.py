#!/usr/bin/env python3
"""Build an English-German corpus from Debian's own translations (issue 42).

    tools/corpus/build.py --out DIR [--debs DIR] [--multi30k DIR] [--sources mo,ding,lohelp,fluent]

Steps, each rerunnable (downloads are kept in --debs):
  1. which packages: every package of Debian bookworm main that ships a German gettext catalog
     (usr/share/locale/de/LC_MESSAGES/*.mo), read from the archive's Contents-amd64 and
     Contents-all indices, plus the packages the other sources name (their PACKAGES);
  2. download: `apt-get download` of each missing .deb (no install);
  3. read: gettext catalogs (gettext_mo.py), the Ding dictionary (ding.py), LibreOffice help
     pages paired by paragraph id (lohelp.py), Firefox/Thunderbird Fluent strings (fluent.py);
  4. clean: accelerators, untranslated and format-string-only entries, length and ratio limits;
  5. hold out whole units (a package's catalogs, a help page, a Fluent file) by a hash of their
     name as dev and test sets, drop from them every source sentence training has, deduplicate;
  6. write train/val/test files, packages.tsv (name, version, licence, pairs) and counts.json.

The corpus is not committed; this script and the counts it printed are (models/recipe/README.md).
"""
import argparse
import collections
import gzip
import hashlib
import io
import json
import os
import random
import re
import subprocess
import sys
import tarfile
import urllib.request
from multiprocessing import Pool

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gettext_mo  # noqa: E402

MIRROR = "http://deb.debian.org/debian/dists/bookworm/main"
MO_DIR = re.compile(r"^(?:\./)?(usr/share/locale/de/LC_MESSAGES/[^/]+\.mo"
                    r"|usr/lib/libreoffice/program/resource/de/LC_MESSAGES/[^/]+\.mo)$")
MAX_CHARS = 300
CLEAN_RULES = 3  # bump when the cleaning changes: the per-package cache is keyed by it


# ---- 1. packages --------------------------------------------------------------------------

def mo_packages(cache):
    """Names of the packages whose files include a German .mo catalog, from the archive's
    Contents indices (fetched once into `cache`)."""
    names = set()
    for arch in ("amd64", "all"):
        path = os.path.join(cache, f"Contents-{arch}.gz")
        if not os.path.exists(path):
            urllib.request.urlretrieve(f"{MIRROR}/Contents-{arch}.gz", path + ".part")
            os.replace(path + ".part", path)
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("usr/share/locale/de/LC_MESSAGES/"):
                    file, _, where = line.rstrip("\n").rpartition(" ")
                    if file.rstrip().endswith(".mo"):
                        names.update(w.rsplit("/", 1)[-1] for w in where.split(","))
    return sorted(names)


def download(names, debs):
    have = {f.split("_", 1)[0] for f in os.listdir(debs) if f.endswith(".deb")}
    missing = [n for n in names if n not in have]
    for i in range(0, len(missing), 200):
        subprocess.run(["apt-get", "download", "-q"] + missing[i:i + 200], cwd=debs, check=True,
                       stdout=subprocess.DEVNULL)
    return {f.split("_", 1)[0]: os.path.join(debs, f) for f in sorted(os.listdir(debs))
            if f.endswith(".deb")}


def deb_members(path, want):
    """Yields (member name, bytes) of the regular files of a .deb's data whose names match the
    predicate `want`, streaming dpkg-deb's tar (no unpacking to disk)."""
    p = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", path], stdout=subprocess.PIPE)
    try:
        with tarfile.open(fileobj=p.stdout, mode="r|*") as tar:
            for m in tar:
                name = m.name[2:] if m.name.startswith("./") else m.name
                if m.isfile() and want(name):
                    yield name, tar.extractfile(m).read()
    finally:
        p.stdout.close()
        p.wait()


def licence_of(text):
    """The first DEP-5 'License:' value of a copyright file, or 'see copyright' when the file
    is not machine-readable."""
    m = re.search(r"^License:[ \t]*(\S.*)$", text, re.M)  # not across the line's end
    return m.group(1).strip() if m else "see copyright"


# ---- 3./4. gettext catalogs -----------------------------------------------------------------

# '_' after any letter too ('E_xit', 'Ä_ndern'), but not between two capitals ('MAX_SIZE')
ACCEL = {"_": re.compile(r"(?:(?<=^)|(?<=[\s(\[\"'])|(?<=[^\W\d_]))_(?=[^\W_])(?!(?<=[A-Z]_)[A-Z])"),
         "&": re.compile(r"&(?=[^\W_])(?![A-Za-z]+;|#\d+;)"),
         "~": re.compile(r"~(?=[^\W_])")}
FORMAT = re.compile(r"%(?:\d+\$)?[-+ #0']*(?:\d+|\*)?(?:\.\d+)?(?:hh|h|ll|l|L|q|j|z|t)?"
                    r"[diouxXeEfFgGaAcspnm%@]|%\([^)]*\)[a-zA-Z]|\{[^{}]*\}|<[^<>]*>|\$\{?\w+\}?"
                    r"|&[A-Za-z]+;|&#\d+;")
LETTER = re.compile(r"[^\W\d_]")


def strip_accelerators(src, tgt):
    """Removes a menu accelerator marker (GTK '_', Qt/KDE '&', LibreOffice '~') when the
    English has exactly one and the German at most one: 'Save _As...' / '_Speichern unter...'."""
    for mark, rx in ACCEL.items():
        if len(rx.findall(src)) == 1 and len(rx.findall(tgt)) <= 1:
            src, tgt = rx.sub("", src), rx.sub("", tgt)
    return src, tgt


def clean_pair(src, tgt, why):
    """Returns the cleaned (src, tgt) or None, counting the reason in `why`."""
    src, tgt = " ".join(src.split()), " ".join(tgt.split())
    if not src or not tgt:
        why["empty"] += 1; return None
    if src.lower() in ("translator-credits", "translator_credits", "translators"):
        why["credits"] += 1; return None
    src, tgt = strip_accelerators(src, tgt)
    if src == tgt:
        why["untranslated"] += 1; return None
    if not LETTER.search(FORMAT.sub("", src)) or not LETTER.search(FORMAT.sub("", tgt)):
        why["format only"] += 1; return None
    if len(src) > MAX_CHARS or len(tgt) > MAX_CHARS:
        why[f"over {MAX_CHARS} chars"] += 1; return None
    longer, shorter = max(len(src), len(tgt)), min(len(src), len(tgt))
    if longer > 20 and longer > 3 * shorter:
        why["length ratio"] += 1; return None
    return src, tgt


def read_package(args):
    """One .deb: its version, licence and cleaned catalog pairs, kept beside the .deb in
    .pairs/ (per CLEAN_RULES) so a rerun reads each package once. Runs in a worker process."""
    name, path = args
    cache = os.path.join(os.path.dirname(path), f".pairs{CLEAN_RULES}", os.path.basename(path) + ".json")
    if os.path.exists(cache):
        with open(cache, encoding="utf-8") as f:
            c = json.load(f)
        return name, c["version"], c["licence"], [tuple(x) for x in c["pairs"]], \
            collections.Counter(c["why"])
    r = read_package_uncached(name, path)
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    with open(cache + ".part", "w", encoding="utf-8") as f:
        json.dump(dict(version=r[1], licence=r[2], pairs=r[3], why=r[4]), f, ensure_ascii=False)
    os.replace(cache + ".part", cache)
    return r


def read_package_uncached(name, path):
    pairs, why, licence = [], collections.Counter(), "see copyright"
    version = subprocess.run(["dpkg-deb", "-f", path, "Version"], capture_output=True,
                             text=True).stdout.strip()
    copyright_path = f"usr/share/doc/{name}/copyright"
    try:
        for member, data in deb_members(path, lambda n: n == copyright_path or MO_DIR.match(n)):
            if member == copyright_path:
                licence = licence_of(data.decode("utf-8", "replace"))
                continue
            try:
                entries = gettext_mo.read_mo(data, f"{name}:{member}")
            except gettext_mo.MoError:
                why["unreadable catalog"] += 1
                continue
            for _, src, tgt in entries:
                why["entries"] += 1
                # a multi-line message (a --help block) with as many lines on both sides:
                # line by line; otherwise the whole message as one sentence
                sl = [x for x in src.split("\n") if x.strip()]
                tl = [x for x in tgt.split("\n") if x.strip()]
                for s, t in (zip(sl, tl) if 1 < len(sl) == len(tl) else [(src, tgt)]):
                    ct = clean_pair(s, t, why)
                    if ct:
                        pairs.append(ct)
    except (tarfile.TarError, OSError) as e:
        why[f"unreadable deb: {e}"] += 1
    return name, version, licence, pairs, why


# ---- 5. hold-outs ---------------------------------------------------------------------------

def bucket(unit):
    return int(hashlib.md5(unit.encode("utf-8")).hexdigest(), 16) % 100


def split_of(unit, test_pct, dev_pct):
    b = bucket(unit)
    return "test" if b < test_pct else "dev" if b < test_pct + dev_pct else "train"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--debs", default="debs", help="where .deb files are downloaded and kept")
    ap.add_argument("--multi30k", default=None, help="Multi30k dir (train.en/train.de) to mix in")
    ap.add_argument("--multi30k_copies", type=int, default=3)
    ap.add_argument("--sources", default="mo,ding,lohelp,fluent")
    ap.add_argument("--test_lines", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    sources = a.sources.split(",")
    os.makedirs(a.out, exist_ok=True); os.makedirs(a.debs, exist_ok=True)
    modules = {}
    for s in sources:
        if s != "mo":
            modules[s] = __import__({"ding": "ding", "lohelp": "lohelp", "fluent": "fluent"}[s])

    names = mo_packages(a.debs) if "mo" in sources else []
    extra = sorted({p for m in modules.values() for p in m.PACKAGES})
    debs = download(sorted(set(names) | set(extra)), a.debs)
    print(f"packages: {len(names)} with German catalogs, {len(extra)} for the other sources",
          flush=True)

    # rows: (split, kind, src, tgt, package, unit)
    rows, why, pkg_rows = [], collections.Counter(), []
    if "mo" in sources:
        with Pool(a.jobs) as pool:
            for name, version, licence, pairs, w in pool.imap(  # in name order: the same file each run
                    read_package, [(n, debs[n]) for n in names if n in debs], chunksize=4):
                why.update(w)
                sp = split_of(name, 2, 1)
                rows += [(sp, "messages", s, t, name, name) for s, t in pairs]
                pkg_rows.append((name, version, licence, len(pairs), sp))
    for s, mod in modules.items():
        n = 0
        for r in mod.pairs(a.debs):
            if len(r["src"]) > MAX_CHARS or len(r["tgt"]) > MAX_CHARS:
                why[f"{s}: over {MAX_CHARS} chars"] += 1  # as catalogs are (clean_pair)
                continue
            kind = "docs" if s == "lohelp" else "terms" if s == "ding" else "messages"
            sp = "train" if s == "ding" else split_of(r["unit"], 3, 1)
            rows.append((sp, kind, r["src"], r["tgt"], r["origin"].split(" ")[0], r["unit"])); n += 1
        print(f"{s}: {n} pairs", flush=True)
        for p in mod.PACKAGES:
            if p in debs and p not in {r[0] for r in pkg_rows}:
                v = subprocess.run(["dpkg-deb", "-f", debs[p], "Version"], capture_output=True,
                                   text=True).stdout.strip()
                lic = "see copyright"
                for _, data in deb_members(debs[p], lambda m, p=p: m == f"usr/share/doc/{p}/copyright"):
                    lic = licence_of(data.decode("utf-8", "replace"))
                pkg_rows.append((p, v, lic, sum(1 for r in rows if r[4] == p), "source " + s))

    # train: unique pairs; dev/test: no source sentence that training has, one line per source
    train, seen = [], set()
    for sp, kind, s, t, o, _ in rows:
        if sp == "train" and (s, t) not in seen:
            seen.add((s, t)); train.append((s, t, kind, o))
    train_src = {s for s, _, _, _ in train}
    held = collections.defaultdict(list)
    held_seen, leaked = set(), collections.Counter()
    for sp, kind, s, t, _, o in rows:
        if sp == "train":
            continue
        if s in train_src:
            leaked[f"{sp} {kind}"] += 1; continue
        if (sp, kind, s) in held_seen:
            continue
        held_seen.add((sp, kind, s)); held[(sp, kind)].append((s, t, kind, o))
    rng = random.Random(42)
    counts = {"train_by_kind": dict(collections.Counter(k for _, _, k, _ in train)),
              "filtered": dict(why), "held_out_sources_also_in_train": dict(leaked)}
    m30k = []
    if a.multi30k:
        src = open(os.path.join(a.multi30k, "train.en"), encoding="utf-8").read().splitlines()
        tgt = open(os.path.join(a.multi30k, "train.de"), encoding="utf-8").read().splitlines()
        m30k = [(s, t, "captions", "multi30k") for s, t in zip(src, tgt)] * a.multi30k_copies
        counts["train_by_kind"]["captions (Multi30k x%d)" % a.multi30k_copies] = len(m30k)
    train += m30k
    rng.shuffle(train)

    def write(stem, items):
        with open(os.path.join(a.out, stem + ".en"), "w", encoding="utf-8") as fe, \
             open(os.path.join(a.out, stem + ".de"), "w", encoding="utf-8") as fd, \
             open(os.path.join(a.out, stem + ".origin"), "w", encoding="utf-8") as fo:
            for s, t, k, o in items:
                fe.write(s + "\n"); fd.write(t + "\n"); fo.write(f"{k}\t{o}\n")
        counts[stem] = len(items)

    write("train", train)
    dev = held[("dev", "messages")] + held[("dev", "docs")]
    rng.shuffle(dev)
    write("val", dev[:3000])
    for kind in ("messages", "docs"):
        items = sorted(held[("test", kind)])
        rng.shuffle(items)
        write(f"test_{kind}", items[:a.test_lines])
        counts[f"test_{kind}_units"] = len({o for _, _, _, o in items[:a.test_lines]})
    with open(os.path.join(a.out, "packages.tsv"), "w", encoding="utf-8") as f:
        f.write("package\tversion\tlicence\tpairs\tsplit\n")
        for r in sorted(pkg_rows):
            f.write("\t".join(map(str, r)) + "\n")
    with open(os.path.join(a.out, "counts.json"), "w") as f:
        json.dump(counts, f, indent=1, ensure_ascii=False)
    print(json.dumps(counts, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
