"""GDBT-MI predict_proba at 200 rounds: the trees' values summed and pooled once, against pooling every round.

A GDBTMIClassifier at its defaults (200 rounds) is fitted on a shipped set
(Musk1 by default), then predicts 10,000 bags drawn with replacement from the
set's bags. The reference is the former prediction path, kept here: drain the
staged generator, which applies one tree at a time to every instance and pools
the bag scores after every round (``staged_predict_proba``; its last item is
the prediction). ``predict_proba`` adds every tree's leaf values to the
instances' scores in one compiled pass, a block of instances at a time (each
instance's row is read from memory once rather than once per tree), and pools
once. Both run in this process, interleaved, best of `repeat`; the script
checks that they give the same probabilities bit for bit and prints the ratio
(claim >= 2), the peak memory of each (tracemalloc) and, with ``--growth``, the
times at 1x, 4x and 16x the bags.

Usage: python benchmarks/bench_boosting_predict.py [--dataset musk1] [--bags 10000] [--repeat 3]
       [--growth] [--backend compiled|python]
"""

import argparse
import time
import tracemalloc

import numpy as np

from mil._core import use_backend
from mil.ensemble import GDBTMIClassifier

from _data import load  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def reference_proba(clf, bags):
    """The former predict_proba: the last item of the staged generator (pools after every round)."""
    proba = None
    for proba in clf.staged_predict_proba(bags):
        pass
    return proba


def timed(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def peak_memory(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="musk1")
    parser.add_argument("--bags", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--growth", action="store_true", help="also time 1/4 and 4x the bags")
    parser.add_argument("--backend", default="compiled", choices=["compiled", "python"])
    args = parser.parse_args()

    train, y, _ = load(args.dataset)
    with use_backend(args.backend):
        clf = GDBTMIClassifier(random_state=0).fit(train, y)
        depth = np.mean([t.depth[t.children_left < 0].mean() for t in clf.estimators_])
        print(f"{args.dataset}: GDBT-MI, {clf.n_estimators_} rounds, mean leaf depth {depth:.1f}; "
              f"backend {args.backend}")
        sizes = [args.bags // 4, args.bags, 4 * args.bags] if args.growth else [args.bags]
        rng = np.random.default_rng(0)
        for n_bags in sizes:
            bags = train.subset(rng.integers(0, train.n_bags, n_bags))
            t_ref, p_ref = timed(lambda: reference_proba(clf, bags), args.repeat)
            t_new, p_new = timed(lambda: clf.predict_proba(bags), args.repeat)
            same = np.array_equal(p_ref, p_new)
            m_ref = peak_memory(lambda: reference_proba(clf, bags))
            m_new = peak_memory(lambda: clf.predict_proba(bags))
            print(f"{n_bags:7d} bags, {bags.n_instances:8d} instances: pooled every round {t_ref:7.2f} s "
                  f"(peak {m_ref / 2**20:6.1f} MiB), pooled once {t_new:7.2f} s (peak {m_new / 2**20:6.1f} MiB); "
                  f"ratio {t_ref / t_new:5.2f} (claim >= 2); identical: {same}")


if __name__ == "__main__":
    main()
