"""Instance-level AUC of every registered learner with instance outputs, on digit bags whose witnesses are known.

Bags of scikit-learn's 8x8 digits (mil.datasets.make_digit_bags, 200 bags
of 3-7 images) under each multi-instance assumption; an instance is a
witness when it is one of the rule's target digits (a 3; a 3 or an 8 under
"several"). Each learner with instance outputs (``instance_scores``, a
score oriented towards ``classes_[1]``) is fitted in a stratified 5-fold
cross-validation of the bags; the out-of-fold instance scores of all 200
bags give one instance AUC: the probability that a witness scores above a
non-witness. Under "absence" the witnesses mark the *negative* bags, so
there the AUC is that of the negated score (a witness should score low).
The bags' own accuracy and AUC come with it. Data draw, folds and the
learner's seed are each of ``--seeds`` (default 0, 1, 2); the table gives
the mean and the range over them:

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_instance_auc.py --out instance-auc.jsonl \\
        [--learners a,b] [--assumptions presence,count] [--seeds 0,1,2]
    python benchmarks/bench_instance_auc.py --table instance-auc.jsonl
"""

import argparse
import json
import time
import warnings

import numpy as np
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold

ASSUMPTIONS = ("presence", "several", "absence", "count")


def instance_methods(est):
    return [m for m in ("instance_scores", "instance_proba") if hasattr(est, m)]


def evaluate(name, assumption, seed, folds):
    from mil._learners import SEED_PARAMS, make_learner
    from mil.datasets import make_digit_bags

    d = make_digit_bags(assumption, n_bags=200, random_state=seed)
    bags, y = d.bags, d.target
    witness = np.concatenate([np.isin(digits, d.targets) for digits in d.instance_digits]).astype(int)
    scores = np.empty(bags.n_instances)
    bag_scores = np.empty(len(y))
    bag_pred = np.empty(len(y), dtype=y.dtype)
    cv = StratifiedKFold(folds, shuffle=True, random_state=seed)
    t = time.process_time()
    method = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for train, test in cv.split(np.zeros(len(y)), y):
            est = make_learner(name, seed=seed if name in SEED_PARAMS else None)
            est.fit(bags[train], y[train])
            method = instance_methods(est)[0]
            out = np.asarray(getattr(est, method)(bags[test]), dtype=float)
            rows = np.concatenate([np.arange(bags.offsets[b], bags.offsets[b + 1]) for b in test])
            scores[rows] = out if out.ndim == 1 else out[:, 1]
            bag_pred[test] = est.predict(bags[test])
            bag_scores[test] = (est.predict_proba(bags[test])[:, 1] if hasattr(est, "predict_proba")
                                else est.decision_function(bags[test]))
    sign = -1.0 if assumption == "absence" else 1.0
    return {"learner": name, "assumption": assumption, "seed": seed, "method": method,
            "instance_auc": float(roc_auc_score(witness, sign * scores)),
            "accuracy": float(np.mean(bag_pred == y)), "auc": float(roc_auc_score(y, bag_scores)),
            "cpu": time.process_time() - t}


def table(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    learners = list(dict.fromkeys(r["learner"] for r in rows))
    assumptions = [a for a in ASSUMPTIONS if any(r["assumption"] == a for r in rows)]
    print(".. csv-table::\n   :header: learner, " + ", ".join(assumptions) + "\n")
    for name in learners:
        cells = []
        for a in assumptions:
            v = [r["instance_auc"] * 100 for r in rows if r["learner"] == name and r["assumption"] == a]
            b = [r["auc"] * 100 for r in rows if r["learner"] == name and r["assumption"] == a]
            if not v:
                cells.append("")
                continue
            spread = f" [{min(v):.1f}-{max(v):.1f}]" if len(v) > 1 else ""
            cells.append(f"{np.mean(v):.1f}{spread} ({np.mean(b):.1f})")
        print(f"   ``{name}``, " + ", ".join(cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", default=None, help="registry names (default: every one with instance outputs)")
    parser.add_argument("--assumptions", default=",".join(ASSUMPTIONS))
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--out", default="instance-auc.jsonl")
    parser.add_argument("--table", metavar="JSONL", help="print the table of a results file and exit")
    args = parser.parse_args()
    if args.table:
        table(args.table)
        return
    from mil._learners import available_learners, make_learner

    names = (args.learners.split(",") if args.learners else
             [n for n in available_learners("classification") if instance_methods(make_learner(n))])
    for name in names:
        for assumption in args.assumptions.split(","):
            for seed in (int(s) for s in args.seeds.split(",")):
                rec = evaluate(name, assumption, seed, args.folds)
                with open(args.out, "a") as fh:
                    fh.write(json.dumps(rec) + "\n")
                print(f"{name} {assumption} seed {seed}: instance AUC {rec['instance_auc']:.3f}, bag accuracy "
                      f"{rec['accuracy']:.3f} / AUC {rec['auc']:.3f} ({rec['cpu']:.1f} s CPU)", flush=True)


if __name__ == "__main__":
    main()
