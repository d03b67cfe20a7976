"""Bag embeddings and the classifiers built on them: MILES and bag dissimilarities (MInD).

Both embeddings are reductions of one quantity, the squared distance from
every instance to the nearest instance of every bag, computed in one pass
of the compiled bag-distance kernel (:func:`mil.distances.instance_bag_minima`).
The transformers turn bags into one row per bag for any scikit-learn model;
the classifiers add the learner of the original papers and choose their
hyper-parameters inside ``fit`` on slices of that single pass.
"""

from mil.embedding._classifiers import MILESClassifier, MInDClassifier
from mil.embedding._transformers import BagDissimilarityEmbedding, MILESEmbedding

__all__ = ["MILESEmbedding", "BagDissimilarityEmbedding", "MILESClassifier", "MInDClassifier"]
