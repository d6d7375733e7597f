"""Reading a folder's workload.json (workload_folder.py): the JSON, with a key given twice in one
object refused (Python's json keeps the last silently: a second "launch" would replace the first),
and its schema (workload.schema.json) checked by jsonschema, each error translated into one line
about the field a user wrote: a missing key named, an unknown value with the values it may take, a
formula's grammar in words, not the schema's regex. Split from workload_folder.py."""
from __future__ import annotations

import json
import re
from pathlib import Path

# Imported with the module: where it is missing, importing workload_folder fails with its name, and
# the harness says in one line what installs it into which interpreter (variants/python/workload_folder.cpp).
import jsonschema

from workload_formula import WorkloadFolderError

SCHEMA_PATH = Path(__file__).with_name("workload.schema.json")
FORMULA_WORDS = "a formula is whole numbers, m, n and k, + - * / and parentheses (\"n / 256\", \"m * n + 4\")"
SIZE_WORDS = "a size is a count or a power (4096, 2^20), up to three joined by x (4096x1024, 512x512x512)"
DRAW_KINDS = {"unit": (), "integers": (), "range": ("lo", "hi")}


class _DuplicateKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _refuse_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKey(key)
        seen[key] = value
    return seen


def read_spec(json_path: Path) -> dict:
    """workload.json parsed (one line naming a key given twice) and checked against the schema."""
    try:
        spec = json.loads(json_path.read_text(), object_pairs_hook=_refuse_duplicates)
    except _DuplicateKey as e:
        raise WorkloadFolderError(json_path, e.key, f"the key {e.key!r} is given twice in one object "
                                  "(JSON would keep only the last): give it once") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise WorkloadFolderError(json_path, "", f"is not JSON: {e}") from None
    schema_errors(spec, json_path)
    return spec


def _where(path) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(path)) or "(top level)"


def _draw_message(draw, formula_pattern: str) -> tuple[str, str]:
    """(the field under the draw, what is wrong) for a draw the schema refused."""
    kinds = ", ".join(DRAW_KINDS)
    if not isinstance(draw, dict):
        return "", f"{draw!r} is not a draw: an object such as {{\"kind\": \"unit\"}} (kinds: {kinds})"
    if "kind" not in draw:
        return "", f"`kind` is missing (kinds: {kinds})"
    kind = draw["kind"]
    if kind not in DRAW_KINDS:
        return ".kind", f"{kind!r} is not a kind of draw: {kinds}"
    for key in DRAW_KINDS[kind]:
        if key not in draw:
            return "", f"`{key}` is missing (a {kind} draw gives lo and hi, formulas: {FORMULA_WORDS})"
    for key in draw:
        if key != "kind" and key not in DRAW_KINDS[kind]:
            return f".{key}", f"a {kind} draw takes no {key!r}" + (f" (only {', '.join(DRAW_KINDS[kind])})" if DRAW_KINDS[kind] else "")
    for key in DRAW_KINDS[kind]:
        if not isinstance(draw[key], str) or not re.fullmatch(formula_pattern, draw[key]):
            return f".{key}", f"{draw[key]!r} is not a formula: {FORMULA_WORDS}" + ("" if isinstance(draw[key], str) else ", as a string")
    return "", "is not a draw"


def _translated(error, spec, formula_pattern: str, size_pattern: str) -> tuple[str, str]:
    """(where, message) for a jsonschema error, in words about the field."""
    path = list(error.absolute_path)
    if "draw" in path:
        at = path[:path.index("draw") + 1]
        draw = spec
        for p in at:
            draw = draw[p]
        field, message = _draw_message(draw, formula_pattern)
        return _where(at) + field, message
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "pattern" and schema.get("pattern") == formula_pattern:
        return _where(path), f"{error.instance!r} is not a formula: {FORMULA_WORDS}"
    if error.validator == "pattern" and schema.get("pattern") == size_pattern:
        return _where(path), f"{error.instance!r} is not a size: {SIZE_WORDS}"
    if error.validator == "required":
        missing = [k for k in error.validator_value if isinstance(error.instance, dict) and k not in error.instance]
        return _where(path), f"`{missing[0] if missing else error.validator_value[0]}` is missing"
    if error.validator == "enum":
        return _where(path), f"{error.instance!r} is not one of: {', '.join(map(str, error.validator_value))}"
    if error.validator == "oneOf" and path and path[-1] == "grid":
        return _where(path), f"{error.instance!r} is not a grid: \"grid_stride\", or a list of 1 to 3 formulas ({FORMULA_WORDS})"
    return _where(path), error.message


def schema_errors(spec, path: Path) -> None:
    schema = json.loads(SCHEMA_PATH.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(spec))
    if error is not None:
        where, message = _translated(error, spec, schema["$defs"]["formula"]["pattern"],
                                     schema["properties"]["default_sizes"]["items"]["pattern"])
        raise WorkloadFolderError(path, where, message)
