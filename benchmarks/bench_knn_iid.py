"""Citation-KNN on bags of i.i.d. 16-dimensional instances: the cost of the exact and approximate searches as the bags grow.

Data: ``gaussian_bags`` of ``bench_knn_scale.py`` (seeded): ``n`` training and
``n / 10`` held-out bags of 20 independent standard normal instances in 16
dimensions (intrinsic dimension 16), random labels. Citation-KNN at its
defaults (references 2, citers 4, standardised features, minimal Hausdorff
distance) fits the ``n`` bags and predicts the held-out ones, with
``algorithm="brute"`` (the bag distance matrix: exact, and what "auto"
chooses here below 100,000 training instances, a sample of KD-tree queries
inspecting nearly every training instance) and, up to ``--tree-max`` bags,
``algorithm="kd_tree"``. Each run is a
subprocess of one thread with a CPU-time limit (``--max-cpu`` seconds,
``RLIMIT_CPU``): a run that reaches it is reported as "> limit", not
extrapolated. Printed per run: fit and predict CPU seconds (the steadier
measure on a shared machine) and wall seconds, the process's peak resident
memory, and the growth of the CPU time from the last size that finished; when both
searches finish at a size, whether their predicted probabilities are
identical (both are exact).

``--hnsw EF [EF ...]`` also runs ``algorithm="hnsw"`` (the approximate
search over a faiss HNSW graph; needs faiss-cpu) with each ``ef_search``,
and prints the fraction of held-out bags whose predicted label agrees with
the exact search's, and whose probabilities are identical. The exact
predictions at a size come from the ``"brute"`` run, or from ``--exact
PATH`` (``{n}`` in it stands for the size) when that file exists: at
64,000 bags the exact run needs well over an hour of CPU, so it can run
once (``--exact PATH --max-cpu 100000``, without ``--hnsw``: the run's
probabilities are saved there) and be compared later. ``--exact-max``:
the largest size at which ``"brute"`` runs when no file is there.
``--seed``: the data's seed (0, the default, for the documented runs;
``algorithm="hnsw"``'s settings were chosen on seed 1).

    nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        python benchmarks/bench_knn_iid.py --bags 4000 16000 64000 --tree-max 4000 --max-cpu 1200
    nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
        python benchmarks/bench_knn_iid.py --bags 4000 16000 64000 --tree-max 0 --hnsw 16 \\
        --exact-max 16000 --exact 'knn{n}-exact.npy' --max-cpu 1200
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


def child(n, algorithm, out_path, ef_search=None, seed=0):
    from mil import Bags
    from mil.neighbors import CitationKNNClassifier

    if algorithm == "hnsw":
        import faiss

        faiss.omp_set_num_threads(1)

    X, offsets, y = gaussian_bags(n + n // 10, 16, seed=seed)
    bags = Bags(X, offsets)
    train, test = bags[np.arange(n)], bags[np.arange(n, n + n // 10)]
    del X, bags
    est = CitationKNNClassifier(algorithm=algorithm, **({} if ef_search is None else {"ef_search": ef_search}))
    w, c = time.perf_counter(), time.process_time()
    est.fit(train, y[:n])
    fit_wall, fit_cpu = time.perf_counter() - w, time.process_time() - c
    w, c = time.perf_counter(), time.process_time()
    proba = est.predict_proba(test)
    pred_wall, pred_cpu = time.perf_counter() - w, time.process_time() - c
    np.save(out_path, proba)
    return {"algorithm_": est.algorithm_, "fit_cpu": fit_cpu, "fit_wall": fit_wall, "predict_cpu": pred_cpu,
            "predict_wall": pred_wall, "peak_mb": _peak_mb(), "n_instances": train.n_instances}


def _run(n, algorithm, max_cpu, out_path, ef_search=None, seed=0):
    def limit():
        resource.setrlimit(resource.RLIMIT_CPU, (max_cpu, max_cpu + 5))

    spec = json.dumps({"n": n, "algorithm": algorithm, "out_path": out_path, "ef_search": ef_search, "seed": seed})
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
    parser.add_argument("--hnsw", type=int, nargs="*", default=[], metavar="EF",
                        help="also run algorithm='hnsw' with each of these ef_search")
    parser.add_argument("--exact", metavar="PATH",
                        help="exact probabilities (.npy; '{n}' for the size): read if there, else written by 'brute'")
    parser.add_argument("--exact-max", type=int, default=None,
                        help="largest size at which 'brute' runs when --exact has no file (default: every size)")
    parser.add_argument("--seed", type=int, default=0, help="the data's seed (0 for the documented runs)")
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
        exact_path = args.exact.replace("{n}", str(n)) if args.exact else None
        runs = []
        if exact_path and os.path.exists(exact_path):
            done["brute"] = np.load(exact_path)
            print(f"{n:6d} bags: exact probabilities read from {exact_path}", flush=True)
        elif args.exact_max is None or n <= args.exact_max:
            runs.append(("brute", None))
        if n <= args.tree_max:
            runs.append(("kd_tree", None))
        runs += [("hnsw", ef) for ef in args.hnsw]
        for algorithm, ef in runs:
            name = algorithm if ef is None else f"hnsw{ef}"
            label = f"algorithm={algorithm!r}" + ("" if ef is None else f", ef_search={ef}")
            r = _run(n, algorithm, args.max_cpu, f"{tmp}_{name}.npy", ef, args.seed)
            if r is None:
                print(f"{n:6d} bags, {label}: did not finish within {args.max_cpu} s CPU "
                      f"(the whole process: data, fit, predict {n // 10} bags)", flush=True)
                continue
            total = r["fit_cpu"] + r["predict_cpu"]
            growth = (f", {total / previous[name][1]:.1f}x the CPU at {previous[name][0]} bags"
                      if name in previous else "")
            previous[name] = (n, total)
            done[name] = np.load(f"{tmp}_{name}.npy")
            if name == "brute" and exact_path:
                np.save(exact_path, done[name])
            print(f"{n:6d} bags ({r['n_instances']:,} instances), {label} "
                  f"(used {r['algorithm_']!r}): fit {r['fit_cpu']:.1f} s CPU / {r['fit_wall']:.1f} s wall, "
                  f"predict {n // 10} bags {r['predict_cpu']:.1f} / {r['predict_wall']:.1f} s, "
                  f"total {total:.1f} s CPU{growth}; peak RSS {r['peak_mb']:.0f} MB", flush=True)
        if "brute" in done and "kd_tree" in done:
            print(f"{n:6d} bags: 'brute' and 'kd_tree' probabilities identical: "
                  f"{bool(np.array_equal(done['brute'], done['kd_tree']))}", flush=True)
        for ef in args.hnsw:
            if "brute" in done and f"hnsw{ef}" in done:
                exact, ann = done["brute"], done[f"hnsw{ef}"]
                print(f"{n:6d} bags: 'hnsw' (ef_search={ef}) against the exact search: predicted labels agree on "
                      f"{np.mean(ann.argmax(1) == exact.argmax(1)):.2%} of the {exact.shape[0]} held-out bags, "
                      f"probabilities identical on {np.mean(np.all(ann == exact, axis=1)):.2%}", flush=True)
        for name in ["brute", "kd_tree"] + [f"hnsw{ef}" for ef in args.hnsw]:
            if os.path.exists(f"{tmp}_{name}.npy"):
                os.remove(f"{tmp}_{name}.npy")


if __name__ == "__main__":
    main()
