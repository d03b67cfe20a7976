"""A registry learner (mi-svm, MI-svm, emd-svm, ...) on the 5 x 10 published folds, one repetition a line.

The same folds and estimators as `mil reproduce kernels --learners mi-svm MI-svm --datasets NAME`
(evaluate() on table_splits(folds[r])); this script also records the out-of-fold log loss and the
prior's log loss (training-fold class frequency).

    python benchmarks/reproduce_mi_svm.py LEARNER DATASET [DATASET ...] [--both-cuts] [--param KEY=VALUE ...] [--reps R ...]

``--param`` sets parameters of the registry estimator (e.g. ``max_exact=10000``).
``--both-cuts`` fits each fold once with ``threshold="cv"`` and records the accuracy at its cut
(``accuracy``) and at 0 (``accuracy_zero``: the predictions of ``threshold="zero"``, whose fit is
the same); AUC of the bag scores, log loss of ``threshold="cv"``'s ``predict_proba``.
"""
import json
import sys
import time

import numpy as np

from _data import parse_params  # benchmarks/ is on sys.path when run as a script
from mil._learners import make_learner
from mil.datasets import load_dataset
from mil.evaluation import evaluate, table_splits


def main(argv):
    learner = argv[0]
    args = argv[1:]
    reps = list(range(5))
    if "--reps" in args:
        i = args.index("--reps")
        reps = [int(r) for r in args[i + 1:]]
        args = args[:i]
    params = {}
    both = "--both-cuts" in args
    args = [a for a in args if a != "--both-cuts"]
    if "--param" in args:
        i = args.index("--param")
        params = parse_params(args[i + 1:])
        args = args[:i]
    for ds in args:
        (_run_both if both else _run)(learner, ds, reps, params)


def _run(learner, ds, reps, params=None):
    d = load_dataset(ds)
    y = np.asarray(d.target)
    for r in reps:
        splits = list(table_splits(d.folds[r]))
        t, c = time.time(), time.process_time()
        res = evaluate(make_learner(learner, **(params or {})), d.bags, d.target, splits)
        prior = []
        for tr, te in splits:
            p = np.clip(np.mean(y[tr] == 1), 1e-15, 1 - 1e-15)
            prior.append(float(-np.mean(np.where(y[te] == 1, np.log(p), np.log(1 - p)))))
        print(json.dumps({"dataset": ds, "learner": learner, "rep": r,
                          "accuracy": [float(a) for a in res["accuracy"]], "auc": [float(a) for a in res["auc"]],
                          "log_loss": [float(a) for a in res["log_loss"]], "prior_log_loss": prior,
                          "wall": time.time() - t, "cpu": time.process_time() - c}), flush=True)


def _run_both(learner, ds, reps, params=None):
    from sklearn.metrics import log_loss, roc_auc_score

    d = load_dataset(ds)
    y, X = np.asarray(d.target), list(d.bags)
    for r in reps:
        t, c = time.time(), time.process_time()
        out = {k: [] for k in ("accuracy", "accuracy_zero", "auc", "log_loss", "prior_log_loss", "threshold", "C",
                                 "gamma")}
        for tr, te in table_splits(d.folds[r]):
            est = make_learner(learner, **{**(params or {}), "threshold": "cv"}).fit([X[i] for i in tr], y[tr])
            Xte = [X[i] for i in te]
            s = est.decision_function(Xte)  # bag score - threshold_, oriented to classes_[1]
            y1 = y[te] == est.classes_[1]
            out["accuracy"].append(float(np.mean(est.predict(Xte) == y[te])))
            raw = est._bag_scores(est._scaled(Xte))  # the positive class's bag score, before the cut
            out["accuracy_zero"].append(float(np.mean(est._labels_from_positive(raw > 0) == y[te])))
            out["auc"].append(float(roc_auc_score(y1, s)) if 0 < y1.sum() < len(y1) else float("nan"))
            out["log_loss"].append(float(log_loss(y[te], est.predict_proba(Xte), labels=est.classes_)))
            p = np.clip(np.mean(y[tr] == 1), 1e-15, 1 - 1e-15)
            out["prior_log_loss"].append(float(-np.mean(np.where(y[te] == 1, np.log(p), np.log(1 - p)))))
            out["threshold"].append(est.threshold_)
            out["C"].append(est.C_)
            out["gamma"].append(est.gamma_)  # absolute (None: linear kernel)
        print(json.dumps({"dataset": ds, "learner": learner, "rep": r, "params": params, **out,
                          "wall": time.time() - t, "cpu": time.process_time() - c}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
