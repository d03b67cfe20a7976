"""Rule condition search for RIPPER-MI: the NumPy twin of ``_rule_split.pyx``.

Same algorithm and tie-break as the compiled kernel (see its docstring):
per feature, the covered instances are taken in sorted order, the shared
bag-counting sweep (``_bag_counts_py.sweep_distinct_bags``) gives the
distinct bags on each side of every cut, and FOIL's gain is computed with
the same log2 table and the same operation order, so the gains are
bit-identical and both paths pick the same condition.
"""

import numpy as np

from mil._core._bag_counts_py import sweep_distinct_bags

__all__ = ["best_conditions", "prefix_coverage", "ruleset_coverage", "foil_gain", "prune_metric"]


def _log2_table(n_bags):
    """``table[i] = log2(i)`` for i = 1..n_bags (table[0] = 0 is never used as a count)."""
    table = np.zeros(n_bags + 1, dtype=np.float64)
    table[1:] = np.log2(np.arange(1, n_bags + 1, dtype=np.float64))
    return table


def foil_gain(p0, n0, p1, n1, smooth=0):
    """FOIL's information gain of a condition, counted on bags.

    ``p1 * (log2(p1 / (p1 + n1)) - log2(p0 / (p0 + n0)))``, with the same
    rounding as :func:`best_conditions`. Counts are whole numbers, p0, p1 > 0.
    ``smooth=1``: every precision ``p / (p + n)`` becomes ``(p + 1) / (p + n + 1)``
    (Weka's JRip).

    Examples
    --------
    >>> float(foil_gain(4, 4, 2, 0))   # precision 1/2 -> 1: 2 * (0 - (-1))
    2.0
    """
    p1 = np.asarray(p1, dtype=np.intp)
    n1 = np.asarray(n1, dtype=np.intp)
    table = _log2_table(int(max(p0 + n0, np.max(p1 + n1, initial=0))) + smooth)
    base = table[p0 + smooth] - table[p0 + n0 + smooth]
    return p1 * ((table[p1 + smooth] - table[p1 + n1 + smooth]) - base)


def prune_metric(p, n):
    """IREP's pruning value ``(p - n) / (p + n)`` on bag counts (0 when nothing is covered).

    Examples
    --------
    >>> prune_metric([3, 0], [1, 0]).tolist()
    [0.5, 0.0]
    """
    p = np.asarray(p, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    total = p + n
    return np.divide(p - n, total, out=np.zeros(np.broadcast(p, n).shape), where=total > 0)


def best_conditions(sorted_vals, order, active, sorted_bag, bag_pos, p0, n0, min_bags, smooth=0):
    """Best next condition of a growing rule for every (feature, operator) (see the compiled twin)."""
    if smooth not in (0, 1):
        raise ValueError(f"smooth must be 0 or 1; got {smooth}")
    d, n = sorted_vals.shape
    n_bags = bag_pos.shape[0]
    lg = _log2_table(n_bags + smooth)
    base = lg[p0 + smooth] - lg[p0 + n0 + smooth]
    out = np.zeros((4, d, 2), dtype=np.float64)
    ones = np.ones(n_bags, dtype=np.float64)
    act = active.astype(bool)
    for f in range(d):
        keep = act[order[f]]
        vals = sorted_vals[f][keep]
        if vals.shape[0] < 2:
            continue
        lp, ln, rp, rn = sweep_distinct_bags(sorted_bag[f][keep], bag_pos, ones)
        a, b = vals[:-1], vals[1:]
        cut = a < b
        mid = a * 0.5 + b * 0.5   # finite near the largest double, unlike (a + b) * 0.5
        sides = (
            (lp[:-1], ln[:-1], np.where((a <= mid) & (mid < b), mid, a)),  # x <= t keeps the left side
            (rp[:-1], rn[:-1], np.where((a < mid) & (mid <= b), mid, b)),  # x >= t keeps the right side
        )
        for col, (p1, n1, thr) in enumerate(sides):
            valid = cut & (p1 >= min_bags) & (p1 > 0.0)
            ip = p1.astype(np.intp) + smooth
            it = (p1 + n1).astype(np.intp) + smooth
            gain = p1 * ((lg[ip] - lg[it]) - base)
            gain = np.where(valid, gain, 0.0)
            k = int(np.argmax(gain))   # first maximum: the lowest threshold
            if gain[k] > 0.0:
                out[:, f, col] = gain[k], thr[k], p1[k], n1[k]
    return out[0], out[1], out[2], out[3]


def _holds(X, features, ops, thresholds):
    """(n, m) boolean: instance i satisfies condition j."""
    vals = X[:, features]
    return np.where(ops.astype(bool), vals >= thresholds, vals <= thresholds)


def _bag_any(inst_mask, offsets):
    """(rows, n) instance mask -> (rows, n_bags) uint8 bag mask (a bag is covered by any instance)."""
    if offsets.shape[0] <= 1:
        return np.zeros((inst_mask.shape[0], 0), dtype=np.uint8)
    return np.maximum.reduceat(inst_mask.astype(np.uint8), offsets[:-1], axis=1)


def prefix_coverage(X, offsets, features, ops, thresholds):
    """Bags covered by every prefix of a rule, shape (m, n_bags) (see the compiled twin)."""
    m = features.shape[0]
    if m == 0:
        return np.zeros((0, offsets.shape[0] - 1), dtype=np.uint8)
    acc = np.logical_and.accumulate(_holds(X, features, ops, thresholds), axis=1)
    return np.ascontiguousarray(_bag_any(acc.T, offsets))


def ruleset_coverage(X, offsets, rule_ptr, features, ops, thresholds):
    """Bags covered by each rule of a rule set, shape (n_rules, n_bags) (see the compiled twin)."""
    n_rules = rule_ptr.shape[0] - 1
    holds = _holds(X, features, ops, thresholds)
    masks = np.ones((n_rules, X.shape[0]), dtype=bool)
    for r in range(n_rules):
        cols = holds[:, rule_ptr[r]:rule_ptr[r + 1]]
        if cols.shape[1]:
            masks[r] = cols.all(axis=1)
    return np.ascontiguousarray(_bag_any(masks, offsets))
