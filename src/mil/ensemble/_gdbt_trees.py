"""The two kinds of trees GDBT-MI boosts, each behind the same interface.

:class:`InstanceTrees`
    C4.5-MI trees on the instances (the split machinery of :mod:`mil.tree`):
    every instance has a score, and a bag's score pools its instances'
    scores (:func:`mil.tree._pooling.pool`).
:class:`BagRatioTrees`
    Bag-ratio trees (:mod:`mil.tree._bag_ratio`): a bag reaches one leaf, so
    the model scores bags directly and the "pooling" is the identity.

The estimator owns the boosting loop; a kind of tree says what a score
belongs to (its *units*: instances or bags), how units' scores make bag
scores, what a fit prepares once (a presorted or binned layout, a share
table), what a round holds (:class:`SortedRound`, :class:`BinnedRound`,
:class:`BagRound`: the round's in-bag bags as that tree's grower reads
them), how a tree is grown on a round, and how trees add their values to
units' scores at prediction.

Leaf values are Newton steps on the bag loss (:func:`newton_leaf_values`).
Sums over bags that a tree or a leaf value reads are made exact
(:func:`exact_weights`, :func:`leaf_sums`), so without subsampling the model
does not depend on the order of the training bags.
"""

import math

import numpy as np

from mil._core import kernel
from mil.tree._bag_ratio import BagRatioTree, bag_table, grow_bag_ratio_tree, share_table
from mil.tree._builder import build_tree
from mil.tree._rows import prepare_layout
from mil.tree._pooling import pool
from mil.utils._seeds import SEED_MAX

__all__ = ["BagRatioTrees", "InstanceTrees", "bag_leaf_pairs", "exact_weights", "leaf_sums", "newton_leaf_values",
           "residual_tree_inputs"]


def exact_weights(weight):
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


def leaf_sums(leaf, values, n_nodes):
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


def residual_tree_inputs(grad, label_at_zero, w=None):
    """Bag labels and weights a round's tree is grown on, from the bag gradients of the loss.

    A bag is labelled by the sign of its residual ``-grad`` (`label_at_zero`
    where the residual is exactly 0) and weighs ``|grad|`` times its bag
    weight, scaled to a mean of 1 per unit of bag weight (so a bag of weight
    2 counts as two copies of it) and put on the grid of
    :func:`exact_weights`.
    """
    residual = -grad
    bag_pos = ((residual > 0) | ((residual == 0) & label_at_zero)).astype(np.uint8)
    weight = np.abs(residual) if w is None else np.abs(residual) * w
    total = math.fsum(weight)
    size = residual.shape[0] if w is None else math.fsum(w)
    weight = weight * (size / total) if total > 0 else (np.ones(residual.shape[0]) if w is None else w * 1.0)
    return bag_pos, exact_weights(weight)


def bag_leaf_pairs(leaves, n_nodes, unit_bag, a, b=None):
    """The (bag, leaf) pairs a tree's units make, with the sums of `a` (and `b`) over each pair's units.

    Returns
    -------
    pair_bag, pair_leaf : ndarray of intp
        Every pair once, ordered by bag then leaf.
    A, B : ndarray of float64
        The sums over the pair's units (B None without `b`).
    """
    key = unit_bag * n_nodes + leaves
    pairs, inverse = np.unique(key, return_inverse=True)
    A = np.bincount(inverse, weights=a, minlength=pairs.shape[0])
    B = None if b is None else np.bincount(inverse, weights=b, minlength=pairs.shape[0])
    return pairs // n_nodes, pairs % n_nodes, A, B


def newton_leaf_values(leaves, n_nodes, unit_bag, a, b, k, grad_bag, hess_bag, l2):
    """Newton step of every leaf of a tree, on the bag-level loss.

    Adding v to the score of every unit (instance) in leaf l moves bag b's
    score by about v * A_bl, A_bl = sum of a_i = dS_b/df_i over b's units
    in l. The leaf value is -G_l / (H_l + l2) with the gradient

        G_l = sum_b g_b A_bl   (= sum over the leaf's units of dL/df_i)

    and the curvature

        H_l = sum_b [h_b A_bl^2 + |g_b| max(C_bl, 0)],

    g_b and h_b being the loss's first and second derivatives with respect
    to the bag score S_b, and C_bl = B_bl - k_b A_bl^2 the pooling's own
    curvature d^2 S_b / dv^2 (B_bl the sum of `b` over b's units in l; see
    :func:`mil.tree._pooling.pool`). The first term is the Gauss-Newton
    curvature; the second keeps the step bounded when a leaf holds a small
    share of a bag's score (a Gauss-Newton step alone would be about
    -1/A_bl there) and vanishes when the leaf holds the whole bag. It is
    counted with |g_b| so every leaf's curvature stays positive (for a
    positive bag the exact term is negative): the step is never longer than
    the Gauss-Newton one. With one-instance bags C = 0 and this is the
    Newton step of ordinary gradient boosting.

    Parameters
    ----------
    leaves : ndarray of intp, shape (n_units,)
        Leaf of every unit.
    n_nodes : int
        Nodes of the tree.
    unit_bag : ndarray of intp, shape (n_units,)
        Bag of every unit.
    a, b : ndarray of float64, shape (n_units,)
        From the pooling: dS_b/df_i and the curvature terms of each unit.
    k : ndarray of float64, shape (n_bags,)
        From the pooling: each bag's curvature coefficient.
    grad_bag, hess_bag : ndarray of float64, shape (n_bags,)
        g_b and h_b (times the bag weights).
    l2 : float
        Added to the curvature.

    Returns
    -------
    values : ndarray of float64, shape (n_nodes,)
        0 for nodes no unit reaches.
    """
    pair_bag, pair_leaf, A, B = bag_leaf_pairs(leaves, n_nodes, unit_bag, a, b)
    g = grad_bag[pair_bag]
    C = np.maximum(B - k[pair_bag] * A * A, 0.0)
    G = leaf_sums(pair_leaf, g * A, n_nodes)
    H = leaf_sums(pair_leaf, hess_bag[pair_bag] * A * A + np.abs(g) * C, n_nodes)
    denom = H + l2
    return np.where(denom > 0, -G / np.where(denom > 0, denom, 1.0), 0.0)


def _in_bag(inbag, n_bags):
    """A boolean mask of the in-bag bags (None: every bag)."""
    keep = np.zeros(n_bags, dtype=bool)
    keep[inbag] = True
    return keep


class SortedRound:
    """A round's in-bag bags for the exact split search: their instances, and the fit's presorted rows filtered to them.

    Only the rows of the features a tree may use are filtered to the
    in-bag instances (filtering keeps them sorted), so a round with few
    features costs little however many the data have.

    Attributes
    ----------
    bags : Bags
        The in-bag bags (all of them without subsampling).
    units : ndarray of bool or None
        Which instances of the training bags are in the round (None: all).
    offsets, unit_bag : ndarray of intp
        The in-bag bags' offsets and each of their instances' bag (as the
        other rounds give them, for the pooling and the Newton step).
    """

    def __init__(self, presorted, bags, inbag=None):
        self.presorted = presorted
        self.units = None
        self.bag_map = None
        self._all_rows = None
        self.bags = bags
        if inbag is not None:
            self.units = _in_bag(inbag, bags.n_bags)[bags.instance_bag]
            self.bag_map = np.full(bags.n_bags, -1, dtype=np.intp)
            self.bag_map[inbag] = np.arange(inbag.shape[0])
            self.bags = bags.subset(inbag)
        self.n_features = bags.n_features
        self.offsets, self.unit_bag = self.bags.offsets, self.bags.instance_bag

    def presorted_rows(self, cols):
        """The presorted layout of the in-bag instances on the features `cols` (None: all, kept for the round)."""
        pre = self.presorted
        if cols is None:
            if self._all_rows is None:
                self._all_rows = pre if self.units is None else pre.subset(self.units, self.bag_map)
            return self._all_rows
        rows = pre.rows(cols)
        return rows if self.units is None else rows.subset(self.units, self.bag_map)

    def grow(self, labels, weight, cols, options, per_instance=False):
        """A C4.5-MI tree on the in-bag bags, searching the features `cols` (None: all, or per node).

        With `per_instance`, `labels` and `weight` are the in-bag instances'
        and each instance counts as a bag of its own.
        """
        instances = self.bags.instances if cols is None else np.ascontiguousarray(self.bags.instances[:, cols])
        rows = self.presorted_rows(cols)
        unit_of = self.bags.instance_bag
        if per_instance:
            # Each instance its own "bag": the rows' bag entries become the instance ids.
            rows = type(rows)._from_arrays(rows.order, rows.vals, rows.order.copy())
            unit_of = np.arange(instances.shape[0], dtype=np.intp)
        tree, _ = build_tree(instances, unit_of, labels, weight, presorted=rows, **options)
        if cols is not None:
            # Back to the indices of all features (the subset keeps their order,
            # so ties still go to the lowest original index).
            internal = tree.feature >= 0
            tree.feature[internal] = cols[tree.feature[internal]]
            tree.n_features = self.presorted.n_rows
        return tree


class BinnedRound:
    """A round's in-bag bags for the histogram split search, with no instance copied.

    The trees grow on the training instances and on the bin codes made once
    per fit (one byte per value): the out-of-bag bags weigh 0, so the
    builder moves their instances out of the root before growth, and a
    tree's feature subset is searched in place. The grown tree is the one
    the round's copied bags would give (same bags, in the same order, same
    codes). ``offsets`` and ``unit_bag`` describe the in-bag bags alone
    (numbered 0, 1, ...), as a ``Bags.subset`` would, for the pooling and
    the Newton step.
    """

    def __init__(self, binned, bags, inbag=None):
        self.binned, self.training, self.inbag = binned, bags, inbag
        self.n_features = bags.n_features
        self.units = None if inbag is None else _in_bag(inbag, bags.n_bags)[bags.instance_bag]
        sizes = bags.sizes if inbag is None else bags.sizes[inbag]
        self.offsets = np.zeros(sizes.shape[0] + 1, dtype=np.intp)
        np.cumsum(sizes, out=self.offsets[1:])
        self.unit_bag = bags.instance_bag if inbag is None else \
            np.repeat(np.arange(sizes.shape[0], dtype=np.intp), sizes)

    def _scatter(self, values, per_instance=False):
        """Per in-bag bag (or instance) values -> per training bag (or instance), 0 out of the round."""
        if self.inbag is None:
            return values
        n, where = (self.training.n_instances, self.units) if per_instance else (self.training.n_bags, self.inbag)
        full = np.zeros(n, dtype=values.dtype)
        full[where] = values
        return full

    def grow(self, labels, weight, cols, options, per_instance=False):
        """A C4.5-MI tree on the in-bag bags (out-of-bag ones at weight 0), searching `cols` in place.

        With `per_instance`, `labels` and `weight` are the in-bag instances'
        and each instance counts as a bag of its own.
        """
        unit_of = self.training.instance_bag
        if per_instance:
            unit_of = np.arange(self.training.n_instances, dtype=np.intp)
        tree, _ = build_tree(self.training.instances, unit_of, self._scatter(labels, per_instance),
                             self._scatter(weight, per_instance), presorted=self.binned, features=cols, **options)
        return tree


class BagRound:
    """A round's in-bag bags for a bag-ratio tree: the fit's share table and which bags are in.

    The units are bags: ``offsets`` numbers the in-bag bags one unit each.
    """

    def __init__(self, table, n_bags, inbag=None):
        self.table, self.n_bags = table, n_bags
        self.inbag = np.arange(n_bags) if inbag is None else inbag
        self.units = None if inbag is None else inbag
        self.offsets = np.arange(self.inbag.shape[0] + 1, dtype=np.intp)
        self.unit_bag = np.arange(self.inbag.shape[0], dtype=np.intp)


class InstanceTrees:
    """C4.5-MI trees on the instances, a bag's score pooling its instances' scores.

    A round's tree is grown on the bags (``units="bags"``: a bag labelled by
    the sign of its residual and weighted by its size, the multi-instance
    criterion counting the distinct bags on each side of a cut) or on the
    instances (``units="instances"``: instance i of bag b labelled by the
    sign of its share of the bag's residual, ``-g_b a_i`` with
    ``a_i = dS_b / df_i`` from the pooling, and weighted by its size; every
    instance counts as a bag of its own, so the criterion is the
    information gain on those weighted instances). On bags of hundreds of
    instances every node holds instances of nearly every bag, so the
    distinct-bag counts of the two sides of a cut barely differ and the
    multi-instance gain cannot rank the cuts; the instances' shares of the
    residuals can.

    Parameters
    ----------
    pooling, sharpness : str, float
        The pooling of :func:`mil.tree._pooling.pool`.
    tree_options : dict
        Keyword arguments of :func:`mil.tree._builder.build_tree` shared by
        every tree (criterion, depth, leaf size, growth, ...).
    feature_sampling : {"tree", "node"}
        Where a tree's feature subset is drawn.
    splitter : {"exact", "hist"}
        The resolved split search.
    units : {"bags", "instances"}, default="bags"
        What a tree's split criterion counts.
    """

    bag_level = False

    def __init__(self, pooling, sharpness, tree_options, feature_sampling, splitter, units="bags"):
        self.pooling, self.sharpness = pooling, sharpness
        self.tree_options, self.feature_sampling, self.splitter = tree_options, feature_sampling, splitter
        self.units = units

    @staticmethod
    def n_units(bags):
        return bags.n_instances

    def pool(self, f, offsets, derivatives=False):
        """Bag scores (and, with `derivatives`, the pooling's derivatives) of the units' scores `f`."""
        return pool(f, offsets, self.pooling, self.sharpness, derivatives)

    def constant_is_bag_score(self):
        """Whether a constant instance score is the bag score (so the best constant has a closed form)."""
        return self.pooling != "noisy-or"

    def prepare(self, bags):
        """The layout shared by the fit's trees: presorted ("exact") or binned ("hist")."""
        return prepare_layout(bags.instances, bags.instance_bag, self.splitter)

    def round(self, prepared, bags, inbag):
        """The round of the in-bag bags `inbag` (None: every bag)."""
        if self.splitter == "hist":
            return BinnedRound(prepared, bags, inbag)
        return SortedRound(prepared, bags, inbag)

    def tree_inputs(self, rnd, grad, label_at_zero, w, derivatives):
        """The labels and weights a round's tree is grown on, and the least weight of a child.

        Bags (:func:`residual_tree_inputs` of the bag gradients), or
        instances: instance i of bag b has the gradient ``g_b a_i``; the
        least weight of a child is then ``min_bags_leaf`` average bags'
        worth of instance weight.
        """
        min_weight = self.tree_options["min_bags_leaf"]
        if self.units == "bags":
            return (*residual_tree_inputs(grad, label_at_zero, w), min_weight)
        bag = rnd.unit_bag
        labels, weight = residual_tree_inputs(grad[bag] * derivatives[0], label_at_zero[bag],
                                              None if w is None else w[bag])
        per_bag = bag.shape[0] / grad.shape[0] if w is None else math.fsum(w[bag]) / math.fsum(w)
        return labels, weight, min_weight * per_bag

    def grow(self, rnd, labels, weight, rng, n_feat, min_weight):
        """A C4.5-MI tree on all features, or on random subsets of `n_feat` of them (per tree or per node)."""
        d = rnd.n_features
        per_node = self.feature_sampling == "node" and n_feat < d
        cols = None if per_node or n_feat >= d else np.sort(rng.choice(d, n_feat, replace=False))
        options = dict(self.tree_options, max_features=n_feat if per_node else None,
                       random_state=rng if per_node else None, min_bags_leaf=min_weight)
        if self.units == "instances":
            # An instance is in one node only: removing "explained" instances changes nothing.
            options["remove_positive_bags"] = False
        return rnd.grow(labels, weight, cols, options, per_instance=self.units == "instances")

    @staticmethod
    def leaves(tree, bags):
        """The leaf of every instance of `bags`."""
        return tree.apply(bags.instances)

    @staticmethod
    def add_scores(trees, columns, scale, bags, out):
        """``out[:, columns[t]] += scale * tree t's values``, tree after tree, in one compiled pass."""
        if not trees:
            return
        node_offsets = np.zeros(len(trees) + 1, dtype=np.intp)
        np.cumsum([t.node_count for t in trees], out=node_offsets[1:])
        packed = [np.concatenate([getattr(t, name) for t in trees])
                  for name in ("feature", "threshold", "missing_left", "children_left", "children_right", "value")]
        kernel("_tree_split").add_tree_values(bags.instances, *packed, node_offsets,
                                              np.asarray(columns, dtype=np.intp), scale, out)

    @staticmethod
    def importance(tree, n_features):
        """The tree's split gains weighted by the node's bag weight, per feature (not normalised)."""
        imp = np.zeros(n_features)
        internal = tree.feature >= 0
        np.add.at(imp, tree.feature[internal],
                  np.maximum(tree.gain[internal], 0.0) * (tree.weighted_pos + tree.weighted_neg)[internal])
        return imp


class BagRatioTrees:
    """Bag-ratio trees: each bag reaches one leaf, so the units are the bags and the pooling is the identity.

    Parameters
    ----------
    n_rules : int
        Candidate thresholds per searched feature.
    best_ratio : bool
        Each candidate's ratio is the best cut of the bags' shares (else uniform).
    min_bags : int
        Bags each child of a rule needs (a node stays a leaf below twice it).
    max_depth : int or None
    """

    bag_level = True

    def __init__(self, n_rules, best_ratio, min_bags, max_depth):
        self.n_rules, self.best_ratio, self.min_bags, self.max_depth = n_rules, best_ratio, min_bags, max_depth

    @staticmethod
    def n_units(bags):
        return bags.n_bags

    @staticmethod
    def pool(f, offsets, derivatives=False):
        # A bag-ratio tree moves the whole bag's score: dS_b/df_b = 1, no curvature of its own.
        if not derivatives:
            return f
        ones = np.ones(f.shape[0])
        return f, ones, np.zeros_like(ones), np.zeros_like(ones)

    @staticmethod
    def constant_is_bag_score():
        return True

    @staticmethod
    def prepare(bags):
        """The share table of the training bags, read by every tree's grower."""
        return share_table(bags)

    @staticmethod
    def round(prepared, bags, inbag):
        return BagRound(prepared, bags.n_bags, inbag)

    @staticmethod
    def tree_inputs(rnd, grad, label_at_zero, w, derivatives):
        """The bags' labels and weights (:func:`residual_tree_inputs`); the leaf size is the grower's own."""
        return (*residual_tree_inputs(grad, label_at_zero, w), None)

    def grow(self, rnd, bag_pos, weight, rng, n_feat, min_weight=None):
        """A bag-ratio tree (BLRT's grower) on the round's bags: residual signs as the classes."""
        label = np.zeros(rnd.n_bags, dtype=np.intp)
        full_weight = np.zeros(rnd.n_bags)  # bags out of the round weigh 0: the grower skips them
        label[rnd.inbag], full_weight[rnd.inbag] = bag_pos, weight
        return grow_bag_ratio_tree(rnd.table, label, 2, full_weight, int(rng.randint(SEED_MAX)), n_feat,
                                   self.n_rules, self.best_ratio, self.min_bags, self.max_depth)

    @staticmethod
    def leaves(tree, bags):
        """The leaf of every bag of `bags`."""
        return tree.apply(*bag_table(bags))

    def add_scores(self, trees, columns, scale, bags, out):
        """``out[:, columns[t]] += scale * tree t's values``, tree after tree."""
        for tree, c in zip(trees, columns):
            out[:, c] += scale * tree.value[self.leaves(tree, bags)]

    @staticmethod
    def importance(tree, n_features):
        """The tree's entropy decreases (already times the node's bag weight), per feature."""
        imp = np.zeros(n_features)
        internal = tree.feature >= 0
        np.add.at(imp, tree.feature[internal], np.maximum(tree.gain[internal], 0.0))
        return imp


def is_bag_ratio_tree(tree):
    """Whether `tree` is a bag-ratio tree (rather than a C4.5-MI tree)."""
    return isinstance(tree, BagRatioTree)
