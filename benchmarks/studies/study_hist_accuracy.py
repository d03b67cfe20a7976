"""Exact against histogram split search: accuracy and AUC on the five shipped sets, 5 x 10-fold CV.

Each learner is run at its defaults with ``splitter="exact"`` and ``splitter="hist"`` on the same
published folds (``fold_indices`` with the sets' fold tables); the randomised learners (the MI forest,
GDBT-MI) over the seeds given. Results are appended to a JSON-lines cache, one line per (learner,
splitter, seed, set, repetition), so a run can be stopped and resumed.

    python benchmarks/studies/study_hist_accuracy.py --learners c45 id3 --cache hist.jsonl
    python benchmarks/studies/study_hist_accuracy.py --learners forest gdbt --seeds 0 1 2 --cache hist.jsonl
    python benchmarks/studies/study_hist_accuracy.py --report --cache hist.jsonl
"""

import argparse
import json
import os
import time

import numpy as np

from mil.datasets import load_dataset
from mil.evaluation import evaluate, fold_indices

DATASETS = ("musk1", "musk2", "elephant", "fox", "tiger")


def make(learner, splitter, seed):
    from mil.ensemble import GDBTMIClassifier, MIRandomForestClassifier
    from mil.tree import C45MIClassifier, ID3MIClassifier
    if learner == "c45":
        return C45MIClassifier(splitter=splitter)
    if learner == "id3":
        return ID3MIClassifier(splitter=splitter)
    if learner == "forest":
        return MIRandomForestClassifier(random_state=seed, splitter=splitter)
    return GDBTMIClassifier(random_state=seed, splitter=splitter)


def load(path):
    out = {}
    if os.path.exists(path):
        with open(path) as fh:
            for line in fh:
                r = json.loads(line)
                out[(r["learner"], r["splitter"], r["seed"], r["dataset"], r["rep"])] = r
    return out


def run(args):
    done = load(args.cache)
    for name in args.datasets:
        data = load_dataset(name)
        splits = fold_indices(data.target, folds=10, repeats=args.repeats, fold_table=data.folds)
        for learner in args.learners:
            seeds = args.seeds if learner in ("forest", "gdbt") else [0]
            for seed in seeds:
                for splitter in ("exact", "hist"):
                    for r in range(args.repeats):
                        key = (learner, splitter, seed, name, r)
                        if key in done:
                            continue
                        t0 = time.perf_counter()
                        res = evaluate(make(learner, splitter, seed), data.bags, data.target,
                                       splits[10 * r:10 * (r + 1)])
                        rec = dict(learner=learner, splitter=splitter, seed=seed, dataset=name, rep=r,
                                   accuracy=res["accuracy"].tolist(), auc=res["auc"].tolist(),
                                   fit_time=float(res["fit_time"].sum()), seconds=time.perf_counter() - t0)
                        with open(args.cache, "a") as fh:
                            fh.write(json.dumps(rec) + "\n")
                        print(f"{learner:6s} {splitter:5s} seed {seed} {name:8s} rep {r}: "
                              f"acc {100 * np.mean(rec['accuracy']):5.1f} auc {100 * np.nanmean(rec['auc']):5.1f} "
                              f"fit {rec['fit_time']:.1f} s", flush=True)


def report(args):
    done = load(args.cache)
    for learner in args.learners:
        rows = {}
        for (lr, sp, seed, ds, rep), r in done.items():
            if lr == learner:
                rows.setdefault((sp, ds), []).append((np.mean(r["accuracy"]), np.nanmean(r["auc"]), r["fit_time"]))
        if not rows:
            continue
        print(f"\n{learner}: mean over repetitions (and seeds) of 10-fold accuracy / AUC, fit seconds")
        means = {}
        for sp in ("exact", "hist"):
            cells = []
            for ds in args.datasets:
                got = rows.get((sp, ds), [])
                means[sp, ds] = np.array(got).mean(axis=0) if got else np.full(3, np.nan)
                cells.append(f"{ds} {100 * means[sp, ds][0]:5.2f} / {100 * means[sp, ds][1]:5.2f} "
                             f"({means[sp, ds][2]:.0f} s, n={len(got)})")
            avg = np.mean([means[sp, ds][0] for ds in args.datasets])
            print(f"  {sp:5s}: " + "; ".join(cells) + f"; five-set accuracy {100 * avg:.2f}")
        diff = [100 * (means["hist", ds][0] - means["exact", ds][0]) for ds in args.datasets]
        print("  hist - exact (points): " + ", ".join(f"{ds} {d:+.2f}" for ds, d in zip(args.datasets, diff))
              + f"; mean {np.mean(diff):+.2f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--learners", nargs="+", default=["c45"], choices=["c45", "id3", "forest", "gdbt"])
    p.add_argument("--datasets", nargs="+", default=list(DATASETS))
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--cache", default="hist_accuracy.jsonl")
    p.add_argument("--report", action="store_true")
    args = p.parse_args()
    if not args.report:
        run(args)
    report(args)


if __name__ == "__main__":
    main()
