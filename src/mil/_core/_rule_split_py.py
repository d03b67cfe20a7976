"""Rule condition search for RIPPER-MI: the NumPy twin of ``_rule_split.pyx``.

Same algorithm and tie-break as the compiled kernel (see its docstring):
per feature, the covered instances are taken in sorted order, the shared
bag-counting sweep (``_bag_counts_py.sweep_distinct_bags``) gives the
distinct bags on each side of every cut, and FOIL's gain is computed with
the same logarithms (see ``_lg``) and the same operation order, so the gains
are bit-identical and both paths pick the same condition.
"""

import functools
import math

import numpy as np

from mil._core._bag_counts_py import _binned_bag_extremes, sweep_distinct_bags
from mil._core._checks import (presorted_args, rule_binned_args, rule_compact_args, rule_coverage_args,
                               rule_presort_args, rule_search_args, rule_search_out_args)

__all__ = ["presort", "compact", "Presorted", "Binned", "best_conditions", "best_binned_conditions",
           "prefix_coverage", "ruleset_coverage", "foil_gain", "prune_metric"]


class _ReadOnly:
    """Fields set once (read-only arrays and attributes) and checked when the object is made.

    The condition searches read them without bounds checks; a subclass
    lists them in ``__slots__`` and says how it is made in ``made_by``.
    """

    __slots__ = ()
    made_by = ""

    def _set(self, *values):
        for a in values:
            if isinstance(a, np.ndarray):
                a.flags.writeable = False
        for name, value in zip(self.__slots__, values):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only (the condition search trusts its fields); "
                             f"cannot set {name!r}: make a new one ({self.made_by})")

    def __delattr__(self, name):
        raise AttributeError(f"{type(self).__name__} is read-only; cannot delete {name!r}")

    def __reduce__(self):
        return (type(self), tuple(getattr(self, name) for name in self.__slots__))


class Presorted(_ReadOnly):
    """Each feature's instances in sorted order, made once per fit by :func:`presort`.

    Attributes
    ----------
    sorted_vals : ndarray of float64, shape (d, n)
        ``sorted_vals[f, k] = X[order[f, k], f]``.
    order : ndarray of int32, shape (d, n)
        ``order[f]`` lists the instances sorted by feature f (stable).
    sorted_bag : ndarray of int32, shape (d, n)
        The bag of instance ``order[f, k]``.
    n_bags : int
    one_per_bag : bool
        Every bag has exactly one instance (then the search counts
        instances, without per-bag flags, when the weights are units).

    The fields are read-only (arrays and attributes) and checked when the
    object is made (every index in range: a min and a max per array), so
    the condition search, which reads them without bounds checks, checks
    only its own O(n + n_bags) arguments. :func:`presort` and
    :func:`compact` build valid ones without the check.
    Indices are int32: half the memory traffic of the search's scan.
    """

    __slots__ = ("sorted_vals", "order", "sorted_bag", "n_bags", "one_per_bag")
    made_by = "presort(X, offsets), compact or Presorted(...)"

    def __init__(self, sorted_vals, order, sorted_bag, n_bags, one_per_bag=False):
        self._set(*presorted_args(sorted_vals, order, sorted_bag, n_bags, one_per_bag))

    @classmethod
    def _trusted(cls, sorted_vals, order, sorted_bag, n_bags, one_per_bag):
        """A Presorted from arrays made here (valid by construction): no check."""
        self = object.__new__(cls)
        self._set(sorted_vals, order, sorted_bag, int(n_bags), bool(one_per_bag))
        return self

    @property
    def shape(self):
        """(features, instances)."""
        return self.sorted_vals.shape

    def compacted(self, sorted_vals, order, sorted_bag):
        """The same bags in other sorted orders (arrays filled by :func:`compact` or a search's ``out``).

        The arrays are checked (every index in range) and made read-only.
        """
        return Presorted(sorted_vals, order, sorted_bag, self.n_bags, self.one_per_bag)

    def _compacted_trusted(self, sorted_vals, order, sorted_bag):
        """:meth:`compacted` without the check, for a search's ``out`` whose every row it wrote.

        (RIPPER-MI's grower makes the arrays and searches all rows; the check
        was a measurable share of a fit on small sets.)
        """
        return Presorted._trusted(sorted_vals, order, sorted_bag, self.n_bags, self.one_per_bag)


class Binned(_ReadOnly):
    """Every instance's bin of each feature, made once per fit for :func:`best_binned_conditions`.

    Attributes
    ----------
    codes : ndarray of uint8, shape (d, n)
        ``codes[f, i]``: the bin of instance i on feature f (the trees'
        quantile bins: ``_binning.map_to_bins``; 255 marks a missing value).
    edges : ndarray of float64, shape (d, 255)
        ``edges[f, b]``: the upper edge of bin b (a value ``v`` lies in bin b
        iff ``edges[f, b - 1] < v <= edges[f, b]``).
    n_bins : ndarray of intp, shape (d,)
    inst_bag : ndarray of intp, shape (n,)
        The bag of each instance, non-decreasing (instances stored bag after bag).
    n_bags : int
    one_per_bag : bool
        Every bag holds one instance (found when the object is made; the
        search then takes a faster pass with the same sums).

    The fields are read-only and checked when the object is made (every
    code below its feature's bin count, every bag in range and in order:
    O(d n) once), so a search checks only its own O(n + n_bags) arguments.
    """

    __slots__ = ("codes", "edges", "n_bins", "inst_bag", "n_bags", "one_per_bag")
    made_by = "Binned(codes, edges, n_bins, inst_bag, n_bags)"

    def __init__(self, codes, edges, n_bins, inst_bag, n_bags, one_per_bag=None):
        codes, edges, n_bins, inst_bag, n_bags = rule_binned_args(codes, edges, n_bins, inst_bag, n_bags)
        # (Found again, whatever is passed: the argument is there for pickling.)
        n = inst_bag.shape[0]
        one_per_bag = bool(n == n_bags and (n < 2 or (np.diff(inst_bag) > 0).all()))
        self._set(codes, edges, n_bins, inst_bag, n_bags, one_per_bag)

    @property
    def shape(self):
        """(features, instances)."""
        return self.codes.shape


def presort(X, offsets):
    """Sort every feature of the instances once, for :func:`best_conditions`.

    Parameters
    ----------
    X : ndarray of float64, shape (n, d)
        The instances, bag after bag.
    offsets : ndarray of intp, shape (n_bags + 1,)
        Bag b owns rows ``offsets[b]:offsets[b + 1]``.

    Returns
    -------
    presorted : Presorted
    """
    X, offsets = rule_presort_args(X, offsets)
    n_bags = offsets.shape[0] - 1
    inst_bag = np.repeat(np.arange(n_bags, dtype=np.int32), np.diff(offsets))
    columns = np.ascontiguousarray(X.T)
    order = np.argsort(columns, axis=1, kind="stable")
    sorted_vals = np.ascontiguousarray(np.take_along_axis(columns, order, axis=1))
    return Presorted._trusted(sorted_vals, np.ascontiguousarray(order, dtype=np.int32),
                              np.ascontiguousarray(inst_bag[order]), n_bags, X.shape[0] == n_bags)


def _new_ids(keep):
    """The index of each kept instance in a compacted copy (its rank among them), -1 for the others."""
    return np.where(keep.astype(bool), np.cumsum(keep, dtype=np.int64) - 1, -1).astype(np.int32)


def _compact_setup(presorted, keep):
    """Checked `keep`, the new index of every kept instance (its rank; -1 if not kept) and their number."""
    keep = rule_compact_args(presorted, Presorted, keep)
    return keep, _new_ids(keep), int(keep.sum())


def compact(presorted, keep):
    """The presorted data of the instances in `keep` only (see the compiled twin)."""
    keep, new_id, n_kept = _compact_setup(presorted, keep)
    d = presorted.sorted_vals.shape[0]
    sel = keep.astype(bool)[presorted.order]
    return Presorted._trusted(np.ascontiguousarray(presorted.sorted_vals[sel].reshape(d, n_kept)),
                              np.ascontiguousarray(new_id[presorted.order[sel]].reshape(d, n_kept)),
                              np.ascontiguousarray(presorted.sorted_bag[sel].reshape(d, n_kept)),
                              presorted.n_bags, presorted.one_per_bag)


@functools.lru_cache(maxsize=8)
def _log2_table(n_bags):
    """``table[i] = log2(i)`` for i = 1..n_bags (table[0] = 0 is never used as a count).

    Read-only and cached: a fit asks for the same table at every search.
    """
    table = np.zeros(n_bags + 1, dtype=np.float64)
    table[1:] = np.log2(np.arange(1, n_bags + 1, dtype=np.float64))
    table.flags.writeable = False
    return table


def _lg(table, x):
    """log2 of counts ``x >= 0`` exactly as the compiled kernel takes it.

    A whole number below ``len(table)`` is read from the table (NumPy's
    log2); any other value goes through ``math.log2``, which calls the C
    library's ``log2`` like the compiled kernel (NumPy's own log2 may round
    differently in the last bit).
    """
    if np.ndim(x) == 0:  # a scalar (the gain's base, once per search): the same values, no arrays
        v = float(x)
        if 0.0 <= v < table.shape[0] and v == int(v):
            return float(table[int(v)])
        return math.log2(v)
    x = np.asarray(x, dtype=np.float64)
    idx = np.where(x < table.shape[0], x, 0.0).astype(np.intp)
    exact = (x < table.shape[0]) & (idx == x)
    out = np.where(exact, table[idx], 0.0)
    if not exact.all():
        rest = x[~exact]
        out[~exact] = np.fromiter(map(math.log2, rest.tolist()), dtype=np.float64, count=rest.size)
    return out


def _gain_setup(n_bags, p0, n0, smooth, bag_weight):
    """Bag weights, log2 table and ``base = log2(precision before the condition)``.

    Shared by both twins of :func:`best_conditions`, so they read the same
    numbers. The table holds every whole number up to the total weight
    (``n_bags`` with unit weights). The arguments are checked by the caller.
    """
    if bag_weight is None:
        weights = np.ones(max(n_bags, 1), dtype=np.float64)
        size = n_bags + smooth
    else:
        weights = bag_weight if n_bags else np.ones(1, dtype=np.float64)
        size = int(math.ceil(float(bag_weight.sum()))) + 1 + smooth
    table = _log2_table(size)
    base = float(_lg(table, p0 + smooth) - _lg(table, p0 + n0 + smooth))
    return weights, table, base


def foil_gain(p0, n0, p1, n1, smooth=0):
    """FOIL's information gain of a condition, counted on (weighted) bags.

    ``p1 * (log2(p1 / (p1 + n1)) - log2(p0 / (p0 + n0)))``, with the same
    rounding as :func:`best_conditions`; p0, p1 > 0. ``smooth=1``: every
    precision ``p / (p + n)`` becomes ``(p + 1) / (p + n + 1)`` (Weka's JRip).

    Examples
    --------
    >>> float(foil_gain(4, 4, 2, 0))   # precision 1/2 -> 1: 2 * (0 - (-1))
    2.0
    >>> float(foil_gain(4, 4, 0.5, 0))   # weighted counts: 0.5 * (0 - (-1))
    0.5
    """
    p1 = np.asarray(p1, dtype=np.float64)
    n1 = np.asarray(n1, dtype=np.float64)
    size = int(math.ceil(max(p0 + n0, float(np.max(p1 + n1, initial=0.0))))) + smooth
    table = _log2_table(size)
    base = _lg(table, p0 + smooth) - _lg(table, p0 + n0 + smooth)
    return p1 * ((_lg(table, p1 + smooth) - _lg(table, p1 + n1 + smooth)) - base)


def prune_metric(p, n):
    """IREP's pruning value ``(p - n) / (p + n)`` on bag counts (0 when nothing is covered).

    Examples
    --------
    >>> prune_metric([3, 0], [1, 0]).tolist()
    [0.5, 0.0]
    """
    p = np.asarray(p, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    total = p + n
    return np.divide(p - n, total, out=np.zeros(np.broadcast(p, n).shape), where=total > 0)


def best_conditions(presorted, active, bag_pos, p0, n0, min_bags, smooth=0, bag_weight=None,
                    start=0, stop=None, out=None):
    """Best next condition of a growing rule for every (feature, operator) (see the compiled twin)."""
    active, bag_pos, p0, n0, min_bags, smooth, bag_weight, start, stop = rule_search_args(
        presorted, Presorted, active, bag_pos, p0, n0, min_bags, smooth, bag_weight, start, stop)
    if out is not None:
        out_vals, out_order, out_bag = rule_search_out_args(presorted, active, out)
        new_id = _new_ids(active)
    n_bags = presorted.n_bags
    weights, lg, base = _gain_setup(n_bags, p0, n0, smooth, bag_weight)
    weights = weights[:n_bags]
    result = np.zeros((4, stop - start, 2), dtype=np.float64)
    act = active.astype(bool)
    for f in range(start, stop):
        keep = act[presorted.order[f]]
        vals = presorted.sorted_vals[f][keep]
        if out is not None:   # the compacted copy's row, as compact(presorted, active)
            out_vals[f], out_order[f], out_bag[f] = vals, new_id[presorted.order[f][keep]], presorted.sorted_bag[f][keep]
        if vals.shape[0] < 2:
            continue
        lp, ln, rp, rn = sweep_distinct_bags(presorted.sorted_bag[f][keep].astype(np.intp), bag_pos, weights)
        a, b = vals[:-1], vals[1:]
        cut = a < b
        mid = a * 0.5 + b * 0.5   # finite near the largest double, unlike (a + b) * 0.5
        sides = (
            (lp[:-1], ln[:-1], np.where((a <= mid) & (mid < b), mid, a)),  # x <= t keeps the left side
            (rp[:-1], rn[:-1], np.where((a < mid) & (mid <= b), mid, b)),  # x >= t keeps the right side
        )
        for col, (p1, n1, thr) in enumerate(sides):
            valid = cut & (p1 >= min_bags) & (p1 > 0.0)
            gain = np.zeros(p1.shape[0])
            pv, nv = p1[valid], n1[valid]
            gain[valid] = pv * ((_lg(lg, pv + smooth) - _lg(lg, pv + nv + smooth)) - base)
            k = int(np.argmax(gain))   # first maximum: the lowest threshold
            if gain[k] > 0.0:
                result[:, f - start, col] = gain[k], thr[k], p1[k], n1[k]
    return result[0], result[1], result[2], result[3]


def _cut_thresholds(edges, cut):
    """The thresholds of binned conditions: ``x <= edges[b]`` and ``x >= next double above edges[b]``.

    `cut` (rows, 2) holds the bin b after which each condition cuts (-1:
    none, threshold 0). A value in bin b or below satisfies the first, a
    value above bin b the second (``v > e`` is ``v >= nextafter(e, inf)``).
    """
    rows = np.arange(cut.shape[0])
    found = cut >= 0
    thr = np.zeros(cut.shape, dtype=np.float64)
    at = np.where(found, cut, 0)
    thr[:, 0] = np.where(found[:, 0], edges[rows, at[:, 0]], 0.0)
    thr[:, 1] = np.where(found[:, 1], np.nextafter(edges[rows, at[:, 1]], np.inf), 0.0)
    return thr


def best_binned_conditions(binned, active, bag_pos, p0, n0, min_bags, smooth=0, bag_weight=None, start=0,
                           stop=None):
    """:func:`best_conditions` on binned features (see the compiled twin)."""
    active, bag_pos, p0, n0, min_bags, smooth, bag_weight, start, stop = rule_search_args(
        binned, Binned, active, bag_pos, p0, n0, min_bags, smooth, bag_weight, start, stop)
    weights, lg, base = _gain_setup(binned.n_bags, p0, n0, smooth, bag_weight)
    weights = weights[:binned.n_bags]
    ids = np.flatnonzero(active)
    result = np.zeros((3, stop - start, 2), dtype=np.float64)
    cut = np.full((stop - start, 2), -1, dtype=np.intp)
    for f in range(start, stop):
        lo, hi, cnt, _, (bmin, bmax, _) = _binned_bag_extremes(binned.codes[f], ids, binned.inst_bag, bag_pos,
                                                               weights)
        if bmax <= bmin:
            continue
        # One cut between each two consecutive occupied bins prev < nxt, at edge k midway: x <= edges[k]
        # keeps the bags whose lowest bin is <= prev (prefix sums), x > edges[k] those whose highest bin
        # is >= nxt (suffix sums, taken from the top bin down).
        occupied = np.flatnonzero(cnt[bmin:bmax + 1] > 0)
        prev, nxt = occupied[:-1], occupied[1:]
        k = (prev + nxt - 1) // 2 + bmin
        up = np.cumsum(lo[:2, bmin:bmax + 1], axis=1)
        down = np.cumsum(hi[:2, bmin:bmax + 1][:, ::-1], axis=1)[:, ::-1]
        for col, (p1, n1) in enumerate(((up[0, nxt - 1], up[1, nxt - 1]), (down[0, nxt], down[1, nxt]))):
            valid = (p1 >= min_bags) & (p1 > 0.0)
            gain = np.zeros(p1.shape[0])
            pv, nv = p1[valid], n1[valid]
            gain[valid] = pv * ((_lg(lg, pv + smooth) - _lg(lg, pv + nv + smooth)) - base)
            j = int(np.argmax(gain))   # first maximum: the lowest threshold
            if gain[j] > 0.0:
                result[:, f - start, col] = gain[j], p1[j], n1[j]
                cut[f - start, col] = k[j]
    return result[0], _cut_thresholds(binned.edges[start:stop], cut), result[1], result[2]


def _holds(X, features, ops, thresholds):
    """(n, m) boolean: instance i satisfies condition j."""
    vals = X[:, features]
    return np.where(ops.astype(bool), vals >= thresholds, vals <= thresholds)


def _bag_any(inst_mask, offsets):
    """(rows, n) instance mask -> (rows, n_bags) uint8 bag mask (a bag is covered by any instance)."""
    if offsets.shape[0] <= 1:
        return np.zeros((inst_mask.shape[0], 0), dtype=np.uint8)
    return np.maximum.reduceat(inst_mask.astype(np.uint8), offsets[:-1], axis=1)


def prefix_coverage(X, offsets, features, ops, thresholds):
    """Bags covered by every prefix of a rule, shape (m, n_bags) (see the compiled twin)."""
    X, offsets, features, ops, thresholds = rule_coverage_args(X, offsets, features, ops, thresholds)
    m = features.shape[0]
    if m == 0:
        return np.zeros((0, offsets.shape[0] - 1), dtype=np.uint8)
    acc = np.logical_and.accumulate(_holds(X, features, ops, thresholds), axis=1)
    return np.ascontiguousarray(_bag_any(acc.T, offsets))


def ruleset_coverage(X, offsets, rule_ptr, features, ops, thresholds):
    """Bags covered by each rule of a rule set, shape (n_rules, n_bags) (see the compiled twin)."""
    X, offsets, features, ops, thresholds, rule_ptr = rule_coverage_args(
        X, offsets, features, ops, thresholds, rule_ptr)
    n_rules = rule_ptr.shape[0] - 1
    holds = _holds(X, features, ops, thresholds)
    masks = np.ones((n_rules, X.shape[0]), dtype=bool)
    for r in range(n_rules):
        cols = holds[:, rule_ptr[r]:rule_ptr[r + 1]]
        if cols.shape[1]:
            masks[r] = cols.all(axis=1)
    return np.ascontiguousarray(_bag_any(masks, offsets))
