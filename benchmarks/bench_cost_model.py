"""Measure what one CV fold of each learner costs at several sizes, and fit the cost model mil ships.

``mil evaluate`` prints, before a job starts, an estimate of its time. The
estimate comes from ``src/mil/_cost_model.json``, which this script writes:
for each learner, the CPU seconds of one fold (fit on 90 % of the bags,
predict and score the other 10 %, as a fold of ``mil evaluate``) as a power
law in the number of instances and of features,
``t = a * n_instances**p * (n_features / 32)**q``, fitted by least squares in
log space to measured folds.

The bags are synthetic (seeded): 10 to 30 instances per bag (20 on average),
standard normal features, half the bags positive with 10 % of their
instances (at least one) shifted by 1.5 on the first four features. Sizes
from about 4,000 to 1,000,000 instances at 32 features, and 8, 128 and 768
features at about 32,000 instances. A learner whose fold takes longer than
``--budget`` seconds is not measured at the larger sizes, nor is a size at which
its fold is predicted to take longer than ``--max-fold`` seconds (a power law
through its two largest measured folds, or from one fold the square of the
instances for a learner that compares every pair of instances and 1.2 for the
others, the features counted linearly); its model then extrapolates.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/bench_cost_model.py measure \\
        --out /tmp/costs.jsonl
    python benchmarks/bench_cost_model.py fit /tmp/costs.jsonl --write src/mil/_cost_model.json
    python benchmarks/bench_cost_model.py check /tmp/costs.jsonl   # measured / estimated at every size
    OMP_NUM_THREADS=1 python benchmarks/bench_cost_model.py verify --out /tmp/verify.jsonl
    python benchmarks/bench_cost_model.py check /tmp/verify.jsonl

``verify`` runs ``mil evaluate`` (10-fold CV, one learner, one thread) on
fresh bags of the same recipe (seed 1) at 4,000 to 1,000,000 instances and
records the fold times it reports; ``check`` compares them with the shipped
model's estimate of that job (what the command line prints), divided by 10.

Each measured line holds the learner, the size, the CPU and wall seconds and
the machine's load average when the fold ran.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

#: The learners measured by default: the default job, the scalable alternatives the command
#: line names, and the usual baselines.
LEARNERS = ("mind", "blrt", "gdbt-bag-ratio", "miles", "miwrapper-hgb", "simplemi-rf", "mi-vlad", "mi-fv",
            "nystroem-nsk", "swe-svm", "c45-mi", "emd-svm", "nsk-svm", "citation-knn", "bag-knn", "mi-svm-bag",
            "mi-svm")
#: (instances, features) of the measured sizes.
SIZES = ((4_000, 32), (32_000, 32), (250_000, 32), (1_000_000, 32), (32_000, 8), (32_000, 128), (32_000, 768))


def make_bags(n_instances, n_features, seed=0):
    """Synthetic bags of about `n_instances` instances (see the module docstring)."""
    rng = np.random.default_rng(seed)
    n_bags = max(n_instances // 20, 20)
    sizes = rng.integers(10, 31, size=n_bags)
    y = rng.permutation(np.arange(n_bags) % 2)
    X = rng.standard_normal((int(sizes.sum()), n_features)).astype(np.float32)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    for b in np.flatnonzero(y):
        k = max(1, int(0.1 * sizes[b]))
        X[offsets[b]:offsets[b] + k, :4] += 1.5
    from mil.bags import Bags

    return Bags(X, offsets), y


_WARM = set()


def _fold(name, bags, y, seed=0):
    """CPU and wall seconds of one fold of learner `name` (fit on 90 % of the bags, predict the rest).

    As a fold of ``mil evaluate``: ``fit``, ``predict`` and ``predict_proba``
    (else ``decision_function``).

    A learner's first fold in the process is preceded by an untimed fit on
    100 bags: imports and first-call costs are paid once per job, not per
    fold (``mil evaluate`` reports the mean fold).
    """
    from mil._learners import make_learner

    if name not in _WARM:
        small, y_small = make_bags(2000, bags.n_features, seed=2)
        make_learner(name, seed=0).fit(small, y_small).predict(small)
        _WARM.add(name)
    rng = np.random.default_rng(seed)
    test = rng.permutation(len(y))[: max(len(y) // 10, 2)]
    train = np.setdiff1d(np.arange(len(y)), test)
    est = make_learner(name, seed=0)
    c0, w0 = time.process_time(), time.perf_counter()
    est.fit(bags[train], y[train])
    test_bags = bags[test]
    est.predict(test_bags)  # and the scores for the AUC, as mil evaluate's folds
    est.predict_proba(test_bags) if hasattr(est, "predict_proba") else est.decision_function(test_bags)
    return time.process_time() - c0, time.perf_counter() - w0, getattr(est, "algorithm_", None)


def predicted_seconds(name, records, n_instances, n_features):
    """A learner's fold at this size, extrapolated from its measured `records` (None: none measured)."""
    from mil._costs import PAIRWISE

    rows = sorted((r for r in records if r["learner"] == name), key=lambda r: r["n_instances"])
    if not rows:
        return None
    same = [r for r in rows if r["n_features"] == n_features] or rows
    last = same[-1]
    if len({r["n_instances"] for r in same}) >= 2:
        prev = next(r for r in reversed(same) if r["n_instances"] < last["n_instances"])
        p = np.log(max(last["cpu_s"], 1e-3) / max(prev["cpu_s"], 1e-3)) / np.log(last["n_instances"] / prev["n_instances"])
        p = max(p, 1.0)
    else:
        p = 2.0 if name in PAIRWISE else 1.2
    return last["cpu_s"] * (n_instances / last["n_instances"]) ** p * n_features / last["n_features"]


def measure(args):
    learners = args.learners or LEARNERS
    sizes = SIZES if not args.sizes else [tuple(int(v) for v in item.split("x")) for item in args.sizes]
    records = []
    if os.path.exists(args.out):
        records = _read(args.out)
    done = {(r["learner"], r["n_instances"], r["n_features"]) for r in records}
    too_slow = set()
    for n, d in sorted(sizes, key=lambda s: s[0] * s[1]):
        bags, y = make_bags(n, d)
        for name in learners:
            key = (name, bags.n_instances, d)
            if key in done or name in too_slow:
                continue
            guess = predicted_seconds(name, records, bags.n_instances, d)
            if guess is not None and guess > args.max_fold:
                print(f"{name} at {n} x {d}: skipped, about {guess:.0f} s predicted", file=sys.stderr, flush=True)
                continue
            load = os.getloadavg()[0]
            try:
                cpu, wall, search = _fold(name, bags, y)
            except (ValueError, MemoryError) as exc:
                print(f"{name} at {n} x {d}: {exc}", file=sys.stderr)
                too_slow.add(name)
                continue
            record = {"learner": name, "n_bags": int(bags.n_bags), "n_instances": int(bags.n_instances),
                      "n_features": d, "cpu_s": round(cpu, 3), "wall_s": round(wall, 3), "load": round(load, 2)}
            if search == "hnsw":  # the neighbour learners' approximate search: its own law (mil._costs)
                record["search"] = search
            records.append(record)
            with open(args.out, "a") as fh:
                fh.write(json.dumps(record) + "\n")
            print(json.dumps(record), flush=True)
            if cpu > args.budget:
                too_slow.add(name)


def _read(path):
    with open(path) as fh:
        if path.endswith(".json"):
            return json.load(fh)["measurements"]
        return [json.loads(line) for line in fh if line.strip()]


def fit(records):
    """Per learner: ``{"a", "p", "q", "spread", "max_measured_instances"}`` (log-space least squares).

    A neighbour learner's folds that searched the approximate graph (records
    with ``"search": "hnsw"``) get a law of their own under ``"graph"``.
    """
    out = {}
    for name in sorted({r["learner"] for r in records}):
        law = _power_law([r for r in records if r["learner"] == name and "search" not in r])
        if law is None:
            continue
        graph = _power_law([r for r in records if r["learner"] == name and r.get("search") == "hnsw"])
        if graph is not None:
            law["graph"] = graph
        out[name] = law
    return out


def _power_law(rows):
    """``{"a", "p", "q", "spread", "max_measured_instances"}`` through `rows` (None: too few sizes)."""
    if len({r["n_instances"] for r in rows if r["n_features"] == 32}) < 2:
        return None  # the growth in the instances needs two sizes at the same features
    n = np.array([r["n_instances"] for r in rows], dtype=float)
    d = np.array([r["n_features"] for r in rows], dtype=float) / 32.0
    t = np.maximum(np.array([r["cpu_s"] for r in rows]), 1e-3)
    varies_d = len(set(d)) > 1
    A = np.column_stack([np.ones_like(n), np.log(n)] + ([np.log(d)] if varies_d else []))
    coef, *_ = np.linalg.lstsq(A, np.log(t), rcond=None)
    p = coef[1]
    q = coef[2] if varies_d else 1.0
    p, q = float(np.clip(p, 0.3, 3.0)), float(np.clip(q, 0.0, 2.0))
    log_a = float(np.mean(np.log(t) - p * np.log(n) - q * np.log(d)))
    ratio = t / np.exp(log_a + p * np.log(n) + q * np.log(d))
    return {"a": float(np.exp(log_a)), "p": round(p, 3), "q": round(q, 3),
            "spread": round(float(max(ratio.max(), 1 / ratio.min())), 2), "max_measured_instances": int(n.max())}


def _write_parquet(path, bags, y):
    import pandas as pd

    X = np.asarray(bags.instances)
    bag = np.repeat(np.arange(bags.n_bags), np.diff(bags.offsets))
    table = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    table.insert(0, "label", y[bag])
    table.insert(0, "bag", bag)
    table.to_parquet(path)


def verify(args):
    """``mil evaluate`` on fresh bags (seed 1) at each size: the fold times it reports, for ``check``.

    One process per learner and size, one thread, 10-fold CV. A record's
    ``cpu_s`` is the mean over the folds of the fit and predict times
    ``mil evaluate --json`` reports (what the estimate models); ``process_cpu_s`` is the
    whole process's CPU time (reading the file and starting Python
    included). ``check`` then compares them with the shipped model.
    """
    import resource
    import subprocess

    from mil._costs import fold_seconds

    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    os.makedirs(args.data_dir, exist_ok=True)
    for item in args.sizes:
        n, d = (int(v) for v in item.split("x"))
        path = os.path.join(args.data_dir, f"bags-{n}x{d}.parquet")
        bags, y = make_bags(n, d, seed=1)
        if not os.path.exists(path):
            _write_parquet(path, bags, y)
        for name in args.learners:
            guess = 10 * fold_seconds(name, bags.n_instances, d)
            if guess > args.max_job:
                print(f"{name} at {bags.n_instances} x {d}: skipped (estimate {guess:.0f} s)", flush=True)
                continue
            c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            out = subprocess.run([sys.executable, "-m", "mil", "evaluate", "--dataset", path, "--model", name,
                                  "--jobs", "1", "--json"], capture_output=True, text=True, env=env)
            c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            if out.returncode:
                print(f"{name} at {bags.n_instances} x {d}: failed\n{out.stderr[-2000:]}", flush=True)
                continue
            run = json.loads(out.stdout)[0]
            record = {"learner": name, "n_bags": int(bags.n_bags), "n_instances": int(bags.n_instances),
                      "n_features": d, "cpu_s": round(run["fit_time_s"] + run["predict_time_s"], 3),
                      "process_cpu_s": round(c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime, 2),
                      "load": round(os.getloadavg()[0], 2)}
            with open(args.out, "a") as fh:
                fh.write(json.dumps(record) + "\n")
            print(json.dumps(record), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--out", required=True)
    m.add_argument("--learners", nargs="+")
    m.add_argument("--budget", type=float, default=150.0, help="seconds of a fold above which larger sizes are skipped")
    m.add_argument("--max-fold", type=float, default=600.0,
                   help="seconds of a fold predicted from the smaller sizes above which a size is skipped")
    m.add_argument("--sizes", nargs="+", metavar="NxD", help="instances x features to measure (default: SIZES)")
    f = sub.add_parser("fit")
    f.add_argument("measurements")
    f.add_argument("--write")
    c = sub.add_parser("check", help="measured / estimated CPU seconds at every measured size")
    c.add_argument("measurements", help="a measurements file, or the shipped model (its measurements)")
    v = sub.add_parser("verify", help="mil evaluate's printed estimate against its measured folds, on fresh bags")
    v.add_argument("--out", required=True)
    v.add_argument("--learners", nargs="+", default=list(LEARNERS))
    v.add_argument("--sizes", nargs="+", default=[f"{n}x{d}" for n, d in SIZES if d == 32], metavar="NxD")
    v.add_argument("--data-dir", default="cost-bags", help="where the Parquet files of the bags are written")
    v.add_argument("--max-job", type=float, default=300.0,
                   help="skip a run whose 10 folds the shipped model estimates above these seconds")
    args = parser.parse_args(argv)
    if args.command == "measure":
        return measure(args)
    if args.command == "verify":
        return verify(args)
    records = _read(args.measurements)
    if args.command == "fit":
        model = {"model": "cpu_s = a * n_instances**p * (n_features / 32)**q",
                 "command": "python benchmarks/bench_cost_model.py measure; python benchmarks/bench_cost_model.py fit",
                 "learners": fit(records),
                 "measurements": [{k: r[k] for k in ("learner", "n_instances", "n_features", "cpu_s", "load", "search")
                                   if k in r} for r in records]}
        text = json.dumps(model, indent=1, sort_keys=True)
        if args.write:
            with open(args.write, "w") as fh:
                fh.write(text + "\n")
        print(text)
        return 0
    from mil._costs import COST_MODEL, estimate_seconds, fold_seconds, law_seconds

    print(f"{'learner':<16}{'instances':>10}{'features':>9}{'measured':>10}{'estimate':>10}{'ratio':>7}")
    for r in records:
        est = fold_seconds(r["learner"], r["n_instances"], r["n_features"])
        law = COST_MODEL.get(r["learner"], {})
        if "process_cpu_s" not in r and "graph" in law:  # a measured fold: the law of the search it ran
            est = law_seconds(law["graph"] if r.get("search") == "hnsw" else law, r["n_instances"], r["n_features"])
        if est is not None and "process_cpu_s" in r:  # a fold of a verified 10-fold job: the job's mean
            est = estimate_seconds([r["learner"]], r["n_instances"], r["n_features"], 10, n_bags=r["n_bags"])[0] / 10
        if est is None:
            print(f"{r['learner']:<16}{r['n_instances']:>10}{r['n_features']:>9}{r['cpu_s']:>10.2f}  no estimate")
            continue
        print(f"{r['learner']:<16}{r['n_instances']:>10}{r['n_features']:>9}{r['cpu_s']:>10.2f}{est:>10.2f}"
              f"{r['cpu_s'] / est:>7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
