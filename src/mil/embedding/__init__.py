"""Bag embeddings and the classifiers built on them.

MILES and bag dissimilarities (MInD) are reductions of one quantity, the
squared distance from every instance to the nearest instance of every bag,
computed in one pass of the compiled bag-distance kernel
(:func:`mil.distances.instance_bag_minima`); the classifiers add the learner
of the original papers and choose their hyper-parameters inside ``fit`` on
slices of that single pass.

The bag encoders (VLAD, Fisher vectors, kernel mean embeddings, sliced
Wasserstein embeddings) learn a model of the instances on a sample of the
training instances and encode each bag from its own instances alone, in
time linear in the instances: chunk by chunk over memory-mapped bags, or on
a Dask cluster. Any scikit-learn model then learns on the rows; the
classifiers on them (miFV, miVLAD, the random-feature NSK, the
sliced-Wasserstein SVM) tune their model by the inner CV of MILES and MInD.
"""

from mil.embedding._classifiers import MILESClassifier, MInDClassifier
from mil.embedding._codebook import FisherVectorEmbedding, VLADEmbedding
from mil.embedding._encoder_classifiers import (KernelMeanClassifier, SlicedWassersteinClassifier, miFVClassifier,
                                                miVLADClassifier)
from mil.embedding._encoding import CHUNK_BYTES  # noqa: F401  (the encoders' chunk budget)
from mil.embedding._kernel_mean import KernelMeanEmbedding
from mil.embedding._regressors import (KernelMeanRegressor, MInDRegressor, SlicedWassersteinRegressor, miFVRegressor,
                                       miVLADRegressor)
from mil.embedding._sliced import SlicedWassersteinEmbedding
from mil.embedding._transformers import BagDissimilarityEmbedding, MILESEmbedding

__all__ = ["MILESEmbedding", "BagDissimilarityEmbedding", "MILESClassifier", "MInDClassifier",
           "VLADEmbedding", "FisherVectorEmbedding", "KernelMeanEmbedding", "SlicedWassersteinEmbedding",
           "miFVClassifier", "miVLADClassifier", "KernelMeanClassifier", "SlicedWassersteinClassifier",
           "KernelMeanRegressor", "MInDRegressor", "miFVRegressor", "miVLADRegressor", "SlicedWassersteinRegressor"]
