"""--audit-gate: the worst-case audit of the exact configuration, before any data is read. An
honest synthesizer passes; its broken twin (spending 4ε while claiming ε) is refused."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from synthcert.cli import app
from synthcert.data.schema import CategoricalColumn, Schema
from synthcert.errors import BudgetError
from synthcert.synthesizers import registry
from synthcert.synthesizers.privbayes import PrivBayesSynthesizer
from synthcert.workflows.audit_gate import audit_gate
from synthcert.workflows.job_inputs import Budget

ONE_COLUMN = Schema((CategoricalColumn("x", ("0", "1")),))
runner = CliRunner()


class OverspendingPrivBayes(PrivBayesSynthesizer):
    """A broken twin: fits at 4ε, claims ε."""

    def __init__(self, schema, epsilon=None, **kwargs):
        super().__init__(schema, epsilon=None if epsilon is None else 4 * epsilon, **kwargs)

    def privacy_claim(self, n_out):
        claim = super().privacy_claim(n_out)
        return replace(claim, epsilon=claim.epsilon / 4)


@pytest.fixture
def broken_twin(monkeypatch):
    info = registry.SynthesizerInfo("privbayes-broken", __name__, "OverspendingPrivBayes",
                                    "pure-dp (broken)", "a twin spending 4x its claim")  # fmt: skip
    monkeypatch.setitem(registry.REGISTRY, "privbayes-broken", info)
    return "privbayes-broken"


def test_the_honest_synthesizer_passes_the_gate():
    result = audit_gate("privbayes", ONE_COLUMN, Budget(epsilon=1.0), runs=200, workers=1)
    assert not result.violation and result.claimed_epsilon == 1.0 and result.runs == 200


def test_the_broken_twin_is_refused_naming_the_measured_bound(broken_twin):
    with pytest.raises(BudgetError, match=r"refutes the claim ε = 1 .*measured ε ≥ \d"):
        audit_gate(broken_twin, ONE_COLUMN, Budget(epsilon=1.0), runs=200, workers=1)


def test_synthesize_with_the_gate_refuses_before_writing_and_reports_when_it_passes(
    broken_twin, tmp_path, monkeypatch
):
    import synthcert.workflows.audit_gate as gate_module

    original = gate_module.audit_gate
    monkeypatch.setattr(gate_module, "audit_gate", lambda *a, **k: original(*a, workers=1, **k))
    (tmp_path / "s.json").write_text(ONE_COLUMN.to_json())
    (tmp_path / "t.csv").write_text("x\n" + "0\n1\n" * 20)
    base = ["synthesize", str(tmp_path / "t.csv"), "--schema", str(tmp_path / "s.json"),
            "--epsilon", "1", "--audit-gate", "200"]  # fmt: skip
    bad = runner.invoke(app, [*base, "--synthesizer", broken_twin, "--out",
                              str(tmp_path / "bad.csv")])  # fmt: skip
    assert bad.exit_code == 2 and "refutes the claim" in " ".join(bad.output.split())
    assert not (tmp_path / "bad.csv").exists()
    ok = runner.invoke(app, [*base, "--synthesizer", "privbayes", "--out",
                             str(tmp_path / "ok.csv"), "--report", str(tmp_path / "r.html"),
                             "--json"])  # fmt: skip
    assert ok.exit_code == 0, ok.output
    doc = json.loads(ok.stdout)
    assert doc["audit_gate"]["violation"] is False and doc["audit_gate"]["runs"] == 200
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Worst-case audit:" in page and "measured by the audit" in page
