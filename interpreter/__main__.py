"""``python -m interpreter`` runs the ``rulelang`` command."""

import sys

from .cli import main

sys.exit(main())
