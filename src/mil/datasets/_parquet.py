"""One long Parquet table (a row per instance: bag id, label, features) as bags."""

import os

import numpy as np
from sklearn.utils import Bunch

from mil.bags import Bags
from mil.datasets._formats import check_table_format, numeric_arrow_type, pyarrow_parquet
from mil.datasets._leak import BagExtremes, warn_leaked_label
from mil.datasets._sink import InstanceSink
from mil.utils._docstrings import fill_doc

__all__ = ["load_parquet"]

_BATCH = 1 << 16


def _ids_and_labels(pf, bag, label, path):
    table = pf.read(columns=[bag, label])
    out = []
    for name, what in ((bag, "bag id"), (label, "label")):
        column = table.column(name)
        if column.null_count:
            row = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
            raise ValueError(f"{path}: row {row} has no {what} (column {name!r} is null); every row needs one")
        out.append(np.asarray(column.to_numpy(zero_copy_only=False)))
    return out


def _feature_columns(schema, bag, label, features, path):
    """(column names, width of a vector column or None)."""
    names = schema.names
    if features is None:
        features = [n for n in names if n not in (bag, label)]
    elif isinstance(features, str):
        features = [features]
    missing = [c for c in features if c not in names]
    if missing:
        raise ValueError(f"{path}: the feature columns {missing} are not in the table; its columns: {names}")
    if not features:
        raise ValueError(f"{path}: the table has no feature columns")
    kinds = {c: schema.field(c).type for c in features}
    lists = [c for c, k in kinds.items() if hasattr(k, "value_type")]
    if lists:
        if len(features) != 1:
            raise ValueError(f"{path}: the list column {lists[0]!r} holds vectors; give it alone as features= "
                             f"(the feature columns are {features})")
        if not numeric_arrow_type(kinds[lists[0]].value_type):
            raise ValueError(f"{path}: the column {lists[0]!r} holds {kinds[lists[0]]}, not numbers")
        return features, True
    bad = [f"{c} ({k})" for c, k in kinds.items() if not numeric_arrow_type(k)]
    if bad:
        raise ValueError(f"{path}: the feature columns {bad} are not numeric; name the features with features=")
    return features, False


def _vectors(column, path, name):
    """A list column of equal-length numeric vectors as a 2-D float64 array."""
    import pyarrow as pa

    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    lengths = column.value_lengths().to_numpy(zero_copy_only=False)
    if column.null_count or len(set(lengths.tolist())) > 1:
        raise ValueError(f"{path}: the vectors of column {name!r} differ in length (or some are null)")
    width = int(lengths[0]) if len(lengths) else 0
    return np.asarray(column.flatten().to_numpy(zero_copy_only=False), dtype=np.float64).reshape(-1, width)


@fill_doc
def load_parquet(path, bag="bag", label="label", *, features=None, dtype=np.float64, memmap=None,
                 return_X_y=False):
    """Read one long Parquet table (a row per instance) into bags.

    The table holds a bag-id column, a label column (the same on every row
    of a bag) and the features: numeric columns, or one list column
    holding each instance's vector (as embedding pipelines write). It is
    read in batches of 65,536 rows into one instance matrix, in memory or
    (`memmap`) in a ``.npy`` file returned memory-mapped, so that the table
    is never held whole. Needs pyarrow (``pip install scikit-mil[parquet]``).

    Parameters
    ----------
    path : str or path-like
    bag, label : str, default="bag", "label"
        Names of the bag-id and label columns.
    features : str or list of str, default=None
        The feature columns (a single list column of vectors, or numeric
        columns); None: every column but `bag` and `label`.
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
    memmap : None, True or path-like, default=None
        As in :func:`load_bag_files`.
    return_X_y : bool, default=False

    Returns
    -------
    data : Bunch
        ``bags`` (a :class:`~mil.Bags` ordered by sorted bag id, with the ids
        and, for numeric feature columns, their names; ``data`` is the same
        object), ``target`` (one label per bag: ints when every label is an
        integer, floats when every label is a number, else strings),
        ``bag_ids``, ``feature_names`` and ``memmap``. Ids and labels keep
        their columns' types.

    [leaked label warning]

    Examples
    --------
    >>> import os, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> from mil.datasets import load_parquet
    >>> path = os.path.join(tempfile.mkdtemp(), "bags.parquet")
    >>> pq.write_table(pa.table({"bag": ["a", "a", "b"], "label": [1, 1, 0],
    ...                          "x": [0.5, 2.0, 1.0], "z": [1.0, 1.0, 3.0]}), path)
    >>> d = load_parquet(path)
    >>> d.bags.sizes.tolist(), d.target.tolist(), d.feature_names
    ([2, 1], [1, 0], ['x', 'z'])
    """
    check_table_format(path, "load_parquet", "a Parquet file (.parquet)")
    pq = pyarrow_parquet()
    pf = pq.ParquetFile(os.fspath(path))
    names = pf.schema_arrow.names
    for name, what in ((bag, "bag"), (label, "label")):
        if name not in names:
            raise ValueError(f"{path}: no {what} column {name!r}; its columns: {names}")
    columns, is_vector = _feature_columns(pf.schema_arrow, bag, label, features, path)
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64; got {dtype}")
    ids, labels = _ids_and_labels(pf, bag, label, path)
    n_rows = len(ids)
    if n_rows == 0:
        raise ValueError(f"{path}: the table has no rows")
    unique, inverse = np.unique(ids, return_inverse=True)
    inverse = inverse.ravel().astype(np.intp)
    order = np.argsort(inverse, kind="stable")
    destination = np.empty(n_rows, dtype=np.intp)
    destination[order] = np.arange(n_rows)
    counts = np.bincount(inverse, minlength=len(unique))
    offsets = np.zeros(len(unique) + 1, dtype=np.intp)
    np.cumsum(counts, out=offsets[1:])
    bag_labels = labels[order[offsets[:-1]]]
    differs = labels != bag_labels[inverse]
    if differs.any():
        r = int(np.flatnonzero(differs)[0])
        raise ValueError(f"{path}: bag {ids[r]!r} has rows with different values in the label column {label!r}; "
                         "a bag has one label")
    width = None
    sink = extremes = None
    try:
        start = 0
        for batch in pf.iter_batches(batch_size=_BATCH, columns=columns):
            if is_vector:
                block = _vectors(batch.column(0), path, columns[0])
            else:
                block = np.column_stack([np.asarray(c.to_numpy(zero_copy_only=False), dtype=np.float64)
                                         for c in batch.columns])
            if sink is None:
                width = block.shape[1]
                sink = InstanceSink(n_rows, width, dtype, memmap)
                extremes = BagExtremes(len(unique), width)
            elif block.shape[1] != width:
                raise ValueError(f"{path}: the vectors of column {columns[0]!r} differ in length")
            rows = slice(start, start + len(block))
            sink.put_rows(destination[rows], block)
            extremes.update(inverse[rows], block)
            start += len(block)
        instances = sink.finish()
    except BaseException:
        if sink is not None:
            sink.discard()
        raise
    feature_names = None if is_vector else list(columns)
    bag_ids, target = unique, bag_labels  # the columns' own types (a string column stays strings)
    bags = Bags(instances, offsets, ids=bag_ids, feature_names=feature_names)
    warn_leaked_label(extremes, target, feature_names, os.fspath(path))
    if return_X_y:
        return bags, target
    return Bunch(data=bags, bags=bags, target=target, bag_ids=bag_ids, feature_names=feature_names,
                 memmap=None if memmap is None or memmap is True else os.fspath(memmap))
