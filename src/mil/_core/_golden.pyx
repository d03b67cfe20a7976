"""Golden-section maximisation and the NCA objective for alpha (compiled).

The integrated Hausdorff distance
``d_int = alpha d_min + (1 - alpha) d_max`` takes its weight from a
neighbourhood-components objective over the training bags (Goldberger,
Roweis, Hinton, Salakhutdinov 2005, "Neighbourhood components analysis"):
``p_ij = exp(-d_ij / sigma) / sum_{k != i} exp(-d_ik / sigma)``,
``f(alpha) = sum_i sum_{j != i, y_j = y_i} p_ij``, maximised over [0, 1] by
golden-section search (Press et al., Numerical Recipes, section 10.2: keep
a bracketing pair of interior points, shrink by the golden ratio, return
the midpoint of the last bracket). Each row's smallest distance is
subtracted before exponentiating, so sigma = 0.1 with distances in the
hundreds stays finite (the factor cancels in p_ij).

Sums run row by row, left to right, as in the NumPy twin (``_golden_py``).
Ties between the two interior points keep the left part (smaller x); the
NCA search counts values within ``FLAT_RTOL`` (relative) as tied, so both
twins take the same branches on flat stretches of the objective.
"""

from libc.math cimport exp, fabs, sqrt, INFINITY, NAN

from mil._core._typedefs cimport float64_t, intp_t

import numpy as np

from mil._core._checks import check_float, golden_args, nca_args

__all__ = ["golden_section_max", "nca_objective", "nca_alpha"]

cdef float64_t INVPHI = (sqrt(5.0) - 1.0) / 2.0
# Interior values within this relative difference count as equal (the left
# part is kept): the objective's last bits differ between the twins (other
# summation orders), and on a flat stretch an exact comparison sent the two
# searches to different brackets. Same constant in the twin.
cdef float64_t _FLAT_RTOL = 1e-9
FLAT_RTOL = _FLAT_RTOL


cdef inline bint _keep_left(float64_t f1, float64_t f2, float64_t rtol) noexcept nogil:
    cdef float64_t scale = fabs(f1) if fabs(f1) > fabs(f2) else fabs(f2)
    return f1 >= f2 - rtol * scale


cdef float64_t c_golden_section_max(
    scalar_func f, void* data, float64_t lo, float64_t hi, float64_t tol, intp_t max_iter,
) noexcept nogil:
    return _golden_max(f, data, lo, hi, tol, max_iter, 0.0)


cdef float64_t _golden_max(
    scalar_func f, void* data, float64_t lo, float64_t hi, float64_t tol, intp_t max_iter,
    float64_t rtol,
) noexcept nogil:
    # rtol: interior values within it (relative) are a tie, which keeps the left part.
    cdef float64_t a = lo, b = hi
    cdef float64_t x1 = b - INVPHI * (b - a), x2 = a + INVPHI * (b - a)
    cdef float64_t f1 = f(x1, data), f2 = f(x2, data)
    cdef intp_t it = 0
    while (b - a) > tol and it < max_iter:
        if _keep_left(f1, f2, rtol):
            # The maximum lies in [a, x2]; x1 becomes the right interior point.
            b = x2
            x2 = x1
            f2 = f1
            x1 = b - INVPHI * (b - a)
            f1 = f(x1, data)
        else:
            a = x1
            x1 = x2
            f1 = f2
            x2 = a + INVPHI * (b - a)
            f2 = f(x2, data)
        it += 1
    return 0.5 * (a + b)


cdef float64_t c_nca_objective(
    const float64_t* dmin, const float64_t* dmax, const intp_t* y, intp_t n,
    float64_t alpha, float64_t sigma,
) noexcept nogil:
    cdef intp_t i, k
    cdef float64_t beta = 1.0 - alpha, m, v, w, z, same, total = 0.0
    for i in range(n):
        m = INFINITY
        for k in range(n):
            if k != i:
                v = alpha * dmin[i * n + k] + beta * dmax[i * n + k]
                if v < m:
                    m = v
        if n < 2:
            continue
        z = 0.0
        same = 0.0
        for k in range(n):
            if k != i:
                v = alpha * dmin[i * n + k] + beta * dmax[i * n + k]
                v = (v - m) / sigma
                # exp(-v) is exactly 0.0 in float64 beyond v = 746: skip the call.
                if v > 746.0:
                    continue
                w = exp(-v)
                z = z + w
                if y[k] == y[i]:
                    same = same + w
        total = total + same / z
    return total


cdef struct _NCAData:
    const float64_t* dmin
    const float64_t* dmax
    const intp_t* y
    intp_t n
    float64_t sigma


cdef float64_t _nca_at(float64_t alpha, void* data) noexcept nogil:
    cdef _NCAData* p = <_NCAData*> data
    return c_nca_objective(p.dmin, p.dmax, p.y, p.n, alpha, p.sigma)


cdef float64_t c_nca_alpha(
    const float64_t* dmin, const float64_t* dmax, const intp_t* y, intp_t n,
    float64_t sigma, float64_t tol,
) noexcept nogil:
    cdef _NCAData data
    data.dmin = dmin
    data.dmax = dmax
    data.y = y
    data.n = n
    data.sigma = sigma
    return _golden_max(_nca_at, &data, 0.0, 1.0, tol, 200, _FLAT_RTOL)


cdef float64_t _call_python(float64_t x, void* data) noexcept nogil:
    # data is a list [callable, first exception or None]; after an exception
    # every further call returns NaN and the wrapper re-raises it.
    with gil:
        holder = <list> data
        if holder[1] is not None:
            return NAN
        try:
            return float(holder[0](x))
        except BaseException as exc:
            holder[1] = exc
            return NAN


def golden_section_max(func, lo, hi, tol=1e-5, max_iter=200, rtol=0.0):
    """Maximise a scalar function on [lo, hi] by golden-section search.

    Parameters
    ----------
    func : callable
        ``func(x) -> float``; assumed unimodal on the interval.
    lo, hi : float
        The interval (hi > lo).
    tol : float, default=1e-5
        Stop when the bracket is shorter than `tol`.
    max_iter : int, default=200
    rtol : float, default=0.0
        Interior values within this relative difference are a tie (the
        left part is kept); ``FLAT_RTOL`` makes the search immune to
        last-bit differences on flat stretches, at the price of locating
        a smooth maximum only to about ``sqrt(2 * rtol)``.

    Returns
    -------
    x : float
        Midpoint of the final bracket.
    """
    func, lo, hi, tol, max_iter = golden_args(func, lo, hi, tol, max_iter)
    rtol = check_float(rtol, "rtol")
    holder = [func, None]
    cdef float64_t x = _golden_max(_call_python, <void*> holder, lo, hi, tol, max_iter, rtol)
    if holder[1] is not None:
        raise holder[1]
    return x


cdef _nca(dmin_, dmax_, y_, float64_t sigma, float64_t arg, bint search, float64_t empty):
    # c_nca_alpha (search; `arg` the tolerance) or c_nca_objective (`arg` the
    # alpha) on arrays nca_args has checked; `empty` when there is no bag.
    cdef const float64_t[:, ::1] dmin = dmin_
    cdef const float64_t[:, ::1] dmax = dmax_
    cdef const intp_t[::1] y = y_
    cdef float64_t out
    cdef intp_t n = dmin.shape[0]
    if n == 0:
        return empty
    with nogil:
        if search:
            out = c_nca_alpha(&dmin[0, 0], &dmax[0, 0], &y[0], n, sigma, arg)
        else:
            out = c_nca_objective(&dmin[0, 0], &dmax[0, 0], &y[0], n, arg, sigma)
    return out


def nca_objective(dmin_, dmax_, y_, alpha, sigma):
    """NCA leave-one-out objective f(alpha) over the training bags (stable)."""
    dmin_, dmax_, y_, sigma = nca_args(dmin_, dmax_, y_, sigma)
    return _nca(dmin_, dmax_, y_, sigma, check_float(alpha, "alpha"), False, 0.0)


def nca_alpha(dmin_, dmax_, y_, sigma, tol=1e-3):
    """Alpha in [0, 1] maximising the NCA objective, by golden-section search."""
    dmin_, dmax_, y_, sigma = nca_args(dmin_, dmax_, y_, sigma)
    return _nca(dmin_, dmax_, y_, sigma, check_float(tol, "tol", positive=True), True, 0.5)
