"""The attack-risk label and the privacy ledger on the command line (issue 29's done-when)."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from synthcert.cli import app
from synthcert.data.datasets import demo_schema, make_demo_table

runner = CliRunner()


def _json(args):
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("people")
    make_demo_table(2000, seed=3).to_csv(folder / "people.csv", index=False)
    (folder / "schema.json").write_text(demo_schema().to_json())
    return folder


def synthesize(files, out, *extra):
    return runner.invoke(
        app,
        ["synthesize", str(files / "people.csv"), "--schema", str(files / "schema.json"),
         "--synthesizer", "privbayes", "--epsilon", "1", "--out", str(out), *extra],
    )  # fmt: skip


def test_account_json_carries_the_risk_label():
    doc = _json(["account", "--n", "1e7", "--d", "6", "--sigma", "0.01", "--alpha", "4", "--json"])
    risk = doc["risk"]
    assert set(risk["tpr_at_fpr"]) == {"0.01", "0.05"}
    assert 0.01 < risk["tpr_at_fpr"]["0.01"] < risk["tpr_at_fpr"]["0.05"] < 1
    assert 0 < risk["advantage"] < 1 and "(α, ε_RDP) = (4" in risk["source"]
    res = runner.invoke(app, ["account", "--n", "1e7", "--d", "6", "--sigma", "0.01",
                              "--alpha", "4"])  # fmt: skip
    assert "attack risk" in res.output and "in 100" in res.output


def test_budget_and_univariate_print_the_sentence():
    res = runner.invoke(app, ["budget", "--n", "1e6", "--d", "6", "--sigma", "0.01",
                              "--alpha", "4", "--epsilon-rdp", "1"])  # fmt: skip
    assert res.exit_code == 0 and "attack risk" in res.output
    doc = _json(["account-univariate", "--bound", "4", "--n", "1000", "--n-syn", "15625",
                 "--sigma", "1", "--json"])  # fmt: skip
    assert doc["risk"]["source"].startswith("ρ = 0.5")


def test_synthesize_json_carries_risk_and_a_ledger_refuses_the_third_release(files, tmp_path):
    ledger = tmp_path / "people.ledger.jsonl"
    args = ["--ledger", str(ledger), "--lifetime-epsilon", "2.5"]
    first = synthesize(files, tmp_path / "a.csv", *args, "--json")
    assert first.exit_code == 0, first.output
    doc = json.loads(first.stdout)
    assert doc["risk"]["tpr_at_fpr"]["0.01"] == pytest.approx(math.e * 0.01, abs=1e-4)
    assert doc["claim"]["risk"] == doc["risk"]
    assert synthesize(files, tmp_path / "b.csv", *args).exit_code == 0
    before = ledger.read_bytes()
    third = synthesize(files, tmp_path / "c.csv", *args)
    assert third.exit_code == 2
    assert "beyond the lifetime budget" in " ".join(third.output.split())
    assert ledger.read_bytes() == before and not (tmp_path / "c.csv").exists()
    total = _json(["ledger", "show", str(ledger), "--json"])
    assert total["entries"] == 2 and total["total"]["epsilon"] == 2.0
    assert total["risk"]["tpr_at_fpr"]["0.01"] == pytest.approx(math.exp(2) * 0.01, abs=1e-9)
    shown = runner.invoke(app, ["ledger", "show", str(ledger)])
    text = " ".join(shown.output.split())
    assert "(2, 0)" in text and "7.39 in 100" in text


def test_a_run_without_dp_cannot_join_a_ledger(files, tmp_path):
    res = runner.invoke(
        app,
        ["synthesize", str(files / "people.csv"), "--schema", str(files / "schema.json"),
         "--synthesizer", "privbayes", "--out", str(tmp_path / "x.csv"),
         "--ledger", str(tmp_path / "l.jsonl")],
    )  # fmt: skip
    assert res.exit_code == 2 and "no differential-privacy" in " ".join(res.output.split())
    assert not (tmp_path / "l.jsonl").exists() and not (tmp_path / "x.csv").exists()
    res = synthesize(files, tmp_path / "y.csv", "--lifetime-epsilon", "1")
    assert res.exit_code != 0 and "--ledger" in res.output


def test_release_records_its_certificate_and_refuses_beyond_the_lifetime(tmp_path):
    make_demo_table(20_000, seed=1).to_csv(tmp_path / "big.csv", index=False)
    (tmp_path / "schema.json").write_text(demo_schema().to_json())
    ledger = tmp_path / "big.ledger.jsonl"

    def release(out, *extra):
        return runner.invoke(
            app,
            ["release", str(tmp_path / "big.csv"), "--schema", str(tmp_path / "schema.json"),
             "--sigma", "0.01", "--min-rows", "20000", "--delta", "1e-9", "--out",
             str(tmp_path / out), "--ledger", str(ledger), "--lifetime-epsilon", "6",
             "--lifetime-delta", "1e-8", *extra],
        )  # fmt: skip

    first = release("a.csv", "--epsilon", "4", "--json")
    assert first.exit_code == 0, first.output
    assert set(json.loads(first.stdout)["risk"]["tpr_at_fpr"]) == {"0.01", "0.05"}
    (entry,) = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert entry["model"] == "inherent-rdp" and entry["epsilon"] <= 4.0
    before = ledger.read_bytes()
    second = release("b.csv", "--epsilon", "4")
    assert second.exit_code == 2 and "lifetime" in second.output
    sized = release("c.csv", "--n-out", "5")
    assert sized.exit_code == 2 and "--epsilon" in sized.output
    assert ledger.read_bytes() == before
    assert not (tmp_path / "b.csv").exists() and not (tmp_path / "c.csv").exists()


def test_public_report_takes_the_worst_case_audit(files, tmp_path):
    summary = tmp_path / "summary.json"
    res = synthesize(files, tmp_path / "s.csv", "--json")
    assert res.exit_code == 0, res.output
    summary.write_text(res.stdout)
    audit = {
        "synthesizer": "privbayes", "design": "domain", "neighbouring": "bounded",
        "statistic": "white-box", "claimed_epsilon": 1.0, "claimed_mu": None, "delta": 0.0,
        "epsilon_lower_bound": 0.2, "mu_lower_bound": None, "ceiling": 0.5, "mu_ceiling": None,
        "gap_test": 0.3, "gap_mechanism_runs": 0.5, "violation": False,
        "above_claim_curve": False, "runs": 300, "confidence": 0.95, "fpr": 0.1, "tpr": 0.15,
        "fpr_upper": 0.14, "tpr_lower": 0.11, "threshold": 0.0, "seed": 0, "seconds": 1.0,
        "reason": None, "public": "public",
    }  # fmt: skip
    (tmp_path / "audit.json").write_text(json.dumps(audit))
    out = tmp_path / "report.html"
    res = runner.invoke(app, ["report", "--certificate", str(summary), "--claim-audit",
                              str(tmp_path / "audit.json"), "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    page = out.read_text(encoding="utf-8")
    assert 'id="fig-risk"' in page and "Worst-case audit:" in page
    assert "correctly detects at most 2.72 in 100" in page


def test_a_run_that_fails_after_reserving_leaves_its_reservation_counted(
    files, tmp_path, monkeypatch
):
    import synthcert.workflows.synthesize as workflow

    ledger = tmp_path / "l.jsonl"

    def crash(*args, **kwargs):
        raise MemoryError("out of memory while fitting")

    monkeypatch.setattr(workflow, "synthesize", crash)
    failed = synthesize(files, tmp_path / "a.csv", "--ledger", str(ledger))
    assert failed.exit_code != 0 and not (tmp_path / "a.csv").exists()
    total = _json(["ledger", "show", str(ledger), "--json"])
    assert (total["entries"], total["reserved"], total["total"]["epsilon"]) == (1, 1, 1.0)
    shown = " ".join(runner.invoke(app, ["ledger", "show", str(ledger)]).output.split())
    assert "of which reserved" in shown and "stopped before recording" in shown


def test_a_run_without_a_public_size_is_refused_before_the_ledger_reserves_it(files, tmp_path):
    """A new user's DP run under add/remove neighbours without --min-rows was refused only
    after the fit (and the domain step) had read the table, and the ledger kept its
    reservation. The refusal now comes first: nothing is reserved, read or written."""
    ledger = tmp_path / "l.jsonl"
    res = runner.invoke(
        app,
        ["synthesize", str(files / "people.csv"), "--schema", str(files / "schema.json"),
         "--synthesizer", "mwem-pgm", "--epsilon", "1", "--delta", "1e-6",
         "--out", str(tmp_path / "a.csv"), "--ledger", str(ledger)],
    )  # fmt: skip
    assert res.exit_code == 2 and "--min-rows" in res.output
    assert not ledger.exists() or _json(["ledger", "show", str(ledger), "--json"])["entries"] == 0
    assert not (tmp_path / "a.csv").exists()


def test_a_neighboring_param_of_another_synthesizer_does_not_change_the_refusal(files, tmp_path):
    """Found by the attacker of this session: privbayes (replace-one) with --param
    neighboring=unbounded was refused as if it were DP under add/remove neighbours; the early
    check reads the parameter only of a synthesizer that has it."""
    res = synthesize(files, tmp_path / "a.csv", "--param", "neighboring=unbounded")
    assert res.exit_code == 2
    assert "has no parameter(s) ['neighboring']" in " ".join(res.output.split())
