/* The loops of _mlp.h, written once over a vector of FG_VL floats and included there
 * once per instruction set: plain C (FG_VL 1), AVX2 (8) and AVX-512F (16). FG_SIMD(name)
 * gives each copy its names; FG_V and the FG_V... macros its type and operations. No
 * include guard: it is meant to be included several times, and it undefines those
 * macros at its end, ready for the next copy's.
 *
 * The copies add the layers' sums in the same order; they differ by a few units in the
 * last place, from the activations (fused multiply-adds in the vector copies; the
 * reciprocal a division in plain C, the hardware's estimate and one Newton step in the
 * vector copies) and from the last layer's lanes. */

/* acc = start - sum(out rows) + sum(in rows) over hp floats (a multiple of FG_MLP_PAD).
 * Two chains of additions per vector (rows of even index in the out-then-in list go to
 * chain a, odd ones to chain b, added at the end), four vectors at a time: eight
 * independent chains, so the adds' latency overlaps. The rows are taken in pairs, one to
 * each chain, with no branch per row. */
#define FG_ACC4(X, OP, p)                                                           \
    X##0 = OP(X##0, FG_VLOAD(p)); X##1 = OP(X##1, FG_VLOAD((p) + FG_VL));             \
    X##2 = OP(X##2, FG_VLOAD((p) + 2 * FG_VL)); X##3 = OP(X##3, FG_VLOAD((p) + 3 * FG_VL));
#define FG_ACC2(X, OP, p) X##0 = OP(X##0, FG_VLOAD(p)); X##1 = OP(X##1, FG_VLOAD((p) + FG_VL));
#define FG_ACC1(X, OP, p) X##0 = OP(X##0, FG_VLOAD(p));
/* the n rows of list (the first one of index r0 in the whole list), added with OP */
#define FG_ROWS(ACC, OP, list, n, r0)                                               \
    {                                                                               \
        int r = 0;                                                                  \
        if (((r0) & 1) && (n) > 0) { ACC(b, OP, (list)[0] + j) r = 1; }             \
        for (; r + 1 < (n); r += 2) { ACC(a, OP, (list)[r] + j) ACC(b, OP, (list)[r + 1] + j) } \
        if (r < (n)) { ACC(a, OP, (list)[r] + j) }                                  \
    }
#define FG_ROWS_STEP(OP, list, n, r0) FG_ROWS(FG_ACC4, OP, list, n, r0)
#define FG_ROWS_STEP2(OP, list, n, r0) FG_ROWS(FG_ACC2, OP, list, n, r0)
#define FG_ROWS_STEP1(OP, list, n, r0) FG_ROWS(FG_ACC1, OP, list, n, r0)
FG_SIMD_TARGET static inline void FG_SIMD(fg_sum_rows)(float* acc, const float* start, const float* const* out,
                                                       int n_out, const float* const* in, int n_in, int hp) {
    int j = 0;
    for (; j + 4 * FG_VL <= hp; j += 4 * FG_VL) {
        FG_V a0 = FG_VLOAD(start + j), a1 = FG_VLOAD(start + j + FG_VL);
        FG_V a2 = FG_VLOAD(start + j + 2 * FG_VL), a3 = FG_VLOAD(start + j + 3 * FG_VL);
        FG_V b0 = FG_VZERO(), b1 = b0, b2 = b0, b3 = b0;
        FG_ROWS_STEP(FG_VSUB, out, n_out, 0)
        FG_ROWS_STEP(FG_VADD, in, n_in, n_out)
        FG_VSTORE(acc + j, FG_VADD(a0, b0));
        FG_VSTORE(acc + j + FG_VL, FG_VADD(a1, b1));
        FG_VSTORE(acc + j + 2 * FG_VL, FG_VADD(a2, b2));
        FG_VSTORE(acc + j + 3 * FG_VL, FG_VADD(a3, b3));
    }
    /* what is left: two vectors, then one, each with its two chains of additions */
    for (; j + 2 * FG_VL <= hp; j += 2 * FG_VL) {
        FG_V a0 = FG_VLOAD(start + j), a1 = FG_VLOAD(start + j + FG_VL);
        FG_V b0 = FG_VZERO(), b1 = b0;
        FG_ROWS_STEP2(FG_VSUB, out, n_out, 0)
        FG_ROWS_STEP2(FG_VADD, in, n_in, n_out)
        FG_VSTORE(acc + j, FG_VADD(a0, b0));
        FG_VSTORE(acc + j + FG_VL, FG_VADD(a1, b1));
    }
    for (; j < hp; j += FG_VL) {
        FG_V a0 = FG_VLOAD(start + j), b0 = FG_VZERO();
        FG_ROWS_STEP1(FG_VSUB, out, n_out, 0)
        FG_ROWS_STEP1(FG_VADD, in, n_in, n_out)
        FG_VSTORE(acc + j, FG_VADD(a0, b0));
    }
}
#undef FG_ROWS_STEP
#undef FG_ROWS_STEP2
#undef FG_ROWS_STEP1
#undef FG_ROWS
#undef FG_ACC4
#undef FG_ACC2
#undef FG_ACC1

/* 2^t for t in [-58, 58]: t = r + g with r the nearest integer, g in [-1/2, 1/2]; 2^g by a
 * degree-5 polynomial (relative error below 2e-7: a least-squares fit of e^f's relative
 * error on Chebyshev nodes over |f| <= ln(2)/2, its coefficients times ln(2)^k, rounded to
 * float32), by fused multiply-adds where the instruction set has them; times 2^r */
FG_SIMD_TARGET static inline FG_V FG_SIMD(fg_exp2)(FG_V t) {
    FG_V r = FG_VROUND(t);
    FG_V g = FG_VSUB(t, r);
    FG_V p = FG_VSET1(0.0013266970636323094f);
    p = FG_VFMA(p, g, FG_VSET1(0.009675459936261177f));
    p = FG_VFMA(p, g, FG_VSET1(0.05550742521882057f));
    p = FG_VFMA(p, g, FG_VSET1(0.24022121727466583f));
    p = FG_VFMA(p, g, FG_VSET1(0.6931469440460205f));
    p = FG_VFMA(p, g, FG_VSET1(1.0000001192092896f));
    return FG_VSCALE(p, r);
}

/* 1 / d for d >= 1: the estimate and one Newton step (relative error below 1e-7) */
FG_SIMD_TARGET static inline FG_V FG_SIMD(fg_recip)(FG_V d) {
    FG_V r = FG_VRCP(d);
    return FG_VFMA(r, FG_VFNMA(d, r, FG_VSET1(1.0f)), r);
}

/* x[0..n) = act(x) (n a multiple of FG_VL); the sigmoid clips to [-40, 40] first, tanh to [-20, 20] */
FG_SIMD_TARGET static inline void FG_SIMD(fg_activate)(int activation, float* x, int n) {
    const FG_V one = FG_VSET1(1.0f), two = FG_VSET1(2.0f), zero = FG_VZERO();
    const FG_V lo = FG_VSET1(-40.0f), hi = FG_VSET1(40.0f), lo2 = FG_VSET1(-20.0f), hi2 = FG_VSET1(20.0f);
    if (activation == FG_ACT_SIGMOID) { /* 1 / (1 + e^-v) = 1 / (1 + 2^(-v log2 e)) */
        const FG_V m = FG_VSET1(-1.44269504088896341f);
        for (int j = 0; j < n; j += FG_VL) {
            FG_V v = FG_VMIN(FG_VMAX(FG_VLOAD(x + j), lo), hi);
            FG_VSTORE(x + j, FG_SIMD(fg_recip)(FG_VADD(one, FG_SIMD(fg_exp2)(FG_VMUL(v, m)))));
        }
    } else if (activation == FG_ACT_TANH) { /* 2 / (1 + e^-2v) - 1 */
        const FG_V m = FG_VSET1(-2.0f * 1.44269504088896341f);
        for (int j = 0; j < n; j += FG_VL) {
            FG_V v = FG_VMIN(FG_VMAX(FG_VLOAD(x + j), lo2), hi2);
            FG_V r = FG_SIMD(fg_recip)(FG_VADD(one, FG_SIMD(fg_exp2)(FG_VMUL(v, m))));
            FG_VSTORE(x + j, FG_VSUB(FG_VMUL(two, r), one));
        }
    } else {
        for (int j = 0; j < n; j += FG_VL) FG_VSTORE(x + j, FG_VMAX(FG_VLOAD(x + j), zero));
    }
}

/* out = b + h[0..n) @ w (rows of stride mp, a multiple of FG_MLP_PAD) */
FG_SIMD_TARGET static inline void FG_SIMD(fg_dense)(float* out, const float* h, int n, const float* w, const float* b,
                                                    int mp) {
    int j = 0;
    for (; j + 4 * FG_VL <= mp; j += 4 * FG_VL) {
        FG_V a0 = FG_VLOAD(b + j), a1 = FG_VLOAD(b + j + FG_VL);
        FG_V a2 = FG_VLOAD(b + j + 2 * FG_VL), a3 = FG_VLOAD(b + j + 3 * FG_VL);
        for (int i = 0; i < n; i++) {
            const float* p = w + (size_t)i * mp + j;
            FG_V v = FG_VSET1(h[i]);
            a0 = FG_VADD(a0, FG_VMUL(v, FG_VLOAD(p)));
            a1 = FG_VADD(a1, FG_VMUL(v, FG_VLOAD(p + FG_VL)));
            a2 = FG_VADD(a2, FG_VMUL(v, FG_VLOAD(p + 2 * FG_VL)));
            a3 = FG_VADD(a3, FG_VMUL(v, FG_VLOAD(p + 3 * FG_VL)));
        }
        FG_VSTORE(out + j, a0);
        FG_VSTORE(out + j + FG_VL, a1);
        FG_VSTORE(out + j + 2 * FG_VL, a2);
        FG_VSTORE(out + j + 3 * FG_VL, a3);
    }
    for (; j < mp; j += FG_VL) {
        FG_V a = FG_VLOAD(b + j);
        for (int i = 0; i < n; i++) a = FG_VADD(a, FG_VMUL(FG_VSET1(h[i]), FG_VLOAD(w + (size_t)i * mp + j)));
        FG_VSTORE(out + j, a);
    }
}

/* acc += the board's "contact" features times their rows, when the network has them */
FG_SIMD_TARGET static inline void FG_SIMD(fg_add_extra)(const fg_mlp* net, const int8_t* mover, const int8_t* opp,
                                                        float* acc) {
    float f[FG_CONTACT_WIDTH];
    if (!net->n_extra) return;
    fg_contact_features(mover, opp, f);
    FG_SIMD(fg_dense)(acc, f, net->n_extra, net->w_extra, acc, net->padded[1]);
}

/* z[0..outputs) = b + h @ w of the last layer, before its sigmoid: one chain an output
 * (their latencies overlap), each chain's lanes added in a tree at the end */
FG_SIMD_TARGET static inline void FG_SIMD(fg_last)(const fg_mlp* net, const float* h, float* z) {
    int L = net->n_layers, np = net->padded[L - 1], no = net->outputs;
    const float* wt = net->w_last_t;
    FG_V s0 = FG_VZERO(), s1 = s0, s2 = s0, s3 = s0, s4 = s0;
    if (no == 5) {
        for (int i = 0; i < np; i += FG_VL) {
            FG_V v = FG_VLOAD(h + i);
            s0 = FG_VADD(s0, FG_VMUL(FG_VLOAD(wt + i), v));
            s1 = FG_VADD(s1, FG_VMUL(FG_VLOAD(wt + np + i), v));
            s2 = FG_VADD(s2, FG_VMUL(FG_VLOAD(wt + 2 * (size_t)np + i), v));
            s3 = FG_VADD(s3, FG_VMUL(FG_VLOAD(wt + 3 * (size_t)np + i), v));
            s4 = FG_VADD(s4, FG_VMUL(FG_VLOAD(wt + 4 * (size_t)np + i), v));
        }
    } else {
        for (int i = 0; i < np; i += FG_VL) {
            FG_V v = FG_VLOAD(h + i);
            s0 = FG_VADD(s0, FG_VMUL(FG_VLOAD(wt + i), v));
            s1 = FG_VADD(s1, FG_VMUL(FG_VLOAD(wt + np + i), v));
            s2 = FG_VADD(s2, FG_VMUL(FG_VLOAD(wt + 2 * (size_t)np + i), v));
        }
    }
    FG_VHSUM5(s0, s1, s2, s3, s4, z); /* each chain's lanes added (a tree of pairs) */
    for (int o = 0; o < no; o++) z[o] += net->b[L - 1][o];
}

/* The layers after the first for nb positions: A[q] (stride ws floats) holds position
 * q's first-layer pre-activation (changed); Z[8 q .. 8 q + outputs) gets its outputs
 * (sigmoids). N, M: nb * ws floats each. */
FG_SIMD_TARGET static void FG_SIMD(fg_block_rest)(const fg_mlp* net, float* A, int nb, int ws, float* N, float* M,
                                                  float* Z) {
    int L = net->n_layers;
    memset(Z, 0, (size_t)FG_MLP_BLOCK * 8 * sizeof(float));
    if (L == 1) {
        for (int q = 0; q < nb; q++) memcpy(Z + 8 * q, A + (size_t)q * ws, (size_t)net->outputs * sizeof(float));
    } else {
        float* cur = A;
        for (int q = 0; q < nb; q++) FG_SIMD(fg_activate)(net->activation, cur + (size_t)q * ws, net->padded[1]);
        for (int l = 1; l < L - 1; l++) {
            float* nxt = (l & 1) ? N : M;
            for (int q = 0; q < nb; q++)
                FG_SIMD(fg_dense)(nxt + (size_t)q * ws, cur + (size_t)q * ws, net->width[l], net->w[l], net->b[l],
                                  net->padded[l + 1]);
            for (int q = 0; q < nb; q++) FG_SIMD(fg_activate)(net->activation, nxt + (size_t)q * ws, net->padded[l + 1]);
            cur = nxt;
        }
        for (int q = 0; q < nb; q++) FG_SIMD(fg_last)(net, cur + (size_t)q * ws, Z + 8 * q);
    }
    FG_SIMD(fg_activate)(FG_ACT_SIGMOID, Z, ((nb * 8 + FG_VL - 1) / FG_VL) * FG_VL);
}

FG_SIMD_TARGET static void FG_SIMD(fg_rows)(const fg_mlp* net, const int8_t* boards, int swap, int raw, float* out,
                                            int64_t lo, int64_t hi, float* scratch) {
    const float* rows[FG_MLP_COUNTS];
    int ws = fg_mlp_stride(net);
    FG_MLP_SCRATCH_PARTS(scratch, ws, A, N, M, base, Z);
    (void)base;
    for (int64_t r0 = lo; r0 < hi; r0 += FG_MLP_BLOCK) {
        int nb = hi - r0 < FG_MLP_BLOCK ? (int)(hi - r0) : FG_MLP_BLOCK;
        for (int q = 0; q < nb; q++) {
            const int8_t* b = boards + 50 * (r0 + q);
            const int8_t* mover = swap ? b : b + 25;
            const int8_t* opp = swap ? b + 25 : b;
            int k = fg_mlp_rows_of(net, mover, opp, rows);
            FG_SIMD(fg_sum_rows)(A + (size_t)q * ws, net->bias0, rows, 0, rows, k, net->padded[1]);
            FG_SIMD(fg_add_extra)(net, mover, opp, A + (size_t)q * ws);
        }
        FG_SIMD(fg_block_rest)(net, A, nb, ws, N, M, Z);
        for (int q = 0; q < nb; q++) {
            if (raw)
                memcpy(out + (int64_t)net->outputs * (r0 + q), Z + 8 * q, (size_t)net->outputs * sizeof(float));
            else
                fg_mlp_probs(net, Z + 8 * q, out + 5 * (r0 + q));
        }
    }
}

/* values[pending[q]] for the nb candidates whose first layers are in A: the mover's
 * equity, minus the opponent's (see fg_mlp_choose in _mlp.h) */
FG_SIMD_TARGET static void FG_SIMD(fg_score_block)(const fg_mlp* net, float* A, int nb, int ws, float* N, float* M,
                                                   float* Z, const int64_t* pending, double* values) {
    float p[5];
    FG_SIMD(fg_block_rest)(net, A, nb, ws, N, M, Z);
    for (int q = 0; q < nb; q++) {
        const float* y = Z + 8 * q;
        if (net->outputs == 5) {
            fg_mlp_probs(net, y, p);
            values[pending[q]] = -(2.0 * (double)p[0] - 1.0 + (double)p[1] + (double)p[2] - (double)p[3] - (double)p[4]);
        } else {
            float e32 = 2.0f * y[0] - 1.0f + y[1] - y[2];
            values[pending[q]] = -(double)e32;
        }
    }
}

/* values[c] for the candidates of games g0..g1-1 (see fg_mlp_choose in _mlp.h) */
FG_SIMD_TARGET static void FG_SIMD(fg_choose)(const fg_mlp* net, const int8_t* cand, const int64_t* offsets,
                                              int64_t g0, int64_t g1, double* values, float* scratch) {
    const float* out_rows[FG_MLP_COUNTS];
    const float* in_rows[FG_MLP_COUNTS];
    int64_t pending[FG_MLP_BLOCK];
    int ws = fg_mlp_stride(net), hp = net->padded[1], nb = 0;
    FG_MLP_SCRATCH_PARTS(scratch, ws, A, N, M, base, Z);
    for (int64_t g = g0; g < g1; g++) {
        const int8_t* first = 0;
        for (int64_t c = offsets[g]; c < offsets[g + 1]; c++) {
            const int8_t* b = cand + 50 * c;
            if (net->outputs == 5 && fg_mlp_empty(b + 25)) { /* the mover has borne off its last checker */
                int opp_left = fg_mlp_total(b), home = 0;
                for (int q = 18; q < 25; q++) home += b[q];
                values[c] = 1.0 + (opp_left == 15 ? 1.0 : 0.0) + (opp_left == 15 && home > 0 ? 1.0 : 0.0);
                continue;
            }
            if (first == 0) {
                int k = fg_mlp_rows_of(net, b, b + 25, in_rows);
                FG_SIMD(fg_sum_rows)(base, net->bias0, out_rows, 0, in_rows, k, hp);
                memcpy(A + (size_t)nb * ws, base, (size_t)hp * sizeof(float));
                first = b;
            } else {
                int n_out;
                int n_in = fg_mlp_delta_of(net, first, first + 25, b, b + 25, out_rows, &n_out, in_rows);
                FG_SIMD(fg_sum_rows)(A + (size_t)nb * ws, base, out_rows, n_out, in_rows, n_in, hp);
            }
            FG_SIMD(fg_add_extra)(net, b, b + 25, A + (size_t)nb * ws);
            pending[nb++] = c;
            if (nb == FG_MLP_BLOCK) {
                FG_SIMD(fg_score_block)(net, A, nb, ws, N, M, Z, pending, values);
                nb = 0;
            }
        }
    }
    if (nb > 0) FG_SIMD(fg_score_block)(net, A, nb, ws, N, M, Z, pending, values);
}

#undef FG_SIMD
#undef FG_SIMD_TARGET
#undef FG_VL
#undef FG_V
#undef FG_VLOAD
#undef FG_VSTORE
#undef FG_VADD
#undef FG_VSUB
#undef FG_VMUL
#undef FG_VMIN
#undef FG_VMAX
#undef FG_VSET1
#undef FG_VZERO
#undef FG_VRCP
#undef FG_VHSUM5
#undef FG_VFNMA
#undef FG_VFMA
#undef FG_VSCALE
#undef FG_VROUND
