"""ID3-MI and C4.5-MI classifiers.

ID3-MI: Chevaleyre & Zucker, "Solving multiple-instance and multiple-part
learning problems with decision trees and rule sets. Application to the
mutagenesis problem" (Canadian AI 2001). C4.5-MI: C4.5's gain ratio and
pessimistic pruning (Quinlan, "C4.5: Programs for Machine Learning", 1993)
on the same bag counts. Reduced-error pruning: Quinlan, "Simplifying decision
trees" (International Journal of Man-Machine Studies 27, 1987).
"""

from numbers import Integral, Real

import numpy as np
from scipy.special import expit
from sklearn.base import clone
from sklearn.utils import Bunch
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, check_random_state

from mil._core import kernel
from mil.base import BaseBagClassifier, InstanceOutputMixin, keep_params
from mil.tree._builder import build_tree
from mil.tree._pruning import (cv_leaf_budget, held_out_bags, prune_cost_complexity, prune_pessimistic,
                               prune_reduced_error, cost_complexity_path)
from mil.tree._rows import prepare_layout, resolve_splitter
from mil.tree._export import TreeExportMixin, concept_tree_printout, member_index, not_fitted
from mil.tree._pooling import pool
from mil.utils._docstrings import defaults_of, fill_doc, register
from mil.utils._seeds import SEED_MAX
from mil.utils.validation import bag_sample_weight

__all__ = ["ID3MIClassifier", "C45MIClassifier", "resolve_max_features", "concept_labels", "fit_inputs",
           "subsample_instances"]


def resolve_max_features(max_features, n_features):
    """Number of features searched: None (all, returned as None), "sqrt", "log2", an int or a fraction.

    An int above `n_features` is an error (as in scikit-learn's trees), not
    silently lowered: the trees, the forest, BLRT and GDBT-MI share this rule.
    """
    if max_features is None:
        return None
    if isinstance(max_features, str):
        k = np.sqrt(n_features) if max_features == "sqrt" else np.log2(n_features)
        return max(1, int(k))
    if isinstance(max_features, Integral):
        if max_features > n_features:
            raise ValueError(f"max_features={max_features} is more than the {n_features} features of X; "
                             f"give at most {n_features}, a fraction, 'sqrt', 'log2' or None")
        return int(max_features)
    return max(1, int(max_features * n_features))


def subsample_instances(bags, max_instances, rng):
    """`bags` cut to `max_instances` instances each (None: as they are), drawn with a seed of its own.

    The seed is drawn from `rng`, the fit's generator, so the instance draw
    and the fit's other draws are independent (as scikit-learn draws
    sub-seeds), not two streams started from the same integer.
    """
    if max_instances is None:
        return bags
    return bags.subsample_instances(max_instances, int(rng.randint(SEED_MAX)))


def fit_inputs(estimator, X, y, sample_weight=None, *, drop_zero_weight=True):
    """The start of a tree learner's fit: validated bags, labels and bag weights, and the fit's generator.

    ``estimator._validate_fit(X, y)``; the fit's generator from the
    estimator's `random_state`; :func:`subsample_instances` with a seed drawn
    from it (``max_instances_per_bag``); the bag weights, `sample_weight`
    times the estimator's ``class_weight`` if it has one; and, unless
    `drop_zero_weight` is False, the bags of weight 0 left out.

    Returns
    -------
    bags : Bags
    y : ndarray
        As ``_validate_fit`` returns them (class indices, or real targets).
    weight : ndarray of float64 or None
        The bag weights (None: unweighted).
    rng : numpy.random.RandomState
        The fit's generator, for its other draws.
    """
    bags, y_valid = estimator._validate_fit(X, y)
    rng = check_random_state(estimator.random_state)
    bags = subsample_instances(bags, estimator.max_instances_per_bag, rng)
    weight = bag_sample_weight(sample_weight, y, bags.n_bags, getattr(estimator, "class_weight", None))
    if drop_zero_weight:
        bags, y_valid, weight = estimator._drop_zero_weight(bags, y_valid, weight)
    return bags, y_valid, weight, rng


def concept_labels(y_enc, n_classes, pos_index=1):
    """The 0/1 bag labels of each concept: one for two classes (class `pos_index`), one per class for more."""
    if n_classes == 2:
        return [(y_enc == pos_index).astype(np.uint8)]
    return [(y_enc == c).astype(np.uint8) for c in range(n_classes)]


@fill_doc
class _BaseMITree(TreeExportMixin, InstanceOutputMixin, BaseBagClassifier):
    """Shared fit / predict of the multi-instance trees (not for direct use).

    Two classes: one tree, the positive class's concept. More classes: one
    tree per class (class c's bags positive, the others negative), in
    ``trees_``; a bag's probability of class c is its concept probability,
    normalised over the classes.
    """

    _allow_nan = True
    _binary_only = False
    _criterion = None

    _parameter_constraints = {
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "min_bags_leaf": [Interval(Integral, 1, None, closed="left")],
        "growth": [StrOptions({"depth", "best"})],
        "pruning": ["boolean", StrOptions({"pessimistic", "reduced-error"})],
        "validation_fraction": [Interval(Real, 0.0, 1.0, closed="neither")],
        "confidence": [Interval(Real, 0.0, 0.5, closed="right")],
        "ccp_alpha": [Interval(Real, 0.0, None, closed="left")],
        "positive_bag_removal": ["boolean"],
        "split_shares": [StrOptions({"parent", "children"})],
        "max_features": [Interval(Integral, 1, None, closed="left"),
                         Interval(Real, 0.0, 1.0, closed="right"), StrOptions({"sqrt", "log2"}), None],
        "positive_class": "no_validation",
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "mdl_correction": ["boolean", StrOptions({"cuts", "partitions"})],
        "min_split": [StrOptions({"constant", "j48"})],
        "smoothing": [Interval(Real, 0.0, None, closed="neither")],
        "cut_placement": [StrOptions({"midpoint", "training-value", "run-middle", "instances"})],
        "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), StrOptions({"cv"}), None],
        "tie_break": [StrOptions({"rank", "instances"})],
        "sharpness": [Interval(Real, 0.0, np.inf, closed="right")],
        "splitter": [StrOptions({"auto", "exact", "hist"})],
        "max_instances_per_bag": [Interval(Integral, 1, None, closed="left"), None],
    }

    def _accepts_float32(self):
        # The histogram search reads float32 bags as they are ("auto" may choose it).
        return self.splitter in ("auto", "hist")

    # ID3-MI's parameters and defaults (C4.5-MI passes its own, and adds one).
    def __init__(self, *, max_depth=None, min_bags_leaf=3, growth="best", pruning=False,
                 confidence=0.25, validation_fraction=1 / 3, ccp_alpha=0.0, positive_bag_removal=True,
                 split_shares="children", max_features=None, class_weight=None, positive_class=None,
                 random_state=None, n_jobs=None, mdl_correction=False, max_leaf_nodes=None, tie_break="rank",
                 cut_placement="midpoint", min_split="constant", splitter="auto", max_instances_per_bag=None,
                 smoothing=8.0, sharpness=np.inf):
        keep_params(self, locals())

    def fit(self, X, y, sample_weight=None):
        """Grow (and optionally prune) the tree.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
            Training bags; NaN marks a missing value.
        y : array-like of shape (n_bags,)
            Two classes (the positive one is ``classes_[1]`` unless
            `positive_class` says otherwise), or more: one tree per class.
        sample_weight : array-like of shape (n_bags,), default=None
            One weight per bag (times `class_weight`): it weighs the bag in
            Gain_multi, `min_bags_leaf` and the leaf estimates, so an integer
            weight equals repeating the bag; a zero weight leaves it out.

        Returns
        -------
        self : object
            The fitted tree.
        """
        bags, y_enc, weight, rng = fit_inputs(self, X, y, sample_weight)
        return self._fit_encoded(bags, y_enc, weight, leaf_weight=weight, rng=rng)

    def _fit_encoded(self, bags, y_enc, bag_weight=None, presorted=None, leaf_weight=None, rng=None):
        """Grow the concept trees on validated bags and encoded labels (``classes_`` set).

        The forest calls this with bootstrap weights (0 leaves a bag out),
        the leaf weights of its sample weights (None: distinct counts) and
        the presorted layout of `bags`, shared by its trees (copied). `rng`
        is the fit's generator (None: one from `random_state`).
        """
        if not hasattr(self, "classes_"):
            raise RuntimeError("classes_ must be set before _fit_encoded")
        self.splitter_, bags = resolve_splitter(self.splitter, bags,
                                                hist_ok=self.cut_placement in ("midpoint", "training-value"))
        d = bags.n_features
        self.n_features_in_ = d
        rng = check_random_state(self.random_state) if rng is None else rng
        rank = np.arange(d, dtype=np.intp)
        if self.random_state is not None:
            # Ties between features go to a random (seeded) order instead of the lowest index.
            perm = rng.permutation(d)
            rank[perm] = np.arange(d)
        # y_enc holds class indices (these learners validate as multi-class).
        concepts = concept_labels(y_enc, len(self.classes_),
                                  self._pos_index if len(self.classes_) == 2 else None)
        held = None
        if self.pruning == "reduced-error":
            held = held_out_bags(y_enc, bag_weight, self.validation_fraction, rng)
            if held.any():
                # The held-out bags weigh 0 in growth (the builder leaves them out).
                bag_weight = np.where(held, 0.0, 1.0 if bag_weight is None else bag_weight)
                pruning_bags = bags.subset(np.flatnonzero(held))
            else:
                held = None
        own_presorted = False
        if presorted is None and len(concepts) > 1:
            presorted, own_presorted = prepare_layout(bags.instances, bags.instance_bag, self.splitter_), True
        trees = []
        grow = dict(criterion=self._criterion, max_depth=self.max_depth,
                    min_bags_leaf=self.min_bags_leaf, growth=self.growth,
                    remove_positive_bags=self.positive_bag_removal, split_shares=self.split_shares,
                    rank=rank, n_jobs=self.n_jobs, max_features=resolve_max_features(self.max_features, d),
                    mdl_correction=self.mdl_correction, cut_placement=self.cut_placement,
                    tie_break=self.tie_break, min_split=self.min_split, splitter=self.splitter_)
        if self._criterion == "gain_ratio":
            grow["average_gain_tolerance"] = self.average_gain_tolerance
        for i, bag_pos in enumerate(concepts):
            max_leaf_nodes = self.max_leaf_nodes
            if max_leaf_nodes == "cv":
                fold_seed = None if self.random_state is None else int(rng.randint(SEED_MAX))
                max_leaf_nodes = cv_leaf_budget(bags, bag_pos, bag_weight, leaf_weight, grow, fold_seed)
            tree, _ = build_tree(
                bags.instances, bags.instance_bag, bag_pos, bag_weight, presorted=presorted,
                copy_presorted=not (own_presorted and i == len(concepts) - 1), random_state=rng,
                leaf_weight=leaf_weight, max_leaf_nodes=max_leaf_nodes, **grow)
            if held is not None:
                tree = prune_reduced_error(tree, pruning_bags.instances, pruning_bags.instance_bag,
                                           bag_pos[held], None if leaf_weight is None else leaf_weight[held])
            elif self.pruning in (True, "pessimistic"):
                tree = prune_pessimistic(tree, self.confidence)
            if self.ccp_alpha > 0:
                tree = prune_cost_complexity(tree, self.ccp_alpha)
            trees.append(tree)
        self.trees_ = trees
        if len(trees) == 1:
            self.tree_ = trees[0]
        elif hasattr(self, "tree_"):
            del self.tree_
        gains = np.zeros(d)
        for tree in trees:
            internal = tree.feature >= 0
            # Importance: split gains weighted by the bags in the node (the
            # bag-level decrease of Info_multi), summed over concepts, normalised.
            np.add.at(gains, tree.feature[internal],
                      tree.gain[internal] * (tree.weighted_pos + tree.weighted_neg)[internal])
        gains = np.maximum(gains, 0.0)
        self.feature_importances_ = gains / gains.sum() if gains.sum() > 0 else gains
        return self

    # -- instance level -------------------------------------------------------
    def apply(self, X):
        """Return the leaf reached by every instance.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
            The bags whose instances are routed.

        Returns
        -------
        leaves : ndarray of intp, shape (n_instances,) or (n_instances, n_classes)
            For all instances, bag after bag (the order of
            ``Bags.from_list(X).instances``); split per bag with
            ``np.split(leaves, bags.offsets[1:-1])``. With more than two
            classes, column k is the leaf in ``trees_[k]``.
        """
        bags = self._validate_predict(X)
        leaves = [tree.apply(bags.instances) for tree in self.trees_]
        return leaves[0] if len(leaves) == 1 else np.column_stack(leaves)

    def _instance_proba(self, bags):
        # The smoothed estimate (pi + s) / (pi + nu + 2 s) of the leaf each
        # instance reaches (s: `smoothing`): a one-instance bag's probability.
        p = [tree.laplace(self.smoothing)[tree.apply(bags.instances)] for tree in self.trees_]
        if len(p) == 1:
            # Oriented like predict_proba[:, 1]: the probability of classes_[1].
            return self._proba_from_positive(p[0])[:, 1]
        p = np.column_stack(p)
        return p / p.sum(axis=1, keepdims=True)

    def _instance_scores(self, bags):
        # Log-odds of the leaf estimate; a leaf with pi == nu scores as negative (the tree's tie).
        if len(self.trees_) > 1:
            p = np.column_stack([t.laplace(self.smoothing)[t.apply(bags.instances)] for t in self.trees_])
            return np.log(p) - np.log1p(-p)
        tree = self.trees_[0]
        leaves = tree.apply(bags.instances)
        p = self._tie_broken(tree.laplace(self.smoothing)[leaves], tree.positive_leaf[leaves])
        score = np.log(p) - np.log1p(-p)
        return score if self._pos_index == 1 else -score

    def _predict_instances(self, bags):
        # Two classes: positive iff the instance reaches a positive leaf (pi > nu).
        if len(self.trees_) > 1:
            return self.classes_[np.argmax(self._instance_proba(bags), axis=1)]
        tree = self.trees_[0]
        return self._labels_from_positive(tree.positive_leaf[tree.apply(bags.instances)])

    def cost_complexity_pruning_path(self, X, y):
        """The pruning path of minimal cost-complexity pruning on bag counts.

        Grows the tree on (X, y) with this estimator's parameters but without
        any pruning, then lists the effective alphas at which its weakest
        links are pruned, as scikit-learn's
        ``DecisionTreeClassifier.cost_complexity_pruning_path``. A node as a
        leaf misclassifies its minority bags, min(pi, nu) (bag-weighted),
        counted as a share of all training bags; a subtree's error is the sum
        over its leaves. Two classes only.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
            Training bags.
        y : array-like of shape (n_bags,)
            Their labels (two classes).

        Returns
        -------
        path : sklearn.utils.Bunch
            ``ccp_alphas`` (increasing; ``ccp_alpha`` in
            ``[ccp_alphas[i], ccp_alphas[i + 1])`` gives the i-th subtree,
            the last being the root alone) and ``impurities`` (the total leaf
            error of each subtree).
        """
        est = clone(self).set_params(ccp_alpha=0.0, pruning=False).fit(X, y)
        if len(est.trees_) > 1:
            raise ValueError("cost_complexity_pruning_path is defined for two classes; with more, "
                             "each class's concept tree has its own path")
        alphas, impurities = cost_complexity_path(est.tree_)
        return Bunch(ccp_alphas=alphas, impurities=impurities)

    def _tree_to_print(self, index):
        """The tree of two classes, or the tree of ``classes_[index]`` against the others."""
        if not hasattr(self, "trees_"):
            raise not_fitted("tree")
        if len(self.trees_) == 1:
            if index is not None:
                raise ValueError(f"index chooses a tree of an ensemble or of a classifier of several classes; "
                                 f"this {type(self).__name__} has one tree")
            pos = self._pos_index
            return concept_tree_printout(self.tree_, self.classes_[1 - pos], self.classes_[pos], self.smoothing,
                                         owner=self)
        k = member_index(index, len(self.trees_), "class tree")
        return concept_tree_printout(self.trees_[k], "other", self.classes_[k], self.smoothing, owner=self,
                                     header=f"class {self.classes_[k]} against the others (trees_[{k}])")

    def _fitted_trees(self):
        check_is_fitted(self, "trees_")
        return self.trees_

    # -- bag level -------------------------------------------------------------
    def _concept_scores(self, bags, sharpness=None):
        """Per concept tree: (bag probability, bag predicted positive), on validated bags.

        `sharpness` None is the estimator's; ``np.inf`` is the maximum rule.
        """
        sharpness = self.sharpness if sharpness is None else sharpness
        bc = kernel("_bag_counts")
        out = []
        for tree in self.trees_:
            leaves = tree.apply(bags.instances)
            estimate = tree.laplace(self.smoothing)[leaves]
            proba = bc.bag_max(estimate, bags.offsets)
            positive = bc.bag_max(tree.positive_leaf[leaves].astype(np.float64), bags.offsets) > 0
            if not np.isinf(sharpness):
                score = pool(np.log(estimate) - np.log1p(-estimate), bags.offsets, "lse", sharpness)
                # A bag of one instance pools to its own estimate: kept exactly.
                single = np.diff(bags.offsets) == 1
                proba = np.where(single, proba, expit(score))
                positive = np.where(single, positive, score > 0)
            out.append((proba, positive))
        return out

    def _proba_bags(self, bags, sharpness=np.inf):
        """Bag probabilities on validated bags; the maximum rule by default (the forest's trees)."""
        scores = self._concept_scores(bags, sharpness)
        if len(scores) == 1:
            return self._proba_from_positive(*scores[0])  # ties (pi == nu) moved to the negative side
        p = np.column_stack([proba for proba, _ in scores])
        return p / p.sum(axis=1, keepdims=True)

    def predict_proba(self, X):
        """Predict bag probabilities.

        Two classes: the pooling (`sharpness`; the maximum for ``np.inf``)
        over the bag's instances of the smoothed leaf estimate
        (pi + s) / (pi + nu + 2 s), s = `smoothing`. More: each class's
        concept probability (the same pooling in its tree), normalised to
        sum to one over the classes.

        [predicted probabilities]
        """
        return self._proba_bags(self._validate_predict(X), self.sharpness)

    def decision_function(self, X):
        """Compute the log-odds of the bag probability.

        [bags to score]

        Returns
        -------
        scores : ndarray of shape (n_bags,) or (n_bags, n_classes)
            Two classes: for ``classes_[1]``, positive exactly when
            :meth:`predict` returns ``classes_[1]``. More: the log-odds of
            each class's concept probability.
        """
        scores = self._concept_scores(self._validate_predict(X))
        if len(scores) > 1:
            return np.column_stack([np.log(p) - np.log1p(-p) for p, _ in scores])
        p = self._tie_broken(*scores[0])  # a leaf with pi == nu is not positive
        score = np.log(p) - np.log1p(-p)
        return score if self._pos_index == 1 else -score

    def predict(self, X):
        """Predict the class of each bag.

        Two classes: with ``sharpness=np.inf`` a bag is positive iff one of
        its instances reaches a positive leaf (pi > nu); otherwise iff its
        pooled log-odds are positive (the probability above 1/2). More: the
        class of largest probability.

        [predicted labels]
        """
        scores = self._concept_scores(self._validate_predict(X))
        if len(scores) > 1:
            return self.classes_[np.argmax(np.column_stack([p for p, _ in scores]), axis=1)]
        return self._labels_from_positive(scores[0][1])

    def get_depth(self):
        """Return the depth of the fitted tree (a single leaf has depth 0), the deepest concept tree's.

        Returns
        -------
        depth : int
            The largest depth of a leaf.
        """
        return max(tree.max_depth for tree in self._fitted_trees())

    def get_n_leaves(self):
        """Return the number of leaves of the fitted tree (summed over the concept trees).

        Returns
        -------
        n_leaves : int
            Leaves of all the concept trees.
        """
        return sum(tree.n_leaves for tree in self._fitted_trees())


def _tree_parameters(cls):
    d = defaults_of(cls)
    return f"""    max_depth : int or None, default=None
        Maximum depth (the root has depth 0); None grows until the other rules stop.
    min_bags_leaf : int, default={d["min_bags_leaf"]}
        A split is admissible only if each child holds at least this many
        distinct bags (a bag with instances on both sides counts in both).
        The default was chosen by 5 x 10-fold CV on the five shipped sets
        (see :doc:`/results/trees`); the papers used 1 (ID3-MI) and C4.5's
        2.
    growth : {{"best", "depth"}}, default="best"
        Best-first growth: expand the open node with the highest share of
        positive bags first (as MITI); or depth-first, the papers' order.
    pruning : bool or {{"pessimistic", "reduced-error"}}, default={d["pruning"]}
        Pruning after growth. True or "pessimistic": C4.5 pessimistic
        (error-based) pruning on bag counts: a node is a leaf of
        N = pi + nu bags with min(pi, nu) errors (counted in bag weight
        when `sample_weight` or `class_weight` is given, as C4.5 counts
        weighted cases: an integer weight is that many copies of the bag),
        and a subtree is replaced by a leaf when the leaf's upper error
        bound is at most its leaves' sum plus 0.1 (no subtree raising).
        "reduced-error": a share `validation_fraction` of the bags of each
        class is held out, the tree is grown on the others, and nodes are
        made leaves bottom-up while that does not increase the bag-level
        error on the held-out bags (Quinlan 1987; see
        :func:`~mil.tree.prune_reduced_error`). False: no pruning.
    confidence : float in (0, 0.5], default=0.25
        Confidence factor of the pessimistic pruning (smaller prunes more).
    validation_fraction : float in (0, 1), default=1/3
        Share of each class's bags held out for ``pruning="reduced-error"``
        (drawn with `random_state`; Weka's reduced-error pruning holds out
        one fold of three). Unused by the other prunings.
    ccp_alpha : float >= 0, default=0.0
        Minimal cost-complexity pruning on bag counts after growth (and
        after pessimistic pruning, if on): the weakest links whose error
        increase per removed leaf, counted in training bags as a share of
        all of them, is at most `ccp_alpha` are pruned (see
        :meth:`cost_complexity_pruning_path`). 0 prunes nothing.
    positive_bag_removal : bool, default=True
        When a leaf holding only positive bags is made, those bags are
        explained: their instances leave every node not yet expanded.
    split_shares : {{"children", "parent"}}, default="children"
        How Gain_multi weighs a child's Info_multi: by its bag count over the
        children's total (the shares sum to one), or over the parent's
        (ID3-MI's literal formula, Chevaleyre & Zucker 2001; a bag with
        instances on both sides counts in both, so the shares can sum above
        one). The papers' literal form is ``growth="depth",
        split_shares="parent"``.
    max_features : int, float, {{"sqrt", "log2"}} or None, default=None
        Features searched at each node: None all of them; otherwise that
        many drawn at random (an int, at most the number of features; a
        fraction of the features; or the square root / log2 of their
        number), as in a random forest's trees. If none of the drawn
        features can split the node, the next ones of the same random order
        are searched.
    class_weight : "balanced", dict or None, default=None
        Weights of the classes, multiplying ``sample_weight``: "balanced"
        gives class c the weight n_bags / (n_classes * n_bags_c).
    positive_class : label or None, default=None
        Two classes: the positive class; ``classes_[1]`` when None. Must be
        None with more than two classes.
    random_state : int, RandomState or None, default=None
        None breaks ties between equally good features by lowest index; a
        seed breaks them in a random feature order drawn from it, and seeds
        the feature subsets of `max_features` (the instance subsample of
        `max_instances_per_bag` and the folds of ``max_leaf_nodes="cv"``
        draw seeds of their own from it).
    n_jobs : int or None, default=None
        Threads sharing out the features of each node's split search (the
        compiled kernel runs without the GIL); None is 1, -1 one per core.
        The tree does not depend on it.
    mdl_correction : bool or {{"cuts", "partitions"}}, default=False
        C4.5 release 8's correction of numeric splits (Quinlan 1996,
        "Improved use of continuous attributes in C4.5"), as Weka's J48
        applies it by default: a feature's best gain is reduced by
        log2(K) / N before features are compared, N the node's bag weight
        (the gain counts bags) and K, with True or "cuts", the feature's
        admissible cut points in the node (between distinct instance
        values, each child holding at least `min_bags_leaf` bag weight;
        J48's count), with "partitions" the distinct partitions of the
        node's bags those cuts make (consecutive cuts between which no bag
        enters the left side or leaves the right one split the bags alike;
        at most about twice the bags, where the cuts can be many more). With
        one instance per bag both are J48's K. A feature whose corrected gain
        is not positive cannot split: the correction favours features with
        few candidate thresholds and stops growth where no split pays for
        its threshold. False leaves every tree unchanged.
    max_leaf_nodes : int >= 2, "cv" or None, default=None
        Stop splitting once the tree has this many leaves: after
        ``max_leaf_nodes - 1`` splits in growth order (best-first growth
        splits the open nodes of highest positive share first), the nodes
        still open become leaves. "cv" chooses the number on the training
        bags: each class's bags are dealt round-robin into 3 folds (in a
        random order when `random_state` is set), a full tree is grown on
        each fold's complement, and the number of leaves whose prefix of
        the growth has the least bag error on the held-out folds, summed,
        wins (the smallest on ties); more classes choose one per concept.
        None grows until the other rules stop.
    tie_break : {{"rank", "instances"}}, default="rank"
        Features whose split criteria tie (the same best value on bag
        counts, common in small nodes): "rank" takes the lowest index (or
        the random order of `random_state`); "instances" first takes the
        feature whose cut has the largest information gain on instances
        labelled by their bags. Only without `max_features`.
    cut_placement : {{"midpoint", "run-middle", "instances", "training-value"}}, default="midpoint"
        Where the chosen split's threshold goes, without changing its bag
        counts. Many cuts share the best Gain_multi; the split search takes
        the lowest and puts the threshold midway between the two node
        values around it ("midpoint"). "run-middle": midway across the run
        of consecutive cuts with the same bag counts; "instances": among
        the tied cuts, the one of largest information gain on instances
        labelled by their bags; "training-value": C4.5's choice, the
        largest training value of the feature at most the midpoint
        (Quinlan 1993). With NaN in the node only "training-value" moves
        the threshold.
    min_split : {{"constant", "j48"}}, default="constant"
        The least bag weight of each child of a split: `min_bags_leaf`
        everywhere, or as Weka's J48 (its ``C45Split``): a tenth of the
        node's bag weight per class, 0.1 W / 2, raised to `min_bags_leaf`
        when it is at most that and capped at 25, so a large node cannot
        split off a few bags (on 6000 weighted instances the root's children
        need 25). With one instance per bag and `min_bags_leaf` 2 this is
        J48's ``-M 2``.
    splitter : {{"auto", "exact", "hist"}}, default="auto"
        The split search. "auto": "hist" on more than 10,000 training
        instances (``mil.tree._rows.AUTO_HIST_INSTANCES``), "exact" on
        fewer (every shipped data set) or with a `cut_placement` that only
        the exact search keeps, in ``splitter_``. "exact": every cut
        between distinct values of the node (features presorted once).
        "hist": the histogram search: features quantile-binned once per fit
        (at most 255 bins plus one for missing values, as scikit-learn's
        ``HistGradientBoostingClassifier``), each cut's bag counts from
        every bag's lowest and highest bin in the node, without sorting; the
        same criteria, guard and tie-breaks. With at most 255 distinct
        values per feature it grows the exact tree (thresholds on the bin
        edges). Float32 instances are binned as they are. See
        :doc:`/results/trees` ("Histogram split search") for its speed,
        memory and accuracy.
    max_instances_per_bag : int or None, default=None
        Train on at most this many instances of each bag, drawn without
        replacement once per fit (:meth:`mil.Bags.subsample_instances`,
        seeded from `random_state`: an int makes it repeatable; None draws
        anew each fit). The search's cost grows with the instances; a bag's
        any-instance label may be lost when its positive instance is not
        drawn. None trains on every instance. Prediction uses every instance.
"""


def _tree_estimates(cls):
    d = defaults_of(cls)
    sharpness = "inf" if np.isinf(d["sharpness"]) else d["sharpness"]
    return f"""    smoothing : float > 0, default={d["smoothing"]}
        Additive smoothing s of the leaf estimates behind `predict_proba`:
        a leaf of pi positive and nu negative bags (bag weights) estimates
        (pi + s) / (pi + nu + 2 s); s = 1 is Laplace's estimate. It never
        moves an estimate across 1/2, so with two classes and
        ``sharpness=np.inf`` `predict` does not depend on it; with a finite
        `sharpness` it also weighs the instances in the pooling. The default
        was chosen on the out-of-fold log loss of the five shipped sets (see
        :doc:`/results/trees`).
    sharpness : float in (0, inf], default={sharpness}
        How a bag's instances are pooled into its probability: ``expit(S)``
        with S = (1/r) log(mean_i exp(r f_i)) the log-sum-exp of the
        instances' smoothed leaf log-odds f_i (r = `sharpness`; the pooling
        of :class:`~mil.ensemble.GDBTMIClassifier` and of the forest's
        trees). ``np.inf`` is the maximum, the multi-instance rule: a bag is
        positive iff one of its instances reaches a positive leaf. A finite r
        weighs all of a bag's instances, so a bag whose instances mostly
        reach negative leaves needs a confident positive leaf. A bag of one
        instance keeps its leaf estimate. The defaults were chosen on the
        five shipped sets (see :doc:`/results/trees`).
"""


register("mi tree parameters", _tree_parameters)
register("mi tree estimates", _tree_estimates)
register("mi tree attributes", """    Attributes
    ----------
    splitter_ : {"exact", "hist"}
        The split search used (`splitter`, resolved by size for "auto").
    tree_ : mil.tree.Tree
        The fitted tree as flat arrays (two classes only).
    trees_ : list of mil.tree.Tree
        One tree per concept: ``[tree_]`` for two classes; for more, tree k
        separates class ``classes_[k]`` (positive) from the others.
    [classes attributes]
    feature_importances_ : ndarray of shape (n_features,)
        Split gains weighted by the node's bag count, normalised to sum to 1.
""")
register("mi tree notes", """    Notes
    -----
    Missing values (NaN) are accepted. A feature's cuts are searched with the
    node's NaN instances sent to the left and to the right child, and the
    better choice is kept; when a split saw no NaN in training, NaN goes to the
    child that held more bags. Predictions: ``predict_proba`` pools the
    smoothed estimates (pi + s) / (pi + nu + 2 s) of the leaves a bag's
    instances reach (`sharpness`), and a bag is positive iff that probability
    is above 1/2. With ``sharpness=np.inf`` it is the largest estimate: a bag
    is positive iff one of its instances reaches a leaf with more positive
    than negative bags (pi > nu).

    More than two classes: one concept per class. Tree k is grown with the
    bags of class ``classes_[k]`` positive and all others negative; a bag's
    class probabilities are its concept probabilities (as above) divided by
    their sum, and it is predicted as the class of largest probability.
""")


@fill_doc
class ID3MIClassifier(_BaseMITree):
    """ID3-MI multi-instance decision tree (Chevaleyre and Zucker, 2001).

    Splits maximise Gain_multi, the information gain computed on distinct
    positive and negative bags (Chevaleyre & Zucker 2001), with positive-bag removal.

    Parameters
    ----------
    [mi tree parameters]
    [mi tree estimates]

    [mi tree attributes]

    See Also
    --------
    C45MIClassifier : The same tree with C4.5's gain ratio and pruning.
    mil.ensemble.MIRandomForestClassifier : A forest of these trees on bootstrap samples of the bags.

    [mi tree notes]

    References
    ----------
    [chevaleyre2001]

    Examples
    --------
    >>> from mil.tree import ID3MIClassifier
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=40)
    >>> clf = ID3MIClassifier().fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    """

    _criterion = "gain"


@fill_doc
class C45MIClassifier(_BaseMITree):
    """C4.5-MI multi-instance decision tree.

    Splits maximise the gain ratio Gain_multi / SplitInfo_multi among the
    features whose gain is at least the average (C4.5's guard), on distinct
    bag counts (Quinlan 1993; Chevaleyre & Zucker 2001); positive-bag
    removal; optional pruning: C4.5's pessimistic pruning on bag counts,
    reduced-error pruning on held-out bags, or minimal cost-complexity
    pruning. Pruning is off by default (:doc:`/results/trees` compares the
    prunings on the shipped sets).

    Parameters
    ----------
    [mi tree parameters]
    average_gain_tolerance : float >= 0, default=0.0
        C4.5's guard against splits of tiny split information: the gain
        ratio chooses among the features whose gain is at least the average
        gain of the features that can split the node, less this many bits
        (gains are in bits per bag weight). 0 is C4.5's rule (round-off of
        1e-12 bits is always absorbed). Weka's J48 admits features up to
        0.001 below the average (its ``C45ModelSelection``); with
        ``min_split="j48"``, ``mdl_correction=True`` and ``pruning=True`` it
        makes the inner tree of :class:`~mil.wrappers.MIWrapperClassifier`
        predict as Weka's MIWrapper + J48 (see
        :doc:`/results/boosting_wrappers`). With `mdl_correction` the
        average is over the features whose corrected gain is positive, as in
        J48; without it, over every feature with an admissible cut. ``np.inf``
        turns the guard off (the largest gain ratio wins). ID3-MI has no
        such guard: the largest gain is never below the average.
    [mi tree estimates]

    [mi tree attributes]

    See Also
    --------
    ID3MIClassifier : The same tree on Gain_multi, without the guard or pruning.
    mil.ensemble.MIRandomForestClassifier : A forest of these trees on bootstrap samples of the bags.
    mil.ensemble.GDBTMIClassifier : Gradient boosting of these trees on a bag-level loss.

    [mi tree notes]

    References
    ----------
    J. R. Quinlan (1993). *C4.5: Programs for Machine Learning*. Morgan
    Kaufmann.

    [chevaleyre2001]

    Examples
    --------
    >>> from mil.tree import C45MIClassifier, export_text
    >>> from mil.utils.estimator_checks import make_toy_bags
    >>> X, y = make_toy_bags(n_bags=100)
    >>> clf = C45MIClassifier().fit(X, y)
    >>> clf.score(X, y) > 0.9
    True
    >>> print(export_text(clf).splitlines()[0])  # doctest: +SKIP
    |--- x0 <= 2.10
    """

    _criterion = "gain_ratio"
    _parameter_constraints = {
        **_BaseMITree._parameter_constraints,
        "average_gain_tolerance": [Interval(Real, 0.0, np.inf, closed="both")],
    }

    def __init__(self, *, max_depth=None, min_bags_leaf=8, growth="best", pruning=False,
                 confidence=0.25, validation_fraction=1 / 3, ccp_alpha=0.0, positive_bag_removal=True,
                 split_shares="children", max_features=None, class_weight=None, positive_class=None,
                 random_state=None, n_jobs=None, mdl_correction=False, max_leaf_nodes=None, tie_break="rank",
                 cut_placement="midpoint", min_split="constant", splitter="auto", max_instances_per_bag=None,
                 average_gain_tolerance=0.0, smoothing=8.0, sharpness=4.0):
        super().__init__(
            max_depth=max_depth, min_bags_leaf=min_bags_leaf, growth=growth, pruning=pruning, confidence=confidence,
            validation_fraction=validation_fraction, ccp_alpha=ccp_alpha, positive_bag_removal=positive_bag_removal,
            split_shares=split_shares, max_features=max_features, class_weight=class_weight,
            positive_class=positive_class, random_state=random_state, n_jobs=n_jobs, mdl_correction=mdl_correction,
            max_leaf_nodes=max_leaf_nodes, tie_break=tie_break, cut_placement=cut_placement, min_split=min_split,
            splitter=splitter, max_instances_per_bag=max_instances_per_bag, smoothing=smoothing,
            sharpness=sharpness)
        self.average_gain_tolerance = average_gain_tolerance
