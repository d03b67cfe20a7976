"""The flat-array Tree: feature count, leaf weights, pickles (old and new)."""

import pickle

import numpy as np
import pytest

from mil.tree import C45MIClassifier
from mil.tree._tree import _FIELDS, Tree
from mil.utils.estimator_checks import make_toy_bags


def test_apply_rejects_another_feature_count(backend):
    X, y = make_toy_bags(n_bags=30, n_features=3)
    tree = C45MIClassifier(min_bags_leaf=1).fit(X, y).tree_
    assert tree.n_features == 3 and tree.node_count > 1
    with pytest.raises(ValueError, match="instances have 4 features but the tree was trained on 3"):
        tree.apply(np.zeros((2, 4)))
    with pytest.raises(ValueError, match="instances have 2 features"):
        tree.apply(np.zeros((2, 2)))  # too few: named by the feature a split needs or the count
    assert tree.apply(np.zeros((2, 3))).shape == (2,)
    # Pruned copies keep the count.
    assert tree.subtree(np.r_[True, np.zeros(tree.node_count - 1, dtype=bool)]).n_features == 3


def test_pickle_keeps_feature_count_and_leaf_weights(backend):
    X, y = make_toy_bags(n_bags=30, n_features=3)
    w = np.linspace(0.2, 3.0, 30)
    clf = C45MIClassifier(min_bags_leaf=1).fit(X, y, sample_weight=w)
    back = pickle.loads(pickle.dumps(clf))
    assert back.tree_ == clf.tree_ and back.tree_.n_features == 3
    # The weighted leaf estimates survive the pickle (they were lost before).
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    assert not np.array_equal(clf.tree_.leaf_pos, clf.tree_.n_pos_bags)


def test_tree_pickled_before_leaf_weights_and_feature_count():
    # A tree pickled before leaf_pos / leaf_neg / n_features existed predicted
    # from distinct counts and checked only the features its splits use.
    X, y = make_toy_bags(n_bags=30, n_features=3)
    new = C45MIClassifier(min_bags_leaf=1).fit(X, y).tree_
    old_state = {name: getattr(new, name) for name, _ in _FIELDS if name not in ("leaf_pos", "leaf_neg")}
    old = Tree.__new__(Tree)
    old.__setstate__(old_state)
    assert old.n_features is None
    np.testing.assert_array_equal(old.laplace(), (new.n_pos_bags + 1.0) / (new.n_pos_bags + new.n_neg_bags + 2.0))
    np.testing.assert_array_equal(old.laplace(), new.laplace())
    wide = np.zeros((2, 5))
    assert old.apply(wide).shape == (2,)
    with pytest.raises(ValueError, match="splits on feature"):
        old.apply(np.zeros((2, int(old.feature.max()))))
    # Built from arrays without leaf weights: distinct counts.
    rebuilt = Tree(**old_state)
    np.testing.assert_array_equal(rebuilt.leaf_neg, new.n_neg_bags.astype(float))
