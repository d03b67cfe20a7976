"""Sliced-Wasserstein embedding of bags: quantiles of the projected instances against a reference.

After Naderializadeh, Comer, Andrews, Hoffmann and Kolouri, "Pooling by
sliced-Wasserstein embedding" (NeurIPS 2021): the instances of a bag are
projected on ``L`` directions; along each, the bag's sorted projections give
its quantile function, read at ``M`` levels and compared with a reference's.
The Euclidean distance between two bags' embeddings is then a quadrature of
the sliced 2-Wasserstein distance between their instance distributions with
those directions, exact when ``M`` is a multiple of both bags' sizes
(``interpolation="step"``). Bags of one size are sorted together, so a chunk
is a few NumPy sorts.
"""

from numbers import Integral

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from mil.base import keep_params
from mil.embedding._encoding import COMMON_CONSTRAINTS, BagEncoder
from mil.utils._docstrings import fill_doc, register

__all__ = ["SlicedWassersteinEmbedding", "quantile_positions"]


def quantile_positions(n, n_quantiles, interpolation):
    """Where the quantile levels fall among ``n`` sorted values: ``(lower index, weight of the next)``.

    ``"step"``: level ``t_k = (k + 1/2) / M`` reads the ``ceil(t_k n)``-th
    smallest value (the empirical quantile function; weight 0).
    ``"linear"``: the sorted values sit at ``(i + 1) / (n + 1)``, the levels
    at ``(k + 1) / (M + 1)``, and values between are interpolated linearly
    (constant beyond the ends), as in the PSWE paper's code.

    Returns
    -------
    lower : ndarray of intp of shape (n_quantiles,)
    weight : ndarray of float64 of shape (n_quantiles,)
        ``q_k = (1 - w_k) x[lower_k] + w_k x[lower_k + 1]``.
    """
    k = np.arange(n_quantiles)
    if interpolation == "step":
        return (2 * k + 1) * n // (2 * n_quantiles), np.zeros(n_quantiles)
    pos = (k + 1) / (n_quantiles + 1) * (n + 1) - 1  # in units of sorted positions
    pos = np.clip(pos, 0, n - 1)
    lower = np.minimum(np.floor(pos).astype(np.intp), max(n - 2, 0))
    return lower, (pos - lower) if n > 1 else np.zeros(n_quantiles)


def _quantiles(S, lower, weight):
    """Quantiles along axis 1 of sorted values S (bags, n, L) -> (bags, M, L)."""
    Q = S[:, lower]
    if weight.any():
        upper = np.minimum(lower + 1, S.shape[1] - 1)
        Q = Q + weight[None, :, None] * (S[:, upper] - Q)
    return Q


# The encoder's two sizes as the models on it (the classifier and the regressor) document them.
register("sliced model parameters", """\
    n_directions : int, default=64
        Random directions of the projections.
    n_quantiles : int, default=16
        Quantiles of each direction's projections.
""")


@fill_doc
class SlicedWassersteinEmbedding(BagEncoder):
    """Sliced-Wasserstein embedding of bags (PSWE): quantiles of projected instances.

    ``n_directions`` random unit directions ``theta_l`` are drawn; bag B is
    encoded, for each direction l and each of ``n_quantiles`` levels
    ``t_k``, by ``(q_B,l(t_k) - r_l(t_k)) / sqrt(L M)``, where ``q_B,l`` is
    the quantile function of B's projections ``theta_l . x`` and ``r_l``
    that of the sampled training instances (a reference that only shifts
    the embedding, centring it). Then

    ``||e(A) - e(B)||^2 = 1/L sum_l 1/M sum_k (q_A,l(t_k) - q_B,l(t_k))^2``

    approximates the squared sliced 2-Wasserstein distance between the
    bags' instance distributions along these directions (exactly equal with
    ``interpolation="step"`` when ``n_quantiles`` is a multiple of both bag
    sizes), so a linear or RBF model on the embedding is a linear-time
    stand-in for the earth mover's distance kernel.

    Parameters
    ----------
    n_directions : int, default=64
        Number of projection directions L.
    n_quantiles : int, default=16
        Number of quantile levels M per direction; the encoding has
        ``L * M`` values.
    interpolation : {"step", "linear"}, default="step"
        How a bag's quantiles are read from its sorted projections (see
        :func:`quantile_positions`): "step" is the empirical quantile
        function at the midpoints ``(k + 1/2) / M``; "linear" interpolates
        between the sorted values, as the PSWE paper's code does.
    max_samples : int or None, default=100_000
        Training instances drawn at random (without replacement) for the
        scaling and the reference quantiles.
    [encoder chunk parameters]
    random_state : int, RandomState or None, default=None
        Seeds the sample of instances and the directions (independent seeds
        drawn from it).

    Attributes
    ----------
    directions_ : ndarray of shape (n_features, n_directions)
        Unit projection directions (columns), in the scaled feature space.
    reference_ : ndarray of shape (n_directions, n_quantiles)
        The reference quantiles (of the sampled training instances), in the
        scaled feature space.
    offset_ : ndarray of shape (n_features,)
        The feature scaling's offset: an instance is encoded as
        ``(x - offset_) / scale_``, so the embedding is in the scaled
        feature space's units.
    scale_ : ndarray of shape (n_features,)
        The feature scaling's divisor.
    n_samples_fit_ : int
        Number of sampled training instances.
    [encoder input attributes]

    See Also
    --------
    KernelMeanEmbedding : Summed feature maps, approximating the set kernel.
    mil.svm.BagKernelSVC : The exact EMD kernel SVM (``kernel="emd"``).
    mil.svm.emd_distances : The exact earth mover's distances between bags.

    References
    ----------
    N. Naderializadeh, J. F. Comer, R. W. Andrews, H. Hoffmann and
    S. Kolouri, "Pooling by sliced-Wasserstein embedding", NeurIPS 2021.
    N. Bonneel, J. Rabin, G. Peyre and H. Pfister, "Sliced and Radon
    Wasserstein barycenters of measures", Journal of Mathematical Imaging
    and Vision 51, 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from mil.embedding import SlicedWassersteinEmbedding
    >>> A, B = np.array([[0.0], [1.0]]), np.array([[3.0], [5.0]])
    >>> enc = SlicedWassersteinEmbedding(n_directions=1, n_quantiles=2, scale=None).fit([A, B])
    >>> E = enc.transform([A, B]) * enc.scale_[0]  # in the features' units
    >>> round(float(np.linalg.norm(E[0] - E[1]) ** 2), 9)  # W2^2: ((3 - 0)^2 + (5 - 1)^2) / 2
    12.5
    """

    _parameter_constraints = {
        "n_directions": [Interval(Integral, 1, None, closed="left")],
        "n_quantiles": [Interval(Integral, 1, None, closed="left")],
        "interpolation": [StrOptions({"step", "linear"})],
        **COMMON_CONSTRAINTS,
    }

    def __init__(self, n_directions=64, n_quantiles=16, *, interpolation="step", max_samples=100_000,
                 scale="standard", chunk_size=None, n_jobs=None, random_state=None):
        keep_params(self, locals())

    def _fit_instances(self, Z, rng):
        theta = rng.standard_normal((Z.shape[1], self.n_directions))
        norms = np.linalg.norm(theta, axis=0)
        theta /= np.where(norms > 0, norms, 1.0)
        self.directions_ = theta
        # The projections in float64, a block of rows at a time (no float64 copy of a float32 sample).
        step = max(1, 2**20 // max(1, Z.shape[1]))
        P = np.empty((Z.shape[0], self.n_directions))
        for r0 in range(0, Z.shape[0], step):
            np.matmul(np.asarray(Z[r0:r0 + step], dtype=np.float64), theta, out=P[r0:r0 + step])
        P.sort(axis=0)
        lower, weight = quantile_positions(P.shape[0], self.n_quantiles, self.interpolation)
        self.reference_ = np.ascontiguousarray(_quantiles(P[None], lower, weight)[0].T)
        self._n_features_out = self.n_directions * self.n_quantiles

    def _floats_per_instance(self):
        return self.n_features_in_ + 3 * self.n_directions

    def _encode(self, Z, offsets):
        L, M = self.n_directions, self.n_quantiles
        P = Z @ self.directions_
        sizes = np.diff(offsets)
        out = np.empty((sizes.shape[0], L, M))
        for n in np.unique(sizes):
            bags = np.flatnonzero(sizes == n)
            rows = offsets[bags][:, None] + np.arange(n)
            S = np.sort(P[rows], axis=1)  # (bags, n, L)
            Q = _quantiles(S, *quantile_positions(int(n), M, self.interpolation))
            out[bags] = Q.transpose(0, 2, 1) - self.reference_
        out /= np.sqrt(L * M)
        return out.reshape(sizes.shape[0], L * M)
