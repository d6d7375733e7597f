#!/usr/bin/env python3
"""The measured figures in README.md and docs/**/*.md, generated from the committed results files.

A figure in a doc is followed by a marker naming its source and what to read there, an HTML comment
(invisible when rendered):

    every layer ran at **41.9 TFLOP/s**<!-- fig h100 matmul/pycuda/4096 tflops -->
    | pycuda | 29 928 (0.58)<!-- fig h100 matmul/pycuda/4096 gflops,cublas bare --> |
    run on <!-- fig h100 device -->NVIDIA H100 80GB HBM3<!-- /fig --> ...

A marker right after a number (optionally in **bold**) owns that number and its unit, and an
optional "(...)" after it; anything else (a name, a date, a command) is wrapped: `<!-- fig ... -->`
before it and `<!-- /fig -->` after it. The first word names the source: `h100` is
docs/results/h100/results.json, `h100/ladder-matmul.json` that file in docs/results/h100/, and
`labs/01-vector-add/expected/h100.solution.json` a lab's expected grade in its folder. The rest
is a query:

  CASE FIELD[,FIELD2] [min|max|range] [OPTION...]      a case's figure (FIELD2 in parentheses)
  ceiling copy|sgemm|sgemm_tflops                      the run's ceilings
  cost LAYER 'WHAT' [min|max|range]                    one-time costs of LAYER whose text holds WHAT
  cases|runs|layers|date|datetime|device|command|commit|suite_s|noise_target|mode|driver|peak_bw|peak_fp32|sms|
  host_threads|layer_names|context_creation|memory|version    the run's context
  A / B [OPTION...]                                    A and B any of the above that give one number
                                                       (a case's, a ceiling or a cost): A over B
  A - B                                                A minus B, in A's unit
  grade FIELD [FILE]                                   a lab grade's (`lab grade --json`) points, speed (ours /
                                                       yours), ceiling (its fraction), wall (its time), or the
                                                       first benchmark size's ms, ours_ms, gbps, reset_ms,
                                                       verify_ms (per sample); FILE: the submission it names
  timing STAGE FIELD                                   a timing record (build/timings.json of
                                                       scripts/build.sh and scripts/test.sh): a stage's
                                                       wall or cpu time (min and s), steps, warnings,
                                                       jobs, tests, failed, load (the 1-minute load
                                                       average when it ended: what else ran)
  timing cores|cpu|gpus|date|commit                    ... the machine it was measured on, when, what
  timing longest N name|s                              ... the Nth longest test (from 1), its name or time

  CASE is workload/layer/size as `run` takes them (matmul/runtime/4096, vector_add/cpu/2^28,
  launch_async/graph/1000; a rung: matmul/runtime:08/4096; one number is a square or a cube for a
  workload whose cases have two or three); each part may hold {a,b,c} or be *
  (any): a set of layers (those that run our kernel text, say) is named in full. Several
  cases give their range ("41.2–41.9 TFLOP/s"), or min or max. WHAT may hold {a,b} too.
  FIELD: ms us gbps gflops tflops copy cublas launch noise e2e first_run (copy and cublas: the
  fraction of the copy ceiling or of cuBLAS SGEMM).
  OPTION: bare (no unit), % (a fraction as a percentage), frac (a ratio as 0.58), diff (|A/B - 1| as
  a percentage), x (a ratio as 1.72×, the default).

Each unit has one format: GB/s and GFLOP/s whole (thousands apart by a space from 10 000: 51 283),
TFLOP/s one decimal, ms four significant digits, µs three, fractions two decimals, percentages
whole (one decimal under 10%), ratios 1.72× / 11.7×, costs in ms (seconds from 1000 ms).

The lint: a number with a measured unit (GB/s, GFLOP/s, TFLOP/s, ms, µs, "N% of copy/cuBLAS",
"0.85 of the copy ceiling", a speed-up "1.5×") in prose with no marker fails, unless its line says
why it is not a figure of a results file: `<!-- unsourced: REASON -->` (a setting, a datasheet
value, a kernel no longer in the tree). Code blocks and `code spans` are not figures. The reports in
docs/results/*/ (made by `layerbench report`) are generated already and not read.

  tools/doc-figures            rewrite every figure and block (tools/doc_blocks.py) in place from its
                                    source (reports/output.py: atomically, a symlink followed)
  tools/doc-figures --check    exit 1 if a figure or block differs from its source, a source or case is
                                    missing, or a measured number has no marker
  tools/doc-figures --list     every marker, its source and its value
"""
from __future__ import annotations

import argparse
import re
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import doc_blocks  # the generated tables between <!-- block ... --> lines (tools/ is the script's folder)
from layerbench.reports import fmt, results
from layerbench.reports.output import write_output  # a symlinked doc keeps its link; its target is rewritten

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "docs" / "results"
GENERATED = ("docs/results/h100/report.md",)  # layerbench report's own

# --- markers -----------------------------------------------------------------------------------

OPEN = re.compile(r"<!--\s*fig\s+(?P<q>.*?)\s*-->")
CLOSE = "<!-- /fig -->"
UNSOURCED = re.compile(r"<!--\s*unsourced:\s*\S.*?-->")
_NUM = r"[−-]?(?:\d{1,3}(?: \d{3})+|\d+)(?:\.\d+)?"
_ONE = rf"{_NUM}(?:–{_NUM})?(?: ?(?:GB/s|GFLOP/s|TFLOP/s|ms|µs|s|%|×))?"
# What a trailing marker owns: a figure as the formats below write it, bold or not, with an
# optional second figure in parentheses, preceded by nothing that could be part of a number.
TRAILING = re.compile(rf"(?<![\d.,^\w])(?P<b>\*\*)?(?P<fig>{_ONE}(?: \({_ONE}\))?)(?P=b)?$")


class FigureError(Exception):
    pass


# --- formats: the docs' number style, python/layerbench/reports/fmt.py's (docs_*) -----------------

# field -> (how to read it from a case, how to format one value, unit)
FIELDS = {
    "ms": (lambda c: c.get("median_ms"), lambda x: fmt.sig_kept(x, 4), "ms"),
    "us": (lambda c: c["median_ms"] * 1000 if c.get("median_ms") is not None else None, lambda x: fmt.sig_kept(x, 3), "µs"),
    "gbps": (lambda c: c.get("gbps"), fmt.docs_rate, "GB/s"),
    "gflops": (lambda c: c.get("gflops"), fmt.grouped, "GFLOP/s"),
    "tflops": (lambda c: c["gflops"] / 1000 if c.get("gflops") is not None else None, lambda x: f"{x:.1f}",
               "TFLOP/s"),
    "copy": (lambda c: c.get("fraction_of_copy"), lambda x: f"{x:.2f}", ""),
    "cublas": (lambda c: c.get("fraction_of_cublas"), lambda x: f"{x:.2f}", ""),
    "launch": (lambda c: c.get("us_per_launch"), lambda x: fmt.sig_kept(x, 3), "µs"),
    "noise": (lambda c: c.get("rel_stddev"), fmt.docs_percent, ""),
    "e2e": (lambda c: c.get("end_to_end_ms"), lambda x: fmt.sig_kept(x, 4), "ms"),
    "first_run": (lambda c: c.get("first_run_ms"), lambda x: fmt.sig_kept(x, 3), "ms"),
}
FRACTIONS = {"copy", "cublas", "noise"}


# --- sources -----------------------------------------------------------------------------------

_loaded: dict[Path, dict] = {}


def source_path(name: str) -> Path:
    if name.startswith(("labs/", "tests/")):  # a lab's grades (labs/NN-name/expected/); a test fixture of real runs
        return REPO / name
    path = RESULTS / name
    if "/" not in name.strip("/"):
        path = path / "results.json"
    return path


def load(name: str) -> dict:
    path = source_path(name)
    if path not in _loaded:
        if not path.is_file():
            raise FigureError(f"source {path.relative_to(REPO)} is not committed")
        # Through the reports' one reader: a results file checked, its repetitions folded into one
        # case each (`_cases`: the cases' JSON entries); a lab's grade or a timing record as its JSON.
        try:
            data = results.read_json(path)
            if isinstance(data, dict) and "benchmarks" in data:
                data = {**data, "_cases": [c.entry for c in results.from_data(path, results.read(path)).cases]}
        except results.ResultsError as e:
            raise FigureError(str(e)) from None
        _loaded[path] = data
    return _loaded[path]


def expand(part: str) -> list[str]:
    """a{b,c}d -> [abd, acd]. A set of layers is named in the marker, as the doc's sentence names
    it: no list of layers here (a layer's names live in its own folder and in the results)."""
    m = re.search(r"\{([^{}]*)\}", part)
    if not m:
        return [part]
    return [x for alt in m.group(1).split(",") for x in expand(part[:m.start()] + alt + part[m.end():])]


def size_value(text: str) -> int:
    if "^" in text:
        base, exp = text.split("^", 1)
        return int(base) ** int(exp)
    return int(text)


def size_key(text: str, dims: int = 1) -> tuple:
    """A size as written in a query or a case's name -> its numbers; one number for a size of
    `dims` numbers is a square or a cube (4096 -> (4096, 4096, 4096)), as `layerbench run` reads it."""
    numbers = [size_value(d) for d in text.split("x")]
    if len(numbers) == 1:
        numbers *= dims
    return tuple(numbers)


def case_parts(case: dict) -> tuple[str, str, tuple]:
    workload, label, size = case["name"].split("/")[:3]
    return workload, label, size_key(size)


def layer_matches(want: str, label: str) -> bool:
    if want == "*":
        return True
    if ":" in want:  # a rung: runtime:08 or runtime:08_async_pipeline
        return label == want or label.startswith(want + "_")
    return label == want


def select(data: dict, selector: str) -> list[dict]:
    parts = selector.split("/")
    if len(parts) != 3:
        raise FigureError(f"case '{selector}' is not workload/layer/size")
    workloads, layers, sizes = (expand(p) for p in parts)
    found = []
    for case in data["_cases"]:
        w, label, key = case_parts(case)
        if "*" not in workloads and w not in workloads:
            continue
        if not any(layer_matches(l, label) for l in layers):
            continue
        # The case's own size says how many numbers it has (its workload's size form): no name needed.
        if "*" not in sizes and key not in {size_key(s, len(key)) for s in sizes}:
            continue
        found.append(case)
    if not found:
        raise FigureError(f"no case {selector} in the source")
    return found


def one_time_costs(data: dict, layer: str) -> list[dict]:
    costs = list((data["context"].get("layers") or {}).get(layer, {}).get("one_time_costs") or [])
    for case in data["_cases"]:
        if case.get("layer") == layer:
            costs += case.get("one_time_costs") or []
    return costs


# --- queries -----------------------------------------------------------------------------------

@dataclass
class Value:
    numbers: list[float]  # one, or a range's ends
    fmt: object           # formats one number
    unit: str
    fraction: bool = False
    costs: bool = False

    def text(self, bare: bool, percent: bool) -> str:
        if self.costs:
            t = fmt.docs_cost_ms(self.numbers)
            return t.rsplit(" ", 1)[0] if bare else t
        one = fmt.docs_percent if percent else self.fmt
        parts = [one(x) for x in self.numbers]
        if len(parts) == 2 and parts[0] == parts[1]:
            parts = parts[:1]
        if len(parts) == 2 and parts[0].endswith("%") and parts[1].endswith("%"):
            parts[0] = parts[0][:-1]
        t = "–".join(parts)
        return t if bare or not self.unit or percent else f"{t} {self.unit}"


def aggregate(values: list[float], how: str | None) -> list[float]:
    if how == "min" or (how is None and len(values) == 1):
        return [min(values)]
    if how == "max":
        return [max(values)]
    return [min(values), max(values)]


def context_value(data: dict, key: str) -> str:
    ctx = data["context"]
    device = ctx.get("device") or {}
    lb = ctx.get("layerbench") or {}
    if key == "cases":
        return str(len(data["_cases"]))
    if key == "runs":  # a merged file's (layerbench merge), else 1
        return str(len((ctx.get("merged") or {}).get("runs") or [None]))
    if key == "layers":
        return str(len({c.get("layer") for c in data["_cases"]}))
    if key == "layer_names":
        return ", ".join(dict.fromkeys(c.get("layer") for c in data["_cases"]))
    if key == "date":
        return ctx["date"][:10]
    if key == "datetime":  # 2026-11-22T15:56:06+0000 -> 2026-11-22 15:56 UTC (+0000)
        m = re.match(r"(\d{4}-\d\d-\d\d)T(\d\d:\d\d)(?::\d\d)?(.*)", ctx["date"])
        zone = m.group(3) if m else ""
        return f"{m.group(1)} {m.group(2)} " + ("UTC" if zone in ("+0000", "Z", "+00:00") else zone) if m else ctx["date"]
    if key == "device":
        return device.get("name") or "no GPU"
    if key == "command":
        return lb.get("command_line", "")
    if key == "commit":  # the sources' commit, short, "-dirty" kept; older results have none
        commit = lb.get("source_commit") or ""
        if not commit or commit == "unknown":
            return "not recorded"
        head, _, rest = commit.partition("-")
        return head[:7] + ("-" + rest if rest else "") if re.fullmatch(r"[0-9a-f]{40}", head) else commit
    if key == "suite_s":
        return f"{lb['suite_wall_s']:.1f} s"
    if key == "noise_target":
        return fmt.docs_percent(ctx["measurement"]["noise_target"])
    if key == "mode":
        return ctx["measurement"]["gpu_cache_mode"]
    if key == "driver":
        return str(device.get("driver_version"))
    if key == "peak_bw":
        return f"{device['theoretical_bandwidth_gbps']:.1f} GB/s"
    if key == "peak_fp32":
        return fmt.grouped(device["theoretical_fp32_gflops"]) + " GFLOP/s"
    if key == "memory":
        return f"{device['memory_bytes'] / 2**30:.1f} GiB"
    if key == "version":
        return lb.get("version", "")
    if key == "context_creation":
        return fmt.docs_cost_ms([device["context_creation_ms"]])
    if key == "sms":
        return str(device["sm_count"])
    if key == "host_threads":
        return str((ctx.get("host") or {}).get("logical_cpus"))
    raise FigureError(f"unknown query '{key}'")


CONTEXT_KEYS = {"memory", "version", "context_creation", "cases", "runs", "layers", "layer_names", "date", "datetime", "device", "command", "commit", "suite_s", "noise_target", "mode",
                "driver", "peak_bw", "peak_fp32", "sms", "host_threads"}
AGGREGATES = {"min", "max", "range"}
OPTIONS = {"bare", "%", "frac", "diff", "x"}


# grade field -> (how to read it from a submission of `lab grade --json`, how to format it, unit)
GRADE_FIELDS = {
    "points": (lambda s: s["points"], lambda x: f"{x:g}", ""),
    "speed": (lambda s: s["performance"]["speed_vs_runtime"], lambda x: f"{x:.2f}", ""),
    "ceiling": (lambda s: s["performance"]["fraction_of_ceiling"], fmt.docs_percent, ""),
    "ms": (lambda s: s["performance"]["benchmarks"][0]["student"]["median_ms"], lambda x: fmt.sig_kept(x, 4), "ms"),
    "ours_ms": (lambda s: s["performance"]["benchmarks"][0]["runtime"]["median_ms"], lambda x: fmt.sig_kept(x, 4), "ms"),
    "gbps": (lambda s: s["performance"]["benchmarks"][0]["student"]["gbps"], fmt.docs_rate, "GB/s"),
    "reset_ms": (lambda s: s["performance"]["benchmarks"][0]["input_reset_ms"], lambda x: fmt.sig_kept(x, 4), "ms"),
    "verify_ms": (lambda s: s["performance"]["benchmarks"][0]["sample_verify_ms"], lambda x: fmt.sig_kept(x, 4), "ms"),
    "wall": (lambda s: s["wall_s"]["check"] + s["wall_s"]["timing"], fmt.duration, ""),  # grades since P27
}


def grade_value(data: dict, words: list[str]) -> Value:
    if len(words) not in (2, 3) or words[1] not in GRADE_FIELDS:
        raise FigureError(f"grade takes a field ({', '.join(GRADE_FIELDS)}) and optionally a file")
    subs = [s for s in data.get("submissions", []) if len(words) == 2 or words[2] in s.get("file", "")]
    if len(subs) != 1:
        raise FigureError(f"{len(subs)} submissions match (one is needed): name the file")
    read, formats, unit = GRADE_FIELDS[words[1]]
    try:
        value = read(subs[0])
    except (KeyError, IndexError, TypeError):
        value = None
    if value is None:
        raise FigureError(f"{subs[0].get('file')}: no {words[1]} (outcome {subs[0].get('outcome')})")
    return Value([value], formats, unit)


# timing field -> (the stage's key, how to format it)
TIMING_FIELDS = {"wall": ("wall_s", fmt.duration), "cpu": ("cpu_s", fmt.duration), "steps": ("steps", str),
                 "warnings": ("warnings", str), "jobs": ("jobs", str), "tests": ("tests", str), "failed": ("failed", str),
                 "load": ("load_average", lambda loads: f"{loads[0]:.1f}")}  # the 1-minute load when it ended


def timing_text(data: dict, words: list[str]) -> str:
    """A figure of a timing record (scripts/record-timing.py)."""
    machine = data.get("machine", {})
    if len(words) == 2 and words[1] in ("cores", "cpu", "gpus", "date", "commit"):
        if words[1] in ("date", "commit"):
            return str(data.get(words[1], ""))
        if words[1] == "gpus":
            gpus = machine.get("gpus") or []
            return f"{len(gpus)}× {gpus[0]}" if len(set(gpus)) == 1 and len(gpus) > 1 else ", ".join(gpus) or "no GPU"
        return str(machine.get(words[1], ""))
    if len(words) == 4 and words[1] == "longest" and words[3] in ("name", "s"):
        tests = data.get("longest_tests") or []
        n = int(words[2])
        if not 1 <= n <= len(tests):
            raise FigureError(f"the record holds {len(tests)} longest tests, not {n}")
        t = tests[n - 1]
        return t["name"] if words[3] == "name" else fmt.duration(t["s"])
    if len(words) != 3 or words[2] not in TIMING_FIELDS:
        raise FigureError(f"timing takes STAGE FIELD ({', '.join(TIMING_FIELDS)}), cores|cpu|gpus|date|commit, "
                          "or longest N name|s")
    stage = data.get("stages", {}).get(words[1])
    if stage is None:
        raise FigureError(f"no stage '{words[1]}' (stages: {', '.join(data.get('stages', {}))})")
    key, formats = TIMING_FIELDS[words[2]]
    if key not in stage:
        raise FigureError(f"stage '{words[1]}' has no {key}")
    return formats(stage[key])


def number_value(data: dict, words: list[str]) -> tuple[Value, Value | None]:
    """A query that gives numbers: (its value, the value in parentheses or None)."""
    how = next((w for w in words if w in AGGREGATES), None)
    words = [w for w in words if w not in AGGREGATES]
    if words[0] == "grade":
        return grade_value(data, words), None
    if words[0] == "ceiling":
        if len(words) != 2:
            raise FigureError("ceiling takes one name: copy, sgemm or sgemm_tflops")
        ceilings = data["context"].get("ceilings") or {}
        if words[1] == "copy":
            return Value([ceilings["copy_gbps"]], fmt.docs_rate, "GB/s"), None
        if words[1] == "sgemm":
            return Value([ceilings["sgemm_gflops"]], fmt.grouped, "GFLOP/s"), None
        if words[1] == "sgemm_tflops":
            return Value([ceilings["sgemm_gflops"] / 1000], lambda x: f"{x:.1f}", "TFLOP/s"), None
        raise FigureError(f"unknown ceiling '{words[1]}'")
    if words[0] == "cost":
        if len(words) != 3:
            raise FigureError("cost takes a layer and a quoted part of the cost's text")
        costs = [c["ms"] for c in one_time_costs(data, words[1]) if any(w in c["what"] for w in expand(words[2]))]
        if not costs:
            raise FigureError(f"no one-time cost of {words[1]} holds '{words[2]}'")
        return Value(aggregate(costs, how), None, "ms", costs=True), None
    if len(words) != 2 or words[1].split(",")[0] not in FIELDS:
        raise FigureError(f"'{' '.join(words)}' is not CASE FIELD (fields: {', '.join(FIELDS)})")
    cases = select(data, words[0])
    values = []
    for field in words[1].split(","):
        if field not in FIELDS:
            raise FigureError(f"unknown field '{field}'")
        read, formats, unit = FIELDS[field]
        got = [read(c) for c in cases]
        if any(g is None for g in got):
            bad = [c["name"] for c, g in zip(cases, got) if g is None]
            raise FigureError(f"{', '.join(bad)}: no {field} (status {cases[0].get('status')})")
        values.append(Value(aggregate(got, how), formats, unit, fraction=field in FRACTIONS))
    if len(values) > 2:
        raise FigureError("at most two fields")
    return values[0], (values[1] if len(values) == 2 else None)


def evaluate(query: str) -> str:
    """The text a marker's query gives."""
    try:
        words = shlex.split(query)
    except ValueError as e:
        raise FigureError(f"cannot read the query: {e}")
    if len(words) < 2:
        raise FigureError("a marker needs a source and a query")
    data = load(words[0])
    words = words[1:]
    options = {w for w in words if w in OPTIONS}
    words = [w for w in words if w not in OPTIONS]
    if len(words) == 1 and words[0] in CONTEXT_KEYS:
        return context_value(data, words[0])
    if words and words[0] == "timing":
        return timing_text(data, words)
    bare, percent = "bare" in options, "%" in options
    if "-" in words:  # a difference, in A's unit and format
        i = words.index("-")
        (a, _), (b, _) = number_value(data, words[:i]), number_value(data, words[i + 1:])
        if len(a.numbers) != 1 or len(b.numbers) != 1 or a.costs != b.costs or a.unit != b.unit:
            raise FigureError("a difference needs one number of one unit on each side")
        return Value([a.numbers[0] - b.numbers[0]], a.fmt, a.unit, costs=a.costs).text(bare, False)
    if "/" in words:
        i = words.index("/")
        (a, _), (b, _) = number_value(data, words[:i]), number_value(data, words[i + 1:])
        if len(a.numbers) != 1 or len(b.numbers) != 1:
            raise FigureError("a ratio needs one number on each side (add min or max)")
        r = a.numbers[0] / b.numbers[0]
        if "diff" in options:
            return fmt.docs_percent(abs(r - 1))
        if percent:
            return fmt.docs_percent(r)
        if "frac" in options:
            return f"{r:.2f}"
        return fmt.docs_ratio(r)
    main, extra = number_value(data, words)
    text = main.text(bare, percent and main.fraction)
    if extra is not None:
        text += f" ({extra.text(bare, percent and extra.fraction)})"
    return text


# --- the docs ----------------------------------------------------------------------------------

def docs() -> list[Path]:
    found = [REPO / "README.md"] + sorted((REPO / "docs").rglob("*.md"))
    return [p for p in found if p.relative_to(REPO).as_posix() not in GENERATED]


@dataclass
class Figure:
    path: Path
    line: int
    query: str
    old: str | None
    new: str | None
    error: str | None


def outside_code(text: str) -> list[tuple[int, int]]:
    """The spans of `text` outside fenced code blocks."""
    spans, pos = [], 0
    for m in re.finditer(r"^```.*?^```[^\n]*$", text, flags=re.M | re.S):
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, len(text)))
    return spans


def process(path: Path, rewrite: bool) -> tuple[str, list[Figure]]:
    """(the doc with every figure regenerated, its figures)."""
    text = path.read_text()
    figures: list[Figure] = []
    out, last = [], 0
    for start, end in outside_code(text):
        for m in OPEN.finditer(text, start, end):
            line_start = text.rfind("\n", 0, m.start()) + 1
            if text.count("`", line_start, m.start()) % 2:  # in a code span: an example, not a marker
                continue
            line = text.count("\n", 0, m.start()) + 1
            query = m.group("q")
            try:
                new = evaluate(query)
                error = None
            except (FigureError, KeyError, ValueError, TypeError, ZeroDivisionError) as e:
                new, error = None, (str(e) if isinstance(e, FigureError) else f"{type(e).__name__}: {e}")
            close = text.find(CLOSE, m.end(), end)
            line_end = text.find("\n", m.end())
            wrapped = close != -1 and (line_end == -1 or close < line_end) and not OPEN.search(text, m.end(), close)
            if wrapped:
                old = text[m.end():close]
                figures.append(Figure(path, line, query, old, new, error))
                out += [text[last:m.end()], new if new is not None else old]
                last = close
                continue
            before = text[max(line_start, last):m.start()]
            found = TRAILING.search(before)
            if not found:
                figures.append(Figure(path, line, query, None, new, error or "no figure right before the marker "
                                      "(a number, or wrap the text: <!-- fig ... -->TEXT<!-- /fig -->)"))
                continue
            old = found.group("fig")
            figures.append(Figure(path, line, query, old, new, error))
            fig_start = m.start() - len(before) + found.start("fig")
            out += [text[last:fig_start], new if new is not None else old]
            last = m.start() - len(before) + found.end("fig")
    out.append(text[last:])
    return "".join(out), figures


# The lint: measured units outside markers.
_N = r"\d(?:[\d.,]|\s(?=\d))*"
MEASURED = re.compile(
    rf"(?<![\w.^/−-]){_N}(?:\s?[–-]\s?{_N})?\s?(?:GB/s|GFLOP/s|TFLOP/s|µs|us\b|ms\b)"
    rf"|(?<![\w.^/]){_N}\s?%\s+of\s+(?:the\s+)?(?:GPU's\s+)?(?:copy|cuBLAS|CUB\b|ours|our\b|its\s+limit)"
    rf"|(?<![\w.^/])\d+\.\d+\s+of\s+(?:the\s+)?(?:copy|cuBLAS|CUB\b|ours|our\b|the\s+harness)"
    rf"|(?<![\w.^/×]){_N}(?:[–-]{_N})?×(?!\d|[^\W\d]|\s\d)")  # 1.5×, 5× slower; not 16×16, 1×n, 2 × 3


def lint(path: Path) -> list[tuple[int, str]]:
    text = doc_blocks.blank(path.read_text())
    found = []
    for start, end in outside_code(text):
        lines = text[start:end].split("\n")
        offset = text.count("\n", 0, start)
        plain = []
        for line in lines:
            line = re.sub(r"<!--\s*fig\s(?:(?!-->).)*-->(?:(?!<!--).)*<!-- /fig -->", "", line)
            line = re.sub(rf"(?:\*\*)?{_ONE}(?: \({_ONE}\))?(?:\*\*)?<!--\s*fig\s.*?-->", "", line)
            plain.append(re.sub(r"<!--.*?-->", "", line))
        # Code spans (which may run over a line break inside a paragraph) are not figures.
        block = re.sub(r"(`+)((?:(?!\n[ \t]*\n).)+?)\1", lambda m: "``" + "\n" * m.group(2).count("\n"),
                       "\n".join(plain), flags=re.S)
        for i, line in enumerate(block.split("\n")):
            if UNSOURCED.search(lines[i]):
                continue
            for m in MEASURED.finditer(line):
                found.append((offset + i + 1, m.group().strip()))
    return found


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="fail if a figure is stale, unsourced or unmarked")
    p.add_argument("--list", action="store_true", help="print every marker and its value")
    p.add_argument("files", nargs="*", type=Path, help="docs to read (default: README.md and docs/**/*.md)")
    args = p.parse_args(argv)
    paths = [f.resolve() for f in args.files] or docs()
    problems, stale, changed, total = [], [], [], 0
    for path in paths:
        rel = path.relative_to(REPO)
        new_text, figures = process(path, rewrite=not args.check)
        new_text, blocks = doc_blocks.process(new_text, source_path)
        total += len(figures)
        for line, marker, error, differs in blocks:
            if error or differs:
                (problems if error else stale).append(f"{rel}:{line}: {marker}: {error or differs}")
        for f in figures:
            where = f"{rel}:{f.line}"
            if args.list:
                print(f"{where}: [{f.query}] {f.new if f.error is None else 'ERROR ' + f.error}")
            if f.error:
                problems.append(f"{where}: <!-- fig {f.query} -->: {f.error}")
            elif f.old != f.new:
                stale.append(f"{where}: '{f.old}' should be '{f.new}' (<!-- fig {f.query} -->)")
        for line, figure in lint(path):
            problems.append(f"{rel}:{line}: '{figure}' is a measured figure with no marker: add "
                            "<!-- fig SOURCE QUERY --> after it, or <!-- unsourced: why --> to its line")
        if not args.check and not args.list and new_text != path.read_text():
            write_output(path, new_text)
            changed.append(str(rel))
    for line in stale if args.check else []:
        print(f"STALE: {line}")
    for line in problems:
        print(f"PROBLEM: {line}")
    if args.check:
        print(f"{total} figures in {len(paths)} docs: {len(stale)} stale, {len(problems)} problems"
              + ("; rewrite them with tools/doc-figures" if stale else ""))
        return 1 if stale or problems else 0
    if not args.list:
        print(f"{total} figures in {len(paths)} docs; rewrote {len(changed)} docs"
              + (f" ({', '.join(changed)})" if changed else "") + (f"; {len(problems)} problems" if problems else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
