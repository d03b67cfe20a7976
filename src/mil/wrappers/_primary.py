"""Primary-instance regression: one instance of each bag carries its target.

Ray and Page (ICML 2001) assume that each bag's real-valued target is a
function of one unknown instance of the bag, its primary instance, plus
noise; the other instances are distractors. The learner alternates, as EM
does: given the instance model, pick each bag's best-fitting instance (the
one whose prediction is nearest the bag's target); given the choice, refit
the model on the chosen instances. Chauhan et al. (UAI 2024) analyse the
problem and measure this "PIR" baseline beside their weighted assignment;
``assignment="soft"`` here is the soft-assignment form of the same
alternation (every instance weighted by its posterior probability of being
the primary under Gaussian noise).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions

from mil.base import BaseBagRegressor, InstancePredictionMixin, keep_params
from mil.utils._docstrings import fill_doc
from mil.utils.validation import bag_sample_weight
from mil.wrappers._inner import InnerEstimatorMixin, bag_instance_weights, fit_doc, seed_unset
from mil.wrappers._regressors import POOLINGS, PooledPredictionMixin, default_ridge, fit_weighted

__all__ = ["PrimaryInstanceRegressor"]


def _bag_argmin(values, offsets):
    """Position, within each bag, of its smallest value (the first at ties)."""
    sizes = np.diff(offsets)
    bag = np.repeat(np.arange(sizes.shape[0]), sizes)
    order = np.lexsort((np.arange(values.shape[0]), values, bag))
    return order[offsets[:-1]] - offsets[:-1]


def _random_instances(bags, rng):
    """One instance per bag drawn uniformly, by its rank in the bag's rows sorted by value.

    Ranking the rows first makes the draw, and so the fit, independent of
    the order of the instances in a bag. Returns positions in the bags.
    """
    X, offsets = bags.instances, bags.offsets
    order = np.lexsort(tuple(X[:, j] for j in range(X.shape[1] - 1, -1, -1)) + (bags.instance_bag,))
    rank = (rng.random_sample(bags.n_bags) * bags.sizes).astype(np.intp)
    return order[offsets[:-1] + rank] - offsets[:-1]


def _bag_softmin(values, offsets, scale):
    """Per bag, softmax of -values / scale over the bag's instances (sums to 1 in every bag)."""
    starts = offsets[:-1]
    sizes = np.diff(offsets)
    low = np.minimum.reduceat(values, starts)
    p = np.exp(-(values - np.repeat(low, sizes)) / scale)
    return p / np.repeat(np.add.reduceat(p, starts), sizes)


@fill_doc(fit_parameters=fit_doc(y="One real-valued target per bag.",
                                 sample_weight="Bag weights. A bag of weight 0 is left out."))
class PrimaryInstanceRegressor(PooledPredictionMixin, InstancePredictionMixin, InnerEstimatorMixin, BaseBagRegressor):
    """Primary-instance regression: an instance regressor fitted on each bag's best-fitting instance.

    Each bag's target is taken to be a function of one of its instances,
    the primary, plus noise (Ray and Page 2001). Starting from `estimator`
    fitted on every instance with its bag's target (each bag weighing the
    same, as :class:`MIWrapperRegressor`), the fit alternates:

    1. every bag's primary is its instance whose prediction is nearest the
       bag's target (the first at ties);
    2. `estimator` is refitted on the primaries, one per bag, with the bag
       weights;

    until at most a share `tol` of the primaries change, or `max_iter`
    refits. With
    ``assignment="soft"`` step 1 weighs every instance of a bag by
    exp(-r^2 / (2 s^2)), normalised over the bag (r the instance's residual,
    s^2 the mean squared residual of the bags' best instances), and step 2
    refits on every instance with those weights, until the weights move by
    less than `tol`.

    Parameters
    ----------
    estimator : scikit-learn regressor or mil bag regressor, default=None
        The instance model, cloned and refitted at each step. None is
        :func:`~mil.wrappers.default_ridge` (a ridge on standardised
        features tuned by leave-one-out): a linear instance function. Give
        the model the instance function needs (for a quadratic one,
        ``make_pipeline(PolynomialFeatures(2, include_bias=False), StandardScaler(),
        RidgeCV())``). Its ``fit`` must take ``sample_weight`` (a Pipeline's
        last step must). Any ``random_state`` of it left at None is drawn
        from `random_state`.
    assignment : {"hard", "soft"}, default="hard"
        One primary per bag (Ray and Page), or every instance weighted by
        its probability of being the primary.
    init : {"instances", "random"}, default="instances"
        The first model: fitted on every instance with its bag's target,
        or on one instance per bag drawn at random (by rank in the bag's
        sorted rows, so that the order of the instances does not matter).
    pooling : {"mean", "median", "max", "min"}, default="mean"
        How ``predict`` pools a bag's instance predictions: which instance
        is primary is unknown for a new bag, and the mean is the
        squared-error-optimal guess when each is equally likely.
    max_iter : int, default=20
        Most refits after the first model.
    tol : float, default=1e-3
        The alternation stops when at most this share of the bags change
        their primary (``"hard"``; 0: none) or no instance weight moves by
        more (``"soft"``).
    random_state : int, RandomState instance or None, default=None
        Seeds ``init="random"`` and the inner estimator's ``random_state``.

    Attributes
    ----------
    estimator_ : regressor
        The fitted instance model.
    primary_ : ndarray of intp of shape (n_bags,)
        For each training bag, the position in the bag of its primary
        instance (the largest weight with ``assignment="soft"``); -1 for a
        bag of weight 0.
    n_iter_ : int
        Refits done after the first model.
    n_features_in_ : int
        Features per instance.
    [feature names attribute]

    See Also
    --------
    MIWrapperRegressor : Every instance carries its bag's target (the first model here).
    SimpleMIRegressor : The target in a bag's statistics.

    References
    ----------
    S. Ray and D. Page. Multiple instance regression. ICML 2001.

    K. Chauhan, R. Saket, L. Applebaum, A. Badanidiyuru, C. Giri and
    A. Raghuveer. Generalization and learnability in multiple instance
    regression. UAI 2024 (PMLR 244).

    [rng examples]
    >>> X = [rng.normal(size=(4, 2)) for _ in range(100)]
    >>> primary = rng.integers(4, size=100)
    >>> y = np.array([3 * bag[p, 0] for bag, p in zip(X, primary)])
    >>> reg = PrimaryInstanceRegressor().fit(X, y)
    >>> float((reg.primary_ == primary).mean())
    1.0
    """

    _inner_kind = "regressor"
    _default_allows_nan = False
    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "assignment": [StrOptions({"hard", "soft"})],
        "init": [StrOptions({"instances", "random"})],
        "pooling": [StrOptions(set(POOLINGS))],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    @staticmethod
    def _default_estimator():
        return default_ridge()

    def __init__(self, estimator=None, *, assignment="hard", init="instances", pooling="mean", max_iter=20,
                 tol=1e-3, random_state=None):
        keep_params(self, locals())

    def _refit(self, template, Z, y, weight):
        return fit_weighted(clone(template), Z, y, weight, self)

    def fit(self, X, y, sample_weight=None):
        """Alternate between choosing each bag's primary instance and refitting the instance model.

        [fit parameters]
        """
        bags, y = self._validate_fit(X, y)
        weight = bag_sample_weight(sample_weight, y, bags.n_bags)
        keep = np.ones(bags.n_bags, dtype=bool) if weight is None else weight > 0
        bags, y, weight = self._drop_zero_weight(bags, y, weight)
        rng = check_random_state(self.random_state)
        template = seed_unset(clone(self._inner_template()), rng)
        offsets, owner = bags.offsets, bags.instance_bag
        bag_weight = np.ones(bags.n_bags) if weight is None else weight
        if self.init == "instances":
            per_instance = bag_instance_weights(bags, "inverse_size", bag_weight)[owner]
            est = self._refit(template, bags.instances, y[owner], per_instance)
        else:
            primary = _random_instances(bags, rng)
            est = self._refit(template, bags.instances[offsets[:-1] + primary], y, weight)
        primary, soft = None, None
        self.n_iter_ = 0
        for _ in range(self.max_iter):
            residual = (np.asarray(est.predict(bags.instances), dtype=np.float64).reshape(-1) - y[owner]) ** 2
            if self.assignment == "hard":
                chosen = _bag_argmin(residual, offsets)
                if primary is not None and np.mean(chosen != primary) <= self.tol:
                    break
                primary = chosen
                est = self._refit(template, bags.instances[offsets[:-1] + primary], y, weight)
            else:
                best = np.minimum.reduceat(residual, offsets[:-1])
                scale = 2.0 * max(np.average(best, weights=bag_weight), np.finfo(np.float64).tiny)
                q = _bag_softmin(residual, offsets, scale)
                if soft is not None and np.max(np.abs(q - soft)) <= self.tol:
                    break
                soft = q
                est = self._refit(template, bags.instances, y[owner], q * bag_weight[owner])
            self.n_iter_ += 1
        if self.assignment == "soft" and soft is not None:
            primary = _bag_argmin(-soft, offsets)
        elif primary is None:  # max_iter=0: the first model's choice
            residual = (np.asarray(est.predict(bags.instances), dtype=np.float64).reshape(-1) - y[owner]) ** 2
            primary = _bag_argmin(residual, offsets)
        self.estimator_ = est
        self.primary_ = np.full(keep.shape[0], -1, dtype=np.intp)
        self.primary_[keep] = primary
        return self

    def _predict_instances(self, bags):
        return np.asarray(self.estimator_.predict(bags.instances), dtype=np.float64).reshape(-1)

