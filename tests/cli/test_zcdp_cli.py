"""`synthcert account-univariate` and `synthcert reproduce neunhoeffler`."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from synthcert.cli import app

runner = CliRunner()


def _json(args):
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_account_univariate_plugin_json():
    out = _json(
        [
            "account-univariate",
            "--bound",
            "4",
            "--n",
            "1e3",
            "--n-syn",
            "15625",
            "--sigma",
            "1",
            "--conversion",
            "bun-steinke",
            "--json",
        ]
    )
    assert {"rho", "epsilon", "delta", "accounting"} <= set(out)
    assert out["rho"] == pytest.approx(0.5)
    assert out["epsilon"] == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e6)))
    assert out["delta"] == 1e-6 and out["accounting"] == "plug-in"


def test_account_univariate_bayesian_reports_the_rule():
    out = _json(
        [
            "account-univariate",
            "--bound",
            "4",
            "--n",
            "1000",
            "--n-syn",
            "15625",
            "--sigma",
            "1",
            "--bayesian",
            "--m",
            "2",
            "--json",
        ]
    )
    assert out["accounting"] == "joint"
    comps = out["components"]
    assert comps["rho_post_processing"] == pytest.approx(2 * 0.032)
    assert out["rho"] == pytest.approx(min(v for k, v in comps.items() if k.startswith("rho_")))


def test_account_univariate_unknown_variance():
    out = _json(
        [
            "account-univariate",
            "--bound",
            "4",
            "--n",
            "1000",
            "--n-syn",
            "100",
            "--sigma-lower",
            "1",
            "--delta",
            "1e-6",
            "--json",
        ]
    )
    assert out["delta"] == 1e-6 and out["epsilon"] > out["components"]["epsilon_mean"]


def test_account_univariate_table_and_errors():
    res = runner.invoke(
        app, ["account-univariate", "--bound", "4", "--n", "1000", "--n-syn", "10", "--sigma", "1"]
    )
    assert res.exit_code == 0 and "rho" in res.stdout
    both = runner.invoke(
        app,
        [
            "account-univariate",
            "--bound",
            "4",
            "--n",
            "1000",
            "--n-syn",
            "10",
            "--sigma",
            "1",
            "--sigma-lower",
            "1",
        ],
    )
    assert both.exit_code == 2
    bad = runner.invoke(
        app,
        [
            "account-univariate",
            "--bound",
            "4",
            "--n",
            "1000",
            "--n-syn",
            "10",
            "--sigma-lower",
            "1",
            "--bayesian",
        ],
    )
    assert bad.exit_code == 2 and "Bayesian" in bad.output


def test_reproduce_neunhoeffler(tmp_path):
    out = _json(
        ["reproduce", "neunhoeffler", "--out", str(tmp_path), "--repetitions", "300", "--json"]
    )
    assert out["figure1"]["n_syn"] == 15625
    assert (tmp_path / "neunhoeffler_figure1.png").is_file()
