#!/usr/bin/python3
"""make_corpus.py — writes the committed seed corpora fuzz/corpus/<target>/ and the BPE model
fuzz/models/bpe_bytes.model. Run from anywhere with Debian's /usr/bin/python3 and spm_train
(package sentencepiece); needs tests/data (Multi30k). Seeds are small (the whole corpus
stays well under 1 MB); the fuzzers grow their working corpora in build-fuzz/corpus/.

    /usr/bin/python3 fuzz/make_corpus.py

Seeds per target:
  config       every committed config.json, config.example.json, hand-made edge cases
  safetensors  complete weights for each of the three tiny configs in fuzz_safetensors.c
               (F32, F16, BF16; one with metadata and an unused integer tensor), and a few
               broken headers
  torch_bin    the same tiny weights as pytorch_model.bin images written by torch.save (F32, F16,
               BF16; Module-style OrderedDict; tied names sharing one storage; a transposed
               view; an offset view), a few broken ones
  spm_model    models trained here with spm_train: BPE + byte fallback (identity), unigram
               with a small custom charsmap (TSV rules), char, word, user-defined and control
               symbols with whitespace as suffix; each a few KB (no 240 KB nfkc charsmap)
  spm_text     sentences, unicode.txt, invalid UTF-8, NUL bytes, U+2581, long runs
  split        a language byte and text: abbreviations, ordinals, CJK, dots, lists, URLs,
               bytes and Unicode spaces
  ids_cli      an option byte and lines of ids (the fixture's sources, empty lines, CRLF,
               a missing final newline, bad tokens)
  html         small documents: every rule of docs/DOCUMENTS.md "HTML" once, malformed markup
               (misnesting, stray end tags, unclosed comments and scripts), references, bytes
  docs         a way byte and a document (fuzz_docs.c): SRT, WebVTT and PO texts; .docx, .pptx,
               .odt, .odp and .epub made by pandoc (and python-docx) from one caption text;
               WordprocessingML and DrawingML parts with fields, text boxes, hyperlinks

    /usr/bin/python3 fuzz/make_corpus.py docs     only these targets' seeds, the rest left as
                                                  they are
"""
import glob
import hashlib
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TDATA = os.path.join(ROOT, "tests", "data")
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def put(target, data, name=None):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    name = name or hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as fh:
        fh.write(data)


# ---- config ----
def configs():
    paths = [os.path.join(ROOT, "config.example.json"), os.path.join(ROOT, "models/en-de/config.json")]
    paths += sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/parity/*/config.json")))
    seen = set()
    for p in paths:
        data = open(p, "rb").read()
        if data not in seen:
            seen.add(data)
            put("config", data)
    base = ('"model_type": "transformer", "d_model": 4, "heads": 2, "ffn_dim": 8, '
            '"encoder_layers": 0, "decoder_layers": 1, "src_vocab_size": 5, "tgt_vocab_size": 5, '
            '"pad_id": 0, "unk_id": 1, "bos_id": 2, "eos_id": 3')
    put("config", "{" + base + "}", "minimal")
    put("config", "{" + base + ', "positions": "learned", "max_positions": 2, '
        '"activation": "gelu_tanh", "norm_placement": "pre", "layer_norm_eps": 1e-6, '
        '"embedding_scale": 1.5, "output_bias": true, "weights": "w.safetensors", '
        '"tokenizer": "src.model", "target_tokenizer": "tgt.model", "_doc": ["a", {"b": null}]}',
        "every-field")
    put("config", "{" + base + ', "shared_embeddings": true, "tied_output": true, '
        '"encoder_final_norm": false, "decoder_final_norm": false, "dropout": 0.1, '
        '"\\u00fcnknown\\n": 1}', "flags-unknown")
    put("config", "{" + base + ', "heads": 3}', "bad-heads")
    put("config", "{" + base + ', "d_model": 1e300}', "bad-huge")
    put("config", '{"model_type": "transformer", "d_model": 4, "d_model": 4}', "bad-twice")
    put("config", '[1, 2, {"model_type": "transformer"}]', "bad-array")


# ---- safetensors ----
TINY = [  # the configs of fuzz_safetensors.c: d, F, Vs, Vt, P, enc, dec, flags
    dict(d=4, F=4, Vs=6, Vt=6, P=4, enc=1, dec=1, shared=True, tied=True, learned=False,
         bias=False, enc_norm=True, dec_norm=True),
    dict(d=4, F=6, Vs=5, Vt=7, P=3, enc=1, dec=1, shared=False, tied=False, learned=True,
         bias=True, enc_norm=False, dec_norm=True),
    dict(d=2, F=2, Vs=4, Vt=4, P=2, enc=0, dec=2, shared=True, tied=True, learned=False,
         bias=True, enc_norm=False, dec_norm=False),
]


def tensors_for(c):
    d, F = c["d"], c["F"]
    t = [("encoder.embed.weight", [c["Vs"], d])]
    if not c["shared"]:
        t.append(("decoder.embed.weight", [c["Vt"], d]))
    if c["learned"]:
        t += [("encoder.positions.weight", [c["P"], d]), ("decoder.positions.weight", [c["P"], d])]

    def lin(p, o, i):
        return [(p + ".weight", [o, i]), (p + ".bias", [o])]

    def nrm(p):
        return [(p + ".weight", [d]), (p + ".bias", [d])]

    for l in range(c["enc"]):
        p = "encoder.layers.%d." % l
        for x in "qkvo":
            t += lin(p + "self_attn." + x, d, d)
        t += nrm(p + "self_attn_norm") + lin(p + "ffn.fc1", F, d) + lin(p + "ffn.fc2", d, F)
        t += nrm(p + "ffn_norm")
    for l in range(c["dec"]):
        p = "decoder.layers.%d." % l
        for x in "qkvo":
            t += lin(p + "self_attn." + x, d, d)
        t += nrm(p + "self_attn_norm")
        for x in "qkvo":
            t += lin(p + "cross_attn." + x, d, d)
        t += nrm(p + "cross_attn_norm") + lin(p + "ffn.fc1", F, d) + lin(p + "ffn.fc2", d, F)
        t += nrm(p + "ffn_norm")
    if c["enc_norm"]:
        t += nrm("encoder.final_norm")
    if c["dec_norm"]:
        t += nrm("decoder.final_norm")
    if not c["tied"]:
        t.append(("output.weight", [c["Vt"], d]))
    if c["bias"]:
        t.append(("output.bias", [c["Vt"]]))
    return t


def f16(x):
    return struct.pack("<e", x)


def bf16(x):
    return struct.pack("<f", x)[2:]


def safetensors(tensors, dtype, rng, extra=None, metadata=None):
    header, data = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, shape in tensors:
        n = 1
        for s in shape:
            n *= s
        vals = [round(rng.uniform(-1, 1), 3) for _ in range(n)]
        raw = b"".join({"F32": lambda v: struct.pack("<f", v), "F16": f16, "BF16": bf16}[dtype](v)
                       for v in vals)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    for name, dt, shape, raw in extra or []:
        header[name] = {"dtype": dt, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    import json
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + data


def safetensors_seeds():
    rng = random.Random(7)
    for i, (c, dt) in enumerate(zip(TINY, ["F32", "F16", "BF16"])):
        put("safetensors", safetensors(tensors_for(c), dt, rng), "tiny%d-%s" % (i, dt.lower()))
    put("safetensors", safetensors(tensors_for(TINY[0]), "F16", rng,
                                   extra=[("step", "I64", [2], struct.pack("<qq", 7, -1)),
                                          ("flags", "I32", [1, 1], struct.pack("<i", 3))],
                                   metadata={"format": "pt", "note": "unused tensors"}),
        "tiny0-meta-extra")
    put("safetensors", struct.pack("<Q", 2) + b"{}", "empty")
    h = (b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},'
         b'"b":{"dtype":"U8","shape":[],"data_offsets":[8,9]}}')
    put("safetensors", struct.pack("<Q", len(h)) + h + bytes(9), "two-small")


def torch_bin_seeds():
    """torch.save of the tiny configs' tensors into memory (the archive's folder is then
    "archive", and the bytes do not depend on a file name)."""
    import collections
    import io
    import torch
    rng = random.Random(11)

    def save(sd):
        b = io.BytesIO()
        torch.save(sd, b)
        return b.getvalue()

    def tensors(c, dt):
        sd = collections.OrderedDict()
        for name, shape in tensors_for(c):
            n = 1
            for x in shape:
                n *= x
            t = torch.tensor([round(rng.uniform(-1, 1), 3) for _ in range(n)]).reshape(shape)
            sd[name] = t.to(dt)
        return sd

    for i, (c, dt) in enumerate(zip(TINY, [torch.float32, torch.float16, torch.bfloat16])):
        put("torch_bin", save(tensors(c, dt)), "tiny%d-%s" % (i, str(dt).split(".")[1]))
    sd = tensors(TINY[0], torch.float32)
    # tied names sharing one storage, a transposed (strided) view, a view at an offset
    sd["decoder.embed.weight"] = sd["encoder.embed.weight"]
    sd["output.weight"] = sd["encoder.embed.weight"]
    w = sd["encoder.layers.0.self_attn.q.weight"]
    sd["encoder.layers.0.self_attn.q.weight"] = w.t().contiguous().t()
    big = torch.cat([sd["encoder.layers.0.ffn.fc1.bias"], sd["encoder.layers.0.ffn.fc2.bias"]])
    sd["encoder.layers.0.ffn.fc1.bias"] = big[:4]
    sd["encoder.layers.0.ffn.fc2.bias"] = big[4:]
    put("torch_bin", save(sd), "tiny0-shared-strided")
    m = torch.nn.Sequential(torch.nn.Linear(2, 3))
    put("torch_bin", save(m.state_dict()), "module-metadata")
    put("torch_bin", save({}), "empty")
    good = save(tensors(TINY[0], torch.float16))
    put("torch_bin", good[: len(good) // 2], "cut-half")


def strict_json_seeds():
    """Round 2 of docs/HARDENING.md: content after the JSON value, integral floats, a key twice,
    bad UTF-8, \\u0000, __metadata__ that is not an object of strings (all refused)."""
    base = ('"model_type": "transformer", "d_model": 4, "heads": 2, "ffn_dim": 8, '
            '"encoder_layers": 0, "decoder_layers": 1, "src_vocab_size": 5, "tgt_vocab_size": 5, '
            '"pad_id": 0, "unk_id": 1, "bos_id": 2')
    put("config", "{" + base + ', "eos_id": 3} garbage', "trail-garbage")
    put("config", "{" + base + ', "eos_id": 3}\n{"eos_id": 4}', "trail-object")
    put("config", "{" + base + ', "eos_id": 3}  \t\r\n', "trail-whitespace")
    put("config", "{" + base + ', "eos_id": 3.0}', "int-as-float")
    put("config", "{" + base + ', "eos_id": 3e0}', "int-with-exponent")
    put("config", "{" + base + ', "eos_id": 3, "_doc": {"x": 1, "x": 2}}', "dup-nested")
    put("config", "{" + base + ', "eos_id": 3, "tokenizer": "a\\u0000b"}', "nul-escape")
    put("config", ("{" + base + ', "eos_id": 3, "tokenizer": "').encode() + b'\xc0\xaf"}', "bad-utf8")
    rng = random.Random(11)
    good = safetensors(tensors_for(TINY[0]), "F32", rng)

    def with_header(img, edit):
        n = struct.unpack("<Q", img[:8])[0]
        h = edit(img[8:8 + n].rstrip(b" "))
        h += b" " * (-len(h) % 8)
        return struct.pack("<Q", len(h)) + h + img[8 + n:]
    put("safetensors", with_header(good, lambda h: h + b"}garbage"), "trail-garbage")
    put("safetensors", with_header(good, lambda h: h + b"{}"), "trail-object")
    put("safetensors", with_header(good, lambda h: h + b" " * 13), "pad-spaces")
    put("safetensors", with_header(good, lambda h: h.replace(b'"shape":[4', b'"shape":[4.0', 1)),
        "shape-float")
    put("safetensors", with_header(good, lambda h: b'{"__metadata__":{"step":3},' + h[1:]),
        "meta-number")
    put("safetensors", with_header(good, lambda h: b'{"__metadata__":"pt",' + h[1:]),
        "meta-string")


# ---- spm models ----
def train(tmp, name, args, inp):
    """Runs in tmp with relative names: the model records its input and prefix, and the bytes
    then do not depend on the temporary directory."""
    prefix = os.path.join(tmp, name)
    subprocess.run(["spm_train", "--input=" + os.path.basename(inp), "--model_prefix=" + name,
                    "--minloglevel=2",
                    "--num_threads=1", "--seed_sentencepiece_size=100000", "--random_seed=1"]
                   + [a.replace(tmp + "/", "") for a in args],
                   check=True, cwd=tmp)
    return open(prefix + ".model", "rb").read()


def spm_seeds():
    m30k = os.path.join(TDATA, "multi30k")
    tmp = tempfile.mkdtemp()
    try:
        joint = os.path.join(tmp, "joint.txt")
        with open(joint, "wb") as out:
            import gzip
            for f in ("train.en.gz", "train.de.gz"):
                with gzip.open(os.path.join(m30k, f), "rb") as fh:
                    out.write(b"".join(fh.readlines()[:3000]))
            out.write(open(os.path.join(TDATA, "tokenizer", "unicode.txt"), "rb").read())
        ident = ["--normalization_rule_name=identity"]
        bpe = train(tmp, "bpe_bytes", ["--model_type=bpe", "--vocab_size=600", "--byte_fallback=true",
                                       "--add_dummy_prefix=false", "--remove_extra_whitespaces=false",
                                       "--character_coverage=0.9995"] + ident, joint)
        os.makedirs(os.path.join(ROOT, "fuzz", "models"), exist_ok=True)
        with open(os.path.join(ROOT, "fuzz", "models", "bpe_bytes.model"), "wb") as fh:
            fh.write(bpe)
        put("spm_model", bpe, "bpe-byte-fallback")
        rules = os.path.join(tmp, "norm.tsv")
        with open(rules, "w") as fh:
            fh.write("41\t61\nDF\t73 73\nC4\t41 65\n3000\t20\n")
        derules = os.path.join(tmp, "denorm.tsv")
        with open(derules, "w") as fh:
            fh.write("73 73\tDF\n")
        put("spm_model", train(tmp, "uni_tsv", ["--model_type=unigram", "--vocab_size=120",
                                                "--normalization_rule_tsv=" + rules,
                                                "--denormalization_rule_tsv=" + derules], joint),
            "unigram-tsv-charsmap")
        put("spm_model", train(tmp, "char", ["--model_type=char", "--vocab_size=90",
                                             "--character_coverage=0.99"] + ident, joint), "char")
        put("spm_model", train(tmp, "word", ["--model_type=word", "--vocab_size=150"] + ident,
                               joint), "word")
        put("spm_model", train(tmp, "uni_sym", ["--model_type=unigram", "--vocab_size=110",
                                                "--user_defined_symbols=<sep>,Mann",
                                                "--control_symbols=<ctl>",
                                                "--treat_whitespace_as_suffix=true",
                                                "--split_digits=true",
                                                "--unk_surface=??"] + ident, joint),
            "unigram-symbols-suffix")
    finally:
        shutil.rmtree(tmp)


# ---- text ----
def text_seeds():
    m30k = os.path.join(TDATA, "multi30k")
    with open(os.path.join(m30k, "val.en"), "rb") as fh:
        en = fh.readlines()[:4]
    with open(os.path.join(m30k, "val.de"), "rb") as fh:
        de = fh.readlines()[:4]
    for i, line in enumerate(en + de):
        put("spm_text", line.rstrip(b"\n"), "sentence%d" % i)
    uni = open(os.path.join(TDATA, "tokenizer", "unicode.txt"), "rb").read().split(b"\n")
    for i, line in enumerate(l for l in uni if l):
        put("spm_text", line, "unicode%d" % i)
    put("spm_text", b"\xff\xfe\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82 \xc3", "invalid-utf8")
    put("spm_text", b"a\x00b\x00\x00 c", "nul")
    put("spm_text", "\u2581\u2581 lead\u2581trail\u2581 ", "space-symbol")
    put("spm_text", b"  \t tabs \r\n  and   spaces  ", "whitespace")
    put("spm_text", b"ab" * 300, "long-run")
    put("spm_text", b"", "empty")


# ---- sentences ----
def split_seeds():
    # first byte: the language (fuzz_split.c's list: 2 en, 3 de, 12 zh, 0 none)
    put("split", b"\x02Mr. Smith went to the U.S.A. on Jan. 5. He said \"hi!\" (Really.) J. R. R. Tolkien wrote 3.14 books... Fine?! Yes.", "en-rules")
    put("split", "\x03Am 12. Juni kam Dr. med. Meyer, z. B. mit 3,50 \u20ac. \u201eJa.\u201c Er ging. 1. Punkt 2. Punkt", "de-rules")
    put("split", "\x0c\u4eca\u5929\u5f88\u597d\u3002\u300a\u6454\u8de4\u5427\uff01\u7238\u7238\u300b\u597d\u5417\uff1f\u300c\u884c\u3053\u3046\u3002\u300d\u3068", "cjk")
    put("split", b"\x00" + b"." * 300 + b" . . . " + b"?!" * 50, "dots")
    put("split", b"\x02a) one b) two \xe2\x80\xa2 3. x \xe2\x80\xa2 4. y (c) z. www.x.org. mail@x.de. [1][2] ok.10 Next :-) ", "lists-urls")
    put("split", b"\x03\xff\xfe. \x00. \xc2\xa0.\xe3\x80\x80A.\xe2\x80\xa8b. \xed\xa0\x80", "bytes-spaces")
    put("split", b"", "empty")


# ---- ids ----
def ids_seeds():
    src = open(os.path.join(ROOT, "tests/fixtures/parity/post_relu_tied/src.ids"), "rb").read()
    put("ids_cli", b"\x00" + src, "fixture-greedy")
    put("ids_cli", b"\x1a" + src, "fixture-beam2-threads2-batch3")
    put("ids_cli", b"\xbd" + b"4 5 6\n\n   \n7 8\r\n9", "blank-crlf-unterminated")
    put("ids_cli", b"\x4b" + b"60 0 1 2 3\n\t4\t5 \n", "edges-tabs")
    put("ids_cli", b"\x00" + b"4 5\n6 x7\n8\n", "bad-token")
    put("ids_cli", b"\x03" + b"4\n61\n", "out-of-vocab")
    put("ids_cli", b"\x20" + b" ".join(b"%d" % (4 + i % 57) for i in range(600)) + b"\n", "too-long")


# ---- html ----
def html_seeds():
    put("html", '<!DOCTYPE html><html><head><title>A &amp; B</title><style>p{}</style>'
        '<script>if(a<b){x="</scr"+"ipt>"}</script></head><body><h1 title="T">A <b>big</b> dog'
        '</h1><p>The <a href=x title=\'L\'>quick <i>brown</i></a> fox<br>jumps <code>x()</code>.'
        '<ul><li>One<li>Two <img alt=pic src=a.png> end</ul><pre> kept </pre></body></html>',
        "page")
    put("html", "<p>a <b>b <i>c</b> d</i> e</p><b>x<p>y</b>z</p></span></b><P CLASS=X>Q</P>",
        "misnested")
    put("html", "<p>Run <code>make<p>install</code> now.<div translate=no>k <span translate=yes>"
        "t</span></div><span class='x notranslate'>n</span>", "keep")
    put("html", "<p>&copy 1 &notit; &#0; &#xD800; &#x110000; &#128; &#x9F; &NotEqualTilde; "
        "&zzz; &amp<a title='&copy=1&amp;'>x</a>", "references")
    put("html", "<table>A<tr><td>B<td>C<tr><th>D</table><select><option>E<option>F</select>"
        "<dl><dt>G<dd>H</dl>", "implied-ends")
    put("html", "<p>A <svg><title>i</title><p>b</svg> c <math><mi>x</mi></math><![CDATA[y]]>"
        "<!--> z <!---> <?pi?></> <p>w<script><!--<script></script>--></script>v", "foreign")
    put("html", b"<p>\x00a\xff\xfe b\xc3\x28 \xed\xa0\x80 c\r\n\td&nbsp;e\x0c</p>", "bytes")
    put("html", "<p>x</p><!-- never closed <p>y", "unclosed-comment")
    put("html", "<p>x</p><script>var s = '<p>y</p>';", "unclosed-script")
    put("html", "<div>" * 300 + "x" + "<span>" * 300 + "y", "deep")


def m2m_tok_seeds():
    """fuzz_m2m_tok: a first byte (bit 0: NLLB; 601 + 8 * (byte >> 1) ids), then
    tokenizer_config.json, special_tokens_map.json, vocab.json, added_tokens.json,
    tokenizer.json and a text, NUL-separated (an empty part: no such file)."""
    def seed(name, first, cfg=None, stm=None, vocab=None, added=None, tj=None, text=""):
        parts = [x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)
                 if x is not None else "" for x in (cfg, stm, vocab, added, tj)]
        put("m2m_tok", bytes([first]) + b"\0".join(p.encode() for p in parts) + b"\0" +
            text.encode(), name)
    codes = ["eng_Latn", "deu_Latn", "fra_Latn"]
    nllb, m2m = 0x21, 0x20  # 729 ids
    seed("nllb-plain", nllb, {"additional_special_tokens": codes, "src_lang": "eng_Latn"},
         text="A dog runs. eng_Latn </s> <mask> x")
    seed("nllb-map", nllb, None, {"additional_special_tokens": codes}, text="Ein Hund l\u00e4uft.")
    seed("nllb-tokenizer-json", nllb, {"additional_special_tokens": codes}, None, None, None,
         {"added_tokens": [{"id": 701, "content": "<ent>", "single_word": False, "lstrip": False,
                            "rstrip": True, "normalized": False, "special": False},
                           {"id": 702, "content": "man", "single_word": True, "lstrip": True,
                            "rstrip": False, "normalized": True, "special": False},
                           {"id": 703, "content": "<ent><", "special": False}]},
         "A man<ent>  walks\u3000man, <ent><ent><  woman")
    seed("nllb-added-tokens-json", nllb, {"additional_special_tokens": codes}, None, None,
         {"<x>": 700, " y": 704, "</s>": 2}, None, "a<x> y  y<x>")
    seed("nllb-decoder", nllb, {"additional_special_tokens": codes, "added_tokens_decoder": {
        "0": {"content": "<s>", "special": True}, "601": {"content": "eng_Latn", "special": True},
        "602": {"content": "deu_Latn", "special": True},
        "603": {"content": "fra_Latn", "special": True},
        "604": {"content": "<mask>", "lstrip": True, "special": True},
        "710": {"content": "ab", "single_word": True, "rstrip": True, "special": False}}},
         text="ab abab ab <mask>  fra_Latn")
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "\u2581a": 4, "\u2581dog": 5, "s": 6,
             "\u2581": 7}
    seed("m2m-plain", m2m, {"additional_special_tokens": ["__en__", "__de__"],
                            "tokenizer_class": "M2M100Tokenizer"},
         None, vocab, None, None, "a dogs __de__ </s> a")
    seed("m2m-added", m2m, {"additional_special_tokens": ["__en__", "__de__"]}, None, vocab,
         None, {"added_tokens": [{"id": 720, "content": "[X]", "lstrip": True, "rstrip": True}]},
         " a [X] dog[X]s ")
    seed("bad-id", nllb, {"additional_special_tokens": codes}, None, None, None,
         {"added_tokens": [{"id": 100000, "content": "<far>"}]}, "x")
    seed("bad-entry", nllb, {"additional_special_tokens": codes,
                             "added_tokens_decoder": {"x": "<a>"}})
    seed("bad-empty", nllb, {"additional_special_tokens": codes}, None, None, {"": 5}, None, "x")
    seed("bad-list", nllb, {"additional_special_tokens": codes}, None, None, None,
         {"added_tokens": 5})
    seed("bad-no-codes", nllb, {"src_lang": "eng_Latn"})
    # tokenizer.json skimmed for its added_tokens (src/base/json_member.c): a model before it
    # with brackets, quotes and escapes in its strings; a broken tail after it (never read);
    # cut before it; nested deeper than the skim follows; the key spelled with an escape (the
    # skim reads it as the key it spells); the key twice
    model = ('{"version": "1.0", "truncation": null, "model": {"type": "BPE", "vocab": '
             '{"\\u2581a": 4, "]}": 5, "\\"[{": 6, "\\\\": 7}, "merges": ["a b", "} {"]}, ')
    ent = '"added_tokens": [{"id": 705, "content": "<ent>", "rstrip": true}]'
    cfg = {"additional_special_tokens": codes}
    seed("tj-model-first", nllb, cfg, None, None, None, model + ent + "}", "a<ent> b]}")
    seed("tj-broken-tail", nllb, cfg, None, None, None,
         '{"added_tokens": [{"id": 706, "content": "xy"}], "model": {"vocab": [["a", 1', "axyb")
    seed("tj-cut-before", nllb, cfg, None, None, None, model[:70], "x")
    seed("tj-deep", nllb, cfg, None, None, None, '{"a": ' + "[" * 1100 + "]" * 1100 + ", " +
         ent + "}", "x")
    seed("tj-escaped-key", nllb, cfg, None, None, None,
         '{"added\\u005ftokens": [{"id": 707, "content": "q"}], ' + ent + "}", "q<ent>")
    seed("tj-twice", nllb, cfg, None, None, None,
         "{" + ent + ', "added_tokens": [{"id": 708, "content": "zz"}]}', "zz<ent>")
    seed("tj-literal", nllb, cfg, None, None, None, '{"added_tokens": 12}', "x")


# ---- docs ----
DOCS_MD = """# A dog runs in the park.

A man in a **blue shirt** is riding a *bike*.[^1] Run `ls -l` at https://example.com/x.

| A girl is jumping. | A boy is eating. |
|---|---|
| A cat sleeps. | Two men talk. |

[^1]: A man is holding a ball.
"""
DOCS_W = ('<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
          'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing">'
          '<w:body><w:p><w:pPr/><w:r><w:t xml:space="preserve">A man </w:t></w:r><w:r><w:rPr>'
          '<w:b/></w:rPr><w:t>runs</w:t><w:tab/></w:r><w:hyperlink r:id="x"><w:r><w:t>away'
          '</w:t></w:r></w:hyperlink><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r>'
          '<w:instrText> PAGE </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/>'
          '</w:r><w:r><w:t>1</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r><w:r>'
          '<w:drawing><wp:docPr id="1" descr="A dog."/><w:txbxContent><w:p><w:r><w:t>A cat.'
          '</w:t></w:r></w:p></w:txbxContent></w:drawing></w:r><w:r><w:rPr><w:noProof/>'
          '</w:rPr><w:t>code</w:t></w:r></w:p></w:body></w:document>')
DOCS_A = ('<p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
          'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cSld>'
          '<p:spTree><p:sp><p:nvSpPr><p:cNvPr id="2" name="T" descr="A dog."/></p:nvSpPr>'
          '<p:txBody><a:p><a:r><a:rPr b="1"/><a:t>A man</a:t></a:r><a:br/><a:r><a:rPr/><a:t> '
          'runs.</a:t></a:r><a:fld id="{1}" type="slidenum"><a:t>3</a:t></a:fld><a:endParaRPr/>'
          '</a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>')


def docs_seeds():
    put("docs", b"\0" + b"1\n00:00:01,000 --> 00:00:02,000\nA man is <i>riding</i>\n\n"
        b"2\n00:00:02,500 --> 00:00:04,000\na bike.\n", "srt")
    put("docs", b"\1" + b"WEBVTT\n\nNOTE x\n\nid1\n00:01.000 --> 00:02.000 line:0\n"
        b"<v Ann>A dog <b>runs</b>\n\n00:02.000 --> 00:03.000\nin the park.\n", "vtt")
    put("docs", b"\2" + b'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        b'#, c-format\nmsgid "%s and %d _files"\nmsgstr ""\n\nmsgctxt "a"\nmsgid "One <b>dog</b>"\n'
        b'msgid_plural "%d dogs"\nmsgstr[0] ""\nmsgstr[1] ""\n\n#~ msgid "old"\n#~ msgstr "alt"\n', "po")
    put("docs", b"\x08" + DOCS_W.replace("<w:document ", '<w:document xmlns:r="r" ').encode(), "word-part")
    put("docs", b"\x09" + DOCS_A.encode(), "drawing-part")
    tmp = tempfile.mkdtemp()
    try:
        md = os.path.join(tmp, "in.md")
        with open(md, "w") as f:
            f.write(DOCS_MD)
        for way, ext in ((3, "docx"), (4, "pptx"), (5, "odt"), (7, "epub")):
            out = os.path.join(tmp, "out." + ext)
            subprocess.run(["pandoc", md, "-o", out], check=True)
            with open(out, "rb") as f:
                data = f.read()
            if len(data) <= 65535:
                put("docs", bytes([way]) + data, ext)
    finally:
        shutil.rmtree(tmp)


SEEDS = {"docs": docs_seeds}


def main():
    if len(sys.argv) > 1:
        for t in sys.argv[1:]:
            shutil.rmtree(os.path.join(CORPUS, t), ignore_errors=True)
            SEEDS[t]()
        return
    if os.path.isdir(CORPUS):
        shutil.rmtree(CORPUS)
    configs()
    safetensors_seeds()
    torch_bin_seeds()
    strict_json_seeds()
    spm_seeds()
    text_seeds()
    split_seeds()
    ids_seeds()
    html_seeds()
    m2m_tok_seeds()
    docs_seeds()
    total = 0
    for t in sorted(os.listdir(CORPUS)):
        files = os.listdir(os.path.join(CORPUS, t))
        size = sum(os.path.getsize(os.path.join(CORPUS, t, f)) for f in files)
        total += size
        print("%-12s %3d files %7d bytes" % (t, len(files), size))
    print("total %d bytes" % total)


if __name__ == "__main__":
    main()
