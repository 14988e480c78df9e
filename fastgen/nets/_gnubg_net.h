/* GNU Backgammon's nets evaluated as gnubg evaluates them, plain C: one position at a
 * time, its class (fastgen/nets/_gnubg_inputs.h), the inputs of its class's net, then
 * the net's forward pass with gnubg's sigmoid.
 *
 * The forward pass is the one gnubg's weights files describe (the file layout is in
 * fastgen/nets/gnubg_weights.py): hidden unit j is sigmoid(-beta_hidden * h_j) with
 * h_j = threshold_j + sum_i x_i w_ij, output k is sigmoid(-beta_output * r_k) with
 * r_k = threshold_k + sum_j a_j v_kj, where sigmoid(x) = 1 / (1 + e^x) is gnubg's table
 * version (fgg_sigmoid). Each sum runs in float32 in that order: the threshold first, then
 * the inputs (the hidden units) one by one in index order. That order is kept on purpose:
 * gnubg's sigmoid jumps a little at every tenth of its argument, so a sum rounded in
 * another order can land in the next bin and move an output by up to 1e-3. An input of
 * 0 adds nothing and is skipped (most of the 200 point units are 0: the first layer costs
 * what the occupied points and the hand-made inputs cost). The hidden units are summed
 * side by side (every unit's own sum still runs in input order), so the compiler's
 * vector loops change no rounding; fused multiply-adds are off for the whole build
 * (setup.py), as gnubg-nn's build has none.
 *
 * No gnubg code is copied here: the arithmetic is the weights files' meaning, its order
 * was settled by comparing with gnubg-nn as a black box (tests/test_gnubg_inputs.py).
 */
#ifndef FASTGEN_GNUBG_NET_H
#define FASTGEN_GNUBG_NET_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "_gnubg_inputs.h"

#define FGG_MAX_HIDDEN 128
#define FGG_MAX_INPUTS 250

/* one net: float32 arrays as its file holds them */
typedef struct {
    int n_in, n_hid, n_out;
    const float* w;   /* n_in x n_hid, one row an input */
    const float* wo;  /* n_out x n_hid, one row an output */
    const float* th;  /* n_hid hidden thresholds */
    const float* to;  /* n_out output thresholds */
    float beta_h, beta_o;
} fgg_net;

/* the three nets of 0-ply evaluation and the inputs' version (FGG_V100 / FGG_V101) */
typedef struct {
    fgg_net race, crashed, contact;
    int version;
} fgg_nets;

/* out[0..n_out-1] = the net's outputs for inputs x; h: scratch of n_hid floats */
static void fgg_forward(const fgg_net* net, const float* x, float* h, float* out) {
    const int nh = net->n_hid;
    memcpy(h, net->th, (size_t)nh * sizeof(float));
    for (int i = 0; i < net->n_in; i++) {
        const float xi = x[i];
        if (xi == 0.0f) continue;
        const float* row = net->w + (size_t)i * nh;
        if (xi == 1.0f) {
            for (int j = 0; j < nh; j++) h[j] += row[j];
        } else {
            for (int j = 0; j < nh; j++) h[j] += xi * row[j];
        }
    }
    const float bh = -net->beta_h;
    for (int j = 0; j < nh; j++) h[j] = fgg_sigmoid(bh * h[j]);
    const float bo = -net->beta_o;
    for (int k = 0; k < net->n_out; k++) {
        const float* v = net->wo + (size_t)k * nh;
        float r = net->to[k];
        for (int j = 0; j < nh; j++) r += h[j] * v[j];
        out[k] = fgg_sigmoid(bo * r);
    }
}

/* The class of board b (50 int8: row 0 then row 1, row 1 on roll) and, for a race,
 * crashed or contact position, its class's net's five outputs in out[0..4] (out is left
 * alone for the other classes). scratch: FGG_MAX_INPUTS + FGG_MAX_HIDDEN floats. */
static int fgg_net_outputs(const fgg_nets* nets, const int8_t* b, float* out, float* scratch) {
    const int cls = fgg_classify_flat(b);
    float* x = scratch;
    float* h = scratch + FGG_MAX_INPUTS;
    switch (cls) {
    case FGG_RACE:
        fgg_race_flat(b, x);
        fgg_forward(&nets->race, x, h, out);
        break;
    case FGG_CRASHED:
        fgg_contact_flat(b, nets->version, 1, x);
        fgg_forward(&nets->crashed, x, h, out);
        break;
    case FGG_CONTACT:
        fgg_contact_flat(b, nets->version, 0, x);
        fgg_forward(&nets->contact, x, h, out);
        break;
    default:
        break;
    }
    return cls;
}

#endif
