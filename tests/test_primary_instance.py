"""Primary-instance regression (Ray and Page 2001): choosing one instance per bag, refitting on it."""

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression, Ridge, SGDRegressor
from sklearn.neighbors import KNeighborsRegressor

from mil.datasets import make_primary_instance_bags, primary_instance_split
from mil.wrappers import MIWrapperRegressor, PrimaryInstanceRegressor
from mil.wrappers._primary import _bag_argmin, _bag_softmin


def _linear_primary_bags(n_bags=120, size=4, seed=0, noise=0.0):
    rng = np.random.default_rng(seed)
    X = [rng.normal(size=(size, 3)) for _ in range(n_bags)]
    primary = rng.integers(size, size=n_bags)
    y = np.array([2.0 * b[p, 0] - b[p, 1] for b, p in zip(X, primary)]) + noise * rng.normal(size=n_bags)
    return X, y, primary


def test_bag_argmin_and_softmin_by_hand():
    values = np.array([3.0, 1.0, 1.0, 5.0, 0.5, 2.0])
    offsets = np.array([0, 3, 4, 6])
    assert _bag_argmin(values, offsets).tolist() == [1, 0, 0]  # ties: the first
    q = _bag_softmin(values, offsets, 2.0)
    np.testing.assert_allclose(q[:3], np.exp(-values[:3] / 2) / np.exp(-values[:3] / 2).sum())
    np.testing.assert_allclose(q[3], 1.0)
    np.testing.assert_allclose(np.add.reduceat(q, offsets[:-1]), 1.0)


@pytest.mark.parametrize("assignment", ["hard", "soft"])
@pytest.mark.parametrize("init", ["instances", "random"])
def test_recovers_the_primaries(assignment, init):
    X, y, primary = _linear_primary_bags()
    reg = PrimaryInstanceRegressor(LinearRegression(), assignment=assignment, init=init, random_state=0).fit(X, y)
    assert (reg.primary_ == primary).mean() == 1.0
    np.testing.assert_allclose(reg.estimator_.coef_, [2.0, -1.0, 0.0], atol=1e-6)
    assert reg.n_iter_ < reg.max_iter
    # The instance model is the one predict_instances uses; a bag's prediction pools it.
    flat = np.vstack(X)
    np.testing.assert_allclose(reg.predict_instances(X), reg.estimator_.predict(flat))
    np.testing.assert_allclose(reg.predict(X), reg.estimator_.predict(flat).reshape(-1, 4).mean(1))


def test_first_model_is_miwrapper_with_bags_weighing_alike():
    X, y, _ = _linear_primary_bags(noise=0.3)
    first = PrimaryInstanceRegressor(Ridge(), max_iter=0).fit(X, y)
    wrapper = MIWrapperRegressor(Ridge(), weighting="inverse_size").fit(X, y)
    np.testing.assert_allclose(first.predict_instances(X), wrapper.predict_instances(X), rtol=1e-12)
    assert first.n_iter_ == 0 and first.primary_.shape == (len(X),)


def test_beats_instance_regression_when_one_instance_carries_the_target():
    X, y, _ = _linear_primary_bags(n_bags=200, noise=0.2, seed=3)
    Xt, yt, pt = _linear_primary_bags(n_bags=100, noise=0.0, seed=4)
    primaries = np.array([b[p] for b, p in zip(Xt, pt)])
    pir = PrimaryInstanceRegressor(LinearRegression()).fit(X, y)
    ins = MIWrapperRegressor(LinearRegression()).fit(X, y)
    mse = lambda r: np.mean((r.estimator_.predict(primaries) - yt) ** 2)  # noqa: E731
    assert mse(pir) < 0.1 < mse(ins)


def test_zero_weight_bags_have_no_primary():
    X, y, primary = _linear_primary_bags()
    w = np.ones(len(X))
    w[[0, 7]] = 0.0
    reg = PrimaryInstanceRegressor(LinearRegression()).fit(X, y, sample_weight=w)
    assert reg.primary_[[0, 7]].tolist() == [-1, -1]
    kept = PrimaryInstanceRegressor(LinearRegression()).fit([x for x, k in zip(X, w) if k], y[w > 0])
    np.testing.assert_array_equal(reg.primary_[w > 0], kept.primary_)


def test_seeded_inner_estimator_and_random_init():
    X, y, _ = _linear_primary_bags(noise=0.5)
    a = PrimaryInstanceRegressor(SGDRegressor(max_iter=50, tol=None), init="random", random_state=3).fit(X, y)
    b = PrimaryInstanceRegressor(SGDRegressor(max_iter=50, tol=None), init="random", random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert a.estimator_.random_state is not None  # drawn from random_state


def test_inner_estimator_must_take_weights_when_bags_differ():
    X, y, _ = _linear_primary_bags()
    X[0] = X[0][:2]
    with pytest.raises(ValueError, match="KNeighborsRegressor does not accept it"):
        PrimaryInstanceRegressor(KNeighborsRegressor()).fit(X, y)


def test_chauhan_bags_smoke():
    # Small version of the published benchmark (k = 5, 10 % overlap): PIR with a quadratic
    # instance model finds primaries far above chance (1 / 5) and predicts the held-out primaries.
    from sklearn.linear_model import RidgeCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import PolynomialFeatures, StandardScaler

    d = make_primary_instance_bags(600, bag_size=5, n_features=4, overlap=0.0, random_state=0)
    s = primary_instance_split(d)
    model = make_pipeline(PolynomialFeatures(2, include_bias=False), StandardScaler(),
                          RidgeCV(alphas=np.logspace(-3, 3, 7)))
    reg = PrimaryInstanceRegressor(model, random_state=0).fit(s.bags_train, s.y_train)
    assert (reg.primary_ == s.primary_train).mean() > 0.3  # chance: 0.2
    test_mse = np.mean((reg.predict_instances([s.X_test]) - s.y_test) ** 2)
    assert test_mse < 0.5 * np.var(s.y_test)
