"""Bags shaped like foundation-model patch embeddings, with known witness instances."""

import os

import numpy as np
from sklearn.utils import Bunch, check_random_state

from mil.bags import Bags
from mil.datasets._checks import float_dtype, positive_int, real_number, share_range, size_range
from mil.datasets._sink import InstanceSink
from mil.utils._seeds import SEED_MAX

__all__ = ["make_foundation_bags"]


def _orthonormal_rows(rng, n_rows, n_cols):
    """An (n_rows, n_cols) matrix with orthonormal rows (a random isometry of R^n_rows into R^n_cols)."""
    q, r = np.linalg.qr(rng.standard_normal((n_cols, n_rows)))
    return (q * np.sign(np.diag(r))).T


def make_foundation_bags(n_bags=200, *, n_features=768, bag_sizes=(500, 1500), intrinsic_dim=32,
                         witness_share=(0.02, 0.10), n_clusters=8, separation=3.0, noise=0.1,
                         dtype=np.float32, random_state=None, memmap=None):
    """Bags shaped like foundation-model patch embeddings, with known witness instances.

    A synthetic stand-in for whole-slide images encoded patch by patch by a
    pretrained network (hundreds to thousands of patches of 512-1024
    features each): a bag is a slide, an instance a patch's embedding, and a
    positive bag holds a small share of witness patches (the lesion). The
    recipe:

    1. **Latent instances.** ``n_clusters`` background concepts (tissue
       types) have centres drawn from N(0, 9 I) in ``intrinsic_dim``
       dimensions; each bag draws its own mixture weights over them from a
       flat Dirichlet (slides differ in composition), and each background
       instance is its concept's centre plus N(0, I) noise.
    2. **Witnesses.** The witness concept is one background concept's centre
       moved by ``separation`` (in units of the within-concept standard
       deviation) along a random unit direction: a witness looks like its
       parent tissue, shifted. A positive bag of n instances holds
       ``max(1, round(s * n))`` witnesses, s drawn uniformly from
       ``witness_share``, at random positions; a negative bag holds none.
       The best instance-level rule (the optimal linear one along that
       direction) thus tells a witness from its parent concept with an AUC
       of Phi(separation / sqrt(2)) (0.983 at 3), not 1.
    3. **Embedding.** Latent instances are mapped into ``n_features``
       dimensions by a random isometry (orthonormal rows), shifted by a
       random offset (each feature's mean drawn from N(0, 1)), plus
       N(0, ``noise ** 2``) ambient noise on every feature: the
       instances have intrinsic dimension ``intrinsic_dim`` up to that noise.

    Half the bags are positive (the larger half for an odd ``n_bags``), in a
    random order; bag sizes are uniform in ``bag_sizes``. The structure
    (centres, witness direction, isometry, offset, labels, sizes) comes from
    `random_state`; each bag's instances come from its own generator seeded
    from it, so the same seed gives the same bags with or without a memory
    map.

    Parameters
    ----------
    n_bags : int, default=200
    n_features : int, default=768
        Dimension of the embedding (at least ``intrinsic_dim``).
    bag_sizes : int or (int, int), default=(500, 1500)
        Instances per bag: a fixed number, or the inclusive range of a
        uniform draw.
    intrinsic_dim : int, default=32
        Dimension of the latent space the instances are drawn in.
    witness_share : float or (float, float), default=(0.02, 0.10)
        Share of a positive bag's instances that are witnesses (a fixed
        share, or the range of a uniform draw per bag).
    n_clusters : int, default=8
        Number of background concepts.
    separation : float, default=3.0
        Distance of the witness concept from its parent concept, in units of
        the within-concept standard deviation.
    noise : float, default=0.1
        Standard deviation of the ambient noise added to every feature.
    dtype : {numpy.float32, numpy.float64}, default=numpy.float32
    random_state : int, RandomState instance or None, default=None
    memmap : None, True, str or path-like, default=None
        Write the instance matrix to this ``.npy`` file (created or
        overwritten) bag by bag and return bags backed by a read-only memory
        map of it, so that data larger than memory (2,000 bags x 1,000 x 768
        float32 is 6 GB) never sits in RAM; True: a temporary file, deleted
        when the bags are no longer used. None: an in-memory array.

    Returns
    -------
    data : Bunch
        ``bags`` (a :class:`~mil.Bags` of `dtype` instances; ``data`` is the
        same object), ``target`` (int, 1 = positive), ``instance_labels``
        (int8 of shape (n_instances,), 1 = witness, in the order of
        ``bags.instances``), ``witness_counts`` (witnesses per bag),
        ``memmap`` (the file's path or None) and ``DESCR``.

    See Also
    --------
    make_digit_bags : small bags of real images labelled by an assumption.

    References
    ----------
    M. Y. Lu, D. F. K. Williamson, T. Y. Chen, R. J. Chen, M. Barbieri and
    F. Mahmood, "Data-efficient and weakly supervised computational
    pathology on whole-slide images", Nature Biomedical Engineering 5, 2021
    (per-slide bags of patch embeddings).

    Examples
    --------
    >>> from mil.datasets import make_foundation_bags
    >>> d = make_foundation_bags(10, n_features=64, bag_sizes=(50, 100), random_state=0)
    >>> d.bags.n_bags, d.bags.n_features, d.bags.instances.dtype
    (10, 64, dtype('float32'))
    >>> int(d.target.sum()), bool((d.witness_counts[d.target == 0] == 0).all())
    (5, True)
    """
    n_bags = positive_int(n_bags, "n_bags", 2)
    n_features = positive_int(n_features, "n_features")
    intrinsic_dim = positive_int(intrinsic_dim, "intrinsic_dim")
    n_clusters = positive_int(n_clusters, "n_clusters")
    if intrinsic_dim > n_features:
        raise ValueError(f"intrinsic_dim ({intrinsic_dim}) must be at most n_features ({n_features})")
    low, high = size_range(bag_sizes, "bag_sizes")
    share_low, share_high = share_range(witness_share, "witness_share")
    separation = real_number(separation, "separation", 0.0)
    noise = real_number(noise, "noise", 0.0)
    dtype = float_dtype(dtype)

    rng = check_random_state(random_state)
    centres = 3.0 * rng.standard_normal((n_clusters, intrinsic_dim))
    parent = int(rng.randint(n_clusters))
    direction = rng.standard_normal(intrinsic_dim)
    direction /= np.linalg.norm(direction)
    witness_centre = centres[parent] + float(separation) * direction
    isometry = _orthonormal_rows(rng, intrinsic_dim, n_features)
    offset = rng.standard_normal(n_features)
    target = rng.permutation(np.arange(n_bags) < (n_bags + 1) // 2).astype(np.int64)
    sizes = rng.randint(low, high + 1, size=n_bags)
    shares = rng.uniform(share_low, share_high, size=n_bags)
    n_witness = np.where(target == 1, np.maximum(1, np.rint(shares * sizes)), 0).astype(np.int64)
    n_witness = np.minimum(n_witness, sizes)
    seeds = rng.randint(SEED_MAX, size=n_bags)

    offsets = np.zeros(n_bags + 1, dtype=np.intp)
    np.cumsum(sizes, out=offsets[1:])
    sink = InstanceSink(int(offsets[-1]), n_features, dtype, memmap)
    instance_labels = np.zeros(int(offsets[-1]), dtype=np.int8)
    for b in range(n_bags):
        gen = np.random.default_rng(int(seeds[b]))
        size, k = int(sizes[b]), int(n_witness[b])
        weights = gen.dirichlet(np.ones(n_clusters))
        concept = gen.choice(n_clusters, size=size, p=weights)
        latent = centres[concept] + gen.standard_normal((size, intrinsic_dim))
        witness = np.zeros(size, dtype=bool)
        witness[gen.choice(size, size=k, replace=False)] = True
        latent[witness] = witness_centre + gen.standard_normal((k, intrinsic_dim))
        block = gen.standard_normal((size, n_features), dtype=dtype)
        block *= dtype.type(noise)
        block += (latent @ isometry + offset).astype(dtype)
        lo = int(offsets[b])
        sink.put(lo, block)
        instance_labels[lo:lo + size] = witness
    bags = Bags(sink.finish(), offsets)
    descr = (f"Foundation-model shaped bags\n\n{n_bags} bags ({int(target.sum())} positive) of {low}-{high} "
             f"instances ({int(offsets[-1])} in all) x {n_features} {dtype.name} features; latent "
             f"dimension {intrinsic_dim}, {n_clusters} background concepts, {share_low:g}-{share_high:g} "
             f"witness share in positive bags (witness separation {separation:g}, ambient noise {noise:g}).\n")
    return Bunch(data=bags, bags=bags, target=target, instance_labels=instance_labels,
                 witness_counts=n_witness, memmap=None if memmap is None or memmap is True else os.fspath(memmap),
                 DESCR=descr)
