"""Out-of-fold log loss and accuracy of the wrappers' default C4.5 against its leaf smoothing.

SimpleMI (mean summaries, pruned C4.5 with J48's -M 2) or MIWrapper (geometric
mean, Weka's bag weighting, unpruned C4.5 with -M 2), the inner tree's
``smoothing`` s varied; 5 x 10-fold on the published folds of the five
shipped sets. The prior is the training folds' class frequencies.

    python benchmarks/wrapper_log_loss.py simplemi --smoothing 1 8
    python benchmarks/wrapper_log_loss.py miwrapper --smoothing 1 8
"""

import argparse

import numpy as np
from joblib import Parallel, delayed
from sklearn.metrics import log_loss

from _data import prior_log_loss, published_fold
from mil.tree import C45MIClassifier
from mil.wrappers import MIWrapperClassifier, SimpleMIClassifier

SETS = ["musk1", "musk2", "elephant", "fox", "tiger"]


def make(which, s):
    if which == "simplemi":
        return SimpleMIClassifier(C45MIClassifier(min_bags_leaf=2, pruning=True, smoothing=s))
    return MIWrapperClassifier(C45MIClassifier(min_bags_leaf=2, smoothing=s))


def one_fold(name, which, rep, fold, values):
    X_train, y_train, X_test, y_test = published_fold(name, rep, fold)
    out = {"prior": prior_log_loss(y_train, y_test, np.unique(y_train))}
    for s in values:
        est = make(which, s).fit(X_train, y_train)
        out[f"log loss s={s:g}"] = log_loss(y_test, est.predict_proba(X_test), labels=est.classes_)
        out[f"accuracy s={s:g}"] = 100 * est.score(X_test, y_test)
    return name, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("which", choices=["simplemi", "miwrapper"])
    parser.add_argument("--smoothing", type=float, nargs="+", default=[1.0, 8.0])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    tasks = [(n, args.which, r, f) for n in SETS for r in range(5) for f in range(10)]
    results = Parallel(n_jobs=args.jobs)(delayed(one_fold)(*t, args.smoothing) for t in tasks)
    print(f"{args.which}: 5 x 10-fold means")
    for name in SETS:
        rows = [o for n, o in results if n == name]
        print(name, "  ".join(f"{k} {np.mean([o[k] for o in rows]):.3f}" for k in rows[0]))


if __name__ == "__main__":
    main()
