"""Nested cross-validation on bags, and the integrated-Hausdorff paper's protocol.

:func:`nested_cv` runs an outer k-fold CV (the performance estimate) with an
inner k-fold grid search on each outer training part (the parameter
choice). For the neighbour classifiers the bag distance matrices do not
depend on the split, so they are computed once and sliced in every inner
and outer fold; any other estimator is refitted (GridSearchCV).

Feature scaling and the distance matrices: a scaler is statistics of
training instances, so with ``scale`` set a matrix computed once on all
bags would let the test folds shape the distances. :func:`nested_cv`
therefore scales inside each outer fold: the scaler is fitted on that
fold's training bags, one matrix over all bags is computed from the scaled
instances, and the inner folds slice it. The inner validation bags thus
share the outer fold's scaler (no labels involved, and never the outer test
bags); with ``scale=None`` one matrix serves the whole data set.
"""

import time

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import clone, is_regressor
from sklearn.model_selection import GridSearchCV, KFold, ParameterGrid, StratifiedKFold
from sklearn.utils import Bunch

from mil._distance_engine import all_from_bags
from mil._scaling import apply_scaling, fit_scaling
from mil.evaluation import fold_indices
from mil.utils._threads import inner_threads, limited_threads
from mil.utils.validation import check_bag_labels, check_bags

__all__ = ["nested_cv", "paper_grid", "SIGMAS", "REFERENCES"]

#: The integrated-Hausdorff protocol's grids: references (or k) and sigma.
REFERENCES = (1, 3, 5, 7)
SIGMAS = (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100)


def paper_grid(estimator, sigmas=SIGMAS, alpha="nca"):
    """The paper's parameter grid for a neighbour classifier.

    Citation-KNN: references in {1, 3, 5, 7} with citers = references + 2
    (one sub-grid per references value); Bag-KNN: n_neighbors in
    {1, 3, 5, 7}. With ``metric="integrated"`` each is crossed with the
    sigma grid (alpha then comes from the NCA objective); other metrics
    ignore sigma, so it is left out rather than searched in vain.

    Parameters
    ----------
    estimator : BagKNNClassifier or CitationKNNClassifier
    sigmas : sequence of float, default=SIGMAS
    alpha : {"nca", "cv"}, default="nca"
        For the integrated distance: "nca" searches sigma and lets the NCA
        objective choose alpha (the paper); "cv" searches alpha itself in
        {0, 0.1, ..., 1} jointly with references by the inner CV (no sigma;
        see :doc:`/results/distances` for how the two compare).

    Returns
    -------
    grid : list of dict
    """
    if alpha not in ("nca", "cv"):
        raise ValueError(f"alpha must be 'nca' or 'cv'; got {alpha!r}")
    integrated = getattr(estimator, "metric", None) == "integrated"
    extra = {}
    if integrated and alpha == "cv":
        extra = {"alpha": [round(a, 1) for a in np.linspace(0.0, 1.0, 11)]}
    elif integrated and getattr(estimator, "alpha", None) is None:
        extra = {"sigma": list(sigmas)}
    if hasattr(estimator, "citers"):
        return [{"references": [r], "citers": [r + 2], **extra} for r in REFERENCES]
    return [{"n_neighbors": list(REFERENCES), **extra}]


def _is_distance_learner(estimator):
    from mil.neighbors._classifiers import BaseBagNeighbors

    return isinstance(estimator, BaseBagNeighbors) and estimator.metric != "precomputed"


def _outer_splits(outer_folds, y, random_state, stratify=True):
    if isinstance(outer_folds, (int, np.integer)):
        return fold_indices(y, folds=int(outer_folds), seed=random_state, stratify=stratify)
    if isinstance(outer_folds, list) and outer_folds and all(
            isinstance(p, tuple) and len(p) == 2 for p in outer_folds):
        # Explicit (train, test) index pairs, e.g. a predefined train/test split.
        splits = [(np.asarray(tr, dtype=np.intp), np.asarray(te, dtype=np.intp)) for tr, te in outer_folds]
        for tr, te in splits:
            if tr.ndim != 1 or te.ndim != 1 or not (tr.size and te.size) or np.intersect1d(tr, te).size \
                    or min(tr.min(), te.min()) < 0 or max(tr.max(), te.max()) >= len(y):
                raise ValueError("each (train, test) pair of outer_folds needs non-empty, disjoint "
                                 f"1-D bag indices in 0..{len(y) - 1}")
        return splits
    table = np.asarray(outer_folds)
    if table.ndim == 2:
        table = table[0]
    if table.shape != (len(y),):
        raise ValueError(f"outer_folds must give one fold index per bag ({len(y)}); got shape {table.shape}")
    return [(np.flatnonzero(table != k), np.flatnonzero(table == k)) for k in np.unique(table)]


def _inner_splitter(inner_cv, random_state, stratify=True):
    if isinstance(inner_cv, (int, np.integer)):
        kind = StratifiedKFold if stratify else KFold
        return kind(n_splits=int(inner_cv), shuffle=True, random_state=random_state)
    return inner_cv


def _needed(metric):
    return {"integrated": ("minimal", "maximal"),
            "adapted": ("minimal", "maximal", "average")}.get(metric, (metric,))


def _slice(mats, rows, cols, kinds):
    ix = np.ix_(rows, cols)
    return {k: mats[k][ix] for k in kinds}


def _distance_score(template, params, mats, y, train, test, alpha_cache, sliced=None):
    """Fit a neighbour classifier on sliced matrices and return (accuracy on `test`, estimator).

    `template` is ``(class, parameters)``: building the estimator directly
    skips ``clone``'s signature inspection, which dominated the thousands of
    fits of a nested CV (the parameters are plain values).
    """
    cls, base = template
    est = cls(**{**base, **params})
    kinds = _needed(est.metric)
    if sliced is None:
        sliced = (_slice(mats, train, train, kinds), _slice(mats, test, train, kinds))
    est.classes_, y_enc = check_bag_labels(y[train], len(train), positive_class=est.positive_class,
                                           require_positive=est._positive_class_matters(),
                                           estimator=type(est).__name__)
    est._fit_distances(sliced[0], y_enc, alpha_cache=alpha_cache)
    pred = est.classes_[est._predict_distances(sliced[1])]
    return float(np.mean(pred == y[test])), est


def _scaled_matrices(bags, train, scale):
    if scale is None:
        return all_from_bags(bags, None)
    offset, factor = fit_scaling(bags.instances[np.isin(bags.instance_bag, train)], scale)
    return all_from_bags(apply_scaling(bags, offset, factor), None)


def _alpha_cache(cache, scale, train):
    """Selected alphas per sigma for one training part (shared by every estimator via `cache`)."""
    key = ("alpha", scale, np.asarray(train, dtype=np.intp).tobytes())
    return cache.setdefault(key, {})


def _distance_fold(template, grid, bags, y, train, test, inner, cache):
    t0 = time.perf_counter()
    spec = (type(template), template.get_params(deep=False))
    scales = {p.get("scale", template.scale) for p in grid}
    mats, t_dist = {}, 0.0
    for s in scales:
        key = ("mats", s, None if s is None else np.asarray(train, dtype=np.intp).tobytes())
        if key not in cache:
            t = time.perf_counter()
            cache[key] = _scaled_matrices(bags, train, s)
            t_dist += time.perf_counter() - t
        mats[s] = cache[key]
    kinds = sorted({k for p in grid for k in _needed(p.get("metric", template.metric))})
    scores = np.zeros(len(grid))
    splits = list(inner.split(np.zeros(len(train)), y[train]))
    for itr, iva in splits:
        a, b = train[itr], train[iva]
        sliced = {s: (_slice(mats[s], a, a, kinds), _slice(mats[s], b, a, kinds)) for s in scales}
        for g, params in enumerate(grid):
            s = params.get("scale", template.scale)
            scores[g] += _distance_score(spec, params, None, y, a, b,
                                         _alpha_cache(cache, s, a), sliced[s])[0]
    scores /= len(splits)
    best = int(np.argmax(scores))  # the first of equal scores, in grid order
    s = grid[best].get("scale", template.scale)
    t1 = time.perf_counter()
    test_score, est = _distance_score(spec, grid[best], mats[s], y, train, test,
                                      _alpha_cache(cache, s, train))
    t2 = time.perf_counter()
    return {"test_score": test_score, "best_params": grid[best], "inner_score": float(scores[best]),
            "alpha": getattr(est, "alpha_", None), "fit_time": t1 - t0, "score_time": t2 - t1,
            "distance_time": t_dist}


def _refit_fold(template, grid, X_list, y, train, test, inner):
    t0 = time.perf_counter()
    search = GridSearchCV(clone(template), [{k: [v] for k, v in p.items()} for p in grid], cv=inner)
    search.fit([X_list[i] for i in train], y[train])
    t1 = time.perf_counter()
    test_score = float(search.score([X_list[i] for i in test], y[test]))
    t2 = time.perf_counter()
    return {"test_score": test_score, "best_params": search.best_params_,
            "inner_score": float(search.best_score_), "alpha": getattr(search.best_estimator_, "alpha_", None),
            "fit_time": t1 - t0, "score_time": t2 - t1, "distance_time": 0.0}


def nested_cv(estimator, param_grid, X, y, outer_folds=10, inner_cv=5, n_jobs=None, random_state=0,
              cache=None):
    """Nested cross-validation: inner grid search, outer performance estimate.

    Parameters
    ----------
    estimator : mil classifier or regressor
        A regressor's folds (outer and inner, when given as ints) are
        shuffled k-fold and its scores R^2 (its ``score``). Neighbour
        classifiers (any metric but "precomputed") take the fast
        path: each needed bag distance matrix is computed once per data set
        (once per outer fold when ``scale`` is set, see the module
        docstring) and sliced in every inner and outer fold; integrated
        alpha is selected once per training part and sigma. Any other
        estimator is refitted with GridSearchCV.
    param_grid : dict or list of dict
        As for GridSearchCV (see :func:`paper_grid`).
    X : sequence of 2-D arrays or Bags
    y : array-like of shape (n_bags,)
    outer_folds : int or array-like of shape (n_bags,) or (n_repeats, n_bags), default=10
        An int gives stratified folds (seeded by `random_state`; shuffled
        k-fold for a regressor); an array
        gives the test fold of each bag (a shipped ``folds`` table: its row
        0 is used); a list of ``(train, test)`` index tuples gives the outer
        splits themselves (e.g. MILWEB's predefined split, one pair).
    inner_cv : int or CV splitter, default=5
        Stratified, shuffled with `random_state` when an int.
    n_jobs : int, default=None
        Workers over the outer folds (joblib): threads for the neighbour
        classifiers' fast path (they share `cache`), processes otherwise,
        or whatever backend ``joblib.parallel_config`` selects (e.g. Dask).
    random_state : int, default=0
    cache : dict, default=None
        Pass one dict to several calls on the same `X` (and the same folds
        and `random_state`) to reuse the bag distance matrices and the
        selected alphas across estimators (the distance learners' table
        does this). Never share it between different data.

    Returns
    -------
    result : Bunch
        ``test_scores`` (accuracy per outer fold; R^2 for a regressor), ``best_params`` (per
        fold), ``inner_scores`` (best mean inner accuracy per fold),
        ``alphas`` (selected alpha per fold, or None), ``mean_score``,
        ``fit_times`` / ``score_times`` (per fold: inner search, final
        fit+test), ``distance_time`` (seconds spent on bag distance
        matrices) and ``total_time``.

    Examples
    --------
    >>> from mil.model_selection import nested_cv, paper_grid
    >>> from mil.neighbors import CitationKNNClassifier
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=40, random_state=0)
    >>> est = CitationKNNClassifier()
    >>> res = nested_cv(est, paper_grid(est), X, y, outer_folds=4, inner_cv=3)
    >>> len(res.test_scores), len(res.best_params)
    (4, 4)
    """
    t_start = time.perf_counter()
    bags = check_bags(X, accept_sparse=True)  # an estimator without sparse support refuses in fit
    y = np.asarray(y)
    classify = not is_regressor(estimator)
    if classify:  # a regressor checks its targets in fit
        check_bag_labels(y, bags.n_bags)
    grid = list(ParameterGrid(param_grid))
    if not grid:
        raise ValueError("param_grid is empty")
    splits = _outer_splits(outer_folds, y, random_state, stratify=classify)
    inner = _inner_splitter(inner_cv, random_state, stratify=classify)
    if _is_distance_learner(estimator):
        cache = {} if cache is None else cache
        if any(p.get("scale", estimator.scale) is None for p in grid) and ("mats", None, None) not in cache:
            t = time.perf_counter()
            cache["mats", None, None] = all_from_bags(bags, None)
            distance_time = time.perf_counter() - t
        else:
            distance_time = 0.0
        if n_jobs not in (None, 1):
            # Worker processes would fill copies of the cache: fill it here first.
            for tr, _ in splits:
                for sc in {p.get("scale", estimator.scale) for p in grid} - {None}:
                    key = ("mats", sc, np.asarray(tr, dtype=np.intp).tobytes())
                    if key not in cache:
                        t = time.perf_counter()
                        cache[key] = _scaled_matrices(bags, tr, sc)
                        distance_time += time.perf_counter() - t
        jobs = (delayed(_distance_fold)(estimator, grid, bags, y, tr, te, inner, cache)
                for tr, te in splits)
        # Threads share the cache (the alpha searches and distance kernels
        # release the GIL); a backend chosen with joblib.parallel_config
        # (processes, Dask) still wins over this hint.
        prefer = "threads"
    else:
        distance_time = 0.0
        X_list = bags.to_list()
        jobs = (delayed(_refit_fold)(estimator, grid, X_list, y, tr, te, inner) for tr, te in splits)
        prefer = None
    # Inner BLAS / OpenMP pools capped so that the folds' workers x threads fit the cores
    # (threads share this process's pools; worker processes get the same cap).
    with limited_threads(inner_threads(min(effective_n_jobs(n_jobs), len(splits)))):
        folds = Parallel(n_jobs=n_jobs, prefer=prefer)(jobs)
    distance_time += sum(f["distance_time"] for f in folds)
    test_scores = np.array([f["test_score"] for f in folds])
    return Bunch(
        test_scores=test_scores,
        mean_score=float(test_scores.mean()),
        best_params=[f["best_params"] for f in folds],
        inner_scores=np.array([f["inner_score"] for f in folds]),
        alphas=[f["alpha"] for f in folds],
        fit_times=np.array([f["fit_time"] for f in folds]),
        score_times=np.array([f["score_time"] for f in folds]),
        distance_time=distance_time,
        total_time=time.perf_counter() - t_start,
    )
