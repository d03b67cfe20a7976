"""Support vector machines on bag kernels: NSK, miGraph, EMD and Hausdorff distance kernels.

scikit-learn's ``SVC(kernel="precomputed")`` learns on a kernel between
bags. The kernels of every gamma in the grid come from one pass (set
kernels: one compiled pass over the squared instance distances; distance
kernels ``exp(-gamma d^p)``: one distance matrix) as the representation of
:mod:`mil._tuning`, whose inner cross-validation over the bags slices those
matrices for every (gamma, C), so a grid over C never recomputes a kernel
and a grid over gamma never recomputes a distance.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.svm import SVC
from sklearn.utils import Bunch
from sklearn.utils._param_validation import Interval, StrOptions

from mil._tuning import CONSTRAINTS, TunedClassifierMixin, fold_blocks, positive_grid
from mil._scaling import absolute_unit, apply_scaling, bandwidth_reference, fit_scaling, median_sq_distance
from mil.base import BaseBagClassifier, InstanceOutputMixin, keep_params
from mil.distances import hausdorff
from mil.svm._kernels import (EMD_METRICS, normalize_kernels, require_pot, set_kernels_from_bags, emd_distances,
                              landmark_embeddings, migraph_weights)
from mil.utils._docstrings import fill_doc

__all__ = ["BagKernelSVC", "KERNELS"]

#: The bag kernels of :class:`BagKernelSVC`.
SET_KERNELS = ("nsk", "migraph")
DISTANCE_KERNELS = ("emd", "minimal", "maximal", "average")
KERNELS = SET_KERNELS + DISTANCE_KERNELS


@fill_doc
class BagKernelSVC(InstanceOutputMixin, TunedClassifierMixin, BaseBagClassifier):
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

    With ``n_landmarks`` set (``kernel="nsk"`` only), the instance kernel
    is approximated by a Nystroem map on that many landmarks drawn at
    random from the training instances (Williams and Seeger 2001), and the
    bag kernel is the inner product of the bags' sums of landmark features
    under the same `normalize` (:class:`~mil.embedding.KernelMeanEmbedding`):
    equal to the exact kernel when every instance is a landmark, linear in
    the instances (``n_instances x n_landmarks`` kernel values per gamma).
    gamma, C and the inner cross-validation keep their meaning.

    Parameters
    ----------
    kernel : {"nsk", "migraph", "emd", "minimal", "maximal", "average"}, default="nsk"
        The bag kernel (see above).
    C : float or list of float, default=(0.1, 1.0, 10.0, 100.0)
        SVM regularisation (a list is tuned).
    gamma : float or list of float, default=(0.25, 0.5, 1.0, 2.0, 4.0)
        Kernel bandwidth (a list is tuned). With ``gamma_scale="median"``
        a multiple of the median heuristic. The default grid costs 20
        points x 5 inner folds = 100 SVM fits on the precomputed kernels,
        and one kernel pass per gamma.
    gamma_scale : {"median", "mean", "absolute"}, default="median"
        What `gamma` is relative to. "median": the bandwidth is
        ``gamma / m``, where m is the median squared distance between
        training instances (set kernels) or the median ``d^p`` over the
        pairs of training bags (distance kernels), computed once per fit,
        so the default suits data of any scale. "mean": the same with the
        mean (``exp(-d / A)``, A the mean distance between training bags,
        is Zhang et al.'s EMD kernel: ``gamma=1, p=1``). "absolute":
        ``gamma`` as given.
    p : float > 0 or list of float, default=1.0
        Power of the distance in the distance kernels (a list is tuned
        with gamma; the distances are computed once for all).
    ground_metric : {"euclidean", "sqeuclidean", "cityblock"}, default="euclidean"
        The EMD's ground cost between instances (``kernel="emd"`` only;
        see :func:`emd_distances`). "sqeuclidean" makes the EMD the squared
        2-Wasserstein distance between the bags' instance distributions.
    normalize : {"cosine", "weights", "none"}, default="cosine"
        Normalisation of the set kernels (see :func:`set_kernel`).
    epsilon : float or None, default=None
        The miGraph edge threshold; None uses each bag's mean intra-bag
        distance.
    n_landmarks : int or None, default=None
        None: the exact kernel. An int: the NSK approximated on that many
        Nystroem landmarks (at most the number of training instances, of
        which up to 100,000 are sampled first); ``kernel="nsk"`` only.
    scale : {"standard", "minmax", "maxabs"} or None, default="standard"
        Feature scaling fitted on the training instances. None divides
        features of magnitude beyond about 1e120 or below 1e-120 by a power
        of two (exact), so the model is the same at any magnitude; an
        absolute gamma still refers to the features as given.
    [inner-cv parameters]
    class_weight : "balanced", dict or None, default=None
        Multiplies `sample_weight` (the SVM's per-bag C).
    positive_class : label or None, default=None
        Accepted for a uniform interface; the SVM treats the classes alike,
        so it changes no output.
    n_jobs : int, default=None
        Threads for the kernel and distance passes.
    random_state : int, RandomState or None, default=None
        Seeds the shuffles of an int `cv` and, with `n_landmarks`, the
        landmarks (independent seeds drawn from it).

    Attributes
    ----------
    classes_ : ndarray
        The class labels.
    gamma_ : float
        The bandwidth used (absolute).
    C_ : float
        The C used.
    p_ : float or None
        The power used (distance kernels).
    best_params_ : dict
        ``{"gamma": gamma_, "C": C_}``, and ``"p"`` for the distance
        kernels.
    cv_results_ : ndarray of shape (n_p * n_gammas, n_C) or None
        The inner CV's `scoring` of each (p, gamma) kernel and C (None
        without inner folds); rows are p-major.
    svc_ : sklearn.svm.SVC
        The SVM on the training bags' kernel.
    landmark_map_ : KernelMeanEmbedding or None
        With `n_landmarks`: the fitted map of a bag to its normalised sum
        of landmark features at ``gamma_`` (None for the exact kernel).
    support_embedding_ : ndarray of shape (n_support_bags, n_components) or None
        With `n_landmarks`: the support bags' rows under ``landmark_map_``.
    [inner-cv attributes]

    See Also
    --------
    mil.embedding.KernelMeanClassifier : The NSK made linear in the instances.
    mil.embedding.SlicedWassersteinClassifier : A linear-time stand-in for the EMD kernel.
    set_kernel : The set kernels themselves.

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
    #: The landmarks' seed is drawn after the inner folds' (the exact kernel draws nothing more).
    _seed_names = ("landmarks",)

    _parameter_constraints = {
        "kernel": [StrOptions(set(KERNELS))],
        "C": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "gamma": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "gamma_scale": [StrOptions({"median", "mean", "absolute"})],
        "p": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "ground_metric": [StrOptions(set(EMD_METRICS))],
        "normalize": [StrOptions({"cosine", "weights", "none"})],
        "epsilon": [Interval(Real, 0, None, closed="neither"), None],
        "n_landmarks": [Interval(Integral, 1, None, closed="left"), None],
        "scale": [StrOptions({"standard", "minmax", "maxabs"}), None],
        "n_jobs": [Integral, None],
        **CONSTRAINTS,
    }

    def __init__(self, kernel="nsk", *, C=(0.1, 1.0, 10.0, 100.0), gamma=(0.25, 0.5, 1.0, 2.0, 4.0),
                 gamma_scale="median", p=1.0,
                 ground_metric="euclidean", normalize="cosine", epsilon=None, n_landmarks=None, scale="standard", cv=5,
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
        return hausdorff(X, Y, kind=self.kernel, n_jobs=self.n_jobs)

    def _set_kernels(self, bags, rel_gammas, seed):
        """Set kernels of every gamma between the training bags: (n_gammas, n, n), their rows, the
        self-kernels and (with `n_landmarks`) the landmark maps and the bags' rows under them."""
        w = self._instance_weights(bags)
        ref = absolute_unit(self, 2) if self.gamma_scale == "absolute" else median_sq_distance(
            bags.instances, self.gamma_scale)
        gammas = rel_gammas / ref
        rows = [{"gamma": float(g), "_k": k} for k, g in enumerate(gammas)]
        if self.n_landmarks is not None:
            maps, E = landmark_embeddings(bags, gammas, self.n_landmarks, self.normalize, seed, self.n_jobs)
            return np.array([e @ e.T for e in E]), rows, None, (maps, E)
        K, diag, _ = set_kernels_from_bags(bags, None, gammas, w, None, self.n_jobs)
        sums = np.add.reduceat(w, bags.offsets[:-1])
        return normalize_kernels(K, diag, diag, self.normalize, sums, sums), rows, diag, None

    def _distance_kernels(self, bags, rel_gammas, ps):
        """Distance kernels of every (p, gamma), p-major, from one distance matrix, and their rows."""
        D = self._distances(bags, None)
        off = ~np.eye(D.shape[0], dtype=bool)
        kernels = np.empty((len(ps) * len(rel_gammas),) + D.shape)  # filled in place: no second copy
        rows = []
        for p in ps:
            Dp = D ** p
            ref = absolute_unit(self, p) if self.gamma_scale == "absolute" else bandwidth_reference(
                Dp[off], self.gamma_scale)
            for g in rel_gammas / ref:
                out = kernels[len(rows)]
                rows.append({"p": float(p), "gamma": float(g), "_k": len(rows)})
                np.exp(np.multiply(Dp, -g, out=out), out=out)
        return kernels, rows

    # -- the tuning engine's hooks ------------------------------------------------------
    def _represent(self, bags, target, seeds):
        if self.kernel == "emd":
            require_pot()
        elif self.ground_metric != "euclidean":
            raise ValueError(f"ground_metric={self.ground_metric!r} needs kernel='emd' (the other kernels "
                             f"use the Euclidean distance); got kernel={self.kernel!r}")
        if self.n_landmarks is not None and self.kernel != "nsk":
            raise ValueError(f"n_landmarks approximates the normalised set kernel and needs kernel='nsk'; "
                             f"got kernel={self.kernel!r} (use n_landmarks=None)")
        Cs, rel = positive_grid(self.C, "C"), positive_grid(self.gamma, "gamma")
        ps = positive_grid(self.p, "p")
        self.offset_, self.scale_ = fit_scaling(bags.instances, self.scale, rescale_extremes=True)
        bags = apply_scaling(bags, self.offset_, self.scale_)
        landmarks = None
        if self.kernel in SET_KERNELS:
            K, rows, diag, landmarks = self._set_kernels(bags, rel, seeds.landmarks)
        else:
            (K, rows), diag = self._distance_kernels(bags, rel, ps), None
        return Bunch(bags=bags, K=K, diag=diag, rows=rows, cols=[{"C": float(C)} for C in Cs], landmarks=landmarks)

    def _design(self, fold, row):
        return fold_blocks(fold.rep.K[row["_k"]], fold)

    def _model(self, row, col, seeds, inner):
        return SVC(kernel="precomputed", C=col["C"], decision_function_shape="ovr")

    def _keep(self, rep, fold, row, col, model, selection):
        self.gamma_, self.C_ = row["gamma"], col["C"]
        self.p_ = row.get("p")
        self.svc_ = model
        self.n_train_ = rep.K.shape[1]
        sup = model.support_
        self.support_bags_ = rep.bags[sup]
        self.landmark_map_ = self.support_embedding_ = None
        if rep.landmarks is not None:
            maps, E = rep.landmarks
            self.landmark_map_, self.support_embedding_ = maps[row["_k"]], E[row["_k"]][sup]
        elif self.kernel in SET_KERNELS:
            w = self._instance_weights(self.support_bags_)
            self.support_weights_ = w
            self.support_weight_sums_ = np.add.reduceat(w, self.support_bags_.offsets[:-1])
            self.support_diag_ = rep.diag[row["_k"], sup]

    # -- prediction -------------------------------------------------------------
    def _test_kernel(self, bags):
        """Kernel between `bags` and the support bags, placed in the training columns."""
        sup = self.support_bags_
        g = np.array([self.gamma_])
        if self.landmark_map_ is not None:
            Ks = np.asarray(self.landmark_map_.transform(bags), dtype=np.float64) @ self.support_embedding_.T
        elif self.kernel in SET_KERNELS:
            w = self._instance_weights(bags)
            K, dx, _ = set_kernels_from_bags(bags, sup, g, w, self.support_weights_, self.n_jobs)
            # The support bags' self-kernels from fit (the same bags, the training centring).
            dy = self.support_diag_[None]
            sums = np.add.reduceat(w, bags.offsets[:-1])
            Ks = normalize_kernels(K, dx, dy, self.normalize, sums, self.support_weight_sums_)[0]
        else:
            Ks = np.exp(-self.gamma_ * self._distances(bags, sup) ** self.p_)
        full = np.zeros((bags.n_bags, self.n_train_))
        full[:, self.svc_.support_] = Ks
        return full

    def _decision(self, bags):
        return self.svc_.decision_function(self._test_kernel(bags))
