"""Hausdorff bag distances: the NumPy twin of ``_hausdorff.pyx``.

Same algorithm as the compiled kernel, over the same blocked pass
(``_blocks_py.blocks``, the twin of ``_blocks.pyx``): bags are grouped into
row blocks and column chunks of about ``block_size`` instances; each block
of squared instance distances comes from one matrix product through
``|a|^2 + |b|^2 - 2 a.b`` (negatives clamped to 0; minima small enough to be
rounding noise recomputed exactly, as in the compiled kernel), and
``reduceat`` along the bag offsets turns it into row minima and column minima
per bag pair: :func:`instance_bag_minima` keeps them per instance (M), and
the minimal, maximal and average distances of :func:`hausdorff_matrices` are
their reductions per bag. Train-vs-train only visits column bags from the
row block onwards (upper triangle) and mirrors the result. Memory stays at
one block.
"""

import numpy as np

from mil._core._blocks_py import bag_blocks, blocks
from mil._core._checks import hausdorff_args, minima_args

__all__ = ["hausdorff_matrices", "bag_blocks", "instance_bag_minima"]

#: Minima below EXACT_BELOW * (|a|^2 + max |b|^2) are recomputed from differences
#: (see the compiled twin).
EXACT_BELOW = 1e-4


def _exact_minima(P, sq_p, off_q, Q, sq_q, mins, wanted):
    """Recompute exactly the per-(instance of P, bag of Q) minima that may be rounding noise.

    `mins` (n_p, n_bags_q) holds squared minima from the expansion; entries
    below ``EXACT_BELOW * (|p|^2 + max |q|^2 of the bag)`` are replaced by
    the exact minimum over the bag's instances, in place. Only entries
    where `wanted` (same shape, or None for all) is True are considered.
    """
    max_sq = np.maximum.reduceat(sq_q, off_q[:-1])
    flag = mins < EXACT_BELOW * (sq_p[:, None] + max_sq[None, :])
    if wanted is not None:
        flag &= wanted
    rows, bags = np.nonzero(flag)
    if rows.size == 0:
        return
    sizes = np.diff(off_q)[bags]
    if 4 * int(sizes.sum()) > P.shape[0] * Q.shape[0]:
        # Many entries (tied data: identical instances in many bags): the flagged rows against
        # the whole chunk from differences, feature by feature, is cheaper than gathering pairs.
        urows = np.unique(rows)
        d2 = np.zeros((urows.shape[0], Q.shape[0]))
        for k in range(P.shape[1]):
            diff = np.subtract.outer(P[urows, k], Q[:, k])
            d2 += diff * diff
        mins[rows, bags] = np.minimum.reduceat(d2, off_q[:-1], axis=1)[np.searchsorted(urows, rows), bags]
        return
    p_idx = np.repeat(rows, sizes)
    starts = np.repeat(off_q[bags] - np.cumsum(sizes) + sizes, sizes)
    q_idx = np.arange(sizes.sum()) + starts
    diff = P[p_idx] - Q[q_idx]
    d2 = np.einsum("ij,ij->i", diff, diff)
    mins[rows, bags] = np.minimum.reduceat(d2, np.r_[0, np.cumsum(sizes)[:-1]])


def _row_col_minima(blk, pairs, both=True):
    """Squared row minima (row instances x column bags) and column minima (column
    instances x row bags) of one block, exact where the expansion is not
    (only for the bag pairs marked in `pairs`, None for all), unclamped."""
    row_min = np.minimum.reduceat(blk.d2, blk.off_c[:-1], axis=1)
    want_r = None if pairs is None else np.repeat(pairs, np.diff(blk.off_r), axis=0)
    _exact_minima(blk.Xr, blk.sq_r, blk.off_c, blk.Yc, blk.sq_c, row_min, want_r)
    if not both:
        return row_min, None
    col_min = np.minimum.reduceat(blk.d2, blk.off_r[:-1], axis=0).T  # (cols, row bags)
    want_c = None if pairs is None else np.repeat(pairs, np.diff(blk.off_c), axis=1).T
    _exact_minima(blk.Yc, blk.sq_c, blk.off_r, blk.Xr, blk.sq_r, col_min, want_c)
    return row_min, col_min


def _block(blk):
    """Minimal, maximal and average distances of every bag pair of one block.

    Only the pairs marked in ``blk.pairs`` (None: all) are recomputed exactly
    (the others, a bag against itself and the lower triangle, are never read).
    """
    row_min, col_min = _row_col_minima(blk, blk.pairs)
    return pair_values(row_min, col_min.T, blk.off_r, blk.off_c)


def pair_values(row_min, col_min, off_r, off_c):
    """Minimal, maximal and average distances of every bag pair of a block: reductions per bag
    of its squared instance-to-bag minima, `row_min` (row instances, column bags) and `col_min`
    (row bags, column instances). Also the sparse path's (``mil._sparse_hausdorff``)."""
    row_min = np.sqrt(np.maximum(row_min, 0.0))
    col_min = np.sqrt(np.maximum(col_min, 0.0))
    dmin = np.minimum.reduceat(row_min, off_r[:-1], axis=0)
    h_rc = np.maximum.reduceat(row_min, off_r[:-1], axis=0)
    h_cr = np.maximum.reduceat(col_min, off_c[:-1], axis=1)
    total = np.add.reduceat(row_min, off_r[:-1], axis=0) + np.add.reduceat(col_min, off_c[:-1], axis=1)
    n = np.add.outer(np.diff(off_r), np.diff(off_c)).astype(np.float64)
    return dmin, np.maximum(h_rc, h_cr), total / n


def hausdorff_matrices(X, x_offsets, Y, y_offsets, symmetric, out_min, out_max, out_ave,
                       row_start, row_stop, block_size):
    """Fill rows ``row_start..row_stop-1`` of the three bag distance matrices (see the compiled twin)."""
    (X, x_offsets, Y, y_offsets, symmetric, out_min, out_max, out_ave, row_start, row_stop,
     block_size) = hausdorff_args(X, x_offsets, Y, y_offsets, symmetric, out_min, out_max, out_ave,
                                  row_start, row_stop, block_size)
    for blk in blocks(X, x_offsets, Y, y_offsets, symmetric, row_start, row_stop, block_size, True):
        r0, r1, c0, c1 = blk.r0, blk.r1, blk.c0, blk.c1
        for out, val in zip((out_min, out_max, out_ave), _block(blk)):
            if not symmetric:
                out[r0:r1, c0:c1] = val
                continue
            # Only pairs i < j are computed; a bag is at distance 0 from itself.
            rr, cc = np.nonzero(blk.pairs)
            out[r0 + rr, c0 + cc] = val[rr, cc]
            out[c0 + cc, r0 + rr] = val[rr, cc]
    if symmetric:
        diag = np.arange(row_start, row_stop)
        for out in (out_min, out_max, out_ave):
            out[diag, diag] = 0.0


def instance_bag_minima(X, x_offsets, Y, y_offsets, symmetric, out_xy, out_yx,
                        row_start, row_stop, block_size):
    """Fill the instance-to-bag minima of row bags ``row_start..row_stop-1`` (see the compiled twin)."""
    (X, x_offsets, Y, y_offsets, symmetric, out_xy, out_yx, row_start, row_stop,
     block_size) = minima_args(X, x_offsets, Y, y_offsets, symmetric, out_xy, out_yx,
                               row_start, row_stop, block_size)
    for blk in blocks(X, x_offsets, Y, y_offsets, symmetric, row_start, row_stop, block_size, True):
        i0, i1, j0, j1 = blk.i0, blk.i1, blk.j0, blk.j1
        r0, r1, c0, c1 = blk.r0, blk.r1, blk.c0, blk.c1
        if not symmetric:
            row_min, col_min = _row_col_minima(blk, None, out_yx is not None)
            out_xy[i0:i1, c0:c1] = np.maximum(row_min, 0.0, out=row_min)
            if out_yx is not None:
                out_yx[j0:j1, r0:r1] = np.maximum(col_min, 0.0, out=col_min)
            continue
        # Pairs i < j only: row minima of i against j, column minima of j against i.
        row_min, col_min = _row_col_minima(blk, blk.pairs)
        np.maximum(row_min, 0.0, out=row_min)
        np.maximum(col_min, 0.0, out=col_min)
        want_r = np.repeat(blk.pairs, np.diff(blk.off_r), axis=0)
        want_c = np.repeat(blk.pairs, np.diff(blk.off_c), axis=1).T
        view = out_xy[i0:i1, c0:c1]
        view[want_r] = row_min[want_r]
        view = out_xy[j0:j1, r0:r1]
        view[want_c] = col_min[want_c]
    if symmetric:
        for i in range(row_start, row_stop):
            out_xy[x_offsets[i]:x_offsets[i + 1], i] = 0.0
