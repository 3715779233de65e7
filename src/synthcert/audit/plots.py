"""Figures of the audit: IM histograms (thesis Figs. 3.8-3.9), ROC curves, and the Fig. 3.3 bars."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from synthcert.audit.attacks import THESIS_LABELS
from synthcert.audit.scoring import auc, roc_curve
from synthcert.data.io import save_and_close_figure

POS_COLOR, NEG_COLOR = "tab:red", "tab:blue"
RANDOM_COLOR, MAHMAX_COLOR = "tab:blue", "tab:orange"


def _grid(k: int):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    cols = min(4, k)
    rows = math.ceil(k / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.4 * cols, 2.6 * rows), squeeze=False)
    for ax in axes.ravel()[k:]:
        ax.set_visible(False)
    return fig, axes.ravel()


def plot_im_histograms(
    ims: Mapping[str, Mapping[str, list[float]]], path: str | Path, *, title: str = ""
) -> Path:
    """Frequency of IMs from D_pos tables (red) and D_neg tables (blue), one panel per attack."""
    fig, axes = _grid(len(ims))
    for ax, (name, sides) in zip(axes, ims.items(), strict=False):
        pos, neg = np.asarray(sides["pos"]), np.asarray(sides["neg"])
        both = np.concatenate([pos, neg])
        lo, hi = float(np.min(both)), float(np.max(both))
        bins = np.linspace(lo, hi if hi > lo else lo + 1.0, 31)
        ax.hist(neg, bins=bins, color=NEG_COLOR, alpha=0.55, label="D_neg")
        ax.hist(pos, bins=bins, color=POS_COLOR, alpha=0.55, label="D_pos")
        ax.set_title(f"{THESIS_LABELS.get(name, name)}  AUC {auc(pos, neg):.2f}", fontsize=9)
        ax.tick_params(labelsize=7)
    axes[0].legend(fontsize=7)
    fig.supxlabel("inference measure (larger = guess D_pos)", fontsize=9)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return save_and_close_figure(fig, path, dpi=120)


def plot_roc(
    ims: Mapping[str, Mapping[str, list[float]]], path: str | Path, *, title: str = ""
) -> Path:
    """ROC curves of every attack on log-log axes (low-FPR regime visible), with the diagonal."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 5))
    floor = 1e-3
    for name, sides in ims.items():
        f, t, _ = roc_curve(np.asarray(sides["pos"]), np.asarray(sides["neg"]))
        ax.plot(np.maximum(f, floor), np.maximum(t, floor), label=THESIS_LABELS.get(name, name))
    ax.plot([floor, 1], [floor, 1], "k:", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.legend(fontsize=7)
    if title:
        ax.set_title(title, fontsize=10)
    return save_and_close_figure(fig, path, dpi=120)


def plot_auc_bars(table: pd.DataFrame, path: str | Path) -> Path:
    """Fig. 3.3 of seed 003: mean AUC over synthesizers per attack, random blue, mah-max orange.

    ``table`` has columns dataset, target, synthesizer, attack, auc; one panel per dataset.
    """
    import matplotlib.pyplot as plt

    datasets = list(dict.fromkeys(table["dataset"]))
    fig, axes = plt.subplots(len(datasets), 1, figsize=(10, 3.2 * len(datasets)), squeeze=False)
    for ax, ds in zip(axes.ravel(), datasets, strict=True):
        sub = table[table["dataset"] == ds]
        mean = sub.groupby(["attack", "target"], sort=False)["auc"].mean().unstack("target")
        attacks = list(dict.fromkeys(sub["attack"]))
        mean = mean.reindex(attacks)
        x = np.arange(len(attacks))
        for k, (tgt, color) in enumerate((("random", RANDOM_COLOR), ("mah-max", MAHMAX_COLOR))):
            if tgt in mean:
                ax.bar(x + (k - 0.5) * 0.38, mean[tgt].to_numpy(), 0.38, color=color, label=tgt)
        ax.axhline(0.5, color="k", lw=0.8, ls=":")
        ax.set_xticks(x, [THESIS_LABELS.get(a, a) for a in attacks], rotation=30, fontsize=8)
        ax.set_ylim(0, 1.02)
        ax.set_ylabel("mean AUC")
        ax.set_title(ds, fontsize=10)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return save_and_close_figure(fig, path, dpi=120)
