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
