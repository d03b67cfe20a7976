"""Musk2's three Hausdorff matrices in one pass: at most 0.75x ``X @ X.T`` compiled, 2x in the NumPy twin.

Prints, for the compiled kernel and the NumPy twin, the time of the
minimal + maximal + average matrices (one pass, 102 x 102 bags from 6598
instances of 166 features) divided by the time of the plain matrix product
X @ X.T of the instance matrix, both measured in this process (best of
several runs), and the same ratio for a naive loop of scipy ``cdist`` over
bag pairs. Targets: compiled <= 0.75, pure Python <= 2.0.

    python benchmarks/bench_distances.py [--repeat 7]
"""

import argparse
import time

import numpy as np
from scipy.spatial.distance import cdist

from mil import datasets
from mil._core import compiled_available, use_backend
from mil.bags import Bags
from mil.distances import hausdorff_all


def best_time(func, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        times.append(time.perf_counter() - t0)
    return min(times)


def cdist_loop(bags):
    n = bags.n_bags
    out = np.zeros((3, n, n))
    for i in range(n):
        a = bags[i]
        for j in range(i + 1, n):
            D = cdist(a, bags[j])
            r, c = D.min(axis=1), D.min(axis=0)
            out[:, i, j] = out[:, j, i] = (D.min(), max(r.max(), c.max()),
                                            (r.sum() + c.sum()) / (len(r) + len(c)))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    data = datasets.load_musk2()
    bags = Bags.from_list(data.data)
    X = bags.instances
    print(f"Musk2: {bags.n_bags} bags, {bags.n_instances} instances, {bags.n_features} features")
    base = best_time(lambda: X @ X.T, args.repeat)
    print(f"X @ X.T                        {base:7.3f} s   ratio 1.00")
    results = {}
    for kind in ("compiled", "python"):
        if kind == "compiled" and not compiled_available("_hausdorff"):
            print("compiled kernel not available")
            continue
        with use_backend(kind):
            t = best_time(lambda: hausdorff_all(bags), args.repeat)
            results[kind] = hausdorff_all(bags)
        target = 0.75 if kind == "compiled" else 2.0
        print(f"hausdorff_all ({kind:8s})      {t:7.3f} s   ratio {t / base:.2f}  (claim <= {target})")
    t = best_time(lambda: cdist_loop(bags), max(1, args.repeat // 3))
    print(f"scipy cdist per bag pair       {t:7.3f} s   ratio {t / base:.2f}")
    ref = cdist_loop(bags)
    for kind, mats in results.items():
        got = np.array([mats["minimal"], mats["maximal"], mats["average"]])
        rel = np.max(np.abs(got - ref) / np.maximum(ref, 1e-300))
        print(f"max relative difference {kind} vs cdist: {rel:.1e}")


if __name__ == "__main__":
    main()
