"""Support vector machines on bag kernels: NSK, miGraph, EMD and Hausdorff distance kernels.

scikit-learn's ``SVC(kernel="precomputed")`` learns on a kernel between
bags. The kernels of every gamma in the grid come from one pass (set
kernels: one compiled pass over the squared instance distances; distance
kernels ``exp(-gamma d^p)``: one distance matrix), and an inner
cross-validation over the bags slices those matrices for every (gamma, C),
so a grid over C never recomputes a kernel and a grid over gamma never
recomputes a distance.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.svm import SVC
from sklearn.utils._param_validation import Interval, StrOptions

from mil._tuning import CONSTRAINTS, CalibratedScoresMixin, fit_inputs, inner_cv_doc, inner_folds, positive_grid, select
from mil.base import BaseBagClassifier, InstanceOutputMixin, keep_params
from mil.distances import _all_from_bags
from mil.preprocessing import _absolute_unit, _fit_scaled
from mil.svm._kernels import (EMD_METRICS, _normalised, _require_pot, _set_kernels_from_bags, bandwidth_reference,
                              emd_distances, median_sq_distance, migraph_weights)

__all__ = ["BagKernelSVC", "KERNELS"]

#: The bag kernels of :class:`BagKernelSVC`.
SET_KERNELS = ("nsk", "migraph")
DISTANCE_KERNELS = ("emd", "minimal", "maximal", "average")
KERNELS = SET_KERNELS + DISTANCE_KERNELS
@inner_cv_doc(5)
class BagKernelSVC(InstanceOutputMixin, CalibratedScoresMixin, BaseBagClassifier):
    """Support vector machine on a kernel between bags (NSK, miGraph, EMD, Hausdorff).

    The bag kernels:

    - ``"nsk"``: the normalised set kernel, MI-Kernel (Gaertner, Flach,
      Kowalczyk and Smola 2002): ``K(A, B) = sum_a sum_b exp(-gamma ||a - b||^2)``
      divided by ``sqrt(K(A, A) K(B, B))``;
    - ``"migraph"``: the same with instance weights 1 / degree in each
      bag's epsilon-graph (Zhou, Sun and Li 2009; :func:`migraph_weights`);
    - ``"emd"``: ``exp(-gamma EMD(A, B)^p)`` with the earth mover's
      distance (uniform weights, Euclidean ground cost unless
      `ground_metric` says otherwise, through POT:
      ``pip install "scikit-mil[ot]"``; Zhang, Marszalek, Lazebnik and
      Schmid 2007);
    - ``"minimal"``, ``"maximal"``, ``"average"``: ``exp(-gamma d(A, B)^p)``
      with a Hausdorff distance (:mod:`mil.distances`).

    ``C`` and ``gamma`` take one value or a list: with lists, the pair is
    chosen by an inner stratified `cv`-fold cross-validation over the
    training bags (by `scoring`; ties to the first C, then the first
    kernel in the order p, gamma), reusing one kernel per gamma and one
    distance matrix for all (the distance kernels' power `p` may be a list
    too). ``predict_proba`` is ``sigmoid(a f)`` (two classes) or
    ``softmax(a F)`` of the SVM's decision values, with one scale ``a > 0``
    fitted on the inner cross-validation's out-of-fold decision values
    (``predict`` stays the SVM's decision). The rules are those of
    :ref:`inner-cv`.
    ``instance_scores``, ``instance_proba`` and ``predict_instances`` are
    these outputs for a bag holding the instance alone
    (:class:`mil.base.InstanceOutputMixin`).

    Parameters
    ----------
    kernel : {"nsk", "migraph", "emd", "minimal", "maximal", "average"}, default="nsk"
    C : float or list of float, default=(0.1, 1.0, 10.0, 100.0)
        SVM regularisation (a list is tuned).
    gamma : float or list of float, default=(0.25, 0.5, 1.0, 2.0, 4.0)
        Kernel bandwidth (a list is tuned). With ``gamma_scale="median"``
        a multiple of the median heuristic. The default grid (20 points,
        5 inner folds: 100 SVM fits on the precomputed kernels, one kernel
        pass per gamma) is the one the results page measures for every
        kernel.
    gamma_scale : {"median", "mean", "absolute"}, default="median"
        "median": the bandwidth is ``gamma / m``, where m is the median
        squared distance between training instances (set kernels) or the
        median ``d^p`` over the pairs of training bags (distance kernels), so
        the default suits data of any scale. "mean": the same with the mean
        (``exp(-d / A)``, A the mean distance between training bags, is
        Zhang et al.'s EMD kernel: ``gamma=1, p=1``). "absolute": ``gamma``
        as given.
    p : float > 0 or list of float, default=1.0
        Power of the distance in the distance kernels (a list is tuned
        with gamma; the distances are computed once for all). The
        results page's EMD row uses ``scale=None, p=(1.0, 2.0),
        cv_repeats=3`` (the registry's ``emd-svm``).
    ground_metric : {"euclidean", "sqeuclidean", "cityblock"}, default="euclidean"
        The EMD's ground cost between instances (``kernel="emd"`` only;
        see :func:`emd_distances`). "sqeuclidean" makes the EMD the squared
        2-Wasserstein distance between the bags' instance distributions.
    normalize : {"cosine", "weights", "none"}, default="cosine"
        Set kernels only (see :func:`set_kernel`).
    epsilon : float or None, default=None
        miGraph's edge threshold; None uses each bag's mean intra-bag distance.
    scale : {"standard", "minmax", "maxabs"} or None, default="standard"
        Feature scaling fitted on the training instances. None divides
        features of magnitude beyond about 1e120 or below 1e-120 by a power
        of two (exact), so the model is the same at any magnitude; an
        absolute gamma still refers to the features as given.
    [inner-cv parameters]
    class_weight : "balanced", dict or None, default=None
        Multiplies `sample_weight` (the SVM's per-bag C).
    positive_class : label or None, default=None
        Accepted for a uniform interface; the SVM treats the classes alike.
    n_jobs : int, default=None
        Threads for the kernel and distance passes.
    random_state : int, RandomState or None, default=None
        Seeds the shuffles of an int `cv`.

    Attributes
    ----------
    classes_ : ndarray
    gamma_ : float
        The bandwidth used (absolute).
    C_ : float
    p_ : float or None
        The power used (distance kernels).
    cv_results_ : ndarray of shape (n_p * n_gammas, n_C) or None
        The inner CV's `scoring` of each (p, gamma) kernel and C (None
        without inner folds); rows are p-major.
    svc_ : sklearn.svm.SVC
    proba_scale_ : float
        The scale ``a`` of ``predict_proba`` (:ref:`inner-cv`).
    n_features_in_ : int

    References
    ----------
    T. Gaertner, P. A. Flach, A. Kowalczyk and A. J. Smola, "Multi-instance
    kernels", ICML 2002. Z.-H. Zhou, Y.-Y. Sun and Y.-F. Li, "Multi-instance
    learning by treating instances as non-i.i.d. samples", ICML 2009.
    Y. Rubner, C. Tomasi and L. J. Guibas, "The earth mover's distance as a
    metric for image retrieval", IJCV 40(2), 2000. J. Zhang, M. Marszalek,
    S. Lazebnik and C. Schmid, "Local features and kernels for
    classification of texture and object categories: a comprehensive
    study", IJCV 73(2), 2007.

    Examples
    --------
    >>> from mil.svm import BagKernelSVC
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=40, random_state=0)
    >>> clf = BagKernelSVC(kernel="nsk", random_state=0).fit(X[:30], y[:30])
    >>> clf.predict(X[30:]).shape
    (10,)
    """

    _binary_only = False
    _classes_alike = True

    _parameter_constraints = {
        "kernel": [StrOptions(set(KERNELS))],
        "C": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "gamma": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "gamma_scale": [StrOptions({"median", "mean", "absolute"})],
        "p": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "ground_metric": [StrOptions(set(EMD_METRICS))],
        "normalize": [StrOptions({"cosine", "weights", "none"})],
        "epsilon": [Interval(Real, 0, None, closed="neither"), None],
        "scale": [StrOptions({"standard", "minmax", "maxabs"}), None],
        "n_jobs": [Integral, None],
        **CONSTRAINTS,
    }

    def __init__(self, kernel="nsk", *, C=(0.1, 1.0, 10.0, 100.0), gamma=(0.25, 0.5, 1.0, 2.0, 4.0),
                 gamma_scale="median", p=1.0,
                 ground_metric="euclidean", normalize="cosine", epsilon=None, scale="standard", cv=5,
                 cv_repeats=1, scoring="accuracy", class_weight=None, positive_class=None, n_jobs=None,
                 random_state=None):
        keep_params(self, locals())

    # -- kernels ------------------------------------------------------------
    def _instance_weights(self, bags):
        if self.kernel == "migraph":
            return migraph_weights(bags, self.epsilon)
        return np.ones(bags.instances.shape[0])

    def _distances(self, X, Y):
        if self.kernel == "emd":
            return emd_distances(X, Y, metric=self.ground_metric, n_jobs=self.n_jobs)
        return _all_from_bags(X, Y, n_jobs=self.n_jobs)[self.kernel]

    def _train_kernels(self, bags, rel_gammas):
        """Kernels of every gamma between the training bags: (n_gammas, n, n), absolute gammas."""
        if self.kernel in SET_KERNELS:
            w = self._instance_weights(bags)
            ref = _absolute_unit(self, 2) if self.gamma_scale == "absolute" else median_sq_distance(
                bags.instances, self.gamma_scale)
            gammas = rel_gammas / ref
            K, diag, _ = _set_kernels_from_bags(bags, None, gammas, w, None, self.n_jobs)
            sums = np.add.reduceat(w, bags.offsets[:-1])
            return _normalised(K, diag, diag, self.normalize, sums, sums), gammas, diag
        D = self._distances(bags, None)
        off = ~np.eye(D.shape[0], dtype=bool)
        kernels, gammas, ps = [], [], []
        for p in self._ps:
            Dp = D ** p
            ref = _absolute_unit(self, p) if self.gamma_scale == "absolute" else bandwidth_reference(Dp[off], self.gamma_scale)
            for g in rel_gammas / ref:
                kernels.append(np.exp(-g * Dp))
                gammas.append(g)
                ps.append(p)
        self._grid_p = np.array(ps)
        return np.array(kernels), np.array(gammas), None

    def _test_kernel(self, bags):
        """Kernel between `bags` and the support bags, placed in the training columns."""
        sup = self.support_bags_
        g = np.array([self.gamma_])
        if self.kernel in SET_KERNELS:
            w = self._instance_weights(bags)
            K, dx, _ = _set_kernels_from_bags(bags, sup, g, w, self.support_weights_, self.n_jobs)
            # The support bags' self-kernels from fit (the same bags, the training centring).
            dy = self.support_diag_[None]
            sums = np.add.reduceat(w, bags.offsets[:-1])
            Ks = _normalised(K, dx, dy, self.normalize, sums, self.support_weight_sums_)[0]
        else:
            Ks = np.exp(-self.gamma_ * self._distances(bags, sup) ** self.p_)
        full = np.zeros((bags.n_bags, self.n_train_))
        full[:, self.svc_.support_] = Ks
        return full

    # -- fitting --------------------------------------------------------------
    def _svc(self, C):
        return SVC(kernel="precomputed", C=C, decision_function_shape="ovr")

    def fit(self, X, y, sample_weight=None):
        """Fit on training bags, tuning (gamma, C) by inner cross-validation when given lists.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
        y : array-like of shape (n_bags,)
            Two or more classes (libsvm's one-vs-one; scores one-vs-rest).
        sample_weight : array-like of shape (n_bags,), default=None
            Per-bag weights (times `class_weight`), passed to the SVM and
            the inner cross-validation's scores. Bags of weight 0 are
            dropped first (as if absent).

        Returns
        -------
        self
        """
        # Bags of weight 0 are dropped first: libsvm numbers its support vectors among the
        # positively weighted samples, so kernel columns and support indices stay aligned.
        bags, y_enc, weight, keep, n_total = fit_inputs(self, X, y, sample_weight)
        if self.kernel == "emd":
            _require_pot()
        elif self.ground_metric != "euclidean":
            raise ValueError(f"ground_metric={self.ground_metric!r} needs kernel='emd' (the other kernels "
                             f"use the Euclidean distance); got kernel={self.kernel!r}")
        Cs, rel = positive_grid(self.C, "C"), positive_grid(self.gamma, "gamma")
        self._ps = positive_grid(self.p, "p")
        bags = _fit_scaled(self, bags, rescale_extremes=True)
        Ks, gammas, diag = self._train_kernels(bags, rel)
        if len(self.classes_) == 2:
            # The SVM learns "positive or not" (1 = the positive class), so naming
            # the other class positive gives the very same problem, bit for bit.
            y_enc = (y_enc == self._pos_index).astype(np.intp)
        folds = inner_folds(self.cv, y_enc, random_state=self.random_state, repeats=self.cv_repeats,
                            keep=keep, n_total=n_total)
        multi = len(self.classes_) > 2

        def fold_scores(tr, te):
            w_tr = None if weight is None else weight[tr]
            out = np.zeros((len(gammas), len(Cs), te.shape[0]) + ((len(self.classes_),) if multi else ()))
            for a, K in enumerate(Ks):
                for b, C in enumerate(Cs):
                    svc = self._svc(C).fit(K[np.ix_(tr, tr)], y_enc[tr], sample_weight=w_tr)
                    out[a, b] = svc.decision_function(K[np.ix_(te, tr)])
            return out

        sel = select(folds, (len(gammas), len(Cs)), fold_scores, y_enc, weight, scoring=self.scoring)
        gi, ci = sel.index
        self.cv_results_ = sel.scores
        self.proba_scale_ = sel.scale
        self.gamma_, self.C_ = float(gammas[gi]), float(Cs[ci])
        self.p_ = float(self._grid_p[gi]) if self.kernel in DISTANCE_KERNELS else None
        del self._ps
        K = Ks[gi]
        svc = self._svc(self.C_).fit(K, y_enc, sample_weight=weight)
        self.svc_ = svc
        self.n_train_ = K.shape[0]
        sup = svc.support_
        self.support_bags_ = bags[sup]
        if self.kernel in SET_KERNELS:
            w = self._instance_weights(self.support_bags_)
            self.support_weights_ = w
            self.support_weight_sums_ = np.add.reduceat(w, self.support_bags_.offsets[:-1])
            self.support_diag_ = diag[gi, sup]
        return self

    # -- prediction -------------------------------------------------------------
    def _decision(self, bags):
        return self.svc_.decision_function(self._test_kernel(bags))
