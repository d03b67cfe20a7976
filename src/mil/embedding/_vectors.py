"""Small helpers on embedding vectors and instance matrices shared by the embeddings and encoders."""

import numpy as np

from mil.bags import Bags
from mil.distances import hausdorff

__all__ = ["sq_dists", "row_distances", "column_scaling", "lexicographic_order", "unit_exponent",
           "accurate_column_sums"]


def sq_dists(A, B):
    """Squared Euclidean distances between the rows of A and B (small matrices)."""
    d = np.add.outer(np.einsum("ij,ij->i", A, A), np.einsum("ij,ij->i", B, B)) - 2.0 * (A @ B.T)
    return np.maximum(d, 0.0)


def row_distances(A, B=None):
    """Euclidean distances between the rows of A and B (B None: A against itself).

    From the bag distances of :mod:`mil.distances` with one-instance bags,
    which recompute near-zero pairs exactly (the square root of the BLAS
    expansion near 0, a bag against itself, would be off by about
    sqrt(eps) |u|).
    """
    if A.shape[0] == 0 or (B is not None and B.shape[0] == 0):
        return np.zeros((A.shape[0], A.shape[0] if B is None else B.shape[0]))

    def rows(M):
        M = np.ascontiguousarray(M, dtype=np.float64)
        return Bags(M, np.arange(M.shape[0] + 1))

    return hausdorff(rows(A), None if B is None else rows(B), kind="minimal")


def column_scaling(F):
    """Column means and standard deviations of `F` (1 where a column is constant)."""
    mean, scale = F.mean(axis=0), F.std(axis=0)
    scale[scale == 0] = 1.0
    return mean, scale


def lexicographic_order(Z):
    """The permutation that sorts the rows of the 2-D float array `Z` lexicographically (stable).

    One argsort of the rows viewed as records (NumPy compares them field by
    field). A model fitted on the rows in this order (k-means and mixture
    initialisations, landmarks, mini-batches) does not depend on the order
    in which the rows came: the bags' order or their instances'.
    """
    Z = np.ascontiguousarray(Z)
    if Z.dtype not in (np.float32, np.float64):
        Z = Z.astype(np.float64)
    if Z.shape[1] == 0:
        return np.arange(Z.shape[0])
    # The records compare as numbers (-0.0 equals 0.0), without a copy of Z.
    records = Z.view(np.dtype([(f"f{j}", Z.dtype) for j in range(Z.shape[1])])).ravel()
    return np.argsort(records, kind="stable")


def unit_exponent(values):
    """The exponent ``e`` for which ``values * 2**-e`` has its largest finite magnitude in [0.5, 1).

    0 when every value is 0 (or none is finite). Dividing by ``2**e`` is
    exact (only values ``2**1074`` times smaller than the largest become
    subnormal), so a model fitted after it is the same for the values
    times any power of two.
    """
    a = np.asarray(values)
    if a.size == 0:
        return 0
    top = max(abs(float(a.max())), abs(float(a.min())))  # no copy of a
    if not np.isfinite(top):
        a = np.abs(a[np.isfinite(a)])
        top = float(a.max()) if a.size else 0.0
    return int(np.frexp(top)[1]) if top > 0 else 0


def _two_sum(a, b):
    """``s = fl(a + b)`` and the exact rounding error ``e`` (``a + b = s + e``), elementwise."""
    s = a + b
    bp = s - a
    e = (a - (s - bp)) + (b - bp)
    return s, e


def accurate_column_sums(A):
    """Column sums of `A` (n, d) as accurate as sums in twice the working precision, then rounded.

    Pairwise summation in which every addition's rounding error is kept
    exactly (Knuth's TwoSum) and added back at the end (Ogita, Rump and
    Oishi's Sum2, "Accurate sum and dot product", SIAM J. Sci. Comput.
    26(6), 2005): the error is at most about ``eps |sum| + (n eps)**2
    sum |a|``, so the mean of a cluster is its exact mean correctly rounded
    in all but astronomically ill-conditioned cases, and does not move
    with the order of the rows beyond that. Exact under a rescaling by a
    power of two.
    """
    s = np.array(A, dtype=np.float64)
    if s.shape[0] == 0:
        return np.zeros(s.shape[1:])
    errors = np.zeros(s.shape[1:])
    while s.shape[0] > 1:
        half = s.shape[0] // 2
        t, e = _two_sum(s[:half], s[half:2 * half])
        errors += e.sum(axis=0)
        if s.shape[0] % 2:
            t = np.concatenate([t, s[2 * half:]])
        s = t
    return s[0] + errors
