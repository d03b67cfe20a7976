"""Hausdorff bag distances: the NumPy twin of ``_hausdorff.pyx``.

Same algorithm as the compiled kernel (SPEC 4): bags are grouped into row
blocks and column chunks of about ``block_size`` instances; each block of
squared instance distances comes from one matrix product through
``|a|^2 + |b|^2 - 2 a.b`` (negatives clamped to 0), and ``reduceat`` along
the bag offsets turns it into row minima and column minima per bag pair,
from which the minimal, maximal and average distances of every pair in the
block follow. Train-vs-train only visits column bags from the row block
onwards (upper triangle) and mirrors the result. Memory stays at one block.
"""

import numpy as np

__all__ = ["hausdorff_matrices", "bag_blocks"]


def bag_blocks(offsets, start, stop, block_size):
    """Split bags ``start..stop-1`` into runs of about `block_size` instances.

    A run holds at least one bag, so a bag larger than `block_size` forms a
    run on its own. Returns the bag boundaries, ``[start, ..., stop]``.
    """
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


def _block(Xr, sq_r, off_r, Yc, sq_c, off_c):
    """Minimal, maximal and average distances of every bag pair of one block."""
    d2 = np.add.outer(sq_r, sq_c)
    d2 -= 2.0 * (Xr @ Yc.T)
    np.maximum(d2, 0.0, out=d2)
    # Per row instance, nearest instance of each column bag (and vice versa).
    row_min = np.sqrt(np.minimum.reduceat(d2, off_c[:-1], axis=1))  # (rows, col bags)
    col_min = np.sqrt(np.minimum.reduceat(d2, off_r[:-1], axis=0))  # (row bags, cols)
    dmin = np.minimum.reduceat(row_min, off_r[:-1], axis=0)
    h_rc = np.maximum.reduceat(row_min, off_r[:-1], axis=0)
    h_cr = np.maximum.reduceat(col_min, off_c[:-1], axis=1)
    total = np.add.reduceat(row_min, off_r[:-1], axis=0) + np.add.reduceat(col_min, off_c[:-1], axis=1)
    n = np.add.outer(np.diff(off_r), np.diff(off_c)).astype(np.float64)
    return dmin, np.maximum(h_rc, h_cr), total / n


def hausdorff_matrices(X, x_offsets, Y, y_offsets, symmetric, out_min, out_max, out_ave,
                       row_start, row_stop, block_size):
    """Fill rows ``row_start..row_stop-1`` of the three bag distance matrices (see the compiled twin)."""
    X = np.asarray(X)
    x_offsets = np.asarray(x_offsets)
    if symmetric:
        Y, y_offsets = X, x_offsets
    else:
        Y = np.asarray(Y)
        y_offsets = np.asarray(y_offsets)
    sq_x = np.einsum("ij,ij->i", X, X)
    sq_y = sq_x if symmetric else np.einsum("ij,ij->i", Y, Y)
    n_cols = y_offsets.shape[0] - 1
    rows = bag_blocks(x_offsets, row_start, row_stop, block_size)
    for r0, r1 in zip(rows[:-1], rows[1:]):
        i0, i1 = x_offsets[r0], x_offsets[r1]
        off_r = x_offsets[r0:r1 + 1] - i0
        c_first = r0 if symmetric else 0
        cols = bag_blocks(y_offsets, c_first, n_cols, block_size)
        for c0, c1 in zip(cols[:-1], cols[1:]):
            j0, j1 = y_offsets[c0], y_offsets[c1]
            off_c = y_offsets[c0:c1 + 1] - j0
            blocks = _block(X[i0:i1], sq_x[i0:i1], off_r, Y[j0:j1], sq_y[j0:j1], off_c)
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
