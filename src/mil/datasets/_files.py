"""A folder of per-bag feature files (``.npy``, ``.npz``, ``.h5``, ``.parquet``) and a labels table, as bags."""

import csv
import os
import zipfile

import numpy as np
from sklearn.utils import Bunch

from mil.bags import Bags
from mil.datasets._checks import numeric_or_strings
from mil.datasets._formats import (
    BAG_FILE_SUFFIXES, READERS, format_of, h5py_module, numeric_arrow_type, pyarrow_parquet,
)
from mil.datasets._leak import BagExtremes, warn_leaked_label
from mil.datasets._sink import InstanceSink
from mil.utils._docstrings import fill_doc

__all__ = ["load_bag_files"]

_LABEL_FILES = ("labels.csv", "labels.tsv")
_ID_COLUMNS = ("bag", "bag_id", "slide_id", "slide", "id", "case_id", "sample", "sample_id", "name", "file",
               "filename")
_LABEL_COLUMNS = ("label", "labels", "target", "y", "class")
_ROWS_PER_READ = 1 << 16  # rows of an HDF5 dataset or Parquet file read at once
_SUFFIXES = ", ".join(sorted(BAG_FILE_SUFFIXES))


class _BagFile:
    """One per-bag file: its id, path, format, and the shape and dtype of its feature matrix."""

    def __init__(self, path, key):
        self.path, self.key = path, key
        self.suffix = os.path.splitext(path)[1].lower()
        self.kind = BAG_FILE_SUFFIXES[self.suffix]
        self.shape, self.dtype, self.columns = self._inspect()
        if len(self.shape) != 2:
            raise ValueError(f"{path} holds a {len(self.shape)}-D array of shape {self.shape}; a bag is a 2-D "
                             "array (instances x features)")
        if self.shape[0] == 0:
            raise ValueError(f"{path} holds an empty bag (0 instances); every bag needs at least one")
        if self.dtype.kind not in "biuf":
            raise ValueError(f"{path} holds {self.dtype} values; features must be numbers")

    def _inspect(self):
        if self.suffix == ".npy":
            arr = np.load(self.path, mmap_mode="r")
            return arr.shape, arr.dtype, None
        if self.suffix == ".npz":
            with zipfile.ZipFile(self.path) as zf:
                self.member = self._npz_member(zf)
                with zf.open(self.member + ".npy") as fh:
                    version = np.lib.format.read_magic(fh)
                    shape, _, dtype = _npz_header(fh, version)
            return shape, dtype, None
        if self.kind == "HDF5":
            with h5py_module().File(self.path, "r") as f:
                dset = self._h5_dataset(f)
                return dset.shape, dset.dtype, None
        return self._parquet_shape()

    def _npz_member(self, zf):
        names = [n[:-4] for n in zf.namelist() if n.endswith(".npy")]
        key = self.key if self.key is not None else (
            names[0] if len(names) == 1 else "features" if "features" in names else None)
        if key is None or key not in names:
            raise ValueError(f"{self.path} holds the arrays {names}; "
                             + ("name the bag's with key=" if self.key is None else f"none is named {self.key!r}"))
        return key

    def _h5_dataset(self, f):
        key = "features" if self.key is None else self.key
        if key not in f or not hasattr(f[key], "shape"):
            found = []
            f.visititems(lambda name, obj: found.append(name) if hasattr(obj, "shape") else None)
            raise ValueError(f"{self.path} has no dataset {key!r} (it holds {found}); name the bag's "
                             "features with key=")
        return f[key]

    def _parquet_shape(self):
        pq = pyarrow_parquet()
        pf = pq.ParquetFile(self.path)
        schema = pf.schema_arrow
        if self.key is not None:
            if self.key not in schema.names:
                raise ValueError(f"{self.path} has no column {self.key!r}; its columns: {schema.names}")
            first = pf.read_row_group(0, columns=[self.key]).column(0).to_pylist()[:1] if pf.num_row_groups else []
            width = len(first[0]) if first and first[0] is not None else 0
            return (pf.metadata.num_rows, width), np.dtype(np.float64), [self.key]
        bad = [f"{f.name} ({f.type})" for f in schema if not numeric_arrow_type(f.type)]
        if bad:
            raise ValueError(f"{self.path}: the columns {bad} are not numeric; every column of a per-bag "
                             "Parquet file is a feature (or name one list column of vectors with key=)")
        dtypes = {np.dtype(f.type.to_pandas_dtype()) for f in schema}
        return (pf.metadata.num_rows, len(schema.names)), np.result_type(*dtypes), list(schema.names)

    def blocks(self):
        """The bag's rows, in blocks of at most _ROWS_PER_READ (numbers, 2-D)."""
        if self.suffix == ".npy":
            arr = np.load(self.path, mmap_mode="r")
            for lo in range(0, arr.shape[0], _ROWS_PER_READ):
                yield np.asarray(arr[lo:lo + _ROWS_PER_READ])
            del arr
        elif self.suffix == ".npz":
            with np.load(self.path) as npz:
                yield npz[self.member]
        elif self.kind == "HDF5":
            with h5py_module().File(self.path, "r") as f:
                dset = self._h5_dataset(f)
                for lo in range(0, dset.shape[0], _ROWS_PER_READ):
                    yield dset[lo:lo + _ROWS_PER_READ]
        else:
            pf = pyarrow_parquet().ParquetFile(self.path)
            for batch in pf.iter_batches(batch_size=_ROWS_PER_READ, columns=self.columns):
                if self.key is not None:
                    rows = batch.column(0).to_pylist()
                    if any(r is None or len(r) != self.shape[1] for r in rows):
                        raise ValueError(f"{self.path}: the vectors of column {self.key!r} differ in length")
                    yield np.array(rows, dtype=np.float64).reshape(len(rows), self.shape[1])
                else:
                    yield np.column_stack([c.to_numpy(zero_copy_only=False) for c in batch.columns])


def _npz_header(fh, version):
    reader = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
    return reader.get(version, np.lib.format.read_array_header_2_0)(fh)


def _scan(folder):
    """The per-bag files of `folder` ({stem: path}) and the other files' names."""
    bag_files, others = {}, []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if name.startswith(".") or not os.path.isfile(path):
            continue
        stem, suffix = os.path.splitext(name)
        if suffix.lower() in BAG_FILE_SUFFIXES:
            if stem in bag_files:
                raise ValueError(f"bag {stem!r} has two files in {folder}: {os.path.basename(bag_files[stem])} "
                                 f"and {name}; keep one")
            bag_files[stem] = path
        else:
            others.append(name)
    return bag_files, others


def _no_bag_files(folder, others):
    kinds = {}
    for name in others:
        kind = format_of(name) or (os.path.splitext(name)[1] or name)
        kinds[kind] = kinds.get(kind, 0) + 1
    held = ", ".join(f"{n} {k} file{'s' * (n > 1)}" for k, n in kinds.items()) or "nothing"
    advice = ""
    if "PyTorch" in kinds:
        advice = "; save each bag's tensor as .npy (np.save(path, torch.load(file).numpy())) or .h5"
    elif "CSV" in kinds or any(n.lower().endswith((".csv", ".tsv")) for n in others):
        advice = "; a long CSV table (one row per instance) is read by load_csv"
    return ValueError(f"{folder} holds no per-bag files ({_SUFFIXES}); it holds {held}{advice}. {READERS}")


def _labels_path(folder, labels):
    if labels is None:
        for name in _LABEL_FILES:
            if os.path.isfile(os.path.join(folder, name)):
                return os.path.join(folder, name)
        raise ValueError(f"{folder} has no labels.csv (bag id, label); name the labels table with labels=, "
                         "or pass labels=False to read the bags without labels")
    path = os.fspath(labels)
    if not os.path.isfile(path):
        raise ValueError(f"the labels table {path} does not exist")
    kind = format_of(path)
    if kind is not None:
        raise ValueError(f"the labels table {path} is a{'n' * (kind[0] in 'AEIOU')} {kind} file; labels= reads "
                         "a CSV table of bag id and label (.csv, .tsv)")
    return path


def _read_labels(path, bag_ids, bag_column, label_column):
    """{bag id: label text} from a CSV table; with or without a header."""
    delimiter = "\t" if path.lower().endswith(".tsv") else ","
    with open(path, encoding="utf-8-sig", newline="") as fh:
        rows = [[c.strip() for c in r] for r in csv.reader(fh, delimiter=delimiter) if any(c.strip() for c in r)]
    if not rows:
        raise ValueError(f"the labels table {path} is empty")
    header = None
    if bag_column is not None or label_column is not None or rows[0][0] not in bag_ids:
        header, rows = rows[0], rows[1:]
    if header is None:
        ib, il = 0, 1
    else:
        lower = [h.lower() for h in header]
        ib = _column(header, lower, bag_column, _ID_COLUMNS, 0, "bag id", path)
        il = _column(header, lower, label_column, _LABEL_COLUMNS, None, "label", path)
        if il is None:
            rest = [j for j in range(len(header)) if j != ib]
            if not rest:
                raise ValueError(f"the labels table {path} has one column; it needs a bag id and a label")
            il = rest[-1]
    table = {}
    for r, row in enumerate(rows, start=2 if header else 1):
        if len(row) <= max(ib, il):
            raise ValueError(f"the labels table {path}: line {r} has {len(row)} fields")
        key, value = row[ib], row[il]
        stem = key if key in bag_ids else os.path.splitext(key)[0] if os.path.splitext(key)[0] in bag_ids else key
        if value.lower() in ("", "nan", "?"):
            raise ValueError(f"the labels table {path}: line {r}: bag {key!r} has no label")
        if stem in table and table[stem] != value:
            raise ValueError(f"the labels table {path} gives bag {key!r} two labels: {table[stem]!r} and {value!r}")
        table[stem] = value
    return table


def _column(header, lower, given, names, default, what, path):
    if given is not None:
        if given not in header:
            raise ValueError(f"the labels table {path} has no {what} column {given!r}; its columns: {header}")
        return header.index(given)
    for name in names:
        if name in lower:
            return lower.index(name)
    return default


def _few(ids, limit=5):
    shown = ", ".join(repr(i) for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


@fill_doc
def load_bag_files(path, *, labels=None, key=None, bag_column=None, label_column=None, dtype=None, memmap=None,
                   return_X_y=False):
    """Read a folder of per-bag feature files and a labels table as bags.

    Feature extractors (CLAM, torchmil, slideflow and most pipelines for
    whole-slide images) write one file per bag, a matrix of instances x
    features, and a table of labels. Each file of the folder with a suffix
    ``.npy``, ``.npz``, ``.h5`` / ``.hdf5`` or ``.parquet`` / ``.pq`` is one
    bag, its id the file name without the suffix; other files are ignored
    (a CLAM folder whose features sit in ``h5_files/`` is read from there).

    - ``.npy``: the array (memory-mapped while it is copied).
    - ``.npz``: the array named `key`, else the file's only array, else
      ``features``.
    - ``.h5`` / ``.hdf5``: the dataset `key` (default ``features``, as CLAM
      writes), read in blocks of rows; needs h5py
      (``pip install scikit-mil[h5]``).
    - ``.parquet``: every column a feature (numeric), or `key` names one
      column holding each instance's vector; needs pyarrow
      (``pip install scikit-mil[parquet]``).

    The bags are copied once, bag by bag, into one instance matrix: in
    memory, or with `memmap` into a ``.npy`` file returned as a read-only
    memory map, so that data larger than memory is never held whole (the
    process holds one bag, or 65,536 rows of one, at a time:
    ``benchmarks/bench_bag_files.py`` measures the peak).

    Parameters
    ----------
    path : str or path-like
        The folder.
    labels : None, False, str, path-like or mapping, default=None
        None: the folder's ``labels.csv`` (or ``labels.tsv``). A path: that
        CSV table. A mapping: bag id -> label. False: no labels (``target``
        is None; to predict). A table has a bag-id and a label column: with
        a header, the columns named `bag_column` and `label_column`, else
        the first of ``bag``, ``bag_id``, ``slide_id``, ``slide``, ``id``,
        ``case_id``, ... and of ``label``, ``target``, ``y``, ``class`` (else
        the first column and the last); without a header (its first cell is
        a bag id), the first two columns. A table's id may carry a file
        suffix (``slide_1.h5``). Every bag needs a label, and every label a
        bag.
    key : str, default=None
        The array (``.npz``), dataset (``.h5``) or vector column
        (``.parquet``) holding each bag's features.
    bag_column, label_column : str, default=None
        The labels table's columns (its header names).
    dtype : {None, numpy.float32, numpy.float64}, default=None
        The instance matrix's type; None: float32 when every file holds
        float16 or float32 values, else float64.
    memmap : None, True or path-like, default=None
        None: the instances in memory. A path: copied into this ``.npy``
        file (created or overwritten), returned memory-mapped. True: a
        temporary file, deleted when the bags are no longer used.
    return_X_y : bool, default=False
        Return ``(bags, target)``.

    Returns
    -------
    data : Bunch
        ``bags`` (a :class:`~mil.Bags` with the bag ids as ``ids``, sorted
        by id; ``data`` is the same object), ``target`` (one label per bag:
        ints when every label is an integer, else floats when every label
        is a number, else strings; None with ``labels=False``), ``bag_ids``,
        ``files`` (the path of each bag's file) and ``memmap`` (the file's
        path, or None).

    Raises
    ------
    ValueError
        Naming the file and the problem: no per-bag files (and what the
        folder holds instead), an array that is not 2-D or has no rows,
        feature counts that differ between files, a bag without a label or
        a label without a bag, a labels table of another format.

    [leaked label warning]

    Examples
    --------
    >>> import numpy as np, os, tempfile
    >>> from mil.datasets import load_bag_files
    >>> folder = tempfile.mkdtemp()
    >>> for name, n in (("slide_a", 3), ("slide_b", 5)):
    ...     np.save(os.path.join(folder, name + ".npy"), np.ones((n, 4), dtype=np.float32))
    >>> with open(os.path.join(folder, "labels.csv"), "w") as fh:
    ...     _ = fh.write("slide_id,label\\nslide_a,1\\nslide_b,0\\n")
    >>> d = load_bag_files(folder)
    >>> d.bags.sizes.tolist(), d.target.tolist(), d.bag_ids.tolist()
    ([3, 5], [1, 0], ['slide_a', 'slide_b'])
    """
    folder = os.fspath(path)
    if not os.path.isdir(folder):
        if os.path.exists(folder):
            raise ValueError(f"{folder} is a file; load_bag_files reads a folder of per-bag files ({_SUFFIXES}). "
                             f"{READERS}")
        raise ValueError(f"the folder {folder} does not exist")
    bag_files, others = _scan(folder)
    if not bag_files and os.path.isdir(os.path.join(folder, "h5_files")):
        bag_files, _ = _scan(os.path.join(folder, "h5_files"))
    if not bag_files:
        raise _no_bag_files(folder, others)
    converted = numeric_or_strings(list(bag_files), canonical=True)  # numbered files sort by number
    ids = [str(i) for i in sorted(converted.tolist())]
    files = [_BagFile(bag_files[i], key) for i in ids]
    first = files[0]
    for f in files[1:]:
        if f.shape[1] != first.shape[1]:
            raise ValueError(f"{f.path} has {f.shape[1]} features; {first.path} has {first.shape[1]} (every bag "
                             "needs the same features)")
    target = None
    if labels is not False:
        if isinstance(labels, dict):
            table = {str(k): str(v) for k, v in labels.items()}
            where = "labels="
        else:
            where = _labels_path(folder, labels)
            table = _read_labels(where, set(ids), bag_column, label_column)
        missing = [i for i in ids if i not in table]
        if missing:
            raise ValueError(f"{where} gives no label to {len(missing)} of the {len(ids)} bags in {folder}: "
                             f"{_few(missing)}; every bag needs one")
        extra = sorted(set(table) - set(ids))
        if extra:
            raise ValueError(f"{where} labels {len(extra)} bag{'s' * (len(extra) > 1)} with no file in {folder}: "
                             f"{_few(extra)}")
        target = numeric_or_strings([table[i] for i in ids], floats=True)
    if dtype is None:
        dtype = np.float32 if all(f.dtype in (np.float16, np.float32) for f in files) else np.float64
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be None, float32 or float64; got {dtype}")
    sizes = np.array([f.shape[0] for f in files], dtype=np.intp)
    offsets = np.zeros(len(files) + 1, dtype=np.intp)
    np.cumsum(sizes, out=offsets[1:])
    sink = InstanceSink(offsets[-1], first.shape[1], dtype, memmap)
    extremes = BagExtremes(len(files), first.shape[1]) if target is not None else None
    try:
        for b, f in enumerate(files):
            row = offsets[b]
            for block in f.blocks():
                sink.put(row, block)
                if extremes is not None:
                    extremes.update(np.full(len(block), b), block)
                row += len(block)
        instances = sink.finish()
    except BaseException:
        sink.discard()
        raise
    bags = Bags(instances, offsets, ids=numeric_or_strings(ids, canonical=True),
                feature_names=first.columns if first.kind == "Parquet" and first.key is None else None)
    if extremes is not None:
        warn_leaked_label(extremes, target, bags.feature_names, folder)
    if return_X_y:
        return bags, target
    return Bunch(data=bags, bags=bags, target=target, bag_ids=bags.ids, files=[f.path for f in files],
                 memmap=None if memmap is None or memmap is True else os.fspath(memmap))
