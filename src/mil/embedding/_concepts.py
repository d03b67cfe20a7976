"""Concepts and prototypes of the MILES and MInD embeddings, shared by the transformers and the classifiers.

MILES's concepts are every training instance or k-means centres of them
(:func:`concepts_for` says which); MInD's prototypes are every training bag
or a seeded draw of them.
"""

import numpy as np
from sklearn.utils.validation import check_random_state

from mil.embedding._minima import bag_dissimilarities, minima, one_bag, subset

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


def concept_minima(est, bags):
    """Set ``est.concepts_`` (the scaled training instances, or k-means centres of them,
    :func:`concepts_for`) and ``est.n_concepts_``, and return M (concepts x bags) with each
    concept's own bag (None for centres): MILES's one distance pass, for the embedding and
    the classifier."""
    est.n_concepts_ = concepts_for(est.n_concepts, bags.instances.shape[0])
    if est.n_concepts_ is None:
        est.concepts_ = bags.instances
        M = minima(bags, centre=est.centre_, n_jobs=est.n_jobs)
        return M, np.repeat(np.arange(bags.n_bags), np.diff(bags.offsets))
    est.concepts_ = kmeans_centres(bags.instances, est.n_concepts_, est.random_state)
    return minima(one_bag(est.concepts_), bags, centre=est.centre_, n_jobs=est.n_jobs), None


def draw_prototypes(est, bags):
    """Set ``est.prototype_indices_`` (every bag, or ``est.n_prototypes`` drawn by
    ``est.random_state``) and ``est.prototypes_``."""
    index = np.arange(bags.n_bags)
    if est.n_prototypes is not None and est.n_prototypes < bags.n_bags:
        rng = check_random_state(est.random_state)
        index = np.sort(rng.choice(bags.n_bags, est.n_prototypes, replace=False))
    est.prototype_indices_ = index
    est.prototypes_ = subset(bags, index)
    return index


def dissimilarities_to(est, bags):
    """The dissimilarities (``est.dissimilarity``) of scaled `bags` to ``est.prototypes_``."""
    return bag_dissimilarities(bags, est.prototypes_, est.dissimilarity, centre=est.centre_, n_jobs=est.n_jobs)


#: Above this many training instances the concepts come from mini-batch k-means.
FULL_KMEANS_MAX = 10000


def kmeans_centres(instances, n_concepts, random_state):
    """`n_concepts` k-means centres of the instances (mini-batch k-means on large data).

    Lloyd's k-means (scikit-learn's ``KMeans``) costs instances x concepts per
    iteration and took most of MILES's time at 16 times Elephant (22 256
    instances, 1000 concepts; docs/results/embeddings.rst); above
    ``FULL_KMEANS_MAX`` instances ``MiniBatchKMeans`` (D. Sculley, "Web-scale
    k-means clustering", WWW 2010) does it on batches of 2048 instances
    (``benchmarks/bench_embeddings.py --growth-concepts``: 4x faster at 22 256
    instances, 1.3x slower at 5 564).
    """
    from sklearn.cluster import KMeans, MiniBatchKMeans

    n = min(n_concepts, instances.shape[0])
    rng = check_random_state(random_state)
    if instances.shape[0] <= FULL_KMEANS_MAX:
        km = KMeans(n_clusters=n, n_init=1, random_state=rng)
    else:
        km = MiniBatchKMeans(n_clusters=n, n_init=1, batch_size=2048, random_state=rng)
    return np.ascontiguousarray(km.fit(instances).cluster_centers_)
