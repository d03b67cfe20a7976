"""Reading a data set for the command line: a shipped name, an ARFF, CSV or Parquet file, or a folder.

A folder holds one feature file per bag (``.npy``, ``.npz``, ``.h5``,
``.parquet``: :func:`mil.datasets.load_bag_files`) and a labels table; a
Parquet file is one long table (:func:`mil.datasets.load_parquet`).

A CSV file is read once: its separator is sniffed from its first lines, then
the loader reads it; the order in which its bags first appear (which a folds
file of one fold number per line follows) is read only when such a folds
file asks for it.
"""

import csv
import io
import os
import sys
import warnings

import numpy as np

from mil.bags import Bags
from mil.cli._common import CLIError
from mil.datasets import (DATASETS, LeakedLabelWarning, load_arff, load_bag_files, load_csv, load_dataset, load_milweb,
                          load_parquet)
from mil.datasets._arff import read_text
from mil.utils.validation import check_bags

__all__ = ["Data", "READ_FORMATS", "load", "sniff_delimiter"]

#: What ``--dataset`` reads, in the words of the error a user sees for anything else.
READ_FORMATS = ("a shipped name, a Weka multi-instance ARFF file (.arff), a long CSV or Parquet file "
                "(.csv, .tsv, .txt, .parquet: one row per instance with a bag id column, a label column "
                "and numeric features) or a folder of per-bag .npy, .npz, .h5 or .parquet files with "
                "a labels.csv")
_PARQUET = (".parquet", ".pq")
_OTHER_FORMATS = {".json": "JSON", ".xlsx": "Excel", ".xls": "Excel",
                  ".h5": "HDF5", ".hdf5": "HDF5", ".npy": "NumPy", ".npz": "NumPy", ".pkl": "pickle",
                  ".mat": "MATLAB", ".zip": "zip", ".gz": "gzip"}


class Data:
    """A data set as the command line uses it: bags with ids, labels, folds.

    Parameters
    ----------
    bags : Bags
    y : ndarray of shape (n_bags,)
    name : str
    published : ndarray of shape (n_repetitions, n_bags), default=None
        The fold table of a shipped set.
    order : callable, default=None
        Returns the bag ids in the order they first appear in the file (a
        CSV file, whose loader sorts the bags by id); called only when needed.
    declared : list of str, default=None
        An ARFF file's class values in the order the file declares them.
    split : tuple of ndarray, default=None
        MILWEB's predefined (train, test) bag indices.
    """

    def __init__(self, bags, y, name, published=None, order=None, declared=None, split=None):
        self.bags, self.y, self.name = bags, y, name
        self.published, self.declared, self.split = published, declared, split
        self._order = order

    @property
    def file_order(self):
        """Bag ids in the order they first appear in the file (None: the bags' own order)."""
        if callable(self._order):
            self._order = self._order()
        return self._order


def _csv_bag_order(path, bag, delimiter, encoding):
    """Bag ids (strings) in the order they first appear in a long CSV file."""
    seen = {}
    reader = csv.reader(io.StringIO(read_text(path, encoding), newline=""), delimiter=delimiter)
    column = [h.strip() for h in next(reader)].index(bag)
    for row in reader:
        if len(row) > column and row[column].strip():
            seen.setdefault(row[column].strip(), None)
    return list(seen)


def _milweb_user(name):
    """1..9 for ``milweb1`` .. ``milweb9`` (``milweb``: user 1), else None."""
    key = name.lower()
    if key == "milweb":
        return 1
    digits = key.removeprefix("milweb")
    if key.startswith("milweb") and digits.isdigit() and 1 <= int(digits) <= 9:
        return int(digits)
    return None


def _shipped_names():
    return ", ".join([*DATASETS, "milweb1..milweb9"])


def _check_format(path):
    """A clear error for a file of a format the command line does not read."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix in _OTHER_FORMATS:
        raise CLIError(f"{path} is a {_OTHER_FORMATS[suffix]} file; --dataset reads {READ_FORMATS}")


def _load_shipped(dataset, user):
    if dataset.lower() in DATASETS:
        d = load_dataset(dataset)
        return Data(d.bags, d.target, dataset.lower(), published=d.folds)
    if dataset.lower() == "milweb":
        print("mil: note: milweb is MILWEB user 1; milweb1..milweb9 name the nine users", file=sys.stderr)
    d = load_milweb(user, as_bags=True)
    print(f"mil: note: {d.name}'s bags are sparse: the learners with a scale parameter run with "
          f"scale=None (the published MILWEB protocol); learners that need dense bags are skipped",
          file=sys.stderr)
    return Data(d.bags, d.target, d.name, split=(d.train_indices, d.test_indices))


def _load_files(args, dataset):
    """A folder of per-bag files, or a long Parquet table."""
    folder = os.path.isdir(dataset)
    labels = getattr(args, "labels", None)
    if labels is not None and not folder:
        raise CLIError(f"--labels applies to a folder of per-bag files; {dataset} is a file")
    try:
        if folder:
            d = load_bag_files(dataset, labels=labels, bag_column=args.bag_column, label_column=args.label_column)
        else:
            d = load_parquet(dataset, bag=args.bag_column or "bag", label=args.label_column or "label")
    except ImportError as exc:
        raise CLIError(f"cannot read {dataset}: {exc}") from None
    except (OSError, ValueError, TypeError) as exc:
        raise CLIError(f"cannot read {dataset}: {_shorter(str(exc), 600)}") from None
    return d


def load(args):
    """The data set of ``--dataset`` (and the CSV options), checked; a :class:`Data`.

    A leaked label (a feature column that copies the bag label) is said on
    stderr as ``mil: warning: ...``.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LeakedLabelWarning)
        data = _load(args)
    for w in caught:
        if issubclass(w.category, LeakedLabelWarning):
            print(f"mil: warning: {w.message}", file=sys.stderr)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return data


def _load(args):
    dataset = args.dataset
    encoding = getattr(args, "encoding", None)
    csv_options = {"--bag-column": args.bag_column, "--label-column": args.label_column,
                   "--delimiter": args.delimiter}
    user = _milweb_user(dataset) if not os.path.exists(dataset) else None
    shipped = dataset.lower() in DATASETS or user is not None
    is_csv = not dataset.lower().endswith(".arff") and not shipped
    if not is_csv:
        given = [opt for opt, value in csv_options.items() if value is not None]
        if given:
            raise CLIError(f"{given[0]} applies to CSV files; {dataset} is "
                           + ("a shipped data set" if shipped else "an ARFF file"))
    if shipped:
        if encoding is not None:
            raise CLIError(f"--encoding applies to files; {dataset} is a shipped data set")
        return _load_shipped(dataset, user)
    if not os.path.exists(dataset):
        raise CLIError(f"unknown data set {dataset!r}: not a shipped name ({_shipped_names()}) nor an "
                       f"existing file; --dataset reads {READ_FORMATS}")
    if os.path.isdir(dataset) or dataset.lower().endswith(_PARQUET):
        if args.delimiter is not None or encoding is not None:
            raise CLIError(f"--{'delimiter' if args.delimiter is not None else 'encoding'} applies to CSV and "
                           f"ARFF files; {dataset} is " + ("a folder" if os.path.isdir(dataset) else "a Parquet file"))
        d = _load_files(args, dataset)
        return _checked(d.bags, d.target, os.path.basename(os.path.normpath(dataset)), dataset)
    if getattr(args, "labels", None) is not None:
        raise CLIError(f"--labels applies to a folder of per-bag files; {dataset} is a file")
    _check_format(dataset)
    encoding = encoding or "utf-8"
    bag, label = args.bag_column or "bag", args.label_column or "label"
    declared = delimiter = order = None
    try:
        if is_csv:
            delimiter = sniff_delimiter(args.delimiter, dataset, encoding, bag)
            d = load_csv(dataset, bag=bag, label=label, delimiter=delimiter, encoding=encoding)
            order = lambda: _csv_bag_order(dataset, bag, delimiter, encoding)  # noqa: E731
        else:
            d = load_arff(dataset, encoding=encoding)  # the loader keeps the file's order
            if d.get("target_names") is not None:
                declared = [str(v) for v in d.target_names]
    except (OSError, ValueError, TypeError, UnicodeDecodeError) as exc:
        text = str(exc)
        text = text[len(f"{dataset}: "):] if text.startswith(f"{dataset}: ") else text
        if is_csv:
            text = _shorter(text) + _column_hint(text, args, dataset, encoding, delimiter)
        raise CLIError(f"cannot read {dataset}: {text}") from None
    # Bags that carry the file's ids, so that error messages name bags as the file does.
    bags = Bags(d.bags.instances, d.bags.offsets, ids=np.asarray(d.bag_ids))
    data = _checked(bags, d.target, os.path.basename(dataset), dataset)
    data._order, data.declared = order, declared
    return data


def _checked(bags, target, name, dataset):
    """The bags and labels as a :class:`Data`, after the checks every source gets."""
    try:
        check_bags(bags, allow_nan=True, name=name)
    except ValueError as exc:
        raise CLIError(f"{exc}") from None
    if target is None or len(np.unique(target)) < 2:
        raise CLIError(f"{dataset} holds a single class; evaluation needs two")
    return Data(bags, np.asarray(target), name)


def _shorter(text, limit=300):
    """A loader's message with a long header list cut to `limit` characters."""
    return text if len(text) <= limit else text[:limit - 5].rstrip() + " ...]"


def _column_hint(text, args, path, encoding, delimiter):
    """What to pass when the loader found no bag or label column."""
    if "no bag column" not in text and "no label column" not in text:
        return ""
    try:
        if delimiter is not None and len(_header_fields(path, encoding, delimiter)[1]) < 3:
            for candidate in _SNIFFED:
                if candidate != delimiter and len(_header_fields(path, encoding, candidate)[1]) >= 3:
                    return f"; the header splits on {_shown(candidate)}: pass --delimiter {_shown(candidate)}"
            return f"; --dataset reads {READ_FORMATS}"
    except (ValueError, LookupError, UnicodeDecodeError):
        return f"; --dataset reads {READ_FORMATS}"
    if "no bag column" in text and args.bag_column is None:
        return "; name the bag-id column with --bag-column"
    if "no label column" in text and args.label_column is None:
        return "; name the label column with --label-column"
    return ""


def _shown(delimiter):
    return {"\t": "tab", " ": "space"}.get(delimiter, f"'{delimiter}'")


_SNIFFED = (",", ";", "\t", "|")


def _first_lines(path, encoding, n_lines=20):
    """The first `n_lines` non-empty lines of a text file (read no further)."""
    enc = "utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding
    lines = []
    with open(path, encoding=enc, newline="") as fh:
        for line in fh:
            if line.strip():
                lines.append(line.rstrip("\r\n"))
                if len(lines) == n_lines:
                    break
    return lines


def _header_fields(path, encoding, delimiter, lines=None):
    """Field counts of the first non-empty lines split on `delimiter`, and the header."""
    rows = list(csv.reader(_first_lines(path, encoding) if lines is None else lines, delimiter=delimiter))
    return [len(r) for r in rows], ([h.strip() for h in rows[0]] if rows else [])


def sniff_delimiter(value, path, encoding="utf-8", bag="bag"):
    """The field separator: `value`, else the one the file's first lines agree on.

    Sniffing tries comma, semicolon, tab and bar: a candidate must split the
    header into at least three fields (bag, label, a feature) and every one
    of the first lines into as many. Among several, the one whose header
    holds the bag column wins, then the order above. When none fits, the
    file is read with commas (tabs for .tsv/.tab) and a missing column's
    error says which separator would split the header.
    """
    if value is not None:
        value = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "space": " "}.get(value, value)
        if len(value) != 1:
            raise CLIError(f"--delimiter must be one character (or tab, comma, semicolon, space); got {value!r}")
        return value
    default = "\t" if path.lower().endswith((".tsv", ".tab")) else ","
    try:
        lines = _first_lines(path, encoding)
    except (LookupError, UnicodeDecodeError):
        return default  # the loader then says what is wrong with the encoding
    fits = []
    for candidate in _SNIFFED:
        counts, header = _header_fields(path, encoding, candidate, lines)
        if counts and counts[0] >= 3 and len(set(counts)) == 1:
            fits.append((bag not in header, candidate != default, candidate))
    return min(fits)[2] if fits else default
