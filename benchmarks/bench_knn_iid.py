"""Citation-KNN on bags of i.i.d. 16-dimensional instances: the cost of the exact searches as the bags grow.

Data: ``gaussian_bags`` of ``bench_knn_scale.py`` (seeded): ``n`` training and
``n / 10`` held-out bags of 20 independent standard normal instances in 16
dimensions (intrinsic dimension 16), random labels. Citation-KNN at its
defaults (references 2, citers 4, standardised features, minimal Hausdorff
distance) fits the ``n`` bags and predicts the held-out ones, with
``algorithm="auto"`` (which chooses the bag distance matrix, "brute", here:
a sample of KD-tree queries inspects nearly every training instance) and,
up to ``--tree-max`` bags, ``algorithm="kd_tree"``. Each run is a
subprocess of one thread with a CPU-time limit (``--max-cpu`` seconds,
``RLIMIT_CPU``): a run that reaches it is reported as "> limit", not
extrapolated. Printed per run: fit and predict CPU seconds (the steadier
measure on a shared machine) and wall seconds, the process's peak resident
memory, and the growth of the CPU time from the last size that finished; when both
searches finish at a size, whether their predicted probabilities are
identical (both are exact).

    nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        python benchmarks/bench_knn_iid.py --bags 4000 16000 64000 --tree-max 4000 --max-cpu 1200
"""

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_knn_scale import gaussian_bags  # noqa: E402


def _peak_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def child(n, algorithm, out_path):
    from mil import Bags
    from mil.neighbors import CitationKNNClassifier

    X, offsets, y = gaussian_bags(n + n // 10, 16)
    bags = Bags(X, offsets)
    train, test = bags[np.arange(n)], bags[np.arange(n, n + n // 10)]
    del X, bags
    est = CitationKNNClassifier(algorithm=algorithm)
    w, c = time.perf_counter(), time.process_time()
    est.fit(train, y[:n])
    fit_wall, fit_cpu = time.perf_counter() - w, time.process_time() - c
    w, c = time.perf_counter(), time.process_time()
    proba = est.predict_proba(test)
    pred_wall, pred_cpu = time.perf_counter() - w, time.process_time() - c
    np.save(out_path, proba)
    return {"algorithm_": est.algorithm_, "fit_cpu": fit_cpu, "fit_wall": fit_wall, "predict_cpu": pred_cpu,
            "predict_wall": pred_wall, "peak_mb": _peak_mb(), "n_instances": train.n_instances}


def _run(n, algorithm, max_cpu, out_path):
    def limit():
        resource.setrlimit(resource.RLIMIT_CPU, (max_cpu, max_cpu + 5))

    spec = json.dumps({"n": n, "algorithm": algorithm, "out_path": out_path})
    res = subprocess.run([sys.executable, os.path.abspath(__file__), "--child-json", spec],
                         capture_output=True, text=True, preexec_fn=limit)
    if res.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return None  # the CPU limit: reported as not finished
    if res.returncode:
        raise SystemExit(f"n={n}, algorithm={algorithm!r} failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bags", type=int, nargs="+", default=[4000, 16000, 64000],
                        help="training bags per run (held-out: a tenth as many)")
    parser.add_argument("--tree-max", type=int, default=4000, help="largest size also run with 'kd_tree'")
    parser.add_argument("--max-cpu", type=int, default=1200, help="CPU seconds allowed to one run")
    parser.add_argument("--child-json", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_json:
        print(json.dumps(child(**json.loads(args.child_json))))
        return
    print(f"load average {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f} on "
          f"{os.cpu_count()} cores; one thread per run; CPU limit {args.max_cpu} s per run", flush=True)
    previous = {}
    tmp = f"/tmp/bench_knn_iid_{os.getpid()}"
    for n in args.bags:
        done = {}
        for algorithm in ("auto", "kd_tree") if n <= args.tree_max else ("auto",):
            r = _run(n, algorithm, args.max_cpu, f"{tmp}_{algorithm}.npy")
            if r is None:
                print(f"{n:6d} bags, algorithm={algorithm!r}: did not finish within {args.max_cpu} s CPU "
                      f"(the whole process: data, fit, predict {n // 10} bags)", flush=True)
                continue
            total = r["fit_cpu"] + r["predict_cpu"]
            growth = (f", {total / previous[algorithm][1]:.1f}x the CPU at {previous[algorithm][0]} bags"
                      if algorithm in previous else "")
            previous[algorithm] = (n, total)
            done[algorithm] = np.load(f"{tmp}_{algorithm}.npy")
            print(f"{n:6d} bags ({r['n_instances']:,} instances), algorithm={algorithm!r} "
                  f"(used {r['algorithm_']!r}): fit {r['fit_cpu']:.1f} s CPU / {r['fit_wall']:.1f} s wall, "
                  f"predict {n // 10} bags {r['predict_cpu']:.1f} / {r['predict_wall']:.1f} s, "
                  f"total {total:.1f} s CPU{growth}; peak RSS {r['peak_mb']:.0f} MB", flush=True)
        if len(done) == 2:
            print(f"{n:6d} bags: 'auto' and 'kd_tree' probabilities identical: "
                  f"{bool(np.array_equal(done['auto'], done['kd_tree']))}", flush=True)
        for algorithm in ("auto", "kd_tree"):
            if os.path.exists(f"{tmp}_{algorithm}.npy"):
                os.remove(f"{tmp}_{algorithm}.npy")


if __name__ == "__main__":
    main()
