"""C4.5-MI fits Musk2 in at most the time of scikit-learn's entropy tree on the instance table.

Both fit on the same 6598 x 166 instance matrix in this process: C4.5-MI on the
102 bags, DecisionTreeClassifier(criterion="entropy") on the instances with
their bag's label; C4.5-MI and ID3-MI with their defaults. Two comparisons:
no depth limit for either (scikit-learn stops at depth ~21; Gain_multi grows a
much deeper chain that peels negative bags off one or two at a time), and the
same depth limit for both (--max-depth, 20 by default, about scikit-learn's
natural depth). Prints the ratios of the best-of-`repeat` times, measured
interleaved (claim: C4.5-MI at its defaults, no depth limit, <= 1.0).

Usage: python benchmarks/bench_trees.py [--repeat 5] [--max-depth 20] [--backend compiled|python]
       [--param growth=best split_shares=children] [--c45-param average_gain_tolerance=0.001]

--param goes to both MI trees; --c45-param to C4.5-MI only, for its own options
(``average_gain_tolerance``, ``mdl_correction``, ``min_split``, ...), which
ID3-MI does not take.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from mil import Bags
from mil._core import use_backend
from mil.tree import C45MIClassifier, ID3MIClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import load_musk2, parse_params  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def best_times(fns, repeat):
    """Best-of-`repeat` time of each function, run interleaved so load changes hit all alike."""
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, out in zip(fns, times):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return [min(t) for t in times]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--backend", default="compiled", choices=["compiled", "python"])
    parser.add_argument("--max-depth", type=int, default=20,
                        help="the common depth limit of the second comparison")
    parser.add_argument("--param", nargs="*", help="extra parameters of both MI trees, key=value")
    parser.add_argument("--c45-param", nargs="*", help="extra parameters of C4.5-MI only, key=value")
    args = parser.parse_args()
    params = parse_params(args.param)
    c45_only = parse_params(args.c45_param)
    c45_params = {**params, **c45_only}

    X, bag_ids, y = load_musk2()
    bags = Bags.from_instances(X, bag_ids)
    y_inst = np.asarray(y)[bags.instance_bag]
    print(f"Musk2: {bags.n_bags} bags, {bags.n_instances} instances, {bags.n_features} features")

    for depth in (None, args.max_depth):
        sk = DecisionTreeClassifier(criterion="entropy", max_depth=depth, random_state=0)
        c45 = C45MIClassifier(max_depth=depth, **c45_params)
        id3 = ID3MIClassifier(max_depth=depth, **params)
        with use_backend(args.backend):
            t_sk, t_c45, t_id3 = best_times(
                [lambda: sk.fit(bags.instances, y_inst), lambda: c45.fit(bags, y),
                 lambda: id3.fit(bags, y)], args.repeat)
        print(f"\nmax_depth={depth} {params or ''}" + (f" C4.5-MI only: {c45_only}" if c45_only else ""))
        print(f"  sklearn DecisionTreeClassifier(entropy): {t_sk:.3f} s  "
              f"(depth {sk.get_depth()}, {sk.get_n_leaves()} leaves)")
        print(f"  C45MIClassifier [{args.backend}]: {t_c45:.3f} s  "
              f"(depth {c45.get_depth()}, {c45.get_n_leaves()} leaves)")
        print(f"  ID3MIClassifier [{args.backend}]: {t_id3:.3f} s  "
              f"(depth {id3.get_depth()}, {id3.get_n_leaves()} leaves)")
        print(f"  ratio C4.5-MI / sklearn = {t_c45 / t_sk:.2f}" + ("  (claim <= 1.0)" if depth is None else ""))
        print(f"  ratio ID3-MI / sklearn  = {t_id3 / t_sk:.2f}")


if __name__ == "__main__":
    main()
