"""Numbers read from text without pandas 2.x's crash on huge exponents (pandas-dev/pandas#63089).

The crashing calls run in a subprocess: a regression kills that process, not the test run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from synthcert.data.numbers import python_float, to_numeric_safe

# values pandas parses without crashing: numbers as written in CSV files, and text
SAFE = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers(-(10**12), 10**12).map(str),
    st.from_regex(r"[0-9]{1,3}\.[0-9]{0,4}[eE][+-]?[0-9]{1,3}", fullmatch=True),
    st.text(alphabet="abcdef0123456789 .-", max_size=12),
    st.none(),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(SAFE, max_size=30))
def test_same_numbers_as_pandas_wherever_pandas_does_not_crash(values):
    series = pd.Series(values, dtype=object)
    expected = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    got = to_numeric_safe(series).to_numpy(dtype=np.float64, na_value=np.nan)
    np.testing.assert_array_equal(got, expected)


def test_python_float_reads_huge_exponents_and_refuses_what_pandas_refuses():
    assert python_float("4e2812376119") == np.inf
    assert python_float(" -4e2812376119 ") == -np.inf
    assert python_float("4e-2812376119") == 0.0
    assert np.isnan(python_float("2e2812376119eef8"))
    assert np.isnan(python_float("1_0e99999"))  # Python reads underscores; pandas does not


def run_python(code: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def test_crashing_values_are_read_in_a_process_that_survives(tmp_path):
    """The call that killed pandas 2.3.3 (exit 139) now returns; the file read as text gives the
    same values as its neighbour without the odd record, and the odd numbers Python's."""
    (tmp_path / "odd.csv").write_text(
        "id,x,y\n2e2812376119eef8,1.5,2\nab12,2e2812376119,3\nff00,3.5,4\n"
    )
    (tmp_path / "plain.csv").write_text("id,x,y\nab12,1.5,2\nff00,3.5,4\n")
    proc = run_python(
        """
        import pandas as pd
        from synthcert.data.io import read_table
        from synthcert.data.numbers import to_numeric_safe
        print(to_numeric_safe(pd.Series(["2e2812376119eef8", "4e2812376119", "7"])).tolist())
        odd, plain = read_table("odd.csv"), read_table("plain.csv")
        print(odd["x"].tolist(), odd["id"].tolist(), odd["y"].tolist(), plain["y"].tolist())
        """,
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "[nan, inf, 7.0]"
    assert lines[1] == ("[1.5, inf, 3.5] ['2e2812376119eef8', 'ab12', 'ff00'] [2, 3, 4] [2, 4]")


FORMS = {  # ways an attacker got the token past a scan of the file's bytes (all crashed)
    "quoted": (b'x,y\n1.5,2\n"2e"2812376119,3\n', "t.csv", {}),
    "old-mac-lines": (b'x,y\r1.5,"a\nb"\r2e2812376119,"c\nd"\r', "t.csv", {}),
    "upper-case-gzip": (None, "t.CSV.GZ", {}),
    "utf-16": ("x,y\n1.5,2\n2e2812376119,3\n".encode("utf-16"), "t.csv", {"encoding": "utf-16"}),
}


@pytest.mark.parametrize("form", list(FORMS))
def test_no_form_of_a_csv_file_lets_pandas_parse_a_crashing_number(tmp_path, form):
    """Every CSV file is read as text and its numbers parsed by synthcert: a scan of the bytes
    (the first guard) missed a quoted token, CR line ends, an upper-case .CSV.GZ and UTF-16,
    and each crashed with exit 139 (the attacker of this change)."""
    import gzip

    data, name, options = FORMS[form]
    if data is None:
        data = gzip.compress(b"x,y\n1.5,2\n2e2812376119,3\n")
    (tmp_path / name).write_bytes(data)
    proc = run_python(
        f"""
        from synthcert.data.io import CsvOptions, read_table
        print(read_table({name!r}, CsvOptions(**{options!r}))["x"].tolist())
        """,
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[1.5, inf]"


def test_a_parquet_dictionary_column_is_read_without_the_crash(tmp_path):
    frame = pd.DataFrame({"x": pd.Series(["1.5", "2e2812376119"], dtype="category")})
    frame.to_parquet(tmp_path / "t.parquet")
    proc = run_python(
        """
        from synthcert.data.encode import numeric_values
        from synthcert.data.io import read_table
        from synthcert.data.schema import NumericColumn
        x = read_table("t.parquet")["x"]
        print(x.dtype, numeric_values(x, NumericColumn("x", 0, 10)).tolist())
        """,
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "category [1.5, inf]"


def test_schema_infer_reads_a_hexadecimal_identifier(tmp_path):
    """A new user's card transactions: 16-digit hexadecimal IDs, one of them 2e28...eef8."""
    rng = np.random.default_rng(0)
    ids = [f"{v:016x}" for v in rng.integers(0, 2**62, 200)]
    ids[7] = "2e2812376119eef8"
    frame = pd.DataFrame({"txn_id": ids, "amount": rng.lognormal(3, 1, 200).round(2)})
    frame.to_csv(tmp_path / "cards.csv", index=False)
    proc = subprocess.run(
        [sys.executable, "-m", "synthcert", "schema", "infer", "cards.csv", "--out", "s.json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (tmp_path / "s.json").exists()
