/* fuzz_ids_cli.c — the id-line pipe end to end: the input is written to a file and translated
 * by cmd_translate (src/cli/cli_translate.c, what `xlate` runs) as
 *   xlate -m tests/fixtures/parity/post_relu_tied --input-format ids --output-format ids
 *         -i IN -o OUT -q [options chosen by the input's first byte]
 * (the id-line parser is static in cli_translate.c, so it is reached through the command).
 * The first byte picks the batch size (1, 2, 3, 32), threads (1, 2), beam size (1, 1, 2, 4),
 * --max-length (default, 1, 3, 12) and whether --batch-tokens 7 is given; the rest is the file.
 * Properties: the exit status is 0 or 3 (bad input); with 0, one output line per input line
 * (a last line without "\n" counts), each empty or ids of the target vocabulary, and the same
 * bytes as batch size 1 with one thread (a translation does not depend on its batch); with 3,
 * fewer output lines than input lines. */
#include "cli/cli.h"
#include "fuzz.h"
#include <fcntl.h>
#include <unistd.h>

#define FUZZ_IDS_MODEL "tests/fixtures/parity/post_relu_tied"
#define FUZZ_IDS_TGT_VOCAB 61

typedef struct {
    char in[64], out[64], model[4096];
} fuzz_ids_files;

static fuzz_ids_files fuzz_ids_f;

static void fuzz_ids_cleanup(void)
{
    unlink(fuzz_ids_f.in);
    unlink(fuzz_ids_f.out);
}

static fuzz_ids_files *fuzz_ids_setup(void)
{
    fuzz_ids_files *f = &fuzz_ids_f;
    if (!f->in[0]) {
        int a, b;
        snprintf(f->in, sizeof f->in, "/tmp/xlate-fuzz-in-XXXXXX");
        snprintf(f->out, sizeof f->out, "/tmp/xlate-fuzz-out-XXXXXX");
        a = mkstemp(f->in);
        b = mkstemp(f->out);
        if (a < 0 || b < 0) {
            perror("fuzz_ids_cli: mkstemp");
            exit(2);
        }
        close(a);
        close(b);
        atexit(fuzz_ids_cleanup);
        fuzz_path(f->model, sizeof f->model, FUZZ_IDS_MODEL);
    }
    return f;
}

/* Runs the command on the current input file; returns the exit status, output in *out. */
static int fuzz_ids_run(const fuzz_ids_files *f, int batch, int threads, int beam, int max_len,
                        int batch_tokens, char **out, size_t *out_len)
{
    char sb[16], st[16], sk[16], sm[16], sbt[16];
    char *argv[32];
    int argc = 0, rc;
    snprintf(sb, sizeof sb, "%d", batch);
    snprintf(st, sizeof st, "%d", threads);
    snprintf(sk, sizeof sk, "%d", beam);
    snprintf(sm, sizeof sm, "%d", max_len);
    snprintf(sbt, sizeof sbt, "%d", batch_tokens);
    argv[argc++] = "xlate";
    argv[argc++] = "-m";
    argv[argc++] = (char *)f->model;
    argv[argc++] = "--input-format";
    argv[argc++] = "ids";
    argv[argc++] = "--output-format";
    argv[argc++] = "ids";
    argv[argc++] = "-i";
    argv[argc++] = (char *)f->in;
    argv[argc++] = "-o";
    argv[argc++] = (char *)f->out;
    argv[argc++] = "-q";
    argv[argc++] = "--batch-size";
    argv[argc++] = sb;
    argv[argc++] = "--threads";
    argv[argc++] = st;
    argv[argc++] = "--beam-size";
    argv[argc++] = sk;
    if (max_len) {
        argv[argc++] = "--max-length";
        argv[argc++] = sm;
    }
    if (batch_tokens) {
        argv[argc++] = "--batch-tokens";
        argv[argc++] = sbt;
    }
    argv[argc] = NULL;
    /* -o is replaced whole or not at all (issue 36): no file from an earlier run may stand in
     * for this run's output, and a run that fails must leave none */
    unlink(f->out);
    rc = cmd_translate(argc, argv);
    if (access(f->out, F_OK) != 0) {
        *out = NULL;
        *out_len = 0;
        return rc;
    }
    *out = (char *)fuzz_slurp(f->out, out_len);
    return rc;
}

static long fuzz_ids_lines(const char *s, size_t n)
{
    long lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += s[i] == '\n';
    return lines + (n > 0 && s[n - 1] != '\n');
}

int fuzz_ids_cli(const uint8_t *data, size_t size)
{
    static const int batches[4] = {1, 2, 3, 32}, beams[4] = {1, 1, 2, 4},
                     max_lens[4] = {0, 1, 3, 12};
    fuzz_ids_files *f = fuzz_ids_setup();
    unsigned sel = size ? data[0] : 0;
    const char *text = size ? (const char *)data + 1 : "";
    size_t n = size ? size - 1 : 0;
    int batch = batches[sel & 3], threads = 1 + (sel >> 2 & 1), beam = beams[sel >> 3 & 3],
        max_len = max_lens[sel >> 5 & 3], batch_tokens = sel & 0x80 ? 7 : 0, rc;
    long in_lines = fuzz_ids_lines(text, n), out_lines;
    char *out;
    size_t out_len;
    FILE *in = fopen(f->in, "wb");
    FUZZ_CHECK(in && fwrite(text, 1, n, in) == n && fclose(in) == 0, "cannot write %s", f->in);

    rc = fuzz_ids_run(f, batch, threads, beam, max_len, batch_tokens, &out, &out_len);
    FUZZ_CHECK(rc == XLATE_EXIT_OK || rc == XLATE_EXIT_INPUT, "exit status %d", rc);
    FUZZ_CHECK(rc != XLATE_EXIT_OK || out != NULL, "exit 0, yet no -o file written");
    out_lines = fuzz_ids_lines(out, out_len);
    if (rc == XLATE_EXIT_INPUT) {
        FUZZ_CHECK(out == NULL, "bad input (exit 3), yet -o was written (%ld lines of %ld)",
                   out_lines, in_lines);
    } else {
        FUZZ_CHECK(out_lines == in_lines, "%ld lines in, %ld out", in_lines, out_lines);
        FUZZ_CHECK(out_len == 0 || out[out_len - 1] == '\n', "output does not end a line");
        for (size_t i = 0; i < out_len;) { /* each line: ids separated by one space */
            long v = -1;
            if (out[i] == '\n') {
                i++;
                continue;
            }
            FUZZ_CHECK(out[i] >= '0' && out[i] <= '9', "output byte %zu is 0x%02x", i,
                       (unsigned char)out[i]);
            for (v = 0; i < out_len && out[i] >= '0' && out[i] <= '9'; i++)
                v = v < 1000000 ? v * 10 + (out[i] - '0') : v;
            FUZZ_CHECK(v < FUZZ_IDS_TGT_VOCAB, "output id %ld", v);
            FUZZ_CHECK(i < out_len && (out[i] == ' ' || out[i] == '\n'), "output separator");
            if (out[i] == ' ')
                i++;
        }
        if (batch != 1 || threads != 1 || batch_tokens) {
            char *ref;
            size_t ref_len;
            int rc1 = fuzz_ids_run(f, 1, 1, beam, max_len, 0, &ref, &ref_len);
            FUZZ_CHECK(rc1 == XLATE_EXIT_OK, "batch 1: exit status %d", rc1);
            FUZZ_CHECK(ref_len == out_len && memcmp(ref, out, out_len) == 0,
                       "batch %d threads %d batch-tokens %d beam %d differs from batch 1 "
                       "(%zu vs %zu bytes)", batch, threads, batch_tokens, beam, out_len,
                       ref_len);
            free(ref);
        }
    }
    free(out);
    return 0;
}

#ifndef FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_ids_cli(data, size); }
#endif
