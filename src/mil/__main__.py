"""``python -m mil``: the command line (see :mod:`mil.cli`)."""

import sys

from mil.cli import main

if __name__ == "__main__":
    sys.exit(main())
