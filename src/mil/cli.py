"""The ``mil`` command line: evaluate learners on bags, show the configuration.

``mil`` with no arguments evaluates the available learners on the shipped
Musk1 with its published 10-fold assignment.
"""

import argparse
import csv
import io
import json
import os
import sys

import numpy as np

__all__ = ["main"]


class CLIError(Exception):
    """A user error: printed as one line, exit status 2."""


def _load(dataset):
    from mil.datasets import DATASETS, load_arff, load_csv, load_dataset

    if dataset.lower() in DATASETS:
        d = load_dataset(dataset)
        return d.bags, d.target, d.folds, dataset.lower()
    if not os.path.exists(dataset):
        raise CLIError(f"unknown data set {dataset!r}: not a shipped name "
                       f"({', '.join(DATASETS)}) nor an existing file")
    try:
        d = load_arff(dataset) if dataset.lower().endswith(".arff") else load_csv(dataset)
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise CLIError(f"cannot read {dataset}: {exc}") from None
    if len(np.unique(d.target)) < 2:
        raise CLIError(f"{dataset} holds a single class; evaluation needs two")
    return d.bags, d.target, None, os.path.basename(dataset)


def _table(rows, columns):
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip()
    out = [line, "-" * len(line)]
    out += ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(out)


def _check_jobs(args):
    if args.jobs is not None and args.jobs == 0:
        raise CLIError("--jobs must be a positive number of workers, or negative (-1: one per core); got 0")


def _cmd_info(args):
    from mil._config import show_config

    show_config()
    return 0


def _cmd_evaluate(args):
    from mil._learners import LEARNERS, available_learners, make_learner
    from mil._progress import Progress
    from mil.evaluation import evaluate, fold_indices

    _check_jobs(args)
    if args.folds < 2:
        raise CLIError(f"--folds must be at least 2, got {args.folds}")
    if args.repeats < 1:
        raise CLIError(f"--repeats must be at least 1, got {args.repeats}")
    unknown = [n for n in args.model or () if n not in LEARNERS]
    if unknown:
        raise CLIError(f"unknown learner {unknown[0]!r}; choose from {', '.join(LEARNERS)}")
    bags, y, fold_table, name = _load(args.dataset)
    names = args.model or available_learners()
    if not names:
        raise CLIError("no learner is available in this installation")
    counts = np.unique(y, return_counts=True)[1]
    if counts.min() < args.folds:
        raise CLIError(f"--folds {args.folds} is more than the {counts.min()} bags of the smallest class")
    splits = fold_indices(y, args.folds, args.repeats, args.seed, fold_table)
    quiet = args.quiet or args.json or args.csv
    results = []
    with Progress(len(names) * len(splits), enabled=None if not quiet else False) as bar:
        for learner in names:
            bar.set_label(learner)
            res = evaluate(make_learner(learner), bags, y, splits, progress=bar, n_jobs=args.jobs)
            results.append((learner, res))
    records = [{
        "learner": learner,
        "dataset": name,
        "accuracy_mean": float(res["accuracy"].mean()),
        "accuracy_std": float(res["accuracy"].std()),
        "auc_mean": float(np.nanmean(res["auc"])) if np.isfinite(res["auc"]).any() else None,
        "fit_time_s": float(res["fit_time"].mean()),
        "predict_time_s": float(res["predict_time"].mean()),
        "folds": args.folds,
        "repeats": args.repeats,
    } for learner, res in results]
    if args.json:
        print(json.dumps(records, indent=2))
    elif args.csv:
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(records[0]))
        writer.writeheader()
        writer.writerows(records)
        print(buf.getvalue(), end="")
    else:
        src = "published folds" if fold_table is not None and args.folds == 10 else f"seed {args.seed}"
        print(f"{name}: {len(y)} bags, {args.repeats} x {args.folds}-fold bag-level CV ({src})\n")
        rows = [[r["learner"], f"{100 * r['accuracy_mean']:.1f} ± {100 * r['accuracy_std']:.1f}",
                 "-" if r["auc_mean"] is None else f"{r['auc_mean']:.3f}",
                 f"{r['fit_time_s'] * 1000:.1f}", f"{r['predict_time_s'] * 1000:.1f}"] for r in records]
        print(_table(rows, ["learner", "accuracy %", "AUC", "fit ms/fold", "predict ms/fold"]))
    return 0


def _write_plots(args, make_panels, filename, what):
    """Write a PNG if matplotlib is there; otherwise say how to get plots."""
    from mil.plotting import plotting_available, save_line_plot

    if args.no_plots:
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


def _print_reproduction(args, result, title, extra=None):
    from mil.reproduce import accuracy_table

    rows = accuracy_table(result)
    if args.json:
        print(json.dumps({
            "title": title, "quick": result.quick,
            "accuracy": {l: {d: [float(v) for v in result.accuracy[l][d]] for d in result.datasets}
                         for l in result.learners},
            "seconds": {l: {d: float(result.seconds[l][d]) for d in result.datasets}
                        for l in result.learners},
            **(extra or {}),
        }, indent=2))
        return
    print(f"{title}: bag-level accuracy %, mean ± std over the folds"
          + (f" (quick: {result.quick_note})" if result.quick
             else f" ({getattr(result, 'protocol', 'published folds, repetition 0')})") + "\n")
    print(_table(rows, ["learner", *result.datasets]))
    total = sum(sum(v.values()) for v in result.seconds.values())
    print(f"\ntotal time: {total:.1f} s")


def _cmd_reproduce_trees(args):
    from mil._progress import Progress
    from mil.reproduce import TREE_LEARNERS, reproduce_trees

    _check_jobs(args)
    datasets = _datasets_option(args)
    n_sets = len(datasets or (("musk1",) if args.quick else range(5)))
    folds = 2 if args.quick else 10 * args.repeats
    with Progress(n_sets * len(TREE_LEARNERS) * folds, enabled=False if args.quiet or args.json else None) as bar:
        result = reproduce_trees(datasets=datasets, quick=args.quick, progress=bar, n_jobs=args.jobs,
                                 repeats=args.repeats)
    staged = {"staged_error": {name: {k: [float(v) for v in c] for k, c in curves.items()}
                               for name, curves in result.staged.items()}}
    _print_reproduction(args, result, ", ".join(result.learners), staged)
    if result.staged:
        def panels():
            return {"panels": [{
                "title": f"GDBT-MI on {name}", "xlabel": "boosting rounds", "ylabel": "bag error",
                "series": {k: (np.arange(1, len(v) + 1), v) for k, v in curves.items()},
            } for name, curves in result.staged.items()], "suptitle": "train and test error against rounds "
                                                                       "(mean over CV folds)"}
        _write_plots(args, panels, "gdbt_mi_error.png", "boosting error")
    return 0


def _cmd_reproduce_distances(args):
    from mil._progress import Progress
    from mil.reproduce import reproduce_distances

    if args.data == "milweb":
        return _reproduce_milweb(args)
    datasets = _datasets_option(args)
    n_sets = len(datasets or (("musk1",) if args.quick else range(5)))
    _check_jobs(args)
    scale = None if args.scale == "none" else args.scale
    with Progress(n_sets * 11, enabled=False if args.quiet or args.json else None) as bar:
        result = reproduce_distances(datasets=datasets, quick=args.quick, scale=scale, alpha=args.alpha,
                                     curves=not args.no_plots, progress=bar, n_jobs=args.jobs)
    _print_reproduction(args, result, f"Citation-KNN and Bag-KNN x five Hausdorff distances "
                                      f"(scale={args.scale}, alpha={args.alpha})")
    if not args.json:
        print(f"(wall time {result.total_seconds:.1f} s, distance matrices shared by the ten learners)")
    if result.curves:
        _write_plots(args, lambda: _curve_panels(result, "10-fold CV accuracy %"),
                     "integrated_references.png", "references / sigma")
    return 0


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


def _reproduce_milweb(args):
    """``mil reproduce distances --data milweb``: the MILWEB table (one train/test split per user)."""
    from mil._progress import Progress
    from mil.reproduce import milweb_table, reproduce_milweb

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
    scale = None if args.scale == "none" else args.scale
    n_users = len(users or ((1,) if args.quick else range(9)))
    with Progress(n_users * 11, enabled=False if args.quiet or args.json else None) as bar:
        result = reproduce_milweb(users=users, quick=args.quick, scale=scale, alpha=args.alpha,
                                  curves=not args.no_plots, progress=bar, n_jobs=args.jobs)
    title = (f"MILWEB: Citation-KNN and Bag-KNN x five Hausdorff distances "
             f"(scale={args.scale}, alpha={args.alpha})")
    if args.json:
        print(json.dumps({
            "title": title, "quick": result.quick,
            "accuracy": {l: {d: float(result.accuracy[l][d][0]) for d in result.datasets}
                         for l in result.learners},
            "best_params": {l: {d: result.best_params[l][d][0] for d in result.datasets}
                            for l in result.learners},
            "seconds": {l: {d: float(result.seconds[l][d]) for d in result.datasets}
                        for l in result.learners},
        }, indent=2))
    else:
        print(f"{title}: accuracy % on the 38 test bags of each user, parameters chosen by 5-fold CV "
              "on the 75 training bags" + (f" (quick: {result.quick_note})" if result.quick else "") + "\n")
        print(_table(milweb_table(result), ["learner", *result.datasets, "mean"]))
        print(f"\n(wall time {result.total_seconds:.1f} s, distance matrices from the sparse path, "
              "shared by the ten learners)")
    if result.curves:
        _write_plots(args, lambda: _curve_panels(result, "test accuracy % (38 bags)"),
                     "milweb_integrated_references.png", "references / sigma")
    return 0


def _datasets_option(args):
    from mil.datasets import DATASETS

    if not args.datasets:
        return None
    bad = [d for d in args.datasets if d.lower() not in DATASETS]
    if bad:
        raise CLIError(f"unknown data set {bad[0]!r}; shipped: {', '.join(DATASETS)}")
    return tuple(d.lower() for d in args.datasets)


def _cmd_default(args):
    if not (args.json or args.csv):
        _cmd_info(args)
        print()
    return _cmd_evaluate(args)


def _evaluate_options(p):
    p.add_argument("--dataset", default="musk1",
                   help="shipped name (musk1, musk2, elephant, fox, tiger) or a path to an ARFF "
                        "or long CSV file (default: musk1)")
    p.add_argument("--model", nargs="+", metavar="NAME",
                   help="learner name(s); default: every available learner")
    p.add_argument("--folds", type=int, default=10, help="number of CV folds (default: 10)")
    p.add_argument("--repeats", type=int, default=1, help="repetitions of the CV (default: 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of random folds (default: 0)")
    p.add_argument("--jobs", type=int, default=None,
                   help="worker processes over the CV folds (default: 1; -1: one per core)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print results as JSON")
    out.add_argument("--csv", action="store_true", help="print results as CSV")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="mil", description="Multi-instance learning: evaluate learners on bags of instances. "
                                "With no command, show the configuration and evaluate every "
                                "available learner on the shipped Musk1.")
    _evaluate_options(parser)
    sub = parser.add_subparsers(dest="command")
    ev = sub.add_parser("evaluate", help="bag-level k-fold CV of learners on a data set",
                        description="Bag-level k-fold cross-validation: accuracy (mean ± std over "
                                    "folds), AUC, fit and predict time per learner.")
    _evaluate_options(ev)
    sub.add_parser("info", help="show the configuration (mil.show_config())",
                   description="Print versions and which implementation each kernel uses.")
    rep = sub.add_parser("reproduce", help="reproduce the papers' tables",
                         description="Reproduce the literature's tables on the five shipped data sets "
                                     "(10-fold CV on the published folds).")
    rep_sub = rep.add_subparsers(dest="target", required=True)
    for target, text in (("distances", "Citation-KNN and Bag-KNN with the five Hausdorff distances, "
                                       "inner 5-fold choice of references and sigma; plots of accuracy "
                                       "against references and sigma (integrated distance)"),
                         ("trees", "ID3-MI, C4.5-MI, GDBT-MI, RIPPER-MI and the MI random forest; plot "
                                   "of GDBT-MI error "
                                   "against rounds on Musk1 and Musk2")):
        r = rep_sub.add_parser(target, help=text, description=text)
        r.add_argument("--quick", action="store_true", help="a reduced run in seconds (smoke test)")
        r.add_argument("--datasets", nargs="+", metavar="NAME", help="subset of the shipped data sets")
        r.add_argument("--plot-dir", default=".", help="where PNG plots go (default: current directory)")
        r.add_argument("--no-plots", action="store_true", help="tables only")
        r.add_argument("--json", action="store_true", help="print results as JSON")
        r.add_argument("--quiet", action="store_true", help="no progress bar")
        r.add_argument("--jobs", type=int, default=None,
                       help="workers over the CV folds (default: 1; -1: one per core)")
        if target == "trees":
            r.add_argument("--repeats", type=int, default=1, choices=range(1, 6), metavar="R",
                           help="published 10-fold repetitions to run, 1-5 (default: 1, repetition 0)")
        if target == "distances":
            r.add_argument("--data", choices=["classic", "milweb"], default="classic",
                           help="classic: the five shipped sets, 10-fold CV (default); milweb: the nine "
                                "MILWEB users, predefined 75/38 train/test split (--datasets then "
                                "takes user numbers 1..9)")
            r.add_argument("--scale", choices=["none", "standard", "minmax", "maxabs"], default="none",
                           help="feature scaling (default: none, the paper's protocol; MILWEB: none "
                                "or maxabs)")
            r.add_argument("--alpha", choices=["nca", "cv"], default="nca",
                           help="integrated distance: alpha by NCA (paper) or by the inner CV")
    return parser


def main(argv=None):
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handlers = {None: _cmd_default, "evaluate": _cmd_evaluate, "info": _cmd_info,
                "reproduce": lambda a: {"trees": _cmd_reproduce_trees,
                                        "distances": _cmd_reproduce_distances}[a.target](a)}
    try:
        return handlers[args.command](args)
    except CLIError as exc:
        print(f"mil: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mil: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`, which closed early
        sys.stderr.close()
        return 0
