/* test_torch_bin.c — the state-dict pickle machine (src/model/torch_pickle.c) on hand-assembled
 * opcodes: a valid state dict as torch.save writes one (checked against pickletools' reading,
 * by hand, below), and hostile pickles (a global outside the allow-list, huge counts and
 * lengths, deep nesting, memo abuse, views past their storage, truncation, trailing bytes),
 * each refused with a message naming the opcode or global and its byte offset. Files made by
 * torch.save itself are checked against torch.load in tests/py/test_torch_bin.py. */
#include "check.h"
#include "model/torch_pickle.h"
#include <stdlib.h>
#include <string.h>

#define S(lit) lit, sizeof lit - 1

/* {"w": _rebuild_tensor_v2(FloatStorage "0" of 6, offset 0, (2, 3), (3, 1), False, {})} */
#define STORAGE0 "(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x00" "0" \
                 "X\x03\x00\x00\x00" "cpuK\x06tQ"
#define REBUILD "ctorch._utils\n_rebuild_tensor_v2\n"
#define GOOD "\x80\x02}(X\x01\x00\x00\x00w" REBUILD "(" STORAGE0 \
             "K\x00K\x02K\x03\x86K\x03K\x01\x86\x89}tRu."

static void bad(const char *what, const char *p, size_t n, const char *want)
{
    tp_state_dict sd;
    char err[600] = "";
    int rc = tp_read(&sd, p, n, "t.pkl", err, sizeof err);
    check(rc != 0 && strstr(err, want) != NULL && strncmp(err, "t.pkl: ", 7) == 0 &&
              sd.n_tensors == 0 && sd.tensors == NULL,
          what, "rc %d, message [%s], expected [%s]", rc, err, want);
    tp_free(&sd);
}

/* A pickle of n repetitions of `unit` between head and tail (malloc'd). */
static char *repeat(const char *head, const char *unit, size_t ulen, size_t n, const char *tail,
                    size_t *len)
{
    size_t h = strlen(head), t = strlen(tail);
    char *b = malloc(h + ulen * n + t + 1);
    memcpy(b, head, h);
    for (size_t i = 0; i < n; i++)
        memcpy(b + h + i * ulen, unit, ulen);
    memcpy(b + h + ulen * n, tail, t);
    *len = h + ulen * n + t;
    return b;
}

int main(void)
{
    tp_state_dict sd;
    char err[600] = "";
    size_t n;
    char *b;

    {
        int rc = tp_read(&sd, S(GOOD), "t.pkl", err, sizeof err);
        check(rc == 0 && sd.n_tensors == 1 && sd.n_storages == 1 &&
                  strcmp(sd.tensors[0].name, "w") == 0 && sd.tensors[0].ndim == 2 &&
                  sd.tensors[0].shape[0] == 2 && sd.tensors[0].shape[1] == 3 &&
                  sd.tensors[0].stride[0] == 3 && sd.tensors[0].stride[1] == 1 &&
                  sd.tensors[0].offset == 0 && strcmp(sd.storages[0].key, "0") == 0 &&
                  sd.storages[0].dtype == ST_F32 && sd.storages[0].numel == 6,
              "a state dict as torch.save writes it: one [2, 3] view of FloatStorage \"0\" of 6",
              "rc %d [%s]", rc, err);
        tp_free(&sd);
    }
    /* the same tensor under two names via the memo (BINPUT 1 after REDUCE, BINGET 1), and the
     * OrderedDict + BUILD(_metadata) form of Module.state_dict() */
    {
        const char p[] = "\x80\x02" "ccollections\nOrderedDict\n)R(X\x01\x00\x00\x00" "a" REBUILD
                         "(" STORAGE0 "K\x00K\x06\x85K\x01\x85\x89}tRq\x01X\x01\x00\x00\x00" "bh\x01"
                         "u}X\x09\x00\x00\x00_metadata}sb.";
        int rc = tp_read(&sd, p, sizeof p - 1, "t.pkl", err, sizeof err);
        check(rc == 0 && sd.n_tensors == 2 && sd.n_storages == 1 &&
                  strcmp(sd.tensors[1].name, "b") == 0 && sd.tensors[1].shape[0] == 6 &&
                  sd.tensors[1].storage == 0,
              "OrderedDict(), a tensor memoized and stored under two names, BUILD of _metadata",
              "rc %d [%s]", rc, err);
        tp_free(&sd);
    }

    bad("os.system: refused naming the global and its byte",
        S("\x80\x02" "cos\nsystem\nX\x02\x00\x00\x00id\x85R."),
        "opcode GLOBAL (0x63) at byte 2: global os.system is not allowed");
    bad("torch.load (a torch global outside the list)", S("\x80\x02" "ctorch\nload\n."),
        "global torch.load is not allowed");
    bad("STACK_GLOBAL builtins.exec", S("\x80\x04\x8c\x08" "builtins\x8c\x04" "exec\x93."),
        "global builtins.exec is not allowed");
    bad("a storage type called (REDUCE)", S("\x80\x02" "ctorch\nFloatStorage\n)R."),
        "REDUCE calls a global FloatStorage");
    bad("OrderedDict called with arguments",
        S("\x80\x02" "ccollections\nOrderedDict\n]\x85R."), "called with arguments");
    bad("opcode INST", S("\x80\x02(i__main__\nX\n."), "opcode INST (0x69) at byte 3: not allowed");
    bad("opcode NEWOBJ", S("\x80\x02N)\x81."), "NEWOBJ");
    bad("opcode EXT1", S("\x80\x02\x82\x01."), "EXT1");
    bad("an unknown opcode byte", S("\x80\x02\xff."), "opcode unknown (0xff) at byte 2");
    bad("protocol 9", S("\x80\x09}."), "protocol 9");
    bad("a string of 4 GB claimed", S("\x80\x02X\xf0\xff\xff\xff" "abc."), "a string of");
    bad("a string running past the end", S("\x80\x02X\x10\x00\x00\x00" "abc."), "truncated");
    bad("a NUL in a string", S("\x80\x02X\x03\x00\x00\x00" "a\x00" "b."), "NUL");
    bad("LONG_BINPUT key 2^32 - 1", S("\x80\x02Nr\xff\xff\xff\xff."), "memo key 4294967295");
    bad("BINGET of a key never set", S("\x80\x02Nq\x00h\x05."), "memo key 5 was never set");
    bad("BINPUT with nothing on the stack", S("\x80\x02q\x00."), "nothing to memoize");
    bad("LONG1 of 9 bytes", S("\x80\x02\x8a\x09\x01\x02\x03\x04\x05\x06\x07\x08\x09."),
        "an integer of 9 bytes");
    bad("REDUCE on an empty stack", S("\x80\x02R."), "the stack is empty");
    bad("TUPLE without a mark", S("\x80\x02Nt."), "no mark");
    bad("SETITEMS on a list", S("\x80\x02](NNu."), "adds items to a list");
    bad("SETITEMS with an odd count", S("\x80\x02}(Nu."), "odd number");
    bad("APPENDS onto a dict", S("\x80\x02}(Ne."), "adds items to a dict");
    bad("BUILD on a tuple", S("\x80\x02)}b."), "sets the state of a tuple");
    bad("no STOP (truncated)", S("\x80\x02}"), "without STOP");
    bad("bytes after STOP", S("\x80\x02}.junk"), "4 bytes after STOP");
    bad("two values at STOP", S("\x80\x02}}."), "STOP leaves 2 values");
    bad("a mark open at STOP", S("\x80\x02(}."), "1 marks");
    bad("a list at the top", S("\x80\x02]."), "holds a list, expected a state dict");
    bad("an entry that is not a tensor", S("\x80\x02}(X\x01\x00\x00\x00wK\x03u."),
        "entry \"w\" is a int, expected a tensor");
    bad("an int as an entry's name", S("\x80\x02}(K\x01" REBUILD "(" STORAGE0
                                       "K\x00K\x06\x85K\x01\x85\x89}tRu."),
        "entry 0 has a int as its name");
    bad("a persistent id that is not a storage", S("\x80\x02X\x01\x00\x00\x00xQ."),
        "a persistent id is not");
    bad("a storage key with a '/'",
        S("\x80\x02(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x04\x00\x00\x00../x"
          "X\x03\x00\x00\x00" "cpuK\x06tQ."),
        "storage key \"../x\" is not a record name");
    bad("one key as two storage types",
        S("\x80\x02" STORAGE0 "(X\x07\x00\x00\x00storagectorch\nHalfStorage\nX\x01\x00\x00\x00" "0"
          "X\x03\x00\x00\x00" "cpuK\x06tQ."),
        "storage \"0\" is named twice as different storages (F32 of 6 elements, then F16 of 6)");
    bad("a view past its storage (offset 1 + 6 elements of 6)",
        S("\x80\x02}(X\x01\x00\x00\x00w" REBUILD "(" STORAGE0
          "K\x01K\x06\x85K\x01\x85\x89}tRu."),
        "its last element at 6) runs past storage \"0\" of 6 elements");
    bad("a view whose strides reach past its storage",
        S("\x80\x02}(X\x01\x00\x00\x00w" REBUILD "(" STORAGE0
          "K\x00K\x02K\x03\x86K\x04K\x01\x86\x89}tRu."),
        "runs past storage");
    bad("a size of -1", S("\x80\x02}(X\x01\x00\x00\x00w" REBUILD "(" STORAGE0
                          "K\x00J\xff\xff\xff\xff\x85K\x01\x85\x89}tRu."),
        "sizes[0] is not an int in [0, 2^40]");
    bad("2^40 x 2^40 elements", S("\x80\x02}(X\x01\x00\x00\x00w" REBUILD "(" STORAGE0
                                  "K\x00\x8a\x06\x00\x00\x00\x00\x00\x01\x8a\x06\x00\x00\x00\x00"
                                  "\x00\x01\x86K\x01K\x01\x86\x89}tRu."),
        "more than 2^50 elements");
    bad("9 dimensions", S("\x80\x02}(X\x01\x00\x00\x00w" REBUILD "(" STORAGE0
                          "K\x00(K\x01K\x01K\x01K\x01K\x01K\x01K\x01K\x01K\x01t"
                          "(K\x01K\x01K\x01K\x01K\x01K\x01K\x01K\x01K\x01t\x89}tRu."),
        "9 dimensions");
    bad("sizes and strides of different lengths",
        S("\x80\x02}(X\x01\x00\x00\x00w" REBUILD "(" STORAGE0
          "K\x00K\x06\x85K\x01K\x01\x86\x89}tRu."),
        "1 sizes but 2 strides");
    bad("backward hooks that are not empty",
        S("\x80\x02}(X\x01\x00\x00\x00w" REBUILD "(" STORAGE0
          "K\x00K\x06\x85K\x01\x85\x89}(NNutRu."),
        "hooks are not an empty dict");
    bad("_rebuild_tensor_v2 with 3 arguments",
        S("\x80\x02" REBUILD "(NNNtR."), "takes 6 arguments, got 3");

    b = repeat("\x80\x02", "(", 1, 100, ".", &n);
    bad("100 nested marks", b, n, "more than 64 nested marks");
    free(b);
    b = repeat("\x80\x02", "N", 1, (1u << 20) + 1, ".", &n);
    bad("a stack of 2^20 + 1 values", b, n, "more than 1048576 values");
    free(b);
    b = repeat("\x80\x02N", "\x85", 1, (1u << 22) + 1, ".", &n);
    bad("4 M values made (TUPLE1 of TUPLE1 of ...: deep nesting, no recursion)", b, n,
        "more than 4194304 values");
    free(b);
    /* memo abuse: one big list fetched many times into one tuple costs a pointer each (the
     * list is never copied) */
    b = repeat("\x80\x02](NNNNeq\x01(", "h\x01", 2, 200000, "t.", &n);
    bad("a list fetched from the memo 200000 times: no copies, refused at STOP", b, n,
        "STOP leaves 2 values");
    free(b);
    bad("a pickle over 64 MB", "\x80", (size_t)65 << 20, "a pickle of 68157440 bytes");
    return check_done();
}
