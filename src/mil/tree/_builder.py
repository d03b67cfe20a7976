"""Shared split driver of the multi-instance trees, also used by GDBT-MI.

:func:`build_tree` grows one tree over a bag collection with 0/1 bag labels and
optional bag weights. Each feature is argsorted once at the root; every node
owns one segment ``[start, end)`` of each feature's sorted row and a split
partitions those segments stably (``_tree_split.partition``), so the per-node
search (``_tree_split.best_splits``) never sorts. With a random feature subset
per node (``max_features``, forests) only the node's instance ids are
partitioned, and each searched feature's values are gathered from the root's
sorted row in that row's order (``_tree_split.gather_best_splits``): the same
sequences the partitioned segments would hold, so the same tree, without
moving the rows of the features not searched. The choice between features
(ID3-MI: largest gain; C4.5-MI: largest gain ratio among features whose gain
is at least the average) is made here, in Python shared by both backends.

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
import threading

import numpy as np
from scipy.stats import norm

from mil._core import kernel
from mil._core._bag_counts_py import sweep_distinct_bags
from mil._core._tree_split_py import _entropy_mass
from mil._core._tree_split_py import _midpoint as _midpoints
from mil._core._tree_split_py import _choose_feature as _choose_among
from mil._core._tree_split_py import sorted_bag_stats
from mil.tree._tree import Tree
from mil.utils._threads import RowThreads

__all__ = ["build_tree", "bin_edges", "prepare_layout", "resolve_splitter", "AUTO_HIST_INSTANCES", "prune_pessimistic", "choose_feature", "mdl_corrected_gains", "cost_complexity_path", "prune_cost_complexity"]

# Criteria within this many bits of the best are ties (lowest feature rank wins);
# it absorbs last-bit differences between libm builds, never real differences.
TIE_TOL = 1e-12
# C4.5 refuses splits with (near) zero split information.
MIN_SPLIT_INFO = 1e-10


def mdl_corrected_gains(stats, node_weight, count="cuts"):
    """Gains of the features' best cuts less C4.5 release 8's MDL cost of the threshold.

    Quinlan (1996), "Improved use of continuous attributes in C4.5": a
    numeric feature with K admissible cut points in a node of N cases
    pays log2(K) / N bits for the choice of its threshold. Here N is the
    node's bag weight (the gains are in bits per bag).

    Parameters
    ----------
    stats : ndarray of float64, shape (n_features, 8)
        From ``best_splits``.
    node_weight : float
        The node's bag weight N (weighted positive plus negative bags).
    count : {"cuts", "partitions"}, default="cuts"
        K: the feature's admissible cut points between distinct values
        (``stats[:, 6]``, J48's count), or the distinct partitions of the
        node's bags they make (``stats[:, 7]``; cuts between which no bag
        enters the left side or leaves the right one split the bags alike).
        With one instance per bag both are the same.

    Returns
    -------
    gains : ndarray of float64, shape (n_features,)
        ``stats[:, 0] - log2(K) / N`` (K < 1 only where no cut was found;
        those rows are left at their gain).
    """
    n_cuts = stats[:, 6 if count == "cuts" else 7]
    cost = np.log2(np.maximum(n_cuts, 1.0)) / node_weight
    return stats[:, 0] - cost


def choose_feature(found, stats, criterion, rank, tol=TIE_TOL, node_weight=None, mdl_count="cuts",
                   return_ties=False, average_gain_tolerance=0.0):
    """Pick the split feature of a node from the per-feature best cuts.

    Parameters
    ----------
    found : ndarray of uint8, shape (n_features,)
    stats : ndarray of float64, shape (n_features, 8)
        From ``best_splits``: gain, split information, threshold, NaN-left,
        left weight, right weight, admissible cut points, bag partitions.
    criterion : {"gain", "gain_ratio"}
        ID3-MI or C4.5-MI.
    rank : ndarray of intp, shape (n_features,)
        Tie-break order (lowest rank wins); ``arange`` for lowest index.
    tol : float, default=TIE_TOL
        Criteria within `tol` of the best are ties.
    node_weight : float or None, default=None
        When given (the node's bag weight), C4.5 release 8's MDL correction
        is applied as Weka's J48 does: each feature's gain is first reduced
        by :func:`mdl_corrected_gains`, features whose corrected gain is not
        positive are rejected, and the average-gain guard and the gain
        ratio use the corrected gains. None uses the gains as they are.
    mdl_count : {"cuts", "partitions"}, default="cuts"
        The K of the correction (see :func:`mdl_corrected_gains`).
    average_gain_tolerance : float, default=0.0
        C4.5-MI's average-gain guard admits a feature whose gain is at
        least the average gain of the candidates less this many bits (never
        less than `tol`, which absorbs round-off only). 0 is C4.5's rule;
        Weka's J48 (``C45ModelSelection``) uses 0.001. Unused by "gain".

    Returns
    -------
    feature : int
        -1 when no feature qualifies.
    """
    if node_weight is not None:
        # The corrected gains replace the gains; a feature whose corrected gain is not positive is out.
        gain = mdl_corrected_gains(stats, node_weight, mdl_count)
        found = np.ascontiguousarray(found.astype(bool) & (gain > 0.0), dtype=np.uint8)
        stats = np.array(stats, dtype=np.float64)
        stats[:, 0] = gain
    args = (criterion != "gain", rank, tol, average_gain_tolerance, MIN_SPLIT_INFO)
    if return_ties:
        return _choose_among(found, stats, *args, return_ties=True)
    # One compiled call per node (the NumPy twin computes the same choice).
    return kernel("_tree_split")._choose_feature(np.ascontiguousarray(found, dtype=np.uint8),
                                                 np.ascontiguousarray(stats, dtype=np.float64), args[0],
                                                 np.ascontiguousarray(rank, dtype=np.intp), *args[2:])


class _RowLayout:
    """What the two layouts share: one row per feature (`_fields` name the arrays), filled on threads."""

    _fields = ()

    @staticmethod
    def _fill(fill_rows, d, n, threads):
        """Run ``fill_rows(lo, hi)`` over the feature rows, shared out by `threads` (None: here)."""
        if threads is None:
            fill_rows(0, d)
        else:
            threads.run(fill_rows, cells=d * n)

    @property
    def n_rows(self):
        return getattr(self, self._fields[0]).shape[0]

    @classmethod
    def _from_arrays(cls, *arrays):
        out = cls.__new__(cls)
        for name, array in zip(cls._fields, arrays):
            setattr(out, name, array)
        return out


class _Presorted(_RowLayout):
    """The presorted layout: per feature, instance ids / values / bags in node segments.

    ``rank[f, i]`` (made on first use, once, then shared read-only) is the
    position of instance i in row f of the root layout.
    """

    _fields = ("order", "vals", "bag")
    _rank = None
    _rank_lock = threading.Lock()

    @property
    def rank(self):
        if self._rank is None:
            with self._rank_lock:
                if self._rank is None:
                    rank = np.empty_like(self.order)
                    np.put_along_axis(rank, self.order, np.arange(self.order.shape[1], dtype=np.intp)[None, :],
                                      axis=1)
                    self._rank = rank
        return self._rank

    def __init__(self, instances, instance_bag, threads=None):
        Xt = np.ascontiguousarray(instances.T)
        d, n = Xt.shape
        self.order = np.empty((d, n), dtype=np.intp)
        self.vals = np.empty((d, n))
        self.bag = np.empty((d, n), dtype=np.intp)

        def sort_rows(lo, hi):
            # NaN sorts last, which the split kernel relies on. The order among
            # equal values does not matter: cuts fall only between distinct
            # values, so the counts at a cut depend on sets, not on orders.
            self.order[lo:hi] = np.argsort(Xt[lo:hi], axis=1)
            self.vals[lo:hi] = np.take_along_axis(Xt[lo:hi], self.order[lo:hi], axis=1)
            self.bag[lo:hi] = instance_bag[self.order[lo:hi]]

        self._fill(sort_rows, d, n, threads)

    def rows(self, cols):
        """The layout of the features `cols` only (the rows are not copied again)."""
        return self._from_arrays(self.order[cols], self.vals[cols], self.bag[cols])

    def copy(self):
        """An independent copy (the builder partitions its layout in place; the rank is not copied)."""
        return self._from_arrays(self.order.copy(), self.vals.copy(), self.bag.copy())

    def subset(self, keep, bag_map):
        """The layout of the instances flagged in `keep`, without sorting again.

        Filtering keeps every row sorted. Instance ids are renumbered to
        positions among the kept instances and bags through `bag_map`
        (old bag index -> new one), as for ``instances[keep]``.
        """
        d, m = self.order.shape[0], int(np.count_nonzero(keep))
        new_id = np.cumsum(keep, dtype=np.intp) - 1
        sel = keep[self.order]
        return self._from_arrays(
            np.ascontiguousarray(new_id[self.order[sel]].reshape(d, m)),
            np.ascontiguousarray(self.vals[sel].reshape(d, m)),
            np.ascontiguousarray(np.asarray(bag_map, dtype=np.intp)[self.bag[sel]].reshape(d, m)))



#: Bins per feature of the histogram split search (the missing-value bin, 255, comes on top), as
#: scikit-learn's HistGradientBoostingClassifier.
MAX_BINS = 255
#: The bin edges are found on at most this many instances, as scikit-learn does.
BIN_SUBSAMPLE = 200_000


def _content_sample(instances, size, chunk=65_536):
    """Rows of `size` instances chosen by their values alone: those of the smallest 64-bit hash of their bytes.

    A seeded draw of row positions would choose other instances when the
    bags come in another order; this choice depends only on the multiset of
    rows (identical rows are interchangeable), so the bin edges do not
    depend on the order of the bags either.
    """
    n, d = instances.shape
    width = instances.dtype.itemsize * d
    n_words = -(-width // 8)
    multipliers = np.random.RandomState(0).randint(1, 2 ** 62, size=n_words, dtype=np.int64).astype(np.uint64) | 1
    hashes = np.empty(n, dtype=np.uint64)
    for lo in range(0, n, chunk):
        block = np.ascontiguousarray(instances[lo:lo + chunk])
        raw = np.zeros((block.shape[0], n_words * 8), dtype=np.uint8)
        raw[:, :width] = block.view(np.uint8).reshape(block.shape[0], width)
        words = raw.view(np.uint64)
        h = np.zeros(block.shape[0], dtype=np.uint64)
        for j in range(n_words):  # a multiply-xor-shift mix of every word (wrapping uint64 arithmetic)
            h = (h ^ (words[:, j] * multipliers[j])) * np.uint64(0x9E3779B97F4A7C15)
            h ^= h >> np.uint64(29)
        hashes[lo:lo + chunk] = h
    return np.sort(np.argpartition(hashes, size - 1)[:size])


def bin_edges(instances, max_bins=MAX_BINS, subsample=BIN_SUBSAMPLE):
    """Quantile bin edges of every feature (scikit-learn's ``_BinMapper`` rule).

    A feature with at most `max_bins` distinct non-missing values gets one
    bin per value, the edges midway between consecutive values (computed as
    the exact split search's thresholds, so every cut the exact search can
    make is a bin boundary); otherwise the edges are the ``1/max_bins``
    quantiles (midpoint interpolation), duplicates dropped. With more than
    `subsample` instances they are found on `subsample` of them chosen by
    their values (a hash of each row), so the binning depends neither on a
    random state nor on the order of the instances.

    Parameters
    ----------
    instances : ndarray of float32 or float64, shape (n_instances, n_features)
        NaN marks a missing value. Read column by column (a memory map works).
    max_bins : int, default=255
    subsample : int, default=200_000

    Returns
    -------
    edges : ndarray of float64, shape (n_features, 255)
        Row f: the ``n_bins[f] - 1`` increasing edges, then +inf.
    n_bins : ndarray of intp, shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> edges, n_bins = bin_edges(np.array([[0.0], [1.0], [3.0]]))
    >>> n_bins.tolist(), edges[0, :2].tolist()
    ([3], [0.5, 2.0])
    """
    n, d = instances.shape
    if not 2 <= max_bins <= MAX_BINS:
        raise ValueError(f"max_bins must lie in [2, {MAX_BINS}]; got {max_bins}")
    sample = instances
    if n > subsample:
        sample = instances[_content_sample(instances, subsample)]
    edges = np.full((d, MAX_BINS), np.inf)
    n_bins = np.ones(d, dtype=np.intp)
    for f in range(d):
        col = np.asarray(sample[:, f], dtype=np.float64)
        col = np.sort(col[~np.isnan(col)])  # one sort gives both the distinct values and the quantiles
        distinct = _distinct_sorted(col)
        if distinct.size <= max_bins:
            e = _midpoints(distinct[:-1], distinct[1:])
        else:
            # np.percentile(col, q, method="midpoint") on the sorted column.
            pos = np.linspace(0.0, 1.0, max_bins + 1)[1:-1] * (col.size - 1)
            e = np.unique(0.5 * (col[np.floor(pos).astype(np.intp)] + col[np.ceil(pos).astype(np.intp)]))
            e = e[e < distinct[-1]]  # an edge at the maximum would leave the last bin empty
        edges[f, :e.size] = e
        n_bins[f] = e.size + 1
    return edges, n_bins


class _Binned(_RowLayout):
    """The binned layout: every feature's bin codes, feature-major (uint8), with the bin edges.

    Made once per fit and shared read-only by the trees of a forest or a
    boosting run (the histogram search never moves it). The instances are
    read, never copied or upcast (float32 and memory maps are binned as
    they are).
    """

    _fields = ("codes", "edges", "n_bins")

    def __init__(self, instances, instance_bag=None, threads=None, max_bins=MAX_BINS):
        instances = instances if instances.flags.c_contiguous else np.ascontiguousarray(instances)
        n, d = instances.shape
        self.edges, self.n_bins = bin_edges(instances, max_bins)
        self.codes = np.empty((d, n), dtype=np.uint8)
        bk = kernel("_binning")

        def map_rows(lo, hi):
            bk.map_to_bins(instances, self.edges, self.n_bins, self.codes, lo, hi)

        self._fill(map_rows, d, n, threads)

    def copy(self):
        """Itself: the histogram search only reads the codes."""
        return self

    def rows(self, cols):
        """The layout of the features `cols` only."""
        return self._from_arrays(np.ascontiguousarray(self.codes[cols]), self.edges[cols], self.n_bins[cols])

    def subset(self, keep, bag_map=None):
        """The layout of the instances flagged in `keep` (same edges)."""
        return self._from_arrays(np.ascontiguousarray(self.codes[:, keep]), self.edges, self.n_bins)


def _distinct_sorted(values):
    """The distinct entries of a non-decreasing array, in O(len)."""
    if values.size == 0:
        return values
    first = np.empty(values.size, dtype=bool)
    first[0] = True
    np.not_equal(values[1:], values[:-1], out=first[1:])
    return values[first]


#: ``splitter="auto"`` searches histograms above this many training instances, every cut up to it.
AUTO_HIST_INSTANCES = 10_000


def resolve_splitter(splitter, bags, hist_ok=True):
    """The split search for `bags`: "exact" or "hist" as asked, or by size for "auto"; and the bags to search.

    "auto" is the histogram search on more than :data:`AUTO_HIST_INSTANCES`
    training instances (unless `hist_ok` is False: a ``cut_placement`` that
    only the exact search keeps) and the exact search on fewer (as scikit-learn's
    histogram boosting turns on early stopping above 10,000 samples): on
    small data the exact search costs no more and keeps every cut, on large
    data the histogram search is several times faster and lighter (see
    :doc:`/results/trees`, "Histogram split search"). The exact search reads
    float64, so float32 bags that it searches are copied to float64 here.

    Returns
    -------
    splitter : {"exact", "hist"}
    bags : Bags
    """
    if splitter == "auto":
        splitter = "hist" if hist_ok and bags.n_instances > AUTO_HIST_INSTANCES else "exact"
    if splitter == "exact" and bags.instances.dtype != np.float64:
        bags = type(bags)(bags.instances.astype(np.float64), bags.offsets, ids=bags.ids,
                          feature_names=bags.feature_names)
    return splitter, bags


def prepare_layout(instances, instance_bag, splitter="exact"):
    """The layout shared by the trees grown on these instances: presorted ("exact") or binned ("hist")."""
    if splitter == "hist":
        return _Binned(instances, instance_bag)
    return _Presorted(instances, instance_bag)


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
    presorted : _Presorted, default=None
        The presorted layout of exactly these instances, to skip the sort
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
        :class:`_Binned` and ``_tree_split.binned_best_splits``): cuts only
        on bin edges, found from per-bag lowest / highest bins without
        sorting; with at most 255 distinct values per feature it finds the
        exact search's partitions and gains (the thresholds are the bin
        edges). A `presorted` that is a ``_Binned`` layout selects "hist".
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
    ts = kernel("_tree_split")
    d = instances.shape[1]
    n_bags = bag_pos.shape[0]
    bag_pos = np.ascontiguousarray(bag_pos, dtype=np.uint8)
    if bag_weight is None:
        bag_weight = np.ones(n_bags)
    bag_weight = np.ascontiguousarray(bag_weight, dtype=np.float64)
    if leaf_weight is not None:
        leaf_weight = np.asarray(leaf_weight, dtype=np.float64)
        if leaf_weight.shape != (n_bags,):
            raise ValueError(f"leaf_weight has shape {leaf_weight.shape}; expected ({n_bags},), one per bag")
    if rank is None:
        rank = np.arange(d, dtype=np.intp)
    max_depth = np.iinfo(np.intp).max if max_depth is None else int(max_depth)

    if max_features is not None:
        max_features = int(max_features)
        if not 1 <= max_features:
            raise ValueError(f"max_features must be >= 1; got {max_features}")
        if max_features >= d:
            max_features = None
        elif random_state is None:
            raise ValueError("max_features needs a random_state (a numpy RandomState)")

    if features is not None:
        features = np.ascontiguousarray(features, dtype=np.intp)
        if max_features is not None or tie_break == "instances":
            raise ValueError("features cannot be combined with max_features or tie_break='instances'")
        if features.ndim != 1 or features.size == 0 or (np.diff(features) <= 0).any() \
                or features[0] < 0 or features[-1] >= d:
            raise ValueError(f"features must be increasing feature indices in [0, {d}); got {features}")
        if features.size == d:
            features = None
    if isinstance(presorted, _Binned):
        splitter = "hist"
    if splitter not in ("exact", "hist"):
        raise ValueError(f"splitter must be 'exact' or 'hist'; got {splitter!r}")
    if splitter == "hist" and cut_placement not in ("midpoint", "training-value"):
        raise ValueError(f"cut_placement={cut_placement!r} moves a cut between the node's values, which the "
                         "histogram search does not keep; use splitter='exact' or cut_placement='midpoint'")

    threads = RowThreads(n_jobs, d)
    try:
        if splitter == "hist":
            binned = presorted if presorted is not None else _Binned(instances, instance_bag, threads)
            layout = _BinnedLayout(ts, threads, binned, instances, instance_bag, n_bags)
            pre = None
        elif presorted is None:
            pre = _Presorted(instances, instance_bag, threads)
        elif max_features is None and copy_presorted:
            pre = presorted.copy()
        else:
            pre = presorted  # gathered from (read only), or the caller's to partition
        if splitter == "hist":
            pass
        elif max_features is None:
            layout = _PartitionLayout(ts, threads, pre)
        else:
            layout = _GatherLayout(ts, pre, instances, instance_bag)
        n_root = instances.shape[0]
        if not (bag_weight > 0).all():
            keep = (bag_weight > 0)[instance_bag].view(np.uint8)
            n_root = layout.partition(0, n_root, np.ascontiguousarray(keep))
        return _grow(layout, instances, instance_bag, bag_pos, bag_weight, criterion,
                     max_depth, min_bags_leaf, growth, remove_positive_bags, split_shares, rank,
                     max_features, random_state, n_root, leaf_weight, mdl_correction, cut_placement,
                     max_leaf_nodes, tie_break, return_split_order, min_split, average_gain_tolerance,
                     features)
    finally:
        threads.close()


class _PartitionLayout:
    """Node segments of every feature's sorted row, all partitioned at each split.

    The builder made the layout from validated bags, so it calls the
    kernels' underscored (unchecked) entry points.
    """

    def __init__(self, ts, threads, pre):
        self.ts, self.threads, self.pre = ts, threads, pre

    def ids(self, start, end):
        """The node's instance ids."""
        return self.pre.order[0, start:end]
    def bags(self, start, end):
        """The bag of each of the node's instances."""
        return self.pre.bag[0, start:end]

    def values(self, feature, start, end):
        """The node's instance ids and their values of `feature`."""
        return self.pre.order[feature, start:end], self.pre.vals[feature, start:end]

    def partition(self, start, end, go_left):
        """Move the instances with ``go_left[id]`` to the front of the node; returns how many."""
        pre, ts = self.pre, self.ts
        parts = self.threads.run(lambda lo, hi: ts._partition(pre.order[lo:hi], pre.vals[lo:hi], pre.bag[lo:hi],
                                                              start, end, go_left),
                                 cells=(end - start) * pre.n_rows)
        return parts[0]

    def split(self, start, end, feature, threshold, missing_left, go_left):
        """Partition the node by ``x[feature] <= threshold`` (NaN left if `missing_left`); returns how many go left."""
        ids, v = self.values(feature, start, end)
        go_left[ids] = (v <= threshold) | (np.isnan(v) & missing_left)
        return self.partition(start, end, go_left)

    def search(self, start, end, args, features=None):
        """``best_splits`` of every feature (rows shared out among the threads) or of `features`."""
        pre, ts = self.pre, self.ts
        if features is not None:
            return ts._best_splits(pre.vals, pre.bag, start, end, *args, features=features)
        return self.threads.concat(lambda lo, hi: ts._best_splits(pre.vals[lo:hi], pre.bag[lo:hi], start, end,
                                                                  *args),
                                   cells=(end - start) * pre.n_rows)


class _GatherLayout:
    """Node segments of one array of instance ids; searched features gathered from the root's rows.

    The root layout is only read (a forest's trees share it).
    """

    def __init__(self, ts, pre, instances, instance_bag):
        self.ts, self.pre, self.instances, self.instance_bag = ts, pre, instances, instance_bag
        self.samples = np.arange(instances.shape[0], dtype=np.intp)

    def ids(self, start, end):
        return self.samples[start:end]
    def bags(self, start, end):
        return self.instance_bag[self.samples[start:end]]

    def values(self, feature, start, end):
        ids = self.samples[start:end]
        return ids, self.instances[ids, feature]

    def partition(self, start, end, go_left):
        ids = self.samples[start:end]
        left = go_left[ids].view(bool)
        self.samples[start:end] = np.concatenate([ids[left], ids[~left]])
        return int(np.count_nonzero(left))

    def split(self, start, end, feature, threshold, missing_left, go_left):
        """As :meth:`_PartitionLayout.split`, in one compiled pass over the node's ids."""
        instances = self.instances
        if not (instances.flags.c_contiguous and instances.dtype in (np.float32, np.float64)):
            return _PartitionLayout.split(self, start, end, feature, threshold, missing_left, go_left)
        return self.ts._partition_ids(self.samples, start, end, instances, feature, threshold, missing_left)

    def search(self, start, end, args, features):
        pre = self.pre
        return self.ts._gather_best_splits(pre.vals, pre.bag, pre.rank, self.samples[start:end], features, *args)


class _BinnedLayout(_GatherLayout):
    """Node segments of one array of instance ids (kept ascending); split search on the binned codes.

    The codes are only read (a forest's trees share them).
    """

    def __init__(self, ts, threads, binned, instances, instance_bag, n_bags):
        super().__init__(ts, None, instances, instance_bag)
        self.threads, self.binned, self.n_bags = threads, binned, n_bags
        # Bags stored one after another (as in every Bags): the kernel's run-by-run pass applies.
        self.bags_sorted = bool((np.diff(instance_bag) >= 0).all())

    def search(self, start, end, args, features=None):
        b, ts = self.binned, self.ts
        ids = self.samples[start:end]
        bags = self.instance_bag[ids]
        if self.bags_sorted:  # ids ascending: bags non-decreasing; distinct ones in O(node)
            node_bags = _distinct_sorted(bags)
        else:
            node_bags = np.unique(bags)
        if features is not None:
            return ts._binned_best_splits(b.codes, b.edges, b.n_bins, ids, self.instance_bag, *args,
                                          features=features, node_bags=node_bags, bags_sorted=self.bags_sorted)
        return self.threads.concat(
            lambda lo, hi: ts._binned_best_splits(b.codes[lo:hi], b.edges[lo:hi], b.n_bins[lo:hi], ids,
                                                  self.instance_bag, *args, node_bags=node_bags,
                                                  bags_sorted=self.bags_sorted),
            cells=(end - start) * b.n_rows)


def j48_min_leaf(node_weight, min_bags_leaf, n_classes=2):
    """The least weight of each child of a split in Weka's J48 (its C45Split).

    A tenth of the node's weight per class, 0.1 W / k, raised to
    `min_bags_leaf` (J48's ``-M``) when it is at most that, else capped at
    25: large nodes cannot split off a few cases, small ones fall back to
    ``-M``.
    """
    share = 0.1 * node_weight / n_classes
    return float(min_bags_leaf) if share <= min_bags_leaf else min(share, 25.0)


def _search(layout, start, end, bag_pos, bag_weight, w_pos, w_neg, min_bags_leaf,
            split_shares, criterion, rank, max_features, rng, mdl_correction=False, tie_break="rank",
            instance_bag=None, average_gain_tolerance=0.0, features=None):
    """The split of a node: ``(feature, stats row)``, feature -1 when none is admissible."""
    # The cut points are only counted for the MDL correction that reads them (stats[:, 6]).
    count_cuts = bool(mdl_correction) and mdl_correction != "partitions"
    args = (bag_pos, bag_weight, w_pos, w_neg, float(min_bags_leaf), TIE_TOL, split_shares == "children",
            count_cuts)
    node_weight = w_pos + w_neg if mdl_correction else None
    mdl_count = "partitions" if mdl_correction == "partitions" else "cuts"
    choose = dict(node_weight=node_weight, mdl_count=mdl_count, average_gain_tolerance=average_gain_tolerance)
    if features is not None:  # a fixed subset, searched in place
        found, split = layout.search(start, end, args, features)
        best = choose_feature(found, split, criterion, rank[features], **choose)
        return (int(features[best]), split[best]) if best >= 0 else (-1, None)
    if max_features is None:
        found, split = layout.search(start, end, args)
        if tie_break == "instances":
            ties = choose_feature(found, split, criterion, rank, return_ties=True, **choose)
            if ties.size == 0:
                return -1, None
            feature = _instance_tie_break(layout, start, end, ties, split, rank, bag_pos, bag_weight,
                                          instance_bag)
            return feature, split[feature]
        feature = choose_feature(found, split, criterion, rank, **choose)
        return feature, (split[feature] if feature >= 0 else None)
    order = rng.permutation(rank.shape[0]).astype(np.intp)
    for lo in range(0, order.size, max_features):
        block = np.ascontiguousarray(order[lo:lo + max_features])
        found, split = layout.search(start, end, args, block)
        best = choose_feature(found, split, criterion, rank[block], **choose)
        if best >= 0:
            return int(block[best]), split[best]
    return -1, None


def _instance_tie_break(layout, start, end, ties, split, rank, bag_pos, bag_weight, instance_bag):
    """Among features whose cuts tie on bag counts, the one of largest gain on instances.

    Each instance is labelled by its bag and weighs its bag's weight; the
    cut is each feature's own (threshold and NaN direction). Remaining ties
    go to the lowest `rank`.
    """
    if ties.size == 1:
        return int(ties[0])
    scores = np.empty(ties.size)
    for i, f in enumerate(ties):
        ids, v = layout.values(int(f), start, end)
        left = (v <= split[f, 2]) | (np.isnan(v) & bool(split[f, 3]))
        scores[i] = _instance_gain(left, instance_bag[ids], bag_pos, bag_weight)
    best = scores.max()
    cand = ties[scores >= best - TIE_TOL * max(1.0, abs(best))]
    return int(cand[np.argmin(rank[cand])])


def _instance_gain(left, bags, bag_pos, bag_weight):
    pos = bag_pos[bags].astype(bool)
    w = bag_weight[bags]
    lp, ln = w[left & pos].sum(), w[left & ~pos].sum()
    rp, rn = w[~left & pos].sum(), w[~left & ~pos].sum()
    e = _emass(np.array([lp + rp, lp, rp]), np.array([ln + rn, ln, rn]))
    return float(e[0] - e[1] - e[2])


def _grow(layout, instances, instance_bag, bag_pos, bag_weight, criterion, max_depth,
          min_bags_leaf, growth, remove_positive_bags, split_shares, rank, max_features=None,
          rng=None, n_root=None, leaf_weight=None, mdl_correction=False, cut_placement="midpoint",
          max_leaf_nodes=None, tie_break="rank", return_split_order=False, min_split="constant",
          average_gain_tolerance=0.0, features=None):
    n = instances.shape[0]
    max_splits = np.iinfo(np.intp).max if max_leaf_nodes is None else int(max_leaf_nodes) - 1
    n_splits = 0
    n_bags = bag_pos.shape[0]
    instance_bag = np.ascontiguousarray(instance_bag, dtype=np.intp)
    go_left = np.zeros(n, dtype=np.uint8)
    removed = np.zeros(n_bags, dtype=bool)
    epoch = 0
    train_leaf = np.full(n, -1, dtype=np.intp)
    nodes = []  # per node: dict of the Tree fields
    ts = kernel("_tree_split")
    if leaf_weight is not None:
        leaf_weight = np.ascontiguousarray(leaf_weight, dtype=np.float64)

    def stats(start, end):
        # (n_pos, n_neg, w_pos, w_neg, leaf_pos, leaf_neg) of the node's distinct bags, weights summed
        # in ascending bag order, in one compiled pass over the node (O(node), not O(all bags)).
        out = ts._node_stats(layout.ids(start, end), instance_bag, bag_pos, bag_weight, leaf_weight)
        if out is None:  # the layout holds the bags out of order: sort them first
            out = sorted_bag_stats(np.sort(layout.bags(start, end)), bag_pos, bag_weight, leaf_weight)
        return out

    def share(w_pos, w_neg):
        return w_pos / (w_pos + w_neg) if w_pos + w_neg > 0 else 0.0

    def new_node(start, end, depth):
        nodes.append(dict(start=start, end=end, depth=depth, epoch=epoch, feature=-1,
                          threshold=np.nan, missing_left=0, children_left=-1,
                          children_right=-1, gain=0.0))
        node_id = len(nodes) - 1
        s = stats(start, end)
        nodes[node_id]["stats"] = s
        return node_id, share(s[2], s[3])

    open_nodes = []  # a stack (depth-first) or a heap of (-share, id) (best-first)

    def push(node_id, priority):
        if growth == "best":
            heapq.heappush(open_nodes, (-priority, node_id))
        else:
            open_nodes.append(node_id)

    def pop():
        if growth == "best":
            neg_priority, node_id = heapq.heappop(open_nodes)
            return node_id, -neg_priority
        return open_nodes.pop(), None

    root, root_share = new_node(0, n if n_root is None else n_root, 0)
    push(root, root_share)
    while open_nodes:
        node_id, priority = pop()
        node = nodes[node_id]
        start, end = node["start"], node["end"]
        if node["epoch"] != epoch:
            # Bags explained since this node was made leave it now.
            if end > start:
                ids = layout.ids(start, end)
                stay = ~removed[instance_bag[ids]]
                if not stay.all():  # often none of them: skip the partition of every row
                    go_left[ids] = stay
                    end = start + layout.partition(start, end, go_left)
                    node["end"] = end
            node["epoch"] = epoch
            node["stats"] = stats(start, end)
            new_share = share(node["stats"][2], node["stats"][3])
            if growth == "best" and new_share < priority:
                push(node_id, new_share)  # shares only fall: a lazy update is exact
                continue
        pi, nu, w_pos, w_neg = node["stats"][:4]
        feature = -1
        if pi > 0 and nu > 0 and node["depth"] < max_depth and n_splits < max_splits:
            node_min = (j48_min_leaf(w_pos + w_neg, min_bags_leaf) if min_split == "j48"
                        else min_bags_leaf)
            feature, split = _search(layout, start, end, bag_pos, bag_weight, w_pos, w_neg,
                                     node_min, split_shares, criterion, rank, max_features, rng,
                                     mdl_correction, tie_break, instance_bag, average_gain_tolerance,
                                     features)
        if feature < 0:
            train_leaf[layout.ids(start, end)] = node_id
            if remove_positive_bags and pi > 0 and nu == 0:
                removed[layout.bags(start, end)] = True
                epoch += 1
            continue
        threshold, missing_left = split[2], bool(split[3])
        if cut_placement != "midpoint":
            ids, v = layout.values(feature, start, end)
            threshold = place_cut(cut_placement, instances, instance_bag, ids, v, feature, threshold,
                                  bag_pos, bag_weight, min_bags_leaf, split_shares, w_pos, w_neg)
        mid = start + layout.split(start, end, feature, threshold, missing_left, go_left)
        node.update(feature=feature, threshold=threshold, missing_left=int(missing_left),
                    gain=split[0], split_order=n_splits)
        n_splits += 1
        left, left_share = new_node(start, mid, node["depth"] + 1)
        right, right_share = new_node(mid, end, node["depth"] + 1)
        node["children_left"], node["children_right"] = left, right
        if growth == "best":
            push(left, left_share)
            push(right, right_share)
        else:
            push(right, right_share)  # left is expanded first
            push(left, left_share)

    arrays = {key: np.array([nd[key] for nd in nodes]) for key in
              ("feature", "threshold", "missing_left", "children_left", "children_right",
               "depth", "gain")}
    arrays["n_pos_bags"] = np.array([nd["stats"][0] for nd in nodes])
    arrays["n_neg_bags"] = np.array([nd["stats"][1] for nd in nodes])
    arrays["weighted_pos"] = np.array([nd["stats"][2] for nd in nodes])
    arrays["weighted_neg"] = np.array([nd["stats"][3] for nd in nodes])
    arrays["leaf_pos"] = np.array([nd["stats"][4] for nd in nodes])
    arrays["leaf_neg"] = np.array([nd["stats"][5] for nd in nodes])
    arrays["n_instances"] = np.array([nd["end"] - nd["start"] for nd in nodes])
    arrays["value"] = (arrays["leaf_pos"] + 1.0) / (arrays["leaf_pos"] + arrays["leaf_neg"] + 2.0)
    tree = Tree(n_features=instances.shape[1], **arrays)
    if return_split_order:
        return tree, train_leaf, np.array([nd.get("split_order", -1) for nd in nodes], dtype=np.intp)
    return tree, train_leaf


def place_cut(placement, instances, instance_bag, ids, v, feature, threshold, bag_pos, bag_weight,
              min_bags_leaf, split_shares, w_pos, w_neg, tol=TIE_TOL):
    """Move a split's threshold without changing the bag counts of its children.

    The split kernel puts the threshold midway between the two node values
    around the first (lowest) cut of largest Gain_multi. On bag counts many
    cuts tie: a run of consecutive cuts where no bag enters the left side or
    leaves the right one has the same counts, and other runs can reach the
    same gain. The placements:

    "training-value"
        C4.5's: the largest value of the feature among all training
        instances that is at most the midpoint (Quinlan 1993; J48's
        ``setSplitPoint``). The node's training instances go the same way.
    "run-middle"
        Midway across the run of cuts with the kernel's cut's counts: from
        the value below its first cut to the value above its last one.
    "instances"
        Among all cuts whose Gain_multi ties with the best (within `tol`),
        the one of largest information gain on instances labelled by their
        bag (each instance weighing its bag's weight); lowest cut on ties.

    The last two need the node's values without NaN: with NaN in the node
    the kernel's threshold is kept.

    Returns
    -------
    threshold : float
    """
    if placement == "training-value":
        col = instances[:, feature]
        below = col[col <= threshold]  # NaN compares False
        return float(below.max()) if below.size else threshold
    order = np.argsort(v, kind="stable")
    v = v[order]
    if np.isnan(v[-1]):
        return threshold
    bags = instance_bag[ids[order]]
    lp, ln, rp, rn = (a[:-1] for a in sweep_distinct_bags(bags, bag_pos, bag_weight))
    cl, cr = lp + ln, rp + rn
    valid = (v[:-1] < v[1:]) & (cl >= min_bags_leaf) & (cr >= min_bags_leaf) & (cl > 0) & (cr > 0)
    if not valid.any():
        return threshold
    total = w_pos + w_neg
    parent = _emass(np.array([w_pos]), np.array([w_neg]))[0] / total
    denom = cl + cr if split_shares == "children" else total
    gain = np.where(valid, parent - (_emass(lp, ln) + _emass(rp, rn)) / denom, -np.inf)
    tied = np.flatnonzero(gain >= gain.max() - tol)
    k0 = int(tied[0])
    if _midpoint(v[k0], v[k0 + 1]) != threshold:
        return threshold  # not the kernel's cut (cannot happen without NaN; kept as a guard)
    if placement == "run-middle":
        # Counts only grow on the left and shrink on the right: the run is contiguous.
        same = ((lp == lp[k0]) & (ln == ln[k0]) & (rp == rp[k0]) & (rn == rn[k0]))[k0:]
        k_last = k0 + (int(np.argmin(same)) if not same.all() else same.size) - 1
        lo, hi = v[k0], v[k_last + 1]
    else:  # "instances"
        ipos = bag_pos[bags].astype(bool)
        w = bag_weight[bags]
        cum_p, cum_n = np.cumsum(np.where(ipos, w, 0.0)), np.cumsum(np.where(ipos, 0.0, w))
        ilp, iln = cum_p[tied], cum_n[tied]  # instance weight left of each tied cut
        ig = -(_emass(ilp, iln) + _emass(cum_p[-1] - ilp, cum_n[-1] - iln))
        k = int(tied[np.argmax(ig)])
        lo, hi = v[k], v[k + 1]
    return _midpoint(lo, hi)


def _midpoint(a, b):
    """The kernels' threshold between two values: midway, or `a` where rounding reaches `b`."""
    t = a / 2.0 + b / 2.0
    return float(t if a <= t < b else a)


def _emass(p, n):
    """(p + n) * Info(p, n) in bits, elementwise, with the split kernels' arithmetic."""
    return _entropy_mass(np.asarray(p, dtype=np.float64), np.asarray(n, dtype=np.float64))


def pessimistic_errors(n, e, confidence):
    """C4.5's upper confidence bound on the errors of a leaf with `n` cases, `e` errors.

    The binomial upper limit at level `confidence` (normal approximation with
    a continuity correction; exact limits for e = 0 and interpolation for
    0 < e < 1, as C4.5 does).
    """
    if n <= 0:
        return 0.0
    z = norm.isf(confidence)

    def extra(errors):
        if errors < 1e-6:
            return n * (1.0 - confidence ** (1.0 / n))
        if errors + 0.5 >= n:
            return 0.67 * (n - errors)
        f = errors + 0.5
        upper = (f + z * z / 2.0 + z * np.sqrt(f * (1.0 - f / n) + z * z / 4.0)) / (n + z * z)
        return n * upper - errors

    if e < 1e-6:
        add = extra(0.0)
    elif e < 0.9999:
        base = extra(0.0)
        add = base + e * (extra(1.0) - base)
    else:
        add = extra(e)
    return e + add


def prune_pessimistic(tree, confidence=0.25):
    """C4.5 error-based pruning on the bags' weights.

    A node whose bags weigh N = pi_w + nu_w in all (``weighted_pos`` +
    ``weighted_neg``: the bag weights the tree was grown with; the distinct
    bag counts with unit weights) and is labelled by majority makes
    E = min(pi_w, nu_w) errors; its subtree is replaced by a leaf when the
    leaf's pessimistic error estimate is at most the sum of its leaves'
    estimates plus 0.1 (C4.5's rule; subtree raising is not done). As in
    C4.5 (and Weka's J48, which counts instance weights), an integer weight
    counts as that many copies of the bag; the estimates are not invariant
    to a common scale of the weights (weights summing to the number of
    bags, or of instances as MIWrapper's, are C4.5's counts).

    Returns
    -------
    tree : Tree
        A pruned copy (or `tree` itself when nothing is pruned).
    """
    n_nodes = tree.node_count
    pi, nu = tree.weighted_pos, tree.weighted_neg
    err = np.zeros(n_nodes)
    make_leaf = np.zeros(n_nodes, dtype=bool)
    # Children are numbered after their parents: a reverse scan is post-order.
    for node in range(n_nodes - 1, -1, -1):
        as_leaf = pessimistic_errors(pi[node] + nu[node], min(pi[node], nu[node]), confidence)
        left, right = tree.children_left[node], tree.children_right[node]
        if left < 0:
            err[node] = as_leaf
            continue
        below = err[left] + err[right]
        if as_leaf <= below + 0.1:
            make_leaf[node] = True
            err[node] = as_leaf
        else:
            err[node] = below
    if not make_leaf.any():
        return tree
    return tree.subtree(make_leaf)


def _weakest_links(tree):
    """Minimal cost-complexity pruning on bag counts, step by step (Breiman et al. 1984).

    A node as a leaf misclassifies R(t) = min(pi_w, nu_w) / W of the training
    bag weight W (its majority label is kept, the minority's weight is the
    error); a subtree's error is the sum over its leaves. Each step prunes the
    internal node(s) with the smallest ``(R(t) - R(subtree)) / (leaves - 1)``.

    Yields
    ------
    alpha, make_leaf, impurity
        The effective alpha of the step, the nodes made leaves so far, and
        the pruned tree's total leaf error after the step. The first item
        is ``(0.0, nothing pruned, the full tree's error)``.
    """
    n_nodes = tree.node_count
    total = float(tree.weighted_pos[0] + tree.weighted_neg[0])
    leaf_err = np.minimum(tree.weighted_pos, tree.weighted_neg) / (total if total > 0 else 1.0)
    left, right = tree.children_left, tree.children_right
    make_leaf = np.zeros(n_nodes, dtype=bool)
    sub_err = np.empty(n_nodes)
    n_leaves = np.empty(n_nodes, dtype=np.intp)

    def subtree_stats():
        # Children are numbered after their parents: a reverse scan is post-order.
        for node in range(n_nodes - 1, -1, -1):
            if left[node] < 0 or make_leaf[node]:
                sub_err[node], n_leaves[node] = leaf_err[node], 1
            else:
                sub_err[node] = sub_err[left[node]] + sub_err[right[node]]
                n_leaves[node] = n_leaves[left[node]] + n_leaves[right[node]]

    subtree_stats()
    yield 0.0, make_leaf.copy(), float(sub_err[0])
    while n_leaves[0] > 1:
        reach = np.zeros(n_nodes, dtype=bool)  # internal nodes of the current pruned tree
        stack = [0]
        while stack:
            node = stack.pop()
            if left[node] >= 0 and not make_leaf[node]:
                reach[node] = True
                stack.extend((left[node], right[node]))
        cand = np.flatnonzero(reach)
        g = (leaf_err[cand] - sub_err[cand]) / (n_leaves[cand] - 1)
        alpha = float(g.min())
        make_leaf[cand[g <= alpha + 1e-12]] = True
        subtree_stats()
        yield max(alpha, 0.0), make_leaf.copy(), float(sub_err[0])


def cost_complexity_path(tree):
    """The effective alphas of minimal cost-complexity pruning and the leaf errors after each.

    Returns
    -------
    ccp_alphas : ndarray of float64
        Increasing; pruning with ``ccp_alpha`` in ``[ccp_alphas[i], ccp_alphas[i + 1])``
        gives the i-th subtree (the last one is the root alone).
    impurities : ndarray of float64
        Total bag-weighted leaf error (share of the training bag weight) of
        each of those subtrees.
    """
    steps = [(alpha, err) for alpha, _, err in _weakest_links(tree)]
    return np.array([a for a, _ in steps]), np.array([e for _, e in steps])


def prune_cost_complexity(tree, ccp_alpha):
    """The subtree of minimal cost-complexity pruning at `ccp_alpha` (see :func:`cost_complexity_path`).

    Returns
    -------
    tree : Tree
        A pruned copy (or `tree` itself when nothing is pruned).
    """
    if ccp_alpha <= 0:
        return tree  # as scikit-learn: 0 prunes nothing (not even splits that gain nothing)
    make_leaf = None
    for alpha, pruned, _ in _weakest_links(tree):
        if alpha > ccp_alpha:
            break
        make_leaf = pruned
    if make_leaf is None or not make_leaf.any():
        return tree
    return tree.subtree(make_leaf)
