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
    assert main(["reproduce", "trees", "--quick", "--quiet", "--no-plots", "--repeats", "2", "--seeds", "1",
                 "--datasets", "musk1", "--learners", "c45-mi", "mi-forest"]) == 0
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


def test_randomised_learners_run_over_seeds():
    from mil._learners import make_learner

    res = reproduce_trees(datasets=("musk1",), learners=("blrt", "c45-mi"), quick=True, seeds=2)
    assert res.seeds == 2 and res.accuracy["blrt"]["musk1"].shape == (4,)  # 2 folds x 2 seeds
    assert res.accuracy["c45-mi"]["musk1"].shape == (2,) and "c45-mi" not in res.seed_accuracy
    seed_means = res.seed_accuracy["blrt"]["musk1"]
    np.testing.assert_allclose(seed_means, res.accuracy["blrt"]["musk1"].reshape(2, 2).mean(axis=1))
    # Seed 1 is the learner with random_state=1.
    data = load_dataset("musk1")
    splits = [(np.flatnonzero(data.folds[0] != k), np.flatnonzero(data.folds[0] == k)) for k in range(2)]
    one = evaluate(make_learner("blrt", n_estimators=10, random_state=1), data.bags, data.target, splits)
    np.testing.assert_array_equal(res.accuracy["blrt"]["musk1"][2:], one["accuracy"])
    with pytest.raises(ValueError, match="seeds"):
        reproduce_trees(datasets=("musk1",), learners=("blrt",), quick=True, seeds=0)


def test_cli_seeds_option(capsys):
    import json

    assert main(["reproduce", "trees", "--quick", "--quiet", "--seeds", "2", "--learners", "blrt",
                 "simplemi-rf", "miwrapper-tree"]) == 0
    out = capsys.readouterr().out
    assert "blrt *" in out and "simplemi-rf *" in out and "miwrapper-tree *" not in out
    assert "mean over seeds 0-1" in out
    assert main(["reproduce", "trees", "--quick", "--json", "--seeds", "2", "--learners", "blrt"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["seeds"] == 2 and len(out["seed_accuracy"]["blrt"]["musk1"]) == 2
    fold_auc = out["auc"]["blrt"]["musk1"]  # every fold of every seed, seed after seed
    assert len(fold_auc) == len(out["accuracy"]["blrt"]["musk1"]) == 4
    np.testing.assert_allclose([np.mean(fold_auc[:2]), np.mean(fold_auc[2:])], out["seed_auc"]["blrt"]["musk1"])
    assert main(["reproduce", "trees", "--quick", "--seeds", "0"]) == 2
    assert "--seeds must be at least 1" in capsys.readouterr().err
