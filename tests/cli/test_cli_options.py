"""The smaller command line (issue 28): at most 11 options on ``release`` and ``synthesize``,
``--private-dir`` for every private output, CSV reading in the schema, ``--param`` for rare
settings, deprecated aliases, the ``privacy`` group, and ``claim`` in every ``--json``."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pandas as pd
import pytest
import typer.main
from typer.testing import CliRunner

from synthcert.cli import app
from synthcert.data.datasets import demo_schema, make_demo_table
from synthcert.data.io import write_table
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import DataError
from synthcert.privacy.claims import PrivacyClaim
from synthcert.synthesizers.registry import REGISTRY

runner = CliRunner()
PUBLIC = ["--sigma", "0.015", "--min-rows", "20000"]  # the demo generator's public facts
CLAIM_KEYS = set(PrivacyClaim(model="none", guarantee="none", neighboring="none").to_dict())


def visible_options(*path: str) -> list[str]:
    """The options ``--help`` lists for a command (hidden aliases left out)."""
    command = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]  # type: ignore[attr-defined]
    params = command.get_params(command.context_class(command))
    return [p.opts[0] for p in params if p.param_type_name == "option" and not p.hidden]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli28")
    write_table(make_demo_table(20_000, seed=2), root / "in.csv")
    (root / "schema.json").write_text(demo_schema().to_json())
    return root


def release(files: Path, out: Path, *extra: str):
    args = ["release", str(files / "in.csv"), "--schema", str(files / "schema.json")]
    return runner.invoke(app, [*args, "--out", str(out), *PUBLIC, *extra])


# -- at most 15 options, the ledger's and the audit gate's included (issues 28 and 29) --------
@pytest.mark.parametrize("command", ["release", "synthesize"])
def test_release_and_synthesize_list_at_most_fifteen_options(command):
    shown = visible_options(command)
    assert len(shown) <= 15, shown
    assert {"--help", "--json", "--private-dir", "--report", "--param", "--out"} <= set(shown)
    for gone in ("--private-record", "--internal-report", "--show-private", "--sep",
                 "--no-header", "--na-value", "--encoding", "--scheduler", "--conversion",
                 "--alpha", "--workers", "--chunk-rows", "--partition-rows"):  # fmt: skip
        assert gone not in shown


def test_help_reads_well_at_80_columns():
    """Docstrings are reflowed: no hard line break inside a paragraph of any command's help."""
    res = runner.invoke(app, ["synthesize", "--help"], terminal_width=80)
    assert res.exit_code == 0
    command = typer.main.get_command(app).commands["synthesize"]  # type: ignore[attr-defined]
    for paragraph in command.help.split("\n\n"):
        assert "\n" not in paragraph, paragraph
    # the sentence the docstring broke after "ledger" now reads on: its words are in one line
    assert "ledger never exceeds" in " ".join(res.stdout.split())


# -- --private-dir ----------------------------------------------------------------------------
def test_private_dir_holds_the_record_and_the_internal_report(files, tmp_path):
    pub, priv = tmp_path / "pub", tmp_path / "priv"
    pub.mkdir()
    res = release(files, pub / "o.csv", "--param", "n_out=50", "--report", str(pub / "r.html"),
                  "--private-dir", str(priv), "--param", "save_params=true")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in priv.iterdir()) == [
        "internal-report.html",
        "params.npz",
        "record.json",
    ]
    for path in priv.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE(priv.stat().st_mode) == 0o700
    record = json.loads((priv / "record.json").read_text())
    assert record["facts"]["rows_used"] == 20_000
    assert sorted(p.name for p in pub.iterdir()) == ["o.certificate.json", "o.csv", "r.html"]


@pytest.mark.parametrize("where", ["same", "inside", "beside"])
def test_private_dir_is_refused_where_it_would_be_published(files, tmp_path, where):
    out = tmp_path / "pub" / "rows/"  # a partitioned output folder
    target = {"same": out, "inside": out / "private", "beside": tmp_path / "pub"}[where]
    res = release(files, Path(str(out) + "/"), "--param", "n_out=50", "--private-dir", str(target))
    assert res.exit_code == 2, res.output
    assert "--private-dir" in res.output
    assert not (tmp_path / "pub").exists() or not any((tmp_path / "pub").rglob("*.json"))


def test_save_params_needs_a_private_dir(files, tmp_path):
    res = release(files, tmp_path / "o.csv", "--param", "save_params=true")
    assert res.exit_code == 2 and "--private-dir" in res.output


def test_unknown_release_param_is_refused(files, tmp_path):
    res = release(files, tmp_path / "o.csv", "--param", "degree=2")
    assert res.exit_code == 2 and "degree" in res.output


# -- deprecated aliases -----------------------------------------------------------------------
def test_old_flags_still_work_and_print_a_note_without_data(files, tmp_path):
    seed = "12345678901234"
    old_record = str(tmp_path / "priv" / "run.json")
    old = release(files, tmp_path / "a.csv", "--n-out", "77", "--seed", seed,
                  "--private-record", old_record, "--json")  # fmt: skip
    new = release(files, tmp_path / "b.csv", "--param", "n_out=77", "--param", f"seed={seed}",
                  "--private-dir", str(tmp_path / "priv2"), "--json")  # fmt: skip
    assert old.exit_code == new.exit_code == 0, (old.output, new.output)
    for flag in ("--n-out", "--seed", "--private-record"):
        assert f"note: {flag} is deprecated" in old.stderr
    assert "77" not in old.stderr and "12345678901234" not in old.stderr  # no value echoed
    assert "deprecated" not in new.stderr
    # same seed, same rows: the alias is the same setting
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    assert json.loads(old.stdout) == json.loads(new.stdout)


def test_flag_and_param_for_one_setting_are_refused(files, tmp_path):
    res = release(files, tmp_path / "o.csv", "--n-out", "7", "--param", "n_out=8")
    assert res.exit_code == 2 and "give it once" in res.output


# -- CSV reading in the schema ----------------------------------------------------------------
def test_schema_csv_section_reads_a_semicolon_latin1_file(files, tmp_path):
    table = make_demo_table(20_000, seed=2)
    table.to_csv(tmp_path / "in.csv", sep=";", index=False, header=False, encoding="latin-1")
    doc = json.loads(demo_schema().to_json())
    doc["csv"] = {"sep": ";", "header": False, "encoding": "latin-1"}
    (tmp_path / "schema.json").write_text(json.dumps(doc))
    args = ["release", str(tmp_path / "in.csv"), "--schema", str(tmp_path / "schema.json")]
    seeded = ["--param", "n_out=40", "--param", "seed=98765432109876", "--json"]
    res = runner.invoke(app, [*args, "--out", str(tmp_path / "a.csv"), *PUBLIC, *seeded])
    ref = release(files, tmp_path / "b.csv", *seeded)
    assert res.exit_code == ref.exit_code == 0, res.output
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


@pytest.mark.parametrize(
    "section, message",
    [
        ({"delimiter": ";"}, "unknown key"),
        ({"sep": 1}, "must be text"),
        ({"sep": ""}, "at least one character"),
        ({"header": "no"}, "true or false"),
        ({"encoding": "klingon"}, "not a known encoding"),
        ({"na_values": "?"}, "JSON list"),
        ({"skip_rows": -1}, "whole number"),
        ([], "JSON object"),
    ],
)
def test_malformed_csv_section_is_refused(section, message):
    doc = {"columns": [{"name": "x", "kind": "numeric", "lower": 0, "upper": 1}], "csv": section}
    with pytest.raises(DataError, match=message):
        Schema.from_dict(doc)


def test_csv_section_round_trips_and_defaults_are_not_written():
    schema = Schema.from_dict(
        {"columns": [{"name": "x", "kind": "numeric", "lower": 0, "upper": 1}],
         "csv": {"sep": "\t", "na_values": ["-"], "skip_rows": 2}}
    )  # fmt: skip
    again = Schema.from_dict(json.loads(schema.to_json()))
    assert again == schema and json.loads(schema.to_json())["csv"] == {
        "sep": "\t", "na_values": ["-"], "skip_rows": 2
    }  # fmt: skip
    plain = Schema((NumericColumn("x", 0, 1),))
    assert "csv" not in json.loads(plain.to_json())


def test_evaluate_reads_the_encoding_from_the_schema(tmp_path):
    schema = Schema((CategoricalColumn("city", ("Zürich", "Genève")), NumericColumn("x", 0, 1)))
    doc = json.loads(schema.to_json())
    doc["csv"] = {"encoding": "latin-1"}
    (tmp_path / "schema.json").write_text(json.dumps(doc))
    frame = pd.DataFrame({"city": ["Zürich", "Genève"] * 50, "x": [0.2, 0.7] * 50})
    for name in ("real.csv", "synth.csv"):
        frame.to_csv(tmp_path / name, index=False, encoding="latin-1")
    res = runner.invoke(app, ["evaluate", str(tmp_path / "real.csv"), str(tmp_path / "synth.csv"),
                              "--schema", str(tmp_path / "schema.json"), "--json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["columns"]["city"]["l1"] == 0.0


def test_schema_infer_writes_its_csv_options_to_the_draft(tmp_path):
    pd.DataFrame({"a": [1, 2, 3] * 10, "b": list("xyz") * 10}).to_csv(
        tmp_path / "t.csv", sep=";", index=False
    )
    res = runner.invoke(app, ["schema", "infer", str(tmp_path / "t.csv"), "--sep", ";"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["csv"] == {"sep": ";"}


# -- the privacy group ------------------------------------------------------------------------
ACCOUNT = ["--n", "1e7", "--d", "6", "--sigma", "0.01", "--alpha", "4", "--json"]


def test_privacy_group_and_the_old_names_as_hidden_aliases():
    new = runner.invoke(app, ["privacy", "account", *ACCOUNT])
    old = runner.invoke(app, ["account", *ACCOUNT])
    assert new.exit_code == old.exit_code == 0
    assert json.loads(new.stdout) == json.loads(old.stdout)
    assert "deprecated" in old.stderr and "synthcert privacy account" in old.stderr
    top = runner.invoke(app, ["--help"], terminal_width=200).stdout
    assert "privacy" in top
    for name in ("account-univariate", "verify-bound", "budget"):
        assert f" {name} " not in top
    listed = runner.invoke(app, ["privacy", "--help"], terminal_width=200).stdout
    for name in ("account", "budget", "verify-bound", "account-univariate"):
        assert name in listed


# -- claim in every --json --------------------------------------------------------------------
def claim_of(stdout: str) -> dict:
    payload = json.loads(stdout)
    claim = payload["claim"]
    assert set(claim) == CLAIM_KEYS, set(claim) ^ CLAIM_KEYS
    assert PrivacyClaim.from_dict(claim).to_dict() == claim
    return claim


def test_release_json_carries_its_claim(files, tmp_path):
    res = release(files, tmp_path / "o.csv", "--epsilon", "8", "--delta", "1e-9", "--json")
    assert res.exit_code == 0, res.output
    claim = claim_of(res.stdout)
    cert = json.loads(res.stdout)
    assert claim["model"] == "inherent-rdp" and claim == cert["claim"] and claim["epsilon"] <= 8


@pytest.mark.parametrize(
    "args",
    [
        ["privacy", "account", *ACCOUNT],
        ["privacy", "account", "--n", "1e7", "--d", "6", "--sigma", "0.01", "--delta", "1e-9",
         "--json"],
        ["privacy", "budget", "--n", "1e6", "--d", "6", "--sigma", "0.01", "--alpha", "4",
         "--epsilon-rdp", "1", "--json"],
        ["privacy", "account-univariate", "--bound", "4", "--n", "1000", "--n-syn", "15625",
         "--sigma", "1", "--json"],
    ],
)  # fmt: skip
def test_data_free_json_carries_its_claim(args):
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    claim = claim_of(res.stdout)
    assert claim["guarantee"] == "differential privacy"
    payload = json.loads(res.stdout)
    if args[1] == "account":
        assert claim["epsilon_rdp"] == payload["epsilon_rdp"]
        assert claim["alpha"] == payload["alpha"]
    if args[1] == "budget":  # the claim of the largest release the budget allows
        assert claim["n_out"] == payload["max_records"] == 172_222
        assert claim["epsilon_rdp"] <= 1.0
    if args[1] == "account-univariate":
        assert claim["rho"] == payload["rho"] == pytest.approx(0.5)


TINY = {  # fast settings for a table of 300 rows
    "gaussian": ["--param", "ridge=1", "--param", "neighboring=bounded"],
    "mwem-pgm": ["--param", "rounds=2", "--param", "pgm_iters=20"],
    "aim": ["--param", "rounds=4", "--param", "pgm_iters=20"],
    "ctgan": ["--param", "epochs=1", "--param", "batch_size=100", "--param", "embedding_dim=8"],
}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_synthesize_json_carries_its_claim_for_every_synthesizer(tmp_path, name):
    if name == "ctgan":
        pytest.importorskip("torch")
    rng = __import__("numpy").random.default_rng(0)
    frame = pd.DataFrame(
        {"x": rng.uniform(0, 1, 300).round(3), "c": rng.choice(["a", "b", "c"], 300)}
    )
    frame.to_csv(tmp_path / "t.csv", index=False)
    schema = Schema((NumericColumn("x", 0, 1), CategoricalColumn("c", ("a", "b", "c"))))
    (tmp_path / "s.json").write_text(schema.to_json())
    dp = [] if name == "gaussian" else ["--epsilon", "1", "--delta", "1e-6"]
    res = runner.invoke(
        app,
        ["synthesize", str(tmp_path / "t.csv"), "--schema", str(tmp_path / "s.json"),
         "--synthesizer", name, "--out", str(tmp_path / "o.csv"), "--min-rows", "300",
         "--param", "n_out=20", *dp, *TINY.get(name, []), "--json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    claim = claim_of(res.stdout)
    assert claim["n_out"] == 20
    if name != "gaussian":
        assert claim["epsilon"] == 1.0 and claim["guarantee"] == "differential privacy"
    else:
        assert claim["model"] == "inherent-rdp"
    assert os.path.getsize(tmp_path / "o.csv") > 0


def test_a_refusal_writes_its_private_detail_to_the_private_dir(files, tmp_path):
    table = make_demo_table(20_000, seed=2)
    column = demo_schema().names[0]
    table[column] = table[column].astype(object)
    table.loc[123, column] = None  # one missing value in a column that is not nullable
    write_table(table, tmp_path / "in.csv")
    (tmp_path / "schema.json").write_text(demo_schema().to_json())
    args = ["release", str(tmp_path / "in.csv"), "--schema", str(tmp_path / "schema.json")]
    priv = tmp_path / "priv"
    res = runner.invoke(app, [*args, "--out", str(tmp_path / "pub" / "o.csv"), *PUBLIC,
                              "--param", "missing=fail", "--private-dir", str(priv)])  # fmt: skip
    assert res.exit_code == 2, res.output
    assert "row 123" not in res.output  # the console names no row
    detail = json.loads((priv / "error.json").read_text())
    assert "row 123" in detail["detail"] and detail["error"] in " ".join(res.output.split())
    assert stat.S_IMODE((priv / "error.json").stat().st_mode) == 0o600
    assert "--private-dir DIR" not in res.output  # written: no hint
    # without the folder, the console says where the details would go (a fixed line: every
    # raising site sets a detail or never does, so it follows the public message)
    res = runner.invoke(app, [*args, "--out", str(tmp_path / "pub" / "o.csv"), *PUBLIC,
                              "--param", "missing=fail"])  # fmt: skip
    assert res.exit_code == 2 and "row 123" not in res.output
    assert "rerun with --private-dir DIR" in " ".join(res.output.split())
