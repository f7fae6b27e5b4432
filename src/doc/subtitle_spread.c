/* subtitle_spread.c — subtitle_finish (formats.h): a translated subtitle unit spread back over
 * its cues. subtitle.c made a unit of one or more cues: the bytes between two cues are a void
 * element at the top (a cue boundary: its markup holds a line ending and "-->"), a line break
 * inside a cue a void element with a line ending and no "-->", the styling tags elements of
 * their own cue. After doc_translate their ranges are over the translation (u->out) as the
 * alignment put them; here
 * 1. every cue boundary goes to a word boundary, in order, every cue with at least one word:
 *    the largest set of boundaries that the alignment put in order with a word between each two
 *    stays where it put them (snapped to the nearest word boundary); each other one is placed
 *    between its kept neighbours at the word boundary nearest the share of the source's
 *    characters before it (measured on the source's cues, tags aside);
 * 2. each tag is clipped into its own cue's words (a VTT timestamp stays inside its cue's
 *    times), and a tag that held all of its cue's words in the source holds all of them;
 * 3. each line break goes where the alignment put it (snapped to a word boundary) when that
 *    leaves the lines' shares of the cue within a quarter of the source's, else to the word
 *    boundary nearest its line's share of the cue's source characters; after a word that
 *    ends a sentence when the source's next line starts with a dialogue dash (the dash is
 *    markup: the model never sees it); inside its parent tag,
 *    crossing none; where no word boundary is free (a cue of one word) the break is dropped
 *    and the cue is one line;
 * 4. the space at each boundary and break is taken out of the text (the markup stands there).
 * A translation with fewer words than cues gets "…" for each cue it cannot fill, at the end:
 * no cue is empty, none is added. */
#include "base/util.h"
#include "doc/formats.h"
#include <stdlib.h>
#include <string.h>

enum { K_TAG, K_CUE, K_BREAK };

static int kind_of(const doc *d, const doc_mark *m)
{
    if (m->n_open != 1 || m->n_keep > 0 || m->n_close > 0)
        return K_TAG;
    const doc_part *p = &d->mark_parts[m->open];
    int nl = 0, arrow = 0;
    if (p->unit >= 0)
        return K_TAG;
    for (size_t k = 0; k < p->len; k++) {
        nl |= p->s[k] == '\n';
        arrow |= k + 3 <= p->len && !memcmp(p->s + k, "-->", 3);
    }
    return !nl ? K_TAG : arrow ? K_CUE : K_BREAK;
}

/* Visible characters of the source bytes [a, e): code points that are not blanks, outside
 * tags <..> and {\..} on their line. */
static long vis(const char *a, const char *e)
{
    long n = 0;
    while (a < e) {
        if (*a == '<' || (*a == '{' && a + 1 < e && a[1] == '\\')) {
            const char *c = a + 1;
            while (c < e && *c != (*a == '<' ? '>' : '}') && *c != '\n')
                c++;
            if (c < e && *c != '\n') {
                a = c + 1;
                continue;
            }
        }
        unsigned char b = (unsigned char)*a;
        n += b != ' ' && b != '\t' && b != '\r' && b != '\n' && (b & 0xC0) != 0x80;
        a++;
    }
    return n;
}

/* 1 when a line break's markup holds a dialogue dash (subtitle.c leaves it out of the text). */
static int has_dash(const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (s[k] == '-' || (k + 3 <= n && !memcmp(s + k, "\xE2\x80", 2) &&
                            ((unsigned char)s[k + 2] == 0x93 || (unsigned char)s[k + 2] == 0x94)))
            return 1;
    return 0;
}

/* 1 when the word w[0, n) ends a sentence (. ! ? …, before closing quotes or brackets). */
static int word_ends(const char *w, size_t n)
{
    while (n > 0 && strchr("\"')]", w[n - 1]))
        n--;
    if (n >= 3 && (!memcmp(w + n - 3, "\xE2\x80\x9D", 3) || !memcmp(w + n - 3, "\xE2\x80\xA6", 3)))
        return 1;
    return n > 0 && (w[n - 1] == '.' || w[n - 1] == '!' || w[n - 1] == '?');
}

typedef struct {
    doc *d;
    doc_unit *u;
    const char *t;  /* the text the ranges are over (with fillers) */
    size_t len;
    size_t *ws, *we; /* [W] the words' bytes */
    long *T;        /* [W + 1] code points of the words before word j */
    int W;
} spread;

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The word boundary (index of the word after it, 0..W) nearest byte pos. */
static int snap(const spread *sp, size_t pos)
{
    int lo = 0, hi = sp->W; /* the first word starting after pos */
    while (lo < hi) {
        int m = lo + (hi - lo) / 2;
        if (sp->ws[m] <= pos)
            lo = m + 1;
        else
            hi = m;
    }
    int w = lo - 1;
    if (w >= 0 && pos < sp->we[w])
        return pos - sp->ws[w] <= sp->we[w] - pos ? w : w + 1;
    return w + 1;
}

/* The j in [lo, hi] whose T[j] is nearest c (the first of a tie); ok(j) must hold where given:
 * -1 when none. */
static int nearest(const spread *sp, int lo, int hi, double c, const unsigned char *ok)
{
    int best = -1;
    double bd = 0;
    for (int j = lo; j <= hi; j++) {
        if (ok && !ok[j])
            continue;
        double dd = (double)sp->T[j] - c;
        dd = dd < 0 ? -dd : dd;
        if (best < 0 || dd < bd) {
            best = j;
            bd = dd;
        }
    }
    return best;
}

static int in_src(const doc *d, const char *p)
{
    return p >= d->src && p <= d->src + d->src_len;
}

/* One unit; src0/src1: its source bytes (the first cue's text to the last's). */
static int spread_unit(doc *d, int ui, const char *src0, const char *src1, char *err,
                       size_t errlen)
{
    doc_unit *u = &d->units[ui];
    int R = u->n_ranges, B = 0, nbr = 0, rc = -1;
    int *kind = NULL, *cue = NULL, *bidx = NULL, *J = NULL, *a = NULL, *dp = NULL, *prev = NULL;
    int *cut = NULL;
    unsigned char *keep = NULL, *ok = NULL;
    const char **cs0 = NULL, **cs1 = NULL; /* [B + 1] each cue's source bytes */
    double *F = NULL;
    char *text = NULL;
    spread sp = {d, u, NULL, 0, NULL, NULL, NULL, 0};
    if (!(kind = malloc(sizeof(int) * ((size_t)R + 1))) ||
        !(cue = malloc(sizeof(int) * ((size_t)R + 1))))
        goto oom;
    for (int i = 0; i < R; i++) {
        kind[i] = kind_of(d, &u->marks[i]);
        if (kind[i] == K_CUE && u->ranges[i].parent >= 0)
            kind[i] = K_TAG; /* (never so: subtitle.c puts boundaries at the top) */
        B += kind[i] == K_CUE;
        nbr += kind[i] == K_BREAK;
        cue[i] = B; /* the cue it belongs to (a boundary: the cue it starts) */
    }
    if (B == 0 && nbr == 0) {
        rc = 0;
        goto done;
    }
    /* the text, with a filler word for each cue past the translation's words */
    const char *s0 = u->out ? u->out : u->text;
    size_t n0 = u->out ? u->out_len : u->len;
    int W0 = 0;
    for (size_t k = 0; k < n0; k++)
        W0 += !is_blank(s0[k]) && (k == 0 || is_blank(s0[k - 1]));
    int fill = W0 < B + 1 ? B + 1 - W0 : 0;
    if (!(text = malloc(n0 + 4 * (size_t)fill + 1)))
        goto oom;
    memcpy(text, s0, n0);
    sp.len = n0;
    for (int f = 0; f < fill; f++) {
        if (sp.len > 0)
            text[sp.len++] = ' ';
        memcpy(text + sp.len, "\xE2\x80\xA6", 3);
        sp.len += 3;
    }
    text[sp.len] = '\0';
    sp.t = text;
    if (!(sp.ws = malloc(sizeof(size_t) * ((size_t)W0 + (size_t)fill + 1))) ||
        !(sp.we = malloc(sizeof(size_t) * ((size_t)W0 + (size_t)fill + 1))) ||
        !(sp.T = malloc(sizeof(long) * ((size_t)W0 + (size_t)fill + 2))))
        goto oom;
    sp.T[0] = 0;
    for (size_t k = 0; k < sp.len;) {
        if (is_blank(text[k])) {
            k++;
            continue;
        }
        size_t e = k;
        long cp = 0;
        while (e < sp.len && !is_blank(text[e]))
            cp += ((unsigned char)text[e++] & 0xC0) != 0x80;
        sp.ws[sp.W] = k;
        sp.we[sp.W] = e;
        sp.T[sp.W + 1] = sp.T[sp.W] + cp;
        sp.W++;
        k = e;
    }
    int W = sp.W;
    /* the source's cues: between the boundaries' markup */
    if (!(bidx = malloc(sizeof(int) * ((size_t)B + 2))) ||
        !(J = malloc(sizeof(int) * ((size_t)B + 2))) ||
        !(a = malloc(sizeof(int) * ((size_t)B + 2))) ||
        !(dp = malloc(sizeof(int) * ((size_t)B + 2))) ||
        !(prev = malloc(sizeof(int) * ((size_t)B + 2))) || !(keep = calloc((size_t)B + 2, 1)) ||
        !(cs0 = malloc(sizeof(char *) * ((size_t)B + 1))) ||
        !(cs1 = malloc(sizeof(char *) * ((size_t)B + 1))) ||
        !(F = malloc(sizeof(double) * ((size_t)B + 2))) ||
        !(ok = malloc((size_t)W + 1)) || !(cut = malloc(sizeof(int) * ((size_t)B + (size_t)nbr + 1))))
        goto oom;
    int geom = in_src(d, src0) && in_src(d, src1) && src0 <= src1;
    for (int i = 0, k = 0; i < R; i++)
        if (kind[i] == K_CUE) {
            const doc_part *p = &d->mark_parts[u->marks[i].open];
            bidx[++k] = i;
            geom &= in_src(d, p->s) && in_src(d, p->s + p->len);
        }
    cs0[0] = src0;
    for (int k = 1; k <= B; k++) {
        const doc_part *p = &d->mark_parts[u->marks[bidx[k]].open];
        cs1[k - 1] = p->s;
        cs0[k] = p->s + p->len;
        geom &= cs0[k - 1] <= cs1[k - 1];
    }
    cs1[B] = src1;
    geom &= cs0[B] <= cs1[B];
    long total = 0, before = 0;
    for (int c = 0; geom && c <= B; c++)
        total += vis(cs0[c], cs1[c]);
    F[0] = 0;
    F[B + 1] = 1;
    for (int k = 1; k <= B; k++) {
        before += geom ? vis(cs0[k - 1], cs1[k - 1]) : 0;
        F[k] = geom && total > 0 ? (double)before / (double)total : (double)k / (B + 1);
    }
    /* 1. the boundaries: the longest chain the alignment put in order, the rest by share */
    int best = 0, best_k = 0;
    for (int k = 1; k <= B; k++) {
        a[k] = snap(&sp, u->ranges[bidx[k]].start);
        dp[k] = 0;
        prev[k] = 0;
        if (a[k] < k || a[k] > W - 1 - (B - k))
            continue;
        dp[k] = 1;
        for (int q = 1; q < k; q++)
            if (dp[q] > 0 && a[k] - a[q] >= k - q && dp[q] + 1 > dp[k]) {
                dp[k] = dp[q] + 1;
                prev[k] = q;
            }
        if (dp[k] > best) {
            best = dp[k];
            best_k = k;
        }
    }
    for (int k = best_k; k > 0; k = prev[k])
        keep[k] = 1;
    J[0] = 0;
    J[B + 1] = W;
    keep[0] = keep[B + 1] = 1;
    for (int k = 1; k <= B; k++)
        if (keep[k])
            J[k] = a[k];
    for (int kl = 0; kl <= B;) {
        int kr = kl + 1;
        while (!keep[kr])
            kr++;
        for (int k = kl + 1; k < kr; k++) {
            double share = F[kr] > F[kl] ? (F[k] - F[kl]) / (F[kr] - F[kl])
                                         : (double)(k - kl) / (kr - kl);
            double c = (double)sp.T[J[kl]] + share * (double)(sp.T[J[kr]] - sp.T[J[kl]]);
            J[k] = nearest(&sp, J[k - 1] + 1, J[kr] - (kr - k), c, NULL);
        }
        kl = kr;
    }
    /* 2. tags into their cues */
    for (int i = 0; i < R; i++) {
        if (kind[i] != K_TAG)
            continue;
        int c = cue[i];
        size_t lo = sp.ws[J[c]], hi = sp.we[J[c + 1] - 1];
        doc_range *r = &u->ranges[i];
        const doc_mark *m = &u->marks[i];
        int whole = 0;
        if (geom && m->n_open > 0 && m->n_keep == 0) {
            const doc_part *op = &d->mark_parts[m->open];
            const doc_part *cl = m->n_close > 0 ? &d->mark_parts[m->close + m->n_close - 1] : NULL;
            int opens = op->unit < 0 && op->len > 1 && op->s[0] == '<' && op->s[1] != '/' &&
                        !(op->s[1] >= '0' && op->s[1] <= '9') &&
                        !(op->len >= 3 && (op->s[1] | 0x20) == 'r' && (op->s[2] | 0x20) == 't');
            whole = opens && in_src(d, op->s) && op->s >= cs0[c] && vis(cs0[c], op->s) == 0 &&
                    (!cl || (cl->unit < 0 && in_src(d, cl->s) && cl->s + cl->len <= cs1[c] &&
                             vis(cl->s + cl->len, cs1[c]) == 0));
        }
        if (whole) {
            r->start = lo;
            r->end = hi;
        } else {
            r->start = r->start < lo ? lo : r->start > hi ? hi : r->start;
            r->end = r->end < r->start ? r->start : r->end > hi ? hi : r->end;
        }
    }
    /* 3. line breaks, cue by cue, in order */
    int n_cut = 0;
    for (int k = 1; k <= B; k++)
        cut[n_cut++] = J[k];
    for (int i = 0, j_prev = -1, c_prev = -1; i < R; i++) {
        if (kind[i] != K_BREAK)
            continue;
        int c = cue[i], L = 0, m = 0;
        if (c != c_prev)
            j_prev = J[c];
        c_prev = c;
        for (int q = i + 1; q < R && cue[q] == c; q++)
            L += kind[q] == K_BREAK; /* (the breaks after this one in its cue) */
        const doc_part *bp = &d->mark_parts[u->marks[i].open];
        int p = u->ranges[i].parent;
        int lo = j_prev + 1, hi = J[c + 1] - 1 - L;
        double share = 0.5;
        int dialogue = 0;
        if (geom && in_src(d, bp->s) && bp->s >= cs0[c] && bp->s + bp->len <= cs1[c]) {
            long all = vis(cs0[c], cs1[c]);
            share = all > 0 ? (double)vis(cs0[c], bp->s) / (double)all : 0.5;
            dialogue = has_dash(bp->s, bp->len);
        }
        for (int j = 0; j <= W; j++)
            ok[j] = 0;
        for (int j = lo > 1 ? lo : 1; j <= hi && j < W; j++) {
            size_t g0 = sp.we[j - 1], g1 = sp.ws[j];
            int fine = p < 0 || (u->ranges[p].start <= g1 && u->ranges[p].end >= g0);
            for (int q = 0; fine && q < R; q++)
                fine = !(q != i && kind[q] == K_TAG && u->ranges[q].parent == p &&
                         u->ranges[q].start < g0 && u->ranges[q].end > g1);
            ok[j] = (unsigned char)fine;
            m += fine && dialogue && word_ends(text + sp.ws[j - 1], sp.we[j - 1] - sp.ws[j - 1]);
        }
        if (m > 0) /* a dialogue: only after a sentence's end */
            for (int j = 1; j <= W; j++)
                ok[j] &= word_ends(text + sp.ws[j - 1], sp.we[j - 1] - sp.ws[j - 1]);
        double cc = (double)sp.T[J[c]] + share * (double)(sp.T[J[c + 1]] - sp.T[J[c]]);
        int j = lo <= hi ? nearest(&sp, lo, hi, cc, ok) : -1;
        /* where the alignment put it, when that is free and the lines' shares stay within a
         * quarter of the cue of the source's: "a red / jacket" is no place to break */
        int aj = snap(&sp, u->ranges[i].start);
        long span_c = sp.T[J[c + 1]] - sp.T[J[c]];
        if (j >= 0 && aj >= lo && aj <= hi && ok[aj] && span_c > 0) {
            double got = (double)(sp.T[aj] - sp.T[J[c]]) / (double)span_c;
            if (got - share <= 0.25 && share - got <= 0.25)
                j = aj;
        }
        if (j < 0) { /* no room: the break writes nothing, at its parent's start */
            u->marks[i].n_open = 0;
            u->ranges[i].start = u->ranges[i].end = p >= 0 ? u->ranges[p].start : sp.ws[J[c]];
            continue;
        }
        u->ranges[i].start = u->ranges[i].end = sp.ws[j];
        cut[n_cut++] = j;
        j_prev = j;
    }
    for (int k = 1; k <= B; k++)
        u->ranges[bidx[k]].start = u->ranges[bidx[k]].end = sp.ws[J[k]];
    /* 4. the blanks before each cut word out of the text; every offset moved with them */
    for (int x = 1; x < n_cut; x++) /* (insertion sort: a few cuts) */
        for (int y = x; y > 0 && cut[y - 1] > cut[y]; y--) {
            int t = cut[y];
            cut[y] = cut[y - 1];
            cut[y - 1] = t;
        }
    for (int i = 0; i < R; i++) {
        size_t *e2[2] = {&u->ranges[i].start, &u->ranges[i].end};
        for (int h = 0; h < 2; h++) {
            size_t x = *e2[h] > sp.len ? sp.len : *e2[h], gone = 0;
            for (int q = 0; q < n_cut; q++) {
                size_t g0 = sp.we[cut[q] - 1], g1 = sp.ws[cut[q]];
                if (x >= g1)
                    gone += g1 - g0;
                else if (x > g0)
                    gone += x - g0;
            }
            *e2[h] = x - gone;
        }
    }
    size_t o = 0, from = 0;
    for (int q = 0; q <= n_cut; q++) {
        size_t to = q < n_cut ? sp.we[cut[q] - 1] : sp.len;
        memmove(text + o, text + from, to - from);
        o += to - from;
        from = q < n_cut ? sp.ws[cut[q]] : sp.len;
    }
    text[o] = '\0';
    free(u->out);
    u->out = text;
    u->out_len = o;
    text = NULL;
    rc = 0;
    goto done;
oom:
    xerr(err, errlen, "out of memory");
done:
    free(kind);
    free(cue);
    free(bidx);
    free(J);
    free(a);
    free(dp);
    free(prev);
    free(keep);
    free(ok);
    free(cut);
    free(cs0);
    free(cs1);
    free(F);
    free(text);
    free(sp.ws);
    free(sp.we);
    free(sp.T);
    return rc;
}

int subtitle_finish(doc *d, const doc_opts *o, char *err, size_t errlen)
{
    (void)o;
    /* each unit's source bytes: from the end of the kept part before it to the start of the
     * kept part after it (subtitle.c writes a unit between kept parts, or at the end) */
    for (int i = 0; i < d->n_parts; i++) {
        int ui = d->parts[i].unit;
        if (ui < 0 || ui >= d->n_units || d->units[ui].n_ranges == 0)
            continue;
        const doc_part *pb = i > 0 && d->parts[i - 1].unit < 0 ? &d->parts[i - 1] : NULL;
        const doc_part *pa = i + 1 < d->n_parts && d->parts[i + 1].unit < 0 ? &d->parts[i + 1]
                                                                           : NULL;
        const char *s0 = pb ? pb->s + pb->len : NULL;
        const char *s1 = pa ? pa->s : d->src + d->src_len;
        if (spread_unit(d, ui, s0, s1, err, errlen))
            return -1;
    }
    return 0;
}
