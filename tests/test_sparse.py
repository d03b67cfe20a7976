"""Sparse bags: the container, validation, and the learners that refuse them."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from mil import Bags, C45MIClassifier, GDBTMIClassifier, ID3MIClassifier, RipperMIClassifier


def _sparse_bags(seed=0, n=20, d=7, n_bags=5, density=0.3):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, random_state=seed, format="coo")
    ids = np.r_[np.arange(n_bags), rng.integers(0, n_bags, n - n_bags)]
    return X, ids


def test_from_instances_and_from_list_keep_sparsity():
    X, ids = _sparse_bags()
    dense_ref = Bags.from_instances(X.toarray(), ids)
    bags = Bags.from_instances(X, ids)
    assert bags.is_sparse and sp.isspmatrix_csr(bags.instances) and "sparse" in repr(bags)
    assert np.array_equal(bags.offsets, dense_ref.offsets) and np.array_equal(bags.ids, dense_ref.ids)
    assert np.array_equal(bags.instances.toarray(), dense_ref.instances)
    for b in range(bags.n_bags):
        assert sp.issparse(bags[b]) and np.array_equal(bags[b].toarray(), dense_ref[b])
    sub = bags[[3, 1]]
    assert sub.is_sparse and np.array_equal(sub.instances.toarray(), dense_ref[[3, 1]].instances)
    assert np.array_equal(bags.toarray().instances, dense_ref.instances)
    back = pickle.loads(pickle.dumps(bags))
    assert back.is_sparse and np.array_equal(back.instances.toarray(), dense_ref.instances)
    # A list of sparse (and dense) bags.
    mixed = Bags.from_list([sp.csr_matrix(np.eye(3)), np.ones((2, 3))])
    assert mixed.is_sparse and np.array_equal(mixed.instances.toarray(), np.r_[np.eye(3), np.ones((2, 3))])


def test_input_is_not_modified_and_canonical():
    # Duplicate entries are summed, indices sorted, on a copy.
    X = sp.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([2, 0, 2]), np.array([0, 3, 3])), shape=(2, 3))
    before = (X.data.copy(), X.indices.copy())
    bags = Bags(X, [0, 1, 2])
    assert np.array_equal(X.data, before[0]) and np.array_equal(X.indices, before[1])
    assert bags.instances.has_canonical_format
    assert np.array_equal(bags.instances.toarray(), [[2.0, 0.0, 4.0], [0.0, 0.0, 0.0]])


def test_bad_sparse_input():
    with pytest.raises(ValueError, match="infinity"):
        Bags.from_instances(sp.csr_matrix(np.array([[np.inf, 0.0]])), [0])
    with pytest.raises(ValueError, match="bag 1 of X has 4 features but bag 0 has 3"):
        Bags.from_list([sp.csr_matrix(np.eye(3)), sp.csr_matrix(np.ones((2, 4)))])
    with pytest.raises(ValueError, match="single sparse matrix"):
        Bags.from_list(sp.csr_matrix(np.eye(3)))


@pytest.mark.parametrize("cls", [C45MIClassifier, ID3MIClassifier, GDBTMIClassifier, RipperMIClassifier])
def test_learners_without_sparse_support_say_so(cls):
    X, ids = _sparse_bags()
    bags = Bags.from_instances(X, ids)
    y = np.array([0, 1, 0, 1, 1])
    for data in (bags, bags.to_list()):
        with pytest.raises(TypeError, match=f"{cls.__name__} does not accept sparse bags"):
            cls().fit(data, y)
    # The dense copy works.
    cls().fit(bags.toarray(), y)
