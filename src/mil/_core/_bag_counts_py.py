"""Distinct-bag counting: the NumPy twin of ``_bag_counts.pyx``.

Vectorised with first / last occurrences: a bag joins the left side of a
sweep at its first instance and leaves the right side after its last one,
so the per-cut counts are cumulative sums of weights placed at those
positions. ``np.cumsum`` adds strictly in order, like the compiled loop,
so both give bit-identical sums (adding 0.0 leaves a float unchanged).
"""

import numpy as np

from mil._core._checks import bag_max_args, bag_weights_args

__all__ = ["sweep_distinct_bags", "distinct_bag_weights", "bag_max"]


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
