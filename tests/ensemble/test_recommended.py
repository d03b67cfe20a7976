"""The recommended classifier: a soft vote of the registry's mind, emd-svm and blrt."""

import doctest
import importlib
import pickle
import sys

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.ensemble import VotingClassifier

import mil
from mil._learners import LEARNERS, SEED_PARAMS, available_learners, make_learner
from mil.ensemble import make_recommended_classifier
from mil.ensemble._recommended import RECOMMENDED_MEMBERS
from mil.utils.estimator_checks import make_toy_bags

needs_pot = pytest.mark.skipif(importlib.util.find_spec("ot") is None, reason="POT is not installed")


def _params(est):
    return {k: repr(v) for k, v in est.get_params(deep=False).items()}


def test_exported():
    assert mil.make_recommended_classifier is make_recommended_classifier
    assert "make_recommended_classifier" in mil.__all__ and "make_recommended_classifier" in mil.ensemble.__all__


@needs_pot
@pytest.mark.parametrize("seed, n_jobs", [(None, None), (0, None), (7, 2)])
def test_members_are_the_registry_learners(seed, n_jobs):
    clf = make_recommended_classifier(random_state=seed, n_jobs=n_jobs)
    assert isinstance(clf, VotingClassifier) and clf.voting == "soft" and clf.weights is None
    assert [name for name, _ in clf.estimators] == list(RECOMMENDED_MEMBERS) == ["mind", "emd-svm", "blrt"]
    for name, member in clf.estimators:
        assert type(member) is type(make_learner(name))
        assert _params(member) == _params(make_learner(name, seed=seed, n_jobs=n_jobs))
        assert member.random_state == seed and member.n_jobs == n_jobs


@needs_pot
def test_the_registry_seeds_every_member():
    assert "recommended" in available_learners() and SEED_PARAMS["recommended"] == "random_state"
    for seed in (0, 3):
        clf = make_learner("recommended", seed=seed)
        assert [m.random_state for _, m in clf.estimators] == [seed] * 3
    # the registry keeps the classes' default (None) and an explicit argument wins over seed=
    assert [m.random_state for _, m in make_learner("recommended").estimators] == [None] * 3
    assert [m.random_state for _, m in make_learner("recommended", seed=3, random_state=5).estimators] == [5] * 3


@needs_pot
def test_predict_proba_is_the_mean_of_the_members():
    X, y = make_toy_bags(n_bags=24, random_state=1)
    train, test = X[:18], X[18:]
    clf = make_recommended_classifier(random_state=0).fit(train, y[:18])
    members = [make_learner(name, seed=0).fit(train, y[:18]) for name in RECOMMENDED_MEMBERS]
    mean = np.mean([m.predict_proba(test) for m in members], axis=0)
    np.testing.assert_array_equal(clf.predict_proba(test), mean)  # VotingClassifier: np.average
    np.testing.assert_array_equal(clf.predict(test), clf.classes_[np.argmax(mean, axis=1)])
    # a seed makes the fit reproducible
    again = make_recommended_classifier(random_state=0).fit(train, y[:18])
    np.testing.assert_array_equal(again.predict_proba(test), clf.predict_proba(test))


@needs_pot
def test_word_labels_without_positive_class_and_three_classes():
    # all three members treat the classes alike, so any two labels work; so do three classes
    X, y = make_toy_bags(n_bags=20, random_state=2)
    words = np.array(["inactive", "active"])[y]
    clf = make_recommended_classifier(random_state=0).fit(X, words)
    assert list(clf.classes_) == ["active", "inactive"]
    assert set(clf.predict(X)) <= {"active", "inactive"}
    X, y = make_toy_bags(n_bags=24, n_classes=3, random_state=2)
    proba = make_recommended_classifier(random_state=0).fit(X, y).predict_proba(X)
    assert proba.shape == (24, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


@needs_pot
def test_clone_and_pickle():
    clf = make_recommended_classifier(random_state=1)
    twin = clone(clf)
    assert [(n, _params(m)) for n, m in twin.estimators] == [(n, _params(m)) for n, m in clf.estimators]
    X, y = make_toy_bags(n_bags=20, random_state=3)
    clf.fit(X, y)
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))


@needs_pot
def test_docstring_examples():
    result = doctest.testmod(importlib.import_module("mil.ensemble._recommended"), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_without_pot_a_clear_error_and_no_registry_entry(monkeypatch):
    monkeypatch.setitem(sys.modules, "ot", None)  # `import ot` now raises ImportError
    monkeypatch.delitem(sys.modules, "mil.ensemble._requires_pot", raising=False)
    with pytest.raises(ImportError, match=r'needs the optional POT library: pip install "scikit-mil\[ot\]"'):
        make_recommended_classifier()
    assert "recommended" in LEARNERS and "recommended" not in available_learners()
    with pytest.raises(ValueError, match="'recommended' is not available"):
        make_learner("recommended")
