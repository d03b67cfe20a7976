"""More than two classes (one concept per class) and random feature subsets in the trees."""

import numpy as np
import pytest

from mil import Bags
from mil.tree import C45MIClassifier, ID3MIClassifier, export_text


def three_class_bags(seed, n_bags=45):
    """Class 1: an instance with x0 in [3, 4]; class 2: one with x1 in [3, 4]; class 0: neither."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for i in range(n_bags):
        k = rng.integers(2, 5)
        bag = rng.uniform(0, 1, (k, 3))
        c = i % 3
        if c:
            bag[rng.integers(k), c - 1] = rng.uniform(3, 4)
        X.append(bag)
        y.append(c)
    return X, np.array(y)


@pytest.mark.parametrize("cls", [ID3MIClassifier, C45MIClassifier])
def test_one_concept_tree_per_class(cls, backend):
    X, y = three_class_bags(0)
    labels = np.array(["none", "a", "b"])[y]
    clf = cls(growth="best", split_shares="children", sharpness=np.inf).fit(X, labels)  # the maximum rule
    assert clf.classes_.tolist() == ["a", "b", "none"]
    assert len(clf.trees_) == 3 and not hasattr(clf, "tree_")
    # Tree k is the two-class tree of "class k against the rest".
    for k, name in enumerate(clf.classes_):
        binary = cls(growth="best", split_shares="children").fit(X, labels == name)
        assert clf.trees_[k] == binary.tree_
    X_test, y_test = three_class_bags(1, n_bags=60)
    truth = np.array(["none", "a", "b"])[y_test]
    proba = clf.predict_proba(X_test)
    # Concept probabilities (the bag maximum of each tree's smoothed leaf estimates), normalised.
    bags = Bags.from_list(X_test)
    concept = np.column_stack([
        [t.laplace(clf.smoothing)[t.apply(bags[b])].max() for b in range(bags.n_bags)] for t in clf.trees_])
    np.testing.assert_allclose(proba, concept / concept.sum(axis=1, keepdims=True), rtol=1e-14)
    np.testing.assert_array_equal(clf.predict(X_test), clf.classes_[np.argmax(concept, axis=1)])
    assert clf.score(X_test, truth) == 1.0
    assert clf.decision_function(X_test).shape == (60, 3)
    assert clf.apply(X_test).shape == (bags.n_instances, 3)
    inst = clf.instance_proba(X_test)
    np.testing.assert_allclose(inst.sum(axis=1), 1.0)
    assert clf.predict_instances(X_test).shape == (bags.n_instances,)
    assert clf.get_n_leaves() == sum(t.n_leaves for t in clf.trees_)
    with pytest.raises(ValueError, match="holds 3 class trees"):
        export_text(clf)
    assert "class: pos (bags: neg=0, pos=15" in export_text(clf.trees_[0])  # a bare tree knows no labels
    text = export_text(clf, index=0)  # class "a": 15 bags
    assert text.splitlines()[0] == "class a against the others (trees_[0])"
    assert "class: a (bags: other=0, a=15" in text and text.split("\n", 1)[1] in clf.export_text(0)


def test_two_classes_unchanged(backend):
    X, y = three_class_bags(2)
    y2 = (y > 0).astype(int)
    clf = C45MIClassifier(growth="best").fit(X, y2)
    assert clf.trees_ == [clf.tree_]
    assert clf.predict_proba(X).shape == (len(X), 2)


def test_max_features_subsets(backend):
    X, y = three_class_bags(3)
    y2 = (y == 1).astype(int)
    # Searching "all" features through the subset path gives the plain tree
    # (a random rank only breaks exact ties; there are none here).
    plain = C45MIClassifier(min_bags_leaf=1, random_state=0).fit(X, y2)
    same = C45MIClassifier(min_bags_leaf=1, random_state=0, max_features=3).fit(X, y2)
    assert plain.tree_ == same.tree_
    # One feature per node: the concept feature x0 is still found (when a
    # drawn feature cannot split, the next one of the node's random order is
    # searched), and the tree depends on the seed alone.
    one = [C45MIClassifier(split_shares="parent", min_bags_leaf=2, max_features=1, random_state=s,
                           sharpness=np.inf).fit(X, y2)  # the maximum rule: one positive leaf suffices
           for s in (0, 0, 5)]
    assert one[0].tree_ == one[1].tree_
    assert all(clf.score(X, y2) == 1.0 for clf in one)
    # A constant feature can never split: with max_features=1 every node then
    # falls through to another feature instead of becoming a leaf.
    Xc = [np.column_stack([np.zeros(len(b)), b[:, 0]]) for b in X]
    for seed in range(4):
        clf = ID3MIClassifier(min_bags_leaf=1, max_features=1, random_state=seed).fit(Xc, y2)
        assert clf.tree_.feature[0] == 1 and clf.score(Xc, y2) == 1.0
