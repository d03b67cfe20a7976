"""Long tables (one row per instance: bag id, bag label, features) to bags."""

import csv
import io

import numpy as np
from sklearn.utils import Bunch

from mil.datasets._arff import read_text
from mil.utils.validation import bags_from_instances, shown

__all__ = ["from_frame", "load_csv"]


def _missing_labels(labels):
    """Rows whose label is missing: NaN, None, or an empty / "nan" / "?" string."""
    labels = np.asarray(labels)
    if labels.dtype.kind == "f":
        return np.isnan(labels)
    if labels.dtype.kind not in "OUS":
        return np.zeros(labels.shape, dtype=bool)

    def missing(v):
        if v is None or (isinstance(v, float) and np.isnan(v)):
            return True
        if isinstance(v, bytes):
            v = v.decode(errors="replace")
        return isinstance(v, str) and v.strip().lower() in ("", "nan", "?")

    return np.fromiter((missing(v) for v in labels.ravel()), dtype=bool, count=labels.size)


def _bunch_from_columns(bag_ids, labels, features, feature_names, bag, label, return_X_y, frame=None):
    if len(bag_ids) == 0:
        raise ValueError("the table has no rows")
    gone = _missing_labels(labels)
    if gone.any():
        r = int(np.flatnonzero(gone)[0])
        raise ValueError(f"bag {shown(np.asarray(bag_ids)[r])} has no label (row {r} of the table: "
                         f"{shown(np.asarray(labels)[r])} in the label column {label!r}); every bag needs one")
    bags = bags_from_instances(features, bag_ids)
    # Labels per bag, in the same (sorted-id) order as the bags.
    order = np.argsort(np.asarray(bag_ids), kind="stable")
    labels = np.asarray(labels)[order]
    starts = bags.offsets[:-1]
    bag_labels = labels[starts]
    row_bag = bags.instance_bag
    differs = labels != bag_labels[row_bag]
    if differs.any():
        b = int(row_bag[np.flatnonzero(differs)[0]])
        raise ValueError(f"bag {shown(bags.ids[b])} has rows with different values in the label column "
                         f"{label!r}; a bag has one label")
    bags = bags.with_feature_names(feature_names)
    data = bags.to_list() if frame is None else _frames(bags, frame)
    if return_X_y:
        return data, bag_labels
    return Bunch(data=data, target=bag_labels, bags=bags, bag_ids=bags.ids,
                 feature_names=list(bags.feature_names))


def _frames(bags, frame):
    """One DataFrame per bag (the table's feature columns), so that ``fit`` sees the names."""
    return [frame(bag.copy(), columns=list(bags.feature_names)) for bag in bags]


def from_frame(df, bag="bag", label="label", features=None, *, return_X_y=False):
    """Build bags from a long table with one row per instance.

    Parameters
    ----------
    df : pandas.DataFrame (or any object with ``columns`` and ``__getitem__``)
    bag : str, default="bag"
        Column holding each row's bag id.
    label : str, default="label"
        Column holding the bag label (the same on every row of a bag).
    features : list of str, default=None
        Feature columns; default: every column but `bag` and `label`.
    return_X_y : bool, default=False

    Returns
    -------
    data : Bunch
        ``data`` (list of bags ordered by sorted id: DataFrames with the
        feature columns when `df` is a pandas DataFrame with string column
        names, else 2-D arrays), ``target`` (one label per bag), ``bags``
        (:class:`~mil.Bags` with ``feature_names``), ``bag_ids``,
        ``feature_names``. ``(data, target)`` if `return_X_y`. Fitting on
        ``data`` or ``bags`` sets the estimator's ``feature_names_in_``,
        which its printed models (``export_text``) use.

    Examples
    --------
    >>> import pandas as pd
    >>> from mil.datasets import from_frame
    >>> df = pd.DataFrame({"bag": [1, 1, 2], "label": [1, 1, 0], "x": [0.5, 2.0, 1.0]})
    >>> d = from_frame(df)
    >>> [b.shape for b in d.data], d.target.tolist()
    ([(2, 1), (1, 1)], [1, 0])
    >>> from mil.tree import C45MIClassifier
    >>> C45MIClassifier(min_bags_leaf=1).fit(d.data, d.target).feature_names_in_.tolist()
    ['x']
    """
    columns = list(df.columns)
    for name, what in ((bag, "bag"), (label, "label")):
        if name not in columns:
            raise ValueError(f"the {what} column {name!r} is not in the table; columns: {columns}")
    if features is None:
        features = [c for c in columns if c not in (bag, label)]
    missing = [c for c in features if c not in columns]
    if missing:
        raise ValueError(f"feature columns {missing} are not in the table")
    if not features:
        raise ValueError("the table has no feature columns")
    values = np.column_stack([np.asarray(df[c]) for c in features])
    # A pandas table gives pandas bags: their columns carry the feature names into fit.
    frame = type(df) if hasattr(df, "iloc") and all(isinstance(c, str) for c in features) else None
    return _bunch_from_columns(np.asarray(df[bag]), np.asarray(df[label]), values, features,
                               bag, label, return_X_y, frame)


def load_csv(path, bag="bag", label="label", *, delimiter=",", encoding="utf-8", return_X_y=False):
    """Read a long CSV file (header row; one row per instance) into bags.

    Parameters
    ----------
    path : str or path-like
    bag, label : str
        Names of the bag-id and label columns; every other column is a
        numeric feature (empty cells and ``?`` are read as NaN). Bag ids are
        kept as written: integers when every id is an integer written
        canonically, else strings (so ``1`` and ``01`` are two bags); a row
        without a bag id raises.
    delimiter : str, default=","
    encoding : str, default="utf-8"
        Text encoding of the file (a UTF-8 byte-order mark is skipped).
    return_X_y : bool, default=False

    Returns
    -------
    data : Bunch or tuple
        As :func:`from_frame` (``data`` as 2-D arrays; ``bags`` carries the
        column names as ``feature_names``: fit on it to keep them).
    """
    reader = csv.reader(io.StringIO(read_text(path, encoding), newline=""), delimiter=delimiter)
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise ValueError(f"{path} is empty") from None
    rows, lines = [], []
    for r in reader:
        if r and any(cell.strip() for cell in r):
            rows.append(r)
            lines.append(reader.line_num)  # the file's line (blank lines and quoted newlines counted)
    for name, what in ((bag, "bag"), (label, "label")):
        if name not in header:
            raise ValueError(f"{path}: no {what} column {name!r} in the header {header}")
    ib, il = header.index(bag), header.index(label)
    feats = [i for i in range(len(header)) if i not in (ib, il)]
    if not feats:
        raise ValueError(f"{path}: no feature columns")
    values = np.empty((len(rows), len(feats)))
    for r, row in enumerate(rows):
        if len(row) != len(header):
            raise ValueError(f"{path}: line {lines[r]} has {len(row)} fields; the header has {len(header)}")
        for j, i in enumerate(feats):
            cell = row[i].strip()
            try:
                values[r, j] = np.nan if cell in ("", "?") else float(cell)
            except ValueError:
                raise ValueError(f"{path}: line {lines[r]}, column {header[i]!r}: "
                                 f"{cell!r} is not a number") from None
    for r, row in enumerate(rows):
        if not row[ib].strip():
            raise ValueError(f"{path}: line {lines[r]} has no bag id (column {bag!r} is empty); "
                             "every row needs one")
    bag_ids = _maybe_numeric([row[ib].strip() for row in rows], canonical=True)
    for r, row in enumerate(rows):
        if row[il].strip().lower() in ("", "nan", "?"):
            raise ValueError(f"{path}: line {lines[r]}: bag {row[ib].strip()!r} has no label "
                             f"({row[il].strip()!r} in the column {label!r}); every bag needs one")
    labels = _maybe_numeric([row[il].strip() for row in rows])
    return _bunch_from_columns(bag_ids, labels, values, [header[i] for i in feats], bag, label,
                               return_X_y)


def _maybe_numeric(cells, canonical=False):
    """Integers when every cell is one, else the strings (ids and labels).

    With `canonical`, integers only when every cell is written as Python
    writes the integer (so ids "1" and "01" stay two bags, as written).
    """
    try:
        values = [int(c) for c in cells]
    except ValueError:
        return np.array(cells)
    if canonical and any(str(v) != c for v, c in zip(values, cells)):
        return np.array(cells)
    return np.array(values)
