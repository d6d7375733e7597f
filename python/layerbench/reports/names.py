"""A case's name in today's form, as the harness writes it (harness/benchmark_run.h):
`<workload>/<layer>[:<rung>]/<size>`, `/manual_time` after it for a timed case, and an aggregate's
`_<statistic>` after that. Google Benchmark's tools/compare.py matches two files' cases by this
name alone, so every committed results file holds to it (tests/tools/test_results_names.py);
tools/upgrade-results re-makes a file of an older form (names with `/iterations:1/`, from the
harness before it ran its own sampling loop)."""
from __future__ import annotations

import re
from typing import Any

TIMED_SUFFIX = "/manual_time"
_ITERATIONS = re.compile(r"/iterations:\d+(?=/|$)")


def size_label(entry: dict[str, Any]) -> str:
    """The size as the name writes it: n, MxN or MxNxK, from the entry's m, n and k."""
    return "x".join(str(entry[key]) for key in ("m", "n", "k") if isinstance(entry.get(key), int))


def layer_label(entry: dict[str, Any]) -> str:
    rung = entry.get("rung")
    if isinstance(rung, dict) and isinstance(rung.get("id"), str):
        return f"{entry['layer']}:{rung['id'].split('/', 1)[-1]}"
    return str(entry.get("layer"))


def expected_name(entry: dict[str, Any]) -> str:
    """Today's name for a benchmarks[] entry: from its workload, layer (and rung) and size; timed
    (`/manual_time`) when its recorded name says so; an aggregate's statistic last."""
    name = str(entry.get("name", ""))
    base = f"{entry.get('workload')}/{layer_label(entry)}/{size_label(entry)}"
    aggregate = entry.get("aggregate_name") if entry.get("run_type") == "aggregate" else None
    stem = name[: -len(f"_{aggregate}")] if aggregate and name.endswith(f"_{aggregate}") else name
    timed = stem.endswith(TIMED_SUFFIX)
    return base + (TIMED_SUFFIX if timed else "") + (f"_{aggregate}" if aggregate else "")


def without_iterations(name: str) -> str:
    """An older name without its `/iterations:N` part."""
    return _ITERATIONS.sub("", name)
