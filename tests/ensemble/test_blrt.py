"""BagRandomTreesClassifier (BLRT): the bag-ratio rule, determinism, backends, averaging, classes."""

import pickle

import numpy as np
import pytest

import mil
from mil._core import compiled_available, use_backend
from mil.ensemble import BagRandomTreesClassifier, BagRatioTree
from mil.utils.estimator_checks import check_bag_classifier, make_toy_bags


def _table(bags):
    return np.vstack(bags), np.r_[0, np.cumsum([len(b) for b in bags])].astype(np.intp)


def _same_trees(a, b):
    keys = ("feature", "threshold", "ratio", "left", "right", "value", "gain", "n_node_bags")
    return len(a.estimators_) == len(b.estimators_) and all(
        np.array_equal(getattr(s, k), getattr(t, k)) for s, t in zip(a.estimators_, b.estimators_) for k in keys)


def test_exported():
    assert mil.BagRandomTreesClassifier is BagRandomTreesClassifier


def test_bag_classifier_contract(backend):
    check_bag_classifier(BagRandomTreesClassifier(n_estimators=5, random_state=0),
                         param_grid={"n_rules": [2, 16]})


@pytest.mark.parametrize("eps", [0.0, 1e-9])
def test_ratio_ends_are_the_any_and_all_rules(backend, eps):
    # One rule on feature 0 at theta = 0.3: r = 0 is "some instance has x <= theta",
    # r just below 1 is "every instance has x <= theta".
    rng = np.random.default_rng(0)
    bags = [rng.uniform(0, 1, (int(rng.integers(1, 6)), 2)) for _ in range(200)]
    X, off = _table(bags)
    some = np.array([(b[:, 0] <= 0.3).any() for b in bags])
    every = np.array([(b[:, 0] <= 0.3).all() for b in bags])
    assert some.any() and every.any() and (some != every).any()
    for r, rule in ((0.0 + eps, some), (1.0 - max(eps, 1e-9), every)):
        tree = BagRatioTree([0, -1, -1], [0.3, 0, 0], [r, 0, 0], [1, -1, -1], [2, -1, -1],
                            np.eye(3)[:, :2], [1.0, 0, 0], [200, 0, 0])
        np.testing.assert_array_equal(tree.apply(X, off) == 1, rule)


def test_learns_the_any_and_all_concepts(backend):
    # Positive bags: some instance (resp. every instance) below 0.2 on feature 0. One tree with
    # the best ratio separates the training bags.
    rng = np.random.default_rng(1)
    bags = [rng.uniform(0.3, 1, (int(rng.integers(2, 6)), 3)) for _ in range(80)]
    y_some = np.arange(80) % 2
    for b, c in zip(bags, y_some):
        if c:
            b[0, 0] = 0.1
    est = BagRandomTreesClassifier(n_estimators=1, max_features=None, n_rules=64, ratio="best", random_state=0)
    assert est.fit(bags, y_some).score(bags, y_some) == 1.0


def test_backends_give_identical_models():
    if not compiled_available("_bag_shares"):
        pytest.skip("compiled kernels are not built")
    X, y = make_toy_bags(n_bags=40, n_classes=3, random_state=2)
    X[0][0, 1] = np.nan
    for ratio in ("random", "best"):
        est = BagRandomTreesClassifier(n_estimators=5, ratio=ratio, random_state=0)
        with use_backend("compiled"):
            a = pickle.loads(pickle.dumps(est.fit(X, y)))
            pa = a.predict_proba(X)
        with use_backend("python"):
            b = BagRandomTreesClassifier(n_estimators=5, ratio=ratio, random_state=0).fit(X, y)
            assert _same_trees(a, b)
            np.testing.assert_array_equal(a.predict_proba(X), pa)  # pickled on one, predicts on the other


def test_n_jobs_does_not_change_the_model(backend):
    X, y = make_toy_bags(n_bags=40)
    a = BagRandomTreesClassifier(n_estimators=6, random_state=3, n_jobs=1).fit(X, y)
    b = BagRandomTreesClassifier(n_estimators=6, random_state=3, n_jobs=2).fit(X, y)
    assert _same_trees(a, b)
    np.testing.assert_array_equal(a.predict_proba(X), b.set_params(n_jobs=2).predict_proba(X))


def test_forest_is_the_average_of_its_trees(backend):
    X, y = make_toy_bags(n_bags=40, random_state=4)
    est = BagRandomTreesClassifier(n_estimators=7, random_state=0).fit(X, y)
    inst, off = _table(X)
    mean = np.mean([t.predict_proba(inst, off) for t in est.estimators_], axis=0)
    np.testing.assert_allclose(est.predict_proba(X), mean, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(est.predict(X), est.classes_[np.argmax(mean, axis=1)])


def test_three_classes(backend):
    X, y = make_toy_bags(n_bags=60, n_classes=3, random_state=5)
    labels = np.array(["a", "b", "c"])[y]
    est = BagRandomTreesClassifier(n_estimators=20, random_state=0).fit(X, labels)
    assert list(est.classes_) == ["a", "b", "c"]
    proba = est.predict_proba(X)
    assert proba.shape == (60, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert est.score(X, labels) > 0.9
    assert est.decision_function(X).shape == (60, 3)


def test_any_two_labels():
    # Both classes play the same role: no positive_class needed.
    X, y = make_toy_bags(n_bags=30)
    est = BagRandomTreesClassifier(n_estimators=3, random_state=0).fit(X, np.where(y == 1, "yes", "no"))
    assert set(est.predict(X)) <= {"yes", "no"}


def test_zero_weight_is_removal_and_weights_are_copies(backend):
    X, y = make_toy_bags(n_bags=30, random_state=6)
    w = np.ones(30)
    w[:5] = 0
    a = BagRandomTreesClassifier(n_estimators=4, random_state=0).fit(X, y, sample_weight=w)
    b = BagRandomTreesClassifier(n_estimators=4, random_state=0).fit(X[5:], y[5:])
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    w2 = np.ones(30)
    w2[7] = 2
    c = BagRandomTreesClassifier(n_estimators=4, random_state=0).fit(X, y, sample_weight=w2)
    d = BagRandomTreesClassifier(n_estimators=4, random_state=0).fit(X + [X[7]], np.r_[y, y[7]])
    np.testing.assert_array_equal(c.predict_proba(X), d.predict_proba(X))


def test_bootstrap_oob_and_importances(backend):
    X, y = make_toy_bags(n_bags=50, random_state=7)
    est = BagRandomTreesClassifier(n_estimators=30, bootstrap=True, oob_score=True, random_state=0).fit(X, y)
    assert 0.7 <= est.oob_score_ <= 1.0
    assert est.oob_decision_function_.shape == (50, 2)
    assert est.feature_importances_.shape == (4,)
    assert est.feature_importances_.sum() == pytest.approx(1.0)
    assert np.argmax(est.feature_importances_) == 0  # the concept lives on feature 0
    assert all(s.shape == (50,) for s in est.estimators_samples_)
    with pytest.raises(ValueError, match="bootstrap"):
        BagRandomTreesClassifier(oob_score=True).fit(X, y)


def test_limits_and_text(backend):
    X, y = make_toy_bags(n_bags=40, random_state=8)
    est = BagRandomTreesClassifier(n_estimators=3, max_depth=2, min_bags_leaf=3, random_state=0).fit(X, y)
    for tree in est.estimators_:
        assert tree.max_depth <= 2
        assert tree.n_node_bags[tree.left < 0].min() >= 3
    text = est.export_text(0, feature_names=["a", "b", "c", "d"])
    assert "share of instances with" in text and "(bags: 0=" in text
    assert text.splitlines()[0] == "tree 0 of 3 (estimators_[0])"
    assert text.splitlines()[1].startswith("|--- share of instances with ")
    assert str(est.estimators_[0]) == est.estimators_[0].export_text()
    assert est.estimators_[0].export_text(feature_names=["a", "b", "c", "d"]) == text.split("\n", 1)[1]
    with pytest.raises(ValueError, match="feature_names"):
        est.export_text(0, feature_names=["a"])


def test_missing_values(backend):
    X, y = make_toy_bags(n_bags=40, random_state=9)
    X = [b.copy() for b in X]
    for b in X[::3]:
        b[0, :] = np.nan
    est = BagRandomTreesClassifier(n_estimators=10, random_state=0).fit(X, y)
    assert np.isfinite(est.predict_proba(X)).all()


@pytest.mark.parametrize("blocks", [False, True])
def test_float32_bags_are_read_as_they_are(blocks, monkeypatch):
    # The share table is filled from float32 instances a block of rows at a time: the forest is
    # the one grown on their float64 copy, bit for bit, and no float64 copy of the bags is made.
    import mil._scaling as scaling
    from mil import Bags
    from mil.tree import _bag_ratio

    X, y = make_toy_bags(n_bags=40, random_state=3)
    bags = Bags.from_list(X)
    bags32 = Bags(bags.instances.astype(np.float32), bags.offsets)
    bags64 = Bags(bags32.instances.astype(np.float64), bags32.offsets)
    if blocks:
        monkeypatch.setattr(scaling, "BLOCK_BYTES", 8 * bags.n_features * 9)  # blocks of 9 rows
    seen = []
    original = _bag_ratio.share_table
    monkeypatch.setattr("mil.ensemble._blrt.share_table", lambda b: seen.append(b.instances.dtype) or original(b))
    a = BagRandomTreesClassifier(n_estimators=10, random_state=0).fit(bags32, y)
    b = BagRandomTreesClassifier(n_estimators=10, random_state=0).fit(bags64, y)
    assert seen == [np.float32, np.float64]
    np.testing.assert_array_equal(a.predict_proba(bags32), b.predict_proba(bags64))
    table = original(bags32)
    np.testing.assert_array_equal(table.XT, bags64.instances.T)
