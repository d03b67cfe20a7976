"""The multi-instance regression benchmarks against their published numbers (docs/results/regression.rst).

Usage::

    OMP_NUM_THREADS=1 python benchmarks/reproduce_regression.py law [--seeds 0 1 2] [--learners NAME ...]
    OMP_NUM_THREADS=1 python benchmarks/reproduce_regression.py primary
    OMP_NUM_THREADS=1 python benchmarks/reproduce_regression.py entropy
    python benchmarks/reproduce_regression.py law --quick          # 100 + 100 bags of 100: a smoke run

Prints one table per benchmark (mean and standard deviation over the seeds,
the seconds to fit and to predict and the peak traced memory) beside the
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


def _print(table, rows, skipped):
    score = {"law": ("mse", "test MSE"), "primary": ("mse", "test MSE"), "entropy": ("r2", "test R^2")}[table]
    head = ["learner", score[1]] + (["attribution"] if table == "primary" else []) + [
        "fit s", "predict s", "peak MB", "seeds"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    if table == "law":
        for name, (mse, sd) in rb.PUBLISHED_LAW.items():
            print(f"| {name} (published) | {mse:.3f} ({sd:.3f}) | | | | 10 draws |")
    if table == "primary":
        for name, (mse, attribution) in rb.PUBLISHED_PRIMARY.items():
            print(f"| {name} (published, MLP) | {mse:.2f} | {attribution or '-'} | | | | |")
    for row in rows:
        cells = [row["learner"], _cell(row, score[0])]
        if table == "primary":
            cells.append(_cell(row, "attribution"))
        cells += [_cell(row, "fit_s", 1), _cell(row, "predict_s", 1), _cell(row, "peak_mb", 0),
                  ",".join(map(str, row["seeds"]))]
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
    args = parser.parse_args(argv)
    fn, default = TABLES[args.table]
    learners = tuple(args.learners or default)
    unknown = [name for name in learners if name not in rb.ROWS]
    if unknown:
        parser.error(f"unknown learner {unknown[0]!r}; rows: {', '.join(rb.ROWS)}")

    def progress(name, run):
        print(f"  {name} seed {run['seed']}: " + ", ".join(f"{k} {v:.4g}" for k, v in run.items() if k != "seed"),
              file=sys.stderr, flush=True)

    rows, skipped = fn(learners, tuple(args.seeds), progress=progress, **(QUICK[args.table] if args.quick else {}))
    _print(args.table, rows, skipped)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"table": args.table, "quick": args.quick, "rows": rows, "skipped": skipped}, f, indent=1)


if __name__ == "__main__":
    main()
