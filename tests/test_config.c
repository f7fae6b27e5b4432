/* test_config.c — config.json validation: every bad field is named, unknown fields warn,
 * defaults are the documented ones (docs/FORMAT.md). */
#include "check.h"
#include "model/config.h"
#include <math.h>
#include <string.h>

#define BASE                                                                                 \
    "\"model_type\": \"transformer\", \"d_model\": 48, \"heads\": 3, \"ffn_dim\": 80, "      \
    "\"encoder_layers\": 1, \"decoder_layers\": 2, \"src_vocab_size\": 50, "                 \
    "\"tgt_vocab_size\": 40, \"pad_id\": 0, \"unk_id\": 1, \"bos_id\": 2, \"eos_id\": 3"

static char warned[512];
static void warn(void *user, const char *msg)
{
    (void)user;
    snprintf(warned, sizeof warned, "%s", msg);
}

/* The base config with `field` set to the JSON `value` (replacing it, or added). */
static const char *with(const char *field, const char *value)
{
    static char buf[2048];
    static const char *names[] = {"model_type", "d_model", "heads", "ffn_dim", "encoder_layers",
                                  "decoder_layers", "src_vocab_size", "tgt_vocab_size", "pad_id",
                                  "unk_id", "bos_id", "eos_id"};
    static const char *values[] = {"\"transformer\"", "48", "3", "80", "1", "2", "50", "40",
                                   "0", "1", "2", "3"};
    size_t n = 0;
    int found = 0;
    n += snprintf(buf + n, sizeof buf - n, "{");
    for (int i = 0; i < 12; i++) {
        int mine = strcmp(names[i], field) == 0;
        found |= mine;
        n += snprintf(buf + n, sizeof buf - n, "%s\"%s\": %s", i ? ", " : "", names[i],
                      mine ? value : values[i]);
    }
    if (!found)
        n += snprintf(buf + n, sizeof buf - n, ", \"%s\": %s", field, value);
    snprintf(buf + n, sizeof buf - n, "}");
    return buf;
}

/* Expects the config text to fail with a message containing `want`. */
static void bad(const char *what, const char *json, const char *want)
{
    model_config c;
    char err[512] = "";
    int rc = config_parse(&c, json, strlen(json), "cfg.json", warn, NULL, err, sizeof err);
    check(rc != 0 && strstr(err, want) != NULL, what, "rc %d, message [%s], expected [%s]", rc,
          err, want);
}

/* bad() over text[0, n) (which may hold NUL bytes) */
static void bad_n(const char *what, const char *text, size_t n, const char *want)
{
    model_config c;
    char err[512] = "";
    int rc = config_parse(&c, text, n, "cfg.json", warn, NULL, err, sizeof err);
    check(rc != 0 && strstr(err, want) != NULL, what, "rc %d, message [%s], expected [%s]", rc,
          err, want);
}

int main(void)
{
    model_config c;
    char err[512] = "";
    const char *good = "{" BASE "}";

    check(config_parse(&c, good, strlen(good), "cfg.json", warn, NULL, err, sizeof err) == 0,
          "minimal config parses", "%s", err);
    check(c.d_model == 48 && c.heads == 3 && c.ffn_dim == 80 && c.encoder_layers == 1 &&
              c.decoder_layers == 2 && c.src_vocab == 50 && c.tgt_vocab == 40,
          "sizes read", "got d %d heads %d", c.d_model, c.heads);
    /* defaults of docs/FORMAT.md; sqrt(48) = 6.9282032 */
    check(c.activation == ACT_RELU && !c.pre_norm && c.encoder_final_norm &&
              c.decoder_final_norm && fabsf(c.layer_norm_eps - 1e-5f) < 1e-12f &&
              c.positions == POS_SIN_INTERLEAVED && c.max_positions == 512 &&
              fabsf(c.embedding_scale - 6.9282032f) < 1e-6f && !c.shared_embeddings &&
              !c.tied_output && !c.output_bias && strcmp(c.weights, "model.safetensors") == 0 &&
              c.tokenizer == NULL,
          "documented defaults", "scale %g eps %g", c.embedding_scale, c.layer_norm_eps);
    config_free(&c);

    {
        const char *j = "{" BASE ", \"activation\": \"gelu\", \"norm_placement\": \"pre\", "
                        "\"positions\": \"sinusoidal-concat\", \"embedding_scale\": 1.5, "
                        "\"tokenizer\": \"spm.model\", \"_doc\": {\"x\": 1}}";
        warned[0] = 0;
        check(config_parse(&c, j, strlen(j), "cfg.json", warn, NULL, err, sizeof err) == 0 &&
                  c.activation == ACT_GELU && c.pre_norm && c.positions == POS_SIN_CONCAT &&
                  c.embedding_scale == 1.5f && strcmp(c.tokenizer, "spm.model") == 0,
              "explicit fields read", "%s", err);
        check(warned[0] == 0, "fields starting with _ are comments", "warned: %s", warned);
        config_free(&c);
    }
    {
        const char *j = with("dropout", "0.1");
        warned[0] = 0;
        check(config_parse(&c, j, strlen(j), "cfg.json", warn, NULL, err, sizeof err) == 0,
              "unknown field is not an error", "%s", err);
        check(strstr(warned, "unknown field \"dropout\"") != NULL, "unknown field warns",
              "warned: [%s]", warned);
        config_free(&c);
    }

    bad("not JSON", "{\"d_model\": 4,,}", "cfg.json: line 1 (byte ");
    bad("JSON error line number", "{\n\"d_model\": 4\n,,}", "line 3");
    bad("top level not an object", "[1, 2]", "expected a JSON object");
    bad("missing model_type", "{\"d_model\": 4}", "missing field \"model_type\"");
    bad("wrong model_type", "{\"model_type\": \"gpt\"}",
        "field \"model_type\": expected \"transformer\" (xlate's layout) or \"marian\" (Hugging Face "
        "MarianMT), got \"gpt\"");
    bad("missing d_model", "{\"model_type\": \"transformer\", \"heads\": 2}", "missing field \"d_model\"");
    bad("missing eos_id",
        "{\"model_type\": \"transformer\", \"d_model\": 48, \"heads\": 3, \"ffn_dim\": 80, "
        "\"encoder_layers\": 1, \"decoder_layers\": 2, \"src_vocab_size\": 50, "
        "\"tgt_vocab_size\": 40, \"pad_id\": 0, \"unk_id\": 1, \"bos_id\": 2}",
        "missing field \"eos_id\"");
    bad("mistyped d_model (string)", with("d_model", "\"48\""), "field \"d_model\": expected an integer, got a string");
    bad("fractional heads", with("heads", "2.5"), "field \"heads\": expected an integer");
    bad("negative layers", with("encoder_layers", "-1"), "field \"encoder_layers\": expected an integer in [0,");
    bad("zero decoder layers", with("decoder_layers", "0"), "field \"decoder_layers\"");
    bad("d_model not divisible by heads", with("heads", "5"), "field \"heads\": d_model 48 is not divisible by heads 5");
    bad("unknown activation", with("activation", "\"swish\""), "field \"activation\": expected one of \"relu\", \"gelu\", \"gelu_tanh\", got \"swish\"");
    bad("norm_placement typo", with("norm_placement", "\"before\""), "field \"norm_placement\"");
    bad("bool as string", with("tied_output", "\"yes\""), "field \"tied_output\": expected true or false, got a string");
    bad("eos outside vocabulary", with("eos_id", "40"), "field \"eos_id\": id 40 lies outside the vocabulary");
    bad("shared embeddings need equal vocabularies", with("shared_embeddings", "true"), "field \"shared_embeddings\"");
    bad("odd d_model with sinusoids",
        "{\"model_type\": \"transformer\", \"d_model\": 45, \"heads\": 3, \"ffn_dim\": 80, "
        "\"encoder_layers\": 1, \"decoder_layers\": 2, \"src_vocab_size\": 50, "
        "\"tgt_vocab_size\": 40, \"pad_id\": 0, \"unk_id\": 1, \"bos_id\": 2, \"eos_id\": 3}",
        "sinusoidal positions need an even d_model, got 45");
    bad("negative eps", with("layer_norm_eps", "-1"), "field \"layer_norm_eps\"");
    bad("empty weights name", with("weights", "\"\""), "field \"weights\": expected a non-empty string");
    bad("max_positions 1", with("max_positions", "1"), "field \"max_positions\"");
    bad("duplicate field", "{" BASE ", \"d_model\": 64}", "cfg.json: key \"d_model\" appears twice");

    /* Strict JSON (docs/FORMAT.md "JSON"): one value, only whitespace after it, UTF-8, no
     * \u0000, no key twice anywhere; integer fields take integer literals only. */
    {
        /* the offsets by hand: the object is strlen("{" BASE "}") bytes, then a space */
        char want[160];
        size_t n = strlen("{" BASE "}");
        snprintf(want, sizeof want, "cfg.json: line 1 (byte %zu): unexpected content after the "
                 "JSON value", n + 1);
        bad("garbage after the object", "{" BASE "} garbage", want);
        snprintf(want, sizeof want, "cfg.json: line 2 (byte %zu): unexpected content after the "
                 "JSON value", n + 1);
        bad("a second object after the first", "{" BASE "}\n{}", want);
        /* with(): {"model_type": ..., "eos_id": 3, "tokenizer": "sp\xff...: the 0xff is 3 bytes
         * into the string that starts after `, "tokenizer": "` */
        snprintf(want, sizeof want, "cfg.json: line 1 (byte %zu): not valid UTF-8",
                 strlen("{" BASE) + strlen(", \"tokenizer\": \"sp"));
        bad("invalid UTF-8 in a string", with("tokenizer", "\"sp\xff.model\""), want);
    }
    /* the decoder's sizes: the encoder's unless given (docs/FORMAT.md) */
    check(config_parse(&c, good, strlen(good), "cfg.json", warn, NULL, err, sizeof err) == 0 &&
              c.decoder_heads == 3 && c.decoder_ffn_dim == 80,
          "decoder_heads / decoder_ffn_dim default to heads / ffn_dim", "got %d %d",
          c.decoder_heads, c.decoder_ffn_dim);
    config_free(&c);
    {
        const char *j = "{" BASE ", \"decoder_heads\": 8, \"decoder_ffn_dim\": 33}";
        check(config_parse(&c, j, strlen(j), "cfg.json", warn, NULL, err, sizeof err) == 0 &&
                  c.heads == 3 && c.ffn_dim == 80 && c.decoder_heads == 8 &&
                  c.decoder_ffn_dim == 33,
              "decoder_heads / decoder_ffn_dim read, the encoder's kept", "%s", err);
        config_free(&c);
    }
    bad("decoder_heads not dividing d_model", with("decoder_heads", "5"),
        "cfg.json: field \"decoder_heads\": d_model 48 is not divisible by decoder_heads 5");
    bad("decoder_ffn_dim 0", with("decoder_ffn_dim", "0"),
        "field \"decoder_ffn_dim\": expected an integer in [1, 16777216], got 0");
    bad("fractional eos_id", with("eos_id", "3.5"),
        "cfg.json: field \"eos_id\": expected an integer in [0, 16777216], got 3.5");
    bad("integral float eos_id (3.0)", with("eos_id", "3.0"),
        "field \"eos_id\": expected an integer in [0, 16777216], got 3.0 (an integer is written "
        "without a fraction or exponent)");
    bad("exponent in d_model (48e0)", with("d_model", "48e0"), "field \"d_model\": expected an integer");
    bad("integer beyond 64 bits", with("ffn_dim", "99999999999999999999"),
        "field \"ffn_dim\": expected an integer in [1, 16777216], got 99999999999999999999");
    bad("key twice inside a comment object", with("_doc", "{\"x\": 1, \"x\": 2}"),
        "cfg.json: key \"x\" appears twice in \"_doc\"");
    bad("overlong UTF-8 (C0 AF) in a string", with("_doc", "\"\xc0\xaf\""), "not valid UTF-8");
    bad("UTF-16 surrogate as UTF-8 (ED A0 80)", with("_doc", "\"\xed\xa0\x80\""), "not valid UTF-8");
    bad("leading zero (03: not a JSON number)", with("eos_id", "03"), "03 is not a JSON number");
    bad("a bare fraction point (1.: not a JSON number)", with("_doc", "1."), "1. is not a JSON number");
    bad("1.e5: not a JSON number", with("_doc", "1.e5"), "1.e5 is not a JSON number");
    bad("a raw tab inside a string", with("_doc", "\"a\tb\""), "control byte 0x09 in a string");
    bad("a control byte (SOH) before the object", "\001{" BASE "}", "cfg.json: line 1 (byte 0): control byte 0x01 between JSON tokens");
    bad("a form feed between tokens", "{" BASE ",\f\"_doc\": 1}", "control byte 0x0c between JSON tokens");
    {
        const char *j = "\xef\xbb\xbf{" BASE "}";
        check(config_parse(&c, j, strlen(j), "cfg.json", NULL, NULL, err, sizeof err) == 0,
              "a UTF-8 byte order mark at the start is let pass (RFC 8259)", "%s", err);
        config_free(&c);
    }
    /* issue 27: cJSON skips every byte <= 0x20 as a blank, so on an all-NUL file it stopped,
     * and the message pointed, at the last byte; the first offending byte is meant */
    bad_n("an all-NUL file: the first byte named", "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16,
          "cfg.json: line 1 (byte 0): control byte 0x00 between JSON tokens");
    bad_n("blanks, then NULs: the first NUL named", "  \n \0\0\0\0", 8,
          "cfg.json: line 2 (byte 4): control byte 0x00 between JSON tokens");
    bad_n("an object cut by NULs: the first NUL named", "{\"d_model\": \0\0\0", 15,
          "cfg.json: line 1 (byte 12): control byte 0x00 between JSON tokens");
    bad_n("a NUL before the object", "\0{\"d_model\": 48}", 16,
          "cfg.json: line 1 (byte 0): control byte 0x00 between JSON tokens");
    /* issue 27: a wrong-typed value is shown, not only its type ("got a number") */
    bad("a number for a boolean: the value shown", with("tied_output", "1"),
        "field \"tied_output\": expected true or false, got a number (1)");
    bad("a number for a name: the value shown", with("activation", "2.5e3"),
        "field \"activation\": expected one of \"relu\", \"gelu\", \"gelu_tanh\", got a number (2.5e3)");
    bad("a string for a number: the value shown, escaped", with("layer_norm_eps", "\"1e-5\\n\""),
        "field \"layer_norm_eps\": expected a number, got a string (\"1e-5\\x0a\")");
    bad("a boolean for an integer: the value shown", with("d_model", "false"),
        "field \"d_model\": expected an integer, got a boolean (false)");
    /* round 2's leftover, decided (docs/FORMAT.md "JSON"): one byte order mark at byte 0 is
     * let pass (above); anywhere else it is not JSON */
    bad("a byte order mark twice", "\xef\xbb\xbf\xef\xbb\xbf{" BASE "}", "line 1 (byte 3): not valid JSON");
    bad("a byte order mark after a blank", " \xef\xbb\xbf{" BASE "}", "line 1 (byte 1): not valid JSON");
    bad("\\u0000 in a string", with("tokenizer", "\"spm\\u0000.model\""),
        "a string holds \\u0000");
    {
        /* accepted: whitespace after the value, -0, UTF-8 in strings, a 0 written as 0 */
        const char *j = "{" BASE ", \"encoder_layers\": -0, \"_doc\": \"M\xc3\xbcller \xe2\x96\x81\"}\n \t\r\n";
        char buf[1024];
        /* BASE already has encoder_layers 1: replace it rather than repeat the key */
        snprintf(buf, sizeof buf, "%s", j);
        {
            char *k = strstr(buf, "\"encoder_layers\": 1, ");
            memmove(k, k + 21, strlen(k + 21) + 1);
        }
        check(config_parse(&c, buf, strlen(buf), "cfg.json", NULL, NULL, err, sizeof err) == 0 &&
                  c.encoder_layers == 0,
              "trailing whitespace, -0 and UTF-8 text accepted", "%s", err);
        config_free(&c);
    }
    bad("huge d_model", with("d_model", "1e12"), "field \"d_model\"");
    {
        model_config c2;
        check(config_load(&c2, "/nonexistent/config.json", NULL, NULL, err, sizeof err) != 0 &&
                  strstr(err, "/nonexistent/config.json: cannot open") != NULL,
              "missing file named", "[%s]", err);
    }
    return check_done();
}
