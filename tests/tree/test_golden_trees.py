"""Speed work must not change a tree: digests of fixed-seed forests and trees, both backends.

The digests were taken before the forest's trees stopped partitioning every
feature's presorted row at each split (they now gather the searched features
from the root's rows, ``_tree_split.gather_best_splits``), and before the
builder got its leaf weights; both changes left every tree bit-identical.
A digest covers the structure, thresholds, bag counts and weights, and
leaf values exactly, and the gains to 9 decimals (they go through libm's log2).
"""

import hashlib

import numpy as np
import pytest

from mil import Bags
from mil.datasets import load_dataset
from mil.ensemble import MIRandomForestClassifier
from mil.tree import C45MIClassifier, ID3MIClassifier

FIELDS = ("feature", "threshold", "missing_left", "children_left", "children_right", "depth",
          "n_pos_bags", "n_neg_bags", "weighted_pos", "weighted_neg", "n_instances", "value")


def digest(trees):
    h = hashlib.sha256()
    for tree in trees:
        for name in FIELDS:
            h.update(np.ascontiguousarray(getattr(tree, name)).tobytes())
        h.update(np.round(tree.gain, 9).tobytes())
    return h.hexdigest()[:16]


def musk1(with_nan=False):
    data = load_dataset("musk1")
    if not with_nan:
        return data.bags, data.target
    inst = data.bags.instances.copy()
    inst[np.random.default_rng(0).random(inst.shape) < 0.05] = np.nan
    return Bags.from_instances(inst, data.bags.instance_bag), data.target


# Every parameter that shapes the trees is pinned (defaults may change).
FOREST = dict(criterion="gain_ratio", max_features="sqrt", bootstrap=True, max_samples=None, max_depth=None,
              min_bags_leaf=1, growth="best", split_shares="children", positive_bag_removal=True)
C45 = dict(min_bags_leaf=5, growth="best", split_shares="children", pruning=False, ccp_alpha=0.0,
           positive_bag_removal=True, max_depth=None)

CASES = {
    "forest-musk1": ("97bd4d4310f02d03", False,
                     lambda: MIRandomForestClassifier(n_estimators=8, random_state=0, **FOREST)),
    "forest-musk1-gain-depth": ("7618cbd7cb914d01", False, lambda: MIRandomForestClassifier(
        n_estimators=5, random_state=1, **{**FOREST, "criterion": "gain", "growth": "depth", "max_features": 0.2})),
    "forest-nan": ("adcd5c0b9c58eb8b", True, lambda: MIRandomForestClassifier(
        n_estimators=5, random_state=2, **{**FOREST, "min_bags_leaf": 2})),
    "c45-musk1": ("24badbdb272271d2", False, lambda: C45MIClassifier(**C45)),
    "id3-musk1-literal": ("bfe6839c5b965dd5", False, lambda: ID3MIClassifier(
        growth="depth", split_shares="parent", min_bags_leaf=1, pruning=False, ccp_alpha=0.0,
        positive_bag_removal=True, max_depth=None)),
    "c45-nan": ("4765f389c2e9a6ab", True, lambda: C45MIClassifier(random_state=0, max_features=20, **C45)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_trees_are_bit_identical_to_before(case, backend):
    expected, with_nan, make = CASES[case]
    X, y = musk1(with_nan)
    est = make().fit(X, y)
    trees = [t for e in est.estimators_ for t in e.trees_] if hasattr(est, "estimators_") else est.trees_
    assert digest(trees) == expected
