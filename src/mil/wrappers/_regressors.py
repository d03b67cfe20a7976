"""SimpleMI and MIWrapper for real-valued targets, around any scikit-learn regressor.

The regression forms of Frank and Xu's two propositional baselines:

- :class:`SimpleMIRegressor` summarises each bag by one row of per-feature
  statistics (more than the mean: its spread, extremes, quantiles or
  higher moments; :func:`~mil.wrappers.bag_statistics`) and fits the inner
  regressor on one row per bag;
- :class:`MIWrapperRegressor` gives every instance its bag's target and a
  weight inversely proportional to its bag's size, fits the inner regressor
  on the instances, and pools a bag's instance predictions (mean, median,
  maximum or minimum) into the bag's.
"""

import numpy as np
from sklearn.base import clone
from sklearn.linear_model import RidgeCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import HasMethods, StrOptions
from sklearn.utils.validation import check_is_fitted

from mil.bags import Bags
from mil.base import BaseBagRegressor, InstancePredictionMixin
from mil.utils._docstrings import fill_doc
from mil.wrappers._inner import InnerEstimatorMixin, fit_doc, weight_params
from mil.wrappers._summaries import bag_statistics, check_statistics

__all__ = ["SimpleMIRegressor", "MIWrapperRegressor", "default_ridge", "fit_weighted", "pool_by_bag"]

#: The ridge penalties the default inner regressor chooses among (leave-one-out, inside fit).
RIDGE_ALPHAS = tuple(np.logspace(-3, 4, 15))

#: How a bag's instance predictions pool into the bag's prediction.
POOLINGS = ("mean", "median", "max", "min")


def default_ridge():
    """Standardised features, then a ridge whose penalty is chosen by leave-one-out (``RidgeCV``).

    Returns
    -------
    estimator : Pipeline
        ``make_pipeline(StandardScaler(), RidgeCV(alphas=RIDGE_ALPHAS))``;
        deterministic, fast, and sound from a few dozen bags up.
    """
    return make_pipeline(StandardScaler(), RidgeCV(alphas=RIDGE_ALPHAS))


def fit_weighted(est, Z, y, weight, owner):
    """Fit `est` on rows `Z` and targets `y`, with `weight` unless it is None.

    A Pipeline gets the weights at every step whose ``fit`` takes them
    (its last step must). A bag regressor of mil gets each row of `Z` as a
    bag of one instance.

    Parameters
    ----------
    est : regressor
        An unfitted clone.
    Z : ndarray of shape (n_rows, n_columns)
    y : ndarray of shape (n_rows,)
    weight : ndarray of shape (n_rows,) or None
    owner : estimator
        Named in the error when `est` takes no weights.

    Returns
    -------
    est : regressor
        Fitted.
    """
    Z = _inner_input(Z, est)
    if weight is None:
        return est.fit(Z, y)
    params = weight_params(est, weight)
    if params is None:
        raise ValueError(f"{type(owner).__name__}: sample_weight was given but the inner estimator "
                         f"{type(est).__name__} does not accept it")
    return est.fit(Z, y, **params)


def _inner_input(Z, est):
    """`Z` as the inner estimator takes it: one-instance bags for a mil bag regressor."""
    if isinstance(est, BaseBagRegressor):
        Z = np.ascontiguousarray(Z, dtype=np.float64)
        return Bags._trusted(Z, np.arange(Z.shape[0] + 1, dtype=np.intp))
    return Z


def _inner_predict(est, Z):
    return np.asarray(est.predict(_inner_input(Z, est)), dtype=np.float64).reshape(-1)


def pool_by_bag(values, offsets, pooling):
    """Pool per-instance values (bag after bag) into one value per bag.

    Parameters
    ----------
    values : ndarray of shape (n_instances,)
    offsets : ndarray of intp of shape (n_bags + 1,)
    pooling : {"mean", "median", "max", "min"}

    Returns
    -------
    pooled : ndarray of float64 of shape (n_bags,)

    Examples
    --------
    >>> import numpy as np
    >>> from mil.wrappers import pool_by_bag
    >>> pool_by_bag(np.array([1.0, 3.0, 2.0]), np.array([0, 2, 3]), "max").tolist()
    [3.0, 2.0]
    """
    values = np.asarray(values, dtype=np.float64)
    starts, sizes = offsets[:-1], np.diff(offsets)
    if pooling == "mean":
        return np.add.reduceat(values, starts) / sizes
    if pooling == "max":
        return np.maximum.reduceat(values, starts)
    if pooling == "min":
        return np.minimum.reduceat(values, starts)
    if pooling == "median":
        bag = np.repeat(np.arange(sizes.shape[0]), sizes)
        ordered = values[np.lexsort((values, bag))]
        lo = offsets[:-1] + (sizes - 1) // 2
        hi = offsets[:-1] + sizes // 2
        return (ordered[lo] + ordered[hi]) / 2.0
    raise ValueError(f"unknown pooling {pooling!r}; expected one of {POOLINGS}")


@fill_doc(fit_parameters=fit_doc(
    y="One real-valued target per bag.",
    sample_weight="Bag weights, passed to the inner estimator (which must accept\n"
                  "them). A bag of weight 0 is left out."))
class SimpleMIRegressor(InnerEstimatorMixin, BaseBagRegressor):
    """A regressor on one row of per-feature statistics per bag (SimpleMI for real-valued targets).

    Each bag becomes one row: for every statistic of `summary`, one column
    per feature (:func:`~mil.wrappers.bag_statistics`). `estimator` is
    fitted on those rows with the bag targets and predicts a bag from its
    row (Frank and Xu 2003, SimpleMI, with more statistics than the mean:
    a bag's mean is blind to its spread, and the target of a bag often
    lives in its spread, its tails or a count rather than in its centre).

    Parameters
    ----------
    estimator : scikit-learn regressor or mil bag regressor, default=None
        Cloned and fitted on the rows. None is
        ``make_pipeline(StandardScaler(), RidgeCV(alphas=np.logspace(-3, 4,
        15)))``: a ridge on standardised statistics whose penalty is chosen
        by leave-one-out inside ``fit`` (:func:`~mil.wrappers.default_ridge`).
        A Pipeline gets ``sample_weight`` at every step whose ``fit`` takes
        it; a bag regressor of mil gets every row as a bag of one instance.
    summary : str, float or tuple of str and float, default=("mean", "std", "skewness", "kurtosis")
        The statistics, in the order of the columns: ``"mean"``, ``"std"``,
        ``"min"``, ``"max"``, ``"midrange"``, ``"skewness"``,
        ``"kurtosis"``, ``"sum"`` (one column per feature each), ``"size"``
        (one column), or a float q in [0, 1] for the q-quantile (0.5: the
        median). NaN values are ignored where the inner estimator accepts
        NaN. The default's four moments describe a bag's location, spread
        and shape whatever its size (a bag's minimum and maximum drift
        with its size); add ``"min"`` and ``"max"`` where one extreme
        instance carries the target, ``"sum"`` or ``"size"`` for counts.

    Attributes
    ----------
    estimator_ : regressor
        The fitted inner estimator.
    n_features_in_ : int
        Features per instance (the inner estimator sees one column per
        feature and statistic).
    [feature names attribute]

    See Also
    --------
    MIWrapperRegressor : The inner regressor on the instances instead.
    mil.wrappers.SimpleMIClassifier : The same for class labels.

    [frank2003]

    [rng examples]
    >>> spread = rng.uniform(0.5, 2.0, size=60)
    >>> X = [rng.normal(scale=s, size=(30, 2)) for s in spread]
    >>> reg = SimpleMIRegressor(summary=("mean", "std")).fit(X[:40], spread[:40])
    >>> bool(reg.score(X[40:], spread[40:]) > 0.8)
    True
    """

    _inner_kind = "regressor"
    _default_allows_nan = False
    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "summary": "no_validation",  # check_statistics names the problem
    }

    @staticmethod
    def _default_estimator():
        return default_ridge()

    def __init__(self, estimator=None, summary=("mean", "std", "skewness", "kurtosis")):
        self.estimator = estimator
        self.summary = summary

    def _accepts_float32(self):
        return True  # the statistics read float32 instances chunk by chunk, in float64

    def fit(self, X, y, sample_weight=None):
        """Fit the inner regressor on the bags' statistics.

        [fit parameters]
        """
        statistics = check_statistics(self.summary)
        bags, y, weight = self._validate_weighted_fit(X, y, sample_weight)
        self.estimator_ = fit_weighted(clone(self._inner_template()), bag_statistics(bags, statistics), y,
                                       weight, self)
        return self

    def predict(self, X):
        """Predict each bag's target from its statistics.

        [fitted bags]

        Returns
        -------
        y : ndarray of float64 of shape (n_bags,)
            The inner estimator's prediction for each bag.
        """
        bags = self._validate_predict(X)
        return _inner_predict(self.estimator_, bag_statistics(bags, check_statistics(self.summary)))


@fill_doc
class PooledPredictionMixin:
    """``predict``: each bag's pooled instance predictions.

    For a regressor with a fitted ``estimator_``, ``_predict_instances(bags)``
    (one prediction per instance of validated bags) and a `pooling`
    parameter (:func:`pool_by_bag`).
    """

    def predict(self, X):
        """Predict each bag's target by pooling its instances' predictions (see `pooling`).

        [fitted bags]

        Returns
        -------
        y : ndarray of float64 of shape (n_bags,)
            The pooled prediction of each bag.
        """
        check_is_fitted(self, "estimator_")
        bags = self._validate_predict(X)
        return pool_by_bag(self._predict_instances(bags), bags.offsets, self.pooling)


@fill_doc(fit_parameters=fit_doc(
    y="One real-valued target per bag.",
    sample_weight="Bag weights; they multiply the instance weights of `weighting`.\nA bag of weight 0 is left out."))
class MIWrapperRegressor(PooledPredictionMixin, InstancePredictionMixin, InnerEstimatorMixin, BaseBagRegressor):
    """A regressor on the instances, the bag's prediction pooled from its instances' (MIWrapper).

    Every instance takes its bag's target and a weight inversely
    proportional to its bag's size, so that every bag weighs the same;
    `estimator` is fitted on the instances. A bag's prediction pools its
    instances' predictions (Frank and Xu 2003, MIWrapper; the "instance
    MIR" baseline of Ray and Craven 2005). Suited to bags whose instances
    all carry the target (noisy copies of one measurement); where one
    instance carries it and the others are noise, see
    :class:`~mil.wrappers.PrimaryInstanceRegressor`.

    Parameters
    ----------
    estimator : scikit-learn regressor or mil bag regressor, default=None
        Cloned and fitted on the instances. None is
        :func:`~mil.wrappers.default_ridge`, a ridge on standardised
        features tuned by leave-one-out. A Pipeline gets the instance
        weights at every step whose ``fit`` takes them.
    pooling : {"mean", "median", "max", "min"}, default="mean"
        How a bag's prediction pools its instances' predictions.
    weighting : {"bag", "inverse_size", "uniform"}, default="bag"
        Instance weights (Weka's MIWrapper ``-A``): ``"bag"`` gives the
        instances of a bag of n_b instances N / (B n_b), N instances and B
        bags in all, so every bag weighs the average bag size and the
        weights sum to N (Weka's default); ``"inverse_size"`` gives 1 / n_b
        (every bag weighs 1); ``"uniform"`` gives 1 (large bags weigh
        more). Bag weights passed to :meth:`fit` multiply them. An inner
        estimator that takes no weights is fitted unweighted, with a
        warning (an error when bag weights are given).

    Attributes
    ----------
    estimator_ : regressor
        The fitted instance-level regressor.
    n_features_in_ : int
        Features per instance.
    [feature names attribute]

    See Also
    --------
    SimpleMIRegressor : The inner regressor on one row of statistics per bag.
    PrimaryInstanceRegressor : The inner regressor on one chosen instance per bag.
    mil.wrappers.MIWrapperClassifier : The same for class labels.

    [frank2003]

    S. Ray and M. Craven. Supervised versus multiple instance learning: an
    empirical comparison. ICML 2005.

    [rng examples]
    >>> y = rng.uniform(-1, 1, size=40)
    >>> X = [np.c_[t + 0.1 * rng.normal(size=(5, 1)), rng.normal(size=(5, 1))] for t in y]
    >>> reg = MIWrapperRegressor().fit(X, y)
    >>> reg.predict_instances(X[:1]).shape
    (5,)
    """

    _inner_kind = "regressor"
    _default_allows_nan = False
    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "pooling": [StrOptions(set(POOLINGS))],
        "weighting": [StrOptions({"bag", "inverse_size", "uniform"})],
    }

    @staticmethod
    def _default_estimator():
        return default_ridge()

    def __init__(self, estimator=None, pooling="mean", weighting="bag"):
        self.estimator = estimator
        self.pooling = pooling
        self.weighting = weighting

    def fit(self, X, y, sample_weight=None):
        """Fit the inner regressor on the instances, each with its bag's target.

        [fit parameters]
        """
        bags, y, bag_weight = self._validate_weighted_fit(X, y, sample_weight)
        self.estimator_ = fit_weighted(clone(self._inner_template()), bags.instances, y[bags.instance_bag],
                                       self._instance_weights(bags, bag_weight), self)
        return self

    def _predict_instances(self, bags):
        return _inner_predict(self.estimator_, bags.instances)

