/* langid_data.h — the language identifier's model tables, generated into langid_data.c by
 * tools/langid/train.py (read-only data; the scorer is langid.c, docs/LANGID.md). */
#ifndef XLATE_LANGID_DATA_H
#define XLATE_LANGID_DATA_H

extern const int langid_n_langs;         /* languages, in langid_codes' order */
extern const int langid_n_features;      /* kept n-grams */
extern const int langid_qstep;           /* a stored byte is (log p - floor) * qstep */
extern const int langid_max_n;           /* n-grams of 1..max_n code points */
extern const char langid_codes[][4];     /* [n_langs] short codes ("de", "zt") */
extern const float langid_floor[];       /* [n_langs] log p of a kept n-gram never counted */
extern const unsigned langid_hash[];     /* [n_features] FNV-1a of each n-gram, ascending */
extern const unsigned langid_start[];    /* [n_features + 1] first value of each n-gram */
extern const unsigned short langid_vals[]; /* [langid_start[n_features]] language << 8 | byte */

#endif
