"""mi-SVM's linear SVM: the finite Newton solver against liblinear (LinearSVC) on the same problem, cold and warm-started, at 1x, 4x, 16x instances.

The refit an alternation makes: Nystroem-like features (64 by default, seeded
normal data with a noisy linear concept), ``C`` = 10, then the same labels
with 0.1 % of them flipped, as after one of mi-SVM's relabellings. Printed:
CPU seconds (the best of ``--repeat``) of ``LinearSVC(loss="squared_hinge",
dual=False)`` at its default tolerance, of ``SquaredHingeSVM`` from zero and
of ``SquaredHingeSVM`` started from the fit before the flip, the ratios
liblinear / Newton, the growth per size, and the largest difference of the
decision values from liblinear's (its tolerance, not the Newton solver's).

    OMP_NUM_THREADS=1 python benchmarks/bench_squared_hinge.py [--instances 25000 100000 400000]
        [--features 64] [--repeat 3]
"""

import argparse
import warnings

import numpy as np
from sklearn.svm import LinearSVC

from mil.svm._squared_hinge import SquaredHingeSVM

from _data import cpu_time  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def _data(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X[:, :4].sum(axis=1) + rng.standard_normal(n) > 0.5).astype(int)
    flipped = y.copy()
    flip = rng.choice(n, max(1, n // 1000), replace=False)
    flipped[flip] = 1 - flipped[flip]
    return X, y, flipped


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, nargs="+", default=[25000, 100000, 400000])
    parser.add_argument("--features", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    C = 10.0
    print(f"{'instances':>10}{'liblinear s':>13}{'Newton s':>10}{'warm s':>9}{'ratio':>8}{'warm ratio':>12}"
          f"{'growth l/N/w':>18}{'max |diff|':>12}")
    last = None
    for n in args.instances:
        X, y, flipped = _data(n, args.features)
        before = SquaredHingeSVM(C).fit(X, flipped)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib = LinearSVC(C=C, loss="squared_hinge", dual=False)
            tl = cpu_time(lambda: lib.fit(X, y), args.repeat)
        tn = cpu_time(lambda: SquaredHingeSVM(C).fit(X, y), args.repeat)
        tw = cpu_time(lambda: SquaredHingeSVM(C).fit(X, y, start=before), args.repeat)
        diff = np.abs(SquaredHingeSVM(C).fit(X, y).decision_function(X) - lib.decision_function(X)).max()
        growth = "" if last is None else f"{tl / last[0]:.1f}/{tn / last[1]:.1f}/{tw / last[2]:.1f}x"
        print(f"{n:>10}{tl:>13.3f}{tn:>10.3f}{tw:>9.3f}{tl / tn:>8.1f}{tl / tw:>12.1f}{growth:>18}{diff:>12.1e}",
              flush=True)
        last = (tl, tn, tw)


if __name__ == "__main__":
    main()
