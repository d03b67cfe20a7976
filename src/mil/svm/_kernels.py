"""Bag kernels for support vector machines: set kernels (NSK, miGraph) and the EMD.

- Set kernel (Gaertner, Flach, Kowalczyk and Smola, "Multi-instance
  kernels", ICML 2002): ``K(A, B) = sum_a sum_b w_a w_b exp(-gamma ||a - b||^2)``,
  normalised by ``sqrt(K(A, A) K(B, B))``; all weights 1 is the
  normalised-set kernel (NSK, "MI-Kernel").
- miGraph (Zhou, Sun and Li, "Multi-instance learning by treating instances
  as non-i.i.d. samples", ICML 2009): each bag becomes an epsilon-graph on
  its instances (an edge where two instances are closer than epsilon, by
  default the bag's mean distance between its instances) and instance a
  weighs ``1 / d_a``, ``d_a`` the number of instances of its bag within
  epsilon of it, itself included (the row sum of the paper's affinity
  matrix, whose diagonal is 1). The paper divides the kernel by
  ``sum_a w_a * sum_b w_b``; ``normalize="weights"`` does that, the default
  "cosine" divides by ``sqrt(K(A, A) K(B, B))`` as for NSK.
- Earth mover's distance between bags (uniform instance weights, Euclidean
  ground cost; Rubner, Tomasi and Guibas, IJCV 2000) through POT's exact
  network-simplex solver ``ot.emd2`` (Flamary et al., JMLR 2021), an
  optional dependency (``pip install "scikit-mil[ot]"``).

The set kernels of several gammas come from one compiled pass
(``mil._core._set_kernel``), whose squared distances are computed once per
block of bags; the exponentials are taken once per gamma.
"""

import hashlib
import threading

import numpy as np

from mil._core import kernel, twins, use_backend
from mil.distances import _centred_scaled, _fill_by_rows
from mil.utils.validation import check_bags, shown

__all__ = ["set_kernel", "migraph_weights", "emd_distances", "BLOCK_SIZE"]

#: Instances per row block and column chunk of the set-kernel pass (the Hausdorff pass's block).
BLOCK_SIZE = 1024


def _as_bags(X, name):
    return check_bags(X, name=name)


def migraph_weights(X, epsilon=None):
    """miGraph's instance weights: 1 / degree in each bag's epsilon-graph.

    Parameters
    ----------
    X : sequence of 2-D arrays or Bags
    epsilon : float > 0 or None, default=None
        Edge threshold: instances closer than `epsilon` (Euclidean) are
        joined. None uses each bag's mean distance between its distinct
        instances (Zhou, Sun and Li 2009).

    Returns
    -------
    weights : ndarray of shape (n_instances,)
        ``1 / (1 + number of other instances of the bag closer than epsilon)``;
        1 for a one-instance bag.

    Examples
    --------
    >>> import numpy as np
    >>> from mil.svm import migraph_weights
    >>> bag = np.array([[0.0], [0.1], [0.2], [5.0]])
    >>> migraph_weights([bag]).round(3).tolist()
    [0.333, 0.333, 0.333, 1.0]
    """
    from scipy.spatial.distance import pdist, squareform

    bags = _as_bags(X, "X")
    if epsilon is not None and not (np.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon must be a finite number > 0 or None; got {shown(epsilon)}")
    w = np.ones(bags.instances.shape[0])
    off = bags.offsets
    for b in range(bags.n_bags):
        n = off[b + 1] - off[b]
        if n < 2:
            continue
        d = pdist(bags.instances[off[b]:off[b + 1]])
        eps = d.mean() if epsilon is None else float(epsilon)
        w[off[b]:off[b + 1]] = 1.0 / (1.0 + (squareform(d) < eps).sum(axis=1) - (0.0 < eps))
    return w


def _kernel_pass(Xc, x_off, x_w, Yc, y_off, y_w, gammas, n_jobs):
    """Unnormalised set kernels (n_gammas, n_x, n_y) with threads over row strips."""
    from joblib import effective_n_jobs

    symmetric = Yc is None
    n_x = x_off.shape[0] - 1
    n_y = n_x if symmetric else y_off.shape[0] - 1
    out = np.zeros((gammas.shape[0], n_x, n_y))
    k = kernel("_set_kernel")
    args = (Xc, x_off, x_w, Xc if symmetric else Yc, x_off if symmetric else y_off,
            x_w if symmetric else y_w, symmetric, gammas, out)
    # The Hausdorff pass's row strips, same block boundaries.
    _fill_by_rows(k.set_kernel_matrices, args, x_off, symmetric, min(effective_n_jobs(n_jobs), n_x),
                  BLOCK_SIZE)
    return out


def _diagonal(Xc, off, w, gammas):
    out = np.zeros((gammas.shape[0], off.shape[0] - 1))
    kernel("_set_kernel").set_kernel_diagonal(Xc, off, w, gammas, out)
    return out


def _check_gammas(gamma):
    gammas = np.atleast_1d(np.asarray(gamma, dtype=np.float64))
    if gammas.ndim != 1 or gammas.size == 0 or not (np.isfinite(gammas).all() and (gammas > 0).all()):
        raise ValueError(f"gamma must be a number > 0 or a non-empty list of them; got {shown(gamma)}")
    return gammas


def _set_kernels_from_bags(X, Y, gammas, x_w, y_w, n_jobs):
    """Unnormalised kernels plus both sides' self-kernels, for validated Bags.

    Returns ``(K, diag_x, diag_y)``: K of shape (n_gammas, n_x, n_y), the
    diagonals (n_gammas, n_x) and (n_gammas, n_y) (``diag_y`` is
    ``diag_x`` when Y is None). Instances are centred on the training
    bags and scaled by a power of two as for the Hausdorff distances
    (:mod:`mil.distances`), gammas rescaled to match.
    """
    Xc, Yc, exponent = _centred_scaled(X, Y)
    g = gammas * 4.0 ** exponent
    K = _kernel_pass(Xc, X.offsets, x_w, Yc, None if Y is None else Y.offsets, y_w, g, n_jobs)
    if Y is None:
        diag_x = np.diagonal(K, axis1=1, axis2=2).copy()
        return K, diag_x, diag_x
    return K, _diagonal(Xc, X.offsets, x_w, g), _diagonal(Yc, Y.offsets, y_w, g)


def _normalised(K, diag_x, diag_y, normalize, wsum_x=None, wsum_y=None):
    """Apply the normalisation in place ("cosine", "weights" or "none")."""
    if normalize == "cosine":
        K /= np.sqrt(diag_x[:, :, None] * diag_y[:, None, :])
    elif normalize == "weights":
        K /= (wsum_x[:, None] * wsum_y[None, :])[None]
    return K


def set_kernel(X, Y=None, *, gamma=1.0, weights="nsk", epsilon=None, normalize="cosine", n_jobs=None):
    """Set kernel between bags for one or several gammas.

    ``K(A, B) = sum_a sum_b w_a w_b exp(-gamma ||a - b||^2)``, normalised.

    Parameters
    ----------
    X : sequence of 2-D arrays or Bags
    Y : sequence of 2-D arrays or Bags, default=None
        None means ``X`` against itself (symmetric, half the work).
    gamma : float or sequence of float, default=1.0
        One kernel per gamma, all from one pass over the squared distances.
    weights : {"nsk", "migraph"}, default="nsk"
        Instance weights: all 1 (NSK, Gaertner et al. 2002) or miGraph's
        1 / degree in each bag's epsilon-graph (:func:`migraph_weights`).
    epsilon : float or None, default=None
        miGraph's edge threshold (None: each bag's mean intra-bag distance).
    normalize : {"cosine", "weights", "none"}, default="cosine"
        "cosine" divides by ``sqrt(K(A, A) K(B, B))``; "weights" by
        ``sum_a w_a * sum_b w_b`` (the miGraph paper's form; for NSK the
        mean of the instance kernel); "none" returns the sums.
    n_jobs : int, default=None
        Threads over strips of rows (the results do not depend on it).

    Returns
    -------
    K : ndarray of shape (n_bags_X, n_bags_Y), or (n_gammas, n_bags_X, n_bags_Y) when
        `gamma` is a sequence.

    Examples
    --------
    >>> import numpy as np
    >>> from mil.svm import set_kernel
    >>> A, B = np.array([[0.0], [1.0]]), np.array([[0.0]])
    >>> K = set_kernel([A, B], gamma=1.0, normalize="none")
    >>> bool(np.isclose(K[0, 1], 1 + np.exp(-1.0)))
    True
    """
    if weights not in ("nsk", "migraph"):
        raise ValueError(f"weights must be 'nsk' or 'migraph'; got {weights!r}")
    if normalize not in ("cosine", "weights", "none"):
        raise ValueError(f"normalize must be 'cosine', 'weights' or 'none'; got {normalize!r}")
    scalar = np.ndim(gamma) == 0
    gammas = _check_gammas(gamma)
    X = _as_bags(X, "X")
    if Y is not None:
        Y = _as_bags(Y, "Y")
        if Y.n_features != X.n_features:
            raise ValueError(f"Y has {Y.n_features} features per instance but X has {X.n_features}")
    side = [X] if Y is None else [X, Y]
    if weights == "nsk":
        ws = [np.ones(b.instances.shape[0]) for b in side]
    else:
        ws = [migraph_weights(b, epsilon) for b in side]
    x_w, y_w = ws[0], ws[-1]
    K, dx, dy = _set_kernels_from_bags(X, Y, gammas, x_w, None if Y is None else y_w, n_jobs)
    sums = [np.add.reduceat(w, b.offsets[:-1]) for w, b in zip(ws, side)]
    K = _normalised(K, dx, dy, normalize, sums[0], sums[-1])
    return K[0] if scalar else K


def _require_pot():
    try:
        import ot
    except ImportError as exc:
        raise ImportError(
            "the earth mover's distance needs the optional POT library: "
            'pip install "scikit-mil[ot]" (or pip install pot)') from exc
    return ot


#: Ground costs of :func:`emd_distances` (names of ``scipy.spatial.distance.cdist``, through POT's ``ot.dist``).
EMD_METRICS = ("euclidean", "sqeuclidean", "cityblock")
#: Largest number of bag pairs whose EMD is remembered (per process).
EMD_CACHE_SIZE = 1_000_000
_emd_cache = {}
_emd_lock = threading.Lock()


def _digest(A):
    """A key of a bag's instances (shape and bytes): equal bags share their EMDs."""
    return hashlib.blake2b(np.ascontiguousarray(A).tobytes(), digest_size=16,
                           person=str(A.shape).encode()[:16]).digest()


def _emd_row(ot, A, key_a, bags_b, keys_b, numItermax, metric="euclidean"):
    """EMDs from bag A to each of `bags_b`, through the pair cache.

    The EMD of two bags depends on those two bags (and the ground cost)
    alone, so it is remembered by the bags' contents and the metric:
    cross-validation folds over the same (unscaled) bags solve each pair once.
    """
    a = np.full(A.shape[0], 1.0 / A.shape[0])
    out = np.empty(len(bags_b))
    for t, (B, key_b) in enumerate(zip(bags_b, keys_b)):
        key = (metric, key_a, key_b) if key_a <= key_b else (metric, key_b, key_a)
        hit = _emd_cache.get(key)
        if hit is None:
            M = ot.dist(A, B, metric=metric)
            hit = float(ot.emd2(a, np.full(B.shape[0], 1.0 / B.shape[0]), M, numItermax=numItermax))
            with _emd_lock:
                if len(_emd_cache) >= EMD_CACHE_SIZE:
                    _emd_cache.clear()
                _emd_cache[key] = hit
        out[t] = hit
    return out


def emd_distances(X, Y=None, *, metric="euclidean", n_jobs=None, num_iter_max=1_000_000):
    """Earth mover's distance between bags (uniform weights, Euclidean ground cost by default).

    Each entry is the optimal transport cost between the two bags' uniform
    distributions over their instances, solved exactly by POT's network
    simplex (``ot.emd2``). Needs the optional ``pot`` package.

    Parameters
    ----------
    X : sequence of 2-D arrays or Bags
    Y : sequence of 2-D arrays or Bags, default=None
        None means ``X`` against itself (symmetric: pairs i < j solved once,
        zeros on the diagonal).
    metric : {"euclidean", "sqeuclidean", "cityblock"}, default="euclidean"
        Ground cost between two instances: the Euclidean distance (Rubner,
        Tomasi and Guibas 2000; Zhang, Marszalek, Lazebnik and Schmid 2007),
        its square (the EMD is then the squared 2-Wasserstein distance
        between the two bags' instance distributions) or the L1 distance.
    n_jobs : int, default=None
        Threads over rows of bags.
    num_iter_max : int, default=1_000_000
        Iteration cap of the network simplex (POT's ``numItermax``).

    Each pair's EMD is remembered (by the two bags' contents, up to
    ``EMD_CACHE_SIZE`` pairs per process), so cross-validation over the
    same unscaled bags solves every pair once.

    Returns
    -------
    D : ndarray of shape (n_bags_X, n_bags_Y)

    Examples
    --------
    >>> import numpy as np
    >>> from mil.svm import emd_distances
    >>> A = np.array([[0.0], [2.0]]); B = np.array([[1.0], [3.0]])
    >>> float(emd_distances([A, B])[0, 1])  # each instance moves by 1
    1.0
    >>> C = np.array([[0.0], [1.0]]); D = np.array([[2.0], [4.0]])
    >>> float(emd_distances([C], [D], metric="sqeuclidean")[0, 0])  # (2^2 + 3^2) / 2
    6.5
    """
    if metric not in EMD_METRICS:
        raise ValueError(f"metric must be one of {', '.join(map(repr, EMD_METRICS))}; got {metric!r}")
    ot = _require_pot()
    from joblib import Parallel, delayed, effective_n_jobs

    X = _as_bags(X, "X")
    bx = [X.instances[X.offsets[i]:X.offsets[i + 1]] for i in range(X.n_bags)]
    if Y is None:
        tasks = [(i, list(range(i + 1, X.n_bags))) for i in range(X.n_bags)]
        by = bx
    else:
        Y = _as_bags(Y, "Y")
        if Y.n_features != X.n_features:
            raise ValueError(f"Y has {Y.n_features} features per instance but X has {X.n_features}")
        by = [Y.instances[Y.offsets[j]:Y.offsets[j + 1]] for j in range(Y.n_bags)]
        tasks = [(i, list(range(Y.n_bags))) for i in range(X.n_bags)]
    kx = [_digest(b) for b in bx]
    ky = kx if Y is None else [_digest(b) for b in by]
    D = np.zeros((X.n_bags, len(by)))
    n = effective_n_jobs(n_jobs)

    def row(i, cols):
        return _emd_row(ot, bx[i], kx[i], [by[j] for j in cols], [ky[j] for j in cols], num_iter_max,
                       metric)

    if n > 1:
        rows = Parallel(n_jobs=n, backend="threading")(delayed(row)(i, cols) for i, cols in tasks)
    else:
        rows = [row(i, cols) for i, cols in tasks]
    for (i, cols), vals in zip(tasks, rows):
        D[i, cols] = vals
        if Y is None:
            D[cols, i] = vals
    return np.maximum(D, 0.0)
