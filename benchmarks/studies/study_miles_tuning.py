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
from mil._tuning import inner_folds
from mil.embedding import MILESClassifier
from mil.embedding._minima import miles_features
from mil.evaluation import table_splits


def grid_cost(clf, state, target, folds, center, tol):
    params, Cs = clf._param_grid(state), clf._C_grid()
    correct = np.zeros((len(params), len(Cs)))
    seconds = 0.0
    for train, test in folds:
        M_train, M_test = clf._fold(state, train, test)
        for p, sigma in enumerate(params):
            F_train, F_test = miles_features(M_train, sigma), miles_features(M_test, sigma)
            if center:
                mean = F_train.mean(axis=0)
                F_train, F_test = F_train - mean, F_test - mean
            for c, C in enumerate(Cs):
                svm = clf._machine(float(C))
                svm.set_params(tol=tol)
                t0 = time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    svm.fit(F_train, target[train])
                seconds += time.process_time() - t0
                correct[p, c] += ((svm.decision_function(F_test) > 0) == target[test]).sum()
    accuracy = correct / sum(len(test) for _, test in folds)
    order = np.lexsort((np.arange(len(params))[:, None].repeat(len(Cs), 1).ravel(),
                        np.tile(np.arange(len(Cs)), len(params)), -accuracy.ravel()))
    p, c = divmod(int(order[0]), len(Cs))
    return seconds, (clf.sigma_scales[p], float(Cs[c])), accuracy.max()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", default=["musk1", "musk2", "elephant"])
    args = parser.parse_args(argv)
    print(f"{'set':9s} {'variant':28s} {'fits CPU s':>10s} {'ratio':>6s}  chosen (sigma scale, C), inner acc")
    for name in args.datasets:
        data = load_dataset(name)
        train, _ = table_splits(data.folds[0])[0]
        bags, y = [data.bags[i] for i in train], data.target[train]
        clf = MILESClassifier(random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(bags, y)  # sets the scaling, centre and seed as fit does; the grid is redone below
        state = clf._prepare(clf._scaled(bags))
        target = (np.searchsorted(clf.classes_, y) == clf._pos_index).astype(np.intp)
        folds = inner_folds(clf.cv, target, random_state=clf.random_state, repeats=clf.cv_repeats)
        base = None
        variants = (("uncentred, tol", False, clf.tol), ("uncentred, 10 x tol", False, 10 * clf.tol),
                    ("centred, tol", True, clf.tol), ("centred, 10 x tol (default)", True, 10 * clf.tol))
        for label, center, tol in variants:
            seconds, chosen, acc = grid_cost(clf, state, target, folds, center, tol)
            base = base or seconds
            print(f"{name:9s} {label:28s} {seconds:10.2f} {seconds / base:6.2f}  {chosen}, {acc:.3f}",
                  flush=True)


if __name__ == "__main__":
    main()
