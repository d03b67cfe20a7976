"""Bag-KNN and Citation-KNN over Hausdorff bag distances."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from mil.base import BaseBagClassifier
from mil.distances import KINDS, _all_from_bags, adapted_from, integrated_from
from mil.neighbors._alpha import select_alpha
from mil.preprocessing import _scaling
from mil.bags import Bags
from mil.utils.validation import check_bag_labels

__all__ = ["BagKNNClassifier", "CitationKNNClassifier"]


class _BagNeighbors(BaseBagClassifier):
    """Shared machinery: scaling, distances, alpha, voting helpers (not public)."""

    _binary_only = False

    _parameter_constraints = {
        "metric": [StrOptions(set(KINDS) | {"precomputed"})],
        "sigma": [Interval(Real, 0, None, closed="neither")],
        "alpha": [Interval(Real, 0, 1, closed="both"), None],
        "scale": [StrOptions({"standard", "minmax"}), None],
        "sigma_scale": [StrOptions({"absolute", "median"})],
        "alpha_search": [StrOptions({"golden", "grid-golden"})],
        "n_jobs": [Integral, None],
    }

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if self.metric == "precomputed":
            # GridSearchCV / cross_val_score then slice rows and columns.
            tags.input_tags.pairwise = True
            tags.input_tags.two_d_array = True
            tags.input_tags.three_d_array = False
        return tags

    # -- fitting ----------------------------------------------------------------
    def fit(self, X, y):
        """Fit on training bags (or a precomputed bag distance matrix).

        Parameters
        ----------
        X : sequence of 2-D arrays, Bags, or ndarray of shape (n_bags, n_bags)
            Training bags; with ``metric="precomputed"`` the square matrix of
            distances between the training bags.
        y : array-like of shape (n_bags,)

        Returns
        -------
        self
        """
        if self.metric == "precomputed":
            self._validate_params()
            D = self._check_precomputed(X, None)
            self.classes_, y_enc = check_bag_labels(y, D.shape[0], estimator=type(self).__name__)
            self.n_train_ = D.shape[0]
            self._fit_matrix(D, y_enc)
            return self
        bags, y_enc = self._validate_fit(X, y)
        if self.scale is not None:
            self.offset_, self.scale_ = _scaling(bags.instances, self.scale)
            bags = Bags._trusted((bags.instances - self.offset_) / self.scale_, bags.offsets)
        self.train_bags_ = bags
        self._fit_distances(_all_from_bags(bags, None, n_jobs=self.n_jobs), y_enc)
        return self

    def _fit_distances(self, mats, y_enc, alpha_cache=None):
        """Fit from the train-vs-train minimal/maximal/average matrices (used by nested_cv)."""
        self.y_train_ = np.asarray(y_enc, dtype=np.intp)
        if self.metric == "adapted" and len(self.classes_) != 2:
            raise ValueError(f"metric='adapted' needs two classes (it picks the distance form from "
                             f"positive/negative labels); y has {len(self.classes_)}")
        if self.metric == "integrated":
            key = (self.sigma, self.sigma_scale, self.alpha_search)
            if self.alpha is not None:
                self.alpha_ = float(self.alpha)
            elif alpha_cache is not None and key in alpha_cache:
                self.alpha_ = alpha_cache[key]
            else:
                sigma = self.sigma
                if self.sigma_scale == "median":
                    # Bandwidth relative to the typical training distance (at alpha = 1/2).
                    off = ~np.eye(self.y_train_.shape[0], dtype=bool)
                    typical = np.median(0.5 * (mats["minimal"][off] + mats["maximal"][off])) if off.any() else 0.0
                    sigma = sigma * (typical if typical > 0 else 1.0)
                self.alpha_ = select_alpha(mats["minimal"], mats["maximal"], self.y_train_, sigma,
                                           method=self.alpha_search)
                if alpha_cache is not None:
                    alpha_cache[key] = self.alpha_
        self._fit_matrix(self._compose(mats, self.y_train_), self.y_train_)
        return self

    def _compose(self, mats, y_rows=None):
        """The metric's matrix from the base ones; `y_rows` None means unknown labels (test bags)."""
        if self.metric == "adapted":
            if y_rows is None:
                return mats["average"]  # a test bag's label is unknown: the average form
            return adapted_from(mats, y_rows == 1, self.y_train_ == 1)
        if self.metric == "integrated":
            return integrated_from(mats, self.alpha_)
        return mats[self.metric]

    # -- prediction ------------------------------------------------------------
    def _check_precomputed(self, X, n_cols):
        D = np.asarray(X, dtype=np.float64)
        if D.ndim != 2:
            raise ValueError(f"with metric='precomputed', X must be a 2-D distance matrix; got {D.ndim}-D")
        if n_cols is None and D.shape[0] != D.shape[1]:
            raise ValueError(f"with metric='precomputed', fit needs a square matrix of distances "
                             f"between the training bags; got shape {D.shape}")
        if n_cols is not None and D.shape[1] != n_cols:
            raise ValueError(f"with metric='precomputed', X must have one column per training bag "
                             f"({n_cols}); got shape {D.shape}")
        if not np.isfinite(D).all() or (D < 0).any():
            raise ValueError("precomputed distances must be finite and non-negative")
        return D

    def _test_matrix(self, X):
        if self.metric == "precomputed":
            check_is_fitted(self, "classes_")
            return self._check_precomputed(X, self.n_train_)
        bags = self._validate_predict(X)
        if self.scale is not None:
            bags = Bags._trusted((bags.instances - self.offset_) / self.scale_, bags.offsets)
        return self._compose(_all_from_bags(bags, self.train_bags_, n_jobs=self.n_jobs))

    def _nearest(self, D, k):
        """Indices of the k nearest training bags of each row (ties: lower index first)."""
        return np.argsort(D, axis=1, kind="stable")[:, :min(k, D.shape[1])]

    def _decide(self, votes, ref_classes, binary_rule):
        """Class index per row: binary rule (ties negative) or plurality with nearest tie-break."""
        if binary_rule and votes.shape[1] == 2:
            return (votes[:, 1] > votes[:, 0]).astype(np.intp)
        best = votes.max(axis=1, keepdims=True)
        tied = votes == best
        pred = np.argmax(tied, axis=1)  # lowest tied class when no reference settles it
        multi = np.flatnonzero(tied.sum(axis=1) > 1)
        for q in multi:
            for c in ref_classes[q]:
                if tied[q, c]:
                    pred[q] = c
                    break
        return pred

    def predict_proba(self, X):
        """Vote shares of each class.

        Parameters
        ----------
        X : sequence of 2-D arrays, Bags, or ndarray (n_bags, n_train) with
            ``metric="precomputed"``

        Returns
        -------
        proba : ndarray of shape (n_bags, n_classes)
            Columns follow ``classes_``.
        """
        votes, _ = self._votes(self._test_matrix(X))
        return votes / votes.sum(axis=1, keepdims=True)

    def predict(self, X):
        """Predict the label of each bag (voting and ties as in the class description).

        Returns
        -------
        y : ndarray of shape (n_bags,)
        """
        D = self._test_matrix(X)
        return self.classes_[self._predict_matrix(D)]

    def _predict_matrix(self, D):
        votes, ref_classes = self._votes(D)
        return self._decide(votes, ref_classes, self._binary_rule)

    def _predict_distances(self, mats):
        """Class indices from test-vs-train base matrices (used by nested_cv)."""
        return self._predict_matrix(self._compose(mats))


class BagKNNClassifier(_BagNeighbors):
    """k-nearest-neighbour classifier on bags with a Hausdorff bag distance.

    The `n_neighbors` nearest training bags vote; a tie goes to the class
    of the nearest bag among the tied classes (see
    :doc:`/user_guide/labels_and_ties`).

    Parameters
    ----------
    n_neighbors : int, default=3
    metric : {"minimal", "maximal", "average", "adapted", "integrated", "precomputed"}, default="minimal"
        Bag distance (:mod:`mil.distances`). "adapted" needs two classes;
        test bags (label unknown) are compared with the average form.
    sigma : float, default=1.0
        Bandwidth of the NCA objective that chooses alpha for
        ``metric="integrated"``.
    alpha : float in [0, 1] or None, default=None
        Weight of the minimal distance in the integrated distance; None
        selects it on the training bags (``alpha_``).
    scale : {"standard", "minmax"} or None, default="standard"
        Feature scaling fitted on the training instances and applied to
        every bag before distances (see :doc:`/results/distances` for the
        measurements).
    sigma_scale : {"absolute", "median"}, default="absolute"
        "median": the NCA bandwidth is ``sigma`` times the median distance
        between training bags (at alpha = 1/2), so one sigma grid suits
        data of any scale.
    alpha_search : {"golden", "grid-golden"}, default="golden"
        How alpha maximises the NCA objective (:func:`select_alpha`).
    n_jobs : int, default=None
        Threads for the distance matrices.

    Attributes
    ----------
    classes_ : ndarray
    alpha_ : float
        Only with ``metric="integrated"``.
    n_features_in_ : int

    Examples
    --------
    >>> from mil.neighbors import BagKNNClassifier
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=40, random_state=0)
    >>> clf = BagKNNClassifier(n_neighbors=3).fit(X[:30], y[:30])
    >>> clf.predict(X[30:]).shape
    (10,)
    """

    _binary_rule = False
    _parameter_constraints = {
        **_BagNeighbors._parameter_constraints,
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, n_neighbors=3, *, metric="minimal", sigma=1.0, alpha=None,
                 scale="standard", sigma_scale="absolute", alpha_search="golden", n_jobs=None):
        self.n_neighbors = n_neighbors
        self.metric = metric
        self.sigma = sigma
        self.alpha = alpha
        self.scale = scale
        self.sigma_scale = sigma_scale
        self.alpha_search = alpha_search
        self.n_jobs = n_jobs

    def _fit_matrix(self, D, y_enc):
        self.y_train_ = np.asarray(y_enc, dtype=np.intp)

    def _votes(self, D):
        near = self._nearest(D, self.n_neighbors)
        ref_classes = self.y_train_[near]
        K = len(self.classes_)
        votes = np.zeros((D.shape[0], K))
        for c in range(K):
            votes[:, c] = (ref_classes == c).sum(axis=1)
        return votes, ref_classes


class CitationKNNClassifier(_BagNeighbors):
    """Citation-KNN (Wang & Zucker 2000) with a Hausdorff bag distance.

    For a query bag Q, the references are its `references` nearest
    training bags; the citers are the training bags b for which Q is among
    their `citers` nearest neighbours (``d(b, Q) <=`` the `citers`-th
    smallest distance from b to another training bag). References and
    citers vote (a bag that is both votes twice). Two classes: positive iff
    positive votes > negative votes (ties negative; the positive class is
    ``classes_[1]``). More classes: plurality, ties to the class of the
    nearest reference among the tied classes (see :doc:`/user_guide/labels_and_ties`).

    Parameters
    ----------
    references : int, default=2
    citers : int, default=4
        0 disables citers.
    metric : {"minimal", "maximal", "average", "adapted", "integrated", "precomputed"}, default="minimal"
    sigma : float, default=1.0
        Bandwidth of the NCA objective choosing alpha (``metric="integrated"``).
    alpha : float in [0, 1] or None, default=None
        None selects alpha on the training bags (``alpha_``).
    scale : {"standard", "minmax"} or None, default="standard"
    sigma_scale : {"absolute", "median"}, default="absolute"
    alpha_search : {"golden", "grid-golden"}, default="golden"
        See :class:`BagKNNClassifier`.
    n_jobs : int, default=None

    Attributes
    ----------
    classes_ : ndarray
    alpha_ : float
        Only with ``metric="integrated"``.
    citer_threshold_ : ndarray of shape (n_train,)
        The `citers`-th smallest distance from each training bag to another.
    n_features_in_ : int

    Examples
    --------
    >>> from mil.neighbors import CitationKNNClassifier
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=40, random_state=0)
    >>> clf = CitationKNNClassifier(references=3, citers=5).fit(X[:30], y[:30])
    >>> clf.predict_proba(X[30:]).shape
    (10, 2)
    """

    _binary_rule = True
    _parameter_constraints = {
        **_BagNeighbors._parameter_constraints,
        "references": [Interval(Integral, 1, None, closed="left")],
        "citers": [Interval(Integral, 0, None, closed="left")],
    }

    def __init__(self, references=2, citers=4, *, metric="minimal", sigma=1.0, alpha=None,
                 scale="standard", sigma_scale="absolute", alpha_search="golden", n_jobs=None):
        self.references = references
        self.citers = citers
        self.metric = metric
        self.sigma = sigma
        self.alpha = alpha
        self.scale = scale
        self.sigma_scale = sigma_scale
        self.alpha_search = alpha_search
        self.n_jobs = n_jobs

    def _fit_matrix(self, D, y_enc):
        self.y_train_ = np.asarray(y_enc, dtype=np.intp)
        n = D.shape[0]
        C = min(self.citers, n - 1)
        if self.citers == 0:
            thr = np.full(n, -np.inf)
        elif C == 0:
            thr = np.full(n, np.inf)  # no other training bag: Q is always among the nearest
        else:
            others = D.copy()
            np.fill_diagonal(others, np.inf)
            thr = np.partition(others, C - 1, axis=1)[:, C - 1]
        self.citer_threshold_ = thr

    def _votes(self, D):
        near = self._nearest(D, self.references)
        ref_classes = self.y_train_[near]
        K = len(self.classes_)
        cites = D <= self.citer_threshold_[None, :]
        onehot = np.zeros((self.y_train_.shape[0], K))
        onehot[np.arange(self.y_train_.shape[0]), self.y_train_] = 1.0
        votes = cites.astype(np.float64) @ onehot
        for c in range(K):
            votes[:, c] += (ref_classes == c).sum(axis=1)
        return votes, ref_classes
