"""Citation-KNN with the minimal distance fits 64,000 bags x 20 instances x 16 features and predicts 6,400 held-out bags within 5 minutes, memory linear in the instances (tree search vs. the full matrix).

Synthetic bags (seeded): instances on a 4-dimensional latent space mapped
linearly to ``--features`` features plus Gaussian noise (0.05); each bag
gathers around a centre drawn near one of 64 clusters, and a positive bag
(half of them) has 1 to 3 instances near a hidden concept point. The
classifier standardises the features (its default). Every training size
runs in its own subprocess (``--threads`` threads, one by default): fit on
``n`` bags, ``predict_proba`` on ``n / 10`` held-out bags, with
``algorithm="kd_tree"`` (the tree search over the instances); up to
``--baseline-max`` bags the same process then repeats both with
``algorithm="brute"`` (the bag distance matrix), checks that the
probabilities are identical and prints the time ratio. Memory: the
process's peak resident set during fit and predict (Linux ``VmHWM``, reset
before each run), and its growth over the resident set before the run
(which holds the data), against the size of the training instance matrix.
Times are wall and CPU seconds of the process (CPU time is the steadier
measure on a shared machine). ``--crossover`` instead times both searches
on smaller sets of several intrinsic dimensions, with the fraction of the
training instances a sample of tree queries inspects: the evidence for
``algorithm="auto"``.

    nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 /usr/bin/time -v \\
        python benchmarks/bench_knn_scale.py --bags 4000 16000 64000 --baseline-max 16000
    nice -n 10 env OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_knn_scale.py --crossover
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np


def make_bags(n_bags, size=20, n_features=16, latent=4, noise=0.05, seed=0):
    """Instances (n_bags * size, n_features), bag offsets and bag labels (see the module docstring)."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((latent, n_features)) / np.sqrt(latent)
    clusters = rng.uniform(-4, 4, (64, latent))
    concept = rng.uniform(-4, 4, latent)
    centre = clusters[rng.integers(0, 64, n_bags)] + 0.5 * rng.standard_normal((n_bags, latent))
    Z = np.repeat(centre, size, axis=0) + 0.3 * rng.standard_normal((n_bags * size, latent))
    y = (rng.random(n_bags) < 0.5).astype(int)
    pos = np.flatnonzero(y)
    k = rng.integers(1, 4, pos.size)
    rows = np.concatenate([p * size + np.arange(j) for p, j in zip(pos, k)])
    Z[rows] = concept + 0.3 * rng.standard_normal((rows.size, latent))
    X = Z @ A + noise * rng.standard_normal((n_bags * size, n_features))
    return X, np.arange(0, n_bags * size + 1, size), y


def gaussian_bags(n_bags, n_features, size=20, seed=0):
    """Bags of independent standard normal instances (intrinsic dimension = n_features), random labels."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_bags * size, n_features))
    return X, np.arange(0, n_bags * size + 1, size), rng.integers(0, 2, n_bags)


def _status_mb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _reset_peak():
    """Reset the process's peak resident set (Linux: VmHWM) to its current size; the current size in MB."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    return _status_mb("VmRSS")


def _peak_mb():
    return _status_mb("VmHWM")


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def child(n, n_features, threads, baseline):
    from sklearn.metrics import roc_auc_score

    from mil import Bags
    from mil.neighbors import CitationKNNClassifier

    n_test = n // 10
    X, offsets, y = make_bags(n + n_test, n_features=n_features)
    bags = Bags(X, offsets)
    train, test = bags[np.arange(n)], bags[np.arange(n, n + n_test)]
    del X, bags
    data_mb = train.instances.nbytes / 2**20
    out = {"n_bags": n, "n_instances": train.n_instances, "data_mb": data_mb}
    probas = {}
    for algorithm in ("kd_tree", "brute") if baseline else ("kd_tree",):
        before = _reset_peak()
        est = CitationKNNClassifier(algorithm=algorithm, n_jobs=threads)
        _, fw, fc = _timed(lambda: est.fit(train, y[:n]))
        proba, pw, pc = _timed(lambda: est.predict_proba(test))
        probas[algorithm] = proba
        pos = list(est.classes_).index(1)
        out[algorithm] = {
            "fit_wall": fw, "fit_cpu": fc, "predict_wall": pw, "predict_cpu": pc, "peak_mb": _peak_mb(),
            "rss_before_mb": before,
            "accuracy": float(np.mean(est.classes_[np.argmax(proba, axis=1)] == y[n:])),
            "auc": float(roc_auc_score(y[n:], proba[:, pos])), "algorithm_": est.algorithm_}
        if algorithm == "kd_tree":  # distances a first fit query (k = citers + 2) computes
            out["calls_per_query"] = est._index.inspected_fraction(n_sample=2000, k=6) * train.n_instances
        del est
    if baseline:
        out["identical"] = bool(np.array_equal(probas["kd_tree"], probas["brute"]))
    return out


def crossover_child(kind, n, threads):
    from mil import Bags
    from mil.neighbors import CitationKNNClassifier
    from mil.neighbors._search import BagTreeIndex
    from mil._scaling import apply_scaling, fit_scaling

    n_test = n // 10
    if kind.startswith("gauss"):
        X, offsets, y = gaussian_bags(n + n_test, int(kind.split("-")[1]))
    else:
        X, offsets, y = make_bags(n + n_test)
    bags = Bags(X, offsets)
    train, test = bags[np.arange(n)], bags[np.arange(n, n + n_test)]
    out = {"kind": kind, "n_bags": n}
    for algorithm in ("brute", "kd_tree"):  # warm up (kernels, thread pools) before timing
        CitationKNNClassifier(algorithm=algorithm).fit(train[:50], y[:50]).predict_proba(test[:5])
    for algorithm in ("brute", "kd_tree"):
        est = CitationKNNClassifier(algorithm=algorithm, n_jobs=threads)
        _, w, c = _timed(lambda: est.fit(train, y[:n]).predict_proba(test))
        out[algorithm] = c
    offset, scale = fit_scaling(train.instances, "standard")
    out["inspected"] = BagTreeIndex(apply_scaling(train, offset, scale)).inspected_fraction()
    return out


def _run(args):
    res = subprocess.run([sys.executable, os.path.abspath(__file__), "--child-json", json.dumps(args)],
                         capture_output=True, text=True)
    if res.returncode:
        raise SystemExit(f"child {args} failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bags", type=int, nargs="+", default=[4000, 16000, 64000],
                        help="training bags per run (held-out: a tenth as many)")
    parser.add_argument("--features", type=int, default=16)
    parser.add_argument("--baseline-max", type=int, default=16000,
                        help="largest training size also run with algorithm='brute'")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--crossover", action="store_true")
    parser.add_argument("--child-json", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_json:
        spec = json.loads(args.child_json)
        fn = crossover_child if spec.pop("mode") == "crossover" else child
        print(json.dumps(fn(**spec)))
        return
    print(f"load average {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f} "
          f"on {os.cpu_count()} cores; {args.threads} thread(s)", flush=True)
    if args.crossover:
        print("fit + predict_proba CPU seconds, brute vs kd_tree; inspected = fraction of the training "
              "instances a sample of 256 tree queries (k=16) computes distances to")
        for kind in ("latent-4", "gauss-4", "gauss-6", "gauss-8", "gauss-16"):
            for n in (500, 1000, 2000, 4000):
                if kind == "gauss-16" and n > 1000:
                    continue  # the tree compares nearly every pair there: minutes for nothing
                r = _run({"mode": "crossover", "kind": kind, "n": n, "threads": args.threads})
                print(f"{kind:9s} {n:6d} bags: brute {r['brute']:7.2f} s  kd_tree {r['kd_tree']:7.2f} s  "
                      f"brute/tree {r['brute'] / r['kd_tree']:5.2f}  inspected {r['inspected']:.4f}", flush=True)
        return
    rows = []
    for n in args.bags:
        r = _run({"mode": "scale", "n": n, "n_features": args.features, "threads": args.threads,
                  "baseline": n <= args.baseline_max})
        rows.append(r)
        t = r["kd_tree"]
        line = (f"{n:6d} bags ({r['n_instances']:,} instances, {r['data_mb']:.0f} MB): kd_tree fit "
                f"{t['fit_wall']:.1f} s wall / {t['fit_cpu']:.1f} s CPU, predict {n // 10} bags "
                f"{t['predict_wall']:.1f} / {t['predict_cpu']:.1f} s, peak RSS {t['peak_mb']:.0f} MB, "
                f"growth {t['peak_mb'] - t['rss_before_mb']:.0f} MB "
                f"({(t['peak_mb'] - t['rss_before_mb']) / r['data_mb']:.1f}x the instances), "
                f"accuracy {t['accuracy']:.3f}, AUC {t['auc']:.3f}; a k=6 tree query computes "
                f"{r['calls_per_query']:.0f} distances")
        if "brute" in r:
            b = r["brute"]
            line += (f"\n{'':6s}       brute fit {b['fit_wall']:.1f} / {b['fit_cpu']:.1f} s, predict "
                     f"{b['predict_wall']:.1f} / {b['predict_cpu']:.1f} s, peak RSS {b['peak_mb']:.0f} MB, "
                     f"growth {b['peak_mb'] - b['rss_before_mb']:.0f} MB; "
                     f"CPU brute / kd_tree {(b['fit_cpu'] + b['predict_cpu']) / (t['fit_cpu'] + t['predict_cpu']):.1f}x; "
                     f"identical probabilities: {r['identical']}")
        print(line, flush=True)
    for a, b in zip(rows, rows[1:]):
        ta, tb = a["kd_tree"], b["kd_tree"]
        print(f"growth {a['n_bags']} -> {b['n_bags']} bags ({b['n_bags'] / a['n_bags']:.0f}x): fit CPU "
              f"{tb['fit_cpu'] / ta['fit_cpu']:.1f}x, predict CPU {tb['predict_cpu'] / ta['predict_cpu']:.1f}x, "
              f"RSS growth {(tb['peak_mb'] - tb['rss_before_mb']) / (ta['peak_mb'] - ta['rss_before_mb']):.1f}x")
    print(f"load average at the end {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f}")


if __name__ == "__main__":
    main()
