"""Set kernels between bags for several bandwidths in one pass (compiled).

For bags A and B with instance weights w, the set kernel (Gaertner, Flach,
Kowalczyk and Smola, "Multi-instance kernels", ICML 2002) is

    K(A, B) = sum over a in A, b in B of w_a w_b exp(-gamma ||a - b||^2);

all weights 1 give the normalised-set kernel's numerator (NSK / MI-Kernel),
miGraph's weights 1 / degree in each bag's epsilon-graph give its kernel
(Zhou, Sun and Li, "Multi-instance learning by treating instances as
non-i.i.d. samples", ICML 2009). The weights and the normalisation live in
Python (:mod:`mil.svm`); this pass fills the unnormalised sums.

It is another reduction of the blocked pass of the Hausdorff family
(``_blocks.pyx``, which also gives the instance-to-bag minima and the
Hausdorff distances): bags are grouped into row blocks and column chunks of
about ``block_size`` instances (the same boundaries as
``_hausdorff.bag_blocks``), a block of squared distances is
``|a|^2 + |b|^2 - 2 a.b`` with the products from BLAS (scipy's
``cython_blas``; dsyrk on the diagonal blocks of train-vs-train
(``TRIANGLE``), whose within-bag products K(A, A) needs, dgemm elsewhere),
negatives clamped to 0; where the Hausdorff reductions take minima, this one
sums weighted exponentials per bag pair (``_set_kernel_block``).
The squared distances of a row are computed once; the exponentials are
taken once per gamma by ``mil_exp_neg``, a branch-free exponential (Cody-Waite
reduction to |r| <= ln 2 / 2, the Taylor polynomial of degree 13, the power
of two built in the exponent bits) that the C compiler vectorises with the
baseline instruction set (SSE2 on x86-64, NEON on arm64) and no special
compiler flags, and on x86-64 Linux also for AVX2 with FMA and AVX-512, chosen
at run time: it is within a few ulp of the C library's ``exp`` (tested),
so the sums agree with the NumPy twin to rounding. Arguments from 700 on
(exponentials below 1e-304) take the C library's ``exp``, those beyond 746
count 0 (exactly their exponential in float64). Memory stays at one block, never the full
instance-by-instance matrix.

Precision: the expansion's rounding error on a squared distance is at most
about ``(2d + 3) * 2**-53 * (|a|^2 + |b|^2)`` (``d`` features), so a term
``exp(-gamma d2)`` is off by at most ``gamma`` times that, relative. Where
that bound exceeds ``TERM_RTOL`` for some gamma, the squared distance is
recomputed from the differences ``a - b`` (exact to ``(d + 2) * 2**-53``
relative), unless the term cannot matter for that gamma: it underflows
(``gamma d2`` beyond 746 even at the bound) or it lies below ``exp(-42)``
times the largest term of the same bag pair's row (an upper bound of the
pair's smallest distance, ``SKIP_BELOW_LARGEST``). The test takes the gammas
as the interval from the smallest to the largest (one pass whatever their
number; a few more distances recomputed than the grid itself needs), and a
column bag whose smallest squared distance no entry could pass with is
skipped after one pass. A distance small beside large instance norms (``0``
against ``0.1`` next to an instance at ``1e8``) thus keeps its digits, as the
Hausdorff kernels do with ``EXACT_BELOW``; on well-scaled data the bound
holds for every row and the check costs one comparison per row. Train-vs-train visits the pairs i <= j and
mirrors them. The NumPy twin (``_set_kernel_py``) uses the same blocks and
expansion; the two agree to rounding (sums in a different order).
"""

from libc.math cimport exp, INFINITY
from libc.stdlib cimport malloc, free
from scipy.linalg.cython_blas cimport dsyrk

from mil._core._blocks cimport Block, TRIANGLE, blocked_pass, squared_norms
from mil._core._typedefs cimport float64_t, intp_t

from mil._core._checks import set_kernel_args, set_kernel_diagonal_args

__all__ = ["set_kernel_matrices", "set_kernel_diagonal"]

# exp(-t) is exactly 0.0 in float64 for t above about 745.13: skip those.
cdef float64_t _EXP_UNDERFLOW = 746.0
EXP_UNDERFLOW = _EXP_UNDERFLOW

# Largest relative error of one term exp(-gamma d2) left to the expansion
# |a|^2 + |b|^2 - 2 a.b (see the module docstring); beyond it the squared
# distance is recomputed from differences.
cdef float64_t _TERM_RTOL = 2.0 ** -33
TERM_RTOL = _TERM_RTOL
# A term below exp(-SKIP_BELOW_LARGEST) times the largest of its row and bag
# pair changes their sum by less than 6e-19 of it, however wrong: not recomputed.
cdef float64_t _SKIP_BELOW_LARGEST = 42.0
SKIP_BELOW_LARGEST = _SKIP_BELOW_LARGEST
# Unit roundoff.
cdef float64_t _U = 2.0 ** -53


cdef extern from *:
    """
    /* exp(-t) for 0 <= t <= 700 without branches or calls, so that loops of
       it vectorise: -t = k ln 2 + r with k = round(-t / ln 2) (adding
       1.5 * 2^52 rounds to an integer, whose low bits then hold k), ln 2 split
       in a high part of 32 bits (k * high is exact) and the rest (Cody-Waite),
       |r| <= ln 2 / 2 (+ rounding); exp(r) by its Taylor polynomial of degree
       13 (truncation below 5e-18 relative) by Horner; 2^k (k >= -1010, a
       normal number) built in the exponent bits. */
    #include <stdint.h>
    #include <string.h>
    #define MIL_EXP_NEG_BODY(STEP)                                         \
        double kd = t * -1.4426950408889634 + 6755399441055744.0;         \
        uint64_t ku, su;                                                   \
        double r, q, scale;                                                \
        memcpy(&ku, &kd, sizeof(double));                                  \
        kd = kd - 6755399441055744.0;                                      \
        r = (-t - kd * 6.93147180369123816490e-01)                         \
            - kd * 1.90821492927058770002e-10;                             \
        q = 1.6059043836821613e-10;             /* 1 / 13! */              \
        q = STEP(q, r, 2.08767569878680989792e-09);  /* 1 / 12! */         \
        q = STEP(q, r, 2.50521083854417187751e-08);  /* 1 / 11! */         \
        q = STEP(q, r, 2.75573192239858906526e-07);  /* 1 / 10! */         \
        q = STEP(q, r, 2.75573192239858906526e-06);  /* 1 / 9! */          \
        q = STEP(q, r, 2.48015873015873015873e-05);  /* 1 / 8! */          \
        q = STEP(q, r, 1.98412698412698412698e-04);  /* 1 / 7! */          \
        q = STEP(q, r, 1.38888888888888888889e-03);  /* 1 / 6! */          \
        q = STEP(q, r, 8.33333333333333333333e-03);  /* 1 / 5! */          \
        q = STEP(q, r, 4.16666666666666666667e-02);  /* 1 / 4! */          \
        q = STEP(q, r, 1.66666666666666666667e-01);  /* 1 / 3! */          \
        q = STEP(q, r, 0.5);                                               \
        su = (ku << 52) + ((uint64_t)1023 << 52);                          \
        memcpy(&scale, &su, sizeof(double));                               \
        return scale * (1.0 + (r + (r * r) * q));
    #define MIL_MUL_ADD(a, b, c) ((a) * (b) + (c))
    static CYTHON_INLINE double mil_exp_neg(double t) { MIL_EXP_NEG_BODY(MIL_MUL_ADD) }

    /* e[b] = w[b] exp(-min(g v[b], 700)): two loops without branches (the
       compiler vectorises both with the baseline instruction set). */
    #define MIL_EXP_LOOP_BODY(EXPF)                                        \
        Py_ssize_t b;                                                      \
        for (b = 0; b < n; b++) {                                          \
            double t = g * v[b];                                           \
            e[b] = t < 700.0 ? t : 700.0;                                  \
        }                                                                  \
        for (b = 0; b < n; b++) {                                          \
            e[b] = w[b] * EXPF(e[b]);                                      \
        }
    static void mil_exp_loop_base(const double *v, const double *w, Py_ssize_t n,
                                  double g, double *e) { MIL_EXP_LOOP_BODY(mil_exp_neg) }

    /* The sum of e[0..n-1] over eight interleaved partial sums, added in a
       fixed order: the same result whatever the vector width. */
    #define MIL_SUM8_BODY                                                  \
        double s[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};            \
        Py_ssize_t b = 0;                                                  \
        int j;                                                             \
        for (; b + 8 <= n; b += 8) {                                       \
            for (j = 0; j < 8; j++) s[j] = s[j] + e[b + j];                \
        }                                                                  \
        for (; b < n; b++) s[0] = s[0] + e[b];                             \
        return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    static double mil_sum8_base(const double *e, Py_ssize_t n) { MIL_SUM8_BODY }

    /* On x86-64 Linux with GCC or Clang the same loops are also compiled for
       AVX2 with FMA (four doubles a vector instead of two, the polynomial's
       Horner steps as fused multiply-adds) and AVX-512 (eight), chosen at run
       time from what the processor has. The sums keep their order; the fused
       steps round once instead of twice, so these builds agree with the
       baseline to a few ulp (tested). */
    #if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
    #define MIL_FMA(a, b, c) __builtin_fma((a), (b), (c))
    __attribute__((target("avx2,fma")))
    static CYTHON_INLINE double mil_exp_neg_fma(double t) { MIL_EXP_NEG_BODY(MIL_FMA) }
    __attribute__((target("avx2,fma")))
    static void mil_exp_loop_avx2(const double *v, const double *w, Py_ssize_t n,
                                  double g, double *e) { MIL_EXP_LOOP_BODY(mil_exp_neg_fma) }
    __attribute__((target("avx2")))
    static double mil_sum8_avx2(const double *e, Py_ssize_t n) { MIL_SUM8_BODY }
    #if defined(__clang__)
    __attribute__((target("avx512f,avx2,fma")))
    #else
    __attribute__((target("avx512f,avx2,fma,prefer-vector-width=512")))
    #endif
    static void mil_exp_loop_avx512(const double *v, const double *w, Py_ssize_t n,
                                    double g, double *e) { MIL_EXP_LOOP_BODY(mil_exp_neg_fma) }
    #if defined(__clang__)
    __attribute__((target("avx512f")))
    #else
    __attribute__((target("avx512f,prefer-vector-width=512")))
    #endif
    static double mil_sum8_avx512(const double *e, Py_ssize_t n) { MIL_SUM8_BODY }
    static int mil_simd = 0, mil_simd_max = 0;
    static int mil_exp_init(void) {
        __builtin_cpu_init();
        if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) mil_simd_max = 0;
        else mil_simd_max = __builtin_cpu_supports("avx512f") ? 2 : 1;
        mil_simd = mil_simd_max;
        return mil_simd;
    }
    static int mil_exp_use(int level) {
        mil_simd = level < mil_simd_max ? (level > 0 ? level : 0) : mil_simd_max;
        return mil_simd;
    }
    static void mil_exp_loop(const double *v, const double *w, Py_ssize_t n,
                             double g, double *e) {
        if (mil_simd == 2) mil_exp_loop_avx512(v, w, n, g, e);
        else if (mil_simd == 1) mil_exp_loop_avx2(v, w, n, g, e);
        else mil_exp_loop_base(v, w, n, g, e);
    }
    static double mil_sum8(const double *e, Py_ssize_t n) {
        if (mil_simd == 2) return mil_sum8_avx512(e, n);
        if (mil_simd == 1) return mil_sum8_avx2(e, n);
        return mil_sum8_base(e, n);
    }
    #else
    static int mil_exp_init(void) { return 0; }
    static int mil_exp_use(int level) { (void)level; return 0; }
    static void mil_exp_loop(const double *v, const double *w, Py_ssize_t n,
                             double g, double *e) { mil_exp_loop_base(v, w, n, g, e); }
    static double mil_sum8(const double *e, Py_ssize_t n) { return mil_sum8_base(e, n); }
    #endif
    """
    float64_t mil_exp_neg(float64_t t) noexcept nogil
    void mil_exp_loop(const float64_t* v, const float64_t* w, intp_t n, float64_t g,
                      float64_t* e) noexcept nogil
    int mil_exp_init() noexcept nogil
    int mil_exp_use(int level) noexcept nogil
    float64_t mil_sum8(const float64_t* e, intp_t n) noexcept nogil


#: The best build of the exponential loops this processor runs: 2 AVX-512,
#: 1 AVX2 with FMA (x86-64 Linux), 0 the baseline.
EXP_SIMD = mil_exp_init()


def _use_exp_simd(level):
    """Run the exponential loops' build `level` (capped at :data:`EXP_SIMD`); return the one in use.

    A testing hook (all builds must agree to a few ulp); not thread-safe
    against a kernel running at the same time.
    """
    return mil_exp_use(int(level))

# The exponentials are computed by mil_exp_neg below _FAST_MAX, by the C
# library's exp from there up to _EXP_UNDERFLOW.
cdef float64_t _FAST_MAX = 700.0


def _exp_neg_array(const float64_t[::1] t, float64_t[::1] out):
    """``out[i] = exp(-t[i])`` by the vectorised loop (testing hook; 0 <= t <= 700)."""
    cdef float64_t[::1] ones = None
    import numpy as np
    ones = np.ones(t.shape[0])
    if t.shape[0]:
        mil_exp_loop(&t[0], &ones[0], t.shape[0], 1.0, &out[0])


cdef void _exp_terms(const float64_t* v, const float64_t* w, intp_t n, float64_t g,
                     float64_t vmax, float64_t* e) noexcept nogil:
    # e[b] = w[b] exp(-g v[b]) for v[b] in [0, vmax]: the vectorised loops
    # (mil_exp_loop); only when some argument reaches _FAST_MAX (exponentials
    # below 1e-304) are those terms redone through the C library's exp, 0
    # beyond 746 (exactly their exponential in float64).
    cdef intp_t b
    cdef float64_t t
    mil_exp_loop(v, w, n, g, e)
    if g * vmax >= _FAST_MAX:
        for b in range(n):
            t = g * v[b]
            if t >= _FAST_MAX:
                e[b] = w[b] * exp(-t) if t < _EXP_UNDERFLOW else 0.0


cdef inline float64_t _sq_diff(const float64_t* a, const float64_t* b, intp_t d) noexcept nogil:
    # ||a - b||^2 from the differences (no cancellation).
    cdef intp_t k
    cdef float64_t t, s = 0.0
    for k in range(d):
        t = a[k] - b[k]
        s = s + t * t
    return s


cdef void _exact_where_needed(
    float64_t* vrow, float64_t* flag, const float64_t* a, const float64_t* B, intp_t d,
    float64_t sra, const float64_t* sq_c, float64_t max_sq, const intp_t* seg, intp_t s0, intp_t ns,
    intp_t start, bint self_first, float64_t cu, float64_t gmin, float64_t gmax,
) noexcept nogil:
    # Recompute from differences the squared distances vrow[start:seg[ns]] of
    # row instance a whose expansion error may change a term by more than
    # TERM_RTOL for some gamma (see the module docstring). The rule reads
    # only this row and the column bags' segments seg[s]..seg[s+1]-1; `flag`
    # is scratch of the row's length. The tests run without branches, so
    # that the loops vectorise.
    cdef intp_t b, s, lo, hi
    cdef float64_t ref, t, err, low, vmin, max_err = cu * (sra + max_sq)
    # No entry with low >= skip_above passes the tests below (g low < 746 for
    # g >= gmin, and TERM_RTOL low < 746 err with err <= max_err); the margin
    # covers the rounding of this bound: a bag whose smallest squared distance
    # is beyond it is skipped at the cost of one pass.
    cdef float64_t skip_above = _EXP_UNDERFLOW / gmin
    if _EXP_UNDERFLOW * max_err / _TERM_RTOL < skip_above:
        skip_above = _EXP_UNDERFLOW * max_err / _TERM_RTOL
    skip_above = skip_above * (1.0 + 1e-9) + max_err
    for s in range(s0, ns):
        lo = seg[s] if seg[s] > start else start
        hi = seg[s + 1]
        if hi <= lo:
            continue
        # ref: an upper bound of the bag's smallest true squared distance to a
        # (its own bag: a itself, at 0), so the largest term is >= exp(-g ref).
        ref = 0.0
        vmin = vrow[lo]
        for b in range(lo + 1, hi):
            vmin = vrow[b] if vrow[b] < vmin else vmin
        if vmin >= skip_above:
            continue
        if not (self_first and s == s0):
            ref = vrow[lo] + cu * (sra + sq_c[lo])
            for b in range(lo + 1, hi):
                t = vrow[b] + cu * (sra + sq_c[b])
                ref = t if t < ref else ref
        for b in range(lo, hi):
            err = cu * (sra + sq_c[b])
            low = vrow[b] - err
            # Some gamma g in [gmin, gmax] with g err > TERM_RTOL (the term may be
            # off by more), g low < 746 (it does not underflow) and
            # g (low - ref) <= 42 (it is not negligible in its bag's sum): the
            # interval of such g is not empty (a superset of the grid's gammas).
            flag[b] = <float64_t>((gmax * err > _TERM_RTOL) & (gmin * low < _EXP_UNDERFLOW)
                                  & (gmin * (low - ref) <= _SKIP_BELOW_LARGEST)
                                  & (_TERM_RTOL * low < _EXP_UNDERFLOW * err)
                                  & (_TERM_RTOL * (low - ref) <= _SKIP_BELOW_LARGEST * err))
        for b in range(lo, hi):
            if flag[b] != 0.0:
                vrow[b] = _sq_diff(a, B + b * d, d)


cdef void _row_bag_sums(
    const float64_t* G, intp_t ldg, intp_t a0, intp_t a1, const float64_t* sq_r,
    const float64_t* w_r, const float64_t* sq_c, const float64_t* w_c, const intp_t* seg,
    intp_t s0, intp_t ns, bint self_first, const float64_t* gammas, intp_t ng,
    float64_t* vrow, float64_t* ebuf, float64_t* acc,
    const float64_t* A, const float64_t* B, intp_t d,
) noexcept nogil:
    # One row bag (rows a0..a1-1 of the block) against the column bags
    # s0..ns-1 of the chunk (columns seg[s]..seg[s+1]-1):
    # acc[k * ns + s] = sum_a sum_b w_a w_b exp(-gammas[k] d2(a, b)).
    # G holds the products a.b (row stride ldg). Each row is one stretch of
    # columns: its squared distances once, then per gamma the exponentials
    # of the whole stretch and their sums per column bag.
    # self_first: column bag s0 is the row bag itself (a diagonal block, rows
    # and columns the same instances, dsyrk filled only b >= a): a row reads
    # the columns after itself, its own bag's share counted twice plus its
    # distance 0 to itself once.
    # A, B: the row and column instances (row-major, d features; row a is
    # A + a * d, column b is B + b * d), for the squared distances recomputed
    # from differences where the expansion may be too coarse
    # (_exact_where_needed).
    cdef intp_t a, b, k, s, lo, start, n, stop = seg[ns]
    cdef float64_t v, sra, vmin, vmax, g, tot, wa, gmax = 0.0, gmin = INFINITY, max_sq = 0.0
    cdef float64_t cu = (2.0 * <float64_t>d + 4.0) * _U
    cdef const float64_t* grow
    for k in range(ng):
        for s in range(s0, ns):
            acc[k * ns + s] = 0.0
        if gammas[k] > gmax:
            gmax = gammas[k]
        if gammas[k] < gmin:
            gmin = gammas[k]
    for b in range(seg[s0], stop):
        if sq_c[b] > max_sq:
            max_sq = sq_c[b]
    for a in range(a0, a1):
        grow = G + a * ldg
        sra = sq_r[a]
        wa = w_r[a]
        start = a + 1 if self_first else seg[s0]
        n = stop - start
        vmin = 0.0
        vmax = 0.0
        if n > 0:
            for b in range(start, stop):
                v = (sra + sq_c[b]) - 2.0 * grow[b]
                vrow[b] = v if v > 0.0 else 0.0
            if gmax * (cu * (sra + max_sq)) > _TERM_RTOL:
                _exact_where_needed(vrow, ebuf, A + a * d, B, d, sra, sq_c, max_sq, seg, s0, ns, start,
                                    self_first, cu, gmin, gmax)
            vmin = vrow[start]
            vmax = vmin
            for b in range(start, stop):
                if vrow[b] > vmax:
                    vmax = vrow[b]
                if vrow[b] < vmin:
                    vmin = vrow[b]
        for k in range(ng):
            g = gammas[k]
            if self_first:
                acc[k * ns + s0] = acc[k * ns + s0] + wa * wa
            if n == 0 or g * vmin >= _EXP_UNDERFLOW:
                continue
            _exp_terms(vrow + start, w_c + start, n, g, vmax, ebuf + start)
            for s in range(s0, ns):
                lo = seg[s] if seg[s] > start else start
                tot = mil_sum8(ebuf + lo, seg[s + 1] - lo) if seg[s + 1] > lo else 0.0
                if self_first and s == s0:
                    tot = 2.0 * tot
                acc[k * ns + s] = acc[k * ns + s] + wa * tot


cdef struct _SetKernel:
    const float64_t* x_weights
    const float64_t* y_weights
    const float64_t* gammas
    intp_t n_gammas
    float64_t* out
    float64_t* acc     # (n_gammas, column bags of a chunk) sums of one row bag
    intp_t* seg        # column bag boundaries within a chunk


cdef void _set_kernel_block(void* ctx, const Block* blk) noexcept nogil:
    # The reduction of c_set_kernel_matrices: each row bag of the block
    # against the chunk's column bags (from itself on in a diagonal block;
    # other chunks of train-vs-train lie after the row block), mirrored when
    # symmetric.
    cdef _SetKernel* o = <_SetKernel*>ctx
    cdef const intp_t* xo = blk.x_offsets
    cdef intp_t i, j, k, s, s0, i0 = blk.i0, j0 = blk.j0, c0 = blk.c0, ns = blk.c1 - blk.c0
    cdef intp_t n_cols = blk.n_cols, plane = blk.n_x * blk.n_cols, ng = o.n_gammas
    cdef bint diagonal = blk.diagonal, symmetric = blk.symmetric
    cdef float64_t* vrow = blk.scratch
    cdef float64_t* ebuf = blk.scratch + blk.scratch_len
    cdef float64_t* out = o.out
    cdef float64_t* acc = o.acc
    cdef intp_t* seg = o.seg
    for s in range(ns + 1):
        seg[s] = blk.y_offsets[c0 + s] - j0
    for i in range(blk.r0, blk.r1):
        s0 = i - c0 if diagonal else 0
        _row_bag_sums(blk.G, blk.ldg, xo[i] - i0, xo[i + 1] - i0, blk.sq_x + i0,
                      o.x_weights + i0, blk.sq_y + j0, o.y_weights + j0, seg, s0, ns, diagonal,
                      o.gammas, ng, vrow, ebuf, acc, blk.X + i0 * blk.d, blk.Y + j0 * blk.d, blk.d)
        for k in range(ng):
            for s in range(s0, ns):
                j = c0 + s
                out[k * plane + i * n_cols + j] = acc[k * ns + s]
                if symmetric:
                    out[k * plane + j * n_cols + i] = acc[k * ns + s]


cdef int c_set_kernel_matrices(
    const float64_t* X, const intp_t* x_offsets, const float64_t* x_weights,
    const float64_t* Y, const intp_t* y_offsets, const float64_t* y_weights,
    intp_t n_y, intp_t d, bint symmetric, intp_t row_start, intp_t row_stop, intp_t n_x,
    intp_t block_size, const float64_t* gammas, intp_t n_gammas, float64_t* out,
) except -1 nogil:
    cdef _SetKernel o
    cdef intp_t n_cols = n_x if symmetric else n_y
    o.x_weights = x_weights
    o.y_weights = x_weights if symmetric else y_weights
    o.gammas = gammas
    o.n_gammas = n_gammas
    o.out = out
    o.acc = <float64_t*> malloc((n_gammas * n_cols + 1) * sizeof(float64_t))
    o.seg = <intp_t*> malloc((n_cols + 1) * sizeof(intp_t))
    if o.acc == NULL or o.seg == NULL:
        free(o.acc)
        free(o.seg)
        with gil:
            raise MemoryError("could not allocate the set-kernel block")
    try:
        # Two scratch buffers: a row's squared distances and its exponentials.
        blocked_pass(X, x_offsets, n_x, Y, y_offsets, n_y, d, symmetric, row_start, row_stop,
                     block_size, TRIANGLE, _set_kernel_block, &o, 2, b"the set-kernel block")
    finally:
        free(o.acc)
        free(o.seg)
    return 0


cdef int c_set_kernel_diagonal(
    const float64_t* X, const intp_t* offsets, const float64_t* weights, intp_t n_bags,
    intp_t d, const float64_t* gammas, intp_t n_gammas, float64_t* out,
) except -1 nogil:
    cdef intp_t b, k, nb, max_n = 0
    cdef float64_t one = 1.0, zero = 0.0
    cdef float64_t* sq = NULL
    cdef float64_t* G = NULL
    cdef float64_t* vrow = NULL
    cdef float64_t* ebuf = NULL
    cdef float64_t* acc = NULL
    cdef intp_t seg[2]
    cdef int m, kk
    cdef char tr = b'T', lo = b'L'
    for b in range(n_bags):
        if offsets[b + 1] - offsets[b] > max_n:
            max_n = offsets[b + 1] - offsets[b]
    sq = <float64_t*> malloc((offsets[n_bags] + 1) * sizeof(float64_t))
    G = <float64_t*> malloc((max_n * max_n + 1) * sizeof(float64_t))
    vrow = <float64_t*> malloc((max_n + 1) * sizeof(float64_t))
    ebuf = <float64_t*> malloc((max_n + 1) * sizeof(float64_t))
    acc = <float64_t*> malloc((n_gammas + 1) * sizeof(float64_t))
    if sq == NULL or G == NULL or vrow == NULL or ebuf == NULL or acc == NULL:
        free(sq)
        free(G)
        free(vrow)
        free(ebuf)
        free(acc)
        with gil:
            raise MemoryError("could not allocate the set-kernel diagonal block")
    try:
        squared_norms(X, offsets[n_bags], d, sq)
        for b in range(n_bags):
            nb = offsets[b + 1] - offsets[b]
            m = <int>nb
            kk = <int>d
            dsyrk(&lo, &tr, &m, &kk, &one, <float64_t*>(X + offsets[b] * d), &kk, &zero, G, &m)
            seg[0] = 0
            seg[1] = nb
            _row_bag_sums(G, nb, 0, nb, sq + offsets[b], weights + offsets[b], sq + offsets[b],
                          weights + offsets[b], seg, 0, 1, True, gammas, n_gammas, vrow, ebuf, acc,
                          X + offsets[b] * d, X + offsets[b] * d, d)
            for k in range(n_gammas):
                out[k * n_bags + b] = acc[k]
    finally:
        free(sq)
        free(G)
        free(vrow)
        free(ebuf)
        free(acc)
    return 0


def set_kernel_matrices(X, x_offsets, x_weights, Y, y_offsets, y_weights, symmetric, gammas, out,
                        row_start, row_stop, block_size):
    """Fill rows ``row_start..row_stop-1`` of the set kernels for every gamma.

    Parameters
    ----------
    X : ndarray (n_instances_x, d), C-contiguous float64
        Instances of the row bags, bag after bag.
    x_offsets : ndarray (n_x + 1,) of intp
    x_weights : ndarray (n_instances_x,) of float64
        Instance weights.
    Y, y_offsets, y_weights : the column bags, the same layout (ignored when `symmetric`).
    symmetric : bool
        Train-vs-train (columns are X): pairs i <= j are computed once and
        mirrored (the diagonal holds K(A, A)). Rows of one call may be a
        slice (threads split the rows); mirrored entries land in other rows.
    gammas : ndarray (n_gammas,) of float64
        Bandwidths, each > 0.
    out : ndarray (n_gammas, n_x, n_cols), C-contiguous float64
        Written in place: ``out[k, i, j] = sum_a sum_b w_a w_b exp(-gammas[k] ||a - b||^2)``.
    row_start, row_stop : int
        The row bags to fill.
    block_size : int
        Target number of instances per row block and per column chunk.
    """
    _fill(*set_kernel_args(X, x_offsets, x_weights, Y, y_offsets, y_weights, symmetric, gammas, out,
                           row_start, row_stop, block_size))


def _fill(
    const float64_t[:, ::1] X, const intp_t[::1] x_offsets, const float64_t[::1] x_weights,
    const float64_t[:, ::1] Y, const intp_t[::1] y_offsets, const float64_t[::1] y_weights,
    bint symmetric, const float64_t[::1] gammas, float64_t[:, :, ::1] out,
    intp_t row_start, intp_t row_stop, intp_t block_size,
):
    cdef intp_t n_x = x_offsets.shape[0] - 1
    cdef intp_t n_y = y_offsets.shape[0] - 1
    cdef intp_t d = X.shape[1]
    if symmetric:
        Y = X
        y_offsets = x_offsets
        y_weights = x_weights
        n_y = n_x
    if n_x == 0 or n_y == 0 or row_start >= row_stop or gammas.shape[0] == 0:
        return
    with nogil:
        c_set_kernel_matrices(&X[0, 0], &x_offsets[0], &x_weights[0], &Y[0, 0], &y_offsets[0],
                              &y_weights[0], n_y, d, symmetric, row_start, row_stop, n_x,
                              block_size, &gammas[0], gammas.shape[0], &out[0, 0, 0])


def set_kernel_diagonal(X, offsets, weights, gammas, out):
    """Fill ``out[k, b] = K(B, B)`` of every bag B for every gamma (see :func:`set_kernel_matrices`)."""
    _diag(*set_kernel_diagonal_args(X, offsets, weights, gammas, out))


def _diag(const float64_t[:, ::1] X, const intp_t[::1] offsets, const float64_t[::1] weights,
          const float64_t[::1] gammas, float64_t[:, ::1] out):
    cdef intp_t n_bags = offsets.shape[0] - 1
    if n_bags == 0 or gammas.shape[0] == 0:
        return
    with nogil:
        c_set_kernel_diagonal(&X[0, 0], &offsets[0], &weights[0], n_bags, X.shape[1],
                              &gammas[0], gammas.shape[0], &out[0, 0])
