"""`layerbench db` on the command line: add, list, compare, trend."""
from __future__ import annotations

import argparse
import re
import sys
from datetime import date as Date, datetime, timedelta
from pathlib import Path

from ..reports import compare as compare_mod
from ..reports import fmt, results
from .store import DEFAULT_DB, Database, PROG, _first_line, engine_errors, open_db, shown_url
from .ingest import add_results, normal_date
from .queries import Filters, SELECTOR_HELP, list_cases, list_runs, parse_selector
from .compare import compare_db, compare_markdown
from .trend import write_trend


# --- the command line ------------------------------------------------------------------------

def _day(text: str) -> str:
    """A --since/--until date: YYYY-MM-DD or an ISO time; kept as given, checked."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text.strip()):
        try:
            Date.fromisoformat(text.strip())
            return text.strip()
        except ValueError:
            pass
    elif normal_date(text) is not None:
        return text.strip()
    raise argparse.ArgumentTypeError(f"'{text}' is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS)")


def _bound(text: str | None, end: bool) -> str | None:
    """A --since (start of its day) or --until (end of its day, exclusive) as a stored date."""
    if not text:
        return None
    if len(text) == 10:
        day = Date.fromisoformat(text) + timedelta(days=1 if end else 0)
        return day.isoformat() + "T00:00:00Z"
    when = normal_date(text)
    if when is None:  # never: _day, the options' type, takes a time only where normal_date reads it
        raise ValueError(f"'{text}' is not a date")
    if end:  # an exact time: that second included
        when = (datetime.strptime(when, "%Y-%m-%dT%H:%M:%SZ") + timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return when


def add_parser(sub) -> None:
    p = sub.add_parser(
        "db", help="a results database with history: add, list, compare, trend",
        description="A database of results with their history (docs/history.md): SQLite in a file "
                    f"(default {DEFAULT_DB}) or PostgreSQL (--db postgresql://...).",
        epilog="Exit status: 0 done; 1 compare found a slower case (or one of another verdict its --fail-on "
               "names); 2 bad input.")
    dsub = p.add_subparsers(dest="db_command", metavar="{add,list,compare,trend}")
    dsub.required = True

    def with_db(q):
        q.add_argument("--db", metavar="URL", default=DEFAULT_DB,
                       help=f"a SQLite file or a postgresql:// URL (default: {DEFAULT_DB})")
        return q

    a = with_db(dsub.add_parser("add", help="store results files' cases",
                                description="Store every case of each results file (schema version 2), one "
                                            "transaction per file; a merged file run by run. A run already "
                                            "in the database is refused; the other files go on (exit 2 at the end)."))
    a.add_argument("files", metavar="RESULTS.json", nargs="+")
    a.set_defaults(run=run_add)

    ls = with_db(dsub.add_parser("list", help="list the runs (or cases)",
                                 description="One line per run (date, host, GPU, commit, cases), oldest first; "
                                             "with --cases one line per case."))
    ls.add_argument("--gpu", metavar="NAME", help="runs on a GPU whose name (or UUID) holds NAME")
    ls.add_argument("--layer", metavar="L", help="cases of layer L only")
    ls.add_argument("--workload", metavar="W", help="cases of workload W only")
    ls.add_argument("--since", metavar="DATE", type=_day, help="runs on or after DATE (YYYY-MM-DD, UTC)")
    ls.add_argument("--until", metavar="DATE", type=_day, help="runs on or before DATE (YYYY-MM-DD, UTC)")
    ls.add_argument("--cases", action="store_true", help="one line per case")
    ls.set_defaults(run=run_list)

    c = with_db(dsub.add_parser(
        "compare", help="per device, the newest run against a baseline",
        description="Per device, the newest run (or --new) against the --baseline run, case by case, with "
                    "`layerbench compare`'s verdicts, each case held to the spread of the device's earlier runs where three or more hold it; a Markdown table. Exit status 1 when a "
                    "case's verdict on any device is one --fail-on names (default: slower, beyond the threshold "
                    "with confidence); 2 on bad input.",
        epilog=f"Selectors: {SELECTOR_HELP}. latest~1 is the run before the newest on each device; a date "
               "or a commit picks that device's newest run of that day or commit; run:ID the run "
               "`db list` numbers ID."))
    c.add_argument("--baseline", "-b", metavar="SELECTOR", required=True, help="the reference run")
    c.add_argument("--new", "-n", metavar="SELECTOR", default="latest", help="the run to judge (default: latest)")
    c.add_argument("--gpu", metavar="NAME", help="only devices whose GPU name (or UUID) holds NAME")
    compare_mod.add_verdict_options(c)
    compare_mod.add_gate_option(c)
    c.set_defaults(run=run_compare)

    t = with_db(dsub.add_parser(
        "trend", help="plots of each case's figure over time",
        description="For each workload a plot (PNG and SVG) of each case's GB/s or GFLOP/s (median ms for "
                    "the others) over time, one panel per size, one line per (device, layer); and "
                    "DIR/trend.md listing them."))
    t.add_argument("--since", metavar="DATE", type=_day, help="runs on or after DATE (default: all)")
    t.add_argument("--out", "-o", metavar="DIR", required=True, help="folder to write into")
    t.set_defaults(run=run_trend)


def _open(url: str, create: bool) -> Database:
    try:
        return open_db(url, create=create)
    except engine_errors() as e:
        raise results.ResultsError(shown_url(url), f"cannot use it as a database ({_first_line(e)})") from None


def run_add(args) -> int:
    # Every file is loaded first, once: when none is a results file, nothing is created or opened,
    # and the error is one line (the first file's, with how many more were refused).
    loaded: list[tuple[str, results.Results | results.ResultsError]] = []
    for path in args.files:
        try:
            loaded.append((path, results.load(path)))
        except results.ResultsError as e:
            loaded.append((path, e))
    unreadable = [item for _, item in loaded if isinstance(item, results.ResultsError)]
    if len(unreadable) == len(loaded):
        first = unreadable[0]
        more = f" (and {len(unreadable) - 1} more file(s) refused)" if len(unreadable) > 1 else ""
        raise results.ResultsError(first.path, first.what + more)
    db = _open(args.db, create=True)
    refused = 0
    try:
        for path, item in loaded:
            try:
                if isinstance(item, results.ResultsError):
                    raise item  # unreadable: refused like a file the database would not take
                added = add_results(db, item)
            except results.ResultsError as e:
                refused += 1
                print(f"{PROG} add: error: {e} (refused; the other files go on)", file=sys.stderr)
                continue
            for run_id, run, cases in added:
                print(f"{PROG} add: {path}: run {run_id} ({run.describe()}): {cases} cases")
    finally:
        db.close()
    if refused:
        print(f"{PROG} add: {refused} of {len(args.files)} file(s) refused; the others were added", file=sys.stderr)
        return 2
    return 0


def _table(header: list[str], rows: list[list[str]], right: set[int]) -> str:
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    lines = []
    for r in [header] + rows:
        lines.append("  ".join(cell.rjust(w) if i in right else cell.ljust(w) for i, (cell, w) in
                               enumerate(zip(r, widths))).rstrip())
    return "\n".join(lines) + "\n"


def _when(date: str) -> str:
    return date[:16].replace("T", " ")


def run_list(args) -> int:
    filters = Filters(gpu=args.gpu, layer=args.layer, workload=args.workload,
                      since=_bound(args.since, False), until=_bound(args.until, True))
    db = _open(args.db, create=False)
    try:
        if args.cases:
            rows = []
            for run_id, date, gpu, name, status, median, rel, samples, figure, gbps, gflops in list_cases(db, filters):
                value = gbps if figure == "gbps" else gflops if figure == "gflops" else None
                unit = {"gbps": "GB/s", "gflops": "GFLOP/s"}.get(figure or "", "")
                rows.append([str(run_id), _when(date), gpu, name, status, fmt.ms(median),
                             fmt.noise(rel if samples and samples >= 2 else None, samples),
                             f"{fmt.rate(value)} {unit}" if value is not None else ""])
            text = _table(["run", "date (UTC)", "GPU", "case", "status", "median ms", "noise", "figure"], rows, {0, 5, 6, 7})
        else:
            rows = [[str(r.id), _when(r.date), r.host, r.gpu_name, r.source_commit or "?", str(r.cases)]
                    for r in list_runs(db, filters)]
            text = _table(["run", "date (UTC)", "host", "GPU", "commit", "cases"], rows, {0, 5})
    except engine_errors() as e:
        raise results.ResultsError(db.label, _first_line(e)) from None
    finally:
        db.close()
    if not rows:
        print(f"{PROG} list: no {'cases' if args.cases else 'runs'} match", file=sys.stderr)
        return 0
    sys.stdout.write(text)
    return 0


def run_compare(args) -> int:
    parse_selector(args.baseline, "--baseline"), parse_selector(args.new, "--new")  # before the database is opened
    note = compare_mod.threshold_note(args.threshold)
    if note:
        print(f"{PROG} compare: {note}", file=sys.stderr)
    db = _open(args.db, create=False)
    try:
        found = compare_db(db, args.baseline, args.new, threshold=args.threshold, k=args.noise_k, gpu=args.gpu,
                           fail_on=args.fail_on)
        label = db.label
    except engine_errors() as e:
        raise results.ResultsError(db.label, _first_line(e)) from None
    finally:
        db.close()
    sys.stdout.write(compare_markdown(found, label, args.baseline, args.new, args.threshold, args.noise_k,
                                      args.fail_on))
    compared = [d.comparison for d in found if d.comparison]
    busy = sum(len(c.busy) for c in compared)
    if busy:
        print(f"{PROG} compare: {busy} case(s) ran on a busy machine: their verdicts are unclear "
              f"(the table says why)", file=sys.stderr)
    counts = {v: sum(c.count(v) for c in compared) for v in args.fail_on}
    failed = compare_mod.gate_lines(counts, args.fail_on, args.threshold)
    devices_failing = sum(1 for c in compared if c.fails())
    for line in failed:
        print(f"{PROG} compare: {line}", file=sys.stderr)
    if failed:
        print(f"{PROG} compare: the gate (--fail-on {','.join(args.fail_on)}) fails on {devices_failing} device(s)",
              file=sys.stderr)
        return 1
    return 0


def run_trend(args) -> int:
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise results.ResultsError(out, "exists and is not a folder")
    try:
        written = write_trend(args.db, args.since, out)
    except engine_errors() as e:
        raise results.ResultsError(shown_url(args.db), _first_line(e)) from None
    except OSError as e:
        raise results.ResultsError(e.filename or out, f"cannot write it ({e.strerror or e})") from None
    plots = sum(1 for p in written if p.suffix == ".png")
    print(f"{PROG} trend: wrote {out / 'trend.md'} and {plots} plot(s) (PNG and SVG) in {out / 'plots'}")
    return 0
