"""Hausdorff bag distances: minimal, maximal, average, adapted, integrated.

For bags A and B and the Euclidean instance distance ``||a - b||``:

- minimal: ``min_{a, b} ||a - b||``;
- maximal: ``max(h(A, B), h(B, A))`` with ``h(A, B) = max_a min_b ||a - b||``;
- average: ``(sum_a min_b ||a - b|| + sum_b min_a ||a - b||) / (|A| + |B|)``;
- adapted: the form chosen by the labels of the two bags (ReliefF-MI,
  Zafra, Pechenizkiy and Ventura 2012): minimal between two positive bags,
  maximal between two negative bags, average between bags of different
  labels. A bag whose label is unknown (a test bag) is compared with the
  average form, whatever the other bag's label: it is the form used when
  the labels may differ, and it sits between the other two;
- integrated: ``alpha * minimal + (1 - alpha) * maximal``.

All of minimal, maximal and average come from one pass of the compiled
kernel ``mil._core._hausdorff`` (or its NumPy twin) over blocks of bags;
the full instance-by-instance distance matrix is never held in memory.

Numeric range and accuracy: the instances are centred on the mean of the
training (column) bags, and scaled by a power of two when their largest
magnitude is beyond ``2**+-SAFE_EXPONENT``, so the expansion
``|a|^2 + |b|^2 - 2ab`` neither overflows nor underflows. Two checks decide
where its result cannot be trusted, and recompute there from differences:
in the kernel, a squared row or column minimum below ``EXACT_BELOW`` times
``|a|^2 + max |b|^2`` (the bound of the expansion's cancellation error is
about ``(2d + 3) * 2**-53`` of that sum); here, a pair whose minimal distance
is below ``TRUST_RATIO`` times the two bags' radii about the centre (the
centring's rounding) or below ``2**-TRUST_FLOOR_EXPONENT`` in the scaled
units (underflow) is recomputed from the original instances, not centred
(by the kernel on the pair alone, or a scaled norm where squares could
underflow). Contract, for finite features with ``d`` features per instance:
every minimal, maximal and average distance is within a relative
``(d + 2) * 2**-53 / EXACT_BELOW + 2**-33`` (about ``(d + 2) * 1.1e-12 +
1.2e-10``) of the exact distance between the given float64 instances,
whatever their magnitudes (subnormal to the float64 maximum, mixed within a
bag; a distance below the smallest normal double, 2.2e-308, is within
``2**-1073`` absolute, twice float64's spacing there); identical instances
give exactly 0. A distance above the largest float64 raises a ValueError.
Sparse bags are scaled but not centred (no centring loss) and use the
kernel's ``EXACT_BELOW`` rule; the pair check (for distances below
``2**-TRUST_FLOOR_EXPONENT`` of the scale) is not applied to them.
"""

import contextlib
import threading

import numpy as np

from mil._core import kernel, twins, use_backend
from mil.bags import Bags
from mil.utils.validation import check_bags, shown

__all__ = ["hausdorff", "hausdorff_all", "instance_bag_minima", "KINDS"]

#: The distance kinds accepted by :func:`hausdorff` and the neighbour classifiers.
KINDS = ("minimal", "maximal", "average", "adapted", "integrated")

#: Instances per row block and column chunk of the kernel (measured on Musk2:
#: 512 to 1024 are equally fast compiled; the NumPy twin slows down below 512).
BLOCK_SIZE = 1024
#: Largest output of one strip of rows (the three matrices) when
#: :func:`hausdorff_all` fills a caller's `out` or runs on processes / Dask.
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


def _fill_by_rows(fill, args, offsets, symmetric, n_threads, block_size):
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


def _prepare(X, Y):
    X = check_bags(X, name="X", accept_sparse=True)
    if Y is None:
        return X, None
    Y = check_bags(Y, name="Y", accept_sparse=True)
    if Y.n_features != X.n_features:
        raise ValueError(f"Y has {Y.n_features} features per instance but X has {X.n_features}; "
                         "bags compared by a distance need the same features")
    return X, Y


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


def _inside_dask_task():
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


def _by_strips(Xc, x_off, Yc, y_off, symmetric, n_jobs, block_size, out):
    """Fill `out` strip by strip through joblib (threads, processes or a Dask cluster)."""
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

    r_x = _bag_radii(Xc, x_off)
    r_y = r_x if symmetric else _bag_radii(Yc, y_off)
    suspects = []
    if n_jobs is None:
        n_jobs = _strip_workers(None)  # threads here: as many as BLAS would have used
    bounds = _strip_bounds(x_off, symmetric, n_cols, effective_n_jobs(n_jobs), block_size)
    local = {"backend": "threading"} if _inside_dask_task() else {"prefer": "threads"}
    results = Parallel(n_jobs=n_jobs, return_as="generator", **local)(
        task(r0, r1) for r0, r1 in bounds)
    kinds = ("minimal", "maximal", "average")
    for (r0, r1), (square, rect) in zip(bounds, results):
        # Pairs whose minimal distance the kernel cannot vouch for (see _suspect_pairs).
        if symmetric:
            i, j = _suspect_pairs(square[0], r_x[r0:r1], r_x[r0:r1], True)
            suspects.append((i + r0, j + r0))
            i, j = _suspect_pairs(rect[0], r_x[r0:r1], r_x[r1:], False)
            suspects.append((i + r0, j + r1))
        else:
            i, j = _suspect_pairs(rect[0], r_x[r0:r1], r_y, False)
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


#: A pair's kernel distances are trusted when its minimal distance is at
#: least TRUST_RATIO times the sum of the two bags' radii about the centre
#: (then the rounding of the centring, at most 2**-53 of those radii, costs
#: under 2**-33 relative) and at least 2**-TRUST_FLOOR_EXPONENT in the
#: kernel's (power-of-two scaled) units (then no square underflows). Other
#: pairs are recomputed from the original instances by :func:`_recomputed_pair`.
TRUST_RATIO = 2.0 ** -20
TRUST_FLOOR_EXPONENT = 400


def _bag_radii(Xc, offsets):
    """Largest norm of a bag's (centred, scaled) instances, per bag."""
    if offsets.shape[0] < 2:
        return np.zeros(0)
    norms = np.sqrt(np.einsum("ij,ij->i", Xc, Xc))
    return np.maximum.reduceat(norms, offsets[:-1]) if norms.size else np.zeros(offsets.shape[0] - 1)


def _suspect_pairs(dmin, r_rows, r_cols, symmetric):
    """Row and column indices of the pairs in `dmin` (kernel units) that need exact recomputation.

    The kernel computes on instances centred on the training mean: a
    distance far smaller than the bags' distance to that centre lost digits
    to the centring (``1e-30`` against ``3e-30`` beside ``1e3`` became 0),
    and below ``2**-TRUST_FLOOR_EXPONENT`` squares may underflow. The rule
    depends only on the minimal distance and the radii, never on the
    backend.
    """
    with np.errstate(invalid="ignore"):
        bad = ~((dmin >= TRUST_RATIO * np.add.outer(r_rows, r_cols))
                & (dmin >= 2.0 ** -TRUST_FLOOR_EXPONENT))
    if symmetric:
        bad &= ~np.eye(*dmin.shape, dtype=bool)
    return np.nonzero(bad)


def _exact_pair(A, B, chunk=2 ** 20):
    """Minimal, maximal and average distances of one pair from differences, without under/overflow.

    Each instance distance is ``m * sqrt(sum((diff / m)**2))`` with ``m`` the
    largest absolute difference (the scaled norm of LAPACK's ``dnrm2``), so
    distances between instances of 1e-300 are as accurate as between
    instances of 1, whatever else the bags hold.
    """
    row_min = np.full(A.shape[0], np.inf)
    col_min = np.full(B.shape[0], np.inf)
    step = max(1, chunk // max(1, B.shape[0] * A.shape[1]))
    for a0 in range(0, A.shape[0], step):
        with np.errstate(over="ignore", invalid="ignore"):
            diff = A[a0:a0 + step, None, :] - B[None, :, :]
            m = np.abs(diff).max(axis=2)
            safe = np.where((m > 0) & np.isfinite(m), m, 1.0)
            dist = np.sqrt(np.einsum("ijk,ijk->ij", diff / safe[..., None], diff / safe[..., None])) * m
        dist = np.where(m > 0, dist, 0.0)
        row_min[a0:a0 + step] = dist.min(axis=1)
        np.minimum(col_min, dist.min(axis=0), out=col_min)
    return (row_min.min(), max(row_min.max(), col_min.max()),
            (row_min.sum() + col_min.sum()) / (A.shape[0] + B.shape[0]))


def _recomputed_pair(A, B):
    """A suspect pair's three distances: the kernel on the pair alone, else :func:`_exact_pair`.

    The pair is scaled by one power of two (exact) and not centred, so the
    centring's rounding is gone and the kernel's own rule (``EXACT_BELOW``)
    recomputes its small minima from differences, at BLAS speed (a training
    bag predicted again, the common case, costs one block). Only when the
    pair's minimal distance is below ``2**-TRUST_FLOOR_EXPONENT`` of its
    largest value, where squares may underflow, the scaled-norm brute force
    decides.
    """
    if A.shape == B.shape and np.array_equal(A, B):
        return 0.0, 0.0, 0.0  # the same bag (a training bag predicted again): exactly 0
    exponent = int(np.frexp(max(np.abs(A).max(), np.abs(B).max()))[1])  # largest magnitude to [0.5, 1)
    As, Bs = (_scaled_by(A, exponent), _scaled_by(B, exponent)) if exponent else (A, B)
    outs = [np.zeros((1, 1)) for _ in range(3)]
    kernel("_hausdorff").hausdorff_matrices(
        np.ascontiguousarray(As), np.array([0, A.shape[0]], dtype=np.intp),
        np.ascontiguousarray(Bs), np.array([0, B.shape[0]], dtype=np.intp), False, *outs, 0, 1, BLOCK_SIZE)
    if not outs[0][0, 0] >= 2.0 ** -TRUST_FLOOR_EXPONENT:
        return _exact_pair(A, B)
    with np.errstate(over="ignore"):
        return tuple(float(np.ldexp(o[0, 0], exponent)) for o in outs)


def _exact_pairs(X, Y, mats, suspects):
    """Overwrite the suspect pairs of `mats` (original units) with :func:`_recomputed_pair`'s values."""
    symmetric = Y is None
    Y = X if symmetric else Y
    rows = np.concatenate([np.asarray(s[0], dtype=np.intp) for s in suspects] or [np.zeros(0, np.intp)])
    cols = np.concatenate([np.asarray(s[1], dtype=np.intp) for s in suspects] or [np.zeros(0, np.intp)])
    if symmetric:
        keep = rows < cols
        rows, cols = rows[keep], cols[keep]
    kinds = ("minimal", "maximal", "average")
    for i, j in zip(rows.tolist(), cols.tolist()):
        vals = _recomputed_pair(X.instances[X.offsets[i]:X.offsets[i + 1]],
                                Y.instances[Y.offsets[j]:Y.offsets[j + 1]])
        for kind, v in zip(kinds, vals):
            if kind not in mats:
                continue
            if not np.isfinite(v):
                raise ValueError(
                    f"some {kind} Hausdorff distances exceed the largest float64 "
                    f"({np.finfo(float).max:.3g}): the bags are too far apart to be compared in "
                    "double precision; rescale the features")
            mats[kind][i, j] = v
            if symmetric:
                mats[kind][j, i] = v
    return mats


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


#: Largest magnitudes in [2**-SAFE_EXPONENT, 2**SAFE_EXPONENT] need no scaling:
#: squares and d-term sums of such values stay far inside float64.
SAFE_EXPONENT = 400


def _centred_scaled(X, Y):
    """Instances ready for the kernel: scaled by a power of two, centred on the training bags.

    Returns ``(Xc, Yc, exponent)``: the kernel's distances on ``Xc`` and
    ``Yc`` times ``2**exponent`` are the distances between the original
    bags (``Yc`` is None when Y is).

    Scaling: when the largest magnitude lies outside
    ``2**+-SAFE_EXPONENT``, a factor ``2**-exponent`` brings it into
    [0.5, 1), so the squares and products of the ``|a|^2 + |b|^2 - 2ab``
    expansion neither overflow (inputs up to the float64 maximum) nor
    underflow (inputs down to subnormals). Multiplying by a power of two is
    exact, so the scaled distances are the unscaled ones, bit for bit,
    wherever the latter were representable.

    Centring: distances do not change under translation, and centring makes
    the expansion lose fewer digits to cancellation. The centre is the mean
    of the training bags (Y when given, X for train-vs-train), never of a
    batch of query bags, so a bag's distances to the training bags do not
    depend on the other bags of the call.
    """
    arrays = [X.instances] if Y is None else [X.instances, Y.instances]
    exponent = _power_of_two_exponent(arrays)
    if exponent == 0:
        centre = arrays[-1].mean(axis=0)
        scaled = [a - centre for a in arrays]
    else:
        scaled = [_scaled_by(a, exponent) for a in arrays]
        centre = scaled[-1].mean(axis=0)
        for a in scaled:
            a -= centre
    return scaled[0], (None if Y is None else scaled[1]), exponent


def _power_of_two_exponent(arrays):
    """Exponent e with the largest magnitude of `arrays` in [2**(e-1), 2**e); 0 inside the safe range."""
    big = max((max(float(a.max()), -float(a.min())) for a in arrays if a.size), default=0.0)
    exponent = int(np.frexp(big)[1]) if big > 0 else 0
    return 0 if -SAFE_EXPONENT <= exponent <= SAFE_EXPONENT else exponent


def _scaled_by(a, exponent):
    # Two exact steps: 2.0 ** exponent alone may not be representable.
    half = -exponent // 2
    return (a * 2.0 ** half) * 2.0 ** (-exponent - half)


def _scaled_sparse(X, Y):
    """Sparse (or mixed) bags scaled by a power of two as in :func:`_centred_scaled` (no centring:
    it would fill the zeros)."""
    sides = [X] if Y is None else [X, Y]
    exponent = _power_of_two_exponent([b.instances.data if b.is_sparse else b.instances for b in sides])
    if exponent == 0:
        return X, Y, 0
    scaled = []
    for b in sides:
        inst = b.instances.copy() if b.is_sparse else _scaled_by(b.instances, exponent)
        if b.is_sparse:
            inst.data = _scaled_by(inst.data, exponent)
        scaled.append(Bags._trusted(inst, b.offsets, b.ids))
    return scaled[0], (None if Y is None else scaled[1]), exponent


def _unscaled(mats, exponent):
    """Undo the power-of-two scaling in place; raise where a distance exceeds float64."""
    for kind, D in mats.items():
        if exponent:
            with np.errstate(over="ignore"):  # reported below, as a ValueError
                np.ldexp(D, exponent, out=D)
        if not np.isfinite(D).all():
            raise ValueError(
                f"some {kind} Hausdorff distances exceed the largest float64 ({np.finfo(float).max:.3g}): "
                "the bags are too far apart to be compared in double precision; rescale the features")
    return mats


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


def _all_from_bags(X, Y, n_jobs=None, block_size=None, out=None):
    """The three matrices for validated Bags (internal entry point of the estimators)."""
    if X.is_sparse or (Y is not None and Y.is_sparse):
        # Sparse instances: products through scipy's sparse product (own module).
        from mil._sparse_hausdorff import sparse_hausdorff_matrices

        if out is not None:
            _check_out(out, (X.n_bags, X.n_bags if Y is None else Y.n_bags))
        X, Y, exponent = _scaled_sparse(X, Y)
        return _unscaled(sparse_hausdorff_matrices(X, Y, n_jobs=n_jobs, out=out), exponent)
    block_size = BLOCK_SIZE if block_size is None else block_size
    symmetric = Y is None
    Xc, Yc, exponent = _centred_scaled(X, Y)
    if symmetric:
        Yc, y_off = Xc, X.offsets
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
    if _inside_dask_task():
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
            suspects = _by_strips(Xc, X.offsets, Yc, y_off, symmetric, n_jobs, block_size, out)
        return _exact_pairs(X, Y, _unscaled(out, exponent), suspects)
    outs = [np.zeros((n_rows, n_cols)) for _ in range(3)]
    k = kernel("_hausdorff")
    n_threads = min(_strip_workers(n_jobs), n_rows)
    if n_jobs is None and Xc.shape[0] * Yc.shape[0] * Xc.shape[1] < _THREADS_ABOVE:
        n_threads = 1  # a small call: starting threads would cost more than they save
    with _one_blas_thread():
        _fill_by_rows(k.hausdorff_matrices, (Xc, X.offsets, Yc, y_off, symmetric, *outs), X.offsets,
                      symmetric, n_threads, block_size)
    suspects = _suspect_pairs(outs[0], _bag_radii(Xc, X.offsets), _bag_radii(Yc, y_off), symmetric)
    return _exact_pairs(X, Y, _unscaled(dict(zip(("minimal", "maximal", "average"), outs)), exponent),
                        [suspects])


def hausdorff_all(X, Y=None, *, n_jobs=None, out=None):
    """Minimal, maximal and average Hausdorff matrices from one kernel pass.

    Parameters
    ----------
    X : sequence of 2-D arrays or Bags
        The row bags. Sparse bags (scipy sparse matrices, or a Bags with
        CSR instances) take a sparse path: products through scipy's sparse
        matrix product, the same distances to about 1e-12 relative.
    Y : sequence of 2-D arrays or Bags, default=None
        The column bags; None means ``X`` against itself (symmetric, half
        the work, exact zeros on the diagonal).
    n_jobs : int, default=None
        Workers over blocks of rows: threads by default (the kernel releases
        the GIL), or the backend selected with ``joblib.parallel_config``
        (e.g. ``backend="dask"`` with a ``distributed.Client``: strips of
        rows are computed on the cluster and assembled here). None means 1,
        or every worker of the selected backend. Sparse bags always use
        threads in this process.
    out : dict, default=None
        Preallocated outputs to fill, e.g. ``np.lib.format.open_memmap``
        files for more bags than fit in memory: any of the keys "minimal",
        "maximal", "average", each a writable float64 array of shape
        (n_bags_X, n_bags_Y); only those kinds are written. The work then
        goes in strips of rows whose outputs take at most ``STRIP_BYTES``
        each, so memory stays at a few strips whatever the number of bags.

    Returns
    -------
    distances : dict
        ``{"minimal": D, "maximal": D, "average": D}``, each an ndarray of
        shape (n_bags_X, n_bags_Y); `out` itself when given.

    Examples
    --------
    >>> import numpy as np
    >>> from mil.distances import hausdorff_all
    >>> A = np.array([[-1.0], [-2.0], [-3.0]])
    >>> B = np.array([[1.0], [2.0], [50.0]])
    >>> d = hausdorff_all([A, B])
    >>> float(d["minimal"][0, 1]), float(d["maximal"][0, 1])
    (2.0, 51.0)
    """
    X, Y = _prepare(X, Y)
    return _all_from_bags(X, Y, n_jobs=n_jobs, out=out)


def _minima_from_bags(X, Y=None, *, both=False, n_jobs=None, centre=None, block_size=None, root=False):
    """Instance-to-bag squared minima for validated dense Bags (internal entry point).

    `centre` (n_features,) is subtracted from every instance before the
    kernel (distances do not change; fewer digits are lost to the
    expansion); None centres on the mean of the column bags (Y, or X when Y
    is None), as :func:`hausdorff_all` does. Estimators pass the training
    centre, so a query bag's minima do not depend on the other query bags.

    `root` returns the distances themselves (square roots of M), taken in
    the kernel's scaled units and recomputed as scaled norms where needed:
    every distance is then within the module's relative bound over the
    whole float64 range, including those whose squares under- or overflow
    (the bag dissimilarities of :mod:`mil.embedding` use them).
    """
    Xc, Yc, exponent = _minima_ready(X, Y, centre)
    return _minima_piece(X, Xc, X if Y is None else Y, Yc, exponent, symmetric=Y is None, both=both,
                         n_jobs=n_jobs, block_size=block_size, root=root)


def _minima_ready(X, Y, centre):
    """The kernel's instances of X and Y (Y None: X's), scaled by one power of two and centred, and
    the exponent: shared by every strip of a pass, so that a strip's minima are those of the whole."""
    if X.is_sparse or (Y is not None and Y.is_sparse):
        raise TypeError("instance-to-bag minima need dense bags; convert sparse bags with "
                        "Bags.toarray()")
    arrays = [X.instances] if Y is None else [X.instances, Y.instances]
    exponent = _power_of_two_exponent(arrays)
    scaled = [_scaled_by(a, exponent) if exponent else a for a in arrays]
    if centre is None:
        centre = scaled[-1].mean(axis=0)
    elif exponent:
        centre = _scaled_by(np.asarray(centre, dtype=np.float64), exponent)
    Xc = scaled[0] - centre
    return Xc, (Xc if Y is None else scaled[1] - centre), exponent


def _minima_piece(X, Xc, Y, Yc, exponent, *, symmetric, both, n_jobs, block_size, root):
    """M of the Bags X against the Bags Y (original units) from their kernel instances Xc, Yc
    (:func:`_minima_ready`); `symmetric`: Y is X, each pair computed once for both directions."""
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
        _fill_by_rows(k.instance_bag_minima, (Xc, X.offsets, Yc, y_off, symmetric, out_xy, out_yx),
                      X.offsets, symmetric, n_threads, block_size)
    # Entries the centred kernel cannot vouch for (the rule of _suspect_pairs, per
    # instance and bag): found in kernel units, recomputed after unscaling.
    suspects = {"xy": _suspect_minima(out_xy, Xc, Yc, y_off, X.offsets if symmetric else None)}
    if out_yx is not None:
        suspects["yx"] = _suspect_minima(out_yx, Yc, Xc, X.offsets, None)
    mats = {"xy": out_xy} if out_yx is None else {"xy": out_xy, "yx": out_yx}
    for D in mats.values():
        if root:
            np.sqrt(D, out=D)
        if exponent:  # squared distances: twice the exponent
            with np.errstate(over="ignore"):
                np.ldexp(D, exponent if root else 2 * exponent, out=D)
    _exact_minima(out_xy, X.instances, Y, suspects["xy"], root)
    if out_yx is not None:
        _exact_minima(out_yx, Y.instances, X, suspects["yx"], root)
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


def _minima_strips(X, Y=None, *, both=False, n_jobs=None, centre=None, block_size=None, root=False,
                   strip_bytes=None):
    """The minima of :func:`_minima_from_bags` strip of row bags by strip, in bounded memory.

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
    Xc, Yc, exponent = _minima_ready(X, Y, centre)
    symmetric = Y is None
    kw = {"n_jobs": n_jobs, "block_size": block_size, "root": root}
    off = X.offsets
    if symmetric:  # a strip meets every bag (the later ones in both directions)
        stops = _strip_stops(off, X.n_bags, off[-1], strip_bytes, block_size)
    else:
        stops = _strip_stops(off, Y.n_bags, Y.offsets[-1] if both else 0, strip_bytes, block_size)
    r0 = 0
    for r1 in stops:
        rows, rows_c = _bag_range(X, r0, r1), Xc[off[r0]:off[r1]]
        if not symmetric:
            out = _minima_piece(rows, rows_c, Y, Yc, exponent, symmetric=False, both=both, **kw)
            xy, yx = out if both else (out, None)
            yield r0, r1, None, xy, yx
        else:
            square = _minima_piece(rows, rows_c, rows, rows_c, exponent, symmetric=True, both=False, **kw)
            if r1 < X.n_bags:
                later, later_c = _bag_range(X, r1, X.n_bags), Xc[off[r1]:]
                xy, yx = _minima_piece(rows, rows_c, later, later_c, exponent, symmetric=False, both=True,
                                       **kw)
            else:
                xy, yx = np.zeros((rows_c.shape[0], 0)), np.zeros((0, r1 - r0))
            yield r0, r1, square, xy, yx
        r0 = r1


def _suspect_minima(M, Xc, Yc, y_off, own_offsets, chunk_entries=2**21):
    """(row, column bag) entries of the squared minima `M` (kernel units) that need recomputation.

    The rule of :func:`_suspect_pairs` for one instance and one bag: the
    minimum is trusted when its distance is at least ``TRUST_RATIO`` times
    the instance's norm about the centre plus the bag's radius, and at least
    ``2**-TRUST_FLOOR_EXPONENT``. `own_offsets` (train-vs-train) exempts an
    instance's own bag, whose entry is exactly 0. Row chunks of about `chunk_entries` entries bound
    the memory (a few temporaries of 16 MB).
    """
    chunk = max(1, chunk_entries // max(M.shape[1], 1))
    r_cols = _bag_radii(Yc, y_off)
    r_rows = np.sqrt(np.einsum("ij,ij->i", Xc, Xc))
    own = None if own_offsets is None else np.repeat(np.arange(own_offsets.shape[0] - 1), np.diff(own_offsets))
    rows, cols = [], []
    for r0 in range(0, M.shape[0], chunk):
        D = np.sqrt(M[r0:r0 + chunk])
        with np.errstate(invalid="ignore"):
            bad = ~((D >= TRUST_RATIO * np.add.outer(r_rows[r0:r0 + chunk], r_cols))
                    & (D >= 2.0 ** -TRUST_FLOOR_EXPONENT))
        if own is not None:
            bad[np.arange(bad.shape[0]), own[r0:r0 + chunk]] = False
        i, j = np.nonzero(bad)
        rows.append(i + r0)
        cols.append(j)
    return np.concatenate(rows), np.concatenate(cols)


def _exact_minima(M, instances, col_bags, suspects, root=False):
    """Overwrite the suspect entries of `M` (original units) from differences of the original instances.

    Each squared distance is ``m**2 * sum((diff / m)**2)`` with ``m`` the
    largest absolute difference (as :func:`_exact_pair`), one vectorised pass
    per column bag that has suspects; with `root`, M holds distances and each
    is ``m * sqrt(sum((diff / m)**2))`` (no under- or overflow).
    """
    rows, cols = suspects
    if rows.size == 0:
        return M
    order = np.argsort(cols, kind="stable")
    rows, cols = rows[order], cols[order]
    starts = np.flatnonzero(np.r_[True, cols[1:] != cols[:-1]])
    for s, e in zip(starts, np.r_[starts[1:], cols.size]):
        j = cols[s]
        B = col_bags.instances[col_bags.offsets[j]:col_bags.offsets[j + 1]]
        A = instances[rows[s:e]]
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            diff = A[:, None, :] - B[None, :, :]
            m = np.abs(diff).max(axis=2)
            safe = np.where((m > 0) & np.isfinite(m), m, 1.0)
            q = diff / safe[..., None]
            sq = np.einsum("ijk,ijk->ij", q, q)
            sq = np.sqrt(sq) * m if root else sq * m * m
        sq = np.where(m > 0, sq, 0.0)
        M[rows[s:e], j] = sq.min(axis=1)
    return M


def instance_bag_minima(X, Y=None, *, both=False, n_jobs=None):
    """Squared distance from every instance to the nearest instance of every bag.

    ``M[a, j] = min over z in bag j of ||x_a - z||^2`` for each instance
    ``x_a`` of the bags `X` (rows, instance after instance in bag order) and
    each bag j of `Y` (columns). One pass of the kernel that computes the
    Hausdorff distances (:func:`hausdorff_all`), before its per-pair
    reduction: every Hausdorff distance is a reduction of M over a bag's
    rows, e.g. with ``off`` the bag offsets of X and ``D = sqrt(M)``,
    minimal ``np.minimum.reduceat(D, off[:-1])``, directed Hausdorff
    ``np.maximum.reduceat(D, off[:-1])``, and the mean-min dissimilarity of
    Cheplygina, Tax and Loog (2015) the mean over each bag's rows. M also
    gives the MILES embedding (Chen, Bi and Wang, 2006): bag j on concept a
    is ``exp(-M[a, j] / sigma**2)``; see :mod:`mil.embedding`.

    Accuracy follows the module's contract: an entry the centred kernel
    cannot vouch for (distance below ``TRUST_RATIO`` times the instance's and
    the bag's extent about the centre, or near underflow) is recomputed from
    differences of the original instances, so a squared minimum is within
    about twice the module's relative bound of the exact one as long as it
    is a normal double.

    Parameters
    ----------
    X : sequence of 2-D arrays or Bags
        The row bags (dense).
    Y : sequence of 2-D arrays or Bags, default=None
        The column bags; None means X against itself: each pair of bags is
        computed once for both directions, and an instance's entry for its
        own bag is exactly 0.
    both : bool, default=False
        With `Y`, also return the other direction (Y's instances against
        X's bags), from the same products.
    n_jobs : int, default=None
        Threads over blocks of row bags (the kernel releases the GIL).

    Returns
    -------
    M : ndarray of shape (n_instances_X, n_bags_Y)
    M_yx : ndarray of shape (n_instances_Y, n_bags_X)
        Only with `both` and `Y`.

    Examples
    --------
    >>> import numpy as np
    >>> from mil.distances import instance_bag_minima
    >>> A = np.array([[0.0], [3.0]])
    >>> B = np.array([[1.0], [10.0]])
    >>> instance_bag_minima([A, B])
    array([[ 0.,  1.],
           [ 0.,  4.],
           [ 1.,  0.],
           [49.,  0.]])
    """
    X, Y = _prepare(X, Y)
    if X.is_sparse or (Y is not None and Y.is_sparse):
        raise TypeError("instance_bag_minima needs dense bags; convert sparse bags with "
                        "Bags.toarray()")
    return _minima_from_bags(X, Y, both=both, n_jobs=n_jobs)


def _positive_flags(y, n, name):
    y = np.asarray(y)
    if y.shape != (n,):
        raise ValueError(f"{name} must hold one label per bag ({n}); got shape {y.shape}")
    values = np.unique(y)
    if values.size > 2 or not np.isin(values, [0, 1]).all():
        raise ValueError(f"{name} must be binary bag labels (0/1 or bool, 1 = positive) for the "
                         f"adapted distance; got the values {values.tolist()[:10]}")
    return y.astype(bool)


def adapted_from(mats, y_rows, y_cols=None):
    """Compose the adapted Hausdorff matrix from the three base matrices.

    Parameters
    ----------
    mats : dict
        Output of :func:`hausdorff_all`.
    y_rows : array-like of bool
        Positive flag of each row bag.
    y_cols : array-like of bool or None
        Positive flag of each column bag; None when the column bags'
        labels are unknown (every pair then uses the average form).

    Returns
    -------
    D : ndarray
    """
    if y_cols is None:
        return mats["average"].copy()
    y_rows = np.asarray(y_rows, dtype=bool)[:, None]
    y_cols = np.asarray(y_cols, dtype=bool)[None, :]
    return np.where(y_rows & y_cols, mats["minimal"],
                    np.where(~y_rows & ~y_cols, mats["maximal"], mats["average"]))


def integrated_from(mats, alpha):
    """``alpha * minimal + (1 - alpha) * maximal`` from the base matrices."""
    return alpha * mats["minimal"] + (1.0 - alpha) * mats["maximal"]


def hausdorff(X, Y=None, *, kind="minimal", alpha=0.5, y=None, y_other=None, n_jobs=None):
    """Hausdorff distance matrix between bags.

    Parameters
    ----------
    X : sequence of 2-D arrays or Bags
    Y : sequence of 2-D arrays or Bags, default=None
        None means ``X`` against itself.
    kind : {"minimal", "maximal", "average", "adapted", "integrated"}, default="minimal"
    alpha : float in [0, 1], default=0.5
        Weight of the minimal distance in the integrated distance.
    y : array-like of shape (n_bags_X,), default=None
        Binary labels of the bags of X (1 or True = positive); required by
        ``kind="adapted"``.
    y_other : array-like of shape (n_bags_Y,), default=None
        Labels of the bags of Y for ``kind="adapted"``. When Y is given and
        `y_other` is None, Y's labels are unknown and every pair uses the
        average form (see the module docstring). When Y is None, `y` serves
        for both sides.
    n_jobs : int, default=None
        Threads over row blocks.

    Returns
    -------
    D : ndarray of shape (n_bags_X, n_bags_Y)

    Examples
    --------
    >>> import numpy as np
    >>> from mil.distances import hausdorff
    >>> A = np.array([[-1.0], [-2.0], [-3.0]])
    >>> B = np.array([[1.0], [2.0], [50.0]])
    >>> float(hausdorff([A, B], kind="integrated", alpha=0.5)[0, 1])
    26.5
    >>> float(hausdorff([A, B], kind="adapted", y=[1, 1])[0, 1])
    2.0
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")
    if kind == "integrated" and not (isinstance(alpha, (int, float, np.floating, np.integer))
                                     and 0.0 <= float(alpha) <= 1.0):
        raise ValueError(f"alpha must be a number in [0, 1]; got {shown(alpha)}")
    X, Y = _prepare(X, Y)
    if kind == "adapted":
        if y is None:
            raise ValueError("kind='adapted' needs the bag labels: pass y (and y_other for Y)")
        y_rows = _positive_flags(y, X.n_bags, "y")
        if Y is None:
            y_cols = y_rows
        else:
            y_cols = None if y_other is None else _positive_flags(y_other, Y.n_bags, "y_other")
    mats = _all_from_bags(X, Y, n_jobs=n_jobs)
    if kind == "adapted":
        return adapted_from(mats, y_rows, y_cols)
    if kind == "integrated":
        return integrated_from(mats, float(alpha))
    return mats[kind]
