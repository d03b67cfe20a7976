"""MI random forest configurations, 5 x 10-fold CV on the five shipped sets, both bag rules.

Each configuration's forest (100 trees, ``random_state=0``) is fitted once
per fold of the five published fold assignments and scored with both
``average="bags"`` (the mean of the trees' bag probabilities) and
``average="instances"`` (the largest over a bag's instances of the trees'
mean leaf estimate): the rule only combines the trees' outputs, so both
come from the same trees. Results go to the JSON-lines cache of
``compare_trees.py`` (one line per configuration, set and repetition) as
configurations ``NAME-bags`` and ``NAME-instances``, and the table is the
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


def _accuracy_with(average, bags, y):
    """Callback scoring the fitted forest's test fold with the bag rule `average`."""
    def score(forest, train, test):
        return float(forest.set_params(average=average).score(bags[test], y[test]))
    return score


def run(configs, datasets, repeats, path):
    done = load_cache(path)
    for name in datasets:
        data = load_dataset(name)
        bags, y = data.bags, np.asarray(data.target)
        splits = fold_indices(y, folds=10, repeats=repeats, fold_table=data.folds)
        for config in configs:
            for r in range(repeats):
                keys = [(f"{config}-{a}", name, r) for a in AVERAGES]
                if all(k in done for k in keys):
                    continue
                t0 = time.perf_counter()
                forest = MIRandomForestClassifier(random_state=0, average=AVERAGES[0], **CONFIGS[config])
                res = evaluate(forest, bags, y, splits[10 * r:10 * (r + 1)],
                               callback=_accuracy_with(AVERAGES[1], bags, y))
                seconds = time.perf_counter() - t0
                accuracy = {AVERAGES[0]: res["accuracy"].tolist(), AVERAGES[1]: res["callback"]}
                with open(path, "a") as fh:
                    for (key, _, _), average in zip(keys, AVERAGES):
                        rec = {"config": key, "dataset": name, "rep": r, "accuracy": accuracy[average],
                               "fit_time": float(res["fit_time"].sum()), "seconds": seconds}
                        fh.write(json.dumps(rec) + "\n")
                        done[(key, name, r)] = rec
                print(f"{config:24s} {name:9s} rep {r}: " +
                      " ".join(f"{a} {100 * np.mean(accuracy[a]):5.1f}" for a in AVERAGES) +
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
    names = [f"{c}-{a}" for c in args.configs for a in AVERAGES]
    print(f"\n5 x 10-fold accuracy (%): mean of {args.repeats} repetitions (repetition 0)")
    print(table(names, args.datasets, args.repeats, args.cache))
    if args.rst:
        print()
        print(rst_table(names, args.datasets, args.repeats, args.cache))


if __name__ == "__main__":
    main()
