"""ID3-MI, C4.5-MI and forest configurations, 5 x 10-fold CV: how the trees' defaults were chosen.

Every configuration is run on all five published fold assignments
(``load_dataset(name).folds[r]``, r = 0..4) of Musk1, Musk2, Elephant, Fox and
Tiger. Results are appended to a JSON-lines cache (one line per configuration,
data set and repetition), so an interrupted run resumes and a table can be
printed from the cache alone. The table shows, per data set, the mean over the
five repetitions of the 10-fold accuracy (each repetition's accuracy is the
mean of its ten fold accuracies, as ``mil reproduce trees``), then repetition
0 alone in brackets, and the mean over the five sets of the 5-repetition means
(the number that chooses defaults).

Usage:
    python benchmarks/studies/study_tree_configs.py --configs c45-literal c45-best-children \
        [--datasets musk1 ...] [--repeats 5] [--cache /tmp/trees/compare.jsonl] [--table-only] \
        [--paired c45-literal]
    python benchmarks/studies/study_tree_configs.py --list
"""

import argparse
import json
import os
import time

import numpy as np

from mil.datasets import load_dataset
from mil.evaluation import evaluate, fold_indices

DATASETS = ["musk1", "musk2", "elephant", "fox", "tiger"]

#: name -> (module, class, parameters)
CONFIGS = {}


def _add(name, module, cls, **params):
    if cls == "C45MIClassifier" and "sharpness" not in params:
        # Every C4.5-MI configuration below was measured with the maximum rule (a bag is
        # positive iff an instance reaches a positive leaf), C4.5-MI's default until the
        # log-sum-exp pooling (sharpness=4) replaced it: pinned so their numbers reproduce.
        params["sharpness"] = np.inf
    CONFIGS[name] = (module, cls, params)


for _tag, _cls, _min in (("id3", "ID3MIClassifier", 1), ("c45", "C45MIClassifier", 2)):
    _m = "mil.tree"
    # The papers' literal form and the alternatives (min_bags_leaf as each learner's old default).
    _add(f"{_tag}-literal", _m, _cls, growth="depth", split_shares="parent", min_bags_leaf=_min)
    _add(f"{_tag}-best-children", _m, _cls, growth="best", split_shares="children", min_bags_leaf=_min)
    _add(f"{_tag}-best-parent", _m, _cls, growth="best", split_shares="parent", min_bags_leaf=_min)
    _add(f"{_tag}-depth-children", _m, _cls, growth="depth", split_shares="children", min_bags_leaf=_min)
    for _leaf in (1, 2, 3, 4, 5, 6, 8, 10, 12):
        _add(f"{_tag}-best-children-leaf{_leaf}", _m, _cls, growth="best", split_shares="children",
             min_bags_leaf=_leaf)
    for _alpha in (0.005, 0.01, 0.02, 0.04):
        _add(f"{_tag}-best-children-ccp{_alpha}", _m, _cls, growth="best", split_shares="children",
             min_bags_leaf=_min, ccp_alpha=_alpha)
    _add(f"{_tag}-best-children-pessimistic", _m, _cls, growth="best", split_shares="children",
         min_bags_leaf=_min, pruning=True)
    # Reduced-error pruning on a held-out third of each class's bags (seeded draw).
    for _leaf in (1, 2, 3, 5):
        _add(f"{_tag}-rep-leaf{_leaf}", _m, _cls, growth="best", split_shares="children",
             min_bags_leaf=_leaf, pruning="reduced-error", random_state=0)
    _add(f"{_tag}-rep-leaf1-vf0.2", _m, _cls, growth="best", split_shares="children",
         min_bags_leaf=1, pruning="reduced-error", validation_fraction=0.2, random_state=0)

_F = ("mil.ensemble", "MIRandomForestClassifier")
_add("forest", *_F, random_state=0)
_add("forest-id3", *_F, criterion="gain", random_state=0)
_add("forest-300", *_F, n_estimators=300, random_state=0)
_add("forest-log2", *_F, max_features="log2", random_state=0)
_add("forest-0.3", *_F, max_features=0.3, random_state=0)
_add("forest-leaf2", *_F, min_bags_leaf=2, random_state=0)
_add("forest-depth", *_F, growth="depth", random_state=0)
_add("forest-parent", *_F, split_shares="parent", random_state=0)
_add("forest-noremoval", *_F, positive_bag_removal=False, random_state=0)
_add("forest-nobootstrap", *_F, bootstrap=False, random_state=0)

# C4.5 release 8's MDL correction of numeric splits (Quinlan 1996; J48's default), at each
# learner's current defaults with and without it.
for _tag, _cls in (("id3", "ID3MIClassifier"), ("c45", "C45MIClassifier")):
    _add(f"{_tag}-defaults", "mil.tree", _cls)
    _add(f"{_tag}-defaults-mdl", "mil.tree", _cls, mdl_correction=True)
    _add(f"{_tag}-defaults-mdl-partitions", "mil.tree", _cls, mdl_correction="partitions")

# Where the chosen split's threshold goes (mil.tree._split_choice.place_cut), at each learner's defaults.
for _tag, _cls in (("id3", "ID3MIClassifier"), ("c45", "C45MIClassifier")):
    for _cut in ("training-value", "run-middle", "instances"):
        _add(f"{_tag}-defaults-cut-{_cut}", "mil.tree", _cls, cut_placement=_cut)
    # Ties between features on bag counts broken by their cuts' gain on instances.
    _add(f"{_tag}-defaults-ties-instances", "mil.tree", _cls, tie_break="instances")
    _add(f"{_tag}-defaults-ties-cut-instances", "mil.tree", _cls, tie_break="instances",
         cut_placement="instances")
    _add(f"{_tag}-defaults-ties-cut-run-middle", "mil.tree", _cls, tie_break="instances",
         cut_placement="run-middle")
    # Feature ties broken in a seeded random order instead of the lowest index: the noise of
    # arbitrary tie-breaking, against which "instances" is judged.
    for _seed in (0, 1):
        _add(f"{_tag}-defaults-seed{_seed}", "mil.tree", _cls, random_state=_seed)
    # Best-first growth stopped at a number of leaves.
    for _leaves in (8, 16, 32):
        _add(f"{_tag}-defaults-leaves{_leaves}", "mil.tree", _cls, max_leaf_nodes=_leaves)
    # ... at a number of leaves chosen by 3-fold internal CV on the training bags.
    _add(f"{_tag}-defaults-leaves-cv", "mil.tree", _cls, max_leaf_nodes="cv")

# C4.5-MI's default bag pooling (see benchmarks/studies/study_tree_pooling.py, which scores all sharpnesses of
# one fitted tree per fold): the defaults as they are now, and the maximum rule.
_add("c45-defaults-lse4", "mil.tree", "C45MIClassifier", sharpness=4.0)


def make(name):
    import importlib

    module, cls, params = CONFIGS[name]
    return getattr(importlib.import_module(module), cls)(**params)


def load_cache(path):
    done = {}
    if os.path.exists(path):
        with open(path) as fh:
            for line in fh:
                rec = json.loads(line)
                done[(rec["config"], rec["dataset"], rec["rep"])] = rec
    return done


def run(configs, datasets, repeats, path):
    done = load_cache(path)
    for name in datasets:
        data = load_dataset(name)
        splits = fold_indices(data.target, folds=10, repeats=repeats, fold_table=data.folds)
        for config in configs:
            for r in range(repeats):
                if (config, name, r) in done:
                    continue
                t0 = time.perf_counter()
                res = evaluate(make(config), data.bags, data.target, splits[10 * r:10 * (r + 1)])
                rec = {"config": config, "dataset": name, "rep": r,
                       "accuracy": res["accuracy"].tolist(), "fit_time": float(res["fit_time"].sum()),
                       "seconds": time.perf_counter() - t0}
                with open(path, "a") as fh:
                    fh.write(json.dumps(rec) + "\n")
                done[(config, name, r)] = rec
                print(f"{config:32s} {name:9s} rep {r}: {100 * np.mean(rec['accuracy']):5.1f} "
                      f"({rec['seconds']:.1f} s)", flush=True)


def table(configs, datasets, repeats, path):
    """reStructuredText-ready rows: mean of the 5 repetitions (repetition 0) per set."""
    done = load_cache(path)
    header = f"{'configuration':32s} " + " ".join(f"{d:>14s}" for d in datasets) + f" {'mean':>6s}"
    lines = [header]
    for config in configs:
        cells, means = [], []
        for name in datasets:
            reps = [done.get((config, name, r)) for r in range(repeats)]
            if any(rec is None for rec in reps):
                cells.append(f"{'-':>14s}")
                continue
            acc = [100 * np.mean(rec["accuracy"]) for rec in reps]
            means.append(np.mean(acc))
            cells.append(f"{np.mean(acc):6.1f} ({acc[0]:5.1f})")
        overall = f"{np.mean(means):6.1f}" if len(means) == len(datasets) else f"{'-':>6s}"
        lines.append(f"{config:32s} " + " ".join(cells) + f" {overall}")
    return "\n".join(lines)


def paired(base, configs, datasets, repeats, path):
    """Each configuration against `base` over the (data set, repetition) pairs.

    The difference of the five-set means equals the mean of the per-pair
    differences of 10-fold accuracy; its standard error is their standard
    deviation over sqrt(number of pairs) (pairs share folds, so this is
    the noise of the comparison; repetitions of one set are not independent,
    so it is, if anything, too small). Also the pairs won and lost.
    """
    done = load_cache(path)
    lines = [f"paired against {base} over {len(datasets)} sets x {repeats} repetitions: "
             "mean difference (standard error), pairs won / lost"]
    for config in configs:
        diffs = []
        for name in datasets:
            for r in range(repeats):
                a, b = done.get((config, name, r)), done.get((base, name, r))
                if a is None or b is None:
                    break
                diffs.append(100 * (np.mean(a["accuracy"]) - np.mean(b["accuracy"])))
        if len(diffs) < len(datasets) * repeats:
            lines.append(f"{config:32s} incomplete")
            continue
        diffs = np.array(diffs)
        se = diffs.std(ddof=1) / np.sqrt(diffs.size)
        lines.append(f"{config:32s} {diffs.mean():+6.2f} ({se:4.2f})  {int((diffs > 0).sum())} / "
                     f"{int((diffs < 0).sum())}")
    return "\n".join(lines)


def rst_table(configs, datasets, repeats, path):
    """The same table as a reStructuredText list-table (for docs/results/trees.rst)."""
    done = load_cache(path)
    out = [".. list-table::", "   :header-rows: 1", "", "   * - configuration"]
    out += [f"     - {d}" for d in datasets] + ["     - mean"]
    for config in configs:
        out.append(f"   * - ``{config}``")
        means = []
        for name in datasets:
            reps = [done.get((config, name, r)) for r in range(repeats)]
            if any(rec is None for rec in reps):
                out.append("     - n/a")
                continue
            acc = [100 * np.mean(rec["accuracy"]) for rec in reps]
            means.append(np.mean(acc))
            out.append(f"     - {np.mean(acc):.1f} ({acc[0]:.1f})")
        out.append(f"     - {np.mean(means):.1f}" if len(means) == len(datasets) else "     - n/a")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", nargs="+", default=[])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cache", default="compare_trees.jsonl")
    parser.add_argument("--table-only", action="store_true")
    parser.add_argument("--list", action="store_true", help="print the configurations and exit")
    parser.add_argument("--rst", action="store_true", help="print the table as a reStructuredText list-table")
    parser.add_argument("--paired", metavar="BASE",
                        help="also print each configuration's paired difference against BASE")
    args = parser.parse_args()
    if args.list:
        for name, (module, cls, params) in CONFIGS.items():
            print(f"{name:32s} {cls}({', '.join(f'{k}={v!r}' for k, v in params.items())})")
        return
    if not args.table_only:
        run(args.configs, args.datasets, args.repeats, args.cache)
    print(f"\n5 x 10-fold accuracy (%): mean of {args.repeats} repetitions (repetition 0)")
    print(table(args.configs, args.datasets, args.repeats, args.cache))
    if args.paired:
        print()
        print(paired(args.paired, args.configs, args.datasets, args.repeats, args.cache))
    if args.rst:
        print()
        print(rst_table(args.configs, args.datasets, args.repeats, args.cache))


if __name__ == "__main__":
    main()
