"""Sparse bags: the container, validation, and the learners that refuse them."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp

from mil import Bags, C45MIClassifier, GDBTMIClassifier, ID3MIClassifier, RipperMIClassifier
from mil.wrappers import MIWrapperClassifier, SimpleMIClassifier


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
    from mil.distances import hausdorff_all
    from mil.utils.validation import check_bags

    with pytest.raises(ValueError, match="infinity"):
        Bags.from_instances(sp.csr_matrix(np.array([[np.inf, 0.0]])), [0])
    # NaN is stored (a Bags accepts missing values) but refused where finite values are needed,
    # naming the bag by its id.
    bags = Bags.from_instances(sp.csr_matrix(np.array([[1.0, 0.0], [0.0, np.nan], [2.0, 0.0]])), ["a", "b", "c"])
    with pytest.raises(ValueError, match="bag 'b' of X contains NaN"):
        check_bags(bags, accept_sparse=True)
    with pytest.raises(ValueError, match="bag 'b' of X contains NaN"):
        hausdorff_all(bags)
    with pytest.raises(ValueError, match="bag 1 of X has 4 features but bag 0 has 3"):
        Bags.from_list([sp.csr_matrix(np.eye(3)), sp.csr_matrix(np.ones((2, 4)))])
    with pytest.raises(ValueError, match="single sparse matrix"):
        Bags.from_list(sp.csr_matrix(np.eye(3)))


@pytest.mark.parametrize("cls", [C45MIClassifier, ID3MIClassifier, GDBTMIClassifier, RipperMIClassifier,
                                 SimpleMIClassifier, MIWrapperClassifier])
def test_learners_without_sparse_support_say_so(cls):
    X, ids = _sparse_bags()
    bags = Bags.from_instances(X, ids)
    y = np.array([0, 1, 0, 1, 1])
    for data in (bags, bags.to_list()):
        with pytest.raises(TypeError, match=f"{cls.__name__} does not accept sparse bags"):
            cls().fit(data, y)
    # The dense copy works.
    cls().fit(bags.toarray(), y)


# -- distances: the sparse path against the dense one --------------------------------------

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from mil import BagKNNClassifier, CitationKNNClassifier  # noqa: E402
from mil.distances import hausdorff, hausdorff_all  # noqa: E402
from mil.model_selection import nested_cv  # noqa: E402


def _close(S, D, kinds=("minimal", "maximal", "average")):
    for kind in kinds:
        scale = max(np.abs(D[kind]).max(), 1e-300)
        np.testing.assert_allclose(S[kind], D[kind], rtol=1e-10, atol=1e-10 * scale, err_msg=kind)


@st.composite
def sparse_bag_sets(draw):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    n_bags = draw(st.integers(1, 8))
    d = draw(st.integers(1, 30))
    density = draw(st.sampled_from([0.0, 0.05, 0.2, 0.6]))
    sizes = rng.integers(1, 7, n_bags)
    X = sp.random(int(sizes.sum()), d, density=density, random_state=rng, format="csr")
    X.data = np.round(X.data * 4) / 4  # repeated values: exact duplicates and ties happen
    if draw(st.booleans()) and X.shape[0] > 1:  # an instance repeated in another bag
        X = sp.vstack([X, X[:1]], format="csr")
        sizes = np.r_[sizes, 1]
    if draw(st.booleans()):
        X = X * draw(st.sampled_from([1e-3, 1e3]))
    return X, np.repeat(np.arange(sizes.size), sizes)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sparse_bag_sets())
def test_sparse_equals_dense_train_vs_train(backend, data):
    X, ids = data
    sparse, dense = Bags.from_instances(X, ids), Bags.from_instances(X.toarray(), ids)
    S, D = hausdorff_all(sparse), hausdorff_all(dense)
    _close(S, D)
    for kind in S:
        assert np.array_equal(S[kind], S[kind].T) and not np.diag(S[kind]).any()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sparse_bag_sets(), sparse_bag_sets())
def test_sparse_equals_dense_rectangular(backend, a, b):
    (XA, ia), (XB, ib) = a, b
    d = min(XA.shape[1], XB.shape[1])
    XA, XB = XA[:, :d], XB[:, :d]
    SA, SB = Bags.from_instances(XA, ia), Bags.from_instances(XB, ib)
    DA, DB = Bags.from_instances(XA.toarray(), ia), Bags.from_instances(XB.toarray(), ib)
    _close(hausdorff_all(SA, SB), hausdorff_all(DA, DB))
    # Mixed: one side sparse, the other dense.
    _close(hausdorff_all(SA, DB), hausdorff_all(DA, DB))


def test_sparse_hand_computed_and_options():
    # Bags {(0,0),(3,4)} and {(0,4)}: instance distances 4 and 3.
    A = sp.csr_matrix([[0.0, 0.0], [3.0, 4.0]])
    B = sp.csr_matrix([[0.0, 4.0]])
    d = hausdorff_all([A, B])
    assert d["minimal"][0, 1] == 3.0 and d["maximal"][0, 1] == 4.0 and d["average"][0, 1] == 10.0 / 3
    assert hausdorff([A, B], kind="integrated", alpha=0.25)[0, 1] == 0.25 * 3 + 0.75 * 4
    assert hausdorff([A, B], kind="adapted", y=[1, 1])[0, 1] == 3.0
    # Threads and preallocated outputs give the same matrices.
    X, ids = _sparse_bags(seed=3, n=60, d=9, n_bags=12)
    bags = Bags.from_instances(X, ids)
    ref = hausdorff_all(bags)
    assert all(np.array_equal(ref[k], v) for k, v in hausdorff_all(bags, n_jobs=2).items())
    out = {"maximal": np.zeros((12, 12))}
    assert hausdorff_all(bags, out=out) is out and np.array_equal(out["maximal"], ref["maximal"])
    with pytest.raises(ValueError, match="out"):
        hausdorff_all(bags, out={"maximal": np.zeros((3, 3))})


@pytest.mark.parametrize("cls", [CitationKNNClassifier, BagKNNClassifier])
@pytest.mark.parametrize("metric", ["minimal", "integrated", "adapted"])
def test_neighbours_predict_the_same_on_sparse_and_dense(backend, cls, metric):
    X, ids = _sparse_bags(seed=5, n=120, d=15, n_bags=30, density=0.2)
    # One more non-zero per instance: no all-zero rows, hence no exact ties between
    # distances (their order at a tie would depend on rounding).
    rng = np.random.default_rng(5)
    X = (X + sp.csr_matrix((rng.uniform(0.5, 1.0, 120), (np.arange(120), rng.integers(0, 15, 120))),
                           shape=X.shape)).tocsr()
    sparse = Bags.from_instances(X, ids)
    dense = sparse.toarray()
    y = np.arange(30) % 2
    for scale in (None, "maxabs"):
        a = cls(metric=metric, scale=scale).fit(sparse[:20], y[:20])
        b = cls(metric=metric, scale=scale).fit(dense[:20], y[:20])
        assert np.array_equal(a.predict(sparse[20:]), b.predict(dense[20:]))
        np.testing.assert_allclose(a.predict_proba(sparse[20:].to_list()), b.predict_proba(dense[20:]))
        if metric == "integrated":
            assert abs(a.alpha_ - b.alpha_) < 1e-6
    with pytest.raises(ValueError, match="would make sparse bags dense"):
        cls(scale="standard").fit(sparse, y)
    res = nested_cv(cls(metric=metric, scale=None), {}, sparse, y, outer_folds=3, inner_cv=2)
    ref = nested_cv(cls(metric=metric, scale=None), {}, dense, y, outer_folds=3, inner_cv=2)
    assert np.array_equal(res.test_scores, ref.test_scores)


def test_bag_scaler_maxabs_keeps_sparsity():
    from mil.preprocessing import BagScaler

    X, ids = _sparse_bags(seed=2, n=30, d=6, n_bags=6)
    bags = Bags.from_instances(X * 7.0, ids)
    scaler = BagScaler(method="maxabs").fit(bags)
    out = scaler.transform(bags)
    assert out.is_sparse
    ref = BagScaler(method="maxabs").fit(bags.toarray()).transform(bags.toarray())
    np.testing.assert_allclose(out.instances.toarray(), ref.instances, rtol=1e-15)
    assert np.abs(out.instances.toarray()).max() == 1.0
    with pytest.raises(ValueError, match="would make sparse bags dense"):
        BagScaler(method="standard").fit(bags)
