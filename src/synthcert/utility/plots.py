"""Figures of a utility evaluation (bar charts per column, heat maps) and of the privacy-utility
study in the style of thesis Figures 4.3, 4.4, 4.9 and 4.10.

Figures are drawn on ``matplotlib.figure.Figure`` objects (no pyplot state, any backend) and
written atomically.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from synthcert.data.io import save_figure
from synthcert.data.schema import Schema
from synthcert.utility.correlation import MatrixDifference
from synthcert.utility.results import UtilityEvaluation

KIND_COLOURS = {"categorical": "#4C72B0", "numeric": "#DD8452", "datetime": "#55A868"}
METRIC_LABELS = {
    "l1": "L1 distance",
    "l2": "L2 distance",
    "hellinger": "Hellinger distance",
    "wasserstein": "Wasserstein distance",
}


def plot_column_distances(ev: UtilityEvaluation, path: str | os.PathLike) -> Path:
    """Bar charts of L1, L2, Hellinger and Wasserstein per column (cf. thesis Figs. 4.5-4.8).

    Numeric Wasserstein is shown in units of the column's public range, so bars compare.
    """
    names = list(ev.columns)
    colours = [KIND_COLOURS[ev.columns[n].kind] for n in names]
    fig = Figure(figsize=(max(6.0, 0.45 * len(names) + 2), 9))
    axes = fig.subplots(4, 1, sharex=True)
    for ax, metric in zip(axes, METRIC_LABELS, strict=True):
        attr = "wasserstein_normalized" if metric == "wasserstein" else metric
        ax.bar(range(len(names)), [getattr(ev.columns[n], attr) for n in names], color=colours)
        label = METRIC_LABELS[metric] + (" (/ range)" if metric == "wasserstein" else "")
        ax.set_ylabel(label, fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    axes[-1].set_xticks(range(len(names)), names, rotation=60, ha="right", fontsize=8)
    handles = [
        Patch(color=c, label=k)
        for k, c in KIND_COLOURS.items()
        if any(ev.columns[n].kind == k for n in names)
    ]
    axes[0].legend(handles=handles, fontsize=8, loc="upper right")
    axes[0].set_title("One-way marginal distances per column (0 = identical)")
    return save_figure(fig, path)


def plot_marginals(
    ev: UtilityEvaluation,
    path: str | os.PathLike,
    *,
    schema: Schema | None = None,
    ncols: int = 4,
) -> Path:
    """Real and synthetic one-way distributions of every column, side by side (axes labelled
    with categories and bounds when the schema is given)."""
    names = list(ev.columns)
    nrows = math.ceil(len(names) / ncols)
    fig = Figure(figsize=(3.2 * ncols, 2.4 * nrows))
    axes = np.atleast_1d(fig.subplots(nrows, ncols)).ravel()
    for ax, name in zip(axes, names, strict=False):
        c = ev.columns[name]
        x = np.arange(len(c.real))
        ax.bar(x - 0.2, c.real, width=0.4, label="real", color="#555555")
        ax.bar(x + 0.2, c.synthetic, width=0.4, label="synthetic", color=KIND_COLOURS[c.kind])
        ax.set_title(f"{name}  (Hellinger {c.hellinger:.3f})", fontsize=8)
        ax.tick_params(labelsize=6)
        col = _axis_info(schema, name)
        if col is not None and c.kind == "categorical":
            ax.set_xticks(x, col, rotation=60, ha="right", fontsize=5)
        elif c.edges is not None and ev.binning == "quantile":
            ax.set_xlabel(f"{len(c.real)} quantile bins of the real column", fontsize=6)
        elif col is not None:
            ax.set_xlabel(f"{len(c.real)} bins over [{col[0]:g}, {col[1]:g}]", fontsize=6)
    for ax in axes[len(names) :]:
        ax.set_visible(False)
    axes[0].legend(fontsize=7)
    where = "quantile bins of the real column" if ev.binning == "quantile" else "public bins"
    fig.suptitle(f"One-way distributions (numeric: {ev.bins} {where})")
    return save_figure(fig, path)


def _axis_info(schema: Schema | None, name: str):
    """Category names, or (lower, upper) public bounds, of a column (None without a schema)."""
    if schema is None:
        return None
    col = schema.column(name)
    return list(col.categories) if col.kind == "categorical" else (col.lower, col.upper)


def plot_matrix_difference(md: MatrixDifference, path: str | os.PathLike, *, title: str) -> Path:
    """Heat maps of the real matrix, the synthetic matrix and |real - synthetic|."""
    k = len(md.columns)
    size = max(3.5, 0.35 * k + 1.5)
    fig = Figure(figsize=(3 * size, size))
    axes = fig.subplots(1, 3)
    panels = [
        (md.real, "real", "RdBu_r", -1),
        (md.synthetic, "synthetic", "RdBu_r", -1),
        (md.abs_diff, "|real - synthetic|", "Reds", 0),
    ]
    # The difference panel is scaled to its own maximum (at least 0.1) so small gaps show.
    diff_top = max(0.1, float(md.abs_diff.max()) if md.abs_diff.size else 0.0)
    for ax, (M, label, cmap, vmin) in zip(axes, panels, strict=True):
        vmax = diff_top if vmin == 0 else 1
        im = ax.imshow(M, cmap=cmap, vmin=vmin, vmax=vmax)
        ax.set_title(label, fontsize=9)
        ax.set_xticks(range(k), md.columns, rotation=90, fontsize=6)
        ax.set_yticks(range(k), md.columns if ax is axes[0] else [""] * k, fontsize=6)
        fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    mean = "-" if md.mean is None else f"{md.mean:.3f}"
    peak = "-" if md.max is None else f"{md.max:.3f}"
    fig.suptitle(f"{title}: mean |diff| {mean}, max {peak} (off-diagonal)")
    return save_figure(fig, path)


# -- the privacy-utility study ------------------------------------------------------------


def _eps_label(eps: float) -> str:
    return "∞" if math.isinf(eps) else f"{eps:g}"


REFERENCE = "real-holdout"


def _grouped_bars(ax, table: pd.DataFrame, figure: str, synthesizers: Sequence[str]) -> None:
    """Bars grouped by epsilon, one per synthesizer, with standard-deviation error bars; the
    ``real-holdout`` reference (two real samples) is a dashed grey line, not a bar."""
    sub = table[table["figure"] == figure]
    ref = sub[sub["synthesizer"] == REFERENCE]
    if not ref.empty:
        ax.axhline(
            float(ref["mean"].iloc[0]), color="grey", ls="--", lw=1, label="two real samples"
        )
    sub = sub[sub["synthesizer"] != REFERENCE]
    synthesizers = [s for s in synthesizers if s != REFERENCE]
    epsilons = sorted(sub["epsilon"].unique(), key=lambda e: -e)
    width = 0.8 / max(1, len(synthesizers))
    for i, name in enumerate(synthesizers):
        rows = sub[sub["synthesizer"] == name].set_index("epsilon")
        xs, ys, es = [], [], []
        for j, eps in enumerate(epsilons):
            if eps in rows.index:
                xs.append(j + (i - (len(synthesizers) - 1) / 2) * width)
                ys.append(rows.loc[eps, "mean"])
                es.append(rows.loc[eps, "std"])
        if xs:
            ax.bar(xs, ys, width=width, yerr=es, capsize=2, label=name, color=f"C{i}")
    ax.set_xticks(range(len(epsilons)), [f"ε={_eps_label(e)}" for e in epsilons])
    ax.grid(axis="y", alpha=0.3)


def plot_study_distances(
    table: pd.DataFrame, kind: str, path: str | os.PathLike, *, title: str = ""
) -> Path:
    """Mean distances over ``kind`` columns by synthesizer and epsilon (thesis Figs. 4.3 / 4.4):
    L1, L2, Hellinger and Wasserstein from the top."""
    synths = list(dict.fromkeys(table["synthesizer"]))
    fig = Figure(figsize=(max(7.0, 1.4 * table["epsilon"].nunique() + 2), 10))
    axes = fig.subplots(4, 1)
    for ax, metric in zip(axes, METRIC_LABELS, strict=True):
        _grouped_bars(ax, table, f"summary.{metric}_{kind}_mean", synths)
        unit = " (/ range)" if metric == "wasserstein" and kind == "numeric" else ""
        ax.set_ylabel(METRIC_LABELS[metric] + unit, fontsize=8)
    axes[0].legend(fontsize=7, ncol=min(6, len(synths)))
    axes[0].set_title(title or f"Mean one-way distance over {kind} columns (lower is better)")
    return save_figure(fig, path)


def plot_study_efficacy(
    table: pd.DataFrame,
    path: str | os.PathLike,
    *,
    targets: Sequence[str],
    metrics: Sequence[str],
    real_scores: Sequence[float | None],
    constant_scores: Sequence[float | None] | None = None,
    title: str = "",
) -> Path:
    """Score of LightGBM trained on synthetic, tested on held-out real rows (thesis Fig. 4.9);
    the red line is the model trained on real rows, the dotted line a model that ignores the
    features (AUC 1/2; RMSE of predicting the mean)."""
    constant_scores = list(constant_scores) if constant_scores else [None] * len(targets)
    synths = list(dict.fromkeys(table["synthesizer"]))
    fig = Figure(figsize=(max(7.0, 1.4 * table["epsilon"].nunique() + 2), 3.4 * len(targets)))
    axes = np.atleast_1d(fig.subplots(len(targets), 1))
    rows = zip(axes, targets, metrics, real_scores, constant_scores, strict=True)
    for ax, target, metric, real, const in rows:
        _grouped_bars(ax, table, f"efficacy.{target}.synthetic", synths)
        if real is not None:
            ax.axhline(real, color="red", lw=1.5, label="trained on real")
        if const is not None:
            ax.axhline(const, color="black", ls=":", lw=1.2, label="ignores the features")
        better = "lower" if metric == "rmse" else "higher"
        ax.set_ylabel(f"{target}: {metric.upper()} ({better} is better)", fontsize=8)
        if metric == "auc":
            ax.set_ylim(0.4, 1.0)
    axes[0].legend(fontsize=7, ncol=min(7, len(synths) + 1))
    axes[0].set_title(title or "Train on synthetic, test on held-out real rows (LightGBM)")
    return save_figure(fig, path)


def plot_study_correlation(
    table: pd.DataFrame, path: str | os.PathLike, *, title: str = ""
) -> Path:
    """Mean and maximum |R_orig - R_syn| over numeric column pairs (thesis Fig. 4.10), and the
    mean difference of the mixed-type association matrices."""
    synths = list(dict.fromkeys(table["synthesizer"]))
    fig = Figure(figsize=(max(7.0, 1.4 * table["epsilon"].nunique() + 2), 8))
    axes = fig.subplots(3, 1)
    panels = [
        ("summary.correlation_abs_diff_mean", "mean |ΔR| (numeric)"),
        ("summary.correlation_abs_diff_max", "max |ΔR| (numeric)"),
        ("summary.association_abs_diff_mean", "mean |ΔA| (all columns)"),
    ]
    for ax, (figure, label) in zip(axes, panels, strict=True):
        _grouped_bars(ax, table, figure, synths)
        ax.set_ylabel(label, fontsize=8)
    axes[0].legend(fontsize=7, ncol=min(6, len(synths)))
    axes[0].set_title(title or "Differences in correlations (lower is better)")
    return save_figure(fig, path)
