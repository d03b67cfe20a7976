"""How the builder chooses a node's split: the feature, the cut, and where its threshold goes.

The split kernel gives every searched feature's best cut (gain, split
information, threshold, ...); here the features compete (ID3-MI: largest
Gain_multi; C4.5-MI: largest gain ratio among the features whose gain is at
least the average, C4.5's guard; C4.5 release 8's MDL correction), a random
forest's features are searched in random blocks, ties between features can
be settled on instances, and the chosen threshold can be moved without
changing the bag counts of the children. The arithmetic that must match the
split search (entropy terms, midpoints, the bag sweep) goes through the
kernels, so the compiled and the pure-Python paths each use their own.
"""

import numpy as np

from mil._core import kernel

__all__ = ["MIN_SPLIT_INFO", "TIE_TOL", "choose_feature", "j48_min_leaf", "mdl_corrected_gains", "place_cut",
           "search_node"]

# Criteria within this many bits of the best are ties (lowest feature rank wins);
# it absorbs last-bit differences between libm builds, never real differences.
TIE_TOL = 1e-12
# C4.5 refuses splits with (near) zero split information.
MIN_SPLIT_INFO = 1e-10


def mdl_corrected_gains(stats, node_weight, count="cuts"):
    """Gains of the features' best cuts less C4.5 release 8's MDL cost of the threshold.

    Quinlan (1996), "Improved use of continuous attributes in C4.5": a
    numeric feature with K admissible cut points in a node of N cases
    pays log2(K) / N bits for the choice of its threshold. Here N is the
    node's bag weight (the gains are in bits per bag).

    Parameters
    ----------
    stats : ndarray of float64, shape (n_features, 8)
        From ``best_splits``.
    node_weight : float
        The node's bag weight N (weighted positive plus negative bags).
    count : {"cuts", "partitions"}, default="cuts"
        K: the feature's admissible cut points between distinct values
        (``stats[:, 6]``, J48's count), or the distinct partitions of the
        node's bags they make (``stats[:, 7]``; cuts between which no bag
        enters the left side or leaves the right one split the bags alike).
        With one instance per bag both are the same.

    Returns
    -------
    gains : ndarray of float64, shape (n_features,)
        ``stats[:, 0] - log2(K) / N`` (K < 1 only where no cut was found;
        those rows are left at their gain).
    """
    n_cuts = stats[:, 6 if count == "cuts" else 7]
    cost = np.log2(np.maximum(n_cuts, 1.0)) / node_weight
    return stats[:, 0] - cost


def choose_feature(found, stats, criterion, rank, tol=TIE_TOL, node_weight=None, mdl_count="cuts",
                   return_ties=False, average_gain_tolerance=0.0):
    """Pick the split feature of a node from the per-feature best cuts.

    Parameters
    ----------
    found : ndarray of uint8, shape (n_features,)
        1 where the feature has an admissible cut.
    stats : ndarray of float64, shape (n_features, 8)
        From ``best_splits``: gain, split information, threshold, NaN-left,
        left weight, right weight, admissible cut points, bag partitions.
    criterion : {"gain", "gain_ratio"}
        ID3-MI or C4.5-MI.
    rank : ndarray of intp, shape (n_features,)
        Tie-break order (lowest rank wins); ``arange`` for lowest index.
    tol : float, default=TIE_TOL
        Criteria within `tol` of the best are ties.
    node_weight : float or None, default=None
        When given (the node's bag weight), C4.5 release 8's MDL correction
        is applied as Weka's J48 does: each feature's gain is first reduced
        by :func:`mdl_corrected_gains`, features whose corrected gain is not
        positive are rejected, and the average-gain guard and the gain
        ratio use the corrected gains. None uses the gains as they are.
    mdl_count : {"cuts", "partitions"}, default="cuts"
        The K of the correction (see :func:`mdl_corrected_gains`).
    return_ties : bool, default=False
        Return every feature tied with the best instead of the one of
        lowest rank.
    average_gain_tolerance : float, default=0.0
        C4.5-MI's average-gain guard admits a feature whose gain is at
        least the average gain of the candidates less this many bits (never
        less than `tol`, which absorbs round-off only). 0 is C4.5's rule;
        Weka's J48 (``C45ModelSelection``) uses 0.001. Unused by "gain".

    Returns
    -------
    feature : int or ndarray of intp
        -1 when no feature qualifies; with `return_ties`, the tied features
        (ascending, empty when none qualifies).
    """
    if node_weight is not None:
        # The corrected gains replace the gains; a feature whose corrected gain is not positive is out.
        gain = mdl_corrected_gains(stats, node_weight, mdl_count)
        found = found.astype(bool) & (gain > 0.0)
        stats = np.array(stats, dtype=np.float64)
        stats[:, 0] = gain
    # One compiled call per node (the NumPy twin computes the same choice).
    return kernel("_tree_split")._choose_feature(
        np.ascontiguousarray(found, dtype=np.uint8), np.ascontiguousarray(stats, dtype=np.float64),
        criterion != "gain", np.ascontiguousarray(rank, dtype=np.intp), tol, average_gain_tolerance,
        MIN_SPLIT_INFO, return_ties)


def j48_min_leaf(node_weight, min_bags_leaf, n_classes=2):
    """The least weight of each child of a split in Weka's J48 (its C45Split).

    A tenth of the node's weight per class, 0.1 W / k, raised to
    `min_bags_leaf` (J48's ``-M``) when it is at most that, else capped at
    25: large nodes cannot split off a few cases, small ones fall back to
    ``-M``.
    """
    share = 0.1 * node_weight / n_classes
    return float(min_bags_leaf) if share <= min_bags_leaf else min(share, 25.0)


def search_node(layout, start, end, node, options, rng):
    """The split of a node: ``(feature, stats row)``, feature -1 when none is admissible.

    Parameters
    ----------
    layout : NodeLayout
        The tree's node layout; the node owns ``[start, end)``.
    start, end : int
        The node's positions.
    node : tuple
        ``(w_pos, w_neg, min_weight)``: the node's positive and negative bag
        weights and the least weight of each child.
    options : GrowthOptions
        The tree's fixed arguments (criterion, rank, feature sampling, ...).
    rng : numpy.random.RandomState or None
        The source of a random forest's feature order.
    """
    w_pos, w_neg, min_weight = node
    o = options
    # The cut points are only counted for the MDL correction that reads them (stats[:, 6]).
    count_cuts = bool(o.mdl_correction) and o.mdl_correction != "partitions"
    args = (o.bag_pos, o.bag_weight, w_pos, w_neg, float(min_weight), TIE_TOL, o.split_shares == "children",
            count_cuts)
    choose = dict(node_weight=w_pos + w_neg if o.mdl_correction else None,
                  mdl_count="partitions" if o.mdl_correction == "partitions" else "cuts",
                  average_gain_tolerance=o.average_gain_tolerance)
    if o.features is not None:  # a fixed subset, searched in place
        found, split = layout.search(start, end, args, o.features)
        best = choose_feature(found, split, o.criterion, o.rank[o.features], **choose)
        return (int(o.features[best]), split[best]) if best >= 0 else (-1, None)
    if o.max_features is None:
        found, split = layout.search(start, end, args)
        if o.tie_break == "instances":
            ties = choose_feature(found, split, o.criterion, o.rank, return_ties=True, **choose)
            if ties.size == 0:
                return -1, None
            feature = _instance_tie_break(layout, start, end, ties, split, o)
            return feature, split[feature]
        feature = choose_feature(found, split, o.criterion, o.rank, **choose)
        return feature, (split[feature] if feature >= 0 else None)
    # A random forest's node: blocks of `max_features` features in a random order, until one can split.
    order = rng.permutation(o.rank.shape[0]).astype(np.intp)
    for lo in range(0, order.size, o.max_features):
        block = np.ascontiguousarray(order[lo:lo + o.max_features])
        found, split = layout.search(start, end, args, block)
        best = choose_feature(found, split, o.criterion, o.rank[block], **choose)
        if best >= 0:
            return int(block[best]), split[best]
    return -1, None


def _instance_tie_break(layout, start, end, ties, split, o):
    """Among features whose cuts tie on bag counts, the one of largest gain on instances.

    Each instance is labelled by its bag and weighs its bag's weight; the
    cut is each feature's own (threshold and NaN direction). Remaining ties
    go to the lowest rank.
    """
    if ties.size == 1:
        return int(ties[0])
    scores = np.empty(ties.size)
    for i, f in enumerate(ties):
        ids, v = layout.values(int(f), start, end)
        left = (v <= split[f, 2]) | (np.isnan(v) & bool(split[f, 3]))
        bags = o.instance_bag[ids]
        pos = o.bag_pos[bags].astype(bool)
        w = o.bag_weight[bags]
        lp, ln = w[left & pos].sum(), w[left & ~pos].sum()
        rp, rn = w[~left & pos].sum(), w[~left & ~pos].sum()
        e = _emass(np.array([lp + rp, lp, rp]), np.array([ln + rn, ln, rn]))
        scores[i] = float(e[0] - e[1] - e[2])
    best = scores.max()
    cand = ties[scores >= best - TIE_TOL * max(1.0, abs(best))]
    return int(cand[np.argmin(o.rank[cand])])


def _emass(p, n):
    """(p + n) * Info(p, n) in bits, elementwise, with the split kernel's arithmetic."""
    return kernel("_tree_split").entropy_mass(p, n)


def _midpoint(a, b):
    """The split kernel's threshold between two values: midway, or `a` where rounding reaches `b`."""
    return float(kernel("_tree_split").midpoints(np.array([a]), np.array([b]))[0])


def place_cut(placement, instances, instance_bag, ids, v, feature, threshold, bag_pos, bag_weight,
              min_bags_leaf, split_shares, w_pos, w_neg, tol=TIE_TOL):
    """Move a split's threshold without changing the bag counts of its children.

    The split kernel puts the threshold midway between the two node values
    around the first (lowest) cut of largest Gain_multi. On bag counts many
    cuts tie: a run of consecutive cuts where no bag enters the left side or
    leaves the right one has the same counts, and other runs can reach the
    same gain. The placements:

    "training-value"
        C4.5's: the largest value of the feature among all training
        instances that is at most the midpoint (Quinlan 1993; J48's
        ``setSplitPoint``). The node's training instances go the same way.
    "run-middle"
        Midway across the run of cuts with the kernel's cut's counts: from
        the value below its first cut to the value above its last one.
    "instances"
        Among all cuts whose Gain_multi ties with the best (within `tol`),
        the one of largest information gain on instances labelled by their
        bag (each instance weighing its bag's weight); lowest cut on ties.

    The last two need the node's values without NaN: with NaN in the node
    the kernel's threshold is kept.

    Returns
    -------
    threshold : float
    """
    if placement == "training-value":
        col = instances[:, feature]
        below = col[col <= threshold]  # NaN compares False
        return float(below.max()) if below.size else threshold
    order = np.argsort(v, kind="stable")
    v = v[order]
    if np.isnan(v[-1]):
        return threshold
    bags = np.ascontiguousarray(instance_bag[ids[order]])
    lp, ln, rp, rn = (a[:-1] for a in kernel("_bag_counts").sweep_distinct_bags(bags, bag_pos, bag_weight))
    cl, cr = lp + ln, rp + rn
    valid = (v[:-1] < v[1:]) & (cl >= min_bags_leaf) & (cr >= min_bags_leaf) & (cl > 0) & (cr > 0)
    if not valid.any():
        return threshold
    total = w_pos + w_neg
    parent = _emass(np.array([w_pos]), np.array([w_neg]))[0] / total
    denom = cl + cr if split_shares == "children" else total
    gain = np.where(valid, parent - (_emass(lp, ln) + _emass(rp, rn)) / denom, -np.inf)
    tied = np.flatnonzero(gain >= gain.max() - tol)
    k0 = int(tied[0])
    if _midpoint(v[k0], v[k0 + 1]) != threshold:
        return threshold  # not the kernel's cut (cannot happen without NaN; kept as a guard)
    if placement == "run-middle":
        # Counts only grow on the left and shrink on the right: the run is contiguous.
        same = ((lp == lp[k0]) & (ln == ln[k0]) & (rp == rp[k0]) & (rn == rn[k0]))[k0:]
        k_last = k0 + (int(np.argmin(same)) if not same.all() else same.size) - 1
        lo, hi = v[k0], v[k_last + 1]
    else:  # "instances"
        ipos = bag_pos[bags].astype(bool)
        w = bag_weight[bags]
        cum_p, cum_n = np.cumsum(np.where(ipos, w, 0.0)), np.cumsum(np.where(ipos, 0.0, w))
        ilp, iln = cum_p[tied], cum_n[tied]  # instance weight left of each tied cut
        ig = -(_emass(ilp, iln) + _emass(cum_p[-1] - ilp, cum_n[-1] - iln))
        k = int(tied[np.argmax(ig)])
        lo, hi = v[k], v[k + 1]
    return _midpoint(lo, hi)
