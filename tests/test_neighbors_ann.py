"""The approximate instance search (``algorithm="hnsw"``, faiss) of the minimal-distance neighbour learners."""

import pickle
import sys

import numpy as np
import pytest

from mil import Bags
from mil.neighbors import BagKNNClassifier, BagKNNRegressor, CitationKNNClassifier, CitationKNNRegressor
from mil.neighbors import _base as neighbors_base
from mil.utils.estimator_checks import check_bag_classifier, make_toy_bags

faiss = pytest.importorskip("faiss")


def _iid_bags(n_bags, size=10, n_features=8, seed=0):
    """Bags of independent normal instances (many intrinsic dimensions), random labels and targets."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_bags * size, n_features))
    bags = Bags(X, np.arange(0, n_bags * size + 1, size))
    return bags, rng.integers(0, 2, n_bags), rng.standard_normal(n_bags)


@pytest.mark.parametrize("cls, kw", [(CitationKNNClassifier, {}), (BagKNNClassifier, {"n_neighbors": 3}),
                                     (CitationKNNRegressor, {}), (BagKNNRegressor, {"n_neighbors": 3})])
def test_equals_exact_on_separated_bags(backend, cls, kw):
    X, y = make_toy_bags(n_bags=80, random_state=3)
    if cls in (CitationKNNRegressor, BagKNNRegressor):
        y = np.random.default_rng(0).standard_normal(len(X))
    ann = cls(algorithm="hnsw", **kw).fit(X[:60], y[:60])
    exact = cls(algorithm="brute", **kw).fit(X[:60], y[:60])
    assert ann.algorithm_ == "hnsw"
    if hasattr(exact, "citer_threshold_"):
        np.testing.assert_allclose(ann.citer_threshold_, exact.citer_threshold_, rtol=1e-9, atol=0)
    if hasattr(exact, "predict_proba"):
        np.testing.assert_array_equal(ann.predict_proba(X), exact.predict_proba(X))
    np.testing.assert_array_equal(ann.predict(X), exact.predict(X))


@pytest.mark.parametrize("cls, kw", [(CitationKNNClassifier, {}), (BagKNNClassifier, {"n_neighbors": 3})])
def test_agrees_with_exact_on_iid_bags(cls, kw):
    # 600 training bags of 10 instances in 8 independent dimensions (where a tree compares
    # nearly every pair); 300 held-out bags.
    bags, y, _ = _iid_bags(900, seed=4)
    train, test = bags[np.arange(600)], bags[np.arange(600, 900)]
    ann = cls(algorithm="hnsw", **kw).fit(train, y[:600])
    exact = cls(algorithm="brute", **kw).fit(train, y[:600])
    assert np.mean(ann.predict(test) == exact.predict(test)) >= 0.99
    if hasattr(exact, "citer_threshold_"):
        # Missed neighbours only lengthen a radius (the distances are exact ones of real pairs).
        assert (ann.citer_threshold_ >= exact.citer_threshold_ * (1 - 1e-12)).all()
        assert np.mean(np.isclose(ann.citer_threshold_, exact.citer_threshold_, rtol=1e-9, atol=0)) >= 0.99


def test_repeated_fits_threads_and_pickle_give_the_same_predictions():
    bags, y, _ = _iid_bags(300, seed=5)
    train, test = bags[np.arange(250)], bags[np.arange(250, 300)]
    est = CitationKNNClassifier(algorithm="hnsw").fit(train, y[:250])
    expected = est.predict_proba(test)
    again = CitationKNNClassifier(algorithm="hnsw").fit(train, y[:250])
    assert bytes(faiss.serialize_index(again._index._layout.index)) == \
        bytes(faiss.serialize_index(est._index._layout.index))
    np.testing.assert_array_equal(again.citer_threshold_, est.citer_threshold_)
    np.testing.assert_array_equal(again.predict_proba(test), expected)
    threaded = CitationKNNClassifier(algorithm="hnsw", n_jobs=2).fit(train, y[:250])
    np.testing.assert_array_equal(threaded.citer_threshold_, est.citer_threshold_)
    np.testing.assert_array_equal(threaded.predict_proba(test), expected)
    loaded = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(loaded.predict_proba(test), expected)
    twice = pickle.loads(pickle.dumps(loaded))  # pickled again before any prediction
    np.testing.assert_array_equal(twice.predict_proba(test), expected)


def test_bag_alone_equals_bag_in_batch():
    bags, y, _ = _iid_bags(200, seed=6)
    est = CitationKNNClassifier(algorithm="hnsw").fit(bags[np.arange(150)], y[:150])
    test = bags[np.arange(150, 200)]
    alone = np.vstack([est.predict_proba(test[np.arange(i, i + 1)]) for i in range(50)])
    np.testing.assert_array_equal(alone, est.predict_proba(test))


def test_ef_search_widens_the_search():
    bags, y, _ = _iid_bags(600, seed=7)
    train, test = bags[np.arange(500)], bags[np.arange(500, 600)]
    exact = CitationKNNClassifier(algorithm="brute").fit(train, y[:500]).predict_proba(test)
    wide = CitationKNNClassifier(algorithm="hnsw", ef_search=256).fit(train, y[:500]).predict_proba(test)
    assert np.mean(np.all(wide == exact, axis=1)) >= 0.99


def test_lists_of_large_bags_are_not_grown_to_certify(monkeypatch):
    # Bags of a hundred instances and more in many dimensions: a graph's lists certify nothing, so
    # a bag is settled as soon as they name enough other bags, here from the first lists (the
    # citers' C + 2 instances, the citer cover's 9 training bags + 2). Grown to certify, they
    # reached 192 instances.
    from mil.datasets import make_foundation_bags
    from mil.neighbors import _search

    d = make_foundation_bags(12, n_features=256, bag_sizes=(100, 200), random_state=0)
    train, test = d.bags[np.arange(9)], d.bags[np.arange(9, 12)]
    lengths = []
    query = _search._HNSWLayout.query
    monkeypatch.setattr(_search._HNSWLayout, "query", lambda self, Yq, k: lengths.append(k) or query(self, Yq, k))
    ann = CitationKNNClassifier(algorithm="hnsw").fit(train, d.target[:9])
    proba = ann.predict_proba(test)
    assert set(lengths) == {ann.citers + 2, 9 + 2}
    exact = CitationKNNClassifier(algorithm="brute").fit(train, d.target[:9])
    np.testing.assert_array_equal(proba, exact.predict_proba(test))


def test_lists_that_name_too_few_bags_grow():
    # Every bag a tight cluster far from the others: an instance's first lists hold only its own
    # bag's instances (left out), so they must grow until the other bags appear.
    rng = np.random.default_rng(0)
    centres = 100.0 * rng.standard_normal((12, 8))
    X = np.repeat(centres, 30, axis=0) + 0.01 * rng.standard_normal((360, 8))
    bags, y = Bags(X, np.arange(0, 361, 30)), np.arange(12) % 2
    ann = CitationKNNClassifier(algorithm="hnsw").fit(bags, y)
    exact = CitationKNNClassifier(algorithm="brute").fit(bags, y)
    np.testing.assert_allclose(ann.citer_threshold_, exact.citer_threshold_, rtol=1e-9, atol=0)
    np.testing.assert_array_equal(ann.predict_proba(bags), exact.predict_proba(bags))


def test_errors():
    # The metric, sparse and precomputed errors are shared with the trees (test_neighbors_search.py).
    X, y = make_toy_bags(n_bags=20, random_state=7)
    with pytest.raises(ValueError, match="ef_search"):
        CitationKNNClassifier(algorithm="hnsw", ef_search=0).fit(X, y)


def test_missing_faiss_names_the_extra(monkeypatch):
    X, y = make_toy_bags(n_bags=20, random_state=7)
    monkeypatch.setitem(sys.modules, "faiss", None)  # import faiss then raises ImportError
    with pytest.raises(ImportError, match=r"scikit-mil\[ann\]"):
        CitationKNNClassifier(algorithm="hnsw").fit(X, y)
    CitationKNNClassifier(algorithm="kd_tree").fit(X, y)  # the exact searches do not need it


def test_auto_keeps_the_exact_search_below_the_graph_threshold():
    bags, y, _ = _iid_bags(3000, size=10, n_features=30, seed=8)  # many dimensions, 30,000 instances
    est = CitationKNNClassifier()
    est._validate_params()
    assert est._choose_algorithm(bags)[0] == "brute"


@pytest.mark.parametrize("cls", [CitationKNNClassifier, BagKNNClassifier, CitationKNNRegressor, BagKNNRegressor])
@pytest.mark.parametrize("n_features", [30, 100])  # the tree tried and refused; too many features to try it
def test_auto_chooses_the_graph_where_the_exact_search_is_a_pass_over_every_pair(monkeypatch, cls, n_features):
    monkeypatch.setattr(neighbors_base, "AUTO_MIN_INSTANCES", 2_000)
    monkeypatch.setattr(neighbors_base, "AUTO_GRAPH_MIN_INSTANCES", 2_000)
    bags, y, t = _iid_bags(300, size=10, n_features=n_features, seed=8)
    target = t if cls in (CitationKNNRegressor, BagKNNRegressor) else y
    auto = cls().fit(bags, target)
    graph = cls(algorithm="hnsw").fit(bags, target)
    assert auto.algorithm_ == "hnsw"
    np.testing.assert_array_equal(auto.predict(bags[:40]), graph.predict(bags[:40]))
    # Below the threshold, and without faiss, the exact search.
    monkeypatch.setattr(neighbors_base, "AUTO_GRAPH_MIN_INSTANCES", 3_001)
    assert cls().fit(bags, target).algorithm_ == "brute"
    monkeypatch.setattr(neighbors_base, "AUTO_GRAPH_MIN_INSTANCES", 2_000)
    monkeypatch.setitem(sys.modules, "faiss", None)  # import faiss then raises ImportError
    assert cls().fit(bags, target).algorithm_ == "brute"


def test_auto_prefers_the_exact_tree_where_it_serves(monkeypatch):
    monkeypatch.setattr(neighbors_base, "AUTO_MIN_INSTANCES", 2_000)
    monkeypatch.setattr(neighbors_base, "AUTO_GRAPH_MIN_INSTANCES", 2_000)
    bags, y, _ = _iid_bags(300, size=10, n_features=2, seed=8)  # two dimensions: the KD-tree prunes
    assert CitationKNNClassifier().fit(bags, y).algorithm_ == "kd_tree"


@pytest.mark.parametrize("cls", [BagKNNClassifier, CitationKNNClassifier])
def test_conformance_on_the_graph(cls):
    grid = {"n_neighbors": [1, 3]} if cls is BagKNNClassifier else {"references": [1, 3]}
    check_bag_classifier(cls(algorithm="hnsw"), param_grid=grid, multiclass=True)


def test_iid_benchmark_smoke(tmp_path):
    # benchmarks/bench_knn_iid.py --hnsw at a tiny size: the exact run's probabilities are
    # written to --exact, read back on a second call, and compared with the graph's.
    import os
    import subprocess
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_knn_iid.py"
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    exact = str(tmp_path / "exact{n}.npy")
    args = [sys.executable, str(script), "--bags", "100", "--tree-max", "0", "--max-cpu", "120", "--exact", exact]
    out = subprocess.run(args, capture_output=True, text=True, check=True, env=env).stdout
    assert "used 'brute'" in out and (tmp_path / "exact100.npy").exists()
    out = subprocess.run(args + ["--hnsw", "16"], capture_output=True, text=True, check=True, env=env).stdout
    assert "read from" in out and "used 'hnsw'" in out and "predicted labels agree on" in out
