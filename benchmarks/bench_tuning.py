"""The tuning engine against the inner-CV loop it replaced: one SlicedWassersteinClassifier fit.

The engine (:mod:`mil._tuning`) computes the encodings' distance matrix once per fit, slices it once
per inner fold, exponentiates it once per gamma and fold (not per C), and fits the inner grid's
SVMs on the precomputed kernel through libsvm without scikit-learn's per-fit input checks
(:mod:`mil._tuning._libsvm`; the same decision values). The loop it replaced recomputed the
distances of each fold's training and test bags for every kernel setting (p, gamma) of the grid
and fitted every SVM through ``SVC.fit``. This script times one fit at the class defaults, in the
same process, on the training part of a published fold of a shipped set (the first repetition's
fold 0): the baseline is that loop, reconstructed here (the same encoder, folds, grid, per-fold
median bandwidth and SVC); the new way is the class; a third line is the class with its inner
SVMs fitted through ``SVC.fit`` (what the libsvm path saves). The three run in turn, ``--repeats``
rounds; it prints the distance calls and pairs of each, the median wall time and the median of
the rounds' ratios (a round's fits run back to back, so a busy machine's load changes less
within a round than across rounds).

    python benchmarks/bench_tuning.py                 # Tiger, 7 rounds
    python benchmarks/bench_tuning.py --data musk1 --bags 60
"""

import argparse
import os
import sys
import time

import numpy as np
from sklearn.svm import SVC

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _data import published_fold  # noqa: E402

from mil._tuning import _engine as engine_module  # noqa: E402
from mil._tuning import inner_folds, positive_grid, select  # noqa: E402
from mil.bags import Bags  # noqa: E402
from mil.distances import hausdorff  # noqa: E402
from mil.embedding import SlicedWassersteinClassifier  # noqa: E402
from mil.embedding import _encoder_classifiers as encoder_module  # noqa: E402

CALLS = []


def _counted_distances(A, B=None):
    """Euclidean distances of the rows of A and B through one-instance bags, counted."""
    if A.shape[0] == 0 or (B is not None and B.shape[0] == 0):
        return np.zeros((A.shape[0], A.shape[0] if B is None else B.shape[0]))
    CALLS.append(A.shape[0] * (A.shape[0] if B is None else B.shape[0]))

    def rows(M):
        M = np.ascontiguousarray(M, dtype=np.float64)
        return Bags(M, np.arange(M.shape[0] + 1))

    return hausdorff(rows(A), None if B is None else rows(B), kind="minimal")


def replaced_loop(clf, X, y):
    """The replaced fit at the class defaults (model="rbf"): the fold loop that recomputes the
    distances of a fold's bags for every (p, gamma) row and takes gamma from the fold's median."""
    rng = np.random.RandomState(clf.random_state)
    seed = int(rng.randint(np.iinfo(np.int32).max))
    enc = clf._encoders()[0].set_params(random_state=seed).fit(X)
    E = np.asarray(enc.transform(X), dtype=np.float64)
    target = np.asarray(y, dtype=np.intp)
    params = [(float(q), float(g)) for q in positive_grid(clf.p, "p") for g in positive_grid(clf.gamma_scales, "g")]
    Cs = positive_grid(clf.Cs, "Cs")

    def design(E_train, E_test, p, g):
        S = _counted_distances(E_train) ** p
        off = ~np.eye(S.shape[0], dtype=bool)
        med = float(np.median(S[off]))
        gamma = g / med
        return np.exp(-gamma * S), np.exp(-gamma * _counted_distances(E_test, E_train) ** p)

    folds = inner_folds(clf.cv, target, random_state=clf.random_state)

    def fold_scores(train, test):
        out = np.zeros((len(params), len(Cs), test.shape[0]))
        for i, (p, g) in enumerate(params):
            A_train, A_test = design(E[train], E[test], p, g)
            for j, C in enumerate(Cs):
                svc = SVC(kernel="precomputed", C=C, tol=1e-8).fit(A_train, target[train])
                out[i, j] = svc.decision_function(A_test)
        return out

    sel = select(folds, (len(params), len(Cs)), fold_scores, target)
    i, j = sel.index
    A, _ = design(E, E[:0], *params[i])
    return SVC(kernel="precomputed", C=Cs[j], tol=1e-8).fit(A, target)


def _through_svc_fit(clf, X, y):
    """The class's fit with the inner grid's SVMs fitted by ``SVC.fit`` (no libsvm shortcut)."""
    saved = engine_module.svc_decision
    engine_module.svc_decision = lambda *args: None
    try:
        return clf.fit(X, y)
    finally:
        engine_module.svc_decision = saved


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="tiger")
    parser.add_argument("--bags", type=int, default=None, help="the first N training bags only")
    parser.add_argument("--repeats", type=int, default=7, help="rounds (each runs every way once)")
    args = parser.parse_args()
    X, y, _, _ = published_fold(args.data, 0, 0)
    if args.bags:
        X, y = X[:args.bags], y[:args.bags]
    y = np.asarray(y)
    print(f"{args.data}: {len(X)} training bags, {sum(len(b) for b in X)} instances; "
          f"SlicedWassersteinClassifier(random_state=0) at its defaults")
    encoder_module._distances = _counted_distances  # count the class's calls the same way
    ways = {"replaced loop (baseline)": lambda: replaced_loop(SlicedWassersteinClassifier(random_state=0), X, y),
            "tuning engine": lambda: SlicedWassersteinClassifier(random_state=0).fit(X, y),
            "engine, inner SVC.fit": lambda: _through_svc_fit(SlicedWassersteinClassifier(random_state=0), X, y)}
    times = {name: [] for name in ways}
    calls = {}
    for _ in range(args.repeats):
        for name, fit in ways.items():
            CALLS.clear()
            t0 = time.perf_counter()
            fit()
            times[name].append(time.perf_counter() - t0)
            calls[name] = (len(CALLS), sum(CALLS))
    for name in ways:
        print(f"  {name:26s} {np.median(times[name]):7.3f} s   {calls[name][0]:3d} distance calls, "
              f"{calls[name][1]:9,d} pairs")
    base = np.asarray(times["replaced loop (baseline)"])
    for name in list(ways)[1:]:
        ratios = base / np.asarray(times[name])
        print(f"  speed-up of the {name}: median {np.median(ratios):.2f}x over {args.repeats} rounds "
              f"(min {ratios.min():.2f}x, max {ratios.max():.2f}x)")


if __name__ == "__main__":
    main()
