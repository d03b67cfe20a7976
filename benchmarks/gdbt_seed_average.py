"""GDBT-MI: does averaging the probabilities of fits with different seeds beat one fit? 5 x 10-fold CV.

Every fold fits GDBT-MI once per seed of --seeds (the defaults otherwise, or
--param) and scores each fit alone and the average of their bag
probabilities (a bagged ensemble of boosted models: the seeds draw different
bag subsamples and feature subsets every round). Prints, per data set, the
5 x 10 accuracy (percent) and out-of-fold log loss of each single seed, their
mean, and the averaged model; then the mean over the data sets.
--json appends one record per data set with every fold's numbers.

Usage: python benchmarks/gdbt_seed_average.py [--seeds 0 1 2] [--datasets musk1 ...] [--repeats 5]
       [--param key=value ...] [--json FILE]
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from mil.datasets import load_dataset
from mil.ensemble import GDBTMIClassifier
from mil.evaluation import table_splits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import log_loss, parse_params  # noqa: E402  (benchmarks/ is on sys.path when run as a script)

DATASETS = ["musk1", "musk2", "elephant", "fox", "tiger"]


def run(name, seeds, repeats, params):
    """Per repetition: fold accuracies of every seed and of the average; out-of-fold log losses."""
    data = load_dataset(name)
    bags, y = data.bags, data.target
    pos = y.max()
    y01 = (y == pos).astype(float)
    acc = {s: [] for s in [*seeds, "average"]}
    loss = {s: [] for s in [*seeds, "average"]}
    t0 = time.perf_counter()
    for r in range(repeats):
        p_oof = {s: np.empty(y.size) for s in acc}
        fold_acc = {s: [] for s in acc}
        for train, test in table_splits(data.folds[r]):
            probas = []
            for seed in seeds:
                est = GDBTMIClassifier(random_state=seed).set_params(**params).fit(bags[train], y[train])
                col = list(est.classes_).index(pos)
                probas.append(est.predict_proba(bags[test])[:, col])
            probas.append(np.mean(probas, axis=0))
            for s, p in zip(acc, probas):
                # positive iff the probability exceeds 1/2, as predict (an exact 1/2 is negative)
                fold_acc[s].append(float(np.mean((p > 0.5) == (y01[test] == 1))))
                p_oof[s][test] = p
        for s in acc:
            acc[s].append(fold_acc[s])
            loss[s].append(log_loss(y01, p_oof[s]))
    return {"dataset": name, "seeds": list(seeds), "params": params, "repeats": repeats,
            "fold_accuracy": {str(s): a for s, a in acc.items()},
            "log_loss": {str(s): v for s, v in loss.items()}, "seconds": time.perf_counter() - t0}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--param", action="append")
    parser.add_argument("--json")
    args = parser.parse_args()
    params = parse_params(args.param)
    print(f"GDBT-MI {params} seeds {args.seeds}, repetitions 0..{args.repeats - 1}", flush=True)
    summary = {}
    for name in args.datasets:
        res = run(name, args.seeds, args.repeats, params)
        if args.json:
            with open(args.json, "a") as fh:
                fh.write(json.dumps(res) + "\n")
        means = {s: 100 * np.mean(a) for s, a in res["fold_accuracy"].items()}
        single = np.mean([means[str(s)] for s in args.seeds])
        summary[name] = (single, means["average"])
        print(f"{name:9s} " + "  ".join(
            f"seed {s}: {means[str(s)]:.1f} ({np.mean(res['log_loss'][str(s)]):.3f})" for s in args.seeds)
            + f"  | single mean {single:.2f}  averaged {means['average']:.2f} "
              f"({np.mean(res['log_loss']['average']):.3f}), rep 0 "
              f"{100 * np.mean(res['fold_accuracy']['average'][0]):.1f}  {res['seconds']:.0f} s", flush=True)
    print(f"mean over {len(summary)} data sets: single fits {np.mean([v[0] for v in summary.values()]):.2f}, "
          f"averaged {np.mean([v[1] for v in summary.values()]):.2f}")


if __name__ == "__main__":
    main()
