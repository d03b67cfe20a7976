"""The learner registry: command-line names, the estimators they make and their defaults.

A table the library does not depend on: the command line, the reproductions
and the benchmark scripts make their learners here; the estimators and
:func:`mil.ensemble.make_recommended_classifier` know nothing of it.

Names are matched ignoring case, with ``_`` read as ``-``
(:func:`resolve_learner`); an unknown name gets the closest registered
names as suggestions.
"""

import difflib
import importlib.util
import inspect
import warnings
from typing import NamedTuple

from sklearn.calibration import CalibratedClassifierCV
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor, RandomForestClassifier

from mil.embedding import (KernelMeanClassifier, MILESClassifier, MInDClassifier, SlicedWassersteinClassifier,
                           miFVClassifier, miVLADClassifier)
from mil.ensemble import (BagRandomTreesClassifier, BagRandomTreesRegressor, GDBTMIClassifier, GDBTMIRegressor,
                          MIRandomForestClassifier, make_recommended_classifier)
from mil.neighbors import BagKNNClassifier, BagKNNRegressor, CitationKNNClassifier, CitationKNNRegressor
from mil.rules import RipperMIClassifier
from mil.svm import BagKernelSVC, MISVMClassifier, miSVMClassifier
from mil.tree import C45MIClassifier, ID3MIClassifier
from mil.wrappers import (MIWrapperClassifier, MIWrapperRegressor, PrimaryInstanceRegressor, SimpleMIClassifier,
                          SimpleMIRegressor, SingleInstanceClassifier)

__all__ = ["LEARNERS", "SEED_PARAMS", "DEFAULT_JOB", "DEFAULT_REGRESSION_JOB", "DEFAULT_DIFFERENCES", "DEPRECATED_NAMES", "Learner", "available_learners",
           "make_learner", "missing_requirement", "resolve_learner"]


class Learner(NamedTuple):
    """One registry row.

    ``estimator`` is a class or a factory function called with the
    parameters; ``params`` a dict, or a function returning one (fresh inner
    estimators for every learner made); ``requires`` the optional module
    the learner needs (None: none); ``task`` ``"classification"`` or
    ``"regression"``.
    """

    estimator: object
    params: object
    requires: object
    description: str
    task: str = "classification"


def _calibrated_c45():
    # SimpleMI's single tree: C4.5-MI on one-instance bags (J48's -M 2 and pruning, Laplace
    # leaves), its probabilities Platt-scaled on an internal 5-fold CV of the training bags.
    tree = SingleInstanceClassifier(C45MIClassifier(smoothing=1.0, min_bags_leaf=2, pruning=True))
    return CalibratedClassifierCV(tree, method="sigmoid", cv=5, ensemble=False)


def _row(estimator, params, description, requires=None, task="classification"):
    return Learner(estimator, params, requires, description, task)


#: name -> :class:`Learner`. The rows are measured on the results pages (docs/results/).
LEARNERS = {
    "citation-knn": _row(CitationKNNClassifier, {"references": 3, "citers": 5, "metric": "minimal"},
                         "Citation-KNN, minimal Hausdorff distance (R=3, C=5)"),
    "citation-knn-integrated": _row(CitationKNNClassifier, {"references": 3, "citers": 5, "metric": "integrated"},
                                    "Citation-KNN, integrated Hausdorff distance (alpha by NCA)"),
    "bag-knn": _row(BagKNNClassifier, {"n_neighbors": 3, "metric": "minimal"},
                    "bag k-nearest neighbours, minimal Hausdorff distance (k=3)"),
    "id3-mi": _row(ID3MIClassifier, {}, "ID3-MI decision tree"),
    "c45-mi": _row(C45MIClassifier, {}, "C4.5-MI decision tree (gain ratio; pruning off by default)"),
    # 100 rounds keep `mil` quick (docs/results/boosting_wrappers.rst); `mil reproduce trees`
    # runs the class's 200.
    "gdbt-mi": _row(GDBTMIClassifier, {"n_estimators": 100}, "GDBT-MI: gradient boosting of C4.5-MI trees (100 rounds)"),
    # The bag-ratio rule of BLRT in GDBT-MI's rounds (docs/results/trees.rst).
    "gdbt-bag-ratio": _row(GDBTMIClassifier, {"split": "bag-ratio"},
                           "GDBT-MI with bag-ratio trees (BLRT's rules, 200 rounds)"),
    "ripper-mi": _row(RipperMIClassifier, {}, "RIPPER-MI rule learner"),
    # Weka's two baselines with C4.5 inside (docs/results/boosting_wrappers.rst).
    "simplemi-tree": _row(SimpleMIClassifier, lambda: {"estimator": _calibrated_c45()},
                          "SimpleMI: C4.5 on per-bag feature means, Platt-scaled (Weka)"),
    "miwrapper-tree": _row(MIWrapperClassifier, {}, "MIWrapper: C4.5 on weighted instances, geometric mean (Weka)"),
    "mi-forest": _row(MIRandomForestClassifier, {}, "MI random forest: 100 C4.5-MI trees on bootstrap bag samples"),
    # Komarek and Somol (ECML PKDD 2018) at the paper's defaults.
    "blrt": _row(BagRandomTreesClassifier, {}, "BLRT: 100 randomized trees on shares of a bag's instances"),
    # The two trivial baselines every multi-instance learner must beat.
    # On bags of more than 256 features the instances' 64 principal axes, and on bags of more
    # than 100 instances on average a cut learned out of fold; neither on the shipped sets
    # (docs/results/foundation.rst).
    "miwrapper-hgb": _row(MIWrapperClassifier,
                          lambda: {"estimator": HistGradientBoostingClassifier(), "projection": "auto",
                                   "calibration": "auto"},
                          "MIWrapper + HistGradientBoosting: the instance-level baseline"),
    "simplemi-rf": _row(SimpleMIClassifier, lambda: {"estimator": RandomForestClassifier(n_estimators=100)},
                        "SimpleMI + random forest (100 trees): the bag-level baseline"),
    # Bag kernels and multi-instance SVMs, tuned by an inner CV inside fit (docs/results/svm.rst).
    "nsk-svm": _row(BagKernelSVC, {"kernel": "nsk"}, "SVM on the normalised set kernel (NSK), tuned by inner CV"),
    "migraph-svm": _row(BagKernelSVC, {"kernel": "migraph"}, "miGraph: SVM on a degree-weighted set kernel, inner CV"),
    # The EMD on unscaled features (its pair cache then serves every fold), the power p of
    # exp(-gamma EMD^p) tuned, the inner CV repeated 3 times.
    "emd-svm": _row(BagKernelSVC, {"kernel": "emd", "scale": None, "p": (1.0, 2.0), "cv_repeats": 3},
                    "SVM on the earth mover's distance (POT), inner CV", requires="ot"),
    "mi-svm": _row(miSVMClassifier, {}, "mi-SVM (Andrews et al. 2002): instance labels, RBF, inner CV"),
    "mi-svm-bag": _row(MISVMClassifier, {}, "MI-SVM (Andrews et al. 2002): one witness per bag, RBF, inner CV"),
    # Bag embeddings on one instance-to-bag distance pass (docs/results/embeddings.rst).
    "miles": _row(MILESClassifier, {}, "MILES: instance-similarity embedding + 1-norm SVM, inner CV"),
    "mind": _row(MInDClassifier, {}, "MInD: bag dissimilarities + RBF SVM, inner CV"),
    # Bag encoders, linear in the instances (docs/results/encoders.rst).
    "mi-fv": _row(miFVClassifier, {}, "miFV: Fisher vectors (2 components) + logistic regression, inner CV"),
    "mi-vlad": _row(miVLADClassifier, {}, "miVLAD: VLAD (2 k-means centres) + logistic regression, inner CV"),
    "nystroem-nsk": _row(KernelMeanClassifier, {},
                         "NSK by Nystroem kernel mean embeddings + logistic regression, inner CV"),
    "rff-nsk": _row(KernelMeanClassifier, {"method": "rff"},
                    "NSK by random Fourier features + logistic regression, inner CV"),
    "swe-svm": _row(SlicedWassersteinClassifier, {},
                    "sliced-Wasserstein embedding + exp(-gamma d) SVM (EMD-like), inner CV"),
    # The soft vote of mind, emd-svm and blrt (docs/results/ensembles.rst); it costs the sum
    # of its members, so it is not in the default job.
    "recommended": _row(make_recommended_classifier, {}, "soft vote of mind, emd-svm and blrt (POT)",
                        requires="ot"),
    # Regressors (real-valued bag labels): the propositional baselines first.
    "simplemi-reg": _row(SimpleMIRegressor, {}, "SimpleMI: ridge on per-bag mean, std, skewness, kurtosis (regression)",
                         task="regression"),
    "simplemi-hgb-reg": _row(SimpleMIRegressor, lambda: {"estimator": HistGradientBoostingRegressor()},
                             "SimpleMI + HistGradientBoosting on bag statistics (regression)", task="regression"),
    "miwrapper-reg": _row(MIWrapperRegressor, {}, "MIWrapper: ridge on instances, mean per bag (regression)",
                          task="regression"),
    "miwrapper-hgb-reg": _row(MIWrapperRegressor, lambda: {"estimator": HistGradientBoostingRegressor()},
                              "MIWrapper + HistGradientBoosting on instances (regression)",
                              task="regression"),
    "primary-instance-reg": _row(PrimaryInstanceRegressor, {},
                                 "primary-instance regression: one instance per bag carries the label",
                                 task="regression"),
    "citation-knn-reg": _row(CitationKNNRegressor, {},
                             "Citation-KNN: mean target of references and citers (R=2, C=4)", task="regression"),
    "bag-knn-reg": _row(BagKNNRegressor, {}, "bag k-NN: mean target of the 3 nearest bags (minimal Hausdorff)",
                        task="regression"),
    "gdbt-mi-reg": _row(GDBTMIRegressor, {}, "GDBT-MI: boosted MI trees, squared error (regression)",
                        task="regression"),
    "blrt-reg": _row(BagRandomTreesRegressor, {}, "BLRT: 100 bag-ratio trees, variance reduction (regression)",
                     task="regression"),
}

#: Former names that keep working, with a deprecation note: former -> registered name.
#: ``MI-svm`` differed from ``mi-svm`` only in case.
DEPRECATED_NAMES = {"MI-svm": "mi-svm-bag"}
#: The quick default job of ``mil`` and ``mil evaluate`` (``--model all`` runs every learner):
#: the strongest learners by their five-set means (5 published repetitions x 10 folds of Musk1,
#: Musk2, Elephant, Fox and Tiger; accuracy / AUC %, the README's rows, randomised learners over
#: seeds 0-2) among those whose 10-fold CV takes seconds both on 200 bags of 5-40 instances x 10
#: features and on Musk1 (mil._costs.FOLD_SECONDS). In the order they run:
#: - mind: the best five-set mean accuracy, 83.3 / 89.6 (bag dissimilarities + SVM);
#: - blrt: 81.7 / 89.5, the best tree ensemble; reads missing values;
#: - gdbt-bag-ratio: 81.5 / 89.0, boosting; the best on Fox after RIPPER-MI;
#: - miles: 81.4 / 88.5, and it scores instances (which instances made a bag positive);
#: - miwrapper-hgb: 81.6 / 88.8, the instance-level baseline: a learner that does not beat it on
#:   the user's data gains nothing from its multi-instance model there.
#: Left out: emd-svm (82.0 / 89.7, the best single AUC) at about 6 times MInD's CPU time per fold on
#: the 200-bag file (4 times on Musk1), and it needs POT; the others below 80 accuracy (mi-svm-bag
#: 79.7 / 87.3, mi-svm 76.8 / 86.2);
#: recommended (the soft vote of mind, emd-svm and blrt): it needs POT and costs its members' sum.
DEFAULT_JOB = ("mind", "blrt", "gdbt-bag-ratio", "miles", "miwrapper-hgb")

#: The default job on real-valued labels (``mil evaluate`` on a regression): the registered
#: regressors that are fast and strong, in the order they run.
DEFAULT_REGRESSION_JOB = ("simplemi-reg", "simplemi-hgb-reg", "miwrapper-hgb-reg")


#: The randomised learners (their fit draws random numbers: bootstrap samples, random rules,
#: inner-CV splits): name -> the parameter that seeds them. The registry keeps the class's
#: default there (None: a fresh draw at every fit, as in Python); ``make_learner(name, seed=s)``,
#: the command line (``--seed``, default 0) and the reproductions (seeds 0 .. S-1) set it.
SEED_PARAMS = {
    "gdbt-mi": "random_state",
    "gdbt-bag-ratio": "random_state",
    "ripper-mi": "random_state",
    "mi-forest": "random_state",
    "blrt": "random_state",
    "simplemi-rf": "estimator__random_state",
    # HistGradientBoosting's early-stopping split (above 10,000 instances) and, on large bags,
    # the principal axes and the out-of-fold cut; none of them on the shipped sets.
    "miwrapper-hgb": "random_state",
    # The inner-CV learners: the seed draws their inner folds (and k-means / prototypes /
    # Nystroem where they have them).
    "nsk-svm": "random_state",
    "migraph-svm": "random_state",
    "emd-svm": "random_state",
    "mi-svm": "random_state",
    "mi-svm-bag": "random_state",
    "miles": "random_state",
    "mind": "random_state",
    "mi-fv": "random_state",
    "mi-vlad": "random_state",
    "nystroem-nsk": "random_state",
    "rff-nsk": "random_state",
    "swe-svm": "random_state",
    # A factory's seed is its own argument (make_recommended_classifier passes it on to
    # every member's random_state).
    "recommended": "random_state",
    "primary-instance-reg": "random_state",
    "gdbt-mi-reg": "random_state",
    "blrt-reg": "random_state",
}

#: Registered learners whose parameters differ from their class's defaults beyond the kernel
#: and the seed, and why (a test holds the registry to this list; the README says the same).
DEFAULT_DIFFERENCES = {
    # Citation-KNN: the class keeps Wang and Zucker's (2000) R=2, C=4; the registry's fixed
    # R=3, C=5 is a point of the grid (references in {1, 3, 5, 7}, citers = references + 2)
    # that `mil reproduce distances` tunes by inner CV for the README row
    # (docs/results/distances.rst).
    "citation-knn": ("references", "citers"),
    "citation-knn-integrated": ("references", "citers", "metric"),
    # GDBT-MI: 100 rounds keep `mil evaluate` quick (on Musk1 as accurate as 200, 5 x 10);
    # `mil reproduce trees` and the README row use the class's 200.
    "gdbt-mi": ("n_estimators",),
    # The bag-ratio trees of BLRT in GDBT-MI's rounds: a second registry row of one class.
    "gdbt-bag-ratio": ("split",),
    # Weka's baselines around a named scikit-learn classifier (the class default is C4.5-MI).
    "simplemi-tree": ("estimator",),
    # MIWrapper + HistGradientBoosting: on many features its 64 principal axes (the fit's cost grows
    # with the features), on large bags a learned cut; the shipped sets have neither, so the model
    # is Weka's there (docs/results/foundation.rst).
    "miwrapper-hgb": ("estimator", "projection", "calibration"),
    "simplemi-rf": ("estimator",),
    "simplemi-hgb-reg": ("estimator",),
    "miwrapper-hgb-reg": ("estimator",),
    # One class serves six bag kernels; its defaults are the set kernels'. The EMD row is
    # measured on unscaled features (the EMD's pair cache then serves every fold), with the
    # power p of exp(-gamma EMD^p) tuned and the inner CV repeated 3 times (SVM fits only: the
    # EMD dominates the cost).
    "emd-svm": ("scale", "p", "cv_repeats"),
    # The kernel mean classifier's random Fourier features: a second registry row of one class
    # (the class's default map is Nystroem's, ``nystroem-nsk``).
    "rff-nsk": ("method",),
}


#: The installable distribution of each optional module a learner needs.
_DISTRIBUTIONS = {"ot": "pot"}


def missing_requirement(name):
    """The message for a registered learner whose optional module is missing (None: it is there).

    Parameters
    ----------
    name : str
        A registered name.

    Returns
    -------
    message : str or None
    """
    module = LEARNERS[name].requires
    if module is None or importlib.util.find_spec(module) is not None:
        return None
    dist = _DISTRIBUTIONS.get(module, module)
    return (f"learner {name!r} is not available in this installation: it needs the {dist} package "
            f"(pip install {dist}, or reinstall scikit-mil, which depends on it)")


def _class_of(name):
    """The estimator class (or factory) of `name`; None when its optional module is missing."""
    return None if missing_requirement(name) is not None else LEARNERS[name].estimator


def available_learners(task=None):
    """Names of the registered learners that this installation can make.

    Parameters
    ----------
    task : {"classification", "regression"} or None, default=None
        Only the learners of this task (None: all of them).

    Returns
    -------
    names : list of str
    """
    return [name for name, row in LEARNERS.items()
            if _class_of(name) is not None and (task is None or row.task == task)]


def _key(name):
    return str(name).strip().lower().replace("_", "-")


def _suggestions(name):
    """Registered names close to an unknown `name` (by spelling, or by the class it names)."""
    key = _key(name)
    by_class = [n for n, row in LEARNERS.items()
                if key in (_key(row.estimator.__name__), _key(row.estimator.__name__).removesuffix("classifier"))]
    close = difflib.get_close_matches(key, list(LEARNERS), n=3, cutoff=0.6)
    return list(dict.fromkeys(by_class + close))


def resolve_learner(name):
    """The registered name that `name` means, and a note when `name` is a former one.

    Names match ignoring case, with ``_`` read as ``-`` (``Citation_KNN`` is
    ``citation-knn``); a former name (:data:`DEPRECATED_NAMES`, matched as
    written) gives its registered name and a deprecation note.

    Parameters
    ----------
    name : str

    Returns
    -------
    registered : str
    note : str or None
        The deprecation note of a former name.

    Raises
    ------
    ValueError
        For an unknown name, with the closest registered names ("did you mean").
    """
    if name in DEPRECATED_NAMES:
        new = DEPRECATED_NAMES[name]
        return new, f"the learner name {name!r} is deprecated and will be removed: use {new!r}"
    key = _key(name)
    matches = [n for n in LEARNERS if _key(n) == key]
    if matches:
        return matches[0], None
    close = _suggestions(name)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    raise ValueError(f"unknown learner {name!r}; {hint}the learners: {', '.join(LEARNERS)}")


def make_learner(name, seed=None, **params):
    """Instantiate a learner by registry name with its defaults, overridden by `params`.

    Parameters
    ----------
    name : str
        A registered name (matched as :func:`resolve_learner` does; a
        former name warns with a ``FutureWarning``).
    seed : int or None, default=None
        For a randomised learner (:data:`SEED_PARAMS`), the value of its
        seeding parameter (a factory's argument); ignored by the
        deterministic ones. None keeps the class's default. An explicit
        parameter in `params` wins.
    **params
        Parameters of the estimator (arguments of a factory), replacing the
        registry's.

    Returns
    -------
    estimator : a mil or scikit-learn classifier (unfitted)
    """
    name, note = resolve_learner(name)
    if note is not None:
        warnings.warn(note, FutureWarning, stacklevel=2)
    missing = missing_requirement(name)
    if missing is not None:
        raise ValueError(missing)
    row = LEARNERS[name]
    kwargs = {**(row.params() if callable(row.params) else row.params), **params}
    seeded = seed is not None and name in SEED_PARAMS and SEED_PARAMS[name] not in params
    factory = not inspect.isclass(row.estimator)
    if seeded and factory:  # a factory: the seed is one of its arguments
        kwargs[SEED_PARAMS[name]] = seed
    est = row.estimator(**kwargs)
    if seeded and not factory:
        est.set_params(**{SEED_PARAMS[name]: seed})
    return est
