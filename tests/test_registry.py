"""The learner registry: seeds come from the caller, the registry keeps the classes' defaults there."""

import inspect

import numpy as np
import pytest

from mil._learners import DEFAULT_JOB, LEARNERS, SEED_PARAMS, _class_of, available_learners, make_learner

# The estimator classes; a factory (the recommended vote) passes its seed on to its members,
# which tests/ensemble/test_recommended.py checks.
SEEDED = [name for name in SEED_PARAMS if name in available_learners() and inspect.isclass(_class_of(name))]


def _class_default(name, param):
    """The seeding parameter's default in the class (or in the registry's inner estimator's class)."""
    est = make_learner(name)
    if "__" in param:
        inner, key = param.split("__", 1)
        return type(est.get_params()[inner])().get_params()[key]
    return _class_of(name)().get_params()[param]


@pytest.mark.parametrize("name", SEEDED)
def test_registry_keeps_the_class_default_seed(name):
    param = SEED_PARAMS[name]
    assert make_learner(name).get_params()[param] == _class_default(name, param)


@pytest.mark.parametrize("name", SEEDED)
def test_seed_sets_the_seeding_parameter(name):
    param = SEED_PARAMS[name]
    assert make_learner(name, seed=0).get_params()[param] == 0
    assert make_learner(name, seed=7).get_params()[param] == 7
    if "__" not in param:  # an explicit parameter wins over seed=
        assert make_learner(name, seed=7, **{param: 3}).get_params()[param] == 3


def test_seed_leaves_the_deterministic_learners_alone():
    for name in available_learners():
        if name not in SEED_PARAMS:
            p, q = make_learner(name, seed=5).get_params(deep=False), make_learner(name).get_params(deep=False)
            assert {k: repr(v) for k, v in p.items()} == {k: repr(v) for k, v in q.items()}
    assert make_learner("c45-mi", seed=5).random_state is None  # its tie order stays the lowest index


def test_seed_zero_gives_what_the_former_registry_default_gave(random_bags):
    # `mil reproduce trees` runs seed 0 for the first seed: the numbers of random_state=0.
    from mil import BagRandomTreesClassifier, GDBTMIClassifier

    X = random_bags(1, n_bags=20, n_features=3)
    y = np.arange(20) % 2
    for name, est in (("blrt", BagRandomTreesClassifier(random_state=0, n_estimators=10)),
                      ("gdbt-bag-ratio", GDBTMIClassifier(split="bag-ratio", random_state=0, n_estimators=10))):
        ours = make_learner(name, seed=0, n_estimators=10).fit(X, y).predict_proba(X)
        np.testing.assert_array_equal(ours, est.fit(X, y).predict_proba(X))


def test_default_job_is_registered():
    assert set(DEFAULT_JOB) <= set(LEARNERS) and len(set(DEFAULT_JOB)) == len(DEFAULT_JOB)


def test_names_are_unique_ignoring_case_and_underscores():
    keys = [name.lower().replace("_", "-") for name in LEARNERS]
    assert len(set(keys)) == len(keys)


@pytest.mark.parametrize("given, name", [("MInD", "mind"), ("citation_knn", "citation-knn"),
                                         ("Citation-KNN", "citation-knn"), ("MI-SVM-bag", "mi-svm-bag"),
                                         (" blrt ", "blrt")])
def test_names_match_ignoring_case(given, name):
    from mil._learners import resolve_learner

    assert resolve_learner(given) == (name, None)


@pytest.mark.parametrize("given, suggested", [("mnid", "mind"), ("MInDClassifier", "mind"),
                                              ("citation-kn", "citation-knn"), ("BLRTClassifier", None)])
def test_unknown_names_get_a_did_you_mean(given, suggested):
    from mil._learners import resolve_learner

    with pytest.raises(ValueError, match=f"unknown learner '{given}'") as exc:
        resolve_learner(given)
    if suggested is not None:
        assert f"did you mean {suggested}" in str(exc.value)


def test_the_former_mi_svm_name_works_with_a_deprecation():
    from mil import MISVMClassifier
    from mil._learners import DEPRECATED_NAMES, resolve_learner

    assert DEPRECATED_NAMES == {"MI-svm": "mi-svm-bag"}
    name, note = resolve_learner("MI-svm")
    assert name == "mi-svm-bag" and "deprecated" in note and "'mi-svm-bag'" in note
    with pytest.warns(FutureWarning, match="deprecated"):
        assert isinstance(make_learner("MI-svm"), MISVMClassifier)


def test_the_library_does_not_import_the_registry():
    # The command line depends on the library, not the reverse: no module of the estimators
    # names the registry.
    import pathlib

    import mil

    root = pathlib.Path(mil.__file__).parent
    users = {p.relative_to(root).as_posix() for p in root.rglob("*.py") if "mil._learners" in p.read_text()
             or "from mil import _learners" in p.read_text()}
    assert users <= {"cli/_evaluate.py", "cli/_parser.py", "cli/_reproduce.py", "reproduce.py", "_assumptions.py",
                     "_learners.py", "cli/__init__.py", "_costs.py"}


def test_recommended_members_are_the_registry_rows():
    from mil.ensemble import make_recommended_classifier

    vote = make_recommended_classifier(random_state=3, n_jobs=2)
    for name, member in vote.estimators:
        ours = make_learner(name, seed=3, n_jobs=2)
        assert type(member) is type(ours)
        assert repr(member.get_params(deep=False)) == repr(ours.get_params(deep=False))
