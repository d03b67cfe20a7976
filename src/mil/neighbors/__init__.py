"""Neighbour learners on bags: Bag-KNN and Citation-KNN over Hausdorff distances.

Classifiers (Wang & Zucker, "Solving the multiple-instance problem: a lazy
learning approach", ICML 2000) and regressors (Amar, Dooly, Goldman and
Zhang, "Multiple-instance learning of real-valued data", ICML 2001) on one
neighbour search. User guide: :doc:`/user_guide/neighbors`.
"""

from mil.neighbors._alpha import kernel_regression_loss, nca_objective, select_alpha
from mil.neighbors._classifiers import DISTANCE_RTOL, BagKNNClassifier, CitationKNNClassifier
from mil.neighbors._regressors import BagKNNRegressor, CitationKNNRegressor

__all__ = ["BagKNNClassifier", "BagKNNRegressor", "CitationKNNClassifier", "CitationKNNRegressor", "DISTANCE_RTOL",
           "kernel_regression_loss", "nca_objective", "select_alpha"]
