"""The reports tool's writers never destroy what their path points at (python/layerbench/reports/output.py): a
symlink is followed, a FIFO or device is written straight through (a private node made with mknod
in a temporary folder, never /dev itself), "-" is standard output, a full device is one line and
exit 2."""
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from layerbench.reports import output

from conftest import CLI, FIXTURES, cli_env

FIXTURE = FIXTURES / "cpu_only_repetitions.json"


def cli(*args):
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, timeout=120, env=cli_env())


def test_a_symlink_is_followed_and_stays_a_link(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "table.csv"
    link.symlink_to(tmp_path / "elsewhere" / "real.csv")
    output.write_output(link, "first\n")
    output.write_output(link, "second\n")
    assert link.is_symlink()
    assert (tmp_path / "elsewhere" / "real.csv").read_text() == "second\n"
    assert sorted(p.name for p in (tmp_path / "elsewhere").iterdir()) == ["real.csv"]


def test_a_fifo_is_written_straight_through(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    output.write_output(fifo, "through\n")
    reader.join(timeout=30)
    assert got == ["through\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def _devices(tmp_path):
    null, full = tmp_path / "null", tmp_path / "full"
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        os.mknod(full, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    except PermissionError as e:
        pytest.skip(f"mknod is not allowed here: {e}")
    return null, full


def test_csv_to_a_device_keeps_it_and_a_full_one_is_one_line_and_exit_2(tmp_path):
    null, full = _devices(tmp_path)
    ok = cli("csv", FIXTURE, "-o", null)
    assert ok.returncode == 0, ok.stderr
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    bad = cli("csv", FIXTURE, "-o", full)
    assert bad.returncode == 2, bad.stderr
    assert bad.stderr.count("\n") == 1 and str(full) in bad.stderr, bad.stderr
    assert stat.S_ISCHR(os.lstat(full).st_mode)


def test_dash_is_standard_output(tmp_path):
    for args in (("csv", FIXTURE, "-o", "-"), ("compare", FIXTURE, FIXTURE, "-o", "-")):
        r = subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                           env=cli_env())
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip(), args
        assert not (tmp_path / "-").exists()
