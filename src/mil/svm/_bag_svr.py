"""Regression on bag kernels: epsilon-SVR or kernel ridge on the NSK, miGraph, EMD and Hausdorff kernels.

The regression counterpart of :class:`~mil.svm.BagKernelSVC`: the same bag
kernels (:func:`~mil.svm.set_kernel` for the set kernels, one pass for
every gamma of the grid; ``exp(-gamma d^p)`` from one matrix of bag
distances for the distance kernels), and scikit-learn's ``SVR`` or
``KernelRidge`` on the precomputed kernel, the grid tuned inside ``fit`` by
the inner cross-validation of :mod:`mil._tuning`.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.svm import SVR
from sklearn.utils import Bunch
from sklearn.utils._param_validation import Interval, StrOptions

from mil._scaling import apply_scaling, fit_scaling, median_sq_distance
from mil._tuning import REGRESSION_CONSTRAINTS, TunedRegressorMixin, fold_blocks, positive_grid
from mil.base import BaseBagRegressor, InstancePredictionMixin, keep_params
from mil.distances import hausdorff
from mil.svm._kernels import emd_distances, landmark_embeddings, set_kernel
from mil.utils._docstrings import fill_doc

__all__ = ["BagKernelSVR"]

SET_KERNELS = ("nsk", "migraph")
DISTANCE_KERNELS = ("emd", "minimal", "maximal", "average")


@fill_doc
class BagKernelSVR(InstancePredictionMixin, TunedRegressorMixin, BaseBagRegressor):
    """Epsilon-SVR or kernel ridge regression on a kernel between bags (NSK, miGraph, EMD, Hausdorff).

    The bag kernels are those of :class:`~mil.svm.BagKernelSVC`:

    - ``"nsk"``: the normalised set kernel (Gaertner, Flach, Kowalczyk and
      Smola 2002), ``sum_a sum_b exp(-gamma ||a - b||^2)`` divided by
      ``sqrt(K(A, A) K(B, B))``;
    - ``"migraph"``: the same with instance weights 1 / degree in each
      bag's epsilon-graph (Zhou, Sun and Li 2009);
    - ``"emd"``: ``exp(-gamma EMD(A, B)^p)``, the earth mover's distance
      with a Euclidean ground cost (through POT);
    - ``"minimal"``, ``"maximal"``, ``"average"``: ``exp(-gamma d(A, B)^p)``
      with a Hausdorff distance (:mod:`mil.distances`).

    scikit-learn's ``SVR`` (``model="svr"``; C and epsilon in units of the
    training targets' standard deviation) or ``KernelRidge``
    (``model="ridge"``) learns on the precomputed kernel. gamma (relative
    to the median heuristic) and C or alpha are chosen inside ``fit`` by
    the inner cross-validation over the training bags, from one kernel pass
    per fit. Quadratic in the bags and in their instances: for many or
    large bags, ``n_landmarks`` approximates the NSK (below), and see
    :class:`~mil.embedding.KernelMeanRegressor` (the NSK made linear, with a
    ridge) and :class:`~mil.embedding.SlicedWassersteinRegressor` (a
    linear-time stand-in for the EMD kernel). ``predict_instances`` gives
    each instance the prediction of a bag holding it alone.

    With ``n_landmarks`` set (``kernel="nsk"`` only), the instance kernel
    is approximated by a Nystroem map on that many landmarks drawn at
    random from the training instances (Williams and Seeger 2001; the
    landmarks of Law et al. 2018), and the bag kernel is the inner product
    of the bags' normalised sums of landmark features
    (:class:`~mil.embedding.KernelMeanEmbedding`, ``normalize="cosine"``):
    the NSK of the mapped instances, equal to the exact NSK when every
    instance is a landmark. gamma keeps its meaning, and the SVR or ridge
    and the inner cross-validation are the same, on this kernel. The cost
    is linear in the instances: ``n_instances x n_landmarks`` kernel values
    per gamma of the grid in ``fit`` (one gamma in ``predict``), against
    ``n_instances^2 / 2`` for the exact kernel.

    Parameters
    ----------
    kernel : {"nsk", "migraph", "emd", "minimal", "maximal", "average"}, default="nsk"
        The bag kernel (see above).
    model : {"svr", "ridge"}, default="svr"
        Epsilon-SVR or kernel ridge regression on the kernel.
    C : float or array-like of float, default=(0.1, 1.0, 10.0, 100.0)
        The SVR's C in units of the targets' standard deviation (a list is
        tuned; ``model="svr"``).
    epsilon : float, default=0.1
        The SVR's insensitive margin in units of the targets' standard
        deviation.
    alphas : array-like, default=(0.001, 0.01, 0.1, 1.0)
        Candidate penalties of the kernel ridge (``model="ridge"``).
    gamma : float or array-like of float, default=(0.25, 0.5, 1.0, 2.0, 4.0)
        Kernel bandwidths, multiples of the median heuristic: the median
        squared distance between training instances (set kernels) or the
        median ``d^p`` over the pairs of training bags (distance kernels).
    p : float > 0 or array-like of float, default=1.0
        Power of the distance in the distance kernels (a list is tuned).
    epsilon_graph : float or None, default=None
        The miGraph edge threshold; None uses each bag's mean intra-bag
        distance.
    n_landmarks : int or None, default=None
        None: the exact kernel. An int: the NSK approximated on that many
        Nystroem landmarks (at most the number of training instances, of
        which up to 100,000 are sampled first); ``kernel="nsk"`` only.
    scale : {"standard", "minmax", "maxabs"} or None, default="standard"
        Feature scaling fitted on the training instances.
    [inner-cv regression parameters]
    n_jobs : int, default=None
        Threads for the kernel and distance passes.
    random_state : int, RandomState or None, default=None
        Seeds the shuffles of an int `cv` and, with `n_landmarks`, the
        landmarks (independent seeds drawn from it).

    Attributes
    ----------
    model_ : sklearn.svm.SVR or sklearn.kernel_ridge.KernelRidge
        The model on the training bags' kernel.
    gamma_ : float
        The bandwidth used (absolute, on the scaled features).
    p_ : float or None
        The power used (distance kernels).
    best_params_ : dict
        The chosen gamma (and p) and C (and epsilon) or alpha.
    cv_results_ : ndarray of shape (n_p * n_gammas, n_penalties) or None
        The inner CV's `scoring` of each grid point (None without inner
        folds).
    train_bags_ : Bags
        The scaled training bags the kernel of a new bag is taken against
        (the SVR's support bags).
    landmark_map_ : KernelMeanEmbedding or None
        With `n_landmarks`: the fitted map of a bag to its normalised sum
        of landmark features at ``gamma_``, on the scaled features (None
        for the exact kernel).
    train_embedding_ : ndarray of shape (n_train_bags, n_components) or None
        With `n_landmarks`: the rows of ``train_bags_`` under
        ``landmark_map_``; a new bag's kernel against them is the inner
        product of its row with each (None for the exact kernel).
    dual_coef_ : ndarray of shape (n_train_bags,)
        The prediction is ``K @ dual_coef_ + intercept_``, K the kernel
        against ``train_bags_``.
    intercept_ : float
        The SVR's intercept (0 for the kernel ridge).
    n_features_in_ : int
        Number of features of the instances.
    [feature names attribute]

    See Also
    --------
    mil.svm.BagKernelSVC : The classifier on the same kernels.
    mil.embedding.KernelMeanRegressor : The NSK made linear in the instances.

    References
    ----------
    T. Gaertner, P. A. Flach, A. Kowalczyk and A. J. Smola, "Multi-instance
    kernels", ICML 2002. Z.-H. Zhou, Y.-Y. Sun and Y.-F. Li, "Multi-instance
    learning by treating instances as non-i.i.d. samples", ICML 2009.
    A. J. Smola and B. Schoelkopf, "A tutorial on support vector
    regression", Statistics and Computing 14, 2004. C. K. I. Williams and
    M. Seeger, "Using the Nystroem method to speed up kernel machines",
    NeurIPS 2001. H. C. L. Law, D. J. Sutherland, D. Sejdinovic and
    S. Flaxman, "Bayesian approaches to distribution regression", AISTATS
    2018.

    [rng examples]
    >>> spread = rng.uniform(0.5, 2.0, size=40)
    >>> bags = [rng.normal(scale=s, size=(20, 2)) for s in spread]
    >>> reg = BagKernelSVR("average", random_state=0).fit(bags[:30], spread[:30])
    >>> bool(reg.score(bags[30:], spread[30:]) > 0.5)
    True

    With every training instance a landmark (30 bags of 20), the kernel
    between the training bags is the exact NSK and so is the model:

    >>> exact = BagKernelSVR(random_state=0).fit(bags[:30], spread[:30])
    >>> approx = BagKernelSVR(n_landmarks=600, random_state=0).fit(bags[:30], spread[:30])
    >>> bool(abs(approx.predict(bags[:30]) - exact.predict(bags[:30])).max() < 1e-6)
    True
    """

    #: The landmarks' seed is drawn after the inner folds' (the exact kernel draws nothing more).
    _seed_names = ("landmarks",)
    _parameter_constraints = {
        "kernel": [StrOptions(set(SET_KERNELS + DISTANCE_KERNELS))],
        "model": [StrOptions({"svr", "ridge"})],
        "C": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "alphas": ["array-like"],
        "gamma": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "p": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "epsilon_graph": [Interval(Real, 0, None, closed="neither"), None],
        "n_landmarks": [Interval(Integral, 1, None, closed="left"), None],
        "scale": [StrOptions({"standard", "minmax", "maxabs"}), None],
        "n_jobs": [Integral, None],
        **REGRESSION_CONSTRAINTS,
    }

    def __init__(self, kernel="nsk", *, model="svr", C=(0.1, 1.0, 10.0, 100.0), epsilon=0.1,
                 alphas=(0.001, 0.01, 0.1, 1.0), gamma=(0.25, 0.5, 1.0, 2.0, 4.0), p=1.0, epsilon_graph=None,
                 n_landmarks=None, scale="standard", cv=5, cv_repeats=1, scoring="neg_mean_squared_error",
                 n_jobs=None, random_state=None):
        keep_params(self, locals())

    def _kernel(self, X, Y, gamma, p=None):
        """The bag kernel between X and Y (None: X itself) for one or several gammas."""
        if getattr(self, "landmark_map_", None) is not None:  # Y: the training bags
            return np.asarray(self.landmark_map_.transform(X), dtype=np.float64) @ self.train_embedding_.T
        if self.kernel in SET_KERNELS:
            return set_kernel(X, Y, gamma=gamma, weights=self.kernel, epsilon=self.epsilon_graph, n_jobs=self.n_jobs)
        return np.exp(-np.multiply.outer(np.atleast_1d(gamma), self._distances(X, Y) ** p))

    def _distances(self, X, Y):
        if self.kernel == "emd":
            return emd_distances(X, Y, n_jobs=self.n_jobs)
        return hausdorff(X, Y, kind=self.kernel, n_jobs=self.n_jobs)

    # -- the tuning engine's hooks ------------------------------------------------------
    def _represent(self, bags, target, seeds):
        if self.n_landmarks is not None and self.kernel != "nsk":
            raise ValueError(f"n_landmarks approximates the normalised set kernel and needs kernel='nsk'; "
                             f"got kernel={self.kernel!r} (use n_landmarks=None)")
        self.offset_, self.scale_ = fit_scaling(bags.instances, self.scale, rescale_extremes=True)
        bags = apply_scaling(bags, self.offset_, self.scale_)
        rel = np.asarray(positive_grid(self.gamma, "gamma"), dtype=np.float64)
        kernels, rows, encoders, embeddings = [], [], None, None
        if self.n_landmarks is not None:
            # The exact path's gammas, the same median heuristic.
            gammas = rel / median_sq_distance(bags.instances)
            encoders, embeddings = landmark_embeddings(bags, gammas, self.n_landmarks, "cosine", seeds.landmarks,
                                                       self.n_jobs)
            kernels = [E @ E.T for E in embeddings]
            rows = [{"gamma": float(g), "_k": k} for k, g in enumerate(gammas)]
        elif self.kernel in SET_KERNELS:
            gammas = rel / median_sq_distance(bags.instances)
            kernels = list(set_kernel(bags, gamma=gammas, weights=self.kernel, epsilon=self.epsilon_graph,
                                      n_jobs=self.n_jobs))
            rows = [{"gamma": float(g), "_k": k} for k, g in enumerate(gammas)]
        else:
            D = self._distances(bags, None)  # once per fit
            off = ~np.eye(D.shape[0], dtype=bool)
            for p in positive_grid(self.p, "p"):
                Dp = D ** p
                med = float(np.median(Dp[off])) if off.any() else 0.0
                for g in rel / (med if med > 0 else 1.0):
                    rows.append({"gamma": float(g), "p": float(p), "_k": len(kernels)})
                    kernels.append(np.exp(-g * Dp))
        spread = float(np.std(target)) or 1.0
        if self.model == "svr":
            cols = [{"C": float(C) * spread, "epsilon": self.epsilon * spread} for C in positive_grid(self.C, "C")]
        else:
            cols = [{"alpha": float(a)} for a in positive_grid(self.alphas, "alphas")]
        return Bunch(bags=bags, K=kernels, rows=rows, cols=cols, encoders=encoders, embeddings=embeddings)

    def _design(self, fold, row):
        return fold_blocks(fold.rep.K[row["_k"]], fold)

    def _model(self, row, col, seeds, inner):
        if self.model == "svr":
            return SVR(kernel="precomputed", C=col["C"], epsilon=col["epsilon"], tol=1e-6)
        return KernelRidge(alpha=col["alpha"], kernel="precomputed")

    def _keep(self, rep, fold, row, col, model, selection):
        self.model_ = model
        self.gamma_, self.p_ = row["gamma"], row.get("p")
        if self.model == "svr":
            train = model.support_
            self.train_bags_ = rep.bags[train]
            self.dual_coef_ = model.dual_coef_[0]
            self.intercept_ = float(model.intercept_[0])
        else:
            train = np.arange(rep.bags.n_bags)
            self.train_bags_ = rep.bags
            self.dual_coef_ = np.asarray(model.dual_coef_, dtype=np.float64).ravel()
            self.intercept_ = 0.0
        self.landmark_map_ = self.train_embedding_ = None
        if rep.encoders is not None:
            self.landmark_map_ = rep.encoders[row["_k"]]
            self.train_embedding_ = rep.embeddings[row["_k"]][train]

    def _decision(self, bags):
        K = self._kernel(bags, self.train_bags_, self.gamma_, self.p_)
        K = K[0] if K.ndim == 3 else K
        return K @ self.dual_coef_ + self.intercept_
