"""Bag-KNN and Citation-KNN classifiers over Hausdorff bag distances.

The neighbours of a bag come from :mod:`mil.neighbors._base` (the search
the regressors share); here they vote. Decisions that compare distances
treat two distances within a relative ``DISTANCE_RTOL`` of each other as
equal (see :mod:`mil.neighbors._base`).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from mil.base import BaseBagClassifier, keep_params
from mil.distances import KINDS
from mil.neighbors._alpha import select_alpha
from mil.neighbors._base import BagNeighborsMixin, CitersMixin, NearestBagsMixin
from mil.neighbors._ties import DISTANCE_RTOL, rank_dense
from mil.utils._docstrings import fill_doc, register
from mil.utils.validation import check_bag_labels

__all__ = ["BagKNNClassifier", "CitationKNNClassifier", "DISTANCE_RTOL"]

#: The extra weight the tie rule's class gets when the vote is tied (less than one vote).
_TIE_VOTE = 0.5

#: The k nearest per row of a distance matrix, ties within DISTANCE_RTOL by index.
_rank = rank_dense

register("classifier metric", """    metric : {"minimal", "maximal", "average", "adapted", "integrated", "precomputed"}, default="minimal"
        Bag distance (:mod:`mil.distances`). "adapted" needs two classes;
        test bags (label unknown) are compared with the average form.
        "precomputed": ``X`` is a matrix of bag distances (square in
        ``fit``; one column per training bag when predicting).
""")


@fill_doc
class BaseBagNeighbors(BagNeighborsMixin, BaseBagClassifier):
    """The neighbour classifiers' votes over the shared search (not public)."""

    _binary_only = False

    _parameter_constraints = {
        **BagNeighborsMixin._search_constraints,
        "metric": [StrOptions(set(KINDS) | {"precomputed"})],
        "smoothing": [Interval(Real, 0, None, closed="left")],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "positive_class": "no_validation",
    }

    def _fit_targets(self, X, y, sample_weight):
        bags, y_enc = self._validate_fit(X, y)
        return self._drop_zero_weight(bags, y_enc, self._bag_weights(sample_weight, y, bags.n_bags))

    def _precomputed_targets(self, y, n, sample_weight):
        self.classes_, y_enc = check_bag_labels(
            y, n, positive_class=self.positive_class,
            require_positive=self._positive_class_matters(), estimator=type(self).__name__)
        return y_enc, self._bag_weights(sample_weight, y, n)

    def _store_targets(self, y):
        self.y_train_ = np.asarray(y, dtype=np.intp)

    def _select_alpha(self, dmin, dmax, sigma):
        return select_alpha(dmin, dmax, self.y_train_, sigma, method=self.alpha_search)

    def _check_metric(self):
        if self.metric == "adapted" and len(self.classes_) != 2:
            raise ValueError(f"metric='adapted' needs two classes (it picks the distance form from "
                             f"positive/negative labels); y has {len(self.classes_)}")

    # -- votes -------------------------------------------------------------------
    def _decide(self, votes, ref_classes, binary_rule):
        """Class index per row: binary rule (ties negative) or plurality with nearest tie-break."""
        if binary_rule and votes.shape[1] == 2:
            pos = self._pos_index
            return np.where(votes[:, pos] > votes[:, 1 - pos], pos, 1 - pos).astype(np.intp)
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

    def _tally(self, found):
        """Votes per class of the query bags of `found` (:class:`~mil.neighbors._base.Found`).

        Citer pairs come sorted by query bag, then training bag, from either
        search, and their weights are summed in that order, so both give
        the same votes to the last bit.
        """
        near, m, w = found.near, found.m, self.vote_weight_
        ref_classes = self.y_train_[near]
        K = len(self.classes_)
        votes = np.zeros((m, K))
        if found.cites is not None:
            rows, cols = found.cites[0], found.cites[1]
            cw = None if w is None else w[cols]
            votes += np.bincount(rows * K + self.y_train_[cols], weights=cw, minlength=m * K).reshape(m, K)
        for c in range(K):
            if w is None:
                votes[:, c] += (ref_classes == c).sum(axis=1)
            else:
                votes[:, c] += np.where(ref_classes == c, w[near], 0.0).sum(axis=1)
        return votes, ref_classes

    def _votes(self, D):
        """Votes and reference classes from a query-vs-training distance matrix."""
        return self._tally(self._found_in(D))

    def _proba_votes(self, votes, ref_classes):
        """Smoothed vote shares with the tie rule written in."""
        pred = self._decide(votes, ref_classes, self._binary_rule)
        # A tied vote: the class the tie rule picks gets half a vote more, so
        # argmax(predict_proba) is predict (only the winner gains, so the
        # order of the other classes cannot change).
        rows = np.arange(votes.shape[0])
        tied = (votes == votes[rows, pred][:, None]).sum(axis=1) > 1
        votes[rows[tied], pred[tied]] += _TIE_VOTE
        votes += self.smoothing
        return votes / votes.sum(axis=1, keepdims=True)

    def _proba_matrix(self, D):
        """Smoothed vote shares from a query-vs-training distance matrix (rows follow D)."""
        return self._proba_votes(*self._votes(D))

    def predict_proba(self, X):
        """Smoothed vote shares of each class.

        ``(votes_c + smoothing) / (total + n_classes * smoothing)``, where
        at a tied vote the class the tie rule picks counts half a vote more;
        so ``predict`` is the argmax and probabilities stay off 0 and 1.
        A bag's probabilities do not depend on the other bags of the call,
        nor on ``algorithm_``.

        [queries to classify]

        Returns
        -------
        proba : ndarray of shape (n_bags, n_classes)
            Columns follow ``classes_``.
        """
        return np.vstack([self._proba_votes(*self._tally(found)) for found in self._found_strips(X)])

    def _predict_distances(self, mats):
        """Class indices from test-vs-train base matrices (used by nested_cv)."""
        return np.argmax(self._proba_matrix(self._compose(mats)), axis=1)


@fill_doc
class BagKNNClassifier(NearestBagsMixin, BaseBagNeighbors):
    """The k-nearest-neighbour classifier on bags, with a Hausdorff bag distance.

    The `n_neighbors` nearest training bags vote; a tie goes to the class
    of the nearest bag among the tied classes (Wang and Zucker 2000; see
    :doc:`/user_guide/labels_and_ties`). ``predict`` is the argmax of
    ``predict_proba``, the smoothed vote shares in which the tie's winner
    counts half a vote more.

    Parameters
    ----------
    n_neighbors : int, default=3
        Number of nearest training bags that vote.
    [classifier metric]
    [bag distance]
    smoothing : float >= 0, default=2.0
        Pseudo-votes added to every class before the vote shares become
        probabilities (additive smoothing): a unanimous vote no longer
        gives probability 1, so a wrong one costs a bounded log loss. The
        same for every class, so the vote order and ``predict`` do not
        change; 0 gives the raw vote shares (the choice of the default:
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
    [neighbour search]

    [neighbour attributes]

    See Also
    --------
    CitationKNNClassifier : References and citers vote.
    mil.distances.hausdorff : The bag distances.

    [toy examples]
    >>> clf = BagKNNClassifier(n_neighbors=3).fit(X[:30], y[:30])
    >>> clf.predict(X[30:]).shape
    (10,)
    """

    _binary_rule = False
    _parameter_constraints = {
        **BaseBagNeighbors._parameter_constraints,
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, n_neighbors=3, *, metric="minimal", sigma=1.0, alpha=None,
                 scale="standard", sigma_scale="absolute", alpha_search="golden",
                 smoothing=2.0, class_weight=None, positive_class=None, algorithm="auto",
                 ef_search=16, n_jobs=None):
        keep_params(self, locals())

    def _positive_class_matters(self):
        # Votes and ties treat both classes alike; only the adapted distance does not.
        return self.metric == "adapted"


@fill_doc
class CitationKNNClassifier(CitersMixin, BaseBagNeighbors):
    """Citation-KNN (Wang and Zucker 2000): references and citers vote, with a Hausdorff bag distance.

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
    [citation parameters]
    [classifier metric]
    [bag distance]
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
    [neighbour search]

    [neighbour attributes]

    See Also
    --------
    BagKNNClassifier : Only the nearest bags vote.
    mil.distances.hausdorff : The bag distances.

    [toy examples]
    >>> clf = CitationKNNClassifier(references=3, citers=5).fit(X[:30], y[:30])
    >>> clf.predict_proba(X[30:]).shape
    (10, 2)
    """

    _binary_rule = True
    _parameter_constraints = {
        **BaseBagNeighbors._parameter_constraints,
        "references": [Interval(Integral, 1, None, closed="left")],
        "citers": [Interval(Integral, 0, None, closed="left")],
    }

    def __init__(self, references=2, citers=4, *, metric="minimal", sigma=1.0, alpha=None,
                 scale="standard", sigma_scale="absolute", alpha_search="golden",
                 smoothing=2.0, class_weight=None, positive_class=None, algorithm="auto",
                 ef_search=16, n_jobs=None):
        keep_params(self, locals())
