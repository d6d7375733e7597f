"""The bad inputs, as a new user would type them: one Row per command, its area, its arguments, the
exit status it should give and the value its message must name (docs/bad-input.md). Data: the
tests (test_bad_inputs.py) parametrize over ROWS; a row marked `known` breaks the standard today
(docs/bad-input.md, "Known problems") and is an expected failure until it is fixed."""
from __future__ import annotations

import json
import re
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from sandbox import ERROR_PREFIX, normalise


# --- the rows ----------------------------------------------------------------------------------

@dataclass
class Outcome:
    code: int | None  # None: timed out
    stdout: str
    stderr: str
    before: dict[str, str]
    after: dict[str, str]
    sandbox: Path
    problems: list[str] = field(default_factory=list)
    fifo: bytes = b""   # what the command wrote into the FIFO, for a row that reads one
    kept: list[str] = field(default_factory=list)  # files the command left in its private TMPDIR


@dataclass
class Row:
    area: str
    args: list[str]
    exit: int = 2
    names: str | None = None  # the bad value (or missing piece) the message must contain
    match: str | None = None  # a regex the message must also match (the fixed behaviour's wording)
    check: Callable[[Outcome], list[str]] | None = None  # for rows that do not give exit 2
    needs: str | None = None  # a condition (NEEDS) the row runs under; elsewhere the doc's row is kept
    known: str | None = None  # a known problem (KNOWN below) the row shows today
    shows: str = ""  # added to the "what the user sees" cell (rows whose point is not the first line)
    tell: str | None = None  # a regex picking the line the cell shows, where the usual choice says little
    reads: str | None = None  # a FIFO in the sandbox that a reader drains while the command runs

    @property
    def command(self) -> str:
        return " ".join(["layerbench", *map(shell_word, self.args)])


def shell_word(arg: str) -> str:
    """An argument as bash would take it: shlex's quoting, or $'...' for one with a control character."""
    if not re.search(r"[\x00-\x1f\x7f]", arg):
        return shlex.quote(arg)
    escaped = arg.replace("\\", "\\\\").replace("'", "\\'")
    return "$'" + re.sub(r"[\x00-\x1f\x7f]", lambda m: {"\n": "\\n", "\t": "\\t"}.get(m.group(),
                         f"\\x{ord(m.group()):02x}"), escaped) + "'"


OUT = ["-o", "out.json"]
ONE_CPU_CASE = ["-w", "vector_add", "-l", "cpu", "-s", "1000", *OUT]
DRIVER_CASE = ["-w", "vector_add", "-l", "driver", "-s", "1000", *OUT]


def _skipped_gpu_layers(layers: list[str], expected_cases: int = 0) -> Callable[[Outcome], list[str]]:
    """GPU layers named where none can run: one line per layer, naming it, with the reason; the JSON
    written all the same (with the CPU's cases only); exit 0."""
    def check(o: Outcome) -> list[str]:
        problems = []
        skip_lines = [l for l in o.stderr.splitlines() if re.match(r"layerbench: layer \S+ skipped: ", l)]
        named = [l.split()[2] for l in skip_lines]
        if named != layers:
            problems.append(f"expected one 'layer L skipped: why' line for each of {layers}, got {named}")
        if any(ERROR_PREFIX.match(l) for l in o.stderr.splitlines()):
            problems.append("an error line on stderr")
        out = o.sandbox / "out.json"
        try:
            cases = [b for b in json.loads(out.read_text())["benchmarks"] if b.get("run_type") == "iteration"]
            if len(cases) != expected_cases:
                problems.append(f"out.json has {len(cases)} cases, expected {expected_cases}")
        except (OSError, ValueError, KeyError, TypeError) as e:
            problems.append(f"out.json not written or not results ({e})")
        return problems
    return check


def _looks_like(kind: str, text: str) -> str:
    """Why `text` is not output of `kind` (json: a results file, csv, md), or ""."""
    try:
        if kind == "json":
            return "" if "benchmarks" in json.loads(text) else "JSON without benchmarks"
    except ValueError as e:
        return f"not JSON ({e})"
    if kind == "csv":
        return "" if text.startswith("workload,") else "not the CSV (no 'workload,' header)"
    if kind == "md":
        return "" if "|" in text else "not the comparison table"
    return ""


def _no_error(o: Outcome) -> list[str]:
    return ["an error line on stderr"] if any(ERROR_PREFIX.match(l) for l in o.stderr.splitlines()) else []


def _followed(link: str, target: str, kind: str) -> Callable[[Outcome], list[str]]:
    """An output that is a symlink: followed, its target replaced with the output, the link kept."""
    def check(o: Outcome) -> list[str]:
        problems = _no_error(o)
        if o.after.get(link) != o.before.get(link):
            problems.append(f"{link} is now {o.after.get(link)!r}, was {o.before.get(link)!r}")
        if o.after.get(target) == o.before.get(target):
            problems.append(f"{target}, the link's target, was not replaced")
        elif why := _looks_like(kind, (o.sandbox / target).read_text(errors="replace")):
            problems.append(f"{target}: {why}")
        return problems
    return check


def _written_through(node: str) -> Callable[[Outcome], list[str]]:
    """An output that is a device (null): written through, the node still a device."""
    def check(o: Outcome) -> list[str]:
        problems = _no_error(o)
        if o.after.get(node) != o.before.get(node):
            problems.append(f"{node} is now {o.after.get(node)!r}, was {o.before.get(node)!r}")
        return problems
    return check


def _full(node: str, keeps: bool) -> Callable[[Outcome], list[str]]:
    """An output that cannot take the bytes (a full device): one error line naming it, exit 2, the
    node untouched; a run's results kept in a file of the temporary folder, which the line names."""
    def check(o: Outcome) -> list[str]:
        problems = []
        errors = [l for l in o.stderr.splitlines() if ERROR_PREFIX.match(l)]
        if len(errors) != 1:
            problems.append(f"{len(errors)} error lines, expected one")
        elif node not in errors[0]:
            problems.append(f"the error line does not name {node}")
        if o.after.get(node) != o.before.get(node):
            problems.append(f"{node} is now {o.after.get(node)!r}")
        if keeps:
            if len(o.kept) != 1:
                problems.append(f"{len(o.kept)} files kept in the temporary folder, expected one")
            elif not errors or normalise(Path(o.kept[0]).name, o.sandbox, "") not in errors[0]:
                problems.append("the error line does not name the file the results are kept in")
            elif why := _looks_like("json", Path(o.kept[0]).read_text(errors="replace")):
                problems.append(f"the kept file: {why}")
        return problems
    return check


def _fifo(kind: str) -> Callable[[Outcome], list[str]]:
    """An output that is a FIFO: written through (a reader drains it), the FIFO kept."""
    def check(o: Outcome) -> list[str]:
        problems = _no_error(o)
        if o.after.get("pipe") != "fifo":
            problems.append(f"pipe is now {o.after.get('pipe')!r}")
        if why := _looks_like(kind, o.fifo.decode(errors="replace")):
            problems.append(f"what came through the FIFO: {why}")
        return problems
    return check


def _stdout(kind: str) -> Callable[[Outcome], list[str]]:
    """'-': the output on standard output, nothing else there, no file written."""
    def check(o: Outcome) -> list[str]:
        problems = _no_error(o)
        if why := _looks_like(kind, o.stdout):
            problems.append(f"stdout: {why}")
        if o.after != o.before:
            problems.append("wrote a file")
        return problems
    return check


def _does_not_fit(o: Outcome) -> list[str]:
    """A size too large for this machine: the case skipped with its reason, the run written, exit 0."""
    problems = _no_error(o)
    if "skipped: does not fit in host memory" not in o.stdout:
        problems.append("no 'skipped: does not fit in host memory' in the summary")
    try:
        cases = json.loads((o.sandbox / "out.json").read_text())["benchmarks"]
        if [c.get("skipped") for c in cases] != [True]:
            problems.append(f"out.json: expected one skipped case, got {len(cases)} cases")
    except (OSError, ValueError, KeyError, TypeError) as e:
        problems.append(f"out.json not written or not results ({e})")
    return problems


RUN_CPU = ["run", "-w", "vector_add", "-l", "cpu", "-s", "1000", "--max-time", "0.05"]
LADDER = ["ladder", "matmul"]  # no rung runs without a GPU: the JSON has none, and is written
COMPARE = ["compare", "old.json", "results.json"]
CSV = ["csv", "results.json"]
_TO = "; the output written through"  # the cell's note for the rows that succeed on purpose

ROWS: list[Row] = [
    # -- top level ---------------------------------------------------------------------------
    Row("top level", [], names="subcommand"),
    Row("top level", ["frobnicate"], names="frobnicate"),
    Row("top level", ["--frobnicate"], names="--frobnicate"),
    Row("top level", ["list", "extra"], names="extra"),
    Row("top level", ["list", "one", "two"], names="one two"),
    Row("top level", ["list", "--workload-dir", "no_such_folder"], names="no_such_folder"),
    # -- run -----------------------------------------------------------------------------------
    Row("run", ["run", "-w", "vector_ad", *OUT], names="vector_ad"),
    Row("run", ["run", "-l", "cuda", *OUT], names="cuda"),
    Row("run", ["run", "--workload-dir", "no_such_folder", *OUT], names="no_such_folder"),
    Row("run", ["run", "--workload-dir", "notes.txt", *OUT], names="notes.txt"),
    Row("run", ["run", "--devices", "x", *OUT], names="'x'"),
    Row("run", ["run", "--devices", "0,0", *OUT], names="0"),
    Row("run", ["run", "--concurrent", *OUT], names="--concurrent"),
    Row("run", ["run", "-w", "vector_add\nsaxpy", *OUT], names="'vector_add\\x0asaxpy'"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "0", *OUT], names="'0'"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "-5", *OUT], names="'-5'"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "2^64", *OUT], names="'2^64'"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "18446744073709551616", *OUT],
        names="'18446744073709551616'"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "1e9", *OUT], names="'1e9'"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "abc", *OUT], names="'abc'"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "", *OUT], names="''"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "64x64x64", *OUT], names="'64x64x64'"),
    Row("run", ["run", "-w", "matmul", "-l", "cpu", "-s", "1x2", *OUT], names="'1x2'"),
    Row("run", ["run", "-w", "matmul", "-l", "cpu", "-s", "1x2x3x4", *OUT], names="'1x2x3x4'"),
    Row("run", ["run", "-w", "matmul", "-l", "cpu", "-s", "64x0x64", *OUT], names="'64x0x64'"),
    Row("run", ["run", "-w", "matmul", "-l", "cpu", "-s", "64xabcx64", *OUT], names="'64xabcx64'"),
    Row("run", ["run", "-w", "matmul", "-l", "cpu", "-s", "x64x64", *OUT], names="'x64x64'"),
    Row("run", ["run", "-w", "matmul", "-l", "cpu", "-s", "2^31x1x1", *OUT], names="'2^31x1x1'",
        match=r"2\^31 - 1"),  # the layers take a matrix dimension as an int
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "0^5", *OUT], names="'0^5'"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "1\n2", *OUT], names="'1\\x0a2'"),
    # A size that is a size but too large for this machine is not bad input: a case skipped with why.
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "2^40", *OUT], exit=0, check=_does_not_fit,
        tell="skipped", shows="; out.json written, the case skipped"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "4611686018427387904", *OUT], exit=0,
        check=_does_not_fit, tell="skipped", shows="; out.json written, the case skipped"),  # 2^62 written out
    Row("run", ["run", "-w", "matmul", "-l", "cpu", "-s", "1000000", *OUT], exit=0, check=_does_not_fit,
        tell="skipped", shows="; out.json written, the case skipped"),
    Row("run", ["run", "-w", "matmul", "-l", "cpu", "-s", "3000000000", *OUT], exit=0, tell="skipped",
        check=lambda o: [] if "skipped: does not fit: a cube of side 3000000000 is above 2^31 - 1" in o.stdout
        else ["no 'does not fit: ... above 2^31 - 1' skip in the summary"],
        shows="; out.json written, the case skipped"),
    Row("run", ["run", *ONE_CPU_CASE, "--noise", "0"], names="--noise", match=r"\b0\b"),
    Row("run", ["run", *ONE_CPU_CASE, "--noise", "-1"], names="--noise", match=r"-1\b"),
    Row("run", ["run", *ONE_CPU_CASE, "--noise", "abc"], names="--noise", match=r"abc"),
    Row("run", ["run", *ONE_CPU_CASE, "--min-samples", "0"], names="--min-samples", match=r"\b0\b"),
    Row("run", ["run", *ONE_CPU_CASE, "--min-samples", "1.5"], names="1.5"),
    Row("run", ["run", *ONE_CPU_CASE, "--min-time", "0"], names="--min-time", match=r"\b0\b"),
    Row("run", ["run", *ONE_CPU_CASE, "--max-time", "0"], names="--max-time", match=r"\b0\b"),
    Row("run", ["run", *ONE_CPU_CASE, "--mode", "warm"], names="warm"),
    Row("run", ["run", *ONE_CPU_CASE, "--seed", "-1"], names="-1"),
    Row("run", ["run", *ONE_CPU_CASE, "--seed", "99999999999999999999999"], names="99999999999999999999999"),
    Row("run", ["run", *ONE_CPU_CASE, "--seed", "abc"], names="abc"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "1000", "-o", "/proc/x.json"], names="/proc/x.json"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "1000", "-o", "a-folder"], names="a-folder"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "1000", "-o", ""], names="output path"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "1000", "-o", "notes.txt/out.json"],
        names="notes.txt/out.json"),  # under a file: cannot be written
    Row("run", [*RUN_CPU, "-o", "link.json"], exit=0, check=_followed("link.json", "target.json", "json"),
        tell="results written", shows="; the link kept, its target replaced"),
    Row("run", [*RUN_CPU, "-o", "null-device"], exit=0, check=_written_through("null-device"), needs="mknod",
        tell="results written", shows=_TO),
    Row("run", [*RUN_CPU, "-o", "full-device"], exit=2, check=_full("full-device", keeps=True), needs="mknod",
        tell="error", shows="; the results kept in the temporary folder"),
    Row("run", [*RUN_CPU, "-o", "pipe"], exit=0, check=_fifo("json"), reads="pipe", tell="results written",
        shows="; a reader got the JSON"),
    Row("run", [*RUN_CPU, "-o", "-"], exit=0, check=_stdout("json"), tell="results written",
        shows="; the JSON on stdout, the rest on stderr"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu", "-s", "1000", "-o", "results.json", "-s", "0"],
        names="'0'"),  # the results already there stay as they were
    Row("run", ["run", *ONE_CPU_CASE, "--rung", "matmul/fastest"], names="matmul/fastest"),
    Row("run", ["run", *ONE_CPU_CASE, "--rung", "matmul/99"], names="matmul/99"),
    Row("run", ["run", "-l", "cpu", "--rung", "matmul/all", "-s", "64", *OUT], names="cpu"),
    Row("run", ["run", *ONE_CPU_CASE, "--benchmark_xyz=1"], names="--benchmark_xyz=1"),
    Row("run", ["run", *ONE_CPU_CASE, "--foo"], names="--foo"),
    Row("run", ["run", *ONE_CPU_CASE, "--benchmark_repetitions=abc"], names="abc"),
    Row("run", ["run", *ONE_CPU_CASE, "--benchmark_repetitions=0"], names="--benchmark_repetitions=0"),
    Row("run", ["run", *ONE_CPU_CASE, "--benchmark_repetitions=-3"], names="--benchmark_repetitions=-3"),
    # Google Benchmark's flags other than --benchmark_filter and --benchmark_repetitions mean nothing to
    # a harness that times each case itself: refused, naming the flag and what to use instead.
    Row("run", ["run", *ONE_CPU_CASE, "--benchmark_format=xml"], names="--benchmark_format=xml"),
    Row("run", ["run", *ONE_CPU_CASE, "--benchmark_out=gb.json"], names="--benchmark_out=gb.json"),
    Row("run", ["run", *ONE_CPU_CASE, "--benchmark_min_time=2"], names="--benchmark_min_time=2"),
    Row("run", ["run", *ONE_CPU_CASE, "--benchmark_list_tests"], names="--benchmark_list_tests"),
    Row("run", ["run", *ONE_CPU_CASE, "--benchmark_filter=["], names="["),
    Row("run", ["run", *ONE_CPU_CASE, "--benchmark_filter"], names="--benchmark_filter"),
    Row("run", ["run", *ONE_CPU_CASE, "--benchmark_filter=saxpy"], names="--benchmark_filter=saxpy"),
    Row("run", ["run", *ONE_CPU_CASE, "matmul"], names="matmul"),
    Row("run", ["run", "-w"], names="--workload"),
    # --kernel-text WORKLOAD=FILE (the driver layer compiles FILE instead of workloads/WORKLOAD/kernels.cu)
    Row("run", ["run", *DRIVER_CASE, "--kernel-text", "vector_add=missing.cu"], names="missing.cu"),
    Row("run", ["run", *DRIVER_CASE, "--kernel-text", "vector_add=a-folder"], names="'a-folder'"),
    Row("run", ["run", *DRIVER_CASE, "--kernel-text", "vector_add=empty.json"], names="'empty.json'"),
    Row("run", ["run", *DRIVER_CASE, "--kernel-text", "vectoradd=kernel.cu"], names="'vectoradd'"),
    Row("run", ["run", *DRIVER_CASE, "--kernel-text", "launch_async=kernel.cu"], names="'launch_async'",
        match=r"launch\b"),  # launch_async runs launch's text: the message lists the texts there are
    Row("run", ["run", *DRIVER_CASE, "--kernel-text", "kernel.cu"], names="'kernel.cu'", match="WORKLOAD=FILE"),
    Row("run", ["run", *DRIVER_CASE, "--kernel-text", "vector_add="], names="'vector_add='"),
    Row("run", ["run", *DRIVER_CASE, "--kernel-text", "vector_add=kernel.cu", "--kernel-text",
                "vector_add=notes.txt"], names="vector_add=notes.txt"),
    Row("run", ["run", *ONE_CPU_CASE, "--kernel-text", "vector_add=kernel.cu"], names="cpu", match="driver"),
    Row("run", ["run", *DRIVER_CASE, "--kernel-text"], names="--kernel-text"),
    Row("run", ["run", "-l", "runtime", "-s", "1000", *OUT], exit=0, check=_skipped_gpu_layers(["runtime"]),
        needs="no-gpu", shows="; out.json written, with no cases"),
    Row("run", ["run", "-l", "runtime,driver", "-s", "1000", *OUT], exit=0,
        check=_skipped_gpu_layers(["runtime", "driver"]), needs="no-gpu",
        shows="; a second line for driver; out.json written, with no cases"),
    Row("run", ["run", "-w", "vector_add", "-l", "cpu,runtime", "-s", "1000", *OUT], exit=0,
        check=_skipped_gpu_layers(["runtime"], expected_cases=1), needs="no-gpu",
        shows="; the cpu case runs; out.json has it"),
    # -- ladder --------------------------------------------------------------------------------
    Row("ladder", ["ladder", "sort"], names="sort"),
    Row("ladder", ["ladder", "mat\nmul"], names="mat\\x0amul"),
    Row("ladder", ["ladder"], names="workload"),
    Row("ladder", ["ladder", "matmul", "-l", "cpu"], names="cpu"),
    Row("ladder", ["ladder", "matmul", "-l", "cuda"], names="cuda"),
    Row("ladder", ["ladder", "matmul", "-s", "abc"], names="'abc'"),
    Row("ladder", ["ladder", "reduce", "-s", "1x2x3"], names="'1x2x3'"),
    Row("ladder", ["ladder", "matmul", "--mode", "warm"], names="warm"),
    Row("ladder", ["ladder", "matmul", "-o", "/proc/ladder.json"], names="/proc/ladder.json"),
    Row("ladder", [*LADDER, "-o", "a-folder"], names="a-folder"),
    Row("ladder", [*LADDER, "-o", "link.json"], exit=0, check=_followed("link.json", "target.json", "json"),
        tell="results written", shows="; the link kept, its target replaced"),
    Row("ladder", [*LADDER, "-o", "full-device"], exit=2, check=_full("full-device", keeps=True), needs="mknod",
        tell="error", shows="; the results kept in the temporary folder"),
    Row("ladder", [*LADDER, "-o", "-"], exit=0, check=_stdout("json"), tell="results written",
        shows="; the JSON on stdout, the rest on stderr"),
    Row("ladder", ["ladder", "matmul", "--benchmark_filter=x"], names="--benchmark_filter=x"),
    # -- report / compare / csv (python/layerbench/reports/cli.py) ----------------------------------------------
    Row("report", ["report", "missing.json"], names="missing.json"),
    Row("report", ["report", "empty.json"], names="empty.json"),
    Row("report", ["report", "not-json.json"], names="not-json.json"),
    Row("report", ["report", "binary.json"], names="binary.json"),
    Row("report", ["report", "notes.txt"], names="notes.txt"),
    Row("report", ["report", "a-folder"], names="a-folder"),
    Row("report", ["report", "package.json"], names="package.json"),
    Row("report", ["report", "list.json"], names="list.json"),
    Row("report", ["report", "gbench.json"], names="gbench.json"),
    Row("report", ["report", "truncated.json"], names="truncated.json"),
    Row("report", ["report", "schema99.json"], names="99"),
    Row("report", ["report", "negative-time.json"], names="-1"),
    Row("report", ["report", "time-as-text.json"], names="fast"),
    Row("report", ["report", "results.json", "--out", "/proc/report"], names="/proc/report"),
    Row("report", ["report", "results.json", "--out", "results.json"], names="results.json"),
    Row("report", ["report", "results.json", "--out", "notes.txt"], names="notes.txt"),
    Row("report", ["report", "results.json", "--out", "full-device"], names="full-device", needs="mknod"),
    Row("report", ["report"], names="RESULTS.json"),
    Row("report", ["report", "results.json", "--pdf"], names="--pdf"),
    Row("csv", ["csv", "time-as-text.json"], names="fast"),
    Row("csv", ["csv", "samples-as-list.json"], names="samples"),
    Row("csv", ["csv", "results.json", "-o", "/proc/x.csv"], names="/proc/x.csv"),
    Row("csv", ["csv", "name-with-newline.json"], names="a\\x0ab"),
    Row("csv", ["csv", "results.json", "-o", "results.json"], names="results.json"),
    Row("csv", [*CSV, "-o", "a-folder"], names="a-folder"),
    Row("csv", [*CSV, "-o", "notes.txt/x.csv"], names="notes.txt/x.csv"),
    Row("csv", [*CSV, "-o", "link.csv"], exit=0, check=_followed("link.csv", "target.csv", "csv"), tell="wrote",
        shows="; the link kept, its target replaced"),
    Row("csv", [*CSV, "-o", "null-device"], exit=0, check=_written_through("null-device"), needs="mknod",
        tell="wrote", shows=_TO),
    Row("csv", [*CSV, "-o", "full-device"], exit=2, check=_full("full-device", keeps=False), needs="mknod"),
    Row("csv", [*CSV, "-o", "pipe"], exit=0, check=_fifo("csv"), reads="pipe", tell="wrote",
        shows="; a reader got the CSV"),
    Row("csv", [*CSV, "-o", "-"], exit=0, check=_stdout("csv"), tell="^workload,",
        shows="; the CSV on stdout"),
    Row("csv", ["csv"], names="RESULTS.json"),
    Row("csv", ["csv", "results.json", "extra.json"], names="extra.json"),
    Row("compare", ["compare", "results.json"], names="NEW.json"),
    Row("compare", ["compare"], names="BASE.json"),
    Row("compare", ["compare", "old.json", "missing.json"], names="missing.json"),
    Row("compare", ["compare", "old.json", "truncated.json"], names="truncated.json"),
    Row("compare", ["compare", "old.json", "negative-time.json"], names="-1"),
    Row("compare", ["compare", "old.json", "results.json", "--threshold", "lots"], names="lots"),
    Row("compare", ["compare", "old.json", "results.json", "--noise-k", "0"], names="'0'"),
    Row("compare", ["compare", "old.json", "results.json", "-o", "/proc/x.md"], names="/proc/x.md"),
    Row("compare", ["compare", "old.json", "results.json", "-o", "old.json"], names="old.json"),
    Row("compare", [*COMPARE, "-o", "a-folder"], names="a-folder"),
    Row("compare", [*COMPARE, "-o", "link.md"], exit=0, check=_followed("link.md", "target.md", "md"),
        tell="wrote|verdict|regress", shows="; the link kept, its target replaced"),
    Row("compare", [*COMPARE, "-o", "null-device"], exit=0, check=_written_through("null-device"),
        needs="mknod", tell="wrote|verdict|regress", shows=_TO),
    Row("compare", [*COMPARE, "-o", "full-device"], exit=2, check=_full("full-device", keeps=False),
        needs="mknod"),
    Row("compare", [*COMPARE, "-o", "pipe"], exit=0, check=_fifo("md"), reads="pipe",
        tell="wrote|verdict|regress", shows="; a reader got the table"),
    Row("compare", [*COMPARE, "-o", "-"], exit=0, check=_stdout("md"), tell=r"\|",
        shows="; the table on stdout"),
    Row("compare", ["compare", "old.json", "results.json", "--verbose"], names="--verbose"),
    Row("merge", ["merge", "results.json"], names="--out"),
    Row("merge", ["merge", "results.json", "results.json", "-o", "merged.json"], names="results.json"),
    Row("merge", ["merge", "not-json.json", "-o", "merged.json"], names="not-json.json"),
    Row("merge", ["merge", "results.json", "-o", "results.json"], names="results.json"),
    Row("merge", ["merge", "results.json", "-o", "/proc/merged.json"], names="/proc/merged.json"),
    Row("db", ["db", "add", "results.json", "--db", "notes.txt"], names="notes.txt"),
    Row("db", ["db", "add", "not-json.json", "--db", "history.db"], names="not-json.json"),
    Row("db", ["db", "add", "schema99.json", "--db", "history.db"], names="99"),
    Row("db", ["db", "list", "--db", "missing.db"], names="missing.db"),
    Row("db", ["db", "list", "--db", "history.db", "--since", "yesterday"], names="yesterday"),
    # -- lab -----------------------------------------------------------------------------------
    Row("lab", ["lab"], names="subcommand"),
    Row("lab", ["lab", "begin"], names="begin"),
    Row("lab", ["lab", "list", "extra"], names="extra"),
    Row("lab", ["lab", "list", "--labs", "/proc"], names="--labs /proc"),
    Row("lab", ["lab", "list", "one", "two"], names="one two"),
    Row("lab", ["lab", "--labs", "/nonexistent", "list"], names="/nonexistent"),
    Row("lab", ["lab", "start", "99"], names="'99'"),
    Row("lab", ["lab", "start", "vector-add"], names="'vector-add'"),
    Row("lab", ["lab", "start", "1\n2"], names="'1\\x0a2'"),
    Row("lab", ["lab", "start", "1", "started"], names="started/README.md"),
    Row("lab", ["lab", "start", "1", "notes.txt"], names="notes.txt"),
    Row("lab", ["lab", "start", "1", "/proc/lab"], names="/proc/lab"),
    Row("lab", ["lab", "check", "1", "missing.cu"], names="missing.cu"),
    Row("lab", ["lab", "check", "1", "a-folder"], names="a-folder"),
    Row("lab", ["lab", "check", "99", "kernel.cu"], names="'99'"),
    Row("lab", ["lab", "check", "1"], names="FILE"),
    Row("lab", ["lab", "grade"], names="LAB"),
    Row("lab", ["lab", "grade", "1"], names="FILES"),
    Row("lab", ["lab", "grade", "1", "missing.cu"], names="missing.cu"),
    Row("lab", ["lab", "grade", "1", "kernel.cu", "--json", "/proc/grades.json"], names="/proc/grades.json"),
    Row("lab", ["lab", "grade", "1", "kernel.cu", "--json", "kernel.cu"], names="kernel.cu"),
    Row("lab", ["lab", "grade", "1", "kernel.cu", "--json", "a-folder"], names="a-folder"),
    Row("lab", ["lab", "grade", "1", "kernel.cu", "--json", "notes.txt/g.json"], names="notes.txt/g.json"),
    Row("lab", ["lab", "grade", "1", "kernel.cu", "--csv", "g.csv", "--markdown", "g.csv"], names="g.csv"),
    Row("lab", ["lab", "grade", "1", "kernel.cu", "--points", "10"], names="--points"),
    Row("lab", ["lab", "profile", "1", "missing.cu"], names="missing.cu"),
    Row("lab", ["lab", "grade", "1", "kernel.cu", "--format", "moodle", "--results", "r.json"], names="moodle"),
    Row("lab", ["lab", "grade", "1", "kernel.cu", "--format", "gradescope"], names="--results"),
    Row("lab", ["lab", "grade", "1", "kernel.cu", "--format", "prairielearn", "--results", "r.json",
                "--visibility", "hidden"], names="--visibility"),
    Row("lab", ["lab", "grade", "1", "kernel.cu", "--format", "gradescope", "--results", "r.json",
                "--visibility-of", "2^25=hidden"], names="2^25"),
    Row("lab", ["lab", "grade", "1", "kernel.cu", "kernel.cu", "--format", "gradescope", "--results", "r.json"],
        names="2 files"),
    Row("lab", ["lab", "leaderboard", "1"], names="GRADES"),
    Row("lab", ["lab", "leaderboard", "1", "grades.json"], names="--out"),
    Row("lab", ["lab", "leaderboard", "1", "missing.json", "-o", "board.html"], names="missing.json"),
    Row("lab", ["lab", "leaderboard", "1", "a-folder", "-o", "board.html"], names="a-folder"),
    Row("lab", ["lab", "leaderboard", "1", "not-json.json", "-o", "board.html"], names="not-json.json"),
    Row("lab", ["lab", "leaderboard", "1", "truncated.json", "-o", "board.html"], names="truncated.json"),
    Row("lab", ["lab", "leaderboard", "1", "results.json", "-o", "board.html"], names="results.json"),
    Row("lab", ["lab", "leaderboard", "2", "grades.json", "-o", "board.html"], names="grades.json"),
    Row("lab", ["lab", "leaderboard", "1", "grades.json", "-o", "grades.json"], names="grades.json"),
    Row("lab", ["lab", "leaderboard", "1", "grades.json", "-o", "a-folder"], names="a-folder"),
    Row("lab", ["lab", "leaderboard", "1", "grades.json", "-o", "/proc/board.html"], names="/proc/board.html"),
    Row("lab", ["lab", "leaderboard", "1", "grades.json", "-o", "null-device"], exit=0,
        check=_written_through("null-device"), needs="mknod"),
    Row("lab", ["lab", "leaderboard", "1", "grades.json", "-o", "full-device"], exit=2,
        check=_full("full-device", keeps=False), needs="mknod"),
]

# Problems in code this script's owners do not own: the exact fix is in docs/bad-input.md.
KNOWN: dict[str, str] = {}  # none open: K1-K7 of the first sweep are fixed (docs/bad-input.md)
