"""Converts pySBD's language test cases (github.com/nipunsadvilkar/pySBD, MIT licence, at
commit 5905f13) into tests/data/split/pysbd.jsonl: one {"lang", "set", "text", "sentences"}
per case. Run from a checkout of pySBD:  python3 split_import_pysbd.py PYSBD_DIR OUT
The test files are executed with stand-ins for pytest and pysbd (only their case lists are
read). A case is kept when its expected sentences occur in its text in order: cases of pySBD's
clean=True mode rewrite the text (joined lines, removed markup), which no splitter of the raw
text can match."""
import glob, json, os, sys, types

LANGS = {"amharic": "am", "arabic": "ar", "armenian": "hy", "bulgarian": "bg", "burmese": "my",
         "chinese": "zh", "danish": "da", "deutsch": "de", "dutch": "nl", "english": "en",
         "french": "fr", "greek": "el", "hindi": "hi", "italian": "it", "japanese": "ja",
         "kazakh": "kk", "marathi": "mr", "persian": "fa", "polish": "pl", "russian": "ru",
         "slovak": "sk", "spanish": "es", "urdu": "ur", "english_clean": "en"}

class _Mark:
    def __getattr__(self, name):
        return lambda *a, **k: (lambda f: f)

def stand_ins():
    pt = types.ModuleType("pytest")
    pt.mark = _Mark()
    pt.fixture = lambda *a, **k: a[0] if a and callable(a[0]) else (lambda f: f)
    pt.param = lambda *a, **k: tuple(a)
    sys.modules["pytest"] = pt
    sys.modules["pysbd"] = types.ModuleType("pysbd")

def in_order(text, sents):
    pos = 0
    for s in sents:
        k = text.find(s.strip(), pos)
        if k < 0:
            return False
        pos = k + len(s.strip())
    return True

def main(src, out):
    stand_ins()
    files = sorted(glob.glob(os.path.join(src, "tests/lang/test_*.py")))
    kept = dropped = 0
    with open(out, "w", encoding="utf-8") as f:
        for path in files:
            name = os.path.basename(path)[5:-3]
            if name not in LANGS:
                continue
            ns = {}
            exec(compile(open(path, encoding="utf-8").read(), path, "exec"), ns)
            for var, cases in sorted(ns.items()):
                if not var.isupper() or not isinstance(cases, list):
                    continue
                for c in cases:
                    if not (isinstance(c, tuple) and len(c) == 2 and isinstance(c[0], str)):
                        continue
                    text, sents = c[0], [s.strip() for s in c[1]]
                    if not in_order(text, sents):
                        dropped += 1
                        continue
                    kept += 1
                    f.write(json.dumps({"lang": LANGS[name], "set": var, "text": text,
                                        "sentences": sents}, ensure_ascii=False) + "\n")
    print(f"{kept} cases kept, {dropped} dropped", file=sys.stderr)

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
