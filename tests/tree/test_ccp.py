"""Minimal cost-complexity pruning on bag counts (``ccp_alpha``), by hand."""

import numpy as np
import pytest

from mil.tree import C45MIClassifier, ID3MIClassifier, Tree
from mil.tree._pruning import cost_complexity_path, prune_cost_complexity


def small_tree():
    # 0: root (4 pos, 4 neg bags) -> 1: leaf (0, 3) | 2: (4, 1) -> 3: leaf (4, 0) | 4: leaf (0, 1)
    pos = np.array([4, 0, 4, 4, 0])
    neg = np.array([4, 3, 1, 0, 1])
    return Tree(feature=[0, -1, 1, -1, -1], threshold=[0.5, np.nan, 2.0, np.nan, np.nan],
                missing_left=[0] * 5, children_left=[1, -1, 3, -1, -1], children_right=[2, -1, 4, -1, -1],
                depth=[0, 1, 1, 2, 2], n_pos_bags=pos, n_neg_bags=neg, weighted_pos=pos, weighted_neg=neg,
                n_instances=[20, 6, 14, 9, 5], gain=[0.5, 0, 0.3, 0, 0], value=(pos + 1.0) / (pos + neg + 2.0))


def test_path_by_hand():
    # Leaf errors over W = 8 bags: root 4/8, node 2 1/8, every leaf 0.
    # Node 2: (1/8 - 0) / (2 - 1) = 0.125 is the weakest link; then the root:
    # (4/8 - 1/8) / (2 - 1) = 0.375.
    alphas, impurities = cost_complexity_path(small_tree())
    np.testing.assert_allclose(alphas, [0.0, 0.125, 0.375])
    np.testing.assert_allclose(impurities, [0.0, 0.125, 0.5])
    assert prune_cost_complexity(small_tree(), 0.1) == small_tree()
    pruned = prune_cost_complexity(small_tree(), 0.2)
    assert pruned.node_count == 3 and pruned.children_left[2] == -1
    assert pruned.positive_leaf.tolist() == [False, False, True]
    assert prune_cost_complexity(small_tree(), 0.375).node_count == 1


@pytest.mark.parametrize("cls", [ID3MIClassifier, C45MIClassifier])
def test_estimator_path_and_ccp_alpha(cls, backend):
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(rng.integers(1, 5), 3)) for _ in range(40)]
    y = np.array([int(b[:, 0].max() > 0.8) for b in X])
    y[:4] = 1 - y[:4]  # label noise: the full tree overfits it
    clf = cls(growth="best", split_shares="children", min_bags_leaf=1)
    path = clf.cost_complexity_pruning_path(X, y)
    assert np.all(np.diff(path.ccp_alphas) >= 0) and np.all(np.diff(path.impurities) >= 0)
    full = clf.fit(X, y).tree_
    assert path.ccp_alphas.size > 2
    sizes = []
    for alpha in path.ccp_alphas:
        t = cls(growth="best", split_shares="children", min_bags_leaf=1, ccp_alpha=alpha).fit(X, y).tree_
        assert t == prune_cost_complexity(full, alpha)
        sizes.append(t.n_leaves)
    assert sizes[0] == full.n_leaves and sizes[-1] == 1  # 0 prunes nothing, as scikit-learn and sizes == sorted(sizes, reverse=True)
    with pytest.raises(ValueError, match="two classes"):
        clf.cost_complexity_pruning_path(X, np.arange(40) % 3)
