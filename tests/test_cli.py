"""Command line: subcommands, output formats and one-line errors (quick runs only)."""

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from mil._learners import available_learners
from mil.cli import build_parser, main


def test_info_prints_configuration(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "kernels:" in out and "numpy" in out


def test_help_for_every_subcommand():
    for argv in (["--help"], ["evaluate", "--help"], ["info", "--help"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 0


@pytest.mark.parametrize("argv", [["--help"], ["evaluate", "--help"]])
def test_help_lists_every_learner_with_its_cost_class(argv, capsys):
    from mil._costs import COST_CLASSES, cost_class
    from mil._learners import DEFAULT_JOB, LEARNERS

    with pytest.raises(SystemExit):
        main(argv)
    out = capsys.readouterr().out
    lines = out.splitlines()
    names = [n for n in COST_CLASSES]
    from mil._learners import DEFAULT_REGRESSION_JOB

    for name, row in LEARNERS.items():
        description = row.description
        if row.task == "regression":
            mark = "*" if name in DEFAULT_REGRESSION_JOB else ""
            line = next(i for i, text in enumerate(lines) if text.split()[:1] == [name + mark])
            assert lines[line].endswith(description) and len(lines[line]) <= 100
            assert "regressors, for real-valued labels" in next(
                text for text in reversed(lines[:line]) if text.startswith("  ") and not text.startswith("    "))
            continue
        mark = "*" if name in DEFAULT_JOB else ""
        line = next(i for i, text in enumerate(lines) if text.split()[:1] == [name + mark])
        assert lines[line].endswith(description) and len(lines[line]) <= 100
        # under the heading of its cost class on the 200-bag file and on Musk1
        heading = next(text for text in reversed(lines[:line]) if text.startswith("  ") and
                       not text.startswith("    "))
        on_file, on_musk = cost_class(name)
        assert heading.strip().startswith(f"{on_file} on ")
        assert on_musk in heading
    assert all(name in out for _, name in names[:2]) and "the default job" in out


def test_every_learner_has_a_measured_cost():
    from mil._costs import FOLD_SECONDS, REFERENCES
    from mil._learners import DEFAULT_JOB, LEARNERS

    assert set(FOLD_SECONDS) == {n for n, row in LEARNERS.items() if row.task == "classification"}
    assert all(len(t) == len(REFERENCES) and min(t) > 0 for t in FOLD_SECONDS.values())
    assert set(DEFAULT_JOB) <= set(LEARNERS)


def test_fold_time_model_through_the_measurements():
    import math

    from mil._costs import FOLD_SECONDS, REFERENCES, estimate_seconds, fold_seconds, reference_fold_seconds

    refs = [(n, d) for _, n, d, _, _ in REFERENCES.values()]
    # By hand for one learner: p from Musk1 to Musk2 (same features), q from Musk1 to the file.
    (t1, t2, t3), ((n1, d1), (n2, d2), (n3, d3)) = FOLD_SECONDS["c45-mi"], refs
    p = math.log(t3 / t2) / math.log(n3 / n2)
    q = math.log((t1 / n1 ** p) / (t2 / n2 ** p)) / math.log(d1 / d2)
    assert 0.5 < p < 3 and 0 < q < 2  # not clipped: the model passes through the three points
    assert reference_fold_seconds("c45-mi", 1000, 64) == pytest.approx(t2 * (1000 / n2) ** p * (64 / d2) ** q)
    np.testing.assert_allclose([reference_fold_seconds("c45-mi", n, d) for n, d in refs], (t1, t2, t3), rtol=1e-9)
    # Clipped exponents: the fit is in log space, within a factor of the measurements.
    for name, times in FOLD_SECONDS.items():
        got = np.array([reference_fold_seconds(name, n, d) for n, d in refs])
        assert np.all(got / np.array(times) < 4) and np.all(np.array(times) / got < 4), name
    assert fold_seconds("no-such-learner", 10, 10) is None
    total, per = estimate_seconds(["c45-mi", "blrt"], n1, d1, 10, workers=2)
    assert total == pytest.approx(sum(per.values()))
    assert per["blrt"] == pytest.approx(5 * fold_seconds("blrt", n1, d1))


def test_default_job_is_the_curated_set_and_all_runs_every_learner(tmp_path, monkeypatch, capsys):
    from mil._learners import DEFAULT_JOB
    from mil.cli._evaluate import learner_names

    assert learner_names(None) == [n for n in DEFAULT_JOB if n in available_learners()]
    assert learner_names(["all"]) == available_learners("classification")
    assert learner_names(["c45-mi", "all"])[0] == "c45-mi"
    assert len(learner_names(["c45-mi", "all"])) == len(available_learners("classification"))
    path = _write_csv(tmp_path / "d.csv", [1, 0] * 8)
    assert main(["evaluate", "--dataset", path, "--folds", "3", "--json"]) == 0
    captured = capsys.readouterr()
    assert [r["learner"] for r in json.loads(captured.out)] == learner_names(None)
    # the estimate comes first, on stderr, and says it is one
    assert captured.err.startswith(f"mil: {len(DEFAULT_JOB)} learners x 3 folds on 16 bags (48 instances "
                                   "x 2 features): about ")
    assert "an estimate" in captured.err
    assert main(["evaluate", "--dataset", path, "--folds", "3", "--json", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_estimate_names_the_learners_that_dominate(monkeypatch):
    from mil import _costs
    from mil.cli._evaluate import estimate_note as _estimate_note
    from mil.cli._reading import load as _load

    # mi-svm at 20 s a fold on Musk2's size, c45-mi at its shipped cost (well under a second)
    monkeypatch.setitem(_costs.COST_MODEL, "mi-svm", {"a": 20.0 / 6598, "p": 1.0, "q": 0.0, "spread": 1.2,
                                                      "max_measured_instances": 10_000})
    data = _load(build_parser().parse_args(["evaluate", "--dataset", "musk2"]))
    splits = [(np.arange(len(data.y) - 10), np.arange(len(data.y) - 10, len(data.y)))] * 10
    note = _estimate_note(["c45-mi", "mi-svm"], data, splits, None)
    assert "mostly mi-svm (3 min 20 s)" in note and "c45-mi (" not in note


def test_a_warning_names_its_learner_once(tmp_path, monkeypatch, capsys):
    # A solver at its iteration limit in every fold of one learner, in worker processes:
    # one line after the table names that learner and counts the folds.
    from sklearn.linear_model import LogisticRegression

    import mil.cli._evaluate
    from mil import SimpleMIClassifier

    real = mil.cli._evaluate.make_cli_learner

    def make(learner, *args):
        return SimpleMIClassifier(LogisticRegression(max_iter=1)) if learner == "c45-mi" else real(learner, *args)

    monkeypatch.setattr(mil.cli._evaluate, "make_cli_learner", make)
    path = _write_csv(tmp_path / "d.csv", [1, 0] * 8)
    assert main(["evaluate", "--dataset", path, "--model", "c45-mi", "bag-knn", "--folds", "3", "--jobs", "2",
                 "--quiet"]) == 0
    captured = capsys.readouterr()
    notes = [line for line in captured.err.splitlines() if "ConvergenceWarning" in line]
    assert len(notes) == 1 and notes[0].startswith("mil: warning: c45-mi: ConvergenceWarning in 3 of 3 folds: ")
    assert "bag-knn" not in captured.err


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


def test_reproduce_embeddings_quick(capsys):
    assert main(["reproduce", "embeddings", "--quick", "--quiet", "--seeds", "1"]) == 0
    out = capsys.readouterr().out
    assert "miles (published)  84.7" in out and "mind (published)   90.1" in out
    assert "two folds of Musk1" in out and "Carbonneau" in out
    assert main(["reproduce", "embeddings", "--quick", "--json", "--learners", "mind", "--seeds", "2"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert set(res["accuracy"]) == {"mind"} and len(res["auc"]["mind"]["musk1"]) == 4  # 2 folds x 2 seeds
    assert res["seeds"] == 2 and len(res["seed_accuracy"]["mind"]["musk1"]) == 2


def test_reproduce_set_gives_every_learner_the_parameter(capsys):
    argv = ["reproduce", "embeddings", "--quick", "--json", "--learners", "miles", "--seeds", "1"]
    assert main(argv + ["--set", "n_concepts=20"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["params"] == {"n_concepts": 20} and "n_concepts=20" in res["title"]
    assert main(argv) == 0
    exact = json.loads(capsys.readouterr().out)
    assert exact["params"] == {}
    # The same folds and seed with 20 k-means concepts: the fit is not the exact one.
    from mil.datasets import load_dataset
    from mil._learners import make_learner
    from mil.reproduce import _splits
    data = load_dataset("musk1")
    train, test = _splits(data, True)[0]
    est = make_learner("miles", seed=0, n_concepts=20).fit([data.bags[i] for i in train], data.target[train])
    assert est.concepts_.shape[0] == 20
    acc = float(np.mean(est.predict([data.bags[i] for i in test]) != data.target[test]))
    assert res["accuracy"]["miles"]["musk1"][0] == pytest.approx(1 - acc)


@pytest.mark.parametrize("argv, message", [
    (["reproduce", "distances", "--datasets", "musk3"], "unknown data set 'musk3'"),
    (["reproduce", "embeddings", "--learners", "gdbt-mi"], "unknown learner 'gdbt-mi'"),
    (["reproduce", "embeddings", "--set", "n_concepts"], "--set takes NAME=VALUE"),
    (["reproduce", "encoders", "--learners", "mi-fv", "--set", "n_concepts=3"], "not accepted by 'mi-fv'"),
])
def test_reproduce_bad_options(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_reproduce_trees_quick(tmp_path, capsys):
    # Two worker processes: the staged-error callback must come back from them.
    assert main(["reproduce", "trees", "--quick", "--quiet", "--jobs", "2",
                 "--plot-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for learner in ("id3-mi", "c45-mi", "gdbt-mi", "ripper-mi", "mi-forest", "blrt", "miwrapper-hgb",
                    "simplemi-rf"):
        assert learner in out
    assert "two folds of Musk1" in out
    assert "blrt *" in out and "mean over seeds 0-2" in out  # three seeds by default
    if __import__("mil.plotting", fromlist=["x"]).plotting_available():
        assert (tmp_path / "gdbt_mi_error.png").stat().st_size > 10_000


def test_reproduce_trees_quick_json_keeps_stdout_parseable(tmp_path, capsys):
    # Two learners (every learner's row is test_reproduce_trees_quick's); GDBT-MI draws the plot.
    assert main(["reproduce", "trees", "--quick", "--json", "--seeds", "1", "--plot-dir", str(tmp_path),
                 "--learners", "id3-mi", "gdbt-mi"]) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert set(out["accuracy"]) == {"id3-mi", "gdbt-mi"}
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


# -- a user's own files -------------------------------------------------------

def _write_csv(path, labels, ids=None, nan_bag=None, inf_bag=None, delimiter=",", columns=("bag", "label"),
               order=None):
    """A tiny long CSV: three 2-feature instances per bag; positive bags hold a shifted instance."""
    rng = np.random.default_rng(0)
    ids = ids or [f"b{i}" for i in range(len(labels))]
    lines = [delimiter.join([*columns, "x1", "x2"])]
    for b in (order or range(len(labels))):
        for i in range(3):
            x = rng.normal(size=2) + (3.0 if i == 0 and labels[b] in (1, "yes", 2) else 0.0)
            cells = [f"{v:.4f}" for v in x]
            if b == nan_bag and i == 1:
                cells[0] = ""
            if b == inf_bag and i == 1:
                cells[1] = "inf"
            lines.append(delimiter.join([str(ids[b]), str(labels[b]), *cells]))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _write_arff(path, labels, declared="{no,yes}"):
    rng = np.random.default_rng(1)
    rows = []
    for b, label in enumerate(labels):
        insts = [rng.normal(size=2) + (3.0 if i == 0 and label == "yes" else 0.0) for i in range(3)]
        rows.append(f'mol_{b},"' + "\\n".join(",".join(f"{v:.4f}" for v in x) for x in insts) + f'",{label}')
    ids = ",".join(f"mol_{b}" for b in range(len(labels)))
    path.write_text(f"@relation words\n@attribute bag_id {{{ids}}}\n@attribute bag relational\n"
                    "  @attribute x1 numeric\n  @attribute x2 numeric\n@end bag\n"
                    f"@attribute class {declared}\n@data\n" + "\n".join(rows) + "\n")
    return str(path)


def _json(capsys):
    return {r["learner"]: r for r in json.loads(capsys.readouterr().out)}


def test_word_labels_need_the_positive_class_as_in_python(tmp_path, capsys):
    from mil.tree import C45MIClassifier

    path = _write_csv(tmp_path / "w.csv", ["yes", "no"] * 8)
    assert main(["evaluate", "--dataset", path, "--model", "c45-mi", "--folds", "4", "--json"]) == 2
    err = capsys.readouterr().err
    assert "the labels of w.csv are 'no' and 'yes'" in err and "--positive-class yes" in err
    assert err.count("\n") == 1
    with pytest.raises(ValueError, match="positive_class"):  # the Python API refuses the same labels
        C45MIClassifier().fit([np.zeros((1, 2)), np.ones((1, 2))], ["yes", "no"])
    assert main(["evaluate", "--dataset", path, "--model", "c45-mi", "bag-knn", "--folds", "4", "--json",
                 "--positive-class", "yes"]) == 0
    records = _json(capsys)
    assert all(r["status"] == "ok" and r["positive_class"] == "yes" for r in records.values())
    assert records["c45-mi"]["auc_mean"] is not None


@pytest.mark.parametrize("declared, positive", [("{no,yes}", "yes"), ("{yes,no}", "no")])
def test_arff_declared_order_makes_the_second_value_positive(declared, positive, tmp_path, capsys):
    path = _write_arff(tmp_path / "w.arff", ["yes", "no"] * 8, declared=declared)
    assert main(["evaluate", "--dataset", path, "--model", "c45-mi", "--folds", "4", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)[0]["positive_class"] == positive
    assert f"declares the classes {declared}; the second, {positive!r}, is the positive class" in captured.err
    assert main(["evaluate", "--dataset", path, "--model", "c45-mi", "--folds", "4", "--json",
                 "--positive-class", "yes"]) == 0  # the option still wins
    captured = capsys.readouterr()
    assert json.loads(captured.out)[0]["positive_class"] == "yes" and "note" not in captured.err


def test_delimiter_is_sniffed_or_named(tmp_path, capsys):
    path = _write_csv(tmp_path / "semi.csv", [1, 0] * 8, delimiter=";")
    assert main(["evaluate", "--dataset", path, "--model", "c45-mi", "--folds", "4", "--json"]) == 0
    assert _json(capsys)["c45-mi"]["status"] == "ok"
    assert main(["evaluate", "--dataset", path, "--model", "c45-mi", "--folds", "4", "--delimiter", ","]) == 2
    err = capsys.readouterr().err
    assert "the header splits on ';': pass --delimiter ';'" in err and err.count("\n") == 1
    other = _write_csv(tmp_path / "cols.csv", [1, 0] * 8, delimiter=";", columns=("molecule", "activity"))
    assert main(["evaluate", "--dataset", other, "--model", "c45-mi", "--folds", "4"]) == 2
    err = capsys.readouterr().err
    assert "no bag column 'bag' in the header ['molecule', 'activity', 'x1', 'x2']" in err
    assert "--bag-column" in err


def test_encoding_option(tmp_path, capsys):
    path = tmp_path / "latin.csv"
    text = open(_write_csv(tmp_path / "plain.csv", ["négatif", "actif"] * 8)).read()
    path.write_bytes(text.encode("latin-1"))
    argv = ["evaluate", "--dataset", str(path), "--model", "c45-mi", "--folds", "4", "--json",
            "--positive-class", "actif"]
    assert main(argv) == 2
    assert "not valid utf-8" in capsys.readouterr().err
    assert main(argv + ["--encoding", "latin-1"]) == 0
    assert _json(capsys)["c45-mi"]["positive_class"] == "actif"
    assert main(["evaluate", "--dataset", "musk1", "--encoding", "latin-1"]) == 2
    assert "--encoding applies to files" in capsys.readouterr().err


def test_milweb_by_name_uses_its_split(capsys):
    assert main(["evaluate", "--dataset", "milweb", "--model", "bag-knn", "c45-mi", "--json"]) == 0
    captured = capsys.readouterr()
    records = {r["learner"]: r for r in json.loads(captured.out)}
    assert "milweb is MILWEB user 1" in captured.err
    knn = records["bag-knn"]
    assert knn["status"] == "ok" and knn["dataset"] == "milweb1" and knn["folds"] == 1
    assert knn["per_fold"][0]["n_test"] == 38
    assert records["c45-mi"]["status"] == "skipped" and "sparse" in records["c45-mi"]["reason"]
    assert main(["evaluate", "--dataset", "milweb10"]) == 2
    assert "milweb1..milweb9" in capsys.readouterr().err


def test_json_has_per_fold_scores_and_auc_says_why_it_is_missing(tmp_path, capsys):
    # Fold file: fold 0 holds only positive bags, so its AUC is undefined.
    path = _write_csv(tmp_path / "d.csv", [1, 0] * 6)
    folds = tmp_path / "folds.txt"
    folds.write_text("\n".join(["0", "1", "0", "1", "0", "2", "2", "1", "2", "2", "2", "2"]) + "\n")
    assert main(["evaluate", "--dataset", path, "--model", "c45-mi", "--folds", str(folds), "--json"]) == 0
    record = _json(capsys)["c45-mi"]
    assert [f["fold"] for f in record["per_fold"]] == [0, 1, 2]
    assert record["per_fold"][0]["auc"] is None and record["per_fold"][1]["auc"] is None
    assert record["per_fold"][2]["auc"] is not None
    for key in ("fit_time_s", "predict_time_s"):  # each fold's times; the record has their mean
        assert np.isclose(np.mean([f[key] for f in record["per_fold"]]), record[key])
    assert record["auc_note"].startswith("2 of 3 test folds hold bags of a single class")
    assert main(["evaluate", "--dataset", path, "--model", "c45-mi", "--folds", str(folds), "--quiet"]) == 0
    assert "AUC c45-mi: 2 of 3 test folds hold bags of a single class" in capsys.readouterr().out
    assert main(["evaluate", "--dataset", path, "--model", "c45-mi", "--folds", "3", "--csv"]) == 0
    assert "per_fold" not in capsys.readouterr().out


def test_positive_class_option(tmp_path, capsys):
    from mil.cli._evaluate import make_cli_learner as _make_learner

    path = _write_csv(tmp_path / "w.csv", ["yes", "no"] * 8)
    assert main(["evaluate", "--dataset", path, "--model", "c45-mi", "--folds", "4", "--json",
                 "--positive-class", "no"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)[0]["positive_class"] == "no" and "note" not in captured.err
    assert _make_learner("c45-mi", "no", 0).positive_class == "no"
    assert main(["evaluate", "--dataset", path, "--positive-class", "maybe"]) == 2
    assert "--positive-class 'maybe' is not one of the labels of w.csv: 'no', 'yes'" in capsys.readouterr().err
    three = _write_csv(tmp_path / "three.csv", [0, 1, 2] * 5)
    assert main(["evaluate", "--dataset", three, "--positive-class", "1"]) == 2
    assert "--positive-class applies to two-class data" in capsys.readouterr().err


def test_a_learner_that_cannot_take_nan_is_skipped_and_the_others_go_on(tmp_path, capsys):
    path = _write_csv(tmp_path / "nan.csv", [1, 0] * 8, ids=[f"mol_{i}" for i in range(16)], nan_bag=5)
    assert main(["--dataset", path, "--folds", "4", "--quiet", "--model", "all"]) == 0  # every learner
    out = capsys.readouterr().out
    assert "c45-mi " in out and "id3-mi " in out  # the trees take NaN as missing
    skipped = [line for line in out.splitlines() if line.startswith("skipped ")]
    assert "skipped bag-knn: bag 'mol_5' of nan.csv contains NaN" in out  # the file's bag id
    assert len(skipped) < len(available_learners())


def test_three_classes_run_where_a_learner_can(tmp_path, capsys):
    path = _write_csv(tmp_path / "three.csv", [0, 1, 2] * 6)
    assert main(["evaluate", "--dataset", path, "--folds", "3", "--json",
                 "--model", "bag-knn", "citation-knn", "id3-mi"]) == 0
    records = _json(capsys)
    assert records["bag-knn"]["status"] == records["citation-knn"]["status"] == "ok"
    assert 0.0 <= records["bag-knn"]["auc_mean"] <= 1.0  # one-vs-rest AUC
    tree = records["id3-mi"]  # skipped with the reason, or run if the tree learns three classes
    assert (tree["status"], tree["reason"] is None) in {("ok", True), ("skipped", False)}


def test_no_learner_can_run_is_one_line_and_exit_2(tmp_path, capsys):
    path = _write_csv(tmp_path / "nan.csv", [1, 0] * 8, nan_bag=3)
    assert main(["evaluate", "--dataset", path, "--model", "bag-knn", "--folds", "4", "--quiet"]) == 2
    captured = capsys.readouterr()
    assert "skipped bag-knn: bag 'b3' of nan.csv contains NaN" in captured.out
    assert captured.err.count("\n") == 1 and "no learner could run on nan.csv" in captured.err


def test_infinity_in_a_file_names_the_bag(tmp_path, capsys):
    path = _write_csv(tmp_path / "inf.csv", [1, 0] * 8, ids=[f"mol_{i}" for i in range(16)], inf_bag=13)
    assert main(["evaluate", "--dataset", path, "--model", "c45-mi"]) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err and "bag 'mol_13' contains infinity" in err and err.count("\n") == 1


def test_csv_columns_and_delimiter_options(tmp_path, capsys):
    path = _write_csv(tmp_path / "semi.txt", [1, 0] * 8, delimiter=";", columns=("molecule", "active"))
    argv = ["evaluate", "--dataset", path, "--model", "c45-mi", "--folds", "4", "--json"]
    assert main(argv) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(argv + ["--bag-column", "molecule", "--label-column", "active", "--delimiter", ";"]) == 0
    assert _json(capsys)["c45-mi"]["status"] == "ok"
    tsv = _write_csv(tmp_path / "tab.tsv", [1, 0] * 8, delimiter="\t")
    assert main(["evaluate", "--dataset", tsv, "--model", "c45-mi", "--folds", "4", "--json"]) == 0
    capsys.readouterr()
    assert main(["evaluate", "--dataset", "musk1", "--bag-column", "id"]) == 2
    assert "--bag-column applies to CSV files" in capsys.readouterr().err
    assert main(["evaluate", "--dataset", path, "--delimiter", ";;"]) == 2
    assert "--delimiter must be one character" in capsys.readouterr().err


def test_folds_file_one_number_per_bag_in_file_order(tmp_path, capsys):
    from mil.cli import build_parser
    from mil.cli._planning import read_folds_file as _read_folds_file
    from mil.cli._reading import load as _load

    # The file lists bags in the order b3, b0, b2, b1, ... (the loader sorts them by id).
    order = [3, 0, 2, 1, 5, 4, 7, 6]
    path = _write_csv(tmp_path / "d.csv", [1, 0] * 4, order=order)
    folds = tmp_path / "folds.txt"
    folds.write_text("# one fold per bag\n" + "\n".join(str(k % 2) for k in range(8)) + "\n")
    data = _load(build_parser().parse_args(["evaluate", "--dataset", path]))
    table = _read_folds_file(str(folds), data)
    expected = np.empty(8, dtype=int)
    expected[order] = np.arange(8) % 2  # bag b<order[k]> gets fold k % 2
    np.testing.assert_array_equal(table, expected)
    assert main(["evaluate", "--dataset", path, "--model", "c45-mi", "--folds", str(folds), "--json"]) == 0
    record = _json(capsys)["c45-mi"]
    assert record["folds"] == 2 and record["fold_source"] == f"folds from {folds}"


def test_folds_file_bag_id_and_fold(tmp_path, capsys):
    from mil.cli import build_parser
    from mil.cli._planning import read_folds_file as _read_folds_file
    from mil.cli._reading import load as _load

    path = _write_csv(tmp_path / "d.csv", [1, 0] * 4)
    data = _load(build_parser().parse_args(["evaluate", "--dataset", path]))
    folds = tmp_path / "folds.csv"
    folds.write_text("bag,fold\n" + "\n".join(f"b{b},{7 + b % 3}" for b in (5, 1, 0, 2, 3, 4, 6, 7)) + "\n")
    np.testing.assert_array_equal(_read_folds_file(str(folds), data), 7 + np.arange(8) % 3)
    for text, message in [
        ("1\n2\n", "has 2 fold numbers but d.csv has 8 bags"),
        ("b0,1\nb9,2\n", "line 2: bag 'b9' is not in d.csv"),
        ("b0,1\nb1,2\n", "gives no fold to bag 'b2'"),
        ("b0,1\nb0,2\n", "bag 'b0' is given a fold twice"),
        ("\n".join(["1"] * 7 + ["x"]), "line 8: 'x' is not a fold number"),
        ("\n".join(["1"] * 8), "puts every bag in fold 1"),
        ("\n".join(["0", "1"] * 4), "the training bags of fold 0"),  # fold 0: every positive bag
    ]:
        folds.write_text(text)
        assert main(["evaluate", "--dataset", path, "--folds", str(folds)]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, (text, err)
    assert main(["evaluate", "--dataset", path, "--folds", "nofile.txt"]) == 2
    assert "neither a number of folds nor an existing file" in capsys.readouterr().err
    folds.write_text("\n".join(str(b % 2) for b in range(8)))
    assert main(["evaluate", "--dataset", path, "--folds", str(folds), "--repeats", "2"]) == 2
    assert "--repeats applies to random or published folds" in capsys.readouterr().err


def test_the_folds_used_are_said_exactly(capsys):
    base = ["evaluate", "--dataset", "musk1", "--model", "bag-knn", "--quiet"]
    assert main(base + ["--repeats", "6"]) == 0
    out = capsys.readouterr().out
    assert "6 x 10-fold" in out and "stratified random folds, seeds 0-5" in out
    assert "(published folds" not in out
    assert main(base + ["--repeats", "2", "--json"]) == 0
    assert _json(capsys)["bag-knn"]["fold_source"] == "published folds, repetitions 0-1"
    assert main(base + ["--folds", "3", "--seed", "7", "--json"]) == 0
    assert _json(capsys)["bag-knn"]["fold_source"].startswith("stratified random folds, seed 7")


def test_seed_reaches_the_randomised_learners_only():
    from mil.cli._evaluate import make_cli_learner as _make_learner

    assert _make_learner("gdbt-mi", None, 5).random_state == 5
    assert _make_learner("simplemi-rf", None, 5).estimator.random_state == 5
    assert _make_learner("c45-mi", None, 5).random_state is None  # deterministic: its default
    assert build_parser().parse_args(["evaluate"]).seed == 0
    assert build_parser().parse_args([]).seed == 0


def test_seed_option_makes_runs_reproducible(tmp_path, capsys):
    from mil import BagRandomTreesClassifier
    from mil.cli._reading import load as _load
    from mil.evaluation import evaluate, fold_indices

    path = _write_csv(tmp_path / "d.csv", [1, 0] * 8)
    base = ["evaluate", "--dataset", path, "--model", "blrt", "--folds", "4", "--json"]

    def run(*extra):
        assert main(base + list(extra)) == 0
        return [(f["accuracy"], f["auc"]) for f in _json(capsys)["blrt"]["per_fold"]]

    default = run()
    assert run() == default == run("--seed", "0")  # the default is seed 0, and runs repeat
    # --seed 1 draws the folds with seed 1 and seeds the learner with 1.
    data = _load(build_parser().parse_args(base))
    expected = evaluate(BagRandomTreesClassifier(random_state=1), data.bags, data.y,
                        fold_indices(data.y, 4, 1, seed=1))
    assert run("--seed", "1") == [(float(a), float(u)) for a, u in zip(expected["accuracy"], expected["auc"])]


def test_the_trees_give_their_defaults_numbers_with_any_seed(capsys):
    # A seed would make the trees break ties between features in a random order instead of by
    # the lowest index (random_state=None, their default): mil evaluate gives the numbers of
    # C45MIClassifier() as documented, whatever --seed says (it seeds the randomised learners).
    from mil import C45MIClassifier
    from mil.datasets import load_dataset
    from mil.evaluation import evaluate, fold_indices

    d = load_dataset("musk1")
    splits = fold_indices(d.target, 3, 1, 0)  # what --folds 3 draws with the fold seed 0
    expected = {rs: evaluate(C45MIClassifier(random_state=rs), d.bags, d.target, splits)["accuracy"].mean()
                for rs in (None, 0)}
    assert expected[None] != expected[0]  # the tie order matters on these folds
    base = ["evaluate", "--dataset", "musk1", "--folds", "3", "--model", "c45-mi", "--json"]
    assert main(base) == 0
    assert _json(capsys)["c45-mi"]["accuracy_mean"] == pytest.approx(expected[None], abs=1e-12)
    assert main(base + ["--seed", "0"]) == 0
    assert _json(capsys)["c45-mi"]["accuracy_mean"] == pytest.approx(expected[None], abs=1e-12)


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"mil {__import__('mil').__version__} (scikit-mil)"


def test_no_plot_unless_plot_dir(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    # GDBT-MI is the learner with a plot (its error against the rounds).
    assert main(["reproduce", "trees", "--quick", "--json", "--seeds", "1", "--learners", "gdbt-mi"]) == 0
    assert main(["reproduce", "distances", "--quick", "--quiet"]) == 0
    assert main(["--model", "bag-knn", "--folds", "3", "--quiet"]) == 0
    assert list(tmp_path.iterdir()) == []
    out = "".join(capsys.readouterr())
    assert "plot written" not in out
    assert "(for the references / sigma plot as a PNG file, add --plot-dir DIR)" in out


# -- progress -----------------------------------------------------------------

class _Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_lines_with_time_left_when_not_a_terminal():
    from mil._progress import Progress

    stream, clock = io.StringIO(), _Clock()
    with Progress(10, stream=stream, interval=10, clock=clock) as bar:
        bar.set_label("c45-mi")
        for _ in range(4):
            clock.now += 4.0
            bar()
        bar.skip(2)  # a skipped learner's folds leave the total
    lines = stream.getvalue().splitlines()
    # One line after 12 s (3 steps of 4 s), the next 10 s later would be at 24 s: not reached.
    assert lines[0] == "mil: c45-mi: 3/10 (30 %), 12 s elapsed, about 28 s left"
    assert lines[-1] == "mil: done, 16 s" and len(lines) == 2
    assert bar.total == 8


def test_progress_bar_on_a_terminal_and_silence_when_disabled(monkeypatch):
    from mil._progress import Progress, format_duration

    # The line fits the terminal; a worker process of pytest-xdist may report a narrow one.
    monkeypatch.setenv("COLUMNS", "120")

    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream, clock = Tty(), _Clock()
    bar = Progress(4, label="bag-knn", stream=stream, clock=clock)
    clock.now = 90.0
    bar()
    assert "1/4 (25 %), 1 min 30 s elapsed, about 4 min 30 s left" in stream.getvalue()
    assert "\r" in stream.getvalue() and "\n" not in stream.getvalue()
    quiet = io.StringIO()
    with Progress(4, enabled=False, stream=quiet, interval=0) as off:
        off()
    assert quiet.getvalue() == ""
    assert format_duration(3725) == "1 h 02 min"


def test_progress_times_the_rest_of_a_learner_at_its_own_pace():
    from mil._progress import Progress

    clock = _Clock()
    bar = Progress(20, stream=io.StringIO(), enabled=False, clock=clock)
    bar.set_label("bag-knn", 10)
    for _ in range(10):
        clock.now += 1.0
        bar()
    bar.set_label("gdbt-mi", 10)
    for _ in range(2):
        clock.now += 20.0
        bar()
    # 8 gdbt-mi folds left at 20 s each (not at the 50 s / 12 steps of the whole run).
    assert bar.status().endswith("about 2 min 40 s left")


def test_folds_file_with_integer_ids_and_a_header(tmp_path, capsys):
    from mil.cli import build_parser
    from mil.cli._planning import read_folds_file as _read_folds_file
    from mil.cli._reading import load as _load

    path = _write_csv(tmp_path / "d.csv", [1, 0] * 4, ids=list(range(10, 18)), order=[7, 6, 5, 4, 3, 2, 1, 0])
    data = _load(build_parser().parse_args(["evaluate", "--dataset", path]))
    folds = tmp_path / "folds.csv"
    folds.write_text("molecule;fold\n" + "\n".join(f"0{10 + b};{b // 2 % 2}" for b in range(8)))
    np.testing.assert_array_equal(_read_folds_file(str(folds), data), np.arange(8) // 2 % 2)
    folds.write_text("fold\n" + "\n".join(str(b // 2 % 3) for b in range(8)))  # file order: bag 17 first
    np.testing.assert_array_equal(_read_folds_file(str(folds), data), (7 - np.arange(8)) // 2 % 3)


def test_progress_heartbeat_reports_during_a_long_step():
    import time

    from mil._progress import Progress

    stream = io.StringIO()
    with Progress(2, label="gdbt-mi", stream=stream, interval=0.2) as bar:
        time.sleep(1.5)  # one long step: the background thread still writes a line
        bar()
    lines = stream.getvalue().splitlines()
    assert sum(line.startswith("mil: gdbt-mi: 0/2 (0 %), ") for line in lines) >= 2
    assert lines[-1].startswith("mil: done")


def test_a_learner_missing_from_the_installation_is_skipped(tmp_path, monkeypatch, capsys):
    import mil._learners as registry

    row = registry.LEARNERS["c45-mi"]
    monkeypatch.setitem(registry.LEARNERS, "c45-mi", row._replace(requires="mil_no_such_module"))
    path = _write_csv(tmp_path / "d.csv", [1, 0] * 8)
    assert main(["evaluate", "--dataset", path, "--model", "c45-mi", "bag-knn", "--folds", "4", "--json"]) == 0
    records = _json(capsys)
    assert records["c45-mi"]["reason"].startswith("learner 'c45-mi' is not available in this installation: "
                                                  "it needs the mil_no_such_module package")
    assert records["bag-knn"]["status"] == "ok"
    assert list(records) == ["c45-mi", "bag-knn"]  # the order asked for, skipped or not


@pytest.mark.parametrize("argv, message", [
    (["evaluate", "--repeats", "x"], "argument --repeats: invalid int value: 'x'"),
    (["evaluate", "--unknown"], "unrecognized arguments: --unknown"),
    (["reproduce", "forest"], "invalid choice: 'forest'"),
])
def test_option_errors_are_one_line(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and message in err and "--help)" in err


def test_evaluate_reports_log_loss_against_the_constant_prior(capsys):
    # Musk1's published folds: the neighbour classifiers' smoothed vote shares
    # must beat predicting the training class frequencies.
    assert main(["evaluate", "--dataset", "musk1", "--model", "citation-knn", "bag-knn", "--json"]) == 0
    records = _json(capsys)
    for r in records.values():
        assert r["prior_log_loss_mean"] == pytest.approx(0.69, abs=0.01)
        assert r["log_loss_mean"] < r["prior_log_loss_mean"]
    assert main(["evaluate", "--dataset", "musk1", "--model", "bag-knn"]) == 0
    out = capsys.readouterr().out
    assert "log loss" in out and "constant prior" in out


def test_fold_log_losses_by_hand():
    from mil.evaluation import _log_losses

    proba = np.array([[0.25, 0.75], [0.5, 0.5]])  # a fitted estimator's probabilities
    y_train, y_test = np.array([0, 0, 0, 1]), np.array([1, 0])
    loss, prior = _log_losses(np.array([0, 1]), y_train, y_test, proba)
    assert loss == pytest.approx(-(np.log(0.75) + np.log(0.5)) / 2)
    assert prior == pytest.approx(-(np.log(0.25) + np.log(0.75)) / 2)
    assert np.isnan(_log_losses(np.array([0, 1]), y_train, y_test, None)[0])  # no predict_proba


def test_progress_plan_times_each_learner_by_its_own_fold_cost():
    from mil._progress import Progress

    clock = _Clock()
    bar = Progress(8, stream=io.StringIO(), enabled=False, clock=clock,
                   pending="time left known after one fold of each learner")
    for _ in range(2):  # one fold of each of two learners: 1 s and 10 s
        clock.now += 5.5
        bar()
    assert bar.status().endswith("11 s elapsed, time left known after one fold of each learner")
    bar.plan([1.0] * 3 + [10.0] * 3, ["bag-knn"] * 3 + ["gdbt-mi"] * 3)
    assert bar.status().endswith("about 33 s left")  # 3 x 1 s + 3 x 10 s, as measured
    clock.now += 0.5  # bag-knn's later folds take half its first one (a shared cache) ...
    bar()
    assert bar.status().endswith("about 31 s left")  # ... which is not carried over to gdbt-mi
    clock.now += 0.25  # a quarter second into the next fold
    assert bar.status().endswith("about 31 s left")  # 30.75 s
    clock.now += 0.75
    bar(2)
    clock.now += 4.0  # 4 s into gdbt-mi's first planned fold of 10 s
    assert bar.status().endswith("about 26 s left")
    clock.now += 6.0
    bar()
    bar.skip(2)  # gdbt-mi gave up on the rest: nothing planned is left
    assert bar.total == 6 and bar.status() == "6/6 (100 %), 22 s elapsed"
    with pytest.raises(ValueError, match="3 sizes but 2 groups"):
        bar.plan([1, 2, 3], ["a", "b"])
    bar.plan([0.2], ["a"])
    bar.total = 7
    assert bar.status().endswith("under 1 s left")


def test_evaluate_runs_one_fold_of_each_learner_first_with_the_same_results(tmp_path, monkeypatch, capsys):
    import mil.cli._evaluate
    import mil.evaluation
    from mil.cli._evaluate import make_cli_learner as _make_learner, run_learners as _run_learners
    from mil.cli._planning import plan_folds as _plan_folds
    from mil.cli._reading import load as _load

    path = _write_csv(tmp_path / "d.csv", [1, 0] * 8)
    args = build_parser().parse_args(["evaluate", "--dataset", path, "--folds", "4"])
    data = _load(args)
    splits = _plan_folds(args, data)[0]
    calls = []
    real = mil.evaluation.evaluate

    def spy(est, X, y, splits, **kwargs):
        calls.append((type(est).__name__, len(splits)))
        if type(est).__name__ == "CitationKNNClassifier" and len(splits) > 1:
            raise ValueError("a later fold this learner cannot take")
        return real(est, X, y, splits, **kwargs)

    monkeypatch.setattr(mil.cli._evaluate, "evaluate", spy)

    class Bar:  # records what the progress is told
        done, clock = 0, staticmethod(lambda: 0.0)

        def __init__(self):
            self.plans, self.skips = [], []

        def __call__(self, steps=1):
            self.done += steps

        def set_label(self, label, steps=None):
            pass

        def skip(self, steps):
            self.skips.append(steps)

        def plan(self, sizes, groups):
            self.plans.append(list(groups))

    bar = Bar()
    results, skipped = _run_learners(["citation-knn", "c45-mi", "bag-knn"], data, splits, None, args, bar)
    # First one fold of each, then the other three folds learner by learner.
    assert calls == [("CitationKNNClassifier", 1), ("C45MIClassifier", 1), ("BagKNNClassifier", 1),
                     ("CitationKNNClassifier", 3), ("C45MIClassifier", 3), ("BagKNNClassifier", 3)]
    assert bar.plans == [["citation-knn"] * 3 + ["c45-mi"] * 3 + ["bag-knn"] * 3]
    assert skipped == [("citation-knn", "a later fold this learner cannot take")] and bar.skips == [3]
    for learner, res in results:  # the same as one evaluate over all the folds
        whole = real(_make_learner(learner, None, args.seed), data.bags, data.y, splits)
        for key in ("accuracy", "auc", "log_loss", "prior_log_loss"):
            np.testing.assert_array_equal(res[key], whole[key])
        assert len(res["fit_time"]) == 4


@pytest.mark.skipif("recommended" not in available_learners(), reason="POT is not installed")
def test_evaluate_runs_the_recommended_vote(tmp_path, capsys):
    path = _write_csv(tmp_path / "r.csv", ["yes", "no"] * 10)
    assert main(["evaluate", "--dataset", path, "--model", "recommended", "--folds", "3", "--json",
                 "--positive-class", "yes"]) == 0
    record = _json(capsys)["recommended"]
    assert record["status"] == "ok" and record["folds"] == 3 and record["auc_mean"] is not None
    assert 0.0 <= record["accuracy_mean"] <= 1.0


def test_learner_names_ignore_case_and_suggest(capsys):
    assert main(["evaluate", "--model", "mnid"]) == 2
    err = capsys.readouterr().err
    assert "unknown learner 'mnid'; did you mean mind?" in err and err.count("\n") == 1
    from mil.cli._evaluate import learner_names

    assert learner_names(["MInD", "Citation_KNN", "mind"]) == ["mind", "citation-knn"]
    assert learner_names(["MI-svm"]) == ["mi-svm-bag"]
    assert "'MI-svm' is deprecated" in capsys.readouterr().err


@pytest.mark.parametrize("name, what", [("bags.json", "JSON"), ("bags.xlsx", "Excel")])
def test_a_file_of_another_format_says_what_is_read(tmp_path, capsys, name, what):
    path = tmp_path / name
    path.write_text('{"bag": [1, 2], "label": [0, 1]}' + " " * 3000)
    assert main(["evaluate", "--dataset", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"is a {what} file; --dataset reads" in err and "ARFF" in err and "CSV" in err
    assert err.count("\n") == 1 and len(err) < 400


def test_a_text_file_without_the_columns_gets_a_short_error(tmp_path, capsys):
    path = tmp_path / "bags.txt"
    path.write_text("x" * 2000 + "\n1\n")
    assert main(["evaluate", "--dataset", str(path)]) == 2
    err = capsys.readouterr().err
    assert "--dataset reads" in err and len(err) < 700


def test_auc_is_printed_in_percent_as_accuracy(tmp_path, capsys):
    path = _write_csv(tmp_path / "d.csv", [1, 0] * 8)
    assert main(["evaluate", "--dataset", path, "--model", "bag-knn", "--folds", "4", "--quiet"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("learner"))
    assert "accuracy %" in header and "AUC %" in header
    row = next(line for line in out.splitlines() if line.startswith("bag-knn")).split()
    assert 0 <= float(row[4]) <= 100 and "." in row[4] and len(row[4].split(".")[1]) == 1


def test_info_says_which_kernels_are_compiled_and_no_build_tool_is_missing(capsys):
    from mil._core import BACKENDS

    assert main(["info"]) == 0
    out = capsys.readouterr().out
    compiled = sum(s["active"] == "compiled" for s in BACKENDS.values())
    assert ("kernels: all" if compiled == len(BACKENDS) else f"kernels: {compiled} of") in out
    assert "Cython not installed" not in out and "dependencies: numpy" in out and "pot" in out


def test_pot_installs_with_mil_and_its_absence_is_said(monkeypatch):
    # The README's first advice (recommended, emd-svm) needs POT: a run-time dependency.
    import pathlib

    try:
        import tomllib
    except ImportError:  # Python 3.10
        pytest.skip("tomllib is Python 3.11+")
    pyproject = pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip("no pyproject.toml beside the tests")
    deps = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    assert any(d.replace(" ", "").lower().startswith("pot>=") for d in deps)
    import mil._learners as registry

    monkeypatch.setitem(sys.modules, "ot", None)
    assert "recommended" not in registry.available_learners()
    with pytest.raises(ValueError, match=r"needs the pot package \(pip install pot"):
        registry.make_learner("emd-svm")


@pytest.mark.parametrize("width", [200, 100, 80, 70, 60, 50, 40, 30, 12])
def test_progress_line_fits_the_terminal_and_is_cut_between_words(width):
    from mil._progress import fit_line

    status = "12/70 (17 %), 23 s elapsed, about 1 min 40 s left"
    line = fit_line("miwrapper-hgb (fold 1)", 0.3, status, width)
    assert len(line) <= width
    words = set("miwrapper-hgb (fold 1) 12/70 (17 %) 23 s elapsed about 1 min 40 s left".split())
    for word in line.replace("…", " ").replace("[", " ").replace("]", " ").split():
        assert word.strip("#") == "" or word in words or word.rstrip(",") in words or "miwrapper-hgb".startswith(word)
    if width >= 70:
        assert line.endswith("about 1 min 40 s left")


class _MeanRidge:
    """A bag regressor for the tests: ridge regression on each bag's mean instance."""

    _estimator_type = "regressor"

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def get_params(self, deep=True):
        return {"alpha": self.alpha}

    def set_params(self, **params):
        self.alpha = params.get("alpha", self.alpha)
        return self

    def __sklearn_tags__(self):
        from sklearn.utils import Tags, TargetTags

        return Tags(estimator_type="regressor", target_tags=TargetTags(required=True))

    def _means(self, X):
        return np.array([np.asarray(b).mean(axis=0) for b in X])

    def fit(self, X, y):
        from sklearn.linear_model import Ridge

        self.model_ = Ridge(alpha=self.alpha).fit(self._means(X), np.asarray(y, dtype=float))
        return self

    def predict(self, X):
        return self.model_.predict(self._means(X))


def _regression_csv(path, n_bags=120, integer=False):
    rng = np.random.default_rng(0)
    lines = ["bag,label,x1,x2"]
    for b in range(n_bags):
        y = int(rng.integers(0, 1000)) if integer else rng.uniform(0, 10)
        for _ in range(3):
            lines.append(f"b{b},{y if integer else format(y, '.3f')},{y / 2 + 0.5 * rng.normal():.4f},{rng.normal():.4f}")
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.fixture
def a_regressor(monkeypatch):
    import mil._learners as registry
    import mil.cli._evaluate as evaluate_module

    monkeypatch.setitem(registry.LEARNERS, "mean-ridge",
                        registry.Learner(_MeanRidge, {}, None, "ridge on bag means (tests)", "regression"))
    monkeypatch.setattr(evaluate_module, "DEFAULT_REGRESSION_JOB", ("mean-ridge",))
    return "mean-ridge"


def test_real_valued_labels_are_a_regression_said_and_scored(tmp_path, capsys, a_regressor):
    path = _regression_csv(tmp_path / "reg.csv")
    assert main(["evaluate", "--dataset", path, "--model", a_regressor, "c45-mi", "--folds", "5"]) == 0
    captured = capsys.readouterr()
    assert "are real numbers (119 distinct values" in captured.err and "a regression" in captured.err
    header = next(line for line in captured.out.splitlines() if line.startswith("learner"))
    assert header.split()[:4] == ["learner", "RMSE", "MAE", "R^2"]
    row = next(line for line in captured.out.splitlines() if line.startswith("mean-ridge")).split()
    assert float(row[1]) < 2.0 and 0.5 < float(row[5]) <= 1.0  # RMSE below the labels' spread; R^2
    assert "skipped c45-mi: a classifier, and the labels are real values (a regression)" in captured.out
    assert "shuffled random folds, seed 0" in captured.out and "RMSE" in captured.out


def test_regression_json_per_fold_and_the_default_regression_job(tmp_path, capsys, a_regressor):
    path = _regression_csv(tmp_path / "reg.csv")
    assert main(["evaluate", "--dataset", path, "--folds", "4", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["learner"] for r in records] == ["mean-ridge"]
    r = records[0]
    assert r["task"] == "regression" and r["rmse_mean"] < r["prior_rmse_mean"]
    assert len(r["per_fold"]) == 4 and {"rmse", "mae", "r2"} <= set(r["per_fold"][0])


def test_many_integer_labels_ask_for_the_task_in_one_line(tmp_path, capsys, a_regressor):
    path = _regression_csv(tmp_path / "ints.csv", integer=True)
    assert main(["evaluate", "--dataset", path]) == 2
    err = capsys.readouterr().err
    assert "pass --task regression" in err and err.count("\n") == 1
    assert main(["evaluate", "--dataset", path, "--task", "regression", "--folds", "3", "--quiet"]) == 0
    assert main(["evaluate", "--dataset", _write_csv(tmp_path / "w.csv", ["yes", "no"] * 4), "--task",
                 "regression"]) == 2
    assert "--task regression needs numeric labels" in capsys.readouterr().err


def test_the_cost_model_range_and_the_quadratic_warning(monkeypatch):
    import mil._costs as costs

    model = {"a": 1e-8, "p": 2.0, "q": 1.0, "spread": 1.8, "max_measured_instances": 250_000}
    monkeypatch.setitem(costs.COST_MODEL, "mind", model)
    assert costs.fold_seconds("mind", 10_000, 64) == pytest.approx(1e-8 * 10_000 ** 2 * 2)
    low, high = costs.fold_range("mind", 10_000, 64)
    assert low == pytest.approx(2 / 1.8) and high == pytest.approx(2 * 1.8)
    low, high = costs.fold_range("mind", 16 * 250_000, 32)  # 16 times the largest measured: twice as wide
    assert high / low == pytest.approx((2 * 1.8) ** 2)
    assert costs.growth("mind") == 2.0
    assert costs.scaling_warning("mind", 10_000, 64) is None  # 2 s a fold: no warning
    text = costs.scaling_warning("mind", 200_000, 32)
    assert "power 2.0" in text and "mi-vlad or nystroem-nsk grow linearly" in text
    # A learner of the model that grows linearly is never warned about.
    monkeypatch.setitem(costs.COST_MODEL, "blrt", {**model, "p": 1.0, "a": 1e-3})
    assert costs.scaling_warning("blrt", 10 ** 7, 32) is None


def test_the_cost_model_scales_by_the_mean_bag_size_at_the_features_it_was_measured(monkeypatch):
    import mil._costs as costs

    law = {"a": 1e-6, "p": 1.0, "q": 1.0, "spread": 1.5, "max_measured_instances": 10 ** 6,
           "bag_rate": [[32, -1.0], [768, 0.5]]}
    assert costs.bag_exponent(law, 32) == -1.0 and costs.bag_exponent(law, 768) == 0.5
    assert costs.bag_exponent(law, 8) == -1.0 and costs.bag_exponent(law, 4096) == 0.5  # the nearest beyond them
    assert costs.bag_exponent(law, (32 * 768) ** 0.5) == pytest.approx(-0.25)  # halfway in log features
    assert costs.bag_exponent({"a": 1.0, "p": 1.0, "q": 1.0}, 768) == 0.0
    base = 1e-6 * 200_000 * 1  # 200,000 instances x 32 features
    assert costs.law_seconds(law, 200_000, 32) == pytest.approx(base)  # no bag count: bags of 20
    assert costs.law_seconds(law, 200_000, 32, n_bags=10_000) == pytest.approx(base)  # 20 a bag
    assert costs.law_seconds(law, 200_000, 32, n_bags=1_000) == pytest.approx(base / 10)  # 200 a bag: 10**-1
    assert costs.law_seconds(law, 200_000, 768, n_bags=200) == pytest.approx(base * 24 * 50 ** 0.5)
    monkeypatch.setitem(costs.COST_MODEL, "blrt", law)
    assert costs.fold_seconds("blrt", 200_000, 32, 1_000) == pytest.approx(base / 10)
    assert costs.fold_range("blrt", 200_000, 32, 1_000)[1] == pytest.approx(base / 10 * 1.5)
    assert costs.estimate_seconds(["blrt"], 200_000, 32, 10, n_bags=1_000)[0] == pytest.approx(base)


def test_the_cost_benchmark_fits_the_bag_rates_of_a_known_law():
    # benchmarks/bench_cost_model.py's fit on folds made from a known law: it recovers the law.
    import mil._costs as costs

    bench = _cost_benchmark()
    law = {"a": 2e-6, "p": 1.2, "q": 0.8, "bag_rate": [[32, -0.5], [768, 0.3]]}
    sizes = [(4_000, 32, 20), (32_000, 32, 20), (250_000, 32, 20), (32_000, 8, 20), (32_000, 128, 20),
             (32_000, 768, 20), (32_000, 32, 200), (32_000, 768, 200), (150_000, 768, 1000)]
    records = [{"learner": "blrt", "n_instances": n, "n_features": d, "n_bags": n // m,
                "cpu_s": costs.law_seconds(law, n, d, n // m)} for n, d, m in sizes]
    fitted = bench.fit(records)["blrt"]
    assert fitted["p"] == pytest.approx(1.2, abs=1e-3) and fitted["q"] == pytest.approx(0.8, abs=1e-3)
    assert fitted["a"] == pytest.approx(2e-6, rel=1e-2)
    assert fitted["bag_rate"] == [[32, pytest.approx(-0.5, abs=1e-3)], [768, pytest.approx(0.3, abs=1e-3)]]
    assert fitted["spread"] == pytest.approx(1.0, abs=0.01)
    # Records without a bag count are bags of 20: no bag rate.
    plain = [{k: v for k, v in r.items() if k != "n_bags"} for r in records[:6]]
    assert "bag_rate" not in bench.fit(plain)["blrt"]


def test_the_shipped_model_has_bag_rates_at_32_and_768_features():
    import mil._costs as costs
    from mil._learners import LEARNERS

    for name, law in costs.COST_MODEL.items():
        if LEARNERS[name].task == "regression":
            assert "bag_rate" not in law, name  # measured on bags of 20 only
            continue
        assert [d for d, _ in law["bag_rate"]] == [32, 768], name
        if "graph" in law:  # the neighbour learners' graph search
            assert [d for d, _ in law["graph"]["bag_rate"]] == [32, 768], name
    # Each fold measured on larger bags is within its law's spread of the law (the ranges mil prints).
    path = os.path.join(os.path.dirname(costs.__file__), "_cost_model.json")
    with open(path, encoding="utf-8") as fh:
        measured = [r for r in json.load(fh)["measurements"] if "n_bags" in r]
    assert {round(r["n_instances"] / r["n_bags"], -1) for r in measured} == {200, 1020}
    for r in measured:
        law = costs.COST_MODEL[r["learner"]]
        law = law["graph"] if r.get("search") == "hnsw" else law
        ratio = r["cpu_s"] / costs.law_seconds(law, r["n_instances"], r["n_features"], r["n_bags"])
        assert 0.99 / law["spread"] <= ratio <= law["spread"] * 1.01, r  # spreads are rounded to 0.01


def _cost_benchmark():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_cost_model.py"
    spec = importlib.util.spec_from_file_location("bench_cost_model", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_the_memory_warning_counts_the_pair_matrices_of_the_folds_run_at_once(monkeypatch):
    import mil._costs as costs
    from mil.ensemble._recommended import RECOMMENDED_MEMBERS

    monkeypatch.setitem(costs.PAIR_MEMORY, "swe-svm", {"pair_matrices": 2.0, "max_measured_bags": 4000})
    assert costs.pair_memory_bytes("swe-svm", 1000) == 2.0 * 8 * 1000 ** 2  # 16 MB
    assert costs.pair_memory_bytes("blrt", 1000) is None  # no matrices over pairs of bags
    # Below half of the memory: nothing; above half: the share; above all of it: said so.
    assert costs.memory_warning("swe-svm", 1000, physical=40e6) is None
    text = costs.memory_warning("swe-svm", 1000, physical=30e6)
    assert text.startswith("swe-svm holds matrices over every pair of its 1000 training bags: "
                           "about 15 MB of this machine's 29 MB;")
    assert "more than" not in text and text.endswith("; mi-vlad needs no such matrices")
    text = costs.memory_warning("swe-svm", 1000, workers=2, physical=30e6)
    assert "about 31 MB (2 folds at once), more than this machine's 29 MB of memory;" in text
    # Memory unknown: from 8 GiB.
    assert costs.memory_warning("swe-svm", 20_000, physical=0) is None  # 6.4 GB
    assert "about 18 GB (3 folds at once);" in costs.memory_warning("swe-svm", 20_000, workers=3, physical=0)
    # The vote fits its members one after the other: the largest member's.
    for member in RECOMMENDED_MEMBERS:
        monkeypatch.setitem(costs.PAIR_MEMORY, member, {"pair_matrices": 1.0 + len(member), "max_measured_bags": 4000})
    monkeypatch.delitem(costs.PAIR_MEMORY, "recommended", raising=False)
    most = max(1.0 + len(m) for m in RECOMMENDED_MEMBERS)
    assert costs.pair_memory_bytes("recommended", 10) == most * 8 * 100


def test_the_estimate_warns_before_a_job_whose_pair_matrices_fill_the_memory(monkeypatch):
    import mil._costs as costs
    from mil.cli._evaluate import estimate_note as _estimate_note
    from mil.cli._reading import load as _load

    data = _load(build_parser().parse_args(["evaluate", "--dataset", "musk1"]))
    splits = [(np.arange(82), np.arange(82, 92))] * 10
    monkeypatch.setitem(costs.PAIR_MEMORY, "swe-svm", {"pair_matrices": 5.0, "max_measured_bags": 4000})
    monkeypatch.setattr(costs, "physical_memory_bytes", lambda: 2 * 5.0 * 8 * 82 ** 2 - 1)
    note = _estimate_note(["swe-svm", "blrt"], data, splits, 1)
    assert "mil: warning: swe-svm holds matrices over every pair of its 82 training bags" in note
    assert "blrt holds" not in note
    monkeypatch.setattr(costs, "physical_memory_bytes", lambda: 2 * 5.0 * 8 * 82 ** 2 + 1)
    assert "holds matrices" not in _estimate_note(["swe-svm", "blrt"], data, splits, 1)


def test_the_cost_benchmark_counts_the_pair_matrices_only_where_memory_grows_as_the_square():
    bench = _cost_benchmark()

    def record(name, n_bags, mb):
        return {"learner": name, "n_bags": n_bags, "n_train_bags": n_bags - n_bags // 10, "anon_peak_mb": mb}

    square = [record("swe-svm", n, 30 + 3.0 * 8 * (n - n // 10) ** 2 / 2**20) for n in (1000, 2000, 4000)]
    linear = [record("blrt", n, 0.05 * n) for n in (1000, 2000, 4000)]  # 200 MB at 4,000 bags, linear
    small = [record("c45-mi", n, 1e-5 * n * n) for n in (1000, 2000, 4000)]  # square, but 160 MB at most...
    small[-1]["anon_peak_mb"] = 60.0  # ... and under 64 MB at the largest: noise
    # square up to a size where it changes its method (MILES's k-means concepts): judged on the largest
    switched = [record("miles", n, mb) for n, mb in ((1000, 140.0), (2000, 500.0), (4000, 150.0))]
    # square at small sizes, then blocks that stop growing: judged on the two largest counts
    capped = [record("citation-knn", n, mb) for n, mb in ((1000, 15.0), (2000, 78.0), (4000, 197.0), (8000, 300.0))]
    fitted = bench.fit_memory(square + linear + small + switched + capped)
    assert list(fitted) == ["swe-svm"]
    assert fitted["swe-svm"]["max_measured_bags"] == 4000
    # the peak at the largest count in matrices of 3,600 x 3,600: 3 and the fixed 30 MB (errs high)
    assert fitted["swe-svm"]["pair_matrices"] == pytest.approx(3.0 + 30 * 2**20 / (8 * 3600 ** 2), abs=0.01)


def test_the_shipped_model_holds_the_pair_matrices_of_the_learners_that_compare_every_pair_of_bags():
    import mil._costs as costs

    path = os.path.join(os.path.dirname(costs.__file__), "_cost_model.json")
    with open(path, encoding="utf-8") as fh:
        shipped = json.load(fh)
    assert _cost_benchmark().fit_memory(shipped["memory_measurements"]) == shipped["memory"] == costs.PAIR_MEMORY
    # the bag-kernel SVMs, MInD and the sliced-Wasserstein SVM hold n x n matrices; the bag encoders do
    # not, nor the neighbour classifiers' blocked search on the minimal distance
    assert {"nsk-svm", "migraph-svm", "emd-svm", "mind", "swe-svm"} <= set(costs.PAIR_MEMORY)
    assert not {"mi-vlad", "mi-fv", "nystroem-nsk", "blrt", "miles", "citation-knn", "bag-knn"} & set(costs.PAIR_MEMORY)
    for entry in costs.PAIR_MEMORY.values():
        assert entry["pair_matrices"] >= 0.5 and entry["max_measured_bags"] >= 2000


@pytest.mark.parametrize("name", ["citation-knn", "bag-knn"])
def test_the_neighbour_learners_cost_the_graph_search_where_auto_chooses_it(monkeypatch, name):
    import mil._costs as costs
    from mil.neighbors._base import AUTO_GRAPH_MIN_INSTANCES

    exact = {"a": 1e-8, "p": 2.0, "q": 0.5, "spread": 1.3, "max_measured_instances": 250_000}
    graph = {"a": 1e-4, "p": 1.2, "q": 1.0, "spread": 1.6, "max_measured_instances": 1_000_000}
    monkeypatch.setitem(costs.COST_MODEL, name, {**exact, "graph": graph})
    monkeypatch.setattr(costs, "graph_available", lambda: True)
    large = int(AUTO_GRAPH_MIN_INSTANCES / costs.TRAIN_SHARE) + 1  # a fold trains on more than the threshold
    assert costs.fold_seconds(name, large, 64) == pytest.approx(1e-4 * large ** 1.2 * 2)
    assert costs.fold_range(name, large, 64)[1] == pytest.approx(1e-4 * large ** 1.2 * 2 * 1.6)
    assert costs.growth(name, large) == 1.2 and costs.scaling_warning(name, large, 768) is None
    small = large - 2  # below it: the exact search
    assert costs.fold_seconds(name, small, 64) == pytest.approx(1e-8 * small ** 2 * 2 ** 0.5)
    assert costs.growth(name, small) == 2.0
    # Without faiss, "auto" stays exact at every size, and so does the estimate.
    monkeypatch.setattr(costs, "graph_available", lambda: False)
    assert costs.fold_seconds(name, large, 64) == pytest.approx(1e-8 * large ** 2 * 2 ** 0.5)
    assert "power 2.0" in costs.scaling_warning(name, large, 768)


def test_the_shipped_model_has_the_graph_search_of_the_neighbour_learners():
    import mil._costs as costs

    for name in ("citation-knn", "bag-knn"):
        graph = costs.COST_MODEL[name]["graph"]
        assert graph["p"] < costs.QUADRATIC <= costs.COST_MODEL[name]["p"], name
        assert graph["max_measured_instances"] > 900_000  # measured up to about a million instances


def test_a_cached_learner_pays_for_its_pairs_once_per_worker(monkeypatch):
    import mil._costs as costs
    from mil.svm._kernels import EMD_CACHE_SIZE

    monkeypatch.setitem(costs.COST_MODEL, "emd-svm", {"a": 1.0, "p": 0.0, "q": 0.0, "spread": 1.5,
                                                     "max_measured_instances": 10 ** 6})
    monkeypatch.setitem(costs.CACHED_PAIRS, "emd-svm", 0.1)
    full = costs.estimate_seconds(["emd-svm"], 4000, 32, 10)[0]
    assert full == pytest.approx(10.0)  # no bag count: every fold in full
    assert costs.estimate_seconds(["emd-svm"], 4000, 32, 10, n_bags=200)[0] == pytest.approx(1 + 9 * 0.1)
    # two workers: each computes the pairs once, then 4 cheap folds
    assert costs.estimate_seconds(["emd-svm"], 4000, 32, 10, workers=2, n_bags=200)[0] == pytest.approx(1 + 4 * 0.1)
    # pairs beyond the cache: every fold in full
    too_many = int((2 * EMD_CACHE_SIZE) ** 0.5) + 2
    assert costs.estimate_seconds(["emd-svm"], 4000, 32, 10, n_bags=too_many)[0] == pytest.approx(10.0)
    low, high = (costs.estimate_seconds(["emd-svm"], 4000, 32, 10, bound=b, n_bags=200)[0] for b in ("low", "high"))
    assert low == pytest.approx(1.9 / 1.5) and high == pytest.approx(1.9 * 1.5)
    # the vote holds it: its estimate is its members' jobs
    vote = costs.estimate_seconds(["recommended"], 4000, 32, 10, n_bags=200)[0]
    assert vote == pytest.approx(sum(costs.estimate_seconds([m], 4000, 32, 10, n_bags=200)[0]
                                     for m in costs.RECOMMENDED_MEMBERS))


def test_pairwise_learners_grow_as_the_square_beyond_the_reference_sets(monkeypatch):
    import mil._costs as costs

    monkeypatch.setattr(costs, "graph_available", lambda: False)  # the neighbour learners' exact search

    n3, d3 = costs.REFERENCES["musk2"][1:3]
    for name in sorted(costs.PAIRWISE - set(costs.COST_MODEL)):
        at_musk2 = costs.reference_fold_seconds(name, n3, d3)
        assert costs.reference_fold_seconds(name, 4 * n3, d3) == pytest.approx(16 * at_musk2), name
        assert costs.growth(name) >= 2.0, name
    # Below the largest reference set the model through the three points is kept.
    (_, _, t1), (n2, d2, t2), _ = [(r[1], r[2], t) for r, t in zip(costs.REFERENCES.values(),
                                                                   costs.FOLD_SECONDS["mind"])]
    assert costs.reference_fold_seconds("mind", n2, d2) == pytest.approx(t2, rel=1.0)
    # A learner outside PAIRWISE keeps its fitted exponent.
    assert costs.growth("mi-vlad") < costs.QUADRATIC
    # The vote costs its members' sum and grows as its fastest-growing member.
    n, d = 147_176, 768  # the training bags of make_foundation_bags(200)
    assert costs.fold_seconds("recommended", n, d) == pytest.approx(
        sum(costs.fold_seconds(m, n, d) for m in costs.RECOMMENDED_MEMBERS))
    assert costs.growth("recommended") == max(costs.growth(m) for m in costs.RECOMMENDED_MEMBERS) >= 2.0
    # On foundation-model shaped bags every pairwise learner is named, with what grows linearly.
    for name in ("mind", "nsk-svm", "emd-svm", "citation-knn", "recommended"):
        assert "grow" in costs.scaling_warning(name, n, d), name
    assert "nystroem-nsk grows linearly" in costs.scaling_warning("nsk-svm", n, d)
    assert costs.scaling_warning("mi-vlad", n, d) is None


def test_every_measured_learner_of_the_shipped_cost_model_is_registered():
    from mil._costs import COST_MODEL
    from mil._learners import LEARNERS

    assert set(COST_MODEL) <= set(LEARNERS)
    for name, m in COST_MODEL.items():
        assert m["a"] > 0 and 0.3 <= m["p"] <= 3 and 0 <= m["q"] <= 2 and m["spread"] >= 1, name


def test_the_default_regression_job_runs_the_registered_regressors(tmp_path, capsys):
    from mil._learners import DEFAULT_REGRESSION_JOB, LEARNERS

    assert DEFAULT_REGRESSION_JOB and all(LEARNERS[n].task == "regression" for n in DEFAULT_REGRESSION_JOB)
    path = _regression_csv(tmp_path / "reg.csv", n_bags=60)
    assert main(["evaluate", "--dataset", path, "--folds", "3", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert [r["learner"] for r in records] == list(DEFAULT_REGRESSION_JOB)
    assert all(r["status"] == "ok" and r["rmse_mean"] < r["prior_rmse_mean"] for r in records)


def test_every_line_on_stderr_says_it_comes_from_mil(tmp_path, capsys):
    # Notes, the estimate, warnings and errors: one prefix, so that a log says where each came from.
    path = _regression_csv(tmp_path / "reg.csv", n_bags=40)
    assert main(["evaluate", "--dataset", path, "--folds", "3", "--model", "simplemi-reg"]) == 0
    err = capsys.readouterr().err
    assert err and all(line.startswith("mil: ") for line in err.splitlines())


def _bag_folder(folder, suffix, n_bags=16):
    rng = np.random.default_rng(0)
    folder.mkdir()
    rows = ["slide_id,label"]
    for b in range(n_bags):
        x = rng.normal(size=(int(rng.integers(3, 7)), 4)).astype(np.float32)
        x[0, :2] += 3.0 * (b % 2)
        name = f"slide_{b:02d}"
        if suffix == ".npy":
            np.save(folder / f"{name}.npy", x)
        else:
            import h5py

            with h5py.File(folder / f"{name}.h5", "w") as fh:
                fh.create_dataset("features", data=x)
        rows.append(f"{name},{b % 2}")
    return rows


@pytest.mark.parametrize("suffix", [".npy", ".h5"])
def test_evaluate_a_folder_of_per_bag_files_with_its_labels_csv(tmp_path, capsys, suffix):
    if suffix == ".h5":
        pytest.importorskip("h5py")
    rows = _bag_folder(tmp_path / "feats", suffix)
    (tmp_path / "feats" / "labels.csv").write_text("\n".join(rows) + "\n")
    assert main(["evaluate", "--dataset", str(tmp_path / "feats"), "--model", "bag-knn", "--folds", "4",
                 "--json"]) == 0
    record = json.loads(capsys.readouterr().out)[0]
    assert record["status"] == "ok" and record["dataset"] == "feats" and len(record["per_fold"]) == 4


def test_evaluate_a_folder_with_labels_named_by_option(tmp_path, capsys):
    rows = _bag_folder(tmp_path / "feats", ".npy")
    (tmp_path / "my_labels.csv").write_text("\n".join(rows) + "\n")
    assert main(["evaluate", "--dataset", str(tmp_path / "feats"), "--labels", str(tmp_path / "my_labels.csv"),
                 "--model", "bag-knn", "--folds", "4", "--quiet"]) == 0
    assert "bag-knn" in capsys.readouterr().out
    assert main(["evaluate", "--dataset", str(tmp_path / "feats"), "--model", "bag-knn"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mil: error: cannot read") and err.count("\n") == 1


def test_evaluate_a_long_parquet_table(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"bag": np.repeat(np.arange(16), 3), "label": np.repeat(np.arange(16) % 2, 3),
                          "x1": rng.normal(size=48) + np.repeat(np.arange(16) % 2, 3) * 2, "x2": rng.normal(size=48)})
    frame.to_parquet(tmp_path / "bags.parquet")
    assert main(["evaluate", "--dataset", str(tmp_path / "bags.parquet"), "--model", "bag-knn", "--folds", "4",
                 "--quiet"]) == 0
    assert "bag-knn" in capsys.readouterr().out


def test_reproduce_regression_quick(capsys):
    assert main(["reproduce", "regression", "law", "--quick", "--seeds", "1", "--quiet", "--learners",
                 "mean pooling + ridge", "SimpleMI"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Regression, law: test MSE") and "SimpleMI" in out and "published: Bayes-optimal" in out
    assert main(["reproduce", "regression", "law", "--learners", "no-such-row"]) == 2
    assert "unknown learner 'no-such-row'" in capsys.readouterr().err
