"""RIPPER-MI accuracy of docs/results/rules.rst: the five MI sets, one-instance sets, the 3-class task.

Three kinds of cross-validation, each variant given as JSON keyword arguments
of ``RipperMIClassifier`` (``random_state=0`` unless the variant sets it):

``mi``
    The five shipped multi-instance sets, the published folds (10-fold,
    repetitions given by ``--reps``). Prints, per set and variant, the
    accuracy of each repetition (pooled over its ten test folds), their mean,
    the out-of-fold log loss (mean over repetitions), and the mean number of
    rules and conditions per fitted model.
``single``
    One-instance bags of scikit-learn data (iris, wine, digits; binary:
    breast cancer, wine class 0 vs rest, digits 3 vs 8, iris versicolor vs
    rest), 10 stratified folds, ``StratifiedKFold(10, shuffle=True,
    random_state=0)``.
``dl``
    The description-length diagnosis: binary RIPPER (rules for the positive
    class, Cohen's estimates) fitted on all of a shipped set, once on the
    bags (bag coverage) and once on the instances with their bag's label:
    the number of possible conditions, the bits of a rule with 1, 2, 3
    conditions, the rules kept and their coverage.
``three``
    The 3-class multi-instance task of ``mil.reproduce.three_class_task``
    (positive bags of Elephant, Fox and Tiger), registry learners
    (``{"learner": "citation-knn"}``; other keys are parameters).

    python benchmarks/reproduce_rules.py mi --sets musk1,fox --reps 0,1,2,3,4 '{}' '{"assumption": "standard"}'
    python benchmarks/reproduce_rules.py single --sets iris,wine,digits '{}' '{"rule_order": "ordered"}'
    python benchmarks/reproduce_rules.py dl --sets musk1,fox '{}'
    python benchmarks/reproduce_rules.py three --reps 5 '{"learner": "ripper-mi"}' '{"learner": "citation-knn"}'
"""

import argparse
import json
import time

import numpy as np

from mil import Bags, RipperMIClassifier

MI_SETS = ("musk1", "musk2", "elephant", "fox", "tiger")
SINGLE_SETS = ("iris", "wine", "digits", "cancer", "wine0", "digits38", "iris1")


def single_data(name):
    from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine

    if name in ("iris", "wine", "digits"):
        return {"iris": load_iris, "wine": load_wine, "digits": load_digits}[name](return_X_y=True)
    if name == "cancer":
        return load_breast_cancer(return_X_y=True)
    if name == "wine0":
        X, y = load_wine(return_X_y=True)
        return X, (y == 0).astype(int)
    if name == "digits38":
        X, y = load_digits(return_X_y=True)
        keep = (y == 3) | (y == 8)
        return X[keep], (y[keep] == 8).astype(int)
    if name == "iris1":
        X, y = load_iris(return_X_y=True)
        return X, (y == 1).astype(int)
    raise ValueError(f"unknown data set {name!r}; choose from {', '.join(SINGLE_SETS)}")


def run_mi(sets, reps, variants):
    from mil.datasets import load_dataset

    for name in sets:
        data = load_dataset(name)
        bags, y = data.bags, np.asarray(data.target)
        for spec in variants:
            params = json.loads(spec)
            accs, losses, n_rules, n_conds = [], [], [], []
            t0 = time.perf_counter()
            for r in reps:
                correct = np.zeros(len(y))
                loss = np.zeros(len(y))
                for k in range(10):
                    test = np.flatnonzero(data.folds[r] == k)
                    train = np.flatnonzero(data.folds[r] != k)
                    clf = RipperMIClassifier(**{"random_state": 0, **params}).fit(bags.subset(train), y[train])
                    held = bags.subset(test)
                    proba = np.clip(clf.predict_proba(held)[:, 1], 1e-15, 1 - 1e-15)
                    correct[test] = clf.predict(held) == y[test]
                    loss[test] = -np.where(y[test] == 1, np.log(proba), np.log(1 - proba))
                    n_rules.append(len(clf.rules_))
                    n_conds.append(sum(len(rule) for rule in clf.rules_))
                accs.append(correct.mean())
                losses.append(loss.mean())
            print(json.dumps(dict(set=name, params=params, acc=[round(100 * a, 1) for a in accs],
                                  mean=round(100 * float(np.mean(accs)), 1),
                                  logloss=round(float(np.mean(losses)), 3),
                                  rules=round(float(np.mean(n_rules)), 1),
                                  conds=round(float(np.mean(n_conds)), 1),
                                  sec=round(time.perf_counter() - t0, 1))), flush=True)


def run_single(sets, variants):
    from sklearn.model_selection import StratifiedKFold

    for spec in variants:
        params = json.loads(spec)
        for name in sets:
            X, y = single_data(name)
            bags = Bags.from_instances(X, np.arange(len(X)))
            correct = np.zeros(len(y))
            n_rules = []
            for train, test in StratifiedKFold(10, shuffle=True, random_state=0).split(X, y):
                clf = RipperMIClassifier(**{"random_state": 0, **params}).fit(bags.subset(train), y[train])
                correct[test] = clf.predict(bags.subset(test)) == y[test]
                n_rules.append(len(clf.rules_))
            print(json.dumps(dict(set=name, params=params, acc=round(100 * correct.mean(), 1),
                                  rules=round(float(np.mean(n_rules)), 1))), flush=True)


def run_dl(sets, variants):
    from sklearn.utils import check_random_state

    from mil.datasets import load_dataset
    from mil.rules._mdl import theory_dl
    from mil.rules._ripper import _Ripper

    for spec in variants:
        params = {"smoothing": False, "error_check": "prune", **json.loads(spec)}
        for name in sets:
            data = load_dataset(name)
            bags, y = data.bags, np.asarray(data.target)
            instances = Bags.from_instances(bags.instances, np.arange(bags.n_instances))
            for label, units, pos in (("bags", bags, y == 1),
                                      ("instances", instances, y[bags.instance_bag] == 1)):
                learner = _Ripper(RipperMIClassifier(**{"random_state": 0, **params}), units, pos,
                                  check_random_state(0))
                rules = learner.run()
                cov = learner.covered_by(rules)
                print(json.dumps(dict(
                    set=name, on=label, params=params, examples=units.n_bags,
                    possible_conditions=int(learner.n_conditions),
                    bits_1_2_3=[round(theory_dl(k, learner.n_conditions), 1) for k in (1, 2, 3)],
                    rules=len(rules), conditions=sum(map(len, rules)),
                    covered_pos=int((cov & pos).sum()), covered_neg=int((cov & ~pos).sum()),
                    pos=int(pos.sum()), neg=int((~pos).sum()))), flush=True)


def run_three(repeats, variants):
    from mil._learners import make_learner
    from mil.evaluation import evaluate
    from mil.reproduce import three_class_task

    bags, y, splits = three_class_task(repeats)
    for spec in variants:
        params = json.loads(spec)
        name = params.pop("learner")
        t0 = time.perf_counter()
        acc = np.asarray(evaluate(make_learner(name, seed=0, **params), bags, y, splits)["accuracy"])
        acc = acc.reshape(repeats, 10)   # 30 bags in every fold: fold means are pooled accuracies
        print(json.dumps(dict(learner=name, params=params,
                              acc=[round(100 * a, 1) for a in acc.mean(axis=1)],
                              mean=round(100 * float(acc.mean()), 1),
                              sec=round(time.perf_counter() - t0, 1))), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("mi", "single", "dl", "three"))
    parser.add_argument("variants", nargs="+", help="JSON keyword arguments, one per variant")
    parser.add_argument("--sets", default=None, help="comma-separated data set names")
    parser.add_argument("--reps", default="0,1,2,3,4",
                        help="mi: repetitions of the published folds; three: their number")
    args = parser.parse_args()
    if args.kind == "mi":
        sets = args.sets.split(",") if args.sets else MI_SETS
        run_mi(sets, [int(r) for r in args.reps.split(",")], args.variants)
    elif args.kind == "single":
        run_single(args.sets.split(",") if args.sets else SINGLE_SETS, args.variants)
    elif args.kind == "dl":
        run_dl(args.sets.split(",") if args.sets else MI_SETS, args.variants)
    else:
        run_three(len(args.reps.split(",")) if "," in args.reps else int(args.reps), args.variants)


if __name__ == "__main__":
    main()
