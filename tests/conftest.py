"""Shared fixtures: run kernel-backed tests on both backends in one process."""

import os

import numpy as np
import pytest

import mil
from mil._config import format_config
from mil._core import compiled_available, use_backend


def pytest_addoption(parser):
    parser.addoption(
        "--skip-python-variants", action="store_true",
        help="leave out the python variant of every test on the `backend` fixture: for a "
             "MIL_PURE_PYTHON=1 run after a run with the compiled kernels, which has run those "
             "variants on the NumPy twins already (as CI does)")


def pytest_configure(config):
    # Under pytest-xdist each worker is one of several processes: its BLAS and OpenMP pools get
    # the cores divided by the workers, so that the workers do not oversubscribe the machine
    # (a caller's OMP_NUM_THREADS is kept). Tests of thread handling set their own limits.
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers and "OMP_NUM_THREADS" not in os.environ:
        from threadpoolctl import threadpool_limits

        from mil.utils._threads import threads_per_job

        threadpool_limits(threads_per_job(int(workers)))


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--skip-python-variants"):
        return
    if not mil._config.pure_python_requested():
        raise pytest.UsageError("--skip-python-variants is for a MIL_PURE_PYTHON=1 run")
    kept, dropped = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        (dropped if params.get("backend") == "python" else kept).append(item)
    config.hook.pytest_deselected(items=dropped)
    items[:] = kept


def pytest_report_header(config):
    # Shows which mil is under test: the installed package, not the source tree.
    return [f"mil under test: {mil.__file__}", format_config()]


@pytest.fixture(params=["compiled", "python"])
def backend(request):
    """Run the test once with the compiled kernels and once with the NumPy twins.

    The compiled run is skipped when the compiled modules are not importable
    (or MIL_PURE_PYTHON is set); MIL_REQUIRE_COMPILED=1 makes them mandatory
    at import, so CI cannot skip it silently.
    """
    kind = request.param
    if kind == "compiled":
        if mil._config.pure_python_requested():
            pytest.skip("MIL_PURE_PYTHON is set")
        if not compiled_available():
            pytest.skip("compiled kernels are not built")
    with use_backend(kind):
        yield kind


def _random_bags(rng, n_bags=6, n_features=3, max_size=5):
    return [rng.normal(size=(rng.integers(1, max_size + 1), n_features)) for _ in range(n_bags)]


@pytest.fixture
def random_bags():
    """A factory of small random bag lists: random_bags(seed, n_bags, n_features, max_size)."""

    def make(seed=0, n_bags=6, n_features=3, max_size=5):
        return _random_bags(np.random.default_rng(seed), n_bags, n_features, max_size)

    return make
