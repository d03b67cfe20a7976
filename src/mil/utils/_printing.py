"""The pieces every printed model of mil shares: a leaf's or a rule's outcome, counts, the truncation marker.

One format for the trees, the forests, BLRT, GDBT-MI and RIPPER-MI:
``class: <label> (bags: <label>=<count>, ...; p=<probability>)`` for an
outcome, with the class labels as the user gave them, counts of bags named
``bags``, weights named ``bag weight`` or ``instance weight``, and a last
line ``... (N more lines; max_lines=K)`` where a printout was cut.
"""

import numbers

__all__ = ["count_text", "outcome_text", "truncate_lines"]


def count_text(c):
    """A count as text: a whole number as an int, a weight to 4 significant digits."""
    c = float(c)
    return f"{int(c)}" if c.is_integer() else f"{c:.4g}"


def _spread(names, counts):
    return ", ".join(f"{name}={count_text(c)}" for name, c in zip(names, counts))


def outcome_text(label, names, counts, unit="bags", weights=None, weight_unit="bag weight", p=None, decimals=2):
    """``class: <label> (<unit>: <name>=<count>, ...[; <weight_unit>: ...][; p=<p>])``.

    Parameters
    ----------
    label : label
        The predicted class, as the user gave it.
    names : sequence
        The class of each count (labels as the user gave them).
    counts : sequence of numbers
        Training bags (or the unit's items) of each class.
    unit : str, default="bags"
        What `counts` count: ``"bags"``, ``"bag weight"``, ``"instances"``
        or ``"instance weight"``.
    weights : sequence of float or None, default=None
        The same per class as weights, printed after the counts when given.
    weight_unit : str, default="bag weight"
    p : float or None, default=None
        The probability of `label` the model gives there.
    decimals : int, default=2
        Decimals of `p`.
    """
    parts = [f"{unit}: {_spread(names, counts)}"]
    if weights is not None:
        parts.append(f"{weight_unit}: {_spread(names, weights)}")
    if p is not None:
        parts.append(f"p={p:.{decimals}f}")
    return f"class: {label} ({'; '.join(parts)})"


def truncate_lines(lines, max_lines):
    """The first `max_lines` lines joined, and a last line saying how many were cut (None keeps all)."""
    if max_lines is not None and (isinstance(max_lines, bool) or not isinstance(max_lines, numbers.Integral)
                                  or max_lines < 1):
        raise ValueError(f"max_lines must be a positive integer or None; got {max_lines!r}")
    if max_lines is None or len(lines) <= max_lines:
        return "\n".join(lines)
    cut = len(lines) - max_lines
    return "\n".join([*lines[:max_lines], f"... ({cut} more line{'s' if cut > 1 else ''}; max_lines={max_lines})"])
