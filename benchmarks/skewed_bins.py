"""AIM at epsilon = 1 on a long-tailed wage: equal-width bins against log-scale bins.

A weekly wage with median near 500 and public bounds [0, 20,000] puts almost every row in the
first one or two of 20 equal-width bins, so AIM's marginals cannot carry the wage's shape or
its correlations. ``scale: log`` (public: bins equal in log(1 + x - lower)) follows the shape
without reading the data. Prints, for each binning, over --seeds runs on the deterministic
wage fixture (tests/fixtures/real_tables.py): the mean relative error of the wage's nine
deciles, the mean |delta corr| of the numeric columns' Pearson correlations, the 1-way
and then the ratios equal-width / log.

    PYTHONPATH=src python benchmarks/skewed_bins.py [--rows 5000] [--seeds 3] [--epsilon 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "fixtures"))

from real_tables import WAGE_UPPER, wage_table

from synthcert.data.schema import CategoricalColumn, NumericColumn, Schema
from synthcert.synthesizers.pgm import AIMSynthesizer

NUMERIC = ["wage", "hours", "age"]
DECILES = np.linspace(0.1, 0.9, 9)


def schema(scale: str) -> Schema:
    """The wage table's public schema; only the wage's scale differs."""
    return Schema(
        (
            NumericColumn("wage", 0.0, WAGE_UPPER, scale=scale),
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=5_000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--epsilon", type=float, default=1.0)
    args = parser.parse_args()
    real = wage_table(args.rows)
    results: dict[str, tuple[float, float]] = {}
    for scale, label in (("linear", "equal-width"), ("log", "log")):
        dec, cor = [], []
        t0 = time.perf_counter()
        for seed in range(args.seeds):
            synth = AIMSynthesizer(schema(scale), epsilon=args.epsilon, seed=seed).fit(real)
            out = synth.sample(args.rows, seed=seed + 1_000)
            dec.append(decile_error(real["wage"], out["wage"]))
            cor.append(corr_error(real, out))
        results[label] = (float(np.mean(dec)), float(np.mean(cor)))
        print(
            f"{label:>11} bins: wage decile error {results[label][0]:.3f}, "
            f"mean |delta corr| {results[label][1]:.3f} "
            f"({args.seeds} runs, {time.perf_counter() - t0:.0f} s)",
            flush=True,
        )
    eq, lg = results["equal-width"], results["log"]
    print(
        f"ratio equal-width / log: decile error {eq[0] / lg[0]:.2f}, |delta corr| "
        f"{eq[1] / lg[1]:.2f}"
    )


if __name__ == "__main__":
    main()
