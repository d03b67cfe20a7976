"""Where a growing tree keeps its nodes' instances: one interface, three layouts.

The builder grows a tree node by node. Every node owns the positions
``[start, end)`` of its layout; splitting a node reorders its positions so
that the instances going left come first, and its children own the two
parts. The builder asks a layout only what :class:`NodeLayout` declares; it
never reads the layout's arrays.

:class:`PartitionedNodes`
    Every feature's presorted row (:class:`~mil.tree._rows.PresortedRows`,
    a copy the builder owns), all partitioned stably at each split, so a
    node's segment of each row stays sorted and the split search sweeps it
    without sorting. For searches of every feature.
:class:`GatheredNodes`
    One array of instance ids; a searched feature's values are gathered
    from the fit's presorted rows (read only) in their row order. For a
    random feature subset per node (forests): the rows not searched never
    move.
:class:`BinnedNodes`
    One array of instance ids kept ascending, searched on the fit's bin
    codes (:class:`~mil.tree._rows.BinnedRows`, read only): the histogram
    search.

The layouts were made from validated bags, so they call the split kernel's
underscored entry points, which trust their arguments.
"""

from abc import ABC, abstractmethod

import numpy as np

from mil.tree._rows import distinct_sorted

__all__ = ["BinnedNodes", "GatheredNodes", "NodeLayout", "PartitionedNodes"]


class NodeLayout(ABC):
    """The instances of a growing tree's nodes: each node owns the positions ``[start, end)``.

    The search arguments `args` are those of the split kernel after the
    node's segment: ``(bag_pos, bag_weight, w_pos, w_neg, min_weight, tol,
    shares_of_children, count_cuts)``.
    """

    @abstractmethod
    def ids(self, start, end):
        """Return the instance ids of the node, in the layout's order.

        Returns
        -------
        ids : ndarray of intp, shape (end - start,)
        """

    @abstractmethod
    def bags(self, start, end):
        """Return the bag of each of the node's instances (the order of :meth:`ids`).

        Returns
        -------
        bags : ndarray of intp, shape (end - start,)
        """

    @abstractmethod
    def values(self, feature, start, end):
        """Return the node's instance ids and their values of `feature` (in one order).

        Returns
        -------
        ids : ndarray of intp
        values : ndarray of float
        """

    @abstractmethod
    def partition(self, start, end, go_left):
        """Move the node's instances with ``go_left[id]`` to the front of its positions, stably.

        Returns
        -------
        n_left : int
            How many moved to the front.
        """

    def split(self, start, end, feature, threshold, missing_left, go_left):
        """Partition the node by ``x[feature] <= threshold`` (NaN left iff `missing_left`).

        `go_left` is a scratch array of one byte per instance.

        Returns
        -------
        n_left : int
            How many went left.
        """
        ids, v = self.values(feature, start, end)
        go_left[ids] = (v <= threshold) | (np.isnan(v) & missing_left)
        return self.partition(start, end, go_left)

    @abstractmethod
    def search(self, start, end, args, features=None):
        """Return each searched feature's best cut in the node (every feature, or `features`).

        Returns
        -------
        found : ndarray of uint8, shape (n_searched,)
        stats : ndarray of float64, shape (n_searched, 8)
            The split kernel's rows (see ``_tree_split.best_splits``).
        """


class PartitionedNodes(NodeLayout):
    """Node segments of every feature's sorted row, all partitioned at each split (see the module)."""

    def __init__(self, ts, threads, pre):
        self.ts, self.threads, self.pre = ts, threads, pre

    def ids(self, start, end):
        return self.pre.order[0, start:end]

    def bags(self, start, end):
        return self.pre.bag[0, start:end]

    def values(self, feature, start, end):
        return self.pre.order[feature, start:end], self.pre.vals[feature, start:end]

    def partition(self, start, end, go_left):
        pre, ts = self.pre, self.ts
        parts = self.threads.run(lambda lo, hi: ts._partition(pre.order[lo:hi], pre.vals[lo:hi], pre.bag[lo:hi],
                                                              start, end, go_left),
                                 cells=(end - start) * pre.n_rows)
        return parts[0]

    def search(self, start, end, args, features=None):
        # Every feature's rows shared out among the threads, or the fixed subset `features` here.
        pre, ts = self.pre, self.ts
        if features is not None:
            return ts._best_splits(pre.vals, pre.bag, start, end, *args, features=features)
        return self.threads.concat(lambda lo, hi: ts._best_splits(pre.vals[lo:hi], pre.bag[lo:hi], start, end,
                                                                  *args),
                                   cells=(end - start) * pre.n_rows)


class GatheredNodes(NodeLayout):
    """Node segments of one array of instance ids; searched features gathered from the fit's rows (see the module)."""

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
        # One compiled pass over the node's ids (the generic route for other instance arrays).
        instances = self.instances
        if not (instances.flags.c_contiguous and instances.dtype in (np.float32, np.float64)):
            return super().split(start, end, feature, threshold, missing_left, go_left)
        return self.ts._partition_ids(self.samples, start, end, instances, feature, threshold, missing_left)

    def search(self, start, end, args, features=None):
        pre = self.pre
        return self.ts._gather_best_splits(pre.vals, pre.bag, pre.rank, self.samples[start:end], features, *args)


class BinnedNodes(GatheredNodes):
    """Node segments of one array of instance ids (kept ascending), searched on the bin codes (see the module)."""

    def __init__(self, ts, threads, binned, instances, instance_bag):
        super().__init__(ts, None, instances, instance_bag)
        self.threads, self.binned = threads, binned
        # Bags stored one after another (as in every Bags): the kernel's run-by-run pass applies.
        self.bags_sorted = bool((np.diff(instance_bag) >= 0).all())

    def search(self, start, end, args, features=None):
        b, ts = self.binned, self.ts
        ids = self.samples[start:end]
        bags = self.instance_bag[ids]
        # ids ascending: with bags stored in order their bags are non-decreasing, distinct ones in O(node).
        node_bags = distinct_sorted(bags) if self.bags_sorted else np.unique(bags)
        if features is not None:
            return ts._binned_best_splits(b.codes, b.edges, b.n_bins, ids, self.instance_bag, *args,
                                          features=features, node_bags=node_bags, bags_sorted=self.bags_sorted)
        return self.threads.concat(
            lambda lo, hi: ts._binned_best_splits(b.codes[lo:hi], b.edges[lo:hi], b.n_bins[lo:hi], ids,
                                                  self.instance_bag, *args, node_bags=node_bags,
                                                  bags_sorted=self.bags_sorted),
            cells=(end - start) * b.n_rows)
