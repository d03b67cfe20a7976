"""Classifiers on the bag encoders: an encoder fitted on the training bags, a linear model on top.

Each classifier fits its encoder (:class:`VLADEmbedding`,
:class:`FisherVectorEmbedding`, :class:`KernelMeanEmbedding`,
:class:`SlicedWassersteinEmbedding`) on the training bags, once per encoder
setting of its grid, encodes them, and tunes the model on the encodings by
the inner cross-validation of :mod:`mil._tuning` (the same folds, scores,
ties and probability scale as MILES, MInD and the bag-kernel SVMs). The
encoders never see a label, so an encoder is fitted once on all the
training bags and the inner folds refit only the model on slices of its
encodings (as a scikit-learn ``Pipeline`` whose unsupervised first step is
fitted before a ``GridSearchCV`` of the second). The test bags are never
seen in ``fit``.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC, LinearSVC
from sklearn.utils import Bunch
from sklearn.utils._param_validation import Interval, StrOptions

from mil._tuning import CONSTRAINTS, TunedClassifierMixin, positive_grid
from mil._scaling import MAGNITUDE_EXPONENT, apply_scaling, fit_scaling
from mil.base import BaseBagClassifier, InstanceOutputMixin, keep_params
from mil.embedding._codebook import FisherVectorEmbedding, VLADEmbedding
from mil.embedding._kernel_mean import KernelMeanEmbedding
from mil.embedding._sliced import SlicedWassersteinEmbedding
from mil.embedding._vectors import column_scaling, row_distances
from mil.utils._docstrings import defaults_of, fill_doc

__all__ = ["miFVClassifier", "miVLADClassifier", "KernelMeanClassifier", "SlicedWassersteinClassifier"]

#: The default grid of C: the study's (``benchmarks/studies/study_encoders.py``).
DEFAULT_CS = (0.01, 0.1, 1.0, 10.0, 100.0, 1000.0)


def _sizes(value, name):
    """An int or a non-empty sequence of positive ints, as a list."""
    values = [value] if isinstance(value, Integral) else list(np.asarray(value).ravel())
    if not values or any(not float(v).is_integer() or v < 1 for v in values):
        raise ValueError(f"{name} must be a positive int or a non-empty sequence of them; got {value!r}")
    return [int(v) for v in values]


def _distance_unit(d, p):
    """1, or the power of two near the median of the distances `d` when ``d^p`` would leave
    float64's comfortable range (``2^+-400``): then the kernel is taken on ``(d / unit)^p``."""
    positive = d[d > 0]
    if positive.size == 0:
        return 1.0
    exponent = int(np.frexp(float(np.median(positive)))[1])
    top = int(np.frexp(float(positive.max()))[1])
    if abs(exponent * p) <= MAGNITUDE_EXPONENT and abs(top * p) <= MAGNITUDE_EXPONENT:
        return 1.0
    return float(np.ldexp(1.0, exponent))


def _rbf(D, gamma):
    """``exp(-gamma D)`` into one new array."""
    K = np.multiply(D, -gamma)
    return np.exp(K, out=K)


class _EncoderClassifier(InstanceOutputMixin, TunedClassifierMixin, BaseBagClassifier):
    """Shared fit of the encoder classifiers on :mod:`mil._tuning` (not public).

    A subclass lists its encoder settings (``_encoders()``: unfitted
    encoders, the first preferred at equal inner scores); the RBF kernel's
    settings (``p`` and ``gamma_scales``) make more rows. The grid's rows
    are the (encoder, kernel setting) pairs, its columns the values of C.
    The representation is the training bags' encodings (one per encoder)
    and, for the RBF kernel, one distance matrix between them.
    """

    _binary_only = False
    _classes_alike = True
    _seed_names = ("model", "encoder")
    #: Which models the class offers ("logistic", "svm", "rbf").
    _models = ("logistic", "svm")

    #: Whether the encodings are normalised (L2) already; SlicedWasserstein's are not.
    _normalised_encodings = True

    def _accepts_float32(self):
        # The encoders read float32 bags as they are (block by block, some steps in float32, the
        # data's own precision), so a float64 copy of the data is not made first.
        return True

    def _encoders(self):
        raise NotImplementedError

    # -- the tuning engine's hooks ------------------------------------------------------
    def _represent(self, bags, target, seeds):
        if self.model not in self._models:
            raise ValueError(f"model must be one of {', '.join(map(repr, self._models))}; got {self.model!r}")
        if self.positive_class is not None:
            warnings.warn(f"positive_class is deprecated in {type(self).__name__} and will be removed: the "
                          "model treats the two classes alike, so it has no effect", FutureWarning, stacklevel=4)
        # Features of extreme magnitude are divided by a power of two first (exact; the encoders'
        # distances, squares and bandwidths then stay inside float64).
        self.offset_, self.scale_ = fit_scaling(bags.instances, None, rescale_extremes=True)
        bags = apply_scaling(bags, self.offset_, self.scale_)
        encoders = [enc.set_params(random_state=seeds.encoder).fit(bags) for enc in self._encoders()]
        encodings = [np.asarray(enc.transform(bags), dtype=np.float64) for enc in encoders]
        rows, powered, units = [], [], []
        for e, enc in enumerate(encoders):
            params = enc.get_params(deep=False)
            units.append(self._encoding_unit(encodings[e]))
            if self.model != "rbf":
                rows.append({"encoder": params, "_e": e})
                continue
            # One distance matrix per encoding, once per fit; gamma relative to the median of
            # d^p over all the pairs of training bags.
            D = row_distances(encodings[e])
            off = ~np.eye(D.shape[0], dtype=bool)
            for q in positive_grid(self.p, "p"):
                unit = _distance_unit(D[off], q)
                Dp = (D if unit == 1.0 else D / unit) ** q if q != 1.0 or unit != 1.0 else D
                med = float(np.median(Dp[off])) if off.any() else 0.0
                for g in positive_grid(self.gamma_scales, "gamma_scales"):
                    rows.append({"encoder": params, "p": float(q), "gamma": float(g) / (med if med > 0 else 1.0),
                                 "_e": e, "_d": len(powered), "_unit": unit})
                powered.append(Dp)
        Cs = [self.C] if self.C is not None else positive_grid(self.Cs, "Cs")
        return Bunch(encoders=encoders, encodings=encodings, units=units, powered=powered, rows=rows,
                     cols=[{"C": float(C)} for C in Cs])

    def _encoding_unit(self, E):
        """What the linear models' encodings are divided by: 1, or for encodings that are not
        normalised (``_normalised_encodings`` False) without column standardisation, the power
        of two that brings their largest training magnitude into [0.5, 1), so that the model
        does not depend on the features' unit beyond that power of two."""
        if self._normalised_encodings or self.encoding_scale is not None or self.model == "rbf":
            return 1.0
        finite = np.abs(E[np.isfinite(E)])
        top = float(finite.max()) if finite.size else 0.0
        return float(np.ldexp(1.0, int(np.frexp(top)[1]))) if top > 0 else 1.0

    def _design(self, fold, row):
        tr, te = fold.train, fold.test
        if self.model == "rbf":
            if fold.get("d") != row["_d"]:  # one slice of a distance matrix per fold, shared by its gammas
                Dp = fold.rep.powered[row["_d"]]
                everyone = te.size == 0 and tr.size == Dp.shape[0]  # the refit: every bag, in order
                fold.d, fold.D_train, fold.D_test = row["_d"], Dp if everyone else Dp[np.ix_(tr, tr)], Dp[np.ix_(te, tr)]
            return _rbf(fold.D_train, row["gamma"]), _rbf(fold.D_test, row["gamma"])
        E, unit = fold.rep.encodings[row["_e"]], fold.rep.units[row["_e"]]
        E_train, E_test = (E[tr], E[te]) if unit == 1.0 else (E[tr] / unit, E[te] / unit)
        fold.mean = fold.scale = None
        if self.encoding_scale == "standard":
            fold.mean, fold.scale = column_scaling(E_train)
            return (E_train - fold.mean) / fold.scale, (E_test - fold.mean) / fold.scale
        return E_train, E_test

    def _model(self, row, col, seeds, inner):
        C = col["C"]
        tol = 1e-4 if self.tol is None else self.tol
        max_iter = 5000 if self.max_iter is None else self.max_iter
        if self.model == "logistic":
            return LogisticRegression(C=C, max_iter=max_iter, tol=tol)
        if self.model == "svm":
            return LinearSVC(C=C, max_iter=max_iter, tol=tol, random_state=seeds.model)
        # By default a tight tolerance (cheap on bag-sized problems) and no iteration limit keep
        # the solution from moving with the last bits of the encodings (the backends, the order
        # of the instances).
        return SVC(kernel="precomputed", C=C, decision_function_shape="ovr",
                   tol=1e-8 if self.tol is None else self.tol, max_iter=-1 if self.max_iter is None else self.max_iter)

    def _keep(self, rep, fold, row, col, model, selection):
        self.encoder_ = rep.encoders[row["_e"]]
        self.model_ = model
        self.n_iter_ = int(np.max(model.n_iter_))
        self.encoding_mean_, self.encoding_scale_ = fold.get("mean"), fold.get("scale")
        self.gamma_, self.p_ = row.get("gamma"), row.get("p")
        self.encoding_unit_ = row.get("_unit", rep.units[row["_e"]])
        rbf = self.model == "rbf"
        self.support_encodings_ = rep.encodings[row["_e"]][model.support_] if rbf else None

    # -- prediction ----------------------------------------------------------------
    def _decision(self, bags):
        E = np.asarray(self.encoder_.transform(bags), dtype=np.float64)
        if self.model == "rbf":
            K = np.zeros((E.shape[0], self.model_.shape_fit_[1]))
            D = row_distances(E, self.support_encodings_)
            unit = self.encoding_unit_
            K[:, self.model_.support_] = np.exp(-self.gamma_ * ((D if unit == 1.0 else D / unit) ** self.p_
                                                               if self.p_ != 1.0 or unit != 1.0 else D))
            return self.model_.decision_function(K)
        if self.encoding_unit_ != 1.0:
            E = E / self.encoding_unit_
        if self.encoding_mean_ is not None:
            E = (E - self.encoding_mean_) / self.encoding_scale_
        return self.model_.decision_function(E)


class _CodebookClassifier(_EncoderClassifier):
    """miFV and miVLAD (not public): ``_codebook`` is (the size parameter, what it counts, the
    encoder class, the other codebook classifier's See Also line)."""

    def _encoders(self):
        size, _, encoder, _ = self._codebook
        return [encoder(k, power=self.power, normalize=self.normalize, max_samples=self.max_samples, scale=self.scale,
                        n_jobs=self.n_jobs)
                for k in _sizes(getattr(self, size), size)]


_COMMON = {
    "C": [Interval(Real, 0, None, closed="neither"), None],
    "Cs": ["array-like"],
    "model": [StrOptions({"logistic", "svm", "rbf"})],
    "encoding_scale": [StrOptions({"standard"}), None],
    "tol": [Interval(Real, 0, None, closed="neither"), None],
    "max_iter": [Interval(Integral, 1, None, closed="left"), None],
    "max_samples": [Interval(Integral, 1, None, closed="left"), None],
    "scale": [StrOptions({"standard", "minmax", "maxabs"}), None],
    "n_jobs": [Integral, None],
    **CONSTRAINTS,
}

_SIZES = [Interval(Integral, 1, None, closed="left"), "array-like"]
_CODEBOOK_CONSTRAINTS = {"power": [Interval(Real, 0, 1, closed="right")], "normalize": [StrOptions({"l2", "intra"}), None]}


def _shared_doc(cls):
    """C, Cs, model (unless the class documents its own), the inner CV's parameters."""
    text = """    C : float, default=None
        Inverse regularisation strength of the model; None chooses it from
        `Cs` by the inner CV.
    Cs : array-like, default=(0.01, 0.1, 1, 10, 100, 1000)
        Candidate values of C when ``C=None`` (the smallest is preferred at
        equal inner scores).
"""
    if "rbf" not in cls._models:
        text += """    model : {"logistic", "svm"}, default="logistic"
        The linear model on the encodings: scikit-learn's
        ``LogisticRegression`` (L2, lbfgs) or ``LinearSVC``. Logistic
        regression is the default: on these unit-norm encodings
        ``LinearSVC`` needs tens of thousands of iterations at C >= 100.
"""
    return text


def _solver_doc(cls):
    scale = repr(defaults_of(cls)["scale"]).replace("'", '"')
    return f"""    tol : float or None, default=None
        Stopping tolerance of the model; None: 1e-4 for the linear models,
        1e-8 for the RBF SVM (which then does not move with the last bits
        of the encodings).
    max_iter : int or None, default=None
        Iteration limit of the model; None: 5000 for the linear models, no
        limit for the RBF SVM.
    max_samples : int or None, default=100_000
        The encoder is fitted on this many training instances drawn at
        random (seeded), all of them when there are fewer.
    scale : {{"standard", "minmax", "maxabs"}} or None, default={scale}
        Scaling of the instance features, fitted by the encoder on its sample.
    class_weight : "balanced", dict or None, default=None
        Multiplies `sample_weight`.
    positive_class : label, default=None
        Deprecated: the model treats both classes alike, so it has no
        effect; setting it warns (FutureWarning), and it will be removed.
    n_jobs : int, default=None
        Threads of the encoding (chunks of bags).
    random_state : int, RandomState or None, default=None
        Seeds the inner folds' shuffle and, through independent seeds drawn
        from it, the encoder (its sample, k-means / mixture initialisation,
        random features or directions) and the model.
"""


_SHARED_ATTRS = """    classes_ : ndarray
        The class labels.
    encoder_ : estimator
        The fitted encoder chosen.
    model_ : LogisticRegression, LinearSVC or SVC
        The model fitted on all the training bags' encodings.
    best_params_ : dict
        ``{"encoder": the encoder's parameters, "C": C}`` chosen (and
        ``"p"`` and ``"gamma"`` for the RBF kernel).
    cv_results_ : ndarray of shape (n_settings, n_Cs) or None
        The inner CV's `scoring` of each grid point (None without inner
        folds).
    encoding_mean_, encoding_scale_ : ndarray of shape (n_encoding,) or None
        The encodings' column standardisation (``encoding_scale="standard"``).
    proba_scale_ : float
        The scale ``a`` of ``predict_proba`` (:ref:`inner-cv`).
    n_iter_ : int
        Iterations of the final model's solver (the largest over classes).
    n_features_in_ : int
        Number of features of the instances.
"""

_INSTANCES_DOC = """    Instance outputs (``instance_scores``, ``instance_proba``,
    ``predict_instances``) are those of a bag holding the instance alone
    (:class:`mil.base.InstanceOutputMixin`): the encoding of a one-instance
    bag is that instance's own code. The bag's decision value is not a sum
    of per-instance terms (the power and L2 normalisations are not linear),
    so no exact split of a bag's score over its instances exists.
"""


def _examples_doc(cls):
    return f"""    [rng examples]
    >>> bags = [rng.normal(size=(6, 2)) for _ in range(30)]
    >>> y = np.arange(30) % 2
    >>> for b, label in zip(bags, y):
    ...     b += 2 * label  # the positive bags' instances are shifted
    >>> clf = {cls.__name__}({getattr(cls, "_example_arguments", "random_state=0")}).fit(bags, y)
    >>> clf.predict(bags[:4])
    array([0, 1, 0, 1])
"""


def _codebook_doc(cls):
    return f"""    power : float, default={defaults_of(cls)["power"]!r}
        Signed power normalisation of the encoding (1 switches it off).
    normalize : {{"l2", "intra"}} or None, default="l2"
        Normalisation of the encoding: L2 over the whole code, per block
        ("intra"), or None.
    encoding_scale : {{"standard"}} or None, default={defaults_of(cls)["encoding_scale"]!r}
        Standardise each column of the encodings on the training bags
        (of each inner fold) before the model.
""".replace("'", '"')


_ENCODER_SECTIONS = dict(encoder_parameters=_shared_doc, solver_parameters=_solver_doc,
                         encoder_attributes=_SHARED_ATTRS, instance_outputs=_INSTANCES_DOC,
                         codebook_parameters=_codebook_doc, examples=_examples_doc,
                         codebook_model_parameters="    [codebook parameters]\n    [classifier parameters]\n",
                         classifier_parameters="""\
    [encoder parameters]
    [inner-cv parameters]
    [solver parameters]

    Attributes
    ----------
    [encoder attributes]
""")


@fill_doc(**_ENCODER_SECTIONS)
class miFVClassifier(_CodebookClassifier):
    """Fisher vectors of a Gaussian mixture and a linear model: miFV (Wei, Wu and Zhou, 2017).

    A diagonal Gaussian mixture of ``n_components`` is fitted on the
    training instances (:class:`FisherVectorEmbedding`); each bag becomes
    its Fisher vector (the gradients of its instances' log-likelihood with
    respect to the mixture's means and variances, 2 K d values, with power
    and L2 normalisation), the encodings' columns are standardised on the
    training bags, and a logistic regression classifies them. C (and the
    mixture size when `n_components` is a list) are chosen inside ``fit``
    by a stratified inner cross-validation over the training bags.

    [codebook model]
    """

    _codebook = ("n_components", "Mixture components", FisherVectorEmbedding,
                 "miVLADClassifier : VLAD codes of a k-means codebook instead.")
    _parameter_constraints = {**_COMMON, **_CODEBOOK_CONSTRAINTS, "n_components": _SIZES}

    def __init__(self, n_components=2, *, power=0.5, normalize="l2", encoding_scale="standard", C=None,
                 Cs=DEFAULT_CS, model="logistic", cv=None, cv_repeats=1, scoring="accuracy", tol=None, max_iter=None,
                 max_samples=100_000, scale="standard", class_weight=None, positive_class=None, n_jobs=None,
                 random_state=None):
        keep_params(self, locals())


@fill_doc(**_ENCODER_SECTIONS)
class miVLADClassifier(_CodebookClassifier):
    """VLAD encodings on a k-means codebook and a linear model: miVLAD (Wei, Wu and Zhou, 2017).

    A k-means codebook of ``n_clusters`` centres is learned on the training
    instances (:class:`VLADEmbedding`); each bag becomes the sums of its
    instances' residuals to their nearest centre, L2-normalised (the signed
    power normalisation of Wei, Wu and Zhou is ``power=0.5``), and a
    logistic regression classifies them. C (and the
    codebook size when `n_clusters` is a list) are chosen inside ``fit``
    by a stratified inner cross-validation over the training bags.

    [codebook model]
    """

    # Two centres' residual sums, L2-normalised, point anywhere within their block, so a bag whose
    # instances are all shifted is told by which block is filled, not by a linear direction; one
    # centre keeps the shift's direction.
    _codebook = ("n_clusters", "Codebook size", VLADEmbedding,
                 "miFVClassifier : Fisher vectors of a Gaussian mixture instead.")
    _example_arguments = "n_clusters=1, random_state=0"
    _parameter_constraints = {**_COMMON, **_CODEBOOK_CONSTRAINTS, "n_clusters": _SIZES}

    def __init__(self, n_clusters=2, *, power=1.0, normalize="l2", encoding_scale=None, C=None, Cs=DEFAULT_CS,
                 model="logistic", cv=None, cv_repeats=1, scoring="accuracy", tol=None, max_iter=None,
                 max_samples=100_000, scale=None, class_weight=None, positive_class=None, n_jobs=None,
                 random_state=None):
        keep_params(self, locals())


@fill_doc(**_ENCODER_SECTIONS)
class KernelMeanClassifier(_EncoderClassifier):
    """The normalised set kernel (NSK) made linear: kernel mean embeddings and a linear model.

    Each instance is mapped to a finite feature vector whose inner products
    approximate the Gaussian kernel ``exp(-gamma ||x - z||^2)``: a Nystroem
    map on ``n_components`` landmarks drawn from the training instances
    (Williams and Seeger, 2001; the default) or random Fourier features
    (Rahimi and Recht, 2007). Each bag becomes the sum of its instances'
    vectors scaled to unit norm (:class:`KernelMeanEmbedding`), so the inner
    product of two bags' encodings approximates the normalised set kernel of
    Gaertner et al. (2002) with that instance kernel; a logistic regression
    on the encodings then stands in for the NSK SVM at a cost linear in the
    instances. The instance kernel's width (``gamma_scales`` times the
    encoder's median heuristic) and C are chosen inside ``fit`` by a
    stratified inner cross-validation over the training bags; each width
    has its own map, fitted once.

    [instance outputs]

    Parameters
    ----------
    n_components : int, default=1000
        Landmarks (``method="rff"``: random features) per width; the
        Nystroem map has at most as many as the sampled training instances.
    gamma_scales : array-like, default=(0.25, 0.5, 1.0, 2.0, 4.0)
        Candidate multiples of the encoder's median heuristic
        (:class:`KernelMeanEmbedding`, ``gamma_scale="median"``), the first
        preferred at equal inner scores.
    method : {"nystroem", "rff"}, default="nystroem"
        The instance feature map: Nystroem landmarks or random Fourier
        features.
    [classifier parameters]

    See Also
    --------
    KernelMeanEmbedding : The encoding alone, for any model.
    mil.svm.BagKernelSVC : The exact NSK SVM, quadratic in the instances.

    References
    ----------
    T. Gaertner, P. A. Flach, A. Kowalczyk and A. J. Smola, "Multi-instance
    kernels", ICML 2002.
    C. K. I. Williams and M. Seeger, "Using the Nystroem method to speed up
    kernel machines", NeurIPS 2001.
    A. Rahimi and B. Recht, "Random features for large-scale kernel
    machines", NeurIPS 2007.

    [examples]
    """

    _example_arguments = "n_components=200, random_state=0"
    _parameter_constraints = {**_COMMON, "n_components": [Interval(Integral, 1, None, closed="left")],
                              "gamma_scales": ["array-like"], "method": [StrOptions({"rff", "nystroem"})]}

    def __init__(self, n_components=1000, *, gamma_scales=(0.25, 0.5, 1.0, 2.0, 4.0), method="nystroem", C=None,
                 Cs=DEFAULT_CS, model="logistic", cv=None, cv_repeats=1, scoring="accuracy", tol=None, max_iter=None,
                 max_samples=100_000, scale="standard", class_weight=None, positive_class=None, n_jobs=None,
                 random_state=None):
        keep_params(self, locals())

    encoding_scale = None

    def _encoders(self):
        return [KernelMeanEmbedding(self.n_components, method=self.method, gamma=float(g), gamma_scale="median",
                                    max_samples=self.max_samples, scale=self.scale, n_jobs=self.n_jobs)
                for g in positive_grid(self.gamma_scales, "gamma_scales")]


@fill_doc(**_ENCODER_SECTIONS)
class SlicedWassersteinClassifier(_EncoderClassifier):
    """Sliced-Wasserstein embeddings and an SVM: a linear-time stand-in for the EMD kernel.

    Each bag becomes the quantiles of its instances' projections on
    ``n_directions`` random directions (:class:`SlicedWassersteinEmbedding`,
    after Naderializadeh et al., 2021), so that the Euclidean distance
    between two encodings approximates the sliced 2-Wasserstein distance
    between the bags. By default an SVM with the kernel
    ``exp(-gamma ||u - v||)`` on the encodings of the raw features (the
    sliced-Wasserstein counterpart of the EMD kernel ``exp(-gamma EMD)``;
    scikit-learn's ``SVC`` on a precomputed kernel, quadratic in the bags
    but linear in the instances) classifies them; ``p=2`` makes it the
    Gaussian kernel, and ``model="logistic"`` or ``"svm"`` puts a linear
    model there instead. C and gamma (``gamma_scales`` times the inverse
    median of ``||u - v||^p`` over the pairs of training bags, computed
    once per fit from one distance matrix) are chosen inside ``fit`` by a
    stratified inner cross-validation over the training bags.

    [instance outputs]

    Parameters
    ----------
    [sliced model parameters]
    model : {"rbf", "logistic", "svm"}, default="rbf"
        The model on the encodings (see above).
    p : float > 0 or array-like of float, default=1.0
        Power of the encodings' Euclidean distance ``d`` in the kernel
        ``exp(-gamma d^p)`` (``model="rbf"``): 2 is the Gaussian kernel, 1
        the kernel ``exp(-gamma d)`` of the EMD kernel's form. A list is
        tuned with gamma by the inner CV (the first preferred at equal
        inner scores).
    gamma_scales : array-like, default=(0.25, 1.0, 4.0)
        Candidate multiples of the inverse median of ``d^p`` over the pairs
        of training bags (``model="rbf"``), the first preferred at equal
        inner scores.
    encoding_scale : {"standard"} or None, default=None
        Linear models only: standardise each column of the encodings on
        the training bags before the model.
    [classifier parameters]
    gamma_ : float or None
        The RBF kernel's gamma on the encodings (None for a linear model).
    p_ : float or None
        The RBF kernel's power of the distance (None for a linear model).
    support_encodings_ : ndarray of shape (n_support, n_encoding) or None
        The RBF SVM's support bags' encodings (None for a linear model).

    See Also
    --------
    SlicedWassersteinEmbedding : The encoding alone, for any model.
    mil.svm.BagKernelSVC : The exact EMD kernel SVM (``kernel="emd"``).

    References
    ----------
    N. Naderializadeh, J. F. Comer, R. W. Andrews, H. Hoffmann and
    S. Kolouri, "Pooling by sliced-Wasserstein embedding", NeurIPS 2021.

    [examples]
    """

    _models = ("rbf", "logistic", "svm")
    _normalised_encodings = False
    _parameter_constraints = {**_COMMON, "n_directions": [Interval(Integral, 1, None, closed="left")],
                              "n_quantiles": [Interval(Integral, 1, None, closed="left")],
                              "p": [Interval(Real, 0, None, closed="neither"), "array-like"],
                              "gamma_scales": ["array-like"]}

    def __init__(self, n_directions=64, n_quantiles=16, *, model="rbf", p=1.0, gamma_scales=(0.25, 1.0, 4.0),
                 encoding_scale=None, C=None, Cs=DEFAULT_CS, cv=None, cv_repeats=1, scoring="accuracy", tol=None,
                 max_iter=None, max_samples=100_000, scale=None, class_weight=None, positive_class=None,
                 n_jobs=None, random_state=None):
        keep_params(self, locals())

    def _encoders(self):
        return [SlicedWassersteinEmbedding(self.n_directions, self.n_quantiles, max_samples=self.max_samples,
                                           scale=self.scale, n_jobs=self.n_jobs)]
