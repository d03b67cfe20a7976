"""Seeds drawn from a ``random_state``: one bound and one way to draw them, for every module.

scikit-learn's ensembles give each of their parts its own integer seed drawn from the
estimator's generator (below ``np.iinfo(np.int32).max``); mil's learners do the same,
so that two draws of one fit never share a seed.
"""

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["SEED_MAX", "sub_seeds"]

#: Seeds are drawn below this bound (scikit-learn's ``MAX_INT`` for sub-seeds).
SEED_MAX = np.iinfo(np.int32).max


def sub_seeds(random_state, n):
    """`n` independent seeds drawn at once from `random_state`, as scikit-learn's ensembles draw theirs.

    Parameters
    ----------
    random_state : int, RandomState or None
    n : int

    Returns
    -------
    seeds : ndarray of int of shape (n,)

    Examples
    --------
    >>> from mil.utils._seeds import sub_seeds
    >>> a, b = sub_seeds(0, 2)
    >>> bool(a != b) and sub_seeds(0, 2).tolist() == [a, b]
    True
    """
    return check_random_state(random_state).randint(SEED_MAX, size=n)
