"""A registry learner over seeds: 5 x 10-fold accuracy and AUC on the published folds, the seeds' range.

For each data set and each seed of --seeds (the learner's seed parameter,
``mil._learners.SEED_PARAMS``), the
mean accuracy and AUC over the published repetitions x 10 folds; then the
mean over the seeds, their standard deviation and range (a learner without a
seed runs once). Parameters are the
learner's registry defaults, or --param key=value. --json appends one record
per data set with every fold's numbers.

Usage: python benchmarks/reproduce_seeds.py blrt [--seeds 0 1 2] [--datasets musk1 ...] [--repeats 5]
       [--param key=value ...] [--json FILE]
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from mil._learners import SEED_PARAMS, make_learner
from mil.datasets import load_dataset
from mil.evaluation import evaluate, fold_indices

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import parse_params  # noqa: E402  (benchmarks/ is on sys.path when run as a script)

DATASETS = ["musk1", "musk2", "elephant", "fox", "tiger"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("learner")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--param", action="append")
    parser.add_argument("--json")
    args = parser.parse_args()
    params = parse_params(args.param)
    print(f"{args.learner} {params} seeds {args.seeds}, published repetitions 0..{args.repeats - 1} x 10 folds",
          flush=True)
    means = []
    for name in args.datasets:
        data = load_dataset(name)
        splits = fold_indices(data.target, folds=10, repeats=args.repeats, fold_table=data.folds)
        accs, aucs, t0 = [], [], time.perf_counter()
        seeds = args.seeds if args.learner in SEED_PARAMS else [None]  # a deterministic learner runs once
        for seed in seeds:
            est = make_learner(args.learner, **params)
            if seed is not None:
                est.set_params(**{SEED_PARAMS[args.learner]: seed})
            res = evaluate(est, data.bags, data.target, splits)
            accs.append(100 * np.mean(res["accuracy"]))
            aucs.append(100 * np.nanmean(res["auc"]))
            if args.json:
                with open(args.json, "a") as fh:
                    fh.write(json.dumps({"learner": args.learner, "params": params, "dataset": name, "seed": seed,
                                         "repeats": args.repeats, "accuracy": res["accuracy"].tolist(),
                                         "auc": res["auc"].tolist()}) + "\n")
        means.append(np.mean(accs))
        print(f"{name:9s} accuracy {np.mean(accs):.2f} (sd {np.std(accs, ddof=1) if len(accs) > 1 else 0:.2f}, "
              f"{min(accs):.2f}-{max(accs):.2f})  AUC {np.mean(aucs):.2f}  seeds "
              + " ".join(f"{a:.2f}" for a in accs) + f"  {time.perf_counter() - t0:.0f} s", flush=True)
    print(f"mean over {len(means)} data sets: {np.mean(means):.2f}")


if __name__ == "__main__":
    main()
