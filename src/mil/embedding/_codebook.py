"""Codebook encodings of bags: VLAD (k-means) and Fisher vectors (Gaussian mixture).

Both follow Wei, Wu and Zhou's miVLAD and miFV ("Scalable algorithms for
multi-instance learning", IEEE TNNLS 2017): a codebook is learned on the
training instances, each bag is encoded by how its instances deviate from
the codewords, and the code is power- then L2-normalised for a linear
classifier. The per-bag sums are one pass over each chunk of bags:
residuals or weighted deviations of every instance, summed per bag (a sparse
bag-by-instance product), so a bag's row never depends on the other bags.

A sum within the rounding error of its terms, and of the codeword it is
taken against, is set to exactly 0 before the normalisation, which would
otherwise blow its sign, set by rounding, up to a full-size value. VLAD's
centres are recomputed after k-means as the accurately rounded means of
their clusters, so that this error is known: a bag whose residuals cancel
(an instance on its centre, instances symmetric about it) encodes to 0 at
every scale of the same data. A bag far from the training instances (its
squared deviations beyond the float64 range) is summed in units of a power
of two, which the normalisation removes.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from mil.base import keep_params
from mil.embedding._concepts import kmeans_centres
from mil.embedding._encoding import (FAR_EXPONENT, COMMON_CONSTRAINTS, BagEncoder, bag_exponents, bag_sums,
                                    normalize_rows)
from mil.embedding._vectors import accurate_column_sums
from mil.utils._docstrings import fill_doc, register

__all__ = ["VLADEmbedding", "FisherVectorEmbedding", "nearest_centers"]

_NORMALIZATION = {
    "power": [Interval(Real, 0, 1, closed="right")],
    "normalize": [StrOptions({"l2", "intra"}), None],
}

_EPS = np.finfo(np.float64).eps

#: Rows of ambiguous instances whose distances to every centre are recomputed at a time.
_AMBIGUOUS_BLOCK = 2**20


def _too_few(n_samples, name, k):
    return ValueError(f"n_samples={n_samples} should be >= {name}={k}: the codebook needs at least as "
                      f"many training instances as codewords")


def _exact_sq_distances(z, C):
    """Exact squared distances (Python ints, in one common unit) from the point z to the rows of C."""
    values = np.vstack([z[None, :], C])
    mantissa, exponent = np.frexp(values)
    ints = (mantissa * 2.0 ** 53).astype(np.int64)
    exponent = exponent - 53
    nonzero = ints != 0
    base = int(exponent[nonzero].min()) if nonzero.any() else 0
    rows = [[int(m) << int(e - base) if m else 0 for m, e in zip(r, er)] for r, er in zip(ints, exponent)]
    return [sum((a - b) ** 2 for a, b in zip(rows[0], c)) for c in rows[1:]]


def nearest_centers(Z, C):
    """Index of the nearest row of `C` to each row of `Z`, ties to the lowest index, exactly.

    The distances come from the BLAS expansion ``|c|^2 - 2 z.c``; an instance
    whose best centres are within that expansion's rounding error of each
    other is decided again on ``sum (z - c)^2`` (rows scaled by a power of
    two, so nothing overflows), and, if still within rounding, on the exact
    squared distances in integer arithmetic. So an instance exactly midway
    between two centres goes to the lower one, whatever the rounding.

    Parameters
    ----------
    Z : ndarray of shape (n, d)
    C : ndarray of shape (k, d)

    Returns
    -------
    nearest : ndarray of intp of shape (n,)
    """
    step = max(1, _AMBIGUOUS_BLOCK // max(1, Z.shape[1] + C.shape[0]))
    if Z.shape[0] <= step and Z.dtype == np.float64:
        return _nearest_block(Z, C)
    nearest = np.empty(Z.shape[0], dtype=np.intp)
    for r0 in range(0, Z.shape[0], step):  # a block of float64 rows at a time
        nearest[r0:r0 + step] = _nearest_block(np.asarray(Z[r0:r0 + step], dtype=np.float64), C)
    return nearest


def _nearest_block(Z, C):
    n, d = Z.shape
    c2 = np.einsum("ij,ij->i", C, C)
    with np.errstate(over="ignore", invalid="ignore"):
        D = c2 - 2.0 * (Z @ C.T)
        nz = np.sqrt(np.einsum("ij,ij->i", Z, Z))
        err = (d + 4) * _EPS * np.square(nz[:, None] + np.sqrt(c2)[None, :])
    D[np.isnan(D)] = np.inf
    nearest = np.argmin(D, axis=1)
    rows = np.arange(n)
    with np.errstate(invalid="ignore"):
        reach = D[rows, nearest] + err[rows, nearest]
        close = ~(D - err > reach[:, None])
    ambiguous = np.flatnonzero(close.sum(axis=1) > 1)
    step = max(1, _AMBIGUOUS_BLOCK // max(1, C.size))
    for a0 in range(0, ambiguous.shape[0], step):
        amb = ambiguous[a0:a0 + step]
        z = Z[amb]
        top = np.maximum(np.abs(z).max(axis=1), np.abs(C).max())
        e = np.where(top > 0, np.frexp(top)[1], 0)
        diff = np.ldexp(z, -e[:, None])[:, None, :] - np.ldexp(C[None, :, :], -e[:, None, None])
        D2 = np.einsum("ikj,ikj->ik", diff, diff)
        D2[~close[amb]] = np.inf
        best = np.argmin(D2, axis=1)
        err2 = (d + 4) * _EPS * D2
        lo = D2[np.arange(amb.shape[0]), best] + err2[np.arange(amb.shape[0]), best]
        with np.errstate(invalid="ignore"):
            still = ~(D2 - err2 > lo[:, None]) & close[amb]
        nearest[amb] = best
        for i in np.flatnonzero(still.sum(axis=1) > 1):
            candidates = np.flatnonzero(still[i])
            exact = _exact_sq_distances(Z[amb[i]], C[candidates])
            nearest[amb[i]] = candidates[exact.index(min(exact))]
    return nearest


def _cluster_means(Z, labels, C):
    """Accurately rounded means of the clusters `labels` of `Z` (rows of C kept for empty clusters),
    and each mean's uncertainty per feature.

    The uncertainty counts the rounding of the mean and of its members (float32 members were
    scaled in float32: their own precision)."""
    centers = np.array(C, dtype=np.float64)
    eps = max(_EPS, float(np.finfo(Z.dtype).eps))
    slack = 2.0 * eps * np.abs(centers)
    order = np.argsort(labels, kind="stable")
    bounds = np.searchsorted(labels[order], np.arange(C.shape[0] + 1))
    block = max(1, 2**20 // max(1, Z.shape[1]))
    for k in range(C.shape[0]):
        members = order[bounds[k]:bounds[k + 1]]
        if members.shape[0] == 0:
            continue
        spread = np.zeros(Z.shape[1])
        # Rows in blocks, each block's sum accurate; the blocks' sums added accurately too.
        parts = []
        for r0 in range(0, members.shape[0], block):
            part = np.asarray(Z[members[r0:r0 + block]], dtype=np.float64)
            parts.append(accurate_column_sums(part))
            spread += np.abs(part).sum(axis=0)
        total = accurate_column_sums(np.array(parts))
        centers[k] = total / members.shape[0]
        # The mean is within an ulp of the exact mean of its members, which are themselves
        # the training values to within their rounding.
        slack[k] = 2.0 * eps * (np.abs(centers[k]) + spread / members.shape[0])
    return centers, slack


def _kmeans_initialisation(Z, k, rng, reg_covar):
    """Weights, means and diagonal precisions of the clusters of `Z` around k-means centres
    (scikit-learn's "kmeans" initialisation of a mixture), a block of rows at a time."""
    C = np.asarray(kmeans_centres(Z, k, rng, ordered=True), dtype=np.float64)
    labels = nearest_centers(Z, C)
    counts = np.bincount(labels, minlength=k) + 10 * _EPS
    step = max(1, 2**20 // max(1, Z.shape[1]))
    sums = np.zeros_like(C)
    for r0 in range(0, Z.shape[0], step):
        np.add.at(sums, labels[r0:r0 + step], np.asarray(Z[r0:r0 + step], dtype=np.float64))
    means = sums / counts[:, None]
    squares = np.zeros_like(C)
    for r0 in range(0, Z.shape[0], step):
        D = np.asarray(Z[r0:r0 + step], dtype=np.float64) - means[labels[r0:r0 + step]]
        np.add.at(squares, labels[r0:r0 + step], D * D)
    variances = squares / counts[:, None] + reg_covar
    # In the sample's dtype: a float64 parameter would make EM's products copy a float32 sample.
    return tuple(np.asarray(a, dtype=Z.dtype) for a in (counts / counts.sum(), means, 1.0 / variances))

register("wei2017", """\
    References
    ----------
    X.-S. Wei, J. Wu and Z.-H. Zhou, "Scalable algorithms for multi-instance
    learning", IEEE Transactions on Neural Networks and Learning Systems
    28(4), 2017.
""")


def _codebook_model_doc(cls):
    """The docstring of a model on a codebook encoder (miFV, miVLAD) after its description.

    ``cls._codebook`` is (the size parameter, what it counts, the encoder
    class, the other codebook model's See Also line); the model's module
    gives ``[instance outputs]``, ``[codebook model parameters]`` (the
    parameters after the size) and ``[examples]``.
    """
    size, what, encoder, sibling = cls._codebook
    return f"""    [instance outputs]

    Parameters
    ----------
    {size} : int or array-like of int, default=2
        {what}; a list is a grid for the inner CV (the first
        preferred at equal inner scores).
    [codebook model parameters]

    See Also
    --------
    {encoder.__name__} : The encoding alone, for any model.
    {sibling}

    [wei2017]

    [examples]
"""


register("codebook model", _codebook_model_doc)


def _see_also_doc(other):
    """See Also (`other`, then the two encoders of other kinds) and the reference to Wei et al. (2017)."""
    return f"""    See Also
    --------
    {other}
    KernelMeanEmbedding : Summed random features of the instances.
    SlicedWassersteinEmbedding : Quantiles of projected instances.

    [wei2017]
"""


@fill_doc(see_also=_see_also_doc("FisherVectorEmbedding : Soft assignments to a Gaussian mixture instead."))
class VLADEmbedding(BagEncoder):
    """VLAD encoding of bags: summed residuals to the nearest k-means centre (miVLAD).

    A k-means codebook ``c_1 .. c_K`` is learned on the training instances;
    bag B is encoded by, for every centre k, the sum of the residuals
    ``x - c_k`` of its instances whose nearest centre is ``c_k`` (ties to
    the lowest k), a vector of ``K * n_features`` values, then normalised:
    signed power ``sign(v) |v|^power`` then unit L2 norm (Wei, Wu and Zhou
    2017, after Jegou et al.'s VLAD). A linear classifier on the encoding is
    miVLAD.

    After k-means (scikit-learn's ``KMeans``, ``MiniBatchKMeans`` above
    10 000 sampled instances), each centre is replaced by the accurately
    rounded mean of the sampled instances nearest to it, so that a residual
    sum within the rounding of the centre and of the instances is exactly
    0: a bag whose residuals cancel encodes to 0 at every scale of the
    same data.

    Parameters
    ----------
    n_clusters : int, default=8
        Codebook size K (k-means centres).
    power : float in (0, 1], default=0.5
        Exponent of the signed power normalisation (1 switches it off).
    normalize : {"l2", "intra"} or None, default="l2"
        "l2": divide each bag's code by its L2 norm (a code of 0 stays 0).
        "intra": first scale each centre's block of the code to unit norm
        (Arandjelovic and Zisserman 2013), then the whole code. None: no
        normalisation (the code is in the scaled feature space's units).
    max_samples : int or None, default=100_000
        The codebook is learned on this many training instances drawn at
        random without replacement (all of them when there are fewer, or
        with None). Only the drawn rows of a memory-mapped
        :class:`~mil.Bags` are read.
    [encoder chunk parameters]
    random_state : int, RandomState or None, default=None
        Seeds the sample of instances and k-means (independent seeds drawn
        from it).

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        The codebook, in the scaled feature space.
    [encoder scaling attributes]
    n_samples_fit_ : int
        Number of instances the codebook was learned on.
    [encoder input attributes]

    [see also]
    H. Jegou, M. Douze, C. Schmid and P. Perez, "Aggregating
    local descriptors into a compact image representation", CVPR 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from mil.embedding import VLADEmbedding
    >>> bags = [np.array([[0.0], [1.0]]), np.array([[9.0], [11.0]])]
    >>> enc = VLADEmbedding(n_clusters=2, scale=None, random_state=0).fit(bags)
    >>> np.sort(enc.cluster_centers_.ravel() * enc.scale_)  # in the features' units
    array([ 0.5, 10. ])
    >>> E = enc.transform([np.array([[0.0], [2.0]])])
    >>> E[0, np.argsort(enc.cluster_centers_.ravel())].round(3)  # residual sum 1.0 at 0.5, none at 10
    array([1., 0.])
    """
    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        **_NORMALIZATION,
        **COMMON_CONSTRAINTS,
    }

    def __init__(self, n_clusters=8, *, power=0.5, normalize="l2", max_samples=100_000, scale="standard",
                 chunk_size=None, n_jobs=None, random_state=None):
        keep_params(self, locals())

    def _fit_instances(self, Z, rng):
        if Z.shape[0] < self.n_clusters:
            raise _too_few(Z.shape[0], "n_clusters", self.n_clusters)
        C = kmeans_centres(Z, self.n_clusters, rng, ordered=True)
        self.cluster_centers_, self._center_slack = _cluster_means(Z, nearest_centers(Z, C), C)
        self._n_features_out = self.n_clusters * Z.shape[1]

    def _floats_per_instance(self):
        return 7 * self.n_features_in_ + 3 * self.n_clusters

    def _far_hint(self):
        return "; with normalize='l2' or 'intra' its code is finite" if self.normalize is None else ""

    def assign(self, Z):
        """Index of the nearest centre of each (scaled) instance, ties to the lowest index, exactly.

        Parameters
        ----------
        Z : ndarray of shape (n_instances, n_features)
            Instances in the scaled feature space (``(x - offset_) / scale_``).

        Returns
        -------
        nearest : ndarray of intp of shape (n_instances,)
            The index of each instance's nearest row of ``cluster_centers_``.
        """
        return nearest_centers(np.asarray(Z, dtype=np.float64), self.cluster_centers_)

    def _encode(self, Z, offsets):
        C = self.cluster_centers_
        K, d = C.shape
        n_bags = offsets.shape[0] - 1
        nearest = self.assign(Z)
        R = Z - C[nearest]
        # What a residual is known to: its own rounding and its instance's, and its centre's.
        slack = np.abs(Z)
        slack += np.abs(R)
        slack *= 2.0 * _EPS
        slack += self._center_slack[nearest]
        per_bag, per_instance = bag_exponents(np.abs(R).max(axis=1) if d else np.zeros(Z.shape[0]), offsets)
        if per_bag.any():
            unit = np.ldexp(1.0, -per_instance)[:, None]
            R *= unit
            slack *= unit
        # Residuals summed per (bag, centre): a bag's instances in (centre, position) order
        # make the rows of a membership matrix with one row per (bag, centre).
        cell = np.repeat(np.arange(n_bags) * K, np.diff(offsets)) + nearest
        order = np.argsort(cell, kind="stable")
        starts = np.zeros(n_bags * K + 1, dtype=np.intp)
        np.cumsum(np.bincount(cell, minlength=n_bags * K), out=starts[1:])
        V = bag_sums(R[order], starts, cancel=True, slack=slack[order]).reshape(n_bags, K * d)
        normalize_rows(V, self.power, self.normalize, K)
        if self.normalize is None and per_bag.any():
            with np.errstate(over="ignore"):
                V *= np.exp2(per_bag * float(self.power))[:, None]
        return V


@fill_doc(see_also=_see_also_doc("VLADEmbedding : Hard assignments to a k-means codebook instead."))
class FisherVectorEmbedding(BagEncoder):
    """Fisher vector encoding of bags under a diagonal Gaussian mixture (miFV).

    A Gaussian mixture with diagonal covariances (weights ``pi_k``, means
    ``mu_k``, standard deviations ``sigma_k``) is fitted on the training
    instances (scikit-learn's ``GaussianMixture``); bag B of ``T`` instances
    with posteriors ``q_tk`` is encoded by the normalised gradients of its
    log-likelihood with respect to the means and the standard deviations
    (Perronnin, Sanchez and Mensink 2010), for every component k and feature
    j:

    ``u_kj = sum_t q_tk (x_tj - mu_kj) / sigma_kj / (T sqrt(pi_k))``,
    ``v_kj = sum_t q_tk ((x_tj - mu_kj)^2 / sigma_kj^2 - 1) / (T sqrt(2 pi_k))``,

    stacked as ``[u_1, ..., u_K, v_1, ..., v_K]`` (``2 K n_features``
    values), then signed power ``sign(v) |v|^power`` and unit L2 norm. A
    linear classifier on the encoding is Wei, Wu and Zhou's miFV.

    The posteriors are computed from the standardised deviations
    ``(x - mu_k) / sigma_k`` directly, and an instance whose deviations
    exceed about 1e144 standard deviations is taken in units of a power of
    two, so that a bag far from the training instances gets a finite code
    (with ``normalize=None``, a clear error if the code itself exceeds the
    float64 range).

    Parameters
    ----------
    n_components : int, default=2
        Number of mixture components K.
    power : float in (0, 1], default=0.5
        Exponent of the signed power normalisation (1 switches it off).
    normalize : {"l2", "intra"} or None, default="l2"
        "l2": divide each bag's code by its L2 norm. "intra": first scale
        each block (one component's mean part, one component's deviation
        part) to unit norm, then the whole code. None: no normalisation.
    reg_covar : float >= 0, default=1e-6
        Added to the variances (``GaussianMixture``'s), in the scaled
        feature space.
    max_iter : int, default=100
        EM iterations of the mixture.
    max_samples : int or None, default=100_000
        The mixture is fitted on this many training instances drawn at random
        without replacement (all of them when there are fewer, or with None).
    [encoder chunk parameters]
    random_state : int, RandomState or None, default=None
        Seeds the sample of instances and the mixture's initialisation
        (independent seeds drawn from it).

    Attributes
    ----------
    mixture_ : sklearn.mixture.GaussianMixture
        The fitted mixture (``weights_``, ``means_``, ``covariances_``), in
        the scaled feature space.
    n_iter_ : int
        EM iterations the mixture took.
    [encoder scaling attributes]
    n_samples_fit_ : int
        Number of instances the mixture was fitted on.
    [encoder input attributes]

    [see also]
    F. Perronnin, J. Sanchez and T. Mensink, "Improving the
    Fisher kernel for large-scale image classification", ECCV 2010.

    [rng examples]
    >>> bags = [rng.normal(size=(5, 3)) for _ in range(10)]
    >>> enc = FisherVectorEmbedding(n_components=2, random_state=0).fit(bags)
    >>> enc.transform(bags).shape  # 2 components x 3 features x (means, deviations)
    (10, 12)
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        **_NORMALIZATION,
        "reg_covar": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        **COMMON_CONSTRAINTS,
    }

    def __init__(self, n_components=2, *, power=0.5, normalize="l2", reg_covar=1e-6, max_iter=100,
                 max_samples=100_000, scale="standard", chunk_size=None, n_jobs=None, random_state=None):
        keep_params(self, locals())

    def _fit_instances(self, Z, rng):
        from sklearn.mixture import GaussianMixture

        if Z.shape[0] < self.n_components:
            raise _too_few(Z.shape[0], "n_components", self.n_components)
        # The k-means initialisation of GaussianMixture (hard assignments to k-means centres give
        # the weights, means and variances), from the memory-light k-means of the encoders, so
        # that the fit holds no copy of the sample beyond EM's own temporaries.
        weights, means, precisions = _kmeans_initialisation(Z, self.n_components, rng, self.reg_covar)
        self.mixture_ = GaussianMixture(self.n_components, covariance_type="diag", reg_covar=self.reg_covar,
                                        max_iter=self.max_iter, random_state=rng, init_params="random_from_data",
                                        weights_init=weights, means_init=means, precisions_init=precisions).fit(Z)
        self.n_iter_ = self.mixture_.n_iter_
        self._n_features_out = 2 * self.n_components * Z.shape[1]

    def _floats_per_instance(self):
        return (2 * self.n_components + 2) * self.n_features_in_ + 5 * self.n_components

    def _far_hint(self):
        return "; with normalize='l2' or 'intra' its code is finite" if self.normalize is None else ""

    def _posteriors(self, W, exponent):
        """Posteriors q_tk from the standardised deviations W (n, K, d) given in units of
        ``2**exponent`` per instance (the log-likelihood's quadratic term taken exactly there)."""
        gmm = self.mixture_
        M = np.einsum("nkd,nkd->nk", W, W)
        M -= M.min(axis=1, keepdims=True)
        if exponent.any():
            with np.errstate(over="ignore"):
                M = np.ldexp(M, 2 * exponent[:, None])
        L = np.log(gmm.weights_) - 0.5 * np.log(gmm.covariances_).sum(axis=1) - 0.5 * M
        L -= L.max(axis=1, keepdims=True)
        np.exp(L, out=L)
        L /= L.sum(axis=1, keepdims=True)
        return L

    def _encode(self, Z, offsets):
        gmm = self.mixture_
        K, d = gmm.means_.shape
        n = Z.shape[0]
        # Per instance and component: the standardised deviation w and w^2 - 1, weighted by the posterior.
        T = np.empty((n, 2, K, d))
        W = T[:, 1]
        np.subtract(Z[:, None, :], gmm.means_, out=W)
        W /= np.sqrt(gmm.covariances_)
        top = np.abs(W).reshape(n, -1).max(axis=1) if K * d else np.zeros(n)
        far = top > 2.0 ** FAR_EXPONENT
        own = np.zeros(n, dtype=np.intp)
        own[far] = np.frexp(top[far])[1]
        if far.any():
            W[far] = np.ldexp(W[far], -own[far][:, None, None])
        Q = self._posteriors(W, own)[:, :, None]
        per_bag, per_instance = bag_exponents(top, offsets)
        if per_bag.any():
            # A far bag's terms in units of 4**e (e its own exponent): u = w / 2**e, then
            # q w / 4**e = q u / 2**e and q (w^2 - 1) / 4**e = q (u^2 - 4**-e).
            W[:] = np.ldexp(W, (own - per_instance)[:, None, None])
            np.multiply(W, Q * np.ldexp(1.0, -per_instance)[:, None, None], out=T[:, 0])
            W *= W
            W -= np.ldexp(1.0, -2 * per_instance)[:, None, None]
        else:
            np.multiply(W, Q, out=T[:, 0])
            W *= W
            W -= 1.0
        W *= Q
        V = bag_sums(T.reshape(n, 2 * K * d), offsets, cancel=True).reshape(-1, 2, K, d)
        V[:, 0] /= np.sqrt(gmm.weights_)[:, None]
        V[:, 1] /= np.sqrt(2.0 * gmm.weights_)[:, None]
        V /= np.diff(offsets)[:, None, None, None]
        V = normalize_rows(V.reshape(V.shape[0], 2 * K * d), self.power, self.normalize, 2 * K)
        if self.normalize is None and per_bag.any():
            with np.errstate(over="ignore"):
                V *= np.exp2(2.0 * per_bag * float(self.power))[:, None]
        return V
