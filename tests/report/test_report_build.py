"""The release report: contents, figures, self-containment, privacy of the at-risk list."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthcert.audit.scoring import auc, roc_curve
from synthcert.errors import DataError
from synthcert.report import figures as F  # noqa: N812
from synthcert.report.build import build_context, render_report, write_report
from synthcert.report.curves import certificate_curves
from synthcert.report.sections.audit import at_risk_rows, audit_section
from synthcert.report.sections.summary import audit_verdict
from synthcert.report.sections.utility import correlation_diff, marginal_specs


def test_every_section_and_figure_is_on_the_page(full_html):
    for sid in ("summary", "certificate", "utility", "audit", "provenance"):
        assert f'<section id="{sid}"' in full_html
    # 2 certificate curves, 4 marginals, 1 heat map, 2 histograms, ROC, sandwich
    figs = re.findall(r'<figure id="([^"]+)"', full_html)
    assert {"fig-alpha", "fig-nout", "fig-corr", "fig-roc", "fig-sandwich"} <= set(figs)
    assert sum(f.startswith("fig-marg-") for f in figs) == 4
    assert sum(f.startswith("fig-hist-") for f in figs) == 2
    # every figure is an accessible inline SVG with a non-empty title (its alt text)
    svgs = re.findall(r"<svg[^>]*>\s*<title id=\"[^\"]+\">([^<]+)</title>", full_html)
    assert len(svgs) == len(figs)
    assert all(len(t) > 40 for t in svgs)


def test_page_is_self_contained(full_html):
    assert "<script" not in full_html
    assert "<link" not in full_html
    assert "@import" not in full_html
    assert not re.findall(r"url\((?!#)", full_html)  # only in-page clip paths
    # src/href values are in-page anchors or inline data (xmlns declarations are not fetched)
    for attr in re.findall(r'\s(?:src|href|xlink:href)="([^"]*)"', full_html):
        assert attr.startswith(("#", "data:image/png;base64,")), attr[:60]


def test_element_ids_are_unique_across_inlined_svgs(full_html):
    ids = re.findall(r'\sid="([^"]+)"', full_html)
    dupes = {i for i in ids if ids.count(i) > 1}
    assert not dupes


def test_at_risk_list_shows_indices_and_scores_never_values(full_html, audit, secret_value):
    assert str(secret_value) not in full_html
    rows = at_risk_rows(audit)
    assert rows == [("25093", "14"), ("4242", "9.25"), ("17", "3.5")]  # highest score first
    table = full_html[full_html.index('<table id="at-risk"') :]
    table = table[: table.index("</table>")]
    cells = re.findall(r'</th><td class="num">(\d+)</td><td class="num">([^<]+)</td>', table)
    assert cells == [("25093", "14"), ("4242", "9.25"), ("17", "3.5")]


def test_at_risk_refuses_shapes_nothing_writes_and_drops_junk(audit):
    """The audit writes {row, score} objects; pairs or bare indices are not an audit document."""
    for shape in ([[5, 0.5], [9, 0.9]], [3, 1]):
        with pytest.raises(DataError, match="audit is not a document synthcert writes"):
            at_risk_rows(dict(audit, at_risk=shape))
    unscored = [{"row": 9}, {"row": 5}]
    assert at_risk_rows(dict(audit, at_risk=unscored)) == [("9", "–"), ("5", "–")]
    junk = [{"row": "Alice"}, {"row": 2.5}, {"row": True}]
    assert at_risk_rows(dict(audit, at_risk=junk)) == []


def test_certificate_figures_are_recomputed_and_agree(certificate):
    from synthcert.privacy.budget import max_records_dp
    from synthcert.privacy.gaussian_release import certify

    c = certificate_curves(certificate)
    assert c.mismatch is None
    ref = certify(30162, 6, 0.02, certificate["claim"]["alpha"], n_out=2000)
    assert c.recomputed_epsilon_rdp == pytest.approx(ref.epsilon_rdp, rel=1e-12)
    assert c.recomputed_epsilon == pytest.approx(certificate["claim"]["epsilon"], rel=1e-9)
    # Mironov's conversion, by hand: ε = ε_RDP + log(1/δ)/(α−1)
    mir = next(r for r in c.conversions if r.conversion == "mironov")
    hand = ref.epsilon_rdp + math.log(1 / 1e-5) / (certificate["claim"]["alpha"] - 1)
    assert mir.epsilon_at_alpha == pytest.approx(hand, rel=1e-12)
    # the certificate's α minimises ε: no grid order does better (ckm)
    ckm = next(r for r in c.conversions if r.conversion == "ckm")
    assert ckm.best_epsilon >= certificate["claim"]["epsilon"] * (1 - 1e-9)
    # the budget line: without a budget the release's own ε; the rows it allows ≥ n_out
    assert c.budget_kind == "none" and c.budget_epsilon == certificate["claim"]["epsilon"]
    expect = max_records_dp(30162, 6, 0.02, certificate["claim"]["epsilon"], 1e-5).max_records
    assert c.max_records == expect and c.max_records >= 2000
    # ε grows with n_out along the curve, and the curve passes through the release (best α)
    assert np.all(np.diff(c.epsilon_vs_n_out) > 0)
    i = int(np.searchsorted(c.n_out_grid, 2000))
    assert c.epsilon_vs_n_out[i] == pytest.approx(certificate["claim"]["epsilon"], rel=1e-3)


def test_budget_from_certificate_is_the_line(make_cert):
    cert = make_cert(n_out=500)
    cert["budget"] = {"epsilon": 4.0, "delta": 1e-5}
    c = certificate_curves(cert)
    assert c.budget_kind == "dp" and c.budget_epsilon == 4.0
    eps = c.epsilon_vs_n_out
    # the grid curve (α on a grid: never below the true optimum) crosses 4 beyond max_records
    assert np.all(eps[c.n_out_grid <= c.max_records // 2] <= 4.0)
    assert np.all(eps[c.n_out_grid > c.max_records] > 4.0)


def test_tampered_certificate_is_flagged_not_drawn_as_right(certificate):
    bad = {
        **certificate,
        "claim": {**certificate["claim"], "epsilon": certificate["claim"]["epsilon"] / 2},
    }
    c = certificate_curves(bad)
    assert c.mismatch is not None and "recomputed" in c.mismatch
    html = render_report(bad)
    assert "Inconsistent certificate" in html


def test_bounded_certificate_renders(make_cert):
    cert = make_cert(n_out=100, neighboring="bounded", sigma=0.05)
    c = certificate_curves(cert)
    assert c.mismatch is None
    assert c.alpha < c.alpha_max


def test_certificate_without_theorem_inputs_has_no_curves():
    from synthcert.privacy.claims import dp_claim
    from synthcert.workflows.synthesize import SynthesisSummary

    claim = dp_claim(epsilon=1.0, delta=1e-6, rho=None, neighboring="unbounded", n_out=1000,
                     mechanisms=("laplace",), assumptions=())  # fmt: skip
    cert = SynthesisSummary("privbayes", {}, 1000, "out.csv", claim, "0.1.0", "2025-01-02")
    ctx = build_context(cert)
    assert ctx["certificate"]["figures"] == []
    assert "no curves" in ctx["certificate"]["note"]
    assert "(1, 1e-06)-differential privacy" in ctx["guarantee"]


def test_summary_states_guarantee_rows_and_assumption_sources(certificate):
    cert = dict(certificate, sigma_source="data", bounds_source="data")
    ctx = build_context(cert)
    assert "2,000" in dict(ctx["facts"])["Rows released"]
    assert f"({F.fmt(cert['claim']['epsilon'])}, 1e-05)-differential privacy" in ctx["guarantee"]
    sources = [a["source"] for a in ctx["assumptions"]]
    assert sources[:2] == ["taken from the data", "taken from the data"]
    assert ctx["warnings"] == certificate["claim"]["warnings"]


def test_audit_contradicting_certificate_raises_alarm(certificate, audit):
    bad = json.loads(json.dumps(audit))
    bad["attacks"]["statistics"]["epsilon_lower_bound"] = 20.0  # above the audited ε = 12.5
    verdict = audit_verdict(certificate, bad)
    assert verdict["level"] == "alarm" and "statistics" in verdict["text"]
    assert audit_verdict(certificate, audit)["level"] == "ok"
    # without the audited mechanism's own guarantee, the release certificate's ε is the bound
    no_priv = dict(bad, privacy=None)
    no_priv["attacks"]["statistics"]["epsilon_lower_bound"] = certificate["claim"]["epsilon"] * 0.9
    assert audit_verdict(certificate, no_priv)["level"] == "ok"
    no_priv["attacks"]["statistics"]["epsilon_lower_bound"] = certificate["claim"]["epsilon"] * 1.1
    assert audit_verdict(certificate, no_priv)["level"] == "alarm"


def test_no_alarm_from_a_null_or_unchecked_bound(certificate, audit):
    """Only valid bounds (independent runs, not null) may raise the alarm; the others say why."""
    null = json.loads(json.dumps(audit))
    for score in null["attacks"].values():
        score["epsilon_lower_bound"] = None
        score["epsilon_bound"].update(epsilon=None, reason="3 and 3 independent runs (one per "
                                      "fit) cannot show any ε > 0")  # fmt: skip
    verdict = audit_verdict(certificate, null)
    assert verdict["level"] == "ok" and "no valid ε lower bound" in verdict["text"]
    section = audit_section(null, certificate)
    assert any("3 and 3 independent runs" in n for n in section["notes"])
    assert all(row[-1] == "–" for row in section["attack_rows"])
    # a document written before the runs were checked (no unit) may hold an invalid 20
    old = json.loads(json.dumps(audit))
    old["attacks"]["statistics"]["epsilon_lower_bound"] = 20.0
    for score in old["attacks"].values():
        for key in ("unit", "runs_pos", "runs_neg", "tables_per_run", "family", "ceiling"):
            del score["epsilon_bound"][key]
        del score["epsilon_bound"]["reason"]
    assert audit_verdict(certificate, old)["level"] == "ok"
    notes = audit_section(old, certificate)["notes"]
    assert any("did not check that the runs are independent" in n for n in notes)
    html = render_report(certificate, audit=old, internal=True)
    assert "Alarm" not in html and "did not check" in html


def test_sections_say_what_is_missing(certificate):
    html = render_report(certificate)
    assert "No evaluation was supplied" in html and "No audit was supplied" in html
    with pytest.raises(DataError):
        render_report(None)


def test_correlation_difference_is_synthetic_minus_real(evaluation):
    diff = correlation_diff(evaluation)
    real = np.array(evaluation["correlation"]["real"])
    syn = np.array(evaluation["correlation"]["synthetic"])
    np.testing.assert_allclose(diff["matrix"], syn - real)
    two = {"columns": ["a", "b"], "real": [[1, 0], [0, 1]], "synthetic": [[1, 0.5], [0.5, 1]],
           "abs_diff": [[0, 0.5], [0.5, 0]], "mean": 0.5, "max": 0.5}  # fmt: skip
    explicit = dict(evaluation, correlation=two)
    assert correlation_diff(explicit)["matrix"][0][1] == 0.5


def test_marginal_specs_take_edges_and_categories_from_schema(evaluation):
    from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema

    schema = Schema(
        (
            NumericColumn("age", 17, 90),
            CategoricalColumn("sex", ("Female", "Male")),
        )
    )
    specs = marginal_specs(evaluation, schema)
    np.testing.assert_allclose(specs["age"]["bins"], np.linspace(17, 90, 21))
    assert specs["sex"]["categories"] == ["Female", "Male"]
    # without a schema: bin indices and generic category names, never a crash
    bare = marginal_specs(evaluation)
    assert bare["age"]["bins"] == list(range(21)) and bare["age"]["bin_index"]
    assert bare["native-country"]["categories"][0] == "category 1"


def test_same_inputs_same_bytes(certificate, full_html):
    prov = {"synthcert_version": "0.1.0", "command": "synthcert release x", "seed": 7,
            "created": "2025-01-02T03:04:05+00:00", "report_generated": "fixed"}  # fmt: skip
    a = render_report(certificate, None, None, prov)
    b = render_report(certificate, None, None, prov)
    assert a == b
    fig = full_html[full_html.index('<figure id="fig-alpha"') :]
    fig = fig[: fig.index("</figure>")]
    assert fig in a  # the figure does not depend on the other sections


def test_write_report_is_atomic_and_protects_inputs(tmp_path, certificate):
    cert_path = tmp_path / "cert.json"
    cert_path.write_text(json.dumps(certificate))
    out = write_report(tmp_path / "r.html", certificate=certificate)
    assert out.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert not list(tmp_path.glob(".*.tmp"))
    with pytest.raises(DataError):
        write_report(cert_path, certificate=certificate, protect=[cert_path])
    assert json.loads(cert_path.read_text()) == certificate


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(-5, 5), min_size=1, max_size=30),
    st.lists(st.integers(-5, 5), min_size=1, max_size=30),
)
def test_roc_auc_matches_mann_whitney(pos, neg):
    """AUC = P(pos > neg) + ½ P(pos = neg), computed pair by pair."""
    p, q = np.array(pos, float), np.array(neg, float)
    pairs = (p[:, None] > q[None, :]).mean() + 0.5 * (p[:, None] == q[None, :]).mean()
    assert auc(p, q) == pytest.approx(pairs, abs=1e-12)
    fpr, tpr, _ = roc_curve(p, q)
    assert fpr[0] == tpr[0] == 0 and fpr[-1] == tpr[-1] == 1
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)


def test_association_heat_map_says_association_everywhere():
    """Its accessible title, alt text and colour-bar label name the measure it shows."""
    m = [[0.0, 0.1, -0.2], [0.1, 0.0, 0.05], [-0.2, 0.05, 0.0]]
    f = F.correlation_figure(["a", "b", "c"], m, measure="association", fig_id="fig-assoc")
    assert f.id == "fig-assoc" and "fig-corr" not in f.svg
    assert f.alt.startswith("Heat map of association differences across 3 columns")
    assert "correlation" not in f.alt and "correlation" not in f.svg
    corr = F.correlation_figure(["a", "b", "c"], m)
    assert corr.id == "fig-corr" and "correlation differences" in corr.alt


def test_typed_results_and_their_json_give_the_same_page(certificate, evaluation, audit):
    """The report reads JSON through from_dict: a typed result and its document are one page."""
    from synthcert.audit.game import AuditResult
    from synthcert.utility.evaluate import UtilityEvaluation
    from synthcert.workflows.release import Certificate

    prov = {"synthcert_version": "0.1.0", "report_generated": "fixed"}
    typed = (
        Certificate.from_dict(certificate),
        UtilityEvaluation.from_dict(evaluation),
        AuditResult.from_dict(audit),
    )
    assert render_report(*typed, prov, internal=True) == render_report(
        certificate, evaluation, audit, prov, internal=True
    )


def test_audit_json_output_is_a_report_input_and_other_documents_are_refused(audit, certificate):
    """`synthcert audit --json` leaves the IMs out and lists its files: still an audit; a
    certificate given as the audit is refused with the field it lacks, not drawn half-empty."""
    printed = {k: v for k, v in audit.items() if k != "ims"} | {"files": {"result": "r.json"}}
    ctx = build_context(certificate, None, printed, internal=True)
    assert ctx["audit"]["present"] and ctx["audit"]["histograms"] == []
    assert [r[0] for r in ctx["audit"]["attack_rows"]] == ["statistics", "distance"]
    with pytest.raises(DataError, match="audit is not a document synthcert writes.*no field"):
        build_context(certificate, None, certificate, internal=True)
    with pytest.raises(DataError, match="certificate is not a document.*needs the field"):
        build_context({"synthesizer": "gaussian", "epsilon": 1.0})


def test_a_claim_that_is_no_guarantee_is_never_headlined_as_dp(tmp_path):
    """A new user's public report of a run with allow_data_domain=true opened with "(1,
    0)-differential privacy ... usually considered strong protection" while the terminal said
    "guarantee: none: the domain was read from the data". The headline, the strength note and
    the assumptions now follow the claim's guarantee and list every assumption it rests on."""
    from synthcert.data.datasets import make_demo_table
    from synthcert.data.infer import draft_schema
    from synthcert.workflows.job_inputs import Budget
    from synthcert.workflows.synthesize import synthesize

    table = make_demo_table(600, seed=1)
    path = tmp_path / "people.csv"
    table.to_csv(path, index=False)
    schema = draft_schema(table).require_schema()
    result = synthesize(path, schema, "privbayes", tmp_path / "o.csv", Budget(epsilon=1.0),
                        allow_data_domain=True, seed=3)  # fmt: skip
    assert not result.summary.claim.is_guarantee
    ctx = build_context(result.summary)
    assert ctx["guarantee"].startswith("No formal privacy guarantee is stated for this release")
    assert "the domain was read from the data" in ctx["guarantee"]
    assert "differential privacy" not in ctx["guarantee"] and ctx["strength"] is None
    rows = {a["what"].split(":")[0]: a for a in ctx["assumptions"]}
    assert rows["domain"]["source"] == "taken from the data" and rows["domain"]["ok"] == "no"
    html = render_report(result.summary)
    assert "considered strong protection" not in html
    assert "No formal privacy guarantee" in html


def test_the_report_lists_every_assumption_of_a_dp_claim(tmp_path):
    """A private_domain run's claim rests on the DP domain, its split and the flags' rule as
    well as the neighbouring relation: the public report listed only the last."""
    from synthcert.data.datasets import make_demo_table
    from synthcert.data.infer import draft_schema
    from synthcert.workflows.job_inputs import Budget
    from synthcert.workflows.synthesize import synthesize

    table = make_demo_table(3_000, seed=1)
    path = tmp_path / "people.csv"
    table.to_csv(path, index=False)
    schema = draft_schema(table).require_schema().with_public_kinds()
    result = synthesize(path, schema, "privbayes", tmp_path / "o.csv",
                        Budget(epsilon=1.0, delta=1e-6), private_domain=0.2, seed=3)  # fmt: skip
    ctx = build_context(result.summary)
    assert ctx["guarantee"].startswith("(1, 1e-06)-differential privacy")
    first, *rest = ctx["assumptions"]
    assert first["what"].startswith("Privacy is measured against replacing any one")
    names = [a["what"].split(":")[0] for a in rest]
    claimed = {a.name for a in result.summary.claim.assumptions} - {"neighboring"}
    assert set(names) == claimed and len(names) == len(claimed)
    sources = {a["what"].split(":")[0]: a["source"] for a in rest}
    assert sources["domain"] == "DP estimate" and sources["domain_split"] == "public rule"


def test_a_runs_record_alone_makes_an_internal_report_with_its_claim(tmp_path):
    """The tutorial's step 5 (`report --internal --evaluation ... --private-record ...`) wrote
    a page saying "No certificate was supplied. Synthesizer unknown": the run record now holds
    the run's public claim, which the report takes when no --certificate is given."""
    from typer.testing import CliRunner

    from synthcert.cli import app
    from synthcert.data.datasets import demo_schema, make_demo_table

    runner = CliRunner()
    make_demo_table(800, seed=2).to_csv(tmp_path / "people.csv", index=False)
    (tmp_path / "schema.json").write_text(demo_schema().to_json())
    res = runner.invoke(app, ["synthesize", str(tmp_path / "people.csv"), "--schema",
                              str(tmp_path / "schema.json"), "--synthesizer", "privbayes",
                              "--epsilon", "1", "--out", str(tmp_path / "syn.csv"),
                              "--private-dir", str(tmp_path / "private")])  # fmt: skip
    assert res.exit_code == 0, res.output
    record = tmp_path / "private" / "record.json"
    out = tmp_path / "internal.html"
    res = runner.invoke(app, ["report", "--internal", "--private-record", str(record),
                              "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    page = out.read_text(encoding="utf-8")
    assert "(1, 0)-differential privacy" in page and "No certificate was supplied" not in page
    assert "privbayes" in page
    res = runner.invoke(app, ["report", "--private-record", str(record), "--out", str(out)])
    assert res.exit_code == 2 and "--internal" in res.output  # never into a public report


def test_an_audit_labelled_with_its_settings_is_the_same_mechanism(certificate, audit):
    """The audit's result names its synthesizer with its settings ("privbayes (epsilon=1)"); a
    new user's internal report called that and the certificate's "privbayes" two different
    mechanisms. A different synthesizer still is one."""
    labelled = dict(json.loads(json.dumps(audit)), synthesizer="gaussian (epsilon=1)")
    assert audit_section(labelled, certificate)["mismatch"] is None
    other = dict(labelled, synthesizer="privbayes (epsilon=1)")
    assert "two different mechanisms" in audit_section(other, certificate)["mismatch"]
