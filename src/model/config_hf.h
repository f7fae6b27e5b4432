/* config_hf.h — what the readers of Hugging Face config.json files share (config.c defines
 * them; config_m2m.c uses them too). Internal to src/model/. */
#ifndef XLATE_CONFIG_HF_H
#define XLATE_CONFIG_HF_H
#include "model/config.h"
#include <cJSON.h>

/* Field `key` of obj as an integer in [lo, hi]: *out = dflt when absent (or null and
 * null_ok). 0, or -1 with a message naming the file and field. */
int hf_int(const cJSON *obj, const char *key, int dflt, int null_ok, int lo, int hi, int *out,
           const char *name, char *err, size_t errlen);
int hf_bool(const cJSON *obj, const char *key, int dflt, int *out, const char *name, char *err,
            size_t errlen);
/* The generation fields of g (generation_config.json; config.json when is_config, with
 * MarianConfig's defaults) into c->gen, as GenerationConfig reads them; unimplemented ones
 * refused. */
int hf_generation(model_config *c, const cJSON *g, int is_config, const char *name, char *err,
                  size_t errlen);
/* A special id inside both vocabularies, else a message naming the field. */
int check_special(const model_config *c, const char *field, int id, const char *name,
                  char *err, size_t errlen);
/* config_load's path for model_type "m2m_100": the directory's generation_config.json read
 * beside path, then config_parse_m2m100. */
int config_load_m2m100(model_config *c, const char *path, const char *text, size_t len,
                       char *err, size_t errlen);

#endif
