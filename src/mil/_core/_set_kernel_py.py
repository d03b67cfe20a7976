"""Set kernels between bags for several gammas: the NumPy twin of ``_set_kernel.pyx``.

Same algorithm as the compiled kernel, another reduction of the blocked
pass of the Hausdorff twins (``_blocks_py.blocks``): bags are grouped into
row blocks and column chunks of about ``block_size`` instances; each block of
squared instance distances comes from one matrix product through
``|a|^2 + |b|^2 - 2 a.b`` (negatives clamped to 0, a distance of an
instance to itself exactly 0), once per block; for each gamma the weighted
exponentials are summed per bag pair with two products with the weighted bag
membership matrices. Train-vs-train visits only column bags from the row block onwards
(upper triangle, diagonal included) and mirrors the result. Memory stays at
one block. Squared distances whose expansion error could change a term by
more than ``TERM_RTOL`` are recomputed from differences by the compiled
kernel's rule (:func:`_exact_where_needed`).
"""

import numpy as np

from mil._core._checks import set_kernel_args, set_kernel_diagonal_args
from mil._core._blocks_py import blocks

__all__ = ["set_kernel_matrices", "set_kernel_diagonal"]

#: exp(-t) is exactly 0.0 in float64 for t above about 745.13 (the compiled kernel skips those).
EXP_UNDERFLOW = 746.0
#: Largest relative error of one term left to the expansion (see the compiled twin).
TERM_RTOL = 2.0 ** -33
#: Terms below exp(-SKIP_BELOW_LARGEST) times the largest of their row and bag pair are not recomputed.
SKIP_BELOW_LARGEST = 42.0


def _exact_where_needed(d2, Xr, Yc, sq_r, sq_c, off_c, gammas, own=None):
    """Recompute in place, from differences, the squared distances of `d2` (clamped) whose
    expansion error may change a term by more than TERM_RTOL for some gamma (the compiled rule).

    `own` (rows,) gives, for a train-vs-train diagonal block, each row's own
    column bag (whose largest term is the row's own, exp(0)); -1 elsewhere.
    """
    cu = (2.0 * Xr.shape[1] + 4.0) * 2.0 ** -53
    gmax, gmin = gammas.max(), gammas.min()
    with np.errstate(over="ignore"):  # products beyond float64 compare as inf
        max_err = cu * (sq_r + sq_c.max(initial=0.0))
        if not (gmax * max_err > TERM_RTOL).any():
            return
        # An entry passes the tests below only if its squared distance is below
        # `skip` (the compiled kernel skips a column bag whose smallest one is not);
        # the candidates, below skip + 2 max_err, also hold the entry that gives
        # each (row, column bag) its ref.
        skip = np.minimum(EXP_UNDERFLOW / gmin, EXP_UNDERFLOW * max_err / TERM_RTOL) * (1.0 + 1e-9) + max_err
        i, j = np.nonzero(d2 < (skip + 2.0 * max_err)[:, None])
        if i.size == 0:
            return
        v = d2[i, j]
        err = cu * (sq_r[i] + sq_c[j])
        low = v - err
        # ref: per row and column bag, an upper bound of the bag's smallest true squared
        # distance (0 for a row's own bag); the candidates come row by row, columns in order.
        bag = np.repeat(np.arange(off_c.shape[0] - 1), np.diff(off_c))[j]
        key = i * (off_c.shape[0] - 1) + bag
        first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        ref = np.repeat(np.minimum.reduceat(v + err, first), np.diff(np.r_[first, key.size]))
        if own is not None:
            ref[bag == own[i]] = 0.0
        # The compiled rule: some g in [gmin, gmax] with g err > TERM_RTOL, g low < 746 and
        # g (low - ref) <= SKIP_BELOW_LARGEST.
        need = (gmax * err > TERM_RTOL) & (gmin * low < EXP_UNDERFLOW)
        need &= gmin * (low - ref) <= SKIP_BELOW_LARGEST
        need &= TERM_RTOL * low < EXP_UNDERFLOW * err
        need &= TERM_RTOL * (low - ref) <= SKIP_BELOW_LARGEST * err
    i, j = i[need], j[need]
    # In chunks of about 2**18 values (temporaries that stay in cache).
    step = max(1, 2 ** 18 // max(Xr.shape[1], 1))
    for c in range(0, i.size, step):
        ic, jc = i[c:c + step], j[c:c + step]
        diff = Xr[ic] - Yc[jc]
        d2[ic, jc] = np.einsum("ij,ij->i", diff, diff)


def _membership(w, off):
    """(instances, bags) matrix holding each instance's weight in its bag's column."""
    M = np.zeros((w.shape[0], off.shape[0] - 1))
    M[np.arange(w.shape[0]), np.repeat(np.arange(off.shape[0] - 1), np.diff(off))] = w
    return M


def _block_sums(d2, w_r, off_r, w_c, off_c, gammas):
    """(n_gammas, row bags, column bags) weighted exponential sums of one block.

    The per-bag sums are two matrix products with the weighted bag
    membership matrices (BLAS, faster than ``reduceat`` along rows).
    """
    out = np.empty((gammas.shape[0], off_r.shape[0] - 1, off_c.shape[0] - 1))
    Mr, Mc = _membership(w_r, off_r), _membership(w_c, off_c)
    E = np.empty_like(d2)
    for k, g in enumerate(gammas):
        with np.errstate(over="ignore"):  # beyond float64: -inf, whose exponential is 0
            np.multiply(d2, -g, out=E)
        # NumPy's vectorised exp slows down 20 to 400 fold on arguments below
        # about -707 (results near or below 2.2e-308): arguments below -700 are
        # clamped, then their terms set to 0 (exactly their exponential beyond
        # 746) or, between 700 and 746, computed apart (as the compiled pass does).
        low = E < -700.0
        tail = None
        if low.any():
            tail = E >= -EXP_UNDERFLOW
            tail &= low
            np.maximum(E, -700.0, out=E)
        np.exp(E, out=E)
        if tail is not None:
            np.copyto(E, 0.0, where=low)
            if tail.any():
                E[tail] = np.exp(np.multiply(d2[tail], -g))
        out[k] = Mr.T @ (E @ Mc)
    return out


def set_kernel_matrices(X, x_offsets, x_weights, Y, y_offsets, y_weights, symmetric, gammas, out,
                        row_start, row_stop, block_size):
    """Fill rows ``row_start..row_stop-1`` of the set kernels for every gamma (see the compiled twin)."""
    (X, x_offsets, x_weights, Y, y_offsets, y_weights, symmetric, gammas, out, row_start, row_stop,
     block_size) = set_kernel_args(X, x_offsets, x_weights, Y, y_offsets, y_weights, symmetric, gammas,
                                   out, row_start, row_stop, block_size)
    if gammas.shape[0] == 0:
        return
    for blk in blocks(X, x_offsets, Y, y_offsets, symmetric, row_start, row_stop, block_size, False):
        r0, r1, c0, c1 = blk.r0, blk.r1, blk.c0, blk.c1
        d2 = np.maximum(blk.d2, 0.0, out=blk.d2)
        own = None
        if symmetric and c0 == r0:
            # The block starts with the same bag on both sides: an instance
            # against itself is at distance exactly 0.
            t = np.arange(min(blk.i1 - blk.i0, blk.j1 - blk.j0))
            d2[t, t] = 0.0
            bag = np.repeat(np.arange(r0, r1), np.diff(blk.off_r))
            own = np.where(bag < c1, bag - c0, -1)
        _exact_where_needed(d2, blk.Xr, blk.Yc, blk.sq_r, blk.sq_c, blk.off_c, gammas, own)
        val = _block_sums(d2, x_weights[blk.i0:blk.i1], blk.off_r, y_weights[blk.j0:blk.j1], blk.off_c,
                          gammas)
        if not symmetric:
            out[:, r0:r1, c0:c1] = val
            continue
        rr, cc = np.nonzero(np.arange(c0, c1)[None, :] >= np.arange(r0, r1)[:, None])
        out[:, r0 + rr, c0 + cc] = val[:, rr, cc]
        out[:, c0 + cc, r0 + rr] = val[:, rr, cc]


def set_kernel_diagonal(X, offsets, weights, gammas, out):
    """Fill ``out[k, b] = K(B, B)`` of every bag B for every gamma (see the compiled twin)."""
    X, offsets, weights, gammas, out = set_kernel_diagonal_args(X, offsets, weights, gammas, out)
    for b in range(offsets.shape[0] - 1):
        A = X[offsets[b]:offsets[b + 1]]
        w = weights[offsets[b]:offsets[b + 1]]
        sq = np.einsum("ij,ij->i", A, A)
        d2 = np.add.outer(sq, sq) - 2.0 * (A @ A.T)
        np.maximum(d2, 0.0, out=d2)
        np.fill_diagonal(d2, 0.0)
        _exact_where_needed(d2, A, A, sq, sq, np.array([0, A.shape[0]]), gammas,
                            np.zeros(A.shape[0], dtype=np.intp))
        out[:, b] = _block_sums(d2, w, np.array([0, A.shape[0]]), w, np.array([0, A.shape[0]]),
                                gammas)[:, 0, 0]
