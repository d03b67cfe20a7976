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

__all__ = ["BinomialLoss", "MultinomialLoss", "weighted_mean"]


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

    @staticmethod
    def gradients(S, Y):
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

    @staticmethod
    def gradients(S, Y):
        """Per class: ``p_c - y_c``, ``p_c (1 - p_c)`` and the tree label of a zero gradient."""
        P = softmax(S, axis=1)
        return [(P[:, c] - Y[:, c], P[:, c] * (1.0 - P[:, c]), Y[:, c] == 1) for c in range(Y.shape[1])]
