"""Bag-KNN and Citation-KNN over Hausdorff bag distances.

Decisions that compare distances (neighbour ranking, Citation-KNN's citer
test ``d(b, Q) <= threshold``) treat two distances within a relative
``DISTANCE_RTOL`` of each other as equal. Distances reach the last bits
through different sums on the two backends and in different row blocks,
so exact comparisons broke true ties (duplicate bags, a training bag
predicted again) differently from one call to the next; with the
tolerance, a bag's votes do not depend on the other bags of the call or on
the backend. The kernels' relative error is about 1e-12 (see
:mod:`mil.distances`), far below the tolerance; distinct distances closer
than 1e-9 relative are treated as tied.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from mil.base import BaseBagClassifier
from mil.distances import KINDS, _all_from_bags, adapted_from, integrated_from
from mil.neighbors._alpha import select_alpha
from mil.preprocessing import _apply_scaling, _scaling
from mil.utils.validation import check_bag_labels

__all__ = ["BagKNNClassifier", "CitationKNNClassifier", "DISTANCE_RTOL"]

#: Relative tolerance under which two bag distances count as equal in a decision.
DISTANCE_RTOL = 1e-9
#: The extra weight the tie rule's class gets when the vote is tied (less than one vote).
_TIE_VOTE = 0.5


def _rank(D, k):
    """Column indices of the k nearest per row: by distance, ties (within DISTANCE_RTOL) by index.

    Sorted distances closer than DISTANCE_RTOL (relative) to their
    predecessor join its group; groups are ordered by distance and bags
    within a group by index, so near-equal distances rank the same way
    whatever their last bits.
    """
    k = min(k, D.shape[1])
    order = np.argsort(D, axis=1, kind="stable")
    s = np.take_along_axis(D, order, axis=1)
    new_group = s[:, 1:] > s[:, :-1] * (1.0 + DISTANCE_RTOL)
    group = np.zeros(D.shape, dtype=np.intp)
    np.cumsum(new_group, axis=1, out=group[:, 1:])
    key = group * D.shape[1] + order
    return np.take_along_axis(order, np.argsort(key, axis=1, kind="stable")[:, :k], axis=1)


class _BagNeighbors(BaseBagClassifier):
    """Shared machinery: scaling, distances, alpha, voting helpers (not public)."""

    _binary_only = False
    _accept_sparse = True

    _parameter_constraints = {
        "metric": [StrOptions(set(KINDS) | {"precomputed"})],
        "sigma": [Interval(Real, 0, None, closed="neither")],
        "alpha": [Interval(Real, 0, 1, closed="both"), None],
        "scale": [StrOptions({"standard", "minmax", "maxabs"}), None],
        "sigma_scale": [StrOptions({"absolute", "median"})],
        "alpha_search": [StrOptions({"golden", "grid-golden"})],
        "smoothing": [Interval(Real, 0, None, closed="left")],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "positive_class": "no_validation",
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
    def fit(self, X, y, sample_weight=None):
        """Fit on training bags (or a precomputed bag distance matrix).

        Parameters
        ----------
        X : sequence of 2-D arrays, Bags, or ndarray of shape (n_bags, n_bags)
            Training bags; with ``metric="precomputed"`` the square matrix of
            distances between the training bags.
        y : array-like of shape (n_bags,)
        sample_weight : array-like of shape (n_bags,), default=None
            One weight per training bag (times `class_weight`): the bag's
            vote counts its weight, so a zero-weight bag casts no vote (it
            still takes its place among the nearest bags). Scaling, alpha
            and the citer thresholds do not use the weights.

        Returns
        -------
        self
        """
        if self.metric == "precomputed":
            self._validate_params()
            D = self._check_precomputed(X, None)
            self.classes_, y_enc = check_bag_labels(
                y, D.shape[0], positive_class=self.positive_class,
                require_positive=self._positive_class_matters(), estimator=type(self).__name__)
            self.n_train_ = D.shape[0]
            self.vote_weight_ = self._bag_weights(sample_weight, y, D.shape[0])
            self._fit_matrix(D, y_enc)
            return self
        bags, y_enc = self._validate_fit(X, y)
        weight = self._bag_weights(sample_weight, y, bags.n_bags)
        if self.scale is not None:
            self.offset_, self.scale_ = _scaling(bags.instances, self.scale)
            bags = _apply_scaling(bags, self.offset_, self.scale_)
        self.train_bags_ = bags
        # Only the train-vs-train matrices that fit uses (see _fit_kinds), each filled in
        # place strip by strip: memory is len(kinds) n x n matrices plus a few strips.
        kinds = self._fit_kinds()
        n = bags.n_bags
        mats = _all_from_bags(bags, None, n_jobs=self.n_jobs,
                              out={k: np.empty((n, n)) for k in kinds}) if kinds else {}
        self._fit_distances(mats, y_enc, bag_weight=weight, inplace=True)
        return self

    def _fit_kinds(self):
        """The train-vs-train base matrices fit needs: alpha's choice, and the citer thresholds."""
        kinds = set()
        if self.metric == "integrated" and self.alpha is None:
            kinds |= {"minimal", "maximal"}
        if self._needs_train_matrix:
            kinds |= ({"minimal", "maximal", "average"} if self.metric == "adapted" else
                      {"minimal", "maximal"} if self.metric == "integrated" else {self.metric})
        return sorted(kinds)

    #: Whether fit uses the train-vs-train matrix of the metric (Citation-KNN's thresholds).
    _needs_train_matrix = False

    def _fit_distances(self, mats, y_enc, alpha_cache=None, bag_weight=None, inplace=False):
        """Fit from the train-vs-train minimal/maximal/average matrices (used by nested_cv).

        With `inplace`, `mats` are the caller's own and may be overwritten
        (the metric's matrix is composed in one of them).
        """
        self.y_train_ = np.asarray(y_enc, dtype=np.intp)
        self.vote_weight_ = bag_weight
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
        if not self._needs_train_matrix:
            self._fit_matrix(None, self.y_train_)
        elif inplace:
            self._fit_matrix(self._compose_inplace(mats, self.y_train_), self.y_train_)
        else:
            self._fit_matrix(self._compose(mats, self.y_train_), self.y_train_)
        return self

    def _compose_inplace(self, mats, y_rows):
        """As :meth:`_compose` for the training rows, written into one of `mats` (same arithmetic)."""
        if self.metric == "adapted":
            pos = self._pos_index
            rows, cols = (y_rows == pos)[:, None], (self.y_train_ == pos)[None, :]
            D = mats["average"]
            np.copyto(D, mats["minimal"], where=rows & cols)
            np.copyto(D, mats["maximal"], where=~rows & ~cols)
            return D
        if self.metric == "integrated":
            # alpha * minimal + (1 - alpha) * maximal, as integrated_from, without a third matrix.
            D = np.multiply(mats["minimal"], self.alpha_, out=mats["minimal"])
            return np.add(D, np.multiply(mats["maximal"], 1.0 - self.alpha_, out=mats["maximal"]), out=D)
        return mats[self.metric]

    def _compose(self, mats, y_rows=None):
        """The metric's matrix from the base ones; `y_rows` None means unknown labels (test bags)."""
        if self.metric == "adapted":
            if y_rows is None:
                return mats["average"]  # a test bag's label is unknown: the average form
            pos = self._pos_index
            return adapted_from(mats, y_rows == pos, self.y_train_ == pos)
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
            bags = _apply_scaling(bags, self.offset_, self.scale_)
        return self._compose(_all_from_bags(bags, self.train_bags_, n_jobs=self.n_jobs))

    def _nearest(self, D, k):
        """Indices of the k nearest training bags of each row (ties within DISTANCE_RTOL: lower index first)."""
        return _rank(D, k)

    def _decide(self, votes, ref_classes, binary_rule):
        """Class index per row: binary rule (ties negative) or plurality with nearest tie-break.

        `ref_classes` holds -1 for a reference that casts no vote (zero weight).
        """
        if binary_rule and votes.shape[1] == 2:
            pos = self._pos_index
            return np.where(votes[:, pos] > votes[:, 1 - pos], pos, 1 - pos).astype(np.intp)
        best = votes.max(axis=1, keepdims=True)
        tied = votes == best
        pred = np.argmax(tied, axis=1)  # lowest tied class when no reference settles it
        multi = np.flatnonzero(tied.sum(axis=1) > 1)
        for q in multi:
            for c in ref_classes[q]:
                if c >= 0 and tied[q, c]:
                    pred[q] = c
                    break
        return pred

    def _weighted_refs(self, near):
        """Classes of the references and their vote weights (None: one vote each)."""
        ref_classes = self.y_train_[near]
        w = self.vote_weight_
        if w is None:
            return ref_classes, None
        ref_w = w[near]
        return np.where(ref_w > 0, ref_classes, -1), ref_w

    def _proba_matrix(self, D):
        """Smoothed vote shares with the tie rule written in (rows follow D)."""
        votes, ref_classes = self._votes(D)
        pred = self._decide(votes, ref_classes, self._binary_rule)
        # A tied vote: the class the tie rule picks gets half a vote more, so
        # argmax(predict_proba) is predict (only the winner gains, so the
        # order of the other classes cannot change).
        rows = np.arange(votes.shape[0])
        tied = (votes == votes[rows, pred][:, None]).sum(axis=1) > 1
        votes[rows[tied], pred[tied]] += _TIE_VOTE
        votes += self.smoothing
        return votes / votes.sum(axis=1, keepdims=True)

    def predict_proba(self, X):
        """Smoothed vote shares of each class.

        ``(votes_c + smoothing) / (total + n_classes * smoothing)``, where
        at a tied vote the class the tie rule picks counts half a vote more;
        so ``predict`` is the argmax and probabilities stay off 0 and 1.

        Parameters
        ----------
        X : sequence of 2-D arrays, Bags, or ndarray (n_bags, n_train) with
            ``metric="precomputed"``

        Returns
        -------
        proba : ndarray of shape (n_bags, n_classes)
            Columns follow ``classes_``.
        """
        return self._proba_matrix(self._test_matrix(X))

    def _predict_distances(self, mats):
        """Class indices from test-vs-train base matrices (used by nested_cv)."""
        return np.argmax(self._proba_matrix(self._compose(mats)), axis=1)


class BagKNNClassifier(_BagNeighbors):
    """k-nearest-neighbour classifier on bags with a Hausdorff bag distance.

    The `n_neighbors` nearest training bags vote; a tie goes to the class
    of the nearest bag among the tied classes (Wang & Zucker 2000; see
    :doc:`/user_guide/labels_and_ties`).
    ``predict`` is the argmax of ``predict_proba``, the smoothed vote
    shares in which the tie's winner counts half a vote more.

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
    scale : {"standard", "minmax", "maxabs"} or None, default="standard"
        Feature scaling fitted on the training instances and applied to
        every bag before distances (see :doc:`/results/distances` for the
        measurements). Sparse bags (:doc:`/user_guide/sparse`) accept
        "maxabs" or None only: the others subtract an offset, which would
        make them dense.
    sigma_scale : {"absolute", "median"}, default="absolute"
        "median": the NCA bandwidth is ``sigma`` times the median distance
        between training bags (at alpha = 1/2), so one sigma grid suits
        data of any scale.
    alpha_search : {"golden", "grid-golden"}, default="golden"
        How alpha maximises the NCA objective (:func:`select_alpha`).
    smoothing : float >= 0, default=2.0
        Pseudo-votes added to every class before the vote shares become
        probabilities (additive smoothing): a unanimous vote no longer
        gives probability 1, so a wrong one costs a bounded log loss. The
        same for every class, so the vote order and ``predict`` do not
        change; 0 gives the raw vote shares. The default is the smallest
        of 0.5, 1, 2 and 5 whose out-of-fold log loss is below the constant
        prior's on all five shipped sets for both classifiers (see
        :doc:`/user_guide/labels_and_ties`).
    class_weight : "balanced", dict or None, default=None
        Weights of the classes, multiplying ``sample_weight`` in the vote:
        "balanced" weighs class c by ``n_bags / (n_classes * n_bags_c)``.
    positive_class : label or None, default=None
        The multi-instance positive class; used only by
        ``metric="adapted"`` (which compares two positive bags by the
        minimal distance). With that metric, labels other than {0, 1},
        {-1, 1} or {False, True} need it (``fit`` raises otherwise); the
        other metrics treat both classes alike and ignore it.
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
                 scale="standard", sigma_scale="absolute", alpha_search="golden",
                 smoothing=2.0, class_weight=None, positive_class=None, n_jobs=None):
        self.n_neighbors = n_neighbors
        self.metric = metric
        self.sigma = sigma
        self.alpha = alpha
        self.scale = scale
        self.sigma_scale = sigma_scale
        self.alpha_search = alpha_search
        self.smoothing = smoothing
        self.class_weight = class_weight
        self.positive_class = positive_class
        self.n_jobs = n_jobs

    def _positive_class_matters(self):
        # Votes and ties treat both classes alike; only the adapted distance does not.
        return self.metric == "adapted"

    def _fit_matrix(self, D, y_enc):
        self.y_train_ = np.asarray(y_enc, dtype=np.intp)

    def _votes(self, D):
        near = self._nearest(D, self.n_neighbors)
        ref_classes, ref_w = self._weighted_refs(near)
        K = len(self.classes_)
        votes = np.zeros((D.shape[0], K))
        for c in range(K):
            if ref_w is None:
                votes[:, c] = (ref_classes == c).sum(axis=1)
            else:
                votes[:, c] = np.where(ref_classes == c, ref_w, 0.0).sum(axis=1)
        return votes, ref_classes


class CitationKNNClassifier(_BagNeighbors):
    """Citation-KNN (Wang & Zucker 2000) with a Hausdorff bag distance.

    For a query bag Q, the references are its `references` nearest
    training bags; the citers are the training bags b for which Q is among
    their `citers` nearest neighbours (``d(b, Q) <=`` the `citers`-th
    smallest distance from b to another training bag). References and
    citers vote (a bag that is both votes twice). Two classes: positive iff
    positive votes > negative votes (ties negative; the positive class
    follows the rule of :func:`mil.utils.validation.positive_index`).
    More classes: plurality, ties to the class of the nearest reference
    among the tied classes, else the lowest tied class. ``predict`` is the
    argmax of ``predict_proba``, the smoothed vote shares in which the
    tie's winner counts half a vote more (see
    :doc:`/user_guide/labels_and_ties`).

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
    scale : {"standard", "minmax", "maxabs"} or None, default="standard"
        See :class:`BagKNNClassifier` (sparse bags: "maxabs" or None).
    sigma_scale : {"absolute", "median"}, default="absolute"
    alpha_search : {"golden", "grid-golden"}, default="golden"
        See :class:`BagKNNClassifier`.
    smoothing : float >= 0, default=2.0
        Pseudo-votes added to every class before normalising the vote
        shares (see :class:`BagKNNClassifier`); ``predict`` does not change.
    class_weight : "balanced", dict or None, default=None
        Weights of the classes, multiplying ``sample_weight`` in the vote
        of references and citers (see :class:`BagKNNClassifier`).
    positive_class : label or None, default=None
        The multi-instance positive class, which wins only with more votes
        (ties negative). Labels other than {0, 1}, {-1, 1} or
        {False, True} need it when there are two classes: ``fit`` raises
        rather than pick one by sort order.
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
                 scale="standard", sigma_scale="absolute", alpha_search="golden",
                 smoothing=2.0, class_weight=None, positive_class=None, n_jobs=None):
        self.references = references
        self.citers = citers
        self.metric = metric
        self.sigma = sigma
        self.alpha = alpha
        self.scale = scale
        self.sigma_scale = sigma_scale
        self.alpha_search = alpha_search
        self.smoothing = smoothing
        self.class_weight = class_weight
        self.positive_class = positive_class
        self.n_jobs = n_jobs

    _needs_train_matrix = True

    def _fit_matrix(self, D, y_enc):
        self.y_train_ = np.asarray(y_enc, dtype=np.intp)
        n = D.shape[0]
        C = min(self.citers, n - 1)
        if self.citers == 0:
            thr = np.full(n, -np.inf)
        elif C == 0:
            thr = np.full(n, np.inf)  # no other training bag: Q is always among the nearest
        else:
            # By strips of rows: a strip's copy, never a second n x n matrix.
            thr = np.empty(n)
            step = max(1, 2**22 // max(n, 1))
            for r0 in range(0, n, step):
                r1 = min(n, r0 + step)
                others = D[r0:r1].copy()
                others[np.arange(r1 - r0), np.arange(r0, r1)] = np.inf
                thr[r0:r1] = np.partition(others, C - 1, axis=1)[:, C - 1]
        self.citer_threshold_ = thr

    def _votes(self, D):
        near = self._nearest(D, self.references)
        ref_classes, ref_w = self._weighted_refs(near)
        K = len(self.classes_)
        # d(b, Q) <= threshold, with DISTANCE_RTOL: a true tie (Q a copy of
        # a training bag) counts whatever the last bits of either side.
        # (Thresholds are >= 0 or +-inf, so the product keeps their meaning.)
        cites = D <= self.citer_threshold_[None, :] * (1.0 + DISTANCE_RTOL)
        onehot = np.zeros((self.y_train_.shape[0], K))
        onehot[np.arange(self.y_train_.shape[0]), self.y_train_] = (
            1.0 if self.vote_weight_ is None else self.vote_weight_)
        votes = cites.astype(np.float64) @ onehot
        for c in range(K):
            if ref_w is None:
                votes[:, c] += (ref_classes == c).sum(axis=1)
            else:
                votes[:, c] += np.where(ref_classes == c, ref_w, 0.0).sum(axis=1)
        return votes, ref_classes
