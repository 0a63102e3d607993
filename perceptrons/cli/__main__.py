"""``python -m perceptrons.cli``: the ``perceptrons`` command."""

import sys

from . import main

sys.exit(main())
