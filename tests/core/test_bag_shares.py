"""Bag-ratio rules: shares against brute force, the rule search and routing, twin agreement."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mil._core import compiled_available, kernel, twins


def brute_shares(bags, f, theta):
    # x <= theta counts; NaN never does, but counts in the bag's size.
    return np.array([sum(1 for v in b[:, f] if v <= theta) / len(b) for b in bags])


def _layout(bags):
    X = np.vstack(bags)
    offsets = np.r_[0, np.cumsum([len(b) for b in bags])].astype(np.intp)
    return X, offsets


def test_shares_ties_one_instance_and_nan(backend):
    bags = [np.array([[1.0], [2.0], [2.0], [3.0]]),  # ties at theta = 2
            np.array([[2.0]]),                       # one instance, on theta
            np.array([[np.nan], [1.0]]),             # NaN counts in the size only
            np.array([[np.nan]]),                    # no observed value: share 0
            np.array([[5.0]])]
    X, off = _layout(bags)
    shares = kernel("_bag_shares").bag_shares(X[:, 0], off, np.arange(5), 2.0)
    np.testing.assert_array_equal(shares, [0.75, 1.0, 0.5, 0.0, 0.0])
    np.testing.assert_array_equal(shares, brute_shares(bags, 0, 2.0))
    # A subset of the bags, in any order.
    np.testing.assert_array_equal(
        kernel("_bag_shares").bag_shares(X[:, 0], off, np.array([4, 0]), 3.0), [0.0, 1.0])


def _brute_best_rule(bags, cls, w, n_classes, features, ut, ur, best_ratio, min_bags):
    """Every candidate scored one by one; the first of least loss wins."""
    def mass(ws):
        W = sum(ws)
        return (W * math.log2(W) if W > 0 else 0.0) - sum(x * math.log2(x) for x in ws if x > 0)

    best = None
    for a, f in enumerate(features):
        vals = np.concatenate([b[:, f] for b in bags])
        vals = vals[~np.isnan(vals)]
        if not vals.size or not vals.max() > vals.min():
            continue
        lo, hi = vals.min(), vals.max()
        for k in range(ut.shape[1]):
            theta = lo + ut[a, k] * (hi - lo)
            s = brute_shares(bags, f, theta)
            if best_ratio:
                levels = np.unique(s)[::-1]
                ratios = [levels[i + 1] / 2 + levels[i] / 2 for i in range(len(levels) - 1)]
            else:
                ratios = [ur[a, k]]
            for r in ratios:
                left = s > r
                if left.sum() < min_bags or (~left).sum() < min_bags:
                    continue
                loss = sum(mass([w[side & (cls == c)].sum() for c in range(n_classes)])
                           for side in (left, ~left))
                if best is None or loss < best[0] - 1e-9:
                    best = (loss, f, theta, r)
    return best


@pytest.mark.parametrize("best_ratio", [False, True])
def test_best_rule_brute_force(backend, best_ratio):
    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(2, 9))
        bags = [rng.integers(0, 5, (int(rng.integers(1, 5)), 3)).astype(float) for _ in range(n)]
        for b in bags:
            b[rng.random(b.shape) < 0.1] = np.nan
        X, off = _layout(bags)
        cls = rng.integers(0, 3, n)
        w = rng.integers(1, 4, n).astype(float)
        feats = np.array([2, 0])
        ut, ur = rng.random((2, 4)), rng.random((2, 4))
        k = kernel("_bag_shares")
        got = k.best_rule(k.ShareTable(X.T, off), np.arange(n), cls, w, 3, feats, ut, ur, best_ratio, 1)
        want = _brute_best_rule(bags, cls, w, 3, feats, ut, ur, best_ratio, 1)
        if want is None:
            assert got is None
            continue
        f, theta, r, gain, go_left = got
        np.testing.assert_array_equal(go_left, brute_shares(bags, f, theta) > r)
        assert (f, r) == (want[1], pytest.approx(want[3]))
        assert theta == pytest.approx(want[2])
        parent = (w.sum() * math.log2(w.sum())
                  - sum(x * math.log2(x) for x in np.bincount(cls, w, 3) if x > 0))
        assert gain == pytest.approx(parent - want[0])


def test_best_rule_min_bags_and_constant_features(backend):
    k = kernel("_bag_shares")
    bags = [np.array([[1.0, 0.0]]), np.array([[2.0, 0.0]]), np.array([[3.0, 0.0]])]
    X, off = _layout(bags)
    args = (k.ShareTable(X.T, off), np.arange(3), np.array([0, 1, 1]), np.ones(3), 2)
    # Feature 1 is constant: no rule.
    assert k.best_rule(*args, np.array([1]), np.full((1, 4), 0.5), np.full((1, 4), 0.5)) is None
    # Two bags per child cannot be had from three bags.
    assert k.best_rule(*args, np.array([0]), np.full((1, 4), 0.5), np.full((1, 4), 0.5),
                       True, 2) is None
    # The best ratio separates bag 0 (share 1 at theta 1.2) from the others.
    f, theta, r, gain, go_left = k.best_rule(*args, np.array([0]), np.full((1, 1), 0.1), np.full((1, 1), 0.99),
                                             True)
    assert (f, theta, r) == (0, pytest.approx(1.2), 0.5)
    np.testing.assert_array_equal(go_left, [True, False, False])
    assert gain == pytest.approx(3 * math.log2(3) - 2 * math.log2(2))


def brute_apply(bags, feature, threshold, ratio, left, right):
    out = []
    for b in bags:
        node = 0
        while left[node] >= 0:
            share = np.sum(b[:, feature[node]] <= threshold[node]) / len(b)
            node = left[node] if share > ratio[node] else right[node]
        out.append(node)
    return np.array(out)


def test_apply_brute_force(backend):
    rng = np.random.default_rng(1)
    bags = [rng.normal(size=(int(rng.integers(1, 6)), 3)) for _ in range(40)]
    bags[0][0, 1] = np.nan
    X, off = _layout(bags)
    # 0 -> (1, 2); 1 -> (3, 4); leaves 2, 3, 4
    feature = np.array([1, 0, -1, -1, -1])
    threshold = np.array([0.0, 0.5, 0, 0, 0])
    ratio = np.array([0.5, 0.0, 0, 0, 0])
    left = np.array([1, 3, -1, -1, -1])
    right = np.array([2, 4, -1, -1, -1])
    got = kernel("_bag_shares").apply_bags(X, off, feature, threshold, ratio, left, right)
    np.testing.assert_array_equal(got, brute_apply(bags, feature, threshold, ratio, left, right))
    assert set(got) == {2, 3, 4}


def test_bad_arguments(backend):
    k = kernel("_bag_shares")
    X, off = _layout([np.ones((2, 2)), np.ones((1, 2))])
    with pytest.raises(ValueError, match="bags"):
        k.bag_shares(X[:, 0], off, np.array([2]), 0.0)
    with pytest.raises(ValueError, match="offsets"):
        k.bag_shares(X[:, 0], np.array([0, 2]), np.array([0]), 0.0)
    table = k.ShareTable(X.T, off)
    with pytest.raises(ValueError, match="features"):
        k.best_rule(table, np.arange(2), np.array([0, 1]), np.ones(2), 2,
                    np.array([5]), np.zeros((1, 2)), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="bag_weight"):
        k.best_rule(table, np.arange(2), np.array([0, 1]), np.zeros(2), 2,
                    np.array([0]), np.zeros((1, 2)), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="bags"):
        k.best_rule(table, np.array([0, 2]), np.array([0, 1]), np.ones(2), 2,
                    np.array([0]), np.zeros((1, 2)), np.zeros((1, 2)))
    with pytest.raises(TypeError, match="ShareTable"):
        k.best_rule(X.T, np.arange(2), np.array([0, 1]), np.ones(2), 2,
                    np.array([0]), np.zeros((1, 2)), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="offsets"):
        k.ShareTable(X.T, np.array([0, 1]))
    with pytest.raises(ValueError, match="later nodes"):
        k.apply_bags(X, off, np.array([0, -1]), np.zeros(2), np.zeros(2), np.array([0, -1]),
                     np.array([1, -1]))


def test_twins_share_public_names():
    compiled, python = twins("_bag_shares")
    if compiled is None:
        pytest.skip("compiled kernels are not built")
    assert compiled.__all__ == python.__all__


@pytest.mark.skipif(not compiled_available("_bag_shares"), reason="compiled kernels are not built")
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 31), n_classes=st.integers(2, 3), best_ratio=st.booleans(),
       unit=st.booleans(), min_bags=st.integers(1, 2))
def test_compiled_and_twin_identical(seed, n_classes, best_ratio, unit, min_bags):
    # Small integer values: many ties at the thresholds and among the shares.
    compiled, python = twins("_bag_shares")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 15))
    bags = [rng.integers(0, 4, (int(rng.integers(1, 6)), 4)).astype(float) for _ in range(n)]
    for b in bags:
        b[rng.random(b.shape) < 0.1] = np.nan
    X, off = _layout(bags)
    XT = np.ascontiguousarray(X.T)
    table = compiled.ShareTable(XT, off)
    node = rng.permutation(n)[: int(rng.integers(2, n + 1))]
    cls = rng.integers(0, n_classes, node.size)
    w = np.ones(node.size) if unit else rng.random(node.size) + 0.01
    feats = rng.permutation(4)[:3]
    ut, ur = rng.random((3, 6)), rng.random((3, 6))
    args = (table, node, cls, w, n_classes, feats, ut, ur, best_ratio, min_bags)
    a, b = compiled.best_rule(*args), python.best_rule(*args)
    assert (a is None) == (b is None)
    if a is not None:
        assert a[:4] == b[:4]
        np.testing.assert_array_equal(a[4], b[4])
    theta = float(rng.integers(0, 4))
    np.testing.assert_array_equal(compiled.bag_shares(XT[1], off, node, theta),
                                  python.bag_shares(XT[1], off, node, theta))
    tree = (np.array([0, 2, -1, -1, -1]), np.array([1.0, 2.0, 0, 0, 0]), np.array([0.3, 0.5, 0, 0, 0]),
            np.array([1, 3, -1, -1, -1]), np.array([2, 4, -1, -1, -1]))
    np.testing.assert_array_equal(compiled.apply_bags(X, off, *tree), python.apply_bags(X, off, *tree))


def _brute_best_regression_rule(bags, y, w, features, ut, ur, best_ratio, min_bags):
    """Every candidate scored one by one by the children's weighted squared deviations."""
    def sse(side):
        W = w[side].sum()
        return float((w[side] * (y[side] - (w[side] * y[side]).sum() / W) ** 2).sum()) if W > 0 else 0.0

    best = None
    for a, f in enumerate(features):
        vals = np.concatenate([b[:, f] for b in bags])
        vals = vals[~np.isnan(vals)]
        if not vals.size or not vals.max() > vals.min():
            continue
        lo, hi = vals.min(), vals.max()
        for k in range(ut.shape[1]):
            theta = lo + ut[a, k] * (hi - lo)
            s = brute_shares(bags, f, theta)
            levels = np.unique(s)[::-1]
            ratios = [levels[i + 1] / 2 + levels[i] / 2 for i in range(len(levels) - 1)] if best_ratio else [ur[a, k]]
            for r in ratios:
                left = s > r
                if left.sum() < min_bags or (~left).sum() < min_bags:
                    continue
                loss = sse(left) + sse(~left)
                if best is None or loss < best[0] - 1e-9:
                    best = (loss, f, theta, r)
    return best


@pytest.mark.parametrize("best_ratio", [False, True])
def test_best_regression_rule_brute_force(backend, best_ratio):
    # Variance reduction: the rule of least summed squared deviation of the children's targets.
    rng = np.random.default_rng(5)
    k = kernel("_bag_shares")
    for _ in range(30):
        n = int(rng.integers(2, 9))
        bags = [rng.integers(0, 5, (int(rng.integers(1, 5)), 3)).astype(float) for _ in range(n)]
        for b in bags:
            b[rng.random(b.shape) < 0.1] = np.nan
        X, off = _layout(bags)
        y, w = rng.normal(size=n) * 3, rng.integers(1, 4, n).astype(float)
        feats, ut, ur = np.array([2, 0]), rng.random((2, 4)), rng.random((2, 4))
        got = k.best_regression_rule(k.ShareTable(X.T, off), np.arange(n), y, w, feats, ut, ur, best_ratio, 1)
        want = _brute_best_regression_rule(bags, y, w, feats, ut, ur, best_ratio, 1)
        if want is None:
            assert got is None
            continue
        f, theta, r, gain, go_left = got
        np.testing.assert_array_equal(go_left, brute_shares(bags, f, theta) > r)
        # Equal losses are ties up to the sums' rounding (a one-bag child's deviation is 0 or 1e-16):
        # the rule found is one of least loss.
        loss = sum(float((w[s] * (y[s] - (w[s] * y[s]).sum() / w[s].sum()) ** 2).sum()) for s in (go_left, ~go_left))
        assert loss == pytest.approx(want[0], abs=1e-9)
        parent = float((w * (y - (w * y).sum() / w.sum()) ** 2).sum())
        assert gain == pytest.approx(parent - want[0], abs=1e-9)
    with pytest.raises(ValueError, match="bag_target must be finite"):
        k.best_regression_rule(k.ShareTable(X.T, off), np.arange(n), np.full(n, np.nan), w, feats, ut, ur)


@pytest.mark.skipif(not compiled_available("_bag_shares"), reason="compiled kernels are not built")
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2 ** 31), best_ratio=st.booleans(), unit=st.booleans(), min_bags=st.integers(1, 2))
def test_compiled_and_twin_identical_regression_rules(seed, best_ratio, unit, min_bags):
    # Ties at the thresholds and among the shares, repeated targets: the same rule, gain and bags, bit for bit.
    compiled, python = twins("_bag_shares")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 15))
    bags = [rng.integers(0, 4, (int(rng.integers(1, 6)), 4)).astype(float) for _ in range(n)]
    for b in bags:
        b[rng.random(b.shape) < 0.1] = np.nan
    X, off = _layout(bags)
    table = compiled.ShareTable(np.ascontiguousarray(X.T), off)
    node = rng.permutation(n)[: int(rng.integers(2, n + 1))]
    y = rng.integers(-3, 4, node.size) * rng.choice([1.0, 0.37])
    w = np.ones(node.size) if unit else rng.random(node.size) + 0.01
    feats, ut, ur = rng.permutation(4)[:3], rng.random((3, 6)), rng.random((3, 6))
    args = (table, node, y, w, feats, ut, ur, best_ratio, min_bags)
    a, b = compiled.best_regression_rule(*args), python.best_regression_rule(*args)
    assert (a is None) == (b is None)
    if a is not None:
        assert a[:4] == b[:4]
        np.testing.assert_array_equal(a[4], b[4])
