"""GDBT-MI with bag-ratio base trees (split="bag-ratio"): contract, a hand-computed round,
a share concept, backend agreement, weights and the instance outputs."""

import numpy as np
import pytest
from scipy.special import expit

import mil
from mil.ensemble import BagRatioTree, GDBTMIClassifier
from mil.utils.estimator_checks import check_bag_classifier, make_toy_bags

from .test_gdbt import _fit_both  # both backends' models and their decision_function (_scores)

_BR = dict(split="bag-ratio", random_state=0)


def test_bag_classifier_contract():
    check_bag_classifier(GDBTMIClassifier(n_estimators=8, **_BR),
                         param_grid={"ratio": ["random", "best"]}, multiclass=True)


def test_one_round_is_a_newton_step_on_the_bags():
    X, y = make_toy_bags(n_bags=24, random_state=4)
    clf = GDBTMIClassifier(n_estimators=1, learning_rate=0.3, subsample=1.0, max_features=None,
                           l2_regularization=0.5, **_BR).fit(X, y)
    f0 = clf.init_score_
    np.testing.assert_allclose(f0, np.log(y.mean() / (1 - y.mean())))
    tree = clf.estimators_[0]
    assert isinstance(tree, BagRatioTree) and tree.node_count > 1
    assert np.all((tree.ratio >= 0) & (tree.ratio < 1))
    offsets = np.concatenate([[0], np.cumsum([len(b) for b in X])])
    leaves = tree.apply(np.vstack(X), offsets)
    p = expit(f0)
    for leaf in np.unique(leaves):  # -G / (H + l2) of the leaf's bags
        in_leaf = leaves == leaf
        want = -np.sum(p - y[in_leaf]) / (np.sum(in_leaf) * p * (1 - p) + 0.5)
        np.testing.assert_allclose(tree.value[leaf], want)
    np.testing.assert_allclose(clf.decision_function(X), f0 + 0.3 * tree.value[leaves])
    text = tree.export_text(feature_names=["a", "b", "c"], decimals=2)  # Newton leaves print as values
    assert "share of instances with a <= " in text and str(tree).startswith("|--- share of instances with x0")
    leaf_lines = [line for line in text.splitlines() if "value: " in line]
    assert len(leaf_lines) == np.sum(tree.left < 0)
    assert f"value: {tree.value[np.flatnonzero(tree.left < 0)[0]]:.2f}" in leaf_lines[0]


def _share_bags(n_bags, rng):
    """Bags of 6 instances; positive iff at least 4 have x0 < 0 (negative: at most 2)."""
    X, y = [], []
    for i in range(n_bags):
        label = i % 2
        k = rng.integers(4, 7) if label else rng.integers(0, 3)
        x0 = np.concatenate([-rng.uniform(0.5, 1.5, k), rng.uniform(0.5, 1.5, 6 - k)])
        X.append(np.column_stack([x0, rng.normal(size=(6, 2))]))
        y.append(label)
    return X, np.array(y)


def test_learns_a_share_concept():
    # Most bags have instances on both sides of 0: "at least 4 of the 6
    # instances have x0 < 0" is one bag-ratio rule (split="mi" reaches 0.925 here).
    rng = np.random.default_rng(0)
    X, y = _share_bags(80, rng)
    X_test, y_test = _share_bags(80, rng)
    ratio = GDBTMIClassifier(n_estimators=30, **_BR).fit(X, y)
    assert ratio.score(X_test, y_test) >= 0.95
    assert ratio.feature_importances_[0] > 0.5


@pytest.mark.parametrize("n_classes, ratio", [(2, "random"), (2, "best"), (3, "random")])
def test_compiled_and_python_paths_build_identical_models(n_classes, ratio):
    if mil._config.pure_python_requested():
        pytest.skip("MIL_PURE_PYTHON is set")
    X, y = make_toy_bags(n_bags=36, max_size=6, random_state=3, n_classes=n_classes)
    X = [np.round(b, 1) for b in X]  # ties between thresholds and values
    X[5][0, 1] = np.nan  # a missing value
    c, p = _fit_both(X, y, n_estimators=10, subsample=0.7, ratio=ratio, **_BR)
    stages_c = c.estimators_ if n_classes > 2 else [[t] for t in c.estimators_]
    stages_p = p.estimators_ if n_classes > 2 else [[t] for t in p.estimators_]
    for sc, sp in zip(stages_c, stages_p):
        for tc, tp in zip(sc, sp):
            for name in ("feature", "threshold", "ratio", "left", "right", "value"):
                np.testing.assert_array_equal(getattr(tc, name), getattr(tp, name))
    np.testing.assert_array_equal(c.train_score_, p.train_score_)
    np.testing.assert_array_equal(c._scores, p._scores)


def test_three_classes_and_early_stopping():
    X, y = make_toy_bags(n_bags=45, n_classes=3, random_state=0)
    clf = GDBTMIClassifier(n_estimators=15, subsample=1.0, **_BR).fit(X, y)
    assert all(len(stage) == 3 for stage in clf.estimators_)
    assert clf.score(X, y) > 0.9
    assert np.all(np.diff(clf.train_score_) <= 1e-12)
    np.testing.assert_allclose(clf.feature_importances_.sum(), 1.0)
    X, y = make_toy_bags(n_bags=60, random_state=1)
    clf = GDBTMIClassifier(n_estimators=200, n_iter_no_change=3, **_BR).fit(X, y)
    assert clf.n_estimators_ < 200 and clf.validation_score_.shape == (clf.n_estimators_,)


def test_weights_zero_is_removal_and_ones_change_nothing(backend):
    X, y = make_toy_bags(n_bags=30, random_state=2)
    a = GDBTMIClassifier(n_estimators=6, **_BR).fit(X, y)
    b = GDBTMIClassifier(n_estimators=6, **_BR).fit(X, y, sample_weight=np.ones(30))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    w = np.ones(30)
    w[[3, 10]] = 0
    keep = np.flatnonzero(w > 0)
    c = GDBTMIClassifier(n_estimators=6, **_BR).fit(X, y, sample_weight=w)
    d = GDBTMIClassifier(n_estimators=6, **_BR).fit([X[i] for i in keep], y[keep])
    np.testing.assert_array_equal(c.predict_proba(X), d.predict_proba(X))


def test_instance_outputs_are_one_instance_bags(backend):
    X, y = make_toy_bags(n_bags=20, random_state=5)
    clf = GDBTMIClassifier(n_estimators=5, **_BR).fit(X, y)
    singles = [row[None, :] for b in X for row in b]
    np.testing.assert_allclose(clf.instance_scores(X), clf.decision_function(singles))
    np.testing.assert_array_equal(clf.predict_instances(X), clf.predict(singles))
