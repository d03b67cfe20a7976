"""Index helpers over concatenated segments (the bags' instances, by their offsets).

The rows of a subset of bags (over :func:`mil._bag_arrays.concat_ranges`, the
one implementation of "concatenate ``arange(s, s + n)``") and a per-bag
argmax, for every module that gathers a subset of bags' instances.
"""

import numpy as np

from mil._bag_arrays import concat_ranges

__all__ = ["bag_rows", "bag_argmax"]


def bag_rows(offsets, bags):
    """The instance indices of the bags `bags` (in that order), for bag offsets `offsets`.

    Examples
    --------
    >>> bag_rows([0, 2, 5, 6], [2, 0]).tolist()
    [5, 0, 1]
    """
    offsets = np.asarray(offsets, dtype=np.intp)
    bags = np.asarray(bags, dtype=np.intp)
    return concat_ranges(offsets[bags], offsets[bags + 1] - offsets[bags])


def bag_argmax(values, offsets, bags):
    """The index of the largest of `values` within each bag of `bags` (the first at a tie).

    ``np.maximum.reduceat`` over the bags' segments, then the first
    position of each segment holding its maximum: the same answer as
    ``offsets[b] + argmax(values[offsets[b]:offsets[b + 1]])`` for each
    non-empty bag b without NaN, without a loop over the bags.

    Examples
    --------
    >>> bag_argmax(np.array([1.0, 3.0, 3.0, 0.0, -1.0]), [0, 3, 5], [1, 0]).tolist()
    [3, 1]
    """
    offsets = np.asarray(offsets, dtype=np.intp)
    bags = np.asarray(bags, dtype=np.intp)
    if bags.size == 0:
        return np.zeros(0, dtype=np.intp)
    rows = bag_rows(offsets, bags)
    sizes = offsets[bags + 1] - offsets[bags]
    vals = values[rows]
    seg = np.cumsum(sizes) - sizes
    at_max = np.flatnonzero(vals == np.repeat(np.maximum.reduceat(vals, seg), sizes))
    owner = np.repeat(np.arange(bags.size), sizes)[at_max]
    first = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])  # at_max is sorted: first per bag
    return rows[at_max[first]]
