"""Rule objects of RIPPER-MI and their text export.

A :class:`Rule` is a conjunction of :class:`Condition` objects
(``x_f <= t`` or ``x_f >= t``) that covers a bag iff one of the bag's
instances satisfies every condition. Rules are plain immutable Python
objects (they pickle, and compare equal by value); :func:`pack_rules` turns a
rule list into the flat arrays the coverage kernels read.
"""

from typing import NamedTuple

import numpy as np

__all__ = ["Condition", "Rule", "pack_rules", "format_rules"]

_OPS = ("<=", ">=")


class Condition(NamedTuple):
    """One condition ``x[feature] <= threshold`` (op 0) or ``x[feature] >= threshold`` (op 1)."""

    feature: int
    op: int
    threshold: float

    def to_text(self, feature_names=None):
        name = f"f{self.feature}" if feature_names is None else str(feature_names[self.feature])
        return f"{name} {_OPS[self.op]} {self.threshold:.6g}"


class Rule:
    """A conjunction of conditions predicting the positive class, with its bag coverage.

    Parameters
    ----------
    conditions : sequence of Condition or (feature, op, threshold) tuples
    p, n : int, default=0
        Positive and negative training bags the rule covers.

    Examples
    --------
    >>> r = Rule([(12, 0, 3.5), (40, 1, -10.0)], p=7, n=1)
    >>> print(r)
    IF f12 <= 3.5 AND f40 >= -10 THEN positive  [7+, 1-]
    """

    __slots__ = ("conditions", "p", "n")

    def __init__(self, conditions, p=0, n=0):
        self.conditions = tuple(Condition(int(f), int(o), float(t)) for f, o, t in conditions)
        self.p = int(p)
        self.n = int(n)

    def __len__(self):
        return len(self.conditions)

    def __eq__(self, other):
        return isinstance(other, Rule) and (self.conditions, self.p, self.n) == (
            other.conditions, other.p, other.n)

    def __hash__(self):
        return hash((self.conditions, self.p, self.n))

    def __getstate__(self):
        return (self.conditions, self.p, self.n)

    def __setstate__(self, state):
        self.conditions, self.p, self.n = state

    @property
    def laplace(self):
        """Laplace-corrected precision ``(p + 1) / (p + n + 2)`` on the training bags."""
        return (self.p + 1.0) / (self.p + self.n + 2.0)

    def to_text(self, feature_names=None):
        """One line: ``IF <conditions> THEN positive  [p+, n-]``."""
        body = " AND ".join(c.to_text(feature_names) for c in self.conditions) or "TRUE"
        return f"IF {body} THEN positive  [{self.p}+, {self.n}-]"

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        return f"Rule({[tuple(c) for c in self.conditions]!r}, p={self.p}, n={self.n})"


def pack_rules(conditions_list):
    """Flatten rules (sequences of conditions) into kernel arrays.

    Returns
    -------
    rule_ptr : ndarray of intp, shape (n_rules + 1,)
    features : ndarray of intp
    ops : ndarray of uint8
    thresholds : ndarray of float64
    """
    lengths = [len(c) for c in conditions_list]
    rule_ptr = np.zeros(len(lengths) + 1, dtype=np.intp)
    np.cumsum(lengths, out=rule_ptr[1:])
    flat = [c for conds in conditions_list for c in conds]
    features = np.array([c[0] for c in flat], dtype=np.intp)
    ops = np.array([c[1] for c in flat], dtype=np.uint8)
    thresholds = np.array([c[2] for c in flat], dtype=np.float64)
    return rule_ptr, features, ops, thresholds


def format_rules(rules, feature_names=None, default=None):
    """Text of a rule list, one rule per line, then the default rule if given as (p, n)."""
    lines = [r.to_text(feature_names) for r in rules]
    if default is not None:
        lines.append(f"ELSE negative  [{default[0]}+, {default[1]}-]")
    return "\n".join(lines)
