import sys

from rho_desk.cli import main

sys.exit(main())
