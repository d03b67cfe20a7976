"""The histogram split search: binning kernel, binned gains equal to the exact ones, twins identical."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mil._core import kernel, twins
from mil.tree._builder import build_tree
from mil.tree._rows import BinnedRows, PresortedRows, bin_edges

EXACT_FIELDS = [0, 1, 3, 4, 5, 6, 7]  # all but the threshold (bin edge vs midpoint of the node's values)


def _random_bags(rng, n_bags=40, max_size=6, d=4, n_values=9, nan_rate=0.1, dtype=np.float64):
    sizes = rng.randint(1, max_size + 1, n_bags)
    n = int(sizes.sum())
    X = rng.randint(0, n_values, (n, d)).astype(dtype)
    X[rng.rand(n, d) < nan_rate] = np.nan
    inst_bag = np.repeat(np.arange(n_bags), sizes).astype(np.intp)
    bag_pos = (rng.rand(n_bags) < 0.5).astype(np.uint8)
    return X, inst_bag, bag_pos


def _node_search(X, inst_bag, bag_pos, weight, ids, binned, **kw):
    """Exact and binned search of the node holding `ids` (exact: on the node's presorted values)."""
    present = np.zeros(bag_pos.shape[0], dtype=bool)
    present[inst_bag[ids]] = True
    tp = float(np.cumsum(weight[present & (bag_pos == 1)])[-1]) if (present & (bag_pos == 1)).any() else 0.0
    tn = float(np.cumsum(weight[present & (bag_pos == 0)])[-1]) if (present & (bag_pos == 0)).any() else 0.0
    pre = PresortedRows(np.ascontiguousarray(X[ids]), inst_bag[ids])
    ts = kernel("_tree_split")
    args = (bag_pos, weight, tp, tn, kw.get("min_weight", 1.0), 1e-12, kw.get("shares", False))
    exact = ts.best_splits(pre.vals, pre.bag, 0, ids.shape[0], *args)
    hist = ts.binned_best_splits(binned.codes, binned.edges, binned.n_bins, ids, inst_bag, *args)
    return exact, hist


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shares", [False, True])
def test_binned_gains_equal_exact_when_each_value_has_a_bin(backend, seed, shares):
    rng = np.random.RandomState(seed)
    X, inst_bag, bag_pos = _random_bags(rng)
    weight = rng.randint(1, 4, bag_pos.shape[0]).astype(np.float64)  # integer weights: sums are exact
    binned = BinnedRows(X)
    assert (binned.n_bins <= 9).all()
    for node in range(5):
        ids = np.flatnonzero(rng.rand(X.shape[0]) < (1.0 if node == 0 else 0.6)).astype(np.intp)
        (f1, s1), (f2, s2) = _node_search(X, inst_bag, bag_pos, weight, ids, binned, min_weight=2.0,
                                          shares=shares)
        np.testing.assert_array_equal(f1, f2)
        np.testing.assert_array_equal(s1[f1 == 1][:, EXACT_FIELDS], s2[f2 == 1][:, EXACT_FIELDS])
        # The chosen cut sends the node's instances the same way.
        for f in np.flatnonzero(f1):
            v = X[ids, f]
            np.testing.assert_array_equal((v <= s1[f, 2]) | (np.isnan(v) & bool(s1[f, 3])),
                                          (v <= s2[f, 2]) | (np.isnan(v) & bool(s2[f, 3])))
        if node == 0:  # at the root the bin edges are the exact search's midpoints
            np.testing.assert_array_equal(s1[f1 == 1][:, 2], s2[f2 == 1][:, 2])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 300), st.sampled_from([0.0, 0.2]))
def test_binned_twins_identical(seed, n_values, nan_rate):
    """Compiled and twin give the same bits, also with float weights and quantile bins (> 255 values)."""
    compiled, python = twins("_tree_split")
    if compiled is None:
        pytest.skip("compiled kernels are not built")
    rng = np.random.RandomState(seed)
    X, inst_bag, bag_pos = _random_bags(rng, n_bags=30, max_size=20, d=3, n_values=n_values, nan_rate=nan_rate)
    X += rng.rand(*X.shape) * (n_values > 255)
    binned = BinnedRows(X)
    weight = rng.rand(bag_pos.shape[0]) + 0.1
    ids = np.flatnonzero(rng.rand(X.shape[0]) < 0.7).astype(np.intp)
    args = (binned.codes, binned.edges, binned.n_bins, ids, inst_bag, bag_pos, weight, 5.0, 4.0, 1.0, 1e-12)
    for kw in ({}, {"shares_of_children": True}, {"features": np.array([2, 0], dtype=np.intp)}):
        a, b = compiled.binned_best_splits(*args, **kw), python.binned_best_splits(*args, **kw)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    # The compiled pass bag by bag (bags stored in order, as here) gives the same bits.
    c = compiled._binned_best_splits(*args, True, True, bags_sorted=True)
    np.testing.assert_array_equal(c[1], python._binned_best_splits(*args, True, True)[1])


def test_binning_twins_and_float32():
    compiled, python = twins("_binning")
    rng = np.random.RandomState(0)
    X = rng.randn(3000, 4)
    X[rng.rand(3000, 4) < 0.05] = np.nan
    X32 = X.astype(np.float32)
    edges, n_bins = bin_edges(X32)
    assert (n_bins == 255).all()
    outs = []
    for mod in (python, compiled) if compiled is not None else (python,):
        for A in (X32, X32.astype(np.float64)):
            out = np.empty((4, 3000), dtype=np.uint8)
            mod.map_to_bins(A, edges, n_bins, out)
            outs.append(out)
    for out in outs[1:]:
        np.testing.assert_array_equal(out, outs[0])
    assert (outs[0][np.isnan(X32.T)] == 255).all()
    # A value goes left of edge b exactly when its code is at most b.
    f, b = 1, 100
    v = X32[:, f].astype(np.float64)
    ok = ~np.isnan(v)
    np.testing.assert_array_equal(v[ok] <= edges[f, b], outs[0][f][ok] <= b)


def test_binning_checks():
    bk = kernel("_binning")
    X = np.zeros((3, 2))
    edges, n_bins = bin_edges(X)
    with pytest.raises(TypeError, match="float32 or float64"):
        bk.map_to_bins(X.astype(int), edges, n_bins, np.empty((2, 3), np.uint8))
    with pytest.raises(ValueError, match="out must be"):
        bk.map_to_bins(X, edges, n_bins, np.empty((3, 2), np.uint8))
    with pytest.raises(ValueError, match="ids must be distinct"):
        kernel("_tree_split").binned_best_splits(np.zeros((2, 3), np.uint8), edges, n_bins, np.array([0, 0]),
                                                 np.zeros(3, np.intp), np.ones(1, np.uint8), np.ones(1),
                                                 1.0, 0.0, 1.0, 1e-12)


@pytest.mark.parametrize("criterion", ["gain_ratio", "gain"])
@pytest.mark.parametrize("max_features", [None, 2])
def test_hist_tree_equals_exact_tree(backend, criterion, max_features):
    """With one bin per distinct value, the histogram search grows the exact search's tree."""
    rng = np.random.RandomState(3)
    X, inst_bag, bag_pos = _random_bags(rng, n_bags=80, d=5, n_values=12)
    weight = rng.randint(0, 3, bag_pos.shape[0]).astype(np.float64)
    kw = dict(criterion=criterion, max_features=max_features, growth="best", min_bags_leaf=2)
    t1, l1 = build_tree(X, inst_bag, bag_pos, weight, random_state=np.random.RandomState(1), **kw)
    t2, l2 = build_tree(X, inst_bag, bag_pos, weight, random_state=np.random.RandomState(1), splitter="hist", **kw)
    assert t1.node_count == t2.node_count > 5
    for name in ("feature", "children_left", "missing_left", "n_pos_bags", "n_neg_bags", "gain"):
        np.testing.assert_array_equal(getattr(t1, name), getattr(t2, name))
    np.testing.assert_array_equal(l1, l2)


def test_hist_tree_float32_same_as_float64(backend):
    rng = np.random.RandomState(5)
    X, inst_bag, bag_pos = _random_bags(rng, n_bags=60, max_size=30, d=4, n_values=1000)
    X = (X + rng.rand(*X.shape)).astype(np.float32)  # > 255 values: quantile bins
    t32, _ = build_tree(X, inst_bag, bag_pos, splitter="hist")
    t64, _ = build_tree(X.astype(np.float64), inst_bag, bag_pos, splitter="hist")
    for name in ("feature", "threshold", "children_left", "gain", "value"):
        np.testing.assert_array_equal(getattr(t32, name), getattr(t64, name))


@pytest.mark.parametrize("n_edges", [0, 1, 2, 3, 7, 254])
def test_binning_values_on_and_between_edges(n_edges):
    """Codes count the edges strictly below the value, on every edge count (compiled and twin)."""
    compiled, python = twins("_binning")
    e = np.sort(np.random.RandomState(n_edges).rand(n_edges))
    values = np.concatenate([e, e - 1e-9, e + 1e-9, [-1.0, 2.0, np.nan]])[:, None]
    edges = np.full((1, 255), np.inf)
    edges[0, :n_edges] = e
    n_bins = np.array([n_edges + 1])
    want = np.where(np.isnan(values[:, 0]), 255, np.searchsorted(e, values[:, 0], side="left"))
    for mod in (python, compiled) if compiled is not None else (python,):
        out = np.empty((1, values.shape[0]), dtype=np.uint8)
        mod.map_to_bins(np.ascontiguousarray(values), edges, n_bins, out)
        np.testing.assert_array_equal(out[0], want)


def test_hist_tree_does_not_depend_on_threads(backend):
    """The binned search shares a node's features among threads (GIL released); the tree is the same."""
    rng = np.random.RandomState(7)
    # Smaller on the twins, which take most of a minute at the compiled run's size.
    n_bags, d = (300, 40) if backend == "compiled" else (100, 16)
    X, inst_bag, bag_pos = _random_bags(rng, n_bags=n_bags, max_size=12, d=d, n_values=500, nan_rate=0.02)
    X += rng.rand(*X.shape)
    t1, _ = build_tree(X, inst_bag, bag_pos, splitter="hist", n_jobs=1)
    t2, _ = build_tree(X, inst_bag, bag_pos, splitter="hist", n_jobs=2)
    for name in ("feature", "threshold", "children_left", "gain"):
        np.testing.assert_array_equal(getattr(t1, name), getattr(t2, name))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), with_leaf=st.booleans(), whole=st.booleans())
def test_node_stats_twins_and_brute_force(seed, with_leaf, whole):
    # The builder's node statistics: distinct bags of a node, their weights added in bag order.
    rng = np.random.RandomState(seed)
    _, inst_bag, bag_pos = _random_bags(rng, n_bags=int(rng.randint(1, 30)))
    n = inst_bag.shape[0]
    ids = np.arange(n, dtype=np.intp) if whole else np.flatnonzero(rng.rand(n) < 0.5).astype(np.intp)
    weight = rng.choice([0.0, 0.5, 1.0, 1.0 / 3.0, 7.25], bag_pos.shape[0])
    leaf = rng.uniform(0, 2, bag_pos.shape[0]) if with_leaf else None
    compiled, twin = twins("_tree_split")
    compiled = compiled or twin  # MIL_PURE_PYTHON: the twin alone
    got = [k._node_stats(ids, inst_bag, bag_pos, weight, leaf) for k in (compiled, twin)]
    assert got[0] == got[1]
    present = np.unique(inst_bag[ids])
    pos, neg = present[bag_pos[present] == 1], present[bag_pos[present] == 0]
    lw = np.ones(bag_pos.shape[0]) if leaf is None else leaf
    expect = (pos.size, neg.size, weight[pos].sum(), weight[neg].sum(), lw[pos].sum(), lw[neg].sum())
    np.testing.assert_allclose(got[0], expect, rtol=1e-12, atol=0)
    assert tuple(map(type, got[0])) == (int, int, float, float, float, float)
    if ids.size > 1 and inst_bag[ids[0]] != inst_bag[ids[-1]]:
        shuffled = ids[::-1].copy()  # bags out of order: reported, never miscounted
        assert compiled._node_stats(shuffled, inst_bag, bag_pos, weight, leaf) is None
        assert twin._node_stats(shuffled, inst_bag, bag_pos, weight, leaf) is None


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), ratio=st.booleans(), avg_tol=st.sampled_from([0.0, 1e-3]))
def test_choose_feature_twins_and_brute_force(seed, ratio, avg_tol):
    # The builder's choice of the split feature, compiled and twin, against a plain loop; ties included.
    rng = np.random.RandomState(seed)
    d = int(rng.randint(1, 9))
    found = (rng.rand(d) < 0.8).astype(np.uint8)
    stats = np.zeros((d, 8))
    stats[:, 0] = rng.choice([0.1, 0.2, 0.2 + 1e-13, 0.3, 0.05], d)
    stats[:, 1] = rng.choice([0.0, 0.5, 1.0, 1.0 + 1e-13], d)
    rank = rng.permutation(d).astype(np.intp)
    compiled, twin = twins("_tree_split")
    compiled = compiled or twin
    args = (found, stats, ratio, rank, 1e-12, avg_tol, 1e-10)
    got = compiled._choose_feature(*args)
    assert got == twin._choose_feature(*args)
    ok = [f for f in range(d) if found[f]]
    cand, score = ok, [stats[f, 0] for f in ok]
    if ratio and ok:
        avg = sum(stats[f, 0] for f in ok) / len(ok)
        cand = [f for f in ok if stats[f, 0] >= avg - max(avg_tol, 1e-12) and stats[f, 1] > 1e-10]
        score = [stats[f, 0] / stats[f, 1] for f in cand]
    if not cand:
        assert got == -1
        return
    best = max(score)
    ties = [f for f, s in zip(cand, score) if s >= best - 1e-12 * max(1.0, abs(best))]
    assert got == min(ties, key=lambda f: (rank[f], f))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), missing_left=st.booleans(), f32=st.booleans())
def test_partition_ids_twins_and_stable(seed, missing_left, f32):
    # Splitting a node of instance ids: the ids going left first, both sides in their order.
    rng = np.random.RandomState(seed)
    X, _, _ = _random_bags(rng, n_bags=20, dtype=np.float32 if f32 else np.float64)
    n = X.shape[0]
    samples = rng.permutation(n).astype(np.intp)
    start, end = sorted(rng.randint(0, n + 1, 2))
    feature = int(rng.randint(X.shape[1]))
    threshold = float(rng.choice([2.5, 4.0, 4.0 + 1e-9]))  # not a float32 number: compared as float64
    compiled, twin = twins("_tree_split")
    compiled = compiled or twin
    out = []
    for k in (compiled, twin):
        s = samples.copy()
        out.append((k._partition_ids(s, start, end, X, feature, threshold, missing_left), s))
    assert out[0][0] == out[1][0]
    np.testing.assert_array_equal(out[0][1], out[1][1])
    ids = samples[start:end]
    v = X[ids, feature].astype(np.float64)
    left = (v <= threshold) | (np.isnan(v) & missing_left)
    expect = samples.copy()
    expect[start:end] = np.concatenate([ids[left], ids[~left]])
    np.testing.assert_array_equal(out[0][1], expect)
    assert out[0][0] == left.sum()
