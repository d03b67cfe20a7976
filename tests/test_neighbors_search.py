"""The tree search of Bag-KNN / Citation-KNN (minimal distance) against the full-matrix path."""

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import mil.neighbors._base as clf_mod
from mil import Bags
from mil.datasets import load_dataset
from mil.neighbors import BagKNNClassifier, CitationKNNClassifier
from mil.neighbors._search import BagTreeIndex, pair_distances
from mil.neighbors._ties import DISTANCE_RTOL, rank_dense, rank_rows
from mil.utils.estimator_checks import check_bag_classifier, make_toy_bags

TREES = ("kd_tree", "ball_tree")


def _pair(cls, algorithm, **kw):
    return cls(algorithm=algorithm, **kw), cls(algorithm="brute", **kw)


def _assert_same(tree, brute, X, y, Xq, sample_weight=None):
    tree.fit(X, y, sample_weight=sample_weight)
    brute.fit(X, y, sample_weight=sample_weight)
    assert brute.algorithm_ == "brute" and tree.algorithm_ == tree.algorithm
    if hasattr(brute, "citer_threshold_"):
        np.testing.assert_allclose(tree.citer_threshold_, brute.citer_threshold_, rtol=1e-9, atol=0)
    np.testing.assert_array_equal(tree.predict_proba(Xq), brute.predict_proba(Xq))
    np.testing.assert_array_equal(tree.predict(Xq), brute.predict(Xq))


@st.composite
def tied_problems(draw):
    """Random bags with many exact ties: integer features, duplicated instances and bags."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(2, 24))
    d = draw(st.integers(1, 3))
    hi = draw(st.integers(1, 3))
    integer = draw(st.booleans())

    def bag(size):
        if integer:
            return rng.integers(-hi, hi + 1, size=(size, d)).astype(float)
        return rng.normal(size=(size, d))

    bags = [bag(int(rng.integers(1, 6))) for _ in range(n)]
    for i in range(1, n, 3):  # duplicated bags and duplicated instances
        bags[i] = bags[i - 1].copy() if rng.random() < 0.5 else np.vstack([bags[i], bags[i][:1]])
    n_classes = draw(st.sampled_from([2, 2, 3]))
    y = rng.integers(0, n_classes, size=n)
    y[:2] = [0, 1]
    queries = bags[: n // 2] + [bag(int(rng.integers(1, 4))) for _ in range(5)]
    weight = rng.integers(0, 3, size=n).astype(float) * 0.7 if draw(st.booleans()) else None
    return bags, y, queries, weight


@settings(max_examples=60, deadline=None, derandomize=True)
@given(problem=tied_problems(), algorithm=st.sampled_from(TREES), refs=st.integers(1, 6),
       citers=st.integers(0, 7), scale=st.sampled_from(["standard", None]))
def test_citation_tree_equals_full_matrix(problem, algorithm, refs, citers, scale):
    X, y, Xq, w = problem
    _assert_same(*_pair(CitationKNNClassifier, algorithm, references=refs, citers=citers, scale=scale),
                 X, y, Xq, w)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(problem=tied_problems(), algorithm=st.sampled_from(TREES), k=st.integers(1, 8),
       scale=st.sampled_from(["standard", None]))
def test_bag_knn_tree_equals_full_matrix(problem, algorithm, k, scale):
    X, y, Xq, w = problem
    _assert_same(*_pair(BagKNNClassifier, algorithm, n_neighbors=k, scale=scale), X, y, Xq, w)


@pytest.mark.parametrize("algorithm", TREES)
def test_both_backends(backend, algorithm):
    # The full-matrix side runs on the backend under test.
    X, y = make_toy_bags(n_bags=40, random_state=11)
    for cls, kw in ((CitationKNNClassifier, dict(references=3, citers=5)), (BagKNNClassifier, dict(n_neighbors=4))):
        _assert_same(*_pair(cls, algorithm, **kw), X[:30], y[:30], X)


def test_lists_grow_where_own_instances_crowd():
    # Tight bags: each instance's nearest instances are its own bag's, so the
    # first lists (C + 2 long) hold no other bag and must grow several times.
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(60, 3)) * 3
    X = [c + 1e-3 * rng.normal(size=(25, 3)) for c in centres]
    y = rng.integers(0, 2, 60)
    Xq = [c + 1e-3 * rng.normal(size=(5, 3)) for c in rng.normal(size=(10, 3)) * 3] + X[:5]
    for algorithm in TREES:
        _assert_same(*_pair(CitationKNNClassifier, algorithm, references=3, citers=5), X, y, Xq)
        _assert_same(*_pair(BagKNNClassifier, algorithm, n_neighbors=5), X, y, Xq)


def test_tie_group_beyond_the_first_lists():
    # Ten one-point bags at distance exactly 1 from the query and ten at
    # 1 + 5e-10 (one tie group: within DISTANCE_RTOL), the latter first in
    # the training order. The k nearest are the lowest indices of the whole
    # group; a first list that reaches only the inner ten must grow.
    unit = np.vstack([np.eye(5), -np.eye(5)])
    X = [p[None, :] for p in (1 + 5e-10) * unit] + [p[None, :] for p in unit] + [np.full((1, 5), 9.0)]
    y = np.arange(21) % 3
    q = [np.zeros((1, 5))]
    for k in (1, 3, 7, 12):
        tree = BagKNNClassifier(n_neighbors=k, scale=None, algorithm="kd_tree").fit(X, y)
        brute = BagKNNClassifier(n_neighbors=k, scale=None, algorithm="brute").fit(X, y)
        np.testing.assert_array_equal(tree.predict_proba(q), brute.predict_proba(q))
        batch = tree._index.queries(Bags.from_list(q))
        np.testing.assert_array_equal(tree._index.nearest(batch, k), [np.arange(k)])


def test_rank_rows_matches_a_plain_sort():
    # rank_rows on full rows against a direct reading of the rule.
    rng = np.random.default_rng(2)
    for _ in range(300):
        m, n = int(rng.integers(1, 5)), int(rng.integers(1, 9))
        D = rng.integers(0, 4, size=(m, n)) * rng.choice([1.0, 1 + 1e-10, 1 + 1e-8], size=(m, n))
        k = int(rng.integers(1, n + 1))
        expected = []
        for row in D:
            order = sorted(range(n), key=lambda j: (row[j], j))
            group, groups = 0, {}
            for a, b in zip([None] + order[:-1], order):
                if a is not None and row[b] > row[a] * (1 + DISTANCE_RTOL):
                    group += 1
                groups[b] = group
            expected.append(sorted(range(n), key=lambda j: (groups[j], j))[:k])
        np.testing.assert_array_equal(rank_dense(D, k), expected)
        full = np.arange(m + 1) * n
        np.testing.assert_array_equal(rank_rows(full, np.tile(np.arange(n), m), D.ravel(), k), expected)
    # A sparse row (some bags only) ranks as the same row restricted to them.
    ptr, cols, vals = np.array([0, 3]), np.array([7, 2, 4]), np.array([1.0, 1.0, 0.5])
    np.testing.assert_array_equal(rank_rows(ptr, cols, vals, 2), [[4, 2]])


def test_pair_distances_extreme_magnitudes():
    A = np.array([[1e-200, 0.0], [1e300, -1e300], [3.0, 4.0], [2.0, 2.0]])
    B = np.array([[0.0, 1e-200], [0.0, 0.0], [0.0, 0.0], [2.0, 2.0]])
    d = pair_distances(A, np.arange(4), B, np.arange(4))
    np.testing.assert_allclose(d, [np.sqrt(2) * 1e-200, np.sqrt(2) * 1e300, 5.0, 0.0], rtol=1e-15)
    assert d[3] == 0.0


def test_tiny_and_huge_features():
    # Squares of these underflow or overflow; the tree still proposes the right
    # pairs, and distances come from the scaled differences.
    rng = np.random.default_rng(3)
    for scale in (1e-170, 1e170):
        X = [scale * rng.integers(0, 3, size=(int(rng.integers(1, 4)), 2)).astype(float) for _ in range(15)]
        y = np.arange(15) % 2
        Xq = X[:4] + [scale * rng.normal(size=(2, 2))]
        _assert_same(*_pair(CitationKNNClassifier, "kd_tree", references=2, citers=3, scale=None), X, y, Xq)


def test_queries_beyond_the_tree_range_use_the_matrix():
    rng = np.random.default_rng(4)
    X = [rng.normal(size=(3, 2)) for _ in range(12)]
    y = np.arange(12) % 2
    Xq = [np.full((1, 2), 1e300), rng.normal(size=(2, 2))]
    tree, brute = _pair(CitationKNNClassifier, "kd_tree", scale=None)
    assert tree.fit(X, y)._index.queries(Bags.from_list(Xq)) is None
    _assert_same(tree, brute, X, y, Xq)


def test_musk1_tree_equals_full_matrix():
    X, y = load_dataset("musk1", return_X_y=True)
    tr = np.arange(len(X)) % 4 != 0
    Xtr, Xte = [X[i] for i in np.flatnonzero(tr)], [X[i] for i in np.flatnonzero(~tr)] + [X[0]]
    for cls, kw in ((CitationKNNClassifier, {}), (BagKNNClassifier, dict(n_neighbors=2))):
        _assert_same(*_pair(cls, "kd_tree", **kw), Xtr, y[tr], Xte)


def test_auto_choice():
    small, y = make_toy_bags(n_bags=40, random_state=5)
    assert CitationKNNClassifier().fit(small, y).algorithm_ == "brute"
    rng = np.random.default_rng(6)
    n = clf_mod.AUTO_MIN_INSTANCES // 10
    offsets = np.arange(0, 10 * n + 1, 10)
    low = Bags(rng.normal(size=(10 * n, 2)), offsets)  # two features: the tree compares few pairs
    high = Bags(rng.normal(size=(10 * n, 30)), offsets)  # thirty: nearly every pair
    est = CitationKNNClassifier()
    est._validate_params()
    assert est._choose_algorithm(low)[0] == "kd_tree"
    assert est._choose_algorithm(high)[0] == "brute"
    assert BagTreeIndex(high).inspected_fraction() > clf_mod.AUTO_MAX_FRACTION
    assert est._choose_algorithm(low[: n // 2])[0] == "brute"  # below AUTO_MIN_INSTANCES
    for metric in ("maximal", "average", "integrated"):
        assert est.set_params(metric=metric)._choose_algorithm(low)[0] == "brute"


@pytest.mark.parametrize("algorithm", ["kd_tree", "ball_tree", "hnsw"])
def test_instance_search_needs_minimal_distance_and_dense_bags(algorithm):
    if algorithm == "hnsw":
        pytest.importorskip("faiss")
    X, y = make_toy_bags(n_bags=20, random_state=7)
    with pytest.raises(ValueError, match="minimal distance"):
        CitationKNNClassifier(metric="maximal", algorithm=algorithm).fit(X, y)
    with pytest.raises(ValueError, match="sparse"):
        BagKNNClassifier(algorithm=algorithm, scale=None).fit([sp.csr_matrix(x) for x in X], y)
    D = np.abs(np.subtract.outer(np.arange(20.0), np.arange(20.0)))
    with pytest.raises(ValueError, match="precomputed"):
        BagKNNClassifier(metric="precomputed", algorithm=algorithm).fit(D, y)
    assert BagKNNClassifier(metric="precomputed").fit(D, y).algorithm_ == "brute"


@pytest.mark.parametrize("algorithm", TREES)
def test_pickle_and_threads(algorithm):
    X, y = make_toy_bags(n_bags=50, random_state=8)
    est = CitationKNNClassifier(references=3, citers=5, algorithm=algorithm).fit(X[:40], y[:40])
    expected = est.predict_proba(X)
    loaded = pickle.loads(pickle.dumps(est))
    assert loaded._index._layout is None  # rebuilt on first use, not pickled
    np.testing.assert_array_equal(loaded.predict_proba(X), expected)
    threaded = CitationKNNClassifier(references=3, citers=5, algorithm=algorithm, n_jobs=2).fit(X[:40], y[:40])
    np.testing.assert_array_equal(threaded.citer_threshold_, est.citer_threshold_)
    np.testing.assert_array_equal(threaded.predict_proba(X), expected)


def test_bag_alone_equals_bag_in_batch_on_the_tree():
    X, y = make_toy_bags(n_bags=60, random_state=9)
    for est in (CitationKNNClassifier(algorithm="kd_tree"), BagKNNClassifier(n_neighbors=2, algorithm="kd_tree")):
        est.fit(X[:45], y[:45])
        alone = np.vstack([est.predict_proba(X[i:i + 1]) for i in range(len(X))])
        np.testing.assert_array_equal(alone, est.predict_proba(X))


@pytest.mark.parametrize("metric", ["minimal", "maximal", "average"])
def test_matrix_strips_equal_the_whole_matrix(monkeypatch, metric):
    # With a tiny MATRIX_BYTES, Citation-KNN's thresholds come strip by strip and
    # predictions in strips of query bags: the same decisions.
    X, y = make_toy_bags(n_bags=45, random_state=10)
    whole = CitationKNNClassifier(references=3, citers=5, metric=metric, algorithm="brute").fit(X[:35], y[:35])
    expected_thr, expected = whole.citer_threshold_, whole.predict_proba(X)
    monkeypatch.setattr(clf_mod, "MATRIX_BYTES", 8 * 35 * 4)
    strips = CitationKNNClassifier(references=3, citers=5, metric=metric, algorithm="brute").fit(X[:35], y[:35])
    np.testing.assert_allclose(strips.citer_threshold_, expected_thr, rtol=1e-12)
    np.testing.assert_array_equal(strips.predict_proba(X), expected)
    np.testing.assert_array_equal(whole.predict_proba(X), expected)


@pytest.mark.parametrize("cls", [BagKNNClassifier, CitationKNNClassifier])
def test_conformance_on_the_tree(cls):
    grid = {"n_neighbors": [1, 3]} if cls is BagKNNClassifier else {"references": [1, 3]}
    check_bag_classifier(cls(algorithm="kd_tree"), param_grid=grid, multiclass=True)


def test_iid_cost_benchmark_smoke():
    # benchmarks/bench_knn_iid.py at a tiny size: both searches finish and agree.
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_knn_iid.py"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, str(script), "--bags", "100", "--tree-max", "100", "--max-cpu", "120"],
                         capture_output=True, text=True, check=True, env=env).stdout
    assert "used 'brute'" in out and "used 'kd_tree'" in out
    assert "probabilities identical: True" in out
