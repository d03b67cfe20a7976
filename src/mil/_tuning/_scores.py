"""Inner folds, grid scores, ties and the selection of a grid point (the rules of :mod:`mil._tuning`)."""

from numbers import Integral

import numpy as np
from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score, roc_auc_score
from sklearn.model_selection import KFold, StratifiedKFold, check_cv
from sklearn.utils import Bunch, check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from mil._tuning._calibration import fit_sigmoid, log_loss_at
from mil.utils._seeds import SEED_MAX
from mil.utils.validation import shown

__all__ = ["SCORINGS", "REGRESSION_SCORINGS", "CV_CONSTRAINT", "REPEATS_CONSTRAINT", "SCORING_CONSTRAINT",
           "CONSTRAINTS", "REGRESSION_CONSTRAINTS", "DEFAULT_FOLDS", "SEED_MAX", "positive_grid",
           "positive_weight_bags", "inner_folds", "out_of_fold", "grid_scores", "best_index", "select"]

#: What the inner CV of a classifier can maximise.
SCORINGS = ("accuracy", "roc_auc", "neg_log_loss")
#: What the inner CV of a regressor can maximise.
REGRESSION_SCORINGS = ("neg_mean_squared_error", "neg_mean_absolute_error", "r2")
CV_CONSTRAINT = [Interval(Integral, 1, None, closed="left"), "cv_object", None]
REPEATS_CONSTRAINT = [Interval(Integral, 1, None, closed="left")]
SCORING_CONSTRAINT = [StrOptions(set(SCORINGS))]
#: The parameters every tuned classifier shares, with their constraints.
CONSTRAINTS = {
    "cv": CV_CONSTRAINT,
    "cv_repeats": REPEATS_CONSTRAINT,
    "scoring": SCORING_CONSTRAINT,
    "class_weight": [StrOptions({"balanced"}), dict, None],
    "positive_class": "no_validation",
    "random_state": ["random_state"],
}
#: The parameters every tuned regressor shares, with their constraints.
REGRESSION_CONSTRAINTS = {
    "cv": CV_CONSTRAINT,
    "cv_repeats": REPEATS_CONSTRAINT,
    "scoring": [StrOptions(set(REGRESSION_SCORINGS))],
    "random_state": ["random_state"],
}
#: ``cv=None``: scikit-learn's default number of folds.
DEFAULT_FOLDS = 5


def positive_grid(value, name):
    """A number or a list of them as a 1-D float64 grid, each finite and > 0 (the message names `name`)."""
    values = np.atleast_1d(np.asarray(value, dtype=np.float64))
    if values.ndim != 1 or values.size == 0 or not (np.isfinite(values).all() and (values > 0).all()):
        raise ValueError(f"{name} must be a number > 0 or a non-empty list of them; got {shown(value)}")
    return values


def positive_weight_bags(weight, y_enc=None, classes=None):
    """Indices of the bags with a positive weight, or None when every bag has one.

    Parameters
    ----------
    weight : ndarray of shape (n_bags,) or None
    y_enc : ndarray of int or None
        Class index of each bag (classifiers; None for a regressor).
    classes : ndarray or None
        The learner's ``classes_`` (for the message).

    Returns
    -------
    keep : ndarray of int or None

    Raises
    ------
    ValueError
        When a class has no bag with a positive weight, or (regressors) no
        bag has one.
    """
    if weight is None or (weight > 0).all():
        return None
    keep = np.flatnonzero(weight > 0)
    if y_enc is None:
        if keep.size == 0:
            raise ValueError("every bag has weight 0; the model needs a bag with a positive weight")
        return keep
    missing = np.setdiff1d(np.arange(len(classes)), y_enc[keep])
    if missing.size:
        raise ValueError(f"class {shown(classes[missing[0]])} has no bag with a positive weight; the SVM needs a bag "
                         "of every class")
    return keep


def inner_folds(cv, target, *, random_state=None, repeats=1, keep=None, n_total=None, stratified=True,
                seeds=None):
    """The inner (train, test) folds over the bags, indices among the kept bags.

    Parameters
    ----------
    cv : int, cross-validation splitter, iterable of (train, test) or None
        None: :data:`DEFAULT_FOLDS`. An int k: k shuffled folds, stratified
        by class (at most the smallest class count) or plain (regression:
        at most the number of bags); below 2: no folds.
    target : ndarray
        Class index (stratified) or target value of each kept bag.
    random_state : int, RandomState or None
        Seeds the shuffles of an int `cv` (one seed drawn per repeat).
    repeats : int
        Shuffles of an int `cv`, pooled.
    keep : ndarray of int or None
        The kept bags among the `n_total` bags of ``fit``
        (:func:`positive_weight_bags`); a given splitter's indices refer to
        all of them and are renumbered.
    n_total : int or None
    stratified : bool, default=True
        Classification (stratified folds, and a fold whose training part
        lacks a class is skipped) or regression (plain folds).
    seeds : sequence of int or None
        The shuffles' seeds, one per repeat (instead of drawing them from
        `random_state`).

    Returns
    -------
    folds : list of (ndarray, ndarray)
        Empty for no inner fit.
    """
    target = np.asarray(target)
    n = target.shape[0]
    if cv is None or isinstance(cv, Integral):
        k = DEFAULT_FOLDS if cv is None else int(cv)
        if stratified:
            counts = np.bincount(target)
            k = min(k, int(counts[counts > 0].min()))
        else:
            k = min(k, n)
        if k < 2:
            return []
        if seeds is None:
            rng = check_random_state(random_state)
            seeds = [int(rng.randint(SEED_MAX)) for _ in range(repeats)]
        splitter = StratifiedKFold if stratified else KFold
        folds = []
        for seed in seeds:
            folds += list(splitter(n_splits=k, shuffle=True, random_state=int(seed)).split(np.zeros(n), target))
    elif keep is None:
        folds = [(np.asarray(tr), np.asarray(te))
                 for tr, te in check_cv(cv, target, classifier=stratified).split(np.zeros((n, 1)), target)]
    else:
        new = np.full(n_total, -1)
        new[keep] = np.arange(keep.shape[0])
        y_full = np.zeros(n_total, dtype=target.dtype)
        y_full[keep] = target
        folds = []
        for tr, te in check_cv(cv, y_full, classifier=stratified).split(np.zeros((n_total, 1)), y_full):
            tr, te = new[np.asarray(tr)], new[np.asarray(te)]
            folds.append((tr[tr >= 0], te[te >= 0]))
    if not stratified:
        return [(tr, te) for tr, te in folds if te.size and tr.size]
    n_classes = np.unique(target).shape[0]
    return [(tr, te) for tr, te in folds if te.size and np.unique(target[tr]).shape[0] == n_classes]


def out_of_fold(folds, fold_scores):
    """Out-of-fold outputs of every grid point, pooled over the folds.

    Parameters
    ----------
    folds : list of (train, test)
    fold_scores : callable
        ``fold_scores(train, test)`` returns the outputs (decision values or
        predictions) of the test bags for every grid point, shape
        (n_rows, n_cols, len(test)) or (n_rows, n_cols, len(test), n_classes).

    Returns
    -------
    rows : ndarray of int
        The scored bags, fold after fold (a bag appears once per repeat).
    scores : ndarray of shape (n_rows, n_cols, len(rows)[, n_classes])
    """
    rows, out = [], []
    for train, test in folds:
        out.append(fold_scores(train, test))
        rows.append(test)
    return np.concatenate(rows), np.concatenate(out, axis=2)


def _auc(scores, target, w):
    if scores.ndim == 1:
        return float(roc_auc_score(target, scores, sample_weight=w)) if 0 < target.sum() < target.size else 0.5
    aucs = [_auc(scores[:, k], (target == k).astype(np.intp), w) for k in range(scores.shape[1])]
    return float(np.mean(aucs))


_REGRESSION_METRICS = {"neg_mean_squared_error": lambda t, p, w: -mean_squared_error(t, p, sample_weight=w),
                       "neg_mean_absolute_error": lambda t, p, w: -mean_absolute_error(t, p, sample_weight=w),
                       "r2": lambda t, p, w: r2_score(t, p, sample_weight=w)}


def grid_scores(scores, target, weight=None, scoring="accuracy", intercept=False):
    """Each grid point's score from its out-of-fold outputs (see :mod:`mil._tuning`).

    Parameters
    ----------
    scores : ndarray of shape (n_rows, n_cols, n[, n_classes])
        Decision values (classification) or predictions (regression).
    target : ndarray of shape (n,)
        Class index (two classes: 1 for the class that scores > 0) or
        target value.
    weight : ndarray of shape (n,) or None
    scoring : str
        One of :data:`SCORINGS` or :data:`REGRESSION_SCORINGS`.
    intercept : bool
        Whether the model's cut and probabilities come from a Platt fit
        with an intercept (two classes).

    Returns
    -------
    values : ndarray of shape (n_rows, n_cols)
    """
    if scoring in _REGRESSION_METRICS:
        metric = _REGRESSION_METRICS[scoring]
        target = np.asarray(target, dtype=np.float64)
        return np.array([[metric(target, s, weight) for s in row] for row in scores], dtype=np.float64)
    target = np.asarray(target).astype(np.intp)
    w = np.ones(target.shape[0]) if weight is None else weight
    multi = scores.ndim == 4
    if scoring == "accuracy" and not intercept:
        pred = np.argmax(scores, axis=-1) if multi else (scores > 0).astype(np.intp)
        return ((pred == target) * w).sum(axis=-1) / w.sum()
    values = np.empty(scores.shape[:2])
    for i in np.ndindex(*values.shape):
        s = scores[i]
        if scoring == "roc_auc":
            values[i] = _auc(s, target, w)
            continue
        a, b = fit_sigmoid(s, target, w, intercept=intercept)
        if scoring == "accuracy":  # the cut of sigmoid(a s + b) at 1/2
            values[i] = float(w @ ((a * s + b > 0) == (target == 1))) / float(w.sum())
        else:
            values[i] = -log_loss_at(s, target, w, a, b)
    return values


def best_index(values):
    """The (row, col) index of the highest score; ties to the first column, then the first row."""
    n_rows, n_cols = values.shape
    order = np.lexsort((np.repeat(np.arange(n_rows), n_cols), np.tile(np.arange(n_cols), n_rows),
                        -values.ravel()))
    return divmod(int(order[0]), n_cols)


def select(folds, shape, fold_scores, target, weight=None, *, scoring="accuracy", intercept=False,
           untuned=None, calibrate=True):
    """Choose a grid point by inner CV and (classifiers) fit the probability scale at it.

    Parameters
    ----------
    folds : list of (train, test)
        From :func:`inner_folds`; empty: no inner fit.
    shape : (int, int)
        ``(n_rows, n_cols)``.
    fold_scores : callable
        See :func:`out_of_fold`.
    target : ndarray
        Class index of each bag (two classes: 1 = the class that scores > 0)
        or target value.
    weight : ndarray or None
    scoring : str, default="accuracy"
    intercept : bool, default=False
        Fit ``sigmoid(a f + b)`` (the cut moves to ``-b / a``).
    untuned : (int, int) or None
        The point without inner folds (default: the middle of each axis).
    calibrate : bool, default=True
        Fit the probability scale (False for a regressor).

    Returns
    -------
    selection : Bunch
        ``index`` (row, col), ``scores`` (shape `shape`, None without
        folds), ``scale`` (a), ``offset`` (b), ``cut`` (``-b / a``).
    """
    if not folds:
        index = untuned if untuned is not None else (shape[0] // 2, shape[1] // 2)
        return Bunch(index=index, scores=None, scale=1.0, offset=0.0, cut=0.0)
    rows, oof = out_of_fold(folds, fold_scores)
    t = np.asarray(target)[rows]
    w = None if weight is None else weight[rows]
    values = grid_scores(oof, t, w, scoring, intercept)
    p, c = best_index(values)
    if not calibrate:
        return Bunch(index=(p, c), scores=values, scale=1.0, offset=0.0, cut=0.0)
    w = np.ones(rows.shape[0]) if w is None else w
    a, b = fit_sigmoid(oof[p, c], t, w, intercept=intercept)
    return Bunch(index=(p, c), scores=values, scale=float(a), offset=float(b), cut=-float(b) / a if b else 0.0)
