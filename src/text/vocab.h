/* vocab.h — a Hugging Face vocab.json: one JSON object mapping each piece (a string) to its id.
 * MarianMT models number their embedding rows by it, not by the SentencePiece model's ids. */
#ifndef XLATE_VOCAB_H
#define XLATE_VOCAB_H
#include <stddef.h>

typedef struct {
    int n;            /* ids are [0, n): n = the model's vocabulary size */
    char **piece;     /* [n] owned; NULL for an id no piece maps to */
    size_t *len;      /* [n] byte length of piece[i] */
    int *slot;        /* [cap] hash table of ids (-1: empty), open addressing */
    size_t cap;       /* power of two */
} vocab;

/* Reads path: exactly n pieces (n: config.json's `field`), every id in [0, n) and belonging to
 * one piece only. Messages name the file, the piece and the id. */
int vocab_load(vocab *v, const char *path, int n, const char *field, char *err, size_t errlen);
/* The same from JSON text (fuzzing); name is used in messages. */
int vocab_parse(vocab *v, const char *json, size_t len, const char *name, int n,
                const char *field, char *err, size_t errlen);
/* The id of piece s[0, len), or -1. */
int vocab_find(const vocab *v, const char *s, size_t len);
void vocab_free(vocab *v);

#endif
