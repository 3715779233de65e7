"""--audit-gate: the worst-case audit of the exact configuration, before any data is read. An
honest synthesizer passes; its broken twin (spending 4ε while claiming ε) is refused."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from typer.testing import CliRunner

from synthcert.cli import app
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import BudgetError, ParameterError
from synthcert.synthesizers import registry
from synthcert.synthesizers.privbayes import PrivBayesSynthesizer
from synthcert.workflows.audit_gate import audit_gate, release_audit_gate
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


# -- release --audit-gate: M_G on the worst pair of its exact public configuration ----------
NUMERIC = Schema((NumericColumn("x", 0.0, 10.0),))
PUBLIC_M_G = ["--sigma", "0.3", "--min-rows", "50", "--epsilon", "10", "--delta", "1e-2"]


def release_args(tmp_path, out: str, schema: Schema = NUMERIC) -> list[str]:
    (tmp_path / "s.json").write_text(schema.to_json())
    values = np.random.default_rng(0).uniform(0, 10, 80)
    (tmp_path / "t.csv").write_text("x\n" + "".join(f"{v:.4f}\n" for v in values))
    return ["release", str(tmp_path / "t.csv"), "--schema", str(tmp_path / "s.json"),
            "--out", str(tmp_path / out), *PUBLIC_M_G]  # fmt: skip


def test_release_gate_audits_the_release_configuration_and_passes_an_honest_one():
    budget = Budget(sigma=0.3, min_rows=50, n_out=50, delta=1e-2)
    result = release_audit_gate(NUMERIC, budget, runs=100)
    assert not result.violation and result.runs == 100 and result.synthesizer == "gaussian"
    assert result.delta == 1e-2 and result.epsilon_lower_bound is not None
    # the claim tested is the certificate of exactly this configuration (n, d = 1, σ, n_out, δ)
    from synthcert.privacy.budget import account

    cert = account(n=50, d=1, sigma=0.3, n_out=50, delta=1e-2)
    assert result.claimed_epsilon == pytest.approx(float(cert.epsilon), rel=1e-6)


# a numeric column, a nullable one (value and missingness indicator) and a three-level
# categorical one (two dummies): encoded dimension 5
MIXED = Schema(
    (
        NumericColumn("x", 0.0, 10.0),
        NumericColumn("y", 0.0, 1.0, nullable=True),
        CategoricalColumn("c", ("a", "b", "c")),
    )
)


def test_release_gate_audits_a_release_of_several_columns_and_passes_an_honest_one():
    """d ≥ 2: the pair lives in [-1, 1]^d of the schema's encoding; the claim tested is the
    certificate at exactly (n, d, σ, n_out, δ)."""
    from synthcert.privacy.budget import account

    two = Schema((NumericColumn("x", 0.0, 1.0), CategoricalColumn("c", ("a", "b"))))
    for schema, d in ((two, 2), (MIXED, 5)):
        budget = Budget(sigma=0.3, min_rows=120, n_out=60, delta=1e-2)
        result = release_audit_gate(schema, budget, runs=100)
        cert = account(n=120, d=d, sigma=0.3, n_out=60, delta=1e-2)
        assert not result.violation and result.runs == 100 and result.synthesizer == "gaussian"
        assert result.claimed_epsilon == pytest.approx(float(cert.epsilon), rel=1e-6)
        assert result.epsilon_lower_bound is not None
        assert result.epsilon_lower_bound <= result.claimed_epsilon


def test_release_gate_refuses_a_twin_whose_noise_is_far_below_the_certificates(monkeypatch):
    """A broken twin in d = 2: the sampler draws with a thousandth of the fitted spread (the
    certificate still assumes N(mu, Sigma)); at a configuration whose certificate is ε ≈ 1
    the same gate that passes the honest release refutes the twin."""
    import synthcert.synthesizers.gaussian as gaussian_module

    two = Schema((NumericColumn("x", 0.0, 1.0), CategoricalColumn("c", ("a", "b"))))
    budget = Budget(sigma=0.3, min_rows=2000, epsilon=1.0, delta=1e-2)
    honest = release_audit_gate(two, budget, runs=100)
    assert not honest.violation and honest.claimed_epsilon == pytest.approx(1.0, abs=1e-3)
    original = gaussian_module.gaussian_factor
    monkeypatch.setattr(gaussian_module, "gaussian_factor", lambda cov: 1e-3 * original(cov))
    with pytest.raises(BudgetError, match=r"refutes the claim ε = 0.99\d* .*measured ε ≥ \d"):
        release_audit_gate(two, budget, runs=100)


def test_release_gate_refuses_what_its_design_cannot_represent():
    wide = Schema(tuple(NumericColumn(f"x{j}", 0.0, 1.0) for j in range(12)))
    with pytest.raises(ParameterError, match="cannot audit this release.*margin"):
        release_audit_gate(wide, Budget(sigma=0.3, min_rows=30, n_out=5), runs=10)
    with pytest.raises(ParameterError, match="ridge"):
        release_audit_gate(NUMERIC, Budget(ridge=1.0, min_rows=50, n_out=50), runs=10)
    with pytest.raises(ParameterError, match="add/remove"):
        release_audit_gate(
            NUMERIC, Budget(sigma=0.3, min_rows=50, n_out=50, neighboring="bounded"), runs=10
        )


def test_release_with_the_gate_refuses_before_writing_and_reports_when_it_passes(
    tmp_path, monkeypatch
):
    import synthcert.audit.claim.run as run_module

    ok = runner.invoke(app, [*release_args(tmp_path, "ok.csv"), "--audit-gate", "100",
                             "--report", str(tmp_path / "r.html"), "--json"])  # fmt: skip
    assert ok.exit_code == 0, ok.output
    doc = json.loads(ok.stdout)
    gate = doc["audit_gate"]
    assert gate["violation"] is False and gate["runs"] == 100 and gate["synthesizer"] == "gaussian"
    assert (
        gate["claimed_epsilon"] <= doc["claim"]["epsilon"] + 1e-9
    )  # never above the release's claim
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Worst-case audit:" in page and "measured by the audit" in page

    # a broken twin: a certificate understated 1000-fold, which the same audit must refute
    original = run_module.run_claim_audit

    def understated(*args, **kwargs):
        honest = original(*args, **kwargs).result.claimed_epsilon
        return original(*args, **{**kwargs, "claimed_epsilon": honest / 1000})

    monkeypatch.setattr(run_module, "run_claim_audit", understated)
    bad = runner.invoke(app, [*release_args(tmp_path, "bad.csv"), "--audit-gate", "100"])
    text = " ".join(bad.output.split())
    assert bad.exit_code == 2 and "refutes the claim" in text and "measured ε ≥" in text, text
    assert not (tmp_path / "bad.csv").exists()


def test_release_with_the_gate_on_three_columns_end_to_end(tmp_path, monkeypatch):
    """The CLI on a numeric, a nullable numeric and a categorical column (d = 5): the gate
    passes the honest release and reports the audit of (n, d = 5, σ, n_out, δ); a twin whose
    sampler draws with a thousandth of the fitted spread is refused, writing nothing."""
    import synthcert.audit.claim.run as run_module
    import synthcert.synthesizers.gaussian as gaussian_module

    (tmp_path / "s.json").write_text(MIXED.to_json())
    rng = np.random.default_rng(1)
    # values near the bounds and a third missing: every encoded variance is well above the
    # neighbour margin of sigma = 0.3 at d = 5
    xs = 10 * rng.integers(0, 2, 2100) + rng.uniform(-0.5, 0.5, 2100).clip(0, 10)
    ys = rng.integers(0, 2, 2100).astype(float)
    cs = rng.choice(list("abc"), 2100)
    lines = [
        f"{x:.4f},{'' if i % 3 == 0 else f'{y:.1f}'},{c}"
        for i, (x, y, c) in enumerate(zip(xs, ys, cs, strict=True))
    ]
    (tmp_path / "t.csv").write_text("x,y,c\n" + "\n".join(lines) + "\n")
    seen = []
    original = run_module.run_claim_audit

    def spy(*a, **kwargs):
        seen.append(kwargs["params"])
        return original(*a, **kwargs)

    monkeypatch.setattr(run_module, "run_claim_audit", spy)

    def args(out: str) -> list[str]:
        return ["release", str(tmp_path / "t.csv"), "--schema", str(tmp_path / "s.json"),
                "--out", str(tmp_path / out), "--sigma", "0.3", "--min-rows", "2000",
                "--epsilon", "1", "--delta", "1e-2", "--audit-gate", "100"]  # fmt: skip

    ok = runner.invoke(app, [*args("ok.csv"), "--json"])
    assert ok.exit_code == 0, ok.output
    doc = json.loads(ok.stdout)
    gate = doc["audit_gate"]
    assert gate["violation"] is False and gate["runs"] == 100 and gate["synthesizer"] == "gaussian"
    assert (
        gate["claimed_epsilon"] <= doc["claim"]["epsilon"] + 1e-9 and doc["claim"]["epsilon"] <= 1.0
    )
    assert seen[0]["d"] == 5 and seen[0]["n"] == 2000 and seen[0]["n_out"] == doc["claim"]["n_out"]
    assert (tmp_path / "ok.csv").exists()

    factor = gaussian_module.gaussian_factor
    monkeypatch.setattr(gaussian_module, "gaussian_factor", lambda cov: 1e-3 * factor(cov))
    bad = runner.invoke(app, args("bad.csv"))
    text = " ".join(bad.output.split())
    assert bad.exit_code == 2 and "refutes the claim" in text and "measured ε ≥" in text, text
    assert not (tmp_path / "bad.csv").exists()
