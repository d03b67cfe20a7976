"""Ensembles of multi-instance trees: GDBT-MI.

GDBT-MI boosts C4.5-MI trees grown with the split machinery of
:mod:`mil.tree` (shared code) on a bag-level logistic loss.
"""

from mil.ensemble._gdbt import GDBTMIClassifier
from mil.ensemble._plot import plot_staged_error

__all__ = ["GDBTMIClassifier", "plot_staged_error"]
