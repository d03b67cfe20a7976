"""C4.5 release 8's MDL correction of numeric splits (``mdl_correction``), hand-computed."""

import math

import numpy as np
import pytest

from mil import Bags
from mil._core import compiled_available, use_backend
from mil.tree import C45MIClassifier, ID3MIClassifier
from mil.tree._builder import build_tree
from mil.tree._split_choice import choose_feature, mdl_corrected_gains


def info(p, n):
    if p == 0 or n == 0:
        return 0.0
    q = p / (p + n)
    return -q * math.log2(q) - (1 - q) * math.log2(1 - q)


# Eight one-instance bags, labels 1 1 1 1 0 0 0 0. Feature 0 has eight distinct
# values (7 cut points); ordered by it the labels read 1 1 1 0 1 0 0 0, and its
# best cut (after the third, the lower of two equal ones) gains
# 1 - 5/8 Info(1, 4) = 0.549. Feature 1 has two values (1 cut point) and
# leaves 2 positives left, 2 positives and 4 negatives right: gain
# 1 - 6/8 Info(2, 4) = 0.311. The correction costs feature 0 log2(7) / 8 =
# 0.351 bits and feature 1 log2(1) / 8 = 0.
X0 = [1, 2, 3, 5, 4, 6, 7, 8]
X1 = [0, 0, 1, 1, 1, 1, 1, 1]
Y = np.array([1, 1, 1, 1, 0, 0, 0, 0])
GAIN0 = 1 - 5 / 8 * info(1, 4)
GAIN1 = 1 - 6 / 8 * info(2, 4)
COST0 = math.log2(7) / 8


def bags(*columns):
    return [np.array([[float(c[i]) for c in columns]]) for i in range(len(columns[0]))]


def grow(columns, y, criterion, mdl):
    b = Bags.from_list(bags(*columns))
    tree, _ = build_tree(b.instances, b.instance_bag, np.asarray(y, np.uint8), criterion=criterion,
                         min_bags_leaf=1, mdl_correction=mdl)
    return tree


def test_hand_computed_gains():
    assert GAIN0 == pytest.approx(0.5488, abs=1e-4)
    assert GAIN1 == pytest.approx(0.3113, abs=1e-4)
    assert GAIN0 - COST0 == pytest.approx(0.1979, abs=1e-4)
    stats = np.zeros((2, 7))
    stats[:, 0] = [GAIN0, GAIN1]
    stats[:, 6] = [7, 1]
    np.testing.assert_allclose(mdl_corrected_gains(stats, 8.0), [GAIN0 - COST0, GAIN1])


@pytest.mark.parametrize("criterion", ["gain", "gain_ratio"])
def test_correction_changes_the_root_split(backend, criterion):
    # Without it feature 0 wins on gain (0.549 > 0.311) and on gain ratio
    # (feature 1's gain is below the average 0.430); with it feature 1 wins on
    # gain (0.311 > 0.198) and on gain ratio (feature 0's corrected gain is
    # below the average corrected gain 0.255).
    plain = grow([X0, X1], Y, criterion, False)
    corrected = grow([X0, X1], Y, criterion, True)
    assert plain.feature[0] == 0 and plain.threshold[0] == 3.5
    assert corrected.feature[0] == 1 and corrected.threshold[0] == 0.5
    assert plain.gain[0] == pytest.approx(GAIN0, abs=1e-12)
    assert corrected.gain[0] == pytest.approx(GAIN1, abs=1e-12)  # the stored gain is uncorrected


@pytest.mark.parametrize("criterion", ["gain", "gain_ratio"])
def test_correction_rejects_a_split_that_does_not_pay_for_its_threshold(backend, criterion):
    # Labels alternate along one feature with 8 distinct values: the best cut
    # (after the first value) gains 1 - 7/8 Info(3, 4) = 0.138 < log2(7) / 8.
    y = [1, 0, 1, 0, 1, 0, 1, 0]
    assert 1 - 7 / 8 * info(3, 4) < COST0
    plain = grow([list(range(8))], y, criterion, False)
    corrected = grow([list(range(8))], y, criterion, True)
    assert plain.node_count > 1
    assert corrected.node_count == 1


def test_choose_feature_rejects_non_positive_corrected_gains():
    found = np.ones(2, dtype=np.uint8)
    stats = np.zeros((2, 7))
    stats[:, 0] = [0.5, 0.25]
    stats[:, 1] = 1.0
    stats[:, 6] = [4, 2]   # costs 2 / 4 = 0.5 and 1 / 4 = 0.25 at N = 4
    rank = np.arange(2)
    assert choose_feature(found, stats, "gain", rank) == 0
    assert choose_feature(found, stats, "gain", rank, node_weight=4.0) == -1
    assert choose_feature(found, stats, "gain_ratio", rank, node_weight=4.0) == -1
    stats[1, 0] = 0.375   # corrected 0.125 > 0: the only candidate left
    assert choose_feature(found, stats, "gain_ratio", rank, node_weight=4.0) == 1


@pytest.mark.parametrize("cls", [ID3MIClassifier, C45MIClassifier])
def test_estimator_option(backend, cls):
    X = bags(X0, X1)
    off = cls(min_bags_leaf=1).fit(X, Y)
    on = cls(min_bags_leaf=1, mdl_correction=True).fit(X, Y)
    assert off.tree_.feature[0] == 0
    assert on.tree_.feature[0] == 1
    default = cls(min_bags_leaf=1).fit(X, Y)
    assert default.get_params()["mdl_correction"] is False
    np.testing.assert_array_equal(default.tree_.threshold, off.tree_.threshold)


def partition_bags():
    """Bag A (positive) holds 20 instances, feature 0 at 1..20; B, C, D (positive) and
    E..H (negative) one each, feature 0 at 21..27. Feature 1 is 0 in A, B, C, 1 elsewhere.

    Feature 0 has 26 admissible cut points but only 8 bag partitions (the 19
    cuts inside A all leave {A} | {A..H}); its best cut (A-D | E-H) gains 1.
    Feature 1: one cut, {A, B, C} | {D..H}, gain 1 - 5/8 Info(1, 4) = 0.549.
    """
    a = np.column_stack([np.arange(1.0, 21.0), np.zeros(20)])
    others = [np.array([[21.0 + i, float(i >= 2)]]) for i in range(7)]
    return [a] + others, np.array([1, 1, 1, 1, 0, 0, 0, 0])


def test_cut_points_and_partitions_differ_in_multi_instance_bags(backend):
    X, y = partition_bags()
    b = Bags.from_list(X)
    from mil._core import kernel
    from mil.tree._rows import PresortedRows

    pre = PresortedRows(b.instances, b.instance_bag)
    found, stats = kernel("_tree_split").best_splits(pre.vals, pre.bag, 0, b.instances.shape[0],
                                                     y.astype(np.uint8), np.ones(8), 4.0, 4.0, 1.0, 1e-12)
    assert list(found) == [1, 1]
    assert stats[0, 0] == 1.0 and stats[0, 2] == 23.5
    assert (stats[0, 6], stats[0, 7]) == (26, 8)
    assert (stats[1, 6], stats[1, 7]) == (1, 1)
    # Corrected gains at N = 8: cuts 1 - log2(26)/8 = 0.413 < 0.549 < partitions 1 - 3/8 = 0.625.
    assert 1 - math.log2(26) / 8 < GAIN0 < 1 - 3 / 8
    for criterion in ("gain", "gain_ratio"):
        roots = {}
        for mdl in (False, "cuts", True, "partitions"):
            tree, _ = build_tree(b.instances, b.instance_bag, y.astype(np.uint8), criterion=criterion,
                                 min_bags_leaf=1, mdl_correction=mdl)
            roots[mdl] = tree.feature[0]
        assert roots == {False: 0, "cuts": 1, True: 1, "partitions": 0}


@pytest.mark.parametrize("cls", [ID3MIClassifier, C45MIClassifier])
@pytest.mark.parametrize("max_features", [None, 2])
@pytest.mark.parametrize("mdl", ["cuts", "partitions"])
def test_compiled_and_twin_grow_the_same_corrected_tree(cls, max_features, mdl):
    if not compiled_available():
        pytest.skip("compiled kernels are not built")
    rng = np.random.default_rng(3)
    X = [np.round(rng.normal(size=(int(rng.integers(1, 5)), 4)), 1) for _ in range(60)]
    y = np.array([int((x[:, 0] + x[:, 1] > 1.0).any()) for x in X])
    X[5][0, 2] = np.nan  # the NaN path of the kernel counts cut points too
    X[17][0, 0] = np.nan
    est = cls(min_bags_leaf=2, mdl_correction=mdl, max_features=max_features, random_state=0)
    with use_backend("compiled"):
        a = est.fit(X, y).tree_
    with use_backend("python"):
        b = est.fit(X, y).tree_
    assert a == b
    plain = cls(min_bags_leaf=2, max_features=max_features, random_state=0)
    with use_backend("compiled"):
        assert plain.fit(X, y).tree_.node_count >= a.node_count
