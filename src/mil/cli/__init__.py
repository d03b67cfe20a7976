"""The ``mil`` command line: evaluate learners on bags, reproduce the papers' tables, show the configuration.

``mil`` with no arguments runs the quick default job (a few fast, strong
learners: :data:`mil._learners.DEFAULT_JOB`) on the shipped Musk1 with its
published 10-fold assignment; ``--model all`` runs every learner. ``mil
evaluate`` takes a user's ARFF or long CSV file as it is (word labels, NaN,
more than two classes): a learner that cannot take the data is reported as
skipped with its reason and the others run. User errors are one line on
stderr and exit status 2.

The package's modules, in the order a command uses them: ``_parser`` (the
options), ``_reading`` (the data), ``_planning`` (the positive class and the
folds), ``_evaluate`` and ``_reproduce`` (the commands), ``_report`` (the
one writer of tables, JSON, notes and timings).
"""

import sys

from mil.cli._common import CLIError, check_jobs, thread_budget
from mil.cli._evaluate import cmd_default, cmd_evaluate, cmd_info
from mil.cli._parser import build_parser
from mil.cli._reproduce import COMMANDS
from mil.utils._threads import limited_threads

__all__ = ["build_parser", "main"]


def _reproduce(args):
    # The reproductions' folds run with the inner pools capped as mil evaluate's (see thread_budget).
    if hasattr(args, "jobs"):
        check_jobs(args)
    with limited_threads(thread_budget(getattr(args, "jobs", None))):
        return COMMANDS[args.target](args)


def main(argv=None):
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    handlers = {None: cmd_default, "evaluate": cmd_evaluate, "info": cmd_info, "reproduce": _reproduce}
    try:
        return handlers[args.command](args)
    except CLIError as exc:
        print(f"mil: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mil: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`, which closed early
        sys.stderr.close()
        return 0
