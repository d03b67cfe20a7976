"""The NSK set kernel for 8 gammas in one pass within 2x ``X @ X.T``; mi-SVM's memory linear in instances.

1. The NSK set kernel on Musk2 train-vs-train (102 x 102 bags from 6598
   instances of 166 features) for 8 gamma values in one pass
   (:func:`mil.svm.set_kernel`, normalisation included), compiled and NumPy
   twin, divided by the time of the plain product X @ X.T of the instance
   matrix, measured in this process (best of several runs). Targets:
   compiled <= 2.0, twin within 3x of the compiled pass. Two sets of 8
   gammas: 1e-4..1e-1 (geometric; on Musk2's unscaled features most of
   those exponentials are below 1e-304, so this set mostly times the
   distances) and 1/16..16 times the inverse median squared distance (the
   range BagKernelSVC's median-relative grid covers: every exponential
   counts). The compiled pass's exponential loops run the best build the
   processor has (printed: 2 AVX-512, 1 AVX2, 0 the baseline SSE2/NEON);
   ``--simd L`` caps it.
2. ``miSVMClassifier(kernel="linear")`` on synthetic bags of 10 instances
   (20 features), 10^4 and 10^5 instances, each fit in a fresh process:
   peak resident memory during the fit (Linux: the peak is reset just before
   it) above the resident size before it, and the growth between the two
   sizes; an n x n instance kernel at 10^5 would take 80 GB.

    python benchmarks/bench_set_kernel.py [--repeat 5] [--sizes 10000 100000]
"""

import argparse
import json
import subprocess
import sys
import time

import numpy as np

from mil import datasets
from mil._core import compiled_available, use_backend
from mil.bags import Bags
from mil.svm import set_kernel

GAMMAS = np.geomspace(1e-4, 1e-1, 8)
#: Multiples of 1 / (median squared distance) (BagKernelSVC's gamma_scale="median").
MEDIAN_MULTIPLES = np.geomspace(1 / 16, 16, 8)

_CHILD = """
import json, sys, time
import numpy as np
from mil.svm import miSVMClassifier


def status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024  # MB


n = int(sys.argv[1])
rng = np.random.default_rng(0)
n_bags = n // 10
X = [rng.normal(size=(10, 20)) for _ in range(n_bags)]
y = np.arange(n_bags) % 2
for b in np.flatnonzero(y == 1):
    X[b][0, :3] += 2.0
# Reset the peak resident size (Linux: clear_refs 5), so the peak below is the fit's.
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
before = status("VmRSS")
t0 = time.perf_counter()
clf = miSVMClassifier(kernel="linear", C=1.0, max_iter=10).fit(X, y)
seconds = time.perf_counter() - t0
peak = status("VmHWM")
print(json.dumps({"n": n, "peak_mb": peak, "before_mb": before, "seconds": seconds,
                  "n_iter": clf.n_iter_, "train_accuracy": float(np.mean(clf.predict(X) == y))}))
"""


def best_time(func, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        func()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--simd", type=int, default=None, help="cap the exponential loops' build")
    args = parser.parse_args(argv)
    data = datasets.load_musk2()
    bags = Bags.from_list(data.data)
    X = bags.instances
    print(f"Musk2: {bags.n_bags} bags, {bags.n_instances} instances, {bags.n_features} features; "
          f"{len(GAMMAS)} gammas")
    from mil._scaling import median_sq_distance

    simd = None
    if compiled_available("_set_kernel"):
        from mil._core import _set_kernel

        simd = _set_kernel._use_exp_simd(_set_kernel.EXP_SIMD if args.simd is None else args.simd)
    print(f"exponential loops' build: {simd} (2 AVX-512, 1 AVX2, 0 baseline; None: not compiled)")
    gamma_sets = {"1e-4..1e-1": GAMMAS,
                  "median x 1/16..16": MEDIAN_MULTIPLES / median_sq_distance(X)}
    for label, gammas in gamma_sets.items():
        base = best_time(lambda: X @ X.T, args.repeat)
        print(f"gammas {label}: X @ X.T {base:7.3f} s   ratio 1.00")
        times = {}
        for kind in ("compiled", "python"):
            if kind == "compiled" and not compiled_available("_set_kernel"):
                print("compiled kernel not available")
                continue
            with use_backend(kind):
                times[kind] = best_time(lambda: set_kernel(bags, gamma=gammas),
                                        args.repeat if kind == "compiled" else 2)
            print(f"  set kernel, 8 gammas ({kind:8s}) {times[kind]:7.3f} s   ratio {times[kind] / base:.2f}")
        if len(times) == 2:
            print(f"  twin / compiled: {times['python'] / times['compiled']:.2f}")
    if not args.sizes:
        return
    print("\nmiSVMClassifier(kernel='linear'), bags of 10 instances, 20 features, fresh process per size:")
    rows = []
    for n in args.sizes:
        out = subprocess.run([sys.executable, "-c", _CHILD, str(n)], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        rows.append(r)
        print(f"  {n:>8d} instances: peak RSS during fit {r['peak_mb']:7.1f} MB (before fit: {r['before_mb']:7.1f} MB), "
              f"fit {r['seconds']:6.2f} s, {r['n_iter']} alternations, train accuracy {r['train_accuracy']:.3f}")
    if len(rows) >= 2:
        a, b = rows[0], rows[-1]
        print(f"  growth of the fit's peak over the data: "
              f"{(b['peak_mb'] - b['before_mb']) / max(a['peak_mb'] - a['before_mb'], 1e-9):.1f}x "
              f"for {b['n'] / a['n']:.0f}x the instances")


if __name__ == "__main__":
    main()
