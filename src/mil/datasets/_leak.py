"""A warning for a feature column that copies the bag label (a leaked label)."""

import warnings

import numpy as np

from mil.utils._docstrings import register

__all__ = ["LeakedLabelWarning", "BagExtremes", "warn_leaked_label"]

_MAX_CLASSES = 20  # labels with more distinct values are compared by equality only (regression)
_MIN_BAGS = 10  # fewer bags than this, or a class of a single bag: a coincidence is too likely to warn


register("leaked label warning", """\
    Warns
    -----
    LeakedLabelWarning
        When a feature column equals the bag label on every instance.
""")


class LeakedLabelWarning(UserWarning):
    """A feature column holds the bag label on every instance.

    Copies of some benchmark files in circulation carry the class as a
    feature (an ARFF or CSV export that kept it): any learner then scores
    near 100 % by reading it. Drop the column, or silence the warning with
    ``warnings.filterwarnings("ignore", category=LeakedLabelWarning)`` if
    the column is meant to be there.
    """


class BagExtremes:
    """Per-bag minimum and maximum of every feature, accumulated block by block (one pass over the data)."""

    def __init__(self, n_bags, n_features):
        self.low = np.full((n_bags, n_features), np.inf)
        self.high = np.full((n_bags, n_features), -np.inf)

    def update(self, bag_of_row, block):
        """Fold in the rows of `block` (2-D), row i belonging to bag ``bag_of_row[i]``.

        NaN propagates: a column with a NaN in a bag never counts as
        constant there.
        """
        bag_of_row = np.asarray(bag_of_row, dtype=np.intp)
        if len(bag_of_row) == 0:
            return
        block = np.asarray(block, dtype=np.float64)
        if len(bag_of_row) == 1 or (np.diff(bag_of_row) >= 0).all():
            starts = np.concatenate([[0], np.flatnonzero(np.diff(bag_of_row)) + 1])
            bags = bag_of_row[starts]
            self.low[bags] = np.minimum(self.low[bags], np.minimum.reduceat(block, starts, axis=0))
            self.high[bags] = np.maximum(self.high[bags], np.maximum.reduceat(block, starts, axis=0))
        else:
            np.minimum.at(self.low, bag_of_row, block)
            np.maximum.at(self.high, bag_of_row, block)

    @classmethod
    def of(cls, bags, rows_per_block=1 << 16):
        """The extremes of every bag of a :class:`~mil.Bags` (read in blocks of rows)."""
        out = cls(bags.n_bags, bags.n_features)
        owner = bags.instance_bag
        for lo in range(0, bags.n_instances, rows_per_block):
            hi = min(lo + rows_per_block, bags.n_instances)
            out.update(owner[lo:hi], bags.instances[lo:hi])
        return out


def _label_copies(extremes, target):
    """Indices of the columns constant in each bag whose bag value copies the label."""
    target = np.asarray(target)
    constant = (extremes.low == extremes.high).all(axis=0)
    if not constant.any():
        return []
    values = extremes.low[:, constant]
    columns = np.flatnonzero(constant)
    classes, inverse = np.unique(target, return_inverse=True)
    inverse = inverse.ravel()
    if len(classes) < 2 or len(target) < _MIN_BAGS or np.bincount(inverse).min() < 2:
        return []
    if target.dtype.kind in "biuf":
        equal = (values == target.astype(np.float64)[:, None]).all(axis=0)
    else:
        equal = np.zeros(values.shape[1], dtype=bool)
    if len(classes) <= _MAX_CLASSES:
        # one value per class, a different one for each class: the label under another coding
        per_class = [values[inverse == k] for k in range(len(classes))]
        same = np.all([(v == v[0]).all(axis=0) for v in per_class], axis=0)
        firsts = np.array([v[0] for v in per_class])
        distinct = np.array([len(np.unique(firsts[:, j])) == len(classes) for j in range(values.shape[1])])
        equal |= same & distinct
    return [int(c) for c in columns[equal]]


def warn_leaked_label(extremes, target, feature_names=None, source="the data", stacklevel=3):
    """Warn (:class:`LeakedLabelWarning`) for each feature column that copies the bag label.

    A column copies the label when it is constant within each bag and its
    value is the bag's label (numeric labels), or one value per class and a
    different value for each class (any labels of at most 20 classes: the
    label under another coding). Nothing is said for fewer than 10 bags or
    a class of one bag, where a coincidence is likely.

    Parameters
    ----------
    extremes : BagExtremes
        Per-bag minimum and maximum of every column.
    target : array-like of shape (n_bags,)
    feature_names : sequence of str, default=None
        Names of the columns (None: ``column j``).
    source : str, default="the data"
        What the warning names as the data's origin (a file or folder).
    stacklevel : int, default=3
        As :func:`warnings.warn`'s, counted from this function: 3 points
        at the caller of the reader that calls it.

    Returns
    -------
    columns : list of int
        The columns warned about.
    """
    columns = _label_copies(extremes, target)
    if columns:
        names = [repr(str(feature_names[j])) if feature_names is not None else f"{j}" for j in columns]
        which = ("feature column " + names[0]) if len(names) == 1 else "feature columns " + ", ".join(names)
        warnings.warn(f"{source}: {which} equals the bag label on every instance (a leaked label: a "
                      "learner would read the answer from it); drop it before fitting",
                      LeakedLabelWarning, stacklevel=stacklevel)
    return columns
