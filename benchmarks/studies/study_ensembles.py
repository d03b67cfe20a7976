"""Whether a soft vote or a stack of mil's strongest learners beats the best single learner: five sets, 5 x 10 published folds, seeds 0-2.

The ensembles are scikit-learn's own ``VotingClassifier(voting="soft")`` and
``StackingClassifier`` (its default final estimator, ``LogisticRegression()``,
on the members' ``predict_proba``, learnt on a stratified 5-fold CV of each
training fold shuffled by the seed) over registry learners
(``mil._learners.make_learner(name, seed=s)``: the seed reaches every
randomised member's ``random_state``). The folds are the five published
repetitions x 10 folds of Musk1, Musk2, Elephant, Fox and Tiger, as
``mil reproduce`` uses them.

Rules fixed before measuring (:data:`RULES`): the eligible soft vote weighs
equally the best learner of each family whose best five-set mean is at least
80 % (MInD, the EMD kernel SVM, BLRT); the stacks learn their weights inside
each training fold. The other soft votes are sets chosen after seeing 5 x 10
rows, reported for comparison only.

Every fit is a member's: ``fit`` fits each member on each training fold and
keeps its test-fold ``predict_proba`` and ``predict`` with the CPU seconds
and the worker's peak memory (``<cache>/<set>/s<seed>/<member>.outer.pkl``);
``fit --inner`` adds the out-of-fold probabilities of the stack's inner CV on
each training fold (``.inner.pkl``). A soft vote is then the average of its
members' cached probabilities (``np.average`` over the members, as
``VotingClassifier.predict_proba`` computes it), a stack the logistic
regression on the inner probabilities; ``check`` shows on a subset of folds
that these equal, to the last bit, what ``VotingClassifier`` and
``StackingClassifier`` fitted from scratch give. Nothing cached depends on a
test fold's labels. ``table`` prints the rows (accuracy % and AUC %, the mean
over the seeds of the 5 x 10 means with their range) and the CPU seconds per
fold.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/studies/study_ensembles.py fit --cache DIR --jobs 2
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/studies/study_ensembles.py fit --cache DIR --jobs 2 --inner --members mind,blrt,emd-svm --seeds 0
    python benchmarks/studies/study_ensembles.py check --cache DIR
    python benchmarks/studies/study_ensembles.py table --cache DIR
"""

import argparse
import copy
import os
import pickle
import resource
import sys
import time

import numpy as np

#: Datasets, candidate members, seeds.
DATASETS = ("musk1", "musk2", "elephant", "fox", "tiger")
CANDIDATES = ("mind", "blrt", "emd-svm", "miles", "MI-svm", "gdbt-bag-ratio", "nsk-svm", "miwrapper-hgb")
SEEDS = (0, 1, 2)

#: name -> (kind, members, eligible to ship, description). Fixed before the measurement.
RULES = {
    "vote-families": ("vote", ("mind", "emd-svm", "blrt"), True,
                      "soft vote, equal weights: the best of each family at >= 80 % (MInD, EMD SVM, BLRT)"),
    "stack-families": ("stack", ("mind", "emd-svm", "blrt"), True,
                       "stack (logistic regression, inner 5-fold CV) of MInD, EMD SVM, BLRT"),
    "stack-all": ("stack", CANDIDATES, True, "stack of all eight candidates"),
    "vote-earlier5": ("vote", ("mind", "blrt", "emd-svm", "miles", "MI-svm"), False,
                      "soft vote of the earlier measurement's five"),
    "vote-top5": ("vote", ("mind", "emd-svm", "blrt", "gdbt-bag-ratio", "miwrapper-hgb"), False,
                  "soft vote of the five best single learners"),
    "vote-all": ("vote", CANDIDATES, False, "soft vote of all eight candidates"),
    "vote-nopot3": ("vote", ("mind", "blrt", "miles"), False, "soft vote of MInD, BLRT, MILES (no POT)"),
    "vote-default-job": ("vote", ("mind", "blrt", "gdbt-bag-ratio", "miles", "miwrapper-hgb"), False,
                         "soft vote of the quick default job's five (no POT)"),
}


def inner_cv(seed):
    """The stack's inner CV on a training fold (what ``StackingClassifier(cv=...)`` receives)."""
    from sklearn.model_selection import StratifiedKFold

    return StratifiedKFold(5, shuffle=True, random_state=seed)


def _data(name):
    from mil.datasets import load_dataset
    from mil.evaluation import fold_indices

    d = load_dataset(name)
    return d.bags, np.asarray(d.target), fold_indices(d.target, folds=10, repeats=5, fold_table=d.folds)


def _peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _outer_fold(member, seed, bags, y, train, test):
    """One member fitted on one training fold: its test-fold outputs and CPU seconds."""
    from mil._learners import make_learner

    est = make_learner(member, seed=seed)
    c0 = time.process_time()
    est.fit(bags[train], y[train])
    c1 = time.process_time()
    proba = est.predict_proba(bags[test])
    pred = est.predict(bags[test])
    c2 = time.process_time()
    return {"proba": proba, "pred": pred, "classes": est.classes_, "fit_cpu": c1 - c0, "predict_cpu": c2 - c1,
            "peak_mb": _peak_mb()}


def _inner_fold(member, seed, bags, y, train):
    """The out-of-fold probabilities of one member on one training fold, as a stack computes them."""
    from sklearn.model_selection import cross_val_predict

    from mil._learners import make_learner

    c0 = time.process_time()
    oof = cross_val_predict(make_learner(member, seed=seed), bags[train], y[train], cv=copy.deepcopy(inner_cv(seed)),
                            method="predict_proba")
    return {"oof": oof, "cpu": time.process_time() - c0, "peak_mb": _peak_mb()}


def _path(cache, name, seed, member, kind):
    return os.path.join(cache, name, f"s{seed}", f"{member}.{kind}.pkl")


def _load(cache, name, seed, member, kind):
    with open(_path(cache, name, seed, member, kind), "rb") as fh:
        return pickle.load(fh)


def fit(cache, datasets, seeds, members, inner, n_jobs):
    from joblib import Parallel, delayed

    kind = "inner" if inner else "outer"
    for name in datasets:
        bags, y, splits = _data(name)
        for seed in seeds:
            for member in members:
                path = _path(cache, name, seed, member, kind)
                if os.path.exists(path):
                    continue
                t0 = time.perf_counter()
                if inner:
                    jobs = (delayed(_inner_fold)(member, seed, bags, y, train) for train, _ in splits)
                else:
                    jobs = (delayed(_outer_fold)(member, seed, bags, y, train, test) for train, test in splits)
                folds = Parallel(n_jobs=n_jobs)(jobs)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path + ".tmp", "wb") as fh:
                    pickle.dump(folds, fh)
                os.replace(path + ".tmp", path)
                cpu = sum(f["cpu"] if inner else f["fit_cpu"] + f["predict_cpu"] for f in folds)
                print(f"{name} seed {seed} {member} {kind}: {cpu / len(folds):.2f} CPU s/fold, "
                      f"{time.perf_counter() - t0:.0f} s wall, peak {max(f['peak_mb'] for f in folds):.0f} MB",
                      flush=True)


def vote_fold(outer, members, k):
    """Soft vote of `members` on fold `k` from their cached outputs: (proba, pred, classes)."""
    classes = outer[members[0]][k]["classes"]
    for m in members:
        if not np.array_equal(outer[m][k]["classes"], classes):
            raise ValueError(f"{m} has other classes than {members[0]}")
    # As VotingClassifier.predict_proba: np.average over the members' predict_proba.
    proba = np.average(np.asarray([outer[m][k]["proba"] for m in members]), axis=0, weights=None)
    return proba, classes[np.argmax(proba, axis=1)], classes


def stack_fold(outer, inner, members, k, y_train):
    """A stack of `members` on fold `k` from the cached inner and outer outputs: (proba, pred, classes)."""
    from sklearn.linear_model import LogisticRegression

    classes = outer[members[0]][k]["classes"]
    y_enc = np.searchsorted(classes, y_train)
    meta_train = np.hstack([inner[m][k]["oof"][:, 1:] for m in members])  # binary: the second column
    meta_test = np.hstack([outer[m][k]["proba"][:, 1:] for m in members])
    final = LogisticRegression().fit(meta_train, y_enc)
    return final.predict_proba(meta_test), classes[final.predict(meta_test)], classes


def check(cache, cases):
    """VotingClassifier / StackingClassifier fitted from scratch against the cache, bit for bit."""
    from sklearn.ensemble import StackingClassifier, VotingClassifier

    from mil._learners import make_learner

    worst = 0.0
    for name, seed, folds, rule in cases:
        kind, members, _, _ = RULES[rule]
        bags, y, splits = _data(name)
        outer = {m: _load(cache, name, seed, m, "outer") for m in members}
        inner = {m: _load(cache, name, seed, m, "inner") for m in members} if kind == "stack" else None
        for k in folds:
            train, test = splits[k]
            estimators = [(m, make_learner(m, seed=seed)) for m in members]
            if kind == "vote":
                ens = VotingClassifier(estimators, voting="soft").fit(bags[train], y[train])
                proba, pred, _ = vote_fold(outer, members, k)
            else:
                ens = StackingClassifier(estimators, cv=inner_cv(seed)).fit(bags[train], y[train])
                proba, pred, _ = stack_fold(outer, inner, members, k, y[train])
            p = ens.predict_proba(bags[test])
            diff = float(np.max(np.abs(p - proba)))
            same = np.array_equal(p, proba) and np.array_equal(ens.predict(bags[test]), pred)
            worst = max(worst, diff)
            print(f"{name} seed {seed} fold {k} {rule}: {'identical' if same else 'DIFFERENT'} "
                  f"(largest probability difference {diff:.3g})", flush=True)
            if not same:
                return 1
    print(f"all identical (largest difference {worst:.3g})")
    return 0


def _fold_scores(y_test, pred, proba, classes):
    from sklearn.metrics import roc_auc_score

    acc = float(np.mean(pred == y_test))
    two = len(np.unique(y_test)) == 2
    return acc, float(roc_auc_score(y_test == classes[1], proba[:, 1])) if two else np.nan


def scores(cache, name, seed, rule=None, member=None, outer=None, inner=None):
    """Per-fold accuracy and AUC arrays of a rule or a single member, and the CPU seconds per fold."""
    bags, y, splits = _data(name)
    acc, auc, cpu = [], [], []
    for k, (train, test) in enumerate(splits):
        if member is not None:
            f = outer[member][k]
            proba, pred, classes = f["proba"], f["pred"], f["classes"]
            cpu.append(f["fit_cpu"] + f["predict_cpu"])
        else:
            kind, members, _, _ = RULES[rule]
            if kind == "vote":
                proba, pred, classes = vote_fold(outer, members, k)
                cpu.append(sum(outer[m][k]["fit_cpu"] + outer[m][k]["predict_cpu"] for m in members))
            else:
                proba, pred, classes = stack_fold(outer, inner, members, k, y[train])
                cpu.append(sum(outer[m][k]["fit_cpu"] + outer[m][k]["predict_cpu"] + inner[m][k]["cpu"]
                               for m in members))
        a, u = _fold_scores(y[test], pred, proba, classes)
        acc.append(a)
        auc.append(u)
    return np.array(acc), np.array(auc), np.array(cpu)


def _cell(values):
    v = 100 * np.asarray(values)
    return f"{v.mean():.1f} [{v.min():.1f}-{v.max():.1f}]" if len(v) > 1 else f"{v.mean():.1f}"


def table(cache, datasets, seeds, rules, members):
    """The rows: per set accuracy (AUC), then the five-set mean, each over the seeds with its range."""
    def available(name, seed, ms, kind):
        return all(os.path.exists(_path(cache, name, seed, m, kind)) for m in ms)

    rows = [(m, None) for m in members] + [(None, r) for r in rules]
    print(f"seeds {', '.join(map(str, seeds))}; accuracy % [range of the seed means] (AUC %); CPU s per fold "
          f"(sum of the members' fit + predict, the stack's inner CV included)")
    for member, rule in rows:
        needed = (member,) if member else RULES[rule][1]
        stack = rule is not None and RULES[rule][0] == "stack"
        per_set_acc, per_set_auc, per_set_cpu, cells = {}, {}, {}, []
        for name in datasets:
            sa, su, sc = [], [], []
            for seed in seeds:
                if not available(name, seed, needed, "outer") or (stack and not available(name, seed, needed, "inner")):
                    continue
                outer = {m: _load(cache, name, seed, m, "outer") for m in needed}
                inner = {m: _load(cache, name, seed, m, "inner") for m in needed} if stack else None
                a, u, c = scores(cache, name, seed, rule=rule, member=member, outer=outer, inner=inner)
                sa.append(a.mean())
                su.append(np.nanmean(u))
                sc.append(c.mean())
            if len(sa) == len(seeds):
                per_set_acc[name], per_set_auc[name], per_set_cpu[name] = np.array(sa), np.array(su), np.mean(sc)
                cells.append(f"{_cell(sa)} ({_cell(su)})")
            else:
                cells.append("-" if not sa else f"({len(sa)} seeds)")
        label = member or rule
        if len(per_set_acc) == len(datasets):
            five = np.mean([per_set_acc[n] for n in datasets], axis=0)
            five_auc = np.mean([per_set_auc[n] for n in datasets], axis=0)
            mean = f"{_cell(five)} ({_cell(five_auc)})"
        else:
            mean = "-"
        cpu = " / ".join(f"{per_set_cpu[n]:.1f}" if n in per_set_cpu else "-" for n in datasets)
        print(f"{label:18s} | " + " | ".join(cells) + f" | {mean} | cpu {cpu}", flush=True)


def _list(text, allowed=None):
    items = tuple(t for t in text.split(",") if t)
    if allowed is not None:
        bad = [t for t in items if t not in allowed]
        if bad:
            raise SystemExit(f"unknown: {', '.join(bad)}; choose from {', '.join(allowed)}")
    return items


#: The subset of folds on which ``check`` refits the ensembles from scratch.
CHECK_CASES = (
    ("musk1", 0, (0, 1, 17), "vote-families"),
    ("elephant", 1, (0, 33), "vote-families"),
    ("fox", 2, (5,), "vote-all"),
    ("musk1", 0, (0, 17), "stack-families"),
    ("tiger", 0, (3,), "stack-families"),
)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for cmd in ("fit", "check", "table"):
        p = sub.add_parser(cmd)
        p.add_argument("--cache", required=True, help="directory of the members' fold outputs")
        if cmd != "check":
            p.add_argument("--data", default=",".join(DATASETS))
            p.add_argument("--seeds", default=",".join(map(str, SEEDS)))
            p.add_argument("--members", default=",".join(CANDIDATES))
        if cmd == "fit":
            p.add_argument("--inner", action="store_true", help="the stack's inner out-of-fold probabilities")
            p.add_argument("--jobs", type=int, default=1, help="worker processes over the folds")
        if cmd == "table":
            p.add_argument("--rules", default=",".join(RULES))
    args = parser.parse_args(argv)
    if args.command == "check":
        return check(args.cache, CHECK_CASES)
    datasets = _list(args.data, DATASETS)
    seeds = tuple(int(s) for s in _list(args.seeds))
    members = _list(args.members, CANDIDATES)
    if args.command == "fit":
        fit(args.cache, datasets, seeds, members, args.inner, args.jobs)
    else:
        table(args.cache, datasets, seeds, _list(args.rules, RULES), members)
    return 0


if __name__ == "__main__":
    sys.exit(main())
