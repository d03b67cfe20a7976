"""Instance-to-bag minima M within 0.75x ``X @ X.T``; MILES / MInD tuned fits within 3x M; cost growth.

Prints, all measured in this process (best of several runs):

1. M on Musk2 train-vs-train (6598 instances x 102 bags) divided by the
   time of the plain product X @ X.T of its instance matrix, for the
   compiled kernel and the NumPy twin (claims: <= 0.75 and <= 2.0), and
   the Hausdorff matrices' pass for comparison;
2. MILESClassifier and MInDClassifier fit on Musk2 (published fold 0 of
   repetition 0: 92 training bags) + predict (10 test bags), divided by
   the time of M on the same 92 training bags; once with fixed
   hyper-parameters (``cv=1``) and once with the default inner tuning
   (claim: fixed within 3x);
3. ``--growth``: time and peak memory (tracemalloc: NumPy's arrays and
   the kernel's Python-visible outputs; the kernel's block buffer of at most
   ``BLOCK_SIZE**2`` doubles is not traced) of MILESEmbedding and
   BagDissimilarityEmbedding ``fit_transform`` on 1x, 4x and 16x the bags of
   Elephant (copies with small Gaussian noise), and of MILES with
   ``n_concepts=1000`` k-means concepts.

    python benchmarks/bench_embeddings.py [--repeat 5] [--growth] [--clock cpu]
    python benchmarks/bench_embeddings.py --growth-concepts [--clock cpu]
    python benchmarks/bench_embeddings.py --miles-grids [--repeat 7] [--clock cpu]
    python benchmarks/bench_embeddings.py --mind-grids [--repeat 7] [--clock cpu]

``--miles-grids`` runs only part 2 for MILES, with the inner settings
compared when its default grid was chosen (docs/results/embeddings.rst,
"How the grids were chosen"): the earlier default (3 x 6 grid, 5 inner folds),
the 2 x 4 grid with 5, 3 and 2 inner folds, and with 3 inner folds whose
fits stop at ``100 * tol``. ``--mind-grids`` does the same for MInD: the
default, the earlier default, the wider grid and ``kernel="auto"`` tried for
Musk2 and Tiger.

``--growth-concepts`` runs only MILES with ``n_concepts=1000`` at the three
sizes, and times its clustering alone against scikit-learn's Lloyd
``KMeans``.

``--clock cpu`` times with the process CPU clock instead of the wall clock:
with one BLAS thread (``OMP_NUM_THREADS=1``) it is the robust choice on a
machine shared with other jobs.
"""

import argparse
import time
import tracemalloc
import warnings

import numpy as np

from mil import datasets
from mil._core import compiled_available, use_backend
from mil.bags import Bags
from mil._distance_engine import all_from_bags, minima_from_bags
from mil.embedding import BagDissimilarityEmbedding, MILESClassifier, MILESEmbedding, MInDClassifier


CLOCK = time.perf_counter


def best_time(func, repeat):
    times = []
    for _ in range(repeat):
        t0 = CLOCK()
        func()
        times.append(CLOCK() - t0)
    return min(times)


def minima_ratio(repeat):
    data = datasets.load_musk2()
    bags = Bags.from_list(data.data)
    X = bags.instances - bags.instances.mean(axis=0)
    print(f"Musk2: {bags.n_bags} bags, {bags.n_instances} instances, {bags.n_features} features")
    base = best_time(lambda: X @ X.T, repeat)
    print(f"X @ X.T                                   {base:7.3f} s   ratio 1.00")
    for kind in ("compiled", "python"):
        if kind == "compiled" and not compiled_available("_hausdorff"):
            print("compiled kernel not available")
            continue
        with use_backend(kind):
            t = best_time(lambda: minima_from_bags(bags), repeat)
            h = best_time(lambda: all_from_bags(bags, None), repeat)
        print(f"M, {kind:8s}                              {t:7.3f} s   ratio {t / base:.2f}")
        print(f"Hausdorff matrices, {kind:8s}             {h:7.3f} s   ratio {h / base:.2f}")


def learners_ratio(repeat):
    setups = [
        ("MILES fixed (C=0.1, sigma median, cv=1)", MILESClassifier(C=0.1, sigma_scales=(1.0,), cv=1)),
        ("MInD fixed (C=10, gamma median, cv=1)", MInDClassifier(C=10.0, gamma_scales=(1.0,), cv=1,
                                                                      scale=None)),
        ("MILES default (inner 2-fold, 2 x 4 grid)", MILESClassifier(random_state=0)),
        ("MILES earlier default (inner 5-fold, 3 x 6)", MILESClassifier(
            random_state=0, Cs=(0.1, 0.3, 1.0, 3.0, 10.0, 30.0), sigma_scales=(2.0, 1.0, 0.5), cv=5)),
        ("MInD default (inner 5-fold, 5 x 5 grid)", MInDClassifier(random_state=0)),
    ]
    _time_setups(setups, repeat)


class _LooseInner(MILESClassifier):
    """MILESClassifier whose inner grid's fits stop at 100 x tol (instead of 10 x tol)."""

    def _machine(self, C, inner=False):
        machine = super()._machine(C, inner)
        return machine.set_params(tol=100.0 * self.tol) if inner else machine


def miles_grids(repeat):
    small = dict(Cs=(1.0, 3.0, 10.0, 30.0), sigma_scales=(2.0, 1.0))
    setups = [
        ("3 x 6 grid, 5 inner folds (earlier default)", MILESClassifier(
            random_state=0, Cs=(0.1, 0.3, 1.0, 3.0, 10.0, 30.0), sigma_scales=(2.0, 1.0, 0.5), cv=5)),
        ("2 x 4 grid, 5 inner folds", MILESClassifier(random_state=0, cv=5, **small)),
        ("2 x 4 grid, 3 inner folds", MILESClassifier(random_state=0, cv=3, **small)),
        ("2 x 4 grid, 3 inner folds, inner 100 x tol", _LooseInner(random_state=0, cv=3, **small)),
        ("2 x 4 grid, 2 inner folds (default)", MILESClassifier(random_state=0, cv=2, **small)),
    ]
    _time_setups(setups, repeat)


def mind_grids(repeat):
    setups = [
        ("MInD default (7 gammas x 5 C, RBF)", MInDClassifier(random_state=0)),
        ("MInD earlier default (5 x 5 grid, RBF)", MInDClassifier(
            random_state=0, Cs=(0.1, 1.0, 10.0, 100.0, 1000.0), gamma_scales=(0.0625, 0.25, 1.0, 4.0, 16.0))),
        ("MInD wide grid (9 gammas x 7 C)", MInDClassifier(
            random_state=0, Cs=tuple(10.0 ** np.arange(-2, 5)), gamma_scales=tuple(4.0 ** np.arange(-4, 5)))),
        ('MInD kernel="auto" (7 x 5 RBF + linear)', MInDClassifier(random_state=0, kernel="auto")),
    ]
    _time_setups(setups, repeat)


def _time_setups(setups, repeat):
    """Tuned fit + predict on Musk2's fold 0 against M on its training bags."""
    data = datasets.load_musk2()
    train = np.flatnonzero(data.folds[0] != 0)
    test = np.flatnonzero(data.folds[0] == 0)
    bags = Bags.from_list(data.data)
    Xtr, Xte, ytr = bags[train], bags[test], data.target[train]
    base = best_time(lambda: minima_from_bags(Xtr), repeat)
    print(f"\nM on the 92 training bags of Musk2 fold 0: {base:.3f} s")
    for label, est in setups:
        def run():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est.fit(Xtr, ytr).predict(Xte)
        t = best_time(run, max(1, repeat // 2))
        print(f"{label:45s} {t:7.3f} s   ratio {t / base:6.2f}", flush=True)


def growth():
    data = datasets.load_elephant()
    rng = np.random.default_rng(0)
    print("\nElephant copies (noise sd 0.01): fit_transform time and traced peak memory")
    print(f"{'bags':>6s} {'instances':>9s}  {'MILES s':>8s} {'MiB':>7s}  {'MInD s':>8s} {'MiB':>7s}"
          f"  {'MILES k=1000 s':>14s} {'MiB':>7s}")
    for factor in (1, 4, 16):
        bags = [b + rng.normal(scale=0.01, size=b.shape) for _ in range(factor) for b in data.data]
        X = Bags.from_list(bags)
        cells = []
        for est in (MILESEmbedding(), BagDissimilarityEmbedding(), MILESEmbedding(n_concepts=1000,
                                                                                    random_state=0)):
            tracemalloc.start()
            t0 = CLOCK()
            est.fit_transform(X)
            t = CLOCK() - t0
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            cells.append((t, peak))
        print(f"{X.n_bags:6d} {X.n_instances:9d}  " + "  ".join(f"{t:8.2f} {m:7.1f}" if i < 2 else
                                                                f"{t:14.2f} {m:7.1f}"
                                                                for i, (t, m) in enumerate(cells)))


def growth_concepts():
    """MILES with 1000 concepts at 1x / 4x / 16x Elephant; its clustering against Lloyd's k-means."""
    from sklearn.cluster import KMeans

    from mil.embedding._concepts import FULL_KMEANS_MAX, kmeans_centres

    data = datasets.load_elephant()
    rng = np.random.default_rng(0)
    print(f"\nElephant copies (noise sd 0.01): MILESEmbedding(n_concepts=1000) fit_transform; its k-means "
          f"(mini-batch above {FULL_KMEANS_MAX} instances) and Lloyd's KMeans alone")
    print(f"{'bags':>6s} {'instances':>9s}  {'MILES k=1000 s':>14s} {'MiB':>7s}  {'its k-means s':>13s}"
          f"  {'KMeans s':>8s}")
    for factor in (1, 4, 16):
        bags = [b + rng.normal(scale=0.01, size=b.shape) for _ in range(factor) for b in data.data]
        X = Bags.from_list(bags)
        tracemalloc.start()
        t0 = CLOCK()
        MILESEmbedding(n_concepts=1000, random_state=0).fit_transform(X)
        t = CLOCK() - t0
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        # The clustering on the standardised instances, as the embedding runs it.
        Z = (X.instances - X.instances.mean(axis=0)) / X.instances.std(axis=0)
        t0 = CLOCK()
        kmeans_centres(Z, 1000, 0)
        t_own = CLOCK() - t0
        t0 = CLOCK()
        KMeans(n_clusters=1000, n_init=1, random_state=0).fit(Z)
        t_lloyd = CLOCK() - t0
        print(f"{X.n_bags:6d} {X.n_instances:9d}  {t:14.2f} {peak:7.1f}  {t_own:13.2f}  {t_lloyd:8.2f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--growth", action="store_true", help="also the 1x / 4x / 16x Elephant growth")
    parser.add_argument("--growth-concepts", action="store_true",
                        help="only the n_concepts=1000 growth, with the k-means timed alone")
    parser.add_argument("--miles-grids", action="store_true",
                        help="only MILES's tuned fit with the inner settings compared for its default grid")
    parser.add_argument("--mind-grids", action="store_true",
                        help="only MInD's tuned fit: the default, the wider grid and kernel='auto'")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    if args.growth_concepts:
        growth_concepts()
        return
    if args.miles_grids:
        miles_grids(args.repeat)
        return
    if args.mind_grids:
        mind_grids(args.repeat)
        return
    minima_ratio(args.repeat)
    learners_ratio(args.repeat)
    if args.growth:
        growth()


if __name__ == "__main__":
    main()
