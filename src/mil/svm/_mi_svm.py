"""mi-SVM and MI-SVM (Andrews, Tsochantaridis and Hofmann, NIPS 2002).

Both alternate between a support vector machine on instances and a guess of
the instance labels the bag labels allow, around a linear squared-hinge SVM
(``mil.svm._squared_hinge``: liblinear's problem solved by a finite Newton
method; scikit-learn's ``LinearSVC`` beyond 1,024 features; memory linear in
the instances) or scikit-learn's ``SVC``:

- mi-SVM: every instance of a positive bag starts positive; after each fit,
  those instances take the sign of the decision value, and a positive bag
  left without a positive instance gets its highest-scoring one back. The
  instances of negative bags stay negative. Stops when no label changes
  (up to ``tol``).
- MI-SVM: each positive bag is represented by one witness, first its mean
  instance, then its highest-scoring instance; the SVM is fitted on the
  witnesses and every instance of the negative bags. Stops when no witness
  changes (up to ``tol``).

A bag's score is the largest decision value of its instances (positive
above 0, or above a cut fitted on out-of-fold bag scores with
``threshold="cv"``); ``instance_scores`` gives each instance's decision value, the
score of the bag that holds it alone (:class:`mil.base.InstanceOutputMixin`).

The learners run on :mod:`mil._tuning`: the representation is the scaled
training bags and, for the exact RBF kernel (up to ``max_exact`` training
instances), the squared distances between the points the alternation
draws on, computed once per ``fit``; every inner fold takes its rows and
columns from them, each bandwidth's kernel matrix is formed once and serves
every ``C`` and every alternation of an ``SVC(kernel="precomputed")``; new
bags are scored against the stored support instances. Beyond
``max_exact``, Nystroem features (Williams and Seeger, NIPS 2001) with the
linear SVM, so memory stays linear in the instances; each refit of an
alternation starts from the previous SVM. The model at a grid
point is one alternating fit (:class:`_Alternation`).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.kernel_approximation import Nystroem
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC, LinearSVC
from sklearn.utils import Bunch
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_random_state

from mil._tuning import CONSTRAINTS, SCORING_CONSTRAINT, TunedClassifierMixin, positive_grid, quiet_fit
from mil._scaling import absolute_unit, fit_scaling, median_sq_distance, row_blocks, scaled_rows
from mil.base import BaseBagClassifier, InstanceOutputMixin, keep_params
from mil.svm._squared_hinge import MAX_NEWTON_FEATURES, SquaredHingeSVM
from mil.utils._docstrings import fill_doc
from mil.utils._segments import bag_argmax, bag_rows

__all__ = ["miSVMClassifier", "MISVMClassifier"]


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


def _mapped_rows(feature_map, instances, offset, scale):
    """``feature_map.transform`` of the instances scaled by (offset, scale), in float64, read a
    block of rows at a time (a float32 table is never copied whole)."""
    out = np.empty((instances.shape[0], feature_map.n_components))
    for i, j in row_blocks(*instances.shape):
        if j > i:
            out[i:j] = feature_map.transform(scaled_rows(instances[i:j], offset, scale))
    return out


def _nystroem_features(instances, offset, scale, gamma, n_components, seed):
    """The Nystroem map of the RBF kernel on the scaled instances, and their features.

    The map ``Nystroem(gamma, n_components, random_state=seed).fit`` would
    fit on the whole scaled table, without that table: Nystroem draws its
    landmarks as the first rows of ``permutation(n)`` of its random state and
    takes them in that order from its input, so it is given the landmarks,
    scaled in float64, in the order its own draw on that many rows returns
    them to. ``component_indices_`` then names the instances.
    """
    n = instances.shape[0]
    k = min(n_components, n)
    landmarks = check_random_state(seed).permutation(n)[:k]
    given = np.empty((k, instances.shape[1]))
    given[check_random_state(seed).permutation(k)] = scaled_rows(instances[np.sort(landmarks)], offset,
                                                                  scale)[np.argsort(np.argsort(landmarks))]
    feature_map = Nystroem(gamma=gamma, n_components=k, random_state=seed).fit(given)
    feature_map.component_indices_ = landmarks
    return feature_map, _mapped_rows(feature_map, instances, offset, scale)


def _points(Z, offsets, pos, bag_means):
    """The points the alternation draws on: the instances, for MI-SVM (`bag_means`) followed
    by the positive bags' means (its first witnesses)."""
    if not bag_means:
        return Z
    pos_bags = np.flatnonzero(pos)
    means = np.add.reduceat(Z, offsets[:-1], axis=0)[pos_bags] / np.diff(offsets)[pos_bags, None]
    return np.vstack([Z, means])


def _settled(old, new, tol):
    """Whether an alternation has settled: at most ``tol`` of its guessed labels changed (rounded down)."""
    return np.count_nonzero(old != new) <= int(tol * old.shape[0])


def _mi_alternation(fit, offsets, inst_bag, pos, w_inst, max_iter, tol):
    """mi-SVM's alternation: instance labels of the positive bags from the decision values."""
    pos_inst = pos[inst_bag]
    t = pos_inst.astype(np.intp)
    pos_bags = np.flatnonzero(pos)
    guessed = np.flatnonzero(pos_inst)
    for it in range(1, max_iter + 1):
        f = fit(None, t, w_inst)
        new = np.where(pos_inst, f > 0, False).astype(np.intp)
        any_pos = np.zeros(len(pos), dtype=bool)
        any_pos[inst_bag[new.astype(bool)]] = True
        empty = pos_bags[~any_pos[pos_bags]]
        if empty.size:
            new[bag_argmax(f, offsets, empty)] = 1
        if _settled(t[guessed], new[guessed], tol):
            return it, None
        t = new
    return max_iter, None


def _MI_alternation(fit, offsets, inst_bag, pos, w_inst, max_iter, tol):
    """MI-SVM's alternation: one witness per positive bag, first its mean (the points after
    the instances, see :func:`_points`), then its highest-scoring instance."""
    neg_inst = np.flatnonzero(~pos[inst_bag])
    pos_bags = np.flatnonzero(pos)
    n = offsets[-1]
    w_neg = None if w_inst is None else w_inst[neg_inst]
    w_pos = None if w_inst is None else w_inst[offsets[pos_bags]]
    w = None if w_inst is None else np.r_[w_neg, w_pos]
    t = np.r_[np.zeros(neg_inst.size, dtype=np.intp), np.ones(pos_bags.size, dtype=np.intp)]
    witness = None
    W = n + np.arange(pos_bags.size)
    for it in range(1, max_iter + 1):
        f = fit(np.r_[neg_inst, W].astype(np.intp), t, w)
        new = bag_argmax(f, offsets, pos_bags)
        if witness is not None and _settled(witness, new, tol):
            return it, witness
        witness = new
        W = witness
    return max_iter, witness


class _Alternation:
    """One alternating fit of mi-SVM or MI-SVM at one (gamma, C): the model of a grid point.

    ``fit(A, target, sample_weight)`` reads the design ``A`` (a Bunch: the
    bags as given, the kernel matrix of their scaled points for the exact RBF
    kernel or else the SVM's features, the absolute gamma);
    ``decision_function(bags)`` gives the raw bag scores (largest instance
    decision value) of bags as given: the model scales what it reads with
    the learner's fitted ``offset_`` and ``scale_``.
    """

    def __init__(self, learner, C, seeds):
        self.kernel = learner.kernel
        self.n_components = learner.n_components
        self.max_iter = learner.max_iter
        self.tol = learner.tol
        self.bag_means = learner._bag_means
        self.alternation = learner._alternation
        self.C = float(C)
        self.seeds = seeds
        self.offset, self.scale = learner.offset_, learner.scale_

    def _svm(self, precomputed):
        if precomputed:
            return SVC(kernel="precomputed", C=self.C)
        # liblinear, squared hinge: the primal Newton solver when instances outnumber
        # features (memory linear in the instances; the hinge loss's dual coordinate
        # descent took 10x longer to converge at C >= 1 on Musk1).
        return LinearSVC(C=self.C, loss="squared_hinge", dual="auto", max_iter=10000, random_state=self.seeds.model)

    def _fit_svm(self, Z, t, w, precomputed=False, start=None):
        if np.unique(t).shape[0] < 2:
            raise ValueError("the instance labels hold one class; mi-SVM / MI-SVM need positive "
                             "and negative bags")
        if not precomputed and Z.shape[1] <= MAX_NEWTON_FEATURES:
            # The same problem as LinearSVC's, solved to its minimiser and started from the
            # alternation's previous SVM (a few labels changed): a few BLAS passes a refit.
            return SquaredHingeSVM(self.C).fit(Z, t, w, start=start)
        # The alternation stops by its own rule; a solver stopped at its limit still gives labels.
        return quiet_fit(self._svm(precomputed), Z, t, sample_weight=w)

    def fit(self, A, target, sample_weight=None):
        bags, K = A.bags, A.K
        pos = np.asarray(target) == 1
        self.gamma_ = A.gamma
        self.feature_map_ = A.feature_map
        self.support_vectors_ = None
        n = bags.instances.shape[0]
        inst_bag = np.repeat(np.arange(bags.n_bags), bags.sizes)
        w_inst = None if sample_weight is None else sample_weight[inst_bag]
        if K is not None:
            # MI-SVM picks witnesses in positive bags: only their instances need scores.
            scored = bag_rows(bags.offsets, np.flatnonzero(pos)) if self.bag_means else None
            fit_rows, last = self._precomputed_solver(K, n, scored)
        else:
            points = _points(A.features, bags.offsets, pos, self.bag_means)
            fit_rows, last = self._feature_solver(points, n)
        self.n_iter_, self.witnesses_ = self.alternation(fit_rows, bags.offsets, inst_bag, pos, w_inst,
                                                         self.max_iter, self.tol)
        if K is not None:  # the support instances (or, after one MI-SVM step, bag means) score new bags
            self.support_vectors_ = _points(scaled_rows(bags.instances, self.offset, self.scale), bags.offsets, pos,
                                            self.bag_means)[last["support"]]
        return self

    def _features(self, instances):
        """The SVM's features of instances as given: scaled (linear kernel), then mapped (Nystroem)."""
        if self.feature_map_ is None:
            return scaled_rows(instances, self.offset, self.scale)
        return _mapped_rows(self.feature_map_, instances, self.offset, self.scale)

    def _feature_solver(self, Z, n):
        """fit(rows, t, w): an SVM on the points `Z[rows]` (all when None); the n instances' decision values."""
        self.svm_ = None

        def fit(rows, t, w):
            self.svm_ = self._fit_svm(Z if rows is None else Z[rows], t, w, start=self.svm_)
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

    def instance_decision(self, instances):
        """The decision values of instances as given (the model scales them)."""
        if self.support_vectors_ is None:
            return self.svm_.decision_function(self._features(instances))
        # exact RBF: K(instances, support instances) @ dual coefficients, in row blocks
        sv = self.support_vectors_
        dual, b = self.svm_.dual_coef_[0], self.svm_.intercept_[0]
        step = max(1, (1 << 21) // max(sv.shape[0], 1))  # blocks of about 16 MB
        return np.concatenate([rbf_kernel(scaled_rows(instances[i:i + step], self.offset, self.scale), sv,
                                          gamma=self.gamma_) @ dual + b
                               for i in range(0, instances.shape[0], step)] or [np.zeros(0)])

    def decision_function(self, X):
        """Raw bag scores: the largest instance decision value of each bag.

        `X`: bags as given, or held-out bags with their SVM features (a Bunch
        of ``bags`` and ``features``, built by the learner's ``_design``).
        """
        if isinstance(X, Bunch):
            bags, f = X.bags, self.svm_.decision_function(X.features)
        else:
            bags, f = X, self.instance_decision(X.instances)
        return np.maximum.reduceat(f, bags.offsets[:-1])


class _AlternatingSVM(InstanceOutputMixin, TunedClassifierMixin, BaseBagClassifier):
    """Shared machinery of mi-SVM and MI-SVM on the tuning engine (not public)."""

    _binary_only = True
    # MI-SVM's first witnesses are the positive bags' means: points beyond the instances.
    _bag_means = False
    _seed_names = ("model", "features")

    _parameter_constraints = {
        "kernel": [StrOptions({"linear", "rbf"})],
        "C": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "gamma": [Interval(Real, 0, None, closed="neither"), "array-like", StrOptions({"auto"})],
        "gamma_scale": [StrOptions({"median", "absolute"})],
        "max_exact": [Interval(Integral, 0, None, closed="left")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, 1, closed="left")],
        "scale": [StrOptions({"standard", "minmax", "maxabs", "auto"}), None],
        "threshold": [StrOptions({"zero", "cv"})],
        **CONSTRAINTS,
        "scoring": [*SCORING_CONSTRAINT, StrOptions({"auto"})],
    }

    #: What ``"auto"`` means for `gamma`, `scale` and `scoring` (each learner's measured setting).
    _auto = {}

    def __init__(self, kernel="rbf", *, C=(1.0, 10.0, 100.0), gamma="auto", gamma_scale="median",
                 max_exact=3000, n_components=64, max_iter=50, tol=1e-3, scale="auto", cv=3, cv_repeats=1,
                 threshold="cv", scoring="auto", class_weight=None, positive_class=None, random_state=None):
        keep_params(self, locals())

    def _setting(self, name):
        """The parameter `name`, with ``"auto"`` replaced by the learner's own setting."""
        value = getattr(self, name)
        return self._auto[name] if isinstance(value, str) and value == "auto" else value

    def _accepts_float32(self):
        # float32 bags are read as they are (the Nystroem path scales and maps them in float64 a
        # block at a time), so a memory map of float32 features is not copied whole into float64.
        return True

    def _exact(self, n_instances):
        return self.kernel == "rbf" and n_instances <= self.max_exact

    # -- the tuning engine's hooks ------------------------------------------------------
    def _scoring(self):
        return self._setting("scoring")

    def _intercept(self):
        return self.threshold == "cv"

    def _represent(self, bags, target, seeds):
        Cs, rel = positive_grid(self.C, "C"), positive_grid(self._setting("gamma"), "gamma")
        # The bags stay as given (a float32 memory map stays one): the model scales what it reads,
        # in float64 (the Nystroem path a block of rows at a time).
        self.offset_, self.scale_ = fit_scaling(bags.instances, self._setting("scale"))
        scaling = (self.offset_, self.scale_)
        # The gamma grid is relative to the median squared distance between the training
        # instances, once per fit (every fold and the refit use the same bandwidths).
        if self.kernel != "rbf":
            rows = [{"gamma": None}]
        else:
            ref = (median_sq_distance(bags.instances, offset=scaling[0], scale=scaling[1])
                   if self.gamma_scale == "median" else absolute_unit(self, 2))
            rows = [{"gamma": float(g) / ref} for g in rel]
        # The exact RBF kernel: squared distances between the fit's points (its instances;
        # MI-SVM: and its positive bags' means) once, for every inner fold, bandwidth and C
        # (about 2 x 8 x n^2 bytes with an inner fold's kernel, up to 3 x).
        D2 = None
        if self._exact(bags.instances.shape[0]):
            D2 = _sq_distances(_points(scaled_rows(bags.instances, *scaling), bags.offsets, target == 1,
                                       self._bag_means))
        return Bunch(bags=bags, D2=D2, pos=target == 1, rows=rows, cols=[{"C": float(c)} for c in Cs],
                     seed=seeds.features, scaling=scaling)

    def _point_rows(self, offsets, pos, tr):
        """Indices of the points of the bags `tr` (a fit on bags[tr]) among the points of all bags."""
        rows = bag_rows(offsets, tr)
        if not self._bag_means:
            return rows
        rank = np.cumsum(pos) - 1  # a positive bag's position among the positive bags
        return np.r_[rows, offsets[-1] + rank[tr[pos[tr]]]].astype(np.intp)

    def _cut(self, rep, train, test):
        sub = rep.bags if train.shape[0] == rep.bags.n_bags else rep.bags[train]
        # The path (exact or Nystroem) is the refit's, chosen by the fit's instance count: the inner
        # folds rank the model that is refitted.
        D2 = None
        if rep.D2 is not None:
            D2 = rep.D2 if train.shape[0] == rep.bags.n_bags else _take2(
                rep.D2, self._point_rows(rep.bags.offsets, rep.pos, train))
        return Bunch(bags=sub, D2=D2, test=rep.bags[test], single=len(rep.rows) == 1, seed=rep.seed,
                     scaling=rep.scaling)

    def _design(self, fold, row):
        K = feature_map = features = held_out = None
        if fold.D2 is not None:  # one kernel matrix at a time, formed once per bandwidth
            # (in the distances' place when there is one bandwidth)
            K = _rbf_from_sq(fold.D2, row["gamma"], out=fold.D2 if fold.single else None)
        elif self.kernel == "rbf":  # Nystroem features, once per bandwidth for every C
            feature_map, features = _nystroem_features(fold.bags.instances, *fold.scaling, row["gamma"],
                                                       self.n_components, fold.seed)
            held_out = _mapped_rows(feature_map, fold.test.instances, *fold.scaling)
        else:
            features = scaled_rows(fold.bags.instances, *fold.scaling)
            held_out = scaled_rows(fold.test.instances, *fold.scaling)
        # The held-out bags' features once for every C.
        test = fold.test if held_out is None else Bunch(bags=fold.test, features=held_out)
        return Bunch(bags=fold.bags, K=K, gamma=row["gamma"], feature_map=feature_map, features=features), test

    def _release(self, rep, fold):
        rep.D2 = fold.D2 = None

    def _model(self, row, col, seeds, inner):
        return _Alternation(self, col["C"], seeds)

    def _scaled(self, X):
        # The model scales the instances it reads (:meth:`_Alternation.instance_decision`).
        return self._validate_predict(X)

    def _keep(self, rep, fold, row, col, model, selection):
        self.C_, self.gamma_ = col["C"], row["gamma"]
        self.svm_ = model.svm_
        self.feature_map_ = model.feature_map_
        self.support_vectors_ = model.support_vectors_
        self.n_iter_ = model.n_iter_
        if self._bag_means:
            self.witnesses_ = model.witnesses_
        self.threshold_ = selection.cut
        self.model_ = model

    @fill_doc
    def fit(self, X, y, sample_weight=None):
        """Fit by alternating instance labels (or witnesses) and SVM fits, tuned by inner CV.

        [fit bags]
        y : array-like of shape (n_bags,)
            Two classes; the positive class follows ``positive_class``.
        sample_weight : array-like of shape (n_bags,), default=None
            Per-bag weights (times `class_weight`); each instance the SVM
            sees carries its bag's weight. Bags of weight 0 are dropped
            first (as if absent).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return super().fit(X, y, sample_weight)

    # -- prediction ----------------------------------------------------------------
    def _decision(self, bags):
        return self.model_.decision_function(bags) - self.threshold_

    def _instance_scores(self, bags):
        # The instance's SVM decision value: the score of the bag that holds it alone
        # (a bag's score is the largest of its instances'), oriented towards classes_[1].
        return self._oriented(self.model_.instance_decision(bags.instances) - self.threshold_)


def _params_doc(cls):
    auto = cls._auto
    return f"""    kernel : {{"linear", "rbf"}}, default="rbf"
        "linear": a linear SVM with the squared hinge loss (liblinear's
        problem, solved by a finite Newton method up to 1,024 features,
        by ``LinearSVC`` beyond), memory linear in the instances, several
        times faster. "rbf": the exact ``SVC`` up to `max_exact` training
        instances, Nystroem features and the linear SVM beyond.
    C : float or list of float, default=(1.0, 10.0, 100.0)
        SVM regularisation; a list is tuned by the inner `cv`-fold CV over
        the training bags.
    gamma : float, list of float or "auto", default="auto"
        RBF bandwidth (tuned when a list); with ``gamma_scale="median"``
        a multiple of 1 / the median squared distance between training
        instances, computed once per fit. "auto": {auto["gamma"]}.
    gamma_scale : {{"median", "absolute"}}, default="median"
        What `gamma` is relative to: the median heuristic, or nothing.
    max_exact : int, default=3000
        Largest number of training instances for the exact RBF SVM (an
        exact fit's cost grows about with the square of the instances;
        beyond, the Nystroem path's grows about linearly). Its
        squared distances and an inner fold's kernel matrix are held during
        ``fit``: about 2 x 8 x n squared bytes for n training instances (up
        to 3 x for MI-SVM's witness kernel or several bandwidths); the
        fitted model keeps only the support instances.
    n_components : int, default=64
        Nystroem features beyond `max_exact`; the cost of an alternating
        fit grows about linearly with them, and more features approximate
        the kernel more closely.
    max_iter : int, default=50
        Largest number of alternations.
    tol : float, default=1e-3
        The alternation stops once at most this share of the labels it
        guesses change from one SVM fit to the next, rounded down (mi-SVM:
        the instance labels in positive bags; MI-SVM: the positive bags'
        witnesses). Below ``1 / tol`` guessed labels that is Andrews et
        al.'s rule, no change at all; on a hundred thousand instances in
        positive bags a few dozen labels can keep flipping for tens of
        alternations that barely move the SVM. 0 keeps the exact rule.
    scale : {{"standard", "minmax", "maxabs", "auto"}} or None, default="auto"
        Feature scaling fitted on the training instances. "auto":
        "{auto["scale"]}".
"""


def _more_params_doc(cls):
    auto = cls._auto
    return f"""    threshold : {{"zero", "cv"}}, default="cv"
        Where the bag score (largest instance decision value) is cut.
        "zero": at 0, the rule of Andrews et al. "cv": at ``threshold_``,
        from a Platt fit with an intercept, ``sigmoid(a s + b)``, on the
        inner CV's out-of-fold bag scores (``threshold_ = -b / a``; the
        same SVM, only the cut moves). A bag's score is the largest of its
        instances', so a large negative bag tends to score above 0; the
        moved cut corrects for it where the training bags show it. No
        extra SVM fit; 0 without inner folds.
    scoring : {{"accuracy", "roc_auc", "neg_log_loss", "auto"}}, default="auto"
        What the inner CV maximises over the grid, from each point's
        out-of-fold bag scores (weighted): the accuracy at the cut
        `threshold` places (0, or with ``threshold="cv"`` the point's own
        fitted cut), the AUC (the ranking of the bags, wherever the cut
        falls), or minus the log loss of the probabilities
        ``predict_proba`` would fit on them. Ties go to the first C, then
        the first gamma. "auto": "{auto["scoring"]}".
    class_weight : "balanced", dict or None, default=None
        Multiplies `sample_weight`.
    positive_class : label or None, default=None
        The multi-instance positive class (see
        :func:`mil.utils.validation.positive_index`).
    random_state : int, RandomState or None, default=None
        Seeds the inner folds' shuffles and, through independent seeds
        drawn from it, the Nystroem sample and (beyond 1,024 features)
        liblinear's coordinate order.
"""


_ATTRIBUTES_DOC = """    classes_ : ndarray
        The class labels.
    svm_ : SquaredHingeSVM, LinearSVC or SVC
        The last instance-level SVM: a linear one (``coef_``,
        ``intercept_``; ``LinearSVC`` beyond 1,024 features) on the
        features or Nystroem features; for the exact RBF kernel an
        ``SVC(kernel="precomputed")`` whose ``dual_coef_`` and
        ``intercept_`` weigh ``support_vectors_``.
    feature_map_ : Nystroem or None
        The Nystroem map of the approximate RBF path (None otherwise).
    support_vectors_ : ndarray of shape (n_support, n_features) or None
        Exact RBF kernel: the support instances (scaled features; for
        MI-SVM stopped after one step, possibly bag means); an instance's
        decision value is ``rbf(x, support_vectors_) @ svm_.dual_coef_[0] +
        svm_.intercept_[0]``. None otherwise.
    best_params_ : dict
        ``{"gamma": gamma_, "C": C_}`` chosen.
    cv_results_ : ndarray of shape (n_gamma, n_C) or None
        The inner CV's score of each grid point by `scoring`: the weighted
        share of correctly classified out-of-fold bags, their AUC, or minus
        the log loss. None without inner folds.
    C_ : float
        The C used.
    gamma_ : float or None
        The absolute bandwidth used (None for the linear kernel).
    n_iter_ : int
        Alternations until the labels (witnesses) settled (see `tol`), at
        most `max_iter`.
    proba_scale_ : float
        The scale ``a`` of ``predict_proba``'s
        ``sigmoid(a * (bag score - threshold_))``, fitted by log loss on the
        inner CV's out-of-fold bag scores (1 without inner folds).
    threshold_ : float
        The cut of the bag score: 0 unless ``threshold="cv"``.
        ``decision_function`` and ``instance_scores`` return the scores
        less ``threshold_``.
    n_features_in_ : int
        Number of features of the instances.
"""

_REFERENCES_DOC = """    References
    ----------
    S. Andrews, I. Tsochantaridis and T. Hofmann, "Support vector machines
    for multiple-instance learning", NIPS 2002.
"""


def _example(cls):
    return f"""    Examples
    --------
    >>> from mil.svm import {cls.__name__}
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=40, random_state=0)
    >>> clf = {cls.__name__}(random_state=0).fit(X[:30], y[:30])
    >>> clf.predict(X[30:]).shape
    (10,)
"""


def _all_params_doc(cls):
    """The whole Parameters section (both classes take the same parameters)."""
    return "    Parameters\n    ----------\n" + _params_doc(cls) + "    [inner-cv folds]\n" + _more_params_doc(cls)


_SECTIONS = dict(alternating_svm_parameters=_all_params_doc, alternating_svm_attributes=_ATTRIBUTES_DOC,
                 alternating_svm_references=_REFERENCES_DOC, examples=_example)


@fill_doc(**_SECTIONS)
class miSVMClassifier(_AlternatingSVM):
    """Instance-level SVM with the instance labels of positive bags inferred (mi-SVM).

    Instances of negative bags are negative; those of positive bags start
    positive and then take the sign of the SVM's decision value, at least
    one per positive bag staying positive (its highest-scoring instance),
    until no label changes (Andrews, Tsochantaridis and Hofmann 2002).

    [alternating svm parameters]

    Attributes
    ----------
    [alternating svm attributes]

    See Also
    --------
    MISVMClassifier : One witness per positive bag instead of every instance.
    mil.embedding.MILESClassifier : Instance selection by a 1-norm SVM on an embedding.

    [alternating svm references]

    [examples]
    """

    _alternation = staticmethod(_mi_alternation)
    _auto = {"gamma": (0.25, 1.0, 4.0, 16.0), "scale": "standard", "scoring": "roc_auc"}


@fill_doc(**_SECTIONS)
class MISVMClassifier(_AlternatingSVM):
    """SVM on one witness per positive bag and every negative instance (MI-SVM).

    Each positive bag is represented by its witness, first the bag's mean
    instance, then its highest-scoring instance under the current SVM, until
    no witness changes (Andrews, Tsochantaridis and Hofmann 2002).

    [alternating svm parameters]

    Attributes
    ----------
    [alternating svm attributes]
    witnesses_ : ndarray of int
        The instance index (within the training bags of positive weight) of
        each positive bag's final witness.

    See Also
    --------
    miSVMClassifier : Every instance of the positive bags labelled.
    mil.embedding.MILESClassifier : Instance selection by a 1-norm SVM on an embedding.

    [alternating svm references]

    [examples]
    """

    _bag_means = True
    _alternation = staticmethod(_MI_alternation)
    _auto = {"gamma": (0.25, 1.0, 4.0), "scale": "minmax", "scoring": "accuracy"}
