"""BagKernelSVC for the CLI registry's EMD entry: importable only with POT installed.

``mil._learners`` lists a learner as available when its module imports, so
``emd-svm`` drops out of ``mil``'s default job (instead of failing) when the
optional ``pot`` package is missing.
"""

import ot  # noqa: F401  (the requirement itself)

from mil.svm._bag_svc import BagKernelSVC

__all__ = ["BagKernelSVC"]
