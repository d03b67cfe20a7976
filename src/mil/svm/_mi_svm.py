"""mi-SVM and MI-SVM (Andrews, Tsochantaridis and Hofmann, NIPS 2002).

Both alternate between a support vector machine on instances and a guess of
the instance labels the bag labels allow, around scikit-learn's
``LinearSVC`` (liblinear; memory linear in the instances) or ``SVC``:

- mi-SVM: every instance of a positive bag starts positive; after each fit,
  those instances take the sign of the decision value, and a positive bag
  left without a positive instance gets its highest-scoring one back. The
  instances of negative bags stay negative. Stops when no label changes.
- MI-SVM: each positive bag is represented by one witness, first its mean
  instance, then its highest-scoring instance; the SVM is fitted on the
  witnesses and every instance of the negative bags. Stops when no witness
  changes.

A bag's score is the largest decision value of its instances (positive
above 0, or above a cut fitted on out-of-fold bag scores with
``threshold="cv"``); ``instance_scores`` gives each instance's decision value, the
score of the bag that holds it alone (:class:`mil.base.InstanceOutputMixin`).

The RBF kernel is exact up to ``max_exact`` training instances: the squared
distances between the (scaled) training instances are computed once per
``fit``, every inner-CV fold takes its rows and columns from them, each
bandwidth's kernel matrix is formed once and serves every ``C`` and every
alternation of an ``SVC(kernel="precomputed")``; new bags are scored against
the stored support instances. Beyond ``max_exact``, Nystroem features
(Williams and Seeger, NIPS 2001) with ``LinearSVC``, so memory stays linear
in the instances.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.kernel_approximation import Nystroem
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC, LinearSVC
from sklearn.utils._param_validation import Interval, StrOptions

from mil._tuning import (CONSTRAINTS, SCORING_CONSTRAINT, CalibratedScoresMixin, fit_inputs, inner_folds,
                         positive_grid, select)
from mil.base import BaseBagClassifier, InstanceOutputMixin, keep_params
from mil.preprocessing import _absolute_unit, _fit_scaled, _scaled_as_fitted
from mil.svm._kernels import median_sq_distance

__all__ = ["miSVMClassifier", "MISVMClassifier"]


def _bag_argmax(f, offsets, bags):
    """Index of the highest-scoring instance of each bag in `bags` (first on ties)."""
    return np.array([offsets[b] + int(np.argmax(f[offsets[b]:offsets[b + 1]])) for b in bags],
                    dtype=np.intp)


def _instance_rows(offsets, bags):
    """Instance indices of `bags` (in that order) for bag offsets `offsets`."""
    if len(bags) == 0:
        return np.zeros(0, dtype=np.intp)
    return np.concatenate([np.arange(offsets[b], offsets[b + 1]) for b in bags]).astype(np.intp)


def _take2(A, rows, block=256):
    """A[np.ix_(rows, rows)] (two takes, about twice as fast), in blocks of rows so that no
    rows x n intermediate is held."""
    out = np.empty((rows.shape[0], rows.shape[0]), dtype=A.dtype)
    for i in range(0, rows.shape[0], block):
        out[i:i + block] = np.take(np.take(A, rows[i:i + block], axis=0), rows, axis=1)
    return out


def _rbf_from_sq(D2, gamma, out=None):
    """exp(-gamma * D2), in `out` (may be D2) or a new array."""
    K = np.multiply(D2, -gamma, out=out)
    return np.exp(K, out=K)


class _AlternatingSVM(InstanceOutputMixin, CalibratedScoresMixin, BaseBagClassifier):
    """Shared machinery of mi-SVM and MI-SVM (not public)."""

    _binary_only = True
    # MI-SVM's first witnesses are the positive bags' means: points beyond the instances.
    _bag_means = False

    _parameter_constraints = {
        "kernel": [StrOptions({"linear", "rbf"})],
        "C": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "gamma": [Interval(Real, 0, None, closed="neither"), "array-like", StrOptions({"auto"})],
        "gamma_scale": [StrOptions({"median", "absolute"})],
        "max_exact": [Interval(Integral, 0, None, closed="left")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "scale": [StrOptions({"standard", "minmax", "maxabs", "auto"}), None],
        "threshold": [StrOptions({"zero", "cv"})],
        **CONSTRAINTS,
        "scoring": [*SCORING_CONSTRAINT, StrOptions({"auto"})],
    }

    #: What ``"auto"`` means for `gamma`, `scale` and `scoring` (each learner's measured setting).
    _auto = {}

    def __init__(self, kernel="rbf", *, C=(1.0, 10.0, 100.0), gamma="auto", gamma_scale="median",
                 max_exact=10000, n_components=64, max_iter=50, scale="auto", cv=3, cv_repeats=1,
                 threshold="cv", scoring="auto", class_weight=None, positive_class=None, random_state=None):
        keep_params(self, locals())

    # -- instance SVM ------------------------------------------------------------
    def _features(self, instances):
        return instances if self.feature_map_ is None else self.feature_map_.transform(instances)

    def _svm(self, precomputed=False):
        if precomputed:
            return SVC(kernel="precomputed", C=self.C_)
        # liblinear, squared hinge: the primal Newton solver when instances outnumber
        # features (memory linear in the instances; the hinge loss's dual coordinate
        # descent took 10x longer to converge at C >= 1 on Musk1).
        return LinearSVC(C=self.C_, loss="squared_hinge", dual="auto", max_iter=10000,
                         random_state=0 if self.random_state is None else self.random_state)

    def _fit_svm(self, Z, t, w, precomputed=False):
        svm = self._svm(precomputed)
        if np.unique(t).shape[0] < 2:
            raise ValueError("the instance labels hold one class; mi-SVM / MI-SVM need positive "
                             "and negative bags")
        import warnings

        from sklearn.exceptions import ConvergenceWarning
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return svm.fit(Z, t, sample_weight=w)

    # -- fitting -------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit by alternating instance labels (or witnesses) and SVM fits.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
        y : array-like of shape (n_bags,)
            Two classes; the positive class follows ``positive_class``.
        sample_weight : array-like of shape (n_bags,), default=None
            Per-bag weights (times `class_weight`); each instance the SVM
            sees carries its bag's weight. Bags of weight 0 are dropped first (as if absent).

        Returns
        -------
        self
        """
        bags, y_enc, weight, keep, n_total = fit_inputs(self, X, y, sample_weight)
        Cs, rel = positive_grid(self.C, "C"), positive_grid(self._setting("gamma"), "gamma")
        gammas = rel if self.kernel == "rbf" else rel[:1]
        bags = _fit_scaled(self, bags, self._setting("scale"))
        pos = y_enc == 1
        # The inner CV scores the grid and gives out-of-fold bag scores at the
        # chosen point, which calibrate predict_proba; with one grid point it runs
        # for the calibration alone.
        # The exact RBF kernel: squared distances between the fit's points (its
        # instances; MI-SVM: and its positive bags' means) once, for every inner fold,
        # bandwidth and C (about 2 x 8 x n^2 bytes with an inner fold's kernel, up to 3 x).
        D2 = None
        if self._exact(bags.instances.shape[0]):
            D2 = self._sq_distances(self._points(bags.instances, bags.offsets, pos))
        target = pos.astype(np.intp)
        folds = inner_folds(self.cv, target, random_state=self.random_state, repeats=self.cv_repeats,
                            keep=keep, n_total=n_total)
        sel = select(folds, (len(gammas), len(Cs)), lambda tr, te: self._fold_scores(bags, pos, weight, gammas,
                                                                                       Cs, D2, tr, te),
                     target, weight, scoring=self._setting("scoring"), intercept=self.threshold == "cv")
        self.cv_results_ = sel.scores
        g, c = gammas[sel.index[0]], Cs[sel.index[1]]
        ref = self._gamma_ref(bags)
        # The final fit's kernel takes the distances' place.
        K = None if D2 is None else _rbf_from_sq(D2, float(g) / ref, out=D2)
        del D2
        self._fit_one(bags, pos, weight, g, c, K=K, ref=ref)
        self.proba_scale_, self.threshold_ = sel.scale, sel.cut
        return self

    def _setting(self, name):
        """The parameter `name`, with ``"auto"`` replaced by the learner's own setting."""
        value = getattr(self, name)
        return self._auto[name] if isinstance(value, str) and value == "auto" else value

    def _exact(self, n_instances):
        return self.kernel == "rbf" and n_instances <= self.max_exact

    @staticmethod
    def _sq_distances(points):
        """Squared distances, clamped at 0, diagonal 0: scikit-learn's euclidean_distances(
        squared=True) operation for operation, in one n x n array (it holds two)."""
        D2 = points @ points.T
        D2 *= -2.0
        sq = np.einsum("ij,ij->i", points, points)
        D2 += sq[:, None]
        D2 += sq[None, :]
        np.maximum(D2, 0.0, out=D2)
        np.fill_diagonal(D2, 0.0)
        return D2

    def _points(self, Z, offsets, pos):
        """The points the alternation draws on: the instances, for MI-SVM followed by the
        positive bags' means (its first witnesses)."""
        if not self._bag_means:
            return Z
        pos_bags = np.flatnonzero(pos)
        means = np.add.reduceat(Z, offsets[:-1], axis=0)[pos_bags] / np.diff(offsets)[pos_bags, None]
        return np.vstack([Z, means])

    def _point_rows(self, offsets, pos, tr):
        """Indices of the points of the bags `tr` (a fit on bags[tr]) among the points of all bags."""
        rows = _instance_rows(offsets, tr)
        if not self._bag_means:
            return rows
        rank = np.cumsum(pos) - 1  # a positive bag's position among the positive bags
        return np.r_[rows, offsets[-1] + rank[tr[pos[tr]]]].astype(np.intp)

    def _fold_scores(self, bags, pos, weight, gammas, Cs, D2, tr, te):
        """The bag scores of the bags `te` from a fit on the bags `tr`, for every (gamma, C):
        shape (n_gammas, n_C, len(te))."""
        sub, sub_w = bags[tr], None if weight is None else weight[tr]
        sub_D2 = None
        if self._exact(sub.instances.shape[0]):
            if D2 is None:  # the fit itself is beyond max_exact, this fold is not
                sub_D2 = self._sq_distances(self._points(sub.instances, sub.offsets, pos[tr]))
            else:
                sub_D2 = _take2(D2, self._point_rows(bags.offsets, pos, tr))
        ref = self._gamma_ref(sub)
        test = bags[te]
        out = np.empty((len(gammas), len(Cs), te.shape[0]))
        for i, g in enumerate(gammas):
            K = None
            if sub_D2 is not None:  # one kernel matrix at a time, formed once per bandwidth
                # (in the distances' place when there is one bandwidth)
                K = _rbf_from_sq(sub_D2, float(g) / ref, out=sub_D2 if len(gammas) == 1 else None)
            for j, c in enumerate(Cs):
                est = clone(self)
                est._fit_one(sub, pos[tr], sub_w, g, c, K=K, ref=ref)
                out[i, j] = est._bag_scores(test)
            del K
        return out

    def _gamma_ref(self, bags):
        """What a relative gamma is relative to (1 / it: the absolute scale)."""
        if self.kernel != "rbf":
            return 1.0
        if self.gamma_scale != "median":  # absolute: on the features as given
            return _absolute_unit(self, 2)
        return median_sq_distance(bags.instances)

    def _fit_one(self, bags, pos, weight, rel_gamma, C, K=None, ref=None):
        """One alternating fit on scaled bags with scalar (gamma, C); `K` the kernel matrix of
        the points of `bags` for the exact RBF kernel when known, `ref` their `_gamma_ref`."""
        self.C_ = float(C)
        self.gamma_ = None
        self.feature_map_ = None
        self.support_vectors_ = None
        n = bags.instances.shape[0]
        exact = self._exact(n)
        if self.kernel == "rbf":
            self.gamma_ = float(rel_gamma) / (self._gamma_ref(bags) if ref is None else ref)
            if not exact:
                self.feature_map_ = Nystroem(gamma=self.gamma_, n_components=min(self.n_components, n),
                                             random_state=self.random_state).fit(bags.instances)
        inst_bag = np.repeat(np.arange(bags.n_bags), bags.sizes)
        w_inst = None if weight is None else weight[inst_bag]
        if exact:
            points = self._points(bags.instances, bags.offsets, pos)
            if K is None:
                D2 = self._sq_distances(points)
                K = _rbf_from_sq(D2, self.gamma_, out=D2)  # in the distances' place
            # MI-SVM picks witnesses in positive bags: only their instances need scores.
            scored = _instance_rows(bags.offsets, np.flatnonzero(pos)) if self._bag_means else None
            fit_rows, last = self._precomputed_solver(K, n, scored)
        else:
            points = self._points(self._features(bags.instances), bags.offsets, pos)
            fit_rows, last = self._feature_solver(points, n)
        self.n_iter_ = self._alternate(fit_rows, bags.offsets, inst_bag, pos, w_inst)
        if exact:  # the support instances (or, after one MI-SVM step, bag means) score new bags
            self.support_vectors_ = points[last["support"]]

    def _feature_solver(self, Z, n):
        """fit(rows, t, w): an SVM on the points `Z[rows]` (all when None); the n instances' decision values."""
        def fit(rows, t, w):
            self.svm_ = self._fit_svm(Z if rows is None else Z[rows], t, w)
            return self.svm_.decision_function(Z[:n])
        return fit, {}

    def _precomputed_solver(self, K, n, scored=None):
        """As `_feature_solver` on the (symmetric) kernel matrix `K` of the points; with
        `scored`, only those instances' decision values (the others -inf)."""
        last = {}
        K_scored = None if scored is None else np.take(K, scored, axis=0)  # once, not per fit

        def fit(rows, t, w):
            if rows is None:
                Kt = K
            elif "rows" not in last or last["rows"].shape != rows.shape:
                Kt = last["Kt"] = _take2(K, rows)
            else:  # MI-SVM: only the witnesses' rows and columns change between alternations
                Kt = last["Kt"]
                changed = np.flatnonzero(rows != last["rows"])
                Kt[changed] = np.take(np.take(K, rows[changed], axis=0), rows, axis=1)
                Kt[:, changed] = Kt[changed].T
            last["rows"] = rows
            self.svm_ = self._fit_svm(Kt, t, w, precomputed=True)
            sv = self.svm_.support_ if rows is None else rows[self.svm_.support_]
            last["support"] = sv
            # K is symmetric: the support rows against the instances; gathering them costs
            # about 3 reads of their size, so beyond a third of the rows, K itself.
            dual = self.svm_.dual_coef_[0]
            if K_scored is not None:
                alpha = np.zeros(K.shape[0])
                alpha[sv] = dual
                f = np.full(n, -np.inf)
                f[scored] = K_scored @ alpha + self.svm_.intercept_[0]
                return f
            if 3 * sv.size > K.shape[0]:
                alpha = np.zeros(K.shape[0])
                alpha[sv] = dual
                return alpha @ K[:, :n] + self.svm_.intercept_[0]
            return dual @ np.take(K, sv, axis=0)[:, :n] + self.svm_.intercept_[0]
        return fit, last

    # -- prediction ----------------------------------------------------------------
    @staticmethod
    def _bag_scores_from(f, offsets):
        return np.maximum.reduceat(f, offsets[:-1])

    def _instance_f(self, bags):
        if self.support_vectors_ is None:
            return self.svm_.decision_function(self._features(bags.instances))
        # exact RBF: K(instances, support instances) @ dual coefficients, in row blocks
        X, sv = bags.instances, self.support_vectors_
        dual, b = self.svm_.dual_coef_[0], self.svm_.intercept_[0]
        step = max(1, (1 << 21) // max(sv.shape[0], 1))  # blocks of about 16 MB
        return np.concatenate([rbf_kernel(X[i:i + step], sv, gamma=self.gamma_) @ dual + b
                               for i in range(0, X.shape[0], step)] or [np.zeros(0)])

    def _bag_scores(self, bags):
        """Raw bag scores (largest instance decision value), before ``threshold_``."""
        return self._bag_scores_from(self._instance_f(bags), bags.offsets)

    def _decision(self, bags):
        return self._bag_scores(bags) - self.threshold_

    def _instance_scores(self, bags):
        # The instance's SVM decision value: the score of the bag that holds it alone
        # (a bag's score is the largest of its instances'), oriented towards classes_[1].
        return self._oriented(self._instance_f(_scaled_as_fitted(self, bags)) - self.threshold_)


_PARAMS_DOC = """
    Parameters
    ----------
    kernel : {"linear", "rbf"}, default="rbf"
        "linear": liblinear (``LinearSVC``, squared hinge loss), memory
        linear in the instances, several times faster. "rbf": the exact
        ``SVC`` up to `max_exact` training instances, Nystroem features and
        ``LinearSVC`` beyond.
    C : float or list of float, default=(1.0, 10.0, 100.0)
        A list is tuned by an inner `cv`-fold CV over the training bags.
    gamma : float, list of float or "auto", default="auto"
        RBF bandwidth (tuned when a list); with ``gamma_scale="median"``
        a multiple of 1 / the median squared distance between training
        instances. "auto": {0.25, 1, 4, 16} for mi-SVM, {0.25, 1, 4} for
        MI-SVM (the grids measured on the results page).
    gamma_scale : {"median", "absolute"}, default="median"
    max_exact : int, default=10000
        Largest number of training instances for the exact RBF SVM. Its
        squared distances and an inner fold's kernel matrix are held during
        ``fit``: about 2 x 8 x n squared bytes for n training instances
        (400 MB at 5000, 1.6 GB at 10 000; up to 3 x for MI-SVM's witness
        kernel or several bandwidths); the fitted model keeps only the
        support instances.
    n_components : int, default=64
        Nystroem features beyond `max_exact` (the cost of an alternating
        fit grows about linearly with them: a default mi-SVM fit on 200
        bags x 24 instances x 10 features takes about 4 s of CPU with 64,
        6 s with 100, 80 s with 500; ``benchmarks/bench_mi_svm_approx.py``).
        On the five shipped sets, forced with ``max_exact=0``, 64 features
        gave mi-SVM a five-set mean 0.5 points of accuracy and 1.0 of AUC
        below the exact kernel over seeds 0-2 (see the SVM results page);
        more features approximate the kernel more closely at a cost linear
        in their number.
    max_iter : int, default=50
        Largest number of alternations.
    scale : {"standard", "minmax", "maxabs", "auto"} or None, default="auto"
        Feature scaling fitted on the training instances. "auto":
        "standard" for mi-SVM, "minmax" for MI-SVM (measured +0.7 accuracy
        and +1.0 AUC on average over standard scaling on the five shipped
        sets).
    cv : int, CV splitter, iterable or None, default=3
        Inner CV for the grid (:ref:`inner-cv`): an int is that many
        stratified folds shuffled by `random_state`, None is 5 folds as in
        scikit-learn, a splitter or an iterable is used as given; ``cv=1``
        fits no inner model (the middle of each list, scale 1, cut 0). Its
        out-of-fold bag scores at the chosen point calibrate
        ``predict_proba`` (with a single grid point it runs for that alone).
    cv_repeats : int, default=1
        Shuffles of an int `cv`, pooled.
    threshold : {"zero", "cv"}, default="cv"
        Where the bag score (largest instance decision value) is cut.
        "zero": at 0, the rule of Andrews et al. "cv": at ``threshold_``,
        from a Platt fit with an intercept, ``sigmoid(a s + b)``, on the
        inner CV's out-of-fold bag scores (``threshold_ = -b / a``; the
        same SVM, only the cut moves). A bag's score is the largest of its
        instances', so a large negative bag tends to score above 0; the
        moved cut corrects for it where the training bags show it. No
        extra SVM fit; 0 without inner folds.
    scoring : {"accuracy", "roc_auc", "neg_log_loss", "auto"}, default="auto"
        "auto": "roc_auc" for mi-SVM, "accuracy" for MI-SVM (each chosen
        among eight ranking rules on the published folds, see the results
        page). What the inner CV maximises over the grid, from each point's
        out-of-fold bag scores (weighted): the accuracy at the cut
        `threshold` places (0, or with ``threshold="cv"`` the point's own
        fitted cut), the AUC (the ranking of the bags, wherever the cut
        falls), or minus the log loss of the probabilities ``predict_proba``
        would fit on them. Ties go to the first C, then the first gamma.
    class_weight : "balanced", dict or None, default=None
    positive_class : label or None, default=None
        The multi-instance positive class (see
        :func:`mil.utils.validation.positive_index`).
    random_state : int, RandomState or None, default=None
        Seeds the inner folds' shuffles, the Nystroem sample and
        liblinear's coordinate order.

    Attributes
    ----------
    classes_ : ndarray
    svm_ : LinearSVC or SVC
        The last instance-level SVM; for the exact RBF kernel an
        ``SVC(kernel="precomputed")`` whose ``dual_coef_`` and
        ``intercept_`` weigh ``support_vectors_``.
    support_vectors_ : ndarray of shape (n_support, n_features) or None
        Exact RBF kernel: the support instances (scaled features; for
        MI-SVM stopped after one step, possibly bag means); an instance's
        decision value is ``rbf(x, support_vectors_) @ svm_.dual_coef_[0] +
        svm_.intercept_[0]``. None otherwise.
    cv_results_ : ndarray of shape (n_gamma, n_C) or None
        The inner CV's score of each grid point by `scoring`: the weighted
        share of correctly classified out-of-fold bags, their AUC, or minus
        the log loss. None without inner folds.
    C_, gamma_ : float
        The values used (``gamma_`` absolute; None for the linear kernel).
    n_iter_ : int
        Alternations until no label (witness) changed, at most `max_iter`.
    proba_scale_ : float
        The scale ``a`` of ``predict_proba``'s
        ``sigmoid(a * (bag score - threshold_))``, fitted by log loss on the
        inner CV's out-of-fold bag scores (1 without inner folds).
    threshold_ : float
        The cut of the bag score: 0 unless ``threshold="cv"``.
        ``decision_function`` and ``instance_scores`` return the scores
        less ``threshold_``.
    n_features_in_ : int

    References
    ----------
    S. Andrews, I. Tsochantaridis and T. Hofmann, "Support vector machines
    for multiple-instance learning", NIPS 2002.
"""


def _example(name):
    return f"""
    Examples
    --------
    >>> from mil.svm import {name}
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=40, random_state=0)
    >>> clf = {name}(random_state=0).fit(X[:30], y[:30])
    >>> clf.predict(X[30:]).shape
    (10,)
    """


class miSVMClassifier(_AlternatingSVM):
    __doc__ = """mi-SVM: an instance-level SVM with the instance labels of positive bags inferred.

    Instances of negative bags are negative; those of positive bags start
    positive and then take the sign of the SVM's decision value, at least
    one per positive bag staying positive (its highest-scoring instance),
    until no label changes (Andrews, Tsochantaridis and Hofmann 2002).
    """ + _PARAMS_DOC + _example("miSVMClassifier")

    _auto = {"gamma": (0.25, 1.0, 4.0, 16.0), "scale": "standard", "scoring": "roc_auc"}

    def _alternate(self, fit, offsets, inst_bag, pos, w_inst):
        pos_inst = pos[inst_bag]
        t = pos_inst.astype(np.intp)
        pos_bags = np.flatnonzero(pos)
        for it in range(1, self.max_iter + 1):
            f = fit(None, t, w_inst)
            new = np.where(pos_inst, f > 0, False).astype(np.intp)
            any_pos = np.zeros(len(pos), dtype=bool)
            np.logical_or.at(any_pos, inst_bag, new.astype(bool))
            empty = pos_bags[~any_pos[pos_bags]]
            if empty.size:
                new[_bag_argmax(f, offsets, empty)] = 1
            if np.array_equal(new, t):
                return it
            t = new
        return self.max_iter


class MISVMClassifier(_AlternatingSVM):
    __doc__ = """MI-SVM: an SVM on one witness per positive bag and every negative instance.

    Each positive bag is represented by its witness, first the bag's mean
    instance, then its highest-scoring instance under the current SVM, until
    no witness changes (Andrews, Tsochantaridis and Hofmann 2002).
    """ + _PARAMS_DOC + _example("MISVMClassifier")

    _bag_means = True
    _auto = {"gamma": (0.25, 1.0, 4.0), "scale": "minmax", "scoring": "accuracy"}

    def _alternate(self, fit, offsets, inst_bag, pos, w_inst):
        neg_inst = np.flatnonzero(~pos[inst_bag])
        pos_bags = np.flatnonzero(pos)
        # The witnesses start at the bags' means (in the feature space of the SVM): the
        # points after the instances (see _points).
        n = offsets[-1]
        w_neg = None if w_inst is None else w_inst[neg_inst]
        w_pos = None if w_inst is None else w_inst[offsets[pos_bags]]
        w = None if w_inst is None else np.r_[w_neg, w_pos]
        t = np.r_[np.zeros(neg_inst.size, dtype=np.intp), np.ones(pos_bags.size, dtype=np.intp)]
        witness = None
        W = n + np.arange(pos_bags.size)
        for it in range(1, self.max_iter + 1):
            f = fit(np.r_[neg_inst, W].astype(np.intp), t, w)
            new = _bag_argmax(f, offsets, pos_bags)
            if witness is not None and np.array_equal(new, witness):
                self.witnesses_ = witness
                return it
            witness = new
            W = witness
        self.witnesses_ = witness
        return self.max_iter
