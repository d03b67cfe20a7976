"""Growth options of ID3-MI / C4.5-MI: ``max_leaf_nodes`` (a number, or "cv"), ``tie_break``,
``cut_placement``; hand-computed cases on both backends."""

import numpy as np
import pytest

from mil import Bags
from mil._core import compiled_available, use_backend
from mil.tree import C45MIClassifier, ID3MIClassifier
from mil.tree._builder import build_tree
from mil.tree._pruning import cv_leaf_budget, prefix_errors

from .test_reduced_error import small_tree  # root x0 <= 0.5 -> leaf 1 (+) / node 2: x1 <= 0.5 -> 3 (+) / 4 (-)


def grow(bags, y, **kw):
    b = Bags.from_list([np.asarray(x, dtype=float) for x in bags])
    kw = {"criterion": "gain", "min_bags_leaf": 1, "growth": "best", "split_shares": "children", **kw}
    return build_tree(b.instances, b.instance_bag, np.asarray(y, np.uint8), **kw)[0]


# One feature; A+ [7], B+ [11], C- [4, 6, 8], D- [2], E- [5]. Sorted: 2 D, 4 C, 5 E, 6 C, 7 A, 8 C,
# 11 B. Bag counts (left pos, neg | right pos, neg) and Gain_multi (children's shares, parent
# Info(2, 3) = 0.971): after 2: 0,1|2,2 (0.171); after 4: 0,2|2,2; after 5 and after 6 (C still
# has 8 on the right: a run of two cuts): 0,3|2,1, 0.971 - 3/6 Info(2, 1) = 0.512, the best;
# after 7: 1,3|1,1; after 8: 1,3|1,0 (0.322). The kernel cuts midway at the run's first cut, 5.5.
RUN_BAGS = [[[7]], [[11]], [[4], [6], [8]], [[2]], [[5]]]
RUN_Y = [1, 1, 0, 0, 0]


@pytest.mark.parametrize("placement, threshold", [
    ("midpoint", 5.5),
    ("run-middle", 6.0),      # midway from the value below the run (5) to the value above it (7)
    ("instances", 6.5),       # instances by bag label: after 5: 0+ 3- | 2+ 2-, after 6: 0+ 4- | 2+ 1-
    ("training-value", 5.0),  # C4.5: the largest training value <= 5.5
])
def test_cut_placement_by_hand(backend, placement, threshold):
    tree = grow(RUN_BAGS, RUN_Y, cut_placement=placement, max_leaf_nodes=2)
    assert tree.feature[0] == 0 and tree.threshold[0] == threshold
    # The bag counts of the children are those of the kernel's cut.
    assert tree.n_pos_bags[1:].tolist() == [0, 2] and tree.n_neg_bags[1:].tolist() == [3, 1]


def test_training_value_keeps_the_training_partition(backend):
    rng = np.random.default_rng(4)
    X = [np.round(rng.normal(size=(int(rng.integers(1, 5)), 3)), 1) for _ in range(40)]
    y = np.array([int((x[:, 0] > 0.8).any()) for x in X])
    mid = C45MIClassifier(min_bags_leaf=2).fit(X, y)
    val = C45MIClassifier(min_bags_leaf=2, cut_placement="training-value").fit(X, y)
    b = Bags.from_list(X)
    internal = mid.tree_.feature >= 0
    np.testing.assert_array_equal(mid.tree_.feature, val.tree_.feature)
    np.testing.assert_array_equal(mid.apply(X), val.apply(X))
    for node in np.flatnonzero(internal):
        assert val.tree_.threshold[node] in b.instances[:, val.tree_.feature[node]]
        assert val.tree_.threshold[node] <= mid.tree_.threshold[node]


# Two features. A+ [(3, 3)], B+ [(2, 1), (3, 2)], C- [(4, 5)], D- [(2, 3), (1, 3)]. Feature 0's best
# cut, 3.5, leaves A, B, D | C: 2,1|0,1, gain 1 - 3/4 Info(2, 1) = 0.311; feature 1's best, 2.5,
# leaves B | A, D, C: 1,0|1,2, the same gain and the same bag shares (so the same gain ratio).
# On instances labelled by their bags (3+ 3-), feature 0's cut leaves 3+ 2- | 0+ 1- (gain 0.191),
# feature 1's 2+ 0- | 1+ 3- (gain 0.459): "rank" keeps feature 0, "instances" takes feature 1.
TIE_BAGS = [[[3, 3]], [[2, 1], [3, 2]], [[4, 5]], [[2, 3], [1, 3]]]
TIE_Y = [1, 1, 0, 0]


@pytest.mark.parametrize("criterion", ["gain", "gain_ratio"])
def test_tie_break_by_instances_by_hand(backend, criterion):
    rank = grow(TIE_BAGS, TIE_Y, criterion=criterion, max_leaf_nodes=2)
    inst = grow(TIE_BAGS, TIE_Y, criterion=criterion, max_leaf_nodes=2, tie_break="instances")
    assert (rank.feature[0], rank.threshold[0]) == (0, 3.5)
    assert (inst.feature[0], inst.threshold[0]) == (1, 2.5)
    assert rank.gain[0] == pytest.approx(0.3113, abs=1e-4) and inst.gain[0] == rank.gain[0]


def test_prefix_errors_by_hand():
    # A+ [1, 0] -> 0, 2, 3; B- [1, 1] -> 0, 2, 4; C- [0, 0] -> 0, 1.
    # 0 splits (root, negative): A wrong -> 1. 1 split (node 2 a positive leaf): B and C wrong -> 2.
    # 2 splits (the tree): C wrong -> 1. With A weighing 3: 3, 2, 1.
    b = Bags.from_list([np.array([[1.0, 0.0]]), np.array([[1.0, 1.0]]), np.array([[0.0, 0.0]])])
    order = np.array([0, -1, 1, -1, -1])
    y = np.array([1, 0, 0])
    np.testing.assert_array_equal(prefix_errors(small_tree(), order, b.instances, b.instance_bag, y), [1, 2, 1])
    np.testing.assert_array_equal(
        prefix_errors(small_tree(), order, b.instances, b.instance_bag, y, np.array([3.0, 1, 1])), [3, 2, 1])
    # A bag positive through one instance only: C with a second instance [1, 0] -> node 3 (positive).
    b = Bags.from_list([np.array([[1.0, 0.0]]), np.array([[1.0, 1.0]]), np.array([[0.0, 0.0], [1.0, 0.0]])])
    np.testing.assert_array_equal(prefix_errors(small_tree(), order, b.instances, b.instance_bag, y), [1, 2, 1])


def toy(seed=0, n_bags=60):
    rng = np.random.default_rng(seed)
    X = [np.round(rng.normal(size=(int(rng.integers(1, 5)), 4)), 2) for _ in range(n_bags)]
    y = np.array([int((x[:, 0] + 0.5 * x[:, 1] > 1.0).any() ^ (rng.random() < 0.15)) for x in X])
    return X, y


@pytest.mark.parametrize("cls", [ID3MIClassifier, C45MIClassifier])
def test_max_leaf_nodes_is_a_prefix_of_the_growth(backend, cls):
    X, y = toy()
    b = Bags.from_list(X)
    full = cls(min_bags_leaf=1).fit(X, y)
    assert cls(min_bags_leaf=1, max_leaf_nodes=10_000).fit(X, y).tree_ == full.tree_
    tree, _, order = build_tree(b.instances, b.instance_bag, y.astype(np.uint8), criterion=cls._criterion,
                                min_bags_leaf=1, growth="best", split_shares="children", return_split_order=True)
    assert tree == full.tree_
    assert sorted(order[order >= 0].tolist()) == list(range(int(order.max()) + 1))
    train_errors = prefix_errors(tree, order, b.instances, b.instance_bag, y)
    for leaves in (2, 3, 5, 8):
        small = cls(min_bags_leaf=1, max_leaf_nodes=leaves, sharpness=np.inf).fit(X, y)  # the max rule
        assert small.get_n_leaves() <= leaves
        # Splitting stops after leaves - 1 splits in growth order: the full growth's prefix.
        assert np.sum(small.predict(X) != y) == train_errors[min(leaves - 1, train_errors.size - 1)]


def test_cv_budget_is_the_least_error_prefix(backend):
    X, y = toy(1, 90)
    b = Bags.from_list(X)
    y8 = y.astype(np.uint8)
    grow_kw = dict(criterion="gain_ratio", min_bags_leaf=2, growth="best", split_shares="children")
    # Independently: round-robin folds per class, each prefix made by Tree.subtree and applied.
    fold = np.empty(y.size, dtype=int)
    for c in (0, 1):
        members = np.flatnonzero(y == c)
        fold[members] = np.arange(members.size) % 3
    totals = []
    for f in range(3):
        train, val = np.flatnonzero(fold != f), np.flatnonzero(fold == f)
        sub, held = b.subset(train), b.subset(val)
        tree, _, order = build_tree(sub.instances, sub.instance_bag, y8[train], return_split_order=True, **grow_kw)
        errs = []
        for s in range(int(order.max()) + 2):
            pruned = tree.subtree(order >= s) if s <= order.max() else tree
            reached = pruned.positive_leaf[pruned.apply(held.instances)]
            pred = np.zeros(val.size, dtype=bool)
            np.logical_or.at(pred, held.instance_bag, reached)
            errs.append(int(np.sum(pred != y[val].astype(bool))))
        totals.append(errs)
    width = max(len(e) for e in totals)
    total = sum(np.array(e + [e[-1]] * (width - len(e))) for e in totals)
    budget = int(np.argmin(total)) + 1
    assert cv_leaf_budget(b, y8, None, None, {**grow_kw, "rank": np.arange(4)}, None) == budget
    assert 1 < budget < width  # neither the root alone nor the whole tree, on these bags
    est = C45MIClassifier(min_bags_leaf=2, max_leaf_nodes="cv").fit(X, y)
    assert est.tree_ == C45MIClassifier(min_bags_leaf=2, max_leaf_nodes=budget).fit(X, y).tree_


@pytest.mark.parametrize("kw", [dict(max_leaf_nodes=1), dict(max_leaf_nodes="auto"),
                                dict(tie_break="random"), dict(cut_placement="lower")])
def test_parameter_errors(kw):
    X, y = toy()
    with pytest.raises(ValueError):
        C45MIClassifier(**kw).fit(X, y)


@pytest.mark.parametrize("cls", [ID3MIClassifier, C45MIClassifier])
@pytest.mark.parametrize("kw", [dict(tie_break="instances"), dict(cut_placement="run-middle"),
                                dict(cut_placement="instances"), dict(max_leaf_nodes="cv", random_state=0)])
def test_compiled_and_twin_agree(cls, kw):
    if not compiled_available():
        pytest.skip("compiled kernels are not built")
    X, y = toy(2)
    X[3][0, 1] = np.nan
    with use_backend("compiled"):
        a = cls(**kw).fit(X, y).tree_
    with use_backend("python"):
        b = cls(**kw).fit(X, y).tree_
    assert a == b


def test_sharpness_pools_the_leaf_log_odds_by_hand(backend):
    # Four positive bags [6], [1] and four negative bags [1]: the root cuts at 3.5; its right
    # child (the four 6s, all positive) is split off first and explains the positive bags, so
    # the left leaf keeps the four negative ones. With s = 8 the leaves estimate
    # (4 + 8) / (4 + 16) = 0.6 and (0 + 8) / (4 + 16) = 0.4: log-odds +-log(1.5).
    X = [np.array([[6.0], [1.0]])] * 4 + [np.array([[1.0]])] * 4
    y = [1] * 4 + [0] * 4
    est = C45MIClassifier(min_bags_leaf=1).fit(X, y)
    assert est.tree_.threshold[0] == 3.5 and sorted(est.tree_.laplace(8.0)[est.tree_.is_leaf]) == [0.4, 0.6]
    f = np.log(1.5)
    test = [np.array([[6.0], [1.0]]), np.array([[6.0]] + [[1.0]] * 4), np.array([[6.0]] + [[1.0]] * 19),
            np.array([[6.0]]), np.array([[1.0], [1.0]])]
    for r in (4.0, 1.0):
        S = [np.log((np.exp(r * f) + k * np.exp(-r * f)) / (k + 1)) / r for k in (1, 4, 19)]
        S += [f, -f]
        expected = 1.0 / (1.0 + np.exp(-np.array(S)))
        est.set_params(sharpness=r)
        np.testing.assert_allclose(est.predict_proba(test)[:, 1], expected, rtol=1e-12)
        np.testing.assert_array_equal(est.predict(test), (np.array(S) > 0).astype(int))
        np.testing.assert_array_equal(est.decision_function(test) > 0, np.array(S) > 0)
    assert est.set_params(sharpness=4.0).predict(test).tolist() == [1, 1, 0, 1, 0]  # 19 negatives outweigh
    assert est.predict_proba(test[3:4])[0, 1] == 0.6  # one instance: its own estimate, exactly
    est.set_params(sharpness=np.inf)
    np.testing.assert_array_equal(est.predict_proba(test)[:, 1], [0.6, 0.6, 0.6, 0.6, 0.4])
    assert est.predict(test).tolist() == [1, 1, 1, 1, 0]


def test_sharpness_defaults():
    assert C45MIClassifier().sharpness == 4.0 and np.isinf(ID3MIClassifier().sharpness)
    X, y = toy()
    with pytest.raises(ValueError):
        C45MIClassifier(sharpness=0.0).fit(X, y)


@pytest.mark.parametrize("pos", [0, 1])
def test_pooled_outputs_agree_for_either_positive_class_and_three_classes(backend, pos):
    X, y = toy(3, 80)
    clf = C45MIClassifier(positive_class=pos, min_bags_leaf=2).fit(X, y)
    proba, pred = clf.predict_proba(X), clf.predict(X)
    np.testing.assert_array_equal(pred, clf.classes_[np.argmax(proba, axis=1)])
    np.testing.assert_array_equal(clf.decision_function(X) > 0, pred == clf.classes_[1])
    # The positive class's probability is the pooled concept probability, from either side.
    flipped = C45MIClassifier(positive_class=1 - pos, min_bags_leaf=2).fit(X, 1 - np.asarray(y))
    np.testing.assert_allclose(proba[:, pos], flipped.predict_proba(X)[:, 1 - pos], rtol=1e-14)
    y3 = np.where(np.arange(len(y)) % 3 == 0, 2, y)
    three = C45MIClassifier(min_bags_leaf=2).fit(X, y3)
    p3 = three.predict_proba(X)
    np.testing.assert_allclose(p3.sum(axis=1), 1.0)
    np.testing.assert_array_equal(three.predict(X), three.classes_[np.argmax(p3, axis=1)])
