"""`synthcert evaluate` and `synthcert reproduce utility` from the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from synthcert.cli import app
from synthcert.data.datasets import california_schema

runner = CliRunner()


@pytest.fixture(scope="module")
def files(tmp_path_factory, california):
    d = tmp_path_factory.mktemp("ev")
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(california))
    california.iloc[idx[:1500]].to_csv(d / "real.csv", index=False)
    fake = california.iloc[idx[1500:3000]].copy()
    fake["median_income"] = rng.permutation(fake["median_income"].to_numpy())
    fake.to_csv(d / "synth.csv", index=False)
    california.iloc[idx[3000:4000]].to_csv(d / "hold.csv", index=False)
    (d / "schema.json").write_text(california_schema().to_json())
    return d


def test_evaluate_json_and_out_folder(files):
    d = files
    res = runner.invoke(
        app,
        [
            "evaluate",
            str(d / "real.csv"),
            str(d / "synth.csv"),
            "--schema",
            str(d / "schema.json"),
            "--target",
            "median_house_value",
            "--holdout",
            str(d / "hold.csv"),
            "--out",
            str(d / "out"),
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert set(out["columns"]["median_income"]) >= {"l1", "l2", "hellinger", "wasserstein"}
    assert out["summary"]["correlation_abs_diff_max"] > 0.5  # income shuffled
    assert out["summary"]["l1_categorical_mean"] < 0.1
    eff = out["efficacy"]["median_house_value"]
    assert eff["synthetic"] > eff["real"]  # the model lost its best feature
    for name in (
        "evaluation.json",
        "columns.csv",
        "column_distances.png",
        "marginals.png",
        "correlation_difference.png",
        "association_difference.png",
    ):
        assert (d / "out" / name).is_file(), name
    assert json.loads((d / "out" / "evaluation.json").read_text())["summary"] == out["summary"]


def test_evaluate_table_output_and_errors(files):
    d = files
    args = [
        "evaluate",
        str(d / "real.csv"),
        str(d / "synth.csv"),
        "--schema",
        str(d / "schema.json"),
    ]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "Hellinger" in res.output and "correlation_abs_diff_mean" in res.output
    res = runner.invoke(app, [*args, "--target", "median_house_value"])
    assert res.exit_code == 2
    assert "held-out" in res.output


def test_reproduce_utility_tiny(tmp_path):
    res = runner.invoke(
        app,
        [
            "reproduce",
            "utility",
            "--dataset",
            "california",
            "--out",
            str(tmp_path),
            "--synthesizers",
            "gaussian",
            "--runs",
            "1",
            "--epsilons",
            "inf,1",
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert [c["synthesizer"] for c in out["cells"]] == ["gaussian"]
    assert out["cells"][0]["epsilon"] == "inf"
    assert (tmp_path / "fig4_9_efficacy.png").is_file()
    assert (tmp_path / "utility_table.csv").is_file()


def test_evaluate_on_dask_and_with_a_report(california, tmp_path):
    california.iloc[:3000].to_csv(tmp_path / "real.csv", index=False)
    california.iloc[3000:6000].to_csv(tmp_path / "syn.csv", index=False)
    (tmp_path / "s.json").write_text(california_schema().to_json())
    args = [
        "evaluate",
        str(tmp_path / "real.csv"),
        str(tmp_path / "syn.csv"),
        "--schema",
        str(tmp_path / "s.json"),
        "--json",
        "--binning",
        "public",  # a partitioned run has the public bins only
    ]
    local = runner.invoke(app, [*args, "--report", str(tmp_path / "r.html")])
    dask = runner.invoke(app, [*args, "--engine", "dask"])
    assert local.exit_code == 0, local.output
    assert dask.exit_code == 0, dask.output
    a, b = json.loads(local.stdout), json.loads(dask.stdout)
    for name, col in a["columns"].items():
        assert b["columns"][name]["l1"] == pytest.approx(col["l1"], abs=1e-12)
    assert "Utility" in (tmp_path / "r.html").read_text()
    refused = runner.invoke(app, [*args, "--engine", "dask", "--target", "median_house_value"])
    assert refused.exit_code == 2 and "use --engine local" in " ".join(refused.output.split())


def test_evaluate_reads_what_synthesize_wrote_from_a_semicolon_file(tmp_path):
    # a new user's table: ';'-separated, a UTF-8 BOM, Windows line endings, a date
    rng = np.random.default_rng(5)
    n = 400
    lines = [
        f"{rng.integers(18, 90)};{rng.choice(['yes', 'no'])};2021-01-{rng.integers(1, 29):02d}"
        for _ in range(n)
    ]
    path = tmp_path / "people.csv"
    path.write_bytes(("\ufeffage;smoker;visit\r\n" + "\r\n".join(lines) + "\r\n").encode("utf-8"))
    schema = tmp_path / "schema.json"
    res = runner.invoke(app, ["schema", "infer", str(path), "--sep", ";", "--out", str(schema)])
    assert res.exit_code == 0, res.output
    out = tmp_path / "public" / "synthetic.csv"
    res = runner.invoke(
        app,
        ["synthesize", str(path), "--schema", str(schema), "--synthesizer", "privbayes",
         "--out", str(out), "--private-dir", str(tmp_path / "private")],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["evaluate", str(path), str(out), "--schema", str(schema), "--json"])
    assert res.exit_code == 0, res.output
    assert set(json.loads(res.stdout)["columns"]) == {"age", "smoker", "visit"}
