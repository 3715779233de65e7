"""`synthcert synthesizers` and `synthcert synthesize`."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from synthcert.cli import app
from synthcert.data.datasets import adult_schema
from synthcert.workflows import synthesize as synthesize_workflow
from synthcert.workflows.synthesize import partitioned_input

runner = CliRunner()
SECRET = str(2**127 + 3)  # a reproducible run needs a secret, unguessable seed


def _json(args):
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def adult_files(adult, tmp_path_factory):
    folder = tmp_path_factory.mktemp("adult")
    adult.iloc[:4000].to_csv(folder / "adult.csv", index=False)
    (folder / "adult.schema.json").write_text(adult_schema().to_json())
    numeric = adult_schema(numeric_only=True)
    adult.iloc[:4000][numeric.names].to_csv(folder / "num.csv", index=False)
    (folder / "num.schema.json").write_text(numeric.to_json())
    return folder


def test_synthesizers_lists_the_registry():
    rows = _json(["synthesizers", "--json"])
    names = [r["name"] for r in rows]
    assert {"gaussian", "gaussian-copula", "privbayes"} <= set(names)
    assert all(set(r) == {"name", "privacy", "description"} for r in rows)
    res = runner.invoke(app, ["synthesizers"])
    assert res.exit_code == 0 and "privbayes" in res.stdout


@pytest.mark.parametrize("name", ["gaussian-copula", "privbayes"])
def test_synthesize_dp_reports_spent_budget(adult_files, tmp_path, name):
    out = tmp_path / "syn.csv"
    args = [
        "synthesize",
        str(adult_files / "adult.csv"),
        "--schema",
        str(adult_files / "adult.schema.json"),
        "--synthesizer",
        name,
        "--epsilon",
        "2",
        "--delta",
        "1e-5",
        "--n-out",
        "1e3",
        "--seed",
        SECRET,
        "--private-record",
        str(tmp_path / "private" / "run.json"),
        "--out",
        str(out),
        "--json",
    ]
    payload = _json(args)
    claim = payload["claim"]
    assert payload["rows_out"] == 1000 and claim["model"] == "pure-dp"
    assert (claim["epsilon"], claim["delta"], claim["neighboring"]) == (2.0, 0.0, "bounded")
    assert "rows_in" not in payload and "ledger" not in payload and SECRET not in str(payload)
    private = json.loads((tmp_path / "private" / "run.json").read_text())
    assert private["facts"]["spent"]["epsilon"] <= 2.0 + 1e-9 and len(private["ledger"]) > 1
    assert private["facts"]["rows_in"] == 4000 and private["seed_source"] == "user"
    syn = pd.read_csv(out)
    assert list(syn.columns) == adult_schema().names and len(syn) == 1000
    assert set(syn["sex"]) <= {"Female", "Male"}
    # same seed, same output
    out2 = tmp_path / "again.csv"
    _json([*args[:-5], "--out", str(out2), "--json"])
    assert out.read_bytes() == out2.read_bytes()


def test_synthesize_without_dp_and_gaussian_certificate(adult_files, tmp_path):
    payload = _json(
        [
            "synthesize",
            str(adult_files / "adult.csv"),
            "--schema",
            str(adult_files / "adult.schema.json"),
            "--synthesizer",
            "privbayes",
            "--param",
            "degree=1",
            "--out",
            str(tmp_path / "pb.parquet"),
            "--json",
        ]
    )
    assert payload["claim"]["model"] == "none" and payload["params"]["degree"] == 1
    assert len(pd.read_parquet(tmp_path / "pb.parquet")) == 4000
    cert = _json(
        [
            "synthesize",
            str(adult_files / "num.csv"),
            "--schema",
            str(adult_files / "num.schema.json"),
            "--synthesizer",
            "gaussian",
            "--n-out",
            "500",
            "--min-rows",
            "3000",
            "--param",
            "sigma=0.01",
            "--out",
            str(tmp_path / "g.csv"),
            "--json",
        ]
    )
    claim = cert["claim"]
    assert claim["model"] == "inherent-rdp" and claim["guarantee"] == "differential privacy"
    assert claim["n_out"] == 500 and claim["epsilon"] > 0
    assert {"name": "min_rows", "value": 3000} in [
        {k: a[k] for k in ("name", "value")} for a in claim["assumptions"]
    ]


def test_synthesize_refuses_clearly(adult_files, tmp_path):
    res = runner.invoke(
        app,
        [
            "synthesize",
            str(adult_files / "num.csv"),
            "--schema",
            str(adult_files / "num.schema.json"),
            "--synthesizer",
            "gaussian",
            "--epsilon",
            "1",
            "--out",
            str(tmp_path / "g.csv"),
        ],
    )
    assert res.exit_code == 2 and "takes no epsilon" in res.output
    res = runner.invoke(
        app,
        [
            "synthesize",
            str(adult_files / "num.csv"),
            "--schema",
            str(adult_files / "num.schema.json"),
            "--synthesizer",
            "nope",
            "--out",
            str(tmp_path / "x.csv"),
        ],
    )
    assert res.exit_code == 2 and "unknown synthesizer" in res.output
    src = adult_files / "num.csv"
    res = runner.invoke(
        app,
        [
            "synthesize",
            str(src),
            "--schema",
            str(adult_files / "num.schema.json"),
            "--synthesizer",
            "gaussian-copula",
            "--out",
            str(src),
        ],
    )
    assert res.exit_code != 0 and len(pd.read_csv(src)) == 4000  # the input is never overwritten


def test_gaussian_on_dask_equals_local_and_ctgan_refuses_dask(adult_files, tmp_path):
    base = [
        "synthesize",
        str(adult_files / "num.csv"),
        "--schema",
        str(adult_files / "num.schema.json"),
        "--synthesizer",
        "gaussian",
        "--seed",
        SECRET,
        "--min-rows",
        "4000",
        "--json",
    ]
    local = _json([*base, "--out", str(tmp_path / "l.csv")])
    dask = _json([*base, "--out", str(tmp_path / "d.csv"), "--engine", "dask"])
    assert dask["rows_out"] == local["rows_out"] == 4000
    assert dask["claim"] == local["claim"]
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "l.csv"), pd.read_csv(tmp_path / "d.csv"))
    res = runner.invoke(
        app,
        [
            "synthesize",
            str(adult_files / "adult.csv"),
            "--schema",
            str(adult_files / "adult.schema.json"),
            "--synthesizer",
            "ctgan",
            "--engine",
            "dask",
            "--out",
            str(tmp_path / "p.csv"),
        ],
    )
    text = " ".join(res.output.split())
    assert res.exit_code == 2 and "'ctgan' trains on rows in memory: use the local engine" in text
    assert not (tmp_path / "p.csv").exists()


def test_privbayes_on_a_parquet_folder_fits_from_counts_like_in_memory(
    adult, tmp_path, monkeypatch
):
    folder = tmp_path / "parts"
    folder.mkdir()
    rows = adult.iloc[:4000]
    rows.iloc[:2500].to_parquet(folder / "a.parquet", index=False, row_group_size=1000)
    rows.iloc[2500:].to_parquet(folder / "b.parquet", index=False, row_group_size=1000)
    rows.to_parquet(tmp_path / "one.parquet", index=False)  # one small file: fits in memory
    schema = tmp_path / "schema.json"
    schema.write_text(adult_schema().to_json())
    common = ["--schema", str(schema), "--synthesizer", "privbayes", "--epsilon", "2"]
    common += ["--n-out", "1e3", "--seed", SECRET, "--json"]
    counted = _json(
        ["synthesize", str(folder), *common, "--engine", "local", "--out", str(tmp_path / "c.csv")]
    )
    memory = _json(
        ["synthesize", str(tmp_path / "one.parquet"), *common, "--out", str(tmp_path / "m.csv")]
    )
    assert counted["rows_out"] == memory["rows_out"] == 1000
    assert counted["claim"] == memory["claim"]
    assert (tmp_path / "c.csv").read_bytes() == (tmp_path / "m.csv").read_bytes()
    # which path: a folder or a glob is counted; a single file only above 10^7 Parquet rows
    assert partitioned_input(str(folder)) and partitioned_input(str(folder / "*.parquet"))
    assert not partitioned_input(str(tmp_path / "one.parquet"))
    monkeypatch.setattr(synthesize_workflow, "IN_MEMORY_MAX_ROWS", 3999)
    assert partitioned_input(str(tmp_path / "one.parquet"))


def test_synthesize_writes_a_report_of_the_spent_budget(adult_files, tmp_path):
    res = runner.invoke(
        app,
        [
            "synthesize",
            str(adult_files / "adult.csv"),
            "--schema",
            str(adult_files / "adult.schema.json"),
            "--synthesizer",
            "privbayes",
            "--epsilon",
            "2",
            "--out",
            str(tmp_path / "p.csv"),
            "--report",
            str(tmp_path / "r.html"),
        ],
    )
    assert res.exit_code == 0, res.output
    html = (tmp_path / "r.html").read_text()
    assert "privbayes" in html and "<html" in html


def test_synthesize_to_a_folder_writes_a_partitioned_dataset(adult, tmp_path):
    from synthcert.engine import read_manifest

    data = tmp_path / "adult.parquet"
    adult.iloc[:3000].to_parquet(data, index=False)
    schema = tmp_path / "schema.json"
    schema.write_text(adult_schema().to_json())
    args = ["synthesize", str(data), "--schema", str(schema), "--synthesizer", "privbayes"]
    args += ["--epsilon", "1", "--n-out", "5e3", "--json"]
    doc = _json([*args, "--out", f"{tmp_path / 'syn'}/"])
    manifest = read_manifest(tmp_path / "syn")
    assert doc["rows_out"] == manifest.rows == 5_000
    assert "seed" not in (tmp_path / "syn" / "_manifest.json").read_text()
    assert [p.rows for p in manifest.parts] == [5_000]
    out = pd.read_parquet(tmp_path / "syn")
    assert len(out) == 5_000 and set(out["sex"]) <= {"Female", "Male"}
    assert not list((tmp_path).glob(".syn*"))  # no temporary folder left behind


def test_dp_on_an_inferred_schema_is_refused_naming_the_columns(adult_files, tmp_path):
    """A domain read from the data is not protected: refuse, name the columns, offer two ways."""
    inferred = runner.invoke(app, ["schema", "infer", str(adult_files / "num.csv")])
    assert inferred.exit_code == 0, inferred.output
    (tmp_path / "inferred.json").write_text(inferred.stdout)
    args = ["synthesize", str(adult_files / "num.csv"), "--schema", str(tmp_path / "inferred.json")]
    args += ["--synthesizer", "privbayes", "--epsilon", "1", "--out", str(tmp_path / "p.csv")]
    res = runner.invoke(app, args)
    text = " ".join(res.output.split())
    assert res.exit_code == 2 and not (tmp_path / "p.csv").exists()
    assert "the schema was read from the data" in text
    assert "age (bounds, nullable, integer, kind); fnlwgt (bounds" in text
    assert "--public-kinds" in text
    assert '"source": "public"' in text and "--param allow_data_domain=true" in text
    allowed = _json([*args, "--param", "allow_data_domain=true", "--json"])
    claim = allowed["claim"]
    assert claim["guarantee"] == "none: the domain was read from the data"
    assert {"name": "domain", "source": "data"} in [
        {k: a[k] for k in ("name", "source")} for a in claim["assumptions"]
    ]


def test_the_measured_sigma_warning_names_a_flag_each_command_has():
    """The claim of M_G with sigma measured on the data tells how to declare a public one:
    a new user ran `synthesize --sigma` as the old text said and got "No such option"."""
    from synthcert.synthesizers.gaussian import SIGMA_DATA_WARNING

    assert "synthesize --param sigma=VALUE" in SIGMA_DATA_WARNING
    assert "release --sigma VALUE" in SIGMA_DATA_WARNING
    release_help = " ".join(runner.invoke(app, ["release", "--help"]).output.split())
    synthesize_help = " ".join(runner.invoke(app, ["synthesize", "--help"]).output.split())
    assert "--sigma" in release_help and "--param" in synthesize_help
    assert "sigma" in synthesize_help


def test_a_budget_given_as_a_param_is_refused_cleanly(tmp_path):
    """`--param epsilon=1` ended in a traceback (a keyword given twice); it is a refusal that
    names the flag to use, before any row is read."""
    from synthcert.data.schema import CategoricalColumn, Schema

    schema = Schema((CategoricalColumn("a", ("x", "y")),))
    (tmp_path / "s.json").write_text(schema.to_json())
    (tmp_path / "t.csv").write_text("a\nx\ny\n")
    args = ["synthesize", str(tmp_path / "t.csv"), "--schema", str(tmp_path / "s.json"),
            "--synthesizer", "privbayes", "--out", str(tmp_path / "o.csv")]  # fmt: skip
    for extra in (["--param", "epsilon=1"], ["--epsilon", "1", "--param", "delta=1e-6"]):
        res = runner.invoke(app, [*args, *extra])
        text = " ".join(res.output.split())
        assert res.exit_code == 2 and "not a synthesizer parameter" in text, text
        assert "Traceback" not in text and not (tmp_path / "o.csv").exists()


def test_synthesizers_params_lists_what_param_accepts_and_a_typo_names_them(tmp_path):
    """A new user could not find a synthesizer's parameters from the command line, and a typo
    in --param did not say which names exist."""
    res = runner.invoke(app, ["synthesizers", "--params", "--json"])
    assert res.exit_code == 0, res.output
    rows = {row["name"]: row["parameters"] for row in json.loads(res.stdout)}
    assert rows["privbayes"]["theta"] == 4.0 and rows["privbayes"]["bins"] == 20
    assert "schema" not in rows["aim"] and "epsilon" not in rows["aim"]
    shown = " ".join(runner.invoke(app, ["synthesizers", "--params"]).output.split())
    assert "theta=4.0" in shown
    from synthcert.data.datasets import demo_schema, make_demo_table

    make_demo_table(300, seed=1).to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "s.json").write_text(demo_schema().to_json())
    res = runner.invoke(app, ["synthesize", str(tmp_path / "t.csv"), "--schema",
                              str(tmp_path / "s.json"), "--synthesizer", "privbayes",
                              "--param", "thetaa=3", "--out", str(tmp_path / "o.csv")])  # fmt: skip
    text = " ".join(res.output.split())
    assert res.exit_code == 2 and "no parameter(s) ['thetaa']" in text
    assert "its parameters are degree, structure_share" in text and "theta" in text


@pytest.mark.parametrize(
    ("name", "extra", "why"),
    [
        ("privbayes", ["--epsilon", "1"], "privbayes is DP under replace-one neighbours"),
        ("gaussian-copula", [], "without DP no table size is hidden"),
        ("aim", ["--epsilon", "1", "--param", "rounds=15", "--param", "pgm_iters=20"], None),
    ],
)
def test_a_min_rows_the_run_does_not_use_is_said(adult_files, tmp_path, name, extra, why):
    """A new user passed --min-rows 6000 to privbayes to hide n and got n rows with no word:
    under replace-one neighbours (and without DP) n is public and released. The note says so;
    AIM (add/remove neighbours) releases --min-rows rows and prints no note."""
    res = runner.invoke(
        app,
        [
            "synthesize", str(adult_files / "num.csv"), "--schema",
            str(adult_files / "num.schema.json"), "--synthesizer", name, *extra,
            "--min-rows", "3000", "--out", str(tmp_path / "s.csv"),
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    rows = len(pd.read_csv(tmp_path / "s.csv"))
    if why is None:
        assert "--min-rows is not used" not in res.stderr and rows == 3000
    else:
        assert f"--min-rows is not used: {why}" in " ".join(res.stderr.split())
        assert rows == 4000
