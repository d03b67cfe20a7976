"""Threads over the features of a node: the `n_jobs` of the trees, GDBT-MI and RIPPER-MI.

The split and condition kernels take feature-major arrays (one row per
feature) and release the GIL, and each feature's result depends on its row
alone. So a search over all features is cut into contiguous blocks of rows,
one per thread, and the blocks' results are concatenated: the same numbers in
the same order whatever the number of threads. The pool lives as long as one
fit, so a node pays a task hand-off (tens of microseconds), not a thread
start; nodes too small to gain from it run in the calling thread.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from joblib import effective_n_jobs

__all__ = ["RowThreads"]

#: Below this many (instance, feature) cells a search runs in the calling
#: thread: about 0.1 ms of kernel time, a few times the hand-off cost.
MIN_CELLS_PER_THREAD = 50_000


class RowThreads:
    """Run a function over blocks of rows in a pool of threads.

    Parameters
    ----------
    n_jobs : int or None
        Threads, as in joblib (None: 1, -1: one per core); at most `n_rows`.
    n_rows : int
        Number of rows (features) to share out.

    Examples
    --------
    >>> import numpy as np
    >>> with RowThreads(2, 5) as threads:
    ...     parts = threads.run(lambda lo, hi: np.arange(lo, hi), cells=10**6)
    >>> np.concatenate(parts).tolist()  # the blocks' results in row order
    [0, 1, 2, 3, 4]
    """

    def __init__(self, n_jobs, n_rows):
        if n_jobs == 0:
            raise ValueError("n_jobs=0 is not a number of threads: use None or 1 for one, "
                             "-1 for one per core")
        self.n_rows = int(n_rows)
        self.n_threads = max(1, min(effective_n_jobs(n_jobs), self.n_rows))
        edges = np.linspace(0, self.n_rows, self.n_threads + 1).round().astype(int)
        self.bounds = list(zip(edges[:-1].tolist(), edges[1:].tolist()))
        self._pool = ThreadPoolExecutor(self.n_threads) if self.n_threads > 1 else None

    def run(self, func, cells):
        """``[func(lo, hi) for each block]``, in threads when `cells` is large enough.

        Parameters
        ----------
        func : callable
            ``func(lo, hi)`` works on rows ``lo:hi``; it must release the GIL
            to gain from threads, and must not touch other rows.
        cells : int
            Size of the whole job (rows times columns), to decide whether
            threads pay off.

        Returns
        -------
        parts : list
            One result per block in row order (a single one when run serially).
        """
        if self._pool is None or cells < MIN_CELLS_PER_THREAD * self.n_threads:
            return [func(0, self.n_rows)]
        return list(self._pool.map(lambda b: func(*b), self.bounds))

    def concat(self, func, cells):
        """:meth:`run` for a `func` returning a tuple of arrays over its rows, joined back.

        Returns
        -------
        arrays : tuple of ndarray
            Each output of `func` concatenated along axis 0 over the blocks,
            as if `func(0, n_rows)` had been called.
        """
        parts = self.run(func, cells)
        if len(parts) == 1:
            return parts[0]
        return tuple(np.concatenate(out) for out in zip(*parts))

    def close(self):
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
