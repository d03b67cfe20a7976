"""The multi-instance regression benchmarks: each published table rebuilt from its generator.

Three tables, each a function returning rows (one per learner, aggregated
over seeds) that ``benchmarks/reproduce_regression.py`` prints and the
command line can call:

:func:`law_table`
    Law, Sutherland, Sejdinovic and Flaxman (AISTATS 2018), fixed bag size:
    1,000 training and 1,000 test bags of 1,000 instances x 5 features
    (:func:`mil.datasets.make_chisq_bags`), test MSE. Each seed is a fresh
    draw of both sets (and the learner's seed).
:func:`primary_table`
    Chauhan et al. (UAI 2024): bags of 5 with 10 % overlap
    (:func:`mil.datasets.make_primary_instance_bags`), test MSE of the
    instance predictions on the held-out primary instances, and the
    attribution accuracy (the share of training bags whose chosen primary
    is the true one) for learners that choose one.
:func:`entropy_table`
    Rotated-Gaussian entropy (Poczos et al. 2013, Szabo et al. 2016):
    100 bags of 500, test R^2 (a correctness check, no published table).

Every row records the fit and predict seconds (wall clock and CPU) and the
peak memory that Python's allocator saw (tracemalloc; NumPy arrays
included) per seed.
Learners of other families join the tables as they exist in mil: a row
whose class is not importable is skipped and reported as such.
"""

import importlib
import time
import tracemalloc

import numpy as np

__all__ = ["PUBLISHED_LAW", "PUBLISHED_PRIMARY", "PUBLISHED_PRIMARY_BY_SIZE", "ROWS", "LAW_LEARNERS", "PRIMARY_LEARNERS", "ENTROPY_LEARNERS",
           "make_regressor", "law_table", "primary_table", "entropy_table", "measure"]

#: Law et al. (2018), Table 1: test MSE, mean (sd) over 10 draws.
PUBLISHED_LAW = {"Bayes-optimal": (0.170, 0.009), "RBF network": (0.235, 0.014),
                 "freq-shrinkage": (0.232, 0.012), "shrinkage": (0.237, 0.014), "shrinkageC": (0.236, 0.013),
                 "BLR": (0.228, 0.012), "BDR": (0.227, 0.012)}

#: Chauhan et al. (2024), Tables 1 and 2, bags of 5 at 10 % overlap: test MSE and attribution accuracy.
PUBLISHED_PRIMARY = {"wtd-Assign": (2.61, "47.5-54.8 %"), "PIR": (3.20, "39.0-43.5 %"), "BPMIR": (3.46, "~20 %"),
                     "InsMIR": (7.55, None), "AggMIR": (13.84, None)}

#: The same tables for bags of 2 and of 5 at 10 % overlap, by bag size.
PUBLISHED_PRIMARY_BY_SIZE = {
    2: {"wtd-Assign": (1.38, "76.4-79.7 %"), "PIR": (1.21, "84.3-84.6 %"), "BPMIR": (1.95, "~50 %"),
        "InsMIR": (2.90, None), "AggMIR": (4.49, None)},
    5: PUBLISHED_PRIMARY}


def _ridge_alphas():
    return np.logspace(-3, 4, 15)


def _quadratic_ridge():
    from sklearn.linear_model import RidgeCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import PolynomialFeatures, StandardScaler

    return make_pipeline(PolynomialFeatures(2, include_bias=False), StandardScaler(),
                         RidgeCV(alphas=_ridge_alphas()))


def _hgb(seed):
    from sklearn.ensemble import HistGradientBoostingRegressor

    return HistGradientBoostingRegressor(random_state=seed)


# name -> (module, class, keyword arguments given the seed, randomised?)
_SPECS = {
    "mean pooling + ridge": ("mil.wrappers", "SimpleMIRegressor", lambda s: {"summary": "mean"}, False),
    "SimpleMI": ("mil.wrappers", "SimpleMIRegressor", lambda s: {}, False),
    "SimpleMI (mean, std, min, max)": ("mil.wrappers", "SimpleMIRegressor",
                                       lambda s: {"summary": ("mean", "std", "min", "max")}, False),
    "SimpleMI + HGB": ("mil.wrappers", "SimpleMIRegressor", lambda s: {"estimator": _hgb(s)}, True),
    "MIWrapper": ("mil.wrappers", "MIWrapperRegressor", lambda s: {}, False),
    "MIWrapper + HGB": ("mil.wrappers", "MIWrapperRegressor", lambda s: {"estimator": _hgb(s)}, True),
    "PIR": ("mil.wrappers", "PrimaryInstanceRegressor", lambda s: {"random_state": s}, False),
    "MIWrapper (quadratic ridge)": ("mil.wrappers", "MIWrapperRegressor",
                                    lambda s: {"estimator": _quadratic_ridge()}, False),
    "mean pooling (quadratic ridge)": ("mil.wrappers", "SimpleMIRegressor",
                                       lambda s: {"estimator": _quadratic_ridge(), "summary": "mean"}, False),
    "PIR (quadratic ridge)": ("mil.wrappers", "PrimaryInstanceRegressor",
                              lambda s: {"estimator": _quadratic_ridge(), "random_state": s}, False),
    "PIR soft (quadratic ridge)": ("mil.wrappers", "PrimaryInstanceRegressor",
                                   lambda s: {"estimator": _quadratic_ridge(), "assignment": "soft",
                                              "random_state": s}, False),
    # Other families, at their defaults, once they exist in mil.
    "GDBT-MI": ("mil.ensemble", "GDBTMIRegressor", lambda s: {"random_state": s}, True),
    "MI random forest": ("mil.ensemble", "MIRandomForestRegressor", lambda s: {"random_state": s}, True),
    "bag random trees": ("mil.ensemble", "BagRandomTreesRegressor", lambda s: {"random_state": s}, True),
    "Bag-KNN": ("mil.neighbors", "BagKNNRegressor", lambda s: {}, False),
    "Citation-KNN": ("mil.neighbors", "CitationKNNRegressor", lambda s: {}, False),
    "kernel mean": ("mil.embedding", "KernelMeanRegressor", lambda s: {"random_state": s}, True),
    "MInD": ("mil.embedding", "MInDRegressor", lambda s: {"random_state": s}, True),
    "MILES": ("mil.embedding", "MILESRegressor", lambda s: {"random_state": s}, True),
    "miFV": ("mil.embedding", "miFVRegressor", lambda s: {"random_state": s}, True),
    "miVLAD": ("mil.embedding", "miVLADRegressor", lambda s: {"random_state": s}, True),
    "sliced Wasserstein": ("mil.embedding", "SlicedWassersteinRegressor", lambda s: {"random_state": s}, True),
    "bag kernel SVR": ("mil.svm", "BagKernelSVR", lambda s: {"random_state": s}, True),
    # The NSK on 500 Nystroem landmarks, as many as KernelMeanRegressor's default components.
    "bag kernel SVR (500 landmarks)": ("mil.svm", "BagKernelSVR", lambda s: {"n_landmarks": 500, "random_state": s},
                                       True),
}

ROWS = tuple(_SPECS)
"""Every row name :func:`make_regressor` knows."""

LAW_LEARNERS = ("mean pooling + ridge", "SimpleMI", "SimpleMI (mean, std, min, max)", "SimpleMI + HGB", "MIWrapper",
                "MIWrapper + HGB", "PIR", "GDBT-MI", "MI random forest", "bag random trees", "kernel mean",
                "miFV", "miVLAD", "sliced Wasserstein", "bag kernel SVR (500 landmarks)", "Bag-KNN",
                "Citation-KNN")
"""The rows of :func:`law_table` (MInD and the exact bag-kernel SVR, which compare every pair of
1,000-instance bags instance by instance, are left out: see the results page; the bag-kernel SVR
runs on Nystroem landmarks)."""

PRIMARY_LEARNERS = ("mean pooling (quadratic ridge)", "MIWrapper (quadratic ridge)", "PIR (quadratic ridge)",
                    "PIR soft (quadratic ridge)", "mean pooling + ridge", "MIWrapper", "PIR")
"""The rows of :func:`primary_table`: learners with instance-level predictions, with a quadratic
ridge inside (the generator's function class) and with the default linear ridge."""

ENTROPY_LEARNERS = ("mean pooling + ridge", "SimpleMI", "SimpleMI (mean, std, min, max)", "SimpleMI + HGB",
                    "kernel mean", "sliced Wasserstein", "miFV", "miVLAD", "MInD", "bag kernel SVR", "Bag-KNN",
                    "GDBT-MI")


def make_regressor(name, seed=0):
    """The regressor of row `name` seeded with `seed`, or None when its class is not in mil.

    Returns
    -------
    estimator : regressor or None
    randomised : bool
        Whether its fit draws random numbers (then rows are reported over seeds).
    """
    module, cls, kwargs, randomised = _SPECS[name]
    klass = getattr(importlib.import_module(module), cls, None)
    if klass is None:
        return None, randomised
    return klass(**kwargs(seed)), randomised


def measure(fn):
    """Run `fn()`; return its result, the wall-clock seconds, the peak traced memory in MB and the CPU seconds.

    The CPU seconds are the process's (every thread's): with one BLAS thread
    they are the cost on one core, which other jobs on the machine do not
    inflate as they do the wall-clock time.
    """
    tracemalloc.start()
    start, cpu = time.perf_counter(), time.process_time()
    try:
        out = fn()
    finally:
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return out, seconds, peak, cpu


def _row(name, runs, **extra):
    """Aggregate per-seed runs (dicts of numbers) into one row: mean and sd of each, seeds listed."""
    row = {"learner": name, "seeds": [r["seed"] for r in runs], **extra}
    for key in runs[0]:
        if key == "seed":
            continue
        values = np.array([r[key] for r in runs], dtype=np.float64)
        row[key] = float(values.mean())
        row[key + "_sd"] = float(values.std(ddof=1)) if len(values) > 1 else 0.0
    return row


def _table(learners, seeds, run_one, progress=None):
    rows, skipped = [], []
    for name in learners:
        runs = []
        for seed in seeds:
            est, randomised = make_regressor(name, seed)
            if est is None:
                break
            runs.append({"seed": seed, **run_one(est, seed)})
            if progress is not None:
                progress(name, runs[-1])
        if runs:
            rows.append(_row(name, runs))
        else:
            skipped.append(name)
    return rows, skipped


def law_table(learners=LAW_LEARNERS, seeds=(0, 1, 2), *, n_train=1000, n_test=1000, bag_size=1000,
              progress=None):
    """Law et al. (2018)'s fixed-size chi-square bags: test MSE, fit / predict seconds, peak MB.

    Seed s draws the training set with ``random_state=2 s`` and the test set
    with ``2 s + 1`` (independent draws) and seeds the learner.

    Returns
    -------
    rows : list of dict
        ``learner``, ``mse``, ``fit_s``, ``predict_s``, ``peak_mb`` (means;
        ``*_sd`` the standard deviations over the seeds) and ``seeds``.
    skipped : list of str
        Rows whose class is not in this version of mil.
    """
    from mil.datasets import make_chisq_bags

    data = {}

    def run_one(est, seed):
        if seed not in data:
            data.clear()
            data[seed] = (make_chisq_bags(n_train, bag_size=bag_size, random_state=2 * seed),
                          make_chisq_bags(n_test, bag_size=bag_size, random_state=2 * seed + 1))
        train, test = data[seed]
        _, fit_s, fit_mb, fit_cpu = measure(lambda: est.fit(train.bags, train.target))
        pred, pred_s, pred_mb, pred_cpu = measure(lambda: est.predict(test.bags))
        return {"mse": float(np.mean((pred - test.target) ** 2)), "fit_s": fit_s, "predict_s": pred_s,
                "peak_mb": max(fit_mb, pred_mb), "fit_cpu_s": fit_cpu, "predict_cpu_s": pred_cpu}

    return _table(learners, seeds, run_one, progress)


def primary_table(learners=PRIMARY_LEARNERS, seeds=(0, 1, 2), *, n_bags=10000, bag_size=5, overlap=0.10,
                  progress=None):
    """Chauhan et al. (2024)'s primary-instance bags: instance-level test MSE and attribution accuracy.

    Seed s draws the data with ``random_state=s`` and seeds the learner.
    The test MSE is that of ``predict_instances`` on the held-out primary
    instances (for a learner without it, ``predict`` on each instance as a
    bag of one: a mean-pooling model applied to an instance); attribution is the share of training bags whose ``primary_``
    is the true primary (NaN for learners that choose none).
    """
    from mil.datasets import make_primary_instance_bags, primary_instance_split

    data = {}

    def run_one(est, seed):
        if seed not in data:
            data.clear()
            data[seed] = primary_instance_split(make_primary_instance_bags(n_bags, bag_size=bag_size,
                                                                           overlap=overlap, random_state=seed))
        s = data[seed]
        _, fit_s, fit_mb, fit_cpu = measure(lambda: est.fit(s.bags_train, s.y_train))
        if hasattr(est, "predict_instances"):
            pred, pred_s, pred_mb, pred_cpu = measure(lambda: est.predict_instances([s.X_test]))
        else:  # a bag learner: each held-out primary instance as a bag of one (AggMIR's reading)
            pred, pred_s, pred_mb, pred_cpu = measure(lambda: est.predict([x[None, :] for x in s.X_test]))
        chosen = getattr(est, "primary_", None)
        attribution = float(np.mean(chosen == s.primary_train)) if chosen is not None else float("nan")
        return {"mse": float(np.mean((pred - s.y_test) ** 2)), "attribution": attribution, "fit_s": fit_s,
                "predict_s": pred_s, "peak_mb": max(fit_mb, pred_mb), "fit_cpu_s": fit_cpu,
                "predict_cpu_s": pred_cpu}

    return _table(learners, seeds, run_one, progress)


def entropy_table(learners=ENTROPY_LEARNERS, seeds=(0, 1, 2), *, n_bags=100, bag_size=500, n_train=50,
                  progress=None):
    """Rotated-Gaussian entropy: test R^2 on a random half of 100 bags of 500 (expected above 0.95).

    Seed s draws the bags and the split with ``random_state=s`` and seeds
    the learner.
    """
    from mil.datasets import make_rotated_gaussian_bags

    def run_one(est, seed):
        d = make_rotated_gaussian_bags(n_bags, bag_size=bag_size, random_state=seed)
        order = np.random.RandomState(seed).permutation(n_bags)
        tr, te = order[:n_train], order[n_train:]
        _, fit_s, fit_mb, fit_cpu = measure(lambda: est.fit(d.bags.subset(tr), d.target[tr]))
        r2, pred_s, pred_mb, pred_cpu = measure(lambda: est.score(d.bags.subset(te), d.target[te]))
        return {"r2": float(r2), "fit_s": fit_s, "predict_s": pred_s, "peak_mb": max(fit_mb, pred_mb),
                "fit_cpu_s": fit_cpu, "predict_cpu_s": pred_cpu}

    return _table(learners, seeds, run_one, progress)
