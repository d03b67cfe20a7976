"""What every command shares: the user-error exception and the checks of shared options."""

import re

from joblib import effective_n_jobs

from mil.utils._threads import idle_cores

__all__ = ["CLIError", "check_jobs", "quoted", "thread_budget"]


class CLIError(Exception):
    """A user error: printed as one line, exit status 2."""


def check_jobs(args):
    """``--jobs 0`` is an error (joblib would take it as one worker)."""
    if args.jobs is not None and args.jobs == 0:
        raise CLIError("--jobs must be a positive number of workers, or negative (-1: one per core); got 0")


def quoted(label):
    """A label as a user would type it on the command line."""
    text = str(label)
    return text if re.fullmatch(r"[\w.+-]+", text) else repr(text)


def thread_budget(jobs, n_tasks=None):
    """Threads of the BLAS / OpenMP pools of each worker: the idle cores shared by the workers.

    Inner pools sized for the whole machine fight the folds beside them and
    the programs that keep cores busy (an OpenMP pool of two threads on a
    machine with both cores busy made a fold of MIWrapper + gradient boosting
    many times slower than one thread); the cores less the load average,
    divided among the workers (``--jobs``, at most `n_tasks`), keep workers
    x threads within the free cores.
    """
    workers = effective_n_jobs(jobs)
    if n_tasks is not None:
        workers = min(workers, n_tasks)
    return max(1, idle_cores() // max(workers, 1))
