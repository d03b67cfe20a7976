"""Kernel mean embedding of bags by random Fourier features or Nystroem: the set kernel made linear.

With an RBF instance kernel ``k(a, b) = exp(-gamma ||a - b||^2)``, the set
kernel of two bags ``K(A, B) = sum_a sum_b k(a, b)`` is the inner product
of the bags' summed feature maps, ``<sum_a phi(a), sum_b phi(b)>``
(Gaertner, Flach, Kowalczyk and Smola 2002). A finite map ``z`` with
``<z(a), z(b)> ~ k(a, b)`` (random Fourier features, Rahimi and Recht 2007;
or Nystroem landmarks, Williams and Seeger 2001) gives each bag a vector of
fixed length whose inner products approximate the set kernel; dividing by
its norm approximates the normalised set kernel (NSK) of :mod:`mil.svm`.

The random features' cosine is taken in float32 after the projection is
reduced modulo 2 pi in float64, so an instance of any magnitude gets a
finite map. The Nystroem map's rows go through BLAS products whose last
bits depend on how many rows a product holds; the landmarks'
normalisation multiplies that rounding by its condition number, so a bag's
row moves with the chunk size, the batch and its instances' order by about
``1e-16`` times that condition number (``nystroem_rounding_``), and by
nothing more.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from mil._scaling import median_sq_distance
from mil.base import keep_params
from mil.embedding._encoding import COMMON_CONSTRAINTS, BagEncoder, bag_sums
from mil.utils._docstrings import fill_doc

__all__ = ["KernelMeanEmbedding"]


@fill_doc
class KernelMeanEmbedding(BagEncoder):
    """Kernel mean embedding of bags: summed feature maps of the instances, approximating the NSK.

    Each instance ``x`` is mapped to ``z(x)`` of ``n_components`` values
    whose inner products approximate the RBF kernel
    ``exp(-gamma ||a - b||^2)``: a Nystroem map on landmarks drawn from the
    training instances (scikit-learn's ``Nystroem``, Williams and Seeger
    2001) or random Fourier features (``RBFSampler``, Rahimi and Recht
    2007). Bag B is encoded by ``s(B) = sum over its instances of z(x)``,
    then normalised:

    - ``"cosine"``: ``s(B) / ||s(B)||``, so that ``<e(A), e(B)>``
      approximates the normalised set kernel
      ``K(A, B) / sqrt(K(A, A) K(B, B))`` of
      :class:`mil.svm.BagKernelSVC` (``kernel="nsk"``) and
      :func:`mil.svm.set_kernel`;
    - ``"weights"``: ``s(B) / |B|``, the empirical kernel mean embedding,
      whose inner products approximate ``K(A, B) / (|A| |B|)``;
    - None: ``s(B)``, approximating the unnormalised ``K(A, B)``.

    The approximation error falls like ``1 / sqrt(n_components)`` for random
    Fourier features; the Nystroem map is exact on the span of its
    landmarks. The default is the Nystroem map, as for
    :class:`~mil.embedding.KernelMeanClassifier`.

    A bag's row depends on that bag alone, exactly with random features;
    with the Nystroem map, to within ``nystroem_rounding_`` (relative to the
    row's norm): its BLAS products round differently with the number of
    rows they hold (the chunk, the batch) and its sums with the order of
    the instances, and the landmarks' normalisation multiplies that
    rounding by its condition number.

    Parameters
    ----------
    n_components : int, default=1000
        Length of the instance map (and of the encoding). The Nystroem map
        has at most as many as the sampled training instances.
    method : {"nystroem", "rff"}, default="nystroem"
        Nystroem landmarks or random Fourier features.
    gamma : float > 0, default=1.0
        Bandwidth of the RBF kernel; with ``gamma_scale="median"`` a
        multiple of the median heuristic.
    gamma_scale : {"median", "absolute"}, default="median"
        "median": the kernel's bandwidth is ``gamma / m``, m the median
        squared distance between (at most 2000 evenly spaced) sampled
        training instances after scaling, as :class:`mil.svm.BagKernelSVC`
        sets it. "absolute": ``gamma`` as given, for the scaled features
        (with ``scale=None``, for the features as given).
    normalize : {"cosine", "weights"} or None, default="cosine"
        How a bag's summed map is normalised (see above). The string
        "none" means None and is deprecated.
    max_samples : int or None, default=100_000
        Training instances drawn at random (without replacement) for the
        scaling, the median heuristic and the Nystroem landmarks (all of
        them when there are fewer, or with None).
    [encoder chunk parameters]
    random_state : int, RandomState or None, default=None
        Seeds the sample of instances, the random features and the
        landmarks (independent seeds drawn from it).

    Attributes
    ----------
    gamma_ : float
        The RBF bandwidth used, in the scaled feature space.
    feature_map_ : sklearn.kernel_approximation.Nystroem or RBFSampler
        The fitted instance map.
    nystroem_rounding_ : float
        How far a row may move, relative to its norm, with the chunk size,
        the batch and the order of a bag's instances (0 with random
        features).
    [encoder scaling attributes]
    n_samples_fit_ : int
        Number of sampled training instances.
    [encoder input attributes]

    See Also
    --------
    mil.svm.BagKernelSVC : The exact normalised set kernel SVM.
    mil.svm.set_kernel : The exact set kernels.
    SlicedWassersteinEmbedding : A linear-time stand-in for the EMD kernel.

    References
    ----------
    T. Gaertner, P. A. Flach, A. Kowalczyk and A. J. Smola, "Multi-instance
    kernels", ICML 2002. A. Rahimi and B. Recht, "Random features for
    large-scale kernel machines", NeurIPS 2007. C. K. I. Williams and
    M. Seeger, "Using the Nystroem method to speed up kernel machines",
    NeurIPS 2001. D. J. Sutherland, J. B. Oliva, B. Poczos and J. Schneider,
    "Linear-time learning on distributions with approximate kernel
    embeddings", AAAI 2016.

    [rng examples]
    >>> A, B = rng.normal(size=(4, 2)), rng.normal(size=(3, 2))
    >>> enc = KernelMeanEmbedding(20000, method="rff", gamma=0.5, gamma_scale="absolute", scale=None,
    ...                           random_state=0).fit([A, B])
    >>> E = enc.transform([A, B])
    >>> exact = set_kernel([A, B], gamma=0.5)[0, 1]  # the normalised set kernel
    >>> bool(abs(E[0] @ E[1] - exact) < 0.02)
    True
    """

    _rng_example_imports = ("from mil.svm import set_kernel",)
    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "method": [StrOptions({"rff", "nystroem"})],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "gamma_scale": [StrOptions({"median", "absolute"})],
        "normalize": [StrOptions({"cosine", "weights", "none"}), None],
        **COMMON_CONSTRAINTS,
    }

    def __init__(self, n_components=1000, *, method="nystroem", gamma=1.0, gamma_scale="median",
                 normalize="cosine", max_samples=100_000, scale="standard", chunk_size=None, n_jobs=None,
                 random_state=None):
        keep_params(self, locals())

    def _check_params(self):
        if self.normalize == "none":
            warnings.warn("normalize='none' is deprecated: use normalize=None (the same embedding)",
                          FutureWarning, stacklevel=3)

    def _normalization(self):
        return None if self.normalize == "none" else self.normalize

    def _fit_instances(self, Z, rng):
        from sklearn.kernel_approximation import Nystroem, RBFSampler


        if self.gamma_scale == "absolute":
            # gamma refers to the features as given when scale=None divided them by a power of two.
            unit = self.scale_[0] if self.scale is None and self.scale_.size else 1.0
            with np.errstate(over="ignore", under="ignore"):
                gamma = float(self.gamma) * unit * unit
            self.gamma_ = float(np.clip(gamma, 2.0 ** -1000, 2.0 ** 1000))
        else:
            self.gamma_ = float(self.gamma) / median_sq_distance(Z)
        self.nystroem_rounding_ = 0.0
        if self.method == "rff":
            self.feature_map_ = RBFSampler(gamma=self.gamma_, n_components=self.n_components,
                                           random_state=rng).fit(Z[:1])
            self._n_features_out = self.n_components
        else:
            m = min(self.n_components, Z.shape[0])
            self.feature_map_ = Nystroem(kernel="rbf", gamma=self.gamma_, n_components=m,
                                         random_state=rng).fit(Z)
            self._n_features_out = m
            self.nystroem_rounding_ = float(ROUNDING_PER_CONDITION * np.linalg.cond(self.feature_map_.normalization_))

    def _floats_per_instance(self):
        return self.n_features_in_ + 3 * self._n_features_out

    def _encode(self, Z, offsets):
        if self.method == "rff":
            # sqrt(2 / D) cos(x W + b) (RBFSampler's map): the projection in float64, reduced
            # modulo 2 pi where it is large (elementwise, so a row does not depend on the others),
            # the cosine in float32, whose vectorised NumPy loop is some 30 times faster than the
            # float64 one; its rounding (below 1e-6) is far below the features' sampling error
            # (about 1 / sqrt(n_components)). The sums per bag are in float64.
            fmap = self.feature_map_
            P = Z @ fmap.random_weights_.astype(np.float64)
            P += fmap.random_offset_
            with np.errstate(invalid="ignore"):
                np.remainder(P, 2.0 * np.pi, out=P, where=~(np.abs(P) <= _REDUCE_ABOVE))
            F = np.cos(P.astype(np.float32))
            F *= np.float32(np.sqrt(2.0 / fmap.n_components))
            S = bag_sums(F, offsets)
        else:
            # Nystroem's map is k(x, landmarks) @ normalization_.T, linear after the kernel: the
            # kernel rows are summed per bag first, so the m x m product is paid per bag, not
            # per instance.
            from sklearn.metrics.pairwise import rbf_kernel

            fmap = self.feature_map_
            S = bag_sums(rbf_kernel(Z, fmap.components_, gamma=self.gamma_), offsets) @ fmap.normalization_.T
        normalize = self._normalization()
        if normalize == "weights":
            S /= np.diff(offsets)[:, None]
        elif normalize == "cosine":
            norms = np.sqrt(np.einsum("ij,ij->i", S, S))
            np.divide(S, norms[:, None], out=S, where=norms[:, None] > 0)
        return S


#: Random-feature projections beyond this magnitude are reduced modulo 2 pi before their
#: float32 cosine (float32's spacing there is 1.5e-5).
_REDUCE_ABOVE = 256.0

#: ``nystroem_rounding_`` per unit of the condition number of the landmarks' normalisation.
ROUNDING_PER_CONDITION = 1e-14
