"""xlate's own reader of PyTorch's pytorch_model.bin (src/model/zip_store.c, torch_pickle.c,
torch_bin.c) and of sharded checkpoints (src/model/weights.c), against torch.load of the same
files. Every file is written here by torch.save (python3-torch 1.13) or edited from one, in a
temporary directory; the expected values and verdicts come from torch.load and from the rules
in docs/FORMAT.md, never from xlate.

  - values: tensors of every storage type torch.save writes for a state dict (f32, f16, bf16,
    f64, i64, i32, i16, i8, u8, bool), scalars, empty tensors, a storage shared by several
    tensors (tied weights), views with an offset, strided views (a transpose, a step slice, an
    expanded stride 0), Module.state_dict() (its _metadata BUILD), a plain dict, nn.Parameter:
    build/tests/weights_dump prints every element as f32 / int, equal to torch.load's;
  - the zip: zip64 (Python's zipfile force_zip64), data descriptors (torch's own), entries
    rewritten by Python's zipfile; refused with a message: deflate, truncation at 9 points, a
    lying central directory (size, offset), overlapping entries, a storage record of the wrong
    size, a missing record, a big-endian byteorder record, "little" with junk after it (its
    bytes said), the legacy (pre-1.6) format;
  - the pickle: os.system, builtins.eval, a storage type called, a non-tensor entry, a view
    past its storage, an unknown opcode (the message names the global or opcode), and none of
    them runs anything (the os.system payload would create a file);
  - shards: pytorch_model.bin.index.json and model.safetensors.index.json load as one file;
    a tensor the index puts in the wrong shard, a tensor in two shards, a shard name with '/'
    or '..' are refused;
  - a MarianMT directory (tools/make_marian.py) with pytorch_model.bin only (f32 with tied
    weights sharing one storage; f16), or with 3 shards of either format, translates exactly
    as the same model as model.safetensors (greedy and beam, ids and text), and `xlate info`
    names the file.
Run by tests/run.sh with env XLATE, TEST_BUILD and Debian's /usr/bin/python3.
"""
import collections
import io
import json
import os
import pickle
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import torch

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, done, ok, not_ok  # noqa: E402
import oracle_memo as OM  # noqa: E402
from convert import tensor_bytes, write_safetensors  # noqa: E402
from torch_model import read_safetensors  # noqa: E402

XLATE = os.path.abspath(os.path.join(TOP, os.environ.get("XLATE", "./xlate")))
DUMP = os.path.abspath(os.path.join(TOP, os.environ.get("TEST_BUILD", "build/tests"),
                                    "weights_dump"))
TEST_EN = open(os.path.join(TOP, "tests", "data", "multi30k", "test_2016_flickr.en"),
               encoding="utf-8").read().split("\n")[:-1]


def dump(path):
    """(returncode, {name: (dtype, shape, values)} or the message)."""
    p = subprocess.run([DUMP, path], capture_output=True, text=True)
    if p.returncode:
        return p.returncode, p.stderr.strip()
    out = {}
    for line in p.stdout.split("\n"):
        if not line or line.startswith("ok "):
            continue
        name, dt, rest = line.split(" ", 2)
        shape_s, _, vals = rest.partition("]")
        shape = [int(x) for x in shape_s.strip("[").split(",") if x.strip()]
        out[name] = (dt, shape, vals.split())
    return 0, out


DT = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64",
      torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
      torch.uint8: "U8", torch.bool: "BOOL"}


def same_as_torch(path):
    """None when weights_dump's view of path equals torch.load's, else why not."""
    want = torch.load(path)
    rc, got = dump(path)
    if rc:
        return f"xlate refused it: {got}"
    if sorted(got) != sorted(want):
        return f"names {sorted(got)} vs torch {sorted(want)}"
    for k, t in want.items():
        dt, shape, vals = got[k]
        if dt != DT[t.dtype] or shape != list(t.shape):
            return f"{k}: {dt} {shape} vs torch {DT[t.dtype]} {list(t.shape)}"
        if t.dtype in (torch.float32, torch.float16, torch.bfloat16):
            a = np.array([np.float32(float(v)) for v in vals], dtype=np.float32)
            b = t.detach().float().contiguous().reshape(-1).numpy()
            if a.shape != b.shape or not np.array_equal(a.view(np.uint32), b.view(np.uint32)):
                return f"{k}: values {a[:6]} vs torch {b[:6]}"
        elif t.dtype in (torch.int64, torch.int32):
            if [int(v) for v in vals] != t.reshape(-1).tolist():
                return f"{k}: values differ"
    return None


def refused(path, want):
    """None when xlate refuses path with a message holding every string of want."""
    rc, msg = dump(path)
    if rc != 2:
        return f"exit {rc}, expected 2 ({msg if rc else 'accepted'})"
    miss = [w for w in want if w not in msg]
    return f"message [{msg}] lacks {miss}" if miss else None


def records(path):
    """The archive's records in order: [(name, bytes)]."""
    with zipfile.ZipFile(path) as z:
        return [(i.filename, z.read(i.filename)) for i in z.infolist()]


def rezip(recs, path, compress=zipfile.ZIP_STORED, zip64=False):
    """Writes recs as a zip by Python's zipfile (stored unless told, no data descriptors)."""
    with zipfile.ZipFile(path, "w", compression=compress) as z:
        for name, data in recs:
            if compress != zipfile.ZIP_STORED:
                z.writestr(name, data)
                continue
            with z.open(zipfile.ZipInfo(name), "w", force_zip64=zip64) as f:
                f.write(data)


def value_checks(tmp):
    g = torch.Generator().manual_seed(3)
    base = torch.randn(4, 6, generator=g)
    sd = collections.OrderedDict()
    sd["f32"] = base.clone()
    sd["f16"] = torch.randn(3, 5, generator=g).half()
    sd["bf16"] = torch.randn(7, generator=g).bfloat16()
    sd["f64"] = torch.randn(2, 2, generator=g).double()
    sd["i64"] = torch.tensor([[1, -2, 3], [2 ** 40, -(2 ** 40), 0]], dtype=torch.int64)
    sd["i32"] = torch.tensor([7, -8, 2 ** 31 - 1], dtype=torch.int32)
    sd["i16"] = torch.tensor([1, 2], dtype=torch.int16)
    sd["i8"] = torch.tensor([-1, 2], dtype=torch.int8)
    sd["u8"] = torch.tensor([255], dtype=torch.uint8)
    sd["bool"] = torch.tensor([True, False])
    sd["scalar"] = torch.tensor(2.5)
    sd["empty"] = torch.zeros(0, 4)
    sd["tied.a"] = base            # one storage, three names (tied weights)
    sd["tied.b"] = base
    sd["row2"] = base[2]           # offset 12, contiguous
    sd["cols"] = base[1:3, 2:5]    # offset, strided
    sd["transposed"] = base.t()
    sd["step"] = base[:, ::2]
    sd["expanded"] = torch.arange(3.0).reshape(3, 1).expand(3, 4)
    p = os.path.join(tmp, "values.bin")
    torch.save(sd, p)
    check("torch.save'd dtypes, scalars, empty, shared storage, offsets, strided views: as "
          "torch.load", lambda: same_as_torch(p))

    m = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.LayerNorm(4), torch.nn.Embedding(5, 3))
    p2 = os.path.join(tmp, "module.bin")
    torch.save(m.state_dict(), p2)
    check("Module.state_dict() (OrderedDict with _metadata): as torch.load",
          lambda: same_as_torch(p2))
    p3 = os.path.join(tmp, "plain.bin")
    torch.save({"w": torch.ones(2, 2).half(), "p": torch.nn.Parameter(torch.full((3,), -1.5))}, p3)
    check("a plain dict holding an nn.Parameter: as torch.load", lambda: same_as_torch(p3))
    p4 = os.path.join(tmp, "half_module.bin")
    torch.save(m.half().state_dict(), p4)
    check("a Module's state dict in f16: as torch.load", lambda: same_as_torch(p4))
    p5 = os.path.join(tmp, "bf16_module.bin")
    torch.save(m.bfloat16().state_dict(), p5)
    check("a Module's state dict in bf16: as torch.load", lambda: same_as_torch(p5))

    # the same records rewritten by Python's zipfile: no data descriptor, then zip64
    recs = records(p)
    q = os.path.join(tmp, "rezipped.bin")
    rezip(recs, q)
    check("the records rewritten by Python's zipfile (no data descriptors): as torch.load",
          lambda: same_as_torch(q))
    q64 = os.path.join(tmp, "zip64.bin")
    rezip(recs, q64, zip64=True)
    check("the records as zip64 entries (zip64 extra fields): as torch.load",
          lambda: same_as_torch(q64))
    return p


def zip_checks(tmp, good):
    raw = open(good, "rb").read()
    recs = records(good)
    prefix = recs[0][0].split("/")[0]

    def w(name, data):
        q = os.path.join(tmp, name)
        open(q, "wb").write(data)
        return q

    for cut in (4, 30, 100, len(raw) // 3, len(raw) // 2, len(raw) - 200, len(raw) - 60,
                len(raw) - 22, len(raw) - 1):
        q = w("cut.bin", raw[:cut])
        check(f"truncated at byte {cut} of {len(raw)}: refused, naming the file",
              lambda: refused(q, ["cut.bin"]))
    q = os.path.join(tmp, "deflate.bin")
    rezip(recs, q, compress=zipfile.ZIP_DEFLATED)
    check("a deflated entry: refused naming the entry and method 8",
          lambda: refused(q, ["compressed", "method 8", "deflate.bin"]))

    # the central directory lies: record data/0 claims more bytes than it has
    with zipfile.ZipFile(good) as z:
        infos = z.infolist()
    def central_of(name):
        i = 0
        while True:
            i = raw.index(b"PK\x01\x02", i)
            nlen = struct.unpack_from("<H", raw, i + 28)[0]
            if raw[i + 46:i + 46 + nlen].decode() == name:
                return i
            i += 4
    rec0 = prefix + "/data/0"
    c0 = central_of(rec0)
    bad = bytearray(raw)
    size0 = [i for i in infos if i.filename == rec0][0].file_size
    h0 = [i for i in infos if i.filename == rec0][0].header_offset
    h1 = min(i.header_offset for i in infos if i.header_offset > h0)
    lie = size0 + (h1 - h0) + 8  # past the next entry's local header
    struct.pack_into("<II", bad, c0 + 20, lie, lie)
    q = w("lying_size.bin", bytes(bad))
    check("a central directory size that runs over the next entry: refused (entries overlap)",
          lambda: refused(q, ["overlap", rec0]))
    bad = bytearray(raw)
    struct.pack_into("<I", bad, c0 + 42, 12)
    q = w("lying_offset.bin", bytes(bad))
    check("a central directory offset pointing into another record: refused",
          lambda: refused(q, [rec0, "local header"]))
    bad = bytearray(raw)
    struct.pack_into("<II", bad, c0 + 20, size0 - 4, size0 - 8)
    q = w("csize.bin", bytes(bad))
    check("stored size unlike the size: refused", lambda: refused(q, [rec0, "differs"]))

    # a storage record of the wrong size (the pickle says more elements than it holds)
    r2 = [(n, d[:-4] if n == rec0 else d) for n, d in recs]
    q = os.path.join(tmp, "short_storage.bin")
    rezip(r2, q)
    check("a storage record 4 bytes short of its declared size: refused naming the storage",
          lambda: refused(q, ['storage "0"', "holds", rec0]))
    r2 = [(n, d) for n, d in recs if n != rec0]
    q = os.path.join(tmp, "no_record.bin")
    rezip(r2, q)
    check("a storage without its record: refused", lambda: refused(q, ["no record", rec0]))
    r2 = recs + [(prefix + "/byteorder", b"big")]
    q = os.path.join(tmp, "big.bin")
    rezip(r2, q)
    check("byteorder \"big\": refused", lambda: refused(q, ["byteorder", "big"]))
    r2 = recs + [(prefix + "/byteorder", b"little\x00junk")]
    q = os.path.join(tmp, "little_junk.bin")
    rezip(r2, q)
    check("byteorder \"little\\0junk\": refused, its bytes said past \"little\" (issue 37)",
          lambda: refused(q, ["byteorder", "little\\x00junk"]))
    r2 = recs + [(prefix + "/byteorder", b"little")]
    q = os.path.join(tmp, "little.bin")
    rezip(r2, q)
    check("byteorder \"little\" (torch >= 2.1): read", lambda: same_as_torch(q))
    q = os.path.join(tmp, "legacy.bin")
    torch.save({"w": torch.ones(2)}, q, _use_new_zipfile_serialization=False)
    check("the legacy (pre-1.6) format: refused, saying so",
          lambda: refused(q, ["legacy.bin", "legacy"]))


class Evil:
    def __reduce__(self):
        return (os.system, ("touch " + EVIL_MARK,))


EVIL_MARK = ""


def pickle_checks(tmp, good):
    global EVIL_MARK
    recs = records(good)
    prefix = recs[0][0].split("/")[0]
    EVIL_MARK = os.path.join(tmp, "pwned")

    def with_pickle(name, obj=None, data=None):
        pk = data if data is not None else pickle.dumps(obj, protocol=2)
        q = os.path.join(tmp, name)
        rezip([(n, pk if n.endswith("/data.pkl") else d) for n, d in recs], q)
        return q

    q = with_pickle("evil.bin", {"w": Evil()})
    check("a pickle calling os.system: refused naming the global",
          lambda: refused(q, ["global", "system", "not allowed"]))
    check("... and nothing ran", lambda: "the payload ran" if os.path.exists(EVIL_MARK) else None)
    q = with_pickle("eval.bin", data=b"\x80\x02cbuiltins\neval\nX\x04\x00\x00\x001+1\x85R.")
    check("builtins.eval: refused naming it", lambda: refused(q, ["builtins.eval"]))
    q = with_pickle("storage_call.bin",
                    data=b"\x80\x02ctorch\nFloatStorage\n)R.")
    check("a storage type called: refused", lambda: refused(q, ["REDUCE", "FloatStorage"]))
    q = with_pickle("not_tensor.bin", {"w": 3})
    check("a state dict entry that is not a tensor: refused naming it",
          lambda: refused(q, ['"w"', "int", "expected a tensor"]))
    q = with_pickle("list.bin", [1, 2])
    check("a pickle of a list: refused", lambda: refused(q, ["list", "state dict"]))
    q = with_pickle("inst.bin", data=b"\x80\x02(i__main__\nX\n.")
    check("opcode INST: refused naming it", lambda: refused(q, ["INST", "not allowed"]))
    # a view past its storage: storage '0' is base's (24 floats): offset 20, 2x3 runs past
    past = (b"\x80\x02}(X\x01\x00\x00\x00wctorch._utils\n_rebuild_tensor_v2\n("
            b"(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpu"
            b"K\x18tQK\x14K\x02K\x03\x86K\x03K\x01\x86\x89}tRu.")
    q = with_pickle("past.bin", data=past)
    check("a view running past its storage: refused naming the storage",
          lambda: refused(q, ["runs past storage", '"0"', "24 elements"]))
    # issue 37: a storage of 2^62 elements (LONG1) was "a persistent id is not (...)"
    huge = past.replace(b"cpuK\x18t", b"cpu\x8a\x08" + (1 << 62).to_bytes(8, "little") + b"t")
    q = with_pickle("huge.bin", data=huge)
    check("a storage of 2^62 elements: refused saying the size is out of range",
          lambda: refused(q, ['storage "0"', "4611686018427387904 elements", "at most"]))
    inside = past.replace(b"K\x14K\x02", b"K\x12K\x02")
    q = with_pickle("inside.bin", data=inside)
    check("the same view at offset 18 (its last element is 23): read as torch.load",
          lambda: same_as_torch(q))


def marian_dir(tmp, name, args):
    d = os.path.join(tmp, name)
    OM.make_model(d, [sys.executable, os.path.join(TOP, "tools", "make_marian.py"), d] + args)
    return d


def xl(args, inp):
    p = subprocess.run([XLATE, "--split", "none", "-q"] + args, input=inp.encode(),
                       capture_output=True)
    if p.returncode:
        raise RuntimeError(p.stderr.decode())
    return p.stdout


def as_bin(src, dst, half):
    """dst: src with pytorch_model.bin (torch.save of the state dict, the embeddings tied as
    transformers ties them: one tensor under its four names) instead of model.safetensors."""
    shutil.copytree(src, dst)
    sd = read_safetensors(os.path.join(dst, "model.safetensors"))
    os.remove(os.path.join(dst, "model.safetensors"))
    sd = collections.OrderedDict((k, v.half() if half else v) for k, v in sd.items())
    if "model.shared.weight" in sd:
        for k in ("model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight",
                  "lm_head.weight"):
            if k not in sd:
                sd[k] = sd["model.shared.weight"]
    torch.save(sd, os.path.join(dst, "pytorch_model.bin"))
    return sd


def shard(src, dst, fmt, n=3):
    """dst: src's weights split into n shards of fmt ("bin" or "safetensors") with the index."""
    shutil.copytree(src, dst)
    sd = read_safetensors(os.path.join(dst, "model.safetensors"))
    os.remove(os.path.join(dst, "model.safetensors"))
    names = sorted(sd)
    wm = {}
    for i in range(n):
        part = names[i::n]
        fn = (f"pytorch_model-{i + 1:05d}-of-{n:05d}.bin" if fmt == "bin"
              else f"model-{i + 1:05d}-of-{n:05d}.safetensors")
        if fmt == "bin":
            torch.save({k: sd[k] for k in part}, os.path.join(dst, fn))
        else:
            write_safetensors(os.path.join(dst, fn), [(k, tensor_bytes(sd[k], "f32")) for k in part])
        for k in part:
            wm[k] = fn
    idx = ("pytorch_model.bin.index.json" if fmt == "bin" else "model.safetensors.index.json")
    json.dump({"metadata": {"total_size": 0}, "weight_map": wm}, open(os.path.join(dst, idx), "w"))
    return wm, idx


def marian_checks(tmp):
    texts = "\n".join(TEST_EN[:40]) + "\n"
    tied = marian_dir(tmp, "tied", ["--seed", "11"])
    f16 = marian_dir(tmp, "f16", ["--untied", "--bias", "--dtype", "f16", "--seed", "12"])
    ref = {k: [xl(["-m", d, "--beam-size", b] + o, texts) for b in ("1", "4")
               for o in ([], ["--output-format", "ids"])] for k, d in (("tied", tied), ("f16", f16))}
    tb = os.path.join(tmp, "tied_bin")
    as_bin(tied, tb, False)
    fb = os.path.join(tmp, "f16_bin")
    as_bin(f16, fb, True)
    for k, d in (("tied", tb), ("f16", fb)):
        got = [xl(["-m", d, "--beam-size", b] + o, texts) for b in ("1", "4")
               for o in ([], ["--output-format", "ids"])]
        check(f"MarianMT ({k}) from pytorch_model.bin only: greedy and beam 4, text and ids, "
              f"identical to model.safetensors on 40 lines",
              lambda: None if got == ref[k] else "differs")
    info = subprocess.run([XLATE, "info", tb], capture_output=True, text=True).stdout
    check("xlate info names pytorch_model.bin", lambda: None if "pytorch_model.bin" in info
          else info)
    for fmt in ("bin", "safetensors"):
        sdir = os.path.join(tmp, "shards_" + fmt)
        wm, idx = shard(tied, sdir, fmt)
        got = [xl(["-m", sdir, "--beam-size", b] + o, texts) for b in ("1", "4")
               for o in ([], ["--output-format", "ids"])]
        check(f"MarianMT in 3 {fmt} shards ({idx}): identical to model.safetensors",
              lambda: None if got == ref["tied"] else "differs")
        # the index puts a tensor in the wrong shard
        k = sorted(wm)[0]
        other = [f for f in set(wm.values()) if f != wm[k]][0]
        bad = dict(wm, **{k: other})
        ip = os.path.join(sdir, idx)
        json.dump({"weight_map": bad}, open(ip, "w"))
        check(f"{fmt} index naming the wrong shard for a tensor: refused naming both",
              lambda: refused(ip, [k, other, idx]))
        for evil in ("../x.bin", "/etc/passwd", ".hidden"):
            json.dump({"weight_map": dict(wm, **{k: evil})}, open(ip, "w"))
            check(f"{fmt} index naming the file \"{evil}\": refused",
                  lambda: refused(ip, [evil, "not a file name"]))
        json.dump({"weight_map": wm}, open(ip, "w"))
    # a tensor in two shards
    sdir = os.path.join(tmp, "shards_dup")
    wm, idx = shard(tied, sdir, "bin", n=2)
    files = sorted(set(wm.values()))
    k = [n for n in wm if wm[n] == files[0]][0]
    sd = torch.load(os.path.join(sdir, files[1]))
    sd[k] = torch.zeros(1)
    torch.save(sd, os.path.join(sdir, files[1]))
    check("a tensor in two shards: refused", lambda: refused(os.path.join(sdir, idx),
                                                             [k, "two shard files"]))


def main():
    tmp = tempfile.mkdtemp(prefix="xlate_torchbin_")
    try:
        good = value_checks(tmp)
        zip_checks(tmp, good)
        pickle_checks(tmp, good)
        marian_checks(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return done()


if __name__ == "__main__":
    sys.exit(main())
