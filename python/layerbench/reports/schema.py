"""The results file's JSON Schema (python/layerbench/schemas/results.schema.json), which every file the reader loads
(results.read) is held to. The schema ships with the reports (cmake --install puts both under
share/layerbench in the source tree's layout); docs/json-schema.md says what each field means."""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "schemas" / "results.schema.json"
_MAX_MESSAGE = 200  # jsonschema quotes the offending value whole; a line names it, not prints it


@functools.cache
def _validator() -> Any:
    import jsonschema  # pinned in python/requirements.txt

    return jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))


def violation(data: Any) -> str | None:
    """Where `data` breaks the schema first, in one line ("$.benchmarks[3].status: 'done' is not
    one of [...]"); None when it conforms."""
    import jsonschema

    error = jsonschema.exceptions.best_match(_validator().iter_errors(data))
    if error is None:
        return None
    message = " ".join(error.message.split())
    if len(message) > _MAX_MESSAGE:
        message = message[:_MAX_MESSAGE] + "..."
    return f"{error.json_path}: {message}"
