"""Multi-instance decision-tree split search: the NumPy twin of ``_tree_split.pyx``.

Same algorithm and numbers as the compiled kernel (see its docstring), vectorised
over all features of a node at once. Distinct-bag counts come from a row-wise
version of ``_bag_counts_py.sweep_distinct_bags`` (first / last occurrences and
``np.cumsum`` along each row, so sums are added in the compiled sweep's order),
and x log2 x goes through ``math.log2`` (the C library's ``log2``, as in the
compiled kernel; NumPy's vectorised ``log2`` may differ in the last bit), applied
to the few distinct count values of a node.
"""

import math

import numpy as np

from mil._core._bag_counts_py import _binned_bag_extremes
from mil._core._checks import (binned_features, binned_search_args, check_tree_walk, elementwise_args,
                               tree_apply_args, tree_gather_args, tree_partition_args, tree_search_args,
                               tree_values_args)

__all__ = ["best_splits", "gather_best_splits", "binned_best_splits", "partition", "apply", "add_tree_values",
           "entropy_mass", "midpoints"]

N_FIELDS = 8  # gain, split info, threshold, NaN-left flag, left and right weight, admissible cuts, partitions


def _first_mask(keys, n_keys):
    """Boolean mask of the positions where a key occurs for the first time."""
    n = keys.shape[0]
    first = np.full(n_keys, n, dtype=np.intp)
    np.minimum.at(first, keys, np.arange(n, dtype=np.intp))
    mask = np.zeros(n, dtype=bool)
    mask[first[first < n]] = True
    return mask


def sweep_rows(inst_bag, bag_pos, bag_weight):
    """``sweep_distinct_bags`` applied to every row of a 2-D array of bag indices.

    Returns four (n_rows, n) arrays, bit-identical row by row to the 1-D sweep.
    """
    d, n = inst_bag.shape
    n_bags = bag_pos.shape[0]
    keys = inst_bag + (np.arange(d, dtype=np.intp) * n_bags)[:, None]
    first = _first_mask(keys.ravel(), d * n_bags).reshape(d, n)
    last = _first_mask(keys[:, ::-1].ravel(), d * n_bags).reshape(d, n)[:, ::-1]
    w = bag_weight[inst_bag]
    pos = bag_pos[inst_bag].astype(bool)
    left_pos = np.cumsum(np.where(first & pos, w, 0.0), axis=1)
    left_neg = np.cumsum(np.where(first & ~pos, w, 0.0), axis=1)
    right_pos = np.zeros((d, n))
    right_neg = np.zeros((d, n))
    if n > 1:
        right_pos[:, :-1] = np.cumsum(np.where(last & pos, w, 0.0)[:, :0:-1], axis=1)[:, ::-1]
        right_neg[:, :-1] = np.cumsum(np.where(last & ~pos, w, 0.0)[:, :0:-1], axis=1)[:, ::-1]
    return left_pos, left_neg, right_pos, right_neg


def _xlogx(x):
    """x * log2(x) elementwise (0 for x <= 0), with the C library's log2."""
    x = np.asarray(x, dtype=np.float64)
    u, inv = np.unique(x, return_inverse=True)
    logs = np.array([math.log2(v) if v > 0.0 else 0.0 for v in u.tolist()], dtype=np.float64)
    out = np.where(u > 0.0, u * logs, 0.0)
    return out[inv].reshape(x.shape)


def _entropy_mass(p, n):
    """(p + n) * Info_multi(p, n) in bits, evaluated like the compiled kernel."""
    xs = _xlogx(np.concatenate([p + n, p, n]))
    k = p.shape[0]
    return xs[:k] - xs[k:2 * k] - xs[2 * k:]


def _new_partitions(valid, counts):
    """Admissible candidates whose bag counts differ from their direction's previous admissible one.

    `valid` is (d, n - 1, 2) and `counts` (4, d, n - 1, 2); along each row
    and NaN direction, a candidate opens a new partition of the node's bags
    when one of its four counts differs from those of the last admissible
    candidate before it (always for the first).
    """
    d, c, _ = valid.shape
    pos = np.where(valid, np.arange(c)[None, :, None], -1)
    last = np.maximum.accumulate(pos, axis=1)
    prev = np.full_like(last, -1)
    prev[:, 1:] = last[:, :-1]
    at = np.maximum(prev, 0)
    same = prev >= 0
    for q in counts:
        same &= np.take_along_axis(q, at, axis=1) == q
    return valid & ~same


def _midpoint(a, b):
    t = a / 2.0 + b / 2.0
    return np.where((t >= a) & (t < b), t, a)


def entropy_mass(p, n):
    """(p + n) * Info_multi(p, n) in bits, elementwise: the entropy term of the split criteria.

    See the compiled twin.
    """
    p, n = elementwise_args(p, n, ("p", "n"))
    return _entropy_mass(p.reshape(-1), n.reshape(-1)).reshape(p.shape)


def midpoints(a, b):
    """The split search's threshold between values ``a <= b``, elementwise.

    See the compiled twin.
    """
    a, b = elementwise_args(a, b, ("a", "b"))
    return np.asarray(_midpoint(a, b), dtype=np.float64).reshape(a.shape)


def best_splits(vals, inst_bag, start, end, bag_pos, bag_weight, total_pos, total_neg,
                min_weight, tol, shares_of_children=False, features=None, count_cuts=True):
    """Best cut of every feature (or of `features`) for the node owning columns ``start:end``.

    See the compiled twin; the arguments are checked the same way.
    """
    *args, features = tree_search_args(vals, inst_bag, start, end, bag_pos, bag_weight, total_pos, total_neg,
                                       min_weight, tol, shares_of_children, features)
    return _best_splits(*args, bool(count_cuts), features)


def gather_best_splits(vals, inst_bag, rank, ids, features, bag_pos, bag_weight, total_pos, total_neg,
                       min_weight, tol, shares_of_children=False, count_cuts=True):
    """``best_splits`` of `features` for the node holding the instances `ids`, from the root's rows.

    See the compiled twin; the arguments are checked the same way.
    """
    return _gather_best_splits(*tree_gather_args(vals, inst_bag, rank, ids, features, bag_pos, bag_weight,
                                                 total_pos, total_neg, min_weight, tol, shares_of_children),
                               bool(count_cuts))


def _gather_best_splits(vals, inst_bag, rank, ids, features, *args):
    # The node's positions in each searched row, ascending: the row's order.
    rows = features[:, None]
    positions = np.sort(rank[rows, ids[None, :]], axis=1)
    return _best_splits(vals[rows, positions], inst_bag[rows, positions], 0, ids.shape[0], *args)


def _best_splits(vals, inst_bag, start, end, bag_pos, bag_weight, total_pos, total_neg,
                 min_weight, tol, shares_of_children=False, count_cuts=True, features=None):
    if features is not None:
        vals, inst_bag = vals[features, start:end], inst_bag[features, start:end]
        start, end = 0, end - start
    d = vals.shape[0]
    n = end - start
    found = np.zeros(d, dtype=np.uint8)
    stats = np.zeros((d, N_FIELDS), dtype=np.float64)
    total = total_pos + total_neg
    if n < 2 or total <= 0.0:
        return found, stats
    V = vals[:, start:end]
    B = inst_bag[:, start:end]
    n_nan = np.isnan(V).sum(axis=1)
    m = n - n_nan

    distinct = V[:, :-1] < V[:, 1:]  # False next to NaN: cuts only between non-missing values
    counts = np.zeros((4, d, n - 1, 2))
    valid = np.zeros((d, n - 1, 2), dtype=bool)
    a = sweep_rows(B, bag_pos, bag_weight)
    for c in range(4):
        counts[c, :, :, 0] = a[c][:, :-1]
    valid[:, :, 0] = distinct
    rows = np.flatnonzero(n_nan > 0)
    if rows.size:
        # NaN block moved to the front; the cut after non-missing position k
        # is the cut after position n_nan + k of that sweep.
        idx = (np.arange(n)[None, :] + m[rows, None]) % n
        b = sweep_rows(np.ascontiguousarray(np.take_along_axis(B[rows], idx, axis=1)),
                       bag_pos, bag_weight)
        at = np.minimum(np.arange(n - 1)[None, :] + n_nan[rows, None], n - 1)
        for c in range(4):
            counts[c, rows, :, 1] = np.take_along_axis(b[c], at, axis=1)
        valid[rows, :, 1] = distinct[rows]

    return _choose_cuts(counts, valid, n_nan > 0, lambda f, k: _midpoint(V[f, k], V[f, k + 1]), total_pos,
                        total_neg, min_weight, tol, shares_of_children, count_cuts)


def _choose_cuts(counts, valid, has_nan, threshold, total_pos, total_neg, min_weight, tol, shares_of_children,
                 count_cuts):
    """Each feature's best cut from the bag counts of its candidate cuts (exact and binned searches).

    `counts` is (4, d, C, 2): left positive / negative and right positive /
    negative bag weight of candidate cut k of feature f with NaN sent right
    (last axis 0) or left (1); `valid` (d, C, 2) flags the candidates (cuts
    between distinct values, directions that exist); `threshold(f, k)` gives
    the thresholds of the chosen cuts. The gain, the admissibility, the
    tie-break (lowest cut, NaN right first) and the result row are those of
    the compiled kernel's ``_cut_gain`` / ``_write_split``.
    """
    d = valid.shape[0]
    found = np.zeros(d, dtype=np.uint8)
    stats = np.zeros((d, N_FIELDS), dtype=np.float64)
    total = total_pos + total_neg
    lp, ln, rp, rn = counts
    cl = lp + ln
    cr = rp + rn
    valid &= (cl >= min_weight) & (cr >= min_weight) & (cl > 0.0) & (cr > 0.0)
    n_cand = valid.shape[1]
    gains = np.full((d, n_cand, 2), -np.inf)
    if valid.any():
        parent = float(_entropy_mass(np.array([total_pos]), np.array([total_neg]))[0]) / total
        e_left = _entropy_mass(lp[valid], ln[valid])
        e_right = _entropy_mass(rp[valid], rn[valid])
        denom = (cl[valid] + cr[valid]) if shares_of_children else total
        gains[valid] = parent - (e_left + e_right) / denom
    n_cuts = valid.any(axis=2).sum(axis=1)  # a cut point counts once if either NaN direction is admissible
    n_parts = _new_partitions(valid, counts).any(axis=2).sum(axis=1)
    gains = gains.reshape(d, 2 * n_cand)  # candidate 2k + dir, the compiled scan order
    gmax = gains.max(axis=1)
    ok = gmax > -np.inf
    found[ok] = 1
    if not ok.any():
        return found, stats
    f = np.flatnonzero(ok)
    j = np.argmax(gains[f] >= (gmax[f] - tol)[:, None], axis=1)
    k, direction = j // 2, j % 2
    sel_l = cl[f, k, direction]
    sel_r = cr[f, k, direction]
    s = sel_l / (sel_l + sel_r)
    t = sel_r / (sel_l + sel_r)
    xs = _xlogx(np.concatenate([s, t]))
    stats[f, 0] = gains[f, j]
    stats[f, 1] = -(xs[:f.size] + xs[f.size:])
    stats[f, 2] = threshold(f, k)
    stats[f, 3] = np.where(has_nan[f], direction.astype(np.float64),
                           np.where(sel_l >= sel_r, 1.0, 0.0))
    stats[f, 4] = sel_l
    stats[f, 5] = sel_r
    stats[f, 6] = n_cuts[f] if count_cuts else np.nan
    stats[f, 7] = n_parts[f]
    return found, stats


def binned_best_splits(codes, edges, n_bins, ids, inst_bag, bag_pos, bag_weight, total_pos, total_neg,
                       min_weight, tol, shares_of_children=False, features=None, count_cuts=True):
    """``best_splits`` on binned features for the node holding the instances `ids`.

    See the compiled twin; the arguments are checked the same way.
    """
    return _binned_best_splits(*binned_search_args(codes, edges, n_bins, ids, inst_bag, bag_pos, bag_weight,
                                                   total_pos, total_neg, min_weight, tol, shares_of_children),
                               bool(count_cuts), features=binned_features(features, codes.shape[0]))


def _binned_best_splits(codes, edges, n_bins, ids, inst_bag, bag_pos, bag_weight, total_pos, total_neg,
                        min_weight, tol, shares_of_children=False, count_cuts=True, features=None, node_bags=None,
                        bags_sorted=False):
    # Per feature: each node bag's lowest / highest non-missing bin and NaN
    # flag, weighted histograms of those bins over the node's bags (the
    # shared binned_bag_extremes, summed in ascending bag order: the order of
    # `node_bags`, the node's distinct bags, which it finds itself), prefix /
    # suffix sums over the bins, then the shared _choose_cuts. (`bags_sorted`
    # only picks the compiled kernel's loop; the sums are the same.)
    rows = np.arange(codes.shape[0], dtype=np.intp) if features is None else features
    d, m = rows.shape[0], ids.shape[0]
    if m < 2 or d == 0 or total_pos + total_neg <= 0.0:
        return np.zeros(d, dtype=np.uint8), np.zeros((d, N_FIELDS), dtype=np.float64)
    n_cand = 254  # cuts after bins 0..253 (at most 255 non-missing bins)
    counts = np.zeros((4, d, n_cand, 2))
    valid = np.zeros((d, n_cand, 2), dtype=bool)
    has_nan = np.zeros(d, dtype=bool)
    for i, row in enumerate(rows):
        lo, hi, cnt, (nan_p, nan_n), (_, bmax, n_nan) = _binned_bag_extremes(codes[row], ids, inst_bag, bag_pos,
                                                                             bag_weight)
        has_nan[i] = n_nan > 0
        if bmax < 1:
            continue
        pre = [np.cumsum(h) for h in lo]
        suf = [np.cumsum(h[::-1])[::-1] for h in hi]
        b = np.arange(n_cand)
        counts[:, i, :, 0] = pre[0][b], pre[1][b], suf[2][b + 1] + nan_p, suf[3][b + 1] + nan_n
        counts[:, i, :, 1] = pre[2][b] + nan_p, pre[3][b] + nan_n, suf[0][b + 1], suf[1][b + 1]
        cand = (cnt[:n_cand] > 0) & (b < bmax)
        valid[i, :, 0] = cand
        valid[i, :, 1] = cand & has_nan[i]
    return _choose_cuts(counts, valid, has_nan, lambda f, k: edges[rows[f], k], total_pos, total_neg, min_weight,
                        tol, shares_of_children, count_cuts)


def _choose_feature(found, stats, gain_ratio, rank, tol, average_gain_tolerance, min_split_info,
                    return_ties=False):
    """The builder's choice of a node's split feature (see the compiled kernel); or all the tied features."""
    ok = np.flatnonzero(found)
    gain = stats[ok, 0]
    if ok.size == 0:
        return ok.astype(np.intp) if return_ties else -1
    if not gain_ratio:
        cand, score = ok, gain
    else:
        # C4.5's guard against splits with tiny split information: only features with at least the
        # average gain (summed in feature order), less a tolerance (never below round-off).
        avg = float(np.cumsum(gain)[-1]) / ok.size
        keep = (gain >= avg - max(average_gain_tolerance, tol)) & (stats[ok, 1] > min_split_info)
        cand = ok[keep]
        if cand.size == 0:
            return cand.astype(np.intp) if return_ties else -1
        score = gain[keep] / stats[cand, 1]
    best = score.max()
    ties = cand[score >= best - tol * max(1.0, abs(best))].astype(np.intp)
    if return_ties:
        return ties
    return int(ties[np.argmin(rank[ties])])


def _partition_ids(samples, start, end, X, feature, threshold, missing_left):
    """Split a node of a layout of instance ids in place (see the compiled kernel); returns how many go left."""
    ids = samples[start:end]
    v = X[ids, feature]
    left = (v <= np.float64(threshold)) | (np.isnan(v) & bool(missing_left))  # float32 compared as float64
    samples[start:end] = np.concatenate([ids[left], ids[~left]])
    return int(np.count_nonzero(left))


def _node_stats(ids, inst_bag, bag_pos, bag_weight, leaf_weight=None):
    """A node's distinct-bag statistics (see the compiled kernel); None when its bags are not in order."""
    bags = inst_bag[ids]
    if bags.size and not (bags[1:] >= bags[:-1]).all():
        return None
    return sorted_bag_stats(bags, bag_pos, bag_weight, leaf_weight)


def sorted_bag_stats(bags, bag_pos, bag_weight, leaf_weight=None):
    """``_node_stats`` of a non-decreasing array of bag indices (weights added in ascending bag order)."""
    present = bags
    if bags.size:
        first = np.empty(bags.size, dtype=bool)
        first[0] = True
        np.not_equal(bags[1:], bags[:-1], out=first[1:])
        present = bags[first]
    positive = bag_pos[present].astype(bool)
    pos, neg = present[positive], present[~positive]

    def total(weight, idx):  # sequential, as the compiled loop
        return float(np.cumsum(weight[idx])[-1]) if idx.size else 0.0

    leaf = (float(pos.size), float(neg.size)) if leaf_weight is None else \
        (total(leaf_weight, pos), total(leaf_weight, neg))
    return (int(pos.size), int(neg.size), total(bag_weight, pos), total(bag_weight, neg)) + leaf


def partition(order, vals, inst_bag, start, end, go_left):
    """Stably move instances with ``go_left[id] == 1`` to the front of every row's segment (in place).

    See the compiled twin; the arguments are checked the same way.
    """
    return _partition(*tree_partition_args(order, vals, inst_bag, start, end, go_left))


def _partition(order, vals, inst_bag, start, end, go_left):
    n = end - start
    if n <= 0:
        return 0
    d = order.shape[0]
    mask = go_left[order[:, start:end]].astype(bool)
    n_left = int(mask[0].sum())
    for arr in (order, vals, inst_bag):
        block = arr[:, start:end]
        arr[:, start:end] = np.concatenate(
            [block[mask].reshape(d, n_left), block[~mask].reshape(d, n - n_left)], axis=1)
    return n_left


def apply(X, feature, threshold, missing_left, left, right):
    """Leaf reached by every instance (row of `X`), level by level.

    See the compiled twin; the arguments are checked the same way.
    """
    return _apply(*tree_apply_args(X, feature, threshold, missing_left, left, right))


def _apply(X, feature, threshold, missing_left, left, right):
    check_tree_walk(feature, threshold, missing_left, left, right, X.shape[1])
    n = X.shape[0]
    node = np.zeros(n, dtype=np.intp)
    active = np.flatnonzero(left[node] >= 0)
    while active.size:
        nd = node[active]
        v = X[active, feature[nd]]
        go = np.where(np.isnan(v), missing_left[nd].astype(bool), v <= threshold[nd])
        node[active] = np.where(go, left[nd], right[nd])
        active = active[left[node[active]] >= 0]
    return node


def add_tree_values(X, feature, threshold, missing_left, left, right, value, node_offsets, columns, scale, out):
    """Add the scaled leaf values of several trees to one row per instance, in place.

    See the compiled twin; the arguments are checked the same way.
    """
    _add_tree_values(*tree_values_args(X, feature, threshold, missing_left, left, right, value, node_offsets,
                                       columns, scale, out))


def _add_tree_values(X, feature, threshold, missing_left, left, right, value, node_offsets, columns, scale, out):
    # Tree after tree, as the compiled loop adds them (the same roundings).
    for t in range(columns.shape[0]):
        lo, hi = node_offsets[t], node_offsets[t + 1]
        leaves = _apply(X, feature[lo:hi], threshold[lo:hi], missing_left[lo:hi], left[lo:hi], right[lo:hi])
        out[:, columns[t]] += scale * value[lo:hi][leaves]
