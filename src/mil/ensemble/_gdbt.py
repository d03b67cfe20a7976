"""GDBT-MI: gradient boosting of multi-instance trees on a bag-level loss.

The estimator owns the boosting loop (rounds, subsampling, early stopping,
the fitted attributes, prediction); what it boosts is one of two kinds of
trees (:mod:`mil.ensemble._gdbt_trees`): C4.5-MI trees on the instances,
whose scores a bag pools, or bag-ratio trees, which score bags directly. The
loss (:mod:`mil.ensemble._gdbt_losses`) gives the gradients each round's
tree is grown on and its leaves' Newton steps.

Without subsampling the model does not depend on the order of the training
bags: the initial score and the losses sum with :func:`math.fsum` (exactly
rounded), each leaf's Newton sums add the bags' terms in fixed point, and
the bag weights a tree is grown on are put on a grid fine enough for every
sum of them to be exact, so the split search, which sums them in the order
it meets the bags, sees the same numbers whatever that order.
"""

from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize, minimize_scalar
from scipy.special import expit, softmax
from sklearn.model_selection import train_test_split
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from mil.base import BaseBagClassifier, InstanceOutputMixin, keep_params
from mil.ensemble._gdbt_losses import BinomialLoss, MultinomialLoss
from mil.ensemble._gdbt_trees import BagRatioTrees, InstanceTrees, bag_leaf_pairs, newton_leaf_values
from mil.tree._rows import resolve_splitter
from mil.tree._classes import fit_inputs, resolve_max_features
from mil.tree._export import TreeExportMixin, boosting_tree_printout, ensemble_member
from mil.tree._pooling import POOLINGS
from mil.utils._docstrings import fill_doc, register
from mil.utils._seeds import SEED_MAX
from mil.utils.validation import check_bag_labels, check_bags_y, set_feature_names

__all__ = ["GDBTMIClassifier"]

# The constant initial score is searched in [-bound, bound].
_INIT_BOUND = 50.0
#: ``split="auto"`` grows the trees on instances when the training bags hold more than this many
#: instances on average, on bags (the multi-instance criterion) up to it.
AUTO_INSTANCE_SPLIT = 100


def resolve_split(split, bags):
    """The trees boosted: `split` as asked, or by the mean bag size for "auto" (see :data:`AUTO_INSTANCE_SPLIT`)."""
    if split != "auto":
        return split
    return "instance" if bags.n_instances > AUTO_INSTANCE_SPLIT * bags.n_bags else "mi"


def _staged_predict_doc(cls):
    """The parameters and yields of ``staged_predict``: a classifier's labels, a regressor's values."""
    what, output = ("classify", "labels") if issubclass(cls, BaseBagClassifier) else ("predict", "predictions")
    return f"""    [bags to {what}]

    Yields
    ------
    y : ndarray of shape (n_bags,)
        The {output} after one more round.
"""


register("gdbt staged predict", _staged_predict_doc)
register("friedman boosting", """    J. H. Friedman (2001). Greedy function approximation: a gradient boosting
    machine. *Annals of Statistics* 29(5), 1189-1232.

    J. H. Friedman (2002). Stochastic gradient boosting. *Computational
    Statistics and Data Analysis* 38(4), 367-378.
""")
register("gdbt bag-ratio parameters", """    n_rules : int, default=16
        With ``split="bag-ratio"``: candidate thresholds per searched feature.
    ratio : {"random", "best"}, default="random"
        With ``split="bag-ratio"``: each candidate's r uniform in [0, 1), or
        the cut of the bags' shares of least entropy.
""")


class _GDBTMIBoosting:
    """The boosting loop and prediction of GDBT-MI, for a classifier or a regressor (not for direct use).

    A subclass gives the loss, the encoded targets and how bag scores become
    predictions; the parameters are the estimators' own.
    """

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
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "splitter": [StrOptions({"auto", "exact", "hist"})],
        "max_instances_per_bag": [Interval(Integral, 1, None, closed="left"), None],
        "split": [StrOptions({"auto", "mi", "instance", "bag-ratio"})],
        "n_rules": [Interval(Integral, 1, None, closed="left")],
        "ratio": [StrOptions({"random", "best"})],
    }

    def _accepts_float32(self):
        # The histogram search reads float32 bags as they are ("auto" may choose it).
        return self.splitter in ("auto", "hist")

    def _trees(self):
        """The kind of tree boosted (``split_``, or `split` before a fit), configured by the parameters."""
        split = getattr(self, "split_", self.split)
        if split == "bag-ratio":
            return BagRatioTrees(self.n_rules, self.ratio == "best", max(1, int(np.ceil(self.min_bags_leaf))),
                                 self.max_depth)
        options = dict(criterion="gain_ratio", max_depth=self.max_depth, min_bags_leaf=self.min_bags_leaf,
                       growth=self.growth, split_shares=self.split_shares, max_leaf_nodes=self.max_leaf_nodes,
                       remove_positive_bags=self.positive_bag_removal, n_jobs=self.n_jobs)
        return InstanceTrees(self.pooling, self.sharpness, options, self.feature_sampling,
                             getattr(self, "splitter_", "exact"),
                             "instances" if split == "instance" else "bags")

    def _held_out(self, bags, Y, w, stratify, rng):
        """The training part and the validation bags of early stopping (``(bags, Y, w)`` each)."""
        try:
            train_idx, val_idx = train_test_split(
                np.arange(bags.n_bags), test_size=self.validation_fraction, stratify=stratify,
                random_state=rng.randint(SEED_MAX))
        except ValueError as exc:  # too few bags to hold some out
            raise ValueError(
                f"early stopping (n_iter_no_change={self.n_iter_no_change}) holds out "
                f"validation_fraction={self.validation_fraction} of the {bags.n_bags} bags, "
                f"which fails: {exc}. Use more bags, a larger validation_fraction, or "
                "n_iter_no_change=None") from None
        train_idx, val_idx = np.sort(train_idx), np.sort(val_idx)
        part = lambda idx: (bags.subset(idx), Y[idx], None if w is None else w[idx])  # noqa: E731
        return part(train_idx), part(val_idx)

    def _initial_scores(self, trees, loss, bags, Y, w):
        """The constant unit score of every score column minimising the training loss.

        The loss's own best constant where a constant unit score is the bag
        score (bag-ratio trees, the maximum, log-sum-exp and mean poolings);
        a bounded search from it for noisy-or, whose bag score depends on the
        bag sizes.
        """
        f0 = loss.constant(Y, w)
        if trees.constant_is_bag_score():
            return f0
        ones = np.ones(trees.n_units(bags))
        if f0.shape[0] == 1:
            res = minimize_scalar(lambda c: loss(trees.pool(c * ones, bags.offsets)[:, None], Y, w),
                                  bounds=(-_INIT_BOUND, _INIT_BOUND), method="bounded", options={"xatol": 1e-10})
            return np.array([float(res.x)])

        def total(v):
            return loss(np.column_stack([trees.pool(c * ones, bags.offsets) for c in v]), Y, w)

        return minimize(total, f0, method="L-BFGS-B", bounds=[(-_INIT_BOUND, _INIT_BOUND)] * f0.shape[0]).x

    def _boost(self, bags, Y, w, loss, rng, stratify=None):
        """Fit the rounds on validated bags, encoded targets `Y` (n_bags, n_scores) and bag weights `w`."""
        val = None
        if self.n_iter_no_change is not None:
            (bags, Y, w), val = self._held_out(bags, Y, w, stratify, rng)
        self.splitter_, bags = resolve_splitter(self.splitter, bags)
        self.split_ = resolve_split(self.split, bags)
        trees = self._trees()
        n_bags, d = bags.n_bags, bags.n_features
        f0 = self._initial_scores(trees, loss, bags, Y, w)
        F = [np.full(trees.n_units(bags), c) for c in f0]
        if val is not None:
            F_val = [np.full(trees.n_units(val[0]), c) for c in f0]
            history = np.full(self.n_iter_no_change, np.inf)
        prepared = trees.prepare(bags)  # sorted, binned or tabled once per fit, read by every round
        n_inbag = max(1, int(self.subsample * n_bags))
        n_feat = resolve_max_features(self.max_features, d) or d
        rounds, train_score, val_score = [], [], []
        for m in range(self.n_estimators):
            inbag = np.sort(rng.choice(n_bags, n_inbag, replace=False)) if n_inbag < n_bags else None
            rnd = trees.round(prepared, bags, inbag)
            Y_in, w_in = (Y, w) if inbag is None else (Y[inbag], None if w is None else w[inbag])
            pooled = [trees.pool(f if rnd.units is None else f[rnd.units], rnd.offsets, derivatives=True)
                      for f in F]
            stage, values = [], []
            S = np.column_stack([q[0] for q in pooled])
            for c, ((grad, hess, tie), (_, *derivatives)) in enumerate(zip(loss.gradients(S, Y_in, w_in), pooled)):
                labels, weight, min_weight = trees.tree_inputs(rnd, grad, tie, w_in, derivatives)
                tree = trees.grow(rnd, labels, weight, rng, n_feat, min_weight)
                leaves = trees.leaves(tree, bags)  # every training unit, in the round or not
                in_round = leaves if rnd.units is None else leaves[rnd.units]
                if loss.leaf_values is None:  # a Newton step
                    if w_in is not None:
                        grad, hess = grad * w_in, hess * w_in
                    value = newton_leaf_values(in_round, tree.node_count, rnd.unit_bag, *derivatives, grad, hess,
                                               self.l2_regularization)
                else:  # the loss's own rule on the bags' residuals and the shares of their scores
                    pair_bag, pair_leaf, A, _ = bag_leaf_pairs(in_round, tree.node_count, rnd.unit_bag,
                                                               derivatives[0])
                    value = loss.leaf_values(pair_bag, pair_leaf, A, Y_in[:, c] - S[:, c], w_in, tree.node_count)
                tree.value = loss.leaf_scale * value
                stage.append(tree)
                values.append(tree.value[leaves])
            rounds.append(stage[0] if loss.n_scores == 1 else stage)
            F = [f + self.learning_rate * v for f, v in zip(F, values)]
            S = np.column_stack([trees.pool(f, bags.offsets) for f in F])
            train_score.append(loss(S if inbag is None else S[inbag], Y_in, w_in))
            if val is not None:
                F_val = [f + self.learning_rate * t.value[trees.leaves(t, val[0])] for f, t in zip(F_val, stage)]
                score = loss(np.column_stack([trees.pool(f, val[0].offsets) for f in F_val]), val[1], val[2])
                val_score.append(score)
                if np.any(score + self.tol < history):
                    history[m % history.shape[0]] = score
                else:
                    break

        self.init_score_ = float(f0[0]) if loss.n_scores == 1 else f0
        self.estimators_ = rounds
        self.n_estimators_ = len(rounds)
        self.train_score_ = np.array(train_score)
        if val is not None:
            self.validation_score_ = np.array(val_score)
        elif hasattr(self, "validation_score_"):
            del self.validation_score_
        total, n_used = np.zeros(d), 0
        for tree in self._flat_trees():
            imp = trees.importance(tree, d)
            if imp.sum() > 0:
                total += imp / imp.sum()
                n_used += 1
        self.feature_importances_ = total / n_used if n_used else total
        return self

    # -- prediction -------------------------------------------------------------
    def _stages(self):
        """Every round's trees as a list (one tree, or one per score column)."""
        return ([t] for t in self.estimators_) if np.ndim(self.init_score_) == 0 else iter(self.estimators_)

    def _flat_trees(self):
        """Every tree in round order (within a round, by score column)."""
        return [t for stage in self._stages() for t in stage]

    def _unit_scores(self, bags):
        """The summed unit scores F (n_units, n_scores) of validated bags after all rounds."""
        trees = self._trees()
        init = np.atleast_1d(self.init_score_)
        F = np.empty((trees.n_units(bags), init.shape[0]))
        F[:] = init
        columns = [c for stage in self._stages() for c in range(len(stage))]
        trees.add_scores(self._flat_trees(), columns, self.learning_rate, bags, F)
        return F

    def _staged_unit_scores(self, bags):
        trees = self._trees()
        F = [np.full(trees.n_units(bags), c) for c in np.atleast_1d(self.init_score_)]
        for stage in self._stages():
            F = [f + self.learning_rate * t.value[trees.leaves(t, bags)] for f, t in zip(F, stage)]
            yield F

    def _pooled(self, F, offsets):
        """Bag scores of unit scores (columns), one column per score or one array for a single score."""
        trees = self._trees()
        S = np.column_stack([trees.pool(np.ascontiguousarray(f), offsets) for f in F])
        return S[:, 0] if S.shape[1] == 1 else S

    def _bag_scores(self, X):
        """Bag scores after all rounds; the trees' values are summed first and pooled once."""
        check_is_fitted(self, "estimators_")
        bags = self._validate_predict(X)
        return self._pooled(self._unit_scores(bags).T, bags.offsets)

    def _staged_bag_scores(self, X):
        """Bag scores after each round."""
        check_is_fitted(self, "estimators_")
        bags = self._validate_predict(X)
        for F in self._staged_unit_scores(bags):
            yield self._pooled(F, bags.offsets)

    def _raw_instance_scores(self, bags):
        """The instance scores F(x): a one-instance bag's score (bag-ratio trees score it as a bag)."""
        if self.split_ == "bag-ratio":
            bags = self._singletons(bags)
        F = self._unit_scores(bags)
        return F[:, 0] if F.shape[1] == 1 else F


@fill_doc
class GDBTMIClassifier(_GDBTMIBoosting, TreeExportMixin, InstanceOutputMixin, BaseBagClassifier):
    """GDBT-MI: gradient boosting of multi-instance C4.5-MI trees.

    Every instance gets a score F(x) = F_0 + learning_rate * sum_m h_m(x);
    a bag's score (log-odds) pools its instances' scores (`pooling`) and the
    model minimises the bag-level logistic loss. Each round computes the
    bag pseudo-residuals r_b = y_b - sigmoid(S_b), grows a C4.5-MI tree
    (the split machinery of :mod:`mil.tree`) on the bags labelled by
    the sign of r_b and weighted by ``|r_b|``, then sets every leaf value by a
    Newton step on the bag loss, with the gradient flowing to instances
    through the pooling.

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
        (see :doc:`/results/boosting_wrappers`).
    min_bags_leaf : float, default=2
        Minimum bag weight in each child of a split, bag weights being
        ``|r_b|`` scaled to mean 1 over the round's bags (so 2 is "two average
        bags").
    pooling : {"lse", "max", "noisy-or", "mean"}, default="lse"
        How a bag score pools the instance scores: log-sum-exp (a soft
        maximum of sharpness `sharpness`), the maximum, noisy-or on
        instance probabilities, or the mean. The results pages compare them
        on the shipped sets (see :doc:`/results/boosting_wrappers`).
    sharpness : float, default=3.0
        The r of the log-sum-exp pooling, S = (1/r) log(mean exp(r f)).
    subsample : float in (0, 1], default=0.5
        Fraction of the training bags drawn (without replacement) for each
        round (stochastic gradient boosting, Friedman 2002). 1.0 uses every
        bag every round. This default, `max_features` and
        `l2_regularization` were chosen on the five shipped sets (see
        :doc:`/results/boosting_wrappers`).
    max_features : int, float, {"sqrt", "log2"} or None, default="sqrt"
        Features each tree may split on, drawn at random (without
        replacement) for every tree: an int is a count (at most the number
        of features), a float a share of the features, "sqrt" / "log2"
        those functions of the feature count, None all of them. Besides
        randomising the ensemble it makes each round cheaper (Musk2: 12 of
        166 features per tree).
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
        Seeds the rounds' bag and feature draws; the instance subsample
        (`max_instances_per_bag`) and the validation split draw seeds of
        their own from it.
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
        (seeded from `random_state`); see ``max_instances_per_bag`` in
        :class:`~mil.tree.C45MIClassifier`. None trains on every instance.
    max_leaf_nodes : int or None, default=None
        Stop each tree after ``max_leaf_nodes - 1`` splits (with
        ``growth="best"``, the nodes of largest share of positive bag weight
        split first), as ``max_leaf_nodes`` of scikit-learn's
        ``HistGradientBoostingClassifier`` (31 there). None: no limit.
    split : {"auto", "mi", "instance", "bag-ratio"}, default="auto"
        The base trees. "mi": C4.5-MI trees on the instances (a node asks
        whether an instance has x_f <= theta; instance scores pooled per
        bag), grown on the bags: a bag is labelled by the sign of its
        residual and weighted by its size, and the split criterion counts
        the distinct bags on each side of a cut. "instance": the same trees
        grown on the instances: instance i of bag b is labelled by the sign
        of its share of the bag's residual, ``r_b a_i`` with
        ``a_i = dS_b/df_i`` from the pooling, and weighted by its size, each
        instance counting as a bag of its own. On bags of hundreds of
        instances every node holds instances of nearly every bag, the
        distinct-bag counts of a cut's two sides hardly differ, and only
        the instances' shares can rank the cuts. "auto": "instance" when the
        training bags hold more than ``AUTO_INSTANCE_SPLIT`` (100) instances
        on average, "mi" otherwise (in ``split_``): "mi" on every shipped set
        (at most 65 instances a bag on average), so the default fits the
        same model there as "mi"; on 150 bags of 500-1,500 instances x 768
        features with 2-10 % witnesses, "mi" is at chance (42 % test
        accuracy, AUC 61 %, 137 s of CPU) where "instance" reaches 94 %
        (AUC 99.5 %) in 35-42 s (see :doc:`/results/foundation`). "bag-ratio": bag-ratio
        trees, the rule of
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
        not apply. :doc:`/results/trees` compares the two on the shipped
        sets.
    [gdbt bag-ratio parameters]

    Attributes
    ----------
    estimators_ : list of mil.tree.Tree or of mil.tree.BagRatioTree
        The fitted trees, one per round (bag-ratio trees with
        ``split="bag-ratio"``); ``tree.value`` holds the Newton leaf
        values (before shrinkage). With more than two classes, one list of
        n_classes trees per round.
    splitter_ : {"exact", "hist"}
        The split search used (`splitter`, resolved by size for "auto"; the
        bag-ratio trees have their own).
    split_ : {"mi", "instance", "bag-ratio"}
        The base trees boosted (`split`, resolved by the bag size for "auto").
    init_score_ : float or ndarray of shape (n_classes,)
        F_0, the constant instance score minimising the training loss (one
        per class with more than two classes).
    n_estimators_ : int
        Rounds actually fitted.
    train_score_ : ndarray of shape (``n_estimators_``,)
        Mean bag log-loss (cross-entropy with more classes) on the round's
        (in-bag) training bags after each round.
    validation_score_ : ndarray of shape (``n_estimators_``,)
        The same on the validation bags (only with early stopping).
    feature_importances_ : ndarray of shape (n_features,)
        Split gains weighted by the node's bag weight, normalised per tree,
        averaged over the trees.
    [classes attributes]

    See Also
    --------
    mil.ensemble.MIRandomForestClassifier : Averaged C4.5-MI / ID3-MI trees on bootstrap samples.
    mil.ensemble.BagRandomTreesClassifier : Averaged bag-ratio trees (BLRT).
    mil.tree.C45MIClassifier : The single tree whose split machinery the rounds use.

    Notes
    -----
    For the logistic loss the residual y_b - p_b always has the sign of the
    label, so the trees see the original bag labels, reweighted towards the
    badly predicted bags. Missing values (NaN) are routed as in
    :class:`mil.tree.C45MIClassifier` (with ``split="bag-ratio"``: a missing
    value never counts as <= theta and counts in the bag's size). With
    ``split="bag-ratio"`` the instance outputs (``instance_scores`` and the
    others) score each instance as a bag of its own.

    The leaf values are Newton steps on the bag loss: adding v to the score
    of every instance in leaf l moves bag b's score by about v A_bl, A_bl
    the sum over b's instances in l of dS_b/df_i, so the leaf's gradient is
    G_l = sum_b g_b A_bl and its curvature sum_b h_b A_bl^2 plus the
    pooling's own curvature (counted with ``|g_b|``, so it stays positive); the
    value is -G_l / (H_l + `l2_regularization`). With one-instance bags this
    is the Newton step of ordinary logistic boosting.

    No publication of this exact algorithm could be identified; its closest
    published relative is MILBoost (Viola, Platt and Zhang 2005), which
    boosts a noisy-or bag likelihood (``pooling="noisy-or"``) with simple
    threshold classifiers.

    References
    ----------
    [friedman boosting]

    [chevaleyre2001]

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
        **_GDBTMIBoosting._parameter_constraints,
        "positive_class": "no_validation",
        "class_weight": [StrOptions({"balanced"}), dict, None],
    }

    def __init__(self, *, n_estimators=200, learning_rate=0.1, max_depth=None, min_bags_leaf=2,
                 pooling="lse", sharpness=3.0, subsample=0.5, max_features="sqrt",
                 feature_sampling="tree", validation_fraction=0.1,
                 n_iter_no_change=None, tol=1e-4, l2_regularization=1.0,
                 split_shares="children", growth="best", positive_bag_removal=True,
                 class_weight=None, positive_class=None, random_state=None, n_jobs=None,
                 splitter="auto", max_instances_per_bag=None, max_leaf_nodes=None, split="auto", n_rules=16,
                 ratio="random"):
        keep_params(self, locals())

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

    def fit(self, X, y, sample_weight=None):
        """Boost C4.5-MI (or bag-ratio) trees on the bags.

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
        self : GDBTMIClassifier
            The fitted model.
        """
        bags, y_enc, w, rng = fit_inputs(self, X, y, sample_weight)
        n_classes = self.classes_.shape[0]
        loss = BinomialLoss() if n_classes == 2 else MultinomialLoss(n_classes)
        stratify = y_enc if min(np.bincount(y_enc.astype(np.intp), minlength=n_classes)) >= 2 else None
        return self._boost(bags, loss.encode(y_enc), w, loss, rng, stratify)

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
    def _oriented(self, S):
        # Two classes: the shared rule (an exact 0 is negative); more: every class's score.
        return S if S.ndim == 2 else super()._oriented(S)

    def _proba(self, S):
        # Two classes: a bag scored exactly 0 is negative (predict), and its
        # probabilities say so (the base class's tie rule).
        return softmax(S, axis=1) if S.ndim == 2 else self._proba_from_positive(expit(S), S > 0)

    def _labels(self, S):
        return self.classes_[np.argmax(S, axis=1)] if S.ndim == 2 else self._labels_from_positive(S > 0)

    def decision_function(self, X):
        """Compute the bag log-odds of ``classes_[1]`` (two classes), or every class's bag score.

        [bags to score]

        Returns
        -------
        scores : ndarray of shape (n_bags,) or (n_bags, n_classes)
            With more than two classes, the pooled score of each class (the
            probabilities are their softmax).
        """
        return self._oriented(self._bag_scores(X))

    def predict_proba(self, X):
        """Predict bag probabilities: the sigmoid of the pooled bag score (softmax with more classes).

        [predicted probabilities]
        """
        return self._proba(self._bag_scores(X))

    def predict(self, X):
        """Predict each bag's class: positive iff its pooled score is positive (the largest score with more).

        [predicted labels]
        """
        return self._labels(self._bag_scores(X))

    def staged_decision_function(self, X):
        """Compute :meth:`decision_function` after each round (a generator).

        [bags to score]

        Yields
        ------
        scores : ndarray of shape (n_bags,) or (n_bags, n_classes)
            The scores after one more round.
        """
        for S in self._staged_bag_scores(X):
            yield self._oriented(S)

    def staged_predict_proba(self, X):
        """Predict the probabilities of :meth:`predict_proba` after each round (a generator).

        [bags to score]

        Yields
        ------
        proba : ndarray of shape (n_bags, n_classes)
            The probabilities after one more round.
        """
        for S in self._staged_bag_scores(X):
            yield self._proba(S)

    def staged_predict(self, X):
        """Predict the labels of :meth:`predict` after each round (a generator).

        [gdbt staged predict]
        """
        for S in self._staged_bag_scores(X):
            yield self._labels(S)

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
