"""Train-on-synthetic, test-on-real efficacy with LightGBM."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.errors import DataError
from synthcert.utility.efficacy import efficacy, macro_auc, rmse

SCHEMA = Schema(
    (
        NumericColumn("x", -3.0, 3.0),
        NumericColumn("noise", -3.0, 3.0),
        CategoricalColumn("g", ("a", "b", "c")),
        NumericColumn("y", -20.0, 20.0),
        CategoricalColumn("label", ("neg", "pos")),
    )
)


def _table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.uniform(-3, 3, n)
    g = rng.choice(["a", "b", "c"], n)
    shift = pd.Series(g).map({"a": -2.0, "b": 0.0, "c": 2.0}).to_numpy()
    return pd.DataFrame(
        {
            "x": x,
            "noise": rng.uniform(-3, 3, n),
            "g": g,
            "y": 3 * x + shift + rng.normal(0, 0.5, n),
            "label": np.where(x + rng.normal(0, 0.3, n) > 0, "pos", "neg"),
        }
    )


def test_rmse_and_auc_hand_values():
    assert rmse(np.array([0.0, 0.0]), np.array([3.0, 4.0])) == pytest.approx(np.sqrt(12.5))
    y = np.array([0, 0, 1, 1])
    assert macro_auc(y, np.column_stack([1 - np.arange(4) / 4, np.arange(4) / 4])) == 1.0
    y3 = np.array([0, 1, 2, 2])
    perfect = np.eye(3)[y3]
    assert macro_auc(y3, perfect) == 1.0


def test_real_copy_scores_like_real_and_noise_scores_badly():
    train, test = _table(1500, 1), _table(1000, 2)
    reg = efficacy(train, test, SCHEMA, "y", real_train=train)
    assert reg.metric == "rmse" and reg.task == "regression"
    assert reg.synthetic == pytest.approx(reg.real)  # same rows, same seed, same model
    assert reg.real < 0.8  # noise sd 0.5: a good model is close to it
    assert reg.gap == pytest.approx(0.0)
    clf = efficacy(train, test, SCHEMA, "label", real_train=train)
    assert clf.metric == "auc" and clf.real > 0.95
    # Break the link between features and targets: the synthetic-trained model degrades.
    broken = train.copy()
    rng = np.random.default_rng(3)
    broken["y"] = rng.permutation(broken["y"].to_numpy())
    broken["label"] = rng.permutation(broken["label"].to_numpy())
    assert efficacy(broken, test, SCHEMA, "y").synthetic > 3 * reg.real
    assert efficacy(broken, test, SCHEMA, "label").synthetic < 0.65


def test_single_class_training_rows_score_one_half():
    train, test = _table(300, 4), _table(300, 5)
    train["label"] = "neg"
    res = efficacy(train, test, SCHEMA, "label")
    assert res.synthetic == 0.5
    assert "single class" in res.note


def test_unknown_target_is_refused():
    t = _table(50, 6)
    with pytest.raises(DataError, match="no column"):
        efficacy(t, t, SCHEMA, "missing")


def test_a_table_without_a_complete_row_is_named_with_its_most_missing_columns():
    """A new user's efficacy error named neither the table nor the column."""
    train, test = _table(200, 7), _table(200, 8)
    train["noise"] = np.nan  # a column missing everywhere in the synthetic rows
    with pytest.raises(DataError, match=r"the synthetic table has none .*noise 100%"):
        efficacy(train, test, SCHEMA, "y")
