/* spm.h — SentencePiece tokenizer: .model reader, normalizer, unigram/BPE/word/char encode,
 * decode. Output is identical to the sentencepiece library (0.1.97) EncodeAsIds / DecodeIds.
 * See docs/TOKENIZER.md for what is implemented and how it was checked. */
#ifndef XLATE_SPM_H
#define XLATE_SPM_H
#include <stddef.h>

typedef struct spm_model spm_model; /* opaque, immutable after load, shareable across threads */

/* Loads a serialized ModelProto. Returns 0, or -1 with a one-line message naming the file and
 * what is wrong (unreadable, truncated protobuf, no <unk>, broken charsmap, ...). */
int spm_load(spm_model **out, const char *path, char *err, size_t errlen);
/* Same from a buffer (the model copies what it keeps); `name` is used in messages. */
int spm_load_from_memory(spm_model **out, const void *data, size_t len, const char *name,
                         char *err, size_t errlen);
void spm_free(spm_model *m); /* accepts NULL */

int spm_vocab_size(const spm_model *m);
/* Special ids as the library reports them: -1 when the piece is absent or of the wrong type. */
int spm_unk_id(const spm_model *m);
int spm_bos_id(const spm_model *m);
int spm_eos_id(const spm_model *m);
int spm_pad_id(const spm_model *m);
const char *spm_id_to_piece(const spm_model *m, int id); /* NULL when out of range */

/* Encodes len bytes (not necessarily NUL-terminated; may hold invalid UTF-8 and NUL bytes) into
 * ids, exactly as sentencepiece's EncodeAsIds. *ids is malloc'd (caller frees; may be NULL when
 * *n==0). Returns 0, or -1 only on out-of-memory (message in err). Thread-safe for concurrent
 * calls on one model. */
int spm_encode(const spm_model *m, const char *text, size_t len, int **ids, int *n, char *err,
               size_t errlen);

/* The same ids, and *spans [2 * *n] (malloc'd; NULL when *n == 0): id i covers the bytes
 * [(*spans)[2i], (*spans)[2i+1]) of text, as the library's SentencePieceText begin/end (byte
 * offsets in C++): through the normalizer's alignment, a normalized byte belongs to where the
 * rule that wrote it starts in text, so a piece spans from its first byte's rule to the next
 * piece's; the dummy-prefix U+2581 belongs to the first kept character (covering nothing of its
 * own), a kept space's U+2581 to the whitespace run it stands for. The byte pieces of one
 * unknown character: all but the last [begin, begin), the last the character's span. Merged
 * unknown pieces: the run's span. len must be <= INT_MAX - 64 (else -1 with a message). */
int spm_encode_spans(const spm_model *m, const char *text, size_t len, int **ids, int **spans,
                     int *n, char *err, size_t errlen);

/* The pieces of the same encoding, as the library's EncodeAsPieces (encode(out_type=str)): a
 * piece's text in the normalized input (consecutive unknown pieces merged into one), a byte
 * fallback piece's name. *buf holds the n pieces one after the other, piece i at
 * [(*offs)[i], (*offs)[i+1]); both malloc'd (NULL when *n == 0). With spans != NULL also the
 * pieces' spans in text as spm_encode_spans gives them (same limit on len). */
int spm_encode_pieces(const spm_model *m, const char *text, size_t len, char **buf,
                      size_t **offs, int **spans, int *n, char *err, size_t errlen);

/* Decodes ids as sentencepiece's DecodeIds: control pieces dropped, U+2581 to space, leading
 * space of the sentence removed as the library does, byte pieces <0xXX> reassembled into UTF-8
 * (invalid bytes become U+FFFD). Out-of-range ids: -1 with a message naming the id.
 * *text is malloc'd and NUL-terminated; *len excludes the NUL (the text may hold NUL bytes). */
int spm_decode(const spm_model *m, const int *ids, int n, char **text, size_t *len, char *err,
               size_t errlen);
/* The same text, and *spans [2 * n] (malloc'd; NULL when n == 0): id i wrote the bytes
 * [(*spans)[2i], (*spans)[2i+1]) of *text, as the library's decode_ids_as_immutable_proto
 * begin/end (in bytes): a control piece [pos, pos) where it stands, a piece that lost its
 * leading U+2581 only what it still wrote, the byte pieces of one character all but the last
 * [pos, pos) and the last the character (an invalid byte: its U+FFFD). With a denormalizer the
 * spans are moved into the denormalized text (to the first byte written from each offset). */
int spm_decode_spans(const spm_model *m, const int *ids, int n, char **text, size_t *len,
                     int **spans, char *err, size_t errlen);
/* The same for pieces (DecodePieces): piece i is pieces[offs[i], offs[i+1]); a piece the model
 * lacks is written as it is. */
int spm_decode_pieces(const spm_model *m, const char *pieces, const size_t *offs, int n,
                      char **text, size_t *len, char *err, size_t errlen);

#endif
