"""The multi-instance regression benchmarks against their published numbers (docs/results/regression.rst).

Usage::

    OMP_NUM_THREADS=1 python benchmarks/reproduce_regression.py law [--seeds 0 1 2] [--learners NAME ...]
    OMP_NUM_THREADS=1 python benchmarks/reproduce_regression.py primary
    OMP_NUM_THREADS=1 python benchmarks/reproduce_regression.py entropy
    python benchmarks/reproduce_regression.py law --quick          # 100 + 100 bags of 100: a smoke run
    python benchmarks/reproduce_regression.py law --from-json a.json b.json --format rst   # print saved rows

Prints one table per benchmark (mean and standard deviation over the seeds,
the seconds to fit and to predict, wall clock and CPU, and the peak traced memory) beside the
published rows, and ``--json FILE`` writes the rows. The tables are built by
:mod:`mil._regression_benchmarks`; ``--learners`` takes its row names.
"""

import argparse
import json
import sys

from mil import _regression_benchmarks as rb

TABLES = {"law": (rb.law_table, rb.LAW_LEARNERS), "primary": (rb.primary_table, rb.PRIMARY_LEARNERS),
          "entropy": (rb.entropy_table, rb.ENTROPY_LEARNERS)}
QUICK = {"law": {"n_train": 100, "n_test": 100, "bag_size": 100}, "primary": {"n_bags": 1000},
         "entropy": {"n_bags": 40, "bag_size": 100, "n_train": 20}}


def _cell(row, key, digits=3):
    value = row.get(key)
    if value is None or value != value:
        return "-"
    sd = row.get(key + "_sd", 0.0)
    return f"{value:.{digits}f} ({sd:.{digits}f})" if len(row["seeds"]) > 1 else f"{value:.{digits}f}"


def _lines(table, rows, bag_size=None):
    score = {"law": ("mse", "test MSE"), "primary": ("mse", "test MSE"), "entropy": ("r2", "test R^2")}[table]
    cpu = any("fit_cpu_s" in row for row in rows)
    head = ["learner", score[1]] + (["attribution"] if table == "primary" else []) + [
        "fit s", "predict s"] + (["fit CPU s", "predict CPU s"] if cpu else []) + ["peak MB", "seeds"]
    lines = []
    if table == "law" and bag_size in (None, 1000):
        for name, (mse, sd) in rb.PUBLISHED_LAW.items():
            lines.append([f"{name} (published)", f"{mse:.3f} ({sd:.3f})"] + [""] * (len(head) - 3) + ["10 draws"])
    if table == "primary":
        for name, (mse, attribution) in rb.PUBLISHED_PRIMARY_BY_SIZE.get(bag_size or 5, {}).items():
            lines.append([f"{name} (published, MLP)", f"{mse:.2f}", attribution or "-"] + [""] * (len(head) - 3))
    for row in rows:
        cells = [row["learner"], _cell(row, score[0])]
        if table == "primary":
            cells.append(_cell(row, "attribution"))
        cells += [_cell(row, "fit_s", 1), _cell(row, "predict_s", 1)]
        if cpu:
            cells += [_cell(row, "fit_cpu_s", 1), _cell(row, "predict_cpu_s", 1)]
        cells += [_cell(row, "peak_mb", 0),
                  " ".join(map(str, row["seeds"]))]
        lines.append(cells)
    return head, lines


def _print(table, rows, skipped, fmt="markdown", bag_size=None):
    head, lines = _lines(table, rows, bag_size)
    if fmt == "rst":
        print(".. csv-table::\n   :header: " + ", ".join(f'"{h}"' for h in head) + "\n")
        for cells in lines:
            print("   " + ", ".join(f'"{c}"' for c in cells))
    else:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for cells in lines:
            print("| " + " | ".join(cells) + " |")
    if skipped:
        print(f"\nnot in this version of mil: {', '.join(skipped)}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", choices=sorted(TABLES))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--learners", nargs="+", default=None)
    parser.add_argument("--quick", action="store_true", help="small data: a smoke run, not the benchmark")
    parser.add_argument("--json", default=None, help="write the rows to this file")
    parser.add_argument("--bag-size", type=int, default=None,
                        help="instances per bag (law: 1000; primary: k = 5); other sizes are not the published recipe")
    parser.add_argument("--overlap", type=float, default=None, help="primary: the share of shared instances (0.10)")
    parser.add_argument("--from-json", nargs="+", default=None,
                        help="print the rows of files written by --json (same table), in order")
    parser.add_argument("--format", choices=("markdown", "rst"), default="markdown")
    args = parser.parse_args(argv)
    if args.from_json:
        rows, skipped, sizes = [], [], set()
        for path in args.from_json:
            with open(path) as f:
                saved = json.load(f)
            if saved["table"] != args.table:
                parser.error(f"{path} holds the {saved['table']!r} table, not {args.table!r}")
            rows += saved["rows"]
            skipped += [name for name in saved["skipped"] if name not in skipped]
            sizes.add(saved.get("sizes", {}).get("bag_size"))
        _print(args.table, rows, skipped, args.format, sizes.pop() if len(sizes) == 1 else -1)
        return
    fn, default = TABLES[args.table]
    learners = tuple(args.learners or default)
    unknown = [name for name in learners if name not in rb.ROWS]
    if unknown:
        parser.error(f"unknown learner {unknown[0]!r}; rows: {', '.join(rb.ROWS)}")

    def progress(name, run):
        print(f"  {name} seed {run['seed']}: " + ", ".join(f"{k} {v:.4g}" for k, v in run.items() if k != "seed"),
              file=sys.stderr, flush=True)

    sizes = dict(QUICK[args.table]) if args.quick else {}
    if args.bag_size is not None:
        sizes["bag_size"] = args.bag_size
    if args.overlap is not None:
        if args.table != "primary":
            parser.error("--overlap is a parameter of the primary table")
        sizes["overlap"] = args.overlap
    rows, skipped = fn(learners, tuple(args.seeds), progress=progress, **sizes)
    _print(args.table, rows, skipped, args.format, sizes.get("bag_size"))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"table": args.table, "quick": args.quick, "sizes": sizes, "rows": rows, "skipped": skipped}, f,
                      indent=1)


if __name__ == "__main__":
    main()
