"""Reduced-error pruning on held-out bags (``pruning="reduced-error"``), by hand."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.validation import check_random_state

from mil import Bags
from mil.tree import C45MIClassifier, ID3MIClassifier, Tree, prune_reduced_error
from mil.tree._pruning import held_out_bags


def small_tree():
    # 0: root x0 <= 0.5 (4 pos, 8 neg bags)
    #    1: leaf (3 pos, 1 neg): positive
    #    2: x1 <= 0.5 (4 pos, 3 neg): positive as a leaf
    #       3: leaf (4, 0): positive     4: leaf (0, 3): negative
    pos = np.array([4, 3, 4, 4, 0])
    neg = np.array([8, 1, 3, 0, 3])
    return Tree(feature=[0, -1, 1, -1, -1], threshold=[0.5, np.nan, 0.5, np.nan, np.nan],
                missing_left=[0] * 5, children_left=[1, -1, 3, -1, -1], children_right=[2, -1, 4, -1, -1],
                depth=[0, 1, 1, 2, 2], n_pos_bags=pos, n_neg_bags=neg, weighted_pos=pos, weighted_neg=neg,
                n_instances=[30, 8, 22, 12, 10], gain=[0.5, 0, 0.3, 0, 0], value=(pos + 1.0) / (pos + neg + 2.0))


def held_out(bags, labels, weight=None):
    b = Bags.from_list([np.asarray(x, dtype=float) for x in bags])
    return b.instances, b.instance_bag, np.array(labels), None if weight is None else np.array(weight, float)


def test_bottom_up_by_hand():
    # A+ [1, 0] -> leaf 3 (positive): right; B- [1, 1] -> leaf 4 (negative): right;
    # C- [0, 0] -> leaf 1 (positive): wrong. Full tree: 1 error.
    # Node 2 (visited first) as a positive leaf: B wrong too, 2 errors > 1: kept.
    # The root as a negative leaf: A wrong, B and C right, 1 error: no increase, pruned.
    inst, bag, y, _ = held_out([[[1, 0]], [[1, 1]], [[0, 0]]], [1, 0, 0])
    pruned = prune_reduced_error(small_tree(), inst, bag, y)
    assert pruned.node_count == 1 and not pruned.positive_leaf[0]
    # With A weighing 2 the root alone costs 2 > 1: nothing is pruned.
    inst, bag, y, w = held_out([[[1, 0]], [[1, 1]], [[0, 0]]], [1, 0, 0], [2, 1, 1])
    assert prune_reduced_error(small_tree(), inst, bag, y, w) == small_tree()


def test_bag_level_error_across_leaves():
    # P+ [1, 1]            -> leaf 4 (negative): wrong
    # Q+ [0, 0] (weight 2) -> leaf 1 (positive): right
    # N- [0, 0], [1, 1]    -> leaves 1 and 4: positive through leaf 1: wrong
    # M- [1, 1]            -> leaf 4: right
    # Full tree: P + N = 2 errors. Node 2 made a (positive) leaf: P right, N still
    # wrong (its other instance is in leaf 1), M wrong: 2 errors, no increase, so
    # node 2 is pruned. (Counting only the bags' instances inside node 2, N would
    # look right before and wrong after, and node 2 would be kept.)
    # Then the root as a negative leaf: P wrong (1) + Q wrong (2) = 3 > 2: kept.
    inst, bag, y, w = held_out([[[1, 1]], [[0, 0]], [[0, 0], [1, 1]], [[1, 1]]], [1, 1, 0, 0],
                               [1, 2, 1, 1])
    pruned = prune_reduced_error(small_tree(), inst, bag, y, w)
    assert pruned.node_count == 3
    assert pruned.children_left.tolist() == [1, -1, -1]
    assert pruned.positive_leaf.tolist() == [False, True, True]
    assert pruned.n_pos_bags.tolist() == [4, 3, 4] and pruned.n_neg_bags.tolist() == [8, 1, 3]
    # Unit weights: the root alone makes P + Q = 2 errors, no increase: pruned to the root.
    assert prune_reduced_error(small_tree(), inst, bag, y).node_count == 1


def test_unreached_nodes_are_pruned():
    # Only the left leaf is reached: node 2's subtree cannot change the error.
    inst, bag, y, _ = held_out([[[0, 0]], [[0, 1]]], [1, 1])
    pruned = prune_reduced_error(small_tree(), inst, bag, y)
    assert pruned.node_count == 3 and pruned.children_left.tolist() == [1, -1, -1]


def toy(n_bags=60, seed=0, n_classes=2):
    rng = np.random.default_rng(seed)
    X, y = [], []
    for i in range(n_bags):
        label = i % n_classes
        bag = rng.normal(size=(rng.integers(1, 5), 3))
        if label:
            bag[rng.integers(bag.shape[0]), 0] += 2.0 * label
        X.append(bag)
        y.append(label)
    y = np.array(y)
    y[:6] = (y[:6] + 1) % n_classes  # label noise: the full tree overfits it
    return X, y


@pytest.mark.parametrize("cls", [ID3MIClassifier, C45MIClassifier])
def test_estimator_grows_on_the_rest_and_prunes_on_the_held_out_bags(cls, backend):
    X, y = toy()
    est = cls(min_bags_leaf=1, pruning="reduced-error", random_state=3).fit(X, y)
    # The same draws as the estimator: the feature tie order, then the held-out bags.
    rng = check_random_state(3)
    rng.permutation(3)
    held = held_out_bags(y, None, 1 / 3, rng)
    assert held.sum() == 20 and held[y == 1].sum() == 10  # a third of each class
    grown = cls(min_bags_leaf=1, random_state=3).fit([X[i] for i in np.flatnonzero(~held)], y[~held]).tree_
    assert grown.n_pos_bags[0] + grown.n_neg_bags[0] == 40
    h = Bags.from_list([X[i] for i in np.flatnonzero(held)])
    expected = prune_reduced_error(grown, h.instances, h.instance_bag, y[held])
    assert est.tree_ == expected
    assert expected.node_count < grown.node_count  # the noise is pruned away
    # Deterministic with a seed; another seed holds out other bags.
    assert clone(est).fit(X, y).tree_ == est.tree_


def test_reduced_error_with_weights_and_three_classes(backend):
    X, y = toy(n_bags=90, n_classes=3)
    est = C45MIClassifier(min_bags_leaf=1, pruning="reduced-error", random_state=0).fit(X, y)
    assert len(est.trees_) == 3
    proba = est.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # Integer weights: the held-out error and the leaves use the weighted counts.
    w = np.where(np.arange(90) % 2 == 0, 2.0, 1.0)
    w[:3] = 0.0
    est_w = C45MIClassifier(min_bags_leaf=1, pruning="reduced-error", random_state=0).fit(X, y, sample_weight=w)
    assert any(not np.array_equal(tree.leaf_pos, tree.n_pos_bags) for tree in est_w.trees_)
    assert est_w.predict(X).shape == (90,)


def test_parameters():
    X, y = toy()
    assert C45MIClassifier(pruning="pessimistic").fit(X, y).tree_ == C45MIClassifier(pruning=True).fit(X, y).tree_
    with pytest.raises(ValueError, match="validation_fraction"):
        C45MIClassifier(pruning="reduced-error", validation_fraction=1.0).fit(X, y)
    with pytest.raises(ValueError, match="pruning"):
        C45MIClassifier(pruning="reduced").fit(X, y)
    # Too few bags to hold any out: grown on all of them, not pruned.
    small = C45MIClassifier(pruning="reduced-error", validation_fraction=0.01, random_state=0).fit(X, y)
    assert small.tree_ == C45MIClassifier(random_state=0).fit(X, y).tree_
