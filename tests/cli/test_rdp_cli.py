"""`synthcert account`, `budget`, `verify-bound`, `reproduce rdp` on the command line."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from synthcert.cli import app

runner = CliRunner()

KEYS = {
    "neighboring",
    "n",
    "d",
    "sigma",
    "alpha",
    "n_out",
    "epsilon_rdp",
    "epsilon_rdp_per_record",
    "delta",
    "epsilon",
    "conversion",
    "feasible",
    "reason",
}


def _json(args):
    res = runner.invoke(app, args)
    return res, json.loads(res.stdout) if res.stdout.strip().startswith("{") else None


def test_account_table1_value():
    res, out = _json(
        ["account", "--n", "1e7", "--d", "6", "--sigma", "0.01", "--alpha", "4", "--json"]
    )
    assert res.exit_code == 0
    assert set(out) >= KEYS
    assert round(out["epsilon_rdp"], 4) == 0.5765 and out["n_out"] == 10**7
    assert out["delta"] is None and out["epsilon"] is None and out["conversion"] is None


def test_account_optimises_alpha_with_delta():
    res, out = _json(
        [
            "account",
            "--n",
            "1e7",
            "--d",
            "6",
            "--sigma",
            "0.01",
            "--delta",
            "1e-14",
            "--conversion",
            "mironov",
            "--neighboring",
            "bounded",
            "--method",
            "corollary",
            "--json",
        ]
    )
    assert res.exit_code == 0
    assert round(out["epsilon"], 2) == 9.21  # thesis §5.5.4
    assert out["conversion"] == "mironov" and 7 < out["alpha"] < 10


def test_account_needs_alpha_or_delta():
    res = runner.invoke(app, ["account", "--n", "1e7", "--d", "6", "--sigma", "0.01"])
    assert res.exit_code == 2
    assert "delta" in res.output


def test_account_refuses_with_the_assumption():
    res, out = _json(
        [
            "account",
            "--n",
            "1e4",
            "--d",
            "6",
            "--sigma",
            "0.01",
            "--alpha",
            "4",
            "--neighboring",
            "bounded",
            "--method",
            "corollary",
            "--json",
        ]
    )
    assert res.exit_code == 2
    assert out["feasible"] is False and "eq. (2)" in out["reason"]
    res = runner.invoke(
        app, ["account", "--n", "1e4", "--d", "6", "--sigma", "0.01", "--alpha", "9"]
    )
    assert res.exit_code == 2 and "eq. (1)" in res.output


def test_account_n_out():
    _res, out = _json(
        [
            "account",
            "--n",
            "1e6",
            "--d",
            "6",
            "--sigma",
            "0.01",
            "--alpha",
            "4",
            "--n-out",
            "1e3",
            "--json",
        ]
    )
    assert out["n_out"] == 1000
    assert out["epsilon_rdp"] == 1000 * out["epsilon_rdp_per_record"]


def test_budget_rdp_and_dp():
    res, out = _json(
        [
            "budget",
            "--n",
            "1e6",
            "--d",
            "6",
            "--sigma",
            "0.01",
            "--alpha",
            "4",
            "--epsilon-rdp",
            "1",
            "--json",
        ]
    )
    assert res.exit_code == 0 and out["max_records"] == 172222 and out["alpha"] == 4.0
    res, out = _json(
        [
            "budget",
            "--n",
            "1e6",
            "--d",
            "6",
            "--sigma",
            "0.01",
            "--epsilon",
            "1",
            "--delta",
            "1e-6",
            "--json",
        ]
    )
    assert res.exit_code == 0 and out["max_records"] > 0 and out["alpha"] > 1
    res = runner.invoke(app, ["budget", "--n", "1e6", "--d", "6", "--sigma", "0.01"])
    assert res.exit_code == 2


def test_verify_bound_small():
    res, out = _json(["verify-bound", "--n", "300", "--d", "2", "--no-optimise", "--json"])
    assert res.exit_code == 0
    assert out["sound"] is True and out["cases"] > 10


def test_reproduce_rdp_tables(tmp_path):
    res, out = _json(["reproduce", "rdp", "--out", str(tmp_path), "--no-figures", "--json"])
    assert res.exit_code == 0
    assert out["compared"] == 152 and (tmp_path / "summary.md").is_file()


def _bounded_account(method: str | None):
    args = ["account", "--neighboring", "bounded", "--n", "1e7", "--d", "6", "--sigma", "0.01"]
    args += ["--alpha", "4", "--json"]
    if method is not None:
        args += ["--method", method]
    return _json(args)


def test_account_bounded_exact_is_the_issue_figure_and_the_default():
    res, out = _bounded_account("exact")
    assert res.exit_code == 0, res.output
    assert abs(out["epsilon_rdp"] / 1.153 - 1) < 0.005
    assert out["method"] == "exact" and "branch-and-bound" in out["equation"]
    _res, default = _bounded_account(None)
    assert default["epsilon_rdp"] == out["epsilon_rdp"]
    _res, cor = _bounded_account("corollary")
    assert round(cor["epsilon_rdp"], 4) == 2.3071 and cor["method"] == "corollary"
    assert cor["alpha_max"] < out["alpha_max"] / 1.9


def test_account_rejects_an_unknown_method():
    res, _out = _bounded_account("guess")
    assert res.exit_code == 2 and "--method" in res.output


def test_budget_takes_the_method():
    base = ["budget", "--n", "1e7", "--d", "6", "--sigma", "0.01", "--alpha", "4"]
    base += ["--epsilon-rdp", "1", "--neighboring", "bounded", "--json"]
    _res, exact = _json(base)
    _res, cor = _json([*base, "--method", "corollary"])
    assert cor["max_records"] == 4334370  # thesis Table 5.2, floored
    assert exact["max_records"] == 8673312  # floor(1/ε) of the exact bound
    assert exact["epsilon_spent"] <= 1.0
