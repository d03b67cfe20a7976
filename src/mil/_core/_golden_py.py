"""Golden-section maximisation and the NCA objective: the NumPy twin of ``_golden.pyx``.

Same algorithm, same tie rule (interior values equal within FLAT_RTOL keep the left part),
same stabilisation (each row's smallest distance is subtracted before
exponentiating). The objective is vectorised over the bag-by-bag matrix.
"""

import math

import numpy as np

from mil._core._checks import check_float, golden_args, nca_args

__all__ = ["golden_section_max", "nca_objective", "nca_alpha"]

INVPHI = (math.sqrt(5.0) - 1.0) / 2.0
#: Interior values within this relative difference count as equal (see the compiled twin).
FLAT_RTOL = 1e-9


def _keep_left(f1, f2, rtol):
    return f1 >= f2 - rtol * max(abs(f1), abs(f2))


def golden_section_max(func, lo, hi, tol=1e-5, max_iter=200, rtol=0.0):
    """Maximise a scalar function on [lo, hi] by golden-section search (see the compiled twin)."""
    func, a, b, tol, max_iter = golden_args(func, lo, hi, tol, max_iter)
    return _golden_max(func, a, b, tol, max_iter, check_float(rtol, "rtol"))


def _golden_max(func, a, b, tol, max_iter, rtol):
    x1, x2 = b - INVPHI * (b - a), a + INVPHI * (b - a)
    f1, f2 = float(func(x1)), float(func(x2))
    it = 0
    while (b - a) > tol and it < max_iter:
        if _keep_left(f1, f2, rtol):
            b, x2, f2 = x2, x1, f1
            x1 = b - INVPHI * (b - a)
            f1 = float(func(x1))
        else:
            a, x1, f1 = x1, x2, f2
            x2 = a + INVPHI * (b - a)
            f2 = float(func(x2))
        it += 1
    return 0.5 * (a + b)


def nca_objective(dmin, dmax, y, alpha, sigma):
    """NCA leave-one-out objective f(alpha) over the training bags (stable)."""
    dmin, dmax, y, sigma = nca_args(dmin, dmax, y, sigma)
    return _objective(dmin, dmax, y, check_float(alpha, "alpha"), sigma)


def _objective(dmin, dmax, y, alpha, sigma):
    n = dmin.shape[0]
    if n < 2:
        return 0.0
    d = alpha * dmin + (1.0 - alpha) * dmax
    np.fill_diagonal(d, np.inf)
    d -= d.min(axis=1, keepdims=True)
    w = np.exp(-(d / sigma))
    same = y[:, None] == y[None, :]
    return float(np.sum((w * same).sum(axis=1) / w.sum(axis=1)))


def nca_alpha(dmin, dmax, y, sigma, tol=1e-3):
    """Alpha in [0, 1] maximising the NCA objective, by golden-section search."""
    dmin, dmax, y, sigma = nca_args(dmin, dmax, y, sigma)
    tol = check_float(tol, "tol", positive=True)
    if dmin.shape[0] == 0:
        return 0.5
    return _golden_max(lambda a: _objective(dmin, dmax, y, a, sigma), 0.0, 1.0, tol, 200, FLAT_RTOL)
