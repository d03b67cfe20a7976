"""Minimal, maximal and average Hausdorff bag distances in one pass (compiled).

For bags A and B, every Hausdorff variant is a function of
the row minima (nearest b for each a) and column minima (nearest a for each
b) of the block of instance distances ||a - b||: minimal = the smallest row
minimum, maximal = the larger of the largest row and column minima
(Edgar 1995; Wang & Zucker 2000, "Solving the multiple-instance problem: a
lazy learning approach"), average = the mean of all row and column minima
(Zhang & Zhou 2009). One pass over each block yields all three.

Bags are grouped into row blocks and column chunks of about ``block_size``
instances, so memory stays at one block of the Gram matrix, never the full
instance-by-instance matrix. A block of squared distances is
``|a|^2 + |b|^2 - 2 a.b`` with the products from BLAS dgemm (scipy's
``cython_blas``), negatives clamped to 0 after the minimum (clamping
commutes with it); a minimum small enough to be dominated by the
expansion's rounding is recomputed exactly (``EXACT_BELOW``).
Train-vs-train visits only column bags from the row block onwards and
mirrors, and a diagonal block computes only the products between different
bags (``_cross_bag_products``), so the pass does a little under half the
products of a full ``X @ X.T``. The NumPy twin (``_hausdorff_py``) uses the
same blocks and expansion with whole diagonal blocks (the results agree to
rounding).

The same pass, kept before the per-pair reduction, gives the
instance-to-bag minima ``M[i, b] = min over z in bag b of ||x_i - z||^2``
(:func:`instance_bag_minima`): a bag pair's row minima are the entries of
its row instances, its column minima those of its column instances. Every
bag distance above is a reduction of M per bag (minimal: the smallest
entry of a bag's rows in a column; directed Hausdorff: the largest; average:
the sums of both directions; the mean-min dissimilarity of Cheplygina, Tax
and Loog 2015: the mean), and M is the embedding of MILES (Chen, Bi and
Wang 2006). It has its own driver (``c_instance_bag_minima``) so the
Hausdorff matrices keep their code path, and results, unchanged.
"""

from libc.math cimport sqrt, INFINITY
from libc.stdlib cimport malloc, free
from scipy.linalg.cython_blas cimport dgemm, dsyrk

from mil._core._typedefs cimport float64_t, intp_t

from mil._core._checks import bag_blocks_args, hausdorff_args, minima_args

__all__ = ["hausdorff_matrices", "bag_blocks", "instance_bag_minima"]

# A squared distance below EXACT_BELOW * (|a|^2 + |b|^2) may be mostly
# cancellation error of the expansion (about eps * d * (|a|^2 + |b|^2)):
# such a row or column minimum is recomputed exactly from differences, so
# near-duplicate instances give exact (zero) distances and both twins agree
# to ~1e-10 relative. Rare on real data; the twin uses the same rule.
cdef float64_t _EXACT_BELOW = 1e-4
EXACT_BELOW = _EXACT_BELOW
# Runs of bags with at most this many instances get one dsyrk (products within
# bags included) rather than more, smaller BLAS calls.
cdef intp_t _SYRK_BELOW = 128


cdef inline intp_t _next_bound(const intp_t* offsets, intp_t b, intp_t stop,
                               intp_t block_size) noexcept nogil:
    # Bags b..nb-1 hold at most block_size instances, at least one bag.
    cdef intp_t limit = offsets[b] + block_size
    cdef intp_t nb = b + 1
    while nb < stop and offsets[nb + 1] <= limit:
        nb += 1
    return nb


def bag_blocks(offsets, start, stop, block_size):
    """Bag boundaries of the runs of about `block_size` instances (as in the twin)."""
    return _bag_blocks(*bag_blocks_args(offsets, start, stop, block_size))


def _bag_blocks(const intp_t[::1] offsets, intp_t start, intp_t stop, intp_t block_size):
    bounds = [start]
    cdef intp_t b = start
    while b < stop:
        b = _next_bound(&offsets[0], b, stop, block_size)
        bounds.append(b)
    return bounds


cdef inline float64_t _exact_min(const float64_t* a, const float64_t* B, intp_t nb,
                                 intp_t d) noexcept nogil:
    # Smallest squared distance from a to the nb rows of B, by differences.
    cdef intp_t b, k
    cdef float64_t s, t, best = INFINITY
    for b in range(nb):
        s = 0.0
        for k in range(d):
            t = a[k] - B[b * d + k]
            s = s + t * t
        if s < best:
            best = s
    return best


cdef void _pair_block(
    const float64_t* G, intp_t ldg, const float64_t* sq_r, const float64_t* sq_c,
    const float64_t* A, const float64_t* B, intp_t d,
    intp_t nr, intp_t nc, float64_t* cmin,
    float64_t* dmin, float64_t* dmax, float64_t* dave,
) noexcept nogil:
    # G: the nr x nc block of a.b products of one bag pair (row stride ldg);
    # A, B: the pair's instances (for exact recomputation, see EXACT_BELOW).
    cdef intp_t a, b
    cdef float64_t v, v1, v2, v3, r1, r2, r3, rmin, sra, best = INFINITY, hmax_r = 0.0, hmax_c = 0.0, total = 0.0
    cdef float64_t max_sq_r = 0.0, max_sq_c = 0.0
    cdef const float64_t* g
    for b in range(nc):
        cmin[b] = INFINITY
        if sq_c[b] > max_sq_c:
            max_sq_c = sq_c[b]
    for a in range(nr):
        if sq_r[a] > max_sq_r:
            max_sq_r = sq_r[a]
    for a in range(nr):
        g = G + a * ldg
        sra = sq_r[a]
        rmin = INFINITY
        # Selects, not branches, and four running row minima so that no min
        # waits for the previous one (the minimum is exact in any order).
        r1 = INFINITY
        r2 = INFINITY
        r3 = INFINITY
        b = 0
        while b + 4 <= nc:
            v = (sra + sq_c[b]) - 2.0 * g[b]
            v1 = (sra + sq_c[b + 1]) - 2.0 * g[b + 1]
            v2 = (sra + sq_c[b + 2]) - 2.0 * g[b + 2]
            v3 = (sra + sq_c[b + 3]) - 2.0 * g[b + 3]
            rmin = v if v < rmin else rmin
            r1 = v1 if v1 < r1 else r1
            r2 = v2 if v2 < r2 else r2
            r3 = v3 if v3 < r3 else r3
            cmin[b] = v if v < cmin[b] else cmin[b]
            cmin[b + 1] = v1 if v1 < cmin[b + 1] else cmin[b + 1]
            cmin[b + 2] = v2 if v2 < cmin[b + 2] else cmin[b + 2]
            cmin[b + 3] = v3 if v3 < cmin[b + 3] else cmin[b + 3]
            b += 4
        while b < nc:
            v = (sra + sq_c[b]) - 2.0 * g[b]
            rmin = v if v < rmin else rmin
            cmin[b] = v if v < cmin[b] else cmin[b]
            b += 1
        r1 = r1 if r1 < r3 else r3
        rmin = rmin if rmin < r2 else r2
        rmin = rmin if rmin < r1 else r1
        if rmin < _EXACT_BELOW * (sra + max_sq_c):
            rmin = _exact_min(A + a * d, B, nc, d)
        rmin = sqrt(rmin) if rmin > 0.0 else 0.0
        if rmin < best:
            best = rmin
        if rmin > hmax_r:
            hmax_r = rmin
        total = total + rmin
    for b in range(nc):
        v = cmin[b]
        if v < _EXACT_BELOW * (sq_c[b] + max_sq_r):
            v = _exact_min(B + b * d, A, nr, d)
        v = sqrt(v) if v > 0.0 else 0.0
        if v > hmax_c:
            hmax_c = v
        total = total + v
    dmin[0] = best
    dmax[0] = hmax_r if hmax_r > hmax_c else hmax_c
    dave[0] = total / <float64_t>(nr + nc)


cdef void _cross_bag_products(const float64_t* X, const intp_t* offsets, intp_t b0, intp_t b1,
                              intp_t base, int d, float64_t* G, int ldc) noexcept nogil:
    # The products a.b of every two instances a < b of different bags among
    # bags b0..b1-1, written into a diagonal block G (column-major, origin at
    # instance `base`). Halving the bags recursively, each half against the
    # other by dgemm, skips the products within a bag that a dsyrk of the
    # whole block would compute; small runs of bags use one dsyrk anyway.
    cdef intp_t mid, bm, n_inst = offsets[b1] - offsets[b0]
    cdef int m, n
    cdef float64_t one = 1.0, zero = 0.0
    cdef char tr = b'T', nt = b'N', lo = b'L'
    if b1 - b0 < 2:
        return
    if n_inst <= _SYRK_BELOW:
        n = <int>n_inst
        dsyrk(&lo, &tr, &n, &d, &one, <float64_t*>(X + offsets[b0] * d), &d, &zero,
              G + (offsets[b0] - base) * ldc + (offsets[b0] - base), &ldc)
        return
    mid = offsets[b0] + n_inst // 2
    bm = b0 + 1
    while bm < b1 - 1 and offsets[bm + 1] <= mid:
        bm += 1
    m = <int>(offsets[b1] - offsets[bm])
    n = <int>(offsets[bm] - offsets[b0])
    dgemm(&tr, &nt, &m, &n, &d, &one, <float64_t*>(X + offsets[bm] * d), &d,
          <float64_t*>(X + offsets[b0] * d), &d, &zero,
          G + (offsets[b0] - base) * ldc + (offsets[bm] - base), &ldc)
    _cross_bag_products(X, offsets, b0, bm, base, d, G, ldc)
    _cross_bag_products(X, offsets, bm, b1, base, d, G, ldc)


cdef int c_hausdorff_matrices(
    const float64_t* X, const intp_t* x_offsets,
    const float64_t* Y, const intp_t* y_offsets, intp_t n_y, intp_t d,
    bint symmetric, intp_t row_start, intp_t row_stop, intp_t n_x, intp_t block_size,
    float64_t* out_min, float64_t* out_max, float64_t* out_ave,
) except -1 nogil:
    cdef intp_t n_cols = n_x if symmetric else n_y
    if symmetric:
        Y = X
        y_offsets = x_offsets
    cdef intp_t n_inst_x = x_offsets[n_x], n_inst_y = y_offsets[n_cols]
    cdef intp_t r0, r1, c0, c1, i, j, a, k, i0, i1, j0, j1, max_rows = 0, max_cols = 0
    cdef float64_t s, one = 1.0, zero = 0.0
    cdef float64_t* sq_x = NULL
    cdef float64_t* sq_y = NULL
    cdef float64_t* G = NULL
    cdef float64_t* cmin = NULL
    cdef int m, n, kk, ldc
    cdef char tr = b'T', nt = b'N'
    # Largest block that can occur, for one allocation.
    r0 = row_start
    while r0 < row_stop:
        r1 = _next_bound(x_offsets, r0, row_stop, block_size)
        if x_offsets[r1] - x_offsets[r0] > max_rows:
            max_rows = x_offsets[r1] - x_offsets[r0]
        r0 = r1
    c0 = row_start if symmetric else 0
    while c0 < n_cols:
        c1 = _next_bound(y_offsets, c0, n_cols, block_size)
        if y_offsets[c1] - y_offsets[c0] > max_cols:
            max_cols = y_offsets[c1] - y_offsets[c0]
        c0 = c1
    sq_x = <float64_t*> malloc(n_inst_x * sizeof(float64_t))
    sq_y = sq_x if symmetric else <float64_t*> malloc(n_inst_y * sizeof(float64_t))
    G = <float64_t*> malloc((max_rows * max_cols + 1) * sizeof(float64_t))
    cmin = <float64_t*> malloc((max_cols + 1) * sizeof(float64_t))
    if sq_x == NULL or sq_y == NULL or G == NULL or cmin == NULL:
        free(G)
        free(cmin)
        if sq_y != sq_x:
            free(sq_y)
        free(sq_x)
        with gil:
            raise MemoryError("could not allocate the Hausdorff distance block")
    try:
        for a in range(n_inst_x):
            s = 0.0
            for k in range(d):
                s = s + X[a * d + k] * X[a * d + k]
            sq_x[a] = s
        if not symmetric:
            for a in range(n_inst_y):
                s = 0.0
                for k in range(d):
                    s = s + Y[a * d + k] * Y[a * d + k]
                sq_y[a] = s
        r0 = row_start
        while r0 < row_stop:
            r1 = _next_bound(x_offsets, r0, row_stop, block_size)
            i0 = x_offsets[r0]
            i1 = x_offsets[r1]
            c0 = r0 if symmetric else 0
            while c0 < n_cols:
                c1 = _next_bound(y_offsets, c0, n_cols, block_size)
                j0 = y_offsets[c0]
                j1 = y_offsets[c1]
                # Row-major G (rows x cols) = X_r Y_c^T is column-major G^T = Y_c X_r^T.
                m = <int>(j1 - j0)
                n = <int>(i1 - i0)
                kk = <int>d
                ldc = m
                if symmetric and c0 == r0 and c1 == c0 + 1:
                    # A diagonal block of one (large) bag holds no pair of bags.
                    c0 = c1
                    continue
                if symmetric and c0 == r0 and c1 == r1:
                    # A diagonal block: only pairs of bags i < j are read, whose
                    # products lie above the row-major diagonal, i.e. in the
                    # column-major lower triangle; compute just those (about
                    # half the products of dgemm). Not when the rows stop short
                    # of the column chunk (a slice of rows for a thread): then
                    # the block is not square and dgemm does it.
                    _cross_bag_products(X, x_offsets, r0, r1, i0, kk, G, ldc)
                else:
                    dgemm(&tr, &nt, &m, &n, &kk, &one, <float64_t*>(Y + j0 * d), &kk,
                          <float64_t*>(X + i0 * d), &kk, &zero, G, &ldc)
                for i in range(r0, r1):
                    for j in range(c0, c1):
                        if symmetric and j <= i:
                            continue
                        _pair_block(
                            G + (x_offsets[i] - i0) * ldc + (y_offsets[j] - j0), ldc,
                            sq_x + x_offsets[i], sq_y + y_offsets[j],
                            X + x_offsets[i] * d, Y + y_offsets[j] * d, d,
                            x_offsets[i + 1] - x_offsets[i], y_offsets[j + 1] - y_offsets[j],
                            cmin, out_min + i * n_cols + j, out_max + i * n_cols + j,
                            out_ave + i * n_cols + j)
                        if symmetric:
                            out_min[j * n_cols + i] = out_min[i * n_cols + j]
                            out_max[j * n_cols + i] = out_max[i * n_cols + j]
                            out_ave[j * n_cols + i] = out_ave[i * n_cols + j]
                c0 = c1
            r0 = r1
        if symmetric:
            for i in range(row_start, row_stop):
                out_min[i * n_cols + i] = 0.0
                out_max[i * n_cols + i] = 0.0
                out_ave[i * n_cols + i] = 0.0
    finally:
        free(G)
        free(cmin)
        if sq_y != sq_x:
            free(sq_y)
        free(sq_x)
    return 0


def hausdorff_matrices(X, x_offsets, Y, y_offsets, symmetric, out_min, out_max, out_ave,
                       row_start, row_stop, block_size):
    """Fill rows ``row_start..row_stop-1`` of the minimal, maximal and average matrices.

    Parameters
    ----------
    X : ndarray (n_instances_x, d), C-contiguous float64
        Instances of the row bags, bag after bag.
    x_offsets : ndarray (n_x + 1,) of intp
    Y, y_offsets : column bags, the same layout (ignored when `symmetric`).
    symmetric : bool
        Train-vs-train (columns are X): pairs i < j are computed once and
        mirrored; the diagonal is set to 0. Rows of one call may be a slice
        (threads split the rows); mirrored entries land in other rows.
    out_min, out_max, out_ave : ndarray (n_x, n_cols), C-contiguous float64
        Written in place.
    row_start, row_stop : int
        The row bags to fill.
    block_size : int
        Target number of instances per row block and per column chunk.
    """
    _fill(*hausdorff_args(X, x_offsets, Y, y_offsets, symmetric, out_min, out_max, out_ave,
                          row_start, row_stop, block_size))


cdef int _check_layout(const intp_t[::1] offsets, intp_t n_rows, str name) except -1:
    # Offsets from 0 to n_rows, strictly increasing (no empty bag).
    cdef intp_t b, n = offsets.shape[0]
    if n == 0 or offsets[0] != 0 or offsets[n - 1] != n_rows:
        raise ValueError(f"{name} must start at 0 and end at the number of rows ({n_rows})")
    for b in range(n - 1):
        if offsets[b + 1] <= offsets[b]:
            raise ValueError(f"{name} must be strictly increasing (no empty bag); "
                             f"{name}[{b}] = {offsets[b]} >= {name}[{b + 1}] = {offsets[b + 1]}")
    return 0


def _fill(
    const float64_t[:, ::1] X, const intp_t[::1] x_offsets,
    const float64_t[:, ::1] Y, const intp_t[::1] y_offsets, bint symmetric,
    float64_t[:, ::1] out_min, float64_t[:, ::1] out_max, float64_t[:, ::1] out_ave,
    intp_t row_start, intp_t row_stop, intp_t block_size,
):
    cdef intp_t n_x = x_offsets.shape[0] - 1
    cdef intp_t n_y = y_offsets.shape[0] - 1
    cdef intp_t d = X.shape[1]
    if symmetric:
        Y = X
        y_offsets = x_offsets
        n_y = n_x
    # The kernel trusts these; an O(n_bags) check costs nothing beside it (hausdorff_matrices
    # has checked them already; this guards direct calls).
    _check_layout(x_offsets, X.shape[0], "x_offsets")
    _check_layout(y_offsets, Y.shape[0], "y_offsets")
    if Y.shape[1] != d:
        raise ValueError(f"Y has {Y.shape[1]} features but X has {d}")
    if not (out_min.shape[0] == out_max.shape[0] == out_ave.shape[0] == n_x
            and out_min.shape[1] == out_max.shape[1] == out_ave.shape[1] == n_y):
        raise ValueError(f"the three outputs must have shape ({n_x}, {n_y})")
    if row_start < 0 or row_stop > n_x or block_size < 1:
        raise ValueError(f"need 0 <= row_start and row_stop <= {n_x}, block_size >= 1; got "
                         f"{row_start}, {row_stop}, {block_size}")
    if n_x == 0 or n_y == 0 or row_start >= row_stop:
        return
    with nogil:
        c_hausdorff_matrices(&X[0, 0], &x_offsets[0], &Y[0, 0], &y_offsets[0], n_y, d,
                             symmetric, row_start, row_stop, n_x, block_size,
                             &out_min[0, 0], &out_max[0, 0], &out_ave[0, 0])


# -- instance-to-bag minima ----------------------------------------------------

cdef void _pair_minima(
    const float64_t* G, intp_t ldg, const float64_t* sq_r, const float64_t* sq_c,
    const float64_t* A, const float64_t* B, intp_t d, intp_t nr, intp_t nc, float64_t* cmin,
    float64_t* row_out, intp_t row_stride, float64_t* col_out, intp_t col_stride,
) noexcept nogil:
    # The squared row minima (one per instance of A, written every
    # row_stride) and column minima (one per instance of B, every col_stride;
    # skipped when col_out is NULL) of one bag pair's block, as _pair_block
    # finds them: same expansion, same exact recomputation (EXACT_BELOW),
    # negatives clamped to 0, no square root.
    cdef intp_t a, b
    cdef float64_t v, v1, v2, v3, r1, r2, r3, rmin, sra, max_sq_r = 0.0, max_sq_c = 0.0
    cdef const float64_t* g
    for b in range(nc):
        cmin[b] = INFINITY
        if sq_c[b] > max_sq_c:
            max_sq_c = sq_c[b]
    for a in range(nr):
        if sq_r[a] > max_sq_r:
            max_sq_r = sq_r[a]
    for a in range(nr):
        g = G + a * ldg
        sra = sq_r[a]
        rmin = INFINITY
        r1 = INFINITY
        r2 = INFINITY
        r3 = INFINITY
        b = 0
        while b + 4 <= nc:
            v = (sra + sq_c[b]) - 2.0 * g[b]
            v1 = (sra + sq_c[b + 1]) - 2.0 * g[b + 1]
            v2 = (sra + sq_c[b + 2]) - 2.0 * g[b + 2]
            v3 = (sra + sq_c[b + 3]) - 2.0 * g[b + 3]
            rmin = v if v < rmin else rmin
            r1 = v1 if v1 < r1 else r1
            r2 = v2 if v2 < r2 else r2
            r3 = v3 if v3 < r3 else r3
            cmin[b] = v if v < cmin[b] else cmin[b]
            cmin[b + 1] = v1 if v1 < cmin[b + 1] else cmin[b + 1]
            cmin[b + 2] = v2 if v2 < cmin[b + 2] else cmin[b + 2]
            cmin[b + 3] = v3 if v3 < cmin[b + 3] else cmin[b + 3]
            b += 4
        while b < nc:
            v = (sra + sq_c[b]) - 2.0 * g[b]
            rmin = v if v < rmin else rmin
            cmin[b] = v if v < cmin[b] else cmin[b]
            b += 1
        r1 = r1 if r1 < r3 else r3
        rmin = rmin if rmin < r2 else r2
        rmin = rmin if rmin < r1 else r1
        if rmin < _EXACT_BELOW * (sra + max_sq_c):
            rmin = _exact_min(A + a * d, B, nc, d)
        row_out[a * row_stride] = rmin if rmin > 0.0 else 0.0
    if col_out == NULL:
        return
    for b in range(nc):
        v = cmin[b]
        if v < _EXACT_BELOW * (sq_c[b] + max_sq_r):
            v = _exact_min(B + b * d, A, nr, d)
        col_out[b * col_stride] = v if v > 0.0 else 0.0


cdef intp_t _largest_run(const intp_t* offsets, intp_t start, intp_t stop,
                         intp_t block_size) noexcept nogil:
    # Instances in the largest run of bags start..stop-1 (one allocation).
    cdef intp_t b0 = start, b1, size = 0
    while b0 < stop:
        b1 = _next_bound(offsets, b0, stop, block_size)
        if offsets[b1] - offsets[b0] > size:
            size = offsets[b1] - offsets[b0]
        b0 = b1
    return size


cdef void _squared_norms(const float64_t* X, intp_t n, intp_t d, float64_t* out) noexcept nogil:
    cdef intp_t a, k
    cdef float64_t s
    for a in range(n):
        s = 0.0
        for k in range(d):
            s = s + X[a * d + k] * X[a * d + k]
        out[a] = s


cdef int c_instance_bag_minima(
    const float64_t* X, const intp_t* x_offsets,
    const float64_t* Y, const intp_t* y_offsets, intp_t n_y, intp_t d,
    bint symmetric, intp_t row_start, intp_t row_stop, intp_t n_x, intp_t block_size,
    float64_t* out_xy, float64_t* out_yx,
) except -1 nogil:
    # The blocks, products and train-vs-train halving of c_hausdorff_matrices;
    # each bag pair's minima go to M instead of being reduced per pair.
    cdef intp_t n_cols = n_x if symmetric else n_y
    if symmetric:
        Y = X
        y_offsets = x_offsets
        out_yx = out_xy
    cdef intp_t n_inst_x = x_offsets[n_x], n_inst_y = y_offsets[n_cols]
    cdef intp_t r0, r1, c0, c1, i, j, a, i0, i1, j0, j1, max_rows, max_cols
    cdef float64_t one = 1.0, zero = 0.0
    cdef float64_t* sq_x = NULL
    cdef float64_t* sq_y = NULL
    cdef float64_t* G = NULL
    cdef float64_t* cmin = NULL
    cdef float64_t* col_out
    cdef int m, n, kk, ldc
    cdef char tr = b'T', nt = b'N'
    max_rows = _largest_run(x_offsets, row_start, row_stop, block_size)
    max_cols = _largest_run(y_offsets, row_start if symmetric else 0, n_cols, block_size)
    sq_x = <float64_t*> malloc(n_inst_x * sizeof(float64_t) + 1)
    sq_y = sq_x if symmetric else <float64_t*> malloc(n_inst_y * sizeof(float64_t) + 1)
    G = <float64_t*> malloc((max_rows * max_cols + 1) * sizeof(float64_t))
    cmin = <float64_t*> malloc((max_cols + 1) * sizeof(float64_t))
    if sq_x == NULL or sq_y == NULL or G == NULL or cmin == NULL:
        free(G)
        free(cmin)
        if sq_y != sq_x:
            free(sq_y)
        free(sq_x)
        with gil:
            raise MemoryError("could not allocate the instance-to-bag distance block")
    try:
        _squared_norms(X, n_inst_x, d, sq_x)
        if not symmetric:
            _squared_norms(Y, n_inst_y, d, sq_y)
        r0 = row_start
        while r0 < row_stop:
            r1 = _next_bound(x_offsets, r0, row_stop, block_size)
            i0 = x_offsets[r0]
            i1 = x_offsets[r1]
            c0 = r0 if symmetric else 0
            while c0 < n_cols:
                c1 = _next_bound(y_offsets, c0, n_cols, block_size)
                j0 = y_offsets[c0]
                j1 = y_offsets[c1]
                m = <int>(j1 - j0)
                n = <int>(i1 - i0)
                kk = <int>d
                ldc = m
                if symmetric and c0 == r0 and c1 == c0 + 1:
                    c0 = c1
                    continue
                if symmetric and c0 == r0 and c1 == r1:
                    _cross_bag_products(X, x_offsets, r0, r1, i0, kk, G, ldc)
                else:
                    dgemm(&tr, &nt, &m, &n, &kk, &one, <float64_t*>(Y + j0 * d), &kk,
                          <float64_t*>(X + i0 * d), &kk, &zero, G, &ldc)
                for i in range(r0, r1):
                    for j in range(c0, c1):
                        if symmetric and j <= i:
                            continue
                        col_out = NULL
                        if out_yx != NULL:
                            col_out = out_yx + y_offsets[j] * n_x + i
                        _pair_minima(
                            G + (x_offsets[i] - i0) * ldc + (y_offsets[j] - j0), ldc,
                            sq_x + x_offsets[i], sq_y + y_offsets[j],
                            X + x_offsets[i] * d, Y + y_offsets[j] * d, d,
                            x_offsets[i + 1] - x_offsets[i], y_offsets[j + 1] - y_offsets[j],
                            cmin, out_xy + x_offsets[i] * n_cols + j, n_cols, col_out, n_x)
                c0 = c1
            r0 = r1
        if symmetric:
            # An instance lies in its own bag.
            for i in range(row_start, row_stop):
                for a in range(x_offsets[i], x_offsets[i + 1]):
                    out_xy[a * n_cols + i] = 0.0
    finally:
        free(G)
        free(cmin)
        if sq_y != sq_x:
            free(sq_y)
        free(sq_x)
    return 0


def instance_bag_minima(X, x_offsets, Y, y_offsets, symmetric, out_xy, out_yx,
                        row_start, row_stop, block_size):
    """Squared distance from each instance to the nearest instance of each bag, rows of bags
    ``row_start..row_stop-1``.

    Parameters
    ----------
    X : ndarray (n_instances_x, d), C-contiguous float64
        Instances of the row bags, bag after bag.
    x_offsets : ndarray (n_x + 1,) of intp
    Y, y_offsets : column bags, the same layout (ignored when `symmetric`).
    symmetric : bool
        Train-vs-train (columns are X): each pair of bags i < j is computed
        once, giving both M[instances of i, j] and M[instances of j, i];
        M[instances of i, i] is 0. Rows of one call may be a slice (threads
        split the row bags); the entries of pairs with later bags land in
        other rows, in the slice's own columns.
    out_xy : ndarray (n_instances_x, n_cols), C-contiguous float64
        Written in place: ``out_xy[a, j] = min_{z in column bag j} ||x_a - z||^2``
        for the instances a of the row bags filled.
    out_yx : ndarray (n_instances_y, n_x), C-contiguous float64, or None
        Rectangular only (None when `symmetric`): the other direction,
        ``out_yx[b, i] = min_{x in row bag i} ||y_b - x||^2``, from the same
        products (the block's column minima); columns row_start..row_stop-1
        are written.
    row_start, row_stop : int
        The row bags to fill.
    block_size : int
        Target number of instances per row block and per column chunk.
    """
    _fill_minima(*minima_args(X, x_offsets, Y, y_offsets, symmetric, out_xy, out_yx,
                              row_start, row_stop, block_size))


def _fill_minima(
    const float64_t[:, ::1] X, const intp_t[::1] x_offsets,
    const float64_t[:, ::1] Y, const intp_t[::1] y_offsets, bint symmetric,
    float64_t[:, ::1] out_xy, out_yx, intp_t row_start, intp_t row_stop, intp_t block_size,
):
    cdef intp_t n_x = x_offsets.shape[0] - 1
    cdef intp_t n_y = y_offsets.shape[0] - 1
    cdef intp_t d = X.shape[1]
    cdef float64_t[:, ::1] yx
    cdef float64_t* yx_ptr = NULL
    if symmetric:
        Y = X
        y_offsets = x_offsets
        n_y = n_x
    if n_x == 0 or n_y == 0 or row_start >= row_stop:
        return
    if out_yx is not None and not symmetric:
        yx = out_yx
        yx_ptr = &yx[0, 0]
    with nogil:
        c_instance_bag_minima(&X[0, 0], &x_offsets[0], &Y[0, 0], &y_offsets[0], n_y, d,
                              symmetric, row_start, row_stop, n_x, block_size,
                              &out_xy[0, 0], yx_ptr)
