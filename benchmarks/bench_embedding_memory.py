"""Peak memory of MInD and MILES fits at their defaults (500 to 2,000 bags x 20 instances x 32 features), each fit in a fresh process.

Random bags of 20 instances and 32 features (a positive bag holds one
shifted instance); each fit runs in its own subprocess, which reports the
growth of its maximum resident set during the fit (everything: NumPy,
scikit-learn, liblinear / libsvm), the peak of the NumPy allocations seen by
``tracemalloc``, the fit time, and the size of the instance-to-bag minima
matrix M (instances x bags float64, what the exact learners reduce) to
which the growth is compared. The growth per 4x data is the ratio between
the largest and the quarter-size run. First it measures what liblinear's
1-norm SVM allocates on its own for a dense feature matrix (its sparse rows
and their transpose: MILES's floor). ``--baseline-src`` runs the same fits
with another checkout's ``src`` on ``PYTHONPATH`` (the previous
implementation) and prints the ratio of the two peaks:

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_embedding_memory.py \\
        [--bags 500,1000,2000] [--learners mind,miles] [--baseline-src /path/to/old/src]
"""

import argparse
import json
import os
import subprocess
import sys

LIBLINEAR = r"""
import json, resource, sys, warnings
import numpy as np
from sklearn.svm import LinearSVC
n, p = int(sys.argv[1]), int(sys.argv[2])
F = np.random.default_rng(0).random((n, p)) - 0.5  # dense, C-ordered float64: what MILES hands it
y = np.arange(n) % 2
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    LinearSVC(penalty="l1", dual=False, C=1.0, max_iter=2, tol=1e-1).fit(F, y)
rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"data_mb": F.nbytes / 2**20, "rss_growth_mb": (rss1 - rss0) / 1024}))
"""

CHILD = r"""
import json, resource, sys, time, tracemalloc
import numpy as np
from mil import Bags
from mil.embedding import MILESClassifier, MInDClassifier
n_bags, inst, d, which, trace = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5] == "1"
rng = np.random.default_rng(0)
X = rng.normal(size=(n_bags * inst, d))
y = np.arange(n_bags) % 2
X[np.flatnonzero(y) * inst, :4] += 2.0
bags = Bags(X, np.arange(0, n_bags * inst + 1, inst))
est = {"mind": MInDClassifier(random_state=0), "miles": MILESClassifier(random_state=0)}[which]
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if trace:
    tracemalloc.start()
t = time.perf_counter()
est.fit(bags, y)
seconds = time.perf_counter() - t
peak = tracemalloc.get_traced_memory()[1] if trace else 0
rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"rss_growth_mb": (rss1 - rss0) / 1024, "rss_mb": rss1 / 1024, "traced_mb": peak / 2**20,
                  "seconds": seconds}))
"""


def run(src, n_bags, args, which, trace):
    env = dict(os.environ)
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    out = subprocess.run([sys.executable, "-c", CHILD, str(n_bags), str(args.instances), str(args.features),
                          which, "1" if trace else "0"], capture_output=True, text=True, env=env)
    if out.returncode:
        raise RuntimeError(f"{which} at {n_bags} bags failed: {out.stderr[-800:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bags", default="500,1000,2000", help="comma-separated numbers of bags")
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument("--features", type=int, default=32)
    parser.add_argument("--learners", default="mind,miles")
    parser.add_argument("--src", default=here, help="the checkout under test (default: this one)")
    parser.add_argument("--baseline-src", default=None, help="another checkout's src to compare against")
    parser.add_argument("--tracemalloc", action="store_true",
                        help="also report the NumPy peak seen by tracemalloc (slower)")
    parser.add_argument("--liblinear", default="1000x20000",
                        help="BAGSxCONCEPTS of a dense matrix on which to measure what liblinear's 1-norm "
                             "SVM allocates itself ('' to skip)")
    args = parser.parse_args()
    if args.liblinear:
        n, p = (int(v) for v in args.liblinear.split("x"))
        out = subprocess.run([sys.executable, "-c", LIBLINEAR, str(n), str(p)], capture_output=True, text=True)
        if out.returncode:
            raise RuntimeError(out.stderr[-800:])
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"liblinear (LinearSVC penalty='l1', dual=False) on {n} x {p} float64 ({r['data_mb']:.0f} MB): "
              f"max-RSS growth {r['rss_growth_mb']:.0f} MB = {r['rss_growth_mb'] / r['data_mb']:.2f}x the features")
    sizes = [int(b) for b in args.bags.split(",")]
    print(f"bags of {args.instances} instances x {args.features} features; M = instances x bags float64; "
          f"one fit per fresh process")
    for which in args.learners.split(","):
        growth = {}
        for n in sizes:
            m_mb = n * args.instances * n * 8 / 2**20
            r = run(args.src, n, args, which, args.tracemalloc)
            growth[n] = r["rss_growth_mb"]
            line = (f"  {which:5s} {n:5d} bags: M {m_mb:7.0f} MB; fit max-RSS growth {r['rss_growth_mb']:7.0f} MB "
                    f"= {r['rss_growth_mb'] / m_mb:4.2f} M (process peak {r['rss_mb']:6.0f} MB), "
                    f"{r['seconds']:6.1f} s")
            if args.tracemalloc:
                line += f"; NumPy peak {r['traced_mb']:6.0f} MB"
            if args.baseline_src:
                b = run(args.baseline_src, n, args, which, False)
                line += (f"; baseline growth {b['rss_growth_mb']:7.0f} MB (peak {b['rss_mb']:6.0f} MB, "
                         f"{b['seconds']:6.1f} s): {b['rss_growth_mb'] / max(r['rss_growth_mb'], 1e-9):4.2f}x")
            print(line, flush=True)
        for n in sizes:
            if 4 * n in growth:
                print(f"  {which:5s} growth per 4x data ({n} -> {4 * n} bags): "
                      f"{growth[4 * n] / max(growth[n], 1e-9):.2f}x", flush=True)


if __name__ == "__main__":
    main()
