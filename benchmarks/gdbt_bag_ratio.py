"""GDBT-MI with bag-ratio base trees (benchmark only): does GDBT-MI gain from BLRT's split rule?

GDBT-MI (:class:`mil.ensemble.GDBTMIClassifier`) boosts instance-level
C4.5-MI trees: each round grows a tree on the bags labelled by the sign of
their residual y_b - p_b and weighted by ``|y_b - p_b|`` (bag-level entropy,
the multi-instance "some instance" rule), then sets every leaf by a Newton
step on the bag log-loss, the gradient reaching the instances through the
pooling. The variant here keeps all of that except the base tree, which is a
bag-ratio tree (:class:`mil.ensemble.BagRatioTree`, Komarek and Somol, ECML
PKDD 2018): a node sends a bag left when the share of its instances with
x_f <= theta exceeds r, so a bag reaches exactly one leaf and the tree is a
bag-level regression tree. Concretely, per round:

* the same bag subsample (``subsample`` of the bags, without replacement),
  the same residual labels and weights
  (``GDBTMIClassifier._residual_tree_inputs``) and the same tree criterion
  (bag-weighted entropy of the residual signs), the tree grown by BLRT's own
  grower (``mil.ensemble._blrt._grow_tree`` on the compiled ``_bag_shares``
  kernel: per node ``max_features`` random features, ``n_rules`` random
  thresholds each, r random or, with ``ratio="best"``, the best cut of the
  shares), fully grown until its leaves are sign-pure or hold fewer than
  ``2 * min_bags_leaf`` bags;
* leaf values by GDBT-MI's Newton step (``newton_leaf_values`` with one
  "instance" per bag, a = 1: -G / (H + l2) of the leaf's bags);
* bag score S_b = F_0 + learning_rate * sum of the leaf values bag b reaches
  (no pooling is needed: a bag-level tree moves the whole bag's score).

GDBT-MI's defaults are kept (200 rounds, learning rate 0.1, subsample 0.5,
sqrt(d) features, l2 1.0, min_bags_leaf 2, unlimited depth); the bag-ratio
candidates are BLRT's defaults (16 rules per feature, random r). Features
are drawn per node (BLRT's grower), not per tree (GDBT-MI's default).
Nothing was tuned.

Usage: python benchmarks/gdbt_bag_ratio.py [--seeds 0 1 2] [--repeats 5] [--datasets ...]
       [--param ratio=best ...] [--json FILE]
"""

import argparse
import sys
from numbers import Integral
from pathlib import Path

import numpy as np
from scipy.special import expit, logit
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, check_random_state

from mil._core import kernel
from mil.ensemble import GDBTMIClassifier
from mil.ensemble._blrt import _MAX_INT, _grow_tree, _table
from mil.ensemble._gdbt import newton_leaf_values

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _data import parse_params  # noqa: E402
from cv_seeds import DATASETS, cv_over_seeds  # noqa: E402


class BagRatioGDBTClassifier(GDBTMIClassifier):
    """GDBT-MI whose base learners are bag-ratio trees (two classes; see the module docstring)."""

    _parameter_constraints = {
        **GDBTMIClassifier._parameter_constraints,
        "n_rules": [Interval(Integral, 1, None, closed="left")],
        "ratio": [StrOptions({"random", "best"})],
    }

    def __init__(self, *, n_estimators=200, learning_rate=0.1, max_depth=None, min_bags_leaf=2,
                 subsample=0.5, max_features="sqrt", l2_regularization=1.0, n_rules=16, ratio="random",
                 class_weight=None, positive_class=None, random_state=None):
        super().__init__(n_estimators=n_estimators, learning_rate=learning_rate, max_depth=max_depth,
                         min_bags_leaf=min_bags_leaf, subsample=subsample, max_features=max_features,
                         l2_regularization=l2_regularization, class_weight=class_weight,
                         positive_class=positive_class, random_state=random_state)
        self.n_rules = n_rules
        self.ratio = ratio

    def fit(self, X, y, sample_weight=None):
        bags, y_enc = self._validate_fit(X, y)
        if self.classes_.shape[0] != 2:
            raise ValueError("this benchmark variant handles two classes only")
        w = self._bag_weights(sample_weight, y, bags.n_bags)
        if w is not None and not (w > 0).all():
            keep = np.flatnonzero(w > 0)
            bags, y_enc, w = bags.subset(keep), y_enc[keep], w[keep]
        y01 = (y_enc == 1).astype(np.float64)
        n_bags, d = bags.n_bags, bags.n_features
        share = float(np.average(y01, weights=w))
        f0 = float(logit(np.clip(share, 1e-12, 1 - 1e-12)))  # exact: S is the bag score itself
        S = np.full(n_bags, f0)
        instances, offsets = _table(bags)
        table = kernel("_bag_shares").ShareTable(instances.T, offsets)
        rng = check_random_state(self.random_state)
        n_inbag = max(1, int(self.subsample * n_bags))
        n_feat = self._n_features_per_tree(d)
        min_bags = max(1, int(np.ceil(self.min_bags_leaf)))
        trees, values, train_score = [], [], []
        for _ in range(self.n_estimators):
            inbag = np.sort(rng.choice(n_bags, n_inbag, replace=False)) if n_inbag < n_bags \
                else np.arange(n_bags)
            p = expit(S)
            w_in = None if w is None else w[inbag]
            bag_pos, tree_w = self._residual_tree_inputs((y01 - p)[inbag], y01[inbag], w_in)
            weight = np.zeros(n_bags)
            weight[inbag] = tree_w  # bags out of the round weigh 0: the grower skips them
            label = np.zeros(n_bags, dtype=np.intp)
            label[inbag] = bag_pos
            tree = _grow_tree(table, label, 2, weight, int(rng.randint(_MAX_INT)), n_feat, self.n_rules,
                              self.ratio == "best", min_bags, self.max_depth)
            leaves = tree.apply(instances, offsets)
            grad, hess = (p - y01)[inbag], (p * (1.0 - p))[inbag]
            if w_in is not None:
                grad, hess = grad * w_in, hess * w_in
            ones = np.ones(n_inbag)
            v = newton_leaf_values(leaves[inbag], tree.node_count, np.arange(n_inbag), ones, 0 * ones,
                                   0 * ones, grad, hess, self.l2_regularization)
            S = S + self.learning_rate * v[leaves]
            trees.append(tree)
            values.append(v)
            train_score.append(float(np.average(np.logaddexp(0.0, S[inbag]) - y01[inbag] * S[inbag],
                                                weights=w_in)))
        self.init_score_ = f0
        self.estimators_, self.leaf_values_ = trees, values
        self.n_estimators_ = len(trees)
        self.train_score_ = np.array(train_score)
        return self

    def _staged_bag_scores(self, X):
        check_is_fitted(self, "estimators_")
        instances, offsets = _table(self._validate_predict(X))
        S = np.full(offsets.shape[0] - 1, self.init_score_)
        for tree, v in zip(self.estimators_, self.leaf_values_):
            S = S + self.learning_rate * v[tree.apply(instances, offsets)]
            yield S


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--datasets", nargs="+", default=DATASETS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--param", action="append")
    parser.add_argument("--json")
    args = parser.parse_args()
    params = parse_params(args.param)
    print(f"GDBT-MI with bag-ratio trees {params} seeds {args.seeds}, published repetitions "
          f"0..{args.repeats - 1} x 10 folds", flush=True)
    cv_over_seeds("gdbt-bag-ratio", lambda seed: BagRatioGDBTClassifier(random_state=seed, **params), args.seeds,
                  args.datasets, args.repeats, args.json, params)


if __name__ == "__main__":
    main()
