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
    bad("duplicate field", "{" BASE ", \"d_model\": 64}", "field \"d_model\" appears twice");
    bad("huge d_model", with("d_model", "1e12"), "field \"d_model\"");
    {
        model_config c2;
        check(config_load(&c2, "/nonexistent/config.json", NULL, NULL, err, sizeof err) != 0 &&
                  strstr(err, "/nonexistent/config.json: cannot open") != NULL,
              "missing file named", "[%s]", err);
    }
    return check_done();
}
