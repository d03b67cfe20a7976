"""Bag encoders + a linear model on the five classic sets: accuracy and AUC, to choose their defaults.

A first look at the encoders of :mod:`mil.embedding` (VLAD, Fisher vectors, the random-feature
kernel mean embedding, the sliced-Wasserstein embedding) as plain scikit-learn pipelines, on the
five shipped sets with their published folds (5 repetitions x 10 folds): on each training fold the
encoder is fitted (seeded), the training bags are encoded, and ``GridSearchCV`` chooses the
classifier's C (and the parameters given with ``--tune``) by a stratified 5-fold CV over the
training bags only (shuffled with the seed); the test bags are then encoded and scored. Accuracy
and AUC (of the decision function) are averaged over the 50 folds of each seed; ``report`` prints
the mean over the seeds and their range. Nothing here reads a test fold to choose anything: the
defaults are chosen on the means over all five repetitions.

    python benchmarks/studies/study_encoders.py run vlad --param n_clusters=4 --seeds 0 1 2 > vlad4.jsonl
    python benchmarks/studies/study_encoders.py run kme --tune gamma=0.25,0.5,1,2,4 > kme.jsonl
    python benchmarks/studies/study_encoders.py run swe --clf rbf-svc --tune gamma=0.25,1,4 > swe_rbf.jsonl
    python benchmarks/studies/study_encoders.py report vlad4.jsonl kme.jsonl swe_rbf.jsonl

``classifier`` runs a registered encoder classifier (``mi-fv``, ``mi-vlad``, ``rff-nsk``,
``swe-svm``: its own inner CV, :mod:`mil._tuning`) with parameters changed, in the same format, to
compare variants of the classes' defaults on the same folds:

    python benchmarks/studies/study_encoders.py classifier mi-fv --param scoring=neg_log_loss --seeds 0

``run`` prints one JSON line per (set, seed, repetition, fold). Classifiers: ``logreg``
(``LogisticRegression``, L2, lbfgs; the default), ``linear-svc`` (``LinearSVC``) and ``rbf-svc``
(``SVC`` with an RBF kernel on the encodings, its gamma a multiple of the inverse median squared
distance between the training encodings). Logistic regression is the default because on these
unit-norm encodings liblinear's ``LinearSVC`` needs thousands of iterations (20,000 without
converging) at C >= 100, where lbfgs needs under a hundred, and it gives probabilities. ``--scaler standard`` puts a ``StandardScaler`` between encoder and
classifier. ``--tune NAME=v1,v2`` adds an encoder parameter (or ``gamma`` of ``rbf-svc``) to the
inner grid: each encoder setting is fitted on the training fold (it does not see the labels), the
inner CV scores the classifier grid on its encodings, and the best inner score over all settings
wins. ``--class-seeds`` seeds the encoder and the inner folds as the classes do with the same seed
(``miFVClassifier(random_state=seed)`` etc.), which makes the pipeline's results theirs:

    python benchmarks/studies/study_encoders.py run fv --param n_components=2 --scaler standard --class-seeds
"""

import argparse
import json
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC

from mil.datasets import load_dataset
from mil.embedding import (FisherVectorEmbedding, KernelMeanEmbedding, SlicedWassersteinEmbedding,
                           VLADEmbedding)

sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for the shared _data.py
from _data import parse_params  # noqa: E402

SETS = ("musk1", "musk2", "elephant", "fox", "tiger")
ENCODERS = {"vlad": VLADEmbedding, "fv": FisherVectorEmbedding, "kme": KernelMeanEmbedding,
            "swe": SlicedWassersteinEmbedding}
C_GRID = (0.01, 0.1, 1.0, 10.0, 100.0, 1000.0)


class MedianRBFSVC(ClassifierMixin, BaseEstimator):
    """SVC with an RBF kernel whose gamma is a multiple of 1 / median squared distance of the rows."""

    def __init__(self, C=1.0, gamma=1.0):
        self.C = C
        self.gamma = gamma

    def fit(self, X, y):
        from scipy.spatial.distance import pdist

        d = pdist(X, "sqeuclidean")
        med = np.median(d[d > 0]) if (d > 0).any() else 1.0
        self.svc_ = SVC(C=self.C, gamma=self.gamma / med).fit(X, y)
        self.classes_ = self.svc_.classes_
        return self

    def decision_function(self, X):
        return self.svc_.decision_function(X)

    def predict(self, X):
        return self.svc_.predict(X)


def _classifier(kind):
    if kind == "linear-svc":
        return LinearSVC(max_iter=20000)
    if kind == "logreg":
        return LogisticRegression(max_iter=5000)
    return MedianRBFSVC()


def run(args):
    params = parse_params(args.param)
    tune = {k: (v if isinstance(v, list) else [v]) for k, v in parse_params(args.tune).items()}
    clf_tune = {k: v for k, v in tune.items() if args.clf == "rbf-svc" and k == "gamma"}
    enc_tune = {k: v for k, v in tune.items() if k not in clf_tune}
    for name in args.sets:
        data = load_dataset(name)
        X, y = data.data, np.asarray(data.target)
        for seed in args.seeds:
            for rep, assignment in enumerate(data.folds[:args.reps]):
                for fold in np.unique(assignment):
                    train, test = np.flatnonzero(assignment != fold), np.flatnonzero(assignment == fold)
                    t0 = time.perf_counter()
                    row = _one_fold(args, X, y, train, test, seed, params, enc_tune, clf_tune)
                    row.update(set=name, seed=seed, rep=rep, fold=int(fold), seconds=time.perf_counter() - t0,
                               encoder=args.encoder, params=params, clf=args.clf, scaler=args.scaler,
                               tune={k: v for k, v in tune.items()})
                    print(json.dumps(row), flush=True)


def _one_fold(args, X, y, train, test, seed, params, enc_tune, clf_tune):
    if args.class_seeds:
        # The encoder classifiers' own draw: one int from RandomState(seed) seeds both.
        seed = int(np.random.RandomState(seed).randint(np.iinfo(np.int32).max))
    steps = [("clf", _classifier(args.clf))]
    if args.scaler == "standard":
        steps.insert(0, ("scaler", StandardScaler()))
    grid = {"clf__C": list(C_GRID), **{f"clf__{k}": v for k, v in clf_tune.items()}}
    inner = StratifiedKFold(5, shuffle=True, random_state=seed)
    Xtr = [X[i] for i in train]
    Xte = [X[i] for i in test]
    best = None
    # Each encoder setting is fitted once on the training fold (it does not see the labels) and
    # the inner CV scores the classifier's grid on its encodings; the best inner score over all
    # settings wins (ties: the first), as the bag-kernel SVMs choose gamma on one kernel per gamma.
    names = sorted(enc_tune)
    for values in (np.array(np.meshgrid(*[enc_tune[n] for n in names], indexing="ij")).reshape(len(names), -1).T
                   if names else [()]):
        setting = dict(zip(names, [v.item() if hasattr(v, "item") else v for v in values]))
        enc = ENCODERS[args.encoder](**params, **setting, random_state=seed).fit(Xtr)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            search = GridSearchCV(Pipeline(steps), grid, cv=inner).fit(enc.transform(Xtr), y[train])
        if best is None or search.best_score_ > best[0]:
            best = (search.best_score_, enc, search, setting)
    _, enc, search, setting = best
    Ete = enc.transform(Xte)
    scores = search.decision_function(Ete)
    pred = search.predict(Ete)
    positive = search.classes_[1]
    return {"accuracy": float(np.mean(pred == y[test])),
            "auc": float(roc_auc_score(y[test] == positive, scores)),
            "best": {**search.best_params_, **setting}}


def classifier(args):
    from mil._learners import make_learner

    params = parse_params(args.param)
    for name in args.sets:
        data = load_dataset(name)
        X, y = data.data, np.asarray(data.target)
        for seed in args.seeds:
            for rep, assignment in enumerate(data.folds[:args.reps]):
                for fold in np.unique(assignment):
                    train, test = np.flatnonzero(assignment != fold), np.flatnonzero(assignment == fold)
                    t0 = time.perf_counter()
                    est = make_learner(args.learner, seed=seed, **params).fit([X[i] for i in train], y[train])
                    Xte = [X[i] for i in test]
                    scores = est.decision_function(Xte)
                    row = {"accuracy": float(np.mean(est.predict(Xte) == y[test])),
                           "auc": float(roc_auc_score(y[test] == est.classes_[1], scores)),
                           "best": {"C": est.best_params_["C"]},
                           "set": name, "seed": seed, "rep": rep, "fold": int(fold),
                           "seconds": time.perf_counter() - t0, "encoder": args.learner, "params": params,
                           "clf": "inner-cv", "scaler": "-", "tune": {}}
                    print(json.dumps(row), flush=True)


def report(files):
    rows = [json.loads(line) for f in files for line in open(f) if line.strip()]
    groups = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for r in rows:
        key = (r["encoder"], json.dumps(r["params"], sort_keys=True), r["clf"], r["scaler"],
               json.dumps(r["tune"], sort_keys=True))
        groups[key][r["set"]][r["seed"]].append((r["accuracy"], r["auc"]))
    print(f"{'configuration':70s} " + " ".join(f"{s:>19s}" for s in SETS) + "   mean")
    for key, by_set in groups.items():
        cells, accs, aucs = [], [], []
        for s in SETS:
            seeds = by_set.get(s)
            if not seeds:
                cells.append(f"{'-':>19s}")
                continue
            acc = [100 * np.mean([a for a, _ in v]) for v in seeds.values()]
            auc = [100 * np.mean([b for _, b in v]) for v in seeds.values()]
            n = min(len(v) for v in seeds.values())
            rng = f"{min(acc):.1f}-{max(acc):.1f}" if len(acc) > 1 else f"n={n}"
            cells.append(f"{np.mean(acc):5.1f} {np.mean(auc):5.1f} {rng:>7s}")
            accs.append(np.mean(acc))
            aucs.append(np.mean(auc))
        label = f"{key[0]} {key[1]} {key[2]} {key[3]} {key[4] if key[4] != '{}' else ''}"
        mean = f"{np.mean(accs):5.1f} {np.mean(aucs):5.1f}" if len(accs) == len(SETS) else ""
        print(f"{label[:70]:70s} " + " ".join(cells) + "   " + mean)
    print("cells: accuracy, AUC (mean over seeds of the 5 x 10-fold means) and the seeds' accuracy range")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("encoder", choices=sorted(ENCODERS))
    r.add_argument("--param", nargs="*", help="encoder parameters NAME=VALUE")
    r.add_argument("--tune", nargs="*", help="extra inner-grid parameters NAME=v1,v2,...")
    r.add_argument("--clf", default="logreg", choices=("logreg", "linear-svc", "rbf-svc"))
    r.add_argument("--scaler", default="none", choices=("none", "standard"))
    r.add_argument("--sets", nargs="*", default=list(SETS))
    r.add_argument("--seeds", nargs="*", type=int, default=[0, 1, 2])
    r.add_argument("--reps", type=int, default=5, help="published repetitions to use (all 5 by default)")
    r.add_argument("--class-seeds", action="store_true",
                   help="seed the encoder and the inner folds as the encoder classifiers do with random_state=SEED")
    c = sub.add_parser("classifier")
    c.add_argument("learner", choices=("mi-fv", "mi-vlad", "rff-nsk", "swe-svm"))
    c.add_argument("--param", nargs="*", help="classifier parameters NAME=VALUE")
    c.add_argument("--sets", nargs="*", default=list(SETS))
    c.add_argument("--seeds", nargs="*", type=int, default=[0, 1, 2])
    c.add_argument("--reps", type=int, default=5, help="published repetitions to use (all 5 by default)")
    p = sub.add_parser("report")
    p.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    if args.command == "run":
        run(args)
    elif args.command == "classifier":
        classifier(args)
    else:
        report(args.files)


if __name__ == "__main__":
    sys.exit(main())
