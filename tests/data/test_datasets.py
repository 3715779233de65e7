"""Reference dataset loaders and the built-in demo table."""

from __future__ import annotations

import urllib.request

import numpy as np
import pandas as pd
import pytest

from synthcert.data import datasets
from synthcert.data.encode import Encoder
from synthcert.errors import DataError


def test_reference_tables_have_their_documented_sizes(data_home):
    assert datasets.load_adult(data_home).shape == (30_162, 15)
    assert datasets.load_adult(data_home, split="test").shape == (15_060, 15)
    assert datasets.load_california_housing(data_home).shape == (20_433, 10)
    adult = datasets.load_adult(data_home)
    # every value lies within the public schema: nothing clipped, no unknown category
    _, report = Encoder(datasets.adult_schema()).encode(adult)
    assert report.rows_clipped == 0
    assert set(adult["income"]) == {"<=50K", ">50K"}


def test_missing_data_without_network_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("SYNTHCERT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("SYNTHCERT_DATA_HOME", raising=False)

    def offline(*args, **kwargs):
        raise OSError("network unreachable")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(DataError, match="adult.data was not found .* set SYNTHCERT_DATA_HOME"):
        datasets.load_adult()
    assert not (tmp_path / "cache" / "adult.data").exists()


def test_demo_table_is_deterministic_and_within_its_public_bounds():
    a = datasets.make_demo_table(5_000, seed=3)
    pd.testing.assert_frame_equal(a, datasets.make_demo_table(5_000, seed=3))
    _, report = Encoder(datasets.demo_schema()).encode(a)
    assert report.rows_clipped == 0
    corr = np.corrcoef(a["years_of_education"], a["annual_income"])[0, 1]
    assert 0.3 < corr < 0.6  # the generator's correlation of 0.45 survives the marginals


def test_california_in_scikit_learns_columns_derives_the_ratios(california):
    features = datasets.california_sklearn_features(california)
    assert list(features.columns) == datasets.CALIFORNIA_SKLEARN
    assert features.shape == (20_433, 9)
    row = features.loc[features["AveOccup"].idxmax()]
    # block 19,006 of scikit-learn's copy: 7,460 people in 6 households
    assert row["AveOccup"] == pytest.approx(7460 / 6)
    assert row["MedHouseVal"] == pytest.approx(1.375)
    _, report = Encoder(datasets.california_sklearn_schema()).encode(features)
    assert report.rows_clipped == 0
    sources = {c.name: c.source for c in datasets.california_sklearn_schema().columns}
    assert sorted(k for k, v in sources.items() if v == "data") == [
        "AveBedrms", "AveOccup", "AveRooms",
    ]  # fmt: skip


@pytest.mark.parametrize(
    "path, build",
    [
        ("adult_schema.json", lambda: datasets.adult_schema()),
        ("adult_numeric_schema.json", lambda: datasets.adult_schema(numeric_only=True)),
        ("california_schema.json", lambda: datasets.california_schema()),
        ("california_numeric_schema.json", lambda: datasets.california_schema(numeric_only=True)),
        ("california_sklearn_schema.json", datasets.california_sklearn_schema),
    ],
)
def test_example_schemas_are_the_loaders_schemas(path, build):
    from pathlib import Path

    from synthcert.data.schema import Schema

    example = Path(__file__).resolve().parents[2] / "examples" / path
    assert Schema.load(example) == build()
