/* hub_pivot.h — a language pair no cached model serves, through a language two cached models
 * share (issue 48): src -> pivot by one, pivot -> tgt by the other (hub_pivot.c). */
#ifndef XLATE_HUB_PIVOT_H
#define XLATE_HUB_PIVOT_H
#include "hub/hub_scan.h"
#include <stddef.h>

/* 1 with the pivot language and both legs (as hub_pair_find picks each: a one-pair model first)
 * when no model serves src -> tgt directly but two chain through one language: English when it
 * can (argos-translate's preference), else the first language, in the order the cache's models
 * list their targets, that works. 0 when none does, with looked naming the runnable models of
 * the cache it looked at ("Helsinki-NLP/opus-mt-de-en (de -> en), ..."), so the message of a
 * pair that would need two pivots says what there is. -1 with err. */
int hub_pivot_find(const char *cache, const char *src, const char *tgt, char *pivot,
                   size_t pivot_len, hub_pair_choice *first, hub_pair_choice *second,
                   char *looked, size_t looked_len, char *err, size_t errlen);

#endif
