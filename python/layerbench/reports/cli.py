#!/usr/bin/env python3
"""layerbench's report tool: `report`, `compare`, `csv`, `merge` and `db` over the harness's JSON results.

Run it as `python3 -m layerbench.reports SUBCOMMAND ...` with python/ on PYTHONPATH, or through the
harness: `build/layerbench report|compare|csv ...` hands over to it (docs/reports.md).

Exit status: 0 done (compare: no case slower, or of a verdict --fail-on names); 1 compare found a
case slower beyond the threshold with confidence (or of another verdict --fail-on names: unclear,
faster); 2 bad input (one line on stderr naming the file and what is wrong).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .. import db
from . import compare as compare_mod
from . import csvout, merge, output, results

# Commands that live in a module of their own: each has add_parser(sub), which adds its parser and
# sets its `run` (args -> exit status), raising results.ResultsError or UsageError on bad input.
COMMAND_MODULES = (merge, db)

PROG = "layerbench"


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse, with the project's one-line errors: `layerbench compare: error: WHAT (see layerbench
    compare --help)` and exit status 2, instead of a usage block and then the error; and the help
    laid out as the C++ commands' (CLI11's, app/cli.cpp): the description, `Usage: ...`, then
    `Positionals:`, `Options:` and the other groups, then the epilog."""

    commands: dict[str, _Parser]  # the top-level parser's: each command's parser, by name (set by parser())

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._positionals.title = "Positionals"
        self._optionals.title = "Options"
        for action in self._actions:
            if isinstance(action, argparse._HelpAction):
                action.help = "Print this help message and exit"  # CLI11's words

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {results.one_line(message)} (see {self.prog} --help)\n")

    def format_help(self) -> str:
        head = self._get_formatter()
        head.add_text(self.description)
        usage = self._get_formatter()
        usage.add_usage(self.usage, self._actions, self._mutually_exclusive_groups, prefix="Usage: ")
        rest = self._get_formatter()
        for group in self._action_groups:
            rest.start_section(group.title)
            rest.add_text(group.description)
            rest.add_arguments(group._group_actions)
            rest.end_section()
        rest.add_text(self.epilog)
        return head.format_help() + usage.format_help() + "\n" + rest.format_help()


def parser() -> _Parser:
    top = _Parser(
        prog=PROG, description="Reports, comparisons and CSV from layerbench's JSON results.",
        epilog="Exit status: 0 done; 1 compare found a slower case (or one of another verdict its --fail-on "
               "names); 2 bad input. See docs/reports.md.")
    sub = top.add_subparsers(dest="command", metavar="{report,compare,csv,merge,db}")
    sub.required = True
    top.commands = sub.choices  # name -> its parser, for errors about a command's arguments

    p = sub.add_parser(
        "report", help="write report.md, report.html and the plots (PNG and SVG)",
        description="Write report.md, a self-contained report.html (plots embedded, no network needed) "
                    "and the plots as PNG and SVG under DIR/plots, from one results file; or, with --db, "
                    "each case's figure over time from the results database (docs/history.md).")
    p.add_argument("results", metavar="RESULTS.json", nargs="?",
                   help="a results file written by `layerbench run` (or `merge`)")
    p.add_argument("--db", metavar="URL", default=None,
                   help="instead of a results file: the results database (a file path, or postgresql://...)")
    p.add_argument("--since", metavar="DATE", default=None, help="with --db: runs on or after DATE (YYYY-MM-DD)")
    p.add_argument("--out", "-o", metavar="DIR", default=None,
                   help="folder to write into (default: report/ beside RESULTS.json)")
    p.add_argument("--csv", action="store_true", help="also write DIR/results.csv, one row per case")

    c = sub.add_parser(
        "compare", help="compare two results files case by case",
        description="Compare two results files case by case: the ratio of median times and a verdict "
                    "(faster / slower / same / unclear) that accounts for the noise recorded in both. "
                    "Prints a Markdown table, which says which verdicts fail the gate. Exit status 1 when a "
                    "case's verdict is one --fail-on names (default: slower, beyond the threshold with "
                    "confidence), 0 otherwise; 2 on bad input.",
        epilog="Verdict: same when the medians differ by at most the threshold; unclear when a host-timed "
               "case ran on a busy machine, or the change is within the spread between runs of its kind (a "
               "device-timed case on a busy GPU: that spread widened by its median over its fastest sample); "
               "slower or faster when it is beyond both, beyond K times the uncertainty of the two medians "
               "and the rank test over the samples tells the runs apart; unclear otherwise (also with too "
               "few samples). "
               "docs/reports.md, \"Comparing two runs\".")
    c.add_argument("base", metavar="BASE.json", help="the reference run")
    c.add_argument("new", metavar="NEW.json", help="the run to judge")
    compare_mod.add_verdict_options(c)
    compare_mod.add_gate_option(c)
    c.add_argument("--out", "-o", metavar="FILE", default=None,
                   help="write the Markdown table to FILE instead of standard output")

    s = sub.add_parser(
        "csv", help="write one CSV row per case with every field the JSON holds",
        description="Write one CSV row per case with every field its JSON entry holds "
                    "(repetitions folded, aggregates left out).")
    s.add_argument("results", metavar="RESULTS.json", help="a results file written by `layerbench run`")
    s.add_argument("--out", "-o", metavar="FILE", default=None, help="write to FILE (default: standard output)")

    for module in COMMAND_MODULES:
        module.add_parser(sub)
    return top


def _write_or_print(path: str | None, text: str, written: str) -> None:
    """Writes `text` to `path` and prints the one-line `written`; without a path, or with "-",
    prints `text`."""
    if path and path != output.STANDARD_OUTPUT:
        _write_text(path, text)
        print(written)
    else:
        sys.stdout.write(text)


def _write_text(path: str, text: str) -> None:
    try:
        output.write_output(path, text)
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder, not a file") from None
    except OSError as e:
        raise UsageError(f"{path}: cannot write it ({e.strerror or e})") from None


def run_report(args) -> int:
    if args.db is not None or args.since is not None:
        return _report_from_db(args)
    if args.results is None:
        raise UsageError("RESULTS.json, or --db URL, is needed (see layerbench report --help)")
    data = results.load(args.results)
    out = Path(args.out) if args.out else Path(args.results).resolve().parent / "report"
    try:
        from . import report  # matplotlib is imported only when a report is made
    except ImportError as e:
        raise UsageError(f"{e.name or 'matplotlib'} is not installed for {sys.executable}; "
                         f"pip install 'layerbench[reports]', or in a checkout scripts/install-report-deps.sh "
                         f"(docs/reports.md)") from None

    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: exists and is not a folder")
    try:
        written = report.write(data, out, csv=args.csv)
    except OSError as e:
        raise UsageError(f"{e.filename or out}: cannot write it ({e.strerror or e})") from None
    plots = sum(1 for p in written if p.suffix == ".png")
    print(f"{PROG} report: wrote {out / 'report.md'}, {out / 'report.html'} and {plots} plots "
          f"(PNG and SVG) in {out / 'plots'}" + (f"; {out / 'results.csv'}" if args.csv else ""))
    bad = data.not_ok
    if bad:
        print(f"{PROG} report: {len(bad)} of {len(data.cases)} cases failed or were skipped; "
              f"the report lists them")
    return 0


def _report_from_db(args) -> int:
    """`report --db URL [--since DATE]`: the trend plots of python/layerbench/db/'s write_trend."""
    if args.db is None:
        raise UsageError("--since needs --db URL (the results database)")
    if args.results is not None:
        raise UsageError(f"{args.results}: give a results file or --db, not both")
    if args.csv:
        raise UsageError("--csv is for a results file, not --db")
    out = Path(args.out) if args.out else Path("report")
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: exists and is not a folder")
    written = db.write_trend(args.db, args.since, out)
    plots = sum(1 for p in written if p.suffix == ".png")
    print(f"{PROG} report: wrote {out / 'trend.md'} and {plots} trend plots (PNG and SVG) in {out / 'plots'}")
    return 0


def run_compare(args) -> int:
    _not_over_input(args.out, args.base, args.new)
    base, new = results.load(args.base), results.load(args.new)
    note = compare_mod.threshold_note(args.threshold)
    if note:
        print(f"{PROG} compare: {note}", file=sys.stderr)
    comparison = compare_mod.compare(base, new, threshold=args.threshold, k=args.noise_k, fail_on=args.fail_on)
    text = compare_mod.to_markdown(comparison)
    _write_or_print(args.out, text, f"{PROG} compare: {compare_mod.summary(comparison)}; table in {args.out}")
    if comparison.busy:
        print(f"{PROG} compare: {len(comparison.busy)} case(s) ran on a busy machine: host-timed ones are unclear, "
              f"device-timed ones held to a wider spread (the table says why)", file=sys.stderr)
    failed = compare_mod.gate_lines({v: comparison.count(v) for v in args.fail_on}, args.fail_on, args.threshold)
    for line in failed:
        print(f"{PROG} compare: {line}", file=sys.stderr)
    return 1 if failed else 0


def run_csv(args) -> int:
    _not_over_input(args.out, args.results)
    data = results.load(args.results)
    text = csvout.text(data)
    _write_or_print(args.out, text, f"{PROG} csv: wrote {len(data.cases)} rows to {args.out}")
    return 0


def _not_over_input(out: str | None, *inputs: str) -> None:
    """Refuses an output file that is one of the results files being read: writing the table or
    the CSV there would destroy the results."""
    if not out:
        return
    for path in inputs:
        same = Path(out).resolve() == Path(path).resolve()
        if not same and Path(out).exists() and Path(path).exists():
            same = os.path.samefile(out, path)
        if same:
            which = "the results file" if out == path else f"the same file as {path}, a results file"
            raise UsageError(f"{out}: is {which} being read; writing there would destroy it (pick another --out)")


def main(argv: list[str] | None = None) -> int:
    top = parser()
    args, extra = top.parse_known_args(argv)
    if extra:  # e.g. `compare a.json b.json --verbose`: the command's error, not the top level's
        top.commands[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    sub = {"report": run_report, "compare": run_compare, "csv": run_csv}.get(args.command) or args.run
    try:
        return sub(args)
    except (results.ResultsError, UsageError) as e:
        print(f"{PROG} {args.command}: error: {results.one_line(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG} {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `layerbench csv x.json | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
