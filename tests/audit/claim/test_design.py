"""The worst-case pair is built from the public schema alone, under the synthesizer's relation."""

from __future__ import annotations

import numpy as np
import pytest

from synthcert.audit.claim.design import anchor_pair, build_pair, worst_case_pair
from synthcert.data.discretize import Discretizer
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import ParameterError

SCHEMA = Schema(
    (
        NumericColumn("age", 17, 90),
        CategoricalColumn("sex", ("F", "M")),
        CategoricalColumn("edu", ("a", "b", "c")),
        NumericColumn("hours", 0, 99, integer=True, bins=(0.0, 20.0, 40.0, 99.0)),
    )
)


def test_bounded_pair_replaces_one_record_and_keeps_the_size():
    pair = worst_case_pair(SCHEMA, "bounded", copies=10)
    assert len(pair.without) == len(pair.with_canary) == 11
    # the tables share the ten copies; D has one more copy where D' has the canary
    assert pair.without.iloc[:10].equals(pair.with_canary.iloc[:10])
    assert pair.without.iloc[10].tolist() == pair.base.iloc[0].tolist()
    assert pair.with_canary.iloc[10].tolist() == pair.canary.iloc[0].tolist()
    assert pair.table(1) is pair.with_canary and pair.table(0) is pair.without


def test_unbounded_pair_adds_the_canary():
    pair = worst_case_pair(SCHEMA, "unbounded", copies=10)
    assert len(pair.without) == 10 and len(pair.with_canary) == 11
    assert pair.with_canary.iloc[:10].equals(pair.without)


def test_canary_sits_in_another_bin_or_category_of_every_column():
    pair = worst_case_pair(SCHEMA, "bounded")
    disc = Discretizer(SCHEMA, bins=20)
    base, canary = disc.transform(pair.base)[0], disc.transform(pair.canary)[0]
    assert np.all(base != canary)
    assert base.tolist() == [0, 0, 0, 3]  # hours 0: the code of its atom 0, after its 3 bins
    # the last bin or category of each column (declared edges respected: 3 bins for hours)
    assert canary.tolist() == [19, 1, 2, 2]
    assert pair.canary["age"].iloc[0] == 90 and pair.base["age"].iloc[0] == 17
    assert pair.canary["sex"].iloc[0] == "M" and pair.base["edu"].iloc[0] == "a"


def test_the_pair_follows_the_schema_as_given():
    pair = worst_case_pair(SCHEMA, "unbounded")
    assert list(pair.with_canary.columns) == SCHEMA.names
    assert pair.schema is SCHEMA


def test_anchor_design_is_ten_zeros_plus_an_all_ones_canary():
    pair = anchor_pair("bounded")
    assert pair.design == "anchor" and pair.copies == 10
    assert pair.schema.names == ["a", "b", "c"]
    assert (pair.with_canary.iloc[:10] == "0").all().all()
    assert pair.canary.iloc[0].tolist() == ["1", "1", "1"]
    assert build_pair(None, "bounded", "anchor").canary.equals(pair.canary)


@pytest.mark.parametrize(
    ("schema", "relation", "design"),
    [
        (SCHEMA, "replace-two", "domain"),
        (SCHEMA, "bounded", "nonsense"),
        (None, "bounded", "domain"),
    ],
)
def test_impossible_designs_are_refused(schema, relation, design):
    with pytest.raises(ParameterError):
        build_pair(schema, relation, design)


def test_every_name_the_package_exports_resolves():
    import synthcert.audit.claim as claim

    assert {"ClaimAuditResult", "run_claim_audit", "worst_case_pair"} <= set(claim.__all__)
    for name in claim.__all__:
        assert getattr(claim, name) is not None
    with pytest.raises(AttributeError):
        claim.no_such_name  # noqa: B018
