"""The workflows' value objects: TableSource, Budget, Execution."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from synthcert.data.io import CsvOptions, write_table
from synthcert.errors import ParameterError
from synthcert.workflows import Budget, Execution, TableSource


def test_table_source_takes_a_path_or_a_frame(tmp_path):
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0]})
    write_table(frame, tmp_path / "a.csv")
    src = TableSource(tmp_path / "a.csv", csv=CsvOptions(sep=","))
    assert src.inputs() == [tmp_path / "a.csv"] and not src.in_memory
    pd.testing.assert_frame_equal(src.read(), frame)
    mem = TableSource.of(frame)
    assert mem.in_memory and mem.inputs() == [] and mem.read() is frame
    assert TableSource.of(src) is src and TableSource.of(str(tmp_path / "a.csv")).path is not None
    for part in ("p1.parquet", "p2.parquet"):
        (tmp_path / "parts").mkdir(exist_ok=True)
        write_table(frame, tmp_path / "parts" / part)
    assert [p.name for p in TableSource(tmp_path / "parts").inputs()] == [
        "p1.parquet",
        "p2.parquet",
    ]
    with pytest.raises(ParameterError, match="exactly one of path= and frame="):
        TableSource()
    with pytest.raises(ParameterError, match="exactly one"):
        TableSource(tmp_path / "a.csv", frame=frame)


def test_value_objects_are_frozen():
    for value in (Budget(sigma=0.01), Execution(), TableSource("x.csv")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            value.engine = "dask"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"epsilon": 0.0}, "epsilon must be > 0"),
        ({"epsilon": -1.0}, "epsilon must be > 0"),
        ({"delta": 1.0}, r"delta must be in \[0, 1\)"),
        ({"delta": -1e-9}, r"delta must be in \[0, 1\)"),
        ({"alpha": 1.0}, "alpha must be > 1"),
        ({"sigma": 0.0}, "sigma must be a finite number > 0"),
        ({"sigma": float("inf")}, "sigma must be a finite number > 0"),
        ({"sigma": "measured"}, "sigma is a number > 0 or 'data'"),
        ({"ridge": -0.1}, "ridge rho must be a finite number > 0"),
        ({"neighboring": "swap"}, "neighboring must be one of unbounded, bounded"),
        ({"conversion": "rdp"}, "conversion must be one of ckm, mironov"),
        ({"min_rows": -1}, "min_rows must be a non-negative"),
        ({"n_out": -5}, "n_out must be a non-negative"),
    ],
)
def test_budget_refuses_values_no_run_accepts(kwargs, message):
    with pytest.raises(ParameterError, match=message):
        Budget(**kwargs)


def test_budget_accepts_the_declared_quantities():
    b = Budget(sigma="data", min_rows=30_000, epsilon=1.0, delta=0.0, alpha=4.0)
    assert (b.sigma, b.neighboring, b.conversion) == ("data", "unbounded", "ckm")
    assert Budget(epsilon=float("inf")).epsilon == float("inf")  # no DP: accepted
    assert Budget(sigma=0.01) == Budget(sigma=0.01) and Budget(sigma=0.01) != Budget(sigma=0.02)


def test_execution_reports_progress_by_stage():
    seen = []
    ex = Execution(progress=lambda stage, done, total: seen.append((stage, done, total)))
    ex.stage("fit")(5, 10)
    ex.stage("sample")(3, None)
    assert seen == [("fit", 5, 10), ("sample", 3, None)]
    assert Execution().stage("fit") is None
    assert Execution(chunk_rows=10) == Execution(chunk_rows=10, progress=print)  # not compared
    for name in ("workers", "chunk_rows", "partition_rows"):
        with pytest.raises(ParameterError, match=f"{name} must be at least 1"):
            Execution(**{name: 0})


def test_a_job_refuses_budget_fields_it_does_not_read():
    Budget(epsilon=1.0, delta=1e-6, min_rows=10).refuse_unused("synthesize", "epsilon", "delta",
                                                                 "min_rows")  # fmt: skip
    with pytest.raises(ParameterError, match="synthesize does not use sigma, neighboring"):
        Budget(epsilon=1.0, sigma=0.01, neighboring="bounded").refuse_unused(
            "synthesize", "epsilon", "delta"
        )
