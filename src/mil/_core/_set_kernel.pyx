"""Set kernels between bags for several bandwidths in one pass (compiled).

For bags A and B with instance weights w, the set kernel (Gaertner, Flach,
Kowalczyk and Smola, "Multi-instance kernels", ICML 2002) is

    K(A, B) = sum over a in A, b in B of w_a w_b exp(-gamma ||a - b||^2);

all weights 1 give the normalised-set kernel's numerator (NSK / MI-Kernel),
miGraph's weights 1 / degree in each bag's epsilon-graph give its kernel
(Zhou, Sun and Li, "Multi-instance learning by treating instances as
non-i.i.d. samples", ICML 2009). The weights and the normalisation live in
Python (:mod:`mil.svm`); this pass fills the unnormalised sums.

It follows the blocking of the Hausdorff pass (``_hausdorff.pyx``): bags are
grouped into row blocks and column chunks of about ``block_size`` instances
(the same boundaries as ``_hausdorff.bag_blocks``), a block of squared
distances is ``|a|^2 + |b|^2 - 2 a.b`` with the products from BLAS (scipy's
``cython_blas``; dsyrk on the diagonal blocks of train-vs-train, whose
within-bag products K(A, A) needs, dgemm elsewhere), negatives clamped to 0.
The squared distances of a row are computed once; the exponentials are
taken once per gamma (an argument beyond 746 is skipped: its exponential is
exactly 0 in float64). Memory stays at one block, never the full
instance-by-instance matrix. Train-vs-train visits the pairs i <= j and
mirrors them. The NumPy twin (``_set_kernel_py``) uses the same blocks and
expansion; the two agree to rounding (sums in a different order).
"""

from libc.math cimport exp
from libc.stdlib cimport malloc, free
from scipy.linalg.cython_blas cimport dgemm, dsyrk

from mil._core._typedefs cimport float64_t, intp_t

from mil._core._checks import set_kernel_args, set_kernel_diagonal_args

__all__ = ["set_kernel_matrices", "set_kernel_diagonal"]

# exp(-t) is exactly 0.0 in float64 for t above about 745.13: skip those.
cdef float64_t _EXP_UNDERFLOW = 746.0
EXP_UNDERFLOW = _EXP_UNDERFLOW


cdef inline intp_t _next_bound(const intp_t* offsets, intp_t b, intp_t stop,
                               intp_t block_size) noexcept nogil:
    # Bags b..nb-1 hold at most block_size instances, at least one bag
    # (the rule of _hausdorff.bag_blocks).
    cdef intp_t limit = offsets[b] + block_size
    cdef intp_t nb = b + 1
    while nb < stop and offsets[nb + 1] <= limit:
        nb += 1
    return nb


cdef void _pair_sums(
    const float64_t* G, intp_t ldg, const float64_t* sq_r, const float64_t* sq_c,
    const float64_t* w_r, const float64_t* w_c, intp_t nr, intp_t nc, bint self_pair,
    const float64_t* gammas, intp_t ng, float64_t* vrow, float64_t* acc,
) noexcept nogil:
    # acc[k] = sum_a sum_b w_a w_b exp(-gammas[k] d2(a, b)) for one bag pair.
    # G: the nr x nc products a.b (row stride ldg). A self pair (a bag with
    # itself) reads only the products b > a (the upper triangle that dsyrk
    # fills), counts them twice and the diagonal (distance 0) once.
    cdef intp_t a, b, k, b0
    cdef float64_t v, s, t, g, sra
    cdef const float64_t* grow
    for k in range(ng):
        acc[k] = 0.0
    for a in range(nr):
        grow = G + a * ldg
        sra = sq_r[a]
        b0 = a + 1 if self_pair else 0
        for b in range(b0, nc):
            v = (sra + sq_c[b]) - 2.0 * grow[b]
            vrow[b] = v if v > 0.0 else 0.0
        for k in range(ng):
            g = gammas[k]
            s = 0.0
            for b in range(b0, nc):
                t = g * vrow[b]
                if t < _EXP_UNDERFLOW:
                    s = s + w_c[b] * exp(-t)
            if self_pair:
                acc[k] = acc[k] + w_r[a] * (2.0 * s + w_r[a])
            else:
                acc[k] = acc[k] + w_r[a] * s


cdef void _squared_norms(const float64_t* X, intp_t n, intp_t d, float64_t* sq) noexcept nogil:
    cdef intp_t a, k
    cdef float64_t s
    for a in range(n):
        s = 0.0
        for k in range(d):
            s = s + X[a * d + k] * X[a * d + k]
        sq[a] = s


cdef int c_set_kernel_matrices(
    const float64_t* X, const intp_t* x_offsets, const float64_t* x_weights,
    const float64_t* Y, const intp_t* y_offsets, const float64_t* y_weights,
    intp_t n_y, intp_t d, bint symmetric, intp_t row_start, intp_t row_stop, intp_t n_x,
    intp_t block_size, const float64_t* gammas, intp_t n_gammas, float64_t* out,
) except -1 nogil:
    cdef intp_t n_cols = n_x if symmetric else n_y
    if symmetric:
        Y = X
        y_offsets = x_offsets
        y_weights = x_weights
    cdef intp_t n_inst_x = x_offsets[n_x], n_inst_y = y_offsets[n_cols]
    cdef intp_t r0, r1, c0, c1, i, j, k, i0, i1, j0, j1, max_rows = 0, max_cols = 0
    cdef intp_t plane = n_x * n_cols
    cdef float64_t one = 1.0, zero = 0.0
    cdef float64_t* sq_x = NULL
    cdef float64_t* sq_y = NULL
    cdef float64_t* G = NULL
    cdef float64_t* vrow = NULL
    cdef float64_t* acc = NULL
    cdef int m, n, kk, ldc
    cdef bint diagonal
    cdef char tr = b'T', nt = b'N', lo = b'L'
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
    sq_x = <float64_t*> malloc((n_inst_x + 1) * sizeof(float64_t))
    sq_y = sq_x if symmetric else <float64_t*> malloc((n_inst_y + 1) * sizeof(float64_t))
    G = <float64_t*> malloc((max_rows * max_cols + 1) * sizeof(float64_t))
    vrow = <float64_t*> malloc((max_cols + 1) * sizeof(float64_t))
    acc = <float64_t*> malloc((n_gammas + 1) * sizeof(float64_t))
    if sq_x == NULL or sq_y == NULL or G == NULL or vrow == NULL or acc == NULL:
        free(G)
        free(vrow)
        free(acc)
        if sq_y != sq_x:
            free(sq_y)
        free(sq_x)
        with gil:
            raise MemoryError("could not allocate the set-kernel block")
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
                # Row-major G (rows x cols) = X_r Y_c^T is column-major G^T = Y_c X_r^T.
                m = <int>(j1 - j0)
                n = <int>(i1 - i0)
                kk = <int>d
                ldc = m
                diagonal = symmetric and c0 == r0 and c1 == r1
                if diagonal:
                    # Pairs i <= j of a diagonal block read the row-major upper
                    # triangle (column-major lower): one dsyrk, half the products.
                    dsyrk(&lo, &tr, &m, &kk, &one, <float64_t*>(X + i0 * d), &kk, &zero, G, &ldc)
                else:
                    dgemm(&tr, &nt, &m, &n, &kk, &one, <float64_t*>(Y + j0 * d), &kk,
                          <float64_t*>(X + i0 * d), &kk, &zero, G, &ldc)
                for i in range(r0, r1):
                    for j in range(c0, c1):
                        if symmetric and j < i:
                            continue
                        _pair_sums(
                            G + (x_offsets[i] - i0) * ldc + (y_offsets[j] - j0), ldc,
                            sq_x + x_offsets[i], sq_y + y_offsets[j],
                            x_weights + x_offsets[i], y_weights + y_offsets[j],
                            x_offsets[i + 1] - x_offsets[i], y_offsets[j + 1] - y_offsets[j],
                            symmetric and i == j, gammas, n_gammas, vrow, acc)
                        for k in range(n_gammas):
                            out[k * plane + i * n_cols + j] = acc[k]
                            if symmetric:
                                out[k * plane + j * n_cols + i] = acc[k]
                c0 = c1
            r0 = r1
    finally:
        free(G)
        free(vrow)
        free(acc)
        if sq_y != sq_x:
            free(sq_y)
        free(sq_x)
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
    cdef float64_t* acc = NULL
    cdef int m, kk
    cdef char tr = b'T', lo = b'L'
    for b in range(n_bags):
        if offsets[b + 1] - offsets[b] > max_n:
            max_n = offsets[b + 1] - offsets[b]
    sq = <float64_t*> malloc((offsets[n_bags] + 1) * sizeof(float64_t))
    G = <float64_t*> malloc((max_n * max_n + 1) * sizeof(float64_t))
    vrow = <float64_t*> malloc((max_n + 1) * sizeof(float64_t))
    acc = <float64_t*> malloc((n_gammas + 1) * sizeof(float64_t))
    if sq == NULL or G == NULL or vrow == NULL or acc == NULL:
        free(sq)
        free(G)
        free(vrow)
        free(acc)
        with gil:
            raise MemoryError("could not allocate the set-kernel diagonal block")
    try:
        _squared_norms(X, offsets[n_bags], d, sq)
        for b in range(n_bags):
            nb = offsets[b + 1] - offsets[b]
            m = <int>nb
            kk = <int>d
            dsyrk(&lo, &tr, &m, &kk, &one, <float64_t*>(X + offsets[b] * d), &kk, &zero, G, &m)
            _pair_sums(G, nb, sq + offsets[b], sq + offsets[b], weights + offsets[b],
                       weights + offsets[b], nb, nb, True, gammas, n_gammas, vrow, acc)
            for k in range(n_gammas):
                out[k * n_bags + b] = acc[k]
    finally:
        free(sq)
        free(G)
        free(vrow)
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
