"""The feature rows the trees of one fit share: every feature presorted, or binned.

A fit (one tree, a forest, a boosting run) prepares one of them once:

:class:`PresortedRows`
    Per feature, the instance ids in increasing order of the feature, with
    the values and the bags in the same order: the exact split search
    sweeps them (``splitter="exact"``).
:class:`BinnedRows`
    Per feature, every instance's quantile bin (one byte), with the bin
    edges: the histogram search reads them (``splitter="hist"``).

Both hold one row per feature (:class:`FeatureRows`), filled on threads, and
give the rows of a feature subset (:meth:`FeatureRows.rows`) and of an
instance subset (:meth:`FeatureRows.subset`) without sorting again.
"""

import threading

import numpy as np

from mil._core import kernel

__all__ = ["AUTO_HIST_INSTANCES", "BIN_SUBSAMPLE", "MAX_BINS", "BinnedRows", "FeatureRows", "PresortedRows",
           "bin_edges", "distinct_sorted", "prepare_layout", "resolve_splitter"]

#: Bins per feature of the histogram split search (the missing-value bin, 255, comes on top), as
#: scikit-learn's HistGradientBoostingClassifier.
MAX_BINS = 255
#: The bin edges are found on at most this many instances, as scikit-learn does.
BIN_SUBSAMPLE = 200_000
#: ``splitter="auto"`` searches histograms above this many training instances, every cut up to it.
AUTO_HIST_INSTANCES = 10_000


class FeatureRows:
    """One row per feature, shared read-only by the trees of a fit (the base of the two kinds).

    A subclass names its arrays in ``_fields`` (each of shape (n_features,
    ...)) and fills them row by row, shared out among threads.
    """

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
        """The number of feature rows."""
        return getattr(self, self._fields[0]).shape[0]

    @classmethod
    def _from_arrays(cls, *arrays):
        out = cls.__new__(cls)
        for name, array in zip(cls._fields, arrays):
            setattr(out, name, array)
        return out

    def rows(self, cols):
        """The rows of the features `cols` only."""
        return self._from_arrays(*(getattr(self, name)[cols] for name in self._fields))


class PresortedRows(FeatureRows):
    """Per feature: the instance ids in increasing order of the feature, their values and their bags.

    ``rank[f, i]`` (made on first use, once, then shared read-only) is the
    position of instance i in row f.
    """

    _fields = ("order", "vals", "bag")
    _rank = None
    _rank_lock = threading.Lock()

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

    @property
    def rank(self):
        """``rank[f, i]``: the position of instance i in row f."""
        if self._rank is None:
            with self._rank_lock:
                if self._rank is None:
                    rank = np.empty_like(self.order)
                    np.put_along_axis(rank, self.order, np.arange(self.order.shape[1], dtype=np.intp)[None, :],
                                      axis=1)
                    self._rank = rank
        return self._rank

    def copy(self):
        """An independent copy (the builder partitions its rows in place; the rank is not copied)."""
        return self._from_arrays(self.order.copy(), self.vals.copy(), self.bag.copy())

    def subset(self, keep, bag_map):
        """The rows of the instances flagged in `keep`, without sorting again.

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


def distinct_sorted(values):
    """The distinct entries of a non-decreasing array, in O(len)."""
    if values.size == 0:
        return values
    first = np.empty(values.size, dtype=bool)
    first[0] = True
    np.not_equal(values[1:], values[:-1], out=first[1:])
    return values[first]


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
        Bins per feature (at most 255).
    subsample : int, default=200_000
        Instances the edges are found on, at most.

    Returns
    -------
    edges : ndarray of float64, shape (n_features, 255)
        Row f: the ``n_bins[f] - 1`` increasing edges, then +inf.
    n_bins : ndarray of intp, shape (n_features,)
        The bins of each feature.

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
    midpoints = kernel("_tree_split").midpoints
    for f in range(d):
        col = np.asarray(sample[:, f], dtype=np.float64)
        col = np.sort(col[~np.isnan(col)])  # one sort gives both the distinct values and the quantiles
        distinct = distinct_sorted(col)
        if distinct.size <= max_bins:
            e = midpoints(distinct[:-1], distinct[1:])
        else:
            # np.percentile(col, q, method="midpoint") on the sorted column.
            pos = np.linspace(0.0, 1.0, max_bins + 1)[1:-1] * (col.size - 1)
            e = np.unique(0.5 * (col[np.floor(pos).astype(np.intp)] + col[np.ceil(pos).astype(np.intp)]))
            e = e[e < distinct[-1]]  # an edge at the maximum would leave the last bin empty
        edges[f, :e.size] = e
        n_bins[f] = e.size + 1
    return edges, n_bins


class BinnedRows(FeatureRows):
    """Per feature: every instance's bin code (uint8), with the bin edges.

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
        """The rows of the features `cols` only."""
        return self._from_arrays(np.ascontiguousarray(self.codes[cols]), self.edges[cols], self.n_bins[cols])

    def subset(self, keep, bag_map=None):
        """The rows of the instances flagged in `keep` (same edges)."""
        return self._from_arrays(np.ascontiguousarray(self.codes[:, keep]), self.edges, self.n_bins)


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
    """The rows shared by the trees grown on these instances: presorted ("exact") or binned ("hist")."""
    if splitter == "hist":
        return BinnedRows(instances, instance_bag)
    return PresortedRows(instances, instance_bag)
