"""Out-of-fold log loss of ID3-MI and C4.5-MI against their leaf smoothing.

Fits each tree once per fold of the five published 10-fold repetitions of the
shipped sets and scores its bag probabilities at several values of
``smoothing`` (the leaf estimate (pi + s) / (pi + nu + 2 s); the tree and its
binary predictions do not depend on s). The constant prior is the training
folds' class frequencies, as ``mil evaluate`` reports it.

    python benchmarks/studies/study_tree_smoothing.py [--smoothing 1 2 4 8 16] [--datasets musk1 ...]
"""

import argparse
import sys
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from sklearn.metrics import log_loss

from mil.tree import C45MIClassifier, ID3MIClassifier

sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for the shared _data.py
from _data import prior_log_loss, published_fold  # noqa: E402

SETS = ["musk1", "musk2", "elephant", "fox", "tiger"]
LEARNERS = {"id3-mi": ID3MIClassifier, "c45-mi": C45MIClassifier}


def one_fold(name, learner, rep, fold, values):
    X_train, y_train, X_test, y_test = published_fold(name, rep, fold)
    est = LEARNERS[learner]().fit(X_train, y_train)
    out = {"prior": prior_log_loss(y_train, y_test, est.classes_)}
    for s in values:
        out[s] = log_loss(y_test, est.set_params(smoothing=s).predict_proba(X_test), labels=est.classes_)
    return name, learner, rep, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoothing", type=float, nargs="+", default=[1.0, 2.0, 4.0, 8.0, 16.0])
    parser.add_argument("--datasets", nargs="+", default=SETS)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    tasks = [(n, lr, r, f) for n in args.datasets for lr in LEARNERS for r in range(5) for f in range(10)]
    results = Parallel(n_jobs=args.jobs)(delayed(one_fold)(*t, args.smoothing) for t in tasks)
    keys = ["prior"] + args.smoothing
    print("5 x 10-fold mean of the fold log losses (repetition 0 in brackets)")
    print(f"{'learner':8s} {'set':9s} " + " ".join(f"{('s=%g' % k) if k != 'prior' else 'prior':>15s}" for k in keys))
    for learner in LEARNERS:
        for name in args.datasets:
            rows = [(r, o) for n, lr, r, o in results if n == name and lr == learner]
            cells = []
            for k in keys:
                mean = np.mean([o[k] for _, o in rows])
                rep0 = np.mean([o[k] for r, o in rows if r == 0])
                cells.append(f"{mean:.3f} ({rep0:.3f})")
            print(f"{learner:8s} {name:9s} " + " ".join(f"{c:>15s}" for c in cells))


if __name__ == "__main__":
    main()
