"""Scores `xlate split` on sentence-boundary test sets (docs/SPLITTING.md).
  python3 tools/split_eval.py [--xlate ./xlate] [--show LANG] tests/data/split/pysbd.jsonl
A case passes when its sentences, exactly, are the expected ones. A case's text is split at
its newlines first and each line split by itself, as xlate reads its input a line at a time.
Prints one line per (language, set) and per language: cases passed / cases."""
import argparse, collections, json, subprocess

def split_lines(xlate, lang, lines):
    p = subprocess.run([xlate, "split", "--output-format", "jsonl"] +
                       (["--source-lang", lang] if lang else []),
                       input="\n".join(lines).encode() + b"\n", capture_output=True, check=True)
    return [json.loads(l)["sentences"] for l in p.stdout.decode().splitlines()]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xlate", default="./xlate")
    ap.add_argument("--show", default="", help="print the failures of this language")
    ap.add_argument("--neutral", action="store_true", help="no --source-lang")
    ap.add_argument("sets", nargs="+")
    a = ap.parse_args()
    cases = [json.loads(l) for f in a.sets for l in open(f, encoding="utf-8")]
    by_lang = collections.defaultdict(list)
    for c in cases:
        by_lang[c["lang"]].append(c)
    per_set = collections.Counter(); per_set_ok = collections.Counter()
    for lang, cs in sorted(by_lang.items()):
        lines, owner = [], []
        for k, c in enumerate(cs):
            for line in c["text"].split("\n"):
                lines.append(line); owner.append(k)
        got = [[] for _ in cs]
        for k, s in zip(owner, split_lines(a.xlate, None if a.neutral else lang, lines)):
            got[k] += s
        ok_lang = 0
        for c, g in zip(cs, got):
            ok = g == c["sentences"]
            per_set[(lang, c["set"])] += 1; per_set_ok[(lang, c["set"])] += ok; ok_lang += ok
            if not ok and a.show in (lang, "all"):
                print("FAIL", lang, json.dumps(c["text"], ensure_ascii=False))
                print("   want", json.dumps(c["sentences"], ensure_ascii=False))
                print("   got ", json.dumps(g, ensure_ascii=False))
        print(f"{lang:3} all  {ok_lang:4d} / {len(cs):4d}  {100 * ok_lang / len(cs):5.1f}%")
    for (lang, s), n in sorted(per_set.items()):
        print(f"{lang:3} {s:32} {per_set_ok[(lang, s)]:4d} / {n:4d}")

if __name__ == "__main__":
    main()
