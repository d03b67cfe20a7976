"""Reproduction of the literature's tables: the distance learners and the tree learners.

Both run bag-level 10-fold CV on the published fold assignment (repetition
0) of the five shipped data sets; the trees' table can use all five
published repetitions (``repeats=5``), and the distance learners also run on
MILWEB's predefined train/test splits (:func:`reproduce_milweb`).
``quick=True`` runs a reduced version in
seconds (smoke tests): Musk1 only, two of its folds, smaller grids and
fewer boosting rounds.
"""

import time

import numpy as np
from sklearn.utils import Bunch

from mil._learners import SEED_PARAMS, make_learner
from mil.datasets import load_dataset
from mil.evaluation import evaluate, fold_indices
from mil.utils._docstrings import fill_doc

__all__ = ["DATASET_NAMES", "TREE_LEARNERS", "KERNEL_LEARNERS", "EMBEDDING_LEARNERS", "PUBLISHED_EMBEDDINGS",
           "ENCODER_LEARNERS", "PUBLISHED_ENCODERS", "reproduce_encoders",
           "milweb_table", "reproduce_distances", "reproduce_embeddings", "reproduce_kernels", "reproduce_milweb",
           "reproduce_trees", "reproduce_three_class"]

DATASET_NAMES = ("musk1", "musk2", "elephant", "fox", "tiger")
TREE_LEARNERS = ("id3-mi", "c45-mi", "gdbt-mi", "gdbt-bag-ratio", "ripper-mi", "simplemi-tree", "miwrapper-tree", "mi-forest", "blrt",
                 "miwrapper-hgb", "simplemi-rf")
EMBEDDING_LEARNERS = ("miles", "mind")
#: Mean accuracy % of the independent re-implementation in Carbonneau, Cheplygina, Granger and
#: Gagnon, "Multiple instance learning: a survey of problem characteristics and applications",
#: Pattern Recognition 77 (2018), supplementary Table 4: 10 x 10-fold CV, hyper-parameters tuned
#: by inner CV (Musk1, Musk2, Elephant, Fox, Tiger).
PUBLISHED_EMBEDDINGS = {
    "miles": dict(zip(DATASET_NAMES, (84.7, 87.6, 79.5, 68.2, 83.4))),
    "mind": dict(zip(DATASET_NAMES, (90.1, 92.4, 86.8, 63.1, 82.0))),
}
#: The bag-encoder learners of ``mil reproduce encoders`` (registry names).
ENCODER_LEARNERS = ("mi-fv", "mi-vlad", "nystroem-nsk", "rff-nsk", "swe-svm")
#: Accuracy % reported by Wei, Wu and Zhou, "Scalable algorithms for multi-instance learning",
#: IEEE TNNLS 28(4), 2017 (Musk1, Musk2, Elephant, Fox, Tiger; 10 x 10-fold CV).
PUBLISHED_ENCODERS = {
    "mi-fv": dict(zip(DATASET_NAMES, (90.9, 88.4, 85.2, 62.1, 81.3))),
    "mi-vlad": dict(zip(DATASET_NAMES, (87.1, 87.2, 85.0, 62.0, 81.0))),
}
#: Data sets whose GDBT-MI error against rounds is plotted (the GDBT-MI paper's figure).
STAGED_DATASETS = ("musk1", "musk2")


#: Parameters shared by the reproductions on the published folds of the five shipped sets.
_FIVE_SETS_SECTIONS = dict(published_folds="""\
    progress : mil._progress.Progress, default=None
    n_jobs : int, default=None
        Worker processes over the folds (results do not depend on it).
    repeats : int, default=5
        Published repetitions of the 10-fold CV (1 to 5).
""", learner_params="""\
    params : dict, default=None
        Parameters given to every learner run, over the registry's (for
        example ``{"n_concepts": 1000}``: MILES with k-means concepts).
""")


def _splits(data, quick, repeats=1):
    splits = fold_indices(data.target, folds=10, repeats=repeats, fold_table=data.folds)
    return splits[:2] if quick else splits


class _StagedErrors:
    """Fold callback: a fitted booster's train and test error after every round."""

    def __init__(self, bags, y):
        self.bags, self.y = bags, y

    def __call__(self, est, train, test):
        out = {}
        for key, idx in (("train", train), ("test", test)):
            truth = self.y[idx]
            out[key] = [float(np.mean(est.classes_[np.argmax(p, axis=1)] != truth))
                        for p in est.staged_predict_proba(self.bags[idx])]
        return out


def seeded_runs(learner, bags, y, splits, seeds, progress, n_jobs, params=None, callback=None):
    """CV of one registry learner on `splits`: once, or with each seed 0 .. `seeds` - 1 when it
    is randomised (:data:`mil._learners.SEED_PARAMS`).

    Returns the fold accuracies and AUCs (seed after seed), the per-seed means (None for a
    learner run once) and the evaluations' results.
    """
    runs = range(seeds) if learner in SEED_PARAMS else (None,)
    fold_acc, fold_auc, results = [], [], []
    for seed in runs:
        est = make_learner(learner, seed=seed, **(params or {}))
        res = evaluate(est, bags, y, splits, progress=progress, n_jobs=n_jobs,
                       callback=callback(seed) if callback is not None else None)
        fold_acc.append(res["accuracy"])
        fold_auc.append(res["auc"])
        results.append(res)
    seeded = None
    if learner in SEED_PARAMS:
        seeded = (np.array([a.mean() for a in fold_acc]), np.array([np.nanmean(a) for a in fold_auc]))
    return np.concatenate(fold_acc), np.concatenate(fold_auc), seeded, results


def _check_runs(repeats, seeds):
    if not 1 <= repeats <= 5:
        raise ValueError(f"repeats must be between 1 and 5 (the published repetitions); got {repeats}")
    if seeds < 1:
        raise ValueError(f"seeds must be at least 1; got {seeds}")


def _n_runs(learner, seeds):
    return seeds if learner in SEED_PARAMS else 1


def reproduce_trees(datasets=None, learners=None, quick=False, progress=None, n_jobs=None, repeats=1, seeds=1):
    """10-fold CV of the tree learners (:data:`TREE_LEARNERS`) on the shipped sets.

    Parameters
    ----------
    datasets : sequence of str, default=None
        Shipped data set names (default: all five; ``("musk1",)`` if quick).
    learners : sequence of str, default=None
        Registry names (default: :data:`TREE_LEARNERS`).
    quick : bool, default=False
        Two folds of Musk1, 20 boosting rounds, 10 trees in the forests.
    progress : mil._progress.Progress, default=None
    n_jobs : int, default=None
        Worker processes over the folds of each learner (results do not
        depend on it).
    repeats : int, default=1
        Published repetitions of the 10-fold CV (1 to 5): repetition 0 alone,
        or the first `repeats` fold assignments (the folds of all of them
        are pooled in ``accuracy``).
    seeds : int, default=1
        The randomised learners (those of :data:`mil._learners.SEED_PARAMS`:
        GDBT-MI, RIPPER-MI, the forests, BLRT, SimpleMI with a random forest)
        run with the seeds 0 .. `seeds` - 1; the others once.

    Returns
    -------
    result : Bunch
        ``accuracy[learner][dataset]`` (array, one per fold, repetition after
        repetition, and seed after seed for a randomised learner), ``auc``
        likewise, ``seed_accuracy[learner][dataset]`` and ``seed_auc`` (for
        the randomised learners: the mean over the folds of each seed),
        ``seeds``, ``protocol`` (the folds used, in words),
        ``seconds[learner][dataset]`` (all seeds), and ``staged[dataset]``
        with ``train`` / ``test``: mean bag error of GDBT-MI (seed 0) after
        each round over the folds (Musk1 and Musk2 only).
    """
    datasets = tuple(datasets or (("musk1",) if quick else DATASET_NAMES))
    learners = tuple(learners or TREE_LEARNERS)
    def params(learner):
        if learner in ("gdbt-mi", "gdbt-bag-ratio"):
            return {"n_estimators": 20 if quick else 200}
        return {"n_estimators": 10} if learner in ("mi-forest", "blrt") and quick else {}

    staged = {}
    result = _seeded_table(datasets, learners, quick, progress, n_jobs, repeats, seeds, params, staged)
    result.update(staged=staged, quick_note="two folds of Musk1, 20 boosting rounds, 10 trees in the forests")
    return result


@fill_doc(**_FIVE_SETS_SECTIONS)
def reproduce_embeddings(datasets=None, learners=None, quick=False, progress=None, n_jobs=None,
                         repeats=5, seeds=1, params=None):
    """Bag-level 10-fold CV of MILES and MInD on the shipped sets, tuned only inside training folds.

    Each learner chooses C and sigma (MILES) or gamma (MInD) in ``fit`` by a
    stratified CV over the training bags of the outer fold (MILES 2 folds,
    MInD 5; shuffled by the learner's seed),
    on slices of one instance-to-bag distance pass; the test fold is never
    seen. The published figures (:data:`PUBLISHED_EMBEDDINGS`) are 10 x 10-fold
    CV with inner-CV tuning; ours use the 5 published fold repetitions.

    Parameters
    ----------
    datasets : sequence of str, default=None
        Default: all five (Musk1 only if quick).
    learners : sequence of str, default=None
        Registry names (default: :data:`EMBEDDING_LEARNERS`).
    quick : bool, default=False
        Two folds of Musk1 (smoke test).
    [published folds]
    seeds : int, default=1
        Each learner (both are randomised: inner folds, k-means) runs with
        the seeds 0 .. `seeds` - 1.
    [learner params]

    Returns
    -------
    result : Bunch
        ``accuracy[learner][dataset]`` and ``auc[learner][dataset]`` (one value
        per fold, repetition after repetition, seed after seed),
        ``seed_accuracy`` and ``seed_auc`` (the mean of each seed),
        ``seconds`` (all seeds), ``seeds``, ``protocol``.
    """
    return _five_sets(datasets, learners or EMBEDDING_LEARNERS, quick, progress, n_jobs, repeats, seeds, params)


def reproduce_encoders(datasets=None, learners=None, quick=False, progress=None, n_jobs=None, repeats=5,
                       seeds=1, params=None):
    """Bag-level 10-fold CV of the bag-encoder classifiers on the shipped sets, tuned inside training folds.

    miFV, miVLAD, the random-feature NSK and the sliced-Wasserstein SVM
    (:data:`ENCODER_LEARNERS`) fit their encoder on the training bags of
    each outer fold and choose C (and a kernel width where they have one)
    by a stratified inner 5-fold CV over those bags (shuffled by the
    learner's seed); the test fold is never seen. The published figures
    (:data:`PUBLISHED_ENCODERS`) are 10 x 10-fold CV; ours use the 5
    published fold repetitions.

    Parameters and result are those of :func:`reproduce_embeddings`, with
    ``learners`` defaulting to :data:`ENCODER_LEARNERS` (all are randomised:
    the encoder's sample and initialisation, random features or directions,
    inner folds; ``params`` for example ``{"n_directions": 256}``).
    """
    return _five_sets(datasets, learners or ENCODER_LEARNERS, quick, progress, n_jobs, repeats, seeds, params)


def _five_sets(datasets, learners, quick, progress, n_jobs, repeats, seeds, params):
    """The seeded table of `learners` on the shipped sets (Musk1 only if quick), every run
    given `params` over the registry's."""
    datasets = tuple(datasets or (("musk1",) if quick else DATASET_NAMES))
    result = _seeded_table(datasets, tuple(learners), quick, progress, n_jobs, repeats, seeds,
                           (lambda learner: dict(params)) if params else None)
    result.quick_note = "two folds of Musk1"
    return result


def encoders_table(result):
    """Rows ``[learner, accuracy / AUC % per data set]`` with Wei, Wu and Zhou's accuracy beside ours."""
    return _table_with_published(result, PUBLISHED_ENCODERS)


def _seeded_table(datasets, learners, quick, progress, n_jobs, repeats, seeds, params=None, staged=None):
    """The CV runs of the reproductions: each learner (``params(learner)`` overriding its
    registry defaults) on each data set, over the seeds when it is randomised; with a dict
    `staged`, GDBT-MI's error after every round (seed 0) on :data:`STAGED_DATASETS`."""
    _check_runs(repeats, seeds)
    acc, auc, secs, seed_acc, seed_auc = {}, {}, {}, {}, {}
    for name in datasets:
        data = load_dataset(name)
        splits = _splits(data, quick, repeats)
        for learner in learners:
            if progress is not None:
                progress.set_label(f"{learner} on {name}", len(splits) * _n_runs(learner, seeds))
            t0 = time.perf_counter()
            plot = staged is not None and learner == "gdbt-mi" and name in STAGED_DATASETS
            errors = (lambda seed, b=data.bags, t=data.target: None if seed else _StagedErrors(b, t)) if plot else None
            a, u, seeded, results = seeded_runs(learner, data.bags, data.target, splits, seeds, progress, n_jobs,
                                                 params(learner) if params else None, errors)
            if plot:
                staged[name] = {key: np.mean([fold[key] for fold in results[0]["callback"]], axis=0)
                                for key in ("train", "test")}
            secs.setdefault(learner, {})[name] = time.perf_counter() - t0
            acc.setdefault(learner, {})[name] = a
            auc.setdefault(learner, {})[name] = u
            if seeded is not None:
                seed_acc.setdefault(learner, {})[name], seed_auc.setdefault(learner, {})[name] = seeded
    protocol = "published folds, " + ("repetition 0" if repeats == 1 else f"repetitions 0-{repeats - 1}")
    return Bunch(accuracy=acc, auc=auc, seconds=secs, datasets=datasets, learners=learners, quick=quick,
                 protocol=protocol, seeds=seeds, seed_accuracy=seed_acc, seed_auc=seed_auc)


def _score_cell(result, learner, name):
    """"accuracy (AUC)" in %: over the folds, or for a learner run over several seeds the
    mean of the seeds' means with the range of those means, marked by the caller."""
    if learner in result.seed_accuracy and result.seeds > 1:
        a, u = 100 * result.seed_accuracy[learner][name], 100 * result.seed_auc[learner][name]
        return f"{a.mean():.1f} [{a.min():.1f}-{a.max():.1f}] ({u.mean():.1f} [{u.min():.1f}-{u.max():.1f}])"
    a = 100 * np.asarray(result.accuracy[learner][name])
    u = result.auc[learner][name]
    u = 100 * np.nanmean(u) if np.isfinite(u).any() else float("nan")
    return f"{a.mean():.1f} ({u:.1f})"


def _seeded_label(result, learner):
    return learner + (" *" if learner in result.seed_accuracy and result.seeds > 1 else "")


def embeddings_table(result):
    """Rows ``[learner, accuracy / AUC % per data set]`` with the published accuracy beside ours."""
    return _table_with_published(result, PUBLISHED_EMBEDDINGS)


def _table_with_published(result, published_figures):
    rows = []
    for learner in result.learners:
        ours = [_seeded_label(result, learner)]
        published = [f"{learner} (published)"]
        for name in result.datasets:
            ours.append(_score_cell(result, learner, name))
            ref = published_figures.get(learner, {}).get(name)
            published.append("-" if ref is None else f"{ref:.1f}")
        rows += [ours, published]
    return rows


def _distance_learners():
    from mil.distances import KINDS
    from mil.neighbors import BagKNNClassifier, CitationKNNClassifier

    return [(f"citation-knn {kind}", CitationKNNClassifier, kind) for kind in KINDS] + \
           [(f"bag-knn {kind}", BagKNNClassifier, kind) for kind in KINDS]


def _mode(values):
    values = list(values)
    return max(sorted(set(values)), key=values.count)


def reproduce_distances(datasets=None, quick=False, scale=None, alpha="nca", curves=True,
                        progress=None, n_jobs=None):
    """The integrated-Hausdorff paper's table: Citation-KNN and Bag-KNN x five distances.

    Nested CV: outer 10-fold CV on the published folds, inner
    stratified 5-fold choice of references / k in {1, 3, 5, 7} (citers =
    references + 2) and, for the integrated distance, sigma. Each distance
    matrix is computed once per data set and shared by the ten learners.

    Parameters
    ----------
    datasets : sequence of str, default=None
        Default: all five (Musk1 only if quick).
    quick : bool, default=False
        Musk1 only, with a three-value sigma grid for the curves.
    scale : {None, "standard", "minmax"}, default=None
        Feature scaling (None is the paper's protocol).
    alpha : {"nca", "cv"}, default="nca"
        Integrated distance: alpha by the NCA objective (the paper) or by
        the inner CV jointly with references.
    curves : bool, default=True
        Also compute, for Citation-KNN with the integrated distance, the
        10-fold accuracy with fixed parameters against references (at the
        sigma the inner CV chose most often) and against sigma (at the most
        often chosen references).
    progress : mil._progress.Progress, default=None
    n_jobs : int, default=None
        Threads over the outer folds (``nested_cv``); results do not depend on it.

    Returns
    -------
    result : Bunch
        ``accuracy[learner][dataset]`` (one score per outer fold),
        ``best_params[learner][dataset]``, ``seconds[learner][dataset]``,
        ``curves[dataset]`` with ``references`` and ``sigma`` entries
        ``(x, accuracy, fixed_value)``, ``total_seconds``.
    """
    datasets = tuple(datasets or (("musk1",) if quick else DATASET_NAMES))
    sets = ((name, d.bags, d.target, d.folds[0]) for name, d in ((n, load_dataset(n)) for n in datasets))
    result = _distance_runs(sets, scale=scale, alpha=alpha, curves=curves, progress=progress, n_jobs=n_jobs,
                            curve_sigmas=(0.5, 5, 50) if quick else None)
    result.update(datasets=datasets, quick=quick, quick_note="Musk1 only, three sigma values in the curves")
    return result


def _distance_runs(sets, scale, alpha, curves, progress, n_jobs, sigmas=None, curve_sigmas=None):
    """The ten learners by nested CV on each ``(name, bags, y, outer_folds)`` of `sets`.

    Each distance matrix is computed once per set and shared by the ten
    learners (and by the curves); see :func:`reproduce_distances`.
    """
    from mil.model_selection import REFERENCES, SIGMAS, nested_cv, paper_grid

    sigmas = SIGMAS if sigmas is None else sigmas
    learners = _distance_learners()
    acc, best, secs, curve_data = {}, {}, {}, {}
    start = time.perf_counter()
    for name, bags, y, outer in sets:
        cache = {}  # distance matrices and alphas shared by every learner on this set
        for label, cls, kind in learners:
            if progress is not None:
                progress.set_label(f"{label} on {name}")
            est = cls(metric=kind, scale=scale)
            t0 = time.perf_counter()
            res = nested_cv(est, paper_grid(est, sigmas=sigmas, alpha=alpha), bags, y, outer,
                            inner_cv=5, random_state=0, cache=cache, n_jobs=n_jobs)
            secs.setdefault(label, {})[name] = time.perf_counter() - t0
            acc.setdefault(label, {})[name] = res.test_scores
            best.setdefault(label, {})[name] = res.best_params
            if progress is not None:
                progress()
        if curves and alpha == "nca":
            chosen = best["citation-knn integrated"][name]
            sigma0 = _mode(p["sigma"] for p in chosen)
            refs0 = _mode(p["references"] for p in chosen)
            from mil.neighbors import CitationKNNClassifier

            def fixed(refs, sigma):
                est = CitationKNNClassifier(metric="integrated", scale=scale)
                grid = [{"references": [refs], "citers": [refs + 2], "sigma": [sigma]}]
                return nested_cv(est, grid, bags, y, outer, inner_cv=5,
                                 random_state=0, cache=cache, n_jobs=n_jobs).mean_score

            xs = list(SIGMAS if curve_sigmas is None else curve_sigmas)
            curve_data[name] = {
                "references": (list(REFERENCES), [fixed(r, sigma0) for r in REFERENCES], sigma0),
                "sigma": (xs, [fixed(refs0, s) for s in xs], refs0),
            }
            if progress is not None:
                progress()
    return Bunch(accuracy=acc, best_params=best, seconds=secs, curves=curve_data,
                 learners=tuple(label for label, _, _ in learners),
                 total_seconds=time.perf_counter() - start)


def reproduce_milweb(users=None, quick=False, scale=None, alpha="nca", curves=True, progress=None,
                     n_jobs=None):
    """The integrated-Hausdorff paper's MILWEB table: the ten learners on nine users' splits.

    For each user (:func:`mil.datasets.load_milweb`), references / k in
    {1, 3, 5, 7} (citers = references + 2) and, for the integrated
    distance, sigma in {0.1, ..., 100} are chosen by a stratified 5-fold
    CV (seed 0) on the 75 training bags; the chosen learner is fitted on
    the 75 and scored on the 38 test bags (one train/test run). The bags
    are sparse: their distance matrices come from the sparse path of
    :func:`mil.distances.hausdorff_all`, once per user, shared by the ten
    learners.

    Parameters
    ----------
    users : sequence of int, default=None
        Default: 1 to 9 (user 1 only if quick).
    quick : bool, default=False
        User 1 only, sigma in {1, 10} in the search and {0.5, 5, 50} in
        the curves (smoke tests).
    scale : {None, "maxabs"}, default=None
        Feature scaling fitted on the training bags (None is the paper's
        protocol; the values are already in [0, 1]). "standard" and
        "minmax" would make the sparse bags dense and are refused.
    alpha : {"nca", "cv"}, default="nca"
        As in :func:`reproduce_distances`.
    curves : bool, default=True
        Also the test accuracy of Citation-KNN with the integrated distance
        with fixed parameters, against references (at the chosen sigma)
        and against sigma (at the chosen references).
    progress : mil._progress.Progress, default=None
    n_jobs : int, default=None
        Accepted for symmetry with :func:`reproduce_distances`; one split
        per user leaves nothing to run in parallel.

    Returns
    -------
    result : Bunch
        As :func:`reproduce_distances`, with ``datasets`` the names
        ``"user1"`` ... and ``accuracy[learner][name]`` one test accuracy
        (an array of length 1).
    """
    from mil.datasets import MILWEB_USERS, load_milweb

    users = tuple(users or ((1,) if quick else MILWEB_USERS))
    bad = [u for u in users if u not in MILWEB_USERS]
    if bad:
        raise ValueError(f"MILWEB users are 1..9; got {bad[0]!r}")

    def sets():
        for u in users:
            d = load_milweb(u, as_bags=True)
            yield f"user{u}", d.bags, d.target, [(d.train_indices, d.test_indices)]

    result = _distance_runs(sets(), scale=scale, alpha=alpha, curves=curves, progress=progress, n_jobs=n_jobs,
                            sigmas=(1, 10) if quick else None, curve_sigmas=(0.5, 5, 50) if quick else None)
    result.update(datasets=tuple(f"user{u}" for u in users), quick=quick,
                  quick_note="user 1 only, sigma in {1, 10} (curves: 0.5, 5, 50)")
    return result


def milweb_table(result):
    """Rows ``[learner, test accuracy % per user..., mean]`` of :func:`reproduce_milweb`."""
    rows = []
    for learner in result.learners:
        accs = [100 * float(np.mean(result.accuracy[learner][name])) for name in result.datasets]
        rows.append([learner, *(f"{a:.1f}" for a in accs), f"{np.mean(accs):.1f}"])
    return rows


def accuracy_table(result):
    """Rows ``[learner, cell per data set]`` of a reproduction result (percent).

    A cell is "mean ± std" over the folds; for a learner run over several
    seeds (``result.seed_accuracy``), the learner is marked ``*`` and the cell
    is the mean over the seeds of their fold means, with the range of those
    seed means in brackets.
    """
    rows = []
    by_seed = getattr(result, "seed_accuracy", {}) if getattr(result, "seeds", 1) > 1 else {}
    for learner in result.learners:
        cells = [learner + (" *" if learner in by_seed else "")]
        for name in result.datasets:
            if learner in by_seed:
                s = 100 * np.asarray(by_seed[learner][name])
                cells.append(f"{s.mean():.1f} [{s.min():.1f}-{s.max():.1f}]")
                continue
            a = 100 * np.asarray(result.accuracy[learner][name])
            cells.append(f"{a.mean():.1f} ± {a.std():.1f}")
        rows.append(cells)
    return rows


#: The 3-class multi-instance task: the positive bags of these sets are the classes.
THREE_CLASS_SETS = ("elephant", "fox", "tiger")


def three_class_task(repeats=1):
    """The positive bags of Elephant, Fox and Tiger as a 3-class multi-instance task.

    Each class keeps its own published fold assignment: fold k of repetition
    r holds the positive bags that fold k of repetition r of their own data
    set holds.

    Returns
    -------
    bags : list of ndarray
    y : ndarray of str
        ``"elephant"``, ``"fox"`` or ``"tiger"``.
    splits : list of (train, test) index arrays
        10 folds per repetition.
    """
    bags, y, folds = [], [], []
    for name in THREE_CLASS_SETS:
        data = load_dataset(name)
        pos = np.flatnonzero(np.asarray(data.target) == 1)
        bags.extend(data.data[i] for i in pos)
        y.extend([name] * pos.shape[0])
        folds.append(data.folds[:repeats, pos])
    folds = np.concatenate(folds, axis=1)
    splits = [(np.flatnonzero(folds[r] != k), np.flatnonzero(folds[r] == k))
              for r in range(repeats) for k in range(10)]
    return bags, np.array(y), splits


def reproduce_three_class(learners=("ripper-mi", "citation-knn"), repeats=1, progress=None,
                          n_jobs=None):
    """10-fold CV of registry learners on :func:`three_class_task`.

    Returns
    -------
    result : Bunch
        ``accuracy[learner]`` (array, one per fold over all repetitions) and
        ``seconds[learner]``.
    """
    bags, y, splits = three_class_task(repeats)
    acc, secs = {}, {}
    for learner in learners:
        t0 = time.perf_counter()
        res = evaluate(make_learner(learner, seed=0), bags, y, splits, progress=progress, n_jobs=n_jobs)
        secs[learner] = time.perf_counter() - t0
        acc[learner] = res["accuracy"]
    return Bunch(accuracy=acc, seconds=secs, learners=tuple(learners), repeats=repeats)


# -- bag kernels and multi-instance SVMs ------------------------------------------

#: The learners of ``mil reproduce kernels`` (registry names).
KERNEL_LEARNERS = ("nsk-svm", "migraph-svm", "emd-svm", "mi-svm", "mi-svm-bag")

#: Published accuracies (%) on Musk1, Musk2, Elephant, Fox, Tiger: ``(as quoted from the original
#: papers in later tables, independent re-implementation by 10 x 10-fold CV in Carbonneau,
#: Cheplygina, Granger and Gagnon, Pattern Recognition 77, 2018, supplementary Table 4)``;
#: None where no figure exists. NSK's first row is as run by Zhou, Sun and Li (ICML 2009).
KERNEL_PUBLISHED = {
    "nsk-svm": ((88.0, 89.3, 84.3, 60.3, 84.2), (85.2, 76.8, 79.0, 57.4, 74.0)),
    "migraph-svm": ((88.9, 90.3, 86.8, 61.1, 86.0), (86.4, 75.0, 81.1, 61.0, 75.5)),
    "emd-svm": (None, (87.0, 90.7, 88.3, 63.2, 85.2)),
    "mi-svm": ((87.4, 83.6, 82.2, 58.2, 78.4), (85.5, 79.9, 74.8, 62.2, 72.6)),
    "mi-svm-bag": ((77.9, 84.3, 81.4, 57.8, 84.0), (85.1, 80.5, 80.3, 61.4, 82.2)),
}


@fill_doc(**_FIVE_SETS_SECTIONS)
def reproduce_kernels(datasets=None, learners=None, quick=False, progress=None, n_jobs=None, repeats=5,
                      seeds=1, params=None):
    """Bag-kernel SVMs and mi-SVM / MI-SVM on the shipped sets, published folds.

    Every learner tunes its hyper-parameters by an inner cross-validation
    over the training bags of each outer fold (see the registry entries in
    :mod:`mil._learners`); nothing is chosen on a test fold.

    Parameters
    ----------
    datasets : sequence of str, default=None
        Default: all five (``("musk1",)`` if quick).
    learners : sequence of str, default=None
        Registry names (default: :data:`KERNEL_LEARNERS`; ``emd-svm`` is
        left out when POT is not installed).
    quick : bool, default=False
        Two folds of Musk1, smaller inner grids.
    [published folds]
    seeds : int, default=1
        Each learner (all are randomised: the inner folds) runs with the
        seeds 0 .. `seeds` - 1.
    [learner params]

    Returns
    -------
    result : Bunch
        ``accuracy[learner][dataset]`` and ``auc`` (one per fold, seed after
        seed), ``seed_accuracy`` and ``seed_auc`` (the mean of each seed),
        ``seconds[learner][dataset]``, ``published`` (:data:`KERNEL_PUBLISHED`),
        ``protocol``.
    """
    from mil._learners import available_learners

    datasets = tuple(datasets or (("musk1",) if quick else DATASET_NAMES))
    if learners is None:
        learners = tuple(name for name in KERNEL_LEARNERS if name in available_learners())

    def learner_params(learner):
        grid = {}
        if quick:
            grid["C"] = [1.0, 10.0]
            if learner in ("nsk-svm", "migraph-svm", "emd-svm"):
                grid["gamma"] = [0.5, 1.0]
        return {**grid, **(params or {})}

    result = _seeded_table(datasets, tuple(learners), quick, progress, n_jobs, repeats, seeds, learner_params)
    result.update(published=KERNEL_PUBLISHED, quick_note="two folds of Musk1, inner grids of two values")
    return result


def kernel_table(result):
    """Rows ``[learner, "accuracy (AUC)" per data set]`` followed by the two published rows."""
    names = ("musk1", "musk2", "elephant", "fox", "tiger")
    rows = []
    for learner in result.learners:
        rows.append([_seeded_label(result, learner)] + [_score_cell(result, learner, name)
                                                        for name in result.datasets])
        for label, pub in zip(("  as quoted", "  re-impl."), result.published.get(learner, (None, None))):
            rows.append([label] + ["—" if pub is None or name not in names else f"{pub[names.index(name)]:.1f}"
                                   for name in result.datasets])
    return rows
