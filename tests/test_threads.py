"""Threads over features (`n_jobs` of the trees, GDBT-MI and RIPPER-MI) change no result."""

import numpy as np
import pytest

import mil.utils._threads as threads_module
from mil.ensemble import GDBTMIClassifier
from mil.rules import RipperMIClassifier
from mil.tree import C45MIClassifier, ID3MIClassifier
from mil.utils._threads import RowThreads
from mil.utils.estimator_checks import make_toy_bags


@pytest.fixture
def every_node_threaded(monkeypatch):
    """Hand every search to the pool, however small, so the tiny test data use the threads."""
    monkeypatch.setattr(threads_module, "MIN_CELLS_PER_THREAD", 0)


def test_row_blocks_cover_every_row_once():
    with RowThreads(3, 10) as threads:
        assert threads.n_threads == 3
        parts = threads.run(lambda lo, hi: list(range(lo, hi)), cells=10 ** 9)
        joined = threads.concat(lambda lo, hi: (np.arange(lo, hi), np.arange(lo, hi) * 2.0), cells=10 ** 9)
    assert [len(p) for p in parts] == [3, 4, 3]
    assert sum(parts, []) == list(range(10))
    np.testing.assert_array_equal(joined[0], np.arange(10))
    np.testing.assert_array_equal(joined[1], np.arange(10) * 2.0)


def test_small_jobs_and_one_thread_run_in_the_caller():
    calls = []
    with RowThreads(4, 10) as threads:
        parts = threads.run(lambda lo, hi: calls.append((lo, hi)) or hi - lo, cells=10)
    assert parts == [10] and calls == [(0, 10)]
    with RowThreads(None, 10) as threads:
        assert threads.n_threads == 1
        assert threads.run(lambda lo, hi: (lo, hi), cells=10 ** 9) == [(0, 10)]
    # Never more threads than rows.
    assert RowThreads(8, 2).n_threads == 2


def _data(with_nan=False):
    X, y = make_toy_bags(n_bags=40, n_features=7, max_size=6, random_state=3)
    X = [np.round(b, 1) for b in X]
    if with_nan:
        X[1][0, 2] = np.nan
        X[4][1, 0] = np.nan
    return X, y


@pytest.mark.parametrize("cls", [ID3MIClassifier, C45MIClassifier])
@pytest.mark.parametrize("with_nan", [False, True])
@pytest.mark.parametrize("growth", ["depth", "best"])
def test_trees_do_not_depend_on_n_jobs(cls, with_nan, growth, backend, every_node_threaded):
    X, y = _data(with_nan)
    one = cls(growth=growth).fit(X, y)
    three = cls(growth=growth, n_jobs=3).fit(X, y)
    assert one.tree_ == three.tree_
    np.testing.assert_array_equal(one.predict_proba(X), three.predict_proba(X))


def test_boosting_does_not_depend_on_n_jobs(backend, every_node_threaded):
    X, y = _data(with_nan=True)
    one = GDBTMIClassifier(n_estimators=5, random_state=0).fit(X, y)
    two = GDBTMIClassifier(n_estimators=5, random_state=0, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))
    np.testing.assert_array_equal(one.train_score_, two.train_score_)


@pytest.mark.parametrize("beam_width", [1, 2])
def test_rules_do_not_depend_on_n_jobs(backend, every_node_threaded, beam_width):
    X, y = _data()
    one = RipperMIClassifier(random_state=0, beam_width=beam_width).fit(X, y)
    three = RipperMIClassifier(random_state=0, beam_width=beam_width, n_jobs=3).fit(X, y)
    assert one.rules_ and one.export_text() == three.export_text()
    np.testing.assert_array_equal(one.predict_proba(X), three.predict_proba(X))


@pytest.mark.parametrize("cls", [ID3MIClassifier, C45MIClassifier, GDBTMIClassifier,
                                 RipperMIClassifier])
def test_n_jobs_zero_is_rejected(cls):
    X, y = _data()
    with pytest.raises(ValueError, match="n_jobs"):
        cls(n_jobs=0).fit(X, y)


def _pool_sizes(est, train, test):
    from threadpoolctl import threadpool_info

    return max([info["num_threads"] for info in threadpool_info()] or [1])


def test_parallel_folds_cap_the_inner_pools():
    # Each worker's fold runs with its BLAS / OpenMP pools capped at the cores divided by the
    # workers (the worker's function, run here so that the callback needs no pickling).
    import numpy as np

    from mil import SimpleMIClassifier
    from mil.evaluation import _indexed_fold, fold_indices
    from mil.utils._threads import inner_threads, limited_threads, threads_per_job

    assert threads_per_job(2, cores=2) == 1 and threads_per_job(1, cores=2) == 2 and threads_per_job(3, cores=2) == 1
    rng = np.random.default_rng(0)
    bags = [rng.normal(size=(3, 2)) for _ in range(12)]
    y = np.arange(12) % 2
    train, test = fold_indices(y, 3)[0]
    from mil.utils.validation import check_bags

    i, fold = _indexed_fold(0, 1, SimpleMIClassifier(), check_bags(bags), y, train, test, _pool_sizes, 1, False)
    assert i == 0 and fold[3] == 1  # the callback's value: the largest pool inside the fold
    with limited_threads(1):  # a caller's cap reaches its workers
        assert inner_threads(1) == 1


def test_a_cap_never_raises_the_pools():
    # A caller that runs with one thread (OMP_NUM_THREADS=1, or a cap of its own) keeps one in
    # every pool, even where the cap asked for is the machine's idle cores (the command line's).
    from threadpoolctl import threadpool_info, threadpool_limits

    from mil.cli._common import thread_budget
    from mil.utils._threads import limited_threads

    import numpy as np

    np.ones((4, 4)) @ np.ones((4, 4))  # the BLAS is loaded
    with threadpool_limits(limits=1):
        with limited_threads(8):
            assert {info["num_threads"] for info in threadpool_info()} == {1}
        with limited_threads(thread_budget(None)):
            assert {info["num_threads"] for info in threadpool_info()} == {1}
    with threadpool_limits(limits=2):
        with limited_threads(1):
            assert {info["num_threads"] for info in threadpool_info()} == {1}
