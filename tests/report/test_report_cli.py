"""`synthcert report`."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from synthcert.cli import app


def test_report_command_writes_the_page(tmp_path, certificate, evaluation, audit):
    paths = {}
    for name, doc in (("cert", certificate), ("eval", evaluation), ("audit", audit)):
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(doc))
    out = tmp_path / "report.html"
    res = CliRunner().invoke(
        app,
        ["report", "--certificate", str(paths["cert"]), "--evaluation", str(paths["eval"]),
         "--audit", str(paths["audit"]), "--out", str(out), "--json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    assert info["report"] == str(out) and info["bytes"] == out.stat().st_size
    html = out.read_text(encoding="utf-8")
    assert 'id="fig-roc"' in html and certificate["input_sha256"] in html


def test_report_command_refuses_without_inputs_and_on_bad_json(tmp_path):
    res = CliRunner().invoke(app, ["report", "--out", str(tmp_path / "r.html")])
    assert res.exit_code == 2 and "at least one" in res.output
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    res = CliRunner().invoke(app, ["report", "--certificate", str(bad), "--out", "r.html"])
    assert res.exit_code == 2 and "not valid JSON" in res.output
