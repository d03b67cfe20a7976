"""Every registered classifier on foundation-model shaped bags: CPU time, peak memory, accuracy / AUC, instance AUC.

The workload of mil.datasets.make_foundation_bags: by default 200 bags of
500-1,500 instances x 768 float32 features (about 197,000 instances,
577 MB; latent dimension 32, 2-10 % witnesses in the positive bags).
The bags are generated once into a memory-mapped ``.npy`` file; the first
75 % of them (the generator draws the labels in a random order) train and
the rest test, the same split for every learner, as views of the memory
map (no copy).
Each learner then runs in its own child process, with one thread
(``OMP_NUM_THREADS=1`` and the BLAS equivalents) and a limit of
``--timeout`` seconds of CPU (default 600) on fit and predict together:

- fit and predict CPU time (user + system of the process) and wall time;
- peak memory: the child's anonymous memory sampled every 10 ms (what the
  learner allocates; the memory-mapped data pages are not counted) and the
  growth of its maximum resident set (which also counts those pages);
- test accuracy and AUC (from ``predict_proba``, else ``decision_function``);
- for learners with instance outputs (``instance_scores``, else
  ``instance_proba``, else ``predict_instances``), the instance-level AUC
  on the test bags' instances against the known witnesses (outside the
  time limit, with its own limit of the same length).

A learner over the limit is recorded as such. Randomised learners run
with ``--seeds`` (default 0). Results are appended to a JSON-lines file
(``--out``); ``--table`` prints the reStructuredText tables from it:

    nice -n 10 python benchmarks/bench_foundation.py --out foundation-200.jsonl [--learners a,b] [--seeds 0,1,2]
    python benchmarks/bench_foundation.py --bags 2000 --sizes 1000 --learners nystroem-nsk,... --out foundation-2000.jsonl
    python benchmarks/bench_foundation.py --variant "miwrapper-hgb calibration=sigmoid" --out foundation-200.jsonl
    python benchmarks/bench_foundation.py --table foundation-200.jsonl

``--scores DIR`` saves each run's predicted labels and scores of the test
bags; ``--agreement A B`` then prints how often two runs (two variants of a
learner, e.g. an exact and an approximate neighbour search) agree:

    python benchmarks/bench_foundation.py --scores knn --variant "citation-knn algorithm=hnsw" ...
    python benchmarks/bench_foundation.py --scores knn --agreement "citation-knn algorithm=brute" citation-knn
"""

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

ONE_THREAD = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}

CHILD = r"""
import json, os, resource, shlex, sys, threading, time, warnings
import numpy as np
from sklearn.metrics import roc_auc_score
from mil import Bags
from mil._learners import SEED_PARAMS, make_learner

sys.path.insert(0, sys.argv[6])
from _data import parse_params
from bench_foundation import scores_file

data_dir, variant = sys.argv[1], sys.argv[2]
name, *items = shlex.split(variant)  # a registry name and KEY=VALUE parameters
seed, limit, memory_gb = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
if memory_gb > 0:  # address space, the memory map included: an allocation beyond it raises MemoryError
    resource.setrlimit(resource.RLIMIT_AS, (int(memory_gb * 2**30), resource.RLIM_INFINITY))
meta = np.load(os.path.join(data_dir, "meta.npz"))
instances = np.load(os.path.join(data_dir, "instances.npy"), mmap_mode="r")
bags = Bags(instances, meta["offsets"])
y, witness, n_train = meta["target"], meta["instance_labels"], int(meta["n_train"])
test = np.arange(n_train, bags.n_bags)

def anon_mb():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) / 1024
    return 0.0

state = {"peak": 0.0, "run": True}
def sample():
    while state["run"]:
        state["peak"] = max(state["peak"], anon_mb())
        time.sleep(0.01)

def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime

def emit(record):
    print(json.dumps(record), flush=True)

X_train, X_test = bags[:n_train], bags[n_train:]  # views of the memory map, no copies
est = make_learner(name, seed=seed if name in SEED_PARAMS else None, **parse_params(items))
anon0, rss0 = anon_mb(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
threading.Thread(target=sample, daemon=True).start()
resource.setrlimit(resource.RLIMIT_CPU, (int(cpu()) + limit, resource.RLIM_INFINITY))
record = {"learner": variant, "seed": seed if name in SEED_PARAMS else None}
c0, w0 = cpu(), time.perf_counter()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    est.fit(X_train, y[:n_train])
record.update(fit_cpu=cpu() - c0, fit_wall=time.perf_counter() - w0)
emit(dict(record, stage="fit"))
c0, w0 = cpu(), time.perf_counter()
pred = est.predict(X_test)
if hasattr(est, "predict_proba"):
    score = est.predict_proba(X_test)[:, 1]
else:
    score = est.decision_function(X_test)
record.update(predict_cpu=cpu() - c0, predict_wall=time.perf_counter() - w0)
record.update(accuracy=float(np.mean(pred == y[test])), auc=float(roc_auc_score(y[test], score)),
              anon_peak_mb=state["peak"] - anon0,
              rss_growth_mb=(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) / 1024,
              warnings=sorted({f"{w.category.__name__}: {str(w.message).splitlines()[0][:120]}" for w in caught}))
if getattr(est, "calibration_", None) is not None:  # the same model at the fixed cut of 1/2 (MIWrapper)
    plain = est._bag_proba(X_test, calibrated=False)[:, 1]
    record.update(accuracy_uncalibrated=float(np.mean(est.classes_[(plain > 0.5).astype(int)] == y[test])))
emit(dict(record, stage="predict"))
if sys.argv[7]:  # the test bags' labels and scores, for --agreement
    np.savez(os.path.join(sys.argv[7], scores_file(variant, seed)), pred=pred, score=score)
method = next((m for m in ("instance_scores", "instance_proba", "predict_instances")
               if getattr(est, m, None) is not None and callable(getattr(est, m, None))), None)
if method is not None:
    resource.setrlimit(resource.RLIMIT_CPU, (int(cpu()) + limit, resource.RLIM_INFINITY))
    c0 = cpu()
    try:
        inst = np.asarray(getattr(est, method)(X_test), dtype=float)
        if inst.ndim == 2:
            inst = inst[:, 1]
        rows = np.arange(bags.offsets[n_train], bags.n_instances)
        record.update(instance_method=method, instance_cpu=cpu() - c0,
                      instance_auc=float(roc_auc_score(witness[rows], inst)),
                      instance_auc_positive_bags=float(roc_auc_score(
                          witness[rows][np.repeat(y[test] == 1, bags.sizes[test])],
                          inst[np.repeat(y[test] == 1, bags.sizes[test])])))
    except (AttributeError, NotImplementedError) as exc:
        record.update(instance_method=None, instance_error=f"{type(exc).__name__}: {exc}")
    emit(dict(record, stage="instances"))
state["run"] = False
"""


def scores_file(variant, seed):
    """The file name of a run's saved test labels and scores (``--scores``)."""
    return "".join(c if c.isalnum() or c in "-_=." else "_" for c in variant) + f"-seed{seed}.npz"


def agreement(directory, first, second, seed=0):
    """The share of test bags whose predicted label, and whose score, two runs give alike."""
    a, b = (np.load(os.path.join(directory, scores_file(v, seed))) for v in (first, second))
    same_label = float(np.mean(a["pred"] == b["pred"]))
    same_score = float(np.mean(a["score"] == b["score"]))
    print(f"{second} against {first} (seed {seed}), {a['pred'].shape[0]} test bags: labels agree on "
          f"{same_label:.1%}, scores identical on {same_score:.1%}")
    return same_label, same_score


def make_data(directory, n_bags, sizes, n_features, seed):
    from mil.datasets import make_foundation_bags

    t = time.perf_counter()
    d = make_foundation_bags(n_bags, n_features=n_features, bag_sizes=sizes, random_state=seed,
                             memmap=os.path.join(directory, "instances.npy"))
    n_train = int(round(0.75 * n_bags))  # the bags come in a random order: the first 75 % train
    np.savez(os.path.join(directory, "meta.npz"), offsets=d.bags.offsets, target=d.target,
             instance_labels=d.instance_labels, n_train=n_train)
    size = d.bags.n_instances * n_features * d.bags.instances.dtype.itemsize / 2**20
    info = {"n_bags": n_bags, "n_instances": int(d.bags.n_instances), "n_features": n_features, "mb": size,
            "train_positive": int(d.target[:n_train].sum()), "n_train": n_train,
            "test_positive": int(d.target[n_train:].sum()), "seconds": time.perf_counter() - t}
    print(f"data: {info}", flush=True)
    return info


def _children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_one(data_dir, name, seed, limit, wall_factor, memory_gb=0.0, scores_dir=""):
    env = dict(os.environ, **ONE_THREAD)
    cpu0 = _children_cpu()
    argv = [sys.executable, "-c", CHILD, data_dir, name, str(seed), str(limit), str(memory_gb),
            os.path.dirname(os.path.abspath(__file__)), scores_dir]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=limit * wall_factor)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        timed_out = True
    records = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    last = records[-1] if records else {"learner": name, "seed": seed, "stage": None}
    last["child_cpu"] = _children_cpu() - cpu0
    if proc.returncode != 0 or timed_out:
        over = timed_out or proc.returncode in (-signal.SIGXCPU, -signal.SIGKILL)
        what = (f"over {limit} s CPU" if not timed_out else
                f"stopped at the wall-clock limit ({limit * wall_factor:.0f} s) after {last['child_cpu']:.0f} s CPU")
        if last.get("stage") in (None, "fit"):
            last["status"] = what if over else "error"
        else:
            last["status"] = "ok"
            last["instance_status"] = what if over else "error"
        if not over:
            last["error"] = err.strip().splitlines()[-1][:300] if err.strip() else f"exit {proc.returncode}"
            if "MemoryError" in last["error"] or "Unable to allocate" in last["error"]:
                last["status"] = f"over the {memory_gb:g} GB memory limit"
    else:
        last["status"] = "ok"
    return last


def table(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    info = next((r for r in rows if "data" in r), None)
    results = [r for r in rows if "learner" in r]
    if info:
        d = info["data"]
        print(f"{d['n_bags']} bags, {d['n_instances']} instances x {d['n_features']} ({d['mb']:.0f} MB)\n")
    by_learner = {}
    for r in results:
        by_learner.setdefault(r["learner"], []).append(r)

    def mean(values):
        values = [v for v in values if v is not None]
        return (np.mean(values), np.std(values), len(values)) if values else None

    def fmt(stat, scale=1.0, digits=1):
        if stat is None:
            return ""
        m, s, n = stat
        return f"{m * scale:.{digits}f}" + (f" ± {s * scale:.{digits}f}" if n > 1 else "")

    print(".. csv-table::\n   :header: learner, seeds, fit CPU s, predict CPU s, peak memory MB, accuracy %, AUC %, "
          "instance AUC %\n")
    for name, rs in by_learner.items():
        seeds = " ".join(str(r["seed"]) for r in rs if r.get("seed") is not None) or "-"
        bad = [r for r in rs if r.get("status") != "ok"]
        if bad:
            r = bad[0]
            status = r["status"] + (f" ({r['error']})" if r.get("error") else "")
            cells = [f"``{name}``", seeds, f'"{status}"', "-", "-", "-", "-", "-"]
        else:
            inst = mean([r.get("instance_auc") for r in rs])
            inst_cell = fmt(inst, 100) if inst else (f'"{rs[0]["instance_status"]}"' if rs[0].get("instance_status")
                                                     else "-")
            cells = [f"``{name}``", seeds, fmt(mean([r["fit_cpu"] for r in rs]), digits=0),
                     fmt(mean([r["predict_cpu"] for r in rs]), digits=1),
                     fmt(mean([r["anon_peak_mb"] for r in rs]), digits=0),
                     fmt(mean([r["accuracy"] for r in rs]), 100), fmt(mean([r["auc"] for r in rs]), 100), inst_cell]
        print("   " + ", ".join(cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bags", type=int, default=200)
    parser.add_argument("--sizes", default="500,1500", help="bag sizes: N or LOW,HIGH")
    parser.add_argument("--features", type=int, default=768)
    parser.add_argument("--data-seed", type=int, default=0)
    parser.add_argument("--learners", default=None, help="comma-separated registry names (default: every classifier)")
    parser.add_argument("--variant", action="append", default=[],
                        help='a registry name with KEY=VALUE parameters, one quoted string '
                             '(e.g. "miwrapper-hgb calibration=sigmoid"); repeatable, run after --learners')
    parser.add_argument("--seeds", default="0", help="seeds of the randomised learners, e.g. 0,1,2")
    parser.add_argument("--timeout", type=int, default=600, help="CPU seconds for fit + predict")
    parser.add_argument("--wall-factor", type=float, default=4.0,
                        help="wall-clock limit = timeout x this (a busy machine)")
    parser.add_argument("--memory-limit", type=float, default=0.0, metavar="GB",
                        help="address-space limit of each learner's process, the memory map included (0: none)")
    parser.add_argument("--out", default="foundation.jsonl")
    parser.add_argument("--data-dir", default=None, help="keep the generated data here (default: a temporary folder)")
    parser.add_argument("--table", metavar="JSONL", help="print the tables of a results file and exit")
    parser.add_argument("--scores", default="", metavar="DIR",
                        help="save each run's test labels and scores in DIR (for --agreement)")
    parser.add_argument("--agreement", nargs=2, metavar=("A", "B"),
                        help="with --scores: how often two saved runs (seed 0) agree, then exit")
    args = parser.parse_args()
    if args.table:
        table(args.table)
        return
    if args.agreement:
        agreement(args.scores, *args.agreement)
        return
    if args.scores:
        os.makedirs(args.scores, exist_ok=True)
        args.scores = os.path.abspath(args.scores)
    from mil._learners import SEED_PARAMS, available_learners

    names = args.learners.split(",") if args.learners else ([] if args.variant else
                                                             available_learners("classification"))
    names += args.variant
    seeds = [int(s) for s in args.seeds.split(",")]
    sizes = tuple(int(s) for s in args.sizes.split(","))
    sizes = sizes[0] if len(sizes) == 1 else sizes
    holder = None if args.data_dir else tempfile.TemporaryDirectory()
    data_dir = args.data_dir or holder.name
    os.makedirs(data_dir, exist_ok=True)
    if not os.path.exists(os.path.join(data_dir, "meta.npz")):
        info = make_data(data_dir, args.bags, sizes, args.features, args.data_seed)
        with open(args.out, "a") as fh:
            fh.write(json.dumps({"data": info, "command": " ".join(sys.argv),
                                 "load": os.getloadavg()}) + "\n")
    try:
        for name in names:
            for seed in (seeds if name.split()[0] in SEED_PARAMS else [None]):
                t = time.perf_counter()
                rec = run_one(data_dir, name, 0 if seed is None else seed, args.timeout, args.wall_factor,
                              args.memory_limit, args.scores)
                rec.update(seed=seed, load=os.getloadavg(), wall_total=time.perf_counter() - t)
                with open(args.out, "a") as fh:
                    fh.write(json.dumps(rec) + "\n")
                print(f"{name} seed={seed}: {rec.get('status')} fit {rec.get('fit_cpu', float('nan')):.1f} s CPU, "
                      f"predict {rec.get('predict_cpu', float('nan')):.1f} s, acc {rec.get('accuracy')}, "
                      f"auc {rec.get('auc')}, inst auc {rec.get('instance_auc')}, "
                      f"anon {rec.get('anon_peak_mb', float('nan')):.0f} MB", flush=True)
    finally:
        if holder is not None:
            holder.cleanup()


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    main()
