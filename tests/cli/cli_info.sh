# cli_info.sh — `xlate info` against the model's real values: the parameter count and the
# architecture of the nn.Transformer that PyTorch builds and loads the shipped weights into
# (strict load: torch checks every name and shape; tools/torch_model.py from_model_dir), the vocabulary from the
# sentencepiece library, file sizes from wc -c; --json; the languages and description from
# config.json (and none without the field); a model that does not load.
. tests/cli/lib.sh
M=models/en-de

"$XLATE" info "$M" > "$T/info" 2> "$T/err"
expect_rc "info: exit 0" $? 0
expect_eq "info: nothing on stderr" "$(cat "$T/err")" ""
"$XLATE" info --json "$M" > "$T/info.json" 2> "$T/err"
expect_rc "info --json: exit 0" $? 0

"$PYTHON" - "$T" "$M" <<'EOF' > "$T/want"
import sys, torch, sentencepiece as spm
sys.path.insert(0, "tools")
import torch_model as tm
T, M = sys.argv[1:]
model = tm.from_model_dir(M)
sd, a = model.state_dict(), model.args
n = sum(v.numel() for v in sd.values())
d, heads, ff, layers = a["d"], a["heads"], a["ff"], a["layers"]
dec = a.get("dec_layers", layers)
vocab = sd["emb.weight"].shape[0]
pieces = spm.SentencePieceProcessor(model_file=f"{M}/spm.model").get_piece_size()
dtypes = sorted({str(v.dtype) for v in sd.values()})
print(f"parameters {n}")
print(f"architecture transformer, {layers} encoder + {dec} decoder layers, {'pre' if a.get('norm_first') else 'post'}-norm, {a.get('activation', 'relu')}")
print(f"size d_model {d}, {heads} heads of {d // heads}, ffn {ff}")
print(f"vocabulary {vocab} pieces {pieces}")
print(f"dtypes {' '.join(dtypes)}")
EOF
want() { sed -n "s/^$1 //p" "$T/want"; }
field() { sed -n "s/^$1  *//p" "$T/info"; }
n=$(want parameters)
expect_eq "parameters: PyTorch's count ($n)" "$(field parameters | cut -d' ' -f1)" "$n"
expect_eq "architecture: PyTorch's" "$(field architecture)" "$(want architecture)"
expect_eq "size: PyTorch's" "$(field size)" "$(want size)"
v=$(want vocabulary | cut -d' ' -f1); p=$(want vocabulary | cut -d' ' -f3)
expect_eq "vocabulary: the embedding's rows" "$(field vocabulary | cut -d, -f1,2)" "source $v, target $v"
expect_eq "dtypes: PyTorch's (float32), every parameter" "$(want dtypes)|$(field dtypes)" "torch.float32|F32 $n"
expect_eq "tokenizer: size and the sentencepiece library's piece count" "$(field tokenizer)" \
  "spm.model, $(wc -c < "$M/spm.model") bytes ($(awk -v b="$(wc -c < "$M/spm.model")" 'BEGIN { printf "%.1f kB", b / 1e3 }')), $p pieces"
expect_grep "weights: exact size" "$T/info" "^weights  +model.safetensors, $(wc -c < "$M/model.safetensors") bytes \("
expect_grep "config: exact size" "$T/info" "^config  +config.json, $(wc -c < "$M/config.json") bytes"
expect_grep "special ids: the layout's pad 0, unk 1, bos 2, eos 3" "$T/info" '^special ids +pad 0, unk 1, bos 2, eos 3$'
expect_grep "loads: yes" "$T/info" '^loads +yes$'

"$PYTHON" - "$T/info.json" "$M" "$n" <<'EOF'
import json, os, sys
j = json.load(open(sys.argv[1])); M = sys.argv[2]; n = int(sys.argv[3])
cfg = json.load(open(f"{M}/config.json"))
checks = [
    ("--json: config is config.json as it is", j["config"] == cfg),
    ("--json: parameters", j["parameters"] == n and j["dtypes"] == {"F32": n}),
    ("--json: file sizes", j["files"] == {f: os.path.getsize(f"{M}/{f}") for f in ("config.json", "model.safetensors", "spm.model")}),
    ("--json: loads", j["loads"] is True and "error" not in j),
]
for what, good in checks:
    print(("ok - " if good else "not ok - ") + what + ("" if good else f": {j}"))
EOF
[ $? -eq 0 ] || notok "--json: checked" "python failed"

# What the model is for: config.json's "description" (the model directory's data, not the
# program's), wrapped under its label; its languages from config.json's source_lang/target_lang
"$PYTHON" - "$M/config.json" > "$T/desc" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
print(c["source_lang"], c["target_lang"]); print(c["description"])
EOF
read -r sl tl < "$T/desc"; desc=$(sed -n 2p "$T/desc")
expect_eq "languages: config.json's source_lang -> target_lang" "$(field languages)" "$sl -> $tl"
got=$(awk '/^description / { on = 1; sub(/^description +/, ""); printf "%s", $0; next }
           on && /^  / { sub(/^ +/, " "); printf "%s", $0; next } { on = 0 }' "$T/info")
expect_eq "description: config.json's text, whole" "$got" "$desc"
case $desc in
  *"image captions"*"Helsinki-NLP/opus-mt-en-de"*) ok "description: says captions and names a real model" ;;
  *) notok "description: says captions and names a real model" "$desc" ;;
esac
if awk 'length($0) > 80 && /^(description|  )/ { bad = 1 } END { exit bad }' "$T/info"; then
  ok "description: wrapped within 80 columns"
else
  notok "description: wrapped within 80 columns" "a line is longer"
fi
expect_eq "--json: description and languages" "$("$PYTHON" -c 'import json,sys; j = json.load(open(sys.argv[1])); print(j["source_lang"], j["target_lang"]); print(j["description"])' "$T/info.json")" "$(cat "$T/desc")"
# the same model without the field: no description line, no "description" member, no warning
mkdir "$T/nodesc"; cp "$M/model.safetensors" "$M/spm.model" "$T/nodesc/"
"$PYTHON" -c 'import json,sys; c = json.load(open(sys.argv[1])); del c["description"]; json.dump(c, open(sys.argv[2], "w"), indent=2)' \
  "$M/config.json" "$T/nodesc/config.json"
"$XLATE" info "$T/nodesc" > "$T/nd" 2> "$T/err"
expect_rc "no description: exit 0" $? 0
expect_eq "no description: nothing on stderr" "$(cat "$T/err")" ""
if grep -q '^description' "$T/nd"; then notok "no description: no description line" "$(grep '^description' "$T/nd")"; else ok "no description: no description line"; fi
expect_grep "no description: the languages still shown" "$T/nd" "^languages +$sl -> $tl\$"
"$XLATE" info --json "$T/nodesc" > "$T/nd.json"
expect_eq "no description: --json has none" "$("$PYTHON" -c 'import json,sys; print("description" in json.load(open(sys.argv[1])))' "$T/nd.json")" "False"
# a description with a control character (an escape sequence for the terminal) is refused
"$PYTHON" -c 'import json,sys; c = json.load(open(sys.argv[1])); c["description"] = "captions \x1b[2J"; json.dump(c, open(sys.argv[2], "w"))' \
  "$M/config.json" "$T/nodesc/config.json"
"$XLATE" info "$T/nodesc" > "$T/nd" 2> "$T/err"
expect_rc "a control character in the description: exit 2" $? 2
expect_grep "a control character in the description: named" "$T/err" 'field "description": expected text without control characters, got byte 0x1b at offset 9'

# The default model, -m, a model without a tokenizer
"$XLATE" info -m "$M" > "$T/info2"
if cmp -s "$T/info" "$T/info2"; then ok "info -m DIR: the same"; else notok "info -m DIR: the same" "differs"; fi
F=tests/fixtures/parity/post_relu_tied
"$XLATE" info "$F" > "$T/f" 2> "$T/err"
expect_rc "info on a model without a tokenizer: exit 0" $? 0
expect_grep "info on a model without a tokenizer: says ids only" "$T/f" '^tokenizer +none \(ids only\)$'

# A model that does not load: shown, then exit 2 with the reason
mkdir "$T/bad"; cp "$M/config.json" "$M/model.safetensors" "$T/bad/"; head -c 1000 "$M/spm.model" > "$T/bad/spm.model"
"$XLATE" info "$T/bad" > "$T/out" 2> "$T/err"
expect_rc "a broken tokenizer: exit 2" $? 2
expect_grep "a broken tokenizer: loads no, with the reason" "$T/out" "^loads +no: $T/bad/spm.model: "
expect_grep "a broken tokenizer: the reason on stderr" "$T/err" "^xlate: $T/bad/spm.model: "
rm "$T/bad/model.safetensors"
"$XLATE" info "$T/bad" > "$T/out" 2> "$T/err"
expect_rc "missing weights: exit 2" $? 2
expect_grep "missing weights: named" "$T/err" "$T/bad/model.safetensors: cannot open"
"$XLATE" info "$T/none" > "$T/out" 2> "$T/err"
expect_rc "missing directory: exit 2" $? 2
"$XLATE" info "$M" extra > "$T/out" 2> "$T/err"
expect_rc "two directories: usage error" $? 1
# Tied names in a pytorch_model.bin (NLLB: model.shared, encoder and decoder embed_tokens,
# lm_head) are views of one storage: counted once, as PyTorch's loader holds them (the sum over
# distinct storages of what torch.load returns)
"$PYTHON" tools/make_m2m100.py "$T/nllb" --d 16 --layers 1 --heads 2 --ffn 32 --format bin \
  --spm-vocab 300 > /dev/null 2>&1 || notok "make_m2m100.py: a tiny NLLB" "failed"
"$PYTHON" - "$T/nllb/pytorch_model.bin" > "$T/want" <<'EOF2'
import sys, torch
sd = torch.load(sys.argv[1])
seen = {}
for v in sd.values():
    seen.setdefault((v.storage().data_ptr(), v.storage_offset(), v.numel()), v.numel())
print(sum(seen.values()), len(sd), len(sd) - len(seen))
EOF2
read -r n all shared < "$T/want"
"$XLATE" info "$T/nllb" > "$T/out" 2> "$T/err"
expect_grep "tied names in a .bin: each storage counted once ($n, torch.load's distinct storages; $shared of $all names alias)" \
  "$T/out" "^parameters +$n \\([0-9.]*M\\) in $all tensors \\($shared of them another's storage, counted once\\)\$"
[ "$shared" -gt 0 ] || notok "the tiny NLLB ties its embeddings" "no alias in $T/nllb"
"$XLATE" info --json "$T/nllb" > "$T/out.json" 2> "$T/err"
expect_eq "--json: the tied count" "$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["parameters"])' "$T/out.json")" "$n"

"$XLATE" info --help > "$T/out"
expect_grep "info --help" "$T/out" '^Usage: xlate info'
finish
