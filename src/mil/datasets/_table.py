"""Long tables (one row per instance: bag id, bag label, features) to bags."""

import csv
from array import array

import numpy as np
from sklearn.utils import Bunch

from mil.datasets._arff import read_text
from mil.datasets._checks import numeric_or_strings
from mil.datasets._formats import check_table_format
from mil.datasets._leak import BagExtremes, warn_leaked_label
from mil.utils.validation import bags_from_instances, shown
from mil.utils._docstrings import fill_doc

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


def _bunch_from_columns(bag_ids, labels, features, feature_names, bag, label, return_X_y, frame=None,
                        source="the table"):
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
    warn_leaked_label(BagExtremes.of(bags), bag_labels, feature_names, source, stacklevel=4)
    data = list(bags) if frame is None else _frames(bags, frame)  # read-only views of the bags' rows
    if return_X_y:
        return data, bag_labels
    return Bunch(data=data, target=bag_labels, bags=bags, bag_ids=bags.ids,
                 feature_names=list(bags.feature_names))


def _frames(bags, frame):
    """One DataFrame per bag (the table's feature columns), so that ``fit`` sees the names."""
    return [frame(bag.copy(), columns=list(bags.feature_names)) for bag in bags]


@fill_doc
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
        names, else read-only 2-D views of ``bags.instances``), ``target``
        (one label per bag), ``bags``
        (:class:`~mil.Bags` with ``feature_names``), ``bag_ids``,
        ``feature_names``. ``(data, target)`` if `return_X_y`. Fitting on
        ``data`` or ``bags`` sets the estimator's ``feature_names_in_``,
        which its printed models (``export_text``) use.

    [leaked label warning]

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


@fill_doc
def load_csv(path, bag="bag", label="label", *, delimiter=",", encoding="utf-8", return_X_y=False):
    """Read a long CSV file (header row; one row per instance) into bags.

    The file is parsed by pyarrow's CSV reader when pyarrow is installed
    (``pip install scikit-mil[parquet]``): the peak memory stays near that
    of ``pandas.read_csv`` on the same file (``benchmarks/bench_csv_reader.py``
    measures both). Without pyarrow, and to name the line of a malformed
    row, the file is read row by row with Python's ``csv`` module (slower,
    the same result).

    Parameters
    ----------
    path : str or path-like
    bag, label : str
        Names of the bag-id and label columns; every other column is a
        numeric feature (empty cells and ``?`` are read as NaN). Bag ids are
        kept as written: integers when every id is an integer written
        canonically, else strings (so ``1`` and ``01`` are two bags); a row
        without a bag id raises. Labels are integers when every label is
        one, else floats when every label is a number (a regression), else
        strings.
    delimiter : str, default=","
    encoding : str, default="utf-8"
        Text encoding of the file (a UTF-8 byte-order mark is skipped).
    return_X_y : bool, default=False

    Returns
    -------
    data : Bunch or tuple
        As :func:`from_frame` (``data`` as read-only 2-D views of
        ``bags.instances``, which holds the file once; ``bags`` carries the
        column names as ``feature_names``: fit on it to keep them).

    [leaked label warning]
    """
    check_table_format(path, "load_csv", "a CSV text file (.csv, .tsv, .txt)")
    header = _csv_header(path, delimiter, encoding)
    for name, what in ((bag, "bag"), (label, "label")):
        if name not in header:
            raise ValueError(f"{path}: no {what} column {name!r} in the header {_short_header(header)}")
    ib, il = header.index(bag), header.index(label)
    feats = [i for i in range(len(header)) if i not in (ib, il)]
    if not feats:
        raise ValueError(f"{path}: no feature columns")
    columns = _read_with_arrow(path, header, ib, il, feats, delimiter, encoding)
    if columns is None:
        columns = _read_with_csv(path, header, ib, il, feats, delimiter, encoding, bag, label)
    ids, labels, values = columns
    return _bunch_from_columns(numeric_or_strings(ids, canonical=True), numeric_or_strings(labels, floats=True),
                               values, [header[i] for i in feats], bag, label, return_X_y, source=str(path))


def _short_header(header, limit=12):
    """The header as a list, cut after `limit` names (a wrong-format file has one enormous "name")."""
    shown_names = [h if len(h) <= 40 else h[:37] + "..." for h in header[:limit]]
    return str(shown_names) if len(header) <= limit else str(shown_names)[:-1] + f", ... ({len(header)} columns)]"


def _csv_header(path, delimiter, encoding):
    """The stripped names of the first row of a CSV file."""
    enc = "utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding
    try:
        with open(path, encoding=enc, newline="") as fh:
            first = next(csv.reader(fh, delimiter=delimiter), None)
    except UnicodeDecodeError:
        read_text(path, encoding)  # raises the error naming the byte and its offset
        raise
    except LookupError:
        raise ValueError(f"unknown encoding {encoding!r}") from None
    if first is None:
        raise ValueError(f"{path} is empty")
    return [h.strip() for h in first]


def _read_with_arrow(path, header, ib, il, feats, delimiter, encoding):
    """(bag ids, labels, features) parsed by pyarrow; None without pyarrow or when a row needs a closer look."""
    try:
        import pyarrow as pa
        from pyarrow import csv as pa_csv
    except ImportError:
        return None
    names = [f"c{i}" for i in range(len(header))]
    read = pa_csv.ReadOptions(column_names=names, skip_rows=1, encoding=encoding, use_threads=True)
    parse = pa_csv.ParseOptions(delimiter=delimiter)
    types = {names[i]: pa.float64() for i in feats}
    types[names[ib]] = types[names[il]] = pa.string()
    convert = pa_csv.ConvertOptions(column_types=types, null_values=["", "?"], strings_can_be_null=False,
                                    quoted_strings_can_be_null=False)
    try:
        table = pa_csv.read_csv(path, read_options=read, parse_options=parse, convert_options=convert,
                                memory_pool=pa.system_memory_pool())  # freed pages go back to malloc
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError, OSError):
        return None  # the row-by-row reader names the line and the problem
    ids = np.asarray(table.column(ib).to_numpy(zero_copy_only=False), dtype=object)
    labels = np.asarray(table.column(il).to_numpy(zero_copy_only=False), dtype=object)
    if table.num_rows == 0 or _any_blank(ids) or _any_blank(labels):
        return None
    ids, labels = _stripped(ids), _stripped(labels)
    # Rows in the bags' order (sorted id, file order within a bag), so that the grouping copies nothing.
    order = np.argsort(numeric_or_strings(ids, canonical=True), kind="stable")
    columns = [table.column(i) for i in feats]
    del table
    values = np.empty((len(ids), len(feats)))
    for j in range(len(columns)):  # column by column, each Arrow buffer freed once copied
        values[:, j] = columns[j].to_numpy(zero_copy_only=False)[order]
        columns[j] = None
    return ids[order], labels[order], values


def _any_blank(cells):
    """Whether a cell is empty or whitespace (a missing id), or a missing-label marker."""
    unique = np.unique(cells)
    return any(not c.strip() or c.strip().lower() in ("nan", "?") for c in unique)


def _stripped(cells):
    """`cells` with surrounding whitespace removed (each distinct value stripped once)."""
    unique, inverse = np.unique(cells, return_inverse=True)
    return np.array([c.strip() for c in unique], dtype=object)[inverse.ravel()]


def _read_with_csv(path, header, ib, il, feats, delimiter, encoding, bag, label):
    """(bag ids, labels, features) read row by row; errors name the file's line."""
    enc = "utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding
    ids, labels, values = [], [], array("d")
    try:
        with open(path, encoding=enc, newline="") as fh:
            reader = csv.reader(fh, delimiter=delimiter)
            next(reader)
            for row in reader:
                if not row or not any(cell.strip() for cell in row):
                    continue
                line = reader.line_num  # the file's line (blank lines and quoted newlines counted)
                if len(row) != len(header):
                    raise ValueError(f"{path}: line {line} has {len(row)} fields; the header has {len(header)}")
                for i in feats:
                    cell = row[i].strip()
                    try:
                        values.append(np.nan if cell in ("", "?") else float(cell))
                    except ValueError:
                        raise ValueError(f"{path}: line {line}, column {header[i]!r}: "
                                         f"{cell!r} is not a number") from None
                bag_id, value = row[ib].strip(), row[il].strip()
                if not bag_id:
                    raise ValueError(f"{path}: line {line} has no bag id (column {bag!r} is empty); "
                                     "every row needs one")
                if value.lower() in ("", "nan", "?"):
                    raise ValueError(f"{path}: line {line}: bag {bag_id!r} has no label "
                                     f"({value!r} in the column {label!r}); every bag needs one")
                ids.append(bag_id)
                labels.append(value)
    except UnicodeDecodeError:
        read_text(path, encoding)  # raises the error naming the byte and its offset
        raise
    if not ids:
        raise ValueError("the table has no rows")
    return (np.array(ids, dtype=object), np.array(labels, dtype=object),
            np.frombuffer(values, dtype=np.float64).reshape(len(ids), len(feats)))
