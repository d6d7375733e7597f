"""layerbench's report tool: reads the harness's JSON results and writes what a person reads.

Modules:
  results   load and validate a results file; cases keyed by (workload, layer, size)
  fmt       number, size and noise formatting shared by every writer
  plots     the figures (PNG and SVG) with matplotlib
  document  a small block model rendered to Markdown and to self-contained HTML
  report    the report: which figures, tables and words, from one results file
  compare   two results files case by case, with a verdict that accounts for the noise
  csvout    one CSV row per case with every field the JSON holds
  cli       the command line: report, compare, csv
"""
