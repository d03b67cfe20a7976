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

Two ways to find the neighbours (``algorithm``): the bag distance matrix
(blocked BLAS kernels, in strips of bounded memory), or, for the minimal
distance, a search among the training instances in a KD-tree or ball tree
(:mod:`mil.neighbors._search`); both give the same decisions.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from mil._distance_engine import all_from_bags
from mil._scaling import apply_scaling, fit_scaling
from mil.bags import Bags
from mil.base import BaseBagClassifier, keep_params
from mil.distances import KINDS, adapted_from, integrated_from
from mil.neighbors._alpha import select_alpha
from mil.neighbors._search import TREES, BagTreeIndex
from mil.neighbors._ties import DISTANCE_RTOL, rank_dense
from mil.utils._docstrings import fill_doc, register
from mil.utils.validation import check_bag_labels

__all__ = ["BagKNNClassifier", "CitationKNNClassifier", "DISTANCE_RTOL"]

#: The extra weight the tie rule's class gets when the vote is tied (less than one vote).
_TIE_VOTE = 0.5
#: Largest bag distance matrix the full-matrix path holds at once (bytes): Citation-KNN's
#: training matrix above it, and the query matrices always, go in strips of rows.
MATRIX_BYTES = 256 * 2**20
#: ``algorithm="auto"`` searches a tree (metric "minimal", dense bags) from this many training
#: instances, up to AUTO_MAX_FEATURES features, when a sample of k-nearest queries computes
#: distances to at most AUTO_MAX_FRACTION of the training instances.
AUTO_MIN_INSTANCES = 20_000
AUTO_MAX_FEATURES = 64
AUTO_MAX_FRACTION = 1 / 16

#: The k nearest per row of a distance matrix, ties within DISTANCE_RTOL by index.
_rank = rank_dense


def _kth_by_strips(bags, kind, C, n_jobs):
    """The C-th smallest `kind` distance from each bag to another, strip by strip.

    Each strip of rows meets only itself and the later bags (each pair
    once); the C smallest distances of every bag are kept as they come, so
    memory is a strip of distances (``MATRIX_BYTES``) and ``n x C``.
    """
    n = bags.n_bags
    best = np.full((n, C), np.inf)
    rows = max(1, MATRIX_BYTES // (3 * 8 * n))  # the kernel returns three matrices per strip
    inst, off = bags.instances, bags.offsets
    for r0 in range(0, n, rows):
        r1 = min(n, r0 + rows)
        strip = Bags._trusted(inst[off[r0]:off[r1]], off[r0:r1 + 1] - off[r0])
        rest = Bags._trusted(inst[off[r0]:], off[r0:] - off[r0])
        D = all_from_bags(strip, rest, n_jobs=n_jobs)[kind]
        D[np.arange(r1 - r0), np.arange(r1 - r0)] = np.inf  # a bag is not its own neighbour
        best[r0:r1] = np.partition(np.hstack([best[r0:r1], D]), C - 1, axis=1)[:, :C]
        if r1 < n:
            best[r1:] = np.partition(np.hstack([best[r1:], D[:, r1 - r0:].T]), C - 1, axis=1)[:, :C]
    return best.max(axis=1)


register("bag distance", """    metric : {"minimal", "maximal", "average", "adapted", "integrated", "precomputed"}, default="minimal"
        Bag distance (:mod:`mil.distances`). "adapted" needs two classes;
        test bags (label unknown) are compared with the average form.
        "precomputed": ``X`` is a matrix of bag distances (square in
        ``fit``; one column per training bag when predicting).
    sigma : float, default=1.0
        Bandwidth of the NCA objective that chooses alpha for
        ``metric="integrated"``.
    alpha : float in [0, 1] or None, default=None
        Weight of the minimal distance in the integrated distance; None
        selects it on the training bags (``alpha_``).
    scale : {"standard", "minmax", "maxabs"} or None, default="standard"
        Feature scaling fitted on the training instances and applied to
        every bag before distances (the measurements:
        :doc:`/results/distances`). Sparse bags
        (:doc:`/user_guide/sparse`) accept "maxabs" or None only: the
        others subtract an offset, which would make them dense.
    sigma_scale : {"absolute", "median"}, default="absolute"
        "median": the NCA bandwidth is ``sigma`` times the median distance
        between training bags (at alpha = 1/2), so one sigma grid suits
        data of any scale.
    alpha_search : {"golden", "grid-golden"}, default="golden"
        How alpha maximises the NCA objective
        (:func:`~mil.neighbors.select_alpha`).
""")
register("neighbour search", """    algorithm : {"auto", "brute", "kd_tree", "ball_tree"}, default="auto"
        How the nearest bags are found; every choice gives the same
        predictions. "brute": from the bag distance matrices (blocked BLAS
        kernels, strips of rows of bounded memory; time quadratic in the
        instances). "kd_tree" or "ball_tree" (``metric="minimal"`` and
        dense bags only): a search among the training instances in
        scikit-learn's KDTree or BallTree, without the bag matrix; memory
        linear in the instances; time growing somewhat faster than
        n log n when the instances have few intrinsic dimensions, and
        slower than "brute" when they have many. "auto": the KD-tree for
        the minimal distance on dense bags with at least
        ``AUTO_MIN_INSTANCES`` (20,000) training instances and at most
        ``AUTO_MAX_FEATURES`` (64) features, if a sample of its searches
        computes distances to at most ``AUTO_MAX_FRACTION`` (1/16) of the
        training instances; "brute" otherwise (see
        :doc:`/user_guide/neighbors`).
""")


class BaseBagNeighbors(BaseBagClassifier):
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
        "algorithm": [StrOptions({"auto", "brute", "kd_tree", "ball_tree"})],
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
            The label of each training bag.
        sample_weight : array-like of shape (n_bags,), default=None
            One weight per training bag (times `class_weight`): the bag's
            vote counts its weight. A bag of weight 0 is as if absent: it is
            neither a reference nor a citer, and the scaling, alpha and the
            citer thresholds are fitted without it (they do not use the
            other weights).

        Returns
        -------
        self : object
            The fitted classifier.
        """
        if self.metric == "precomputed":
            self._validate_params()
            if self.algorithm in TREES:
                raise ValueError(f"algorithm={self.algorithm!r} searches the training instances; with "
                                 "metric='precomputed' there are none: use algorithm='auto' or 'brute'")
            D = self._check_precomputed(X, None)
            self.classes_, y_enc = check_bag_labels(
                y, D.shape[0], positive_class=self.positive_class,
                require_positive=self._positive_class_matters(), estimator=type(self).__name__)
            self.n_train_ = D.shape[0]
            weight = self._bag_weights(sample_weight, y, D.shape[0])
            self._fit_columns = None  # the training bags kept (weight > 0), when some are dropped
            if weight is not None and not (weight > 0).all():
                self._fit_columns = np.flatnonzero(weight > 0)
                D = D[np.ix_(self._fit_columns, self._fit_columns)]
                y_enc, weight = y_enc[self._fit_columns], weight[self._fit_columns]
            self.vote_weight_ = weight
            self.algorithm_ = "brute"
            self._fit_matrix(D, y_enc)
            return self
        bags, y_enc = self._validate_fit(X, y)
        bags, y_enc, weight = self._drop_zero_weight(bags, y_enc, self._bag_weights(sample_weight, y, bags.n_bags))
        if self.scale is not None:
            self.offset_, self.scale_ = fit_scaling(bags.instances, self.scale)
            bags = apply_scaling(bags, self.offset_, self.scale_)
        self.train_bags_ = bags
        self.algorithm_, self._index = self._choose_algorithm(bags)
        n = bags.n_bags
        if self._index is not None or (self._needs_train_matrix and self.metric in ("minimal", "maximal", "average")
                                       and 8 * n * n > MATRIX_BYTES):
            # Without the n x n matrix: the tree search, or the matrix strip by strip.
            self.y_train_, self.vote_weight_ = np.asarray(y_enc, dtype=np.intp), weight
            if self._index is not None:
                self._fit_kth(lambda C: self._index.kth_distances(C, n_jobs=self.n_jobs), n)
            else:
                self._fit_kth(lambda C: _kth_by_strips(bags, self.metric, C, self.n_jobs), n)
            return self
        # Only the train-vs-train matrices that fit uses (see _fit_kinds), each filled in
        # place strip by strip: memory is len(kinds) n x n matrices plus a few strips.
        kinds = self._fit_kinds()
        mats = all_from_bags(bags, None, n_jobs=self.n_jobs,
                              out={k: np.empty((n, n)) for k in kinds}) if kinds else {}
        self._fit_distances(mats, y_enc, bag_weight=weight, inplace=True)
        return self

    def _choose_algorithm(self, bags):
        """The neighbour search for these (scaled) training bags, and its tree index (None: the matrix)."""
        if self.algorithm == "brute":
            return "brute", None
        if self.metric != "minimal" or bags.is_sparse:
            if self.algorithm == "auto":
                return "brute", None
            raise ValueError(
                f"algorithm={self.algorithm!r} finds neighbours under the minimal distance of dense bags "
                f"only; got metric={self.metric!r}{' and sparse bags' if bags.is_sparse else ''}: "
                "use algorithm='auto' or 'brute'")
        if self.algorithm != "auto":
            return self.algorithm, BagTreeIndex(bags, self.algorithm)
        if bags.n_instances < AUTO_MIN_INSTANCES or bags.n_features > AUTO_MAX_FEATURES:
            return "brute", None
        index = BagTreeIndex(bags, "kd_tree")
        if index.inspected_fraction() > AUTO_MAX_FRACTION:
            return "brute", None  # high intrinsic dimension: the tree would compare nearly every pair
        return "kd_tree", index

    def _fit_kth(self, kth, n):
        """Fit state without the training matrix; `kth(C)` gives each bag's C-th nearest distance.

        Bag-KNN keeps nothing beyond the training bags; Citation-KNN its citer thresholds.
        """

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

    def _scaled_queries(self, X):
        bags = self._validate_predict(X)
        if self.scale is not None:
            bags = apply_scaling(bags, self.offset_, self.scale_)
        return bags

    def _test_matrix(self, X):
        """The query-vs-training matrix of the metric, whole (for tests and studies)."""
        if self.metric == "precomputed":
            check_is_fitted(self, "classes_")
            D = self._check_precomputed(X, self.n_train_)
            cols = getattr(self, "_fit_columns", None)
            return D if cols is None else D[:, cols]
        return self._compose(all_from_bags(self._scaled_queries(X), self.train_bags_, n_jobs=self.n_jobs))

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

    def _weighted_refs(self, near):
        """Classes of the references and their vote weights (None: one vote each)."""
        w = self.vote_weight_
        return self.y_train_[near], (None if w is None else w[near])

    def _tally(self, near, cites, m):
        """Votes per class of `m` query bags: references `near`, citers `cites` ((rows, cols) or None).

        Citer pairs come sorted by query bag, then training bag, from either
        search, and their weights are summed in that order, so both give
        the same votes to the last bit.
        """
        ref_classes, ref_w = self._weighted_refs(near)
        K = len(self.classes_)
        votes = np.zeros((m, K))
        if cites is not None:
            rows, cols = cites
            w = None if self.vote_weight_ is None else self.vote_weight_[cols]
            votes += np.bincount(rows * K + self.y_train_[cols], weights=w, minlength=m * K).reshape(m, K)
        for c in range(K):
            if ref_w is None:
                votes[:, c] += (ref_classes == c).sum(axis=1)
            else:
                votes[:, c] += np.where(ref_classes == c, ref_w, 0.0).sum(axis=1)
        return votes, ref_classes

    def _votes(self, D):
        """Votes and reference classes from a query-vs-training distance matrix."""
        return self._tally(*self._neighbours(D), D.shape[0])

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

        Parameters
        ----------
        X : sequence of 2-D arrays, Bags, or ndarray of shape (n_bags, n_train)
            The bags to classify; with ``metric="precomputed"``, their
            distances to the training bags (one column per training bag).

        Returns
        -------
        proba : ndarray of shape (n_bags, n_classes)
            Columns follow ``classes_``.
        """
        if self.metric == "precomputed":
            return self._proba_matrix(self._test_matrix(X))
        bags = self._scaled_queries(X)
        index = getattr(self, "_index", None)
        if index is not None:
            batch = index.queries(bags)
            if batch is not None:  # else values too large for the tree's squares: the matrix below
                return self._proba_votes(*self._tally(*self._tree_neighbours(batch), bags.n_bags))
        # The full-matrix path, in strips of query bags of about MATRIX_BYTES in all.
        m, n = bags.n_bags, self.train_bags_.n_bags
        step = max(1, MATRIX_BYTES // (16 * 8 * max(n, 1)))  # the matrices and the ranking's temporaries
        inst, off = bags.instances, bags.offsets
        parts = []
        for r0 in range(0, m, step):
            r1 = min(m, r0 + step)
            strip = bags if (r0, r1) == (0, m) else Bags._trusted(inst[off[r0]:off[r1]], off[r0:r1 + 1] - off[r0])
            parts.append(self._proba_matrix(self._compose(all_from_bags(strip, self.train_bags_,
                                                                          n_jobs=self.n_jobs))))
        return np.vstack(parts)

    def _predict_distances(self, mats):
        """Class indices from test-vs-train base matrices (used by nested_cv)."""
        return np.argmax(self._proba_matrix(self._compose(mats)), axis=1)


@fill_doc
class BagKNNClassifier(BaseBagNeighbors):
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
    n_jobs : int, default=None
        Threads: over strips of the distance matrices, or over blocks of
        bags in the tree search.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The sorted labels.
    alpha_ : float
        The weight of the minimal distance (``metric="integrated"`` only).
    algorithm_ : str
        The search used: "brute", "kd_tree" or "ball_tree".
    n_features_in_ : int
        Number of features per instance seen in ``fit``.
    feature_names_in_ : ndarray of str
        The feature names seen in ``fit`` (DataFrame bags only).

    See Also
    --------
    CitationKNNClassifier : References and citers vote.
    mil.distances.hausdorff : The bag distances.

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
        **BaseBagNeighbors._parameter_constraints,
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(self, n_neighbors=3, *, metric="minimal", sigma=1.0, alpha=None,
                 scale="standard", sigma_scale="absolute", alpha_search="golden",
                 smoothing=2.0, class_weight=None, positive_class=None, algorithm="auto",
                 n_jobs=None):
        keep_params(self, locals())

    def _positive_class_matters(self):
        # Votes and ties treat both classes alike; only the adapted distance does not.
        return self.metric == "adapted"

    def _fit_matrix(self, D, y_enc):
        self.y_train_ = np.asarray(y_enc, dtype=np.intp)

    def _neighbours(self, D):
        return _rank(D, self.n_neighbors), None

    def _tree_neighbours(self, batch):
        return self._index.nearest(batch, self.n_neighbors, n_jobs=self.n_jobs), None


@fill_doc
class CitationKNNClassifier(BaseBagNeighbors):
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
    references : int, default=2
        Number of nearest training bags that vote.
    citers : int, default=4
        Rank up to which a training bag cites a query bag (its `citers`
        nearest neighbours among the other training bags and the query);
        0 disables citers.
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
    n_jobs : int, default=None
        Threads: over strips of the distance matrices, or over blocks of
        bags in the tree search.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The sorted labels.
    alpha_ : float
        The weight of the minimal distance (``metric="integrated"`` only).
    algorithm_ : str
        The search used: "brute", "kd_tree" or "ball_tree".
    citer_threshold_ : ndarray of shape (n_train,)
        The `citers`-th smallest distance from each training bag to another.
    n_features_in_ : int
        Number of features per instance seen in ``fit``.
    feature_names_in_ : ndarray of str
        The feature names seen in ``fit`` (DataFrame bags only).

    See Also
    --------
    BagKNNClassifier : Only the nearest bags vote.
    mil.distances.hausdorff : The bag distances.

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
        **BaseBagNeighbors._parameter_constraints,
        "references": [Interval(Integral, 1, None, closed="left")],
        "citers": [Interval(Integral, 0, None, closed="left")],
    }

    def __init__(self, references=2, citers=4, *, metric="minimal", sigma=1.0, alpha=None,
                 scale="standard", sigma_scale="absolute", alpha_search="golden",
                 smoothing=2.0, class_weight=None, positive_class=None, algorithm="auto",
                 n_jobs=None):
        keep_params(self, locals())

    _needs_train_matrix = True

    def _fit_matrix(self, D, y_enc):
        self.y_train_ = np.asarray(y_enc, dtype=np.intp)

        def kth(C):
            # By strips of rows: a strip's copy, never a second n x n matrix.
            n = D.shape[0]
            thr = np.empty(n)
            step = max(1, 2**22 // max(n, 1))
            for r0 in range(0, n, step):
                r1 = min(n, r0 + step)
                others = D[r0:r1].copy()
                others[np.arange(r1 - r0), np.arange(r0, r1)] = np.inf
                thr[r0:r1] = np.partition(others, C - 1, axis=1)[:, C - 1]
            return thr

        self._fit_kth(kth, D.shape[0])

    def _fit_kth(self, kth, n):
        C = min(self.citers, n - 1)
        if self.citers == 0:
            self.citer_threshold_ = np.full(n, -np.inf)
        elif C == 0:
            self.citer_threshold_ = np.full(n, np.inf)  # no other training bag: Q is always among the nearest
        else:
            self.citer_threshold_ = kth(C)

    def _citer_radius(self):
        # d(b, Q) <= threshold, with DISTANCE_RTOL: a true tie (Q a copy of
        # a training bag) counts whatever the last bits of either side.
        # (Thresholds are >= 0 or +-inf, so the product keeps their meaning.)
        return self.citer_threshold_ * (1.0 + DISTANCE_RTOL)

    def _neighbours(self, D):
        cites = np.nonzero(D <= self._citer_radius()[None, :]) if self.citers else None
        return _rank(D, self.references), cites

    def _tree_neighbours(self, batch):
        near = self._index.nearest(batch, self.references, n_jobs=self.n_jobs)
        cites = self._index.citers(batch, self._citer_radius(), n_jobs=self.n_jobs) if self.citers else None
        return near, cites
