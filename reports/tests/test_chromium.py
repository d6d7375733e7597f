"""Opens report.html in headless Chromium (Debian's `chromium`, installed by
scripts/install-report-deps.sh) from a file:// URL and checks that the page renders its plots.
Skips, saying why, where no Chromium is installed."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

# Appended to a copy of the page (the report itself has no script): after the page has loaded,
# write how many images decoded to a real size into the DOM, which --dump-dom prints.
PROBE = """<script>
window.addEventListener("load", () => {
  const imgs = Array.from(document.images);
  const drawn = imgs.filter(i => i.complete && i.naturalWidth > 300 && i.naturalHeight > 200
                                 && i.getBoundingClientRect().width > 300);
  document.body.setAttribute("data-probe", drawn.length + "/" + imgs.length);
});
</script>"""


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium(browser: str, *args: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        cmd = [browser, "--headless", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
               f"--user-data-dir={profile}", "--virtual-time-budget=10000", *args]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


pytestmark = pytest.mark.skipif(
    find_browser() is None,
    reason="no Chromium installed (scripts/install-report-deps.sh installs Debian's chromium where apt "
           "works); the report's browser test did not run")


@pytest.fixture(scope="module")
def browser() -> str:
    return find_browser()


def test_report_html_renders_its_plots(browser: str, h200_report: Path, tmp_path: Path):
    page = (h200_report / "report.html").read_text()
    figures = page.count("<figure>")
    assert figures == 11  # every plot of fixtures/h200_run1.json
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", PROBE + "\n</body>"))
    result = chromium(browser, "--dump-dom", probe.as_uri())
    match = re.search(r'data-probe="(\d+)/(\d+)"', result.stdout)
    assert match, f"Chromium printed no probe result:\n{result.stderr[-2000:]}"
    assert match.groups() == (str(figures), str(figures)), f"images drawn/total: {match.group(0)}"


def test_report_html_screenshot_shows_plots(browser: str, h200_report: Path, tmp_path: Path):
    """The page as a person sees it (the report file itself, no probe): a screenshot tall enough
    for the first figures holds the plots' layer colours, not just text."""
    import matplotlib.image
    import numpy as np

    shot = tmp_path / "shot.png"
    result = chromium(browser, "--window-size=1280,4000", f"--screenshot={shot}",
                      (h200_report / "report.html").as_uri())
    assert shot.is_file(), f"no screenshot:\n{result.stderr[-2000:]}"
    pixels = matplotlib.image.imread(shot)[..., :3]
    runtime_blue = np.array([0x1F, 0x77, 0xB4]) / 255.0
    copy_red = np.array([0xD6, 0x27, 0x28]) / 255.0
    for colour, least in ((runtime_blue, 300), (copy_red, 300)):
        close = np.abs(pixels - colour).max(axis=-1) < 0.08
        assert close.sum() > least, f"too few plot pixels of colour {colour}: {close.sum()}"
