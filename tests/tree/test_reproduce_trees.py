"""``reproduce_trees`` over several published repetitions (``mil reproduce trees --repeats``)."""

import numpy as np
import pytest

from mil.cli import main
from mil.datasets import load_dataset
from mil.evaluation import evaluate
from mil.reproduce import reproduce_trees
from mil.tree import C45MIClassifier


def test_repeats_use_the_published_repetitions():
    res = reproduce_trees(datasets=("musk1",), learners=("c45-mi",), repeats=2)
    acc = res.accuracy["c45-mi"]["musk1"]
    assert acc.shape == (20,) and res.protocol == "published folds, repetitions 0-1"
    # The second block of ten folds is repetition 1 of the published assignment.
    data = load_dataset("musk1")
    splits = [(np.flatnonzero(data.folds[1] != k), np.flatnonzero(data.folds[1] == k)) for k in range(10)]
    np.testing.assert_array_equal(acc[10:], evaluate(C45MIClassifier(), data.bags, data.target, splits)["accuracy"])
    with pytest.raises(ValueError, match="repeats"):
        reproduce_trees(datasets=("musk1",), learners=("c45-mi",), repeats=6)


def test_cli_repeats_option(capsys):
    assert main(["reproduce", "trees", "--quick", "--quiet", "--no-plots", "--repeats", "2",
                 "--datasets", "musk1"]) == 0
    assert "mi-forest" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["reproduce", "trees", "--repeats", "9"])


def test_cli_learners_option(capsys):
    import json

    assert main(["reproduce", "trees", "--quick", "--json", "--learners", "c45-mi", "id3-mi"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out["accuracy"]) == ["c45-mi", "id3-mi"] and out["title"] == "c45-mi, id3-mi"
    assert "staged_error" in out and out["staged_error"] == {}  # no GDBT-MI, no curves
    assert main(["reproduce", "trees", "--quick", "--learners", "c4.5"]) == 2
    assert "unknown learner 'c4.5'" in capsys.readouterr().err
