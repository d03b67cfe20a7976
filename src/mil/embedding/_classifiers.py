"""MILES and MInD bag classifiers, tuned inside ``fit`` on slices of one instance-to-bag pass.

Both classifiers compute the instance-to-bag minima M of the training bags
once (:mod:`mil.embedding._minima`): that is their representation on the
tuning engine (:mod:`mil._tuning`). An inner fold's embedding is a slice of
M (the concepts or prototypes of its training bags), so the grid costs
only the linear or kernel machine fits, never a distance. The out-of-fold
decision values at the chosen parameters also calibrate ``predict_proba``
(one Platt-style slope, no intercept, so the probability and the decision
value always agree on the class).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.svm import SVC, LinearSVC
from sklearn.utils import Bunch
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from mil._tuning import CONSTRAINTS, TunedClassifierMixin, positive_grid
from mil._scaling import absolute_unit, apply_scaling, fit_scaling, scaled_mean
from mil.bags import Bags, float64_bags
from mil.base import BaseBagClassifier, InstanceOutputMixin, keep_params, split_by_bag
from mil.embedding._concepts import concept_minima, minima_to_bags
from mil.embedding._minima import (DISSIMILARITIES, bag_dissimilarities, median_sigma, miles_block_features,
                                   miles_features, minima, subset)
from mil.embedding._vectors import column_scaling, sq_dists
from mil.utils._docstrings import fill_doc

__all__ = ["MILESClassifier", "MInDClassifier"]

_SCALES = [StrOptions({"standard", "minmax", "maxabs"}), None]
_GRID = ["array-like"]


def _linear_kernel(Z_a, Z_b):
    """The linear kernel of standardised dissimilarity vectors, divided by their length."""
    return Z_a @ Z_b.T / max(Z_a.shape[1], 1)


def _median_off_diagonal(S):
    """The median of the off-diagonal entries of the square S (1 when it is not > 0)."""
    off = ~np.eye(S.shape[0], dtype=bool)
    med = float(np.median(S[off])) if off.any() else 0.0
    return med if med > 0 else 1.0


def _C_grid(est):
    return [{"C": float(C)} for C in ([est.C] if est.C is not None else positive_grid(est.Cs, "Cs"))]


@fill_doc
class MILESClassifier(InstanceOutputMixin, TunedClassifierMixin, BaseBagClassifier):
    """MILES: a 1-norm linear SVM on the instance-similarity embedding (Chen, Bi and Wang, 2006).

    Every training instance is a concept ``c_k`` (or one of ``n_concepts``
    k-means centres); a bag becomes ``phi_k(B) = max_j exp(-||b_j -
    c_k||^2 / sigma^2)`` (:class:`MILESEmbedding`), and an L1-penalised
    linear SVM (scikit-learn's ``LinearSVC(penalty="l1", dual=False)``)
    selects the few concepts that separate the classes (the embedding's
    columns are centred on the training bags before the SVM, so that the
    intercept, which liblinear penalises like a weight, is almost free as in
    the paper's linear program; ``coef_`` and ``intercept_`` act on the
    uncentred embedding). The selected
    concepts give each instance a contribution to its bag's decision value
    (:meth:`instance_contributions`): the paper's instance classification.
    ``instance_scores``, ``instance_proba`` and ``predict_instances`` are the
    outputs for a bag holding the instance alone
    (:class:`mil.base.InstanceOutputMixin`).

    By default C and sigma are chosen inside ``fit`` by a stratified inner
    cross-validation over the training bags, on slices of one distance
    pass (no distance is recomputed for a grid point or a fold): 2 sigmas
    x 4 values of C x 2 inner folds, 16 SVM fits.

    Parameters
    ----------
    C : float, default=None
        Inverse L1 regularisation strength; None chooses it from `Cs`.
    sigma : float, default=None
        Embedding width; None chooses ``sigma_scales`` times the median
        heuristic (the square root of the median squared distance from a
        training instance to the other training bags, once per fit).
    Cs : array-like, default=(1.0, 3.0, 10.0, 30.0)
        Candidate values of C when ``C=None`` (the smallest is preferred at
        equal inner accuracy).
    sigma_scales : array-like, default=(2.0, 1.0)
        Candidate multiples of the median heuristic when ``sigma=None``
        (the first is preferred at equal inner accuracy).
    [inner-cv parameters]
    tol : float, default=1e-4
        Stopping tolerance of the final L1-SVM (liblinear); the inner
        grid's fits, which only rank the grid points, stop at ``10 * tol``.
        The solution moves within it when the distances change in their
        last bits (the other backend, another instance order): outputs then
        agree to about the tolerance, not to the last bit; a smaller value
        costs several times the fit time.
    max_iter : int, default=20000
        Iteration limit of the L1-SVM (liblinear's; a limit reached in the refit
        warns with ``ConvergenceWarning``).
    n_concepts : "auto", int or None, default="auto"
        None: every training instance is a concept. An int: k-means
        centres of the training instances (large data; mini-batch k-means
        above 10 000 instances, see :class:`MILESEmbedding`). "auto": every
        instance up to 10 000 training instances, 1 000 k-means centres
        above.
    scale : {"standard", "minmax", "maxabs"} or None, default="standard"
        Feature scaling fitted on the training instances.
    class_weight : "balanced", dict or None, default=None
        Multiplies `sample_weight` (the SVM's per-bag C).
    positive_class : label, default=None
        Which of two labels is the multi-instance positive class (the
        orientation of :meth:`instance_contributions`); needed for labels other than
        {0, 1}, {-1, 1}, {False, True}.
    n_jobs : int, default=None
        Threads of the distance pass.
    random_state : int, RandomState or None, default=None
        Seeds the inner folds' shuffle and, through independent seeds drawn
        from it, k-means and liblinear's coordinate order.

    Attributes
    ----------
    classes_ : ndarray
        The class labels.
    best_params_ : dict
        ``{"sigma": sigma_, "C": C}`` chosen.
    sigma_ : float
        The embedding width used.
    cv_results_ : ndarray of shape (n_sigmas, n_Cs) or None
        The inner CV's `scoring` of each grid point (None without inner
        folds).
    center_ : ndarray of shape (n_features,)
        The mean of the scaled training instances (the distance pass
        centres the instances on it).
    concepts_ : ndarray of shape (n_concepts, n_features)
        Concepts in the scaled feature space.
    n_concepts_ : int or None
        The number of k-means centres (rows of `concepts_`; None: every
        training instance is a concept).
    coef_ : ndarray of shape (1 or n_classes, n_concepts)
        Weights of the concepts (binary: towards the positive class).
    intercept_ : ndarray of shape (1 or n_classes,)
        The intercepts on the uncentred embedding.
    selected_concepts_ : ndarray of int
        Concepts with a non-zero weight (for any class).
    n_iter_ : int
        Iterations of the final SVM's solver.
    [inner-cv attributes]

    See Also
    --------
    MILESEmbedding : The embedding alone, for any model.
    MInDClassifier : An SVM on bag dissimilarities.

    [chen2006]

    [rng examples]
    >>> bags = [rng.normal(size=(4, 2)) for _ in range(20)]
    >>> y = np.arange(20) % 2
    >>> for b, label in zip(bags, y):
    ...     b[0] += 4 * label  # a positive bag holds one shifted instance
    >>> clf = MILESClassifier(random_state=0).fit(bags, y)
    >>> clf.predict(bags[:4])
    array([0, 1, 0, 1])
    """

    _binary_only = False
    _seed_names = ("model", "concepts")

    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="neither"), None],
        "sigma": [Interval(Real, 0, None, closed="neither"), None],
        "Cs": _GRID,
        "sigma_scales": _GRID,
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "n_concepts": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left"), None],
        "scale": _SCALES,
        "n_jobs": [Integral, None],
        **CONSTRAINTS,
    }

    def __init__(self, C=None, sigma=None, *, Cs=(1.0, 3.0, 10.0, 30.0),
                 sigma_scales=(2.0, 1.0), cv=2, cv_repeats=1, scoring="accuracy", tol=1e-4, max_iter=20000,
                 n_concepts="auto", scale="standard", class_weight=None, positive_class=None, n_jobs=None,
                 random_state=None):
        keep_params(self, locals())

    # -- the tuning engine's hooks ------------------------------------------------------
    def _represent(self, bags, target, seeds):
        # The bags as given (a float32 memory map stays one), scaled a block of rows at a time.
        self.offset_, self.scale_ = fit_scaling(bags.instances, self.scale, rescale_extremes=True)
        self.center_ = scaled_mean(bags.instances, self.offset_, self.scale_)
        # Every instance a concept (in lexicographic order: liblinear's coordinate descent visits
        # the columns in a seeded order, so the model must not depend on the order in which the
        # bags and their instances came), or k-means centres.
        self.concepts_, self.n_concepts_, M, own = concept_minima(
            bags, self.n_concepts, center=self.center_, seed=seeds.concepts, n_jobs=self.n_jobs,
            offset=self.offset_, scale=self.scale_)
        sigma_median = median_sigma(M, own)
        if self.sigma is not None:
            rows = [{"sigma": float(self.sigma) * np.sqrt(absolute_unit(self, 2))}]
        else:
            rows = [{"sigma": float(s) * sigma_median, "_scale": float(s)}
                    for s in positive_grid(self.sigma_scales, "sigma_scales")]
        return Bunch(M=M, own=own, rows=rows)

    def _grid(self, rep):
        return rep.rows, _C_grid(self)

    def _cut(self, rep, train, test):
        # Indices only: the features of a fold are built from M a block of concepts at a time.
        everyone = train.shape[0] == rep.M.shape[1]  # the refit: every bag, in order
        rows = None
        if rep.own is not None and not everyone:
            # An inner fold's concepts: its bags' instances, in the concepts' order.
            rows = np.flatnonzero(np.isin(rep.own, train))
        return Bunch(M=rep.M, rows=rows, train=None if everyone else train, test=test)

    def _design(self, fold, row):
        # Columns centred on the training bags: liblinear penalises the intercept like a weight, and
        # on uncentred features (all near 1 at a wide sigma) the concepts stand in for it, which
        # slows its coordinate descent several times over; see _keep for the uncentred model.
        F_train, mean = miles_block_features(fold.M, row["sigma"], fold.rows, fold.train)
        # F-ordered test rows: the inner folds' decision values round as they always have.
        F_test, _ = miles_block_features(fold.M, row["sigma"], fold.rows, fold.test, mean=mean, order="F")
        fold.mean = mean
        return F_train, F_test

    def _release(self, rep, fold):
        # The refit needs only its features: free the distance pass before the SVM copies them.
        rep.M = fold.M = None

    def _model(self, row, col, seeds, inner):
        # liblinear's coordinate descent visits the features in a random order: seeded. The
        # inner grid's fits stop at 10 x tol (they only rank grid points).
        return LinearSVC(penalty="l1", loss="squared_hinge", dual=False, C=col["C"], max_iter=self.max_iter,
                         tol=10.0 * self.tol if inner else self.tol, random_state=seeds.model)

    def _keep(self, rep, fold, row, col, model, selection):
        self.sigma_ = float(row["sigma"])
        self.coef_ = np.array(model.coef_, dtype=np.float64)
        # The SVM saw centred columns: fold the training means into the intercept, so coef_ and
        # intercept_ act on the embedding itself.
        self.intercept_ = np.atleast_1d(np.array(model.intercept_, dtype=np.float64) - self.coef_ @ fold.mean)
        self.selected_concepts_ = np.flatnonzero(np.any(self.coef_ != 0, axis=0))
        self.n_iter_ = int(np.max(model.n_iter_))

    def _accepts_float32(self):
        # float32 bags are read as they are: the fit scales them a block of rows at a time
        # (:func:`mil.embedding._concepts.concept_minima`), so a memory map is not copied whole.
        return True

    # -- prediction ----------------------------------------------------------------
    def _scaled(self, X):
        # The bags as given: the distances to the concepts scale them a strip at a time.
        return self._validate_predict(X)

    def _selected_minima(self, bags):
        """M of the selected concepts (rows) against the bags as given (columns)."""
        sel = self.selected_concepts_
        if sel.size == 0:
            return np.zeros((0, bags.n_bags))
        return minima_to_bags(self.concepts_[sel], bags, self.offset_, self.scale_, self.center_, self.n_jobs)

    def _decision(self, bags):
        F = miles_features(self._selected_minima(bags), self.sigma_)
        f = F @ self.coef_[:, self.selected_concepts_].T + self.intercept_
        return f[:, 0] if f.shape[1] == 1 else f

    def instance_contributions(self, X, *, per_bag=False):
        """Each instance's contribution to its bag's decision value (Chen, Bi and Wang, 2006).

        A selected concept k contributes ``w_k phi_k(B)`` to bag B's
        decision value, and ``phi_k(B)`` is attained at the instances of B
        nearest to the concept; each of those (``m_k`` of them at an exact
        tie) receives ``w_k exp(-||x - c_k||^2 / sigma^2) / m_k``. An
        instance's score is the sum over the concepts, so a bag's scores sum
        to its decision value minus ``intercept_`` (to rounding). A large
        positive score marks an instance that carries the positive label;
        this is a score, not a probability. It depends on the instance's
        bag (only its bag's nearest instance to a concept shares that
        concept's term); :meth:`instance_scores` is instead the decision
        value of a bag holding the instance alone.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
            Bags whose instances are scored.
        per_bag : bool, default=False
            Return one array per bag instead of one over all instances
            (:func:`mil.base.split_by_bag`).

        Returns
        -------
        contributions : ndarray of shape (n_instances,) or (n_instances, n_classes), or list of ndarray
            Over all instances of `X`, bag after bag. Two classes: towards
            the positive class; more: one column per class.
        """
        check_is_fitted(self, "classes_")
        bags = float64_bags(apply_scaling(self._validate_predict(X), self.offset_, self.scale_))
        sel = self.selected_concepts_
        n_out = 1 if self.coef_.shape[0] == 1 else self.coef_.shape[0]
        if sel.size == 0:
            out = np.zeros((bags.instances.shape[0], n_out))
        else:
            # Squared distances from every instance to each selected concept (one-instance bags).
            concepts = Bags._trusted(np.ascontiguousarray(self.concepts_[sel]),
                                     np.arange(sel.size + 1, dtype=np.intp))
            D = minima(bags, concepts, centre=self.center_, n_jobs=self.n_jobs)
            starts = bags.offsets[:-1]
            sizes = np.diff(bags.offsets)
            nearest = np.repeat(np.minimum.reduceat(D, starts, axis=0), sizes, axis=0)
            at_min = D == nearest
            ties = np.repeat(np.add.reduceat(at_min.astype(np.float64), starts, axis=0), sizes, axis=0)
            share = np.where(at_min, np.exp(-D / (self.sigma_ * self.sigma_)) / ties, 0.0)
            out = share @ self.coef_[:, sel].T
        if n_out == 1:
            out = out[:, 0]
        return split_by_bag(out, bags.offsets) if per_bag else out



@fill_doc
class MInDClassifier(InstanceOutputMixin, TunedClassifierMixin, BaseBagClassifier):
    """MInD: an RBF SVM on each bag's dissimilarities to the training bags (Cheplygina, Tax and Loog, 2015).

    A bag becomes its vector of dissimilarities to the training bags (or
    to ``n_prototypes`` of them drawn at random), built from the Euclidean
    distance of each instance to the nearest instance of the other bag
    (:class:`BagDissimilarityEmbedding`): by default their mean over both
    bags' instances (the average Hausdorff distance; the original MInD's
    mean-min takes the mean over the first bag's instances only, and is
    ``dissimilarity="meanmin"``). An SVM
    with the Gaussian kernel ``exp(-gamma ||u - v||^2)`` on these vectors
    (scikit-learn's ``SVC`` on a precomputed kernel) classifies them.
    ``instance_scores``, ``instance_proba`` and ``predict_instances`` are
    the outputs for a bag holding the instance alone
    (:class:`mil.base.InstanceOutputMixin`).

    By default C and gamma are chosen inside ``fit`` by a stratified inner
    cross-validation over the training bags: the dissimilarities of an
    inner fold are a slice of the training bags' matrix (prototypes = the
    inner-training bags), computed once. ``kernel="linear"`` replaces the
    RBF kernel by a linear one on the dissimilarity vectors (standardised on
    the training bags), and ``kernel="auto"`` lets the inner CV choose
    between the two (Cheplygina, Tax and Loog also report linear
    classifiers on dissimilarities).

    Parameters
    ----------
    C : float, default=None
        SVM penalty; None chooses it from `Cs`.
    gamma : float, default=None
        RBF width; None chooses ``gamma_scales`` divided by the median
        squared distance between the training bags' dissimilarity vectors
        (the median heuristic, once per fit; an inner fold, whose vectors
        have one entry per prototype among its training bags, scales it by
        the ratio of the vectors' lengths).
    kernel : {"rbf", "linear", "auto"}, default="rbf"
        The SVM's kernel on the dissimilarity vectors. ``"rbf"``:
        ``exp(-gamma ||u - v||^2)``. ``"linear"``: ``z(u) . z(v) / n`` with
        ``z`` the vector standardised by the training bags' column means and
        standard deviations and ``n`` its length (gamma is then unused).
        ``"auto"``: the linear kernel is one more point of the inner grid,
        after the RBF widths (preferred at equal inner accuracy: the RBF
        kernel); without inner folds, the RBF kernel.
    dissimilarity : {"meanmin", "minmin", "maxmin", "hausdorff", "average"}, default="average"
        How bags are compared (see :class:`BagDissimilarityEmbedding`).
        The average Hausdorff distance is mean-min made symmetric (the
        mean over both bags' instances of the distance to the other bag).
    Cs : array-like, default=(1.0, 10.0, 100.0, 1000.0, 10000.0)
        Candidate values of C when ``C=None``.
    gamma_scales : array-like, default=(1/256, 1/64, 1/16, 1/4, 1, 4, 16)
        Candidate multiples of the median heuristic when ``gamma=None``
        (the first is preferred at equal inner accuracy).
    [inner-cv parameters]
    n_prototypes : int, default=None
        None: every training bag is a prototype. An int: that many training
        bags drawn at random (seeded by `random_state`).
    scale : {"standard", "minmax", "maxabs"} or None, default=None
        Feature scaling fitted on the training instances. None (distances
        on the raw features, as Cheplygina et al.) divides features of
        magnitude beyond about 1e120 or below 1e-120 by a power of two
        (exact; ``scale_``), so the model is the same at any magnitude; an
        absolute ``gamma`` still refers to the features as given.
    class_weight : "balanced", dict or None, default=None
        Multiplies `sample_weight` (the SVM's per-bag C).
    positive_class : label, default=None
        Accepted for the project's common interface; the model treats both
        classes alike, so it changes no output.
    n_jobs : int, default=None
        Threads of the distance pass.
    random_state : int, RandomState or None, default=None
        Seeds the inner folds' shuffle and, through an independent seed
        drawn from it, the prototype draw.

    Attributes
    ----------
    classes_ : ndarray
        The class labels.
    best_params_ : dict
        ``{"kernel": kernel_, "gamma": gamma_, "C": C}`` chosen.
    kernel_ : {"rbf", "linear"}
        The kernel fitted (the inner CV's choice for ``kernel="auto"``).
    gamma_ : float or None
        The RBF kernel's gamma on the training bags' vectors; None for the
        linear kernel.
    cv_results_ : ndarray of shape (n_gammas, n_Cs) or None
        The inner CV's `scoring` of each grid point (None without inner
        folds); one row per gamma (``kernel="rbf"``), a single row (``"linear"``), or
        the gammas' rows then the linear kernel's (``"auto"``).
    center_ : ndarray of shape (n_features,)
        The mean of the scaled training instances (the distance pass
        centres the instances on it).
    prototypes_ : Bags
        Prototype bags in the scaled feature space.
    prototype_indices_ : ndarray of int
        Their indices among the training bags of positive weight.
    svm_ : sklearn.svm.SVC
        The SVM on the precomputed kernel.
    support_vectors_ : ndarray of shape (n_support, n_prototypes)
        The dissimilarity vectors of the SVM's support bags.
    dissimilarity_mean_ : ndarray of shape (n_prototypes,) or None
        The training bags' column means of the dissimilarity vectors (the
        linear kernel's standardisation); None when the RBF kernel was
        chosen.
    dissimilarity_scale_ : ndarray of shape (n_prototypes,) or None
        Their column standard deviations; None with the RBF kernel.
    [inner-cv attributes]

    See Also
    --------
    BagDissimilarityEmbedding : The dissimilarity vectors alone, for any model.
    MILESClassifier : A 1-norm SVM on instance similarities.

    [cheplygina2015]

    [rng examples]
    >>> bags = [rng.normal(size=(4, 2)) for _ in range(20)]
    >>> y = np.arange(20) % 2
    >>> for b, label in zip(bags, y):
    ...     b[:2] += 4 * label
    >>> clf = MInDClassifier(random_state=0).fit(bags, y)
    >>> clf.predict(bags[:4])
    array([0, 1, 0, 1])
    """

    _binary_only = False
    _classes_alike = True
    _seed_names = ("model", "prototypes")

    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="neither"), None],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "kernel": [StrOptions({"rbf", "linear", "auto"})],
        "dissimilarity": [StrOptions(set(DISSIMILARITIES))],
        "Cs": _GRID,
        "gamma_scales": _GRID,
        "n_prototypes": [Interval(Integral, 1, None, closed="left"), None],
        "scale": _SCALES,
        "n_jobs": [Integral, None],
        **CONSTRAINTS,
    }

    def __init__(self, C=None, gamma=None, *, kernel="rbf", dissimilarity="average",
                 Cs=(1.0, 10.0, 100.0, 1000.0, 10000.0),
                 gamma_scales=(0.00390625, 0.015625, 0.0625, 0.25, 1.0, 4.0, 16.0),
                 cv=5, cv_repeats=1, scoring="accuracy", n_prototypes=None, scale=None,
                 class_weight=None, positive_class=None, n_jobs=None, random_state=None):
        keep_params(self, locals())

    # -- the tuning engine's hooks ------------------------------------------------------
    def _represent(self, bags, target, seeds):
        self.offset_, self.scale_ = fit_scaling(bags.instances, self.scale, rescale_extremes=True)
        bags = apply_scaling(bags, self.offset_, self.scale_)
        self.center_ = bags.instances.mean(axis=0)
        index = np.arange(bags.n_bags)
        if self.n_prototypes is not None and self.n_prototypes < bags.n_bags:
            rng = np.random.RandomState(seeds.prototypes)
            index = np.sort(rng.choice(bags.n_bags, self.n_prototypes, replace=False))
        self.prototype_indices_ = index
        self.prototypes_ = subset(bags, index)
        D = bag_dissimilarities(bags, None, self.dissimilarity, centre=self.center_, n_jobs=self.n_jobs)
        rows = []
        if self.kernel != "linear":
            if self.gamma is not None:
                rows = [{"kernel": "rbf", "gamma": float(self.gamma) / absolute_unit(self, 2), "_relative": False}]
            else:
                F = D[:, index]
                ref = _median_off_diagonal(sq_dists(F, F))  # once per fit, over all training pairs
                rows = [{"kernel": "rbf", "gamma": float(g) / ref, "_relative": True, "_scale": float(g)}
                        for g in positive_grid(self.gamma_scales, "gamma_scales")]
        if self.kernel != "rbf":
            rows.append({"kernel": "linear", "gamma": None})
        return Bunch(D=D, prototype=index, rows=rows)

    def _grid(self, rep):
        return rep.rows, _C_grid(self)

    def _untuned(self, rows, cols):
        rbf = [i for i, r in enumerate(rows) if r["kernel"] == "rbf"] or list(range(len(rows)))
        return rbf[len(rbf) // 2], len(cols) // 2

    def _cut(self, rep, train, test):
        # Prototypes of an inner fold: its training bags among the prototypes.
        cols = np.intersect1d(rep.prototype, train) if train.size else rep.prototype
        if cols.size == 0:
            cols = rep.prototype
        F_train, F_test = rep.D[np.ix_(train, cols)], rep.D[np.ix_(test, cols)]
        # A relative gamma refers to vectors of every prototype: a fold's shorter vectors have
        # proportionally smaller squared distances.
        fold = Bunch(F_train=F_train, S_train=sq_dists(F_train, F_train), S_test=sq_dists(F_test, F_train),
                     length_ratio=rep.prototype.size / cols.size)
        if self.kernel != "rbf":
            mean, scale = column_scaling(F_train)
            Z_train = (F_train - mean) / scale
            fold.update(mean=mean, scale=scale, K_train=_linear_kernel(Z_train, Z_train),
                        K_test=_linear_kernel((F_test - mean) / scale, Z_train))
        return fold

    def _design(self, fold, row):
        if row["kernel"] == "linear":
            return fold.K_train, fold.K_test
        g = row["gamma"] * fold.length_ratio if row["_relative"] else row["gamma"]
        return np.exp(-g * fold.S_train), np.exp(-g * fold.S_test)

    def _model(self, row, col, seeds, inner):
        # A tight tolerance (cheap on bag-sized problems) keeps the solution
        # from moving with the last bits of the distances (backends, instance order).
        return SVC(kernel="precomputed", C=col["C"], tol=1e-8, decision_function_shape="ovr")

    def _keep(self, rep, fold, row, col, model, selection):
        self.kernel_ = row["kernel"]
        self.gamma_ = row["gamma"]
        self.svm_ = model
        self.support_vectors_ = fold.F_train[model.support_]
        self.dissimilarity_mean_ = self.dissimilarity_scale_ = None
        if self.kernel_ == "linear":
            self.dissimilarity_mean_, self.dissimilarity_scale_ = fold.mean, fold.scale

    # -- prediction ----------------------------------------------------------------
    def _decision(self, bags):
        F = bag_dissimilarities(bags, self.prototypes_, self.dissimilarity, centre=self.center_, n_jobs=self.n_jobs)
        return self._svm_decision(F)

    def _svm_decision(self, F):
        """The SVM's decision values for dissimilarity vectors `F` (rows: bags)."""
        K = np.zeros((F.shape[0], self.svm_.shape_fit_[1]))
        if self.kernel_ == "linear":
            mean, scale = self.dissimilarity_mean_, self.dissimilarity_scale_
            K[:, self.svm_.support_] = _linear_kernel((F - mean) / scale, (self.support_vectors_ - mean) / scale)
        else:
            K[:, self.svm_.support_] = np.exp(-self.gamma_ * sq_dists(F, self.support_vectors_))
        return self.svm_.decision_function(K)
