"""Bag weights: sample_weight (one per bag) and class_weight in the trees."""

import numpy as np
import pytest

from mil.tree import C45MIClassifier, ID3MIClassifier
from mil.utils.estimator_checks import make_toy_bags
from mil.utils.validation import bag_sample_weight


def _same_tree(a, b):
    for ta, tb in zip(a.trees_, b.trees_):
        np.testing.assert_array_equal(ta.feature, tb.feature)
        np.testing.assert_array_equal(ta.threshold, tb.threshold)


@pytest.mark.parametrize("cls", [ID3MIClassifier, C45MIClassifier])
def test_integer_weights_equal_repeated_bags(cls, backend):
    X, y = make_toy_bags(n_bags=30, random_state=7)
    w = np.random.default_rng(0).integers(1, 4, size=len(X))
    rep = np.repeat(np.arange(len(X)), w)
    a = cls().fit(X, y, sample_weight=w)
    b = cls().fit([X[i] for i in rep], y[rep])
    _same_tree(a, b)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


@pytest.mark.parametrize("cls", [ID3MIClassifier, C45MIClassifier])
def test_zero_weight_removes_the_bag(cls, backend):
    X, y = make_toy_bags(n_bags=30, random_state=8)
    w = np.ones(len(X))
    w[[1, 4, 9]] = 0
    keep = w > 0
    a = cls().fit(X, y, sample_weight=w)
    b = cls().fit([x for x, k in zip(X, keep) if k], y[keep])
    _same_tree(a, b)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    # Unit weights are the unweighted tree.
    np.testing.assert_array_equal(cls().fit(X, y, sample_weight=np.ones(30)).predict_proba(X),
                                  cls().fit(X, y).predict_proba(X))


def _imbalanced():
    # 3 positive and 5 negative bags share the value x = 1 (no split separates
    # them); 20 more negative bags sit at x = -5.
    X = [np.array([[1.0]])] * 8 + [np.array([[-5.0]])] * 20
    y = np.array([1] * 3 + [0] * 25)
    return X, y


def test_class_weight_balanced_by_hand():
    X, y = _imbalanced()
    plain = C45MIClassifier().fit(X, y)
    assert plain.predict([np.array([[1.0]])]).tolist() == [0]  # pi = 3 < nu = 5
    bal = C45MIClassifier(class_weight="balanced").fit(X, y)
    # Weights 28 / (2 * 3) for the positive bags and 28 / (2 * 25) for the
    # negative ones: pi = 14, nu = 2.8 in the x = 1 leaf.
    pi, nu = 3 * 28 / 6, 5 * 28 / 50
    s = bal.smoothing  # leaf estimate (pi + s) / (pi + nu + 2 s) on the bag weights
    np.testing.assert_allclose(bal.predict_proba([np.array([[1.0]])])[0, 1], (pi + s) / (pi + nu + 2 * s))
    assert bal.predict([np.array([[1.0]]), np.array([[-5.0]])]).tolist() == [1, 0]
    # A dict says the same.
    d = C45MIClassifier(class_weight={0: 28 / 50, 1: 28 / 6}).fit(X, y)
    np.testing.assert_allclose(d.predict_proba(X), bal.predict_proba(X))
    # class_weight multiplies sample_weight.
    sw = np.where(y == 1, 2.0, 1.0)
    both = C45MIClassifier(class_weight="balanced").fit(X, y, sample_weight=sw)
    alone = C45MIClassifier().fit(X, y, sample_weight=sw * np.where(y == 1, 28 / 6, 28 / 50))
    np.testing.assert_allclose(both.predict_proba(X), alone.predict_proba(X))


@pytest.mark.parametrize("weights, message", [
    ([1.0, 2.0], r"shape \(2,\); expected \(3,\)"),
    ([1.0, -1.0, 1.0], "sample_weight of bag 1 is negative"),
    ([1.0, np.nan, 1.0], "NaN or infinity"),
    ([0.0, 0.0, 0.0], "sum to zero"),
])
def test_bad_sample_weight(weights, message):
    with pytest.raises(ValueError, match=message):
        bag_sample_weight(weights, [0, 1, 0], 3)


def test_bag_sample_weight_is_none_without_weights():
    assert bag_sample_weight(None, [0, 1, 1], 3) is None
    np.testing.assert_allclose(bag_sample_weight(None, [0, 1, 1], 3, "balanced"), [1.5, 0.75, 0.75])
    np.testing.assert_allclose(bag_sample_weight(2.0, ["a", "b", "b"], 3, {"a": 3}), [6, 2, 2])
