"""ID3-MI and C4.5-MI accuracy and log loss against the pooling of a bag's instances (sharpness).

Fits each tree once per fold of the five published 10-fold repetitions of the
shipped sets (the tree does not depend on `sharpness`) and scores its bag
predictions at several sharpnesses r: ``predict_proba`` is expit of the
log-sum-exp (1/r) log(mean exp(r f)) of the instances' smoothed leaf log-odds,
``np.inf`` (written ``inf``) the maximum, the multi-instance rule. Prints, per
learner and r, the 5 x 10-fold mean accuracy of each set (repetition 0 in
brackets), the five-set mean, the paired difference against the maximum over
the 25 (set, repetition) pairs (its standard error; pairs won / lost), and the
5 x 10 mean log loss of each set next to the constant prior's.

    python benchmarks/studies/study_tree_pooling.py [--learners c45-mi id3-mi] [--sharpness 1 2 4 8 inf] \
        [--smoothing 4] [--datasets musk1 ...] [--jobs 2]
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


def one_fold(name, learner, rep, fold, values, smoothing=None):
    X_train, y_train, X_test, y_test = published_fold(name, rep, fold)
    est = LEARNERS[learner]().fit(X_train, y_train)
    if smoothing is not None:
        est.set_params(smoothing=smoothing)  # the tree does not depend on it either
    out = {"prior": (np.nan, prior_log_loss(y_train, y_test, est.classes_))}
    for r in values:
        est.set_params(sharpness=r)
        out[r] = (float(np.mean(est.predict(X_test) == y_test)),
                  log_loss(y_test, est.predict_proba(X_test), labels=est.classes_))
    return name, learner, rep, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", nargs="+", default=list(LEARNERS), choices=list(LEARNERS))
    parser.add_argument("--sharpness", type=float, nargs="+", default=[0.5, 1.0, 2.0, 4.0, 8.0, 16.0, np.inf])
    parser.add_argument("--datasets", nargs="+", default=SETS)
    parser.add_argument("--smoothing", type=float, default=None,
                        help="leaf smoothing s for every fit (default: each learner's own)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    values = sorted(set(args.sharpness) | {np.inf})
    tasks = [(n, lr, r, f) for lr in args.learners for n in args.datasets for r in range(5) for f in range(10)]
    results = Parallel(n_jobs=args.jobs)(delayed(one_fold)(*t, values, args.smoothing) for t in tasks)
    if args.smoothing is not None:
        print(f"smoothing={args.smoothing:g}")

    def rep_means(learner, name, key, which):
        # Per repetition: the mean over its ten folds (accuracy 0, log loss 1).
        return np.array([np.mean([o[key][which] for n, lr, r, o in results if n == name and lr == learner and r == rep])
                         for rep in range(5)])

    for learner in args.learners:
        print(f"\n{learner}: 5 x 10-fold accuracy % (repetition 0); paired against the maximum (se), won / lost")
        print(f"{'r':>6s} " + " ".join(f"{n:>14s}" for n in args.datasets) + f" {'mean':>6s}")
        for key in values:
            acc = [100 * rep_means(learner, n, key, 0) for n in args.datasets]
            diff = np.concatenate([a - 100 * rep_means(learner, n, np.inf, 0) for a, n in zip(acc, args.datasets)])
            se = diff.std(ddof=1) / np.sqrt(diff.size)
            print(f"{key:6g} " + " ".join(f"{a.mean():6.1f} ({a[0]:5.1f})" for a in acc)
                  + f" {np.mean([a.mean() for a in acc]):6.2f}   {diff.mean():+.2f} ({se:.2f}) "
                  f"{int((diff > 0).sum())} / {int((diff < 0).sum())}")
        print(f"{learner}: 5 x 10-fold mean log loss")
        for key in ["prior"] + values:
            label = "prior" if key == "prior" else f"{key:g}"
            print(f"{label:>6s} " + " ".join(f"{rep_means(learner, n, key, 1).mean():14.3f}" for n in args.datasets))


if __name__ == "__main__":
    main()
