"""The privacy-utility study on a tiny grid (the full study is marked slow)."""

from __future__ import annotations

import json
import math

import pytest

from synthcert.reproduce.utility import (
    constant_predictor_score,
    load_study_data,
    markdown_summary,
    run_cell,
    run_utility_study,
    write_study,
)
from synthcert.synthesizers.base import constructor_params
from synthcert.synthesizers.registry import available_synthesizers


def test_available_lists_missing_with_reason():
    ok, missing = available_synthesizers(["gaussian", "no-such-synthesizer"])
    assert ok == ["gaussian"]
    assert "unknown synthesizer" in missing["no-such-synthesizer"]


def test_split_is_disjoint_and_seeded():
    a = load_study_data("california", n_train=500, n_test=300, seed=3)
    b = load_study_data("california", n_train=500, n_test=300, seed=3)
    assert a.train.equals(b.train) and len(a.train) == 500 and len(a.holdout) == 300
    keys = ["longitude", "latitude", "total_rooms", "population"]
    joined = a.train.merge(a.holdout, on=keys)
    assert len(joined) == 0
    adult = load_study_data("adult", n_train=200, n_test=100)
    assert adult.targets == ("income", "hours-per-week")


def test_singular_fit_is_recorded_not_fatal():
    data = load_study_data("adult", n_train=500, n_test=200)
    cell = run_cell(data, "gaussian", math.inf, n_runs=2)
    assert cell.n_ok == 0 and cell.mean == {}
    assert len(cell.errors) == 1 and "singular" in cell.errors[0]


def test_tiny_study(tmp_path):
    study = run_utility_study(
        "california",
        synthesizers=["gaussian", "no-such-synthesizer"],
        epsilons=[math.inf, 1.0],
        n_runs=2,
        n_test=1000,  # all 15,325 training rows: a small sample may lack the 'ISLAND' level,
    )  # and M_G then (rightly) refuses its singular covariance
    assert "no-such-synthesizer" in study.unavailable
    # gaussian takes no epsilon: it runs at inf only.
    assert [(c.synthesizer, c.epsilon) for c in study.cells] == [("gaussian", math.inf)]
    cell = study.cells[0]
    assert cell.n_ok == 2 and not cell.errors
    assert 0 < cell.mean["summary.hellinger_numeric_mean"] < 1
    assert cell.std["summary.hellinger_numeric_mean"] > 0
    assert study.real_efficacy["median_house_value"] > 0
    # The distance between two real samples is below the synthesizer's.
    assert (
        study.holdout_reference["summary.hellinger_numeric_mean"]
        < cell.mean["summary.hellinger_numeric_mean"]
    )
    paths = write_study(study, tmp_path)
    for key in ("json", "table", "summary", "fig4_3", "fig4_4", "fig4_9", "fig4_10"):
        assert paths[key].is_file()
    assert json.loads(paths["json"].read_text())["dataset"] == "california"
    assert "| gaussian | ∞ |" in markdown_summary(study)


@pytest.mark.slow
def test_quick_study_on_adult(tmp_path):
    study = run_utility_study("adult", quick=True)
    write_study(study, tmp_path)
    ran = {c.synthesizer for c in study.cells if c.n_ok}
    assert ran, study.unavailable
    # every DP synthesizer that ran: utility at eps=1 no better than at eps=inf
    for name in ran - {"gaussian"}:
        cells = {c.epsilon: c for c in study.cells if c.synthesizer == name and c.n_ok}
        if math.inf in cells and 1.0 in cells:
            key = "summary.l1_categorical_mean"
            assert cells[1.0].mean[key] >= cells[math.inf].mean[key] - 0.05


def test_constructor_params_follow_kwargs_up_the_mro():
    class Base:
        def __init__(self, schema, *, epsilon=None, delta=None, seed=None):
            pass

    class Child(Base):
        def __init__(self, schema, *, extra=1, **kwargs):
            super().__init__(schema, **kwargs)

    class Closed(Base):
        def __init__(self, schema, *, extra=1):
            super().__init__(schema)

    assert set(constructor_params(Child)) == {"schema", "extra", "epsilon", "delta", "seed"}
    assert set(constructor_params(Closed)) == {"schema", "extra"}


def test_constant_predictor_is_the_floor():
    data = load_study_data("california", n_train=2000, n_test=1000)
    score = constant_predictor_score(data, "median_house_value", "rmse")
    # RMSE of predicting the training mean is about the standard deviation (~115,000 dollars).
    assert score == pytest.approx(data.holdout["median_house_value"].std(), rel=0.05)
    assert constant_predictor_score(data, "ocean_proximity", "auc") == 0.5
