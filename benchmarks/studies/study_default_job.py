"""What one CV fold of each registered learner costs and scores: the measurements behind ``mil``'s quick default job.

Three data sets:

- ``csv``: a 200-bag long CSV of the shape a user brings (5 to 40 instances
  per bag, 10 features, half the bags positive; seeded, written by
  :func:`write_csv`); read back by the same loader as ``mil evaluate
  --dataset F.csv``, 10 stratified folds with seed 0;
- ``musk1``: the shipped Musk1, its published folds (repetition 0);
- ``musk2``: the shipped Musk2 (14 times Musk1's instances, the same
  features), its published folds: the third point of the time model.

For each learner (registry defaults, seed 0) the first ``--folds`` folds are
fitted and scored one after the other in this process, and the script prints
the mean fit + predict seconds per fold, wall and CPU (the CPU seconds of
this process, all its threads: what the fold costs on an otherwise idle
machine with one BLAS thread, and much less sensitive than the wall time to
other jobs on a shared machine), the accuracy and AUC over those folds, and
the ratio of each learner's CPU time to ``c45-mi``'s, the baseline run in the
same process. The cost classes of ``mil --help`` and the estimate of a job's
time (``mil._costs.FOLD_SECONDS``) come from the CPU seconds.

    python benchmarks/studies/study_default_job.py write /tmp/bags200.csv
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/studies/study_default_job.py time --data csv,musk1,musk2 --folds 3
    python benchmarks/studies/study_default_job.py time --data csv --folds 10 --learners blrt mind

The whole default job on the CSV is timed from the shell:
``/usr/bin/time -v mil evaluate --dataset /tmp/bags200.csv --quiet``.
"""

import argparse
import csv
import json
import os
import sys
import tempfile
import time

import numpy as np


def write_csv(path, n_bags=200, min_size=5, max_size=40, n_features=10, seed=0):
    """A long CSV (bag, label, f0..f9): positive bags hold 1-3 witnesses near a concept.

    Instances are standard normal; a positive bag's witnesses are drawn around
    (2, 2, 0, ..., 0) with standard deviation 0.7, so that a witness is
    ambiguous on its own and the bag label is what a learner must find.
    """
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.arange(n_bags) % 2)
    concept = np.zeros(n_features)
    concept[:2] = 2.0
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["bag", "label", *[f"f{j}" for j in range(n_features)]])
        for b in range(n_bags):
            size = int(rng.integers(min_size, max_size + 1))
            x = rng.standard_normal((size, n_features))
            if labels[b]:
                k = int(rng.integers(1, 4))
                x[:k] = concept + 0.7 * rng.standard_normal((k, n_features))
                x = x[rng.permutation(size)]
            for row in x:
                writer.writerow([f"bag{b:03d}", int(labels[b]), *[f"{v:.5f}" for v in row]])
    return path


def _data(name, path):
    from mil.datasets import load_csv, load_dataset
    from mil.evaluation import fold_indices

    if name != "csv":
        d = load_dataset(name)
        return d.bags, d.target, fold_indices(d.target, 10, 1, fold_table=d.folds)
    d = load_csv(path)
    return d.bags, d.target, fold_indices(d.target, 10, 1, seed=0)


def time_learners(data_names, learners, n_folds, path):
    from mil._learners import available_learners, make_learner
    from mil.evaluation import evaluate

    learners = ["c45-mi", *[n for n in learners or available_learners() if n != "c45-mi"]]
    out = {}
    for name in data_names:
        bags, y, splits = _data(name, path)
        n_inst = bags.n_instances
        print(f"\n{name}: {len(y)} bags, {n_inst} instances, {bags.n_features} features; "
              f"first {n_folds} of 10 folds", flush=True)
        print(f"{'learner':26s} {'s/fold':>8s} {'cpu s/fold':>10s} {'x c45-mi':>9s} {'10 folds':>9s} "
              f"{'acc %':>6s} {'AUC %':>6s}")
        rows = {}
        for learner in learners:
            est = make_learner(learner, seed=0)
            t0, c0 = time.perf_counter(), time.process_time()
            res = evaluate(est, bags, y, splits[:n_folds])
            wall = (time.perf_counter() - t0) / n_folds
            cpu = (time.process_time() - c0) / n_folds
            rows[learner] = {"seconds_per_fold": wall, "cpu_seconds_per_fold": cpu,
                             "accuracy": float(res["accuracy"].mean()), "auc": float(np.nanmean(res["auc"]))}
            base = rows["c45-mi"]["cpu_seconds_per_fold"]
            print(f"{learner:26s} {wall:8.3f} {cpu:10.3f} {cpu / base:9.1f} {10 * cpu:9.1f} "
                  f"{100 * rows[learner]['accuracy']:6.1f} {100 * rows[learner]['auc']:6.1f}", flush=True)
        out[name] = {"n_bags": len(y), "n_instances": int(n_inst), "n_features": int(bags.n_features),
                     "learners": rows}
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="write the 200-bag CSV")
    w.add_argument("path")
    w.add_argument("--seed", type=int, default=0)
    t = sub.add_parser("time", help="time one or more folds of each learner")
    t.add_argument("--data", default="csv,musk1,musk2")
    t.add_argument("--folds", type=int, default=1)
    t.add_argument("--learners", nargs="+")
    t.add_argument("--csv", default=None, help="the 200-bag CSV (default: written to a temporary file)")
    t.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    args = parser.parse_args(argv)
    if args.command == "write":
        write_csv(args.path, seed=args.seed)
        print(args.path)
        return 0
    path = args.csv
    if path is None:
        path = write_csv(os.path.join(tempfile.mkdtemp(), "bags200.csv"))
    result = time_learners(args.data.split(","), args.learners, args.folds, path)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
