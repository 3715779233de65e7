"""The evaluate workflow: the utility figures, written through Publication."""

from __future__ import annotations

import json

import pytest

from synthcert.data.datasets import demo_schema, make_demo_table
from synthcert.data.io import read_table, write_table
from synthcert.errors import DataError, ParameterError
from synthcert.utility.evaluate import evaluate as measure
from synthcert.workflows import Execution, TableSource
from synthcert.workflows.evaluate import run_evaluation


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("ev")
    real, fake = make_demo_table(1_500, seed=1), make_demo_table(1_500, seed=2)
    write_table(real, root / "real.csv")
    write_table(fake, root / "fake.parquet")
    return root, real, fake


def test_writes_the_figures_it_returns(tables, tmp_path):
    root, _, fake = tables
    schema = demo_schema()
    run = run_evaluation(
        root / "real.csv", TableSource(root / "fake.parquet"), schema, out=tmp_path / "ev"
    )
    names = [p.rsplit("/", 1)[1] for p in run.files]
    assert names == [
        "evaluation.json", "columns.csv", "column_distances.png", "marginals.png",
        "correlation_difference.png", "association_difference.png",
    ]  # fmt: skip
    doc = json.loads((tmp_path / "ev" / "evaluation.json").read_text())
    ref = measure(read_table(root / "real.csv"), fake, schema)
    assert doc["summary"].keys() == ref.summary.keys() and doc["summary"]["l1_numeric_mean"] > 0
    for key, value in ref.summary.items():
        assert doc["summary"][key] == (None if value is None else pytest.approx(value, rel=1e-12))
    assert doc == json.loads(json.dumps(run.evaluation.to_dict()))
    columns = read_table(tmp_path / "ev" / "columns.csv")
    assert list(columns["name"]) == schema.names
    assert columns["l1"].to_numpy() == pytest.approx([c.l1 for c in ref.columns.values()])


def test_on_an_engine_only_the_streamed_figures_and_json(tables, tmp_path):
    root, _, _ = tables
    schema = demo_schema()
    memory = run_evaluation(root / "real.csv", root / "fake.parquet", schema, binning="public")
    run = run_evaluation(
        root / "real.csv", root / "fake.parquet", schema, out=tmp_path / "s",
        execution=Execution(engine="dask"), report=tmp_path / "r.html",
    )  # fmt: skip
    assert [p.rsplit("/", 1)[1] for p in run.files] == ["evaluation.json", "r.html"]
    assert run.evaluation.engine == "dask" and run.evaluation.association is None
    for name, col in memory.evaluation.columns.items():
        assert run.evaluation.columns[name].l1 == pytest.approx(col.l1, abs=1e-12)
    assert "do not publish" in (tmp_path / "r.html").read_text().lower()
    with pytest.raises(ParameterError, match="efficacy"):
        run_evaluation(root / "real.csv", root / "fake.parquet", schema, target="age",
                 execution=Execution(engine="dask"))  # fmt: skip


def test_outputs_never_overwrite_an_input(tables, tmp_path):
    root, _, _ = tables
    schema = demo_schema()
    copy = tmp_path / "columns.csv"
    copy.write_bytes((root / "real.csv").read_bytes())
    with pytest.raises(DataError, match="is the input file"):
        run_evaluation(copy, root / "fake.parquet", schema, out=tmp_path)
    assert copy.read_bytes() == (root / "real.csv").read_bytes()
    assert not (tmp_path / "evaluation.json").exists()  # refused before any work
    with pytest.raises(DataError, match="held-out"):
        run_evaluation(root / "real.csv", root / "fake.parquet", schema, target="age")
