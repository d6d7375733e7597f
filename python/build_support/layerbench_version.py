"""The package's version for `pip install` (pyproject.toml: scikit-build-core's metadata.version
provider): the project's one version rule, cmake/version.cmake, run with -P, so that the wheel's
version, `layerbench --version` and each results file's context.layerbench.version agree (a release
tag, else 0.1.0+g<commit>, 0.1.0+unknown without .git). Not part of the installed package."""
from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def version(root: Path = ROOT) -> str:
    """cmake/version.cmake's version of the source tree at root."""
    cmake = shutil.which("cmake")
    if cmake is None:
        raise RuntimeError("layerbench's version needs CMake (cmake/version.cmake), and no cmake is on PATH")
    done = subprocess.run([cmake, f"-DSOURCE={root}", "-P", str(root / "cmake" / "version.cmake")],
                          capture_output=True, text=True, check=False)
    text = done.stdout.strip()
    if done.returncode != 0 or not text:
        raise RuntimeError(f"cmake -P cmake/version.cmake failed: {done.stderr.strip() or 'no output'}")
    return text


def dynamic_metadata(settings: Mapping[str, Any], project: Mapping[str, Any]) -> dict[str, str]:
    """scikit-build-core's [[tool.dynamic-metadata]] hook: {"version": ...}."""
    if settings:
        raise RuntimeError(f"layerbench_version takes no settings: {dict(settings)!r}")
    return {"version": version()}
