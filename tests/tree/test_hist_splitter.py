"""The `splitter` option of the tree family: "hist" grows the exact trees when each value has a bin."""

import numpy as np
import pytest

from mil import Bags
from mil.ensemble import GDBTMIClassifier, MIRandomForestClassifier
from mil.tree import C45MIClassifier, ID3MIClassifier
from mil.utils.estimator_checks import make_toy_bags


def _coarse_bags(seed=0, n_bags=80):
    X, y = make_toy_bags(n_bags=n_bags, random_state=seed)
    return [np.round(b, 1) for b in X], y  # few distinct values: one bin each


@pytest.mark.parametrize("make", [
    lambda sp: C45MIClassifier(splitter=sp),
    lambda sp: ID3MIClassifier(splitter=sp),
    lambda sp: MIRandomForestClassifier(n_estimators=5, random_state=0, splitter=sp),
    lambda sp: GDBTMIClassifier(n_estimators=5, random_state=0, subsample=1.0, splitter=sp),
    lambda sp: GDBTMIClassifier(n_estimators=5, random_state=0, max_features=2, splitter=sp),  # half the bags
])
def test_hist_equals_exact_with_one_bin_per_value(backend, make):
    X, y = _coarse_bags()
    Xt, _ = _coarse_bags(seed=1, n_bags=30)
    a, b = make("exact").fit(X, y), make("hist").fit(X, y)
    # The same splits of the training instances; a threshold may sit elsewhere in the gap between two
    # of a node's values, which moves only instances the tree did not see (test or out-of-bag bags).
    trees_a, trees_b = (getattr(m, "estimators_", [m]) for m in (a, b))
    if isinstance(a, GDBTMIClassifier):
        # Its leaf values route every instance (also those positive-bag removal took out), so the
        # rounds after the first see other scores.
        trees_a, trees_b = trees_a[:1], trees_b[:1]
    for ta, tb in zip(trees_a, trees_b):
        ta, tb = getattr(ta, "tree_", ta), getattr(tb, "tree_", tb)
        for name in ("feature", "children_left"):
            np.testing.assert_array_equal(getattr(ta, name), getattr(tb, name))
        # Boosting's bag weights are not whole: their sums may differ in the last bits.
        np.testing.assert_allclose(ta.gain, tb.gain, rtol=1e-12, atol=1e-14)
    if not hasattr(a, "estimators_"):
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert (a.predict(Xt) == b.predict(Xt)).mean() > 0.8


def test_hist_rejects_cut_placements_it_cannot_keep():
    X, y = _coarse_bags()
    with pytest.raises(ValueError, match="histogram search"):
        C45MIClassifier(splitter="hist", cut_placement="run-middle").fit(X, y)


def test_subsample_instances_is_seeded_and_keeps_order():
    from mil import Bags

    rng = np.random.RandomState(0)
    sizes = np.array([1, 3, 7, 12, 4])
    X = np.arange(sizes.sum() * 2, dtype=np.float64).reshape(-1, 2)
    bags = Bags(X, np.concatenate([[0], np.cumsum(sizes)]))
    a, b = bags.subsample_instances(4, random_state=3), bags.subsample_instances(4, random_state=3)
    np.testing.assert_array_equal(a.instances, b.instances)
    np.testing.assert_array_equal(a.sizes, np.minimum(sizes, 4))
    for i in range(bags.n_bags):
        rows = a[i][:, 0]
        assert np.isin(rows, bags[i][:, 0]).all() and (np.diff(rows) > 0).all()
    assert bags.subsample_instances(12) is bags
    others = {tuple(bags.subsample_instances(4, random_state=s).instances[:, 0]) for s in range(5)}
    assert len(others) > 1
    with pytest.raises(ValueError, match="max_instances"):
        bags.subsample_instances(0)
    del rng


@pytest.mark.parametrize("make", [
    lambda **k: C45MIClassifier(splitter="hist", **k),
    lambda **k: MIRandomForestClassifier(n_estimators=3, splitter="hist", **k),
    lambda **k: GDBTMIClassifier(n_estimators=3, **k),
])
def test_max_instances_per_bag_is_seeded(make):
    X, y = make_toy_bags(n_bags=60, random_state=0)
    a = make(max_instances_per_bag=2, random_state=0).fit(X, y)
    b = make(max_instances_per_bag=2, random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    full = make(random_state=0).fit(X, y)
    assert full.predict_proba(X).shape == a.predict_proba(X).shape


@pytest.mark.parametrize("make", [
    lambda **k: C45MIClassifier(**k),
    lambda **k: MIRandomForestClassifier(n_estimators=3, splitter="hist", **k),
    lambda **k: GDBTMIClassifier(n_estimators=3, **k),
])
def test_max_instances_per_bag_fits_the_subsampled_bags(make):
    # The model is the one fitted on Bags.subsample_instances(k, seed), the seed the first draw of
    # the fit's generator (which goes on to the fit's other draws), with zero-weight bags dropped
    # after the draw (the draw sees every bag).
    X, y = make_toy_bags(n_bags=60, random_state=0)
    w = np.ones(len(y))
    w[::7] = 0.0
    rng = np.random.RandomState(0)
    small = Bags.from_list(X).subsample_instances(2, random_state=int(rng.randint(np.iinfo(np.int32).max)))
    assert (small.sizes < Bags.from_list(X).sizes).any()
    a = make(max_instances_per_bag=2, random_state=0).fit(X, y, sample_weight=w)
    b = make(random_state=rng).fit(small, y, sample_weight=w)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
