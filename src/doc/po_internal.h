/* po_internal.h — what the gettext PO reader (po.c: lines, entries, the header) and the
 * message's own syntax (po_fmt.c: format directives, markup, accelerators, escapes made into
 * a unit's elements; the fix-ups after translation; the Plural-Forms table) share. Private to
 * these two files. */
#ifndef XLATE_DOC_PO_INTERNAL_H
#define XLATE_DOC_PO_INTERNAL_H
#include "base/strbuf.h"
#include "doc/doc.h"
#include <stddef.h>

/* What a message's flags (the "#," line) and its text say, one byte a unit: how a
 * translation's stray bytes are read after translation (po_fix_unit). */
enum {
    PO_C = 1,       /* c-format: a lone '%' in a translation is doubled, directives kept */
    PO_NO_C = 2,    /* no-c-format: '%' is text */
    PO_PY = 4,      /* python-format: %(name)s too */
    PO_BRACE = 8,   /* python-brace-format: {name}, {0}; a lone brace doubled */
    PO_DIR = 16,    /* the message has %-directives (flagged or found) */
    PO_ACC_US = 32, /* the message has a '_' accelerator (GTK) */
    PO_ACC_AMP = 64, /* ... a '&' accelerator (Qt, KDE) */
    PO_BR = 128,     /* the message has {name} directives */
    PO_DL = 256,     /* ... ${name} ones */
    PO_US_TEXT = 512 /* ... a '_' in its text (not an accelerator, not an identifier) */
};

/* The Plural-Forms value ("nplurals=2; plural=n != 1;") for a language code ("de", "pt_BR",
 * "pt-BR", "ru_RU"), or NULL when the table has none. */
const char *po_plural_forms(const char *lang);
/* nplurals=N in a Plural-Forms value s[0..len), or 0 when none (or not 1..6). */
int po_nplurals(const char *s, size_t len);

/* Appends s[0..len) to b written inside a C string literal ("\\", "\"", "\n", "\t", other
 * control bytes as octal). Returns 0 or -1 (out of memory). */
int po_escape(strbuf *b, const char *s, size_t len);

/* Builds the unit from a message's decoded text t[0..n) (no leading or trailing blanks or
 * line breaks: the caller keeps those): %-directives, {name}, ${x} and character entities as
 * keep elements; paired tags (<b>..</b>) as elements, unpaired ones and line breaks (\n,
 * \t, control bytes) as void elements with their escaped markup; one accelerator ('_' or
 * '&' before a letter at a word's start) taken out of the text as a void element. *flags
 * (PO_*) comes in with the entry's flags and goes out with what was found. Returns 0, or -1
 * (out of memory) with a message. */
int po_build_unit(doc *d, int unit, const char *t, size_t n, int *flags, char *err,
                  size_t errlen);

/* 1 when t[0..n) has a letter outside its directives and markup (a message worth giving the
 * model; "%s: %s" is not). */
int po_has_words(const char *t, size_t n, int flags);

/* After translation (u->out, the ranges over it): bytes the model wrote that would make new
 * directives or accelerators taken out (a lone '%' of a c-format message doubled), the
 * accelerators moved before a letter, and the non-positional directives written in their
 * source order. Returns 0, or -1 (out of memory). */
int po_fix_unit(doc *d, int unit, int flags, char *err, size_t errlen);

#endif
