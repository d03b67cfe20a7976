"""The tables of ``mil reproduce trees`` (README's headline rows) from its --json outputs; ID3/C4.5-MI rows.

Without ``--from-json``: 10-fold CV accuracy of ID3-MI and C4.5-MI on repetition 0 of the shipped
fold assignments, one row per data set.

``--from-json FILE ...`` instead reads outputs of ``mil reproduce trees --json`` (several
files are merged; a later file's cells replace an earlier one's, so a re-run of some learners
with ``--learners`` can be laid over a full run) and prints the table as a reStructuredText list-table (docs/results/trees_boosting_rules.rst) and as a
Markdown table (the README): accuracy %, mean +- standard deviation over the folds, the best
mean of each data set in bold.

Usage: python benchmarks/reproduce_trees.py [--datasets musk1 musk2 ...] [--param key=value ...]
       python benchmarks/reproduce_trees.py --from-json trees_musk1.json trees_musk2.json ...
       python benchmarks/reproduce_trees.py --from-json trees5.json --headline   (a --repeats 5 run)
"""

import argparse
import json
import time

import numpy as np

from mil.tree import C45MIClassifier, ID3MIClassifier

DATASETS = ["musk1", "musk2", "elephant", "fox", "tiger"]


from _data import load, parse_params  # noqa: E402  (benchmarks/ is on sys.path when run as a script)


def cv_accuracy(make, bags, y, folds):
    correct = 0
    for k in np.unique(folds):
        test = folds == k
        clf = make().fit(bags[~test], y[~test])
        correct += int((clf.predict(bags[test]) == y[test]).sum())
    return correct / y.size


#: Display names of the ``mil reproduce trees`` learners.
NAMES = {"id3-mi": "ID3-MI", "c45-mi": "C4.5-MI", "gdbt-mi": "GDBT-MI", "gdbt-bag-ratio": "GDBT-MI, bag-ratio trees", "ripper-mi": "RIPPER-MI",
         "simplemi-tree": "SimpleMI + C4.5", "miwrapper-tree": "MIWrapper + C4.5",
         "mi-forest": "MI random forest", "blrt": "BLRT", "miwrapper-hgb": "MIWrapper + HistGradientBoosting",
         "simplemi-rf": "SimpleMI + random forest"}
SET_NAMES = {"musk1": "Musk1", "musk2": "Musk2", "elephant": "Elephant", "fox": "Fox", "tiger": "Tiger"}


def reproduction_cells(result):
    """``(columns, rows)`` of a ``mil reproduce trees --json`` result: "mean +- std" (best in bold).

    A learner run over several seeds (``seed_accuracy``, with ``seeds`` > 1) shows the mean
    of its seeds' fold means and their range, "mean [lowest-highest]", and is marked "*".
    """
    sets = list(next(iter(result["accuracy"].values())))
    by_seed = result.get("seed_accuracy", {}) if result.get("seeds", 1) > 1 else {}
    means = {(l, d): 100 * np.mean(result["accuracy"][l][d]) for l in result["accuracy"] for d in sets}
    best = {d: max(round(means[l, d], 1) for l in result["accuracy"]) for d in sets}
    rows = []
    for learner, per_set in result["accuracy"].items():
        cells = []
        for d in sets:
            m = means[learner, d]
            mean = f"**{m:.1f}**" if round(m, 1) == best[d] else f"{m:.1f}"
            if learner in by_seed:
                s = 100 * np.asarray(by_seed[learner][d])
                cells.append(f"{mean} [{s.min():.1f}-{s.max():.1f}]")
            else:
                cells.append(f"{mean} +- {100 * np.std(per_set[d]):.1f}")
        rows.append([NAMES.get(learner, learner) + (" *" if learner in by_seed else ""), *cells])
    return ["learner", *(SET_NAMES.get(d, d) for d in sets)], rows


def merge_results(paths):
    """One result from ``mil reproduce trees --json`` files (e.g. one per data set), sets in DATASETS order.

    Learners keep the order of their first appearance; a (learner, set) cell of a later file
    replaces the same cell of an earlier one (e.g. a ``--learners`` re-run over a full run).
    """
    merged = {"title": None, "accuracy": {}, "seconds": {}, "staged_error": {}, "seed_accuracy": {}, "seeds": 1}
    for path in paths:
        with open(path) as fh:
            part = json.load(fh)
        merged["title"] = merged["title"] or part["title"]
        merged["staged_error"].update(part.get("staged_error", {}))
        merged["seeds"] = max(merged["seeds"], part.get("seeds", 1))
        for key in ("accuracy", "seconds", "seed_accuracy", "seed_auc", "auc"):
            for learner, per_set in part.get(key, {}).items():
                merged.setdefault(key, {}).setdefault(learner, {}).update(per_set)
    for key in ("accuracy", "seconds", "seed_accuracy", "seed_auc", "auc"):
        for learner, per_set in merged.get(key, {}).items():
            order = sorted(per_set, key=lambda d: DATASETS.index(d) if d in DATASETS else len(DATASETS))
            merged[key][learner] = {d: per_set[d] for d in order}
    return merged


def headline_cells(result, repeats=5):
    """``(columns, rows)`` in the README's headline form, from a ``--repeats 5`` reproduction.

    A cell is "mean (repetition 0) [lowest-highest seed]" of accuracy %, where the mean is over
    the 5 x 10 folds (and the seeds, for a randomised learner), with the mean AUC % in a second
    column group when the result holds it (runs before AUC was saved hold it for the seeds only).
    """
    sets = list(next(iter(result["accuracy"].values())))
    rows = []
    for learner, per_set in result["accuracy"].items():
        cells, aucs = [], []
        for d in sets:
            folds = 100 * np.asarray(per_set[d]).reshape(-1, repeats, 10)  # seed, repetition, fold
            cell = f"{folds.mean():.1f} ({folds[:, 0].mean():.1f})"
            seed_means = result.get("seed_accuracy", {}).get(learner, {}).get(d)
            if seed_means is not None and len(seed_means) > 1:
                cell += f" [{100 * min(seed_means):.1f}-{100 * max(seed_means):.1f}]"
            cells.append(cell)
            fold_auc = result.get("auc", {}).get(learner, {}).get(d)
            seed_auc = result.get("seed_auc", {}).get(learner, {}).get(d)
            if fold_auc is not None:
                aucs.append(f"{100 * np.nanmean(np.array(fold_auc, dtype=float)):.1f}")
            elif seed_auc is not None:
                aucs.append(f"{100 * np.mean(seed_auc):.1f}")
            else:
                aucs.append("")
        seeded = len(result.get("seed_accuracy", {}).get(learner, {}).get(sets[0], [])) > 1
        rows.append([NAMES.get(learner, learner) + (" *" if seeded else ""), *cells, " / ".join(aucs)])
    return ["learner", *(SET_NAMES.get(d, d) for d in sets), "AUC"], rows


def rst_table(columns, rows):
    out = [".. list-table::", "   :header-rows: 1", ""]
    for i, row in enumerate([columns, *rows]):
        out += [("   * - " if j == 0 else "     - ") + cell for j, cell in enumerate(row)]
    return "\n".join(out)


def markdown_table(columns, rows):
    lines = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    lines += ["| " + " | ".join(cell.replace("+-", "±") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--param", nargs="*", help="extra parameters for both learners, key=value")
    parser.add_argument("--from-json", metavar="FILE", nargs="+",
                        help="print the tables of `mil reproduce trees --json` outputs instead (several "
                             "files, e.g. one per --datasets run, are merged in data-set order; a later "
                             "file's cells replace an earlier one's)")
    parser.add_argument("--headline", action="store_true",
                        help="with --from-json of a --repeats 5 run: the README's headline cells, "
                             "mean (repetition 0) [seed range], and the mean AUC")
    args = parser.parse_args()
    if args.from_json and args.headline:
        print(markdown_table(*headline_cells(merge_results(args.from_json))))
        return
    if args.from_json:
        result = merge_results(args.from_json)
        columns, rows = reproduction_cells(result)
        total = sum(sum(v.values()) for v in result["seconds"].values())
        print(f"{result['title']} (learners' CV time summed: {total:.0f} s)\n")
        print(rst_table(columns, rows) + "\n")
        print(markdown_table(columns, rows))
        for name, curves in result.get("staged_error", {}).items():
            train, test = np.asarray(curves["train"]), np.asarray(curves["test"])
            zero = np.flatnonzero(train == 0)
            fitted = f"0 from round {zero[0] + 1}" if zero.size else f"{100 * train[-1]:.1f} % at the end"
            print(f"\nGDBT-MI on {name}: training error {fitted}; test error {100 * test[-1]:.1f} % "
                  f"after {test.size} rounds (lowest {100 * test.min():.1f} % at round {test.argmin() + 1})")
        return
    params = parse_params(args.param)
    print(f"{'data set':10s} {'ID3-MI':>8s} {'C4.5-MI':>8s}   (10-fold CV, fold row 0) {params}")
    for name in args.datasets:
        bags, y, folds = load(name)
        t0 = time.perf_counter()
        id3 = cv_accuracy(lambda: ID3MIClassifier(**params), bags, y, folds)
        c45 = cv_accuracy(lambda: C45MIClassifier(**params), bags, y, folds)
        print(f"{name:10s} {100 * id3:8.1f} {100 * c45:8.1f}   ({time.perf_counter() - t0:.1f} s)",
              flush=True)


if __name__ == "__main__":
    main()
