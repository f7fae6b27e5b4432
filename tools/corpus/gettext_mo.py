"""Read a GNU gettext .mo catalog into (context, msgid, msgstr) entries.

The format is GNU gettext's (manual, "The Format of GNU MO Files"): a 28-byte header of 32-bit
words in the file's byte order (magic 0x950412de; revision; N strings; offset O of the original
strings' table; offset T of the translations' table; hash table size and offset, unused here),
then two tables of N (length, offset) pairs. An original is "msgctxt\\x04msgid" when it has a
context and "msgid\\x00msgid_plural" when it has plural forms; the translation of a plural entry
is its forms joined by NUL. The entry with an empty msgid is the header (Content-Type, charset).

Python's gettext.GNUTranslations reads the same format, but folds plural forms into
(msgid, n) keys and drops contexts into one dict; we want every form paired with its source and
the context kept apart, so we read the tables ourselves (this file is the whole reader).
"""
import re
import struct

MAGIC = 0x950412de


class MoError(ValueError):
    pass


def read_mo(data, name="<mo>"):
    """data: bytes of a .mo file. Returns a list of (ctx or None, msgid, msgstr) str triples,
    one per plural form (msgid_plural pairs with msgstr[1]; further forms pair with it too and
    are skipped as duplicates of the form-1 source). Raises MoError naming `name` on a bad file."""
    if len(data) < 28:
        raise MoError(f"{name}: {len(data)} bytes, shorter than a .mo header (28)")
    for order in ("<", ">"):
        if struct.unpack(order + "I", data[:4])[0] == MAGIC:
            break
    else:
        raise MoError(f"{name}: magic {data[:4].hex()}, expected 950412de in either byte order")
    _, n, orig, trans = struct.unpack(order + "4I", data[4:20])
    if orig + 8 * n > len(data) or trans + 8 * n > len(data):
        raise MoError(f"{name}: string tables ({n} entries) run past the file's {len(data)} bytes")

    def string(table, i):
        length, off = struct.unpack(order + "2I", data[table + 8 * i: table + 8 * i + 8])
        if off + length > len(data):
            raise MoError(f"{name}: string {i} at {off}+{length} runs past the file")
        return data[off: off + length]

    raw = [(string(orig, i), string(trans, i)) for i in range(n)]
    charset = "utf-8"
    for k, v in raw:
        if k == b"":
            m = re.search(rb"charset=([A-Za-z0-9_.:-]+)", v)
            if m and m.group(1).lower() not in (b"charset",):
                charset = m.group(1).decode("ascii")
    out = []
    for k, v in raw:
        if k == b"":
            continue
        try:
            ks, vs = k.decode(charset), v.decode(charset)
        except (LookupError, UnicodeDecodeError):
            continue  # a catalog whose bytes are not its declared charset: skipped, counted by the caller
        ctx = None
        if "\x04" in ks:
            ctx, ks = ks.split("\x04", 1)
        srcs, tgts = ks.split("\x00"), vs.split("\x00")
        if len(srcs) == 1:
            out.append((ctx, srcs[0], tgts[0]))
        else:
            out.append((ctx, srcs[0], tgts[0]))
            if len(tgts) > 1:
                out.append((ctx, srcs[1], tgts[1]))
    return out
