"""MI random forest configurations, 5 x 10-fold CV on the five shipped sets, both bag rules.

Each configuration's forest (100 trees, ``random_state=0``) is fitted once
per fold of the five published fold assignments and scored with both
``average="bags"`` (the mean of the trees' bag probabilities) and
``average="instances"`` (the largest over a bag's instances of the trees'
mean leaf estimate): the rule only combines the trees' outputs, so both
come from the same trees. Each rule is scored at the cutoff 1/2 on the
positive-class probability (``predict``) and at the cutoff chosen on the
training bags' out-of-bag probabilities (see ``oob_cutoff``). Results go
to the JSON-lines cache of ``compare_trees.py`` (one line per
configuration, set and repetition) as configurations ``NAME-bags``,
``NAME-instances``, ``NAME-bags-oobcut`` and ``NAME-instances-oobcut``,
and the table is the
one of ``compare_trees.py``: per set the mean of the five repetitions, then
repetition 0 in brackets, and the mean over the five sets.

Usage:
    python benchmarks/compare_forest.py --configs forest forest-leaf3 \
        [--datasets musk1 ...] [--repeats 5] [--cache /tmp/forest/forest.jsonl] [--table-only] [--rst]
    python benchmarks/compare_forest.py --list
"""

import argparse
import json
import time

import numpy as np

from compare_trees import DATASETS, load_cache, rst_table, table
from mil.datasets import load_dataset
from mil.ensemble import MIRandomForestClassifier
from mil.evaluation import evaluate, fold_indices

AVERAGES = ("bags", "instances")
#: every forest is scored with each rule at the cutoff 1/2 (NAME-RULE) and at its out-of-bag cutoff
#: (NAME-RULE-oobcut: the cutoff on the positive-class probability that maximises the accuracy of the
#: out-of-bag decision function on the training bags; ties to the cutoff nearest 1/2)
SCORINGS = AVERAGES + tuple(f"{a}-oobcut" for a in AVERAGES)

#: name -> MIRandomForestClassifier parameters (besides random_state=0); scored with both averages
CONFIGS = {
    "forest": {},
    "forest-leaf3": {"min_bags_leaf": 3},
    "forest-noremoval": {"positive_bag_removal": False},
    "forest-0.3": {"max_features": 0.3},
    "forest-nobootstrap": {"bootstrap": False},
    "forest-depth": {"growth": "depth"},
    "forest-id3": {"criterion": "gain"},
}


def oob_cutoff(p, y):
    """Cutoff t maximising the accuracy of ``p > t`` on the bags with an out-of-bag estimate.

    Candidates: 1/2 and the midpoints between consecutive distinct
    probabilities (and either end); ties go to the candidate nearest 1/2.
    """
    ok = ~np.isnan(p)
    p, y = p[ok], y[ok]
    u = np.unique(p)
    cands = np.r_[0.5, (u[:-1] + u[1:]) / 2, u[0] - 1.0, u[-1]]
    acc = np.array([np.mean((p > t) == y) for t in cands])
    best = np.flatnonzero(acc == acc.max())
    return cands[best[np.argmin(np.abs(cands[best] - 0.5))]]


def _scorings(bags, y):
    """Callback: the fitted forest's test accuracy under every scoring (two-class 0/1 labels)."""
    def score(forest, train, test):
        counts = [np.bincount(s, minlength=len(train)) for s in forest.estimators_samples_]
        out = {}
        for average in AVERAGES:
            forest.set_params(average=average)
            p = forest.predict_proba(bags[test])[:, 1]
            out[average] = float(np.mean((p > 0.5) == y[test]))
            if forest.bootstrap:
                forest._set_oob(bags[train], y[train], counts)
                cut = oob_cutoff(forest.oob_decision_function_[:, 1], y[train])
                out[f"{average}-oobcut"] = float(np.mean((p > cut) == y[test]))
        return out
    return score


def run(configs, datasets, repeats, path):
    done = load_cache(path)
    for name in datasets:
        data = load_dataset(name)
        bags, y = data.bags, np.asarray(data.target)
        splits = fold_indices(y, folds=10, repeats=repeats, fold_table=data.folds)
        for config in configs:
            for r in range(repeats):
                keys = [(f"{config}-{a}", name, r) for a in SCORINGS]
                if all(k in done for k in keys[:len(AVERAGES)]):
                    continue
                t0 = time.perf_counter()
                forest = MIRandomForestClassifier(random_state=0, **CONFIGS[config])
                res = evaluate(forest, bags, y, splits[10 * r:10 * (r + 1)], callback=_scorings(bags, y))
                seconds = time.perf_counter() - t0
                accuracy = {s: [fold[s] for fold in res["callback"]] for s in res["callback"][0]}
                with open(path, "a") as fh:
                    for key, scoring in zip(keys, SCORINGS):
                        if scoring not in accuracy:
                            continue
                        rec = {"config": key[0], "dataset": name, "rep": r, "accuracy": accuracy[scoring],
                               "fit_time": float(res["fit_time"].sum()), "seconds": seconds}
                        fh.write(json.dumps(rec) + "\n")
                        done[key] = rec
                print(f"{config:24s} {name:9s} rep {r}: " +
                      " ".join(f"{s} {100 * np.mean(a):5.1f}" for s, a in accuracy.items()) +
                      f" ({seconds:.1f} s)", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", nargs="+", default=["forest"])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cache", default="compare_forest.jsonl")
    parser.add_argument("--table-only", action="store_true")
    parser.add_argument("--list", action="store_true", help="print the configurations and exit")
    parser.add_argument("--rst", action="store_true", help="print the table as a reStructuredText list-table")
    args = parser.parse_args()
    if args.list:
        for name, params in CONFIGS.items():
            print(f"{name:24s} MIRandomForestClassifier({', '.join(f'{k}={v!r}' for k, v in params.items())})")
        return
    if not args.table_only:
        run(args.configs, args.datasets, args.repeats, args.cache)
    names = [f"{c}-{a}" for c in args.configs for a in SCORINGS]
    print(f"\n5 x 10-fold accuracy (%): mean of {args.repeats} repetitions (repetition 0)")
    print(table(names, args.datasets, args.repeats, args.cache))
    if args.rst:
        print()
        print(rst_table(names, args.datasets, args.repeats, args.cache))


if __name__ == "__main__":
    main()
