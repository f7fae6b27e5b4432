# cli_jsonl.sh — --output-format jsonl: one strict JSON object per line with the translation,
# the target ids, the sequence log-probability and (--scores) the per-token log-probabilities.
# Oracle: PyTorch scoring xlate's ids by teacher forcing on the shipped weights loaded into
# nn.Transformer (tools/torch_model.py from_model_dir; log_softmax at each chosen id, eos
# included); source ids from the sentencepiece library.
. tests/cli/lib.sh
EN=tests/data/multi30k/test_2016_flickr.en
{ sed -n 101,124p "$EN"; echo; echo "  "; sed -n 125,130p "$EN"; } > "$T/in"
"$XLATE" -m models/en-de --threads 1 --output-format jsonl --scores -i "$T/in" > "$T/out.jsonl" 2> "$T/err"
expect_rc "jsonl --scores: exit 0" $? 0
"$XLATE" -m models/en-de --threads 1 -i "$T/in" > "$T/out.txt"
"$XLATE" -m models/en-de --threads 1 --output-format ids -i "$T/in" > "$T/out.ids"
"$XLATE" -m models/en-de --threads 1 --output-format jsonl -i "$T/in" > "$T/plain.jsonl"

"$PYTHON" - "$T" <<'EOF'
import json, sys
sys.path.insert(0, "tools")
T = sys.argv[1]
fails = 0
def check(what, cond, why=""):
    global fails
    print(("ok - " if cond else "not ok - ") + what + ("" if cond else ": " + why))
    fails += not cond

src = open(f"{T}/in", encoding="utf-8").read().split("\n")[:-1]
txt = open(f"{T}/out.txt", encoding="utf-8").read().split("\n")[:-1]
ids = [[int(x) for x in l.split()] for l in open(f"{T}/out.ids").read().split("\n")[:-1]]
raw = open(f"{T}/out.jsonl", "rb").read().split(b"\n")
check("one line per input line", raw[-1] == b"" and len(raw) - 1 == len(src), f"{len(raw) - 1} vs {len(src)}")
objs = []
for k, line in enumerate(raw[:-1]):
    try:
        objs.append(json.loads(line.decode("utf-8")))   # strict UTF-8, strict JSON
    except Exception as e:
        check(f"line {k + 1} is JSON", False, str(e)); objs.append({})
keys = ["translation", "ids", "logprob", "score", "finished", "token_logprobs", "sentences"]
check("every object has exactly the fields " + ", ".join(keys),
      all(list(o.keys()) == keys for o in objs), str([list(o.keys()) for o in objs][:2]))
check("translation equals the text output", [o.get("translation") for o in objs] == txt)
check("ids equal the ids output", [o.get("ids") for o in objs] == ids)
check("token_logprobs: one per id, plus eos when finished",
      all(len(o["token_logprobs"]) == len(o["ids"]) + o["finished"] for o in objs))
check("logprob is the sum of token_logprobs (1e-4)",
      all(abs(sum(o["token_logprobs"]) - o["logprob"]) < 1e-4 for o in objs))
check("greedy: score equals logprob", all(o["score"] == o["logprob"] for o in objs))
blank = [k for k, s in enumerate(src) if not s.strip()]
check("empty and blank lines: empty translation, no ids, eos alone with log-probability 0",
      all(objs[k] == {"translation": "", "ids": [], "logprob": 0, "score": 0, "finished": True,
                      "token_logprobs": [0], "sentences": []} for k in blank),
      str([objs[k] for k in blank]))
plain = [json.loads(l) for l in open(f"{T}/plain.jsonl", encoding="utf-8")]
check("without --scores: no token_logprobs, the same logprob",
      all("token_logprobs" not in p and p["logprob"] == o["logprob"] for p, o in zip(plain, objs)))

# The oracle: PyTorch teacher forcing on the shipped weights.
import torch, sentencepiece as spm
import torch_model as tm
model = tm.from_model_dir("models/en-de")
sp = spm.SentencePieceProcessor(model_file="models/en-de/spm.model")
worst_seq = worst_tok = 0.0
for k, o in enumerate(objs):
    if k in blank:
        continue
    s = torch.tensor([sp.encode(src[k]) + [tm.EOS]])
    chosen = o["ids"] + ([tm.EOS] if o["finished"] else [])
    tgt = torch.tensor([[tm.BOS] + chosen[:-1]]) if chosen else None
    logits = tm.teacher_forced_logits(model, s, torch.zeros_like(s, dtype=torch.bool), tgt)
    lp = torch.log_softmax(logits[0].double(), -1)
    tok = [float(lp[i, t]) for i, t in enumerate(chosen)]
    worst_tok = max(worst_tok, max(abs(a - b) for a, b in zip(tok, o["token_logprobs"])))
    worst_seq = max(worst_seq, abs(sum(tok) - o["logprob"]))
n = len(objs) - len(blank)
check(f"logprob equals PyTorch's sum of log_softmax at the chosen ids, {n} sentences (worst {worst_seq:.2e} < 1e-3)", worst_seq < 1e-3)
check(f"token_logprobs equal PyTorch's (worst {worst_tok:.2e} < 1e-4)", worst_tok < 1e-4)
sys.exit(fails > 0)
EOF
[ $? -eq 0 ] || fails=$((fails + 1))

# Without a tokenizer: no "translation"; ids equal PyTorch's greedy ids (the fixture's).
F=tests/fixtures/parity/post_relu_tied
"$XLATE" -m "$F" --input-format ids --output-format jsonl --max-length "$(cat "$F/max_length")" \
  < "$F/src.ids" > "$T/f.jsonl" 2> "$T/err"
expect_rc "jsonl without a tokenizer: exit 0" $? 0
"$PYTHON" -c 'import json,sys; print("\n".join(" ".join(map(str, json.loads(l)["ids"])) + ("" if "translation" not in json.loads(l) else " translation!") for l in open(sys.argv[1])))' "$T/f.jsonl" > "$T/f.ids"
if cmp -s "$T/f.ids" "$F/greedy.ids"; then ok "jsonl without a tokenizer: ids are PyTorch's greedy ids, no translation field"
else notok "jsonl without a tokenizer: ids are PyTorch's greedy ids, no translation field" "$(diff "$T/f.ids" "$F/greedy.ids" | head -4)"; fi

# n-best: N objects in "hypotheses", best first; text and ids: N lines "i ||| hyp ||| score".
printf 'A dog runs.\n\nTwo men talk.\n' > "$T/nb.en"
"$XLATE" -m models/en-de --threads 1 --beam-size 4 --n-best 3 --output-format jsonl -i "$T/nb.en" > "$T/nb.jsonl"
"$PYTHON" -c '
import json, sys
o = [json.loads(l) for l in open(sys.argv[1])]
assert len(o) == 3 and all(len(x["hypotheses"]) == 3 for x in o), "3 objects of 3"
for x in o:
    s = [h["score"] for h in x["hypotheses"]]
    assert s == sorted(s, reverse=True), "best first"
assert all(h["translation"] == "" for h in o[1]["hypotheses"]), "empty line"
' "$T/nb.jsonl" 2> "$T/err"
expect_rc "jsonl --n-best 3: three hypotheses per line, best first" $? 0
"$XLATE" -m models/en-de --threads 1 --beam-size 4 --n-best 3 -i "$T/nb.en" > "$T/nb.txt"
expect_eq "text --n-best 3: 3 lines per input line" "$(wc -l < "$T/nb.txt")" 9
expect_eq "text --n-best 3: 'i ||| text ||| score', i from 0" "$(cut -d' ' -f1 "$T/nb.txt" | tr '\n' ' ')" "0 0 0 1 1 1 2 2 2 "
expect_grep "text --n-best 3: the format" "$T/nb.txt" '^2 \|\|\| Zwei .* \|\|\| -[0-9]+\.[0-9]{6}$'
"$XLATE" -m models/en-de --threads 1 --beam-size 4 --n-best 3 --output-format ids -i "$T/nb.en" > "$T/nb.ids"
expect_grep "ids --n-best 3: ids between the bars" "$T/nb.ids" '^0 \|\|\| [0-9 ]+ \|\|\| -[0-9]+\.[0-9]{6}$'
finish
