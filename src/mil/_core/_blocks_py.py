"""The blocked pass over pairs of bags in NumPy, shared by the bag-pair twins.

The NumPy counterpart of ``_blocks.pyx`` (not a kernel of its own: no entry in
``KERNELS``): :func:`blocks` walks the row blocks and column chunks of about
``block_size`` instances (:func:`bag_blocks`, the compiled ``next_bound``
rule) and yields each block's squared distances
``|a|^2 + |b|^2 - 2 a.b`` (one matrix product, unclamped; squared norms
computed once); the twins ``_hausdorff_py`` (instance-to-bag minima and, as
their reductions per bag, the Hausdorff distances) and ``_set_kernel_py``
(sums of weighted exponentials) reduce each block. Train-vs-train visits
only column chunks from the row block onwards; a diagonal block is computed
whole (the compiled pass computes only what its reduction reads). The
blocks' d2 share one buffer: a block is valid until the next one is yielded.
"""

from collections import namedtuple

import numpy as np

from mil._core._checks import bag_blocks_args

__all__ = ["bag_blocks", "blocks", "Block"]

#: One block: row bags r0..r1-1 (instances i0..i1-1, offsets off_r from 0) against
#: column bags c0..c1-1 (instances j0..j1-1, offsets off_c); Xr, Yc, sq_r, sq_c
#: their instances and squared norms; d2 the squared distances (rows x columns);
#: pairs, train-vs-train only, marks the bag pairs i < j (None when rectangular).
Block = namedtuple("Block", "r0 r1 c0 c1 i0 i1 j0 j1 off_r off_c Xr Yc sq_r sq_c d2 pairs")


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


def blocks(X, x_offsets, Y, y_offsets, symmetric, row_start, row_stop, block_size, pairs_only):
    """Yield the :data:`Block` of each row block and column chunk, in the compiled pass's order.

    Arguments as checked by the kernels' entry points (``Y is X`` when
    `symmetric`). `pairs_only` (train-vs-train) skips the blocks that hold
    no bag pair i < j (a diagonal block of one bag), as ``CROSS_BAGS`` does.
    """
    sq_x = np.einsum("ij,ij->i", X, X)
    sq_y = sq_x if symmetric else np.einsum("ij,ij->i", Y, Y)
    n_cols = y_offsets.shape[0] - 1
    # One buffer for every block's d2 (the caller's loop variable would keep the
    # previous block alive: a fresh array per block costs page faults).
    buf = np.empty(0)
    rows = _bag_blocks(x_offsets, row_start, row_stop, block_size)
    for r0, r1 in zip(rows[:-1], rows[1:]):
        i0, i1 = x_offsets[r0], x_offsets[r1]
        off_r = x_offsets[r0:r1 + 1] - i0
        cols = _bag_blocks(y_offsets, r0 if symmetric else 0, n_cols, block_size)
        for c0, c1 in zip(cols[:-1], cols[1:]):
            pairs = None
            if symmetric:
                pairs = np.arange(c0, c1)[None, :] > np.arange(r0, r1)[:, None]
                if pairs_only and not pairs.any():
                    continue
            j0, j1 = y_offsets[c0], y_offsets[c1]
            off_c = y_offsets[c0:c1 + 1] - j0
            Xr, Yc, sq_r, sq_c = X[i0:i1], Y[j0:j1], sq_x[i0:i1], sq_y[j0:j1]
            if buf.size < (i1 - i0) * (j1 - j0):
                buf = np.empty((i1 - i0) * (j1 - j0))
            d2 = np.add.outer(sq_r, sq_c, out=buf[:(i1 - i0) * (j1 - j0)].reshape(i1 - i0, j1 - j0))
            d2 -= 2.0 * (Xr @ Yc.T)
            yield Block(r0, r1, c0, c1, i0, i1, j0, j1, off_r, off_c, Xr, Yc, sq_r, sq_c, d2, pairs)
