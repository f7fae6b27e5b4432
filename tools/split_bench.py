"""Measures `xlate split` on sentence-segmented corpora (docs/SPLITTING.md): paragraphs made
of known sentences are split, and the splitter's boundaries compared with the known ones.
  python3 tools/split_bench.py --lang en --conllu en_ewt-ud-test.conllu          (paragraphs:
          the treebank's own "# newpar" when it has them, else groups of 2-6 sentences)
  python3 tools/split_bench.py --lang de --lines tests/data/multi30k/test_2016_flickr.de
          (one sentence a line, in groups of 2-6 consecutive lines)
Sentences are joined by one space. Prints paragraphs recovered exactly, boundary precision,
recall and F1, then the same for the paragraphs whose every sentence but the last ends with a
terminator (. ! ? … and closing quotes/brackets after them): a boundary after a sentence
without one cannot be found by any rule-based splitter.
  python3 tools/split_bench.py --lines tests/data/multi30k/train.en.gz --write-paragraphs OUT
          writes the first ~1 MB of such paragraphs, one a line (the speed test's input).
  python3 tools/split_bench.py --lang en --lines tests/data/multi30k/test_2016_flickr.en \
          --lower 0.5 [--translate]
          lowercase-initial sentences, boundaries known by construction: every sentence given a
          terminator (a full stop added where it has none) and, for the given share of them
          (drawn with a fixed seed), its first letter lowercased. --translate also translates
          each paragraph with `xlate --paragraphs` and counts those equal to the sentence-wise
          translation (each sentence alone with --split none, joined by a space)."""
import argparse, gzip, json, random, re, subprocess

GROUPS = [2, 3, 4, 5, 6]  # sizes used in turn: deterministic, no randomness
TERM = re.compile(r"[.!?\u2026\u3002\uff01\uff1f][\"'\u201d\u2019\u00bb)\]]*$")

def conllu_paragraphs(path):
    paras, cur, has_par = [], [], False
    for line in open(path, encoding="utf-8"):
        if line.startswith("# newpar") or line.startswith("# newdoc"):
            has_par = True
            if cur:
                paras.append(cur)
            cur = []
        elif line.startswith("# text = "):
            cur.append(line[len("# text = "):].rstrip("\n").strip())
    if cur:
        paras.append(cur)
    if not has_par:
        return groups([s for p in paras for s in p])
    return [p for p in paras if p]

def groups(sents):
    out, k, g = [], 0, 0
    while k < len(sents):
        n = GROUPS[g % len(GROUPS)]
        out.append(sents[k:k + n])
        k += n
        g += 1
    return out

def lowered(sents, share, seed=36):
    """The sentences with a terminator each and the first letter of a share of them
    lowercased: the boundaries stay where they were, known by construction."""
    rng, out = random.Random(seed), []
    for s in sents:
        if not TERM.search(s):
            s += "."
        if rng.random() < share:
            s = s[:1].lower() + s[1:]
        out.append(s)
    return out

def translate_share(xlate, paras):
    """Paragraphs whose `xlate --paragraphs` translation equals the sentence-wise one."""
    uniq = sorted({s for p in paras for s in p})
    run = lambda args, text: subprocess.run([xlate, "-q"] + args, input=text.encode(),
                                            capture_output=True, check=True).stdout.decode()
    alone = dict(zip(uniq, run(["--split", "none"], "\n".join(uniq) + "\n").split("\n")))
    got = run(["--paragraphs"], "\n\n".join(" ".join(p) for p in paras) + "\n").split("\n\n")
    got = [g.strip("\n") for g in got]
    want = [" ".join(alone[s] for s in p) for p in paras]
    return sum(g == w for g, w in zip(got, want)), [k for k in range(len(paras))
                                                   if k >= len(got) or got[k] != want[k]]

def run_split(xlate, lang, texts):
    args = [xlate, "split", "--output-format", "jsonl"] + (["--source-lang", lang] if lang else [])
    p = subprocess.run(args, input=("\n".join(texts) + "\n").encode(), capture_output=True,
                       check=True)
    return [json.loads(l)["sentences"] for l in p.stdout.decode().splitlines()]

def offsets(text, parts):
    pos, out = 0, []
    for s in parts:
        k = text.find(s, pos)
        out.append(k)
        pos = k + len(s)
    return set(out[1:])

def score(paras, got):
    exact = tp = fp = fn = 0
    for sents, g in zip(paras, got):
        text = " ".join(sents)
        gold, pred = offsets(text, sents), offsets(text, g)
        exact += g == sents
        tp += len(gold & pred); fp += len(pred - gold); fn += len(gold - pred)
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return exact, len(paras), p, r, f, tp + fn

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--xlate", default="./xlate")
    ap.add_argument("--lang", default="")
    ap.add_argument("--conllu")
    ap.add_argument("--lines")
    ap.add_argument("--show", type=int, default=0, help="print this many wrong paragraphs")
    ap.add_argument("--write-paragraphs", help="write ~1 MB of paragraphs here and stop")
    ap.add_argument("--lower", type=float, default=0.0,
                    help="terminate every sentence and lowercase the first letter of this share")
    ap.add_argument("--translate", action="store_true",
                    help="also count paragraphs translated as their sentences one by one")
    a = ap.parse_args()
    if a.write_paragraphs:
        op = gzip.open if a.lines.endswith(".gz") else open
        sents = [l.strip() for l in op(a.lines, "rt", encoding="utf-8") if l.strip()]
        out, size = [], 0
        for p in groups(sents):
            if size >= 1 << 20:
                break
            out.append(" ".join(p))
            size += len(out[-1].encode()) + 1
        open(a.write_paragraphs, "w", encoding="utf-8").write("\n".join(out) + "\n")
        return
    if a.conllu:
        paras = conllu_paragraphs(a.conllu)
    else:
        sents = [l.strip() for l in open(a.lines, encoding="utf-8") if l.strip()]
        paras = groups(lowered(sents, a.lower) if a.lower else sents)
    paras = [p for p in paras if all("\n" not in s for s in p)]
    got = run_split(a.xlate, a.lang, [" ".join(p) for p in paras])
    term = [k for k, p in enumerate(paras) if all(TERM.search(s) for s in p[:-1])]
    for name, idx in (("all", range(len(paras))), ("terminated", term)):
        e, n, p, r, f, b = score([paras[k] for k in idx], [got[k] for k in idx])
        print(f"{name:10} paragraphs {e}/{n} exact ({100 * e / max(n, 1):.1f}%), "
              f"{b} boundaries: P {100 * p:.1f} R {100 * r:.1f} F1 {100 * f:.1f}")
    if a.translate:
        same, bad = translate_share(a.xlate, paras)
        print(f"translated  paragraphs {same}/{len(paras)} as the sentence-wise translation "
              f"({100 * same / max(len(paras), 1):.1f}%)")
        for k in bad[:a.show]:
            print("SPLIT", json.dumps(got[k], ensure_ascii=False))
    shown = 0
    for k in term:
        if got[k] != paras[k] and shown < a.show:
            print("WANT", json.dumps(paras[k], ensure_ascii=False))
            print("GOT ", json.dumps(got[k], ensure_ascii=False))
            shown += 1

if __name__ == "__main__":
    main()
