"""Schema flags under DP (issue 25, finding 1).

``schema infer`` sets ``nullable`` when a column has a missing value and ``integer`` when every
value is whole. Before this fix ``--private-domain`` rewrote bounds and category lists only, so
on D (1,500 rows, whole ages) every synthetic age was whole, while on D' (one age blanked, or
one age 37.5) none was and some were missing (an event of probability 0 under D), under a
claim of (8, 1e-6)-DP. The flags are now marked ``"nullable_source"``/``"integer_source":
"data"`` and get a public rule under ``--private-domain`` (nullable, not integer); without it
they are refused like data-derived bounds, or void the guarantee.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthcert.data.infer import draft_schema
from synthcert.data.schema import NumericColumn, Schema
from synthcert.privacy.domain import estimate_domain, flag_rule, plan_budget
from test_publication_boundary import base_table, invoke_in

ATTACK = ["--synthesizer", "privbayes", "--epsilon", "8", "--delta", "1e-6"]
ATTACK += ["--private-domain", "0.25", "--param", "seed=3"]  # a secret seed: one run each


def attack_tables() -> dict[str, pd.DataFrame]:
    """D with whole ages, and its two neighbours of the issue."""
    d = base_table()
    d["age"] = np.round(d["age"])
    blank, frac = d.copy(), d.copy()
    blank.loc[blank.index[-1], "age"] = np.nan
    frac.loc[frac.index[-1], "age"] = 37.5
    return {"D": d, "blank": blank, "fractional": frac}


def infer_and_synthesize(folder: Path, table: pd.DataFrame) -> tuple[dict, pd.DataFrame]:
    """The documented workflow: schema infer, then synthesize --private-domain on it."""
    folder.mkdir(parents=True)
    table.to_csv(folder / "in.csv", index=False)
    res = invoke_in(folder, ["schema", "infer", "in.csv", "--public-kinds", "--out", "s.json"])
    assert res.exit_code == 0, res.output
    age = next(c for c in json.loads((folder / "s.json").read_text())["columns"])
    assert age["nullable_source"] == "data" and age["integer_source"] == "data"
    args = ["synthesize", "in.csv", "--schema", "s.json", *ATTACK, "--out", "s.csv", "--json"]
    res = invoke_in(folder, args)
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout), pd.read_csv(folder / "s.csv")


def test_private_domain_estimates_data_derived_flags_alike_on_neighbours(tmp_path):
    """Before the flags' rule, one age of 37.5 flipped the published integer flag (whole ages on
    D, fractional on D'). The nullable flag is now a public rule and the integer flag a DP
    test: whole ages on D and on both neighbours, and the same claim."""
    runs = {k: infer_and_synthesize(tmp_path / k, t) for k, t in attack_tables().items()}
    claims = {k: r[0]["claim"] for k, r in runs.items()}
    for kind, (_, rows) in runs.items():
        ages = rows["age"].dropna().to_numpy(dtype=float)
        assert np.all(np.mod(ages, 1) == 0), kind
    assert claims["D"] == claims["blank"] == claims["fractional"]
    flags = next(a for a in claims["D"]["assumptions"] if a["name"] == "flags")
    assert flags["source"] == "public-rule" and "age: integer" in flags["value"]
    assert "age: nullable" in flags["value"]
    assert claims["D"]["guarantee"] == "differential privacy"


def test_the_dp_schema_has_the_same_flags_for_d_and_its_neighbours():
    """The DP schema (the fit's schema) is nullable on D and on D' (a blanked age is no longer
    an event of probability 0 under D), and its integer flags are the DP test's: whole ages,
    real-valued income and score, on D and on D' alike (the same noise: one record moves a
    count by one, far below the noise)."""
    schemas = {}
    for kind, t in attack_tables().items():
        drafted = draft_schema(t).schema
        assert drafted is not None
        drafted = drafted.with_public_kinds()
        budget = plan_budget(drafted, 0.25, 8.0, 1e-6)
        rng = np.random.default_rng(0)
        est = estimate_domain([t], drafted, budget, neighboring="bounded", rng=rng)
        schemas[kind] = est.schema
        assert est.ruled_flags == tuple(drafted.data_flags)
    flags = {
        k: [(c.name, c.nullable, getattr(c, "integer", None)) for c in s.columns]
        for k, s in schemas.items()
    }
    assert flags["D"] == flags["blank"] == flags["fractional"]
    assert [(name, nullable, integer) for name, nullable, integer in flags["D"][:3]] == [
        ("income", True, False),
        ("age", True, True),
        ("score", True, False),
    ]
    assert not schemas["D"].data_flags


def test_flag_rule_keeps_public_flags():
    schema = Schema(
        (
            NumericColumn("a", 0, 9, integer=True, source="data", integer_source="public"),
            NumericColumn("b", 0, 9, integer=True, nullable_source="data", integer_source="data"),
            NumericColumn("c", 0, 9, integer=True),
        )
    )
    assert schema.data_flags == ["a: nullable", "b: nullable", "b: integer"]
    ruled = {c.name: (c.nullable, c.integer) for c in flag_rule(schema).columns}
    assert ruled == {"a": (True, True), "b": (True, False), "c": (False, True)}


def test_an_old_inferred_schema_without_flag_sources_has_data_flags():
    doc = {"columns": [{"name": "x", "kind": "numeric", "lower": 0, "upper": 1, "source": "data"}]}
    assert Schema.from_dict(doc).data_flags == ["x: nullable", "x: integer"]
    doc["columns"][0]["source"] = "public"
    assert Schema.from_dict(doc).data_flags == []


@pytest.fixture
def flagged(tmp_path) -> Path:
    """Public bounds and categories, but the nullable and integer flags read from the data."""
    folder = tmp_path / "f"
    folder.mkdir()
    t = attack_tables()["D"]
    t.to_csv(folder / "in.csv", index=False)
    cols = [
        {"name": "income", "kind": "numeric", "lower": 0, "upper": 100},
        {"name": "age", "kind": "numeric", "lower": 18, "upper": 90, "integer": True,
         "nullable_source": "data", "integer_source": "data"},
        {"name": "score", "kind": "numeric", "lower": -5, "upper": 5},
        {"name": "region", "kind": "categorical", "categories": ["north", "south", "east"]},
    ]  # fmt: skip
    (folder / "s.json").write_text(json.dumps({"columns": cols}))
    return folder


def test_data_derived_flags_without_private_domain_are_refused_or_void_the_claim(flagged):
    args = ["synthesize", "in.csv", "--schema", "s.json", "--synthesizer", "privbayes"]
    args += ["--epsilon", "1", "--out", "s.csv", "--json"]
    res = invoke_in(flagged, args)
    assert res.exit_code == 2, res.output
    assert "age (nullable, integer)" in " ".join(res.output.split())
    res = invoke_in(flagged, [*args, "--allow-data-domain"])
    assert res.exit_code == 0, res.output
    claim = json.loads(res.stdout)["claim"]
    assert claim["guarantee"].startswith("none")
    flags = next(a for a in claim["assumptions"] if a["name"] == "flags")
    assert flags["source"] == "data" and flags["value"] == "age: nullable, age: integer"
    # --private-domain has nothing to estimate here: refused, naming the flags
    res = invoke_in(flagged, [*args[:-3], "--private-domain", "0.2", "--out", "t.csv"])
    assert res.exit_code == 2 and "age: integer" in " ".join(res.output.split()), res.output


def test_release_on_data_derived_flags_states_no_guarantee(flagged):
    args = ["release", "in.csv", "--schema", "s.json", "--sigma", "0.03", "--min-rows", "1400"]
    res = invoke_in(flagged, [*args, "--out", "r.csv", "--json"])
    assert res.exit_code == 0, res.output
    cert = json.loads(res.stdout)
    claim = cert["claim"]
    assert claim["guarantee"].startswith("none")
    assert any(a["name"] == "flags" and a["source"] == "data" for a in claim["assumptions"])


@pytest.mark.parametrize(
    ("command", "module", "extra"),
    [
        ("synthesize", "synthcert.workflows.synthesize", ["--synthesizer", "privbayes"]),
        ("release", "synthcert.workflows.release", ["--sigma", "0.03", "--min-rows", "1400"]),
    ],
)
def test_log_option_on_synthesize_and_release_declares_the_scale(
    flagged, monkeypatch, command, module, extra
):
    """--log COLUMN: the public declaration of schema infer --log, on the fitting commands:
    the workflow receives the schema with "scale": "log" for that column."""
    import importlib

    seen = []

    def capture(source, schema, *args, **kwargs):
        seen.append(schema)
        raise SystemExit(0)

    monkeypatch.setattr(importlib.import_module(module), command, capture)
    base = [command, "in.csv", "--schema", "s.json", *extra, "--out", "o.csv"]
    invoke_in(flagged, [*base, "--log", "income", "--log", "score"])
    assert [c.scale for c in seen[0].numeric] == ["log", "linear", "log"]
    res = invoke_in(flagged, [*base, "--log", "region"])
    assert res.exit_code == 2 and "numeric" in res.output, res.output


def test_private_domain_keeps_a_declared_fill_valid():
    """A declared fill outside the DP bounds is clipped into them, and one not among the DP
    categories is dropped (the DP column is nullable): public post-processing, never a
    refusal that depends on the DP draw."""
    from synthcert.data.schema import CategoricalColumn

    rng = np.random.default_rng(0)
    t = pd.DataFrame(
        {
            "x": rng.normal(50, 5, 3000),
            "c": rng.choice(["a", "b", "z"], 3000, p=[0.5, 0.497, 0.003]),
        }
    )
    schema = Schema(
        (
            NumericColumn("x", 0, 1e9, source="data", fill=1e9),
            CategoricalColumn("c", ("a", "b", "z"), source="data", fill="z"),
        )
    )
    budget = plan_budget(schema, 0.5, 4.0, 1e-6, ranges={"x": (0, 200)})
    est = estimate_domain(
        [t], schema, budget, neighboring="bounded", rng=rng, ranges={"x": (0, 200)}
    )
    x, c = est.schema.columns
    assert x.lower <= x.fill <= x.upper and x.fill == x.upper
    assert "z" not in c.categories and c.fill is None
