"""Weka's MIWrapper + J48 without Weka's multi-instance package, fold by fold, next to ours.

Weka's MIWrapper (``weka.classifiers.mi.MIWrapper``, not in weka.jar) fits J48
on the instances, each labelled by its bag, and combines a test bag's
instance distributions. This script does the same with plain J48:

- the training instances of each published fold go to an ARFF file with the
  instance weights of ``-A 3`` (N / (B n_b): N instances and B bags in the
  training fold, n_b instances in the bag), which J48 reads as weights;
- J48 (``--j48``, default Weka's ``-C 0.25 -M 2``) predicts every instance
  of the test bags (a Java process per fold);
- a bag's distribution is the geometric mean (``-P 2``) of its instances'
  (each clipped to [0.001, 0.999]), normalised (``-P 1``: arithmetic mean;
  ``-P 3``: the largest P(1) of the instances), as MIWrapper does.

It prints the bag accuracy (percent, mean over the folds; Weka's bag
probabilities within 1e-9 of 1/2 are ties and go to class 0, Weka's first
maximum: on Fox's repetition 0 one bag's geometric mean is 1/2 up to
rounding) and out-of-fold log loss, repetition by
repetition, of this Weka MIWrapper and of mil's ``MIWrapperClassifier`` with
``C45MIClassifier(min_bags_leaf=2, **inner)`` inside (``--inner`` KEY=VALUE
pairs; ``--no-ours`` skips it), and the share of bags where the two predict
the same class. ``--cache DIR`` keeps Weka's per-fold instance distributions
(keyed by data set, repetition, fold and J48 options). ``--snap`` first
gives every feature value within 1e-5 of the next smaller one (in sorted
order) that value's snapped value, for both learners: J48 puts no cut
between neighbours less than 1e-5 apart (its ``C45Split``), C4.5-MI cuts
between any two distinct values, so on snapped data the two see the same
cut points (a diagnosis of the remaining differences, not a protocol).

Usage: python benchmarks/studies/study_weka_miwrapper.py --weka-jar PATH/weka.jar
       [--datasets musk2 ...] [--repeats 1] [--j48 "-C 0.25 -M 2"] [--combine 2]
       [--inner pruning=True ...] [--no-ours] [--cache DIR] [--snap]
"""

import argparse
import hashlib
import os
import shlex
import sys
import tempfile
from pathlib import Path

import numpy as np

from mil import Bags
from mil.datasets import load_dataset
from mil.tree import C45MIClassifier
from mil.wrappers import GEOMETRIC_CLIP, MIWrapperClassifier
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # benchmarks/, for the shared _data.py
from _data import log_loss, parse_params  # noqa: E402
from _weka import j48_proba, write_arff  # noqa: E402

DATASETS = ["musk1", "musk2", "elephant", "fox", "tiger"]
TIE = 1e-9
COMBINE = {1: "arithmetic", 2: "geometric", 3: "max"}


def inverse2_weights(sizes):
    """MIWrapper ``-A 3``: every instance of a bag of n_b weighs N / (B n_b)."""
    sizes = np.asarray(sizes, dtype=np.float64)
    return sizes.sum() / (sizes.size * sizes)


def combine(P, offsets, method):
    """Bag distributions from instance distributions `P` (rows in bag order), Weka's ``-P``."""
    starts, sizes = offsets[:-1], np.diff(offsets)[:, None]
    if method == 1:
        out = np.add.reduceat(P, starts, axis=0) / sizes
    elif method == 2:
        logs = np.log(np.clip(P, GEOMETRIC_CLIP, 1.0 - GEOMETRIC_CLIP))
        out = np.exp(np.add.reduceat(logs, starts, axis=0) / sizes)
    else:
        top = np.maximum.reduceat(P[:, 1], starts)
        out = np.column_stack([1.0 - top, top])
    return out / out.sum(axis=1, keepdims=True)


def snap_close_values(X, gap=1e-5):
    """Each value within `gap` of its sorted predecessor takes the predecessor's (snapped) value."""
    X = np.array(X, dtype=np.float64)
    for f in range(X.shape[1]):
        order = np.argsort(X[:, f], kind="stable")
        v = X[order, f]
        # A run of values each within `gap` of the previous one takes the run's first value
        # (J48's test); NaN (sorted last) always starts a run of its own.
        starts = np.r_[True, (v[:-1] + gap < v[1:]) | np.isnan(v[1:])]
        X[order, f] = v[np.flatnonzero(starts)[np.cumsum(starts) - 1]]
    return X


def weka_fold(jar, options, train_bags, y_train, test_bags, tmp, cache=None):
    """J48's instance distributions (rows of `test_bags` in order) after MIWrapper's training."""
    path = None
    if cache:
        digest = hashlib.sha1(repr(options).encode() + train_bags.instances.tobytes()
                              + test_bags.instances.tobytes() + np.asarray(y_train).tobytes())
        path = os.path.join(cache, digest.hexdigest()[:20] + ".npy")
        if os.path.exists(path):
            return np.load(path)
    weight = inverse2_weights(train_bags.sizes)[train_bags.instance_bag]
    train_path, test_path = os.path.join(tmp, "train.arff"), os.path.join(tmp, "test.arff")
    write_arff(train_path, train_bags.instances, y_train[train_bags.instance_bag], weight)
    write_arff(test_path, test_bags.instances, np.zeros(test_bags.n_instances, dtype=int))
    P = j48_proba(jar, options, train_path, test_path)
    if P.shape[0] != test_bags.n_instances:
        raise RuntimeError(f"J48 gave {P.shape[0]} predictions for {test_bags.n_instances} instances")
    if path:
        np.save(path, P)
    return P


def run(name, args, tmp):
    data = load_dataset(name)
    bags, y = data.bags, np.asarray(data.target)
    if args.snap:
        bags = Bags.from_instances(snap_close_values(bags.instances), bags.instance_bag)
    options = shlex.split(args.j48)
    inner = parse_params(args.inner)
    keys = ["Weka MIWrapper + J48"] + ([] if args.no_ours else ["mil MIWrapper + C4.5"])
    acc = {k: [] for k in keys}
    loss = {k: [] for k in keys}
    agree = []
    for r in range(args.repeats):
        p = {k: np.empty(y.size) for k in keys}
        fold_acc = {k: [] for k in keys}
        for fold in np.unique(data.folds[r]):
            test = np.asarray(data.folds[r]) == fold
            train_bags, test_bags = bags.subset(np.flatnonzero(~test)), bags.subset(np.flatnonzero(test))
            P = weka_fold(args.weka_jar, options, train_bags, y[~test], test_bags, tmp, args.cache)
            p[keys[0]][test] = combine(P, test_bags.offsets, args.combine)[:, 1]
            if not args.no_ours:
                clf = MIWrapperClassifier(C45MIClassifier(**{"min_bags_leaf": 2, **inner}),
                                          combine=COMBINE[args.combine])
                p[keys[1]][test] = clf.fit(train_bags, y[~test]).predict_proba(test_bags)[:, 1]
            for k in keys:
                tol = TIE if k == keys[0] else 0.0
                fold_acc[k].append(np.mean((p[k][test] > 0.5 + tol) == (y[test] == 1)))
        for k in keys:
            acc[k].append(100 * np.mean(fold_acc[k]))
            loss[k].append(log_loss(y, p[k]))
        if not args.no_ours:
            agree.append(100 * np.mean((p[keys[0]] > 0.5 + TIE) == (p[keys[1]] > 0.5)))
    return acc, loss, agree


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weka-jar", required=True)
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--j48", default="-C 0.25 -M 2", help="J48 options (default: Weka's)")
    parser.add_argument("--combine", type=int, choices=[1, 2, 3], default=2, help="MIWrapper -P")
    parser.add_argument("--inner", nargs="*", default=[], help="KEY=VALUE for our inner C4.5")
    parser.add_argument("--no-ours", action="store_true")
    parser.add_argument("--cache", default=None, help="directory for Weka's fold predictions")
    parser.add_argument("--snap", action="store_true", help="merge feature values closer than J48's 1e-5 first")
    args = parser.parse_args()
    if args.cache:
        os.makedirs(args.cache, exist_ok=True)
    print(f"MIWrapper -P {args.combine} -A 3, J48 {args.j48}; ours: C45MIClassifier(min_bags_leaf=2"
          f"{''.join(', ' + i for i in args.inner)}); repetitions 0..{args.repeats - 1}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.datasets:
            acc, loss, agree = run(name, args, tmp)
            for k in acc:
                print(f"{name:9s} {k:22s} acc {np.mean(acc[k]):5.1f}  "
                      f"reps [{' '.join(f'{a:.1f}' for a in acc[k])}]  logloss {np.mean(loss[k]):.3f}",
                      flush=True)
            if agree:
                print(f"{name:9s} same prediction on {np.mean(agree):.1f} % of the bags", flush=True)


if __name__ == "__main__":
    main()
