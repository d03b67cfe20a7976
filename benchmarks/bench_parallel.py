"""Speed-up from 1 to 2 workers: Musk2 bag distances, tree and rule fits, and the distance table.

BLAS is limited to one thread here (set before NumPy loads), so every
speed-up comes from mil's own workers: threads over row blocks in
`hausdorff_all(..., n_jobs=2)`, threads over blocks of features in the split
and condition searches of `C45MIClassifier(n_jobs=2)` and
`RipperMIClassifier(n_jobs=2)`, and threads over outer folds in
`mil reproduce distances --jobs 2` (`reproduce_distances(n_jobs=2)`).
Prints times and the ratio time(1 worker) / time(2 workers) for each; on a
2-core machine the ideal is 2.

    python benchmarks/bench_parallel.py [--repeat 5] [--no-reproduce]
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
from _data import load  # noqa: E402

from mil.distances import hausdorff_all  # noqa: E402
from mil.rules import RipperMIClassifier  # noqa: E402
from mil.tree import C45MIClassifier  # noqa: E402
from mil.reproduce import reproduce_distances  # noqa: E402


def best_time(func, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-reproduce", action="store_true", help="only the distance matrix")
    args = ap.parse_args()

    bags, y, _ = load("musk2")
    one = hausdorff_all(bags)
    two = hausdorff_all(bags, n_jobs=2)
    assert all(np.array_equal(one[k], two[k]) for k in one), "threads changed the distances"
    t1 = best_time(lambda: hausdorff_all(bags), args.repeat)
    t2 = best_time(lambda: hausdorff_all(bags, n_jobs=2), args.repeat)
    print(f"Musk2 hausdorff_all (train vs train): 1 thread {t1:.3f} s, 2 threads {t2:.3f} s, "
          f"speed-up {t1 / t2:.2f}x")

    for cls, params in ((C45MIClassifier, {}), (RipperMIClassifier, {"random_state": 0})):
        fits = {j: cls(n_jobs=j, **params).fit(bags, y) for j in (1, 2)}
        same = np.array_equal(fits[1].predict_proba(bags), fits[2].predict_proba(bags))
        t1 = best_time(lambda: cls(n_jobs=1, **params).fit(bags, y), args.repeat)
        t2 = best_time(lambda: cls(n_jobs=2, **params).fit(bags, y), args.repeat)
        print(f"Musk2 {cls.__name__} fit: 1 thread {t1:.3f} s, 2 threads {t2:.3f} s, "
              f"speed-up {t1 / t2:.2f}x; identical models: {same}")

    if args.no_reproduce:
        return
    runs = {}
    for jobs in (1, 2):
        t0 = time.perf_counter()
        res = reproduce_distances(curves=False, n_jobs=jobs)
        runs[jobs] = (time.perf_counter() - t0, res)
    same = all(np.array_equal(runs[1][1].accuracy[l][d], runs[2][1].accuracy[l][d])
               for l in runs[1][1].learners for d in runs[1][1].datasets)
    print(f"reproduce distances (table only, five sets): 1 worker {runs[1][0]:.1f} s, "
          f"2 workers {runs[2][0]:.1f} s, speed-up {runs[1][0] / runs[2][0]:.2f}x; "
          f"identical tables: {same}")


if __name__ == "__main__":
    main()
