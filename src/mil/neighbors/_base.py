"""The neighbour search the bag classifiers and regressors share: which training bags are near a bag.

Everything here is independent of the targets: the feature scaling, the
bag distance and its alpha, the choice of search (``algorithm``), the
citer thresholds, and, for each strip of query bags, its references (the
k nearest training bags) and its citers. :mod:`mil.neighbors._classifiers`
turns them into votes, :mod:`mil.neighbors._regressors` into means.

Decisions that compare distances (neighbour ranking, Citation-KNN's citer
test ``d(b, Q) <= threshold``) treat two distances within a relative
``DISTANCE_RTOL`` of each other as equal. Distances reach the last bits
through different sums on the two backends and in different row blocks,
so exact comparisons broke true ties (duplicate bags, a training bag
predicted again) differently from one call to the next; with the
tolerance, a bag's neighbours do not depend on the other bags of the call
or on the backend. The kernels' relative error is about 1e-12 (see
:mod:`mil.distances`), far below the tolerance; distinct distances closer
than 1e-9 relative are treated as tied.

Two ways to find the neighbours (``algorithm``): the bag distance matrix
(blocked BLAS kernels, in strips of bounded memory), or, for the minimal
distance, a search among the training instances in a KD-tree or ball tree
(:mod:`mil.neighbors._search`); both give the same decisions. The same
search over an HNSW graph ("hnsw", faiss) is approximate: "auto" chooses
it only where the exact search would be a pass over every pair of many
training instances.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from mil._distance_engine import all_from_bags
from mil._scaling import apply_scaling, fit_scaling
from mil.bags import Bags
from mil.distances import adapted_from, integrated_from
from mil.neighbors._search import ANN, TREES, BagTreeIndex, graph_available
from mil.neighbors._ties import DISTANCE_RTOL, rank_dense
from mil.utils._docstrings import register

__all__ = ["AUTO_GRAPH_MIN_INSTANCES", "AUTO_MAX_FEATURES", "AUTO_MAX_FRACTION", "AUTO_MIN_INSTANCES",
           "BAG_DISTANCE_DOC", "MATRIX_BYTES",
           "NEIGHBOUR_SEARCH_DOC", "BagNeighborsMixin", "CitersMixin", "Found", "NearestBagsMixin"]

#: Largest bag distance matrix the full-matrix path holds at once (bytes): Citation-KNN's
#: training matrix above it, and the query matrices always, go in strips of rows.
MATRIX_BYTES = 256 * 2**20
#: ``algorithm="auto"`` searches a tree (metric "minimal", dense bags) from this many training
#: instances, up to AUTO_MAX_FEATURES features, when a sample of k-nearest queries computes
#: distances to at most AUTO_MAX_FRACTION of the training instances.
AUTO_MIN_INSTANCES = 20_000
AUTO_MAX_FEATURES = 64
AUTO_MAX_FRACTION = 1 / 16
#: Where the tree would not serve (more features, or a sample of its searches reaching more of
#: the instances), ``algorithm="auto"`` searches the approximate HNSW graph from this many
#: training instances when faiss is installed: an exact search there is a pass over every pair
#: of instances (tens of seconds of CPU from 100,000 instances of 16 features, minutes of 768).
AUTO_GRAPH_MIN_INSTANCES = 100_000


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


BAG_DISTANCE_DOC = register("bag distance", """    sigma : float, default=1.0
        Bandwidth of the objective that chooses alpha for
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
        "median": the bandwidth is ``sigma`` times the median distance
        between training bags (at alpha = 1/2), so one sigma grid suits
        data of any scale.
    alpha_search : {"golden", "grid-golden"}, default="golden"
        How alpha maximises its objective
        (:func:`~mil.neighbors.select_alpha`).
""")
NEIGHBOUR_SEARCH_DOC = register("neighbour search", """    algorithm : {"auto", "brute", "kd_tree", "ball_tree", "hnsw"}, default="auto"
        How the nearest bags are found; every choice but "hnsw" gives the
        same predictions. "brute": from the bag distance matrices (blocked BLAS
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
        training instances; where the tree would not serve, "hnsw" from
        ``AUTO_GRAPH_MIN_INSTANCES`` (100,000) training instances if faiss
        is installed; "brute" otherwise (see :doc:`/user_guide/neighbors`;
        ``algorithm_`` tells which was used; pass "brute" for exact
        answers at any size). "hnsw" (``metric="minimal"``, dense bags, and
        faiss: ``pip install "scikit-mil[ann]"``): the same search over an
        approximate HNSW graph of the training instances, for many bags of
        instances with many intrinsic dimensions, where the exact searches
        compare nearly every pair; predictions may differ from the exact
        ones (measured: on 1 % of the bags with instances of 16 independent
        features, on 12 % with 768-feature instances whose distances are
        close to one another).
    ef_search : int, default=16
        Breadth of the HNSW graph searches (``algorithm="hnsw"``, or "auto"
        when it takes the graph; faiss's efSearch): larger finds more of the true nearest instances
        (predictions closer to the exact ones), at about proportional cost.
        A small graph (a few hundred instances) gives the exact neighbours at any
        breadth, so there it has no effect.
    n_jobs : int, default=None
        Threads: over strips of the distance matrices, or over blocks of
        bags in the tree search.
""")
register("citation parameters", """    references : int, default=2
        Number of nearest training bags that take part (vote, or are
        averaged).
    citers : int, default=4
        Rank up to which a training bag cites a query bag (its `citers`
        nearest neighbours among the other training bags and the query);
        0 disables citers.
""")
register("search attributes", """    alpha_ : float
        The weight of the minimal distance (``metric="integrated"`` only).
    algorithm_ : str
        The search used: "brute", "kd_tree", "ball_tree" or "hnsw".
""")
register("feature attributes", """    n_features_in_ : int
        Number of features per instance seen in ``fit``.
    feature_names_in_ : ndarray of str
        The feature names seen in ``fit`` (DataFrame bags only).
""")
def _attributes_doc(cls):
    """The Attributes section of a neighbours estimator (classes, citer radii, as it has them)."""
    classes = "" if issubclass(cls, RegressorMixin) else """    classes_ : ndarray of shape (n_classes,)
        The sorted labels.
"""
    citers = """    citer_threshold_ : ndarray of shape (n_train,)
        The `citers`-th smallest distance from each training bag to another.
""" if issubclass(cls, CitersMixin) else ""
    return f"""    Attributes
    ----------
{classes}    [search attributes]
{citers}    [feature attributes]
"""


register("neighbour attributes", _attributes_doc)


def _query_doc(verb):
    """The Parameters section of a query method: bags, or their distances to the training bags."""
    return f"""    Parameters
    ----------
    X : sequence of 2-D arrays, Bags, or ndarray of shape (n_bags, n_train)
        The bags to {verb}; with ``metric="precomputed"``, their
        distances to the training bags (one column per training bag).
"""


register("queries to classify", _query_doc("classify"))
register("queries to predict", _query_doc("predict"))


class Found:
    """The neighbours of a strip of query bags.

    Attributes
    ----------
    near : ndarray of shape (m, k)
        The k nearest training bags of each query bag, nearest first.
    near_distance : ndarray of shape (m, k)
        Their distances.
    cites : tuple (rows, cols, distances) or None
        The (query bag, citing training bag) pairs, sorted by query bag,
        then training bag, and their distances; None without citers.
    m : int
        Number of query bags.
    """

    __slots__ = ("near", "near_distance", "cites", "m")

    def __init__(self, near, near_distance, cites, m):
        self.near, self.near_distance, self.cites, self.m = near, near_distance, cites, m


class BagNeighborsMixin:
    """The target-independent search of the neighbour estimators (not public).

    A subclass (a classifier or a regressor base) supplies:

    ``_fit_targets(X, y, sample_weight)``
        Validated bags, targets (class indices or values) and bag weights
        (None: unweighted), zero-weight bags already dropped.
    ``_precomputed_targets(y, n, sample_weight)``
        The same for a precomputed matrix: targets and weights of all n bags.
    ``_store_targets(y)``
        Keep the training targets as ``y_train_``.
    ``_select_alpha(dmin, dmax, sigma)``
        Alpha of the integrated distance from the training matrices.

    and a neighbour rule (:class:`NearestBagsMixin` or :class:`CitersMixin`).
    """

    _accept_sparse = True
    #: Whether fit uses the train-vs-train matrix of the metric (Citation-KNN's thresholds).
    _needs_train_matrix = False

    _search_constraints = {
        "sigma": [Interval(Real, 0, None, closed="neither")],
        "alpha": [Interval(Real, 0, 1, closed="both"), None],
        "scale": [StrOptions({"standard", "minmax", "maxabs"}), None],
        "sigma_scale": [StrOptions({"absolute", "median"})],
        "alpha_search": [StrOptions({"golden", "grid-golden"})],
        "algorithm": [StrOptions({"auto", "brute", "kd_tree", "ball_tree", *ANN})],
        "ef_search": [Interval(Integral, 1, None, closed="left")],
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
            The label (a classifier) or real-valued target (a regressor) of
            each training bag.
        sample_weight : array-like of shape (n_bags,), default=None
            One non-negative weight per training bag (a classifier's times
            its `class_weight`): the bag's weight in the votes or means it
            enters. A bag of weight 0 is as if absent: it is neither a
            reference nor a citer, and the scaling, alpha and the citer
            thresholds are fitted without it (they do not use the other
            weights).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        if self.metric == "precomputed":
            self._validate_params()
            if self.algorithm in TREES or self.algorithm in ANN:
                raise ValueError(f"algorithm={self.algorithm!r} searches the training instances; with "
                                 "metric='precomputed' there are none: use algorithm='auto' or 'brute'")
            D = self._check_precomputed(X, None)
            y_enc, weight = self._precomputed_targets(y, D.shape[0], sample_weight)
            self.n_train_ = D.shape[0]
            self._fit_columns = None  # the training bags kept (weight > 0), when some are dropped
            if weight is not None and not (weight > 0).all():
                self._fit_columns = np.flatnonzero(weight > 0)
                D = D[np.ix_(self._fit_columns, self._fit_columns)]
                y_enc, weight = y_enc[self._fit_columns], weight[self._fit_columns]
            self.vote_weight_ = weight
            self.algorithm_ = "brute"
            self._store_targets(y_enc)
            self._fit_matrix(D)
            return self
        bags, y_enc, weight = self._fit_targets(X, y, sample_weight)
        if self.scale is not None:
            self.offset_, self.scale_ = fit_scaling(bags.instances, self.scale)
            bags = apply_scaling(bags, self.offset_, self.scale_)
        self.train_bags_ = bags
        self.algorithm_, self._index = self._choose_algorithm(bags)
        n = bags.n_bags
        if self._index is not None or (self._needs_train_matrix and self.metric in ("minimal", "maximal", "average")
                                       and 8 * n * n > MATRIX_BYTES):
            # Without the n x n matrix: the instance search, or the matrix strip by strip.
            self._store_targets(y_enc)
            self.vote_weight_ = weight
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
            return self.algorithm, BagTreeIndex(bags, self.algorithm, ef_search=self.ef_search)
        if bags.n_instances < AUTO_MIN_INSTANCES:
            return "brute", None
        if bags.n_features <= AUTO_MAX_FEATURES:
            index = BagTreeIndex(bags, "kd_tree")
            if index.inspected_fraction() <= AUTO_MAX_FRACTION:
                return "kd_tree", index
        # Many intrinsic dimensions: a tree would compare nearly every pair, as the matrix does.
        if bags.n_instances >= AUTO_GRAPH_MIN_INSTANCES and graph_available():
            return "hnsw", BagTreeIndex(bags, "hnsw", ef_search=self.ef_search)
        return "brute", None

    def _fit_kinds(self):
        """The train-vs-train base matrices fit needs: alpha's choice, and the citer thresholds."""
        kinds = set()
        if self.metric == "integrated" and self.alpha is None:
            kinds |= {"minimal", "maximal"}
        if self._needs_train_matrix:
            kinds |= ({"minimal", "maximal", "average"} if self.metric == "adapted" else
                      {"minimal", "maximal"} if self.metric == "integrated" else {self.metric})
        return sorted(kinds)

    def _fit_distances(self, mats, y_enc, alpha_cache=None, bag_weight=None, inplace=False):
        """Fit from the train-vs-train minimal/maximal/average matrices (used by nested_cv).

        With `inplace`, `mats` are the caller's own and may be overwritten
        (the metric's matrix is composed in one of them).
        """
        self._store_targets(y_enc)
        self.vote_weight_ = bag_weight
        self._check_metric()
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
                self.alpha_ = self._select_alpha(mats["minimal"], mats["maximal"], sigma)
                if alpha_cache is not None:
                    alpha_cache[key] = self.alpha_
        if not self._needs_train_matrix:
            self._fit_matrix(None)
        elif inplace:
            self._fit_matrix(self._compose_inplace(mats, self.y_train_))
        else:
            self._fit_matrix(self._compose(mats, self.y_train_))
        return self

    def _check_metric(self):
        """Raise if the metric cannot be used with these targets (the adapted distance's classes)."""

    def _fit_kth(self, kth, n):
        """Fit state without the training matrix; `kth(C)` gives each bag's C-th nearest distance."""

    def _fit_matrix(self, D):
        """Fit state from the training matrix of the metric (None when the rule needs none)."""

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
            check_is_fitted(self, "n_train_")
            D = self._check_precomputed(X, self.n_train_)
            cols = getattr(self, "_fit_columns", None)
            return D if cols is None else D[:, cols]
        return self._compose(all_from_bags(self._scaled_queries(X), self.train_bags_, n_jobs=self.n_jobs))

    def _found_strips(self, X):
        """The neighbours of the query bags X, strip by strip (a list of :class:`Found`, in order)."""
        if self.metric == "precomputed":
            return [self._found_in(self._test_matrix(X))]
        bags = self._scaled_queries(X)
        index = getattr(self, "_index", None)
        if index is not None:
            batch = index.queries(bags)
            if batch is not None:  # else values too large for the tree's squares: the matrix below
                return [self._found_by_index(batch, bags.n_bags)]
        # The full-matrix path, in strips of query bags of about MATRIX_BYTES in all.
        m, n = bags.n_bags, self.train_bags_.n_bags
        step = max(1, MATRIX_BYTES // (16 * 8 * max(n, 1)))  # the matrices and the ranking's temporaries
        inst, off = bags.instances, bags.offsets
        parts = []
        for r0 in range(0, m, step):
            r1 = min(m, r0 + step)
            strip = bags if (r0, r1) == (0, m) else Bags._trusted(inst[off[r0]:off[r1]], off[r0:r1 + 1] - off[r0])
            parts.append(self._found_in(self._compose(all_from_bags(strip, self.train_bags_, n_jobs=self.n_jobs))))
        return parts


class NearestBagsMixin:
    """Bag-KNN's rule: the ``n_neighbors`` nearest training bags (not public)."""

    def _found_in(self, D):
        near = rank_dense(D, self.n_neighbors)
        return Found(near, np.take_along_axis(D, near, axis=1), None, D.shape[0])

    def _found_by_index(self, batch, m):
        near, dist = self._index.nearest(batch, self.n_neighbors, n_jobs=self.n_jobs, return_distance=True)
        return Found(near, dist, None, m)


class CitersMixin:
    """Citation-KNN's rule: ``references`` nearest training bags and the citers (not public)."""

    _needs_train_matrix = True

    def _fit_matrix(self, D):
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

    def _found_in(self, D):
        near = rank_dense(D, self.references)
        cites = None
        if self.citers:
            rows, cols = np.nonzero(D <= self._citer_radius()[None, :])
            cites = (rows, cols, D[rows, cols])
        return Found(near, np.take_along_axis(D, near, axis=1), cites, D.shape[0])

    def _found_by_index(self, batch, m):
        radius = self._citer_radius() if self.citers else None
        near, dist, cites = self._index.citation(batch, self.references, radius, n_jobs=self.n_jobs)
        return Found(near, dist, cites, m)
