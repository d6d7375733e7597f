"""CSV: one row per case, with every field its JSON entry holds.

The first columns name the case (workload, layer, size, n, m, k) and give its main figures; every
other field of the entries follows in alphabetical order, so nothing the JSON holds is dropped.
Numbers keep full precision; null, absent and non-finite (NaN) fields are empty cells; nested values (none today)
are written as JSON.
"""
from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

from . import fmt, output
from .results import Results

LEAD = ["workload", "layer", "size", "n", "m", "k", "status", "message", "verified", "median_ms",
        "rel_stddev", "samples", "mean_ms", "min_ms", "max_ms", "gbps", "gflops", "fraction_of_copy",
        "end_to_end_ms", "allocate_ms", "first_run_ms", "bytes_moved", "flops", "max_rel_error",
        "tolerance", "seed"]


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return ""  # NaN or an infinity (Python's json reads them): not a number, as null is not
    if isinstance(value, float):
        return repr(value) if value != int(value) or abs(value) >= 1e16 else str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def rows(results: Results) -> tuple[list[str], list[list[str]]]:
    keys: set[str] = set()
    for case in results.cases:
        keys.update(case.entry)
    header = LEAD + sorted(keys - set(LEAD))
    table = []
    for case in results.cases:
        values = dict(case.entry)
        values["workload"], values["layer"] = case.workload, case.layer
        values["size"] = fmt.size_label(case.size, unicode=False)
        values["status"] = case.status
        values.setdefault("message", case.message or None)
        table.append([_cell(values.get(column)) for column in header])
    return header, table


def text(results: Results) -> str:
    header, table = rows(results)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(table)
    return buffer.getvalue()


def write(results: Results, path: Path) -> None:
    output.write_output(path, text(results))
