"""python/layerbench/schemas/results.schema.json, the results file's JSON Schema, against what it describes:
- every committed results file (docs/results) conforms to it;
- a file the real binary writes ($LB_EXE: a CPU run) conforms, and holds no field the schema does
  not name (a field added to the harness is added to the schema, and so to the docs);
- docs/json-schema.md documents every field the schema names, and names no field the schema lacks.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema")

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "python" / "layerbench" / "schemas" / "results.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
DOC = (ROOT / "docs" / "json-schema.md").read_text()


def committed_results() -> list[Path]:
    found = []
    for path in sorted((ROOT / "docs" / "results").rglob("*.json")):
        data = json.loads(path.read_text())
        if isinstance(data, dict) and "benchmarks" in data and "layerbench" in data.get("context", {}):
            found.append(path)
    return found


def test_the_schema_is_a_valid_schema_of_the_harness_version():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    header = (ROOT / "harness" / "results_json.h").read_text()
    version = int(re.search(r"kSchemaVersion = (\d+);", header).group(1))
    assert SCHEMA["x-schema-version"] == version
    assert SCHEMA["$id"].endswith(f":{version}")
    assert version in SCHEMA["$defs"]["context"]["properties"]["layerbench"]["properties"]["schema_version"]["enum"]
    assert DOC.startswith(f"# The results file (schema version {version})")


@pytest.mark.parametrize("path", committed_results(), ids=lambda p: str(p.relative_to(ROOT)))
def test_committed_results_conform(path: Path):
    errors = [f"{e.json_path}: {e.message[:200]}" for e in VALIDATOR.iter_errors(json.loads(path.read_text()))]
    assert not errors, errors[:5]


def _with_folder(folder) -> dict:
    """A committed run of the example folders whose first folder workload's `folder` object is
    `folder` (None: left out, as a built-in workload's)."""
    data = json.loads((ROOT / "docs" / "results" / "h100" / "workload-folders.json").read_text())
    name = next(n for n, w in data["context"]["workloads"].items() if "folder" in w)
    if folder is None:
        del data["context"]["workloads"][name]["folder"]
    else:
        data["context"]["workloads"][name]["folder"] = folder
    return data


GOOD_FOLDER = {"dir": "examples/workloads/stencil5", "content_hash": "0123456789abcdef" * 4,
               "workload_json": {"name": "stencil5", "size_form": "n"}}


@pytest.mark.parametrize("folder", [GOOD_FOLDER, None], ids=["folder", "no folder"])
def test_a_good_folder_object_passes(folder):
    errors = [f"{e.json_path}: {e.message[:200]}" for e in VALIDATOR.iter_errors(_with_folder(folder))]
    assert not errors, errors[:5]


@pytest.mark.parametrize("change, field", [
    (lambda f: f.pop("content_hash"), "content_hash"),
    (lambda f: f.update(content_hash="abc123"), "content_hash"),         # not a sha256
    (lambda f: f.update(content_hash="0123456789ABCDEF" * 4), "content_hash"),
    (lambda f: f.update(dir=""), "dir"),
    (lambda f: f.pop("dir"), "dir"),
    (lambda f: f.update(workload_json="{}"), "workload_json"),          # the text, not the object
    (lambda f: f.update(workload_json={"summary": "no name"}), "workload_json"),
    (lambda f: f.update(hash="sha256"), "hash"),                        # a field the schema does not name
])
def test_a_bad_folder_object_fails(change, field):
    folder = json.loads(json.dumps(GOOD_FOLDER))
    change(folder)
    errors = list(VALIDATOR.iter_errors(_with_folder(folder)))
    assert errors, f"a folder object with a bad {field} passed"
    assert all(".folder" in e.json_path for e in errors), [e.json_path for e in errors]
    assert any(field in e.json_path or field in e.message for e in errors), [(e.json_path, e.message) for e in errors]


def test_committed_results_are_found():
    assert len(committed_results()) >= 10


def _resolve(schema: dict) -> dict:
    while "$ref" in schema:
        schema = SCHEMA["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def unnamed_fields(data, schema: dict, where: str = "$") -> list[str]:
    """Fields of `data` that `schema` does not name, where it lists properties and does not say
    "additionalProperties": true."""
    schema = _resolve(schema)
    found = []
    if isinstance(data, dict):
        props = schema.get("properties")
        extra = schema.get("additionalProperties")
        for key, value in data.items():
            if props is not None and key in props:
                found += unnamed_fields(value, props[key], f"{where}.{key}")
            elif isinstance(extra, dict):
                found += unnamed_fields(value, extra, f"{where}.{key}")
            elif props is not None and extra is not True:  # true: an object open by design (layers.<name>)
                found.append(f"{where}.{key}")
    elif isinstance(data, list) and isinstance(schema.get("items"), dict):
        for i, value in enumerate(data):
            found += unnamed_fields(value, schema["items"], f"{where}[{i}]")
    return found


def test_a_fresh_cpu_run_conforms_and_names_only_schema_fields(tmp_path: Path):
    exe = os.environ.get("LB_EXE")
    if not exe:
        pytest.skip("LB_EXE is not set (ctest's schema.results.pytest sets it to the built layerbench)")
    out = tmp_path / "r.json"
    subprocess.run([exe, "run", "-l", "cpu", "-w", "vector_add,matmul", "-s", "1000", "--benchmark_repetitions=2",
                    "-o", str(out)], check=True, capture_output=True, timeout=300)
    data = json.loads(out.read_text())
    errors = [f"{e.json_path}: {e.message[:200]}" for e in VALIDATOR.iter_errors(data)]
    assert not errors, errors[:5]
    assert unnamed_fields(data, SCHEMA) == []  # fields the harness writes and the schema does not name


# --- the docs: the first column of each table in docs/json-schema.md names fields ---------------

def documented(section: str) -> dict[str, str]:
    """{field path: its row} of the tables under the heading that starts with `section`; a bare
    name after a dotted one in the same cell shares its prefix (`measurement.noise_target`, `min_samples`)."""
    text = DOC.split(f"\n## {section}", 1)[1].split("\n## ", 1)[0]
    names: dict[str, str] = {}
    for row in re.findall(r"^\| (.+?) \| (.*) \|$", text, re.MULTILINE):
        cell = re.sub(r"\([^)]*\)", "", row[0])  # "`run_type` (`iteration` or `aggregate`)"
        prefix = ""
        for name in re.findall(r"`([^`]+)`", cell):
            if "." in name:
                prefix = name.rsplit(".", 1)[0] + "."
            elif prefix:
                name = prefix + name
            names[name] = row[1]
    names.pop("field", None)
    return names


def schema_paths(schema: dict, prefix: str = "", depth: int = 2) -> list[str]:
    schema = _resolve(schema)
    paths = []
    for key, sub in schema.get("properties", {}).items():
        paths.append(prefix + key)
        if depth > 1:
            paths += schema_paths(sub, f"{prefix}{key}.", depth - 1)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict) and "properties" in _resolve(extra) and depth > 1:
        paths += [f"{prefix}<name>"] + schema_paths(extra, f"{prefix}<name>.", depth - 1)
    return paths


def test_the_doc_names_every_context_field_the_schema_names_and_no_other():
    doc = documented("`context`")
    schema = schema_paths(SCHEMA["$defs"]["context"], depth=3)
    schema = [p for p in schema if p.count(".") < 2 or "<name>" in p]  # context.X, context.X.Y, layers.<name>.Y
    # A field may be described in its object's row instead of a row of its own ("`ladder`: {workload, ...}"),
    # and an object by the rows of its fields ("`layerbench.version`").
    def described(path: str) -> bool:
        parent, _, leaf = path.rpartition(".")
        return (path in doc or any(name.startswith(path + ".") for name in doc)
                or (parent in doc and re.search(rf"\b{re.escape(leaf)}\b", doc[parent]) is not None))
    assert [p for p in schema if not described(p)] == []
    assert [name for name in doc if name not in schema] == []


def test_the_doc_names_every_case_field_the_schema_names_and_no_other():
    doc = documented("`benchmarks[]`")
    schema = list(SCHEMA["$defs"]["benchmark"]["properties"])
    assert sorted(set(schema) - set(doc)) == []
    assert sorted(set(doc) - set(schema)) == []
