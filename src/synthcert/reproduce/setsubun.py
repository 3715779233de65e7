"""Reproduce the Setsubun grid of seed 003 (thesis chapter 3, Table 3.1, Figure 3.3).

Datasets Adult (15 columns) and California Housing (scikit-learn's nine numeric columns, the
thesis's copy) × targets random and mah-max × the synthesizers of the registry that are
importable × the ten attacks (and the calibrated statistics attack). The thesis's ``gcopula``
is SDV's GaussianCopula, whose default marginals are beta fits, so the grid's copula uses
``marginals="beta"`` (``THESIS_PARAMS``). ``quick`` runs a reduced grid for CI.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert.audit.attacks import ATTACK_NAMES, AttackParams
from synthcert.audit.game import run_audit
from synthcert.audit.plots import plot_auc_bars
from synthcert.data.io import write_table, write_text
from synthcert.errors import SynthcertError
from synthcert.synthesizers.registry import available_synthesizers

THESIS_SYNTHESIZERS = ("gaussian-copula", "privbayes", "mwem-pgm", "aim", "ctgan")
QUICK_SYNTHESIZERS = ("gaussian-copula", "privbayes", "gaussian")
# Parameters that make a registry synthesizer the one the thesis ran.
THESIS_PARAMS: dict[str, dict[str, Any]] = {"gaussian-copula": {"marginals": "beta"}}
THESIS_FINDINGS = {
    "adult": "random: all ≈ 0.5; mah-max: RF_hist, XGB_hist and sample larger, sample ≈ 0.8",
    "california": "random: all ≈ 0.5; mah-max: every attack > 0.6 (up to +0.4 over random)",
}
# Largest Mahalanobis distances reported in section 3.4.1.
THESIS_MAX_MAHALANOBIS = {"adult": 173.67, "california": 119.52}


@dataclass(frozen=True)
class GridSettings(Result):
    """Sizes of one run of the grid."""

    rows: int | None  # rows drawn from each dataset (None: all)
    trials: int
    generations: int
    params: AttackParams
    synthesizers: tuple[str, ...]
    attacks: tuple[str, ...]
    seed: int


FULL = GridSettings(
    None, 3, 100, AttackParams(), (*THESIS_SYNTHESIZERS, "gaussian"), ATTACK_NAMES, 0
)
QUICK = GridSettings(
    1500, 1, 20, AttackParams(c2=5, chunks=20), QUICK_SYNTHESIZERS, ATTACK_NAMES, 0
)


@dataclass(frozen=True)
class SetsubunGrid(Result):
    """The AUC table of the grid, the cells skipped (and why), and the files written."""

    aucs: list[dict[str, Any]]
    skipped: list[dict[str, str]]
    settings: GridSettings
    files: dict[str, str]
    max_mahalanobis: dict[str, dict[str, float]]  # per dataset: ours (on the rows used), thesis

    def frame(self) -> pd.DataFrame:
        """The AUC table as a frame."""
        return pd.DataFrame(self.aucs)


def load_grid_datasets(rows: int | None, seed: int) -> dict[str, tuple[pd.DataFrame, Any]]:
    """Adult (15 columns) and California Housing (scikit-learn's nine), optionally subsampled."""
    from synthcert.data.datasets import (
        adult_schema,
        california_sklearn_features,
        california_sklearn_schema,
        load_adult,
        load_california_housing,
    )

    data = {
        "adult": (load_adult(), adult_schema()),
        "california": (
            california_sklearn_features(load_california_housing()),
            california_sklearn_schema(),
        ),
    }
    if rows is not None:
        rng = np.random.default_rng(seed)
        data = {
            k: (
                df.iloc[
                    np.sort(rng.choice(len(df), min(rows, len(df)), replace=False))
                ].reset_index(drop=True),
                s,
            )
            for k, (df, s) in data.items()
        }
    return data


def reproduce_setsubun(
    out: str | Path,
    *,
    quick: bool = False,
    settings: GridSettings | None = None,
    datasets: Sequence[str] = ("adult", "california"),
    targets: Sequence[str] = ("random", "mah-max"),
    workers: int = 1,
    progress: Callable[[str, int, int], None] | None = None,
) -> SetsubunGrid:
    """Run the grid, write aucs.csv, figure_3_3.png and grid.json into ``out``."""
    settings = settings or (QUICK if quick else FULL)
    synths, missing = available_synthesizers(settings.synthesizers)
    skipped = [{"synthesizer": k, "reason": f"not available: {v}"} for k, v in missing.items()]
    data = load_grid_datasets(settings.rows, settings.seed)
    from synthcert.audit.targets import mahalanobis_distances
    from synthcert.data.encode import Encoder

    maxima = {
        ds: {
            "ours": float(mahalanobis_distances(Encoder(s).encode(df)[0]).max()),
            "thesis": THESIS_MAX_MAHALANOBIS[ds],
        }
        for ds, (df, s) in data.items()
        if ds in datasets
    }
    cells = [(ds, tg, sy) for ds in datasets for tg in targets for sy in synths]
    rows: list[dict[str, Any]] = []
    for k, (ds, tg, sy) in enumerate(cells):
        df, schema = data[ds]
        label = f"{ds} / {tg} / {sy}"
        if progress:
            progress(label, k, len(cells))
        try:
            res = run_audit(
                df,
                schema,
                sy,
                synthesizer_params=THESIS_PARAMS.get(sy),
                target=tg,
                attacks=settings.attacks,
                trials=settings.trials,
                generations=settings.generations,
                workers=workers,
                seed=settings.seed,
                params=settings.params,
            )
        except SynthcertError as exc:
            skipped.append({"synthesizer": sy, "dataset": ds, "target": tg, "reason": str(exc)})
            continue
        rows.extend(
            {
                "dataset": ds,
                "target": tg,
                "synthesizer": sy,
                **row,
                "target_row": res.target_row,
                "target_mahalanobis": res.target_mahalanobis,
            }
            for row in res.auc_rows()
        )
    if progress:
        progress("done", len(cells), len(cells))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    table = pd.DataFrame(rows)
    if not table.empty:
        files["aucs"] = str(write_table(table, out / "aucs.csv"))
        files["figure_3_3"] = str(plot_auc_bars(table, out / "figure_3_3.png"))
    grid = SetsubunGrid(rows, skipped, settings, files, maxima)
    files["grid"] = str(out / "grid.json")
    write_text(json.dumps(grid.to_dict(), indent=2) + "\n", out / "grid.json")
    return grid


def summary_table(grid: SetsubunGrid) -> pd.DataFrame:
    """Mean AUC over synthesizers per dataset, attack and target (the bars of Figure 3.3)."""
    t = grid.frame()
    if t.empty:
        return t
    return (
        t.groupby(["dataset", "attack", "target"], sort=False)["auc"]
        .mean()
        .unstack("target")
        .reset_index()
    )
