"""The encoder regressors (distribution regression) on the tuning engine: models by hand, the grid, the data."""

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.svm import SVR

from mil.embedding import (KernelMeanRegressor, MInDRegressor, SlicedWassersteinRegressor, miFVRegressor,
                           miVLADRegressor)
from mil.wrappers import SimpleMIRegressor


def _spread_bags(n=60, seed=0, size=30):
    rng = np.random.default_rng(seed)
    y = rng.uniform(0.5, 2.0, size=n)
    return [rng.normal(scale=s, size=(size, 2)) for s in y], y


@pytest.mark.parametrize("model", ["rbf", "svr"])
def test_kernel_models_by_hand(model):
    X, y = _spread_bags()
    reg = SlicedWassersteinRegressor(n_directions=8, n_quantiles=4, model=model, gamma_scales=(1.0,),
                                     alphas=(0.1,), Cs=(1.0,), cv=1, random_state=0).fit(X[:40], y[:40])
    E_train = reg.encoder_.transform(X[:40])
    E_test = reg.encoder_.transform(X[40:])
    D = euclidean_distances(E_train)
    gamma = 1.0 / np.median(D[~np.eye(40, dtype=bool)] ** 2)
    np.testing.assert_allclose(reg.gamma_, gamma, rtol=1e-9)
    K = np.exp(-gamma * D ** 2)
    K_test = np.exp(-gamma * euclidean_distances(E_test, E_train) ** 2)
    if model == "rbf":
        expected = KernelRidge(alpha=0.1, kernel="precomputed").fit(K, y[:40]).predict(K_test)
    else:
        s = np.std(y[:40])
        expected = SVR(kernel="precomputed", C=s, epsilon=0.1 * s, tol=1e-6).fit(K, y[:40]).predict(K_test)
    np.testing.assert_allclose(reg.predict(X[40:]), expected, rtol=1e-6, atol=1e-8)


def test_the_grid_is_chosen_by_inner_cv():
    X, y = _spread_bags()
    reg = KernelMeanRegressor(n_components=60, instance_gamma_scales=(0.5, 2.0), alphas=(0.01, 1.0), cv=3,
                              random_state=0).fit(X, y)
    assert reg.cv_results_.shape == (2, 2)
    assert set(reg.best_params_) == {"encoder", "alpha"}
    assert reg.best_params_["encoder"]["normalize"] == "weights"  # the kernel mean embedding


@pytest.mark.parametrize("cls, params", [
    (KernelMeanRegressor, {"n_components": 100}), (SlicedWassersteinRegressor, {}),
    (miFVRegressor, {}), (miVLADRegressor, {}), (MInDRegressor, {}),
])
def test_the_spread_is_learned(cls, params):
    # The target is each bag's standard deviation: the mean cannot see it.
    X, y = _spread_bags(80)
    reg = cls(cv=3, random_state=0, **params).fit(X[:60], y[:60])
    blind = SimpleMIRegressor(summary="mean").fit(X[:60], y[:60]).score(X[60:], y[60:])
    assert reg.score(X[60:], y[60:]) > 0.5 > blind


def test_law_chisq_bags_smoke():
    from mil.datasets import make_chisq_bags

    train, test = make_chisq_bags(60, bag_size=100, random_state=0), make_chisq_bags(30, bag_size=100, random_state=1)
    reg = KernelMeanRegressor(n_components=100, cv=3, random_state=0).fit(train.bags, train.target)
    assert np.mean((reg.predict(test.bags) - test.target) ** 2) < np.var(test.target)


# -- the bag-kernel regressors (mil.svm.BagKernelSVR) ------------------------------

@pytest.mark.parametrize("model", ["svr", "ridge"])
def test_bag_kernel_svr_by_hand(model):
    from mil.svm import BagKernelSVR, set_kernel
    from mil._scaling import median_sq_distance

    X, y = _spread_bags(40, size=10)
    reg = BagKernelSVR(model=model, gamma=1.0, C=1.0, alphas=(0.1,), scale=None, cv=1).fit(X[:30], y[:30])
    gamma = 1.0 / median_sq_distance(np.vstack(X[:30]))
    np.testing.assert_allclose(reg.gamma_, gamma, rtol=1e-12)
    K = set_kernel(X[:30], gamma=gamma)
    K_test = set_kernel(X[30:], X[:30], gamma=gamma)
    if model == "svr":
        s = np.std(y[:30])
        expected = SVR(kernel="precomputed", C=s, epsilon=0.1 * s, tol=1e-6).fit(K, y[:30]).predict(K_test)
    else:
        expected = KernelRidge(alpha=0.1, kernel="precomputed").fit(K, y[:30]).predict(K_test)
    np.testing.assert_allclose(reg.predict(X[30:]), expected, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("kernel", ["nsk", "migraph", "emd", "average"])
def test_bag_kernel_svr_learns_the_spread(kernel):
    from mil.svm import BagKernelSVR

    X, y = _spread_bags(60, size=15)
    reg = BagKernelSVR(kernel, cv=3, random_state=0).fit(X[:45], y[:45])
    assert reg.score(X[45:], y[45:]) > 0.2


# -- the bag-kernel SVR on Nystroem landmarks (n_landmarks) -------------------------

def test_landmark_kernel_converges_to_the_exact_nsk(backend):
    from mil.svm import set_kernel
    from mil._scaling import median_sq_distance
    from mil.svm._kernels import landmark_embeddings
    from mil.utils.validation import check_bags

    X, _ = _spread_bags(20, size=10)  # 200 instances
    bags = check_bags(X)
    gammas = np.array([0.5, 2.0]) / median_sq_distance(bags.instances)
    exact = set_kernel(bags, gamma=gammas)
    errors = []
    for m in (10, 50, 200):
        _, embeddings = landmark_embeddings(bags, gammas, m, random_state=0)
        errors.append(max(float(np.abs(E @ E.T - K).max()) for E, K in zip(embeddings, exact)))
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 1e-7  # every instance a landmark: the Nystroem map is exact on them


@pytest.mark.parametrize("model", ["svr", "ridge"])
def test_bag_kernel_svr_landmarks_by_hand(model):
    # Every training instance a landmark: the training kernel is the exact NSK at the exact
    # path's gamma, and the model is the SVR (or kernel ridge) on it.
    from mil.svm import BagKernelSVR, set_kernel
    from mil._scaling import median_sq_distance

    X, y = _spread_bags(40, size=10)
    params = dict(model=model, gamma=1.0, C=1.0, alphas=(0.1,), scale=None, cv=1, random_state=0)
    reg = BagKernelSVR(n_landmarks=300, **params).fit(X[:30], y[:30])
    gamma = 1.0 / median_sq_distance(np.vstack(X[:30]))
    np.testing.assert_allclose(reg.gamma_, gamma, rtol=1e-12)
    assert reg.train_embedding_.shape[1] == 300
    K = set_kernel(X[:30], gamma=gamma)
    E = reg.landmark_map_.transform(X[:30])
    np.testing.assert_allclose(E @ E.T, K, atol=1e-7)
    exact = BagKernelSVR(**params).fit(X[:30], y[:30])
    np.testing.assert_allclose(reg.predict(X[:30]), exact.predict(X[:30]), atol=1e-5)
    # New bags' instances are not landmarks: close to the exact kernel's predictions, not equal.
    np.testing.assert_allclose(reg.predict(X[30:]), exact.predict(X[30:]), atol=0.1)
    assert exact.landmark_map_ is None and exact.train_embedding_ is None


def test_bag_kernel_svr_landmarks_learn_and_are_seeded():
    from mil.svm import BagKernelSVR

    X, y = _spread_bags(60, size=15)
    reg = BagKernelSVR(n_landmarks=40, cv=3, random_state=0).fit(X[:45], y[:45])
    assert reg.score(X[45:], y[45:]) > 0.2
    again = BagKernelSVR(n_landmarks=40, cv=3, random_state=0).fit(X[:45], y[:45])
    np.testing.assert_array_equal(reg.predict(X[45:]), again.predict(X[45:]))
    other = BagKernelSVR(n_landmarks=40, cv=3, random_state=1).fit(X[:45], y[:45])
    assert not np.array_equal(reg.landmark_map_.feature_map_.components_,
                              other.landmark_map_.feature_map_.components_)



def test_the_landmarks_are_the_same_for_every_gamma():
    from mil.svm._kernels import landmark_embeddings
    from mil.utils.validation import check_bags

    X, _ = _spread_bags(20, size=10)
    for seed in (3, None):  # one seed drawn for every gamma
        encoders, _ = landmark_embeddings(check_bags(X), np.array([0.1, 1.0]), 40, random_state=seed)
        np.testing.assert_array_equal(encoders[0].feature_map_.components_, encoders[1].feature_map_.components_)


@pytest.mark.parametrize("kernel", ["migraph", "emd", "minimal", "average"])
def test_bag_kernel_svr_landmarks_need_the_nsk(kernel):
    from mil.svm import BagKernelSVR

    X, y = _spread_bags(10, size=5)
    with pytest.raises(ValueError, match="n_landmarks .* needs kernel='nsk'"):
        BagKernelSVR(kernel, n_landmarks=5, cv=1).fit(X, y)
