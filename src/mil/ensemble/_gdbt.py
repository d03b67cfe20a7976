"""GDBT-MI: gradient boosting of C4.5-MI trees on a bag-level logistic loss.

Without subsampling the model does not depend on the order of the training
bags: every sum over bags is one that the order of the bags cannot change.
The initial score and the losses sum with :func:`math.fsum` (exactly
rounded), each leaf's Newton sums add the bags' terms in fixed point (integer
sums, :func:`_leaf_sums`), and the bag weights a tree is grown on are put on
a grid fine enough for every sum of them to be exact (:func:`_exact_weights`),
so the split search, which sums them in the order it meets the bags, sees the
same numbers whatever that order.
"""

import math
from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize, minimize_scalar
from scipy.special import expit, log_softmax, logit, softmax
from sklearn.model_selection import train_test_split
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, check_random_state

from mil.base import BaseBagClassifier, InstanceOutputMixin, keep_params
from mil.utils.validation import check_bag_labels, check_bags_y, set_feature_names
from mil.ensemble._bagging import MAX_SEED
from mil.tree._pooling import POOLINGS, pool
from mil.tree._bag_ratio import BagRatioTree, bag_table, grow_bag_ratio_tree, share_table
from mil.tree._builder import build_tree, prepare_layout, resolve_splitter
from mil.tree._export import TreeExportMixin, boosting_tree_printout, ensemble_member

__all__ = ["GDBTMIClassifier"]

# The constant initial score is searched in [-bound, bound].
_INIT_BOUND = 50.0


def _mean(v, w):
    """Mean of `v`, weighted by the bag weights `w` (None: unweighted), summed exactly (in any order)."""
    return math.fsum(v) / v.shape[0] if w is None else math.fsum(w * v) / math.fsum(w)


def _exact_weights(weight):
    """`weight` (non-negative, summing to about its length) on a grid on which every sum of them is exact.

    The weights are rounded to multiples of 2**-k, with k chosen so that any
    sum of them stays below 2**(53 - k): float64 then adds them without
    rounding, so a sum does not depend on the order of its terms. A positive
    weight stays positive (at least 2**-k). The grid is at most about 1e-9
    of the mean weight for up to a million bags.
    """
    total = math.fsum(weight)
    k = 51 - max(1, math.ceil(math.log2(max(total, 1.0) + weight.shape[0])))
    grid = np.ldexp(np.rint(np.ldexp(weight, k)), -k)
    return np.where(weight > 0, np.maximum(grid, math.ldexp(1.0, -k)), 0.0)


def _leaf_sums(leaf, values, n_nodes):
    """Per leaf, the sum of `values` in fixed point: exact integer sums, so no order of the terms changes them.

    Each term is rounded to a multiple of 2**-k, k chosen so that the sum of
    all the terms' magnitudes stays below 2**61 units (about 2**-61 of the
    largest term times their number: finer than float64's own rounding of
    a sum of that many terms).
    """
    top = float(np.max(np.abs(values))) if values.size else 0.0
    if not top > 0.0:
        return np.zeros(n_nodes)
    k = 61 - math.ceil(math.log2(top * values.shape[0]))
    sums = np.zeros(n_nodes, dtype=np.int64)
    np.add.at(sums, leaf, np.rint(np.ldexp(values, k)).astype(np.int64))
    return np.ldexp(sums.astype(np.float64), -k)


def _bag_loss(S, y, w=None):
    """Mean binomial log-loss of bag scores `S` (log-odds) for 0/1 labels `y` (weights `w`)."""
    return _mean(np.logaddexp(0.0, S) - y * S, w)


def _softmax(S):
    return softmax(S, axis=1)


def _softmax_loss(S, Y, w=None):
    """Mean cross-entropy of bag scores `S` (n_bags, K) for one-hot labels `Y` (weights `w`)."""
    return -_mean(np.sum(Y * log_softmax(S, axis=1), axis=1), w)


def newton_leaf_values(leaves, n_nodes, instance_bag, a, b, k, grad_bag, hess_bag, l2):
    """Newton step of every leaf of a tree, on the bag-level loss.

    Adding v to the score of every instance in leaf l moves bag b's score by
    about v * A_bl, A_bl = sum of a_i = dS_b/df_i over b's instances in l.
    The leaf value is -G_l / (H_l + l2) with the gradient

        G_l = sum_b g_b A_bl   (= sum over the leaf's instances of dL/df_i)

    and the curvature

        H_l = sum_b [h_b A_bl^2 + |g_b| max(C_bl, 0)],

    g_b = p_b - y_b and h_b = p_b (1 - p_b) being the logistic loss's
    derivatives wrt the bag score S_b, and C_bl = B_bl - k_b A_bl^2 the
    pooling's own curvature d^2 S_b / dv^2 (B_bl the sum of `b` over b's
    instances in l; see :func:`mil.tree._pooling.pool`). The first term
    is the Gauss-Newton curvature; the second keeps the step bounded when a
    leaf holds a small share of a bag's score (a Gauss-Newton step alone
    would be about -1/A_bl there) and vanishes when the leaf holds the whole
    bag. It is counted with |g_b| so every leaf's curvature stays positive
    (for a positive bag the exact term is negative): the step is never
    longer than the Gauss-Newton one. With one-instance bags C = 0 and this
    is the Newton step of ordinary logistic boosting.

    Parameters
    ----------
    leaves : ndarray of intp, shape (n_instances,)
        Leaf of every instance.
    n_nodes : int
    instance_bag : ndarray of intp, shape (n_instances,)
    a, b : ndarray of float64, shape (n_instances,)
    k : ndarray of float64, shape (n_bags,)
        From the pooling: dS_b/df_i and the curvature terms.
    grad_bag, hess_bag : ndarray of float64, shape (n_bags,)
        g_b and h_b.
    l2 : float
        Added to the curvature.

    Returns
    -------
    values : ndarray of float64, shape (n_nodes,)
        0 for nodes no instance reaches.
    """
    key = instance_bag * n_nodes + leaves
    pairs, inverse = np.unique(key, return_inverse=True)
    A = np.bincount(inverse, weights=a, minlength=pairs.shape[0])
    B = np.bincount(inverse, weights=b, minlength=pairs.shape[0])
    pair_bag, pair_leaf = pairs // n_nodes, pairs % n_nodes
    g = grad_bag[pair_bag]
    C = np.maximum(B - k[pair_bag] * A * A, 0.0)
    G = _leaf_sums(pair_leaf, g * A, n_nodes)
    H = _leaf_sums(pair_leaf, hess_bag[pair_bag] * A * A + np.abs(g) * C, n_nodes)
    denom = H + l2
    return np.where(denom > 0, -G / np.where(denom > 0, denom, 1.0), 0.0)


class _Layout:
    """The presorted layout of one round's in-bag instances, for any feature subset.

    Only the rows of the features a tree may use are filtered to the in-bag
    instances (filtering keeps them sorted), so a round with few features
    costs little however many the data have.
    """

    def __init__(self, presorted, keep_inst, bag_map):
        self.presorted, self.keep_inst, self.bag_map = presorted, keep_inst, bag_map
        self._all = None

    def get(self, cols):
        pre = self.presorted
        if cols is None:
            if self._all is None:
                self._all = pre if self.keep_inst is None else pre.subset(self.keep_inst, self.bag_map)
            return self._all
        rows = pre.rows(cols)
        return rows if self.keep_inst is None else rows.subset(self.keep_inst, self.bag_map)

    def apply(self, tree, bags):
        """Leaf of every instance of the round's bags."""
        return tree.apply(bags.instances)

    def predict_value(self, tree, instances):
        """The tree's value for every instance of the training bags."""
        return tree.predict_value(instances)


class _HistRound:
    """One round's in-bag bags for the histogram search, with no instance copied.

    The trees of the round grow on the whole instance array and on the bin
    codes made once per fit (``_Binned``, one byte per value): the
    out-of-bag bags weigh 0, so the builder moves their instances out of the
    root before growth, and a tree's feature subset is searched in place.
    The grown tree is the one the round's copied bags would give (same bags,
    in the same order, same codes). The attributes ``offsets`` and
    ``instance_bag`` describe the in-bag bags alone (numbered 0, 1, ...), as
    a ``Bags.subset`` would, for the pooling and the Newton step.
    """

    def __init__(self, bags, binned, inbag=None, keep_inst=None):
        self.bags, self.binned, self.inbag, self.keep_inst = bags, binned, inbag, keep_inst
        sizes = bags.sizes if inbag is None else bags.sizes[inbag]
        self.offsets = np.zeros(sizes.shape[0] + 1, dtype=np.intp)
        np.cumsum(sizes, out=self.offsets[1:])
        self.instance_bag = bags.instance_bag if inbag is None else \
            np.repeat(np.arange(sizes.shape[0], dtype=np.intp), sizes)
        self.n_features = bags.n_features
        self._leaves = {}

    def scatter(self, values):
        """Per in-bag bag values -> per bag of the training set, 0 out of bag."""
        if self.inbag is None:
            return values
        full = np.zeros(self.bags.n_bags, dtype=values.dtype)
        full[self.inbag] = values
        return full

    def apply(self, tree, bags=None):
        """Leaf of every in-bag instance (the leaves of every instance are kept for the score update)."""
        leaves = tree.apply(self.bags.instances)
        self._leaves[id(tree)] = leaves
        return leaves if self.keep_inst is None else leaves[self.keep_inst]

    def predict_value(self, tree, instances):
        """The tree's value for every training instance (from the leaves found by :meth:`apply`)."""
        leaves = self._leaves.pop(id(tree), None)
        return tree.predict_value(instances) if leaves is None else tree.value[leaves]


class _BagLayout:
    """What a round's bag-ratio tree is grown from: the fit's share table and the round's bags."""

    def __init__(self, table, inbag, n_bags):
        self.table, self.inbag, self.n_bags = table, inbag, n_bags


class GDBTMIClassifier(TreeExportMixin, InstanceOutputMixin, BaseBagClassifier):
    """GDBT-MI: gradient boosting of multi-instance C4.5-MI trees.

    Every instance gets a score F(x) = F_0 + learning_rate * sum_m h_m(x);
    a bag's score (log-odds) pools its instances' scores (`pooling`) and the
    model minimises the bag-level logistic loss. Each round computes the
    bag pseudo-residuals r_b = y_b - sigmoid(S_b), grows a C4.5-MI tree
    (the split machinery of :mod:`mil.tree`) on the bags labelled by
    the sign of r_b and weighted by ``|r_b|``, then sets every leaf value by a
    Newton step on the bag loss, with the gradient flowing to instances
    through the pooling (see :func:`newton_leaf_values`).

    With K > 2 classes every class c has its own instance score F_c and
    pooled bag score S_c, the bag probabilities are softmax(S) and the loss
    the bag cross-entropy: each round grows one tree per class on that
    class's residuals y_bc - p_bc (bags of class c against the rest), as
    Friedman's K-class gradient boosting (Friedman 2001).

    Parameters
    ----------
    n_estimators : int, default=200
        Boosting rounds (fewer with early stopping).
    learning_rate : float, default=0.1
        Shrinkage of every tree's contribution.
    max_depth : int or None, default=None
        Depth limit of each tree (the root has depth 0). None grows every
        tree until `min_bags_leaf` or purity stops it: multi-instance trees
        peel off a few negative bags per level, so shallow trees underfit
        (depth 3: 70% on Elephant against 86% unlimited, see
        :doc:`/results/boosting_wrappers`).
    min_bags_leaf : float, default=2
        Minimum bag weight in each child of a split, bag weights being
        ``|r_b|`` scaled to mean 1 over the round's bags (so 2 is "two average
        bags").
    pooling : {"lse", "max", "noisy-or"}, default="lse"
        How a bag score pools the instance scores: log-sum-exp (a soft
        maximum of sharpness `sharpness`), the maximum, or noisy-or on
        instance probabilities. In 10-fold CV on the five shipped data sets
        the three average within a point of each other, none winning on
        every set (see :doc:`/results/boosting_wrappers`).
    sharpness : float, default=3.0
        r of the log-sum-exp pooling, S = (1/r) log(mean exp(r f)).
    subsample : float in (0, 1], default=0.5
        Fraction of the training bags drawn (without replacement) for each
        round (stochastic gradient boosting, Friedman 2002). 1.0 uses every
        bag every round. This default, `max_features` and
        `l2_regularization` were chosen on the five shipped sets (see
        :doc:`/results/boosting_wrappers`).
    max_features : int, float, {"sqrt", "log2"} or None, default="sqrt"
        Features each tree may split on, drawn at random (without
        replacement) for every tree: an int is a count, a float a share of
        the features, "sqrt" / "log2" those functions of the feature count,
        None all of them. Besides randomising the ensemble it makes each
        round cheaper (Musk2: 12 of 166 features per tree).
    feature_sampling : {"tree", "node"}, default="tree"
        Where the `max_features` draw happens: once per tree (every split of
        the tree searches the same features, as LightGBM's
        ``feature_fraction``), or at every node (as scikit-learn's
        ``GradientBoostingClassifier`` and
        :class:`mil.ensemble.MIRandomForestClassifier`),
        so a tree can split on any feature but each split searches only
        `max_features` of them.
    validation_fraction : float in (0, 1), default=0.1
        Share of the training bags held out (stratified) to decide early
        stopping; used only when `n_iter_no_change` is set.
    n_iter_no_change : int or None, default=None
        Stop when the validation loss has not improved by `tol` on any of the
        last `n_iter_no_change` rounds (as scikit-learn's
        GradientBoostingClassifier). None: no early stopping.
    tol : float, default=1e-4
        Improvement counted by early stopping.
    l2_regularization : float, default=1.0
        Added to the curvature of every leaf's Newton step: it shrinks the
        values of leaves that hold little evidence (a few bags), which keeps
        the probabilities from over-confidence (see
        :doc:`/user_guide/boosting`).
    split_shares : {"children", "parent"}, default="children"
        How each tree's Gain_multi weighs a child's entropy (see
        :class:`mil.tree.C45MIClassifier`).
    growth : {"best", "depth"}, default="best"
        Growth order of each tree (best-first as MITI, or depth-first); it
        matters through positive-bag removal.
    positive_bag_removal : bool, default=True
        Positive-bag removal while growing each tree (see :class:`mil.tree.ID3MIClassifier`).
    class_weight : "balanced", dict or None, default=None
        Weights of the classes, multiplying ``sample_weight`` in the loss:
        "balanced" weighs class c by ``n_bags / (n_classes * n_bags_c)``.
    positive_class : label or None, default=None
        The positive class of a two-class problem; ``classes_[1]`` when None.
    random_state : int, RandomState or None, default=None
        Seeds the subsampling and the validation split.
    n_jobs : int or None, default=None
        Threads sharing out the features of each tree's split search (the
        compiled kernel runs without the GIL); None is 1, -1 one per core.
        The model does not depend on it.
    splitter : {"auto", "exact", "hist"}, default="auto"
        The split search of the C4.5-MI trees: "exact" (every cut between
        distinct values), "hist" (the histogram search on quantile bins,
        which reads float32 bags as they are), or "auto": "hist" on more than
        10,000 training instances, "exact" on fewer (every shipped data set);
        see ``splitter`` in :class:`~mil.tree.C45MIClassifier` and
        :doc:`/results/trees`.
    max_instances_per_bag : int or None, default=None
        Train on at most this many instances of each bag, drawn once per fit
        (seeded by `random_state`); see ``max_instances_per_bag`` in
        :class:`~mil.tree.C45MIClassifier`. None trains on every instance.
    split : {"mi", "bag-ratio"}, default="mi"
        The base trees. "mi": C4.5-MI trees on the instances (a node asks
        whether an instance has x_f <= theta; instance scores pooled per
        bag). "bag-ratio": bag-ratio trees, the rule of
        :class:`~mil.ensemble.BagRandomTreesClassifier` (a bag goes left when
        the share of its instances with x_f <= theta exceeds r), so a bag
        reaches one leaf and the model scores bags directly, with no
        pooling. They are grown on the same residual signs and weights by
        that estimator's grower: at each node `max_features` random features
        (drawn per node whatever `feature_sampling` says), `n_rules` random
        thresholds each with a ratio r chosen by `ratio`, the candidate of
        least weighted entropy kept; a node stays a leaf when its residual
        signs agree, it holds fewer than ``2 * ceil(min_bags_leaf)`` bags
        (counted) or it reaches `max_depth`. Leaf values are the Newton step
        -G / (H + `l2_regularization`) of the leaf's bags. `pooling`,
        `sharpness`, `feature_sampling`, `split_shares`, `growth`,
        `positive_bag_removal`, `splitter`, `max_leaf_nodes` and `n_jobs` do
        not apply. On the five shipped sets (5 x 10-fold, three seeds) it
        gains 2.3 points of mean accuracy over "mi", losing on the Musk sets
        and gaining on Elephant, Fox and Tiger (see :doc:`/results/trees`).
    n_rules : int, default=16
        With ``split="bag-ratio"``: candidate thresholds per searched feature.
    ratio : {"random", "best"}, default="random"
        With ``split="bag-ratio"``: each candidate's r uniform in [0, 1), or
        the cut of the bags' shares of least entropy.
    max_leaf_nodes : int or None, default=None
        Stop each tree after ``max_leaf_nodes - 1`` splits (with
        ``growth="best"``, the nodes of largest share of positive bag weight
        split first), as ``max_leaf_nodes`` of scikit-learn's
        ``HistGradientBoostingClassifier`` (31 there). None: no limit.

    Attributes
    ----------
    estimators_ : list of mil.tree.Tree or of mil.ensemble.BagRatioTree
        The fitted trees, one per round (bag-ratio trees with
        ``split="bag-ratio"``); ``tree.value`` holds the Newton leaf
        values (before shrinkage). With more than two classes, one list of
        n_classes trees per round.
    splitter_ : {"exact", "hist"}
        The split search used (`splitter`, resolved by size for "auto"; the
        bag-ratio trees have their own).
    init_score_ : float or ndarray of shape (n_classes,)
        F_0, the constant instance score minimising the training loss (one
        per class with more than two classes).
    n_estimators_ : int
        Rounds actually fitted.
    train_score_ : ndarray of shape (``n_estimators_``,)
        Mean bag log-loss (cross-entropy with more classes) on the round's
        (in-bag) training bags after each
        round.
    validation_score_ : ndarray of shape (``n_estimators_``,)
        The same on the validation bags (only with early stopping).
    feature_importances_ : ndarray of shape (n_features,)
        Split gains weighted by the node's bag weight, normalised per tree,
        averaged over the trees.
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int

    Notes
    -----
    For the logistic loss the residual y_b - p_b always has the sign of the
    label, so the trees see the original bag labels, reweighted towards the
    badly predicted bags. Missing values (NaN) are routed as in
    :class:`mil.tree.C45MIClassifier` (with ``split="bag-ratio"``: a missing
    value never counts as <= theta and counts in the bag's size). With
    ``split="bag-ratio"`` the instance outputs (``instance_scores`` and the
    others) score each instance as a bag of its own.

    No publication of this exact algorithm could be identified; its closest
    published relative is MILBoost (Viola, Platt and Zhang 2005), which
    boosts a noisy-or bag likelihood (``pooling="noisy-or"``) with simple
    threshold classifiers.

    References
    ----------
    J. H. Friedman (2001). Greedy function approximation: a gradient boosting
    machine. *Annals of Statistics* 29(5), 1189-1232.

    J. H. Friedman (2002). Stochastic gradient boosting. *Computational
    Statistics and Data Analysis* 38(4), 367-378.

    Y. Chevaleyre and J.-D. Zucker (2001). Solving multiple-instance and
    multiple-part learning problems with decision trees and rule sets.
    *Advances in Artificial Intelligence (Canadian AI 2001)*, LNCS 2056,
    204-214.

    P. Viola, J. C. Platt and C. Zhang (2005). Multiple instance boosting for
    object detection. *Advances in Neural Information Processing Systems 18*,
    1417-1424.

    T. Komarek and P. Somol (2018). Multiple instance learning with bag-level
    randomized trees. *Machine Learning and Knowledge Discovery in Databases
    (ECML PKDD 2018)*.

    Examples
    --------
    >>> from mil.ensemble import GDBTMIClassifier
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=40)
    >>> clf = GDBTMIClassifier(n_estimators=20, random_state=0).fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    >>> len(clf.train_score_)
    20
    >>> ratio = GDBTMIClassifier(n_estimators=20, split="bag-ratio", random_state=0).fit(X, y)
    >>> ratio.score(X, y) > 0.9
    True
    """

    _binary_only = False
    _allow_nan = True

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0.0, None, closed="neither")],
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
        "min_bags_leaf": [Interval(Real, 0.0, None, closed="left")],
        "pooling": [StrOptions(set(POOLINGS))],
        "sharpness": [Interval(Real, 0.0, None, closed="neither")],
        "subsample": [Interval(Real, 0.0, 1.0, closed="right")],
        "max_features": [Interval(Integral, 1, None, closed="left"),
                         Interval(Real, 0.0, 1.0, closed="right"), StrOptions({"sqrt", "log2"}), None],
        "feature_sampling": [StrOptions({"tree", "node"})],
        "validation_fraction": [Interval(Real, 0.0, 1.0, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0.0, None, closed="left")],
        "l2_regularization": [Interval(Real, 0.0, None, closed="left")],
        "split_shares": [StrOptions({"parent", "children"})],
        "growth": [StrOptions({"depth", "best"})],
        "positive_bag_removal": ["boolean"],
        "positive_class": "no_validation",
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "splitter": [StrOptions({"auto", "exact", "hist"})],
        "max_instances_per_bag": [Interval(Integral, 1, None, closed="left"), None],
        "split": [StrOptions({"mi", "bag-ratio"})],
        "n_rules": [Interval(Integral, 1, None, closed="left")],
        "ratio": [StrOptions({"random", "best"})],
    }

    def __init__(self, *, n_estimators=200, learning_rate=0.1, max_depth=None, min_bags_leaf=2,
                 pooling="lse", sharpness=3.0, subsample=0.5, max_features="sqrt",
                 feature_sampling="tree", validation_fraction=0.1,
                 n_iter_no_change=None, tol=1e-4, l2_regularization=1.0,
                 split_shares="children", growth="best", positive_bag_removal=True,
                 class_weight=None, positive_class=None, random_state=None, n_jobs=None,
                 splitter="auto", max_instances_per_bag=None, max_leaf_nodes=None, split="mi", n_rules=16,
                 ratio="random"):
        keep_params(self, locals())

    # -- fitting ---------------------------------------------------------------
    def _accepts_float32(self):
        # The histogram search reads float32 bags as they are ("auto" may choose it).
        return self.splitter in ("auto", "hist")

    def _validate_fit(self, X, y):
        """As the base class, but `positive_class` applies only with two classes."""
        self._validate_params()
        bags, classes, y_enc = check_bags_y(X, y, allow_nan=True, positive_class=self.positive_class,
                                            estimator=type(self).__name__,
                                            accept_float32=self._accepts_float32())
        if classes.shape[0] == 2:
            classes, y_enc = check_bag_labels(y, bags.n_bags, binary=True,
                                              positive_class=self.positive_class,
                                              estimator=type(self).__name__)
        self.classes_ = classes
        self.n_features_in_ = bags.n_features
        set_feature_names(self, X)
        return bags, y_enc

    @property
    def _bag_level(self):
        """Bag-ratio trees: the model scores bags, not instances."""
        return self.split == "bag-ratio"

    def _n_units(self, bags):
        """Scores the model keeps: one per instance (C4.5-MI trees) or one per bag (bag-ratio trees)."""
        return bags.n_bags if self._bag_level else bags.instances.shape[0]

    def _pool(self, f, offsets, derivatives=False):
        if self._bag_level:
            # A bag-ratio tree moves the whole bag's score: the scores are the
            # bag scores, and dS_b/df_b = 1 with no curvature of their own.
            if not derivatives:
                return f
            ones = np.ones(f.shape[0])
            return f, ones, np.zeros_like(ones), np.zeros_like(ones)
        return pool(f, offsets, self.pooling, self.sharpness, derivatives)

    def _leaves(self, tree, bags):
        """The leaf of every unit (instance, or bag for a bag-ratio tree)."""
        return tree.apply(*bag_table(bags)) if self._bag_level else tree.apply(bags.instances)

    def _tree_scores(self, tree, bags):
        """A tree's values (before shrinkage) for every unit of `bags`."""
        return tree.value[self._leaves(tree, bags)] if self._bag_level else tree.predict_value(bags.instances)

    def _init_score(self, bags, y, w=None):
        """Constant instance score F_0 minimising the training loss.

        logit(mean y), the mean weighted by the bag weights, for bag-ratio
        trees and the maximum and log-sum-exp poolings (a constant instance
        score is the bag score); a bounded 1-D search for noisy-or (which
        depends on the bag sizes).
        """
        if self._bag_level or self.pooling != "noisy-or":
            return float(logit(np.clip(_mean(y, w), 1e-12, 1 - 1e-12)))
        ones = np.ones(bags.instances.shape[0])
        res = minimize_scalar(lambda f0: _bag_loss(self._pool(f0 * ones, bags.offsets), y, w),
                              bounds=(-_INIT_BOUND, _INIT_BOUND), method="bounded",
                              options={"xatol": 1e-10})
        return float(res.x)

    def _init_scores(self, bags, Y, w=None):
        """Constant instance score of every class minimising the softmax bag loss.

        log(class share) for the maximum and log-sum-exp poolings (exact: a
        constant instance score is the bag score); a bounded quasi-Newton
        search from there for noisy-or.
        """
        share = np.array([_mean(Y[:, c], w) for c in range(Y.shape[1])])
        f0 = np.log(np.maximum(share, 1e-12))
        if self.pooling == "noisy-or" and not self._bag_level:
            ones = np.ones(bags.instances.shape[0])

            def loss(v):
                S = np.column_stack([self._pool(c * ones, bags.offsets) for c in v])
                return _softmax_loss(S, Y, w)

            res = minimize(loss, f0, method="L-BFGS-B",
                           bounds=[(-_INIT_BOUND, _INIT_BOUND)] * f0.shape[0])
            f0 = res.x
        return f0

    def _n_features_per_tree(self, d):
        mf = self.max_features
        if mf is None:
            return d
        if mf == "sqrt":
            return max(1, int(np.sqrt(d)))
        if mf == "log2":
            return max(1, int(np.log2(d)))
        if isinstance(mf, Integral):
            if mf > d:
                raise ValueError(f"max_features={mf} is more than the {d} features of X")
            return int(mf)
        return max(1, int(mf * d))

    def fit(self, X, y, sample_weight=None):
        """Boost C4.5-MI trees on the bags.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
            Training bags; NaN marks a missing value, routed as in the trees
            (see the class).
        y : array-like of shape (n_bags,)
            Two or more classes.
        sample_weight : array-like of shape (n_bags,), default=None
            One weight per bag (times `class_weight`): it multiplies the
            bag's term in the loss, so in the initial score, the residual
            weights the trees are grown on, the Newton gradient and hessian
            sums of the leaf values, and the training and validation losses.
            A zero-weight bag is left out.

        Returns
        -------
        self
        """
        bags, y_enc, w = self._validate_weighted_fit(X, y, sample_weight)
        n_classes = self.classes_.shape[0]
        # Binary: one score, the log-odds of the positive class (y01). More
        # classes: one score per class and a softmax over them (Y one-hot).
        binary = n_classes == 2
        Y = (y_enc == 1).astype(np.float64)[:, None] if binary else \
            np.eye(n_classes)[y_enc]
        rng = check_random_state(self.random_state)

        val = None
        if self.n_iter_no_change is not None:
            idx = np.arange(bags.n_bags)
            stratify = y_enc if min(np.bincount(y_enc.astype(np.intp), minlength=n_classes)) >= 2 \
                else None
            try:
                train_idx, val_idx = train_test_split(
                    idx, test_size=self.validation_fraction, stratify=stratify,
                    random_state=rng.randint(np.iinfo(np.int32).max))
            except ValueError as exc:  # too few bags to hold some out
                raise ValueError(
                    f"early stopping (n_iter_no_change={self.n_iter_no_change}) holds out "
                    f"validation_fraction={self.validation_fraction} of the {bags.n_bags} bags, "
                    f"which fails: {exc}. Use more bags, a larger validation_fraction, or "
                    "n_iter_no_change=None") from None
            train_idx, val_idx = np.sort(train_idx), np.sort(val_idx)
            val = bags.subset(val_idx), Y[val_idx], None if w is None else w[val_idx]
            bags, Y = bags.subset(train_idx), Y[train_idx]
            w = None if w is None else w[train_idx]

        self.splitter_, bags = resolve_splitter(self.splitter, bags)
        n_bags, n, d = bags.n_bags, self._n_units(bags), bags.n_features
        f0 = np.array([self._init_score(bags, Y[:, 0], w)]) if binary else self._init_scores(bags, Y, w)
        F = [np.full(n, c) for c in f0]
        if val is not None:
            F_val = [np.full(self._n_units(val[0]), c) for c in f0]
            history = np.full(self.n_iter_no_change, np.inf)
        # Sorted ("exact") or binned ("hist") once per fit; the histogram layout is shared by
        # every round as it is (see _HistRound), the sorted one filtered to the round's bags.
        hist = False
        if self._bag_level:
            table = share_table(bags)
        else:
            presorted = prepare_layout(bags.instances, bags.instance_bag, self.splitter_)
            hist = self.splitter_ == "hist"
        n_inbag = max(1, int(self.subsample * n_bags))
        n_feat = self._n_features_per_tree(d)
        trees, train_score, val_score = [], [], []
        for m in range(self.n_estimators):
            if n_inbag < n_bags:
                inbag = np.sort(rng.choice(n_bags, n_inbag, replace=False))
                keep = np.zeros(n_bags, dtype=bool)
                keep[inbag] = True
                keep_inst = keep[bags.instance_bag]
                F_sub, Y_sub = [f[keep if self._bag_level else keep_inst] for f in F], Y[inbag]
                w_sub = None if w is None else w[inbag]
                if self._bag_level:
                    sub, layout = bags.subset(inbag), _BagLayout(table, inbag, n_bags)
                elif hist:
                    sub = layout = _HistRound(bags, presorted, inbag, keep_inst)
                else:
                    sub = bags.subset(inbag)
                    bag_map = np.full(n_bags, -1, dtype=np.intp)
                    bag_map[inbag] = np.arange(n_inbag)
                    layout = _Layout(presorted, keep_inst, bag_map)
            else:
                inbag, sub, F_sub, Y_sub, w_sub = None, bags, F, Y, w
                if self._bag_level:
                    layout = _BagLayout(table, np.arange(n_bags), n_bags)
                else:
                    layout = _HistRound(bags, presorted) if hist else _Layout(presorted, None, None)
                    if hist:
                        sub = layout
            if binary:
                stage = [self._fit_stage(sub, layout, F_sub[0], Y_sub[:, 0], rng, n_feat, w_sub)]
            else:
                stage = self._fit_softmax_stage(sub, layout, F_sub, Y_sub, rng, n_feat, w_sub)
            trees.append(stage[0] if binary else stage)
            F = [f + self.learning_rate * (self._tree_scores(t, bags) if self._bag_level
                                           else layout.predict_value(t, bags.instances)) for f, t in zip(F, stage)]
            S = np.column_stack([self._pool(f, bags.offsets) for f in F])
            if inbag is not None:
                S, Y_in = S[inbag], Y[inbag]
            else:
                Y_in = Y
            train_score.append(_bag_loss(S[:, 0], Y_in[:, 0], w_sub) if binary
                               else _softmax_loss(S, Y_in, w_sub))
            if val is not None:
                F_val = [f + self.learning_rate * self._tree_scores(t, val[0])
                         for f, t in zip(F_val, stage)]
                S_val = np.column_stack([self._pool(f, val[0].offsets) for f in F_val])
                loss = _bag_loss(S_val[:, 0], val[1][:, 0], val[2]) if binary else \
                    _softmax_loss(S_val, val[1], val[2])
                val_score.append(loss)
                if np.any(loss + self.tol < history):
                    history[m % history.shape[0]] = loss
                else:
                    break

        self.init_score_ = float(f0[0]) if binary else f0
        self.estimators_ = trees
        self.n_estimators_ = len(trees)
        self.train_score_ = np.array(train_score)
        if val is not None:
            self.validation_score_ = np.array(val_score)
        flat = trees if binary else [t for stage in trees for t in stage]
        self.feature_importances_ = self._importances(flat, bags.n_features)
        return self

    def _grow(self, bags, layout, bag_pos, weight, rng, n_feat):
        """A C4.5-MI tree on all features, or on random subsets of `n_feat` of them.

        The subset is drawn once for the tree, or at every node
        (`feature_sampling`).
        """
        if self._bag_level:
            return self._grow_bag_ratio(layout, bag_pos, weight, rng, n_feat)
        d = bags.n_features
        per_node = self.feature_sampling == "node" and n_feat < d
        cols = None if per_node or n_feat >= d else np.sort(rng.choice(d, n_feat, replace=False))
        options = dict(criterion="gain_ratio", max_depth=self.max_depth, min_bags_leaf=self.min_bags_leaf,
                       growth=self.growth, split_shares=self.split_shares, max_leaf_nodes=self.max_leaf_nodes,
                       remove_positive_bags=self.positive_bag_removal, n_jobs=self.n_jobs,
                       max_features=n_feat if per_node else None, random_state=rng if per_node else None)
        if isinstance(layout, _HistRound):
            # The whole instance array and the shared codes, out-of-bag bags at weight 0, the
            # tree's features searched in place: nothing is copied.
            tree, _ = build_tree(layout.bags.instances, layout.bags.instance_bag, layout.scatter(bag_pos),
                                 layout.scatter(weight), presorted=layout.binned, features=cols, **options)
            return tree
        instances = bags.instances if cols is None else np.ascontiguousarray(bags.instances[:, cols])
        tree, _ = build_tree(instances, bags.instance_bag, bag_pos, weight, presorted=layout.get(cols), **options)
        if cols is not None:
            # Back to the indices of all features (the subset keeps their order,
            # so ties still go to the lowest original index).
            internal = tree.feature >= 0
            tree.feature[internal] = cols[tree.feature[internal]]
            tree.n_features = d
        return tree

    def _grow_bag_ratio(self, layout, bag_pos, weight, rng, n_feat):
        """A bag-ratio tree (BLRT's grower) on the round's bags: residual signs as the classes."""
        label = np.zeros(layout.n_bags, dtype=np.intp)
        full_weight = np.zeros(layout.n_bags)  # bags out of the round weigh 0: the grower skips them
        label[layout.inbag], full_weight[layout.inbag] = bag_pos, weight
        return grow_bag_ratio_tree(layout.table, label, 2, full_weight, int(rng.randint(MAX_SEED)), n_feat,
                                   self.n_rules,
                          self.ratio == "best", max(1, int(np.ceil(self.min_bags_leaf))), self.max_depth)

    @staticmethod
    def _residual_tree_inputs(residual, y, w=None):
        """Bag labels (sign of the residual) and weights (|residual| x bag weight, mean 1) for the tree."""
        # A residual that underflowed to 0 keeps the label.
        bag_pos = ((residual > 0) | ((residual == 0) & (y == 1))).astype(np.uint8)
        weight = np.abs(residual) if w is None else np.abs(residual) * w
        total = math.fsum(weight)
        weight = weight * (residual.shape[0] / total) if total > 0 else np.ones(residual.shape[0])
        return bag_pos, _exact_weights(weight)

    def _fit_stage(self, bags, layout, F, y, rng, n_feat, w=None):
        """One round: pseudo-residuals, a C4.5-MI tree on them, Newton leaf values."""
        S, a, b, k = self._pool(F, bags.offsets, derivatives=True)
        return self._newton_tree(bags, layout, expit(S), y, (a, b, k), rng, n_feat, w)

    def _newton_tree(self, bags, layout, p, y, pool_derivatives, rng, n_feat, w, scale=1.0):
        """A tree (C4.5-MI or bag-ratio) on the residuals y - p, its leaves set by a Newton step (times `scale`)."""
        bag_pos, weight = self._residual_tree_inputs(y - p, y, w)
        tree = self._grow(bags, layout, bag_pos, weight, rng, n_feat)
        leaves = self._leaves(tree, bags) if self._bag_level else layout.apply(tree, bags)
        grad, hess = p - y, p * (1.0 - p)
        if w is not None:
            grad, hess = grad * w, hess * w
        unit_bag = np.arange(bags.n_bags) if self._bag_level else bags.instance_bag
        tree.value = scale * newton_leaf_values(leaves, tree.node_count, unit_bag,
                                                *pool_derivatives, grad, hess, self.l2_regularization)
        return tree

    def _fit_softmax_stage(self, bags, layout, F, Y, rng, n_feat, w=None):
        """One round with K classes: one tree per class on the softmax pseudo-residuals.

        Every class's residual y_bc - p_bc is taken at the scores before the
        round (as Friedman's K-class algorithm and scikit-learn do); leaf
        values are the class's Newton step scaled by (K - 1) / K.
        """
        n_classes = Y.shape[1]
        pooled = [self._pool(f, bags.offsets, derivatives=True) for f in F]
        P = _softmax(np.column_stack([q[0] for q in pooled]))
        stage = []
        for c in range(n_classes):
            stage.append(self._newton_tree(bags, layout, P[:, c], Y[:, c], pooled[c][1:], rng, n_feat,
                                           w, scale=(n_classes - 1) / n_classes))
        return stage

    @staticmethod
    def _importances(trees, n_features):
        total = np.zeros(n_features)
        n_used = 0
        for tree in trees:
            internal = tree.feature >= 0
            if not internal.any():
                continue
            imp = np.zeros(n_features)
            if isinstance(tree, BagRatioTree):  # its gain is already times the node's bag weight
                np.add.at(imp, tree.feature[internal], np.maximum(tree.gain[internal], 0.0))
            else:
                np.add.at(imp, tree.feature[internal],
                          np.maximum(tree.gain[internal], 0.0)
                          * (tree.weighted_pos + tree.weighted_neg)[internal])
            if imp.sum() > 0:
                total += imp / imp.sum()
                n_used += 1
        return total / n_used if n_used else total

    # -- printing ---------------------------------------------------------------
    _default_print_index = 0

    def _tree_to_print(self, index):
        """Round `index`'s tree (two classes), or class c's tree of round m for ``index=(m, c)``."""
        m, c = ensemble_member(self, index, "boosting round", "round")
        header = (f"round {m} of {len(self.estimators_)} (estimators_[{m}]); "
                  f"leaf values before learning_rate={self.learning_rate:g}")
        if c is None:
            pos = self._pos_index
            return boosting_tree_printout(self.estimators_[m], self.classes_[1 - pos], self.classes_[pos],
                                          owner=self, header=header)
        return boosting_tree_printout(self.estimators_[m][c], "other", self.classes_[c], owner=self,
                                      header=f"{header}, class {self.classes_[c]} against the others "
                                             f"(estimators_[{m}][{c}])")

    # -- prediction -------------------------------------------------------------
    @property
    def _binary(self):
        return self.classes_.shape[0] == 2

    def _stages(self):
        """Every round's trees as a list (one tree, or one per class)."""
        return ([t] for t in self.estimators_) if self._binary else iter(self.estimators_)

    def _staged_instance_scores(self, bags):
        init = np.atleast_1d(self.init_score_)
        F = [np.full(self._n_units(bags), c) for c in init]
        for stage in self._stages():
            F = [f + self.learning_rate * self._tree_scores(t, bags) for f, t in zip(F, stage)]
            yield F

    def _staged_bag_scores(self, X):
        """Bag scores after each round: log-odds of the positive class, or one per class."""
        check_is_fitted(self, "estimators_")
        bags = self._validate_predict(X)
        for F in self._staged_instance_scores(bags):
            if len(F) == 1:
                yield self._pool(F[0], bags.offsets)
            else:
                yield np.column_stack([self._pool(f, bags.offsets) for f in F])

    def _bag_scores(self, X):
        S = None
        for S in self._staged_bag_scores(X):
            pass
        return S

    def _oriented(self, S):
        # Two classes: the shared rule (an exact 0 is negative); more: every class's score.
        return S if S.ndim == 2 else super()._oriented(S)

    def _proba(self, S):
        # Two classes: a bag scored exactly 0 is negative (predict), and its
        # probabilities say so (the base class's tie rule).
        return _softmax(S) if S.ndim == 2 else self._proba_from_positive(expit(S), S > 0)

    def _labels(self, S):
        return self.classes_[np.argmax(S, axis=1)] if S.ndim == 2 else self._labels_from_positive(S > 0)

    def decision_function(self, X):
        """Bag log-odds of ``classes_[1]`` (two classes), or every class's bag score.

        Returns
        -------
        scores : ndarray of shape (n_bags,) or (n_bags, n_classes)
            With more than two classes, the pooled score of each class (the
            probabilities are their softmax).
        """
        return self._oriented(self._bag_scores(X))

    def predict_proba(self, X):
        """Bag probabilities: sigmoid of the pooled bag score (softmax with more classes).

        Returns
        -------
        proba : ndarray of shape (n_bags, n_classes)
            Columns follow ``classes_``.
        """
        return self._proba(self._bag_scores(X))

    def predict(self, X):
        """Positive iff the pooled bag score is positive (the largest class score with more classes).

        Returns
        -------
        y : ndarray of shape (n_bags,)
        """
        return self._labels(self._bag_scores(X))

    def staged_decision_function(self, X):
        """:meth:`decision_function` after each round (a generator).

        Yields
        ------
        scores : ndarray of shape (n_bags,) or (n_bags, n_classes)
        """
        for S in self._staged_bag_scores(X):
            yield self._oriented(S)

    def staged_predict_proba(self, X):
        """:meth:`predict_proba` after each round (a generator).

        Yields
        ------
        proba : ndarray of shape (n_bags, n_classes)
        """
        for S in self._staged_bag_scores(X):
            yield self._proba(S)

    def staged_predict(self, X):
        """:meth:`predict` after each round (a generator).

        Yields
        ------
        y : ndarray of shape (n_bags,)
        """
        for S in self._staged_bag_scores(X):
            yield self._labels(S)

    def _raw_instance_scores(self, bags):
        F = None
        if self._bag_level:  # bag-ratio trees score bags: each instance as a bag of its own
            bags = self._singletons(bags)
        for F in self._staged_instance_scores(bags):
            pass
        return F[0] if len(F) == 1 else np.column_stack(F)

    def _instance_scores(self, bags):
        # Instance scores F(x) (log-odds contributions before pooling): a
        # one-instance bag's decision_function. Two classes: oriented like
        # decision_function (positive favours classes_[1]); more: one column
        # per class.
        return self._oriented(self._raw_instance_scores(bags))

    def _instance_proba(self, bags):
        proba = self._proba(self._raw_instance_scores(bags))
        return proba[:, 1] if proba.shape[1] == 2 else proba

    def _predict_instances(self, bags):
        return self._labels(self._raw_instance_scores(bags))
