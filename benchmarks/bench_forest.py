"""The MI random forest fits Musk2 within 2x the time of scikit-learn's random forest on the instances.

Both fit 100 trees on the same 6598 x 166 instance matrix in this process:
MIRandomForestClassifier on the 102 bags, RandomForestClassifier(criterion=
"entropy") on the instances with their bag's label copied, both
single-threaded and both with n_jobs=2. Prints the ratios of the
best-of-`repeat` times, measured interleaved so a load change hits both.

Usage: python benchmarks/bench_forest.py [--repeat 2] [--n-estimators 100] [--backend compiled|python]
       [--param key=value ...]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.ensemble import RandomForestClassifier

from mil import Bags
from mil._core import use_backend
from mil.ensemble import MIRandomForestClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import load_musk2, parse_params  # noqa: E402


def best_times(fns, repeat):
    """Best-of-`repeat` time of each function, run interleaved."""
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, out in zip(fns, times):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return [min(t) for t in times]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--backend", default="compiled", choices=["compiled", "python"])
    parser.add_argument("--param", nargs="*", help="extra forest parameters, key=value")
    args = parser.parse_args()
    params = parse_params(args.param)

    X, bag_ids, y = load_musk2()
    bags = Bags.from_instances(X, bag_ids)
    y_inst = np.asarray(y)[bags.instance_bag]
    print(f"Musk2: {bags.n_bags} bags, {bags.n_instances} instances, {bags.n_features} features; "
          f"{args.n_estimators} trees {params or ''}")
    for n_jobs in (None, 2):
        sk = RandomForestClassifier(n_estimators=args.n_estimators, criterion="entropy", random_state=0,
                                    n_jobs=n_jobs)
        mi = MIRandomForestClassifier(n_estimators=args.n_estimators, random_state=0, n_jobs=n_jobs, **params)
        with use_backend(args.backend):
            t_sk, t_mi = best_times([lambda: sk.fit(bags.instances, y_inst), lambda: mi.fit(bags, y)],
                                    args.repeat)
        nodes_sk = np.mean([e.tree_.node_count for e in sk.estimators_])
        nodes_mi = np.mean([e.tree_.node_count for e in mi.estimators_])
        print(f"\nn_jobs={n_jobs}")
        print(f"  sklearn RandomForestClassifier(entropy): {t_sk:.2f} s  ({nodes_sk:.0f} nodes per tree)")
        print(f"  MIRandomForestClassifier [{args.backend}]: {t_mi:.2f} s  ({nodes_mi:.0f} nodes per tree)")
        print(f"  ratio MI forest / sklearn = {t_mi / t_sk:.2f}  (claim <= 2)")


if __name__ == "__main__":
    main()
