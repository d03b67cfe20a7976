"""Minimal, maximal and average Hausdorff matrices of sparse bags (scipy CSR instances).

The sparse twin of the dense kernel (:mod:`mil._core._hausdorff`): the same
expansion ``|a - b|^2 = |a|^2 + |b|^2 - 2 a.b`` with the same rule for
minima that may be rounding noise (below ``EXACT_BELOW * (|a|^2 + max |b|^2)``
they are recomputed from differences), so both give the same distances to
about 1e-12 relative. What changes is where the work goes: the products
``a.b`` of a block of rows against the column bags come from scipy's sparse
matrix product, whose cost follows the non-zeros (word-frequency data with
0.3 % non-zeros: a small fraction of a dense product's work), and squared
norms come from the stored values only. The instances are never centred (that
would make them dense); the exact recomputation keeps near-duplicates exact.

The block of products is made dense (rows of one block x the column bags)
before the minima per bag pair are taken with ``reduceat`` along the bag
offsets, so memory stays at one block. The code is NumPy and scipy only:
both kernel backends (compiled and ``MIL_PURE_PYTHON``) use it.
"""

import numpy as np
import scipy.sparse as sp

from mil._core._blocks_py import bag_blocks
from mil._core._hausdorff_py import pair_values

__all__ = ["sparse_hausdorff_matrices"]

#: Same threshold as the dense kernel (``mil._core._hausdorff.EXACT_BELOW``).
EXACT_BELOW = 1e-4
#: Row-block and column-chunk sizes in instances: one dense block of products
#: is at most ROW_BLOCK x COL_CHUNK float64 values (32 MB).
ROW_BLOCK = 1024
COL_CHUNK = 4096


def _as_csr(instances):
    if sp.issparse(instances):
        return instances
    return sp.csr_matrix(instances)


def _squared_norms(csr):
    """|x|^2 of every row from the stored values (empty rows give 0)."""
    rows = np.repeat(np.arange(csr.shape[0]), np.diff(csr.indptr))
    return np.bincount(rows, weights=csr.data * csr.data, minlength=csr.shape[0])


def _exact(P, sq_p, off_q, Q, sq_q, mins, wanted):
    """Recompute from differences the squared minima (instance of P, bag of Q) that may be noise.

    `mins` (n_p, n_bags_q) is updated in place where it is below
    ``EXACT_BELOW * (|p|^2 + max |q|^2 over the bag)`` and `wanted` is True.
    """
    max_sq = np.maximum.reduceat(sq_q, off_q[:-1])
    flag = (mins < EXACT_BELOW * (sq_p[:, None] + max_sq[None, :])) & wanted
    rows, bags = np.nonzero(flag)
    if rows.size == 0:
        return
    sizes = np.diff(off_q)[bags]
    p_idx = np.repeat(rows, sizes)
    ends = np.cumsum(sizes)
    q_idx = np.arange(ends[-1]) + np.repeat(off_q[bags] - (ends - sizes), sizes)
    diff = P[p_idx] - Q[q_idx]
    d2 = _squared_norms(diff.tocsr())
    mins[rows, bags] = np.minimum.reduceat(d2, ends - sizes)


def _row_block(X, sq_x, x_off, Y, sq_y, y_off, r0, r1, symmetric, outs):
    """Fill the rows r0..r1-1 of the outputs (and, train-vs-train, their mirror images)."""
    i0, i1 = x_off[r0], x_off[r1]
    off_r = x_off[r0:r1 + 1] - i0
    Xr, sq_r = X[i0:i1], sq_x[i0:i1]
    n_cols = y_off.shape[0] - 1
    cols = bag_blocks(y_off, r0 if symmetric else 0, n_cols, COL_CHUNK)
    for c0, c1 in zip(cols[:-1], cols[1:]):
        j0, j1 = y_off[c0], y_off[c1]
        off_c = y_off[c0:c1 + 1] - j0
        Yc, sq_c = Y[j0:j1], sq_y[j0:j1]
        d2 = (Xr @ Yc.T).toarray()
        d2 *= -2.0
        d2 += sq_r[:, None]
        d2 += sq_c[None, :]
        row_min = np.minimum.reduceat(d2, off_c[:-1], axis=1)
        col_min = np.minimum.reduceat(d2, off_r[:-1], axis=0)
        if symmetric:  # only pairs i < j are used: a bag is not compared with itself
            keep = np.arange(c0, c1)[None, :] > np.arange(r0, r1)[:, None]
        else:
            keep = np.ones((r1 - r0, c1 - c0), dtype=bool)
        _exact(Xr, sq_r, off_c, Yc, sq_c, row_min, np.repeat(keep, np.diff(off_r), axis=0))
        _exact(Yc, sq_c, off_r, Xr, sq_r, col_min.T, np.repeat(keep, np.diff(off_c), axis=1).T)
        values = pair_values(row_min, col_min, off_r, off_c)
        for out, val in zip(outs, values):
            if out is None:
                continue
            if symmetric:
                rr, cc = np.nonzero(keep)
                out[r0 + rr, c0 + cc] = val[rr, cc]
                out[c0 + cc, r0 + rr] = val[rr, cc]
            else:
                out[r0:r1, c0:c1] = val
    if symmetric:
        diag = np.arange(r0, r1)
        for out in outs:
            if out is not None:
                out[diag, diag] = 0.0


def sparse_hausdorff_matrices(X, Y=None, *, n_jobs=None, out=None):
    """The minimal, maximal and average matrices of sparse bags.

    Parameters
    ----------
    X : Bags
        Validated row bags; sparse (CSR) or dense instances.
    Y : Bags or None
        Column bags; None means X against itself (pairs computed once and
        mirrored, zeros on the diagonal). A dense side is converted to CSR.
    n_jobs : int, default=None
        Threads over row blocks (scipy's sparse product and NumPy's
        reductions release the GIL); results do not depend on it.
    out : dict, default=None
        Arrays to fill (keys among "minimal", "maximal", "average"), as in
        :func:`mil.distances.hausdorff_all`; only those kinds are written.

    Returns
    -------
    distances : dict
    """
    from joblib import Parallel, delayed, effective_n_jobs

    symmetric = Y is None
    Xs = _as_csr(X.instances)
    x_off = X.offsets
    if symmetric:
        Ys, y_off = Xs, x_off
    else:
        Ys, y_off = _as_csr(Y.instances), Y.offsets
    sq_x = _squared_norms(Xs)
    sq_y = sq_x if symmetric else _squared_norms(Ys)
    n_rows, n_cols = x_off.shape[0] - 1, y_off.shape[0] - 1
    kinds = ("minimal", "maximal", "average")
    if out is None:
        out = {kind: np.zeros((n_rows, n_cols)) for kind in kinds}
    outs = [out.get(kind) for kind in kinds]
    blocks = bag_blocks(x_off, 0, n_rows, ROW_BLOCK)
    tasks = list(zip(blocks[:-1], blocks[1:]))
    n_threads = min(effective_n_jobs(n_jobs), len(tasks))
    if n_threads <= 1:
        for r0, r1 in tasks:
            _row_block(Xs, sq_x, x_off, Ys, sq_y, y_off, r0, r1, symmetric, outs)
    else:
        # Each task writes its own rows and (train-vs-train) their mirror
        # images, which no other task writes.
        Parallel(n_jobs=n_threads, backend="threading")(
            delayed(_row_block)(Xs, sq_x, x_off, Ys, sq_y, y_off, r0, r1, symmetric, outs)
            for r0, r1 in tasks)
    return out
