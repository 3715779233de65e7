"""Reading and atomic writing."""

from __future__ import annotations

import hashlib

import pandas as pd
import pytest

from synthcert.data.io import (
    ChunkedTableWriter,
    CsvOptions,
    iter_table_chunks,
    read_table,
    write_table,
)
from synthcert.errors import DataError


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_csv_and_parquet_round_trip(tmp_path):
    df = pd.DataFrame({"a": [1, 2, 3], "b": ["x", "y", "z"]})
    for name in ("t.csv", "t.parquet"):
        write_table(df, tmp_path / name)
        back = read_table(tmp_path / name)
        pd.testing.assert_frame_equal(back, df)
    assert not list(tmp_path.glob("*.tmp"))


def test_headerless_csv_with_custom_separator_and_missing_token(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("1; x\n?; y\n3; ?\n", encoding="latin-1")
    df = read_table(
        path,
        CsvOptions(header=False, sep=";", names=["a", "b"], na_values=("?",), encoding="latin-1"),
    )
    assert list(df.columns) == ["a", "b"]
    assert df["a"].isna().tolist() == [False, True, False]
    assert df["b"].isna().tolist() == [False, False, True]


def test_refuses_to_overwrite_the_input(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("a\n1\n2\n")
    before = digest(path)
    with pytest.raises(DataError, match="is the input file"):
        write_table(pd.DataFrame({"a": [9]}), path, protect=[path])
    assert digest(path) == before


def test_failed_write_leaves_no_partial_file(tmp_path):
    target = tmp_path / "out.csv"
    with pytest.raises(RuntimeError), ChunkedTableWriter(target) as writer:
        writer.write(pd.DataFrame({"a": [1, 2]}))
        raise RuntimeError("boom")
    assert not target.exists()
    assert not list(tmp_path.iterdir())


def test_chunked_writer_appends_chunks(tmp_path):
    for name in ("o.csv", "o.parquet"):
        with ChunkedTableWriter(tmp_path / name) as writer:
            writer.write(pd.DataFrame({"a": [1, 2]}))
            writer.write(pd.DataFrame({"a": [3]}))
        assert read_table(tmp_path / name)["a"].tolist() == [1, 2, 3]


def test_chunks_cover_the_table(tmp_path):
    df = pd.DataFrame({"a": range(10)})
    write_table(df, tmp_path / "t.parquet")
    chunks = list(iter_table_chunks(tmp_path / "t.parquet", chunk_rows=3))
    assert [len(c) for c in chunks] == [3, 3, 3, 1]


def test_glob_of_files_is_read_in_order(tmp_path):
    write_table(pd.DataFrame({"a": [1]}), tmp_path / "p1.parquet")
    write_table(pd.DataFrame({"a": [2]}), tmp_path / "p2.parquet")
    assert read_table(str(tmp_path / "p*.parquet"))["a"].tolist() == [1, 2]
    assert read_table(tmp_path)["a"].tolist() == [1, 2]


@pytest.mark.parametrize(
    ("content", "message"),
    [("", "is empty"), ("a,b\n1,2\n3,4,5\n", "malformed")],
)
def test_malformed_csv_is_a_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(DataError, match=message):
        read_table(path)


def test_missing_input_is_a_clear_error(tmp_path):
    with pytest.raises(DataError, match="does not exist"):
        read_table(tmp_path / "nope.csv")


def test_written_files_get_the_usual_permissions(tmp_path):
    import os
    import stat

    umask = os.umask(0o022)
    try:
        path = write_table(pd.DataFrame({"a": [1]}), tmp_path / "p.csv")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_a_file_in_another_encoding_is_refused_saying_which_option_to_set(tmp_path):
    path = tmp_path / "villes.csv"
    path.write_text("ville,age\nOrléans,34\nNîmes,51\n", encoding="latin-1")
    with pytest.raises(DataError, match="--encoding") as caught:
        read_table(path)
    assert "Orl" not in str(caught.value)  # no value of the table
    assert read_table(path, CsvOptions(encoding="latin-1"))["ville"].tolist() == [
        "Orléans",
        "Nîmes",
    ]
