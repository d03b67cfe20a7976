"""Bag embeddings as scikit-learn transformers: MILES and bag dissimilarities."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from mil._scaling import absolute_unit, apply_scaling, fit_scaling
from mil.embedding._concepts import concept_minima, prototype_indices
from mil.embedding._minima import (DISSIMILARITIES, bag_dissimilarities, median_sigma, miles_block_features, minima,
                                   one_bag, subset)
from mil.utils._docstrings import fill_doc
from mil.utils._seeds import sub_seeds
from mil.utils.validation import check_bags, check_feature_names, set_feature_names

__all__ = ["MILESEmbedding", "BagDissimilarityEmbedding"]

_SCALES = [StrOptions({"standard", "minmax", "maxabs"}), None]


def _transform_doc(returns):
    """The docstring of ``transform`` after its summary, `returns` describing the output."""
    return f"""    Parameters
    ----------
    X : sequence of 2-D arrays or Bags
        Bags with the training bags' features.

    Returns
    -------
{returns}"""


def _examples_doc(cls):
    """The head of the Examples: two small bags."""
    return f"""    Examples
    --------
    >>> import numpy as np
    >>> from mil.embedding import {cls.__name__}
    >>> bags = [np.array([[0.0], [4.0]]), np.array([[1.0]])]
"""


#: The docstring sections of both embeddings.
_SECTIONS = dict(examples=_examples_doc, fit_parameters="""\
    [fit bags]
    y : None
        Ignored: the embedding never sees a label.
""", fit="""\
    [fit parameters]

    Returns
    -------
    self : object
        The fitted embedding.
""")


class _BagTransformer(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Shared validation and scaling of the bag embeddings (not public)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.three_d_array = True
        tags.requires_fit = True
        return tags

    #: Whether features of extreme magnitude are divided by a power of two with ``scale=None``
    #: (for an embedding whose values do not carry the features' unit).
    _rescale_extremes = False

    def _fit_bags(self, X):
        self._validate_params()
        bags = check_bags(X, estimator=type(self).__name__)
        self.n_features_in_ = bags.n_features
        set_feature_names(self, X)
        self.offset_, self.scale_ = fit_scaling(bags.instances, self.scale, rescale_extremes=self._rescale_extremes)
        bags = apply_scaling(bags, self.offset_, self.scale_)
        self.center_ = bags.instances.mean(axis=0)
        return bags

    def _bags(self, X):
        check_is_fitted(self, "center_")
        check_feature_names(self, X)
        bags = check_bags(X, n_features=self.n_features_in_, estimator=type(self).__name__)
        return apply_scaling(bags, self.offset_, self.scale_)


@fill_doc(**_SECTIONS, transform=_transform_doc("""\
    F : ndarray of shape (n_bags, n_concepts)
        Each bag's similarity to each concept.
"""))
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
        Kernel width, for the scaled features (with ``scale=None``, for the
        features as given); None takes the median heuristic on the
        training bags: the square root of the median squared distance from
        a concept to the other training bags (the median feature is then
        exp(-1)).
    n_concepts : "auto", int or None, default="auto"
        None: every training instance is a concept. An int: the centres of
        a k-means clustering of the training instances (scikit-learn's
        ``KMeans``; ``MiniBatchKMeans`` above 10 000 instances), for large
        data (memory and time grow with the number of concepts times the
        number of bags). "auto": every instance up to 10 000 training
        instances, 1 000 k-means centres above. k-means runs on the
        instances in lexicographic order, so the concepts do not depend on
        the order of the bags or of their instances.
    scale : {"standard", "minmax", "maxabs"} or None, default="standard"
        Feature scaling fitted on the training instances, as the neighbour
        classifiers do. None: the features as given (divided by a power of
        two, which is exact, when their largest magnitude lies beyond
        ``2**400`` or below ``2**-400``, so that squared distances stay
        inside float64).
    n_jobs : int, default=None
        Threads of the distance pass.
    random_state : int, RandomState or None, default=None
        Seeds k-means (k-means concepts only; a seed drawn from it).

    Attributes
    ----------
    concepts_ : ndarray of shape (n_concepts, n_features)
        The concepts, in the scaled feature space.
    n_concepts_ : int or None
        The number of k-means centres (the rows of ``concepts_``); None:
        every training instance is a concept.
    sigma_ : float
        The kernel width used, in the scaled feature space.
    center_ : ndarray of shape (n_features,)
        The scaled training instances' mean (the distance pass centres the
        instances on it).
    offset_ : ndarray of shape (n_features,) or None
        The feature scaling's offset (``(x - offset_) / scale_``); None
        when the features are used as given.
    scale_ : ndarray of shape (n_features,) or None
        The feature scaling's divisor.
    [encoder input attributes]

    See Also
    --------
    MILESClassifier : A 1-norm SVM on this embedding, with instance scores.
    BagDissimilarityEmbedding : Each bag's distances to the training bags.

    [chen2006]

    [examples]
    >>> emb = MILESEmbedding(sigma=1.0, scale=None).fit(bags)
    >>> np.round(emb.transform(bags), 3)  # concepts 0, 1, 4 (lexicographic order)
    array([[1.   , 0.368, 1.   ],
           [0.368, 1.   , 0.   ]])
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

    _rescale_extremes = True

    def _fit_minima(self, X):
        """Fit; return M (concepts x training bags)."""
        bags = self._fit_bags(X)
        self.concepts_, self.n_concepts_, M, own = concept_minima(
            bags, self.n_concepts, center=self.center_, seed=sub_seeds(self.random_state, 1)[0], n_jobs=self.n_jobs)
        if self.sigma is not None:
            # sigma refers to the features as given when scale=None divided them by a power of two.
            self.sigma_ = float(self.sigma) * float(np.sqrt(absolute_unit(self, 2)))
        else:
            self.sigma_ = median_sigma(M, own)
        self._n_features_out = self.concepts_.shape[0]
        return M

    def fit(self, X, y=None):
        """Choose the concepts and sigma from the training bags.

        [fit]
        """
        self._fit_minima(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit and embed the training bags from the same distance pass.

        [fit parameters]

        Returns
        -------
        F : ndarray of shape (n_bags, n_concepts)
            The training bags' embedding, as ``fit(X).transform(X)``.
        """
        return miles_block_features(self._fit_minima(X), self.sigma_, centred=False)

    def transform(self, X):
        """Embed bags: one row per bag, one column per concept.

        [transform]
        """
        bags = self._bags(X)
        M = minima(one_bag(self.concepts_), bags, centre=self.center_, n_jobs=self.n_jobs)
        return miles_block_features(M, self.sigma_, centred=False)


@fill_doc(**_SECTIONS, transform=_transform_doc("""\
    D : ndarray of shape (n_bags, n_prototypes)
        The dissimilarity of each bag to each prototype.
"""))
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
        Draws the prototypes (``n_prototypes`` only; a seed drawn from it).

    Attributes
    ----------
    prototypes_ : Bags
        The prototype bags, in the scaled feature space.
    prototype_indices_ : ndarray of int
        Their indices among the training bags.
    center_ : ndarray of shape (n_features,)
        The scaled training instances' mean (the distance pass centres the
        instances on it).
    offset_ : ndarray of shape (n_features,) or None
        The feature scaling's offset (``(x - offset_) / scale_``); None
        with ``scale=None``.
    scale_ : ndarray of shape (n_features,) or None
        The feature scaling's divisor.
    [encoder input attributes]

    See Also
    --------
    MInDClassifier : An SVM on this embedding, tuned by inner cross-validation.
    MILESEmbedding : Each bag's similarity to instance concepts.

    [cheplygina2015]

    [examples]
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

        [fit]
        """
        bags = self._fit_bags(X)
        self.prototype_indices_ = prototype_indices(bags.n_bags, self.n_prototypes, sub_seeds(self.random_state, 1)[0])
        self.prototypes_ = subset(bags, self.prototype_indices_)
        self._n_features_out = self.prototype_indices_.shape[0]
        return self

    def transform(self, X):
        """Compute each bag's dissimilarities to the prototypes.

        [transform]
        """
        return bag_dissimilarities(self._bags(X), self.prototypes_, self.dissimilarity, centre=self.center_,
                                   n_jobs=self.n_jobs)
