"""The release report in a real browser: Debian's Chromium driven by playwright (headless).

Never `playwright install` (it downloads a browser); CI installs Chromium with
`apt-get install -y chromium` as root. The tests skip only when /usr/bin/chromium is absent.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SECTIONS = ("summary", "certificate", "risk", "utility", "audit", "provenance")
VIEWPORTS = {"1280": 1280, "narrow": 390}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="Chromium is not installed at /usr/bin/chromium (Debian: `apt-get install -y "
        "chromium` as root); the browser test of the release report cannot run",
    ),
]


def check_in_browser(html_path: Path, expected_figures: set[str], shots: Path) -> dict:
    """Open the page at 1280 px and 390 px; assert it is clean and complete; screenshot it."""
    from playwright.sync_api import sync_playwright

    url = html_path.resolve().as_uri()
    found: dict = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            for name, width in VIEWPORTS.items():
                page = browser.new_page(viewport={"width": width, "height": 900})
                errors: list[str] = []
                requests: list[str] = []
                page.on(
                    "console", lambda m, e=errors: e.append(m.text) if m.type == "error" else None
                )
                page.on("pageerror", lambda exc, e=errors: e.append(str(exc)))
                page.on("request", lambda r, q=requests: q.append(r.url))
                page.goto(url, wait_until="load")
                page.wait_for_load_state("networkidle")
                assert [r for r in requests if r != url and not r.startswith("data:")] == [], (
                    f"network requests at {width}px: {requests}"
                )
                assert errors == [], f"console errors at {width}px: {errors}"
                for sid in SECTIONS:
                    sec = page.locator(f"section#{sid}")
                    assert sec.count() == 1 and sec.is_visible(), sid
                    assert page.locator(f"section#{sid} h2").inner_text().strip()
                figs = page.eval_on_selector_all(
                    "figure",
                    """els => els.map(f => {
                        const s = f.querySelector('svg[role=img]');
                        const t = s && s.querySelector('title');
                        const b = s ? s.getBoundingClientRect() : {width: 0, height: 0};
                        return {id: f.id, title: t ? t.textContent : '', w: b.width, h: b.height};
                    })""",
                )
                assert {f["id"] for f in figs} == expected_figures
                for f in figs:
                    assert len(f["title"]) > 30, f"{f['id']} lacks alt text"
                    assert f["w"] > 150 and f["h"] > 80, f"{f['id']} is not drawn: {f}"
                overflow = page.evaluate(
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                assert overflow <= 0, f"the page scrolls sideways at {width}px by {overflow}px"
                headers = page.eval_on_selector_all(
                    "table", "ts => ts.map(t => t.querySelectorAll('th').length)"
                )
                assert all(h > 0 for h in headers), "every table has header cells"
                shot = shots / f"report-{name}.png"
                page.screenshot(path=str(shot), full_page=True)
                assert shot.stat().st_size > 50_000
                found[name] = {"figures": len(figs), "screenshot": shot}
                page.close()
        finally:
            browser.close()
    return found


def _keep_screenshots(shots: Path, prefix: str) -> None:
    """Copy the screenshots to $SYNTHCERT_SCREENSHOT_DIR when set (how docs/img is refreshed)."""
    target = os.environ.get("SYNTHCERT_SCREENSHOT_DIR")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        for f in shots.glob("report-*.png"):
            shutil.copy(f, Path(target) / f"{prefix}{f.name[len('report') :]}")


def _figure_ids(html: str) -> set[str]:
    import re

    return set(re.findall(r'<figure id="([^"]+)"', html))


def test_fixture_report_in_chromium(tmp_path, certificate, evaluation, audit):
    from synthcert.report.build import write_report

    out = write_report(
        tmp_path / "report.html",
        certificate=certificate,
        evaluation=evaluation,
        audit=audit,
        internal=True,
    )
    html = out.read_text(encoding="utf-8")
    expected = _figure_ids(html)
    assert (
        len(expected) == 12
    )  # 2 certificate, attack risk, 4 marginals, 1 heat map, 2 histograms, ROC, sandwich
    found = check_in_browser(out, expected, tmp_path)
    assert found["1280"]["figures"] == found["narrow"]["figures"] == 12
    _keep_screenshots(tmp_path, "report-fixture")


@pytest.mark.slow
def test_real_adult_release_evaluation_audit_report_in_chromium(tmp_path, adult):
    """Release, evaluate and audit Adult (numeric columns) for real, then open the report."""
    from synthcert.audit.game import run_audit
    from synthcert.data.datasets import ADULT_NUMERIC, adult_schema
    from synthcert.report import load_json, write_report
    from synthcert.utility.evaluate import evaluate
    from synthcert.workflows import Budget
    from synthcert.workflows.release import release

    schema = adult_schema(numeric_only=True)
    table = adult[ADULT_NUMERIC]
    src = tmp_path / "adult.csv"
    table.to_csv(src, index=False)
    res = release(
        src,
        schema,
        tmp_path / "synthetic.csv",
        Budget(epsilon=10.0, delta=1e-5, sigma=0.015, min_rows=30_000),
        private_record=tmp_path / "private" / "run.json",
    )
    cert = load_json(res.certificate_path)
    assert cert["claim"]["n_out"] > 1000 and cert["claim"]["epsilon"] <= 10.0
    import pandas as pd

    synthetic = pd.read_csv(res.output)
    ev = evaluate(table, synthetic, schema).to_dict()
    au = run_audit(
        table, schema, "gaussian", attacks="statistics,distance", trials=2, generations=20, seed=3
    ).to_dict()
    out = write_report(
        tmp_path / "report.html",
        certificate=cert,
        evaluation=ev,
        audit=au,
        schema=schema,
        internal=True,
        record=res.record.to_dict(),
    )
    html = out.read_text(encoding="utf-8")
    assert res.record.input_sha256 in html and f"{cert['n_out']:,} synthetic rows" in html
    assert "internal: contains statistics of the real data" in html
    for value in table.iloc[au["target_row"]].astype(str):  # not one of the target's values
        assert f'<td class="num">{value}</td>' not in html or value in {"0"}
    expected = _figure_ids(html)
    # 2 certificate curves, 6 marginals, 1 heat map, 2 histograms, ROC, sandwich
    assert len(expected) == 13, sorted(expected)
    check_in_browser(out, expected, tmp_path)
    _keep_screenshots(tmp_path, "report")


def test_the_browser_check_catches_network_requests_and_console_errors(tmp_path):
    """The checker itself can fail: a page that fetches a resource or logs an error is refused."""
    page = tmp_path / "bad.html"
    page.write_text(
        "<!doctype html><html><body>"
        + "".join(f'<section id="{s}"><h2>{s}</h2></section>' for s in SECTIONS)
        + '<img src="http://192.0.2.1/pixel.png" alt="x"></body></html>'
    )
    with pytest.raises(AssertionError, match="network requests"):
        check_in_browser(page, set(), tmp_path)
    page.write_text(page.read_text().replace("<img", "<script>console.error('boom')</script><i"))
    with pytest.raises(AssertionError, match="console errors"):
        check_in_browser(page, set(), tmp_path)
