"""Leaf smoothing of ID3-MI / C4.5-MI: probabilities tempered, binary decisions unchanged."""

import numpy as np
import pytest

from mil.datasets import load_musk1
from mil.tree import C45MIClassifier, ID3MIClassifier
from mil.utils.estimator_checks import make_toy_bags


def _by_hand(est, X, s):
    """Max over each bag's instances of (pi + s) / (pi + nu + 2 s) of the leaf it reaches."""
    tree = est.tree_
    out = []
    for bag in X:
        leaves = tree.apply(np.ascontiguousarray(bag, dtype=np.float64))
        pi, nu = tree.leaf_pos[leaves], tree.leaf_neg[leaves]
        out.append(np.max((pi + s) / (pi + nu + 2 * s)))
    return np.array(out)


@pytest.mark.parametrize("cls", [C45MIClassifier, ID3MIClassifier])
def test_default_smoothing_is_eight(cls):
    assert cls().smoothing == 8.0


@pytest.mark.parametrize("cls", [C45MIClassifier, ID3MIClassifier])
@pytest.mark.parametrize("s", [1.0, 8.0, 0.25])
def test_proba_is_the_smoothed_leaf_estimate_by_hand(cls, s):
    X, y = make_toy_bags(n_bags=60, random_state=3)
    est = cls(smoothing=s, min_bags_leaf=2, sharpness=np.inf).fit(X, y)  # the maximum rule
    np.testing.assert_allclose(est.predict_proba(X)[:, 1], _by_hand(est, X, s), rtol=0, atol=1e-15)


def test_laplace_is_smoothing_one():
    X, y = make_toy_bags(n_bags=40, random_state=1)
    tree = C45MIClassifier(min_bags_leaf=1).fit(X, y).tree_
    np.testing.assert_array_equal(tree.laplace(1.0), (tree.leaf_pos + 1) / (tree.leaf_pos + tree.leaf_neg + 2))
    np.testing.assert_array_equal(tree.laplace(), tree.laplace(1.0))


@pytest.mark.parametrize("cls", [C45MIClassifier, ID3MIClassifier])
def test_binary_predictions_do_not_depend_on_smoothing(cls):
    data = load_musk1()
    X, y = data.data, data.target
    train, test = data.folds[0] != 0, data.folds[0] == 0
    Xtr = [X[i] for i in np.flatnonzero(train)]
    Xte = [X[i] for i in np.flatnonzero(test)]
    ref = None
    for s in (0.5, 1.0, 8.0, 100.0):
        est = cls(smoothing=s, sharpness=np.inf).fit(Xtr, y[train])  # with pooling, s weighs the instances
        pred = est.predict(Xte)
        proba = est.predict_proba(Xte)
        np.testing.assert_array_equal(pred, est.classes_[np.argmax(proba, axis=1)])
        np.testing.assert_array_equal(est.decision_function(Xte) > 0, pred == est.classes_[1])
        if ref is None:
            ref = pred
        np.testing.assert_array_equal(pred, ref)


def test_larger_smoothing_pulls_probabilities_towards_one_half():
    X, y = make_toy_bags(n_bags=60, random_state=5)
    p1 = C45MIClassifier(smoothing=1.0, min_bags_leaf=2).fit(X, y).predict_proba(X)[:, 1]
    p8 = C45MIClassifier(smoothing=8.0, min_bags_leaf=2).fit(X, y).predict_proba(X)[:, 1]
    assert np.all(np.abs(p8 - 0.5) <= np.abs(p1 - 0.5) + 1e-15)
    assert np.any(np.abs(p8 - 0.5) < np.abs(p1 - 0.5))


@pytest.mark.parametrize("bad", [0.0, -1.0])
def test_smoothing_must_be_positive(bad):
    X, y = make_toy_bags(n_bags=20, random_state=0)
    with pytest.raises(ValueError, match="smoothing"):
        C45MIClassifier(smoothing=bad).fit(X, y)
