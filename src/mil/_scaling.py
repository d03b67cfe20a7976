"""Per-feature scaling fitted on the training instances and applied to every bag.

The arithmetic behind :class:`mil.preprocessing.BagScaler` and behind each
estimator's ``scale`` parameter: :func:`fit_scaling` learns one offset and
one scale per feature, :func:`apply_scaling` maps bags with them. With no
method, :func:`fit_scaling` can still bring features of extreme magnitude
back into range by an exact power of two (``rescale_extremes``), and
:func:`absolute_unit` converts a bandwidth given on the features as passed
into the scaled units. :func:`median_sq_distance` gives the RBF kernels'
bandwidth reference (the median heuristic) on scaled instances.
"""

import numpy as np

from mil.bags import Bags

__all__ = ["MAGNITUDE_EXPONENT", "MEDIAN_SAMPLE", "absolute_unit", "apply_scaling", "bandwidth_reference", "fit_scaling",
           "median_sq_distance", "row_blocks", "scaled_mean", "scaled_rows"]

#: With no scaling method, features whose largest magnitude lies within ``2**+-MAGNITUDE_EXPONENT``
#: are left as they are; beyond, a power of two brings them back (:func:`fit_scaling`).
MAGNITUDE_EXPONENT = 400

#: Instances sampled (evenly spaced) for the median heuristic of the RBF bandwidths.
MEDIAN_SAMPLE = 2000

#: Bytes of float64 values read at a time when scaling statistics are fitted or applied: a float32
#: instance table (a memory map, say) is never copied whole into float64.
BLOCK_BYTES = 2**27


def row_blocks(n_rows, n_features):
    """``(start, stop)`` of consecutive row blocks of about :data:`BLOCK_BYTES` in float64 (one block when empty)."""
    step = max(1, BLOCK_BYTES // (8 * max(int(n_features), 1)))
    return [(i, min(i + step, n_rows)) for i in range(0, n_rows, step)] or [(0, 0)]


def scaled_rows(rows, offset, scale):
    """``(x - offset) / scale`` of some dense instance rows, in float64 (the rows as float64 when offset is None)."""
    if offset is None:
        return np.asarray(rows, dtype=np.float64)
    out = np.array(rows, dtype=np.float64)  # a copy: scaled in place
    out -= offset
    out /= scale
    return out


def fit_scaling(instances, method, *, rescale_extremes=False):
    """Per-feature ``(offset, scale)`` of `method`, fitted on an instance matrix (dense or sparse).

    A transformed instance is ``(x - offset) / scale`` (:func:`apply_scaling`).

    Parameters
    ----------
    instances : ndarray or scipy sparse matrix of shape (n_instances, n_features)
        The training instances; NaN is ignored.
    method : {"standard", "minmax", "maxabs"} or None
        "standard": mean and standard deviation; "minmax": the training
        range to [0, 1]; "maxabs": the largest absolute value (no offset, the
        only method for sparse instances). Constant features get scale 1.
    rescale_extremes : bool, default=False
        Only with ``method=None``: when the largest finite magnitude lies
        beyond ``2**MAGNITUDE_EXPONENT`` or below ``2**-MAGNITUDE_EXPONENT``
        (about 1e120 and 1e-120), divide every feature by one power of two
        (offset 0), which is exact, so that distances, their squares and
        the bandwidths fitted from them stay inside float64 (below 1e-154
        the squares underflow, above 1e154 they overflow). Large magnitudes
        come down to ``2**MAGNITUDE_EXPONENT`` (smaller features keep their
        room), small ones up to [0.5, 1). Models fitted on features times
        any power of two are then the same models. For learners whose
        output does not depend on the features' unit.

    Returns
    -------
    offset, scale : ndarray of shape (n_features,), or None, None
        None when nothing is to be done (no method, and no rescaling).
    """
    if method is None:
        return _magnitude_scaling(instances) if rescale_extremes else (None, None)
    return _method_scaling(instances, method)


def scaled_mean(instances, offset, scale):
    """The mean of the scaled dense instances (:func:`scaled_rows`), summed a block of rows at a time."""
    total = np.zeros(instances.shape[1])
    for i, j in row_blocks(*instances.shape):
        total += scaled_rows(instances[i:j], offset, scale).sum(axis=0)
    return total / instances.shape[0]


def apply_scaling(bags, offset, scale):
    """``(x - offset) / scale`` for every instance of `bags`, as a new Bags (`bags` when offset is None).

    Dense instances come out in float64, whatever their dtype (read a block of rows at a time).
    Sparse bags have offset 0 (:func:`fit_scaling` with "maxabs") and stay sparse.
    """
    if offset is None:
        return bags
    if bags.is_sparse:
        import scipy.sparse as sp

        scaled = (bags.instances @ sp.diags(1.0 / scale)).tocsr()
        return Bags._trusted(scaled, bags.offsets, bags.ids)
    X = bags.instances
    out = np.empty(X.shape)
    for i, j in row_blocks(*X.shape):  # a float32 table is read a block at a time, never copied whole
        out[i:j] = scaled_rows(X[i:j], offset, scale)
    return Bags._trusted(out, bags.offsets, bags.ids)


def absolute_unit(estimator, power):
    """``s**-power``, ``s`` the power of two by which ``scale=None`` divided the features (1 if none).

    For a kernel ``exp(-gamma d**power)``, a bandwidth given in absolute
    terms on the features as passed is ``gamma / unit`` on the scaled ones
    (``d = s * d_scaled``); when a scaling method was asked for, bandwidths
    refer to the scaled features and the unit is 1. Clipped to
    ``2**+-1000``: beyond, the kernel is 1 everywhere, or 0 between distinct
    instances, in float64 either way.

    Parameters
    ----------
    estimator : fitted estimator
        Its ``scale`` parameter and fitted ``scale_`` (from
        :func:`fit_scaling` with ``rescale_extremes=True``).
    power : float

    Returns
    -------
    unit : float
    """
    scale = getattr(estimator, "scale_", None)
    if estimator.scale is not None or scale is None:
        return 1.0
    exponent = -float(power) * (int(np.frexp(scale[0])[1]) - 1)  # scale[0] = 2**(frexp - 1)
    return float(np.exp2(np.clip(exponent, -1000.0, 1000.0)))


def _method_scaling(instances, method):
    if not isinstance(instances, np.ndarray):  # scipy sparse
        if method != "maxabs":
            raise ValueError(
                f"scale={method!r} subtracts a per-feature offset, which would make sparse bags "
                "dense; use scale='maxabs' (divides by the largest absolute training value, keeps "
                "them sparse) or scale=None, or densify with Bags.toarray()")
        scale = abs(instances).max(axis=0).toarray().ravel() if instances.shape[0] else np.ones(0)
        return np.zeros(instances.shape[1]), np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    if method == "maxabs":
        offset = np.zeros(instances.shape[1])
        scale = _feature_reduce(instances, np.fmax, np.abs)
    elif method == "standard":
        # Mean and standard deviation of x / max|x|, scaled back: the square
        # inside the variance overflows above ~1e154 and underflows below
        # ~1e-162 on raw values, which switched the scaling off (scale 1) at
        # extreme magnitudes; on values in [-1, 1] it does neither, so a
        # rescaling of the data only rescales offset and scale.
        big = _feature_maxabs(instances)
        mean = _nan_mean(instances, big)
        offset = mean * big
        scale = np.sqrt(_nan_mean(instances, big, mean)) * big
    else:
        offset = _feature_reduce(instances, np.fmin)
        top = _feature_reduce(instances, np.fmax)
        with np.errstate(over="ignore", invalid="ignore"):
            scale = top - offset
        # max - min overflows for ranges beyond ~1.8e308: halve both first.
        scale = np.where(np.isinf(scale) & np.isfinite(offset) & np.isfinite(top),
                         2.0 * (top * 0.5 - offset * 0.5), scale)
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    offset = np.where(np.isfinite(offset), offset, 0.0)
    return offset, scale


def _magnitude_scaling(instances):
    """The power-of-two rescaling of :func:`fit_scaling` with ``rescale_extremes`` (None, None if not needed)."""
    if isinstance(instances, np.ndarray):
        with np.errstate(all="ignore"):
            tops = _feature_reduce(instances, np.fmax, _finite_abs)  # NaN: no finite value
        top = float(np.fmax.reduce(tops)) if tops.size else 0.0
        top = 0.0 if np.isnan(top) else top
    else:
        finite = np.abs(instances.data[np.isfinite(instances.data)])
        top = float(finite.max()) if finite.size else 0.0
    if top == 0.0 or 2.0 ** -MAGNITUDE_EXPONENT <= top <= 2.0 ** MAGNITUDE_EXPONENT:
        return None, None
    exponent = int(np.frexp(top)[1])  # top in [2**(exponent - 1), 2**exponent)
    if exponent > 0:
        exponent -= MAGNITUDE_EXPONENT
    return np.zeros(instances.shape[1]), np.full(instances.shape[1], np.ldexp(1.0, exponent))


def _feature_reduce(instances, reduce, transform=None):
    """Per feature, ``reduce`` (np.fmax or np.fmin: NaN ignored, NaN where a feature has no other
    value) over the rows of a dense table, optionally of ``transform(rows)``, a block at a time."""
    out = np.full(instances.shape[1], np.nan)
    for i, j in row_blocks(*instances.shape):
        rows = np.asarray(instances[i:j], dtype=np.float64)
        rows = rows if transform is None else transform(rows)
        if rows.shape[0]:
            reduce(out, reduce.reduce(rows, axis=0), out=out)
    return out


def _nan_mean(instances, unit, centre=None):
    """Per feature, the mean of ``x / unit`` over the rows where x is not NaN (`centre` given: the
    mean of ``(x / unit - centre)**2``, the variance), as numpy's nanmean and nanvar compute it,
    summed a block of rows at a time."""
    total = np.zeros(instances.shape[1])
    count = np.zeros(instances.shape[1])
    for i, j in row_blocks(*instances.shape):
        rows = np.asarray(instances[i:j], dtype=np.float64) / unit
        missing = np.isnan(rows)
        if centre is not None:
            rows -= centre
            rows *= rows
        rows[missing] = 0.0
        total += rows.sum(axis=0)
        count += rows.shape[0] - missing.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / count


def _finite_abs(rows):
    """|x|, NaN where x is not finite."""
    a = np.abs(rows)
    return np.where(np.isfinite(a), a, np.nan)


def _feature_maxabs(instances):
    """Per-feature largest finite absolute value (1 where there is none, or it is 0)."""
    with np.errstate(all="ignore"):
        big = _feature_reduce(instances, np.fmax, _finite_abs)
    return np.where(np.isfinite(big) & (big > 0), big, 1.0)


def bandwidth_reference(d, how):
    """The bandwidth reference of the distances `d`: their median or mean (1 if that is not > 0)."""
    if not d.size:
        return 1.0
    ref = float(np.median(d) if how == "median" else np.mean(d))
    return ref if ref > 0 else 1.0


def median_sq_distance(instances, how="median", offset=None, scale=None):
    """Median (or mean) squared distance between (at most MEDIAN_SAMPLE evenly spaced) instances,
    scaled by `offset` and `scale` when given (:func:`scaled_rows`)."""
    from scipy.spatial.distance import pdist

    n = instances.shape[0]
    idx = np.unique(np.linspace(0, n - 1, min(n, MEDIAN_SAMPLE)).astype(np.intp))
    d = pdist(scaled_rows(instances[idx], offset, scale), "sqeuclidean")
    return bandwidth_reference(d[d > 0], how)
