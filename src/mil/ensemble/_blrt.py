"""Bag-level randomized trees (BLRT): extremely randomised trees whose rules read whole bags.

Komarek and Somol, "Multiple instance learning with bag-level randomized
trees" (ECML PKDD 2018). A node's rule (f, theta, r) sends a bag to the left
child when the share of its instances with x_f <= theta exceeds r; with r
near 0 it is the multi-instance rule "some instance has x_f <= theta", near 1
"every instance has". Trees are grown as extremely randomised trees (Geurts,
Ernst and Wehenkel, 2006) on bags: at each node, for each of `max_features`
features drawn without replacement, `n_rules` candidate rules with theta
uniform over the range of the node's values of f and r uniform in [0, 1),
scored by the bag-level entropy of the children; the best one is kept. Leaves
hold the bag-weighted class frequencies and the forest averages its trees.

The trees and their grower are :mod:`mil.tree`'s bag-ratio trees
(:class:`~mil.tree.BagRatioTree`), which GDBT-MI also boosts.
"""

from numbers import Integral

import numpy as np
from joblib import Parallel, delayed
from sklearn.utils._param_validation import Interval, StrOptions

from sklearn.metrics import r2_score
from sklearn.utils.validation import check_is_fitted

from mil.base import BaseBagClassifier, BaseBagRegressor, keep_params
from mil.ensemble._bagging import BAGGING_CONSTRAINTS, BaggedTreesMixin, SampledTreesMixin, mean_tree_output
from mil.ensemble._docs import regression_example
from mil.tree._bag_ratio import (BagRatioTree, bag_table, grow_bag_ratio_regression_tree, grow_bag_ratio_tree,
                                 share_table)
from mil.tree._classes import resolve_max_features
from mil.tree._export import TreeExportMixin, boosting_tree_printout, class_tree_printout, ensemble_member
from mil.utils._docstrings import fill_doc, register

__all__ = ["BagRandomTreesClassifier", "BagRandomTreesRegressor", "BagRatioTree"]


register("blrt training bags", """    Parameters
    ----------
    X : sequence of 2-D arrays or Bags
        Training bags; NaN marks a missing value (never <= a threshold).
""")
register("blrt tree size", """    max_depth : int or None, default=None
        Depth limit of each tree (the root has depth 0); None grows every
        tree until its nodes are pure or too small.
    min_bags_leaf : int, default=1
        Bags each child of a rule needs.
""")
register("blrt seeding", """    random_state : int, RandomState or None, default=None
        Seeds the trees (one seed per tree, drawn in tree order, so `n_jobs`
        never changes the forest).
    n_jobs : int or None, default=None
        Trees grown and applied in this many threads (the kernels release
        the GIL). None is 1, -1 one per core.
""")
register("blrt references", """    T. Komarek and P. Somol, "Multiple instance learning with bag-level
    randomized trees", Machine Learning and Knowledge Discovery in Databases
    (ECML PKDD 2018).
    P. Geurts, D. Ernst and L. Wehenkel, "Extremely randomized trees",
    Machine Learning 63(1), 2006.
""")


class BagRatioGrowthMixin:
    """The growing of a BLRT forest, for the classifier and the regressor (not for direct use)."""

    def _accepts_float32(self):
        # float32 bags are read as they are: the trees' feature-major float64 table is filled a
        # block at a time (:func:`mil.tree._bag_ratio.share_table`), without a float64 copy first.
        return True

    def _grow_trees(self, grow_tree, bags, weight, y, *targets):
        """Grow the trees on their samples; set ``estimators_``, the importances and the out-of-bag attributes.

        ``grow_tree(table, y, *targets, tree_weight, seed, n_features, n_rules,
        best_ratio, min_bags_leaf, max_depth)`` grows one tree; `weight` are
        the bag weights (all ones when unweighted).
        """
        d = bags.n_features
        n_feat = resolve_max_features(self.max_features, d) or d
        seeds, counts = self._draw_samples(bags.n_bags)
        table = share_table(bags)
        best_ratio = self.ratio == "best"
        self.estimators_ = Parallel(n_jobs=self.n_jobs, prefer="threads")(
            delayed(grow_tree)(table, y, *targets, weight if c is None else c * weight, int(seed), n_feat,
                               self.n_rules, best_ratio, self.min_bags_leaf, self.max_depth)
            for seed, c in zip(seeds, counts))
        self.feature_importances_ = self._mean_importances([tree.feature_importances(d)
                                                            for tree in self.estimators_])
        if self.oob_score:
            self._set_oob(bags, y, counts, weight)
        else:
            self._clear_oob()
        return self

    def _oob_sums(self, bags, counts, weight, shape):
        """Per bag, the summed outputs of the trees that left it out and their count; the bags any tree left out.

        Returns
        -------
        total : ndarray of shape `shape`
        seen : ndarray of intp of shape (n_bags,)
        ok : ndarray of intp
            The bags some tree left out.
        """
        total, seen = np.zeros(shape), np.zeros(bags.n_bags, dtype=np.intp)
        for tree, c in zip(self.estimators_, counts):
            out = np.flatnonzero(c * weight == 0)  # bags that did not shape this tree
            if out.size:
                total[out] += tree.predict_proba(*bag_table(bags.subset(out)))
                seen[out] += 1
        return total, seen, np.flatnonzero(seen > 0)


@fill_doc
class BagRandomTreesClassifier(BagRatioGrowthMixin, TreeExportMixin, BaggedTreesMixin, BaseBagClassifier):
    """Bag-level randomized trees (BLRT): a forest of extremely randomised bag-ratio trees.

    Each node sends a bag left when the share of its instances with
    x_f <= theta exceeds r (:class:`BagRatioTree`). The candidate rules of
    a node: `max_features` features drawn without replacement, and for each
    `n_rules` thresholds theta = lo + u (hi - lo), u uniform in [0, 1) and
    [lo, hi) the range of the node's (non-missing) values of the feature (a
    feature constant in the node gives no rule), each with a ratio r uniform
    in [0, 1) (``ratio="random"``) or the best cut of the bags' shares
    (``ratio="best"``, r midway between two consecutive distinct shares).
    The rule of least bag-weighted entropy of the children (base 2) wins,
    among those leaving at least `min_bags_leaf` bags on each side (first
    drawn on ties). A node becomes a leaf when it is pure, holds fewer than
    ``2 * min_bags_leaf`` bags, reaches `max_depth` or has no admissible
    rule. A leaf holds the (weighted) class frequencies of its bags; the
    forest's probabilities are the mean of its trees'. The defaults are the
    paper's (and its reference code's): 100 trees, sqrt(d) features, 16
    rules per feature, random ratios, no bootstrap, fully grown trees.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    max_features : int, float, {"sqrt", "log2"} or None, default="sqrt"
        Features searched at each node: ``int(sqrt(d))`` for "sqrt" (the
        reference code rounds instead: 13 rather than 12 on the 166 Musk
        features), ``int(log2(d))``, an int, a fraction of d, or all (None).
    n_rules : int, default=16
        Candidate thresholds (rules) per searched feature.
    ratio : {"random", "best"}, default="random"
        How each candidate's r is chosen: uniformly at random (the paper),
        or as the cut of the bags' shares of least entropy
        (:doc:`/results/trees` compares the two).
    bootstrap : bool, default=False
        Grow each tree on a bootstrap sample of the bags (a bag drawn k times
        weighs k times); the paper grows every tree on all bags.
    max_samples : int, float or None, default=None
        Bags drawn per tree with `bootstrap` (None: as many as there are).
    oob_score : bool, default=False
        With `bootstrap`: score each bag with the trees whose sample left it
        out; ``oob_score_`` is their accuracy (weighted by the bag weights).
    [blrt tree size]
    class_weight : "balanced", dict or None, default=None
        Weights of the classes, multiplying ``sample_weight``.
    [blrt seeding]

    Attributes
    ----------
    estimators_ : list of BagRatioTree
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_importances_ : ndarray of shape (n_features,)
        Mean over the trees of their normalised entropy decrease (times the
        node's bag weight) summed per feature.
    estimators_samples_ : list of ndarray
        Per tree, the indices of its bags (with repeats under `bootstrap`).
    oob_score_ : float
        Out-of-bag accuracy (with `oob_score`).
    oob_decision_function_ : ndarray of shape (n_bags, n_classes)
        Out-of-bag class probabilities (NaN for a bag in every sample).

    See Also
    --------
    mil.ensemble.MIRandomForestClassifier : Bootstrapped MI trees whose rules read single instances.
    mil.ensemble.GDBTMIClassifier : Gradient boosting of MI trees, or of these bag-ratio trees.

    References
    ----------
    [blrt references]

    Examples
    --------
    >>> from mil.ensemble import BagRandomTreesClassifier
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=40)
    >>> blrt = BagRandomTreesClassifier(n_estimators=20, ratio="best", random_state=0).fit(X, y)
    >>> blrt.score(X, y) > 0.9
    True
    >>> print(blrt.export_text(0, max_lines=3))  # doctest: +ELLIPSIS
    tree 0 of 20 (estimators_[0])
    |--- share of instances with x... <= ... >  ...
    |   |--- ...
    ... (... more lines; max_lines=3)
    """

    _allow_nan = True
    _binary_only = False

    _parameter_constraints = {
        **BAGGING_CONSTRAINTS,
        "n_rules": [Interval(Integral, 1, None, closed="left")],
        "ratio": [StrOptions({"random", "best"})],
    }

    def __init__(self, n_estimators=100, *, max_features="sqrt", n_rules=16, ratio="random", bootstrap=False,
                 max_samples=None, oob_score=False, max_depth=None, min_bags_leaf=1, class_weight=None,
                 random_state=None, n_jobs=None):
        keep_params(self, locals())

    def _positive_class_matters(self):
        # Both classes play the same role: any two labels are accepted.
        return False

    def fit(self, X, y, sample_weight=None):
        """Grow the trees.

        [blrt training bags]
        y : array-like of shape (n_bags,)
            Two classes or more (any labels: both play the same role).
        sample_weight : array-like of shape (n_bags,), default=None
            One weight per bag (times `class_weight`), in the entropies and
            the leaf frequencies; a zero weight leaves the bag out.

        Returns
        -------
        self : BagRandomTreesClassifier
            The fitted forest.
        """
        bags, y_enc = self._validate_fit(X, y)
        weight = self._bag_weights(sample_weight, y, bags.n_bags)
        weight = np.ones(bags.n_bags) if weight is None else np.asarray(weight, dtype=np.float64)
        if not (weight > 0).any():
            raise ValueError("sample_weight (times class_weight) is zero for every bag")
        return self._grow_trees(grow_bag_ratio_tree, bags, weight, y_enc, len(self.classes_))

    def _set_oob(self, bags, y_enc, counts, weight):
        total, seen, ok = self._oob_sums(bags, counts, weight, (bags.n_bags, len(self.classes_)))
        oob = None
        if ok.size and weight[ok].sum() > 0:
            oob = np.full_like(total, np.nan)
            oob[ok] = total[ok] / seen[ok, None]
        self._set_oob_attributes(oob, ok, y_enc, weight)

    def _mean_proba(self, bags):
        """The mean of the trees' leaf class frequencies."""
        instances, offsets = bag_table(bags)
        return mean_tree_output(lambda tree: tree.predict_proba(instances, offsets), self.estimators_, self.n_jobs)

    _default_print_index = 0

    def _tree_to_print(self, index):
        k, _ = ensemble_member(self, index, "tree", "tree", per_class=False)
        return class_tree_printout(self.estimators_[k], self.classes_, owner=self,
                                   header=f"tree {k} of {len(self.estimators_)} (estimators_[{k}])")


@fill_doc(examples=regression_example(30))
class BagRandomTreesRegressor(BagRatioGrowthMixin, TreeExportMixin, SampledTreesMixin, BaseBagRegressor):
    """Bag-level randomized trees for real-valued bag labels: extremely randomised bag-ratio regression trees.

    The trees of :class:`BagRandomTreesClassifier` (a node sends a bag left
    when the share of its instances with x_f <= theta exceeds r, the
    candidates drawn the same way), with the rule chosen by variance
    reduction, as Geurts, Ernst and Wehenkel's extremely randomised
    regression trees: among the candidates leaving at least `min_bags_leaf`
    bags on each side, the one of least weighted sum of squared deviations
    of the children's bag labels from their means (first drawn on ties). A
    node becomes a leaf when its labels are all equal, it holds fewer than
    ``2 * min_bags_leaf`` bags, reaches `max_depth` or has no admissible
    rule; a leaf predicts the weighted mean label of its bags, and the
    forest the mean of its trees' predictions. The rule search is the
    compiled kernel of the classifier, with the squared deviations in place
    of the entropy.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of trees.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Features searched at each node: an int (at most the number of
        features), a fraction, ``int(sqrt(d))``, ``int(log2(d))``, or all
        (None: the regression default of Geurts et al.).
    n_rules : int, default=16
        Candidate thresholds (rules) per searched feature.
    ratio : {"random", "best"}, default="best"
        How each candidate's r is chosen: uniformly at random, or as the cut
        of the bags' shares of least squared deviation.
    bootstrap : bool, default=False
        Grow each tree on a bootstrap sample of the bags (a bag drawn k times
        weighs k times).
    max_samples : int, float or None, default=None
        Bags drawn per tree with `bootstrap` (None: as many as there are).
    oob_score : bool, default=False
        With `bootstrap`: predict each bag with the trees whose sample left
        it out; ``oob_score_`` is their R^2 (weighted by the bag weights).
    [blrt tree size]
    [blrt seeding]

    Attributes
    ----------
    estimators_ : list of BagRatioTree
        The trees; ``value`` holds each node's weighted mean label.
    n_features_in_ : int
        Number of features of the training instances.
    feature_importances_ : ndarray of shape (n_features,)
        Mean over the trees of their normalised decrease of squared
        deviations summed per feature.
    estimators_samples_ : list of ndarray
        Per tree, the indices of its bags (with repeats under `bootstrap`).
    oob_score_ : float
        Out-of-bag R^2 (with `oob_score`).
    oob_prediction_ : ndarray of shape (n_bags,)
        Out-of-bag predictions (NaN for a bag in every sample).

    See Also
    --------
    BagRandomTreesClassifier : The same trees for class labels.
    mil.ensemble.GDBTMIRegressor : Gradient boosting of multi-instance trees on a regression loss.

    References
    ----------
    [blrt references]
    L. Breiman, J. Friedman, R. Olshen and C. Stone, *Classification and
    Regression Trees*, Wadsworth, 1984.

    [examples]
    """

    _allow_nan = True

    _parameter_constraints = {
        **{k: v for k, v in BAGGING_CONSTRAINTS.items() if k != "class_weight"},
        "n_rules": [Interval(Integral, 1, None, closed="left")],
        "ratio": [StrOptions({"random", "best"})],
    }

    def __init__(self, n_estimators=100, *, max_features=None, n_rules=16, ratio="best", bootstrap=False,
                 max_samples=None, oob_score=False, max_depth=None, min_bags_leaf=1, random_state=None,
                 n_jobs=None):
        keep_params(self, locals())

    def fit(self, X, y, sample_weight=None):
        """Grow the trees.

        [blrt training bags]
        y : array-like of shape (n_bags,)
            One finite real label per bag.
        sample_weight : array-like of shape (n_bags,), default=None
            One weight per bag, in the squared deviations and the leaf means;
            a zero weight leaves the bag out.

        Returns
        -------
        self : BagRandomTreesRegressor
            The fitted forest.
        """
        bags, y, weight = self._validate_weighted_fit(X, y, sample_weight)
        weight = np.ones(bags.n_bags) if weight is None else weight
        return self._grow_trees(grow_bag_ratio_regression_tree, bags, weight, y)

    def _set_oob(self, bags, y, counts, weight):
        total, seen, ok = self._oob_sums(bags, counts, weight, bags.n_bags)
        if not ok.size:
            raise ValueError("no bag was left out of every bootstrap sample: oob_score needs more bags or fewer "
                             "trees")
        self.oob_prediction_ = np.full(bags.n_bags, np.nan)
        self.oob_prediction_[ok] = total[ok] / seen[ok]
        self.oob_score_ = float(r2_score(y[ok], self.oob_prediction_[ok], sample_weight=weight[ok]))

    def predict(self, X):
        """Predict each bag's label: the mean of the trees' leaf means.

        [predicted values]
        """
        check_is_fitted(self, "estimators_")
        instances, offsets = bag_table(self._validate_predict(X))
        return mean_tree_output(lambda tree: tree.predict_proba(instances, offsets), self.estimators_, self.n_jobs)

    _default_print_index = 0

    def _tree_to_print(self, index):
        k, _ = ensemble_member(self, index, "tree", "tree", per_class=False)
        return boosting_tree_printout(self.estimators_[k], "n", "n", owner=self,
                                      header=f"tree {k} of {len(self.estimators_)} (estimators_[{k}])")
