/* The arithmetic of fastgen's TD(lambda) trainer (fastgen/train/_selfplay.pyx): plain C,
 * no Python objects, float32.
 *
 * The network being trained has Tesauro's 198 inputs (fastgen.encode's "tesauro198": a
 * board from its side on roll), optionally followed by the 22 "contact" features
 * (_contact.h: they go through the kernel's own rows, w1's last 22), one hidden layer of sigmoid units and five sigmoid
 * outputs (P(win), P(win gammon), P(win backgammon), P(lose gammon), P(lose backgammon)
 * for the side on roll), as fastgen.nets.Network computes it. Its weights live in the
 * layout the forward-pass kernel (fastgen/nets/_mlp.h) reads, so the self-play loop
 * chooses its plays with that kernel:
 *   w1   (198 or 220, P): the first layer, P = the hidden width rounded up to FG_MLP_PAD
 *   b1   (P,)
 *   w2t  (outputs, P): the output layer transposed
 *   b2   (outputs,)
 * the padding columns zero, and kept zero (the updates stop at the real width).
 *
 * Three jobs:
 * - fg_td_table: the kernel's first-layer rows (one per side, point and count) from w1;
 * - fg_td_encode: a board's non-zero inputs as (index, value) pairs (about 40 of 198);
 * - fg_td_forward / fg_td_step: the forward pass keeping the hidden layer, and one
 *   stochastic gradient step on the cross-entropy between the outputs and a target
 *   (its gradient at the output pre-activations is output - target). Only the rows of
 *   w1 of the non-zero inputs change. */
#ifndef FASTGEN_TD_H
#define FASTGEN_TD_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "_contact.h"
#include "_mlp.h" /* the kernel's sigmoid (fg_activate_*) and its choice of instruction set */

#define FG_TD_INPUTS 198
/* inputs a board may make non-zero: 4 units a point, a side's 15 checkers on at most 15
 * points, its bar and borne-off checkers (62 a side), the turn unit, the contact features */
#define FG_TD_MAX_NNZ (2 * 62 + 1 + FG_CONTACT_WIDTH)

typedef struct {
    int contact; /* 1: the "contact" features are inputs 198..219 (fastgen.encode's, after tesauro198) */
    int hidden;  /* real hidden width H */
    int padded;  /* P */
    int outputs; /* 5 */
    float* w1;
    float* b1;
    float* w2t;
    float* b2;
} fg_td_net;

/* The inputs of one count n (0..15) of `side` (0: on roll, 1: the opponent) at `point`
 * (0..23 its points in its own numbering, 24 its bar, 25 its borne-off checkers):
 * writes up to 4 (index, value) pairs, returns how many. fastgen.core.features'
 * count_units gives the same. */
static inline int fg_td_units(int side, int point, int n, int* idx, float* val) {
    if (n <= 0) return 0;
    if (point < 24) {
        int col = 96 * side + 4 * point, k = 0;
        idx[k] = col;
        val[k++] = 1.0f;
        if (n >= 2) {
            idx[k] = col + 1;
            val[k++] = 1.0f;
        }
        if (n >= 3) {
            idx[k] = col + 2;
            val[k++] = 1.0f;
        }
        if (n >= 4) {
            idx[k] = col + 3;
            val[k++] = (float)(n - 3) * 0.5f;
        }
        return k;
    }
    if (point == 24) {
        idx[0] = 192 + side;
        val[0] = (float)n * 0.5f;
        return 1;
    }
    idx[0] = 194 + side;
    val[0] = (float)n / 15.0f;
    return 1;
}

/* The non-zero inputs of board b (flat (2, 25), side on roll in b[25..49]), the constant
 * turn unit (input 196) included, and with `contact` its 22 features (all, zero or not);
 * returns how many. */
static int fg_td_encode(const int8_t* b, int contact, int* idx, float* val) {
    int k = 0;
    for (int side = 0; side < 2; side++) {
        const int8_t* row = b + (side == 0 ? 25 : 0);
        int total = 0;
        for (int p = 0; p < 25; p++) {
            total += row[p];
            k += fg_td_units(side, p, row[p], idx + k, val + k);
        }
        k += fg_td_units(side, 25, 15 - total, idx + k, val + k);
    }
    idx[k] = 196;
    val[k++] = 1.0f;
    if (contact) {
        fg_contact_features(b + 25, b, val + k);
        for (int j = 0; j < FG_CONTACT_WIDTH; j++) idx[k + j] = FG_TD_INPUTS + j;
        k += FG_CONTACT_WIDTH;
    }
    return k;
}

/* The loops, once per instruction set (_td_loops.h), and the one the CPU runs best,
 * chosen as the networks' kernel chooses its own (fg_mlp_level). */
#define FG_TD(name) name##_plain
#define FG_TD_TARGET
#define FG_TD_ACTIVATE fg_activate_plain
#include "_td_loops.h"

#ifdef FG_MLP_DISPATCH
#define FG_TD(name) name##_avx2
#define FG_TD_TARGET __attribute__((target("avx2,fma")))
#define FG_TD_ACTIVATE fg_activate_avx2
#include "_td_loops.h"

#define FG_TD(name) name##_avx512
#define FG_TD_TARGET __attribute__((target("avx512f")))
#define FG_TD_ACTIVATE fg_activate_avx512
#include "_td_loops.h"
#endif

/* The kernel's first-layer rows from w1 (see _td_loops.h); acc: 2 P doubles. */
static void fg_td_table(const fg_td_net* net, float* table, float* bias0, double* acc) {
#ifdef FG_MLP_DISPATCH
    if (fg_mlp_level == 2) { fg_td_table_avx512(net, table, bias0, acc); return; }
    if (fg_mlp_level == 1) { fg_td_table_avx2(net, table, bias0, acc); return; }
#endif
    fg_td_table_plain(net, table, bias0, acc);
}

/* h (P floats: H units, zeros after) and y (outputs) of the inputs (idx, val, nnz). */
static void fg_td_forward(const fg_td_net* net, const int* idx, const float* val, int nnz, float* h, float* y) {
#ifdef FG_MLP_DISPATCH
    if (fg_mlp_level == 2) { fg_td_forward_avx512(net, idx, val, nnz, h, y); return; }
    if (fg_mlp_level == 1) { fg_td_forward_avx2(net, idx, val, nnz, h, y); return; }
#endif
    fg_td_forward_plain(net, idx, val, nnz, h, y);
}

/* One gradient step of size lr toward target (outputs) for the inputs whose forward
 * pass gave h and y; dh: P floats of scratch. Returns the cross-entropy before the step. */
static double fg_td_step(fg_td_net* net, const int* idx, const float* val, int nnz, const float* h, const float* y,
                         const float* target, float lr, float* dh) {
#ifdef FG_MLP_DISPATCH
    if (fg_mlp_level == 2) return fg_td_step_avx512(net, idx, val, nnz, h, y, target, lr, dh);
    if (fg_mlp_level == 1) return fg_td_step_avx2(net, idx, val, nnz, h, y, target, lr, dh);
#endif
    return fg_td_step_plain(net, idx, val, nnz, h, y, target, lr, dh);
}

#endif /* FASTGEN_TD_H */
