"""The verdict a CI gate relies on, held to the quiet pairs (fixtures/quiet/<name>/: two runs of one
build made back to back by scripts/quiet-pair.sh on a machine left alone, its machine.txt stating
the machine and its load). In either order, with the rule's own allowances (no history):

  - the pair itself: `compare` calls at most 1% of its cases faster or slower;
  - NEW made 1.03x slower: no case is slower;
  - NEW made 1.2x or 2x slower: every case where that change, on top of the pair's own move,
    stands beyond its kind's allowance is slower (the samples never leave it unclear); for 2x,
    that is most cases;
  - NEW made 140x slower: every case is slower; on a busy machine, host-timed cases are unclear
    and device-timed ones slower (their measured bound holds).

What the issue asked beyond that, a 1.2x change of every host-timed case called slower, does not
hold: the host's own moves between runs (up to 1.41x in cpu-2core's memory-bound passes) need
allowances that a 1.2x change stays inside (docs/reports.md, "Comparing two runs", rule 3).
compare.with_change injects the change; docs/reports.md tables the same (tools/doc_blocks.py's
`injected` block)."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from conftest import FIXTURES
from layerbench.reports import compare, results
from layerbench.reports.verdict import TIMING_KINDS

QUIET = sorted(p for p in (FIXTURES / "quiet").iterdir() if (p / "a.json.gz").is_file())


def load(path: Path) -> results.Results:
    return results.from_data(path, json.loads(gzip.decompress(path.read_bytes())))


@pytest.fixture(scope="module", params=[(p, order) for p in QUIET for order in ("ab", "ba")],
                ids=lambda v: f"{v[0].name}-{v[1]}")
def pair(request) -> compare.Comparison:
    folder, order = request.param
    base, new = (folder / f"{side}.json.gz" for side in order)
    return compare.compare(load(base), load(new))


def test_every_pair_states_its_machine_and_load():
    assert QUIET, "no quiet pair committed under tests/reports/fixtures/quiet/"
    for folder in QUIET:
        text = (folder / "machine.txt").read_text()
        assert text.startswith("machine: ") and "run a: load average before" in text and "run b: exit 0" in text


def test_the_pair_itself_raises_at_most_one_alarm_in_a_hundred(pair: compare.Comparison):
    alarms = [r for r in pair.rows if r.verdict in (compare.FASTER, compare.SLOWER)]
    assert pair.rows and len(alarms) <= 0.01 * len(pair.rows), [(r.base.name, r.ratio, r.why) for r in alarms]


@pytest.mark.parametrize("factor", [1.2, 2.0])
def test_beyond_the_runs_spread_the_samples_find_the_change(pair: compare.Comparison, factor: float):
    """Where a change on top of the pair's own move stands beyond the case's allowance (by 5%), the
    samples (6 a side at least, the medians' uncertainty, the rank test) never leave it unclear.
    Every device-timed case is such a case; a CPU case on this machine only where the pair moved
    little: 2x of one whose runs moved by 1.3x is within the ±70% its kind allows."""
    beyond = [(row, d) for row, d in compare.with_change(pair, factor)
              if factor * row.ratio > 1.05 * (1 + TIMING_KINDS[row.timing].allowance_for(row.base.median_ms))]
    missed = [(row.base.name, row.timing, round(row.ratio, 3), d.why) for row, d in beyond if d.verdict != compare.SLOWER]
    assert not missed, missed
    if factor == 2.0:
        assert len(beyond) >= len(pair.rows) / 2, "a doubling stands beyond the spread in most cases"


def test_a_140x_slow_down_is_slower_in_every_case(pair: compare.Comparison):
    missed = [(row.base.name, d.why) for row, d in compare.with_change(pair, 140.0) if d.verdict != compare.SLOWER]
    assert not missed, missed


def test_a_three_percent_change_is_never_slower(pair: compare.Comparison):
    flagged = [(row.base.name, round(row.ratio, 3), d.why) for row, d in compare.with_change(pair, 1.03)
               if d.verdict == compare.SLOWER]
    assert not flagged, flagged


def test_a_busy_machine_hides_nothing_it_can_bound(pair: compare.Comparison):
    for row, d in compare.with_change(pair, 140.0, busy=True):
        expected = compare.SLOWER if row.timing == "device" else compare.UNCLEAR
        assert d.verdict == expected, (row.base.name, row.timing, d.why)
