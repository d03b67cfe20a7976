"""``mil reproduce``: the literature's tables on the shipped data sets, through one report writer."""

import ast
import os
import sys

import numpy as np

from mil import reproduce as rep
from mil._assumptions import TASKS, assumptions_table, reproduce_assumptions
from mil._learners import (LEARNERS, SEED_PARAMS, available_learners, make_learner, missing_requirement,
                           resolve_learner)
from mil._progress import Progress
from mil.cli._common import CLIError, check_jobs
from mil.cli._report import print_json, print_table_report, protocol_note, result_json, total_seconds
from mil.datasets import DATASETS

__all__ = ["COMMANDS"]


def _progress(args, steps):
    return Progress(steps, enabled=False if args.quiet or args.json else None)


def _write_plots(args, make_panels, filename, what):
    """Write a PNG if matplotlib is there; otherwise say how to get plots."""
    from mil.plotting import plotting_available, save_line_plot

    if args.no_plots:
        return
    if args.plot_dir is None:
        if not getattr(args, "json", False):
            print(f"\n(for the {what} plot as a PNG file, add --plot-dir DIR)")
        return
    # With --json, stdout holds only the JSON document.
    out = sys.stderr if getattr(args, "json", False) else sys.stdout
    if not plotting_available():
        print(f"\n(no {what} plot: matplotlib is not installed; "
              "pip install 'scikit-mil[plot]' to get plots)", file=out)
        return
    os.makedirs(args.plot_dir, exist_ok=True)
    path = save_line_plot(os.path.join(args.plot_dir, filename), **make_panels())
    print(f"\nplot written: {path}", file=out)


def _datasets_option(args):
    if not args.datasets:
        return None
    bad = [d for d in args.datasets if d.lower() not in DATASETS]
    if bad:
        raise CLIError(f"unknown data set {bad[0]!r}; shipped: {', '.join(DATASETS)}")
    return tuple(d.lower() for d in args.datasets)


def _learners_option(args, known, default=None):
    """The learners of ``--learners`` among `known` (names matched as ``--model``'s)."""
    chosen = []
    for given in args.learners or default or known:
        name = given
        if given not in known:
            try:
                name, note = resolve_learner(given)
            except ValueError:
                name, note = None, None
            if note:
                print(f"mil: note: {note}", file=sys.stderr)
        if name not in known:
            raise CLIError(f"unknown learner {given!r}; mil reproduce {args.target} runs: {', '.join(known)}")
        chosen.append(name)
    return tuple(dict.fromkeys(chosen))


def _options(args, known, default=None):
    """The data sets, their count and the learners of a ``mil reproduce`` command (checked)."""
    check_jobs(args)
    datasets = _datasets_option(args)
    n_sets = len(datasets or (("musk1",) if args.quick else range(5)))
    return datasets, n_sets, _learners_option(args, known, default)


def _seeded_folds(args, learners):
    """Progress steps of a seeded reproduction: folds x runs (seeds for the randomised learners)."""
    if args.seeds < 1:
        raise CLIError(f"--seeds must be at least 1, got {args.seeds}")
    folds = 2 if args.quick else 10 * args.repeats
    return folds * sum(args.seeds if name in SEED_PARAMS else 1 for name in learners)


def _set_params(args, learners):
    """The ``--set NAME=VALUE`` parameters as a dict (values read as Python literals, else strings)."""
    params = {}
    for item in getattr(args, "set_params", None) or []:
        name, sep, text = item.partition("=")
        if not sep or not name.strip().isidentifier():
            raise CLIError(f"--set takes NAME=VALUE (a parameter name, '=', a value); got {item!r}")
        try:
            value = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            value = text.strip()
        params[name.strip()] = value
    for name in learners:
        try:
            make_learner(name, **params)
        except (TypeError, ValueError) as exc:
            raise CLIError(f"--set {', '.join(params)}: not accepted by {name!r} ({exc})") from None
    return params


def _params_note(params):
    return "" if not params else " with " + ", ".join(f"{k}={v!r}" for k, v in params.items())


_SEED_NOTE = "\n* randomised learner: mean over seeds 0-{last} of the fold means, [lowest-highest seed mean]"


def _seed_notes(result, scores="accuracy then (AUC)"):
    if result.seeds > 1 and result.seed_accuracy:
        return [_SEED_NOTE.format(last=result.seeds - 1) + (f", {scores}" if scores else "")]
    return []


def _report(args, result, title, header, rows, columns, notes=(), **extra):
    """One reproduction's output: the JSON document, or the header, table, notes and time."""
    if args.json:
        print_json(result_json(result, title, **extra))
    else:
        print_table_report(header, rows, columns, notes, total_seconds(result))


def cmd_trees(args):
    datasets, n_sets, learners = _options(args, rep.TREE_LEARNERS)
    with _progress(args, n_sets * _seeded_folds(args, learners)) as bar:
        result = rep.reproduce_trees(datasets=datasets, learners=learners, quick=args.quick, progress=bar,
                                     n_jobs=args.jobs, repeats=args.repeats, seeds=args.seeds)
    title = ", ".join(result.learners)
    staged = {name: {k: [float(v) for v in c] for k, c in curves.items()} for name, curves in result.staged.items()}
    rows = rep.accuracy_table(result)
    notes = _seed_notes(result, None) if any(row[0].endswith(" *") for row in rows) else []
    _report(args, result, title, f"{title}: bag-level accuracy %, mean ± std over the folds{protocol_note(result)}",
            rows, ["learner", *result.datasets], notes, staged_error=staged)
    if result.staged:
        def panels():
            return {"panels": [{
                "title": f"GDBT-MI on {name}", "xlabel": "boosting rounds", "ylabel": "bag error",
                "series": {k: (np.arange(1, len(v) + 1), v) for k, v in curves.items()},
            } for name, curves in result.staged.items()],
                "suptitle": "train and test error against rounds (mean over CV folds)"}
        _write_plots(args, panels, "gdbt_mi_error.png", "boosting error")
    return 0


def cmd_kernels(args):
    datasets, n_sets, learners = _options(args, rep.KERNEL_LEARNERS,
                                          [n for n in rep.KERNEL_LEARNERS if n in available_learners()])
    missing = [missing_requirement(name) for name in learners if missing_requirement(name)]
    if missing:
        raise CLIError(missing[0])
    params = _set_params(args, learners)
    with _progress(args, n_sets * _seeded_folds(args, learners)) as bar:
        result = rep.reproduce_kernels(datasets=datasets, learners=learners, quick=args.quick, progress=bar,
                                       n_jobs=args.jobs, repeats=args.repeats, seeds=args.seeds, params=params)
    title = "Bag-kernel SVMs and mi-SVM / MI-SVM" + _params_note(params)
    header = (title + ": mean bag-level accuracy % (AUC %) over the folds" + protocol_note(result)
              + ", tuned by inner CV on the training bags; below each learner the published accuracies "
                "as quoted from the original papers and as re-implemented by Carbonneau et al. 2018 "
                "(10 x 10-fold CV)")
    published = {l: [None if p is None else list(p) for p in v] for l, v in result.published.items()}
    _report(args, result, title, header, rep.kernel_table(result), ["learner", *result.datasets],
            _seed_notes(result), params=params, published=published)
    return 0


def _seeded(args, known, run, make_table, title, tuning, published):
    """``mil reproduce embeddings`` / ``encoders``: the seeded CV table of `known` learners."""
    datasets, n_sets, learners = _options(args, known)
    params = _set_params(args, learners)
    title += _params_note(params)
    with _progress(args, n_sets * _seeded_folds(args, learners)) as bar:
        result = run(datasets=datasets, learners=learners, quick=args.quick, progress=bar,
                     n_jobs=args.jobs, repeats=args.repeats, seeds=args.seeds, params=params)
    header = (f"{title}: bag-level accuracy % (AUC %), mean over the folds, hyper-parameters {tuning}"
              + protocol_note(result))
    _report(args, result, title, header, make_table(result), ["learner", *result.datasets],
            [*_seed_notes(result), "\n" + published], params=params)
    return 0


def cmd_embeddings(args):
    return _seeded(args, rep.EMBEDDING_LEARNERS, rep.reproduce_embeddings, rep.embeddings_table, "MILES and MInD",
                   "tuned by CV inside each training fold (MILES 2 folds, MInD 5)",
                   "published: Carbonneau, Cheplygina, Granger and Gagnon, Pattern Recognition 77 (2018), "
                   "suppl. Table 4, accuracy of 10 x 10-fold CV with inner-CV tuning")


def cmd_encoders(args):
    return _seeded(args, rep.ENCODER_LEARNERS, rep.reproduce_encoders, rep.encoders_table, "Bag encoders",
                   "encoder fitted and C tuned by a 5-fold CV inside each training fold",
                   "published: Wei, Wu and Zhou, IEEE TNNLS 28(4) (2017), accuracy of 10 x 10-fold CV")


def cmd_assumptions(args):
    check_jobs(args)
    if args.seeds < 1:
        raise CLIError(f"--seeds must be at least 1, got {args.seeds}")
    learners = _learners_option(args, tuple(LEARNERS), available_learners("classification"))
    tasks = tuple(args.tasks or TASKS)
    seeds = 1 if args.quick else args.seeds
    runs = sum(seeds if name in SEED_PARAMS else 1 for name in learners)
    with _progress(args, len(tasks) * runs * (2 if args.quick else 10)) as bar:
        result = reproduce_assumptions(tasks=tasks, learners=learners, seeds=args.seeds, quick=args.quick,
                                       progress=bar, n_jobs=args.jobs)
    title = "Multi-instance assumptions on digit bags"
    notes = []
    if result.seeds > 1 and result.seed_accuracy:
        notes.append(f"\n* randomised learner: mean over seeds 0-{result.seeds - 1}, [lowest-highest seed accuracy]")
    notes.append("\nrules:")
    notes += [f"  {task}: {result.rules[task]}" + ("; the learners are given positive_class=0 (the bags "
                                                   "that hold the digit)" if task.endswith("pc=0") else "")
              for task in result.tasks]
    _report(args, result, title, f"{title}: bag-level accuracy % (AUC %), {result.protocol}",
            assumptions_table(result), ["learner", *result.tasks], notes, rules=result.rules)
    return 0


def _want_curves(args):
    """Compute the accuracy curves only for a plot that will be written (they cost time)."""
    return args.plot_dir is not None and not args.no_plots and args.alpha == "nca"


def _curve_panels(result, ylabel):
    """Plot panels: Citation-KNN (integrated) accuracy against references and against sigma."""
    out = []
    for key, xlabel in (("references", "references (citers = references + 2)"), ("sigma", "sigma")):
        series = {}
        for name, c in result.curves.items():
            x, y, fixed = c[key]
            other = "sigma" if key == "references" else "references"
            series[f"{name} ({other}={fixed})"] = (x, [100 * v for v in y])
        out.append({"title": f"Citation-KNN, integrated: accuracy against {key}",
                    "xlabel": xlabel, "ylabel": ylabel, "series": series, "logx": key == "sigma"})
    return {"panels": out}


def cmd_distances(args):
    if args.data == "milweb":
        return _milweb(args)
    datasets = _datasets_option(args)
    n_sets = len(datasets or (("musk1",) if args.quick else range(5)))
    check_jobs(args)
    scale = None if args.scale == "none" else args.scale
    curves = _want_curves(args)
    with _progress(args, n_sets * (10 + curves)) as bar:
        result = rep.reproduce_distances(datasets=datasets, quick=args.quick, scale=scale, alpha=args.alpha,
                                         curves=curves, progress=bar, n_jobs=args.jobs)
    title = f"Citation-KNN and Bag-KNN x five Hausdorff distances (scale={args.scale}, alpha={args.alpha})"
    _report(args, result, title, f"{title}: bag-level accuracy %, mean ± std over the folds{protocol_note(result)}",
            rep.accuracy_table(result), ["learner", *result.datasets],
            [f"\n(wall time {result.total_seconds:.1f} s, distance matrices shared by the ten learners)"])
    if result.curves or (args.plot_dir is None and args.alpha == "nca"):
        _write_plots(args, lambda: _curve_panels(result, "10-fold CV accuracy %"),
                     "integrated_references.png", "references / sigma")
    return 0


def _milweb(args):
    """``mil reproduce distances --data milweb``: the MILWEB table (one train/test split per user)."""
    users = None
    if args.datasets:
        users = []
        for name in args.datasets:
            digits = name.lower().removeprefix("milweb").removeprefix("user")
            if not (digits.isdigit() and 1 <= int(digits) <= 9):
                raise CLIError(f"unknown MILWEB user {name!r}; give 1..9 (or user1..user9)")
            users.append(int(digits))
    if args.scale in ("standard", "minmax"):
        raise CLIError(f"--scale {args.scale} would make MILWEB's sparse bags dense; use none or maxabs")
    check_jobs(args)
    scale = None if args.scale == "none" else args.scale
    n_users = len(users or ((1,) if args.quick else range(9)))
    curves = _want_curves(args)
    with _progress(args, n_users * (10 + curves)) as bar:
        result = rep.reproduce_milweb(users=users, quick=args.quick, scale=scale, alpha=args.alpha,
                                      curves=curves, progress=bar, n_jobs=args.jobs)
    title = f"MILWEB: Citation-KNN and Bag-KNN x five Hausdorff distances (scale={args.scale}, alpha={args.alpha})"
    header = (f"{title}: accuracy % on the 38 test bags of each user, parameters chosen by 5-fold CV on the "
              "75 training bags" + (f" (quick: {result.quick_note})" if result.quick else ""))
    best = {l: {d: result.best_params[l][d][0] for d in result.datasets} for l in result.learners}
    _report(args, result, title, header, rep.milweb_table(result), ["learner", *result.datasets, "mean"],
            [f"\n(wall time {result.total_seconds:.1f} s, distance matrices from the sparse path, shared by "
             "the ten learners)"], best_params=best)
    if result.curves or (args.plot_dir is None and args.alpha == "nca"):
        _write_plots(args, lambda: _curve_panels(result, "test accuracy % (38 bags)"),
                     "milweb_integrated_references.png", "references / sigma")
    return 0


#: The regression tables: name -> (its function's name in mil._regression_benchmarks, its default
#: rows' name there, the score printed, the reduced run of --quick).
_REGRESSION = {"law": ("law_table", "LAW_LEARNERS", ("mse", "test MSE"),
                       {"n_train": 100, "n_test": 100, "bag_size": 100}),
               "primary": ("primary_table", "PRIMARY_LEARNERS", ("mse", "instance test MSE"), {"n_bags": 1000}),
               "entropy": ("entropy_table", "ENTROPY_LEARNERS", ("r2", "test R^2"),
                           {"n_bags": 40, "bag_size": 100, "n_train": 20})}


def cmd_regression(args):
    """``mil reproduce regression TABLE``: the regression benchmarks beside their published rows."""
    from mil import _regression_benchmarks as bench

    function, default, (key, label), quick = _REGRESSION[args.table]
    learners = tuple(args.learners or getattr(bench, default))
    unknown = [name for name in learners if name not in bench.ROWS]
    if unknown:
        raise CLIError(f"unknown learner {unknown[0]!r}; mil reproduce regression {args.table} runs: "
                       f"{', '.join(bench.ROWS)}")
    if args.seeds < 1:
        raise CLIError(f"--seeds must be at least 1, got {args.seeds}")
    seeds = tuple(range(args.seeds))

    def progress(name, run):
        if not (args.quiet or args.json):
            print(f"mil: {name} seed {run['seed']}: " + ", ".join(f"{k} {v:.4g}" for k, v in run.items()
                                                                 if k != "seed"), file=sys.stderr, flush=True)

    rows, skipped = getattr(bench, function)(learners, seeds, progress=progress, **(quick if args.quick else {}))
    if args.json:
        print_json({"table": args.table, "quick": args.quick, "rows": rows, "skipped": skipped})
        return 0

    def cell(row, name, digits=3):
        value = row.get(name)
        if value is None or value != value:
            return "-"
        return f"{value:.{digits}f}" + (f" ± {row.get(name + '_sd', 0.0):.{digits}f}" if len(row["seeds"]) > 1 else "")

    extra = ["attribution"] if args.table == "primary" else []
    table_rows = [[row["learner"], cell(row, key), *[cell(row, e) for e in extra], cell(row, "fit_s", 1),
                   cell(row, "predict_s", 1), cell(row, "peak_mb", 0)] for row in rows]
    published = getattr(bench, {"law": "PUBLISHED_LAW", "primary": "PUBLISHED_PRIMARY"}.get(args.table, ""), {})
    notes = [f"\npublished: " + "; ".join(f"{name} {value[0]:.3f}" for name, value in published.items())] \
        if published else []
    if skipped:
        notes.append(f"not in this version of mil: {', '.join(skipped)}")
    header = (f"Regression, {args.table}: {label}, mean ± std over seeds {seeds[0]}-{seeds[-1]}"
              + (" (quick: reduced data)" if args.quick else ""))
    print_table_report(header, table_rows, ["learner", label, *extra, "fit s", "predict s", "peak MB"], notes)
    return 0


#: ``mil reproduce TARGET`` -> its command.
COMMANDS = {"regression": cmd_regression, "trees": cmd_trees, "distances": cmd_distances, "kernels": cmd_kernels,
            "embeddings": cmd_embeddings, "encoders": cmd_encoders, "assumptions": cmd_assumptions}
