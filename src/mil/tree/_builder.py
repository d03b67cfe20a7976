"""The split driver of the multi-instance trees, shared by ID3-MI, C4.5-MI, the MI forest and GDBT-MI.

:func:`build_tree` grows one tree over a bag collection with 0/1 bag labels
and optional bag weights. Each feature is argsorted once at the root (or
binned once: the histogram search); every node owns one segment of a node
layout (:mod:`mil.tree._nodes`), a split partitions it, and the per-node
search never sorts. The choice between features is made in
:mod:`mil.tree._split_choice`, in Python shared by both backends; the
searches themselves are the compiled kernel ``_tree_split`` (or its NumPy
twin), looked up through :func:`mil._core.kernel`.

Positive-bag removal: when a leaf is made whose instances all belong to
positive bags, those bags are explained and their instances leave every node
not yet expanded (done lazily, by filtering a node's segments when it is
expanded; the result is the same as removing them at once).

For boosting: pass ``bag_pos`` = sign of the bag residual and ``bag_weight`` =
its size; the tree's ``weighted_pos`` / ``weighted_neg`` hold the weighted
leaf statistics, :meth:`Tree.apply` routes instances to leaves, and
``tree.value`` can be overwritten by a Newton step.
"""

import heapq

import numpy as np

from mil._core import kernel
from mil.tree._nodes import BinnedNodes, GatheredNodes, PartitionedNodes
from mil.tree._rows import BinnedRows, PresortedRows
from mil.tree._split_choice import j48_min_leaf, place_cut, search_node
from mil.tree._tree import Tree
from mil.utils._threads import RowThreads

__all__ = ["build_tree"]


def build_tree(instances, instance_bag, bag_pos, bag_weight=None, *, criterion="gain_ratio",
               max_depth=None, min_bags_leaf=2, growth="depth", remove_positive_bags=True,
               split_shares="parent", rank=None, presorted=None, n_jobs=None, max_features=None,
               random_state=None, copy_presorted=True, leaf_weight=None, mdl_correction=False,
               cut_placement="midpoint", max_leaf_nodes=None, tie_break="rank", return_split_order=False,
               min_split="constant", average_gain_tolerance=0.0, splitter="exact", features=None):
    """Grow a multi-instance tree.

    Parameters
    ----------
    instances : ndarray of float64 (or float32 with ``splitter="hist"``), shape (n_instances, n_features)
        C-contiguous; NaN marks a missing value.
    instance_bag : ndarray of intp, shape (n_instances,)
        Bag index of each instance.
    bag_pos : ndarray of uint8, shape (n_bags,)
        1 for positive bags.
    bag_weight : ndarray of float64, shape (n_bags,), default=None
        Split bag weights (ones by default). They weigh pi and nu in the
        criteria and in `min_bags_leaf` (``weighted_pos`` / ``weighted_neg``);
        purity and ``n_pos_bags`` / ``n_neg_bags`` are plain counts. Bags of
        weight 0 are left out entirely (a forest's out-of-bag bags): their
        instances are moved past the root's segment before growth.
    criterion : {"gain_ratio", "gain"}
        C4.5-MI or ID3-MI.
    max_depth : int or None
    min_bags_leaf : float
        Minimum (weighted) number of distinct bags in each child of a split.
    min_split : {"constant", "j48"}
        ``"j48"``: the minimum of a node's children grows with the node, as
        in Weka's J48 (see :func:`j48_min_leaf`); `min_bags_leaf` is its floor.
    growth : {"depth", "best"}
        Depth-first, or best-first (the open node with the highest share of
        positive bag weight first, ties to the older node, as MITI).
    remove_positive_bags : bool
        Positive-bag removal (see the module docstring).
    split_shares : {"parent", "children"}
        Weigh each child's Info_multi by its bag weight over the parent's
        (ID3-MI's formula, Chevaleyre & Zucker 2001; a bag on both sides counts twice, so the
        shares may sum above one) or over the children's total (shares sum
        to one).
    rank : ndarray of intp, shape (n_features,), default=None
        Tie-break order of the features (lowest index first by default).
    presorted : PresortedRows or BinnedRows, default=None
        The presorted rows of exactly these instances, to skip the sort
        when many trees grow on the same data (boosting, forests); it is
        copied, not modified, unless `copy_presorted` is False (with
        `max_features` it is only read, never copied). None sorts here.
    n_jobs : int, default=None
        Threads sharing out the features of each node's split search and
        partition (joblib's convention: None is 1, -1 one per core). The
        tree does not depend on it. A search over a random feature subset
        runs in the calling thread (only the partition is shared out).
    max_features : int or None, default=None
        Random forests: at every node, only `max_features` features drawn
        at random (without replacement) are searched; if none of them has
        an admissible cut, the next `max_features` of the same random order
        are searched, and so on (as scikit-learn, a node becomes a leaf only
        when no feature at all can split it). The features compete as usual
        within the searched block (C4.5-MI's average-gain guard among them).
        None searches every feature.
    random_state : numpy.random.RandomState, default=None
        Source of the feature subsets (required with `max_features`). The
        draws happen in node order, which both backends share, so the tree
        depends only on the generator's state.
    copy_presorted : bool, default=True
        False lets the builder partition `presorted` in place (when the
        caller made it for this tree alone, e.g. ``presorted.subset``).
    leaf_weight : ndarray of float64, shape (n_bags,), default=None
        Leaf bag weights: they weigh pi and nu in the leaf estimates
        (``leaf_pos`` / ``leaf_neg``, from which the Laplace estimate and
        pi > nu are computed). None counts every bag of positive
        `bag_weight` once (distinct counts), as a forest's trees do with
        their bootstrap multiplicity in `bag_weight`; a tree fitted with
        sample weights passes them here too, so that an integer weight
        counts like copies of the bag.
    mdl_correction : bool or {"cuts", "partitions"}, default=False
        C4.5 release 8's correction of the gain of numeric splits (Quinlan
        1996), as Weka's J48 applies it: a feature's best gain is reduced by
        log2(K) / N, N the node's bag weight and K its admissible cut
        points in the node ("cuts" or True, J48's count) or the distinct
        partitions of the node's bags they make ("partitions"); a feature
        whose corrected gain is not positive cannot split, and ID3-MI's
        gain, C4.5-MI's average-gain guard and gain ratio use the corrected
        gains (see :func:`choose_feature`). The best cut of each feature,
        and the stored node gain, are unchanged.
    average_gain_tolerance : float, default=0.0
        C4.5-MI: a feature may split only if its gain is at least the
        average gain of the candidate features less this many bits (see
        :func:`choose_feature`; J48's is 0.001). 0 is C4.5's guard.
    splitter : {"exact", "hist"}, default="exact"
        "exact": every cut between distinct values of the node (presorted
        features). "hist": the histogram search on binned features (see
        :class:`~mil.tree._rows.BinnedRows` and ``_tree_split.binned_best_splits``): cuts only
        on bin edges, found from per-bag lowest / highest bins without
        sorting; with at most 255 distinct values per feature it finds the
        exact search's partitions and gains (the thresholds are the bin
        edges). A `presorted` that is :class:`~mil.tree._rows.BinnedRows` selects "hist".
        With "hist", `cut_placement` must be "midpoint" or "training-value".
    features : ndarray of intp, default=None
        Search only these features (increasing indices) at every node, in
        place: the tree is the one grown on ``instances[:, features]``, with
        its split features numbered as in `instances` (GDBT-MI's feature
        subset per tree, without copying the columns). Not with
        `max_features` nor ``tie_break="instances"``. None searches all.

    Returns
    -------
    tree : Tree
    train_leaf : ndarray of intp, shape (n_instances,)
        Leaf in which each training instance ended during growth, -1 for
        instances removed with an explained bag.
    split_order : ndarray of intp, shape (n_nodes,)
        Only with `return_split_order`: the position of each node's split in
        the growth (0 for the root), -1 for leaves.
    """
    growth_ = _Growth(instances, instance_bag, bag_pos, bag_weight, leaf_weight, rank, criterion=criterion,
                      max_depth=max_depth, min_bags_leaf=min_bags_leaf, growth=growth,
                      remove_positive_bags=remove_positive_bags, split_shares=split_shares,
                      max_features=max_features, rng=random_state, mdl_correction=mdl_correction,
                      cut_placement=cut_placement, max_leaf_nodes=max_leaf_nodes, tie_break=tie_break,
                      min_split=min_split, average_gain_tolerance=average_gain_tolerance, features=features)
    if isinstance(presorted, BinnedRows):
        splitter = "hist"
    if splitter not in ("exact", "hist"):
        raise ValueError(f"splitter must be 'exact' or 'hist'; got {splitter!r}")
    if splitter == "hist" and cut_placement not in ("midpoint", "training-value"):
        raise ValueError(f"cut_placement={cut_placement!r} moves a cut between the node's values, which the "
                         "histogram search does not keep; use splitter='exact' or cut_placement='midpoint'")
    threads = RowThreads(n_jobs, instances.shape[1])
    try:
        layout = _node_layout(splitter, presorted, copy_presorted, growth_.max_features is not None, instances,
                              growth_.instance_bag, threads)
        tree, train_leaf, split_order = growth_.grow(layout)
    finally:
        threads.close()
    return (tree, train_leaf, split_order) if return_split_order else (tree, train_leaf)


def _node_layout(splitter, presorted, copy_presorted, per_node_features, instances, instance_bag, threads):
    """The tree's node layout: binned ids ("hist"), gathered ids (a feature subset per node) or partitioned rows."""
    ts = kernel("_tree_split")
    if splitter == "hist":
        binned = presorted if presorted is not None else BinnedRows(instances, instance_bag, threads)
        return BinnedNodes(ts, threads, binned, instances, instance_bag)
    if presorted is None:
        presorted = PresortedRows(instances, instance_bag, threads)
    elif copy_presorted and not per_node_features:
        presorted = presorted.copy()  # partitioned in place; the caller's stays as it was
    if per_node_features:
        return GatheredNodes(ts, presorted, instances, instance_bag)  # the rows are only read
    return PartitionedNodes(ts, threads, presorted)


class _Growth:
    """One tree's growth: its fixed arguments, its nodes, and the loop that expands them.

    The nodes are expanded depth-first or best-first (`growth`). Each node is
    a dict of the :class:`~mil.tree.Tree` fields plus its segment, depth,
    bag statistics and the epoch of positive-bag removal it last saw.
    """

    def __init__(self, instances, instance_bag, bag_pos, bag_weight, leaf_weight, rank, *, criterion, max_depth,
                 min_bags_leaf, growth, remove_positive_bags, split_shares, max_features, rng, mdl_correction,
                 cut_placement, max_leaf_nodes, tie_break, min_split, average_gain_tolerance, features):
        d = instances.shape[1]
        self.instances, self.n_bags = instances, bag_pos.shape[0]
        self.instance_bag = np.ascontiguousarray(instance_bag, dtype=np.intp)
        self.bag_pos = np.ascontiguousarray(bag_pos, dtype=np.uint8)
        self.bag_weight = np.ascontiguousarray(np.ones(self.n_bags) if bag_weight is None else bag_weight,
                                               dtype=np.float64)
        self.leaf_weight = None
        if leaf_weight is not None:
            self.leaf_weight = np.ascontiguousarray(leaf_weight, dtype=np.float64)
            if self.leaf_weight.shape != (self.n_bags,):
                raise ValueError(f"leaf_weight has shape {self.leaf_weight.shape}; expected ({self.n_bags},), "
                                 "one per bag")
        self.rank = np.arange(d, dtype=np.intp) if rank is None else rank
        self.criterion, self.growth, self.split_shares = criterion, growth, split_shares
        self.max_depth = np.iinfo(np.intp).max if max_depth is None else int(max_depth)
        self.max_splits = np.iinfo(np.intp).max if max_leaf_nodes is None else int(max_leaf_nodes) - 1
        self.min_bags_leaf, self.min_split = min_bags_leaf, min_split
        self.remove_positive_bags, self.mdl_correction = remove_positive_bags, mdl_correction
        self.cut_placement, self.tie_break = cut_placement, tie_break
        self.average_gain_tolerance, self.rng = average_gain_tolerance, rng
        if max_features is not None:
            max_features = int(max_features)
            if not 1 <= max_features:
                raise ValueError(f"max_features must be >= 1; got {max_features}")
            if max_features >= d:
                max_features = None
            elif rng is None:
                raise ValueError("max_features needs a random_state (a numpy RandomState)")
        self.max_features = max_features
        if features is not None:
            features = np.ascontiguousarray(features, dtype=np.intp)
            if max_features is not None or tie_break == "instances":
                raise ValueError("features cannot be combined with max_features or tie_break='instances'")
            if features.ndim != 1 or features.size == 0 or (np.diff(features) <= 0).any() \
                    or features[0] < 0 or features[-1] >= d:
                raise ValueError(f"features must be increasing feature indices in [0, {d}); got {features}")
            if features.size == d:
                features = None
        self.features = features

    # -- the nodes ----------------------------------------------------------------
    def _stats(self, start, end):
        """(n_pos, n_neg, w_pos, w_neg, leaf_pos, leaf_neg) of the node's distinct bags.

        Weights summed in ascending bag order, in one compiled pass over the
        node (O(node), not O(all bags)).
        """
        ts = kernel("_tree_split")
        out = ts._node_stats(self.layout.ids(start, end), self.instance_bag, self.bag_pos, self.bag_weight,
                             self.leaf_weight)
        if out is None:  # the layout holds the bags out of order: the same pass over them sorted
            bags = np.sort(self.layout.bags(start, end))
            out = ts._node_stats(np.arange(bags.shape[0], dtype=np.intp), bags, self.bag_pos, self.bag_weight,
                                 self.leaf_weight)
        return out

    @staticmethod
    def _share(stats):
        """The node's share of positive bag weight (best-first growth expands the largest first)."""
        w_pos, w_neg = stats[2], stats[3]
        return w_pos / (w_pos + w_neg) if w_pos + w_neg > 0 else 0.0

    def _new_node(self, start, end, depth):
        """Make a node on ``[start, end)``: its id and its share of positive bag weight."""
        stats = self._stats(start, end)
        self.nodes.append(dict(start=start, end=end, depth=depth, epoch=self.epoch, feature=-1, threshold=np.nan,
                               missing_left=0, children_left=-1, children_right=-1, gain=0.0, stats=stats))
        return len(self.nodes) - 1, self._share(stats)

    def _push(self, node_id, priority):
        if self.growth == "best":
            heapq.heappush(self.open, (-priority, node_id))
        else:
            self.open.append(node_id)

    def _pop(self):
        if self.growth == "best":
            neg_priority, node_id = heapq.heappop(self.open)
            return node_id, -neg_priority
        return self.open.pop(), None

    def _catch_up(self, node_id, priority):
        """Remove the bags explained since the node was opened; False when it must wait its turn again."""
        node = self.nodes[node_id]
        start, end = node["start"], node["end"]
        if end > start:
            ids = self.layout.ids(start, end)
            stay = ~self.removed[self.instance_bag[ids]]
            if not stay.all():  # often none of them: skip the partition of every row
                self.go_left[ids] = stay
                node["end"] = end = start + self.layout.partition(start, end, self.go_left)
        node["epoch"] = self.epoch
        node["stats"] = self._stats(start, end)
        new_share = self._share(node["stats"])
        if self.growth == "best" and new_share < priority:
            self._push(node_id, new_share)  # shares only fall: a lazy update is exact
            return False
        return True

    def _expand(self, node_id):
        """Split the node, or make it a leaf (explaining its bags if all are positive)."""
        node = self.nodes[node_id]
        start, end = node["start"], node["end"]
        pi, nu, w_pos, w_neg = node["stats"][:4]
        feature = -1
        if pi > 0 and nu > 0 and node["depth"] < self.max_depth and self.n_splits < self.max_splits:
            min_weight = (j48_min_leaf(w_pos + w_neg, self.min_bags_leaf) if self.min_split == "j48"
                          else self.min_bags_leaf)
            feature, split = search_node(self.layout, start, end, (w_pos, w_neg, min_weight), self, self.rng)
        if feature < 0:
            self.train_leaf[self.layout.ids(start, end)] = node_id
            if self.remove_positive_bags and pi > 0 and nu == 0:
                self.removed[self.layout.bags(start, end)] = True
                self.epoch += 1
            return
        threshold, missing_left = split[2], bool(split[3])
        if self.cut_placement != "midpoint":
            ids, v = self.layout.values(feature, start, end)
            threshold = place_cut(self.cut_placement, self.instances, self.instance_bag, ids, v, feature, threshold,
                                  self.bag_pos, self.bag_weight, self.min_bags_leaf, self.split_shares, w_pos,
                                  w_neg)
        mid = start + self.layout.split(start, end, feature, threshold, missing_left, self.go_left)
        node.update(feature=feature, threshold=threshold, missing_left=int(missing_left), gain=split[0],
                    split_order=self.n_splits)
        self.n_splits += 1
        left, right = self._new_node(start, mid, node["depth"] + 1), self._new_node(mid, end, node["depth"] + 1)
        node["children_left"], node["children_right"] = left[0], right[0]
        # Depth-first expands the left child first: it is pushed last.
        for child in (left, right) if self.growth == "best" else (right, left):
            self._push(*child)

    def grow(self, layout):
        """Grow the tree on `layout`: ``(tree, train_leaf, split_order)``."""
        n = self.instances.shape[0]
        self.layout, self.nodes, self.open = layout, [], []
        self.go_left = np.zeros(n, dtype=np.uint8)
        self.removed = np.zeros(self.n_bags, dtype=bool)
        self.train_leaf = np.full(n, -1, dtype=np.intp)
        self.epoch = self.n_splits = 0
        n_root = n
        if not (self.bag_weight > 0).all():  # bags of weight 0 leave the root before growth
            keep = (self.bag_weight > 0)[self.instance_bag].view(np.uint8)
            n_root = layout.partition(0, n, np.ascontiguousarray(keep))
        self._push(*self._new_node(0, n_root, 0))
        while self.open:
            node_id, priority = self._pop()
            if self.nodes[node_id]["epoch"] != self.epoch and not self._catch_up(node_id, priority):
                continue
            self._expand(node_id)
        return self._tree(), self.train_leaf, np.array([nd.get("split_order", -1) for nd in self.nodes],
                                                        dtype=np.intp)

    def _tree(self):
        """The grown nodes as a :class:`~mil.tree.Tree` (leaf values: the Laplace estimate)."""
        nodes = self.nodes
        arrays = {key: np.array([nd[key] for nd in nodes]) for key in
                  ("feature", "threshold", "missing_left", "children_left", "children_right", "depth", "gain")}
        for i, key in enumerate(("n_pos_bags", "n_neg_bags", "weighted_pos", "weighted_neg", "leaf_pos",
                                 "leaf_neg")):
            arrays[key] = np.array([nd["stats"][i] for nd in nodes])
        arrays["n_instances"] = np.array([nd["end"] - nd["start"] for nd in nodes])
        arrays["value"] = (arrays["leaf_pos"] + 1.0) / (arrays["leaf_pos"] + arrays["leaf_neg"] + 2.0)
        return Tree(n_features=self.instances.shape[1], **arrays)
