"""Bag encoders + a linear model fit in less time than MIWrapper + HistGradientBoosting, linear in the data.

Each encoder of :mod:`mil.embedding` at its defaults (seeded) followed by scikit-learn's
``LinearSVC(C=1)`` on the encodings (``--model logistic``: ``LogisticRegression(C=1)``, the encoder
classifiers' default model; fixed parameters: this is the speed harness, no tuning),
against ``MIWrapperClassifier(HistGradientBoostingClassifier())`` (scikit-learn's defaults: early
stopping on above 10,000 instances) on the same synthetic bags: ``make_data`` of
``bench_tree_scale.py`` (10-30 instances per bag, 64 features, float32; a positive bag holds one
instance near a hidden concept). Every fit runs in its own subprocess with one thread
(``OMP_NUM_THREADS=1`` and friends, threadpoolctl), which reports the fit's wall time and its
peak resident memory (``ru_maxrss``) less the interpreter's before the data are made, so the data
and everything the fit holds at once; ``--trace-memory`` adds the peak of the fit's own
allocations (tracemalloc, which slows the fits: such a run's times are not comparable). The
learners run one after the other at each size, and the ratios are against the MIWrapper fit
measured by this script at the same size. The memory bound printed is ``1.5 x`` the float32
instance array plus ``16 x bags x encoding length`` bytes (the float32 encodings and LinearSVC's
float64 copy of them).

    nice -n 10 python benchmarks/bench_encoders.py --sizes 20000 80000 320000 1280000
    python benchmarks/bench_encoders.py --sizes 20000 --learners vlad fv   # a smoke run
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

LEARNERS = ("miwrapper-hgb", "vlad", "fv", "kme", "kme-nystroem", "swe")


def _encoder(name):
    from mil.embedding import (FisherVectorEmbedding, KernelMeanEmbedding, SlicedWassersteinEmbedding,
                               VLADEmbedding)

    if name == "kme-nystroem":  # the Nystroem map on 1000 landmarks
        return KernelMeanEmbedding(method="nystroem", random_state=0)
    return {"vlad": VLADEmbedding, "fv": FisherVectorEmbedding, "kme": KernelMeanEmbedding,
            "swe": SlicedWassersteinEmbedding}[name](random_state=0)


def child(learner, n, d, bag_size, trace=False, model_name="linear-svc"):
    import tracemalloc

    from threadpoolctl import threadpool_limits

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_tree_scale import make_data

    from mil import Bags

    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # the interpreter and the imports
    X, offsets, y = make_data(n, d, bag_size)
    bags = Bags(X, offsets)
    if learner == "miwrapper-hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier

        from mil.wrappers import MIWrapperClassifier

        est = MIWrapperClassifier(HistGradientBoostingClassifier())
        length = 0
    else:
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.svm import LinearSVC

        enc = _encoder(learner)
        model = LogisticRegression(C=1.0, max_iter=5000) if model_name == "logistic" else LinearSVC(C=1.0)
        est = make_pipeline(enc, model)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if trace:  # tracemalloc slows the fit down: only on request, and the time is then not reported
        tracemalloc.start()
    with threadpool_limits(limits=1):
        t0 = time.perf_counter()
        est.fit(bags, y)
        seconds = time.perf_counter() - t0
        t1 = time.perf_counter()
        accuracy = float(np.mean(est.predict(bags) == y))
        predict_seconds = time.perf_counter() - t1
    traced = tracemalloc.get_traced_memory()[1] if trace else float("nan")
    tracemalloc.stop()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if learner != "miwrapper-hgb":
        length = est[0].get_feature_names_out().shape[0]
    return dict(learner=learner, n=n, d=d, n_bags=bags.n_bags, seconds=seconds, predict_seconds=predict_seconds,
                train_accuracy=accuracy, peak_mb=peak / 1024, data_peak_mb=before / 1024, base_mb=base_rss / 1024,
                x_mb=X.nbytes / 2**20,
                fit_traced_mb=traced / 2**20, encoding_length=length, load=os.getloadavg()[0])


def run_one(args, learner, n):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmd = [sys.executable, __file__, "--child", learner, str(n), str(args.features), str(args.bag_size),
           str(int(args.trace_memory)), args.model]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    if out.returncode != 0:
        return dict(learner=learner, n=n, error=out.stderr.strip().splitlines()[-1:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", nargs="+", type=int, default=[20000, 80000, 320000, 1280000])
    p.add_argument("--features", type=int, default=64)
    p.add_argument("--bag-size", type=int, default=20)
    p.add_argument("--learners", nargs="+", default=list(LEARNERS), choices=LEARNERS)
    p.add_argument("--timeout", type=float, default=7200)
    p.add_argument("--out", default=None, help="append the JSON lines here")
    p.add_argument("--trace-memory", action="store_true",
                   help="run every fit with tracemalloc and report the peak of its own allocations (slower: "
                        "the times of such a run are not comparable)")
    p.add_argument("--model", choices=["linear-svc", "logistic"], default="linear-svc",
                   help="the linear model on the encodings: LinearSVC (liblinear, the default) or "
                        "LogisticRegression (lbfgs, the encoder classifiers' default model)")
    p.add_argument("--child", nargs=6, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        learner, n, d, b, trace, model = args.child
        print(json.dumps(child(learner, int(n), int(d), int(b), bool(int(trace)), model)))
        return
    learners = ["miwrapper-hgb"] + [x for x in args.learners if x != "miwrapper-hgb"]
    previous = {}
    print(f"{'instances':>9s} {'learner':14s} {'fit s':>8s} {'x HGB':>6s} {'x prev':>6s} {'peak MB':>8s} "
          f"{'bound MB':>8s} {'alloc MB':>8s} {'enc len':>7s} {'train acc':>9s}  load")
    for n in args.sizes:
        base = None
        for learner in learners:
            r = run_one(args, learner, n)
            if args.out:
                with open(args.out, "a") as fh:
                    fh.write(json.dumps(r) + "\n")
            if "error" in r:
                print(f"{n:>9d} {learner:14s} failed: {r['error']}", flush=True)
                continue
            if learner == "miwrapper-hgb":
                base = r["seconds"]
            ratio = f"{r['seconds'] / base:6.2f}" if base else f"{'':>6s}"
            grow = f"{r['seconds'] / previous[learner]:6.2f}" if learner in previous else f"{'':>6s}"
            previous[learner] = r["seconds"]
            # The fit's process less the interpreter: the data and everything the fit holds at once.
            peak = r["peak_mb"] - r["base_mb"]
            bound = 1.5 * r["x_mb"] + 16 * r["n_bags"] * r["encoding_length"] / 2**20
            print(f"{n:>9d} {learner:14s} {r['seconds']:8.2f} {ratio} {grow} {peak:8.0f} "
                  f"{bound if r['encoding_length'] else float('nan'):8.0f} {r['fit_traced_mb']:8.0f} "
                  f"{r['encoding_length']:7d} {r['train_accuracy']:9.3f}  {r['load']:.1f}", flush=True)
    print("x HGB: fit time over MIWrapper + HistGradientBoosting's at the same size; x prev: growth over the "
          "previous size (4x the data); peak MB: the fit's process at its peak less the interpreter and imports "
          "(so the data and all the fit holds); bound: 1.5 x the float32 instances + 16 x bags x encoding length "
          "(the float32 encodings and LinearSVC's float64 copy); alloc MB: the fit's own allocations at their "
          "peak (tracemalloc, with --trace-memory); load: the 1-minute load average")


if __name__ == "__main__":
    main()
