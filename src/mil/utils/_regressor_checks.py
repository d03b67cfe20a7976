"""The bag-aware checks of a regressor (public through :mod:`mil.utils.estimator_checks`).

Each check is ``check(estimator, X, y)`` on an unfitted regressor and raises
AssertionError naming the estimator and what failed.
"""

import os
import pickle
import tempfile

import numpy as np
from sklearn.base import clone
from sklearn.metrics import r2_score
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.utils.validation import has_fit_parameter

from mil.bags import Bags
from mil.utils._contract import (assert_bags_unchanged, check_feature_count_error, check_not_fitted, checks_by_name,
                                 fit_keeping_inputs, on_both_backends)

__all__ = ["REGRESSOR_CHECKS", "assert_same_predictions", "make_toy_regression_bags", "check_regressor_contract",
           "check_regressor_targets", "check_regressor_instance_permutation", "check_regressor_batch_invariance",
           "check_regressor_zero_weight", "check_regressor_informative", "check_regressor_float32_memmap",
           "check_regressor_instance_predictions", "check_regressor_backend_equality"]


def make_toy_regression_bags(n_bags=40, n_features=4, max_size=5, random_state=0):
    """Small multi-instance regression data every regressor should learn.

    Each bag holds 1 to `max_size` instances; its target is drawn from
    U(-2, 2) and feature 0 of every instance is the target plus N(0, 0.3^2)
    noise (the other features are N(0, 1) noise), so the mean, the
    extremes and any single instance all carry the target.

    Returns
    -------
    X : list of ndarray
    y : ndarray of float64
    """
    rng = np.random.default_rng(random_state)
    y = rng.uniform(-2.0, 2.0, size=n_bags)
    X = []
    for target in y:
        bag = rng.normal(size=(rng.integers(1, max_size + 1), n_features))
        bag[:, 0] = target + 0.3 * bag[:, 0]
        X.append(bag)
    return X, y


def _outputs(est, X):
    out = {"predict": np.asarray(est.predict(X))}
    if hasattr(est, "predict_instances"):
        out["predict_instances"] = np.asarray(est.predict_instances(X))
    return out


def assert_same_predictions(a, b, what, rtol=1e-12, atol=1e-12):
    """Assert two dicts of outputs (method -> array) agree to `rtol` / `atol`, naming `what`."""
    for key in a:
        np.testing.assert_allclose(a[key], b[key], rtol=rtol, atol=atol, err_msg=f"{what}: {key}")


def _fit(estimator, X, y, **kwargs):
    return clone(estimator).fit(X, y, **kwargs)


def check_regressor_contract(estimator, X, y, param_grid=None):
    """scikit-learn's contract on bags: parameters, fitting, outputs, containers, pickling, tooling."""
    name = type(estimator).__name__
    params = estimator.get_params(deep=False)
    cloned = clone(estimator)
    assert _shown(cloned.get_params(deep=False)) == _shown(params), f"{name}: clone changed parameters"
    cloned.set_params(**params)
    assert _shown(cloned.get_params(deep=False)) == _shown(params), f"{name}: set_params did not round-trip"
    check_not_fitted(estimator, X, ("predict", "predict_instances"))
    est, X_before = fit_keeping_inputs(estimator, X, y)
    assert est.n_features_in_ == np.asarray(X[0]).shape[1], f"{name}: n_features_in_"
    assert not hasattr(est, "classes_"), f"{name}: a regressor has no classes_"

    preds = _outputs(est, X)
    pred = preds["predict"]
    assert pred.shape == (len(X),), f"{name}.predict shape {pred.shape}"
    assert pred.dtype == np.float64 and np.isfinite(pred).all(), f"{name}.predict must give finite float64"
    np.testing.assert_allclose(est.score(X, y), r2_score(y, pred), rtol=1e-12,
                               err_msg=f"{name}.score is not R^2")
    assert_bags_unchanged(X, X_before, f"{name}.predict")

    bags = Bags.from_list(X)
    assert_same_predictions(preds, _outputs(est, bags), f"{name}: Bags vs list input")
    assert_same_predictions(preds, _outputs(_fit(estimator, bags, y), X), f"{name}: refit with the same random_state")
    restored = pickle.loads(pickle.dumps(est))
    assert_same_predictions(preds, _outputs(restored, X), f"{name}: pickle round-trip")

    check_feature_count_error(est, X)

    cv = KFold(n_splits=3, shuffle=True, random_state=0)
    scores = cross_val_score(clone(estimator), X, y, cv=cv)
    assert scores.shape == (3,) and np.isfinite(scores).all(), f"{name}: cross_val_score gave {scores}"
    from mil.preprocessing import BagScaler

    pipe = make_pipeline(BagScaler(), clone(estimator)).fit(X, y)
    assert pipe.predict(X).shape == (len(X),)
    if param_grid:
        search = GridSearchCV(clone(estimator), param_grid, cv=cv).fit(X, y)
        assert search.predict(X).shape == (len(X),)


def _shown(params):
    # Estimators among the parameters (an inner regressor) compare by their parameters.
    return {k: repr(v) if hasattr(v, "get_params") else v for k, v in params.items()}


def _raises(fn, words, what):
    try:
        fn()
    except (ValueError, TypeError) as exc:
        text = str(exc)
        missing = [w for w in words if w not in text]
        assert not missing, f"{what}: the error does not say {missing}: {text}"
    else:
        raise AssertionError(f"{what}: no error")


def check_regressor_targets(estimator, X, y):
    """Bad targets get a clear error naming the problem (and the bag); integer targets are numbers."""
    name = type(estimator).__name__
    y = np.asarray(y, dtype=np.float64)
    bad = y.copy()
    bad[3] = np.nan
    _raises(lambda: _fit(estimator, X, bad), ["NaN", "bag 3"], f"{name} with a NaN target")
    bad[3] = np.inf
    _raises(lambda: _fit(estimator, X, bad), ["infinity", "bag 3"], f"{name} with an infinite target")
    words = np.array(["low", "high"])[(y > 0).astype(int)]
    _raises(lambda: _fit(estimator, X, words), ["non-numeric"], f"{name} with string targets")
    _raises(lambda: _fit(estimator, X, y[:-1]), ["targets", "bags"], f"{name} with one target too few")
    _raises(lambda: _fit(estimator, X, np.c_[y, y]), ["1-D"], f"{name} with two targets per bag")
    ids = Bags(Bags.from_list(X).instances, Bags.from_list(X).offsets, ids=[f"b{i}" for i in range(len(X))])
    bad[3] = np.nan
    _raises(lambda: _fit(estimator, ids, bad), ["'b3'"], f"{name}: the bag named by its id")
    ints = np.round(3 * y).astype(int)
    a, b = _fit(estimator, X, ints), _fit(estimator, X, ints.astype(np.float64))
    assert_same_predictions(_outputs(a, X), _outputs(b, X), f"{name}: integer targets")


def check_regressor_instance_permutation(estimator, X, y, *, atol=1e-12):
    """Reordering the instances inside each bag changes no prediction, at fit or at predict.

    `atol` bounds the absolute difference of the predictions: a model solved
    to a tolerance (libsvm) may move within it when the sums over reordered
    instances differ in their last bits.
    """
    name = type(estimator).__name__
    est = _fit(estimator, X, y)
    rng = np.random.default_rng(1)
    order = [rng.permutation(len(bag)) for bag in X]
    shuffled = [bag[o] for bag, o in zip(X, order)]
    assert_same_predictions({"predict": est.predict(X)}, {"predict": est.predict(shuffled)},
                            f"{name}: instance order inside a bag", rtol=1e-9, atol=atol)
    assert_same_predictions({"predict": est.predict(X)}, {"predict": _fit(estimator, shuffled, y).predict(X)},
                            f"{name}: fit on bags with reordered instances", rtol=1e-9, atol=atol)


def check_regressor_batch_invariance(estimator, X, y):
    """A bag gets the same prediction alone, in any batch and in any batch order."""
    name = type(estimator).__name__
    est = _fit(estimator, X, y)
    full = est.predict(X)
    for i in range(0, len(X), max(1, len(X) // 6)):
        np.testing.assert_allclose(est.predict([X[i]]), full[[i]], rtol=1e-12, atol=1e-12,
                                   err_msg=f"{name}: bag {i} predicted alone")
    order = np.random.default_rng(2).permutation(len(X))
    np.testing.assert_allclose(est.predict([X[i] for i in order]), full[order], rtol=1e-12, atol=1e-12,
                               err_msg=f"{name}: bags predicted in another order")


def check_regressor_zero_weight(estimator, X, y):
    """A bag of weight 0 is exactly an absent bag (for regressors whose ``fit`` takes weights)."""
    if not has_fit_parameter(estimator, "sample_weight"):
        return
    name = type(estimator).__name__
    w = np.ones(len(X))
    w[[1, 4, 9]] = 0.0
    w[[2, 5]] = 2.0
    keep = np.flatnonzero(w > 0)
    a = _fit(estimator, X, y, sample_weight=w)
    b = _fit(estimator, [X[i] for i in keep], np.asarray(y)[keep], sample_weight=w[keep])
    assert_same_predictions(_outputs(a, X), _outputs(b, X), f"{name}: a weight-0 bag must be an absent bag")
    _raises(lambda: _fit(estimator, X, y, sample_weight=-w), ["negative"], f"{name} with negative weights")


def check_regressor_informative(estimator, X, y):
    """On data whose every instance carries the target, held-out R^2 is at least 0.5."""
    name = type(estimator).__name__
    X_test, y_test = make_toy_regression_bags(n_bags=40, n_features=np.asarray(X[0]).shape[1], random_state=11)
    score = _fit(estimator, X, y).score(X_test, y_test)
    assert score >= 0.5, f"{name}: held-out R^2 is {score:.3f} on bags whose instances carry the target"


def check_regressor_float32_memmap(estimator, X, y):
    """float32 bags, also memory-mapped from disk, predict as their float64 copy does."""
    name = type(estimator).__name__
    bags = Bags.from_list(X)
    inst32 = bags.instances.astype(np.float32)
    b32 = Bags(inst32, bags.offsets)
    b64 = Bags(inst32.astype(np.float64), bags.offsets)
    p64 = _fit(estimator, b64, y).predict(b64)
    p32 = _fit(estimator, b32, y).predict(b32)
    np.testing.assert_allclose(p32, p64, rtol=1e-5, atol=1e-6, err_msg=f"{name}: float32 bags")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "instances.npy")
        np.save(path, inst32)
        mapped = Bags(np.load(path, mmap_mode="r"), bags.offsets)
        est = _fit(estimator, mapped, y)
        pm = est.predict(mapped)
        del mapped, est
    np.testing.assert_allclose(pm, p32, rtol=1e-12, atol=1e-12, err_msg=f"{name}: memory-mapped float32 bags")


def check_regressor_instance_predictions(estimator, X, y):
    """``predict_instances`` is the prediction for each instance as a bag of its own."""
    if not hasattr(estimator, "predict_instances"):
        return
    name = type(estimator).__name__
    est = _fit(estimator, X, y)
    flat = est.predict_instances(X)
    n = sum(len(b) for b in X)
    assert flat.shape == (n,), f"{name}.predict_instances shape {flat.shape}"
    singles = [row[None, :] for bag in X for row in np.asarray(bag)]
    np.testing.assert_allclose(flat, est.predict(singles), rtol=1e-9, atol=1e-12,
                               err_msg=f"{name}: predict_instances != predict of one-instance bags")
    per_bag = est.predict_instances(X, per_bag=True)
    assert [len(p) for p in per_bag] == [len(b) for b in X], f"{name}: predict_instances(per_bag=True)"


def check_regressor_backend_equality(estimator, X, y):
    """Compiled kernels and NumPy twins give the same predictions."""
    outputs = on_both_backends(lambda: _outputs(_fit(estimator, X, y), X))
    if outputs is not None:
        assert_same_predictions(*outputs, f"{type(estimator).__name__}: backends differ", rtol=1e-9)


REGRESSOR_CHECKS = checks_by_name(
    "check_regressor_", check_regressor_contract, check_regressor_targets, check_regressor_instance_permutation,
    check_regressor_batch_invariance, check_regressor_zero_weight, check_regressor_informative,
    check_regressor_float32_memmap, check_regressor_instance_predictions, check_regressor_backend_equality)
"""The bag-aware checks of a regressor by name (each ``check(estimator, X, y)``)."""
