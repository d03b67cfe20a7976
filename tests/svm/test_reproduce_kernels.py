"""``mil reproduce kernels --quick``: a smoke test of the reproduction and its table."""

import numpy as np

from mil.cli import main
from mil.reproduce import KERNEL_LEARNERS, KERNEL_PUBLISHED, kernel_table, reproduce_kernels


def test_quick_reproduction_and_table():
    res = reproduce_kernels(quick=True, learners=("nsk-svm", "MI-svm"))
    assert res.datasets == ("musk1",)
    assert len(res.accuracy["nsk-svm"]["musk1"]) == 2
    assert np.mean(res.accuracy["nsk-svm"]["musk1"]) >= 0.7
    rows = kernel_table(res)
    assert rows[1] == ["  as quoted", "88.0"] and rows[2] == ["  re-impl.", "85.2"]
    assert set(KERNEL_PUBLISHED) == set(KERNEL_LEARNERS)


def test_cli_quick(capsys):
    assert main(["reproduce", "kernels", "--quick", "--quiet", "--learners", "migraph-svm"]) == 0
    out = capsys.readouterr().out
    assert "migraph-svm" in out and "re-impl." in out and "86.4" in out
    assert main(["reproduce", "kernels", "--quick", "--quiet", "--learners", "rbf-svm"]) == 2
