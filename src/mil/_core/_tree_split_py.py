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

from mil._core._checks import (check_tree_walk, tree_apply_args, tree_gather_args, tree_partition_args,
                               tree_search_args)

__all__ = ["best_splits", "gather_best_splits", "partition", "apply"]

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

    lp, ln, rp, rn = counts
    cl = lp + ln
    cr = rp + rn
    valid &= (cl >= min_weight) & (cr >= min_weight) & (cl > 0.0) & (cr > 0.0)
    gains = np.full((d, n - 1, 2), -np.inf)
    if valid.any():
        parent = float(_entropy_mass(np.array([total_pos]), np.array([total_neg]))[0]) / total
        e_left = _entropy_mass(lp[valid], ln[valid])
        e_right = _entropy_mass(rp[valid], rn[valid])
        denom = (cl[valid] + cr[valid]) if shares_of_children else total
        gains[valid] = parent - (e_left + e_right) / denom
    n_cuts = valid.any(axis=2).sum(axis=1)  # a cut point counts once if either NaN direction is admissible
    n_parts = _new_partitions(valid, counts).any(axis=2).sum(axis=1)
    gains = gains.reshape(d, 2 * (n - 1))  # candidate 2k + dir, the compiled scan order
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
    stats[f, 2] = _midpoint(V[f, k], V[f, k + 1])
    stats[f, 3] = np.where(n_nan[f] > 0, direction.astype(np.float64),
                           np.where(sel_l >= sel_r, 1.0, 0.0))
    stats[f, 4] = sel_l
    stats[f, 5] = sel_r
    stats[f, 6] = n_cuts[f] if count_cuts else np.nan
    stats[f, 7] = n_parts[f]
    return found, stats


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
