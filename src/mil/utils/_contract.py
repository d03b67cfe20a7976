"""Steps of scikit-learn's estimator contract on bags, shared by the classifier and regressor checks.

:mod:`mil.utils.estimator_checks` (classifiers) and
:mod:`mil.utils._regressor_checks` (regressors) run these steps; each raises
AssertionError naming the estimator and what failed.
"""

import copy

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

__all__ = ["check_not_fitted", "fit_keeping_inputs", "assert_bags_unchanged", "check_feature_count_error",
           "on_both_backends", "checks_by_name"]


def check_not_fitted(estimator, X, methods):
    """Each of `methods` the estimator has raises NotFittedError on a fresh clone."""
    name = type(estimator).__name__
    for method in methods:
        if hasattr(estimator, method):
            try:
                getattr(clone(estimator), method)(X)
            except NotFittedError:
                pass
            else:
                raise AssertionError(f"{name}.{method} before fit must raise NotFittedError")


def assert_bags_unchanged(X, X_before, what):
    """The bags `X` equal their copy `X_before` (`what`, e.g. ``"Est.fit"``, did not modify them)."""
    for a, b in zip(X, X_before):
        np.testing.assert_array_equal(a, b, err_msg=f"{what} modified X")


def fit_keeping_inputs(estimator, X, y):
    """Fit a clone: ``fit`` returns self and leaves X and y as they were.

    Returns
    -------
    est : estimator
        The fitted clone.
    X_before : list of ndarray
        A copy of X taken before the fit (to check later steps against).
    """
    name = type(estimator).__name__
    X_before, y_before = copy.deepcopy(X), np.array(y, copy=True)
    est = clone(estimator)
    assert est.fit(X, y) is est, f"{name}.fit must return self"
    assert_bags_unchanged(X, X_before, f"{name}.fit")
    np.testing.assert_array_equal(y, y_before, err_msg=f"{name}.fit modified y")
    return est, X_before


def check_feature_count_error(est, X):
    """The fitted `est` refuses bags with another feature count, saying "features"."""
    name = type(est).__name__
    wrong = [np.hstack([b, b[:, :1]]) for b in X[:3]]
    try:
        est.predict(wrong)
    except ValueError as exc:
        assert "features" in str(exc), f"{name}: unclear feature-count error: {exc}"
    else:
        raise AssertionError(f"{name}.predict accepted bags with a different feature count")


def on_both_backends(run):
    """``(run() with the compiled kernels, run() with the NumPy twins)``; None without compiled kernels."""
    from mil._core import compiled_available, use_backend

    if not compiled_available():
        return None
    with use_backend("compiled"):
        a = run()
    with use_backend("python"):
        b = run()
    return a, b


def checks_by_name(prefix, *checks):
    """A dict of the check functions `checks`, each under its name without `prefix`."""
    return {check.__name__.removeprefix(prefix): check for check in checks}
