"""pyproject.toml against the files it repeats: its pins are the requirements files' (one change
must touch both, and this says which line differs), its version is CMakeLists.txt's, and what an
offline build needs is what scripts/collect-wheels.sh collects."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())


def pins(path: Path) -> list[str]:
    """A requirements file's requirement lines, comments and blanks left out."""
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line]


@pytest.mark.parametrize("extra, path", [
    ("layers", "variants/python/requirements.txt"),
    ("db", "python/requirements-db.txt"),
])
def test_an_extra_is_its_requirements_file(extra, path):
    assert PYPROJECT["project"]["optional-dependencies"][extra] == pins(REPO / path)


def test_the_reports_extra_and_the_dependencies_are_the_report_tools_pins():
    report_pins = {re.split(r"[<>=!]", p)[0]: p for p in pins(REPO / "python/requirements.txt")}
    assert PYPROJECT["project"]["optional-dependencies"]["reports"] == [report_pins["matplotlib"]]
    assert PYPROJECT["project"]["dependencies"] == [report_pins["jsonschema"]]


def test_the_build_requirements_are_pinned_once_and_collected_for_offline_builds():
    requires = PYPROJECT["build-system"]["requires"]
    assert requires == pins(REPO / "python/requirements-build.txt")
    assert all("==" in r for r in requires), requires
    collect = (REPO / "scripts/collect-wheels.sh").read_text()
    for r in requires:
        assert re.search(rf"(^|\s){re.escape(r)}(\s|$)", collect, re.M), f"collect-wheels.sh does not collect {r}"


def test_the_version_is_the_projects_one_rule():
    """pip's version comes from cmake/version.cmake (python/build_support), as the binary's does,
    and the wheel carries it as layerbench/_version.py (layerbench.__version__)."""
    import sys
    entries = PYPROJECT["tool"]["dynamic-metadata"]
    assert entries == [{"provider": {"path": "python/build_support", "module": "layerbench_version"}}]
    assert PYPROJECT["project"]["dynamic"] == ["version"] and "metadata" not in PYPROJECT["tool"]["scikit-build"]
    sys.path.insert(0, str(REPO / "python" / "build_support"))
    try:
        import layerbench_version
    finally:
        sys.path.pop(0)
    import shutil
    if shutil.which("cmake") is None:
        pytest.skip("no cmake on PATH")
    version = layerbench_version.dynamic_metadata({}, {})["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+(\+(g[0-9a-f]{12}(\.dirty)?|unknown))?", version), version
    generated = PYPROJECT["tool"]["scikit-build"]["generate"]
    assert generated[0]["path"] == "layerbench/_version.py" and '__version__ = "${version}"' in generated[0]["template"]


def test_pip_builds_the_harness_where_cuda_is_and_keeps_its_build_folder():
    settings = PYPROJECT["tool"]["scikit-build"]
    assert settings["cmake"]["define"]["LAYERBENCH_NATIVE"] == "AUTO"
    assert settings["cmake"]["define"]["LAYERBENCH_FETCH_DEPS"] == "ON"
    assert settings["build-dir"] == "build-pip/{wheel_tag}"
    ignored = (REPO / ".gitignore").read_text().splitlines()
    assert "/build-*/" in ignored  # build-pip/ is never committed


def test_the_console_script_and_the_packaged_prefix_agree():
    from layerbench import native
    assert PYPROJECT["project"]["scripts"]["layerbench"] == "layerbench.native:main"
    install_dir = PYPROJECT["tool"]["scikit-build"]["wheel"]["install-dir"]
    assert native.PREFIX.relative_to(native.PREFIX.parents[1]).as_posix() == install_dir


# The framework builds the project is measured with (the GPU image's: docs/layers/frameworks.md).
MEASURED_WITH = {"torch": "2.11.0", "triton": "3.6.0", "jax": "0.11.2"}


def test_the_frameworks_extra_admits_the_builds_measured_with_and_repeats_no_pin():
    """[frameworks] gives ranges that include the framework versions the figures come from, and
    names no package [layers] pins (a second requirement on one name is where two extras stop
    installing side by side)."""
    from packaging.requirements import Requirement

    frameworks = [Requirement(r) for r in PYPROJECT["project"]["optional-dependencies"]["frameworks"]]
    assert {r.name for r in frameworks} == set(MEASURED_WITH)
    for r in frameworks:
        assert r.specifier.contains(MEASURED_WITH[r.name]), f"{r} excludes {MEASURED_WITH[r.name]}"
        assert not r.specifier.contains("0.0.1"), f"{r} is unbounded below"
    assert "cuda13" in next(r for r in frameworks if r.name == "jax").extras
    pinned = {Requirement(r).name for r in PYPROJECT["project"]["optional-dependencies"]["layers"]}
    assert not pinned & {r.name for r in frameworks}
