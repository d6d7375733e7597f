"""Reading runs back: filters, stored runs and cases, a run as a results file, selectors, the
runs of each device."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date as Date
from typing import Any

from ..reports import results
from .store import Database


# --- reading runs back -----------------------------------------------------------------------

@dataclass
class StoredRun:
    id: int
    date: str
    host: str
    device_uuid: str
    gpu_name: str
    source_commit: str
    cases: int = 0

    @property
    def device_label(self) -> str:
        return f"{self.gpu_name} ({self.device_uuid})" if self.device_uuid != "cpu" else f"no GPU (host {self.host})"

    @property
    def group(self) -> str:
        """What `compare` compares within: the device; a run without a GPU, its host."""
        return self.device_uuid if self.device_uuid != "cpu" else f"cpu@{self.host}"


_RUN_COLUMNS = "r.id, r.date, r.host, r.device_uuid, r.gpu_name, r.source_commit"


def _stored(row: tuple) -> StoredRun:
    return StoredRun(int(row[0]), row[1], row[2], row[3], row[4], row[5], int(row[6]) if len(row) > 6 else 0)


def _like(text: str) -> str:
    return "%" + re.sub(r"([!%_])", r"!\1", text.lower()) + "%"


@dataclass
class Filters:
    gpu: str | None = None
    layer: str | None = None
    workload: str | None = None
    since: str | None = None  # normalised: 'YYYY-MM-DDTHH:MM:SSZ'
    until: str | None = None  # exclusive

    def run_where(self) -> tuple[list[str], list[Any]]:
        where, params = [], []
        if self.gpu:
            where.append("(LOWER(r.gpu_name) LIKE ? ESCAPE '!' OR LOWER(r.device_uuid) LIKE ? ESCAPE '!')")
            params += [_like(self.gpu), _like(self.gpu)]
        if self.since:
            where.append("r.date >= ?")
            params.append(self.since)
        if self.until:
            where.append("r.date < ?")
            params.append(self.until)
        return where, params

    def case_where(self) -> tuple[list[str], list[Any]]:
        where, params = [], []
        if self.layer:
            where.append("c.layer = ?")
            params.append(self.layer)
        if self.workload:
            where.append("c.workload = ?")
            params.append(self.workload)
        return where, params


def list_runs(db: Database, filters: Filters) -> list[StoredRun]:
    run_where, run_params = filters.run_where()
    case_where, case_params = filters.case_where()
    on = " AND ".join(["c.run_id = r.id"] + case_where)
    sql = (f"SELECT {_RUN_COLUMNS}, COUNT(c.run_id) FROM runs r LEFT JOIN cases c ON {on}"
           + (" WHERE " + " AND ".join(run_where) if run_where else "")
           + f" GROUP BY {_RUN_COLUMNS}"
           + (" HAVING COUNT(c.run_id) > 0" if case_where else "")
           + " ORDER BY r.date, r.id")
    return [_stored(r) for r in db.rows(sql, case_params + run_params)]


def list_cases(db: Database, filters: Filters) -> list[tuple]:
    run_where, run_params = filters.run_where()
    case_where, case_params = filters.case_where()
    where = run_where + case_where
    sql = ("SELECT r.id, r.date, r.gpu_name, c.name, c.status, c.median_ms, c.rel_stddev, c.samples, c.figure, "
           "c.gbps, c.gflops FROM runs r JOIN cases c ON c.run_id = r.id"
           + (" WHERE " + " AND ".join(where) if where else "")
           + " ORDER BY r.date, r.id, c.position")
    return db.rows(sql, run_params + case_params)


def load_run(db: Database, run_id: int) -> results.Results:
    """A stored run as Results, as if read from its file (its context, its cases in their order)."""
    found = db.rows("SELECT context FROM runs WHERE id = ?", (run_id,))
    if not found:
        raise KeyError(run_id)
    context = json.loads(found[0][0])
    cases = []
    for workload, layer, size, position, entry in db.rows(
            "SELECT workload, layer, size, position, entry FROM cases WHERE run_id = ? ORDER BY position", (run_id,)):
        cases.append(results.Case(workload, layer, tuple(int(v) for v in size.split("x")), json.loads(entry),
                                  int(position)))
    return results.Results(path=f"{db.label} run {run_id}", context=context, cases=cases)


# --- selectors -------------------------------------------------------------------------------

SELECTOR_HELP = "latest, latest~N, a date YYYY-MM-DD, a commit prefix (4 to 40 hex digits) or run:ID"


def parse_selector(text: str, option: str = "selector") -> tuple[str, Any]:
    """('latest', N) | ('date', 'YYYY-MM-DD') | ('commit', prefix) | ('run', id); ResultsError otherwise."""
    text = text.strip()
    m = re.fullmatch(r"latest(?:~(\d+))?", text)
    if m:
        return "latest", int(m.group(1) or 0)
    m = re.fullmatch(r"run:(\d+)", text)
    if m:
        return "run", int(m.group(1))
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        try:
            return "date", Date.fromisoformat(text).isoformat()
        except ValueError:
            pass
    elif re.fullmatch(r"[0-9a-fA-F]{4,40}", text):
        return "commit", text.lower()
    raise results.ResultsError(option, f"unknown selector '{text}' (use {SELECTOR_HELP})")


def select(runs: list[StoredRun], selector: tuple[str, Any]) -> StoredRun | None:
    """The run of one device's runs (oldest first) that the selector names, or None."""
    kind, value = selector
    if kind == "latest":
        return runs[-1 - value] if value < len(runs) else None
    if kind == "run":
        return next((r for r in runs if r.id == value), None)
    if kind == "date":
        found = [r for r in runs if r.date[:10] == value]
    else:
        found = [r for r in runs if r.source_commit.lower().startswith(value)]
    return found[-1] if found else None


def devices(db: Database, gpu: str | None = None) -> dict[str, list[StoredRun]]:
    """Every device's runs, oldest first (runs without a GPU: per host)."""
    where, params = Filters(gpu=gpu).run_where()
    rows = db.rows(f"SELECT {_RUN_COLUMNS} FROM runs r" + (" WHERE " + " AND ".join(where) if where else "")
                   + " ORDER BY r.date, r.id", params)
    found: dict[str, list[StoredRun]] = {}
    for row in rows:
        run = _stored(row)
        found.setdefault(run.group, []).append(run)
    return found
