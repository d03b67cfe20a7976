"""Threads: over the features of a node (the trees, GDBT-MI, RIPPER-MI), and inner pools capped.

Inner pools: wherever mil runs folds or learners side by side, the BLAS and
OpenMP pools inside each (numpy's BLAS, scikit-learn's OpenMP) are capped
with threadpoolctl so that workers x threads stays within the cores
(:func:`threads_per_job`, :func:`limited_threads`); the command line also
leaves out the cores that other programs keep busy (:func:`idle_cores`).

Feature threads:
The split and condition kernels take feature-major arrays (one row per
feature) and release the GIL, and each feature's result depends on its row
alone. So a search over all features is cut into contiguous blocks of rows,
one per thread, and the blocks' results are concatenated: the same numbers in
the same order whatever the number of threads. The pool lives as long as one
fit, so a node pays a task hand-off (tens of microseconds), not a thread
start; nodes too small to gain from it run in the calling thread.
"""

import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np
from joblib import effective_n_jobs
from threadpoolctl import threadpool_info, threadpool_limits

__all__ = ["RowThreads", "available_cores", "call_limited", "idle_cores", "inner_threads", "limited_threads",
           "threads_per_job"]


def available_cores():
    """The cores this process may run on (its CPU affinity, else the machine's count)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # not on Linux
        return max(os.cpu_count() or 1, 1)


def idle_cores():
    """The cores not kept busy by other programs: the cores less the 1-minute load average, at least 1."""
    cores = available_cores()
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average on this system
        return cores
    return max(1, min(cores, int(cores - load + 0.5)))


def threads_per_job(n_workers, cores=None):
    """Threads each of `n_workers` side-by-side jobs may use so that together they fit the cores."""
    cores = available_cores() if cores is None else int(cores)
    return max(1, cores // max(int(n_workers), 1))


def _current_cap():
    """The largest pool among the BLAS / OpenMP libraries loaded (None: none loaded)."""
    sizes = [info["num_threads"] for info in threadpool_info()]
    return max(sizes) if sizes else None


def inner_threads(n_workers):
    """Threads of the inner pools of each of `n_workers` parallel folds.

    The cores shared out among the workers (:func:`threads_per_job`), and
    never more than the caller's own pools allow (a caller that capped its
    pools, as the command line does on a busy machine, caps its workers').
    """
    cap = _current_cap()
    share = threads_per_job(n_workers)
    return share if cap is None else max(1, min(share, cap))


@contextmanager
def limited_threads(n_threads):
    """Cap the BLAS and OpenMP pools of this process at `n_threads` inside the block (None: no cap).

    A cap never raises a pool: the pools get at most the smallest size they
    have now, so that a caller's ``OMP_NUM_THREADS=1`` (or an enclosing cap)
    keeps one thread in every pool even on an idle machine.
    """
    if n_threads is None:
        yield
        return
    sizes = [info["num_threads"] for info in threadpool_info()]
    with threadpool_limits(limits=max(1, min([int(n_threads), *sizes]))):
        yield


def call_limited(n_threads, func, *args, **kwargs):
    """``func(*args, **kwargs)`` with the inner pools capped at `n_threads` (in a worker process)."""
    with limited_threads(n_threads):
        return func(*args, **kwargs)

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
