"""10-fold CV accuracy of ID3-MI and C4.5-MI on the five benchmark sets (issue 4).

Uses repetition 0 of the shipped fold assignments. Prints one row per data set.

Usage: python benchmarks/reproduce_trees.py [--datasets musk1 musk2 ...] [--param key=value ...]
"""

import argparse
import time
from pathlib import Path

import numpy as np

from mil import Bags
from mil.tree import C45MIClassifier, ID3MIClassifier

DATASETS = ["musk1", "musk2", "elephant", "fox", "tiger"]


from _data import load, parse_params  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def cv_accuracy(make, bags, y, folds):
    correct = 0
    for k in np.unique(folds):
        test = folds == k
        clf = make().fit(bags[~test], y[~test])
        correct += int((clf.predict(bags[test]) == y[test]).sum())
    return correct / y.size


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--param", nargs="*", help="extra parameters for both learners, key=value")
    args = parser.parse_args()
    params = parse_params(args.param)
    print(f"{'data set':10s} {'ID3-MI':>8s} {'C4.5-MI':>8s}   (10-fold CV, fold row 0) {params}")
    for name in args.datasets:
        bags, y, folds = load(name)
        t0 = time.perf_counter()
        id3 = cv_accuracy(lambda: ID3MIClassifier(**params), bags, y, folds)
        c45 = cv_accuracy(lambda: C45MIClassifier(**params), bags, y, folds)
        print(f"{name:10s} {100 * id3:8.1f} {100 * c45:8.1f}   ({time.perf_counter() - t0:.1f} s)",
              flush=True)


if __name__ == "__main__":
    main()
