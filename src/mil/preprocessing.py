"""Feature scaling fitted on instances and applied to every bag."""

from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from mil._scaling import apply_scaling, fit_scaling
from mil.utils._docstrings import fill_doc
from mil.utils.validation import check_bags, check_feature_names, set_feature_names

__all__ = ["BagScaler", "scale_bags"]


@fill_doc
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

    See Also
    --------
    scale_bags : The same scaling as a function.
    sklearn.preprocessing.StandardScaler : The scaling of one 2-D array.

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
        """Learn per-feature offset and scale from the instances of `X`.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
            The training bags; NaN is ignored.
        y : None
            Ignored.

        Returns
        -------
        self : BagScaler
            The fitted scaler.
        """
        self._validate_params()
        bags = check_bags(X, allow_nan=True, estimator="BagScaler", accept_sparse=True)
        self.offset_, self.scale_ = fit_scaling(bags.instances, self.method)
        self.n_features_in_ = bags.n_features
        set_feature_names(self, X)
        return self

    def transform(self, X):
        """Return the scaled bags (the input is not modified).

        [fitted bags]

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
        out = apply_scaling(bags, self.offset_, self.scale_)
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
        """Get the names of the output features: the input's (scaling keeps the columns).

        Parameters
        ----------
        input_features : array-like of str, default=None
            Checked against ``feature_names_in_`` when both exist; default:
            ``feature_names_in_``, else ``x0``, ``x1``, ...

        Returns
        -------
        names : ndarray of str (object)
            One name per feature.
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
            The scaler, with the output chosen.
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
    offset, scale = fit_scaling(train.instances, method)
    return [apply_scaling(b, offset, scale) for b in bags]
