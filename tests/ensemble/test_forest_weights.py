"""MIRandomForestClassifier with sample_weight and class_weight (one weight per bag)."""

import numpy as np
import pytest
from sklearn.utils.class_weight import compute_sample_weight

import mil
from mil import Bags
from mil._core import compiled_available, use_backend
from mil.ensemble import MIRandomForestClassifier
from mil.ensemble._bagging import bootstrap_counts
from mil.ensemble._forest import _grow_one
from mil.tree import C45MIClassifier, ID3MIClassifier


def noisy_bags(seed, n_bags=40, n_features=5, n_classes=2):
    """Bags whose label shows weakly in feature 0 (trees of many nodes), classes imbalanced."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for i in range(n_bags):
        label = int(rng.random() < 0.3) if n_classes == 2 else i % n_classes
        bag = np.round(rng.normal(size=(rng.integers(1, 5), n_features)), 2)
        if label and rng.random() < 0.8:
            bag[0, label - 1] += 1.5
        X.append(bag)
        y.append(label)
    return X, np.array(y)


def all_trees(forest):
    return [t for est in forest.estimators_ for t in est.trees_]


def assert_same_forest(a, b, X):
    assert all(ta == tb for ta, tb in zip(all_trees(a), all_trees(b)))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize("n_classes", [2, 3])
def test_unit_weights_give_the_unweighted_forest(backend, n_classes):
    X, y = noisy_bags(0, n_classes=n_classes)
    kw = dict(n_estimators=5, random_state=0, oob_score=True, min_bags_leaf=2)
    plain = MIRandomForestClassifier(**kw).fit(X, y)
    assert max(t.node_count for t in all_trees(plain)) > 5
    for forest in (MIRandomForestClassifier(**kw).fit(X, y, sample_weight=np.ones(len(y))),
                   MIRandomForestClassifier(class_weight={c: 1.0 for c in range(n_classes)}, **kw).fit(X, y)):
        assert_same_forest(plain, forest, X)
        assert forest.oob_score_ == plain.oob_score_
        np.testing.assert_array_equal(forest.oob_decision_function_, plain.oob_decision_function_)


def test_leaf_weights_count_a_bootstrap_repeat_once(backend):
    # A tree's leaves count distinct bags (bootstrap multiplicity weighs the
    # splits only); sample weights weigh the leaves once per bag.
    X, y = noisy_bags(1)
    w = np.linspace(0.5, 2.0, len(y))
    forest = MIRandomForestClassifier(n_estimators=3, random_state=2, max_depth=1).fit(X, y, sample_weight=w)
    bags = Bags.from_list(X)
    for est, sample in zip(forest.estimators_, forest.estimators_samples_):
        counts = np.bincount(sample, minlength=len(y))
        root = est.tree_
        drawn = counts > 0
        pos = y == 1
        assert root.weighted_pos[0] == pytest.approx(np.sum((counts * w)[pos]))
        assert root.leaf_pos[0] == pytest.approx(np.sum(w[drawn & pos]))
        assert root.leaf_neg[0] == pytest.approx(np.sum(w[drawn & ~pos]))
        assert root.n_pos_bags[0] == np.sum(drawn & pos)
        leaves = root.apply(bags.instances)
        # Each leaf's weight is the weight of the distinct drawn bags reaching it.
        for leaf in np.flatnonzero(root.is_leaf):
            in_leaf = np.zeros(len(y), dtype=bool)
            in_leaf[bags.instance_bag[leaves == leaf]] = True
            assert root.leaf_pos[leaf] == pytest.approx(np.sum(w[in_leaf & drawn & pos]))


def test_zero_weight_equals_dropping_the_bag_in_each_tree(backend):
    X, y = noisy_bags(2)
    w = np.ones(len(y))
    dropped = np.array([0, 3, 7, 8, 20])
    w[dropped] = 0.0
    forest = MIRandomForestClassifier(n_estimators=4, random_state=5).fit(X, y, sample_weight=w)
    keep = np.flatnonzero(w > 0)
    sub = Bags.from_list([X[i] for i in keep])
    seeds = np.random.RandomState(5).randint(np.iinfo(np.int32).max, size=4)
    template = forest._template()
    for est, seed in zip(forest.estimators_, seeds):
        counts = bootstrap_counts(seed, len(y), len(y))  # drawn over all bags, as without weights
        alone = _grow_one(template, int(seed), sub, y[keep], forest.classes_, None, counts[keep], None)
        assert est.tree_ == alone.tree_
    # A zero-weight bag shaped no tree: it is out of bag for every tree.
    oob = MIRandomForestClassifier(n_estimators=4, random_state=5, oob_score=True).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(oob.oob_decision_function_[dropped],
                               np.mean([t.predict_proba([X[i] for i in dropped]) for t in oob.estimators_], axis=0))


def test_without_bootstrap_each_tree_is_the_weighted_tree(backend):
    X, y = noisy_bags(3)
    w = np.random.default_rng(0).uniform(0.2, 3.0, len(y))
    for criterion, cls in (("gain_ratio", C45MIClassifier), ("gain", ID3MIClassifier)):
        forest = MIRandomForestClassifier(n_estimators=2, bootstrap=False, max_features=None, criterion=criterion,
                                          min_bags_leaf=2, random_state=0).fit(X, y, sample_weight=w)
        for est in forest.estimators_:
            # The forest's trees keep Laplace leaves (smoothing=1) and the maximum (the forest pools itself).
            tree = cls(min_bags_leaf=2, random_state=est.random_state, smoothing=1.0,
                       sharpness=np.inf).fit(X, y, sample_weight=w)
            assert est.tree_ == tree.tree_
            np.testing.assert_array_equal(est.predict_proba(X), tree.predict_proba(X))


def test_balanced_class_weight_equals_its_sample_weight(backend):
    X, y = noisy_bags(4)
    assert 0.15 < y.mean() < 0.45
    kw = dict(n_estimators=4, random_state=1, oob_score=True)
    bal = MIRandomForestClassifier(class_weight="balanced", **kw).fit(X, y)
    same = MIRandomForestClassifier(**kw).fit(X, y, sample_weight=compute_sample_weight("balanced", y))
    assert_same_forest(bal, same, X)
    assert bal.oob_score_ == same.oob_score_
    # It does change the forest: the positive bags now weigh n / (2 n_pos) > 1.
    plain = MIRandomForestClassifier(**kw).fit(X, y)
    assert not all(a == b for a, b in zip(all_trees(plain), all_trees(bal)))
    # class_weight multiplies sample_weight.
    sw = np.arange(1.0, len(y) + 1.0)
    both = MIRandomForestClassifier(class_weight="balanced", **kw).fit(X, y, sample_weight=sw)
    alone = MIRandomForestClassifier(**kw).fit(X, y, sample_weight=sw * compute_sample_weight("balanced", y))
    assert_same_forest(both, alone, X)


def test_oob_score_is_weighted_by_the_bag_weights(backend):
    X, y = noisy_bags(5)
    w = np.random.default_rng(1).uniform(0.0, 2.0, len(y))
    forest = MIRandomForestClassifier(n_estimators=6, random_state=0, oob_score=True).fit(X, y, sample_weight=w)
    ok = ~np.isnan(forest.oob_decision_function_[:, 0])
    correct = forest.classes_[np.argmax(forest.oob_decision_function_[ok], axis=1)] == y[ok]
    assert forest.oob_score_ == pytest.approx(np.sum(w[ok] * correct) / np.sum(w[ok]))


@pytest.mark.parametrize("weights, message", [
    (-np.ones(40), "sample_weight of bag 0 is negative"),
    (np.ones(39), r"sample_weight has shape \(39,\); expected \(40,\)"),
    (np.zeros(40), "the bag weights sum to zero"),
    (np.r_[np.nan, np.ones(39)], "NaN or infinity"),
])
def test_bad_sample_weight(weights, message):
    X, y = noisy_bags(6)
    with pytest.raises(ValueError, match=message):
        MIRandomForestClassifier(n_estimators=2).fit(X, y, sample_weight=weights)


def test_bad_class_weight():
    X, y = noisy_bags(6)
    with pytest.raises(ValueError, match="class_weight"):
        MIRandomForestClassifier(n_estimators=2, class_weight="even").fit(X, y)


@pytest.mark.skipif(not compiled_available() or mil._config.pure_python_requested(),
                    reason="compiled kernels are not in use")
def test_weighted_forests_agree_across_backends():
    X, y = noisy_bags(7, n_bags=60)
    w = np.random.default_rng(2).uniform(0.1, 3.0, len(y))
    forests = {}
    for kind in ("compiled", "python"):
        with use_backend(kind):
            forests[kind] = MIRandomForestClassifier(n_estimators=4, random_state=0, class_weight="balanced",
                                                     oob_score=True).fit(X, y, sample_weight=w)
    assert_same_forest(forests["compiled"], forests["python"], X)
    assert forests["compiled"].oob_score_ == forests["python"].oob_score_
