"""The learner registry: seeds come from the caller, the registry keeps the classes' defaults there."""

import numpy as np
import pytest

from mil._learners import DEFAULT_JOB, LEARNERS, SEED_PARAMS, _class_of, available_learners, make_learner

SEEDED = [name for name in SEED_PARAMS if name in available_learners()]


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
