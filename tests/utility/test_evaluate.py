"""The whole evaluation: invariants of issue #8 and the JSON shape."""

from __future__ import annotations

import json

import numpy as np
import pytest

from synthcert.data.datasets import adult_schema, california_schema
from synthcert.errors import DataError
from synthcert.utility.evaluate import evaluate

SUMMARY_KEYS = {
    "l1_categorical_mean",
    "l1_numeric_mean",
    "hellinger_numeric_mean",
    "correlation_abs_diff_mean",
    "correlation_abs_diff_max",
}


def test_table_against_itself_scores_zero_everywhere(adult):
    res = evaluate(adult, adult, adult_schema())
    for v in res.summary.values():
        assert v == pytest.approx(0.0, abs=1e-12)
    for col in res.columns.values():
        assert col.l1 == col.l2 == col.hellinger == 0.0
        assert col.wasserstein == pytest.approx(0.0, abs=1e-12)
    assert np.all(res.correlation.abs_diff == 0) and np.all(res.association.abs_diff == 0)


def test_shuffled_column_keeps_marginals_raises_correlation(adult):
    schema = adult_schema()
    shuffled = adult.copy()
    shuffled["education-num"] = np.random.default_rng(0).permutation(
        shuffled["education-num"].to_numpy()
    )
    res = evaluate(adult, shuffled, schema)
    for k in ("l1", "l2", "hellinger", "wasserstein"):
        assert res.summary[f"{k}_numeric_mean"] == pytest.approx(0.0, abs=1e-12)
        assert res.summary[f"{k}_categorical_mean"] == pytest.approx(0.0, abs=1e-12)
    assert res.summary["correlation_abs_diff_mean"] > 0.01
    assert res.summary["correlation_abs_diff_max"] > 0.1
    # education-num determines education: Cramér-like association eta drops from 1.
    assoc = res.association
    i, j = assoc.columns.index("education"), assoc.columns.index("education-num")
    assert assoc.real[i, j] == pytest.approx(1.0)
    assert assoc.abs_diff[i, j] > 0.9


def test_json_shape_and_efficacy(california):
    schema = california_schema()
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(california))
    train = california.iloc[idx[:2000]]
    hold = california.iloc[idx[2000:3000]]
    fake = california.iloc[idx[3000:5000]]
    res = evaluate(train, fake, schema, target="median_house_value", holdout=hold)
    d = json.loads(json.dumps(res.to_dict()))
    assert set(d) >= {"columns", "summary", "efficacy", "correlation", "association"}
    assert set(d["summary"]) >= SUMMARY_KEYS
    assert set(d["columns"]["median_income"]) >= {"l1", "l2", "hellinger", "wasserstein"}
    e = d["efficacy"]["median_house_value"]
    assert e["metric"] == "rmse" and e["n_test"] == 1000
    # Fresh real rows are as good as real training rows (within LightGBM noise).
    assert e["synthetic"] == pytest.approx(e["real"], rel=0.15)
    assert 30_000 < e["real"] < 80_000
    no_target = evaluate(train, fake, schema).to_dict()
    assert "efficacy" not in no_target


def test_efficacy_without_holdout_is_refused(california):
    with pytest.raises(DataError, match="held-out"):
        evaluate(california, california, california_schema(), target="median_house_value")
    with pytest.raises(DataError, match="no column"):
        evaluate(california, california, california_schema(), target="nope", holdout=california)


def test_a_column_left_out_of_the_synthetic_table_is_noted_not_refused():
    # --param private_domain leaves out a column whose DP category list kept one value
    import pandas as pd

    from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema

    rng = np.random.default_rng(4)
    schema = Schema(
        (
            NumericColumn("amount", 0.0, 100.0),
            CategoricalColumn("is_fraud", ("False", "True")),
            CategoricalColumn("verified", ("no", "yes")),
        )
    )
    real = pd.DataFrame(
        {
            "amount": rng.uniform(0, 100, 500),
            "is_fraud": rng.choice(["False", "True"], 500, p=[0.95, 0.05]),
            "verified": rng.choice(["no", "yes"], 500),
        }
    )
    synthetic = real.drop(columns="is_fraud").sample(frac=1.0, random_state=1)
    result = evaluate(real, synthetic, schema)
    assert set(result.columns) == {"amount", "verified"}
    assert result.summary["l1_categorical_mean"] == pytest.approx(0.0, abs=1e-12)
    (note,) = result.notes
    assert "is_fraud" in note and json.loads(json.dumps(result.to_dict()))["notes"] == [note]
    with pytest.raises(DataError, match="synthetic table has no column 'is_fraud' to train"):
        evaluate(real, synthetic, schema, target="is_fraud", holdout=real)
    with pytest.raises(DataError, match="no column"):  # nothing in common: refused
        evaluate(real, synthetic.rename(columns=str.upper), schema)


def test_few_complete_rows_and_a_changed_missing_share_are_noted():
    """The marginals count complete rows only: an evaluation on a few of them says so, and
    names each column whose share of missing values moved (a new user's survey was scored on
    300 of 4,000 rows, with nothing but a count in the summary to tell)."""
    import pandas as pd

    from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema

    rng = np.random.default_rng(5)
    schema = Schema(
        (
            NumericColumn("q1", 1.0, 5.0, nullable=True),
            CategoricalColumn("region", ("n", "s"), nullable=True),
        )
    )
    real = pd.DataFrame({"q1": rng.integers(1, 6, 1000).astype(float), "region": "n"})
    real.loc[rng.random(1000) < 0.4, "q1"] = np.nan
    same = evaluate(real, real, schema)
    (note,) = same.notes
    assert "complete rows only" in note and f"{same.n_real:,} of 1,000 real rows" in note
    synthetic = real.fillna({"q1": 3.0})
    moved = evaluate(real, synthetic, schema).notes
    assert any(n.startswith("q1: 0.0% missing in the synthetic table") for n in moved)
    assert not any(n.startswith("region") for n in moved)
    full = real.dropna()
    assert evaluate(full, full, schema).notes == ()  # nothing left out, nothing moved
