"""tools/doc_figures.py: the formats, the markers and the lint, on a results file made here (the
docs themselves are checked by ctest's docs.figures_current)."""
from __future__ import annotations

import json

import pytest

import doc_figures as figures  # tools/ and python/ are on the path: pytest.ini's pythonpath


def case(name: str, **fields) -> dict:
    workload, layer = name.split("/")[:2]
    return {"name": name + "/iterations:1/manual_time", "run_type": "iteration", "workload": workload,
            "layer": layer.split(":")[0], "status": "ok", **fields}


@pytest.fixture()
def repo(tmp_path, monkeypatch):
    results = tmp_path / "docs" / "results" / "gpu"
    results.mkdir(parents=True)
    data = {"context": {"date": "2026-11-22T15:56:06+0000", "device": {"name": "GPU X", "sm_count": 132},
                        "ceilings": {"copy_gbps": 2991.5, "sgemm_gflops": 51283.2},
                        "layers": {"driver": {"one_time_costs": [{"what": "primary context retain", "ms": 0.0027}]}},
                        "layerbench": {"version": "0.1.0", "command_line": "build/layerbench run", "schema_version": 2},
                        "measurement": {"noise_target": 0.005, "gpu_cache_mode": "cold"}},
            "benchmarks": [
                case("matmul/runtime/4096x4096x4096", gflops=41296.4, median_ms=3.3281, fraction_of_cublas=0.8053),
                case("matmul/driver/4096x4096x4096", gflops=41870.0, median_ms=3.2824, fraction_of_cublas=0.8165),
                case("matmul/cupy/4096x4096x4096", gflops=51707.0, median_ms=2.658, fraction_of_cublas=1.0083),
                case("vector_add/runtime/268435456", gbps=3079.6, fraction_of_copy=1.0294, median_ms=1.0459,
                     one_time_costs=[{"what": "NVRTC vector_add (compiled)", "ms": 103.06}]),
                case("vector_add/runtime/1048576", median_ms=0.00723, gbps=1740.0),
                case("launch_async/runtime/1000", us_per_launch=3.9912),
                case("matmul/runtime:08_async_pipeline/4096x4096x4096", gflops=41798.0, rung={"id": "matmul/08_async_pipeline"}),
                case("matmul/runtime:09_async_pipeline_wide/4096x4096x4096", gflops=44360.0,
                     rung={"id": "matmul/09_async_pipeline_wide"}),
            ]}
    (results / "results.json").write_text(json.dumps(data))
    monkeypatch.setattr(figures, "REPO", tmp_path)
    monkeypatch.setattr(figures, "RESULTS", tmp_path / "docs" / "results")
    figures._loaded.clear()
    return tmp_path


@pytest.mark.parametrize("query, text", [
    ("gpu matmul/runtime/4096 gflops", "41 296 GFLOP/s"),
    ("gpu matmul/runtime/4096 tflops", "41.3 TFLOP/s"),
    ("gpu matmul/runtime/4096 ms", "3.328 ms"),
    ("gpu vector_add/runtime/2^20 us", "7.23 µs"),
    ("gpu vector_add/runtime/2^28 gbps,copy bare", "3080 (1.03)"),
    ("gpu vector_add/runtime/2^28 copy %", "103%"),
    ("gpu matmul/{runtime,driver}/4096 tflops", "41.3–41.9 TFLOP/s"),
    ("gpu matmul/{runtime,driver}/4096 gflops max", "41 870 GFLOP/s"),
    ("gpu matmul/cupy/4096 gflops / matmul/{runtime,driver}/4096 gflops max", "1.23×"),
    ("gpu matmul/runtime/4096 gflops / ceiling sgemm %", "81%"),
    ("gpu matmul/runtime/4096 gflops / matmul/driver/4096 gflops diff", "1.4%"),
    ("gpu matmul/runtime:09/4096 gflops / matmul/runtime:08/4096 gflops", "1.06×"),
    ("gpu launch_async/runtime/1000 launch", "3.99 µs"),
    ("gpu cost runtime 'NVRTC'", "103 ms"),
    ("gpu cost driver 'primary context'", "0.0027 ms"),
    ("gpu ceiling copy", "2992 GB/s"),
    ("gpu ceiling sgemm", "51 283 GFLOP/s"),
    ("gpu datetime", "2026-11-22 15:56 UTC"),
    ("gpu commit", "not recorded"),
    ("gpu cases", "8"),
])
def test_queries_and_formats(repo, query, text):
    assert figures.evaluate(query) == text


@pytest.mark.parametrize("query, error", [
    ("gpu matmul/vendor/4096 gflops", "no case"),
    ("gpu matmul/runtime/4096 watts", "not CASE FIELD"),
    ("other matmul/runtime/4096 gflops", "not committed"),
    ("gpu matmul/{runtime,driver}/4096 gflops / ceiling sgemm", "one number"),
])
def test_bad_queries_say_why(repo, query, error):
    with pytest.raises(figures.FigureError, match=error):
        figures.evaluate(query)


def test_rewrite_then_check(repo):
    doc = repo / "README.md"
    doc.write_text("runs at **1 GFLOP/s**<!-- fig gpu matmul/runtime/4096 gflops --> on "
                   "<!-- fig gpu device -->?<!-- /fig -->.\n"
                   "| runtime | 0<!-- fig gpu vector_add/runtime/2^28 gbps,copy bare --> |\n"
                   "`<!-- fig gpu not a marker -->` in code\n")
    assert figures.main(["--check", str(doc)]) == 1  # stale
    assert figures.main([str(doc)]) == 0              # rewrites
    assert doc.read_text().startswith("runs at **41 296 GFLOP/s**<!-- fig gpu matmul/runtime/4096 gflops --> on "
                                      "<!-- fig gpu device -->GPU X<!-- /fig -->.\n| runtime | 3080 (1.03)<!--")
    assert figures.main(["--check", str(doc)]) == 0   # and is current


def test_a_symlinked_doc_keeps_its_link(repo):
    """The rewrite goes through python/layerbench/reports/output.py's writer: a doc that is a symlink stays one, and
    the file it points at gets the new figures."""
    target = repo / "shared.md"
    target.write_text("runs at 1 GFLOP/s<!-- fig gpu matmul/runtime/4096 gflops -->\n")
    doc = repo / "README.md"
    doc.symlink_to(target.name)
    assert figures.main([]) == 0  # every doc, README.md among them, as found (not resolved)
    assert doc.is_symlink()
    assert target.read_text() == "runs at 41 296 GFLOP/s<!-- fig gpu matmul/runtime/4096 gflops -->\n"


def test_lint_flags_unmarked_figures_only(repo):
    doc = repo / "README.md"
    doc.write_text("the kernel ran 41 TFLOP/s and 1.5× faster\n"
                   "a setting: --max-time 3 s, 16×16 tiles, 2 × the L2\n"
                   "about 30 TFLOP/s then<!-- unsourced: the kernel before, gone -->\n"
                   "marked 41 296 GFLOP/s<!-- fig gpu matmul/runtime/4096 gflops -->\n"
                   "```sh\nlayerbench run   # 12 ms\n```\n`3 ms in a code span`\n")
    assert [f for _, f in figures.lint(doc)] == ["41 TFLOP/s", "1.5×"]


def test_commit_is_the_sources_short_commit(repo):
    path = repo / "docs" / "results" / "gpu" / "results.json"
    data = json.loads(path.read_text())
    data["context"]["layerbench"]["source_commit"] = "0123456789abcdef0123456789abcdef01234567-dirty"
    path.write_text(json.dumps(data))
    figures._loaded.clear()
    assert figures.evaluate("gpu commit") == "0123456-dirty"


@pytest.fixture()
def grades(repo):
    def submission(file, outcome, points, speed=None, fraction=None, ms=None, ours_ms=None):
        bench = [{"size": "67108864", "student": {"median_ms": ms, "gbps": 2815.4}, "runtime": {"median_ms": ours_ms},
                  "input_reset_ms": 1.604383945, "sample_verify_ms": 86.72059, "samples_verified": 52}]
        return {"file": file, "outcome": outcome, "points": points,
                "performance": {"speed_vs_runtime": speed, "fraction_of_ceiling": fraction,
                                "benchmarks": bench if ms else []}}
    doc = {"lab": "01-vector-add", "submissions": [
        submission("labs/01-vector-add/solution/vector_add.cu", "graded", 100, 0.9712, 0.9414, 0.2861, 0.2779),
        submission("planted/off_by_one.cu", "check failed", 42.9)]}
    (repo / "docs" / "results" / "gpu" / "lab1.json").write_text(json.dumps(doc))
    return repo


@pytest.mark.parametrize("query, text", [
    ("gpu/lab1.json grade points solution/", "100"),
    ("gpu/lab1.json grade speed solution/", "0.97"),
    ("gpu/lab1.json grade ceiling solution/", "94%"),
    ("gpu/lab1.json grade ms solution/", "0.2861 ms"),
    ("gpu/lab1.json grade ours_ms solution/", "0.2779 ms"),
    ("gpu/lab1.json grade gbps solution/", "2815 GB/s"),
    ("gpu/lab1.json grade points off_by_one", "42.9"),
    # what verifying every timed sample costs, beside its fresh inputs
    ("gpu/lab1.json grade reset_ms solution/", "1.604 ms"),
    ("gpu/lab1.json grade verify_ms solution/", "86.72 ms"),
])
def test_grade_queries(grades, query, text):
    assert figures.evaluate(query) == text


@pytest.mark.parametrize("query, error", [
    ("gpu/lab1.json grade points", "2 submissions match"),
    ("gpu/lab1.json grade watts solution/", "grade takes a field"),
    ("gpu/lab1.json grade speed off_by_one", "no speed"),
])
def test_bad_grade_queries_say_why(grades, query, error):
    with pytest.raises(figures.FigureError, match=error):
        figures.evaluate(query)
