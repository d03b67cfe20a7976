"""Weka's J48 on SimpleMI's bag summaries, fold by fold, next to mil's trees on the same rows.

Writes each training and test fold of the per-bag summaries (``bag_summaries``,
the rows SimpleMIClassifier fits on; ``mean`` is Weka's SimpleMI -M 1) as a
plain ARFF file, runs ``weka.classifiers.trees.J48`` on it (a Java process per
fold; Weka's multi-instance package is not needed), and prints the bag
accuracy (percent, mean over the folds) and out-of-fold log loss of J48 and of
SimpleMIClassifier with C4.5-MI (its default) and scikit-learn's entropy tree
on the same published folds.

Usage: python benchmarks/studies/study_weka_simplemi.py --weka-jar PATH/weka.jar
       [--datasets musk1 ...] [--repeats 1] [--summary mean] [--j48 "-C 0.25 -M 2"]
"""

import argparse
import os
import shlex
import sys
import tempfile
from pathlib import Path

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from mil.datasets import load_dataset
from mil.wrappers import SimpleMIClassifier, bag_summaries
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for the shared _data.py
from _data import log_loss  # noqa: E402
from _weka import j48_proba, write_arff  # noqa: E402

DATASETS = ["musk1", "musk2", "elephant", "fox", "tiger"]


def run(name, repeats, summary, jar, options, tmp):
    data = load_dataset(name)
    Z, y = bag_summaries(data.bags, summary), data.target
    mil_learners = {
        "SimpleMI + C4.5-MI (default)": lambda: SimpleMIClassifier(summary=summary),
        "SimpleMI + sklearn entropy tree": lambda: SimpleMIClassifier(
            DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2, random_state=0), summary=summary),
    }
    acc = {key: [] for key in ["Weka J48", *mil_learners]}
    loss = {key: [] for key in acc}
    for r in range(repeats):
        p = {key: np.empty(y.size) for key in acc}
        fold_acc = {key: [] for key in acc}
        for k in np.unique(data.folds[r]):
            test = data.folds[r] == k
            train_path, test_path = os.path.join(tmp, "train.arff"), os.path.join(tmp, "test.arff")
            write_arff(train_path, Z[~test], y[~test])
            write_arff(test_path, Z[test], y[test])
            p["Weka J48"][test] = j48_proba(jar, options, train_path, test_path)[:, 1]
            for key, make in mil_learners.items():
                clf = make().fit(data.bags[~test], y[~test])
                p[key][test] = clf.predict_proba(data.bags[test])[:, 1]
            for key in acc:
                fold_acc[key].append(np.mean((p[key][test] > 0.5) == (y[test] == 1)))
        for key in acc:
            acc[key].append(100 * np.mean(fold_acc[key]))
            loss[key].append(log_loss(y, p[key]))
    return acc, loss


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weka-jar", required=True)
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--summary", default="mean")
    parser.add_argument("--j48", default="-C 0.25 -M 2", help="J48 options (default: Weka's)")
    args = parser.parse_args()
    print(f"summary={args.summary}, J48 {args.j48}, repetitions 0..{args.repeats - 1}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.datasets:
            acc, loss = run(name, args.repeats, args.summary, args.weka_jar, shlex.split(args.j48), tmp)
            for key in acc:
                print(f"{name:9s} {key:32s} acc {np.mean(acc[key]):5.1f}  "
                      f"reps [{' '.join(f'{a:.1f}' for a in acc[key])}]  logloss {np.mean(loss[key]):.3f}",
                      flush=True)


if __name__ == "__main__":
    main()
