"""Quantile binning of the instances for the histogram split search (compiled).

Each feature's values are mapped to small integer bins once per fit, as
scikit-learn's histogram gradient boosting does (``_BinMapper``; Ke et al.,
"LightGBM: A Highly Efficient Gradient Boosting Decision Tree", NeurIPS
2017): bin ``b`` of feature ``f`` holds the values ``v`` with
``edges[f, b - 1] < v <= edges[f, b]``, so ``v <= edges[f, b]`` exactly when
the code is at most ``b`` and a split on a bin boundary routes instances as
a threshold on the raw value does. NaN gets the missing-value bin
``MISSING_BIN`` (255). The edges themselves are found in Python
(``mil.tree._builder``); this kernel only maps values, for float32 and
float64 instances alike (a float32 value is compared after an exact
conversion to float64, so no upcast copy of the instances is made).

The NumPy twin ``_binning_py`` gives the same codes with ``np.searchsorted``.
"""

cimport cython
from libc.math cimport isnan

from mil._core._typedefs cimport float64_t, intp_t, uint8_t

import numpy as np

from mil._core._checks import binning_args

__all__ = ["map_to_bins"]

MISSING_BIN = 255


cdef uint8_t c_bin_code(float64_t v, const float64_t* edges, intp_t n_edges) noexcept nogil:
    # Number of edges strictly below v (np.searchsorted(edges, v, side="left")),
    # by a branch-free lower bound: the comparison selects the next base
    # without a jump (a data-dependent branch is mispredicted half the time).
    cdef intp_t base = 0, length = n_edges, half
    if isnan(v):
        return 255
    if length == 0:
        return 0
    while length > 1:
        half = length >> 1
        base = base + half if edges[base + half] < v else base
        length -= half
    return <uint8_t>(base + (edges[base] < v))


def map_to_bins(X, edges, n_bins, out, lo=0, hi=None):
    """Write the bin code of every value of features ``lo:hi`` into ``out[lo:hi]``.

    Parameters
    ----------
    X : ndarray of float32 or float64, shape (n_instances, n_features)
        C-contiguous instances (read only; a memory map works).
    edges : ndarray of float64, shape (n_features, 255)
        Row f: the ``n_bins[f] - 1`` increasing bin edges of feature f.
    n_bins : ndarray of intp, shape (n_features,)
        Bins of each feature (at most 255, the missing bin not counted).
    out : ndarray of uint8, shape (n_features, n_instances)
        Feature-major codes (written).
    lo, hi : int
        The features to map (all by default).
    """
    X, edges, n_bins, out, lo, hi = binning_args(X, edges, n_bins, out, lo, hi)
    _map(X, edges, n_bins, out, lo, hi)
    return out


def _map(const cython.floating[:, ::1] X, const float64_t[:, ::1] edges, const intp_t[::1] n_bins,
         uint8_t[:, ::1] out, intp_t lo, intp_t hi):
    cdef intp_t n = X.shape[0], i, f
    with nogil:
        for i in range(n):
            for f in range(lo, hi):
                out[f, i] = c_bin_code(<float64_t>X[i, f], &edges[f, 0], n_bins[f] - 1)
