"""The wrappers' inner estimator: its default, nested parameters, NaN and weight support."""

import numpy as np
from sklearn.utils import get_tags
from sklearn.utils.validation import has_fit_parameter

__all__ = ["InnerEstimatorMixin", "bag_instance_weights"]


def bag_instance_weights(bags, weighting, bag_weight=None):
    """The weight of each bag's instances under MIWrapper's `weighting` (Weka's ``-A``).

    Parameters
    ----------
    bags : Bags
    weighting : {"bag", "inverse_size", "uniform"}
        ``"bag"``: N / (B n_b) for a bag of n_b instances, N instances and
        B bags in all (every bag weighs the average bag size; the weights
        sum to N); ``"inverse_size"``: 1 / n_b (every bag weighs 1);
        ``"uniform"``: 1.
    bag_weight : ndarray of shape (n_bags,) or None, default=None
        Multiplies them.

    Returns
    -------
    per_bag : ndarray of float64 of shape (n_bags,)
        The weight of one instance of each bag.
    """
    sizes = bags.sizes.astype(np.float64)
    if weighting == "bag":
        per_bag = bags.n_instances / (bags.n_bags * sizes)
    elif weighting == "inverse_size":
        per_bag = 1.0 / sizes
    else:
        per_bag = np.ones(bags.n_bags)
    return per_bag if bag_weight is None else per_bag * bag_weight


class InnerEstimatorMixin:
    """An `estimator` parameter, cloned and fitted inside (mixed in before the bag base class).

    A subclass sets ``_inner_kind`` ("classifier" or "regressor", for the
    messages) and a static ``_default_estimator()``, made at fit when
    ``estimator=None``.
    """

    _inner_kind = "classifier"
    #: Whether the default inner estimator takes NaN (None: as its tags say).
    _default_allows_nan = None

    @property
    def _allow_nan(self):
        # As scikit-learn's meta-estimators: NaN is accepted iff the inner estimator accepts it.
        if self.estimator is None and self._default_allows_nan is not None:
            return self._default_allows_nan
        return bool(get_tags(self._inner_template()).input_tags.allow_nan)

    def _inner_template(self):
        return self.estimator if self.estimator is not None else self._default_estimator()

    def set_params(self, **params):
        """Set the parameters; ``estimator__<name>`` needs an explicit inner estimator.

        With ``estimator=None`` the default inner estimator is made at
        ``fit``, so there is no object to pass nested parameters to: give
        the inner estimator explicitly (also in a grid:
        ``{"estimator": [DecisionTreeRegressor(max_depth=d) for d in ...]}``
        or ``GridSearchCV(SimpleMIRegressor(estimator=...),
        {"estimator__max_depth": ...})``).

        Parameters
        ----------
        **params : dict
            Parameter names and values, as scikit-learn's ``set_params``.

        Returns
        -------
        self : estimator
            This estimator.
        """
        nested = sorted(k for k in params if k.startswith("estimator__"))
        if nested and params.get("estimator", self.estimator) is None:
            example = "DecisionTreeRegressor" if self._inner_kind == "regressor" else "DecisionTreeClassifier"
            raise ValueError(
                f"{type(self).__name__}(estimator=None) makes its default inner {self._inner_kind} at fit, "
                f"so {nested[0]} has no estimator to go to; pass the inner estimator explicitly, e.g. "
                f"{type(self).__name__}(estimator={example}()) with "
                f"{{'{nested[0]}': [...]}}, or tune 'estimator' itself")
        return super().set_params(**params)

    def _require_weight_support(self):
        """Raise a ValueError when the inner estimator's ``fit`` takes no ``sample_weight``."""
        if not has_fit_parameter(self._inner_template(), "sample_weight"):
            raise ValueError(f"{type(self).__name__}: sample_weight was given but the inner "
                             f"estimator {type(self._inner_template()).__name__} does not accept it")
