/* split_speed.c — the sentence splitter's speed (docs/SPLITTING.md): MB/s of split_sentences
 * over the lines of a file, repeated. Not built by make:
 *   cc -O2 -std=c11 -D_GNU_SOURCE -Isrc bench/split_speed.c build/libxlate.a \
 *      $(pkg-config --libs openblas libcjson) -lm -lpthread -o build/split_speed
 *   build/split_speed PARAGRAPHS.txt en 20 */
#include "text/split.h"
#include "base/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    char *d, err[200];
    size_t n;
    if (argc < 3) {
        fprintf(stderr, "usage: split_speed FILE LANG [REPEATS]\n");
        return 1;
    }
    if (read_file(argv[1], &d, &n, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int reps = argc > 3 ? atoi(argv[3]) : 20;
    long total = 0;
    double t0 = now_seconds();
    for (int r = 0; r < reps; r++)
        for (char *p = d, *e; p < d + n; p = e + 1) {
            split_span *v;
            int k;
            e = memchr(p, '\n', (size_t)(d + n - p));
            if (!e)
                e = d + n;
            if (split_sentences(p, (size_t)(e - p), argv[2], &v, &k, err, sizeof err)) {
                fprintf(stderr, "%s\n", err);
                return 1;
            }
            total += k;
            free(v);
        }
    double t = now_seconds() - t0;
    printf("%.1f MB/s (%ld sentences, %d passes over %zu bytes)\n", n * (double)reps / t / 1e6,
           total, reps, n);
    free(d);
    return 0;
}
