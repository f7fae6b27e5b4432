#!/usr/bin/env python3
"""The language-identification corpus (issue 48): texts from Debian's own translations, written by
Debian's translators (no one here), in LANGS' languages, with whole packages held out.

    tools/langid/build.py --out DIR [--debs DIR] [--test-pct 25] [--sample tests/data/langid/]

Steps, each rerunnable (downloads are kept in --debs, default DIR/debs):
  1. download: `apt-get download` of PACKAGES (no install): GNU utilities, GNOME and Xfce
     programs, Debian's own tools, each with gettext catalogs in 30 to 240 locales;
  2. read every catalog usr/share/locale/LOCALE/LC_MESSAGES/*.mo (tools/corpus/gettext_mo.py)
     of a locale LANGS maps; English is the catalogs' msgids (one copy a package);
  3. clean: accelerators (_ & ~), format directives (%s, {0}, <b>, &amp;), whitespace runs; a
     text without 3 letters is dropped; untranslated entries (msgstr == msgid) dropped, so a
     'German' text is German;
  4. a package is held out whole (test) when md5(name) % 100 < --test-pct, else trained on;
  5. length bands by code points: 20-60, 60-200, 200+ (the 200+ texts of a catalog are its long
     messages, and runs of its consecutive short ones joined by spaces up to 200: a paragraph of
     one program's strings in one translator's words);
  6. write DIR/train.tsv (lang, package, text), DIR/test.tsv (lang, band, package, text; at most
     --per-band texts per language and band, drawn with a fixed seed), DIR/counts.json.
  --sample DIR also writes DIR/test.tsv, a smaller draw of test.tsv (--sample-n per language and
  band) and DIR/packages.tsv (package, version, licence) for the committed test.

The data is not committed (only --sample's draw, under its packages' free licences).
"""
import argparse
import collections
import hashlib
import json
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "corpus"))
import gettext_mo  # noqa: E402

PACKAGES = """coreutils tar grep sed findutils diffutils wget bash dpkg apt gettext gettext-base
util-linux-locales libc-l10n e2fsprogs-l10n nano mc-data lynx-common man-db procps psmisc sudo
gnupg-l10n libglib2.0-data libgtk-3-common gedit-common nautilus-data evince-common totem-common
xfce4-panel thunar-data mousepad ristretto synaptic gnome-calculator gnome-terminal-data
file-roller baobab eog gucharmap gnome-disk-utility debconf-i18n tasksel-data aptitude-common
pidgin-data gnome-control-center-data xfce4-session cheese-common rhythmbox-data shotwell-common
gnome-shell-common mutter-common gnome-software-common simple-scan catfish hexchat-common
audacious-plugins-data""".split()

# detector code: the catalog locales read as it ("pt" and "pt_BR" are one language to detect,
# as LibreTranslate's detector answers "pt"; "sr" is Debian's Cyrillic Serbian, sr@latin left out)
LANGS = {
    "ar": ["ar"], "bg": ["bg"], "ca": ["ca"], "cs": ["cs"], "da": ["da"], "de": ["de"],
    "el": ["el"], "eo": ["eo"], "es": ["es"], "et": ["et"], "eu": ["eu"], "fi": ["fi"],
    "fr": ["fr"], "gl": ["gl"], "he": ["he"], "hr": ["hr"], "hu": ["hu"], "id": ["id"],
    "it": ["it"], "ja": ["ja"], "ko": ["ko"], "lt": ["lt"], "lv": ["lv"], "nb": ["nb"],
    "nl": ["nl"], "pl": ["pl"], "pt": ["pt", "pt_BR"], "ro": ["ro"], "ru": ["ru"], "sk": ["sk"],
    "sl": ["sl"], "sr": ["sr"], "sv": ["sv"], "tr": ["tr"], "uk": ["uk"], "vi": ["vi"],
    "zh": ["zh_CN"], "zt": ["zh_TW"],
}
LOCALE = {loc: code for code, locs in LANGS.items() for loc in locs}
MO = re.compile(r"^(?:\./)?usr/share/locale/([^/]+)/LC_MESSAGES/[^/]+\.mo$")
ACCEL = re.compile(r"(?<![\w&])[_&~](?=\w)|(?<=\w)_(?=\w)(?<![A-Z]_)|\(_\w\)|\(&\w\)")
FORMAT = re.compile(r"%(?:\d+\$)?[-+ #0']*(?:\d+|\*)?(?:\.\d+)?(?:hh|h|ll|l|L|q|j|z|t|I)?"
                    r"[diouxXeEfFgGaAcspnm%@]|%\([^)]*\)[a-zA-Z]|\{[^{}]*\}|<[^<>]*>|\$\{?\w+\}?"
                    r"|&[A-Za-z]+;|&#\d+;")
LETTER = re.compile(r"[^\W\d_]")
BANDS = ((20, 60, "20-60"), (60, 200, "60-200"), (200, 10 ** 9, "200+"))


def band_of(text):
    for lo, hi, name in BANDS:
        if lo <= len(text) < hi:
            return name
    return None


def bucket(name):
    return int(hashlib.md5(name.encode("utf-8")).hexdigest(), 16) % 100


def download(debs):
    have = {f.split("_", 1)[0] for f in os.listdir(debs) if f.endswith(".deb")}
    missing = [n for n in PACKAGES if n not in have]
    if missing:
        subprocess.run(["apt-get", "download", "-q"] + missing, cwd=debs, check=True,
                       stdout=subprocess.DEVNULL)
    return {f.split("_", 1)[0]: os.path.join(debs, f) for f in sorted(os.listdir(debs))
            if f.endswith(".deb") and f.split("_", 1)[0] in PACKAGES}


def clean(s):
    s = FORMAT.sub(" ", s)
    s = ACCEL.sub("", s)
    s = " ".join(s.split())
    return s if len(LETTER.findall(s)) >= 3 else None


def read_deb(name, path):
    """{lang: [texts in catalog order]} of one package, the licence line of its copyright."""
    import tarfile
    out, licence = collections.defaultdict(list), "see copyright"
    english, seen_en = [], set()
    copyright_path = f"usr/share/doc/{name}/copyright"
    p = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", path], stdout=subprocess.PIPE)
    with tarfile.open(fileobj=p.stdout, mode="r|*") as tar:
        for m in tar:
            n = m.name[2:] if m.name.startswith("./") else m.name
            if not m.isfile():
                continue
            if n == copyright_path:
                t = tar.extractfile(m).read().decode("utf-8", "replace")
                g = re.search(r"^License:[ \t]*(\S.*)$", t, re.M)
                licence = g.group(1).strip() if g else "see copyright"
                continue
            mm = MO.match(n)
            if not mm or mm.group(1) not in LOCALE:
                continue
            try:
                entries = gettext_mo.read_mo(tar.extractfile(m).read(), n)
            except gettext_mo.MoError:
                continue
            lang = LOCALE[mm.group(1)]
            for _, src, tgt in entries:
                for part_s, part_t in [(src, tgt)]:
                    if part_s == part_t:
                        continue  # untranslated: English under another name
                    t, e = clean(part_t), clean(part_s)
                    if t:
                        out[lang].append(t)
                    if e and e not in seen_en:
                        seen_en.add(e)
                        english.append(e)
    p.stdout.close()
    p.wait()
    out["en"] = english
    version = subprocess.run(["dpkg-deb", "-f", path, "Version"], capture_output=True,
                             text=True).stdout.strip()
    return out, licence, version


def texts_by_band(texts):
    """(band, text) of a catalog's texts: each as it is, plus runs of short consecutive texts
    joined up to 200 code points for the 200+ band."""
    out, run = [], []
    for t in texts:
        b = band_of(t)
        if b:
            out.append((b, t))
        if len(t) < 200:
            run.append(t)
            if sum(len(x) + 1 for x in run) > 200:
                out.append(("200+", " ".join(run)))
                run = []
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--debs")
    ap.add_argument("--test-pct", type=int, default=25)
    ap.add_argument("--per-band", type=int, default=400)
    ap.add_argument("--sample")
    ap.add_argument("--sample-n", type=int, default=25)
    a = ap.parse_args()
    debs = a.debs or os.path.join(a.out, "debs")
    os.makedirs(debs, exist_ok=True)
    paths = download(debs)
    rng = random.Random(48)
    train, test = [], collections.defaultdict(list)
    counts = collections.Counter()
    pkgs = []
    for name, path in sorted(paths.items()):
        by_lang, licence, version = read_deb(name, path)
        held = bucket(name) < a.test_pct
        pkgs.append((name, version, licence, "test" if held else "train"))
        for lang, texts in sorted(by_lang.items()):
            uniq = list(dict.fromkeys(texts))
            if held:
                for b, t in texts_by_band(uniq):
                    test[(lang, b)].append((name, t))
            else:
                train.extend((lang, name, t) for t in uniq)
                counts[f"train {lang}"] += len(uniq)
    train_set = {t for _, _, t in train}
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "train.tsv"), "w", encoding="utf-8") as f:
        for lang, name, t in train:
            f.write(f"{lang}\t{name}\t{t}\n")
    rows = []
    for (lang, b), items in sorted(test.items()):
        items = [x for x in dict.fromkeys(items) if x[1] not in train_set]  # never a trained text
        rng.shuffle(items)
        for name, t in items[:a.per_band]:
            rows.append((lang, b, name, t))
        counts[f"test {lang} {b}"] = min(len(items), a.per_band)
    with open(os.path.join(a.out, "test.tsv"), "w", encoding="utf-8") as f:
        for r in rows:
            f.write("\t".join(r) + "\n")
    with open(os.path.join(a.out, "counts.json"), "w") as f:
        json.dump(dict(packages=pkgs, counts=counts), f, indent=1, sort_keys=True)
    if a.sample:
        os.makedirs(a.sample, exist_ok=True)
        per = collections.Counter()
        used = set()
        with open(os.path.join(a.sample, "test.tsv"), "w", encoding="utf-8") as f:
            for lang, b, name, t in rows:
                if per[(lang, b)] < a.sample_n:
                    per[(lang, b)] += 1
                    used.add(name)
                    f.write(f"{lang}\t{b}\t{name}\t{t}\n")
        with open(os.path.join(a.sample, "packages.tsv"), "w", encoding="utf-8") as f:
            f.write("package\tversion\tlicence\n")
            for name, version, licence, split in pkgs:
                if name in used:
                    f.write(f"{name}\t{version}\t{licence}\n")
    held = [p[0] for p in pkgs if p[3] == "test"]
    print(f"{len(pkgs)} packages, {len(held)} held out: {' '.join(held)}")
    print(f"{len(train)} training texts, {len(rows)} test texts")


if __name__ == "__main__":
    main()
