"""AIM at epsilon = 1 on a long-tailed wage: equal-width, log-scale and DP-quantile bins.

A weekly wage with median near 500 and public bounds [0, 20,000] puts almost every row in the
first one or two of 20 equal-width bins, so AIM's marginals cannot carry the wage's shape or
its correlations. Two remedies: ``scale: log`` (public: bins equal in log(1 + x - lower))
follows the shape without reading the data; ``bins: dp-quantile`` cuts at DP quantiles of the
wage (:mod:`synthcert.privacy.quantile_bins`), paid from --dp-share of epsilon, AIM getting the
rest, so every run's total is epsilon; "dp-quantile, log" declares the wage ``scale: log`` too
(what ``--param dp_bins_log=true`` does): the edges' base measure and the draw within a bin
are then on the log scale. Prints, for each binning, over --seeds runs on the
deterministic wage fixture (tests/fixtures/real_tables.py): the mean relative error of the
wage's nine deciles, the mean |delta corr| of the numeric columns' Pearson correlations, and
the ratios against equal-width bins. ``--figure PATH`` draws the real and synthetic wage
histograms of the first run of each binning, with the bin edges (docs/img/skewed_bins.png).

    PYTHONPATH=src python benchmarks/skewed_bins.py [--rows 5000] [--seeds 3] [--epsilon 1]
        [--dp-share 0.2] [--dp-bins 20] [--figure docs/img/skewed_bins.png]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "fixtures"))

from real_tables import WAGE_UPPER, wage_table

from synthcert.data.discretize import DEFAULT_BINS, bin_edges
from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.privacy.quantile_bins import quantile_bins_step
from synthcert.synthesizers.pgm import AIMSynthesizer

NUMERIC = ["wage", "hours", "age"]
DECILES = np.linspace(0.1, 0.9, 9)
BINNINGS = ("equal-width", "log", "dp-quantile", "dp-quantile, log")


def schema(binning: str, dp_bins: int = DEFAULT_BINS) -> Schema:
    """The wage table's public schema; only the wage's bins differ."""
    wage = NumericColumn("wage", 0.0, WAGE_UPPER)
    if binning in ("log", "dp-quantile, log"):
        wage = replace(wage, scale="log")
    if binning.startswith("dp-quantile"):
        wage = replace(wage, quantile_bins=dp_bins)
    return Schema(
        (
            wage,
            NumericColumn("hours", 0.0, 80.0, integer=True),
            NumericColumn("age", 16.0, 90.0, integer=True),
            CategoricalColumn("education", ("none", "school", "college", "degree")),
        )
    )


def decile_error(real: pd.Series, synth: pd.Series) -> float:
    """Mean over the nine deciles of |q_synth - q_real| / q_real."""
    qr, qs = real.quantile(DECILES).to_numpy(), synth.quantile(DECILES).to_numpy()
    return float(np.mean(np.abs(qs - qr) / qr))


def corr_error(real: pd.DataFrame, synth: pd.DataFrame) -> float:
    """Mean |delta corr| over the pairs of numeric columns (Pearson)."""
    cr = real[NUMERIC].astype(float).corr().to_numpy()
    cs = synth[NUMERIC].astype(float).corr().to_numpy()
    iu = np.triu_indices(len(NUMERIC), 1)
    return float(np.mean(np.abs(cr - cs)[iu]))


def run(
    real: pd.DataFrame, binning: str, seed: int, args: argparse.Namespace
) -> tuple[pd.DataFrame, np.ndarray]:
    """One AIM run at the total epsilon; returns the synthetic table and the wage's edges."""
    sch, eps = schema(binning, args.dp_bins), args.epsilon
    if binning.startswith("dp-quantile"):
        step = quantile_bins_step(
            lambda: [real], sch, eps, share=args.dp_share, seed=np.random.SeedSequence(seed)
        )
        sch, eps = step.schema, step.synthesizer_epsilon
        assert step.spent is not None and step.spent.epsilon + eps <= args.epsilon + 1e-9
    synth = AIMSynthesizer(sch, epsilon=eps, seed=seed).fit(real)
    out = synth.sample(args.rows, seed=seed + 1_000)
    return out, bin_edges(sch.column("wage"))  # type: ignore[arg-type]


def figure(path: str, real: pd.DataFrame, runs: dict[str, tuple[pd.DataFrame, np.ndarray, float]],
           means: dict[str, tuple[float, float]], epsilon: float) -> None:  # fmt: skip
    """Real vs synthetic wage histograms (log axis), one panel per binning, edges as ticks."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(runs), figsize=(3.4 * len(runs), 3.3), sharey=True)
    grid = np.geomspace(20, WAGE_UPPER, 61)
    for ax, (label, (out, edges, err)) in zip(axes, runs.items(), strict=True):
        ax.hist(real["wage"].clip(lower=20), grid, density=False, histtype="stepfilled",
                color="0.8", label="real")  # fmt: skip
        ax.hist(out["wage"].clip(lower=20), grid, density=False, histtype="step", lw=1.4,
                color="C3", label=f"synthetic: decile error {err:.3f}\n"
                f"(mean of runs {means[label][0]:.3f})")  # fmt: skip
        for e in edges[1:-1]:
            ax.axvline(max(e, 20), ymin=0, ymax=0.06, color="C0", lw=0.8)
        ax.set_xscale("log")
        ax.set_title(f"{label} bins ({len(edges) - 1})", fontsize=9)
        ax.set_xlabel("weekly wage (log axis; ticks: bin edges)", fontsize=8)
        ax.legend(fontsize=7, loc="upper right")
    axes[0].set_ylabel("rows")
    title = (
        f"AIM at epsilon = {epsilon:g} on a long-tailed wage ({len(real):,} rows, bounds "
        f"[0, {WAGE_UPPER:,.0f}]); first run of each binning"
    )
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    print(f"figure written to {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=5_000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--dp-share", type=float, default=0.2)
    parser.add_argument("--dp-bins", type=int, default=DEFAULT_BINS)
    parser.add_argument("--figure", default=None)
    args = parser.parse_args()
    real = wage_table(args.rows)
    results: dict[str, tuple[float, float]] = {}
    first: dict[str, tuple[pd.DataFrame, np.ndarray, float]] = {}
    for label in BINNINGS:
        dec, cor = [], []
        t0 = time.perf_counter()
        for seed in range(args.seeds):
            out, edges = run(real, label, seed, args)
            dec.append(decile_error(real["wage"], out["wage"]))
            cor.append(corr_error(real, out))
            if seed == 0:
                first[label] = (out, edges, dec[-1])
        results[label] = (float(np.mean(dec)), float(np.mean(cor)))
        print(
            f"{label:>11} bins: wage decile error {results[label][0]:.3f} "
            f"[{min(dec):.3f}, {max(dec):.3f}], mean |delta corr| {results[label][1]:.3f} "
            f"[{min(cor):.3f}, {max(cor):.3f}] ({args.seeds} runs, "
            f"{time.perf_counter() - t0:.0f} s)",
            flush=True,
        )
    eq = results["equal-width"]
    for label in BINNINGS[1:]:
        r = results[label]
        print(
            f"ratio {label} / equal-width: decile error {r[0] / eq[0]:.2f}, "
            f"|delta corr| {r[1] / eq[1]:.2f}"
        )
    if args.figure:
        figure(args.figure, real, first, results, args.epsilon)


if __name__ == "__main__":
    main()
