"""Bag scores pooled from instance scores, and their derivatives.

Each pooling maps the instance scores f_i of a bag to a bag score S (a
log-odds) and gives a_i = dS/df_i, the share of the bag score an instance
controls; the boosting loss only needs S and a. All three are computed with
``ufunc.reduceat`` over the bag offsets in pure NumPy, shared by both
backends, so the compiled and pure-Python paths stay identical.

Besides S and a = dS/df, :func:`pool` gives the pooling's curvature along a
leaf's direction (used by the Newton step of GDBT-MI).

- ``"max"``: S = max_i f_i; a_i = 1 for the first maximising instance of the
  bag, 0 for the others (a subgradient).
- ``"lse"``: S = (1/r) log(mean_i exp(r f_i)), a soft maximum of sharpness
  r (S -> max as r grows; S = f for a single instance; adding c to every
  f_i adds c to S); a = softmax(r f) within the bag.
- ``"noisy-or"``: instance probabilities p_i = sigmoid(f_i) and
  P(bag) = 1 - prod_i (1 - p_i); S = logit P(bag); a_i = p_i / P(bag).
- ``"mean"``: S = mean_i f_i; a_i = 1 / n (linear: no curvature of its own).
"""

import numpy as np
from scipy.special import expit

__all__ = ["pool", "POOLINGS"]

POOLINGS = ("max", "lse", "noisy-or", "mean")


def pool(f, offsets, method, sharpness=1.0, derivatives=False):
    """Bag scores, and optionally their derivatives wrt the instance scores.

    Parameters
    ----------
    f : ndarray of float64, shape (n_instances,)
        Instance scores, bag after bag.
    offsets : ndarray of intp, shape (n_bags + 1,)
        Bag b holds instances ``offsets[b]:offsets[b + 1]`` (all non-empty).
    method : {"max", "lse", "noisy-or", "mean"}
    sharpness : float
        r of the log-sum-exp pooling.
    derivatives : bool, default=False
        Also return `a`, `b` and `k`.

    Returns
    -------
    S : ndarray of float64, shape (n_bags,)
        Bag scores (log-odds of the bag being positive).
    a : ndarray of float64, shape (n_instances,)
        dS_b / df_i for every instance i of bag b (only with `derivatives`).
    b : ndarray of float64, shape (n_instances,)
    k : ndarray of float64, shape (n_bags,)
        The pooling's curvature: adding v to the scores of a subset L of
        bag b's instances gives d^2 S_b / dv^2 = B - k_b A^2 at v = 0, with
        A and B the sums of `a` and `b` over L (0 for the maximum).
    """
    starts = offsets[:-1]
    sizes = np.diff(offsets)
    if method == "max":
        S = np.maximum.reduceat(f, starts)
        if not derivatives:
            return S
        at_max = f == np.repeat(S, sizes)
        # Only the first maximiser of each bag gets the gradient.
        first = np.minimum.reduceat(np.where(at_max, np.arange(f.shape[0]), f.shape[0]), starts)
        a = np.zeros_like(f)
        a[first] = 1.0
        return S, a, np.zeros_like(f), np.zeros_like(S)
    if method == "lse":
        r = float(sharpness)
        m = np.maximum.reduceat(f, starts)
        e = np.exp(r * (f - np.repeat(m, sizes)))
        total = np.add.reduceat(e, starts)
        S = m + np.log(total / sizes) / r
        if not derivatives:
            return S
        a = e / np.repeat(total, sizes)
        # Variance of the subset's indicator under the softmax, times r.
        return S, a, r * a, np.full_like(S, r)
    if method == "noisy-or":
        # log P(all instances negative) = -sum softplus(f_i); kept below 0 so
        # that P(bag) > 0 even when every instance score is hugely negative.
        log_none = np.minimum(-np.add.reduceat(np.logaddexp(0.0, f), starts), -np.finfo(float).tiny)
        p_bag = -np.expm1(log_none)
        S = np.log(p_bag) - log_none
        if not derivatives:
            return S
        p = expit(f)
        pb = np.repeat(p_bag, sizes)
        a = p / pb
        return S, a, a * (1.0 - p), 1.0 - p_bag
    if method == "mean":
        S = np.add.reduceat(f, starts) / sizes
        if not derivatives:
            return S
        a = np.repeat(1.0 / sizes, sizes)
        return S, a, np.zeros_like(f), np.zeros_like(S)
    raise ValueError(f"unknown pooling {method!r}; expected one of {POOLINGS}")
