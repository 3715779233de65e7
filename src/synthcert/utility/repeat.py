"""Repeat synthesis and evaluation N times; report mean and standard deviation of every figure
(thesis Algorithm 9).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from synthcert._result import Result
from synthcert.seeding import run_seeds
from synthcert.synthesizers.base import Synthesizer

DEFAULT_RUNS = 5


def flatten_figures(value: Any, prefix: str = "") -> dict[str, float]:
    """The numeric leaves of nested dicts as ``{"a.b.c": float}`` (booleans and None skipped)."""
    out: dict[str, float] = {}
    if hasattr(value, "to_dict") and not isinstance(value, Mapping):
        value = value.to_dict()
    if isinstance(value, Mapping):
        for key, v in value.items():
            out.update(flatten_figures(v, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    ):
        out[prefix] = float(value)
    return out


@dataclass(frozen=True)
class Repeated(Result):
    """Mean and standard deviation over runs of every figure (thesis Algorithm 9, lines 7-8).

    The standard deviation is numpy's default (divisor N, as ``np.std`` of ``ans``); ``count``
    says in how many runs a figure was defined (a failed or undefined figure is left out).
    """

    n_runs: int
    mean: dict[str, float]
    std: dict[str, float]
    count: dict[str, int]
    runs: tuple[dict[str, float], ...]


def aggregate(runs: Sequence[Mapping[str, float]]) -> Repeated:
    """Mean and standard deviation of each key over the runs that have it (finite values only)."""
    keys = dict.fromkeys(k for r in runs for k in r)  # first-seen order
    mean: dict[str, float] = {}
    std: dict[str, float] = {}
    count: dict[str, int] = {}
    for k in keys:
        vals = np.array([r[k] for r in runs if k in r and math.isfinite(r[k])], dtype=np.float64)
        count[k] = int(vals.size)
        mean[k] = float(vals.mean()) if vals.size else math.nan
        std[k] = float(vals.std()) if vals.size else math.nan
    return Repeated(len(runs), mean, std, count, tuple(dict(r) for r in runs))


def repeat(run: Callable[[int], Any], n_runs: int = DEFAULT_RUNS, *, seed: int = 0) -> Repeated:
    """Call ``run(seed_i)`` for i = 1..N and aggregate its figures (thesis Algorithm 9)."""
    if n_runs < 1:
        raise ValueError("n_runs must be at least 1")
    return aggregate([flatten_figures(run(s)) for s in run_seeds(seed, n_runs)])


def repeat_synthesis(
    make: Callable[[int], Synthesizer],
    real: pd.DataFrame,
    evaluate: Callable[[pd.DataFrame, int], Any],
    n_runs: int = DEFAULT_RUNS,
    *,
    n_out: int | None = None,
    seed: int = 0,
) -> Repeated:
    """Algorithm 9: N times fit a fresh synthesizer, sample ``n_out`` rows (default: as many
    as ``real``), evaluate; return mean and standard deviation of every figure.

    ``make(seed_i)`` builds an unfitted synthesizer (so any noise of the fit is redrawn in every
    run, as D_syn <- F(D_orig) is in line 3); ``evaluate(synthetic, seed_i)`` returns figures.
    """
    n = len(real) if n_out is None else n_out

    def one(s: int) -> Any:
        synth = make(s).fit(real)
        return evaluate(synth.sample(n, seed=s), s)

    return repeat(one, n_runs, seed=seed)
