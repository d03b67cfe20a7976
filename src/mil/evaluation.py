"""Bag-level cross-validated evaluation of learners (used by the command line).

Folds run in worker processes with ``n_jobs``; the BLAS and OpenMP pools
inside each worker are then capped so that workers x threads stays within
the cores (:doc:`/user_guide/parallel`).
"""

import time
import warnings

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import clone, is_regressor
from sklearn.metrics import log_loss, mean_absolute_error, mean_squared_error, r2_score, roc_auc_score
from sklearn.model_selection import KFold, StratifiedKFold

from mil.utils._threads import call_limited, inner_threads
from mil.utils.validation import check_bag_labels, check_bags

__all__ = ["fold_indices", "table_splits", "evaluate", "merge_warnings"]


def table_splits(assignment):
    """``(train, test)`` pairs of one fold assignment (one fold number per bag).

    Fold k's test set is every bag numbered k, in increasing order of k; any
    integers work as fold numbers (0-9, 1-5, ...).

    Parameters
    ----------
    assignment : array-like of int, shape (n_bags,)

    Returns
    -------
    splits : list of (ndarray, ndarray)
    """
    assignment = np.asarray(assignment)
    return [(np.flatnonzero(assignment != k), np.flatnonzero(assignment == k))
            for k in np.unique(assignment)]


def fold_indices(y, folds=10, repeats=1, seed=0, fold_table=None, stratify=True):
    """List of ``(train, test)`` bag-index pairs for repeated k-fold CV.

    Parameters
    ----------
    y : array-like of shape (n_bags,)
    folds : int, default=10
    repeats : int, default=1
    seed : int, default=0
        Seed of the shuffles (repetition r uses seed + r).
    fold_table : ndarray of shape (n_repeats, n_bags), default=None
        Published fold assignments (``folds`` of a shipped data set): used
        instead of random folds when it has `folds` folds and enough rows.
    stratify : bool, default=True
        Stratified folds (each fold keeps the class proportions); False
        for real-valued targets (a regression): shuffled k-fold.

    Returns
    -------
    splits : list of (ndarray, ndarray)
    """
    y = np.asarray(y)
    if fold_table is not None and fold_table.shape[0] >= repeats and \
            len(np.unique(fold_table)) == folds:
        return [split for r in range(repeats) for split in table_splits(fold_table[r])]
    out = []
    for r in range(repeats):
        kind = StratifiedKFold if stratify else KFold
        cv = kind(n_splits=folds, shuffle=True, random_state=seed + r)
        out.extend(cv.split(np.zeros(len(y)), y))
    return out


def _scores(est, bags, positive, proba):
    """Scores of the `positive` label for AUC (None when the estimator gives none).

    `proba`: the estimator's ``predict_proba(bags)`` (None without it).
    """
    classes = list(getattr(est, "classes_", ()))
    if len(classes) != 2 or positive not in classes:
        return None
    if proba is not None:
        return proba[:, classes.index(positive)]
    if hasattr(est, "decision_function"):  # scikit-learn's sign: > 0 favours classes_[1]
        scores = est.decision_function(bags)
        return scores if classes.index(positive) == 1 else -scores
    return None


def _ovr_auc(classes, y, proba):
    """One-vs-rest AUC for more than two classes: the mean over the classes of the fold.

    Each class that is in the test bags (but not alone) ranks its
    ``predict_proba`` column (`proba`) against the other bags, and the
    binary AUCs are averaged (scikit-learn's ``multi_class="ovr"``,
    ``average="macro"``, restricted to the classes present). NaN without
    ``predict_proba`` (`proba` None) or with one class in the fold.
    """
    if proba is None or len(np.unique(y)) < 2:
        return np.nan
    aucs = [roc_auc_score(y == c, proba[:, j]) for j, c in enumerate(classes)
            if 0 < np.sum(y == c) < len(y)]
    return float(np.mean(aucs)) if aucs else np.nan


def _fold(estimator, bags, y, train, test, callback, positive=None, record=False):
    """Fit a clone on one split; its scores, times, the callback's value and the warnings.

    With `record`, the warnings of the fold are caught and returned as
    ``(category, message)`` pairs (they cross process boundaries, where a
    worker's warnings would otherwise print in the worker or be lost).
    """
    if not record:
        return (*_scored_fold(estimator, bags, y, train, test, callback, positive), None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _scored_fold(estimator, bags, y, train, test, callback, positive)
    return (*result, [(w.category, str(w.message)) for w in caught])


def _scored_fold(estimator, bags, y, train, test, callback, positive):
    est = clone(estimator)
    t0 = time.perf_counter()
    est.fit(bags[train], y[train])
    t1 = time.perf_counter()
    test_bags = bags[test]
    pred = est.predict(test_bags)
    if is_regressor(est):
        scores = _regression_scores(y[train], y[test], pred)
        t2 = time.perf_counter()
    else:
        # One predict_proba for the AUC and the log loss.
        proba = est.predict_proba(test_bags) if hasattr(est, "predict_proba") else None
        if positive is not None:
            scored = _scores(est, test_bags, positive, proba)
            two = scored is not None and len(np.unique(y[test])) == 2
            auc = float(roc_auc_score(y[test] == positive, scored)) if two else np.nan
        else:
            auc = _ovr_auc(est.classes_, y[test], proba)
        t2 = time.perf_counter()
        loss, prior_loss = _log_losses(est.classes_, y[train], y[test], proba)
        scores = {"accuracy": float(np.mean(pred == y[test])), "auc": auc, "log_loss": loss,
                  "prior_log_loss": prior_loss}
    extra = callback(est, train, test) if callback is not None else None
    return scores, t1 - t0, t2 - t1, extra


def _regression_scores(y_train, y_test, pred):
    """RMSE, MAE and R^2 of one test fold, and the RMSE of predicting the training mean."""
    y_test = np.asarray(y_test, dtype=np.float64)
    pred = np.asarray(pred, dtype=np.float64)
    r2 = float(r2_score(y_test, pred)) if len(y_test) > 1 else np.nan
    return {"rmse": float(np.sqrt(mean_squared_error(y_test, pred))),
            "mae": float(mean_absolute_error(y_test, pred)), "r2": r2,
            "prior_rmse": float(np.sqrt(np.mean((y_test - np.mean(y_train)) ** 2)))}


def _log_losses(classes, y_train, y_test, proba):
    """Log loss of the fitted estimator and of the constant training prior on one test fold.

    The prior predicts every test bag with the class frequencies of the
    training bags; a learner whose probabilities (`proba`, its
    ``predict_proba`` on the test bags) carry information beats it. NaN
    without ``predict_proba`` (`proba` None).
    """
    counts = np.array([np.sum(y_train == c) for c in classes], dtype=np.float64)
    prior = np.tile(counts / counts.sum(), (len(y_test), 1))
    prior_loss = float(log_loss(y_test, prior, labels=classes))
    if proba is None:
        return np.nan, prior_loss
    return float(log_loss(y_test, proba, labels=classes)), prior_loss


def _indexed_fold(i, n_threads, *args):
    return i, call_limited(n_threads, _fold, *args)


def evaluate(estimator, X, y, splits, progress=None, callback=None, n_jobs=None, positive_class=None,
             record_warnings=False):
    """Fit and score `estimator` on every split: bag-level accuracy and AUC, or RMSE, MAE and R^2.

    Parameters
    ----------
    estimator : mil classifier or regressor (cloned for every fold)
    X : bags
    y : labels (a regressor: real-valued targets)
    splits : list of (train, test) index arrays (see :func:`fold_indices`)
    progress : callable, default=None
        Called with no argument after each fold.
    callback : callable, default=None
        Called as ``callback(fitted_estimator, train, test)`` after each fold
        (e.g. to collect staged errors without refitting); its return values
        are returned in fold order. With `n_jobs` it runs in the worker, so
        it must be picklable and must return what it computes.
    n_jobs : int, default=None
        Folds run in this many worker processes (joblib); None or 1 runs
        them here. Results do not depend on it; the times of parallel folds
        share the machine. Each worker's BLAS and OpenMP pools are capped
        at the cores divided by the workers (and at the caller's own cap).
    positive_class : label, default=None
        The label whose scores the AUC ranks, for two-class `y` (default:
        the second label in sorted order, as ``classes_[1]``).
    record_warnings : bool, default=False
        Catch the warnings raised while fitting and scoring (in the worker
        processes too) and return them instead of showing them.

    Returns
    -------
    result : dict
        A regressor's: ``rmse``, ``mae`` and ``r2`` (arrays, one per fold;
        R^2 is NaN for a fold of one bag) and ``prior_rmse`` (of predicting
        every test bag with the mean training target, the reference a useful
        regressor beats). A classifier's: ``accuracy`` and ``auc`` (arrays, one per fold; AUC is NaN for a fold
        with one class or an estimator without scores; with more than two
        classes it is the one-vs-rest AUC of ``predict_proba``, averaged over
        the classes in the test fold), ``log_loss`` (of
        ``predict_proba`` on each test fold; NaN without it) and
        ``prior_log_loss`` (of the constant training-fold class frequencies,
        the reference a useful probability beats), ``fit_time`` and
        ``predict_time`` (seconds per fold, both kinds), ``callback`` (list, one value per
        fold; None without a callback), ``warnings`` (with
        `record_warnings`: a list of ``(category, message, n_folds)``, each
        distinct warning once in the order it first appeared, with the
        number of folds that raised it; None otherwise).
    """
    bags = check_bags(X, allow_nan=True, accept_sparse=True)  # the estimator decides
    y = np.asarray(y)
    positive = None
    if not is_regressor(estimator):  # a regressor's fit checks its targets
        classes, _ = check_bag_labels(y, bags.n_bags)
        if len(classes) == 2:
            positive = classes[1] if positive_class is None else positive_class
    if effective_n_jobs(n_jobs) == 1:
        folds = []
        for train, test in splits:
            folds.append(_fold(estimator, bags, y, train, test, callback, positive, record_warnings))
            if progress is not None:
                progress()
    else:
        # Unordered results let the progress bar move as folds finish; the
        # index puts them back in fold order.
        n_threads = inner_threads(min(effective_n_jobs(n_jobs), len(splits)))
        run = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
            delayed(_indexed_fold)(i, n_threads, estimator, bags, y, train, test, callback, positive,
                                   record_warnings)
            for i, (train, test) in enumerate(splits))
        done = {}
        for i, result in run:
            done[i] = result
            if progress is not None:
                progress()
        folds = [done[i] for i in range(len(splits))]
    scores, fit_t, pred_t, extra, caught = zip(*folds)
    return {**{key: np.array([fold[key] for fold in scores]) for key in scores[0]},
            "fit_time": np.array(fit_t), "predict_time": np.array(pred_t),
            "callback": list(extra) if callback is not None else None,
            "warnings": merge_warnings(*([(c, m, 1) for c, m in dict.fromkeys(fold)] for fold in caught))
            if record_warnings else None}


def merge_warnings(*lists):
    """One ``(category, message, n_folds)`` list from several, each warning once, in order of appearance.

    Parameters
    ----------
    *lists : lists of (category, message, n_folds)
        As :func:`evaluate` returns them with ``record_warnings=True``.

    Returns
    -------
    warnings : list of (category, message, n_folds)
        The folds of a warning raised in several lists are added up.
    """
    counts = {}
    for triples in lists:
        for category, message, n in triples or ():
            counts[category, message] = counts.get((category, message), 0) + n
    return [(category, message, n) for (category, message), n in counts.items()]
