"""GDBT-MI's bag poolings compared: 10-fold CV accuracy with each of lse, max and noisy-or.

Every other parameter at its default (200 rounds, unlimited depth); repetition 0 of the
shipped folds; worker processes over the folds (results do not depend on them).

Usage: python benchmarks/compare_pooling.py [--datasets musk1 elephant ...]
       [--poolings lse max noisy-or] [--jobs 2]
"""

import argparse
import time

import numpy as np

from mil.datasets import load_dataset
from mil.ensemble import GDBTMIClassifier
from mil.ensemble._pooling import POOLINGS
from mil.evaluation import evaluate, fold_indices


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["musk1", "musk2", "elephant", "fox", "tiger"])
    ap.add_argument("--poolings", nargs="+", default=list(POOLINGS), choices=list(POOLINGS))
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    table = {}
    for name in args.datasets:
        data = load_dataset(name)
        splits = fold_indices(data.target, folds=10, repeats=1, fold_table=data.folds)
        for pooling in args.poolings:
            t0 = time.perf_counter()
            res = evaluate(GDBTMIClassifier(pooling=pooling, random_state=0), data.bags, data.target,
                           splits, n_jobs=args.jobs)
            table[pooling, name] = 100 * float(np.mean(res["accuracy"]))
            print(f"{name:9s} {pooling:9s} {table[pooling, name]:5.1f} %  ({time.perf_counter() - t0:.0f} s)",
                  flush=True)
    print("\npooling    " + "  ".join(f"{n:>8s}" for n in args.datasets) + "      mean")
    for pooling in args.poolings:
        accs = [table[pooling, n] for n in args.datasets]
        print(f"{pooling:9s}  " + "  ".join(f"{a:8.1f}" for a in accs) + f"  {np.mean(accs):8.1f}")


if __name__ == "__main__":
    main()
