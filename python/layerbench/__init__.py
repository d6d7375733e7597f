"""layerbench's Python side, one package (python/README.md):

  api       run, load, compare, report: the Python API (docs/python-api.md), re-exported here
  native    the installed `layerbench` command (`python -m layerbench`): the native binary inside
            the package (pip install: pyproject.toml), or the Python side alone where pip's build
            found no CUDA compiler
  reports   the report tool: the results reader and schema checks, the formatter, report, compare,
            csv, merge (`python -m layerbench.reports`, what `layerbench report|compare|csv|merge|db` runs)
  db        the results database with its history (`layerbench db`)
  lab       the Python labs' rules and runners (the lab child's embedded interpreter)

__version__ is the project's one version (cmake/version.cmake: a release tag, else
0.1.0+g<commit>), as `layerbench --version` and each results file's context.layerbench.version
give it: an installed package's is the one pip's build wrote (layerbench/_version.py); the source
tree's python/ folder asks cmake/version.cmake (with CMake), or says "unknown".
"""
from __future__ import annotations

from typing import Any

from .api import (Case, Comparison, ComparisonRow, GateVerdict, LayerUnavailableWarning, NotCompared, OneTimeCost,
                  Results, RunError, ThresholdWarning, UsageError, compare, compare_markdown, load, report, run)

__all__ = ["__version__", "Case", "Comparison", "ComparisonRow", "GateVerdict", "LayerUnavailableWarning",
           "NotCompared", "OneTimeCost", "Results", "RunError", "ThresholdWarning", "UsageError", "compare",
           "compare_markdown", "load", "report", "run"]

_source_version: str | None = None


def __getattr__(name: str) -> Any:
    """__version__, read when first asked for (the source tree's runs CMake)."""
    global _source_version
    if name != "__version__":
        raise AttributeError(f"module 'layerbench' has no attribute {name!r}")
    import importlib
    try:
        version: str = importlib.import_module("._version", __name__).__version__
        return version
    except ImportError:
        pass
    if _source_version is None:
        _source_version = _from_source_tree()
    return _source_version


def _from_source_tree() -> str:
    """cmake/version.cmake's version of the source tree this package is the python/ folder of."""
    import shutil
    import subprocess
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    rule = root / "cmake" / "version.cmake"
    cmake = shutil.which("cmake")
    if not rule.is_file() or cmake is None:
        return "unknown (not installed, and no cmake/version.cmake or cmake to ask)"
    done = subprocess.run([cmake, f"-DSOURCE={root}", "-P", str(rule)], capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else "unknown (cmake/version.cmake failed)"
