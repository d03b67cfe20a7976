"""What the registered learners cost: measured fold times, cost classes, a job's estimated time.

The command line shows a cost class per learner in its help and, before a
job starts, an estimate of its time as a range. Two measurements:

- the CPU seconds of one bag-level CV fold (fit on 9/10 of the bags,
  predict the rest) of each learner at its registry defaults on three
  reference data sets (``benchmarks/studies/study_default_job.py``): the
  cost classes of ``mil --help``;
- the cost model shipped as ``_cost_model.json``: for the learners measured
  at sizes from about 4,000 instances up (``benchmarks/bench_cost_model.py``), a
  power law ``a * n_instances**p * (n_features / 32)**q`` fitted to their
  fold times on bags of 20 instances on average, times
  ``(instances_per_bag / 20)**r`` with ``r`` measured at 32 and at 768
  features (bags of 200 and 1,000 instances) and interpolated between them,
  with the spread of the measurements around it; and, for the learners whose
  memory grows with the square of the bags (kernel, distance and
  dissimilarity matrices over every pair of training bags), how many such
  float64 matrices a fold holds at its peak (:func:`pair_memory_bytes`).

A learner in the cost model is estimated by it; the others from the three
reference points (see :func:`reference_fold_seconds`). Both are CPU seconds
on a 2-core x86-64 with one BLAS thread; a busy machine takes longer.

On the reference sets (at most 6,598 instances) a fit's fixed costs hide how
a learner grows. The learners that compare every pair of training instances
(:data:`PAIRWISE`) are therefore scaled beyond the largest reference set by
the square of the instances, whatever the reference points say.
"""

import json
import math
import os

import numpy as np

from mil.ensemble._recommended import RECOMMENDED_MEMBERS
from mil.neighbors._base import AUTO_GRAPH_MIN_INSTANCES
from mil.neighbors._search import graph_available
from mil.svm._kernels import EMD_CACHE_SIZE

__all__ = ["REFERENCES", "CLASS_REFERENCES", "FOLD_SECONDS", "COST_CLASSES", "COST_MODEL", "CACHED_PAIRS", "PAIRWISE",
           "PAIR_MEMORY", "REFERENCE_BAG_SIZE", "SCALABLE", "bag_exponent", "cost_class", "estimate_seconds",
           "fold_range", "fold_seconds", "growth", "law_seconds", "memory_warning", "pair_memory_bytes",
           "physical_memory_bytes", "reference_fold_seconds", "scaling_warning"]

#: The reference data sets: name -> (bags, instances, features, description, short name).
REFERENCES = {
    "csv": (200, 4702, 10, "200 bags of 5-40 instances x 10 features", "the 200-bag file"),
    "musk1": (92, 476, 166, "Musk1 (92 bags, 476 instances x 166 features)", "Musk1"),
    "musk2": (102, 6598, 166, "Musk2 (102 bags, 6598 instances x 166 features)", "Musk2"),
}
#: The reference sets of the cost classes in ``mil --help`` (the first two).
CLASS_REFERENCES = ("csv", "musk1")

#: CPU seconds per CV fold (fit + predict) at the registry defaults, seed 0, on the
#: reference data sets (in the order of :data:`REFERENCES`): the mean over the first 3 folds
#: (the 200-bag file, Musk1) and the first fold (Musk2), measured with
#: ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/studies/study_default_job.py time
#: --data csv,musk1 --folds 3`` and ``--data musk2 --folds 1``.
FOLD_SECONDS = {
    "citation-knn": (0.14, 0.01, 0.59),
    "citation-knn-integrated": (0.049, 0.011, 0.26),
    "bag-knn": (0.02, 0.0086, 0.11),
    "id3-mi": (0.036, 0.02, 0.27),
    "c45-mi": (0.044, 0.018, 0.28),
    "gdbt-mi": (1.3, 0.35, 1.4),
    "gdbt-bag-ratio": (0.55, 0.3, 0.9),
    "ripper-mi": (0.12, 0.14, 1.5),
    "simplemi-tree": (0.061, 0.046, 0.068),
    "miwrapper-tree": (0.025, 0.064, 1.3),
    "mi-forest": (0.82, 0.35, 1.7),
    "blrt": (0.53, 0.21, 0.72),
    "miwrapper-hgb": (0.73, 0.38, 9.9),
    "simplemi-rf": (0.14, 0.19, 0.18),
    "nsk-svm": (0.31, 0.15, 0.7),
    "migraph-svm": (0.31, 0.17, 0.92),
    "emd-svm": (2.2, 1.1, 5.0),
    "mi-svm": (39.0, 0.31, 14.0),
    "mi-svm-bag": (3.1, 0.31, 6.1),
    "miles": (0.26, 0.084, 0.49),
    "mind": (0.37, 0.26, 0.57),
    # The bag-encoder classifiers, measured the same way at their defaults (the conditions are
    # on the results pages).
    "mi-fv": (0.28, 0.16, 0.8),
    "mi-vlad": (0.15, 0.077, 0.44),
    "nystroem-nsk": (3.2, 0.79, 3.9),
    "rff-nsk": (1.2, 0.69, 2.0),
    "swe-svm": (0.21, 0.13, 0.2),
}
# The recommended soft vote was not timed by the study: a fold of it fits and predicts with
# each of its members once on the same bags, so the sum of their measured seconds is an
# honest estimate (the vote's own averaging is negligible beside them).
FOLD_SECONDS["recommended"] = tuple(round(sum(times), 3) for times in zip(*(FOLD_SECONDS[m] for m in RECOMMENDED_MEMBERS)))

#: Cost classes by the seconds of a 10-fold CV: (upper bound, name), cheapest first.
COST_CLASSES = ((10.0, "seconds"), (60.0, "under a minute"), (600.0, "minutes"), (math.inf, "long"))


def _class_of_seconds(seconds):
    return next(name for bound, name in COST_CLASSES if seconds < bound)


def cost_class(name):
    """The cost class (:data:`COST_CLASSES`) of a 10-fold CV of `name` on the 200-bag file and Musk1.

    Parameters
    ----------
    name : str
        A registry name.

    Returns
    -------
    classes : tuple of str
        One class per data set of :data:`CLASS_REFERENCES` (the 200-bag file,
        Musk1); ``("?", "?")`` for a learner that was not measured.
    """
    if name not in FOLD_SECONDS:
        return ("?",) * len(CLASS_REFERENCES)
    return tuple(_class_of_seconds(10 * s) for s in FOLD_SECONDS[name][:len(CLASS_REFERENCES)])


def _load_model(part):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_cost_model.json")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as fh:
        return json.load(fh).get(part, {})


#: The fitted cost model: name -> {"a", "p", "q", "spread", "max_measured_instances"}; a
#: neighbour learner also has "graph", the same for its approximate graph search (below).
COST_MODEL = _load_model("learners")

#: The learners whose peak memory in a fold grew as the square of the bags when measured:
#: name -> {"pair_matrices", "max_measured_bags"}, the peak growth of the process's memory
#: during the fold at the largest bag count measured, in n_train_bags x n_train_bags float64
#: matrices (``benchmarks/bench_cost_model.py memory``: one fold on 1,000 to 8,000 bags of 4
#: instances x 8 features).
PAIR_MEMORY = _load_model("memory")

#: Share of the instances a fold trains on (10-fold cross-validation), for the neighbour
#: learners' choice of search.
TRAIN_SHARE = 0.9


def _law(name, n_instances):
    """The cost model's entry for `name` at this size (None: never measured).

    A neighbour learner's ``algorithm="auto"`` searches the approximate graph
    from ``AUTO_GRAPH_MIN_INSTANCES`` training instances, when faiss is
    installed and the exact search would compare nearly every pair of
    instances. The estimate assumes the latter, as its measurements do
    (independent normal features), and takes the graph's own law there.
    """
    model = COST_MODEL.get(name)
    if model is None:
        return None
    graph = model.get("graph")
    if graph is not None and TRAIN_SHARE * n_instances >= AUTO_GRAPH_MIN_INSTANCES and graph_available():
        return graph
    return model


#: Exponents of the instances above which a learner is said to grow faster than linearly.
QUADRATIC = 1.6

#: The scalable alternatives named when a learner that grows quadratically meets large data.
SCALABLE = {
    "mind": ("mi-vlad", "nystroem-nsk"), "miles": ("mi-vlad", "nystroem-nsk"),
    "nsk-svm": ("nystroem-nsk",), "migraph-svm": ("nystroem-nsk",), "emd-svm": ("swe-svm",),
    "recommended": ("blrt", "nystroem-nsk"), "mi-svm": ("mi-vlad",), "mi-svm-bag": ("mi-vlad",),
    "citation-knn": ("blrt", "mi-vlad"), "citation-knn-integrated": ("blrt", "mi-vlad"),
    "bag-knn": ("blrt", "mi-vlad"), "swe-svm": ("mi-vlad",),
}


#: Learners that remember a result per pair of bags across the fits of one process: the EMD
#: kernel SVM's transport costs (``EMD_CACHE_SIZE`` pairs at most; the recommended
#: vote holds it). While every pair of the data fits, a worker's first fold computes them and
#: its later folds cost this share of a fold: 0.06-0.07 measured on 200 synthetic bags of 4,139
#: instances x 32 features (``benchmarks/bench_cost_model.py``'s bags, seed 0): later folds of
#: 0.33-0.36 s after a first of 5.2 s.
CACHED_PAIRS = {"emd-svm": 0.07}


#: The learners whose fit, at the registry defaults, compares every pair of training
#: instances (a distance, kernel or transport cost between all of them): their cost grows at
#: least as the square of the instances. MInD (every training bag a prototype), the set
#: kernels and the EMD kernel, the neighbour classifiers (in hundreds of dimensions their
#: exact search is a pass over every pair). The recommended vote holds two of them.
PAIRWISE = frozenset({"mind", "nsk-svm", "migraph-svm", "emd-svm", "citation-knn",
                      "citation-knn-integrated", "bag-knn"})


def _vote_of(estimate, combine, *args):
    """The recommended vote's value: `combine` of its members' `estimate` (None when one has none)."""
    values = [estimate(member, *args) for member in RECOMMENDED_MEMBERS]
    return None if None in values else combine(values)


def fold_seconds(name, n_instances, n_features, n_bags=None):
    """Estimated CPU seconds of one CV fold of learner `name` on data of this size.

    The cost model (:data:`COST_MODEL`) where the learner was measured at
    several sizes, else :func:`reference_fold_seconds`; the recommended vote
    is the sum of its members.

    Parameters
    ----------
    name : str
        A registry name.
    n_instances, n_features : int
        Size of the data (all its bags).
    n_bags : int, default=None
        Bags of the data; None: bags of :data:`REFERENCE_BAG_SIZE` instances.

    Returns
    -------
    seconds : float or None
        None for a learner that was never measured.
    """
    if name == "recommended" and name not in COST_MODEL:
        return _vote_of(fold_seconds, sum, n_instances, n_features, n_bags)
    model = _law(name, n_instances)
    if model is None:
        return reference_fold_seconds(name, n_instances, n_features)
    return law_seconds(model, n_instances, n_features, n_bags)


#: Mean instances a bag of the cost model's main measurements: its bag-size term is 1 there.
REFERENCE_BAG_SIZE = 20


def bag_exponent(law, n_features):
    """The exponent ``r`` of the mean bag size in a law of the model, at these features.

    A law's ``"bag_rate"`` lists ``[features, r]`` pairs, each fitted to
    folds of larger bags at those features; between them ``r`` is
    interpolated in the logarithm of the features, beyond them the nearest
    is kept. 0 for a law without them.
    """
    points = law.get("bag_rate")
    if not points:
        return 0.0
    features, rates = zip(*points)
    return float(np.interp(math.log(max(n_features, 1)), np.log(features), rates))


def law_seconds(law, n_instances, n_features, n_bags=None):
    """One fold's CPU seconds under a law of the model.

    ``a * n_instances**p * (n_features / 32)**q * (m / 20)**r`` with ``m``
    the mean instances a bag (``n_instances / n_bags``; the last factor is 1
    when `n_bags` is None) and ``r`` from :func:`bag_exponent`.
    """
    t = law["a"] * max(n_instances, 1) ** law["p"] * (max(n_features, 1) / 32) ** law["q"]
    if n_bags:
        t *= (max(n_instances, 1) / n_bags / REFERENCE_BAG_SIZE) ** bag_exponent(law, n_features)
    return t


def fold_range(name, n_instances, n_features, n_bags=None):
    """``(low, high)`` CPU seconds of one fold: the estimate divided and multiplied by its spread.

    The spread is the largest ratio between a measured fold and the cost
    model's value at its size (at least 1.5), widened beyond the largest
    measured size by the fourth root of the extrapolation (16 times the
    largest measured data: twice the spread); a learner estimated from the
    three reference points only gets a factor of 3. None for a learner never
    measured.
    """
    t = fold_seconds(name, n_instances, n_features, n_bags)
    if t is None:
        return None
    if name in COST_MODEL:
        model = _law(name, n_instances)
        factor = max(model["spread"], 1.5) * max(n_instances / model["max_measured_instances"], 1.0) ** 0.25
    else:
        factor = 3.0
    return t / factor, t * factor


def growth(name, n_instances=0):
    """The exponent of the instances in the learner's cost on large data (None: never measured).

    The cost model's (at `n_instances`, for the neighbour learners, whose
    search depends on the size); else, for a learner of :data:`PAIRWISE` (or
    the vote that holds them), at least 2; else the exponent between the two
    reference sets of the same features.
    """
    if name in COST_MODEL:
        return _law(name, n_instances)["p"]
    if name == "recommended":
        return _vote_of(growth, max, n_instances)
    if name not in FOLD_SECONDS:
        return None
    _, (n2, _, t2), (n3, _, t3) = [(ref[1], ref[2], t) for ref, t in zip(REFERENCES.values(), FOLD_SECONDS[name])]
    p = min(max(math.log(t3 / t2) / math.log(n3 / n2), 0.5), 3.0)
    return max(p, 2.0) if name in PAIRWISE else p


def scaling_warning(name, n_instances, n_features, seconds=60.0, n_bags=None):
    """A warning for a learner whose cost grows quadratically and whose fold would take long here.

    Returns None unless the learner's exponent of the instances is at
    least :data:`QUADRATIC` and one fold is estimated above `seconds`; the
    warning names the scalable alternatives (:data:`SCALABLE`).
    """
    p, t = growth(name, n_instances), fold_seconds(name, n_instances, n_features, n_bags)
    if p is None or t is None or p < QUADRATIC or t < seconds:
        return None
    others = SCALABLE.get(name)
    instead = f"; {' or '.join(others)} grow{'s' if len(others) == 1 else ''} linearly" if others else ""
    return (f"{name}'s cost grows as the instances to the power {p:.1f}: about {_duration(t)} a fold on "
            f"{n_instances} instances{instead}")


def pair_memory_bytes(name, n_train_bags):
    """Bytes a fold of `name` holds for the pairs of its training bags at its peak.

    ``pair_matrices * 8 * n_train_bags**2`` (:data:`PAIR_MEMORY`): the
    learner's kernel, distance or dissimilarity matrices over every pair of
    training bags and their copies. The recommended vote fits its members one
    after the other: the largest of theirs.

    Parameters
    ----------
    name : str
        A registry name.
    n_train_bags : int
        Bags a fold trains on.

    Returns
    -------
    bytes : float or None
        None for a learner whose memory was not seen to grow with the pairs of bags.
    """
    entry = PAIR_MEMORY.get(name)
    if entry is None:
        if name == "recommended":
            values = [pair_memory_bytes(member, n_train_bags) for member in RECOMMENDED_MEMBERS]
            values = [v for v in values if v is not None]
            return max(values) if values else None
        return None
    return entry["pair_matrices"] * 8.0 * float(n_train_bags) ** 2


def physical_memory_bytes():
    """This machine's physical memory in bytes (None where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def memory_warning(name, n_train_bags, workers=1, physical=None):
    """A warning for a learner whose matrices over pairs of bags would fill much of the memory.

    Returns None unless :func:`pair_memory_bytes` times the folds run at once
    exceeds half of `physical` (this machine's memory,
    :func:`physical_memory_bytes`, when None), or 8 GiB where the memory is
    unknown; the warning names the scalable alternatives (:data:`SCALABLE`).
    """
    need = pair_memory_bytes(name, n_train_bags)
    if need is None:
        return None
    need *= max(workers, 1)
    physical = physical_memory_bytes() if physical is None else physical
    if need < (8 * 2**30 if not physical else physical / 2):
        return None
    at_once = f" ({workers} folds at once)" if workers > 1 else ""
    if not physical:
        versus = ""
    elif need > physical:
        versus = f", more than this machine's {_gigabytes(physical)} of memory"
    else:
        versus = f" of this machine's {_gigabytes(physical)}"
    others = SCALABLE.get(name)
    instead = f"; {' or '.join(others)} need{'s' if len(others) == 1 else ''} no such matrices" if others else ""
    return (f"{name} holds matrices over every pair of its {n_train_bags} training bags: about "
            f"{_gigabytes(need)}{at_once}{versus}{instead}")


def _gigabytes(n_bytes):
    gb = n_bytes / 2**30
    if gb < 1:
        return f"{n_bytes / 2**20:.0f} MB"
    return f"{gb:.1f} GB" if gb < 10 else f"{gb:,.0f} GB"


def _duration(seconds):
    seconds = max(int(round(seconds)), 0)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def reference_fold_seconds(name, n_instances, n_features):
    """Estimated seconds of one CV fold of learner `name` from its three reference measurements.

    The model is ``t = a * n_instances**p * n_features**q``, through the
    three reference measurements: ``p`` from Musk1 to Musk2 (the same
    features, 14 times the instances), kept within [0.5, 3]; ``q`` from
    Musk1 to the 200-bag file (17 times fewer features), kept within
    [0, 2]; ``a`` fitted to the three points in log space. Fixed costs (a
    fit's overhead, the number of fits of an inner CV) and the bags' sizes
    are not in the model, so the result is a guide to the order of
    magnitude only. Beyond the largest reference set (Musk2's instances) a
    learner of :data:`PAIRWISE` grows as the square of the instances from
    the model's value there, when its fitted exponent is smaller. The
    recommended vote is the sum of its members. Parameters and return
    value as :func:`fold_seconds`.
    """
    if name == "recommended":
        return _vote_of(reference_fold_seconds, sum, n_instances, n_features)
    if name not in FOLD_SECONDS:
        return None
    (n1, d1, t1), (n2, d2, t2), (n3, d3, t3) = [
        (ref[1], ref[2], t) for ref, t in zip(REFERENCES.values(), FOLD_SECONDS[name])]
    p = min(max(math.log(t3 / t2) / math.log(n3 / n2), 0.5), 3.0)
    q = min(max(math.log((t1 / n1 ** p) / (t2 / n2 ** p)) / math.log(d1 / d2), 0.0), 2.0)
    log_a = sum(math.log(t / (n ** p * d ** q)) for n, d, t in ((n1, d1, t1), (n2, d2, t2), (n3, d3, t3))) / 3
    n, d = max(n_instances, 1), max(n_features, 1)
    if name in PAIRWISE and p < 2.0 and n > n3:
        return math.exp(log_a) * n3 ** p * (n / n3) ** 2 * d ** q
    return math.exp(log_a) * n ** p * d ** q


def estimate_seconds(names, n_instances, n_features, n_fits, workers=1, bound=None, n_bags=None):
    """Estimated seconds of a job: every learner of `names` fitted `n_fits` times.

    Parameters
    ----------
    names : sequence of str
    n_instances, n_features : int
    n_fits : int
        Folds x repetitions.
    workers : int, default=1
        Processes over the folds of one learner.
    bound : {None, "low", "high"}, default=None
        The estimate, or the low or high end of its range (:func:`fold_range`).
    n_bags : int, default=None
        Bags of the data: their mean size enters the cost model
        (:func:`law_seconds`), and a learner of :data:`CACHED_PAIRS` whose
        every pair of bags fits its cache pays for the pairs once per worker
        (its other folds cost :data:`CACHED_PAIRS` of a fold). None: bags of
        :data:`REFERENCE_BAG_SIZE` instances, every fold in full.

    Returns
    -------
    total : float
        Seconds of the measured learners (the others count as 0).
    per_learner : dict
        ``name -> seconds`` (None for a learner never measured).
    """
    per = {}
    first = max(min(workers, n_fits), 1)
    for name in names:
        per[name] = _job_seconds(name, n_instances, n_features, n_fits / first, bound, n_bags)
    return sum(t for t in per.values() if t is not None), per


def _job_seconds(name, n_instances, n_features, folds, bound, n_bags):
    """Seconds of one worker's `folds` folds of `name` (None: never measured)."""
    if name == "recommended" and name not in COST_MODEL:
        return _vote_of(_job_seconds, sum, n_instances, n_features, folds, bound, n_bags)
    if bound is None:
        t = fold_seconds(name, n_instances, n_features, n_bags)
    else:
        span = fold_range(name, n_instances, n_features, n_bags)
        t = None if span is None else span[0 if bound == "low" else 1]
    if t is None:
        return None
    share = CACHED_PAIRS.get(name)
    if share is None or n_bags is None or n_bags * (n_bags - 1) // 2 > EMD_CACHE_SIZE or folds <= 1:
        return t * folds
    return t * (1.0 + (folds - 1.0) * share)
