"""Choosing alpha of the integrated Hausdorff distance."""

import numpy as np

from mil._core import kernel
from mil.utils.validation import shown

__all__ = ["nca_objective", "select_alpha"]


def _check(dmin, dmax, y):
    dmin = np.ascontiguousarray(dmin, dtype=np.float64)
    dmax = np.ascontiguousarray(dmax, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.intp)
    n = y.shape[0]
    if dmin.shape != (n, n) or dmax.shape != (n, n):
        raise ValueError(f"dmin and dmax must be ({n}, {n}) matrices, one row per labelled bag; "
                         f"got {dmin.shape} and {dmax.shape}")
    return dmin, dmax, y


def nca_objective(dmin, dmax, y, alpha, sigma):
    """NCA leave-one-out objective of the integrated distance with weight `alpha`.

    ``f(alpha) = sum_i sum_{j != i, y_j = y_i} p_ij`` with
    ``p_ij`` proportional to ``exp(-d_int(i, j) / sigma)`` over ``j != i``;
    computed stably (each row's smallest distance is subtracted first).

    Parameters
    ----------
    dmin, dmax : ndarray of shape (n, n)
        Minimal and maximal Hausdorff distances between the training bags.
    y : array-like of shape (n,)
        Class index of each bag.
    alpha : float
    sigma : float > 0

    Returns
    -------
    f : float
        Expected number of bags whose leave-one-out stochastic neighbour
        has their class (between 0 and n).
    """
    dmin, dmax, y = _check(dmin, dmax, y)
    return float(kernel("_golden").nca_objective(dmin, dmax, y, float(alpha), float(sigma)))


def select_alpha(dmin, dmax, y, sigma, tol=1e-3, method="golden"):
    """Alpha in [0, 1] maximising :func:`nca_objective`.

    Parameters
    ----------
    dmin, dmax : ndarray of shape (n, n)
    y : array-like of shape (n,)
        Class index of each bag.
    sigma : float > 0
    tol : float, default=1e-3
        Length of the final golden-section bracket.
    method : {"golden", "grid-golden"}, default="golden"
        "golden": golden-section search on [0, 1], which assumes
        f unimodal. "grid-golden": f on the grid 0, 0.1, ..., 1 first, then
        golden-section search in the two grid cells around the best grid
        point; the better of the two results is returned (f is often flat
        or multimodal when sigma is small compared with the distances).

    Examples
    --------
    >>> import numpy as np
    >>> from mil.neighbors import select_alpha
    >>> # Only the minimal distance separates the two classes here.
    >>> dmin = np.array([[0., 1., 9.], [1., 0., 9.], [9., 9., 0.]])
    >>> dmax = np.array([[0., 9., 1.], [9., 0., 1.], [1., 1., 0.]])
    >>> bool(select_alpha(dmin, dmax, [0, 0, 1], sigma=1.0) > 0.9)
    True
    """
    if not sigma > 0:
        raise ValueError(f"sigma must be > 0; got {shown(sigma)}")
    if method not in ("golden", "grid-golden"):
        raise ValueError(f"method must be 'golden' or 'grid-golden'; got {method!r}")
    dmin, dmax, y = _check(dmin, dmax, y)
    g = kernel("_golden")
    if method == "golden":
        return float(g.nca_alpha(dmin, dmax, y, float(sigma), float(tol)))
    grid = np.linspace(0.0, 1.0, 11)
    values = np.array([g.nca_objective(dmin, dmax, y, a, float(sigma)) for a in grid])
    # Values within the kernel's FLAT_RTOL count as equal (the first wins), so
    # the last bits, which differ between the twins, never pick the grid cell.
    top = values.max()
    best = int(np.flatnonzero(values >= top - g.FLAT_RTOL * abs(top))[0])
    lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, 10)]
    alpha = g.golden_section_max(lambda a: g.nca_objective(dmin, dmax, y, a, float(sigma)), lo, hi, tol, 200,
                                 rtol=g.FLAT_RTOL)
    f_alpha = g.nca_objective(dmin, dmax, y, alpha, float(sigma))
    if f_alpha >= values[best] - g.FLAT_RTOL * abs(values[best]):
        return float(alpha)
    return float(grid[best])
