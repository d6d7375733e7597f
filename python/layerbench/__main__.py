"""`python -m layerbench ARGS`: the same as the `layerbench ARGS` command (native.py)."""
import sys

from .native import main

sys.exit(main())
