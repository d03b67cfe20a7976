"""Hausdorff bag distances: the NumPy twin of ``_hausdorff.pyx``.

Same algorithm as the compiled kernel: bags are grouped into row
blocks and column chunks of about ``block_size`` instances; each block of
squared instance distances comes from one matrix product through
``|a|^2 + |b|^2 - 2 a.b`` (negatives clamped to 0; minima small enough to be
rounding noise recomputed exactly, as in the compiled kernel), and ``reduceat`` along
the bag offsets turns it into row minima and column minima per bag pair,
from which the minimal, maximal and average distances of every pair in the
block follow. Train-vs-train only visits column bags from the row block
onwards (upper triangle) and mirrors the result. Memory stays at one block.

:func:`instance_bag_minima` keeps the block's row and column minima per
instance instead of reducing them per bag pair (see the compiled twin).
"""

import numpy as np

from mil._core._checks import bag_blocks_args, hausdorff_args, minima_args

__all__ = ["hausdorff_matrices", "bag_blocks", "instance_bag_minima"]

#: Minima below EXACT_BELOW * (|a|^2 + max |b|^2) are recomputed from differences
#: (see the compiled twin).
EXACT_BELOW = 1e-4


def bag_blocks(offsets, start, stop, block_size):
    """Split bags ``start..stop-1`` into runs of about `block_size` instances.

    A run holds at least one bag, so a bag larger than `block_size` forms a
    run on its own. Returns the bag boundaries, ``[start, ..., stop]``.
    """
    return _bag_blocks(*bag_blocks_args(offsets, start, stop, block_size))


def _bag_blocks(offsets, start, stop, block_size):
    bounds = [start]
    b = start
    while b < stop:
        # First bag whose end passes the budget, at least one bag further.
        limit = offsets[b] + block_size
        nb = int(np.searchsorted(offsets, limit, side="right")) - 1
        nb = min(max(nb, b + 1), stop)
        bounds.append(nb)
        b = nb
    return bounds


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
    p_idx = np.repeat(rows, sizes)
    starts = np.repeat(off_q[bags] - np.cumsum(sizes) + sizes, sizes)
    q_idx = np.arange(sizes.sum()) + starts
    diff = P[p_idx] - Q[q_idx]
    d2 = np.einsum("ij,ij->i", diff, diff)
    mins[rows, bags] = np.minimum.reduceat(d2, np.r_[0, np.cumsum(sizes)[:-1]])


def _block(Xr, sq_r, off_r, Yc, sq_c, off_c, pairs=None):
    """Minimal, maximal and average distances of every bag pair of one block.

    `pairs` (row bags x column bags, bool) marks the pairs that are used
    (None: all); the others (a bag against itself, the lower triangle) are
    computed by the expansion but never recomputed exactly.
    """
    d2 = np.add.outer(sq_r, sq_c)
    d2 -= 2.0 * (Xr @ Yc.T)
    # Per row instance, nearest instance of each column bag (and vice versa).
    row_min = np.minimum.reduceat(d2, off_c[:-1], axis=1)  # (rows, col bags)
    col_min = np.minimum.reduceat(d2, off_r[:-1], axis=0)  # (row bags, cols)
    if pairs is None:
        want_r = want_c = None
    else:
        want_r = np.repeat(pairs, np.diff(off_r), axis=0)        # (rows, col bags)
        want_c = np.repeat(pairs, np.diff(off_c), axis=1).T      # (cols, row bags)
    _exact_minima(Xr, sq_r, off_c, Yc, sq_c, row_min, want_r)
    _exact_minima(Yc, sq_c, off_r, Xr, sq_r, col_min.T, want_c)
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
    sq_x = np.einsum("ij,ij->i", X, X)
    sq_y = sq_x if symmetric else np.einsum("ij,ij->i", Y, Y)
    n_cols = y_offsets.shape[0] - 1
    rows = _bag_blocks(x_offsets, row_start, row_stop, block_size)
    for r0, r1 in zip(rows[:-1], rows[1:]):
        i0, i1 = x_offsets[r0], x_offsets[r1]
        off_r = x_offsets[r0:r1 + 1] - i0
        c_first = r0 if symmetric else 0
        cols = _bag_blocks(y_offsets, c_first, n_cols, block_size)
        for c0, c1 in zip(cols[:-1], cols[1:]):
            j0, j1 = y_offsets[c0], y_offsets[c1]
            off_c = y_offsets[c0:c1 + 1] - j0
            pairs = (np.arange(c0, c1)[None, :] > np.arange(r0, r1)[:, None]) if symmetric else None
            blocks = _block(X[i0:i1], sq_x[i0:i1], off_r, Y[j0:j1], sq_y[j0:j1], off_c, pairs)
            for out, val in zip((out_min, out_max, out_ave), blocks):
                if not symmetric:
                    out[r0:r1, c0:c1] = val
                    continue
                # Only pairs i < j are computed; a bag is at distance 0 from itself.
                keep = np.arange(c0, c1)[None, :] > np.arange(r0, r1)[:, None]
                rr, cc = np.nonzero(keep)
                out[r0 + rr, c0 + cc] = val[rr, cc]
                out[c0 + cc, r0 + rr] = val[rr, cc]
    if symmetric:
        diag = np.arange(row_start, row_stop)
        for out in (out_min, out_max, out_ave):
            out[diag, diag] = 0.0


def _block_minima(Xr, sq_r, off_r, Yc, sq_c, off_c, pairs=None, both=True):
    """Squared row minima (row instances x column bags) and column minima (column
    instances x row bags) of one block, as :func:`_block` finds them, unreduced."""
    d2 = np.add.outer(sq_r, sq_c)
    d2 -= 2.0 * (Xr @ Yc.T)
    row_min = np.minimum.reduceat(d2, off_c[:-1], axis=1)
    want_r = None if pairs is None else np.repeat(pairs, np.diff(off_r), axis=0)
    _exact_minima(Xr, sq_r, off_c, Yc, sq_c, row_min, want_r)
    np.maximum(row_min, 0.0, out=row_min)
    if not both:
        return row_min, None
    col_min = np.minimum.reduceat(d2, off_r[:-1], axis=0).T  # (cols, row bags)
    want_c = None if pairs is None else np.repeat(pairs, np.diff(off_c), axis=1).T
    _exact_minima(Yc, sq_c, off_r, Xr, sq_r, col_min, want_c)
    np.maximum(col_min, 0.0, out=col_min)
    return row_min, col_min


def instance_bag_minima(X, x_offsets, Y, y_offsets, symmetric, out_xy, out_yx,
                        row_start, row_stop, block_size):
    """Fill the instance-to-bag minima of row bags ``row_start..row_stop-1`` (see the compiled twin)."""
    (X, x_offsets, Y, y_offsets, symmetric, out_xy, out_yx, row_start, row_stop,
     block_size) = minima_args(X, x_offsets, Y, y_offsets, symmetric, out_xy, out_yx,
                               row_start, row_stop, block_size)
    sq_x = np.einsum("ij,ij->i", X, X)
    sq_y = sq_x if symmetric else np.einsum("ij,ij->i", Y, Y)
    n_cols = y_offsets.shape[0] - 1
    rows = _bag_blocks(x_offsets, row_start, row_stop, block_size)
    for r0, r1 in zip(rows[:-1], rows[1:]):
        i0, i1 = x_offsets[r0], x_offsets[r1]
        off_r = x_offsets[r0:r1 + 1] - i0
        cols = _bag_blocks(y_offsets, r0 if symmetric else 0, n_cols, block_size)
        for c0, c1 in zip(cols[:-1], cols[1:]):
            j0, j1 = y_offsets[c0], y_offsets[c1]
            off_c = y_offsets[c0:c1 + 1] - j0
            if not symmetric:
                row_min, col_min = _block_minima(X[i0:i1], sq_x[i0:i1], off_r, Y[j0:j1], sq_y[j0:j1],
                                                 off_c, None, out_yx is not None)
                out_xy[i0:i1, c0:c1] = row_min
                if out_yx is not None:
                    out_yx[j0:j1, r0:r1] = col_min
                continue
            # Pairs i < j only: row minima of i against j, column minima of j against i.
            pairs = np.arange(c0, c1)[None, :] > np.arange(r0, r1)[:, None]
            if not pairs.any():
                continue
            row_min, col_min = _block_minima(X[i0:i1], sq_x[i0:i1], off_r, X[j0:j1], sq_x[j0:j1],
                                             off_c, pairs)
            want_r = np.repeat(pairs, np.diff(off_r), axis=0)
            want_c = np.repeat(pairs, np.diff(off_c), axis=1).T
            view = out_xy[i0:i1, c0:c1]
            view[want_r] = row_min[want_r]
            view = out_xy[j0:j1, r0:r1]
            view[want_c] = col_min[want_c]
    if symmetric:
        for i in range(row_start, row_stop):
            out_xy[x_offsets[i]:x_offsets[i + 1], i] = 0.0
