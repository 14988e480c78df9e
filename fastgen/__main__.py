"""``python -m fastgen``: the same command line as the ``fastgen`` script."""

import sys

from fastgen.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
