"""Generated blocks in the docs: what one marker cannot hold (a table of a committed results file),
written between two lines of their own, both HTML comments that do not render:

    <!-- block h200x2/fleet.json side-by-side -->
    ... generated Markdown ...
    <!-- /block -->

The first word names the source as tools/doc-figures' markers do (a file under docs/results/, or a
folder there for its results.json; a same-build block names pairs, BASE+NEW;BASE+NEW), the second
the kind of block (BLOCKS). tools/doc-figures
rewrites every block with its figures, and `--check` (ctest docs.figures_current) fails while one
differs from what its source gives. The tables come from the reports' own code, so a doc shows what
`layerbench report` and `merge --side-by-side` print for the same file.
"""
from __future__ import annotations

import re
from pathlib import Path

import gzip
import json

from layerbench.reports import compare, document, fleet, results

OPEN = re.compile(r"^<!--\s*block\s+(?P<source>\S+)\s+(?P<kind>\S+)\s*-->[ \t]*$", re.M)
CLOSE = re.compile(r"^<!-- /block -->[ \t]*$", re.M)


class BlockError(Exception):
    pass


def _markdown(blocks: list) -> str:
    """Blocks of a reports Document as Markdown, without the document's title line."""
    text = document.to_markdown(document.Document("", blocks), Path("."))
    return text.split("\n", 2)[2]


def side_by_side(path: Path) -> str:
    """A merged file's runs side by side (python/layerbench/reports/fleet.py, the report's section):
    the runs; how a case is flagged; the flagged cases; every case, folded in a <details>."""
    try:
        merged = results.load(path)
    except results.ResultsError as e:
        raise BlockError(str(e)) from None
    if len(merged.runs) < 2:
        raise BlockError(f"{path.name} is not a merged file of two runs or more")
    doc = document.Document("")
    fleet.side_by_side(doc, merged, in_report=False)
    runs, cases = [b for b in doc.blocks if isinstance(b, document.Table)]
    rule = [b for b in doc.blocks if isinstance(b, document.Paragraph)][-1]
    mark = fleet.FLAG if len(merged.runs) >= fleet.MIN_RUNS_TO_FLAG else fleet.DIFFERS  # fleet.side_by_side's
    marked = [row for row in cases.rows if any(mark in cell for cell in row[1:])]
    shown = (f"The {len(marked)} of {len(cases.rows)} cases marked {mark}:" if marked
             else f"None of the {len(cases.rows)} cases is marked {mark}.")
    return (_markdown([runs, rule, document.Paragraph(shown)]
                      + ([document.Table(cases.headers, marked, cases.align)] if marked else []))
            + f"\n<details><summary>Every case ({len(cases.rows)})</summary>\n\n"
            + _markdown([cases]) + "\n</details>\n")


def _load_any(path: Path) -> results.Results:
    """A results file, or a gzipped one (the same-build fixtures), through the reports' reader."""
    try:
        if path.suffix == ".gz":
            data = json.loads(gzip.decompress(path.read_bytes()))
            return results.from_data(path, data)
        return results.load(path)
    except (results.ResultsError, OSError, ValueError) as e:
        raise BlockError(f"{path}: {e}") from None


def same_build(pairs: list[tuple[Path, Path]]) -> str:
    """False alarms over pairs of runs of one build (BASE+NEW): per pair, its cases compared and how
    many `layerbench compare` called faster or slower, all and device-timed (reports/verdict.py)."""
    rows = []
    for base, new in pairs:
        c = compare.compare(_load_any(base), _load_any(new))
        alarms = [r for r in c.rows if r.verdict in (compare.FASTER, compare.SLOWER)]
        device = sum(1 for r in alarms if r.timing == "device")
        samples = "samples" if all(r.base.samples_ms for r in c.rows) else "no samples: ranges"
        rows.append([f"`{base.name}` and `{new.name}` ({_devices(c)}, {samples})", str(len(c.rows)),
                     str(c.count(compare.FASTER)), str(c.count(compare.SLOWER)), str(device),
                     f"{100 * len(alarms) / len(c.rows):.1f}%" if c.rows else "–"])
    table = document.Table(["pair", "cases", "faster", "slower", "device-timed faster or slower", "false alarms"],
                           rows, "lrrrrr")
    return _markdown([table])


# The changes injected into NEW for the `injected` block (docs/reports.md), each quiet; the last
# also on a busy machine (compare.with_change).
INJECTED = (1.03, 1.2, 2.0, 140.0)


def injected(pairs: list[tuple[Path, Path]]) -> str:
    """Per pair of runs of one build: what `compare` calls each case, by timing kind, with nothing
    changed and with NEW made 1.03x, 1.2x, 2x and 140x slower (every sample), quiet and busy
    (compare.with_change): what the rule finds, and what it cannot tell from the runs' own moves."""
    rows = []
    for base, new in pairs:
        c = compare.compare(_load_any(base), _load_any(new))
        runs = [(1.0, False), *((f, False) for f in INJECTED), (INJECTED[-1], True)]
        for factor, busy in runs:
            decided = compare.with_change(c, factor, busy)
            for kind in ("device", "host-feeds-gpu", "cpu"):
                verdicts = [d.verdict for row, d in decided if row.timing == kind]
                if not verdicts:
                    continue
                rows.append([f"`{base.parent.name}/{base.name}` and `{new.name}`", kind,
                             "none" if factor == 1.0 else f"{factor:g}x" + (", busy" if busy else ""),
                             str(len(verdicts))] + [str(verdicts.count(v)) for v in
                                                   (compare.SLOWER, compare.UNCLEAR, compare.SAME, compare.FASTER)])
    table = document.Table(["pair", "timed by", "NEW made slower", "cases", "slower", "unclear", "same", "faster"],
                           rows, "lllrrrrr")
    return _markdown([table])


def spread(groups: list[list[Path]]) -> str:
    """Runs of one build, one process after another (a group: RUN+RUN+...; groups separated by ';'):
    per case, each run's median and the largest over the smallest, what `compare`'s allowances
    must hold (docs/methodology.md, "Host-timed cases")."""
    rows = []
    for group in groups:
        runs = [_load_any(path) for path in group]
        label = "+".join(path.name.split(".")[0] for path in group)
        order = [c for c in runs[0].cases if c.ok and c.median_ms]
        for case in order:
            medians = [next((c.median_ms for c in r.cases if c.key == case.key and c.ok), None) for r in runs]
            if any(not m for m in medians):
                continue
            rows.append([f"`{label}`", case.name.rsplit("/manual_time", 1)[0], runs[0].timing(case),
                         " ".join(f"{m:.4g}" for m in medians), f"{max(medians) / min(medians):.3f}"])
    table = document.Table(["runs", "case", "timed by", "medians, ms", "largest / smallest"], rows, "lllrr")
    return _markdown([table])


def _devices(c: compare.Comparison) -> str:
    return c.base.device_name if c.base.device_name == c.new.device_name else f"{c.base.device_name}, {c.new.device_name}"


# kind -> (what its source names, the function): "file" a results file; "pairs" BASE+NEW[;BASE+NEW...];
# "groups" RUN+RUN+...[;RUN+RUN+...]
BLOCKS = {"side-by-side": ("file", side_by_side), "same-build": ("pairs", same_build), "injected": ("pairs", injected),
          "spread": ("groups", spread)}


def generate(source: str, kind: str, source_path) -> str:
    """The block `kind` of `source` (as the marker names it); source_path: a name -> its file."""
    if kind not in BLOCKS:
        raise BlockError(f"unknown block '{kind}' (blocks: {', '.join(BLOCKS)})")
    form, make = BLOCKS[kind]
    if form == "file":
        paths = [source_path(source)]
    elif form == "groups":
        groups = [[source_path(name) for name in group.split("+")] for group in source.split(";")]
        for path in (p for g in groups for p in g):
            if not path.is_file():
                raise BlockError(f"source {path} is not committed")
        return make(groups)
    else:
        pairs = [pair.split("+") for pair in source.split(";")]
        if any(len(pair) != 2 for pair in pairs):
            raise BlockError(f"'{source}': pairs are BASE+NEW, separated by ';'")
        paths = [source_path(name) for pair in pairs for name in pair]
    for path in paths:
        if not path.is_file():
            raise BlockError(f"source {path} is not committed")
    return make(paths[0]) if form == "file" else make(list(zip(paths[::2], paths[1::2])))


def process(text: str, source_path) -> tuple[str, list[tuple[int, str, str | None, str | None]]]:
    """(text with every block regenerated, [(line, marker, error, stale) per block]): error when the
    block cannot be made, stale (None when current) when its text differs from what it should be.
    source_path: a marker's source name -> its file (tools/doc-figures')."""
    out, last, found = [], 0, []
    for m in OPEN.finditer(text):
        if m.start() < last:
            continue
        line = text.count("\n", 0, m.start()) + 1
        close = CLOSE.search(text, m.end())
        if close is None:
            found.append((line, m.group(0), "no <!-- /block --> line after it", None))
            continue
        old = text[m.end() + 1:close.start()]
        try:
            new = generate(m.group("source"), m.group("kind"), source_path)
        except BlockError as e:
            found.append((line, m.group(0), str(e), None))
            continue
        found.append((line, m.group(0), None, None if new == old else f"{old.count(chr(10))} lines, "
                                                                      f"should be {new.count(chr(10))}"))
        out += [text[last:m.end() + 1], new]
        last = close.start()
    out.append(text[last:])
    return "".join(out), found


def blank(text: str) -> str:
    """text with every block's generated lines emptied (line numbers kept), for the figures' lint:
    a block's numbers are its source's, not prose."""
    out, last = [], 0
    for m in OPEN.finditer(text):
        close = CLOSE.search(text, m.end())
        if m.start() < last or close is None:
            continue
        out += [text[last:m.end()], "\n" * text.count("\n", m.end(), close.start())]
        last = close.start()
    out.append(text[last:])
    return "".join(out)
