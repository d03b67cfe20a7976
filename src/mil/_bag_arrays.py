"""The arrays under the bag container: their checks, their layout, and how values are shown.

The bottom of the bag layer: :class:`mil.Bags` builds on these functions and
:mod:`mil.utils.validation` builds on both. Everything here works on plain
arrays (an instance matrix, offsets, ids) or on any object with the
attributes ``instances``, ``offsets`` and ``ids``, so this module imports
nothing of mil's.

- checks: :func:`numeric_array`, :func:`check_finite`,
  :func:`check_instances`, :func:`check_offsets`, :func:`check_layout`,
  :func:`check_bag_values`;
- layout: :func:`stack_bags` (a sequence of bags to one instance matrix and
  offsets), :func:`group_rows` (an instance matrix and a bag id per row to
  the same), :func:`concat_ranges` (the rows of selected bags);
- messages: :func:`shown` (a value as the user typed it), :func:`bag_name`.
"""

import warnings

import numpy as np

__all__ = [
    "NUMERIC_KINDS",
    "bag_name",
    "check_bag_values",
    "check_finite",
    "check_instances",
    "check_layout",
    "check_offsets",
    "concat_ranges",
    "group_rows",
    "id_name",
    "is_sparse",
    "numeric_array",
    "shown",
    "sparse_error",
    "sparse_instances",
    "stack_bags",
    "stack_dense",
]

#: dtype kinds accepted as numeric features: bool, signed and unsigned integers, floats.
NUMERIC_KINDS = "biuf"
_RaggedWarning = getattr(getattr(np, "exceptions", np), "VisibleDeprecationWarning")
#: Elements per block of rows when a large array is checked for NaN and infinity.
FINITE_BLOCK = 1 << 22


def shown(value):
    """`value` as Python shows it to a user, for error messages: ``0``, not ``np.int64(0)``.

    NumPy scalars become the Python scalar they hold (``.item()``) and
    arrays the nested lists of theirs (``.tolist()``), then ``repr`` applies,
    so a label reads as the user typed it (``'yes'``, ``1``, ``2.5``)
    whatever array it came from.

    Parameters
    ----------
    value : object

    Returns
    -------
    text : str

    Examples
    --------
    >>> import numpy as np
    >>> from mil.utils.validation import shown
    >>> shown(np.int64(0)), shown(np.str_("yes")), shown(np.array([0, 1]))
    ('0', "'yes'", '[0, 1]')
    """
    return repr(_plain(value))


def _plain(value):
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()  # .item() of a scalar, nested lists of an array
    if type(value) in (list, tuple):
        return type(value)(_plain(v) for v in value)
    return value


def id_name(bag_id):
    """How error messages call the bag with id `bag_id`: ``"bag 'mol_17'"``."""
    return f"bag {shown(bag_id)}"


def bag_name(bags, b):
    """How error messages call bag `b` of `bags`: by its id when the bags carry ids.

    ``"bag 'mol_17'"`` for bags read from a file (the id in the file),
    ``"bag 13"`` (the position) otherwise.
    """
    ids = getattr(bags, "ids", None)
    return f"bag {b}" if ids is None else id_name(ids[b])


def is_sparse(values):
    """True for a scipy sparse matrix (anything with ``nnz`` and ``tocsr``)."""
    return hasattr(values, "nnz") and hasattr(values, "tocsr")


def sparse_error(name, estimator):
    """The TypeError for sparse bags given to a learner or function that does not accept them."""
    who = estimator if isinstance(estimator, str) or estimator is None else type(estimator).__name__
    return TypeError(
        f"{name} holds sparse instances (scipy.sparse) and {who or 'this function'} does not accept "
        "sparse bags (CitationKNNClassifier, BagKNNClassifier, BagScaler(method='maxabs') and "
        "mil.distances do); convert them with Bags.toarray() or .toarray() on each bag.")


def numeric_array(values, what):
    """Convert to a numeric array or raise, naming `what` (TypeError for non-numeric values)."""
    if is_sparse(values):
        raise TypeError(f"{what} is a scipy sparse matrix, not accepted here; "
                        "convert it with .toarray()")
    try:
        with warnings.catch_warnings():
            # NumPy < 1.24 makes an object array of ragged lists, with this warning.
            warnings.simplefilter("error", _RaggedWarning)
            arr = np.asarray(values)
    except (ValueError, _RaggedWarning) as exc:  # ragged nested lists
        raise ValueError(f"{what} is ragged: its rows have different lengths ({exc})") from None
    if arr.dtype.kind in NUMERIC_KINDS:
        return arr
    if arr.dtype.kind == "c":
        raise ValueError(f"{what} holds complex values. Complex data not supported")
    reason = ""
    if arr.dtype.kind == "O":
        try:
            return arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            reason = f" ({exc})"
    raise TypeError(f"{what} holds non-numeric values (dtype {arr.dtype}){reason}; "
                    "features must be int, float or bool")


def check_finite(arr, what, allow_nan):
    """Raise a ValueError naming `what` if `arr` holds infinity (or NaN unless `allow_nan`)."""
    if arr.ndim == 2 and arr.size > FINITE_BLOCK:
        # By blocks of rows: the test's boolean temporary stays at one block (a memory-mapped
        # instance matrix larger than memory is read once, never held).
        step = max(1, FINITE_BLOCK // max(arr.shape[1], 1))
        for start in range(0, arr.shape[0], step):
            check_finite(arr[start:start + step], what, allow_nan)
        return
    if arr.size == 0 or np.isfinite(arr).all():
        return
    if allow_nan:
        if np.isinf(arr).any():
            raise ValueError(f"{what} contains infinity; only NaN (missing) is accepted here")
        return
    kind = "NaN" if np.isnan(arr).any() else "infinity"
    raise ValueError(f"{what} contains {kind}; this estimator needs finite features "
                     "(the decision trees accept NaN as missing)")


def sparse_instances(matrix, what, allow_nan):
    """A sparse matrix as a canonical CSR float64 copy (sorted indices, no duplicates)."""
    import scipy.sparse as sp

    if matrix.dtype.kind not in NUMERIC_KINDS:
        raise TypeError(f"{what} holds non-numeric values (dtype {matrix.dtype}); "
                        "features must be int, float or bool")
    if len(matrix.shape) != 2:
        raise ValueError(f"{what} must be 2-D (n_instances, n_features); got shape {matrix.shape}")
    csr = sp.csr_matrix(matrix, dtype=np.float64, copy=True)
    csr.sum_duplicates()  # also sorts the indices
    check_finite(csr.data, what, allow_nan)
    return csr


def check_instances(instances, allow_nan=True, keep_float32=False):
    """Return `instances` as a C-contiguous float64 2-D array (copy only if needed).

    A scipy sparse matrix becomes a CSR float64 copy (sorted indices, no
    duplicate entries): the sparse layout of :class:`~mil.Bags`. With
    `keep_float32`, a float32 array stays float32. A C-contiguous array of
    the kept dtype (also a ``np.memmap``) is returned without a copy.
    """
    if is_sparse(instances):
        arr = sparse_instances(instances, "the instance matrix", allow_nan)
        if arr.shape[1] == 0:
            raise ValueError("the instance matrix has no features (0 columns)")
        return arr
    arr = numeric_array(instances, "the instance matrix")
    if arr.ndim != 2:
        raise ValueError(f"the instance matrix must be 2-D (n_instances, n_features); got shape {arr.shape}")
    if arr.shape[1] == 0:
        raise ValueError("the instance matrix has no features (0 columns)")
    keep = keep_float32 and arr.dtype == np.float32
    arr = np.ascontiguousarray(arr, dtype=np.float32 if keep else np.float64)
    check_finite(arr, "the instance matrix", allow_nan)
    return arr


def check_offsets(offsets, n_instances):
    """Validate CSR-style bag offsets: 0, strictly increasing, ending at n_instances."""
    off = np.asarray(offsets)
    if off.ndim != 1 or off.shape[0] < 2 or off.dtype.kind not in "iu":
        raise ValueError("offsets must be a 1-D integer array of length n_bags + 1 >= 2")
    off = np.ascontiguousarray(off, dtype=np.intp)
    if off[0] != 0 or off[-1] != n_instances:
        raise ValueError(f"offsets must start at 0 and end at n_instances={n_instances}; "
                         f"got {off[0]} and {off[-1]}")
    steps = np.diff(off)
    if (steps <= 0).any():
        b = int(np.flatnonzero(steps <= 0)[0])
        if steps[b] < 0:
            raise ValueError(f"offsets decrease at bag {b} (offsets[{b}] = {off[b]} > offsets[{b + 1}] "
                             f"= {off[b + 1]}); they must be strictly increasing")
        raise ValueError(f"bag {b} is empty (offsets[{b}] = offsets[{b + 1}] = {off[b]}); "
                         "every bag needs at least one instance")
    return off


def check_layout(bags, name):
    """A Bags' arrays still describe bags (O(n_bags)): they may have been changed after construction."""
    inst, off = bags.instances, bags.offsets
    sparse = is_sparse(inst)
    if not (sparse or (isinstance(inst, np.ndarray) and inst.ndim == 2
                       and inst.dtype in (np.float32, np.float64) and inst.flags.c_contiguous)):
        raise ValueError(f"{name} is a Bags whose instances are no longer a C-contiguous 2-D float64 "
                         f"or float32 array (got {type(inst).__name__} {getattr(inst, 'dtype', '')} "
                         f"{getattr(inst, 'shape', '')}); was it changed after construction? "
                         "Build a new one with Bags(instances, offsets)")
    if not (isinstance(off, np.ndarray) and off.dtype == np.intp and off.ndim == 1):
        raise ValueError(f"{name} is a Bags whose offsets are no longer a 1-D intp array; was it "
                         "changed after construction? Build a new one with Bags(instances, offsets)")
    try:
        check_offsets(off, inst.shape[0])
    except ValueError as exc:
        raise ValueError(f"{name} is a Bags whose {exc}; were its offsets or instances changed after "
                         "construction? Build a new one with Bags(instances, offsets)") from None
    if bags.ids is not None and np.shape(bags.ids) != (off.shape[0] - 1,):
        raise ValueError(f"{name} is a Bags with {np.shape(bags.ids)} ids for {off.shape[0] - 1} bags")


def check_bag_values(bags, name, allow_nan):
    """Raise a ValueError naming the first bag of a Bags that holds infinity (or NaN unless `allow_nan`)."""
    sparse = is_sparse(bags.instances)
    values = bags.instances.data if sparse else bags.instances
    bad = np.isinf(values) if allow_nan else ~np.isfinite(values)
    if not bad.any():
        return
    if sparse:
        row = int(np.searchsorted(bags.instances.indptr, np.flatnonzero(bad)[0], side="right") - 1)
    else:
        row = int(np.flatnonzero(bad.any(axis=1))[0])
    b = int(np.searchsorted(bags.offsets, row, side="right") - 1)
    rows = bags.instances[bags.offsets[b]:bags.offsets[b + 1]]
    check_finite(rows.data if sparse else rows, f"{bag_name(bags, b)} of {name}", allow_nan)


def concat_ranges(starts, sizes):
    """``concatenate([arange(s, s + n) for s, n in zip(starts, sizes)])``, vectorised (intp).

    Examples
    --------
    >>> from mil._bag_arrays import concat_ranges
    >>> concat_ranges([5, 0], [2, 3]).tolist()
    [5, 6, 0, 1, 2]
    """
    starts = np.asarray(starts, dtype=np.intp)
    sizes = np.asarray(sizes, dtype=np.intp)
    total = int(sizes.sum())
    if total == 0:
        return np.zeros(0, dtype=np.intp)
    # Each output position's offset from its range's start, plus that start.
    group_start = np.repeat(np.cumsum(sizes) - sizes, sizes)
    return np.repeat(starts, sizes) + (np.arange(total, dtype=np.intp) - group_start)


def _offsets_of(sizes):
    offsets = np.zeros(len(sizes) + 1, dtype=np.intp)
    np.cumsum(sizes, out=offsets[1:])
    return offsets


def stack_bags(X, allow_nan, name="X", accept_sparse=False, estimator=None):
    """A sequence of bags as one instance matrix and offsets, ``(instances, offsets)``.

    Every bag is checked (numeric, 2-D, not empty, the same feature count,
    finite or NaN where allowed); the first bag that fails is named. The
    instances are a fresh float64 copy, or a CSR matrix when a bag is
    sparse (`accept_sparse`).
    """
    if is_sparse(X):
        raise ValueError(f"{name} is a single sparse matrix of shape {X.shape}, not a sequence of bags; "
                         "group its rows with mil.Bags.from_instances(instances, bag_ids)")
    if isinstance(X, (str, bytes)) or not hasattr(X, "__len__") or not hasattr(X, "__getitem__"):
        raise TypeError(f"{name} must be a sequence of 2-D arrays (one per bag) or a mil.Bags; "
                        f"got {type(X).__name__}")
    if isinstance(X, np.ndarray) and X.dtype != object:
        if X.ndim == 2:
            raise ValueError(f"{name} is a single 2-D array of shape {X.shape}, not a sequence of bags; "
                             "pass a list of 2-D arrays, one per bag, or "
                             "mil.Bags.from_instances(instances, bag_ids)")
        if X.ndim != 3:
            raise ValueError(f"{name} is a {X.ndim}-D array; bags must be a sequence of 2-D arrays")
    if hasattr(X, "iloc"):  # a pandas object: its rows are not bags
        raise TypeError(f"{name} is a pandas object; build bags from a long table with "
                        "mil.datasets.from_frame(df, bag=..., label=...)")
    if len(X) == 0:
        raise ValueError(f"{name} holds no bags")
    fast = stack_dense(X, allow_nan)
    if fast is not None:
        return fast

    arrays, d0, sparse = [], None, False
    for i in range(len(X)):
        what = f"bag {i} of {name}"
        if is_sparse(X[i]):
            if not accept_sparse:
                raise sparse_error(name, estimator)
            arr, sparse = sparse_instances(X[i], what, allow_nan), True
        else:
            arr = numeric_array(X[i], what)
        if arr.ndim != 2:
            hint = (" (a bag with a single instance is a 1 x n_features array: use bag.reshape(1, -1))"
                    if arr.ndim == 1 else "")
            raise ValueError(f"{what} is {arr.ndim}-D with shape {arr.shape}; each bag must be a "
                             f"2-D array (n_instances, n_features){hint}")
        if arr.shape[0] == 0:
            raise ValueError(f"{what} is empty; every bag needs at least one instance")
        if d0 is None:
            d0 = arr.shape[1]
            if d0 == 0:
                raise ValueError(f"{what} has 0 feature(s) (shape={arr.shape}) while a minimum of 1 "
                                 "is required.")
        elif arr.shape[1] != d0:
            raise ValueError(f"{what} has {arr.shape[1]} features but bag 0 has {d0}; "
                             "all instances need the same number of features")
        if not is_sparse(arr):
            check_finite(arr, what, allow_nan)
        arrays.append(arr)

    offsets = _offsets_of(np.fromiter((a.shape[0] for a in arrays), dtype=np.intp, count=len(arrays)))
    if sparse:
        import scipy.sparse as sp

        instances = sp.vstack([a if is_sparse(a) else sp.csr_matrix(a, dtype=np.float64) for a in arrays],
                              format="csr", dtype=np.float64)
        instances.sum_duplicates()
        return instances, offsets
    instances = np.empty((offsets[-1], d0), dtype=np.float64)
    np.concatenate(arrays, axis=0, out=instances, casting="unsafe")
    return instances, offsets


def stack_dense(X, allow_nan):
    """Many bags in one vectorised pass: a list (or tuple) of numeric 2-D ndarrays, or a 3-D array.

    The per-bag loop of :func:`stack_bags` costs microseconds per bag, which
    dominated fitting fast learners on thousands of one-instance bags. Here
    the checks are whole-array operations (one concatenation, one finiteness
    test). Returns ``(instances, offsets)``, or None when anything is unusual
    (another type, a 1-D or empty bag, ragged features, a non-numeric dtype,
    NaN or infinity where not accepted): the per-bag loop then finds and
    names the problem.
    """
    if isinstance(X, np.ndarray) and X.dtype.kind in NUMERIC_KINDS and X.ndim == 3:
        n, m, d = X.shape
        if n == 0 or m == 0 or d == 0:
            return None
        instances = np.array(X.reshape(n * m, d), dtype=np.float64, order="C")  # a copy
        offsets = np.arange(0, n * m + 1, m, dtype=np.intp)
    elif isinstance(X, (list, tuple)):
        if not all(type(a) is np.ndarray for a in X):
            return None
        shapes = [a.shape for a in X]
        if any(len(s) != 2 for s in shapes):
            return None
        sizes = np.array([s[0] for s in shapes], dtype=np.intp)
        widths = {s[1] for s in shapes}
        if len(widths) != 1 or 0 in widths or not sizes.all():
            return None
        if any(dt.kind not in NUMERIC_KINDS for dt in {a.dtype for a in X}):
            return None
        instances = np.empty((int(sizes.sum()), widths.pop()), dtype=np.float64)
        np.concatenate(X, axis=0, out=instances, casting="unsafe")
        offsets = _offsets_of(sizes)
    else:
        return None
    if not np.isfinite(instances).all() and (not allow_nan or np.isinf(instances).any()):
        return None
    return instances, offsets


def group_rows(X, bag_ids, *, allow_nan=True):
    """Group instance rows into bags by id: ``(instances, offsets, ids)``.

    Bags are ordered by sorted id (as :func:`numpy.unique`), instances keep
    their order within a bag; `ids` holds the distinct ids in that order
    (see :meth:`mil.Bags.from_instances`).
    """
    ids = np.asarray(bag_ids)
    arr = X if is_sparse(X) else numeric_array(X, "the instance matrix")
    if isinstance(arr, np.ndarray) and arr.ndim == 2 and ids.shape == arr.shape[:1] and arr.dtype.kind == "f":
        bad = np.isinf(arr) if allow_nan else ~np.isfinite(arr)
        if bad.any():  # name the bag by its id
            row = int(np.flatnonzero(bad.any(axis=1))[0])
            check_finite(arr[row], id_name(ids[row]), allow_nan)
    instances = check_instances(arr, allow_nan=allow_nan, keep_float32=True)
    if ids.ndim != 1 or ids.shape[0] != instances.shape[0]:
        raise ValueError(f"bag_ids must be 1-D with one id per instance ({instances.shape[0]}); "
                         f"got shape {ids.shape}")
    if ids.dtype.kind == "f" and np.isnan(ids).any():
        raise ValueError("bag_ids contains NaN; every instance needs a bag id")
    if ids.dtype.kind == "O":
        gone = [r for r, v in enumerate(ids.tolist())
                if v is None or (isinstance(v, float) and v != v)]
        if gone:
            raise ValueError(f"bag_ids contains a missing id ({shown(ids[gone[0]])} at row {gone[0]}); "
                             "every instance needs a bag id")
    try:
        unique, inverse = np.unique(ids, return_inverse=True)
    except TypeError as exc:
        raise TypeError(f"bag_ids must be sortable ids of one type: {exc}") from None
    inverse = inverse.ravel().astype(np.intp, copy=False)
    if inverse.size > 1 and (np.diff(inverse) < 0).any():
        order = np.argsort(inverse, kind="stable")
        instances = instances[order] if is_sparse(instances) else np.ascontiguousarray(instances[order])
    return instances, _offsets_of(np.bincount(inverse, minlength=unique.shape[0])), unique
