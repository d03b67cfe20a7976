"""MI random forest bag rules on the same trees, 5 x 10-fold: why average="bags" and sharpness="oob".

Each configuration's forest (100 trees, ``random_state=0``) is fitted once
per fold of the five published fold assignments and scored with both
``average="bags"`` (the mean of the trees' bag probabilities) and
``average="instances"`` (the largest over a bag's instances of the trees'
mean leaf estimate): the rule only combines the trees' outputs, so both
come from the same trees. Each rule pools a bag's instances by their
maximum (``sharpness=np.inf``; configurations ``NAME-bags``,
``NAME-instances``), by the log-sum-exp pooling at the sharpness the
forest chooses on its out-of-bag bags (``sharpness="oob"``, the default;
``NAME-bags-oob``, ``NAME-instances-oob``), and, with ``--sharpness``, at
fixed sharpnesses (``NAME-bags-lse3`` ...). A diagnostic scores the
maximum at the cutoff on the positive-class probability chosen on the
training bags' out-of-bag probabilities (see ``oob_cutoff``;
``NAME-bags-oobcut``, ``NAME-instances-oobcut``). Results go to the
JSON-lines cache of ``study_tree_configs.py`` (one line per configuration, set
and repetition), and the table is the one of ``study_tree_configs.py``: per set
the mean of the five repetitions, then repetition 0 in brackets, and the
mean over the five sets.

Usage:
    python benchmarks/studies/study_forest_rules.py --configs forest forest-leaf3 [--sharpness 1 3] \
        [--datasets musk1 ...] [--repeats 5] [--cache /tmp/forest/forest.jsonl] [--table-only] [--rst]
    python benchmarks/studies/study_forest_rules.py --list
"""

import argparse
import json
import time

import numpy as np

from study_tree_configs import DATASETS, load_cache, rst_table, table
from mil.datasets import load_dataset
from mil.ensemble import MIRandomForestClassifier
from mil.evaluation import evaluate, fold_indices

AVERAGES = ("bags", "instances")
#: every forest is scored with each rule, pooling a bag's instances by their maximum (NAME-RULE), at the
#: log-sum-exp sharpness the forest chooses on its out-of-bag bags (NAME-RULE-oob, ``sharpness="oob"``),
#: and with the maximum at its out-of-bag cutoff (NAME-RULE-oobcut: the cutoff on the positive-class
#: probability that maximises the accuracy of the out-of-bag decision function on the training bags;
#: ties to the cutoff nearest 1/2); ``--sharpness R ...`` adds NAME-RULE-lseR (fixed sharpness R)
SCORINGS = AVERAGES + tuple(f"{a}-oobcut" for a in AVERAGES) + tuple(f"{a}-oob" for a in AVERAGES)

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


def _scorings(bags, y, sharpnesses=()):
    """Callback: the fitted forest's test accuracy under every scoring (two-class 0/1 labels)."""
    def score(forest, train, test):
        counts = [np.bincount(s, minlength=len(train)) for s in forest.estimators_samples_]
        out = {}

        def accuracy(sharpness, cut=0.5):
            forest.sharpness_ = sharpness
            return float(np.mean((forest.predict_proba(bags[test])[:, 1] > cut) == y[test]))

        for average in AVERAGES:
            forest.set_params(average=average)
            out[average] = accuracy(np.inf)
            for r in sharpnesses:
                out[f"{average}-lse{r:g}"] = accuracy(r)
            if forest.bootstrap:
                forest.sharpness_ = np.inf
                forest._set_oob(bags[train], y[train], counts)
                cut = oob_cutoff(forest.oob_decision_function_[:, 1], y[train])
                out[f"{average}-oobcut"] = accuracy(np.inf, cut)
                out[f"{average}-oob"] = accuracy(forest._choose_sharpness(bags[train], y[train], counts))
        return out
    return score


def run(configs, datasets, repeats, path, sharpnesses=()):
    done = load_cache(path)
    for name in datasets:
        data = load_dataset(name)
        bags, y = data.bags, np.asarray(data.target)
        splits = fold_indices(y, folds=10, repeats=repeats, fold_table=data.folds)
        for config in configs:
            for r in range(repeats):
                scorings = SCORINGS + tuple(f"{a}-lse{s:g}" for a in AVERAGES for s in sharpnesses)
                keys = [(f"{config}-{a}", name, r) for a in scorings]
                needed = [k for k, sc in zip(keys, scorings) if sc in AVERAGES or "-lse" in sc]
                if all(k in done for k in needed):
                    continue
                t0 = time.perf_counter()
                # sharpness=inf: the fit skips the out-of-bag choice, which the callback makes for each rule
                forest = MIRandomForestClassifier(random_state=0, sharpness=np.inf, **CONFIGS[config])
                res = evaluate(forest, bags, y, splits[10 * r:10 * (r + 1)],
                               callback=_scorings(bags, y, sharpnesses))
                seconds = time.perf_counter() - t0
                accuracy = {s: [fold[s] for fold in res["callback"]] for s in res["callback"][0]}
                with open(path, "a") as fh:
                    for key, scoring in zip(keys, scorings):
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
    parser.add_argument("--sharpness", nargs="*", type=float, default=[],
                        help="also score fixed log-sum-exp sharpnesses (NAME-RULE-lseR rows)")
    args = parser.parse_args()
    if args.list:
        for name, params in CONFIGS.items():
            print(f"{name:24s} MIRandomForestClassifier({', '.join(f'{k}={v!r}' for k, v in params.items())})")
        return
    if not args.table_only:
        run(args.configs, args.datasets, args.repeats, args.cache, args.sharpness)
    scorings = SCORINGS + tuple(f"{a}-lse{s:g}" for a in AVERAGES for s in args.sharpness)
    names = [f"{c}-{a}" for c in args.configs for a in scorings]
    print(f"\n5 x 10-fold accuracy (%): mean of {args.repeats} repetitions (repetition 0)")
    print(table(names, args.datasets, args.repeats, args.cache))
    if args.rst:
        print()
        print(rst_table(names, args.datasets, args.repeats, args.cache))


if __name__ == "__main__":
    main()
