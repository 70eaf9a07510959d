"""The HTML report in a real browser (headless Chromium; skipped where none is installed).

A report page with 25 axioms and 6 rankers (5 and the oracle), shown on a 1366 x 768 laptop
screen: the page does not
scroll sideways (the wide overview table scrolls inside its own box), the fulfilment chart is
shown at (nearly) its own size, so its labels keep their point size, and no figure is shrunk
below three quarters of its width. Measured by the page itself (a probe script appended to a
copy of the report reports the layout into the DOM, which ``--dump-dom`` prints); a screenshot
is taken as well.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from toy_report import LenRanker, instance_row, toy_dataset

from axiomatic.diagnose.diagnosis import diagnose
from axiomatic.diagnose.result import instance_frame

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
BROWSER = next((b for b in map(shutil.which, BROWSERS) if b), None)
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no headless Chromium installed")

AXIOMS = [
    "TFC1", "TFC2", "TFC3", "TDC", "M-TDC", "LNC1", "LNC2", "TF-LNC", "LB1", "LB2", "PROX1",
    "PROX2", "PROX3", "PROX4", "PROX5", "REG", "AND", "LEN-AND", "M-AND", "LEN-M-AND", "DIV",
    "LEN-DIV", "STMC1", "STMC2", "STMC3",
]  # fmt: skip
LAPTOP = (1366, 768)

PROBE = """<script>
window.addEventListener('load', () => {
  const imgs = [...document.images].map(i => ({alt: i.alt, natural: i.naturalWidth,
    shown: i.getBoundingClientRect().width}));
  const p = document.createElement('pre'); p.id = 'layout-probe';
  p.textContent = JSON.stringify({scroll: document.documentElement.scrollWidth,
    inner: window.innerWidth, imgs});
  document.body.appendChild(p);
});
</script>"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from axiomatic.report import plots as P
    from axiomatic.report.html import render_html

    rng = np.random.default_rng(0)
    ds = toy_dataset(rng)
    rows = [
        instance_row(ds, q, ax, "extended", *rng.choice(30, 2, replace=False))
        for q in ds.queries
        for ax in AXIOMS
        for _ in range(12)
    ]
    rankers = [
        LenRanker(f"ranker-{k}(weight={w},bias={b})", w, b)
        for k, (w, b) in enumerate([(1, 0), (1, -0.3), (0, 1), (2, 0.1), (0.5, -1)])
    ]
    diag = diagnose(instance_frame(rows), rankers, ds, oracle=True)
    # the page write_report renders, with the fulfilment chart of all 25 axioms and a delta*
    # figure of 3 of them: the delta* figures are 3 facets wide whatever the number of axioms,
    # and 25 facets take ~15 s to draw
    sweep = diag.delta_sweep()
    sweep = sweep[sweep["spec"].isin(sorted(set(sweep["spec"]))[:3])]
    images = {
        "bars": P.plot_axiom_bars(diag),
        "delta_sweep": P.plot_delta_sweep(diag, sweep=sweep),
    }
    out = tmp_path_factory.mktemp("rep") / "report.html"
    out.write_text(render_html(diag, None, images, title="25 axioms"), encoding="utf-8")
    return out


def _chromium(*args: str) -> subprocess.CompletedProcess[str]:
    assert BROWSER is not None
    w, h = LAPTOP
    cmd = [BROWSER, "--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={w},{h}"]
    return subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=120)


def test_report_reads_on_a_laptop_screen(report: Path, tmp_path: Path) -> None:
    page = report.read_text(encoding="utf-8")
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    proc = _chromium("--virtual-time-budget=5000", "--dump-dom", probe.as_uri())
    assert proc.returncode == 0, proc.stderr[-2000:]
    found = re.search(r'<pre id="layout-probe">(.*?)</pre>', proc.stdout, re.S)
    assert found, "the probe did not run: " + proc.stdout[-500:]
    layout = json.loads(found.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert layout["inner"] == LAPTOP[0]
    assert layout["scroll"] <= layout["inner"], layout  # no sideways scrolling of the page
    imgs = {i["alt"]: i for i in layout["imgs"]}
    assert len(imgs) == 2 and all(i["natural"] > 0 for i in imgs.values()), imgs
    chart = imgs["fulfilment per axiom"]
    assert chart["natural"] <= LAPTOP[0] and chart["shown"] >= 0.95 * chart["natural"], chart
    for alt, img in imgs.items():
        assert img["shown"] >= 0.75 * img["natural"], (alt, img)

    shot = tmp_path / "report.png"
    proc = _chromium("--hide-scrollbars", f"--screenshot={shot}", report.as_uri())
    assert proc.returncode == 0, proc.stderr[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(png[16:20], "big") == LAPTOP[0]  # IHDR width
