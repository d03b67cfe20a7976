"""Command line: subcommands, output formats and one-line errors (quick runs only)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from mil._learners import available_learners
from mil.cli import main


def test_info_prints_configuration(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "kernels:" in out and "numpy" in out


def test_help_for_every_subcommand():
    for argv in (["--help"], ["evaluate", "--help"], ["info", "--help"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 0


@pytest.mark.parametrize("argv, message", [
    (["evaluate", "--dataset", "musk9"], "unknown data set 'musk9'"),
    (["evaluate", "--model", "svm"], "unknown learner 'svm'"),
    (["evaluate", "--folds", "1"], "--folds must be at least 2"),
    (["evaluate", "--repeats", "0"], "--repeats must be at least 1"),
    (["evaluate", "--jobs", "0"], "--jobs must be a positive number"),
    (["reproduce", "trees", "--quick", "--jobs", "0"], "--jobs must be a positive number"),
])
def test_bad_input_is_one_line_and_nonzero(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_unreadable_and_single_class_files(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("bag,label,x\n1,0,abc\n")
    assert main(["evaluate", "--dataset", str(bad)]) == 2
    assert "cannot read" in capsys.readouterr().err
    one = tmp_path / "one.csv"
    one.write_text("bag,label,x\n1,0,1.0\n2,0,2.0\n")
    assert main(["evaluate", "--dataset", str(one)]) == 2
    assert "single class" in capsys.readouterr().err


needs_learner = pytest.mark.skipif(not available_learners(), reason="no learner in this installation")


@needs_learner
def test_evaluate_json_on_a_csv_file(tmp_path, capsys):
    from mil.datasets import load_musk1

    d = load_musk1()
    rows = ["bag,label," + ",".join(d.feature_names[:5])]
    for b, (bag, label) in enumerate(zip(d.data[::2], d.target[::2])):  # both classes
        rows += [f"{b},{label}," + ",".join(str(v) for v in inst[:5]) for inst in bag]
    path = tmp_path / "small.csv"
    path.write_text("\n".join(rows) + "\n")
    name = available_learners()[0]
    assert main(["evaluate", "--dataset", str(path), "--model", name, "--folds", "3", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records[0]["learner"] == name and 0.0 <= records[0]["accuracy_mean"] <= 1.0
    assert records[0]["folds"] == 3


@needs_learner
def test_python_dash_m_runs_the_default_job_as_a_table(tmp_path):
    name = available_learners()[0]
    # Outside the repository: `python -m` puts the working directory on sys.path.
    out = subprocess.run([sys.executable, "-m", "mil", "--model", name, "--folds", "3", "--quiet"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "kernels:" in out.stdout and "musk1: 92 bags" in out.stdout and name in out.stdout


def test_reproduce_distances_quick_json(capsys):
    assert main(["reproduce", "distances", "--quick", "--no-plots", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    acc = out["accuracy"]
    assert len(acc) == 10 and set(acc["citation-knn minimal"]) == {"musk1"}
    assert all(len(v["musk1"]) == 10 and 0.5 < np.mean(v["musk1"]) <= 1.0 for v in acc.values())


def test_reproduce_distances_quick_writes_the_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert main(["reproduce", "distances", "--quick", "--quiet", "--plot-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "citation-knn integrated" in out and "plot written" in out
    png = tmp_path / "integrated_references.png"
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("argv, message", [
    (["reproduce", "distances", "--datasets", "musk3"], "unknown data set 'musk3'"),
])
def test_reproduce_bad_options(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_reproduce_trees_quick(tmp_path, capsys):
    # Two worker processes: the staged-error callback must come back from them.
    assert main(["reproduce", "trees", "--quick", "--quiet", "--jobs", "2",
                 "--plot-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for learner in ("id3-mi", "c45-mi", "gdbt-mi", "ripper-mi", "mi-forest"):
        assert learner in out
    assert "two folds of Musk1" in out
    if __import__("mil.plotting", fromlist=["x"]).plotting_available():
        assert (tmp_path / "gdbt_mi_error.png").stat().st_size > 10_000


def test_reproduce_trees_quick_json_keeps_stdout_parseable(tmp_path, capsys):
    assert main(["reproduce", "trees", "--quick", "--json", "--plot-dir", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert {"id3-mi", "c45-mi", "gdbt-mi", "ripper-mi", "simplemi-tree", "miwrapper-tree",
            "mi-forest"} <= set(out["accuracy"])
    curves = out["staged_error"]["musk1"]
    assert len(curves["train"]) == len(curves["test"]) == 20  # quick: 20 boosting rounds
    assert all(0.0 <= e <= 1.0 for e in curves["train"] + curves["test"])
    if __import__("mil.plotting", fromlist=["x"]).plotting_available():
        assert "plot written" in captured.err
        assert (tmp_path / "gdbt_mi_error.png").stat().st_size > 10_000


def test_validation_names_the_bag_by_its_id():
    from mil.bags import Bags
    from mil.utils.validation import check_bags

    X = np.ones((5, 2))
    X[3, 0] = np.nan
    with pytest.raises(ValueError, match="bag 'mol_17' of X contains NaN"):
        check_bags(Bags.from_instances(X, ["mol_1", "mol_1", "mol_2", "mol_17", "mol_17"]))
    with pytest.raises(ValueError, match="bag 2 of X contains NaN"):  # no ids: the position
        check_bags(Bags(X, np.array([0, 2, 3, 5])))
    X[3, 0] = 1.0
    bags = Bags(X, np.array([0, 2, 3, 5]), ids=np.array(["mol_1", "mol_2", "mol_17"]))
    bags.instances[0, 0] = np.nan  # accepted as missing here
    bags.instances[4, 1] = np.inf
    with pytest.raises(ValueError, match="bag 'mol_17' of X contains infinity"):
        check_bags(bags, allow_nan=True)
