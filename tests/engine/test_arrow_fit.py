"""The Parquet fit encodes record batches straight from Arrow: the same X, moments and refusals
as encoding their pandas frames (the path it replaced), bit for bit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from synthcert.data import encode as encode_mod
from synthcert.data.encode import Encoder, encode_arrow
from synthcert.data.io import arrow_frame
from synthcert.data.schema import CategoricalColumn, DatetimeColumn, NumericColumn, Schema
from synthcert.engine import fit_moments, plan_partitions
from synthcert.engine.local import LocalEngine
from synthcert.engine.plan import iter_partition
from synthcert.engine.reduce import _located, merge_copy
from synthcert.errors import DataError
from synthcert.statistics.moments import MomentPartial, encoded_moments

SCHEMA = Schema(
    (
        NumericColumn("x", -1.0, 1.0),
        NumericColumn("age", 18, 90, integer=True),
        NumericColumn("pay", 0.0, 1e5, scale="log"),
        NumericColumn("opt", 0.0, 10.0, nullable=True),
        NumericColumn("f32", -2.0, 2.0),
        NumericColumn("flag", 0.0, 1.0),
    )
)


def messy_table(n: int, seed: int) -> pa.Table:
    """Floats with nulls and NaN, integers with nulls, values outside the bounds, float32,
    booleans, and two columns outside the schema (text and floats with holes)."""
    rng = np.random.default_rng(seed)

    def holes(p: float) -> np.ndarray:
        return rng.uniform(size=n) < p

    x = rng.normal(0.0, 0.7, n)
    x[holes(0.01)] = np.nan
    age = rng.integers(10, 100, n)
    pay = rng.lognormal(9.0, 1.5, n)
    opt = rng.uniform(-1.0, 12.0, n)
    extra = rng.normal(size=n)
    extra[holes(0.005)] = np.nan
    names = np.array(["a", "b", "c"], dtype=object)[rng.integers(0, 3, n)]
    return pa.table(
        {
            "x": pa.array(x, mask=holes(0.01)),  # nulls and NaN
            "age": pa.array(age, mask=holes(0.01)),  # int64 with nulls
            "pay": pa.array(pay),
            "opt": pa.array(opt, mask=holes(0.2)),
            "f32": pa.array(rng.normal(0.0, 1.2, n).astype(np.float32)),
            "flag": pa.array(rng.uniform(size=n) < 0.3),
            "note": pa.array(names, mask=holes(0.01)),
            "extra": pa.array(extra),
        }
    )


@pytest.fixture(scope="module")
def messy(tmp_path_factory):
    """Two Parquet files of 30,000 and 17,000 rows in row groups of 4,000."""
    folder = tmp_path_factory.mktemp("messy")
    for i, n in enumerate((30_000, 17_000)):
        pq.write_table(messy_table(n, seed=i), folder / f"part{i}.parquet", row_group_size=4_000)
    return folder


def frame_partition_moments(part, encoder, csv, chunk_rows):
    """The pandas route of the Parquet fit before the Arrow path (the reference)."""
    frames = iter_partition(part, drop=encoder.schema.drop, chunk_rows=chunk_rows)
    try:
        return encoded_moments(encoder, frames, row_offset=part.file_offset)
    except DataError as exc:
        raise _located(part, exc) from None


def frame_fit(path, encoder, *, partition_rows: int, chunk_rows: int) -> MomentPartial:
    parts = plan_partitions(path, partition_rows=partition_rows)
    return LocalEngine(2).reduce(
        frame_partition_moments, parts, encoder, None, chunk_rows, merge=merge_copy
    )


def assert_same_partial(a: MomentPartial, b: MomentPartial) -> None:
    assert a.acc.count == b.acc.count
    assert np.array_equal(a.acc.mean, b.acc.mean)
    assert np.array_equal(a.acc.m2, b.acc.m2)
    assert a.report == b.report


@pytest.mark.parametrize("missing", ["model", "drop"])
def test_batches_encode_as_their_frames(missing):
    enc = Encoder(SCHEMA, missing=missing)
    batch = messy_table(5_000, seed=9).to_batches()[0]
    got = encode_arrow(enc, batch, row_offset=10)
    assert got is not None
    X, report = enc.encode(arrow_frame(batch), row_offset=10)
    assert np.array_equal(got[0], X) and got[0].flags.c_contiguous
    assert got[1] == report
    assert report.rows_dropped_missing > 0 and report.values_clipped["age"] > 0
    if missing == "model":  # the nullable column kept its holes: fill 0, indicator +1
        holes = X[:, 4] > 0
        assert holes.any() and np.all(X[holes, 3] == 0.0)


def test_fail_policy_is_refused_by_the_frame_with_the_same_error(messy):
    enc = Encoder(SCHEMA, missing="fail")
    batch = messy_table(2_000, seed=4).to_batches()[0]
    assert encode_arrow(enc, batch) is None  # the frame raises the refusal
    with pytest.raises(DataError, match="missing=fail refuses it") as arrow_err:
        fit_moments(messy, enc, partition_rows=8_000, chunk_rows=1_500)
    with pytest.raises(DataError, match="missing=fail refuses it") as frame_err:
        frame_fit(messy, enc, partition_rows=8_000, chunk_rows=1_500)
    assert str(arrow_err.value) == str(frame_err.value)
    assert arrow_err.value.private_detail == frame_err.value.private_detail


def test_fail_policy_without_holes_encodes_from_arrow():
    enc = Encoder(SCHEMA.select(["pay", "f32", "flag"]), missing="fail")
    batch = messy_table(1_000, seed=2).select(["pay", "f32", "flag"]).to_batches()[0]
    got = encode_arrow(enc, batch)
    assert got is not None
    X, report = enc.encode(arrow_frame(batch))
    assert np.array_equal(got[0], X) and got[1] == report


HYBRID = [
    (  # a categorical column, text with a null and a value outside the categories
        Schema((NumericColumn("x", 0.0, 1.0), CategoricalColumn("note", ("a", "b", "c")))),
        pa.table({"x": [0.5, 2.0, None, 0.25], "note": ["a", "b", "zz", None]}),
    ),
    (  # a nullable categorical column held as an Arrow dictionary
        Schema((CategoricalColumn("note", ("a", "b"), nullable=True),)),
        pa.table({"note": pa.array(["a", None, "b", "a"]).dictionary_encode()}),
    ),
    (  # integer categories
        Schema((CategoricalColumn("k", ("1", "2", "3"), dtype="integer"),)),
        pa.table({"k": pa.array([1, 2, None, 3, 7])}),
    ),
    (  # a date column held as timestamps, one missing
        Schema((DatetimeColumn("d", 0.0, 30_000.0), NumericColumn("x", 0.0, 1.0))),
        pa.table(
            {
                "d": pa.array([0, 86_400_000 * 20_000, None], pa.timestamp("ms")),
                "x": [0.1, 0.2, 0.3],
            }
        ),
    ),
    (  # dates held as text, one unparsable
        Schema((DatetimeColumn("d", 0.0, 30_000.0),)),
        pa.table({"d": ["2001-02-03", "not a date", "1999-12-31"]}),
    ),
    (  # numbers held as text: pandas' parsing rule
        Schema((NumericColumn("x", 0.0, 1.0),)),
        pa.table({"x": ["0.5", "oops", " 0.25", "3"]}),
    ),
    (  # booleans with a null: pandas makes them objects
        Schema((NumericColumn("x", 0.0, 1.0),)),
        pa.table({"x": pa.array([True, None, False])}),
    ),
]


@pytest.mark.parametrize("missing", ["model", "drop"])
@pytest.mark.parametrize("case", range(len(HYBRID)))
def test_other_schema_columns_are_read_by_the_frames_rules(case, missing):
    """Categories, dates and text are converted one column at a time: the frame's numbers."""
    schema, table = HYBRID[case]
    if missing == "model":
        schema = Schema(tuple(replace_nullable(c) for c in schema.columns))
    enc = Encoder(schema, missing=missing)
    batch = table.to_batches()[0]
    got = encode_arrow(enc, batch, row_offset=4)
    assert got is not None
    X, report = enc.encode(arrow_frame(batch), row_offset=4)
    assert np.array_equal(got[0], X) and got[1] == report


def replace_nullable(col):
    from dataclasses import replace

    return replace(col, nullable=True)


@pytest.mark.parametrize(
    ("schema", "table"),
    [
        (  # a column the schema needs is absent: the frame's error
            Schema((NumericColumn("x", 0.0, 1.0),)),
            pa.table({"y": [0.5]}),
        ),
        (  # an extra column of another type: pandas' isna
            Schema((NumericColumn("x", 0.0, 1.0),)),
            pa.table({"x": [0.5], "when": pa.array([1], pa.timestamp("s"))}),
        ),
    ],
)
def test_other_batches_go_through_pandas(schema, table):
    assert encode_arrow(Encoder(schema, missing="drop"), table.to_batches()[0]) is None


@pytest.mark.parametrize("missing", ["model", "drop"])
@pytest.mark.parametrize(("partition_rows", "chunk_rows"), [(8_000, 1_500), (1 << 22, 4_096)])
def test_fit_moments_equals_the_frame_route(messy, missing, partition_rows, chunk_rows):
    enc = Encoder(SCHEMA, missing=missing)
    parts = plan_partitions(messy, partition_rows=partition_rows)
    assert len(parts) >= 2 and any(len(p.row_groups or ()) > 1 for p in parts)
    got = fit_moments(messy, enc, partition_rows=partition_rows, chunk_rows=chunk_rows)
    want = frame_fit(messy, enc, partition_rows=partition_rows, chunk_rows=chunk_rows)
    assert_same_partial(got, want)
    # and an independent computation: the whole table encoded at once, plain numpy moments
    table = pa.concat_tables(pq.read_table(f) for f in sorted(messy.iterdir()))
    X, report = enc.encode(table.to_pandas())
    assert got.acc.count == len(X) == report.rows_kept
    assert got.report == report
    np.testing.assert_allclose(got.acc.mean, X.mean(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.acc.covariance, np.cov(X.T, bias=True), rtol=0, atol=1e-12)


def test_fit_moments_arrow_path_is_taken(messy, monkeypatch):
    """The numeric schema never builds a frame (so the equality above tests the Arrow path)."""
    import synthcert.engine.reduce as reduce_mod

    def no_frame(*args, **kwargs):
        raise AssertionError("a frame was built")

    monkeypatch.setattr(reduce_mod, "batch_frame", no_frame)
    part = fit_moments(messy, Encoder(SCHEMA, missing="drop"), partition_rows=8_000)
    assert part.report.rows_in == 47_000
    assert part.acc.count == part.report.rows_kept == 47_000 - part.report.rows_dropped_missing


def test_mixed_schema_gives_the_frame_routes_moments(tmp_path):
    schema = Schema((NumericColumn("x", -1.0, 1.0), CategoricalColumn("note", ("a", "b", "c"))))
    table = messy_table(9_000, seed=3).select(["x", "note"])
    pq.write_table(table, tmp_path / "m.parquet", row_group_size=2_000)
    enc = Encoder(schema, missing="drop")
    got = fit_moments(tmp_path / "m.parquet", enc, partition_rows=4_000, chunk_rows=1_000)
    want = frame_fit(tmp_path / "m.parquet", enc, partition_rows=4_000, chunk_rows=1_000)
    assert_same_partial(got, want)


def test_release_rows_and_certificate_equal_the_frame_route(messy, tmp_path, monkeypatch):
    from synthcert.workflows import Budget
    from synthcert.workflows.release import release

    schema = SCHEMA.select(["x", "age", "pay", "f32", "flag"])
    budget = Budget(sigma=0.01, min_rows=20_000, n_out=3_000)

    def run(name: str):
        out = tmp_path / f"{name}.parquet"
        result = release(messy, schema, out, budget, seed=2024, missing="drop")
        return pd.read_parquet(out), result

    rows, result = run("arrow")
    monkeypatch.setattr(encode_mod, "encode_arrow", lambda *a, **k: None)
    import synthcert.engine.reduce as reduce_mod

    monkeypatch.setattr(reduce_mod, "encode_arrow", lambda *a, **k: None)
    rows_frames, result_frames = run("frames")
    pd.testing.assert_frame_equal(rows, rows_frames, check_exact=True)
    assert result.certificate == result_frames.certificate
    assert result.record.facts == result_frames.record.facts


def test_files_written_by_pandas_follow_their_metadata(tmp_path):
    """pandas' metadata decides the frame (a stored index, Float64, Int64): the fit follows it."""
    rng = np.random.default_rng(8)
    n = 3_000
    x = rng.normal(0.0, 0.7, n)
    x[rng.uniform(size=n) < 0.05] = np.nan
    k = pd.array(np.where(rng.uniform(size=n) < 0.05, None, rng.integers(0, 99, n)), "Int64")
    schema = Schema((NumericColumn("x", -1.0, 1.0), NumericColumn("k", 0, 90, integer=True)))
    enc = Encoder(schema, missing="drop")
    cases = {
        "plain": (pd.DataFrame({"x": x, "k": k, "t": rng.choice(["a", None], n)}), True),
        "index": (pd.DataFrame({"x": x, "k": k}, index=pd.Index(x, name="i")), False),
        "float_ext": (pd.DataFrame({"x": pd.array(x, "Float64"), "k": k}), False),
    }
    for name, (df, arrow) in cases.items():
        path = tmp_path / f"{name}.parquet"
        df.to_parquet(path, row_group_size=1_000)
        batch = next(pq.ParquetFile(path).iter_batches())
        assert (encode_arrow(enc, batch) is not None) == arrow, name
        got = fit_moments(path, enc, partition_rows=2_000, chunk_rows=700)
        assert_same_partial(got, frame_fit(path, enc, partition_rows=2_000, chunk_rows=700))
        assert got.report.rows_dropped_missing > 0


@pytest.mark.parametrize("missing", ["model", "drop"])
def test_adult_parquet_mixed_schema_equals_the_frame_route(
    adult_files, adult_mixed_schema, missing
):
    """Adult's numeric and categorical columns (text from pandas, with holes), in 3 files."""
    folder, df = adult_files
    enc = Encoder(adult_mixed_schema, missing=missing)
    src = str(folder / "*.parquet")
    got = fit_moments(src, enc, partition_rows=8_000, chunk_rows=3_000)
    assert_same_partial(got, frame_fit(src, enc, partition_rows=8_000, chunk_rows=3_000))
    assert got.report.rows_in == len(df)
    batch = next(pq.ParquetFile(folder / "adult-0.parquet").iter_batches())
    assert encode_arrow(enc, batch) is not None  # the Arrow route was taken
