"""Neighbour classifiers on bags: Bag-KNN and Citation-KNN over Hausdorff distances.

Citation-KNN: Wang & Zucker, "Solving the multiple-instance problem: a lazy
learning approach" (ICML 2000). User guide: :doc:`/user_guide/neighbors`.
"""

from mil.neighbors._alpha import nca_objective, select_alpha
from mil.neighbors._classifiers import DISTANCE_RTOL, BagKNNClassifier, CitationKNNClassifier

__all__ = ["BagKNNClassifier", "CitationKNNClassifier", "DISTANCE_RTOL", "nca_objective", "select_alpha"]
