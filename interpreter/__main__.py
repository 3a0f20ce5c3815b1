"""``python -m interpreter`` runs the ``rulelang`` command."""

import sys

from .tools.cli import main

sys.exit(main())
