"""A run's name in a merged file, its RUN_ID <host>/<device>/<run>, from its context (merge.py's
docstring says which field gives each part; docs/fleet.md). Apart from merge.py, which names the
runs it merges, so that what reads the names (fleet.py, compare.py) need not import the merging."""
from __future__ import annotations

from typing import Any

TASK_JOB = ("slurm_array_job_id", "slurm_job_id")  # the job: an array's id, else the job's
TASK_INDEX = ("slurm_array_task_id", "slurm_procid")  # the task in it: the array index, else the rank


def _text(value: Any) -> str:
    """A context value as an id part: a string or a whole number; '' for anything else."""
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, (str, int)):
        return str(value).strip().replace("/", "_")
    return ""


def host_id(context: dict[str, Any]) -> str:
    host = context.get("host")
    return (_text(context.get("host_name")) or (_text(host.get("hostname")) if isinstance(host, dict) else "")
            or "unknown-host")


def device_id(context: dict[str, Any]) -> str:
    device = context.get("device")
    if isinstance(device, dict):
        for key in ("uuid", "pci_bus_id"):
            if _text(device.get(key)):
                return _text(device.get(key))
    return "cpu"


def task_id(context: dict[str, Any]) -> str:
    task = context.get("task")
    task = task if isinstance(task, dict) else {}
    job = next((_text(task.get(k)) for k in TASK_JOB if _text(task.get(k))), "")
    index = next((_text(task.get(k)) for k in TASK_INDEX if _text(task.get(k))), "")
    if job:
        return f"job{job}.{index}" if index else f"job{job}"
    if index:
        return f"task{index}"
    return _text(context.get("date")) or "undated"


def run_part(context: dict[str, Any]) -> str:
    """What tells a run apart from the other runs of its machine: context.run_id, else (files
    written before it) the task or date."""
    return _text(context.get("run_id")) or task_id(context)


def machine_id(context: dict[str, Any]) -> str:
    """<host>/<device>: the run's identity without its last part, run id, task or date (compare matches runs on it)."""
    return f"{host_id(context)}/{device_id(context)}"


def run_id(context: dict[str, Any]) -> str:
    """The RUN_ID of a plain results file's context (module docstring)."""
    return f"{machine_id(context)}/{run_part(context)}"
