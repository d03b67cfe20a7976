"""Codebook encodings of bags: VLAD (k-means) and Fisher vectors (Gaussian mixture).

Both follow Wei, Wu and Zhou's miVLAD and miFV ("Scalable algorithms for
multi-instance learning", IEEE TNNLS 2017): a codebook is learned on the
training instances, each bag is encoded by how its instances deviate from
the codewords, and the code is power- then L2-normalised for a linear
classifier. The per-bag sums are one pass over each chunk of bags:
residuals or weighted deviations of every instance, summed per bag (a sparse
bag-by-instance product), so a bag's row never depends on the other bags.
A sum within the rounding error of its terms is set to exactly 0 before the
normalisation, which would otherwise blow its sign, set by the order of the
instances, up to a full-size value.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from mil.embedding._encoding import _COMMON_CONSTRAINTS, _BagEncoder, _bag_sums, _normalise_rows
from mil.base import keep_params

__all__ = ["VLADEmbedding", "FisherVectorEmbedding"]

_NORMALISATION = {
    "power": [Interval(Real, 0, 1, closed="right")],
    "normalize": [StrOptions({"l2", "intra"}), None],
}


def _too_few(n_samples, name, k):
    return ValueError(f"n_samples={n_samples} should be >= {name}={k}: the codebook needs at least as "
                      f"many training instances as codewords")


class VLADEmbedding(_BagEncoder):
    """VLAD encoding of bags: summed residuals to the nearest k-means centre (miVLAD).

    A k-means codebook ``c_1 .. c_K`` is learned on the training instances;
    bag B is encoded by, for every centre k, the sum of the residuals
    ``x - c_k`` of its instances whose nearest centre is ``c_k`` (ties to
    the lowest k), a vector of ``K * n_features`` values, then normalised:
    signed power ``sign(v) |v|^power`` then unit L2 norm (Wei, Wu and Zhou
    2017, after Jegou et al.'s VLAD). A linear classifier on the encoding is
    miVLAD.

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
        normalisation.
    max_samples : int or None, default=100_000
        The codebook is learned on this many training instances drawn at
        random without replacement (all of them when there are fewer, or
        with None). Only the drawn rows of a memory-mapped
        :class:`~mil.Bags` are read.
    [chunk parameters]
    random_state : int, RandomState or None, default=None
        Seeds the sample of instances and k-means.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        The codebook, in the scaled feature space.
    offset_, scale_ : ndarray of shape (n_features,) or None
        The feature scaling (``(x - offset_) / scale_``).
    n_samples_fit_ : int
        Number of instances the codebook was learned on.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when the training bags have feature names.

    See Also
    --------
    FisherVectorEmbedding, KernelMeanEmbedding, SlicedWassersteinEmbedding

    References
    ----------
    X.-S. Wei, J. Wu and Z.-H. Zhou, "Scalable algorithms for multi-instance
    learning", IEEE Transactions on Neural Networks and Learning Systems
    28(4), 2017. H. Jegou, M. Douze, C. Schmid and P. Perez, "Aggregating
    local descriptors into a compact image representation", CVPR 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from mil.embedding import VLADEmbedding
    >>> bags = [np.array([[0.0], [1.0]]), np.array([[9.0], [11.0]])]
    >>> enc = VLADEmbedding(n_clusters=2, scale=None, random_state=0).fit(bags)
    >>> np.sort(enc.cluster_centers_.ravel())
    array([ 0.5, 10. ])
    >>> E = enc.transform([np.array([[0.0], [2.0]])])
    >>> E[0, np.argsort(enc.cluster_centers_.ravel())].round(3)  # residual sum 1.0 at 0.5, none at 10
    array([1., 0.])
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        **_NORMALISATION,
        **_COMMON_CONSTRAINTS,
    }

    def __init__(self, n_clusters=8, *, power=0.5, normalize="l2", max_samples=100_000, scale="standard",
                 chunk_size=None, n_jobs=None, random_state=None):
        keep_params(self, locals())

    def _fit_instances(self, Z, rng):
        from mil.embedding._concepts import kmeans_centres

        if Z.shape[0] < self.n_clusters:
            raise _too_few(Z.shape[0], "n_clusters", self.n_clusters)
        self.cluster_centers_ = kmeans_centres(Z, self.n_clusters, rng)
        self._n_features_out = self.n_clusters * Z.shape[1]

    def _floats_per_instance(self):
        return 4 * self.n_features_in_ + 2 * self.n_clusters

    def assign(self, Z):
        """Index of the nearest centre of each (scaled) instance, ties to the lowest."""
        C = self.cluster_centers_
        d2 = (C * C).sum(axis=1) - 2.0 * (Z @ C.T)  # + |z|^2, the same for every centre
        return np.argmin(d2, axis=1)

    def _encode(self, Z, offsets):
        K, d = self.cluster_centers_.shape
        n_bags = offsets.shape[0] - 1
        nearest = self.assign(Z)
        # Residuals summed per (bag, centre): a bag's instances in (centre, position) order
        # make the rows of a membership matrix with one row per (bag, centre).
        cell = np.repeat(np.arange(n_bags) * K, np.diff(offsets)) + nearest
        order = np.argsort(cell, kind="stable")
        starts = np.zeros(n_bags * K + 1, dtype=np.intp)
        np.cumsum(np.bincount(cell, minlength=n_bags * K), out=starts[1:])
        V = _bag_sums((Z - self.cluster_centers_[nearest])[order], starts, cancel=True).reshape(n_bags, K * d)
        return _normalise_rows(V, self.power, self.normalize, K)


class FisherVectorEmbedding(_BagEncoder):
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
        Added to the variances (``GaussianMixture``'s), in the scaled space.
    max_iter : int, default=100
        EM iterations of the mixture.
    max_samples : int or None, default=100_000
        The mixture is fitted on this many training instances drawn at random
        without replacement (all of them when there are fewer, or with None).
    [chunk parameters]
    random_state : int, RandomState or None, default=None
        Seeds the sample of instances and the mixture's initialisation.

    Attributes
    ----------
    mixture_ : sklearn.mixture.GaussianMixture
        The fitted mixture (``weights_``, ``means_``, ``covariances_``), in
        the scaled feature space.
    n_iter_ : int
        EM iterations the mixture took.
    offset_, scale_ : ndarray of shape (n_features,) or None
    n_samples_fit_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when the training bags have feature names.

    See Also
    --------
    VLADEmbedding, KernelMeanEmbedding, SlicedWassersteinEmbedding

    References
    ----------
    X.-S. Wei, J. Wu and Z.-H. Zhou, "Scalable algorithms for multi-instance
    learning", IEEE Transactions on Neural Networks and Learning Systems
    28(4), 2017. F. Perronnin, J. Sanchez and T. Mensink, "Improving the
    Fisher kernel for large-scale image classification", ECCV 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from mil.embedding import FisherVectorEmbedding
    >>> rng = np.random.default_rng(0)
    >>> bags = [rng.normal(size=(5, 3)) for _ in range(10)]
    >>> enc = FisherVectorEmbedding(n_components=2, random_state=0).fit(bags)
    >>> enc.transform(bags).shape  # 2 components x 3 features x (means, deviations)
    (10, 12)
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        **_NORMALISATION,
        "reg_covar": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        **_COMMON_CONSTRAINTS,
    }

    def __init__(self, n_components=2, *, power=0.5, normalize="l2", reg_covar=1e-6, max_iter=100,
                 max_samples=100_000, scale="standard", chunk_size=None, n_jobs=None, random_state=None):
        keep_params(self, locals())

    def _fit_instances(self, Z, rng):
        from sklearn.mixture import GaussianMixture

        if Z.shape[0] < self.n_components:
            raise _too_few(Z.shape[0], "n_components", self.n_components)
        self.mixture_ = GaussianMixture(self.n_components, covariance_type="diag", reg_covar=self.reg_covar,
                                        max_iter=self.max_iter, random_state=rng).fit(Z)
        self.n_iter_ = self.mixture_.n_iter_
        self._n_features_out = 2 * self.n_components * Z.shape[1]

    def _floats_per_instance(self):
        return (2 * self.n_components + 2) * self.n_features_in_ + 3 * self.n_components

    def _encode(self, Z, offsets):
        gmm = self.mixture_
        K, d = gmm.means_.shape
        Q = gmm.predict_proba(Z)[:, :, None]
        # Per instance and component: the standardised deviation w and w^2 - 1, weighted by the posterior.
        T = np.empty((Z.shape[0], 2, K, d))
        W = T[:, 1]
        np.subtract(Z[:, None, :], gmm.means_, out=W)
        W /= np.sqrt(gmm.covariances_)
        np.multiply(W, Q, out=T[:, 0])
        W *= W
        W -= 1.0
        W *= Q
        V = _bag_sums(T.reshape(Z.shape[0], 2 * K * d), offsets, cancel=True).reshape(-1, 2, K, d)
        V[:, 0] /= np.sqrt(gmm.weights_)[:, None]
        V[:, 1] /= np.sqrt(2.0 * gmm.weights_)[:, None]
        V /= np.diff(offsets)[:, None, None, None]
        return _normalise_rows(V.reshape(V.shape[0], 2 * K * d), self.power, self.normalize, 2 * K)
