"""`layerbench lab leaderboard` in a browser: the board made from the planted grade files of
tests/labs/leaderboard/ (lab 01, two grading sessions, eight students: one refused, one that failed
the check, one that did not compile, one whose file name is HTML, one graded twice), opened in
headless Chromium from a file:// URL. The rendered page ranks them in the expected order, keeps the
refused one in its own section, turns no file name into an element, and fits the window.

The binary: $LB_EXE; else, under ctest (which runs this from <build>/tests), that build's
layerbench; else <repo>/build/layerbench. Chromium is found as tests/reports/test_chromium.py finds
it (`scripts/install-report-deps.sh --chromium` installs it). Each is skipped, saying why, when missing."""
from __future__ import annotations

import html
import importlib.util
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "labs" / "leaderboard"
WINDOW = 1280

RANKED = ["students/eve/<img src=x onerror=alert(1)>.cu", "students/ada/vector_add.cu",
          "students/bo/vector_add.cu", "students/gus/vector_add.cu"]

# Appended to a copy of the page (the page itself has no script): once loaded, what a reader sees,
# written into the DOM, which --dump-dom prints.
PROBE = """<script>
window.addEventListener("load", () => {
  const names = sel => Array.from(document.querySelectorAll(sel + " td.name")).map(td => td.textContent);
  const shown = sel => { const e = document.querySelector(sel); return !!e && e.getBoundingClientRect().height > 0; };
  const bars = Array.from(document.querySelectorAll("#ranked .bar .fill")).map(b => b.getBoundingClientRect().width);
  document.body.setAttribute("data-probe", JSON.stringify({
    ranked: names("#ranked"), refused: names("#refused"), unranked: names("#unranked"),
    refused_heading: (document.querySelector("#refused h2") || {}).textContent,
    refused_shown: shown("#refused table"), bars: bars,
    elements_from_names: document.querySelectorAll("td.name *").length,
    images: document.images.length, scripts: document.scripts.length,
    window: window.innerWidth, scroll: document.documentElement.scrollWidth}));
});
</script>"""




def find_layerbench() -> tuple[Path | None, str]:
    """(the binary, where it came from), or (None, where it was looked for): $LB_EXE; else, under
    ctest (which runs this from <build>/tests), that build's layerbench; else <repo>/build/layerbench."""
    if os.environ.get("LB_EXE"):
        return Path(os.environ["LB_EXE"]), "$LB_EXE"
    cwd = Path.cwd()
    if cwd.name == "tests" and (cwd / "CTestTestfile.cmake").exists() and (cwd.parent / "layerbench").exists():
        return cwd.parent / "layerbench", "the build ctest runs in"
    fallback = ROOT / "build" / "layerbench"
    if fallback.exists():
        return fallback, "build/layerbench"
    return None, f"no $LB_EXE, not under ctest, and no {fallback}"


# One way to run Chromium, shared with the report's browser test.

_spec = importlib.util.spec_from_file_location("report_chromium", ROOT / "tests" / "reports" / "test_chromium.py")
_report_chromium = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_report_chromium)
find_browser = _report_chromium.find_browser


def chromium(browser: str, *args: str) -> subprocess.CompletedProcess:
    return _report_chromium.chromium(browser, f"--window-size={WINDOW},1100", *args)


pytestmark = pytest.mark.skipif(
    find_browser() is None,
    reason="no Chromium installed (scripts/install-report-deps.sh --chromium installs Debian's chromium where "
           "apt works); the leaderboard's browser test did not run")


@pytest.fixture(scope="module")
def board(tmp_path_factory) -> Path:
    """The page made from a directory of the planted grade files, as a teacher would make it."""
    exe, where = find_layerbench()
    if exe is None or not os.access(exe, os.X_OK):
        pytest.skip(f"no layerbench binary to run ({where}); build it, or set LB_EXE")
    work = tmp_path_factory.mktemp("leaderboard")
    grades = work / "grades"
    shutil.copytree(FIXTURES, grades)
    files = sorted(str(p.relative_to(work)) for p in grades.glob("*.json"))
    done = subprocess.run([str(exe), "lab", "leaderboard", "01-vector-add", *files, "-o", "board.html"],
                          capture_output=True, text=True, timeout=60, cwd=work)
    assert done.returncode == 0, done.stderr
    assert "4 ranked, 1 refused, 2 not ranked" in done.stdout, done.stdout
    return work / "board.html"


def test_the_board_ranks_in_order_and_keeps_the_refused_apart(board: Path, tmp_path: Path):
    copy = tmp_path / "probe.html"
    copy.write_text(board.read_text().replace("</body>", PROBE + "\n</body>"))
    result = chromium(find_browser(), "--dump-dom", copy.as_uri())
    match = re.search(r'data-probe="([^"]*)"', result.stdout)
    assert match, f"Chromium printed no probe result:\n{result.stderr[-2000:]}"
    found = json.loads(html.unescape(match.group(1)))
    assert found["ranked"] == RANKED
    assert found["refused"] == ["students/mallory/vector_add.cu"]
    assert found["refused_heading"] == "Refused: faster than the hardware allows"
    assert found["refused_shown"]
    assert found["unranked"] == ["students/dan/vector_add.cu", "students/fay/vector_add.cu"]
    # the file name that is HTML stayed text: no element, no image, no script but the probe
    assert found["elements_from_names"] == 0 and found["images"] == 0 and found["scripts"] == 1
    bars = found["bars"]
    assert all(b > 0 for b in bars) and bars == sorted(bars, reverse=True), bars
    assert found["scroll"] <= found["window"] == WINDOW, f"the page scrolls sideways: {found}"


def test_the_board_screenshot_shows_its_bars_and_the_refused_section(board: Path, tmp_path: Path):
    """The page as a person sees it (no probe): its speed bars and the refused section's red."""
    image = pytest.importorskip("matplotlib.image")
    import numpy as np

    shot = Path(os.environ.get("LB_LEADERBOARD_SCREENSHOT", tmp_path / "board.png"))
    result = chromium(find_browser(), f"--screenshot={shot}", board.as_uri())
    assert shot.is_file(), f"no screenshot:\n{result.stderr[-2000:]}"
    pixels = image.imread(shot)[..., :3]
    for colour, least in (("#3b7dd8", 2000), ("#b3261e", 300)):  # the bars; the refused heading and text
        rgb = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255.0
        close = np.abs(pixels - rgb).max(axis=-1) < 0.06
        assert close.sum() > least, f"too few pixels of {colour}: {close.sum()}"
