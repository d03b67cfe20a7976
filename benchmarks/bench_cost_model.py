"""Measure what one CV fold of each learner costs at several sizes, and fit the cost model mil ships.

``mil evaluate`` prints, before a job starts, an estimate of its time. The
estimate comes from ``src/mil/_cost_model.json``, which this script writes:
for each learner, the CPU seconds of one fold (fit on 90 % of the bags,
predict and score the other 10 %, as a fold of ``mil evaluate``) as a power
law in the number of instances and of features,
``t = a * n_instances**p * (n_features / 32)**q``, fitted by least squares in
log space to measured folds of bags of 20 instances on average, times
``(n_instances / n_bags / 20)**r`` for other mean bag sizes, ``r`` fitted at
each feature count where folds of larger bags were measured (sizes
``NxDxM``, ``M`` instances a bag on average) and interpolated between them in
the logarithm of the features (``mil._costs.bag_exponent``).

The bags are synthetic (seeded): 10 to 30 instances per bag (20 on average;
``M / 2`` to ``3 M / 2`` for a size ``NxDxM``),
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
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_cost_model.py measure \\
        --out /tmp/bags.jsonl --sizes 32000x32x200 32000x768x200 150000x768x1000
    python benchmarks/bench_cost_model.py memory --out /tmp/memory.jsonl
    python benchmarks/bench_cost_model.py memory --out /tmp/memory.jsonl --learners emd-svm --bags 1000 2000 4000
    python benchmarks/bench_cost_model.py fit /tmp/costs.jsonl /tmp/bags.jsonl /tmp/memory.jsonl \
        --write src/mil/_cost_model.json
    python benchmarks/bench_cost_model.py check /tmp/costs.jsonl   # measured / estimated at every size
    OMP_NUM_THREADS=1 python benchmarks/bench_cost_model.py verify --out /tmp/verify.jsonl
    python benchmarks/bench_cost_model.py check /tmp/verify.jsonl

``verify`` runs ``mil evaluate`` (10-fold CV, one learner, one thread) on
fresh bags of the same recipe (seed 1) at 4,000 to 1,000,000 instances and
records the fold times it reports; ``check`` compares them with the shipped
model's estimate of that job (what the command line prints), divided by 10.
With ``--one-fold`` it times one fold of the ten (for sizes where ten folds
would take hours).

Each measured line holds the learner, the size, the CPU and wall seconds and
the machine's load average when the fold ran.

``memory`` runs one fold of each learner in a process of its own on 1,000,
2,000, 4,000 and 8,000 bags of 4 instances x 8 features (Linux: it samples the
process's anonymous memory, ``RssAnon``, every 5 ms) and records the peak
growth during the fold. With so little data, what grows is what a learner
holds per pair of training bags; ``fit`` ships, for each learner whose growth
goes as the square of the bags, that peak in ``n_train_bags x n_train_bags``
float64 matrices (``mil._costs.pair_memory_bytes``): the command line warns
before a job whose matrices would fill more than half of the machine's memory.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

from mil._costs import REFERENCE_BAG_SIZE

#: The learners measured by default: the default job, the scalable alternatives the command
#: line names, and the usual baselines.
LEARNERS = ("mind", "blrt", "gdbt-bag-ratio", "miles", "miwrapper-hgb", "simplemi-rf", "mi-vlad", "mi-fv",
            "nystroem-nsk", "swe-svm", "c45-mi", "emd-svm", "nsk-svm", "citation-knn", "bag-knn", "mi-svm-bag",
            "mi-svm")
#: (instances, features) of the measured sizes.
SIZES = ((4_000, 32), (32_000, 32), (250_000, 32), (1_000_000, 32), (32_000, 8), (32_000, 128), (32_000, 768))


def make_bags(n_instances, n_features, seed=0, bag_size=REFERENCE_BAG_SIZE):
    """Synthetic bags of about `n_instances` instances, `bag_size` a bag on average (see the module docstring)."""
    rng = np.random.default_rng(seed)
    n_bags = max(n_instances // bag_size, 20)
    sizes = rng.integers(bag_size // 2, bag_size + bag_size // 2 + 1, size=n_bags)
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

    rows = sorted((r for r in records if r["learner"] == name and _reference_sized(r)), key=lambda r: r["n_instances"])
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


def _size(item):
    """``NxD`` or ``NxDxM`` (M instances a bag on average, 20 when absent) as three ints."""
    values = tuple(int(v) for v in item.split("x"))
    return values if len(values) == 3 else (*values, REFERENCE_BAG_SIZE)


def bag_size(record):
    """A record's mean instances a bag (20, the campaign's, for a record without its bag count)."""
    return record["n_instances"] / record["n_bags"] if record.get("n_bags") else float(REFERENCE_BAG_SIZE)


def measure(args):
    learners = args.learners or LEARNERS
    sizes = [(n, d, REFERENCE_BAG_SIZE) for n, d in SIZES] if not args.sizes else [_size(item) for item in args.sizes]
    records = []
    if os.path.exists(args.out):
        records = _read(args.out)
    done = {(r["learner"], r["n_instances"], r["n_features"], r.get("n_bags")) for r in records}
    too_slow = set()
    for n, d, m in sorted(sizes, key=lambda s: (s[0] * s[1], s[2])):
        bags, y = make_bags(n, d, bag_size=m)
        for name in learners:
            key = (name, bags.n_instances, d, bags.n_bags)
            if key in done or name in too_slow:
                continue
            guess = predicted_seconds(name, records, bags.n_instances, d) if m == REFERENCE_BAG_SIZE else None
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


#: The bags of the memory measurement: few instances a bag and few features, so that what grows
#: with the bags is what a learner holds per pair of them (kernel, distance and dissimilarity
#: matrices), not the data.
MEMORY_BAGS = (1000, 2000, 4000, 8000)
MEMORY_BAG_SIZE = 4
MEMORY_FEATURES = 8
#: Growth of a fold's peak memory, as a power of the training bags between the two largest
#: counts measured, from which a learner is taken to hold matrices over pairs of bags.
MEMORY_SQUARE = 1.5


def memory_fold(name, n_bags):
    """The largest growth in bytes of this process's anonymous memory during one fold of `name`.

    Sampled every 5 ms (Linux's ``RssAnon``: ``_data.AnonymousPeak``) from
    after a warm-up fit (``_fold``'s) to the end of the fold's predictions,
    on `n_bags` bags of :data:`MEMORY_BAG_SIZE` instances on average and
    :data:`MEMORY_FEATURES` features.
    """
    from _data import AnonymousPeak  # benchmarks/ is on sys.path when run as a script

    bags, y = make_bags(n_bags * MEMORY_BAG_SIZE, MEMORY_FEATURES, bag_size=MEMORY_BAG_SIZE)
    small, y_small = make_bags(400, MEMORY_FEATURES, seed=2, bag_size=MEMORY_BAG_SIZE)
    _fold(name, small, y_small)  # imports, first calls and the warm-up fit
    base = AnonymousPeak.now_mb()
    if base != base:  # nan: no RssAnon to read
        raise OSError("/proc/self/status has no RssAnon line; the memory measurement reads Linux's")
    sampler = AnonymousPeak(interval=0.005)
    sampler.start()
    try:
        cpu, _, _ = _fold(name, bags, y)
    finally:
        peak = max(sampler.stop(), AnonymousPeak.now_mb())
    return {"learner": name, "n_bags": int(bags.n_bags), "n_instances": int(bags.n_instances),
            "n_features": MEMORY_FEATURES, "n_train_bags": int(bags.n_bags - max(bags.n_bags // 10, 2)),
            "anon_peak_mb": round(peak - base, 1), "fold_cpu_s": round(cpu, 2)}


def memory(args):
    """One process per learner and bag count: :func:`memory_fold`'s record, appended to ``--out``.

    By default every registered classifier but the recommended vote (it fits
    its members one after the other: ``mil._costs.pair_memory_bytes`` takes
    the largest of theirs) and the EMD kernel SVM (a fold on 8,000 bags would
    take hours: give it ``--bags 1000 2000 4000``).
    """
    import subprocess

    from mil._learners import available_learners

    learners = args.learners or [name for name in available_learners("classification")
                                 if name not in ("recommended", "emd-svm")]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    for name in learners:
        for n_bags in args.bags:
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "memory-fold", name, str(n_bags)],
                                 capture_output=True, text=True, env=env)
            if out.returncode:
                print(f"{name} at {n_bags} bags: failed\n{out.stderr[-2000:]}", flush=True)
                break
            record = json.loads(out.stdout.strip().splitlines()[-1])
            with open(args.out, "a") as fh:
                fh.write(json.dumps(record) + "\n")
            print(json.dumps(record), flush=True)


def _read(path):
    """The records of a measurements file, or of the shipped model (its time and memory measurements)."""
    with open(path) as fh:
        if path.endswith(".json"):
            model = json.load(fh)
            return model["measurements"] + model.get("memory_measurements", [])
        return [json.loads(line) for line in fh if line.strip()]


def _is_memory(record):
    return "anon_peak_mb" in record


def fit_memory(records):
    """Per learner whose fold's memory grew as the square of the bags: ``{"pair_matrices", "max_measured_bags"}``.

    The growth of a fold's peak memory (:func:`memory_fold`) from the
    second largest to the largest bag count measured must go as the training
    bags to a power of at least :data:`MEMORY_SQUARE` and reach 64 MB at the
    largest; ``pair_matrices`` is then that largest growth in ``n_train_bags
    x n_train_bags`` float64 matrices (what grows more slowly is counted in
    it, so beyond that count the estimate errs high). The largest counts decide: a learner may
    grow as the square of the bags at small sizes and not beyond (a search
    whose blocks stop growing; MILES, whose concepts become k-means centres
    above 10,000 training instances).
    """
    latest = {(r["learner"], r["n_bags"]): r for r in records}  # a count measured again: the last record
    out = {}
    for name in sorted({r["learner"] for r in records}):
        rows = sorted((r for (learner, _), r in latest.items() if learner == name), key=lambda r: r["n_train_bags"])
        if len(rows) < 2:
            continue
        (n1, g1), (n2, g2) = [(r["n_train_bags"], max(r["anon_peak_mb"], 1.0)) for r in rows[-2:]]
        if g2 < 64 or np.log(g2 / g1) / np.log(n2 / n1) < MEMORY_SQUARE:
            continue
        out[name] = {"pair_matrices": round(g2 * 2**20 / (8.0 * n2 ** 2), 2),
                     "max_measured_bags": int(rows[-1]["n_bags"])}
    return out


def fit(records):
    """Per learner: ``{"a", "p", "q", "spread", "max_measured_instances"}`` (log-space least squares).

    ``a, p, q`` are fitted to the folds of bags of 20 instances on average;
    folds of larger bags add ``"bag_rate"`` (:func:`_with_bag_rates`). A
    neighbour learner's folds that searched the approximate graph (records
    with ``"search": "hnsw"``) get a law of their own under ``"graph"``.
    """
    out = {}
    for name in sorted({r["learner"] for r in records}):
        exact = [r for r in records if r["learner"] == name and "search" not in r]
        law = _with_bag_rates(_power_law([r for r in exact if _reference_sized(r)]), exact)
        if law is None:
            continue
        graph = [r for r in records if r["learner"] == name and r.get("search") == "hnsw"]
        graph_law = _with_bag_rates(_power_law([r for r in graph if _reference_sized(r)]), graph)
        if graph_law is not None:
            law["graph"] = graph_law
        out[name] = law
    return out


def _reference_sized(record):
    """Whether a record's bags hold 20 instances on average (the campaign's main bags)."""
    return abs(bag_size(record) - REFERENCE_BAG_SIZE) < 2


def _with_bag_rates(law, rows):
    """`law` with ``"bag_rate"``: ``[features, r]`` for each feature count of `rows` of larger bags.

    ``r`` is the least-squares slope through the origin of ``log(t / law)``
    against ``log(bag_size / 20)`` over those folds (``a, p, q`` kept); the
    spread then covers every row. `law` unchanged without such rows.
    """
    from mil._costs import law_seconds

    other = [r for r in rows if not _reference_sized(r)]
    if law is None or not other:
        return law
    rates = []
    for d in sorted({r["n_features"] for r in other}):
        x = np.array([np.log(bag_size(r) / REFERENCE_BAG_SIZE) for r in other if r["n_features"] == d])
        y = np.array([np.log(max(r["cpu_s"], 1e-3) / law_seconds(law, r["n_instances"], d))
                      for r in other if r["n_features"] == d])
        rates.append([d, round(float(np.clip(x @ y / (x @ x), -3.0, 3.0)), 3)])
    law = dict(law, bag_rate=rates)
    ratio = np.array([max(r["cpu_s"], 1e-3) / law_seconds(law, r["n_instances"], r["n_features"], r.get("n_bags"))
                      for r in rows])
    law["spread"] = round(float(max(law["spread"], ratio.max(), 1 / ratio.min())), 2)
    return law


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


def _one_fold_file(data_dir, n_bags):
    """A folds file of two folds: fold 1 one tenth of the bags (seeded), fold 0 the rest.

    Fold 1 is a fold of a 10-fold CV (fit on 90 % of the bags, predict 10 %),
    the one ``verify --one-fold`` times; fold 0 (fit on 10 %) runs first, not
    timed, so that imports and first calls are paid outside the timed fold.
    """
    fold = np.zeros(n_bags, dtype=int)
    fold[np.random.default_rng(0).permutation(n_bags)[: max(n_bags // 10, 2)]] = 1
    path = os.path.join(data_dir, f"one-fold-{n_bags}.txt")
    with open(path, "w") as fh:
        fh.write("bag,fold\n" + "".join(f"{b},{f}\n" for b, f in enumerate(fold)))
    return path


def verify(args):
    """``mil evaluate`` on fresh bags (seed 1) at each size: the fold times it reports, for ``check``.

    One process per learner and size, one thread, 10-fold CV. A record's
    ``cpu_s`` is the mean over the folds of the fit and predict times
    ``mil evaluate --json`` reports (what the estimate models); with ``--one-fold``,
    the job runs a folds file of one tenth of the bags and the rest, and
    ``cpu_s`` is the second fold's (a fold of a 10-fold CV; ``folds_timed``
    1). ``process_cpu_s`` is the
    whole process's CPU time (reading the file and starting Python
    included). ``check`` then compares them with the shipped model.
    """
    import resource
    import subprocess

    from mil._costs import fold_seconds

    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    os.makedirs(args.data_dir, exist_ok=True)
    for item in args.sizes:
        n, d, m = _size(item)
        path = os.path.join(args.data_dir, f"bags-{n}x{d}.parquet" if m == REFERENCE_BAG_SIZE else f"bags-{n}x{d}x{m}.parquet")
        bags, y = make_bags(n, d, seed=1, bag_size=m)
        if not os.path.exists(path):
            _write_parquet(path, bags, y)
        for name in args.learners:
            guess = (1 if args.one_fold else 10) * fold_seconds(name, bags.n_instances, d, bags.n_bags)
            if guess > args.max_job:
                print(f"{name} at {bags.n_instances} x {d}: skipped (estimate {guess:.0f} s)", flush=True)
                continue
            folds = ["--folds", _one_fold_file(args.data_dir, bags.n_bags)] if args.one_fold else []
            c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            out = subprocess.run([sys.executable, "-m", "mil", "evaluate", "--dataset", path, "--model", name,
                                  "--jobs", "1", "--json", *folds], capture_output=True, text=True, env=env)
            c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            if out.returncode:
                print(f"{name} at {bags.n_instances} x {d}: failed\n{out.stderr[-2000:]}", flush=True)
                continue
            run = json.loads(out.stdout)[0]
            # --one-fold: the fold that tests one tenth of the bags (it trains on the other nine)
            timed = next(f for f in run["per_fold"] if f["n_test"] < bags.n_bags / 2) if args.one_fold else run
            record = {"learner": name, "n_bags": int(bags.n_bags), "n_instances": int(bags.n_instances),
                      "n_features": d, "cpu_s": round(timed["fit_time_s"] + timed["predict_time_s"], 3),
                      "process_cpu_s": round(c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime, 2),
                      "load": round(os.getloadavg()[0], 2), **({"folds_timed": 1} if args.one_fold else {})}
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
    m.add_argument("--sizes", nargs="+", metavar="NxD[xM]",
                   help="instances x features (x instances a bag on average, 20 when absent) to measure "
                        "(default: SIZES)")
    f = sub.add_parser("fit")
    f.add_argument("measurements", nargs="+", help="measurements files, or the shipped model (its measurements)")
    f.add_argument("--write")
    c = sub.add_parser("check", help="measured / estimated CPU seconds at every measured size")
    c.add_argument("measurements", nargs="+", help="measurements files, or the shipped model (its measurements)")
    v = sub.add_parser("verify", help="mil evaluate's printed estimate against its measured folds, on fresh bags")
    v.add_argument("--out", required=True)
    v.add_argument("--learners", nargs="+", default=list(LEARNERS))
    v.add_argument("--sizes", nargs="+", default=[f"{n}x{d}" for n, d in SIZES if d == 32], metavar="NxD[xM]")
    v.add_argument("--data-dir", default="cost-bags", help="where the Parquet files of the bags are written")
    v.add_argument("--max-job", type=float, default=300.0,
                   help="skip a run whose timed folds the shipped model estimates above these seconds")
    v.add_argument("--one-fold", action="store_true",
                   help="time one fold of the ten (fit on 90 %% of the bags, predict the rest): a folds file of "
                        "that fold and, run first and not timed, a fold of the other bags")
    mem = sub.add_parser("memory", help="peak memory of one fold at several bag counts (one process each)")
    mem.add_argument("--out", required=True)
    mem.add_argument("--learners", nargs="+", help="default: every classifier but the vote and the EMD kernel SVM")
    mem.add_argument("--bags", nargs="+", type=int, default=list(MEMORY_BAGS))
    one = sub.add_parser("memory-fold")  # the child process of ``memory``
    one.add_argument("learner")
    one.add_argument("n_bags", type=int)
    args = parser.parse_args(argv)
    if args.command == "memory":
        return memory(args)
    if args.command == "memory-fold":
        print(json.dumps(memory_fold(args.learner, args.n_bags)))
        return 0
    if args.command == "measure":
        return measure(args)
    if args.command == "verify":
        return verify(args)
    records = [r for path in args.measurements for r in _read(path)]
    memory_records = list({(r["learner"], r["n_bags"]): r for r in records if _is_memory(r)}.values())
    records = [r for r in records if not _is_memory(r)]
    if args.command == "fit":
        model = {"model": "cpu_s = a * n_instances**p * (n_features / 32)**q * (n_instances / n_bags / 20)**r",
                 "memory_model": "peak bytes of a fold's pairs of bags = pair_matrices * 8 * n_train_bags**2",
                 "command": "python benchmarks/bench_cost_model.py measure; "
                            "python benchmarks/bench_cost_model.py memory; "
                            "python benchmarks/bench_cost_model.py fit",
                 "learners": fit(records),
                 "memory": fit_memory(memory_records),
                 "measurements": [{k: r[k] for k in ("learner", "n_instances", "n_bags", "n_features", "cpu_s", "load",
                                                     "search") if k in r and (k != "n_bags" or not _reference_sized(r))}
                                  for r in records],
                 "memory_measurements": memory_records}
        text = json.dumps(model, indent=1, sort_keys=True)
        if args.write:
            with open(args.write, "w") as fh:
                fh.write(text + "\n")
        print(text)
        return 0
    from mil._costs import COST_MODEL, estimate_seconds, fold_seconds, law_seconds, pair_memory_bytes

    if memory_records:
        print(f"{'learner':<24}{'bags':>6}{'train':>7}{'peak MB':>9}{'pairs MB':>10}{'ratio':>7}")
        for r in memory_records:
            est = pair_memory_bytes(r["learner"], r["n_train_bags"])
            head = f"{r['learner']:<24}{r['n_bags']:>6}{r['n_train_bags']:>7}{r['anon_peak_mb']:>9.1f}"
            print(head + ("  no pair matrices" if est is None else
                          f"{est / 2**20:>10.1f}{r['anon_peak_mb'] / (est / 2**20):>7.2f}"))
    print(f"{'learner':<16}{'instances':>10}{'features':>9}{'a bag':>6}{'measured':>10}{'estimate':>10}{'ratio':>7}")
    for r in records:
        n, d, bags = r["n_instances"], r["n_features"], r.get("n_bags")
        est = fold_seconds(r["learner"], n, d, bags)
        law = COST_MODEL.get(r["learner"], {})
        if "process_cpu_s" not in r and "graph" in law:  # a measured fold: the law of the search it ran
            est = law_seconds(law["graph"] if r.get("search") == "hnsw" else law, n, d, bags)
        if est is not None and "process_cpu_s" in r:  # a fold of a verified 10-fold job: the job's mean
            est = estimate_seconds([r["learner"]], n, d, 10, n_bags=bags)[0] / 10
        head = f"{r['learner']:<16}{n:>10}{d:>9}{bag_size(r):>6.0f}{r['cpu_s']:>10.2f}"
        print(head + ("  no estimate" if est is None else f"{est:>10.2f}{r['cpu_s'] / est:>7.2f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
