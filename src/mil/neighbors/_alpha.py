"""Choosing alpha of the integrated Hausdorff distance."""

import numpy as np

from mil._core import kernel
from mil.utils._docstrings import fill_doc
from mil.utils.validation import shown

__all__ = ["kernel_regression_loss", "nca_objective", "select_alpha"]


def _check(dmin, dmax, y, dtype=np.intp):
    dmin = np.ascontiguousarray(dmin, dtype=np.float64)
    dmax = np.ascontiguousarray(dmax, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=dtype)
    n = y.shape[0]
    if dmin.shape != (n, n) or dmax.shape != (n, n):
        raise ValueError(f"dmin and dmax must be ({n}, {n}) matrices, one row per labelled bag; "
                         f"got {dmin.shape} and {dmax.shape}")
    return dmin, dmax, y


def _parameters_doc(y):
    """The Parameters section of the leave-one-out objectives of alpha, `y` described as given."""
    return f"""    Parameters
    ----------
    dmin, dmax : ndarray of shape (n, n)
        Minimal and maximal Hausdorff distances between the training bags.
    y : array-like of shape (n,)
        {y}
    alpha : float
    sigma : float > 0
"""


@fill_doc(parameters=_parameters_doc("Class index of each bag."))
def nca_objective(dmin, dmax, y, alpha, sigma):
    """NCA leave-one-out objective of the integrated distance with weight `alpha`.

    ``f(alpha) = sum_i sum_{j != i, y_j = y_i} p_ij`` with
    ``p_ij`` proportional to ``exp(-d_int(i, j) / sigma)`` over ``j != i``;
    computed stably (each row's smallest distance is subtracted first).

    [parameters]

    Returns
    -------
    f : float
        Expected number of bags whose leave-one-out stochastic neighbour
        has their class (between 0 and n).
    """
    dmin, dmax, y = _check(dmin, dmax, y)
    return float(kernel("_golden").nca_objective(dmin, dmax, y, float(alpha), float(sigma)))


@fill_doc(parameters=_parameters_doc("The target of each bag."))
def kernel_regression_loss(dmin, dmax, y, alpha, sigma):
    """Leave-one-out squared error of kernel regression with the integrated distance of weight `alpha`.

    ``sum_i (y_i - sum_{j != i} p_ij y_j)^2`` with the ``p_ij`` of
    :func:`nca_objective`: the objective of metric learning for kernel
    regression (Weinberger and Tesauro 2007), the regression counterpart of
    NCA. Computed stably (each row's smallest distance is subtracted first).

    [parameters]

    Returns
    -------
    loss : float
        Sum of squared leave-one-out errors (0 for a single bag).
    """
    dmin, dmax, y = _check(dmin, dmax, y, np.float64)
    n = y.shape[0]
    if n < 2:
        return 0.0
    D = alpha * dmin + (1.0 - alpha) * dmax
    np.fill_diagonal(D, np.inf)
    P = np.exp(-(D - D.min(axis=1, keepdims=True)) / sigma)
    fitted = (P @ y) / P.sum(axis=1)
    return float(np.sum((y - fitted) ** 2))


def _maximise(g, f, method, tol):
    """Alpha in [0, 1] maximising f by golden-section search, or grid then golden-section (see select_alpha)."""
    if method == "golden":
        return float(g.golden_section_max(f, 0.0, 1.0, tol, 200, rtol=g.FLAT_RTOL))
    grid = np.linspace(0.0, 1.0, 11)
    values = np.array([f(a) for a in grid])
    # Values within the kernel's FLAT_RTOL count as equal (the first wins), so
    # the last bits, which differ between the twins, never pick the grid cell.
    top = values.max()
    best = int(np.flatnonzero(values >= top - g.FLAT_RTOL * abs(top))[0])
    lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, 10)]
    alpha = g.golden_section_max(f, lo, hi, tol, 200, rtol=g.FLAT_RTOL)
    if f(alpha) >= values[best] - g.FLAT_RTOL * abs(values[best]):
        return float(alpha)
    return float(grid[best])


def select_alpha(dmin, dmax, y, sigma, tol=1e-3, method="golden", task="classification"):
    """Alpha in [0, 1] maximising :func:`nca_objective` (or minimising :func:`kernel_regression_loss`).

    Parameters
    ----------
    dmin, dmax : ndarray of shape (n, n)
    y : array-like of shape (n,)
        Class index of each bag (``task="classification"``), or its target
        (``task="regression"``).
    sigma : float > 0
    tol : float, default=1e-3
        Length of the final golden-section bracket.
    method : {"golden", "grid-golden"}, default="golden"
        "golden": golden-section search on [0, 1], which assumes
        f unimodal. "grid-golden": f on the grid 0, 0.1, ..., 1 first, then
        golden-section search in the two grid cells around the best grid
        point; the better of the two results is returned (f is often flat
        or multimodal when sigma is small compared with the distances).
    task : {"classification", "regression"}, default="classification"
        The objective: NCA's expected number of correctly classified bags,
        or minus the leave-one-out squared error of kernel regression.

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
    if task not in ("classification", "regression"):
        raise ValueError(f"task must be 'classification' or 'regression'; got {task!r}")
    g = kernel("_golden")
    if task == "regression":
        dmin, dmax, y = _check(dmin, dmax, y, np.float64)
        return _maximise(g, lambda a: -kernel_regression_loss(dmin, dmax, y, a, float(sigma)), method, tol)
    dmin, dmax, y = _check(dmin, dmax, y)
    if method == "golden":
        return float(g.nca_alpha(dmin, dmax, y, float(sigma), float(tol)))
    return _maximise(g, lambda a: g.nca_objective(dmin, dmax, y, a, float(sigma)), method, tol)
