"""``synthcert schema infer`` on a loan-book-like table: one run, a decision per column;
long right tails drafted with ``scale: log``."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from real_tables import loan_book
from typer.testing import CliRunner

from synthcert.cli import app
from synthcert.data.infer import collect_stats, draft_schema
from synthcert.data.schema import Schema
from synthcert.errors import DataError

runner = CliRunner()


def test_schema_infer_drafts_every_column_in_one_run(tmp_path):
    table = loan_book(3_000)
    path = tmp_path / "loans.csv"
    table.to_csv(path, index=False)
    res = runner.invoke(app, ["schema", "infer", str(path), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    decisions = {d["name"]: d for d in doc["decisions"]}
    assert list(decisions) == list(table.columns)  # a decision for every column
    assert {n: d["decision"] for n, d in decisions.items() if not d["kept"]} == {
        "id": "identifier",
        "emp_title": "free text",
        "policy_code": "constant",
    }
    assert (
        decisions["term"]["decision"] == "categorical" and "integers" in decisions["term"]["reason"]
    )
    assert decisions["is_joint"]["decision"] == "boolean"
    assert decisions["issue_d"]["decision"] == "datetime"
    assert decisions["mths_since_last_delinq"]["missing_share"] == 0.57
    assert decisions["annual_inc_joint"]["missing_share"] == 0.85
    schema = Schema.from_dict(doc["schema"])
    assert set(schema.drop) == {"id", "emp_title", "policy_code"}
    assert schema.column("emp_length").nullable  # stray text counts as missing
    assert schema.column("term").dtype == "integer" and schema.column("issue_d").kind == "datetime"
    assert {c["source"] for c in doc["schema"]["columns"]} == {"data"}

    out = tmp_path / "schema.json"
    res = runner.invoke(app, ["schema", "infer", str(path), "--out", str(out)])
    assert res.exit_code == 0 and Schema.load(out) == schema
    assert "identifier" in res.stderr and res.stdout == ""


def test_streaming_reads_chunks_and_stops_at_max_rows():
    table = loan_book(3_000)
    chunks = [table.iloc[i : i + 700] for i in range(0, 3_000, 700)]
    whole, streamed = draft_schema(table), draft_schema(chunks)
    assert whole == streamed and whole.rows_read == 3_000
    stats, rows = collect_stats(iter(chunks), max_rows=1_000)
    assert rows == 1_000 and stats["grade"].rows == 1_000


def test_a_table_of_nothing_modellable_is_refused_after_deciding_every_column(tmp_path):
    path = tmp_path / "ids.csv"
    pd.DataFrame({"id": range(100), "k": [1] * 100}).to_csv(path, index=False)
    res = runner.invoke(app, ["schema", "infer", str(path)])
    assert res.exit_code == 2 and "every column was dropped" in res.output
    assert "identifier" in res.stderr and "constant" in res.stderr


def skewed_table(n: int = 4_000) -> pd.DataFrame:
    """Columns with and without a long right tail (non-negative), and one that goes below 0."""
    rng = np.random.default_rng(8)
    return pd.DataFrame(
        {
            "charges": np.round(np.exp(rng.normal(8.0, 1.5, n)), 2),  # lognormal, sigma 1.5
            "bmi": rng.normal(27.0, 5.0, n).clip(10, None).round(1),
            "days": rng.poisson(3, n),
            "share": rng.uniform(0, 1, n),
            "pnl": np.exp(rng.normal(8.0, 1.5, n)) - 500.0,  # the same tail, below 0 too
        }
    )


def test_long_right_tails_are_hinted_never_applied_and_log_declares_the_scale(tmp_path):
    table = skewed_table()
    draft = draft_schema(table)
    hints = {d.name: d.scale_hint for d in draft.decisions}
    # pnl has the same tail through 0: asinh, since log(1 + x - lower) would spend most of its
    # range below 0 (before, a negative value kept any hint away)
    assert hints == {
        "charges": "log", "bmi": None, "days": None, "share": None, "pnl": "signed-log",
    }  # fmt: skip
    assert {c.scale for c in draft.schema.columns} == {"linear"}  # a scale is declared, not read
    reason = {d.name: d.reason for d in draft.decisions}
    assert "long right tail" in reason["charges"] and '"scale": "log"' in reason["charges"]
    assert '"scale": "signed-log"' in reason["pnl"]
    chunks = [table.iloc[i : i + 900] for i in range(0, len(table), 900)]
    assert draft_schema(chunks) == draft  # the magnitude counts merge over chunks

    declared = draft_schema(table, log_scale=("charges",)).schema
    assert {c.name: c.scale for c in declared.columns}["charges"] == "log"
    with pytest.raises(DataError, match="not numeric"):
        draft_schema(table.assign(ward=["a", "b"] * 2_000), log_scale=("ward",))
    with pytest.raises(DataError, match="does not keep: nope"):
        draft_schema(table, log_scale=("nope",))

    path = tmp_path / "t.csv"
    table.to_csv(path, index=False)
    res = runner.invoke(app, ["schema", "infer", str(path)])
    shown = " ".join(res.stderr.split())
    assert res.exit_code == 0 and "add --log charges if that is public" in shown
    assert 'long tails through 0 in pnl: declare "scale": "signed-log"' in shown
    assert '"scale": "log"' not in res.stdout
    res = runner.invoke(app, ["schema", "infer", str(path), "--log", "charges", "--json"])
    doc = json.loads(res.stdout)
    assert [c["name"] for c in doc["schema"]["columns"] if c.get("scale") == "log"] == ["charges"]
    assert "add --log" not in res.stderr


@given(st.lists(st.floats(0, 1e12, allow_nan=False), min_size=1, max_size=200))
def test_the_median_bound_is_within_one_magnitude_bucket(values):
    stats, _ = collect_stats([pd.DataFrame({"x": values})])
    x = np.sort(np.asarray(values))
    median = x[(len(x) + 1) // 2 - 1]  # the lower median, as the bucket count reads it
    bound = stats["x"].median_at_most()
    assert median <= bound <= 2 ** (1 / 8) * (1 + median) - 1 + 1e-9 * (1 + median)


@pytest.mark.parametrize("log", [True, False])
def test_a_declared_log_scale_keeps_a_skewed_median_through_privbayes(tmp_path, log):
    """The new user's path: infer (with the hinted --log, or without), then synthesize
    without DP: the median of the long-tailed column comes back either way. Without the
    declaration the fit reads the log scale from the data (synthcert.data.tails) and says so;
    before, its equal-width bins gave a median 6 times too large."""
    table = skewed_table()[["charges", "bmi", "days"]]
    path, schema = tmp_path / "t.csv", tmp_path / "s.json"
    table.to_csv(path, index=False)
    infer = ["schema", "infer", str(path), "--out", str(schema), *(["--log", "charges"] * log)]
    assert runner.invoke(app, infer).exit_code == 0
    (tmp_path / "pub").mkdir()
    args = ["synthesize", str(path), "--schema", str(schema), "--synthesizer", "privbayes"]
    args += ["--seed", "3", "--out", str(tmp_path / "pub" / "s.csv")]
    res = runner.invoke(app, [*args, "--private-record", str(tmp_path / "r.json")])
    assert res.exit_code == 0, res.output
    rows = pd.read_csv(tmp_path / "pub" / "s.csv")
    real, synthetic = table["charges"].median(), rows["charges"].median()
    assert abs(synthetic / real - 1) < 0.15
    said = "charges on a log scale" in " ".join(res.output.split())
    assert said is not log  # a declared scale is the user's: nothing to say


def test_a_semicolon_file_read_with_commas_says_to_pass_sep(tmp_path):
    path = tmp_path / "semicolon.csv"
    rows = "".join(f"{i};{'yes' if i % 3 else 'no'};{i * 7 % 50}\r\n" for i in range(200))
    path.write_text("\ufeffid;verified;score\r\n" + rows, encoding="utf-8")
    res = runner.invoke(app, ["schema", "infer", str(path)])
    assert res.exit_code == 2 and "pass --sep ';'" in res.stderr.splitlines()[-1]
    res = runner.invoke(app, ["schema", "infer", str(path), "--json"])
    (only,) = json.loads(res.stdout)["decisions"]
    assert only["reason"].startswith("the only column's name holds ';'")
    res = runner.invoke(app, ["schema", "infer", str(path), "--sep", ";", "--json"])
    assert res.exit_code == 0, res.output
    decisions = {d["name"]: d["decision"] for d in json.loads(res.stdout)["decisions"]}
    assert decisions == {"id": "identifier", "verified": "categorical", "score": "numeric"}


def test_numbers_and_dates_written_as_text_are_dropped_saying_what_to_do():
    rng = np.random.default_rng(3)
    amounts = np.round(np.exp(rng.normal(7, 2, 500)), 2)
    table = pd.DataFrame(
        {
            "population": [f"{int(x):,}" for x in amounts],
            "amount (€)": [f"€{x:,.2f}" for x in amounts],
            "founded": [
                f"{d:02d}/{m:02d}/{y}"
                for d, m, y in zip(
                    rng.integers(1, 29, 500),
                    rng.integers(1, 13, 500),
                    rng.integers(1900, 2020, 500),
                    strict=True,
                )
            ],
            "weight": [f"{x:.1f}".replace(".", ",") for x in amounts],  # a decimal comma
            "city": [f"town {i % 80}" for i in range(500)],
        }
    )
    decisions = {d.name: d for d in draft_schema(table).decisions}
    for name in ("population", "amount (€)", "weight"):
        assert decisions[name].decision == "formatted numbers", decisions[name]
        assert "rewrite them as plain numbers" in decisions[name].reason
    assert decisions["founded"].decision == "formatted dates"
    assert "YYYY-MM-DD" in decisions["founded"].reason
    assert decisions["city"].decision == "free text"  # text with digits is still text


def test_formatted_numbers_with_a_dash_for_missing_still_get_the_hint():
    """A new user's survey: incomes written "$52,000" with "-" (and "N/A") for missing. The
    dashes, 6 % of the values, kept the formatted share under 95 % and the column was called
    free text; marks-only values are left out of the share, and the hint says to list them."""
    rng = np.random.default_rng(4)
    income = [f"${int(x):,}" for x in rng.lognormal(10.8, 0.5, 600)]
    for i in range(0, 600, 16):
        income[i] = "-"
    decision = next(
        d for d in draft_schema(pd.DataFrame({"income": income})).decisions if d.name == "income"
    )
    assert decision.decision == "formatted numbers", decision
    assert 'marks only (such as "-")' in decision.reason and "na_values" in decision.reason


def test_a_repeated_code_list_above_max_categories_is_categorical():
    """A new user's e-commerce table: 60 countries in 6,000 rows were dropped as free text at
    --max-categories 50. Values that repeat (10 rows or more each on average, at most 250 of
    them) are a code list; near-unique text is still free text or an identifier."""
    rng = np.random.default_rng(0)
    n = 6_000
    table = pd.DataFrame(
        {
            "country": rng.choice([f"country {i}" for i in range(60)], n),
            "comment": [f"note {i % 900}" for i in range(n)],  # 900 values: beyond the cap
            # 240 values in 2,000 present rows: under the cap, but 8 rows each on average
            "rare": [f"r{i % 240}" if i < 2_000 else None for i in range(n)],
        }
    )
    decisions = {d.name: d for d in draft_schema(table).decisions}
    country = decisions["country"]
    assert country.decision == "categorical" and country.kept
    assert "more than --max-categories 50" in country.reason and "code list" in country.reason
    assert decisions["comment"].decision == "free text"
    assert decisions["rare"].decision == "free text"
    assert draft_schema(table, max_categories=60).decisions[0].reason.startswith("60 distinct")


def test_mixed_iso_offsets_draft_a_datetime_without_a_warning():
    """A new user's bike-share table: naive timestamps beside a few with "Z" or "+02:00" made
    `schema infer` end in a traceback, after pandas printed some of them on stderr. The draft
    reads dates with the fit's own reader: offsets converted to UTC, each value on its own."""
    stamps = ["2023-05-01T08:15:00", "2023-05-01T09:15:00Z", "2023-05-02T10:00:00+02:00"]
    table = pd.DataFrame({"start": stamps * 20, "k": ["a", "b", "c"] * 20})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        draft = draft_schema(table)
    decision = {d.name: d for d in draft.decisions}["start"]
    assert decision.decision == "datetime" and decision.kept
    col = draft.schema.column("start")
    assert (
        col.iso(col.lower) == "2023-05-01T08:15:00" and col.iso(col.upper) == "2023-05-02T08:00:00"
    )


def test_dates_written_as_eight_digit_numbers_draft_a_datetime(tmp_path):
    """A new user's clinic table: visit dates written YYYYMMDD (20220315) were drafted as
    integers in [2.02201e+07, 2.02312e+07], and every synthesizer then wrote numbers that are
    no date. Whole numbers whose eight digits are all valid dates in the public calendar are a
    datetime; one impossible day, a fraction, a number outside 1900-2099 or an id name keeps
    the column numeric. The fit reads the digits, and the output writes ISO dates."""
    rng = np.random.default_rng(5)
    n = 1_500
    days = pd.Timestamp("2022-01-01") + pd.to_timedelta(rng.integers(0, 700, n), unit="D")
    digits = days.strftime("%Y%m%d").astype(np.int64).to_numpy()
    visit = pd.array(digits, dtype="Int64")
    visit[::10] = pd.NA
    table = pd.DataFrame(
        {
            "visit": visit,
            "impossible": np.where(np.arange(n) == 7, 20220230, digits),  # 30 February
            "fraction": np.where(np.arange(n) == 7, 20220301.5, digits),
            "amount": rng.integers(20_000_000, 21_000_000, n),  # most are not dates
            "visit_id": digits,  # the name says id: a number, whatever its digits
            "age": rng.integers(18, 90, n),
        }
    )
    path = tmp_path / "clinic.csv"
    table.to_csv(path, index=False)
    chunks = [table.iloc[i : i + 400] for i in range(0, n, 400)]
    draft = draft_schema(chunks)
    decisions = {d.name: d for d in draft.decisions}
    assert decisions["visit"].decision == "datetime" and decisions["visit"].kept
    assert "YYYYMMDD" in decisions["visit"].reason and "10.0% missing" in decisions["visit"].reason
    col = draft.schema.column("visit")
    assert col.unit == "D" and col.nullable
    assert (col.iso(col.lower), col.iso(col.upper)) == (
        days.min().strftime("%Y-%m-%d"),
        days.max().strftime("%Y-%m-%d"),
    )
    for name in ("impossible", "fraction", "amount", "visit_id", "age"):
        assert decisions[name].decision in ("numeric", "identifier"), decisions[name]
    res = runner.invoke(app, ["schema", "infer", str(path), "--out", str(tmp_path / "s.json")])
    assert res.exit_code == 0, res.output
    out = tmp_path / "synthetic.csv"
    args = ["synthesize", str(path), "--schema", str(tmp_path / "s.json"), "--out", str(out)]
    res = runner.invoke(app, [*args, "--synthesizer", "privbayes", "--param", "seed=1"])
    assert res.exit_code == 0, res.output
    written = pd.read_csv(out)["visit"].dropna()
    parsed = pd.to_datetime(written, format="%Y-%m-%d")  # every value an ISO date
    assert parsed.min() >= days.min() and parsed.max() <= days.max()


def test_whole_numbers_within_the_calendar_years_get_a_range_hint():
    """A new user's birth years (1945-2005) came out from 1000 to 4996 under
    --param private_domain: the public magnitude buckets around them are [1000, 2000) and
    [2000, 5000). The draft says to give such a column a public range; other integers and
    fractional years get no hint."""
    rng = np.random.default_rng(2)
    table = pd.DataFrame(
        {
            "birth_year": rng.integers(1945, 2006, 500),
            "age": rng.integers(18, 90, 500),
            "fiscal": rng.integers(1945, 2006, 500) + 0.5,
        }
    )
    decisions = {d.name: d for d in draft_schema(table).decisions}
    assert "--param domain_range=birth_year=1900:2099" in decisions["birth_year"].reason
    assert "domain_range" not in decisions["age"].reason
    assert "domain_range" not in decisions["fiscal"].reason


def test_codes_written_with_leading_zeros_are_kept_as_text(tmp_path):
    """A new user's zip codes ("01247") were read as the integers 1247..99854 and written back
    without their zero (34 % of the real rows start with 0, no synthetic one did). `schema
    infer` reads a CSV as written: numbers with a leading zero in 1 % of the rows or more are
    codes, decided by the text rules (a list, a code list, an identifier or free text), and the
    output keeps them. Amounts such as 0.50 or 0 are still numbers."""
    rng = np.random.default_rng(6)
    n = 2_000
    zips = [f"{z:05d}" for z in rng.choice(rng.integers(500, 99_999, 120), n)]
    table = pd.DataFrame(
        {
            "zip": zips,
            "state": [f"{s:02d}" for s in rng.integers(1, 40, n)],  # FIPS 01..39
            "amount": [f"{x:.2f}" for x in rng.exponential(3, n)],  # 0.50 is a number
            "visits": rng.poisson(0.5, n).astype(str),  # "0" is a number
        }
    )
    path = tmp_path / "claims.csv"
    table.to_csv(path, index=False)
    res = runner.invoke(app, ["schema", "infer", str(path), "--json"])
    assert res.exit_code == 0, res.output
    decisions = {d["name"]: d for d in json.loads(res.stdout)["decisions"]}
    for name in ("zip", "state"):
        assert decisions[name]["decision"] == "categorical", decisions[name]
        assert "leading zeros" in decisions[name]["reason"]
    assert decisions["amount"]["decision"] == "numeric"
    assert decisions["visits"]["decision"] in ("numeric", "categorical")
    assert "leading zeros" not in decisions["visits"]["reason"]
    schema = Schema.from_dict(json.loads(res.stdout)["schema"])
    assert "01" in schema.column("state").categories
    (tmp_path / "s.json").write_text(schema.to_json())
    out = tmp_path / "synthetic.csv"
    args = ["synthesize", str(path), "--schema", str(tmp_path / "s.json"), "--out", str(out)]
    res = runner.invoke(app, [*args, "--synthesizer", "privbayes", "--param", "seed=1"])
    assert res.exit_code == 0, res.output
    written = pd.read_csv(out, dtype=str)
    assert set(written["zip"].dropna()) <= set(zips) and written["zip"].str.len().eq(5).all()
    assert written["state"].str.startswith("0").mean() > 0.1  # 01..09 of 39 states


def test_infinite_text_in_a_column_of_integer_codes_is_read_as_missing():
    """Found by the attacker of this session: "inf", "1e309" or a 400-digit number among a
    few integer codes ended `schema infer` in an OverflowError traceback."""
    codes = [str(i % 4) for i in range(200)]
    for hostile in ("inf", "-Infinity", "1e309", "9" * 400):
        table = pd.DataFrame({"code": [*codes[:-2], hostile, hostile]})
        decision, column = decide_one(table)
        assert decision.decision == "categorical", hostile
        assert column.categories == ("0", "1", "2", "3") and column.nullable


def decide_one(table: pd.DataFrame):
    draft = draft_schema(table)
    return draft.decisions[0], draft.schema.columns[0]


def test_declared_decimals_round_the_output_and_the_draft_hints_them(tmp_path):
    """A new user's grade points and attendance rates came out as 3.078807848508206. A public
    "decimals" writes a real-valued column rounded (post-processing, within the bounds); the
    draft hints the precision the CSV is written with, never declares it."""
    rng = np.random.default_rng(9)
    n = 1_000
    table = pd.DataFrame(
        {
            "gpa": np.round(rng.uniform(0, 4, n), 2),
            "rate": np.round(rng.uniform(0.5, 1, n), 3),
            "tiny": [f"{x:.1e}" for x in rng.uniform(1e-6, 1e-5, n)],  # an exponent: no hint
        }
    )
    path, doc, reasons = infer_csv(table, tmp_path / "school.csv")
    assert 'at most 2 decimals: declare "decimals": 2' in reasons["gpa"]
    assert 'declare "decimals": 3' in reasons["rate"] and "decimals" not in reasons["tiny"]
    assert all("decimals" not in c for c in doc["schema"]["columns"])  # a hint only
    spec = {"columns": [{"name": "gpa", "kind": "numeric", "lower": 0, "upper": 4,
                         "decimals": 2}]}  # fmt: skip
    (tmp_path / "s.json").write_text(json.dumps(spec))
    assert Schema.load(tmp_path / "s.json").column("gpa").decimals == 2
    out = tmp_path / "synthetic.csv"
    args = ["synthesize", str(path), "--schema", str(tmp_path / "s.json"), "--out", str(out)]
    res = runner.invoke(app, [*args, "--synthesizer", "privbayes", "--epsilon", "1"])
    assert res.exit_code == 0, res.output
    written = pd.read_csv(out, dtype=str)["gpa"]
    assert written.str.fullmatch(r"\d\.\d{1,2}|\d").all()
    assert pd.to_numeric(written).between(0, 4).all()
    for bad in (-1, 16, 2.5, True, "2"):
        spec["columns"][0]["decimals"] = bad
        with pytest.raises(DataError, match="decimals must be a whole number"):
            Schema.from_dict(spec)
    date = {"name": "d", "kind": "datetime", "lower": "2020-01-01", "upper": "2021-01-01",
            "decimals": 2}  # fmt: skip
    with pytest.raises(DataError, match="decimals is for numeric columns"):
        Schema.from_dict({"columns": [date]})


def test_a_declared_resolution_floors_dates_and_the_draft_hints_it(tmp_path):
    """A new user's claim months (2023-06) came back as days (2023-09-27) and sensor readings
    on whole minutes with seconds. A public "resolution" floors the decoded dates (within the
    bounds); the draft hints it when every value is on a whole month or minute."""
    rng = np.random.default_rng(10)
    n = 800
    months = pd.period_range("2021-01", "2023-12", freq="M").strftime("%Y-%m")
    stamps = pd.Timestamp("2024-03-01") + pd.to_timedelta(rng.integers(0, 5_000, n), unit="min")
    table = pd.DataFrame(
        {
            "month": rng.choice(months, n),
            "at": stamps.strftime("%Y-%m-%dT%H:%M:%S"),
            "day": (
                pd.Timestamp("2022-01-01") + pd.to_timedelta(rng.integers(0, 600, n), unit="D")
            ).strftime("%Y-%m-%d"),
        }
    )
    path, doc, reasons = infer_csv(table, tmp_path / "claims.csv")
    assert 'declare "resolution": "month"' in reasons["month"]
    assert 'declare "resolution": "minute"' in reasons["at"]
    assert "resolution" not in reasons["day"]
    assert all("resolution" not in c for c in doc["schema"]["columns"])  # a hint only
    schema = doc["schema"]
    for col in schema["columns"]:
        col.update(
            {"month": {"resolution": "month"}, "at": {"resolution": "minute"}}.get(col["name"], {})
        )
    (tmp_path / "s.json").write_text(json.dumps(schema))
    out = tmp_path / "synthetic.csv"
    args = ["synthesize", str(path), "--schema", str(tmp_path / "s.json"), "--out", str(out)]
    res = runner.invoke(app, [*args, "--synthesizer", "gaussian-copula"])
    assert res.exit_code == 0, res.output
    written = pd.read_csv(out)
    month = pd.to_datetime(written["month"].dropna())
    at = pd.to_datetime(written["at"].dropna())
    assert (month.dt.day == 1).all() and month.min() >= pd.Timestamp("2021-01-01")
    assert (at.dt.second == 0).all() and len(at) > 0
    # and the CSV writes them at their resolution, as the input did: 2023-06, 2024-03-01 13:05
    assert written["month"].dropna().str.fullmatch(r"\d{4}-\d\d").all()
    assert written["at"].dropna().str.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d").all()
    assert written["day"].dropna().str.fullmatch(r"\d{4}-\d\d-\d\d").all()  # none declared
    bad = {"columns": [{"name": "m", "kind": "datetime", "lower": "2021-01-01",
                        "upper": "2022-01-01", "resolution": "week"}]}  # fmt: skip
    with pytest.raises(DataError, match="resolution must be one of"):
        Schema.from_dict(bad)
    numeric = {"columns": [{"name": "x", "kind": "numeric", "lower": 0, "upper": 1,
                            "resolution": "month"}]}  # fmt: skip
    with pytest.raises(DataError, match="resolution is for datetime columns"):
        Schema.from_dict(numeric)


def infer_csv(table: pd.DataFrame, path):
    """Write ``table`` as CSV and draft it with `schema infer --json`: the path, the JSON
    document and each column's reason."""
    table.to_csv(path, index=False)
    res = runner.invoke(app, ["schema", "infer", str(path), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    return path, doc, {d["name"]: d["reason"] for d in doc["decisions"]}
