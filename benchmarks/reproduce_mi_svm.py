"""mi-svm / MI-svm (registry estimators) on the 5 published repetitions x 10 folds, one repetition a line.

The same folds and estimators as `mil reproduce kernels --learners mi-svm MI-svm --datasets NAME`
(evaluate() on table_splits(folds[r])); this script also records the out-of-fold log loss and the
prior's log loss (training-fold class frequency).

    python benchmarks/reproduce_mi_svm.py LEARNER DATASET [DATASET ...] [--param KEY=VALUE ...] [--reps R ...]

``--param`` sets parameters of the registry estimator (e.g. ``max_exact=10000``).
"""
import json
import sys
import time

import numpy as np

from _data import parse_params  # benchmarks/ is on sys.path when run as a script
from mil._learners import make_learner
from mil.datasets import load_dataset
from mil.evaluation import evaluate, table_splits


def main(argv):
    learner = argv[0]
    args = argv[1:]
    reps = list(range(5))
    if "--reps" in args:
        i = args.index("--reps")
        reps = [int(r) for r in args[i + 1:]]
        args = args[:i]
    params = {}
    if "--param" in args:
        i = args.index("--param")
        params = parse_params(args[i + 1:])
        args = args[:i]
    for ds in args:
        _run(learner, ds, reps, params)


def _run(learner, ds, reps, params=None):
    d = load_dataset(ds)
    y = np.asarray(d.target)
    for r in reps:
        splits = list(table_splits(d.folds[r]))
        t, c = time.time(), time.process_time()
        res = evaluate(make_learner(learner, **(params or {})), d.bags, d.target, splits)
        prior = []
        for tr, te in splits:
            p = np.clip(np.mean(y[tr] == 1), 1e-15, 1 - 1e-15)
            prior.append(float(-np.mean(np.where(y[te] == 1, np.log(p), np.log(1 - p)))))
        print(json.dumps({"dataset": ds, "learner": learner, "rep": r,
                          "accuracy": [float(a) for a in res["accuracy"]], "auc": [float(a) for a in res["auc"]],
                          "log_loss": [float(a) for a in res["log_loss"]], "prior_log_loss": prior,
                          "wall": time.time() - t, "cpu": time.process_time() - c}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
