"""Utility cost of the ridged release N(μ, Σ + ρI) on Adult's numeric columns and the demo table.

For each table, μ and the biased covariance Σ of the encoded table are fitted with synthcert's
Encoder and numpy. Then, for each ρ, n_out = n rows are drawn from N(μ, Σ + ρI), clipped and
decoded with the Encoder. Against the real table, the script reports the correlation error
(mean |R_real − R_syn| over column pairs, ``utility.correlation_difference``) and the marginal
errors (``utility.compare_marginals``: mean normalised Wasserstein-1 and mean L1 over 20
public bins). Each is a mean over ``--repeats`` independent draws. ρ = 0 is the plain release;
the Δ columns are each ridged release minus the plain one.

Privacy columns:

* ρ > 0: the unconditional certificate (``privacy.ridge.certify_ridge``) for n_out = n rows with
  min-rows N = n, as (ε, δ)-DP with α optimised, unbounded and bounded. ``max rows`` is the
  largest n_out within (ε = 1, δ), from ``privacy.ridge.max_records_ridge``.
* ρ = 0: Theorem 3.1 / Corollary 3.2 (``privacy.budget``) at σ = λ_min measured on the table.
  That σ is data-dependent (a leak of its own), shown only for comparison.

    SYNTHCERT_DATA_HOME=/work/shared/data python benchmarks/ridge_utility.py \\
        [--rhos 0,0.001,0.01,0.05] [--repeats 5] [--delta 1e-9] [--seed N] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np
import pandas as pd

from synthcert.data.datasets import adult_schema, demo_schema, load_adult, make_demo_table
from synthcert.data.encode import Encoder
from synthcert.data.schema import Schema
from synthcert.privacy.budget import account, max_records
from synthcert.privacy.ridge import certify_ridge, max_records_ridge
from synthcert.synthesizers.gaussian import gaussian_factor
from synthcert.utility.correlation import correlation_difference
from synthcert.utility.marginals import compare_marginals


def fit(table: pd.DataFrame, schema: Schema) -> tuple[Encoder, np.ndarray, np.ndarray]:
    """Encoder, mean and biased (1/n) covariance of the encoded table (M_G's statistics)."""
    enc = Encoder(schema)
    x, _ = enc.encode(table)
    mu = x.mean(axis=0)
    centred = x - mu
    return enc, mu, centred.T @ centred / x.shape[0]


def sample(
    enc: Encoder, mu: np.ndarray, cov: np.ndarray, rho: float, n_out: int, rng: np.random.Generator
) -> pd.DataFrame:
    """n_out rows of N(μ, Σ + ρI), clipped to the box and decoded (Encoder.decode clips)."""
    factor = gaussian_factor(cov + rho * np.eye(cov.shape[0]))
    z = rng.standard_normal((n_out, cov.shape[0]))
    return enc.decode(mu + z @ factor.T)


def utility(real: pd.DataFrame, synth: pd.DataFrame, schema: Schema) -> dict[str, float]:
    summary = compare_marginals(real, synth, schema).summary
    return {
        "corr": float(correlation_difference(real, synth, schema).mean),
        "wasserstein": float(summary["wasserstein_numeric_mean"]),
        "l1": float(summary["l1_numeric_mean"]),
    }


def privacy(n: int, d: int, rho: float, lam_min: float, delta: float) -> dict[str, object]:
    """ε of releasing n rows, and the rows (ε = 1, δ) allows: ridged, or plain at σ = λ_min."""
    out: dict[str, object] = {}
    for rel in ("unbounded", "bounded"):
        if rho > 0:
            cert = certify_ridge(n, d, rho, neighboring=rel, delta=delta)
            rows = max_records_ridge(n, d, rho, neighboring=rel, epsilon=1.0, delta=delta)
        else:
            cert = account(n, d, lam_min, neighboring=rel, delta=delta)
            rows = max_records(n, d, lam_min, neighboring=rel, epsilon=1.0, delta=delta)
        out[f"eps_{rel}"] = cert.epsilon if cert.feasible else math.inf
        out[f"rows_{rel}"] = rows.max_records
    return out


def run_table(
    name: str,
    table: pd.DataFrame,
    schema: Schema,
    args: argparse.Namespace,
    seed: np.random.SeedSequence,
) -> list[dict[str, object]]:
    enc, mu, cov = fit(table, schema)
    n, d = len(table), cov.shape[0]
    lam_min = float(np.linalg.eigvalsh(cov)[0])
    print(f"\n{name}: n = {n}, d = {d}, λ_min(Σ) = {lam_min:.4g} (measured, not released)")
    rows = []
    for rho, child in zip(args.rhos, seed.spawn(len(args.rhos)), strict=True):
        rng = np.random.default_rng(child)
        draws = [utility(table, sample(enc, mu, cov, rho, n, rng), schema)
                 for _ in range(args.repeats)]  # fmt: skip
        row: dict[str, object] = {"table": name, "rho": rho, "n": n, "d": d}
        for key in draws[0]:
            vals = np.array([r[key] for r in draws])
            row[key] = float(vals.mean())
            row[f"{key}_sd"] = float(vals.std(ddof=1)) if len(vals) > 1 else 0.0
        row.update(privacy(n, d, rho, lam_min, args.delta))
        rows.append(row)
    plain = rows[0] if rows[0]["rho"] == 0 else None
    head = (f"{'ρ':>6} {'corr err':>15} {'Δ':>8} {'W1 err':>15} {'Δ':>8} {'L1 err':>8} "
            f"{'ε unb (n rows)':>14} {'ε bnd':>9} {'rows@ε=1 unb':>12} {'bnd':>8}")  # fmt: skip
    print(head)
    for r in rows:
        dc = r["corr"] - plain["corr"] if plain else math.nan
        dw = r["wasserstein"] - plain["wasserstein"] if plain else math.nan
        print(
            f"{r['rho']:>6g} {r['corr']:>8.5f}±{r['corr_sd']:.5f} {dc:>+8.5f} "
            f"{r['wasserstein']:>8.5f}±{r['wasserstein_sd']:.5f} {dw:>+8.5f} {r['l1']:>8.4f} "
            f"{r['eps_unbounded']:>14.4g} {r['eps_bounded']:>9.4g} "
            f"{r['rows_unbounded']:>12d} {r['rows_bounded']:>8d}"
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--rhos", default="0,0.001,0.01,0.05")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--delta", type=float, default=1e-9)
    p.add_argument("--demo-rows", type=float, default=200_000)
    p.add_argument("--seed", type=int, default=None, help="default: 128 bits of OS entropy")
    p.add_argument("--json", default=None, help="also write the rows as JSON here")
    args = p.parse_args(argv)
    args.rhos = [float(r) for r in args.rhos.split(",")]
    seed = np.random.SeedSequence(args.seed)
    print(f"seed entropy: {seed.entropy}  (δ = {args.delta:g}, {args.repeats} draws per ρ)")
    tables = [
        ("adult-numeric", load_adult(numeric_only=True), adult_schema(numeric_only=True)),
        ("demo", make_demo_table(int(args.demo_rows)), demo_schema()),
    ]
    out = []
    for (name, table, schema), child in zip(tables, seed.spawn(len(tables)), strict=True):
        out.extend(run_table(name, table, schema, args, child))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
