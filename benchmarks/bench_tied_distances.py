"""Tied data: Hausdorff matrices and Citation-KNN on small integer features, as a ratio to float features.

Integer-valued features (counts, pixel values, Musk's features) put many
instances of different bags at exactly the same place, so many bag pairs
are at distance 0. Prints, for the compiled kernel and the NumPy twin, the
CPU time of :func:`mil.distances.hausdorff_all` on bags of small integer
features divided by its time on float features of the same shape (the same
bag sizes, measured in this process), and the same ratio for a
Citation-KNN fit and predict with the full matrix (``algorithm="brute"``).
Target: at most 3.

    python benchmarks/bench_tied_distances.py [--bags 1000] [--features 2] [--values 3] [--repeat 3]
"""

import argparse

import numpy as np

from mil._core import compiled_available, use_backend
from mil.distances import hausdorff_all
from mil.neighbors import CitationKNNClassifier

from _data import cpu_time  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bags", type=int, default=1000)
    parser.add_argument("--features", type=int, default=2)
    parser.add_argument("--values", type=int, default=3, help="integer features in 0 .. values - 1")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    sizes = rng.integers(4, 12, args.bags)
    tied = [rng.integers(0, args.values, (s, args.features)).astype(float) for s in sizes]
    plain = [rng.normal(size=(s, args.features)) for s in sizes]
    y = np.arange(args.bags) % 2
    n_train = args.bags * 3 // 4
    print(f"{args.bags} bags of 4-11 instances, {args.features} features: integers in "
          f"0..{args.values - 1} against standard normal floats")
    zero = (hausdorff_all(tied)["minimal"] == 0).mean()
    print(f"bag pairs at minimal distance 0: {zero:.1%} (integer), "
          f"{(hausdorff_all(plain)['minimal'] == 0).mean():.1%} (float; the diagonal)")

    def knn(X):
        clf = CitationKNNClassifier(algorithm="brute").fit(X[:n_train], y[:n_train])
        return clf.predict(X[n_train:])

    for backend in ("compiled", "python"):
        if backend == "compiled" and not compiled_available("_hausdorff"):
            print("compiled kernel not available")
            continue
        with use_backend(backend):
            t_float = cpu_time(lambda: hausdorff_all(plain), args.repeat)
            t_int = cpu_time(lambda: hausdorff_all(tied), args.repeat)
            k_float = cpu_time(lambda: knn(plain), args.repeat)
            k_int = cpu_time(lambda: knn(tied), args.repeat)
        print(f"{backend:9s} hausdorff_all  float {t_float:7.3f} s  integer {t_int:7.3f} s  "
              f"ratio {t_int / t_float:5.2f}")
        print(f"{backend:9s} Citation-KNN   float {k_float:7.3f} s  integer {k_int:7.3f} s  "
              f"ratio {k_int / k_float:5.2f}")


if __name__ == "__main__":
    main()
