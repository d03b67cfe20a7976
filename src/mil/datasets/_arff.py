"""Reader for Weka's multi-instance ARFF layout (a relational attribute per bag).

The layout (Weka's MILR/MISVM data, e.g. ``musk1.arff``)::

    @relation musk1
    @attribute bag_id {0,1,2}
    @attribute bag relational
      @attribute f1 numeric
      @attribute f2 numeric
    @end bag
    @attribute class {0,1}
    @data
    0,"42,-198\\n41,-191",1

Each data row is ``bag id, "instances", label``; inside the quoted value the
instances are separated by the two characters ``\\n`` (or real line breaks)
and their values by commas. ``?`` is a missing value (NaN). Nominal
attributes inside a bag are encoded as the index of their value.
"""

import re
import warnings

import numpy as np
from sklearn.utils import Bunch

from mil.bags import Bags
from mil.datasets._leak import BagExtremes, warn_leaked_label

__all__ = ["load_arff"]

_NUMERIC = {"numeric", "real", "integer"}


def _split_fields(text, path, line_no):
    """Split on top-level commas, honouring single/double quotes and backslash escapes."""
    fields, buf, quote, i = [], [], None, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and i + 1 < len(text):
                nxt = text[i + 1]
                buf.append({"n": "\n", "t": "\t", "r": "\r"}.get(nxt, nxt))
                i += 2
                continue
            if ch == quote:
                quote = None
            else:
                buf.append(ch)
        elif ch in "\"'":
            quote = ch
        elif ch == ",":
            fields.append("".join(buf).strip())
            buf = []
        else:
            buf.append(ch)
        i += 1
    if quote:
        raise ValueError(f"{path}: line {line_no}: unterminated quote")
    fields.append("".join(buf).strip())
    return fields


def _parse_type(spec, path, line_no):
    spec = spec.strip()
    if spec.startswith("{"):
        if not spec.endswith("}"):
            raise ValueError(f"{path}: line {line_no}: malformed nominal values {spec!r}")
        # Split like a data row: a quoted value may hold a comma ({'a,b', c}).
        return _split_fields(spec[1:-1], path, line_no)
    kind = spec.split()[0].lower()
    if kind in _NUMERIC or kind == "relational":
        return kind
    raise ValueError(f"{path}: line {line_no}: attribute type {spec!r} is not supported "
                     "(numeric, nominal and relational are)")


_ATTR = re.compile(r"@attribute\s+('[^']*'|\"[^\"]*\"|\S+)\s+(.*)$", re.IGNORECASE)


def _quote_open(text):
    """Whether `text` ends inside a quoted value (same quoting rules as :func:`_split_fields`)."""
    quote, i = None, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        i += 1
    return quote is not None


def read_text(path, encoding):
    """The text of `path` in `encoding`, without a UTF-8 byte-order mark.

    A file that does not decode raises a ValueError naming the file, the
    encoding and the offending byte, instead of a bare UnicodeDecodeError.
    """
    with open(path, "rb") as fh:
        raw = fh.read()
    enc = "utf-8-sig" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding
    try:
        text = raw.decode(enc)
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path} is not valid {encoding} text (byte {raw[exc.start:exc.start + 1]!r} "
                         f"at offset {exc.start}); pass the file's encoding, e.g. "
                         "encoding='latin-1'") from None
    except LookupError:
        raise ValueError(f"unknown encoding {encoding!r}") from None
    return text[1:] if text.startswith("\ufeff") else text


def load_arff(path, *, encoding="utf-8", return_X_y=False):
    """Read a Weka multi-instance ARFF file.

    Parameters
    ----------
    path : str or path-like
    encoding : str, default="utf-8"
        Text encoding of the file (a UTF-8 byte-order mark is skipped).
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        ``data`` (list of 2-D float64 arrays, one per bag, in file order),
        ``target`` (labels: ints when every class value is an integer, else
        strings), ``bag_ids``, ``bags`` (:class:`~mil.Bags`),
        ``feature_names``, ``target_names`` (the declared class values),
        ``relation``.

    Raises
    ------
    ValueError
        The file is not in the multi-instance layout (bag id, one relational
        attribute, class), a bag is empty or has no label, a row has the
        wrong number of values, a value cannot be read, a bag id appears
        twice with different labels, or the file does not decode in
        `encoding`.

    Warns
    -----
    LeakedLabelWarning
        A feature equals the bag label on every instance (a leaked label).
    UserWarning
        A bag id appears twice with the same label: the two rows are read
        as two bags (as Weka reads them; each data row is one bag), but a
        repeated id usually means a file was concatenated twice.
    """
    lines = read_text(path, encoding).splitlines()

    relation, top, inner, in_bag, data_start = None, [], [], False, None
    for no, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        low = line.lower()
        if low.startswith("@relation"):
            relation = line.split(None, 1)[1].strip().strip("'\"") if " " in line else ""
        elif low.startswith("@attribute"):
            m = _ATTR.match(line)
            if not m:
                raise ValueError(f"{path}: line {no}: cannot read attribute declaration {line!r}")
            name, kind = m.group(1).strip("'\""), _parse_type(m.group(2), path, no)
            if in_bag:
                if kind == "relational":
                    raise ValueError(f"{path}: line {no}: nested relational attributes are not supported")
                inner.append((name, kind))
            else:
                top.append((name, kind))
                in_bag = kind == "relational"
        elif low.startswith("@end"):
            in_bag = False
        elif low.startswith("@data"):
            data_start = no
            break
        else:
            raise ValueError(f"{path}: line {no}: unexpected header line {line!r}")
    if data_start is None:
        raise ValueError(f"{path}: no @data section")
    if len(top) != 3 or top[1][1] != "relational":
        raise ValueError(f"{path}: not a multi-instance ARFF file: expected the attributes "
                         f"(bag id, relational bag, class), found {[n for n, _ in top]}")
    if not inner:
        raise ValueError(f"{path}: the relational attribute {top[1][0]!r} declares no features")
    class_values = top[2][1]

    bag_ids, labels, bags, seen = [], [], [], {}
    no, n_lines = data_start, len(lines)
    while no < n_lines:
        no += 1
        line = lines[no - 1].strip()
        if not line or line.startswith("%"):
            continue
        if line.startswith("{"):
            raise ValueError(f"{path}: line {no}: sparse ARFF rows are not supported")
        first = no
        while _quote_open(line) and no < n_lines:  # a quoted bag over several lines
            no += 1
            line = line + "\n" + lines[no - 1]
        fields = _split_fields(line, path, first)
        if len(fields) != 3:
            raise ValueError(f"{path}: line {no}: expected 3 values (bag id, bag, class), got {len(fields)}")
        if fields[2] in ("", "?") or fields[2].lower() == "nan":
            raise ValueError(f"{path}: line {first}: bag {fields[0]!r} has no label "
                             f"({fields[2]!r}); every bag needs a class value")
        if fields[0] in seen:
            other, other_label = seen[fields[0]]
            if other_label != fields[2]:
                raise ValueError(f"{path}: line {first}: bag {fields[0]!r} appears again (first at line "
                                 f"{other}) with another label ({fields[2]!r} against {other_label!r}); "
                                 "a bag has one label")
            warnings.warn(f"{path}: line {first}: bag id {fields[0]!r} appears again (first at line "
                          f"{other}); the rows are read as two bags, as Weka reads them", UserWarning,
                          stacklevel=2)
        else:
            seen[fields[0]] = (first, fields[2])
        bag_ids.append(fields[0])
        labels.append(fields[2])
        rows = [r for r in fields[1].split("\n") if r.strip()]
        if not rows:
            raise ValueError(f"{path}: line {no}: bag {fields[0]!r} has no instances")
        bag = np.empty((len(rows), len(inner)))
        for i, row in enumerate(rows):
            values = _split_fields(row, path, no)
            if len(values) != len(inner):
                raise ValueError(f"{path}: line {no}: instance {i} of bag {fields[0]!r} has "
                                 f"{len(values)} values; {len(inner)} features are declared")
            for j, (value, (fname, kind)) in enumerate(zip(values, inner)):
                bag[i, j] = _read_value(value, kind, fname, path, no)
        bags.append(bag)
    if not bags:
        raise ValueError(f"{path}: the @data section holds no bags")

    target = _labels(labels, class_values, path)
    container = Bags(np.concatenate(bags), np.concatenate([[0], np.cumsum([len(b) for b in bags])]))
    warn_leaked_label(BagExtremes.of(container), target, [n for n, _ in inner], str(path))
    if return_X_y:
        return bags, target
    return Bunch(data=bags, target=target, bag_ids=np.array(bag_ids), bags=container,
                 feature_names=[n for n, _ in inner],
                 target_names=np.array(class_values) if isinstance(class_values, list) else None,
                 relation=relation)


def _read_value(value, kind, name, path, no):
    if value == "?" or value == "":
        return np.nan
    if isinstance(kind, list):
        try:
            return float(kind.index(value.strip("'\"")))
        except ValueError:
            raise ValueError(f"{path}: line {no}: {value!r} is not a declared value of {name!r}") from None
    try:
        return float(value)
    except ValueError:
        raise ValueError(f"{path}: line {no}: {value!r} is not a number (attribute {name!r})") from None


def _labels(labels, declared, path):
    if isinstance(declared, list):
        unknown = sorted(set(labels) - set(declared))
        if unknown:
            raise ValueError(f"{path}: class values {unknown} are not declared {declared}")
    try:
        return np.array([int(v) for v in labels])
    except ValueError:
        return np.array(labels)
