"""``mil reproduce kernels --quick``: a smoke test of the reproduction and its table."""

import numpy as np

from mil.cli import main
from mil.reproduce import KERNEL_LEARNERS, KERNEL_PUBLISHED, kernel_table, reproduce_kernels


def test_quick_reproduction_and_table():
    res = reproduce_kernels(quick=True, learners=("nsk-svm", "mi-svm-bag"))
    assert res.datasets == ("musk1",)
    assert len(res.accuracy["nsk-svm"]["musk1"]) == 2
    assert np.mean(res.accuracy["nsk-svm"]["musk1"]) >= 0.7
    rows = kernel_table(res)
    assert rows[1] == ["  as quoted", "88.0"] and rows[2] == ["  re-impl.", "85.2"]
    assert set(KERNEL_PUBLISHED) == set(KERNEL_LEARNERS)


def test_seeded_reproduction_marks_the_randomised_rows():
    # Every learner of the table draws its inner folds from its seed: run over seeds 0 and 1,
    # the cell is the seeds' mean with their range, the row marked *.
    from mil._learners import SEED_PARAMS, make_learner

    for name in KERNEL_LEARNERS + ("miles", "mind"):
        assert SEED_PARAMS[name] == "random_state" and "random_state" in make_learner(name).get_params()
    res = reproduce_kernels(quick=True, learners=("mi-svm-bag",), seeds=2)
    assert len(res.accuracy["mi-svm-bag"]["musk1"]) == 4 and len(res.seed_accuracy["mi-svm-bag"]["musk1"]) == 2
    row = kernel_table(res)[0]
    acc, auc = 100 * res.seed_accuracy["mi-svm-bag"]["musk1"], 100 * res.seed_auc["mi-svm-bag"]["musk1"]
    assert row == ["mi-svm-bag *", f"{acc.mean():.1f} [{acc.min():.1f}-{acc.max():.1f}] "
                               f"({auc.mean():.1f} [{auc.min():.1f}-{auc.max():.1f}])"]


def test_cli_quick(capsys):
    assert main(["reproduce", "kernels", "--quick", "--quiet", "--learners", "migraph-svm", "--seeds", "1"]) == 0
    out = capsys.readouterr().out
    assert "migraph-svm" in out and "re-impl." in out and "86.4" in out
    assert main(["reproduce", "kernels", "--quick", "--quiet", "--learners", "nsk-svm", "--seeds", "2"]) == 0
    assert "nsk-svm *" in capsys.readouterr().out
    assert main(["reproduce", "kernels", "--quick", "--quiet", "--learners", "rbf-svm"]) == 2
