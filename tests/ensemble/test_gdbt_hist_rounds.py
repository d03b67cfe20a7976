"""GDBT-MI with the histogram search: the rounds read the instances and the codes in place."""

import tracemalloc

import numpy as np
import pytest

from mil import Bags
from mil.ensemble import GDBTMIClassifier
from mil.tree._builder import build_tree
from mil.tree._rows import BinnedRows


def _bags(seed=0, n_bags=70, d=6, coarse=True):
    rng = np.random.RandomState(seed)
    sizes = rng.randint(1, 9, n_bags)
    X = rng.standard_normal((int(sizes.sum()), d))
    if coarse:
        X = np.round(X, 1)  # ties between instances and bags
    X[rng.rand(*X.shape) < 0.03] = np.nan
    y = rng.rand(n_bags) < 0.5
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    X[offsets[:-1][y], 0] += 1.5
    return X, offsets, y.astype(np.uint8)


@pytest.mark.parametrize("features", [None, [1, 3, 4]])
@pytest.mark.parametrize("splitter", ["exact", "hist"])
def test_zero_weight_bags_and_features_grow_the_tree_of_the_copied_bags(backend, splitter, features):
    # One round of GDBT-MI: its in-bag bags with a feature subset, grown on copies of them, or in place
    # on the whole array with the out-of-bag bags at weight 0 and `features`: the same tree.
    X, offsets, y = _bags()
    rng = np.random.RandomState(3)
    n_bags = y.shape[0]
    inbag = np.sort(rng.choice(n_bags, n_bags // 2, replace=False))
    weight = rng.uniform(0.2, 3.0, inbag.size)
    bag = np.repeat(np.arange(n_bags), np.diff(offsets))
    sub = Bags(X, offsets).subset(inbag)
    cols = np.arange(X.shape[1]) if features is None else np.array(features)
    keep = np.zeros(n_bags, dtype=bool)
    keep[inbag] = True
    kw = dict(criterion="gain_ratio", growth="best", split_shares="children", splitter=splitter)
    presorted = BinnedRows(X) if splitter == "hist" else None  # the bins of all the bags, as in a fit
    a, leaf_a = build_tree(np.ascontiguousarray(sub.instances[:, cols]), sub.instance_bag, y[inbag], weight,
                           presorted=None if presorted is None else presorted.rows(cols).subset(keep[bag]), **kw)
    full_w = np.zeros(n_bags)
    full_w[inbag] = weight
    b, leaf_b = build_tree(X, bag, y, full_w, features=features, presorted=presorted, **kw)
    internal = a.feature >= 0
    np.testing.assert_array_equal(cols[a.feature[internal]], b.feature[internal])
    for name in ("children_left", "children_right", "missing_left", "n_pos_bags", "n_neg_bags", "weighted_pos",
                 "weighted_neg", "value"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    if splitter == "hist":  # what GDBT-MI relies on: the very same tree
        np.testing.assert_array_equal(a.threshold, b.threshold)
        np.testing.assert_array_equal(a.gain, b.gain)
    else:  # the exact search sums the node's weights in another order: the gains' last bits may differ
        np.testing.assert_allclose(a.gain, b.gain, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(leaf_a, leaf_b[keep[bag]])
    assert (leaf_b[~keep[bag]] == -1).all()


def test_features_are_checked():
    X, offsets, y = _bags()
    bag = np.repeat(np.arange(y.shape[0]), np.diff(offsets))
    for bad in ([3, 1], [0, 6], [], [-1, 2]):
        with pytest.raises(ValueError, match="features must be increasing"):
            build_tree(X, bag, y, features=bad)
    with pytest.raises(ValueError, match="max_features"):
        build_tree(X, bag, y, features=[0, 1], max_features=1, random_state=np.random.RandomState(0))


@pytest.mark.parametrize("options", [dict(), dict(feature_sampling="node"), dict(subsample=1.0),
                                     dict(max_features=None, n_iter_no_change=2)])
def test_hist_rounds_copy_no_instances(monkeypatch, options):
    X, offsets, y = _bags(coarse=False)
    X = X.astype(np.float32)
    bags = Bags(X, offsets)
    grown_on = []
    import mil.ensemble._gdbt_trees as gdbt

    def spy(instances, *args, **kwargs):
        grown_on.append(instances)
        return build_tree(instances, *args, **kwargs)

    monkeypatch.setattr(gdbt, "build_tree", spy)
    est = GDBTMIClassifier(n_estimators=4, splitter="hist", random_state=0, **dict(dict(max_features=3), **options))
    if "n_iter_no_change" not in options:  # early stopping copies the training bags once, not per round
        monkeypatch.setattr(Bags, "subset", lambda *a: pytest.fail("a round copied its bags"))
    est.fit(bags, y)
    assert len(grown_on) == est.n_estimators_
    train = grown_on[0]
    assert all(t is train for t in grown_on)  # one array, never sliced by bag or feature
    if "n_iter_no_change" not in options:
        assert train.dtype == np.float32 and np.shares_memory(train, X)


def test_max_leaf_nodes_bounds_the_trees(backend):
    X, offsets, y = _bags(coarse=False, n_bags=120)
    for splitter in ("exact", "hist"):
        est = GDBTMIClassifier(n_estimators=3, splitter=splitter, random_state=0, max_leaf_nodes=4,
                               min_bags_leaf=1).fit(Bags(X, offsets), y)
        leaves = [int((t.children_left < 0).sum()) for t in est.estimators_]
        assert max(leaves) == 4
        assert all(t.node_count <= 7 for t in est.estimators_)


def test_fit_memory_is_the_codes_plus_bookkeeping_per_instance():
    # The fit allocates the bin codes (1 byte per value) and O(instances) bookkeeping, no copy of the
    # instances (64 float32 features: 256 bytes per instance).
    rng = np.random.RandomState(0)
    sizes = rng.randint(10, 30, 300)
    n, d = int(sizes.sum()), 64
    X = rng.standard_normal((n, d)).astype(np.float32)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    y = (rng.rand(sizes.size) < 0.5).astype(int)
    X[offsets[:-1][y == 1], :4] += 2.0
    bags = Bags(X, offsets)
    est = GDBTMIClassifier(n_estimators=3, splitter="hist", random_state=0)
    tracemalloc.start()
    try:
        est.fit(bags, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    per_instance = (peak - X.size) / n  # bytes beyond the codes
    assert peak < 0.5 * X.nbytes + 200 * n, (peak / X.nbytes, per_instance)
