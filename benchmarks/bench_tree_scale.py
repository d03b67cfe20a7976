"""The tree family at scale: fit time and peak memory against HistGradientBoosting and LightGBM.

Synthetic bags (``--bag-size`` instances on average, between half and one and a half of it), 64
features by default, instances in float32; a bag is positive when one of its instances lies near a
hidden concept point. Every fit runs in its own subprocess (one thread by default: OMP_NUM_THREADS=1
and n_jobs=1 / num_threads=1; ``--threads N`` gives every learner N threads, 0 all cores), which
reports the fit's wall time and its peak resident memory
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``, which includes the data). The ratios are against
``HistGradientBoostingClassifier`` on the instance table (bag labels copied to the instances) with
the same number of iterations (and leaves: ``--leaves`` / ``--hgb-leaves``), early stopping off,
measured by this script on the same data. ``--repeat`` runs the learners that many times, alternating,
and prints the median time and the median of the per-repetition ratios; ``--same-process`` fits in
this process (timing only); ``--trace-memory`` adds tracemalloc's peak of the fit's allocations.

    python benchmarks/bench_tree_scale.py --sizes 80000 320000 1280000 --rounds 100 \
        --learners hgb gdbt-hist --leaves 31 --repeat 3 --same-process
    python benchmarks/bench_tree_scale.py --sizes 1280000 --rounds 3 --learners gdbt-hist --trace-memory
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

LEARNERS = ("gdbt-hist", "gdbt-exact", "gdbt-hist-d5", "hgb", "hgb-31", "lightgbm", "forest-hist", "forest-exact", "rf-exact",
            "c45-hist", "c45-exact", "dt-exact")


def make_data(n_instances, n_features, bag_size, seed=0):
    """Bags of float32 instances: (instances, offsets, bag labels)."""
    rng = np.random.RandomState(seed)
    gen = np.random.default_rng(seed)
    sizes = []
    total = 0
    while total < n_instances:
        s = int(rng.randint(bag_size // 2, bag_size + bag_size // 2 + 1))
        s = min(s, n_instances - total)
        sizes.append(s)
        total += s
    sizes = np.array(sizes)
    X = gen.standard_normal((n_instances, n_features), dtype=np.float32)  # no float64 temporary
    concept = np.zeros(n_features, dtype=np.float32)
    concept[:8] = 1.5
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    y = rng.rand(sizes.size) < 0.5
    # A positive bag gets one instance near the concept (in its first 8 features).
    first = offsets[:-1][y]
    X[first, :8] = concept[:8] + 0.5 * gen.standard_normal((first.size, 8), dtype=np.float32)
    return X, offsets, y.astype(int)


def child(learner, n, d, bag_size, rounds, trees, leaves=0, trace=False, hgb_leaves=0):
    threads = int(os.environ.get("BENCH_TREE_THREADS", "1"))  # set by run_one (--threads)
    X, offsets, y = make_data(n, d, bag_size)
    inst_y = np.repeat(y, np.diff(offsets))
    if learner.startswith(("gdbt", "forest", "c45")):
        from mil.bags import Bags
        bags = Bags(X, offsets)
        fam, splitter = learner.split("-")[:2]
        if fam == "gdbt":
            from mil.ensemble import GDBTMIClassifier
            # "-d5": trees of depth at most 5 (at most 32 leaves, HistGradientBoosting's 31 by default).
            est = GDBTMIClassifier(n_estimators=rounds, splitter=splitter, random_state=0,
                                   max_depth=5 if learner.endswith("-d5") else None,
                                   max_leaf_nodes=leaves or None, n_jobs=threads)
        elif fam == "forest":
            from mil.ensemble import MIRandomForestClassifier
            est = MIRandomForestClassifier(n_estimators=trees, splitter=splitter, random_state=0, oob_score=False,
                                           n_jobs=threads)
        else:
            from mil.tree import C45MIClassifier
            est = C45MIClassifier(splitter=splitter)
        data = (bags, y)
    elif learner in ("hgb", "hgb-31"):  # "hgb-31": its default 31 leaves whatever --leaves says
        from sklearn.ensemble import HistGradientBoostingClassifier
        est = HistGradientBoostingClassifier(max_iter=rounds, early_stopping=False, random_state=0,
                                             max_leaf_nodes=31 if learner == "hgb-31" else hgb_leaves or leaves or 31)
        data = (X, inst_y)
    elif learner == "lightgbm":
        import lightgbm
        est = lightgbm.LGBMClassifier(n_estimators=rounds, num_threads=threads, verbose=-1, random_state=0,
                                      num_leaves=hgb_leaves or leaves or 31)
        data = (X, inst_y)
    elif learner == "rf-exact":
        from sklearn.ensemble import RandomForestClassifier
        est = RandomForestClassifier(n_estimators=trees, n_jobs=threads, random_state=0)
        data = (X, inst_y)
    else:  # dt-exact
        from sklearn.tree import DecisionTreeClassifier
        est = DecisionTreeClassifier(criterion="entropy", random_state=0)
        data = (X, inst_y)
    if trace:
        import tracemalloc
        tracemalloc.start()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=threads):  # OpenMP (HistGradientBoosting) and BLAS, also in --same-process
        t0 = time.perf_counter()
        est.fit(*data)
        seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Bytes allocated by the fit at its peak (NumPy reports its arrays to tracemalloc), the data excluded.
    traced = tracemalloc.get_traced_memory()[1] / 2**20 if trace else None
    trees = getattr(est, "estimators_", None)
    leaves = None
    if learner in ("hgb", "hgb-31"):
        leaves = float(np.mean([p.get_n_leaf_nodes() for it in est._predictors for p in it]))
    if learner.startswith(("gdbt", "forest")) and trees:
        leaves = float(np.mean([int((getattr(t, "tree_", t).children_left < 0).sum()) for t in trees]))
    if trace:
        tracemalloc.stop()
    return dict(learner=learner, n=n, d=d, threads=threads, seconds=seconds, peak_mb=peak / 1024, data_peak_mb=before / 1024,
                x_mb=X.nbytes / 2**20, mean_leaves=leaves, fit_traced_mb=traced, load=os.getloadavg()[0])


def run_one(args, learner, n):
    if args.same_process:  # timing only: the peak memory is the process's so far
        return child(learner, n, args.features, args.bag_size, args.rounds, args.trees, args.leaves,
                     hgb_leaves=args.hgb_leaves)
    t = str(args.threads)
    env = dict(os.environ, OMP_NUM_THREADS=t, OPENBLAS_NUM_THREADS=t, MKL_NUM_THREADS=t, BENCH_TREE_THREADS=t)
    cmd = [sys.executable, __file__, "--child", learner, str(n), str(args.features), str(args.bag_size),
           str(args.rounds), str(args.trees), str(args.leaves), str(int(args.trace_memory)), str(args.hgb_leaves)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.timeout)
    if out.returncode != 0:
        return dict(learner=learner, n=n, error=out.stderr.strip().splitlines()[-1:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", nargs="+", type=int, default=[20000, 80000, 320000])
    p.add_argument("--features", type=int, default=64)
    p.add_argument("--bag-size", type=int, default=20)
    p.add_argument("--rounds", type=int, default=100)
    p.add_argument("--trees", type=int, default=100)
    p.add_argument("--learners", nargs="+", default=["gdbt-hist", "hgb", "lightgbm", "forest-hist", "rf-exact",
                                                     "c45-hist", "dt-exact"], choices=LEARNERS)
    p.add_argument("--leaves", type=int, default=0,
                   help="at most this many leaves per tree for GDBT-MI, HistGradientBoosting and LightGBM "
                        "(0: their defaults, GDBT-MI unlimited, the others 31)")
    p.add_argument("--hgb-leaves", type=int, default=0,
                   help="leaves of HistGradientBoosting and LightGBM alone (e.g. GDBT-MI's mean leaves at its "
                        "defaults); 0: as --leaves")
    p.add_argument("--trace-memory", action="store_true",
                   help="also report the fit's peak of traced allocations (tracemalloc), data excluded")
    p.add_argument("--repeat", type=int, default=1,
                   help="run the learners this many times, alternating, and print the median time and ratio")
    p.add_argument("--same-process", action="store_true",
                   help="fit in this process instead of one subprocess per fit (timing only)")
    p.add_argument("--threads", type=int, default=1,
                   help="threads of every learner (n_jobs, num_threads, OpenMP); 0: all cores (default: 1)")
    p.add_argument("--timeout", type=float, default=3600)
    p.add_argument("--out", default=None, help="append the JSON lines here")
    p.add_argument("--child", nargs=9, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        learner, n, d, b, r, t, lv, tr, hl = args.child
        print(json.dumps(child(learner, int(n), int(d), int(b), int(r), int(t), int(lv), bool(int(tr)), int(hl))))
        return
    args.threads = args.threads if args.threads > 0 else os.cpu_count()
    if args.same_process:
        t = str(args.threads)
        os.environ.update(OMP_NUM_THREADS=t, OPENBLAS_NUM_THREADS=t, MKL_NUM_THREADS=t, BENCH_TREE_THREADS=t)
    for n in args.sizes:
        runs = {learner: [] for learner in args.learners}
        for rep in range(args.repeat):
            for learner in args.learners:  # alternating, so a change of load hits every learner alike
                r = run_one(args, learner, n)
                if args.out:
                    with open(args.out, "a") as fh:
                        fh.write(json.dumps(dict(r, rounds=args.rounds, trees=args.trees, leaves=args.leaves,
                                                 repeat=rep)) + "\n")
                if "error" in r:
                    print(f"{n:>9d} {learner:13s} failed: {r['error']}", flush=True)
                    continue
                runs[learner].append(r)
                base = runs.get("hgb")
                ratio = f"{r['seconds'] / base[rep]['seconds']:6.1f}x hgb" if base and len(base) > rep else ""
                leaves = f", {r['mean_leaves']:.0f} leaves/tree" if r.get("mean_leaves") else ""
                traced = (f", fit allocations {r['fit_traced_mb']:.0f} MB = {r['fit_traced_mb'] / r['x_mb']:.2f} X"
                          if r.get("fit_traced_mb") is not None else "")
                print(f"{n:>9d} {learner:13s} {r['seconds']:8.2f} s  peak {r['peak_mb']:7.0f} MB "
                      f"(data {r['data_peak_mb']:.0f} MB, X {r['x_mb']:.0f} MB{traced})  {ratio}{leaves}"
                      f"  [load {r['load']:.1f}]", flush=True)
        if args.repeat > 1:
            base = runs.get("hgb")
            for learner, rs in runs.items():
                if not rs:
                    continue
                t = np.median([r["seconds"] for r in rs])
                ratio = ""
                if base and len(base) == len(rs):
                    ratio = f"  median ratio {np.median([r['seconds'] / b['seconds'] for r, b in zip(rs, base)]):.2f}x hgb"
                print(f"{n:>9d} {learner:13s} median {t:8.2f} s over {len(rs)} runs{ratio}  "
                      f"[load {np.median([r['load'] for r in rs]):.1f}]", flush=True)


if __name__ == "__main__":
    main()
