/* Where a compiled network's time goes: the kernel of fastgen/nets/_mlp.h timed whole and
 * in its two parts, on the same positions, as a plain C program (no Python in the loop).
 *
 *   mlp_parts POSITIONS.bin N HIDDEN REPS
 *
 * POSITIONS.bin: N boards, (2, 25) int8 each. The network: one hidden layer of HIDDEN
 * sigmoid units, five outputs, first-layer rows and output weights of a fixed pseudo-random
 * pattern (the time does not depend on the values). Printed, in ns a position, best of
 * REPS passes over the N positions:
 *
 *   whole   fg_mlp_rows, the batch path;
 *   rows    the first layer alone: each position's rows found (fg_mlp_rows_of) and added
 *           (fg_sum_rows);
 *   rest    the layers after the first alone (fg_block_rest: the hidden sigmoids, the output
 *           layer, the outputs' sigmoids) on first layers already made;
 *   read    the time to add 1 KiB of the first layer's table (every row, over and over,
 *           by the kernel's own loop, 32 rows a call): what reading rows costs with no
 *           position to decode, in ns a KiB.
 *
 * bench/test_nets.py (test_parts) builds and runs it with the package's compiler flags and
 * include path (fastgen/nets, then fastgen/core for the headers the kernel includes). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "_mlp.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* the kernel's two parts, for the instruction set in use (set by main) */
typedef void (*sum_rows_fn)(float*, const float*, const float* const*, int, const float* const*, int, int);
typedef void (*block_rest_fn)(const fg_mlp*, float*, int, int, float*, float*, float*);
static sum_rows_fn sum_rows = fg_sum_rows_plain;
static block_rest_fn block_rest = fg_block_rest_plain;

static void pick_loops(void) {
#ifdef FG_MLP_DISPATCH
    if (fg_mlp_level == 2) sum_rows = fg_sum_rows_avx512, block_rest = fg_block_rest_avx512;
    if (fg_mlp_level == 1) sum_rows = fg_sum_rows_avx2, block_rest = fg_block_rest_avx2;
#endif
}

static void rows_only(const fg_mlp* net, const int8_t* boards, int64_t n, float* A, int ws) {
    const float* rows[FG_MLP_COUNTS];
    for (int64_t i = 0; i < n; i++) {
        const int8_t* b = boards + 50 * i;
        int k = fg_mlp_rows_of(net, b + 25, b, rows);
        sum_rows(A + (size_t)(i % FG_MLP_BLOCK) * ws, net->bias0, rows, 0, rows, k, net->padded[1]);
    }
}

/* the same block of first layers over and over (the values do not change the time: no
 * branch depends on them) */
static void rest_only(const fg_mlp* net, int64_t n, float* A, int ws, float* N, float* M, float* Z) {
    for (int64_t i = 0; i < n; i += FG_MLP_BLOCK)
        block_rest(net, A, n - i < FG_MLP_BLOCK ? (int)(n - i) : FG_MLP_BLOCK, ws, N, M, Z);
}

/* every row of the table added by the kernel's own loop (fg_sum_rows), 32 rows a call:
 * rows read with no position to decode */
static void read_all(const fg_mlp* net, size_t nrows, float* acc) {
    const float* rows[32];
    for (size_t r0 = 0; r0 + 32 <= nrows; r0 += 32) {
        for (int k = 0; k < 32; k++) rows[k] = net->table + (r0 + (size_t)k) * (size_t)net->padded[1];
        sum_rows(acc, net->bias0, rows, 0, rows, 32, net->padded[1]);
    }
}

int main(int argc, char** argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: mlp_parts POSITIONS.bin N HIDDEN REPS\n");
        return 2;
    }
    int64_t n = atoll(argv[2]);
    int hidden = atoi(argv[3]), reps = atoi(argv[4]);
    if (n <= 0 || hidden <= 0 || hidden > FG_MLP_MAX_WIDTH || reps <= 0) {
        fprintf(stderr, "mlp_parts: bad arguments\n");
        return 2;
    }
    int8_t* boards = malloc((size_t)n * 50);
    FILE* f = fopen(argv[1], "rb");
    if (boards == NULL || f == NULL || fread(boards, 50, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "mlp_parts: cannot read %lld boards from %s\n", (long long)n, argv[1]);
        return 2;
    }
    fclose(f);
    fg_mlp net;
    memset(&net, 0, sizeof net);
    int p1 = (hidden + FG_MLP_PAD - 1) / FG_MLP_PAD * FG_MLP_PAD;
    net.n_layers = 2;
    net.width[0] = 198, net.width[1] = hidden, net.width[2] = 5;
    net.padded[0] = 208, net.padded[1] = p1, net.padded[2] = FG_MLP_PAD;
    size_t nrows = 2 * 26 * 16;
    float* table = calloc(nrows * (size_t)p1, sizeof(float));
    float* bias0 = calloc((size_t)p1, sizeof(float));
    float* last = calloc(5 * (size_t)p1, sizeof(float));
    float* lastb = calloc(FG_MLP_PAD, sizeof(float));
    if (!table || !bias0 || !last || !lastb) return 2;
    unsigned s = 12345u;
    for (size_t r = 0; r < nrows; r++)
        for (int j = 0; j < hidden; j++) {
            s = s * 1103515245u + 12345u;
            table[r * (size_t)p1 + j] = (r % 16 == 0) ? 0.0f : ((float)(s >> 16 & 0x7fff) / 32768.0f - 0.5f);
        }
    for (int j = 0; j < 5 * p1; j++) last[j] = (j % p1 < hidden) ? 0.05f * (float)((j * 7) % 11 - 5) : 0.0f;
    net.table = table, net.bias0 = bias0, net.w_last_t = last, net.b[1] = lastb;
    net.activation = FG_ACT_SIGMOID, net.outputs = 5;
    fg_mlp_init();
    pick_loops();

    int ws = fg_mlp_stride(&net);
    float* scratch = malloc(fg_mlp_scratch(&net) * sizeof(float));
    float* out = malloc((size_t)n * 5 * sizeof(float));
    if (!scratch || !out) return 2;
    FG_MLP_SCRATCH_PARTS(scratch, ws, A, N, M, base, Z);
    (void)base;
    rows_only(&net, boards, FG_MLP_BLOCK < n ? FG_MLP_BLOCK : n, A, ws);

    double best[4] = {1e30, 1e30, 1e30, 1e30};

    for (int r = 0; r < reps; r++) {
        double t0 = now();
        fg_mlp_rows(&net, boards, 0, 0, out, 0, n, scratch);
        double t1 = now();
        rows_only(&net, boards, n, A, ws);
        double t2 = now();
        rest_only(&net, n, A, ws, N, M, Z);
        double t3 = now();
        for (int k = 0; k < 10; k++) read_all(&net, nrows, A);
        double t4 = now();
        if (t4 - t3 < best[3]) best[3] = t4 - t3;
        if (t1 - t0 < best[0]) best[0] = t1 - t0;
        if (t2 - t1 < best[1]) best[1] = t2 - t1;
        if (t3 - t2 < best[2]) best[2] = t3 - t2;
    }
    double kib = 10.0 * (double)(nrows * (size_t)p1 * sizeof(float)) / 1024.0;
    printf("level %d hidden %d whole %.1f rows %.1f rest %.1f ns/position read %.2f ns/KiB table %.0f KiB\n",
           fg_mlp_level, hidden, best[0] / (double)n * 1e9, best[1] / (double)n * 1e9, best[2] / (double)n * 1e9,
           best[3] / kib * 1e9, kib / 10.0);
    free(boards), free(table), free(bias0), free(last), free(lastb), free(scratch), free(out);
    return 0;
}
