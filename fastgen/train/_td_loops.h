/* The loops of _td.h (first-layer table, forward pass, gradient step), written once in
 * plain C and included there once per instruction set, as _mlp_simd.h is for the
 * networks' kernel: FG_TD(name) names each copy, FG_TD_TARGET is its target attribute
 * (the compiler vectorizes the loops for it) and FG_TD_ACTIVATE the kernel's sigmoid of
 * the same instruction set. No include guard: it undefines those macros at its end.
 *
 * Every loop runs over the padded width P (a multiple of FG_MLP_PAD) and each element's
 * arithmetic is the same in every copy (no fused multiply-adds: fastgen builds with
 * -ffp-contract=off; the output sums in 16 fixed partial sums, added in a fixed order), so
 * the copies differ only through the kernel's sigmoid. The hidden units beyond the real
 * width are set to 0, so the padding columns of w1, b1 and w2t stay zero. */

/* The kernel's first layer: table (2, 26, 16, P) rows = the units of each count times w1,
 * accumulated in double and rounded once (units added in order, as
 * fastgen.nets.network builds them: the count's first three units, then the fourth
 * times its value, so counts 4..15 share the first three's sum); bias0 = b1 + the
 * constant turn unit's row. acc: 2 P doubles. */
FG_TD_TARGET static void FG_TD(fg_td_table)(const fg_td_net* net, float* table, float* bias0, double* acc) {
    const int P = net->padded;
    double* three = acc + P;
    for (int side = 0; side < 2; side++)
        for (int p = 0; p < 26; p++) {
            float* rows = table + (size_t)((side * 26 + p) * 16) * (size_t)P;
            memset(rows, 0, sizeof(float) * (size_t)P); /* count 0 */
            if (p >= 24) { /* the bar and the borne-off checkers: one unit, value n / 2 or n / 15 */
                const float* w = net->w1 + (size_t)(p == 24 ? 192 + side : 194 + side) * (size_t)P;
                for (int n = 1; n < 16; n++) {
                    const double v = p == 24 ? (double)((float)n * 0.5f) : (double)((float)n / 15.0f);
                    float* row = rows + (size_t)n * (size_t)P;
                    for (int j = 0; j < P; j++) row[j] = (float)(0.0 + v * (double)w[j]);
                }
                continue;
            }
            const float* w0 = net->w1 + (size_t)(96 * side + 4 * p) * (size_t)P;
            const float* w1 = w0 + P;
            const float* w2 = w1 + P;
            const float* w3 = w2 + P;
            for (int j = 0; j < P; j++) acc[j] = 0.0 + 1.0 * (double)w0[j];
            for (int j = 0; j < P; j++) rows[P + j] = (float)acc[j];
            for (int j = 0; j < P; j++) acc[j] += 1.0 * (double)w1[j];
            for (int j = 0; j < P; j++) rows[2 * P + j] = (float)acc[j];
            for (int j = 0; j < P; j++) three[j] = acc[j] + 1.0 * (double)w2[j];
            for (int j = 0; j < P; j++) rows[3 * P + j] = (float)three[j];
            for (int n = 4; n < 16; n++) {
                const double v = (double)((float)(n - 3) * 0.5f);
                float* row = rows + (size_t)n * (size_t)P;
                for (int j = 0; j < P; j++) row[j] = (float)(three[j] + v * (double)w3[j]);
            }
        }
    const float* turn = net->w1 + (size_t)196 * (size_t)P;
    for (int j = 0; j < P; j++) bias0[j] = (float)((double)net->b1[j] + (double)turn[j]);
}

/* h (P: the real H units, zeros after) and y (outputs) of the inputs (idx, val, nnz). */
FG_TD_TARGET static void FG_TD(fg_td_forward)(const fg_td_net* net, const int* idx, const float* val, int nnz,
                                              float* h, float* y) {
    const int H = net->hidden, P = net->padded;
    memcpy(h, net->b1, sizeof(float) * (size_t)P);
    for (int k = 0; k < nnz; k++) {
        const float* w = net->w1 + (size_t)idx[k] * (size_t)P;
        const float v = val[k];
        if (v == 1.0f)
            for (int j = 0; j < P; j++) h[j] += w[j];
        else
            for (int j = 0; j < P; j++) h[j] += v * w[j];
    }
    FG_TD_ACTIVATE(FG_ACT_SIGMOID, h, P);
    for (int j = H; j < P; j++) h[j] = 0.0f;
    for (int o = 0; o < net->outputs; o++) {
        const float* w = net->w2t + (size_t)o * (size_t)P;
        float part[16] = {0};
        for (int j0 = 0; j0 < P; j0 += 16)
            for (int l = 0; l < 16; l++) part[l] += w[j0 + l] * h[j0 + l];
        float s = net->b2[o];
        for (int l = 0; l < 16; l++) s += part[l];
        y[o] = s;
    }
    float z[16] = {0};
    for (int o = 0; o < net->outputs; o++) z[o] = y[o];
    FG_TD_ACTIVATE(FG_ACT_SIGMOID, z, 16);
    for (int o = 0; o < net->outputs; o++) y[o] = z[o];
}

/* One gradient step of size lr toward target (outputs) for the inputs whose forward pass
 * gave h and y; dh: P floats of scratch. Returns the cross-entropy before the step. */
FG_TD_TARGET static double FG_TD(fg_td_step)(fg_td_net* net, const int* idx, const float* val, int nnz,
                                             const float* h, const float* y, const float* target, float lr,
                                             float* dh) {
    const int P = net->padded, O = net->outputs;
    float d[8];
    double loss = 0.0;
    for (int o = 0; o < O; o++) {
        d[o] = y[o] - target[o];
        double p = y[o] < 1e-7f ? 1e-7 : (y[o] > 1.0f - 1e-7f ? 1.0 - 1e-7 : (double)y[o]);
        loss -= (double)target[o] * log(p) + (1.0 - (double)target[o]) * log(1.0 - p);
    }
    for (int j = 0; j < P; j++) dh[j] = 0.0f;
    for (int o = 0; o < O; o++) {
        const float* w = net->w2t + (size_t)o * (size_t)P;
        const float g = d[o];
        for (int j = 0; j < P; j++) dh[j] += g * w[j];
    }
    for (int j = 0; j < P; j++) dh[j] *= h[j] * (1.0f - h[j]) * lr;
    for (int o = 0; o < O; o++) {
        float* w = net->w2t + (size_t)o * (size_t)P;
        const float g = lr * d[o];
        for (int j = 0; j < P; j++) w[j] -= g * h[j];
        net->b2[o] -= g;
    }
    for (int j = 0; j < P; j++) net->b1[j] -= dh[j];
    for (int k = 0; k < nnz; k++) {
        float* w = net->w1 + (size_t)idx[k] * (size_t)P;
        const float v = val[k];
        for (int j = 0; j < P; j++) w[j] -= v * dh[j];
    }
    return loss;
}

#undef FG_TD
#undef FG_TD_TARGET
#undef FG_TD_ACTIVATE
