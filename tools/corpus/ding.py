"""The Ding German-English dictionary (Debian package trans-de-en, usr/share/trans/de-en).

A line is `German :: English`; each side lists senses separated by ` | ` (the same count on
both sides, sense i translating sense i), and a sense lists synonyms separated by `; `.
Annotations are in braces ({m}, {pl}, {adj}), brackets ([Br.], [comp.]), parentheses
(explanations one side gives and the other does not) and angle brackets (other spellings and
search words: <Aalmolche>); they are removed. Lines starting with '#'
are comments (the header: version, copyright, licence).

Pairs: sense by sense; within a sense, synonym by synonym when both sides list the same number,
else the first German with the first English. A sense is kept once per (German, English).
"""
import re
import subprocess
import tarfile

PACKAGES = ["trans-de-en"]
MEMBER = "usr/share/trans/de-en"
NOTE = re.compile(r"\{[^{}]*\}|\[[^\[\]]*\]|\([^()]*\)|<[^<>]*>")


def plain(text):
    prev = None
    while prev != text:  # nested notes: '(a (b) c)'
        prev, text = text, NOTE.sub("", text)
    return " ".join(text.split()).strip(" ;,")


def line_pairs(line):
    """The (English, German) pairs of one dictionary line (a list, maybe empty)."""
    if line.startswith("#") or " :: " not in line:
        return []
    de, en = line.rstrip("\n").split(" :: ", 1)
    de_senses, en_senses = de.split(" | "), en.split(" | ")
    if len(de_senses) != len(en_senses):
        de_senses, en_senses = de_senses[:1], en_senses[:1]
    out = []
    for ds, es in zip(de_senses, en_senses):
        dl = [plain(x) for x in ds.split("; ")]
        el = [plain(x) for x in es.split("; ")]
        pairs = zip(dl, el) if len(dl) == len(el) else [(dl[0], el[0])]
        out += [(e, d) for d, e in pairs if e and d and e != d]
    return out


def pairs(debs_dir):
    import glob
    path = sorted(glob.glob(f"{debs_dir}/trans-de-en_*.deb"))[-1]
    version = subprocess.run(["dpkg-deb", "-f", path, "Version"], capture_output=True,
                             text=True).stdout.strip()
    p = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", path], stdout=subprocess.PIPE)
    seen = set()
    with tarfile.open(fileobj=p.stdout, mode="r|*") as tar:
        for m in tar:
            if m.name.lstrip("./") != MEMBER:
                continue
            for line in tar.extractfile(m).read().decode("utf-8", "replace").splitlines():
                for en, de in line_pairs(line):
                    if (en, de) not in seen:
                        seen.add((en, de))
                        yield dict(src=en, tgt=de, unit="ding", origin=f"trans-de-en {version}")
    p.stdout.close(); p.wait()
