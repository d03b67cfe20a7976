"""C4.5-MI's average-gain guard and its tolerance (``average_gain_tolerance``), hand-computed."""

import math

import numpy as np
import pytest

from mil import Bags
from mil._core import compiled_available, use_backend
from mil.tree import C45MIClassifier, ID3MIClassifier
from mil.tree._builder import build_tree
from mil.tree._split_choice import choose_feature


def info(*counts):
    total = sum(counts)
    return -sum(c / total * math.log2(c / total) for c in counts if c > 0)


# Eleven one-instance bags, six positive (0-5) and five negative (6-10); each
# feature takes two values, so it has one cut. At value 0:
#   feature 0 holds 1 positive bag:              gain 0.0849, split info H(1/11)
#   feature 1 holds 2 positive and 4 negative:   gain 0.1650, split info H(6/11)
#   feature 2 holds 3 positive and 2 negative:   gain 0.0072, split info H(5/11)
# The average gain is 0.0857: feature 0 is 0.00078 below it and has the best
# gain ratio (0.193 against 0.166 and 0.007). C4.5's guard (tolerance 0)
# admits feature 1 alone; J48's 0.001 admits feature 0 too, which wins.
Y = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0])
X0 = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]
X1 = [0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1]
X2 = [0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1]


def gain(left_pos, left_neg):
    n_left = left_pos + left_neg
    return (info(6, 5) - n_left / 11 * info(left_pos, left_neg)
            - (11 - n_left) / 11 * info(6 - left_pos, 5 - left_neg))


GAINS = [gain(1, 0), gain(2, 4), gain(3, 2)]
RATIOS = [GAINS[0] / info(1, 10), GAINS[1] / info(6, 5), GAINS[2] / info(5, 6)]
AVERAGE = sum(GAINS) / 3


def bags():
    return [np.array([[float(X0[i]), float(X1[i]), float(X2[i])]]) for i in range(len(Y))]


def test_hand_computed_numbers():
    assert GAINS == pytest.approx([0.08494, 0.16499, 0.00723], abs=1e-5)
    assert RATIOS == pytest.approx([0.19326, 0.16598, 0.00728], abs=1e-5)
    assert 0.0 < AVERAGE - GAINS[0] < 0.001      # within J48's tolerance
    assert GAINS[1] >= AVERAGE > GAINS[2]


@pytest.mark.parametrize("tolerance, root", [(0.0, 1), (0.0005, 1), (0.001, 0), (0.1, 0), (np.inf, 0)])
def test_tolerance_changes_the_root_split(backend, tolerance, root):
    b = Bags.from_list(bags())
    tree, _ = build_tree(b.instances, b.instance_bag, Y.astype(np.uint8), criterion="gain_ratio",
                         min_bags_leaf=1, average_gain_tolerance=tolerance)
    assert tree.feature[0] == root and tree.threshold[0] == 0.5
    assert tree.gain[0] == pytest.approx(GAINS[root], abs=1e-12)
    est = C45MIClassifier(min_bags_leaf=1, average_gain_tolerance=tolerance).fit(bags(), Y)
    assert est.tree_.feature[0] == root


def test_choose_feature_tolerance():
    # Gains 0.5, 0.4995 (average 0.49975), split information 1 and 0.5: the
    # second has the better ratio (0.999 against 0.5) and is 0.00025 below average.
    found = np.ones(2, dtype=np.uint8)
    stats = np.zeros((2, 8))
    stats[:, 0] = [0.5, 0.4995]
    stats[:, 1] = [1.0, 0.5]
    rank = np.arange(2)
    assert choose_feature(found, stats, "gain_ratio", rank) == 0
    assert choose_feature(found, stats, "gain_ratio", rank, average_gain_tolerance=0.0002) == 0
    assert choose_feature(found, stats, "gain_ratio", rank, average_gain_tolerance=0.001) == 1
    # ID3-MI's largest gain is never below the average: the tolerance cannot matter.
    assert choose_feature(found, stats, "gain", rank, average_gain_tolerance=1.0) == 0


def test_with_mdl_correction_the_average_is_over_positive_corrected_gains():
    # At N = 4, costs log2(K) / 4 = 0, 0.25, 0.5: corrected gains 0.3, 0.26, -0.1
    # (rejected). Average over the first two 0.28: feature 1 is 0.02 below it.
    found = np.ones(3, dtype=np.uint8)
    stats = np.zeros((3, 8))
    stats[:, 0] = [0.3, 0.51, 0.4]
    stats[:, 1] = [1.0, 0.5, 0.1]
    stats[:, 6] = [1, 2, 4]
    rank = np.arange(3)
    kw = dict(node_weight=4.0)
    assert choose_feature(found, stats, "gain_ratio", rank, **kw) == 0
    assert choose_feature(found, stats, "gain_ratio", rank, average_gain_tolerance=0.019, **kw) == 0
    assert choose_feature(found, stats, "gain_ratio", rank, average_gain_tolerance=0.021, **kw) == 1


def test_default_is_c45s_guard_and_validated():
    # The default leaves trees as they were: tests/tree/test_golden_trees.py.
    assert C45MIClassifier().get_params()["average_gain_tolerance"] == 0.0
    with pytest.raises(ValueError, match="average_gain_tolerance"):
        C45MIClassifier(average_gain_tolerance=-0.001).fit(bags(), Y)
    with pytest.raises(ValueError, match="average_gain_tolerance"):
        C45MIClassifier(average_gain_tolerance="j48").fit(bags(), Y)
    assert "average_gain_tolerance" not in ID3MIClassifier().get_params()


@pytest.mark.parametrize("max_features", [None, 4])
@pytest.mark.parametrize("mdl", [False, True])
def test_compiled_and_twin_grow_the_same_tree(max_features, mdl):
    if not compiled_available():
        pytest.skip("compiled kernels are not built")
    rng = np.random.default_rng(6)
    X = [np.round(rng.normal(size=(int(rng.integers(1, 4)), 6)), 1) for _ in range(150)]
    y = np.array([int((x[:, 0] + x[:, 1] + x[:, 2] > 1.5).any()) for x in X])
    X[7][0, 3] = np.nan
    trees = {}
    for tolerance in (0.0, 0.001, 0.05):
        est = C45MIClassifier(min_bags_leaf=2, mdl_correction=mdl, max_features=max_features, random_state=0,
                              average_gain_tolerance=tolerance)
        with use_backend("compiled"):
            a = est.fit(X, y).tree_
        with use_backend("python"):
            b = est.fit(X, y).tree_
        assert a == b
        trees[tolerance] = a
    if not (mdl and max_features):
        # The option is live on these bags (with the MDL correction and four
        # features per node, rarely more than one feature has a positive
        # corrected gain in a node, so it does not change this tree).
        assert trees[0.05] != trees[0.0]
