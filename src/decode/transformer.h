/* transformer.h — the encoder and decoder stacks and their run state.
 *
 * Sentences travel packed, without padding: the encoder output of sentence i is rows
 * [off[i], off[i] + len[i]) of one [N, d] matrix, so no product is spent on padding and
 * masking the source padding is simply never looking past len[i]. */
#ifndef XLATE_TRANSFORMER_H
#define XLATE_TRANSFORMER_H
#include "model/model.h"
#include "kernels/pool.h"
#include <stddef.h>

/* Encoder scratch, grown to the largest batch seen; owned by the caller. */
typedef struct {
    float *x;      /* [N, d] residual stream */
    float *h;      /* [N, d] normed input of a sub-layer (pre-norm) */
    float *qkv;    /* [N, 3d] */
    float *ctx;    /* [N, d] attention output before the o projection */
    float *ff;     /* [N, F] */
    float *scores; /* [threads, S*S] */
    size_t cap_tokens, cap_scores;
    int whole_batch; /* 1: one sgemm over the batch (not batch-invariant), 0: one per sentence */
} encoder_scratch;

/* Runs the encoder over n sentences: ids[i] holds lens[i] ids (eos included), each len in
 * [1, max_positions]; pos: the position table, at least max(lens) rows of d. out: [sum(lens), d].
 * Returns 0, or -1 when out of memory. */
int encoder_forward(const model_weights *m, pool *p, encoder_scratch *s, const float *pos, int n,
                    const int *const *ids, const int *lens, float *out, char *err, size_t errlen);
/* The bytes of the scratch encoder_forward holds for n sentences of lens tokens with threads
 * compute threads (the output not counted: the caller's); with held, what the scratch holds
 * after it (each buffer the larger of its size and the batch's: buffers only grow). */
size_t encoder_plan_bytes(const model_config *c, const encoder_scratch *held, int threads, int n,
                          const int *lens);
void encoder_scratch_free(encoder_scratch *s);

/* Rows of one source that one cross-attention task takes at a time (the hypotheses of a
 * beam read the same memory rows; each query's arithmetic is the same whatever the group). */
#define DEC_ATTN_GROUP 8

/* The decoder's run state: the self-attention KV cache of every slot (a hypothesis being
 * decoded), the cross-attention keys/values of every source sentence, step scratch. */
typedef struct {
    int n_slots;    /* hypotheses with a cache */
    int cap;        /* positions each slot can hold */
    float *k, *v;   /* [L][n_slots][H][cap][dh]; row (slot s, position t) is written once, by
                       the step at t for the hypothesis then in s, and never changed after */
    size_t *kv_rows; /* [n_slots][cap] where slot s's hypothesis finds position t, in floats from
                        its (layer, head)'s cache of slot 0: (s' H cap + t) dh, s' the slot
                        whose hypothesis computed it (an ancestor, or s itself) */
    size_t kv_rows_cap; /* entries kv_rows holds */
    int n_src;
    float *mem_kv;  /* [N_src, L*2d]: per source row, every layer's cross k then v */
    int *src_off;   /* [n_src + 1] first row of source i in mem_kv; [n_src] = N */
    int *src_len;   /* [n_src] */
    int *runs;      /* [max_rows + 1] a step's cross-attention groups: rows runs[g] ..
                       runs[g + 1] - 1 attend to the same source (at most DEC_ATTN_GROUP) */
    int n_runs;
    int max_src;    /* longest source */
    int max_rows;   /* rows a step can take */
    const float *pos; /* position table, at least cap rows of d */
    int whole_batch; /* 1: one sgemm per product over all rows (not batch-invariant) */
    /* Step scratch, one buffer a purpose except qkv; none aliases another. */
    float *x;       /* [rows, d] residual stream */
    float *h;       /* [rows, d] normed input of a sub-layer (pre-norm), the final norm */
    float *qkv;     /* [rows, 3d] self-attention q | k | v of a row; then, in the same layer,
                       the cross-attention q as [rows, d] (row stride d, not 3d) */
    float *ctx;     /* [rows, d] attention output before the o projection */
    float *ff;      /* [rows, F] */
    float *scores;  /* [threads, max(cap, DEC_ATTN_GROUP * max_src)] */
    /* Alignments (decoder_capture): the cross-attention probabilities of decoder layer
       attn_layer (-1: none captured, the default after decoder_begin) */
    int attn_layer;
    float *attn_heads; /* [max_rows, H, max_src] per head, of the step's rows */
    float *attn;       /* [max_rows, max_src] row r's average over the heads (h = 0..H-1 in
                          order, then / H: the same bits for any batch and thread count);
                          entries t < src_len[srcs[r]] are set */
    size_t cap_floats[11]; /* current sizes of the buffers above, to grow them (BUF_*) */
    double attn_s;  /* wall seconds in the attention (self and cross, their caches' writes and
                       the heads' average) since the state was made: a part of the steps' time
                       that -v reports (xlate_time_split.attention_s); never reset */
} decoder_state;

/* Sizes the state for n_slots hypotheses of up to cap positions (pos: the position table, at
 * least cap rows), rows per step, over the sources whose encoder output is enc
 * ([sum(lens), d]); projects every decoder layer's cross-attention keys and values from it at
 * once. Keeps buffers that are big enough. */
int decoder_begin(const model_weights *m, pool *p, decoder_state *st, const float *pos,
                  int n_slots, int cap, int max_rows, int n_src, const int *lens, const float *enc,
                  char *err, size_t errlen);

/* The bytes of the buffers decoder_begin (and decoder_capture, when capture) holds for that
 * shape, with threads compute threads: the self-attention caches (L x n_slots x cap x 2d
 * floats) and where their rows lie, the cross-attention keys and values (sum(lens) x L x 2d),
 * the step's scratch. With held (a state that may hold buffers already): what the state holds
 * after decoder_begin, each buffer the larger of its size and the shape's. */
size_t decoder_plan_bytes(const model_config *c, const decoder_state *held, int threads,
                          int n_slots, int cap, int max_rows, int n_src, const int *lens,
                          int capture);

/* After decoder_begin: each step also leaves in st->attn the cross-attention probabilities
 * of decoder layer `layer` averaged over its heads (layer -1: none, as decoder_begin leaves it).
 * Sized for decoder_begin's max_rows and sources. */
int decoder_capture(const model_weights *m, decoder_state *st, int layer, char *err,
                    size_t errlen);

/* One step for `rows` hypotheses at decoder position pos (all rows share it): row r feeds
 * tokens[r], keeps its cache in slot slots[r] and attends to source srcs[r]. Writes
 * logits[rows, Vt]. Positions < pos of each slot must have been filled by earlier steps. */
void decoder_step(const model_weights *m, pool *p, decoder_state *st, int rows,
                  const int *tokens, const int *slots, const int *srcs, int pos, float *logits);

/* The same step up to the output projection: returns the rows' final hidden states ([rows, d],
 * inside st, valid until the next step), the input of m->out. decoder_step = this, then
 * decoder_logits. */
const float *decoder_hidden(const model_weights *m, pool *p, decoder_state *st, int rows,
                            const int *tokens, const int *slots, const int *srcs, int pos);
/* logits[rows, Vt] = h m->out^T: the output projection of decoder_hidden's rows. */
void decoder_logits(const model_weights *m, pool *p, const decoder_state *st, const float *h,
                    int rows, float *logits);

/* Slot dst's hypothesis takes positions [from, npos) of slot src's (beam reordering): only
 * where they lie (kv_rows) is copied, never the keys and values. */
void decoder_copy_slot(const model_weights *m, decoder_state *st, int dst, int src, int from,
                       int npos);

void decoder_state_free(decoder_state *st);

#endif
