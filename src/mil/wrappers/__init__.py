"""Propositional baselines around any scikit-learn estimator, for class labels and real-valued targets.

Frank and Xu (2003), "Applying propositional learning algorithms to
multi-instance data", turn a multi-instance problem into an ordinary one in
two simple ways, available in Weka as ``SimpleMI`` and ``MIWrapper``:

- SimpleMI summarises each bag by one vector of per-feature statistics and
  fits the inner estimator on one row per bag
  (:class:`SimpleMIClassifier`, :class:`SimpleMIRegressor`);
- MIWrapper gives every instance its bag's label, weights the instances so
  that every bag carries the same total weight, fits the inner estimator on
  the instances, and combines a bag's instance outputs into the bag's
  (:class:`MIWrapperClassifier`, :class:`MIWrapperRegressor`).

:class:`PrimaryInstanceRegressor` (Ray and Page 2001) refits the instance
regressor on the one instance of each bag that fits its target best, in
alternation, for targets carried by one instance per bag.
Both are the baselines every multi-instance learner should be measured
against: with a decision tree inside they are already competitive on the
classic benchmark sets (see the "Wrappers" page of the user guide).
:class:`SingleInstanceClassifier` hands a bag classifier of mil to
scikit-learn's meta-estimators as an ordinary classifier of rows.
"""

from mil.wrappers._classifiers import (GEOMETRIC_CLIP, MIWrapperClassifier, SimpleMIClassifier,
                                       SingleInstanceClassifier)
from mil.wrappers._primary import PrimaryInstanceRegressor
from mil.wrappers._regressors import MIWrapperRegressor, SimpleMIRegressor, default_ridge, pool_by_bag
from mil.wrappers._summaries import STATISTICS, SUMMARIES, bag_statistics, bag_summaries

__all__ = ["SimpleMIClassifier", "MIWrapperClassifier", "SingleInstanceClassifier", "SimpleMIRegressor",
           "MIWrapperRegressor", "PrimaryInstanceRegressor", "bag_summaries", "bag_statistics", "default_ridge",
           "pool_by_bag", "GEOMETRIC_CLIP", "STATISTICS", "SUMMARIES"]
