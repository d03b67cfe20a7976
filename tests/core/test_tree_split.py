"""Tree split kernel: hand-computed gains, brute force, and bit-identical twins."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mil._core import kernel, twins
from mil._core._bag_counts_py import sweep_distinct_bags
from mil._core._tree_split_py import sweep_rows
from mil.tree._rows import PresortedRows
from mil.tree._split_choice import choose_feature


def info(p, n):
    """Info_multi as written by Chevaleyre & Zucker (2001)."""
    if p == 0 or n == 0:
        return 0.0
    q = p / (p + n)
    return -q * math.log2(q) - (1 - q) * math.log2(1 - q)


def node_layout(values, bag_of_instance):
    """Presorted (n_features, n) arrays of a node holding every instance."""
    X = np.ascontiguousarray(np.asarray(values, dtype=np.float64).reshape(len(bag_of_instance), -1))
    pre = PresortedRows(X, np.asarray(bag_of_instance, dtype=np.intp))
    return pre


def run(values, bag_of_instance, bag_pos, min_weight=1.0, weights=None, shares=False):
    pre = node_layout(values, bag_of_instance)
    bag_pos = np.asarray(bag_pos, dtype=np.uint8)
    w = np.ones(bag_pos.size) if weights is None else np.asarray(weights, dtype=np.float64)
    present = np.zeros(bag_pos.size, bool)
    present[np.asarray(bag_of_instance)] = True
    tp = float(np.cumsum(w[present & (bag_pos == 1)])[-1]) if (present & (bag_pos == 1)).any() else 0.0
    tn = float(np.cumsum(w[present & (bag_pos == 0)])[-1]) if (present & (bag_pos == 0)).any() else 0.0
    return kernel("_tree_split").best_splits(pre.vals, pre.bag, 0, pre.vals.shape[1], bag_pos, w,
                                             tp, tn, min_weight, 1e-12, shares)


def test_gain_with_a_bag_on_both_sides(backend):
    # Bags: A (pos) = {1, 2}, B (pos) = {2}, C (neg) = {1}, D (neg) = {2}.
    # The only cut, 1.5, has A on both sides: left {A, C} = (1, 1), right {A, B, D} = (2, 1).
    values = [1.0, 2.0, 2.0, 1.0, 2.0]
    bag = [0, 0, 1, 2, 3]
    found, stats = run(values, bag, [1, 1, 0, 0])
    assert found[0] == 1
    expected = info(2, 2) - 2 / 4 * info(1, 1) - 3 / 4 * info(2, 1)
    assert expected == pytest.approx(1 - 0.5 - 0.75 * 0.9182958340544896)
    assert stats[0, 0] == pytest.approx(expected, abs=1e-12)
    assert stats[0, 1] == pytest.approx(-(0.4 * math.log2(0.4) + 0.6 * math.log2(0.6)), abs=1e-12)
    assert stats[0, 2] == 1.5
    assert (stats[0, 4], stats[0, 5]) == (2.0, 3.0)
    # Shares of the children's total (5 bags) instead of the parent's 4.
    _, stats = run(values, bag, [1, 1, 0, 0], shares=True)
    assert stats[0, 0] == pytest.approx(1 - 2 / 5 * 1 - 3 / 5 * info(2, 1), abs=1e-12)


def test_best_cut_and_tie_break_on_threshold(backend):
    # A (pos) = {1, 5}, B (pos) = {6}, C (neg) = {2, 3}, D (neg) = {4}.
    values = [1.0, 5.0, 6.0, 2.0, 3.0, 4.0]
    bag = [0, 0, 1, 2, 2, 3]
    # Cuts 4.5 and 5.5 both give 1 - 3/4 * Info(1, 2): the lower threshold wins.
    found, stats = run(values, bag, [1, 1, 0, 0])
    assert stats[0, 0] == pytest.approx(1 - 0.75 * info(1, 2), abs=1e-12)
    assert stats[0, 2] == 4.5
    assert stats[0, 1] == pytest.approx(-(0.6 * math.log2(0.6) + 0.4 * math.log2(0.4)), abs=1e-12)
    # min_weight=2 leaves 5.5 (right child: one bag) inadmissible, 4.5 stays.
    _, stats2 = run(values, bag, [1, 1, 0, 0], min_weight=2.0)
    assert stats2[0, 2] == 4.5
    # min_weight=3: only cuts with three bags per side (none here: the largest right side is 3 at 2.5
    # where the left side holds 2 bags).
    found3, _ = run(values, bag, [1, 1, 0, 0], min_weight=3.0)
    assert found3[0] == 0


def test_choose_feature_gain_and_guarded_ratio():
    found = np.ones(3, dtype=np.uint8)
    stats = np.zeros((3, 6))
    stats[:, 0] = [0.5, 0.1, 0.3]   # gains: average 0.3
    stats[:, 1] = [1.0, 0.1, 0.5]   # split info: ratios 0.5, 1.0, 0.6
    rank = np.arange(3)
    assert choose_feature(found, stats, "gain", rank) == 0
    # Feature 1 has the best ratio but a gain below average: C4.5's guard skips it.
    assert choose_feature(found, stats, "gain_ratio", rank) == 2
    stats[2, 0] = 0.5
    stats[2, 1] = 1.0
    assert choose_feature(found, stats, "gain", rank) == 0          # tie: lowest index
    assert choose_feature(found, stats, "gain", np.array([2, 1, 0])) == 2  # tie: lowest rank
    assert choose_feature(np.zeros(3, np.uint8), stats, "gain", rank) == -1


def brute_best(values, bag, bag_pos, w, min_weight, shares, tol=1e-12):
    """Per-feature best cut from sets (no NaN): gains from ID3-MI's formula.

    Each entry: (gain, threshold, number of admissible cuts, number of distinct
    (left bags, right bags) partitions among them), or None.
    """
    values = np.asarray(values)
    P = sum(w[b] for b in set(bag) if bag_pos[b])
    N = sum(w[b] for b in set(bag) if not bag_pos[b])

    def winfo(p, n):
        return info(p, n) if p + n > 0 else 0.0

    out = []
    for f in range(values.shape[1]):
        col = values[:, f]
        u = np.unique(col)
        cands = []
        for a, b in zip(u[:-1], u[1:]):
            t = a / 2 + b / 2
            left = {bag[i] for i in range(len(col)) if col[i] <= t}
            right = {bag[i] for i in range(len(col)) if col[i] > t}
            lp = sum(w[x] for x in left if bag_pos[x]); ln = sum(w[x] for x in left if not bag_pos[x])
            rp = sum(w[x] for x in right if bag_pos[x]); rn = sum(w[x] for x in right if not bag_pos[x])
            cl, cr = lp + ln, rp + rn
            if cl < min_weight or cr < min_weight or cl <= 0 or cr <= 0:
                continue
            denom = cl + cr if shares else P + N
            g = winfo(P, N) - cl / denom * winfo(lp, ln) - cr / denom * winfo(rp, rn)
            cands.append((g, t, (frozenset(left), frozenset(right))))
        if not cands:
            out.append(None)
            continue
        gmax = max(g for g, _, _ in cands)
        best = next((g, t) for g, t, _ in cands if g >= gmax - tol)
        out.append(best + (len(cands), len({p for _, _, p in cands})))
    return out


@st.composite
def nodes(draw, allow_nan=False):
    n_bags = draw(st.integers(2, 6))
    n = draw(st.integers(2, 16))
    d = draw(st.integers(1, 3))
    bag = draw(st.lists(st.integers(0, n_bags - 1), min_size=n, max_size=n))
    # Few distinct values: many ties between cuts and features.
    elems = st.sampled_from([0.0, 1.0, 2.0, 2.5, 3.0, -1.0] + ([np.nan] if allow_nan else []))
    values = np.array(draw(st.lists(elems, min_size=n * d, max_size=n * d))).reshape(n, d)
    bag_pos = np.array(draw(st.lists(st.integers(0, 1), min_size=n_bags, max_size=n_bags)), np.uint8)
    weights = np.array(draw(st.lists(st.sampled_from([1.0, 0.5, 2.0, 0.25, 3.0]),
                                     min_size=n_bags, max_size=n_bags)))
    min_weight = draw(st.sampled_from([0.0, 1.0, 2.0]))
    shares = draw(st.booleans())
    return values, np.array(bag), bag_pos, weights, min_weight, shares


@settings(max_examples=150, deadline=None)
@given(nodes())
def test_kernel_matches_brute_force(case):
    values, bag, bag_pos, w, min_weight, shares = case
    expected = brute_best(values, bag, bag_pos, w, min_weight, shares)
    compiled, python = twins("_tree_split")
    for mod in [m for m in (compiled, python) if m is not None]:
        pre = node_layout(values, bag)
        present = np.zeros(bag_pos.size, bool)
        present[bag] = True
        tp = float(np.cumsum(w[present & (bag_pos == 1)])[-1]) if (present & (bag_pos == 1)).any() else 0.0
        tn = float(np.cumsum(w[present & (bag_pos == 0)])[-1]) if (present & (bag_pos == 0)).any() else 0.0
        found, stats = mod.best_splits(pre.vals, pre.bag, 0, len(bag), bag_pos, w, tp, tn,
                                       min_weight, 1e-12, shares)
        for f, exp in enumerate(expected):
            if exp is None or tp + tn == 0:
                assert found[f] == 0 or tp + tn == 0
                continue
            assert found[f] == 1
            assert stats[f, 0] == pytest.approx(exp[0], abs=1e-9)
            assert stats[f, 2] == exp[1]
            assert stats[f, 6] == exp[2]  # admissible cut points (the MDL correction's K)
            assert stats[f, 7] == exp[3]  # the bag partitions they make


@settings(max_examples=150, deadline=None)
@given(nodes(allow_nan=True), st.data())
def test_twins_bit_identical(case, data):
    values, bag, bag_pos, w, min_weight, shares = case
    compiled, python = twins("_tree_split")
    if compiled is None:
        pytest.skip("compiled kernel not built")
    n = len(bag)
    start = data.draw(st.integers(0, n - 1))
    end = data.draw(st.integers(start, n))
    outs = []
    for mod in (compiled, python):
        pre = node_layout(values, bag)
        outs.append(mod.best_splits(pre.vals, pre.bag, start, end, bag_pos, w, 2.0, 1.5,
                                    min_weight, 1e-12, shares))
        # Partition a valid node layout: the root, then its left child again.
        go = (np.arange(n) % 3 == 0).astype(np.uint8)
        n_left = mod.partition(pre.order, pre.vals, pre.bag, 0, n, go)
        go2 = (np.arange(n) % 2 == 0).astype(np.uint8)
        n_left2 = mod.partition(pre.order, pre.vals, pre.bag, 0, n_left, go2)
        outs.append(((n_left, n_left2), pre.order.copy(), pre.vals.copy(), pre.bag.copy()))
    (fc, sc), pc, (fp, sp), pp = outs
    np.testing.assert_array_equal(fc, fp)
    np.testing.assert_array_equal(sc[fc == 1], sp[fp == 1])  # bit-identical where found
    assert pc[0] == pp[0]
    for a, b in zip(pc[1:], pp[1:]):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=80, deadline=None)
@given(nodes(allow_nan=True), st.data())
def test_count_cuts_off_changes_only_the_cut_count(case, data):
    """``count_cuts=False`` (no MDL correction) gives the same splits on both twins, with the
    count of cut points NaN (not counted); searching with gathered rows too."""
    values, bag, bag_pos, w, min_weight, shares = case
    n = len(bag)
    start = data.draw(st.integers(0, n - 1))
    end = data.draw(st.integers(start, n))
    outs = []
    for mod in [m for m in twins("_tree_split") if m is not None]:
        pre = node_layout(values, bag)
        args = (bag_pos, w, 2.0, 1.5, min_weight, 1e-12, shares)
        on = mod.best_splits(pre.vals, pre.bag, start, end, *args)
        off = mod.best_splits(pre.vals, pre.bag, start, end, *args, count_cuts=False)
        np.testing.assert_array_equal(on[0], off[0])
        found = on[0] == 1
        np.testing.assert_array_equal(np.delete(on[1], 6, axis=1), np.delete(off[1], 6, axis=1))
        assert np.isnan(off[1][found, 6]).all() and not np.isnan(on[1][found, 6]).any()
        rank = np.argsort(pre.order, axis=1)
        ids = np.arange(n)
        feats = np.arange(values.shape[1])
        g_off = mod.gather_best_splits(pre.vals, pre.bag, rank, ids, feats, *args, count_cuts=False)
        g_on = mod.gather_best_splits(pre.vals, pre.bag, rank, ids, feats, *args)
        np.testing.assert_array_equal(np.delete(g_on[1], 6, axis=1), np.delete(g_off[1], 6, axis=1))
        outs.append(off)
    if len(outs) == 2:
        np.testing.assert_array_equal(outs[0][0], outs[1][0])
        found = outs[0][0] == 1
        np.testing.assert_array_equal(outs[0][1][found], outs[1][1][found])


def test_partition_is_stable(backend):
    pre = node_layout(np.arange(12.0)[::-1].reshape(6, 2), [0, 0, 1, 1, 2, 2])
    before = pre.order.copy()
    go = np.array([1, 0, 1, 0, 0, 1], dtype=np.uint8)
    n_left = kernel("_tree_split").partition(pre.order, pre.vals, pre.bag, 1, 6, go)
    assert n_left == sum(go[before[0, 1:6]])
    for r in range(2):
        seg = before[r, 1:6]
        expected = np.concatenate([seg[go[seg] == 1], seg[go[seg] == 0]])
        np.testing.assert_array_equal(pre.order[r, 1:6], expected)
        np.testing.assert_array_equal(pre.order[r, :1], before[r, :1])
        np.testing.assert_array_equal(pre.bag[r], np.array([0, 0, 1, 1, 2, 2])[pre.order[r]])


def test_apply_routes_nan(backend):
    # Root: x0 <= 0.5, NaN right; node 2: x1 <= 1.0, NaN left.
    feature = np.array([0, -1, 1, -1, -1], dtype=np.intp)
    threshold = np.array([0.5, np.nan, 1.0, np.nan, np.nan])
    missing_left = np.array([0, 0, 1, 0, 0], dtype=np.uint8)
    left = np.array([1, -1, 3, -1, -1], dtype=np.intp)
    right = np.array([2, -1, 4, -1, -1], dtype=np.intp)
    X = np.array([[0.0, 5.0], [1.0, 0.0], [1.0, 2.0], [np.nan, np.nan], [np.nan, 3.0]])
    leaves = kernel("_tree_split").apply(X, feature, threshold, missing_left, left, right)
    np.testing.assert_array_equal(leaves, [1, 3, 4, 3, 4])


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 4), st.integers(0, 20), st.integers(1, 5), st.data())
def test_row_sweep_equals_shared_sweep(d, n, n_bags, data):
    inst_bag = np.array(data.draw(st.lists(st.integers(0, n_bags - 1), min_size=n * d, max_size=n * d)),
                        dtype=np.intp).reshape(d, n)
    bag_pos = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n_bags, max_size=n_bags)), np.uint8)
    w = np.array(data.draw(st.lists(st.floats(0.0, 5.0), min_size=n_bags, max_size=n_bags)))
    rows = sweep_rows(inst_bag, bag_pos, w)
    for r in range(d):
        one = sweep_distinct_bags(np.ascontiguousarray(inst_bag[r]), bag_pos, w)
        for a, b in zip(rows, one):
            np.testing.assert_array_equal(a[r], b)


def test_kernel_exports():
    compiled, python = twins("_tree_split")
    assert set(python.__all__) == {"best_splits", "gather_best_splits", "binned_best_splits", "partition", "apply",
                                   "add_tree_values", "entropy_mass", "midpoints"}
    if compiled is not None:
        assert set(compiled.__all__) == set(python.__all__)


def _random_tree(rng, n_features, n_splits):
    """A random tree as flat arrays (children after parents), thresholds on a coarse grid (ties with X)."""
    feature, threshold, missing, left, right = [-1], [np.nan], [0], [-1], [-1]
    for _ in range(n_splits):
        leaf = int(rng.choice([i for i in range(len(feature)) if left[i] < 0]))
        feature[leaf], threshold[leaf], missing[leaf] = int(rng.integers(n_features)), rng.integers(-2, 3) / 2, \
            int(rng.integers(2))
        left[leaf], right[leaf] = len(feature), len(feature) + 1
        for _ in range(2):
            feature.append(-1), threshold.append(np.nan), missing.append(0), left.append(-1), right.append(-1)
    return (np.array(feature, dtype=np.intp), np.array(threshold), np.array(missing, dtype=np.uint8),
            np.array(left, dtype=np.intp), np.array(right, dtype=np.intp), rng.normal(size=len(feature)))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), n_trees=st.integers(1, 6), n_columns=st.integers(1, 3),
       float32=st.booleans())
def test_add_tree_values_is_a_loop_over_the_trees_on_both_twins(seed, n_trees, n_columns, float32):
    # out[i, c_t] += scale * value of i's leaf in tree t, tree after tree: bit-identical to the loop
    # over apply (ties with the thresholds and NaN included), on both twins, across a block boundary.
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(0, 150)), 3
    X = rng.integers(-2, 3, size=(n, d)) / 2
    X[rng.random(X.shape) < 0.15] = np.nan
    X = X.astype(np.float32 if float32 else np.float64)
    trees = [_random_tree(rng, d, int(rng.integers(0, 8))) for _ in range(n_trees)]
    columns = rng.integers(0, n_columns, size=n_trees)
    offsets = np.concatenate([[0], np.cumsum([t[0].shape[0] for t in trees])])
    packed = [np.concatenate([t[j] for t in trees]) for j in range(6)]
    start = rng.normal(size=(n, n_columns))
    want = start.copy()
    ts_py = twins("_tree_split")[1]
    for t, c in zip(trees, columns):
        want[:, c] = want[:, c] + 0.1 * t[5][ts_py.apply(X, *t[:5])]
    for ts in [m for m in twins("_tree_split") if m is not None]:
        out = start.copy()
        ts.add_tree_values(X, *packed, offsets, columns, 0.1, out)
        np.testing.assert_array_equal(out, want)


def test_add_tree_values_checks(backend):
    ts = kernel("_tree_split")
    f, t, m, lft, rgt = (np.array([0, -1, -1]), np.array([0.0, np.nan, np.nan]), np.zeros(3, np.uint8),
                         np.array([1, -1, -1]), np.array([2, -1, -1]))
    X, value, out = np.array([[-1.0], [1.0]]), np.array([0.0, 1.0, 2.0]), np.zeros((2, 1))
    ts.add_tree_values(X, f, t, m, lft, rgt, value, [0, 3], [0], 2.0, out)
    np.testing.assert_array_equal(out[:, 0], [2.0, 4.0])
    with pytest.raises(ValueError, match="node_offsets must rise strictly from 0 to the 3 nodes"):
        ts.add_tree_values(X, f, t, m, lft, rgt, value, [0, 2], [0], 1.0, out)
    with pytest.raises(ValueError, match="columns holds output columns from 1 to 1"):
        ts.add_tree_values(X, f, t, m, lft, rgt, value, [0, 3], [1], 1.0, out)
    with pytest.raises(ValueError, match="value has 2 entries but feature has 3"):
        ts.add_tree_values(X, f, t, m, lft, rgt, value[:2], [0, 3], [0], 1.0, out)
    with pytest.raises(ValueError, match="out has 1 rows but X has 2"):
        ts.add_tree_values(X, f, t, m, lft, rgt, value, [0, 3], [0], 1.0, out[:1])
    with pytest.raises(TypeError, match="out must be a writable"):
        ts.add_tree_values(X, f, t, m, lft, rgt, value, [0, 3], [0], 1.0, out.astype(np.float32))
    with pytest.raises(ValueError, match="numbered after their parent"):  # tree 1 with its root as its own child
        ts.add_tree_values(X, np.r_[f, f], np.r_[t, t], np.r_[m, m], np.r_[lft, [0, -1, -1]], np.r_[rgt, rgt],
                           np.r_[value, value], [0, 3, 6], [0, 0], 1.0, out)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5000).map(float) | st.floats(1e-3, 1e6), st.floats(1e-3, 1e6) | st.just(0.0)),
                min_size=1, max_size=20))
def test_entropy_mass_and_midpoints_are_bit_identical_twins(pairs):
    # The builder's C4.5 cut placement and bin edges read these through the dispatch: each twin must
    # give the other's bits (whole counts use the compiled table, fractions libm's log2 on both).
    p, n = np.array(pairs).T
    compiled, python = twins("_tree_split")
    lo, hi = np.minimum(p, n), np.maximum(p, n)
    want_mass, want_mid = python.entropy_mass(p, n), python.midpoints(lo, hi)
    assert np.all((want_mid >= lo) & ((want_mid < hi) | (lo == hi)))
    # (the difference of three x log2 x terms cancels: absolute error about 1e-15 of (p + n) log2(p + n))
    np.testing.assert_allclose(want_mass, [(a + b) * info(a, b) for a, b in zip(p, n)], rtol=1e-9,
                               atol=1e-12 * float((p + n).max()) * 64)
    if compiled is not None:
        np.testing.assert_array_equal(compiled.entropy_mass(p, n), want_mass)
        np.testing.assert_array_equal(compiled.midpoints(lo, hi), want_mid)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.booleans())
def test_choose_feature_ties_agree_on_both_twins(seed, gain_ratio):
    # tie_break="instances" asks the kernel for every tied feature: the compiled and the NumPy
    # choices, ties included, are the same.
    rng = np.random.default_rng(seed)
    d = int(rng.integers(1, 8))
    found = (rng.random(d) < 0.8).astype(np.uint8)
    stats = np.zeros((d, 8))
    stats[:, 0] = rng.integers(0, 3, d) / 4  # ties
    stats[:, 1] = rng.integers(1, 3, d) / 2
    rank = rng.permutation(d).astype(np.intp)
    compiled, python = twins("_tree_split")
    args = (found, stats, gain_ratio, rank, 1e-12, 0.0, 1e-10)
    ties, best = python._choose_feature(*args, return_ties=True), python._choose_feature(*args)
    assert (best == -1) == (ties.size == 0) and (best == -1 or best in ties)
    if compiled is not None:
        np.testing.assert_array_equal(compiled._choose_feature(*args, return_ties=True), ties)
        assert compiled._choose_feature(*args) == best
