"""The reproduction grid of thesis chapter 3 on a tiny setting (the full one is hours)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from synthcert.audit import AttackParams
from synthcert.reproduce.setsubun import GridSettings, reproduce_setsubun, summary_table


def test_tiny_grid_writes_table_figure_and_reports_skips(tmp_path, data_home):
    settings = GridSettings(
        rows=400, trials=1, generations=4, params=AttackParams(c2=2),
        synthesizers=("gaussian", "no-such-synth"), attacks=("distance", "statistics"), seed=0,
    )  # fmt: skip
    grid = reproduce_setsubun(tmp_path, settings=settings)
    table = pd.read_csv(tmp_path / "aucs.csv")
    # gaussian fits California's nine numeric columns; Adult's 15 have a singular covariance
    assert set(table["dataset"]) == {"california"}
    assert set(table["target"]) == {"random", "mah-max"} and len(table) == 4
    reasons = {(s["synthesizer"], s.get("dataset", "")) for s in grid.skipped}
    assert ("no-such-synth", "") in reasons and ("gaussian", "adult") in reasons
    assert (tmp_path / "figure_3_3.png").stat().st_size > 0
    doc = json.loads((tmp_path / "grid.json").read_text())
    assert doc["max_mahalanobis"]["adult"]["thesis"] == pytest.approx(173.67)
    assert doc["max_mahalanobis"]["adult"]["ours"] <= (400 - 1) ** 0.5 + 1e-9
    assert set(summary_table(grid).columns) >= {"dataset", "attack", "random", "mah-max"}
