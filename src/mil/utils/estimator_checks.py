"""Bag-aware conformance checks for mil estimators (scikit-learn API on bag inputs).

scikit-learn's common checks assume 2-D arrays; these run the same contract
on bags. Each test module of a learner calls :func:`check_bag_classifier`.
"""

import copy
import pickle

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline

from mil.bags import Bags

__all__ = ["check_bag_classifier", "make_toy_bags"]


def make_toy_bags(n_bags=30, n_features=4, max_size=5, random_state=0, n_classes=2):
    """Small separable MI data: a positive bag holds an instance shifted along feature 0.

    Returns
    -------
    X : list of ndarray
    y : ndarray of int
    """
    rng = np.random.default_rng(random_state)
    X, y = [], []
    for i in range(n_bags):
        label = i % n_classes
        bag = rng.normal(size=(rng.integers(1, max_size + 1), n_features))
        if label:
            bag[rng.integers(bag.shape[0]), 0] += 4.0 * label
        X.append(bag)
        y.append(label)
    return X, np.array(y)


def _predictions(est, X):
    out = {"predict": est.predict(X)}
    for method in ("predict_proba", "decision_function"):
        if hasattr(est, method):
            out[method] = getattr(est, method)(X)
    return out


def _assert_same(a, b, what):
    for key in a:
        if a[key].dtype.kind == "f":
            np.testing.assert_allclose(a[key], b[key], rtol=1e-12, atol=1e-12, err_msg=f"{what}: {key}")
        else:
            np.testing.assert_array_equal(a[key], b[key], err_msg=f"{what}: {key}")


def check_bag_classifier(estimator, X=None, y=None, param_grid=None, multiclass=False):
    """Run the bag-aware scikit-learn contract on `estimator`; raise AssertionError on failure.

    Parameters
    ----------
    estimator : unfitted mil classifier
    X, y : bags and labels, default=None
        Training data (default: :func:`make_toy_bags`).
    param_grid : dict, default=None
        A small grid for the GridSearchCV check (skipped when None).
    multiclass : bool, default=False
        Also check three string-labelled classes (neighbour classifiers).
    """
    if X is None:
        X, y = make_toy_bags()
    name = type(estimator).__name__

    # Parameters: stored verbatim, cloned equal, set_params round-trips.
    params = estimator.get_params()
    cloned = clone(estimator)
    assert cloned.get_params() == params, f"{name}: clone changed parameters"
    cloned.set_params(**params)
    assert cloned.get_params() == params, f"{name}: set_params did not round-trip"

    # Not fitted yet.
    for method in ("predict", "predict_proba", "decision_function"):
        if hasattr(estimator, method):
            try:
                getattr(clone(estimator), method)(X)
            except NotFittedError:
                pass
            else:
                raise AssertionError(f"{name}.{method} before fit must raise NotFittedError")

    # fit returns self; inputs untouched.
    X_before, y_before = copy.deepcopy(X), np.array(y, copy=True)
    est = clone(estimator)
    assert est.fit(X, y) is est, f"{name}.fit must return self"
    for a, b in zip(X, X_before):
        np.testing.assert_array_equal(a, b, err_msg=f"{name}.fit modified X")
    np.testing.assert_array_equal(y, y_before, err_msg=f"{name}.fit modified y")
    assert hasattr(est, "classes_") and hasattr(est, "n_features_in_")
    np.testing.assert_array_equal(est.classes_, np.unique(y))

    preds = _predictions(est, X)
    assert preds["predict"].shape == (len(X),)
    assert set(np.unique(preds["predict"])) <= set(est.classes_.tolist())
    if "predict_proba" in preds:
        proba = preds["predict_proba"]
        assert proba.shape == (len(X), len(est.classes_)), f"{name}.predict_proba shape {proba.shape}"
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-9)
        assert ((proba >= 0) & (proba <= 1)).all()
    for a, b in zip(X, X_before):
        np.testing.assert_array_equal(a, b, err_msg=f"{name}.predict modified X")

    # Same model, same predictions, whatever the container; refit is deterministic.
    bags = Bags.from_list(X)
    _assert_same(preds, _predictions(est, bags), f"{name}: Bags vs list input")
    again = clone(estimator).fit(bags, y)
    _assert_same(preds, _predictions(again, X), f"{name}: refit with the same random_state")

    # Pickle round-trip.
    restored = pickle.loads(pickle.dumps(est))
    _assert_same(preds, _predictions(restored, X), f"{name}: pickle round-trip")

    # Wrong feature count at predict time.
    wrong = [np.hstack([b, b[:, :1]]) for b in X[:3]]
    try:
        est.predict(wrong)
    except ValueError as exc:
        assert "features" in str(exc), f"{name}: unclear feature-count error: {exc}"
    else:
        raise AssertionError(f"{name}.predict accepted bags with a different feature count")

    # Labels of any type come back as given.
    names = np.array(["neg", "pos", "other"])[np.searchsorted(np.unique(y), y)]
    est_s = clone(estimator)
    if "positive_class" in est_s.get_params() and np.unique(y).shape[0] == 2:
        # String labels name their positive class (else fit raises by design).
        est_s.set_params(positive_class="pos")
    est_s.fit(X, names)
    assert set(est_s.predict(X).tolist()) <= set(names.tolist())

    # scikit-learn tooling on bags.
    cv = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    scores = cross_val_score(clone(estimator), X, y, cv=cv)
    assert scores.shape == (3,) and np.isfinite(scores).all()
    from mil.preprocessing import BagScaler

    pipe = make_pipeline(BagScaler(), clone(estimator)).fit(X, y)
    assert pipe.predict(X).shape == (len(X),)
    if param_grid:
        search = GridSearchCV(clone(estimator), param_grid, cv=cv).fit(X, y)
        assert search.predict(X).shape == (len(X),)

    if multiclass:
        Xm, ym = make_toy_bags(n_bags=36, n_classes=3)
        labels = np.array(["a", "b", "c"])[ym]
        em = clone(estimator).fit(Xm, labels)
        assert list(em.classes_) == ["a", "b", "c"]
        if hasattr(em, "predict_proba"):
            assert em.predict_proba(Xm).shape == (36, 3)
        assert em.score(Xm, labels) > 1 / 3
    return est
