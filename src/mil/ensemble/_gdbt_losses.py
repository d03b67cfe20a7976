"""Bag-level losses of GDBT-MI: what a boosting round asks of its loss.

A loss sees the bag scores ``S`` (one row per bag, one column per score:
one for two classes or a regression, one per class for more classes) and
the encoded targets ``Y`` (the same shape). It gives its value, the constant
score that minimises it, and per score column the gradient and the
curvature with respect to the bag score, from which a round grows a tree
(on the sign and size of the negative gradient) and sets its leaf values.

Sums over bags are exact (:func:`math.fsum`), so the value of a loss does
not depend on the order of the bags.
"""

import math

import numpy as np
from scipy.special import expit, log_softmax, logit, softmax

__all__ = ["AbsoluteLoss", "BinomialLoss", "HuberLoss", "MultinomialLoss", "RegressionLoss", "SquaredLoss",
           "kept_pairs", "weighted_mean", "weighted_median"]


def weighted_mean(v, w):
    """Mean of `v`, weighted by the bag weights `w` (None: unweighted), summed exactly (in any order)."""
    return math.fsum(v) / v.shape[0] if w is None else math.fsum(w * v) / math.fsum(w)


class BinomialLoss:
    """The bag log-loss of two classes; the score is the log-odds of the positive class."""

    n_scores = 1
    #: Leaf values are the Newton step times this.
    leaf_scale = 1.0

    @staticmethod
    def encode(y_enc):
        """0/1 targets (1 for the positive class) as one column."""
        return (y_enc == 1).astype(np.float64)[:, None]

    @staticmethod
    def constant(Y, w):
        """The best constant score: the log-odds of the (weighted) positive share."""
        return np.array([float(logit(np.clip(weighted_mean(Y[:, 0], w), 1e-12, 1 - 1e-12)))])

    @staticmethod
    def __call__(S, Y, w=None):
        """Mean binomial log-loss of the bag scores."""
        return weighted_mean(np.logaddexp(0.0, S[:, 0]) - Y[:, 0] * S[:, 0], w)

    leaf_values = None  # the Newton step

    @staticmethod
    def gradients(S, Y, w=None):
        """Per score column: the gradient, the curvature and the tree label of a zero gradient.

        Returns
        -------
        list of (grad, hess, label_at_zero)
            ``grad = p - y``, ``hess = p (1 - p)``; a bag whose gradient
            underflowed to 0 keeps its class as its tree label.
        """
        p = expit(S[:, 0])
        return [(p - Y[:, 0], p * (1.0 - p), Y[:, 0] == 1)]


class MultinomialLoss:
    """The bag cross-entropy of K classes; one score per class, probabilities their softmax.

    Friedman's K-class gradient boosting: every class's gradient is taken
    at the scores before the round and its leaf values are scaled by
    (K - 1) / K.
    """

    def __init__(self, n_classes):
        self.n_scores = n_classes
        self.leaf_scale = (n_classes - 1) / n_classes

    def encode(self, y_enc):
        """One-hot targets."""
        return np.eye(self.n_scores)[y_enc]

    def constant(self, Y, w):
        """The best constant scores: the log of each class's (weighted) share."""
        share = np.array([weighted_mean(Y[:, c], w) for c in range(Y.shape[1])])
        return np.log(np.maximum(share, 1e-12))

    @staticmethod
    def __call__(S, Y, w=None):
        """Mean cross-entropy of the bag scores."""
        return -weighted_mean(np.sum(Y * log_softmax(S, axis=1), axis=1), w)

    leaf_values = None  # the Newton step

    @staticmethod
    def gradients(S, Y, w=None):
        """Per class: ``p_c - y_c``, ``p_c (1 - p_c)`` and the tree label of a zero gradient."""
        P = softmax(S, axis=1)
        return [(P[:, c] - Y[:, c], P[:, c] * (1.0 - P[:, c]), Y[:, c] == 1) for c in range(Y.shape[1])]


def weighted_median(v, w=None):
    """The lower weighted median of `v` (weights `w`, None: equal): the least v whose weight share reaches 1/2."""
    order = np.argsort(v, kind="stable")
    cum = np.cumsum(np.ones(v.shape[0]) if w is None else w[order])
    return float(v[order][np.searchsorted(cum, 0.5 * cum[-1])])


def _leaf_medians(pair_leaf, values, weight, n_nodes):
    """Per leaf, the lower weighted median of its pairs' `values` (0 for a leaf without pairs)."""
    out = np.zeros(n_nodes)
    order = np.lexsort((values, pair_leaf))
    leaf, v, w = pair_leaf[order], values[order], weight[order]
    starts = np.flatnonzero(np.r_[True, leaf[1:] != leaf[:-1]])
    ends = np.r_[starts[1:], leaf.shape[0]]
    cum = np.cumsum(w)
    for lo, hi in zip(starts, ends):
        base = cum[lo - 1] if lo else 0.0
        k = lo + int(np.searchsorted(cum[lo:hi] - base, 0.5 * (cum[hi - 1] - base)))
        out[leaf[lo]] = v[min(k, hi - 1)]
    return out


class RegressionLoss:
    """What the regression losses share: one score column, the prediction itself, and unscaled leaves.

    The initial constant is the (weighted) median of the targets: the best
    constant of the absolute error, and scikit-learn's start for Huber's
    loss; the squared error overrides it with the mean.
    """

    n_scores = 1
    leaf_scale = 1.0

    @staticmethod
    def encode(y):
        """The real targets as the one column of scores they are compared with."""
        return np.asarray(y, dtype=np.float64)[:, None]

    @staticmethod
    def constant(Y, w):
        """The initial constant: the (weighted) median."""
        return np.array([weighted_median(Y[:, 0], w)])


def kept_pairs(pair_bag, pair_leaf, A, w):
    """The (bag, leaf) pairs of positive weight ``A w_b`` and those weights (a weight-0 bag moves no leaf)."""
    weight = A if w is None else A * w[pair_bag]
    keep = weight > 0
    return pair_bag[keep], pair_leaf[keep], weight[keep]


class SquaredLoss(RegressionLoss):
    """Squared error of the bag scores: the score is the prediction.

    The reported value is the mean squared error; the gradients are those of
    half of it, ``S - y`` with unit curvature, so a leaf's Newton step is the
    (pooling-weighted) mean residual of its bags.
    """

    @staticmethod
    def constant(Y, w):
        """The best constant: the (weighted) mean."""
        return np.array([weighted_mean(Y[:, 0], w)])

    @staticmethod
    def __call__(S, Y, w=None):
        """Mean squared error."""
        return weighted_mean((S[:, 0] - Y[:, 0]) ** 2, w)

    @staticmethod
    def gradients(S, Y, w=None):
        """The gradient ``S - y``, unit curvature, and no tie label."""
        residual = S[:, 0] - Y[:, 0]
        return [(residual, np.ones_like(residual), np.zeros(residual.shape[0], dtype=bool))]

    leaf_values = None  # the Newton step


class AbsoluteLoss(RegressionLoss):
    """Absolute error of the bag scores; trees on the residuals' signs, leaves at a weighted median.

    A leaf's value is the median of the residuals r_b = y_b - S_b of the
    bags it holds instances of, each weighted by w_b A_bl, the share of bag
    b's score the leaf moves (A_bl = 1 for bag-ratio trees and for a bag
    whose instances all reach the leaf): the median of the leaf's residuals
    of ordinary least-absolute-deviation boosting, where every bag is one
    instance. A bag of which the leaf holds a share A moves by A times the
    value, never past its residual's median.
    """

    @staticmethod
    def __call__(S, Y, w=None):
        """Mean absolute error."""
        return weighted_mean(np.abs(S[:, 0] - Y[:, 0]), w)

    @staticmethod
    def gradients(S, Y, w=None):
        """The gradient ``sign(S - y)``; the leaves come from :meth:`leaf_values`."""
        sign = np.sign(S[:, 0] - Y[:, 0])
        return [(sign, np.zeros_like(sign), np.zeros(sign.shape[0], dtype=bool))]

    @staticmethod
    def leaf_values(pair_bag, pair_leaf, A, residual, w, n_nodes):
        """Per leaf, the median of its bags' residuals weighted by their shares (see the class)."""
        pair_bag, pair_leaf, weight = kept_pairs(pair_bag, pair_leaf, A, w)
        return _leaf_medians(pair_leaf, residual[pair_bag], weight, n_nodes)


class HuberLoss(RegressionLoss):
    """Huber's loss of the bag scores: squared within `delta` of the target, absolute beyond.

    As scikit-learn's ``GradientBoostingRegressor(loss="huber")``: each
    round, delta is the `alpha` quantile of the absolute residuals (weighted
    by the bag weights); the trees are grown on the clipped residuals, and a
    leaf's value is the weighted median m of its bags' residuals (weights
    w_b A_bl, as :class:`AbsoluteLoss`) plus the weighted mean of their
    deviations from m clipped to [-delta, delta].
    """

    def __init__(self, alpha=0.9):
        self.alpha = alpha
        self.delta = None

    def _delta(self, r, w):
        order = np.argsort(np.abs(r), kind="stable")
        cum = np.cumsum(np.ones(r.shape[0]) if w is None else w[order])
        return float(np.abs(r)[order][min(np.searchsorted(cum, self.alpha * cum[-1]), r.shape[0] - 1)])

    def __call__(self, S, Y, w=None):
        """Mean Huber loss at the last round's delta (at the alpha quantile of the residuals before one)."""
        r = Y[:, 0] - S[:, 0]
        delta = self._delta(r, w) if self.delta is None else self.delta
        a = np.abs(r)
        return weighted_mean(np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta)), w)

    def gradients(self, S, Y, w=None):
        """The clipped residual (negated) at this round's delta; the leaves come from :meth:`leaf_values`."""
        r = Y[:, 0] - S[:, 0]
        self.delta = self._delta(r, w)
        g = -np.clip(r, -self.delta, self.delta)
        return [(g, (np.abs(r) <= self.delta).astype(np.float64), np.zeros(r.shape[0], dtype=bool))]

    def leaf_values(self, pair_bag, pair_leaf, A, residual, w, n_nodes):
        """Per leaf, the weighted median of its bags' residuals, plus their clipped mean deviation from it."""
        pair_bag, pair_leaf, weight = kept_pairs(pair_bag, pair_leaf, A, w)
        v = residual[pair_bag]
        median = _leaf_medians(pair_leaf, v, weight, n_nodes)
        dev = np.clip(v - median[pair_leaf], -self.delta, self.delta)
        total = np.bincount(pair_leaf, weights=weight, minlength=n_nodes)
        shift = np.bincount(pair_leaf, weights=weight * dev, minlength=n_nodes)
        return median + np.where(total > 0, shift / np.where(total > 0, total, 1.0), 0.0)
