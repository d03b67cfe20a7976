"""Sparse bag distances on one MILWEB user at least 5x faster than the dense path, same matrices.

All 113 bags of a user (3,423 instances, about 6,000 word-frequency features,
0.3 % non-zero), train vs train: the minimal, maximal and average matrices
from the sparse path (CSR instances, scipy's sparse product) and from the
dense path (the same instances as a dense float64 matrix, the compiled
kernel, and the NumPy twin with ``--python``), timed in this process (best
of ``--repeat`` runs), with the largest relative difference between the two.
Target: sparse at least 5x faster than dense (compiled).

    python benchmarks/bench_sparse_distances.py [--user 1] [--repeat 3] [--python] [--table]

``--table`` also times the whole MILWEB table (``reproduce_milweb``: ten
learners, nine users, curves included), once.
"""

import argparse
import os
import time

import numpy as np

from mil._core import compiled_available, use_backend
from mil.datasets import load_milweb
from mil.distances import hausdorff_all


def best_time(func, repeat):
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - t0)
    return min(times), result


def max_relative(S, D):
    return max(float(np.abs(S[k] - D[k]).max() / np.abs(D[k]).max()) for k in D)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--user", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--python", action="store_true", help="also the dense path's NumPy twin")
    parser.add_argument("--table", action="store_true", help="also time reproduce_milweb()")
    args = parser.parse_args(argv)
    d = load_milweb(args.user, as_bags=True)
    sparse = d.bags
    dense = sparse.toarray()
    X = sparse.instances
    print(f"MILWEB user {args.user}: {sparse.n_bags} bags, {sparse.n_instances} instances, "
          f"{sparse.n_features} features, {100 * X.nnz / np.prod(X.shape):.2f} % non-zero; "
          f"OMP/OPENBLAS threads: {os.environ.get('OPENBLAS_NUM_THREADS', 'default')}")
    t_sparse, S = best_time(lambda: hausdorff_all(sparse), args.repeat)
    print(f"sparse path                 {t_sparse:7.3f} s")
    backends = (["compiled"] if compiled_available("_hausdorff") else []) + (["python"] if args.python else [])
    for kind in backends:
        with use_backend(kind):
            t_dense, D = best_time(lambda: hausdorff_all(dense), args.repeat)
        print(f"dense path ({kind:8s})     {t_dense:7.3f} s   dense / sparse = {t_dense / t_sparse:5.1f}x   "
              f"max relative difference {max_relative(S, D):.1e}")
    if args.table:
        from mil.reproduce import reproduce_milweb

        t0 = time.perf_counter()
        reproduce_milweb()
        print(f"MILWEB table (ten learners, nine users, curves): {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
