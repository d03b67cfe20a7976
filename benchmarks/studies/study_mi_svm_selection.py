"""How mi-SVM / MI-SVM's inner CV should choose its grid point: every rule on the same fits.

For each outer fold of the 5 published repetitions, the registry estimator's inner CV runs once
(the out-of-fold bag scores of every (gamma, C) point), and every grid point is also fitted on the
whole training fold and scores the test bags. A selection rule (which point, which cut) is then a
computation on these numbers, so all rules are compared on identical fits:

- ``acc0``: the largest out-of-fold accuracy at the cut 0 (``scoring="accuracy"``; with
  ``threshold="cv"``, what ``fit`` did until 2026-11-27);
- ``accP``: the largest out-of-fold accuracy at each point's own fitted cut (a Platt fit with an
  intercept on its out-of-fold scores; ``scoring="accuracy"`` with ``threshold="cv"`` now);
- ``auc``: the largest out-of-fold AUC of the pooled bag scores (``scoring="roc_auc"``);
- ``ll``: the smallest out-of-fold log loss of that Platt fit (``scoring="neg_log_loss"`` with
  ``threshold="cv"``);

each reported with the cut at 0 (``threshold="zero"``) and with the fitted cut
(``threshold="cv"``). Ties go to the first C, then the first gamma, as in ``fit``
(:mod:`mil._tuning`, whose functions score and cut here).

    python benchmarks/studies/study_mi_svm_selection.py run LEARNER DATASET [--param KEY=VALUE ...] [--jobs J] > FILE.jsonl
    python benchmarks/studies/study_mi_svm_selection.py report FILE.jsonl [FILE.jsonl ...]

``run`` prints one JSON line per outer fold (the raw scores; nothing is chosen yet); ``report``
prints accuracy and AUC per rule, learner and dataset, with the five-set mean. Each row is what
``mil reproduce kernels`` gives with the estimator set that way (``auc`` with the fitted cut is
the registry's mi-SVM, ``accP`` with the fitted cut its MI-SVM).
"""
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from sklearn.metrics import roc_auc_score

from mil._learners import make_learner
from mil.datasets import load_dataset
from mil.evaluation import table_splits
from mil._tuning import best_index, fit_sigmoid, grid_scores, inner_folds, out_of_fold

sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for the shared _data.py
from _data import parse_params  # noqa: E402

#: rule -> the (scoring, threshold) whose out-of-fold score ranks the grid in ``fit``.
RULES = {"acc0": ("accuracy", "zero"), "accP": ("accuracy", "cv"), "auc": ("roc_auc", "cv"),
         "ll": ("neg_log_loss", "cv")}


def _fold(learner, params, X, y, tr, te):
    """Out-of-fold scores of every grid point and each point's test bag scores on one outer fold."""
    t = time.process_time()
    est = make_learner(learner, **params)
    # The engine's own steps (mil._tuning): fit's inputs, representation, grid, folds, then every
    # grid point's out-of-fold scores and its refit's test scores.
    bags, target, weight, keep, n_total = est._fit_inputs([X[i] for i in tr], y[tr], None)
    fold_seeds, seeds = est._draw_seeds()
    rep = est._represent(bags, target, seeds)
    rows_, cols = est._grid(rep)
    grid = [(row["gamma"], col["C"]) for row in rows_ for col in cols]
    folds = inner_folds(est.cv, target, seeds=fold_seeds)
    rows, oof = out_of_fold(folds, lambda a, b: est._fold_outputs(rep, rows_, cols, target, None, seeds, a, b))
    oof = oof.reshape(len(grid), -1)
    pos = target == 1
    test = est._scaled([X[i] for i in te])
    test_scores = []
    for row in rows_:
        for col in cols:
            _, model = est._refit(rep, row, col, target, None, seeds)
            test_scores.append(model.decision_function(test).tolist())
    positive = est.classes_[1]
    return {"grid": grid, "shape": [len(rows_), len(cols)], "oof": oof.tolist(), "train_pos": pos[rows].tolist(),
            "test_scores": test_scores, "test_pos": (y[te] == positive).tolist(),
            "cpu": time.process_time() - t}


def run(learner, ds, params, jobs):
    d = load_dataset(ds)
    X, y = list(d.bags), np.asarray(d.target)
    for r in range(len(d.folds)):
        splits = list(table_splits(d.folds[r]))
        folds = Parallel(n_jobs=jobs)(delayed(_fold)(learner, params, X, y, tr, te) for tr, te in splits)
        for k, f in enumerate(folds):
            print(json.dumps({"learner": learner, "dataset": ds, "rep": r, "fold": k, "params": params, **f}),
                  flush=True)


def _choose(fold):
    """{rule: (grid index, cut at the fitted threshold)} for one outer fold, by the estimators'
    own ranking (``mil._tuning.grid_scores``, ``best_index``) and fitted cut (``fit_sigmoid``)."""
    oof, pos = np.asarray(fold["oof"]), np.asarray(fold["train_pos"]).astype(np.intp)
    cuts = []
    for s in oof:
        a, b = fit_sigmoid(s, pos, intercept=True)
        cuts.append(-b / a)
    n_g, n_C = fold["shape"]
    out = {}
    for rule, (scoring, threshold) in RULES.items():
        p, c = best_index(grid_scores(oof.reshape(n_g, n_C, -1), pos, None, scoring, threshold == "cv"))
        out[rule] = (p * n_C + c, cuts)
    return out


def report(paths):
    rows = defaultdict(lambda: defaultdict(list))  # (learner, params, rule, cut) -> dataset -> [(acc, auc)]
    chosen = defaultdict(lambda: defaultdict(list))
    for path in paths:
        with open(path) as fh:
            for line in fh:
                fold = json.loads(line)
                key = (fold["learner"], json.dumps(fold["params"], sort_keys=True))
                te_pos = np.asarray(fold["test_pos"])
                for rule, (i, cuts) in _choose(fold).items():
                    s = np.asarray(fold["test_scores"][i])
                    auc = roc_auc_score(te_pos, s) if 0 < te_pos.sum() < len(te_pos) else np.nan
                    for cut_name, cut in (("0", 0.0), ("fitted", cuts[i])):
                        rows[key + (rule, cut_name)][fold["dataset"]].append((np.mean((s > cut) == te_pos), auc))
                    chosen[key + (rule,)][fold["dataset"]].append(tuple(fold["grid"][i]))
    sets = ["musk1", "musk2", "elephant", "fox", "tiger"]
    print("learner params rule cut | " + " | ".join(sets) + " | mean   (accuracy %, AUC %; folds)")
    for key in sorted(rows):
        cells, accs = [], []
        for ds in sets:
            v = rows[key].get(ds)
            if not v:
                cells.append("-")
                continue
            a = np.asarray(v, dtype=float)
            accs.append(100 * a[:, 0].mean())
            cells.append(f"{100 * a[:, 0].mean():.1f} ({100 * np.nanmean(a[:, 1]):.1f}; {len(a)})")
        mean = f"{np.mean(accs):.2f}" if len(accs) == len(sets) else "-"
        print(" ".join(key) + " | " + " | ".join(cells) + " | " + mean)
    print("\nchosen (gamma, C) counts per rule and dataset:")
    for key in sorted(chosen):
        for ds in sets:
            if ds in chosen[key]:
                pts, counts = np.unique(np.asarray(chosen[key][ds]), axis=0, return_counts=True)
                print(" ".join(key), ds, ", ".join(f"{g:g}/{c:g}:{n}" for (g, c), n in zip(pts, counts)))


def main(argv):
    if argv[0] == "report":
        return report(argv[1:])
    learner, ds, args = argv[1], argv[2], argv[3:]
    jobs = 1
    if "--jobs" in args:
        i = args.index("--jobs")
        jobs = int(args[i + 1])
        args = args[:i] + args[i + 2:]
    params = parse_params(args[args.index("--param") + 1:]) if "--param" in args else {}
    run(learner, ds, params, jobs)


if __name__ == "__main__":
    main(sys.argv[1:])
