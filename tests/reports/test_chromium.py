"""Opens report.html in headless Chromium (Debian's `chromium`, installed by `--chromium` of
scripts/install-report-deps.sh) from a file:// URL and checks that the page renders its plots, that
every plot fits a 1400-px-wide window without horizontal scrolling, and that the heat map is on the
first screen. Skips, saying why, where no Chromium is installed."""
from __future__ import annotations

import html
import json
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


# The same, for the page's width: the window's, the document's (more is a horizontal scroll bar) and
# where each image is drawn.
WIDTH_PROBE = """<script>
window.addEventListener("load", () => {
  const images = Array.from(document.images).map(i => {
    const box = i.getBoundingClientRect();
    return {natural: i.naturalWidth, left: box.left, right: box.right, width: box.width};
  });
  document.body.setAttribute("data-probe", JSON.stringify(
    {window: window.innerWidth, scroll: document.documentElement.scrollWidth, images: images}));
});
</script>"""
WINDOW = 1400


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
    reason="no Chromium installed (scripts/install-report-deps.sh --chromium installs Debian's chromium where "
           "apt works); the report's browser tests did not run")


@pytest.fixture(scope="module")
def browser() -> str:
    return find_browser()


def test_report_html_renders_its_plots(browser: str, h200_report: Path, tmp_path: Path):
    figures = (h200_report / "report.html").read_text().count("<figure>")
    assert figures == 12  # every plot of fixtures/h200_run1.json
    drawn = probe(browser, h200_report / "report.html", PROBE, tmp_path)
    assert drawn == f"{figures}/{figures}", f"images drawn/total: {drawn}"


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


def probe(browser: str, page: Path, script: str, tmp_path: Path, *args: str) -> str:
    """The data-probe attribute `script` wrote into a copy of `page`, as Chromium left it."""
    copy = tmp_path / "probe.html"
    copy.write_text(page.read_text().replace("</body>", script + "\n</body>"))
    result = chromium(browser, *args, "--dump-dom", copy.as_uri())
    match = re.search(r'data-probe="([^"]*)"', result.stdout)
    assert match, f"Chromium printed no probe result:\n{result.stderr[-2000:]}"
    return html.unescape(match.group(1))


def test_every_plot_fits_a_1400_px_window(browser: str, h100_16_report: Path, tmp_path: Path):
    """16 layers, every plot: drawn whole inside a 1400-px-wide window, nearly at its own size, and
    the page needs no horizontal scrolling."""
    found = json.loads(probe(browser, h100_16_report / "report.html", WIDTH_PROBE, tmp_path,
                             f"--window-size={WINDOW},1000"))
    assert found["window"] == WINDOW
    assert found["scroll"] <= WINDOW, f"the page is {found['scroll']} px wide: it scrolls sideways"
    images = found["images"]
    assert len(images) == (h100_16_report / "report.html").read_text().count("<figure>") == 12
    for i, image in enumerate(images):
        assert image["natural"] > 600, f"image {i} did not decode: {image}"
        assert image["left"] >= 0 and image["right"] <= WINDOW, f"image {i} reaches out of the window: {image}"
        # shown at (nearly) the size it was drawn for, so its text reads as designed
        assert image["width"] >= 0.95 * min(image["natural"], WINDOW - 60), f"image {i} shrunk: {image}"


def test_the_heat_map_is_on_the_first_screen(browser: str, h100_16_report: Path, tmp_path: Path):
    """A 1400×1000 screenshot of the top of the page shows the heat map: its darkest cells (near
    100% of the ceiling) and its grey ones (launch overhead, CPU layers), down to the last row."""
    import matplotlib.image
    import numpy as np

    from layerbench.reports import heatmap

    shot = tmp_path / "top.png"
    result = chromium(browser, f"--window-size={WINDOW},1000", f"--screenshot={shot}",
                      (h100_16_report / "report.html").as_uri())
    assert shot.is_file(), f"no screenshot:\n{result.stderr[-2000:]}"
    pixels = matplotlib.image.imread(shot)[..., :3]
    dark = np.array(matplotlib.colormaps[heatmap.CMAP](1.0 / 1.04)[:3])
    grey = np.array([int(heatmap.NEUTRAL[i:i + 2], 16) for i in (1, 3, 5)]) / 255.0
    for colour, least in ((dark, 20000), (grey, 20000)):
        close = np.abs(pixels - colour).max(axis=-1) < 0.06
        assert close.sum() > least, f"too few heat-map pixels of colour {colour}: {close.sum()}"
    # the last layer's row (numba-vectorize: its launch cells are grey) is inside the screenshot
    rows = np.nonzero((np.abs(pixels - grey).max(axis=-1) < 0.03).sum(axis=1) > 100)[0]
    assert rows.max() < 990 and rows.max() > 700, rows.max()


@pytest.mark.parametrize("gpus", [2, 8])
def test_a_fleet_report_opens_with_its_picture(browser: str, gpus: int, tmp_path: Path):
    """A merged file of 2 and of 8 GPUs (copies of a real run with identities of their own; GPU 1
    of 8 slower on matmul): the first screen of the page shows the fleet's picture whole, one row
    per GPU, its slow cell marked, and the page does not scroll sideways. The screenshots are kept
    in $LAYERBENCH_SHOTS (a folder) when it is set, to look at."""
    import matplotlib.image
    import numpy as np

    from conftest import fleet_of, run_cli
    from layerbench.reports import fleetmap

    files = fleet_of(tmp_path, gpus, slow=(1, "matmul", 1.25) if gpus > 2 else None)
    merged = tmp_path / "fleet.json"
    assert run_cli("merge", *files, "-o", merged).returncode == 0
    out = tmp_path / "report"
    assert run_cli("report", merged, "--out", out).returncode == 0
    page = out / "report.html"
    found = json.loads(probe(browser, page, WIDTH_PROBE, tmp_path, f"--window-size={WINDOW},1000"))
    assert found["scroll"] <= WINDOW, f"the page is {found['scroll']} px wide: it scrolls sideways"
    first = found["images"][0]  # the fleet's picture is the page's first image
    assert first["natural"] > 600 and first["right"] <= WINDOW, first
    shot = tmp_path / f"fleet-{gpus}.png"
    chromium(browser, f"--window-size={WINDOW},1000", f"--screenshot={shot}", page.as_uri())
    assert shot.is_file()
    if os.environ.get("LAYERBENCH_SHOTS"):
        shutil.copy(shot, Path(os.environ["LAYERBENCH_SHOTS"]) / shot.name)
    pixels = matplotlib.image.imread(shot)[..., :3]
    # the slow cell's deep red (a quarter slower: the scale's end) is on the first screen
    red = np.array(matplotlib.colormaps[fleetmap.CMAP](0.0)[:3])
    close = (np.abs(pixels - red).max(axis=-1) < 0.06).sum()
    assert (close > 3000) == (gpus > 2), close
