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

Numeric range and accuracy (see :func:`set_kernel` and
:func:`emd_distances`): both are exact to a stated relative bound for
features of any magnitude from subnormal to the float64 maximum, or raise a
ValueError that names the limit; the user guide's page on the compiled
kernels gives the bounds and how they are kept.
"""

import hashlib
import threading
from numbers import Integral

import numpy as np

from mil._bag_arrays import concat_ranges
from mil._core import kernel
from mil._distance_engine import fill_by_rows
from mil._distance_exact import bag_radii, scaled_by
from mil.utils._docstrings import register
from mil.utils.validation import check_bags, shown

__all__ = ["set_kernel", "migraph_weights", "emd_distances", "landmark_embeddings", "BLOCK_SIZE"]

#: Instances per row block and column chunk of the set-kernel pass (the Hausdorff pass's block).
BLOCK_SIZE = 1024

register("bag kernel jobs", """\
    n_jobs : int, default=None
        Threads for the kernel and distance passes.
    random_state : int, RandomState or None, default=None
        Seeds the shuffles of an int `cv`.
""")


def landmark_embeddings(bags, gammas, n_landmarks, normalize="cosine", random_state=None, n_jobs=None):
    """Nystroem kernel mean embeddings of the bags, one per gamma: the set kernel made linear.

    For each absolute ``gamma`` (for the features of `bags` as given), a
    :class:`~mil.embedding.KernelMeanEmbedding` with `n_landmarks`
    Nystroem landmarks drawn from the instances of `bags` (the same
    landmarks for every gamma: one seed for all) is fitted on `bags` and
    encodes them. The inner products of the rows approximate the set
    kernel of :func:`set_kernel` with NSK weights and the same
    normalisation (``"none"``: unnormalised), exactly so when every
    instance is a landmark; a new bag's row against them is the
    approximate kernel between it and `bags`.

    Parameters
    ----------
    bags : Bags
        Validated (scaled) training bags.
    gammas : ndarray of float
        Absolute bandwidths of the instance kernel ``exp(-gamma ||a - b||^2)``.
    n_landmarks : int
        Landmarks (at most the number of instances sampled: up to 100,000).
    normalize : {"cosine", "weights", "none"}, default="cosine"
        As in :func:`set_kernel`.
    random_state : int, RandomState or None, default=None
        Seeds the landmarks (one seed drawn from it for every gamma).
    n_jobs : int, default=None
        Threads over chunks of bags.

    Returns
    -------
    encoders : list of fitted KernelMeanEmbedding
    embeddings : list of ndarray of shape (n_bags, n_components)
    """
    from sklearn.utils import check_random_state

    from mil.embedding import KernelMeanEmbedding

    # One seed for every gamma, so that every encoder draws the same landmarks.
    seed = random_state if isinstance(random_state, Integral) else int(
        check_random_state(random_state).randint(np.iinfo(np.int32).max))
    encoders, embeddings = [], []
    for g in np.atleast_1d(gammas):
        enc = KernelMeanEmbedding(int(n_landmarks), method="nystroem", gamma=float(g), gamma_scale="absolute",
                                  normalize=None if normalize == "none" else normalize, scale=None,
                                  n_jobs=n_jobs, random_state=seed).fit(bags)
        encoders.append(enc)
        embeddings.append(np.asarray(enc.transform(bags), dtype=np.float64))
    return encoders, embeddings


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
        # The bag scaled by a power of two (exact) to magnitudes near 1, so that
        # pdist's squares neither under- nor overflow; epsilon scaled alike.
        A, exponent = _unit_scaled(bags.instances[off[b]:off[b + 1]])
        d = pdist(A)
        if epsilon is None:
            eps = d.mean()
        else:
            with np.errstate(over="ignore", under="ignore"):
                eps = np.ldexp(float(epsilon), -exponent)
        w[off[b]:off[b + 1]] = 1.0 / (1.0 + (squareform(d) < eps).sum(axis=1) - (0.0 < eps))
    return w


def _unit_scaled(A):
    """``(A * 2**-e, e)`` with the largest magnitude of A in [0.5, 1) (``e = 0`` for zeros)."""
    top = float(np.abs(A).max()) if A.size else 0.0
    if top == 0.0:
        return A, 0
    exponent = int(np.frexp(top)[1])
    return scaled_by(A, exponent), exponent


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
    fill_by_rows(k.set_kernel_matrices, args, x_off, symmetric, min(effective_n_jobs(n_jobs), n_x),
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


#: Largest relative error of one term ``exp(-gamma d2)`` accepted from the expansion of the
#: squared distances (the kernel pass recomputes beyond it) and, separately, from centring
#: (the pairs of bags beyond it are recomputed uncentred): the kernel's ``TERM_RTOL``.
TERM_RTOL = 2.0 ** -33
#: exp(-t) is 0.0 in float64 from t = 746 on (the kernel's ``EXP_UNDERFLOW``).
_EXP_UNDERFLOW = 746.0
_U = 2.0 ** -53


def _kernel_units(arrays, gammas):
    """``(k, g)``: the kernel runs on the instances times ``2**k`` with the gammas ``g = gammas * 4**-k``.

    Only ``gamma * ||a - b||^2`` enters the kernel, so any power of two
    ``2**k`` gives the same terms, exactly, wherever nothing under- or
    overflows. ``k = 0`` unless the instances' largest magnitude lies
    beyond ``2**top`` (``top`` about 500, so that squared norms of centred
    instances stay inside float64 for ``d`` features) or the largest gamma
    beyond ``2**900`` (squared distances that matter would be subnormal);
    then ``k`` brings the largest gamma to [1, 4) (every squared distance
    that matters, ``gamma d2`` from ``2**-60`` to 746, is then a normal
    number) as far as the instances allow. A gamma that still exceeds the
    float64 range raises a ValueError; the smaller gammas of a list that
    underflow become the smallest subnormal (their terms are 1 to within
    ``2**-54``).
    """
    d = max(a.shape[1] for a in arrays)
    top_exponent = min(500, (1017 - int(np.ceil(np.log2(max(d, 1))))) // 2)
    top = max((float(np.abs(a).max()) for a in arrays if a.size), default=0.0)
    gmax = float(gammas.max())
    e_top = int(np.frexp(top)[1]) if top > 0 else None
    if (e_top is None or e_top <= top_exponent) and gmax <= 2.0 ** 900:
        return 0, gammas
    k = (int(np.frexp(gmax)[1]) - 1) // 2
    if e_top is not None:
        k = min(k, top_exponent - e_top)
    with np.errstate(over="ignore", under="ignore"):
        g = np.ldexp(gammas, -2 * k)
    if not np.isfinite(g).all():
        raise ValueError(
            f"the set kernel at gamma={gmax:.3g} on instances of magnitude up to {top:.3g} is beyond "
            "double precision (gamma times the squared magnitude exceeds 2**1000); rescale the "
            "features (e.g. by their largest magnitude) or use a smaller gamma")
    return k, np.maximum(g, np.nextafter(0.0, 1.0))


def _centring_suspects(Xc, offsets, gmax):
    """Bags whose pairs may carry a centring error above TERM_RTOL (recomputed uncentred).

    Centring rounds each coordinate by at most 2**-53 of its centred value,
    so a squared distance d2 between bags of radii r_i, r_j about the centre
    moves by at most ``2 sqrt(d2) E + E**2``, ``E = 2**-53 (r_i + r_j)``; a
    term that can matter has ``gamma d2 < 746``, so its exponent moves by at
    most ``2 sqrt(746 gamma) E + gamma E**2``. A pair beyond TERM_RTOL holds
    a bag with ``r > (r_i + r_j) / 2``: those bags are returned.
    """
    E = _U * (1.0 + 4.0 * _U) * 2.0 * bag_radii(Xc, offsets)
    with np.errstate(over="ignore"):
        bound = 2.0 * np.sqrt(_EXP_UNDERFLOW * gmax) * E + gmax * E * E
    return np.flatnonzero(bound > TERM_RTOL)


def _bag_subset(instances, offsets, weights, index):
    """Instances, offsets and weights of the bags `index` (in order)."""
    sizes = np.diff(offsets)[index]
    new = np.r_[0, np.cumsum(sizes)].astype(np.intp)
    rows = concat_ranges(offsets[index], sizes)
    return np.ascontiguousarray(instances[rows]), new, np.ascontiguousarray(weights[rows])


def set_kernels_from_bags(X, Y, gammas, x_w, y_w, n_jobs):
    """Unnormalised kernels plus both sides' self-kernels, for validated Bags.

    Returns ``(K, diag_x, diag_y)``: K of shape (n_gammas, n_x, n_y), the
    diagonals (n_gammas, n_x) and (n_gammas, n_y) (``diag_y`` is
    ``diag_x`` when Y is None). The instances are scaled by a power of two
    with the gammas rescaled to match (:func:`_kernel_units`) and centred on
    the mean of the training bags (Y, or X when Y is None), which keeps the
    expansion of the squared distances accurate; the kernel pass recomputes
    from differences the distances that the expansion could leave too
    coarse, and the pairs of bags far from the centre, whose centring could
    cost more than ``TERM_RTOL``, are recomputed uncentred
    (:func:`_centring_suspects`).
    """
    sides = [X] if Y is None else [X, Y]
    k, g = _kernel_units([b.instances for b in sides], gammas)
    scaled = [scaled_by(b.instances, -k) if k else b.instances for b in sides]
    centre = scaled[-1].mean(axis=0)
    Xc = scaled[0] - centre
    if Y is None:
        K = _kernel_pass(Xc, X.offsets, x_w, None, None, None, g, n_jobs)
        diag_x = np.diagonal(K, axis1=1, axis2=2).copy()
        rows = _centring_suspects(Xc, X.offsets, g.max())
        if rows.size:
            _recompute_symmetric(K, scaled[0], X.offsets, x_w, rows, g, n_jobs)
            diag_x = np.diagonal(K, axis1=1, axis2=2).copy()
        return K, diag_x, diag_x
    Yc = scaled[1] - centre
    K = _kernel_pass(Xc, X.offsets, x_w, Yc, Y.offsets, y_w, g, n_jobs)
    dx, dy = _diagonal(Xc, X.offsets, x_w, g), _diagonal(Yc, Y.offsets, y_w, g)
    rows, cols = _centring_suspects(Xc, X.offsets, g.max()), _centring_suspects(Yc, Y.offsets, g.max())
    if rows.size or cols.size:
        Xs, Ys = scaled
        if rows.size:
            xs, xo, xw = _bag_subset(Xs, X.offsets, x_w, rows)
            K[:, rows] = _kernel_pass(xs, xo, xw, Ys, Y.offsets, y_w, g, n_jobs)
            dx[:, rows] = _diagonal(xs, xo, xw, g)
        if cols.size:
            ys, yo, yw = _bag_subset(Ys, Y.offsets, y_w, cols)
            K[:, :, cols] = _kernel_pass(Xs, X.offsets, x_w, ys, yo, yw, g, n_jobs)
            dy[:, cols] = _diagonal(ys, yo, yw, g)
    return K, dx, dy


def _recompute_symmetric(K, Xs, offsets, w, rows, g, n_jobs):
    """Overwrite the kernels of the bags `rows` against every bag from the uncentred `Xs`, keeping K symmetric."""
    xs, xo, xw = _bag_subset(Xs, offsets, w, rows)
    K[:, rows[:, None], rows[None, :]] = _kernel_pass(xs, xo, xw, None, None, None, g, n_jobs)
    rest = np.setdiff1d(np.arange(offsets.shape[0] - 1), rows)
    if rest.size:
        ys, yo, yw = _bag_subset(Xs, offsets, w, rest)
        R = _kernel_pass(xs, xo, xw, ys, yo, yw, g, n_jobs)
        K[:, rows[:, None], rest[None, :]] = R
        K[:, rest[:, None], rows[None, :]] = R.transpose(0, 2, 1)


#: Rows of a kernel normalised at a time: the divisor is built for a strip of rows, not for the
#: whole stack of kernels (which would double the memory of a fit).
_NORMALIZE_ROWS = 512


def normalize_kernels(K, diag_x, diag_y, normalize, wsum_x=None, wsum_y=None):
    """Apply the normalisation in place ("cosine", "weights" or "none"), a strip of rows at a time."""
    if normalize not in ("cosine", "weights"):
        return K
    for k in range(K.shape[0]):
        for r0 in range(0, K.shape[1], _NORMALIZE_ROWS):
            r1 = r0 + _NORMALIZE_ROWS
            if normalize == "cosine":
                K[k, r0:r1] /= np.sqrt(diag_x[k, r0:r1, None] * diag_y[k, None, :])
            else:
                K[k, r0:r1] /= wsum_x[r0:r1, None] * wsum_y[None, :]
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

    Notes
    -----
    Accuracy, for finite features of any magnitude (subnormal to the float64
    maximum) and ``d`` features: every unnormalised entry is within a
    relative ``2 * TERM_RTOL + 746 (d + 2) 2**-53 + (n_A n_B + 8) 2**-53``
    (about ``2.3e-10`` for small bags) of the exact sum of the float64
    instances given, ``n_A n_B`` the number of instance pairs; sums of terms
    that underflow are within ``1e-305`` absolute; the cosine-normalised
    kernel within twice that. Only ``gamma ||a - b||^2`` enters, so the
    instances are scaled by a power of two and the gammas rescaled to
    match (exact); the squared distances' expansion ``|a|^2 + |b|^2 -
    2 a.b`` is recomputed from differences wherever its rounding could move
    a term by more than ``TERM_RTOL`` (``2**-33``), and pairs of bags far
    from the centre of the training bags are recomputed uncentred (so a
    small distance beside an instance at ``1e8`` keeps its digits). A gamma
    whose product with the squared largest magnitude exceeds about
    ``2**1000`` raises a ValueError.

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
    K, dx, dy = set_kernels_from_bags(X, Y, gammas, x_w, None if Y is None else y_w, n_jobs)
    sums = [np.add.reduceat(w, b.offsets[:-1]) for w, b in zip(ws, side)]
    K = normalize_kernels(K, dx, dy, normalize, sums[0], sums[-1])
    return K[0] if scalar else K


def require_pot():
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


#: The instances of a bag pair are scaled by a power of two so that their largest magnitude is
#: ``2**EMD_TOP_EXPONENT``: ground costs then neither overflow nor lose their small values.
EMD_TOP_EXPONENT = 400
#: Ground costs computed through squares (``scipy.spatial.distance.cdist``) below this, in the
#: scaled units, are recomputed as scaled norms (their squares may have lost digits to underflow).
_EMD_RECOMPUTE_BELOW = 2.0 ** -400


def _ground_costs(A, B, metric):
    """``(M, k)``: the ground costs of bags A and B are ``M * 2**k`` (exactly, where representable).

    Both bags are multiplied by the power of two ``2**-e`` that brings their
    largest magnitude to ``2**EMD_TOP_EXPONENT`` (exact), so the costs
    cannot overflow and keep the room below them: Euclidean costs are
    scipy's ``cdist`` (from differences, no cancellation), those below
    ``_EMD_RECOMPUTE_BELOW`` recomputed as ``m * sqrt(sum((diff / m)**2))``
    (``m`` the largest absolute difference), whose square never underflows;
    the squared Euclidean cost is that squared, the L1 cost a sum of
    absolute differences. ``k`` is ``e`` (Euclidean, L1) or ``2 e``
    (squared Euclidean): the EMD of ``M``, a linear programme, times
    ``2**k`` is the EMD of the bags.
    """
    from scipy.spatial.distance import cdist

    top = max(float(np.abs(A).max()), float(np.abs(B).max()))
    e = int(np.frexp(top)[1]) - EMD_TOP_EXPONENT if top > 0 else 0
    As, Bs = (scaled_by(A, e), scaled_by(B, e)) if e else (A, B)
    if metric == "cityblock":
        return cdist(As, Bs, "cityblock"), e
    M = cdist(As, Bs, "euclidean")
    i, j = np.nonzero(M < _EMD_RECOMPUTE_BELOW)
    if i.size:
        diff = As[i] - Bs[j]
        m = np.abs(diff).max(axis=1)
        safe = np.where(m > 0, m, 1.0)
        q = diff / safe[:, None]
        M[i, j] = np.where(m > 0, np.sqrt(np.einsum("ij,ij->i", q, q)) * m, 0.0)
    if metric == "sqeuclidean":
        with np.errstate(under="ignore"):
            return M * M, 2 * e
    return M, e


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
            M, k = _ground_costs(A, B, metric)
            hit = float(ot.emd2(a, np.full(B.shape[0], 1.0 / B.shape[0]), M, numItermax=numItermax))
            with np.errstate(over="ignore", under="ignore"):
                hit = float(np.ldexp(hit, k))
            if not np.isfinite(hit):
                raise ValueError(
                    f"an earth mover's distance ({metric} ground cost) exceeds the largest float64 "
                    f"({np.finfo(float).max:.3g}): the bags are too far apart to be compared in "
                    "double precision; rescale the features")
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

    Accuracy, for finite features of any magnitude: the instances of a pair
    are scaled by a power of two to a largest magnitude of
    ``2**EMD_TOP_EXPONENT`` (exact) so that no ground cost overflows, the
    Euclidean costs come from differences (small ones as scaled norms,
    whose squares cannot underflow), and the solution is scaled back. Each
    EMD is within ``1e-13`` relative of the exact EMD of the given float64
    instances, plus ``(n_A + n_B) 2**-50`` times the pair's largest ground
    cost (the network simplex's potentials are doubles of that size) and
    the costs that fall below the subnormals in the scaled units (below
    ``2**-1474`` times the pair's largest magnitude, squared for
    ``"sqeuclidean"``). An EMD beyond the float64 maximum raises a
    ValueError.

    Returns
    -------
    D : ndarray of shape (n_bags_X, n_bags_Y)
        ``D[i, j]`` is the EMD between bag i of X and bag j of Y, in the
        units of `metric`.

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
    ot = require_pot()
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
