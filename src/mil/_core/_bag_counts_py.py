"""Distinct-bag counting: the NumPy twin of ``_bag_counts.pyx``.

Vectorised with first / last occurrences: a bag joins the left side of a
sweep at its first instance and leaves the right side after its last one,
so the per-cut counts are cumulative sums of weights placed at those
positions. ``np.cumsum`` adds strictly in order, like the compiled loop,
so both give bit-identical sums (adding 0.0 leaves a float unchanged).
"""

import numpy as np

from mil._core._checks import bag_max_args, bag_weights_args, binned_extremes_args

__all__ = ["sweep_distinct_bags", "distinct_bag_weights", "bag_max", "binned_bag_extremes"]


def _first_occurrence(inst_bag, n_bags):
    """Boolean mask of the positions where a bag occurs for the first time."""
    first = np.full(n_bags, inst_bag.shape[0], dtype=np.intp)
    np.minimum.at(first, inst_bag, np.arange(inst_bag.shape[0]))
    mask = np.zeros(inst_bag.shape[0], dtype=bool)
    present = first < inst_bag.shape[0]
    mask[first[present]] = True
    return mask


def sweep_distinct_bags(inst_bag, bag_pos, bag_weight):
    """Distinct-bag weights on each side of every cut of a sweep (see the compiled twin)."""
    inst_bag, bag_pos, bag_weight = bag_weights_args(inst_bag, bag_pos, bag_weight)
    n = inst_bag.shape[0]
    n_bags = bag_pos.shape[0]
    w = bag_weight[inst_bag]
    pos = bag_pos[inst_bag].astype(bool)

    first = _first_occurrence(inst_bag, n_bags)
    left_pos = np.cumsum(np.where(first & pos, w, 0.0))
    left_neg = np.cumsum(np.where(first & ~pos, w, 0.0))

    # Last occurrences, accumulated from the right end, shifted by one cut.
    last = _first_occurrence(inst_bag[::-1], n_bags)[::-1]
    right_pos = np.zeros(n)
    right_neg = np.zeros(n)
    if n > 1:
        right_pos[:-1] = np.cumsum(np.where(last & pos, w, 0.0)[:0:-1])[::-1]
        right_neg[:-1] = np.cumsum(np.where(last & ~pos, w, 0.0)[:0:-1])[::-1]
    return left_pos, left_neg, right_pos, right_neg


def distinct_bag_weights(inst_bag, bag_pos, bag_weight):
    """Weight of the distinct positive and negative bags among some instances."""
    inst_bag, bag_pos, bag_weight = bag_weights_args(inst_bag, bag_pos, bag_weight)
    # Sum in bag order of first appearance, as the compiled loop does.
    order = inst_bag[_first_occurrence(inst_bag, bag_pos.shape[0])]
    w = bag_weight[order]
    is_pos = bag_pos[order].astype(bool)
    pos = float(np.cumsum(np.where(is_pos, w, 0.0))[-1]) if order.size else 0.0
    neg = float(np.cumsum(np.where(~is_pos, w, 0.0))[-1]) if order.size else 0.0
    return pos, neg


def bag_max(values, offsets):
    """Maximum of instance values within each bag (bags are non-empty)."""
    values, offsets = bag_max_args(values, offsets)
    if offsets.shape[0] <= 1:
        return np.empty(0, dtype=np.float64)
    return np.maximum.reduceat(values, offsets[:-1]).astype(np.float64, copy=False)


def binned_bag_extremes(codes, ids, inst_bag, bag_pos, bag_weight):
    """Histograms of the lowest and highest bin of each bag among some instances (see the compiled twin)."""
    return _binned_bag_extremes(*binned_extremes_args(codes, ids, inst_bag, bag_pos, bag_weight))


def _binned_bag_extremes(codes, ids, inst_bag, bag_pos, bag_weight):
    """:func:`binned_bag_extremes` without the checks, on `ids` in any order (the trees' twin passes any).

    Each bag's lowest and highest non-missing bin and missing-value flag
    (``np.minimum.at`` / ``np.maximum.at``), then weighted histograms of
    them over the bags present, in ascending bag order: the order in which
    the compiled loop adds, so the sums are bit-identical.
    """
    n_bags = bag_pos.shape[0]
    c = codes[ids].astype(np.intp)
    bags = inst_bag[ids]
    miss = c == 255
    lo = np.full(n_bags, 255, dtype=np.intp)
    hi = np.full(n_bags, -1, dtype=np.intp)
    np.minimum.at(lo, bags[~miss], c[~miss])
    np.maximum.at(hi, bags[~miss], c[~miss])
    nan = np.zeros(n_bags, dtype=bool)
    nan[bags[miss]] = True
    present = np.flatnonzero(np.bincount(bags, minlength=n_bags))
    lo, hi, nan = lo[present], hi[present], nan[present]
    w = bag_weight[present]
    pos = bag_pos[present].astype(bool)
    some = lo < 255
    groups = (pos, ~pos, pos & ~nan, ~pos & ~nan)

    def hist(key, mask):
        return np.bincount(key[mask], weights=w[mask], minlength=256)

    def sequential_sum(mask):   # in ascending bag order, as the compiled loop
        v = w[mask]
        return float(np.cumsum(v)[-1]) if v.size else 0.0

    c_some = c[~miss]
    return (np.array([hist(lo, some & g) for g in groups]), np.array([hist(hi, some & g) for g in groups]),
            np.bincount(c_some, minlength=256).astype(np.float64),
            (sequential_sum(nan & pos), sequential_sum(nan & ~pos)),
            (int(c_some.min()) if c_some.size else 255, int(c_some.max()) if c_some.size else -1,
             int(miss.sum())))
