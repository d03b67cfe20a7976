"""The numeric contract of the bag distances: scaling, centring, and exact recomputation.

The blocked pass (:mod:`mil._distance_engine`) computes instance distances
by the expansion ``|a|^2 + |b|^2 - 2ab`` on instances scaled by one power of
two and centred on the training bags (:func:`centred_scaled`). This module
says where that result can be trusted and recomputes the rest from
differences of the original instances, so every distance meets the contract
stated in :mod:`mil.distances`:

- scaling: a largest magnitude outside ``2**+-SAFE_EXPONENT`` is brought
  into [0.5, 1) by an exact power of two (:func:`power_of_two_exponent`,
  :func:`scaled_by`), so squares neither overflow nor underflow;
- trust: a pair (or an instance and a bag) whose minimal distance is below
  ``TRUST_RATIO`` times the two sides' extent about the centre lost digits
  to the centring, and below ``2**-TRUST_FLOOR_EXPONENT`` squares may
  underflow (:func:`suspect_pairs`, :func:`suspect_minima`);
- recomputation: such pairs from the original instances
  (:func:`exact_pairs`, :func:`exact_minima`, :func:`exact_pair`).
"""

import numpy as np

from mil._core import kernel
from mil.bags import Bags

__all__ = [
    "SAFE_EXPONENT",
    "TRUST_FLOOR_EXPONENT",
    "TRUST_RATIO",
    "bag_flags",
    "bag_radii",
    "centred_rows",
    "centred_scaled",
    "exact_minima",
    "exact_pair",
    "exact_pairs",
    "power_of_two_exponent",
    "scaled_by",
    "scaled_sparse",
    "suspect_minima",
    "suspect_pairs",
    "rounded_centre",
    "training_centre",
    "unscaled",
]


#: Largest magnitudes in [2**-SAFE_EXPONENT, 2**SAFE_EXPONENT] need no scaling:
#: squares and d-term sums of such values stay far inside float64.
SAFE_EXPONENT = 400


def centred_scaled(X, Y):
    """Instances ready for the kernel: scaled by a power of two, centred on the training bags.

    Returns ``(Xc, Yc, exponent, exact_x, exact_y)``: the kernel's distances
    on ``Xc`` and ``Yc`` times ``2**exponent`` are the distances between the
    original bags (``Yc`` and ``exact_y`` are None when Y is); ``exact_x``
    and ``exact_y`` flag, per bag, the bags centred exactly
    (:func:`centred_rows`).

    Scaling: when the largest magnitude lies outside
    ``2**+-SAFE_EXPONENT``, a factor ``2**-exponent`` brings it into
    [0.5, 1), so the squares and products of the ``|a|^2 + |b|^2 - 2ab``
    expansion neither overflow (inputs up to the float64 maximum) nor
    underflow (inputs down to subnormals). Multiplying by a power of two is
    exact, so the scaled distances are the unscaled ones, bit for bit,
    wherever the latter were representable.

    Centring: distances do not change under translation, and centring makes
    the expansion lose fewer digits to cancellation. The centre
    (:func:`training_centre`) is that of the training bags (Y when given, X
    for train-vs-train), never of a batch of query bags, so a bag's
    distances to the training bags do not depend on the other bags of the
    call.
    """
    sides = [X] if Y is None else [X, Y]
    exponent = power_of_two_exponent([b.instances for b in sides])
    arrays = [scaled_by(b.instances, exponent) if exponent else b.instances for b in sides]
    centre = training_centre(arrays[-1])
    out = []
    for a, bags in zip(arrays, sides):
        centred, exact = centred_rows(a, centre, bags.instances if exponent > 0 else None)
        out.append((centred, bag_flags(exact, bags.offsets)))
    (Xc, exact_x), (Yc, exact_y) = out[0], (out[1] if Y is not None else (None, None))
    return Xc, Yc, exponent, exact_x, exact_y


def training_centre(A):
    """The centring point of the training instances `A`: near their mean, on a coarse grid.

    Any point inside the data serves the expansion equally well, so the
    centre is chosen to make the centring exact on data with few
    significant bits (integer counts, pixel values, quantised features):
    per feature, 0 when the mean is within the data's largest deviation
    from it (the instances are then already about as small as centred
    ones), else the mean rounded to a multiple of a power of two at least
    a sixteenth of that deviation (the value itself for a constant
    feature). Where ``x - centre`` is exact, distances between centred
    instances are those between the original ones (:func:`centred_rows`).
    """
    if A.shape[0] == 0:
        return np.zeros(A.shape[1])
    mean = A.mean(axis=0)
    lo, hi = A.min(axis=0), A.max(axis=0)
    with np.errstate(over="ignore", invalid="ignore"):
        dev = np.maximum(hi - mean, mean - lo)
    grid = np.ldexp(1.0, np.frexp(dev)[1] - 4)  # a power of two in [dev / 32, dev / 16)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        q = mean / grid
        rounded = np.where(np.abs(q) < 2.0 ** 52, np.round(q) * grid, mean)
    centre = np.where(np.abs(mean) <= dev, 0.0, rounded)
    return np.where(dev > 0, centre, lo)


def rounded_centre(centre, bits=8):
    """A given centre rounded to `bits` significant bits (0 stays 0), for an exact centring more often.

    The rule for a centre fixed in advance (an estimator's training mean),
    where :func:`training_centre` cannot look at the data: a mean rounded to
    8 bits is as good a centre and leaves integer-like data exact.
    """
    mantissa, exponent = np.frexp(np.asarray(centre, dtype=np.float64))
    return np.ldexp(np.round(np.ldexp(mantissa, bits)), exponent - bits)


#: Rows per chunk when centring (bounds the temporaries of the exactness test).
_CENTRE_ROWS = 2**14


def centred_rows(A, centre, original=None):
    """``A - centre`` and, per row, whether that subtraction was exact and safe from underflow.

    A row is flagged when every ``x - centre`` is exact (Knuth's two-sum
    error term is 0) and a multiple of ``2**-TRUST_FLOOR_EXPONENT``, and,
    when `A` is `original` scaled down by a power of two, no value of the
    row underflowed to 0 in that scaling (one that became subnormal is not
    such a multiple): then
    distances between flagged rows are those between the original rows,
    and any two of them are equal or at least ``2**-TRUST_FLOOR_EXPONENT``
    apart, so no square underflows. The kernel's own rule (``EXACT_BELOW``)
    then makes every minimum between flagged rows exact to the module's
    bound, and the pair checks (:func:`suspect_pairs`) leave them alone.
    """
    out = np.empty(A.shape)
    exact = np.empty(A.shape[0], dtype=bool)
    neg = -np.asarray(centre, dtype=np.float64)
    step = max(1, _CENTRE_ROWS // max(1, A.shape[1] // 16))
    for a in range(0, A.shape[0], step):
        x = A[a:a + step]
        s = np.add(x, neg, out=out[a:a + step])
        with np.errstate(over="ignore", invalid="ignore"):
            bp = s - x
            err = (x - (s - bp)) + (neg - bp)
            q = np.ldexp(s, TRUST_FLOOR_EXPONENT)
            ok = (err == 0) & (q == np.trunc(q))
            if original is not None:
                ok &= (x != 0) | (original[a:a + step] == 0)
            exact[a:a + step] = ok.all(axis=1)
    return out, exact


def bag_flags(rows, offsets):
    """Per bag: all of its rows flagged."""
    if offsets.shape[0] < 2:
        return np.zeros(0, dtype=bool)
    return np.logical_and.reduceat(rows, offsets[:-1]) if rows.size else np.zeros(offsets.shape[0] - 1, bool)


def power_of_two_exponent(arrays):
    """Exponent e with the largest magnitude of `arrays` in [2**(e-1), 2**e); 0 inside the safe range."""
    big = max((max(float(a.max()), -float(a.min())) for a in arrays if a.size), default=0.0)
    exponent = int(np.frexp(big)[1]) if big > 0 else 0
    return 0 if -SAFE_EXPONENT <= exponent <= SAFE_EXPONENT else exponent


def scaled_by(a, exponent):
    # Two exact steps: 2.0 ** exponent alone may not be representable.
    half = -exponent // 2
    return (a * 2.0 ** half) * 2.0 ** (-exponent - half)


def scaled_sparse(X, Y):
    """Sparse (or mixed) bags scaled by a power of two as in :func:`centred_scaled` (no centring:
    it would fill the zeros)."""
    sides = [X] if Y is None else [X, Y]
    exponent = power_of_two_exponent([b.instances.data if b.is_sparse else b.instances for b in sides])
    if exponent == 0:
        return X, Y, 0
    scaled = []
    for b in sides:
        inst = b.instances.copy() if b.is_sparse else scaled_by(b.instances, exponent)
        if b.is_sparse:
            inst.data = scaled_by(inst.data, exponent)
        scaled.append(Bags._trusted(inst, b.offsets, b.ids))
    return scaled[0], (None if Y is None else scaled[1]), exponent


def unscaled(mats, exponent):
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


#: A pair's kernel distances are trusted when its minimal distance is at
#: least TRUST_RATIO times the sum of the two bags' radii about the centre
#: (then the rounding of the centring, at most 2**-53 of those radii, costs
#: under 2**-33 relative) and at least 2**-TRUST_FLOOR_EXPONENT in the
#: kernel's (power-of-two scaled) units (then no square underflows). Other
#: pairs are recomputed from the original instances by :func:`_recomputed_pair`.
TRUST_RATIO = 2.0 ** -20
TRUST_FLOOR_EXPONENT = 400


def bag_radii(Xc, offsets):
    """Largest norm of a bag's (centred, scaled) instances, per bag."""
    if offsets.shape[0] < 2:
        return np.zeros(0)
    norms = np.sqrt(np.einsum("ij,ij->i", Xc, Xc))
    return np.maximum.reduceat(norms, offsets[:-1]) if norms.size else np.zeros(offsets.shape[0] - 1)


def suspect_pairs(dmin, r_rows, r_cols, symmetric, exact_rows=None, exact_cols=None):
    """Row and column indices of the pairs in `dmin` (kernel units) that need exact recomputation.

    The kernel computes on centred instances: a distance far smaller than
    the bags' distance to the centre may have lost digits to the centring
    (``1e-30`` against ``3e-30`` beside ``1e3`` became 0), and below
    ``2**-TRUST_FLOOR_EXPONENT`` squares may underflow. Neither can happen
    between two bags centred exactly (`exact_rows`, `exact_cols`, from
    :func:`centred_rows`), whose pairs are always trusted. The rule depends
    only on the minimal distance, the radii and the flags, never on the
    backend.
    """
    with np.errstate(invalid="ignore"):
        bad = ~((dmin >= TRUST_RATIO * np.add.outer(r_rows, r_cols))
                & (dmin >= 2.0 ** -TRUST_FLOOR_EXPONENT))
    if exact_rows is not None and exact_cols is not None:
        bad &= ~(exact_rows[:, None] & exact_cols[None, :])
    if symmetric:
        bad &= ~np.eye(*dmin.shape, dtype=bool)
    return np.nonzero(bad)


def exact_pair(A, B, chunk=2 ** 20):
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


def _recomputed_pair(A, B, block_size):
    """A suspect pair's three distances: the kernel on the pair alone, else :func:`exact_pair`.

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
    As, Bs = (scaled_by(A, exponent), scaled_by(B, exponent)) if exponent else (A, B)
    outs = [np.zeros((1, 1)) for _ in range(3)]
    kernel("_hausdorff").hausdorff_matrices(
        np.ascontiguousarray(As), np.array([0, A.shape[0]], dtype=np.intp),
        np.ascontiguousarray(Bs), np.array([0, B.shape[0]], dtype=np.intp), False, *outs, 0, 1, block_size)
    if not outs[0][0, 0] >= 2.0 ** -TRUST_FLOOR_EXPONENT:
        return exact_pair(A, B)
    with np.errstate(over="ignore"):
        return tuple(float(np.ldexp(o[0, 0], exponent)) for o in outs)


def exact_pairs(X, Y, mats, suspects, block_size):
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
                                Y.instances[Y.offsets[j]:Y.offsets[j + 1]], block_size)
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


def suspect_minima(M, Xc, Yc, y_off, own_offsets, exact_rows=None, exact_cols=None, chunk_entries=2**21):
    """(row, column bag) entries of the squared minima `M` (kernel units) that need recomputation.

    The rule of :func:`suspect_pairs` for one instance and one bag: the
    minimum is trusted when its distance is at least ``TRUST_RATIO`` times
    the instance's norm about the centre plus the bag's radius, and at least
    ``2**-TRUST_FLOOR_EXPONENT``, or when the instance (`exact_rows`, per
    row) and the bag (`exact_cols`, per column bag) were centred exactly.
    `own_offsets` (train-vs-train) exempts an instance's own bag, whose
    entry is exactly 0. Row chunks of about `chunk_entries` entries bound
    the memory (a few temporaries of 16 MB).
    """
    chunk = max(1, chunk_entries // max(M.shape[1], 1))
    r_cols = bag_radii(Yc, y_off)
    r_rows = np.sqrt(np.einsum("ij,ij->i", Xc, Xc))
    own = None if own_offsets is None else np.repeat(np.arange(own_offsets.shape[0] - 1), np.diff(own_offsets))
    rows, cols = [], []
    for r0 in range(0, M.shape[0], chunk):
        D = np.sqrt(M[r0:r0 + chunk])
        with np.errstate(invalid="ignore"):
            bad = ~((D >= TRUST_RATIO * np.add.outer(r_rows[r0:r0 + chunk], r_cols))
                    & (D >= 2.0 ** -TRUST_FLOOR_EXPONENT))
        if exact_rows is not None and exact_cols is not None:
            bad &= ~(exact_rows[r0:r0 + chunk, None] & exact_cols[None, :])
        if own is not None:
            bad[np.arange(bad.shape[0]), own[r0:r0 + chunk]] = False
        i, j = np.nonzero(bad)
        rows.append(i + r0)
        cols.append(j)
    return np.concatenate(rows), np.concatenate(cols)


def exact_minima(M, instances, col_bags, suspects, root=False):
    """Overwrite the suspect entries of `M` (original units) from differences of the original instances.

    Each squared distance is ``m**2 * sum((diff / m)**2)`` with ``m`` the
    largest absolute difference (as :func:`exact_pair`), one vectorised pass
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
