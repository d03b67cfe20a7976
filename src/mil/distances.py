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

Numeric range and accuracy: the instances are centred on a point of the
training (column) bags, and scaled by a power of two when their largest
magnitude is beyond ``2**+-400``, so the expansion ``|a|^2 + |b|^2 - 2ab``
neither overflows nor underflows. The centre is near the training mean, on
a coarse grid (0 when the mean is within the data's spread), so that
integer-like features (counts, pixel values) are centred exactly. Two
checks decide where the expansion cannot be trusted, and recompute there
from differences: in the kernel, a squared row or column minimum below
``EXACT_BELOW`` times ``|a|^2 + max |b|^2`` (the bound of the expansion's
cancellation error is about ``(2d + 3) * 2**-53`` of that sum); here, a
pair of bags not both centred exactly whose minimal distance is below
``2**-20`` times the two bags' radii about the centre (the centring's
rounding) or below ``2**-400`` in the scaled units (underflow) is
recomputed from the original instances, not centred (by the kernel on the
pair alone, or a scaled norm where squares could underflow). Contract, for
finite features with ``d`` features per instance: every minimal, maximal
and average distance is within a relative ``(d + 2) * 2**-53 / EXACT_BELOW
+ 2**-33`` (about ``(d + 2) * 1.1e-12 + 1.2e-10``) of the exact distance
between the given float64 instances, whatever their magnitudes (subnormal
to the float64 maximum, mixed within a bag; a distance below the smallest
normal double, 2.2e-308, is within ``2**-1073`` absolute, twice float64's
spacing there); identical instances give exactly 0. A distance above the
largest float64 raises a ValueError. Sparse bags are scaled but not
centred (no centring loss) and use the kernel's ``EXACT_BELOW`` rule; the
pair check (for distances below ``2**-400`` of the scale) is not applied
to them.
"""

import numpy as np

from mil._distance_engine import all_from_bags, minima_from_bags
from mil.utils._docstrings import fill_doc
from mil.utils.validation import check_bags, shown

__all__ = ["hausdorff", "hausdorff_all", "instance_bag_minima", "KINDS"]

#: The distance kinds accepted by :func:`hausdorff` and the neighbour classifiers.
KINDS = ("minimal", "maximal", "average", "adapted", "integrated")


def _prepare(X, Y):
    X = check_bags(X, name="X", accept_sparse=True)
    if Y is None:
        return X, None
    Y = check_bags(Y, name="Y", accept_sparse=True)
    if Y.n_features != X.n_features:
        raise ValueError(f"Y has {Y.n_features} features per instance but X has {X.n_features}; "
                         "bags compared by a distance need the same features")
    return X, Y


def _examples_doc(function):
    """The head of the Examples of `function`: two small bags, A and B."""
    return f"""    Examples
    --------
    >>> import numpy as np
    >>> from mil.distances import {function.__name__}
    >>> A = np.array([[-1.0], [-2.0], [-3.0]])
    >>> B = np.array([[1.0], [2.0], [50.0]])
"""


@fill_doc(examples=_examples_doc)
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
        goes in strips of rows whose outputs take at most 64 MB
        each, so memory stays at a few strips whatever the number of bags.

    Returns
    -------
    distances : dict
        ``{"minimal": D, "maximal": D, "average": D}``, each an ndarray of
        shape (n_bags_X, n_bags_Y); `out` itself when given.

    [examples]
    >>> d = hausdorff_all([A, B])
    >>> float(d["minimal"][0, 1]), float(d["maximal"][0, 1])
    (2.0, 51.0)
    """
    X, Y = _prepare(X, Y)
    return all_from_bags(X, Y, n_jobs=n_jobs, out=out)


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
    cannot vouch for (distance below ``2**-20`` times the instance's and
    the bag's extent about the centre, or near underflow, unless both were
    centred exactly) is recomputed from
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
    return minima_from_bags(X, Y, both=both, n_jobs=n_jobs)


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


@fill_doc(examples=_examples_doc)
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

    [examples]
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
    mats = all_from_bags(X, Y, n_jobs=n_jobs)
    if kind == "adapted":
        return adapted_from(mats, y_rows, y_cols)
    if kind == "integrated":
        return integrated_from(mats, float(alpha))
    return mats[kind]
