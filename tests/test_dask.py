"""Work through joblib runs on a Dask cluster unchanged (two worker processes on loopback).

The user only wraps the call in ``joblib.parallel_config(backend="dask")``
with a ``distributed.Client``; results must equal the single-process ones.
"""

import os

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
joblib = pytest.importorskip("joblib")

from mil.evaluation import evaluate, fold_indices  # noqa: E402
from mil.model_selection import nested_cv, paper_grid  # noqa: E402
from mil.neighbors import CitationKNNClassifier  # noqa: E402
from mil.tree import C45MIClassifier  # noqa: E402
from mil.utils.estimator_checks import make_toy_bags  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       host="127.0.0.1", dashboard_address=None)
    with cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def data():
    return make_toy_bags(n_bags=40, n_features=3, random_state=1)


def test_evaluate_folds_run_on_the_workers(client, data):
    X, y = data
    splits = fold_indices(y, folds=4, seed=0)
    serial = evaluate(C45MIClassifier(), X, y, splits)

    def pid(est, train, test):
        return os.getpid()

    with joblib.parallel_config(backend="dask"):
        res = evaluate(C45MIClassifier(), X, y, splits, callback=pid)
    np.testing.assert_array_equal(res["accuracy"], serial["accuracy"])
    workers = set(client.run(os.getpid).values())
    assert set(res["callback"]) <= workers and os.getpid() not in res["callback"]


def test_nested_cv_and_grid_search_match_single_process(client, data):
    X, y = data
    est = CitationKNNClassifier(metric="minimal")
    grid = paper_grid(est)
    serial = nested_cv(est, grid, X, y, outer_folds=4, inner_cv=3)
    search = GridSearchCV(est, grid, cv=3).fit(X, y)
    with joblib.parallel_config(backend="dask"):
        res = nested_cv(est, grid, X, y, outer_folds=4, inner_cv=3, n_jobs=2)
        dsearch = GridSearchCV(est, grid, cv=3, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(res.test_scores, serial.test_scores)
    assert res.best_params == serial.best_params
    assert dsearch.best_params_ == search.best_params_
    np.testing.assert_array_equal(dsearch.cv_results_["mean_test_score"],
                                  search.cv_results_["mean_test_score"])


def test_distance_strips_are_computed_on_the_cluster(client):
    from mil.distances import hausdorff_all

    rng = np.random.default_rng(5)
    X = [rng.normal(size=(rng.integers(1, 9), 6)) for _ in range(30)]
    local = hausdorff_all(X)
    with distributed.get_task_stream(client) as stream, joblib.parallel_config(backend="dask"):
        remote = hausdorff_all(X)
    assert len(stream.data) > 0  # tasks ran on the workers
    for kind in local:
        np.testing.assert_allclose(remote[kind], local[kind], rtol=1e-12, atol=1e-12)



# What a worker runs when the instances sit on storage it can read: open, slice, encode. Shipped
# to the workers as a module with Client.upload_file (this test module is not importable there).
ENCODE_PART = """
import numpy as np
from mil import Bags


def encode_part(encoder, path, offsets, b0, b1):
    instances = np.load(path, mmap_mode="r")
    part = Bags(instances[offsets[b0]:offsets[b1]], offsets[b0:b1 + 1] - offsets[b0])
    return encoder.transform(part)
"""


def test_bag_encoders_run_on_the_cluster(client, tmp_path, monkeypatch):
    import importlib

    from sklearn.linear_model import LogisticRegression

    from mil import Bags
    from mil.embedding import FisherVectorEmbedding, SlicedWassersteinEmbedding

    X, y = make_toy_bags(n_bags=120, n_features=3, max_size=8, random_state=2)
    offsets = np.concatenate([[0], np.cumsum([len(b) for b in X])])
    path = str(tmp_path / "instances.npy")
    np.save(path, np.concatenate(X).astype(np.float32))
    bags = Bags(np.load(path, mmap_mode="r"), offsets)
    module = tmp_path / "mil_encode_part.py"
    module.write_text(ENCODE_PART)
    monkeypatch.syspath_prepend(str(tmp_path))
    encode_part = importlib.import_module("mil_encode_part").encode_part
    client.upload_file(str(module))
    bounds = [(0, 40), (40, 80), (80, 120)]
    for encoder in (FisherVectorEmbedding(n_components=2, random_state=0, chunk_size=50),
                    SlicedWassersteinEmbedding(n_directions=8, n_quantiles=4, random_state=0, chunk_size=50)):
        enc = encoder.fit(bags)
        local = enc.transform(bags)
        # 1. joblib's Dask backend: the chunks of bags are encoded on the workers.
        with distributed.get_task_stream(client) as stream, joblib.parallel_config(backend="dask"):
            remote = enc.transform(bags)
        assert len(stream.data) > 0
        np.testing.assert_array_equal(remote, local)
        # 2. Each worker reads its own range of bags from the file.
        futures = client.map(encode_part, [enc] * len(bounds), [path] * len(bounds), [offsets] * len(bounds),
                             *zip(*bounds))
        np.testing.assert_array_equal(np.vstack(client.gather(futures)), local)
        # Any scikit-learn model then learns on the rows.
        assert LogisticRegression().fit(local, y).score(local, y) > 0.8
