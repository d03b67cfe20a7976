"""Golden-section maximisation and the NCA objective: the NumPy twin of ``_golden.pyx``.

Same algorithm, same tie rule (equal interior values keep the left part),
same stabilisation (each row's smallest distance is subtracted before
exponentiating). The objective is vectorised over the bag-by-bag matrix.
"""

import math

import numpy as np

__all__ = ["golden_section_max", "nca_objective", "nca_alpha"]

INVPHI = (math.sqrt(5.0) - 1.0) / 2.0


def golden_section_max(func, lo, hi, tol=1e-5, max_iter=200):
    """Maximise a scalar function on [lo, hi] by golden-section search (see the compiled twin)."""
    a, b = float(lo), float(hi)
    x1, x2 = b - INVPHI * (b - a), a + INVPHI * (b - a)
    f1, f2 = float(func(x1)), float(func(x2))
    it = 0
    while (b - a) > tol and it < max_iter:
        if f1 >= f2:
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
    if dmin.shape[0] == 0:
        return 0.5
    return golden_section_max(lambda a: nca_objective(dmin, dmax, y, a, sigma), 0.0, 1.0, tol, 200)
