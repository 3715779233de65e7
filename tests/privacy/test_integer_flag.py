"""The DP integer flag (synthcert.privacy.integer_flag): the counts, their sensitivity, the
decision's error rates by simulation, its accounting, and whole ages on a new user's table."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.privacy.accountant import PrivacyAccountant
from synthcert.privacy.domain import estimate_domain, plan_budget
from synthcert.privacy.integer_flag import (
    KEEP_FAILURE,
    MECHANISM,
    PART,
    ROUND_FAILURE,
    dp_integer,
    whole_counts,
)
from synthcert.privacy.magnitude_bounds import threshold


def test_whole_counts_put_each_present_value_in_one_count():
    x = np.array([2.0, -0.0, 3.5, np.inf, -np.inf, np.nan, 1e15, -7.0, 0.1])
    assert whole_counts(x).tolist() == [4, 4]  # 2, -0, 1e15, -7 | 3.5, +-inf, 0.1
    assert whole_counts(np.array([])).tolist() == [0, 0]


@pytest.mark.parametrize(("noise", "budget"), [("laplace", 0.05), ("gaussian", 1e-4)])
def test_the_decision_errs_at_the_stated_rates(noise, budget):
    """Simulated, 2,000 runs per case: a column of whole numbers holding 2 T_w of them is
    declared whole except about KEEP_FAILURE of the time; a column without a whole value, or
    with none at all, at most ROUND_FAILURE of the time; a real-valued column holding many
    values never."""
    t_w = threshold(noise, budget, "bounded", ROUND_FAILURE, buckets=1)
    rng = np.random.default_rng(11)

    def share(w: int, f: int, runs: int = 2_000) -> float:
        counts = np.array([w, f])
        return np.mean(
            [dp_integer(counts, noise, budget, neighboring="bounded", rng=rng) for _ in range(runs)]
        )

    assert share(2 * t_w, 0) >= 1 - 2 * KEEP_FAILURE - 0.01  # both tests pass
    assert share(0, 0) <= ROUND_FAILURE + 0.005
    assert share(0, 3 * t_w) == 0.0
    assert share(10 * t_w, 10 * t_w) == 0.0  # as many fractional values as whole ones


def test_the_test_is_recorded_and_checks_its_counts():
    acc = PrivacyAccountant(1.0, None)
    dp_integer(np.array([10, 0]), "laplace", 0.25, neighboring="unbounded",
               rng=np.random.default_rng(0), accountant=acc)  # fmt: skip
    assert [(e.mechanism, e.epsilon) for e in acc.ledger] == [(MECHANISM, 0.25)]
    with pytest.raises(ValueError, match="2 bucket counts"):
        dp_integer(np.zeros(3), "laplace", 0.25, neighboring="unbounded",
                   rng=np.random.default_rng(0))  # fmt: skip


def test_a_new_users_whole_columns_come_out_whole():
    """The new-user trial: ages, stays and quantities read as integers by `schema infer` came
    out as 46.1975 and 1.0139 under --param private_domain (the former rule made every such
    column real-valued). On 5,000 rows at a domain share of 0.2 of epsilon 1 the test declares
    them whole, with whole bounds, and keeps a cost real-valued; the split states its budget."""
    rng = np.random.default_rng(4)
    n = 5_000
    df = pd.DataFrame(
        {
            "age": rng.integers(0, 100, n).astype(float),
            "stay": np.where(rng.random(n) < 0.1, np.nan, rng.poisson(4, n)),
            "cost": np.round(rng.lognormal(8, 1, n), 2),
        }
    )
    schema = Schema(
        tuple(
            NumericColumn(c, 0.0, 1.0, integer=c != "cost", source="data", integer_source="data")
            for c in df.columns
        )
    )
    budget = plan_budget(schema, 0.2, 1.0, 0.0, neighboring="unbounded")
    assert budget.integer_columns == ("age", "stay", "cost")  # the marks, not the flags' values
    whole = {c: 0 for c in df.columns}
    for seed in range(10):
        est = estimate_domain([df], schema, budget, neighboring="unbounded",
                              rng=np.random.default_rng(seed))  # fmt: skip
        assert est.spent.epsilon == pytest.approx(0.2)
        for col in est.schema.columns:
            whole[col.name] += col.integer
            if col.integer:
                assert col.lower == math.floor(col.lower) and col.upper == math.ceil(col.upper)
    assert whole["age"] >= 9 and whole["stay"] >= 9 and whole["cost"] == 0
    needs = budget.needs()
    assert any(line.startswith("age: DP integer test at epsilon ") for line in needs)


def test_a_declared_fractional_atom_keeps_the_column_real_valued():
    """Public rule: an integer column cannot hold the atom 2.5, so a column declaring it stays
    real-valued whatever the test says (the schema would refuse it otherwise, after the run
    had read the data)."""
    df = pd.DataFrame({"x": np.tile(np.arange(1.0, 50.0), 100)})
    col = NumericColumn("x", 0.0, 1.0, integer=True, source="data", integer_source="data",
                        atoms=(2.5,))  # fmt: skip
    budget = plan_budget(Schema((col,)), 0.5, 2.0, 0.0, neighboring="unbounded")
    est = estimate_domain([df], Schema((col,)), budget, neighboring="unbounded",
                          rng=np.random.default_rng(0))  # fmt: skip
    assert not est.schema.column("x").integer
    whole = NumericColumn("x", 0.0, 1.0, integer=True, source="data", integer_source="data",
                          atoms=(2.0,))  # fmt: skip
    est = estimate_domain([df], Schema((whole,)), budget, neighboring="unbounded",
                          rng=np.random.default_rng(0))  # fmt: skip
    assert est.schema.column("x").integer


@pytest.mark.parametrize("route", ["pure", "zcdp"])
def test_columns_given_a_public_range_get_the_integer_test_too(route):
    """The second new-user trial: birth years given `--param domain_range=birth_year=1900:2030`
    came out as floats, since only bucketed columns had the integer test. A range column now
    pays it from its two quantiles' budget (each quantile's epsilon times 1 - PART, or its
    square root on the zCDP route), so the column's total and the step's are unchanged."""
    rng = np.random.default_rng(8)
    n = 6_000
    df = pd.DataFrame(
        {
            "birth_year": np.where(rng.random(n) < 0.1, np.nan, rng.integers(1945, 2006, n)),
            "bmi": np.round(rng.normal(26, 4, n), 1),
            "group": rng.choice(["a", "b", "c"], n),
        }
    )
    cols = [
        NumericColumn(c, 0.0, 1.0, integer=True, source="data", integer_source="data")
        for c in ("birth_year", "bmi")
    ]
    if route == "zcdp":
        cols.append(CategoricalColumn("group", ("a", "b"), source="data"))
    schema = Schema(tuple(cols))
    ranges = {"birth_year": (1900.0, 2030.0), "bmi": (10.0, 60.0)}
    delta = 1e-6 if route == "zcdp" else 0.0
    budget = plan_budget(schema, 0.2, 1.0, delta, neighboring="unbounded", ranges=ranges)
    assert budget.bucket_columns == () and budget.integer_columns == ("birth_year", "bmi")
    keep = 1 - PART if route == "pure" else math.sqrt(1 - PART)
    for name in ("birth_year", "bmi"):
        assert budget.range_epsilon(name) == pytest.approx(budget.quantile_epsilon(name) * keep)
    for seed in range(5):
        est = estimate_domain([df], schema, budget, neighboring="unbounded", ranges=ranges,
                              rng=np.random.default_rng(seed))  # fmt: skip
        assert est.spent.epsilon == pytest.approx(budget.epsilon)
        assert est.spent.epsilon <= budget.epsilon * (1 + 1e-12)
        assert sum(MECHANISM in e.mechanism for e in est.ledger) == 2
        year, bmi = est.schema.column("birth_year"), est.schema.column("bmi")
        assert year.integer and not bmi.integer
        assert 1900 <= year.lower <= 1946 and 2004 <= year.upper <= 2030
        assert year.lower == math.floor(year.lower) and year.upper == math.ceil(year.upper)
        note = est.bounds_note()  # stated after the step: the bounds and the test's outcome
        assert f"birth_year [{year.lower:g}, {year.upper:g}] whole, bmi [{bmi.lower:g}," in note
        # a function of the DP schema and the public plan only: the private facts do not move it
        private = replace(est, rows=est.rows + 1, ledger=(), candidates=0)
        assert private.bounds_note() == note and private.lists_note() == est.lists_note()
    needs = budget.needs()
    unit = "epsilon" if route == "pure" else "rho"
    assert any(line.startswith(f"birth_year: DP integer test at {unit} ") for line in needs)
    e = budget.range_epsilon("birth_year")
    assert any(
        line.startswith(f"birth_year: two DP quantiles at epsilon {e:.3g}") for line in needs
    )
