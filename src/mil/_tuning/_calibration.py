"""The probability scale of out-of-fold decision values (Platt 1999, without or with an intercept).

``sigmoid(a f + b)`` (two classes; ``b = 0`` unless an intercept is asked
for) or ``softmax(a F)`` (more), fitted by weighted log loss against
Platt's smoothed targets, as scikit-learn's ``CalibratedClassifierCV``
does, so the optimum is finite even on separable scores. The convex problem
is solved by safeguarded Newton steps to rounding level, so decision values
that agree to rounding (the compiled and pure-Python backends) give scales
that agree to rounding too.

References
----------
J. Platt, "Probabilistic outputs for support vector machines and
comparisons to regularized likelihood methods", Advances in Large Margin
Classifiers, 1999.
"""

import numpy as np
from scipy.special import expit, log_expit, log_softmax, softmax

__all__ = ["fit_sigmoid", "sigmoid_proba", "log_loss_at"]

#: Bounds of the probability scale relative to 1 / the standard deviation of the scores.
_LOG_SCALE_BOUND = 10.0


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


def log_loss_at(scores, target, w, a, b):
    """The weighted mean log loss of ``sigmoid(a s + b)`` (1-D scores) or ``softmax(a S)``."""
    if scores.ndim == 1:
        return -float(w @ log_expit(np.where(target == 1, 1.0, -1.0) * (a * scores + b))) / float(w.sum())
    return -float(w @ log_softmax(a * scores, axis=1)[np.arange(target.shape[0]), target]) / float(w.sum())
