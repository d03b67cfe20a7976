"""Bag-ratio split rules: the NumPy twin of ``_bag_shares.pyx``.

Vectorised over a feature's thresholds: a comparison matrix of the node's
instances against all thresholds, summed per bag with ``np.add.reduceat``
(integer counts, exact). Class weights are summed with ``np.cumsum`` in bag
order, as the compiled loop adds them, and ``x log2 x`` goes through
``math.log2`` (the C library's ``log2``, as in the compiled kernel; NumPy's
vectorised ``log2`` may differ in the last bit), so both build identical
trees. The argument checks of both twins live here.
"""

import math

import numpy as np

from mil._core._checks import as_array, check_int, check_offsets

__all__ = ["ShareTable", "bag_shares", "best_rule", "best_regression_rule", "apply_bags"]


# -- argument checks (shared with the compiled module) -------------------------

class ShareTable:
    """A training instance table checked once for the node searches of a fit.

    :func:`best_rule` runs at every node of every tree; checking the whole
    table there would cost O(n_bags) per node. The table is checked here
    instead (both backends accept it), and each call checks only the node's
    own arguments.

    Parameters
    ----------
    XT : ndarray of float64, shape (n_features, n_instances)
        Instances, feature-major.
    offsets : ndarray of intp, shape (n_bags + 1,)
        Bag b owns instances ``offsets[b]:offsets[b + 1]`` (non-empty).
    """

    __slots__ = ("XT", "offsets")

    def __init__(self, XT, offsets):
        self.XT = as_array(XT, "XT", np.float64, 2)
        self.offsets = check_offsets(offsets, self.XT.shape[1])

    @property
    def n_bags(self):
        return self.offsets.shape[0] - 1


def _check_index(values, high, name, what):
    if values.size and (values.min() < 0 or values.max() >= high):
        raise ValueError(f"{name} must hold {what} indices in [0, {high}); got values in "
                         f"[{values.min()}, {values.max()}]")


def shares_args(col, offsets, bags, theta):
    """Checked arguments of :func:`bag_shares`."""
    col = as_array(col, "col", np.float64, 1)
    offsets = check_offsets(offsets, col.shape[0])
    bags = as_array(bags, "bags", np.intp, 1)
    _check_index(bags, offsets.shape[0] - 1, "bags", "bag")
    return col, offsets, bags, float(theta)


def rule_args(table, bags, bag_class, bag_weight, n_classes, features, u_theta, u_ratio, min_bags):
    """Checked arguments of :func:`best_rule` (the table was checked when it was made)."""
    if not isinstance(table, ShareTable):
        raise TypeError(f"table must be a ShareTable; got {type(table).__name__}")
    XT = table.XT
    bags = as_array(bags, "bags", np.intp, 1)
    _check_index(bags, table.n_bags, "bags", "bag")
    n = bags.shape[0]
    check_int(n_classes, "n_classes", minimum=1)
    check_int(min_bags, "min_bags", minimum=1)
    bag_class = as_array(bag_class, "bag_class", np.intp, 1)
    bag_weight = as_array(bag_weight, "bag_weight", np.float64, 1)
    if bag_class.shape[0] != n or bag_weight.shape[0] != n:
        raise ValueError(f"bag_class and bag_weight need one entry per node bag ({n}); got "
                         f"{bag_class.shape[0]} and {bag_weight.shape[0]}")
    _check_index(bag_class, n_classes, "bag_class", "class")
    if n and not (bag_weight > 0).all():
        raise ValueError("bag_weight must be positive and finite")
    features = as_array(features, "features", np.intp, 1)
    _check_index(features, XT.shape[0], "features", "feature")
    u_theta = as_array(u_theta, "u_theta", np.float64, 2)
    u_ratio = as_array(u_ratio, "u_ratio", np.float64, 2)
    if u_theta.shape != u_ratio.shape or u_theta.shape[0] != features.shape[0]:
        raise ValueError(f"u_theta and u_ratio must both have shape (n_feat, n_rules) with n_feat = "
                         f"{features.shape[0]}; got {u_theta.shape} and {u_ratio.shape}")
    return bags, bag_class, bag_weight, features, u_theta, u_ratio


def regression_rule_args(table, bags, bag_target, bag_weight, features, u_theta, u_ratio, min_bags):
    """Checked arguments of :func:`best_regression_rule`."""
    bags, _, bag_weight, features, u_theta, u_ratio = rule_args(
        table, bags, np.zeros(np.shape(bags)[0] if np.ndim(bags) == 1 else 0, dtype=np.intp), bag_weight, 1,
        features, u_theta, u_ratio, min_bags)
    bag_target = as_array(bag_target, "bag_target", np.float64, 1)
    if bag_target.shape[0] != bags.shape[0]:
        raise ValueError(f"bag_target needs one entry per node bag ({bags.shape[0]}); got {bag_target.shape[0]}")
    if not np.isfinite(bag_target).all():
        raise ValueError("bag_target must be finite")
    return bags, bag_target, bag_weight, features, u_theta, u_ratio


def apply_args(X, offsets, feature, threshold, ratio, left, right):
    """Checked arguments of :func:`apply_bags`."""
    X = as_array(X, "X", np.float64, 2)
    offsets = check_offsets(offsets, X.shape[0])
    feature = as_array(feature, "feature", np.intp, 1)
    threshold = as_array(threshold, "threshold", np.float64, 1)
    ratio = as_array(ratio, "ratio", np.float64, 1)
    left = as_array(left, "left", np.intp, 1)
    right = as_array(right, "right", np.intp, 1)
    m = feature.shape[0]
    if m == 0 or any(a.shape[0] != m for a in (threshold, ratio, left, right)):
        raise ValueError("feature, threshold, ratio, left and right must have the same length >= 1")
    inner = left >= 0
    _check_index(feature[inner], X.shape[1], "feature", "feature")
    # Children come after their parent, so every walk ends at a leaf.
    nodes = np.arange(m)
    if ((left[inner] <= nodes[inner]) | (left[inner] >= m) | (right[inner] <= nodes[inner])
            | (right[inner] >= m)).any():
        raise ValueError("left and right must name later nodes (or -1 for a leaf)")
    return X, offsets, feature, threshold, ratio, left, right


# -- the kernel ------------------------------------------------------------------

def _xlogx(x):
    """x * log2(x) elementwise (0 for x <= 0), with the C library's log2."""
    u = np.asarray(x, dtype=np.float64).ravel()
    return np.array([v * math.log2(v) if v > 0.0 else 0.0 for v in u.tolist()],
                    dtype=np.float64).reshape(np.shape(x))


def _mass(w):
    """X(W) - sum_c X(w_c) per row of `w` (n, n_classes), W summed in class order."""
    total = np.zeros(w.shape[0])
    for c in range(w.shape[1]):
        total = total + w[:, c]
    m = _xlogx(total)
    for c in range(w.shape[1]):
        m = m - _xlogx(w[:, c])
    return m


def _sse(w):
    """S2 - S1^2 / W per row of the sums `w` (n, 3) of (w, w y, w y^2); 0 where W is 0."""
    ok = w[:, 0] > 0.0
    return np.where(ok, w[:, 2] - w[:, 1] * w[:, 1] / np.where(ok, w[:, 0], 1.0), 0.0)


def _stat_sums(mask, stats):
    """Per column of `mask` (n_bags, k): the rows of `stats` (n_bags, m) of the masked bags, summed in bag order."""
    out = np.empty((mask.shape[1], stats.shape[1]))
    for c in range(stats.shape[1]):
        w = np.where(mask, stats[:, c][:, None], 0.0)
        out[:, c] = np.cumsum(w, axis=0)[-1] if w.shape[0] else 0.0
    return out


def _node_instances(offsets, bags):
    """The node's instance indices (bag by bag) and the start of each bag among them."""
    sizes = offsets[bags + 1] - offsets[bags]
    starts = np.cumsum(sizes) - sizes
    inst = np.repeat(offsets[bags] - starts, sizes) + np.arange(sizes.sum())
    return inst, starts, sizes


def bag_shares(col, offsets, bags, theta):
    """Share of each bag's instances with ``col <= theta`` (see the compiled twin)."""
    col, offsets, bags, theta = shares_args(col, offsets, bags, theta)
    if not bags.size:
        return np.empty(0)
    inst, starts, sizes = _node_instances(offsets, bags)
    counts = np.add.reduceat((col[inst] <= theta).astype(np.intp), starts)
    return counts / sizes.astype(np.float64)


def best_rule(table, bags, bag_class, bag_weight, n_classes, features, u_theta, u_ratio,
              best_ratio=False, min_bags=1):
    """The best of a node's random bag-ratio rules (see the compiled twin)."""
    bags, bag_class, bag_weight, features, u_theta, u_ratio = rule_args(
        table, bags, bag_class, bag_weight, n_classes, features, u_theta, u_ratio, min_bags)
    stats = np.zeros((bags.shape[0], n_classes))
    stats[np.arange(bags.shape[0]), bag_class] = bag_weight
    return _search(table, bags, stats, _mass, features, u_theta, u_ratio, best_ratio, min_bags)


def best_regression_rule(table, bags, bag_target, bag_weight, features, u_theta, u_ratio, best_ratio=False,
                         min_bags=1):
    """The best of a node's random bag-ratio rules for real-valued targets (see the compiled twin)."""
    bags, bag_target, bag_weight, features, u_theta, u_ratio = regression_rule_args(
        table, bags, bag_target, bag_weight, features, u_theta, u_ratio, min_bags)
    wy = bag_weight * bag_target
    stats = np.column_stack([bag_weight, wy, wy * bag_target])
    return _search(table, bags, stats, _sse, features, u_theta, u_ratio, best_ratio, min_bags)


def _search(table, bags, stats, impurity, features, u_theta, u_ratio, best_ratio, min_bags):
    # `stats` (n, m): what a bag adds to its side's sums (its weight in its class's column, or its
    # w, w y, w y^2); `impurity` of a row of sums. Sums follow the compiled loop's order.
    XT, offsets = table.XT, table.offsets
    n, n_rules = bags.shape[0], u_theta.shape[1]
    if n < 2 or features.shape[0] == 0 or n_rules == 0:
        return None
    inst, starts, sizes = _node_instances(offsets, bags)
    sizes = sizes.astype(np.float64)
    total = _stat_sums(np.ones((n, 1), dtype=bool), stats)[0]
    left_sums, rules = [], []
    for a, f in enumerate(features.tolist()):
        vals = XT[f, inst]
        observed = vals[~np.isnan(vals)]
        if not observed.size:
            continue
        lo, hi = observed.min(), observed.max()
        if not hi > lo:
            continue
        theta = lo + u_theta[a] * (hi - lo)
        counts = np.add.reduceat((vals[:, None] <= theta[None, :]).astype(np.intp), starts, axis=0)
        shares = counts / sizes[:, None]
        if not best_ratio:
            left = shares > u_ratio[a][None, :]
            n_left, wl, th, r = left.sum(axis=0), _stat_sums(left, stats), theta, u_ratio[a]
        else:
            # Every rule at once: each column of shares in decreasing order (ties by bag order, a
            # stable sort), the running sums of `stats` down each column, and a cut wherever the
            # share drops. Candidates come rule by rule, cuts in increasing order, as the
            # compiled loop visits them (the first minimum wins).
            order = np.argsort(-shares, axis=0, kind="stable")
            s_sorted = np.take_along_axis(shares, order, axis=0)
            rule, cut = np.nonzero((s_sorted[1:] < s_sorted[:-1]).T)  # left: order[:cut + 1, rule]
            if not cut.size:
                continue
            n_left, wl, th = cut + 1, np.cumsum(stats[order], axis=0)[cut, rule], theta[rule]
            r = s_sorted[cut + 1, rule] / 2.0 + s_sorted[cut, rule] / 2.0
        ok = (n_left >= min_bags) & (n - n_left >= min_bags)
        if ok.any():
            left_sums.append(wl[ok])
            rules.append(np.column_stack([np.full(int(ok.sum()), float(f)), th[ok], r[ok]]))
    if not left_sums:
        return None
    # The impurities of every candidate at once: each is computed row by row, so the values are
    # those of a candidate alone.
    wl, rules = np.concatenate(left_sums), np.concatenate(rules)
    losses = impurity(wl) + impurity(total[None, :] - wl)
    i = int(np.argmin(losses))
    gain = impurity(total[None, :])[0] - losses[i]
    f, theta, r = int(rules[i, 0]), float(rules[i, 1]), float(rules[i, 2])
    go_left = np.add.reduceat((XT[f, inst] <= theta).astype(np.intp), starts) / sizes > r
    return f, theta, r, float(gain), go_left


def apply_bags(X, offsets, feature, threshold, ratio, left, right):
    """The leaf each bag reaches in a bag-ratio tree (see the compiled twin).

    All bags descend one level per step: each step computes the shares of
    the bags still at inner nodes with their nodes' rules.
    """
    X, offsets, feature, threshold, ratio, left, right = apply_args(
        X, offsets, feature, threshold, ratio, left, right)
    n_bags = offsets.shape[0] - 1
    node = np.zeros(n_bags, dtype=np.intp)
    sizes = np.diff(offsets)
    active = np.flatnonzero(left[node] >= 0)
    while active.size:
        inst, starts, sz = _node_instances(offsets, active)
        f = np.repeat(feature[node[active]], sz)
        t = np.repeat(threshold[node[active]], sz)
        counts = np.add.reduceat((X[inst, f] <= t).astype(np.intp), starts)
        go_left = counts / sizes[active].astype(np.float64) > ratio[node[active]]
        node[active] = np.where(go_left, left[node[active]], right[node[active]])
        active = active[left[node[active]] >= 0]
    return node
