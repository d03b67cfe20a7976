"""Per-bag summaries: one row of per-feature statistics for each bag.

SimpleMI (Frank and Xu 2003) reduces a bag to one vector; Weka's offers the
mean, the mid-range, or the minima and maxima. A bag's mean is blind to its
spread (two bags of the same mean and different variances look alike), so
:func:`bag_statistics` offers moments, extremes, quantiles, the sum and the
bag size as well: the label may live in a bag's distribution (its spread,
its tails) or in a count (the sum of an indicator feature), not only in its
centre.

The bags are read in chunks of consecutive bags, each copied to float64 and
checked, so a :class:`~mil.Bags` over a memory-mapped (float32 or float64)
instance matrix is never loaded whole.
"""

import numbers
import warnings

import numpy as np

__all__ = ["STATISTICS", "SUMMARIES", "bag_statistics", "bag_summaries", "check_statistics"]

#: Named per-feature statistics of :func:`bag_statistics` (a float q in [0, 1] is the q-quantile).
STATISTICS = ("mean", "std", "min", "max", "midrange", "skewness", "kurtosis", "sum", "size")

#: Weka's SimpleMI summaries (and one more), as statistics of :func:`bag_statistics`.
SUMMARIES = {"mean": ("mean",), "midrange": ("midrange",), "minmax": ("min", "max"),
             "meanminmax": ("mean", "min", "max")}

#: Instances per chunk of consecutive bags when the statistics are computed.
_CHUNK_INSTANCES = 1 << 16


def check_statistics(statistics, name="summary"):
    """`statistics` as a tuple of names of :data:`STATISTICS` and quantiles, or a clear ValueError.

    Parameters
    ----------
    statistics : str, float or sequence of str and float
        One statistic or several, in the order of the output columns.
    name : str, default="summary"
        The parameter named in the error.

    Returns
    -------
    statistics : tuple
        Names and quantiles (floats in [0, 1]), without repetitions.
    """
    items = (statistics,) if isinstance(statistics, (str, numbers.Real)) else statistics
    try:
        items = tuple(items)
    except TypeError:
        items = None
    if not items:
        raise ValueError(f"{name} must name at least one statistic among {STATISTICS} or a quantile "
                         f"in [0, 1]; got {statistics!r}")
    out = []
    for item in items:
        if isinstance(item, str):
            if item not in STATISTICS:
                raise ValueError(f"{name}: unknown statistic {item!r}; expected one of {STATISTICS} or a "
                                 "quantile (a float in [0, 1])")
        elif isinstance(item, numbers.Real) and not isinstance(item, bool):
            if not 0.0 <= float(item) <= 1.0:
                raise ValueError(f"{name}: the quantile {item!r} is outside [0, 1]")
            item = float(item)
        else:
            raise ValueError(f"{name}: {item!r} is neither a statistic among {STATISTICS} nor a quantile "
                             "in [0, 1]")
        if item in out:
            raise ValueError(f"{name} names {item!r} twice")
        out.append(item)
    return tuple(out)


def _chunk_statistics(Z, offsets, statistics):
    """The statistics of a run of bags: `Z` their float64 instances, `offsets` from 0."""
    starts, sizes = offsets[:-1], np.diff(offsets)
    nan = np.isnan(Z)
    has_nan = bool(nan.any())
    with np.errstate(invalid="ignore", divide="ignore"):
        if has_nan:
            count = np.add.reduceat((~nan).astype(np.float64), starts, axis=0)
            Z0 = np.where(nan, 0.0, Z)
        else:
            count = np.broadcast_to(sizes[:, None].astype(np.float64), (sizes.shape[0], Z.shape[1]))
            Z0 = Z
        total = np.add.reduceat(Z0, starts, axis=0)
        mean = np.where(count > 0, total / np.maximum(count, 1.0), np.nan)
        moments = {}
        if any(s in ("std", "skewness", "kurtosis") for s in statistics):
            D = Z0 - np.repeat(mean, sizes, axis=0)
            if has_nan:
                D[nan] = 0.0
            D2 = D * D
            moments[2] = np.add.reduceat(D2, starts, axis=0) / count
            if "skewness" in statistics:
                moments[3] = np.add.reduceat(D2 * D, starts, axis=0) / count
            if "kurtosis" in statistics:
                moments[4] = np.add.reduceat(D2 * D2, starts, axis=0) / count
        lo = np.fmin.reduceat(Z, starts, axis=0) if {"min", "max", "midrange"} & set(statistics) else None
        hi = np.fmax.reduceat(Z, starts, axis=0) if lo is not None else None
        quantiles = [s for s in statistics if not isinstance(s, str)]
        if quantiles:
            quantile = np.nanquantile if has_nan else np.quantile
            with warnings.catch_warnings():  # an all-NaN feature's quantile is NaN, without a warning
                warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
                per_q = np.stack([quantile(Z[a:b], quantiles, axis=0) for a, b in zip(starts, offsets[1:])],
                                 axis=1)
        columns = []
        for s in statistics:
            if s == "mean":
                columns.append(mean)
            elif s == "std":
                columns.append(np.sqrt(moments[2]))
            elif s == "min":
                columns.append(lo)
            elif s == "max":
                columns.append(hi)
            elif s == "midrange":
                columns.append((lo + hi) / 2.0)
            elif s in ("skewness", "kurtosis"):
                # Standardised moments; a bag without spread (one instance, or all equal) gets 0.
                # Equal values leave a rounding residue in the mean (about size * eps * max |z|,
                # depending on the instances' order): a variance within it counts as none. The
                # moments are rounded to 12 decimals, so that an exact value (the 0 skewness and
                # -2 kurtosis of every two-instance bag) does not become order-dependent noise
                # that a binning or splitting model would tell apart.
                m2 = moments[2]
                if "_scale" not in moments:
                    bound = 4.0 * np.finfo(np.float64).eps * sizes[:, None] * np.fmax.reduceat(
                        np.abs(Z), starts, axis=0)
                    moments["_scale"] = bound * bound
                flat = ~(m2 > moments["_scale"])
                value = moments[3] / m2 ** 1.5 if s == "skewness" else moments[4] / (m2 * m2) - 3.0
                columns.append(np.where(flat, np.where(np.isnan(m2), np.nan, 0.0), np.round(value, 12)))
            elif s == "sum":
                columns.append(np.where(count > 0, total, np.nan) if has_nan else total)
            elif s == "size":
                columns.append(sizes[:, None].astype(np.float64))
            else:
                columns.append(per_q[quantiles.index(s)])
    return np.hstack(columns)


def bag_statistics(bags, statistics=("mean", "std", "skewness", "kurtosis")):
    """One row of per-feature statistics per bag.

    NaN values are ignored (a feature missing in every instance of a bag
    gives NaN for that bag).

    Parameters
    ----------
    bags : Bags
        Validated bags (float64 or float32 instances, also memory-mapped:
        they are read one chunk of bags at a time).
    statistics : str, float or sequence of str and float, default=("mean", "std", "skewness", "kurtosis")
        The blocks of columns, in order, each with one column per feature
        (``"size"``: one column):

        - ``"mean"``; ``"std"``, the standard deviation (divided by n, so
          a one-instance bag has 0); ``"skewness"`` and ``"kurtosis"``
          (excess), the standardised third and fourth moments (0 for a bag
          without spread);
        - ``"min"``, ``"max"`` and ``"midrange"``, (min + max) / 2;
        - a float q in [0, 1]: the q-quantile (linear interpolation; 0.5
          is the median);
        - ``"sum"``, the sum over the instances (a count, for an indicator
          feature), and ``"size"``, the number of instances (NaN values
          included).

    Returns
    -------
    Z : ndarray of float64 of shape (n_bags, n_columns)

    Examples
    --------
    >>> import numpy as np
    >>> from mil import Bags
    >>> from mil.wrappers import bag_statistics
    >>> bags = Bags.from_list([np.array([[0.0], [2.0]]), np.array([[5.0]])])
    >>> bag_statistics(bags, ("mean", "std", 1.0, "size")).tolist()
    [[1.0, 1.0, 2.0, 2.0], [5.0, 0.0, 5.0, 1.0]]
    """
    statistics = check_statistics(statistics, "statistics")
    offsets = bags.offsets
    n_bags = offsets.shape[0] - 1
    rows = []
    start = 0
    while start < n_bags:
        stop = int(np.searchsorted(offsets, offsets[start] + _CHUNK_INSTANCES, side="right")) - 1
        stop = min(max(stop, start + 1), n_bags)
        lo, hi = offsets[start], offsets[stop]
        Z = np.asarray(bags.instances[lo:hi], dtype=np.float64)
        rows.append(_chunk_statistics(Z, offsets[start:stop + 1] - lo, statistics))
        start = stop
    return rows[0] if len(rows) == 1 else np.vstack(rows)


def bag_summaries(bags, summary="mean"):
    """One row of per-feature summaries per bag, as Weka's SimpleMI makes them.

    NaN values are ignored (a feature missing in every instance of a bag
    gives NaN), as Weka's SimpleMI does.

    Parameters
    ----------
    bags : Bags
        Validated bags.
    summary : {"mean", "midrange", "minmax", "meanminmax"}
        ``"mean"``: the per-feature mean (Weka's SimpleMI ``-M 1``);
        ``"midrange"``: (min + max) / 2 per feature (``-M 2``, which Weka
        calls the geometric centre); ``"minmax"``: the minima of all
        features, then their maxima (``-M 3``); ``"meanminmax"``: means,
        minima, then maxima (not in Weka).

    Returns
    -------
    Z : ndarray of float64, shape (n_bags, d), (n_bags, 2 d) or (n_bags, 3 d)
        The summaries of :func:`bag_statistics` for the statistics
        ``SUMMARIES[summary]``.
    """
    if summary not in SUMMARIES:
        raise ValueError(f"unknown summary {summary!r}; expected one of {tuple(SUMMARIES)}")
    return bag_statistics(bags, SUMMARIES[summary])
