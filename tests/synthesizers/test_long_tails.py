"""Long right tails without DP (synthcert.data.tails): a cost whose bounds are set by one large
value keeps its median and q95 in every discretising synthesizer's fit without DP, through the
default path of ``synthesize`` on a drafted schema. Before, nearly every value fell in the
first of 20 equal-width bins and was drawn uniformly within it: a median of 4,000 came out
near 600,000. With DP the scale is never read from the data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.data.tails import log_scale_long_tails
from synthcert.errors import DataError
from synthcert.workflows.job_inputs import Budget, Execution
from synthcert.workflows.synthesize import synthesize

N = 3_000
SCHEMA = Schema(
    (
        NumericColumn("cost", 0.0, 2.5e7),  # lognormal with one record at 25 million
        NumericColumn("age", 0.0, 100.0, integer=True),  # no tail
        CategoricalColumn("ward", ("a", "b", "c")),
    )
)


def costs(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ward = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    cost = rng.lognormal(np.where(ward == "c", 9.0, 8.2), 0.8)
    cost[0] = 2.5e7
    age = np.clip(np.round(rng.normal(50, 15, n)), 0, 100).astype(int)
    return pd.DataFrame({"cost": cost, "age": age, "ward": ward})


@pytest.fixture(scope="module")
def table_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("tails") / "visits.csv"
    costs(N).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("name", ["privbayes", "mwem-pgm", "aim"])
def test_a_long_tail_keeps_its_median_without_dp(table_path, tmp_path, name):
    out, notes = tmp_path / "synthetic.csv", []
    run = Execution(notify=notes.append)
    synthesize(table_path, SCHEMA, name, out, Budget(n_out=N), run, seed=3)
    real, synth = costs(N), pd.read_csv(out)
    for q in (0.5, 0.95):
        ratio = synth["cost"].quantile(q) / real["cost"].quantile(q)
        assert 0.8 < ratio < 1.25, (q, ratio)  # before: a median ratio above 100
    assert abs(synth["age"].median() - real["age"].median()) <= 3  # left on its linear scale
    assert any("cost on a log scale" in n for n in notes) and not any("age" in n for n in notes)


def test_with_dp_the_scale_is_not_read_from_the_data(table_path, tmp_path):
    notes: list[str] = []
    budget = Budget(epsilon=1.0, delta=1e-6, n_out=N, min_rows=N)
    synthesize(
        table_path, SCHEMA, "privbayes", tmp_path / "s.csv", budget, Execution(notify=notes.append),
        seed=3,
    )  # fmt: skip
    assert not any("log scale" in n for n in notes)


def test_declared_scales_and_bins_are_kept_and_no_tail_no_change():
    table = costs(500)
    declared = Schema(
        (
            NumericColumn("cost", 0.0, 2.5e7, bins=(0.0, 1e3, 1e4, 2.5e7)),
            NumericColumn("age", 0.0, 100.0, integer=True),
        )
    )
    assert log_scale_long_tails(declared, lambda: [table]) == (declared, ())
    schema, tailed = log_scale_long_tails(
        SCHEMA, lambda: iter([table.iloc[:250], table.iloc[250:]])
    )
    assert tailed == ("cost",) and schema.column("cost").scale == "log"
    assert schema.column("age") == SCHEMA.column("age")
    negative = Schema((NumericColumn("cost", -1.0, 2.5e7),))  # below 0: asinh, not log(1 + x + 1)
    schema, tailed = log_scale_long_tails(negative, lambda: [table])
    assert tailed == ("cost",) and schema.column("cost").scale == "signed-log"
    flat = Schema((NumericColumn("pnl", -100.0, 100.0),))  # a median in the middle: no tail
    pnl = pd.DataFrame({"pnl": np.random.default_rng(1).normal(0, 30, 500).clip(-100, 100)})
    assert log_scale_long_tails(flat, lambda: [pnl]) == (flat, ())


def refunds(n: int, seed: int = 0) -> pd.DataFrame:
    """A new user's hospital costs: lognormal with a median near 6,000, 3 % refunds down to
    -14,000 and a few costs in the millions."""
    rng = np.random.default_rng(seed)
    cost = rng.lognormal(8.7, 1.0, n)
    refund = rng.random(n) < 0.03
    cost[refund] = -rng.lognormal(7.5, 1.0, int(refund.sum())).clip(0, 14_000)
    cost[:3] = (2.4e6, 1.1e6, 8e5)
    return pd.DataFrame({"cost": cost})


SIGNED = Schema((NumericColumn("cost", -50_000.0, 5e6),))


def test_signed_log_round_trips_and_is_linear_near_zero():
    x = np.array([-50_000.0, -3.0, -0.5, 0.0, 0.5, 6_000.0, 5e6])
    signed = NumericColumn("cost", -50_000.0, 5e6, scale="signed-log")
    np.testing.assert_allclose(signed.from_model(signed.to_model(x)), x, rtol=1e-12, atol=1e-12)
    assert abs(signed.to_model(np.array([0.01]))[0] - 0.01) < 1e-6  # linear near 0
    assert Schema.from_dict(Schema((signed,)).to_dict()).column("cost").scale == "signed-log"
    with pytest.raises(DataError, match="too narrow for a signed-log scale"):  # the attacker's
        NumericColumn("x", 1e16, 1e16 + 8, scale="signed-log")  # asinh rounds them to one value


@pytest.mark.parametrize("name", ["privbayes", "aim"])
def test_a_tail_through_zero_keeps_its_median_without_dp(tmp_path, name):
    """Before, the log scale needed a lower bound at 0 or above: the cost with refunds kept
    equal-width bins, and its median came out at 48,000 against 6,400."""
    path, out, notes = tmp_path / "costs.csv", tmp_path / "s.csv", []
    real = refunds(N)
    real.to_csv(path, index=False)
    synthesize(path, SIGNED, name, out, Budget(n_out=N), Execution(notify=notes.append), seed=3)
    synth = pd.read_csv(out)
    assert 0.75 < synth["cost"].median() / real["cost"].median() < 1.33
    assert abs((synth["cost"] < 0).mean() - (real["cost"] < 0).mean()) < 0.03
    assert any("cost on a log scale" in n for n in notes)


def test_a_declared_signed_log_serves_a_dp_fit(tmp_path):
    """The public declaration is free under DP: PrivBayes at epsilon = 1 kept the median
    within 25 % (equal-width bins: 90,000 against 6,400)."""
    path, out = tmp_path / "costs.csv", tmp_path / "s.csv"
    real = refunds(N, seed=1)
    real.to_csv(path, index=False)
    declared = Schema((NumericColumn("cost", -50_000.0, 5e6, scale="signed-log"),))
    budget = Budget(epsilon=1.0, n_out=N)
    synthesize(path, declared, "privbayes", out, budget, seed=4)
    assert 0.75 < pd.read_csv(out)["cost"].median() / real["cost"].median() < 1.33
