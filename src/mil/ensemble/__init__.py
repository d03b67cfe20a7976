"""Ensembles of multi-instance trees: GDBT-MI and the MI random forest.

GDBT-MI boosts C4.5-MI trees grown with the split machinery of
:mod:`mil.tree` (shared code) on a bag-level logistic loss; the random
forest averages C4.5-MI / ID3-MI trees grown on bootstrap samples of the
bags with random feature subsets (the same machinery). Bag-level randomized
trees (BLRT) grow extremely randomised trees whose rules read a share of a
bag's instances (:class:`mil.tree.BagRatioTree`, also importable from here).
"""

from mil.ensemble._blrt import BagRandomTreesClassifier
from mil.ensemble._forest import MIRandomForestClassifier
from mil.ensemble._gdbt import GDBTMIClassifier
from mil.ensemble._plot import plot_staged_error
from mil.tree._bag_ratio import BagRatioTree  # noqa: F401  (documented and listed in mil.tree)

__all__ = ["BagRandomTreesClassifier", "GDBTMIClassifier", "MIRandomForestClassifier", "plot_staged_error"]
