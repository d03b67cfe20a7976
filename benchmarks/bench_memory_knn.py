"""Peak memory of fitting Bag-KNN and Citation-KNN on many bags, each fit in a fresh process.

Random bags (``--bags`` bags of 1 to ``2 * --instances - 1`` instances, ``--features``
features); each learner is fitted in its own subprocess with ``tracemalloc`` on
(NumPy reports its allocations to it), and the script prints the peak traced
memory of the fit and the growth of the process's maximum resident set during
the fit, against the size of one n x n float64 matrix. Run it once with the
code under test and once with another checkout on ``PYTHONPATH`` to compare:

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_memory_knn.py [--bags 8000] [--instances 4] [--features 10]
"""

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys, tracemalloc
import numpy as np
from mil import Bags, BagKNNClassifier, CitationKNNClassifier
n_bags, inst, d, which, metric = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
rng = np.random.default_rng(0)
sizes = rng.integers(1, 2 * inst, size=n_bags)
X = rng.normal(size=(int(sizes.sum()), d))
bags = Bags(X, np.r_[0, np.cumsum(sizes)])
y = rng.integers(0, 2, size=n_bags)
est = {"bagknn": BagKNNClassifier(metric=metric), "citation": CitationKNNClassifier(metric=metric)}[which]
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
est.fit(bags, y)
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"peak_mb": peak / 2**20, "rss_growth_mb": (rss1 - rss0) / 1024,
                  "n_instances": int(sizes.sum())}))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bags", type=int, default=8000)
    parser.add_argument("--instances", type=int, default=4, help="mean instances per bag")
    parser.add_argument("--features", type=int, default=10)
    parser.add_argument("--metrics", default="minimal,integrated")
    args = parser.parse_args()
    nn_mb = args.bags ** 2 * 8 / 2**20
    print(f"{args.bags} bags, about {args.instances} instances each, {args.features} features; "
          f"one n x n float64 matrix = {nn_mb:.0f} MB")
    for metric in args.metrics.split(","):
        for which in ("bagknn", "citation"):
            out = subprocess.run([sys.executable, "-c", CHILD, str(args.bags), str(args.instances),
                                  str(args.features), which, metric], capture_output=True, text=True)
            if out.returncode:
                print(f"  {which:8s} {metric:10s} failed: {out.stderr[-500:]}")
                continue
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"  {which:8s} metric={metric:10s} fit peak (tracemalloc) {r['peak_mb']:8.0f} MB "
                  f"= {r['peak_mb'] / nn_mb:4.2f} n x n; max RSS growth {r['rss_growth_mb']:8.0f} MB", flush=True)


if __name__ == "__main__":
    main()
