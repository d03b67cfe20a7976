"""The blocked pass behind :mod:`mil.distances`: bag-pair kernels over strips of rows, on threads.

One engine fills the Hausdorff matrices (:func:`all_from_bags`) and the
instance-to-bag minima (:func:`minima_from_bags`, :func:`minima_strips`)
from the compiled kernel ``mil._core._hausdorff`` (or its NumPy twin), and
lends its thread machinery (:func:`fill_by_rows`) to the set kernels:

- the rows are cut on the kernel's own row blocks, so every matrix product,
  and so every result, is the same to the last bit whatever the number of
  threads or strips;
- the kernel runs with one BLAS thread and the parallelism is ours, one
  strip of rows per thread (BLAS's own threads synchronise at every
  block-sized call, which collapses beside other jobs);
- a caller's output (a memory map) or a process or Dask backend fills the
  matrices strip by strip, memory at a few strips of ``STRIP_BYTES``;
- the instances are scaled and centred once, and the pairs the centred
  kernel cannot vouch for are recomputed exactly
  (:mod:`mil._distance_exact`).
"""

import contextlib
import threading

import numpy as np

from mil._core import kernel, twins, use_backend
from mil._distance_exact import (bag_flags, bag_radii, centred_rows, centred_scaled, exact_minima, exact_pairs,
                                 power_of_two_exponent, rounded_centre, scaled_by, scaled_sparse, suspect_minima,
                                 suspect_pairs, training_centre, unscaled)
from mil.bags import Bags

__all__ = ["BLOCK_SIZE", "STRIP_BYTES", "all_from_bags", "fill_by_rows", "inside_dask_task", "minima_from_bags",
           "minima_strips"]

#: Instances per row block and column chunk of the kernel (measured on Musk2:
#: 512 to 1024 are equally fast compiled; the NumPy twin slows down below 512).
BLOCK_SIZE = 1024
#: Largest output of one strip of rows (the three matrices) when
#: :func:`all_from_bags` fills a caller's `out` or runs on processes / Dask.
STRIP_BYTES = 64 * 2**20


def _row_chunks(offsets, symmetric, n_chunks, block_size):
    """Split the row bags into `n_chunks` runs of about equal work.

    Cuts fall on the kernel's own row-block boundaries, so every block (and
    so every matrix product) is the same as in a single call: the results do
    not depend on the number of threads, to the last bit.
    """
    blocks = np.asarray(kernel("_hausdorff").bag_blocks(offsets, 0, offsets.shape[0] - 1, block_size))
    sizes = np.diff(offsets[blocks]).astype(np.float64)
    # A row block meets the instances from its first bag to the end (upper triangle).
    cost = sizes * (offsets[-1] - offsets[blocks[:-1]]) if symmetric else sizes
    cum = np.cumsum(cost)
    targets = cum[-1] * np.arange(1, n_chunks) / n_chunks
    cuts = blocks[np.searchsorted(cum, targets, side="left") + 1]
    bounds = np.unique(np.r_[0, cuts, offsets.shape[0] - 1])
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))


def fill_by_rows(fill, args, offsets, symmetric, n_threads, block_size):
    """``fill(*args, r0, r1, block_size)`` over all row bags, in one call or on `n_threads` threads.

    The bag-pair kernels (Hausdorff matrices, instance-to-bag minima, set
    kernels) release the GIL; each thread fills its own strip of rows (and,
    train-vs-train, their mirror images, which no other thread writes). Cuts
    on the kernel's row blocks (:func:`_row_chunks`) keep every product, so
    the result does not depend on the thread count.
    """
    if n_threads <= 1:
        fill(*args, 0, offsets.shape[0] - 1, block_size)
        return
    from joblib import Parallel, delayed

    Parallel(n_jobs=n_threads, backend="threading")(
        delayed(fill)(*args, r0, r1, block_size)
        for r0, r1 in _row_chunks(offsets, symmetric, n_threads, block_size))


def _strip(rows, row_off, cols, col_off, symmetric, block_size, backend):
    """The three matrices of one strip of row bags (a task: it may run in another process).

    Rectangular: the rows against every column bag. Symmetric (`cols` are
    the bags after the rows): the rows against themselves (symmetric kernel
    call) and against the later bags; the earlier ones are the mirror of
    other strips. `backend` is the caller's kernel choice, which a worker
    thread or process would not otherwise inherit.
    """
    with use_backend(backend):
        k = kernel("_hausdorff")
    n_rows = row_off.shape[0] - 1
    square = None
    with _one_blas_thread():  # one BLAS thread per strip (see _strip_workers)
        if symmetric:
            square = [np.zeros((n_rows, n_rows)) for _ in range(3)]
            k.hausdorff_matrices(rows, row_off, rows, row_off, True, *square, 0, n_rows, block_size)
        rect = [np.zeros((n_rows, col_off.shape[0] - 1)) for _ in range(3)]
        if rect[0].size:
            k.hausdorff_matrices(rows, row_off, cols, col_off, False, *rect, 0, n_rows, block_size)
    return square, rect


def _strip_bounds(offsets, symmetric, n_cols, n_workers, block_size):
    """Row strips: balanced work for `n_workers`, each strip's output at most STRIP_BYTES."""
    max_rows = max(1, STRIP_BYTES // (3 * 8 * max(n_cols, 1)))
    bounds = []
    for r0, r1 in _row_chunks(offsets, symmetric, 4 * n_workers, block_size):
        bounds += [(a, min(a + max_rows, r1)) for a in range(r0, r1, max_rows)]
    return bounds


def inside_dask_task():
    """True when called from a task running on a Dask worker."""
    try:
        from distributed import get_worker
    except ImportError:
        return False
    try:
        get_worker()
    except ValueError:
        return False
    return True


def _by_strips(Xc, x_off, Yc, y_off, symmetric, n_jobs, block_size, out, exact_x, exact_y):
    """Fill `out` strip by strip through joblib (threads, processes or a Dask cluster).

    Returns the suspect pairs (:func:`~mil._distance_exact.suspect_pairs`;
    `exact_x`, `exact_y`: the bags centred exactly).
    """
    from joblib import Parallel, delayed, effective_n_jobs

    n_x = x_off.shape[0] - 1
    n_cols = n_x if symmetric else y_off.shape[0] - 1
    backend = "compiled" if kernel("_hausdorff") is twins("_hausdorff")[0] else "python"

    def task(r0, r1):
        rows, row_off = Xc[x_off[r0]:x_off[r1]], x_off[r0:r1 + 1] - x_off[r0]
        if symmetric:  # the column bags are the bags after the strip
            cols, col_off = Xc[x_off[r1]:], x_off[r1:] - x_off[r1]
        else:
            cols, col_off = Yc, y_off
        return delayed(_strip)(rows, row_off, cols, col_off, symmetric, block_size, backend)

    r_x = bag_radii(Xc, x_off)
    r_y = r_x if symmetric else bag_radii(Yc, y_off)
    suspects = []
    if n_jobs is None:
        n_jobs = _strip_workers(None)  # threads here: as many as BLAS would have used
    bounds = _strip_bounds(x_off, symmetric, n_cols, effective_n_jobs(n_jobs), block_size)
    local = {"backend": "threading"} if inside_dask_task() else {"prefer": "threads"}
    results = Parallel(n_jobs=n_jobs, return_as="generator", **local)(
        task(r0, r1) for r0, r1 in bounds)
    kinds = ("minimal", "maximal", "average")
    for (r0, r1), (square, rect) in zip(bounds, results):
        # Pairs whose minimal distance the kernel cannot vouch for (see suspect_pairs).
        if symmetric:
            i, j = suspect_pairs(square[0], r_x[r0:r1], r_x[r0:r1], True, exact_x[r0:r1], exact_x[r0:r1])
            suspects.append((i + r0, j + r0))
            i, j = suspect_pairs(rect[0], r_x[r0:r1], r_x[r1:], False, exact_x[r0:r1], exact_x[r1:])
            suspects.append((i + r0, j + r1))
        else:
            i, j = suspect_pairs(rect[0], r_x[r0:r1], r_y, False, exact_x[r0:r1], exact_y)
            suspects.append((i + r0, j))
        for i, kind in enumerate(kinds):
            if kind not in out:
                continue
            if symmetric:
                out[kind][r0:r1, r0:r1] = square[i]
                out[kind][r0:r1, r1:] = rect[i]
                out[kind][r1:, r0:r1] = rect[i].T
            else:
                out[kind][r0:r1] = rect[i]
    return suspects


_BLAS = {}
#: With n_jobs=None, calls of fewer multiply-adds (instances x instances x features) use one thread.
_THREADS_ABOVE = 2**24


def _blas_controller():
    """A threadpoolctl controller of the BLAS libraries loaded (made once, after the kernels)."""
    if "controller" not in _BLAS:
        from threadpoolctl import ThreadpoolController

        kernel("_hausdorff")  # the compiled kernel loads scipy's BLAS: let the controller see it
        _BLAS["controller"] = ThreadpoolController()
    return _BLAS["controller"]


def _strip_workers(n_jobs):
    """Threads of our own over strips of rows: `n_jobs`, or for None the BLAS pool's size.

    The kernel makes many block-sized BLAS calls; BLAS's own threads
    synchronise at every one of them, which collapses when the cores are
    busy or the caller already runs in parallel (a 10-fold Citation-KNN
    took four times longer beside other jobs). So the kernel runs with one
    BLAS thread (:func:`_one_blas_thread`) and the parallelism is ours, one
    strip of rows per thread, on as many threads as BLAS would have used
    when `n_jobs` is None. Results do not depend on the number of threads.
    """
    from joblib import effective_n_jobs
    from joblib._parallel_backends import SequentialBackend, ThreadingBackend
    from joblib.parallel import get_active_backend

    if n_jobs is not None:
        return effective_n_jobs(n_jobs)
    backend = get_active_backend(prefer="threads")[0]
    if isinstance(backend, SequentialBackend):
        return 1  # nested in a parallel job (or sequential by choice): its workers use the cores
    if not isinstance(backend, ThreadingBackend):
        return effective_n_jobs(None)
    threads = [p["num_threads"] for p in _blas_controller().info() if p["user_api"] == "blas"]
    return max(1, max(threads, default=1))


_BLAS_LOCK = threading.Lock()


@contextlib.contextmanager
def _one_blas_thread():
    """Context in which BLAS uses one thread (see :func:`_strip_workers`).

    The limit is process-wide, so concurrent callers (threads predicting at
    once, strips in worker threads) share one: the first sets it, the last
    restores the original; nested limits unwinding out of order would
    otherwise leave BLAS at one thread for good.
    """
    controller = _blas_controller()
    with _BLAS_LOCK:
        if _BLAS.get("depth", 0) == 0:
            _BLAS["limiter"] = controller.limit(limits=1, user_api="blas")
        _BLAS["depth"] = _BLAS.get("depth", 0) + 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _BLAS["depth"] -= 1
            if _BLAS["depth"] == 0:
                _BLAS.pop("limiter").restore_original_limits()


def _check_out(out, shape):
    if not isinstance(out, dict) or not out or not set(out) <= {"minimal", "maximal", "average"}:
        raise ValueError("out must be a dict with some of the keys 'minimal', 'maximal', 'average'; "
                         f"got {out if not isinstance(out, dict) else sorted(out)!r}")
    for kind, arr in out.items():
        if not (isinstance(arr, np.ndarray) and arr.shape == shape and arr.dtype == np.float64
                and arr.flags.writeable):
            raise ValueError(f"out[{kind!r}] must be a writable float64 array of shape {shape} "
                             f"(an ndarray or np.memmap); got "
                             f"{getattr(arr, 'shape', None)} {getattr(arr, 'dtype', type(arr))}")


def all_from_bags(X, Y, n_jobs=None, block_size=None, out=None):
    """The minimal, maximal and average matrices of validated Bags X against Y (None: X itself).

    The entry point of :func:`mil.distances.hausdorff_all` and of the
    estimators, which validate their bags once; the arguments are
    :func:`~mil.distances.hausdorff_all`'s (`block_size`: instances per
    kernel block, default ``BLOCK_SIZE``).
    """
    if X.is_sparse or (Y is not None and Y.is_sparse):
        # Sparse instances: products through scipy's sparse product (own module).
        from mil._sparse_hausdorff import sparse_hausdorff_matrices

        if out is not None:
            _check_out(out, (X.n_bags, X.n_bags if Y is None else Y.n_bags))
        X, Y, exponent = scaled_sparse(X, Y)
        return unscaled(sparse_hausdorff_matrices(X, Y, n_jobs=n_jobs, out=out), exponent)
    block_size = BLOCK_SIZE if block_size is None else block_size
    symmetric = Y is None
    Xc, Yc, exponent, exact_x, exact_y = centred_scaled(X, Y)
    if symmetric:
        Yc, y_off, exact_y = Xc, X.offsets, exact_x
    else:
        y_off = Y.offsets
    n_rows, n_cols = X.n_bags, (X.n_bags if symmetric else Y.n_bags)
    from joblib._parallel_backends import SequentialBackend, ThreadingBackend
    from joblib.parallel import get_active_backend

    # Threads in this process fill whole arrays in place (results independent
    # of the thread count to the last bit). Strips instead when the output is
    # the caller's (e.g. a memmap: memory stays at a few strips) or when
    # joblib.parallel_config selected processes or a Dask cluster.
    backend = get_active_backend(prefer="threads")[0]
    if inside_dask_task():
        # Already one task of a parallel job on a Dask worker: a nested Parallel
        # on the dask backend secedes this thread once per call, and a second
        # call in the same task fails inside distributed (KeyError in
        # ``secede``; dask/distributed#9034). Work in this process instead.
        backend = ThreadingBackend()
    if out is not None or not isinstance(backend, (ThreadingBackend, SequentialBackend)):
        if out is None:
            out = {kind: np.zeros((n_rows, n_cols)) for kind in ("minimal", "maximal", "average")}
        _check_out(out, (n_rows, n_cols))
        suspects = []
        if n_rows and n_cols:
            suspects = _by_strips(Xc, X.offsets, Yc, y_off, symmetric, n_jobs, block_size, out, exact_x,
                                  exact_y)
        return exact_pairs(X, Y, unscaled(out, exponent), suspects, block_size)
    outs = [np.zeros((n_rows, n_cols)) for _ in range(3)]
    k = kernel("_hausdorff")
    n_threads = min(_strip_workers(n_jobs), n_rows)
    if n_jobs is None and Xc.shape[0] * Yc.shape[0] * Xc.shape[1] < _THREADS_ABOVE:
        n_threads = 1  # a small call: starting threads would cost more than they save
    with _one_blas_thread():
        fill_by_rows(k.hausdorff_matrices, (Xc, X.offsets, Yc, y_off, symmetric, *outs), X.offsets,
                     symmetric, n_threads, block_size)
    suspects = suspect_pairs(outs[0], bag_radii(Xc, X.offsets), bag_radii(Yc, y_off), symmetric, exact_x, exact_y)
    return exact_pairs(X, Y, unscaled(dict(zip(("minimal", "maximal", "average"), outs)), exponent),
                       [suspects], block_size)


def minima_from_bags(X, Y=None, *, both=False, n_jobs=None, centre=None, block_size=None, root=False):
    """Instance-to-bag squared minima for validated dense Bags (internal entry point).

    `centre` (n_features,) is subtracted from every instance before the
    kernel (distances do not change; fewer digits are lost to the
    expansion); None centres on the mean of the column bags (Y, or X when Y
    is None), as :func:`mil.distances.hausdorff_all` does. Estimators pass the training
    centre, so a query bag's minima do not depend on the other query bags.

    `root` returns the distances themselves (square roots of M), taken in
    the kernel's scaled units and recomputed as scaled norms where needed:
    every distance is then within the module's relative bound over the
    whole float64 range, including those whose squares under- or overflow
    (the bag dissimilarities of :mod:`mil.embedding` use them).
    """
    (Xc, ex_x), (Yc, ex_y), exponent = _minima_ready(X, Y, centre)
    return _minima_piece(X, Xc, ex_x, X if Y is None else Y, Yc, ex_y, exponent, symmetric=Y is None,
                         both=both, n_jobs=n_jobs, block_size=block_size, root=root)


def _minima_ready(X, Y, centre):
    """The kernel's instances of X and Y (Y None: X's), scaled by one power of two and centred, each
    with its rows centred exactly (:func:`~mil._distance_exact.centred_rows`), and the exponent:
    shared by every strip of a pass, so that a strip's minima are those of the whole."""
    if X.is_sparse or (Y is not None and Y.is_sparse):
        raise TypeError("instance-to-bag minima need dense bags; convert sparse bags with "
                        "Bags.toarray()")
    arrays = [X.instances] if Y is None else [X.instances, Y.instances]
    exponent = power_of_two_exponent(arrays)
    scaled = [scaled_by(a, exponent) if exponent else a for a in arrays]
    if centre is None:
        centre = training_centre(scaled[-1])
    else:
        centre = np.asarray(centre, dtype=np.float64)
        centre = rounded_centre(scaled_by(centre, exponent) if exponent else centre)
    x = centred_rows(scaled[0], centre, arrays[0] if exponent > 0 else None)
    return x, (x if Y is None else centred_rows(scaled[1], centre, arrays[1] if exponent > 0 else None)), exponent


def _minima_piece(X, Xc, ex_x, Y, Yc, ex_y, exponent, *, symmetric, both, n_jobs, block_size, root):
    """M of the Bags X against the Bags Y (original units) from their kernel instances Xc, Yc and
    rows centred exactly ex_x, ex_y (:func:`_minima_ready`); `symmetric`: Y is X, each pair computed
    once for both directions."""
    block_size = BLOCK_SIZE if block_size is None else block_size
    y_off = Y.offsets
    n_x = X.n_bags
    out_xy = np.zeros((Xc.shape[0], Y.n_bags))
    out_yx = np.zeros((Yc.shape[0], n_x)) if both and not symmetric else None
    k = kernel("_hausdorff")
    from joblib import effective_n_jobs

    n_threads = min(effective_n_jobs(n_jobs), n_x)
    if out_xy.size or (out_yx is not None and out_yx.size):
        # Train-vs-train, a thread's mirrored entries lie in its own columns.
        fill_by_rows(k.instance_bag_minima, (Xc, X.offsets, Yc, y_off, symmetric, out_xy, out_yx),
                      X.offsets, symmetric, n_threads, block_size)
    # Entries the centred kernel cannot vouch for (the rule of suspect_pairs, per
    # instance and bag): found in kernel units, recomputed after unscaling.
    suspects = {"xy": suspect_minima(out_xy, Xc, Yc, y_off, X.offsets if symmetric else None, ex_x,
                                     bag_flags(ex_y, y_off))}
    if out_yx is not None:
        suspects["yx"] = suspect_minima(out_yx, Yc, Xc, X.offsets, None, ex_y, bag_flags(ex_x, X.offsets))
    mats = {"xy": out_xy} if out_yx is None else {"xy": out_xy, "yx": out_yx}
    for D in mats.values():
        if root:
            np.sqrt(D, out=D)
        if exponent:  # squared distances: twice the exponent
            with np.errstate(over="ignore"):
                np.ldexp(D, exponent if root else 2 * exponent, out=D)
    exact_minima(out_xy, X.instances, Y, suspects["xy"], root)
    if out_yx is not None:
        exact_minima(out_yx, Y.instances, X, suspects["yx"], root)
    for D in mats.values():
        if not np.isfinite(D).all():
            raise ValueError(
                f"some {'' if root else 'squared '}instance distances exceed the largest float64 "
                f"({np.finfo(float).max:.3g}): rescale the features")
    return (out_xy, out_yx) if both and not symmetric else out_xy


def _bag_range(bags, b0, b1):
    """Bags b0..b1-1 of validated dense Bags, as Bags (a view of the instances)."""
    off = bags.offsets
    return Bags._trusted(bags.instances[off[b0]:off[b1]], off[b0:b1 + 1] - off[b0])


def _strip_stops(offsets, n_cols, n_col_instances, strip_bytes, block_size):
    """Ends of consecutive strips of row bags whose minima take at most about `strip_bytes` (a
    strip's instances x `n_cols` bags, plus `n_col_instances` x the strip's bags), cut on the
    kernel's row blocks (at least one a strip): every block, and so every product, is the one
    a single pass computes, and so is every minimum, to the last bit."""
    bounds = np.asarray(kernel("_hausdorff").bag_blocks(offsets, 0, offsets.shape[0] - 1, block_size))
    stops, start = [], 0
    for b0, b1 in zip(bounds[:-1], bounds[1:]):
        grown = 8.0 * ((offsets[b1] - offsets[start]) * n_cols + n_col_instances * (b1 - start))
        if b0 > start and grown > strip_bytes:
            stops.append(int(b0))
            start = b0
    return stops + [offsets.shape[0] - 1]


def minima_strips(X, Y=None, *, both=False, n_jobs=None, centre=None, block_size=None, root=False,
                   strip_bytes=None):
    """The minima of :func:`minima_from_bags` strip of row bags by strip, in bounded memory.

    Yields ``(r0, r1, square, xy, yx)`` for the row bags ``r0..r1-1``, each
    strip's arrays at most about `strip_bytes` (default ``STRIP_BYTES``).
    With Y: ``square`` is None, ``xy`` the strip's instances against Y's
    bags, ``yx`` (with `both`, else None) Y's instances against the
    strip's bags. Train-vs-train (Y None), every pair of bags is computed
    once, as in one symmetric pass: ``square`` is the strip against itself
    (a symmetric kernel call), ``xy`` its instances against the later bags
    ``r1..``, ``yx`` the later bags' instances against the strip (pairs with
    an earlier bag were yielded by the earlier strips). The instances are
    scaled and centred once for all strips, and the strips are cut on the
    kernel's row blocks, so every entry is the one the whole pass gives, to
    the last bit.
    """
    strip_bytes = STRIP_BYTES if strip_bytes is None else strip_bytes
    block_size = BLOCK_SIZE if block_size is None else block_size
    (Xc, ex_x), (Yc, ex_y), exponent = _minima_ready(X, Y, centre)
    symmetric = Y is None
    kw = {"n_jobs": n_jobs, "block_size": block_size, "root": root}
    off = X.offsets
    if symmetric:  # a strip meets every bag (the later ones in both directions)
        stops = _strip_stops(off, X.n_bags, off[-1], strip_bytes, block_size)
    else:
        stops = _strip_stops(off, Y.n_bags, Y.offsets[-1] if both else 0, strip_bytes, block_size)
    r0 = 0
    for r1 in stops:
        rows, rows_c, rows_ex = _bag_range(X, r0, r1), Xc[off[r0]:off[r1]], ex_x[off[r0]:off[r1]]
        if not symmetric:
            out = _minima_piece(rows, rows_c, rows_ex, Y, Yc, ex_y, exponent, symmetric=False, both=both, **kw)
            xy, yx = out if both else (out, None)
            yield r0, r1, None, xy, yx
        else:
            square = _minima_piece(rows, rows_c, rows_ex, rows, rows_c, rows_ex, exponent, symmetric=True,
                                   both=False, **kw)
            if r1 < X.n_bags:
                later = _bag_range(X, r1, X.n_bags)
                xy, yx = _minima_piece(rows, rows_c, rows_ex, later, Xc[off[r1]:], ex_x[off[r1]:], exponent,
                                       symmetric=False, both=True, **kw)
            else:
                xy, yx = np.zeros((rows_c.shape[0], 0)), np.zeros((0, r1 - r0))
            yield r0, r1, square, xy, yx
        r0 = r1
