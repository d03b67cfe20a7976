"""The tree kernel's Python entry points: argument checks (both twins, same errors) and the gathered search.

Before these checks, ``best_splits`` with a bag index past ``bag_pos`` or a
segment past the rows read out of bounds, ``partition`` with an instance id
past ``go_left`` did too, and ``apply`` with a child pointing back to its
parent looped forever.
"""

import numpy as np
import pytest

from mil._core import kernel
from mil.tree._rows import PresortedRows


@pytest.fixture
def ts(backend):
    """The tree kernel of the backend under test."""
    return kernel("_tree_split")


def layout(seed=0, n=12, d=3, n_bags=4):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 1)
    bag = np.sort(rng.integers(0, n_bags, n)).astype(np.intp)
    bag[:n_bags] = np.arange(n_bags)
    return X, bag, PresortedRows(X, bag)


def split_args(n_bags=4):
    return (np.array([1, 0] * (n_bags // 2), dtype=np.uint8), np.ones(n_bags), 2.0, 2.0, 1.0, 1e-12, False)


def test_best_splits_checks(ts):
    _, _, pre = layout()
    pos, w, *rest = split_args()
    ok = ts.best_splits(pre.vals, pre.bag, 0, 12, pos, w, *rest)
    assert ok[0].shape == (3,)
    with pytest.raises(ValueError, match=r"end must lie in \[0, 12\]"):
        ts.best_splits(pre.vals, pre.bag, 0, 13, pos, w, *rest)
    with pytest.raises(ValueError, match=r"start must lie in"):
        ts.best_splits(pre.vals, pre.bag, -1, 5, pos, w, *rest)
    bad = pre.bag.copy()
    bad[1, 5] = 4
    with pytest.raises(ValueError, match=r"inst_bag holds bag indices from 0 to 4; they must lie in \[0, 4\)"):
        ts.best_splits(pre.vals, bad, 0, 12, pos, w, *rest)
    # Only the searched segment and rows are read, and checked.
    assert ts.best_splits(pre.vals, bad, 6, 12, pos, w, *rest)[0].shape == (3,)
    assert ts.best_splits(pre.vals, bad, 0, 12, pos, w, *rest, features=np.array([0, 2]))[0].shape == (2,)
    with pytest.raises(ValueError, match=r"features holds rows from 0 to 3"):
        ts.best_splits(pre.vals, pre.bag, 0, 12, pos, w, *rest, features=np.array([0, 3]))
    with pytest.raises(ValueError, match="bag_weight has 3 entries but bag_pos has 4"):
        ts.best_splits(pre.vals, pre.bag, 0, 12, pos, np.ones(3), *rest)
    with pytest.raises(ValueError, match=r"inst_bag has shape \(3, 11\) but vals has \(3, 12\)"):
        ts.best_splits(pre.vals, pre.bag[:, :11], 0, 11, pos, w, *rest)
    with pytest.raises(TypeError, match="vals must hold float64"):
        ts.best_splits(pre.vals.astype(complex), pre.bag, 0, 12, pos, w, *rest)
    with pytest.raises(ValueError, match="total_pos must be finite"):
        ts.best_splits(pre.vals, pre.bag, 0, 12, pos, w, np.nan, *rest[1:])
    # Safe conversions are accepted (int32 bag indices, a list of weights).
    again = ts.best_splits(pre.vals, pre.bag.astype(np.int32), 0, 12, pos, w.tolist(), *rest)
    np.testing.assert_array_equal(again[1], ok[1])


def test_partition_checks(ts):
    _, _, pre = layout()
    go = np.zeros(12, dtype=np.uint8)
    go[::2] = 1
    with pytest.raises(ValueError, match=r"order holds instance ids from 0 to 11; they must lie in \[0, 8\)"):
        ts.partition(pre.order, pre.vals, pre.bag, 0, 12, go[:8])
    with pytest.raises(ValueError, match=r"end must lie in \[2, 12\]"):
        ts.partition(pre.order, pre.vals, pre.bag, 2, 20, go)
    with pytest.raises(TypeError, match="order must be a writable C-contiguous int64 ndarray"):
        ts.partition(pre.order.astype(np.int32), pre.vals, pre.bag, 0, 12, go)
    with pytest.raises(ValueError, match="one shape"):
        ts.partition(pre.order, pre.vals[:2], pre.bag, 0, 12, go)
    assert ts.partition(pre.order, pre.vals, pre.bag, 0, 12, go) == 6
    assert go[pre.order[:, :6]].all() and not go[pre.order[:, 6:]].any()


def test_apply_checks(ts):
    # Root splits feature 1 at 0; leaves 1 and 2.
    tree = dict(feature=np.array([1, -1, -1]), threshold=np.array([0.0, np.nan, np.nan]),
                missing_left=np.zeros(3, dtype=np.uint8), left=np.array([1, -1, -1]), right=np.array([2, -1, -1]))
    X = np.array([[5.0, -1.0], [5.0, 1.0], [0.0, np.nan]])
    np.testing.assert_array_equal(ts.apply(X, *tree.values()), [1, 2, 2])
    with pytest.raises(ValueError, match=r"feature holds split features from 1 to 1; they must lie in \[0, 1\)"):
        ts.apply(X[:, :1], *tree.values())
    with pytest.raises(ValueError, match="numbered after their parent"):
        ts.apply(X, *{**tree, "left": np.array([0, -1, -1])}.values())  # the root its own child: endless
    with pytest.raises(ValueError, match="numbered after their parent and below 3"):
        ts.apply(X, *{**tree, "right": np.array([7, -1, -1])}.values())
    with pytest.raises(ValueError, match="node 0 has one child"):
        ts.apply(X, *{**tree, "right": np.array([-1, -1, -1])}.values())
    with pytest.raises(ValueError, match="threshold has 2 entries but feature has 3"):
        ts.apply(X, *{**tree, "threshold": np.zeros(2)}.values())
    with pytest.raises(ValueError, match="X must be 2-D"):
        ts.apply(X[0], *tree.values())


def test_gather_best_splits_checks(ts):
    _, _, pre = layout()
    pos, w, *rest = split_args()
    ids, feats = np.array([0, 3, 4, 7, 9]), np.array([2, 0])
    assert ts.gather_best_splits(pre.vals, pre.bag, pre.rank, ids, feats, pos, w, *rest)[0].shape == (2,)
    with pytest.raises(ValueError, match="ids must be distinct"):
        ts.gather_best_splits(pre.vals, pre.bag, pre.rank, np.array([0, 3, 3]), feats, pos, w, *rest)
    with pytest.raises(ValueError, match=r"ids holds instance ids from 0 to 12"):
        ts.gather_best_splits(pre.vals, pre.bag, pre.rank, np.array([0, 12]), feats, pos, w, *rest)
    with pytest.raises(ValueError, match=r"features holds rows from -1 to 2"):
        ts.gather_best_splits(pre.vals, pre.bag, pre.rank, ids, np.array([-1, 2]), pos, w, *rest)
    bad = pre.rank.copy()
    bad[2, 3] = 40
    with pytest.raises(ValueError, match=r"rank holds row positions from 0 to 40"):
        ts.gather_best_splits(pre.vals, pre.bag, bad, ids, feats, pos, w, *rest)
    with pytest.raises(ValueError, match=r"rank has shape \(2, 12\) but vals has \(3, 12\)"):
        ts.gather_best_splits(pre.vals, pre.bag, pre.rank[:2], ids, feats, pos, w, *rest)


@pytest.mark.parametrize("seed", range(6))
def test_gathered_search_equals_the_partitioned_segment(ts, seed):
    # Gathering a node's instances from the root rows gives exactly the
    # segment a stable partition leaves, hence the same results, bit for bit.
    rng = np.random.default_rng(seed)
    n, d, n_bags = 40, 5, 9
    X, bag, pre = layout(seed, n, d, n_bags)
    X[rng.random(X.shape) < 0.1] = np.nan
    pre = PresortedRows(X, bag)
    pos = (np.arange(n_bags) % 2).astype(np.uint8)
    w = rng.uniform(0.5, 2.0, n_bags)
    ids = np.sort(rng.choice(n, 25, replace=False))
    go = np.zeros(n, dtype=np.uint8)
    go[ids] = 1
    part = pre.copy()
    assert ts.partition(part.order, part.vals, part.bag, 0, n, go) == 25
    present = np.zeros(n_bags, bool)
    present[bag[ids]] = True
    tp, tn = float(np.sum(w[present & (pos == 1)])), float(np.sum(w[present & (pos == 0)]))
    feats = np.array([4, 0, 2])
    args = (pos, w, tp, tn, 1.0, 1e-12, True)
    expected = ts.best_splits(part.vals, part.bag, 0, 25, *args, features=feats)
    got = ts.gather_best_splits(pre.vals, pre.bag, pre.rank, rng.permutation(ids), feats, *args)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    assert expected[0].any()


@pytest.mark.parametrize("n_left", [0, 1, 3, 20, 37, 40])
def test_partition_is_stable_when_lopsided(ts, n_left):
    # Few instances to the left (moved from the back), few to the right, or
    # balanced: every row's segment ends as its stable partition. The node is
    # the right child (columns 8:48) of a first split, so start > 0.
    _, _, pre = layout(3, n=48, d=4, n_bags=6)
    first = np.zeros(48, dtype=np.uint8)
    first[:8] = 1
    assert ts.partition(pre.order, pre.vals, pre.bag, 0, 48, first) == 8
    go = np.zeros(48, dtype=np.uint8)
    go[np.random.default_rng(n_left).choice(np.arange(8, 48), n_left, replace=False)] = 1
    part = pre.copy()
    assert ts.partition(part.order, part.vals, part.bag, 8, 48, go) == n_left
    for row in range(4):
        seg = pre.order[row, 8:]
        expected = np.r_[pre.order[row, :8], seg[go[seg] == 1], seg[go[seg] == 0]]
        np.testing.assert_array_equal(part.order[row], expected)
        where = np.argsort(pre.order[row])[expected]  # positions in the row before the partition
        np.testing.assert_array_equal(part.vals[row], pre.vals[row][where])
        np.testing.assert_array_equal(part.bag[row], pre.bag[row][where])
