"""MILES's inner tuning: the cost of its grid of L1-SVM fits, four ways, in one process.

On the training bags of published fold 0 (repetition 0) of each set, the
inner 5-fold grid of ``MILESClassifier()`` (3 sigmas x 6 C = 90 liblinear
fits on slices of one instance-to-bag pass) is fitted

1. on the uncentred embedding at ``tol`` (the first release's fits),
2. uncentred, at ``10 * tol``,
3. on the embedding centred on the inner-training bags at ``tol``,
4. centred, at ``10 * tol`` (what ``MILESClassifier`` does now),

and the total CPU time of the fits is printed with its ratio to (1), with
the grid point each variant's inner accuracy chooses (ties: smallest C,
then widest sigma, as the classifier breaks them).

    python benchmarks/studies/study_miles_tuning.py [musk1 musk2 elephant ...]

CPU clock (run with ``OMP_NUM_THREADS=1``): robust on a shared machine.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from mil.datasets import load_dataset
from mil._tuning import best_index, inner_folds
from mil.embedding import MILESClassifier
from mil.embedding._minima import miles_features
from mil.evaluation import table_splits
from mil.utils._segments import bag_rows


def grid_cost(clf, rep, seeds, target, folds, center, tol):
    rows, cols = clf._grid(rep)
    correct = np.zeros((len(rows), len(cols)))
    seconds = 0.0
    for train, test in folds:
        concepts = bag_rows(rep.offsets, train)  # an inner fold's concepts: its bags' instances
        M_train, M_test = rep.M[np.ix_(concepts, train)], rep.M[np.ix_(concepts, test)]
        for p, row in enumerate(rows):
            F_train, F_test = miles_features(M_train, row["sigma"]), miles_features(M_test, row["sigma"])
            if center:
                mean = F_train.mean(axis=0)
                F_train, F_test = F_train - mean, F_test - mean
            for c, col in enumerate(cols):
                svm = clf._model(row, col, seeds, False)
                svm.set_params(tol=tol)
                t0 = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    svm.fit(F_train, target[train])
                seconds += time.process_time() - t0
                correct[p, c] += ((svm.decision_function(F_test) > 0) == target[test]).sum()
    accuracy = correct / sum(len(test) for _, test in folds)
    p, c = best_index(accuracy)
    return seconds, (rows[p]["_scale"], cols[c]["C"]), accuracy.max()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", default=["musk1", "musk2", "elephant"])
    args = parser.parse_args(argv)
    print(f"{'set':9s} {'variant':28s} {'fits CPU s':>10s} {'ratio':>6s}  chosen (sigma scale, C), inner acc")
    for name in args.datasets:
        data = load_dataset(name)
        train, _ = table_splits(data.folds[0])[0]
        bags, y = [data.bags[i] for i in train], data.target[train]
        clf = MILESClassifier(random_state=0, cv=5, Cs=(0.1, 0.3, 1.0, 3.0, 10.0, 30.0), sigma_scales=(2.0, 1.0, 0.5))
        # The engine's steps of a fit (mil._tuning): inputs, seeds, representation, folds.
        fit_bags, target, _, _, _ = clf._fit_inputs(bags, y, None)
        fold_seeds, seeds = clf._draw_seeds()
        rep = clf._represent(fit_bags, target, seeds)
        folds = inner_folds(clf.cv, target, seeds=fold_seeds)
        base = None
        variants = (("uncentred, tol", False, clf.tol), ("uncentred, 10 x tol", False, 10 * clf.tol),
                    ("centred, tol", True, clf.tol), ("centred, 10 x tol (default)", True, 10 * clf.tol))
        for label, center, tol in variants:
            seconds, chosen, acc = grid_cost(clf, rep, seeds, target, folds, center, tol)
            base = base or seconds
            print(f"{name:9s} {label:28s} {seconds:10.2f} {seconds / base:6.2f}  {chosen}, {acc:.3f}",
                  flush=True)


if __name__ == "__main__":
    main()
