"""Rule learners: RIPPER-MI (RIPPER with multi-instance bag coverage)."""

from mil.rules._ripper import RipperMIClassifier
from mil.rules._rule import Condition, Rule

__all__ = ["Condition", "Rule", "RipperMIClassifier"]
