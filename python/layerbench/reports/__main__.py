"""`python -m layerbench.reports SUBCOMMAND ...`: the report tool's command line (cli.py)."""
import sys

from .cli import main

sys.exit(main())
