"""Bag weights (sample_weight, class_weight) in the Bag-KNN and Citation-KNN votes."""

import numpy as np
import pytest

from mil.neighbors import BagKNNClassifier, CitationKNNClassifier
from mil.neighbors._classifiers import DISTANCE_RTOL, _rank
from mil.utils.estimator_checks import make_toy_bags

_ALL_VOTE = {BagKNNClassifier: dict(n_neighbors=200),
             CitationKNNClassifier: dict(references=200, citers=0)}


@pytest.mark.parametrize("cls", [BagKNNClassifier, CitationKNNClassifier])
@pytest.mark.parametrize("metric", ["minimal", "integrated"])
def test_unit_weights_are_bit_identical(cls, metric, backend):
    X, y = make_toy_bags(n_bags=30, random_state=3)
    a = cls(metric=metric).fit(X[:20], y[:20])
    b = cls(metric=metric).fit(X[:20], y[:20], sample_weight=np.ones(20))
    np.testing.assert_array_equal(a.predict_proba(X[20:]), b.predict_proba(X[20:]))
    np.testing.assert_array_equal(a.predict(X[20:]), b.predict(X[20:]))


@pytest.mark.parametrize("cls", [BagKNNClassifier, CitationKNNClassifier])
def test_integer_weights_equal_repeated_bags_when_all_vote(cls, backend):
    # With every training bag among the references, a weight w is w copies.
    X, y = make_toy_bags(n_bags=30, random_state=4)
    w = np.random.default_rng(1).integers(0, 4, size=20)
    rep = np.repeat(np.arange(20), w)
    a = cls(**_ALL_VOTE[cls]).fit(X[:20], y[:20], sample_weight=w)
    b = cls(**_ALL_VOTE[cls]).fit([X[i] for i in rep], y[rep])
    np.testing.assert_array_equal(a.predict_proba(X[20:]), b.predict_proba(X[20:]))
    np.testing.assert_array_equal(a.predict(X[20:]), b.predict(X[20:]))


def _line():
    # One-instance bags on a line: 0 (class 0), 1 and 2 (class 1), far ones of class 0.
    X = [np.array([[v]]) for v in (0.0, 1.0, 2.0, 50.0, 60.0)]
    return X, np.array([0, 1, 1, 0, 0])


def test_bag_knn_weighted_vote_by_hand():
    X, y = _line()
    q = [np.array([[0.1]])]
    plain = BagKNNClassifier(n_neighbors=3, scale=None).fit(X, y)
    np.testing.assert_allclose(plain.predict_proba(q)[0], [(1 + 2) / 7, (2 + 2) / 7])
    w = np.array([3.0, 1, 1, 1, 1])
    heavy = BagKNNClassifier(n_neighbors=3, scale=None).fit(X, y, sample_weight=w)
    # Votes 3 (class 0) and 2 (class 1), smoothing 2 each.
    np.testing.assert_allclose(heavy.predict_proba(q)[0], [5 / 9, 4 / 9])
    assert heavy.predict(q).tolist() == [0]
    # A zero-weight bag is absent: the three nearest are bags 0 (class 0), 2 (class 1) and 3 (class 0).
    w0 = np.array([1.0, 0, 1, 1, 1])
    zero = BagKNNClassifier(n_neighbors=3, scale=None).fit(X, y, sample_weight=w0)
    np.testing.assert_allclose(zero.predict_proba(q)[0], [4 / 7, 3 / 7])
    assert zero.predict(q).tolist() == [0]


@pytest.mark.parametrize("cls, params", [
    (BagKNNClassifier, dict(n_neighbors=3)),
    (CitationKNNClassifier, dict(references=2, citers=4)),
    (CitationKNNClassifier, dict(references=2, citers=4, metric="integrated")),
    (CitationKNNClassifier, dict(references=2, citers=4, algorithm="kd_tree")),
    (BagKNNClassifier, dict(n_neighbors=3, algorithm="ball_tree")),
])
def test_zero_weight_bag_equals_dropped_bag(cls, params, backend):
    # A weight-0 bag is neither a reference nor a citer, nor in the scaling, alpha or thresholds.
    X, y = make_toy_bags(n_bags=36, random_state=6)
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=24)
    w[[1, 4, 9, 10]] = 0.0
    keep = np.flatnonzero(w > 0)
    a = cls(**params).fit(X[:24], y[:24], sample_weight=w)
    b = cls(**params).fit([X[i] for i in keep], y[keep], sample_weight=w[keep])
    np.testing.assert_array_equal(a.predict_proba(X[24:]), b.predict_proba(X[24:]))
    np.testing.assert_array_equal(a.predict(X[24:]), b.predict(X[24:]))
    if hasattr(b, "citer_threshold_"):
        np.testing.assert_array_equal(a.citer_threshold_, b.citer_threshold_)


@pytest.mark.parametrize("cls", [BagKNNClassifier, CitationKNNClassifier])
def test_zero_weight_bag_equals_dropped_bag_precomputed(cls):
    rng = np.random.default_rng(7)
    P = rng.normal(size=(14, 2))
    D = np.sqrt(((P[:, None] - P[None]) ** 2).sum(-1))
    y = np.array([0, 1] * 7)
    Q = rng.normal(size=(5, 2))
    Dq = np.sqrt(((Q[:, None] - P[None]) ** 2).sum(-1))
    w = np.ones(14)
    w[[0, 3]] = 0.0
    keep = np.flatnonzero(w > 0)
    a = cls(metric="precomputed").fit(D, y, sample_weight=w)
    b = cls(metric="precomputed").fit(D[np.ix_(keep, keep)], y[keep])
    np.testing.assert_array_equal(a.predict_proba(Dq), b.predict_proba(Dq[:, keep]))
    # Predicting takes one column per training bag given to fit, dropped ones included.
    with pytest.raises(ValueError, match="one column per training bag"):
        a.predict(Dq[:, keep])


def _imbalanced():
    # 3 positive and 5 negative bags at x = 1 (all at distance 0 from the
    # query), 20 negative bags at x = -5.
    X = [np.array([[1.0]])] * 8 + [np.array([[-5.0]])] * 20
    y = np.array([1] * 3 + [0] * 25)
    return X, y


@pytest.mark.parametrize("cls, params", [(BagKNNClassifier, dict(n_neighbors=8)),
                                         (CitationKNNClassifier, dict(references=8, citers=0))])
def test_class_weight_balanced_by_hand(cls, params, backend):
    X, y = _imbalanced()
    q = [np.array([[1.0]])]
    assert cls(**params, scale=None).fit(X, y).predict(q).tolist() == [0]  # 3 < 5 votes
    bal = cls(**params, scale=None, class_weight="balanced").fit(X, y)
    pos, neg = 3 * 28 / 6, 5 * 28 / 50  # 14 and 2.8
    np.testing.assert_allclose(bal.predict_proba(q)[0], [(neg + 2) / (pos + neg + 4),
                                                          (pos + 2) / (pos + neg + 4)])
    assert bal.predict(q).tolist() == [1]
    d = cls(**params, scale=None, class_weight={0: 28 / 50, 1: 28 / 6}).fit(X, y)
    np.testing.assert_allclose(d.predict_proba(X), bal.predict_proba(X))
    # class_weight multiplies sample_weight.
    sw = np.where(y == 1, 2.0, 1.0)
    both = cls(**params, scale=None, class_weight="balanced").fit(X, y, sample_weight=sw)
    alone = cls(**params, scale=None).fit(X, y, sample_weight=sw * np.where(y == 1, 28 / 6, 28 / 50))
    np.testing.assert_allclose(both.predict_proba(X), alone.predict_proba(X))


def test_citation_weighted_votes_by_hand():
    # Precomputed distances: references and citers each vote with their weight.
    rng = np.random.default_rng(5)
    P = rng.normal(size=(12, 2))
    D = np.sqrt(((P[:, None] - P[None]) ** 2).sum(-1))
    y = np.array([0, 1] * 6)
    w = rng.uniform(0.5, 3.0, size=12)
    Q = rng.normal(size=(6, 2))
    Dq = np.sqrt(((Q[:, None] - P[None]) ** 2).sum(-1))
    clf = CitationKNNClassifier(references=2, citers=3, metric="precomputed", smoothing=0.0)
    clf.fit(D, y, sample_weight=w)
    others = D + np.diag(np.full(12, np.inf))
    thr = np.sort(others, axis=1)[:, 2]
    cites = Dq <= thr[None, :] * (1 + DISTANCE_RTOL)
    near = _rank(Dq, 2)
    votes = np.zeros((6, 2))
    for i in range(6):
        for j in near[i]:
            votes[i, y[j]] += w[j]
        for j in np.flatnonzero(cites[i]):
            votes[i, y[j]] += w[j]
    np.testing.assert_allclose(clf.predict_proba(Dq), votes / votes.sum(axis=1, keepdims=True))
    np.testing.assert_array_equal(clf.predict(Dq), (votes[:, 1] > votes[:, 0]).astype(int))
