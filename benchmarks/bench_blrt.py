"""BLRT fits and predicts Musk2 within 2x the time of scikit-learn's ExtraTrees on the instance table.

Musk2: BagRandomTreesClassifier (100 trees, the defaults) on the 102 bags
against ExtraTreesClassifier(n_estimators=100) on the 6598 x 166 instance
matrix with each bag's label copied to its instances, both single-threaded
and both with n_jobs=2; then predict_proba of all bags (instances for
ExtraTrees). Best-of-`repeat` times, measured interleaved in this process so
a load change hits both; prints the ratios. Then the growth of BLRT's fit
time from Elephant to 4x and 16x its bags (copies of the bags with a small
jitter, labels copied), single-threaded, with ExtraTrees on the same
instances for reference, and the peak memory traced during a Musk2 fit.

Usage: python benchmarks/bench_blrt.py [--repeat 2] [--backend compiled|python] [--no-growth]
       [--param key=value ...]
"""

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
from sklearn.ensemble import ExtraTreesClassifier

from mil import Bags
from mil._core import use_backend
from mil.datasets import load_dataset
from mil.ensemble import BagRandomTreesClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import parse_params  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def best_times(fns, repeat):
    """Best-of-`repeat` time of each function, run interleaved."""
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, out in zip(fns, times):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return [min(t) for t in times]


def scaled(bags, y, factor, seed=0):
    """`factor` copies of every bag (the first unchanged, the others jittered by 1e-6 relative noise)."""
    rng = np.random.default_rng(seed)
    parts, labels = [bags.instances], [y]
    scale = 1e-6 * (np.nanstd(bags.instances, axis=0) + 1e-12)
    for _ in range(factor - 1):
        parts.append(bags.instances + rng.normal(size=bags.instances.shape) * scale)
        labels.append(y)
    sizes = np.tile(np.diff(bags.offsets), factor)
    return Bags(np.vstack(parts), np.r_[0, np.cumsum(sizes)]), np.concatenate(labels)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--backend", default="compiled", choices=["compiled", "python"])
    parser.add_argument("--no-growth", action="store_true")
    parser.add_argument("--param", nargs="*", help="extra BLRT parameters, key=value")
    args = parser.parse_args()
    params = parse_params(args.param)

    d = load_dataset("musk2", as_bags=True)
    bags, y = d.bags, d.target
    y_inst = np.asarray(y)[bags.instance_bag]
    print(f"Musk2: {bags.n_bags} bags, {bags.n_instances} instances, {bags.n_features} features; "
          f"100 trees {params or ''} [{args.backend}]")
    with use_backend(args.backend):
        for n_jobs in (None, 2):
            et = ExtraTreesClassifier(n_estimators=100, random_state=0, n_jobs=n_jobs)
            blrt = BagRandomTreesClassifier(random_state=0, n_jobs=n_jobs, **params)
            t_et, t_b = best_times([lambda: et.fit(bags.instances, y_inst), lambda: blrt.fit(bags, y)],
                                   args.repeat)
            p_et, p_b = best_times([lambda: et.predict_proba(bags.instances), lambda: blrt.predict_proba(bags)],
                                   args.repeat)
            nodes = np.mean([t.node_count for t in blrt.estimators_])
            print(f"\nn_jobs={n_jobs}")
            print(f"  fit      ExtraTrees {t_et:.2f} s  BLRT {t_b:.2f} s ({nodes:.0f} nodes per tree)  "
                  f"ratio {t_b / t_et:.2f} (claim <= 2)")
            print(f"  predict  ExtraTrees {p_et:.3f} s  BLRT {p_b:.3f} s  ratio {p_b / p_et:.2f} (claim <= 2)")
        tracemalloc.start()
        BagRandomTreesClassifier(random_state=0, **params).fit(bags, y)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"\npeak traced memory of a BLRT fit on Musk2: {peak / 2 ** 20:.1f} MiB "
              f"(the instance table: {bags.instances.nbytes / 2 ** 20:.1f} MiB)")

        if args.no_growth:
            return
        e = load_dataset("elephant", as_bags=True)
        print("\nElephant growth, n_jobs=None (fit seconds; ratio to 1x)")
        base = base_et = None
        for factor in (1, 4, 16):
            b, yy = scaled(e.bags, e.target, factor)
            et = ExtraTreesClassifier(n_estimators=100, random_state=0)
            blrt = BagRandomTreesClassifier(random_state=0, **params)
            t_et, t_b = best_times([lambda: et.fit(b.instances, np.asarray(yy)[b.instance_bag]),
                                    lambda: blrt.fit(b, yy)], 1)
            base, base_et = base or t_b, base_et or t_et
            print(f"  {factor:2d}x ({b.n_bags} bags, {b.n_instances} instances): BLRT {t_b:.2f} s "
                  f"({t_b / base:.1f}x)  ExtraTrees {t_et:.2f} s ({t_et / base_et:.1f}x)")


if __name__ == "__main__":
    main()
