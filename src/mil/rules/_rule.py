"""Rule objects of RIPPER-MI and their text export.

A :class:`Rule` is a conjunction of :class:`Condition` objects
(``x_f <= t`` or ``x_f >= t``) predicting one class; it covers a bag iff one
of the bag's instances satisfies every condition. Rules are plain immutable Python
objects (they pickle, and compare equal by value); :func:`pack_rules` turns a
rule list into the flat arrays the coverage kernels read.
"""

from typing import NamedTuple

import numpy as np

from mil.utils._printing import outcome_text, truncate_lines

__all__ = ["Condition", "Rule", "pack_rules", "format_rules"]

_OPS = ("<=", ">=")


class Condition(NamedTuple):
    """One condition ``x[feature] <= threshold`` (op 0) or ``x[feature] >= threshold`` (op 1)."""

    feature: int
    op: int
    threshold: float

    def to_text(self, feature_names=None):
        name = f"x{self.feature}" if feature_names is None else str(feature_names[self.feature])
        return f"{name} {_OPS[self.op]} {self.threshold:.6g}"


def _count(c):
    """A (weighted) count: an int when it is a whole number, else a float."""
    c = float(c)
    return int(c) if c.is_integer() else c


class Rule:
    """A conjunction of conditions predicting one class, with its training coverage.

    Parameters
    ----------
    conditions : sequence of Condition or (feature, op, threshold) tuples
        No condition: the rule covers every bag (a default rule).
    p, n : int or float, default=0
        Training bags of the rule's class / of the other classes it covers.
    label : label, default=None
        The rule's class (None: the positive class of a two-class problem).
    counts : sequence of int or float, default=None
        Training bags of each class the rule covers (in ``classes_`` order);
        None means ``(n, p)``: two classes, the rule's class second. Counts
        are weights of bags when the rules were learned with weights; a
        whole number is kept as an int.

    Examples
    --------
    >>> r = Rule([(12, 0, 3.5), (40, 1, -10.0)], p=7, n=1, label="musk", counts=[7, 1])
    >>> print(r)
    IF x12 <= 3.5 AND x40 >= -10 THEN class: musk (bags: musk=7, other=1; p=0.80)
    >>> r.laplace                       # (7 + 1) / (7 + 1 + 2 classes)
    0.8
    >>> r.distribution.tolist()         # (counts + 1) / (8 + 2)
    [0.8, 0.2]
    """

    __slots__ = ("conditions", "p", "n", "label", "counts")

    def __init__(self, conditions, p=0, n=0, label=None, counts=None):
        self.conditions = tuple(Condition(int(f), int(o), float(t)) for f, o, t in conditions)
        self.p = _count(p)
        self.n = _count(n)
        self.label = label
        self.counts = (self.n, self.p) if counts is None else tuple(_count(c) for c in counts)

    def __len__(self):
        return len(self.conditions)

    def _key(self):
        return (self.conditions, self.p, self.n, self.label, self.counts)

    def __eq__(self, other):
        return isinstance(other, Rule) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __getstate__(self):
        return self._key()

    def __setstate__(self, state):
        self.conditions, self.p, self.n, self.label, self.counts = state

    @property
    def laplace(self):
        """Laplace-corrected precision ``(p + 1) / (p + n + n_classes)`` on the training bags."""
        return (self.p + 1.0) / (self.p + self.n + len(self.counts))

    @property
    def distribution(self):
        """Laplace-corrected class distribution ``(counts + 1) / (sum(counts) + n_classes)``."""
        counts = np.asarray(self.counts, dtype=np.float64)
        return (counts + 1.0) / (counts.sum() + counts.shape[0])

    def to_text(self, feature_names=None, classes=None, unit="bags"):
        """One line: ``IF <conditions> THEN class: <label> (<unit>: <class>=<count>, ...; p=<laplace>)``.

        `classes` names the columns of ``counts`` (``classes_``); without it
        the rule's own class and ``other`` (``p`` and ``n``) are printed.
        `unit` says what the counts count (``"bags"``, ``"bag weight"``,
        ``"instances"`` or ``"instance weight"``).
        """
        body = " AND ".join(c.to_text(feature_names) for c in self.conditions) or "TRUE"
        return f"IF {body} THEN {self._outcome(classes, unit)}"

    def _outcome(self, classes, unit):
        label = "positive" if self.label is None else self.label
        names, counts = ((label, "other"), (self.p, self.n)) if classes is None else (classes, self.counts)
        return outcome_text(label, names, counts, unit, p=self.laplace)

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        return (f"Rule({[tuple(c) for c in self.conditions]!r}, p={self.p}, n={self.n}, "
                f"label={self.label!r}, counts={self.counts!r})")


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


def format_rules(rules, feature_names=None, default=None, classes=None, by_class=False, unit="bags",
                 max_lines=None):
    """Text of a rule list, one rule per line, then the default rule.

    Parameters
    ----------
    rules : list of Rule
    feature_names : sequence of str, default=None
    default : Rule, default=None
        Printed last as ``ELSE class: <label> (<unit>: <class>=<count>, ...;
        p=...)``, its counts the training items no rule covers.
    classes : sequence, default=None
        Class labels, in the order of the rules' ``counts``.
    by_class : bool, default=False
        Put a line ``rules for class <label>:`` before each class's rules
        (unordered rule sets).
    unit : str, default="bags"
        What the counts count: ``"bags"``, ``"bag weight"``, ``"instances"``
        or ``"instance weight"``.
    max_lines : int or None, default=None
        Print at most this many lines, then a line saying how many were cut.
    """
    lines = []
    for i, r in enumerate(rules):
        if by_class and (i == 0 or rules[i - 1].label != r.label):
            lines.append(f"rules for class {r.label}:")
        lines.append(("  " if by_class else "") + r.to_text(feature_names, classes, unit))
    if default is not None:
        names = range(len(default.counts)) if classes is None else classes
        lines.append(f"ELSE {default._outcome(names, unit)}")
    return truncate_lines(lines, max_lines)
