"""tools/doc_blocks.py: a generated block (a merged file's runs side by side) made, kept, found
stale, refused; through tools/doc_figures.py's check on a doc made here (docs/fleet.md itself is
checked by ctest's docs.figures_current)."""
from __future__ import annotations

import json

import pytest

import doc_blocks as blocks  # tools/ and python/ are on the path: pytest.ini's pythonpath
import doc_figures as figures
from layerbench.reports import merge


def run_file(path, uuid: str, run_id: str, times: dict[str, float]) -> str:
    entries = [{"name": f"{name}/iterations:1/manual_time", "run_type": "iteration", "workload": name.split("/")[0],
                "layer": name.split("/")[1], "status": "ok", "median_ms": ms, "rel_stddev": 0.001}
               for name, ms in times.items()]
    context = {"date": "2026-11-26T23:47:27+0000", "host_name": "node1", "run_id": run_id,
               "device": {"name": "GPU X", "uuid": uuid, "index": 0},
               "layerbench": {"version": "0.1.0", "command_line": "layerbench run", "schema_version": 2},
               "measurement": {"noise_target": 0.005, "gpu_cache_mode": "cold"}}
    path.write_text(json.dumps({"context": context, "benchmarks": entries}))
    return str(path)


@pytest.fixture()
def fleet(tmp_path):
    """A two-GPU merged file: vector_add/runtime differs by 50% (marked), matmul/runtime by 1%."""
    a = run_file(tmp_path / "a.json", "GPU-aaaaaaaa-1", "1" * 32,
                 {"vector_add/runtime/1048576": 1.0, "matmul/runtime/4096x4096x4096": 3.0})
    b = run_file(tmp_path / "b.json", "GPU-bbbbbbbb-2", "2" * 32,
                 {"vector_add/runtime/1048576": 1.5, "matmul/runtime/4096x4096x4096": 3.03})
    out = tmp_path / "fleet.json"
    out.write_text(json.dumps(merge.merge([a, b])))
    return out


def doc_text(generated: str = "", source: str = "fleet.json") -> str:
    return f"# Fleet\n\nBefore.\n\n<!-- block {source} side-by-side -->\n{generated}<!-- /block -->\n\nAfter.\n"


def test_a_block_is_made_from_its_source_and_then_current(fleet):
    made, found = blocks.process(doc_text(), lambda name: fleet.parent / name)
    assert [(line, error) for line, _, error, _ in found] == [(5, None)]
    assert found[0][3] is not None  # the empty block was stale
    assert "| run 1 | GPU 0 · aaaaaaaa |" in made and "| run 2 | GPU 0 · bbbbbbbb |" in made
    shown, every = made.split("<details>")
    # The marked case is shown before the fold, the other only inside it.
    assert "`vector_add/runtime/1048576` | 1.00 | 1.50 | **50.0%** ≠" in shown
    assert "matmul/runtime" not in shown and "`matmul/runtime/4096x4096x4096` | 3.00 | 3.03 | 1.0% |" in every
    assert made.startswith("# Fleet\n\nBefore.\n") and made.endswith("</details>\n<!-- /block -->\n\nAfter.\n")
    again, found = blocks.process(made, lambda name: fleet.parent / name)
    assert again == made and found[0][2:] == (None, None)


def test_a_changed_cell_is_stale(fleet):
    made, _ = blocks.process(doc_text(), lambda name: fleet.parent / name)
    edited = made.replace("| 1.50 |", "| 1.49 |")
    assert edited != made
    fixed, found = blocks.process(edited, lambda name: fleet.parent / name)
    assert found[0][2] is None and found[0][3] is not None and fixed == made


@pytest.mark.parametrize("marker, close, error", [
    ("<!-- block fleet.json side-by-side -->", "", "no <!-- /block --> line"),
    ("<!-- block fleet.json histogram -->", "<!-- /block -->", "unknown block 'histogram'"),
    ("<!-- block gone.json side-by-side -->", "<!-- /block -->", "is not committed"),
    ("<!-- block a.json side-by-side -->", "<!-- /block -->", "not a merged file of two runs"),
])
def test_a_bad_block_is_an_error(fleet, marker, close, error):
    text = f"x\n{marker}\nold\n{close}\n"
    made, found = blocks.process(text, lambda name: fleet.parent / name)
    assert len(found) == 1 and error in found[0][2] and made == text


def test_the_lint_skips_a_block_but_keeps_line_numbers():
    text = "a\n<!-- block x side-by-side -->\n| 1.5 ms | 3 GB/s |\n<!-- /block -->\nthen 2 ms\n"
    blanked = blocks.blank(text)
    assert blanked.count("\n") == text.count("\n") and "GB/s" not in blanked and "then 2 ms" in blanked


def test_doc_figures_check_fails_on_a_stale_block_and_passes_once_rewritten(fleet, tmp_path, monkeypatch, capsys):
    results = tmp_path / "docs" / "results"
    (results / "two").mkdir(parents=True)
    fleet.rename(results / "two" / "fleet.json")
    doc = tmp_path / "docs" / "fleet.md"
    doc.write_text(doc_text("stale\n", "two/fleet.json"))
    monkeypatch.setattr(figures, "REPO", tmp_path)
    monkeypatch.setattr(figures, "RESULTS", results)
    assert figures.main(["--check", str(doc)]) == 1
    assert "STALE: docs/fleet.md:5: <!-- block two/fleet.json side-by-side -->" in capsys.readouterr().out
    assert figures.main([str(doc)]) == 0
    assert figures.main(["--check", str(doc)]) == 0 and "**50.0%** ≠" in doc.read_text()


def test_same_build_block_counts_compares_alarms(tmp_path):
    """The same-build block: per pair, the cases and the faster and slower verdicts compare gives;
    a pair with a planted 2x slow-down shows it."""
    import gzip
    from pathlib import Path

    from layerbench.reports import compare, results

    root = Path(__file__).resolve().parents[2] / "docs" / "results" / "h100"
    pair = (root / "results.json", root / "warm-caches.json")
    c = compare.compare(*(results.load(p) for p in pair))
    text = blocks.same_build([pair])
    assert f"| {len(c.rows)} | {c.count('faster')} | {c.count('slower')} |" in text
    data = json.loads(pair[1].read_text())
    for entry in data["benchmarks"]:
        if entry.get("workload") == "matmul" and entry.get("layer") == "vendor":
            for field in ("median_ms", "min_ms", "max_ms"):
                entry[field] *= 2
    slow = tmp_path / "slow.json.gz"
    slow.write_bytes(gzip.compress(json.dumps(data).encode()))
    planted = blocks.same_build([(pair[0], slow)])
    slower = compare.compare(results.load(pair[0]), blocks._load_any(slow)).count("slower")
    assert slower > 0 and f"| {c.count('faster')} | {slower} | {slower} |" in planted
    with pytest.raises(blocks.BlockError, match="pairs are BASE\\+NEW"):
        blocks.generate("h100/results.json", "same-build", lambda name: root.parent / name)
