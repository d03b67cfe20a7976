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

An inner cross-validation on the training bags therefore only slices M (for
MILES) or the bags x bags dissimilarities (for MInD): the concepts
(prototypes) of an inner-training set are its rows (columns), so no distance
is computed again for any hyper-parameter or fold.

Memory: the dissimilarities are reduced from M strip by strip of row bags
(:func:`mil._distance_engine.minima_strips`), so only the bags x bags result and
one strip are held, never M. MILES holds M (its inner folds slice it) and
builds each embedding from it a block of concepts at a time, straight into
the C-ordered array its SVM reads; the median heuristic selects its order
statistics without a copy of M.
"""

import numpy as np

from mil._distance_engine import minima_from_bags, minima_strips
from mil.bags import Bags
from mil.utils._docstrings import register
from mil.utils._segments import bag_rows

__all__ = ["DISSIMILARITIES", "bag_dissimilarities", "miles_block_features", "miles_features", "median_sigma",
           "minima", "sorted_values"]

#: Bag dissimilarities offered by :class:`~mil.embedding.BagDissimilarityEmbedding`.
DISSIMILARITIES = ("meanmin", "minmin", "maxmin", "hausdorff", "average")

register("chen2006", """\
    References
    ----------
    Y. Chen, J. Bi and J. Z. Wang, "MILES: Multiple-instance learning via
    embedded instance selection", IEEE Transactions on Pattern Analysis and
    Machine Intelligence 28(12), 2006.
""")
register("cheplygina2015", """\
    References
    ----------
    V. Cheplygina, D. M. J. Tax and M. Loog, "Multiple instance learning
    with bag dissimilarities", Pattern Recognition 48(1), 2015.
""")


def minima(rows, cols=None, *, both=False, centre=None, n_jobs=None, root=False):
    """M between validated dense Bags (`cols` None: symmetric train-vs-train); `root`: sqrt(M), exact
    over the whole float64 range (see :func:`mil._distance_engine.minima_from_bags`)."""
    return minima_from_bags(rows, cols, both=both, n_jobs=n_jobs, centre=centre, root=root)


def miles_features(M_concepts_bags, sigma):
    """The MILES embedding ``exp(-M / sigma**2)``, one row per bag (M: concepts x bags)."""
    return np.exp(-M_concepts_bags.T / (sigma * sigma))


#: Bytes of M turned into features at a time by :func:`miles_block_features`.
_BLOCK_BYTES = 2**25


def miles_block_features(M, sigma, rows=None, cols=None, mean=None, centred=True, order="C"):
    """The MILES embedding of a slice of M, one C-ordered row per bag, built a block of concepts at a time.

    The features of the concepts `rows` (None: every row of M) on the bags
    `cols` (None: every column), ``exp(-M[rows][:, cols].T / sigma**2)``,
    the same values as :func:`miles_features` on the slice, without its
    copies of the slice and its temporaries: the memory is the result and
    one block. `centred`: minus `mean` (None: the columns' means over these
    bags, returned with the features), as :class:`MILESClassifier` feeds its
    SVM; liblinear reads C-ordered rows, so it takes the result without a
    copy of its own (besides its sparse form). `order="F"`: the layout of
    :func:`miles_features`'s result (a product with it rounds as that one's).
    """
    n_c = M.shape[0] if rows is None else rows.shape[0]
    n_b = M.shape[1] if cols is None else cols.shape[0]
    F = np.empty((n_b, n_c)) if order == "C" else np.empty((n_c, n_b)).T
    if centred and mean is None:
        mean = np.empty(n_c)
        fill_mean = True
    else:
        fill_mean = False
    s2 = sigma * sigma
    step = max(1, _BLOCK_BYTES // (8 * max(M.shape[1], 1)))
    for c0 in range(0, n_c, step):
        c1 = min(c0 + step, n_c)
        if rows is None:
            block = M[c0:c1] if cols is None else M[c0:c1, cols]
        else:
            block = M[rows[c0:c1]] if cols is None else M[np.ix_(rows[c0:c1], cols)]
        # Bags along the rows of an F-ordered block: the means add the bags one after another, as
        # the mean over the rows of a C-ordered embedding does (the same last bits).
        G = np.negative(block, order="F")
        G /= s2
        np.exp(G, out=G)
        if centred:
            if fill_mean:
                mean[c0:c1] = G.mean(axis=1)
            G -= mean[c0:c1, None]
        F[:, c0:c1] = G.T
    return (F, mean) if centred else F


def median_sigma(M, own=None):
    """Median heuristic: ``sqrt(median(M))`` over the entries of instances against other bags.

    `own` (optional) is the bag index of each row; entries of a row against
    its own bag (always 0) are left out. Falls back to 1 when the median is 0.
    The median is exact (the value ``np.median`` gives) and takes no copy of
    M (:func:`sorted_values`).
    """
    excluded = None if own is None else M[np.arange(M.shape[0]), own]
    n = M.size - (0 if excluded is None else excluded.size)
    if n == 0:
        return 1.0
    ranks = [(n - 1) // 2, n // 2]
    a, b = sorted_values(M, ranks, excluded)
    med = float(np.mean(np.array([a, b]))) if n % 2 == 0 else float(a)
    return float(np.sqrt(med)) if med > 0 else 1.0


def _keys(values):
    """Unsigned keys in the order of the non-negative floats `values` (-0 as +0)."""
    return (np.asarray(values, dtype=np.float64) + 0.0).view(np.uint64)


def _digit(keys, shift):
    """The 16 bits of `keys` above `shift`, as intp (NumPy 1.23's bincount refuses uint64)."""
    return ((keys >> shift) & np.uint64(0xFFFF)).astype(np.intp)


def sorted_values(M, ranks, excluded=None, *, cap=2**22, chunk_bytes=2**23):
    """Entries at positions `ranks` (0-based) of the sorted entries of the non-negative M, leaving out
    the multiset `excluded` (a sub-multiset of M's entries), exactly, without sorting a copy of M.

    Radix selection on the float64 bit patterns (their order is the
    values' for non-negative numbers): a pass over row chunks of M counts
    the entries by their next 16 bits, among those that share the bits
    fixed so far, until the bucket holding the rank has at most `cap`
    entries, which are then gathered and sorted. Memory: one chunk, the
    65 536 counts and at most `cap` candidates.
    """
    step = max(1, chunk_bytes // (8 * max(M.shape[1], 1)))
    ex = _keys(np.zeros(0) if excluded is None else excluded).ravel()

    def matching(keys, prefix, bits):
        return keys if bits == 0 else keys[(keys >> np.uint64(64 - bits)) == np.uint64(prefix)]

    def over_M(prefix, bits):
        for r0 in range(0, M.shape[0], step):
            yield matching(_keys(M[r0:r0 + step]).ravel(), prefix, bits)

    out = [None] * len(ranks)
    pending = {i: (0, 0, int(k)) for i, k in enumerate(ranks)}  # rank -> (prefix, bits fixed, rank left)
    while pending:
        groups = {}
        for i, (prefix, bits, _) in pending.items():  # ranks in one bucket share the passes
            groups.setdefault((prefix, bits), []).append(i)
        for (prefix, bits), members in groups.items():
            shift = np.uint64(64 - bits - 16)
            counts = np.zeros(1 << 16, dtype=np.int64)
            for keys in over_M(prefix, bits):
                counts += np.bincount(_digit(keys, shift), minlength=1 << 16)
            counts -= np.bincount(_digit(matching(ex, prefix, bits), shift), minlength=1 << 16)
            cum = np.cumsum(counts)
            gather = {}
            for i in members:
                k = pending.pop(i)[2]
                c = int(np.searchsorted(cum, k, side="right"))
                k -= int(cum[c - 1]) if c else 0
                sub = (prefix << 16) | c
                if bits + 16 == 64:  # every bit fixed: the key is the value
                    out[i] = float(np.array([sub], dtype=np.uint64).view(np.float64)[0])
                elif counts[c] <= cap:
                    gather.setdefault(sub, []).append((i, k))
                else:
                    pending[i] = (sub, bits + 16, k)
            for sub, wanted in gather.items():
                values = np.sort(np.concatenate(list(over_M(sub, bits + 16))))
                drop = np.sort(matching(ex, sub, bits + 16))
                # the k-th of values minus drop: the first value with more than k of them at or below it
                below = np.arange(1, values.size + 1) - np.searchsorted(drop, values, side="right")
                for i, k in wanted:
                    out[i] = float(values[int(np.argmax(below > k))].view(np.float64))
    return out


def bag_dissimilarities(rows, cols=None, kind="meanmin", *, centre=None, n_jobs=None, strip_bytes=None):
    """Dissimilarities of the validated dense Bags `rows` to `cols` (None: to themselves), from one pass.

    Euclidean, as in Cheplygina, Tax and Loog (2015), reductions of the
    distance from each instance to the nearest instance of the other bag:
    ``meanmin``: its mean over a bag's instances; ``minmin``: the minimum
    (minimal Hausdorff); ``maxmin``: the maximum (directed Hausdorff
    h(A, B)); ``hausdorff``: ``max(h(A, B), h(B, A))``; ``average``: the
    average Hausdorff distance (the mean over both bags' instances).

    The instance-to-bag distances come in strips of row bags
    (:func:`mil._distance_engine.minima_strips`, at most about `strip_bytes` a
    strip) and are reduced into the result as they come: the memory is the
    bags x bags result and one strip, never the instances x bags minima.
    They come as roots, so every dissimilarity is within the relative
    bound of :mod:`mil.distances` of its exact value, whatever the
    magnitude of the features (from subnormal to the float64 maximum); a
    distance beyond the float64 maximum raises a ValueError.
    """
    if kind not in DISSIMILARITIES:
        raise ValueError(f"dissimilarity must be one of {DISSIMILARITIES}; got {kind!r}")
    two_way = kind in ("hausdorff", "average")
    reduce = {"meanmin": np.add, "minmin": np.minimum, "maxmin": np.maximum, "hausdorff": np.maximum,
              "average": np.add}[kind]
    off = rows.offsets
    D = np.empty((rows.n_bags, rows.n_bags if cols is None else cols.n_bags))
    for r0, r1, square, xy, yx in minima_strips(rows, cols, both=two_way, centre=centre, n_jobs=n_jobs,
                                                 root=True, strip_bytes=strip_bytes):
        strip = off[r0:r1 + 1] - off[r0]
        if cols is None:  # the strip against itself, the later bags, and the later bags against it
            D[r0:r1, r0:r1] = reduce.reduceat(square, strip[:-1], axis=0)
            if r1 < rows.n_bags:
                D[r0:r1, r1:] = reduce.reduceat(xy, strip[:-1], axis=0)
                D[r1:, r0:r1] = reduce.reduceat(yx, off[r1:-1] - off[r1], axis=0)
            continue
        D[r0:r1] = reduce.reduceat(xy, strip[:-1], axis=0)
        if two_way:
            other = reduce.reduceat(yx, cols.offsets[:-1], axis=0).T
            if kind == "hausdorff":
                np.maximum(D[r0:r1], other, out=D[r0:r1])
            else:
                D[r0:r1] = (D[r0:r1] + other) / np.add.outer(np.diff(strip), np.diff(cols.offsets))
    if kind == "meanmin":
        D /= np.diff(off)[:, None]
    elif two_way and cols is None:
        _symmetrised(D, kind, np.diff(off))
    return D


def _symmetrised(D, kind, sizes, block=1024):
    """In place, D (directed maxima or sums, bag by bag) to ``max(D, D.T)`` (hausdorff) or
    ``(D + D.T) / (n_i + n_j)`` (average), a block pair at a time."""
    n = D.shape[0]
    for a in range(0, n, block):
        for b in range(a, n, block):
            upper, lower = D[a:a + block, b:b + block], D[b:b + block, a:a + block]
            if kind == "hausdorff":
                value = np.maximum(upper, lower.T)
            else:
                value = (upper + lower.T) / np.add.outer(sizes[a:a + block], sizes[b:b + block])
            D[a:a + block, b:b + block] = value
            D[b:b + block, a:a + block] = value.T


def subset(bags, index):
    """The bags `index` of validated Bags, as Bags (dense)."""
    rows = bag_rows(bags.offsets, index)
    sizes = np.diff(bags.offsets)[index]
    return Bags._trusted(bags.instances[rows], np.r_[0, np.cumsum(sizes)].astype(np.intp))


def one_bag(points):
    """An instance matrix as a single bag (rows of M are instances whatever the bags)."""
    points = np.ascontiguousarray(points, dtype=np.float64)
    return Bags._trusted(points, np.array([0, points.shape[0]], dtype=np.intp))
