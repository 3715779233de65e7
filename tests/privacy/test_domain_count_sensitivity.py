"""The category counts of the DP domain step, read from CSV files that differ in ONE record.

The stability histogram (:func:`synthcert.privacy.domain.stability_categories`) is
delta-approximately rho-zCDP only if one record moves at most one count down and one up
(Delta_2^2 <= 2). :class:`~synthcert.privacy.domain.DomainCounts` reads the values through
``category_text``, whose text for a ``"string"`` column is pandas' rendering of the dtype
``read_csv`` inferred for the whole chunk: one blank in a column of integer-looking codes turns
every "1" into "1.0". Found by the attack review of the Gaussian category lists (attack27);
fixed by reading a schema's categorical columns as text, value by value
(:meth:`~synthcert.data.schema.Schema.read_options`), whichever CSV options the run names.
"""

from __future__ import annotations

from collections import Counter

import pytest

from synthcert.data.io import CsvOptions, iter_table_chunks
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.privacy.domain import DomainCounts
from synthcert.workflows.job_inputs import TableSource

SCHEMA = Schema(
    (
        CategoricalColumn("code", ("1", "2"), source="data", dtype="string", kind_source="public"),
        NumericColumn("x", 0.0, 1.0, source="public"),
    )
)


def counts_of(path, csv: CsvOptions | None) -> Counter:
    """The counts as a workflow reads them: through ``TableSource.reading`` (the schema's own
    CSV options, or the run's ``csv``, with the categorical columns as text)."""
    source = TableSource(path=path, csv=csv).reading(SCHEMA)
    counts = DomainCounts(SCHEMA)
    for chunk in iter_table_chunks(source.path, csv=source.csv):
        counts.update(chunk)
    return counts.values["code"]


def write(path, first: str, codes: tuple[str, ...]) -> None:
    rows = [first] + list(codes) * 100
    path.write_text("code,x\n" + "".join(f"{c},0.5\n" for c in rows))


@pytest.mark.parametrize("csv", [None, CsvOptions()])
@pytest.mark.parametrize(
    ("codes", "changed"),
    [
        (("1", "2", "3"), ""),  # a blank: the chunk is read as float, "1" becomes "1.0"
        (("1", "2", "3"), "other"),
        (("01", "02", "03"), "other"),  # a word: the chunk stays text, "1" becomes "01"
        (("A", "B", "C"), ""),
    ],
)
def test_one_record_moves_at_most_two_category_counts(tmp_path, codes, changed, csv):
    """Replace-one neighbours (the first record ``codes[0]`` -> ``changed``): the L1 distance of
    the count vectors is at most 2 (one count down, one up; a blank only down)."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    write(a, codes[0], codes)
    write(b, changed, codes)
    ca, cb = counts_of(a, csv), counts_of(b, csv)
    l1 = sum(abs(ca[k] - cb[k]) for k in set(ca) | set(cb))
    assert l1 <= 2, (dict(ca), dict(cb))


def test_without_the_schema_the_chunk_decides_how_values_read(tmp_path):
    """The failure the fix removes (so the test above can fail): read with pandas' inference
    alone, one word keeps every "01" as written, its absence reads them as the number 1."""
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    write(a, "01", ("01", "02", "03"))
    write(b, "other", ("01", "02", "03"))
    read = [DomainCounts(SCHEMA) for _ in range(2)]
    for counts, path in zip(read, (a, b), strict=True):
        for chunk in iter_table_chunks(path):
            counts.update(chunk)
    assert "1" in read[0].values["code"] and "01" in read[1].values["code"]
    assert "01" not in read[0].values["code"] and "1" not in read[1].values["code"]


@pytest.mark.parametrize("first", [None, 7])
def test_one_parquet_record_moves_at_most_two_category_counts(tmp_path, first):
    """Parquet has no inference, but ``to_pandas`` turns an int64 column holding a null into
    float64 for the whole record batch: one null (or its absence) makes every "1" read "1.0"
    in a ``"string"`` column (attack27). Replace-one neighbours: the first record 1 ->
    ``first``; the L1 distance of the count vectors must stay at most 2."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def counts(path, value) -> Counter:
        rows = [value] + [1, 2, 3] * 100
        table = pa.table({"code": pa.array(rows, pa.int64()), "x": [0.5] * len(rows)})
        pq.write_table(table, path)
        source = TableSource(path=path).reading(SCHEMA)
        out = DomainCounts(SCHEMA)
        for chunk in iter_table_chunks(source.path, csv=source.csv):
            out.update(chunk)
        return out.values["code"]

    ca, cb = counts(tmp_path / "a.parquet", 1), counts(tmp_path / "b.parquet", first)
    l1 = sum(abs(ca[k] - cb[k]) for k in set(ca) | set(cb))
    assert l1 <= 2, (dict(ca), dict(cb))
