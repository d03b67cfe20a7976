"""Shared fixtures: run kernel-backed tests on both backends in one process.

CI runs the suite twice: with the compiled kernels, then with ``MIL_PURE_PYTHON=1``
(the NumPy twins). The second run only adds what can differ between the two, so the
first can record, with ``--record-kernel-free FILE``, the tests that reached no
kernel, and the second leave them out with ``--skip-kernel-free FILE``. A test
reaches a kernel when it, or a fixture it uses, or its module's import, looks a
kernel up (:func:`mil._core.kernel`, ``twins``, ``compiled_available``), or when
it starts a process or a joblib job (whose kernels the probe cannot see); a test
module that reads the backend configuration itself always runs.
"""

import os
import subprocess

import numpy as np
import pytest

import mil
from mil._config import format_config
from mil._core import _backend, compiled_available, use_backend

# Test modules that read the backend configuration (environment flags, BACKENDS,
# show_config): their outputs differ between the two runs whatever they call.
_CONFIG_TOKENS = ("MIL_PURE_PYTHON", "MIL_REQUIRE_COMPILED", "BACKENDS", "show_config",
                  "format_config", "pure_python_requested", "compiled_required", "_environment")


class _KernelProbe:
    """Set when a kernel is looked up, a process is started or a joblib job runs."""

    reached = False
    kernel_free = set()  # on the controller: ids of the tests that reached none
    modules = set()  # test modules whose import reached a kernel
    config_modules = {}  # test module path -> whether it reads the backend configuration


class _ProbedModules(dict):
    def __getitem__(self, name):
        _KernelProbe.reached = True
        return super().__getitem__(name)


def _install_kernel_probe():
    import multiprocessing.process

    import joblib

    _backend._modules = _ProbedModules(_backend._modules)

    def probed(cls, method):
        original = getattr(cls, method)

        def wrapper(self, *args, **kwargs):
            _KernelProbe.reached = True
            return original(self, *args, **kwargs)

        setattr(cls, method, wrapper)

    probed(subprocess.Popen, "__init__")
    probed(multiprocessing.process.BaseProcess, "start")
    probed(joblib.Parallel, "__call__")


def _reads_configuration(path):
    path = str(path)
    if path not in _KernelProbe.config_modules:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        _KernelProbe.config_modules[path] = any(token in text for token in _CONFIG_TOKENS)
    return _KernelProbe.config_modules[path]


def _recording(config):
    return config.getoption("--record-kernel-free") is not None


def pytest_addoption(parser):
    parser.addoption(
        "--skip-python-variants", action="store_true",
        help="leave out the python variant of every test on the `backend` fixture: for a "
             "MIL_PURE_PYTHON=1 run after a run with the compiled kernels, which has run those "
             "variants on the NumPy twins already (as CI does)")
    parser.addoption(
        "--record-kernel-free", metavar="FILE", default=None,
        help="write the ids of the tests that reached no compiled kernel or NumPy twin (see "
             "tests/conftest.py) to FILE, for --skip-kernel-free in a later MIL_PURE_PYTHON=1 run")
    parser.addoption(
        "--skip-kernel-free", metavar="FILE", default=None,
        help="in a MIL_PURE_PYTHON=1 run, leave out the tests listed in FILE by "
             "--record-kernel-free: they take the same path on both backends")


def pytest_configure(config):
    # Under pytest-xdist each worker is one of several processes: its BLAS and OpenMP pools get
    # the cores divided by the workers, so that the workers do not oversubscribe the machine
    # (a caller's OMP_NUM_THREADS is kept). Tests of thread handling set their own limits.
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers and "OMP_NUM_THREADS" not in os.environ:
        from threadpoolctl import threadpool_limits

        from mil.utils._threads import threads_per_job

        threadpool_limits(threads_per_job(int(workers)))
    if _recording(config):
        if mil._config.pure_python_requested():
            raise pytest.UsageError("--record-kernel-free is for a run with the compiled kernels")
        _install_kernel_probe()


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    if not _recording(collector.config) or not isinstance(collector, pytest.Module):
        yield
        return
    before, _KernelProbe.reached = _KernelProbe.reached, False
    yield
    if _KernelProbe.reached:
        _KernelProbe.modules.add(str(collector.path))
    _KernelProbe.reached = before


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    if not _recording(request.config):
        yield
        return
    before, _KernelProbe.reached = _KernelProbe.reached, False
    yield
    fixturedef._mil_reached_kernel = _KernelProbe.reached
    _KernelProbe.reached = before or _KernelProbe.reached


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _KernelProbe.reached = False


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if call.when != "teardown" or not _recording(item.config):
        return
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.values() if info is not None else ()
    reached = (_KernelProbe.reached or str(item.path) in _KernelProbe.modules
               or _reads_configuration(item.path)
               or any(getattr(d[-1], "_mil_reached_kernel", False) for d in defs if d))
    outcome.get_result().user_properties.append(("mil_reached_kernel", reached))


def pytest_runtest_logreport(report):
    # On the controller under pytest-xdist: the workers' reports carry the probe's answer.
    if report.when != "teardown":
        return
    answer = dict(report.user_properties).get("mil_reached_kernel")
    if answer is False:
        _KernelProbe.kernel_free.add(report.nodeid)


def pytest_sessionfinish(session):
    path = session.config.getoption("--record-kernel-free")
    if path is None or hasattr(session.config, "workerinput"):
        return
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("".join(f"{nodeid}\n" for nodeid in sorted(_KernelProbe.kernel_free)))


def pytest_collection_modifyitems(config, items):
    skip_variants = config.getoption("--skip-python-variants")
    kernel_free_file = config.getoption("--skip-kernel-free")
    if not skip_variants and kernel_free_file is None:
        return
    if not mil._config.pure_python_requested():
        raise pytest.UsageError("--skip-python-variants and --skip-kernel-free are for a "
                                "MIL_PURE_PYTHON=1 run")
    kernel_free = set()
    if kernel_free_file is not None:
        with open(kernel_free_file, encoding="utf-8") as fh:
            kernel_free = {line.strip() for line in fh if line.strip()}
    kept, dropped = [], []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        drop = (skip_variants and params.get("backend") == "python") or item.nodeid in kernel_free
        (dropped if drop else kept).append(item)
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
