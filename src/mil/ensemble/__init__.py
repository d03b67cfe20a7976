"""Ensembles of multi-instance trees: GDBT-MI and the MI random forest.

GDBT-MI boosts C4.5-MI trees grown with the split machinery of
:mod:`mil.tree` (shared code) on a bag-level logistic loss
(:class:`GDBTMIClassifier`) or a regression loss (:class:`GDBTMIRegressor`); the random
forest averages C4.5-MI / ID3-MI trees grown on bootstrap samples of the
bags with random feature subsets (the same machinery). Bag-level randomized
trees (BLRT) grow extremely randomised trees whose rules read a share of a
bag's instances (:class:`mil.tree.BagRatioTree`, also importable from here).
:func:`make_recommended_classifier` makes the soft vote of MInD, the EMD kernel
SVM and BLRT.
"""

from mil.ensemble._blrt import BagRandomTreesClassifier, BagRandomTreesRegressor
from mil.ensemble._forest import MIRandomForestClassifier
from mil.ensemble._gdbt import GDBTMIClassifier
from mil.ensemble._gdbt_regressor import GDBTMIRegressor
from mil.ensemble._plot import plot_staged_error
from mil.ensemble._recommended import make_recommended_classifier
from mil.tree._bag_ratio import BagRatioTree  # noqa: F401  (documented and listed in mil.tree)

__all__ = ["BagRandomTreesClassifier", "BagRandomTreesRegressor", "GDBTMIClassifier", "GDBTMIRegressor",
           "MIRandomForestClassifier", "make_recommended_classifier", "plot_staged_error"]
