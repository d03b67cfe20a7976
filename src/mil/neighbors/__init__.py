"""Neighbour classifiers on bags: Bag-KNN and Citation-KNN over Hausdorff distances (SPEC 5)."""

from mil.neighbors._alpha import nca_objective, select_alpha
from mil.neighbors._classifiers import BagKNNClassifier, CitationKNNClassifier

__all__ = ["BagKNNClassifier", "CitationKNNClassifier", "nca_objective", "select_alpha"]
