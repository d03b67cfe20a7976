"""MI random forest: number of trees, the out-of-bag sharpness grid, max_features, 5 x 10-fold.

Each fold fits one forest of ``--trees`` trees (``random_state=0`` unless
``--seed``; ``sharpness=np.inf``, so the fit makes no choice) and scores
several forests made of its trees:

* the first k trees for every k of ``--prefixes`` (the seeds of a forest's
  trees are a prefix of a larger forest's with the same ``random_state``, so
  the first 100 trees are the default forest, tree for tree);
* consecutive blocks of ``--block`` trees (trees 1-100, 101-200, ...): forests
  of the same size with independent trees, which measure how much the
  accuracy of one forest moves with its seed.

Every tree's output is computed once, on its out-of-bag training bags and on
the test bags, at each sharpness of ``GRID`` (a superset of the forest's
``OOB_SHARPNESSES``), and summed per forest in tree order, as
``predict_proba`` and ``_oob_probas`` do. Per fold and forest the cache stores
the out-of-bag accuracy and the test accuracy at every sharpness of the grid,
so any rule that picks the sharpness on the out-of-bag accuracy over a
subgrid can be scored afterwards without refitting (``--report``). The row
``first100`` with the shipped grid reproduces ``study_forest_rules.py``'s
``forest-bags-oob`` exactly.

Usage:
    python benchmarks/studies/study_forest_size.py --trees 300 --prefixes 50 100 200 300 --block 100 \
        [--datasets musk1 ...] [--param max_features=0.3] [--seed 0] [--cache forest_size.jsonl]
    python benchmarks/studies/study_forest_size.py --report [--cache ...] [--tag TAG]
    python benchmarks/studies/study_forest_size.py --joint default@seed0 max_features=0.3@seed0 [--datasets musk2]
"""

import argparse
import json
import os
import time

import numpy as np

from mil.datasets import load_dataset
from mil.ensemble import MIRandomForestClassifier
from mil.ensemble._forest import OOB_SHARPNESSES
from mil.evaluation import fold_indices

DATASETS = ["musk1", "musk2", "elephant", "fox", "tiger"]
GRID = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 32.0, np.inf)


def _value(text):
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return {"None": None, "True": True, "False": False}.get(text, text)


def fold_scores(forest, bags, y, train, test, prefixes, block):
    """Out-of-bag and test accuracy at every sharpness of GRID, per forest of the fitted trees."""
    trees = forest.estimators_
    n = len(trees)
    tr, te = bags.subset(train), bags.subset(test)
    ytr, yte = y[train], y[test]
    g = len(GRID)
    names = [f"first{k}" for k in prefixes] + [f"block{b}" for b in range(n // block)]
    oob_tot = {m: np.zeros((g, len(train), 2)) for m in names}
    oob_seen = {m: np.zeros(len(train), dtype=np.intp) for m in names}
    test_tot = {m: np.zeros((g, len(test))) for m in names}
    n_in = {m: 0 for m in names}
    for t, (tree, sample) in enumerate(zip(trees, forest.estimators_samples_)):
        counts = np.bincount(sample, minlength=len(train))
        out = np.flatnonzero(counts == 0)
        members = [f"first{k}" for k in prefixes if t < k] + [f"block{t // block}"] * (t // block < n // block)
        o_out = forest._tree_outputs(tree, tr.subset(out), GRID) if out.size else None
        t_out = forest._tree_outputs(tree, te, GRID)
        for m in members:
            n_in[m] += 1
            if o_out is not None:
                for i in range(g):
                    oob_tot[m][i, out] += o_out[i]
                oob_seen[m][out] += 1
            for i in range(g):
                test_tot[m][i] += t_out[i][:, 1]
    res = {}
    for m in names:
        ok = oob_seen[m] > 0
        # as the forest's _choose_sharpness: argmax of the two summed columns; the test side as
        # study_forest_rules.py: the positive column above 1/2
        oob_p = oob_tot[m][:, ok] / oob_seen[m][ok][:, None]
        oob_acc = np.mean(np.argmax(oob_p, axis=2) == ytr[ok], axis=1) if ok.any() else np.full(g, np.nan)
        test_acc = np.mean((test_tot[m] / n_in[m] > 0.5) == yte, axis=1)
        res[m] = {"oob": oob_acc.tolist(), "test": test_acc.tolist(), "n_oob": int(ok.sum()),
                  "trees": n_in[m]}
    return res


def run(args):
    params = dict(p.split("=", 1) for p in args.param)
    params = {k: _value(v) for k, v in params.items()}
    tag = args.tag or ",".join(f"{k}={v}" for k, v in sorted(params.items())) or "default"
    tag = f"{tag}@seed{args.seed}"
    done = set()
    if os.path.exists(args.cache):
        with open(args.cache) as fh:
            for line in fh:
                rec = json.loads(line)
                done.add((rec["tag"], rec["dataset"], rec["rep"]))
    for name in args.datasets:
        data = load_dataset(name)
        bags, y = data.bags, np.asarray(data.target)
        splits = fold_indices(y, folds=10, repeats=args.repeats, fold_table=data.folds)
        for r in range(args.repeats):
            if (tag, name, r) in done:
                continue
            folds, fit_time = [], []
            t0 = time.perf_counter()
            for train, test in splits[10 * r:10 * (r + 1)]:
                forest = MIRandomForestClassifier(n_estimators=args.trees, random_state=args.seed,
                                                  sharpness=np.inf, n_jobs=1, **params)
                t1 = time.perf_counter()
                forest.fit(bags.subset(train), y[train])
                fit_time.append(time.perf_counter() - t1)
                folds.append(fold_scores(forest, bags, y, train, test, args.prefixes, args.block))
            rec = {"tag": tag, "dataset": name, "rep": r, "trees": args.trees, "grid": [float(s) for s in GRID],
                   "fit_time": fit_time, "seconds": time.perf_counter() - t0, "folds": folds}
            with open(args.cache, "a") as fh:
                fh.write(json.dumps(rec) + "\n")
            shipped = chosen(folds, "first100", OOB_SHARPNESSES) if "first100" in folds[0] else float("nan")
            print(f"{tag:28s} {name:9s} rep {r}: first100/oob {100 * shipped:5.1f}  "
                  f"fit {sum(fit_time):.1f} s, total {rec['seconds']:.1f} s", flush=True)


def chosen(folds, forest, grid):
    """Mean test accuracy with the sharpness of `grid` of best out-of-bag accuracy (ties: the sharpest)."""
    idx = [GRID.index(s) for s in grid]
    acc = []
    for f in folds:
        oob = np.asarray(f[forest]["oob"])[idx]
        test = np.asarray(f[forest]["test"])[idx]
        acc.append(test[np.flatnonzero(oob == oob.max())[-1]])
    return float(np.mean(acc))


def joint(recs, tags, dataset, rep, forest="first100", grid=OOB_SHARPNESSES):
    """Test accuracy when each fold picks the (run, sharpness) of best out-of-bag accuracy.

    The runs `tags` share their folds and their bootstrap samples (the same
    seeds), so their out-of-bag bags are the same. Ties go to the earlier
    run of `tags`, then to the sharpest.
    """
    idx = [GRID.index(s) for s in grid]
    acc = []
    for folds in zip(*(recs[(t, dataset, rep)]["folds"] for t in tags)):
        oob = np.array([np.asarray(f[forest]["oob"])[idx] for f in folds])
        test = np.array([np.asarray(f[forest]["test"])[idx] for f in folds])
        best = oob.max()
        run = np.flatnonzero((oob == best).any(axis=1))[0]
        acc.append(test[run, np.flatnonzero(oob[run] == best)[-1]])
    return float(np.mean(acc))


def report_joint(args):
    recs = load(args.cache)
    tags = args.joint
    sets = [d for d in args.datasets if all((t, d, r) in recs for t in tags for r in range(args.repeats))]
    print(f"\n(run, sharpness) chosen on the out-of-bag accuracy among {', '.join(tags)} (first 100 trees):")
    rows = {t: [] for t in tags}
    rows["joint"] = []
    for d in sets:
        for r in range(args.repeats):
            for t in tags:
                rows[t].append(100 * chosen(recs[(t, d, r)]["folds"], "first100", OOB_SHARPNESSES))
            rows["joint"].append(100 * joint(recs, tags, d, r))
    n = args.repeats
    for name, vals in rows.items():
        per = [np.mean(vals[i * n:(i + 1) * n]) for i in range(len(sets))]
        cells = " ".join(f"{d} {v:5.1f} ({vals[i * n]:5.1f})" for i, (d, v) in enumerate(zip(sets, per)))
        print(f"  {name:28s} {cells}  mean {np.mean(per):5.2f}")
    base = np.array(rows[tags[0]])
    for name, vals in rows.items():
        if name == tags[0]:
            continue
        diff = np.array(vals) - base
        print(f"  {name} - {tags[0]}: {diff.mean():+.2f} ({diff.std(ddof=1) / np.sqrt(diff.size):.2f}), "
              f"{(diff > 0).sum()} / {(diff < 0).sum()} of {diff.size} (set, repetition) pairs")


def load(path):
    recs = {}
    with open(path) as fh:
        for line in fh:
            rec = json.loads(line)
            recs[(rec["tag"], rec["dataset"], rec["rep"])] = rec
    return recs


# Sharpness grids the out-of-bag choice may pick from; "max" is the maximum rule alone
# (the forest's pooling before sharpness="oob").
GRIDS = {"shipped": OOB_SHARPNESSES, "fine": GRID,
         "no-0.5": tuple(s for s in OOB_SHARPNESSES if s != 0.5),
         "1-inf": (1.0, 2.0, 4.0, 8.0, 16.0, np.inf), "max": (np.inf,)}


def pair(text):
    """``FOREST/GRID:FOREST/GRID`` of --pairs, the grid names checked."""
    sides = [side.split("/") for side in text.split(":")]
    if len(sides) != 2 or any(len(side) != 2 for side in sides):
        raise argparse.ArgumentTypeError(f"{text!r} is not FOREST/GRID:FOREST/GRID")
    for _, grid in sides:
        if grid not in GRIDS:
            raise argparse.ArgumentTypeError(f"unknown grid {grid!r} in {text!r}; grids: {', '.join(GRIDS)}")
    return ["/".join(side) for side in sides]


def report(args):
    recs = load(args.cache)
    tags = sorted({k[0] for k in recs}) if not args.tag else [args.tag]
    for tag in tags:
        sets = [d for d in args.datasets if all((tag, d, r) in recs for r in range(args.repeats))]
        if not sets:
            continue
        forests = list(recs[(tag, sets[0], 0)]["folds"][0])
        print(f"\n{tag}: 5 x 10-fold accuracy (%), mean of {args.repeats} repetitions (repetition 0)")
        print(f"{'forest / grid':26s} " + " ".join(f"{d:>13s}" for d in sets) + "   mean")
        for forest in forests:
            for gname, grid in GRIDS.items():
                cells, means = [], []
                for d in sets:
                    reps = [100 * chosen(recs[(tag, d, r)]["folds"], forest, grid) for r in range(args.repeats)]
                    cells.append(f"{np.mean(reps):5.1f} ({reps[0]:5.1f})")
                    means.append(np.mean(reps))
                print(f"{forest + '/' + gname:26s} " + " ".join(f"{c:>13s}" for c in cells) +
                      f"  {np.mean(means):5.2f}")
        if len(sets) == len(args.datasets):
            print("paired differences over the (set, repetition) pairs: mean (standard error), pairs won / lost")
            for a, b in args.pairs:
                (fa, ga), (fb, gb) = a.split("/"), b.split("/")
                if fa not in forests or fb not in forests:
                    print(f"  {a} - {b}: no such forest in this run (forests: {', '.join(forests)})")
                    continue
                diff = np.array([100 * (chosen(recs[(tag, d, r)]["folds"], fa, GRIDS[ga]) -
                                        chosen(recs[(tag, d, r)]["folds"], fb, GRIDS[gb]))
                                 for d in sets for r in range(args.repeats)])
                print(f"  {a:18s} - {b:18s} {diff.mean():+6.2f} ({diff.std(ddof=1) / np.sqrt(diff.size):.2f}), "
                      f"{(diff > 0).sum()} / {(diff < 0).sum()}")
        fit = [f"{d} {np.mean([sum(recs[(tag, d, r)]['fit_time']) for r in range(args.repeats)]):.0f} s"
               for d in sets]
        print("fit time per repetition (10 fits): " + ", ".join(fit))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=300)
    parser.add_argument("--prefixes", nargs="+", type=int, default=[50, 100, 200, 300])
    parser.add_argument("--block", type=int, default=100)
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--param", nargs="*", default=[], help="forest parameters NAME=VALUE")
    parser.add_argument("--tag", default=None)
    parser.add_argument("--cache", default="forest_size.jsonl")
    parser.add_argument("--report", action="store_true")
    parser.add_argument("--joint", nargs="*", default=None,
                        help="report the out-of-bag choice among these runs (tags; the first is the base)")
    parser.add_argument("--pairs", nargs="*", type=pair, default=[
        pair(p) for p in ("first200/shipped:first100/shipped", "first300/shipped:first100/shipped",
                          "first300/shipped:first200/shipped", "block1/shipped:block0/shipped",
                          "block2/shipped:block0/shipped", "block2/shipped:block1/shipped",
                          "first100/fine:first100/shipped", "first100/no-0.5:first100/shipped",
                          "first100/1-inf:first100/shipped", "first300/fine:first300/shipped",
                          "first300/1-inf:first300/shipped")],
                        help="paired comparisons FOREST/GRID:FOREST/GRID in the report")
    args = parser.parse_args()
    if args.joint:
        report_joint(args)
    elif args.report:
        report(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
