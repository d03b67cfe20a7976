"""Embeddings as reductions of the instance-to-bag minima M (shared by transformers and classifiers).

``M[a, j] = min over z in bag j of ||x_a - z||^2`` comes from one kernel
pass (:func:`mil.distances.instance_bag_minima`). With the training bags'
M computed once (rows: training instances, columns: training bags):

- MILES (Chen, Bi and Wang 2006): bag j on concept a is
  ``exp(-M[a, j] / sigma**2)``, i.e. the embedding matrix is
  ``exp(-M.T / sigma**2)`` with the concepts as columns;
- bag dissimilarities (Cheplygina, Tax and Loog 2015): bag i against bag j
  is a reduction of ``sqrt(M)`` over the rows of bag i (mean: mean-min,
  min: minimal Hausdorff, max: directed Hausdorff), or of both directions
  (Hausdorff, average).

An inner cross-validation on the training bags therefore only slices M:
the concepts (prototypes) of an inner-training set are its rows (columns),
so no distance is computed again for any hyper-parameter or fold.
"""

import numpy as np

from mil.bags import Bags
from mil.distances import _minima_from_bags

__all__ = ["DISSIMILARITIES", "bag_dissimilarities", "dissimilarities", "miles_features", "median_sigma",
           "minima"]

#: Bag dissimilarities offered by :class:`~mil.embedding.BagDissimilarityEmbedding`.
DISSIMILARITIES = ("meanmin", "minmin", "maxmin", "hausdorff", "average")


def minima(rows, cols=None, *, both=False, centre=None, n_jobs=None, root=False):
    """M between validated dense Bags (`cols` None: symmetric train-vs-train); `root`: sqrt(M), exact
    over the whole float64 range (see :func:`mil.distances._minima_from_bags`)."""
    return _minima_from_bags(rows, cols, both=both, n_jobs=n_jobs, centre=centre, root=root)


def miles_features(M_concepts_bags, sigma):
    """The MILES embedding ``exp(-M / sigma**2)``, one row per bag (M: concepts x bags)."""
    return np.exp(-M_concepts_bags.T / (sigma * sigma))


def median_sigma(M, own=None):
    """Median heuristic: ``sqrt(median(M))`` over the entries of instances against other bags.

    `own` (optional) is the bag index of each row; entries of a row against
    its own bag (always 0) are left out. Falls back to 1 when the median is 0.
    """
    if own is not None:
        mask = np.ones(M.shape, dtype=bool)
        mask[np.arange(M.shape[0]), own] = False
        values = M[mask]
    else:
        values = M.ravel()
    med = float(np.median(values)) if values.size else 0.0
    return float(np.sqrt(med)) if med > 0 else 1.0


def bag_dissimilarities(rows, cols=None, kind="meanmin", *, centre=None, n_jobs=None):
    """Dissimilarities of the validated dense Bags `rows` to `cols` (None: to themselves), from one pass.

    The instance-to-bag distances come as roots (``minima(..., root=True)``),
    so every dissimilarity is within the relative bound of
    :mod:`mil.distances` of its exact value, whatever the magnitude of the
    features (from subnormal to the float64 maximum); a distance beyond the
    float64 maximum raises a ValueError.
    """
    both = cols is not None and kind in ("hausdorff", "average")
    out = minima(rows, cols, both=both, centre=centre, n_jobs=n_jobs, root=True)
    R_xy, R_yx = out if both else (out, out if cols is None else None)
    return dissimilarities(R_xy, rows.offsets, kind, R_yx, (rows if cols is None else cols).offsets,
                           root=True)


def dissimilarities(M_xy, x_offsets, kind, M_yx=None, y_offsets=None, *, root=False):
    """Bag dissimilarities of the row bags (rows of `M_xy` grouped by `x_offsets`) to the column bags.

    `root`: `M_xy` and `M_yx` already hold the distances (square roots of M).
    Euclidean (square roots of M), as in Cheplygina, Tax and Loog (2015):
    ``meanmin``: mean over a bag's instances of the distance to the nearest
    instance of the other bag; ``minmin``: minimum (minimal Hausdorff);
    ``maxmin``: maximum (directed Hausdorff h(A, B)); ``hausdorff``:
    ``max(h(A, B), h(B, A))``; ``average``: the average Hausdorff distance.
    The last two need the other direction, `M_yx` (column instances x row
    bags) grouped by `y_offsets`.
    """
    R = M_xy if root else np.sqrt(M_xy)
    starts = x_offsets[:-1]
    if kind == "meanmin":
        return np.add.reduceat(R, starts, axis=0) / np.diff(x_offsets)[:, None]
    if kind == "minmin":
        return np.minimum.reduceat(R, starts, axis=0)
    if kind == "maxmin":
        return np.maximum.reduceat(R, starts, axis=0)
    C = M_yx if root else np.sqrt(M_yx)
    if kind == "hausdorff":
        return np.maximum(np.maximum.reduceat(R, starts, axis=0),
                          np.maximum.reduceat(C, y_offsets[:-1], axis=0).T)
    if kind == "average":
        total = np.add.reduceat(R, starts, axis=0) + np.add.reduceat(C, y_offsets[:-1], axis=0).T
        return total / np.add.outer(np.diff(x_offsets), np.diff(y_offsets))
    raise ValueError(f"dissimilarity must be one of {DISSIMILARITIES}; got {kind!r}")


def instance_rows(offsets, bags):
    """Row indices (instances) of the bags `bags`, in order."""
    offsets = np.asarray(offsets)
    starts, stops = offsets[bags], offsets[np.asarray(bags) + 1]
    sizes = stops - starts
    return np.repeat(starts - np.cumsum(sizes) + sizes, sizes) + np.arange(sizes.sum())


def subset(bags, index):
    """The bags `index` of validated Bags, as Bags (dense)."""
    rows = instance_rows(bags.offsets, index)
    sizes = np.diff(bags.offsets)[index]
    return Bags._trusted(bags.instances[rows], np.r_[0, np.cumsum(sizes)].astype(np.intp))


def one_bag(points):
    """An instance matrix as a single bag (rows of M are instances whatever the bags)."""
    points = np.ascontiguousarray(points, dtype=np.float64)
    return Bags._trusted(points, np.array([0, points.shape[0]], dtype=np.intp))
