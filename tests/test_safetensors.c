/* test_safetensors.c — the weights file reader and the binding of tensors to a config: every
 * corruption is named (tensor, got vs expected); f16/bf16 decode to the hand-computed values. */
#include "check.h"
#include "model/model.h"
#include "model/safetensors.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Builds a safetensors image: header text h, then n data bytes (all zero). */
static unsigned char *image(const char *h, size_t data, size_t *size)
{
    size_t hl = strlen(h);
    unsigned char *b = calloc(8 + hl + data + 1, 1);
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)((uint64_t)hl >> (8 * i));
    memcpy(b + 8, h, hl);
    *size = 8 + hl + data;
    return b;
}

static void bad(const char *what, const char *header, size_t data, const char *want)
{
    size_t size;
    unsigned char *b = image(header, data, &size);
    st_file f;
    char err[512] = "";
    int rc;
    memset(&f, 0, sizeof f);
    rc = st_parse(&f, b, size, "w.safetensors", err, sizeof err);
    check(rc != 0 && strstr(err, want) != NULL, what, "rc %d, message [%s], expected [%s]", rc,
          err, want);
    st_close(&f);
    free(b);
}

int main(void)
{
    size_t size;
    st_file f;
    char err[512] = "";

    /* Decoding: f16 0x3C00 = 1.0, 0xC000 = -2.0, 0x0001 = 2^-24 (smallest subnormal),
     * 0x7BFF = 65504 (largest normal); bf16 0x3F80 = 1.0, 0xC0A0 = -5.0. */
    {
        unsigned char h[] = {0x00, 0x3C, 0x00, 0xC0, 0x01, 0x00, 0xFF, 0x7B};
        unsigned char bf[] = {0x80, 0x3F, 0xA0, 0xC0};
        float out[4];
        st_to_f32(out, h, ST_F16, 4);
        check(out[0] == 1.0f && out[1] == -2.0f && out[2] == 5.9604644775390625e-08f &&
                  out[3] == 65504.0f,
              "f16 to f32", "got %g %g %g %g", out[0], out[1], out[2], out[3]);
        st_to_f32(out, bf, ST_BF16, 2);
        check(out[0] == 1.0f && out[1] == -5.0f, "bf16 to f32", "got %g %g", out[0], out[1]);
    }

    {
        const char *h = "{\"__metadata__\": {\"format\": \"xlate\"}, "
                        "\"b\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [8, 16]}, "
                        "\"a\": {\"dtype\": \"F16\", \"shape\": [2, 2], \"data_offsets\": [0, 8]}}";
        unsigned char *b = image(h, 16, &size);
        memset(&f, 0, sizeof f);
        check(st_parse(&f, b, size, "w.safetensors", err, sizeof err) == 0, "valid file parses",
              "%s", err);
        check(f.n == 2 && st_find(&f, "a") && st_find(&f, "b") && !st_find(&f, "c") &&
                  st_find(&f, "a")->ndim == 2 && st_find(&f, "a")->shape[1] == 2 &&
                  st_find(&f, "b")->nbytes == 8,
              "tensors indexed, metadata skipped", "n %d", f.n);
        st_close(&f);
        free(b);
    }

    {
        unsigned char b[4] = {1, 0, 0, 0};
        memset(&f, 0, sizeof f);
        check(st_parse(&f, b, sizeof b, "w.safetensors", err, sizeof err) != 0 &&
                  strstr(err, "w.safetensors: 4 bytes: too short"),
              "shorter than 8 bytes", "[%s]", err);
        st_close(&f);
    }
    {
        unsigned char b[16] = {0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0};
        memset(&f, 0, sizeof f);
        check(st_parse(&f, b, sizeof b, "w.safetensors", err, sizeof err) != 0 &&
                  strstr(err, "header size 2147483647 exceeds the file (16 bytes)"),
              "header size beyond the file", "[%s]", err);
        st_close(&f);
    }
    bad("header not JSON", "{nope", 0, "w.safetensors: header: line 1 (byte ");
    bad("data beyond the end (truncated file)",
        "{\"w\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [0, 16]}}", 8,
        "tensor \"w\": data_offsets [0, 16] run past the end of the data (8 bytes)");
    bad("size does not match shape",
        "{\"w\": {\"dtype\": \"F32\", \"shape\": [3], \"data_offsets\": [0, 8]}}", 8,
        "tensor \"w\": F32 [3] needs 12 bytes, data_offsets give 8");
    bad("unknown dtype", "{\"w\": {\"dtype\": \"F8\", \"shape\": [1], \"data_offsets\": [0, 1]}}",
        1, "tensor \"w\": unsupported dtype \"F8\"");
    bad("negative shape", "{\"w\": {\"dtype\": \"F32\", \"shape\": [-1], \"data_offsets\": [0, 4]}}",
        4, "w.safetensors: tensor \"w\": \"shape\"[0]: expected an integer in [0, 1099511627776], "
        "got -1");
    bad("reversed offsets", "{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [8, 4]}}",
        8, "tensor \"w\": invalid data_offsets [8, 4]");
    bad("missing offsets", "{\"w\": {\"dtype\": \"F32\", \"shape\": [1]}}", 4,
        "tensor \"w\": \"data_offsets\" is not [begin, end]");
    bad("overlapping tensors",
        "{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}, "
        "\"b\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [4, 12]}}",
        12, "tensors \"a\" and \"b\" overlap");
    bad("huge shape product",
        "{\"w\": {\"dtype\": \"F32\", \"shape\": [1099511627776, 1099511627776], "
        "\"data_offsets\": [0, 4]}}", 4, "tensor \"w\": shape too large");


    /* Strict JSON in the header (docs/FORMAT.md): one object from byte 8, then only spaces
     * (any JSON whitespace) up to the declared length; integers written as integers. */
#define W4_ "\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}}"
#define W4 "{" W4_
    {
        char want[160];
        snprintf(want, sizeof want, "w.safetensors: header: line 1 (byte %zu): unexpected "
                 "content after the JSON value", strlen(W4)); /* by hand: right after the '}' */
        bad("header: a valid object, then }garbage", W4 "}garbage", 4, want);
        bad("header: a valid object, then a second one", W4 "{}", 4, want);
        snprintf(want, sizeof want, "w.safetensors: header: line 1 (byte %zu): unexpected "
                 "content after the JSON value", strlen(W4) + 3);
        bad("header: garbage after space padding", W4 "   x   ", 4, want);
    }
    {
        /* padding with spaces is the format's own; NUL padding is not */
        const char *h = W4 "        ";
        unsigned char *b = image(h, 4, &size);
        memset(&f, 0, sizeof f);
        check(st_parse(&f, b, size, "w.safetensors", err, sizeof err) == 0 && f.n == 1,
              "header padded with spaces parses", "%s", err);
        st_close(&f);
        free(b);
        b = image(W4 "    ", 4, &size);
        memset(b + 8 + strlen(W4), 0, 4);
        memset(&f, 0, sizeof f);
        check(st_parse(&f, b, size, "w.safetensors", err, sizeof err) != 0 &&
                  strstr(err, "unexpected content after the JSON value"),
              "header padded with NUL bytes refused", "[%s]", err);
        st_close(&f);
        free(b);
    }
    bad("header: leading space", " " W4, 4, "w.safetensors: header: expected a JSON object "
        "starting with '{' at byte 8");
    bad("shape [256.5]", "{\"w\": {\"dtype\": \"U8\", \"shape\": [256.5], \"data_offsets\": [0, 256]}}",
        256, "tensor \"w\": \"shape\"[0]: expected an integer in [0, 1099511627776], got 256.5");
    bad("shape [2, 128.0] (integral float)",
        "{\"w\": {\"dtype\": \"U8\", \"shape\": [2, 128.0], \"data_offsets\": [0, 256]}}", 256,
        "tensor \"w\": \"shape\"[1]: expected an integer in [0, 1099511627776], got 128.0 (an "
        "integer is written without a fraction or exponent)");
    bad("shape as a string", "{\"w\": {\"dtype\": \"U8\", \"shape\": [\"4\"], \"data_offsets\": [0, 4]}}",
        4, "tensor \"w\": \"shape\"[0]: expected an integer, got a string");
    bad("data_offsets [0, 4.0]", "{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4.0]}}",
        4, "tensor \"w\": \"data_offsets\"[1]: expected an integer in [0, 9223372036854775807], "
        "got 4.0");
    bad("data_offsets [0.5, 4]", "{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0.5, 4]}}",
        4, "tensor \"w\": \"data_offsets\"[0]: expected an integer");
    bad("data_offsets [0, 4e0]", "{\"w\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4e0]}}",
        4, "tensor \"w\": \"data_offsets\"[1]: expected an integer");
    /* 2^53 + 1 is not a double: read exactly from its literal, it is named as written */
    bad("data_offsets past 2^53 read exactly",
        "{\"w\": {\"dtype\": \"U8\", \"shape\": [1], \"data_offsets\": [9007199254740992, "
        "9007199254740993]}}", 4, "data_offsets [9007199254740992, 9007199254740993] run past the end");
    bad("__metadata__ a string", "{\"__metadata__\": \"x\", " W4_, 4,
        "w.safetensors: header: \"__metadata__\": expected an object of strings, got a string");
    bad("__metadata__ with a number", "{\"__metadata__\": {\"format\": \"pt\", \"step\": 3}, " W4_,
        4, "w.safetensors: header: \"__metadata__\": \"step\": expected a string, got a number");
    bad("__metadata__ with an object", "{\"__metadata__\": {\"a\": {}}, " W4_, 4,
        "\"__metadata__\": \"a\": expected a string, got an object");
    bad("a tensor named twice (the JSON key twice)", "{\"w\": {}, " W4_, 4,
        "w.safetensors: header: key \"w\" appears twice");
    bad("invalid UTF-8 in a tensor name",
        "{\"w\xff\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}}", 4,
        "w.safetensors: header: line 1 (byte 3): not valid UTF-8");
    bad("\\u0000 in a tensor name (would alias \"w\")",
        "{\"w\\u0000x\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}}", 4,
        "a string holds \\u0000");
#undef W4
#undef W4_

    {
        memset(&f, 0, sizeof f);
        check(st_open(&f, "/nonexistent/model.safetensors", err, sizeof err) != 0 &&
                  strstr(err, "/nonexistent/model.safetensors: cannot open"),
              "missing file named", "[%s]", err);
    }

    /* Binding against a config: a tiny model d 2, 1 head, ffn 2, 0 encoder layers, 1 decoder
     * layer, vocab 4, tied and shared: the first tensor looked up is encoder.embed.weight. */
    {
        const char *cfgtext = "{\"model_type\": \"transformer\", \"d_model\": 2, \"heads\": 1, "
                              "\"ffn_dim\": 2, \"encoder_layers\": 0, \"decoder_layers\": 1, "
                              "\"src_vocab_size\": 4, \"tgt_vocab_size\": 4, \"pad_id\": 0, "
                              "\"unk_id\": 1, \"bos_id\": 2, \"eos_id\": 3, "
                              "\"shared_embeddings\": true, \"tied_output\": true}";
        const char *h1 = "{\"encoder.embed.weight\": {\"dtype\": \"F32\", \"shape\": [4, 3], "
                         "\"data_offsets\": [0, 48]}}";
        const char *h2 = "{\"encoder.embed.weight\": {\"dtype\": \"I32\", \"shape\": [4, 2], "
                         "\"data_offsets\": [0, 32]}}";
        const char *h3 = "{\"encoder.embed.weight\": {\"dtype\": \"F32\", \"shape\": [4, 2], "
                         "\"data_offsets\": [0, 32]}}";
        const char *heads[3] = {h1, h2, h3};
        const char *want[3] = {
            "tensor \"encoder.embed.weight\": shape [4, 3], expected [4, 2]",
            "tensor \"encoder.embed.weight\": dtype I32, expected F32, F16 or BF16",
            "missing tensor \"decoder.layers.0.cross_attn.k.weight\" (expected [2, 2] of F32",
        };
        const char *what[3] = {"bind: wrong shape named", "bind: wrong dtype named",
                               "bind: missing tensor named"};
        for (int i = 0; i < 3; i++) {
            model_config c;
            model_weights m;
            unsigned char *b = image(heads[i], 48, &size);
            int rc;
            memset(&f, 0, sizeof f);
            config_parse(&c, cfgtext, strlen(cfgtext), "config.json", NULL, NULL, err, sizeof err);
            st_parse(&f, b, size, "model.safetensors", err, sizeof err);
            rc = model_bind(&m, &c, &f, NULL, NULL, err, sizeof err);
            check(rc != 0 && strstr(err, want[i]) && strstr(err, "model.safetensors"), what[i],
                  "[%s]", err);
            if (rc == 0)
                model_free(&m);
            st_close(&f);
            free(b);
        }
    }
    return check_done();
}
