/* model_out.c — the tied output projection when a run first needs it (model.h): packed into
 * panels, or its int8 screen built, under the model's lock (model_out_need), a row of it
 * exactly as the packed kernel would compute it (model_out_exact), and an embedding row read
 * from those panels once they exist (model_embed_row). Split from model.c, which binds the
 * weights at load. */
#include "model/model.h"
#include "model/weights.h"
#include "kernels/ops.h"
#include "base/util.h"
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* model_weights.out_lazy: the lock of model_out_need and the panels it packs. */
typedef struct {
    pthread_mutex_t lock;
    void *panels;       /* out.packed when packed from out_src; NULL before */
    _Atomic int whole;  /* 1 once every panel is written (model_embed_row reads them, lock-free) */
} out_lazy;

/* 1 when table e is out_src and the lazily packed panels are whole and hold its values
 * exactly (f32 panels, or an F16 file's f16): a lookup reads its row there. The file's pages
 * were released while packing (out_rows); reading them again would fault a page back for
 * each distinct token looked up, resident beside the panels' copy for the rest of the run:
 * at NLLB's 2 KiB rows, up to 4 KiB a token (issue 40: 6,400 decoded tokens, ~25 MiB). */
static int table_in_panels(const model_weights *m, const embed_table *e)
{
    out_lazy *z = m->out_lazy;
    return z && m->out_src && e->w == m->out_src->data &&
           (m->out.type == WT_F32 || (m->out.type == WT_F16 && e->dtype == ST_F16)) &&
           atomic_load_explicit(&z->whole, memory_order_acquire);
}

void model_embed_row(const model_weights *m, int tgt, int id, float *out)
{
    int d = m->cfg.d_model;
    const float *f32 = tgt ? m->tgt_embed : m->src_embed;
    const embed_table *e = tgt ? &m->tgt_table : &m->src_table;
    if (f32)
        memcpy(out, f32 + (size_t)id * d, (size_t)d * sizeof *out);
    else if (e->from_out || table_in_panels(m, e))
        linear_unpack_row(&m->out, id, out);
    else
        st_to_f32(out, (const char *)e->w + (size_t)id * d * st_dtype_size(e->dtype), e->dtype,
                  (size_t)d);
}

void *model_out_lazy_new(void)
{
    out_lazy *z = calloc(1, sizeof *z);
    if (z && pthread_mutex_init(&z->lock, NULL) != 0) {
        free(z);
        z = NULL;
    }
    return z;
}

void model_out_lazy_free(void *p)
{
    out_lazy *z = p;
    if (!z)
        return;
    pthread_mutex_destroy(&z->lock);
    free(z->panels);
    free(z);
}

/* Rows [r0, r1) of out_src as f32 into w[r1 - r0][d]: its values exactly (they were checked
 * at load); the slice's mapped pages are released after (screen_build_rows's rows). */
static void out_rows(void *user, int r0, int r1, float *w)
{
    const model_weights *m = user;
    const st_tensor *t = m->out_src;
    size_t es = st_dtype_size(t->dtype), d = (size_t)m->cfg.d_model;
    const char *p = (const char *)t->data + (size_t)r0 * d * es;
    st_to_f32(w, p, t->dtype, (size_t)(r1 - r0) * d);
    st_release(&m->file, p, (size_t)(r1 - r0) * d * es);
}

int model_out_need(const model_weights *cm, int parts, pool *p, char *err, size_t errlen)
{
    /* the model is not a const object (model_bind_as fills it): the cache it holds fills here,
     * under its lock */
    model_weights *m = (model_weights *)(uintptr_t)cm;
    out_lazy *z = m->out_lazy;
    int rc = 0;
    if (!z)
        return 0;
    pthread_mutex_lock(&z->lock);
    if ((parts & MODEL_OUT_PACKED) && m->out_src && !m->out.packed) {
        /* as pack_tensor packs it at load: a slice of rows at a time through f32 */
        int V = m->out.out, d = m->out.in, step = (int)(((size_t)1 << 20) / (size_t)d);
        size_t bytes = linear_packed_bytes(m->out.type, V, d);
        void *mem = aligned_alloc(64, bytes);
        float *tmp = malloc((size_t)step * d * sizeof *tmp);
        if (!mem || !tmp) {
            free(mem);
            free(tmp);
            rc = xerr(err, errlen, "%s: out of memory packing the output projection (%zu MB)",
                      m->file.path, bytes >> 20);
            goto done;
        }
        memset(mem, 0, bytes);
        for (int r = 0; r < V; r += step) {
            int nr = V - r < step ? V - r : step;
            out_rows(m, r, r + nr, tmp);
            linear_pack_rows(&m->out, mem, m->out.type, r, r + nr, tmp);
        }
        free(tmp);
        z->panels = mem;
        atomic_store_explicit(&z->whole, 1, memory_order_release);
    }
    if ((parts & MODEL_OUT_SCREEN) && m->screen_ok && !m->out_screen.mem) {
        /* from the panels when they exist, else from the file's rows: the same screen */
        int bad = m->out.packed ? screen_build(&m->out_screen, &m->out, p)
                                : screen_build_rows(&m->out_screen, m->out.type, m->out.out,
                                                    m->out.in, m->out.b, out_rows, m, p);
        if (bad)
            rc = xerr(err, errlen, "%s: out of memory building the output projection's int8 "
                      "screen", m->file.path);
    }
done:
    pthread_mutex_unlock(&z->lock);
    return rc;
}

int model_out_built(const model_weights *m)
{
    out_lazy *z = m->out_lazy;
    int r;
    if (z)
        pthread_mutex_lock(&z->lock);
    r = (m->out.packed || m->out.w ? MODEL_OUT_PACKED : 0) |
        (m->out_screen.mem ? MODEL_OUT_SCREEN : 0);
    if (z)
        pthread_mutex_unlock(&z->lock);
    return r;
}

size_t model_out_exact_bytes(const model_weights *m)
{
    if (!m->out_src)
        return 0;
    /* one panel of out's type, then the row as f32 */
    return linear_packed_bytes(m->out.type, 16, m->out.in) +
           (((size_t)m->out.in * sizeof(float) + 63) & ~(size_t)63);
}

float model_out_exact(const model_weights *m, const float *x, int n, void *scratch)
{
    size_t pb = linear_packed_bytes(m->out.type, 16, m->out.in);
    float *row = (float *)(void *)((uint8_t *)scratch + pb), acc;
    const st_tensor *t = m->out_src;
    /* column 0 of a one-panel linear: the packed kernel's chain for output n (gemm.c's
     * gemm_packed_output reads only that column) */
    linear one = {NULL, NULL, 16, m->out.in, m->out.type, NULL, NULL};
    st_to_f32(row, (const char *)t->data + (size_t)n * m->out.in * st_dtype_size(t->dtype),
              t->dtype, (size_t)m->out.in);
    if (m->out.type == WT_F32 || (m->out.type == WT_F16 && t->dtype == ST_F16)) {
        /* the panel would hold these very values (f32, or an f16 file's f16): its chain,
         * fmaf over k in order, without packing the row first (greedy asks for a few
         * candidates a row: the packing was half of each one's cost) */
        acc = 0;
        for (int k = 0; k < m->out.in; k++)
            acc = fmaf(x[k], row[k], acc);
    } else {
        linear_pack_rows(&one, scratch, one.type, 0, 1, row);
        acc = gemm_packed_output(&one, x, 0);
    }
    return m->out.b ? acc + m->out.b[n] : acc;
}

