"""Bag-KNN and Citation-KNN regressors: the mean target of a bag's neighbours.

Amar, Dooly, Goldman and Zhang (ICML 2001, "Multiple-instance learning of
real-valued data") predicted a bag's real-valued label as the mean label of
its Citation-KNN references and citers; Bag-KNN's is the mean of its k
nearest training bags. The neighbours come from the search the classifiers
use (:mod:`mil.neighbors._base`), so the metrics, the scaling, the searches
and their decisions are the classifiers'.
"""

from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from mil.base import BaseBagRegressor, keep_params
from mil.neighbors._alpha import select_alpha
from mil.neighbors._base import (BAG_DISTANCE_DOC, NEIGHBOUR_SEARCH_DOC, BagNeighborsMixin, CitersMixin,
                                 NearestBagsMixin)
from mil.utils._docstrings import fill_doc, register
from mil.utils.validation import bag_sample_weight, check_bag_targets

__all__ = ["BagKNNRegressor", "CitationKNNRegressor"]

REGRESSOR_METRIC = register("regressor metric", """    metric : {"minimal", "maximal", "average", "integrated", "precomputed"}, default="minimal"
        Bag distance (:mod:`mil.distances`); the adapted distance, which
        picks its form from positive and negative labels, has no meaning
        for real-valued targets. "integrated" chooses alpha by the
        leave-one-out error of kernel regression
        (:func:`~mil.neighbors.kernel_regression_loss`) when `alpha` is
        None. "precomputed": ``X`` is a matrix of bag distances (square in
        ``fit``; one column per training bag when predicting).
""")
REGRESSOR_WEIGHTS = register("regressor weights", """    weights : {"uniform", "distance"}, default="uniform"
        "uniform": each neighbour counts its bag weight (1 without
        ``sample_weight``). "distance": its bag weight divided by its
        distance to the query bag; when some neighbours are at distance 0,
        only they count (scikit-learn's
        :class:`~sklearn.neighbors.KNeighborsRegressor` rule).
""")
register("regressor search", REGRESSOR_WEIGHTS + REGRESSOR_METRIC + BAG_DISTANCE_DOC + NEIGHBOUR_SEARCH_DOC)
register("amar 2001", """    Amar, R. A., Dooly, D. R., Goldman, S. A. and Zhang, Q. (2001).
    Multiple-instance learning of real-valued data. In Proceedings of the
    18th International Conference on Machine Learning (ICML), 3-10.
""")


@fill_doc
class _BaseBagNeighborsRegressor(BagNeighborsMixin, BaseBagRegressor):
    """The neighbour regressors' mean over the shared search (not public)."""

    _parameter_constraints = {
        **BagNeighborsMixin._search_constraints,
        "metric": [StrOptions({"minimal", "maximal", "average", "integrated", "precomputed"})],
        "weights": [StrOptions({"uniform", "distance"})],
    }

    def _fit_targets(self, X, y, sample_weight):
        return self._validate_weighted_fit(X, y, sample_weight)

    def _precomputed_targets(self, y, n, sample_weight):
        y = check_bag_targets(y, n, estimator=type(self).__name__)
        return y, bag_sample_weight(sample_weight, y, n)

    def _store_targets(self, y):
        self.y_train_ = np.asarray(y, dtype=np.float64)

    def _select_alpha(self, dmin, dmax, sigma):
        return select_alpha(dmin, dmax, self.y_train_, sigma, method=self.alpha_search, task="regression")

    def _means(self, found):
        """The weighted mean target of each query bag's neighbours (references, then citers)."""
        m, near = found.m, found.near
        w = self.vote_weight_
        k = near.shape[1]
        rows = np.repeat(np.arange(m, dtype=np.intp), k)
        cols, dist = near.ravel(), found.near_distance.ravel()
        if found.cites is not None:
            rows = np.r_[rows, found.cites[0]]
            cols = np.r_[cols, found.cites[1]]
            dist = np.r_[dist, found.cites[2]]
        weight = np.ones(rows.shape[0]) if w is None else w[cols]
        if self.weights == "distance":
            at_zero = dist == 0
            exact = np.bincount(rows[at_zero], minlength=m) > 0
            with np.errstate(divide="ignore"):
                weight = np.where(exact[rows], np.where(at_zero, weight, 0.0), weight / dist)
        # Sums in the order of the pairs (references by rank, citers by training bag), so both
        # searches give the same means whatever the batch.
        total = np.bincount(rows, weights=weight, minlength=m)
        return np.bincount(rows, weights=weight * self.y_train_[cols], minlength=m) / total

    def predict(self, X):
        """Predict the target of each bag: the weighted mean target of its neighbours.

        [queries to predict]

        Returns
        -------
        y : ndarray of shape (n_bags,)
            The predicted targets.
        """
        parts = [self._means(found) for found in self._found_strips(X)]
        return np.concatenate(parts) if parts else np.zeros(0)


@fill_doc
class BagKNNRegressor(NearestBagsMixin, _BaseBagNeighborsRegressor):
    """The k-nearest-neighbour regressor on bags, with a Hausdorff bag distance.

    A bag's prediction is the mean target of its `n_neighbors` nearest
    training bags (weighted by their bag weights, and by inverse distance
    with ``weights="distance"``); ties at the k-th distance go to the
    lower training index, as in :class:`BagKNNClassifier`.

    Parameters
    ----------
    n_neighbors : int, default=3
        Number of nearest training bags averaged.
    [regressor search]

    [neighbour attributes]

    See Also
    --------
    CitationKNNRegressor : References and citers are averaged.
    BagKNNClassifier : The same neighbours vote for a class.

    References
    ----------
    [amar 2001]

    [toy examples]
    >>> reg = BagKNNRegressor(n_neighbors=3).fit(X[:30], y[:30])
    >>> reg.predict(X[30:]).shape
    (10,)
    """

    _parameter_constraints = {
        **_BaseBagNeighborsRegressor._parameter_constraints,
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, n_neighbors=3, *, weights="uniform", metric="minimal", sigma=1.0, alpha=None,
                 scale="standard", sigma_scale="absolute", alpha_search="golden", algorithm="auto",
                 ef_search=16, n_jobs=None):
        keep_params(self, locals())


@fill_doc
class CitationKNNRegressor(CitersMixin, _BaseBagNeighborsRegressor):
    """Citation-KNN for real-valued targets: the mean target of the references and citers.

    For a query bag Q, the references are its `references` nearest
    training bags; the citers are the training bags b for which Q is among
    their `citers` nearest neighbours (``d(b, Q) <=`` the `citers`-th
    smallest distance from b to another training bag), as in
    :class:`CitationKNNClassifier`. The prediction is the mean target of
    references and citers (a bag that is both counts twice), weighted by
    their bag weights and, with ``weights="distance"``, by inverse
    distance (Amar, Dooly, Goldman and Zhang 2001).

    Parameters
    ----------
    [citation parameters]
    [regressor search]

    [neighbour attributes]

    See Also
    --------
    BagKNNRegressor : Only the nearest bags are averaged.
    CitationKNNClassifier : The same references and citers vote for a class.

    References
    ----------
    [amar 2001]
    Wang, J. and Zucker, J.-D. (2000). Solving the multiple-instance
    problem: a lazy learning approach. In Proceedings of the 17th
    International Conference on Machine Learning (ICML), 1119-1125.

    [toy examples]
    >>> reg = CitationKNNRegressor(references=2, citers=4).fit(X[:30], y[:30])
    >>> reg.predict(X[30:]).shape
    (10,)
    """

    _parameter_constraints = {
        **_BaseBagNeighborsRegressor._parameter_constraints,
        "references": [Interval(Integral, 1, None, closed="left")],
        "citers": [Interval(Integral, 0, None, closed="left")],
    }

    def __init__(self, references=2, citers=4, *, weights="uniform", metric="minimal", sigma=1.0, alpha=None,
                 scale="standard", sigma_scale="absolute", alpha_search="golden", algorithm="auto",
                 ef_search=16, n_jobs=None):
        keep_params(self, locals())
