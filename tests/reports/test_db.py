"""`layerbench db` (python/layerbench/db/) on SQLite and on a real PostgreSQL server started for the tests:
add, list with filters, compare against a baseline (a planted 20% slowdown fails it, an unchanged
run passes), the same run added twice, an add that fails part-way, the schema's version and
migrations, bad input (not a database, no server, a newer schema, unknown selectors) and the
trend plots.

The PostgreSQL server: `initdb` into a temporary folder and `pg_ctl start` on a free port of
127.0.0.1 with its socket in that folder (as the `postgres` user when the tests run as root, since
PostgreSQL refuses to run as root); stopped (`-m immediate`) and removed at the end. Its tests skip,
saying why, only when the PostgreSQL binaries or psycopg are missing."""
from __future__ import annotations

import copy
import itertools
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import H100_16, H200_RUN1, load_json, run_cli, write_json
from layerbench import db
from layerbench.db import ingest, store

UUID_A = "GPU-0a0a0a0a-1111-2222-3333-444444444444"
UUID_B = "GPU-0b0b0b0b-5555-6666-7777-888888888888"
PG_BIN_DIRS = [os.environ.get("LAYERBENCH_PG_BIN", ""), "/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin",
               "/usr/lib/postgresql/15/bin"]
STEP_TIMEOUT_S = 90


# --- inputs --------------------------------------------------------------------------------------

def make_run(path: Path, date: str, commit: str, uuid: str | None = UUID_A, slower: float = 1.0,
             name: str = "NVIDIA H100 80GB HBM3", host: str = "node1", workloads: tuple[str, ...] = ()) -> Path:
    """The H100 fixture (schema 2) as a run of `date` at `commit` on the device `uuid` (None: a file
    from before device.uuid was recorded); vector_add/runtime's medians times `slower`; only the
    cases of `workloads` where it names some."""
    data = load_json(H100_16)
    if workloads:
        data["benchmarks"] = [b for b in data["benchmarks"] if b.get("workload") in workloads]
    ctx = data["context"]
    ctx["date"], ctx["host_name"] = date, host
    ctx["layerbench"]["source_commit"] = commit
    ctx["device"]["name"] = name
    if uuid:
        ctx["device"]["uuid"] = uuid
    for entry in data["benchmarks"]:
        if entry.get("workload") == "vector_add" and entry.get("layer") == "runtime" and slower != 1.0:
            for field in ("median_ms", "mean_ms", "min_ms", "max_ms", "real_time", "cpu_time"):
                if isinstance(entry.get(field), (int, float)):
                    entry[field] *= slower
            if isinstance(entry.get("gbps"), (int, float)):
                entry["gbps"] /= slower
    return write_json(path, data)


def make_merged(path: Path, parts: list[Path]) -> Path:
    """A merged file as `layerbench merge` writes it: context.merged.runs, each case naming its run."""
    runs, benchmarks = [], []
    for i, part in enumerate(parts):
        data = load_json(part)
        run = f"r{i + 1}"
        runs.append({"run": run, "file": str(part), "context": data["context"]})
        for entry in data["benchmarks"]:
            benchmarks.append({**entry, "run": run})
    first = load_json(parts[0])["context"]
    context = {"layerbench": copy.deepcopy(first["layerbench"]), "date": first["date"], "merged": {"runs": runs}}
    return write_json(path, {"context": context, "benchmarks": benchmarks})


@pytest.fixture
def runs(tmp_path: Path) -> dict[str, Path]:
    """A day-older run, two runs of the next day (the second unchanged), and one with vector_add's
    runtime cases 20% slower."""
    return {
        "old": make_run(tmp_path / "old.json", "2026-11-21T09:00:00+0000", "1111aaa"),
        "base": make_run(tmp_path / "base.json", "2026-11-22T09:00:00+0000", "2222bbb"),
        "same": make_run(tmp_path / "same.json", "2026-11-22T11:00:00+0000", "3333ccc"),
        "slow": make_run(tmp_path / "slow.json", "2026-11-22T13:00:00+0000", "4444ddd", slower=1.2),
    }


# --- the engines ---------------------------------------------------------------------------------

def _pg_bin() -> Path | None:
    for d in PG_BIN_DIRS:
        if d and (Path(d) / "initdb").is_file() and (Path(d) / "pg_ctl").is_file():
            return Path(d)
    found = shutil.which("pg_ctl")
    return Path(found).parent if found and (Path(found).parent / "initdb").is_file() else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgServer:
    def __init__(self, port: int, sockets: Path, setup_s: float):
        self.port, self.sockets, self.setup_s = port, sockets, setup_s
        self._names = itertools.count(1)

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        import psycopg

        name = f"lb_{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url("postgres"), autocommit=True, connect_timeout=10) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)


def _needs_psycopg() -> None:
    """Skips the calling test, saying why, when psycopg (which every PostgreSQL test needs, to reach
    a server or to find none there) is not installed for the interpreter the tests and the CLI run."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip(f"psycopg is not installed for {sys.executable} (pip install -r {db.REQUIREMENTS})")


@pytest.fixture(scope="session")
def pg_server():
    """A PostgreSQL server of its own, on 127.0.0.1 and a socket in its temporary folder."""
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL's initdb and pg_ctl are not installed (Debian: apt-get install postgresql; "
                    "or set LAYERBENCH_PG_BIN)")
    _needs_psycopg()
    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="layerbench-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb and postgres refuse to run as root
        import pwd

        try:
            pg = pwd.getpwnam("postgres")
        except KeyError:
            shutil.rmtree(root, ignore_errors=True)
            pytest.skip("running as root and there is no 'postgres' user to run the server as")
        os.chown(root, pg.pw_uid, pg.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data, log, port = root / "data", root / "server.log", _free_port()

    def step(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*as_user, *args], capture_output=True, text=True, timeout=STEP_TIMEOUT_S)

    def fail(what: str, result: subprocess.CompletedProcess | None) -> None:
        tail = (result.stdout + result.stderr)[-1500:] if result else ""
        if log.exists():
            tail += log.read_text(errors="replace")[-1500:]
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"PostgreSQL test server: {what} failed: {tail}")

    result = step(str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--no-sync", "--no-instructions")
    if result.returncode != 0:
        fail("initdb", result)
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off"
    result = step(str(bindir / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "-t", "60", "-o", options, "start")
    if result.returncode != 0:
        fail("pg_ctl start", result)
    server = PgServer(port, root, time.monotonic() - started)
    print(f"\nPostgreSQL test server up in {server.setup_s:.1f} s (port {port})")
    try:
        yield server
    finally:
        try:
            step(str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-t", "30", "stop")
        finally:
            shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request) -> str:
    return request.param


@pytest.fixture
def db_url(engine: str, tmp_path: Path, request) -> str:
    """A new, empty database of the engine: a SQLite file path (not created yet) or a PostgreSQL URL."""
    if engine == "sqlite":
        return str(tmp_path / "results" / "layerbench.db")
    return request.getfixturevalue("pg_server").new_database()


def lb_db(*args) -> subprocess.CompletedProcess:
    return run_cli("db", *args)


def run_lines(result: subprocess.CompletedProcess) -> list[str]:
    """`db list`'s lines without its header."""
    return result.stdout.splitlines()[1:]


def one_line_error(result: subprocess.CompletedProcess, code: int = 2) -> str:
    assert result.returncode == code, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


# --- add, list, compare --------------------------------------------------------------------------

def test_add_list_and_compare(db_url: str, runs: dict[str, Path]):
    added = lb_db("add", "--db", db_url, runs["old"], runs["base"], runs["same"])
    assert added.returncode == 0, added.stderr
    assert added.stdout.count("142 cases") == 3

    listed = lb_db("list", "--db", db_url)
    assert listed.returncode == 0, listed.stderr
    lines = run_lines(listed)
    assert len(lines) == 3
    assert lines[0].split()[1:3] == ["2026-11-21", "09:00"] and "1111aaa" in lines[0] and lines[0].endswith("142")
    assert all("NVIDIA H100 80GB HBM3" in line and "node1" in line for line in lines)

    def count(*filters) -> int:
        result = lb_db("list", "--db", db_url, *filters)
        assert result.returncode == 0, result.stderr
        return len(run_lines(result))

    assert count("--since", "2026-11-22") == 2
    assert count("--until", "2026-11-21") == 1
    assert count("--since", "2026-11-22", "--until", "2026-11-22") == 2
    assert count("--gpu", "h100") == 3 and count("--gpu", "0b0b0b0b") == 0 and count("--gpu", "GPU-0a0a") == 3
    by_layer = lb_db("list", "--db", db_url, "--layer", "runtime", "--workload", "vector_add")
    assert [line.split()[-1] for line in run_lines(by_layer)] == ["2", "2", "2"]  # 2^20 and 2^28 per run
    cases = lb_db("list", "--db", db_url, "--layer", "runtime", "--workload", "vector_add", "--cases",
                  "--since", "2026-11-22")
    assert len(run_lines(cases)) == 4
    assert all("vector_add/runtime/" in line and " ok " in line and "GB/s" in line for line in run_lines(cases))

    # an unchanged run against the one before: nothing slower
    same = lb_db("compare", "--db", db_url, "--baseline", "latest~1")
    assert same.returncode == 0, same.stdout + same.stderr
    assert "0 slower" in same.stdout and "## NVIDIA H100 80GB HBM3" in same.stdout

    # a 20% slowdown of one layer on one workload: found with confidence, exit 1
    assert lb_db("add", "--db", db_url, runs["slow"]).returncode == 0
    slow = lb_db("compare", "--db", db_url, "--baseline", "latest~1")
    assert slow.returncode == 1, slow.stdout + slow.stderr
    # The fixture holds no samples (a file before samples_ms): its ranges decide. At 2^28 they do
    # not overlap; at 2^20 an outlier 1.42x the median makes them overlap, so that case is unclear.
    assert "1 slower" in slow.stdout
    slower_rows = [line for line in slow.stdout.splitlines() if "**slower**" in line]
    assert len(slower_rows) == 1 and "`vector_add/runtime/268435456`" in slower_rows[0] and "+20.0%" in slower_rows[0]
    unclear = [line for line in slow.stdout.splitlines() if "`vector_add/runtime/1048576`" in line]
    assert len(unclear) == 1 and "unclear" in unclear[0] and "ranges overlap" in unclear[0]
    assert "slower beyond 5%" in slow.stderr
    # the other selectors: a date (that day's newest run), a commit prefix, run ids
    assert lb_db("compare", "--db", db_url, "--baseline", "2026-11-21").returncode == 1
    assert lb_db("compare", "--db", db_url, "--baseline", "2222b", "--new", "3333ccc").returncode == 0
    assert lb_db("compare", "--db", db_url, "--baseline", "run:1", "--new", "run:2").returncode == 0
    assert lb_db("compare", "--db", db_url, "--baseline", "latest~1", "--threshold", "25").returncode == 0


def four_runs_that_differ(tmp_path: Path) -> list[Path]:
    """Four runs whose vector_add/runtime medians are x1.0, x1.3, x0.9 and x1.08 of one another."""
    return [make_run(tmp_path / f"r{i}.json", f"2026-11-2{i}T09:00:00+0000", f"{i}{i}{i}{i}aaa", slower=f,
                     workloads=("vector_add",))
            for i, f in ((1, 1.0), (2, 1.3), (3, 0.9), (4, 1.08))]


def test_compare_holds_a_case_to_the_spread_of_the_devices_earlier_runs(db_url: str, tmp_path: Path):
    """Three earlier runs whose vector_add/runtime medians differ by 44% (x1.0, x1.3, x0.9): a NEW
    run 20% slower than the last is within that spread, unclear and saying so; the same NEW against
    the same BASE with fewer than three earlier runs (no history) is slower."""
    made = four_runs_that_differ(tmp_path)
    assert lb_db("add", "--db", db_url, *made).returncode == 0
    result = lb_db("compare", "--db", db_url, "--baseline", "latest~1")
    assert result.returncode == 0, result.stdout + result.stderr
    row = next(line for line in result.stdout.splitlines() if "`vector_add/runtime/268435456`" in line)
    assert "unclear" in row and "runs differ by ±44.4% (3 earlier runs of this device)" in row
    fresh = str(tmp_path / "fresh.db")
    assert lb_db("add", "--db", fresh, made[2], made[3]).returncode == 0
    without = lb_db("compare", "--db", fresh, "--baseline", "latest~1")
    assert without.returncode == 1, without.stdout + without.stderr
    row = next(line for line in without.stdout.splitlines() if "`vector_add/runtime/268435456`" in line)
    assert "**slower**" in row


def test_compare_fails_on_the_verdicts_fail_on_names(tmp_path: Path):
    """The gate of `layerbench compare`: a run within the device's spread is unclear, which passes
    the default gate and fails `--fail-on slower,unclear`; a bad verdict is one line, exit 2; a
    threshold under 1 warns in one line and goes on (SQLite: the gate is the engines' alike)."""
    url = str(tmp_path / "gate.db")
    made = four_runs_that_differ(tmp_path)
    assert lb_db("add", "--db", url, *made).returncode == 0
    passed = lb_db("compare", "--db", url, "--baseline", "latest~1")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "The gate (`--fail-on slower`) fails" in passed.stdout and "it passes" in passed.stdout
    failed = lb_db("compare", "--db", url, "--baseline", "latest~1", "--fail-on", "slower,unclear")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "The gate (`--fail-on slower,unclear`) fails" in failed.stdout and "it fails: " in failed.stdout
    assert "case(s) unclear, which --fail-on unclear fails" in failed.stderr
    assert "the gate (--fail-on slower,unclear) fails on 1 device(s)" in failed.stderr
    assert "is not a verdict" in one_line_error(lb_db("compare", "--db", url, "--baseline", "latest~1",
                                                      "--fail-on", "slower,worse"))
    warned = lb_db("compare", "--db", url, "--baseline", "latest~1", "--threshold", "0.5")
    assert "layerbench db compare: warning: --threshold 0.5 is 0.5%; for 50% give 50" in warned.stderr.splitlines()


def test_same_file_twice_is_refused_others_go_on(db_url: str, runs: dict[str, Path]):
    assert lb_db("add", "--db", db_url, runs["old"]).returncode == 0
    again = lb_db("add", "--db", db_url, runs["old"], runs["base"])
    assert again.returncode == 2
    refused = [line for line in again.stderr.splitlines() if "(refused; the other files go on)" in line]
    assert len(refused) == 1 and "old.json" in refused[0] and "already in the database as run 1" in refused[0]
    assert "base.json: run 2" in again.stdout
    assert len(run_lines(lb_db("list", "--db", db_url))) == 2


def test_add_failing_part_way_loses_nothing(db_url: str, runs: dict[str, Path], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch):
    bad = tmp_path / "bad.json"
    text = runs["base"].read_text()
    bad.write_text(text[: len(text) // 2])  # truncated
    result = lb_db("add", "--db", db_url, runs["old"], bad, runs["same"])
    assert result.returncode == 2
    assert "bad.json: truncated JSON" in result.stderr and "1 of 3 file(s) refused" in result.stderr
    assert [line.split()[-2] for line in run_lines(lb_db("list", "--db", db_url))] == ["1111aaa", "3333ccc"]

    # a merged file of two runs, the database failing while the second run's cases go in: no half file
    merged = make_merged(tmp_path / "merged.json", [runs["base"], runs["slow"]])
    calls = []
    real = ingest._insert_cases

    def failing(database, run_id, data):
        calls.append(run_id)
        if len(calls) == 2:
            raise RuntimeError("the disk filled up")
        return real(database, run_id, data)

    monkeypatch.setattr(ingest, "_insert_cases", failing)
    database = db.open_db(db_url)
    try:
        with pytest.raises(RuntimeError):
            db.add_file(database, merged)
        assert database.rows("SELECT COUNT(*) FROM runs")[0][0] == 2
        assert database.rows("SELECT COUNT(*) FROM cases")[0][0] == 2 * 142
        monkeypatch.setattr(ingest, "_insert_cases", real)
        added = db.add_file(database, merged)  # and it adds whole once the failure is gone
        assert [(run.merged_run, cases) for _id, run, cases in added] == [("r1", 142), ("r2", 142)]
    finally:
        database.close()
    assert len(run_lines(lb_db("list", "--db", db_url))) == 4


def test_merged_file_run_by_run_and_devices(db_url: str, tmp_path: Path):
    """A merged file of two GPUs and a CPU-only run; an older file without device.uuid is keyed by
    its PCI bus id and host."""
    a1 = make_run(tmp_path / "a1.json", "2026-11-21T09:00:00+0000", "1111aaa")
    b1 = make_run(tmp_path / "b1.json", "2026-11-21T09:05:00+0000", "1111aaa", uuid=UUID_B, name="NVIDIA H200")
    a2 = make_run(tmp_path / "a2.json", "2026-11-22T09:00:00+0000", "2222bbb")
    b2 = make_run(tmp_path / "b2.json", "2026-11-22T09:05:00+0000", "2222bbb", uuid=UUID_B, name="NVIDIA H200",
                  slower=1.2)
    old = make_run(tmp_path / "nouuid.json", "2026-11-20T09:00:00+0000", "0000fff", uuid=None, host="node9")
    cpu = load_json(Path(H100_16).parent / "cpu_only_no_driver.json")
    cpu["context"]["layerbench"]["source_commit"] = "2222bbb"
    cpu = write_json(tmp_path / "cpu.json", cpu)
    result = lb_db("add", "--db", db_url, make_merged(tmp_path / "m1.json", [a1, b1]),
                   make_merged(tmp_path / "m2.json", [a2, b2]), old, cpu)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("m1.json: run") == 2

    database = db.open_db(db_url, create=False)
    try:
        keys = dict(database.rows("SELECT source_file, device_uuid FROM runs WHERE merged_run = ''"))
        assert keys[str(old.resolve())].startswith("pci:") and keys[str(old.resolve())].endswith("@node9")
        assert keys[str(cpu.resolve())] == "cpu"
        assert sorted(r[0] for r in database.rows("SELECT merged_run FROM runs WHERE merged_run <> ''")) == [
            "r1", "r1", "r2", "r2"]
    finally:
        database.close()
    assert len(run_lines(lb_db("list", "--db", db_url, "--gpu", "H200"))) == 2
    compared = lb_db("compare", "--db", db_url, "--baseline", "1111aaa", "--new", "2222bbb")
    assert compared.returncode == 1, compared.stdout + compared.stderr
    headings = [line for line in compared.stdout.splitlines() if line.startswith("## ")]
    assert any(UUID_A in h for h in headings) and any(UUID_B in h for h in headings)
    assert "Not compared: no run matches" in compared.stdout  # the CPU-only host, the file without a UUID
    only_a = lb_db("compare", "--db", db_url, "--baseline", "1111aaa", "--new", "2222bbb", "--gpu", "H100")
    assert only_a.returncode == 0, only_a.stdout + only_a.stderr


# --- the schema ----------------------------------------------------------------------------------

def _set_version(db_url: str, version: str) -> None:
    database = db.open_db(db_url)
    try:
        with database.transaction():
            database.execute("UPDATE meta SET value = ? WHERE key = ?", (version, "schema_version"))
    finally:
        database.close()


def test_schema_is_versioned_and_a_newer_one_refused(db_url: str, runs: dict[str, Path]):
    assert lb_db("add", "--db", db_url, runs["old"]).returncode == 0
    database = db.open_db(db_url)
    try:
        assert database.rows("SELECT value FROM meta WHERE key = ?", ("schema_version",)) == [("1",)]
        assert {"meta", "runs", "cases"} <= database.tables()
    finally:
        database.close()
    _set_version(db_url, "99")
    for args in (["list"], ["add", runs["base"]], ["compare", "--baseline", "latest~1"]):
        line = one_line_error(lb_db(*args, "--db", db_url))
        assert "schema version 99 is newer than this layerbench knows (1)" in line
    _set_version_back(db_url)  # and the data is all still there
    assert len(run_lines(lb_db("list", "--db", db_url))) == 1


def _set_version_back(db_url: str) -> None:
    if db.is_postgresql(db_url):
        import psycopg

        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    else:
        with sqlite3.connect(db_url) as conn:
            conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
        conn.close()


def test_migrations_apply_in_order(db_url: str, runs: dict[str, Path], monkeypatch: pytest.MonkeyPatch):
    """A version-1 database meets code of version 2: migration 2 runs once, in a transaction, and the
    runs stay."""
    assert lb_db("add", "--db", db_url, runs["old"]).returncode == 0
    applied = []

    def to_2(database):
        applied.append(2)
        database.execute("ALTER TABLE runs ADD COLUMN note TEXT")

    monkeypatch.setattr(store, "SCHEMA_VERSION", 2)
    monkeypatch.setitem(store._MIGRATIONS, 2, to_2)
    for _ in range(2):
        database = db.open_db(db_url)
        try:
            assert database.rows("SELECT value FROM meta WHERE key = ?", ("schema_version",)) == [("2",)]
            assert database.rows("SELECT COUNT(*), COUNT(note) FROM runs") == [(1, 0)]
        finally:
            database.close()
    assert applied == [2]


# --- bad input -----------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["list", "add", "compare", "trend"])
def test_not_a_database_is_refused_and_left_alone(tmp_path: Path, command: str, runs: dict[str, Path]):
    text = tmp_path / "notes.txt"
    text.write_text("these are my notes, not a database\n" * 20)
    before = text.read_bytes()
    extra = {"list": [], "add": [runs["old"]], "compare": ["--baseline", "latest~1"],
             "trend": ["-o", tmp_path / "trend"]}[command]
    line = one_line_error(lb_db(command, "--db", text, *extra))
    assert "notes.txt: not a database" in line
    assert text.read_bytes() == before


def test_another_programs_sqlite_file_is_left_alone(tmp_path: Path, runs: dict[str, Path]):
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE songs (title TEXT)")
    conn.close()
    before = other.read_bytes()
    line = one_line_error(lb_db("add", "--db", other, runs["old"]))
    assert "not layerbench's" in line and "songs" in line
    assert other.read_bytes() == before


def test_reading_a_database_that_does_not_exist(tmp_path: Path):
    missing = tmp_path / "nothing.db"
    assert "no such database" in one_line_error(lb_db("list", "--db", missing))
    assert not missing.exists()


def test_unreachable_server_is_one_line():
    _needs_psycopg()  # without it the CLI says "PostgreSQL needs psycopg" before it tries to connect
    url = f"postgresql://postgres:secret@127.0.0.1:{_free_port()}/layerbench"
    for args in (["list"], ["compare", "--baseline", "latest~1"]):
        line = one_line_error(lb_db(*args, "--db", url))
        assert "cannot connect to the PostgreSQL server" in line and "127.0.0.1" in line
        assert "secret" not in line


def test_bad_results_files_and_selectors(db_url: str, runs: dict[str, Path], tmp_path: Path):
    result = lb_db("add", "--db", db_url, H200_RUN1)
    assert "results schema version 1; the database takes version 2" in result.stderr and result.returncode == 2
    other = write_json(tmp_path / "package.json", {"name": "left-pad"})
    result = lb_db("add", "--db", db_url, other)
    assert "not a layerbench results file" in result.stderr and result.returncode == 2
    assert lb_db("add", "--db", db_url, runs["old"], runs["base"]).returncode == 0
    for selector, words in (("yesterday", "unknown selector 'yesterday'"), ("latest~x", "unknown selector"),
                            ("2026-13-45", "unknown selector"), ("latest~5", "no run in the database matches"),
                            ("2025-01-01", "no run in the database matches"), ("feedface", "no run in the database")):
        line = one_line_error(lb_db("compare", "--db", db_url, "--baseline", selector))
        assert words in line, line
    assert "not a date" in one_line_error(lb_db("list", "--db", db_url, "--since", "last week"))


# --- trend ---------------------------------------------------------------------------------------

def test_trend_writes_plots(db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import matplotlib.image

    from layerbench.reports import figure

    clipped = {}
    real_save = figure.save

    def save(*args, **kw):
        plot = real_save(*args, **kw)
        clipped[plot.name] = plot.clipped
        return plot

    monkeypatch.setattr(figure, "save", save)

    files = []
    for day in (20, 21, 22, 23):
        files.append(make_run(tmp_path / f"a{day}.json", f"2026-11-{day}T09:00:00+0000", f"{day}00aaa",
                              slower=1.0 + 0.1 * (day == 23)))
        files.append(make_run(tmp_path / f"b{day}.json", f"2026-11-{day}T10:00:00+0000", f"{day}00aaa",
                              uuid=UUID_B, name="NVIDIA H200"))
    assert lb_db("add", "--db", db_url, *files).returncode == 0
    out = tmp_path / "trend"
    written = db.write_trend(db_url, "2026-11-21", out)
    pngs = [p for p in written if p.suffix == ".png"]
    svgs = [p for p in written if p.suffix == ".svg"]
    assert {p.stem for p in pngs} == {f"trend-{w}" for w in
                                      ("vector_add", "saxpy", "reduce", "matmul", "launch_async", "launch_sync")}
    assert len(svgs) == len(pngs) and out / "trend.md" in written
    for png in pngs:
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        height, width = matplotlib.image.imread(png).shape[:2]
        assert width <= 1400 and height <= 900
    for svg in svgs:
        assert svg.read_text().lstrip().startswith("<?xml") and "<svg" in svg.read_text()
    assert clipped and all(not texts for texts in clipped.values()), clipped  # no text cut off by an edge
    md = (out / "trend.md").read_text()
    assert all(f"(plots/{p.name})" in md for p in pngs)
    assert "6 runs on 2 devices" in md  # since the 21st: 3 days × 2 GPUs
    assert "2026-11-20" not in md

    # The command writes what write_trend writes (above, every workload); two days of matmul alone show
    # it, where drawing the six plots again took half this test's minute on the H100.
    small = tmp_path / "matmul.db"
    days = [make_run(tmp_path / f"m{day}.json", f"2026-11-{day}T09:00:00+0000", f"{day}00aaa", workloads=("matmul",))
            for day in (20, 21)]
    assert lb_db("add", "--db", small, *days).returncode == 0
    cli = lb_db("trend", "--db", small, "--since", "2026-11-20", "-o", tmp_path / "trend2")
    assert cli.returncode == 0, cli.stderr
    assert "1 plot(s)" in cli.stdout and (tmp_path / "trend2" / "plots" / "trend-matmul.svg").exists()


def test_report_with_db_draws_the_trend(tmp_path: Path, runs: dict[str, Path]):
    """`layerbench report --db URL --since DATE`: the trend plots, as `db trend` writes them."""
    db_path = tmp_path / "results.db"
    assert lb_db("add", "--db", db_path, *runs.values()).returncode == 0
    done = run_cli("report", "--db", db_path, "--since", "2020-01-01", "-o", tmp_path / "report")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "report" / "trend.md").exists() and (tmp_path / "report" / "plots" / "trend-matmul.png").exists()
    assert "trend plots" in done.stdout
    assert "--since needs --db" in one_line_error(run_cli("report", "--since", "2020-01-01"))
    assert "not both" in one_line_error(run_cli("report", runs["old"], "--db", db_path))
