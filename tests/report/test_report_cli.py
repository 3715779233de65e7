"""`synthcert report`."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from synthcert.cli import app


def test_report_command_writes_the_page(tmp_path, certificate, evaluation, audit, record):
    paths = {}
    docs = (("cert", certificate), ("eval", evaluation), ("audit", audit), ("rec", record))
    for name, doc in docs:
        paths[name] = tmp_path / f"{name}.json"
        paths[name].write_text(json.dumps(doc))
    out = tmp_path / "report.html"
    args = ["report", "--certificate", str(paths["cert"]), "--evaluation", str(paths["eval"]),
            "--audit", str(paths["audit"]), "--private-record", str(paths["rec"]),
            "--out", str(out), "--json"]  # fmt: skip
    public = CliRunner().invoke(app, args)
    assert public.exit_code == 2 and "--internal" in " ".join(public.output.split())
    assert not out.exists()
    res = CliRunner().invoke(app, [*args, "--internal"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    assert info["report"] == str(out) and info["bytes"] == out.stat().st_size
    html = out.read_text(encoding="utf-8")
    assert 'id="fig-roc"' in html and record["input_sha256"] in html
    assert html.count("internal: contains statistics of the real data; do not publish") == 1
    assert record["seed_entropy"] not in html


def test_public_report_holds_no_private_fact(tmp_path, certificate):
    out = tmp_path / "public.html"
    res = CliRunner().invoke(
        app, ["report", "--certificate", _write(tmp_path, certificate), "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    html = out.read_text(encoding="utf-8")
    assert "do not publish" not in html and "Report generated" not in html
    assert "Declared minimum table size" in html and "30,162" in html


def _write(folder, doc) -> str:
    path = folder / "doc.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_report_command_refuses_without_inputs_and_on_bad_json(tmp_path):
    res = CliRunner().invoke(app, ["report", "--out", str(tmp_path / "r.html")])
    assert res.exit_code == 2 and "at least one" in res.output
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    res = CliRunner().invoke(app, ["report", "--certificate", str(bad), "--out", "r.html"])
    assert res.exit_code == 2 and "not valid JSON" in res.output
