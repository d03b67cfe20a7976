"""The suite's kernel probe (tests/conftest.py): which tests the pure-Python run may leave out.

CI's MIL_PURE_PYTHON=1 run leaves out the tests that the compiled run recorded as reaching
no kernel; a test wrongly recorded would lose its twin coverage silently, so the probe is
checked on a small suite of its own, in separate pytest processes.
"""

from pathlib import Path

import pytest

from mil._environment import pure_python_requested

pytest_plugins = ["pytester"]

SUITE = '''
import subprocess
import sys

import numpy as np
import pytest

import mil.distances

BAGS = [np.zeros((2, 3)), np.ones((1, 3))]


def test_plain():
    assert sum([1, 2]) == 3


def test_calls_a_kernel():
    mil.distances.hausdorff(BAGS, kind="minimal")


@pytest.fixture(scope="module")
def distances():
    return mil.distances.hausdorff(BAGS, kind="minimal")


def test_first_user_of_a_module_fixture(distances):
    assert distances.shape == (2, 2)


def test_second_user_of_the_same_fixture(distances):
    assert distances[0, 0] == 0


def test_starts_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_runs_a_joblib_job():
    from joblib import Parallel, delayed

    Parallel(n_jobs=1)(delayed(abs)(i) for i in range(2))


@pytest.mark.parametrize("n", [1, 2])
def test_parametrized_plain(n):
    assert n > 0
'''

AT_IMPORT = '''
import numpy as np

import mil.distances

D = mil.distances.hausdorff([np.zeros((1, 2)), np.ones((1, 2))], kind="minimal")


def test_reads_a_module_constant():
    assert D[0, 1] > 0
'''

READS_CONFIG = '''
import mil


def test_shows_the_configuration():
    mil.show_config()
'''


@pytest.mark.skipif(pure_python_requested(), reason="the probe records in a compiled run (this "
                    "test sets the environment of its own runs)")
def test_probe_lists_the_tests_that_reach_no_kernel_and_the_pure_run_leaves_them_out(
        pytester, monkeypatch):
    monkeypatch.delenv("MIL_PURE_PYTHON", raising=False)
    pytester.makeconftest((Path(__file__).parent / "conftest.py").read_text(encoding="utf-8"))
    pytester.makepyfile(test_suite=SUITE, test_at_import=AT_IMPORT, test_config=READS_CONFIG)
    listed = pytester.path / "kernel-free.txt"
    options = ("-p", "no:cacheprovider", "--import-mode=importlib")
    result = pytester.runpytest_subprocess(*options, "--record-kernel-free", str(listed))
    result.assert_outcomes(passed=10)
    assert sorted(listed.read_text(encoding="utf-8").split()) == [
        "test_suite.py::test_parametrized_plain[1]",
        "test_suite.py::test_parametrized_plain[2]",
        "test_suite.py::test_plain",
    ]
    monkeypatch.setenv("MIL_PURE_PYTHON", "1")
    result = pytester.runpytest_subprocess(*options, "--skip-kernel-free", str(listed))
    result.assert_outcomes(passed=7, deselected=3)
