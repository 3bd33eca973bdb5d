"""Entry point of the frozen app: the same command line as the ``rho-desk`` script."""

import sys

from rho_desk.cli import main

if __name__ == "__main__":
    sys.exit(main())
