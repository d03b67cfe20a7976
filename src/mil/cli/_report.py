"""The one report writer of the command line: tables, JSON documents, notes and timings.

``mil evaluate`` and every ``mil reproduce`` table print through it: a
header line, a plain-text table, notes, and the total time; or, with
``--json``, one JSON document on stdout (progress and notes go to stderr).
"""

import json
import sys

import numpy as np

__all__ = ["floats", "print_json", "print_table_report", "protocol_note", "result_json", "table",
           "total_seconds"]


def table(rows, columns):
    """A plain-text table: the header, a rule, one line per row (columns padded)."""
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip()
    out = [line, "-" * len(line)]
    out += ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(out)


def floats(values):
    """Numbers for JSON: floats, None where a value is undefined (NaN)."""
    return [float(v) if np.isfinite(v) else None for v in np.atleast_1d(np.asarray(values, dtype=np.float64))]


def print_json(document):
    print(json.dumps(document, indent=2, default=str))


def total_seconds(result):
    """Seconds of every learner on every data set of a reproduction."""
    return float(sum(sum(per.values()) for per in result.seconds.values()))


def protocol_note(result):
    """`` (quick: ...)`` or `` (the folds used)`` after a reproduction's title."""
    if getattr(result, "quick", False):
        return f" (quick: {result.quick_note})"
    return f" ({getattr(result, 'protocol', 'published folds, repetition 0')})"


def result_json(result, title, **extra):
    """The JSON document of a reproduction: scores per learner and data set, seeds, times, `extra`."""
    doc = {"title": title, "quick": bool(getattr(result, "quick", False)),
           "protocol": getattr(result, "protocol", None),
           "accuracy": {l: {d: floats(a) for d, a in per.items()} for l, per in result.accuracy.items()}}
    if getattr(result, "seed_accuracy", None) is not None:
        doc["seeds"] = result.seeds
        for key in ("auc", "seed_accuracy", "seed_auc"):
            if getattr(result, key, None) is not None:
                doc[key] = {l: {d: floats(a) for d, a in per.items()} for l, per in getattr(result, key).items()}
    doc["seconds"] = {l: {d: float(s) for d, s in per.items()} for l, per in result.seconds.items()}
    doc.update(extra)
    return doc


def print_table_report(header, rows, columns, notes=(), seconds=None, file=None):
    """A header line, the table, notes (one per line) and the total time."""
    out = sys.stdout if file is None else file
    print(header + "\n", file=out)
    print(table(rows, columns), file=out)
    for note in notes:
        print(note, file=out)
    if seconds is not None:
        print(f"\ntotal time: {seconds:.1f} s", file=out)
