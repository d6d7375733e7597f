"""layerbench's Python side, one package (python/README.md):

  api       run, load, compare, report: the Python API (docs/python-api.md), re-exported here
  native    the installed `layerbench` command (`python -m layerbench`): the native binary inside
            the package (pip install: pyproject.toml)
  reports   the report tool: the results reader and schema checks, the formatter, report, compare,
            csv, merge (`python -m layerbench.reports`, what `layerbench report|compare|csv|merge|db` runs)
  db        the results database with its history (`layerbench db`)
  lab       the Python labs' rules and runners (the lab child's embedded interpreter)
"""
from .api import Case, Results, RunError, UsageError, compare, compare_markdown, load, report, run

__all__ = ["Case", "Results", "RunError", "UsageError", "compare", "compare_markdown", "load", "report", "run"]
