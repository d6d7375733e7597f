"""Adding results files: a run keyed by (host, device, date, commit, task), its cases, one
transaction per file; a merged file stored run by run."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..reports import results
from .store import Database, RESULTS_SCHEMA, _first_line, engine_errors, schema_version


# --- adding results --------------------------------------------------------------------------

class Refused(results.ResultsError):
    """A results file not added (already there, or bad); the others go on."""


def normal_date(text: Any) -> str | None:
    """A results file's context.date as UTC 'YYYY-MM-DDTHH:MM:SSZ' (sorts as text), or None."""
    if not isinstance(text, str) or not text.strip():
        return None
    text = text.strip()
    when = None
    for form in ("%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M:%S%z"):
        try:
            when = datetime.strptime(text, form)
            break
        except ValueError:
            pass
    if when is None:
        try:
            when = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def device_key(context: dict[str, Any]) -> str:
    """The device a run used: its UUID; before files recorded it, its PCI bus id on its host; 'cpu'
    for a run without a GPU."""
    device = context.get("device")
    if not isinstance(device, dict):
        return "cpu"
    if isinstance(device.get("uuid"), str) and device["uuid"]:
        return device["uuid"]
    host = _host(context)
    return f"pci:{device.get('pci_bus_id') or device.get('index', '?')}@{host}"


def _host(context: dict[str, Any]) -> str:
    host = context.get("host_name")
    if not host and isinstance(context.get("host"), dict):
        host = context["host"].get("hostname")
    return str(host or "?")


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass
class RunRow:
    """One run as the runs table holds it."""

    host: str
    device_uuid: str
    date: str
    source_commit: str
    task: str
    gpu_name: str
    pci_bus_id: str | None
    driver_version: str | None
    runtime_version: str | None
    harness_version: str | None
    schema_version: int
    merged_run: str
    context: dict[str, Any]

    @property
    def key(self) -> tuple:
        return (self.host, self.device_uuid, self.date, self.source_commit, self.task)

    def describe(self) -> str:
        return f"{self.date} on {self.host}, {self.gpu_name}, commit {self.source_commit or '?'}"


def run_row(path: str | Path, context: dict[str, Any], merged_run: str = "") -> RunRow:
    where = f"run {merged_run}: " if merged_run else ""
    lb = context.get("layerbench")
    if not isinstance(lb, dict):
        lb = {}
    version = lb.get("schema_version")
    if version != RESULTS_SCHEMA or isinstance(version, bool):
        raise Refused(path, f"{where}results schema version {json.dumps(version)}; the database takes version "
                            f"{RESULTS_SCHEMA} files (written by the current harness)")
    when = normal_date(context.get("date"))
    if when is None:
        raise Refused(path, f"{where}context.date is missing or not a date ({json.dumps(context.get('date'))[:40]})")
    device = context.get("device")
    if not isinstance(device, dict):
        device = {}
    task = context.get("task")
    return RunRow(host=_host(context), device_uuid=device_key(context), date=when,
                  source_commit=str(lb.get("source_commit") or ""),
                  task=json.dumps(task, sort_keys=True) if isinstance(task, dict) and task else "",
                  gpu_name=str(device.get("name") or ("no GPU" if not device else "?")),
                  pci_bus_id=_text(device.get("pci_bus_id")), driver_version=_text(device.get("driver_version")),
                  runtime_version=_text(device.get("runtime_version")), harness_version=_text(lb.get("version")),
                  schema_version=int(version), merged_run=merged_run, context=context)


def runs_of(data: results.Results) -> list[tuple[RunRow, results.Results]]:
    """The runs a results file holds: itself, or each run of a merged file with its own context."""
    if not data.runs:
        return [(run_row(data.path, data.context), data)]
    rows = []
    for run in data.runs:
        rows.append((run_row(data.path, run["context"], run["run"]), data.for_run(run["run"])))
    return rows


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def case_row(run_id: int, data: results.Results, case: results.Case) -> tuple:
    d = data.descriptor(case.workload)
    size = dict(zip(d.size_keys, case.size)) if len(d.size_keys) == len(case.size) else {}
    rung = case.rung["id"] if case.rung else ""
    samples = case.get("samples")
    return (run_id, case.order, case.name, case.workload, case.layer, rung, "x".join(str(v) for v in case.size),
            size.get("m"), size.get("n"), size.get("k"), d.figure, case.status, case.median_ms,
            case.get("rel_stddev"), int(samples) if samples is not None else None,
            _number(case.entry.get("gbps")), _number(case.entry.get("gflops")),
            json.dumps(case.entry, allow_nan=True))


_INSERT_RUN = ("INSERT INTO runs (host, device_uuid, date, source_commit, task, gpu_name, pci_bus_id, driver_version, "
               "runtime_version, harness_version, schema_version, merged_run, source_file, added_at, context) "
               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
_INSERT_CASE = ("INSERT INTO cases (run_id, position, name, workload, layer, rung, size, m, n, k, figure, status, "
                "median_ms, rel_stddev, samples, gbps, gflops, entry) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


def _insert_run(db: Database, run: RunRow, source: str) -> int:
    added = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return db.insert_id(_INSERT_RUN, (*run.key, run.gpu_name, run.pci_bus_id, run.driver_version, run.runtime_version,
                                      run.harness_version, run.schema_version, run.merged_run, source, added,
                                      json.dumps(run.context, allow_nan=True)))


def _insert_cases(db: Database, run_id: int, data: results.Results) -> int:
    rows = [case_row(run_id, data, c) for c in data.cases]
    db.executemany(_INSERT_CASE, rows)
    return len(rows)


def find_run(db: Database, run: RunRow) -> int | None:
    found = db.rows("SELECT id FROM runs WHERE host = ? AND device_uuid = ? AND date = ? AND source_commit = ? "
                    "AND task = ?", run.key)
    return int(found[0][0]) if found else None


def add_results(db: Database, data: results.Results) -> list[tuple[int, RunRow, int]]:
    """Stores a loaded results file, every run of it, in one transaction: all of it or nothing.
    Returns (run id, run, cases) per run; raises Refused when a run is already in the database."""
    runs = runs_of(data)
    keys = [run.key for run, _ in runs]
    if len(set(keys)) != len(keys):
        raise Refused(data.path, "holds the same run (host, device, date, commit, task) twice")
    source = str(Path(data.path).resolve())
    added = []
    try:
        with db.transaction():
            for run, part in runs:
                existing = find_run(db, run)
                if existing is not None:
                    raise Refused(data.path, _already(run, existing))
                run_id = _insert_run(db, run, source)
                added.append((run_id, run, _insert_cases(db, run_id, part)))
    except engine_errors() as e:
        if "unique" in str(e).lower() or type(e).__name__ in ("UniqueViolation", "IntegrityError"):
            raise Refused(data.path, f"already in the database (added meanwhile by another process): {_first_line(e)}") from None
        raise Refused(data.path, f"not added ({db.label}: {_first_line(e)}); nothing of it was kept") from None
    return added


def _already(run: RunRow, run_id: int) -> str:
    what = f"run {run.merged_run} " if run.merged_run else ""
    return f"{what}already in the database as run {run_id} ({run.describe()}); not added again"


def add_file(db: Database, path: str | Path) -> list[tuple[int, RunRow, int]]:
    try:
        data = results.load(path)
    except results.ResultsError as e:
        raise Refused(e.path, e.what) from None
    return add_results(db, data)
