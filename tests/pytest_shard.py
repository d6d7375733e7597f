"""A pytest plugin that lets ctest run one long pytest file as several tests side by side
(tests/CMakeLists.txt, lb_add_pytest): with LB_PYTEST_SHARD=I/N in the environment, pytest keeps the
collected tests whose position in the collection is I modulo N and deselects the rest, so that the
N shards together run every test of the file exactly once. Without the variable it does nothing."""
from __future__ import annotations

import os

import pytest


def shard_of(spec: str) -> tuple[int, int]:
    """'I/N' -> (I, N), with 0 <= I < N; anything else is a usage error naming the value."""
    try:
        index, count = (int(part) for part in spec.split("/"))
    except ValueError:
        raise pytest.UsageError(f"LB_PYTEST_SHARD={spec!r}: expected I/N, e.g. 0/4") from None
    if not 0 <= index < count:
        raise pytest.UsageError(f"LB_PYTEST_SHARD={spec!r}: I must be at least 0 and less than N")
    return index, count


def pytest_configure(config):
    spec = os.environ.get("LB_PYTEST_SHARD")
    config.lb_shard = shard_of(spec) if spec else None


def pytest_collection_modifyitems(config, items):
    if config.lb_shard is None:
        return
    index, count = config.lb_shard
    kept = [item for position, item in enumerate(items) if position % count == index]
    deselected = [item for position, item in enumerate(items) if position % count != index]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
    items[:] = kept
