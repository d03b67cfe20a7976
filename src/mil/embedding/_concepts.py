"""Concepts and prototypes of the MILES and MInD embeddings, shared by the transformers and the classifiers.

MILES's concepts are every training instance or k-means centres of them
(:func:`concepts_for` says which); MInD's prototypes are every training bag
or a seeded draw of them. k-means runs on the instances in lexicographic
order, so its centres do not depend on the order of the bags or of their
instances; the callers draw its seed and the prototypes' from
``random_state`` apart from every other draw.
"""

import numpy as np
from sklearn.utils.validation import check_random_state

from mil._scaling import apply_scaling, row_blocks, scaled_rows
from mil.bags import Bags, float64_bags
from mil.embedding._minima import minima, one_bag
from mil.embedding._vectors import lexicographic_order

#: With ``n_concepts="auto"``, above this many training instances MILES's concepts are
#: ``AUTO_CONCEPTS`` k-means centres instead of every instance.
AUTO_CONCEPTS_ABOVE = 10_000
AUTO_CONCEPTS = 1_000


def concepts_for(n_concepts, n_instances):
    """The k-means centres MILES uses for `n_concepts` on `n_instances` training
    instances (None: every instance is a concept)."""
    if isinstance(n_concepts, str):  # "auto"
        return AUTO_CONCEPTS if n_instances > AUTO_CONCEPTS_ABOVE else None
    return n_concepts


def concept_minima(bags, n_concepts, *, center, seed, n_jobs=None, offset=None, scale=None):
    """MILES's concepts and its one distance pass.

    Parameters
    ----------
    bags : Bags
        The training bags, scaled by `offset` and `scale` when given
        (:func:`mil._scaling.scaled_rows`). With k-means centres the bags are
        read a block of rows at a time: float32 bags (a memory map) are never
        copied whole into float64 besides the ordered table k-means reads.
    n_concepts : "auto", int or None
        See :func:`concepts_for`.
    center : ndarray of shape (n_features,)
        The scaled training instances' mean (the distance kernel's centring).
    seed : int
        k-means' seed.
    n_jobs : int or None
    offset, scale : ndarray of shape (n_features,) or None

    Returns
    -------
    concepts : ndarray of shape (n_concepts, n_features)
        The scaled training instances in lexicographic order, or k-means centres of them.
    n_centres : int or None
        The number of centres (None: every instance is a concept).
    M : ndarray of shape (n_concepts, n_bags)
        Squared distances from each concept to the nearest instance of each bag.
    own : ndarray of int or None
        Each concept's own bag (None for centres).
    """
    n_centres = concepts_for(n_concepts, bags.instances.shape[0])
    if n_centres is None:
        bags = float64_bags(apply_scaling(bags, offset, scale))
        # In lexicographic order: a model on the embedding (liblinear's coordinate descent
        # visits its columns in a seeded order) does not depend on the instances' order.
        order = lexicographic_order(bags.instances)
        M = minima(bags, centre=center, n_jobs=n_jobs)[order]
        return bags.instances[order], None, M, np.repeat(np.arange(bags.n_bags), np.diff(bags.offsets))[order]
    # The rows as given sort as the scaled rows do (the scaling increases in every feature; a
    # rounding tie of two scaled values is broken by the values given), order-free either way.
    X = bags.instances
    order = lexicographic_order(X)
    ordered = np.empty(X.shape)
    for i, j in row_blocks(*X.shape):
        ordered[i:j] = scaled_rows(X[order[i:j]], offset, scale)
    concepts = kmeans_centres(ordered, n_centres, seed, ordered=True)
    del ordered
    return concepts, int(concepts.shape[0]), minima_to_bags(concepts, bags, offset, scale, center, n_jobs), None


def minima_to_bags(points, bags, offset, scale, center, n_jobs):
    """M of the points (rows) against the scaled bags, a strip of bags of about a block of rows
    (:func:`mil._scaling.row_blocks`) at a time: each bag's column is the one a single pass of the
    compiled kernel gives (the NumPy twin's to rounding)."""
    M = np.empty((points.shape[0], bags.n_bags))
    off = bags.offsets
    step = row_blocks(*bags.instances.shape)[0][1] or 1  # rows a strip
    b0, rows = 0, one_bag(points)
    while b0 < bags.n_bags:
        # at least one bag a strip, then whole bags while the strip holds at most `step` rows
        b1 = max(b0 + 1, int(np.searchsorted(off, off[b0] + step, side="right")) - 1)
        strip = Bags._trusted(scaled_rows(bags.instances[off[b0]:off[b1]], offset, scale), off[b0:b1 + 1] - off[b0])
        M[:, b0:b1] = minima(rows, strip, centre=center, n_jobs=n_jobs)
        b0 = b1
    return M


def prototype_indices(n_bags, n_prototypes, seed):
    """The prototype bags of MInD: every bag, or `n_prototypes` of them drawn with `seed`, in order."""
    if n_prototypes is None or n_prototypes >= n_bags:
        return np.arange(n_bags)
    return np.sort(np.random.RandomState(seed).choice(n_bags, n_prototypes, replace=False))


#: Above this many training instances the concepts come from mini-batch k-means.
FULL_KMEANS_MAX = 10000


def kmeans_centres(instances, n_concepts, random_state, *, ordered=False):
    """`n_concepts` k-means centres of the instances (mini-batch k-means on large data).

    The instances are taken in lexicographic order (`ordered`: they already
    are), so the centres do not depend on the order in which they came.

    Lloyd's k-means (scikit-learn's ``KMeans``) costs instances x concepts per
    iteration; above ``FULL_KMEANS_MAX`` instances ``MiniBatchKMeans``
    (D. Sculley, "Web-scale k-means clustering", WWW 2010) does it on batches
    of 2048 instances (timings: ``benchmarks/bench_embeddings.py
    --growth-concepts`` and the embeddings results page).
    """
    from sklearn.cluster import KMeans, MiniBatchKMeans

    n = min(n_concepts, instances.shape[0])
    rng = check_random_state(random_state)
    if not ordered:
        instances = np.asarray(instances, dtype=np.float64)
        instances = instances[lexicographic_order(instances)]
    if instances.shape[0] <= FULL_KMEANS_MAX:
        km = KMeans(n_clusters=n, n_init=1, random_state=rng)
    else:
        km = MiniBatchKMeans(n_clusters=n, n_init=1, batch_size=2048, random_state=rng)
    return np.ascontiguousarray(km.fit(instances).cluster_centers_)
