"""MI random forest whose trees each see a rotated feature space (Rotation Forest), 5 x 10-fold CV.

An exploratory benchmark, not an estimator option: Rotation Forest
(Rodriguez, Kuncheva and Alonso, "Rotation forest: a new classifier ensemble
method", IEEE TPAMI 28(10), 2006) carried to the MI forest. Every tree draws
its own rotation from the instances of its bootstrap bags: the features are
split at random into groups of ``--group``, and each group is replaced by its
principal axes, computed on a 75 % bootstrap sample of those instances.
``--keep`` appends the rotated features to the
original ones instead of replacing them. The tree is then the default
forest's tree (same bootstrap sample, same seed, ``max_features="sqrt"`` of
the features it sees), and the forest's out-of-bag sharpness and bag
average are unchanged. ``--plain`` runs the default forest itself.

Usage:
    python benchmarks/forest_rotation.py [--keep | --plain] [--group 3] [--datasets musk1 musk2] [--seed 0]
"""

import argparse
import time

import numpy as np
from joblib import Parallel, delayed
from sklearn.utils.validation import check_random_state

from mil.bags import Bags
from mil.datasets import load_dataset
from mil.evaluation import evaluate, table_splits
from mil.ensemble import MIRandomForestClassifier
from mil.ensemble._forest import _MAX_INT, _bootstrap_counts, _grow_one
from mil.tree._builder import _Presorted

DATASETS = ["musk1", "musk2", "elephant", "fox", "tiger"]


def draw_rotation(rng, X, group):
    """A (d, d) block rotation: the principal axes of `X` on random groups of `group` features."""
    d = X.shape[1]
    R = np.zeros((d, d))
    perm = rng.permutation(d)
    for start in range(0, d, group):
        idx = perm[start:start + group]
        rows = rng.randint(0, X.shape[0], size=max(2, int(0.75 * X.shape[0])))
        Z = X[np.ix_(rows, idx)]
        Z = Z - Z.mean(axis=0)
        R[np.ix_(idx, idx)] = np.linalg.eigh(Z.T @ Z / max(1, Z.shape[0] - 1))[1]
    return R


def rotated(bags, R):
    return Bags._trusted(np.ascontiguousarray(bags.instances @ R), bags.offsets, bags.ids)


class RotationMIForest(MIRandomForestClassifier):
    """The default forest, each tree grown and applied in its own rotated feature space (bootstrap only)."""

    def __init__(self, n_estimators=100, *, group=3, keep=False, random_state=None):
        super().__init__(n_estimators, random_state=random_state)
        self.group = group
        self.keep = keep

    def fit(self, X, y, sample_weight=None):
        bags, y_enc = self._validate_fit(X, y)
        weight = self._bag_weights(sample_weight, y, bags.n_bags)
        n_bags = bags.n_bags
        seeds = check_random_state(self.random_state).randint(_MAX_INT, size=self.n_estimators)
        counts = [_bootstrap_counts(seed, n_bags, n_bags) for seed in seeds]
        template = self._template()

        def grow(seed, c):
            in_sample = np.repeat(c > 0, np.diff(bags.offsets))
            X_in = np.nan_to_num(bags.instances[in_sample])
            # A random stream apart from the one the tree draws its feature subsets from.
            R = draw_rotation(np.random.RandomState(seed ^ 0x5EED), X_in, self.group)
            if self.keep:
                R = np.hstack([np.eye(bags.n_features), R])
            rb = rotated(bags, R)
            tree = _grow_one(template, int(seed), rb, y_enc, self.classes_,
                             _Presorted(rb.instances, rb.instance_bag), c, weight)
            tree.rotation_ = R
            return tree

        self.estimators_ = Parallel(n_jobs=self.n_jobs, prefer="threads")(
            delayed(grow)(int(s), c) for s, c in zip(seeds, counts))
        self.estimators_samples_ = [np.repeat(np.arange(n_bags), c) for c in counts]
        self.sharpness_ = self._choose_sharpness(bags, y_enc, counts, weight)
        return self

    def _tree_outputs(self, tree, bags, sharpnesses):
        return super()._tree_outputs(tree, rotated(bags, tree.rotation_), sharpnesses)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plain", action="store_true", help="the default forest, no rotation")
    parser.add_argument("--group", type=int, default=3, help="features per PCA group")
    parser.add_argument("--keep", action="store_true", help="append the rotated features to the original ones")
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    means = []
    for name in args.datasets:
        data = load_dataset(name, as_bags=True)
        bags, y = data.bags, np.asarray(data.target)
        accs = []
        forest = (MIRandomForestClassifier(random_state=args.seed) if args.plain else
                  RotationMIForest(group=args.group, keep=args.keep, random_state=args.seed))
        for rep in range(args.repeats):
            t0 = time.perf_counter()
            folds = evaluate(forest, bags, y, table_splits(data.folds[rep]))
            accs.append(100.0 * folds["accuracy"].mean())  # the mean of the fold accuracies, as the results pages
            print(f"{name:9s} rep {rep}: {accs[-1]:5.1f}  ({time.perf_counter() - t0:.0f} s)", flush=True)
        means.append(np.mean(accs))
        print(f"{name:9s} {args.repeats} x 10: {means[-1]:.2f} (rep 0: {accs[0]:.1f})", flush=True)
    print(f"{'plain' if args.plain else f'rotation group={args.group} keep={args.keep}'} seed={args.seed}: "
          f"mean of the sets {np.mean(means):.2f}")


if __name__ == "__main__":
    main()
