/* serve_spec.c — GET /spec: the Swagger 2.0 (OpenAPI 2) document of the API `xlate serve`
 * answers, shaped as LibreTranslate's (app.py:1241-1247 serves flasgger's `swagger(app)`, built
 * from each view's docstring: `swagger: "2.0"`, `info`, `paths` with each operation's tags,
 * summary, parameters `in: formData` and responses with their schemas). It lists what xlate
 * serves, no more: /suggest is not served (suggestions false), so it is not here. Written by
 * hand from serve_api.c's endpoints; tests/py/test_hardening_r5.py checks that every path and
 * method in it is answered and that every endpoint is in it. */
#include "serve/serve.h"
#include <string.h>

/* The JSON pieces the operations share. */
#define P_API_KEY "{\"in\": \"formData\", \"name\": \"api_key\", \"type\": \"string\", " \
    "\"required\": false, \"description\": \"API key (required when the server runs with " \
    "--api-keys)\"}"
#define P_SOURCE "{\"in\": \"formData\", \"name\": \"source\", \"type\": \"string\", " \
    "\"required\": true, \"example\": \"en\", \"description\": \"Source language code, or " \
    "\\\"auto\\\" (only when every model loaded has the same one source language)\"}"
#define P_TARGET "{\"in\": \"formData\", \"name\": \"target\", \"type\": \"string\", " \
    "\"required\": true, \"example\": \"de\", \"description\": \"Target language code\"}"
#define R_ERROR(what) "{\"description\": \"" what "\", \"schema\": {\"type\": \"object\", " \
    "\"properties\": {\"error\": {\"type\": \"string\", \"description\": \"Error message\"}}}}"
#define R_LIMITS "\"400\": " R_ERROR("Invalid request") ", \"403\": " \
    R_ERROR("No or a wrong API key") ", \"429\": " R_ERROR("Slowdown: past --req-limit")
#define LANG_SCHEMA "{\"type\": \"object\", \"properties\": {\"code\": {\"type\": \"string\", " \
    "\"description\": \"Language code\"}, \"name\": {\"type\": \"string\", \"description\": " \
    "\"Human-readable language name (in English)\"}}}"

static const char spec[] =
    "{\"swagger\": \"2.0\", "
    "\"info\": {\"title\": \"xlate serve\", \"description\": \"The LibreTranslate API "
    "(LibreTranslate 39429cb's app.py) answered by xlate's models\", \"version\": \""
    XLATE_VERSION "\"}, "
    "\"consumes\": [\"application/json\", \"application/x-www-form-urlencoded\", "
    "\"multipart/form-data\"], \"produces\": [\"application/json\"], "
    "\"paths\": {"
    "\"/translate\": {\"post\": {\"tags\": [\"translate\"], \"summary\": \"Translate text\", "
    "\"parameters\": ["
    "{\"in\": \"formData\", \"name\": \"q\", \"type\": \"string\", \"required\": true, "
    "\"example\": \"Hello world!\", \"description\": \"Text to translate (in a JSON body, a "
    "string or an array of strings)\"}, " P_SOURCE ", " P_TARGET ", "
    "{\"in\": \"formData\", \"name\": \"format\", \"type\": \"string\", \"enum\": [\"text\", "
    "\"html\"], \"default\": \"text\", \"required\": false, \"description\": \"Format of the "
    "source text: text (plain) or html\"}, "
    "{\"in\": \"formData\", \"name\": \"alternatives\", \"type\": \"integer\", \"default\": 0, "
    "\"required\": false, \"description\": \"Preferred number of alternative translations "
    "(at most --alternatives-limit)\"}, " P_API_KEY "], "
    "\"responses\": {\"200\": {\"description\": \"Translated text\", \"schema\": {\"type\": "
    "\"object\", \"properties\": {\"translatedText\": {\"type\": \"string\", \"description\": "
    "\"Translated text (an array of them when q is an array)\"}, \"alternatives\": {\"type\": "
    "\"array\", \"items\": {\"type\": \"string\"}, \"description\": \"Alternative translations "
    "(when asked)\"}, \"detectedLanguage\": {\"type\": \"object\", \"description\": \"The "
    "source language taken for auto\", \"properties\": {\"confidence\": {\"type\": \"number\"}, "
    "\"language\": {\"type\": \"string\"}}}}}}, " R_LIMITS ", "
    "\"500\": " R_ERROR("Translation error") "}}}, "
    "\"/translate_file\": {\"post\": {\"tags\": [\"translate\"], \"summary\": \"Translate a "
    "file\", \"consumes\": [\"multipart/form-data\"], \"parameters\": ["
    "{\"in\": \"formData\", \"name\": \"file\", \"type\": \"file\", \"required\": true, "
    "\"description\": \"File to translate (.txt and the document formats /frontend/settings "
    "lists in supportedFilesFormat)\"}, " P_SOURCE ", " P_TARGET ", " P_API_KEY "], "
    "\"responses\": {\"200\": {\"description\": \"Translated file\", \"schema\": {\"type\": "
    "\"object\", \"properties\": {\"translatedFileUrl\": {\"type\": \"string\", "
    "\"description\": \"Translated file url (GET /download_file/...)\"}}}}, " R_LIMITS ", "
    "\"500\": " R_ERROR("Translation error") "}}}, "
    "\"/download_file/{filename}\": {\"get\": {\"tags\": [\"translate\"], \"summary\": "
    "\"Download a translated file (the last 64 are kept)\", \"produces\": "
    "[\"application/octet-stream\"], \"parameters\": [{\"in\": \"path\", \"name\": "
    "\"filename\", \"type\": \"string\", \"required\": true, \"description\": \"The last part "
    "of a translatedFileUrl\"}], \"responses\": {\"200\": {\"description\": \"The translated "
    "file, as an attachment\", \"schema\": {\"type\": \"file\"}}, \"400\": "
    R_ERROR("Invalid filename") ", \"404\": " R_ERROR("No such file kept") "}}}, "
    "\"/detect\": {\"post\": {\"tags\": [\"translate\"], \"summary\": \"Detect the language "
    "of a single text (xlate has no detector: the one source language of the models loaded)\", "
    "\"parameters\": [{\"in\": \"formData\", \"name\": \"q\", \"type\": \"string\", "
    "\"required\": true, \"example\": \"Hello world!\", \"description\": \"Text to detect\"}, "
    P_API_KEY "], \"responses\": {\"200\": {\"description\": \"Detections\", \"schema\": "
    "{\"type\": \"array\", \"items\": {\"type\": \"object\", \"properties\": {\"confidence\": "
    "{\"type\": \"number\", \"description\": \"Confidence value\"}, \"language\": {\"type\": "
    "\"string\", \"description\": \"Language code\"}}}}}, " R_LIMITS "}}}, "
    "\"/languages\": {\"get\": {\"tags\": [\"translate\"], \"summary\": \"Retrieve list of "
    "supported languages\", \"responses\": {\"200\": {\"description\": \"List of languages\", "
    "\"schema\": {\"type\": \"array\", \"items\": {\"type\": \"object\", \"properties\": "
    "{\"code\": {\"type\": \"string\", \"description\": \"Language code\"}, \"name\": "
    "{\"type\": \"string\", \"description\": \"Human-readable language name (in English)\"}, "
    "\"targets\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}, \"description\": "
    "\"Supported target language codes\"}}}}}}}}, "
    "\"/frontend/settings\": {\"get\": {\"tags\": [\"frontend\"], \"summary\": \"Retrieve "
    "frontend specific settings\", \"responses\": {\"200\": {\"description\": \"frontend "
    "settings\", \"schema\": {\"type\": \"object\", \"properties\": {"
    "\"charLimit\": {\"type\": \"integer\", \"description\": \"Character input limit for this "
    "language (-1 indicates no limit)\"}, \"frontendTimeout\": {\"type\": \"integer\", "
    "\"description\": \"Frontend translation timeout\"}, \"apiKeys\": {\"type\": \"boolean\", "
    "\"description\": \"Whether the API key database is enabled.\"}, \"keyRequired\": "
    "{\"type\": \"boolean\", \"description\": \"Whether an API key is required.\"}, "
    "\"suggestions\": {\"type\": \"boolean\", \"description\": \"Whether submitting "
    "suggestions is enabled.\"}, \"filesTranslation\": {\"type\": \"boolean\", \"description\": "
    "\"Whether files translation is enabled.\"}, \"supportedFilesFormat\": {\"type\": "
    "\"array\", \"items\": {\"type\": \"string\"}, \"description\": \"Supported files "
    "format\"}, \"language\": {\"type\": \"object\", \"properties\": {\"source\": " LANG_SCHEMA
    ", \"target\": " LANG_SCHEMA "}}}}}}}}, "
    "\"/health\": {\"get\": {\"tags\": [\"other\"], \"summary\": \"Health check\", "
    "\"responses\": {\"200\": {\"description\": \"The server is up\", \"schema\": {\"type\": "
    "\"object\", \"properties\": {\"status\": {\"type\": \"string\"}}}}}}}"
    "}}";

const char *serve_spec_json(size_t *len)
{
    *len = sizeof spec - 1;
    return spec;
}
