"""Quantile binning of the instances: the NumPy twin of ``_binning.pyx``.

Same codes as the compiled kernel: ``np.searchsorted(edges, v, side="left")``
(the number of edges strictly below v), NaN to the missing bin 255. A float32
column is compared after an exact conversion to float64.
"""

import numpy as np

from mil._core._checks import binning_args

__all__ = ["map_to_bins"]

MISSING_BIN = 255


def map_to_bins(X, edges, n_bins, out, lo=0, hi=None):
    """Write the bin code of every value of features ``lo:hi`` into ``out[lo:hi]``.

    See the compiled twin; the arguments are checked the same way.
    """
    X, edges, n_bins, out, lo, hi = binning_args(X, edges, n_bins, out, lo, hi)
    _map(X, edges, n_bins, out, lo, hi)
    return out


def _map(X, edges, n_bins, out, lo, hi):
    for f in range(lo, hi):
        col = X[:, f].astype(np.float64)
        codes = np.searchsorted(edges[f, :n_bins[f] - 1], col, side="left")
        codes[np.isnan(col)] = MISSING_BIN
        out[f] = codes
