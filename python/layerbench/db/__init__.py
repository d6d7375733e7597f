"""`layerbench db`: a database of results with their history (docs/history.md).

    layerbench db add RESULTS.json...        store every case of each file (one transaction per file)
    layerbench db list [filters] [--cases]   one line per run (or per case)
    layerbench db compare --baseline SEL     per device, the newest run (or --new SEL) against SEL
    layerbench db trend [--since DATE] -o DIR  per workload, each case's figure over time (PNG, SVG)

`--db URL` picks the database: a file path (default results/layerbench.db) is SQLite through the
standard library's sqlite3; a postgresql:// URL is PostgreSQL through psycopg (installed from
python/requirements-db.txt, imported only then). Both engines run the same SQL: `Database` is the
one place that knows their differences (parameter style, the id column, transactions, locks).

A run is keyed by (host, device, date, commit, task): the device is context.device.uuid, or for
files written before the UUID was recorded "pci:<pci_bus_id>@<host>", or "cpu" for a run without a
GPU. A merged file (layerbench.reports.merge) is stored run by run, each run with its own context.

The schema is versioned (meta.schema_version); `store._MIGRATIONS[v]` brings a database from v-1 to v, and
each is applied in order, in one transaction, the first time a database is used. A database of a
newer version than SCHEMA_VERSION is refused. Nothing that is not a layerbench database (a text
file, another program's SQLite file or tables) is ever written to.

Bad input (a results file, the database, a selector) raises results.ResultsError, one line; the
command line prints it and exits 2.
"""
from __future__ import annotations

# The package's parts, in the order they depend on each other: store (the engines, the schema and
# its migrations) <- ingest (adding files) <- queries (reading back, selectors) <- compare, trend
# <- cli (`layerbench db`, add_parser for the reports' command line).
from .store import (DEFAULT_DB, PROG, REQUIREMENTS, SCHEMA_VERSION, Database, ensure_schema, is_postgresql,
                    open_db, schema_version, shown_url)
from .ingest import Refused, add_file, add_results, device_key, normal_date
from .queries import Filters, StoredRun, devices, list_cases, list_runs, load_run, parse_selector, select
from .compare import DeviceComparison, compare_db, compare_markdown
from .trend import write_trend
from .cli import add_parser

__all__ = ["DEFAULT_DB", "PROG", "REQUIREMENTS", "SCHEMA_VERSION", "Database", "ensure_schema", "is_postgresql",
           "open_db", "schema_version", "shown_url", "Refused", "add_file", "add_results", "device_key",
           "normal_date", "Filters", "StoredRun", "devices", "list_cases", "list_runs", "load_run", "parse_selector",
           "select", "DeviceComparison", "compare_db", "compare_markdown", "write_trend", "add_parser"]
