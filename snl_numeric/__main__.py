"""``python -m snl_numeric`` runs the ``snl`` command line."""

import sys

from .cli import main

sys.exit(main())
