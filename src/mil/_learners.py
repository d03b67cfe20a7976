"""Registry of learners by command-line name, with the defaults the CLI uses."""

import importlib

__all__ = ["LEARNERS", "SEED_PARAMS", "make_learner", "available_learners"]


def _c45(**params):
    from mil.tree import C45MIClassifier

    # Laplace leaves (smoothing=1): the setting the wrapper entries were measured with.
    return C45MIClassifier(**{"smoothing": 1.0, **params})


def _calibrated_c45():
    from sklearn.calibration import CalibratedClassifierCV

    from mil.wrappers import SingleInstanceClassifier

    tree = SingleInstanceClassifier(_c45(min_bags_leaf=2, pruning=True))
    return CalibratedClassifierCV(tree, method="sigmoid", cv=5, ensemble=False)


def _hgb():
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier()


def _rf():
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=100, random_state=0)


#: name -> (module, class, default parameters, one-line description); the
#: parameters are a dict, or a function returning one (fresh inner estimators
#: for every learner made).
LEARNERS = {
    "citation-knn": ("mil.neighbors", "CitationKNNClassifier",
                     {"references": 3, "citers": 5, "metric": "minimal"},
                     "Citation-KNN, minimal Hausdorff distance (R=3, C=5)"),
    "citation-knn-integrated": ("mil.neighbors", "CitationKNNClassifier",
                                {"references": 3, "citers": 5, "metric": "integrated"},
                                "Citation-KNN, integrated Hausdorff distance (alpha by NCA)"),
    "bag-knn": ("mil.neighbors", "BagKNNClassifier", {"n_neighbors": 3, "metric": "minimal"},
                "bag k-nearest neighbours, minimal Hausdorff distance (k=3)"),
    "id3-mi": ("mil.tree", "ID3MIClassifier", {}, "ID3-MI decision tree"),
    "c45-mi": ("mil.tree", "C45MIClassifier", {}, "C4.5-MI decision tree (gain ratio; pruning off by default)"),
    # 100 rounds keep `mil` quick; on Musk1 they measure as well as 200 (5 x 10-fold: 85.8 %
    # vs 85.1 %, docs/results/boosting_wrappers.rst). `mil reproduce trees` uses the default 200.
    "gdbt-mi": ("mil.ensemble", "GDBTMIClassifier", {"random_state": 0, "n_estimators": 100},
                "GDBT-MI: gradient boosting of C4.5-MI trees (100 rounds)"),
    # The bag-ratio rule of BLRT in GDBT-MI's rounds (docs/results/trees.rst: 5 x 10, three seeds,
    # five-set mean 81.6 against 79.2 for the C4.5-MI rounds); a fit takes well under a second.
    "gdbt-bag-ratio": ("mil.ensemble", "GDBTMIClassifier", {"random_state": 0, "split": "bag-ratio"},
                       "GDBT-MI with bag-ratio trees (200 rounds; BLRT's rule in each round)"),
    "ripper-mi": ("mil.rules", "RipperMIClassifier", {"random_state": 0}, "RIPPER-MI rule learner"),
    # Weka's two baselines with C4.5 inside (C4.5-MI on one-instance bags: gain ratio, J48's
    # -M 2 and -C 0.25 pruning for SimpleMI, Laplace leaves). Chosen on 5 x 10-fold CV of the
    # five shipped sets, accuracy and out-of-fold log loss (docs/results/boosting_wrappers.rst):
    # SimpleMI's single tree has log loss above the constant prior's on four sets, so its
    # probabilities are Platt-scaled on an internal 5-fold CV of the training bags (the tree
    # itself is fitted on all of them). MIWrapper is the class's default: C4.5 as J48 -C 0.25 -M 2
    # on Weka's instance weights (-A 3), its 5 x 10 mean 77.4 against 76.1 for the former entry
    # (C4.5 min_bags_leaf=1, Laplace leaves, every bag weighing 1).
    "simplemi-tree": ("mil.wrappers", "SimpleMIClassifier", lambda: {"estimator": _calibrated_c45()},
                      "SimpleMI: C4.5 on per-bag feature means, Platt-scaled (Weka SimpleMI -M 1, J48)"),
    "miwrapper-tree": ("mil.wrappers", "MIWrapperClassifier", {},
                       "MIWrapper: J48-like C4.5 on the weighted instances, geometric mean (Weka -P 2 -A 3)"),
    "mi-forest": ("mil.ensemble", "MIRandomForestClassifier", {"random_state": 0},
                  "MI random forest: 100 C4.5-MI trees on bootstrap bag samples, sqrt features per node, "
                  "each tree's instances pooled at an out-of-bag sharpness"),
    # Komarek and Somol (ECML PKDD 2018) at the paper's defaults: 100 trees, sqrt(d) features,
    # 16 rules per feature, random ratios, no bootstrap.
    "blrt": ("mil.ensemble", "BagRandomTreesClassifier", {"random_state": 0},
             "bag-level randomized trees: 100 extremely randomised trees whose rules read the share of "
             "a bag's instances with x_f <= theta"),
    # The two trivial baselines every multi-instance learner must beat: a gradient-boosted
    # instance classifier on bag labels (mean of the instances' probabilities) and a random
    # forest on per-bag feature means.
    "miwrapper-hgb": ("mil.wrappers", "MIWrapperClassifier", lambda: {"estimator": _hgb()},
                      "MIWrapper around scikit-learn's HistGradientBoostingClassifier"),
    "simplemi-rf": ("mil.wrappers", "SimpleMIClassifier", lambda: {"estimator": _rf()},
                    "SimpleMI around scikit-learn's RandomForestClassifier(n_estimators=100)"),
    # Bag kernels and multi-instance SVMs (mil.svm). (gamma, C) are tuned by an inner
    # 5-fold CV over the training bags inside fit (one kernel pass for all gammas); gamma is a
    # multiple of the median heuristic. The EMD runs on unscaled features (its pair cache then
    # serves every fold) and also tunes the power p of exp(-gamma EMD^p); it needs POT
    # (pip install "scikit-mil[ot]") and is unavailable without it.
    "nsk-svm": ("mil.svm", "BagKernelSVC", {"kernel": "nsk", "random_state": 0},
                "SVM on the normalised set kernel (NSK / MI-Kernel), (gamma, C) by inner CV"),
    "migraph-svm": ("mil.svm", "BagKernelSVC", {"kernel": "migraph", "random_state": 0},
                    "miGraph: SVM on the set kernel with 1/degree instance weights, (gamma, C) by inner CV"),
    # The EMD kernel's inner CV is a stratified 5-fold repeated 3 times (shuffles seeded by
    # random_state): chosen on the 5 published repetitions of the five sets (+0.5 accuracy on
    # average; docs/results/svm.rst). Only SVM fits on the precomputed kernels are repeated.
    "emd-svm": ("mil.svm._requires_pot", "BagKernelSVC",
                {"kernel": "emd", "scale": None, "p": (1.0, 2.0), "cv_repeats": 3, "random_state": 0},
                "SVM on exp(-gamma EMD^p), earth mover's distance by POT, (p, gamma, C) by repeated inner CV"),
    # mi-SVM and MI-SVM at the classes' defaults: the RBF kernel, exact up to 10^4 training
    # instances (all of Musk2's), (gamma, C) tuned by the inner 3-fold CV, the bag threshold
    # fitted on the out-of-fold scores. mi-SVM's inner CV ranks the grid by out-of-fold AUC, over
    # gamma up to 16 x the median; MI-SVM's by accuracy at each point's fitted cut, on features
    # scaled to [0, 1]: each chosen on the 5 published repetitions of the five sets
    # (benchmarks/studies/study_mi_svm_selection.py;
    # docs/results/svm.rst).
    "mi-svm": ("mil.svm", "miSVMClassifier", {"random_state": 0},
               "mi-SVM (Andrews et al. 2002), instance labels inferred, (gamma, C) and cut by inner CV"),
    "MI-svm": ("mil.svm", "MISVMClassifier", {"random_state": 0},
               "MI-SVM (Andrews et al. 2002), one witness per positive bag, (gamma, C) and cut by inner CV"),
    # Bag embeddings on one instance-to-bag distance pass; C and sigma / gamma tuned inside fit
    # by an inner CV over the training bags (MILES 2 folds, MInD 5; docs/results/embeddings.rst).
    "miles": ("mil.embedding", "MILESClassifier", {"random_state": 0},
              "MILES: instance-similarity embedding + 1-norm linear SVM, inner-CV tuned"),
    "mind": ("mil.embedding", "MInDClassifier", {"random_state": 0},
             "MInD: bag dissimilarities (average Hausdorff) + RBF SVM, inner-CV tuned"),
}


#: The randomised learners: name -> the parameter that seeds them (reported over seeds).
SEED_PARAMS = {
    "gdbt-mi": "random_state",
    "gdbt-bag-ratio": "random_state",
    "ripper-mi": "random_state",
    "mi-forest": "random_state",
    "blrt": "random_state",
    "simplemi-rf": "estimator__random_state",
    # The inner-CV learners: the seed draws their inner folds (and k-means / prototypes /
    # Nystroem where they have them).
    "nsk-svm": "random_state",
    "migraph-svm": "random_state",
    "emd-svm": "random_state",
    "mi-svm": "random_state",
    "MI-svm": "random_state",
    "miles": "random_state",
    "mind": "random_state",
}

#: Registered learners whose parameters differ from their class's defaults beyond the kernel
#: and the seed, and why (a test holds the registry to this list).
DEFAULT_DIFFERENCES = {
    # One class serves six bag kernels; its defaults are the set kernels'. The EMD row is
    # measured on unscaled features (the EMD's pair cache then serves every fold), with the
    # power p of exp(-gamma EMD^p) tuned and the inner CV repeated 3 times (SVM fits only: the
    # EMD dominates the cost).
    "emd-svm": ("scale", "p", "cv_repeats"),
}


def _class_of(name):
    module, cls, _, _ = LEARNERS[name]
    try:
        return getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError):
        return None


def available_learners():
    """Names of the registered learners whose estimator class exists in this installation."""
    return [name for name in LEARNERS if _class_of(name) is not None]


def make_learner(name, **params):
    """Instantiate a learner by registry name with its defaults, overridden by `params`."""
    if name not in LEARNERS:
        raise ValueError(f"unknown learner {name!r}; choose from {', '.join(LEARNERS)}")
    cls = _class_of(name)
    if cls is None:
        raise ValueError(f"learner {name!r} is not available in this installation")
    defaults = LEARNERS[name][2]
    return cls(**{**(defaults() if callable(defaults) else defaults), **params})
