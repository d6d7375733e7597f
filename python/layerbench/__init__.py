"""layerbench's Python side, one package (python/README.md):

  reports   the report tool: the results reader and schema checks, the formatter, report, compare,
            csv, merge (`python -m layerbench.reports`, what `layerbench report|compare|csv|merge|db` runs)
  db        the results database with its history (`layerbench db`)
"""
