"""The finite Newton squared-hinge SVM: liblinear's problem, solved to its minimiser."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.svm import LinearSVC

from mil.svm._squared_hinge import SquaredHingeSVM


def objective(m, X, y, C, w=None):
    v = np.r_[m.coef_, m.intercept_] if hasattr(m, "coef_") else m
    sign = np.where(y > 0, 1.0, -1.0)
    s = np.ones(len(y)) if w is None else w
    margin = sign * (X @ v[:-1] + v[-1])
    return 0.5 * v @ v + C * np.sum(s * np.maximum(0.0, 1.0 - margin) ** 2)


def problem(seed, n, d, weighted):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 3.0, size=d)
    y = (X[:, 0] + rng.normal(size=n) > 0.2).astype(int)
    y[:2] = [0, 1]
    w = rng.uniform(0.0, 2.0, size=n) if weighted else None
    return X, y, w


@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_minimiser_of_linearsvc_problem(C, weighted):
    X, y, w = problem(0, 400, 8, weighted)
    ref = LinearSVC(C=C, loss="squared_hinge", dual=False, tol=1e-12, max_iter=100_000).fit(X, y, sample_weight=w)
    m = SquaredHingeSVM(C).fit(X, y, w)
    # liblinear's trust-region Newton stops about 1e-7 short of the minimiser, even at tol=1e-12.
    np.testing.assert_allclose(m.coef_, ref.coef_[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.intercept_, ref.intercept_[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m.decision_function(X), ref.decision_function(X), rtol=1e-5, atol=1e-6)
    # Never worse than liblinear's own optimum.
    assert objective(m, X, y, C, w) <= objective(np.r_[ref.coef_[0], ref.intercept_[0]], X, y, C, w) * (1 + 1e-12)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(2, 60), d=st.integers(1, 6),
       C=st.sampled_from([0.001, 0.1, 1.0, 10.0, 1000.0]), weighted=st.booleans(), ties=st.booleans())
def test_no_direction_lowers_the_objective(seed, n, d, C, weighted, ties):
    X, y, w = problem(seed, n, d, weighted)
    if ties:  # repeated rows with both labels, and values on a coarse grid
        X = np.round(X)
        X[n // 2:] = X[: n - n // 2]
    m = SquaredHingeSVM(C).fit(X, y, w)
    v = np.r_[m.coef_, m.intercept_]
    f = objective(v, X, y, C, w)
    rng = np.random.default_rng(seed)
    # A minimiser: moving along any coordinate or random direction does not lower the objective.
    dirs = np.r_[np.eye(d + 1), rng.normal(size=(8, d + 1))]
    for u in dirs:
        for h in (1e-3, 1e-5):
            assert objective(v + h * u, X, y, C, w) >= f - 1e-9 * (1 + abs(f))
            assert objective(v - h * u, X, y, C, w) >= f - 1e-9 * (1 + abs(f))


def test_a_warm_start_reaches_the_same_minimiser_in_fewer_steps():
    X, y, _ = problem(1, 3000, 16, False)
    cold = SquaredHingeSVM(10.0).fit(X, y)
    flipped = y.copy()
    flipped[:30] = 1 - flipped[:30]  # a few labels change, as in mi-SVM's alternation
    before = SquaredHingeSVM(10.0).fit(X, flipped)
    warm = SquaredHingeSVM(10.0).fit(X, y, start=before)
    np.testing.assert_allclose(warm.decision_function(X), cold.decision_function(X), rtol=1e-9, atol=1e-9)
    assert warm.n_iter_ <= cold.n_iter_
    # A start of another shape is ignored.
    other = SquaredHingeSVM(10.0).fit(X[:, :3], y)
    np.testing.assert_allclose(SquaredHingeSVM(10.0).fit(X, y, start=other).coef_, cold.coef_, rtol=1e-9, atol=1e-12)


def test_hand_computed_one_feature():
    # x = +1 (label 1) and x = -1 (label 0), C = 1: by symmetry b = 0, and
    # 0.5 w^2 + 2 (1 - w)^2 is least at w = 0.8.
    X = np.array([[1.0], [-1.0]])
    m = SquaredHingeSVM(1.0).fit(X, np.array([1, 0]))
    np.testing.assert_allclose([m.coef_[0], m.intercept_], [0.8, 0.0], atol=1e-12)
    # Labels -1 / +1 give the same model as 0 / 1.
    np.testing.assert_array_equal(SquaredHingeSVM(1.0).fit(X, np.array([1, -1])).coef_, m.coef_)


def test_zero_weights_drop_samples():
    X, y, _ = problem(2, 200, 4, False)
    w = np.ones(200)
    w[150:] = 0.0
    a = SquaredHingeSVM(3.0).fit(X, y, w)
    b = SquaredHingeSVM(3.0).fit(X[:150], y[:150])
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-9, atol=1e-9)
