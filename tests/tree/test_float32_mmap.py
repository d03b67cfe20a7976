"""Float32 and memory-mapped bags in the tree family: read as they are, same models as in memory."""

import numpy as np
import pytest

from mil import Bags
from mil.ensemble import GDBTMIClassifier, MIRandomForestClassifier
from mil.tree import C45MIClassifier


def _data(rng, n_bags=60, d=5):
    sizes = rng.randint(1, 12, n_bags)
    X = rng.standard_normal((int(sizes.sum()), d)).astype(np.float32)
    X[rng.rand(*X.shape) < 0.03] = np.nan
    y = rng.rand(n_bags) < 0.5
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    X[offsets[:-1][y], 0] += 2.0
    return X, offsets, y.astype(int)


LEARNERS = [
    lambda: C45MIClassifier(splitter="hist"),
    lambda: MIRandomForestClassifier(n_estimators=5, random_state=0, splitter="hist"),
    lambda: GDBTMIClassifier(n_estimators=5, random_state=0, splitter="hist"),
]


def test_bags_keep_float32_and_memory_maps_without_copy(tmp_path):
    X, offsets, _ = _data(np.random.RandomState(0))
    np.save(tmp_path / "x.npy", X)
    mm = np.load(tmp_path / "x.npy", mmap_mode="r")
    bags = Bags(mm, offsets)
    assert bags.instances.dtype == np.float32
    assert np.shares_memory(bags.instances, mm)
    assert np.shares_memory(Bags(X, offsets).instances, X)


@pytest.mark.parametrize("make", LEARNERS)
def test_memory_mapped_float32_bags_give_the_in_memory_model(backend, tmp_path, make):
    X, offsets, y = _data(np.random.RandomState(1))
    np.save(tmp_path / "x.npy", X)
    mm = np.load(tmp_path / "x.npy", mmap_mode="r")
    bags = Bags(mm, offsets)
    est = make()
    validated, _ = est._validate_fit(bags, y)
    assert np.shares_memory(validated.instances, mm)  # the learner reads the map, no copy
    a = make().fit(bags, y)
    b = make().fit(Bags(X.copy(), offsets), y)
    c = make().fit(Bags(X.astype(np.float64), offsets), y)  # float64: the same bins, the same model
    test = Bags(X[: offsets[10]].copy(), offsets[:11])
    np.testing.assert_array_equal(a.predict_proba(test), b.predict_proba(test))
    np.testing.assert_array_equal(a.predict_proba(test), c.predict_proba(test))


def test_float32_bags_for_exact_learners_are_upcast(backend):
    X, offsets, y = _data(np.random.RandomState(2))
    bags = Bags(X, offsets)
    est = C45MIClassifier(splitter="exact")  # ("auto" keeps float32 and upcasts when it chooses the exact search)
    validated, _ = est._validate_fit(bags, y)
    assert validated.instances.dtype == np.float64
    assert bags.instances.dtype == np.float32  # the input is not modified
    np.testing.assert_array_equal(C45MIClassifier().fit(bags, y).predict(bags), est.fit(bags, y).predict(bags))
