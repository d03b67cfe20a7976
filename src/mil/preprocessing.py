"""Feature scaling fitted on instances and applied to every bag."""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from mil.bags import Bags
from mil.utils.validation import check_bags, check_feature_names, set_feature_names

__all__ = ["BagScaler", "scale_bags"]


class BagScaler(TransformerMixin, BaseEstimator, auto_wrap_output_keys=None):
    """Scale instance features using statistics of the training instances.

    Fitted on every instance of the training bags (not on bag means), and
    applied to each bag. Constant features are left unscaled (scale 1).

    Parameters
    ----------
    method : {"standard", "minmax", "maxabs"}, default="standard"
        ``"standard"``: subtract the mean and divide by the standard
        deviation; ``"minmax"``: map the training range to [0, 1];
        ``"maxabs"``: divide by the largest absolute value (no offset, so
        sparse bags stay sparse; the only method that accepts them).

    Attributes
    ----------
    offset_ : ndarray of shape (n_features,)
    scale_ : ndarray of shape (n_features,)
        A transformed instance is ``(x - offset_) / scale_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        The column names of DataFrame bags (or of a :class:`~mil.Bags` with
        ``feature_names``) seen at ``fit``; absent otherwise.

    Notes
    -----
    ``set_output(transform="pandas")`` makes :meth:`transform` return one
    DataFrame per bag (columns from :meth:`get_feature_names_out`), so a
    learner after it in a Pipeline sees the feature names; the default
    output is a :class:`~mil.Bags` (with ``feature_names`` when the input
    had names).

    Examples
    --------
    >>> import numpy as np
    >>> from mil.preprocessing import BagScaler
    >>> bags = [np.array([[0.0, 10.0]]), np.array([[2.0, 30.0], [4.0, 20.0]])]
    >>> BagScaler(method="minmax").fit_transform(bags)[1]
    array([[0.5, 1. ],
           [1. , 0.5]])
    """

    _parameter_constraints = {"method": [StrOptions({"standard", "minmax", "maxabs"})]}

    def __init__(self, method="standard"):
        self.method = method

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.three_d_array = True
        tags.input_tags.allow_nan = True
        return tags

    def fit(self, X, y=None):
        """Learn per-feature offset and scale from the instances of `X`."""
        self._validate_params()
        bags = check_bags(X, allow_nan=True, estimator="BagScaler", accept_sparse=True)
        self.offset_, self.scale_ = _scaling(bags.instances, self.method)
        self.n_features_in_ = bags.n_features
        set_feature_names(self, X)
        return self

    def transform(self, X):
        """Return the scaled bags (the input is not modified).

        Returns
        -------
        bags : Bags or list of pandas.DataFrame
            A new :class:`~mil.Bags` (with the fitted feature names, if
            any); one DataFrame per bag after ``set_output(transform="pandas")``.
        """
        check_is_fitted(self, "scale_")
        check_feature_names(self, X)
        bags = check_bags(X, n_features=self.n_features_in_, allow_nan=True, estimator="BagScaler",
                          accept_sparse=True)
        if bags.is_sparse and self.method != "maxabs":
            raise ValueError(f"BagScaler(method={self.method!r}) would make sparse bags dense; "
                             "use method='maxabs' or Bags.toarray()")
        out = _apply_scaling(bags, self.offset_, self.scale_)
        names = getattr(self, "feature_names_in_", None)
        if names is not None:
            out = out.with_feature_names(names)
        if getattr(self, "_sklearn_output_config", {}).get("transform") == "pandas":
            import pandas as pd

            if out.is_sparse:
                raise ValueError("set_output(transform='pandas') cannot hold sparse bags; "
                                 "use the default output (Bags)")
            columns = list(self.get_feature_names_out())
            return [pd.DataFrame(bag.copy(), columns=columns) for bag in out]
        return out

    def get_feature_names_out(self, input_features=None):
        """Names of the output features: the input's (scaling keeps the columns).

        Parameters
        ----------
        input_features : array-like of str, default=None
            Checked against ``feature_names_in_`` when both exist; default:
            ``feature_names_in_``, else ``x0``, ``x1``, ...

        Returns
        -------
        names : ndarray of str (object)
        """
        from sklearn.utils.validation import _check_feature_names_in

        check_is_fitted(self, "scale_")
        return _check_feature_names_in(self, input_features)

    def set_output(self, *, transform=None):
        """Choose what :meth:`transform` returns, as scikit-learn's ``set_output``.

        Parameters
        ----------
        transform : {"default", "pandas"}, default=None
            ``"default"``: a :class:`~mil.Bags`; ``"pandas"``: one DataFrame
            per bag with the feature names as columns; None: unchanged.
            (``"polars"`` has no bag form here.)

        Returns
        -------
        self : BagScaler
        """
        if transform is None:
            return self
        if transform not in ("default", "pandas"):
            raise ValueError(f"BagScaler.set_output: transform must be 'default' or 'pandas' "
                             f"(one DataFrame per bag); got {transform!r}")
        if transform == "pandas":
            import importlib.util

            if importlib.util.find_spec("pandas") is None:
                raise ImportError("set_output(transform='pandas') needs pandas")
        # scikit-learn's attribute, so that clone() keeps the choice.
        self._sklearn_output_config = {"transform": transform}
        return self


def _scaling(instances, method):
    """Per-feature ``(offset, scale)`` of `method` on an instance matrix (dense or sparse)."""
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
        scale = np.nanmax(np.abs(instances), axis=0)
    elif method == "standard":
        # Mean and standard deviation of x / max|x|, scaled back: the square
        # inside the variance overflows above ~1e154 and underflows below
        # ~1e-162 on raw values, which switched the scaling off (scale 1) at
        # extreme magnitudes; on values in [-1, 1] it does neither, so a
        # rescaling of the data only rescales offset and scale.
        big = _feature_maxabs(instances)
        unit = instances / big
        offset = np.nanmean(unit, axis=0) * big
        scale = np.nanstd(unit, axis=0) * big
    else:
        offset = np.nanmin(instances, axis=0)
        top = np.nanmax(instances, axis=0)
        with np.errstate(over="ignore", invalid="ignore"):
            scale = top - offset
        # max - min overflows for ranges beyond ~1.8e308: halve both first.
        scale = np.where(np.isinf(scale) & np.isfinite(offset) & np.isfinite(top),
                         2.0 * (top * 0.5 - offset * 0.5), scale)
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    offset = np.where(np.isfinite(offset), offset, 0.0)
    return offset, scale


#: With ``scale=None``, features whose largest magnitude lies within ``2**+-MAGNITUDE_EXPONENT``
#: are left as they are; beyond, a power of two brings them back (:func:`_fit_scaling`).
MAGNITUDE_EXPONENT = 400


def _fit_scaling(instances, method):
    """``(offset, scale)`` of an estimator's ``scale`` parameter, fitted on the training instances.

    A method name gives :func:`_scaling`. None (no scaling asked for) gives
    ``(None, None)``, unless the largest finite magnitude lies beyond
    ``2**MAGNITUDE_EXPONENT`` or below ``2**-MAGNITUDE_EXPONENT`` (about
    1e120 and 1e-120): then the features are divided by one power of two
    (offset 0), which is exact, so that the estimator's distances, their
    squares and the bandwidths fitted from them stay inside float64 (below
    1e-154 the squares underflow, above 1e154 they overflow). Large
    magnitudes come down to ``2**MAGNITUDE_EXPONENT`` (smaller features
    keep their room), small ones up to [0.5, 1). Models fitted on features
    times any power of two are then the same models; bandwidths given in
    absolute terms are converted with :func:`_absolute_unit`.
    """
    if method is not None:
        return _scaling(instances, method)
    finite = np.abs(instances[np.isfinite(instances)]) if instances.size else np.zeros(0)
    top = float(finite.max()) if finite.size else 0.0
    if top == 0.0 or 2.0 ** -MAGNITUDE_EXPONENT <= top <= 2.0 ** MAGNITUDE_EXPONENT:
        return None, None
    exponent = int(np.frexp(top)[1])  # top in [2**(exponent - 1), 2**exponent)
    if exponent > 0:
        exponent -= MAGNITUDE_EXPONENT
    return np.zeros(instances.shape[1]), np.full(instances.shape[1], np.ldexp(1.0, exponent))


def _absolute_unit(estimator, power):
    """``s**-power``, ``s`` the power of two by which ``scale=None`` divided the features (1 if none).

    For a kernel ``exp(-gamma d**power)``, a bandwidth given in absolute
    terms on the features as passed is ``gamma / unit`` on the scaled ones
    (``d = s * d_scaled``); when a scaling method was asked for, bandwidths
    refer to the scaled features and the unit is 1. Clipped to
    ``2**+-1000``: beyond, the kernel is 1 everywhere, or 0 between distinct
    instances, in float64 either way.
    """
    scale = getattr(estimator, "scale_", None)
    if estimator.scale is not None or scale is None:
        return 1.0
    exponent = -float(power) * (int(np.frexp(scale[0])[1]) - 1)  # scale[0] = 2**(frexp - 1)
    return float(np.exp2(np.clip(exponent, -1000.0, 1000.0)))


def _feature_maxabs(instances):
    """Per-feature largest finite absolute value (1 where there is none, or it is 0)."""
    a = np.abs(instances)
    a = np.where(np.isfinite(a), a, np.nan)
    with np.errstate(all="ignore"):
        big = np.nanmax(a, axis=0) if a.shape[0] else np.ones(a.shape[1])
    return np.where(np.isfinite(big) & (big > 0), big, 1.0)


def _apply_scaling(bags, offset, scale):
    """``(x - offset) / scale`` for every instance, as a new Bags (sparse bags: offset is 0)."""
    if bags.is_sparse:
        import scipy.sparse as sp

        scaled = (bags.instances @ sp.diags(1.0 / scale)).tocsr()
        return Bags._trusted(scaled, bags.offsets, bags.ids)
    return Bags._trusted((bags.instances - offset) / scale, bags.offsets, bags.ids)


def _fit_scaled(est, bags, method="scale", *, rescale_extremes=False):
    """Fit the scaling ``est.scale`` (or the `method` given) on the training bags: set
    ``offset_`` / ``scale_`` and return the scaled bags.

    Without a method, ``offset_`` / ``scale_`` are None; with `rescale_extremes`
    (learners whose output does not depend on the features' unit), features of
    extreme magnitude are divided by a power of two instead (:func:`_fit_scaling`).
    """
    method = est.scale if method == "scale" else method
    if method is None and not rescale_extremes:
        est.offset_ = est.scale_ = None
        return bags
    est.offset_, est.scale_ = _fit_scaling(bags.instances, method)
    return _scaled_as_fitted(est, bags)


def _scaled_as_fitted(est, bags):
    """New bags scaled as :func:`_fit_scaled` scaled the training bags."""
    return bags if est.offset_ is None else _apply_scaling(bags, est.offset_, est.scale_)


def scale_bags(train, others=(), method="standard"):
    """Scale `train` and each of `others` with statistics fitted on `train`'s instances.

    Parameters
    ----------
    train : Bags
    others : sequence of Bags
    method : {"standard", "minmax"} or None
        None returns the inputs unchanged.

    Returns
    -------
    scaled : list of Bags
        ``[train, *others]``, scaled.
    """
    bags = [train, *others]
    if method is None:
        return bags
    offset, scale = _scaling(train.instances, method)
    return [_apply_scaling(b, offset, scale) for b in bags]
