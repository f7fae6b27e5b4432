"""protobuf_wire.py — base-128 varints of the protobuf wire format, enough to read and write
a SentencePiece ModelProto's fields by hand (test_spm_parity.py edits models with them;
bench/pair_pick.py makes a full-size one). Written from the format's documentation
(protobuf.dev, "Encoding": varints, 7 bits a byte, low group first, the top bit set on all
but the last)."""


def varint(b, i):
    """(value, index after it) of the varint at b[i]."""
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def enc_varint(v):
    """The varint bytes of v (>= 0)."""
    out = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        if v:
            out.append(c | 0x80)
        else:
            out.append(c)
            return bytes(out)
