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
    negative = Schema((NumericColumn("cost", -1.0, 2.5e7),))  # a log scale needs a lower end ≥ 0
    assert log_scale_long_tails(negative, lambda: [table]) == (negative, ())
