"""How the neighbour classifiers rank training bags by distance, ties included.

Two distances within a relative ``DISTANCE_RTOL`` of each other count as
equal in every decision (see :doc:`/user_guide/labels_and_ties`). The
full-matrix path ranks whole rows (:func:`rank_dense`), the tree search
sparse rows holding only the bags it found (:func:`rank_rows`); the tests
hold the two to the same answers.
"""

import numpy as np

__all__ = ["DISTANCE_RTOL", "rank_dense", "rank_rows"]

#: Relative tolerance under which two bag distances count as equal in a decision.
DISTANCE_RTOL = 1e-9


def _sorted_entries(ptr, cols, vals):
    """Row of each entry and the order sorting every row by (distance, column)."""
    rows = np.repeat(np.arange(ptr.shape[0] - 1, dtype=np.intp), np.diff(ptr))
    return rows, np.lexsort((cols, vals, rows))


def group_starts(rows, vals):
    """True where a sorted entry starts a new tie group (a new row, or beyond DISTANCE_RTOL of the last).

    `rows` and `vals` are sorted by row, then distance. Groups chain: an
    entry within the tolerance of its predecessor joins the predecessor's
    group, so near-equal distances rank the same way whatever their last
    bits.
    """
    new = np.ones(vals.shape[0], dtype=bool)
    if vals.shape[0] > 1:
        new[1:] = (rows[1:] != rows[:-1]) | (vals[1:] > vals[:-1] * (1.0 + DISTANCE_RTOL))
    return new


def rank_rows(ptr, cols, vals, k, return_distance=False):
    """The k nearest columns of each sparse row: by distance, ties (within DISTANCE_RTOL) by column.

    Row ``i`` holds the entries ``ptr[i]:ptr[i + 1]`` of `cols` (training
    bag indices) and `vals` (their distances), in any order. Sorted
    distances closer than DISTANCE_RTOL (relative) to their predecessor join
    its group; groups are ordered by distance and bags within a group by
    index. A row must hold at least `k` entries and every bag nearer than
    the end of the group of its k-th entry.

    Returns
    -------
    near : ndarray of shape (n_rows, k)
    distance : ndarray of shape (n_rows, k)
        Their distances (with `return_distance`).
    """
    ptr = np.asarray(ptr, dtype=np.intp)
    rows, order = _sorted_entries(ptr, cols, vals)
    c, v, r = cols[order], vals[order], rows[order]
    group = np.cumsum(group_starts(r, v))
    # Groups increase along the rows, so this orders by row, group, then column.
    order = np.lexsort((c, group))
    take = ptr[:-1, None] + np.arange(k)[None, :]
    if return_distance:
        return c[order][take], v[order][take]
    return c[order][take]


def rank_dense(D, k):
    """Column indices of the k nearest per row of the matrix D: :func:`rank_rows` on full rows.

    The same rule, written for whole rows (a sort per row, several times
    faster than the sparse form on the cross-validation's many small
    matrices).
    """
    k = min(k, D.shape[1])
    order = np.argsort(D, axis=1, kind="stable")
    s = np.take_along_axis(D, order, axis=1)
    group = np.zeros(D.shape, dtype=np.intp)
    np.cumsum(s[:, 1:] > s[:, :-1] * (1.0 + DISTANCE_RTOL), axis=1, out=group[:, 1:])
    key = group * D.shape[1] + order
    return np.take_along_axis(order, np.argsort(key, axis=1, kind="stable")[:, :k], axis=1)
