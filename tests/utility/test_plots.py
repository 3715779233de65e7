"""Figures are written as valid PNG files."""

from __future__ import annotations

import math

import pandas as pd

from synthcert.data.datasets import california_schema
from synthcert.utility.evaluate import evaluate
from synthcert.utility.plots import (
    plot_column_distances,
    plot_marginals,
    plot_matrix_difference,
    plot_study_correlation,
    plot_study_distances,
    plot_study_efficacy,
)

PNG = b"\x89PNG\r\n\x1a\n"


def test_evaluation_figures(tmp_path, california):
    schema = california_schema()
    ev = evaluate(california.iloc[:1000], california.iloc[1000:2000], schema)
    paths = [
        plot_column_distances(ev, tmp_path / "a.png"),
        plot_marginals(ev, tmp_path / "b.png", schema=schema),
        plot_matrix_difference(ev.correlation, tmp_path / "c.png", title="t"),
    ]
    for p in paths:
        assert p.read_bytes()[:8] == PNG
    assert not list(tmp_path.glob(".*.tmp"))  # atomic writes leave no temporaries


def test_study_figures(tmp_path):
    rows = []
    for name in ("s1", "s2"):
        for eps in (math.inf, 4.0, 1.0):
            for fig in ("l1", "l2", "hellinger", "wasserstein"):
                rows.append((name, eps, f"summary.{fig}_numeric_mean", 1 / eps if eps else 1, 0.1))
            rows.append((name, eps, "summary.correlation_abs_diff_mean", 0.1, 0.01))
            rows.append((name, eps, "summary.correlation_abs_diff_max", 0.2, 0.01))
            rows.append((name, eps, "summary.association_abs_diff_mean", 0.1, 0.01))
            rows.append((name, eps, "efficacy.t.synthetic", 5.0, 0.5))
    rows.append(("real-holdout", math.inf, "summary.l1_numeric_mean", 0.05, 0.0))
    table = pd.DataFrame(rows, columns=["synthesizer", "epsilon", "figure", "mean", "std"])
    outs = [
        plot_study_distances(table, "numeric", tmp_path / "d.png"),
        plot_study_efficacy(
            table, tmp_path / "e.png", targets=["t"], metrics=["rmse"], real_scores=[4.0]
        ),
        plot_study_correlation(table, tmp_path / "f.png"),
    ]
    for p in outs:
        assert p.read_bytes()[:8] == PNG


def test_marginal_figure_names_the_bins_it_used(california, tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    schema = california_schema()
    real, fake = california.iloc[:500], california.iloc[500:1000]
    titles: list[str] = []
    monkeypatch.setattr(Figure, "suptitle", lambda self, t, **kw: titles.append(t))
    for binning in ("public", "quantile"):
        ev = evaluate(real, fake, schema, bins=7, binning=binning)
        plot_marginals(ev, tmp_path / "m.png", schema=schema)
    assert titles == [
        "One-way distributions (numeric: 7 public bins)",
        "One-way distributions (numeric: 7 quantile bins of the real column)",
    ]


def test_evaluation_figures_of_a_table_with_a_date_column(tmp_path):
    from synthcert.data.schema import DatetimeColumn, NumericColumn, Schema

    dates = pd.Timestamp("2021-01-01") + pd.to_timedelta(range(300), unit="D")
    real = pd.DataFrame({"visit": dates.strftime("%Y-%m-%d"), "cost": range(300)})
    schema = Schema(
        (DatetimeColumn("visit", 18628.0, 18928.0, True, unit="D"), NumericColumn("cost", 0, 300))
    )
    ev = evaluate(real, real.sample(frac=1.0, random_state=0), schema)
    assert ev.columns["visit"].kind == "datetime"
    paths = [
        plot_column_distances(ev, tmp_path / "a.png"),
        plot_marginals(ev, tmp_path / "b.png", schema=schema),
    ]
    for p in paths:
        assert p.read_bytes()[:8] == PNG
