"""Bag-KNN and Citation-KNN regressors: hand-computed cases, the searches agree, the regressor checks."""

import numpy as np
import pytest
import sklearn
from sklearn.utils.fixes import parse_version

from mil import Bags
from mil.distances import hausdorff
from mil.neighbors import (BagKNNClassifier, BagKNNRegressor, CitationKNNClassifier, CitationKNNRegressor,
                           kernel_regression_loss, select_alpha)
from mil.utils.estimator_checks import (check_bag_regressor, expected_failed_checks, make_toy_regression_bags,
                                        one_instance_bags)

REGRESSORS = [
    BagKNNRegressor(),
    BagKNNRegressor(n_neighbors=2, weights="distance", metric="average"),
    CitationKNNRegressor(),
    CitationKNNRegressor(weights="distance", algorithm="kd_tree"),
    CitationKNNRegressor(metric="integrated", scale=None),
]
GRIDS = {"BagKNNRegressor": {"n_neighbors": [1, 3]}, "CitationKNNRegressor": {"references": [1, 2]}}


def _id(est):
    changed = {k: v for k, v in est.get_params().items() if v != type(est)().get_params()[k]}
    return type(est).__name__ + "".join(f"-{k}={v}" for k, v in changed.items())


def _line_bags():
    # One-instance bags on a line: distances are |a - b|.
    X = [np.array([[0.0]]), np.array([[1.0]]), np.array([[3.0]]), np.array([[6.0]])]
    return X, np.array([10.0, 20.0, 30.0, 40.0])


def test_bag_knn_mean_of_the_nearest_by_hand():
    X, y = _line_bags()
    reg = BagKNNRegressor(n_neighbors=2, scale=None).fit(X, y)
    # 2.2 is nearest to 3 (0.8) and 1 (1.2); 0.4 to 0 and 1.
    np.testing.assert_allclose(reg.predict([np.array([[2.2]]), np.array([[0.4]])]), [25.0, 15.0])
    dist = BagKNNRegressor(n_neighbors=2, scale=None, weights="distance").fit(X, y)
    np.testing.assert_allclose(dist.predict([np.array([[2.2]])]), [(30 / 0.8 + 20 / 1.2) / (1 / 0.8 + 1 / 1.2)])
    # At distance 0 only the bags at distance 0 count.
    np.testing.assert_allclose(dist.predict([np.array([[3.0]])]), [30.0])


def test_citation_knn_mean_of_references_and_citers_by_hand():
    X, y = _line_bags()
    reg = CitationKNNRegressor(references=1, citers=1, scale=None).fit(X, y)
    # Thresholds (nearest other bag): 1, 1, 2, 3. Query 4.5: reference 3 (1.5 away, y=30);
    # citers: bag 3 (d 1.5 <= 2) and bag 6 (d 1.5 <= 3): mean of 30, 30, 40.
    np.testing.assert_allclose(reg.citer_threshold_, [1.0, 1.0, 2.0, 3.0])
    np.testing.assert_allclose(reg.predict([np.array([[4.5]])]), [100.0 / 3.0])
    w = CitationKNNRegressor(references=1, citers=1, scale=None).fit(X, y, sample_weight=[1, 1, 1, 3])
    np.testing.assert_allclose(w.predict([np.array([[4.5]])]), [(30 + 30 + 3 * 40) / 5.0])


@pytest.mark.parametrize("cls", [BagKNNRegressor, CitationKNNRegressor])
def test_regressors_share_the_classifiers_neighbours(backend, cls):
    # Two classes as targets 0 / 1: the mean is the classifier's raw vote share of class 1.
    X, y = make_toy_regression_bags(n_bags=30, random_state=3)
    labels = (y > 0).astype(int)
    clf_cls = BagKNNClassifier if cls is BagKNNRegressor else CitationKNNClassifier
    kwargs = {"citers": 3} if cls is CitationKNNRegressor else {}
    reg = cls(**kwargs).fit(X[:20], labels[:20].astype(float))
    clf = clf_cls(smoothing=0.0, **kwargs).fit(X[:20], labels[:20])
    votes, _ = clf._votes(clf._test_matrix(X[20:]))
    np.testing.assert_allclose(reg.predict(X[20:]), votes[:, 1] / votes.sum(axis=1), rtol=1e-12)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("cls", [BagKNNRegressor, CitationKNNRegressor])
def test_tree_and_matrix_searches_agree(backend, cls, weights):
    rng = np.random.default_rng(0)
    X = [rng.normal(size=(rng.integers(1, 6), 3)) for _ in range(60)]
    X[7] = X[3].copy()  # a tie
    y = rng.normal(size=60)
    preds = {a: cls(weights=weights, algorithm=a).fit(X[:45], y[:45]).predict(X) for a in ("brute", "kd_tree")}
    np.testing.assert_allclose(preds["kd_tree"], preds["brute"], rtol=1e-9)


@pytest.mark.parametrize("cls", [BagKNNRegressor, CitationKNNRegressor])
def test_precomputed_equals_bags(cls):
    X, y = make_toy_regression_bags(n_bags=30, random_state=1)
    bags = cls(metric="average", scale=None).fit(X[:20], y[:20])
    pre = cls(metric="precomputed").fit(hausdorff(X[:20], kind="average"), y[:20])
    np.testing.assert_allclose(pre.predict(hausdorff(X[20:], X[:20], kind="average")), bags.predict(X[20:]),
                               rtol=1e-12)
    w = np.ones(20)
    w[[2, 5]] = 0.0
    a = cls(metric="precomputed").fit(hausdorff(X[:20], kind="average"), y[:20], sample_weight=w)
    keep = np.flatnonzero(w > 0)
    b = cls(metric="average", scale=None).fit([X[i] for i in keep], y[keep])
    np.testing.assert_allclose(a.predict(hausdorff(X[20:], X[:20], kind="average")), b.predict(X[20:]),
                               rtol=1e-12)


def test_one_training_bag_and_no_citers():
    X, y = _line_bags()
    for algorithm in ("brute", "kd_tree"):
        one = CitationKNNRegressor(weights="distance", algorithm=algorithm).fit(X[:1], y[:1])
        np.testing.assert_allclose(one.predict(X), 10.0)
    none = CitationKNNRegressor(references=1, citers=0, scale=None).fit(X, y)
    np.testing.assert_allclose(none.predict([np.array([[2.2]])]), [30.0])


def test_adapted_is_refused_with_a_clear_error():
    X, y = _line_bags()
    with pytest.raises(ValueError, match="metric"):
        CitationKNNRegressor(metric="adapted").fit(X, y)


def test_integrated_alpha_by_kernel_regression():
    # The target follows the minimal distance (one shared instance), not the maximal: alpha near 1.
    rng = np.random.default_rng(2)
    y = rng.uniform(0, 10, 40)
    X = [np.vstack([[[t, 0.0]], rng.normal(0, 30, size=(4, 2))]) for t in y]
    reg = CitationKNNRegressor(metric="integrated", scale=None, sigma=1.0).fit(X, y)
    assert reg.alpha_ > 0.8
    mats = {k: hausdorff(X, kind=k) for k in ("minimal", "maximal")}
    losses = [kernel_regression_loss(mats["minimal"], mats["maximal"], y, a, 1.0) for a in (0.0, 0.5, 1.0)]
    assert losses[2] < losses[1] < losses[0]
    alpha = select_alpha(mats["minimal"], mats["maximal"], y, 1.0, method="grid-golden", task="regression")
    assert alpha > 0.8


def test_kernel_regression_loss_by_hand():
    # Three bags; with sigma huge the leave-one-out prediction is the mean of the other two.
    d = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
    y = np.array([0.0, 3.0, 6.0])
    expected = (0 - 4.5) ** 2 + (3 - 3) ** 2 + (6 - 1.5) ** 2
    assert kernel_regression_loss(d, d, y, 0.5, 1e12) == pytest.approx(expected)


@pytest.mark.parametrize("regressor", REGRESSORS, ids=_id)
def test_bag_checks(regressor):
    check_bag_regressor(regressor, sklearn_checks=False, param_grid=GRIDS[type(regressor).__name__])


def test_bags_input_equals_lists():
    X, y = make_toy_regression_bags(n_bags=30)
    a = CitationKNNRegressor().fit(X, y).predict(X)
    b = CitationKNNRegressor().fit(Bags.from_list(X), y).predict(Bags.from_list(X))
    np.testing.assert_array_equal(a, b)


def _brute_force(Xtr, ytr, Xte, w, kind, k, citers, weights):
    """Citation-KNN (citers > 0) or Bag-KNN (citers None) regression by loops over the distances."""
    d = lambda a, b: hausdorff([a], [b], kind=kind)[0, 0]  # noqa: E731
    n = len(Xtr)
    thr = [sorted(d(Xtr[i], Xtr[j]) for j in range(n) if j != i)[citers - 1] if citers else -1.0
           for i in range(n)]
    out = []
    for q in Xte:
        dq = [d(q, b) for b in Xtr]
        chosen = sorted(range(n), key=lambda j: dq[j])[:k]
        if citers:
            chosen += [j for j in range(n) if dq[j] <= thr[j]]
        ws = [w[j] / (dq[j] if weights == "distance" else 1.0) for j in chosen]
        out.append(sum(wj * ytr[j] for wj, j in zip(ws, chosen)) / sum(ws))
    return np.array(out)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("kind", ["minimal", "maximal", "average"])
def test_brute_force_agreement(backend, kind, weights):
    rng = np.random.default_rng(5)
    X = [rng.normal(size=(rng.integers(1, 5), 2)) for _ in range(22)]
    y = rng.normal(size=22)
    w = rng.uniform(0.5, 2.0, size=16)
    Xtr, Xte = X[:16], X[16:]
    for est, k, citers in [(BagKNNRegressor(n_neighbors=3, weights=weights, metric=kind, scale=None), 3, None),
                           (CitationKNNRegressor(references=2, citers=3, weights=weights, metric=kind,
                                                 scale=None), 2, 3)]:
        got = est.fit(Xtr, y[:16], sample_weight=w).predict(Xte)
        np.testing.assert_allclose(got, _brute_force(Xtr, y[:16], Xte, w, kind, k, citers, weights), rtol=1e-10)


def test_float32_bags_predict_as_float64():
    X, y = make_toy_regression_bags(n_bags=30, random_state=4)
    X32 = [b.astype(np.float32) for b in X]
    for est in (BagKNNRegressor(), CitationKNNRegressor(weights="distance")):
        a = est.fit(X32, y).predict(X32)
        b = est.fit([b.astype(np.float64) for b in X32], y).predict([b.astype(np.float64) for b in X32])
        assert a.dtype == np.float64
        np.testing.assert_allclose(a, b, rtol=1e-12)


if parse_version(sklearn.__version__) >= parse_version("1.9"):
    from sklearn.utils.estimator_checks import parametrize_with_checks

    @parametrize_with_checks([one_instance_bags(r) for r in REGRESSORS[:3]],
                             expected_failed_checks=expected_failed_checks)
    def test_sklearn_checks(estimator, check):
        check(estimator)
