"""RIPPER-MI accuracy: 10-fold CV (repetition 0 of the shipped folds) on the five MI benchmarks.

Prints a Markdown table (mean accuracy +- standard deviation over the folds, mean
number of rules and of conditions, fit time) and the rules learned on all of Musk1.

    python benchmarks/reproduce_rules.py [--k 2] [--seed 0]
"""

import argparse
import time
from pathlib import Path

import numpy as np

from mil import Bags, RipperMIClassifier

NAMES = ("musk1", "musk2", "elephant", "fox", "tiger")


from _data import load  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def cross_validate(bags, y, folds, **params):
    accs, n_rules, n_conds, fit_times = [], [], [], []
    for fold in range(10):
        test = np.flatnonzero(folds == fold)
        train = np.flatnonzero(folds != fold)
        t0 = time.perf_counter()
        clf = RipperMIClassifier(**params).fit(bags.subset(train), y[train])
        fit_times.append(time.perf_counter() - t0)
        accs.append(clf.score(bags.subset(test), y[test]))
        n_rules.append(len(clf.rules_))
        n_conds.append(sum(len(r) for r in clf.rules_))
    return np.array(accs), np.mean(n_rules), np.mean(n_conds), np.mean(fit_times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    params = dict(k=args.k, random_state=args.seed)

    print(f"RipperMIClassifier({', '.join(f'{k}={v}' for k, v in params.items())}), "
          "10-fold CV, fold row 0\n")
    print("| data set | accuracy (%) | rules | conditions | fit time (s) |")
    print("| --- | --- | --- | --- | --- |")
    for name in NAMES:
        bags, y, folds = load(name)
        accs, n_rules, n_conds, fit_time = cross_validate(bags, y, folds, **params)
        print(f"| {name} | {100 * accs.mean():.1f} +- {100 * accs.std():.1f} | {n_rules:.1f} | "
              f"{n_conds:.1f} | {fit_time:.3f} |")

    bags, y, _ = load("musk1")
    clf = RipperMIClassifier(**params).fit(bags, y)
    print("\nRules learned on all of Musk1:\n")
    print(clf.export_text())


if __name__ == "__main__":
    main()
