"""10-fold CV accuracy of GDBT-MI (against C4.5-MI) on the five benchmark sets (issue 5).

Uses repetition 0 of the shipped fold assignments. Prints one row per data set:
C4.5-MI with its defaults, then GDBT-MI with each pooling asked for. With
``--plot FILE.png`` it also draws the train and test error against the number
of rounds on Musk1 and Musk2 (first fold of repetition 0 held out), as in the
GDBT-MI paper's figure.

Usage: python benchmarks/reproduce_boosting.py [--datasets musk1 ...] [--pooling lse max noisy-or]
       [--param key=value ...] [--plot boosting_error.png]
"""

import argparse
import time
from pathlib import Path

import numpy as np

from mil import Bags
from mil.ensemble import GDBTMIClassifier, plot_staged_error
from mil.tree import C45MIClassifier

DATASETS = ["musk1", "musk2", "elephant", "fox", "tiger"]


from _data import load, parse_params  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def cv_accuracy(make, bags, y, folds):
    correct = 0
    for k in np.unique(folds):
        test = folds == k
        clf = make().fit(bags[~test], y[~test])
        correct += int((clf.predict(bags[test]) == y[test]).sum())
    return correct / y.size


def plot(path, params):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, name in zip(axes, ["musk1", "musk2"]):
        bags, y, folds = load(name)
        test = folds == 0
        clf = GDBTMIClassifier(**params).fit(bags[~test], y[~test])
        plot_staged_error(clf, bags[~test], y[~test], bags[test], y[test], ax=ax,
                          title=f"GDBT-MI on {name} (fold 0 held out)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=DATASETS, help="none: only the plot")
    parser.add_argument("--pooling", nargs="+", default=["lse"])
    parser.add_argument("--param", nargs="*", help="extra GDBT-MI parameters, key=value")
    parser.add_argument("--no-c45", action="store_true", help="skip the C4.5-MI column")
    parser.add_argument("--plot", help="write the staged-error figure to this PNG")
    args = parser.parse_args()
    params = parse_params(args.param)
    cols = ([] if args.no_c45 else ["C4.5-MI"]) + [f"GDBT-{p}" for p in args.pooling]
    print(f"{'data set':10s} " + " ".join(f"{c:>14s}" for c in cols)
          + f"   (10-fold CV, fold row 0) {params}", flush=True)
    for name in args.datasets:
        bags, y, folds = load(name)
        t0 = time.perf_counter()
        accs = [] if args.no_c45 else [cv_accuracy(C45MIClassifier, bags, y, folds)]
        for p in args.pooling:
            accs.append(cv_accuracy(lambda: GDBTMIClassifier(pooling=p, **params), bags, y, folds))
        print(f"{name:10s} " + " ".join(f"{100 * a:14.1f}" for a in accs)
              + f"   ({time.perf_counter() - t0:.1f} s)", flush=True)
    if args.plot:
        plot(args.plot, {k: v for k, v in params.items()})


if __name__ == "__main__":
    main()
