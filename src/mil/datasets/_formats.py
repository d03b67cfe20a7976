"""Which file formats mil's readers take, and a clear error for any other."""

import os

__all__ = ["BAG_FILE_SUFFIXES", "OTHER_FORMATS", "READERS", "check_table_format", "format_of", "h5py_module",
           "numeric_arrow_type", "pyarrow_parquet"]

#: suffix -> format of the per-bag files :func:`mil.datasets.load_bag_files` reads.
BAG_FILE_SUFFIXES = {".npy": "NumPy", ".npz": "NumPy", ".h5": "HDF5", ".hdf5": "HDF5",
                     ".parquet": "Parquet", ".pq": "Parquet"}

#: suffix -> name of formats no reader takes (or takes only through another reader).
OTHER_FORMATS = {".json": "JSON", ".jsonl": "JSON", ".xlsx": "Excel", ".xls": "Excel", ".pkl": "pickle",
                 ".pickle": "pickle", ".pt": "PyTorch", ".pth": "PyTorch", ".mat": "MATLAB", ".zip": "zip",
                 ".gz": "gzip", ".feather": "Feather", ".arrow": "Arrow", ".zarr": "Zarr",
                 **BAG_FILE_SUFFIXES, ".arff": "ARFF"}

#: The readers of mil.datasets and what each reads, in the words of an error message.
READERS = ("mil.datasets reads long CSV tables with one row per instance (load_csv), one long Parquet "
           "table (load_parquet), Weka's multi-instance ARFF (load_arff) and folders of per-bag "
           ".npy / .npz / .h5 / .parquet files with a labels.csv (load_bag_files)")

_ADVICE = {
    "PyTorch": "; save each bag as .npy (np.save(path, torch.load(file).numpy())) or .h5",
    "Excel": "; save the sheet as CSV",
    "JSON": "; write the table as CSV or Parquet",
    "Feather": "; pyarrow.feather.read_table(path) then write it as Parquet",
}


def format_of(path):
    """The format name of `path`'s suffix ("HDF5", "JSON", ...) or None."""
    return OTHER_FORMATS.get(os.path.splitext(os.fspath(path))[1].lower())


def check_table_format(path, reader, reads):
    """Raise a ValueError for a folder or a file of a format `reader` does not read.

    Parameters
    ----------
    path : str or path-like
    reader : str
        The reader's name (``"load_csv"``).
    reads : str
        What it reads (``"a CSV text file (.csv, .tsv, .txt)"``).
    """
    if os.path.isdir(path):
        raise ValueError(f"{path} is a folder; {reader} reads {reads}. A folder of per-bag files is read by "
                         "load_bag_files")
    kind = format_of(path)
    if kind is None or (reader == "load_parquet" and kind == "Parquet"):
        return
    if reader == "load_arff" and kind == "ARFF":
        return
    raise ValueError(f"{path} is a{'n' if kind[0] in 'AEIOU' else ''} {kind} file; {reader} reads {reads}"
                     f"{_ADVICE.get(kind, '')}. {READERS}")


def numeric_arrow_type(kind):
    """Whether a pyarrow type holds numbers (integers, floats, booleans)."""
    import pyarrow.types as t

    return t.is_integer(kind) or t.is_floating(kind) or t.is_boolean(kind)


def h5py_module():
    """h5py, or an ImportError saying how to install it."""
    try:
        import h5py
    except ImportError:
        raise ImportError("reading .h5 bag files needs h5py: pip install scikit-mil[h5] (or pip install h5py)") \
            from None
    return h5py


def pyarrow_parquet():
    """pyarrow.parquet, or an ImportError saying how to install it."""
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError("reading Parquet files needs pyarrow: pip install scikit-mil[parquet] (or pip install "
                          "pyarrow)") from None
    return pq
