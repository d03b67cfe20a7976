"""Bag weights (sample_weight, class_weight) in GDBT-MI's loss."""

import numpy as np
import pytest

from mil.ensemble import GDBTMIClassifier
from mil.ensemble._gdbt_losses import BinomialLoss
from mil.utils.estimator_checks import make_toy_bags

_FAST = dict(n_estimators=8, random_state=0)


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("params", [dict(), dict(n_iter_no_change=2, validation_fraction=0.3),
                                    dict(pooling="noisy-or", subsample=1.0)])
def test_unit_weights_are_bit_identical(n_classes, params, backend):
    X, y = make_toy_bags(n_bags=40, random_state=2)
    if n_classes == 3:
        y = np.arange(40) % 3
    a = GDBTMIClassifier(**_FAST, **params).fit(X, y)
    b = GDBTMIClassifier(**_FAST, **params).fit(X, y, sample_weight=np.ones(40))
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    np.testing.assert_array_equal(a.train_score_, b.train_score_)
    assert a.n_estimators_ == b.n_estimators_


def test_init_score_is_the_weighted_log_odds():
    # Maximum and log-sum-exp poolings: F_0 = logit of the weighted share of positive bags.
    X, y = make_toy_bags(n_bags=20, random_state=3)
    w = np.random.default_rng(0).uniform(0.5, 2.0, size=20)
    clf = GDBTMIClassifier(n_estimators=1, pooling="max", random_state=0).fit(X, y, sample_weight=w)
    share = np.sum(w * y) / np.sum(w)
    np.testing.assert_allclose(clf.init_score_, np.log(share / (1 - share)), atol=1e-7)


def test_integer_weights_equal_repeated_bags_in_the_first_stage(backend):
    # Without subsampling and with every feature, one round sees the same
    # loss for a bag of weight 2 as for two copies of it.
    X, y = make_toy_bags(n_bags=30, random_state=5)
    w = np.random.default_rng(1).integers(1, 3, size=30)
    rep = np.repeat(np.arange(30), w)
    params = dict(n_estimators=1, subsample=1.0, max_features=None, min_bags_leaf=1,
                  pooling="max", random_state=0)
    a = GDBTMIClassifier(**params).fit(X, y, sample_weight=w)
    b = GDBTMIClassifier(**params).fit([X[i] for i in rep], y[rep])
    np.testing.assert_allclose(a.init_score_, b.init_score_, atol=1e-7)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-6, atol=1e-6)


def test_class_weight_balanced_by_hand():
    # 3 positive and 25 negative one-instance bags: F_0 is the logit of the
    # weighted positive share, 1/2 when balanced.
    X = [np.array([[float(i)]]) for i in range(28)]
    y = np.array([1] * 3 + [0] * 25)
    plain = GDBTMIClassifier(n_estimators=1, pooling="max", random_state=0).fit(X, y)
    np.testing.assert_allclose(plain.init_score_, np.log(3 / 25), atol=1e-7)
    bal = GDBTMIClassifier(n_estimators=1, pooling="max", class_weight="balanced",
                           random_state=0).fit(X, y)
    np.testing.assert_allclose(bal.init_score_, 0.0, atol=1e-7)
    # The training loss is the weighted one.
    d = GDBTMIClassifier(n_estimators=1, pooling="max", subsample=1.0, random_state=0,
                         class_weight={0: 28 / 50, 1: 28 / 6}).fit(X, y)
    w = np.where(y == 1, 28 / 6, 28 / 50)
    S = d.decision_function(X)
    np.testing.assert_allclose(d.train_score_[-1], BinomialLoss()(S[:, None], y[:, None].astype(float), w), rtol=1e-9)


def test_zero_weight_removes_the_bag(backend):
    X, y = make_toy_bags(n_bags=30, random_state=6)
    w = np.ones(30)
    w[[2, 7]] = 0
    keep = w > 0
    a = GDBTMIClassifier(**_FAST).fit(X, y, sample_weight=w)
    b = GDBTMIClassifier(**_FAST).fit([x for x, k in zip(X, keep) if k], y[keep])
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
