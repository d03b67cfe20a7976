"""Inner cross-validation on bags: choosing a grid point and fitting the probability scale.

The learners that tune hyper-parameters inside ``fit`` on precomputed
kernels or embeddings (:class:`~mil.embedding.MILESClassifier`,
:class:`~mil.embedding.MInDClassifier`, :class:`~mil.svm.BagKernelSVC`,
:class:`~mil.svm.miSVMClassifier`, :class:`~mil.svm.MISVMClassifier`) share
this module, so they follow one set of rules:

Zero weights
    :func:`positive_weight_bags` lists the bags with a positive weight; the
    learner drops the others before anything else (scaling, prototypes,
    folds, the SVM), so a zero-weight bag is exactly an absent bag and the
    model does not depend on where it stands. A class left without a
    positively weighted bag is a ValueError naming the class.
Inner folds (:func:`inner_folds`)
    ``cv=None`` is scikit-learn's default, 5 folds. An int k is k
    stratified, shuffled folds, reduced to the smallest class count,
    drawn ``repeats`` times with shuffles seeded from `random_state`;
    fewer than 2 (``cv=1``, or a class with one bag) means no inner fit.
    A splitter or an iterable of (train, test) pairs is used as given over
    all the bags of ``fit``, renumbered among the kept bags. Folds whose
    training part lacks a class are skipped.
Grid scores (:func:`grid_scores`)
    Each grid point is scored from its out-of-fold decision values, pooled
    over the folds (and repeats), weighted by the bags' weights:
    ``"accuracy"`` at the model's cut (0, or the fitted cut with
    ``intercept=True``; more than two classes: the argmax),
    ``"roc_auc"`` (two classes; more: the mean one-vs-rest AUC of the
    decision columns), ``"neg_log_loss"`` (minus the log loss of the
    probabilities :func:`fit_sigmoid` fits on those values).
Ties (:func:`best_index`)
    The grid is an array of shape (n_params, n_C): one row per kernel or
    embedding parameter (in the order the learner lists them), one column
    per C. The highest score wins; at equal scores the first C of the
    list (the smallest, in every default grid), then the first parameter
    (the smoothest kernel, in every default grid).
Without inner folds
    The middle of each grid axis (or the learner's ``untuned`` point), and
    the probability scale 1 with the cut at 0.
Probability scale (:func:`fit_sigmoid`)
    ``sigmoid(a f + b)`` (two classes; ``b = 0`` unless ``intercept``) or
    ``softmax(a F)`` (more), fitted by weighted log loss on the
    out-of-fold decision values at the chosen point, against Platt's
    smoothed targets (Platt 1999; as scikit-learn's
    ``CalibratedClassifierCV``), so the optimum is finite even on
    separable scores. The convex problem is solved by safeguarded Newton
    steps to rounding level, so decision values that agree to rounding
    (the compiled and pure-Python backends) give scales that agree to
    rounding too.

A new learner of this kind (a bag encoder with a linear SVM on top, an
approximate kernel) uses the module without copying::

    bags, y_enc, weight, keep, n = fit_inputs(self, X, y, sample_weight)   # zero weights dropped
    folds = inner_folds(cv, y_enc, random_state=rs, repeats=cv_repeats, keep=keep, n_total=n)

    def fold_scores(train, test):              # decision values of every grid point
        ...                                    # shape (n_params, n_C, len(test)[, n_classes])

    sel = select(folds, (n_params, n_C), fold_scores, y_enc, weight, scoring=scoring)
    p, c = sel.index                           # refit at params[p], Cs[c]
    proba = sigmoid_proba(f, sel.scale, sel.offset)   # in predict_proba

References
----------
J. Platt, "Probabilistic outputs for support vector machines and
comparisons to regularized likelihood methods", Advances in Large Margin
Classifiers, 1999.
"""

from numbers import Integral

import numpy as np
from scipy.special import expit, log_expit, log_softmax, softmax
from sklearn.utils import Bunch, check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from mil.utils.validation import shown

__all__ = ["CV_CONSTRAINT", "SCORINGS", "inner_cv_doc", "fit_inputs", "positive_weight_bags", "inner_folds", "out_of_fold",
           "grid_scores", "best_index", "select", "fit_sigmoid", "sigmoid_proba"]

#: What the inner CV can maximise.
SCORINGS = ("accuracy", "roc_auc", "neg_log_loss")
#: Parameter constraints shared by the learners: ``cv``, ``cv_repeats``, ``scoring``.
CV_CONSTRAINT = [Interval(Integral, 1, None, closed="left"), "cv_object", None]
REPEATS_CONSTRAINT = [Interval(Integral, 1, None, closed="left")]
SCORING_CONSTRAINT = [StrOptions(set(SCORINGS))]
#: The parameters every learner of this module shares, with their constraints.
CONSTRAINTS = {
    "cv": CV_CONSTRAINT,
    "cv_repeats": REPEATS_CONSTRAINT,
    "scoring": SCORING_CONSTRAINT,
    "class_weight": [StrOptions({"balanced"}), dict, None],
    "positive_class": "no_validation",
    "random_state": ["random_state"],
}
#: ``cv=None``: scikit-learn's default number of folds.
DEFAULT_FOLDS = 5
#: Bounds of the probability scale relative to 1 / the standard deviation of the scores.
_LOG_SCALE_BOUND = 10.0


def inner_cv_doc(cv, scoring=True):
    """Class decorator: the docstring's line ``[inner-cv parameters]`` becomes the shared
    description of `cv` (default `cv`), `cv_repeats` and, with `scoring`, `scoring`."""
    text = f"""    cv : int, cross-validation splitter, iterable or None, default={cv}
        Inner folds over the training bags, for the grid and the
        probability scale (:ref:`inner-cv`): an int is that many stratified
        folds shuffled by `random_state` (at most the smallest class count),
        None is 5 folds as in scikit-learn, a splitter or an iterable of
        (train, test) pairs is used as given; ``cv=1`` fits no inner model
        (the middle of each grid, probability scale 1).
    cv_repeats : int, default=1
        Shuffles of an int `cv`, pooled (less noise in the choice,
        proportionally more SVM fits).
"""
    if scoring:
        text += """    scoring : {"accuracy", "roc_auc", "neg_log_loss"}, default="accuracy"
        What the inner CV maximises, from each grid point's out-of-fold
        decision values (:ref:`inner-cv`).
"""

    def decorate(cls):
        cls.__doc__ = cls.__doc__.replace("    [inner-cv parameters]\n", text)
        return cls
    return decorate


def fit_inputs(est, X, y, sample_weight):
    """Validate a fit's inputs (``est._validate_fit``), weigh the bags and drop those of
    weight 0 (:func:`positive_weight_bags`).

    Returns
    -------
    bags, y_enc, weight, keep, n_total
        The kept bags, their class indices and weights (None: unweighted),
        their indices among the `n_total` bags given (None: all kept).
    """
    bags, y_enc = est._validate_fit(X, y)
    weight = est._bag_weights(sample_weight, y, bags.n_bags)
    n_total = bags.n_bags
    keep = positive_weight_bags(weight, y_enc, est.classes_)
    if keep is not None:
        bags, y_enc, weight = bags[keep], y_enc[keep], weight[keep]
    return bags, y_enc, weight, keep, n_total


def positive_weight_bags(weight, y_enc, classes):
    """Indices of the bags with a positive weight, or None when every bag has one.

    Parameters
    ----------
    weight : ndarray of shape (n_bags,) or None
    y_enc : ndarray of int
        Class index of each bag.
    classes : ndarray
        The learner's ``classes_`` (for the message).

    Returns
    -------
    keep : ndarray of int or None

    Raises
    ------
    ValueError
        When a class has no bag with a positive weight.
    """
    if weight is None or (weight > 0).all():
        return None
    keep = np.flatnonzero(weight > 0)
    missing = np.setdiff1d(np.arange(len(classes)), y_enc[keep])
    if missing.size:
        raise ValueError(f"class {shown(classes[missing[0]])} has no bag with a positive weight; the SVM needs a bag "
                         "of every class")
    return keep


def inner_folds(cv, target, *, random_state=None, repeats=1, keep=None, n_total=None):
    """The inner (train, test) folds over the bags, indices among the kept bags.

    Parameters
    ----------
    cv : int, cross-validation splitter, iterable of (train, test) or None
        None: :data:`DEFAULT_FOLDS`. An int: that many stratified shuffled
        folds, at most the smallest class count (below 2: no folds).
    target : ndarray of int
        Class index of each kept bag.
    random_state : int, RandomState or None
        Seeds the shuffles of an int `cv` (one seed drawn per repeat).
    repeats : int
        Shuffles of an int `cv`, pooled.
    keep : ndarray of int or None
        The kept bags among the `n_total` bags of ``fit``
        (:func:`positive_weight_bags`); a given splitter's indices refer to
        all of them and are renumbered.
    n_total : int or None

    Returns
    -------
    folds : list of (ndarray, ndarray)
        Folds whose training part holds every class; empty for no inner fit.
    """
    from sklearn.model_selection import StratifiedKFold, check_cv

    target = np.asarray(target)
    n = target.shape[0]
    if cv is None or isinstance(cv, Integral):
        counts = np.bincount(target)
        k = min(DEFAULT_FOLDS if cv is None else int(cv), int(counts[counts > 0].min()))
        if k < 2:
            return []
        rng = check_random_state(random_state)
        folds = []
        for _ in range(repeats):
            skf = StratifiedKFold(n_splits=k, shuffle=True, random_state=int(rng.randint(np.iinfo(np.int32).max)))
            folds += list(skf.split(np.zeros(n), target))
    elif keep is None:
        folds = [(np.asarray(tr), np.asarray(te))
                 for tr, te in check_cv(cv, target, classifier=True).split(np.zeros((n, 1)), target)]
    else:
        new = np.full(n_total, -1)
        new[keep] = np.arange(keep.shape[0])
        y_full = np.zeros(n_total, dtype=target.dtype)
        y_full[keep] = target
        folds = []
        for tr, te in check_cv(cv, y_full, classifier=True).split(np.zeros((n_total, 1)), y_full):
            tr, te = new[np.asarray(tr)], new[np.asarray(te)]
            folds.append((tr[tr >= 0], te[te >= 0]))
    n_classes = np.unique(target).shape[0]
    return [(tr, te) for tr, te in folds if te.size and np.unique(target[tr]).shape[0] == n_classes]


def out_of_fold(folds, fold_scores):
    """Out-of-fold decision values of every grid point, pooled over the folds.

    Parameters
    ----------
    folds : list of (train, test)
    fold_scores : callable
        ``fold_scores(train, test)`` returns the decision values of the
        test bags for every grid point, shape (n_params, n_C, len(test)) or
        (n_params, n_C, len(test), n_classes).

    Returns
    -------
    rows : ndarray of int
        The scored bags, fold after fold (a bag appears once per repeat).
    scores : ndarray of shape (n_params, n_C, len(rows)[, n_classes])
    """
    rows, out = [], []
    for train, test in folds:
        out.append(fold_scores(train, test))
        rows.append(test)
    return np.concatenate(rows), np.concatenate(out, axis=2)


def _platt_targets(target, w, n_classes):
    """Platt's smoothed targets: (N+ + 1) / (N+ + 2) and 1 / (N- + 2) (weights as counts);
    more classes: 1 - eps + eps / k on the class and eps / k elsewhere, eps = 1 / (n + 2)."""
    if n_classes == 2:
        n_pos, n_neg = w[target == 1].sum(), w[target == 0].sum()
        return np.where(target == 1, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    eps = 1.0 / (target.shape[0] + 2.0)
    T = np.full((target.shape[0], n_classes), eps / n_classes)
    T[np.arange(target.shape[0]), target] += 1.0 - eps
    return T


def _root(grad, lo, hi, x0):
    """The root of the increasing function `grad` (returning value and derivative) in [lo, hi],
    by Newton steps kept inside a shrinking bracket (bisection when a step leaves it)."""
    g_lo, g_hi = grad(lo)[0], grad(hi)[0]
    if g_lo >= 0:
        return lo
    if g_hi <= 0:
        return hi
    x = min(max(x0, lo), hi)
    for _ in range(200):
        g, h = grad(x)
        if g == 0:
            return x
        if g < 0:
            lo = x
        else:
            hi = x
        step = g / h if h > 0 else np.inf
        new = x - step
        if not lo < new < hi:
            new = 0.5 * (lo + hi)
        if abs(new - x) <= 4 * np.finfo(np.float64).eps * abs(x) or not lo < new < hi:
            return new
        x = new
    return x


def fit_sigmoid(scores, target, weight=None, intercept=False):
    """The probability scale of decision values, by weighted log loss on Platt's targets.

    Parameters
    ----------
    scores : ndarray of shape (n,) or (n, n_classes)
        Decision values (two classes: > 0 favours class 1).
    target : ndarray of shape (n,)
        Two classes: 1 (or True) for class 1; more: the class index.
    weight : ndarray of shape (n,) or None
    intercept : bool, default=False
        Two classes only: also fit ``b`` in ``sigmoid(a f + b)`` (Platt
        scaling); else ``b = 0``, so the probability and the decision
        value agree on the class.

    Returns
    -------
    a, b : float
        ``a > 0`` (between e^-10 and e^10 over the scores' standard
        deviation); ``(1, 0)`` for constant scores.

    Examples
    --------
    >>> import numpy as np
    >>> from mil._tuning import fit_sigmoid
    >>> a, b = fit_sigmoid(np.array([-2.0, -1.0, 0.5, 1.0, 2.0]), np.array([0, 0, 0, 1, 1]))
    >>> bool(a > 0), b
    (True, 0.0)
    """
    scores = np.asarray(scores, dtype=np.float64)
    target = np.asarray(target).astype(np.intp)
    w = np.ones(target.shape[0]) if weight is None else np.asarray(weight, dtype=np.float64)
    multi = scores.ndim == 2
    if multi and intercept:
        raise ValueError("an intercept is fitted for two classes only")
    sd = float(np.std(scores))
    if not sd > 0 or not np.isfinite(sd):
        return 1.0, 0.0
    x = scores / sd
    lo, hi = np.exp(-_LOG_SCALE_BOUND), np.exp(_LOG_SCALE_BOUND)
    if multi:
        T = _platt_targets(target, w, scores.shape[1])
        tx = np.sum(T * x, axis=1)

        def grad(a):
            p = softmax(a * x, axis=1)
            mean = np.sum(p * x, axis=1)
            var = np.sum(p * x * x, axis=1) - mean * mean
            return float(w @ (mean - tx)), float(w @ np.maximum(var, 0.0))

        return _root(grad, lo, hi, 1.0) / sd, 0.0
    t = _platt_targets(target, w, 2)

    def grad_b(a, b):
        p = expit(a * x + b)
        return float(w @ (p - t)), float(w @ (p * (1.0 - p)))

    if not intercept:
        def grad(a):
            p = expit(a * x)
            return float(w @ (x * (p - t))), float(w @ (x * x * p * (1.0 - p)))

        return _root(grad, lo, hi, 1.0) / sd, 0.0
    a, b = _newton_2d(x, t, w)
    if not lo <= a <= hi:  # the scores do not order the classes (or order them perfectly)
        a = min(max(a, lo), hi)
        b = _root(lambda v: grad_b(a, v), -50.0, 50.0, b)
    return a / sd, float(b)


def _newton_2d(x, t, w):
    """(a, b) minimising the weighted log loss of sigmoid(a x + b) against targets `t`
    (Newton steps with backtracking; the problem is convex)."""

    def loss(a, b):
        z = a * x + b
        return float(w @ (t * np.logaddexp(0.0, -z) + (1.0 - t) * np.logaddexp(0.0, z)))

    prior = float(w @ t) / float(w.sum())
    a, b = 1.0, float(np.log(prior / (1.0 - prior)))
    current = loss(a, b)
    for _ in range(200):
        p = expit(a * x + b)
        r, s = p - t, p * (1.0 - p)
        g = np.array([w @ (x * r), w @ r])
        H = np.array([[w @ (x * x * s), w @ (x * s)], [w @ (x * s), w @ s]])
        try:
            step = np.linalg.solve(H, g)
        except np.linalg.LinAlgError:
            break
        if not np.isfinite(step).all():
            break
        size = 1.0
        while size > 1e-12:
            na, nb = a - size * step[0], b - size * step[1]
            new = loss(na, nb)
            if new <= current:
                break
            size *= 0.5
        else:
            break
        done = abs(na - a) <= 4 * np.finfo(np.float64).eps * max(abs(a), 1.0) and \
            abs(nb - b) <= 4 * np.finfo(np.float64).eps * max(abs(b), 1.0)
        a, b, current = na, nb, new
        if done:
            break
    return a, b


def sigmoid_proba(scores, a, b=0.0):
    """Probabilities from decision values: ``sigmoid(a f + b)`` (1-D) or ``softmax(a F)`` (2-D).

    Two classes: the probability of class 1 (the learner places it in its
    columns and settles exact ties).
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim == 1:
        return expit(a * scores + b)
    return softmax(a * scores, axis=1)


def _log_loss(scores, target, w, a, b):
    if scores.ndim == 1:
        return -float(w @ log_expit(np.where(target == 1, 1.0, -1.0) * (a * scores + b))) / float(w.sum())
    return -float(w @ log_softmax(a * scores, axis=1)[np.arange(target.shape[0]), target]) / float(w.sum())


def _auc(scores, target, w):
    from sklearn.metrics import roc_auc_score

    if scores.ndim == 1:
        return float(roc_auc_score(target, scores, sample_weight=w)) if 0 < target.sum() < target.size else 0.5
    aucs = [_auc(scores[:, k], (target == k).astype(np.intp), w) for k in range(scores.shape[1])]
    return float(np.mean(aucs))


def grid_scores(scores, target, weight=None, scoring="accuracy", intercept=False):
    """Each grid point's score from its out-of-fold decision values (see the module notes).

    Parameters
    ----------
    scores : ndarray of shape (n_params, n_C, n[, n_classes])
    target : ndarray of shape (n,)
    weight : ndarray of shape (n,) or None
    scoring : {"accuracy", "roc_auc", "neg_log_loss"}
    intercept : bool
        Whether the model's cut and probabilities come from a Platt fit
        with an intercept (two classes).

    Returns
    -------
    values : ndarray of shape (n_params, n_C)
    """
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
            values[i] = -_log_loss(s, target, w, a, b)
    return values


def best_index(values):
    """The (param, C) index of the highest score; ties to the first C, then the first param."""
    n_params, n_C = values.shape
    order = np.lexsort((np.repeat(np.arange(n_params), n_C), np.tile(np.arange(n_C), n_params),
                        -values.ravel()))
    return divmod(int(order[0]), n_C)


def select(folds, shape, fold_scores, target, weight=None, *, scoring="accuracy", intercept=False,
           untuned=None):
    """Choose a grid point by inner CV and fit the probability scale at it.

    Parameters
    ----------
    folds : list of (train, test)
        From :func:`inner_folds`; empty: no inner fit.
    shape : (int, int)
        ``(n_params, n_C)``.
    fold_scores : callable
        See :func:`out_of_fold`.
    target : ndarray of int
        Class index of each bag (two classes: 1 = the class that scores > 0).
    weight : ndarray or None
    scoring : {"accuracy", "roc_auc", "neg_log_loss"}, default="accuracy"
    intercept : bool, default=False
        Fit ``sigmoid(a f + b)`` (the cut moves to ``-b / a``).
    untuned : (int, int) or None
        The point without inner folds (default: the middle of each axis).

    Returns
    -------
    selection : Bunch
        ``index`` (param, C), ``scores`` (shape `shape`, None without
        folds), ``scale`` (a), ``offset`` (b), ``cut`` (``-b / a``).
    """
    if not folds:
        index = untuned if untuned is not None else (shape[0] // 2, shape[1] // 2)
        return Bunch(index=index, scores=None, scale=1.0, offset=0.0, cut=0.0)
    rows, oof = out_of_fold(folds, fold_scores)
    t = np.asarray(target)[rows]
    w = np.ones(rows.shape[0]) if weight is None else weight[rows]
    values = grid_scores(oof, t, w, scoring, intercept)
    p, c = best_index(values)
    a, b = fit_sigmoid(oof[p, c], t, w, intercept=intercept)
    return Bunch(index=(p, c), scores=values, scale=float(a), offset=float(b), cut=-float(b) / a if b else 0.0)


class CalibratedScoresMixin:
    """``decision_function`` and ``predict_proba`` of a learner tuned by this module.

    The learner defines ``_decision(bags)``: its raw decision values on
    validated, scaled bags (two classes: 1-D, > 0 for the positive class,
    already less any fitted cut; more: one column per class), and stores
    ``proba_scale_`` from :func:`select`. Scaling is
    :func:`mil.preprocessing._fit_scaled`'s.
    """

    def _scaled(self, X):
        from mil.preprocessing import _scaled_as_fitted

        return _scaled_as_fitted(self, self._validate_predict(X))

    def decision_function(self, X):
        """Decision values of the fitted SVM.

        Returns
        -------
        scores : ndarray of shape (n_bags,) or (n_bags, n_classes)
            Two classes: the score of ``classes_[1]`` (> 0 favours it; an
            exact 0 counts as the negative class). More: one column per
            class (one-vs-rest).
        """
        s = self._decision(self._scaled(X))
        return self._oriented(s) if s.ndim == 1 else s

    def predict_proba(self, X):
        """Class probabilities: ``sigmoid(a f)`` or ``softmax(a F)`` of the decision values.

        The scale ``a = proba_scale_`` was fitted by log loss on the inner
        cross-validation's out-of-fold decision values at the chosen
        hyper-parameters (1 without inner folds), so the argmax is the
        class of the decision value.

        Returns
        -------
        proba : ndarray of shape (n_bags, n_classes)
            Columns follow ``classes_``; a decision value of exactly 0 goes
            to the negative class.
        """
        s = self._decision(self._scaled(X))
        p = sigmoid_proba(s, self.proba_scale_)
        return self._proba_from_positive(p, positive=s > 0) if s.ndim == 1 else p
