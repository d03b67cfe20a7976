"""What every command shares: the user-error exception and the checks of shared options."""

import re

__all__ = ["CLIError", "check_jobs", "quoted"]


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
