"""Parameter checks shared by the data generators."""

import numbers

import numpy as np

__all__ = ["float_dtype", "numeric_or_strings", "positive_int", "real_number", "share_range", "size_range"]


def positive_int(value, name, minimum=1):
    """`value` as an int, or a ValueError naming `name` when it is not an integer >= `minimum`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    return int(value)


def real_number(value, name, low=None, high=None):
    """`value` as a float within [low, high] (None: unbounded), or a ValueError naming `name`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or np.isnan(value):
        raise ValueError(f"{name} must be a number; got {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"[{'-inf' if low is None else low}, {'inf' if high is None else high}]"
        raise ValueError(f"{name} must lie in {bounds}; got {value!r}")
    return float(value)


def float_dtype(dtype):
    """`dtype` as float32 or float64, or a ValueError."""
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64; got {dtype}")
    return dtype


def size_range(value, name):
    """`value` as an inclusive (low, high) integer range (an int is a fixed size)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        low = high = int(value)
    else:
        try:
            low, high = value
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be an integer or a (low, high) pair; got {value!r}") from None
        if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in (low, high)):
            raise ValueError(f"{name} must be an integer or a (low, high) pair of integers; got {value!r}")
        low, high = int(low), int(high)
    if low < 1 or low > high:
        raise ValueError(f"{name} must be >= 1 with low <= high; got {value!r}")
    return low, high


def share_range(value, name):
    """`value` as a (low, high) range of shares in (0, 1] (a number is a fixed share)."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        low = high = float(value)
    else:
        try:
            low, high = (float(v) for v in value)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a share or a (low, high) pair of shares; got {value!r}") from None
    if not 0 < low <= high <= 1:
        raise ValueError(f"{name} must lie in (0, 1] with low <= high; got {value!r}")
    return low, high


def numeric_or_strings(cells, canonical=False, floats=False):
    """Integers when every cell is one, else (with `floats`) floats when every cell is a number, else strings.

    With `canonical`, integers only when every cell is written as Python
    writes the integer (so ids "1" and "01" stay two bags, as written).
    Each distinct cell is converted once.
    """
    unique, inverse = np.unique(np.asarray(cells, dtype=object), return_inverse=True)
    inverse = inverse.ravel()
    strings = [str(c) for c in unique]
    try:
        values = [int(c) for c in strings]
    except ValueError:
        values = None
    if values is not None and not (canonical and any(str(v) != c for v, c in zip(values, strings))):
        return np.array(values)[inverse]
    if floats and values is None:
        try:
            return np.array([float(c) for c in strings])[inverse]
        except ValueError:
            pass
    return np.array(strings)[inverse]
