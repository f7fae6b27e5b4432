/* hub_scan.h — what the Hugging Face hub's cache holds, read from the disk alone (no network):
 * its model repositories, their revisions (a snapshot folder each, the refs naming it), files and
 * size on disk, as huggingface_hub's scan_cache_dir reports them (utils/_cache_manager.py); what
 * model each snapshot is (family, languages, the files xlate needs that it lacks, why xlate
 * cannot run it: hub_probe, through the library's own config and tokenizer readers); and which
 * cached model serves a language pair (hub_pair_find, hub_pair.c). */
#ifndef XLATE_HUB_SCAN_H
#define XLATE_HUB_SCAN_H
#include <stddef.h>

/* One file of a snapshot: a link into the repo's blobs/ (huggingface_hub CachedFileInfo). */
typedef struct {
    char *path;          /* owned; relative to the snapshot folder, e.g. "config.json" */
    long long size;      /* the blob's bytes; -1 when the link is broken (its blob is missing) */
    unsigned long long dev, ino; /* the blob's identity: a blob is counted once */
} hub_cached_file;

/* One snapshot folder (huggingface_hub CachedRevisionInfo). */
typedef struct {
    char *commit;        /* owned; the folder's name (a 40-hex commit) */
    char *dir;           /* owned; CACHE/models--ORG--NAME/snapshots/COMMIT */
    char **refs;         /* owned [n_refs]; the refs naming it ("main", "refs/pr/1"), sorted */
    int n_refs;
    hub_cached_file *files; /* owned [n_files], sorted by path */
    int n_files;
    long long size;      /* the bytes of its distinct blobs */
} hub_revision;

/* One model repository (huggingface_hub CachedRepoInfo). */
typedef struct {
    char *repo_id;       /* owned; "Helsinki-NLP/opus-mt-en-de" from "models--Helsinki-NLP--..." */
    char *dir;           /* owned; CACHE/models--ORG--NAME */
    hub_revision *revs;  /* owned [n_revs]: the one refs/main names first, then by commit */
    int n_revs;
    long long size;      /* the bytes of the distinct blobs its snapshots link to */
    int n_blobs;
    char problem[320];   /* what huggingface_hub's scan calls corrupted (no snapshots folder, a
                            ref naming a commit with no snapshot), "" when none */
} hub_repo_info;

typedef struct {
    char *cache;         /* owned; the folder scanned */
    hub_repo_info *repos; /* owned [n], sorted by repo_id */
    int n;
} hub_cache_info;

/* Scans cache (NULL: the cache folder the environment names, hub.h's rules). A cache folder that
 * does not exist is an empty cache. 0, or -1 with err (out of memory, an unreadable folder). */
int hub_scan(const char *cache, hub_cache_info *out, char *err, size_t errlen);
void hub_scan_free(hub_cache_info *s);
/* The revision a name without @REVISION takes: the one refs/main names, else the only one,
 * else NULL. */
const hub_revision *hub_repo_main(const hub_repo_info *r);
/* huggingface_hub's _format_size: "42.2K", "298.5M" (powers of 1000). */
void hub_format_size(long long bytes, char *out, size_t n);

/* What model a snapshot folder holds. */
typedef struct {
    char family[16];     /* "marian", "m2m100", "xlate"; "" when config.json does not read */
    int nllb;            /* m2m100: an NLLB-200 tokenizer (codes like "deu_Latn") */
    char missing[512];   /* the files xlate needs that the folder lacks, ", "-joined; "" none */
    char problem[512];   /* why xlate cannot run it (config.json, a tokenizer or the weights
                            refused: the library's message); "" when nothing is known wrong */
    char source_lang[32], target_lang[32]; /* the one pair it translates: the repo's name
                            (opus-mt-SRC-TGT), else its files' codes; "" when it names none */
    char **langs;        /* owned [n_langs]: a multilingual model's target codes (>>xx<< tokens;
                            an M2M100 / NLLB model's language codes) */
    int n_langs;
} hub_model;

/* Probes dir (repo_id, "ORG/NAME" or NULL, gives an OPUS-MT pair by its name). check_weights:
 * also index the weights (a shard or a truncated file found). Never fails as a call: what it
 * could not read is in problem. */
void hub_probe(hub_model *m, const char *dir, const char *repo_id, int check_weights);
/* Probes dir for what choosing a model by language pair needs (hub_pair_find): the family, the
 * files' presence, the languages from the small files that list them (config.json,
 * tokenizer_config.json, special_tokens_map.json, vocab.json's keys); no SentencePiece model
 * loaded, no vocabulary built, so a broken tokenizer is said only when the model loads. */
void hub_probe_langs(hub_model *m, const char *dir, const char *repo_id);
void hub_model_free(hub_model *m);
/* 1 when the probe found the model complete and runnable. */
int hub_model_runs(const hub_model *m);

/* A cached model for the pair src -> tgt (ISO 639-1 codes, or a model's own codes). */
typedef struct {
    char repo_id[256];
    char dir[4096];      /* the snapshot folder to load */
    char family[16];
    char source_lang[32], target_lang[32]; /* the codes to give the model (--source-lang,
                            --target-lang): the model's own ("fra_Latn", "fra"); "" when the
                            model takes none (a one-pair model: no language token) */
} hub_pair_choice;

/* 1 and *out when a complete, runnable model in the cache serves src -> tgt (a one-pair OPUS-MT
 * model first, then a multilingual OPUS-MT model with the target's >>xx<< token, then M2M100 /
 * NLLB with both codes; the first repo id of each kind); 0 when none; -1 with err. */
int hub_pair_find(const char *cache, const char *src, const char *tgt, hub_pair_choice *out,
                  char *err, size_t errlen);
/* 1 when a model probed as m translates src -> tgt; *src_code / *tgt_code (may be NULL) then
 * point to the codes to give it (into m, a static table or the arguments; "" for none). */
int hub_model_serves(const hub_model *m, const char *src, const char *tgt,
                     const char **src_code, const char **tgt_code);
/* The model a user could pull for src -> tgt: "Helsinki-NLP/opus-mt-SRC-TGT" for two ISO 639
 * codes (a region dropped), else "facebook/nllb-200-distilled-600M". */
void hub_pair_suggest(const char *src, const char *tgt, char *out, size_t n);
/* 1 when two language codes name the same language: equal ignoring case, or one is the other
 * with a region ("en" and "en_US", "en-GB"). */
int hub_lang_eq(const char *a, const char *b);

#endif
