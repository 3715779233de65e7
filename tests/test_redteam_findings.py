"""The holes an adversarial review of the issue-25 fixes found, each pinned by a test.

The attacker knows every row but one and reads every published byte, stderr and exit codes
included; each case below let one record change one of those.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from synthcert.data.encode import missing_policy_for
from synthcert.data.infer import draft_schema
from synthcert.data.schema import (
    CategoricalColumn,
    DatetimeColumn,
    NumericColumn,
    Schema,
)
from synthcert.errors import AssumptionError, DataError, ParameterError
from synthcert.privacy.domain import DomainCounts, estimate_domain, plan_budget


@pytest.mark.parametrize("neighboring", ["bounded", "bounded-direct"])
@pytest.mark.parametrize("policy", ["drop", "fail"])
def test_drop_and_fail_are_refused_from_the_options_under_bounded_neighbours(policy, neighboring):
    """One missing value could be neither dropped (n is public) nor refused (the exit code is
    published): the option itself is refused, whatever the table holds."""
    with pytest.raises(ParameterError, match="bounded neighbours"):
        missing_policy_for(policy, neighboring)
    assert missing_policy_for("model", neighboring) == "fill"
    assert missing_policy_for(policy, "unbounded") == policy
    assert missing_policy_for(policy, neighboring, private=False) == policy  # no claim made


def test_a_date_with_an_offset_changes_no_other_value_and_prints_nothing():
    """pandas shifted a naive date by an earlier value's offset (or failed on the mixed
    series): one record changed another's value."""
    col = DatetimeColumn("day", *(DatetimeColumn.parse_bound(b, "s") for b in ("2010", "2020")),
                         True, unit="s")  # fmt: skip
    naive = pd.Series(["2012-01-01", "2012-01-04 12:34:56"])
    mixed = pd.Series(["2012-01-01", "2012-01-03T10:00:00+05:00", "2012-01-04 12:34:56", "x"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        alone, together = col.to_number(naive), col.to_number(mixed)
    np.testing.assert_array_equal(together[[0, 2]], alone)
    assert together[1] == col.to_number(pd.Series(["2012-01-03 05:00:00"]))[0]
    assert np.isnan(together[3])


@pytest.mark.parametrize("offset", ["+05", "+0500", "-0130", "Z", "+05:00"])
def test_any_iso_offset_changes_no_other_value_and_prints_nothing(offset):
    """Found by the attacker of the calendar-year buckets: an hour-only offset ("+05", valid
    ISO 8601) escaped the offset pattern, so pandas applied it to every naive timestamp of the
    column (599 records moved by 5 h, some across New Year) and printed a preview of the
    values (private) in a FutureWarning on stderr."""
    col = DatetimeColumn("t", 0.0, 2e9, unit="s")
    naive = pd.Series([f"2022-12-31T{h:02d}:30:00" for h in range(20, 24)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        alone = col.to_number(naive)
        together = col.to_number(pd.concat([pd.Series([f"2022-06-01T10:00{offset}"]), naive]))
    np.testing.assert_array_equal(together[1:], alone)
    hours = {"+05": 5, "+0500": 5, "-0130": -1.5, "Z": 0, "+05:00": 5}[offset]
    assert together[0] == col.to_number(pd.Series(["2022-06-01T10:00:00"]))[0] - hours * 3600


def test_numeric_looking_dates_read_the_same_whatever_a_blank():
    """Found by the same attacker: dates written 20210301 (or 2021) are read by pandas as
    int64, or as float64 once one record is blank, and every value became "20210301.0",
    unparsable: one blank turned the whole column missing."""
    col = DatetimeColumn("d", 0.0, 30_000.0)
    ints = pd.Series([20210301, 20220515, 2023])
    floats = pd.Series([20210301.0, 20220515.0, 2023.0, np.nan, 2.5])
    want = [DatetimeColumn.parse_bound(d, "D") for d in ("2021-03-01", "2022-05-15", "2023")]
    assert col.to_number(ints).tolist() == want
    got = col.to_number(floats)
    assert got[:3].tolist() == want and np.isnan(got[3:]).all()


def test_timestamps_outside_datetime64_ns_are_missing_not_wrapped():
    """Found by the same attacker: Parquet timestamps of 1600 or 2300 (stored in us or ms)
    wrapped around when cast to ns (1600 landed in 2184); a CSV reads them as missing."""
    col = DatetimeColumn("d", 0.0, 30_000.0)
    for unit in ("us", "ms", "s"):
        stamps = pd.Series(
            np.array(["1600-01-01", "2021-03-01", "2300-01-01"], f"datetime64[{unit}]")
        )
        got = col.to_number(stamps)
        assert np.isnan(got[[0, 2]]).all() and got[1] == DatetimeColumn.parse_bound(
            "2021-03-01", "D"
        )


def test_a_complex_value_changes_no_other_value():
    """Found by the attacker of the DP integer flag: one complex value in an object column (a
    frame given to the Python API) made pandas read every boolean of the column as garbage,
    moving nine whole/fractional counts; it is read as missing."""
    from synthcert.data.encode import numeric_values

    col = NumericColumn("x", 0.0, 10.0)
    base = pd.Series([True, False, 3, "4", None] * 10, dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        alone = numeric_values(base, col)
        together = numeric_values(pd.concat([base, pd.Series([complex(1, 0)], dtype=object)]), col)
    np.testing.assert_array_equal(together[:-1], alone)
    assert np.isnan(together[-1])


def test_bounds_whose_span_overflows_are_refused():
    with pytest.raises(DataError, match="span"):
        NumericColumn("a", -1e308, 1e308)
    NumericColumn("a", -1e299, 1e299)  # wide, but every encoder's arithmetic stays finite


def test_a_column_both_modelled_and_dropped_is_a_clean_error():
    with pytest.raises(DataError, match="both models and drops"):
        Schema((NumericColumn("age", 0, 100),), drop=("age",))


def test_dp_category_counts_read_an_integer_code_as_the_encoder_does():
    """A blank makes pandas read integer codes as floats: counted as "1.0", the DP category
    list of D' (one blank) differed from D's and the run refused."""
    col = CategoricalColumn("kids", ("0", "1", "2"), "data", dtype="integer")
    counts = DomainCounts(Schema((col,)))
    counts.update(pd.DataFrame({"kids": [0.0, 1.0, np.nan, 2.0]}))
    counts.update(pd.DataFrame({"kids": [1, 2]}))
    assert dict(counts.values["kids"]) == {"0": 1, "1": 2, "2": 2}


def _table(n: int = 400, kids_max: int = 9) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    kids = rng.integers(0, 10, n)
    kids[0] = kids_max
    return pd.DataFrame({"kids": kids, "age": rng.integers(18, 90, n), "const": ["x"] * n})


def test_a_drafted_kind_flips_with_one_record_so_private_domain_refuses_it():
    """An eleventh distinct value turns a categorical code column numeric; one differing value
    keeps a constant column. --private-domain refuses the drafted kinds and drops, before any
    row is read, until the user declares them public."""
    d, d2 = _table(), _table(kids_max=10)
    a, b = draft_schema(d).schema, draft_schema(d2).schema
    assert a.column("kids").kind != b.column("kids").kind  # the flip the refusal guards
    assert "kids: kind" in a.data_flags and "(dropped columns)" in a.data_flags
    kinds_only = draft_schema(d.drop(columns="const")).schema  # drops nothing: the kinds alone
    assert kinds_only.drop == () and kinds_only.drop_source == "public"
    for schema in (a, b, kinds_only):
        budget = plan_budget(schema, 0.25, 8.0, 1e-6)
        with pytest.raises(AssumptionError, match="kind"):
            estimate_domain(iter(()), schema, budget, neighboring="bounded", rng=0)
    public = a.with_public_kinds()
    assert not any(f.endswith("kind") or f.startswith("(") for f in public.data_flags)
    budget = plan_budget(public, 0.25, 8.0, 1e-6)
    est = estimate_domain([d], public, budget, neighboring="bounded", rng=0)
    assert est.schema.column("kids").kind_source == "public"
    assert Schema.from_dict(json.loads(public.to_json())) == public
    assert Schema.from_dict(json.loads(a.to_json())) == a
