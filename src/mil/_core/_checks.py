"""Argument checks of the kernels' Python entry points (shared by both twins).

The C-level functions (``c_`` names, for ``cimport``) trust their inputs;
the Python functions of ``_hausdorff``, ``_golden`` and ``_bag_counts`` and
of their NumPy twins run these checks first, so a wrong size, dtype or bag
offset raises the same ``TypeError`` / ``ValueError`` on both backends
instead of reading outside an array. The checks cost O(n_bags), or O(n) for
bag indices (a min and a max); the Hausdorff entry point also checks that
the instances are finite (one pass, against the kernel's O(n^2 d)).
"""

import numbers

import numpy as np

from mil._bag_arrays import shown

__all__ = ["as_array", "check_offsets", "check_bag_index", "check_int", "check_float"]


def as_array(a, name, dtype, ndim, writable=False):
    """`a` as a C-contiguous ndarray of `dtype` with `ndim` dimensions.

    Array-likes whose values convert safely (e.g. int32 to intp, lists) are
    converted; anything else raises. A `writable` output must already be
    a C-contiguous, writable ndarray of exactly `dtype` (it is filled in place).
    """
    if (not writable and type(a) is np.ndarray and a.dtype == dtype and a.ndim == ndim
            and a.flags.c_contiguous):
        return a  # already what the kernels take (the common case, checked in O(1))
    dtype = np.dtype(dtype)
    if writable:
        if not (isinstance(a, np.ndarray) and a.dtype == dtype and a.flags.c_contiguous
                and a.flags.writeable):
            raise TypeError(f"{name} must be a writable C-contiguous {dtype} ndarray; got "
                            f"{type(a).__name__} {getattr(a, 'dtype', '')}")
    else:
        arr = np.asarray(a)
        if arr.dtype != dtype:
            if arr.size and not np.can_cast(arr.dtype, dtype, "same_kind" if dtype.kind == "f" else "safe"):
                raise TypeError(f"{name} must hold {dtype} values; got {arr.dtype}")
            if arr.dtype.kind not in "biuf" and arr.size:
                raise TypeError(f"{name} must hold {dtype} values; got {arr.dtype}")
        a = np.ascontiguousarray(arr, dtype=dtype)
    if a.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D; got shape {a.shape}")
    return a


def check_offsets(offsets, n_rows, name="offsets"):
    """Bag offsets: 1-D intp, starting at 0, strictly increasing, ending at `n_rows`."""
    off = as_array(offsets, name, np.intp, 1)
    if off.shape[0] == 0:
        raise ValueError(f"{name} must hold n_bags + 1 >= 1 entries; got none")
    if off[0] != 0 or off[-1] != n_rows:
        raise ValueError(f"{name} must start at 0 and end at the number of rows ({n_rows}); "
                         f"got {off[0]} and {off[-1]}")
    if off.shape[0] > 1 and (off[1:] <= off[:-1]).any():
        b = int(np.flatnonzero(off[1:] <= off[:-1])[0])
        raise ValueError(f"{name} must be strictly increasing (no empty bag); "
                         f"{name}[{b}] = {off[b]} >= {name}[{b + 1}] = {off[b + 1]}")
    return off


def check_bag_index(inst_bag, n_bags, name="inst_bag"):
    """Bag index per instance: 1-D intp with values in [0, n_bags)."""
    idx = as_array(inst_bag, name, np.intp, 1)
    if idx.size and (idx.min() < 0 or idx.max() >= n_bags):
        raise ValueError(f"{name} holds bag indices from {idx.min()} to {idx.max()}; "
                         f"they must lie in [0, {n_bags})")
    return idx


def check_int(value, name, minimum=None, maximum=None):
    """An integer within [minimum, maximum]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {shown(value)}")
    value = int(value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must lie in [{minimum}, {maximum}]; got {value}")
    return value


def check_float(value, name, positive=False):
    """A finite float (> 0 when `positive`)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {shown(value)}")
    value = float(value)
    if not np.isfinite(value) or (positive and not value > 0):
        raise ValueError(f"{name} must be finite{' and > 0' if positive else ''}; got {value!r}")
    return value


# -- one checker per kernel entry point (both twins call the same one) ---------
def elementwise_args(a, b, names):
    """`a` and `b` as C-contiguous float64 arrays of one shape (`names`: theirs, for the message)."""
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"{names[0]} and {names[1]} must have one shape; got {a.shape} and {b.shape}")
    return a, b


def bag_max_args(values, offsets):
    values = as_array(values, "values", np.float64, 1)
    return values, check_offsets(offsets, values.shape[0])


def bag_weights_args(inst_bag, bag_pos, bag_weight):
    bag_pos = as_array(bag_pos, "bag_pos", np.uint8, 1)
    bag_weight = as_array(bag_weight, "bag_weight", np.float64, 1)
    if bag_weight.shape != bag_pos.shape:
        raise ValueError(f"bag_weight has {bag_weight.shape[0]} entries but bag_pos has "
                         f"{bag_pos.shape[0]}; both hold one value per bag")
    return check_bag_index(inst_bag, bag_pos.shape[0]), bag_pos, bag_weight


def _check_segment(start, end, n):
    start = check_int(start, "start", 0, n)
    return start, check_int(end, "end", start, n)


def _check_index_range(values, low, high, name, what):
    """Every entry of `values` in [low, high) (a min and a max)."""
    if values.size and (values.min() < low or values.max() >= high):
        raise ValueError(f"{name} holds {what} from {values.min()} to {values.max()}; "
                         f"they must lie in [{low}, {high})")


def _split_scalars(total_pos, total_neg, min_weight, tol, shares_of_children):
    return (check_float(total_pos, "total_pos"), check_float(total_neg, "total_neg"),
            check_float(min_weight, "min_weight"), check_float(tol, "tol"), bool(shares_of_children))


def _node_rows(vals, inst_bag):
    vals = as_array(vals, "vals", np.float64, 2)
    inst_bag = as_array(inst_bag, "inst_bag", np.intp, 2)
    if inst_bag.shape != vals.shape:
        raise ValueError(f"inst_bag has shape {inst_bag.shape} but vals has {vals.shape}; "
                         "both hold one entry per feature and instance")
    return vals, inst_bag


def _feature_rows(features, n_features, name="features"):
    features = as_array(features, name, np.intp, 1)
    _check_index_range(features, 0, n_features, name, "rows")
    return features


def _bag_flags(bag_pos, bag_weight):
    bag_pos = as_array(bag_pos, "bag_pos", np.uint8, 1)
    bag_weight = as_array(bag_weight, "bag_weight", np.float64, 1)
    if bag_weight.shape != bag_pos.shape:
        raise ValueError(f"bag_weight has {bag_weight.shape[0]} entries but bag_pos has "
                         f"{bag_pos.shape[0]}; both hold one value per bag")
    return bag_pos, bag_weight


def tree_search_args(vals, inst_bag, start, end, bag_pos, bag_weight, total_pos, total_neg, min_weight, tol,
                     shares_of_children, features):
    """Arguments of ``_tree_split.best_splits``: the searched rows' bag indices are checked (a min and a max)."""
    vals, inst_bag = _node_rows(vals, inst_bag)
    d, n = vals.shape
    start, end = _check_segment(start, end, n)
    bag_pos, bag_weight = _bag_flags(bag_pos, bag_weight)
    if features is not None:
        features = _feature_rows(features, d)
    searched = inst_bag[:, start:end] if features is None else inst_bag[features, start:end]
    _check_index_range(searched, 0, bag_pos.shape[0], "inst_bag", "bag indices")
    return (vals, inst_bag, start, end, bag_pos, bag_weight,
            *_split_scalars(total_pos, total_neg, min_weight, tol, shares_of_children), features)


def tree_gather_args(vals, inst_bag, rank, ids, features, bag_pos, bag_weight, total_pos, total_neg,
                     min_weight, tol, shares_of_children):
    """Arguments of ``_tree_split.gather_best_splits`` (the gathered entries' ranges are checked)."""
    vals, inst_bag = _node_rows(vals, inst_bag)
    d, n = vals.shape
    rank = as_array(rank, "rank", np.intp, 2)
    if rank.shape != vals.shape:
        raise ValueError(f"rank has shape {rank.shape} but vals has {vals.shape}")
    ids = as_array(ids, "ids", np.intp, 1)
    _check_index_range(ids, 0, n, "ids", "instance ids")
    if np.unique(ids).shape[0] != ids.shape[0]:
        raise ValueError("ids must be distinct instances; some instance is listed twice")
    features = _feature_rows(features, d)
    bag_pos, bag_weight = _bag_flags(bag_pos, bag_weight)
    positions = rank[features[:, None], ids[None, :]]
    _check_index_range(positions, 0, n, "rank", "row positions")
    rows = features[:, None]
    _check_index_range(inst_bag[rows, positions], 0, bag_pos.shape[0], "inst_bag", "bag indices")
    return (vals, inst_bag, rank, ids, features, bag_pos, bag_weight,
            *_split_scalars(total_pos, total_neg, min_weight, tol, shares_of_children))


def tree_partition_args(order, vals, inst_bag, start, end, go_left):
    """Arguments of ``_tree_split.partition``: three writable layouts, ids within `go_left`."""
    order = as_array(order, "order", np.intp, 2, writable=True)
    vals = as_array(vals, "vals", np.float64, 2, writable=True)
    inst_bag = as_array(inst_bag, "inst_bag", np.intp, 2, writable=True)
    if not order.shape == vals.shape == inst_bag.shape:
        raise ValueError(f"order, vals and inst_bag must have one shape; got {order.shape}, {vals.shape} "
                         f"and {inst_bag.shape}")
    start, end = _check_segment(start, end, order.shape[1])
    go_left = as_array(go_left, "go_left", np.uint8, 1)
    _check_index_range(order[:, start:end], 0, go_left.shape[0], "order", "instance ids")
    return order, vals, inst_bag, start, end, go_left


def tree_apply_args(X, feature, threshold, missing_left, left, right):
    """Arguments of ``_tree_split.apply``: a tree whose walk from the root stays inside it and X's columns.

    A C-contiguous float32 X is kept (the instances of float32 bags are routed without an upcast copy).
    """
    if not (isinstance(X, np.ndarray) and X.dtype == np.float32 and X.ndim == 2 and X.flags.c_contiguous):
        X = as_array(X, "X", np.float64, 2)
    feature = as_array(feature, "feature", np.intp, 1)
    n_nodes = feature.shape[0]
    arrays = [as_array(a, name, dtype, 1) for a, name, dtype in (
        (threshold, "threshold", np.float64), (missing_left, "missing_left", np.uint8),
        (left, "left", np.intp), (right, "right", np.intp))]
    for a, name in zip(arrays, ("threshold", "missing_left", "left", "right")):
        if a.shape[0] != n_nodes:
            raise ValueError(f"{name} has {a.shape[0]} entries but feature has {n_nodes}; one per node")
    # The tree's structure is checked by ``_apply`` itself (check_tree_walk), once.
    return (X, feature, *arrays)


def check_tree_walk(feature, threshold, missing_left, left, right, n_features):
    """A tree whose walk from the root ends (children after parents) inside X's columns.

    O(n_nodes); also run by the underscored ``_apply`` of both twins, so a
    cyclic tree handed to them raises instead of looping forever.
    """
    n_nodes = feature.shape[0]
    if n_nodes == 0:
        raise ValueError("the tree has no node")
    for a, name in ((threshold, "threshold"), (missing_left, "missing_left"), (left, "left"), (right, "right")):
        if a.shape[0] != n_nodes:
            raise ValueError(f"{name} has {a.shape[0]} entries but feature has {n_nodes}; one per node")
    left, right = np.asarray(left), np.asarray(right)
    internal = left >= 0
    if not np.array_equal(internal, right >= 0):
        node = int(np.flatnonzero(internal != (right >= 0))[0])
        raise ValueError(f"node {node} has one child; a node has two children or none")
    nodes = np.flatnonzero(internal)
    if nodes.size:
        if (left[nodes] <= nodes).any() or (right[nodes] <= nodes).any() or \
                max(left[nodes].max(), right[nodes].max()) >= n_nodes:
            raise ValueError(f"children must be numbered after their parent and below {n_nodes} "
                             "(a tree from the root down)")
        _check_index_range(np.asarray(feature)[nodes], 0, n_features, "feature", "split features")


def tree_values_args(X, feature, threshold, missing_left, left, right, value, node_offsets, columns, scale, out):
    """Arguments of ``_tree_split.add_tree_values``: trees stored one after another, each walk inside its tree.

    Tree t holds nodes ``node_offsets[t]:node_offsets[t + 1]`` of the node
    arrays, its children numbered from its own root (as in a single tree),
    and adds to column ``columns[t]`` of `out`, one row per instance.
    """
    X, feature, threshold, missing_left, left, right = tree_apply_args(X, feature, threshold, missing_left,
                                                                        left, right)
    value = as_array(value, "value", np.float64, 1)
    if value.shape[0] != feature.shape[0]:
        raise ValueError(f"value has {value.shape[0]} entries but feature has {feature.shape[0]}; one per node")
    offsets = as_array(node_offsets, "node_offsets", np.intp, 1)
    if offsets.shape[0] < 1 or offsets[0] != 0 or offsets[-1] != feature.shape[0] or \
            (np.diff(offsets) <= 0).any():
        raise ValueError(f"node_offsets must rise strictly from 0 to the {feature.shape[0]} nodes "
                         "(each tree holds at least its root)")
    out = as_array(out, "out", np.float64, 2, writable=True)
    if out.shape[0] != X.shape[0]:
        raise ValueError(f"out has {out.shape[0]} rows but X has {X.shape[0]} instances")
    columns = as_array(columns, "columns", np.intp, 1)
    if columns.shape[0] != offsets.shape[0] - 1:
        raise ValueError(f"columns has {columns.shape[0]} entries for {offsets.shape[0] - 1} trees; one per tree")
    _check_index_range(columns, 0, out.shape[1], "columns", "output columns")
    for lo, hi in zip(offsets[:-1], offsets[1:]):
        check_tree_walk(feature[lo:hi], threshold[lo:hi], missing_left[lo:hi], left[lo:hi], right[lo:hi],
                        X.shape[1])
    return X, feature, threshold, missing_left, left, right, value, offsets, columns, check_float(scale, "scale"), out


def bag_blocks_args(offsets, start, stop, block_size):
    off = as_array(offsets, "offsets", np.intp, 1)
    if off.shape[0] == 0:
        raise ValueError("offsets must hold n_bags + 1 >= 1 entries; got none")
    if off.shape[0] > 1 and (np.diff(off) <= 0).any():
        raise ValueError("offsets must be strictly increasing (no empty bag)")
    n_bags = off.shape[0] - 1
    start = check_int(start, "start", 0, n_bags)
    stop = check_int(stop, "stop", start, n_bags)
    return off, start, stop, check_int(block_size, "block_size", 1)


def _check_finite_instances(X, Y, what):
    """NaN or infinity has no distance: the twins would disagree on it (the compiled minima skip NaN)."""
    for name, a in (("X", X), ("Y", Y)):
        if a is not None and not np.isfinite(a).all():
            raise ValueError(f"{name} holds NaN or infinite values; {what} need finite instances")


def hausdorff_args(X, x_offsets, Y, y_offsets, symmetric, out_min, out_max, out_ave,
                   row_start, row_stop, block_size):
    X = as_array(X, "X", np.float64, 2)
    x_offsets = check_offsets(x_offsets, X.shape[0], "x_offsets")
    n_x = x_offsets.shape[0] - 1
    if symmetric:
        Y, y_offsets = X, x_offsets
    else:
        Y = as_array(Y, "Y", np.float64, 2)
        if Y.shape[1] != X.shape[1]:
            raise ValueError(f"Y has {Y.shape[1]} features but X has {X.shape[1]}")
        y_offsets = check_offsets(y_offsets, Y.shape[0], "y_offsets")
    _check_finite_instances(X, Y, "Hausdorff distances")
    shape = (n_x, y_offsets.shape[0] - 1)
    outs = []
    for name, out in (("out_min", out_min), ("out_max", out_max), ("out_ave", out_ave)):
        out = as_array(out, name, np.float64, 2, writable=True)
        if out.shape != shape:
            raise ValueError(f"{name} has shape {out.shape}; expected {shape} (row bags x column bags)")
        outs.append(out)
    row_start = check_int(row_start, "row_start", 0, n_x)
    row_stop = check_int(row_stop, "row_stop", row_start, n_x)
    block_size = check_int(block_size, "block_size", 1)
    return (X, x_offsets, Y, y_offsets, bool(symmetric), *outs, row_start, row_stop, block_size)


def minima_args(X, x_offsets, Y, y_offsets, symmetric, out_xy, out_yx, row_start, row_stop,
                block_size):
    X = as_array(X, "X", np.float64, 2)
    x_offsets = check_offsets(x_offsets, X.shape[0], "x_offsets")
    n_x = x_offsets.shape[0] - 1
    if symmetric:
        Y, y_offsets = X, x_offsets
        if out_yx is not None:
            raise ValueError("out_yx must be None when symmetric (out_xy holds both directions)")
    else:
        Y = as_array(Y, "Y", np.float64, 2)
        if Y.shape[1] != X.shape[1]:
            raise ValueError(f"Y has {Y.shape[1]} features but X has {X.shape[1]}")
        y_offsets = check_offsets(y_offsets, Y.shape[0], "y_offsets")
    _check_finite_instances(X, None if symmetric else Y, "instance-to-bag minima")
    out_xy = as_array(out_xy, "out_xy", np.float64, 2, writable=True)
    shape = (X.shape[0], y_offsets.shape[0] - 1)
    if out_xy.shape != shape:
        raise ValueError(f"out_xy has shape {out_xy.shape}; expected {shape} (row instances x column bags)")
    if out_yx is not None:
        out_yx = as_array(out_yx, "out_yx", np.float64, 2, writable=True)
        shape = (Y.shape[0], n_x)
        if out_yx.shape != shape:
            raise ValueError(f"out_yx has shape {out_yx.shape}; expected {shape} "
                             "(column instances x row bags)")
    row_start = check_int(row_start, "row_start", 0, n_x)
    row_stop = check_int(row_stop, "row_stop", row_start, n_x)
    block_size = check_int(block_size, "block_size", 1)
    return (X, x_offsets, Y, y_offsets, bool(symmetric), out_xy, out_yx, row_start, row_stop,
            block_size)


def nca_args(dmin, dmax, y, sigma):
    dmin = as_array(dmin, "dmin", np.float64, 2)
    dmax = as_array(dmax, "dmax", np.float64, 2)
    y = as_array(y, "y", np.intp, 1)
    n = y.shape[0]
    if dmin.shape != (n, n) or dmax.shape != (n, n):
        raise ValueError(f"dmin and dmax must be ({n}, {n}), one row and column per label; "
                         f"got {dmin.shape} and {dmax.shape}")
    return dmin, dmax, y, check_float(sigma, "sigma", positive=True)


def golden_args(func, lo, hi, tol, max_iter):
    if not callable(func):
        raise TypeError(f"func must be callable; got {type(func).__name__}")
    lo, hi = check_float(lo, "lo"), check_float(hi, "hi")
    if hi < lo:
        raise ValueError(f"the interval must have lo <= hi; got [{lo}, {hi}]")
    return func, lo, hi, check_float(tol, "tol", positive=True), check_int(max_iter, "max_iter", 0)


# -- _set_kernel (NSK / miGraph set kernels for several gammas) ----------------
def _weights_gammas(weights, n_rows, name, gammas):
    weights = as_array(weights, name, np.float64, 1)
    if weights.shape[0] != n_rows:
        raise ValueError(f"{name} has {weights.shape[0]} entries; one per instance ({n_rows}) is needed")
    if n_rows and not np.isfinite(weights).all():
        raise ValueError(f"{name} must be finite")
    gammas = as_array(gammas, "gammas", np.float64, 1)
    if gammas.size and not (np.isfinite(gammas).all() and (gammas > 0).all()):
        raise ValueError(f"gammas must be finite and > 0; got {gammas.tolist()[:10]}")
    return weights, gammas


def set_kernel_args(X, x_offsets, x_weights, Y, y_offsets, y_weights, symmetric, gammas, out,
                    row_start, row_stop, block_size):
    X = as_array(X, "X", np.float64, 2)
    if X.shape[1] < 1:
        raise ValueError("X must have at least one feature")
    x_offsets = check_offsets(x_offsets, X.shape[0], "x_offsets")
    x_weights, gammas = _weights_gammas(x_weights, X.shape[0], "x_weights", gammas)
    n_x = x_offsets.shape[0] - 1
    if symmetric:
        Y, y_offsets, y_weights = X, x_offsets, x_weights
    else:
        Y = as_array(Y, "Y", np.float64, 2)
        if Y.shape[1] != X.shape[1]:
            raise ValueError(f"Y has {Y.shape[1]} features but X has {X.shape[1]}")
        y_offsets = check_offsets(y_offsets, Y.shape[0], "y_offsets")
        y_weights, _ = _weights_gammas(y_weights, Y.shape[0], "y_weights", gammas)
    _check_finite_instances(X, None if symmetric else Y, "set kernels")
    shape = (gammas.shape[0], n_x, y_offsets.shape[0] - 1)
    out = as_array(out, "out", np.float64, 3, writable=True)
    if out.shape != shape:
        raise ValueError(f"out has shape {out.shape}; expected {shape} (gammas x row bags x column bags)")
    row_start = check_int(row_start, "row_start", 0, n_x)
    row_stop = check_int(row_stop, "row_stop", row_start, n_x)
    block_size = check_int(block_size, "block_size", 1)
    return (X, x_offsets, x_weights, Y, y_offsets, y_weights, bool(symmetric), gammas, out,
            row_start, row_stop, block_size)


def set_kernel_diagonal_args(X, offsets, weights, gammas, out):
    X = as_array(X, "X", np.float64, 2)
    if X.shape[1] < 1:
        raise ValueError("X must have at least one feature")
    offsets = check_offsets(offsets, X.shape[0])
    weights, gammas = _weights_gammas(weights, X.shape[0], "weights", gammas)
    _check_finite_instances(X, None, "set kernels")
    out = as_array(out, "out", np.float64, 2, writable=True)
    shape = (gammas.shape[0], offsets.shape[0] - 1)
    if out.shape != shape:
        raise ValueError(f"out has shape {out.shape}; expected {shape} (gammas x bags)")
    return X, offsets, weights, gammas, out


# -- _rule_split (RIPPER-MI's condition search and coverage) -------------------
def rule_presort_args(X, offsets):
    X = as_array(X, "X", np.float64, 2)
    offsets = check_offsets(offsets, X.shape[0])
    if X.shape[0] >= 2**31 or X.shape[1] >= 2**31:
        raise ValueError(f"the condition search indexes instances with int32; got {X.shape[0]} rows")
    return X, offsets


def presorted_args(sorted_vals, order, sorted_bag, n_bags, one_per_bag):
    """The fields of a ``Presorted``: shapes, dtypes and every index in range (a min and a max each).

    The condition search reads ``active[order]`` and ``bag_pos[sorted_bag]``
    without bounds checks, so these ranges are what it trusts.
    """
    sorted_vals = as_array(sorted_vals, "sorted_vals", np.float64, 2)
    order = as_array(order, "order", np.int32, 2)
    sorted_bag = as_array(sorted_bag, "sorted_bag", np.int32, 2)
    if not sorted_vals.shape == order.shape == sorted_bag.shape:
        raise ValueError(f"sorted_vals, order and sorted_bag must have one shape (features, instances); "
                         f"got {sorted_vals.shape}, {order.shape} and {sorted_bag.shape}")
    n = order.shape[1]
    n_bags = check_int(n_bags, "n_bags", 1 if n else 0, 2**31 - 1)
    _check_index_range(order, 0, n, "order", "instance indices")
    _check_index_range(sorted_bag, 0, n_bags, "sorted_bag", "bag indices")
    one_per_bag = bool(one_per_bag)
    if one_per_bag and n > n_bags:
        raise ValueError(f"one_per_bag needs at most one instance per bag; got {n} instances and "
                         f"{n_bags} bags")
    return sorted_vals, order, sorted_bag, n_bags, one_per_bag


def rule_binned_args(codes, edges, n_bins, inst_bag, n_bags):
    """The fields of a ``Binned`` (the rule search's binned instances): shapes, codes and bags in range.

    The binned condition search reads ``bag_pos[inst_bag]`` without bounds
    checks and needs the instances stored bag after bag.
    """
    codes, edges, n_bins = binned_rows_args(codes, edges, n_bins)
    n = codes.shape[1]
    inst_bag = as_array(inst_bag, "inst_bag", np.intp, 1)
    if inst_bag.shape[0] != n:
        raise ValueError(f"inst_bag has {inst_bag.shape[0]} entries but codes has {n} instances")
    n_bags = check_int(n_bags, "n_bags", 1 if n else 0, 2**31 - 1)
    _check_index_range(inst_bag, 0, n_bags, "inst_bag", "bag indices")
    if n > 1 and (np.diff(inst_bag) < 0).any():
        raise ValueError("inst_bag must be non-decreasing: the instances stored bag after bag")
    return codes, edges, n_bins, inst_bag, n_bags


def rule_search_args(presorted, presorted_type, active, bag_pos, p0, n0, min_bags, smooth, bag_weight,
                     start, stop):
    if not isinstance(presorted, presorted_type):
        raise TypeError(f"presorted must be a {presorted_type.__name__} ({presorted_type.made_by}); "
                        f"got {type(presorted).__name__}")
    d, n = presorted.shape
    active = as_array(active, "active", np.uint8, 1)
    if active.shape[0] != n:
        raise ValueError(f"active has {active.shape[0]} entries; the searched data hold {n} instances")
    if n and active.max() > 1:
        raise ValueError(f"active must hold 0 or 1; got {active.max()}")
    bag_pos = as_array(bag_pos, "bag_pos", np.uint8, 1)
    if bag_pos.shape[0] != presorted.n_bags:
        raise ValueError(f"bag_pos has {bag_pos.shape[0]} entries; the searched data hold "
                         f"{presorted.n_bags} bags")
    if bag_weight is not None:
        bag_weight = as_array(bag_weight, "bag_weight", np.float64, 1)
        if bag_weight.shape[0] != presorted.n_bags:
            raise ValueError(f"bag_weight has {bag_weight.shape[0]} entries; the searched data hold "
                             f"{presorted.n_bags} bags")
        if not (np.isfinite(bag_weight).all() and (bag_weight >= 0).all()):
            raise ValueError("bag_weight must be finite and non-negative")
    p0, n0 = check_float(p0, "p0", positive=True), check_float(n0, "n0")
    if n0 < 0:
        raise ValueError(f"n0 must be >= 0; got {n0}")
    min_bags = check_float(min_bags, "min_bags")
    smooth = check_int(smooth, "smooth", 0, 1)
    start = check_int(start, "start", 0, d)
    stop = check_int(d if stop is None else stop, "stop", start, d)
    return active, bag_pos, p0, n0, min_bags, smooth, bag_weight, start, stop


def rule_search_out_args(presorted, active, out):
    """The ``out`` of ``best_conditions``: three writable arrays of shape (d, covered instances)."""
    if not (isinstance(out, tuple) and len(out) == 3):
        raise TypeError(f"out must be a tuple (sorted_vals, order, sorted_bag); got {type(out).__name__}")
    shape = (presorted.sorted_vals.shape[0], int(active.sum()))
    arrays = []
    for a, name, dtype in zip(out, ("sorted_vals", "order", "sorted_bag"), (np.float64, np.int32, np.int32)):
        a = as_array(a, f"out's {name}", dtype, 2, writable=True)
        if a.shape != shape:
            raise ValueError(f"out's {name} has shape {a.shape}; it must be (features, covered "
                             f"instances) = {shape}")
        arrays.append(a)
    if shape[0] * shape[1] and any(np.may_share_memory(arrays[i], arrays[j])
                                   for i, j in ((0, 1), (0, 2), (1, 2))):
        raise ValueError("out's three arrays must not share memory")
    return tuple(arrays)


def rule_compact_args(presorted, presorted_type, keep):
    if not isinstance(presorted, presorted_type):
        raise TypeError(f"presorted must be made by presort(X, offsets); got {type(presorted).__name__}")
    n = presorted.sorted_vals.shape[1]
    keep = as_array(keep, "keep", np.uint8, 1)
    if keep.shape[0] != n:
        raise ValueError(f"keep has {keep.shape[0]} entries; the searched data hold {n} instances")
    if n and keep.max() > 1:
        raise ValueError(f"keep must hold 0 or 1; got {keep.max()}")
    return keep


def rule_conditions_args(X, features, ops, thresholds):
    features = as_array(features, "features", np.intp, 1)
    ops = as_array(ops, "ops", np.uint8, 1)
    thresholds = as_array(thresholds, "thresholds", np.float64, 1)
    m = features.shape[0]
    if ops.shape[0] != m or thresholds.shape[0] != m:
        raise ValueError(f"features, ops and thresholds must have one entry per condition; got "
                         f"{m}, {ops.shape[0]} and {thresholds.shape[0]}")
    if m and (features.min() < 0 or features.max() >= X.shape[1]):
        raise ValueError(f"features must lie in [0, {X.shape[1]}); got {features.min()} to {features.max()}")
    if m and ops.max() > 1:
        raise ValueError(f"ops must be 0 (<=) or 1 (>=); got {ops.max()}")
    return features, ops, thresholds


def rule_coverage_args(X, offsets, features, ops, thresholds, rule_ptr=None):
    X = as_array(X, "X", np.float64, 2)
    offsets = check_offsets(offsets, X.shape[0])
    features, ops, thresholds = rule_conditions_args(X, features, ops, thresholds)
    if rule_ptr is None:
        return X, offsets, features, ops, thresholds
    rule_ptr = as_array(rule_ptr, "rule_ptr", np.intp, 1)
    if rule_ptr.shape[0] == 0 or rule_ptr[0] != 0 or rule_ptr[-1] != features.shape[0]:
        raise ValueError(f"rule_ptr must start at 0 and end at the number of conditions "
                         f"({features.shape[0]})")
    if (np.diff(rule_ptr) < 0).any():
        raise ValueError("rule_ptr must be non-decreasing")
    return X, offsets, features, ops, thresholds, rule_ptr


def binning_args(X, edges, n_bins, out, lo, hi):
    """The checked arguments of ``_binning.map_to_bins``."""
    if not isinstance(X, np.ndarray) or X.ndim != 2 or X.dtype not in (np.float32, np.float64):
        raise TypeError("X must be a 2-D float32 or float64 array")
    if not X.flags.c_contiguous:
        raise ValueError("X must be C-contiguous")
    n, d = X.shape
    edges = np.ascontiguousarray(edges, dtype=np.float64)
    n_bins = np.ascontiguousarray(n_bins, dtype=np.intp)
    if edges.shape != (d, 255) or n_bins.shape != (d,):
        raise ValueError(f"edges must have shape ({d}, 255) and n_bins ({d},)")
    if ((n_bins < 1) | (n_bins > 255)).any():
        raise ValueError("n_bins must lie in [1, 255]")
    if not (isinstance(out, np.ndarray) and out.dtype == np.uint8 and out.shape == (d, n)
            and out.flags.c_contiguous and out.flags.writeable):
        raise ValueError(f"out must be a writable C-contiguous uint8 array of shape ({d}, {n})")
    hi = d if hi is None else int(hi)
    lo = int(lo)
    if not 0 <= lo <= hi <= d:
        raise ValueError(f"need 0 <= lo <= hi <= {d}; got lo={lo}, hi={hi}")
    return X, edges, n_bins, out, lo, hi


def binned_features(features, n_features):
    """The searched rows of ``_tree_split.binned_best_splits`` (None: all)."""
    return None if features is None else _feature_rows(features, n_features)


def binned_rows_args(codes, edges, n_bins):
    """Bin codes (features, instances), their edges (features, 255) and bin counts: shapes and every code in range."""
    codes = as_array(codes, "codes", np.uint8, 2)
    d = codes.shape[0]
    edges = as_array(edges, "edges", np.float64, 2)
    n_bins = as_array(n_bins, "n_bins", np.intp, 1)
    if edges.shape != (d, 255) or n_bins.shape != (d,):
        raise ValueError(f"edges must have shape ({d}, 255) and n_bins ({d},), one row per feature of codes")
    _check_index_range(n_bins, 1, 256, "n_bins", "bin counts")
    if codes.size and (np.where(codes != 255, codes, 0).max(axis=1) >= n_bins).any():
        raise ValueError("codes hold a bin at or above the feature's n_bins (255 marks a missing value)")
    return codes, edges, n_bins


def binned_extremes_args(codes, ids, inst_bag, bag_pos, bag_weight):
    """Arguments of ``_bag_counts.binned_bag_extremes``: ids ascending, their bags non-decreasing and in range."""
    codes = as_array(codes, "codes", np.uint8, 1)
    n = codes.shape[0]
    ids = as_array(ids, "ids", np.intp, 1)
    _check_index_range(ids, 0, n, "ids", "instance ids")
    inst_bag = as_array(inst_bag, "inst_bag", np.intp, 1)
    if inst_bag.shape[0] != n:
        raise ValueError(f"inst_bag has {inst_bag.shape[0]} entries but codes has {n} instances")
    bag_pos, bag_weight = _bag_flags(bag_pos, bag_weight)
    bags = inst_bag[ids]
    _check_index_range(bags, 0, bag_pos.shape[0], "inst_bag", "bag indices")
    if ids.shape[0] > 1 and ((np.diff(ids) <= 0).any() or (np.diff(bags) < 0).any()):
        raise ValueError("ids must be increasing and their bags non-decreasing (instances stored bag after bag)")
    return codes, ids, inst_bag, bag_pos, bag_weight


def binned_search_args(codes, edges, n_bins, ids, inst_bag, bag_pos, bag_weight, total_pos, total_neg,
                       min_weight, tol, shares_of_children):
    """Arguments of ``_tree_split.binned_best_splits`` (ids distinct and in range, bags in range)."""
    codes, edges, n_bins = binned_rows_args(codes, edges, n_bins)
    n = codes.shape[1]
    ids = as_array(ids, "ids", np.intp, 1)
    _check_index_range(ids, 0, n, "ids", "instance ids")
    if np.unique(ids).shape[0] != ids.shape[0]:
        raise ValueError("ids must be distinct instances; some instance is listed twice")
    inst_bag = as_array(inst_bag, "inst_bag", np.intp, 1)
    if inst_bag.shape[0] != n:
        raise ValueError(f"inst_bag has {inst_bag.shape[0]} entries but codes has {n} instances")
    bag_pos, bag_weight = _bag_flags(bag_pos, bag_weight)
    _check_index_range(inst_bag[ids], 0, bag_pos.shape[0], "inst_bag", "bag indices")
    return (codes, edges, n_bins, ids, inst_bag, bag_pos, bag_weight,
            *_split_scalars(total_pos, total_neg, min_weight, tol, shares_of_children))
