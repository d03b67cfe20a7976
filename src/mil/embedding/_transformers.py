"""Bag embeddings as scikit-learn transformers: MILES and bag dissimilarities."""

from numbers import Integral, Real

from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from mil._scaling import apply_scaling, fit_scaling
from mil.embedding._concepts import concept_minima, dissimilarities_to, draw_prototypes
from mil.embedding._minima import DISSIMILARITIES, median_sigma, miles_block_features, minima, one_bag
from mil.utils.validation import check_bags, check_feature_names, set_feature_names

__all__ = ["MILESEmbedding", "BagDissimilarityEmbedding"]

_SCALES = [StrOptions({"standard", "minmax", "maxabs"}), None]


class _BagTransformer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Shared validation and scaling of the bag embeddings (not public)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.three_d_array = True
        tags.requires_fit = True
        return tags

    def _fit_bags(self, X):
        self._validate_params()
        bags = check_bags(X, estimator=type(self).__name__)
        self.n_features_in_ = bags.n_features
        set_feature_names(self, X)
        self.offset_, self.scale_ = fit_scaling(bags.instances, self.scale)
        bags = apply_scaling(bags, self.offset_, self.scale_)
        self.centre_ = bags.instances.mean(axis=0)
        return bags

    def _bags(self, X):
        check_is_fitted(self, "centre_")
        check_feature_names(self, X)
        return apply_scaling(check_bags(X, n_features=self.n_features_in_, estimator=type(self).__name__),
                             self.offset_, self.scale_)


class MILESEmbedding(_BagTransformer):
    """MILES embedding: each bag's similarity to every concept (Chen, Bi and Wang, 2006).

    ``phi_k(B) = max_j exp(-||b_j - c_k||^2 / sigma^2)`` for each concept
    ``c_k``: every instance of the training bags, or ``n_concepts`` k-means
    centres of them for large data. The squared distances are the
    instance-to-bag minima of one pass of the compiled bag-distance kernel
    (:func:`mil.distances.instance_bag_minima`). A sparse linear model on
    the embedding (1-norm SVM) selects the concepts that matter:
    :class:`MILESClassifier` does it, with the paper's instance scores.

    Parameters
    ----------
    sigma : float, default=None
        Kernel width; None takes the median heuristic on the training bags:
        the square root of the median squared distance from a concept to
        the other training bags (the median feature is then exp(-1)).
    n_concepts : "auto", int or None, default="auto"
        None: every training instance is a concept. An int: the centres of
        a k-means clustering of the training instances (scikit-learn's
        ``KMeans``; ``MiniBatchKMeans`` above 10 000 instances), for large
        data (memory and time grow with the number of concepts times the
        number of bags). "auto": every instance up to 10 000 training
        instances, 1 000 k-means centres above (the accuracy of both on
        the shipped sets is on the embeddings results page).
    scale : {"standard", "minmax", "maxabs"} or None, default="standard"
        Feature scaling fitted on the training instances, as the neighbour
        classifiers do.
    n_jobs : int, default=None
        Threads of the distance pass.
    random_state : int, RandomState or None, default=None
        Seeds k-means (k-means concepts only).

    Attributes
    ----------
    concepts_ : ndarray of shape (n_concepts, n_features)
        The concepts, in the scaled feature space.
    n_concepts_ : int or None
        The k-means centres used (None: every training instance).
    sigma_ : float
    n_features_in_ : int

    See Also
    --------
    MILESClassifier, BagDissimilarityEmbedding

    References
    ----------
    Y. Chen, J. Bi and J. Z. Wang, "MILES: Multiple-instance learning via
    embedded instance selection", IEEE Transactions on Pattern Analysis and
    Machine Intelligence 28(12), 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from mil.embedding import MILESEmbedding
    >>> bags = [np.array([[0.0], [4.0]]), np.array([[1.0]])]
    >>> emb = MILESEmbedding(sigma=1.0, scale=None).fit(bags)
    >>> np.round(emb.transform(bags), 3)
    array([[1.   , 1.   , 0.368],
           [0.368, 0.   , 1.   ]])
    """

    _parameter_constraints = {
        "sigma": [Interval(Real, 0, None, closed="neither"), None],
        "n_concepts": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left"), None],
        "scale": _SCALES,
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    def __init__(self, sigma=None, *, n_concepts="auto", scale="standard", n_jobs=None, random_state=None):
        self.sigma = sigma
        self.n_concepts = n_concepts
        self.scale = scale
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _fit_minima(self, X):
        """Fit; return M (concepts x training bags)."""
        bags = self._fit_bags(X)
        M, own = concept_minima(self, bags)
        self.sigma_ = float(self.sigma) if self.sigma is not None else median_sigma(M, own)
        self._n_features_out = self.concepts_.shape[0]
        return M

    def fit(self, X, y=None):
        """Choose the concepts and sigma from the training bags.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
        y : ignored

        Returns
        -------
        self
        """
        self._fit_minima(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit and embed the training bags from the same distance pass."""
        return miles_block_features(self._fit_minima(X), self.sigma_, centred=False)

    def transform(self, X):
        """Embed bags: one row per bag, one column per concept.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags

        Returns
        -------
        Z : ndarray of shape (n_bags, n_concepts)
        """
        bags = self._bags(X)
        M = minima(one_bag(self.concepts_), bags, centre=self.centre_, n_jobs=self.n_jobs)
        return miles_block_features(M, self.sigma_, centred=False)


class BagDissimilarityEmbedding(_BagTransformer):
    """Each bag as its vector of dissimilarities to the training bags (Cheplygina, Tax and Loog, 2015).

    The dissimilarity of bag A to bag B is a reduction of the Euclidean
    distances from A's instances to their nearest instance of B, taken from
    one pass of the compiled bag-distance kernel
    (:func:`mil.distances.instance_bag_minima`):

    - ``"meanmin"`` (default): the mean over A's instances (asymmetric);
    - ``"minmin"``: the minimum (minimal Hausdorff distance);
    - ``"maxmin"``: the maximum (directed Hausdorff distance h(A, B));
    - ``"hausdorff"``: ``max(h(A, B), h(B, A))``;
    - ``"average"``: the average Hausdorff distance.

    Each dissimilarity is within the relative bound of
    :mod:`mil.distances` (about ``(d + 2) * 1.1e-12 + 1.2e-10`` for ``d``
    features) of its exact value for the float64 instances given, whatever
    their magnitude (subnormal to the float64 maximum): the instance-to-bag
    distances are taken as roots in the kernel's scaled units, never as
    squares that could under- or overflow. A distance beyond the float64
    maximum raises a ValueError.

    Parameters
    ----------
    dissimilarity : {"meanmin", "minmin", "maxmin", "hausdorff", "average"}, default="meanmin"
    n_prototypes : int, default=None
        None: every training bag is a prototype (one feature each). An int:
        that many training bags drawn at random.
    scale : {"standard", "minmax", "maxabs"} or None, default="standard"
        Feature scaling fitted on the training instances.
    n_jobs : int, default=None
        Threads of the distance pass.
    random_state : int, RandomState or None, default=None
        Draws the prototypes (``n_prototypes`` only).

    Attributes
    ----------
    prototypes_ : Bags
        The prototype bags, in the scaled feature space.
    prototype_indices_ : ndarray of int
        Their indices among the training bags.
    n_features_in_ : int

    See Also
    --------
    MInDClassifier, MILESEmbedding

    References
    ----------
    V. Cheplygina, D. M. J. Tax and M. Loog, "Multiple instance learning
    with bag dissimilarities", Pattern Recognition 48(1), 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from mil.embedding import BagDissimilarityEmbedding
    >>> bags = [np.array([[0.0], [4.0]]), np.array([[1.0]])]
    >>> BagDissimilarityEmbedding(scale=None).fit_transform(bags)
    array([[0., 2.],
           [1., 0.]])
    """

    _parameter_constraints = {
        "dissimilarity": [StrOptions(set(DISSIMILARITIES))],
        "n_prototypes": [Interval(Integral, 1, None, closed="left"), None],
        "scale": _SCALES,
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    def __init__(self, dissimilarity="meanmin", *, n_prototypes=None, scale="standard", n_jobs=None,
                 random_state=None):
        self.dissimilarity = dissimilarity
        self.n_prototypes = n_prototypes
        self.scale = scale
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y=None):
        """Keep the (scaled) prototype bags.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags
        y : ignored

        Returns
        -------
        self
        """
        bags = self._fit_bags(X)
        self._n_features_out = draw_prototypes(self, bags).shape[0]
        return self

    def transform(self, X):
        """Dissimilarities of each bag to the prototypes.

        Parameters
        ----------
        X : sequence of 2-D arrays or Bags

        Returns
        -------
        D : ndarray of shape (n_bags, n_prototypes)
        """
        return dissimilarities_to(self, self._bags(X))
