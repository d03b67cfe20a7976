"""Regressors on the bag encoders: distribution regression, tuned inside ``fit`` by the tuning engine.

Each regressor fits its encoder (:class:`KernelMeanEmbedding`,
:class:`FisherVectorEmbedding`, :class:`VLADEmbedding`,
:class:`SlicedWassersteinEmbedding`, :class:`BagDissimilarityEmbedding`) on
the training bags, once per encoder setting of its grid, encodes them, and
tunes a model on the encodings by the inner cross-validation of
:mod:`mil._tuning` (shuffled k-fold over the training bags, mean squared
error by default): a ridge regression on the standardised encodings, or a
kernel ridge regression (or an epsilon-SVR) with the kernel
``exp(-gamma d^p)`` on the distances ``d`` between encodings, gamma
relative to the median of ``d^p`` over the pairs of training bags. The
encoders never see a target, so each is fitted once on all the training
bags and the inner folds refit only the model on slices of the encodings.

With the kernel mean embedding this is the distribution regression of
Szabo, Sriperumbudur, Poczos and Gretton (JMLR 2016): the bags are samples
of distributions, each embedded by the mean of its instances' feature maps,
and a (kernel) ridge regression learns the target from the embeddings; the
linear model on landmark embeddings is the "RBF network" of Law et al.
(AISTATS 2018).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import Ridge
from sklearn.svm import SVR
from sklearn.utils import Bunch
from sklearn.utils._param_validation import Interval, StrOptions

from mil._scaling import apply_scaling, fit_scaling
from mil._tuning import REGRESSION_CONSTRAINTS, TunedRegressorMixin, fold_blocks, positive_grid
from mil.base import BaseBagRegressor, InstancePredictionMixin, keep_params
from mil.embedding._codebook import FisherVectorEmbedding, VLADEmbedding
from mil.embedding._kernel_mean import KernelMeanEmbedding
from mil.embedding._sliced import SlicedWassersteinEmbedding
from mil.embedding._transformers import BagDissimilarityEmbedding
from mil.embedding._vectors import column_scaling, row_distances
from mil.utils._docstrings import defaults_of, fill_doc

__all__ = ["KernelMeanRegressor", "MInDRegressor", "SlicedWassersteinRegressor", "miFVRegressor",
           "miVLADRegressor"]

#: The default grid of the ridge penalty (on standardised encodings, or the kernel ridge's).
DEFAULT_ALPHAS = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0)


class _EncoderRegressor(InstancePredictionMixin, TunedRegressorMixin, BaseBagRegressor):
    """Shared fit of the encoder regressors on :mod:`mil._tuning` (not public).

    A subclass lists its encoders (``_encoders()``: unfitted, the first
    preferred at equal inner scores). The grid's rows are the encoders
    (times ``p`` and ``gamma_scales`` for the kernel models), its columns
    the penalties (``alphas``; ``Cs`` times the targets' standard deviation
    for the SVR).
    """

    _seed_names = ("model", "encoder")

    def _encoders(self):
        raise NotImplementedError

    # -- the tuning engine's hooks ------------------------------------------------------
    def _represent(self, bags, target, seeds):
        # Features of extreme magnitude divided by a power of two (exact), as the classifiers do.
        self.offset_, self.scale_ = fit_scaling(bags.instances, None, rescale_extremes=True)
        bags = apply_scaling(bags, self.offset_, self.scale_)
        encoders = [enc.set_params(random_state=seeds.encoder).fit(bags) for enc in self._encoders()]
        encodings = [np.asarray(enc.transform(bags), dtype=np.float64) for enc in encoders]
        rows, powered = [], []
        for e, enc in enumerate(encoders):
            params = enc.get_params(deep=False)
            if self.model == "ridge":
                rows.append({"encoder": params, "_e": e})
                continue
            D = row_distances(encodings[e])  # once per fit; gamma relative to its median
            off = ~np.eye(D.shape[0], dtype=bool)
            for q in positive_grid(self.p, "p"):
                Dp = D ** q
                med = float(np.median(Dp[off])) if off.any() else 0.0
                for g in positive_grid(self.gamma_scales, "gamma_scales"):
                    rows.append({"encoder": params, "p": float(q), "gamma": float(g) / (med if med > 0 else 1.0),
                                 "_e": e, "_d": len(powered)})
                powered.append(Dp)
        spread = float(np.std(target)) or 1.0
        if self.model == "svr":
            cols = [{"C": float(C) * spread, "epsilon": self.epsilon * spread} for C in positive_grid(self.Cs, "Cs")]
        else:
            cols = [{"alpha": float(a)} for a in positive_grid(self.alphas, "alphas")]
        return Bunch(encoders=encoders, encodings=encodings, powered=powered, rows=rows, cols=cols)

    def _design(self, fold, row):
        tr, te = fold.train, fold.test
        if self.model != "ridge":
            D_train, D_test = fold_blocks(fold.rep.powered[row["_d"]], fold)
            return np.exp(-row["gamma"] * D_train), np.exp(-row["gamma"] * D_test)
        E = fold.rep.encodings[row["_e"]]
        fold.mean, fold.scale = column_scaling(E[tr])
        return (E[tr] - fold.mean) / fold.scale, (E[te] - fold.mean) / fold.scale

    def _model(self, row, col, seeds, inner):
        if self.model == "ridge":
            return Ridge(alpha=col["alpha"])
        if self.model == "rbf":
            return KernelRidge(alpha=col["alpha"], kernel="precomputed")
        return SVR(kernel="precomputed", C=col["C"], epsilon=col["epsilon"], tol=1e-6)

    def _keep(self, rep, fold, row, col, model, selection):
        self.encoder_ = rep.encoders[row["_e"]]
        self.model_ = model
        self.encoding_mean_, self.encoding_scale_ = fold.get("mean"), fold.get("scale")
        self.gamma_, self.p_ = row.get("gamma"), row.get("p")
        # The kernel models predict from the kernel against every training bag (the SVR's
        # support bags only).
        E = rep.encodings[row["_e"]]
        self.train_encodings_ = None if self.model == "ridge" else (
            E[model.support_] if self.model == "svr" else E)

    def _decision(self, bags):
        E = np.asarray(self.encoder_.transform(bags), dtype=np.float64)
        if self.model == "ridge":
            return self.model_.predict((E - self.encoding_mean_) / self.encoding_scale_)
        K = np.exp(-self.gamma_ * row_distances(E, self.train_encodings_) ** self.p_)
        if self.model == "svr":
            return K @ self.model_.dual_coef_[0] + self.model_.intercept_[0]
        return self.model_.predict(K)


class _CodebookRegressor(_EncoderRegressor):
    """miFV and miVLAD for real-valued targets (not public): ``_codebook`` is (the size parameter,
    what it counts, the encoder class, the other codebook regressor's See Also line)."""

    def _encoders(self):
        size, _, encoder, _ = self._codebook
        return [encoder(int(k), power=self.power, normalize=self.normalize, max_samples=self.max_samples,
                        scale=self.scale, n_jobs=self.n_jobs)
                for k in np.atleast_1d(getattr(self, size))]


_COMMON = {
    "model": [StrOptions({"ridge", "rbf", "svr"})],
    "alphas": ["array-like"],
    "Cs": ["array-like"],
    "epsilon": [Interval(Real, 0, None, closed="left")],
    "p": [Interval(Real, 0, None, closed="neither"), "array-like"],
    "gamma_scales": ["array-like"],
    "max_samples": [Interval(Integral, 1, None, closed="left"), None],
    "scale": [StrOptions({"standard", "minmax", "maxabs"}), None],
    "n_jobs": [Integral, None],
    **REGRESSION_CONSTRAINTS,
}


def _codebook(size, what, encoder, sibling):
    """Class decorator of the two codebook regressors: the size parameter `size` (what it counts),
    the `encoder` class and the other codebook regressor's See Also line (``_codebook``, read by
    ``_encoders`` and the docstring), and the parameter constraints."""
    def decorate(cls):
        cls._codebook = (size, what, encoder, sibling)
        cls._parameter_constraints = {**_COMMON, size: [Interval(Integral, 1, None, closed="left"), "array-like"],
                                      "power": [Interval(Real, 0, 1, closed="right")],
                                      "normalize": [StrOptions({"l2", "intra"}), None]}
        return cls

    return decorate


def _model_doc(cls):
    d = defaults_of(cls)
    text = f"""    model : {{"ridge", "rbf", "svr"}}, default="{d["model"]}"
        The model on the encodings: a ridge regression on the encodings
        (columns standardised on the training bags), a kernel ridge
        regression with the kernel ``exp(-gamma d^p)`` on the distances d
        between encodings, or an epsilon-SVR with that kernel.
    alphas : array-like, default={d["alphas"]}
        Candidate ridge penalties (``"ridge"``, ``"rbf"``), the smallest
        preferred at equal inner scores.
    Cs : array-like, default={d["Cs"]}
        Candidate values of the SVR's C (``"svr"``), in units of the
        targets' standard deviation.
    epsilon : float, default={d["epsilon"]}
        The SVR's insensitive margin (``"svr"``), in units of the targets'
        standard deviation.
    p : float > 0 or array-like of float, default={d["p"]}
        Power of the distance in the kernel ``exp(-gamma d^p)`` (``"rbf"``,
        ``"svr"``): 2 is the Gaussian kernel. A list is tuned.
    gamma_scales : array-like, default={d["gamma_scales"]}
        Candidate multiples of the inverse median of ``d^p`` over the
        pairs of training bags (``"rbf"``, ``"svr"``), computed once per
        fit.
"""
    return text


def _regressor_parameters_doc(cls):
    """The parameters every encoder regressor shares, then its Attributes section.

    ``cls._scaling_sample`` says what the feature scaling is fitted on and
    ``cls._solver_doc`` documents `n_jobs` and `random_state` where they
    differ from the encoders'.
    """
    scale = repr(defaults_of(cls)["scale"]).replace("'", '"')
    return f"""    [model parameters]
    [inner-cv regression parameters]
    scale : {{"standard", "minmax", "maxabs"}} or None, default={scale}
        Scaling of the instance features, fitted on {getattr(cls, "_scaling_sample", "the encoder's sample")}.
{getattr(cls, "_solver_doc", _SOLVER_DOC)}
    Attributes
    ----------
    [regressor attributes]
"""


def _codebook_parameters_doc(cls):
    """The codebook regressors' parameters after the codebook size."""
    return f"""    power : float, default={defaults_of(cls)["power"]}
        Signed power normalisation of the encoding (1 switches it off).
    normalize : {{"l2", "intra"}} or None, default="l2"
        Normalisation of the encoding.
    [regressor parameters]
"""


def _see_also_doc(cls):
    """See Also: the encoder alone and the classifier on it (``cls._see_also``: the encoder, what
    it makes, the classifier, what it classifies)."""
    encoder, makes, classifier, on = cls._see_also
    return f"""    See Also
    --------
    {encoder} : The {makes} alone, for any model.
    mil.embedding.{classifier} : The classifier on these {on}.
"""


_SOLVER_DOC = """    max_samples : int or None, default=100_000
        The encoder is fitted on this many training instances drawn at
        random (seeded), all of them when there are fewer.
    n_jobs : int, default=None
        Threads of the encoding (chunks of bags).
    random_state : int, RandomState or None, default=None
        Seeds the inner folds' shuffle and, through an independent seed
        drawn from it, the encoder (its sample, landmarks, k-means /
        mixture initialisation, directions).
"""

_ATTRS_DOC = """    encoder_ : estimator
        The fitted encoder chosen.
    model_ : Ridge, KernelRidge or SVR
        The model fitted on all the training bags' encodings (or kernel).
    best_params_ : dict
        ``{"encoder": the encoder's parameters, "alpha": ...}`` chosen
        (``"C"`` and ``"epsilon"`` for the SVR, ``"p"`` and ``"gamma"`` for
        the kernel models).
    cv_results_ : ndarray of shape (n_settings, n_penalties) or None
        The inner CV's `scoring` of each grid point (None without inner
        folds).
    encoding_mean_, encoding_scale_ : ndarray of shape (n_encoding,) or None
        The encodings' column standardisation (``model="ridge"``).
    gamma_, p_ : float or None
        The kernel's gamma and power (None for the ridge).
    train_encodings_ : ndarray or None
        The encodings the kernel models predict from (None for the ridge).
    n_features_in_ : int
        Number of features of the instances.
    [feature names attribute]
"""

_INSTANCES_DOC = """    ``predict_instances`` gives each instance the prediction of a bag
    holding it alone (:class:`mil.base.InstancePredictionMixin`).
"""


def _examples_doc(cls):
    return f"""    [rng examples]
    >>> spread = rng.uniform(0.5, 2.0, size=40)
    >>> bags = [rng.normal(scale=s, size=(30, 2)) for s in spread]
    >>> reg = {cls.__name__}({getattr(cls, "_example_arguments", "random_state=0")}).fit(bags[:30], spread[:30])
    >>> bool(reg.score(bags[30:], spread[30:]) > 0.5)
    True
"""


_SECTIONS = dict(model_parameters=_model_doc, regressor_parameters=_regressor_parameters_doc,
                 regressor_attributes=_ATTRS_DOC, instance_outputs=_INSTANCES_DOC, examples=_examples_doc,
                 codebook_model_parameters=_codebook_parameters_doc, see_also=_see_also_doc)


@fill_doc(**_SECTIONS)
class KernelMeanRegressor(_EncoderRegressor):
    """Distribution regression: kernel mean embeddings of the bags and a (kernel) ridge regression.

    Each bag is taken as a sample of a distribution and embedded by the
    mean of its instances' feature maps for the Gaussian kernel
    ``exp(-gamma ||x - z||^2)`` (a Nystroem map on ``n_components``
    landmarks drawn from the training instances;
    :class:`KernelMeanEmbedding` with ``normalize="weights"``), so that the
    inner product of two embeddings approximates the mean kernel between
    the two samples; a ridge regression learns the target from the
    embeddings (Szabo et al. 2016; the "RBF network" of Law et al. 2018).
    The instance kernel's width (``gamma_scales`` times the median
    heuristic) and the penalty are chosen inside ``fit`` by an inner
    cross-validation over the training bags; ``model="rbf"`` puts a
    Gaussian kernel on the embeddings (a second-level kernel) instead.

    [instance outputs]

    Parameters
    ----------
    n_components : int, default=500
        Landmarks of the Nystroem map (``method="rff"``: random features),
        at most the number of sampled training instances.
    instance_gamma_scales : array-like, default=(0.25, 1.0, 4.0)
        Candidate multiples of the median heuristic for the instance
        kernel's gamma (one encoder each), the first preferred at equal
        inner scores.
    method : {"nystroem", "rff"}, default="nystroem"
        The instance feature map.
    [regressor parameters]

    [see also]
    mil.wrappers.SimpleMIRegressor : Per-feature statistics of the bags instead.

    References
    ----------
    Z. Szabo, B. K. Sriperumbudur, B. Poczos and A. Gretton, "Learning
    theory for distribution regression", JMLR 17, 2016.
    H. C. L. Law, D. J. Sutherland, D. Sejdinovic and S. Flaxman, "Bayesian
    approaches to distribution regression", AISTATS 2018.

    [examples]
    """

    _see_also = ("KernelMeanEmbedding", "encoding", "KernelMeanClassifier", "embeddings")
    _example_arguments = "n_components=100, random_state=0"
    _parameter_constraints = {**_COMMON, "n_components": [Interval(Integral, 1, None, closed="left")],
                              "instance_gamma_scales": ["array-like"], "method": [StrOptions({"rff", "nystroem"})]}

    def __init__(self, n_components=500, *, instance_gamma_scales=(0.25, 1.0, 4.0), method="nystroem",
                 model="ridge", alphas=DEFAULT_ALPHAS, Cs=(0.1, 1.0, 10.0), epsilon=0.1, p=2.0,
                 gamma_scales=(0.25, 1.0, 4.0), cv=None, cv_repeats=1, scoring="neg_mean_squared_error",
                 scale="standard", max_samples=100_000, n_jobs=None, random_state=None):
        keep_params(self, locals())

    def _encoders(self):
        return [KernelMeanEmbedding(self.n_components, method=self.method, gamma=float(g), gamma_scale="median",
                                    normalize="weights", max_samples=self.max_samples, scale=self.scale,
                                    n_jobs=self.n_jobs)
                for g in positive_grid(self.instance_gamma_scales, "instance_gamma_scales")]


@fill_doc(**_SECTIONS)
@_codebook("n_components", "Mixture components", FisherVectorEmbedding,
           "miVLADRegressor : VLAD codes of a k-means codebook instead.")
class miFVRegressor(_CodebookRegressor):
    """Fisher vectors of a Gaussian mixture and a ridge regression (miFV for real-valued targets).

    A diagonal Gaussian mixture of ``n_components`` is fitted on the
    training instances; each bag becomes its Fisher vector (power and L2
    normalised; :class:`FisherVectorEmbedding`), and the model learns the
    target from it (Wei, Wu and Zhou 2017's encoding). The penalty (and the
    mixture size when `n_components` is a list) are chosen inside ``fit``
    by an inner cross-validation over the training bags.

    [codebook model]
    """

    def __init__(self, n_components=2, *, power=0.5, normalize="l2", model="ridge", alphas=DEFAULT_ALPHAS,
                 Cs=(0.1, 1.0, 10.0), epsilon=0.1, p=2.0, gamma_scales=(0.25, 1.0, 4.0), cv=None, cv_repeats=1,
                 scoring="neg_mean_squared_error", scale="standard", max_samples=100_000, n_jobs=None,
                 random_state=None):
        keep_params(self, locals())


@fill_doc(**_SECTIONS)
@_codebook("n_clusters", "Codebook size", VLADEmbedding,
           "miFVRegressor : Fisher vectors of a Gaussian mixture instead.")
class miVLADRegressor(_CodebookRegressor):
    """VLAD encodings on a k-means codebook and a ridge regression (miVLAD for real-valued targets).

    A k-means codebook of ``n_clusters`` centres is learned on the training
    instances; each bag becomes the sums of its instances' residuals to
    their nearest centre, L2-normalised (:class:`VLADEmbedding`), and the
    model learns the target from them. The penalty (and the codebook size
    when `n_clusters` is a list) are chosen inside ``fit`` by an inner
    cross-validation over the training bags.

    [codebook model]
    """

    def __init__(self, n_clusters=2, *, power=1.0, normalize="l2", model="ridge", alphas=DEFAULT_ALPHAS,
                 Cs=(0.1, 1.0, 10.0), epsilon=0.1, p=2.0, gamma_scales=(0.25, 1.0, 4.0), cv=None, cv_repeats=1,
                 scoring="neg_mean_squared_error", scale=None, max_samples=100_000, n_jobs=None,
                 random_state=None):
        keep_params(self, locals())


@fill_doc(**_SECTIONS)
class SlicedWassersteinRegressor(_EncoderRegressor):
    """Sliced-Wasserstein embeddings and a kernel ridge regression: distribution regression by transport.

    Each bag becomes the quantiles of its instances' projections on
    ``n_directions`` random directions (:class:`SlicedWassersteinEmbedding`,
    after Naderializadeh et al. 2021), so that the Euclidean distance
    between two encodings approximates the sliced 2-Wasserstein distance
    between the bags; a kernel ridge regression with the kernel
    ``exp(-gamma d^p)`` on those distances learns the target (the
    sliced-Wasserstein kernel of Kolouri et al. 2016). The penalty and
    gamma are chosen inside ``fit`` by an inner cross-validation over the
    training bags.

    [instance outputs]

    Parameters
    ----------
    [sliced model parameters]
    [regressor parameters]

    [see also]

    References
    ----------
    N. Naderializadeh, J. F. Comer, R. W. Andrews, H. Hoffmann and
    S. Kolouri, "Pooling by sliced-Wasserstein embedding", NeurIPS 2021.
    S. Kolouri, Y. Zou and G. K. Rohde, "Sliced Wasserstein kernels for
    probability distributions", CVPR 2016.

    [examples]
    """

    _see_also = ("SlicedWassersteinEmbedding", "encoding", "SlicedWassersteinClassifier", "embeddings")
    _parameter_constraints = {**_COMMON, "n_directions": [Interval(Integral, 1, None, closed="left")],
                              "n_quantiles": [Interval(Integral, 1, None, closed="left")]}

    def __init__(self, n_directions=64, n_quantiles=16, *, model="rbf", alphas=DEFAULT_ALPHAS, Cs=(0.1, 1.0, 10.0),
                 epsilon=0.1, p=2.0, gamma_scales=(0.25, 1.0, 4.0), cv=None, cv_repeats=1,
                 scoring="neg_mean_squared_error", scale=None, max_samples=100_000, n_jobs=None, random_state=None):
        keep_params(self, locals())

    def _encoders(self):
        return [SlicedWassersteinEmbedding(self.n_directions, self.n_quantiles, max_samples=self.max_samples,
                                           scale=self.scale, n_jobs=self.n_jobs)]


@fill_doc(**_SECTIONS)
class MInDRegressor(_EncoderRegressor):
    """Bag dissimilarities to the training bags and a kernel ridge regression (MInD for real-valued targets).

    Each bag becomes its vector of dissimilarities to the training bags
    (the prototypes; :class:`BagDissimilarityEmbedding`, the average of the
    instances' distances to the nearest instance of the other bag by
    default), and a kernel ridge regression with the Gaussian kernel on
    those vectors learns the target (Cheplygina, Tax and Loog 2015's
    representation). The penalty and gamma are chosen inside ``fit`` by an
    inner cross-validation over the training bags. Quadratic in the bags
    and in their instances: for many or large bags, use
    :class:`KernelMeanRegressor` or :class:`SlicedWassersteinRegressor`.

    [instance outputs]

    Parameters
    ----------
    dissimilarity : {"meanmin", "minmin", "maxmin", "hausdorff", "average"}, default="average"
        The bag dissimilarity (:class:`BagDissimilarityEmbedding`).
    n_prototypes : int or None, default=None
        Prototype bags drawn at random from the training bags (all of them
        with None).
    [regressor parameters]

    [see also]

    References
    ----------
    V. Cheplygina, D. M. J. Tax and M. Loog, "Multiple instance learning
    with bag dissimilarities", Pattern Recognition 48(1), 2015.

    [examples]
    """

    _see_also = ("BagDissimilarityEmbedding", "representation", "MInDClassifier", "dissimilarities")
    _scaling_sample = "the training instances"
    _solver_doc = """    n_jobs : int, default=None
        Threads of the bag distances.
    random_state : int, RandomState or None, default=None
        Seeds the inner folds' shuffle and, through an independent seed
        drawn from it, the prototypes' draw.
"""
    _parameter_constraints = {
        **{k: v for k, v in _COMMON.items() if k != "max_samples"},
        "dissimilarity": [StrOptions({"meanmin", "minmin", "maxmin", "hausdorff", "average"})],
        "n_prototypes": [Interval(Integral, 1, None, closed="left"), None]}

    def __init__(self, dissimilarity="average", *, n_prototypes=None, model="rbf", alphas=DEFAULT_ALPHAS,
                 Cs=(0.1, 1.0, 10.0), epsilon=0.1, p=2.0, gamma_scales=(0.25, 1.0, 4.0), cv=None, cv_repeats=1,
                 scoring="neg_mean_squared_error", scale="standard", n_jobs=None, random_state=None):
        keep_params(self, locals())

    def _encoders(self):
        return [BagDissimilarityEmbedding(self.dissimilarity, n_prototypes=self.n_prototypes, scale=self.scale,
                                          n_jobs=self.n_jobs)]
