"""The recommended classifier for the CLI registry: importable only with POT installed.

As :mod:`mil.svm._requires_pot` for ``emd-svm``: ``mil._learners`` lists a
learner as available when its module imports, so ``recommended`` (whose EMD
SVM member needs the optional ``pot`` package) is listed only with POT.
"""

import ot  # noqa: F401  (the requirement itself)

from mil.ensemble._recommended import make_recommended_classifier

__all__ = ["make_recommended_classifier"]
